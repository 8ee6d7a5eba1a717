"""Gaussian kernel density estimates of one and two columns, and their mutual information.

The bandwidths are scipy's ``gaussian_kde``'s: a kernel's covariance is ``factor**2``
times the (weighted) covariance of the data, ``factor`` Scott's ``n_eff ** (-1/5)``,
Silverman's ``(3 n_eff / 4) ** (-1/5)`` or a given number (``n_eff = (sum w)^2 /
sum w^2``). The same ``factor`` serves the 1-D and the 2-D estimates, so the 2-D KDE of a
pair has exactly the 1-D KDEs as its marginals (what makes a forest of them a density).
The mutual information of a pair is integrated numerically: the 2-D KDE on a ``grid x
grid`` lattice over each column's range plus four kernel widths, normalised to a discrete
joint, its plug-in MI (a Riemann sum of ``p log p / (p_i p_j)``).
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from .._base.limits import check_memory

__all__ = [
    "BLOCK_BYTES",
    "bandwidth_factor",
    "kde_log_density",
    "kde_pair_log_density",
    "kernel_mutual_information",
    "weighted_moments",
]

_LOG_2PI = math.log(2 * math.pi)
#: the working arrays of one block (rows x kernels, or pairs x kernels x grid x grid)
BLOCK_BYTES = 32 * 2**20


def bandwidth_factor(bandwidth: str | float, n_eff: float) -> float:
    """scipy's ``gaussian_kde`` factor of a 1-D estimate (see the module docstring).

    >>> round(bandwidth_factor("scott", 32.0), 6), bandwidth_factor(0.3, 10.0)
    (0.5, 0.3)
    """
    if bandwidth == "scott":
        return float(n_eff ** (-1.0 / 5.0))
    if bandwidth == "silverman":
        return float((n_eff * 3.0 / 4.0) ** (-1.0 / 5.0))
    return float(bandwidth)


def weighted_moments(X: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``(mean, sd, n_eff)`` of each column as ``np.cov(aweights=w)`` gives them
    (unbiased for the effective rows); ``w`` sums to 1."""
    mean = w @ X
    var = (w[:, None] * (X - mean) ** 2).sum(axis=0) / (1.0 - float(w @ w))
    return mean, np.sqrt(var), 1.0 / float(w @ w)


def _rows_per_block(n_kernels: int, floats_per_pair: int = 1) -> int:
    return max(1, BLOCK_BYTES // (8 * max(1, n_kernels) * floats_per_pair))


def _logsumexp_rows(L: np.ndarray) -> np.ndarray:
    top = L.max(axis=1)
    top = np.where(np.isfinite(top), top, 0.0)
    return top + np.log(np.exp(L - top[:, None]).sum(axis=1))


def kde_log_density(x: np.ndarray, centres: np.ndarray, log_w: np.ndarray, sd: float) -> np.ndarray:
    """``log sum_k w_k N(x; c_k, sd^2)`` at every ``x`` (blocks of rows; ``log_w``: the
    kernels' log weights, summing to 1). A kernel of width ``sd <= 0`` has no density: NaN.

    >>> c = np.array([0.0, 1.0]); lw = np.log([0.5, 0.5])
    >>> bool(np.isclose(kde_log_density(np.array([0.0]), c, lw, 1.0)[0],
    ...                 np.log(0.5 * (np.exp(0) + np.exp(-0.5)) / np.sqrt(2 * np.pi))))
    True
    """
    if not sd > 0:  # a kernel of no width (a column constant on the rows it came from)
        return np.full(len(x), np.nan)  # has no density: NaN, which callers name or score
    out = np.empty(len(x))
    step = _rows_per_block(len(centres))
    for start in range(0, len(x), step):  # blocks of rows: memory, not a loop per row
        u = (x[start : start + step, None] - centres[None, :]) / sd
        out[start : start + step] = _logsumexp_rows(log_w - 0.5 * u * u)
    return out - math.log(sd) - 0.5 * _LOG_2PI


def kde_pair_log_density(
    x: np.ndarray,
    y: np.ndarray,
    cx: np.ndarray,
    cy: np.ndarray,
    log_w: np.ndarray,
    sx: float,
    sy: float,
    r: float,
) -> np.ndarray:
    """``log sum_k w_k N((x, y); (cx_k, cy_k), S)``, ``S`` with sds ``sx, sy`` and
    correlation ``r`` (``|r| < 1``; NaN everywhere when degenerate).

    >>> bool(np.isnan(kde_pair_log_density(np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1),
    ...                                    np.zeros(1), 1.0, 1.0, 1.0)).all())
    True
    """
    one_r = 1.0 - r * r
    if not (sx > 0 and sy > 0 and one_r > 0):  # degenerate (no width, or |r| = 1): no
        return np.full(len(x), np.nan)  # density, as kde_log_density
    out = np.empty(len(x))
    step = _rows_per_block(len(cx))
    for start in range(0, len(x), step):  # blocks of rows
        u = (x[start : start + step, None] - cx[None, :]) / sx
        v = (y[start : start + step, None] - cy[None, :]) / sy
        out[start : start + step] = _logsumexp_rows(
            log_w - 0.5 * (u * u - 2 * r * u * v + v * v) / one_r
        )
    return out - math.log(sx * sy) - 0.5 * math.log(one_r) - _LOG_2PI


def kernel_mutual_information(
    X: np.ndarray, w: np.ndarray, sd: np.ndarray, corr: np.ndarray, grid: int
) -> np.ndarray:
    """The ``d x d`` matrix of every pair's MI (nats) under its 2-D KDE (kernel sds ``sd``,
    correlations ``corr``), integrated on a ``grid x grid`` lattice (module docstring).

    Pairs are batched: one array of ``pairs x kernels x grid x grid`` per block (memory
    checked), no Python loop over pairs.
    """
    n, d = X.shape
    mi = np.zeros((d, d))
    pairs = np.array(list(combinations(range(d), 2)), dtype=np.int64).reshape(-1, 2)
    if len(pairs) == 0:
        return mi
    lo, hi = X.min(axis=0) - 4 * sd, X.max(axis=0) + 4 * sd
    G = lo + (hi - lo) * np.linspace(0.0, 1.0, grid)[:, None]  # grid x d
    # the offsets, then blocks of at most BLOCK_BYTES (the exponentials and their temporaries)
    check_memory(
        8.0 * n * grid * d + 6 * BLOCK_BYTES,
        "the kernel MI grids",
        "pass a smaller grid= or fewer rows",
    )
    U = (G[None, :, :] - X[:, None, :]) / sd  # kernels x grid x d: standardised offsets
    per_pair = 8.0 * n * grid * grid
    pair_step = max(1, int(BLOCK_BYTES // per_pair))
    row_step = n if pair_step > 1 else max(1, int(BLOCK_BYTES // (8.0 * grid * grid)))
    for p0 in range(0, len(pairs), pair_step):  # blocks of pairs (memory)
        i, j = pairs[p0 : p0 + pair_step, 0], pairs[p0 : p0 + pair_step, 1]
        r = corr[i, j][:, None, None, None]
        one_r = 1.0 - r * r
        D = np.zeros((len(i), grid, grid))
        for k0 in range(0, n, row_step):  # blocks of kernels (memory)
            a = np.moveaxis(U[k0 : k0 + row_step][:, :, i], 2, 0)[:, :, :, None]
            b = np.moveaxis(U[k0 : k0 + row_step][:, :, j], 2, 0)[:, :, None, :]
            E = np.exp(-0.5 * (a * a - 2 * r * a * b + b * b) / one_r)
            D += np.einsum("k,pkab->pab", w[k0 : k0 + row_step], E)
        Q = D / D.sum(axis=(1, 2), keepdims=True)
        qi, qj = Q.sum(axis=2, keepdims=True), Q.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(Q > 0, Q * np.log(Q / (qi * qj)), 0.0)
        # a discrete MI is >= 0 by construction: clip the round-off
        values = np.maximum(terms.sum(axis=(1, 2)), 0.0)
        mi[i, j] = mi[j, i] = values
    return mi
