"""The learning entry points: the MI graph, Chow-Liu trees and forests, CPTs for any DAG.

Each is a composition of the stages (encode -> count -> information -> graph ->
spanning tree -> orient -> CPTs); the stages stay public, so a user can stop at
any of them, change the graph, and carry on.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Hashable, Mapping, Sequence

import networkx as nx
import numpy as np
import pandas as pd

from .counts import PairCounts, pair_counts
from .data import DEFAULT_MAX_STATES, MissingPolicy, Table, encode
from .errors import ColumnNotFoundError, StructureError
from .information import mutual_information_matrix
from .model import TreeModel
from .parameters import Prior, check_prior, estimate_cpt, family_counts_from_codes
from .structure import complete_graph, maximum_spanning_tree, orient, penalised_forest

__all__ = ["chow_liu", "mi_graph", "fit_cpts", "read_data", "as_table"]


def read_data(path: str | os.PathLike) -> pd.DataFrame:
    """Read a CSV or Parquet file (by suffix) into a DataFrame."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such data file: {path!r}")
    if path.endswith((".parquet", ".pq")):
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
    table = as_table(data, missing=missing, max_states=max_states)
    return _mi_graph(table.columns, table.states, pair_counts(table), mi_alpha)


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
    G = _mi_graph(columns, states, counts, mi_alpha)
    skeleton = maximum_spanning_tree(G) if forest is None else penalised_forest(G, forest)
    structure = orient(skeleton, root)
    return build_model(
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
) -> TreeModel:
    """Learn a Chow-Liu tree (or forest) and its CPTs.

    Parameters
    ----------
    data : DataFrame of discrete columns, or a CSV/Parquet path. Never modified.
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
    if forest is not None and forest != "bic" and not isinstance(forest, (int, float)):
        raise ValueError(f"forest must be None, 'bic' or a number, not {forest!r}")
    table = as_table(data, missing=missing, max_states=max_states)
    if root is not None:
        table.index(root)
    settings = {
        "method": "chow-liu", "root": root, "alpha": alpha, "prior": prior,
        "equivalent_sample_size": equivalent_sample_size, "missing": missing,
        "mi_alpha": mi_alpha, "forest": forest,
    }
    return chow_liu_from_counts(
        pair_counts(table),
        table.columns,
        table.states,
        root=root,
        alpha=alpha,
        prior=prior,
        equivalent_sample_size=equivalent_sample_size,
        mi_alpha=mi_alpha,
        forest=forest,
        dtypes=table.dtypes,
        settings=settings,
    )
