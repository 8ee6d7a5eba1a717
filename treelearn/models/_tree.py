"""The fitted model: a DAG whose nodes carry ``states`` and ``cpt``.

:class:`TreeModel` scores data (log-likelihood, BIC, AIC), samples, answers
exact queries, and hands itself to pgmpy. It is shared by Chow-Liu trees and
forests, naive Bayes and TAN: they differ only in the structure.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import TYPE_CHECKING, Any, Literal

import networkx as nx
import numpy as np
import pandas as pd

from .._base.errors import (
    ColumnNotFoundError,
    InvalidModelError,
    StructureError,
    TreelearnError,
    UnseenStateError,
)
from .._base.limits import check_memory
from .._base.validation import BOOLEAN, RANDOM_STATE, InstanceOf, Interval, check_param
from ..encoding._bins import binned_numbers
from ..encoding._table import Table, check_frame, encode
from ..export._jsonfile import model_arguments_from_dict, model_to_dict
from ..export._pgmpy import to_pgmpy, write_bif
from ..export._pyagrum import to_pyagrum
from ..export._uai import write_uai
from ..export._xmlbif import write_xmlbif
from ..inference._engine import TreeEngine, decode_codes, is_likelihood, state_index
from ..stats._parameters import check_cpt
from ..structure._trees import GC_PAUSE_NODES, gc_paused, is_acyclic
from ._base import Model, rows_text, tree_lines

if TYPE_CHECKING:  # pragma: no cover
    # imported where used: loading a saved tree needs none of them (start-up time)
    from ..inference._shapley import Explanation
    from ..stats._counts import CountedTable, PairCounts

__all__ = ["ScoreReport", "StackedTree", "TreeModel", "states_text"]

#: evidence is ``None`` or ``{variable: state or likelihood}``
_EVIDENCE = [None, InstanceOf(Mapping, name="a dict {variable: state or likelihood}")]


def _zero_rows(
    bad: np.ndarray, index: pd.Index, present: Mapping[Hashable, pd.Series]
) -> TreelearnError:
    """The error for evidence rows of probability zero (``bad``), naming the first."""
    r = int(np.flatnonzero(bad)[0])
    row = {v: col.iloc[r] for v, col in present.items() if pd.notna(col.iloc[r])}
    return TreelearnError(
        f"{int(bad.sum())} evidence row(s) have probability zero under the model, e.g. row "
        f"{index[r]!r} with {row}: drop or fix those rows, or learn with alpha > 0"
    )


_NOT_A_DAG = "a TreeModel needs a directed acyclic nx.DiGraph"


def _families(graph: nx.DiGraph, variables: list) -> tuple[list[list], dict[tuple, list]]:
    """Each variable's parents (its ``parents`` attribute, checked against the graph's edges,
    else its predecessors in ``variables`` order) and the variables grouped by CPT shape
    (``(*parents' state counts, own state count)``), without writing into the graph.

    One pass over the node and predecessor views: no sets or sorts per node where a node has at most one parent
    (every node of a tree); a 20,000-node tree model's construction was 80 ms, most of it
    per-node view lookups."""
    nodes, pred = graph.nodes, graph.pred
    attributes = [nodes[v] for v in variables]
    position: dict | None = None
    all_parents: list[list] = []
    for v, node in zip(variables, attributes):  # checked in order, as each node is reached
        if "states" not in node or "cpt" not in node:
            raise StructureError(f"node {v!r} needs the attributes 'states' and 'cpt'")
        before = pred[v]
        given = node.get("parents")
        if given:
            ps = list(given)
            k = len(ps)  # (one parent or none, as in a tree: no sets)
            if (
                k != len(before)
                or (k == 1 and ps[0] not in before)
                or (k > 1 and (set(ps) != set(before) or len(set(ps)) != k))
            ):
                raise StructureError(f"node {v!r}: 'parents' {ps} differ from the graph's edges")
        else:
            ps = list(before)  # distinct: a dict's keys
            if len(ps) > 1:
                if position is None:
                    position = {u: i for i, u in enumerate(variables)}
                ps.sort(key=position.__getitem__)
        all_parents.append(ps)
    size = {v: len(node["states"]) for v, node in zip(variables, attributes)}
    by_shape: dict[tuple, list] = {}
    for v, ps in zip(variables, all_parents):
        shape = (*(size[p] for p in ps), size[v]) if ps else (size[v],)
        group = by_shape.get(shape)
        if group is None:
            by_shape[shape] = [v]
        else:
            group.append(v)
    return all_parents, by_shape


def _acyclic(graph: nx.DiGraph, variables: list, all_parents: list[list]) -> bool:
    """Whether ``graph`` is acyclic, from the parent lists :func:`_families` read.

    Where every node has at most one parent (a tree or forest: every learned tree), it is
    acyclic iff every node is reached going down from the roots (a node on a cycle, or
    below one, has no root above it): a walk over the children for small graphs (50 nodes:
    ~10 us against networkx's 34 us), pointer doubling in numpy over the parent indices
    from :data:`~treelearn.structure._trees.GC_PAUSE_NODES` nodes on; else networkx's check
    (:func:`~treelearn.structure._trees.is_acyclic`)."""
    n = len(variables)
    if any(len(ps) > 1 for ps in all_parents):
        return is_acyclic(graph)
    if n < GC_PAUSE_NODES:
        children = graph.succ
        stack = [v for v, ps in zip(variables, all_parents) if not ps]
        reached = len(stack)
        while stack:  # each node has one parent: reached at most once
            below = children[stack.pop()]
            reached += len(below)
            stack.extend(below)
        return reached == n
    index = {v: i for i, v in enumerate(variables)}
    up = np.fromiter((index[ps[0]] if ps else -1 for ps in all_parents), dtype=np.int64, count=n)
    return _roots_reach_all(up)


def _roots_reach_all(parent: np.ndarray) -> bool:
    """Whether every node of a graph of one parent or none per node (``parent[i]``, ``-1``
    for a root) has a root above it, i.e. the graph is acyclic: pointer doubling, after
    ``k`` rounds each node's ``2**k``-th ancestor."""
    up = np.asarray(parent, dtype=np.int64)
    for _ in range(len(up).bit_length() + 1):
        up = np.where(up >= 0, up[np.maximum(up, 0)], -1)
    return bool((up < 0).all())


def _check_stacked_structure(stacked: StackedTree) -> None:
    """A :class:`StackedTree`'s nodes: named once each, one forest, a parent, states and a
    group each, the groups indexing the tables; else a StructureError saying which."""
    d = len(stacked.variables)
    if len(stacked.index) != d:
        raise StructureError("variables must list every node of the graph once")
    parent = stacked.parent
    if ((parent < -1) | (parent >= d)).any() or not _roots_reach_all(parent):
        raise StructureError(_NOT_A_DAG)
    group = stacked.group
    if len(stacked.states) != d or len(group) != d or len(parent) != d:
        raise StructureError("a StackedTree needs states, a parent and a group per variable")
    if ((group < 0) | (group >= len(stacked.tables))).any():
        raise StructureError("a StackedTree's groups must index its tables")


def _check_stacked_shape(
    stacked: StackedTree, size: np.ndarray, members: np.ndarray, table: np.ndarray
) -> None:
    """One group's stack has a CPT per member, of the shape its states (``size``: each
    variable's number of states) and parent give."""
    first = members[0] if len(members) else 0
    k = size[members]
    p = stacked.parent[members]
    kp = np.where(p >= 0, size[np.maximum(p, 0)], 0)
    shape = table.shape[1:]
    if (
        table.shape[0] != len(members)
        or (len(shape) == 1 and ((p >= 0).any() or (k != shape[0]).any()))
        or (len(shape) == 2 and ((p < 0).any() or (kp != shape[0]).any() or (k != shape[1]).any()))
        or len(shape) not in (1, 2)
    ):
        raise StructureError(
            f"node {stacked.variables[first]!r}: its stacked CPTs have shape "
            f"{table.shape}, which does not match its group's states and parents"
        )


def _check_cpts(nodes: Any, group: list, shape: tuple) -> None:
    """Every CPT of ``group`` (nodes of one CPT shape) as a float copy checked by
    :func:`~treelearn.stats._parameters.check_cpt`: stacked and checked in one call (a
    call per node was most of a 50,000-node model's construction), each node's CPT a
    view of the stack; a stack that fails is checked node by node, so the error names
    the node and its row."""
    try:
        with np.errstate(all="ignore"):
            stack = check_cpt(
                group[0],
                np.array([nodes[v]["cpt"] for v in group], dtype=float),
                (len(group), *shape),
            )
    except (StructureError, TypeError, ValueError):
        for v in group:  # raises, naming the first bad node
            nodes[v]["cpt"] = check_cpt(v, nodes[v]["cpt"], shape)
        return
    for v, cpt in zip(group, stack):
        nodes[v]["cpt"] = cpt


class StackedTree:
    """A forest's nodes as arrays, the form a :class:`TreeModel` built by
    :meth:`TreeModel.from_stacked` holds until its ``graph`` is first asked for.

    Every node has at most one parent. Its CPT is a row of one stacked array per CPT shape
    (``(own states,)`` for a root, ``(parent states, own states)`` below), so a 20,000-node
    sparse Chow-Liu tree is a few arrays, not 20,000 attribute dicts: scoring, sampling and
    queries read the arrays; the networkx graph (the same nodes, attributes, edges, edge
    order and graph attributes the eager construction gives) is built once, on first access
    of :attr:`TreeModel.graph`.

    Parameters
    ----------
    variables : list of hashable
        The nodes, in the model's variable order.
    states : sequence of sequence
        Each variable's state labels (read, never handed out: the model gives copies).
    parent : ndarray of int64
        Each variable's parent (an index into ``variables``), ``-1`` for a root.
    edge_child : ndarray of int64
        The children in the order the graph's edges are added (``(parent[c], c)`` for each
        ``c``): networkx lists a node's out-edges in that order.
    weight : ndarray of float or None
        Each child's edge ``weight`` attribute (MI, nats), read at the child's index;
        ``None``: the edges carry no attributes.
    group : ndarray of int64
        Each variable's CPT group: an index into ``tables``.
    tables : list of ndarray
        Per group, the float CPTs of its variables stacked in variable order, each checked
        (:func:`~treelearn.stats._parameters.check_cpt`) by :meth:`TreeModel.from_stacked`.
    graph_attributes : dict
        The graph's own attributes (``n``, ``roots``), in order.
    """

    def __init__(
        self,
        variables: list,
        states: Sequence[Sequence],
        parent: np.ndarray,
        edge_child: np.ndarray,
        weight: np.ndarray | None,
        group: np.ndarray,
        tables: list[np.ndarray],
        graph_attributes: Mapping[str, Any],
    ) -> None:
        self.variables = variables
        self.states = states
        self.parent = np.asarray(parent, dtype=np.int64)
        self.edge_child = np.asarray(edge_child, dtype=np.int64)
        self.weight = weight
        self.group = np.asarray(group, dtype=np.int64)
        self.tables = tables
        self.graph_attributes = dict(graph_attributes)
        # each variable's row in its group's stack (groups list their variables in order)
        self.slot = np.zeros(len(variables), dtype=np.int64)
        for g in range(len(tables)):
            members = self.members(g)
            self.slot[members] = np.arange(len(members))
        self._index: dict | None = None

    def members(self, g: int) -> np.ndarray:
        """The variables of group ``g``, in order (their rows of ``tables[g]``)."""
        return np.flatnonzero(self.group == g)

    @property
    def sizes(self) -> np.ndarray:
        """Each variable's number of states."""
        return np.fromiter(map(len, self.states), dtype=np.int64, count=len(self.states))

    @property
    def index(self) -> dict:
        """``{variable: position}``, built once."""
        if self._index is None:
            self._index = {v: i for i, v in enumerate(self.variables)}
        return self._index

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_index"] = None  # rebuilt on demand
        return state

    def cpt(self, i: int) -> np.ndarray:
        """The CPT of variable ``i``: a view of its group's stack."""
        return self.tables[self.group[i]][self.slot[i]]

    def parents(self, i: int) -> list:
        p = int(self.parent[i])
        return [self.variables[p]] if p >= 0 else []

    def graph(self) -> nx.DiGraph:
        """The networkx graph the eager construction gives (nodes with ``states``, ``cpt``
        and ``parents`` in that order, the edges in ``edge_child`` order)."""
        names, states = self.variables, self.states
        parent = self.parent.tolist()
        group, slot = self.group.tolist(), self.slot.tolist()
        tables = self.tables
        D = nx.DiGraph()
        D.graph.update(
            {k: (list(x) if isinstance(x, list) else x) for k, x in self.graph_attributes.items()}
        )
        children = self.edge_child.tolist()
        with gc_paused(len(names)):
            D.add_nodes_from(
                (
                    v,
                    {
                        "states": list(states[i]),
                        "cpt": tables[group[i]][slot[i]],
                        "parents": [names[parent[i]]] if parent[i] >= 0 else [],
                    },
                )
                for i, v in enumerate(names)
            )
            if self.weight is None:
                D.add_edges_from((names[parent[c]], names[c]) for c in children)
            else:
                weight = self.weight[self.edge_child].tolist()
                D.add_edges_from(
                    (names[parent[c]], names[c], {"weight": w}) for c, w in zip(children, weight)
                )
        return D

    def roots(self) -> list:
        learned = [r for r in self.graph_attributes.get("roots", []) if r in self.index]
        known = set(learned)
        rest = [v for v, p in zip(self.variables, self.parent.tolist()) if p < 0 and v not in known]
        return learned + rest

    def n_parameters(self) -> int:
        return int(
            sum(
                len(t) * (t.shape[-1] - 1) * int(np.prod(t.shape[1:-1], dtype=np.int64))
                for t in self.tables
            )
        )

    def log_cpt_index(self) -> tuple:
        """:meth:`TreeModel.log_cpt_index` from the stacks: the same arrays as the
        per-node construction (each CPT's logs at its offset in variable order), one
        ``log`` per stack."""
        d = len(self.variables)
        own = np.arange(d, dtype=np.intp)
        child = self.parent >= 0
        width = 2 if child.any() else 1
        columns = np.zeros((d, width), dtype=np.intp)
        strides = np.zeros((d, width), dtype=np.intp)
        sizes = np.array([int(np.prod(t.shape[1:])) for t in self.tables], dtype=np.intp)
        last = np.array([t.shape[-1] for t in self.tables], dtype=np.intp)
        size = sizes[self.group] if d else np.zeros(0, dtype=np.intp)
        offsets = np.zeros(d, dtype=np.intp)
        np.cumsum(size[:-1], out=offsets[1:])
        columns[~child, 0] = own[~child]
        strides[~child, 0] = 1
        if width == 2:
            columns[child, 0] = self.parent[child]
            columns[child, 1] = own[child]
            strides[child, 0] = last[self.group[child]]
            strides[child, 1] = 1
        flat = np.empty(int(size.sum()))
        with np.errstate(divide="ignore"):
            for g, table in enumerate(self.tables):
                members = np.flatnonzero(self.group == g)
                at = offsets[members][:, None] + np.arange(sizes[g], dtype=np.intp)
                flat[at] = np.log(table).reshape(len(members), -1)
        return flat, columns, strides, offsets


def states_text(k: int) -> str:
    """A variable's number of states as the text views print it.

    >>> states_text(1), states_text(3)
    ('1 state', '3 states')
    """
    return f"{k} state" if k == 1 else f"{k} states"


class TreeModel(Model):
    """A discrete Bayesian network with tabular CPTs, typically tree-shaped.

    Parameters
    ----------
    graph : networkx.DiGraph
        Its nodes carry ``states`` (list of labels), ``cpt``
        (ndarray indexed ``[parent states..., own state]``, last axis sums to 1) and
        optionally ``parents`` (the order of the CPT's parent axes; default: the
        predecessors in ``variables`` order). Edge attribute ``weight`` (MI, nats)
        is kept when present. The model keeps a copy: ``graph`` is not changed.
        Every CPT is checked (its shape, non-negative entries, rows summing to 1).
    variables : sequence of hashable, default=None
        The variables' order (default: the graph's node order); sampled
        data has its columns in this order.
    dtypes : dict, default=None
        Optional ``{variable: pandas dtype}`` restored on sampled data.
    n_rows : int or float, default=None
        Number of training rows, when learned from data.
    settings : dict, default=None
        The learning settings, kept for display and saving.
    counts : PairCounts, default=None
        The sufficient statistics it was learned from (the pair counts over
        ``variables``), if any.
    learner : callable, default=None
        ``learner(counted_table) -> TreeModel``, the function that learned
        it from ``counts`` (with its settings), if any.
    copy : bool, default=True
        ``False`` makes ``graph`` itself the model's graph, with no copy: for a graph
        built for the model and not used after (``build_model``'s; a copy of 50,000 nodes
        is ~0.4 s). Its nodes then get their ``parents`` and float CPTs written in.

    Notes
    -----
    A model learned by :func:`treelearn.chow_liu` keeps both, so
    :meth:`partial_fit` can add rows to ``counts`` and learn again; otherwise
    ``counts`` and ``learner`` are None.

    Examples
    --------
    >>> import pandas as pd
    >>> import treelearn as tl
    >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "u", "v", "u"]})
    >>> m = tl.chow_liu(df)
    >>> list(m.graph.edges)
    [('a', 'b')]
    >>> m.query(["b"], evidence={"a": "y"}).tolist()
    [0.5, 0.5]
    """

    kind = "tree_model"
    # the network: a graph (``_graph``), or until it is first read, stacked CPTs
    _graph: nx.DiGraph | None
    _stacked: StackedTree | None
    _token: object  # stands for the graph the engines and log-CPT index were built for
    capabilities = frozenset(
        {
            "score",
            "sample",
            "sample_given",
            "query",
            "marginals",
            "map",
            "predict",
            "explain",
            "draw",
            "explorer",
            "to_pgmpy",
            "bif",
            "pyagrum",
            "partial_fit",
        }
    )

    def __init__(
        self,
        graph: nx.DiGraph,
        *,
        variables: Sequence[Hashable] | None = None,
        dtypes: Mapping[Hashable, Any] | None = None,
        n_rows: int | float | None = None,
        settings: Mapping[str, Any] | None = None,
        counts: PairCounts | None = None,
        learner: Callable[[CountedTable], TreeModel] | None = None,
        copy: bool = True,
    ) -> None:
        if not isinstance(graph, nx.DiGraph):
            raise StructureError(_NOT_A_DAG)
        with gc_paused(graph.number_of_nodes()):
            # a copy (node attribute dicts included): the caller's graph gets no parents or
            # float CPTs written into it, and later changes to it do not reach the model
            if copy:
                graph = graph.copy()
            self.graph = graph
            self.variables = list(variables if variables is not None else graph.nodes)
            if set(self.variables) != set(graph.nodes) or len(self.variables) != len(graph):
                if not is_acyclic(graph):  # a cycle is named first
                    raise StructureError(_NOT_A_DAG)
                raise StructureError("variables must list every node of the graph once")
            try:
                all_parents, by_shape = _families(graph, self.variables)
            except StructureError:
                if not is_acyclic(graph):  # a cycle is named first, as before any node
                    raise StructureError(_NOT_A_DAG) from None
                raise
            if not _acyclic(graph, self.variables, all_parents):
                raise StructureError(_NOT_A_DAG)
            nodes = graph.nodes
            for v, ps in zip(self.variables, all_parents):
                nodes[v]["parents"] = ps
            for shape, group in by_shape.items():
                _check_cpts(nodes, group, shape)
        self.dtypes = dict(dtypes or {})
        self.n_rows = n_rows
        self.settings = dict(settings or {})
        self.counts = counts
        self.learner = learner

    @classmethod
    def from_stacked(
        cls,
        stacked: StackedTree,
        *,
        dtypes: Mapping[Hashable, Any] | None = None,
        n_rows: int | float | None = None,
        settings: Mapping[str, Any] | None = None,
        counts: PairCounts | None = None,
        learner: Callable[[CountedTable], TreeModel] | None = None,
        built: bool = False,
    ) -> TreeModel:
        """A model of a forest held as stacked CPTs (:class:`StackedTree`): the model
        ``TreeModel(stacked.graph(), variables=stacked.variables, ...)`` gives, every
        attribute and method answering the same, with the networkx graph built only when
        :attr:`graph` is first read (a 20,000-node graph and its checks were most of a
        sparse Chow-Liu fit after the counting).

        Each stack is checked as the constructor checks a CPT (shape, non-negative, rows
        summing to 1), naming the first bad variable. ``built=True`` (the trees
        :func:`~treelearn.chow_liu` builds itself, dense or sparse) skips what their
        construction guarantees: distinct names (checked with the
        input), one forest (a breadth-first search's parents), the groups and shapes (made
        from the states and parents); the CPTs' values are checked still, and ``dtypes``
        is the learner's own dict, not copied (at 5,001 columns the checks skipped were
        ~0.7 ms of a 1 ms product's fit).

        >>> import numpy as np
        >>> s = StackedTree(["a", "b"], [[0, 1], [0, 1]], np.array([-1, 0]), np.array([1]),
        ...                 None, np.array([0, 1]),
        ...                 [np.array([[0.5, 0.5]]), np.array([[[0.9, 0.1], [0.2, 0.8]]])],
        ...                 {"roots": ["a"]})
        >>> m = TreeModel.from_stacked(s)
        >>> m.parent_map, m.cpt("b").tolist(), list(m.graph.edges)
        ({'a': [], 'b': ['a']}, [[0.9, 0.1], [0.2, 0.8]], [('a', 'b')])
        """
        if not built:
            _check_stacked_structure(stacked)
            size = stacked.sizes
        checked = []
        for g, table in enumerate(stacked.tables):
            members = stacked.members(g)
            first = members[0] if len(members) else 0
            if not built:
                _check_stacked_shape(stacked, size, members, table)
            try:
                with np.errstate(all="ignore"):
                    checked.append(check_cpt(stacked.variables[first], table, table.shape))
            except StructureError:
                for i in members.tolist():  # raises, naming the first bad variable
                    check_cpt(stacked.variables[i], table[stacked.slot[i]], table.shape[1:])
                raise
        stacked.tables = checked
        self = cls.__new__(cls)
        self._stacked = stacked
        self._graph = None
        self._token = object()
        self.variables = list(stacked.variables)
        self.dtypes = dtypes if built and isinstance(dtypes, dict) else dict(dtypes or {})
        self.n_rows = n_rows
        self.settings = dict(settings or {})
        self.counts = counts
        self.learner = learner
        return self

    @property
    def graph(self) -> nx.DiGraph:
        """The network: a ``networkx.DiGraph`` whose nodes carry ``states``, ``cpt`` and
        ``parents`` (edges their ``weight``, MI in nats, when learned). A model built from
        stacked CPTs (:meth:`from_stacked`) builds it here, once; from then on it is the
        model's graph, as a constructed model's is."""
        graph = self.__dict__.get("_graph")
        if graph is None:
            stacked = self._stacked
            assert stacked is not None  # a model has one or the other
            graph = self._graph = stacked.graph()
            self._stacked = None
        return graph

    @graph.setter
    def graph(self, graph: nx.DiGraph) -> None:
        self._graph = graph
        self._stacked = None
        self._token = object()  # the caches below were built for another graph

    def __setstate__(self, state: dict) -> None:
        # a model pickled before the graph became a property kept it as "graph"
        if "graph" in state:
            state = dict(state)
            state["_graph"] = state.pop("graph")
            state.setdefault("_stacked", None)
            state["_token"] = object()
        self.__dict__.update(state)

    def _position(self, variable: Hashable) -> int:
        """``variable``'s index in a stacked model, or a ColumnNotFoundError naming it."""
        assert self._stacked is not None  # (called only while the model is stacked)
        try:
            return self._stacked.index[variable]
        except (KeyError, TypeError):
            raise ColumnNotFoundError(
                f"{variable!r} is not a variable of the model; the variables are {self.variables}"
            ) from None

    def _has(self, variable: Hashable) -> bool:
        stacked = self.__dict__.get("_stacked")
        if stacked is None:
            return variable in self.graph
        try:
            return variable in stacked.index
        except TypeError:
            return False

    # ------------------------------------------------------------------ structure
    @property
    def roots(self) -> list:
        """The roots: nodes without parents, in variable order (learned roots first)."""
        stacked = self.__dict__.get("_stacked")
        if stacked is not None:
            return stacked.roots()
        learned = [r for r in self.graph.graph.get("roots", []) if r in self.graph]
        rest = [v for v in self.variables if not self.parents(v) and v not in learned]
        return learned + rest

    @property
    def root(self) -> Hashable:
        """The root of the (first) tree."""
        return self.roots[0]

    @property
    def states(self) -> dict:
        """``{variable: [state labels]}``."""
        stacked = self.__dict__.get("_stacked")
        if stacked is not None:
            return {v: list(s) for v, s in zip(self.variables, stacked.states)}
        return {v: list(self.graph.nodes[v]["states"]) for v in self.variables}

    def parents(self, variable: Hashable) -> list:
        """Parents of ``variable``, in the order of its CPT's axes."""
        stacked = self.__dict__.get("_stacked")
        if stacked is not None:
            return stacked.parents(self._position(variable))
        return list(self._node(variable)["parents"])

    def cpt(self, variable: Hashable) -> np.ndarray:
        """CPT of ``variable``, indexed ``[parent states..., own state]``."""
        stacked = self.__dict__.get("_stacked")
        if stacked is not None:
            return stacked.cpt(self._position(variable))
        return self._node(variable)["cpt"]

    def _node(self, variable: Hashable) -> dict:
        """``variable``'s node attributes, or a ColumnNotFoundError naming it. A stacked
        model (no graph built yet) only checks the name and returns ``{}``: every caller
        that reads the attributes (:meth:`parents`, :meth:`cpt`) reads the stacks first."""
        if self.__dict__.get("_stacked") is not None:
            self._position(variable)
            return {}
        if variable not in self.graph:
            raise ColumnNotFoundError(
                f"{variable!r} is not a variable of the model; the variables are {self.variables}"
            )
        return self.graph.nodes[variable]

    @property
    def n_parameters(self) -> int:
        """Free parameters: sum over nodes of ``(k - 1) x (parent configurations)``."""
        stacked = self.__dict__.get("_stacked")
        if stacked is not None:
            return stacked.n_parameters()
        return int(sum((c.shape[-1] - 1) * int(np.prod(c.shape[:-1])) for c in self.cpts.values()))

    @property
    def cpts(self) -> dict:
        """``{variable: CPT}`` in variable order (each as :meth:`cpt` gives it).

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}), root="a", alpha=0)
        >>> {v: c.tolist() for v, c in m.cpts.items()}
        {'a': [0.5, 0.5], 'b': [[1.0, 0.0], [0.5, 0.5]]}
        """
        stacked = self.__dict__.get("_stacked")
        if stacked is not None:
            tables, group, slot = stacked.tables, stacked.group.tolist(), stacked.slot.tolist()
            return {v: tables[g][k] for v, g, k in zip(self.variables, group, slot)}
        return {v: self.graph.nodes[v]["cpt"] for v in self.variables}

    @property
    def parent_map(self) -> dict:
        """``{variable: [parents in CPT axis order]}`` in variable order.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}), root="a").parent_map
        {'a': [], 'b': ['a']}
        """
        stacked = self.__dict__.get("_stacked")
        if stacked is not None:
            names = self.variables
            return {v: [names[p]] if p >= 0 else [] for v, p in zip(names, stacked.parent.tolist())}
        return {v: self.parents(v) for v in self.variables}

    # ------------------------------------------------------------------ data
    def encode(self, data: pd.DataFrame, unseen: Literal["error", "ignore"] = "error") -> Table:
        """Encode ``data`` against the model's states (missing values allowed, extra columns ignored)."""
        check_frame(data, action="score or predict")
        absent = [v for v in self.variables if v not in data.columns]
        if absent:
            raise ColumnNotFoundError(
                f"the data lacks the model's variable(s) {absent}; its columns are "
                f"{list(data.columns)}"
            )
        return encode(
            data[self.variables],
            missing="pairwise",
            states=self.states,
            max_states=np.iinfo(np.int64).max,
            unseen=unseen,
        )

    def score_samples(self, X: pd.DataFrame) -> np.ndarray:
        """Log-likelihood of each row of ``X`` in nats.

        Missing values are summed out exactly (the row's score is the log
        probability of its observed values). A row that the model gives
        probability zero (possible under maximum likelihood) scores ``-inf``.
        Columns that are not model variables are ignored. The total is
        :meth:`~treelearn.Model.log_likelihood`; with ``sample_weight`` it is the
        weighted sum (a row of weight zero does not count, even if impossible).

        >>> import pandas as pd, treelearn as tl
        >>> df = pd.DataFrame({"a": [0, 0, 1], "b": [0, 1, 1]})
        >>> m = tl.chow_liu(df)
        >>> m.log_likelihood(df, sample_weight=[2, 1, 1]) == m.log_likelihood(df.iloc[[0, 0, 1, 2]])
        True
        """
        try:
            codes = self.encode(X).codes
        except UnseenStateError as error:  # scoring has no unseen= option to point to
            raise error.with_hint(
                "Fix the data, or set them to missing (NaN) to have them summed out."
            ) from None
        return self.log_likelihood_codes(codes)

    def log_likelihood_codes(self, codes: np.ndarray) -> np.ndarray:
        """Log-likelihood of each row of encoded data (``codes[r, j]`` = state index of
        ``variables[j]``, ``-1`` = missing, summed out), as :meth:`encode` gives them.

        >>> import pandas as pd, treelearn as tl
        >>> df = pd.DataFrame({"a": [0, 0, 1], "b": [0, 1, 1]})
        >>> m = tl.chow_liu(df)
        >>> bool((m.log_likelihood_codes(m.encode(df).codes) == m.log_likelihood(df, per_row=True)).all())
        True
        """
        complete = (codes >= 0).all(axis=1)
        if complete.all():  # no copy of the rows: a mixture's E-step scores them k times
            return self.complete_log_likelihood(codes)
        out = np.empty(codes.shape[0])
        out[complete] = self.complete_log_likelihood(codes[complete])
        out[~complete] = self.engine().log_evidence(codes[~complete])  # missing: summed out
        return out

    def complete_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """``log p(x)`` of each row of integer state codes with no missing cell (rows x
        :attr:`variables`), one gather over the log-CPTs (the CLG tree scores its discrete
        part with it)."""
        flat, columns, strides, offsets = self._log_cpt_index()
        if flat.size < 2**31:  # 32-bit indices: half the memory traffic, the same entries
            strides, offsets = strides.astype(np.int32), offsets.astype(np.int32)
        # every node's family as one flat index into the concatenated log-CPTs, one gather
        # for all nodes, laid out variables x rows: the index adds whole contiguous rows of
        # the transposed codes (in their own small dtype, promoted by the intp strides), and
        # the reduction over axis 0 adds the nodes' terms in the nodes' order, row by row —
        # the doubles of one gather per node, at 0.6x the time of a rows x variables layout
        by_column = np.ascontiguousarray(np.asarray(codes).T)
        index = offsets[:, None] + strides[:, :1] * by_column[columns[:, 0]]
        for f in range(1, columns.shape[1]):
            index += strides[:, f : f + 1] * by_column[columns[:, f]]
        return np.add.reduce(flat[index], axis=0)

    def log_cpt_index(self) -> tuple:
        """``(flat, columns, strides, offsets)``: every log-CPT raveled into one array and,
        per node (in :attr:`variables` order), its family's columns, their strides (padded
        at stride 0) and its CPT's offset in ``flat``: row ``r``'s log-probability is
        ``flat[offsets + (strides * codes[r, columns]).sum(1)].sum()`` (the classifiers'
        every-class gather reads it). Built once per graph.

        >>> import pandas as pd, treelearn as tl
        >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}), root="a")
        >>> flat, columns, strides, offsets = m.log_cpt_index()
        >>> flat.size, columns.tolist(), strides.tolist(), offsets.tolist()
        (6, [[0, 0], [0, 1]], [[1, 0], [2, 1]], [0, 2])
        """
        return self._log_cpt_index()

    def _log_cpt_index(self) -> tuple:
        """``(flat, columns, strides, offsets)``: every log-CPT raveled into one array and,
        per node, its family's columns and strides (padded at stride 0) and its CPT's
        offset in ``flat``. Built once per graph (as the engine)."""
        cache = self.__dict__.get("_log_cpts")
        if cache is not None and cache[0] is self._token:
            return cache[1]
        stacked = self.__dict__.get("_stacked")
        if stacked is not None:
            self._log_cpts = (self._token, stacked.log_cpt_index())
            return self._log_cpts[1]
        column = {v: j for j, v in enumerate(self.variables)}
        width = 1 + max((len(self.parents(v)) for v in self.variables), default=0)
        d = len(self.variables)
        columns = np.zeros((d, width), dtype=np.intp)
        strides = np.zeros((d, width), dtype=np.intp)
        offsets = np.zeros(d, dtype=np.intp)
        parts, offset = [], 0
        with np.errstate(divide="ignore"):
            for i, v in enumerate(self.variables):
                cpt = np.ascontiguousarray(self.cpt(v))
                family = [column[p] for p in self.parents(v)] + [column[v]]
                columns[i, : len(family)] = family
                strides[i, : len(family)] = np.array(cpt.strides, dtype=np.intp) // cpt.itemsize
                offsets[i] = offset
                parts.append(np.log(cpt).ravel())
                offset += cpt.size
        found = (np.concatenate(parts) if parts else np.zeros(0), columns, strides, offsets)
        self._log_cpts = (self._token, found)
        return found

    # ------------------------------------------------------------------ learning
    def partial_fit(
        self, data: Any, chunksize: int = 200_000, sample_weight: Any = None
    ) -> TreeModel:
        """Add the rows of ``data`` to the counts and re-learn tree and CPTs in place; returns self.

        ``data``: a DataFrame (extra columns ignored), a Dask DataFrame, or a
        CSV/Parquet path (read ``chunksize`` rows at a time) with exactly the
        model's variables as columns; ``sample_weight`` weights its rows (as in
        :func:`treelearn.chow_liu`). Works on models learned by
        :func:`treelearn.chow_liu`, with the settings they were learned with.
        The states are fixed: a value outside them raises
        :class:`UnseenStateError` naming the column and value (give every state
        up front with ``chow_liu(..., states=...)``). Feeding a table in pieces
        gives the model learned on the whole table.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> df = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]})
        >>> m = tl.chow_liu(df.iloc[:2], states={"a": [0, 1], "b": [0, 1]})
        >>> m.partial_fit(df.iloc[2:]) == tl.chow_liu(df)
        True
        """
        if self.counts is None or self.learner is None:
            raise TreelearnError(
                "partial_fit needs a model learned by tl.chow_liu, which keeps its pair counts; "
                "this model has none (was it built by hand, loaded, learned another way, or "
                "from a table with a column of over 1,000 states, whose pair counts are not "
                "kept? Learn it again on all the rows)"
            )
        from ..sources._count import count
        from ..sources._files import NO_STATE_CAP
        from ..stats._counts import CountedTable

        states = self.states
        try:
            new = count(
                data,
                missing=self.settings.get("missing", "error"),
                states=states,
                max_states=NO_STATE_CAP,
                chunksize=chunksize,
                sample_weight=sample_weight,
                variables=self.variables,
            )
        except UnseenStateError as error:
            raise error.with_hint(
                "A fitted model's states are fixed: learn it with chow_liu(..., states=...) "
                "listing every value the later rows can take.",
                where=error.where or "partial_fit: ",
            ) from None
        dtypes = tuple(self.dtypes.get(v) for v in self.variables) if self.dtypes else ()
        total = CountedTable(
            tuple(self.variables),
            tuple(tuple(states[v]) for v in self.variables),
            dtypes,
            pairs=self.counts + new.counts,
        )
        fresh = self.learner(total)
        self.graph, self.variables, self.n_rows = fresh.graph, fresh.variables, fresh.n_rows
        self.counts = fresh.counts
        return self

    # ------------------------------------------------------------------ sampling
    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
    ) -> pd.DataFrame:
        """Draw ``n`` rows, with the original labels and dtypes: forward sampling, or
        exactly from ``P(. | evidence)`` (collect the evidence to the roots, then
        sample down the tree; evidence columns hold the given values; a variable given a
        likelihood, as in :meth:`query`, is drawn from its posterior).

        With ``numbers=True`` a variable whose states are bins (learned on
        :func:`~treelearn.discretize` or :class:`~treelearn.Discretizer` output, or
        with the command line's ``--discretize``) comes back as numbers (dates) drawn
        uniformly within each row's bin; the open end bins get the width of their
        inner neighbour.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> m = tl.chow_liu(pd.DataFrame({"a": [1, 2, 2], "b": [True, False, False]}), alpha=0)
        >>> s = m.sample(5, random_state=0)
        >>> s.dtypes.tolist() == [m.dtypes["a"], m.dtypes["b"]]
        True
        >>> m.sample(3, evidence={"b": True}, random_state=0)["a"].tolist()
        [1, 1, 1]
        """
        n = check_param("n", n, [Interval(Integral, 0, None)], note="the number of rows to draw")
        check_memory(
            n * max(len(self.variables), 1) * 16,  # codes + decoded columns
            f"sampling n={n} rows of {len(self.variables)} variables",
            "sample fewer rows at a time (e.g. in a loop of 1,000,000)",
        )
        random_state = check_param("random_state", random_state, RANDOM_STATE)
        check_param("evidence", evidence, _EVIDENCE)
        check_param("numbers", numbers, [BOOLEAN])
        engine = self.engine()
        rng = np.random.default_rng(random_state)
        fixed, soft = engine.evidence_of(evidence)
        codes = engine.sample_codes(n, rng, fixed, soft)
        if len(codes) < n:
            raise engine.impossible(dict(evidence or {}))
        out = decode_codes(codes, self.variables, self.states, self.dtypes)
        if numbers:
            out = binned_numbers(out, codes, self.variables, self.states, rng)
        return out

    # ------------------------------------------------------------------ inference
    def engine(self, conditioner: Hashable | None = None) -> TreeEngine:
        """The model's inference engine: every query, score and posterior of the model, its
        classifiers, EM and mixtures goes through it. Built once per graph and
        ``conditioner`` and kept on the model (a new graph, e.g. after
        :meth:`partial_fit`, gets new ones).

        ``conditioner`` (a classifier's class) makes that node's states the batch axis
        of the engine's ``log_evidence_by_conditioner``; by default the engine chooses (see :attr:`inference_path`).

        >>> import pandas as pd, treelearn as tl
        >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}))
        >>> m.engine() is m.engine(), m.engine("a").path
        (True, "message passing given 'a'")
        """
        cache = self.__dict__.get("_engines")
        if cache is None or cache[0] is not self._token:
            # (the graph they were built for, {conditioner: engine})
            self._engines: tuple[Any, dict[Hashable | None, TreeEngine]] = (self._token, {})
            cache = self._engines
        engine = cache[1].get(conditioner)
        if engine is None:
            engine = cache[1][conditioner] = TreeEngine(
                self.variables, self.parent_map, self.cpts, self.states, conditioner=conditioner
            )
        return engine

    @property
    def inference_path(self) -> str:
        """How queries are answered: ``"message passing"`` (a tree, forest or polytree),
        ``"message passing given <node>"`` (a forest once that node, e.g. TAN's class,
        is taken out: the messages carry one slice per state of it) or ``"variable
        elimination"`` (any other DAG, one elimination per pattern of observed variables).

        >>> import pandas as pd, treelearn as tl
        >>> tl.chow_liu(pd.DataFrame({"a": [0, 1], "b": [0, 1]})).inference_path
        'message passing'
        """
        return self.engine().path

    def query(
        self,
        variables: Sequence[Hashable] | Hashable,
        evidence: Mapping[Hashable, Any] | None = None,
        joint: bool = True,
    ) -> pd.Series | dict:
        """Exact posterior ``P(variables | evidence)``: message passing on the smallest
        subtree joining the query and the evidence (a tree, forest, polytree or TAN), else
        variable elimination (:attr:`inference_path` says which).

        Returns a ``pd.Series`` of probabilities indexed by the variables' states
        (a ``MultiIndex`` for several variables), or with ``joint=False`` a dict of
        one marginal Series per variable.

        ``evidence`` gives each observed variable a state, or a **likelihood** (soft or
        virtual evidence, as pgmpy's ``virtual_evidence`` and pyAgrum's soft evidence):
        a list, array or Series of one non-negative weight per state (in state order),
        or a dict ``{state: weight}`` (states left out weigh 0). The posterior is then
        ``P(x) prod_v L_v(x_v)``, normalised; a queried variable may have one too. The
        same evidence is taken by :meth:`marginals`, :meth:`map_query` and :meth:`sample`.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}))
        >>> m.query("b", evidence={"a": 1}).to_dict()
        {0: 0.5, 1: 0.5}
        >>> # P(a) = 1/2 each, so P(a | L) = (1/4, 3/4); P(b=0 | a) = 3/4, 1/2 (alpha = 1)
        >>> m.query("b", evidence={"a": [0.25, 0.75]}).round(4).to_dict()
        {0: 0.5625, 1: 0.4375}
        """
        if type(variables) is not list and (  # a list: the common case, no ABC check
            isinstance(variables, (str, int))
            or not isinstance(variables, Sequence)
            or (isinstance(variables, tuple) and self._has(variables))
        ):  # a tuple name
            variables = [variables]
        variables = list(variables)
        evidence = dict(evidence or {})
        for v in [*variables, *evidence]:
            if not self._has(v):
                self._node(v)  # raises, naming the variable
        clash = [v for v in variables if v in evidence and not is_likelihood(evidence[v])]
        if clash:
            raise TreelearnError(f"{clash} are both queried and given as evidence")
        if len(set(variables)) != len(variables) or not variables:
            raise TreelearnError(f"query variables must be distinct and non-empty, got {variables}")
        if not joint:
            return {v: self.query([v], evidence) for v in variables}
        engine = self.engine()
        table = engine.query(variables, evidence)
        index = (
            engine.state_labels(variables[0])
            if len(variables) == 1
            else pd.MultiIndex.from_product([self.states[v] for v in variables], names=variables)
        )
        return pd.Series(table.ravel(), index=index, name="probability")

    def marginals(
        self, evidence: Mapping[Hashable, Any] | pd.DataFrame | None = None, as_frame: bool = False
    ) -> dict | pd.DataFrame:
        """``{variable: P(variable | evidence)}`` for every variable not given a state in
        ``evidence`` (states or likelihoods, as in :meth:`query`), all in one two-pass
        sweep (each a Series over the variable's states).

        With a DataFrame of evidence rows (each row's observed values; missing values,
        absent columns and columns that are not model variables: unobserved, as in
        :meth:`predict_proba`), or with ``as_frame=True``, the answer is one DataFrame:
        a row per evidence row, a column per ``(variable, state)`` of every variable (an
        observed one gets its one-hot row). No Series is built per variable: on a tree
        of many variables this is the fast form, for one evidence set or many.

        Raises a :class:`TreelearnError` naming the value when the evidence has
        probability zero (with a frame: naming the first such row).

        >>> import pandas as pd, treelearn as tl
        >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}))
        >>> m.marginals({"a": 1})["b"].tolist()
        [0.5, 0.5]
        >>> # P(b = 0 | a) = 3/4, 1/2 (alpha = 1), so P(b = 0) = (3/4 + 1/2) / 2 = 0.625
        >>> f = m.marginals(pd.DataFrame({"a": [1, None]}))
        >>> f.columns.tolist()
        [('a', 0), ('a', 1), ('b', 0), ('b', 1)]
        >>> f["b"].to_numpy().round(12).tolist()
        [[0.5, 0.5], [0.625, 0.375]]
        """
        as_frame = check_param("as_frame", as_frame, [InstanceOf(bool)])
        engine = self.engine()
        if isinstance(evidence, pd.DataFrame):
            codes, present = self._row_codes(evidence)
            return self._marginals_frame(engine, codes, evidence.index, None, evidence, present)
        self._check_evidence(evidence)
        if not as_frame:
            return engine.marginals(evidence)
        fixed, soft = engine.evidence_of(evidence)
        codes = np.full((1, len(self.variables)), -1, dtype=np.int64)
        codes[0, list(fixed)] = list(fixed.values())
        return self._marginals_frame(engine, codes, pd.RangeIndex(1), soft, evidence, None)

    def _marginals_frame(
        self,
        engine: TreeEngine,
        codes: np.ndarray,
        index: pd.Index,
        soft: Mapping[int, np.ndarray] | None,
        evidence: Any,
        present: Mapping[Hashable, pd.Series] | None,
    ) -> pd.DataFrame:
        """:meth:`marginals` as one DataFrame (see there) from rows of codes."""
        values = engine.marginals_matrix(codes, soft)
        bad = ~np.isfinite(values).all(axis=1)
        if bad.any():
            if present is None:
                raise engine.impossible(dict(evidence or {}))
            raise _zero_rows(bad, index, present)
        return pd.DataFrame(values, index=index, columns=engine.state_columns(), copy=False)

    def map_query(
        self,
        evidence: Mapping[Hashable, Any] | pd.DataFrame | None = None,
        return_log_prob: bool = False,
    ) -> dict | tuple[dict, float] | pd.DataFrame | tuple[pd.DataFrame, np.ndarray]:
        """The most probable assignment ``{variable: state}`` of every variable not given a
        state in ``evidence`` (max-product message passing, linear in the number of
        variables), and with ``return_log_prob`` also ``log P(assignment, evidence)``
        (a likelihood ``L`` of :meth:`query`'s evidence counts as ``P(evidence | v) = L(v)``).
        Ties go to the first state in state order.

        With a DataFrame of evidence rows (as :meth:`marginals` takes them), every row's
        most probable completion: a DataFrame of every variable in the model's labels
        and dtypes (observed values kept), index as ``evidence``'s; ``return_log_prob``
        adds the array of their log-probabilities. A row of probability zero raises.

        >>> import pandas as pd, treelearn as tl
        >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1, 1, 1], "b": [0, 0, 1, 1, 1, 0]}), alpha=0)
        >>> m.map_query()   # P(a=1, b=1) = 3/6
        {'a': 1, 'b': 1}
        >>> a, log_p = m.map_query({"b": 0}, return_log_prob=True)   # P(a=0, b=0) = 2/6
        >>> a, round(log_p, 6)
        ({'a': 0}, -1.098612)
        >>> m.map_query(pd.DataFrame({"b": [0, None]}))["a"].tolist()
        [0, 1]
        """
        if isinstance(evidence, pd.DataFrame):
            codes, present = self._row_codes(evidence)
            best, log_p = self.engine().map_codes(codes)
            bad = ~np.isfinite(log_p)
            if bad.any():
                raise _zero_rows(bad, evidence.index, present)
            frame = decode_codes(best, self.variables, self.states, self.dtypes)
            frame.index = evidence.index
            return (frame, log_p) if return_log_prob else frame
        self._check_evidence(evidence)
        assignment, log_p = self.engine().map_query(evidence)
        return (assignment, log_p) if return_log_prob else assignment

    def _check_evidence(self, evidence: Mapping[Hashable, Any] | None) -> None:
        check_param("evidence", evidence, _EVIDENCE)
        for v in evidence or {}:
            self._node(v)

    def cpt_frame(self, variable: Hashable) -> pd.DataFrame:
        """The CPT of ``variable`` as a labelled table: one row per parent state
        combination (a MultiIndex for several parents, a single row ``P`` for a root),
        one column per own state.

        >>> import pandas as pd, treelearn as tl
        >>> m = tl.chow_liu(pd.DataFrame({"a": ["x", "x", "y", "y"], "b": [0, 0, 1, 0]}), root="a",
        ...                 alpha=0)
        >>> m.cpt_frame("b").to_dict("index")   # rows: states of the parent a; columns: of b
        {'x': {0: 1.0, 1: 0.0}, 'y': {0: 0.5, 1: 0.5}}
        """
        cpt, ps = self.cpt(variable), self.parents(variable)
        columns = pd.Index(self.states[variable], name=variable, tupleize_cols=False)
        if not ps:
            return pd.DataFrame(cpt[None], index=pd.Index(["P"]), columns=columns)
        if len(ps) == 1:
            index = pd.Index(self.states[ps[0]], name=ps[0], tupleize_cols=False)
        else:
            index = pd.MultiIndex.from_product([self.states[p] for p in ps], names=ps)
        return pd.DataFrame(cpt.reshape(-1, cpt.shape[-1]), index=index, columns=columns)

    # ------------------------------------------------------------------ scores and posteriors
    def score_report(self, data: pd.DataFrame) -> ScoreReport:
        """How well the model explains ``data``: rows, log-likelihood, its average, BIC.

        The log-likelihood is :meth:`log_likelihood` (missing values summed out,
        extra columns ignored); the BIC penalty uses :attr:`n_parameters` and the
        rows of ``data``.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> df = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]})
        >>> report = tl.chow_liu(df, alpha=0).score_report(df)
        >>> report.n, report.n_parameters
        (4, 3)
        >>> round(report.log_likelihood, 4)   # 4 ln(1/2) + 2 ln(1/2): a, then b given a = 1
        -4.1589
        >>> round(report.average, 4), round(report.bic, 4)   # -4.1589 - (3/2) ln 4
        (-1.0397, -6.2383)
        """
        return ScoreReport(
            n=len(data),
            log_likelihood=float(self.log_likelihood(data)),
            n_parameters=self.n_parameters,
        )

    def predict_proba(
        self, data: pd.DataFrame, target: Hashable, unseen: Literal["error", "ignore"] = "error"
    ) -> pd.DataFrame:
        """``P(target | the row's other values)`` for every row of ``data``, exactly.

        Each row's observed values are the evidence; missing values and columns of
        the model that ``data`` lacks are unobserved (summed out), and the row's own
        value of ``target``, if any, is ignored. Columns that are not model
        variables are ignored. Returns a DataFrame with ``data``'s index and one
        column per state of ``target`` (in the model's state order); each row sums
        to 1. It equals ``query([target], evidence=row)`` row by row, computed for
        all rows at once (rows x states arrays) by the engine: message passing, or
        variable elimination for other DAGs (:attr:`inference_path`). A value
        outside its column's states raises (``unseen="error"``) or is treated as
        missing (``unseen="ignore"``).

        Raises
        ------
        ColumnNotFoundError : ``target`` is not a variable of the model.
        UnseenStateError : a value is not one of its column's states.
        TreelearnError : a row has probability zero under the model for every
            state of ``target`` (possible under maximum likelihood, ``alpha=0``);
            the message names the row.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> m = tl.chow_liu(pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "u", "v", "u"]}),
        ...                 alpha=0)
        >>> m.predict_proba(pd.DataFrame({"b": ["u", "v"]}), "a")   # P(a | b), one column per state
                  x         y
        0  0.666667  0.333333
        1  0.000000  1.000000
        >>> m.query("a", evidence={"b": "u"}).round(6).tolist()   # the same, one row at a time
        [0.666667, 0.333333]
        """
        self._node(target)  # a ColumnNotFoundError naming the variables
        codes, present = self._row_codes(data, unseen)
        proba = self.engine().posterior_codes(codes, self.variables.index(target))
        bad = ~np.isfinite(proba).all(axis=1)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            row = {v: data[v].iloc[r] for v in present if v != target and pd.notna(data[v].iloc[r])}
            raise TreelearnError(
                f"{int(bad.sum())} row(s) have probability zero under the model for every state "
                f"of {target!r}, e.g. row {data.index[r]!r} with {row} (a combination never seen "
                f"in training under alpha = 0): drop or fix those rows, or learn with alpha > 0",
                column=target,
            )
        return pd.DataFrame(proba, columns=self.states[target], index=data.index)

    def _row_codes(
        self, data: pd.DataFrame, unseen: Literal["error", "ignore"] = "error"
    ) -> tuple[np.ndarray, dict]:
        """``data``'s rows as codes of every variable (an absent column: unobserved in every
        row), and ``{variable: column}`` of the columns ``data`` has."""
        check_frame(data, action="score or predict")
        present = {v: data[v] for v in self.variables if v in data.columns}
        # an absent column is unobserved in every row
        frame = pd.DataFrame(
            {
                v: present.get(v, pd.Series(None, index=data.index, dtype=object))
                for v in self.variables
            },
            index=data.index,
        )
        return self.encode(frame, unseen=unseen).codes.astype(np.int64), present

    def explain(
        self,
        data: pd.DataFrame,
        target: Hashable,
        kind: str = "log_odds",
        conditional: bool = True,
        background: pd.DataFrame | None = None,
        output: str | None = None,
        target_state: Any = None,
        random_state: int | np.random.Generator | None = None,
        method: str = "auto",
        n_permutations: int = 256,
    ) -> Explanation:
        """Each other variable's contribution to the prediction of ``target`` for every row
        of ``data`` (:meth:`predict_proba`'s prediction).

        The value of a coalition ``S`` of the other variables is ``P(target | x_S)``:
        the others summed out by the engine (``conditional=True``), or taken from each
        row of ``background`` and averaged (``conditional=False``). ``target_state``: the
        state explained (default: each row's most probable one); ``output``:
        ``"log_proba"``, ``"proba"`` or ``"log_odds"`` (``log P(t | x_S) - mean_{t' != t}
        log P(t' | x_S)``, the logit for two states). ``kind="log_odds"``: the chain rule
        of the log posterior odds along a topological order of the network (variable
        ``j`` adds ``log P(x_j | x_before, t) - mean log P(x_j | x_before, t')``; for a
        root target and a complete row, the CPT terms of the families; a missing value
        adds 0). ``kind="shapley"``: Shapley values, exact by enumeration (up to 20
        variables on a tree given the target, 15 otherwise) or, for the conditional
        log-odds, exact per branch at the target (the branches are independent given
        it: the game adds up over them); beyond, permutation sampling with a
        ``standard_error`` (``n_permutations``, ``random_state``). As a classifier's
        ``explain`` (:meth:`treelearn.NaiveBayes.explain`).

        Examples
        --------
        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> m = tl.chow_liu(df)
        >>> e = m.explain(df.head(2), "either", kind="shapley", output="proba")
        >>> p = m.predict_proba(df.head(2), "either").to_numpy().max(axis=1)
        >>> bool(np.allclose(e.values.sum(axis=1) + e.base, p))   # efficiency
        True
        """
        from ..inference._shapley import EngineGame, check_explain_options, explain_game

        params = check_explain_options(
            kind=kind,
            conditional=conditional,
            output=output,
            method=method,
            n_permutations=n_permutations,
            random_state=random_state,
        )
        self._node(target)
        codes, present = self._row_codes(data)
        other = None if background is None else self._row_codes(background)[0]
        engine = self.engine(target)
        players = [j for j, v in enumerate(self.variables) if v != target]
        game = EngineGame(engine, codes, players, background=other)
        state = (
            None if target_state is None else state_index(self.states[target], target, target_state)
        )
        frame = pd.DataFrame(
            {
                self.variables[j]: present.get(
                    self.variables[j], pd.Series(None, index=data.index, dtype=object)
                )
                for j in players
            },
            index=data.index,
        )
        return explain_game(
            game, target=state, data=frame, index=data.index, target_name=target, **params
        )

    def predict(
        self, data: pd.DataFrame, target: Hashable, unseen: Literal["error", "ignore"] = "error"
    ) -> pd.Series:
        """The most probable state of ``target`` for every row of ``data`` given its other
        values (the argmax of :meth:`predict_proba`; ties go to the first state).

        >>> import pandas as pd, treelearn as tl
        >>> m = tl.chow_liu(pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "u", "v", "u"]}))
        >>> m.predict(pd.DataFrame({"b": ["u", "v", None]}), "a").tolist()
        ['x', 'y', 'x']
        """
        proba = self.predict_proba(data, target, unseen=unseen)
        labels = np.empty(proba.shape[1], dtype=object)
        labels[:] = list(proba.columns)
        values = pd.Series(
            labels[np.argmax(proba.to_numpy(), axis=1)], index=data.index, name=target
        )
        dtype = self.dtypes.get(target)
        if dtype is not None:
            # e.g. labels outside a categorical dtype: keep them as they are
            with contextlib.suppress(TypeError, ValueError):
                values = values.astype(dtype)
        return values

    # ------------------------------------------------------------------ information
    def entropy(self, evidence: Mapping[Hashable, Any] | None = None) -> float:
        """``H(X | evidence)`` in nats: the entropy of the model's posterior over the
        variables not given a state (``evidence`` as in :meth:`query`), exactly, as a sum
        over families (no joint table).

        >>> import pandas as pd, treelearn as tl
        >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}), alpha=0)
        >>> round(m.entropy(), 6), round(m.entropy({"a": 1}), 6)   # 1.5 ln 2; ln 2
        (1.039721, 0.693147)
        """
        self._check_evidence(evidence)
        from ..inference._information import entropy

        return entropy(self.engine(), evidence)

    def mutual_information(
        self, X: Any, Y: Any, given: Any = None, evidence: Mapping[Hashable, Any] | None = None
    ) -> float:
        """``I(X; Y | given, evidence)`` in nats, exactly under the model: ``X``, ``Y`` and
        ``given`` are variables or lists of them (``given`` summed over its states,
        ``evidence`` fixed, as in :meth:`query`).

        >>> import pandas as pd, treelearn as tl
        >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 1]}), alpha=0)
        >>> round(m.mutual_information("a", "b"), 6)   # b copies a: ln 2
        0.693147
        """
        self._check_evidence(evidence)
        from ..inference._information import mutual_information

        return mutual_information(self.engine(), X, Y, given, evidence)

    def most_informative(
        self,
        target: Hashable,
        evidence: Mapping[Hashable, Any] | None = None,
        candidates: Sequence[Hashable] | None = None,
    ) -> pd.Series:
        """Which question to ask next: the unobserved variables ranked by the expected
        reduction of ``target``'s entropy if they were observed, ``I(target; X |
        evidence)`` (nats, largest first), all from one pass of the engine.

        >>> import pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> tl.chow_liu(df).most_informative("lung", {"smoke": "yes"}).index[0]
        'either'
        """
        self._check_evidence(evidence)
        from ..inference._information import most_informative

        return most_informative(self.engine(), target, evidence, candidates)

    # ------------------------------------------------------------------ export
    def to_pgmpy(self) -> Any:
        """The model as a pgmpy ``DiscreteBayesianNetwork`` with ``TabularCPD`` s and state names."""
        return to_pgmpy(self)

    def to_bif(self, path: str | os.PathLike) -> None:
        """Write the model as a BIF file through pgmpy's writer (state labels become strings)."""
        write_bif(self, path)

    def to_xmlbif(self, path: str | os.PathLike, name: str = "treelearn") -> None:
        """Write the model as an XMLBIF file named ``name`` (:func:`treelearn.write_xmlbif`);
        read it back with :func:`treelearn.read_xmlbif`."""
        write_xmlbif(self, path, name)

    def to_uai(self, path: str | os.PathLike) -> None:
        """Write the model as a UAI ``BAYES`` file (numbers only: see
        :func:`treelearn.write_uai`); read it back with :func:`treelearn.read_uai`."""
        write_uai(self, path)

    def to_pyagrum(self) -> Any:
        """The model as a ``pyagrum.BayesNet`` (pyAgrum is optional, imported here); back
        with :func:`treelearn.from_pyagrum`."""
        return to_pyagrum(self)

    def to_dict(self) -> dict:
        """The model as JSON-able values: the ``"model"`` part of a saved file.

        Labels keep their types (a number stays a number, a date a date); :meth:`from_dict`
        rebuilds the model exactly.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> m = tl.chow_liu(pd.DataFrame({"a": [1, 2, 2], "b": [True, False, False]}))
        >>> d = m.to_dict()
        >>> d["nodes"][1]["states"], d["nodes"][1]["dtype"]
        ([False, True], 'bool')
        >>> tl.TreeModel.from_dict(d) == m
        True
        """
        return model_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TreeModel:
        """The model that :meth:`to_dict` describes, every part checked.

        Raises :class:`~treelearn.InvalidModelError` naming the variable and what is
        wrong (a CPT of the wrong shape, a row not summing to 1, unknown parents...).

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> d = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]})).to_dict()
        >>> d["nodes"][1]["cpt"][0] = [0.5, 0.4]
        >>> tl.TreeModel.from_dict(d)
        Traceback (most recent call last):
        ...
        treelearn.InvalidModelError: variable 'b': CPT row [0] sums to 0.9, not 1
        """
        arguments = model_arguments_from_dict(d)
        try:
            return cls(**arguments)
        except StructureError as exc:  # e.g. a cycle: the file is at fault, not the caller
            raise InvalidModelError(str(exc)) from None

    # ------------------------------------------------------------------ display
    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`): the
        network's forests (one, one per state of a conditioner, or one per joint state of
        a cutset), drawn as :meth:`draw` draws it."""
        from ..viz._page_spec import network_spec, title_of

        head = {
            "chow-liu": "Chow–Liu tree",
            "fit_cpts": "Bayesian network",
            "pgmpy": "Bayesian network",
        }.get(str(self.settings.get("method")), "tree model")
        n = len(self.variables)
        parts = [f"{n} variable{'' if n == 1 else 's'}"]
        return network_spec(
            self, title if title is not None else title_of(head, parts, self.n_rows)
        )

    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then the structure as an indented text tree with the MI (nats) on
        each edge (a node with several parents under its last, the others named)."""
        yield self._headline()
        shown_parent = {
            v: (self.parents(v)[-1] if self.parents(v) else None) for v in self.variables
        }
        states = self.states

        def label(v: Hashable, parent: Hashable | None) -> str:
            text = f"{v} ({states_text(len(states[v]))})"
            if parent is not None:
                weight = self.graph.edges[parent, v].get("weight")
                if weight is not None:
                    text += f"  [MI {weight:.{digits}f}]"
                extra = [p for p in self.parents(v) if p != parent]
                if extra:
                    text += f"  (also given {', '.join(map(str, extra))})"
            return text

        yield from tree_lines(self.roots, shown_parent, label)

    def _headline(self) -> str:
        kind = self.settings.get("method", "model")
        n_edges = self.graph.number_of_edges()
        rows = f", learned from {rows_text(self.n_rows)} rows" if self.n_rows is not None else ""
        n, roots = len(self.variables), self.roots
        where = f"root {roots[0]!r}" if len(roots) == 1 else f"roots {roots!r}"
        return (
            f"TreeModel ({kind}): {n} variable{'' if n == 1 else 's'}, "
            f"{n_edges} edge{'' if n_edges == 1 else 's'}, {where}{rows}"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TreeModel):
            return NotImplemented
        # the same distribution whatever the order of the variables or of a CPT's parent axes
        if set(self.variables) != set(other.variables) or self.states != other.states:
            return False
        for v in self.variables:
            mine, theirs = self.parents(v), other.parents(v)
            if set(mine) != set(theirs):
                return False
            axes = [theirs.index(p) for p in mine] + [len(mine)]
            if not np.array_equal(self.cpt(v), np.transpose(other.cpt(v), axes)):
                return False
        return True

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class ScoreReport:
    """A model's fit to a table: what ``treelearn score`` prints.

    Parameters
    ----------
    n : int or float
        Rows scored (their total weight, with weights).
    log_likelihood : float
        Total log-likelihood of the rows, in nats.
    n_parameters : int
        Free parameters of the model (the BIC penalty's count).
    summed_out : hashable, default=None
        A variable the data did not give in any row, summed out of every row's
        likelihood (a classifier's class when no labels were given); ``None`` when the
        rows' own values were scored.

    Notes
    -----
    ``average`` (nats per row) and ``bic`` (``log_likelihood - n_parameters / 2 ln n``)
    are derived from these; both are NaN for zero rows.

    See Also
    --------
    Model : ``log_likelihood``, ``bic`` and ``aic`` of any model.

    Examples
    --------
    ``bic = -4 - (2 / 2) ln 4 = -5.3863``:

    >>> r = ScoreReport(n=4, log_likelihood=-4.0, n_parameters=2)
    >>> r.average, round(r.bic, 4)
    (-1.0, -5.3863)
    """

    n: int | float
    log_likelihood: float
    n_parameters: int
    summed_out: Hashable | None = None

    @property
    def average(self) -> float:
        """Log-likelihood per row (nats)."""
        return self.log_likelihood / self.n if self.n > 0 else float("nan")

    @property
    def bic(self) -> float:
        """``log_likelihood - (n_parameters / 2) ln n`` (larger is better)."""
        if self.n <= 0:
            return float("nan")
        return float(self.log_likelihood - 0.5 * self.n_parameters * np.log(self.n))
