"""Gaussian statistics from any input kind: what the Gaussian learners ask for.

The contract (each function takes every kind it can, and refuses the others with
one :class:`~treelearn.InputTypeError` saying why):

* :func:`gaussian_statistics` ``(data, *, sample_weight=None, chunksize=200_000,
  learner=...) -> GaussianStatistics``: total weight, mean and ML covariance of the
  numeric columns. A DataFrame or a 2-D array: one product in memory. A CSV/Parquet
  path: read ``chunksize`` rows at a time, the chunks' moments merged by Chan et
  al.'s update (never loaded whole; ``sample_weight`` names the weight column). A
  Dask DataFrame: each partition's moments computed and merged on the workers
  (``sample_weight``: a column name or a Dask Series partitioned like it).
* :func:`gaussian_statistics_by_class` ``(X, y, *, sample_weight=None, ...) ->
  ClassGaussianStatistics``: a mean and covariance per class (Gaussian classifiers,
  Gaussian TAN). ``y``: one label per row in memory; the class column's name for a
  path; a Dask Series partitioned like ``X`` (or a column name) for Dask.
* :func:`variances_by_class` ``(X, y, *, columns=None, missing="pairwise",
  sample_weight=None, ...) -> ClassVariances``: a mean and variance per class for the
  numeric ``columns`` (default: all), each over the rows where the column is observed
  (missing cells are summed out; ``missing="error"`` refuses them): the Gaussian part
  of a mixed naive Bayes, and the diagonal Gaussian classifiers'; ``GaussianNB``'s
  ``theta_`` and ``var_`` (before ``var_smoothing``).

A scipy.sparse matrix and an encoded Table are refused: a Gaussian needs the
numbers of a dense table. Rows of weight zero are left out; for the per-class
statistics, their labels are no classes.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "numbers.csv")
>>> pd.DataFrame({"a": [0.0, 2.0, 4.0], "w": [1, 1, 0]}).to_csv(path, index=False)
>>> s = gaussian_statistics(path, sample_weight="w")   # read in chunks, weights from a column
>>> s.n, s.mean.tolist(), s.covariance.tolist()
(2.0, [1.0], [[1.0]])
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from functools import partial
from typing import Any

import pandas as pd

from .._base.errors import ColumnNotFoundError, EmptyDataError
from ..encoding._table import check_sample_weight
from ..stats._gaussian import ClassGaussianStatistics, ClassVariances, GaussianStatistics
from ._by_class import statistics_by_class
from ._chunks import sum_file, sum_partitions
from ._kinds import DENSE_NEEDED, by_kind, empty_error, numeric_matrix

__all__ = [
    "gaussian_statistics",
    "gaussian_statistics_by_class",
    "variances_by_class",
]

#: why the Gaussian readers refuse a sparse matrix and an encoded Table
REFUSALS = {
    "sparse": DENSE_NEEDED,
    "table": "an encoded Table holds category codes, not numbers; give the numeric table",
}


def _check_not_empty(n_rows: int, n_columns: int) -> None:
    if n_rows == 0 or n_columns == 0:
        raise empty_error(
            (n_rows, n_columns), "a Gaussian needs at least one row and one numeric column"
        )


def _moments(rows: pd.DataFrame, weights: Any, where: str, *, learner: str) -> GaussianStatistics:
    names, X = numeric_matrix(rows, learner=learner)
    return GaussianStatistics.of_rows(names, X, weights)


def gaussian_statistics(
    data: Any,
    *,
    sample_weight: Any = None,
    chunksize: int = 200_000,
    learner: str = "a Gaussian learner",
) -> GaussianStatistics:
    """Total weight, mean and ML covariance (divisor: the total weight) of the numeric
    columns of ``data``, from any kind of input (see the module's contract).

    >>> s = gaussian_statistics([[0.0, 1.0], [2.0, 1.0]], sample_weight=[1, 3])
    >>> s.n, s.mean.tolist(), s.covariance.tolist()
    (4.0, [1.5, 1.0], [[0.75, 0.0], [0.0, 0.0]])
    """

    def in_memory(X: Any) -> GaussianStatistics:
        names, A = numeric_matrix(X, learner=learner)
        _check_not_empty(*A.shape)
        return GaussianStatistics.of_rows(names, A, check_sample_weight(sample_weight, A.shape[0]))

    summarise = partial(_moments, learner=learner)
    stats = by_kind(
        data,
        {
            "path": lambda path: sum_file(
                path, summarise, sample_weight=sample_weight, chunksize=chunksize
            ),
            "dask": lambda ddf: sum_partitions(ddf, summarise, sample_weight=sample_weight),
            "frame": in_memory,
            "array": in_memory,
        },
        learner=learner,
        refusals=REFUSALS,
    )
    if not stats.variables:  # a file or a Dask DataFrame of rows without columns
        raise EmptyDataError("the data has no columns; a Gaussian needs a numeric column")
    return stats


def gaussian_statistics_by_class(
    X: Any,
    y: Any,
    *,
    sample_weight: Any = None,
    chunksize: int = 200_000,
    learner: str = "a Gaussian classifier",
) -> ClassGaussianStatistics:
    """A mean and ML covariance per class of the numeric columns of ``X`` (classes: ``y``'s
    sorted labels), from any kind of input (see the module's contract).

    >>> s = gaussian_statistics_by_class([[0.0], [2.0], [5.0]], ["a", "a", "b"])
    >>> s.classes.tolist(), s.weight.tolist(), s.mean.tolist(), s.covariance.tolist()
    (['a', 'b'], [2.0, 1.0], [[1.0], [5.0]], [[[1.0]], [[0.0]]])
    """
    return statistics_by_class(
        X,
        y,
        matrix=partial(numeric_matrix, learner=learner),
        of_rows=ClassGaussianStatistics.of_rows,
        learner=learner,
        refusals=REFUSALS,
        sample_weight=sample_weight,
        chunksize=chunksize,
    )


def _selected(rows: Any, columns: Sequence[Hashable] | None) -> Any:
    if columns is None or not isinstance(rows, pd.DataFrame):
        return rows
    absent = [c for c in columns if c not in rows.columns]
    if absent:
        raise ColumnNotFoundError(
            f"the numeric column(s) {absent} are not columns of X {list(rows.columns)[:20]}",
            column=absent[0],
        )
    return rows[list(columns)]


def _selected_matrix(
    X: Any, *, columns: Sequence[Hashable] | None, missing: str, learner: str
) -> tuple:
    names, A = numeric_matrix(_selected(X, columns), learner=learner, missing=missing)
    if columns is not None and not isinstance(X, pd.DataFrame):  # an array: columns by name
        absent = [c for c in columns if c not in names]
        if absent:
            raise ColumnNotFoundError(
                f"the numeric column(s) {absent} are not columns of X {names[:20]}",
                column=absent[0],
            )
        pick = [names.index(c) for c in columns]
        names, A = list(columns), A[:, pick]
    return names, A


def variances_by_class(
    X: Any,
    y: Any,
    *,
    columns: Sequence[Hashable] | None = None,
    missing: str = "pairwise",
    sample_weight: Any = None,
    chunksize: int = 200_000,
    learner: str = "a naive Bayes with Gaussian columns",
) -> ClassVariances:
    """A mean and ML variance per class and column of the numeric ``columns`` of ``X``
    (default: every column), each over the rows where that column is observed (NaN is
    missing; ``missing="error"`` refuses it instead, naming the column), from any kind of
    input (see the module's contract). Other columns of ``X`` (the categorical ones of
    mixed data) are not read.

    >>> v = variances_by_class([[1.0], [3.0], [float("nan")], [10.0], [14.0]], list("aaabb"))
    >>> v.weight.tolist(), v.observed.ravel().tolist()
    ([3.0, 2.0], [2.0, 2.0])
    >>> v.mean.ravel().tolist(), v.variance.ravel().tolist()
    ([2.0, 12.0], [1.0, 4.0])
    """
    return statistics_by_class(
        X,
        y,
        matrix=partial(_selected_matrix, columns=columns, missing=missing, learner=learner),
        of_rows=ClassVariances.of_rows,
        learner=learner,
        refusals=REFUSALS,
        sample_weight=sample_weight,
        chunksize=chunksize,
    )
