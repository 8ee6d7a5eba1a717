"""Entropies and mutual information (plug-in estimates, nats) from pairwise counts.

All pairs are computed at once with dense ``K x K`` array arithmetic over the
count matrix of :mod:`treelearn.stats._counts`: no Python loop over pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - hints only: _counts imports this module
    from ._counts import PairCounts

__all__ = [
    "PairwiseRowsWarning",
    "conditional_mutual_information_matrix",
    "entropies",
    "miller_madow_bias",
    "mutual_information_matrix",
]


class PairwiseRowsWarning(UserWarning):
    """Pairs of columns measured on fewer rows than others (``missing="pairwise"``): their
    mutual information was bias-corrected; the message names the rows each column uses."""


#: the smallest normal float64
_TINY = np.finfo(np.float64).tiny


def _xlogx_ratio(num: np.ndarray, r: np.ndarray, c: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``num * log(num n / (r c))`` with ``0 log 0 = 0`` (``r``, ``c``, ``n`` broadcast to
    ``num``'s shape: the two marginals and the rows of each cell).

    Where ``r c / n`` underflows (to 0 or a subnormal) while ``num > 0``, as a product of two
    marginals of ~1e-170 each does (tiny row weights), the ratio is taken in logs: ``log 0``
    made such a term, and the pair's mutual information, infinite. Every other entry is
    computed as before, to the bit. ``r, c >= num > 0`` there (sums of non-negative terms):
    each logarithm is finite.
    """
    out = np.zeros_like(num, dtype=float)
    den = r * c / n
    observed = num > 0
    ok = observed & (den >= _TINY)
    out[ok] = num[ok] * (np.log(num[ok]) - np.log(den[ok]))
    under = observed & ~ok
    if under.any():
        r, c, n = (np.broadcast_to(x, num.shape)[under] for x in (r, c, n))
        out[under] = num[under] * (np.log(num[under]) - np.log(r) - np.log(c) + np.log(n))
    return out


def _block_sums(x: np.ndarray, starts: np.ndarray, cards: np.ndarray, axis: int) -> np.ndarray:
    """``np.add.reduceat(x, starts, axis)``: each variable's block of states summed.

    Where no variable has more than two states (0/1 data, text), the blocks are summed
    from two strided takes: the same doubles (one addition per block, whatever the
    order), without reduceat's per-segment cost: 27-54 ms on cwebkb's 1,678 x 1,678
    counts against about 1.5 ms for the takes.
    """
    if cards.size == 0 or cards.max() > 2:
        return np.add.reduceat(x, starts, axis=axis)
    total = np.take(x, starts, axis=axis)
    two = np.flatnonzero(cards == 2)
    second = np.take(x, starts[two] + 1, axis=axis)
    if axis == 0:
        total[two] += second
    else:
        total[:, two] += second
    return total


def entropies(counts: PairCounts) -> np.ndarray:
    """Plug-in entropy ``H(X_i)`` of every variable, in nats, over the rows where it is observed.

    Examples
    --------
    >>> import pandas as pd
    >>> from treelearn.encoding._table import encode
    >>> from treelearn.stats._counts import pair_counts
    >>> h = entropies(pair_counts(encode(pd.DataFrame({"a": [0, 1, 0, 1]}))))
    >>> round(float(h[0]), 6)   # log 2
    0.693147
    """
    out = np.zeros(counts.n_variables)
    for i in range(counts.n_variables):  # d small vectors, not a hot path
        m = counts.marginal(i).astype(float)
        total = m.sum()
        if total > 0:
            p = m[m > 0] / total
            out[i] = -np.sum(p * np.log(p))
    return out


def mutual_information_matrix(counts: PairCounts, alpha: float | None = None) -> np.ndarray:
    """``d x d`` matrix of ``I(X_i; X_j)`` in nats (zero diagonal).

    Each pair uses the rows where both variables are observed. With ``alpha``, the
    MI is that of the smoothed joint ``(N_ij(a, b) + alpha) / (n_ij + k_i k_j alpha)``
    (and its own marginals), as in the standard Chow-Liu density benchmarks.

    Examples
    --------
    >>> import pandas as pd
    >>> from treelearn.encoding._table import encode
    >>> from treelearn.stats._counts import pair_counts
    >>> df = pd.DataFrame({"a": [0, 1, 0, 1], "b": [0, 1, 0, 1]})
    >>> mi = mutual_information_matrix(pair_counts(encode(df)))
    >>> round(float(mi[0, 1]), 6)   # b copies a: I = H(a) = log 2
    0.693147
    """
    d = counts.n_variables
    k = counts.cardinalities.astype(float)
    offsets = counts.offsets
    starts = offsets[:-1]
    owner = np.repeat(np.arange(d), counts.cardinalities)
    N = counts.joint.astype(float)
    # block sums (_block_sums): exact on integer counts, no K x d indicator products
    cards = counts.cardinalities
    row_marg = _block_sums(
        N, starts, cards, axis=1
    )  # [a, j]: state a (of its variable) where j is observed
    col_marg = _block_sums(N, starts, cards, axis=0)  # [i, b]
    n_pair = _block_sums(row_marg, starts, cards, axis=0)  # rows where both variables are observed
    if alpha:
        n_pair = n_pair + alpha * np.outer(k, k)
        row_marg = row_marg + alpha * k[None, :]
        col_marg = col_marg + alpha * k[:, None]
    K = N.shape[1]
    if K * K <= WHOLE_MATRIX_CELLS:  # small tables: every block at once, no loop over d
        n_exp = n_pair[owner][:, owner]
        terms = _xlogx_ratio(
            N + alpha if alpha else N,
            row_marg[:, owner],
            col_marg[owner],
            np.where(n_exp > 0, n_exp, 1.0),
        )
        # the same additions as the loop below (a block's rows added in order, one by one)
        column_sums = _block_sums(terms, starts, cards, axis=0)
        return _finish_mi(column_sums, starts, cards, n_pair)
    column_sums = np.empty((d, K))  # [i, b]: terms of block row i summed over its states
    for i in range(d):  # one block row (k_i x K) at a time: no K x K temporaries
        rows = slice(offsets[i], offsets[i + 1])
        Ni = N[rows] + alpha if alpha else N[rows]
        n_exp = n_pair[i, owner]
        # N log(N n / (R C)) summed over a block, divided by n, is the block's MI
        terms = _xlogx_ratio(
            Ni,
            row_marg[rows][:, owner],
            col_marg[i][None, :],
            np.where(n_exp > 0, n_exp, 1.0)[None, :],
        )
        column_sums[i] = terms.sum(axis=0)
    return _finish_mi(column_sums, starts, cards, n_pair)


#: one-hot widths ``K`` with ``K * K`` at most this compute every block of the MI matrix in
#: one pass (a few ``K x K`` float temporaries, 8 MiB each at the limit); wider tables go
#: one block row at a time
WHOLE_MATRIX_CELLS = 2**20


def _finish_mi(
    column_sums: np.ndarray, starts: np.ndarray, cards: np.ndarray, n_pair: np.ndarray
) -> np.ndarray:
    """The ``d x d`` MI from each block row's terms summed over its states (``d x K``)."""
    blocks = _block_sums(column_sums, starts, cards, axis=1)
    mi = np.where(n_pair > 0, blocks / np.where(n_pair > 0, n_pair, 1.0), 0.0)
    np.fill_diagonal(mi, 0.0)
    mi = np.maximum(mi, 0.0)  # rounding can leave -1e-17 on independent pairs
    return (mi + mi.T) / 2  # exact symmetry, whatever the summation order


def conditional_mutual_information_matrix(
    per_class: Sequence[PairCounts], alpha: float | None = None
) -> np.ndarray:
    """``d x d`` matrix of ``I(X_i; X_j | C) = sum_c p(c) I(X_i; X_j | C = c)``.

    ``per_class`` holds the pairwise counts within each class (see
    :func:`treelearn.stats._counts.class_pair_counts`); ``p(c)`` is taken, for each pair,
    over the rows where both variables are observed.
    """
    totals = [pc.pair_totals().astype(float) for pc in per_class]
    grand = np.sum(totals, axis=0)
    out = np.zeros_like(grand)
    for pc, n_c in zip(per_class, totals):  # loop over classes, not pairs
        if pc.n_rows == 0:
            continue
        weight = np.divide(n_c, grand, out=np.zeros_like(grand), where=grand > 0)
        out += weight * mutual_information_matrix(pc, alpha)
    return out


def miller_madow_bias(counts: PairCounts) -> np.ndarray:
    """``d x d`` matrix of the Miller-Madow bias of the plug-in mutual information of each
    pair, ``(m_ij - m_i - m_j + 1) / (2 n_ij)``, from the entropies' corrections
    ``H + (m - 1) / (2 n)`` (Miller 1955; Paninski 2003, eq. 10): ``n_ij`` the rows where
    both are observed, ``m_ij`` the joint cells seen in them, ``m_i``, ``m_j`` the states of
    each seen in them (0 where no row has both, and on the diagonal).

    The plug-in MI of a pair measured on ``n`` rows overstates the truth by about
    ``(k_i - 1)(k_j - 1) / (2 n)`` for independent columns: pairs counted on few rows
    (``missing="pairwise"``) look more dependent than they are, and subtracting this puts
    the pairs on one footing.

    >>> import pandas as pd
    >>> from treelearn.encoding._table import encode
    >>> from treelearn.stats._counts import pair_counts
    >>> df = pd.DataFrame({"a": [0, 1, 0, 1], "b": [0, 0, 1, 1]})
    >>> float(miller_madow_bias(pair_counts(encode(df)))[0, 1])  # (4 - 2 - 2 + 1) / (2 * 4)
    0.125
    """
    d = counts.n_variables
    starts = counts.offsets[:-1]
    cards = counts.cardinalities
    N = counts.joint
    seen = (N > 0).astype(float)
    cells = _block_sums(_block_sums(seen, starts, cards, axis=1), starts, cards, axis=0)
    row_marg = _block_sums(N.astype(float), starts, cards, axis=1)  # [a, j]
    states = _block_sums((row_marg > 0).astype(float), starts, cards, axis=0)  # [i, j]: m_i|j
    n_pair = _block_sums(row_marg, starts, cards, axis=0)
    bias = np.where(
        n_pair > 0, (cells - states - states.T + 1) / (2 * np.where(n_pair > 0, n_pair, 1)), 0.0
    )
    bias[np.arange(d), np.arange(d)] = 0.0
    return (bias + bias.T) / 2
