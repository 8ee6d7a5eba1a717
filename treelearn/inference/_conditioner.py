"""The one rule for the *conditioner*: the node whose removal leaves a forest.

Every CPT is a factor over its family. Message passing is exact when this factor
graph (variables and factors, an edge where a variable is in a factor's scope) is a
forest; a naive Bayes or TAN network becomes one once its class is taken out of
every scope, and its class's states are then a batch axis of the messages. The
engine (:class:`~treelearn.inference._engine.TreeEngine`) and the HTML explorer
(:mod:`treelearn.viz._explorer`, whose page computes on one-parent forests only:
``pairwise=True``) both ask :func:`choose_conditioner`.

The search is exact, not a heuristic: a cycle lies within one biconnected block of
the factor graph, so the conditioner must lie in every block that has a cycle, and
removing it from a block of ``V`` nodes and ``E`` edges leaves at most ``V - 2``
edges (a forest on ``V - 1`` nodes), so it meets at least ``E - V + 2`` of the
block's edges. The few nodes that pass are tried, roots first (a root's own CPT is
the batch axis's weight, nothing more), then by degree.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import networkx as nx

from .._base.errors import ColumnNotFoundError

__all__ = ["choose_conditioner", "leaves_forest"]


def leaves_forest(
    parents: Mapping[Hashable, Sequence[Hashable]], g: Hashable | None, pairwise: bool = False
) -> bool:
    """Is the factor graph a forest once ``g`` (``None``: nothing) is taken out of every scope?

    With ``pairwise``, also: ``g`` has no parents and every other family keeps at most
    one parent besides ``g`` (a forest of one-parent CPTs given ``g``).

    >>> leaves_forest({"a": [], "b": ["a"], "c": ["a", "b"]}, None)   # a triangle
    False
    >>> leaves_forest({"a": [], "b": ["a"], "c": ["a", "b"]}, "a")
    True
    """
    if pairwise and g is not None and parents[g]:
        return False
    root = {v: v for v in parents}

    def find(v: Hashable) -> Hashable:
        while root[v] != v:
            root[v] = root[root[v]]
            v = root[v]
        return v

    for v, ps in parents.items():
        scope = [u for u in [*ps, v] if u != g]
        if pairwise and v != g and len(scope) > 2:
            return False
        tops = {find(u) for u in scope}
        if len(tops) != len(scope):  # two of the scope's variables are linked already
            return False
        first = find(scope[0]) if scope else None
        for t in tops:
            root[t] = first
    return True


def choose_conditioner(
    parents: Mapping[Hashable, Sequence[Hashable]],
    wanted: Hashable | None = None,
    *,
    pairwise: bool = False,
) -> tuple[bool, Hashable | None]:
    """``(ok, g)``: message passing is exact given ``g``; ``g`` is ``None`` when the network
    is a forest already, and ``ok`` is False when no one node leaves a forest.

    ``wanted`` (a classifier's class) is the conditioner whether or not the network
    needs one; ``ok`` says whether it leaves a forest. ``pairwise`` as in
    :func:`leaves_forest`.

    Examples
    --------
    >>> choose_conditioner({"a": [], "b": ["a"], "c": ["a"]})   # a tree
    (True, None)
    >>> choose_conditioner({"y": [], "x1": ["y"], "x2": ["y", "x1"]})   # TAN: its class
    (True, 'y')
    >>> choose_conditioner({"a": [], "b": [], "c": ["a", "b"]})   # a polytree
    (True, None)
    >>> choose_conditioner({"a": [], "b": [], "c": ["a", "b"]}, pairwise=True)
    (True, 'a')
    >>> diamond = {"a": [], "b": ["a"], "c": ["a"], "d": ["b", "c"]}
    >>> choose_conditioner({**diamond, **{v + "2": [p + "2" for p in ps] for v, ps in diamond.items()}})
    (False, None)
    """
    if wanted is not None:
        if wanted not in parents:
            raise ColumnNotFoundError(
                f"conditioner {wanted!r} is not a variable; the variables are {list(parents)}"
            )
        return leaves_forest(parents, wanted, pairwise), wanted
    if leaves_forest(parents, None, pairwise):
        return True, None
    for g in _candidates(parents, pairwise):
        if leaves_forest(parents, g, pairwise):
            return True, g
    return False, None


def _candidates(parents: Mapping[Hashable, Sequence[Hashable]], pairwise: bool) -> list:
    """The nodes that can be the conditioner (necessary conditions), most promising first."""
    variables = list(parents)
    allowed = set(variables)
    if pairwise:  # a root in every family of more than two variables
        allowed = {v for v in allowed if not parents[v]}
        for v, ps in parents.items():
            if len(ps) > 1:
                allowed &= {*ps, v}
    graph = nx.Graph()  # the factor graph: ("v", node) and ("f", node's CPT)
    graph.add_nodes_from(("v", v) for v in variables)
    graph.add_edges_from((("f", v), ("v", u)) for v, ps in parents.items() for u in [*ps, v])
    for edges in nx.biconnected_component_edges(graph):
        if len(edges) < 2:  # a bridge: no cycle
            continue
        nodes = {x for e in edges for x in e}
        degree: dict = {}
        for e in edges:
            for kind, v in e:
                if kind == "v":
                    degree[v] = degree.get(v, 0) + 1
        need = len(edges) - len(nodes) + 2
        allowed &= {v for v, k in degree.items() if k >= need}
        if not allowed:
            return []
    position = {v: i for i, v in enumerate(variables)}
    children = dict.fromkeys(variables, 0)
    for ps in parents.values():
        for p in ps:
            children[p] += 1
    return sorted(
        allowed, key=lambda v: (bool(parents[v]), -(len(parents[v]) + children[v]), position[v])
    )
