"""Gaussian Chow-Liu trees: linear-Gaussian Bayesian networks on numeric columns.

For jointly Gaussian variables the mutual information of a pair is a function
of its correlation, ``I(X_i; X_j) = -1/2 log(1 - rho_ij^2)``, so the Chow-Liu
tree (the maximum-likelihood tree) is the maximum spanning tree of that matrix,
chosen by the same :func:`~treelearn.structure._trees.spanning_skeleton` and
:func:`~treelearn.structure._trees.orient` the categorical learner uses. With the tree
fixed, each variable's maximum-likelihood CPD is the least-squares regression on
its parent: ``X_v = a_v + b_v X_pa(v) + e_v``, ``e_v ~ N(0, s_v^2)`` (``s_v^2``
the mean squared residual, divisor n). The sufficient statistics are the
(weighted) mean vector and covariance matrix, one matrix product for all pairs.

The model implies a joint Gaussian ``N(mu, Sigma)``; :meth:`GaussianTreeModel.query`
conditions it exactly (Schur complement).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import networkx as nx
import numpy as np
import pandas as pd

from .._base.errors import (
    ColumnNotFoundError,
    EmptyDataError,
    InvalidModelError,
    MissingValuesError,
    TreelearnError,
)
from .._base.jsonvalues import decode_label, encode_label
from ..encoding._table import check_sample_weight, python_scalar
from ..export._jsonfile import save_document
from ..sources._count import class_labels
from ..structure._trees import orient, spanning_skeleton
from ..viz import _draw as drawing

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "GaussianQuery",
    "GaussianStatistics",
    "GaussianTreeModel",
    "check_constant_columns",
    "gaussian_chow_liu",
    "gaussian_mutual_information",
    "gaussian_statistics",
    "numeric_classes",
    "numeric_matrix",
    "tree_covariance",
]

_LOG_2PI = math.log(2 * math.pi)


# ---------------------------------------------------------------------- input
def numeric_matrix(data: Any, where: str = "this model") -> tuple[list, np.ndarray]:
    """``(column names, float64 array)`` of a table of numeric columns; the input is not changed.

    A 2-D array gets the names ``x0, x1, ...``. A column that is not numeric
    (text, categories, dates, booleans) or holds a missing or infinite value
    raises a :class:`~treelearn.TreelearnError` naming it.

    >>> names, X = numeric_matrix(pd.DataFrame({"a": [1, 2], "b": [0.5, 1.5]}))
    >>> names, X.tolist()
    (['a', 'b'], [[1.0, 0.5], [2.0, 1.5]])
    >>> numeric_matrix(pd.DataFrame({"a": [1.0], "c": [True]}))
    Traceback (most recent call last):
    ...
    treelearn.TreelearnError: column 'c' is not numeric (dtype bool); this model needs numeric columns only: drop it, or encode it as numbers
    """
    if hasattr(data, "toarray"):
        raise TreelearnError(
            f"{where} needs a dense table of numbers, not a sparse matrix; use X.toarray() "
            "for a small one"
        )
    if not isinstance(data, pd.DataFrame):
        array = np.asarray(data)
        if array.ndim != 2:
            raise TreelearnError(
                f"X must be 2-D (rows x columns), got an array of shape {array.shape}; "
                "reshape a single column with X.reshape(-1, 1)"
            )
        if array.dtype.kind in "iuf":  # a plain numeric array: no table to inspect
            return [f"x{j}" for j in range(array.shape[1])], _finite(
                np.asarray(array, dtype=float), [f"x{j}" for j in range(array.shape[1])])
        data = pd.DataFrame(array, columns=[f"x{j}" for j in range(array.shape[1])], copy=False)
    names = list(data.columns)
    if len(set(names)) != len(names):
        dup = next(c for c in names if names.count(c) > 1)
        raise TreelearnError(f"column {dup!r} appears twice; give every column its own name",
                             column=dup)
    for name, dtype in data.dtypes.items():
        if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            raise TreelearnError(
                f"column {name!r} is not numeric (dtype {dtype}); {where} needs numeric columns "
                "only: drop it, or encode it as numbers",
                column=name,
                hint="drop the column or encode it as numbers",
            )
    # to_numpy(dtype=float) of a table makes a new array: the caller's data is untouched
    return names, _finite(data.to_numpy(dtype=float, na_value=np.nan), names)



def numeric_classes(X: Any, y: Any, sample_weight: Any = None, where: str = "this model") -> tuple:
    """What a Gaussian classifier fits from: ``(names, A, classes, codes, w, weight)``.

    ``A`` is :func:`numeric_matrix` of ``X``, ``codes`` each row's class index into
    ``classes``, ``w`` the row weights (ones without ``sample_weight``) and
    ``weight`` each class's total weight. A class of total weight 0 raises a
    :class:`~treelearn.TreelearnError` naming it (its mean would be 0/0).

    >>> names, A, classes, codes, w, weight = numeric_classes([[1.0], [2.0], [4.0]], ["a", "b", "b"])
    >>> classes.tolist(), codes.tolist(), weight.tolist()
    (['a', 'b'], [0, 1, 1], [1.0, 2.0])
    """
    names, A = numeric_matrix(X, where)
    n = A.shape[0]
    classes, codes, _ = class_labels(y, n)
    w = check_sample_weight(sample_weight, n)
    w = np.ones(n) if w is None else w
    weight = np.bincount(codes, weights=w, minlength=len(classes))
    if (weight <= 0).any():
        c = python_scalar(classes[int(np.flatnonzero(weight <= 0)[0])])
        raise TreelearnError(f"class {c!r} has total weight 0; drop it or weight its rows",
                             values=[c])
    return names, A, classes, codes, w, weight

def _finite(X: np.ndarray, names: list) -> np.ndarray:
    """``X`` if every value is finite; else an error naming the first bad column."""
    if np.isfinite(X.sum(axis=0)).all():  # one pass; NaN or inf anywhere shows in the sums
        return X
    bad = ~np.isfinite(X)
    if bad.any():
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        rows = np.flatnonzero(bad[:, j])
        kind = "missing" if np.isnan(X[rows[0], j]) else "infinite"
        cls = MissingValuesError if kind == "missing" else TreelearnError
        raise cls(
            f"column {names[j]!r} has {len(rows)} {kind} value(s) (rows {rows[:5].tolist()}"
            f"{', ...' if len(rows) > 5 else ''}); drop those rows or fill them in",
            column=names[j],
        )
    return X


class GaussianStatistics(NamedTuple):
    """Sufficient statistics of a Gaussian: total weight ``n``, ``mean`` and ML ``covariance``."""

    variables: list
    n: float
    mean: np.ndarray
    covariance: np.ndarray


def gaussian_statistics(data: Any, sample_weight: Any = None) -> GaussianStatistics:
    """Weighted mean vector and maximum-likelihood covariance (divisor: the total weight).

    All pairs come from one matrix product of the centred, weighted rows.

    >>> s = gaussian_statistics(pd.DataFrame({"a": [0.0, 2.0], "b": [1.0, 1.0]}))
    >>> s.n, s.mean.tolist(), s.covariance.tolist()
    (2.0, [1.0, 1.0], [[1.0, 0.0], [0.0, 0.0]])
    """
    names, X = numeric_matrix(data)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise EmptyDataError(f"the data has {X.shape[0]} rows and {X.shape[1]} columns")
    w = check_sample_weight(sample_weight, X.shape[0])
    if w is None:
        n = float(X.shape[0])
        mean = X.mean(axis=0)
        centred = X - mean
        cov = centred.T @ centred / n
    else:
        n = float(w.sum())
        mean = w @ X / n
        centred = X - mean
        cov = (centred * w[:, None]).T @ centred / n
    cov = (cov + cov.T) / 2  # exactly symmetric
    return GaussianStatistics(names, n, mean, cov)


def tree_covariance(parent: np.ndarray, coefficient: np.ndarray,
                    variance: np.ndarray) -> np.ndarray:
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


def gaussian_mutual_information(covariance: np.ndarray) -> np.ndarray:
    """``-1/2 log(1 - rho^2)`` for every pair (nats), from a covariance matrix; zero diagonal.

    >>> gaussian_mutual_information(np.array([[1.0, 0.6], [0.6, 1.0]])).round(4).tolist()
    [[0.0, 0.2231], [0.2231, 0.0]]
    """
    cov = np.asarray(covariance, dtype=float)
    sd = np.sqrt(np.diag(cov))
    rho2 = np.clip((cov / np.outer(sd, sd)) ** 2, 0.0, 1.0)
    with np.errstate(divide="ignore"):
        mi = -0.5 * np.log1p(-rho2)
    np.fill_diagonal(mi, 0.0)
    return mi


def check_constant_columns(stats: GaussianStatistics) -> None:
    """A TreelearnError naming the first column whose variance is 0 (relative to its mean's
    size): it has no density and no correlation with anything."""
    var = np.diag(stats.covariance)
    scale = np.maximum(np.abs(stats.mean), 1.0)
    flat = var <= (1e-12 * scale) ** 2
    if flat.any():
        name = stats.variables[int(np.flatnonzero(flat)[0])]
        raise TreelearnError(
            f"column {name!r} is constant (variance 0): a Gaussian on it has no density; "
            "drop the column",
            column=name,
            hint="drop the column",
        )


# ---------------------------------------------------------------------- learning
def gaussian_chow_liu(
    data: Any, root: Hashable | None = None, sample_weight: Any = None
) -> GaussianTreeModel:
    """Learn the maximum-likelihood linear-Gaussian tree of the numeric columns of ``data``.

    The tree is the maximum spanning tree of ``-1/2 log(1 - rho^2)`` (ties broken
    by column order, as for :func:`~treelearn.chow_liu`), rooted at ``root``
    (default: the first column); each variable is regressed on its parent by
    (weighted) least squares.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=500)
    >>> b = 2 * a + rng.normal(size=500)
    >>> df = pd.DataFrame({"a": a, "b": b, "c": b - 1 + rng.normal(size=500)})
    >>> m = tl.gaussian_chow_liu(df)
    >>> sorted(m.graph.edges())
    [('a', 'b'), ('b', 'c')]
    >>> round(m.graph.nodes["c"]["coefficient"], 1)
    1.0
    >>> mean, cov = m.query(["a"], evidence={"c": 3.0})
    """
    stats = gaussian_statistics(data, sample_weight)
    return gaussian_chow_liu_from_statistics(stats, root)


def gaussian_chow_liu_from_statistics(
    stats: GaussianStatistics, root: Hashable | None = None
) -> GaussianTreeModel:
    """:func:`gaussian_chow_liu` from a mean vector and ML covariance matrix."""
    check_constant_columns(stats)
    names = stats.variables
    if root is not None and root not in names:
        raise ColumnNotFoundError(f"root {root!r} is not a column; the columns are {names}",
                                  column=root)
    mi = gaussian_mutual_information(stats.covariance)
    tree = orient(spanning_skeleton(names, mi, n=stats.n), root)
    index = {v: j for j, v in enumerate(names)}
    cov, mean = stats.covariance, stats.mean
    G = nx.DiGraph()
    G.graph.update(tree.graph)
    for v in names:  # the columns' order, not the tree's
        j = index[v]
        parents = list(tree.predecessors(v))
        if parents:
            i = index[parents[0]]
            b = cov[i, j] / cov[i, i]
            a = mean[j] - b * mean[i]
            s2 = cov[j, j] - b * cov[i, j]
            if s2 <= 1e-12 * cov[j, j]:
                raise TreelearnError(
                    f"columns {parents[0]!r} and {v!r} are perfectly correlated: one is a linear "
                    f"function of the other and the Gaussian has no density; drop one of them",
                    column=v,
                    hint=f"drop {v!r} or {parents[0]!r}",
                )
            G.add_node(v, intercept=float(a), coefficient=float(b), variance=float(s2))
        else:
            G.add_node(v, intercept=float(mean[j]), coefficient=None, variance=float(cov[j, j]))
    G.add_edges_from(tree.edges(data=True))
    return GaussianTreeModel(G, n_rows=stats.n)


# ---------------------------------------------------------------------- the model
class GaussianQuery(NamedTuple):
    """The conditional distribution of a query: its ``mean`` (Series) and ``covariance`` (DataFrame)."""

    mean: pd.Series
    covariance: pd.DataFrame


class GaussianTreeModel:
    """A linear-Gaussian Bayesian network whose structure is a tree (or forest).

    ``graph`` is a NetworkX DiGraph; each node carries ``intercept``,
    ``coefficient`` (on its parent; ``None`` for a root) and ``variance`` (of
    the residual), so ``X_v | X_pa = x ~ N(intercept + coefficient * x, variance)``.
    Edges carry ``weight``, the Gaussian mutual information in nats.
    """

    def __init__(self, graph: nx.DiGraph, n_rows: float | None = None,
                 settings: dict | None = None) -> None:
        for v in graph.nodes:
            if graph.in_degree(v) > 1:
                raise InvalidModelError(f"variable {v!r} has {graph.in_degree(v)} parents; "
                                        "a Gaussian tree allows at most one")
            attrs = graph.nodes[v]
            for key in ("intercept", "variance"):
                if not isinstance(attrs.get(key), (int, float)) or not math.isfinite(attrs[key]):
                    raise InvalidModelError(f"variable {v!r}: {key} must be a finite number")
            if attrs["variance"] <= 0:
                raise InvalidModelError(f"variable {v!r}: the variance must be > 0")
            has_parent = graph.in_degree(v) == 1
            if has_parent != (attrs.get("coefficient") is not None):
                raise InvalidModelError(f"variable {v!r}: a coefficient is needed exactly when "
                                        "it has a parent")
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

    def __repr__(self) -> str:
        return (f"GaussianTreeModel({len(self.variables)} variables, "
                f"{self.graph.number_of_edges()} edges, n={self.n_rows})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GaussianTreeModel):
            return NotImplemented
        return (self.variables == other.variables
                and sorted(map(repr, self.graph.edges)) == sorted(map(repr, other.graph.edges))
                and np.array_equal(self._intercept, other._intercept)
                and np.array_equal(self._coef, other._coef)
                and np.array_equal(self._variance, other._variance))

    __hash__ = None  # type: ignore[assignment]

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
        return (pd.Series(mean, index=self.variables),
                pd.DataFrame(cov, index=self.variables, columns=self.variables))

    # -------------------------------------------------------------- scores
    def _matrix(self, data: Any) -> np.ndarray:
        names, X = numeric_matrix(data)
        missing = [v for v in self.variables if v not in names]
        if missing:
            raise ColumnNotFoundError(f"the data lacks the model's column(s) {missing}",
                                      column=missing[0])
        pos = {c: j for j, c in enumerate(names)}
        return X[:, [pos[v] for v in self.variables]]

    def log_likelihood(self, data: Any, per_row: bool = False) -> float | np.ndarray:
        """``sum_rows log p(x)`` in nats (``per_row=True``: one value per row)."""
        X = self._matrix(data)
        resid = X - self._intercept - self._coef * X[:, self._parent]
        ll = -0.5 * (_LOG_2PI + np.log(self._variance) + resid**2 / self._variance)
        rows = ll.sum(axis=1)
        return rows if per_row else float(rows.sum())

    def bic(self, data: Any) -> float:
        """``log_likelihood - n_parameters / 2 * ln(rows)``."""
        n = len(data)
        return self.log_likelihood(data) - 0.5 * self.n_parameters() * math.log(n)

    def aic(self, data: Any) -> float:
        """``log_likelihood - n_parameters``."""
        return self.log_likelihood(data) - self.n_parameters()

    # -------------------------------------------------------------- sampling and queries
    def sample(self, n: int, random_state: Any = None) -> pd.DataFrame:
        """``n`` rows drawn by ancestral sampling (parents first), in column order.

        >>> import pandas as pd, treelearn as tl
        >>> m = tl.gaussian_chow_liu(pd.DataFrame({"a": [0., 1, 2, 4], "b": [1., 2, 2, 5]}))
        >>> m.sample(3, random_state=0).shape
        (3, 2)
        """
        rng = np.random.default_rng(random_state)
        d = len(self.variables)
        X = np.empty((int(n), d))
        noise = rng.standard_normal((int(n), d)) * np.sqrt(self._variance)
        for j in self._topological():  # one column per step, all rows at once
            X[:, j] = self._intercept[j] + noise[:, j]
            if self._parent[j] != j:
                X[:, j] += self._coef[j] * X[:, self._parent[j]]
        return pd.DataFrame(X, columns=self.variables)

    def query(self, variables: Sequence[Hashable], evidence: dict | None = None) -> GaussianQuery:
        """The exact conditional Gaussian of ``variables`` given ``evidence`` (``{column: value}``).

        ``mean = mu_q + S_qe S_ee^-1 (e - mu_e)``, ``cov = S_qq - S_qe S_ee^-1 S_eq``.
        """
        evidence = dict(evidence or {})
        variables = list(variables)
        for v in [*variables, *evidence]:
            if v not in self._index:
                raise ColumnNotFoundError(f"{v!r} is not a variable of the model; the "
                                          f"variables are {self.variables}", column=v)
        both = set(variables) & set(evidence)
        if both:
            raise TreelearnError(f"{sorted(map(repr, both))} are both queried and given as "
                                 "evidence; ask for each variable once")
        mu, S = self.joint()
        q, e = variables, list(evidence)
        mean = mu[q].to_numpy()
        cov = S.loc[q, q].to_numpy()
        if e:
            values = np.array([float(evidence[v]) for v in e])
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
                raise InvalidModelError(f"variable {v!r} has {len(ev)} parents; a Gaussian tree "
                                        "allows at most one")
            G.nodes[v].update(intercept=float(beta[0]),
                              coefficient=float(beta[1]) if ev else None,
                              variance=float(cpd.std) ** 2)
            if ev:
                G.add_edge(ev[0], v)
        return cls(G, settings={"method": "pgmpy"})

    def draw(self, ax: Any = None, **kwargs: Any) -> Figure:
        """Draw the tree (:func:`treelearn.viz._draw.draw`; edge widths follow the Gaussian MI)."""
        return drawing.draw(self, ax, **kwargs)

    def to_dot(self, **kwargs: Any) -> str:
        """Graphviz DOT text (:func:`treelearn.viz._draw.to_dot`)."""
        return drawing.to_dot(self, **kwargs)

    def to_mermaid(self, **kwargs: Any) -> str:
        """Mermaid text (:func:`treelearn.viz._draw.to_mermaid`)."""
        return drawing.to_mermaid(self, **kwargs)

    # -------------------------------------------------------------- files
    def to_dict(self) -> dict:
        """A JSON-ready dict (labels keep their types); :meth:`from_dict` inverts it."""
        return {
            "variables": [encode_label(v) for v in self.variables],
            "roots": [encode_label(v) for v in self.roots],
            "n_rows": self.n_rows,
            "settings": {"method": str(self.settings.get("method", "gaussian-chow-liu"))},
            "nodes": [
                {"parent": encode_label(self.parents(v)[0]) if self.parents(v) else None,
                 **{k: self.graph.nodes[v][k] for k in ("intercept", "coefficient", "variance")}}
                for v in self.variables
            ],
            "weights": [self.graph.edges[u, v].get("weight") for u, v in self.graph.edges],
            "edges": [[encode_label(u), encode_label(v)] for u, v in self.graph.edges],
        }

    @classmethod
    def from_dict(cls, d: dict) -> GaussianTreeModel:
        try:
            variables = [decode_label(v) for v in d["variables"]]
            G = nx.DiGraph()
            for v, node in zip(variables, d["nodes"], strict=True):
                G.add_node(v, intercept=node["intercept"], coefficient=node["coefficient"],
                           variance=node["variance"])
            for (u, v), w in zip(d["edges"], d["weights"], strict=True):
                G.add_edge(decode_label(u), decode_label(v),
                           **({"weight": w} if w is not None else {}))
            G.graph["roots"] = [decode_label(v) for v in d["roots"]]
            return cls(G, n_rows=d.get("n_rows"), settings=d.get("settings"))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InvalidModelError):
                raise
            raise InvalidModelError(f"Gaussian tree file: bad contents ({exc})") from None

    def save(self, path: Any) -> None:
        """Write the model as versioned treelearn JSON (kind ``gaussian_tree``)."""
        save_document(path, "gaussian_tree", model=self.to_dict())
