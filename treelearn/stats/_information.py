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
    den = r * c / n
    observed = num > 0
    ok = observed & (den >= _TINY)
    # every entry's terms at once, then 0 where not ok: the same operations on the same
    # values as on the ok entries gathered (no boolean gathers and scatter, which were
    # three quarters of the MI of 200 binary columns)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        terms = np.log(num)
        terms -= np.log(den)
        terms *= num
    out = np.where(ok, terms, 0.0)
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


def _banded_blocks(counts: PairCounts, alpha: float | None) -> tuple[np.ndarray, np.ndarray]:
    """``(blocks, n_pair)`` of :func:`mutual_information_matrix`: each pair's terms summed
    (its MI times its rows) and its rows, computed over bands of block rows."""
    d = counts.n_variables
    k = counts.cardinalities.astype(float)
    cards = counts.cardinalities
    offsets = counts.offsets
    starts = offsets[:-1]
    owner = np.repeat(np.arange(d), cards)
    joint = counts.joint
    K = joint.shape[1]
    n_pair = np.empty((d, d))  # rows where both variables are observed
    blocks = np.empty((d, d))  # each block's terms summed: its MI times its rows
    # bands of block rows, each a few MiB of K-wide temporaries: one band for small tables
    # (no loop over d), and never a float copy of the whole K x K count matrix
    rows_per_band = max(1, MI_BAND_CELLS // max(K, 1))
    first = 0
    while first < d:
        last = int(np.searchsorted(offsets, offsets[first] + rows_per_band, side="right")) - 1
        last = min(max(last, first + 1), d)  # at least one variable, at most all
        band = slice(int(offsets[first]), int(offsets[last]))
        local_starts = starts[first:last] - offsets[first]
        local_cards = cards[first:last]
        N = joint[band].astype(float)
        # block sums (_block_sums): exact on integer counts, no K x d indicator products
        row_marg = _block_sums(N, starts, cards, axis=1)  # [a, j]: a where j is observed
        col_marg = _block_sums(N, local_starts, local_cards, axis=0)  # [i, b]
        pairs = _block_sums(row_marg, local_starts, local_cards, axis=0)  # [i, j]
        if alpha:
            pairs = pairs + alpha * np.outer(k[first:last], k)
            row_marg = row_marg + alpha * k[None, :]
            col_marg = col_marg + alpha * k[first:last, None]
            N += alpha
        local_owner = owner[band] - first
        n_exp = pairs[local_owner][:, owner]
        # N log(N n / (R C)) summed over a block, divided by n, is the block's MI
        terms = _xlogx_ratio(
            N, row_marg[:, owner], col_marg[local_owner], np.where(n_exp > 0, n_exp, 1.0)
        )
        # a block's rows added in order, then its columns
        column_sums = _block_sums(terms, local_starts, local_cards, axis=0)
        blocks[first:last] = _block_sums(column_sums, starts, cards, axis=1)
        n_pair[first:last] = pairs
        first = last
    return blocks, n_pair


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
    cards = counts.cardinalities
    if not alpha and 0 < d <= BINARY_MI_MAX and (cards == 2).all():
        blocks, n_pair = _binary_blocks(counts.joint)
    else:
        blocks, n_pair = _banded_blocks(counts, alpha)
    # in place (d x d matrices are the largest arrays here): MI = blocks / n, 0 without rows
    observed = n_pair > 0
    mi = np.divide(blocks, n_pair, out=blocks, where=observed)
    mi[~observed] = 0.0
    np.fill_diagonal(mi, 0.0)
    np.maximum(mi, 0.0, out=mi)  # rounding can leave -1e-17 on independent pairs
    symmetric = np.add(mi, mi.T)  # exact symmetry, whatever the summation order
    symmetric /= 2
    return symmetric


#: cells (rows x K) of each band of block rows :func:`mutual_information_matrix` computes at
#: once: a few float temporaries of 1 MiB each, whatever the table's width
MI_BAND_CELLS = 2**17

#: up to this many binary columns (no smoothing) the MI's terms are taken on the four
#: ``d x d`` cells of every pair at once (:func:`_binary_blocks`), not on ``2d x 2d``
#: bands: a quarter of the arithmetic; its ~20 temporaries stay under 11 MiB
BINARY_MI_MAX = 256


def _binary_blocks(joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(blocks, n_pair)`` of :func:`mutual_information_matrix` for binary variables (the
    ``2d x 2d`` counts ``joint``, state ``a`` of variable ``i`` at row ``2i + a``): each
    pair's four cells as ``d x d`` arrays, their marginals, rows and terms by the same
    operations in the same order as the banded computation (``_block_sums`` adds state 0's
    row or column and then state 1's), so the same doubles, whatever the counts' dtype."""
    cell = [[joint[a::2, b::2].astype(float) for b in (0, 1)] for a in (0, 1)]
    rows = [cell[a][0] + cell[a][1] for a in (0, 1)]  # [i, j]: i in state a, j observed
    cols = [cell[0][b] + cell[1][b] for b in (0, 1)]  # [i, j]: j in state b, i observed
    pairs = rows[0] + rows[1]
    n = np.where(pairs > 0, pairs, 1.0)
    terms = [[_xlogx_ratio(cell[a][b], rows[a], cols[b], n) for b in (0, 1)] for a in (0, 1)]
    # a block's rows added in order, then its columns
    blocks = (terms[0][0] + terms[1][0]) + (terms[0][1] + terms[1][1])
    return blocks, pairs


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
