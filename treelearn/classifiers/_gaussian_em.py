"""A Gaussian per class learned by EM from rows with missing cells, from any input kind.

:class:`~treelearn.GaussianClassifier` with ``covariance="full"`` or ``"shared"`` calls
:func:`em_class_gaussians` when a training row has a missing cell: the E- and M-steps of
:mod:`treelearn.stats._gaussian_missing`, with the classifier's own M-step (its pooling
and shrinkage). A table in memory is converted once and every E-step runs on its matrix;
a CSV/Parquet path or a Dask DataFrame is read again for each E-step (chunk by chunk or
partition by partition, the expected statistics merged like complete-data ones), so
memory does not grow with the rows.

The start is deterministic: each class's available-case means and variances (over the
rows where each feature is observed) as a diagonal covariance, through the same M-step.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from .._base.errors import EmptyDataError, TreelearnError
from ..encoding._table import python_scalar
from ..sources._by_class import labelled_rows, statistics_by_class
from ..sources._gaussian import REFUSALS, variances_by_class
from ..sources._kinds import by_kind, numeric_matrix
from ..stats._gaussian import ClassGaussianStatistics, ClassVariances
from ..stats._gaussian_missing import (
    EMResult,
    ExpectedClassGaussians,
    Parameters,
    em_fixed_point,
    expected_class_gaussians,
)

__all__ = ["check_observed", "em_class_gaussians"]


def check_observed(stats: ClassVariances) -> None:
    """A TreelearnError naming the first feature never observed in a class: its mean there
    is unknown."""
    empty = stats.observed <= 0
    if empty.any():
        c, j = np.argwhere(empty)[0]
        name = stats.variables[j]
        raise TreelearnError(
            f"feature {name!r} has no observed value in class "
            f"{python_scalar(stats.classes[c])!r}: its mean there is unknown; drop "
            "the feature or give rows of that class a value",
            column=name,
        )


def em_class_gaussians(
    X: Any,
    y: Any,
    *,
    m_step: Callable[[ClassGaussianStatistics], Parameters],
    sample_weight: Any = None,
    tol: float = 1e-6,
    max_iter: int = 200,
    chunksize: int = 200_000,
    learner: str = "a Gaussian classifier",
) -> EMResult:
    """EM for a mean and covariance per class of the numeric columns of ``X`` (NaN
    missing; classes ``y``'s sorted labels, as
    :func:`~treelearn.sources._gaussian.gaussian_statistics_by_class` reads them), the
    parameters of each iteration given by ``m_step`` from the expected statistics.

    >>> X = np.array([[0.0, 0.0], [2.0, 1.0], [1.0, 3.0], [1.0, np.nan], [np.nan, 2.0],
    ...               [5.0, 5.0], [6.0, 4.0], [5.0, 3.0], [4.0, np.nan]])
    >>> out = em_class_gaussians(X, list("aaaaabbbb"), m_step=lambda s: (s.mean, s.covariance))
    >>> out.converged, out.statistics.classes.tolist(), out.statistics.weight.tolist()
    (True, ['a', 'b'], [5.0, 4.0])
    """
    start = variances_by_class(
        X, y, missing="pairwise", sample_weight=sample_weight, learner=learner
    )
    check_observed(start)
    d = start.mean.shape[1]
    diagonal = start.variance[:, :, None] * np.eye(d)
    first = m_step(
        ClassGaussianStatistics(
            start.variables, start.classes, start.rows, start.weight, start.mean, diagonal
        )
    )
    matrix = partial(numeric_matrix, learner=learner, missing="pairwise")

    def in_memory(features: Any) -> EMResult:
        names, A, classes, codes, weights = labelled_rows(features, y, sample_weight, matrix)
        if A.shape[0] == 0 or A.shape[1] == 0:
            raise EmptyDataError(f"X has shape {A.shape}; {learner} needs rows and columns")
        step = partial(expected_class_gaussians, names, A, codes, classes, weights)
        return em_fixed_point(
            lambda m, S: step(means=m, covariances=S), m_step, first, tol=tol, max_iter=max_iter
        )

    def in_chunks(source: Any) -> EMResult:
        def step(means: np.ndarray, covariances: np.ndarray) -> ExpectedClassGaussians:
            of_rows = partial(
                expected_class_gaussians,
                means=means,
                covariances=covariances,
                labels=list(start.classes),
            )
            return statistics_by_class(
                source,
                y,
                matrix=matrix,
                of_rows=of_rows,
                learner=learner,
                refusals=REFUSALS,
                sample_weight=sample_weight,
                chunksize=chunksize,
            )

        return em_fixed_point(step, m_step, first, tol=tol, max_iter=max_iter)

    return by_kind(
        X,
        {"frame": in_memory, "array": in_memory, "path": in_chunks, "dask": in_chunks},
        learner=learner,
        refusals=REFUSALS,
    )
