"""Per-class Gaussians for the numeric columns of mixed data (:class:`~treelearn.MixedNaiveBayes`).

Which columns are Gaussian is decided by their dtype, or named by the user
(:func:`gaussian_columns`): never by how often values repeat, so duplicating rows,
rescaling a column or a cross-validation fold never moves a column between
Gaussian and categorical. Each Gaussian column gets, per class, the weighted
maximum-likelihood mean and variance over the rows where it is observed (a missing
cell is summed out: its density integrates to one): a
:class:`~treelearn.stats._gaussian.ClassVariances`, which
:func:`smoothed_variances` checks and smooths as scikit-learn's ``GaussianNB`` does;
:func:`class_gaussian_log_density` scores rows with them.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import ColumnNotFoundError, TreelearnError
from ..encoding._table import python_scalar
from ._gaussian import ClassVariances

__all__ = [
    "VAR_PRIOR",
    "class_gaussian_log_density",
    "gaussian_columns",
    "older_files_without_categorical",
    "older_files_without_var_prior",
    "shrunk_mean",
    "shrunk_variance",
    "smoothed_variances",
]

#: the prior's weight, in rows, of every Gaussian classifier's variance prior (``var_prior``)
VAR_PRIOR = 1.0


_LOG_2PI = math.log(2 * math.pi)


def gaussian_columns(X: pd.DataFrame, named: Sequence[Hashable] | None = None) -> list:
    """The columns of ``X`` modelled as Gaussians, in ``X``'s column order: those ``named``,
    else every float column (integers, bools, text and categories stay categorical).

    >>> df = pd.DataFrame({"t": [36.6, 37.2, 38.1], "n": [1.0, 2.0, 1.0], "k": [1, 2, 1],
    ...                    "s": ["a", "b", "a"]})
    >>> gaussian_columns(df), gaussian_columns(df, named=["k"])
    (['t', 'n'], ['k'])
    """
    if named is None:
        return [c for c, dtype in X.dtypes.items() if pd.api.types.is_float_dtype(dtype)]
    wanted = list(named)
    absent = [c for c in wanted if c not in X.columns]
    if absent:
        raise ColumnNotFoundError(
            f"numeric= names {absent[:5]}, which are not columns of X; the columns are "
            f"{list(X.columns)[:20]}",
            column=absent[0],
        )
    chosen = set(wanted)
    return [c for c in X.columns if c in chosen]


def shrunk_variance(
    variance: np.ndarray, weight: np.ndarray, reference: np.ndarray, var_prior: float
) -> np.ndarray:
    """``(weight variance + var_prior reference) / (weight + var_prior)``: a maximum-likelihood
    ``variance`` from rows of total ``weight`` shrunk towards ``reference`` by a prior of
    ``var_prior`` pseudo-rows (the posterior scale of a scaled-inverse-chi-squared prior
    centred on ``reference``, flat on the mean: Gelman et al., *Bayesian Data Analysis*,
    3rd ed., section 3.3). No rows (``weight`` 0) give ``reference``; ``var_prior=0``
    returns ``variance`` itself. Arrays broadcast.

    >>> shrunk_variance(np.array([0.0, 4.0]), np.array([1.0, 3.0]), np.array(2.0), 1.0).tolist()
    [1.0, 3.5]
    """
    if not var_prior:
        return np.asarray(variance, dtype=float)
    weight = np.asarray(weight, dtype=float)
    return (weight * variance + var_prior * reference) / (weight + var_prior)


def shrunk_mean(
    mean: np.ndarray,
    weight: np.ndarray,
    reference: np.ndarray,
    mean_prior: float,
    var_prior: float,
) -> tuple[np.ndarray, np.ndarray]:
    """``(mean', extra)``: the normal-inverse-gamma posterior's mean ``(n m + k0 m0) / (n +
    k0)`` of a ``mean`` from rows of total weight ``n`` with ``mean_prior`` (``k0``)
    pseudo-rows at ``reference`` (``m0``), and what its posterior scale adds to the
    variance :func:`shrunk_variance` gives, ``n k0 / (n + k0) (m - m0)^2 / (n + nu)``,
    ``nu`` = ``var_prior`` (Gelman et al., *Bayesian Data Analysis*, 3rd ed., 2013, section
    3.3, with ``nu_0 = nu``). No rows give ``m0`` and no extra; ``mean_prior=0`` gives the
    mean itself. Arrays broadcast.

    >>> m, extra = shrunk_mean(np.array([4.0, 0.0]), np.array([3.0, 0.0]), np.array(0.0), 1.0, 1.0)
    >>> m.tolist(), extra.tolist()
    ([3.0, 0.0], [3.0, 0.0])
    """
    mean = np.asarray(mean, dtype=float)
    if not mean_prior:
        return mean, np.zeros_like(mean)
    weight = np.asarray(weight, dtype=float)
    gap = mean - reference
    with np.errstate(invalid="ignore", divide="ignore"):
        extra = np.where(
            weight > 0,
            weight * mean_prior / (weight + mean_prior) * gap**2 / (weight + var_prior),
            0.0,
        )
    return (weight * mean + mean_prior * reference) / (weight + mean_prior), extra


def older_files_without_var_prior(saved: Any, est: Any) -> None:
    """A saved classifier from before ``var_prior`` learned maximum-likelihood variances:
    its options read as ``var_prior=0`` (the variances saved are used as they are)."""
    given = saved.raw("params", dict)
    if "var_prior" not in given:
        given["var_prior"] = 0.0
        est.var_prior = 0.0


def older_files_without_categorical(saved: Any, est: Any) -> None:
    """A saved mixed classifier from before ``categorical`` (and before integer columns
    were numbers by default): its options read as ``categorical=None``; the Gaussian
    features saved with it are used as they are."""
    saved.raw("params", dict).setdefault("categorical", None)


def smoothed_variances(
    stats: ClassVariances, var_smoothing: float = 0.0, var_prior: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """``(mean, variance)``, each ``k x d``: the per-class statistics' means, and their
    variances shrunk by ``var_prior`` pseudo-rows towards each column's variance over the
    whole table (:func:`shrunk_variance`), plus ``var_smoothing`` times the largest (weighted) variance of any column,
    as scikit-learn's ``GaussianNB`` adds to keep a constant column usable.

    The variance the epsilon scales is the *weighted* one
    (:meth:`~treelearn.stats._gaussian.ClassVariances.overall_variance`), so integer
    weights equal repeated rows exactly; ``GaussianNB`` takes ``np.var(X)`` of the rows
    as given (unweighted, rows of weight zero included), so with ``sample_weight`` and
    ``var_smoothing > 0`` the two differ by the difference of their epsilons (a few
    percent of a probability on breast_cancer), and agree to rounding with
    ``var_smoothing=0`` or without weights. A class with no observed value of a column,
    or a variance of zero left, is an error naming both.

    >>> v = np.array([[1.0], [3.0], [np.nan], [10.0], [14.0]])
    >>> stats = ClassVariances.of_rows(["x"], v, np.array([0, 0, 0, 1, 1]), ["a", "b"])
    >>> m, s = smoothed_variances(stats)
    >>> m.ravel().tolist(), s.ravel().tolist()
    ([2.0, 12.0], [1.0, 4.0])

    With one pseudo-row of the whole table's variance (of ``[1, 3, 10, 14]``: 27.5),
    ``(2 * 1 + 27.5) / 3`` and ``(2 * 4 + 27.5) / 3``:

    >>> smoothed_variances(stats, var_prior=1.0)[1].ravel().tolist()
    [9.833333333333334, 11.833333333333334]
    """
    names, classes = stats.variables, stats.classes
    empty = stats.observed <= 0
    if empty.any():
        c, j = np.argwhere(empty)[0]
        raise TreelearnError(
            f"column {names[j]!r} has no observed value in class {python_scalar(classes[c])!r}: "
            "its mean there is unknown; drop the column or give rows of that class a value",
            column=names[j],
        )
    var = stats.variance
    if var_prior and var.shape[1]:
        var = shrunk_variance(var, stats.observed, stats.overall_variance(), var_prior)
    if var_smoothing and var.shape[1]:
        var = var + var_smoothing * float(stats.overall_variance().max())
    flat = var <= 0
    if flat.any():
        c, j = np.argwhere(flat)[0]
        raise TreelearnError(
            f"column {names[j]!r} is constant in class {python_scalar(classes[c])!r} (variance "
            "0): a Gaussian there has no density; use var_prior > 0 (e.g. 1) or var_smoothing > 0 "
            "(e.g. 1e-9), or drop the column",
            column=names[j],
            hint="var_smoothing=1e-9",
        )
    return stats.mean, var


def class_gaussian_log_density(values: np.ndarray, mean: np.ndarray, var: np.ndarray) -> np.ndarray:
    """``sum_j log N(x_j; mean_cj, var_cj)`` over the observed cells of each row: ``n x k``.

    A missing cell (NaN) contributes 0 (its density integrates to one).

    >>> d = class_gaussian_log_density(np.array([[0.0, np.nan]]), np.zeros((1, 2)), np.ones((1, 2)))
    >>> bool(np.isclose(d[0, 0], -0.5 * np.log(2 * np.pi)))
    True
    """
    observed = ~np.isnan(values)
    complete = bool(observed.all())
    filled = values if complete else np.where(observed, values, 0.0)
    out = np.empty((values.shape[0], mean.shape[0]))
    scratch = np.empty_like(filled)
    for c in range(mean.shape[0]):  # a loop over classes (few), each a whole-array step
        np.subtract(filled, mean[c], out=scratch)
        scratch *= scratch
        if complete:  # the normalising constant once per class, not per cell
            out[:, c] = scratch @ (1.0 / var[c])
            out[:, c] += np.log(var[c]).sum() + len(var[c]) * _LOG_2PI
        else:
            scratch /= var[c]
            scratch += np.log(var[c]) + _LOG_2PI
            scratch[~observed] = 0.0
            out[:, c] = scratch.sum(axis=1)
    out *= -0.5
    return out
