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
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils.validation import check_is_fitted

from .._base.jsonvalues import json_value
from .._base.logspace import logsumexp
from .._base.persistence import Persistent, SavedState
from .._base.validation import InstanceOf, Interval, Options, check_params
from ..encoding._table import (
    DEFAULT_MAX_STATES,
    CategoricalTableInput,
    Table,
    check_sample_weight,
    distinct_rows,
)
from ..export._jsonfile import save_document
from ..inference._engine import state_index
from ..inference._shapley import (
    EngineGame,
    Explanation,
    MixtureGame,
    check_explain_options,
    explain_game,
)
from ..models._gaussian import RANDOM_STATE
from ..models._tree import TreeModel
from ..sources._count import in_memory_table
from ..sources._kinds import as_frame, match_features
from ..stats._counts import CountedTable, PairCounts, count_codes
from ..stats._settings import LearningSettings
from ._chow_liu import chow_liu_from_counts
from ._em import expected_counts

__all__ = ["TreeMixture"]


class TreeMixture(Persistent, CategoricalTableInput, DensityMixin, BaseEstimator):
    """A mixture of tree-shaped Bayesian networks, learned by EM.

    Follows scikit-learn's ``GaussianMixture``: ``fit``, ``score`` (mean
    log-likelihood per row, so ``GridSearchCV`` picks the best held-out
    likelihood), ``score_samples``, ``predict`` / ``predict_proba`` (component
    responsibilities), ``sample`` (a DataFrame), ``bic`` / ``aic``. **BIC and AIC
    take treelearn's sign, larger is better** (``log_likelihood - n_parameters / 2
    ln n`` and ``log_likelihood - n_parameters``, as :meth:`TreeModel.bic
    <treelearn.models._tree.TreeModel.bic>` and bnlearn); scikit-learn's
    ``GaussianMixture.bic`` is ``-2`` times this (lower is better), and so was this
    class's before.

    ``fit`` takes a DataFrame, a CSV/Parquet path (**read whole**: EM revisits every
    row), a Dask DataFrame (**computed**, its rows then held in memory) or a
    ``scipy.sparse`` 0/1 matrix (as its dense 0/1 table); see
    :func:`treelearn.sources._count.in_memory_table`. Every kind gives the same mixture.

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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # 0/1 scipy.sparse matrices (sources.in_memory_table)
        tags.input_tags.allow_nan = False  # missing="error" by default; scoring sums NaN out
        return tags

    # ------------------------------------------------------------ options
    #: every option's accepted values, checked once when ``fit`` starts
    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None)],
        "alpha": [Interval(Real, 0, None)],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
        "n_init": [Interval(Integral, 1, None)],
        "init": [Options("random", "random_resp", "k-means++")],
        "random_state": RANDOM_STATE,
        "mi_alpha": [None, Interval(Real, 0, None)],
        "states": [None, InstanceOf(Mapping, name="a dict {column: [states]}")],
        "missing": [Options("error", "drop", "em")],
        "max_states": [Interval(Integral, 1, None)],
    }
    _parameter_notes: ClassVar[dict] = {
        "alpha": "0 = maximum likelihood, 1 = Laplace",
        "missing": "scoring sums missing cells out whatever this is; 'pairwise' counts have "
                   "no likelihood to run EM on",
    }

    def _check_params(self) -> tuple[dict, LearningSettings]:
        params = check_params(self.get_params(), self._parameter_constraints,
                              self._parameter_notes)
        return params, LearningSettings(method="tree-mixture component", alpha=params["alpha"],
                                        mi_alpha=params["mi_alpha"], missing=params["missing"])

    # ------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> TreeMixture:
        """Learn the mixture by EM from the rows of ``X`` (``y`` is ignored); returns self.

        ``X``: any kind :func:`~treelearn.sources._count.in_memory_table` takes (a path is
        read whole, a Dask DataFrame computed). ``sample_weight`` weights the rows (integer
        weights equal repeated rows): one number per row, or the name of the weight column
        of a file or a Dask DataFrame.
        """
        params, settings = self._check_params()
        table, group = _merge_identical_rows(in_memory_table(
            X, learner="TreeMixture",
            missing="pairwise" if params["missing"] == "em" else params["missing"],
            max_states=params["max_states"], states=params["states"],
            sample_weight=sample_weight))
        rng = np.random.default_rng(params["random_state"])
        best = None
        for _ in range(params["n_init"]):
            resp = _initial_responsibilities(table, group, params["n_components"],
                                             params["init"], rng)
            run = _em(table, resp, settings, params["max_iter"], params["tol"])
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
    def _estimate_log_prob(self, X: Any) -> np.ndarray:
        """``log w_k + log T_k(x_r)`` for every row and component (missing cells summed out)."""
        check_is_fitted(self)
        codes = self.components_[0].encode(self._matched_frame(X)).codes  # every component has the same states
        return _weighted_log_prob(self.components_, self.weights_, codes)

    def score_samples(self, X: Any) -> np.ndarray:
        """Log-likelihood of each row (nats); missing cells are summed out exactly."""
        return logsumexp(self._estimate_log_prob(X), axis=1)

    def _log_likelihood(self, X: Any, sample_weight: Any) -> tuple[float, float]:
        """``(total log-likelihood, n)``: weighted by ``sample_weight`` (``n``: the total
        weight); a row of weight zero does not count, even if impossible."""
        rows = self.score_samples(X)
        weights = check_sample_weight(sample_weight, len(rows))
        if weights is None:
            return float(rows.sum()), float(len(rows))
        counted = weights > 0
        return float(rows[counted] @ weights[counted]), float(weights.sum())

    def score(self, X: Any, y: Any = None, sample_weight: Any = None) -> float:
        """Mean log-likelihood per row (what ``GridSearchCV`` maximises); with
        ``sample_weight``, the weighted mean."""
        total, n = self._log_likelihood(X, sample_weight)
        return total / n

    def predict_proba(self, X: Any) -> np.ndarray:
        """``P(component k | observed values of row r)``: an ``n x k`` array whose rows sum to 1."""
        log_prob = self._estimate_log_prob(X)
        return np.exp(log_prob - logsumexp(log_prob, axis=1, keepdims=True))

    def predict(self, X: Any) -> np.ndarray:
        """The most probable component of each row."""
        return np.argmax(self._estimate_log_prob(X), axis=1)

    def explain(self, X: Any, target: Hashable, kind: str = "log_odds", conditional: bool = True,
                background: Any = None, output: str | None = None, target_state: Any = None,
                random_state: int | np.random.Generator | None = None, method: str = "auto",
                n_permutations: int = 256) -> Explanation:
        """Each other column's contribution to the mixture's prediction of ``target``,
        ``P(target | x_S) = sum_k w_k P_k(target, x_S) / sum_k w_k P_k(x_S)``, for every row
        of ``X`` (options as :meth:`TreeModel.explain
        <treelearn.models._tree.TreeModel.explain>`; on trees every coalition of a row is
        one pass per component; the mixture couples all columns, so there are no
        independent groups).

        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> mix = tl.TreeMixture(random_state=0).fit(df)
        >>> e = mix.explain(df.head(2), "either", kind="shapley", output="proba")
        >>> bool(np.allclose(e.values.sum(axis=1) + e.base, e.prediction))
        True
        """
        check_is_fitted(self)
        params = check_explain_options(kind=kind, conditional=conditional, output=output,
                                       method=method, n_permutations=n_permutations,
                                       random_state=random_state)
        first = self.components_[0]
        first.parents(target)  # a ColumnNotFoundError naming the variables
        frame = self._matched_frame(X)
        codes = first.encode(frame).codes
        other = None if background is None else first.encode(self._matched_frame(
            background)).codes
        players = [j for j, v in enumerate(first.variables) if v != target]
        games = [EngineGame(c.engine(target), codes, players, background=other)
                 for c in self.components_]
        with np.errstate(divide="ignore"):
            log_w = np.log(self.weights_ / self.weights_.sum())
        state = None if target_state is None else state_index(first.states[target], target,
                                                              target_state)
        data = frame[[first.variables[j] for j in players]]
        return explain_game(MixtureGame(games, log_w), target=state, data=data,
                            index=frame.index, target_name=target, **params)

    def _matched_frame(self, X: Any) -> pd.DataFrame:
        return as_frame(match_features(X, names=self.feature_names_in_,
                                       n_features=self.n_features_in_, estimator="TreeMixture"),
                        self.feature_names_in_, learner="TreeMixture")

    @property
    def n_parameters(self) -> int:
        """Free parameters: every component's CPT parameters and ``k - 1`` weights."""
        check_is_fitted(self)
        return sum(c.n_parameters for c in self.components_) + len(self.components_) - 1

    def bic(self, X: Any, sample_weight: Any = None) -> float:
        """``log_likelihood - n_parameters / 2 * ln n`` (``n``: the rows, or their total
        weight): **larger is better**, as for :meth:`TreeModel.bic
        <treelearn.models._tree.TreeModel.bic>`; scikit-learn's ``GaussianMixture.bic`` is
        ``-2`` times this."""
        total, n = self._log_likelihood(X, sample_weight)
        return total - 0.5 * self.n_parameters * np.log(n)

    def aic(self, X: Any, sample_weight: Any = None) -> float:
        """``log_likelihood - n_parameters`` (weighted by ``sample_weight``): larger is better."""
        total, _ = self._log_likelihood(X, sample_weight)
        return total - self.n_parameters

    # ------------------------------------------------------------ sampling
    def sample(
        self, n: int, random_state: int | np.random.Generator | None = None, *,
        return_components: bool = False,
    ) -> pd.DataFrame | tuple[pd.DataFrame, np.ndarray]:
        """Draw ``n`` rows as a DataFrame (with ``return_components=True``, also the
        component each row was drawn from: ``(DataFrame, array)``, scikit-learn's pair).

        >>> import pandas as pd, treelearn as tl
        >>> mix = tl.TreeMixture(random_state=0).fit(pd.read_csv("datasets/asia.csv"))
        >>> mix.sample(4, random_state=1).shape
        (4, 8)
        >>> X, component = mix.sample(4, random_state=1, return_components=True)
        >>> component.shape
        (4,)
        """
        check_is_fitted(self)
        checked = check_params({"n": n, "random_state": random_state},
                               {"n": [Interval(Integral, 0, None)], "random_state": RANDOM_STATE})
        n = checked["n"]
        rng = np.random.default_rng(checked["random_state"])
        per_component = rng.multinomial(n, self.weights_ / self.weights_.sum())
        parts = [c.sample(int(m), random_state=rng) for c, m in zip(self.components_, per_component)]
        labels = np.repeat(np.arange(len(self.components_)), per_component)
        X = pd.concat(parts, ignore_index=True)
        return (X, labels) if return_components else X

    # ------------------------------------------------------------ pictures, files
    def draw(self, **kwargs: Any) -> Any:
        """One panel per component, titled with its weight (see :func:`treelearn.viz._draw.draw_panels`)."""
        check_is_fitted(self)
        from ..viz._draw import draw_panels

        titles = [f"component {k}: weight {w:.3f}" for k, w in enumerate(self.weights_)]
        kwargs.setdefault("heading", f"mixture of {len(self.components_)} trees")
        return draw_panels(self.components_, titles, **kwargs)

    # (to_dict / from_dict: the one codec, treelearn._base.persistence; the fitted parts here)
    def _fitted_state(self) -> dict:
        """The fitted parts beside the codec's header (what ``to_dict`` adds).

        >>> import pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> mix = tl.TreeMixture(random_state=0).fit(df)
        >>> back = tl.TreeMixture.from_dict(mix.to_dict())
        >>> bool((back.score_samples(df) == mix.score_samples(df)).all())
        True
        """
        return {"weights": [float(w) for w in self.weights_],
                "components": [c.to_dict() for c in self.components_],
                "converged": bool(self.converged_), "n_iter": int(self.n_iter_),
                "lower_bounds": json_value([float(b) for b in self.lower_bounds_]),
                "lower_bound": json_value(float(self.lower_bound_))}

    def _restore_fitted(self, saved: SavedState) -> None:
        """Every component checked (:meth:`TreeModel.from_dict`), the same variables and
        states in each, the weights a distribution, the bounds numbers."""
        components = [TreeModel.from_dict(c) for c in saved.raw("components", list)]
        if not components:
            raise saved.fail("components", "is empty")
        weights = saved.array("weights", (len(components),), low=0, normalised=0)
        first = components[0]
        for k, c in enumerate(components[1:], start=1):
            if c.variables != first.variables or c.states != first.states:
                raise saved.fail("components", f"component {k} has other variables or states "
                                               f"than component 0")
        names = getattr(self, "feature_names_in_", None)
        if names is not None and list(names) != list(first.variables):
            raise saved.fail("feature_names", "differ from the components' variables")
        self.components_, self.weights_ = components, weights
        self.converged_ = bool(saved.raw("converged", bool))
        self.n_iter_ = saved.raw("n_iter", int)
        self.lower_bounds_ = saved.array("lower_bounds", (None,), finite=False).tolist()
        bound = saved.value("lower_bound")
        if not isinstance(bound, (int, float)) or isinstance(bound, bool) or np.isnan(bound):
            raise saved.fail("lower_bound", "must be a number")
        self.lower_bound_ = float(bound)
        self.feature_names_in_ = np.asarray(first.variables, dtype=object)
        self.n_features_in_ = len(first.variables)

    def save(self, path: str | os.PathLike) -> None:
        """Save to a versioned JSON file; read it back with :func:`treelearn.load`."""
        save_document(path, "estimator", **{"class": type(self).__name__, "state": self.to_dict()})


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
