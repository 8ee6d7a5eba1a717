"""Pair statistics of a table with very wide columns, without the ``K x K`` count matrix.

:func:`~treelearn.stats._counts.pair_counts` multiplies one-hot blocks: its result is a
``K x K`` matrix (``K`` the total number of states), which one column of 10,000 states
makes 800 MB, held several times over while it is built and turned into mutual
information (4.7 GB and 88 s for such a column beside a few narrow ones). Yet the pairs of
a wide column hold at most one count per row: the wide column's block row against the
narrow columns is ``k_wide x K_narrow`` (one ``np.bincount`` over combined codes, chunked
over rows), and two wide columns meet in at most ``n`` distinct cells (``np.unique`` over
combined codes). So :class:`WideCountedTable` answers what Chow-Liu asks of its
statistics -- the mutual information of every pair, the rows each pair is observed on, the
Miller-Madow bias of each pair, every family's counts -- from the narrow columns' own pair
counts and these small tables, in memory and time linear in the rows and in ``k_wide``.
The numbers equal the ``K x K`` path's to round-off (the same sums in another order).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._base.limits import check_memory
from ..encoding._table import Table
from ._counts import CountedTable, offsets_of, pair_counts
from ._information import miller_madow_bias, mutual_information_matrix

__all__ = ["WIDE_STATES", "WideCountedTable", "counted_table", "wide_columns"]

#: a column of more states than this is counted by :class:`WideCountedTable`'s small tables
WIDE_STATES = 1000
#: combined codes (rows x narrow columns) per chunk of a wide column's block row
_CHUNK_CELLS = 2**22


def wide_columns(cardinalities: np.ndarray) -> np.ndarray:
    """Indices of the columns of more than :data:`WIDE_STATES` states.

    >>> wide_columns(np.array([2, 5000, 3])).tolist()
    [1]
    """
    return np.flatnonzero(np.asarray(cardinalities) > WIDE_STATES)


def counted_table(table: Table) -> CountedTable:
    """The statistics of an encoded table: a :class:`WideCountedTable` when a column is wide
    (:func:`wide_columns`), else :meth:`CountedTable.of_table
    <treelearn.stats._counts.CountedTable.of_table>`.

    >>> import pandas as pd
    >>> from treelearn.encoding._table import encode
    >>> type(counted_table(encode(pd.DataFrame({"a": range(1500), "b": [0, 1] * 750}), max_states=2000))).__name__
    'WideCountedTable'
    """
    if len(wide_columns(table.cardinalities)):
        return WideCountedTable(table.columns, table.states, table.dtypes, table=table)
    return CountedTable.of_table(table)


@dataclass(frozen=True)
class _PairTables:
    """Every pair's mutual information (plug-in, nats), observed rows and Miller-Madow bias."""

    mi: np.ndarray  # d x d
    rows: np.ndarray  # d x d: rows (total weight) where both are observed
    bias: np.ndarray  # d x d
    observed: np.ndarray  # d: rows where each column is observed


@dataclass(frozen=True)
class WideCountedTable(CountedTable):
    """:class:`~treelearn.stats._counts.CountedTable` of an in-memory table with wide
    columns (see the module docstring): the same answers, no ``K x K`` matrix. Its
    :attr:`counts` (the ``K x K`` matrix) is still there for whoever asks, at its cost;
    :attr:`keeps_pair_counts` is False, so a Chow-Liu tree learned from it keeps none
    (no ``partial_fit``).

    >>> import pandas as pd
    >>> from treelearn.encoding._table import encode
    >>> df = pd.DataFrame({"a": [i % 1200 for i in range(2400)], "b": [i % 2 for i in range(2400)]})
    >>> wide = WideCountedTable.of_table(encode(df, max_states=2000))
    >>> dense = CountedTable.of_table(encode(df, max_states=2000))
    >>> bool(np.allclose(wide.mutual_information(), dense.mutual_information(), rtol=0, atol=1e-12))
    True
    """

    keeps_pair_counts = False

    def mutual_information(self, mi_alpha: float | None = None) -> np.ndarray:
        """``d x d`` MI (nats) of every pair (``mi_alpha``: a pseudocount in every cell of
        every pair's joint), as :func:`~treelearn.stats._information.mutual_information_matrix`."""
        return self._pairs(mi_alpha).mi

    def pair_totals(self) -> np.ndarray:
        """``d x d`` rows (total weight) where both columns of each pair are observed."""
        return self._pairs(None).rows

    def observed_rows(self) -> np.ndarray:
        """Rows (total weight) where each column is observed."""
        return self._pairs(None).observed

    def pairwise_bias(self) -> np.ndarray:
        """``d x d`` Miller-Madow bias of each pair's plug-in MI
        (:func:`~treelearn.stats._information.miller_madow_bias`)."""
        return self._pairs(None).bias

    def _pairs(self, alpha: float | None) -> _PairTables:
        return self._plain if not alpha else _pair_tables(self._table, alpha)

    @cached_property
    def _plain(self) -> _PairTables:
        return _pair_tables(self._table, None)

    @property
    def _table(self) -> Table:
        assert self.table is not None  # built from an in-memory table
        return self.table


def _pair_tables(table: Table, alpha: float | None) -> _PairTables:
    codes, k, w = table.codes, table.cardinalities, table.weights
    d = len(k)
    wide = wide_columns(k)
    narrow = np.setdiff1d(np.arange(d), wide)
    mi, rows, bias = np.zeros((d, d)), np.zeros((d, d)), np.zeros((d, d))
    if len(narrow):
        sub = Table(
            np.ascontiguousarray(codes[:, narrow]),
            tuple(table.columns[j] for j in narrow),
            tuple(table.states[j] for j in narrow),
            (),
            w,
        )
        counts = pair_counts(sub)
        at = np.ix_(narrow, narrow)
        mi[at] = mutual_information_matrix(counts, alpha)
        rows[at] = counts.pair_totals()
        bias[at] = miller_madow_bias(counts)
    for i in wide.tolist():
        if len(narrow):
            m, r, b = _wide_block_row(codes, k, w, i, narrow, alpha)
            mi[i, narrow] = mi[narrow, i] = m
            rows[i, narrow] = rows[narrow, i] = r
            bias[i, narrow] = bias[narrow, i] = b
        for j in wide[wide > i].tolist():  # the few pairs of two wide columns
            pm, pr, pb = _wide_pair(codes, k, w, i, j, alpha)
            mi[i, j] = mi[j, i] = pm
            rows[i, j] = rows[j, i] = pr
            bias[i, j] = bias[j, i] = pb
    weights = np.ones(len(codes)) if w is None else w
    observed = weights @ (codes >= 0)
    for i in wide.tolist():
        rows[i, i] = observed[i]
    if len(narrow):
        rows[narrow, narrow] = observed[narrow]
    if w is None or bool(np.all(w == np.floor(w))):  # whole weights: counts, exactly
        rows, observed = np.rint(rows), np.rint(observed)
    return _PairTables(mi, rows, bias, observed)


def _wide_block_row(
    codes: np.ndarray,
    k: np.ndarray,
    w: np.ndarray | None,
    i: int,
    narrow: np.ndarray,
    alpha: float | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """MI, observed rows and Miller-Madow bias of wide column ``i`` with every narrow
    column: its ``k_i x K_narrow`` block row counted by one bincount per chunk of rows."""
    kn = k[narrow]
    offsets = offsets_of(kn)
    width = int(offsets[-1])
    ki = int(k[i])
    check_memory(
        8.0 * 4 * ki * width,
        f"the pair counts of a column of {ki} states with {len(narrow)} other columns",
        "lower max_states, or count fewer columns",
    )
    flat_counts = np.zeros(ki * width)
    step = max(1, _CHUNK_CELLS // max(len(narrow), 1))
    for start in range(0, len(codes), step):
        chunk = codes[start : start + step]
        ci = chunk[:, i].astype(np.int64)  # codes come in the smallest dtype: no overflow
        cn = chunk[:, narrow].astype(np.int64)
        valid = (ci >= 0)[:, None] & (cn >= 0)
        flat = ci[:, None] * width + (offsets[:-1][None, :] + cn)
        cw = None if w is None else np.broadcast_to(w[start : start + step, None], cn.shape)[valid]
        flat_counts += np.bincount(flat[valid], weights=cw, minlength=ki * width)
    N = flat_counts.reshape(ki, width)
    starts = offsets[:-1]
    R = np.add.reduceat(N, starts, axis=1)  # [a, j]: state a of i where j is observed
    C = N.sum(axis=0)  # [b]: state b of its narrow column where i is observed
    n = R.sum(axis=0)  # [j]
    owner = np.repeat(np.arange(len(narrow)), kn)
    # Miller-Madow (plug-in counts): cells seen, states of each seen, per pair
    cells = np.add.reduceat((N > 0).sum(axis=0), starts)
    states_i = (R > 0).sum(axis=0)
    states_j = np.add.reduceat((C > 0).astype(np.int64), starts)
    bias = np.where(n > 0, (cells - states_i - states_j + 1) / (2 * np.where(n > 0, n, 1)), 0.0)
    if alpha:
        N = N + alpha
        R = R + alpha * kn[None, :]
        C = C + alpha * ki
        n_s = n + alpha * ki * kn
    else:
        n_s = n
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(
            N > 0,
            N
            * (np.log(N) - np.log(R[:, owner]) - np.log(C)[None, :] + np.log(n_s[owner])[None, :]),
            0.0,
        )
    mi = np.add.reduceat(terms.sum(axis=0), starts)
    mi = np.where(n_s > 0, mi / np.where(n_s > 0, n_s, 1.0), 0.0)
    return np.maximum(mi, 0.0), n, bias


def _wide_pair(
    codes: np.ndarray, k: np.ndarray, w: np.ndarray | None, i: int, j: int, alpha: float | None
) -> tuple[float, float, float]:
    """MI, observed rows and Miller-Madow bias of two wide columns from their distinct
    cells (at most one per row); a pseudocount's ``k_i k_j`` cells in closed form."""
    both = (codes[:, i] >= 0) & (codes[:, j] >= 0)
    a, b = codes[both, i].astype(np.int64), codes[both, j].astype(np.int64)
    ki, kj = int(k[i]), int(k[j])
    cells, inverse = np.unique(a * kj + b, return_inverse=True)
    c = np.bincount(inverse, weights=None if w is None else w[both]).astype(float)
    ca, cb = cells // kj, cells % kj
    R = np.bincount(ca, weights=c, minlength=ki)
    C = np.bincount(cb, weights=c, minlength=kj)
    n = float(c.sum())
    if n == 0:
        return 0.0, 0.0, 0.0
    bias = (len(cells) - np.count_nonzero(R) - np.count_nonzero(C) + 1) / (2 * n)
    if not alpha:
        total = float(np.sum(c * (np.log(c) - np.log(R[ca]) - np.log(C[cb]) + np.log(n))))
        return max(total / n, 0.0), n, bias
    Rs, Cs, ns = R + alpha * kj, C + alpha * ki, n + alpha * ki * kj
    seen = c + alpha
    total = float(np.sum(seen * (np.log(seen) - np.log(Rs[ca]) - np.log(Cs[cb]) + np.log(ns))))
    # every unseen cell holds alpha: alpha log(alpha ns / (Rs_a Cs_b)), summed by rows and columns
    zeros_a = kj - np.bincount(ca, minlength=ki)
    zeros_b = ki - np.bincount(cb, minlength=kj)
    unseen = ki * kj - len(cells)
    total += alpha * (
        unseen * (np.log(alpha) + np.log(ns))
        - float(zeros_a @ np.log(Rs))
        - float(zeros_b @ np.log(Cs))
    )
    return max(total / ns, 0.0), n, bias
