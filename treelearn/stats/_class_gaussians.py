"""Per-class Gaussians for the numeric columns of mixed data (:class:`~treelearn.MixedNaiveBayes`).

Which columns are Gaussian is decided by their dtype, or named by the user
(:func:`gaussian_columns`): never by how often values repeat, so duplicating rows,
rescaling a column or a cross-validation fold never moves a column between
Gaussian and categorical. Each Gaussian column gets, per class, the weighted
maximum-likelihood mean and variance over the rows where it is observed (a missing
cell is summed out: its density integrates to one). The statistics come from
products with the ``n x k`` weighted class indicator, so there is no loop over rows
or columns.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import ColumnNotFoundError, TreelearnError

__all__ = [
    "class_gaussian_log_density",
    "class_gaussian_statistics",
    "gaussian_columns",
    "numeric_values",
]

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
            f"{list(X.columns)[:20]}", column=absent[0])
    chosen = set(wanted)
    return [c for c in X.columns if c in chosen]


def numeric_values(X: pd.DataFrame, columns: list) -> np.ndarray:
    """``X[columns]`` as a float array (NaN = missing), checked: a text value or an
    infinity is an error naming the column. The caller's frame is not changed."""
    for name in columns:
        dtype = X[name].dtype
        if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            raise TreelearnError(
                f"column {name!r} was numeric when the classifier was fitted but has dtype "
                f"{dtype} now; give numbers (NaN for a missing value)",
                column=name,
            )
    values = X[columns].to_numpy(dtype=float, na_value=np.nan)
    infinite = np.isinf(values)
    if infinite.any():
        j = int(np.flatnonzero(infinite.any(axis=0))[0])
        raise TreelearnError(
            f"column {columns[j]!r} has an infinite value; a Gaussian needs finite numbers "
            "(NaN for a missing value)",
            column=columns[j],
        )
    return values


def class_gaussian_statistics(
    values: np.ndarray, codes: np.ndarray, weights: np.ndarray, n_classes: int,
    names: list[Hashable], classes: Any, var_smoothing: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(weight, mean, variance)``, each ``n_classes x d``: per class and numeric column.

    Weighted maximum-likelihood estimates (divisor: the class's total weight over
    the rows where the column is observed), plus ``var_smoothing`` times the
    largest (weighted) variance of any column, as scikit-learn's ``GaussianNB``
    adds to keep a constant column usable. The variance the epsilon scales is the
    *weighted* one, so integer weights equal repeated rows exactly; ``GaussianNB``
    takes ``np.var(X)`` of the rows as given (unweighted, rows of weight zero
    included), so with ``sample_weight`` and ``var_smoothing > 0`` the two differ by
    the difference of their epsilons (a few percent of a probability on
    breast_cancer), and agree to rounding with ``var_smoothing=0`` or without
    weights. A class with no observed value of a column, or a variance of zero
    left, is an error naming both.

    >>> v = np.array([[1.0], [3.0], [np.nan], [10.0], [14.0]])
    >>> w, m, s = class_gaussian_statistics(v, np.array([0, 0, 0, 1, 1]), np.ones(5), 2,
    ...                                     ["x"], ["a", "b"])
    >>> w.ravel().tolist(), m.ravel().tolist(), s.ravel().tolist()
    ([2.0, 2.0], [2.0, 12.0], [1.0, 4.0])
    """
    observed = ~np.isnan(values)
    complete = bool(observed.all())
    filled = values if complete else np.where(observed, values, 0.0)
    Y = np.zeros((len(codes), n_classes))
    Y[np.arange(len(codes)), codes] = weights
    # k x d: the weight observed per class and column
    total = (np.repeat(Y.sum(axis=0)[:, None], values.shape[1], axis=1) if complete
             else Y.T @ observed.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (Y.T @ filled) / total
        centred = filled - mean[codes]  # two passes: no cancellation
        if not complete:
            centred[~observed] = 0.0
        centred *= centred
        var = (Y.T @ centred) / total
    empty = total <= 0
    if empty.any():
        c, j = np.argwhere(empty)[0]
        raise TreelearnError(
            f"column {names[j]!r} has no observed value in class {classes[c]!r}: its mean "
            "there is unknown; drop the column or give rows of that class a value",
            column=names[j],
        )
    if var_smoothing and values.shape[1]:
        # each column's variance over all classes, from the per-class ones (law of total
        # variance): no further pass over the rows
        grand = (total * mean).sum(axis=0) / total.sum(axis=0)
        spread = (total * (var + (mean - grand) ** 2)).sum(axis=0) / total.sum(axis=0)
        var = var + var_smoothing * float(spread.max())
    flat = var <= 0
    if flat.any():
        c, j = np.argwhere(flat)[0]
        raise TreelearnError(
            f"column {names[j]!r} is constant in class {classes[c]!r} (variance 0): a Gaussian "
            "there has no density; use var_smoothing > 0 (e.g. 1e-9) or drop the column",
            column=names[j],
            hint="var_smoothing=1e-9",
        )
    return total, mean, var


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
