"""The sparse Chow-Liu model held as stacked CPTs: a 20,000-term tree as a few arrays.

:func:`treelearn.chow_liu` on a wide ``scipy.sparse`` 0/1 matrix counts it without a
``d x d`` array (:mod:`treelearn.structure._sparse_chow_liu`); this module makes the model
of that tree without a networkx graph: each column's parent, its family counts and CPTs
one stacked array per CPT shape, and a :class:`~treelearn.TreeModel` that builds its graph
only when asked (:meth:`~treelearn.TreeModel.from_stacked`). The model equals the one the
learners' shared last stage (:func:`~treelearn.learners._chow_liu.build_model`) makes from
the same tree, in every attribute and saved byte.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..models._tree import StackedTree, TreeModel
from ..stats._parameters import smoothed_stack
from ..structure._sparse_chow_liu import SparseBinaryCounts, family_count_stacks

__all__ = ["sparse_tree_model", "stacked_tree_model"]


def sparse_tree_model(
    stats: SparseBinaryCounts,
    settings: Any,
    *,
    description: Mapping[str, Any] | None = None,
) -> TreeModel:
    """The Chow-Liu :class:`~treelearn.TreeModel` of sparse 0/1 counts, equal to
    ``build_model(stats.direct_tree(settings), stats, settings, ...)``: the tree's arrays
    (:meth:`~treelearn.structure._sparse_chow_liu.SparseBinaryCounts.tree_arrays`), the
    family counts stacked by shape, their CPTs by
    :func:`~treelearn.stats._parameters.smoothed_stack` (the operations of
    ``smoothed_cpts``, so the same doubles).

    >>> import scipy.sparse as sp
    >>> from treelearn.stats._settings import LearningSettings
    >>> from treelearn.structure._sparse_chow_liu import sparse_binary_statistics
    >>> X = sp.csr_matrix([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0]])
    >>> m = sparse_tree_model(sparse_binary_statistics(X), LearningSettings(root=2))
    >>> m.parent_map, m.cpt(1).tolist()
    ({0: [2], 1: [0], 2: []}, [[0.75, 0.25], [0.25, 0.75]])
    """
    names = list(stats.columns)
    parent, child, weight, roots, n11 = stats.tree_arrays_and_counts(settings)
    group, counts = family_count_stacks(stats, parent, n11)
    return stacked_tree_model(
        stats,
        settings,
        (parent, child, weight, [names[r] for r in roots]),
        (group, counts),
        description=description,
    )


def stacked_tree_model(
    stats: Any,
    settings: Any,
    tree: tuple[Any, Any, Any, list],
    families: tuple[Any, list],
    *,
    description: Mapping[str, Any] | None = None,
    **extra: Any,
) -> TreeModel:
    """The :class:`~treelearn.TreeModel` of a tree given as arrays, the last step of the
    dense and the sparse Chow-Liu paths: ``tree`` is ``(parent, child, weight, root
    names)``, ``families`` the family counts stacked by CPT shape ``(group, counts)``; their
    CPTs by :func:`~treelearn.stats._parameters.smoothed_stack` with ``settings``'
    smoothing. ``stats``: the counts' ``columns``, ``states``, ``n_rows`` and ``dtypes``;
    ``extra`` goes to :meth:`~treelearn.TreeModel.from_stacked`."""
    names = list(stats.columns)
    parent, child, weight, roots = tree
    group, counts = families
    smoothing = (settings.alpha, settings.prior, settings.equivalent_sample_size, settings.m)
    stacked = StackedTree(
        names,
        stats.states,  # read only: the model hands out copies
        parent,
        child,
        weight,
        group,
        [smoothed_stack(c, *smoothing) for c in counts],
        {"n": stats.n_rows, "roots": roots},
    )
    dtypes = stats.dtypes
    return TreeModel.from_stacked(
        stacked,
        dtypes=dict(zip(names, dtypes)) if dtypes else None,
        n_rows=stats.n_rows,
        settings=dict(description) if description is not None else settings.as_dict(),
        built=True,  # this learner's tree: its structure checks are skipped
        **extra,
    )
