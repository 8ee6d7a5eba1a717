"""Counting a ``dask.dataframe.DataFrame`` where its partitions live.

Two distributed passes, the same as for a file (:mod:`treelearn.sources._files`), with
the partitions as chunks:

1. each worker scans its partitions for their distinct values and missing
   counts; the small summaries are merged in a tree reduction and give the
   states (skipped when ``states=`` gives every column), or every problem of
   the frame in one error, as pandas input gives them;
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

from .._base.errors import ColumnNotFoundError, DuplicateColumnError, EmptyDataError, TreelearnError
from ..encoding._table import (
    DEFAULT_MAX_STATES,
    MissingPolicy,
    check_column_names,
    check_missing_policy,
    python_scalar,
)
from ..stats._counts import ClassCounts, CountedTable, PairCounts
from ._files import (
    ChunkCounts,
    Scan,
    check_missing,
    count_chunk,
    final_states,
    scan_chunk,
    split_weights,
)

__all__ = [
    "WEIGHT_COLUMN",
    "class_pair_counts_dask",
    "count_by_class_dask",
    "count_dask",
    "dask_states",
    "distinct_labels",
    "import_dask",
    "is_dask_dataframe",
    "is_dask_series",
    "tree_reduce",
    "with_weights",
]

#: summaries merged per task in the tree reductions
FAN_IN = 8

#: the name a weight Series gets as a column of the frame sent to the workers
WEIGHT_COLUMN = "__treelearn_weight__"


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


def import_dask():
    try:
        import dask
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError("dask input needs dask: pip install 'treelearn[dask]'") from None
    return dask


def tree_reduce(items: list, combine: Callable, fan_in: int = FAN_IN) -> Any:
    """Combine delayed ``items`` level by level, ``fan_in`` at a time; the result is one delayed."""
    delayed = import_dask().delayed
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


def _add(a: Any, b: Any) -> Any:
    return a + b


def with_weights(ddf: Any, sample_weight: Any) -> tuple[Any, Hashable | None]:
    """The frame and the name of its weight column: ``sample_weight`` is a column
    name or a dask Series partitioned like ``ddf`` (it becomes a column)."""
    if sample_weight is None:
        return ddf, None
    if is_dask_series(sample_weight):
        if sample_weight.npartitions != ddf.npartitions:
            raise TreelearnError(
                f"the data has {ddf.npartitions} partitions and sample_weight "
                f"{sample_weight.npartitions}; partition them alike"
            )
        return ddf.assign(**{WEIGHT_COLUMN: sample_weight}), WEIGHT_COLUMN
    if isinstance(sample_weight, (str, int, tuple)) and sample_weight in list(ddf.columns):
        return ddf, sample_weight
    raise TreelearnError(
        f"with a dask DataFrame, sample_weight must be the name of one of its columns or a dask "
        f"Series partitioned like it, not {type(sample_weight).__name__}",
        values=[sample_weight] if isinstance(sample_weight, (str, int)) else None,
    )


def _scan_partition(
    part: pd.DataFrame,
    missing: MissingPolicy,
    max_states: int,
    skip: tuple,
    weight_column: Hashable | None,
) -> Scan:
    part, _ = split_weights(part, weight_column)
    return scan_chunk(part, missing, max_states, skip)


def dask_states(
    ddf: Any,
    *,
    states: Mapping[Hashable, Sequence] | None,
    missing: MissingPolicy,
    max_states: int,
    weight_column: Hashable | None = None,
) -> tuple[tuple, tuple, tuple]:
    """``(columns, states, dtypes)`` of a dask DataFrame, from one distributed pass."""
    check_missing_policy(missing)
    columns = [c for c in ddf.columns if c != weight_column]
    check_column_names(columns)
    given = dict(states or {})
    unknown = [c for c in given if c not in columns]
    if unknown:
        raise ColumnNotFoundError(
            f"states given for {unknown!r}, which are not columns of the data {columns}",
            column=unknown[0],
        )
    if all(c in given for c in columns):
        all_states = tuple(tuple(python_scalar(v) for v in given[c]) for c in columns)
        return tuple(columns), all_states, tuple(ddf.dtypes[c] for c in columns)
    delayed = import_dask().delayed
    skip = tuple(given)
    parts = [
        delayed(_scan_partition)(p, missing, max_states, skip, weight_column)
        for p in ddf.to_delayed()
    ]
    scan = tree_reduce(parts, _merge_scans).compute()
    if scan.n_rows == 0:
        raise EmptyDataError(
            "the dask DataFrame has no rows (of positive weight); there is nothing to learn"
        )
    # categories dask does not know (read_csv(dtype="category"), astype("category"))
    # are each partition's own, merged in partition order; pandas, reading the
    # whole column, sorts them
    unknown_categories = [
        c for c in columns if isinstance(ddf.dtypes[c], pd.CategoricalDtype) and not _known(ddf[c])
    ]
    # every problem of the frame in one error, as for a pandas DataFrame
    all_states, dtypes = final_states(
        scan, given, max_states, unknown_categories, missing=missing, where="the dask DataFrame"
    )
    # the frame's declared dtypes, as pandas would have them, where the scan agrees
    dtypes = tuple(
        dt if isinstance(dt, pd.CategoricalDtype) else ddf.dtypes[c]
        for c, dt in zip(columns, dtypes)
    )
    return tuple(columns), tuple(all_states), dtypes


def _known(series: Any) -> bool:
    """Whether a dask categorical Series knows its categories (not each partition's own)."""
    try:
        return bool(series.cat.known)
    except AttributeError:  # pragma: no cover - not a dask categorical
        return True


def _count_partition(
    part: pd.DataFrame,
    columns: tuple,
    states: tuple,
    missing: MissingPolicy,
    weight_column: Hashable | None,
) -> ChunkCounts:
    seen = len(part)
    part, weights = split_weights(part, weight_column)
    counts = count_chunk(part, columns, states, missing, weights=weights)
    return ChunkCounts(counts.joint, counts.n_rows, counts.n_missing, seen)


def count_dask(
    ddf: Any,
    *,
    states: Mapping[Hashable, Sequence] | None = None,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
    sample_weight: Any = None,
) -> CountedTable:
    """Pair counts of a dask DataFrame, each partition counted on its worker.

    Uses the active scheduler (a ``distributed.Client`` when one exists). Same
    parameters and errors as :func:`treelearn.sources._files.count_file`;
    ``sample_weight`` is a column name or a dask Series partitioned like ``ddf``.
    """
    ddf, weight_column = with_weights(ddf, sample_weight)
    columns, all_states, dtypes = dask_states(
        ddf, states=states, missing=missing, max_states=max_states, weight_column=weight_column
    )
    delayed = import_dask().delayed
    parts = [
        delayed(_count_partition)(p, columns, all_states, missing, weight_column)
        for p in ddf.to_delayed()
    ]
    total = tree_reduce(parts, _add).compute()
    if total.n_seen == 0:
        raise EmptyDataError("the dask DataFrame has no rows; there is nothing to learn")
    check_missing(Scan(columns, [], total.n_missing, total.n_seen), missing, "the dask DataFrame")
    if total.n_rows == 0:
        raise EmptyDataError(
            "every row has a missing value or weight zero; there is nothing to learn (with "
            "missing='drop', try missing='pairwise')"
        )
    cards = np.array([len(s) for s in all_states], dtype=np.int64)
    pairs = PairCounts(total.joint, cards, total.n_rows)
    return CountedTable(columns, all_states, dtypes, pairs=pairs)


def _count_by_class(
    part: pd.DataFrame,
    columns: tuple,
    states: tuple,
    missing: MissingPolicy,
    class_index: int,
    weight_column: Hashable | None,
) -> tuple:
    """``(one ChunkCounts per class, missing per column, rows seen)`` of one partition
    (a loop over classes, not rows)."""
    seen = len(part)
    part, weights = split_weights(part, weight_column)
    klass = part[columns[class_index]]
    out = []
    for label in states[class_index]:
        mask = (klass == label).to_numpy(dtype=bool, na_value=False)
        w = None if weights is None else weights[mask]
        out.append(count_chunk(part[mask], columns, states, missing, weights=w))
    gaps = part.isna().to_numpy().sum(axis=0).astype(np.int64)
    return tuple(out), gaps, seen


def _add_by_class(a: tuple, b: tuple) -> tuple:
    return tuple(x + y for x, y in zip(a[0], b[0])), a[1] + b[1], a[2] + b[2]


def class_pair_counts_dask(
    X: Any,
    y: Any,
    *,
    states: Mapping[Hashable, Sequence] | None = None,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
    sample_weight: Any = None,
) -> tuple[list[PairCounts], tuple, tuple, tuple]:
    """Pairwise tables within each class of a dask DataFrame ``X`` and class Series ``y``.

    Returns ``(per_class, columns, states, dtypes)``: ``per_class[c]`` is the
    :class:`PairCounts` of the rows of class ``states[-1][c]`` over ``columns``
    (the features, then the class, last), as :func:`treelearn.stats._counts.class_pair_counts`
    gives for the same table encoded by pandas. Rows whose class is missing are
    left out. ``y`` (and a Series ``sample_weight``) must be partitioned like
    ``X`` (e.g. ``ddf["y"]`` beside ``ddf.drop(columns="y")``).
    """
    name = y.name if getattr(y, "name", None) is not None else "class"
    if name in list(X.columns):
        raise DuplicateColumnError(
            f"the class {name!r} is also a column of the features; drop it from X", column=name
        )
    if X.npartitions != y.npartitions:
        raise TreelearnError(
            f"X has {X.npartitions} partitions and y {y.npartitions}; partition them alike"
        )
    both = X.assign(__treelearn_class__=y).rename(columns={"__treelearn_class__": name})
    both, weight_column = with_weights(both, sample_weight)
    columns, all_states, dtypes = dask_states(
        both, states=states, missing=missing, max_states=max_states, weight_column=weight_column
    )
    delayed = import_dask().delayed
    index = len(columns) - 1
    parts = [
        delayed(_count_by_class)(p, columns, all_states, missing, index, weight_column)
        for p in both.to_delayed()
    ]
    per_class, n_missing, n_seen = tree_reduce(parts, _add_by_class).compute()
    check_missing(Scan(columns, [], n_missing, n_seen), missing, "the dask DataFrame")
    cards = np.array([len(s) for s in all_states], dtype=np.int64)
    pairs = [PairCounts(part.joint, cards, part.n_rows) for part in per_class]
    return pairs, columns, all_states, dtypes


def count_by_class_dask(
    X: Any,
    y: Any,
    classes: np.ndarray,
    *,
    sample_weight: Any = None,
    states: Mapping[Hashable, Sequence] | None = None,
) -> ClassCounts:
    """The classification statistics of dask features ``X`` and labels ``y``, given
    the sorted ``classes`` (see :func:`treelearn.sources._count.count_by_class`), counted
    on the workers. Features use ``missing="pairwise"``, as in the pandas path; ``states``
    fixes the states of some of them."""
    labels = [python_scalar(c) for c in classes]
    per_class, columns, all_states, dtypes = class_pair_counts_dask(
        X,
        y,
        states={**(states or {}), y.name: labels},
        missing="pairwise",
        sample_weight=sample_weight,
    )
    return ClassCounts(columns, all_states, dtypes, classes, per_class_pairs=tuple(per_class))


def distinct_labels(y: Any) -> tuple[int, Any, Any]:
    """``(missing labels, distinct labels, their counts)`` of a dask Series, in one pass over it."""
    n_missing, counts = import_dask().compute(y.isna().sum(), y.dropna().value_counts())
    counts = counts[counts > 0]  # a Categorical's unused categories are no labels
    return int(n_missing), counts.index.to_numpy(), counts.to_numpy()
