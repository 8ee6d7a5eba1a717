"""Gaussian sufficient statistics: total weight, mean and maximum-likelihood covariance.

What every Gaussian learner starts from, whatever the input: a table in memory
gives them in one matrix product of the centred, weighted rows
(:meth:`GaussianStatistics.of_rows`); a file read in chunks or a Dask
DataFrame's partitions give one set per chunk, and the sets **add up**
(``a + b``) by the pairwise update of Chan, Golub and LeVeque (1979): with
``n = n_a + n_b`` and ``delta = mean_b - mean_a``,

    ``mean = mean_a + delta n_b / n``,
    ``M = M_a + M_b + delta delta^T n_a n_b / n``  (``M = n covariance``, the co-moment),

which never subtracts two large sums of squares, so values around ``1e9`` with a
standard deviation of 1 keep their covariance (the textbook
``sum x^2 / n - mean^2`` loses every digit there). Weights are totals of row
weights (``sample_weight``); the divisor is the total weight (ML, not ``n - 1``).

Three families, each merging the same way:

* :class:`GaussianStatistics`: one mean vector and covariance matrix (Gaussian
  Chow-Liu trees, ``mi_graph(kind="gaussian")``);
* :class:`ClassGaussianStatistics`: a mean and covariance per class (Gaussian
  classifiers, Gaussian TAN);
* :class:`ClassVariances`: a mean and variance per class and column over the rows
  where the column is observed (naive Bayes with Gaussian columns; equal to
  scikit-learn's ``GaussianNB`` ``theta_`` and ``var_`` without smoothing).

>>> s = GaussianStatistics.of_rows(["a", "b"], np.array([[0.0, 1.0], [2.0, 1.0]]))
>>> s.n, s.mean.tolist(), s.covariance.tolist()
(2.0, [1.0, 1.0], [[1.0, 0.0], [0.0, 0.0]])
>>> t = GaussianStatistics.of_rows(["a", "b"], np.array([[0.0, 1.0]])) + GaussianStatistics.of_rows(
...     ["a", "b"], np.array([[2.0, 1.0]]))
>>> t.n, t.mean.tolist(), t.covariance.tolist()
(2.0, [1.0, 1.0], [[1.0, 0.0], [0.0, 0.0]])
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from .._base.errors import TreelearnError
from ._classes import ClassStatistics, class_indicator, label_array, spread

__all__ = [
    "ClassGaussianStatistics",
    "ClassVariances",
    "GaussianStatistics",
    "check_constant_columns",
    "constant_variances",
    "gaussian_mutual_information",
]


def _safe(n: np.ndarray) -> np.ndarray:
    """Divisors: a total weight of 0 (nothing seen) divides by 1 (its sums are 0)."""
    return np.where(n > 0, n, 1.0)


def _merged_means(n_a, mean_a, n_b, mean_b):
    """``(n, delta, mean)`` of two sets of moments (any leading axes; ``n`` broadcast to the
    means' shape by the caller)."""
    n = n_a + n_b
    delta = mean_b - mean_a
    return n, delta, mean_a + delta * (n_b / _safe(n))


def _check_variables(a: Sequence, b: Sequence) -> None:
    if list(a) != list(b):
        raise TreelearnError(
            f"Gaussian statistics of the columns {list(a)} and {list(b)} "
            f"cannot be added: every chunk must have the same columns"
        )


def gaussian_mutual_information(covariance: np.ndarray) -> np.ndarray:
    """``-1/2 log(1 - rho^2)`` for every pair (nats), from a covariance matrix; zero diagonal.

    >>> gaussian_mutual_information(np.array([[1.0, 0.6], [0.6, 1.0]])).round(4).tolist()
    [[0.0, 0.2231], [0.2231, 0.0]]
    """
    cov = np.asarray(covariance, dtype=float)
    sd = np.sqrt(np.diag(cov))
    rho2 = np.clip((cov / np.outer(sd, sd)) ** 2, 0.0, 1.0)
    with np.errstate(divide="ignore"):
        mi = -0.5 * np.log1p(-rho2)
    np.fill_diagonal(mi, 0.0)
    return mi


@dataclass(frozen=True)
class GaussianStatistics:
    """Sufficient statistics of a Gaussian: total weight ``n``, ``mean`` (d,) and ML
    ``covariance`` (d, d) of the columns ``variables``. ``a + b`` merges two sets."""

    variables: list
    n: float
    mean: np.ndarray
    covariance: np.ndarray

    @classmethod
    def of_rows(
        cls, variables: Sequence[Hashable], X: np.ndarray, weights: np.ndarray | None = None
    ) -> GaussianStatistics:
        """The statistics of the rows of the float matrix ``X`` (one weight per row, or
        ``None``): the mean, then one product of the centred rows (two passes: no
        cancellation). No rows give ``n = 0``."""
        d = X.shape[1]
        n = float(X.shape[0]) if weights is None else float(weights.sum())
        if n == 0:
            return cls(list(variables), 0.0, np.zeros(d), np.zeros((d, d)))
        if weights is None:
            mean = X.mean(axis=0)
            centred = X - mean
            cov = centred.T @ centred / n
        else:
            mean = weights @ X / n
            centred = X - mean
            cov = (centred * weights[:, None]).T @ centred / n
        return cls(list(variables), n, mean, (cov + cov.T) / 2)  # exactly symmetric

    def __add__(self, other: GaussianStatistics) -> GaussianStatistics:
        """The statistics of both sets of rows (Chan et al.'s update)."""
        _check_variables(self.variables, other.variables)
        if other.n == 0:
            return self
        if self.n == 0:
            return other
        n, delta, mean = _merged_means(self.n, self.mean, other.n, other.mean)
        moment = (
            self.n * self.covariance
            + other.n * other.covariance
            + np.outer(delta, delta) * (self.n * other.n / n)
        )
        return GaussianStatistics(list(self.variables), n, mean, moment / n)

    def mutual_information(self) -> np.ndarray:
        """The Gaussian mutual information of every pair of columns (see
        :func:`gaussian_mutual_information`); the columns are checked first
        (:func:`check_constant_columns`)."""
        check_constant_columns(self)
        return gaussian_mutual_information(self.covariance)


def constant_variances(variance: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Where a variance is 0 relative to its mean's size (an sd below ``1e-12 |mean|``, or
    ``1e-12`` for a mean below 1): **the one constant-column rule** (a column of mean 1.7e9
    and sd 1000 is not constant).

    >>> constant_variances(np.array([1e6, 1e-8]), np.array([1.7e9, 1.7e9])).tolist()
    [False, True]
    """
    return variance <= (1e-12 * np.maximum(np.abs(mean), 1.0)) ** 2


def check_constant_columns(stats: GaussianStatistics) -> None:
    """A TreelearnError naming the first column whose variance is 0 (relative to its mean's
    size): it has no density and no correlation with anything."""
    flat = constant_variances(np.diag(stats.covariance), stats.mean)
    if flat.any():
        name = stats.variables[int(np.flatnonzero(flat)[0])]
        raise TreelearnError(
            f"column {name!r} is constant (variance 0): a Gaussian on it has no density; "
            "drop the column",
            column=name,
            hint="drop the column",
        )


@dataclass(frozen=True)
class ClassGaussianStatistics(ClassStatistics):
    """A Gaussian per class: ``rows`` (k,) rows seen, ``weight`` (k,) their total weight,
    ``mean`` (k, d) and ML ``covariance`` (k, d, d), for the labels ``classes``.

    ``a + b`` merges two sets class by class (labels seen in one only are kept);
    :meth:`reordered` puts the classes in another order.
    """

    variables: list  # the columns' names, always given (a field of ClassStatistics)
    mean: np.ndarray
    covariance: np.ndarray

    per_class = (*ClassStatistics.per_class, "mean", "covariance")

    @classmethod
    def of_rows(
        cls,
        variables: Sequence[Hashable],
        X: np.ndarray,
        codes: np.ndarray,
        classes: Sequence,
        weights: np.ndarray | None = None,
    ) -> ClassGaussianStatistics:
        """The statistics of the rows of ``X`` whose class index (into ``classes``) is
        ``codes``: the class means in one product with the class indicator, then one
        product per class of its centred rows."""
        k, d = len(classes), X.shape[1]
        Y = class_indicator(codes, k, weights)
        weight = Y.sum(axis=0)
        mean = (Y.T @ X) / _safe(weight)[:, None]
        centred = X - mean[codes]
        cov = np.empty((k, d, d))
        for c in range(k):  # a loop over classes (few), each a product over its rows
            rows = codes == c
            part = centred[rows]
            scaled = part if weights is None else part * weights[rows, None]
            cov[c] = scaled.T @ part / _safe(weight[c])
        return cls(
            list(variables),
            label_array(classes),
            np.bincount(codes, minlength=k),
            weight,
            mean,
            (cov + cov.transpose(0, 2, 1)) / 2,
        )

    def __add__(self, other: ClassGaussianStatistics) -> ClassGaussianStatistics:
        _check_variables(self.variables, other.variables)
        labels, left, right = self.aligned(other)
        k = len(labels)
        n_a, n_b = spread(self.weight, left, k), spread(other.weight, right, k)
        mean_a, mean_b = spread(self.mean, left, k), spread(other.mean, right, k)
        n, delta, mean = _merged_means(n_a[:, None], mean_a, n_b[:, None], mean_b)
        n = n[:, 0]
        moment = (
            n_a[:, None, None] * spread(self.covariance, left, k)
            + n_b[:, None, None] * spread(other.covariance, right, k)
            + delta[:, :, None] * delta[:, None, :] * (n_a * n_b / _safe(n))[:, None, None]
        )
        return ClassGaussianStatistics(
            list(self.variables),
            labels,
            spread(self.rows, left, k) + spread(other.rows, right, k),
            n,
            mean,
            moment / _safe(n)[:, None, None],
        )

    def pooled(self) -> GaussianStatistics:
        """The statistics of all the rows, whatever their class (the law of total covariance:
        the within-class covariances plus the spread of the class means)."""
        n = float(self.weight.sum())
        mean = self.weight @ self.mean / n
        offset = self.mean - mean
        cov = (
            np.tensordot(self.weight, self.covariance, axes=1)
            + (offset * self.weight[:, None]).T @ offset
        ) / n
        return GaussianStatistics(list(self.variables), n, mean, (cov + cov.T) / 2)

    def shared_covariance(self) -> np.ndarray:
        """The pooled within-class covariance ``sum_c w_c Sigma_c / sum_c w_c`` (LDA's)."""
        return np.tensordot(self.weight, self.covariance, axes=1) / float(self.weight.sum())


@dataclass(frozen=True)
class ClassVariances(ClassStatistics):
    """A mean and variance per class and column, each over the rows where the column is
    observed (a missing cell is summed out): ``rows`` (k,) rows seen, ``weight`` (k,) their
    total weight, ``observed`` (k, d) the weight of the rows where each column is observed,
    ``mean`` and ML ``variance`` (k, d), for the labels ``classes``. ``a + b`` merges two
    sets class by class and column by column.
    """

    per_class = (*ClassStatistics.per_class, "observed", "mean", "variance")

    variables: list  # the columns' names, always given (a field of ClassStatistics)
    observed: np.ndarray
    mean: np.ndarray
    variance: np.ndarray

    @classmethod
    def of_rows(
        cls,
        variables: Sequence[Hashable],
        values: np.ndarray,
        codes: np.ndarray,
        classes: Sequence,
        weights: np.ndarray | None = None,
    ) -> ClassVariances:
        """The statistics of the float matrix ``values`` (NaN = missing) by class index
        ``codes``: products with the class indicator, no loop over rows or columns."""
        Y = class_indicator(codes, len(classes), weights)
        weight = Y.sum(axis=0)
        seen = ~np.isnan(values)
        if seen.all():
            filled = values
            observed = np.repeat(weight[:, None], values.shape[1], axis=1)
        else:
            filled = np.where(seen, values, 0.0)
            observed = Y.T @ seen.astype(float)
        mean = (Y.T @ filled) / _safe(observed)
        squares = filled - mean[codes]  # two passes: no cancellation
        squares *= squares
        if not seen.all():
            squares[~seen] = 0.0
        return cls(
            list(variables),
            label_array(classes),
            np.bincount(codes, minlength=len(classes)),
            weight,
            observed,
            mean,
            (Y.T @ squares) / _safe(observed),
        )

    def __add__(self, other: ClassVariances) -> ClassVariances:
        _check_variables(self.variables, other.variables)
        labels, left, right = self.aligned(other)
        k = len(labels)
        n_a, n_b = spread(self.observed, left, k), spread(other.observed, right, k)
        n, delta, mean = _merged_means(
            n_a, spread(self.mean, left, k), n_b, spread(other.mean, right, k)
        )
        moment = (
            n_a * spread(self.variance, left, k)
            + n_b * spread(other.variance, right, k)
            + delta * delta * (n_a * n_b / _safe(n))
        )
        return ClassVariances(
            list(self.variables),
            labels,
            spread(self.rows, left, k) + spread(other.rows, right, k),
            spread(self.weight, left, k) + spread(other.weight, right, k),
            n,
            mean,
            moment / _safe(n),
        )

    def overall_variance(self) -> np.ndarray:
        """Each column's variance over every class (the law of total variance): what
        scikit-learn's ``var_smoothing`` is a fraction of (its largest value)."""
        total = self.observed.sum(axis=0)
        grand = (self.observed * self.mean).sum(axis=0) / _safe(total)
        return (self.observed * (self.variance + (self.mean - grand) ** 2)).sum(axis=0) / _safe(
            total
        )
