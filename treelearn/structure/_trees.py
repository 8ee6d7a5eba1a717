"""Structures as NetworkX graphs: the complete MI graph, spanning trees and forests,
rooting (``orient``), the naive Bayes star and the TAN structure.

Every function returns a new graph; none modifies its input.

There is one rule for choosing a tree: edges are ranked by weight rounded to
``TIE_DECIMALS`` (larger first, rounded by :func:`round_ties`), then by their
order in the graph (column order for a weight matrix), and a forest keeps only
edges whose penalised weight (:func:`bic_edge_penalty`, or a threshold) rounds
above 0. The learners choose their trees from the weight matrix
(:func:`spanning_skeleton`, a vectorised Prim); :func:`maximum_spanning_tree`
and :func:`penalised_forest` apply the same rule to any NetworkX graph with
networkx's Kruskal. Both pick the same edges, in the same order
(``tests/test_spanning_trees.py`` checks them against networkx's Kruskal).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import networkx as nx
import numpy as np
from numpy.typing import ArrayLike

from .._base.errors import ColumnNotFoundError, StructureError

__all__ = [
    "TIE_DECIMALS",
    "bic_edge_penalty",
    "complete_graph",
    "maximum_spanning_tree",
    "orient",
    "penalised_forest",
    "round_ties",
    "spanning_skeleton",
    "spanning_tree_edges",
    "star",
    "tan_structure",
    "tree_from_matrix",
]

#: Weights are compared at this many decimals when choosing edges, so that pairs
#: whose MI differs only by floating-point rounding tie, and ties are broken by
#: column order (deterministic across machines and BLAS builds).
TIE_DECIMALS = 12


def round_ties(values: ArrayLike) -> np.ndarray:
    """``round(v, TIE_DECIMALS)`` for every element, equal to Python's ``round`` on each.

    The one rounding both spanning-tree paths rank weights by. ``rint(v * 10**12) /
    10**12`` is the same double as Python's correctly rounded ``round`` whenever the
    product is clearly off a half-integer (the division of two exact doubles rounds
    correctly); the few values too close to call, or too large, go through Python's
    ``round``.

    Examples
    --------
    >>> round_ties([0.1 + 0.2, 1e-13]).tolist()
    [0.3, 0.0]
    """
    values = np.array(values, dtype=float)  # a copy: the caller's array is not touched
    scale = 10.0**TIE_DECIMALS
    y = values * scale
    out = np.asarray(np.rint(y) / scale)
    with np.errstate(invalid="ignore"):
        margin = np.abs(np.abs(y - np.floor(y)) - 0.5)
        risky = ~(margin > np.abs(y) * 2.0**-50) | ~(np.abs(y) < 2.0**52)
    for idx in np.flatnonzero(risky):
        out.flat[idx] = round(float(values.flat[idx]), TIE_DECIMALS)
    return out


def bic_edge_penalty(k_i: ArrayLike, k_j: ArrayLike, n: ArrayLike) -> float | np.ndarray:
    """BIC penalty of an edge in nats per row: ``(k_i - 1)(k_j - 1) ln(n) / (2n)``; 0 where ``n <= 1``.

    ``k_i``, ``k_j`` (numbers of states) and ``n`` (rows) broadcast against each
    other, so one call penalises every pair at once: ``k[:, None], k[None, :]``
    with one number of rows, or with a ``d x d`` matrix of the rows each pair was
    counted on (missing values). Numbers in give a float out. Both spanning-tree
    paths (:func:`penalised_forest`, :func:`spanning_skeleton`) penalise with it.

    Examples
    --------
    >>> round(bic_edge_penalty(3, 3, 100), 6)
    0.092103
    >>> k = np.array([2, 3])
    >>> (bic_edge_penalty(k[:, None], k[None, :], np.array([[1, 50], [50, 100]])) * 1e3).round(1)
    array([[ 0. , 78.2],
           [78.2, 92.1]])
    """
    rows = np.asarray(n, dtype=float)
    safe = np.where(rows > 1, rows, 2.0)  # log and division only where they are used
    dof = (np.asarray(k_i) - 1) * (np.asarray(k_j) - 1)
    penalty = np.where(rows > 1, dof * np.log(safe) / (2 * safe), 0.0)
    return float(penalty) if penalty.ndim == 0 else penalty


def complete_graph(
    names: Sequence[Hashable], weights: np.ndarray, states: Sequence[Sequence] | None = None
) -> nx.Graph:
    """Complete undirected graph on ``names`` with edge attribute ``weight = weights[i, j]``.

    Edges are added in column order ``(0, 1), (0, 2), ..., (1, 2), ...``, which is
    the order in which ties are broken downstream. Only the upper triangle of
    ``weights`` is read.

    Examples
    --------
    >>> G = complete_graph(["a", "b", "c"], np.array([[0, .5, .2], [.5, 0, .3], [.2, .3, 0]]))
    >>> list(G.edges(data="weight"))
    [('a', 'b', 0.5), ('a', 'c', 0.2), ('b', 'c', 0.3)]
    """
    d = len(names)
    G = nx.Graph()
    G.add_nodes_from(
        (name, {"states": list(states[j])} if states is not None else {})
        for j, name in enumerate(names)
    )
    iu, ju = np.triu_indices(d, k=1)
    values = np.asarray(weights)[iu, ju].tolist()
    G.add_weighted_edges_from(
        (names[i], names[j], w) for i, j, w in zip(iu.tolist(), ju.tolist(), values)
    )
    return G


def _rounded_copy(G: nx.Graph, weight: str) -> nx.Graph:
    """Same nodes and edges (in the same order), with only ``weight``, rounded to TIE_DECIMALS."""
    edges = list(G.edges(data=weight, default=1.0))
    rounded = round_ties([float(w) for _, _, w in edges]).tolist()
    H = nx.Graph()
    H.add_nodes_from(G)
    H.add_edges_from((u, v, {weight: w}) for (u, v, _), w in zip(edges, rounded))
    return H


def _subgraph_with_edges(G: nx.Graph, edges: Iterable) -> nx.Graph:
    T = nx.Graph()
    T.graph.update(G.graph)
    T.add_nodes_from(G.nodes(data=True))
    T.add_edges_from((u, v, dict(G.edges[u, v])) for u, v in edges)
    return T


def maximum_spanning_tree(G: nx.Graph, weight: str = "weight") -> nx.Graph:
    """:func:`networkx.maximum_spanning_tree` with deterministic tie-breaking.

    Weights equal to ``TIE_DECIMALS`` decimals tie, and ties go to the edge that
    comes first in ``G``'s edge order (column order for :func:`complete_graph`),
    via Kruskal's stable sort. A missing ``weight`` counts as 1. Node, edge and
    graph attributes are kept; ``G`` is not changed. On a complete graph it picks
    the edges :func:`spanning_skeleton` picks from the weight matrix.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph()
    >>> G.add_weighted_edges_from([("a", "b", 0.5), ("b", "c", 0.2), ("a", "c", 0.2)])
    >>> sorted(maximum_spanning_tree(G).edges())
    [('a', 'b'), ('a', 'c')]
    """
    if G.is_directed():
        raise StructureError("maximum_spanning_tree needs an undirected graph")
    T = nx.maximum_spanning_tree(_rounded_copy(G, weight), weight=weight, algorithm="kruskal")
    return _subgraph_with_edges(G, T.edges())


def penalised_forest(
    G: nx.Graph, penalty: str | float = "bic", n: int | None = None, weight: str = "weight"
) -> nx.Graph:
    """Maximum spanning forest keeping only edges whose penalised weight is positive.

    ``penalty="bic"`` subtracts :func:`bic_edge_penalty` (needs the node attribute
    ``states`` and the number of rows ``n``, or the graph attribute ``n``); a number
    is a plain threshold on the weight. A penalised weight counts as positive when
    it rounds (to ``TIE_DECIMALS``) above 0. Each kept edge keeps its original
    ``weight`` and gains ``penalised_weight``; ``G`` is not changed.

    Examples
    --------
    >>> G = complete_graph(["a", "b", "c"], np.array([[0, .5, .2], [.5, 0, .3], [.2, .3, 0]]))
    >>> list(penalised_forest(G, 0.25).edges(data="penalised_weight"))
    [('a', 'b', 0.25), ('b', 'c', 0.04999999999999999)]
    >>> H = complete_graph(["a", "b"], np.array([[0, .01], [.01, 0]]), [[0, 1, 2], [0, 1, 2]])
    >>> penalised_forest(H, "bic", n=100).number_of_edges()   # 0.01 < bic_edge_penalty(3, 3, 100)
    0
    """
    n = n if n is not None else G.graph.get("n")
    edges = list(G.edges(data=True))
    weights = np.array([data[weight] for _, _, data in edges], dtype=float)
    if penalty == "bic":
        if n is None and edges:
            raise StructureError("a BIC forest needs the number of rows n")
        k_u = np.array([len(G.nodes[u]["states"]) for u, _, _ in edges], dtype=np.int64)
        k_v = np.array([len(G.nodes[v]["states"]) for _, v, _ in edges], dtype=np.int64)
        scores = weights - bic_edge_penalty(k_u, k_v, n)
    else:
        scores = weights - float(penalty)
    keep = round_ties(scores) > 0
    H = nx.Graph()
    H.add_nodes_from(G.nodes(data=True))
    H.add_edges_from(
        (u, v, {**data, "penalised_weight": score})
        for (u, v, data), score, kept in zip(edges, scores.tolist(), keep.tolist())
        if kept
    )
    F = maximum_spanning_tree(H, weight="penalised_weight")
    F.graph.update(G.graph)
    return F


def orient(tree: nx.Graph, root: Hashable | None = None) -> nx.DiGraph:
    """Direct every edge of a tree (or forest) away from its root.

    ``root=None`` roots each component at its first node in ``tree``'s node order
    (for a learned tree: its first column). With a forest, ``root`` roots its own
    component and every other component gets its first node. The roots are listed
    in the graph attribute ``roots``: ``root`` first, then the others in node order.

    Examples
    --------
    >>> import networkx as nx
    >>> D = orient(nx.Graph([("a", "b"), ("b", "c")]), root="c")
    >>> sorted(D.edges())
    [('b', 'a'), ('c', 'b')]
    """
    if tree.is_directed():
        raise StructureError("orient needs an undirected tree; got a directed graph")
    if root is not None and root not in tree:
        raise ColumnNotFoundError(
            f"root {root!r} is not a variable of the tree; the variables are {list(tree.nodes)}"
        )
    if tree.number_of_edges() != tree.number_of_nodes() - nx.number_connected_components(tree):
        raise StructureError("orient needs a tree or forest; the graph has a cycle")
    order = {node: i for i, node in enumerate(tree.nodes)}
    D = nx.DiGraph()
    D.graph.update(tree.graph)
    D.add_nodes_from(tree.nodes(data=True))
    roots = []
    for component in sorted(nx.connected_components(tree), key=lambda c: min(order[v] for v in c)):
        r = root if root in component else min(component, key=order.__getitem__)
        roots.append(r)
        for u, v in nx.bfs_edges(
            tree, r, sort_neighbors=lambda vs: sorted(vs, key=order.__getitem__)
        ):
            D.add_edge(u, v, **tree.edges[u, v])
    if root is not None:  # the root asked for comes first: it is ``model.root``
        roots.remove(root)
        roots.insert(0, root)
    D.graph["roots"] = roots
    return D


def star(center: Hashable, leaves: Iterable[Hashable]) -> nx.DiGraph:
    """The naive Bayes structure: ``center -> leaf`` for every leaf.

    Examples
    --------
    >>> sorted(star("class", ["x", "y"]).edges())
    [('class', 'x'), ('class', 'y')]
    """
    D = nx.DiGraph()
    D.add_node(center)
    for leaf in leaves:
        if leaf == center:
            raise StructureError(f"the centre {center!r} cannot also be a leaf")
        D.add_edge(center, leaf)
    D.graph["roots"] = [center]
    D.graph["class"] = center
    return D


def tan_structure(
    feature_tree: nx.Graph, class_node: Hashable, root: Hashable | None = None
) -> nx.DiGraph:
    """Tree-augmented naive Bayes: the feature tree oriented from ``root``, plus ``class -> feature``.

    Each feature's parents are ordered class first, then its feature parent.
    """
    if class_node in feature_tree:
        raise StructureError(f"the class {class_node!r} must not be a node of the feature tree")
    oriented = orient(feature_tree, root)
    D = nx.DiGraph()
    D.graph.update(oriented.graph)
    D.add_node(class_node)
    D.add_nodes_from(oriented.nodes(data=True))
    for v in oriented.nodes:
        D.add_edge(class_node, v)
    D.add_edges_from(oriented.edges(data=True))
    for v in oriented.nodes:
        D.nodes[v]["parents"] = [class_node, *oriented.predecessors(v)]
    D.graph["roots"] = [class_node]
    D.graph["class"] = class_node
    D.graph["feature_roots"] = oriented.graph["roots"]
    return D


# ----------------------------------------------------------------------------- from a matrix
def spanning_tree_edges(
    weights: np.ndarray, present: np.ndarray | None = None
) -> list[tuple[int, int]]:
    """Edges ``(i, j)``, ``i < j``, of the maximum spanning tree (or forest) of a weight matrix.

    Exactly the edges networkx's Kruskal picks on ``complete_graph(names,
    weights)`` (weights rounded by :func:`round_ties`), in the order Kruskal adds
    them: edges are ranked by rounded weight (larger first), then by ``(i, j)`` in
    column order. That is a strict total order, so the maximum spanning forest is
    unique, and Prim's algorithm, run here on the dense matrix in ``O(d^2)``
    vectorised steps, finds the same one. Only the upper triangle of ``weights`` is
    read. ``present`` (boolean) marks the pairs that are edges; default all.
    Components of a forest are grown from their lowest-numbered variable.

    Examples
    --------
    >>> W = np.array([[0, .5, .5, .1], [.5, 0, .5, .1], [.5, .5, 0, .1], [.1, .1, .1, 0]])
    >>> spanning_tree_edges(W)
    [(0, 1), (0, 2), (0, 3)]
    >>> spanning_tree_edges(W, present=W > .2)   # a forest: 3 is on its own
    [(0, 1), (0, 2)]
    """
    weights = np.asarray(weights, dtype=float)
    d = weights.shape[0]
    upper = np.triu(np.ones((d, d), dtype=bool), k=1)
    W = round_ties(np.where(upper, weights, 0.0))  # the upper triangle, as complete_graph reads it
    W = W + W.T
    present = upper if present is None else np.asarray(present, dtype=bool) & upper
    if np.isnan(W[present]).any():  # as networkx's Kruskal: a NaN weight has no rank
        i, j = np.argwhere(present & np.isnan(W))[0]
        raise StructureError(
            f"NaN found as the weight of the pair ({i}, {j}): a spanning tree needs a number "
            f"for every pair; check the statistics the weights came from (row weights, "
            f"counts) for NaN"
        )
    present = present | present.T
    idx = np.arange(d)
    in_tree = np.zeros(d, dtype=bool)
    has = np.zeros(d, dtype=bool)  # has a candidate edge into the tree
    best_w = np.zeros(d)
    best_pair = np.zeros(d, dtype=np.int64)  # i * d + j of the candidate edge, i < j
    best_u = np.zeros(d, dtype=np.int64)
    edges = []

    def add(v: int) -> None:
        in_tree[v] = True
        has[v] = False
        w = W[v]
        pair = np.minimum(idx, v) * d + np.maximum(idx, v)
        better = (
            present[v] & ~in_tree & (~has | (w > best_w) | ((w == best_w) & (pair < best_pair)))
        )
        best_w[better] = w[better]
        best_pair[better] = pair[better]
        best_u[better] = v
        has[better] = True

    for _ in range(d):
        if not has.any():  # start a tree (or the next tree of a forest)
            if in_tree.all():
                break
            add(int(np.argmin(in_tree)))
            continue
        top = np.max(best_w, where=has, initial=-np.inf)
        tied = has & (best_w == top)
        x = int(np.flatnonzero(tied)[np.argmin(best_pair[tied])])
        u = int(best_u[x])
        edges.append((min(u, x), max(u, x)))
        add(x)
    # Kruskal's order: rounded weight descending, then (i, j)
    edges.sort(key=lambda e: (-W[e[0], e[1]], e))
    return edges


def spanning_skeleton(
    names: Sequence[Hashable],
    weights: np.ndarray,
    states: Sequence[Sequence] | None = None,
    *,
    forest: str | float | None = None,
    n: int | np.ndarray | None = None,
) -> nx.Graph:
    """Maximum spanning tree (or penalised forest) of a weight matrix, as an undirected graph.

    The one routine with which Chow-Liu and TAN choose their trees, for any number
    of variables. It returns what ``maximum_spanning_tree(complete_graph(names,
    weights, states))`` (``forest=None``) or ``penalised_forest(..., forest, n)``
    returns, with the same nodes, edges, attributes and order, without building
    the complete graph of ``d (d - 1) / 2`` edges (:func:`spanning_tree_edges`).
    ``forest`` is ``"bic"`` (subtract :func:`bic_edge_penalty`; needs ``states``
    and ``n``) or a threshold on the weight. ``n`` is the number of rows, or a
    ``d x d`` matrix of rows per pair when values are missing (then the graph
    attribute ``n`` is left out). Only the upper triangle of ``weights`` is read.

    Examples
    --------
    >>> W = np.array([[0, .5, .2], [.5, 0, .3], [.2, .3, 0]])
    >>> list(spanning_skeleton(["a", "b", "c"], W).edges(data="weight"))
    [('a', 'b', 0.5), ('b', 'c', 0.3)]
    >>> F = spanning_skeleton(["a", "b", "c"], W, [[0, 1]] * 3, forest="bic",
    ...                       n=np.array([[1, 9, 9], [9, 1, 30], [9, 30, 1]]))
    >>> list(F.edges())   # b-c: 0.3 > ln(30) / 60; a-b: 0.5 > ln(9) / 18; a-c: dropped
    [('a', 'b'), ('b', 'c')]
    """
    names = list(names)
    weights = np.asarray(weights, dtype=float)
    present = None
    score = None
    if forest is not None:
        if forest == "bic":
            if n is None:
                raise StructureError("a BIC forest needs the number of rows n")
            if states is None:
                raise StructureError("a BIC forest needs the states of every variable")
            k = np.array([len(s) for s in states], dtype=np.int64)
            score = weights - bic_edge_penalty(k[:, None], k[None, :], n)
        else:
            score = weights - float(forest)
        present = round_ties(score) > 0
    chosen = spanning_tree_edges(weights if score is None else score, present)
    # the graph is built as maximum_spanning_tree builds it (nodes, then the tree's
    # edges in the order networkx's T.edges() lists Kruskal's tree), so that the
    # edge order, which orient's ties and the saved files follow, is the same
    order = nx.Graph()
    order.add_nodes_from(names)
    order.add_edges_from((names[i], names[j], {"ij": (i, j)}) for i, j in chosen)
    T = nx.Graph()
    if n is not None and np.ndim(n) == 0:
        T.graph["n"] = n
    T.add_nodes_from(
        (name, {"states": list(states[j])} if states is not None else {})
        for j, name in enumerate(names)
    )
    for u, v, (i, j) in order.edges(data="ij"):
        attrs = {"weight": weights[i, j].item()}
        if score is not None:
            attrs["penalised_weight"] = score[i, j].item()
        T.add_edge(u, v, **attrs)
    return T


#: The earlier name of :func:`spanning_skeleton` (from when it was the path for
#: large d only); kept so that code calling it keeps working.
tree_from_matrix = spanning_skeleton
