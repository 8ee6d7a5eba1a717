"""Conditional linear Gaussian (CLG) trees over mixed tables: :func:`clg_tree` (the model of
the estimator :class:`~treelearn.CLGTree`), from a table's statistics
(:class:`~treelearn.structure._clg_trees.MixedTableStatistics`,
:func:`clg_tree_from_statistics`).

The tree is the best CLG-valid spanning tree (or penalised forest) of the mixed mutual
information (:func:`~treelearn.structure._clg_trees.clg_skeleton`), rooted at a discrete
column in every tree holding one; the parameters are the maximum-likelihood ones of each
family over the rows where it is observed (the estimates the edge weights are the gains of):

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

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np

from .._base.validation import InstanceOf, Options, check_params
from ..encoding._table import DEFAULT_MAX_STATES
from ..models._clg import CLGTreeModel
from ..sources._mixed import table_statistics
from ..stats._class_gaussians import shrunk_variance
from ..stats._counts import CountedTable
from ..stats._mixed_pairs import VARIANCE_FLOOR
from ..stats._settings import READING, LearningSettings, Prior
from ..structure._clg_trees import MixedTableStatistics
from ._chow_liu import build_model, chow_liu_from_counts, edge_list

__all__ = ["CLG_CONSTRAINTS", "CLG_NOTES", "clg_model", "clg_tree", "clg_tree_from_statistics"]

#: the options of a CLG tree that a discrete Chow-Liu tree has not, or takes otherwise
CLG_CONSTRAINTS: dict[str, list[Any]] = {
    "missing": [Options("error", "drop", "pairwise")],
    "numeric": [Options("auto"), InstanceOf(list, tuple, name="a list of column names")],
}
CLG_NOTES = {
    "missing": "missing='em' is for discrete tables (tl.ChowLiuTree); a table with continuous "
    "columns takes 'pairwise' (each statistic over the rows where its columns are observed; "
    "missing cells are summed out exactly when scoring and querying) or 'drop'",
    "numeric": "'auto': the float columns are continuous",
}


def clg_tree_from_statistics(
    stats: MixedTableStatistics | CountedTable,
    settings: LearningSettings,
    *,
    description: Mapping[str, Any] | None = None,
) -> CLGTreeModel:
    """The CLG tree (or forest) of ``stats`` under ``settings`` (see the module docstring).

    Statistics of discrete columns only (a :class:`~treelearn.stats._counts.CountedTable`)
    give the Chow-Liu tree of :func:`~treelearn.learners._chow_liu.chow_liu_from_counts`
    as a CLG tree without continuous nodes (the same scores, queries and samples).
    """
    if isinstance(stats, CountedTable):
        tree = chow_liu_from_counts(stats, settings, description=description)
        return CLGTreeModel(
            tree.graph,
            tree,
            variables=tree.variables,
            continuous=(),
            dtypes=tree.dtypes,
            n_rows=tree.n_rows,
            settings={**tree.settings, "method": "clg-chow-liu"},
        )
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
    variance_prior: tuple[float, nx.DiGraph] | None = None,
) -> CLGTreeModel:
    """The maximum-likelihood CLG tree of a given (CLG-valid) ``structure`` over
    ``stats``' columns; ``epsilon`` is added to every variance (a classifier's
    ``var_smoothing``), after the floor. ``variance_prior=(nu, reference)`` first shrinks
    each Gaussian node's variance (per parent state, for a categorical parent) towards
    the same node's in ``reference`` (a CLG tree's graph of the same structure) by ``nu``
    pseudo-rows (:func:`~treelearn.stats._class_gaussians.shrunk_variance`; a mixed TAN's
    prior, centred on the classes pooled)."""
    nu, reference = variance_prior if variance_prior is not None else (0.0, None)

    def shrunk(v: Hashable, key: str, variance: Any, weight: Any) -> Any:
        if reference is None or not nu:
            return variance
        return shrunk_variance(
            np.asarray(variance), weight, np.asarray(reference.nodes[v][key]), nu
        )

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
            own = shrunk(v, "variance", var[j], pairs.pair_weight[j, j])
            G.nodes[v].update(
                intercept=float(mean[j]), variance=float(own + epsilon), coefficient=None
            )
        elif ps[0] in cpos:
            q = cpos[ps[0]]
            vq, cov = pairs.pair_variance[q, j], pairs.pair_covariance[j, q]
            slope = cov / vq if vq > 0 else 0.0  # a parent constant (in a class): no slope
            G.nodes[v].update(
                coefficient=float(slope),
                intercept=float(pairs.pair_mean[j, q] - slope * pairs.pair_mean[q, j]),
                variance=float(
                    shrunk(
                        v,
                        "variance",
                        max(pairs.pair_variance[j, q] - cov * slope, floor),
                        pairs.pair_weight[j, q],
                    )
                    + epsilon
                ),
            )
        else:
            rows = pairs.states_of(dpos[ps[0]])
            w = pairs.state_weight[rows, j]
            means = np.where(w > 0, pairs.state_mean[rows, j], mean[j])
            variances = (
                shrunk(
                    v,
                    "variances",
                    np.where(w > 0, np.maximum(pairs.state_variance[rows, j], floor), var[j]),
                    w,
                )
                + epsilon
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


def clg_tree(
    data: Any,
    root: Hashable | None = None,
    alpha: float = 1.0,
    *,
    prior: Prior = "lidstone",
    equivalent_sample_size: float = 1.0,
    m: float = 1.0,
    missing: str = "error",
    mi_alpha: float | None = None,
    forest: str | float | None = None,
    whitelist: Sequence[tuple] | None = None,
    blacklist: Sequence[tuple] | None = None,
    max_states: int = DEFAULT_MAX_STATES,
    states: Mapping[Hashable, Sequence] | None = None,
    chunksize: int = 200_000,
    numeric: Sequence[Hashable] | str = "auto",
    sample_weight: Any = None,
) -> CLGTreeModel:
    """Learn a conditional linear Gaussian tree (or forest) over the discrete and continuous
    columns of ``data``: the model ``CLGTree(root, alpha, ...).fit(data,
    sample_weight=sample_weight).model_`` (the estimator :class:`~treelearn.CLGTree`, whose
    docstring explains every option).

    ``data`` is a DataFrame or a CSV/Parquet path (read whole; ``sample_weight`` may name
    its weight column); ``sample_weight`` weights the rows (integer weights give
    the model of the rows repeated). ``numeric="auto"`` (the default) takes the float
    columns as continuous; a list names them.

    Parameters
    ----------
    data : DataFrame or str or os.PathLike
        The table (discrete and continuous columns), or a CSV/Parquet path.
    root : hashable, default=None
        The root (default: the first column).
    alpha : float, default=1.0
        The discrete CPTs' Lidstone pseudocount.
    prior : {"lidstone", "bdeu", "m-estimate"}, default="lidstone"
        As :class:`~treelearn.CLGTree`'s (and :class:`~treelearn.ChowLiuTree`'s).
    equivalent_sample_size : float, default=1.0
        As :class:`~treelearn.CLGTree`'s (and :class:`~treelearn.ChowLiuTree`'s).
    m : float, default=1.0
        As :class:`~treelearn.CLGTree`'s (and :class:`~treelearn.ChowLiuTree`'s).
    missing : {"error", "drop", "pairwise"}, default="error"
        As :class:`~treelearn.CLGTree`'s (and :class:`~treelearn.ChowLiuTree`'s).
    mi_alpha : float, default=None
        As :class:`~treelearn.CLGTree`'s (and :class:`~treelearn.ChowLiuTree`'s).
    forest : {"bic", "aic"}, float or None, default=None
        As :class:`~treelearn.CLGTree`'s (and :class:`~treelearn.ChowLiuTree`'s).
    whitelist : sequence of pairs, default=None
        As :class:`~treelearn.CLGTree`'s (and :class:`~treelearn.ChowLiuTree`'s).
    blacklist : sequence of pairs, default=None
        As :class:`~treelearn.CLGTree`'s (and :class:`~treelearn.ChowLiuTree`'s).
    max_states : int, default=100
        As :class:`~treelearn.CLGTree`'s (and :class:`~treelearn.ChowLiuTree`'s).
    states : dict, default=None
        As :class:`~treelearn.CLGTree`'s (and :class:`~treelearn.ChowLiuTree`'s).
    chunksize : int, default=200000
        As :class:`~treelearn.CLGTree`'s (and :class:`~treelearn.ChowLiuTree`'s).
    numeric : "auto" or list of hashable, default="auto"
        The continuous columns: ``"auto"`` takes the float columns.
    sample_weight : array-like or str, default=None
        One non-negative weight per row (the weight column's name for a file).

    Returns
    -------
    CLGTreeModel
        The fitted tree.

    Raises
    ------
    MissingValuesError
        Missing cells and ``missing="error"``.
    ColumnNotFoundError
        ``root`` or a ``numeric`` name is not a column.

    See Also
    --------
    CLGTree : the estimator (scikit-learn's interface).
    chow_liu : all columns discrete.
    gaussian_chow_liu : all columns continuous.

    References
    ----------
    .. [1] Lauritzen, S. L. and Wermuth, N. (1989). Graphical models for associations
       between variables, some of which are qualitative and some quantitative. The
       Annals of Statistics 17(1), 31-57.
    .. [2] Chow, C. K. and Liu, C. N. (1968). Approximating discrete probability
       distributions with dependence trees. IEEE Transactions on Information Theory
       14(3), 462-467.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 500)
    >>> df = pd.DataFrame({"g": g, "x": rng.normal(3.0 * g, 1.0), "y": 0})
    >>> df["y"] = df["x"] * 2 + rng.normal(size=500)
    >>> m = tl.clg_tree(df)
    >>> type(m).__name__, sorted(m.graph.edges())
    ('CLGTreeModel', [('g', 'x'), ('x', 'y')])
    >>> bool(m.query("g", {"x": 3.2})[1] > 0.9)
    True
    """
    options = check_params(
        {
            "missing": missing,
            "numeric": numeric,
            "max_states": max_states,
            "states": states,
            "chunksize": chunksize,
        },
        {**READING, **CLG_CONSTRAINTS},
        CLG_NOTES,
    )
    settings = LearningSettings(  # checks every learning option (CONSTRAINTS)
        method="chow-liu",
        root=root,
        alpha=alpha,
        prior=prior,
        equivalent_sample_size=equivalent_sample_size,
        m=m,
        missing=options.pop("missing"),
        mi_alpha=mi_alpha,
        forest=forest,
        whitelist=edge_list(whitelist, "whitelist"),
        blacklist=edge_list(blacklist, "blacklist"),
    )
    stats = table_statistics(
        data,
        missing=settings.missing,
        sample_weight=sample_weight,
        **options,
    )
    return clg_tree_from_statistics(stats, settings)
