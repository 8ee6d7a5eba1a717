"""Structures as NetworkX graphs: the complete MI graph, spanning trees and forests,
rooting (``orient``), the naive Bayes star and the TAN structure.

Every function takes a graph and returns a new graph; none modifies its input.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import networkx as nx
import numpy as np

from .errors import ColumnNotFoundError, StructureError

__all__ = [
    "bic_edge_penalty",
    "complete_graph",
    "maximum_spanning_tree",
    "orient",
    "penalised_forest",
    "star",
    "tan_structure",
]

#: MI values are compared at this many decimals when choosing edges, so that
#: pairs whose MI differs only by floating-point rounding tie, and ties are broken
#: by column order (deterministic across machines and BLAS builds).
TIE_DECIMALS = 12


def complete_graph(
    names: Sequence[Hashable], weights: np.ndarray, states: Sequence[Sequence] | None = None
) -> nx.Graph:
    """Complete undirected graph on ``names`` with edge attribute ``weight = weights[i, j]``.

    Edges are added in column order ``(0, 1), (0, 2), ..., (1, 2), ...``, which is
    the order in which ties are broken downstream.
    """
    d = len(names)
    G = nx.Graph()
    for j, name in enumerate(names):
        G.add_node(name, **({"states": list(states[j])} if states is not None else {}))
    iu, ju = np.triu_indices(d, k=1)
    values = weights[iu, ju].tolist()
    G.add_weighted_edges_from(
        (names[i], names[j], w) for i, j, w in zip(iu.tolist(), ju.tolist(), values)
    )
    return G


def _rounded_copy(G: nx.Graph, weight: str) -> nx.Graph:
    H = nx.Graph()
    H.add_nodes_from(G)
    H.add_edges_from(
        (u, v, {weight: round(float(data.get(weight, 1.0)), TIE_DECIMALS)})
        for u, v, data in G.edges(data=True)
    )
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
    via Kruskal's stable sort. Node and edge attributes are kept.

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


def bic_edge_penalty(k_i: int, k_j: int, n: int) -> float:
    """BIC penalty of an edge in nats per row: ``(k_i - 1)(k_j - 1) ln(n) / (2n)``."""
    return (k_i - 1) * (k_j - 1) * np.log(n) / (2 * n) if n > 1 else 0.0


def penalised_forest(
    G: nx.Graph, penalty: str | float = "bic", n: int | None = None, weight: str = "weight"
) -> nx.Graph:
    """Maximum spanning forest keeping only edges whose penalised weight is positive.

    ``penalty="bic"`` subtracts :func:`bic_edge_penalty` (needs the node attribute
    ``states`` and the number of rows ``n``, or the graph attribute ``n``); a number
    is a plain threshold on the weight. Each edge keeps its original ``weight``
    and gains ``penalised_weight``.
    """
    n = n if n is not None else G.graph.get("n")
    H = nx.Graph()
    H.add_nodes_from(G.nodes(data=True))
    for u, v, data in G.edges(data=True):
        if penalty == "bic":
            if n is None:
                raise StructureError("a BIC forest needs the number of rows n")
            k_u, k_v = len(G.nodes[u]["states"]), len(G.nodes[v]["states"])
            score = data[weight] - bic_edge_penalty(k_u, k_v, n)
        else:
            score = data[weight] - float(penalty)
        if round(score, TIE_DECIMALS) > 0:
            H.add_edge(u, v, **{**data, "penalised_weight": score})
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
        for u, v in nx.bfs_edges(tree, r, sort_neighbors=lambda vs: sorted(vs, key=order.__getitem__)):
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


def tan_structure(feature_tree: nx.Graph, class_node: Hashable, root: Hashable | None = None) -> nx.DiGraph:
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


# ----------------------------------------------------------------------------- large d
#: :func:`treelearn.learn.chow_liu` finds the tree straight from the MI matrix
#: (:func:`tree_from_matrix`) instead of building the complete graph when there are
#: more variables than this; both give the same tree, edge for edge.
MATRIX_TREE_MIN_VARIABLES = 100


def round_ties(values: np.ndarray) -> np.ndarray:
    """``round(v, TIE_DECIMALS)`` for every element, equal to Python's ``round`` on each.

    ``rint(v * 10**12) / 10**12`` is the same double as Python's correctly rounded
    ``round`` whenever the product is clearly off a half-integer (the division of
    two exact doubles rounds correctly); the few values too close to call, or too
    large, go through Python's ``round``.
    """
    values = np.asarray(values, dtype=float)
    scale = 10.0**TIE_DECIMALS
    y = values * scale
    out = np.rint(y) / scale
    with np.errstate(invalid="ignore"):
        margin = np.abs(np.abs(y - np.floor(y)) - 0.5)
        risky = ~(margin > np.abs(y) * 2.0**-50) | ~(np.abs(y) < 2.0**52)
    for idx in zip(*np.nonzero(risky)):
        out[idx] = round(float(values[idx]), TIE_DECIMALS)
    return out


def spanning_tree_edges(weights: np.ndarray, present: np.ndarray | None = None) -> list[tuple[int, int]]:
    """Edges ``(i, j)``, ``i < j``, of the maximum spanning tree (or forest) of a weight matrix.

    Exactly the edges :func:`maximum_spanning_tree` picks on
    ``complete_graph(names, weights)``, in the order Kruskal adds them: edges are
    ranked by weight rounded to ``TIE_DECIMALS`` (larger first), then by ``(i, j)``
    in column order. That is a strict total order, so the maximum spanning forest
    is unique, and Prim's algorithm, run here on the dense matrix in
    ``O(d^2)`` vectorised steps, finds the same one. ``present`` (boolean,
    symmetric) marks the pairs that are edges; default all. Components of a
    forest are grown from their lowest-numbered variable.
    """
    d = weights.shape[0]
    upper = np.triu(np.ones((d, d), dtype=bool), k=1)
    W = round_ties(np.where(upper, weights, 0.0))  # the upper triangle, as complete_graph reads it
    W = W + W.T
    present = upper if present is None else np.asarray(present, dtype=bool) & upper
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
        better = present[v] & ~in_tree & (~has | (w > best_w) | ((w == best_w) & (pair < best_pair)))
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


def tree_from_matrix(
    names: Sequence[Hashable],
    weights: np.ndarray,
    states: Sequence[Sequence] | None = None,
    *,
    forest: str | float | None = None,
    n: int | np.ndarray | None = None,
) -> nx.Graph:
    """The skeleton that ``maximum_spanning_tree(complete_graph(names, weights, states))``
    (``forest=None``) or ``penalised_forest(..., forest, n)`` returns, with the same
    nodes, edges, attributes and order, computed from the matrix without building
    the complete graph (which has ``d (d - 1) / 2`` edges).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[0, .5, .2], [.5, 0, .2], [.2, .2, 0]])
    >>> T = tree_from_matrix(["a", "b", "c"], W)
    >>> sorted(T.edges(data="weight"))
    [('a', 'b', 0.5), ('a', 'c', 0.2)]
    """
    names = list(names)
    d = len(names)
    weights = np.asarray(weights, dtype=float)
    present = None
    score = None
    if forest is not None:
        if forest == "bic":
            if n is None:
                raise StructureError("a BIC forest needs the number of rows n")
            if states is None:
                raise StructureError("a BIC forest needs the states of every variable")
            k = np.array([len(s) for s in states], dtype=np.int64) - 1
            rows = np.broadcast_to(np.asarray(n, dtype=float), (d, d))  # per pair, or one n
            safe = np.where(rows > 1, rows, 2.0)
            penalty = np.where(
                rows > 1, np.outer(k, k).astype(float) * np.log(safe) / (2 * safe), 0.0
            )
            score = weights - penalty
        else:
            score = weights - float(forest)
        present = round_ties(score) > 0
        np.fill_diagonal(present, False)
    chosen = spanning_tree_edges(weights if score is None else score, present)
    order = nx.Graph()  # the edge order networkx's T.edges() would give
    order.add_nodes_from(names)
    order.add_edges_from((names[i], names[j], {"ij": (i, j)}) for i, j in chosen)
    T = nx.Graph()
    if n is not None and np.ndim(n) == 0:
        T.graph["n"] = n
    for j, name in enumerate(names):
        T.add_node(name, **({"states": list(states[j])} if states is not None else {}))
    for u, v, (i, j) in order.edges(data="ij"):
        attrs = {"weight": weights[i, j].item()}
        if score is not None:
            attrs["penalised_weight"] = score[i, j].item()
        T.add_edge(u, v, **attrs)
    return T


def spanning_skeleton(
    names: Sequence[Hashable],
    weights: np.ndarray,
    states: Sequence[Sequence] | None = None,
    *,
    forest: str | float | None = None,
    n: int | np.ndarray | None = None,
) -> nx.Graph:
    """Maximum spanning tree (or penalised forest) of a weight matrix, as an undirected graph.

    The NetworkX pipeline (:func:`complete_graph` -> :func:`maximum_spanning_tree`
    or :func:`penalised_forest`) up to ``MATRIX_TREE_MIN_VARIABLES`` variables;
    above that :func:`tree_from_matrix`, which picks the same edges without a
    graph of ``d (d - 1) / 2`` edges. Chow-Liu and TAN both choose their trees here.
    ``n`` (for ``forest="bic"``) is the number of rows, or a ``d x d`` matrix of
    rows per pair when values are missing (then the matrix path is taken).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[0, .5, .2], [.5, 0, .3], [.2, .3, 0]])
    >>> sorted(spanning_skeleton(["a", "b", "c"], W).edges())
    [('a', 'b'), ('b', 'c')]
    """
    if len(names) > MATRIX_TREE_MIN_VARIABLES or np.ndim(n) > 0:
        return tree_from_matrix(list(names), weights, states, forest=forest, n=n)
    G = complete_graph(list(names), weights, states)
    if n is not None:
        G.graph["n"] = n
    return maximum_spanning_tree(G) if forest is None else penalised_forest(G, forest, n)
