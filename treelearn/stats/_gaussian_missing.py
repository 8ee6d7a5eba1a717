"""EM for a Gaussian per class from rows with missing cells (Little and Rubin, ch. 11).

A covariance matrix cannot be read from incomplete rows by counting: the
available-case (pairwise) covariances need not form a positive definite matrix. The
maximum-likelihood means and covariances of the observed cells are found by EM
(Dempster, Laird and Rubin 1977; Little and Rubin, *Statistical Analysis with Missing
Data*, 2nd ed., 2002, section 11.2):

* **E-step** (:func:`expected_class_gaussians`): given each class's ``mu`` and
  ``Sigma``, a row of class ``c`` whose cells ``o`` are observed and ``m`` missing
  has ``x_m | x_o ~ N(mu_m + Sigma_mo Sigma_oo^-1 (x_o - mu_o), Sigma_mm - Sigma_mo
  Sigma_oo^-1 Sigma_om)``; its missing cells are replaced by that conditional mean,
  and the conditional covariance is added to the class's co-moment. Rows are grouped
  by (pattern of missing cells, class): one Cholesky factor and one triangular solve per
  group, never one per row. The same pass gives the observed-data log-likelihood
  ``sum_rows w log N(x_o; mu_o, Sigma_oo)`` at the parameters it was given.
* **M-step**: the expected statistics are per-class weights, means and covariances
  (a :class:`ExpectedClassGaussians`, a
  :class:`~treelearn.stats._gaussian.ClassGaussianStatistics` that adds up across
  chunks like any other), turned into parameters by the learner's own rule (its
  pooling and shrinkage), so EM needs nothing the complete-data learner does not.

:func:`em_fixed_point` alternates the two from a start until the log-likelihood gains
less than ``tol`` per unit of row weight.

>>> X = np.array([[0.0, 0.0], [2.0, 2.0], [1.0, np.nan]])
>>> s = expected_class_gaussians(["a", "b"], X, np.zeros(3, dtype=int), ["k"], None,
...     means=np.array([[1.0, 1.0]]), covariances=np.array([[[1.0, 0.5], [0.5, 1.0]]]))
>>> s.mean.round(6).tolist()  # the gap filled with 1 + 0.5 (1 - 1) = 1
[[1.0, 1.0]]
>>> s.covariance[0, 1, 1].round(6)  # (1 + 1 + 0) / 3 + the conditional variance 0.75 / 3
np.float64(0.916667)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np
import scipy.linalg

from .._base.errors import TreelearnError
from ..encoding._table import python_scalar
from ._classes import spread
from ._gaussian import ClassGaussianStatistics

__all__ = [
    "EMResult",
    "ExpectedClassGaussians",
    "em_fixed_point",
    "expected_class_gaussians",
    "gap_groups",
    "observed_log_densities",
]

_LOG_2PI = math.log(2 * math.pi)

#: ``(means k x d, covariances k x d x d or one d x d shared)``
Parameters = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class ExpectedClassGaussians(ClassGaussianStatistics):
    """The E-step's statistics: per class the weight, the mean and ML covariance of the
    completed rows (conditional covariances of the missing cells included), and
    ``log_likelihood`` (k,), the observed-data log-likelihood of the class's rows
    ``sum w log N(x_o; mu_o, Sigma_oo)`` at the parameters the E-step was given.
    ``a + b`` merges two sets class by class, as the other statistics do."""

    log_likelihood: np.ndarray

    per_class: ClassVar[tuple[str, ...]] = (*ClassGaussianStatistics.per_class, "log_likelihood")

    def __add__(self, other: ClassGaussianStatistics) -> ExpectedClassGaussians:
        assert isinstance(other, ExpectedClassGaussians)  # only E-step sets are merged
        merged = ClassGaussianStatistics.__add__(self, other)
        labels, left, right = self.aligned(other)
        k = len(labels)
        loglik = spread(self.log_likelihood, left, k) + spread(other.log_likelihood, right, k)
        parts = {f.name: getattr(merged, f.name) for f in fields(ClassGaussianStatistics)}
        return ExpectedClassGaussians(**parts, log_likelihood=loglik)


def _singular(label: Hashable) -> TreelearnError:
    return TreelearnError(
        f"the covariance of class {python_scalar(label)!r} is singular on the observed features "
        "of some rows during EM (too few rows of the class observe them together, or a feature "
        "is constant); set reg > 0 (e.g. reg=1e-3) to shrink it towards the identity, or "
        "choose a simpler covariance",
        hint="set reg > 0",
    )


def gap_groups(
    holes: np.ndarray, codes: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int, int, int]]]:
    """``(patterns, order, groups)``: the distinct rows of the boolean ``holes`` (P x d),
    the row order that sorts rows by (pattern, class ``codes`` < ``k``), and each group's
    ``(pattern, class, start, stop)`` in that order. A pattern is one number (a sum of
    distinct powers of 2, exact in a float below ``2**53``) for ``d <= 52``: one sort of
    numbers, not of rows.

    >>> holes = np.array([[False, True], [False, False], [False, True]])
    >>> patterns, order, groups = gap_groups(holes, np.array([0, 0, 1]), 2)
    >>> patterns.tolist(), order.tolist(), groups
    ([[False, False], [False, True]], [1, 0, 2], [(0, 0, 0, 1), (1, 0, 1, 2), (1, 1, 2, 3)])
    """
    n, d = holes.shape
    if n == 0:
        return np.zeros((0, d), dtype=bool), np.zeros(0, dtype=np.intp), []
    if d <= 52:
        ids = holes @ (2.0 ** np.arange(d))
        _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
        patterns = holes[first]
    else:
        patterns, inverse = np.unique(holes, axis=0, return_inverse=True)
    key = inverse.ravel().astype(np.int64) * k + codes
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    cut = np.flatnonzero(np.diff(ordered)) + 1
    starts, stops = np.r_[0, cut], np.r_[cut, n]
    pattern, klass = np.divmod(ordered[starts], k)
    groups = list(
        zip(pattern.tolist(), klass.tolist(), starts.tolist(), stops.tolist(), strict=True)
    )
    return patterns, order, groups


@dataclass(frozen=True)
class _Factor:
    """One (pattern, covariance)'s pieces: ``W = L^-1`` of the observed block's Cholesky
    factor, half its log-determinant, and ``A = W Sigma_om`` and ``Sigma_mm - A^T A`` for the
    missing cells."""

    obs: np.ndarray
    mis: np.ndarray
    W: np.ndarray
    half_logdet: float
    A: np.ndarray
    conditional: np.ndarray

    @classmethod
    def of(cls, S: np.ndarray, hole: np.ndarray) -> _Factor | None:
        """``None`` when the observed block is not positive definite."""
        obs, mis = np.flatnonzero(~hole), np.flatnonzero(hole)
        if not len(obs):
            empty = np.zeros((0, 0))
            return cls(obs, mis, empty, 0.0, np.zeros((0, len(mis))), S[mis[:, None], mis])
        try:
            L = np.linalg.cholesky(S[obs[:, None], obs])
        except np.linalg.LinAlgError:
            return None
        # L^-1 once (a triangular inverse, d x d at most), then products: a triangular solve
        # with many right-hand sides runs threaded BLAS for a few numbers
        W = scipy.linalg.lapack.dtrtri(L, lower=1)[0]
        A = W @ S[obs[:, None], mis]
        return cls(obs, mis, W, float(np.log(np.diag(L)).sum()), A, S[mis[:, None], mis] - A.T @ A)

    def whitened(self, block: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """``L^-1 (x_o - mu_o)`` of each row (one column per row)."""
        return self.W @ (block[:, self.obs] - mu[self.obs]).T

    def log_density(self, Z: np.ndarray) -> np.ndarray:
        """``log N(x_o; mu_o, Sigma_oo)`` of each row from its whitened cells."""
        return -0.5 * ((Z**2).sum(axis=0) + len(self.obs) * _LOG_2PI) - self.half_logdet


def expected_class_gaussians(
    variables: Sequence[Hashable],
    values: np.ndarray,
    codes: np.ndarray,
    classes: Sequence,
    weights: np.ndarray | None = None,
    *,
    means: np.ndarray,
    covariances: np.ndarray,
    labels: Sequence | None = None,
) -> ExpectedClassGaussians:
    """The E-step over the float rows ``values`` (NaN = missing) of class index ``codes``
    into ``classes``: the expected per-class statistics under the parameters ``means``
    (K x d) and ``covariances`` (K x d x d, or d x d shared by every class), whose classes
    are ``labels`` (default: ``classes``; a chunk of a file sees some labels only, in its
    own order). Rows are grouped by (missing pattern, class): one factor per group (per
    pattern for a shared covariance).

    >>> s = expected_class_gaussians(["a"], np.array([[1.0], [np.nan]]), np.array([0, 0]),
    ...     ["k"], means=np.array([[0.0]]), covariances=np.array([[4.0]]))
    >>> s.mean.tolist(), s.covariance.tolist()  # the gap: mean 0, variance 4
    ([[0.5]], [[[2.25]]])
    """
    values = np.asarray(values, dtype=float)
    n, d = values.shape
    positions = {python_scalar(c): i for i, c in enumerate(classes if labels is None else labels)}
    index = np.array([positions[python_scalar(c)] for c in classes], dtype=np.intp)
    shared = covariances.ndim == 2
    k = len(classes)
    codes = np.asarray(codes, dtype=np.intp)
    patterns, order, groups = gap_groups(np.isnan(values), codes, k)
    filled = values[order]  # a copy, rows sorted by (pattern, class): never the caller's
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)[order]
    extra = np.zeros((k, d, d))  # sum of w * the conditional covariances, per class
    loglik = np.zeros(k)
    factors: dict[tuple[int, int], _Factor | None] = {}
    for p, c, start, stop in groups:  # one (pattern, class) group at a time
        mu = means[index[c]]
        key = (p, -1 if shared else c)
        if key not in factors:
            factors[key] = _Factor.of(covariances if shared else covariances[index[c]], patterns[p])
        f = factors[key]
        if f is None:
            raise _singular(classes[c])
        block, wr = filled[start:stop], w[start:stop]
        fill = np.broadcast_to(mu[f.mis], (stop - start, len(f.mis)))
        if len(f.obs):
            Z = f.whitened(block, mu)
            loglik[c] += wr @ f.log_density(Z)
            fill = fill + Z.T @ f.A  # mu_m + Sigma_mo Sigma_oo^-1 (x_o - mu_o)
        if len(f.mis):
            block[:, f.mis] = fill  # a view of ``filled``
            extra[c, f.mis[:, None], f.mis] += wr.sum() * f.conditional
    stats = ClassGaussianStatistics.of_rows(
        variables, filled, codes[order], classes, None if weights is None else w
    )
    weight = np.where(stats.weight > 0, stats.weight, 1.0)[:, None, None]
    cov = stats.covariance + (extra + extra.transpose(0, 2, 1)) / (2 * weight)
    parts = {f.name: getattr(stats, f.name) for f in fields(ClassGaussianStatistics)}
    parts["covariance"] = cov
    return ExpectedClassGaussians(**parts, log_likelihood=loglik)


def observed_log_densities(
    values: np.ndarray, means: np.ndarray, covariances: np.ndarray
) -> np.ndarray:
    """``log N(x_o; mu_c,o, Sigma_c,oo)`` of each row (its observed cells ``o``) under each
    class ``c``: ``n x K`` (``covariances`` K x d x d). A row with no observed cell gets 0.
    One factor per (pattern of gaps, class), every row of the pattern at once; a block
    that is not positive definite is a TreelearnError.

    >>> observed_log_densities(np.array([[np.nan, 0.0]]), np.zeros((1, 2)), np.eye(2)[None]).round(6)
    array([[-0.918939]])
    """
    values = np.asarray(values, dtype=float)
    n, k = values.shape[0], means.shape[0]
    out = np.zeros((n, k))
    patterns, order, groups = gap_groups(np.isnan(values), np.zeros(n, dtype=np.intp), 1)
    rows_sorted = values[order]
    for p, _, start, stop in groups:
        block, rows = rows_sorted[start:stop], order[start:stop]
        for c in range(k):  # and over classes, every row of the pattern at once
            f = _Factor.of(covariances[c], patterns[p])
            if f is None:  # a principal block of a positive definite matrix: round-off only
                raise TreelearnError(
                    f"the covariance of class {c} is not positive definite on the features "
                    f"{np.flatnonzero(~patterns[p]).tolist()}; set reg > 0 (e.g. reg=1e-3)",
                    hint="set reg > 0",
                )
            if len(f.obs):
                out[rows, c] = f.log_density(f.whitened(block, means[c]))
    return out


@dataclass(frozen=True)
class EMResult:
    """What :func:`em_fixed_point` found: the last E-step's ``statistics`` (the M-step of
    them gives the estimates), the observed-data ``log_likelihood`` at each iteration's
    starting parameters, and whether it ``converged`` within ``max_iter``."""

    statistics: ExpectedClassGaussians
    log_likelihood: list[float]
    converged: bool

    @property
    def n_iter(self) -> int:
        """E-steps run."""
        return len(self.log_likelihood)


def em_fixed_point(
    e_step: Callable[[np.ndarray, np.ndarray], ExpectedClassGaussians],
    m_step: Callable[[ClassGaussianStatistics], Parameters],
    start: Parameters,
    *,
    tol: float = 1e-6,
    max_iter: int = 200,
) -> EMResult:
    """Alternate ``e_step(means, covariances)`` and ``m_step(statistics)`` from ``start``
    until the observed-data log-likelihood gains less than ``tol`` times the total row
    weight (scikit-learn's ``GaussianMixture`` rule: ``tol`` per row), or ``max_iter``
    E-steps have run.

    >>> X = np.array([[0.0, 0.0], [2.0, 1.0], [1.0, 3.0], [1.0, np.nan], [np.nan, 2.0]])
    >>> codes, ml = np.zeros(5, dtype=int), lambda s: (s.mean, s.covariance)
    >>> step = lambda m, S: expected_class_gaussians(["a", "b"], X, codes, ["k"],
    ...     means=m, covariances=S)
    >>> out = em_fixed_point(step, ml, (np.ones((1, 2)), np.eye(2)[None]), tol=1e-10)
    >>> out.converged, bool(np.all(np.diff(out.log_likelihood) > -1e-12))
    (True, True)
    """
    means, covariances = start
    trace: list[float] = []
    for _ in range(max_iter):
        stats = e_step(means, covariances)
        trace.append(float(stats.log_likelihood.sum()))
        if len(trace) > 1 and abs(trace[-1] - trace[-2]) <= tol * float(stats.weight.sum()):
            return EMResult(stats, trace, True)
        means, covariances = m_step(stats)
    return EMResult(stats, trace, False)
