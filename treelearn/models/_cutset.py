"""Cutset networks: an OR-tree of conditioning on variables, with tree-shaped models at its leaves.

``P(x) = w(x_v) P_child(x_v)(x_rest)`` at a conditioning node on ``v`` (one child per
state of ``v``, ``w`` the branch probabilities), and at a leaf the leaf's
:class:`~treelearn.TreeModel` over the variables not conditioned on above
it (Rahman, Kothalkar & Gogate, ECML 2014). Every query stays exact and linear in the
size of the network: the probability of a row with any cells missing is the sum over
the branches its missing conditioning variables leave open (message passing at the
leaves sums the rest out); its most probable completion the best branch's (max-product
at the leaves); sampling draws a branch, then from the leaf's tree. All of it runs for
many rows at once, one step per node (no loop over rows).

Likelihood (soft) evidence ``L_v`` is taken wherever evidence is: the network's answers
are then those of ``P(x) prod_v L_v(x_v)``, normalised. A conditioning node on ``v`` weighs
its branch ``a`` by ``w(a) L_v(a)``, and a leaf's tree takes the likelihoods of its own
variables as its message passing does; nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import ColumnNotFoundError, InvalidModelError, TreelearnError
from .._base.jsonvalues import DecodeError, decode_dtype, decode_label, encode_dtype, encode_label
from .._base.limits import check_memory
from .._base.logspace import logsumexp
from .._base.validation import RANDOM_STATE, InstanceOf, Interval, check_param
from ..encoding._bins import binned_numbers
from ..encoding._table import check_frame, encode
from ..inference._engine import decode_codes, is_likelihood, likelihood, state_index
from ._base import Model
from ._tree import TreeModel

__all__ = ["CutsetModel", "Leaf", "Soft", "Split", "cutset_page_spec", "query_rows"]

#: likelihood (soft) evidence: ``{column index: one non-negative weight per state}``
Soft = Mapping[int, np.ndarray]


@dataclass
class Leaf:
    """A leaf: ``tree`` over the columns ``columns`` (indices into the network's columns;
    ``tree`` is None when none is left)."""

    columns: np.ndarray
    tree: TreeModel | None

    @property
    def n_parameters(self) -> int:
        return 0 if self.tree is None else self.tree.n_parameters


@dataclass
class Split:
    """A conditioning node on column ``variable``: branch ``a`` (probability ``weights[a]``)
    leads to ``children[a]``."""

    variable: int
    weights: np.ndarray
    children: list

    @property
    def n_parameters(self) -> int:
        return len(self.weights) - 1 + sum(c.n_parameters for c in self.children)


Node = Leaf | Split


class CutsetModel(Model):
    """A fitted cutset network over ``columns`` (see the module docstring).

    Built by :class:`treelearn.CutsetNetwork`; ``root`` is its top node.

    Parameters
    ----------
    root : node
        The top node: an OR node (a variable conditioned on, one child per state, with
        their weights) or a leaf (a Chow-Liu tree over the remaining columns).
    columns : sequence of hashable
        The variables, in column order.
    states : sequence of sequences
        Each column's states.
    dtypes : dict, default=None
        Each column's dtype (sampled data gets them back).

    See Also
    --------
    CutsetNetwork : learns one (or a bagged mixture of them).
    TreeModel : the leaves' kind.

    References
    ----------
    .. [1] Rahman, T., Kothalkar, P. and Gogate, V. (2014). Cutset networks: a simple,
       tractable, and scalable approach for improving the accuracy of Chow-Liu trees.
       In Machine Learning and Knowledge Discovery in Databases (ECML PKDD), 630-645.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> net = tl.CutsetNetwork(max_depth=2, penalty=None).fit(df).networks_[0]
    >>> net.depth, round(float(net.query(["smoke", "lung"]).sum()), 6)
    (2, 1.0)
    """

    kind = "cutset_network"
    capabilities = frozenset(
        {
            "score",
            "sample",
            "sample_given",
            "query",
            "marginals",
            "map",
            "predict",
            "draw",
            "explorer",
        }
    )

    def __init__(
        self,
        root: Node,
        columns: Sequence[Hashable],
        states: Sequence[Sequence],
        dtypes: Mapping[Hashable, Any] | None = None,
    ) -> None:
        self.root = root
        self.columns = self.variables = list(columns)
        self.states = {c: list(s) for c, s in zip(self.columns, states)}
        self.dtypes = dict(dtypes or {})

    # ------------------------------------------------------------------ shape
    @property
    def n_parameters(self) -> int:
        """Free parameters: every branch distribution's and every leaf tree's."""
        return self.root.n_parameters

    @property
    def depth(self) -> int:
        """The most conditioning nodes on a way from the root to a leaf."""

        def depth(node: Node) -> int:
            return 0 if isinstance(node, Leaf) else 1 + max(depth(c) for c in node.children)

        return depth(self.root)

    def nodes(self) -> list:
        """Every node, parents before children."""
        out, stack = [], [self.root]
        while stack:
            node = stack.pop()
            out.append(node)
            if isinstance(node, Split):
                stack.extend(reversed(node.children))
        return out

    # ------------------------------------------------------------------ codes in, arrays out
    def encode(self, data: pd.DataFrame) -> np.ndarray:
        """The codes of ``data``'s rows in column order (``-1``: missing; extra columns ignored)."""
        check_frame(data, action="score or predict")
        absent = [c for c in self.columns if c not in data.columns]
        if absent:
            raise ColumnNotFoundError(
                f"the data lacks the network's column(s) {absent}", column=absent[0]
            )
        return encode(
            data[self.columns],
            missing="pairwise",
            states=self.states,
            max_states=np.iinfo(np.int64).max,
        ).codes.astype(np.int64)

    def log_likelihood_codes(self, codes: np.ndarray, soft: Soft | None = None) -> np.ndarray:
        """``log P(observed cells of each row)``: a row missing a conditioning variable sums
        over its branches, the leaves' message passing sums out the rest. With ``soft``
        likelihoods (``{column index: weights}``), ``log sum_x P(x, cells) prod_v L_v(x_v)``.

        >>> import pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> net = tl.CutsetNetwork(max_depth=1, penalty=None).fit(df).model_
        >>> free = np.full((1, 8), -1)
        >>> j = net.columns.index("smoke")
        >>> yes = free.copy(); yes[0, j] = 1
        >>> # a likelihood (0, 1) on smoke is the evidence smoke = yes
        >>> bool(np.isclose(net.log_likelihood_codes(free, {j: np.array([0.0, 1.0])})[0],
        ...                 net.log_likelihood_codes(yes)[0]))
        True
        """
        codes = np.asarray(codes, dtype=np.int64)
        return self._log_evidence(self.root, codes, np.arange(codes.shape[0]), soft or {})

    def _log_evidence(
        self, node: Node, codes: np.ndarray, rows: np.ndarray, soft: Soft
    ) -> np.ndarray:
        """``log P(the cells of the rows below node | the way to it)``, one per row (times
        the likelihoods of ``soft``)."""
        if isinstance(node, Leaf):
            if node.tree is None:
                return np.zeros(len(rows))
            sub = codes[np.ix_(rows, node.columns)]
            mine = _leaf_soft(node, soft)
            if not mine:
                return node.tree.log_likelihood_codes(sub)
            return node.tree.engine().log_evidence(sub, mine)
        x = codes[rows, node.variable]
        total = np.full(len(rows), -np.inf)
        log_w = _log_branches(node, soft)
        for a, child in enumerate(node.children):
            on = np.flatnonzero((x == a) | (x < 0))
            if len(on) and log_w[a] > -np.inf:
                total[on] = np.logaddexp(
                    total[on], log_w[a] + self._log_evidence(child, codes, rows[on], soft)
                )
        return total

    def map_codes(
        self, codes: np.ndarray, soft: Soft | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The most probable completion of each row and its log-probability (observed cells
        stay; ties to the first branch, and to the first state at the leaves); with
        ``soft`` likelihoods, of ``P(completion) prod_v L_v(x_v)``."""
        codes = np.asarray(codes, dtype=np.int64)
        return self._map(self.root, codes, np.arange(codes.shape[0]), soft or {})

    def _map(self, node: Node, codes: np.ndarray, rows: np.ndarray, soft: Soft) -> tuple:
        """``(completions, log P(completion below node | the way to it))`` of the rows."""
        done = codes[rows].copy()
        if isinstance(node, Leaf):
            if node.tree is None:
                return done, np.zeros(len(rows))
            best, log_p = node.tree.engine().map_codes(
                done[:, node.columns], _leaf_soft(node, soft) or None
            )
            done[:, node.columns] = best
            return done, log_p
        x = codes[rows, node.variable]  # a copy: done's column changes below
        top = np.full(len(rows), -np.inf)
        log_w = _log_branches(node, soft)
        for a, child in enumerate(node.children):
            on = np.flatnonzero((x == a) | (x < 0))
            if not len(on) or log_w[a] == -np.inf:
                continue
            below, log_p = self._map(child, codes, rows[on], soft)
            below[:, node.variable] = a
            score = log_w[a] + log_p
            better = score > top[on]
            top[on[better]] = score[better]
            done[on[better]] = below[better]
        return done, top

    def sample_codes(
        self, n: int, rng: np.random.Generator, evidence: np.ndarray, soft: Soft | None = None
    ) -> np.ndarray:
        """``n`` rows drawn exactly from ``P(. | evidence)`` (``evidence``: one row of codes,
        ``-1`` = free; ``soft``: likelihoods, as :meth:`log_likelihood_codes` takes them);
        empty when the evidence is impossible."""
        soft = soft or {}
        if not np.isfinite(self.log_likelihood_codes(evidence[None], soft)[0]):
            return np.zeros((0, len(self.columns)), dtype=np.int64)
        out = np.broadcast_to(np.where(evidence >= 0, evidence, 0), (n, len(self.columns))).astype(
            np.int64
        )
        self._sample(self.root, np.arange(n), evidence, rng, out, soft)
        return out

    def _sample(
        self,
        node: Node,
        rows: np.ndarray,
        evidence: np.ndarray,
        rng: np.random.Generator,
        out: np.ndarray,
        soft: Soft,
    ) -> None:
        if not len(rows):
            return
        if isinstance(node, Leaf):
            if node.tree is not None:
                engine = node.tree.engine()
                fixed = {
                    int(j): int(evidence[c]) for j, c in enumerate(node.columns) if evidence[c] >= 0
                }
                out[np.ix_(rows, node.columns)] = engine.sample_codes(
                    len(rows), rng, fixed, _leaf_soft(node, soft) or None
                )
            return
        given = evidence[node.variable]
        log_branch = _log_branches(node, soft)
        for a, child in enumerate(node.children):  # P(branch | evidence)
            if given >= 0 and a != given:
                log_branch[a] = -np.inf
            elif np.isfinite(log_branch[a]):
                log_branch[a] += self._log_evidence(child, evidence[None], np.arange(1), soft)[0]
        p = np.exp(log_branch - logsumexp(log_branch))
        branch = rng.choice(len(p), size=len(rows), p=p / p.sum())
        for a, child in enumerate(node.children):
            sub = rows[branch == a]
            out[sub, node.variable] = a
            row = evidence.copy()
            row[node.variable] = a
            self._sample(child, sub, row, rng, out, soft)

    # ------------------------------------------------------------------ labels in, labels out
    def evidence_row(self, evidence: Mapping[Hashable, Any] | None) -> tuple[np.ndarray, dict]:
        """``(row, soft)``: one row of codes holding the variables ``evidence`` gives a state
        (``-1``: free), and ``{column index: likelihood}`` of those it gives a likelihood (a
        list, array or Series of one weight per state, or ``{state: weight}``, as
        :meth:`TreeModel.query <treelearn.TreeModel.query>` takes them); names,
        states and weights checked.

        >>> import pandas as pd, treelearn as tl
        >>> net = tl.CutsetNetwork(max_depth=1).fit(pd.read_csv("datasets/asia.csv")).model_
        >>> row, soft = net.evidence_row({"smoke": "yes", "xray": {"yes": 2.0}})
        >>> int(row[net.columns.index("smoke")]), soft[net.columns.index("xray")].tolist()
        (1, [0.0, 2.0])
        """
        check_param("evidence", evidence, [None, InstanceOf(Mapping, name="a dict")])
        row = np.full(len(self.columns), -1, dtype=np.int64)
        soft: dict[int, np.ndarray] = {}
        for v, s in (evidence or {}).items():
            if v not in self.states:
                raise ColumnNotFoundError(
                    f"{v!r} is not a variable of the network; the variables are {self.columns}",
                    column=v,
                )
            states = self.states[v]
            j = self.columns.index(v)
            if is_likelihood(s):
                soft[j] = likelihood(v, s, states, lambda u, t: state_index(self.states[u], u, t))
            else:
                row[j] = state_index(states, v, s)
        return row, soft

    def score_samples(self, X: pd.DataFrame) -> np.ndarray:
        """Log-likelihood of each row of ``X`` (missing cells summed out)."""
        return self.log_likelihood_codes(self.encode(X))

    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then the OR-tree: each conditioning node with its branches'
        probabilities, each leaf with its Chow-Liu tree's edges."""
        yield (
            f"CutsetModel: {len(self.columns)} variables, depth {self.depth}, "
            f"{self.n_parameters} parameters"
        )
        stack: list = [(self.root, "", "")]
        while stack:
            node, indent, branch = stack.pop()
            if isinstance(node, Leaf):
                edges = [] if node.tree is None else list(node.tree.graph.edges)
                shown = ", ".join(f"{u}-{v}" for u, v in edges[:8])
                more = f", ... ({len(edges)} in all)" if len(edges) > 8 else ""
                yield f"{indent}{branch}leaf: a tree of {len(node.columns)} variables" + (
                    f" ({shown}{more})" if edges else ""
                )
                continue
            name = self.columns[node.variable]
            yield f"{indent}{branch}condition on {name!r}"
            states = self.states[name]
            stack.extend(
                (child, indent + "    ", f"{name}={states[a]} (p {node.weights[a]:.{digits}g}): ")
                for a, child in reversed(list(enumerate(node.children)))
            )

    # ------------------------------------------------------------------ pictures
    def or_tree(self) -> Any:
        """The OR-tree as the pictures read it: its top node, each conditioning node with
        its variable and its branches' states, probabilities and children, each leaf with
        its tree (built without recursion)."""
        from ..viz._cutset_pictures import OrNode

        built: dict[int, OrNode] = {}
        for node in reversed(self.nodes()):  # children before parents
            if isinstance(node, Leaf):
                built[id(node)] = OrNode(tree=node.tree, n_columns=len(node.columns))
                continue
            name = self.columns[node.variable]
            states = self.states[name]
            built[id(node)] = OrNode(
                variable=name,
                branches=tuple(
                    (states[a], float(w), built[id(child)])
                    for a, (w, child) in enumerate(zip(node.weights, node.children))
                ),
            )
        return built[id(self.root)]

    def draw(self, ax: Any = None, **kwargs: Any) -> Any:
        """The OR-tree of conditioning variables (each branch labelled with its state and
        probability) over the heaviest leaves' Chow-Liu trees, one panel each; returns a
        matplotlib Figure, no wider than 2,000 px at 200 dpi.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Draw the OR-tree alone into these axes.
        **kwargs
            ``title`` (``True``: the network's size; a string; ``False``/``None``: none),
            ``max_leaves`` (default 16: the OR-tree opened, the heaviest part first, while
            at most this many boxes are at its bottom; ``None``: all), ``max_panels``
            (default 6 leaf trees), ``max_width`` (inches, default 10), ``edge_labels``
            (the leaf trees' mutual information, default True), ``digits``,
            ``fontsize``. ``data`` is taken and not shown.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> net = tl.CutsetNetwork(max_depth=2, penalty=None).fit(df).model_
        >>> fig = net.draw(title=True)
        >>> bool(fig.get_size_inches()[0] <= 10)
        True
        """
        from ..viz._cutset_pictures import draw_cutset

        self.require("draw")
        kwargs.pop("data", None)
        title = kwargs.pop("title", None)
        if title is True:
            title = (
                f"cutset network: {len(self.columns)} variables, depth {self.depth}, "
                f"{sum(isinstance(n, Leaf) for n in self.nodes())} leaves"
            )
        return draw_cutset(self.or_tree(), ax, title=title or None, **kwargs)

    def to_dot(self, **kwargs: Any) -> str:
        """Graphviz DOT: the OR-tree (ellipses, branches labelled ``state (probability)``),
        each leaf's tree a titled cluster; ``kwargs``: ``max_leaves``, ``edge_labels``,
        ``digits``, ``name``, ``title``."""
        from ..viz._cutset_pictures import cutset_to_dot

        self.require("draw")
        return cutset_to_dot(self.or_tree(), **kwargs)

    def to_mermaid(self, **kwargs: Any) -> str:
        """A Mermaid flowchart: the OR-tree, each leaf's tree a titled subgraph;
        ``kwargs``: ``max_leaves``, ``edge_labels``, ``digits``."""
        from ..viz._cutset_pictures import cutset_to_mermaid

        self.require("draw")
        return cutset_to_mermaid(self.or_tree(), **kwargs)

    def query(
        self,
        variables: Sequence[Hashable] | Hashable,
        evidence: Mapping[Hashable, Any] | None = None,
    ) -> pd.Series:
        """Exact ``P(variables | evidence)`` as a Series over their joint states (a
        MultiIndex for several): one evidence row per joint state, all scored at once.
        ``evidence`` gives a variable a state or a likelihood (soft evidence, as
        :meth:`TreeModel.query <treelearn.TreeModel.query>`; a queried
        variable may have one too).

        >>> import pandas as pd, treelearn as tl
        >>> net = tl.CutsetNetwork(max_depth=1).fit(pd.read_csv("datasets/asia.csv")).model_
        >>> hard = net.query("lung", {"smoke": "yes"})
        >>> bool(np.allclose(net.query("lung", {"smoke": [0.0, 5.0]}), hard))
        True
        """
        return query_rows(self.log_likelihood_codes, self, variables, evidence)

    def marginals(self, evidence: Mapping[Hashable, Any] | None = None) -> dict:
        """``{variable: P(variable | evidence)}`` for every variable not given a state (a
        variable given a likelihood gets its posterior), exactly (one :meth:`query` each)."""
        row, _ = self.evidence_row(evidence)  # names and states checked once, before any query
        return {v: self.query(v, evidence) for j, v in enumerate(self.columns) if row[j] < 0}

    def posterior_codes(self, codes: np.ndarray, target: int) -> np.ndarray:
        """``P(column target | the row's other observed cells)`` of rows of codes: an ``n x
        k`` array (a row of probability zero: NaN), every state of the target scored in one
        call (the rows repeated ``k`` times)."""
        codes = np.asarray(codes, dtype=np.int64)
        k = len(self.states[self.columns[target]])
        check_memory(
            8.0 * len(codes) * k * len(self.columns),
            "predict_proba over every state",
            "predict fewer rows at a time",
        )
        rows = np.repeat(codes, k, axis=0)
        rows[:, target] = np.tile(np.arange(k), len(codes))
        log_p = self.log_likelihood_codes(rows).reshape(len(codes), k)
        with np.errstate(invalid="ignore"):
            return np.exp(log_p - logsumexp(log_p, axis=1, keepdims=True))

    def predict_proba(self, data: pd.DataFrame, target: Hashable) -> pd.DataFrame:
        """``P(target | each row's other observed cells)``: one column per state of
        ``target`` (missing cells and absent columns summed out), exactly.

        >>> import pandas as pd, treelearn as tl
        >>> net = tl.CutsetNetwork(max_depth=2).fit(pd.read_csv("datasets/asia.csv")).model_
        >>> net.predict_proba(pd.DataFrame({"smoke": ["yes"]}), "lung").round(3).to_numpy().tolist()
        [[0.904, 0.096]]
        """
        if target not in self.states:
            raise ColumnNotFoundError(
                f"{target!r} is not a column; the columns are {self.columns}", column=target
            )
        check_frame(data, action="score or predict")
        codes = self.encode(data.reindex(columns=self.columns))
        proba = self.posterior_codes(codes, self.columns.index(target))
        bad = ~np.isfinite(proba).all(axis=1)
        if bad.any():
            raise TreelearnError(
                f"{int(bad.sum())} row(s) have probability zero under the network for every "
                f"state of {target!r}, e.g. row {data.index[int(np.flatnonzero(bad)[0])]!r}: "
                f"drop or fix those rows, or learn with alpha > 0",
                column=target,
            )
        return pd.DataFrame(proba, columns=self.states[target], index=data.index)

    def predict(self, data: pd.DataFrame, target: Hashable) -> pd.Series:
        """The most probable state of ``target`` for every row given its other cells (the
        argmax of :meth:`predict_proba`; ties go to the first state)."""
        proba = self.predict_proba(data, target)
        labels = np.empty(proba.shape[1], dtype=object)
        labels[:] = list(proba.columns)
        return pd.Series(labels[np.argmax(proba.to_numpy(), axis=1)], index=data.index, name=target)

    def map_query(
        self, evidence: Mapping[Hashable, Any] | None = None, return_log_prob: bool = False
    ) -> dict | tuple[dict, float]:
        """The most probable assignment of every variable not given a state in ``evidence``
        (exact), and with ``return_log_prob`` also ``log P(assignment, evidence)`` (a
        likelihood ``L`` counts as ``P(evidence | v) = L(v)``, as :meth:`TreeModel.map_query
        <treelearn.TreeModel.map_query>` counts it)."""
        row, soft = self.evidence_row(evidence)
        best, log_p = self.map_codes(row[None], soft)
        if not np.isfinite(log_p[0]):
            raise TreelearnError(f"the evidence {dict(evidence or {})} has probability zero")
        out = {c: self.states[c][best[0, j]] for j, c in enumerate(self.columns) if row[j] < 0}
        return (out, float(log_p[0])) if return_log_prob else out

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (:func:`cutset_page_spec`): one forest per leaf, MAP included."""
        return cutset_page_spec([self], [1.0], self.query, title)

    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
    ) -> pd.DataFrame:
        """Draw ``n`` rows exactly from ``P(. | evidence)``, with the columns' labels and dtypes
        (``numbers``: binned columns as numbers within each row's bin, as
        :meth:`TreeModel.sample <treelearn.TreeModel.sample>`)."""
        n = check_param("n", n, [Interval(Integral, 0, None)], note="the number of rows to draw")
        random_state = check_param("random_state", random_state, RANDOM_STATE)
        check_memory(
            16.0 * n * max(len(self.columns), 1),
            f"sampling n={n} rows",
            "sample fewer rows at a time",
        )
        row, soft = self.evidence_row(evidence)
        rng = np.random.default_rng(random_state)
        codes = self.sample_codes(n, rng, row, soft)
        if len(codes) < n:
            raise TreelearnError(f"the evidence {dict(evidence or {})} has probability zero")
        out = decode_codes(codes, self.columns, self.states, self.dtypes)
        return binned_numbers(out, codes, self.columns, self.states, rng) if numbers else out

    # ------------------------------------------------------------------ files
    def to_dict(self) -> dict:
        """The network as JSON values: columns, states, and the nodes (leaves' trees by
        :meth:`TreeModel.to_dict`)."""

        def node(n: Node) -> dict:
            if isinstance(n, Leaf):
                return {
                    "columns": [int(c) for c in n.columns],
                    "tree": None if n.tree is None else n.tree.to_dict(),
                }
            return {
                "variable": int(n.variable),
                "weights": [float(w) for w in n.weights],
                "children": [node(c) for c in n.children],
            }

        return {
            "columns": [encode_label(c) for c in self.columns],
            "states": [[encode_label(s) for s in self.states[c]] for c in self.columns],
            "dtypes": [encode_dtype(self.dtypes.get(c)) for c in self.columns],
            "root": node(self.root),
        }

    @classmethod
    def from_dict(cls, d: Any, dtypes: Mapping[Hashable, Any] | None = None) -> CutsetModel:
        """The network :meth:`to_dict` describes, every node checked: conditioning variables
        distinct on every way down, branch weights a distribution with one child per state,
        each leaf's tree over exactly the columns left, with their states."""
        if not isinstance(d, dict) or not {"columns", "states", "root"} <= set(d):
            raise InvalidModelError("a saved cutset network needs 'columns', 'states' and 'root'")
        try:
            columns = [decode_label(c) for c in d["columns"]]
            states = [[decode_label(s) for s in st] for st in d["states"]]
        except Exception as exc:  # a bad label: the file is at fault
            raise InvalidModelError(f"a saved cutset network has bad labels ({exc})") from None
        if len(states) != len(columns) or len(set(columns)) != len(columns):
            raise InvalidModelError(
                "a saved cutset network needs distinct columns, one state list each"
            )
        if dtypes is None and d.get("dtypes") is not None:
            saved = d["dtypes"]
            if not isinstance(saved, list) or len(saved) != len(columns):
                raise InvalidModelError("a saved cutset network needs one dtype per column")
            try:
                dtypes = {c: decode_dtype(t) for c, t in zip(columns, saved) if t is not None}
            except DecodeError as exc:
                raise InvalidModelError(f"a saved cutset network has a bad dtype ({exc})") from None

        def node(raw: Any, free: frozenset, where: str) -> Node:
            if not isinstance(raw, dict):
                raise InvalidModelError(f"cutset node {where} must be a JSON object")
            if "variable" not in raw:
                cols = raw.get("columns")
                if (
                    not isinstance(cols, list)
                    or sorted(cols) != sorted(free)
                    or len(set(cols)) != len(cols)
                ):
                    raise InvalidModelError(
                        f"cutset leaf {where} must hold the columns left there, {sorted(free)}"
                    )
                tree = None if raw.get("tree") is None else TreeModel.from_dict(raw["tree"])
                names = [columns[c] for c in cols]
                if (tree is None) != (not cols) or (
                    tree is not None
                    and (
                        tree.variables != names
                        or any(tree.states[columns[c]] != states[c] for c in cols)
                    )
                ):
                    raise InvalidModelError(
                        f"cutset leaf {where}: its tree must be over the "
                        f"columns {names} with their states"
                    )
                return Leaf(np.array(cols, dtype=np.int64), tree)
            v = raw["variable"]
            if not isinstance(v, int) or v not in free:
                raise InvalidModelError(
                    f"cutset node {where} conditions on {v!r}, not a column left there"
                )
            weights = np.asarray(raw.get("weights"), dtype=float)
            children = raw.get("children")
            k = len(states[v])
            if (
                weights.shape != (k,)
                or not np.isfinite(weights).all()
                or (weights < 0).any()
                or not np.isclose(weights.sum(), 1.0, atol=1e-9)
            ):
                raise InvalidModelError(
                    f"cutset node {where}: weights must be {k} probabilities summing to 1"
                )
            if not isinstance(children, list) or len(children) != k:
                raise InvalidModelError(
                    f"cutset node {where}: one child per state of {columns[v]!r} ({k})"
                )
            return Split(
                v, weights, [node(c, free - {v}, f"{where}/{a}") for a, c in enumerate(children)]
            )

        root = node(d["root"], frozenset(range(len(columns))), "root")
        return cls(root, columns, states, dtypes)


def _leaf_soft(leaf: Leaf, soft: Soft) -> dict:
    """The likelihoods of ``soft`` on ``leaf``'s variables, keyed by their place in its tree."""
    if not soft:
        return {}
    return {j: soft[int(c)] for j, c in enumerate(leaf.columns) if int(c) in soft}


def _log_branches(split: Split, soft: Soft) -> np.ndarray:
    """``log w(a) + log L(a)`` of every branch of ``split`` (``L``: its variable's
    likelihood in ``soft``, if any; ``-inf`` where either is zero)."""
    weights = split.weights
    if split.variable in soft:
        weights = weights * soft[split.variable]
    with np.errstate(divide="ignore"):
        return np.log(weights)


def query_rows(
    log_likelihood_codes: Callable[[np.ndarray, Soft], np.ndarray],
    net: CutsetModel,
    variables: Sequence[Hashable] | Hashable,
    evidence: Mapping[Hashable, Any] | None,
) -> pd.Series:
    """``P(variables | evidence)`` from a function scoring rows of codes given likelihoods
    (a network's :meth:`~CutsetModel.log_likelihood_codes`): one evidence row per joint
    state of ``variables``, scored at once, normalised. ``net`` names the columns and states."""
    if isinstance(variables, (str, int)) or not isinstance(variables, Sequence):
        variables = [variables]
    variables = list(variables)
    row, soft = net.evidence_row(evidence)
    if not variables or len(set(variables)) != len(variables):
        raise TreelearnError(f"query variables must be distinct and non-empty, got {variables}")
    unknown = [v for v in variables if v not in net.states]
    if unknown:
        raise ColumnNotFoundError(
            f"{unknown[0]!r} is not a variable of the network; the variables are {net.columns}",
            column=unknown[0],
        )
    index = [net.columns.index(v) for v in variables]
    if any(row[j] >= 0 for j in index):
        raise TreelearnError(f"{variables} are both queried and given as evidence")
    sizes = [len(net.states[v]) for v in variables]
    size = int(np.prod(sizes))
    check_memory(
        8.0 * size * len(net.columns),
        f"a joint query over {variables}",
        "query fewer variables at a time",
    )
    rows = np.broadcast_to(row, (size, len(row))).copy()
    rows[:, index] = np.array(np.unravel_index(np.arange(size), sizes)).T
    log_p = log_likelihood_codes(rows, soft)
    if not np.isfinite(log_p).any():
        raise TreelearnError(f"the evidence {dict(evidence or {})} has probability zero")
    p = np.exp(log_p - logsumexp(log_p))
    labels = (
        pd.Index(net.states[variables[0]], name=variables[0])
        if len(variables) == 1
        else pd.MultiIndex.from_product([net.states[v] for v in variables], names=variables)
    )
    return pd.Series(p, index=labels, name="probability")


def cutset_page_spec(
    nets: Sequence[CutsetModel],
    weights: Sequence[float] | np.ndarray,
    query: Callable,
    title: str | None,
) -> dict:
    """The explorer page of weighted cutset networks (:mod:`treelearn.viz._page_spec`;
    ``query(v)``: the model's marginal of ``v``): one forest per leaf of every
    network, weighted by the network's weight times the path's branch probabilities,
    the path's conditioning variables fixed at its states (roots with rows of ones: the
    weight holds them) beside the leaf's tree over the rest. The leaves of one network
    are disjoint events, so ``P(evidence)`` is their weighted sum, as the model sums
    over the branches its missing conditioning variables leave open. MAP for one
    network only (an ensemble's, a mixture's, is refused, as ``map_query`` refuses
    it). Drawn: the largest leaf's tree, the other variables beside it."""
    from ..viz._page_spec import MAX_FORESTS, MAX_TABLES, forest, hover_table, label

    nets = list(nets)
    columns = list(nets[0].columns)
    index = {v: i for i, v in enumerate(columns)}
    cards = [len(nets[0].states[v]) for v in columns]
    leaves = []  # (weight, {column index: state}, leaf): every way down, its branches
    for net, weight in zip(nets, weights):
        stack: list = [(net.root, 1.0, {})]
        while stack:
            node, p, fixed = stack.pop()
            if isinstance(node, Leaf):
                leaves.append((float(weight) * p, fixed, node))
                continue
            for a, child in enumerate(node.children):
                stack.append((child, p * float(node.weights[a]), {**fixed, node.variable: a}))
    n = len(columns)
    if len(leaves) > MAX_FORESTS or len(leaves) * n > MAX_TABLES:
        raise TreelearnError(
            f"the explorer computes on this cutset network with one forest per "
            f"leaf, but it has {len(leaves):,} leaves (more than a page holds: "
            f"{MAX_FORESTS:,} forests, {MAX_TABLES:,} tables): query it in Python "
            f"(query, map_query)"
        )
    components = []
    for w, fixed, leaf in leaves:
        part = forest(leaf.tree, index) if leaf.tree is not None else {"cpt": [None] * n}
        cpt = [[[1.0] * cards[j]] if j in fixed else t for j, t in enumerate(part["cpt"])]
        components.append(
            {
                "parent": part.get("parent", [-1] * n),
                "cpt": cpt,
                "weight": w,
                "fixed": [[int(j), int(s)] for j, s in fixed.items()],
            }
        )
    trees = [leaf.tree for _, _, leaf in leaves if leaf.tree is not None]
    largest = max(trees, key=lambda t: len(t.variables), default=None)
    drawn = [-1] * n
    if largest is not None:
        for v in largest.variables:
            drawn[index[v]] = index[largest.parents(v)[0]] if largest.parents(v) else -1
    variables = []
    for v in columns:  # the hover: the variable's marginal under the model (its query)
        marginal = np.asarray(query(v), dtype=float).tolist()
        variables.append(
            {
                "name": label(v),
                "states": [label(s) for s in nets[0].states[v]],
                "cls": False,
                "cpt": hover_table([marginal], [], {}),
            }
        )
    parts = [
        f"cutset network{'' if len(nets) == 1 else f's (an ensemble of {len(nets)})'}",
        f"{n} variables",
        f"{len(leaves)} leaves",
        "drawn: the largest leaf's tree",
    ]
    return {
        "title": title if title is not None else " · ".join(parts),
        "variables": variables,
        "drawn": drawn,
        "edges": [[[drawn[i], i, "tree", 1.5, None] for i in range(n) if drawn[i] >= 0]],
        "order": list(range(n)),
        "components": components,
        "map": len(nets) == 1,
    }
