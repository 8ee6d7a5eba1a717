"""The learning entry points: the MI graph, Chow-Liu trees and forests, CPTs for any DAG.

Each entry point takes data of any kind, asks :func:`treelearn.sources._count.count`
for its sufficient statistics, and learns from those with a ``*_from_counts``
function that never sees a row (the part Dask, files, sparse matrices, row
weights and :meth:`TreeModel.partial_fit` share). :func:`chow_liu` is the model of the
estimator :class:`~treelearn.ChowLiuTree` (:mod:`treelearn.learners._estimators`), which
calls it: this module imports no scikit-learn, so ``tl.chow_liu`` and the command line stay
light. The stages (counts -> information -> graph -> spanning tree -> orient -> CPTs) stay
public, so a user can stop at any of them, change the graph, and carry on.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

import networkx as nx
import numpy as np

from .._base.errors import ColumnNotFoundError, InputTypeError, StructureError, TreelearnError
from .._base.validation import Options, check_param, check_params
from ..encoding._table import DEFAULT_MAX_STATES, MissingPolicy
from ..models._tree import TreeModel
from ..sources._count import column_names, count
from ..sources._gaussian import gaussian_statistics
from ..stats._counts import CountedTable, PairCounts
from ..stats._information import PairwiseRowsWarning
from ..stats._parameters import smoothed_cpt, smoothed_cpts
from ..stats._settings import READING, LearningSettings, Prior
from ..structure._sparse_chow_liu import SparseBinaryCounts
from ..structure._trees import complete_graph, gc_paused, is_acyclic, oriented_skeleton
from ._dense_model import dense_tree_model
from ._em import chow_liu_em, fit_cpts_em
from ._sparse_model import sparse_tree_model

__all__ = [
    "build_model",
    "chow_liu",
    "chow_liu_from_counts",
    "edge_list",
    "fit_cpts",
    "mi_graph",
    "mi_graph_from_counts",
]


# ---------------------------------------------------------------------- the MI graph
def mi_graph_from_counts(stats: CountedTable, mi_alpha: float | None = None) -> nx.Graph:
    """The complete MI graph of counted data (see :func:`mi_graph`); statistics that cannot
    give the MI matrix say why (``stats.mutual_information``)."""
    G = complete_graph(list(stats.columns), stats.mutual_information(mi_alpha), stats.states)
    G.graph["n"] = stats.n_rows
    return G


def mi_graph(
    data: Any,
    *,
    missing: MissingPolicy = "error",
    mi_alpha: float | None = None,
    max_states: int = DEFAULT_MAX_STATES,
    sample_weight: Any = None,
    kind: str = "categorical",
) -> nx.Graph:
    """The complete graph over the columns, edge ``weight`` = mutual information (nats).

    ``kind="gaussian"``: the columns are numbers (a DataFrame or 2-D array, a
    CSV/Parquet file or a Dask DataFrame, no missing values: the statistics of
    :func:`~treelearn.gaussian_chow_liu`) and the weight is the Gaussian mutual information
    ``-1/2 log(1 - rho^2)`` of the (weighted) correlation ``rho``; nodes carry no
    ``states``. The same stages follow (:func:`~treelearn.maximum_spanning_tree`,
    :func:`~treelearn.orient`), and pick :func:`~treelearn.gaussian_chow_liu`'s tree.

    Node attribute ``states`` holds each column's state labels; the graph
    attribute ``n`` the number of rows (their total weight with
    ``sample_weight``). With ``mi_alpha``, MI is computed from the pairwise
    joint smoothed by ``mi_alpha`` per cell.

    Parameters
    ----------
    data : DataFrame, str, os.PathLike, dask DataFrame or scipy.sparse matrix
        The table (files are read in chunks).
    missing : {"error", "drop", "pairwise"}, default="error"
        What missing cells do.
    mi_alpha : float, default=None
        Pseudocount per cell of each pairwise joint (default: raw counts).
    max_states : int, default=100
        The most states a column may have.
    sample_weight : array-like or str, default=None
        One non-negative weight per row.
    kind : {"categorical", "gaussian"}, default="categorical"
        Discrete columns (plug-in MI) or numeric ones (Gaussian MI).

    Returns
    -------
    networkx.Graph
        The complete graph, edge ``weight`` the MI in nats, node attribute ``states``,
        graph attribute ``n``.

    See Also
    --------
    maximum_spanning_tree : the next stage of Chow-Liu.
    chow_liu : every stage at once.

    Examples
    --------
    >>> import pandas as pd, networkx as nx, treelearn as tl
    >>> df = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 1], "c": [0, 1, 0, 1]})
    >>> G = tl.mi_graph(df)
    >>> round(G["a"]["b"]["weight"], 6), G["a"]["c"]["weight"]
    (0.693147, 0.0)
    >>> num = pd.DataFrame({"u": [0.0, 1.0, 2.0, 3.0], "v": [1.0, 0.0, 3.0, 2.0]})
    >>> round(tl.mi_graph(num, kind="gaussian")["u"]["v"]["weight"], 4)   # rho = 3/5: -ln(0.64)/2
    0.2231
    """
    check_param(
        "kind",
        kind,
        [Options("categorical", "gaussian")],
        note="counted states, or numeric columns with correlation-based MI",
    )
    if kind == "gaussian":
        return _gaussian_mi_graph(data, missing, mi_alpha, sample_weight)
    LearningSettings(method="mi_graph", missing=missing, mi_alpha=mi_alpha)  # validates
    stats = count(data, missing=missing, max_states=max_states, sample_weight=sample_weight)
    return mi_graph_from_counts(stats, mi_alpha)


def _gaussian_mi_graph(
    data: Any, missing: str, mi_alpha: float | None, sample_weight: Any
) -> nx.Graph:
    if missing != "error" or mi_alpha is not None:
        raise TreelearnError(
            "kind='gaussian' takes complete numeric rows and no smoothing: leave missing='error' "
            "and mi_alpha=None (drop incomplete rows first, e.g. df.dropna())"
        )
    stats = gaussian_statistics(
        data, sample_weight=sample_weight, learner="mi_graph(kind='gaussian')"
    )
    G = complete_graph(list(stats.variables), stats.mutual_information())
    G.graph["n"] = stats.n
    return G


# ---------------------------------------------------------------------- CPTs
def build_model(
    structure: nx.DiGraph,
    stats: Any,
    settings: LearningSettings,
    *,
    description: Mapping[str, Any] | None = None,
    counts: PairCounts | None = None,
    learner: Any = None,
    owned: bool = False,
) -> TreeModel:
    """CPTs for every node of ``structure`` from sufficient statistics; the shared last stage.

    ``stats`` is any statistics object with ``columns``, ``states``, ``dtypes``,
    ``n_rows`` and ``family_counts(indices)`` (a :class:`~treelearn.stats._counts.CountedTable`
    or a :class:`~treelearn.stats._counts.ClassCounts`). The model's ``settings`` dict
    is ``description`` if given, else ``settings.as_dict()``; ``counts`` and
    ``learner`` are handed to the model for :meth:`TreeModel.partial_fit`. ``owned``:
    ``structure`` is the caller's own graph (``orient``'s, say), used for nothing after; when
    its nodes are in the columns' order it becomes the model's graph, the CPTs written into
    its nodes, instead of a copy (a second graph of 50,000 nodes was ~0.5 s).
    """
    columns = list(stats.columns)
    position = {c: j for j, c in enumerate(columns)}
    absent = [v for v in structure.nodes if v not in position]
    if absent:
        raise ColumnNotFoundError(
            f"structure node(s) {absent} are not columns of the data {columns}", column=absent[0]
        )
    # an owned structure becomes (or is copied into) the model's graph, which TreeModel checks
    if not owned and not is_acyclic(structure):
        raise StructureError("the structure must be a directed acyclic graph")
    variables = [c for c in columns if c in structure]
    # the smoothing options are not checked per node (smoothed_cpt) nor here: a
    # LearningSettings checked every option when it was made, and it is frozen
    G = nx.DiGraph()
    G.graph.update(structure.graph)
    families, all_parents = [], []
    for v in variables:
        given = structure.nodes[v].get("parents")
        if given and (
            len(set(given)) != len(given) or set(given) != set(structure.predecessors(v))
        ):
            raise StructureError(
                f"node {v!r}: its 'parents' attribute {list(given)} must list each of its "
                f"parents in the graph, {list(structure.predecessors(v))}, once"
            )
        if given:
            parents = list(given)
        else:  # one parent or none (every node of a tree): nothing to sort
            parents = list(structure.pred[v])
            if len(parents) > 1:
                parents.sort(key=position.__getitem__)
        all_parents.append(parents)
        families.append([position[p] for p in parents] + [position[v]])
    smoothing = (settings.alpha, settings.prior, settings.equivalent_sample_size, settings.m)
    many = getattr(stats, "family_counts_many", None)
    if many is not None:  # e.g. sparse 0/1 counts of 20,000 terms: one vectorised pass
        cpts = smoothed_cpts(many(families), *smoothing)
    else:
        cpts = [smoothed_cpt(stats.family_counts(f), *smoothing) for f in families]
    nodes, states = structure.nodes, stats.states
    if owned and list(structure) == variables:  # the same graph as the copy below
        G = structure
        for v, parents, cpt in zip(variables, all_parents, cpts):
            node = nodes[v]
            for key in ("states", "cpt", "parents"):  # set last, in this order, as in the copy
                node.pop(key, None)
            node.update(states=list(states[position[v]]), cpt=cpt, parents=parents)
    else:
        G.add_nodes_from(
            (
                v,
                {
                    **{
                        k: val
                        for k, val in nodes[v].items()
                        if k not in ("cpt", "states", "parents")
                    },
                    "states": list(states[position[v]]),
                    "cpt": cpt,
                    "parents": parents,
                },
            )
            for v, parents, cpt in zip(variables, all_parents, cpts)
        )
        G.add_edges_from(structure.edges(data=True))
    dtypes = stats.dtypes
    return TreeModel(
        G,
        variables=variables,
        dtypes={c: dt for c, dt in zip(columns, dtypes) if c in structure} if dtypes else None,
        n_rows=stats.n_rows,
        settings=dict(description) if description is not None else settings.as_dict(),
        counts=counts,
        learner=learner,
        # G is this function's own: no copy. With several parents a copy lists each node's
        # predecessors by the model's node order, not by the structure's edge order: kept
        copy=any(len(p) > 1 for p in all_parents),
    )


def fit_cpts(
    structure: nx.DiGraph,
    data: Any,
    alpha: float = 1.0,
    *,
    prior: Prior = "lidstone",
    equivalent_sample_size: float = 1.0,
    m: float = 1.0,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
    sample_weight: Any = None,
    n_init: int = 1,
    random_state: Any = None,
) -> TreeModel:
    """Fit the CPTs of any DAG over columns of ``data``.

    ``alpha`` is the Lidstone pseudocount (1 = Laplace, the default; 0 = maximum
    likelihood), as in :func:`chow_liu`, which says why the default is 1. Parents are ordered as in the node attribute ``parents`` when present, else
    in column order. With ``missing="pairwise"``, each CPT uses the rows where its
    whole family is observed; with ``missing="em"`` the CPTs of any DAG are learned by
    EM over the missing cells (exact E-steps, by variable elimination where a node has
    several parents). A column no
    row observes is a latent variable (give its states as a pandas ``Categorical``'s
    categories): EM then starts from a random perturbation seeded by
    ``random_state``, ``n_init`` times, and keeps the fit of highest likelihood
    (``model.settings["em_log_likelihood"]``). ``data`` is a DataFrame, a file (read whole, so
    families of any size can be counted) or a Dask DataFrame (counted on its
    workers: nodes of at most one parent); ``sample_weight`` weights the rows.

    Parameters
    ----------
    structure : networkx.DiGraph
        A DAG over columns of ``data`` (node attribute ``parents`` orders the parents).
    data : DataFrame, str, os.PathLike or dask DataFrame
        The table.
    alpha : float, default=1.0
        Lidstone pseudocount (``prior="lidstone"``).
    prior : {"lidstone", "bdeu", "m-estimate"}, default="lidstone"
        The CPTs' prior.
    equivalent_sample_size : float, default=1.0
        BDeu's equivalent sample size.
    m : float, default=1.0
        The m-estimate's equivalent sample size.
    missing : {"error", "drop", "pairwise", "em"}, default="error"
        What missing cells do.
    max_states : int, default=100
        The most states a column may have.
    sample_weight : array-like or str, default=None
        One non-negative weight per row.
    n_init : int, default=1
        EM's random starts when a column is latent.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds EM's starts.

    Returns
    -------
    TreeModel
        The network with its CPTs (any DAG, despite the name).

    Raises
    ------
    StructureError
        ``structure`` has a cycle.
    ColumnNotFoundError
        A node is not a column of ``data``.

    See Also
    --------
    chow_liu : learns the structure too.
    star, tan_structure : structures to fit.

    Examples
    --------
    >>> import pandas as pd, networkx as nx, treelearn as tl
    >>> df = pd.DataFrame({"c": [0, 0, 1, 1], "x": [0, 1, 1, 1]})
    >>> m = tl.fit_cpts(nx.DiGraph([("c", "x")]), df)
    >>> m.cpt("x").tolist()   # (N + 1) / (N(c) + 2)
    [[0.5, 0.5], [0.25, 0.75]]
    >>> tl.fit_cpts(nx.DiGraph([("c", "x")]), df, alpha=0).cpt("x").tolist()   # N / N(c)
    [[0.5, 0.5], [0.0, 1.0]]
    """
    settings = LearningSettings(
        method="fit_cpts",
        alpha=alpha,
        prior=prior,
        equivalent_sample_size=equivalent_sample_size,
        m=m,
        missing=missing,
    )
    stats = count(
        data,
        missing="pairwise" if missing == "em" else missing,
        max_states=max_states,
        sample_weight=sample_weight,
        variables=_structure_columns(structure, data),
        in_memory=True,
    )
    description = {
        k: settings.as_dict()[k]
        for k in ("method", "alpha", "prior", "equivalent_sample_size", "m", "missing")
    }
    if missing == "em":  # EM over the missing cells (treelearn.learners._em): any DAG
        return fit_cpts_em(
            structure,
            stats,
            partial(build_model, settings=settings, description=description),
            n_init=n_init,
            random_state=random_state,
        )
    return build_model(structure, stats, settings, description=description)


def _structure_columns(structure: nx.DiGraph, data: Any) -> list | None:
    """The structure's nodes in the data's column order (the columns fit_cpts encodes)."""
    columns = column_names(data)
    if columns is None:
        return None
    absent = [v for v in structure.nodes if v not in columns]
    if absent:
        raise ColumnNotFoundError(
            f"structure node(s) {absent} are not columns of the data {list(columns)}",
            column=absent[0],
        )
    return [c for c in columns if c in structure]


# ---------------------------------------------------------------------- Chow-Liu
def pairwise_corrected(mi: np.ndarray, stats: Any, columns: Sequence[Hashable]) -> np.ndarray:
    """``mi`` as it is when every pair was counted on the same rows; else (``missing=
    "pairwise"``) each pair's plug-in MI less its Miller-Madow bias (at least 0), so that a
    column observed in few rows does not become a hub by small-sample bias alone, with a
    :class:`~treelearn.stats._information.PairwiseRowsWarning` naming the columns observed
    in fewer than half the rows and the rows each has."""
    # each column's observed rows, from the diagonal blocks (cheap): all alike and all the
    # rows means every pair was counted on every row
    observed = stats.observed_rows()
    if observed.size == 0 or (observed == stats.n_rows).all():
        return mi
    most = float(observed.max())
    few = [(c, int(n)) for c, n in zip(columns, observed) if n < most / 2]
    if few:
        warnings.warn(
            "pairwise counts: "
            + ", ".join(f"column {c!r} is observed in {n} of {int(most)} rows" for c, n in few)
            + "; the mutual information of their pairs is from those rows, bias-corrected "
            "(Miller-Madow)",
            PairwiseRowsWarning,
            stacklevel=4,
        )
    return np.maximum(mi - stats.pairwise_bias(), 0.0)


def chow_liu_from_counts(
    stats: CountedTable,
    settings: LearningSettings,
    *,
    description: Mapping[str, Any] | None = None,
) -> TreeModel:
    """Chow-Liu from sufficient statistics: MI graph -> spanning tree/forest -> orient -> CPTs.

    The model keeps the pair counts and this learner, so
    :meth:`TreeModel.partial_fit` can add rows and learn again with the same settings.
    """
    if settings.root is not None and settings.root not in stats.columns:
        raise ColumnNotFoundError(
            f"{settings.root!r} is not a column of the data; the columns are {list(stats.columns)}",
            column=settings.root,
        )
    # e.g. wide sparse 0/1 data: acCL, no K x K. Its graphs (skeleton, oriented, model) are a
    # few dicts per node, all kept: the collector's passes over them free nothing
    with gc_paused(len(stats.columns)):
        if isinstance(stats, SparseBinaryCounts):  # no networkx graph built
            return sparse_tree_model(stats, settings, description=description)
        tree = stats.direct_tree(settings)
        if tree is not None:
            return build_model(tree, stats, settings, description=description, owned=True)
    # (statistics of a table with a very wide column answer every question below without
    # the K x K pair counts: stats/_wide.py)
    n: float | np.ndarray = stats.n_rows
    if settings.forest in (
        "bic",
        "aic",
    ):  # with missing values each pair's penalty uses its own rows
        pair_rows = stats.pair_totals()
        if (pair_rows != n).any():
            n = pair_rows
    mi = stats.mutual_information(settings.mi_alpha)
    if settings.mi_alpha is None and settings.missing == "pairwise" and settings.forest is None:
        # (a BIC/AIC forest penalises each pair by its own rows already; EM's expected
        # counts cover every row)
        mi = pairwise_corrected(mi, stats, stats.columns)
    learner = partial(chow_liu_from_counts, settings=settings, description=description)
    if settings.forest is None and isinstance(stats, CountedTable):
        # the tree's model as stacked CPTs, its graph built when first read (the same model)
        model = dense_tree_model(stats, mi, settings, description=description, learner=learner)
        if model is not None:
            return model
    # orient(spanning_skeleton(...), root), built as the directed graph at once
    structure = oriented_skeleton(
        list(stats.columns),
        mi,
        stats.states,
        root=settings.root,
        forest=settings.forest,
        n=n,
        whitelist=settings.whitelist,
        blacklist=settings.blacklist,
    )
    return build_model(
        structure,
        stats,
        settings,
        description=description,
        counts=stats.counts if stats.keeps_pair_counts else None,
        owned=True,
        learner=learner,
    )


def edge_list(edges: Any, name: str) -> tuple:
    """``whitelist=`` / ``blacklist=`` as a tuple of edges, or a TreelearnError naming it.

    >>> edge_list([("a", "b")], "whitelist"), edge_list(None, "blacklist")
    ((('a', 'b'),), ())
    >>> edge_list(3, "whitelist")
    Traceback (most recent call last):
    ...
    treelearn.InputTypeError: whitelist=3 must be a list of edges (pairs of columns), e.g. [('a', 'b')]
    """
    if edges is None:
        return ()
    if isinstance(edges, (str, bytes)) or not isinstance(edges, Iterable):
        raise InputTypeError(
            f"{name}={edges!r:.60} must be a list of edges (pairs of columns), e.g. [('a', 'b')]"
        )
    return tuple(edges)


def chow_liu(
    data: Any,
    root: Hashable | None = None,
    alpha: float = 1.0,
    *,
    prior: Prior = "lidstone",
    equivalent_sample_size: float = 1.0,
    m: float = 1.0,
    missing: MissingPolicy = "error",
    mi_alpha: float | None = None,
    forest: str | float | None = None,
    whitelist: Sequence[tuple] | None = None,
    blacklist: Sequence[tuple] | None = None,
    max_states: int = DEFAULT_MAX_STATES,
    states: Mapping[Hashable, Sequence] | None = None,
    chunksize: int = 200_000,
    names: Sequence[Hashable] | None = None,
    sample_weight: Any = None,
) -> TreeModel:
    """Learn a Chow-Liu tree (or forest) of discrete columns and its CPTs: the model
    ``ChowLiuTree(root, alpha, ...).fit(data, sample_weight=sample_weight).model_`` (the
    estimator :class:`~treelearn.ChowLiuTree`, whose docstring explains every option).

    Parameters
    ----------
    data : DataFrame, str, os.PathLike, dask DataFrame or scipy.sparse matrix
        Discrete columns: a DataFrame, a CSV/Parquet path (read ``chunksize`` rows at a
        time, never whole), a ``dask.dataframe.DataFrame`` (counted on its workers), or
        a ``scipy.sparse`` 0/1 matrix (its columns named by ``names``). Never modified. (:class:`~treelearn.ChowLiuTree` takes a 2-D array
        too, as the table of its columns ``x0, x1, ...``.)
    root : hashable, default=None
        The root; ``None``: the first column (each tree of a forest at its first column).
    alpha : float, default=1.0
        Lidstone pseudocount of the CPTs (1 = Laplace, 0 = maximum likelihood); never
        changes the tree.
    prior : {"lidstone", "bdeu", "m-estimate"}, default="lidstone"
        The CPT estimator: ``"lidstone"`` (``alpha``), ``"bdeu"``
        (``equivalent_sample_size``) or ``"m-estimate"`` (``m``).
    equivalent_sample_size : float, default=1.0
        BDeu's equivalent sample size (> 0).
    m : float, default=1.0
        The m-estimate's equivalent sample size (> 0).
    missing : {"error", "drop", "pairwise", "em"}, default="error"
        Refuse missing cells, drop incomplete rows, count each pair where both are
        observed, or structural EM.
    mi_alpha : float, default=None
        Pseudocount per cell of the pairwise joints the tree is chosen from (``None``:
        raw counts).
    forest : {"bic", "aic"}, float or None, default=None
        ``None``: a spanning tree; ``"bic"``, ``"aic"`` or an MI threshold: a forest
        of the edges worth their parameters.
    whitelist : sequence of pairs, default=None
        Undirected pairs of columns the tree must contain.
    blacklist : sequence of pairs, default=None
        Undirected pairs of columns the tree must not contain.
    max_states : int, default=100
        The most states a column may have.
    states : dict, default=None
        ``{column: [states]}`` fixing some or all columns' states and their order.
    chunksize : int, default=200000
        Rows per chunk when the data is a file path.
    names : sequence of hashable, default=None
        The variables' names when the data is a ``scipy.sparse`` 0/1 matrix.
    sample_weight : array-like or str, default=None
        One non-negative weight per row (scikit-learn's name): an array-like for a DataFrame or sparse matrix, the name of the weight column
        for a file or a Dask DataFrame (or a Dask Series partitioned like it).
        Integer weights give exactly the model of the rows repeated that many
        times; a weight of zero leaves the row out. ``n`` (``model.n_rows``,
        the BIC forest's ``n``) is the total weight.

    Returns
    -------
    TreeModel
        It keeps its pair counts (``model.counts``), so :meth:`TreeModel.partial_fit` can
        add rows later. A table with continuous columns is refused, naming the fixes
        (:func:`~treelearn.discretize`, or :func:`~treelearn.clg_tree` for a tree over
        mixed columns).

    See Also
    --------
    ChowLiuTree : the same as a scikit-learn estimator (each option at length).
    clg_tree, gaussian_chow_liu : trees over continuous columns.
    mi_graph, maximum_spanning_tree, orient, fit_cpts : its stages one by one.

    References
    ----------
    .. [1] Chow, C. K. and Liu, C. N. (1968). Approximating discrete probability
       distributions with dependence trees. IEEE Transactions on Information Theory
       14(3), 462-467.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> model = tl.chow_liu(df, root="smoke")
    >>> model.root
    'smoke'
    >>> model.graph.number_of_edges()
    7
    >>> ml = tl.chow_liu(df, root="smoke", alpha=0)   # maximum likelihood: the same tree
    >>> sorted(ml.graph.edges()) == sorted(model.graph.edges())
    True
    >>> w = [2, 1] * 5000   # survey weights: row 0 counts twice
    >>> tl.chow_liu(df, sample_weight=w) == tl.chow_liu(df.loc[df.index.repeat(w)])
    True
    """
    settings = LearningSettings(  # checks every learning option (CONSTRAINTS)
        method="chow-liu",
        root=root,
        alpha=alpha,
        prior=prior,
        equivalent_sample_size=equivalent_sample_size,
        m=m,
        missing=missing,
        mi_alpha=mi_alpha,
        forest=forest,
        whitelist=edge_list(whitelist, "whitelist"),
        blacklist=edge_list(blacklist, "blacklist"),
    )
    reading = check_params(
        {"max_states": max_states, "states": states, "chunksize": chunksize}, READING
    )
    em = settings.missing == "em"
    stats = count(
        data,
        missing="pairwise" if em else settings.missing,
        names=names,
        sample_weight=sample_weight,
        in_memory=em,
        **reading,
    )
    if em:  # structural EM over the missing cells (treelearn.learners._em)
        return chow_liu_em(stats, partial(chow_liu_from_counts, settings=settings))
    return chow_liu_from_counts(stats, settings)
