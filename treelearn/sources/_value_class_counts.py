"""A classifier's file read in chunks with its numeric features cut into MDL bins, as the
same table read whole into a DataFrame would be cut.

Fayyad and Irani's MDL cut points of a column depend on its rows only through each distinct
value's class counts (the criterion sorts the rows by value and counts classes on each side
of a candidate cut), so a first pass over the chunks sums, per numeric column, a table of
distinct value x class weights (:func:`scan_labelled_file`); the cut points are those of the
table's rows weighted by their counts (weighted MDL bins are repeated rows). The same pass
(:func:`scan_labelled_file`) keeps each feature's value counts and the labels' counts, from
which the states of the table read whole and binned follow (its classes, each feature's
sorted states, dtype, note or refusal). A second pass (:func:`counted_file`) cuts each
chunk into the bins, encodes it in those states and keeps only its codes (one small
integer per cell; the chunk is dropped): the counts are those of the DataFrame read whole
and cut by the same bins, with memory of one chunk plus the codes the classifiers count
families from (KDB, AODE and the structure searches need the rows' codes, not pair counts).

Which columns are numbers is decided by dtype, as for a DataFrame: a column numeric in every
chunk (a chunk's integers with a gap read as floats: still numbers); a column that reads as
text in any chunk is states, as it is when the file is read whole. A CSV column parsed as
numbers (or booleans) in some chunks and as text in others is read again as text in both
passes, as pandas reads it whole (``"1"``, not ``1`` and ``"1"``): the rule of
:func:`treelearn.sources._files.read_as_text`, which the chunked counting of
:func:`~treelearn.sources._files.count_file` follows too.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._base.errors import (
    ColumnNotFoundError,
    EmptyDataError,
    MissingValuesError,
    ResourceLimitError,
    TreelearnError,
)
from ..encoding._table import python_scalar
from ..stats._counts import ClassCounts
from ._files import is_parquet, iter_chunks, read_as_text, split_weights, value_kinds
from ._kinds import text_turn, turn_reason

if TYPE_CHECKING:
    from ..encoding._discretizer import Discretizer

__all__ = [
    "CHUNK_ROWS",
    "MAX_DISTINCT_VALUES",
    "check_categorical_named",
    "counted_file",
    "counted_states_file",
    "mdl_binner_of_counts",
    "number_columns",
    "number_dtype",
    "scan_labelled_file",
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


def number_columns(dtypes: Any, categorical: Sequence[Hashable] | None = None) -> list:
    """The columns a classifier takes as numbers: those whose dtype is a number or a date
    (:func:`number_dtype`), less the ones named in ``categorical`` (kept as states), in
    column order. The one rule of every classifier (the bins of the counting ones, the
    Gaussians of the mixed ones): by dtype, never by how often values repeat, so every
    cross-validation fold of a table takes the same columns as numbers.

    ``dtypes``: a pandas or Dask frame's ``dtypes`` (its metadata: no row is read).

    >>> frame = pd.DataFrame({"age": [30, 41], "zip": [2139, 2140], "sex": ["f", "m"]})
    >>> number_columns(frame.dtypes, ["zip"])
    ['age']
    """
    keep = set(categorical or ())
    return [c for c, dtype in dtypes.items() if c not in keep and number_dtype(dtype)]


def gaussian_number_columns(dtypes: Any, categorical: Sequence[Hashable] | None = None) -> list:
    """:func:`number_columns` less the dates: the columns a Gaussian part takes (real
    numbers; the mixed classifiers keep dates as states, the counting ones bin them).

    >>> frame = pd.DataFrame({"age": [30, 41], "day": pd.to_datetime(["2021-01-01"] * 2)})
    >>> gaussian_number_columns(frame.dtypes)
    ['age']
    """
    return [
        c
        for c in number_columns(dtypes, categorical)
        if not pd.api.types.is_datetime64_any_dtype(dtypes[c])
    ]


def check_categorical_named(
    categorical: Sequence[Hashable] | None, features: list, who: str
) -> None:
    """Refuse a ``categorical=`` name that is not one of the ``features``."""
    absent = [c for c in categorical or () if c not in features]
    if absent:
        raise ColumnNotFoundError(
            f"categorical= names {absent[:10]}, not feature(s) of {who}'s data; the "
            f"features are {features[:20]}",
            column=absent[0],
        )


def _chunks(path: Any, y: Hashable, sample_weight: Any, text: Sequence[Hashable] = ()) -> Any:
    """``(rows, labels, weights)`` of each chunk (rows of weight zero left out).
    ``sample_weight``: the name of the file's weight column, or one weight per row of the
    file (an array, sliced chunk by chunk; its length checked against the file's rows).
    ``text``: CSV columns read as text (:func:`~treelearn.sources._files.read_as_text`)."""
    from ..encoding._table import check_column_names, check_sample_weight

    given = None
    if sample_weight is not None and not isinstance(sample_weight, (str, int)):
        given = check_sample_weight(sample_weight, len(sample_weight), allow_all_zero=True)
    offset = 0
    for chunk in iter_chunks(path, CHUNK_ROWS, text):
        check_column_names(list(chunk.columns))  # duplicates refused as for a table read whole
        if y not in chunk.columns:
            raise ColumnNotFoundError(
                f"y={y!r} is not a column of {os.fspath(path)!r}; its columns are "
                f"{list(chunk.columns)[:20]}",
                column=y,
            )
        weight_column = sample_weight if isinstance(sample_weight, (str, int)) else None
        if given is not None:  # the array's weights of this chunk's rows
            if offset + len(chunk) > len(given):
                raise _weights_length(len(given), path)
            chunk = chunk.assign(**{_WEIGHTS: given[offset : offset + len(chunk)]})
            weight_column = _WEIGHTS
            offset += len(chunk)
        rows, weights = split_weights(chunk, weight_column)
        labels = rows[y]
        yield rows.drop(columns=[y]), labels, weights
    if given is not None and offset != len(given):
        raise _weights_length(len(given), path, offset)


#: the column an array of weights is put in, chunk by chunk (not a name a file has)
_WEIGHTS = "\x00sample_weight"


def _weights_length(n_weights: int, path: Any, n_rows: int | None = None) -> Exception:
    from .._base.errors import TreelearnError

    rows = "more rows than that" if n_rows is None else f"{n_rows} rows"
    return TreelearnError(
        f"sample_weight has {n_weights} weights but {os.fspath(path)!r} has {rows}; give one "
        f"weight per row of the file, or name its weight column (sample_weight='w')"
    )


@dataclass
class FileScan:
    """What the first pass over a labelled file's chunks learns: each numeric feature's
    value x class table (``tables``), each feature's value counts (one Series per column,
    indexed by the values, missing ones too: ``distinct``), the class labels' row
    counts (``label_counts``) and the missing labels (``n_missing_labels``)."""

    header: list
    tables: dict
    distinct: dict
    label_counts: pd.Series
    n_missing_labels: int
    text: tuple = ()  # CSV columns read as text (numbers in some chunks, text in others)
    # where a column of numbers turns to text: {column: (row, value)}
    turns: dict = field(default_factory=dict)


def scan_labelled_file(
    path: Any,
    y: Hashable,
    categorical: Sequence[Hashable] | None,
    who: str,
    sample_weight: Any = None,
    *,
    numbers: bool = True,
    as_text: Sequence[Hashable] = (),
) -> FileScan:
    """The first pass over the chunks of a labelled file (:class:`FileScan`): ``tables``,
    ``{column: DataFrame(value, label, weight)}``, each numeric feature's distinct value x
    class weights over every chunk (rows missing the value or the label left out; the
    numeric features those numbers by dtype in every chunk, less ``categorical``), and the distinct values the second pass
    needs to encode every chunk in the states of the table read whole. ``numbers=False``:
    no value x class tables (every feature taken as states, ``numbers="states"``).

    ``as_text``: CSV columns read as text. A column (the class column too) found to hold
    numbers or booleans in some chunks and text in others is read as text, as pandas reads
    it whole: the pass is made again with it in ``as_text``, as
    :func:`~treelearn.sources._files.count_file` makes its own."""
    keep = set(categorical or ())
    kinds: dict = {}  # each column's value kinds over the chunks (what read_as_text judges)
    tables: dict = {}
    not_numbers: set = set()  # features read as text in some chunk: states
    distinct: dict = {}
    label_counts: pd.Series | None = None
    n_missing_labels = 0
    header: list | None = None
    started: dict = {}  # per column: whether its first observed cell was a number
    turns: dict = {}
    for rows, labels, weights in _chunks(path, y, sample_weight, as_text):
        if header is None:
            header = list(rows.columns)
        for c in rows.columns:  # where a column of numbers turns to text, for its problems
            if c not in turns and started.get(c) is not False:
                started[c], turn = text_turn(rows[c], started.get(c))
                if turn is not None:
                    turns[c] = turn
        for c in rows.columns:  # each value's rows (missing too), in the chunks' dtype
            seen_values = rows[c].value_counts(dropna=False, sort=False)
            observed = seen_values.index.dropna()
            kinds.setdefault(c, set()).update(value_kinds(rows[c].dtype, observed))
            before_values = distinct.get(c)
            distinct[c] = (
                seen_values
                if before_values is None
                else pd.concat([before_values, seen_values])
                .groupby(level=0, dropna=False, sort=False)
                .sum()
            )
        n_missing_labels += int(labels.isna().sum())
        counted = labels.value_counts(dropna=True)
        kinds.setdefault(y, set()).update(value_kinds(labels.dtype, counted.index))
        label_counts = counted if label_counts is None else label_counts.add(counted, fill_value=0)
        w = np.ones(len(rows)) if weights is None else np.asarray(weights, dtype=float)
        for c in rows.columns if numbers else ():
            if c in keep or c in not_numbers:
                continue
            if not number_dtype(rows[c].dtype):
                not_numbers.add(c)
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
    found = [c for c, k in kinds.items() if c not in as_text and read_as_text(k)]
    if found and not is_parquet(os.fspath(path)):  # counted as numbers and as text: again
        return scan_labelled_file(
            path, y, categorical, who, sample_weight, numbers=numbers, as_text=[*as_text, *found]
        )
    return FileScan(
        header or [],
        tables,
        distinct,
        pd.Series([], dtype=float) if label_counts is None else label_counts,
        n_missing_labels,
        tuple(as_text),
        turns,
    )


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


def _binned(rows: pd.DataFrame, binner: Discretizer | None) -> pd.DataFrame:
    """``rows`` with the binned features replaced by their bins (a new frame)."""
    if binner is None:
        return rows
    cut = binner.transform(rows[list(binner.edges_)])
    rows = rows.copy(deep=False)
    for c in binner.edges_:
        rows[c] = cut[c]
    return rows


def _stand_ins(counts: pd.Series) -> pd.Series:
    """A short column with the states, dtype and verdict of the column whose value counts
    are ``counts``: each value once, or twice if seen more than once (the encoding's rule
    for floats asks only "seen once, or at least twice")."""
    return pd.Series(counts.index.repeat(np.minimum(counts.to_numpy(), 2)))


def _whole_states(scan: FileScan, binner: Discretizer | None, y: Hashable) -> tuple:
    """``(states, dtypes, classes, label_dtype)`` of the table read whole and binned: each
    feature's states (and note, or refusal) are those ``encode`` finds in its distinct values
    (binned first), each repeated as :func:`_stand_ins` says: the whole column's; the classes are the distinct labels, checked as a
    label column is (missing labels, one class, a regression target)."""
    from ..encoding._table import encode
    from ._count import check_not_continuous, class_labels

    states, dtypes = {}, {}
    binned = [] if binner is None else list(binner.edges_)
    if binned:  # bins of every distinct value (shorter columns padded with gaps: no state)
        cut = binner.transform(  # type: ignore[union-attr]
            pd.DataFrame({c: _stand_ins(scan.distinct[c]) for c in binned})
        )
    for c in scan.header:
        values = cut[c] if c in binned else _stand_ins(scan.distinct[c])
        try:
            table = encode(pd.DataFrame({c: values}), missing="pairwise")
        except TreelearnError as error:  # a column of numbers turning to text says where
            if c not in scan.turns:
                raise
            raise turn_reason(error, scan.turns[c]) from None
        states[c], dtypes[c] = table.states[0], table.dtypes[0]
    if scan.n_missing_labels:
        raise MissingValuesError(
            f"y has {scan.n_missing_labels} missing class label(s); drop those rows or fill them in"
        )
    labels = pd.Series(scan.label_counts.index.to_numpy(), name=y)
    classes, _, _ = class_labels(labels, len(labels), check_continuous=False)
    check_not_continuous(labels.to_numpy(), scan.label_counts.to_numpy())
    return states, dtypes, classes, scan.label_counts.index.dtype


def counted_file(
    path: Any,
    y: Hashable,
    binner: Discretizer | None,
    scan: FileScan,
    sample_weight: Any = None,
) -> ClassCounts:
    """The class counts of the file with its binned features cut (second pass): each chunk
    is binned and encoded in the states of the table read whole (:func:`_whole_states`), and
    only its codes are kept (one small integer per cell), never the chunk itself."""
    from ..encoding._table import Table
    from ._count import class_dtype, count_by_class

    states, dtypes, classes, label_dtype = _whole_states(scan, binner, y)
    codes, weights, columns = [], [], None
    for rows, labels, w in _chunks(path, y, sample_weight, scan.text):
        if len(rows) == 0:  # every row of weight zero
            continue
        part = count_by_class(
            _binned(rows, binner), labels, sample_weight=w, states=states, classes=classes
        )
        assert part.table is not None  # counted in memory: the codes are kept
        codes.append(part.table.codes)
        if part.table.weights is not None:
            weights.append(part.table.weights)
        columns = part.columns
    if columns is None:
        raise EmptyDataError(f"{os.fspath(path)!r} has no rows; there is nothing to learn")
    table = Table(
        codes=np.concatenate(codes),
        columns=columns,
        states=tuple(states[c] for c in scan.header) + (tuple(python_scalar(c) for c in classes),),
        dtypes=tuple(dtypes[c] for c in scan.header) + (class_dtype(label_dtype, classes),),
        weights=np.concatenate(weights) if weights else None,
    )
    return ClassCounts(table.columns, table.states, table.dtypes, classes, table=table)


def counted_states_file(path: Any, y: Hashable, sample_weight: Any = None) -> ClassCounts:
    """The class counts of a labelled file with every feature taken as states
    (``numbers="states"``), read in two chunked passes as :func:`counted_file` reads a
    binned one: the first finds each feature's states and the classes from the chunks'
    distinct values (:func:`scan_labelled_file`), the second encodes each chunk in them and
    keeps only its codes. The states, refusals and counts are those of the file read whole
    (:func:`~treelearn.sources._count.count_by_class` of its DataFrame); memory is one chunk
    plus the codes (one small integer per cell).

    ``sample_weight``: the name of the file's weight column (or ``None``)."""
    scan = scan_labelled_file(path, y, None, "", sample_weight, numbers=False)
    return counted_file(path, y, None, scan, sample_weight)
