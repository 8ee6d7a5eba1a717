"""Mixed data from any input kind: what a naive Bayes over categorical and Gaussian columns asks for.

The contract: :func:`mixed_statistics_by_class` ``(X, y, *, numeric=None,
categorical=None, sample_weight=None, learner=...) -> MixedStatistics``. Which columns
are Gaussian is decided by their dtype, integers and floats (dates) as every classifier
decides its numbers (:func:`~treelearn.sources._value_class_counts.number_columns`; the
columns ``categorical`` names kept as states), or named (``numeric``); the others are
categorical; then

* the categorical columns and the class: a :class:`~treelearn.stats._counts.ClassCounts`
  (:func:`~treelearn.sources._count.count_by_class`; ``None`` without categorical columns);
* the Gaussian columns: a :class:`~treelearn.stats._gaussian.ClassVariances`
  (:func:`~treelearn.sources._gaussian.variances_by_class`, missing cells summed out;
  ``None`` without Gaussian columns).

``X`` is

* a DataFrame, or a 2-D array (its columns ``x0, x1, ...``; a numeric array is all
  Gaussian);
* a Dask DataFrame, ``y`` a Dask Series partitioned like it or the name of its class
  column: the dtypes are the frame's metadata, the statistics come from the workers;
* a CSV/Parquet path, ``y`` the name of its class column: **read whole**, as
  ``count_by_class`` reads a file, because a column's kind is the dtype of the whole
  column, which a chunk of a CSV does not know (an integer column with a missing
  value in a later chunk is float there).

A scipy.sparse matrix and an encoded Table are refused. Rows of weight zero are left
out (their labels are no classes).

>>> import pandas as pd
>>> s = mixed_statistics_by_class(pd.DataFrame({"t": [36.6, 38.9, 37.0], "c": ["n", "y", "n"]}),
...                               pd.Series(["well", "ill", "well"], name="y"))
>>> s.features, s.numeric, s.class_name, s.classes.tolist(), s.class_count.tolist()
(['t', 'c'], ['t'], 'y', ['ill', 'well'], [1, 2])
>>> s.variances.mean.ravel().tolist()
[38.9, 36.8]
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import (
    EmptyDataError,
    InputTypeError,
    MissingValuesError,
    StructureError,
    TreelearnError,
)
from ..encoding._table import (
    DEFAULT_MAX_STATES,
    MissingPolicy,
    Table,
    check_column_names,
    check_sample_weight,
    encode,
    missing_values_error,
)
from ..stats._class_gaussians import gaussian_columns
from ..stats._counts import ClassCounts, CountedTable
from ..stats._gaussian import ClassVariances
from ..structure._clg_trees import MixedTableStatistics
from ._count import (
    class_dtype,
    class_name,
    count,
    count_by_class,
    labelled_file,
    target_name,
)
from ._dask import is_dask_series
from ._files import read_whole
from ._gaussian import REFUSALS, variances_by_class
from ._kinds import as_frame, by_kind, kind_of, numeric_matrix
from ._value_class_counts import check_categorical_named, gaussian_number_columns

__all__ = ["MixedStatistics", "mixed_statistics_by_class", "mixed_table", "table_statistics"]


@dataclass(frozen=True)
class MixedStatistics:
    """The statistics of mixed data: ``features`` (every feature, in ``X``'s order), the
    Gaussian ones ``numeric``, the categorical features' ``counts`` (with the class as
    their last column) and the Gaussian features' ``variances`` (either ``None`` when
    there are no such features), the class node's name and dtype."""

    features: list
    numeric: list
    counts: ClassCounts | None
    variances: ClassVariances | None
    class_name: Hashable
    class_dtype: Any

    @property
    def classes(self) -> np.ndarray:
        """The sorted class labels."""
        return self.counts.classes if self.counts is not None else self._variances().classes

    @property
    def class_count(self) -> np.ndarray:
        """Each class's total weight."""
        return self.counts.class_count if self.counts is not None else self._variances().weight

    def _variances(self) -> ClassVariances:
        """The Gaussian features' statistics, where there are no counts (one of the two is
        always there)."""
        assert self.variances is not None
        return self.variances


def mixed_statistics_by_class(
    X: Any,
    y: Any,
    *,
    numeric: Sequence[Hashable] | None = None,
    categorical: Sequence[Hashable] | None = None,
    sample_weight: Any = None,
    learner: str = "a mixed naive Bayes",
) -> MixedStatistics:
    """The statistics of mixed data from any kind of input (see the module's contract)."""

    def of_columns(frame: Any, labels: Any, weights: Any) -> MixedStatistics:
        return _of_columns(frame, labels, weights, numeric, categorical, learner)

    def path(source: Any) -> MixedStatistics:
        return of_columns(*labelled_file(source, y, sample_weight))

    def dask(ddf: Any) -> MixedStatistics:
        if not is_dask_series(y) and isinstance(y, (str, int)) and y in list(ddf.columns):
            return of_columns(ddf.drop(columns=[y]), ddf[y], sample_weight)
        return of_columns(ddf, y, sample_weight)

    return by_kind(
        X,
        {
            "path": path,
            "dask": dask,
            "frame": lambda frame: of_columns(frame, y, sample_weight),
            "array": lambda array: of_columns(as_frame(array, learner=learner), y, sample_weight),
        },
        learner=learner,
        refusals=REFUSALS,
    )


def _of_columns(
    X: Any,
    y: Any,
    sample_weight: Any,
    numeric: Sequence[Hashable] | None,
    categorical: Sequence[Hashable] | None,
    learner: str,
) -> MixedStatistics:
    """The statistics of a pandas or Dask DataFrame ``X`` (a weight column named by
    ``sample_weight`` is no feature): the Gaussian columns those ``numeric`` names, else
    the numbers by dtype less ``categorical`` and the dates (:func:`gaussian_number_columns`:
    every classifier's rule, the dates kept as states)."""
    weight_column = sample_weight if isinstance(sample_weight, (str, int)) else None
    features = [c for c in X.columns if weight_column is None or c != weight_column]
    check_categorical_named(categorical, features, learner)
    if numeric is None:  # dates stay states (as before): a Gaussian takes real numbers
        gaussian = [c for c in gaussian_number_columns(X.dtypes, categorical) if c != weight_column]
    else:
        gaussian = [c for c in gaussian_columns(X, numeric) if c != weight_column]
        both = [c for c in categorical or () if c in set(gaussian)]
        if both:
            raise TreelearnError(
                f"{learner}: {both[:10]} named both in numeric= (Gaussian) and in "
                f"categorical= (states); name each column in one of them",
                column=both[0],
            )
    wanted = set(gaussian)
    categorical = [c for c in features if c not in wanted]
    counts = variances = None
    if categorical or not gaussian:  # no feature at all: count_by_class's error says so
        extra = [] if weight_column is None else [weight_column]
        counts = count_by_class(X[categorical + extra], y, sample_weight=sample_weight)
        name, dtype = counts.columns[-1], counts.dtypes[-1] if counts.dtypes else None
    if gaussian:
        variances = variances_by_class(X, y, columns=gaussian, sample_weight=sample_weight)
    if counts is None:  # the class alone: its name and dtype from y
        assert variances is not None  # no categorical feature: Gaussian ones
        name = class_name(target_name(y), features)
        dtype = class_dtype(getattr(y, "dtype", None), variances.classes)
    return MixedStatistics(features, gaussian, counts, variances, name, dtype)


# ---------------------------------------------------------------------- tables (no class)
def table_statistics(
    data: Any,
    *,
    numeric: Sequence[Hashable] | str | None = None,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
    states: Mapping[Hashable, Sequence] | None = None,
    chunksize: int = 200_000,
    names: Sequence[Hashable] | None = None,
    sample_weight: Any = None,
    variables: Sequence[Hashable] | None = None,
    in_memory: bool = False,
) -> CountedTable | MixedTableStatistics:
    """The statistics of a table, whatever its kind and its columns' kinds: the one place
    where a learner's statistics become mixed.

    ``numeric=None`` (the default) counts every column as discrete: exactly
    :func:`~treelearn.sources._count.count` (the one numeric-column rule refusing
    measurements). Otherwise the continuous columns are those ``numeric`` names, or with
    ``numeric="auto"`` the float columns, as the mixed classifiers decide
    (:func:`~treelearn.stats._class_gaussians.gaussian_columns`: by dtype, never by how
    often values repeat). A table without continuous
    columns gives exactly :func:`~treelearn.sources._count.count`'s
    :class:`~treelearn.stats._counts.CountedTable` (every option as there); one with
    continuous columns a :class:`~treelearn.structure._clg_trees.MixedTableStatistics`
    (:func:`mixed_table`). A DataFrame is looked at in memory; a CSV/Parquet path is read
    whole when ``numeric`` names its continuous columns (else counted in chunks, its
    columns discrete); a Dask DataFrame, a scipy.sparse matrix and an encoded Table are
    discrete only (``numeric`` is refused for them, saying why).

    >>> import pandas as pd
    >>> df = pd.DataFrame({"t": [36.6, 38.9, 37.0, 37.4], "c": ["n", "y", "n", "y"]})
    >>> stats = table_statistics(df, numeric="auto")
    >>> stats.continuous, stats.states
    (('t',), ((), ('n', 'y')))
    >>> type(table_statistics(df[["c"]], numeric="auto")).__name__
    'CountedTable'
    """
    if isinstance(numeric, str) and numeric != "auto":
        raise TreelearnError(
            f"numeric == {numeric!r}: give the names of the continuous "
            f"columns, 'auto' (the float columns), "
            f"or None (every column discrete)",
            values=[numeric],
        )
    options = {
        "missing": missing,
        "max_states": max_states,
        "states": states,
        "chunksize": chunksize,
        "names": names,
        "sample_weight": sample_weight,
        "variables": variables,
        "in_memory": in_memory,
    }
    if numeric is None:
        return count(data, **options)
    kind = kind_of(data).name
    if kind == "path" and numeric is not None:
        frame, weights = _read_whole_weighted(data, sample_weight)
        options["sample_weight"] = weights
        data, kind = frame, "frame"
    if kind != "frame":
        if numeric is not None:
            raise InputTypeError(
                f"numeric= names continuous columns of a DataFrame or a file read whole; a "
                f"{kind} input is counted as discrete columns (load it as a pandas DataFrame to "
                f"model continuous columns)"
            )
        return count(data, **options)
    frame = data
    if variables is not None:
        check_column_names(frame.columns)
        absent = [v for v in variables if v not in frame.columns]
        if absent:
            return count(data, **options)  # count's error names them
        frame = frame[list(variables)]
    continuous = gaussian_columns(frame, None if numeric == "auto" else numeric)
    if not continuous:
        return count(data, **options)
    return mixed_table(
        frame,
        continuous,
        missing=missing,
        max_states=max_states,
        states=states,
        sample_weight=options["sample_weight"],
    )


def _read_whole_weighted(path: Any, sample_weight: Any) -> tuple[pd.DataFrame, Any]:
    frame = read_whole(path)
    if isinstance(sample_weight, (str, int)) and sample_weight in frame.columns:
        sample_weight = frame.pop(sample_weight)
    return frame, sample_weight


def mixed_table(
    frame: pd.DataFrame,
    continuous: Sequence[Hashable],
    *,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
    states: Mapping[Hashable, Sequence] | None = None,
    sample_weight: Any = None,
) -> MixedTableStatistics:
    """The :class:`~treelearn.structure._clg_trees.MixedTableStatistics` of a DataFrame whose
    columns ``continuous`` are numbers (the others are encoded as states).

    Rows of weight zero are left out first; ``missing="drop"`` drops every row with a
    missing cell in any column, ``"pairwise"`` keeps them (each statistic uses the rows
    where its columns are observed), ``"error"`` refuses them. A continuous column with
    an infinite value, no observed value, or a single value is refused, naming it.
    """
    if missing not in ("error", "drop", "pairwise", "em"):
        raise TreelearnError(
            f"missing == {missing!r}, must be one of 'error', 'drop', 'pairwise' or 'em'",
            values=[missing],
        )
    check_column_names(frame.columns)
    continuous = list(continuous)
    given = [c for c in (states or {}) if c in continuous]
    if given:
        raise StructureError(
            f"states= gives states for {given[:5]}, which are continuous columns (numbers, "
            f"modelled by Gaussians); leave them out of states=, or make them discrete with "
            f"numeric= naming only the continuous columns"
        )
    weights = check_sample_weight(sample_weight, len(frame))
    if weights is not None and not (weights > 0).all():
        keep = np.flatnonzero(weights > 0)
        frame, weights = frame.iloc[keep], weights[keep]
    if missing == "drop":
        complete = frame.notna().all(axis=1).to_numpy()
        if not complete.all():
            frame = frame.iloc[np.flatnonzero(complete)]
            weights = None if weights is None else weights[complete]
    if len(frame) == 0:
        raise EmptyDataError(
            "the table has no rows to learn from (after leaving out rows of "
            "weight zero and, with missing='drop', incomplete rows)"
        )
    wanted = set(continuous)
    discrete = [c for c in frame.columns if c not in wanted]
    if discrete:
        table = encode(
            frame[discrete],
            missing="pairwise" if missing != "error" else "error",
            max_states=max_states,
            states=states,
            sample_weight=weights,
        )
    else:
        table = Table(
            codes=np.zeros((len(frame), 0), dtype=np.int8),
            columns=(),
            states=(),
            dtypes=(),
            weights=weights,
        )
    _, values = numeric_matrix(
        frame[continuous], learner="a CLG tree (continuous columns)", missing="pairwise"
    )
    _check_continuous(continuous, values, missing)
    dtypes = tuple(frame[c].dtype for c in continuous)
    return MixedTableStatistics(
        tuple(frame.columns),
        tuple(continuous),
        CountedTable.of_table(table),
        np.asarray(values, dtype=float),
        dtypes,
        weights,
    )


def _check_continuous(names: list, values: np.ndarray, missing: str) -> None:
    """A continuous column must have two or more distinct values (and none missing unless
    ``missing`` keeps them)."""
    n_missing = np.isnan(values).sum(axis=0)
    if missing == "error" and n_missing.any():
        raise missing_values_error(n_missing, names)
    # each column's smallest and largest observed value in one pass (fmin/fmax skip NaN;
    # a column with no observed value gives NaN), no copy of a column
    low, high = np.fmin.reduce(values, axis=0), np.fmax.reduce(values, axis=0)
    for j, name in enumerate(names):
        if np.isnan(low[j]):
            raise MissingValuesError(
                f"continuous column {name!r} has no observed value: it has no Gaussian; drop "
                f"the column",
                column=name,
            )
        if low[j] == high[j]:
            raise TreelearnError(
                f"continuous column {name!r} has a single value ({float(low[j])!r}): a Gaussian "
                f"on it has no density; drop the column, or make it discrete (numeric= naming "
                f"only the other continuous columns)",
                column=name,
                values=[float(low[j])],
            )
