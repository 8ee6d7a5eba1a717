"""The dense Chow-Liu tree's model held as stacked CPTs, its graph built when first read.

:func:`treelearn.chow_liu` on a table counted in memory picks its tree from the ``d x d``
mutual information of the pair counts. For a spanning tree (no ``forest``, whose edges
carry a second attribute) this module makes the model without a networkx graph: each
column's parent (:func:`~treelearn.structure._trees.oriented_tree_arrays`), the family
counts gathered from the pair counts one stacked array per CPT shape
(:meth:`~treelearn.stats._counts.CountedTable.family_count_stacks`), their CPTs by
:func:`~treelearn.stats._parameters.smoothed_stack`, and a
:class:`~treelearn.TreeModel` that builds its graph only when asked
(:meth:`~treelearn.TreeModel.from_stacked`), as the sparse path does
(:mod:`treelearn.learners._sparse_model`). The model equals the one the learners' shared
last stage (:func:`~treelearn.learners._chow_liu.build_model`) makes from
``oriented_skeleton``'s graph, in every attribute and saved byte; building the two graphs
was a third of a 10,000 x 50 fit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..models._tree import TreeModel
from ..stats._counts import CountedTable
from ..structure._trees import oriented_tree_arrays
from ._sparse_model import stacked_tree_model

__all__ = ["dense_tree_model"]


def dense_tree_model(
    stats: CountedTable,
    mi: np.ndarray,
    settings: Any,
    *,
    description: Mapping[str, Any] | None = None,
    learner: Callable[[CountedTable], TreeModel] | None = None,
) -> TreeModel | None:
    """The Chow-Liu :class:`~treelearn.TreeModel` of the spanning tree of ``mi`` over the
    columns of ``stats``, equal to ``build_model(oriented_skeleton(...), stats, settings,
    owned=True, ...)`` for ``settings.forest=None``; ``None`` where the statistics do not
    read families off their pair counts (the caller then takes that path).

    >>> import pandas as pd
    >>> from treelearn.encoding._table import encode
    >>> from treelearn.stats._settings import LearningSettings
    >>> stats = CountedTable.of_table(encode(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]})))
    >>> m = dense_tree_model(stats, stats.mutual_information(), LearningSettings(root="b"))
    >>> m.parent_map, m.cpt("a").tolist()
    ({'a': ['b'], 'b': []}, [[0.6, 0.4], [0.3333333333333333, 0.6666666666666666]])
    """
    if not stats.tree_families_from_pairs():
        return None
    names = list(stats.columns)
    parent, child, weight, roots = oriented_tree_arrays(
        names,
        mi,
        root=settings.root,
        whitelist=settings.whitelist,
        blacklist=settings.blacklist,
    )
    families = stats.family_count_stacks(parent)
    assert families is not None  # (tree_families_from_pairs said so)
    return stacked_tree_model(
        stats,
        settings,
        (parent, child, weight, roots),
        families,
        description=description,
        counts=stats.counts if stats.keeps_pair_counts else None,
        learner=learner,
    )
