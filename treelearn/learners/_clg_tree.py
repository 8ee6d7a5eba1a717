"""Learning a CLG tree from a mixed table's statistics: :func:`clg_tree_from_statistics`.

:func:`treelearn.chow_liu` calls it when the table has continuous columns
(:class:`~treelearn.structure._clg_trees.MixedTableStatistics`). The tree is the best
CLG-valid spanning tree (or penalised forest) of the mixed mutual information
(:func:`~treelearn.structure._clg_trees.clg_skeleton`), rooted at a discrete column in
every tree holding one; the parameters are the maximum-likelihood ones of each family over
the rows where it is observed (the estimates the edge weights are the gains of):

* discrete nodes: CPTs through :func:`~treelearn.learners._chow_liu.build_model` (``alpha``
  and ``prior`` as for any Chow-Liu tree);
* a continuous node under a discrete parent: the per-state mean and variance (a state
  never seen with the column observed gets the column's mean and variance);
* under a continuous parent: the least-squares line over the pair's rows,
  ``coefficient = cov / var_parent``, residual variance ``var - cov^2 / var_parent``;
* a continuous root: the column's mean and variance.

Every variance is floored at :data:`~treelearn.stats._mixed_pairs.VARIANCE_FLOOR` times
the column's variance (the floor the edge weights use).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import networkx as nx
import numpy as np

from ..models._clg import CLGTreeModel
from ..stats._mixed_pairs import VARIANCE_FLOOR
from ..stats._settings import LearningSettings
from ..structure._clg_trees import MixedTableStatistics

__all__ = ["clg_model", "clg_tree_from_statistics"]


def clg_tree_from_statistics(
    stats: MixedTableStatistics,
    settings: LearningSettings,
    build_model: Callable[..., Any],
    *,
    description: Mapping[str, Any] | None = None,
) -> CLGTreeModel:
    """The CLG tree (or forest) of ``stats`` under ``settings`` (see the module docstring);
    ``build_model`` is :func:`~treelearn.learners._chow_liu.build_model` (the discrete CPTs).
    """
    structure = stats.direct_tree(settings)
    return clg_model(stats, structure, settings, build_model, description=description)


def clg_model(
    stats: MixedTableStatistics,
    structure: nx.DiGraph,
    settings: LearningSettings,
    build_model: Callable[..., Any],
    *,
    epsilon: float = 0.0,
    description: Mapping[str, Any] | None = None,
) -> CLGTreeModel:
    """The maximum-likelihood CLG tree of a given (CLG-valid) ``structure`` over
    ``stats``' columns; ``epsilon`` is added to every variance (a classifier's
    ``var_smoothing``), after the floor."""
    discrete = list(stats.discrete.columns)
    model = None
    if discrete:
        sub = nx.DiGraph()
        sub.add_nodes_from(discrete)
        sub.add_edges_from(
            (u, v, a) for u, v, a in structure.edges(data=True) if u in sub and v in sub
        )
        model = build_model(sub, stats.discrete, settings)
    pairs = stats.pairs
    cpos = {v: j for j, v in enumerate(stats.continuous)}
    dpos = {v: i for i, v in enumerate(discrete)}
    var = pairs.column_variance()
    mean = pairs.column_mean()
    G = nx.DiGraph()
    G.add_nodes_from(stats.columns)
    G.add_edges_from(structure.edges(data=True))
    for v, j in cpos.items():
        floor = VARIANCE_FLOOR * var[j]
        ps = list(structure.predecessors(v))
        if not ps:
            G.nodes[v].update(
                intercept=float(mean[j]), variance=float(var[j] + epsilon), coefficient=None
            )
        elif ps[0] in cpos:
            q = cpos[ps[0]]
            vq, cov = pairs.pair_variance[q, j], pairs.pair_covariance[j, q]
            slope = cov / vq if vq > 0 else 0.0  # a parent constant (in a class): no slope
            G.nodes[v].update(
                coefficient=float(slope),
                intercept=float(pairs.pair_mean[j, q] - slope * pairs.pair_mean[q, j]),
                variance=float(max(pairs.pair_variance[j, q] - cov * slope, floor) + epsilon),
            )
        else:
            rows = pairs.states_of(dpos[ps[0]])
            w = pairs.state_weight[rows, j]
            means = np.where(w > 0, pairs.state_mean[rows, j], mean[j])
            variances = (
                np.where(w > 0, np.maximum(pairs.state_variance[rows, j], floor), var[j]) + epsilon
            )
            G.nodes[v].update(means=means.tolist(), variances=variances.tolist())
    settings_dict = dict(description) if description is not None else settings.as_dict()
    settings_dict["method"] = "clg-chow-liu"
    return CLGTreeModel(
        G,
        model,
        variables=list(stats.columns),
        continuous=stats.continuous,
        dtypes=None if model is None else model.dtypes,
        n_rows=stats.n_rows,
        settings=settings_dict,
    )
