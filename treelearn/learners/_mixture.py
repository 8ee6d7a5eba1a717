"""Mixtures of Chow-Liu trees learned by EM (Meilă & Jordan, JMLR 2000).

``P(x) = sum_k w_k T_k(x)``, each ``T_k`` a tree-shaped :class:`~treelearn.models._tree.TreeModel`.
Likelihoods, marginals (missing cells are summed out exactly) and sampling stay
exact and cheap, while the mixture models dependencies no single tree can.

EM alternates

* **E-step** (log space): ``log r_rk = log w_k + log T_k(x_r) - logsumexp_k(...)``;
* **M-step**: the responsibilities are row weights. The data are encoded once and
  identical rows merged into one weighted row (EM on them is EM on the data, at the
  cost of the distinct rows: msnbc's 291,326 rows are 9,228); each component's
  pairwise counts are one weighted one-hot product (:func:`~treelearn.stats._counts.count_codes`
  with ``weights = r[:, k]``) and its tree is the weighted Chow-Liu tree learned from
  them (:func:`~treelearn.learners._chow_liu.chow_liu_from_counts`); ``w_k = sum_r r_rk / n``.

With ``alpha=0`` (and ``mi_alpha=None``) every M-step maximises the expected
complete log-likelihood exactly, so the training log-likelihood
(``lower_bounds_``) never decreases. With smoothing the M-step is the smoothed
(MAP-like) Chow-Liu fit and the bound may move by rounding-sized amounts.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping, Sequence
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils.validation import check_is_fitted

from .._base.errors import InvalidModelError, TreelearnError
from .._base.jsonvalues import DecodeError, EncodeError, from_json_value, json_value
from .._base.logspace import logsumexp
from .._base.validation import Interval, check_param
from ..encoding._table import DEFAULT_MAX_STATES, Table, check_frame, distinct_rows, encode
from ..export._jsonfile import save_document
from ..models._tree import TreeModel
from ..stats._counts import CountedTable, PairCounts, count_codes
from ..stats._settings import LearningSettings
from ._chow_liu import chow_liu_from_counts
from ._em import expected_counts

__all__ = ["TreeMixture"]


class TreeMixture(DensityMixin, BaseEstimator):
    """A mixture of tree-shaped Bayesian networks, learned by EM.

    Follows scikit-learn's ``GaussianMixture``: ``fit``, ``score`` (mean
    log-likelihood per row, so ``GridSearchCV`` picks the best held-out
    likelihood), ``score_samples``, ``predict`` / ``predict_proba`` (component
    responsibilities), ``sample``, ``bic`` / ``aic`` (**lower is better**, as in
    scikit-learn; :meth:`TreeModel.bic <treelearn.models._tree.TreeModel.bic>` is the
    opposite sign convention, higher is better).

    Parameters
    ----------
    n_components : number of trees ``k`` (>= 1).
    alpha : Lidstone pseudocount of every component's CPTs (0 = maximum likelihood).
    max_iter : most EM iterations per initialisation.
    tol : stop when the mean log-likelihood per row changes by less than this.
    n_init : number of initialisations; the one with the best final bound is kept.
    init : ``"random"`` (default): ``n_components`` distinct rows drawn at random are the seeds;
        each row's initial responsibilities are its posterior under product
        distributions centred on the seeds (each variable: half its seed's value,
        half the data's marginal), which separates the components from the start
        (scikit-learn's ``"random_from_data"`` idea). ``"random_resp"``: every row's
        responsibilities drawn from a flat Dirichlet distribution (scikit-learn's
        ``"random"``; the components start nearly equal and EM is slower to part them).
        ``"k-means++"``: as ``"random"``, but the seeds drawn as in k-means++ on the
        Hamming distance (each next seed far from those before): better for
        well-separated components, worse for overlapping ones — try both with ``n_init``.
    random_state : int, ``np.random.Generator`` or None; the same seed gives the
        same mixture.
    mi_alpha : pseudocount of the weighted pairwise joint the trees are chosen
        from (as in :func:`treelearn.chow_liu`); ``None`` uses the weighted counts.
    states : optional ``{column: [states]}`` fixing some columns' states (e.g.
        ``[0, 1]`` for binary data, so that held-out rows with a value absent from
        a training fold can be scored).
    missing : ``"error"`` or ``"drop"`` for training rows with missing values, or ``"em"``:
        keep them and let EM handle their missing cells too (the E-step's responsibilities
        use each row's observed cells; each component's M-step uses expected pairwise
        counts, :func:`treelearn.learners._em.expected_counts`; the first M-step uses the observed
        pairs). Scoring always sums missing cells out exactly.
    max_states : the most states a column may have.

    Attributes
    ----------
    components_ : list of :class:`~treelearn.models._tree.TreeModel`, one tree per component.
    weights_ : ndarray (k,), the mixing weights.
    converged_ : whether the best run converged within ``max_iter``.
    n_iter_ : EM iterations of the best run.
    lower_bound_ : mean training log-likelihood per row of the best run.
    lower_bounds_ : that bound after every iteration of the best run.
    feature_names_in_, n_features_in_ : the columns learned from.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> mix = tl.TreeMixture(n_components=2, random_state=0).fit(df)
    >>> len(mix.components_), round(float(mix.weights_.sum()), 6)
    (2, 1.0)
    >>> bool(mix.score(df) > tl.chow_liu(df, alpha=1.0).log_likelihood(df) / len(df))
    True
    >>> mix.predict_proba(df.head(2)).shape
    (2, 2)
    """

    def __init__(
        self,
        n_components: int = 2,
        alpha: float = 1.0,
        max_iter: int = 100,
        tol: float = 1e-4,
        n_init: int = 1,
        init: str = "random",
        random_state: int | np.random.Generator | None = None,
        mi_alpha: float | None = None,
        states: Mapping[Hashable, Sequence] | None = None,
        missing: str = "error",
        max_states: int = DEFAULT_MAX_STATES,
    ) -> None:
        self.n_components = n_components
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.init = init
        self.random_state = random_state
        self.mi_alpha = mi_alpha
        self.states = states
        self.missing = missing
        self.max_states = max_states

    # ------------------------------------------------------------ options
    def _check_params(self) -> LearningSettings:
        for name in ("n_components", "max_iter", "n_init"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise TreelearnError(f"{name} == {value!r}, must be an integer >= 1", values=[value])
        check_param("tol", self.tol, [Interval(Real, 0, None)])
        if self.init not in ("k-means++", "random", "random_resp"):
            raise TreelearnError(f"init must be 'random', 'random_resp' or 'k-means++', "
                                 f"not {self.init!r}",
                                 values=[self.init])
        if self.missing not in ("error", "drop", "em"):
            raise TreelearnError(
                f"missing must be 'error', 'drop' or 'em' when fitting a TreeMixture, not "
                f"{self.missing!r} (scoring sums missing cells out whatever this is)",
                values=[self.missing],
            )
        return LearningSettings(method="tree-mixture component", alpha=self.alpha,
                                mi_alpha=self.mi_alpha, missing=self.missing)

    # ------------------------------------------------------------ fitting
    def fit(self, X: pd.DataFrame, y: Any = None, sample_weight: Any = None) -> TreeMixture:
        """Learn the mixture by EM from the rows of ``X`` (``y`` is ignored); returns self.

        ``sample_weight`` weights the rows (integer weights equal repeated rows).
        """
        settings = self._check_params()
        check_frame(X)
        table, group = _merge_identical_rows(encode(
            X, missing="pairwise" if self.missing == "em" else self.missing,
            max_states=self.max_states, states=self.states,
            sample_weight=sample_weight))
        rng = np.random.default_rng(self.random_state)
        best = None
        for _ in range(self.n_init):
            resp = _initial_responsibilities(table, group, self.n_components, self.init, rng)
            run = _em(table, resp, settings, self.max_iter, self.tol)
            if best is None or run["lower_bound"] > best["lower_bound"]:
                best = run
        self.components_ = best["components"]
        self.weights_ = best["weights"]
        self.converged_ = best["converged"]
        self.n_iter_ = best["n_iter"]
        self.lower_bound_ = best["lower_bound"]
        self.lower_bounds_ = best["lower_bounds"]
        self.feature_names_in_ = np.asarray(table.columns, dtype=object)
        self.n_features_in_ = len(table.columns)
        return self

    # ------------------------------------------------------------ scoring
    def _estimate_log_prob(self, X: pd.DataFrame) -> np.ndarray:
        """``log w_k + log T_k(x_r)`` for every row and component (missing cells summed out)."""
        check_is_fitted(self)
        codes = self.components_[0].encode(X).codes  # every component has the same states
        return _weighted_log_prob(self.components_, self.weights_, codes)

    def score_samples(self, X: pd.DataFrame) -> np.ndarray:
        """Log-likelihood of each row (nats); missing cells are summed out exactly."""
        return logsumexp(self._estimate_log_prob(X), axis=1)

    def score(self, X: pd.DataFrame, y: Any = None) -> float:
        """Mean log-likelihood per row (what ``GridSearchCV`` maximises)."""
        return float(np.mean(self.score_samples(X)))

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """``P(component k | observed values of row r)``: an ``n x k`` array whose rows sum to 1."""
        log_prob = self._estimate_log_prob(X)
        return np.exp(log_prob - logsumexp(log_prob, axis=1, keepdims=True))

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """The most probable component of each row."""
        return np.argmax(self._estimate_log_prob(X), axis=1)

    @property
    def n_parameters(self) -> int:
        """Free parameters: every component's CPT parameters and ``k - 1`` weights."""
        check_is_fitted(self)
        return sum(c.n_parameters for c in self.components_) + len(self.components_) - 1

    def bic(self, X: pd.DataFrame) -> float:
        """``-2 log-likelihood + n_parameters ln n`` (scikit-learn's sign: lower is better)."""
        return -2 * self.score(X) * len(X) + self.n_parameters * np.log(len(X))

    def aic(self, X: pd.DataFrame) -> float:
        """``-2 log-likelihood + 2 n_parameters`` (lower is better)."""
        return -2 * self.score(X) * len(X) + 2 * self.n_parameters

    # ------------------------------------------------------------ sampling
    def sample(
        self, n_samples: int = 1, random_state: int | np.random.Generator | None = None
    ) -> tuple[pd.DataFrame, np.ndarray]:
        """Draw ``n_samples`` rows: ``(DataFrame, component of each row)``, like scikit-learn.

        >>> import pandas as pd, treelearn as tl
        >>> mix = tl.TreeMixture(random_state=0).fit(pd.read_csv("datasets/asia.csv"))
        >>> X, y = mix.sample(4, random_state=1)
        >>> X.shape, y.shape
        ((4, 8), (4,))
        """
        check_is_fitted(self)
        if not isinstance(n_samples, (int, np.integer)) or n_samples < 0:
            raise TreelearnError(f"n_samples == {n_samples!r}, must be an integer >= 0")
        rng = np.random.default_rng(random_state)
        per_component = rng.multinomial(n_samples, self.weights_ / self.weights_.sum())
        parts = [c.sample(int(m), random_state=rng) for c, m in zip(self.components_, per_component)]
        labels = np.repeat(np.arange(len(self.components_)), per_component)
        X = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        return X, labels

    # ------------------------------------------------------------ pictures, files
    def draw(self, **kwargs: Any) -> Any:
        """One panel per component, titled with its weight (see :func:`treelearn.viz._draw.draw_panels`)."""
        check_is_fitted(self)
        from ..viz._draw import draw_panels

        titles = [f"component {k}: weight {w:.3f}" for k, w in enumerate(self.weights_)]
        kwargs.setdefault("heading", f"mixture of {len(self.components_)} trees")
        return draw_panels(self.components_, titles, **kwargs)

    def to_dict(self) -> dict:
        """Everything needed to rebuild the fitted mixture, as JSON-able values.

        >>> import pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> mix = tl.TreeMixture(random_state=0).fit(df)
        >>> back = tl.TreeMixture.from_dict(mix.to_dict())
        >>> bool((back.score_samples(df) == mix.score_samples(df)).all())
        True
        """
        check_is_fitted(self)
        try:
            return {
                "estimator": type(self).__name__,
                "params": {k: json_value(v) for k, v in self.get_params().items()},
                "weights": self.weights_.tolist(),
                "components": [c.to_dict() for c in self.components_],
                "converged": bool(self.converged_),
                "n_iter": int(self.n_iter_),
                "lower_bounds": [float(b) for b in self.lower_bounds_],
                "lower_bound": float(self.lower_bound_),
            }
        except EncodeError as exc:  # jsonvalues knows no treelearn errors
            raise TreelearnError(str(exc)) from None

    @classmethod
    def from_dict(cls, state: Mapping[str, Any]) -> TreeMixture:
        """The fitted mixture that :meth:`to_dict` describes, every component checked."""
        if not isinstance(state, Mapping) or state.get("estimator") != cls.__name__:
            raise InvalidModelError(f"the saved state is not a {cls.__name__}")
        try:
            est = cls(**{k: from_json_value(v) for k, v in state["params"].items()})
        except DecodeError as exc:
            raise InvalidModelError(str(exc)) from None
        components = [TreeModel.from_dict(c) for c in state["components"]]
        weights = np.asarray(state["weights"], dtype=float)
        if not components or len(weights) != len(components):
            raise InvalidModelError(
                f"a saved TreeMixture needs one weight per component, got {len(weights)} "
                f"weight(s) and {len(components)} component(s)"
            )
        first = components[0]
        for k, c in enumerate(components[1:], start=1):
            if c.variables != first.variables or c.states != first.states:
                raise InvalidModelError(
                    f"component {k} has other variables or states than component 0"
                )
        if (weights < 0).any() or not np.isclose(weights.sum(), 1.0):
            raise InvalidModelError(f"mixture weights {weights.tolist()} must be >= 0 and sum to 1")
        est.components_, est.weights_ = components, weights
        est.converged_, est.n_iter_ = bool(state["converged"]), int(state["n_iter"])
        est.lower_bounds_ = [float(b) for b in state["lower_bounds"]]
        est.lower_bound_ = float(state["lower_bound"])
        est.feature_names_in_ = np.asarray(first.variables, dtype=object)
        est.n_features_in_ = len(first.variables)
        return est

    def save(self, path: str | os.PathLike) -> None:
        """Save to a versioned JSON file; read it back with :func:`treelearn.load`."""
        save_document(path, "classifier", **{"class": type(self).__name__, "state": self.to_dict()})


# ---------------------------------------------------------------- EM
def _merge_identical_rows(table: Table) -> tuple[Table, np.ndarray]:
    """The same data with identical rows merged into one row weighted by their total weight,
    and the merged row of every original row.

    Identical rows get identical responsibilities, so EM on the merged rows is EM on the
    data (every count and the bound are the same weighted sums), at the cost of the distinct
    rows only: 291,326 rows of msnbc are 9,228 distinct ones. The distinct rows come from
    :func:`treelearn.encoding._table.distinct_rows` (exact, numbered in order of first appearance).
    """
    n = table.codes.shape[0]
    if table.codes.shape[1] == 0:
        return table, np.arange(n)
    first, group = distinct_rows(table.codes)
    m = len(first)
    if m == n:
        return table, np.arange(n)
    weights = np.bincount(group, weights=table.weights, minlength=m)
    return Table(table.codes[first], table.columns, table.states, table.dtypes, weights), group


def _weighted_log_prob(components: Sequence[TreeModel], weights: np.ndarray,
                       codes: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        log_w = np.log(weights)
    return np.column_stack(
        [lw + c.log_likelihood_codes(codes) for lw, c in zip(log_w, components)]
    )


def _m_step(table: Table, resp: np.ndarray, settings: LearningSettings,
            previous: Sequence[TreeModel] | None = None) -> tuple[list, np.ndarray]:
    """One weighted Chow-Liu tree per component (responsibilities as row weights) and weights.

    With missing cells and the ``previous`` components, component ``k``'s counts are the
    expected complete-data counts under component ``k`` (EM over the missing cells too);
    without ``previous``, the counts of the observed pairs.
    """
    row_weights = resp if table.weights is None else resp * table.weights[:, None]
    incomplete = previous is not None and bool((table.codes < 0).any())
    components = []
    for k in range(resp.shape[1]):
        w = row_weights[:, k]
        if incomplete:
            pairs, _ = expected_counts(previous[k], table.codes, w, all_pairs=True)
        else:
            joint = count_codes(table.codes, table.cardinalities, weights=w)
            total = float(w.sum())
            pairs = PairCounts(joint, table.cardinalities,
                               int(total) if joint.dtype.kind in "iu" else total)
        stats = CountedTable(table.columns, table.states, table.dtypes, pairs=pairs)
        components.append(chow_liu_from_counts(stats, settings))
    n_k = row_weights.sum(axis=0) + 10 * np.finfo(float).eps  # no component of weight 0
    return components, n_k / n_k.sum()


def _initial_responsibilities(table: Table, group: np.ndarray, k: int, init: str,
                              rng: np.random.Generator) -> np.ndarray:
    """Random starting responsibilities (one row per merged row, rows summing to 1); see ``init``.

    ``group[r]`` is the merged row of original row ``r``. Every random draw is made over the
    original rows, as if they had not been merged, so merging changes nothing but the speed:
    the seeds are the same rows, and a merged row's responsibilities are the mean of its rows'.
    """
    n, m, d = len(group), table.codes.shape[0], table.codes.shape[1]
    if k == 1:
        return np.ones((m, 1))
    size = np.bincount(group, minlength=m).astype(float)  # original rows per merged row
    if init == "random_resp" or n < k:
        drawn = rng.dirichlet(np.ones(k), size=n)
        return np.column_stack([np.bincount(group, weights=drawn[:, c], minlength=m)
                                for c in range(k)]) / size[:, None]
    codes = table.codes.astype(np.intp)
    seen = codes >= 0
    cards = table.cardinalities
    marginal = np.zeros((d, int(cards.max()) + 1))
    for j in range(d):  # a loop over variables, not rows
        observed = np.bincount(codes[seen[:, j], j], weights=size[seen[:, j]], minlength=cards[j])
        marginal[j, : cards[j]] = observed / max(observed.sum(), 1.0)
    marginal[:, -1] = 1.0  # a missing cell (code -1 picks the last column): factor 1
    cell_marginal = marginal[np.arange(d)[None, :], codes]  # m_j(x_rj), m x d
    if init == "k-means++":
        seeds = _spread_seeds(codes, k, rng, group)
    else:
        seeds = _distinct_seeds(codes, group, rng.choice(n, size=k, replace=False), rng)
    log_p = np.empty((m, k))
    for c, seed in enumerate(seeds):
        # p_j(s) = 0.5 [s = seed's value] + 0.5 m_j(s)
        match = (codes == codes[seed]) & seen & seen[seed]
        factor = np.where(seen & seen[seed], 0.5 * match + 0.5 * cell_marginal, 1.0)
        log_p[:, c] = np.log(factor).sum(axis=1)
    return np.exp(log_p - logsumexp(log_p, axis=1, keepdims=True))


def _distinct_seeds(codes: np.ndarray, group: np.ndarray, drawn: np.ndarray,
                    rng: np.random.Generator) -> np.ndarray:
    """The rows of ``codes`` that the original rows ``drawn`` are, a seed whose values equal
    an earlier seed's redrawn among the rows unlike every seed so far: two seeds with the
    same values start two identical components, which EM never separates (data with many
    repeated rows, such as asia, drew them often). Draws are over the original rows
    (``group[r]`` = the row of ``codes`` that original row ``r`` equals)."""
    seeds: list[int] = []
    for r in drawn:
        seed = int(group[r])
        if seeds and (codes[seeds] == codes[seed]).all(axis=1).any():
            unlike = (codes[:, None, :] != codes[seeds][None]).any(axis=2).all(axis=1)
            candidates = np.flatnonzero(unlike[group])
            if len(candidates):  # else fewer distinct rows than components: keep it
                seed = int(group[rng.choice(candidates)])
        seeds.append(seed)
    return np.array(seeds)


def _spread_seeds(codes: np.ndarray, k: int, rng: np.random.Generator,
                  group: np.ndarray | None = None) -> np.ndarray:
    """k-means++ seeding on the Hamming distance: the first seed at random, each next one
    drawn with probability proportional to its squared distance to the nearest seed so far,
    so that the seeds fall in different components (Arthur and Vassilvitskii, 2007).

    ``codes`` are distinct rows and ``group[r]`` the row of ``codes`` that original row ``r``
    equals (default: every row its own): the draws are over the original rows."""
    group = np.arange(codes.shape[0]) if group is None else group
    n = len(group)
    seeds = [int(group[rng.integers(n)])]
    nearest = (codes != codes[seeds[0]]).sum(axis=1).astype(float)  # missing: a mismatch
    for _ in range(1, k):
        weight = nearest[group] ** 2
        total = weight.sum()
        pick = int(rng.choice(n, p=weight / total)) if total > 0 else int(rng.integers(n))
        seeds.append(int(group[pick]))
        nearest = np.minimum(nearest, (codes != codes[seeds[-1]]).sum(axis=1))
    return np.array(seeds)


def _em(table: Table, resp: np.ndarray, settings: LearningSettings, max_iter: int,
        tol: float) -> dict:
    """One EM run from the responsibilities ``resp``."""
    row_w = None if table.weights is None else table.weights / table.weights.sum()
    bounds: list[float] = []
    converged = False
    components, weights = None, None
    for _ in range(max_iter):
        components, weights = _m_step(table, resp, settings, components)
        log_prob = _weighted_log_prob(components, weights, table.codes)
        log_norm = logsumexp(log_prob, axis=1)
        with np.errstate(invalid="ignore"):  # a row impossible under every tree: -inf - -inf
            resp = np.exp(log_prob - log_norm[:, None])
        bound = float(np.mean(log_norm) if row_w is None else np.sum(row_w * log_norm))
        bounds.append(bound)
        if not np.isfinite(bound):
            break
        if len(bounds) > 1 and abs(bounds[-1] - bounds[-2]) < tol:
            converged = True
            break
    return {"components": components, "weights": weights, "converged": converged,
            "n_iter": len(bounds), "lower_bound": bounds[-1], "lower_bounds": bounds}
