"""Labelled rows for the statistics per class: in memory, from a file, from Dask.

Per-class statistics (Gaussian moments, term counts) are computed from
``(rows, class index of each row, class labels, weights)``. This module gives
them from each kind of input, with one rule for the labels (those of
:func:`~treelearn.sources._count.class_labels`: sorted, at least two, missing
labels refused, a regression target refused) and for row weights (a row of
weight zero is absent before anything else):

* in memory (:func:`labelled_rows`): ``X`` a DataFrame or an array, ``y`` one label per row;
* a CSV/Parquet path, ``y`` the name of its class column, read in chunks, and a
  Dask DataFrame, ``y`` a Dask Series partitioned like it or the name of one of
  its columns, reduced on the workers (:func:`sum_by_class`): each chunk is
  summarised with its own labels, the summaries merged class by class, and the
  classes sorted once at the end (:func:`sorted_classes`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import (
    ClassLabelError,
    ColumnNotFoundError,
    EmptyDataError,
    InputTypeError,
    MissingValuesError,
)
from ..encoding._table import check_sample_weight, python_scalar
from ._chunks import sum_file, sum_partitions
from ._count import check_not_continuous, class_labels, positive_rows
from ._dask import is_dask_series
from ._files import read_header
from ._kinds import by_kind

__all__ = ["CLASS_COLUMN", "labelled_rows", "sorted_classes", "statistics_by_class", "sum_by_class"]

#: the name Dask labels get as a column of the frame sent to the workers
CLASS_COLUMN = "__treelearn_class__"

#: ``summarise(rows, codes, classes, weights)`` -> statistics that add up class by class
SummariseLabelled = Callable[[pd.DataFrame, np.ndarray, np.ndarray, Any], Any]


def labelled_rows(
    X: Any, y: Any, sample_weight: Any, matrix: Callable[[Any], tuple[Any, Any]]
) -> tuple:
    """``(names, A, classes, codes, weights)`` of rows in memory: ``matrix(X)`` gives
    ``(names, A)``; rows of weight zero are left out (``weights`` is ``None`` without
    ``sample_weight``); ``classes`` are ``y``'s sorted labels, ``codes`` each row's."""
    names, A = matrix(X)
    n = A.shape[0]
    keep, y, weights = positive_rows(n, y, check_sample_weight(sample_weight, n))
    if keep is not None:
        A = A[keep]
    classes, codes, _ = class_labels(y, A.shape[0])
    return names, A, classes, codes, weights


def _summarise_labelled(
    rows: pd.DataFrame,
    weights: Any,
    where: str,
    *,
    class_column: Hashable,
    summarise: SummariseLabelled,
) -> Any:
    labels = rows[class_column]
    missing = np.flatnonzero(labels.isna().to_numpy())
    if len(missing):
        raise MissingValuesError(
            f"y has {len(missing)} missing class label(s) (rows {missing[:5].tolist()} of the "
            f"chunk); drop those rows or fill them in"
        )
    codes, uniques = pd.factorize(labels)
    classes = np.empty(len(uniques), dtype=object)
    classes[:] = [python_scalar(u) for u in uniques]
    return summarise(rows.drop(columns=[class_column]), codes, classes, weights)


def sorted_classes(stats: Any) -> Any:
    """Per-class statistics merged from chunks, their classes sorted as in memory (and
    checked: two classes at least, not a regression target)."""
    labels = pd.Series(list(stats.classes))  # one dtype for the labels, as pandas infers it
    classes, codes, _ = class_labels(labels, len(labels), check_continuous=False)
    order = np.argsort(codes)
    check_not_continuous(classes, stats.rows[order])
    return stats.reordered(order, classes)


def sum_by_class(
    X: Any,
    y: Any,
    summarise: SummariseLabelled,
    *,
    kind: str,
    sample_weight: Any = None,
    chunksize: int = 200_000,
) -> Any:
    """The per-class statistics of a file (``kind="path"``, ``y`` its class column's name)
    or a Dask DataFrame (``kind="dask"``, ``y`` a Dask Series partitioned like it or a
    column name), chunk by chunk, merged and sorted by class."""
    if kind == "path":
        if not isinstance(y, (str, int)) or y not in read_header(X):
            raise ColumnNotFoundError(
                f"with a file X, y is the name of its class column (e.g. y='label'); "
                f"{y!r} is not one of {list(read_header(X))[:20]}",
                column=y if isinstance(y, (str, int)) else None,
            )
        total = sum_file(
            X,
            partial(_summarise_labelled, class_column=y, summarise=summarise),
            sample_weight=sample_weight,
            chunksize=chunksize,
        )
        return sorted_classes(total)
    if is_dask_series(y):
        if y.npartitions != X.npartitions:
            raise ClassLabelError(
                f"X has {X.npartitions} partitions and y {y.npartitions}; partition them alike"
            )
        X, y = X.assign(**{CLASS_COLUMN: y}), CLASS_COLUMN
    elif not (isinstance(y, (str, int)) and y in list(X.columns)):
        raise InputTypeError(
            "with a dask DataFrame X, y must be a dask Series partitioned like "
            "X (e.g. ddf['y'] beside ddf.drop(columns='y')) or the name of its "
            "class column"
        )
    if sample_weight is not None and not is_dask_series(sample_weight) and sample_weight == y:
        raise ColumnNotFoundError(f"y and sample_weight name the same column {y!r}", column=y)
    total = sum_partitions(
        X,
        partial(_summarise_labelled, class_column=y, summarise=summarise),
        sample_weight=sample_weight,
    )
    return sorted_classes(total)


def _summarise_with(
    rows: pd.DataFrame,
    codes: np.ndarray,
    classes: np.ndarray,
    weights: Any,
    *,
    matrix: Callable,
    of_rows: Callable,
) -> Any:
    return of_rows(*matrix(rows), codes, classes, weights)


def statistics_by_class(
    X: Any,
    y: Any,
    *,
    matrix: Callable[[Any], tuple[Any, Any]],
    of_rows: Callable[..., Any],
    learner: str,
    in_memory: tuple[str, ...] = ("frame", "array"),
    refusals: dict | None = None,
    sample_weight: Any = None,
    chunksize: int = 200_000,
) -> Any:
    """Per-class statistics of ``X`` and ``y`` from any kind: ``matrix(rows)`` gives
    ``(names, A)`` and ``of_rows(names, A, codes, classes, weights)`` the statistics. The
    ``in_memory`` kinds are converted whole (:func:`labelled_rows`); a path (``y``: its class
    column) is read in chunks and a Dask DataFrame (``y``: a Dask Series or a column name)
    reduced on its workers (:func:`sum_by_class`); other kinds get ``refusals``."""

    def whole(features: Any) -> Any:
        names, A, classes, codes, weights = labelled_rows(features, y, sample_weight, matrix)
        if A.shape[0] == 0 or A.shape[1] == 0:
            raise EmptyDataError(
                f"X has {A.shape[0]} rows and {A.shape[1]} columns; {learner} "
                f"needs at least one row and one column"
            )
        return of_rows(names, A, codes, classes, weights)

    summarise = partial(_summarise_with, matrix=matrix, of_rows=of_rows)
    readers: dict[str, Callable[[Any], Any]] = dict.fromkeys(in_memory, whole)
    readers["path"] = lambda path: sum_by_class(
        path, y, summarise, kind="path", sample_weight=sample_weight, chunksize=chunksize
    )
    readers["dask"] = lambda ddf: sum_by_class(
        ddf, y, summarise, kind="dask", sample_weight=sample_weight
    )
    return by_kind(X, readers, learner=learner, refusals=refusals)
