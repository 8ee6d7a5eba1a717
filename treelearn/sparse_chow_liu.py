"""Chow-Liu trees of sparse high-dimensional 0/1 data without a ``d x d`` array (acCL).

Meila's accelerated Chow-Liu (1999): for a sparse 0/1 matrix (documents x terms)
almost every pair of variables never co-occurs, and the mutual information of
such a pair is a function of the row total ``n`` and the two marginal counts
alone. So only the co-occurring pairs are counted (one sparse product
``Z.T @ W Z``, kept sparse, upper triangle only) and the tree is found among

* every co-occurring pair,
* the pairs ``(0, j)`` (column 0 with every column: the only zero-weight edges
  a tree can need, since a zero edge ``(i, j)`` closes the cycle ``i - 0 - j``
  of smaller keys), and
* the never-co-occurring pairs no "hub" rules out. Order the two-state
  variables by ``(-N_v, v)`` (acCL's order by marginal count). For a pair
  ``(u, v)`` that never co-occurs, ``u`` before ``v``, any ``w`` before ``u``
  that co-occurs with neither gives the cycle ``u - w - v`` in which ``(u, v)``
  is the strict maximum key, because the MI of a never-co-occurring pair
  increases with each marginal count (checked on the rounded values at run
  time: :func:`zero_pair_information`). So ``(u, v)`` can be a tree edge only
  if every earlier variable co-occurs with ``u`` or with ``v``; the candidates
  kept are those ``v`` that co-occur with the first two earlier variables that
  ``u`` does not co-occur with.

The maximum spanning tree of the candidates, ranked by the key of the dense path
(weight rounded by :func:`treelearn.structure.round_ties`, then ``(i, j)``), is
then the tree of the complete graph: every pair left out closes a cycle of
smaller keys. MI values are computed with exactly the arithmetic of
:func:`treelearn.information.mutual_information_matrix`, so the tree equals
:func:`treelearn.structure.spanning_skeleton` on the dense matrix edge for edge.
Memory grows with the co-occurring pairs; above ``max_pairs`` a
:class:`~treelearn.errors.TreelearnError` gives the estimated size first.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import networkx as nx
import numpy as np

from .counts import binary_csr, sparse_names_and_weights, whole_weights
from .errors import StructureError, TreelearnError
from .structure import round_ties

__all__ = [
    "DEFAULT_MAX_PAIRS",
    "SPARSE_CHOW_LIU_MIN_COLUMNS",
    "SparseBinaryCounts",
    "pair_information",
    "sparse_binary_statistics",
    "sparse_spanning_skeleton",
    "zero_pair_information",
]

#: ``tl.chow_liu`` learns a scipy.sparse matrix with more columns than this with
#: this module (equal results; below it the dense K x K counts are small anyway).
SPARSE_CHOW_LIU_MIN_COLUMNS = 5000

#: The most candidate pairs (co-occurring pairs, plus the never-co-occurring
#: candidates) held at once: about 40 bytes each, so 2**28 pairs is ~10 GiB.
DEFAULT_MAX_PAIRS = 2**28

_BYTES_PER_PAIR = 40  # i, j (int32), count, MI, rank (8 bytes each) and sort scratch


def _too_many(pairs: int, max_pairs: int, what: str) -> TreelearnError:
    gib = pairs * _BYTES_PER_PAIR / 2**30
    return TreelearnError(
        f"sparse Chow-Liu would hold {pairs:,} {what} (about {gib:.1f} GiB), more than "
        f"max_pairs={max_pairs:,}; drop rare or very common columns, use fewer columns, "
        f"or raise max_pairs if the memory is there"
    )


# ---------------------------------------------------------------------- MI of pairs
def _block_information(c00, c01, c10, c11):
    """One block row's MI as mutual_information_matrix computes it (same operation order)."""
    R0, R1 = c00 + c01, c10 + c11
    C0, C1 = c00 + c10, c01 + c11
    npair = R0 + R1
    safe = np.where(npair > 0, npair, 1.0)

    def term(num, R, C):
        out = np.zeros_like(num)
        ok = num > 0
        den = (R * C) / safe
        out[ok] = num[ok] * (np.log(num[ok]) - np.log(den[ok]))
        return out

    col0 = term(c00, R0, C0) + term(c10, R1, C0)
    col1 = term(c01, R0, C1) + term(c11, R1, C1)
    m = np.where(npair > 0, (col0 + col1) / safe, 0.0)
    return np.maximum(m, 0.0)


def pair_information(
    n11: np.ndarray, ni: np.ndarray, nj: np.ndarray, n: float,
    two_i: np.ndarray | bool = True, two_j: np.ndarray | bool = True,
) -> np.ndarray:
    """MI (nats) of 0/1 pairs from ``N_11``, ``N_i``, ``N_j`` and ``n``, as the dense path gives it.

    The cells are those the dense counts hold (``N_10 = N_i - N_11``, ...,
    ``N_00 = (n - N_j) - (N_i - N_11)``; a one-state variable's block has one
    row), and the arithmetic is :func:`treelearn.information.mutual_information_matrix`'s,
    in its order, including the average of the two block orders, so the values
    are the same doubles.

    Examples
    --------
    >>> round(float(pair_information(np.array([2]), np.array([2]), np.array([2]), 4)[0]), 6)
    0.693147
    """
    n11, ni, nj = (np.asarray(a, dtype=float) for a in (n11, ni, nj))
    n = float(n)
    two_i = np.broadcast_to(np.asarray(two_i, dtype=bool), n11.shape)
    two_j = np.broadcast_to(np.asarray(two_j, dtype=bool), n11.shape)

    def cells(na, nb, two_a, two_b):
        """Block (a, b) of the dense joint: rows a's states, columns b's."""
        both = two_a & two_b
        # a one-state variable's single row is row 0, a one-state column column 0
        c11 = np.where(both, n11, 0.0)
        c10 = np.where(both, na - n11, np.where(two_a, na, 0.0))
        c01 = np.where(both, nb - n11, np.where(two_b & ~two_a, nb, 0.0))
        c00 = np.where(both, (n - nb) - (na - n11),
                       np.where(two_a, n - na, np.where(two_b, n - nb, n)))
        return c00, c01, c10, c11

    m_ij = _block_information(*cells(ni, nj, two_i, two_j))
    m_ji = _block_information(*cells(nj, ni, two_j, two_i))
    return (m_ij + m_ji) / 2


def zero_pair_information(ni: np.ndarray, nj: np.ndarray, n: float) -> np.ndarray:
    """MI of two-state 0/1 pairs that never co-occur (``N_11 = 0``): a function of the marginals.

    Increasing in each marginal count (for fixed ``n``, ``N_i + N_j <= n``):
    the sparse tree search relies on it and checks it on the values it uses.

    >>> mi = zero_pair_information(np.array([10, 10]), np.array([20, 30]), 100)
    >>> bool(mi[1] > mi[0] > 0)
    True
    """
    ni = np.asarray(ni, dtype=float)
    return pair_information(np.zeros_like(ni), ni, nj, n)


# ---------------------------------------------------------------------- statistics
@dataclass(frozen=True)
class SparseBinaryCounts:
    """The statistics of a sparse 0/1 matrix that a Chow-Liu tree needs, never ``d x d``.

    ``ones[j]`` is the (weighted) number of rows where column ``j`` is 1 and
    ``diagonal[j]`` the same from the product's diagonal; ``pair_i < pair_j``
    list the co-occurring pairs of two-state columns and ``pair_n11`` their
    counts. :meth:`family_counts` gives the marginal and pairwise counts the
    dense path gives, so CPTs are the same.
    """

    columns: tuple
    states: tuple
    dtypes: tuple
    n_rows: int | float
    ones: np.ndarray
    diagonal: np.ndarray
    pair_i: np.ndarray
    pair_j: np.ndarray
    pair_n11: np.ndarray

    @cached_property  # computed once: family_counts reads it for every node
    def cardinalities(self) -> np.ndarray:
        return np.fromiter((len(s) for s in self.states), dtype=np.int64, count=len(self.states))

    @cached_property  # pair_i is sorted: where each column's pairs start (once, not per lookup)
    def _pair_start(self) -> np.ndarray:
        return np.searchsorted(self.pair_i, np.arange(len(self.states) + 1, dtype=self.pair_i.dtype))

    def _n11(self, p: int, q: int):
        a, b = min(p, q), max(p, q)
        lo, hi = self._pair_start[a], self._pair_start[a + 1]
        k = lo + np.searchsorted(self.pair_j[lo:hi], self.pair_j.dtype.type(b))
        if k < hi and self.pair_j[k] == b:
            return self.pair_n11[k]
        return self.pair_n11.dtype.type(0)

    def family_counts(self, family: Sequence[int]) -> np.ndarray:
        """Counts of a family of one or two column indices (the node last)."""
        n = self.n_rows
        k = self.cardinalities
        if len(family) == 1:
            (i,) = family
            if k[i] == 1:
                return np.array([n])
            d = self.diagonal[i]
            return np.array([(n - self.ones[i]) - (self.ones[i] - d), d])
        if len(family) != 2:
            raise StructureError("sparse Chow-Liu counts hold families of at most two variables")
        p, q = family
        np_, nq = self.ones[p], self.ones[q]
        if k[p] == 1 and k[q] == 1:
            return np.array([[n]])
        if k[p] == 1:
            return np.array([[n - nq, nq]])
        if k[q] == 1:
            return np.array([[n - np_], [np_]])
        n11 = self._n11(p, q)
        return np.array([[(n - nq) - (np_ - n11), nq - n11], [np_ - n11, n11]])


def sparse_binary_statistics(
    matrix: Any,
    columns: Sequence[Hashable] | None = None,
    *,
    sample_weight: Any = None,
    max_pairs: int = DEFAULT_MAX_PAIRS,
    block_columns: int = 4096,
    chunk_rows: int = 2**20,
) -> SparseBinaryCounts:
    """Count a scipy.sparse 0/1 matrix (rows x variables) for :func:`sparse_spanning_skeleton`.

    The co-occurrence counts come from ``Z.T @ W Z`` taken ``block_columns``
    columns at a time, keeping the upper triangle only (as sparse arrays). Before
    the product, the number of pairs is bounded by ``sum_r s_r (s_r - 1) / 2``
    (``s_r`` ones in row ``r``); above ``max_pairs`` the bound is reported.

    >>> import scipy.sparse as sp
    >>> s = sparse_binary_statistics(sp.csr_matrix([[1, 1, 0], [1, 0, 0], [0, 0, 0]]))
    >>> s.family_counts([0, 1]).tolist()   # rows: column 0 = 0, 1; columns: column 1 = 0, 1
    [[1, 0], [1, 1]]
    """
    import scipy.sparse as sp

    names, weights = sparse_names_and_weights(matrix, columns, sample_weight)
    A, weights = binary_csr(matrix, weights)
    n, d = A.shape
    per_row = np.diff(A.indptr).astype(np.int64)
    bound = int((per_row * (per_row - 1) // 2).sum())
    if bound > max_pairs:
        raise _too_many(bound, max_pairs, "co-occurring pairs at most")
    count_ones = np.bincount(A.indices, minlength=d)
    kind = A.dtype.kind
    zero, one = (False, True) if kind == "b" else (0.0, 1.0) if kind == "f" else (0, 1)
    if kind == "b":
        states = tuple((False, True) for _ in range(d))
    else:
        states = tuple((zero, one) if 0 < c < n else ((one,) if c == n else (zero,))
                       for c in count_ones)
    two = np.array([len(s) == 2 for s in states])
    exact = whole_weights(weights)
    dtype = np.int64 if exact else np.float64
    Z = A.astype(dtype)
    ZW = Z if weights is None else sp.csr_matrix(Z.multiply(weights.astype(dtype)[:, None]))
    # as sparse_binary_counts: Z.T @ W Z over chunks of rows, column sums of W Z
    ones = count_ones.astype(dtype) if weights is None else np.asarray(ZW.sum(axis=0)).ravel()
    n_rows = n if weights is None else weights.sum()
    ZT = Z.T.tocsr()
    diagonal = np.zeros(d, dtype=dtype)
    parts_i, parts_j, parts_n = [], [], []
    for s in range(0, d, block_columns):
        e = min(d, s + block_columns)
        right = ZW[:, s:]  # columns s.. only: the upper triangle (and diagonal) of this block
        block = None
        for start in range(0, n, chunk_rows):
            stop = min(n, start + chunk_rows)
            piece = ZT[s:e, start:stop] @ right[start:stop]
            block = piece if block is None else block + piece
        block = block.tocsr()
        block.sum_duplicates()  # canonical: sorted columns per row, so pairs come in (i, j) order
        rows = np.repeat(np.arange(e - s, dtype=np.int64), np.diff(block.indptr))
        cols = block.indices.astype(np.int64)
        on_diag = rows == cols
        diagonal[rows[on_diag] + s] = block.data[on_diag]
        keep = (cols > rows) & (block.data != 0)
        keep &= two[s:e][rows] & two[s:][cols]
        parts_i.append((rows[keep] + s).astype(np.int32))
        parts_j.append((cols[keep] + s).astype(np.int32))
        parts_n.append(block.data[keep])
        del block, rows, cols, keep, on_diag
    cat = lambda parts, dt: np.concatenate(parts) if parts else np.zeros(0, dt)  # noqa: E731
    return SparseBinaryCounts(
        names, states, (matrix.dtype,) * d,
        int(n_rows) if exact else float(n_rows), ones, diagonal,
        cat(parts_i, np.int32), cat(parts_j, np.int32), cat(parts_n, dtype),
    )


# ---------------------------------------------------------------------- the tree
def _zero_candidates(stats: SparseBinaryCounts, max_pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """Never-co-occurring pairs of two-state columns that no hub rules out (a superset)."""
    two = np.flatnonzero(stats.cardinalities == 2)
    d2 = len(two)
    if d2 < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    N = stats.ones[two]
    order = np.lexsort((two, -N))  # acCL's order: marginal count descending, then column
    pos = np.empty(stats.cardinalities.size, dtype=np.int64)
    pos[two[order]] = np.arange(d2)
    pi, pj = pos[stats.pair_i], pos[stats.pair_j]
    import scipy.sparse as sp

    S = sp.csr_matrix((np.ones(2 * len(pi), dtype=np.int8),
                       (np.concatenate([pi, pj]), np.concatenate([pj, pi]))), shape=(d2, d2))
    S.sort_indices()
    deg = np.diff(S.indptr)
    row = np.repeat(np.arange(d2), deg)
    local = np.arange(S.nnz) - S.indptr[row]
    before = S.indices < row
    earlier = np.bincount(row[before], minlength=d2)
    r = np.arange(d2) - earlier  # earlier variables u does not co-occur with
    gap = S.indices - local  # missing positions below each (sorted) entry
    first = np.bincount(row[before & (gap <= 0)], minlength=d2)  # 0 + #entries with gap <= 0
    second = 1 + np.bincount(row[before & (gap <= 1)], minlength=d2)
    rows_u, rows_v = [], []
    total = 0
    # u that co-occurs with every earlier variable: every later non-neighbour is a candidate
    for p in np.flatnonzero(r == 0):
        later = np.arange(p + 1, d2)
        rows_u.append(np.full(len(later), p))
        rows_v.append(later)
        total += len(later)
        if total > max_pairs:
            raise _too_many(total, max_pairs, "candidate pairs")
    # others: later v that co-occur with the first two earlier non-neighbours of u
    # (v must co-occur with all r of them, so deg(v) >= r too)
    live = np.flatnonzero((r >= 1) & (r <= deg.max(initial=0)))
    hub1 = np.where(r[live] >= 2, second[live], -1)
    keys = first[live] * (d2 + 1) + (hub1 + 1)
    group = np.argsort(keys, kind="stable")
    bounds = np.flatnonzero(np.diff(keys[group])) + 1
    for members in np.split(live[group], bounds) if len(live) else []:
        p0 = members[0]
        w0 = first[p0]
        common = S.indices[S.indptr[w0]:S.indptr[w0 + 1]]
        if r[p0] >= 2:
            w1 = second[p0]
            common = np.intersect1d(common, S.indices[S.indptr[w1]:S.indptr[w1 + 1]],
                                    assume_unique=True)
        if not len(common):
            continue
        start = np.searchsorted(common, members, side="right")
        lengths = len(common) - start
        if not lengths.sum():
            continue
        u = np.repeat(members, lengths)
        offsets = np.repeat(start - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
        v = common[np.arange(lengths.sum()) + offsets]
        keep = deg[v] >= r[u]
        rows_u.append(u[keep])
        rows_v.append(v[keep])
        total += int(keep.sum())
        if total > max_pairs:
            raise _too_many(total, max_pairs, "candidate pairs")
    if not rows_u:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    u = np.concatenate(rows_u)
    v = np.concatenate(rows_v)
    key = u * d2 + v
    known = np.sort(np.minimum(pi, pj).astype(np.int64) * d2 + np.maximum(pi, pj))
    at = np.searchsorted(known, key)
    hit = at < len(known)
    hit[hit] = known[at[hit]] == key[hit]
    inverse = two[order]
    a, b = inverse[u[~hit]], inverse[v[~hit]]
    return np.minimum(a, b), np.maximum(a, b)


def _monotone(stats: SparseBinaryCounts) -> bool:
    """Whether the rounded MI of never-co-occurring pairs strictly increases with each
    marginal count and is positive, over the counts present (the hub argument needs it)."""
    N = stats.ones[stats.cardinalities == 2]
    if len(N) < 2:
        return True
    c = np.unique(N)
    n = stats.n_rows
    step = max(1, 2**22 // len(c))
    for s in range(0, len(c), step):
        a = c[s : s + step, None]
        b = c[None, :]
        feasible = a + b <= n
        r = round_ties(np.where(feasible, zero_pair_information(
            np.broadcast_to(a, feasible.shape).ravel(),
            np.broadcast_to(b, feasible.shape).ravel(), n).reshape(feasible.shape), np.nan))
        if (feasible & ~(r > 0)).any():
            return False
        both = feasible[:, 1:]
        if (both & ~(r[:, 1:] > r[:, :-1])).any():
            return False
    return True


def sparse_spanning_skeleton(
    stats: SparseBinaryCounts, *, max_pairs: int = DEFAULT_MAX_PAIRS
) -> nx.Graph:
    """The Chow-Liu maximum spanning tree of sparse 0/1 counts, equal to the dense path.

    Returns what :func:`treelearn.structure.spanning_skeleton` returns for the
    dense MI matrix (same nodes, ``states``, edges, ``weight`` values and edge
    order), without any ``d x d`` array.

    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0]])
    >>> sorted(sparse_spanning_skeleton(sparse_binary_statistics(X)).edges())
    [(0, 1), (0, 2)]
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree

    d = len(stats.columns)
    two = stats.cardinalities == 2
    ones = stats.ones.astype(float)
    n = stats.n_rows
    ei, ej = stats.pair_i.astype(np.int64), stats.pair_j.astype(np.int64)
    if _monotone(stats):
        zi, zj = _zero_candidates(stats, max_pairs)
    else:  # ties across counts: every never-co-occurring pair is a candidate
        if d * (d - 1) // 2 > max_pairs:
            raise _too_many(d * (d - 1) // 2, max_pairs, "candidate pairs (all pairs: the "
                            "MI of never-co-occurring pairs ties across counts)")
        zi, zj = np.triu_indices(d, k=1)
    # column 0 with every column (zero-weight edges), then drop duplicates and co-occurring pairs
    zi = np.concatenate([zi, np.zeros(d - 1, np.int64)])
    zj = np.concatenate([zj, np.arange(1, d)])
    zkey = np.unique(zi.astype(np.int64) * d + zj)
    known = ei * d + ej
    zkey = zkey[~np.isin(zkey, known, assume_unique=True)]
    zi, zj = zkey // d, zkey % d
    if len(zkey) + len(known) > max_pairs:
        raise _too_many(len(zkey) + len(known), max_pairs, "candidate pairs")
    Ia = np.concatenate([ei, zi])
    Ja = np.concatenate([ej, zj])
    n11 = np.concatenate([stats.pair_n11.astype(float), np.zeros(len(zi))])
    mi = pair_information(n11, ones[Ia], ones[Ja], n, two[Ia], two[Ja])
    rank = np.empty(len(Ia), dtype=float)
    rank[np.lexsort((Ja, Ia, -round_ties(mi)))] = np.arange(1, len(Ia) + 1)
    T = minimum_spanning_tree(coo_matrix((rank, (Ia, Ja)), shape=(d, d)).tocsr()).tocoo()
    chosen = np.argsort(T.data)  # Kruskal's order: the key's rank
    ti, tj = T.row[chosen], T.col[chosen]
    weight = {}
    by_rank = np.argsort(rank)
    picked = by_rank[np.rint(T.data[chosen]).astype(np.int64) - 1]
    for a, b, k in zip(ti.tolist(), tj.tolist(), picked.tolist()):
        weight[(min(a, b), max(a, b))] = float(mi[k])
    names = list(stats.columns)
    order = nx.Graph()  # built as spanning_skeleton builds it: the same edge order
    order.add_nodes_from(names)
    order.add_edges_from((names[min(a, b)], names[max(a, b)], {"ij": (min(a, b), max(a, b))})
                         for a, b in zip(ti.tolist(), tj.tolist()))
    G = nx.Graph()
    G.graph["n"] = n
    G.add_nodes_from((name, {"states": list(stats.states[j])}) for j, name in enumerate(names))
    for u, v, ij in order.edges(data="ij"):
        G.add_edge(u, v, weight=weight[ij])
    return G
