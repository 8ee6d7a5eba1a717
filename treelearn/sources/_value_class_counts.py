"""A classifier's file read in chunks with its numeric features cut into MDL bins, as the
same table read whole into a DataFrame would be cut.

Fayyad and Irani's MDL cut points of a column depend on its rows only through each distinct
value's class counts (the criterion sorts the rows by value and counts classes on each side
of a candidate cut), so a first pass over the chunks sums, per numeric column, a table of
distinct value x class weights (:func:`value_class_counts`); the cut points are those of the
table's rows weighted by their counts (weighted MDL bins are repeated rows). A second pass
cuts each chunk into those bins and keeps it (:func:`binned_file`): the counting then sees
what a DataFrame read whole and cut by the same bins gives.

Which columns are numbers is decided by dtype, as for a DataFrame: a column numeric in every
chunk (a chunk's integers with a gap read as floats: still numbers); a column that reads as
text in any chunk is states, as it is when the file is read whole.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._base.errors import ColumnNotFoundError, ResourceLimitError, TreelearnError
from ._files import iter_chunks, split_weights

if TYPE_CHECKING:
    from ..encoding._discretizer import Discretizer

__all__ = [
    "CHUNK_ROWS",
    "MAX_DISTINCT_VALUES",
    "binned_file",
    "mdl_binner_of_counts",
    "number_dtype",
    "value_class_counts",
]

#: rows read at a time
CHUNK_ROWS = 200_000
#: distinct values a numeric column may hold for its value x class table (each a row of
#: 3 small arrays): beyond, it is refused naming numbers="states" / categorical=
MAX_DISTINCT_VALUES = 2_000_000


def number_dtype(dtype: Any) -> bool:
    """Numbers or dates by dtype (a Categorical, text, booleans, complex: states).

    >>> number_dtype(np.dtype("int64")), number_dtype(np.dtype(bool)), number_dtype(object)
    (True, False, False)
    """
    if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype):
        return False
    if pd.api.types.is_complex_dtype(dtype):  # no order to cut: refused as states are
        return False
    return pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_datetime64_any_dtype(dtype)


def _chunks(path: Any, y: Hashable, sample_weight: Any) -> Any:
    """``(rows, labels, weights)`` of each chunk (rows of weight zero left out)."""
    from ..encoding._table import check_column_names

    for chunk in iter_chunks(path, CHUNK_ROWS):
        check_column_names(list(chunk.columns))  # duplicates refused as for a table read whole
        if y not in chunk.columns:
            raise ColumnNotFoundError(
                f"y={y!r} is not a column of {os.fspath(path)!r}; its columns are "
                f"{list(chunk.columns)[:20]}",
                column=y,
            )
        weight_column = sample_weight if isinstance(sample_weight, (str, int)) else None
        rows, weights = split_weights(chunk, weight_column)
        labels = rows[y]
        yield rows.drop(columns=[y]), labels, weights


def value_class_counts(
    path: Any,
    y: Hashable,
    categorical: Sequence[Hashable] | None,
    who: str,
    sample_weight: Any = None,
) -> dict:
    """``{column: DataFrame(value, label, weight)}``: each numeric feature's distinct value
    x class weights over every chunk of the file (rows missing the value or the label left
    out), in one pass; the numeric features are those numbers by dtype in every chunk, less
    ``categorical``."""
    keep = set(categorical or ())
    tables: dict = {}
    text: set = set()
    for rows, labels, weights in _chunks(path, y, sample_weight):
        w = np.ones(len(rows)) if weights is None else np.asarray(weights, dtype=float)
        for c in rows.columns:
            if c in keep or c in text:
                continue
            if not number_dtype(rows[c].dtype):
                text.add(c)
                tables.pop(c, None)
                continue
            seen = rows[c].notna().to_numpy() & labels.notna().to_numpy()
            part = (
                pd.DataFrame({"value": rows[c].to_numpy()[seen], "label": labels.to_numpy()[seen]})
                .assign(weight=w[seen])
                .groupby(["value", "label"], sort=False)["weight"]
                .sum()
                .reset_index()
            )
            before = tables.get(c)
            # the limit checked on the distinct values of the two tables before they merge
            grown = part["value"].nunique() + (0 if before is None else before["value"].nunique())
            if grown > MAX_DISTINCT_VALUES:
                total = (
                    pd.concat([before["value"], part["value"]]).nunique()
                    if before is not None
                    else grown
                )
                if total > MAX_DISTINCT_VALUES:
                    raise ResourceLimitError(
                        f"{who}: numeric column {c!r} has more than {MAX_DISTINCT_VALUES:,} "
                        f"distinct values ({total:,} so far) for its MDL bins from a file; keep "
                        f'its values as states with numbers="states" (or categorical=[{c!r}]), '
                        f"cut it first with a tl.Discretizer, or fit on a DataFrame",
                        column=c,
                    )
            if before is not None:
                part = (
                    pd.concat([before, part], ignore_index=True)
                    .groupby(["value", "label"], sort=False)["weight"]
                    .sum()
                    .reset_index()
                )
            tables[c] = part
    return tables


def mdl_binner_of_counts(tables: dict, columns: Sequence[Hashable]) -> Discretizer | None:
    """The fitted MDL Discretizer of ``columns`` from their value x class tables (each
    table's rows weighted by their counts); ``None`` without columns."""
    from ..encoding._discretizer import Discretizer, mdl_discretizer

    names = [c for c in columns if c in tables]
    if not names:
        return None
    binner = Discretizer(strategy="mdl", columns=names)
    binner.edges_, binner.categories_, binner.timezones_ = {}, {}, {}
    for c in names:
        table = tables[c]
        if table.empty:
            from ..encoding._table import no_value_error

            raise no_value_error(c)
        one = mdl_discretizer(
            pd.DataFrame({c: table["value"]}), table["label"], [c], table["weight"].to_numpy()
        )
        binner.edges_[c] = one.edges_[c]
        binner.categories_[c] = one.categories_[c]
        binner.timezones_[c] = one.timezones_[c]
    features = np.empty(len(names), dtype=object)
    features[:] = names
    binner.feature_names_in_ = features
    binner.n_features_in_ = len(names)
    return binner


def binned_file(
    path: Any, y: Hashable, binner: Discretizer | None, sample_weight: Any = None
) -> tuple[pd.DataFrame, pd.Series, np.ndarray | None]:
    """``(features, labels, weights)`` of the file, each chunk's binned features cut
    (second pass); the chunks' other columns as read."""
    frames, labels, weights = [], [], []
    for rows, label, w in _chunks(path, y, sample_weight):
        if binner is not None:
            cut = binner.transform(rows[list(binner.edges_)])
            rows = rows.copy(deep=False)
            for c in binner.edges_:
                rows[c] = cut[c]
        frames.append(rows)
        labels.append(label)
        if w is not None:
            weights.append(w)
    if not frames:
        raise TreelearnError(f"{os.fspath(path)!r} has no rows; there is nothing to learn")
    frame = pd.concat(frames, ignore_index=True)
    return (
        frame,
        pd.concat(labels, ignore_index=True),
        np.concatenate(weights) if weights else None,
    )
