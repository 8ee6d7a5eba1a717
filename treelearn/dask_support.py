"""Counting a ``dask.dataframe.DataFrame`` where its partitions live.

Two distributed passes, the same as for a file (:mod:`treelearn.stream`), with
the partitions as chunks:

1. each worker scans its partitions for their distinct values and missing
   counts; the small summaries are merged in a tree reduction and give the
   states (skipped when ``states=`` gives every column);
2. each worker turns its partitions into ``K x K`` count matrices (or
   ``C x K x K``, one per class, for classifiers); the matrices are summed in a
   tree reduction, and only the sum comes back.

The results are identical to the pandas path. ``tl.chow_liu(ddf)`` and the
classifiers' ``fit(ddf.drop(columns="y"), ddf["y"])`` come here. The work runs on
the active scheduler: a ``distributed.Client``'s cluster when one exists. Each
pass reads the partitions once; ``ddf.persist()`` first avoids reading the
source twice. Dask is the optional extra ``treelearn[dask]``; it is imported
only when a dask object is given (dask collections are recognised by their
type's module, without importing dask).

Examples
--------
>>> import pandas as pd, dask.dataframe as dd, treelearn as tl
>>> df = pd.DataFrame({"a": [0, 0, 1, 1] * 5, "b": [0, 0, 1, 0] * 5})
>>> tl.chow_liu(dd.from_pandas(df, npartitions=3)) == tl.chow_liu(df)
True
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .counts import PairCounts
from .data import DEFAULT_MAX_STATES, MissingPolicy, _python_scalar, _sorted_states
from .errors import ColumnNotFoundError, DuplicateColumnError, EmptyDataError, TreelearnError
from .stream import (
    CountedTable,
    Scan,
    check_missing,
    check_scan,
    count_chunk,
    final_states,
    scan_chunk,
)

__all__ = [
    "class_pair_counts_dask",
    "count_dask",
    "fit_classifier_dask",
    "is_dask_dataframe",
    "is_dask_series",
]

#: summaries merged per task in the tree reductions
FAN_IN = 8


def _is_dask(obj: Any) -> bool:
    module = type(obj).__module__ or ""
    return module.split(".")[0] in ("dask", "dask_expr") and hasattr(obj, "to_delayed")


def is_dask_dataframe(obj: Any) -> bool:
    """Whether ``obj`` is a dask DataFrame (checked without importing dask).

    >>> import pandas as pd
    >>> is_dask_dataframe(pd.DataFrame({"a": [1]}))
    False
    """
    return _is_dask(obj) and type(obj).__name__ == "DataFrame"


def is_dask_series(obj: Any) -> bool:
    """Whether ``obj`` is a dask Series (checked without importing dask)."""
    return _is_dask(obj) and type(obj).__name__ == "Series"


def _dask():
    try:
        import dask
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError("dask input needs dask: pip install 'treelearn[dask]'") from None
    return dask


def tree_reduce(items: list, combine: Callable, fan_in: int = FAN_IN) -> Any:
    """Combine delayed ``items`` level by level, ``fan_in`` at a time; the result is one delayed."""
    delayed = _dask().delayed
    if not items:
        raise EmptyDataError("the dask DataFrame has no partitions")
    while len(items) > 1:
        items = [
            delayed(_combine_all)(combine, *items[i : i + fan_in])
            for i in range(0, len(items), fan_in)
        ]
    return items[0]


def _combine_all(combine: Callable, *parts: Any) -> Any:
    out = parts[0]
    for p in parts[1:]:
        out = combine(out, p)
    return out


def _merge_scans(a: Scan, b: Scan) -> Scan:
    return a.merge(b)


def _add(a: tuple, b: tuple) -> tuple:
    return tuple(x + y for x, y in zip(a, b))


def _check_frame(ddf: Any) -> list:
    columns = list(ddf.columns)
    if not columns:
        raise EmptyDataError("the table has no columns; give at least one column")
    duplicated = pd.Index(columns)[pd.Index(columns).duplicated()].unique()
    if len(duplicated):
        raise DuplicateColumnError(
            f"duplicate column name(s) {list(duplicated)}; rename them so each column is unique"
        )
    return columns


def _scan_partition(part: pd.DataFrame, missing: str, max_states: int, skip: tuple) -> Scan:
    scan = scan_chunk(part, missing, max_states, skip)
    check_scan(scan, max_states)  # a worker stops an identifier column early
    return scan


def dask_states(
    ddf: Any,
    *,
    states: Mapping[Hashable, Sequence] | None,
    missing: MissingPolicy,
    max_states: int,
) -> tuple[tuple, tuple, tuple]:
    """``(columns, states, dtypes)`` of a dask DataFrame, from one distributed pass."""
    if missing not in ("error", "drop", "pairwise"):
        raise ValueError(f"missing must be 'error', 'drop' or 'pairwise', not {missing!r}")
    columns = _check_frame(ddf)
    given = dict(states or {})
    unknown = [c for c in given if c not in columns]
    if unknown:
        raise ColumnNotFoundError(
            f"states given for {unknown!r}, which are not columns of the data {columns}"
        )
    if all(c in given for c in columns):
        all_states = tuple(tuple(_python_scalar(v) for v in given[c]) for c in columns)
        return tuple(columns), all_states, tuple(ddf.dtypes[c] for c in columns)
    delayed = _dask().delayed
    skip = tuple(given)
    parts = [delayed(_scan_partition)(p, missing, max_states, skip) for p in ddf.to_delayed()]
    scan = tree_reduce(parts, _merge_scans).compute()
    check_scan(scan, max_states)
    if scan.n_rows == 0:
        raise EmptyDataError("the dask DataFrame has no rows; there is nothing to learn")
    check_missing(scan, missing, "the dask DataFrame")
    all_states, dtypes = final_states(scan, given, max_states)
    # the frame's declared dtypes, as pandas would have them, where the scan agrees
    dtypes = [
        dt if isinstance(dt, pd.CategoricalDtype) else ddf.dtypes[c]
        for c, dt in zip(columns, dtypes)
    ]
    all_states = list(all_states)
    for j, c in enumerate(columns):
        # categories dask does not know (read_csv(dtype="category"), astype("category"))
        # are each partition's own, merged in partition order; pandas, reading the
        # whole column, sorts them
        if c not in given and isinstance(dtypes[j], pd.CategoricalDtype) and not _known(ddf[c]):
            all_states[j] = tuple(_sorted_states(list(all_states[j])))
            dtypes[j] = pd.CategoricalDtype(
                pd.Index(list(all_states[j]), tupleize_cols=False), ordered=dtypes[j].ordered
            )
    return tuple(columns), tuple(all_states), tuple(dtypes)


def _known(series: Any) -> bool:
    """Whether a dask categorical Series knows its categories (not each partition's own)."""
    try:
        return bool(series.cat.known)
    except AttributeError:  # pragma: no cover - not a dask categorical
        return True


def _count_partition(part: pd.DataFrame, columns: tuple, states: tuple, missing: str) -> tuple:
    joint, rows, gaps = count_chunk(part, columns, states, missing)
    return joint, rows, gaps, len(part)


def count_dask(
    ddf: Any,
    *,
    states: Mapping[Hashable, Sequence] | None = None,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
) -> CountedTable:
    """Pair counts of a dask DataFrame, each partition counted on its worker.

    Uses the active scheduler (a ``distributed.Client`` when one exists). Same
    parameters and errors as :func:`treelearn.stream.count_file`.
    """
    columns, all_states, dtypes = dask_states(
        ddf, states=states, missing=missing, max_states=max_states
    )
    delayed = _dask().delayed
    parts = [
        delayed(_count_partition)(p, columns, all_states, missing) for p in ddf.to_delayed()
    ]
    joint, n_rows, n_missing, n_seen = tree_reduce(parts, _add).compute()
    if n_seen == 0:
        raise EmptyDataError("the dask DataFrame has no rows; there is nothing to learn")
    check_missing(Scan(columns, [], n_missing, n_seen), missing, "the dask DataFrame")
    if n_rows == 0:
        raise EmptyDataError(
            "every row has a missing value; missing='drop' leaves no rows: try missing='pairwise'"
        )
    cards = np.array([len(s) for s in all_states], dtype=np.int64)
    return CountedTable(PairCounts(joint, cards, int(n_rows)), columns, all_states, dtypes)


def _count_by_class(
    part: pd.DataFrame, columns: tuple, states: tuple, missing: str, class_index: int
) -> tuple:
    """``(C x K x K counts, rows per class, missing per column, rows seen)`` of one partition."""
    cards = [len(s) for s in states]
    K = sum(cards)
    C = cards[class_index]
    out = np.zeros((C, K, K), dtype=np.int64)
    rows = np.zeros(C, dtype=np.int64)
    name = columns[class_index]
    klass = part[name]
    gaps = part.isna().to_numpy().sum(axis=0).astype(np.int64)
    for c, label in enumerate(states[class_index]):  # a loop over classes, not rows
        mask = (klass == label).to_numpy(dtype=bool, na_value=False)
        joint, n, _ = count_chunk(part[mask], columns, states, missing)
        out[c] = joint
        rows[c] = n
    return out, rows, gaps, len(part)


def class_pair_counts_dask(
    X: Any,
    y: Any,
    *,
    states: Mapping[Hashable, Sequence] | None = None,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
) -> tuple[list[PairCounts], tuple, tuple, tuple]:
    """Pairwise tables within each class of a dask DataFrame ``X`` and class Series ``y``.

    Returns ``(per_class, columns, states, dtypes)``: ``per_class[c]`` is the
    :class:`PairCounts` of the rows of class ``states[-1][c]`` over ``columns``
    (the features, then the class, last), as :func:`treelearn.counts.class_pair_counts`
    gives for the same table encoded by pandas. Rows whose class is missing are
    left out. ``y`` must be partitioned like ``X`` (e.g. ``ddf["y"]`` beside
    ``ddf.drop(columns="y")``).
    """
    name = y.name if getattr(y, "name", None) is not None else "class"
    if name in list(X.columns):
        raise DuplicateColumnError(
            f"the class {name!r} is also a column of the features; drop it from X"
        )
    if X.npartitions != y.npartitions:
        raise TreelearnError(
            f"X has {X.npartitions} partitions and y {y.npartitions}; partition them alike"
        )
    both = X.assign(__treelearn_class__=y).rename(columns={"__treelearn_class__": name})
    columns, all_states, dtypes = dask_states(
        both, states=states, missing=missing, max_states=max_states
    )
    delayed = _dask().delayed
    index = len(columns) - 1
    parts = [
        delayed(_count_by_class)(p, columns, all_states, missing, index)
        for p in both.to_delayed()
    ]
    joint, rows, n_missing, n_seen = tree_reduce(parts, _add).compute()
    check_missing(Scan(columns, [], n_missing, n_seen), missing, "the dask DataFrame")
    cards = np.array([len(s) for s in all_states], dtype=np.int64)
    per_class = [PairCounts(joint[c], cards, int(rows[c])) for c in range(len(rows))]
    return per_class, columns, all_states, dtypes



# ---------------------------------------------------------------- classifiers
def fit_classifier_dask(clf: Any, X: Any, y: Any) -> Any:
    """Fit a treelearn classifier (:class:`~treelearn.classify.NaiveBayes`, ``TAN``,
    ``ChowLiuMultinet``) on a dask DataFrame ``X`` and dask Series ``y``.

    Everything it needs is the class-conditional pair counts, computed on the
    workers (:func:`class_pair_counts_dask`); the classifier then learns from them
    with the same method as in pandas (``_fit_statistics``), so the fitted
    classifier equals the one fitted on the same rows in pandas. Features use
    ``missing="pairwise"``, as in the pandas path; a missing class label is an error.
    """
    from . import classify
    from .errors import MissingValuesError

    if not isinstance(clf, (classify.NaiveBayes, classify.TAN, classify.ChowLiuMultinet)):
        raise TypeError(f"{type(clf).__name__} cannot be fitted on dask data")
    clf._check_params()
    if not is_dask_series(y):
        raise TypeError(
            "with a dask DataFrame X, y must be a dask Series partitioned like X, "
            "e.g. ddf['y'] beside ddf.drop(columns='y')"
        )
    name = classify._class_name(y.name, list(X.columns))
    y = y.rename(name)
    # one pass over y: its missing labels and its distinct labels, the classes (any
    # labels, as in pandas: not held to the feature rules, e.g. 0.5 or many classes)
    n_missing, distinct = _dask().compute(y.isna().sum(), y.dropna().unique())
    n_missing = int(n_missing)
    if n_missing:
        raise MissingValuesError(
            f"y has {n_missing} missing class label(s); drop those rows or fill them in"
        )
    # a Categorical y: its values (dask may not know its categories), as np.unique sees them
    as_dtype = None if isinstance(y.dtype, pd.CategoricalDtype) else y.dtype
    labels = pd.Series(np.asarray(distinct), dtype=as_dtype, name=name)
    classes, _, _ = classify._class_labels(labels, len(labels))  # sorted, as np.unique(y)
    labels = [_python_scalar(c) for c in classes]
    # the classes given as the class column's states: per_class[c] counts class classes_[c]
    per_class, columns, states, dtypes = class_pair_counts_dask(
        X, y, states={name: labels}, missing="pairwise"
    )
    d = len(columns) - 1
    return clf._fit_statistics(
        columns,
        states[:d] + (tuple(_python_scalar(c) for c in classes),),
        dtypes[:d] + (classify.class_dtype(y.dtype, classes),),
        classes,
        np.array([pc.n_rows for pc in per_class], dtype=np.int64),
        classify._class_family_counter(per_class, d),
        lambda: per_class,
    )
