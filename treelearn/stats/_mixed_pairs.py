"""Pairwise statistics of mixed tables: what a conditional linear Gaussian (CLG) tree learns from.

A mixed table has discrete columns (integer codes, ``-1`` = missing) and continuous
ones (floats, NaN = missing). A CLG tree needs, for every pair of columns:

* discrete-discrete: the contingency table (:mod:`treelearn.stats._counts`);
* discrete-continuous: for every state ``a`` of the discrete column, the weight, mean and
  maximum-likelihood variance of the continuous column over the rows where both are
  observed (:attr:`MixedPairs.state_weight`, ``state_mean``, ``state_variance``);
* continuous-continuous: the pairwise-complete weight, means, variances and covariance
  (:attr:`MixedPairs.pair_weight`, ``pair_mean``, ``pair_variance``, ``pair_covariance``).

:func:`mixed_pair_statistics` gets every discrete-continuous statistic from one sparse
product ``H^T [O, Z, Z^2]`` (``H`` the one-hot rows of the discrete columns, sparse; ``O`` the
continuous columns' observed indicators, ``Z`` their standardised values, every row
scaled by its weight) and every continuous-continuous one from three more products: no
loop over rows or pairs. Standardising first (each column's weighted mean and standard
deviation) keeps ``sum z^2 / w - mean^2`` accurate for columns far from zero.

Complete, unweighted numbers (no NaN, no ``sample_weight``; a discrete cell may be missing)
take :func:`complete_pair_sums` instead: per block of rows, one float64 Gram matrix of
``[H | D | D^2 | 1]`` (``D`` the numbers minus their column means) gives every pair's sums at
once -- the discrete pair counts ``H^T H``, each state's count, sum and sum of squares of
every number, the numbers' cross products -- with no ``n x p`` temporary beyond the block
(the exact path above makes nine). Centring on the mean keeps the same digits as
standardising (a scale changes no relative error); the two paths agree to round-off.

The mutual information of each pair kind is the maximum-likelihood log-likelihood gain per
row of the edge, so that the Chow-Liu argument (the best tree is the maximum spanning tree
of the edge gains) holds for CLG trees:

* discrete-discrete: the plug-in MI (:func:`~treelearn.stats._information.mutual_information_matrix`);
* discrete-continuous: :func:`conditional_gaussian_information`, bnlearn's ``mi-cg``: the
  log-likelihood ratio per row of one Gaussian per state against one Gaussian,
  ``1/2 log s^2 - sum_a p_a 1/2 log s_a^2`` (``s^2`` the variance over the rows of the pair,
  by the law of total variance);
* continuous-continuous: :func:`correlation_information`, ``-1/2 log(1 - rho^2)``.

Variances are floored at :data:`VARIANCE_FLOOR` times the column's variance (scikit-learn's
``GaussianNB`` epsilon), so a state seen once, or a column constant within a state (a spike
at zero), gives a large but finite gain instead of an infinite one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._base.limits import check_memory

__all__ = [
    "VARIANCE_FLOOR",
    "MixedPairs",
    "complete_pair_sums",
    "conditional_gaussian_information",
    "correlation_information",
    "mixed_pair_statistics",
    "onehot_product",
]

#: rows per block of the complete-row Gram matrix (a ``block x (K + 2p + 1)`` float64
#: array: 0.8 MB at 25 columns, cache-sized; 4,096 and 8,192 rows time the same, 2,048
#: and 16,384 up to 20 % slower)
GRAM_BLOCK_ROWS = 4096
#: the complete-row path's widest Gram matrix (``K + 2p + 1`` columns); wider tables (many
#: states) take the exact path, whose sparse products and separate pair count then cost less
#: (50,000 rows, 6 numbers: 213 columns 77 against 92 ms, 413 columns 195 against 177 ms)
GRAM_MAX_COLUMNS = 320

#: per-state variances are at least this fraction of their column's variance
VARIANCE_FLOOR = 1e-9


@dataclass(frozen=True)
class MixedPairs:
    """The pairwise statistics of the continuous columns (see the module docstring).

    ``state_*`` are ``K x p`` (``K`` the discrete columns' one-hot indicators, in block
    order; ``p`` continuous columns): row ``offsets[i] + a`` is state ``a`` of discrete
    column ``i``. ``pair_*`` are ``p x p``; ``pair_mean[j, l]`` and ``pair_variance[j, l]``
    are those of column ``j`` over the rows where ``j`` and ``l`` are both observed (the
    diagonal: over the rows where ``j`` is). Every weight is a total of row weights.

    ``discrete_counts`` is the ``K x K`` int64 matrix of the discrete columns' pair counts
    (:class:`~treelearn.stats._counts.PairCounts`' ``joint``) when the complete-row path
    computed it on the way (``None`` otherwise).
    """

    cardinalities: np.ndarray
    state_weight: np.ndarray
    state_mean: np.ndarray
    state_variance: np.ndarray
    pair_weight: np.ndarray
    pair_mean: np.ndarray
    pair_variance: np.ndarray
    pair_covariance: np.ndarray
    discrete_counts: np.ndarray | None = None

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.cardinalities)]).astype(np.int64)

    def states_of(self, i: int) -> slice:
        """The rows of discrete column ``i``'s states in the ``state_*`` arrays."""
        o = self.offsets
        return slice(int(o[i]), int(o[i + 1]))

    def column_variance(self) -> np.ndarray:
        """Each continuous column's variance over the rows where it is observed."""
        return np.diagonal(self.pair_variance).copy()

    def column_mean(self) -> np.ndarray:
        return np.diagonal(self.pair_mean).copy()

    def conditional_information(self) -> np.ndarray:
        """``d_D x p``: bnlearn's ``mi-cg`` of every discrete-continuous pair (nats)."""
        starts = self.offsets[:-1]
        if len(self.cardinalities) == 0:
            return np.zeros((0, self.state_weight.shape[1]))
        return conditional_gaussian_information(
            self.state_weight, self.state_mean, self.state_variance, starts, self.column_variance()
        )

    def correlation(self) -> np.ndarray:
        """``p x p`` pairwise-complete correlations (1 on the diagonal)."""
        var = self.pair_variance
        scale = np.sqrt(np.maximum(var * var.T, 0.0))
        rho = np.divide(self.pair_covariance, scale, out=np.zeros_like(scale), where=scale > 0)
        np.fill_diagonal(rho, 1.0)
        return rho

    def continuous_information(self) -> np.ndarray:
        """``p x p``: ``-1/2 log(1 - rho^2)`` of every pair of continuous columns."""
        mi = correlation_information(self.correlation())
        np.fill_diagonal(mi, 0.0)
        return mi


def correlation_information(rho: np.ndarray) -> np.ndarray:
    """``-1/2 log(1 - rho^2)`` (nats), the Gaussian mutual information of a correlation.

    >>> correlation_information(np.array([0.0, 0.6])).round(4).tolist()
    [0.0, 0.2231]
    """
    rho2 = np.clip(np.asarray(rho, dtype=float) ** 2, 0.0, 1.0)
    with np.errstate(divide="ignore"):
        return -0.5 * np.log1p(-rho2)


def conditional_gaussian_information(
    weight: np.ndarray,
    mean: np.ndarray,
    variance: np.ndarray,
    starts: np.ndarray,
    column_variance: np.ndarray,
) -> np.ndarray:
    """bnlearn's ``mi-cg`` of discrete-continuous pairs from per-state Gaussians.

    ``weight``, ``mean`` and ``variance`` are ``K x p`` (states in blocks starting at
    ``starts``, one block per discrete column); the result is ``len(starts) x p``::

        I = 1/2 log s^2 - sum_a (w_a / w) 1/2 log s_a^2,

    ``s^2 = sum_a w_a (s_a^2 + (m_a - m)^2) / w`` the variance over the pair's rows (law of
    total variance), each ``s_a^2`` floored at :data:`VARIANCE_FLOOR` times
    ``column_variance``. It is the maximum-likelihood log-likelihood ratio per row of the
    per-state Gaussians against one Gaussian, non-negative (Jensen), 0 when every state has
    the same mean and variance. States of weight 0 contribute nothing.

    >>> w, m, v = np.array([[2.0], [2.0]]), np.array([[0.0], [2.0]]), np.array([[1.0], [1.0]])
    >>> round(float(conditional_gaussian_information(w, m, v, np.array([0]), np.array([2.0]))[0, 0]), 6)
    0.346574
    """
    weight = np.asarray(weight, dtype=float)
    total = np.add.reduceat(weight, starts, axis=0)  # (d_D, p)
    owner = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, weight.shape[0])))
    safe_total = np.where(total > 0, total, 1.0)
    share = weight / safe_total[owner]
    grand = np.add.reduceat(share * mean, starts, axis=0)
    spread = share * (variance + (mean - grand[owner]) ** 2)
    overall = np.add.reduceat(spread, starts, axis=0)
    floor = VARIANCE_FLOOR * np.asarray(column_variance, dtype=float)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        log_state = np.where(weight > 0, np.log(np.maximum(variance, floor)), 0.0)
        within = np.add.reduceat(share * log_state, starts, axis=0)
        mi = 0.5 * (np.log(np.maximum(overall, floor)) - within)
    mi = np.where(total > 0, mi, 0.0)
    return np.maximum(mi, 0.0)  # >= 0 by Jensen; rounding can leave -1e-17


def onehot_product(
    codes: np.ndarray, cardinalities: np.ndarray, *matrices: np.ndarray
) -> list[np.ndarray]:
    """``[H^T M for M in matrices]`` (each ``K x m``, float64), ``H`` the one-hot rows of
    ``codes`` (a missing code, -1, is a row of zeros), held as one scipy.sparse CSR matrix
    (one entry per cell: ``16 n d`` bytes, never ``n x K`` dense).

    >>> onehot_product(np.array([[0], [1], [-1]]), np.array([2]), np.array([[1.0], [2.0], [4.0]]))[0].tolist()
    [[1.0], [2.0]]
    """
    import scipy.sparse as sp

    n, d = codes.shape
    cards = np.asarray(cardinalities, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)
    K = int(offsets[-1])
    if K == 0 or n == 0:
        return [np.zeros((K, M.shape[1])) for M in matrices]
    check_memory(
        24.0 * n * d,
        f"the one-hot rows of {n:,} rows x {d} discrete columns",
        "give fewer rows or discrete columns",
    )
    observed = codes >= 0
    # row r's entries: column offsets[j] + code of each cell (a missing cell: weight 0)
    indices = (offsets[:-1][None, :] + np.where(observed, codes, 0)).reshape(-1)
    data = observed.reshape(-1).astype(np.float64)
    # H^T directly, in CSC form: column r of H^T is row r of H (d entries each)
    Ht = sp.csc_matrix((data, indices, np.arange(0, n * d + 1, d, dtype=np.int64)), shape=(K, n))
    return [np.asarray(Ht @ M) for M in matrices]


def mixed_pair_statistics(
    codes: np.ndarray,
    cardinalities: np.ndarray,
    values: np.ndarray,
    weights: np.ndarray | None = None,
) -> MixedPairs:
    """The :class:`MixedPairs` of discrete ``codes`` (``n x d_D``, -1 = missing) and continuous
    ``values`` (``n x p``, NaN = missing), rows weighted by ``weights``.

    A continuous column with no observed row, or a constant one, gets variance 0 here;
    the caller refuses it, naming the column.

    >>> s = mixed_pair_statistics(np.array([[0], [0], [1], [1]]), np.array([2]),
    ...                           np.array([[1.0], [3.0], [10.0], [14.0]]))
    >>> s.state_mean.ravel().round(9).tolist(), s.state_variance.ravel().round(9).tolist()
    ([2.0, 12.0], [1.0, 4.0])
    """
    # row-major throughout: the sparse products and reshapes read rows (a DataFrame's
    # block is column-major)
    values = np.asarray(values, dtype=float)
    n, p = values.shape
    width = int(np.sum(cardinalities)) + 2 * p + 1
    if weights is None and n and width <= GRAM_MAX_COLUMNS and not np.isnan(values).any():
        return _complete_pairs(np.asarray(codes), cardinalities, values)
    values = np.ascontiguousarray(values)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    observed = ~np.isnan(values)
    complete = bool(observed.all())
    seen = observed.astype(float)
    # each column's weighted mean and sd over its observed rows: the standardisation
    col_w = w @ seen
    safe_w = np.where(col_w > 0, col_w, 1.0)
    filled = values if complete else np.where(observed, values, 0.0)
    centre = (w @ filled) / safe_w
    dev = filled - centre
    if not complete:
        dev[~observed] = 0.0
    scale = np.sqrt((w @ (dev * dev)) / safe_w)
    scale = np.where(scale > 0, scale, 1.0)
    Z = dev / scale
    wZ = Z * w[:, None]
    w_seen = seen * w[:, None]
    # continuous-continuous: pairwise-complete sums (standardised units)
    cross = wZ.T @ Z
    if complete:
        Wp = np.full((p, p), float(w.sum()))
        S1 = np.repeat(wZ.sum(axis=0)[:, None], p, axis=1)
        S2 = np.repeat((wZ * Z).sum(axis=0)[:, None], p, axis=1)
    else:
        Wp = w_seen.T @ seen
        S1 = wZ.T @ seen  # [j, l]: sum of z_j over the rows where l (and j) is observed
        S2 = (wZ * Z).T @ seen
    safe_p = np.where(Wp > 0, Wp, 1.0)
    m_z = S1 / safe_p
    v_z = np.maximum(S2 / safe_p - m_z * m_z, 0.0)
    c_z = cross / safe_p - m_z * m_z.T
    pair_mean = centre[:, None] + scale[:, None] * m_z
    pair_variance = (scale[:, None] ** 2) * v_z
    pair_covariance = np.outer(scale, scale) * c_z
    pair_covariance = (pair_covariance + pair_covariance.T) / 2
    # discrete-continuous: one product of the one-hot rows with [O, Z, Z^2] (weighted)
    cards = np.asarray(cardinalities, dtype=np.int64)
    if codes.shape[1]:
        if complete:  # every cell observed: each state's weight is the same for every column
            state_w, T1, T2 = onehot_product(codes, cards, w[:, None], wZ, wZ * Z)
            W = np.repeat(state_w, p, axis=1)
        else:
            W, T1, T2 = onehot_product(codes, cards, w_seen, wZ, wZ * Z)
        safe = np.where(W > 0, W, 1.0)
        mz = T1 / safe
        vz = np.maximum(T2 / safe - mz * mz, 0.0)
        state_mean = np.where(W > 0, centre + scale * mz, 0.0)
        state_variance = np.where(W > 0, scale**2 * vz, 0.0)
    else:
        W = state_mean = state_variance = np.zeros((0, p))
    return MixedPairs(
        cards, W, state_mean, state_variance, Wp, pair_mean, pair_variance, pair_covariance
    )


def complete_pair_sums(
    codes: np.ndarray, cardinalities: np.ndarray, values: np.ndarray, centre: np.ndarray
) -> np.ndarray:
    """The Gram matrix ``A^T A`` of ``A = [H | D | D^2 | 1]`` (``K + 2p + 1`` square, float64),
    summed over blocks of :data:`GRAM_BLOCK_ROWS` rows: ``H`` the one-hot rows of ``codes``
    (a missing code, -1, a row of zeros), ``D = values - centre`` (``values`` without NaN).

    Its blocks are every sum a CLG tree learns from: ``H^T H`` the discrete pair counts (the
    diagonal: each state's count), ``H^T D`` and ``H^T D^2`` each state's sum and sum of
    squares of every number, ``D^T D`` the cross products, the last row the column sums and
    ``n``. Counts are exact (whole numbers below 2^53 summed in float64).

    >>> g = complete_pair_sums(np.array([[0], [1], [1]]), np.array([2]),
    ...                        np.array([[1.0], [2.0], [4.0]]), np.array([0.0]))
    >>> g[:2, :2].tolist(), g[:2, 2].tolist(), g[:2, 3].tolist(), float(g[-1, -1])
    ([[1.0, 0.0], [0.0, 2.0]], [1.0, 6.0], [1.0, 20.0], 3.0)
    """
    n, p = values.shape
    cards = np.asarray(cardinalities, dtype=np.int64)
    K = int(cards.sum())
    width = K + 2 * p + 1
    block = min(GRAM_BLOCK_ROWS, max(n, 1))
    check_memory(
        8.0 * (block + width) * width,
        f"the sums of {K} discrete states and {p} continuous columns",
        "give fewer discrete states or continuous columns",
    )
    # the one-hot column of every state: (column of A, discrete column, state code)
    onehot = [
        (int(o) + a, j, a)
        for j, (o, k) in enumerate(zip(np.cumsum(cards) - cards, cards))
        for a in range(int(k))
    ]
    gram = np.zeros((width, width))
    # A column-major: each of its columns (a state's indicator, a number) is written
    # contiguously, from the DataFrame's column-major codes and numbers
    A = np.zeros((width, block)).T
    A[:, -1] = 1.0
    for s in range(0, n, block):
        e = min(n, s + block)
        a = A[: e - s]
        c = codes[s:e]
        for col, j, state in onehot:  # a missing code (-1) equals no state: a row of zeros
            np.equal(c[:, j], state, out=a[:, col])
        dev, squares = a[:, K : K + p], a[:, K + p : K + 2 * p]
        np.subtract(values[s:e], centre, out=dev)
        np.multiply(dev, dev, out=squares)
        gram += a.T @ a  # numpy hands A^T A to BLAS syrk: one product per block
    return gram


def _complete_pairs(codes: np.ndarray, cardinalities: np.ndarray, values: np.ndarray) -> MixedPairs:
    """:func:`mixed_pair_statistics` of complete, unweighted numbers (:func:`complete_pair_sums`)."""
    n, p = values.shape
    cards = np.asarray(cardinalities, dtype=np.int64)
    K = int(cards.sum())
    centre = values.mean(axis=0)
    gram = complete_pair_sums(codes, cards, values, centre)
    D, Q = slice(K, K + p), slice(K + p, K + 2 * p)
    total = gram[-1]
    # centred sums over all rows: means and (co)variances of every column and pair
    m = total[D] / n
    variance = np.maximum(total[Q] / n - m * m, 0.0)
    covariance = gram[D, D] / n - np.outer(m, m)
    covariance = (covariance + covariance.T) / 2
    np.fill_diagonal(covariance, variance)
    ones = np.ones(p)
    pair_mean = np.outer(centre + m, ones)
    pair_variance = np.outer(variance, ones)
    Wp = np.full((p, p), float(n))
    if K:
        counts = np.diagonal(gram[:K, :K]).copy()
        W = np.repeat(counts[:, None], p, axis=1)
        safe = np.where(W > 0, W, 1.0)
        mz = gram[:K, D] / safe
        vz = np.maximum(gram[:K, Q] / safe - mz * mz, 0.0)
        state_mean = np.where(W > 0, centre + mz, 0.0)
        state_variance = np.where(W > 0, vz, 0.0)
        joint = np.rint(gram[:K, :K]).astype(np.int64)
    else:
        W = state_mean = state_variance = np.zeros((0, p))
        joint = np.zeros((0, 0), dtype=np.int64)
    return MixedPairs(
        cards, W, state_mean, state_variance, Wp, pair_mean, pair_variance, covariance, joint
    )
