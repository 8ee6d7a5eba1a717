"""Conditional linear Gaussian (CLG) trees over mixed tables: :class:`CLGTreeModel`.

A CLG tree has discrete nodes (CPTs; a discrete node's parent is discrete) and
continuous nodes, each with at most one parent:

* no parent: ``X ~ N(intercept, variance)``;
* a discrete parent ``D``: one Gaussian per state, ``X | D = a ~ N(means[a], variances[a])``;
* a continuous parent ``P``: ``X | P = x ~ N(intercept + coefficient * x, variance)``.

The discrete nodes of each tree form a connected subtree holding the root, so every
continuous node belongs to a *Gaussian subtree* hanging from one discrete node (its
*attachment*; none for a tree of continuous columns only), and given that node's state the
subtree is a linear-Gaussian tree. Everything exact follows from that:

* upward, vectorised over rows, each continuous node sends its parent a message in
  canonical form ``exp(L - P x^2 / 2 + h x)`` (missing cells integrated out in closed
  form); a Gaussian subtree's root sends its attachment one log-density per state;
* those per-row, per-state densities are soft evidence on the discrete tree: the
  discrete engine's ``soft=`` (:class:`~treelearn.inference._engine.TreeEngine`) gives
  ``log p(row)`` and every discrete posterior;
* a continuous target's posterior is a mixture over its attachment's states of the
  Gaussians of the subtree conditioned on the row (a downward pass along the target's path).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
import pandas as pd

from .._base.errors import (
    ColumnNotFoundError,
    InvalidModelError,
    TreelearnError,
)
from .._base.jsonvalues import decode_label, encode_label
from .._base.limits import check_memory
from .._base.validation import RANDOM_STATE, Interval, check_param
from ..encoding._bins import binned_numbers
from ..inference._engine import decode_codes
from ..sources._kinds import numeric_matrix
from ._base import Model, rows_text, tree_lines
from ._tree import TreeModel, states_text

if TYPE_CHECKING:  # pragma: no cover
    pass

__all__ = ["CLGTreeModel", "GaussianMixtureQuery"]

_LOG_2PI = math.log(2 * math.pi)


@dataclass(frozen=True)
class GaussianMixtureQuery:
    """The posterior of a continuous variable: ``sum_a weights[a] N(means[a], variances[a])``
    (one component per state of the discrete node its Gaussian subtree hangs from; one
    component when there is none; a variance 0 when the variable is observed).

    Parameters
    ----------
    weights : numpy.ndarray
        The components' probabilities (they sum to 1).
    means, variances : numpy.ndarray
        Each component's mean and variance.
    variable : hashable, default=None
        The variable queried (its row's label in ``to_frame``).

    See Also
    --------
    CLGTreeModel : whose ``query`` returns it.
    GaussianQuery : a Gaussian tree's query.

    Examples
    --------
    With maximum-likelihood parameters (``alpha=0``) a CLG tree's mean of ``y`` is the
    sample mean (the mixture of ``x``'s class means is ``x``'s mean, and a least-squares
    line passes through the means):

    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 500)
    >>> df = pd.DataFrame({"g": g, "x": rng.normal(3.0 * g, 1.0)})
    >>> df["y"] = 2 * df["x"] + rng.normal(size=500)
    >>> q = tl.clg_tree(df, alpha=0).query("y")   # one component per state of g
    >>> q.weights.tolist() == df["g"].value_counts(normalize=True).sort_index().tolist()
    True
    >>> bool(np.isclose(q.mean, df["y"].mean()))
    True
    """

    weights: np.ndarray
    means: np.ndarray
    variances: np.ndarray
    #: the variable queried (its row's label in :meth:`to_frame`)
    variable: Hashable = None

    @property
    def mean(self) -> float:
        return float(self.weights @ self.means)

    @property
    def variance(self) -> float:
        """Law of total variance: the components' mean variance plus their means' spread."""
        spread = self.weights @ (self.means - self.mean) ** 2
        return float(max(self.weights @ self.variances + spread, 0.0))

    def pdf(self, x: Any) -> np.ndarray:
        """The density at ``x`` (an array of points)."""
        x = np.asarray(x, dtype=float)[..., None]
        keep = self.weights > 0
        w, m, v = self.weights[keep], self.means[keep], self.variances[keep]
        return (w * np.exp(-0.5 * (x - m) ** 2 / v) / np.sqrt(2 * np.pi * v)).sum(axis=-1)

    def to_frame(self) -> pd.DataFrame:
        """The mixture's mean, **variance** and standard deviation in one row, indexed by
        the variable (how every query result prints).

        >>> q = GaussianMixtureQuery(np.array([0.5, 0.5]), np.array([0.0, 2.0]),
        ...                          np.array([1.0, 1.0]), "x")
        >>> q.to_frame().reset_index().to_dict("records")  # 1 + the means' spread, 1
        [{'variable': 'x', 'mean': 1.0, 'variance': 2.0, 'sd': 1.4142135623730951}]
        """
        return pd.DataFrame(
            {"mean": [self.mean], "variance": [self.variance], "sd": [math.sqrt(self.variance)]},
            index=pd.Index([self.variable], name="variable"),
        )


def _number(v: Hashable, value: Any) -> float:
    """A continuous variable's evidence: a finite number (text spelling one is read)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number):
        raise TreelearnError(
            f"evidence {v!r} == {value!r:.60}: {v!r} is a Gaussian variable, its evidence a "
            f"finite number; leave it out of the evidence to have it unobserved",
            column=v,
            values=[value],
        )
    return number


def _check_number(v: Hashable, key: str, value: Any, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidModelError(f"variable {v!r}: {key} must be a finite number, not {value!r}")
    if positive and value <= 0:
        raise InvalidModelError(f"variable {v!r}: {key} must be > 0, not {value!r}")
    return float(value)


class CLGTreeModel(Model):
    """A conditional linear Gaussian tree (or forest) over discrete and continuous columns.

    Parameters
    ----------
    graph : networkx.DiGraph
        Over every variable (edge ``weight`` = the edge's mixed mutual
        information, nats). A continuous node carries ``means`` and ``variances`` (lists,
        one per state of its discrete parent), or ``intercept``, ``variance`` and
        ``coefficient`` (on its continuous parent; ``None`` without one).
    discrete : TreeModel or None
        The :class:`~treelearn.TreeModel` of the discrete nodes (its CPTs and
        states; ``None`` when every column is continuous).
    variables : sequence of hashable
        The columns' order (sampled data has its columns in it).
    continuous : sequence of hashable
        The continuous variables.
    dtypes : dict, default=None
        As :class:`~treelearn.TreeModel`'s.
    n_rows : int or float, default=None
        As :class:`~treelearn.TreeModel`'s.
    settings : dict, default=None
        As :class:`~treelearn.TreeModel`'s.

    Notes
    -----
    Learned by :class:`treelearn.CLGTree` (:func:`treelearn.clg_tree`) from a table with
    continuous columns.

    See Also
    --------
    clg_tree : learns one.
    GaussianMixtureQuery : what a query of a continuous variable returns.
    TreeModel : the discrete part.

    References
    ----------
    .. [1] Lauritzen, S. L. and Wermuth, N. (1989). Graphical models for associations
       between variables, some of which are qualitative and some quantitative. The
       Annals of Statistics 17(1), 31-57.

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
    >>> q = m.query("g", {"x": 3.2})
    >>> bool(q[1] > 0.9)
    True
    """

    kind = "clg_tree"
    capabilities = frozenset(
        {
            "score",
            "sample",
            "sample_given",
            "query",
            "predict",
            "draw",
            "explorer",
            "to_pgmpy",
            "pyagrum",
        }
    )

    def __init__(
        self,
        graph: nx.DiGraph,
        discrete: TreeModel | None,
        *,
        variables: Sequence[Hashable],
        continuous: Sequence[Hashable],
        dtypes: Mapping[Hashable, Any] | None = None,
        n_rows: float | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        self.variables = list(variables)
        self.continuous = [v for v in self.variables if v in set(continuous)]
        self.graph = graph.copy()
        self.discrete_model = discrete
        self.dtypes = dict(dtypes or {})
        self.n_rows = n_rows
        self.settings = dict(settings or {"method": "clg-chow-liu"})
        self._check()
        self._compile()

    def _discrete(self) -> TreeModel:
        """The discrete variables' network, asked about one of them (a model with a discrete
        variable has it: :meth:`_check`)."""
        assert self.discrete_model is not None
        return self.discrete_model

    # -------------------------------------------------------------- checks and layout
    def _check(self) -> None:
        G = self.graph
        if set(G.nodes) != set(self.variables) or len(G) != len(self.variables):
            raise InvalidModelError("the graph must hold every variable once")
        if not nx.is_directed_acyclic_graph(G):
            raise InvalidModelError("the graph of a CLG tree must be acyclic")
        cont = set(self.continuous)
        discrete = [v for v in self.variables if v not in cont]
        model_vars = [] if self.discrete_model is None else list(self.discrete_model.variables)
        if sorted(map(repr, discrete)) != sorted(map(repr, model_vars)):
            raise InvalidModelError(
                f"the discrete model's variables {model_vars} must be the "
                f"discrete variables {discrete}"
            )
        for v in self.variables:
            ps = list(G.predecessors(v))
            if len(ps) > 1:
                raise InvalidModelError(
                    f"variable {v!r} has {len(ps)} parents; a CLG tree allows at most one"
                )
            if v not in cont:
                if ps and ps[0] in cont:
                    raise InvalidModelError(
                        f"discrete variable {v!r} has the continuous parent {ps[0]!r}: a CLG "
                        "network never gives a discrete node a continuous parent"
                    )
                if list(self._discrete().parents(v)) != ps:
                    raise InvalidModelError(
                        f"variable {v!r}: its parents in the discrete model "
                        f"differ from the graph's {ps}"
                    )
                continue
            node = G.nodes[v]
            if ps and ps[0] not in cont:
                k = len(self._discrete().states[ps[0]])
                for key in ("means", "variances"):
                    values = node.get(key)
                    if not isinstance(values, (list, tuple, np.ndarray)) or len(values) != k:
                        raise InvalidModelError(
                            f"variable {v!r}: {key} must list one number per "
                            f"state of its parent {ps[0]!r} ({k})"
                        )
                node["means"] = [_check_number(v, "a mean", x) for x in node["means"]]
                node["variances"] = [
                    _check_number(v, "a variance", x, True) for x in node["variances"]
                ]
            else:
                node["intercept"] = _check_number(v, "intercept", node.get("intercept"))
                node["variance"] = _check_number(v, "variance", node.get("variance"), True)
                if ps:
                    node["coefficient"] = _check_number(v, "coefficient", node.get("coefficient"))
                elif node.get("coefficient") is not None:
                    raise InvalidModelError(f"variable {v!r}: a coefficient needs a parent")

    def _compile(self) -> None:
        """Index arrays of the continuous nodes (children before parents in ``_up_order``)."""
        cpos = {v: j for j, v in enumerate(self.continuous)}
        dvars = [] if self.discrete_model is None else list(self.discrete_model.variables)
        dpos = {v: i for i, v in enumerate(dvars)}
        self._cpos, self._dpos = cpos, dpos
        p = len(self.continuous)
        self._kind = np.zeros(p, dtype=np.int8)  # 0 root, 1 discrete parent, 2 continuous parent
        self._parent = np.full(p, -1)
        self._b0, self._b1, self._s2 = np.zeros(p), np.zeros(p), np.ones(p)
        self._state_means: dict[int, np.ndarray] = {}
        self._state_vars: dict[int, np.ndarray] = {}
        for v, j in cpos.items():
            ps = list(self.graph.predecessors(v))
            node = self.graph.nodes[v]
            if not ps:
                self._b0[j], self._s2[j] = node["intercept"], node["variance"]
            elif ps[0] in cpos:
                self._kind[j], self._parent[j] = 2, cpos[ps[0]]
                self._b0[j], self._b1[j], self._s2[j] = (
                    node["intercept"],
                    node["coefficient"],
                    node["variance"],
                )
            else:
                self._kind[j], self._parent[j] = 1, dpos[ps[0]]
                self._state_means[j] = np.asarray(node["means"], dtype=float)
                self._state_vars[j] = np.asarray(node["variances"], dtype=float)
        topo = [v for v in nx.topological_sort(self.graph) if v in cpos]
        self._down_order = [cpos[v] for v in topo]
        self._up_order = self._down_order[::-1]

    # -------------------------------------------------------------- structure
    @property
    def discrete(self) -> list:
        """The discrete variables."""
        cont = set(self.continuous)
        return [v for v in self.variables if v not in cont]

    @property
    def states(self) -> dict:
        """Each discrete variable's states."""
        return {} if self.discrete_model is None else self.discrete_model.states

    def parents(self, v: Hashable) -> list:
        return list(self.graph.predecessors(v))

    @property
    def roots(self) -> list:
        return [v for v in self.variables if self.graph.in_degree(v) == 0]

    @property
    def root(self) -> Hashable:
        return self.roots[0]

    @property
    def n_parameters(self) -> int:
        """The discrete CPTs' free parameters, plus a mean and a variance per Gaussian (one
        per state of a discrete parent) and a coefficient per continuous-continuous edge."""
        total = 0 if self.discrete_model is None else self.discrete_model.n_parameters
        for j in range(len(self.continuous)):
            total += (
                2 * len(self._state_means[j]) if self._kind[j] == 1 else 2 + (self._kind[j] == 2)
            )
        return int(total)

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`): the discrete forest, and
        each continuous variable's Gaussian (a regression on a continuous parent, or one
        Gaussian per state of a discrete one), whose subtree's density of the numbers given
        is a likelihood of the discrete variable it hangs from. A number's slider spans its
        prior's mean +- 4 sds (per state of that variable, a Gaussian propagated down the
        regressions, mixed by its marginal). No side panel and no MAP."""
        from ..viz._page_spec import (
            forest,
            hover_tables,
            label,
            mixture_range,
            parent_first,
            regressions,
            title_of,
        )

        variables, cont, dmodel = self.variables, set(self.continuous), self.discrete_model
        index = {v: i for i, v in enumerate(variables)}
        parent = {v: (self.parents(v) or [None])[0] for v in variables}
        order = parent_first(parent)
        gauss = regressions(self, index, parent, self.continuous)
        states = {v: [label(s) for s in self.states[v]] for v in self.discrete}
        marginals = dmodel.marginals() if dmodel is not None else {}
        per_state: dict = {}  # a continuous variable's prior per state of its attachment
        attach: dict = {}
        ranges = {}
        for v in order:
            if v not in cont:
                continue
            g, p = gauss[index[v]], parent[v]
            if p is None:
                per_state[v], attach[v] = (np.array([g["a"]]), np.array([g["s2"]])), None
            elif p not in cont:
                per_state[v], attach[v] = (np.array(g["means"]), np.array(g["vars"])), p
            else:
                m, s2 = per_state[p]
                per_state[v], attach[v] = (
                    (g["a"] + g["b"] * m, g["b"] ** 2 * s2 + g["s2"]),
                    attach[p],
                )
            weights = np.ones(1) if attach[v] is None else marginals[attach[v]]
            ranges[v] = mixture_range(weights, *per_state[v])
        edges = []
        for u, v, a in self.graph.edges(data=True):
            # discrete pairs: I(u; v) under the model; a continuous end: the learned weight
            # (the mixed mutual information of the data, as bnlearn's mi-cg)
            mi: float | None
            if dmodel is not None and u not in cont and v not in cont:
                mi = float(dmodel.mutual_information(u, v))
            else:
                mi = float(a["weight"]) if a.get("weight") is not None else None
            edges.append([index[u], index[v], "tree", 1.5, mi])
        tables = hover_tables(dmodel, states) if dmodel is not None else {}
        out_vars = []
        for v in variables:
            entry: dict = {"name": label(v), "states": states.get(v, []), "cls": False}
            if v in cont:
                entry["range"] = ranges[v]
            else:
                entry["cpt"] = tables[v]
            out_vars.append(entry)
        components = [{**forest(dmodel, index), "weight": 1.0}] if dmodel is not None else []
        parts = [f"{len(variables) - len(cont)} discrete, {len(cont)} continuous"]
        return {
            "title": title if title is not None else title_of("CLG tree", parts, self.n_rows),
            "variables": out_vars,
            "drawn": [index[parent[v]] if parent[v] is not None else -1 for v in variables],
            "edges": [edges],
            "order": [index[v] for v in order if v not in cont],
            "components": components,
            "gauss": gauss,
            "panel": False,
            "map": False,
        }

    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then the tree: a discrete variable with its states, a Gaussian one
        with its mean and **variance** given its parent (one per state of a discrete
        parent), the mixed MI (nats) on each edge."""
        n_edges = self.graph.number_of_edges()
        rows = f", learned from {rows_text(self.n_rows)} rows" if self.n_rows is not None else ""
        roots = self.roots
        where = f"root {roots[0]!r}" if len(roots) == 1 else f"roots {roots!r}"
        yield (
            f"CLGTreeModel: {len(self.discrete)} discrete and {len(self.continuous)} Gaussian "
            f"variables, {n_edges} edge{'' if n_edges == 1 else 's'}, {where}{rows}"
        )
        g = f".{digits}g"
        states = self.states

        def label(v: Hashable, parent: Hashable | None) -> str:
            node = self.graph.nodes[v]
            if v not in self._cpos:
                text = f"{v} ({states_text(len(states[v]))})"
            elif parent is not None and parent not in self._cpos:
                pairs = ", ".join(
                    f"{parent}={s}: N(mean {format(m, g)}, variance {format(s2, g)})"
                    for s, m, s2 in zip(states[parent], node["means"], node["variances"])
                )
                text = f"{v} ~ {pairs}"
            else:
                mean = format(node["intercept"], g)
                if parent is not None:
                    mean += f" + {format(node['coefficient'], g)} * {parent}"
                text = f"{v} ~ N(mean {mean}, variance {format(node['variance'], g)})"
            weight = self.graph.edges[parent, v].get("weight") if parent is not None else None
            return text + (f"  [MI {weight:.{digits}f}]" if weight is not None else "")

        parent_of = {v: (self.parents(v) or [None])[0] for v in self.variables}
        yield from tree_lines(roots, parent_of, label)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CLGTreeModel):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    # -------------------------------------------------------------- rows
    def _arrays(self, data: Any, small_codes: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """``(codes, values)``: the discrete columns' codes (``-1`` = missing; int64, or
        the encoder's own small integer type with ``small_codes``) and the continuous
        columns' floats (NaN = missing) of a DataFrame."""
        if not isinstance(data, pd.DataFrame):
            raise TreelearnError(
                f"a CLG tree scores a pandas DataFrame with its columns "
                f"{self.variables[:10]}, not a {type(data).__name__}"
            )
        absent = [v for v in self.variables if v not in data.columns]
        if absent:
            raise ColumnNotFoundError(
                f"the data lacks the model's column(s) {absent[:5]}", column=absent[0]
            )
        n = len(data)
        codes = (
            np.zeros((n, 0), dtype=np.int64)
            if self.discrete_model is None
            else self.discrete_model.encode(data).codes
        )
        if not small_codes:
            codes = codes.astype(np.int64)
        if not self.continuous:
            return codes, np.zeros((n, 0))
        _, values = numeric_matrix(
            data[self.continuous], learner="a CLG tree (its continuous columns)", missing="pairwise"
        )
        values = np.array(values, dtype=float)  # a copy: callers blank a target's column
        return codes, values

    def _upward(self, values: np.ndarray) -> tuple[dict, np.ndarray, tuple]:
        """One upward pass over the continuous nodes, every row at once.

        Returns ``soft`` (``{discrete index: (n, k) log-densities}`` of the Gaussian subtrees
        hanging from it, per state), ``roots`` (``(n,)`` log-densities of the trees without
        a discrete node) and ``(L, P, h, up_P, up_h)``: each node's collected children
        messages ``exp(L - P x^2/2 + h x)`` and the message it sends its continuous parent.
        """
        n, p = values.shape
        L, P, h = np.zeros((n, p)), np.zeros((n, p)), np.zeros((n, p))
        up_P, up_h = np.zeros((n, p)), np.zeros((n, p))
        soft: dict = {}
        roots = np.zeros(n)
        observed = ~np.isnan(values)
        for j in self._up_order:
            obs = observed[:, j]
            y = np.where(obs, values[:, j], 0.0)
            Lc, Pc, hc = L[:, j], P[:, j], h[:, j]
            at_y = Lc - 0.5 * Pc * y * y + hc * y  # the children's messages at the value
            if self._kind[j] == 1:
                b0 = self._state_means[j][None, :]
                s2 = self._state_vars[j][None, :]
                b1 = 0.0
            else:
                b0, b1, s2 = self._b0[j], self._b1[j], self._s2[j]
            Lc2, Pc2, hc2, y2, at2, obs2 = (a[:, None] for a in (Lc, Pc, hc, y, at_y, obs))
            # observed: N(y; b0 + b1 x, s2) times the children at y; missing: integrated
            t = 1.0 + s2 * Pc2
            L_obs = at2 - 0.5 * (_LOG_2PI + np.log(s2)) - (y2 - b0) ** 2 / (2 * s2)
            L_mis = (
                Lc2 - 0.5 * np.log(t) + (-0.5 * Pc2 * b0 * b0 + hc2 * b0 + 0.5 * s2 * hc2**2) / t
            )
            msg_L = np.where(obs2, L_obs, L_mis)
            if self._kind[j] == 1:
                i = int(self._parent[j])
                soft[i] = soft[i] + msg_L if i in soft else msg_L
            elif self._kind[j] == 0:
                roots += msg_L[:, 0]
            else:
                q = int(self._parent[j])
                msg_P = np.where(obs, b1 * b1 / s2, Pc * b1 * b1 / t[:, 0])
                msg_h = np.where(obs, b1 * (y - b0) / s2, (hc * b1 - Pc * b0 * b1) / t[:, 0])
                L[:, q] += msg_L[:, 0]
                P[:, q] += msg_P
                h[:, q] += msg_h
                up_P[:, j], up_h[:, j] = msg_P, msg_h
        return soft, roots, (L, P, h, up_P, up_h)

    def _complete_rows(self, values: np.ndarray) -> tuple[dict, np.ndarray]:
        """:meth:`_upward`'s ``(soft, roots)`` for rows without a missing continuous cell.

        With every number observed, each continuous node contributes its own Gaussian
        log-density given its parent's value: nothing to integrate, no messages. A node
        under a discrete parent gives an ``(n, k)`` column of log-densities (one per
        state) to that parent's soft evidence; every other node a per-row constant, which
        goes to ``roots`` (the exact pass routes it through the discrete node's soft
        evidence, where it is the same in every state, so the totals agree to round-off).
        """
        n = values.shape[0]
        soft: dict = {}
        roots = np.zeros(n)
        for j in self._up_order:
            y = values[:, j]
            if self._kind[j] == 1:
                means, variances = self._state_means[j], self._state_vars[j]
                resid = y[:, None] - means[None, :]
                msg = resid * resid * (-0.5 / variances)[None, :]
                msg += -0.5 * (_LOG_2PI + np.log(variances))[None, :]
                i = int(self._parent[j])
                if i in soft:
                    soft[i] += msg
                else:
                    soft[i] = msg
                continue
            resid = y - self._b0[j]
            if self._kind[j] == 2:
                resid = resid - self._b1[j] * values[:, int(self._parent[j])]
            roots += resid * resid * (-0.5 / self._s2[j]) - 0.5 * (_LOG_2PI + np.log(self._s2[j]))
        return soft, roots

    def _soft_evidence(self, values: np.ndarray) -> tuple[dict, np.ndarray]:
        """``(soft, roots)`` of :meth:`_upward`, the complete rows by :meth:`_complete_rows`
        and only the rows with a missing number by the exact pass (which integrates them)."""
        missing = np.isnan(values).any(axis=1)
        if not missing.any():
            return self._complete_rows(values)
        if missing.all():
            soft, roots, _ = self._upward(values)
            return soft, roots
        soft, roots = self._complete_rows(values[~missing])
        soft_m, roots_m, _ = self._upward(values[missing])
        n = values.shape[0]
        out_roots = np.empty(n)
        out_roots[~missing], out_roots[missing] = roots, roots_m
        out_soft: dict = {}
        for i in soft.keys() | soft_m.keys():
            k = (soft[i] if i in soft else soft_m[i]).shape[1]
            block = np.zeros((n, k))
            if i in soft:
                block[~missing] = soft[i]
            if i in soft_m:
                block[missing] = soft_m[i]
            out_soft[i] = block
        return out_soft, out_roots

    @staticmethod
    def _linear(soft: dict) -> tuple[dict, np.ndarray | None]:
        """Per-row likelihoods scaled to a maximum of 1 (the engine's soft evidence) and the
        log of the scales removed, summed per row (``None`` without likelihoods)."""
        out, removed = {}, None
        for i, log_l in soft.items():
            # the row maximum column by column: a reduction over a few states per row is
            # several times slower than k - 1 elementwise maxima over whole columns
            top = functools.reduce(np.maximum, log_l.T) if log_l.shape[1] else np.zeros(0)
            top = np.where(np.isfinite(top), top, 0.0)
            out[i] = np.exp(log_l - top[:, None])
            removed = top if removed is None else removed + top
        return out, removed

    #: rows per block of the complete-row scorer: its few temporaries (one per term being
    #: summed) stay in the CPU's cache and memory grows only with the output
    _BLOCK_ROWS = 32_768

    def _scoring_tables(self) -> dict:
        """The complete-row scorer's constants, built once per discrete model's log-CPTs.

        ``flat, columns, strides, offsets`` are the discrete tree's
        :meth:`~treelearn.TreeModel.log_cpt_index` with, folded into each discrete node's
        log-CPT entries, the log-normalisers ``-log(2 pi s2) / 2`` of the continuous
        children it selects the Gaussian of (by its own state), and the other continuous
        nodes' (constant) log-normalisers added to the first node's entries: a row picks
        exactly one entry per node, so each term is counted once. ``by_state`` holds
        ``(j, i, means, scales)`` of each number under a discrete parent ``i``,
        ``linear`` ``(j, parent or -1, intercept, coefficient, scale)`` of the others,
        ``scale = sqrt(1 / (2 s2))`` so that ``(scale * residual)^2`` is the log-density's
        quadratic term.
        """
        index = None if self.discrete_model is None else self.discrete_model.log_cpt_index()
        cache = self.__dict__.get("_tables")
        if cache is not None and cache[0] is (None if index is None else index[0]):
            return cache[1]
        constant = 0.0
        by_state, linear = [], []
        folds: dict[int, np.ndarray] = {}
        for j in self._down_order:
            if self._kind[j] == 1:
                i = int(self._parent[j])
                means, variances = self._state_means[j], self._state_vars[j]
                by_state.append((j, i, means, np.sqrt(0.5 / variances)))
                norm = -0.5 * (_LOG_2PI + np.log(variances))
                folds[i] = folds[i] + norm if i in folds else norm
            else:
                s2 = float(self._s2[j])
                parent = int(self._parent[j]) if self._kind[j] == 2 else -1
                linear.append(
                    (j, parent, float(self._b0[j]), float(self._b1[j]), (0.5 / s2) ** 0.5)
                )
                constant += -0.5 * (_LOG_2PI + math.log(s2))
        tables: dict = {"by_state": by_state, "linear": linear, "constant": constant}
        if index is not None:
            flat, columns, strides, offsets = index
            flat = flat.copy()
            sizes = np.diff(np.append(offsets, flat.size))
            for i, norm in folds.items():
                own = int(np.flatnonzero((columns[i] == i) & (strides[i] > 0))[0])
                entry = np.arange(sizes[i]) // strides[i, own] % norm.size  # the node's state
                flat[offsets[i] : offsets[i] + sizes[i]] += norm[entry]
            if flat.size:
                flat[offsets[0] : offsets[0] + sizes[0]] += constant
                tables["constant"] = 0.0
            used = [(columns[i], strides[i]) for i in range(len(offsets))]
            tables["discrete"] = [
                ([int(c) for c, s in zip(cols, st) if s], [np.intp(s) for s in st if s], int(o))
                for (cols, st), o in zip(used, offsets)
            ]
            tables["flat"] = flat
        self._tables = (None if index is None else index[0], tables)
        return tables

    def _score_block(self, codes: list, numbers: list) -> np.ndarray:
        """``log p(row)`` of complete rows given each discrete variable's codes (``codes[i]``,
        any integer dtype) and each continuous variable's values (``numbers[j]``): the
        discrete log-CPTs (log-normalisers folded in) gathered node by node, then each
        number's quadratic term ``(scale * (y - mean))^2`` subtracted."""
        t = self._scoring_tables()
        n = len(numbers[0]) if numbers else len(codes[0])
        total = np.full(n, t["constant"])
        if "flat" in t:
            flat = t["flat"]
            for cols, strides, offset in t["discrete"]:
                index = codes[cols[0]] * strides[0]
                for c, s in zip(cols[1:], strides[1:]):
                    index += codes[c] * s
                index += offset
                total += flat[index]
        states: dict[int, np.ndarray] = {}  # intp codes gather twice as fast as int8 ones
        for j, i, means, scales in t["by_state"]:
            if i not in states:
                states[i] = codes[i].astype(np.intp, copy=False)
            z = numbers[j] - means[states[i]]
            z *= scales[states[i]]
            z *= z
            total -= z
        for j, parent, b0, b1, scale in t["linear"]:
            z = numbers[j] - b0
            if parent >= 0:
                z -= b1 * numbers[parent]
            z *= scale
            z *= z
            total -= z
        return total

    def _complete_scores(self, codes: np.ndarray, values: np.ndarray) -> np.ndarray:
        """``log p(row)`` of rows without a missing cell of either kind (codes rows x
        discrete variables, values rows x continuous variables): :meth:`_score_block` on
        blocks of rows (no soft evidence, no message passing)."""
        n = values.shape[0]
        out = np.empty(n)
        step = self._BLOCK_ROWS
        for a in range(0, n, step):
            b = min(a + step, n)
            out[a:b] = self._score_block(
                [codes[a:b, i] for i in range(codes.shape[1])],
                [values[a:b, j] for j in range(values.shape[1])],
            )
        return out

    def _direct_columns(self, X: Any) -> tuple[list, list] | None:
        """The columns of a frame the complete-row scorer can read as they are, or ``None``.

        Each discrete column a numpy integer column whose values all lie in the model's
        states, those being consecutive integers from 0 (so a value is its own code);
        each continuous column a float column whose sum is finite (so no NaN, no
        infinity). Anything else (labels, Categoricals, missing cells, an unseen state,
        a bad value) takes the general path, which encodes, checks and explains.
        """
        if not isinstance(X, pd.DataFrame) or not X.columns.is_unique:
            return None
        if any(v not in X.columns for v in self.variables):
            return None
        codes = []
        if self.discrete_model is not None:
            for v in self.discrete_model.variables:
                series = X[v]
                states = self.discrete_model.states[v]
                if not isinstance(series.dtype, np.dtype) or series.dtype.kind not in "iu":
                    return None  # Categoricals, nullable integers, labels: the encoder's
                if list(states) != list(range(len(states))):
                    return None
                column = series.to_numpy()
                if any(type(s) is not int for s in states):
                    return None
                if column.size and (column.min() < 0 or column.max() >= len(states)):
                    return None
                codes.append(column)
        numbers = []
        for v in self.continuous:
            series = X[v]
            if not isinstance(series.dtype, np.dtype) or series.dtype.kind != "f":
                return None
            column = series.to_numpy().astype(float, copy=False)
            if not np.isfinite(column.sum()):
                return None
            numbers.append(column)
        return codes, numbers

    # -------------------------------------------------------------- scores
    def score_samples(self, X: pd.DataFrame) -> np.ndarray:
        """``log p(row)`` of each row (nats; a density for the continuous cells, missing
        cells of either kind summed or integrated out exactly)."""
        direct = self._direct_columns(X)
        if direct is not None:  # integer codes and finite floats: read in place, no copies
            codes_by_column, numbers = direct
            n = len(X)
            out = np.empty(n)
            step = self._BLOCK_ROWS
            for a in range(0, n, step):
                b = min(a + step, n)
                out[a:b] = self._score_block(
                    [c[a:b] for c in codes_by_column], [x[a:b] for x in numbers]
                )
            return out
        codes, values = self._arrays(X, small_codes=True)  # gathers index by them as they are
        if not np.isnan(values).any() and (codes.size == 0 or codes.min() >= 0):
            return self._complete_scores(codes, values)  # whole-array checks, no row copy
        complete = ~np.isnan(values).any(axis=1)
        if codes.shape[1]:
            complete &= (codes >= 0).all(axis=1)
        out = np.empty(len(values))
        if complete.any():
            out[complete] = self._complete_scores(codes[complete], values[complete])
        holes = ~complete
        out[holes] = self._scores_with_holes(codes[holes].astype(np.int64), values[holes])
        return out

    def _scores_with_holes(self, codes: np.ndarray, values: np.ndarray) -> np.ndarray:
        """``log p(row)`` of rows with missing cells: the numbers' soft evidence on the
        discrete tree, whose engine sums the missing states out."""
        soft_log, roots = self._soft_evidence(values)
        total = roots
        if self.discrete_model is not None:
            soft, removed = self._linear(soft_log)
            with np.errstate(divide="ignore"):
                total = total + self.discrete_model.engine().log_evidence(codes, soft)
            if removed is not None:
                total = total + removed
        return total

    # -------------------------------------------------------------- queries
    def _check_target(self, target: Hashable) -> None:
        if target not in self.graph:
            raise ColumnNotFoundError(
                f"{target!r} is not a variable of the model; the "
                f"variables are {self.variables[:10]}",
                column=target,
            )

    def posterior(self, X: pd.DataFrame, target: Hashable) -> pd.DataFrame | dict:
        """The posterior of ``target`` given each row's other cells (its own cell ignored).

        A discrete target: a DataFrame of probabilities, one column per state (NaN for a
        row of probability zero). A continuous target: ``{"weights", "means",
        "variances"}``, each ``(n, k)``, the Gaussian mixture of each row (``k`` the states
        of the discrete node the target's Gaussian subtree hangs from; 1 without one).
        """
        self._check_target(target)
        codes, values = self._arrays(X)
        if target in self._cpos:
            values[:, self._cpos[target]] = np.nan
            return self._continuous_posterior(codes, values, self._cpos[target])
        i = self._dpos[target]
        codes[:, i] = -1
        marg = self._discrete_marginals(codes, values)[i]
        return pd.DataFrame(
            marg, index=X.index, columns=pd.Index(self._discrete().states[target], name=target)
        )

    def predict_proba(self, X: pd.DataFrame, target: Hashable) -> pd.DataFrame:
        """``P(target | the row's other cells)`` of a discrete ``target`` for every row: one
        column per state (:meth:`posterior`); a continuous target's is :meth:`predict`'s mean
        and :meth:`posterior`'s mixture."""
        self._check_target(target)
        if target in self._cpos:
            raise TreelearnError(
                f"{target!r} is a Gaussian variable: it has no states to give probabilities "
                f"of; predict(X, {target!r}) gives its posterior mean",
                column=target,
            )
        return self.posterior(X, target)

    def _discrete_marginals(self, codes: np.ndarray, values: np.ndarray) -> list:
        soft_log, _ = self._soft_evidence(values)
        soft, _ = self._linear(soft_log)
        with np.errstate(invalid="ignore", divide="ignore"):
            return self._discrete().engine().marginals_codes(codes, soft)

    def _continuous_posterior(self, codes: np.ndarray, values: np.ndarray, x: int) -> dict:
        n = values.shape[0]
        path = [x]
        while self._kind[path[-1]] == 2:
            path.append(int(self._parent[path[-1]]))
        path = path[::-1]
        r = path[0]
        _, _, (_, P, h, up_P, up_h) = self._upward(values)
        if self._kind[r] == 1:
            mean = np.broadcast_to(self._state_means[r], (n, len(self._state_means[r])))
            var = np.broadcast_to(self._state_vars[r], mean.shape)
            weights = self._discrete_marginals(codes, values)[int(self._parent[r])]
        else:
            mean, var = np.full((n, 1), self._b0[r]), np.full((n, 1), self._s2[r])
            weights = np.ones((n, 1))
        for u, w in itertools.pairwise(path):
            prec = 1.0 / var + (P[:, u] - up_P[:, w])[:, None]
            lin = mean / var + (h[:, u] - up_h[:, w])[:, None]
            obs = ~np.isnan(values[:, u])[:, None]
            m_u = np.where(obs, np.nan_to_num(values[:, u])[:, None], lin / prec)
            v_u = np.where(obs, 0.0, 1.0 / prec)
            mean = self._b0[w] + self._b1[w] * m_u
            var = self._s2[w] + self._b1[w] ** 2 * v_u
        prec = 1.0 / var + P[:, x][:, None]
        lin = mean / var + h[:, x][:, None]
        return {"weights": np.asarray(weights), "means": lin / prec, "variances": 1.0 / prec}

    def _evidence_frame(self, evidence: Mapping[Hashable, Any] | None) -> pd.DataFrame:
        """One row: the evidence's values, every other cell missing."""
        evidence = dict(evidence or {})
        for v in evidence:
            self._check_target(v)
        return pd.DataFrame(
            {
                v: (
                    pd.Series([_number(v, evidence[v]) if v in evidence else np.nan])
                    if v in self._cpos
                    else pd.Series([evidence.get(v)], dtype=object)
                )
                for v in self.variables
            }
        )

    def query(
        self, target: Hashable, evidence: Mapping[Hashable, Any] | None = None
    ) -> pd.Series | GaussianMixtureQuery:
        """The exact posterior of one variable given ``evidence`` (``{column: value}``:
        numbers for continuous columns, states for discrete ones).

        A discrete target gives a Series of probabilities over its states (named
        ``"probability"``, its index by the variable); a continuous one a
        :class:`GaussianMixtureQuery`. ``target`` is one variable (or a list of one: the
        posterior of several variables together is a mixture of multivariate Gaussians,
        not computed here).
        """
        if isinstance(target, list) or (isinstance(target, tuple) and target not in self.graph):
            if len(target) != 1:
                raise TreelearnError(
                    f"a CLG tree answers one variable's posterior at a time, not "
                    f"{list(target)[:5]}: query each of them"
                )
            target = target[0]
        self._check_target(target)
        if target in dict(evidence or {}):
            raise TreelearnError(
                f"{target!r} is both queried and given as evidence; ask for it without its value"
            )
        frame = self._evidence_frame(evidence)
        out = self.posterior(frame, target)
        if isinstance(out, pd.DataFrame):
            series = out.iloc[0]
            if series.isna().any():
                raise TreelearnError(
                    f"the evidence {dict(evidence or {})} has probability zero under the model"
                )
            series.name = "probability"
            return series
        return GaussianMixtureQuery(
            out["weights"][0], out["means"][0], out["variances"][0], variable=target
        )

    def predict(self, X: pd.DataFrame, target: Hashable) -> pd.Series:
        """Each row's prediction of ``target`` from its other cells: the most probable state
        of a discrete target, the posterior mean of a continuous one."""
        out = self.posterior(X, target)
        if isinstance(out, pd.DataFrame):
            best = np.nan_to_num(out.to_numpy(), nan=-1.0).argmax(axis=1)
            labels = decode_codes(
                best[:, None], [target], self.states, {target: self.dtypes.get(target)}
            )[target]
            return pd.Series(labels.to_numpy(), index=X.index, name=target)
        mean = (out["weights"] * out["means"]).sum(axis=1)
        return pd.Series(mean, index=X.index, name=target)

    # -------------------------------------------------------------- sampling
    def sample(
        self,
        n: int,
        random_state: Any = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
    ) -> pd.DataFrame:
        """``n`` rows in column order with the discrete columns' dtypes: by ancestral
        sampling (the discrete tree first, then each continuous column given its parent),
        or exactly from ``P(. | evidence)`` (``{column: value}``: states of discrete
        columns, numbers of continuous ones; those columns hold the given values).
        ``numbers``: a discrete column whose states are bins comes back as numbers drawn
        within each row's bin, as in :meth:`TreeModel.sample
        <treelearn.TreeModel.sample>`.

        Given evidence, the discrete columns are drawn together from their posterior (each
        Gaussian subtree's density of its observed cells is soft evidence on the discrete
        node it hangs from), then each unobserved continuous column, parents first, from
        its exact conditional Gaussian given its parent's value and the observed cells
        below it (the upward messages of :meth:`score_samples`).

        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> rng = np.random.default_rng(0)
        >>> g = rng.integers(0, 2, 300)
        >>> m = tl.clg_tree(pd.DataFrame({"g": g, "x": rng.normal(4.0 * g, 1.0)}))
        >>> rows = m.sample(1000, random_state=0, evidence={"x": 4.0})
        >>> bool((rows["x"] == 4.0).all()), bool(abs((rows["g"] == 1).mean()
        ...                                           - m.query("g", {"x": 4.0})[1]) < 0.03)
        (True, True)
        """
        n = check_param("n", n, [Interval(Integral, 0, None)], note="the number of rows to draw")
        random_state = check_param("random_state", random_state, RANDOM_STATE)
        check_memory(
            n * max(len(self.variables), 1) * 16,
            f"sampling n={n} rows of {len(self.variables)} variables",
            "sample fewer rows at a time",
        )
        rng = np.random.default_rng(random_state)
        p = len(self.continuous)
        if evidence:  # the evidence as one row: codes, values, the upward messages of its cells
            given_codes, given = self._arrays(self._evidence_frame(evidence))
            soft_log, _, (_, P, h, _, _) = self._upward(given)
        else:  # nothing observed: no messages (ancestral sampling)
            given_codes = np.full((1, len(self.discrete)), -1, dtype=np.int64)
            given = np.full((1, p), np.nan)
            soft_log, P, h = {}, np.zeros((1, p)), np.zeros((1, p))
        observed = ~np.isnan(given[0])
        columns: dict = {}
        codes = np.zeros((n, 0), dtype=np.int64)
        if self.discrete_model is not None:
            dm = self.discrete_model
            fixed = {i: int(c) for i, c in enumerate(given_codes[0]) if c >= 0}
            scaled, _ = self._linear(soft_log if observed.any() else {})
            # a node given a state needs no likelihood of it (a constant over that one state)
            soft = {i: like[0] for i, like in scaled.items() if i not in fixed}
            codes = dm.engine().sample_codes(n, rng, fixed, soft)
            if len(codes) < n:
                raise TreelearnError(
                    f"the evidence {dict(evidence or {})} has probability zero under the model"
                )
            frame = decode_codes(codes, dm.variables, dm.states, dm.dtypes)
            if numbers:
                frame = binned_numbers(frame, codes, dm.variables, dm.states, rng)
            columns.update({v: frame[v] for v in dm.variables})
        values = np.empty((n, p))
        noise = rng.standard_normal((n, p))
        for j in self._down_order:  # parents first; one column per step, every row at once
            if observed[j]:
                values[:, j] = given[0, j]
                continue
            if self._kind[j] == 1:  # the state of the discrete node it hangs from
                a = codes[:, int(self._parent[j])]
                prior_mean, prior_var = self._state_means[j][a], self._state_vars[j][a]
            else:
                prior_mean = self._b0[j] + (
                    self._b1[j] * values[:, int(self._parent[j])] if self._kind[j] == 2 else 0.0
                )
                prior_var = self._s2[j]
            # N(prior) times the messages of the observed cells below: a Gaussian
            precision = 1.0 / prior_var + P[0, j]
            mean = (prior_mean / prior_var + h[0, j]) / precision
            values[:, j] = mean + noise[:, j] / np.sqrt(precision)
        for v, j in self._cpos.items():
            columns[v] = values[:, j]
        return pd.DataFrame({v: columns[v] for v in self.variables})

    # -------------------------------------------------------------- adapters
    def to_pgmpy(self) -> Any:
        """Refused: pgmpy has no hybrid (discrete and continuous) networks."""
        raise TreelearnError(
            f"pgmpy has no hybrid Bayesian networks (discrete and continuous nodes together), so "
            f"this CLG tree's continuous columns {self.continuous[:5]} cannot be exported to it; "
            f"export the discretized model instead: tl.chow_liu(tl.discretize(df, bins=5))"
            f".to_pgmpy() (or .to_bif(path)); a Gaussian-only tree of the numbers is "
            f"tl.gaussian_chow_liu(df[numbers]).to_pgmpy()"
        )

    def to_pyagrum(self) -> Any:
        """A ``pyagrum.clg.CLG`` of a tree of continuous columns; pyAgrum's CLG has no
        discrete nodes, so a tree with discrete columns is refused, naming them."""
        from ..export._pyagrum import clg_to_pyagrum

        return clg_to_pyagrum(self)

    # -------------------------------------------------------------- files
    def to_dict(self) -> dict:
        """A JSON-ready dict; :meth:`from_dict` inverts it, every field checked."""
        nodes = []
        for v in self.continuous:
            node = self.graph.nodes[v]
            ps = self.parents(v)
            entry: dict = {"name": encode_label(v), "parent": encode_label(ps[0]) if ps else None}
            if "means" in node and ps and ps[0] not in self._cpos:
                entry.update(means=list(node["means"]), variances=list(node["variances"]))
            else:
                entry.update(
                    intercept=node["intercept"],
                    variance=node["variance"],
                    coefficient=node.get("coefficient"),
                )
            nodes.append(entry)
        return {
            "variables": [encode_label(v) for v in self.variables],
            "continuous": nodes,
            "discrete": None if self.discrete_model is None else self.discrete_model.to_dict(),
            "edges": [
                [encode_label(u), encode_label(v), self.graph.edges[u, v].get("weight")]
                for u, v in self.graph.edges
            ],
            "n_rows": self.n_rows,
            "settings": {"method": str(self.settings.get("method", "clg-chow-liu"))},
        }

    @classmethod
    def from_dict(cls, d: Any) -> CLGTreeModel:
        """The model :meth:`to_dict` describes; an :class:`~treelearn.InvalidModelError`
        names the field that is wrong."""
        if not isinstance(d, dict):
            raise InvalidModelError("CLG tree file: 'model' must be an object")
        for key, kind in (("variables", list), ("continuous", list), ("edges", list)):
            if not isinstance(d.get(key), kind):
                raise InvalidModelError(f"CLG tree file: {key!r} must be a list")
        variables = [decode_label(v) for v in d["variables"]]
        if len(set(map(repr, variables))) != len(variables):
            raise InvalidModelError("CLG tree file: 'variables' lists a variable twice")
        discrete = None
        if d.get("discrete") is not None:
            discrete = TreeModel.from_dict(d["discrete"])
        G = nx.DiGraph()
        G.add_nodes_from(variables)
        continuous = []
        for node in d["continuous"]:
            if not isinstance(node, dict) or "name" not in node or "parent" not in node:
                raise InvalidModelError(
                    "CLG tree file: each continuous node needs 'name' and 'parent'"
                )
            v = decode_label(node["name"])
            if v not in G:
                raise InvalidModelError(
                    f"CLG tree file: continuous node {v!r} is not in 'variables'"
                )
            continuous.append(v)
            attrs = {
                k: node[k]
                for k in ("means", "variances", "intercept", "variance", "coefficient")
                if k in node
            }
            G.nodes[v].update(attrs)
        for edge in d["edges"]:
            if not isinstance(edge, list) or len(edge) != 3:
                raise InvalidModelError("CLG tree file: each edge is [parent, child, weight]")
            u, v = decode_label(edge[0]), decode_label(edge[1])
            if u not in G or v not in G:
                raise InvalidModelError(f"CLG tree file: edge {edge[:2]} names an unknown variable")
            if edge[2] is not None and not isinstance(edge[2], (int, float)):
                raise InvalidModelError(f"CLG tree file: edge {edge[:2]}: weight must be a number")
            G.add_edge(u, v, **({"weight": edge[2]} if edge[2] is not None else {}))
        for node in d["continuous"]:
            v, parent = decode_label(node["name"]), node["parent"]
            ps = list(G.predecessors(v))
            if (parent is None) != (not ps) or (ps and decode_label(parent) != ps[0]):
                raise InvalidModelError(
                    f"CLG tree file: continuous node {v!r}: 'parent' "
                    f"{parent!r} differs from the edges {ps}"
                )
        dtypes = {} if discrete is None else discrete.dtypes
        n_rows = d.get("n_rows")
        if n_rows is not None and (
            isinstance(n_rows, bool) or not isinstance(n_rows, (int, float))
        ):
            raise InvalidModelError("CLG tree file: 'n_rows' must be a number")
        settings = d.get("settings")
        if not isinstance(settings, dict):
            raise InvalidModelError("CLG tree file: 'settings' must be an object")
        return cls(
            G,
            discrete,
            variables=variables,
            continuous=continuous,
            dtypes=dtypes,
            n_rows=n_rows,
            settings=settings,
        )
