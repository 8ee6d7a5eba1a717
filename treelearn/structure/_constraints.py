"""Spanning trees and forests under edge constraints and penalised scores.

:func:`constrained_skeleton` is :func:`~treelearn.structure._trees.spanning_skeleton`
with three additions that bnlearn and bnclassify users expect:

* ``whitelist``: undirected pairs the tree must contain (bnlearn's ``whitelist``);
* ``blacklist``: undirected pairs it must not contain;
* ``penalty``: a ``d x d`` matrix subtracted from the weights, keeping only edges
  whose penalised weight is positive (a penalised forest, e.g. BIC or AIC:
  :func:`forest_penalty`).

The result is the maximum-weight spanning forest among those that contain
every whitelisted edge and no blacklisted one: Kruskal's algorithm started from
the whitelisted edges (they contract the graph; the rest is a maximum forest of
the contracted graph, which Kruskal finds). Blacklisting may disconnect the
graph, and then the result is a forest even without a penalty.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import networkx as nx
import numpy as np

from .._base.errors import ColumnNotFoundError, StructureError, TreelearnError
from ._trees import round_ties, spanning_tree_edges

__all__ = ["constrained_skeleton", "edge_constraints", "forest_penalty"]


def edge_constraints(
    names: Sequence[Hashable],
    whitelist: Iterable[Sequence[Hashable]] | None = None,
    blacklist: Iterable[Sequence[Hashable]] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(required, forbidden)``: symmetric boolean ``d x d`` matrices of the listed pairs.

    Raises :class:`~treelearn.ColumnNotFoundError` for a pair naming an unknown
    column, :class:`~treelearn.StructureError` for a pair that is not two
    distinct columns, a pair in both lists, or a whitelist that has a cycle (no tree
    contains it).

    Examples
    --------
    >>> required, forbidden = edge_constraints(["a", "b", "c"], [("a", "b")], [("c", "b")])
    >>> required.astype(int).tolist(), forbidden[1, 2]
    ([[0, 1, 0], [1, 0, 0], [0, 0, 0]], np.True_)
    >>> edge_constraints(["a", "b", "c"], [("a", "b"), ("b", "c"), ("c", "a")])
    Traceback (most recent call last):
    ...
    treelearn.StructureError: the whitelist has a cycle (a, b, c, a ...): no tree contains every whitelisted edge; drop one of these pairs
    """
    names = list(names)
    position = {name: j for j, name in enumerate(names)}
    d = len(names)

    def matrix(pairs: Iterable[Sequence[Hashable]] | None, which: str) -> np.ndarray:
        out = np.zeros((d, d), dtype=bool)
        for pair in pairs or ():
            pair = tuple(pair) if not isinstance(pair, str) else (pair,)
            if len(pair) != 2 or pair[0] == pair[1]:
                raise StructureError(
                    f"{which} entry {pair!r} must be a pair of two different columns, e.g. "
                    f"({names[0]!r}, {names[-1]!r})" if names else f"{which} entry {pair!r}"
                )
            for v in pair:
                if v not in position:
                    raise ColumnNotFoundError(
                        f"{which} pair {pair!r} names {v!r}, which is not a variable of the tree; "
                        f"the variables are {names[:20]}", column=v,
                    )
            i, j = position[pair[0]], position[pair[1]]
            out[i, j] = out[j, i] = True
        return out

    required = matrix(whitelist, "whitelist")
    forbidden = matrix(blacklist, "blacklist")
    both = np.argwhere(np.triu(required & forbidden))
    if len(both):
        i, j = both[0]
        raise StructureError(
            f"the pair ({names[i]!r}, {names[j]!r}) is both whitelisted and blacklisted; "
            f"remove it from one of the lists"
        )
    G = nx.Graph()
    G.add_edges_from((names[i], names[j]) for i, j in np.argwhere(np.triu(required)).tolist())
    try:
        cycle = nx.find_cycle(G)
    except nx.NetworkXNoCycle:
        return required, forbidden
    path = ", ".join(str(u) for u, _ in cycle)
    raise StructureError(
        f"the whitelist has a cycle ({path}, {cycle[0][0]} ...): no tree contains every "
        f"whitelisted edge; drop one of these pairs"
    )


def forest_penalty(
    score: str, cardinalities: Sequence[int], n: float | np.ndarray, n_classes: int = 1
) -> np.ndarray:
    """``d x d`` per-row penalty of each edge of a penalised forest, in nats.

    An edge between ``i`` and ``j`` adds ``n_classes (k_i - 1)(k_j - 1)`` parameters
    (``n_classes = 1`` for a Chow-Liu tree, ``|C|`` for TAN's class-conditional
    one). The score's penalty of those parameters, divided by the ``n`` rows (so
    that it compares with a mutual information): BIC ``dof ln(n) / (2 n)``, AIC
    ``dof / n``. ``n`` is a number or a ``d x d`` matrix (rows per pair); where
    ``n <= 1`` the penalty is 0 (BIC) or ``dof`` (AIC).

    Examples
    --------
    >>> p = forest_penalty("bic", [3, 3], 100, n_classes=2)
    >>> bool(np.isclose(p[0, 1], 2 * 4 * np.log(100) / 200))
    True
    >>> forest_penalty("aic", [2, 3], 10)[0, 1]
    np.float64(0.2)
    """
    if score not in ("bic", "aic"):
        raise TreelearnError(f"forest must be None, 'bic' or 'aic', not {score!r}", values=[score])
    k = np.asarray(cardinalities, dtype=float)
    dof = n_classes * (k[:, None] - 1) * (k[None, :] - 1)
    rows = np.broadcast_to(np.asarray(n, dtype=float), dof.shape)
    safe = np.where(rows > 1, rows, 2.0)
    if score == "bic":
        return np.where(rows > 1, dof * np.log(safe) / (2 * safe), 0.0)
    return dof / np.where(rows > 1, safe, 1.0)


def constrained_skeleton(
    names: Sequence[Hashable],
    weights: np.ndarray,
    states: Sequence[Sequence] | None = None,
    *,
    penalty: np.ndarray | None = None,
    whitelist: Iterable[Sequence[Hashable]] | None = None,
    blacklist: Iterable[Sequence[Hashable]] | None = None,
) -> nx.Graph:
    """The best spanning tree (or forest) of a weight matrix with every whitelisted edge and
    no blacklisted one; with ``penalty``, only edges whose ``weight - penalty`` is positive
    (rounded to 12 decimals), whitelisted edges excepted.

    The graph has the layout of :func:`~treelearn.structure._trees.spanning_skeleton`'s: nodes
    in ``names`` order (with ``states``), edge attribute ``weight`` (and, with a
    penalty, ``penalised_weight``). Ties are broken by column order. Without
    constraints and penalty it returns the tree ``spanning_skeleton`` returns.

    Examples
    --------
    >>> W = np.array([[0, .5, .2], [.5, 0, .3], [.2, .3, 0]])
    >>> sorted(constrained_skeleton(["a", "b", "c"], W).edges())
    [('a', 'b'), ('b', 'c')]
    >>> sorted(constrained_skeleton(["a", "b", "c"], W, blacklist=[("a", "b")]).edges())
    [('a', 'c'), ('b', 'c')]
    >>> sorted(constrained_skeleton(["a", "b", "c"], W, whitelist=[("a", "c")]).edges())
    [('a', 'b'), ('a', 'c')]
    """
    names = list(names)
    weights = np.asarray(weights, dtype=float)
    d = len(names)
    required, forbidden = edge_constraints(names, whitelist, blacklist)
    upper = np.triu(np.ones((d, d), dtype=bool), k=1)
    score = weights if penalty is None else weights - np.asarray(penalty, dtype=float)
    present = upper.copy() if penalty is None else upper & (round_ties(score) > 0)
    present = (present & ~forbidden) | (required & upper)
    rank = np.where(upper, score, 0.0)
    if required.any():  # whitelisted edges first, as Kruskal started from them
        top = float(np.max(round_ties(rank[upper]), initial=0.0))
        rank = np.where(required, abs(top) + 1.0, rank)
    chosen = spanning_tree_edges(rank, present)
    order = nx.Graph()  # built as spanning_skeleton builds it: the same edge order
    order.add_nodes_from(names)
    order.add_edges_from((names[i], names[j], {"ij": (i, j)}) for i, j in chosen)
    T = nx.Graph()
    T.add_nodes_from(
        (name, {"states": list(states[j])} if states is not None else {})
        for j, name in enumerate(names)
    )
    for u, v, (i, j) in order.edges(data="ij"):
        attrs = {"weight": weights[i, j].item()}
        if penalty is not None:
            attrs["penalised_weight"] = score[i, j].item()
        T.add_edge(u, v, **attrs)
    return T
