"""pgmpy networks and BIF files: the model to pgmpy, and pgmpy to a checked graph.

pgmpy's CPD layout (node state x flattened parent states, first parent slowest)
appears only here; inside treelearn a CPT is ``[parent states..., own state]``.

This module reads models duck-typed (``variables``, ``states``, ``parents(v)``,
``cpt(v)``) and never imports :mod:`treelearn.models._tree`; building a
:class:`~treelearn.TreeModel` from pgmpy or BIF (:func:`treelearn.from_pgmpy`,
:func:`treelearn.read_bif`) is :mod:`treelearn._io`'s, on top of
:func:`graph_from_pgmpy` and :func:`graph_from_bif`.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from .._base.errors import InputTypeError, InvalidModelError, StructureError, TreelearnError
from ..stats._parameters import check_cpt

if TYPE_CHECKING:
    from ..models._tree import TreeModel

__all__ = ["graph_from_bif", "graph_from_pgmpy", "to_pgmpy", "write_bif"]


def to_pgmpy(model: TreeModel) -> Any:
    """``DiscreteBayesianNetwork`` with one ``TabularCPD`` per variable, state names included.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> bn = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]})).to_pgmpy()
    >>> bn.check_model()
    True
    """
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    bn = DiscreteBayesianNetwork()
    bn.add_nodes_from(model.variables)
    bn.add_edges_from((p, v) for v in model.variables for p in model.parents(v))
    states = model.states
    cpds = []
    for v in model.variables:
        parents = model.parents(v)
        cpt = model.cpt(v)
        values = np.moveaxis(cpt, -1, 0).reshape(cpt.shape[-1], -1)
        cpds.append(
            TabularCPD(
                variable=v,
                variable_card=cpt.shape[-1],
                values=values,
                evidence=parents or None,
                evidence_card=[len(states[p]) for p in parents] or None,
                state_names={u: list(states[u]) for u in [v, *parents]},
            )
        )
    bn.add_cpds(*cpds)
    return bn


def graph_from_pgmpy(network: Any) -> nx.DiGraph:
    """The graph of a pgmpy discrete Bayesian network with tabular CPDs, checked.

    Nodes carry ``states`` (the CPD's state names), ``parents`` (the CPD's
    evidence order) and ``cpt`` (``[parent states..., own state]``, checked by
    :func:`~treelearn.stats._parameters.check_cpt`); ``graph.graph["roots"]`` lists the
    nodes without parents. Every state label and every CPT entry is kept. Raises
    :class:`~treelearn.StructureError` naming the variable that is wrong.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> bn = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}), root="a",
    ...                  alpha=0).to_pgmpy()
    >>> G = graph_from_pgmpy(bn)
    >>> G.nodes["b"]["parents"], G.nodes["b"]["cpt"].tolist(), G.graph["roots"]
    (['a'], [[1.0, 0.0], [0.5, 0.5]], ['a'])
    """
    if not hasattr(network, "get_cpds") or not hasattr(network, "nodes"):
        raise InputTypeError(
            f"expected a pgmpy DiscreteBayesianNetwork, got {type(network).__name__}"
        )
    G = nx.DiGraph()
    nodes = list(network.nodes())
    G.add_nodes_from(nodes)
    for node in nodes:
        cpd = network.get_cpds(node)
        if cpd is None:
            raise StructureError(f"the pgmpy network has no CPD for {node!r}")
        scope = list(cpd.variables)
        values = np.asarray(cpd.values, dtype=float).reshape(
            [cpd.cardinality[i] for i in range(len(scope))]
        )
        parents = scope[1:]
        G.add_node(
            node,
            states=list(cpd.state_names[node]),
            cpt=np.moveaxis(values, 0, -1),
            parents=parents,
        )
        G.add_edges_from((p, node) for p in parents)
    # a child's CPD may list a parent's states in another order than the parent's own
    # CPD (pgmpy's check_model rejects it, add_cpds does not): align the axes by label
    for node in nodes:
        cpd = network.get_cpds(node)
        cpt = G.nodes[node]["cpt"]
        for axis, p in enumerate(G.nodes[node]["parents"]):
            own, listed = list(G.nodes[p]["states"]), list(cpd.state_names[p])
            if listed == own:
                continue
            if sorted(map(repr, listed)) != sorted(map(repr, own)) or len(
                set(map(repr, own))
            ) != len(own):
                raise StructureError(
                    f"the CPD of {node!r} lists the states of its parent {p!r} as {listed}, but "
                    f"{p!r}'s own CPD has {own}; make them the same (pgmpy's check_model() says so too)"
                )
            order = [listed.index(s) for s in own]
            cpt = np.take(cpt, order, axis=axis)
        shape = [len(G.nodes[p]["states"]) for p in G.nodes[node]["parents"]]
        G.nodes[node]["cpt"] = check_cpt(node, cpt, [*shape, len(G.nodes[node]["states"])])
    roots = [v for v in nodes if G.in_degree(v) == 0]
    G.graph["roots"] = roots
    return G


def write_bif(model: TreeModel, path: str | os.PathLike) -> None:
    """Write ``model`` to a BIF file with pgmpy's ``BIFWriter``.

    BIF names and states are words of letters, digits, ``_``, ``-`` and ``.``
    (what pgmpy's reader accepts); anything else is refused before writing,
    since the file could not be read back.
    """
    from pgmpy.readwrite import BIFWriter

    for v in model.variables:
        for word, what in [(v, "variable name")] + [
            (s, f"state of {v!r}") for s in model.states[v]
        ]:
            if not re.fullmatch(r"[\w.\-]+", str(word)):
                raise TreelearnError(
                    f"the {what} {str(word)!r} cannot be written to BIF, which allows only "
                    f"letters, digits, '_', '-' and '.'; rename it (e.g. df.rename(columns=...) "
                    f"or df[col].replace(...)) before learning, or save with model.save(path)"
                )

    writer = BIFWriter(to_pgmpy(model))
    # pgmpy >= 1.1 names it ``write`` (``write_bif`` is deprecated, removed in 1.3)
    (writer.write if hasattr(writer, "write") else writer.write_bif)(os.fspath(path))


def graph_from_bif(path: str | os.PathLike) -> nx.DiGraph:
    """The checked graph (:func:`graph_from_pgmpy`) of a BIF file read with pgmpy's ``BIFReader``.

    State labels come back as strings.
    """
    from pgmpy.readwrite import BIFReader

    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such BIF file: {path!r}")
    try:  # pgmpy checks the tables (negative, mis-sized) with bare ValueErrors
        network = BIFReader(path).get_model()
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise InvalidModelError(
            f"{path}: not a valid BIF network ({type(exc).__name__}: {str(exc)[:200]})"
        ) from None
    return graph_from_pgmpy(network)
