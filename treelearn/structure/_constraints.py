"""Edge constraints of a spanning tree, as bnlearn and bnclassify users give them.

* ``whitelist``: undirected pairs the tree must contain (bnlearn's ``whitelist``);
* ``blacklist``: undirected pairs it must not contain.

:func:`edge_constraints` checks the lists and turns them into two boolean
matrices, which :func:`~treelearn.structure._trees.spanning_skeleton` (the one
spanning-tree routine) applies.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import networkx as nx
import numpy as np

from .._base.errors import ColumnNotFoundError, StructureError

__all__ = ["edge_constraints"]


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
                    f"({names[0]!r}, {names[-1]!r})"
                    if names
                    else f"{which} entry {pair!r}"
                )
            for v in pair:
                if v not in position:
                    raise ColumnNotFoundError(
                        f"{which} pair {pair!r} names {v!r}, which is not a variable of the tree; "
                        f"the variables are {names[:20]}",
                        column=v,
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
