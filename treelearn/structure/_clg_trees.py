"""Trees of mixed tables: the CLG-valid spanning tree (or forest) and the statistics it is found from.

A conditional linear Gaussian (CLG) network has one rule: a discrete node never has a
continuous parent. A tree rooted at ``r`` gives each node one parent, its neighbour toward
``r``, so it is a valid CLG network exactly when the discrete nodes of each component form
a connected subtree that holds the root (each discrete node's parent is then discrete,
and so on up to the root). Among those trees the one of largest likelihood maximises the
sum of the edges' log-likelihood gains (the mixed mutual information of
:mod:`treelearn.stats._mixed_pairs`), and it splits into two independent problems
(:func:`clg_skeleton`):

1. the best spanning tree (or penalised forest) of the discrete columns alone;
2. with every discrete column merged into one node ``R`` (a continuous column's edge to
   ``R`` weighs its best edge to any discrete column), the best spanning tree (or forest)
   of ``R`` and the continuous columns; each edge to ``R`` becomes the edge to that best
   discrete column.

Both stages are :func:`~treelearn.structure._trees.spanning_skeleton`, the one spanning
tree routine (ties, whitelists, blacklists as everywhere). Stage 2 never joins two discrete
trees through continuous columns (they are all ``R``), so every component is valid; for a
penalised forest this is exact too: the discrete groups of the best valid forest are the
components of the positive discrete edges, and the rest is the best forest in which each
tree holds at most one group (Kruskal started from ``R``). A blacklist that disconnects
the discrete columns makes a forest even with ``forest=None``: no continuous column may
join them (:func:`clg_skeleton` says which groups were left apart).

:class:`MixedTableStatistics` is the statistics object of a mixed table: what
:func:`treelearn.clg_tree` learns from when the table has continuous columns
(``continuous`` names them; :meth:`~MixedTableStatistics.direct_tree` is the tree
above, as :class:`~treelearn.structure._sparse_chow_liu.SparseBinaryCounts` finds its own).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import networkx as nx
import numpy as np

from .._base.errors import ColumnNotFoundError, StructureError, TreelearnError
from .._base.validation import check_param
from ..stats._counts import CountedTable, PairCounts
from ..stats._mixed_pairs import MixedPairs, mixed_pair_statistics
from ..stats._settings import CONSTRAINTS, NOTES
from ._constraints import edge_constraints
from ._trees import edge_penalty, orient, round_ties, spanning_skeleton

__all__ = ["MixedTableStatistics", "clg_edge_parameters", "clg_skeleton"]


class _Merged:
    """The node standing for every discrete column in stage 2 (never a column name)."""

    def __repr__(self) -> str:
        return "<the discrete columns>"


def clg_edge_parameters(discrete: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``d x d``: the parameters an edge adds to a CLG network (its BIC/AIC penalty's count).

    discrete-discrete ``(k_i - 1)(k_j - 1)`` (a CPT row per parent state); discrete ``D``
    to continuous ``X``: ``2 (k_D - 1)`` (a mean and a variance per state instead of one
    of each; bnlearn's ``mi-cg`` degrees of freedom); continuous-continuous: 1 (the
    regression coefficient).

    >>> clg_edge_parameters(np.array([True, True, False, False]), np.array([3, 2, 0, 0])).tolist()
    [[0, 2, 4, 4], [2, 0, 2, 2], [4, 2, 0, 1], [4, 2, 1, 0]]
    """
    discrete = np.asarray(discrete, dtype=bool)
    k = np.asarray(k, dtype=np.int64)
    dd = np.outer(k - 1, k - 1)
    kd = np.where(discrete, 2 * (k - 1), 0)
    dc = np.where(discrete[:, None] & ~discrete[None, :], kd[:, None], 0)
    dc = dc + dc.T
    cc = (~discrete[:, None] & ~discrete[None, :]).astype(np.int64)
    out = np.where(discrete[:, None] & discrete[None, :], dd, dc + cc)
    np.fill_diagonal(out, 0)
    return out


def _scores(weights: np.ndarray, forest: Any, dof: np.ndarray, n: Any) -> np.ndarray:
    """Penalised weights (the weights themselves without a forest)."""
    if forest is None:
        return weights
    if forest in ("bic", "aic"):
        return weights - edge_penalty(forest, dof + 1, 2, n)  # dof = (dof + 1 - 1)(2 - 1)
    return weights - float(forest)


def clg_skeleton(
    names: Sequence[Hashable],
    weights: np.ndarray,
    discrete: Sequence[bool] | np.ndarray,
    states: Sequence[Sequence],
    *,
    forest: str | float | None = None,
    n: float | np.ndarray | None = None,
    whitelist: Iterable[Sequence[Hashable]] | None = None,
    blacklist: Iterable[Sequence[Hashable]] | None = None,
) -> nx.Graph:
    """The best CLG-valid spanning tree (or penalised forest) of a weight matrix.

    Parameters
    ----------
    names, weights : the columns and the ``d x d`` edge weights (the mixed MI, nats).
    discrete : which columns are discrete.
    states : each column's states (``()`` for a continuous one): the penalty's counts.
    forest : as :func:`~treelearn.structure._trees.spanning_skeleton`; ``"bic"``/``"aic"``
        penalise each edge by :func:`clg_edge_parameters`.
    n : rows (a number, or ``d x d`` rows per pair).
    whitelist, blacklist : pairs the result must / must not hold. A whitelist that joins
        two discrete columns through continuous ones has no CLG network: a StructureError
        names the edges.

    Returns the undirected forest with the discrete columns first (so that
    :func:`~treelearn.structure._trees.orient` roots each component at a discrete
    column), edges carrying ``weight`` (and ``penalised_weight`` with ``forest``); the
    graph attribute ``groups`` lists the discrete groups when a blacklist left the
    discrete columns apart (with a warning naming them).

    Examples
    --------
    >>> W = np.array([[0, .1, .9, .2], [.1, 0, .2, .8], [.9, .2, 0, .5], [.2, .8, .5, 0]])
    >>> T = clg_skeleton(["a", "b", "x", "y"], W, [True, True, False, False], [[0, 1], [0, 1], (), ()])
    >>> sorted(T.edges())   # x-y (0.5) would join a and b through continuous columns
    [('a', 'b'), ('a', 'x'), ('b', 'y')]
    """
    forest = check_param("forest", forest, CONSTRAINTS["forest"], note=NOTES["forest"])
    names = list(names)
    d = len(names)
    weights = np.asarray(weights, dtype=float)
    is_discrete = np.asarray(discrete, dtype=bool)
    k = np.array([len(s) for s in states], dtype=np.int64)
    required, forbidden = edge_constraints(names, whitelist, blacklist)
    D, C = np.flatnonzero(is_discrete), np.flatnonzero(~is_discrete)
    n_matrix = np.broadcast_to(np.asarray(n if n is not None else 1.0, dtype=float), (d, d))
    # stage 1: the discrete columns alone, the one routine with its own (k-1)(k-1) penalty
    dnames = [names[i] for i in D]
    dd_rows = n_matrix[np.ix_(D, D)]
    first = (
        spanning_skeleton(
            dnames,
            weights[np.ix_(D, D)],
            [states[int(i)] for i in D],
            forest=forest,
            n=dd_rows if n is not None and np.ndim(n) else n,
            whitelist=[(names[i], names[j]) for i, j in _pairs(required, D, D)],
            blacklist=[(names[i], names[j]) for i, j in _pairs(forbidden, D, D)],
        )
        if len(D)
        else nx.Graph()
    )
    # stage 2: the discrete columns merged into R
    dof = clg_edge_parameters(is_discrete, np.where(is_discrete, k, 0))
    score = _scores(weights, forest, dof, n_matrix)
    merged = _Merged()
    cnames = [names[j] for j in C]
    m = len(C) + (1 if len(D) else 0)
    offset = 1 if len(D) else 0
    W2 = np.zeros((m, m))
    W2[offset:, offset:] = score[np.ix_(C, C)]
    attach = np.full(len(C), -1)
    black2 = [(names[i], names[j]) for i, j in _pairs(forbidden, C, C)]
    white2 = [(names[i], names[j]) for i, j in _pairs(required, C, C)]
    if len(D):
        allowed = ~forbidden[np.ix_(D, C)]
        ranked = np.where(allowed, round_ties(score[np.ix_(D, C)]), -np.inf)
        forced = required[np.ix_(D, C)]
        _check_whitelist(names, D, C, required)
        ranked = np.where(
            np.any(forced, axis=0)[None, :], np.where(forced, np.inf, -np.inf), ranked
        )
        best = np.argmax(ranked, axis=0)  # ties: the first discrete column
        attach = D[best]
        W2[0, offset:] = W2[offset:, 0] = score[attach, C]
        for j, c in enumerate(C):
            if not allowed[:, j].any():
                black2.append((merged, names[c]))
            elif forced[:, j].any():
                white2.append((merged, names[c]))
    second = spanning_skeleton(
        ([merged] if len(D) else []) + cnames,
        W2,
        forest=None if forest is None else 0.0,
        whitelist=white2 or None,
        blacklist=black2 or None,
    )
    out = nx.Graph()
    out.add_nodes_from((names[i], {"states": list(states[int(i)])}) for i in D)
    out.add_nodes_from((names[j], {}) for j in C)
    position = {v: j for j, v in enumerate(names)}

    def attrs(i: int, j: int) -> dict:
        edge = {"weight": weights[i, j].item()}
        if forest is not None:
            edge["penalised_weight"] = score[i, j].item()
        return edge

    for u, v in first.edges():
        out.add_edge(u, v, **attrs(position[u], position[v]))
    for u, v in second.edges():
        if u is merged or v is merged:
            x = v if u is merged else u
            i, j = int(attach[cnames.index(x)]), position[x]
        else:
            i, j = position[u], position[v]
        out.add_edge(names[i], names[j], **attrs(i, j))
    if n is not None and np.ndim(n) == 0:
        out.graph["n"] = n
    groups = [sorted(g, key=position.__getitem__) for g in nx.connected_components(first)]
    if forest is None and len(groups) > 1:
        groups.sort(key=lambda g: position[g[0]])
        out.graph["groups"] = groups
        warnings.warn(
            f"the blacklist leaves the discrete columns in {len(groups)} groups "
            f"({'; '.join(map(str, groups))}); a CLG network cannot join them through a "
            f"continuous column (a discrete node has no continuous parent), so the result is "
            f"a forest of {len(groups)} trees",
            UserWarning,
            stacklevel=3,
        )
    return out


def _pairs(mask: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> list[tuple[int, int]]:
    """The marked pairs ``(i, j)`` with ``i`` in ``rows`` and ``j`` in ``cols`` (each once)."""
    sub = mask[np.ix_(rows, cols)]
    found = [(int(rows[a]), int(cols[b])) for a, b in np.argwhere(sub)]
    if rows is cols or np.array_equal(rows, cols):
        found = [(i, j) for i, j in found if i < j]
    return found


def _check_whitelist(names: list, D: np.ndarray, C: np.ndarray, required: np.ndarray) -> None:
    """A whitelist joining two discrete columns through continuous ones has no CLG network."""
    G = nx.Graph()
    merged = "<discrete>"
    for i, j in _pairs(required, D, C):
        G.add_edge(merged, names[j], pair=(names[i], names[j]))
    for i, j in _pairs(required, C, C):
        G.add_edge(names[i], names[j], pair=(names[i], names[j]))
    try:
        cycle = nx.find_cycle(G)
    except nx.NetworkXNoCycle:
        return
    pairs = [G.edges[u, v]["pair"] for u, v, *_ in cycle]
    raise StructureError(
        f"the whitelisted edges {pairs} join discrete columns through continuous ones (or form a "
        f"cycle): no CLG network holds them, since a discrete node cannot have a continuous "
        f"parent; drop one of these pairs from the whitelist"
    )


# ---------------------------------------------------------------------- statistics
@dataclass(frozen=True)
class MixedTableStatistics:
    """The statistics of a table with continuous columns (a CLG tree learns from them).

    ``columns`` lists every column in the table's order, ``continuous`` the continuous ones;
    ``discrete`` is the :class:`~treelearn.stats._counts.CountedTable` of the others (their
    encoded rows kept), ``values`` the continuous columns' floats (``n x p``, NaN = missing)
    and ``weights`` the row weights (``None``: each row once). The pair statistics
    (:class:`~treelearn.stats._mixed_pairs.MixedPairs`) are computed on first use.

    The statistics protocol of :class:`~treelearn.stats._counts.CountedTable` (``columns``,
    ``states``, ``dtypes``, ``n_rows``, ``mutual_information``, ``direct_tree``), plus
    ``continuous`` (non-empty: a learner builds a CLG network from these statistics).
    """

    columns: tuple
    continuous: tuple
    discrete: CountedTable
    values: np.ndarray
    continuous_dtypes: tuple
    weights: np.ndarray | None = None

    @property
    def is_discrete(self) -> np.ndarray:
        wanted = set(self.continuous)
        return np.array([c not in wanted for c in self.columns], dtype=bool)

    @property
    def states(self) -> tuple:
        """Each column's states; ``()`` for a continuous column."""
        known = dict(zip(self.discrete.columns, self.discrete.states))
        return tuple(tuple(known[c]) if c in known else () for c in self.columns)

    @property
    def dtypes(self) -> tuple:
        known = dict(
            zip(self.discrete.columns, self.discrete.dtypes or (None,) * len(self.discrete.columns))
        )
        known.update(zip(self.continuous, self.continuous_dtypes))
        return tuple(known[c] for c in self.columns)

    @property
    def n_rows(self) -> int | float:
        """Rows (their total weight with ``sample_weight``)."""
        if self.weights is None:
            return int(self.values.shape[0])
        total = float(self.weights.sum())
        return int(total) if np.all(self.weights == np.floor(self.weights)) else total

    @cached_property
    def pairs(self) -> MixedPairs:
        """The discrete-continuous and continuous-continuous pair statistics."""
        table = self.discrete.table
        codes = (
            np.zeros((self.values.shape[0], 0), dtype=np.int64)
            if table is None
            else table.codes  # any integer dtype: the exact path casts what it needs
        )
        pairs = mixed_pair_statistics(codes, self.discrete.cardinalities, self.values, self.weights)
        if pairs.discrete_counts is not None and table is not None and table.weights is None:
            # the complete-row path counted the discrete pairs on the way (the same int64
            # matrix pair_counts gives): the discrete MI and CPTs read them, not a recount
            self.discrete.__dict__.setdefault(
                "counts",
                PairCounts(pairs.discrete_counts, self.discrete.cardinalities, table.n_rows),
            )
        return pairs

    def _index(self) -> tuple[np.ndarray, np.ndarray]:
        """The positions of the discrete and the continuous columns among ``columns``."""
        mask = self.is_discrete
        return np.flatnonzero(mask), np.flatnonzero(~mask)

    def mutual_information(self, mi_alpha: float | None = None) -> np.ndarray:
        """The ``d x d`` edge weights (nats): plug-in MI of discrete pairs (their joint
        smoothed by ``mi_alpha``), ``mi-cg`` of discrete-continuous pairs, ``-1/2 log(1 -
        rho^2)`` of continuous pairs (see :mod:`treelearn.stats._mixed_pairs`)."""
        D, C = self._index()
        d = len(self.columns)
        mi = np.zeros((d, d))
        pairs = self.pairs  # first: complete rows bring the discrete pair counts with them
        if len(D) > 1:
            mi[np.ix_(D, D)] = self.discrete.mutual_information(mi_alpha)
        if len(D):
            dc = pairs.conditional_information()
            mi[np.ix_(D, C)] = dc
            mi[np.ix_(C, D)] = dc.T
        mi[np.ix_(C, C)] = pairs.continuous_information()
        np.fill_diagonal(mi, 0.0)
        return mi

    def pair_rows(self) -> np.ndarray:
        """``d x d``: the rows (their weight) where both columns of each pair are observed."""
        D, C = self._index()
        d = len(self.columns)
        rows = np.zeros((d, d))
        pairs = self.pairs
        if len(D):
            rows[np.ix_(D, D)] = self.discrete.counts.pair_totals()
            dc = np.add.reduceat(pairs.state_weight, pairs.offsets[:-1], axis=0)
            rows[np.ix_(D, C)] = dc
            rows[np.ix_(C, D)] = dc.T
        rows[np.ix_(C, C)] = pairs.pair_weight
        return rows

    def direct_tree(self, settings: Any) -> nx.DiGraph:
        """The CLG-valid tree (or forest) of these statistics (:func:`clg_skeleton`), directed
        away from ``settings.root`` (:func:`~treelearn.structure._trees.orient`); a ``root``
        that is continuous in a component with discrete columns is refused."""
        if settings.missing == "em":
            raise TreelearnError(
                "missing='em' is for discrete tables; a table with continuous columns "
                f"({list(self.continuous)[:5]}) takes missing='pairwise' (each statistic over "
                "the rows where its columns are observed; missing cells are summed out exactly "
                "when scoring and querying) or 'drop'"
            )
        n: float | np.ndarray = self.n_rows
        if settings.forest in ("bic", "aic"):
            rows = self.pair_rows()
            n = rows if (rows != float(self.n_rows)).any() else n
        skeleton = clg_skeleton(
            list(self.columns),
            self.mutual_information(settings.mi_alpha),
            self.is_discrete,
            self.states,
            forest=settings.forest,
            n=n,
            whitelist=settings.whitelist,
            blacklist=settings.blacklist,
        )
        root = settings.root
        if root is not None:
            if root not in skeleton:
                raise ColumnNotFoundError(
                    f"{root!r} is not a column of the data; the columns are {list(self.columns)}",
                    column=root,
                )
            component = nx.node_connected_component(skeleton, root)
            found = [c for c in self.discrete.columns if c in component]
            if root in self.continuous and found:
                raise StructureError(
                    f"root {root!r} is continuous, but its tree holds the discrete column(s) "
                    f"{found[:5]}: in a CLG network a discrete node has no continuous parent, so "
                    f"the root must be discrete (e.g. root={found[0]!r}), or leave root=None"
                )
        return orient(skeleton, root)

    def family_counts(self, family: Sequence[int]) -> np.ndarray:
        """Counts of a family of discrete columns (indices into ``columns``)."""
        position = {c: j for j, c in enumerate(self.discrete.columns)}
        names = [self.columns[i] for i in family]
        absent = [c for c in names if c not in position]
        if absent:
            raise StructureError(f"{absent} are continuous: they have no counts")
        return self.discrete.family_counts([position[c] for c in names])
