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
from collections.abc import Callable
from itertools import combinations

import numpy as np

from .._base.limits import check_memory

__all__ = [
    "BLOCK_BYTES",
    "EXACT_UP_TO",
    "GRID_PER_SD",
    "GRID_REACH",
    "MAX_GRID_CELLS",
    "MAX_PAIR_CORRELATION",
    "TAIL_SHARE",
    "UnitGridDensity",
    "bandwidth_factor",
    "binned_kernel_mutual_information",
    "binned_log_density",
    "binned_pair_log_density",
    "evaluation_method",
    "fft_convolve",
    "kde_log_density",
    "kde_pair_log_density",
    "kernel_mutual_information",
    "lattice_information",
    "linear_bin",
    "pair_coordinates",
    "pair_grid",
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
        mi[i, j] = mi[j, i] = lattice_information(D)
    return mi


def lattice_information(D: np.ndarray) -> np.ndarray:
    """The MI (nats) of each pair's density ``D[p]`` on its lattice (``pairs x grid x
    grid``, non-negative), taken as a discrete joint: ``D`` normalised, ``sum Q log(Q /
    (q_i q_j))``, cells below 1e-300 (round-off of a binned lattice's FFT) left out, and
    clipped at 0 (a discrete MI is >= 0: the rest is round-off). Both paths end here.

    >>> D = np.array([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [1.0, 1.0]]])
    >>> lattice_information(D).round(12).tolist()   # a copy: log 2; independence: 0
    [0.69314718056, 0.0]
    """
    Q = D / D.sum(axis=(1, 2), keepdims=True)
    qi, qj = Q.sum(axis=2, keepdims=True), Q.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(Q > 1e-300, Q * np.log(Q / (qi * qj)), 0.0)
    return np.maximum(terms.sum(axis=(1, 2)), 0.0)


# ---------------------------------------------------------------------------- binned path
#: the binned estimates' grid: nodes per kernel sd, and how many kernel sds the grid and a
#: kernel's taps reach beyond the outermost centre (a unit Gaussian's tail there: e^-32)
GRID_PER_SD = 8
GRID_REACH = 8.0
#: the most nodes of one binned grid (1-D or 2-D); past it the nodes are spread wider
MAX_GRID_CELLS = 2**23
#: a node whose density is below this share of the grid's largest is "tail": rows that
#: interpolate there are answered by the exact sum instead (the truncated taps and the
#: interpolation of a log density are not trusted that far out)
TAIL_SHARE = 1e-9
#: up to this many kernels, scoring sums the kernels exactly; past it, on a binned grid
EXACT_UP_TO = 2000


def evaluation_method(method: str, n_kernels: int) -> str:
    """``"exact"`` or ``"binned"``: ``method`` itself, or for ``"auto"`` exact up to
    :data:`EXACT_UP_TO` kernels (a direct sum costs little there and is the reference) and
    binned past it (its cost grows with the rows, not their square).

    >>> evaluation_method("auto", 100), evaluation_method("auto", 10**6), evaluation_method("exact", 10**6)
    ('exact', 'binned', 'exact')
    """
    if method == "auto":
        return "exact" if n_kernels <= EXACT_UP_TO else "binned"
    return method


def linear_bin(
    P: np.ndarray, w: np.ndarray, lo: np.ndarray, step: np.ndarray, shape: tuple
) -> np.ndarray:
    """Linear binning of the weighted points ``P`` (rows x D, D = 1 or 2) onto the grid of
    nodes ``lo + step * index`` (``shape`` nodes per axis): each point's weight is shared
    among its ``2**D`` surrounding nodes in proportion to its nearness, so every node's
    share keeps the point's mean (Wand & Jones 1995, app. D). Marginalising a 2-D binning
    over one axis gives the 1-D binning of the other, exactly.

    >>> linear_bin(np.array([[0.25], [2.0]]), np.array([1.0, 1.0]), np.array([0.0]),
    ...            np.array([1.0]), (3,)).tolist()
    [0.75, 0.25, 1.0]
    """
    D = P.shape[1]
    pos = (P - lo) / step
    base = np.clip(np.floor(pos).astype(np.int64), 0, np.array(shape) - 2)
    frac = np.clip(pos - base, 0.0, 1.0)
    size = int(np.prod(shape))
    out = np.zeros(size)
    strides = np.array([int(np.prod(shape[k + 1 :])) for k in range(D)], dtype=np.int64)
    for corner in range(2**D):  # 2 or 4 corners: a loop over corners, every row at once
        bits = np.array([(corner >> k) & 1 for k in range(D)])
        share = w * np.prod(np.where(bits, frac, 1.0 - frac), axis=1)
        out += np.bincount((base + bits) @ strides, weights=share, minlength=size)
    return out.reshape(shape)


class UnitGridDensity:
    """A binned Gaussian KDE in coordinates where every kernel is a unit normal (1-D or
    2-D isotropic): the points linearly binned onto a grid of :data:`GRID_PER_SD` nodes per
    unit, convolved with the unit normal's taps (separable: one 1-D convolution per axis,
    each by FFT), its log kept at the nodes. :meth:`log_density` interpolates that log
    linearly between nodes (a Gaussian's log is quadratic, so the error is at most
    ``step**2 / 8`` nats per unit-curvature); rows outside the grid or in its tail
    (:data:`TAIL_SHARE`) are flagged for an exact answer. Cost: the rows once (binning),
    then the grid's nodes times their log, whatever the rows.

    >>> rng = np.random.default_rng(0)
    >>> P = rng.normal(size=(500, 1)) * 5
    >>> g = UnitGridDensity(P, np.full(500, 1 / 500))
    >>> q = np.array([[0.3], [2.0]])
    >>> exact = kde_log_density(q[:, 0], P[:, 0], np.full(500, -np.log(500)), 1.0)
    >>> got, tail = g.log_density(q)
    >>> bool(np.abs(got - exact).max() < 1e-3), tail.tolist()
    (True, [False, False])
    """

    def __init__(self, P: np.ndarray, w: np.ndarray) -> None:
        D = P.shape[1]
        span = P.max(axis=0) - P.min(axis=0) + 2 * GRID_REACH
        per_unit = float(GRID_PER_SD)
        cells = float(np.prod(span * per_unit + 2))
        if cells > MAX_GRID_CELLS:  # a very wide spread: nodes spread wider (coarser)
            per_unit *= (MAX_GRID_CELLS / cells) ** (1.0 / D)
        self.step = np.full(D, 1.0 / per_unit)
        self.shape = tuple(math.ceil(s * per_unit) + 2 for s in span)
        self.lo = P.min(axis=0) - GRID_REACH
        check_memory(
            8.0 * 4 * float(np.prod(self.shape)),
            "a binned kernel density's grid",
            "pass method='exact' or fewer, less spread-out rows",
        )
        counts = linear_bin(P, w, self.lo, self.step, self.shape)
        density = counts
        for axis in range(D):  # separable: the unit normal's taps along each axis
            density = _convolve_axis(density, self.step[axis], axis)
        density = np.maximum(density, 0.0)  # FFT round-off below zero: a density is >= 0
        self.floor = TAIL_SHARE * float(density.max())
        with np.errstate(divide="ignore"):
            self.log_nodes = np.where(density > self.floor, np.log(density), -np.inf)

    def log_density(self, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(log density, tail)`` at the points ``Q`` (rows x D): linear interpolation of
        the nodes' log density; ``tail`` flags rows outside the grid or next to a tail
        node (their value is NaN: the caller answers them exactly)."""
        D = Q.shape[1]
        pos = (Q - self.lo) / self.step
        shape = np.array(self.shape)
        inside = ((pos >= 0) & (pos <= shape - 1)).all(axis=1) & np.isfinite(pos).all(axis=1)
        pos = np.where(inside[:, None], pos, 0.0)
        base = np.clip(np.floor(pos).astype(np.int64), 0, shape - 2)
        frac = pos - base
        out = np.zeros(len(Q))
        flat = self.log_nodes.ravel()
        strides = np.array([int(np.prod(self.shape[k + 1 :])) for k in range(D)], dtype=np.int64)
        for corner in range(2**D):  # 2 or 4 corners, every row at once
            bits = np.array([(corner >> k) & 1 for k in range(D)])
            share = np.prod(np.where(bits, frac, 1.0 - frac), axis=1)
            value = flat[(base + bits) @ strides]
            inside &= np.isfinite(value)
            out += share * np.where(np.isfinite(value), value, 0.0)
        return np.where(inside, out, np.nan), ~inside


def _convolve_axis(A: np.ndarray, step: float, axis: int) -> np.ndarray:
    """``A`` convolved along ``axis`` with the unit normal's density at multiples of
    ``step`` (out to :data:`GRID_REACH`), by FFT, the result as long as ``A``."""
    half = math.ceil(GRID_REACH / step)
    taps = np.exp(-0.5 * (np.arange(-half, half + 1) * step) ** 2) / math.sqrt(2 * math.pi)
    shape = [1] * A.ndim
    shape[axis] = len(taps)
    full = fft_convolve(A, taps.reshape(shape), (axis,))
    return np.take(full, np.arange(half, half + A.shape[axis]), axis=axis)


def fft_convolve(A: np.ndarray, K: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """The full linear convolution of ``A`` and ``K`` along ``axes`` (other axes
    broadcast), by real FFTs of a fast length (scipy.fft: lighter to import than
    scipy.signal).

    >>> fft_convolve(np.array([1.0, 2.0]), np.array([1.0, 1.0, 1.0]), (0,)).round(9).tolist()
    [1.0, 3.0, 3.0, 2.0]
    """
    from scipy import fft

    lengths = [A.shape[a] + K.shape[a] - 1 for a in axes]
    fast = [fft.next_fast_len(m, real=True) for m in lengths]
    spectrum = fft.rfftn(A, fast, axes=axes) * fft.rfftn(K, fast, axes=axes)
    full = fft.irfftn(spectrum, fast, axes=axes)
    return full[
        tuple(
            slice(0, m) if a in axes else slice(None)
            for a, m in _axis_lengths(A.ndim, axes, lengths)
        )
    ]


def _axis_lengths(ndim: int, axes: tuple[int, ...], lengths: list) -> list:
    by_axis = dict(zip(axes, lengths))
    return [(a, by_axis.get(a, 0)) for a in range(ndim)]


def binned_log_density(
    x: np.ndarray,
    centres: np.ndarray,
    log_w: np.ndarray,
    sd: float,
    grid: UnitGridDensity | None = None,
) -> np.ndarray:
    """:func:`kde_log_density` on a binned grid (:class:`UnitGridDensity`, built here
    unless given), rows in its tail answered exactly."""
    if not sd > 0:
        return np.full(len(x), np.nan)
    if grid is None:
        grid = UnitGridDensity(centres[:, None] / sd, np.exp(log_w))
    return _read_grid(
        grid,
        x[:, None] / sd,
        math.log(sd),
        lambda tail: kde_log_density(x[tail], centres, log_w, sd),
    )


def _read_grid(
    grid: UnitGridDensity,
    coordinates: np.ndarray,
    log_jacobian: float,
    exact: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """A binned density at whitened ``coordinates``: the grid's log density less
    ``log_jacobian`` (the whitening's), rows in the grid's tail answered by ``exact(tail)``
    (the kernel sum at those rows). What the 1-D and the pair density share."""
    out, tail = grid.log_density(coordinates)
    out = out - log_jacobian
    if tail.any():
        out[tail] = exact(tail)
    return out


def pair_grid(
    cx: np.ndarray, cy: np.ndarray, log_w: np.ndarray, sx: float, sy: float, r: float
) -> UnitGridDensity:
    """The binned 2-D KDE of :func:`kde_pair_log_density` in whitened coordinates ``(u,
    v) = (x / sx, (y / sy - r u) / sqrt(1 - r^2))``, where each kernel is a unit normal
    (:func:`pair_coordinates`): any correlation, one grid spacing."""
    return UnitGridDensity(pair_coordinates(cx, cy, sx, sy, r), np.exp(log_w))


def pair_coordinates(x: np.ndarray, y: np.ndarray, sx: float, sy: float, r: float) -> np.ndarray:
    """The whitened coordinates of :func:`pair_grid` (rows x 2); the first is ``x / sx``,
    the 1-D estimate's, so the binned pair's marginal of ``x`` is exactly the binned 1-D."""
    u = x / sx
    return np.column_stack([u, (y / sy - r * u) / math.sqrt(1.0 - r * r)])


def binned_pair_log_density(
    x: np.ndarray,
    y: np.ndarray,
    cx: np.ndarray,
    cy: np.ndarray,
    log_w: np.ndarray,
    sx: float,
    sy: float,
    r: float,
    grid: UnitGridDensity | None = None,
) -> np.ndarray:
    """:func:`kde_pair_log_density` on a binned grid (:func:`pair_grid`, built here
    unless given), rows in its tail answered exactly."""
    one_r = 1.0 - r * r
    if not (sx > 0 and sy > 0 and one_r > 0):
        return np.full(len(x), np.nan)
    if grid is None:
        grid = pair_grid(cx, cy, log_w, sx, sy, r)
    return _read_grid(
        grid,
        pair_coordinates(x, y, sx, sy, r),
        math.log(sx * sy) + 0.5 * math.log(one_r),
        lambda tail: kde_pair_log_density(x[tail], y[tail], cx, cy, log_w, sx, sy, r),
    )


def binned_kernel_mutual_information(
    X: np.ndarray, w: np.ndarray, sd: np.ndarray, corr: np.ndarray, grid: int
) -> np.ndarray:
    """:func:`kernel_mutual_information` with the rows linearly binned onto the same
    ``grid x grid`` lattices first: each pair's KDE at the lattice is the binned weights
    convolved with the correlated kernel (one batched FFT over every pair), so the cost is
    the rows once per pair (binning, in row blocks) plus the lattices', not rows x lattice.
    """
    n, d = X.shape
    mi = np.zeros((d, d))
    pairs = np.array(list(combinations(range(d), 2)), dtype=np.int64).reshape(-1, 2)
    if len(pairs) == 0:
        return mi
    lo, hi = X.min(axis=0) - 4 * sd, X.max(axis=0) + 4 * sd
    step = (hi - lo) / (grid - 1)
    P = len(pairs)
    check_memory(
        8.0 * P * (2 * grid) ** 2 * 6 + 6 * BLOCK_BYTES,
        "the kernel MI grids",
        "pass a smaller grid=",
    )
    pos = np.clip((X - lo) / step, 0.0, grid - 1.0)
    base = np.minimum(np.floor(pos).astype(np.int64), grid - 2)
    frac = pos - base
    counts = np.zeros(P * grid * grid)
    i, j = pairs[:, 0], pairs[:, 1]
    offset = np.arange(P, dtype=np.int64) * grid * grid
    row_step = max(1, BLOCK_BYTES // (8 * 4 * P))
    for start in range(0, n, row_step):  # blocks of rows (memory): every pair at once
        b, f, wb = (
            base[start : start + row_step],
            frac[start : start + row_step],
            w[start : start + row_step],
        )
        for a_bit in (0, 1):
            for b_bit in (0, 1):
                share = (
                    wb[:, None]
                    * (f[:, i] if a_bit else 1.0 - f[:, i])
                    * (f[:, j] if b_bit else 1.0 - f[:, j])
                )
                index = offset + (b[:, i] + a_bit) * grid + b[:, j] + b_bit
                counts += np.bincount(index.ravel(), weights=share.ravel(), minlength=len(counts))
    lattice = counts.reshape(P, grid, grid)
    # the correlated kernel at every lattice offset of each pair (standardised offsets)
    k = np.arange(-(grid - 1), grid)
    a = (k[None, :] * step[i][:, None] / sd[i][:, None])[:, :, None]
    b2 = (k[None, :] * step[j][:, None] / sd[j][:, None])[:, None, :]
    r = corr[i, j][:, None, None]
    r = np.clip(r, -MAX_PAIR_CORRELATION, MAX_PAIR_CORRELATION)
    kernel = np.exp(-0.5 * (a * a - 2 * r * a * b2 + b2 * b2) / (1.0 - r * r))
    full = fft_convolve(lattice, kernel, (1, 2))
    D = np.maximum(full[:, grid - 1 : 2 * grid - 1, grid - 1 : 2 * grid - 1], 0.0)
    mi[i, j] = mi[j, i] = lattice_information(D)
    return mi


#: a binned MI's kernel correlation is held this far inside +-1 (the exact path's 1 - r^2
#: would be 0 there too, and its MI NaN)
MAX_PAIR_CORRELATION = 1.0 - 1e-12
