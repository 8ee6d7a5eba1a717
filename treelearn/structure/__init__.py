"""Structures as NetworkX graphs: the complete MI-weighted graph's maximum spanning tree or
penalised forest, rooted (``orient``); naive Bayes' star and TAN's structure. Internally: one
spanning-tree routine and penalty, constraints, sums over all spanning trees and the
sparse (acCL) tree search.

>>> import treelearn.structure as ts
>>> "maximum_spanning_tree" in ts.__all__
True
"""

from typing import TYPE_CHECKING

from .._base.lazy import lazy_names

if TYPE_CHECKING:  # the names for type checkers and IDEs; at run time each loads on first use
    from ._trees import (
        complete_graph,
        maximum_spanning_tree,
        orient,
        penalised_forest,
        star,
        tan_structure,
    )

#: each public name of this role and the module (below ``treelearn``) that defines it: the one
#: list of them (``treelearn``'s flat names are assembled from these tables)
NAMES = {
    "complete_graph": "structure._trees",
    "maximum_spanning_tree": "structure._trees",
    "orient": "structure._trees",
    "penalised_forest": "structure._trees",
    "star": "structure._trees",
    "tan_structure": "structure._trees",
}

__getattr__, __dir__ = lazy_names(__name__, NAMES)
__all__ = sorted(NAMES)
