"""The learning entry points: the MI graph, Chow-Liu trees and forests, CPTs for any DAG.

Each is a composition of the stages (encode -> count -> information -> graph ->
spanning tree -> orient -> CPTs); the stages stay public, so a user can stop at
any of them, change the graph, and carry on.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from .counts import PairCounts, is_scipy_sparse, pair_counts, sparse_binary_counts
from .dask_support import is_dask_dataframe
from .data import DEFAULT_MAX_STATES, MissingPolicy, Table, check_frame, encode
from .errors import (
    ColumnNotFoundError,
    DuplicateColumnError,
    StructureError,
    TreelearnError,
    UnseenStateError,
)
from .information import mutual_information_matrix
from .model import TreeModel
from .parameters import Prior, check_prior, estimate_cpt, family_counts_from_codes
from .stream import STATES_ADVICE, CountedTable, count_file, is_parquet, read_header, unseen_message
from .structure import complete_graph, orient, spanning_skeleton

__all__ = ["as_table", "chow_liu", "count_data", "fit_cpts", "mi_graph", "partial_fit", "read_data"]


def read_data(path: str | os.PathLike) -> pd.DataFrame:
    """Read a CSV or Parquet file (by suffix) into a DataFrame."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such data file: {path!r}")
    if is_parquet(path):
        return pd.read_parquet(path)
    return pd.read_csv(path)


def as_table(
    data: Any,
    *,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
    states: Mapping[Hashable, Sequence] | None = None,
) -> Table:
    """A :class:`Table` from a DataFrame, a CSV/Parquet path, or a Table (returned as is)."""
    if isinstance(data, Table):
        return data
    if isinstance(data, (str, os.PathLike)):
        data = read_data(data)
    return encode(data, missing=missing, max_states=max_states, states=states)


def _mi_graph(
    columns: Sequence, states: Sequence, counts: PairCounts, mi_alpha: float | None
) -> nx.Graph:
    G = complete_graph(list(columns), mutual_information_matrix(counts, mi_alpha), states)
    G.graph["n"] = counts.n_rows
    return G


def mi_graph(
    data: Any,
    *,
    missing: MissingPolicy = "error",
    mi_alpha: float | None = None,
    max_states: int = DEFAULT_MAX_STATES,
) -> nx.Graph:
    """The complete graph over the columns, edge ``weight`` = mutual information (nats).

    Node attribute ``states`` holds each column's state labels; the graph
    attribute ``n`` the number of rows. With ``mi_alpha``, MI is computed from the
    pairwise joint smoothed by ``mi_alpha`` per cell.

    Examples
    --------
    >>> import pandas as pd, networkx as nx, treelearn as tl
    >>> df = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 1], "c": [0, 1, 0, 1]})
    >>> G = tl.mi_graph(df)
    >>> round(G["a"]["b"]["weight"], 6), G["a"]["c"]["weight"]
    (0.693147, 0.0)
    """
    counted = count_data(data, missing=missing, max_states=max_states)  # paths: in chunks
    return _mi_graph(counted.columns, counted.states, counted.counts, mi_alpha)


FamilyCounter = Callable[[Sequence[int]], np.ndarray]


def counter_from_pairs(counts: PairCounts) -> FamilyCounter:
    """Family counts read off the pairwise tables (families of one or two variables)."""

    def count(family: Sequence[int]) -> np.ndarray:
        if len(family) == 1:
            return counts.marginal(family[0])
        if len(family) == 2:
            return counts.block(family[0], family[1]).copy()
        raise StructureError("pairwise counts cannot fit a CPT with more than one parent")

    return count


def build_model(
    structure: nx.DiGraph,
    columns: Sequence[Hashable],
    states: Sequence[Sequence],
    count: FamilyCounter,
    *,
    alpha: float,
    prior: Prior,
    equivalent_sample_size: float,
    dtypes: Sequence = (),
    n_rows: int | None = None,
    settings: Mapping[str, Any] | None = None,
) -> TreeModel:
    """Fit a CPT for every node of ``structure`` from family counts; the shared last stage."""
    position = {c: j for j, c in enumerate(columns)}
    absent = [v for v in structure.nodes if v not in position]
    if absent:
        raise ColumnNotFoundError(
            f"structure node(s) {absent} are not columns of the data {list(columns)}"
        )
    if not nx.is_directed_acyclic_graph(structure):
        raise StructureError("the structure must be a directed acyclic graph")
    variables = [c for c in columns if c in structure]
    G = nx.DiGraph()
    G.graph.update(structure.graph)
    for v in variables:
        given = structure.nodes[v].get("parents")
        if given and (len(set(given)) != len(given) or set(given) != set(structure.predecessors(v))):
            raise StructureError(
                f"node {v!r}: its 'parents' attribute {list(given)} must list each of its "
                f"parents in the graph, {list(structure.predecessors(v))}, once"
            )
        parents = list(given) if given else sorted(structure.predecessors(v), key=position.__getitem__)
        family = [position[p] for p in parents] + [position[v]]
        cpt = estimate_cpt(count(family), alpha, prior, equivalent_sample_size)
        attrs = {k: val for k, val in structure.nodes[v].items() if k not in ("cpt", "states", "parents")}
        G.add_node(v, **attrs, states=list(states[position[v]]), cpt=cpt, parents=parents)
    G.add_edges_from(structure.edges(data=True))
    return TreeModel(
        G,
        variables=variables,
        dtypes={c: dt for c, dt in zip(columns, dtypes) if c in structure} if dtypes else None,
        n_rows=n_rows,
        settings=settings,
    )


def fit_cpts(
    structure: nx.DiGraph,
    data: Any,
    alpha: float = 0.0,
    *,
    prior: Prior = "lidstone",
    equivalent_sample_size: float = 1.0,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
) -> TreeModel:
    """Fit the CPTs of any DAG over columns of ``data`` (see :mod:`treelearn.parameters`).

    Parents are ordered as in the node attribute ``parents`` when present, else
    in column order. With ``missing="pairwise"``, each CPT uses the rows where its
    whole family is observed.

    Examples
    --------
    >>> import pandas as pd, networkx as nx, treelearn as tl
    >>> df = pd.DataFrame({"c": [0, 0, 1, 1], "x": [0, 1, 1, 1]})
    >>> m = tl.fit_cpts(nx.DiGraph([("c", "x")]), df, alpha=1.0)
    >>> m.cpt("x").tolist()   # (N + 1) / (N(c) + 2)
    [[0.5, 0.5], [0.25, 0.75]]
    """
    check_prior(prior, alpha, equivalent_sample_size)
    if isinstance(data, (str, os.PathLike)):  # read it, so only the structure's columns are encoded
        data = read_data(data)
    if isinstance(data, pd.DataFrame):
        absent = [v for v in structure.nodes if v not in data.columns]
        if absent:
            raise ColumnNotFoundError(
                f"structure node(s) {absent} are not columns of the data {list(data.columns)}"
            )
        data = data[[c for c in data.columns if c in structure]]
    table = as_table(data, missing=missing, max_states=max_states)

    def count(family: Sequence[int]) -> np.ndarray:
        return family_counts_from_codes(table.codes, table.cardinalities, family)

    return build_model(
        structure,
        table.columns,
        table.states,
        count,
        alpha=alpha,
        prior=prior,
        equivalent_sample_size=equivalent_sample_size,
        dtypes=table.dtypes,
        n_rows=table.n_rows,
        settings={"method": "fit_cpts", "alpha": alpha, "prior": prior,
                  "equivalent_sample_size": equivalent_sample_size, "missing": missing},
    )


def chow_liu_from_counts(
    counts: PairCounts,
    columns: Sequence[Hashable],
    states: Sequence[Sequence],
    *,
    root: Hashable | None = None,
    alpha: float = 0.0,
    prior: Prior = "lidstone",
    equivalent_sample_size: float = 1.0,
    mi_alpha: float | None = None,
    forest: str | float | None = None,
    dtypes: Sequence = (),
    settings: Mapping[str, Any] | None = None,
) -> TreeModel:
    """Chow-Liu from sufficient statistics: MI graph -> spanning tree/forest -> orient -> CPTs."""
    n = counts.n_rows
    if forest == "bic":  # with missing values each pair's penalty uses the rows it was counted on
        pair_rows = counts.pair_totals()
        if (pair_rows != n).any():
            n = pair_rows
    skeleton = spanning_skeleton(
        list(columns), mutual_information_matrix(counts, mi_alpha), states, forest=forest, n=n
    )
    structure = orient(skeleton, root)
    model = build_model(
        structure,
        columns,
        states,
        counter_from_pairs(counts),
        alpha=alpha,
        prior=prior,
        equivalent_sample_size=equivalent_sample_size,
        dtypes=dtypes,
        n_rows=counts.n_rows,
        settings=settings,
    )
    model.counts = counts  # sufficient statistics, for partial_fit
    return model


def chow_liu(
    data: Any,
    root: Hashable | None = None,
    alpha: float = 0.0,
    *,
    prior: Prior = "lidstone",
    equivalent_sample_size: float = 1.0,
    missing: MissingPolicy = "error",
    mi_alpha: float | None = None,
    forest: str | float | None = None,
    max_states: int = DEFAULT_MAX_STATES,
    states: Mapping[Hashable, Sequence] | None = None,
    chunksize: int = 200_000,
    columns: Sequence[Hashable] | None = None,
) -> TreeModel:
    """Learn a Chow-Liu tree (or forest) and its CPTs.

    Parameters
    ----------
    data : DataFrame of discrete columns, a CSV/Parquet path (read ``chunksize``
        rows at a time, never whole: see :mod:`treelearn.stream`), or a
        ``dask.dataframe.DataFrame`` (counted on its workers: see
        :mod:`treelearn.dask_support`). Never modified.
    root : the root; ``None`` roots the tree at the **first column** (and each
        other tree of a forest at its first column). The root changes the
        direction of the edges, not the maximum-likelihood fit.
    alpha : Lidstone pseudocount for the CPTs (0 = maximum likelihood, 1 = Laplace).
    prior : ``"lidstone"`` (uses ``alpha``) or ``"bdeu"`` (uses ``equivalent_sample_size``).
    missing : ``"error"``, ``"drop"`` or ``"pairwise"`` (see :func:`treelearn.data.encode`).
    mi_alpha : pseudocount added to each cell of the pairwise joint from which the
        tree-choosing MI is computed; ``None`` uses raw counts.
    forest : ``None`` for a spanning tree; ``"bic"`` keeps only edges with
        ``I_ij - (k_i - 1)(k_j - 1) ln(n) / (2n) > 0``; a number keeps edges with
        ``I_ij`` above it.
    max_states : the most states a column may have.
    states : optional ``{column: [states]}`` fixing the states (and their order) of
        some or all columns; a value outside them raises :class:`UnseenStateError`.
        Giving every column's states lets a file be read in one pass, and makes
        :meth:`TreeModel.partial_fit` accept later rows with values the first rows lack.
    chunksize : rows per chunk when ``data`` is a file path.
    columns : the variables' names when ``data`` is a ``scipy.sparse`` matrix of
        0/1 (or bool) values, rows x variables (default ``0, 1, ..., d - 1``); it
        is counted without densifying, as fast as its number of non-zeros allows
        (see :func:`treelearn.counts.sparse_binary_counts`), and gives the model
        ``chow_liu(pd.DataFrame(matrix.toarray(), columns=columns))`` gives.

    The model keeps its pair counts (``model.counts``), so
    :meth:`TreeModel.partial_fit` can add rows later.

    Ties in MI are broken by column order, so the same data gives the same tree.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> model = tl.chow_liu(df, root="smoke")
    >>> model.root
    'smoke'
    >>> model.graph.number_of_edges()
    7
    """
    check_prior(prior, alpha, equivalent_sample_size)
    if mi_alpha is not None and (not np.isfinite(mi_alpha) or mi_alpha < 0):
        raise ValueError(f"mi_alpha must be None or a number >= 0, not {mi_alpha!r}")
    if forest is not None and forest != "bic" and (
        isinstance(forest, bool) or not isinstance(forest, (int, float))
    ):  # forest=True would otherwise be a silent threshold of 1 nat
        raise ValueError(f"forest must be None, 'bic' or a number, not {forest!r}")
    if is_scipy_sparse(data):
        counted = count_sparse(data, columns, states=states)
    elif columns is not None:
        raise TypeError(
            "columns= names the variables of a scipy.sparse matrix; a DataFrame brings its own "
            "column names (select columns with df[[...]])"
        )
    else:
        counted = count_data(data, missing=missing, max_states=max_states, states=states,
                             chunksize=chunksize)
    if root is not None and root not in counted.columns:
        raise ColumnNotFoundError(
            f"{root!r} is not a column of the data; the columns are {list(counted.columns)}"
        )
    settings = {
        "method": "chow-liu", "root": root, "alpha": alpha, "prior": prior,
        "equivalent_sample_size": equivalent_sample_size, "missing": missing,
        "mi_alpha": mi_alpha, "forest": forest,
    }
    return chow_liu_from_counts(
        counted.counts,
        counted.columns,
        counted.states,
        root=root,
        alpha=alpha,
        prior=prior,
        equivalent_sample_size=equivalent_sample_size,
        mi_alpha=mi_alpha,
        forest=forest,
        dtypes=counted.dtypes,
        settings=settings,
    )


def count_sparse(
    matrix: Any,
    columns: Sequence[Hashable] | None = None,
    *,
    states: Mapping[Hashable, Sequence] | None = None,
) -> CountedTable:
    """Pair counts, columns, states and dtypes of a ``scipy.sparse`` 0/1 matrix (rows x variables)."""
    if states:
        raise ValueError(
            "states= is not supported for scipy.sparse input: its columns' states are the "
            "0/1 values present; pass a DataFrame to fix states"
        )
    d = matrix.shape[1]
    names = tuple(range(d)) if columns is None else tuple(columns)
    if len(names) != d:
        raise ValueError(f"columns has {len(names)} names for a matrix with {d} columns")
    if len(set(names)) != len(names):
        seen: set = set()
        dup = [c for c in names if c in seen or seen.add(c)]
        raise DuplicateColumnError(
            f"duplicate column name(s) {sorted(set(dup), key=names.index)}; each column needs its own name"
        )
    counts, col_states = sparse_binary_counts(matrix)
    return CountedTable(counts, names, col_states, (matrix.dtype,) * d)


def count_data(
    data: Any,
    *,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
    states: Mapping[Hashable, Sequence] | None = None,
    chunksize: int = 200_000,
) -> CountedTable:
    """Pair counts, columns, states and dtypes of a DataFrame, Table, path or dask DataFrame."""
    if is_dask_dataframe(data):
        from .dask_support import count_dask

        return count_dask(data, missing=missing, max_states=max_states, states=states)
    if isinstance(data, (str, os.PathLike)):
        return count_file(
            data, chunksize=chunksize, states=states, missing=missing, max_states=max_states
        )
    table = as_table(data, missing=missing, max_states=max_states, states=states)
    return CountedTable(pair_counts(table), table.columns, table.states, table.dtypes)


def partial_fit(model: TreeModel, data: Any, chunksize: int = 200_000) -> TreeModel:
    """Add the rows of ``data`` to a Chow-Liu model's counts; re-learn tree and CPTs in place.

    ``data`` is a DataFrame (extra columns ignored), or a CSV/Parquet path or a
    dask DataFrame with exactly the model's variables as columns, in order
    (counted in chunks or on the workers, as by :func:`chow_liu`). The rows are
    encoded against the model's states: a value outside them raises
    :class:`UnseenStateError` (states never grow, so CPT shapes stay put; give
    every state up front with ``chow_liu(..., states=...)``). The settings
    (root, smoothing, missing policy, forest) are those the model was learned with.
    """
    counts = getattr(model, "counts", None)
    if counts is None or model.settings.get("method") != "chow-liu":
        raise TreelearnError(
            "partial_fit needs a model learned by tl.chow_liu, which keeps its pair counts; "
            "this model has none (was it built by hand, loaded, or learned another way?)"
        )
    columns = list(model.variables)
    settings = dict(model.settings)
    given = model.states
    fixed = (" A fitted model's states are fixed: learn it with chow_liu(..., states=...) "
             "listing every value the later rows can take.")
    if isinstance(data, (str, os.PathLike)) or is_dask_dataframe(data):
        names = list(data.columns) if is_dask_dataframe(data) else list(read_header(data))
        if names != columns:
            raise ColumnNotFoundError(
                f"the new rows' columns {names} differ from the model's variables {columns}; "
                f"a file or dask DataFrame must have exactly these columns, in this order"
            )
        try:
            new = count_data(data, missing=settings.get("missing", "error"), states=given,
                             chunksize=chunksize).counts
        except UnseenStateError as error:
            raise UnseenStateError(str(error).split(STATES_ADVICE)[0] + fixed) from None
        total = counts + new
    else:
        check_frame(data)
        absent = [c for c in columns if c not in data.columns]
        if absent:
            raise ColumnNotFoundError(
                f"the new rows lack the model's variable(s) {absent}; their columns are "
                f"{list(data.columns)}"
            )
        try:
            table = encode(data[columns], missing=settings.get("missing", "error"),
                           states=given, max_states=np.iinfo(np.int64).max)
        except UnseenStateError:
            message = unseen_message(data[columns], given, "partial_fit: ")
            raise UnseenStateError(message.split(STATES_ADVICE)[0] + fixed) from None
        total = counts + pair_counts(table)
    fresh = chow_liu_from_counts(
        total,
        columns,
        [given[c] for c in columns],
        root=settings.get("root"),
        alpha=settings.get("alpha", 0.0),
        prior=settings.get("prior", "lidstone"),
        equivalent_sample_size=settings.get("equivalent_sample_size", 1.0),
        mi_alpha=settings.get("mi_alpha"),
        forest=settings.get("forest"),
        dtypes=[model.dtypes.get(c) for c in columns] if model.dtypes else (),
        settings=settings,
    )
    model.graph, model.variables, model.n_rows = fresh.graph, fresh.variables, fresh.n_rows
    model.counts = fresh.counts
    return model
