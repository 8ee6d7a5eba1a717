"""Linear-Gaussian Bayesian networks whose structure is a tree: :class:`GaussianTreeModel`.

Each variable is a linear regression on its parent, ``X_v = a_v + b_v X_pa(v) + e_v``
with ``e_v ~ N(0, s_v^2)``; the model implies a joint Gaussian ``N(mu, Sigma)``
(:func:`tree_covariance`), which :meth:`GaussianTreeModel.query` conditions
exactly (Schur complement). The learner is
:func:`treelearn.learners._gaussian_chow_liu.gaussian_chow_liu`; the statistics it
learns from are in :mod:`treelearn.stats._gaussian`.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Hashable, Iterator, Mapping, Sequence
from numbers import Integral
from typing import Any, NamedTuple, cast

import networkx as nx
import numpy as np
import pandas as pd

from .._base.errors import ColumnNotFoundError, InvalidModelError, TreelearnError
from .._base.jsonvalues import DecodeError, decode_label, encode_label
from .._base.limits import check_memory
from .._base.validation import RANDOM_STATE, Interval, check_param
from ..sources._kinds import numeric_matrix
from ._base import Model, rows_text, tree_lines

__all__ = ["GaussianQuery", "GaussianTreeModel", "tree_covariance"]

_LOG_2PI = math.log(2 * math.pi)

#: what ``random_state`` may be, wherever a model samples


def tree_covariance(
    parent: np.ndarray, coefficient: np.ndarray, variance: np.ndarray
) -> np.ndarray:
    """The covariance a linear-Gaussian forest implies, ``(..., d, d)``.

    ``parent[j]`` is the index of ``x_j``'s parent (``-1`` or ``j`` itself for a root);
    ``coefficient`` and ``variance`` are ``(..., d)`` (a leading axis, e.g. one per class,
    is a batch). ``x = a + B x + e`` gives ``Sigma = (I - B)^-1 D (I - B)^-T``.

    >>> tree_covariance(np.array([-1, 0]), np.array([0.0, 2.0]), np.array([1.0, 1.0])).tolist()
    [[1.0, 2.0], [2.0, 5.0]]
    """
    parent = np.asarray(parent)
    coefficient, variance = np.asarray(coefficient, float), np.asarray(variance, float)
    d = len(parent)
    children = np.flatnonzero((parent >= 0) & (parent != np.arange(d)))
    A = np.broadcast_to(np.eye(d), coefficient.shape[:-1] + (d, d)).copy()
    A[..., children, parent[children]] = -coefficient[..., children]
    inv = np.linalg.solve(A, np.broadcast_to(np.eye(d), A.shape))
    cov = (inv * variance[..., None, :]) @ np.swapaxes(inv, -1, -2)
    return (cov + np.swapaxes(cov, -1, -2)) / 2


# ---------------------------------------------------------------------- the model
class GaussianQuery(NamedTuple):
    """The conditional distribution of a query: its ``mean`` (Series) and ``covariance`` (DataFrame).

    See Also
    --------
    GaussianTreeModel : whose ``query`` returns it.
    GaussianMixtureQuery : a CLG tree's query.

    Examples
    --------
    In a two-variable tree, ``b`` given ``a`` is the least-squares line at ``a``:

    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> df = pd.DataFrame({"a": [0.0, 1, 2, 4], "b": [1.0, 2, 2, 5]})
    >>> q = tl.gaussian_chow_liu(df).query(["b"], evidence={"a": 2.0})
    >>> slope, intercept = np.polyfit(df["a"], df["b"], 1)
    >>> bool(np.isclose(q.mean["b"], intercept + slope * 2.0))
    True
    >>> q.covariance.shape
    (1, 1)
    """

    mean: pd.Series
    covariance: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """Each variable's conditional mean, **variance** and standard deviation, one row per
        variable (the index named ``variable``): how every query result prints (a discrete
        posterior's ``to_frame`` is its states and probabilities).

        >>> q = GaussianQuery(pd.Series([1.0], index=["x"]), pd.DataFrame([[4.0]], ["x"], ["x"]))
        >>> q.to_frame().reset_index().to_dict("records")
        [{'variable': 'x', 'mean': 1.0, 'variance': 4.0, 'sd': 2.0}]
        """
        variance = np.clip(np.diag(self.covariance.to_numpy()), 0.0, None)  # round-off
        return pd.DataFrame(
            {"mean": self.mean.to_numpy(), "variance": variance, "sd": np.sqrt(variance)},
            index=pd.Index(self.mean.index, name="variable"),
        )


def _evidence_value(v: Hashable, value: Any) -> float:
    """One piece of Gaussian evidence: a finite real number (NaN would give NaN means), or
    text spelling one (as the command line gives it)."""
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = float(value)
    if (
        not isinstance(value, (int, float, np.integer, np.floating))
        or isinstance(value, (bool, np.bool_))
        or not math.isfinite(float(value))
    ):
        raise TreelearnError(
            f"evidence {v!r} == {value!r:.60}: Gaussian evidence must be a "
            f"finite number; leave a variable out of the evidence to have it "
            f"unobserved",
            column=v,
            values=[value],
        )
    return float(value)


class GaussianTreeModel(Model):
    """A linear-Gaussian Bayesian network whose structure is a tree (or forest).

    ``graph`` is a NetworkX DiGraph; each node carries ``intercept``,
    ``coefficient`` (on its parent; ``None`` for a root) and ``variance`` (of
    the residual), so ``X_v | X_pa = x ~ N(intercept + coefficient * x, variance)``.
    Edges carry ``weight``, the Gaussian mutual information in nats.

    Learned by :func:`treelearn.gaussian_chow_liu`.

    Parameters
    ----------
    graph : networkx.DiGraph
        The tree, its nodes and edges carrying the attributes above.
    n_rows : float, default=None
        Rows learned from.
    settings : dict, default=None
        How it was learned.

    See Also
    --------
    gaussian_chow_liu : learns one.
    GaussianQuery : what a query returns.
    CLGTreeModel : discrete and continuous variables together.

    References
    ----------
    .. [1] Chow, C. K. and Liu, C. N. (1968). Approximating discrete probability
       distributions with dependence trees. IEEE Transactions on Information Theory
       14(3), 462-467.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> m = tl.gaussian_chow_liu(pd.DataFrame({"a": [0.0, 1, 2, 4], "b": [1.0, 2, 2, 5]}))
    >>> print(m)  # b's slope 2.125 / 2.1875, residual 2.25 - 2.125**2 / 2.1875: by hand
    GaussianTreeModel: 2 variables, 1 edge, root 'a', learned from 4 rows
    a ~ N(mean 1.75, variance 2.188)
    └── b ~ N(mean 0.8 + 0.9714 * a, variance 0.1857)  [MI 1.2472]
    """

    kind = "gaussian_tree"
    capabilities = frozenset(
        {"score", "sample", "sample_given", "query", "predict", "draw", "explorer", "to_pgmpy"}
    )

    def __init__(
        self, graph: nx.DiGraph, n_rows: float | None = None, settings: dict | None = None
    ) -> None:
        for v in graph.nodes:
            if graph.in_degree(v) > 1:
                raise InvalidModelError(
                    f"variable {v!r} has {graph.in_degree(v)} parents; "
                    "a Gaussian tree allows at most one"
                )
            attrs = graph.nodes[v]
            has_parent = graph.in_degree(v) == 1
            for key in ("intercept", "variance", *(("coefficient",) if has_parent else ())):
                value = attrs.get(key)
                if (
                    not isinstance(value, (int, float))
                    or isinstance(value, bool)
                    or not math.isfinite(value)
                ):
                    raise InvalidModelError(
                        f"variable {v!r}: {key} must be a finite number, not {value!r}"
                    )
            if attrs["variance"] <= 0:
                raise InvalidModelError(f"variable {v!r}: the variance must be > 0")
            if has_parent != (attrs.get("coefficient") is not None):
                raise InvalidModelError(
                    f"variable {v!r}: a coefficient is needed exactly when it has a parent"
                )
        self.graph = graph
        self.variables = list(graph.nodes)
        self.n_rows = n_rows
        self.settings = dict(settings or {"method": "gaussian-chow-liu"})
        order = {v: j for j, v in enumerate(self.variables)}
        roots = graph.graph.get("roots") or [v for v in self.variables if graph.in_degree(v) == 0]
        self.roots = list(roots)
        self._index = order
        parent = np.arange(len(self.variables))
        coef = np.zeros(len(self.variables))
        for v in self.variables:
            ps = list(graph.predecessors(v))
            if ps:
                parent[order[v]] = order[ps[0]]
                coef[order[v]] = graph.nodes[v]["coefficient"]
        self._parent = parent
        self._coef = coef
        self._intercept = np.array([graph.nodes[v]["intercept"] for v in self.variables], float)
        self._variance = np.array([graph.nodes[v]["variance"] for v in self.variables], float)

    # -------------------------------------------------------------- structure
    def parents(self, v: Hashable) -> list:
        """The parent of ``v`` as a list (empty for a root)."""
        return list(self.graph.predecessors(v))

    @property
    def root(self) -> Hashable:
        return self.roots[0]

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`): each variable's regression
        on its parent, conditioned in the page by Gaussian message passing; a number's
        ``data-marginal`` is ``[mean, variance]`` (``moments``). Each slider spans the prior
        mean +- 4 prior sds; each edge's strength ``I(parent; child) = -log(1 - rho^2) / 2``
        from the model's own variances. No side panel and no MAP (a Gaussian's MAP is its
        mean)."""
        from ..viz._page_spec import label, parent_first, regressions, title_of

        variables = self.variables
        index = {v: i for i, v in enumerate(variables)}
        parent = {v: (self.parents(v) or [None])[0] for v in variables}
        gauss = regressions(self, index, parent, variables)
        order = parent_first(parent)
        mean: dict = {}
        var: dict = {}
        for v in order:  # the prior moments: Var(v) = b^2 Var(p) + s2
            g, p = gauss[index[v]], parent[v]
            mean[v] = g["a"] + g["b"] * (mean[p] if p is not None else 0.0)
            var[v] = g["b"] * g["b"] * (var[p] if p is not None else 0.0) + g["s2"]
        edges = []
        for v in variables:
            p = parent[v]
            if p is not None:
                b = gauss[index[v]]["b"]
                rho2 = min(b * b * var[p] / var[v], 1.0)  # <= 1 up to round-off
                mi = -0.5 * float(np.log1p(-rho2)) if rho2 < 1.0 else None
                edges.append([index[p], index[v], "tree", round(1.0 + 3.0 * rho2, 2), mi])
        sd = {v: float(np.sqrt(var[v])) for v in variables}
        n = len(variables)
        parts = [f"{n} variable{'' if n == 1 else 's'}"]
        return {
            "title": title if title is not None else title_of("Gaussian tree", parts, self.n_rows),
            "variables": [
                {
                    "name": label(v),
                    "states": [],
                    "cls": False,
                    "range": [mean[v] - 4 * sd[v], mean[v] + 4 * sd[v]],
                }
                for v in variables
            ],
            "drawn": [index[parent[v]] if parent[v] is not None else -1 for v in variables],
            "edges": [edges],
            "order": [index[v] for v in order],
            "gauss": gauss,
            "moments": True,
            "panel": False,
            "map": False,
        }

    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then the tree: each variable's Gaussian given its parent (its mean
        as a regression on the parent, and the residual **variance**), the MI on each edge."""
        n_edges = self.graph.number_of_edges()
        rows = f", learned from {rows_text(self.n_rows)} rows" if self.n_rows is not None else ""
        where = f"root {self.roots[0]!r}" if len(self.roots) == 1 else f"roots {self.roots!r}"
        yield (
            f"GaussianTreeModel: {len(self.variables)} variables, {n_edges} "
            f"edge{'' if n_edges == 1 else 's'}, {where}{rows}"
        )
        g = f".{digits}g"

        def label(v: Hashable, parent: Hashable | None) -> str:
            a = self.graph.nodes[v]
            mean = format(a["intercept"], g)
            if parent is not None:
                mean += f" + {format(a['coefficient'], g)} * {parent}"
            text = f"{v} ~ N(mean {mean}, variance {format(a['variance'], g)})"
            weight = self.graph.edges[parent, v].get("weight") if parent is not None else None
            return text + (f"  [MI {weight:.{digits}f}]" if weight is not None else "")

        parent_of = {v: (self.parents(v) or [None])[0] for v in self.variables}
        yield from tree_lines(self.roots, parent_of, label)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GaussianTreeModel):
            return NotImplemented
        return (
            self.variables == other.variables
            and sorted(map(repr, self.graph.edges)) == sorted(map(repr, other.graph.edges))
            and np.array_equal(self._intercept, other._intercept)
            and np.array_equal(self._coef, other._coef)
            and np.array_equal(self._variance, other._variance)
        )

    __hash__ = None  # type: ignore[assignment]

    @property
    def n_parameters(self) -> int:
        """Free parameters: an intercept and a variance per variable, a coefficient per edge."""
        return 2 * len(self.variables) + self.graph.number_of_edges()

    # -------------------------------------------------------------- the joint Gaussian
    def _topological(self) -> list[int]:
        return [self._index[v] for v in nx.topological_sort(self.graph)]

    def joint(self) -> tuple[pd.Series, pd.DataFrame]:
        """The implied joint Gaussian: mean (Series) and covariance (DataFrame), in column order.

        ``X = a + B X + e`` gives ``mu = (I - B)^-1 a`` and ``Sigma = (I - B)^-1 D (I - B)^-T``.
        """
        d = len(self.variables)
        A = np.eye(d)
        children = np.flatnonzero(self._parent != np.arange(d))
        A[children, self._parent[children]] = -self._coef[children]
        mean = np.linalg.solve(A, self._intercept)
        cov = tree_covariance(self._parent, self._coef, self._variance)
        return (
            pd.Series(mean, index=self.variables),
            pd.DataFrame(cov, index=self.variables, columns=self.variables),
        )

    # -------------------------------------------------------------- scores
    def _matrix(self, data: Any) -> np.ndarray:
        names, X = numeric_matrix(data, learner="GaussianTreeModel")
        missing = [v for v in self.variables if v not in names]
        if missing:
            raise ColumnNotFoundError(
                f"the data lacks the model's column(s) {missing}", column=missing[0]
            )
        pos = {c: j for j, c in enumerate(names)}
        return X[:, [pos[v] for v in self.variables]]

    def score_samples(self, X: Any) -> np.ndarray:
        """``log p(x)`` of each row in nats (every model column needed, others ignored)."""
        return self.log_density(self._matrix(X))

    def log_density(self, X: np.ndarray) -> np.ndarray:
        """``log p(x)`` of complete rows of a float matrix in :attr:`variables` order."""
        resid = X[:, self._parent]  # a copy, worked on in place (one (n, d) temporary)
        resid *= -self._coef
        resid += X
        resid -= self._intercept
        resid *= resid
        constant = -0.5 * float(np.sum(_LOG_2PI + np.log(self._variance)))
        return resid @ (-0.5 / self._variance) + constant

    # -------------------------------------------------------------- sampling and queries
    def sample(
        self,
        n: int,
        random_state: Any = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
    ) -> pd.DataFrame:
        """``n`` rows in column order: by ancestral sampling (parents first), or exactly
        from the conditional Gaussian given ``evidence`` (``{column: number}``; those
        columns hold the given values). ``numbers``: every value is a number already (no
        column is binned), as the discrete models' ``sample(numbers=True)`` gives them.

        >>> import pandas as pd, treelearn as tl
        >>> m = tl.gaussian_chow_liu(pd.DataFrame({"a": [0., 1, 2, 4], "b": [1., 2, 2, 5]}))
        >>> m.sample(3, random_state=0).shape
        (3, 2)
        >>> m.sample(2, random_state=0, evidence={"a": 1.0})["a"].tolist()
        [1.0, 1.0]
        """
        n = check_param("n", n, [Interval(Integral, 0, None)])
        random_state = check_param("random_state", random_state, RANDOM_STATE)
        d = len(self.variables)
        check_memory(
            2 * n * max(d, 1) * 8,
            f"sampling n={n} rows of {d} variables",
            "sample fewer rows at a time (e.g. in a loop of 1,000,000)",
        )
        rng = np.random.default_rng(random_state)
        if evidence:
            return self._sample_given(n, rng, evidence)
        X = np.empty((n, d))
        noise = rng.standard_normal((n, d)) * np.sqrt(self._variance)
        for j in self._topological():  # one column per step, all rows at once
            X[:, j] = self._intercept[j] + noise[:, j]
            if self._parent[j] != j:
                X[:, j] += self._coef[j] * X[:, self._parent[j]]
        return pd.DataFrame(X, columns=self.variables)

    def _sample_given(
        self, n: int, rng: np.random.Generator, evidence: Mapping[Hashable, Any]
    ) -> pd.DataFrame:
        free = [v for v in self.variables if v not in evidence]
        out = pd.DataFrame(index=range(n))
        if free:
            q = self.query(free, evidence)
            # the conditional Gaussian by its eigen-decomposition: clipped, as a covariance
            # is positive semi-definite and round-off can leave -1e-17 eigenvalues
            w, U = np.linalg.eigh(q.covariance.to_numpy())
            scale = np.sqrt(np.clip(w, 0, None))
            draws = q.mean.to_numpy() + (rng.standard_normal((n, len(free))) * scale) @ U.T
            out = pd.DataFrame(draws, columns=free)
        for v, value in evidence.items():
            out[v] = _evidence_value(v, value)
        return out[self.variables]

    def predict(self, X: Any, target: Hashable) -> pd.Series:
        """``E[target | the row's other observed columns]`` for every row: the conditional
        Gaussian's mean, ``mu_t + S_to S_oo^-1 (x_o - mu_o)``, one solve per pattern of
        observed columns (a missing cell, NaN, is integrated out; columns that are not
        variables are ignored).

        >>> import pandas as pd, treelearn as tl
        >>> df = pd.DataFrame({"a": [0.0, 1, 2, 4], "b": [1.0, 2, 2, 5]})
        >>> m = tl.gaussian_chow_liu(df)
        >>> m.predict(df, "b").round(4).tolist()  # 0.8 + (2.125 / 2.1875) a, by hand
        [0.8, 1.7714, 2.7429, 4.6857]
        """
        if target not in self._index:
            raise ColumnNotFoundError(
                f"target {target!r} is not a variable of the model; the variables are "
                f"{self.variables}",
                column=target,
            )
        others = [v for v in self.variables if v != target]
        if isinstance(X, pd.DataFrame):  # columns that are not variables are ignored
            X = X[[c for c in X.columns if c in self._index]]
        names, values = numeric_matrix(X, learner="GaussianTreeModel")
        absent = [v for v in others if v not in names]
        if absent:
            raise ColumnNotFoundError(
                f"predicting {target!r} needs the model's other columns; the data lacks "
                f"{absent[:10]}",
                column=absent[0],
            )
        pos = {c: j for j, c in enumerate(names)}
        M = values[:, [pos[v] for v in others]]
        mu, S = self.joint()
        mean = np.full(len(M), mu[target])
        observed = ~np.isnan(M)
        patterns, which = np.unique(observed, axis=0, return_inverse=True)
        which = np.asarray(which).ravel()
        for k, pattern in enumerate(patterns):
            if not pattern.any():
                continue
            seen = [v for v, o in zip(others, pattern) if o]
            K = np.linalg.solve(S.loc[seen, seen].to_numpy(), S.loc[seen, target].to_numpy())
            rows = which == k
            mean[rows] += (M[np.ix_(rows, pattern)] - mu[seen].to_numpy()) @ K
        index = X.index if isinstance(X, pd.DataFrame) else None
        return pd.Series(mean, index=index, name=target)

    def predict_proba(self, X: Any, target: Hashable) -> pd.DataFrame:
        """Refused: every variable of a Gaussian tree is a number, with no states to give
        probabilities of; :meth:`predict` gives its conditional mean, :meth:`query` its
        conditional Gaussian."""
        raise TreelearnError(
            f"{target!r} is a Gaussian variable: it has no states to give probabilities of; "
            f"predict(X, {target!r}) gives its conditional mean given each row",
            column=target,
        )

    def query(
        self,
        variables: Sequence[Hashable] | Hashable,
        evidence: Mapping[Hashable, Any] | None = None,
    ) -> GaussianQuery:
        """The exact conditional Gaussian of ``variables`` (one name or a list) given
        ``evidence`` (``{column: value}``).

        ``mean = mu_q + S_qe S_ee^-1 (e - mu_e)``, ``cov = S_qq - S_qe S_ee^-1 S_eq``.

        >>> import pandas as pd, treelearn as tl
        >>> m = tl.gaussian_chow_liu(pd.DataFrame({"a": [0.0, 1, 2, 4], "b": [1.0, 2, 2, 5]}))
        >>> m.query("b", {"a": 2.0}).mean.round(4).tolist()   # 0.8 + 0.9714 * 2, as printed
        [2.7429]
        """
        evidence = dict(evidence or {})
        single = isinstance(variables, Hashable) and (
            not isinstance(variables, tuple) or variables in self._index  # a tuple name
        )
        variables = [variables] if single else list(cast(Sequence[Hashable], variables))
        for v in [*variables, *evidence]:
            if v not in self._index:
                raise ColumnNotFoundError(
                    f"{v!r} is not a variable of the model; the variables are {self.variables}",
                    column=v,
                )
        both = set(variables) & set(evidence)
        if both:
            raise TreelearnError(
                f"{sorted(map(repr, both))} are both queried and given as "
                "evidence; ask for each variable once"
            )
        mu, S = self.joint()
        q, e = variables, list(evidence)
        mean = mu[q].to_numpy()
        cov = S.loc[q, q].to_numpy()
        if e:
            values = np.array([_evidence_value(v, evidence[v]) for v in e])
            S_qe = S.loc[q, e].to_numpy()
            K = np.linalg.solve(S.loc[e, e].to_numpy(), S_qe.T).T  # S_qe S_ee^-1
            mean = mean + K @ (values - mu[e].to_numpy())
            cov = cov - K @ S_qe.T
            cov = (cov + cov.T) / 2
        return GaussianQuery(pd.Series(mean, index=q), pd.DataFrame(cov, index=q, columns=q))

    # -------------------------------------------------------------- adapters
    def to_pgmpy(self) -> Any:
        """A pgmpy ``LinearGaussianBayesianNetwork`` with one ``LinearGaussianCPD`` per variable."""
        from pgmpy.factors.continuous import LinearGaussianCPD
        from pgmpy.models import LinearGaussianBayesianNetwork

        net = LinearGaussianBayesianNetwork()
        net.add_nodes_from(self.variables)
        net.add_edges_from(self.graph.edges)
        cpds = []
        for j, v in enumerate(self.variables):
            ps = self.parents(v)
            beta = [self._intercept[j], *([self._coef[j]] if ps else [])]
            cpds.append(LinearGaussianCPD(v, beta, math.sqrt(self._variance[j]), ps))
        net.add_cpds(*cpds)
        return net

    @classmethod
    def from_pgmpy(cls, network: Any) -> GaussianTreeModel:
        """A model from a pgmpy ``LinearGaussianBayesianNetwork`` whose variables have <= 1 parent."""
        G = nx.DiGraph()
        G.add_nodes_from(network.nodes)
        for v in network.nodes:
            cpd = network.get_cpds(v)
            if cpd is None:
                raise InvalidModelError(f"variable {v!r} has no CPD in the pgmpy network")
            beta = np.asarray(cpd.beta, dtype=float).ravel()
            ev = list(cpd.evidence)
            if len(ev) > 1:
                raise InvalidModelError(
                    f"variable {v!r} has {len(ev)} parents; a Gaussian tree allows at most one"
                )
            G.nodes[v].update(
                intercept=float(beta[0]),
                coefficient=float(beta[1]) if ev else None,
                variance=float(cpd.std) ** 2,
            )
            if ev:
                G.add_edge(ev[0], v)
        return cls(G, settings={"method": "pgmpy"})

    # -------------------------------------------------------------- files
    def to_dict(self) -> dict:
        """A JSON-ready dict (labels keep their types); :meth:`from_dict` inverts it."""
        return {
            "variables": [encode_label(v) for v in self.variables],
            "roots": [encode_label(v) for v in self.roots],
            "n_rows": self.n_rows,
            "settings": {"method": str(self.settings.get("method", "gaussian-chow-liu"))},
            "nodes": [
                {
                    "parent": encode_label(self.parents(v)[0]) if self.parents(v) else None,
                    **{k: self.graph.nodes[v][k] for k in ("intercept", "coefficient", "variance")},
                }
                for v in self.variables
            ],
            "weights": [self.graph.edges[u, v].get("weight") for u, v in self.graph.edges],
            "edges": [[encode_label(u), encode_label(v)] for u, v in self.graph.edges],
        }

    @classmethod
    def from_dict(cls, d: Any) -> GaussianTreeModel:
        """The model :meth:`to_dict` describes, every field checked: the variables distinct
        (one at least), each edge between two of them (no self-loop, no repeat), the edges a
        forest (no cycle), each node's ``parent`` the source of its edge, the ``roots`` the
        variables without a parent, and the weights numbers. Anything else raises
        :class:`~treelearn.InvalidModelError` naming the field.
        """
        try:
            variables = [decode_label(v) for v in d["variables"]]
            if not variables or len(set(variables)) != len(variables):
                raise InvalidModelError(
                    f"Gaussian tree file: 'variables' must list one variable at least, each "
                    f"once, not {variables[:10]!r}"
                )
            known = set(variables)
            G = nx.DiGraph()
            for v, node in zip(variables, d["nodes"], strict=True):
                G.add_node(
                    v,
                    intercept=node["intercept"],
                    coefficient=node["coefficient"],
                    variance=node["variance"],
                )
            for (u, v), w in zip(d["edges"], d["weights"], strict=True):
                u, v = decode_label(u), decode_label(v)
                where = f"Gaussian tree file: the edge {u!r} -> {v!r} in 'edges'"
                if u not in known or v not in known:
                    raise InvalidModelError(f"{where} joins a node that is not in 'variables'")
                if u == v or G.has_edge(u, v):
                    raise InvalidModelError(f"{where} is a self-loop or a repeat")
                if w is not None and (
                    not isinstance(w, (int, float)) or isinstance(w, bool) or not math.isfinite(w)
                ):
                    raise InvalidModelError(f"{where}: its entry in 'weights' is {w!r}, no number")
                G.add_edge(u, v, **({"weight": w} if w is not None else {}))
            if not nx.is_directed_acyclic_graph(G):
                raise InvalidModelError(
                    f"Gaussian tree file: 'edges' form a cycle: {nx.find_cycle(G)}"
                )
            for v, node in zip(variables, d["nodes"], strict=True):
                parent = node.get("parent")
                parent = None if parent is None else decode_label(parent)
                listed = next(iter(G.predecessors(v)), None)
                if parent != listed:
                    raise InvalidModelError(
                        f"Gaussian tree file: variable {v!r} has the 'parent' {parent!r} but "
                        f"'edges' give it {listed!r}"
                    )
            roots = [decode_label(v) for v in d["roots"]]
            parentless = [v for v in variables if G.in_degree(v) == 0]
            if sorted(map(repr, roots)) != sorted(map(repr, parentless)):
                raise InvalidModelError(
                    f"Gaussian tree file: 'roots' {roots[:10]!r} must be the variables without "
                    f"a parent, {parentless[:10]!r}"
                )
            G.graph["roots"] = roots
            return cls(G, n_rows=d.get("n_rows"), settings=d.get("settings"))
        except (KeyError, TypeError, ValueError, AttributeError, DecodeError) as exc:
            if isinstance(exc, InvalidModelError):
                raise
            raise InvalidModelError(f"Gaussian tree file: bad contents ({exc})") from None
