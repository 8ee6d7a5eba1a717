"""Kernel forest densities (Liu, Xu, Gu, Gupta, Lafferty & Wasserman, JMLR 2011):
:class:`KernelForestModel`.

    p(x) = prod_i p_i(x_i) prod_{(i, j) in forest} p_ij(x_i, x_j) / (p_i(x_i) p_j(x_j)),

``p_i`` a 1-D Gaussian KDE, ``p_ij`` a 2-D one (:mod:`treelearn.stats._kernel`): kernels at
the training rows, covariance ``factor**2`` times the data's. One ``factor`` for both, so
``p_ij``'s marginals are exactly ``p_i`` and ``p_j``, and ``p`` is a density for any
forest (it is ``p_root prod p_ij / p_parent`` once each tree is rooted). Sampling is
ancestral: a root from its KDE; a child given its parent's value ``x_p`` picks the kernel
``k`` with probability ``w_k N(x_p; c_kp, s_p^2) / p_p(x_p)``, then draws from that
kernel's conditional Gaussian. That pick is made without a rows x kernels table
(:func:`pick_kernels`): the kernels sorted by their parent coordinate and grouped into bins
one kernel sd wide, a bin drawn by its weight times its nearest point's Gaussian, a kernel
in it by weight, accepted with the ratio of its own Gaussian to that bound (exact rejection
sampling; n log n in rows, about two rounds).

A missing cell is integrated out. Written unrooted, ``p = prod_i p_i^(1 - deg i) prod_ij
p_ij``; a missing node of degree one (or zero) integrates out in closed form: ``int p_uv
dx_v = p_u``, which lowers ``u``'s degree, so missing leaves are pruned until none is left.
What remains missing lies on a path between observed nodes; there the integral (a ratio
of kernel mixtures) has no closed form and is a quadrature: each such node on a
Gauss-Legendre grid (:data:`QUADRATURE_POINTS` nodes on each piece of its kernels' range,
plus :data:`QUADRATURE_REACH` sds each side; a piece as wide as its narrowest kernel given
a neighbour, ``sd sqrt(1 - r^2)``), messages passed
between the grids by one matrix product per edge, every row of one missing pattern at
once.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Sequence
from numbers import Integral
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from .._base.errors import ColumnNotFoundError, InvalidModelError, TreelearnError
from .._base.jsonvalues import decode_label, encode_label
from .._base.limits import check_memory
from .._base.logspace import logsumexp
from .._base.validation import RANDOM_STATE, Interval, check_param
from ..sources._kinds import numeric_matrix
from ..stats._kernel import (
    UnitGridDensity,
    binned_log_density,
    binned_pair_log_density,
    evaluation_method,
    kde_log_density,
    kde_pair_log_density,
    pair_grid,
    weighted_moments,
)
from ._base import Model, tree_lines

__all__ = [
    "MAX_ABS_CORRELATION",
    "METHODS",
    "QUADRATURE_POINTS",
    "QUADRATURE_REACH",
    "SAMPLING_REACH",
    "KernelForestModel",
    "pick_kernels",
]

#: a pair whose kernels' correlation is this close to +-1 has no 2-D density to speak of
MAX_ABS_CORRELATION = 1.0 - 1e-9
#: Gauss-Legendre nodes per kernel-sd-wide piece of a missing node's grid, and how many
#: kernel sds beyond the outermost centres the grid reaches (a Gaussian's mass there:
#: below 1e-30, far beneath round-off)
QUADRATURE_POINTS = 8
QUADRATURE_REACH = 12
#: how a model evaluates its densities (:func:`treelearn.stats._kernel.evaluation_method`)
METHODS = ("auto", "exact", "binned")
#: :func:`pick_kernels` looks this many kernel-sd-wide bins each side of a value: a kernel
#: farther away has relative weight below exp(-40^2 / 2) = exp(-800), which is 0 in doubles
SAMPLING_REACH = 40
#: rows per block of :func:`pick_kernels` (a block holds rows x (2 reach + 1) numbers)
_PICK_ROWS = 2**15


def pick_kernels(
    x: np.ndarray, centres: np.ndarray, weights: np.ndarray, sd: float, rng: np.random.Generator
) -> np.ndarray:
    """For every value ``x[r]``, a kernel ``k`` drawn with probability proportional to
    ``weights[k] exp(-(x[r] - centres[k])^2 / (2 sd^2))``, without a rows x kernels table.

    Exact rejection sampling from bins: the kernels sorted by centre and grouped by
    ``floor((c - min) / sd)``; a bin ``b`` is proposed with probability proportional to its
    weight ``W_b`` times the Gaussian at its point nearest ``x`` (its centres' span, so the
    bound is tight), a kernel in it by weight, and the kernel is accepted with the ratio of
    its Gaussian to that bound (at most 1; over half the time, in the bin holding ``x``).
    Only the :data:`SAMPLING_REACH` bins each side of ``x``'s are looked at. Work: a sort,
    then ``O(rows x reach)`` per round, each round keeping the rejected rows only.

    >>> rng = np.random.default_rng(0)
    >>> k = pick_kernels(np.zeros(20000), np.array([-1.0, 0.0, 3.0]), np.array([0.5, 0.25, 0.25]), 1.0, rng)
    >>> p = np.array([0.5, 0.25, 0.25]) * np.exp(-np.array([1.0, 0.0, 9.0]) / 2)
    >>> bool(np.allclose(np.bincount(k, minlength=3) / 20000, p / p.sum(), atol=0.01))
    True
    """
    order = np.argsort(centres, kind="stable")
    c = centres[order]
    w = np.asarray(weights, dtype=float)[order]
    lo = c[0]
    # the non-empty bins only (ids ascending): memory O(kernels) whatever the spread
    ids, starts = np.unique(np.floor((c - lo) / sd), return_index=True)
    starts = np.append(starts, len(c))
    cum = np.concatenate([[0.0], np.cumsum(w)])
    W = cum[starts[1:]] - cum[starts[:-1]]
    first, last = c[starts[:-1]], c[starts[1:] - 1]  # each bin's span
    with np.errstate(divide="ignore"):
        log_W = np.log(W)
    shifts = np.arange(2 * SAMPLING_REACH + 1)
    out = np.empty(len(x), dtype=np.int64)
    todo = np.arange(len(x))
    while len(todo):
        rejected = []
        for begin in range(0, len(todo), _PICK_ROWS):  # blocks of rows (memory)
            rows = todo[begin : begin + _PICK_ROWS]
            xr = x[rows]
            home = np.floor((xr - lo) / sd)
            # the non-empty bins within SAMPLING_REACH bins of x's own
            low = np.searchsorted(ids, home - SAMPLING_REACH)
            high = np.searchsorted(ids, home + SAMPLING_REACH, side="right")
            cand = low[:, None] + shifts[None, :]
            inside = cand < high[:, None]
            cand = np.minimum(cand, len(ids) - 1)
            gap = np.maximum(0.0, np.maximum(first[cand] - xr[:, None], xr[:, None] - last[cand]))
            log_q = np.where(inside, log_W[cand] - 0.5 * (gap / sd) ** 2, -np.inf)
            choice = np.argmax(log_q + rng.gumbel(size=log_q.shape), axis=1)
            at = np.arange(len(rows))
            b, bound = cand[at, choice], gap[at, choice]
            # a kernel of bin b by weight: the first whose cumulative weight passes the draw
            target = cum[starts[b]] + rng.random(len(rows)) * W[b]
            k = np.clip(
                np.searchsorted(cum, target, side="right") - 1, starts[b], starts[b + 1] - 1
            )
            ratio = np.exp(-0.5 * (((xr - c[k]) / sd) ** 2 - (bound / sd) ** 2))
            ok = (rng.random(len(rows)) < ratio) & (w[k] > 0) & np.isfinite(log_q[at, choice])
            out[rows[ok]] = order[k[ok]]
            far = ~np.isfinite(log_q).any(axis=1)  # no kernel within reach: every one, in logs
            if far.any():
                with np.errstate(divide="ignore"):
                    L = np.log(w)[None, :] - 0.5 * ((xr[far, None] - c[None, :]) / sd) ** 2
                out[rows[far]] = order[np.argmax(L + rng.gumbel(size=L.shape), axis=1)]
                ok |= far
            rejected.append(rows[~ok])
        todo = np.concatenate(rejected)
    return out


class KernelForestModel(Model):
    """A forest of Gaussian kernel density estimates (see the module docstring); learned by
    :func:`treelearn.kernel_forest`.

    ``centres`` (rows x variables) are the kernels' centres, ``weights`` theirs (``None``:
    equal), ``factor`` the bandwidth factor, ``edges`` the forest's ``(u, v)`` pairs in
    the order they were kept (``mutual_information[(u, v)]``: the weight that ranked them).
    ``method`` says how densities are evaluated (:attr:`evaluation`): ``"exact"`` sums
    every kernel, ``"binned"`` reads grids built once from the centres (linear binning and
    FFT convolution; within a few 1e-3 nats per term),
    ``"auto"`` exact up to 2,000 kernels and binned past it. Sampling draws from the
    kernels themselves either way.

    Parameters
    ----------
    centres : array-like
        Rows x variables: the kernels' centres.
    variables : sequence of hashable
        The columns.
    edges : sequence of pairs
        The forest's edges, in the order they were kept.
    factor : float
        The bandwidth factor.
    weights : array-like, default=None
        The kernels' weights (default: equal).
    mutual_information : sequence of float, default=None
        Each edge's ranking weight.
    n_rows : float, default=None
        Rows learned from.
    settings : dict, default=None
        How it was learned.
    method : {"auto", "exact", "binned"}, default="auto"
        How densities are evaluated.

    See Also
    --------
    kernel_forest : learns one.
    CopulaTreeModel : a parametric dependence between smooth marginals.

    References
    ----------
    .. [1] Liu, H., Xu, M., Gu, H., Gupta, A., Lafferty, J. and Wasserman, L. (2011).
       Forest density estimation. Journal of Machine Learning Research 12, 907-951.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=300)
    >>> df = pd.DataFrame({"x": x, "y": np.sqrt(x) + 0.1 * rng.normal(size=300)})
    >>> model = tl.kernel_forest(df, random_state=0)
    >>> model.kind, model.edges
    ('kernel_forest', [('x', 'y')])
    >>> model.score_samples(df.head(2)).shape
    (2,)
    """

    kind = "kernel_forest"
    capabilities = frozenset({"score", "sample", "draw"})

    #: set where the learner pruned the forest on held-out rows (:func:`treelearn.kernel_forest`):
    #: each spanning-tree edge's held-out log-likelihood gain, and the positions (among the
    #: rows of weight > 0) of the fitting and the held-out part
    held_out_gains_: dict[tuple[Hashable, Hashable], float]
    split_rows_: tuple[np.ndarray, np.ndarray]

    def __init__(
        self,
        centres: Any,
        variables: Sequence[Hashable],
        edges: Sequence[Sequence],
        factor: float,
        *,
        weights: Any = None,
        mutual_information: Sequence[float] | None = None,
        n_rows: float | None = None,
        settings: dict | None = None,
        method: str = "auto",
    ) -> None:
        if method not in METHODS:
            raise InvalidModelError(f"method == {method!r}, must be one of {list(METHODS)}")
        self.variables = list(variables)
        C = np.array(centres, dtype=float, order="C")  # one layout: the same sums bit for bit
        if (
            C.ndim != 2
            or C.shape[1] != len(self.variables)
            or C.shape[0] < 2
            or not np.isfinite(C).all()
        ):
            raise InvalidModelError(
                "the kernel centres must be a finite rows x variables matrix with 2 or more rows"
            )
        if len(set(self.variables)) != len(self.variables):
            raise InvalidModelError("the variables must be distinct")
        if (
            isinstance(factor, bool)
            or not isinstance(factor, (int, float, np.floating))
            or not math.isfinite(factor)
            or not factor > 0
        ):
            raise InvalidModelError(f"factor == {factor!r}, must be a finite number > 0")
        w = np.full(len(C), 1.0 / len(C)) if weights is None else np.array(weights, dtype=float)
        if w.shape != (len(C),) or not np.isfinite(w).all() or (w <= 0).any():
            raise InvalidModelError("the kernel weights must be one finite number > 0 per centre")
        self.weights = None if weights is None else w.copy()
        w = w / w.sum()
        if float(w @ w) >= 1.0:
            raise InvalidModelError("the kernels need two or more effective rows")
        with np.errstate(over="ignore", invalid="ignore"):
            mean, sd, n_eff = weighted_moments(C, w)
        if not (np.isfinite(mean).all() and np.isfinite(sd * factor).all()):
            raise InvalidModelError(
                "the kernel centres are too large: their spread overflows (rescale the columns)"
            )
        flat = ~(sd > 0)
        if flat.any():
            v = self.variables[int(np.flatnonzero(flat)[0])]
            raise TreelearnError(
                f"column {v!r} takes one value: a kernel density needs a spread; drop the column",
                column=v,
            )
        self.centres, self.factor, self.n_eff = C, float(factor), n_eff
        self.method = method
        #: how the densities are evaluated: "exact" sums every kernel, "binned" reads a
        #: grid (:mod:`treelearn.stats._kernel`); "auto" chooses by the number of kernels
        self.evaluation = evaluation_method(method, len(C))
        self._grids: dict[tuple, UnitGridDensity] = {}
        self._w, self._log_w, self._mean = w, np.log(w), mean
        self.kernel_sd = dict(zip(self.variables, (self.factor * sd).tolist()))
        pos = {v: j for j, v in enumerate(self.variables)}
        G = nx.Graph()
        G.add_nodes_from(self.variables)
        mi = list(mutual_information) if mutual_information is not None else [None] * len(edges)
        if len(mi) != len(edges):
            raise InvalidModelError("one mutual information per edge")
        self.edges, self.mutual_information, self.correlation = [], {}, {}
        for e, m in zip(edges, mi):
            if (
                not isinstance(e, (list, tuple))
                or len(e) != 2
                or e[0] not in pos
                or e[1] not in pos
                or e[0] == e[1]
            ):
                raise InvalidModelError(f"edge {e!r}: must be a pair of two of the variables")
            u, v = e[0], e[1]
            if G.has_edge(u, v) or nx.has_path(G, u, v):
                raise InvalidModelError(
                    f"edge {(u, v)!r} closes a cycle: the edges must form a forest"
                )
            G.add_edge(u, v)
            i, j = pos[u], pos[v]
            cov = float(w @ ((C[:, i] - mean[i]) * (C[:, j] - mean[j]))) / (1.0 - float(w @ w))
            r = cov / (sd[i] * sd[j])
            if not abs(r) < MAX_ABS_CORRELATION:
                raise TreelearnError(
                    f"columns {u!r} and {v!r} are perfectly correlated "
                    f"(r = {r:.12g}): a 2-D kernel density needs a spread "
                    f"off the line; drop one of them",
                    column=u,
                )
            self.edges.append((u, v))
            self.correlation[(u, v)] = r
            if m is not None:
                self.mutual_information[(u, v)] = float(m)
        self.graph = nx.DiGraph()
        self.graph.add_nodes_from(self.variables)
        for component in nx.connected_components(G):  # rooted at each tree's first variable
            root = min(component, key=pos.__getitem__)
            for a, b in nx.bfs_edges(
                G, root, sort_neighbors=lambda ns: sorted(ns, key=pos.__getitem__)
            ):
                key = (a, b) if (a, b) in self.correlation else (b, a)
                self.graph.add_edge(a, b, weight=self.mutual_information.get(key, 0.0))
        self.n_rows = n_rows
        self.settings = dict(settings or {"method": "kernel-forest"})

    # -------------------------------------------------------------- structure
    def parents(self, v: Hashable) -> list:
        return list(self.graph.predecessors(v))

    @property
    def roots(self) -> list:
        return [v for v in self.variables if self.graph.in_degree(v) == 0]

    @property
    def n_parameters(self) -> int:
        """0: a kernel density is nonparametric (its centres are the data)."""
        return 0

    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then the forest: the MI (nats) of each kept edge."""
        yield (
            f"KernelForestModel: {len(self.variables)} variables, {len(self.edges)} "
            f"edge{'' if len(self.edges) == 1 else 's'}, {len(self.centres)} kernels"
        )

        def label(v: Hashable, parent: Hashable | None) -> str:
            weight = self.graph.edges[parent, v].get("weight") if parent is not None else None
            return str(v) + (f"  [MI {weight:.{digits}f}]" if weight is not None else "")

        parent_of = {v: (self.parents(v) or [None])[0] for v in self.variables}
        yield from tree_lines(self.roots, parent_of, label)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, KernelForestModel):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    # -------------------------------------------------------------- densities
    def _matrix(self, data: Any, missing: bool = False) -> np.ndarray:
        # a plain array's columns are the model's variables, in order
        plain = (
            not isinstance(data, pd.DataFrame)
            and np.ndim(data) == 2
            and np.shape(data)[1] == len(self.variables)
        )
        names, X = numeric_matrix(
            data,
            learner="a kernel forest",
            names=self.variables if plain else None,
            missing="pairwise" if missing else "error",
        )
        absent = [v for v in self.variables if v not in names]
        if absent:
            raise ColumnNotFoundError(
                f"the data lacks the model's column(s) {absent[:5]}", column=absent[0]
            )
        pos = {c: j for j, c in enumerate(names)}
        return np.asarray(X, dtype=float)[:, [pos[v] for v in self.variables]]

    def _marginal(self, X: np.ndarray, j: int) -> np.ndarray:
        return self._log1(X[:, j], j)

    def _log1(self, x: np.ndarray, j: int) -> np.ndarray:
        """Column ``j``'s 1-D KDE's log density at ``x``, exactly or on its binned grid."""
        s = self.kernel_sd[self.variables[j]]
        if self.evaluation == "exact":
            return kde_log_density(x, self.centres[:, j], self._log_w, s)
        if (j,) not in self._grids:  # built once, on first use
            self._grids[(j,)] = UnitGridDensity(self.centres[:, j : j + 1] / s, self._w)
        return binned_log_density(x, self.centres[:, j], self._log_w, s, self._grids[(j,)])

    def edge_log_ratios(self, data: Any) -> np.ndarray:
        """``log p_ij / (p_i p_j)`` of every row (rows x edges, in :attr:`edges`' order)."""
        return self._edge_terms(self._matrix(data), {})

    def _edge_terms(self, X: np.ndarray, marginals: dict) -> np.ndarray:
        pos = {v: j for j, v in enumerate(self.variables)}
        out = np.empty((len(X), len(self.edges)))
        for e, (u, v) in enumerate(self.edges):  # a loop over edges, every row at once
            i, j = pos[u], pos[v]
            for k in (i, j):
                if k not in marginals:
                    marginals[k] = self._marginal(X, k)
            pair = self._pair(X[:, i], X[:, j], i, j)
            out[:, e] = pair - marginals[i] - marginals[j]
        return out

    def score_samples(self, X: Any) -> np.ndarray:
        """``log p(row)`` of every row; a missing cell (NaN) is integrated out (module
        docstring: in closed form off the paths between observed cells, by quadrature on
        them)."""
        X = self._matrix(X, missing=True)
        missing = np.isnan(X)
        if not missing.any():
            return self._complete(X)
        out = np.empty(len(X))
        patterns, which = np.unique(missing, axis=0, return_inverse=True)
        for p, holes in enumerate(patterns):  # a loop over missing patterns, not rows
            rows = np.flatnonzero(which.ravel() == p)
            out[rows] = self._with_holes(X[rows], holes)
        return out

    def _complete(self, X: np.ndarray) -> np.ndarray:
        marginals: dict = {}
        edges = self._edge_terms(X, marginals)
        out = edges.sum(axis=1)
        for j in range(len(self.variables)):  # a loop over columns, every row at once
            out += marginals[j] if j in marginals else self._marginal(X, j)
        return out

    def _with_holes(self, X: np.ndarray, holes: np.ndarray) -> np.ndarray:
        """``log p(x_observed)`` of rows sharing the missing cells ``holes``."""
        pos = {v: j for j, v in enumerate(self.variables)}
        G = nx.Graph()
        G.add_nodes_from(range(len(self.variables)))
        G.add_edges_from((pos[u], pos[v]) for u, v in self.edges)
        leaves = [v for v in G if holes[v] and G.degree(v) <= 1]
        while leaves:  # closed form: a missing leaf integrates to its neighbour's marginal
            v = leaves.pop()
            neighbours = list(G.neighbors(v))
            G.remove_node(v)
            leaves += [u for u in neighbours if holes[u] and G.degree(u) <= 1 and u not in leaves]
        n = len(X)
        out = np.zeros(n)
        grids = {v: self._grid(v, [self._rho(v, u) for u in G.neighbors(v)]) for v in G if holes[v]}
        for v in G:  # node factors p_v^(1 - deg v) of the observed nodes
            if not holes[v] and G.degree(v) != 1:
                out += (1 - G.degree(v)) * self._marginal(X, v)
        for i, j in G.edges():  # pairs of observed nodes
            if not holes[i] and not holes[j]:
                out += self._pair(X[:, i], X[:, j], i, j)
        for component in nx.connected_components(G.subgraph(list(grids))):
            out += self._integrate(X, G, sorted(component), grids, holes)
        return out

    def _rho(self, i: int, j: int) -> float:
        u, v = self.variables[i], self.variables[j]
        return self.correlation[(u, v)] if (u, v) in self.correlation else self.correlation[(v, u)]

    def _grid(self, j: int, correlations: Sequence[float] = ()) -> tuple[np.ndarray, np.ndarray]:
        """Gauss-Legendre nodes and log weights covering column ``j``'s kernels, on pieces
        as wide as the narrowest kernel in ``j`` given a neighbour (``sd sqrt(1 - r^2)``)."""
        s = self.kernel_sd[self.variables[j]]
        width = s * math.sqrt(min([1.0, *(1.0 - r * r for r in correlations)]))
        lo = self.centres[:, j].min() - QUADRATURE_REACH * s
        hi = self.centres[:, j].max() + QUADRATURE_REACH * s
        pieces = math.ceil((hi - lo) / width)
        points = pieces * QUADRATURE_POINTS
        # two adjacent missing nodes: a grid x grid table of their pair density (and its exp)
        check_memory(
            16.0 * points * points,
            "a missing value's quadrature grid",
            "fill the missing values in",
        )
        t, w = np.polynomial.legendre.leggauss(QUADRATURE_POINTS)
        edges = np.linspace(lo, hi, pieces + 1)
        a, b = edges[:-1, None], edges[1:, None]
        return ((a + b) / 2 + (b - a) / 2 * t).ravel(), np.log(((b - a) / 2 * w).ravel())

    def _pair(self, x: np.ndarray, y: np.ndarray, i: int, j: int) -> np.ndarray:
        """The 2-D KDE of columns ``i, j``'s log density at ``(x, y)``, exactly or on its
        binned grid (whitened, ``i`` first)."""
        u, v = self.variables[i], self.variables[j]
        args = (
            self.centres[:, i],
            self.centres[:, j],
            self._log_w,
            self.kernel_sd[u],
            self.kernel_sd[v],
            self._rho(i, j),
        )
        if self.evaluation == "exact":
            return kde_pair_log_density(x, y, *args)
        if (i, j) not in self._grids:  # built once, on first use
            self._grids[(i, j)] = pair_grid(*args)
        return binned_pair_log_density(x, y, *args, grid=self._grids[(i, j)])

    def _integrate(
        self, X: np.ndarray, G: nx.Graph, component: list, grids: dict, holes: np.ndarray
    ) -> np.ndarray:
        """``log`` of the integral over one connected set of missing nodes (each on its
        grid) of their factors and the edges to them: messages towards ``component[0]``."""
        n = len(X)
        local = {}
        for v in component:  # each grid point's factor, with the observed neighbours' edges
            g, log_w = grids[v]
            node = log_w + (1 - G.degree(v)) * self._log1(g, v)
            term = np.tile(node, (n, 1))
            for u in G.neighbors(v):
                if not holes[u]:
                    term += self._pair(np.repeat(X[:, u], len(g)), np.tile(g, n), u, v).reshape(
                        n, len(g)
                    )
            local[v] = term
        root = component[0]
        sub = G.subgraph(component)
        for v, parent in reversed(list(nx.bfs_predecessors(sub, root))):  # leaves first
            gv, gp = grids[v][0], grids[parent][0]
            pair = self._pair(np.repeat(gv, len(gp)), np.tile(gp, len(gv)), v, parent).reshape(
                len(gv), len(gp)
            )
            top_r, top_c = local[v].max(axis=1, keepdims=True), pair.max()
            message = np.exp(local[v] - top_r) @ np.exp(pair - top_c)
            with np.errstate(divide="ignore"):
                local[parent] = local[parent] + np.log(message) + top_r + top_c
        return logsumexp(local[root], axis=1)

    # -------------------------------------------------------------- sampling
    def sample(self, n: int, random_state: Any = None, *, numbers: bool = False) -> pd.DataFrame:
        """``n`` rows drawn ancestrally (module docstring). ``numbers``: every value is a
        number already (no column is binned).

        >>> import treelearn as tl
        >>> rng = np.random.default_rng(0)
        >>> x = rng.normal(size=200)
        >>> m = tl.kernel_forest(pd.DataFrame({"x": x, "y": x + 0.3 * rng.normal(size=200)}),
        ...                      random_state=0)
        >>> s = m.sample(2000, random_state=1)
        >>> s.shape, bool(s.corr().iloc[0, 1] > 0.9)
        ((2000, 2), True)
        """
        n = check_param("n", n, [Interval(Integral, 0, None)], note="the number of rows to draw")
        random_state = check_param("random_state", random_state, RANDOM_STATE)
        rng = np.random.default_rng(random_state)
        check_memory(8.0 * n * len(self.variables), "the sample", "draw fewer rows at a time")
        pos = {v: j for j, v in enumerate(self.variables)}
        out = np.empty((n, len(self.variables)))
        C = self.centres
        for v in nx.topological_sort(self.graph):  # a loop over variables, every row at once
            j = pos[v]
            parents = self.parents(v)
            s = self.kernel_sd[v]
            if not parents:
                k = rng.choice(len(C), size=n, p=self._w)
                out[:, j] = C[k, j] + s * rng.standard_normal(n)
                continue
            p = pos[parents[0]]
            sp = self.kernel_sd[parents[0]]
            key = (parents[0], v) if (parents[0], v) in self.correlation else (v, parents[0])
            r = self.correlation[key]
            k = pick_kernels(out[:, p], C[:, p], self._w, sp, rng)  # P(k | parent's value)
            mean = C[k, j] + r * s / sp * (out[:, p] - C[k, p])
            out[:, j] = mean + s * math.sqrt(1.0 - r * r) * rng.standard_normal(n)
        return pd.DataFrame(out, columns=self.variables)

    # -------------------------------------------------------------- files
    def to_dict(self) -> dict:
        """A JSON-ready dict; :meth:`from_dict` inverts it, every field checked."""
        return {
            "variables": [encode_label(v) for v in self.variables],
            "centres": [self.centres[:, j].tolist() for j in range(len(self.variables))],
            "weights": None if self.weights is None else self.weights.tolist(),
            "factor": self.factor,
            "edges": [[encode_label(u), encode_label(v)] for u, v in self.edges],
            "mutual_information": [self.mutual_information.get(e, 0.0) for e in self.edges],
            "n_rows": self.n_rows,
            "method": self.method,
            "settings": {
                str(k): v
                for k, v in self.settings.items()
                if isinstance(v, (str, int, float, bool)) or v is None
            },
        }

    @classmethod
    def from_dict(cls, d: Any) -> KernelForestModel:
        """The model :meth:`to_dict` describes; an :class:`~treelearn.InvalidModelError`
        names the field that is wrong."""
        if not isinstance(d, dict):
            raise InvalidModelError("kernel forest file: 'model' must be an object")
        for key in ("variables", "centres", "edges", "mutual_information"):
            if not isinstance(d.get(key), list):
                raise InvalidModelError(f"kernel forest file: {key!r} must be a list")
        variables = [decode_label(v) for v in d["variables"]]
        columns = d["centres"]
        if (
            len(columns) != len(variables)
            or not all(isinstance(c, list) for c in columns)
            or len({len(c) for c in columns}) != 1
        ):
            raise InvalidModelError(
                "kernel forest file: 'centres' needs one list per variable, all of one length"
            )
        if not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for c in columns for x in c
        ):
            raise InvalidModelError("kernel forest file: 'centres' must hold numbers")
        weights = d.get("weights")
        if weights is not None and (
            not isinstance(weights, list)
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in weights)
        ):
            raise InvalidModelError("kernel forest file: 'weights' must be null or numbers")
        mi = d["mutual_information"]
        if not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in mi
        ):
            raise InvalidModelError("kernel forest file: 'mutual_information' must be numbers")
        edges = []
        for e in d["edges"]:
            if not isinstance(e, list) or len(e) != 2:
                raise InvalidModelError(f"kernel forest file: edge {e!r} must be a pair")
            edges.append((decode_label(e[0]), decode_label(e[1])))
        settings = d.get("settings")
        if settings is not None and not isinstance(settings, dict):
            raise InvalidModelError("kernel forest file: 'settings' must be an object")
        n_rows = d.get("n_rows")
        if n_rows is not None and (
            isinstance(n_rows, bool) or not isinstance(n_rows, (int, float))
        ):
            raise InvalidModelError("kernel forest file: 'n_rows' must be a number or null")
        method = d.get("method", "auto")  # files before the binned path: "auto"
        if method not in METHODS:
            raise InvalidModelError(
                f"kernel forest file: 'method' == {method!r}, must be one of {list(METHODS)}"
            )
        factor = d.get("factor")
        if isinstance(factor, bool) or not isinstance(factor, (int, float)):  # as cls() says it
            raise InvalidModelError(f"factor == {factor!r}, must be a finite number > 0")
        try:
            return cls(
                np.array(columns, dtype=float).T,
                variables,
                edges,
                factor,
                weights=weights,
                mutual_information=mi,
                n_rows=n_rows,
                settings=settings,
                method=method,
            )
        except InvalidModelError:
            raise
        except TreelearnError as exc:
            raise InvalidModelError(f"kernel forest file: {exc}") from None
