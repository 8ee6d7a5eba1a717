"""Structures as NetworkX graphs: the complete MI graph, spanning trees and forests,
rooting (``orient``), the naive Bayes star and the TAN structure.

Every function returns a new graph; none modifies its input.

There is one rule for choosing a tree or forest, and one routine that applies it
(:func:`spanning_skeleton` on a weight matrix): edges are ranked by weight rounded
to ``TIE_DECIMALS`` (larger first, rounded by :func:`round_ties`), then by their
order (column order for a weight matrix, edge order for a graph); whitelisted
edges come first and blacklisted ones never; a forest keeps only the edges whose
penalised weight (:func:`edge_penalty`, BIC or AIC, or a threshold) rounds above 0.
The maximum spanning forest under that strict order is unique, and a vectorised
Prim on the weight matrix finds it (:func:`spanning_tree_edges`).
:func:`maximum_spanning_tree` and :func:`penalised_forest` give a NetworkX graph's
weights to the same routine; they pick the edges networkx's Kruskal picks, in the
same order (``tests/test_spanning_trees.py`` checks both against networkx's Kruskal).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from numbers import Integral

import networkx as nx
import numpy as np
from numpy.typing import ArrayLike

from .._base.errors import ColumnNotFoundError, InputTypeError, StructureError
from .._base.limits import check_memory
from .._base.validation import Interval, Options, check_param
from ..stats._settings import CONSTRAINTS, NOTES
from ._constraints import edge_constraints

__all__ = [
    "TIE_DECIMALS",
    "complete_graph",
    "edge_penalty",
    "gc_paused",
    "is_acyclic",
    "maximum_spanning_tree",
    "orient",
    "orient_arrays",
    "oriented_children",
    "oriented_skeleton",
    "oriented_tree_arrays",
    "penalised_forest",
    "require_graph",
    "round_ties",
    "spanning_skeleton",
    "spanning_tree_edges",
    "star",
    "tan_structure",
]

#: Weights are compared at this many decimals when choosing edges, so that pairs
#: whose MI differs only by floating-point rounding tie, and ties are broken by
#: column order (deterministic across machines and BLAS builds).
TIE_DECIMALS = 12


#: Graphs of at least this many nodes are built with the cyclic garbage collector paused.
GC_PAUSE_NODES = 5000


@contextlib.contextmanager
def gc_paused(nodes: int) -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a graph of ``nodes`` nodes is built
    (from :data:`GC_PAUSE_NODES` on), restoring its state after.

    A graph is a few dicts per node, all reachable: the collections that building one
    triggers find nothing to free, and at 20,000 nodes they were a third of a sparse
    Chow-Liu model's construction (measured: 0.54 s -> 0.25 s for a ``TreeModel``).

    >>> with gc_paused(10**6):
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    pause = nodes >= GC_PAUSE_NODES and gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if pause:
            gc.enable()


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
    values = np.asarray(values, dtype=float)  # only read: the caller's array is not touched
    scale = 10.0**TIE_DECIMALS
    y = np.multiply(values, scale, out=np.empty_like(values))  # an array, even of one value
    out = np.rint(y)
    out /= scale
    out = np.asarray(out)
    with np.errstate(invalid="ignore"):
        # the same arithmetic in place (d x d weights: three temporaries, not eight)
        margin = np.floor(y, out=np.empty_like(y))
        np.subtract(y, margin, out=margin)
        np.abs(margin, out=margin)
        margin -= 0.5
        np.abs(margin, out=margin)
        size = np.abs(y, out=y)
        risky = ~(size < 2.0**52)
        size *= 2.0**-50
        risky |= ~(margin > size)
    for idx in np.flatnonzero(risky):
        out.flat[idx] = round(float(values.flat[idx]), TIE_DECIMALS)
    return out


def edge_penalty(
    score: str, k_i: ArrayLike, k_j: ArrayLike, n: ArrayLike, n_classes: int = 1
) -> float | np.ndarray:
    """The penalty of an edge of a penalised forest, in nats per row (so that it compares
    with a mutual information); the one such penalty.

    An edge between variables of ``k_i`` and ``k_j`` states adds ``dof = n_classes
    (k_i - 1)(k_j - 1)`` parameters (``n_classes = 1`` for a Chow-Liu tree, ``|C|``
    for TAN's class-conditional one). ``score="bic"``: ``dof ln(n) / (2 n)``, 0 where
    ``n <= 1``; ``score="aic"``: ``dof / n``, ``dof`` where ``n <= 1``. ``k_i``,
    ``k_j`` and ``n`` (rows) broadcast against each other, so one call penalises
    every pair at once: ``k[:, None], k[None, :]`` with one number of rows, or with
    a ``d x d`` matrix of the rows each pair was counted on (missing values).
    Numbers in give a float out.

    Examples
    --------
    >>> round(edge_penalty("bic", 3, 3, 100), 6)     # 4 ln(100) / 200
    0.092103
    >>> edge_penalty("aic", 2, 3, 10, n_classes=2)   # 2 * 1 * 2 / 10
    0.4
    >>> k = np.array([2, 3])
    >>> (edge_penalty("bic", k[:, None], k[None, :], np.array([[1, 50], [50, 100]])) * 1e3).round(1)
    array([[ 0. , 78.2],
           [78.2, 92.1]])
    """
    check_param("score", score, [Options("bic", "aic")])
    rows = np.asarray(n, dtype=float)
    safe = np.where(rows > 1, rows, 2.0)  # log and division only where they are used
    dof = n_classes * (np.asarray(k_i) - 1) * (np.asarray(k_j) - 1)
    if score == "bic":
        penalty = np.where(rows > 1, dof * np.log(safe) / (2 * safe), 0.0)
    else:
        penalty = dof / np.where(rows > 1, rows, 1.0)
    return float(penalty) if penalty.ndim == 0 else penalty


def complete_graph(
    names: Sequence[Hashable], weights: np.ndarray, states: Sequence[Sequence] | None = None
) -> nx.Graph:
    """Complete undirected graph on ``names`` with edge attribute ``weight = weights[i, j]``.

    Edges are added in column order ``(0, 1), (0, 2), ..., (1, 2), ...``, which is
    the order in which ties are broken downstream. Only the upper triangle of
    ``weights`` is read.

    Parameters
    ----------
    names : sequence of hashable
        The nodes, in column order.
    weights : numpy.ndarray
        A ``d x d`` matrix of numbers (``d = len(names)``), e.g. pairwise mutual
        information.
    states : sequence of sequences, default=None
        Each node's states, stored as the node attribute ``states`` (what a BIC or AIC
        :func:`penalised_forest` reads).

    Returns
    -------
    networkx.Graph
        ``d (d - 1) / 2`` edges, each with its ``weight``.

    Raises
    ------
    InputTypeError
        ``weights`` is not a ``d x d`` matrix of numbers.

    See Also
    --------
    maximum_spanning_tree : its best tree.
    penalised_forest : its best penalised forest.

    Examples
    --------
    >>> G = complete_graph(["a", "b", "c"], np.array([[0, .5, .2], [.5, 0, .3], [.2, .3, 0]]))
    >>> list(G.edges(data="weight"))
    [('a', 'b', 0.5), ('a', 'c', 0.2), ('b', 'c', 0.3)]
    """
    d = len(names)
    try:
        matrix = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        matrix = None
    if matrix is None or matrix.shape != (d, d):
        raise InputTypeError(
            f"complete_graph needs weights as a {d} x {d} matrix of numbers (one row and "
            f"column per name), not {weights!r:.60}"
        )
    G = nx.Graph()
    G.add_nodes_from(
        (name, {"states": list(states[j])} if states is not None else {})
        for j, name in enumerate(names)
    )
    iu, ju = np.triu_indices(d, k=1)
    values = matrix[iu, ju].tolist()
    G.add_weighted_edges_from(
        (names[i], names[j], w) for i, j, w in zip(iu.tolist(), ju.tolist(), values)
    )
    return G


def _graph_weights(G: nx.Graph, weight: str) -> tuple[list, np.ndarray, np.ndarray, np.ndarray]:
    """``(nodes, weights, present, order)``: ``G``'s edges as ``d x d`` matrices over its node
    order (upper triangle), ``order`` the position of each edge in ``G``'s edge order (the
    order networkx's Kruskal breaks ties in). A missing ``weight`` counts as 1; self-loops,
    which no tree has, are left out."""
    if G.is_directed():
        raise StructureError(
            "a spanning tree needs an undirected graph; got a directed one (use G.to_undirected())"
        )
    nodes = list(G.nodes)
    d = len(nodes)
    check_memory(
        8.0 * d * d,
        f"the {d} x {d} weight matrix of a spanning tree over {d} nodes",
        "give a graph over fewer nodes (for a large sparse graph, networkx's "
        "maximum_spanning_tree works from its edges)",
    )
    index = {v: j for j, v in enumerate(nodes)}
    edges = list(G.edges(data=weight, default=1.0))
    i = np.fromiter((index[u] for u, _, _ in edges), dtype=np.int64, count=len(edges))
    j = np.fromiter((index[v] for _, v, _ in edges), dtype=np.int64, count=len(edges))
    w = np.array([float(x) for _, _, x in edges], dtype=float)
    proper = i != j
    lo, hi = np.minimum(i, j)[proper], np.maximum(i, j)[proper]
    weights = np.zeros((d, d))
    weights[lo, hi] = w[proper]
    present = np.zeros((d, d), dtype=bool)
    present[lo, hi] = True
    order = np.zeros((d, d), dtype=np.int64)
    order[lo, hi] = np.flatnonzero(proper)
    return nodes, weights, present, order


def maximum_spanning_tree(G: nx.Graph, weight: str = "weight") -> nx.Graph:
    """:func:`networkx.maximum_spanning_tree` with deterministic tie-breaking.

    Weights equal to ``TIE_DECIMALS`` decimals tie, and ties go to the edge that
    comes first in ``G``'s edge order (column order for :func:`complete_graph`),
    as in Kruskal's stable sort. A missing ``weight`` counts as 1. Node, edge and
    graph attributes are kept; ``G`` is not changed. The edges are chosen by
    :func:`spanning_skeleton`'s routine, so on a complete graph it picks the edges
    ``spanning_skeleton`` picks from the weight matrix (through ``d x d`` matrices:
    for a large sparse graph use networkx's own).

    Parameters
    ----------
    G : networkx.Graph
        An undirected graph (not necessarily complete or connected).
    weight : str, default="weight"
        The edge attribute to maximise.

    Returns
    -------
    networkx.Graph
        The maximum spanning tree (a forest when ``G`` is not connected).

    Raises
    ------
    StructureError
        ``G`` is directed, or a weight is NaN.
    ResourceLimitError
        The ``d x d`` matrices would exceed ``treelearn.limits.MEMORY_LIMIT``.

    See Also
    --------
    penalised_forest : keeps only the edges worth their parameters.
    orient : roots the tree.
    chow_liu : the whole Chow-Liu learner.

    References
    ----------
    .. [1] Kruskal, J. B. (1956). On the shortest spanning subtree of a graph and the
       traveling salesman problem. Proceedings of the American Mathematical Society
       7(1), 48-50.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph()
    >>> G.add_weighted_edges_from([("a", "b", 0.5), ("b", "c", 0.2), ("a", "c", 0.2)])
    >>> sorted(maximum_spanning_tree(G).edges())
    [('a', 'b'), ('a', 'c')]
    """
    return penalised_forest(G, None, weight=weight)


def require_graph(G: object, argument: str, function: str) -> None:
    """``G`` is a NetworkX graph, or an :class:`~treelearn.InputTypeError` naming the argument.

    >>> require_graph(nx.Graph(), "G", "orient")
    >>> require_graph([("a", "b")], "tree", "orient")
    Traceback (most recent call last):
    ...
    treelearn.InputTypeError: orient takes tree as an nx.Graph, not list: build one with nx.Graph(edges)
    """
    if not isinstance(G, nx.Graph):
        raise InputTypeError(
            f"{function} takes {argument} as an nx.Graph, not {type(G).__name__}: build one "
            f"with nx.Graph(edges)"
        )


def penalised_forest(
    G: nx.Graph,
    penalty: str | float | None = "bic",
    n: float | None = None,
    weight: str = "weight",
) -> nx.Graph:
    """Maximum spanning forest keeping only edges whose penalised weight is positive.

    ``penalty="bic"`` or ``"aic"`` subtracts :func:`edge_penalty` (needs the node
    attribute ``states`` and the number of rows ``n``, or the graph attribute ``n``);
    a number is a plain threshold on the weight; ``None`` keeps every edge (the
    maximum spanning tree). A penalised weight counts as positive when it rounds
    (to ``TIE_DECIMALS``) above 0. Each kept edge keeps its attributes and gains
    ``penalised_weight``; ``G`` is not changed. :func:`spanning_skeleton`'s routine
    chooses the edges.

    Parameters
    ----------
    G : networkx.Graph
        An undirected weighted graph; for ``"bic"`` / ``"aic"`` each node has the
        attribute ``states`` (as :func:`complete_graph` sets it).
    penalty : {"bic", "aic"}, float or None, default="bic"
        ``"bic"``: an edge costs ``(k_i - 1)(k_j - 1) ln(n) / (2 n)``, ``"aic"``:
        ``(k_i - 1)(k_j - 1) / n``; a number is a plain threshold on the weight;
        ``None`` keeps every edge.
    n : float, default=None
        The number of rows (default: the graph attribute ``n``).
    weight : str, default="weight"
        The edge attribute (mutual information in nats per row).

    Returns
    -------
    networkx.Graph
        The forest; every edge gains ``penalised_weight``.

    Raises
    ------
    StructureError
        A BIC or AIC forest without ``n`` or without some node's ``states``.

    See Also
    --------
    maximum_spanning_tree : the unpenalised tree.
    chow_liu : ``forest="bic"`` learns such a forest from data.

    References
    ----------
    .. [1] Edwards, D., de Abreu, G. C. G. and Labouriau, R. (2010). Selecting
       high-dimensional mixed graphical models using minimal AIC or BIC forests.
       BMC Bioinformatics 11, 18.

    Examples
    --------
    >>> G = complete_graph(["a", "b", "c"], np.array([[0, .5, .2], [.5, 0, .3], [.2, .3, 0]]))
    >>> list(penalised_forest(G, 0.25).edges(data="penalised_weight"))
    [('a', 'b', 0.25), ('b', 'c', 0.04999999999999999)]
    >>> H = complete_graph(["a", "b"], np.array([[0, .01], [.01, 0]]), [[0, 1, 2], [0, 1, 2]])
    >>> penalised_forest(H, "bic", n=100).number_of_edges()   # 0.01 < edge_penalty("bic", 3, 3, 100)
    0
    """
    require_graph(G, "G", "penalised_forest")
    penalty = check_param(
        "penalty", penalty, CONSTRAINTS["forest"], note="a threshold on the weight"
    )
    nodes, weights, present, order = _graph_weights(G, weight)
    k = None
    if penalty in ("bic", "aic"):
        n = n if n is not None else G.graph.get("n")
        lacking = [v for v in nodes if "states" not in G.nodes[v]]
        if present.any() and (n is None or lacking):
            raise StructureError(
                f"a {penalty.upper()} forest needs the number of rows n (or the graph attribute "
                f"'n') and the node attribute 'states' of every node"
                + (f"; {lacking[0]!r} has none" if lacking else "")
            )
        k = np.array([len(G.nodes[v].get("states", ())) for v in nodes], dtype=np.int64)
        n = 0 if n is None else n  # no edge to penalise
    chosen, score = _best_forest(
        weights, forest=penalty, k=k, n=n, present=present, order=order, names=nodes
    )

    def attributes(i: int, j: int) -> dict:
        data = dict(G.edges[nodes[i], nodes[j]])
        if score is not None:
            data["penalised_weight"] = score[i, j].item()
        return data

    return _forest_graph(nodes, [G.nodes[v] for v in nodes], chosen, attributes, G.graph)


def is_acyclic(graph: nx.DiGraph) -> bool:
    """``nx.is_directed_acyclic_graph(graph)``; for a large graph where every node has at most
    one parent (a tree or forest, as every learned tree is) by pointer doubling in numpy:
    acyclic iff every node's chain of parents ends. networkx's topological pass was ~0.3 s
    per check at 50,000 nodes, and a sparse tree model is checked twice.

    >>> is_acyclic(nx.DiGraph([("a", "b"), ("b", "c")])), is_acyclic(nx.DiGraph([("a", "b"), ("b", "a")]))
    (True, False)
    """
    n = graph.number_of_nodes()
    if n < GC_PAUSE_NODES or not graph.is_directed() or graph.is_multigraph():
        return nx.is_directed_acyclic_graph(graph)
    index = {v: i for i, v in enumerate(graph)}
    m = graph.number_of_edges()
    parent = np.fromiter((index[u] for u, _ in graph.edges()), dtype=np.int64, count=m)
    child = np.fromiter((index[v] for _, v in graph.edges()), dtype=np.int64, count=m)
    if m and np.bincount(child, minlength=n).max() > 1:
        return nx.is_directed_acyclic_graph(graph)
    up = np.full(n, -1, dtype=np.int64)  # each node's parent (-1: a root)
    up[child] = parent
    for _ in range(int(n).bit_length() + 1):  # after k rounds: the 2**k-th ancestor
        up = np.where(up >= 0, up[np.maximum(up, 0)], -1)
    return bool((up < 0).all())


def orient(tree: nx.Graph, root: Hashable | None = None) -> nx.DiGraph:
    """Direct every edge of a tree (or forest) away from its root.

    ``root=None`` roots each component at its first node in ``tree``'s node order
    (for a learned tree: its first column). With a forest, ``root`` roots its own
    component and every other component gets its first node. The roots are listed
    in the graph attribute ``roots``: ``root`` first, then the others in node order.

    Parameters
    ----------
    tree : networkx.Graph
        An undirected tree or forest.
    root : hashable, default=None
        The root of its component (default: each component's first node).

    Returns
    -------
    networkx.DiGraph
        The same nodes and edges (with their attributes), directed away from the roots;
        the graph attribute ``roots`` lists them.

    Raises
    ------
    StructureError
        ``tree`` is directed or has a cycle.
    ColumnNotFoundError
        ``root`` is not a node of ``tree``.

    See Also
    --------
    maximum_spanning_tree : the tree to orient.
    tan_structure : orients a feature tree under a class.

    Examples
    --------
    >>> import networkx as nx
    >>> D = orient(nx.Graph([("a", "b"), ("b", "c")]), root="c")
    >>> sorted(D.edges())
    [('b', 'a'), ('c', 'b')]
    """
    require_graph(tree, "tree", "orient")
    if tree.is_directed():
        raise StructureError("orient needs an undirected tree; got a directed graph")
    if root is not None and root not in tree:
        raise ColumnNotFoundError(
            f"root {root!r} is not a variable of the tree; the variables are {list(tree.nodes)}"
        )
    if tree.number_of_nodes() >= GC_PAUSE_NODES and not tree.is_multigraph():
        return _orient_large(tree, root)
    if tree.number_of_edges() != tree.number_of_nodes() - nx.number_connected_components(tree):
        raise StructureError("orient needs a tree or forest; the graph has a cycle")
    with gc_paused(tree.number_of_nodes()):
        order = {node: i for i, node in enumerate(tree.nodes)}
        D = nx.DiGraph()
        D.graph.update(tree.graph)
        D.add_nodes_from(tree.nodes(data=True))
        roots = []
        for component in sorted(
            nx.connected_components(tree), key=lambda c: min(order[v] for v in c)
        ):
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


def orient_arrays(
    d: int, a: np.ndarray, b: np.ndarray, root: int | None = None
) -> tuple[np.ndarray, np.ndarray, list]:
    """:func:`orient` on index arrays: the forest of nodes ``0 .. d-1`` and edges ``(a, b)``
    directed away from its roots, as ``(parent, child, roots)``: the edges in the order
    :func:`orient` adds them (by parent, then child, in node order) and the roots (each
    component's first node, ``root`` in its own; ``root`` first). Each node's parent comes
    from one breadth-first search in scipy, from a node joined to every component's root.

    The graph ``orient``'s breadth-first pass builds is determined by the parents alone:
    a node's children are added when the node is reached, in node order (its
    ``sort_neighbors``), so its edges are listed by parent in node order, then child in
    node order. At 50,000 nodes networkx's search, a sort per node and one ``add_edge``
    per edge were ~0.6 s; this is ~0.2 s.

    >>> parent, child, roots = orient_arrays(3, np.array([0, 1]), np.array([1, 2]), root=2)
    >>> parent.tolist(), child.tolist(), roots
    ([1, 2], [0, 1], [2])
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import breadth_first_order, connected_components

    m = len(a)
    # the edges in a (d + 1) x (d + 1) matrix: node d, alone here, becomes the search's hub
    edges = coo_matrix((np.ones(m), (a, b)), shape=(d + 1, d + 1))
    n_comp, label = connected_components(edges, directed=False)
    n_comp, label = n_comp - 1, label[:d]  # node d is a component of its own, numbered last
    if m != d - n_comp:
        raise StructureError("orient needs a tree or forest; the graph has a cycle")
    # each component's root: its first node (labels are numbered in order of first node),
    # the root asked for in its own
    roots = np.empty(n_comp, dtype=np.int64)
    roots[label[::-1]] = np.arange(d - 1, -1, -1)  # the last write, each label's first node
    if root is not None:
        roots[label[root]] = root
    # one search from an extra node d joined to every root: each node's parent (in a tree
    # the parent of a node is the same whatever order the search takes)
    # (the hub's edges and the forest's are distinct: one matrix of both, no sparse sum)
    joined = coo_matrix(
        (
            np.ones(m + n_comp),
            (np.concatenate([a, np.full(n_comp, d)]), np.concatenate([b, roots])),
        ),
        shape=(d + 1, d + 1),
    ).tocsr()
    _, pred = breadth_first_order(joined, d, directed=False, return_predecessors=True)
    child = np.flatnonzero(pred[:d] != d)
    parent = pred[child]
    listed = np.argsort(parent.astype(np.int64) * d + child)  # (parent, child): distinct keys
    ordered = roots.tolist()
    if root is not None:  # the root asked for comes first: it is ``model.root``
        ordered.remove(root)
        ordered.insert(0, root)
    return parent[listed], child[listed], ordered


def _orient_large(tree: nx.Graph, root: Hashable | None) -> nx.DiGraph:
    """:func:`orient` of a large tree or forest, the same graph: the parents from
    :func:`orient_arrays`, then the nodes and the edges added once each."""
    nodes = list(tree.nodes)
    d = len(nodes)
    index = {v: i for i, v in enumerate(nodes)}
    m = tree.number_of_edges()
    ends = np.fromiter((index[x] for e in tree.edges() for x in e), dtype=np.int64, count=2 * m)
    parent, child, roots = orient_arrays(
        d, ends[0::2], ends[1::2], None if root is None else index[root]
    )
    adj = tree.adj
    with gc_paused(d):
        D = nx.DiGraph()
        D.graph.update(tree.graph)
        D.add_nodes_from(tree.nodes(data=True))
        D.add_edges_from(
            (nodes[u], nodes[v], adj[nodes[u]][nodes[v]])
            for u, v in zip(parent.tolist(), child.tolist())
        )
        D.graph["roots"] = [nodes[r] for r in roots]
    return D


def star(center: Hashable, leaves: Iterable[Hashable]) -> nx.DiGraph:
    """The naive Bayes structure: ``center -> leaf`` for every leaf.

    Parameters
    ----------
    center : hashable
        The class (the only root).
    leaves : iterable of hashable
        The features.

    Returns
    -------
    networkx.DiGraph
        One edge per leaf; graph attributes ``roots = [center]`` and ``class = center``.

    Raises
    ------
    InputTypeError
        ``leaves`` is a string or not iterable.
    StructureError
        ``center`` is also a leaf.

    See Also
    --------
    tan_structure : the star plus a feature tree.
    NaiveBayes : the classifier of this structure.

    Examples
    --------
    >>> sorted(star("class", ["x", "y"]).edges())
    [('class', 'x'), ('class', 'y')]
    """
    if isinstance(leaves, str) or not isinstance(leaves, Iterable):
        raise InputTypeError(
            f"star takes leaves as a list of names, not {type(leaves).__name__}: e.g. "
            f"star('class', ['x', 'y'])"
        )
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

    Parameters
    ----------
    feature_tree : networkx.Graph
        An undirected tree (or forest) over the features.
    class_node : hashable
        The class; not a node of ``feature_tree``.
    root : hashable, default=None
        The root of the feature tree (default: its first node).

    Returns
    -------
    networkx.DiGraph
        ``class -> feature`` for every feature plus the oriented feature tree; node
        attribute ``parents`` (class first), graph attributes ``roots``, ``class`` and
        ``feature_roots``.

    Raises
    ------
    StructureError
        ``class_node`` is a node of ``feature_tree``, or the tree has a cycle.

    See Also
    --------
    star : naive Bayes' structure.
    TAN : the classifier that learns the feature tree.

    References
    ----------
    .. [1] Friedman, N., Geiger, D. and Goldszmidt, M. (1997). Bayesian network
       classifiers. Machine Learning 29(2-3), 131-163.

    Examples
    --------
    >>> import networkx as nx, treelearn as tl
    >>> D = tl.tan_structure(nx.Graph([("a", "b"), ("b", "c")]), "class", root="b")
    >>> D.nodes["a"]["parents"], D.nodes["b"]["parents"]
    (['class', 'b'], ['class'])
    >>> D.graph["roots"], D.number_of_edges()   # 3 class edges + 2 tree edges
    (['class'], 5)
    """
    require_graph(feature_tree, "feature_tree", "tan_structure")
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
    weights: np.ndarray,
    present: np.ndarray | None = None,
    *,
    order: np.ndarray | None = None,
    names: Sequence[Hashable] | None = None,
) -> list[tuple[int, int]]:
    """Edges ``(i, j)``, ``i < j``, of the maximum spanning tree (or forest) of a weight matrix.

    Exactly the edges networkx's Kruskal picks on ``complete_graph(names,
    weights)`` (weights rounded by :func:`round_ties`), in the order Kruskal adds
    them: edges are ranked by rounded weight (larger first), then by ``(i, j)`` in
    column order, or by ``order[i, j]`` (smaller first; distinct integers) when
    given. That is a strict total order, so the maximum spanning forest is
    unique, and Prim's algorithm, run here on the dense matrix in ``O(d^2)``
    vectorised steps, finds the same one. Only the upper triangle of ``weights``
    (and ``order``) is read. ``present`` (boolean) marks the pairs that are edges;
    default all. Components of a forest are grown from their lowest-numbered variable.
    ``names`` (of the variables) only word the error for a NaN weight.

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
        i, j = (int(x) for x in np.argwhere(present & np.isnan(W))[0])
        pair = (i, j) if names is None else (names[i], names[j])
        raise StructureError(
            f"NaN found as the weight of the pair {pair!r}: a spanning tree needs a number "
            f"for every pair; check the statistics the weights came from (row weights, "
            f"counts) for NaN"
        )
    if d <= RANKED_PRIM_MAX:
        return _prim_by_rank(W, present, order)
    return _prim_by_pairs(W, present, order)


#: up to this many variables the spanning tree ranks every pair once (one sort of the
#: ``d (d - 1) / 2`` weights) and runs Prim on the ranks: 3 array operations per step
#: (d = 50: 0.4 ms against 1.0 ms). Wider, the sort costs more than it saves (d = 1,000:
#: 87 ms against 56 ms), and Prim compares weights and tie orders as it goes.
RANKED_PRIM_MAX = 300


def _prim_by_rank(W: np.ndarray, present: np.ndarray, order: np.ndarray | None) -> list:
    """:func:`spanning_tree_edges` from the rounded symmetric weights ``W`` and the upper
    triangle ``present``, through each pair's place in Kruskal's order: Kruskal on the
    best pairs first (:func:`_kruskal_prefix`), Prim when those do not settle it."""
    d = W.shape[0]
    # Every pair that is an edge gets its place in Kruskal's order (rounded weight
    # descending, then the tie order): one sort of the upper triangle, after which Prim
    # compares single distinct integers (a few array operations per step)
    iu, ju = np.nonzero(present)  # row-major: the (i, j) column order
    keys = -W[iu, ju]
    budget = KRUSKAL_BUDGET * d
    if order is None and budget < len(keys):
        # the best pairs only: those with a key up to the budget-th smallest, ties at it
        # included, in index order, sorted stably: the first of the whole ranking
        kth = np.partition(keys, budget - 1)[budget - 1]
        head = np.flatnonzero(keys <= kth)
        found = _kruskal_prefix(d, iu, ju, head[np.argsort(keys[head], kind="stable")], False)
        if found is not None:
            return found
    if order is None:
        ranked = np.argsort(keys, kind="stable")
    else:
        ranked = np.lexsort((np.asarray(order, dtype=np.int64)[iu, ju], keys))
    found = _kruskal_prefix(d, iu, ju, ranked[:budget], budget >= len(ranked))
    if found is not None:
        return found
    absent = len(iu)  # larger than every rank: no edge
    R = np.full((d, d), absent, dtype=np.int64)
    place = np.empty(len(iu), dtype=np.int64)
    place[ranked] = np.arange(len(iu))
    R[iu, ju] = place
    R[ju, iu] = place
    done = absent + 1  # larger still: a node already in the tree is never picked
    best = np.full(d, absent, dtype=np.int64)  # rank of each node's best edge into the tree
    chosen: list[int] = []  # ranks are distinct: each names its edge
    for _ in range(d):
        x = int(np.argmin(best))  # the best edge; else (a new tree) the first node left
        if best[x] < absent:
            chosen.append(int(best[x]))
        np.minimum(best, R[x], out=best)
        R[:, x] = done  # x is in the tree: no later row offers an edge to it
        best[x] = done
    # Kruskal's order: rounded weight descending, then the tie order (the rank)
    e = ranked[np.sort(np.array(chosen, dtype=np.int64))]
    return list(zip(iu[e].tolist(), ju[e].tolist()))


#: edges per variable Kruskal looks at (best first) before Prim takes over: a tree is
#: usually joined within the first few times ``d`` edges (random weights: about
#: ``d ln d / 2``), each a few list operations, where Prim's ``d`` steps are array operations
#: over every node (10,000 x 50 binary: 0.21 -> ~0.08 ms; d = 200: 2.5 -> ~0.5 ms)
KRUSKAL_BUDGET = 8


def _kruskal_prefix(
    d: int, iu: np.ndarray, ju: np.ndarray, top: np.ndarray, every_pair: bool
) -> list | None:
    """The forest Kruskal builds from the best pairs ``top`` (indices into ``iu``, ``ju``,
    the first of Kruskal's order), if that is the whole answer: a spanning tree (``d - 1``
    edges), or ``every_pair`` is in ``top``. ``None`` otherwise (Prim finishes: the order is
    strict, so the forest is unique and both find it). Edges in Kruskal's order."""
    need = d - 1
    if need <= 0:
        return []
    group = list(range(d))  # union-find, halving the paths as it goes
    edges = []
    for i, j in zip(iu[top].tolist(), ju[top].tolist()):
        a = i
        while group[a] != a:
            group[a] = group[group[a]]
            a = group[a]
        b = j
        while group[b] != b:
            group[b] = group[group[b]]
            b = group[b]
        if a != b:
            group[a] = b
            edges.append((i, j))
            if len(edges) == need:
                return edges
    return edges if every_pair else None


def _prim_by_pairs(W: np.ndarray, present: np.ndarray, order: np.ndarray | None) -> list:
    """:func:`spanning_tree_edges` from the rounded symmetric weights ``W`` and the upper
    triangle ``present``, comparing weights, then tie orders, at each step of Prim."""
    d = W.shape[0]
    upper = np.triu(np.ones((d, d), dtype=bool), k=1)
    present = present | present.T
    idx = np.arange(d)
    if order is not None:
        order = np.where(upper, np.asarray(order, dtype=np.int64), 0)
        order = order + order.T
    in_tree = np.zeros(d, dtype=bool)
    has = np.zeros(d, dtype=bool)  # has a candidate edge into the tree
    best_w = np.zeros(d)
    best_pair = np.zeros(d, dtype=np.int64)  # the rank among ties of the candidate edge
    best_u = np.zeros(d, dtype=np.int64)
    edges = []

    def add(v: int) -> None:
        in_tree[v] = True
        has[v] = False
        w = W[v]
        pair = np.minimum(idx, v) * d + np.maximum(idx, v) if order is None else order[v]
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
    # Kruskal's order: rounded weight descending, then the tie order
    if order is None:
        edges.sort(key=lambda e: (-W[e[0], e[1]], e))
    else:
        edges.sort(key=lambda e: (-W[e[0], e[1]], order[e[0], e[1]]))
    return edges


def _best_forest(
    weights: np.ndarray,
    *,
    forest: str | float | None = None,
    k: np.ndarray | None = None,
    n: ArrayLike | None = None,
    n_classes: int = 1,
    present: np.ndarray | None = None,
    required: np.ndarray | None = None,
    forbidden: np.ndarray | None = None,
    order: np.ndarray | None = None,
    names: Sequence[Hashable] | None = None,
) -> tuple[list[tuple[int, int]], np.ndarray | None]:
    """The rule, once: ``(edges in Kruskal's order, penalised weights or None)``.

    ``forest`` subtracts :func:`edge_penalty` (``k``: states per variable, ``n``: rows)
    or a threshold and keeps the pairs whose penalised weight rounds above 0;
    ``forbidden`` pairs are never edges; ``required`` ones always are, ranked above
    every other (Kruskal started from them: they contract the graph, the rest is
    the best forest of the contracted graph).
    """
    score = None
    if forest is not None:
        if forest in ("bic", "aic"):
            if n is None or k is None:
                raise StructureError(
                    f"a {forest.upper()} forest needs the number of rows n and "
                    f"the states of every variable"
                )
            score = weights - edge_penalty(forest, k[:, None], k[None, :], n, n_classes)
        else:
            score = weights - float(forest)
        kept = round_ties(score) > 0
        present = kept if present is None else present & kept
    rank = weights if score is None else score
    if forbidden is not None:
        present = ~forbidden if present is None else present & ~forbidden
    if required is not None and required.any():
        present = required if present is None else present | required
        rank = np.where(required, np.inf, rank)
    return spanning_tree_edges(rank, present, order=order, names=names), score


def _forest_graph(
    names: Sequence[Hashable],
    node_attrs: Sequence[dict],
    chosen: list[tuple[int, int]],
    edge_attrs: Callable[[int, int], dict],
    graph_attrs: dict,
) -> nx.Graph:
    """The chosen forest as the graph networkx's Kruskal gives: the nodes in order, then the
    edges listed as networkx lists a graph built from the nodes and then Kruskal's edges (by
    the edge's first endpoint in node order, then by when Kruskal added it), an order that
    ``orient``'s ties and the saved files follow."""
    T = nx.Graph()
    T.graph.update(graph_attrs)
    T.add_nodes_from((name, dict(attrs)) for name, attrs in zip(names, node_attrs))
    listed = sorted(range(len(chosen)), key=lambda e: (chosen[e][0], e))
    T.add_edges_from(
        (names[chosen[e][0]], names[chosen[e][1]], edge_attrs(*chosen[e])) for e in listed
    )
    return T


def spanning_skeleton(
    names: Sequence[Hashable],
    weights: np.ndarray,
    states: Sequence[Sequence] | None = None,
    *,
    forest: str | float | None = None,
    n: float | np.ndarray | None = None,
    n_classes: int = 1,
    whitelist: Iterable[Sequence[Hashable]] | None = None,
    blacklist: Iterable[Sequence[Hashable]] | None = None,
) -> nx.Graph:
    """Maximum spanning tree (or penalised forest) of a weight matrix, as an undirected graph.

    The one routine with which Chow-Liu and TAN choose their trees, for any number
    of variables. It returns what ``maximum_spanning_tree(complete_graph(names,
    weights, states))`` (``forest=None``) or ``penalised_forest(..., forest, n)``
    returns, with the same nodes, edges, attributes and order, without building
    the complete graph of ``d (d - 1) / 2`` edges (:func:`spanning_tree_edges`).

    Parameters
    ----------
    names, weights, states : the variables, the ``d x d`` weights (only the upper
        triangle is read) and each variable's states (node attribute ``states``).
    forest : ``None`` for a spanning tree; ``"bic"`` or ``"aic"`` keeps the edges
        whose weight exceeds :func:`edge_penalty` (needs ``states`` and ``n``); a
        number keeps the edges whose weight exceeds it. Kept edges carry their
        penalised weight as ``penalised_weight``.
    n : the number of rows (kept as the graph attribute ``n``), or a ``d x d``
        matrix of rows per pair when values are missing.
    n_classes : the penalty's multiplier of an edge's parameters (TAN's classes).
    whitelist, blacklist : undirected pairs of names the result must contain /
        must not contain (bnlearn's arguments; see :func:`edge_constraints`): the
        best spanning tree (or forest) among those with every whitelisted edge,
        whatever its penalised weight, and no blacklisted one. Blacklisting may
        disconnect the graph: then the result is a forest even with ``forest=None``.

    Examples
    --------
    >>> W = np.array([[0, .5, .2], [.5, 0, .3], [.2, .3, 0]])
    >>> list(spanning_skeleton(["a", "b", "c"], W).edges(data="weight"))
    [('a', 'b', 0.5), ('b', 'c', 0.3)]
    >>> F = spanning_skeleton(["a", "b", "c"], W, [[0, 1]] * 3, forest="bic",
    ...                       n=np.array([[1, 9, 9], [9, 1, 30], [9, 30, 1]]))
    >>> list(F.edges())   # b-c: 0.3 > ln(30) / 60; a-b: 0.5 > ln(9) / 18; a-c: dropped
    [('a', 'b'), ('b', 'c')]
    >>> sorted(spanning_skeleton(["a", "b", "c"], W, blacklist=[("a", "b")]).edges())
    [('a', 'c'), ('b', 'c')]
    >>> sorted(spanning_skeleton(["a", "b", "c"], W, whitelist=[("a", "c")]).edges())
    [('a', 'b'), ('a', 'c')]
    """
    return _forest_graph(
        *_skeleton_parts(names, weights, states, forest, n, n_classes, whitelist, blacklist)
    )


def _skeleton_parts(
    names: Sequence[Hashable],
    weights: np.ndarray,
    states: Sequence[Sequence] | None,
    forest: str | float | None,
    n: float | np.ndarray | None,
    n_classes: int,
    whitelist: Iterable[Sequence[Hashable]] | None,
    blacklist: Iterable[Sequence[Hashable]] | None,
) -> tuple[list, list[dict], list[tuple[int, int]], Callable[[int, int], dict], dict]:
    """:func:`spanning_skeleton`'s choice, before any graph: the names, each node's
    attributes, the chosen edges (Kruskal's order), each edge's attributes, the graph's."""
    forest = check_param("forest", forest, CONSTRAINTS["forest"], note=NOTES["forest"])
    n_classes = check_param("n_classes", n_classes, [Interval(Integral, 1, None)])
    names = list(names)
    weights = np.asarray(weights, dtype=float)
    k = None if states is None else np.array([len(s) for s in states], dtype=np.int64)
    required = forbidden = None
    if whitelist or blacklist:
        required, forbidden = edge_constraints(names, whitelist, blacklist)
    chosen, score = _best_forest(
        weights,
        forest=forest,
        k=k,
        n=n,
        n_classes=n_classes,
        required=required,
        forbidden=forbidden,
        names=names,
    )

    def attributes(i: int, j: int) -> dict:
        if score is None:
            return {"weight": weights[i, j].item()}
        return {"weight": weights[i, j].item(), "penalised_weight": score[i, j].item()}

    nodes = [{"states": list(s)} for s in states] if states is not None else [{}] * len(names)
    graph = {"n": n} if n is not None and np.ndim(n) == 0 else {}
    return names, nodes, chosen, attributes, graph


def oriented_children(
    names: Sequence[Hashable], chosen: Sequence[tuple[int, int]], root: Hashable | None = None
) -> tuple[list[list[int]], list[int], int | None]:
    """The forest of edges ``chosen`` (index pairs) directed away from its roots, as
    :func:`oriented_skeleton` lists it: ``(children, roots, start)``, each node's children in
    the order its edges are added (node order), the roots (each component's first node,
    ``root``'s index in its own, that first) and ``root``'s index (``None`` without one).
    One search per component over adjacency lists, in Python: ``O(d)``.

    >>> oriented_children(["a", "b", "c"], [(0, 1), (1, 2)], root="c")
    ([[], [0], [1]], [2], 2)
    """
    names = list(names)
    d = len(names)
    start = None
    if root is not None:
        try:
            start = names.index(root)
        except ValueError:
            raise ColumnNotFoundError(
                f"root {root!r} is not a variable of the tree; the variables are {names}"
            ) from None
    neighbours: list[list[int]] = [[] for _ in range(d)]
    for i, j in chosen:
        neighbours[i].append(j)
        neighbours[j].append(i)
    for nb in neighbours:
        nb.sort()
    component = [-1] * d
    firsts: list[int] = []
    for s in range(d):  # label the components, numbered by their first node
        if component[s] < 0:
            c = len(firsts)
            firsts.append(s)
            component[s] = c
            stack = [s]
            while stack:
                for v in neighbours[stack.pop()]:
                    if component[v] < 0:
                        component[v] = c
                        stack.append(v)
    roots = list(firsts)
    if start is not None:
        roots[component[start]] = start
    children: list[list[int]] = [[] for _ in range(d)]
    seen = [False] * d
    for r in roots:  # each component's search from its root: a node's parent
        seen[r] = True
        queue = [r]
        for u in queue:
            for v in neighbours[u]:
                if not seen[v]:
                    seen[v] = True
                    children[u].append(v)
                    queue.append(v)
    if start is not None:  # the root asked for comes first: it is ``model.root``
        roots.remove(start)
        roots.insert(0, start)
    return children, roots, start


def oriented_tree_arrays(
    names: Sequence[Hashable],
    weights: np.ndarray,
    *,
    root: Hashable | None = None,
    whitelist: Iterable[Sequence[Hashable]] | None = None,
    blacklist: Iterable[Sequence[Hashable]] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """``oriented_skeleton(names, weights, root=root, ...)``'s spanning tree (no ``forest``:
    its edges carry one attribute, ``weight``) as arrays, the form of
    :class:`~treelearn.models._tree.StackedTree`: ``(parent, child, weight, roots)``, each
    node's parent (``-1`` for a root), the children in the order that graph lists its edges,
    each edge's ``weight`` at its child's index (the same doubles) and the graph's ``roots``
    (``root`` itself first, as given). No networkx graph is built.

    >>> W = np.array([[0, .5, .2], [.5, 0, .3], [.2, .3, 0]])
    >>> parent, child, weight, roots = oriented_tree_arrays(["a", "b", "c"], W, root="c")
    >>> parent.tolist(), child.tolist(), weight[child].tolist(), roots
    ([1, 2, -1], [0, 1], [0.5, 0.3], ['c'])
    """
    names, _, chosen, _, _ = _skeleton_parts(
        names, weights, None, None, None, 1, whitelist, blacklist
    )
    d = len(names)
    children, roots, start = oriented_children(names, chosen, root)
    up = [-1] * d
    for u, cs in enumerate(children):
        for v in cs:
            up[v] = u
    parent = np.array(up, dtype=np.int64)
    child = np.fromiter((v for cs in children for v in cs), dtype=np.int64, count=len(chosen))
    # the weight oriented_skeleton gives each edge: the upper triangle's, at (min, max)
    weight = np.zeros(d)
    if len(child):
        upper = np.asarray(weights, dtype=float)
        weight[child] = upper[np.minimum(parent[child], child), np.maximum(parent[child], child)]
    return parent, child, weight, [root if r == start else names[r] for r in roots]


def oriented_skeleton(
    names: Sequence[Hashable],
    weights: np.ndarray,
    states: Sequence[Sequence] | None = None,
    *,
    root: Hashable | None = None,
    forest: str | float | None = None,
    n: float | np.ndarray | None = None,
    n_classes: int = 1,
    whitelist: Iterable[Sequence[Hashable]] | None = None,
    blacklist: Iterable[Sequence[Hashable]] | None = None,
) -> nx.DiGraph:
    """``orient(spanning_skeleton(names, weights, states, ...), root)``: the same directed
    graph (nodes, edges, attributes, their order, ``roots``), without the undirected one.

    The directed graph is determined by each node's parent: :func:`orient` adds a node's
    children when its breadth-first search reaches it, in node order, so the edges are
    listed by parent in node order, then child in node order. The parents come from one
    search per component over adjacency lists (``O(d)``, no NetworkX traversal): for a
    50-column Chow-Liu tree the undirected graph and :func:`orient` were ~0.4 ms of a 4 ms fit.

    >>> W = np.array([[0, .5, .2], [.5, 0, .3], [.2, .3, 0]])
    >>> D = oriented_skeleton(["a", "b", "c"], W, root="c")
    >>> list(D.edges(data="weight")), D.graph["roots"]
    ([('b', 'a', 0.5), ('c', 'b', 0.3)], ['c'])
    """
    names, nodes, chosen, attributes, graph = _skeleton_parts(
        names, weights, states, forest, n, n_classes, whitelist, blacklist
    )
    d = len(names)
    children, roots, start = oriented_children(names, chosen, root)
    with gc_paused(d):
        D = nx.DiGraph()
        D.graph.update(graph)
        D.add_nodes_from((name, dict(attrs)) for name, attrs in zip(names, nodes))
        D.add_edges_from(
            (names[u], names[v], attributes(min(u, v), max(u, v)))
            for u in range(d)
            for v in children[u]
        )
        # the root object asked for, as orient lists it (equal to its column's name)
        D.graph["roots"] = [root if r == start else names[r] for r in roots]
    return D
