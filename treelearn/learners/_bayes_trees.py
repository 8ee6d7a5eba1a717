"""Exact Bayesian averaging over all spanning trees, and the k best trees.

A Chow-Liu tree is one point estimate. With a *decomposable* prior the posterior
over all ``d^(d-2)`` labelled spanning trees has a closed form (Meilă & Jaakkola,
"Tractable Bayesian learning of tree belief networks", 2006; Cerquides & López
de Màntaras, "TAN classifiers based on decomposable distributions", 2005):

* structure prior ``P(T) ∝ prod_{uv in T} β_uv`` (``β = 1``: uniform over trees;
  ``edge_prior`` sets ``β``, zero forbids an edge);
* parameter prior BDeu with equivalent sample size ``s`` (``equivalent_sample_size``): pseudo-counts
  ``s / r_u`` per state of a root ``u`` and ``s / (r_u r_v)`` per cell of a pair.
  BDeu is score-equivalent, so a tree's marginal likelihood does not depend on
  its root and factorises over vertices and edges::

      P(D | T) = prod_v ML_v * prod_{uv in T} w_uv,    w_uv = ML_uv / (ML_u ML_v),

  with ``ML_u``, ``ML_uv`` the Dirichlet-multinomial marginal likelihoods of
  column ``u`` and of the pair ``(u, v)``:
  ``ML = Γ(s) / Γ(n + s) * prod_cells Γ(N_cell + a) / Γ(a)``, ``a`` the cell's pseudo-count.

Then, with ``Z(x) = sum_T prod_{uv in T} x_uv`` (matrix-tree theorem:
:mod:`treelearn.structure._spanning_sums`),

* evidence: ``P(D) = prod_v ML_v * Z(β ∘ w) / Z(β)`` (``Z(1) = d^(d-2)``, Cayley);
* posterior: ``P(T | D) = prod_{uv in T} β_uv w_uv / Z(β ∘ w)``; the edge
  posteriors ``P(uv in T | D) = ∂ log Z / ∂ log w_uv``;
* posterior predictive of a row ``x`` (parameters integrated, structures averaged):
  ``P(x | D) = sum_T P(T | D) P(x | T, D) = prod_v θ_v(x_v) * Z(β ∘ w ∘ ρ(x)) / Z(β ∘ w)``,
  ``θ`` the BDeu posterior means ``θ_u(a) = (N_u(a) + s/r_u) / (n + s)``,
  ``θ_uv(a, b) = (N_uv(a, b) + s/(r_u r_v)) / (n + s)`` and
  ``ρ_uv(x) = θ_uv(x_u, x_v) / (θ_u(x_u) θ_v(x_v))``.

The weights ``w_uv`` span thousands of nats on real data; every sum over trees
is taken in log space by a subtraction-free elimination, so results are finite
and accurate to ~1e-12 relative (``log Z``) or ~1e-13 absolute (edge
posteriors) however concentrated the posterior is. When it has collapsed onto
one tree (one tree's weight exceeds the rest by more than ~37 nats), the edge
posteriors are 0 and 1 to double precision and :meth:`TreePosterior.log_likelihood`
equals that tree's BDeu model (``map_tree()``) scored on the same rows.

Row weights (``sample_weight``) give weighted counts, used as counts
(``Γ`` of real numbers). The data must be complete (``missing="drop"`` drops
incomplete rows): with missing values the marginal likelihood no longer
factorises over edges.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from functools import cached_property
from numbers import Integral, Real
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from .._base.errors import (
    ColumnNotFoundError,
    InvalidModelError,
    MissingValuesError,
    StructureError,
    TreelearnError,
)
from .._base.jsonvalues import (
    DecodeError,
    decode_dtype,
    decode_label,
    encode_dtype,
    encode_label,
    from_json_value,
    json_value,
)
from .._base.validation import RANDOM_STATE, Interval, Options, check_param, check_params
from ..encoding._bins import binned_numbers
from ..encoding._table import (
    DEFAULT_MAX_STATES,
    MissingPolicy,
    check_frame,
    distinct_rows,
    encode,
)
from ..models._base import Model
from ..models._tree import TreeModel
from ..sources._count import count
from ..stats._counts import CountedTable, PairCounts
from ..stats._information import mutual_information_matrix
from ..stats._settings import CONSTRAINTS, NOTES, READING, LearningSettings
from ..structure._spanning_sums import edge_marginals, log_spanning_tree_sum, sample_spanning_tree
from ..structure._trees import orient, spanning_tree_edges
from ._chow_liu import build_model, mi_graph_from_counts

__all__ = [
    "MAX_COMPLETIONS",
    "MAX_TREES",
    "POSTERIOR_CONSTRAINTS",
    "POSTERIOR_NOTES",
    "TreePosterior",
    "bdeu_edge_weights",
    "bdeu_predictive_tables",
    "k_best_trees",
    "k_best_trees_from_counts",
    "log_sum_over_completions",
    "tree_posterior",
    "tree_posterior_from_counts",
]

#: the most completions of one row's missing values that ``log_likelihood`` sums over
MAX_COMPLETIONS = 4096
#: the most trees :func:`k_best_trees` and :meth:`TreePosterior.sample_trees` return: each is
#: a model, built one at a time (~3 ms each for 8 variables, ~12 ms for 30)
MAX_TREES = 10_000


def _check_number_of_trees(k: Any, low: int) -> int:
    return check_param(
        "k",
        k,
        [Interval(Integral, low, MAX_TREES)],
        note=(
            f"each tree is a model built one at a time; ask for at most {MAX_TREES:,}, or look at "
            f"every tree at once through tl.tree_posterior(data).edge_posterior_matrix"
        ),
    )


def bdeu_edge_weights(
    counts: PairCounts, equivalent_sample_size: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(log ML_v for every v, log w_uv for every pair)`` under BDeu with that sample size.

    ``w_uv = ML_uv / (ML_u ML_v)`` (see the module docstring); the diagonal of
    the ``d x d`` matrix is ``-inf``. Counts may be weighted (real numbers).

    Examples
    --------
    >>> import pandas as pd
    >>> from treelearn.sources._count import count
    >>> pc = count(pd.DataFrame({"a": [0, 1], "b": [0, 1]})).counts
    >>> log_ml, log_w = bdeu_edge_weights(pc, equivalent_sample_size=2.0)
    >>> # ML_a = Γ(2)/Γ(4) Γ(2)^2/Γ(1)^2 = 1/6; ML_ab = Γ(2)/Γ(4) Γ(1.5)^2/Γ(.5)^2 = 1/24
    >>> np.round(np.exp(log_ml), 12).tolist(), round(float(np.exp(log_w[0, 1])), 12)
    ([0.166666666667, 0.166666666667], 1.5)
    """
    from scipy.special import gammaln  # here: loading a saved posterior needs no SciPy

    ess = equivalent_sample_size
    k = np.asarray(counts.cardinalities, dtype=float)
    d = len(k)
    owner = np.repeat(np.arange(d), counts.cardinalities)
    joint = np.asarray(counts.joint, dtype=float)
    n = float(counts.n_rows)
    cell_alpha = ess / (k[owner][:, None] * k[owner][None, :])
    cells = gammaln(joint + cell_alpha) - gammaln(cell_alpha)
    B = np.zeros((len(owner), d))
    B[np.arange(len(owner)), owner] = 1.0
    pair_terms = B.T @ cells @ B
    marg = np.diagonal(joint)
    node_alpha = ess / k[owner]
    node_terms = np.bincount(
        owner, weights=gammaln(marg + node_alpha) - gammaln(node_alpha), minlength=d
    )
    const = float(gammaln(ess) - gammaln(n + ess))
    log_w = pair_terms - node_terms[:, None] - node_terms[None, :] - const
    log_w[np.arange(d), np.arange(d)] = -np.inf
    return const + node_terms, log_w


def bdeu_predictive_tables(
    counts: PairCounts, equivalent_sample_size: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(log θ, log ρ)`` over the ``K`` one-hot positions of ``counts``: the BDeu posterior
    means ``θ_u(a) = (N_u(a) + s/r_u) / (n + s)`` (a ``K`` vector) and
    ``log ρ_uv(a, b) = log θ_uv(a, b) - log θ_u(a) - log θ_v(b)`` (``K x K``;
    only its off-diagonal blocks are used)."""
    ess = equivalent_sample_size
    d = len(counts.cardinalities)
    k = np.asarray(counts.cardinalities, dtype=float)
    owner = np.repeat(np.arange(d), counts.cardinalities)
    joint = np.asarray(counts.joint, dtype=float)
    total = float(counts.n_rows) + ess
    log_theta = np.log((np.diagonal(joint) + ess / k[owner]) / total)
    log_pair = np.log((joint + ess / (k[owner][:, None] * k[owner][None, :])) / total)
    return log_theta, log_pair - log_theta[:, None] - log_theta[None, :]


def log_sum_over_completions(
    codes: np.ndarray, cardinalities: np.ndarray, score: Any, names: Sequence[Hashable]
) -> np.ndarray:
    """``log sum over completions of exp(score(complete codes))`` for each row of ``codes``.

    ``-1`` marks a missing value; each distinct row is scored once, and a row
    with missing values through all completions of them (at most
    :data:`MAX_COMPLETIONS`). ``score`` maps an ``(m, d)`` array of complete
    codes to ``(m,)`` or ``(m, c)`` log-values.

    >>> log_sum_over_completions(np.array([[0, -1], [1, 1]]), np.array([2, 3]),
    ...                          lambda c: np.log(c[:, 1] + 1.0), ["a", "b"]).round(6).tolist()
    [1.791759, 0.693147]
    """
    codes = np.asarray(codes, dtype=np.int64)
    card = np.asarray(cardinalities, dtype=np.int64)
    first, inverse = distinct_rows(codes)
    unique = codes[first]
    missing = unique < 0
    if not missing.any():
        return score(unique)[inverse]
    n_completions = np.prod(np.where(missing, card[None, :], 1), axis=1)
    too_many = np.flatnonzero(n_completions > MAX_COMPLETIONS)
    if len(too_many):
        row = unique[too_many[0]]
        gaps = [names[j] for j in np.flatnonzero(row < 0).tolist()]
        raise MissingValuesError(
            f"a row misses the variables {gaps[:10]}: summing them out takes "
            f"{int(n_completions[too_many[0]])} completions (more than {MAX_COMPLETIONS}); "
            f"the tree average has no cheaper exact marginal: impute or drop such rows",
            column=gaps[0],
        )
    # every completion of every row (mixed radix over its missing columns), then a log-sum
    expanded = np.repeat(unique, n_completions, axis=0)
    starts = np.concatenate([[0], np.cumsum(n_completions)[:-1]])
    within = np.arange(len(expanded)) - np.repeat(starts, n_completions)
    for j in range(len(card)):
        gap = expanded[:, j] < 0
        if gap.any():
            later = np.where(missing[:, j + 1 :], card[None, j + 1 :], 1).prod(axis=1)
            stride = np.repeat(later, n_completions)[gap]
            expanded[gap, j] = (within[gap] // stride) % card[j]
    return np.logaddexp.reduceat(score(expanded), starts, axis=0)[inverse]


def _log_edge_prior(edge_prior: Any, variables: list) -> np.ndarray | None:
    """``log β`` as a ``d x d`` matrix (``-inf``: forbidden edge), or None for uniform."""
    if edge_prior is None:
        return None
    d = len(variables)
    if isinstance(edge_prior, nx.Graph):
        absent = [v for v in edge_prior.nodes if v not in variables]
        if absent:
            raise ColumnNotFoundError(
                f"edge_prior has node(s) {absent} that are not variables {variables}",
                column=absent[0],
            )
        pos = {v: j for j, v in enumerate(variables)}
        beta = np.zeros((d, d))
        for u, v, b in edge_prior.edges(data="prior", default=1.0):
            try:
                beta[pos[u], pos[v]] = beta[pos[v], pos[u]] = b
            except (TypeError, ValueError):
                raise StructureError(
                    f"edge_prior's edge ({u!r}, {v!r}) has prior={b!r:.40}: give each edge's "
                    f"'prior' attribute as a number >= 0 (0 forbids the edge)",
                    values=[b],
                ) from None
    else:
        try:
            beta = np.array(edge_prior, dtype=float)
        except (TypeError, ValueError):
            raise StructureError(
                f"edge_prior must be a {d} x {d} matrix of numbers or an nx.Graph, not "
                f"{edge_prior!r:.60}"
            ) from None
        if beta.shape != (d, d):
            raise StructureError(
                f"edge_prior must be a {d} x {d} matrix (one row and column per variable, "
                f"in column order) or an nx.Graph, got shape {beta.shape}"
            )
        if not np.allclose(beta, beta.T, rtol=1e-12, atol=0):
            raise StructureError("edge_prior must be symmetric: beta[u, v] == beta[v, u]")
    off = ~np.eye(d, dtype=bool)
    if not np.isfinite(beta[off]).all() or (beta[off] < 0).any():
        bad = beta[off][~(np.isfinite(beta[off]) & (beta[off] >= 0))][0]
        raise StructureError(
            f"edge_prior weights must be finite and >= 0 (0 forbids an edge), found {bad!r}",
            values=[float(bad)],
        )
    with np.errstate(divide="ignore"):
        out = np.log(beta)
    out[~off] = -np.inf
    if d > 1 and not np.isfinite(log_spanning_tree_sum(out)):
        raise StructureError(
            "edge_prior allows no spanning tree: the edges with a positive prior weight must "
            "connect every variable"
        )
    return out


class TreePosterior(Model):
    """The exact posterior over all spanning trees of a table (see :func:`tree_posterior`).

    Attributes
    ----------
    variables : the variables, in column order.
    states : ``{variable: [state labels]}``.
    equivalent_sample_size : BDeu's equivalent sample size.
    n_rows : rows counted (their total weight with ``sample_weight``).
    log_weights : ``d x d`` matrix of ``log(β_uv w_uv)``, the posterior's edge factors
        (``-inf`` on the diagonal and for forbidden edges).
    log_evidence : ``log P(D)``, the structure prior normalised over all trees.
    log_normaliser : ``log Z(β ∘ w)``; ``P(T | D) = exp(sum_{uv in T} log_weights - log_normaliser)``.

    Parameters
    ----------
    stats : CountedTable
        The table's counts (singles and pairs), as :func:`tree_posterior` counts them.
    equivalent_sample_size : float
        BDeu's equivalent sample size.
    log_edge_prior : numpy.ndarray or None
        ``d x d`` log edge factors of the structure prior (None: uniform over trees).

    See Also
    --------
    tree_posterior : makes one from data.
    BayesianTrees : the estimator.

    References
    ----------
    .. [1] Meila, M. and Jaakkola, T. (2006). Tractable Bayesian learning of tree belief
       networks. Statistics and Computing 16(1), 77-92.

    Examples
    --------
    Three variables have three spanning trees: their posteriors, from the edge factors,
    sum to one (the matrix-tree theorem's normaliser checked by enumeration), and an
    edge's posterior is the sum over the trees that hold it:

    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")[["smoke", "lung", "bronc"]].iloc[:500]
    >>> post = tl.tree_posterior(df)
    >>> trees = [[(0, 1), (0, 2)], [(0, 1), (1, 2)], [(0, 2), (1, 2)]]
    >>> W = post.log_weights
    >>> p = [np.exp(sum(W[u, v] for u, v in t) - post.log_normaliser) for t in trees]
    >>> round(float(sum(p)), 12)
    1.0
    >>> bool(np.isclose(post.edge_posterior_matrix[0, 1], p[0] + p[1]))
    True
    >>> sorted(post.map_tree().graph.edges())
    [('smoke', 'bronc'), ('smoke', 'lung')]
    """

    kind = "tree_posterior"
    capabilities = frozenset({"score", "sample", "draw", "explorer"})

    def __init__(
        self, stats: CountedTable, equivalent_sample_size: float, log_edge_prior: np.ndarray | None
    ) -> None:
        counts = stats.counts
        ess = self.equivalent_sample_size = equivalent_sample_size
        self.stats = stats
        self.log_edge_prior = log_edge_prior
        self.variables = list(stats.columns)
        self.states = {v: list(s) for v, s in zip(self.variables, stats.states)}
        self.n_rows = counts.n_rows
        d = len(self.variables)
        log_ml, log_w = bdeu_edge_weights(counts, ess)
        if log_edge_prior is None:
            prior_norm = (d - 2) * np.log(d) if d > 1 else 0.0
            self.log_weights = log_w
        else:
            prior_norm = log_spanning_tree_sum(log_edge_prior)
            self.log_weights = log_w + log_edge_prior
        self.log_normaliser = float(log_spanning_tree_sum(self.log_weights)) if d > 1 else 0.0
        self.log_evidence = float(log_ml.sum() + self.log_normaliser - prior_norm)
        self._log_theta, self._log_rho = bdeu_predictive_tables(counts, ess)
        self._offsets = np.asarray(counts.offsets[:-1], dtype=np.int64)

    # ------------------------------------------------------------------ edges
    @cached_property
    def edge_posterior_matrix(self) -> np.ndarray:
        """``d x d`` matrix of ``P(uv in T | D)`` (symmetric, zero diagonal, rows in column order)."""
        if len(self.variables) < 2:
            return np.zeros((len(self.variables),) * 2)
        P, _ = edge_marginals(self.log_weights)
        return np.clip(P, 0.0, 1.0)  # rounding (~1e-13) must not leave [0, 1]

    def edge_probabilities(self) -> nx.Graph:
        """The complete graph over the variables, edge attributes ``posterior``
        (``P(uv in T | D)``) and ``log_weight`` (``log β_uv w_uv``); node attribute ``states``."""
        P = self.edge_posterior_matrix
        G = nx.Graph(n=self.n_rows, equivalent_sample_size=self.equivalent_sample_size)
        G.add_nodes_from((v, {"states": list(s)}) for v, s in self.states.items())
        d = len(self.variables)
        for i, j in zip(*np.triu_indices(d, k=1)):
            G.add_edge(
                self.variables[i],
                self.variables[j],
                posterior=float(P[i, j]),
                log_weight=float(self.log_weights[i, j]),
            )
        return G

    def to_frame(self) -> pd.DataFrame:
        """One row per pair ``u, v``: ``posterior`` and ``log_weight``, most probable first
        (ties in column order)."""
        d = len(self.variables)
        i, j = np.triu_indices(d, k=1)
        frame = pd.DataFrame(
            {
                "u": [self.variables[a] for a in i],
                "v": [self.variables[b] for b in j],
                "posterior": self.edge_posterior_matrix[i, j],
                "log_weight": self.log_weights[i, j],
            }
        )
        return frame.sort_values("posterior", ascending=False, kind="stable").reset_index(drop=True)

    @property
    def expected_degrees(self) -> pd.Series:
        """``E[degree of v in T | D]`` for every variable (they sum to ``2 (d - 1)``)."""
        return pd.Series(self.edge_posterior_matrix.sum(axis=1), index=self.variables)

    # ------------------------------------------------------------------ trees
    def log_tree_probability(self, edges: Any) -> float:
        """``log P(T | D)`` of the spanning tree with these edges (pairs of variables, or a graph)."""
        pos = {v: j for j, v in enumerate(self.variables)}
        edge_list = list(edges.edges() if isinstance(edges, nx.Graph) else edges)
        T = nx.Graph(edge_list)
        T.add_nodes_from(self.variables)
        # a repeated edge (a-b twice, or a-b and b-a) is one edge of nx.Graph: counted twice
        if (
            len(T) != len(self.variables)
            or len(edge_list) != T.number_of_edges()
            or not nx.is_tree(T)
        ):
            raise StructureError("the edges must form a spanning tree over the variables")
        return float(
            sum(self.log_weights[pos[u], pos[v]] for u, v in edge_list) - self.log_normaliser
        )

    def _model(self, edges: Sequence[tuple[int, int]], method: str) -> TreeModel:
        """The tree with these edges (column indices), rooted at the first column, BDeu CPTs."""
        mi = self._mutual_information
        skeleton = nx.Graph()
        skeleton.add_nodes_from((v, {"states": list(s)}) for v, s in self.states.items())
        skeleton.add_edges_from(
            (self.variables[i], self.variables[j], {"weight": float(mi[i, j])})
            for i, j in sorted((min(e), max(e)) for e in edges)
        )
        settings = LearningSettings(
            method=method, prior="bdeu", equivalent_sample_size=self.equivalent_sample_size
        )
        return build_model(orient(skeleton), self.stats, settings)

    @cached_property
    def _mutual_information(self) -> np.ndarray:
        return mutual_information_matrix(self.stats.counts)

    def map_tree(self) -> TreeModel:
        """The most probable tree ``argmax_T P(T | D)`` with its BDeu posterior-mean CPTs.

        It is the maximum spanning tree of ``log_weights`` (ties in column order),
        rooted at the first column; edge attribute ``weight`` is the MI, as for Chow-Liu.
        """
        present = np.isfinite(self.log_weights)
        finite = np.where(present, self.log_weights, 0.0)
        return self._model(spanning_tree_edges(finite, present), "tree_posterior map")

    def sample_trees(
        self, k: int, random_state: int | np.random.Generator | None = None
    ) -> list[TreeModel]:
        """``k`` trees drawn independently from ``P(T | D)``, each with its BDeu CPTs.

        Exact (Wilson's algorithm with exact loop-erased-walk steps); ``O(d^4)`` per tree.
        At most :data:`MAX_TREES`.
        """
        k = _check_number_of_trees(k, 0)
        rng = np.random.default_rng(random_state)
        if len(self.variables) < 2:
            return [self._model([], "tree_posterior sample") for _ in range(k)]
        return [
            self._model(sample_spanning_tree(self.log_weights, rng), "tree_posterior sample")
            for _ in range(k)
        ]

    # ------------------------------------------------------------------ prediction
    def _encode(self, data: pd.DataFrame) -> np.ndarray:
        check_frame(data)
        absent = [v for v in self.variables if v not in data.columns]
        if absent:
            raise ColumnNotFoundError(
                f"the data lacks the variable(s) {absent}; its columns are {list(data.columns)}",
                column=absent[0],
            )
        table = encode(
            data[self.variables],
            missing="pairwise",
            states=self.states,
            max_states=np.iinfo(np.int64).max,
        )
        return table.codes.astype(np.int64)

    def log_likelihood_codes(self, codes: np.ndarray) -> np.ndarray:
        """Per-row ``log P(x | D)`` of integer codes (``-1`` = missing: summed out exactly)."""
        codes = np.asarray(codes, dtype=np.int64)
        if len(codes) == 0:
            return np.zeros(0)
        card = np.array([len(s) for s in self.states.values()], dtype=np.int64)
        return log_sum_over_completions(codes, card, self._complete_log_likelihood, self.variables)

    def _complete_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        idx = self._offsets[None, :] + codes  # one-hot position of each value
        node = self._log_theta[idx].sum(axis=1)
        if len(self.variables) < 2:
            return node
        out = np.empty(len(codes))
        step = max(1, 200_000 // len(self.variables) ** 2)
        for start in range(0, len(codes), step):
            block = idx[start : start + step]
            rho = self._log_rho[block[:, :, None], block[:, None, :]]
            out[start : start + step] = log_spanning_tree_sum(self.log_weights + rho)
        return node + out - self.log_normaliser

    def score_samples(self, X: pd.DataFrame) -> np.ndarray:
        """The exact posterior-predictive log-likelihood of each row (nats).

        Each row scores ``log P(x | D) = log sum_T P(T | D) P(x | T, D)``: the
        Bayesian model average over every spanning tree, parameters integrated
        out. Missing values are summed out exactly (by enumerating their
        completions, at most :data:`MAX_COMPLETIONS` per row). ``O(d^3)`` per
        distinct row.
        """
        return self.log_likelihood_codes(self._encode(X))

    @property
    def n_parameters(self) -> int:
        """The most probable tree's free parameters (the average over trees has no count of
        its own; BIC and AIC charge it as that tree)."""
        return self.map_tree().n_parameters

    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        numbers: bool = False,
    ) -> pd.DataFrame:
        """``n`` rows drawn independently from the posterior predictive ``P(x | D)``: for
        each row a tree ``T ~ P(T | D)`` (:meth:`sample_trees`' exact draw), then the row
        from that tree's BDeu posterior-mean CPTs, which is ``P(x | T, D)``. Rows that drew
        the same tree are drawn together. ``numbers``: binned variables as numbers within
        each row's bin (:meth:`TreeModel.sample <treelearn.TreeModel.sample>`),
        drawn after the rows.

        >>> import pandas as pd, treelearn as tl
        >>> post = tl.tree_posterior(pd.read_csv("datasets/asia.csv").head(500))
        >>> post.sample(4, random_state=0).shape
        (4, 8)
        """
        n = check_param("n", n, [Interval(Integral, 0, None)], note="the number of rows to draw")
        rng = np.random.default_rng(check_param("random_state", random_state, RANDOM_STATE))
        if len(self.variables) < 2:
            return self._model([], "tree_posterior sample").sample(
                n, random_state=rng, numbers=numbers
            )
        trees: dict[tuple, int] = {}
        for _ in range(n):
            edges = tuple(sorted(sample_spanning_tree(self.log_weights, rng)))
            trees[edges] = trees.get(edges, 0) + 1
        parts = [
            self._model(edges, "tree_posterior sample").sample(k, random_state=rng)
            for edges, k in trees.items()
        ]
        if not parts:
            return self._model([], "tree_posterior sample").sample(0, numbers=numbers)
        out = pd.concat(parts, ignore_index=True)
        out = out.iloc[rng.permutation(len(out))].reset_index(drop=True)
        if numbers:
            codes = np.column_stack(
                [pd.Categorical(out[v], categories=self.states[v]).codes for v in self.variables]
            )
            out = binned_numbers(out, codes, self.variables, self.states, rng)
        return out

    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then the most probable edges with their posterior probabilities."""
        yield (
            f"TreePosterior: the Bayesian average over all spanning trees of "
            f"{len(self.variables)} variables (BDeu, equivalent sample size "
            f"{self.equivalent_sample_size:g}), n = {self.n_rows:g}, log P(D) = "
            f"{self.log_evidence:.{digits}f}; the most probable edges:"
        )
        frame = self.to_frame().head(10)
        yield frame.to_string(index=False, float_format=lambda x: f"{x:.{digits}f}")

    # ------------------------------------------------------------------ files
    def to_dict(self) -> dict:
        """Everything the posterior is made of, as JSON-able values: the variables, their
        states and dtypes, the pair counts, the BDeu sample size and the edge prior's
        weights ``β`` (``None``: uniform); :meth:`from_dict` rebuilds it exactly.

        >>> import pandas as pd, treelearn as tl
        >>> post = tl.tree_posterior(pd.read_csv("datasets/asia.csv").head(500))
        >>> back = TreePosterior.from_dict(post.to_dict())
        >>> bool((back.edge_posterior_matrix == post.edge_posterior_matrix).all())
        True
        """
        counts = self.stats.counts
        beta = None if self.log_edge_prior is None else np.exp(self.log_edge_prior)
        return {
            "variables": [encode_label(v) for v in self.variables],
            "states": [[encode_label(s) for s in self.states[v]] for v in self.variables],
            "dtypes": [encode_dtype(t) for t in self.stats.dtypes] if self.stats.dtypes else None,
            "equivalent_sample_size": self.equivalent_sample_size,
            "n_rows": json_value(counts.n_rows),
            "counts": counts.joint.tolist(),
            "edge_prior": None if beta is None else beta.tolist(),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TreePosterior:
        """The posterior :meth:`to_dict` describes, every field checked: an
        :class:`~treelearn.InvalidModelError` names the field that is wrong."""

        def fail(field: str, why: str) -> InvalidModelError:
            return InvalidModelError(f"tree posterior file: '{field}' {why}")

        if not isinstance(d, Mapping):
            raise InvalidModelError("tree posterior file: the model must be an object")
        try:
            variables = [decode_label(v) for v in d["variables"]]
            states = [tuple(decode_label(x) for x in st) for st in d["states"]]
            dtypes = (
                tuple(decode_dtype(t) for t in d["dtypes"]) if d.get("dtypes") is not None else ()
            )
        except (KeyError, TypeError, DecodeError) as exc:
            raise fail("variables/states/dtypes", f"cannot be read ({exc})") from None
        if len(set(variables)) != len(variables) or not variables:
            raise fail("variables", "must be distinct labels, at least one")
        if len(states) != len(variables) or any(not st or len(set(st)) != len(st) for st in states):
            raise fail("states", "must give each variable its distinct states")
        if dtypes and len(dtypes) != len(variables):
            raise fail("dtypes", "must give one dtype per variable")
        cards = np.array([len(st) for st in states], dtype=np.int64)
        K = int(cards.sum())
        joint = np.array(d.get("counts")) if d.get("counts") is not None else None
        if joint is not None and joint.dtype.kind not in "iuf":  # not the text "7" as 7.0
            joint = None
        elif joint is not None:
            joint = joint.astype(float)
        if (
            joint is None
            or joint.shape != (K, K)
            or not np.isfinite(joint).all()
            or (joint < 0).any()
            or not np.allclose(joint, joint.T, rtol=1e-12, atol=0)
        ):
            raise fail("counts", f"must be a symmetric {K} x {K} matrix of finite counts >= 0")
        n = from_json_value(d.get("n_rows"))
        if isinstance(n, bool) or not isinstance(n, (int, float)) or not np.isfinite(n) or n < 0:
            raise fail("n_rows", "must be a finite number >= 0")
        if joint.dtype.kind == "f" and np.array_equal(joint, np.rint(joint)) and float(n) == int(n):
            joint = joint.astype(np.int64)  # whole counts were saved: exact integers again
        ess = d.get("equivalent_sample_size")
        try:
            ess = check_param("equivalent_sample_size", ess, CONSTRAINTS["equivalent_sample_size"])
        except TreelearnError as exc:
            raise fail("equivalent_sample_size", str(exc)) from None
        stats = CountedTable(
            tuple(variables), tuple(states), dtypes, pairs=PairCounts(joint, cards, n)
        )
        try:
            prior = _log_edge_prior(d.get("edge_prior"), variables)
        except TreelearnError as exc:
            raise fail("edge_prior", str(exc)) from None
        return cls(stats, ess, prior)

    # ------------------------------------------------------------------ pictures
    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`): the exact distribution is no
        network, so the page carries its joint table, ``P(x | D)`` of every complete
        assignment from :meth:`log_likelihood_codes` (the Bayesian average, Meila &
        Jaakkola), at most 4,096 of them, which it sums under the evidence. Drawn as the
        most probable tree (:meth:`map_tree`), each edge's strength its posterior
        probability ``P(uv in T | D)``; each variable's hover its marginal."""
        from ..viz._page_spec import MAX_JOINT, hover_table, label

        variables = self.variables
        cards = [len(self.states[v]) for v in variables]
        total = float(np.prod(cards, dtype=float))
        if total > MAX_JOINT:
            raise TreelearnError(
                f"the explorer shows this {type(self).__name__}'s exact posteriors from its "
                f"joint table, but its {len(variables)} variables have {total:,.0f} complete "
                f"assignments (more than {MAX_JOINT:,}; each is a sum over every spanning "
                f"tree, and no cheaper exact marginal exists): explore its most probable "
                f"tree, map_tree()"
            )
        rows = np.array(list(np.ndindex(*cards)), dtype=np.int64).reshape(int(total), len(cards))
        p = np.exp(self.log_likelihood_codes(rows))
        spec = self.map_tree().explorer_spec()
        where = {label(v): j for j, v in enumerate(variables)}
        order = [where[v["name"]] for v in spec["variables"]]  # the page's -> the columns'
        P = self.edge_posterior_matrix
        for e in spec["edges"][0]:  # strength: the edge's posterior probability
            e[3] = round(1.0 + 3.0 * float(P[order[e[0]], order[e[1]]]), 2)
            e[4] = float(P[order[e[0]], order[e[1]]])
        for i, v in enumerate(spec["variables"]):  # the hover: the variable's own marginal
            j = order[i]
            marginal = np.bincount(rows[:, j], weights=p, minlength=cards[j]) / p.sum()
            v["cpt"] = hover_table([marginal.tolist()], [], {})
        if title is None:
            title = (
                f"Bayesian average over all spanning trees · {len(variables)} variables · "
                f"n = {self.n_rows:,.0f} · drawn: the most probable tree"
            )
        return {
            **spec,
            "title": title,
            "strength": "posterior",
            "components": [],
            "joint": {"rows": rows[:, order].tolist(), "p": p.tolist()},
        }

    def _likely_edges(self, threshold: float) -> nx.Graph:
        """Every variable, and the edges of posterior ``>= threshold`` (attribute ``posterior``)."""
        G = self.edge_probabilities()
        H = nx.Graph()
        H.add_nodes_from(G)
        H.add_edges_from((u, v, a) for u, v, a in G.edges(data=True) if a["posterior"] >= threshold)
        return H

    def to_dot(self, threshold: float = 0.5, **kwargs: Any) -> str:
        """Graphviz DOT of the edges with posterior ``>= threshold``, each labelled with its
        probability (``digits``, default 2; what :meth:`draw` draws).

        >>> import pandas as pd, treelearn as tl
        >>> post = tl.tree_posterior(pd.read_csv("datasets/asia.csv").head(300))
        >>> post.to_frame().head(2)[["u", "v"]].values.tolist()   # the surest edges
        [['bronc', 'dysp'], ['lung', 'either']]
        >>> [line for line in post.to_dot(0.999).splitlines() if "--" in line]
        ['  "lung" -- "either" [penwidth=4.70, label="1.00"];', '  "bronc" -- "dysp" [penwidth=4.70, label="1.00"];']
        """
        from ..viz._draw import graph_to_dot

        return graph_to_dot(self._likely_edges(threshold), "posterior", **kwargs)

    def to_mermaid(self, threshold: float = 0.5, **kwargs: Any) -> str:
        """A Mermaid flowchart of the edges with posterior ``>= threshold``, labelled
        (``digits``: of the probabilities)."""
        from ..viz._draw import graph_to_mermaid

        return graph_to_mermaid(self._likely_edges(threshold), "posterior", **kwargs)

    def draw(
        self,
        ax: Any = None,
        *,
        threshold: float = 0.5,
        digits: int = 2,
        seed: int = 0,
        title: str | bool | None = True,
        edge_labels: bool = True,
        **kwargs: Any,
    ) -> Any:
        """Draw the edges with posterior ``>= threshold``: width and opacity by
        posterior, each labelled with its probability (``edge_labels``); returns the
        Figure. ``ax``, first as in every model's ``draw``: the matplotlib Axes to draw
        on (default: a new figure). ``title``: ``True`` says the threshold, ``n`` and the
        BDeu sample size, a string is the title, ``False``/``None`` none. No other option."""
        from ..viz._draw import new_figure

        if kwargs:  # the protocol's draw takes options by kind: these are this kind's
            raise TypeError(f"draw() got unexpected keyword arguments {sorted(kwargs)}")
        if isinstance(ax, Real):  # the threshold was the first argument once
            raise TreelearnError(
                f"draw's first argument is the matplotlib Axes to draw on, not {ax!r}; "
                f"give the threshold by name: draw(threshold={ax!r})",
                values=[ax],
            )

        H = self._likely_edges(threshold)
        if ax is None:
            fig = new_figure((max(4, len(H) ** 0.5 * 2),) * 2)  # not pyplot's: any number of them
            ax = fig.subplots()
        else:
            fig = ax.figure
        pos = nx.spring_layout(H, weight="posterior", seed=seed)
        probs = [a["posterior"] for _, _, a in H.edges(data=True)]
        nx.draw_networkx_nodes(H, pos, ax=ax, node_color="#dde8f4", edgecolors="#335")
        nx.draw_networkx_labels(H, pos, ax=ax, font_size=8)
        for (u, v), p in zip(H.edges(), probs):
            nx.draw_networkx_edges(
                H, pos, edgelist=[(u, v)], ax=ax, width=0.5 + 4 * p, alpha=0.25 + 0.75 * p
            )
        if edge_labels:
            nx.draw_networkx_edge_labels(
                H,
                pos,
                ax=ax,
                font_size=7,
                edge_labels={(u, v): f"{p:.{digits}f}" for (u, v), p in zip(H.edges(), probs)},
            )
        if title is True:
            title = (
                f"edges with posterior >= {threshold:g} (n = {self.n_rows}, "
                f"equivalent sample size = {self.equivalent_sample_size:g})"
            )
        if title:
            ax.set_title(title)
        ax.set_axis_off()
        return fig


#: the options of :func:`tree_posterior` beside the edge prior
POSTERIOR_CONSTRAINTS: dict[str, list[Any]] = {
    "equivalent_sample_size": CONSTRAINTS["equivalent_sample_size"],
    "missing": [Options("error", "drop")],
    **READING,
}
POSTERIOR_NOTES = {
    "equivalent_sample_size": NOTES["equivalent_sample_size"],
    "missing": "the posterior needs complete rows: 'drop' drops incomplete ones",
}


def tree_posterior_from_counts(
    stats: CountedTable, equivalent_sample_size: float = 1.0, edge_prior: Any = None
) -> TreePosterior:
    """:func:`tree_posterior` from sufficient statistics (complete data)."""
    ess = check_param(
        "equivalent_sample_size",
        equivalent_sample_size,
        CONSTRAINTS["equivalent_sample_size"],
        note=NOTES["equivalent_sample_size"],
    )
    counts = stats.counts
    totals = counts.pair_totals()
    if (np.asarray(totals) != counts.n_rows).any():
        raise MissingValuesError(
            "tree_posterior needs complete rows: with missing values the marginal likelihood "
            "does not factorise over edges; pass missing='drop' (or impute)"
        )
    return TreePosterior(stats, ess, _log_edge_prior(edge_prior, list(stats.columns)))


def tree_posterior(
    data: Any,
    equivalent_sample_size: float = 1.0,
    edge_prior: Any = None,
    *,
    missing: MissingPolicy = "error",
    sample_weight: Any = None,
    max_states: int = DEFAULT_MAX_STATES,
    states: Mapping[Hashable, Sequence] | None = None,
    chunksize: int = 200_000,
) -> TreePosterior:
    """The exact Bayesian posterior over all spanning trees of ``data``: the model
    ``BayesianTrees(equivalent_sample_size, edge_prior, ...).fit(data,
    sample_weight=sample_weight).model_`` (the estimator :class:`~treelearn.BayesianTrees`,
    whose docstring explains every option).

    Parameters
    ----------
    data : DataFrame, str, os.PathLike, dask DataFrame or scipy.sparse matrix
        Discrete columns (a file is read in chunks; a sparse matrix holds 0/1 values).
    equivalent_sample_size : float, default=1.0
        The BDeu prior's equivalent sample size of every edge's parameters.
    edge_prior : array-like or networkx.Graph, default=None
        A symmetric ``d x d`` matrix of non-negative edge factors, or a graph whose
        edges carry ``prior``; a tree's prior is their product (default: uniform over
        trees).
    missing : {"error", "drop"}, default="error"
        :class:`~treelearn.BayesianTrees`' options.
    max_states : int, default=100
        :class:`~treelearn.BayesianTrees`' options.
    states : dict, default=None
        :class:`~treelearn.BayesianTrees`' options.
    chunksize : int, default=200000
        :class:`~treelearn.BayesianTrees`' options.
    sample_weight : array-like or str, default=None
        One non-negative weight per row (a column name for a file).

    Returns
    -------
    TreePosterior
        Edge posteriors, the MAP tree, and the model averaged over every tree.

    See Also
    --------
    BayesianTrees : the estimator.
    k_best_trees : the few best trees by likelihood.

    References
    ----------
    .. [1] Meila, M. and Jaakkola, T. (2006). Tractable Bayesian learning of tree belief
       networks. Statistics and Computing 16(1), 77-92.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv").iloc[:300]
    >>> post = tl.tree_posterior(df, equivalent_sample_size=1.0)
    >>> post.to_frame().iloc[0][["u", "v"]].tolist()    # the surest edge
    ['bronc', 'dysp']
    >>> round(float(post.edge_posterior_matrix.sum()) / 2, 9)   # d - 1 edges in every tree
    7.0
    >>> bool(post.log_likelihood(df.iloc[:5]) > post.map_tree().log_likelihood(df.iloc[:5]) - 1)
    True
    """
    options = check_params(
        {
            "equivalent_sample_size": equivalent_sample_size,
            "missing": missing,
            "max_states": max_states,
            "states": states,
            "chunksize": chunksize,
        },
        POSTERIOR_CONSTRAINTS,
        POSTERIOR_NOTES,
    )
    ess = options.pop("equivalent_sample_size")
    stats = count(data, sample_weight=sample_weight, **options)
    return tree_posterior_from_counts(stats, ess, edge_prior)


def k_best_trees(
    data: Any,
    k: int,
    alpha: float = 1.0,
    *,
    missing: MissingPolicy = "error",
    sample_weight: Any = None,
    max_states: int = DEFAULT_MAX_STATES,
) -> list[TreeModel]:
    """The ``k`` spanning trees of highest maximum likelihood, best first, as TreeModels.

    A tree's maximised log-likelihood is ``n (sum of its edges' MI - sum_v H_v)``,
    so these are the ``k`` spanning trees of largest total mutual information
    (NetworkX's ``SpanningTreeIterator``; trees of equal weight come in its
    order). ``alpha`` smooths the CPTs (Lidstone; 0 = maximum likelihood, 1 = Laplace,
    the default), as in :func:`treelearn.chow_liu`: the trees are ranked by their
    maximum-likelihood fit whatever ``alpha`` is. Fewer than ``k`` trees come back when
    fewer exist; ``k`` is at most :data:`MAX_TREES` (checked before any work).

    Parameters
    ----------
    data : DataFrame, str or os.PathLike
        Discrete columns.
    k : int
        How many trees (at least 1).
    alpha : float, default=1.0
        The CPTs' Lidstone pseudocount.
    missing : {"error", "drop", "pairwise"}, default="error"
        What missing cells do.
    sample_weight : array-like, default=None
        One non-negative weight per row.
    max_states : int, default=100
        The most states a column may have.

    Returns
    -------
    list of TreeModel
        At most ``k`` models, the maximum-likelihood tree first.

    Raises
    ------
    ResourceLimitError
        ``k`` above ``MAX_TREES``.

    See Also
    --------
    chow_liu : the best tree alone.
    tree_posterior : every spanning tree, weighted by its posterior.

    References
    ----------
    .. [1] Sörensen, K. and Janssens, G. K. (2005). An algorithm to generate all spanning
       trees of a graph in order of increasing cost. Pesquisa Operacional 25(2), 219-229.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> best = tl.k_best_trees(df, 3, alpha=0)
    >>> best[0] == tl.chow_liu(df, alpha=0)
    True
    >>> lls = [m.log_likelihood(df) for m in best]
    >>> lls == sorted(lls, reverse=True)
    True
    """
    k = _check_number_of_trees(k, 1)
    settings = LearningSettings(method="k-best", alpha=alpha, missing=missing)
    stats = count(data, missing=missing, max_states=max_states, sample_weight=sample_weight)
    return k_best_trees_from_counts(stats, k, settings)


def k_best_trees_from_counts(stats: Any, k: int, settings: LearningSettings) -> list[TreeModel]:
    """:func:`k_best_trees` of counted statistics (a
    :class:`~treelearn.stats._counts.CountedTable`), e.g. those of a file read in chunks."""
    G = mi_graph_from_counts(stats)
    out = []
    if len(G) < 2:
        return [build_model(orient(G), stats, settings)]
    for T in nx.SpanningTreeIterator(G, weight="weight", minimum=False):
        # rebuild in column order so that orient roots it at the first column, as chow_liu does
        S = nx.Graph()
        S.graph.update(G.graph)
        S.add_nodes_from(G.nodes(data=True))
        pos = {v: j for j, v in enumerate(stats.columns)}
        edges = sorted(
            (tuple(sorted((u, v), key=pos.__getitem__)) for u, v in T.edges()),
            key=lambda e: (-G.edges[e]["weight"], pos[e[0]], pos[e[1]]),
        )
        S.add_edges_from((u, v, dict(G.edges[u, v])) for u, v in edges)
        out.append(build_model(orient(S), stats, settings))
        if len(out) == k:
            break
    return out
