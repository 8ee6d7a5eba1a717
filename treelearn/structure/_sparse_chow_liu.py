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
(weight rounded by :func:`treelearn.structure._trees.round_ties`, then ``(i, j)``), is
then the tree of the complete graph: every pair left out closes a cycle of
smaller keys. It is found in two steps. First the tree of the co-occurring pairs and
column 0's alone. A never-co-occurring pair's MI is at most a bound for each of its ends
(the MI with the largest count that end can meet); where the tree's path from one column
to each end runs through edges above that end's bound, the pair closes a cycle of better
edges. So the hub candidates are sought only for the columns whose path does not
(none, on data where every column co-occurs with many: the hub search is skipped), and
the tree is then the tree of the first tree's edges and those candidates. MI values are computed with exactly the arithmetic of
:func:`treelearn.stats._information.mutual_information_matrix`, so the tree equals
:func:`treelearn.structure._trees.spanning_skeleton` on the dense matrix edge for edge.

Everything is vectorised over the pairs, never over variable pairs in Python: the
MI of a pair depends on ``(N_11, N_i, N_j)`` only, so it is computed once per cell
of a small table and looked up as an int32 rank; the tree is found by
filter-Kruskal (batches of the best edges through scipy's minimum spanning tree on
the components so far; edges inside a component dropped between batches); the hubs
come from one bitmask per variable. Memory grows with the co-occurring pairs; above ``max_pairs`` a
:class:`~treelearn.TreelearnError` gives the estimated size first.

The pairs are kept in the order the blocked product makes them (each block's rows ``i``
in turn, each row's ``j`` unsorted; ``i`` held as runs, not per pair): no pass sorts
them, since the tree needs no order. Kruskal's order is the strict total order
``(rounded MI descending, i, j)``, a key of the pair alone, so the forest it gives is
unique: the same whatever order the pairs come in, however the batches are cut (their
sizes come from a sample of the ranks) and whichever edges between nodes already joined
are dropped (an edge joining two components has an end outside the largest one, so
after a round only the edges with such an end are tested); ties in MI are broken by
``(i, j)`` as the dense path breaks them. The ``(i, j)`` order is made on first use of
``pair_i``/``pair_j``/``pair_n11`` (the lookups of :meth:`SparseBinaryCounts.family_counts`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import networkx as nx
import numpy as np

from .._base.errors import StructureError, TreelearnError
from ..stats._counts import binary_csr, drop_round_off, sparse_names_and_weights, whole_weights
from ._trees import gc_paused, orient_arrays, round_ties

__all__ = [
    "DEFAULT_MAX_PAIRS",
    "SPARSE_CHOW_LIU_MIN_COLUMNS",
    "SparseBinaryCounts",
    "family_count_stacks",
    "pair_information",
    "sparse_binary_statistics",
    "sparse_spanning_skeleton",
    "sparse_spanning_tree",
    "sparse_tree_arrays",
    "zero_pair_information",
]

#: ``tl.chow_liu`` learns a scipy.sparse matrix with more columns than this with
#: this module (equal results; below it the dense K x K counts are small anyway).
SPARSE_CHOW_LIU_MIN_COLUMNS = 5000

#: The most candidate pairs (co-occurring pairs, plus the never-co-occurring
#: candidates) held at once: about 40 bytes each, so 2**28 pairs is ~10 GiB.
DEFAULT_MAX_PAIRS = 2**28

#: the columns counted in one product (``sparse_binary_statistics``' blocks) ...
_BLOCK_COLUMNS = 4096
#: ... unless the pairs are at most this many: then all columns at once (the symmetric
#: product holds twice the pairs, ~10 MiB here; 1,000 x 5,001 at 0.2 %, 45,000 pairs: the
#: two blocks' slices of the matrix were ~1.5 ms, the product ~1 ms)
_ONE_BLOCK_PAIRS = 2**20
_CHUNK = 2**18  # pairs per step of a pass over all co-occurring pairs
_LOOKUP_CHUNK = 2**16  # pairs per step of the binary searches
_SMALL_RANKS = 2**16  # up to this many distinct MI values: uint16 ranks
_TABLE_CELLS = 2**22  # MI values computed once per (N_11, N_i, N_j) up to this many
#: fewer pairs than this per table cell of N_11 >= 1: only the cells some pair meets are
#: computed (a pass over the pairs costs ~1 % of computing a cell per pair)
_PAIRS_PER_CELL = 100
#: Kruskal's first batch of edges: this many, or fewer where the candidates are few (a
#: ``_CANDIDATES_PER_FIRST``-th of them), but at least ``_BATCH_PER_VARIABLE`` per variable;
#: then 4 times more each round. (A batch costs ~110 ns an edge in scipy's MST, a round's
#: pass over the candidates left ~8 ns each: 5,000 x 20,000 at 0.2 %, 4.0e6 candidates,
#: a first batch of 2**20 was 248 ms, of 80,000 56 ms; 20,000 x 50,000, 9.6e7 candidates:
#: 2**20 0.34-0.52 s, 200,000 0.87-0.92 s, so the batch grows with the candidates.)
_FIRST_BATCH = 2**20
_CANDIDATES_PER_FIRST = 64
_BATCH_PER_VARIABLE = 4
_MEX_BITS = 62  # earlier positions held in one uint64 bitmask per variable
#: the never-co-occurring candidates are sought only for the columns whose bound lets
#: them join the tree of the co-occurring pairs (tests switch it off: all columns)
_ZERO_PAIR_BOUNDS = True
#: Kruskal's first batch is sized from a histogram of about 2**this ranks (a sample)
_HIST_SAMPLE_BITS = 18
#: after a Kruskal round, the edges' ends are tested against the nodes outside the
#: largest component where those are at most 1/this of the nodes
_OUTSIDE_FEW = 8
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
    n11: np.ndarray,
    ni: np.ndarray,
    nj: np.ndarray,
    n: float,
    two_i: np.ndarray | bool = True,
    two_j: np.ndarray | bool = True,
) -> np.ndarray:
    """MI (nats) of 0/1 pairs from ``N_11``, ``N_i``, ``N_j`` and ``n``, as the dense path gives it.

    The cells are those the dense counts hold (``N_10 = N_i - N_11``, ...,
    ``N_00 = (n - N_j) - (N_i - N_11)``; a one-state variable's block has one
    row), and the arithmetic is :func:`treelearn.stats._information.mutual_information_matrix`'s,
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

    def snap(x):
        # the dense counts' state-0 cells go through drop_round_off (binary: 2 states, two
        # passes of the expansion): the same rule here keeps the same doubles
        return drop_round_off(np.array(x, dtype=float), n, 2 * (2 + 1))

    def cells(na, nb, two_a, two_b):
        """Block (a, b) of the dense joint: rows a's states, columns b's."""
        both = two_a & two_b
        if both.all():  # every pair two-state (the usual case): only the first branch
            return snap(snap(n - nb) - snap(na - n11)), snap(nb - n11), snap(na - n11), n11
        # a one-state variable's single row is row 0, a one-state column column 0
        c11 = np.where(both, n11, 0.0)
        c10 = np.where(both, snap(na - n11), np.where(two_a, snap(na), 0.0))
        c01 = np.where(both, snap(nb - n11), np.where(two_b & ~two_a, snap(nb), 0.0))
        c00 = np.where(
            both,
            snap(snap(n - nb) - snap(na - n11)),
            np.where(two_a, snap(snap(n) - snap(na)), np.where(two_b, snap(n - nb), snap(n))),
        )
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
    ``diagonal[j]`` the same from the product's diagonal; ``counted_i < counted_j``
    list the co-occurring pairs of two-state columns and ``counted_n11`` their
    counts, in the order the counting made them (grouped by block of ``i``, not sorted:
    the passes over the pairs need no order); :attr:`pair_i`, :attr:`pair_j` and
    :attr:`pair_n11` are the same pairs in ``(i, j)`` order, sorted on first use (the
    lookups of :meth:`family_counts` need it, the tree does not). ``first_partners``: the
    columns column 0 co-occurs with, sorted. :meth:`family_counts` gives the marginal
    and pairwise counts the dense path gives, so CPTs are the same; :meth:`direct_tree`
    the tree, and :meth:`mutual_information` says why there is no MI matrix (the
    statistics protocol of :class:`~treelearn.stats._counts.CountedTable`).
    """

    columns: tuple
    states: tuple
    dtypes: tuple
    n_rows: int | float
    ones: np.ndarray
    diagonal: np.ndarray
    counted_j: np.ndarray
    counted_n11: np.ndarray
    first_partners: np.ndarray
    #: ``counted_i`` as runs: the row of each run and where each run ends (cumulative), so
    #: a stretch of ``counted_i``, or a per-column value at it, is a repeat, not a gather
    runs: tuple[np.ndarray, np.ndarray]

    @cached_property
    def counted_i(self) -> np.ndarray:
        """The smaller column of each pair, in counting order (from :attr:`runs`, on first
        use: the tree reads the runs, not 4 bytes per pair)."""
        rows, ends = self.runs
        return np.repeat(rows, np.diff(ends, prepend=0))

    def rows_at(self, index: np.ndarray) -> np.ndarray:
        """``counted_i[index]`` from the runs (one binary search per index)."""
        rows, ends = self.runs
        return rows[np.searchsorted(ends, index, side="right")]

    def at_rows(self, values: np.ndarray, part: slice) -> np.ndarray:
        """``values[counted_i[part]]``: one repeat over the runs of rows the stretch meets.

        >>> import scipy.sparse as sp
        >>> s = sparse_binary_statistics(sp.csr_matrix([[1, 1, 1], [1, 1, 0], [0, 0, 0]]))
        >>> s.counted_i.tolist(), s.at_rows(np.array([5, 6, 7]), slice(1, 3)).tolist()
        ([0, 0, 1], [5, 6])
        """
        rows, ends = self.runs
        a, b, _ = part.indices(len(self.counted_j))
        if b <= a:
            return values[:0]
        first = int(np.searchsorted(ends, a, side="right"))
        last = int(np.searchsorted(ends, b - 1, side="right"))
        stop = np.minimum(ends[first : last + 1], b)
        start = np.maximum(np.concatenate([[a], ends[first:last]]), a)
        return np.repeat(values.take(rows[first : last + 1]), stop - start)

    @cached_property
    def _sorted_pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pairs in ``(i, j)`` order: two stable counting sorts (by ``j``, then by ``i``,
        scipy's CSR/CSC conversions, linear in the pairs), no comparison sort."""
        from scipy.sparse import coo_matrix

        d = len(self.states)
        i, j, n11 = self.counted_i, self.counted_j, self.counted_n11
        if not len(i):
            return i, j, n11
        pairs = coo_matrix((n11, (i, j)), shape=(d, d))
        pairs.has_canonical_format = True  # distinct pairs: nothing to sum (no sort)
        # coo -> csc places each pair under its j (stable); csc -> csr then lists each i's
        # j in increasing order
        by_i = pairs.tocsc().tocsr()
        rows = np.repeat(np.arange(d, dtype=i.dtype), np.diff(by_i.indptr))
        return rows, by_i.indices.astype(j.dtype, copy=False), by_i.data

    @property
    def pair_i(self) -> np.ndarray:
        """The smaller column of each co-occurring pair, the pairs in ``(i, j)`` order."""
        return self._sorted_pairs[0]

    @property
    def pair_j(self) -> np.ndarray:
        """The larger column of each co-occurring pair, the pairs in ``(i, j)`` order."""
        return self._sorted_pairs[1]

    @property
    def pair_n11(self) -> np.ndarray:
        """The (weighted) count of each co-occurring pair, the pairs in ``(i, j)`` order."""
        return self._sorted_pairs[2]

    def mutual_information(self, mi_alpha: float | None = None) -> np.ndarray:
        """Refused: the point of these statistics is never to form the ``d x d`` matrix."""
        d = len(self.columns)
        raise TreelearnError(
            f"a complete MI graph over {d} variables would have {d * (d - 1) // 2:,} edges; "
            f"learn the tree with tl.chow_liu, which never forms it, or pass fewer columns"
        )

    def direct_tree(self, settings: Any) -> nx.DiGraph:
        """The Chow-Liu tree of these counts, directed away from ``settings.root``
        (:func:`sparse_spanning_tree`), found without a ``d x d`` matrix; the options that
        need one (``settings.forest``, ``whitelist``, ``blacklist``, ``mi_alpha``) are
        refused, naming them."""
        self._refuse_dense_options(settings)
        return sparse_spanning_tree(self, settings.root)

    def tree_arrays(
        self, settings: Any, *, max_pairs: int = DEFAULT_MAX_PAIRS
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
        """The Chow-Liu tree of these counts as arrays, the graph :meth:`direct_tree` gives:
        ``(parent, child, weight, roots)``, each column's parent (``-1`` for a root), the
        children in the order the directed graph lists its edges, each child's edge MI
        (at the child's index) and the roots (indices; ``settings.root`` first). The
        options that need a ``d x d`` matrix are refused as there."""
        self._refuse_dense_options(settings)
        return sparse_tree_arrays(self, settings.root, max_pairs=max_pairs)

    def tree_arrays_and_counts(
        self, settings: Any, *, max_pairs: int = DEFAULT_MAX_PAIRS
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list, np.ndarray]:
        """:meth:`tree_arrays` and each column's ``N_11`` with its parent (at the child's
        index, 0 for a root), for :func:`family_count_stacks`."""
        self._refuse_dense_options(settings)
        return _oriented_tree(self, settings.root, max_pairs)

    def _refuse_dense_options(self, settings: Any) -> None:
        unsupported = [
            name
            for name, value in (
                ("forest", settings.forest),
                ("whitelist", settings.whitelist),
                ("blacklist", settings.blacklist),
                ("mi_alpha", settings.mi_alpha),
            )
            if value
        ]
        if unsupported:
            raise TreelearnError(
                f"{', '.join(unsupported)} cannot be used with the sparse Chow-Liu path taken "
                f"for a scipy.sparse matrix of {len(self.columns)} columns; drop the option, or "
                f"learn from fewer columns (the dense path needs a K x K count matrix)"
            )

    @cached_property  # computed once: family_counts reads it for every node
    def cardinalities(self) -> np.ndarray:
        return np.fromiter((len(s) for s in self.states), dtype=np.int64, count=len(self.states))

    @cached_property  # pair_i is sorted: where each column's pairs start (once, not per lookup)
    def _pair_start(self) -> np.ndarray:
        return np.searchsorted(
            self.pair_i, np.arange(len(self.states) + 1, dtype=self.pair_i.dtype)
        )

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

    def family_counts_many(self, families: Sequence[Sequence[int]]) -> list[np.ndarray]:
        """:meth:`family_counts` of many families at once, in order (the same values, as
        arrays of the same shapes): one vectorised pass per kind of family, not one
        binary search and a few small arrays per node (20,000 nodes in a sparse tree).

        >>> import scipy.sparse as sp
        >>> s = sparse_binary_statistics(sp.csr_matrix([[1, 1, 0], [1, 0, 0], [0, 0, 0]]))
        >>> [c.tolist() for c in s.family_counts_many([[0], [0, 1], [2]])]
        [[1, 2], [[1, 0], [1, 1]], [3]]
        """
        out: list[Any] = [None] * len(families)
        if any(len(f) not in (1, 2) for f in families):
            raise StructureError("sparse Chow-Liu counts hold families of at most two variables")
        n = self.n_rows
        k = self.cardinalities
        ones = self.ones
        single = [t for t, f in enumerate(families) if len(f) == 1]
        double = [t for t, f in enumerate(families) if len(f) == 2]
        if single:
            i = np.array([families[t][0] for t in single], dtype=np.int64)
            d = self.diagonal[i]
            rows = np.stack([(n - ones[i]) - (ones[i] - d), d], axis=1)
            one = k[i] == 1
            whole = np.array([n])
            for t, row, o in zip(single, rows, one.tolist()):
                out[t] = whole.copy() if o else row
        if double:
            pq = np.array([families[t] for t in double], dtype=np.int64).reshape(-1, 2)
            p, q = pq[:, 0], pq[:, 1]
            np_, nq = ones[p], ones[q]
            kp, kq = k[p] == 1, k[q] == 1
            both = ~kp & ~kq
            n11 = np.zeros(len(p), dtype=self.pair_n11.dtype)
            if both.any():
                a, b = np.minimum(p[both], q[both]), np.maximum(p[both], q[both])
                n11[both] = self._n11_many(a, b)
            full = np.stack([(n - nq) - (np_ - n11), nq - n11, np_ - n11, n11], axis=1)
            full = full.reshape(-1, 2, 2)
            row_only = np.stack([n - nq, nq], axis=1).reshape(-1, 1, 2)
            col_only = np.stack([n - np_, np_], axis=1).reshape(-1, 2, 1)
            whole = np.array([[n]])
            for r, t in enumerate(double):
                if kp[r]:
                    out[t] = whole.copy() if kq[r] else row_only[r]
                else:
                    out[t] = col_only[r] if kq[r] else full[r]
        return out

    def _n11_many(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``N_11`` of the pairs ``a < b`` (0 where they never co-occur), all at once."""
        found, at = _pair_lookup(self, a, b)
        n11 = np.zeros(len(a), dtype=self.pair_n11.dtype)
        n11[found] = self.pair_n11[at[found]]
        return n11


def _count_type(largest: int) -> type:
    """The smallest unsigned integer type holding ``largest`` (unweighted pair counts).

    >>> [_count_type(k).__name__ for k in (25, 255, 256, 70_000, 2**32)]
    ['uint8', 'uint8', 'uint16', 'uint32', 'uint64']
    """
    for kind in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(kind).max:
            return kind
    return np.uint64


def sparse_binary_statistics(
    matrix: Any,
    columns: Sequence[Hashable] | None = None,
    *,
    sample_weight: Any = None,
    max_pairs: int = DEFAULT_MAX_PAIRS,
    block_columns: int | None = None,
    chunk_rows: int = 2**20,
) -> SparseBinaryCounts:
    """Count a scipy.sparse 0/1 matrix (rows x variables) for :func:`sparse_spanning_skeleton`.

    The co-occurrence counts come from ``Z.T @ W Z`` taken ``block_columns``
    columns at a time, keeping the upper triangle only (as sparse arrays); ``None``: all
    columns in one product where the pairs are few (at most ``_ONE_BLOCK_PAIRS``: the
    whole symmetric product is then small, and slicing the matrix into blocks cost more
    than the product itself), else 4,096. Before
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
    if block_columns is None:
        block_columns = d if bound <= _ONE_BLOCK_PAIRS else _BLOCK_COLUMNS
    count_ones = np.bincount(A.indices, minlength=d)
    kind = A.dtype.kind
    zero, one = (False, True) if kind == "b" else (0.0, 1.0) if kind == "f" else (0, 1)
    # each column's states: one of three shared tuples, picked by one vectorised test (a
    # Python comparison of numpy scalars per column was ~30 us each: 1.5 s at 50,000 terms)
    choice = (
        np.full(d, 2)
        if kind == "b"
        else np.where(count_ones == n, 1, np.where(count_ones > 0, 2, 0))
    )
    states = tuple(map(((zero,), (one,), (zero, one)).__getitem__, choice.tolist()))
    two = choice == 2
    exact = whole_weights(weights)
    dtype = np.int64 if exact else np.float64
    # an unweighted pair count is at most the smaller column's count, and the product's
    # partial sums only grow to it: the smallest unsigned type that holds the largest column
    # count never overflows, and moves a quarter of int32's bytes (5,000 x 20,000 at 0.2 %:
    # counts <= 25, uint8; the product's cost is mostly its output)
    Z = A.astype(_count_type(int(count_ones.max(initial=0))) if weights is None else dtype)
    ZW = Z if weights is None else sp.csr_matrix(Z.multiply(weights.astype(dtype)[:, None]))
    # as sparse_binary_counts: Z.T @ W Z over chunks of rows, column sums of W Z
    ones = count_ones.astype(dtype) if weights is None else np.asarray(ZW.sum(axis=0)).ravel()
    n_rows = n if weights is None else weights.sum()
    ZT = Z.T.tocsr()  # rows: columns of Z (its rows' indices in order)
    diagonal = np.zeros(d, dtype=dtype)
    # the kept pairs are written straight into arrays of the bound's length (pages never
    # written are never resident), cut to length at the end: no list of parts concatenated
    # (which held every pair twice, and fresh memory costs more than the product here)
    value = np.result_type(ZT.dtype, ZW.dtype)
    pair_j = np.empty(bound, dtype=np.int32)
    pair_n = np.empty(bound, dtype=value)
    # a pair of a one-state column is dropped: only an all-ones column has any (an all-zero
    # one is in no product); a zero weighted count only where rows weigh 0
    drop_one_state = bool((choice == 1).any())
    drop_zeros = weights is not None
    filled = 0

    def product(s, e, lo, hi):
        """Z[:, s:e].T @ (W Z)[:, lo:hi] over chunks of rows: rows i - s, columns j - lo
        (each row's columns in no particular order: no conversion to sort them)."""
        block = None
        for start in range(0, n, chunk_rows):
            stop = min(n, start + chunk_rows)
            whole = start == 0 and stop == n  # no slicing pass over every row's columns
            if whole and e - s == d:  # one block (few pairs): the matrices as they are
                rows, right = ZT, (ZW if hi - lo == d else ZW[:, lo:hi])
            else:
                rows = ZT[s:e] if whole else ZT[s:e, start:stop]
                right = ZW[:, lo:hi] if whole else ZW[start:stop, lo:hi]
            piece = rows @ right
            block = piece if block is None else block + piece
        assert block is not None  # binary_csr refuses a matrix without rows: n > 0
        return block

    def keep(i, j, counts):
        nonlocal filled
        ok = None
        if drop_one_state:
            ok = two[i] & two[j]
        if drop_zeros:
            ok = counts != 0 if ok is None else ok & (counts != 0)
        if ok is not None:
            i, j, counts = i[ok], j[ok], counts[ok]
        stop = filled + len(i)
        pair_j[filled:stop] = j
        pair_n[filled:stop] = counts
        filled = stop
        # i ascends within a part: each row's run of pairs from d + 1 binary searches
        run_rows.append(np.arange(s, e, dtype=np.int32))
        run_lengths.append(np.diff(np.searchsorted(i, np.arange(s, e + 1, dtype=np.int32))))

    run_rows: list[np.ndarray] = []  # counted_i as runs: np.repeat(rows, lengths)
    run_lengths: list[np.ndarray] = []
    first_partners = np.zeros(0, dtype=np.int32)
    for s in range(0, d, block_columns):
        e = min(d, s + block_columns)
        # the square part (i, j both in s:e) holds the diagonal and the lower triangle;
        # the part right of it (j >= e) is all upper triangle: kept as it comes
        square = product(s, e, s, e)
        rows = np.repeat(np.arange(s, e, dtype=np.int32), np.diff(square.indptr))
        cols = square.indices.astype(np.int32, copy=False) + np.int32(s)
        diagonal[s:e] = square.diagonal()  # the block's diagonal is columns s:e's
        # the upper triangle's places, then three takes (~4x three boolean masks)
        upper = np.flatnonzero(rows < cols)
        keep(rows.take(upper), cols.take(upper), square.data.take(upper))
        if s == 0:  # row 0's partners: its columns after 0, as stored
            row0 = cols[: square.indptr[1]]
            first_partners = row0[row0 > 0]
        del square, rows, cols, upper
        if e < d:
            right = product(s, e, e, d)
            if s == 0:
                row0 = right.indices[: right.indptr[1]].astype(np.int32) + np.int32(e)
                first_partners = np.concatenate([first_partners, row0])
            if drop_one_state or drop_zeros:
                rows = np.repeat(np.arange(s, e, dtype=np.int32), np.diff(right.indptr))
                keep(rows, right.indices.astype(np.int32) + np.int32(e), right.data)
                del rows
            else:  # every pair kept: written straight into place, the rows as runs only
                stop = filled + right.nnz
                np.add(right.indices, np.int32(e), out=pair_j[filled:stop], casting="unsafe")
                pair_n[filled:stop] = right.data
                filled = stop
                run_rows.append(np.arange(s, e, dtype=np.int32))
                run_lengths.append(np.diff(right.indptr))
            del right
    for out in (pair_j, pair_n):
        out.resize(filled, refcheck=False)  # in place: the unused tail is given back
    runs = (np.concatenate(run_rows), np.cumsum(np.concatenate(run_lengths)))
    if len(first_partners) and (drop_one_state or drop_zeros):
        # as kept (the rare case): column 0's runs
        row0 = np.flatnonzero(runs[0] == 0)
        starts = np.concatenate([[0], runs[1][:-1]])[row0]
        first_partners = np.concatenate(
            [pair_j[a:b] for a, b in zip(starts.tolist(), runs[1][row0].tolist())]
        )
    stats = SparseBinaryCounts(
        names,
        states,
        (matrix.dtype,) * d,
        int(n_rows) if exact else float(n_rows),
        ones,
        diagonal,
        pair_j,
        pair_n,
        np.sort(first_partners),
        runs,
    )
    # the columns' state counts from the test above (not one len() per column's tuple)
    stats.__dict__["cardinalities"] = np.maximum(choice, 1).astype(np.int64)
    return stats


# ---------------------------------------------------------------------- the tree
def _chunks(total: int, size: int = _CHUNK, *, start: int = 0):
    """``slice`` objects covering ``range(start, total)`` in pieces of ``size``: per-pair
    passes stay within a few arrays of ``size`` elements besides the pairs themselves
    (2**18: temporaries of 1-2 MiB, under numpy's 4 MiB huge-page threshold and in cache;
    2**22 made each pass fault fresh huge pages and took ~1.5x as long)."""
    return (slice(s, min(total, s + size)) for s in range(start, total, size))


def _cooccurring(stats: SparseBinaryCounts, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether each pair ``a < b`` is a co-occurring pair: a binary search in row ``a``'s
    stretch of ``pair_j``, all pairs at once (the pairs are in ``(i, j)`` order)."""
    return _pair_lookup(stats, a, b)[0]


def _pair_lookup(stats: SparseBinaryCounts, a: np.ndarray, b: np.ndarray):
    """``(found, index)``: whether each pair ``a < b`` co-occurs and, where it does, its
    index in the pair arrays (elsewhere some index, not to be read).

    A lower-bound binary search in row ``a``'s stretch of ``pair_j``, vectorised over the
    pairs ``_LOOKUP_CHUNK`` at a time: branch-free, a fixed number of halvings per chunk
    (the bit length of its longest stretch), on arrays that stay in cache."""
    start = stats._pair_start
    pj = stats.pair_j
    a, b = np.asarray(a), np.asarray(b)
    found = np.zeros(len(a), dtype=bool)
    index = np.zeros(len(a), dtype=np.int64)
    if not len(pj):
        return found, index
    last = len(pj) - 1
    for part in _chunks(len(a), _LOOKUP_CHUNK):
        ap, bp = a[part], b[part].astype(pj.dtype, copy=False)
        lo = start[ap].astype(np.int64)
        end = start[ap + 1].astype(np.int64)
        count = end - lo
        for _ in range(int(count.max(initial=0)).bit_length()):
            half = count >> 1
            mid = lo + half
            less = (pj[np.minimum(mid, last)] < bp) & (count > 0)
            lo += np.where(less, half + 1, 0)
            count = np.where(less, count - half - 1, half)
        hit = lo < end
        hit[hit] = pj[lo[hit]] == bp[hit]
        found[part] = hit
        index[part] = lo
    return found, index


def _ctz(z: np.ndarray) -> np.ndarray:
    """Trailing zeros of each uint64 (64 for 0)."""
    return np.bitwise_count((z & (~z + np.uint64(1))) - np.uint64(1)).astype(np.int64)


def _earlier_gaps(stats, pos, d2):
    """Per position ``u`` of acCL's order: the earlier variables it co-occurs with, its
    degree, and the first two earlier positions it does not co-occur with (``-1``: none).

    The two gaps come from one bitmask of the first ``_MEX_BITS`` positions per variable
    (one pass over the pairs); the few variables that co-occur with (nearly) all of those
    are resolved from their own sorted lists of earlier neighbours."""
    earlier = np.zeros(d2, dtype=np.int64)
    deg = np.zeros(d2, dtype=np.int64)
    bits = np.zeros(d2, dtype=np.uint64)
    width = _MEX_BITS
    near_lo, near_hi = [], []  # the pairs of the first `width` positions: the usual hubs
    for part in _chunks(len(stats.counted_j)):
        p, q = pos[stats.counted_i[part]], pos[stats.counted_j[part]]
        lo, hi = np.minimum(p, q), np.maximum(p, q)
        earlier += np.bincount(hi, minlength=d2)
        deg += np.bincount(lo, minlength=d2)
        small = lo < width
        lo, hi = lo[small], hi[small]
        near_lo.append(lo)
        near_hi.append(hi)
        np.bitwise_or.at(bits, hi, np.left_shift(np.uint64(1), lo.astype(np.uint64)))
    deg += earlier
    near = np.concatenate(near_lo), np.concatenate(near_hi)
    u = np.arange(d2)
    r = u - earlier  # earlier variables u does not co-occur with
    window = np.left_shift(np.uint64(1), np.minimum(u, width).astype(np.uint64)) - np.uint64(1)
    z = ~bits & window
    z2 = z & (z - np.uint64(1))
    first = np.where(z != 0, _ctz(z), -1)
    second = np.where(z2 != 0, _ctz(z2), -1)
    unresolved = ((r >= 1) & (first < 0)) | ((r >= 2) & (second < 0))
    if unresolved.any():  # co-occurs with (nearly) all of the first `width`: read its list
        sel_lo, sel_hi = [], []
        for part in _chunks(len(stats.counted_j)):
            p, q = pos[stats.counted_i[part]], pos[stats.counted_j[part]]
            lo, hi = np.minimum(p, q), np.maximum(p, q)
            keep = unresolved[hi]
            sel_lo.append(lo[keep])
            sel_hi.append(hi[keep])
        lo, hi = np.concatenate(sel_lo), np.concatenate(sel_hi)
        order = np.lexsort((lo, hi))
        lo, hi = lo[order], hi[order]
        rank_in_row = np.arange(len(hi)) - np.searchsorted(hi, hi)
        gap = lo - rank_in_row  # earlier non-neighbours below this neighbour
        f = np.bincount(hi[gap <= 0], minlength=d2)
        s = 1 + np.bincount(hi[gap <= 1], minlength=d2)
        first[unresolved] = f[unresolved]
        second[unresolved] = np.where(r[unresolved] >= 2, s[unresolved], -1)
    return r, deg, first, second, near


def _by_count(stats: SparseBinaryCounts) -> np.ndarray:
    """The two-state columns in acCL's order: marginal count descending, then column."""
    two = np.flatnonzero(stats.cardinalities == 2)
    return two[np.lexsort((two, -stats.ones[two]))]


def _pairs_after(members: np.ndarray, pool: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(u, v)`` for each ``u`` of ``members`` and each ``v`` of ``pool`` (sorted) after it."""
    start = np.searchsorted(pool, members, side="right")
    lengths = len(pool) - start
    offsets = np.repeat(start - (np.cumsum(lengths) - lengths), lengths)
    return np.repeat(members, lengths), pool[np.arange(int(lengths.sum())) + offsets]


def _zero_candidates(
    stats: SparseBinaryCounts, max_pairs: int, needed: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Never-co-occurring pairs of two-state columns that no hub rules out (a superset),
    among the pairs with an end in ``needed`` (a mask of columns).

    A pair ``(u, v)``, ``u`` before ``v`` in acCL's order, can be a tree edge only if
    ``v`` co-occurs with every earlier variable ``u`` does not co-occur with; the ``v``
    kept are those that co-occur with the first two of them (and have the degree to
    co-occur with all). Returns ``(i, j)`` column indices, ``i < j``, sorted."""
    two = np.flatnonzero(stats.cardinalities == 2)
    d2 = len(two)
    empty = np.zeros(0, np.int64), np.zeros(0, np.int64)
    if d2 < 2:
        return empty
    inverse = _by_count(stats)
    pos = np.full(stats.cardinalities.size, -1, dtype=np.int32)
    pos[inverse] = np.arange(d2)
    r, deg, first, second, near = _earlier_gaps(stats, pos, d2)
    need = needed[inverse]  # by position

    def after(members, pool):  # (u, v), v after u in pool; v needed where u is not
        u_need = need[members]
        pairs = [
            _pairs_after(members[u_need], pool),
            _pairs_after(members[~u_need], pool[need[pool]]),
        ]
        return np.concatenate([p[0] for p in pairs]), np.concatenate([p[1] for p in pairs])

    rows_u, rows_v = [], []
    # u that co-occurs with every earlier variable: every later variable is a candidate
    u, v = after(np.flatnonzero(r == 0), np.arange(d2))
    total = len(u)
    if total > max_pairs:
        raise _too_many(total, max_pairs, "candidate pairs")
    rows_u.append(u)
    rows_v.append(v)
    live = np.flatnonzero((r >= 1) & (r <= deg.max(initial=0)))
    if len(live):
        # the hubs' neighbour lists (positions), from one pass over the pairs
        hubs = np.unique(np.concatenate([first[live], second[live][second[live] >= 0]]))
        is_hub = np.zeros(d2, dtype=bool)
        is_hub[hubs] = True
        hub_parts: list[np.ndarray] = []
        other_parts: list[np.ndarray] = []
        # the pairs with an end among the first _MEX_BITS positions were kept; others: a pass
        for p, q in (
            [near]
            if hubs.max() < _MEX_BITS
            else (
                (pos[stats.counted_i[part]], pos[stats.counted_j[part]])
                for part in _chunks(len(stats.counted_j))
            )
        ):
            for a, b in ((p, q), (q, p)):
                k = is_hub[a]
                hub_parts.append(a[k])
                other_parts.append(b[k])
        hub_of, other = np.concatenate(hub_parts), np.concatenate(other_parts)
        srt = np.lexsort((other, hub_of))
        hub_of, other = hub_of[srt], other[srt]
        hub_start = np.searchsorted(hub_of, np.arange(d2 + 1))
        neighbours = lambda w: other[hub_start[w] : hub_start[w + 1]]  # noqa: E731
        hub1 = np.where(r[live] >= 2, second[live], -1)
        keys = first[live] * (d2 + 1) + (hub1 + 1)
        group = np.argsort(keys, kind="stable")
        bounds = np.flatnonzero(np.diff(keys[group])) + 1
        # one group per pair of hubs (few: the hubs are the most frequent variables)
        for members in np.split(live[group], bounds):
            p0 = members[0]
            common = neighbours(first[p0])
            if r[p0] >= 2:
                common = np.intersect1d(common, neighbours(second[p0]), assume_unique=True)
            u, v = after(members, common)
            if not len(u):
                continue
            keep = deg[v] >= r[u]
            rows_u.append(u[keep])
            rows_v.append(v[keep])
            total += int(keep.sum())
            if total > max_pairs:
                raise _too_many(total, max_pairs, "candidate pairs")
    u, v = np.concatenate(rows_u), np.concatenate(rows_v)
    a, b = inverse[u], inverse[v]
    # sorted first (the binary searches then walk the pairs in order), as one int64 key per
    # pair: one sort of the keys, no lexsort and gathers (the pairs are distinct)
    d = stats.cardinalities.size
    key = np.minimum(a, b).astype(np.int64) * d + np.maximum(a, b)
    del u, v, a, b, rows_u, rows_v
    key.sort()
    i, j = np.divmod(key, d)
    keep = ~_cooccurring(stats, i, j)
    return i[keep], j[keep]


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
        r = round_ties(
            np.where(
                feasible,
                zero_pair_information(
                    np.broadcast_to(a, feasible.shape).ravel(),
                    np.broadcast_to(b, feasible.shape).ravel(),
                    n,
                ).reshape(feasible.shape),
                np.nan,
            )
        )
        if (feasible & ~(r > 0)).any():
            return False
        both = feasible[:, 1:]
        if (both & ~(r[:, 1:] > r[:, :-1])).any():
            return False
    return True


@dataclass(frozen=True)
class _RankScale:
    """How :func:`_ranks` numbered the rounded MI values: ``distinct``, ascending (rank ``k``
    is ``distinct[-1 - k]``), and where pairs were looked up in a table of ``(N_11, N_i,
    N_j)`` cells, the cells' ranks (``table``; ``None`` without one) and each column's
    place among the distinct marginal counts (``column_class``, ``n_classes`` of them)."""

    distinct: np.ndarray
    table: np.ndarray | None
    column_class: np.ndarray
    n_classes: int

    def value(self, rank: np.ndarray) -> np.ndarray:
        """The rounded MI of each rank."""
        return self.distinct[len(self.distinct) - 1 - rank.astype(np.int64)]

    def zero_pair_ranks(self, zi: np.ndarray, zj: np.ndarray) -> np.ndarray | None:
        """Ranks of never-co-occurring pairs of two-state columns on this scale, from the
        table's ``N_11 = 0`` cells, which hold every such pair's value; ``None`` without a
        table (the values may then be missing from ``distinct``)."""
        if self.table is None:
            return None
        return self.class_zero_ranks(self.column_class[zi], self.column_class[zj])

    def class_zero_ranks(self, ca: np.ndarray, cb: np.ndarray) -> np.ndarray:
        """The table's ``N_11 = 0`` ranks of marginal classes ``ca`` and ``cb`` (broadcast);
        asked of a scale with a table only."""
        assert self.table is not None  # the callers check that the scale has a table
        return self.table[ca * self.n_classes + cb]


def _ranks(
    stats: SparseBinaryCounts, zi: np.ndarray, zj: np.ndarray
) -> tuple[np.ndarray, np.ndarray, _RankScale]:
    """Each candidate's place in the dense path's order of rounded MI (0 = largest; equal
    rounded MI, equal rank): the co-occurring pairs first, then the pairs ``(zi, zj)``
    (``N_11 = 0``), as one uint16 array (int32 above 2**16 distinct values), about how many
    candidates have each rank (from a sample: Kruskal's first batch is sized by it), and the scale
    (:class:`_RankScale`) that ranks more pairs the same way.

    The MI of a pair is a function of ``(N_11, N_i, N_j)``. With integer counts it is
    computed once per cell of a table over ``N_11 = 0 .. levels`` and the distinct
    marginal counts (``_TABLE_CELLS`` at most: the small ``N_11`` almost every pair
    has) and looked up per pair; the other pairs are computed directly, in chunks."""
    two = stats.cardinalities == 2
    ones = stats.ones.astype(float)
    n = stats.n_rows
    n_co, n_z = len(stats.counted_j), len(zi)
    c = np.unique(ones[two]) if two.any() else np.zeros(1)
    K = len(c)
    cidx = np.searchsorted(c, ones).astype(np.int32)
    top = int(stats.counted_n11.max(initial=0))
    levels = -1  # N_11 = 0 .. levels go through the table
    if stats.counted_n11.dtype.kind in "iu" and K * K <= _TABLE_CELLS:
        levels = min(top, _TABLE_CELLS // (K * K) - 1)
    zero_two = two[zi] & two[zj]

    def direct(n11, i, j):
        return round_ties(pair_information(n11, ones[i], ones[j], n, two[i], two[j]))

    values = []  # rounded MI of every table cell and of every pair computed directly
    if levels >= 0:
        size = (levels + 1) * K * K
        row_key = cidx * np.int32(K)  # a pair's table cell: N_11 K^2 + cidx[i] K + cidx[j]
        if n_co < _PAIRS_PER_CELL * (size - K * K):
            # a table large for the pairs (many distinct counts: text-like data): only the
            # cells some pair meets, found in one pass, and all of N_11 = 0 (the
            # never-co-occurring pairs, whose ranks :class:`_RankScale` gives later)
            present = np.zeros(size, dtype=bool)
            present[: K * K] = True
            for part in _chunks(n_co):
                n11 = stats.counted_n11[part]
                near = n11 <= levels
                present[
                    n11[near].astype(np.int32) * np.int32(K * K)
                    + row_key[stats.counted_i[part][near]]
                    + cidx[stats.counted_j[part][near]]
                ] = True
            cells = np.flatnonzero(present)
            del present
        else:
            cells = np.arange(size)
        n11, ca, cb = cells // (K * K), c[(cells // K) % K], c[cells % K]
        valid = (n11 <= np.minimum(ca, cb)) & (ca + cb - n11 <= n)  # counts a table can meet
        cells = cells[valid]
        cell_r = round_ties(pair_information(n11[valid], ca[valid], cb[valid], n))
        values.append(cell_r)
        del n11, ca, cb
    direct_parts: list[np.ndarray] = []
    direct_r: list[np.ndarray] = []
    if top > levels:
        for part in _chunks(n_co):
            far = np.flatnonzero(stats.counted_n11[part] > levels) + part.start
            direct_parts.append(far)
            direct_r.append(
                direct(
                    stats.counted_n11[far].astype(float), stats.counted_i[far], stats.counted_j[far]
                )
            )
    direct_co = np.concatenate(direct_parts) if direct_parts else np.zeros(0, np.int64)
    direct_co_r = np.concatenate(direct_r) if direct_r else np.zeros(0)
    z_direct = ~zero_two if levels >= 0 else np.ones(n_z, dtype=bool)
    z_r = direct(np.zeros(int(z_direct.sum())), zi[z_direct], zj[z_direct])
    values += [direct_co_r, z_r]
    distinct = np.unique(np.concatenate(values))

    # uint16 ranks where they fit (exact: integers below 2**16): half the bytes of the one
    # array of all pairs, and of its fresh memory
    n_ranks = len(distinct)
    dtype = np.uint16 if n_ranks <= _SMALL_RANKS else np.int32

    def rank_of(r):  # largest rounded MI first
        return (n_ranks - 1 - np.searchsorted(distinct, r)).astype(dtype)

    rank = np.empty(n_co + n_z, dtype=dtype)
    table = None
    if levels >= 0:
        table = np.zeros(size, dtype=dtype)  # cells no pair meets: never looked up
        table[cells] = rank_of(cell_r)
        for part in _chunks(n_co):
            # np.take: the same gathers as indexing, ~1.3x faster on these int32 arrays
            n11 = stats.counted_n11[part]
            key = stats.at_rows(row_key, part)
            key += cidx.take(stats.counted_j[part])
            if top > levels:
                ok = n11 <= levels
                rank[part][ok] = table[n11[ok].astype(np.int32) * np.int32(K * K) + key[ok]]
            else:
                key += n11.astype(np.int32) * np.int32(K * K)
                # every key is a cell of the table: "clip" changes none, and lets take
                # write into place (mode "raise" buffers the output)
                table.take(key, out=rank[part], mode="clip")
        zt = np.flatnonzero(zero_two)
        rank[n_co + zt] = table[cidx[zi[zt]] * np.int32(K) + cidx[zj[zt]]]
    rank[direct_co] = rank_of(direct_co_r)
    rank[n_co + np.flatnonzero(z_direct)] = rank_of(z_r)
    # the histogram only sizes Kruskal's first batch (any batch gives the same forest): from
    # every stride-th rank, scaled, a pass over ~2**18 ranks instead of all (5,000 x 20,000:
    # a bincount of all 4.0 M ranks was ~10 ms)
    stride = max(1, len(rank) >> _HIST_SAMPLE_BITS)
    hist = np.bincount(rank[::stride], minlength=n_ranks).astype(np.int64) * stride
    return rank, hist, _RankScale(distinct, table, cidx, K)


class _Rows:
    """``stats.counted_i`` read through its runs (slices by a repeat, index arrays by binary
    searches), never formed: what :class:`_Joined` needs of it."""

    def __init__(self, stats: SparseBinaryCounts) -> None:
        self.stats = stats
        self.identity = np.arange(len(stats.columns), dtype=np.int32)

    def __len__(self) -> int:
        return len(self.stats.counted_j)

    @property
    def dtype(self) -> np.dtype:
        return self.identity.dtype

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self.stats.at_rows(self.identity, key)
        return self.stats.rows_at(key)


class _Joined:
    """Two index arrays read as their concatenation (``x[k]`` for slices and index arrays),
    without forming it: the co-occurring pairs' ends and the candidates' (a copy would be
    another 8 bytes per pair, 0.8 GiB at 10**8 pairs)."""

    def __init__(self, first: np.ndarray | _Rows, second: np.ndarray) -> None:
        self.first, self.second, self.split = first, second, len(first)

    def __len__(self) -> int:
        return self.split + len(self.second)

    def __getitem__(self, key):
        n = self.split
        if isinstance(key, slice):
            start, stop, _ = key.indices(len(self))
            if stop <= n:
                return self.first[start:stop]
            if start >= n:
                return self.second[start - n : stop - n]
            return np.concatenate([self.first[start:], self.second[: stop - n]])
        key = np.asarray(key)
        out = np.empty(key.shape, dtype=np.result_type(self.first.dtype, self.second.dtype))
        low = key < n
        out[low] = self.first[key[low]]
        out[~low] = self.second[key[~low] - n]
        return out


def _kruskal_order(ei: np.ndarray, ej: np.ndarray, rank: np.ndarray, d: int) -> np.ndarray:
    """The permutation that sorts edges by ``(rank, ei, ej)`` ascending (ends below ``d``).

    One argsort of the int64 key ``(rank d + ei) d + ej`` where it fits (the key is
    the lexicographic order itself, and distinct for distinct edges: any sort gives the
    same permutation), ~7x faster than ``np.lexsort`` of the three arrays (1,000,000 edges:
    31 vs 212 ms); ``np.lexsort`` beyond.

    >>> _kruskal_order(np.array([2, 0, 1]), np.array([3, 1, 2]), np.array([0, 1, 0]), 4).tolist()
    [2, 0, 1]
    """
    top = int(rank.max(initial=0)) + 1
    if top * d * d < 2**62:
        key = rank.astype(np.int64) * d
        key += ei
        key *= d
        key += ej
        return np.argsort(key)
    return np.lexsort((ej, ei, rank))


def _outside_pick(outside, comp, ei, ej, ix, rank, threshold, near=None) -> np.ndarray:
    """The edges ``ix`` (a slice or indices) ranked after ``threshold`` that join two
    components, as edge indices: tested
    only where an end is ``outside`` (uint8 per node) the largest component, which every
    such edge has. ``near``: ``outside[ei[ix]]`` where the caller has it."""
    near = outside.take(ei[ix]) if near is None else near
    near |= outside.take(ej[ix])
    at = np.flatnonzero(near.view(bool))  # uint8 0/1 read as bool: no conversion pass
    edge = at + ix.start if isinstance(ix, slice) else ix[at]
    keep = (rank[edge] > threshold) & (comp[ei[edge]] != comp[ej[edge]])
    return edge[keep]


def _spanning_forest(
    ei: Any,
    ej: Any,
    rank: np.ndarray,
    d: int,
    hist: np.ndarray | None = None,
    first_at: Any = None,
) -> np.ndarray:
    """Kruskal's maximum spanning forest under the order ``(rank, ei, ej)`` ascending (a strict
    order, so the forest is unique), as indices into the edge arrays, in Kruskal's order.
    The edges must be distinct pairs of nodes (every caller's candidates are).

    Filter-Kruskal: the best edges, a batch picked from a histogram of the ranks,
    go to scipy's ``minimum_spanning_tree`` over the current components (their order
    as weights, parallel edges reduced to the first); the remaining edges that now
    join one component are dropped; repeat with a larger batch. ``hist``: the histogram
    of all the ranks, where the caller has it (one pass fewer). The batch is ordered by
    one int64 key (:func:`_kruskal_order`), and parallel edges are looked for only where
    the batch has some (never in the first round: distinct pairs of single nodes).
    ``first_at(values, p)``: ``values[ei[p]]`` for a slice ``p``, where the caller has a
    faster way than the gather (the co-occurring pairs' rows as runs)."""
    from scipy.sparse import coo_matrix, csr_matrix
    from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

    comp = np.arange(d, dtype=np.int32)
    nc = d
    alive = None  # all edges
    index = np.int32 if len(rank) < 2**31 else np.int64
    chosen_parts: list[np.ndarray] = []
    target = max(1, _BATCH_PER_VARIABLE * d, min(_FIRST_BATCH, len(rank) // _CANDIDATES_PER_FIRST))
    while nc > 1:
        total = len(rank) if alive is None else len(alive)
        if not total:
            break

        def pieces(alive=alive, total=total):
            # (what to index the edge arrays with, how to turn a mask into edge indices)
            for p in _chunks(total):
                if alive is None:  # first round: plain slices, no gathers
                    yield p, lambda m, p=p: (np.flatnonzero(m) + p.start).astype(index)
                else:
                    ix = alive[p]
                    yield ix, lambda m, ix=ix: ix[m]

        if alive is not None or hist is None:
            hist = np.zeros(1, dtype=np.int64)
            for ix, _ in pieces():
                h = np.bincount(rank[ix])
                hist = np.pad(hist, (0, max(0, len(h) - len(hist))))
                hist[: len(h)] += h
        cum = np.cumsum(hist)
        threshold = int(np.searchsorted(cum, min(target, int(cum[-1]))))
        batch = np.concatenate([pick(rank[ix] <= threshold) for ix, pick in pieces()])
        eb, fb = ei[batch], ej[batch]
        single = nc == d  # every node its own component (the first round): no edge inside one
        a, b = (eb, fb) if single else (comp[eb], comp[fb])
        if not single:
            cross = a != b
            batch, a, b, eb, fb = batch[cross], a[cross], b[cross], eb[cross], fb[cross]
        if len(batch):
            order = _kruskal_order(eb, fb, rank[batch], d)
            batch, a, b = batch[order], a[order], b[order]
            lo, hi = np.minimum(a, b), np.maximum(a, b)
            weight = np.arange(1, len(batch) + 1, dtype=float)  # the order, as weights
            # (coo -> csr sums parallel edges: fewer entries than edges says there are some;
            # between single nodes the edges are distinct pairs: none to sum, no sort)
            pairs = coo_matrix((weight, (lo, hi)), shape=(nc, nc))
            pairs.has_canonical_format = single
            graph = pairs.tocsr()
            first = None
            if graph.nnz < len(batch):
                # of parallel edges (one pair of components) only the first can be chosen
                _, first = np.unique(lo.astype(np.int64) * nc + hi, return_index=True)
                first.sort()
                weight = np.arange(1, len(first) + 1, dtype=float)
                graph = csr_matrix((weight, (lo[first], hi[first])), shape=(nc, nc))
            T = minimum_spanning_tree(graph)
            picked = np.rint(T.data).astype(np.int64) - 1
            chosen_parts.append(batch[picked if first is None else first[picked]])
            nc, label = connected_components(T, directed=False)
            comp = label[comp]
        if nc == 1:  # one component: every edge left is inside it (no pass to drop them)
            break
        # an edge joining two components has an end outside the largest: where those ends
        # are few, one test of each end against them (a gather from a small mask) finds
        # the few edges to compare, instead of both ends' components for every edge
        sizes = np.bincount(comp, minlength=nc)
        outside = (comp != np.argmax(sizes)).view(np.uint8)
        if d - int(sizes.max()) <= d // _OUTSIDE_FEW:
            parts = []
            for ix, _ in pieces():
                first = None if first_at is None or alive is not None else first_at(outside, ix)
                at = _outside_pick(outside, comp, ei, ej, ix, rank, threshold, first)
                parts.append(at)
            alive = np.concatenate(parts)
        else:
            alive = np.concatenate(
                [
                    pick((rank[ix] > threshold) & (comp[ei[ix]] != comp[ej[ix]]))
                    for ix, pick in pieces()
                ]
            )
        target *= 4
    chosen = np.concatenate(chosen_parts) if chosen_parts else np.zeros(0, np.int64)
    return chosen[_kruskal_order(ei[chosen], ej[chosen], rank[chosen], d)]


def _ranked_zero_candidates(
    stats: SparseBinaryCounts,
    needed: np.ndarray,
    worst: np.ndarray,
    scale: _RankScale,
    max_pairs: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The never-co-occurring pairs ``(x, y)`` of two-state columns, ``x`` in ``needed``, that
    rank (:class:`_RankScale`, the table's ``N_11 = 0`` cells) no later than ``worst[x]``, the
    largest rank on ``x``'s path in the tree of the co-occurring pairs: any other such pair
    ranks after every edge of its ends' paths (:func:`_columns_zero_pairs_may_join`) and
    closes a cycle of better edges. The MI of such a pair grows with ``N_y``, so each ``x``
    takes the columns of a count at least some threshold: a prefix of the columns by count.
    Returns ``(i, j)``, ``i < j``, sorted."""
    two = np.flatnonzero(stats.cardinalities == 2)
    by_count = _by_count(stats)
    K, cls = scale.n_classes, scale.column_class
    # columns of class k or more (the classes are the distinct counts, ascending)
    at_least = np.cumsum(np.bincount(cls[two], minlength=K)[::-1])[::-1]
    xs = np.flatnonzero(needed)
    prefix = np.zeros(len(xs), dtype=np.int64)
    step = max(1, 2**22 // K)
    for s in range(0, len(xs), step):  # the smallest class of rank <= worst[x], per x
        x = xs[s : s + step]
        ok = scale.class_zero_ranks(cls[x][:, None], np.arange(K)[None, :]) <= worst[x][:, None]
        first = np.where(ok.any(axis=1), ok.argmax(axis=1), K)
        prefix[s : s + step] = np.append(at_least, 0)[first]
    total = int(prefix.sum())
    if total > max_pairs:
        raise _too_many(total, max_pairs, "candidate pairs")
    u = np.repeat(xs, prefix)
    v = by_count[np.arange(total) - np.repeat(np.cumsum(prefix) - prefix, prefix)]
    other = u != v
    d = stats.cardinalities.size
    key = np.unique(np.minimum(u, v)[other].astype(np.int64) * d + np.maximum(u, v)[other])
    i, j = np.divmod(key, d)
    keep = ~_cooccurring(stats, i, j)
    return i[keep], j[keep]


def _never_cooccurring_candidates(
    stats: SparseBinaryCounts, max_pairs: int, monotone: bool, needed: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The never-co-occurring pairs with an end in ``needed`` that can be tree edges (a
    superset), ``i < j``: those no hub rules out (:func:`_zero_candidates`) or, where the MI
    of such pairs ties across counts (``monotone`` False: :func:`_monotone`), all of them."""
    if monotone:
        return _zero_candidates(stats, max_pairs, needed)
    d = len(stats.columns)
    if d * (d - 1) // 2 > max_pairs:
        raise _too_many(
            d * (d - 1) // 2,
            max_pairs,
            "candidate pairs (all pairs: the MI of never-co-occurring pairs ties across counts)",
        )
    zi, zj = np.triu_indices(d, k=1)
    keep = (needed[zi] | needed[zj]) & ~_cooccurring(stats, zi, zj)
    return zi[keep], zj[keep]


def _kruskal(stats: SparseBinaryCounts, max_pairs: int):
    """Kruskal's forest over the co-occurring pairs and column 0 with every other column
    (the only zero-weight edges a tree can need): ``(ei, ej, rank, scale, chosen)``, the
    candidates' ends, ranks and their scale (:func:`_ranks`) and the chosen candidates in
    Kruskal's order."""
    d = len(stats.columns)
    n_co = len(stats.counted_j)
    partner = np.zeros(d, dtype=bool)
    partner[stats.first_partners] = True
    zj = np.flatnonzero(~partner[1:]) + 1  # the columns column 0 never co-occurs with
    zi = np.zeros(len(zj), np.int64)
    if n_co + len(zi) > max_pairs:
        raise _too_many(n_co + len(zi), max_pairs, "candidate pairs")
    rank, hist, scale = _ranks(stats, zi, zj)
    index = np.int32 if d < 2**31 else np.int64
    ei = _Joined(_Rows(stats), zi.astype(index))
    ej = _Joined(stats.counted_j.astype(index, copy=False), zj.astype(index))

    def first_at(values: np.ndarray, p: slice) -> np.ndarray:  # values[ei[p]], by runs
        if p.stop <= n_co:
            return stats.at_rows(values, p)
        return values.take(ei[p])

    return ei, ej, rank, scale, _spanning_forest(ei, ej, rank, d, hist, first_at)


def _zero_pair_bounds(stats: SparseBinaryCounts, partner: np.ndarray | None = None) -> np.ndarray:
    """Per column, the largest rounded MI of a never-co-occurring pair of two-state columns
    it can be in (``-inf``: none), as that MI grows with each count (:func:`_monotone`): with
    the largest marginal count it can meet (``N_i + N_j <= n``), or at most ``partner``
    (per column: a bound on the counts of the columns it never co-occurs with)."""
    two = stats.cardinalities == 2
    ones = stats.ones.astype(float)
    c = np.unique(ones[two])
    best = np.searchsorted(c, stats.n_rows - ones[two], side="right") - 1
    if partner is not None:
        best = np.minimum(best, np.searchsorted(c, partner[two], side="right") - 1)
    ok = best >= 0
    bound = np.full(len(ones), -np.inf)
    at = np.flatnonzero(two)[ok]
    # a function of (the column's count, the partner's count): computed once per distinct
    # pair of the few distinct counts, the same doubles, then spread to the columns
    own = np.searchsorted(c, ones[at])
    cells, back = np.unique(own * len(c) + best[ok], return_inverse=True)
    values = zero_pair_information(c[cells // len(c)], c[cells % len(c)], stats.n_rows)
    bound[at] = round_ties(values)[back.ravel()]
    return bound


def _largest_non_partner(stats: SparseBinaryCounts) -> np.ndarray:
    """Per two-state column, a bound on the marginal counts of the two-state columns it
    never co-occurs with: the count of the first of the ``_MEX_BITS`` most frequent it
    does not co-occur with, else the next count down (one bitmask per column, one pass
    over the pairs)."""
    order = _by_count(stats)
    counts = stats.ones[order].astype(float)
    top = order[:_MEX_BITS]
    slot = np.full(stats.cardinalities.size, -1, dtype=np.int64)
    slot[top] = np.arange(len(top))
    bits = np.zeros(stats.cardinalities.size, dtype=np.uint64)
    bits[top] = np.left_shift(np.uint64(1), slot[top].astype(np.uint64))  # itself
    for part in _chunks(len(stats.counted_j)):
        i, j = stats.counted_i[part], stats.counted_j[part]
        for a, b in ((i, j), (j, i)):
            s = slot[a]
            near = s >= 0
            np.bitwise_or.at(bits, b[near], np.left_shift(np.uint64(1), s[near].astype(np.uint64)))
    window = np.uint64(2 ** len(top) - 1)
    gap = ~bits & window
    beyond = counts[len(top)] if len(counts) > len(top) else -np.inf
    found = gap != 0
    return np.where(found, counts[np.minimum(_ctz(gap), len(top) - 1)], beyond)


def _columns_zero_pairs_may_join(
    stats: SparseBinaryCounts,
    ti: np.ndarray,
    tj: np.ndarray,
    tree_rank: np.ndarray,
    scale: _RankScale,
    monotone: bool,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The columns (a mask) whose never-co-occurring pairs may join the forest ``(ti, tj)`` of
    the co-occurring pairs (and column 0's), edge ranks ``tree_rank``: every such pair that
    can be a tree edge of all candidates has an end among them. Also each column's largest
    rank on its path (``None`` where no bound was taken): a pair ranked after both its ends'
    largest ranks closes a cycle of better edges.

    Such a pair ``(u, v)`` (two-state columns only; the other columns' edges are the same
    either way) has rounded MI at most ``min(b_u, b_v)`` (:func:`_zero_pair_bounds`). Take
    the forest's paths from one two-state column (the root). Where both ``u`` and ``v``
    are reached and every edge on the path to ``u`` has rounded MI above ``b_u``, and on
    the path to ``v`` above ``b_v``, the path from ``u`` to ``v`` runs through edges above
    ``min(b_u, b_v)``: the pair closes a cycle of edges ahead of it in Kruskal's order and
    is no tree edge. So only the columns not reached, or whose path has an edge at or
    below their bound, are kept. The bounds need the MI of such pairs to grow with each
    count (``monotone``: :func:`_monotone`; else every two-state column is kept). The
    largest rank on each path comes from pointer doubling on the parents of one
    breadth-first search."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import breadth_first_order

    two = stats.cardinalities == 2
    if two.sum() < 2 or not monotone or not _ZERO_PAIR_BOUNDS:
        return (two if two.sum() >= 2 else np.zeros_like(two)), None
    d = len(stats.columns)
    root = int(np.flatnonzero(two)[0])
    edges = coo_matrix((np.ones(len(ti)), (ti, tj)), shape=(d, d))
    edges.has_canonical_format = True  # a forest's edges are distinct: nothing to sum
    forest = edges.tocsr()
    _, pred = breadth_first_order(forest, root, directed=False, return_predecessors=True)
    reached = pred >= 0
    reached[root] = True
    # each edge of the root's tree hangs below its parent end: its rank on that child
    inside = reached[ti]
    a, b, r = ti[inside], tj[inside], tree_rank[inside].astype(np.int64)
    child = np.where(pred[b] == a, b, a)
    worst = np.full(d, -1, dtype=np.int64)  # the largest rank on the path to the root
    worst[child] = r
    up = np.where(reached, pred, np.arange(d))
    up[root] = root
    for _ in range(int(d).bit_length()):  # after k rounds: the 2**k nearest edges up
        worst = np.maximum(worst, worst[up])
        higher = up[up]
        if np.array_equal(higher, up):  # every node's pointer at its root: nothing to add
            break
        up = higher
    distinct = scale.distinct

    def kept(bound):  # rank k has rounded MI above the bound iff k < the bound's limit
        limit = len(distinct) - np.searchsorted(distinct, bound, side="right")
        return two & (~reached | (worst >= limit))

    # with each column's largest count it can meet, then (one pass over the pairs) with the
    # counts of the columns it never co-occurs with
    may_join = kept(_zero_pair_bounds(stats))
    if may_join.any():
        may_join &= kept(_zero_pair_bounds(stats, _largest_non_partner(stats)))
    worst[~reached] = np.iinfo(np.int64).max  # no path: any pair may join
    return may_join, worst


def _tree_edges(
    stats: SparseBinaryCounts, max_pairs: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The Chow-Liu tree's edges ``(i, j)``, ``i < j``, in Kruskal's order, their MI (the
    dense path's values) and their ``N_11`` (0 for a never-co-occurring pair): see the
    module docstring."""
    d = len(stats.columns)
    two = stats.cardinalities == 2
    n = stats.n_rows
    n_co = len(stats.counted_j)
    # Kruskal over the co-occurring pairs and column 0's first: the tree, unless a
    # never-co-occurring pair can enter it
    ei, ej, rank, scale, chosen = _kruskal(stats, max_pairs)
    ti, tj = ei[chosen].astype(np.int64), ej[chosen].astype(np.int64)
    n11 = np.zeros(len(chosen))
    n11[chosen < n_co] = stats.counted_n11[chosen[chosen < n_co]]
    tree_rank = rank[chosen]
    del ei, ej, rank, chosen
    monotone = _monotone(stats)
    needed, worst = _columns_zero_pairs_may_join(stats, ti, tj, tree_rank, scale, monotone)
    if needed.any():
        # the tree of all candidates is the tree of the first tree's edges and the
        # never-co-occurring candidates (an edge left out closes a cycle of better ones)
        if worst is not None and scale.table is not None:
            zi, zj = _ranked_zero_candidates(stats, needed, worst, scale, max_pairs)
        else:
            zi, zj = _never_cooccurring_candidates(stats, max_pairs, monotone, needed)
        later = zi != 0  # column 0's pairs were candidates already
        zi, zj = zi[later], zj[later]
        # from the hubs, two-state pairs only: their ranks are on the table if there is one
        zero_rank = scale.zero_pair_ranks(zi, zj) if monotone else None
        if zero_rank is not None:
            rank = np.concatenate([tree_rank, zero_rank])
        else:  # ranked anew, together with the tree's values
            ones = stats.ones.astype(float)
            weight = np.concatenate(
                [
                    scale.value(tree_rank),
                    round_ties(
                        pair_information(np.zeros(len(zi)), ones[zi], ones[zj], n, two[zi], two[zj])
                    ),
                ]
            )
            distinct, inverse = np.unique(weight, return_inverse=True)
            rank = (len(distinct) - 1 - inverse).astype(np.int64)
        ti, tj = np.concatenate([ti, zi]), np.concatenate([tj, zj])
        n11 = np.concatenate([n11, np.zeros(len(zi))])
        chosen = _spanning_forest(ti, tj, rank, d)
        ti, tj, n11 = ti[chosen], tj[chosen], n11[chosen]
    ones = stats.ones.astype(float)
    return ti, tj, pair_information(n11, ones[ti], ones[tj], n, two[ti], two[tj]), n11


def sparse_spanning_skeleton(
    stats: SparseBinaryCounts, *, max_pairs: int = DEFAULT_MAX_PAIRS
) -> nx.Graph:
    """The Chow-Liu maximum spanning tree of sparse 0/1 counts, equal to the dense path.

    Returns what :func:`treelearn.structure._trees.spanning_skeleton` returns for the
    dense MI matrix (same nodes, ``states``, edges, ``weight`` values and edge
    order), without any ``d x d`` array.

    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0]])
    >>> sorted(sparse_spanning_skeleton(sparse_binary_statistics(X)).edges())
    [(0, 1), (0, 2)]
    """
    ti, tj, mi, _ = _tree_edges(stats, max_pairs)
    names = list(stats.columns)
    d = len(names)
    # the edge order spanning_skeleton gives: networkx lists a graph built from the
    # nodes, then Kruskal's edges, by the edge's first endpoint in node order, then by
    # when the edge was added (ti < tj here)
    listed = np.lexsort((np.arange(len(ti)), ti))
    G = nx.Graph()
    G.graph["n"] = stats.n_rows
    with gc_paused(d):
        G.add_nodes_from((name, {"states": list(stats.states[j])}) for j, name in enumerate(names))
        G.add_edges_from(
            (names[a], names[b], {"weight": w})
            for a, b, w in zip(ti[listed].tolist(), tj[listed].tolist(), mi[listed].tolist())
        )
    return G


def sparse_tree_arrays(
    stats: SparseBinaryCounts,
    root: Hashable | None = None,
    *,
    max_pairs: int = DEFAULT_MAX_PAIRS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """The directed Chow-Liu tree of :func:`sparse_spanning_tree` as arrays: ``(parent,
    child, weight, roots)``, each column's parent (``-1`` for a root), the children in the
    order that graph lists its edges, each edge's MI at its child's index, and the roots
    (``root`` first).

    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0]])
    >>> parent, child, weight, roots = sparse_tree_arrays(sparse_binary_statistics(X), root=2)
    >>> parent.tolist(), child.tolist(), roots
    ([2, 0, -1], [1, 0], [2])
    """
    return _oriented_tree(stats, root, max_pairs)[:4]


def _oriented_tree(
    stats: SparseBinaryCounts, root: Hashable | None, max_pairs: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list, np.ndarray]:
    """:func:`sparse_tree_arrays` and each edge's ``N_11`` at its child's index (0 for a
    root): the family counts of the tree need no lookup in the pairs."""
    names = list(stats.columns)
    d = len(names)
    index = None if root is None else names.index(root)
    ti, tj, mi, n11 = _tree_edges(stats, max_pairs)
    parent, child, roots = orient_arrays(d, ti, tj, index)
    # each edge's weight and count, on its child (one parent per node)
    up = np.full(d, -1, dtype=np.int64)
    up[child] = parent
    below = np.where(up[tj] == ti, tj, ti)
    weight = np.zeros(d)
    weight[below] = mi
    count = np.zeros(d, dtype=stats.counted_n11.dtype)
    count[below] = n11
    return up, child, weight, roots, count


def sparse_spanning_tree(
    stats: SparseBinaryCounts,
    root: Hashable | None = None,
    *,
    max_pairs: int = DEFAULT_MAX_PAIRS,
) -> nx.DiGraph:
    """``orient(sparse_spanning_skeleton(stats), root)``, the same graph, built once from the
    tree's arrays (:func:`~treelearn.structure._trees.orient_arrays`): no undirected graph
    of every column first (two graphs of 50,000 nodes were ~0.7 s).

    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0]])
    >>> D = sparse_spanning_tree(sparse_binary_statistics(X), root=2)
    >>> list(D.edges()), D.graph["roots"]
    ([(0, 1), (2, 0)], [2])
    """
    names = list(stats.columns)
    d = len(names)
    up, child, weight, roots = sparse_tree_arrays(stats, root, max_pairs=max_pairs)
    parent = up[child]
    D = nx.DiGraph()
    D.graph["n"] = stats.n_rows
    with gc_paused(d):
        D.add_nodes_from((name, {"states": list(stats.states[j])}) for j, name in enumerate(names))
        D.add_edges_from(
            (names[u], names[v], {"weight": w})
            for u, v, w in zip(parent.tolist(), child.tolist(), weight[child].tolist())
        )
        D.graph["roots"] = [names[r] for r in roots]
    return D


def family_count_stacks(
    stats: SparseBinaryCounts, parent: np.ndarray, n11: np.ndarray | None = None
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Every variable's family counts (its parent ``parent[v]``, ``-1`` for none), stacked
    by shape: ``(group, stacks)``, ``stacks[group[v]]`` holding the counts of the variables
    of that shape in variable order, as floats. The values
    :meth:`SparseBinaryCounts.family_counts_many` gives (the same expressions on the same
    dtypes, then converted to float as ``smoothed_cpts`` converts them), with no array per
    variable: the shapes are ``(k,)`` for a root and ``(k_parent, k)`` below, ``k`` 1 or 2.
    ``n11``: each variable's ``N_11`` with its parent where the caller has it (the tree's
    :meth:`SparseBinaryCounts.tree_arrays_and_counts`), else looked up in the pairs."""
    n = stats.n_rows
    k = stats.cardinalities
    ones, diagonal = stats.ones, stats.diagonal
    d = len(k)
    v = np.arange(d, dtype=np.int64)
    has = parent >= 0
    p = np.where(has, parent, 0)
    kv, kp = k, np.where(has, k[p], 0)
    # the shapes: (1,), (2,), (1, 1), (1, 2), (2, 1), (2, 2)
    shapes = [(1,), (2,), (1, 1), (1, 2), (2, 1), (2, 2)]
    code = np.where(has, 2 + 2 * (kp - 1) + (kv - 1), kv - 1)
    group = np.full(d, -1, dtype=np.int64)
    stacks: list[np.ndarray] = []
    for c, shape in enumerate(shapes):
        members = np.flatnonzero(code == c)
        if not len(members):
            continue
        group[members] = len(stacks)
        i, q = v[members], p[members]
        if shape == (2,):
            dd = diagonal[i]
            counts = np.stack([(n - ones[i]) - (ones[i] - dd), dd], axis=1)
        elif shape == (2, 2):
            np_, nq = ones[q], ones[i]
            both = stats._n11_many(np.minimum(q, i), np.maximum(q, i)) if n11 is None else n11[i]
            counts = np.stack(
                [(n - nq) - (np_ - both), nq - both, np_ - both, both], axis=1
            ).reshape(-1, 2, 2)
        elif shape == (1, 2):
            nq = ones[i]
            counts = np.stack([n - nq, nq], axis=1).reshape(-1, 1, 2)
        elif shape == (2, 1):
            np_ = ones[q]
            counts = np.stack([n - np_, np_], axis=1).reshape(-1, 2, 1)
        else:  # a one-state variable (under a one-state parent): all n rows
            counts = np.broadcast_to(np.array([n]).reshape((1,) * len(shape)), (len(i), *shape))
        stacks.append(np.array(counts, dtype=float))
    return group, stacks
