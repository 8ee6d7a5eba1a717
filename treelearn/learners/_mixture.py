"""Mixtures of Chow-Liu trees learned by EM (Meilă & Jordan, JMLR 2000).

``P(x) = sum_k w_k T_k(x)``, each ``T_k`` a tree-shaped :class:`~treelearn.TreeModel`.
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

import hashlib
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from numbers import Integral
from typing import Any, ClassVar, cast

import numpy as np
import pandas as pd

from .._base.errors import TreelearnError
from .._base.limits import check_memory
from .._base.logspace import logsumexp
from .._base.persistence import SavedState
from .._base.validation import InstanceOf, Interval, Options
from ..encoding._table import DEFAULT_MAX_STATES, Table, distinct_rows
from ..inference._shapley import Explanation
from ..models._mixture import MixtureModel, weighted_log_likelihoods
from ..models._tree import TreeModel
from ..sources._kinds import as_frame
from ..sources._passes import InMemoryRows, RowPasses
from ..stats._counts import CountedTable, PairCounts, count_codes_weighted
from ..stats._information import mutual_information_matrix
from ..stats._settings import LearningSettings
from ._bayes_trees import k_best_trees, k_best_trees_from_counts
from ._chow_liu import chow_liu_from_counts
from ._density import (
    EM_OPTIONS,
    SMOOTHING,
    SOURCE_OPTIONS,
    EMEstimator,
    EMRun,
    EMSchedule,
    best_run,
    em_run,
    run_starts,
)
from ._em import expected_counts

__all__ = ["TreeMixture"]


class TreeMixture(EMEstimator):
    """A mixture of tree-shaped Bayesian networks, learned by EM.

    Follows scikit-learn's ``GaussianMixture``: ``fit``, ``score`` (mean
    log-likelihood per row, so ``GridSearchCV`` picks the best held-out
    likelihood), ``score_samples``, ``predict`` / ``predict_proba`` (component
    responsibilities), ``sample`` (a DataFrame), ``bic`` / ``aic``. **BIC and AIC
    take treelearn's sign, larger is better** (``log_likelihood - n_parameters / 2
    ln n`` and ``log_likelihood - n_parameters``, as :meth:`TreeModel.bic
    <treelearn.TreeModel.bic>` and bnlearn); scikit-learn's
    ``GaussianMixture.bic`` is ``-2`` times this (lower is better), and so was this
    class's before.

    ``fit`` takes a DataFrame, a CSV/Parquet path (**read whole**: EM revisits every
    row), a Dask DataFrame (**computed**, its rows then held in memory) or a
    ``scipy.sparse`` 0/1 matrix (as its dense 0/1 table). Every kind gives the same mixture.

    Parameters
    ----------
    n_components : int or sequence of int, default=2
        Number of trees ``k`` (>= 1), or several (e.g. ``range(2, 17)``): then ``k``
        is chosen in one call, on ``validation=`` data if given (else by BIC): the smallest
        size is fitted, and each next one starts from the last one with its weakest
        components split in two (those whose rows carry the lowest total log-likelihood;
        each split around its most probable rows given its variable of most MI) and runs
        ``split_iter`` EM iterations, stopping after two sizes that score no better; the
        best size's model then runs on to convergence (``max_iter``, ``tol``, early stopping
        on ``validation=``), kept if it scores no worse. ``n_components_`` is the chosen
        size, ``n_components_scores_`` the score of each size tried (what the choice was
        made on: after its ``split_iter`` iterations).
    alpha : float, default=1.0
        Lidstone pseudocount of every component's CPTs (0 = maximum likelihood).
    max_iter : int, default=100
        Most EM iterations per initialisation.
    tol : float, default=1e-4
        Stop when the mean log-likelihood per row changes by less than this.
    n_init : int, default=1
        Number of initialisations; the one with the best final bound is kept.
    init : str, default="random"
        ``"random"`` (default): ``n_components`` distinct rows drawn at random are the seeds;
        each row's initial responsibilities are its posterior under product
        distributions centred on the seeds (each variable: half its seed's value,
        half the data's marginal), which separates the components from the start
        (scikit-learn's ``"random_from_data"`` idea). ``"random_resp"``: every row's
        responsibilities drawn from a flat Dirichlet distribution (scikit-learn's
        ``"random"``; the components start nearly equal and EM is slower to part them).
        ``"k-means++"``: as ``"random"``, but the seeds drawn as in k-means++ on the
        Hamming distance (each next seed far from those before): better for
        well-separated components, worse for overlapping ones — try both with ``n_init``.
        ``"k_best"``: the components start as the ``k`` spanning trees of highest likelihood
        (:func:`treelearn.k_best_trees`), each row's responsibilities its posterior under
        their equal mixture.
    random_state : int, numpy.random.Generator or None, default=None
        Int, ``np.random.Generator`` or None; the same seed gives the
        same mixture.
    mi_alpha : float, default=None
        Pseudocount of the weighted pairwise joint the trees are chosen
        from (as in :func:`treelearn.chow_liu`); ``None`` uses the weighted counts.
    states : dict, default=None
        Optional ``{column: [states]}`` fixing some columns' states (e.g.
        ``[0, 1]`` for binary data, so that held-out rows with a value absent from
        a training fold can be scored).
    missing : {"error", "drop", "em"}, default="error"
        ``"error"`` or ``"drop"`` for training rows with missing values, or ``"em"``:
        keep them and let EM handle their missing cells too (the E-step's responsibilities
        use each row's observed cells; each component's M-step uses expected pairwise
        counts; the first M-step uses the observed pairs). Scoring always sums missing cells out exactly.
    max_states : int, default=100
        The most states a column may have.
    n_iter_no_change : int, default=5
        With ``validation=`` in :meth:`fit`, stop after this many iterations
        without a better validation log-likelihood, keeping the best model.
    split_iter : int or None, default=8
        EM iterations at each size after a split while choosing among several
        ``n_components`` (the smallest size and the chosen one run to convergence): each
        size starts from the last one's model, so the iterations add up along the sizes,
        and a few per size say which size is best at a fraction of running every size to
        convergence (plants, k in 2..16, validation rows: 8 per size took 2.5x the fit at the
        chosen k = 16 and 10 per size 3.5x in one run, every size to convergence 4.4x in
        another; test -13.062, -13.066 and -13.102 nats per row; over the 20 DEBD sets, 8
        against 10 halved the fit times and moved the test scores by -0.15 to +0.09).
        ``None``: every size runs to convergence.
    n_jobs : int, default=None
        Joblib workers running the ``n_init`` starts in parallel (the starts are drawn
        first, so the result does not depend on it).
    progress : bool, default=False
        Show a progress bar over the EM iterations (needs tqdm).
    chunksize : int, default=None
        ``None`` (default): a file is read whole and a Dask DataFrame computed. A
        number: a CSV/Parquet file is read that many rows at a time at every EM pass (memory
        flat in the number of rows) and a Dask DataFrame summarised partition by partition
        on its workers (only the counts come back). Such a fit takes ``init="k_best"`` or
        ``"random"`` (its seed rows found by passes: the same draws over the same rows) and
        chooses among several ``n_components`` as in memory, and gives the in-memory fit of
        the same options (to round-off: the chunks' counts are summed in another order).

    Attributes
    ----------
    model_ : the fitted :class:`~treelearn.MixtureModel` (scores, queries, sampling,
        explanations, drawing; ``tl.save(mix.model_)`` saves it alone).
    components_ : list of :class:`~treelearn.TreeModel`, one tree per component
        (``model_.components``).
    weights_ : ndarray (k,), the mixing weights (``model_.weights``).
    converged_ : whether the best run converged within ``max_iter``.
    n_iter_ : EM iterations of the best run (choosing among several ``n_components``: of the
        chosen size's last run, the one to convergence unless that scored worse).
    lower_bound_ : mean training log-likelihood per row of the best run.
    lower_bounds_ : that bound after every iteration of the best run.
    validation_scores_ : the mean validation log-likelihood after every iteration of the
        kept run (with ``validation=``), else None.
    n_components_ : the number of components; ``n_components_scores_`` : ``{k: score}`` of
        the sizes tried when ``n_components`` lists several (else None).
    feature_names_in_, n_features_in_ : the columns learned from.

    See Also
    --------
    ChowLiuTree : one tree.
    BaggedTrees : bagged mixtures.
    HiddenTree : a latent per column.

    References
    ----------
    .. [1] Meila, M. and Jordan, M. I. (2000). Learning with mixtures of trees.
       Journal of Machine Learning Research 1, 1-48.
    .. [2] Dempster, A. P., Laird, N. M. and Rubin, D. B. (1977). Maximum likelihood from
       incomplete data via the EM algorithm. Journal of the Royal Statistical Society B
       39(1), 1-38.

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

    #: what it answers (:class:`~treelearn.models._base.Capable`: the explorer asks it)
    capabilities = MixtureModel.capabilities  # its model_'s: a mixture of trees

    def __init__(
        self,
        n_components: int | Sequence[int] = 2,
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
        n_iter_no_change: int = 5,
        split_iter: int | None = 8,
        n_jobs: int | None = None,
        progress: bool = False,
        chunksize: int | None = None,
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
        self.n_iter_no_change = n_iter_no_change
        self.split_iter = split_iter
        self.n_jobs = n_jobs
        self.progress = progress
        self.chunksize = chunksize

    # ------------------------------------------------------------ options
    #: every option's accepted values, checked once when ``fit`` starts
    _parameter_constraints: ClassVar[dict] = {
        "n_components": [
            Interval(Integral, 1, None),
            InstanceOf(Sequence, name="a sequence of sizes such as range(2, 17)"),
        ],
        **SMOOTHING,
        **EM_OPTIONS,
        **SOURCE_OPTIONS,
        "init": [Options("random", "random_resp", "k-means++", "k_best")],
        "missing": [Options("error", "drop", "em")],
        "split_iter": [None, Interval(Integral, 1, None)],
    }
    _parameter_notes: ClassVar[dict] = {
        **EMEstimator._parameter_notes,
        "missing": "scoring sums missing cells out whatever this is; 'pairwise' counts have "
        "no likelihood to run EM on",
    }

    model_: MixtureModel

    def _checked_params(self) -> dict:
        params = super()._checked_params()
        params["n_components"] = _sizes(params["n_components"])
        return params

    def _check_combination(self, params: dict) -> None:
        """``chunksize`` (on any kind of input, so that every kind gives the same mixture)
        takes the starts that need no rows in memory: ``"k_best"`` (from the counts) and
        ``"random"`` (its seed rows fetched by passes)."""
        chunksize = params.get("chunksize")
        if chunksize is not None and params["init"] not in ("k_best", "random"):
            raise TreelearnError(
                f"chunksize={chunksize} streams the rows: it takes init='random' or "
                f"init='k_best', not {params['init']!r} (which draws over every row at once: "
                "chunksize=None)",
                values=[chunksize],
            )

    @staticmethod
    def _settings(params: dict) -> LearningSettings:
        """The components' Chow-Liu settings."""
        return LearningSettings(
            method="tree-mixture component",
            alpha=params["alpha"],
            mi_alpha=params["mi_alpha"],
            missing=params["missing"],
        )

    # ------------------------------------------------------------ fitting (EMEstimator.fit)
    _em_label = "tree mixture EM"

    def _em(
        self, passes: RowPasses, params: dict, valid: np.ndarray | None, rng: np.random.Generator
    ) -> EMRun:
        """The best of ``n_init`` runs, in memory (identical rows merged) or by passes over
        the rows; with several ``n_components``, the size chosen by growing (the validation
        rows, else BIC, judge it: ``n_components_scores_``)."""
        options = _Options(self._settings(params), self._schedule(params), valid)
        if passes.in_memory:
            best, scores = _fit_in_memory(cast(InMemoryRows, passes), params, options, rng)
        else:  # a file in chunks, a Dask DataFrame on its workers
            best, scores = _fit_passes(passes, params, options, rng)
        self.n_components_scores_ = scores
        return best

    def _model_of(self, run: EMRun, passes: RowPasses, params: dict) -> MixtureModel:
        components, weights = run.model
        return MixtureModel(components, weights)

    # ------------------------------------------------------------ the model's parts
    @property
    def components_(self) -> list:
        """The component trees (``model_.components``)."""
        return self._fitted_model().components

    @property
    def weights_(self) -> np.ndarray:
        """The mixing weights (``model_.weights``)."""
        return self._fitted_model().weights

    @property
    def n_components_(self) -> int:
        """The number of components (the size chosen when ``n_components`` lists several)."""
        return len(self._fitted_model().components)

    # ------------------------------------------------------------ answers: the model's
    def predict_proba(self, X: Any, target: Hashable | None = None) -> np.ndarray | pd.DataFrame:
        """``P(component k | observed values of row r)``: an ``n x k`` array whose rows sum to 1.

        With ``target`` (a variable), ``P(target | the row's other observed values)``
        instead, exactly: ``sum_k P(k | row) P_k(target | row)``, a DataFrame with one
        column per state (missing cells and absent columns summed out).
        """
        model = self._fitted_model()
        if target is not None:
            # absent columns allowed (summed out); an array's columns by position
            frame = as_frame(X, list(self.feature_names_in_), learner=type(self).__name__)
            return model.predict_proba(frame, target)
        return model.component_proba(self._rows(X))

    def predict(self, X: Any, target: Hashable | None = None) -> np.ndarray | pd.Series:
        """The most probable component of each row; with ``target`` (a variable), its most
        probable state given the row's other observed values (the argmax of
        :meth:`predict_proba`, ties to the first state), a Series named ``target``."""
        model = self._fitted_model()
        if target is not None:
            frame = as_frame(X, list(self.feature_names_in_), learner=type(self).__name__)
            return model.predict(frame, target)
        return np.argmax(model.log_joint_codes(model.encode(self._rows(X))), axis=1)

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page of :attr:`model_` (:meth:`MixtureModel.explorer_spec
        <treelearn.MixtureModel.explorer_spec>`), titled by this class."""
        from ..viz._page_spec import require_fitted

        require_fitted(self, "fit(X)")
        return self.model_.explorer_spec(title, name=type(self).__name__)

    def explain(
        self,
        X: Any,
        target: Hashable,
        kind: str = "log_odds",
        conditional: bool = True,
        background: Any = None,
        output: str | None = None,
        target_state: Any = None,
        random_state: int | np.random.Generator | None = None,
        method: str = "auto",
        n_permutations: int = 256,
    ) -> Explanation:
        """Each other column's contribution to the mixture's prediction of ``target`` for
        every row of ``X``: :meth:`MixtureModel.explain
        <treelearn.MixtureModel.explain>` on the rows matched to the
        features.

        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> mix = tl.TreeMixture(random_state=0).fit(df)
        >>> e = mix.explain(df.head(2), "either", kind="shapley", output="proba")
        >>> bool(np.allclose(e.values.sum(axis=1) + e.base, e.prediction))
        True
        """
        model = self._fitted_model()
        return model.explain(
            self._rows(X),
            target,
            kind=kind,
            conditional=conditional,
            background=None if background is None else self._rows(background),
            output=output,
            target_state=target_state,
            random_state=random_state,
            method=method,
            n_permutations=n_permutations,
        )

    def component_posterior(self, evidence: Mapping[Hashable, Any] | None = None) -> np.ndarray:
        """``P(component k | evidence)`` for every ``k``."""
        return self._fitted_model().component_posterior(evidence)

    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        return_components: bool = False,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
    ) -> pd.DataFrame | tuple[pd.DataFrame, np.ndarray]:
        """Draw ``n`` rows as a DataFrame (with ``return_components=True``, also the
        component each row was drawn from: ``(DataFrame, array)``, scikit-learn's pair);
        :meth:`MixtureModel.sample <treelearn.MixtureModel.sample>`.

        >>> import pandas as pd, treelearn as tl
        >>> mix = tl.TreeMixture(random_state=0).fit(pd.read_csv("datasets/asia.csv"))
        >>> mix.sample(4, random_state=1).shape
        (4, 8)
        >>> X, component = mix.sample(4, random_state=1, return_components=True)
        >>> component.shape
        (4,)
        """
        return self._fitted_model().sample(
            n,
            random_state,
            evidence=evidence,
            numbers=numbers,
            return_components=return_components,
        )

    def _fitted_state(self) -> dict:
        """The model's fields (:meth:`MixtureModel.to_dict
        <treelearn.MixtureModel.to_dict>`) beside the codec's header, and
        the fit's history.

        >>> import pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> mix = tl.TreeMixture(random_state=0).fit(df)
        >>> back = tl.TreeMixture.from_dict(mix.to_dict())
        >>> bool((back.score_samples(df) == mix.score_samples(df)).all())
        True
        """
        return {**self.model_.to_dict(), **self._history_state()}

    def _restore_fitted(self, saved: SavedState) -> None:
        """The model checked field by field (:meth:`MixtureModel.from_dict
        <treelearn.MixtureModel.from_dict>`: every component, the same
        variables and states in each, the weights a distribution), a mixture of trees; the
        history."""
        fields = {
            k: saved.state[k]
            for k in ("component_kind", "weights", "components")
            if k in saved.state
        }
        model = MixtureModel.from_dict(fields, where=f"saved {saved.estimator}")
        if model.component_kind != "tree_model":
            raise saved.fail("component_kind", "must be 'tree_model': a mixture of trees")
        self._restore_model(saved, model, "components")
        self._restore_history(saved)
        self.n_components_scores_ = None


# ---------------------------------------------------------------- fitting
def _fit_in_memory(
    passes: InMemoryRows, params: dict, options: _Options, rng: np.random.Generator
) -> tuple[EMRun, dict | None]:
    """EM on the rows in memory (identical rows merged), from ``n_init`` starts, choosing
    ``k`` by growing (:func:`_grow`) when ``n_components`` lists several."""
    table, group = passes.table, passes.group
    assert table is not None and group is not None  # rows in memory: both are set
    sizes = params["n_components"]
    _check_mixture_memory(table, len(group), max(sizes))
    # every start drawn first, in order: the same starts whatever n_jobs is
    starts = [
        _initial_responsibilities(table, group, sizes[0], params["init"], rng, options.settings)
        for _ in range(params["n_init"])
    ]
    best = best_run(run_starts(partial(_em, table, options=options), starts, params["n_jobs"]))
    if len(sizes) == 1:
        return best, None
    n = float(table.n_rows if table.weights is None else table.weights.sum())
    split = _split_options(options, params["split_iter"])
    return _grow(
        best,
        sizes,
        lambda run: _size_score(run, n, options),
        lambda run, m: _em(table, _split_weakest(table, run, m), split),
        None
        if params["split_iter"] is None
        else lambda run: _em(table, _responsibilities(table, *run.model)[1], options),
    )


def _fit_passes(
    passes: RowPasses, params: dict, options: _Options, rng: np.random.Generator
) -> tuple[EMRun, dict | None]:
    """EM with one pass over the rows per iteration (:func:`_em_passes`), from the same
    starts as in memory, choosing ``k`` as in memory (:func:`_grow`)."""
    sizes = params["n_components"]
    starts = [
        _streamed_start(passes, sizes[0], params["init"], rng, options.settings)
        for _ in range(params["n_init"])
    ]  # every start drawn first, as in memory
    best = best_run([_em_passes(passes, start, options) for start in starts])
    if len(sizes) == 1:
        return best, None
    n = float(passes.n_rows)
    split = _split_options(options, params["split_iter"])

    def next_run(run: EMRun, m: int) -> EMRun:
        components, weights = run.model
        totals = passes.sum(_WeakestPass(components, weights))
        plan = _split_plan(components, totals, m)
        return _em_passes(passes, _SplitStart(components, weights, plan), split)

    return _grow(
        best,
        sizes,
        lambda run: _size_score(run, n, options),
        next_run,
        None
        if params["split_iter"] is None
        else lambda run: _em_passes(passes, _SplitStart(run.model[0], run.model[1], []), options),
    )


# ---------------------------------------------------------------- EM
def _m_step(
    table: Table,
    resp: np.ndarray,
    settings: LearningSettings,
    previous: Sequence[TreeModel] | None = None,
) -> tuple[list, np.ndarray]:
    """One weighted Chow-Liu tree per component (responsibilities as row weights) and weights.

    With missing cells and the ``previous`` components, component ``k``'s counts are the
    expected complete-data counts under component ``k`` (EM over the missing cells too);
    without ``previous``, the counts of the observed pairs.
    """
    row_weights = resp if table.weights is None else resp * table.weights[:, None]
    incomplete = previous is not None and bool((table.codes < 0).any())
    # every component's counts from one set of indicators (the same numbers as one
    # count_codes per component)
    joints = (
        None if incomplete else count_codes_weighted(table.codes, table.cardinalities, row_weights)
    )
    components = []
    for k in range(resp.shape[1]):
        w = row_weights[:, k]
        if joints is not None:
            joint = joints[k]
            total = float(w.sum())
            pairs = PairCounts(
                joint, table.cardinalities, int(total) if joint.dtype.kind in "iu" else total
            )
        else:
            assert previous is not None  # incomplete: the previous components' expectations
            pairs, _ = expected_counts(previous[k], table.codes, w, all_pairs=True)
        stats = CountedTable(table.columns, table.states, table.dtypes, pairs=pairs)
        components.append(chow_liu_from_counts(stats, settings))
    n_k = row_weights.sum(axis=0) + 10 * np.finfo(float).eps  # no component of weight 0
    return components, n_k / n_k.sum()


def _check_mixture_memory(table: Table, n_rows: int, k: int) -> None:
    """Before the first array of ``k`` columns: the responsibilities (a draw over the rows,
    one over the merged rows, their logarithms) and each component's pair counts."""
    pairs = float(np.sum(table.cardinalities)) ** 2
    check_memory(
        8.0 * k * (3.0 * max(n_rows, table.codes.shape[0]) + pairs),
        f"TreeMixture(n_components={k}) on {n_rows} rows",
        "give fewer components",
    )


def _initial_responsibilities(
    table: Table,
    group: np.ndarray,
    k: int,
    init: str,
    rng: np.random.Generator,
    settings: LearningSettings | None = None,
) -> np.ndarray:
    """Random starting responsibilities (one row per merged row, rows summing to 1); see ``init``.

    ``group[r]`` is the merged row of original row ``r``. Every random draw is made over the
    original rows, as if they had not been merged, so merging changes nothing but the speed:
    the seeds are the same rows, and a merged row's responsibilities are the mean of its rows'.
    """
    n, m, d = len(group), table.codes.shape[0], table.codes.shape[1]
    if k == 1:
        return np.ones((m, 1))
    if init == "k_best":
        return _k_best_responsibilities(table, k, settings)
    size = np.bincount(group, minlength=m).astype(float)  # original rows per merged row
    if init == "random_resp" or n < k:
        drawn = rng.dirichlet(np.ones(k), size=n)
        return (
            np.column_stack(
                [np.bincount(group, weights=drawn[:, c], minlength=m) for c in range(k)]
            )
            / size[:, None]
        )
    codes = table.codes.astype(np.intp)
    seen = codes >= 0
    cards = table.cardinalities
    observed = np.zeros((d, int(cards.max()) + 1))
    for j in range(d):  # a loop over variables, not rows
        observed[j, : cards[j]] = np.bincount(
            codes[seen[:, j], j], weights=size[seen[:, j]], minlength=cards[j]
        )
    if init == "k-means++":
        seeds = _spread_seeds(codes, k, rng, group)
    else:
        seeds = _distinct_seeds(codes, group, rng.choice(n, size=k, replace=False), rng)
    return _SeedStart(codes[seeds], _seed_marginals(observed, cards))(codes)


def _seed_marginals(observed: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Each variable's share of every state (``observed``: rows per state, ``d x (max k +
    1)``), and a last column of ones: a missing cell (code -1) picks it, factor 1."""
    marginal = np.zeros_like(observed, dtype=float)
    for j, k in enumerate(cards):  # a loop over variables, not rows
        marginal[j, :k] = observed[j, :k] / max(observed[j, :k].sum(), 1.0)
    marginal[:, -1] = 1.0
    return marginal


@dataclass
class _SeedStart:
    """The ``"random"`` start's responsibilities of any rows: their posteriors under product
    distributions centred on the seed rows ``seeds`` (each variable: half the seed's value,
    half its ``marginal``), a function of each row's values alone (so a file's chunks get
    the responsibilities its rows get in memory)."""

    seeds: np.ndarray
    marginal: np.ndarray

    def __call__(self, codes: np.ndarray) -> np.ndarray:
        codes = codes.astype(np.intp)
        seen = codes >= 0
        cell_marginal = self.marginal[np.arange(codes.shape[1])[None, :], codes]  # m_j(x_rj)
        log_p = np.empty((len(codes), len(self.seeds)))
        for c, seed in enumerate(self.seeds):
            # p_j(s) = 0.5 [s = seed's value] + 0.5 m_j(s)
            match = (codes == seed) & seen & (seed >= 0)
            factor = np.where(seen & (seed >= 0), 0.5 * match + 0.5 * cell_marginal, 1.0)
            with np.errstate(divide="ignore"):
                log_p[:, c] = np.log(factor).sum(axis=1)
        # a row with a state of no mass in ``marginal`` that no seed has (a component's own
        # marginal, splitting it: rows it does not hold) is impossible under every seed:
        # an equal share, not -inf - -inf = NaN (which poisoned the split's responsibilities)
        log_p[np.isneginf(log_p).all(axis=1)] = 0.0
        return np.exp(log_p - logsumexp(log_p, axis=1, keepdims=True))


def _distinct_seeds(
    codes: np.ndarray, group: np.ndarray, drawn: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
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


def _spread_seeds(
    codes: np.ndarray, k: int, rng: np.random.Generator, group: np.ndarray | None = None
) -> np.ndarray:
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


def _k_best_responsibilities(table: Table, k: int, settings: LearningSettings | None) -> np.ndarray:
    """Each row's posterior under the equal mixture of the ``k`` best spanning trees
    (:func:`treelearn.k_best_trees`; fewer trees than ``k`` are used in turn)."""
    alpha = 1.0 if settings is None else settings.alpha
    trees = k_best_trees(
        table, k, alpha=alpha, missing="pairwise" if (table.codes < 0).any() else "error"
    )
    log_p = np.column_stack(
        [trees[c % len(trees)].log_likelihood_codes(table.codes) for c in range(k)]
    )
    with np.errstate(invalid="ignore"):  # a row impossible under every tree: uniform
        resp = np.exp(log_p - logsumexp(log_p, axis=1, keepdims=True))
    return np.where(np.isfinite(resp), resp, 1.0 / k)


@dataclass(frozen=True)
class _Options:
    """What every EM run of one fit shares: the components' settings, the iterations, the
    validation codes (early stopping, choosing ``k``)."""

    settings: LearningSettings
    schedule: EMSchedule
    valid: np.ndarray | None = None


def _sizes(n_components: Any) -> list:
    """``n_components`` as a list of sizes, checked: distinct integers >= 1, ascending."""
    if isinstance(n_components, (int, np.integer)):
        return [int(n_components)]
    sizes = list(n_components)
    if (
        not sizes
        or any(isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1 for k in sizes)
        or len(set(sizes)) != len(sizes)
    ):
        raise TreelearnError(
            f"n_components == {n_components!r}, must be an integer >= 1 or "
            f"distinct integers >= 1 (the sizes to choose from)",
            values=[n_components],
        )
    return sorted(int(k) for k in sizes)


def _mean_log_likelihood(
    components: Sequence[TreeModel], weights: np.ndarray, codes: np.ndarray
) -> float:
    return float(np.mean(logsumexp(weighted_log_likelihoods(components, weights, codes), axis=1)))


def _size_score(run: EMRun, n: float, options: _Options) -> float:
    """How a size is judged: the validation log-likelihood per row, else the BIC per row
    (larger is better; ``n``: the rows' total weight)."""
    if run.valid is not None:  # validation rows were given
        return run.valid
    components = run.model[0]
    p = sum(c.n_parameters for c in components) + len(components) - 1
    return run.lower_bound - 0.5 * p * np.log(n) / n


def _responsibilities(
    table: Table, components: Sequence[TreeModel], weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(log_prob, resp)`` of the rows under a mixture."""
    log_prob = weighted_log_likelihoods(components, weights, table.codes)
    with np.errstate(invalid="ignore"):
        resp = np.exp(log_prob - logsumexp(log_prob, axis=1)[:, None])
    return log_prob, np.where(np.isfinite(resp), resp, 1.0 / len(components))


def _component_totals(
    log_prob: np.ndarray, resp: np.ndarray, weights: np.ndarray, w: np.ndarray
) -> np.ndarray:
    """Each component's total log-likelihood of the rows it holds: ``sum_r w_r r_rk log
    T_k(x_r)`` (how weak it is)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        own = log_prob - np.log(weights)[None, :]  # log T_k(x_r)
        return np.nansum(np.where(resp > 0, w[:, None] * resp * own, 0.0), axis=0)


def _split_plan(components: Sequence[TreeModel], totals: np.ndarray, m: int) -> list:
    """``[(k, seeds, marginal)]``: the ``m`` weakest components (lowest ``totals``), each to
    be split around two seed rows: its most probable rows given its variable ``v`` of most
    mutual information with the others in its two most frequent states (each read off the
    component itself: its counts and its tree); ``seeds = None``: no variable varies, an
    equal share. A rule of the components alone (no draw over the rows), so a file read in
    chunks is split as in memory."""
    plan: list[tuple[int, np.ndarray | None, np.ndarray | None]] = []
    for k in np.argsort(totals, kind="stable")[:m]:
        component = components[k]
        counts = component.counts
        o, cards = counts.offsets, counts.cardinalities
        cells = np.diagonal(counts.joint).astype(float)
        varied = np.add.reduceat(cells > 0, o[:-1]) > 1
        if not varied.any():
            plan.append((int(k), None, None))
            continue
        score = np.where(varied, mutual_information_matrix(counts).sum(axis=1), -np.inf)
        v = int(np.argmax(score))
        top = np.argsort(-cells[o[v] : o[v + 1]], kind="stable")[:2]
        given = np.full((2, len(cards)), -1, dtype=np.int64)
        given[:, v] = top
        seeds, _ = component.engine().map_codes(given)
        observed = np.zeros((len(cards), int(cards.max()) + 1))
        for j, c in enumerate(cards):  # a loop over variables, not rows
            observed[j, :c] = cells[o[j] : o[j + 1]]
        plan.append((int(k), seeds, _seed_marginals(observed, cards)))
    return plan


def _split_columns(codes: np.ndarray, resp: np.ndarray, plan: list) -> np.ndarray:
    """Responsibilities of ``k + len(plan)`` components: component ``k``'s rows shared
    between it and a new one (appended in the plan's order) by their posteriors under
    product distributions centred on the two seeds (the ``"random"`` start's rule,
    :class:`_SeedStart`); no seeds: an equal share."""
    out = resp.copy()
    extra = []
    for k, seeds, marginal in plan:
        share = (
            np.full(len(codes), 0.5) if seeds is None else _SeedStart(seeds, marginal)(codes)[:, 0]
        )
        extra.append(resp[:, k] * (1.0 - share))
        out[:, k] = resp[:, k] * share
    return np.column_stack([out] + extra)


def _split_weakest(table: Table, run: EMRun, m: int) -> np.ndarray:
    """Responsibilities of ``k + m`` components: the mixture's, with its ``m`` weakest
    components (the lowest total log-likelihood of the rows they hold) each split in two
    on one variable (:func:`_split_plan`)."""
    components, weights = run.model
    log_prob, resp = _responsibilities(table, components, weights)
    w = np.ones(len(resp)) if table.weights is None else table.weights
    plan = _split_plan(components, _component_totals(log_prob, resp, weights, w), m)
    return _split_columns(table.codes, resp, plan)


def _split_options(options: _Options, split_iter: int | None) -> _Options:
    """The options of the EM runs after a split while choosing ``k``: at most ``split_iter``
    iterations (``None``: as every run)."""
    if split_iter is None:
        return options
    schedule = options.schedule
    return replace(options, schedule=replace(schedule, max_iter=min(split_iter, schedule.max_iter)))


def _grow(
    best: EMRun, sizes: list, score: Any, next_run: Any, finish: Any | None
) -> tuple[EMRun, dict]:
    """Choose ``k`` among ``sizes`` in one call: from the best run at the smallest size, each
    next size starts from the last one's model with its weakest components split
    (``next_run(run, m)``: the short EM run from ``run`` with ``m`` more components); stops
    after two sizes that do not beat the best (``score(run)``: larger is better). The best
    size's run, unless it is the smallest (already run to convergence), then goes on
    (``finish(run)``: the full EM run from its model; None: the sizes' runs were full
    already), kept if it scores no worse. Returns
    the best run and every size's score (of the runs the choice was made on)."""
    scores = {sizes[0]: score(best)}
    first = current = best
    worse = 0
    for k in sizes[1:]:
        current = next_run(current, k - len(current.model[0]))
        scores[k] = score(current)
        if scores[k] > score(best):
            best, worse = current, 0
        else:
            worse += 1
            if worse >= 2:
                break
    if finish is not None and best is not first:
        finished = finish(best)
        if score(finished) >= score(best):
            best = finished
    return best, scores


def _em(table: Table, resp: np.ndarray, options: _Options) -> EMRun:
    """One EM run from the responsibilities ``resp`` (:func:`~treelearn.learners._density.em_run`;
    its model: ``(components, weights)``): the kept model (the last, or the best on the
    validation rows), its bound and history."""
    settings = options.settings
    row_w = None if table.weights is None else table.weights / table.weights.sum()

    def e_step(model: tuple) -> tuple[float, np.ndarray]:
        components, weights = model
        log_prob = weighted_log_likelihoods(components, weights, table.codes)
        log_norm = logsumexp(log_prob, axis=1)
        with np.errstate(invalid="ignore"):  # a row impossible under every tree: -inf - -inf
            resp = np.exp(log_prob - log_norm[:, None])
        return float(np.mean(log_norm) if row_w is None else np.sum(row_w * log_norm)), resp

    def m_step(resp: np.ndarray, model: tuple | None) -> tuple:
        return _m_step(table, resp, settings, None if model is None else model[0])

    return _run(m_step(resp, None), e_step, m_step, options)


def _run(first: tuple, e_step: Any, m_step: Any, options: _Options) -> EMRun:
    """The EM loop from the first M-step's mixture, ``max_iter`` E-steps at most, early
    stopping on the validation rows."""
    valid = options.valid
    return em_run(
        first,
        e_step,
        m_step,
        options.schedule,
        n_steps=options.schedule.max_iter,
        valid_score=None
        if valid is None
        else lambda model: _mean_log_likelihood(model[0], model[1], valid),
    )


# ---------------------------------------------------------------- EM, one pass per iteration
# ------------------------------------------------------------ starts of a streamed fit
def _fingerprint(codes: np.ndarray) -> str:
    """A chunk's identity, the same at every pass: a digest of its codes. Two chunks with one
    digest hold the same rows, so either gives a row wanted from them."""
    digest = hashlib.blake2b(np.ascontiguousarray(codes).tobytes(), digest_size=16)
    digest.update(repr((codes.shape, codes.dtype.str)).encode())
    return digest.hexdigest()


@dataclass
class _Chunks:
    """A pass's per-chunk results in row order (files are read in order, and Dask's sums
    are reduced in partition order), and summed ``counts``."""

    chunks: list  # [(fingerprint, rows, value)]
    counts: Any = 0

    def __add__(self, other: _Chunks) -> _Chunks:
        return _Chunks(self.chunks + other.chunks, self.counts + other.counts)

    def offsets(self) -> dict:
        """``{fingerprint: [first row of each chunk with it]}``."""
        out: dict = {}
        start = 0
        for fp, rows, _ in self.chunks:
            out.setdefault(fp, []).append(start)
            start += rows
        return out


@dataclass
class _ScanPass:
    """Each chunk's identity and rows, and every variable's rows per state (unweighted,
    as the in-memory start counts the original rows)."""

    cardinalities: np.ndarray

    def __call__(self, codes: np.ndarray, w: np.ndarray) -> _Chunks:
        cards = self.cardinalities
        observed = np.zeros((len(cards), int(cards.max()) + 1))
        for j, k in enumerate(cards):  # a loop over variables, not rows
            x = codes[:, j]
            observed[j, :k] = np.bincount(x[x >= 0], minlength=k)
        return _Chunks([(_fingerprint(codes), len(codes), None)], observed)


@dataclass
class _FetchPass:
    """The rows at the positions ``wanted`` (in row order over every chunk): ``{position:
    codes}``; ``unlike``: count instead each chunk's rows unlike every one of these rows, or
    (with ``rank``) fetch the ``rank``-th such row of the chunks ``fingerprint``."""

    offsets: dict
    wanted: tuple = ()
    unlike: np.ndarray | None = None
    fingerprint: str | None = None
    rank: int = -1

    def __call__(self, codes: np.ndarray, w: np.ndarray) -> _Chunks:
        fp = _fingerprint(codes)
        if self.unlike is not None:
            differs = (codes[:, None, :] != self.unlike[None]).any(axis=2).all(axis=1)
            if self.rank < 0:
                return _Chunks([(fp, len(codes), int(differs.sum()))])
            found = (
                {}
                if fp != self.fingerprint
                else {"row": codes[np.flatnonzero(differs)[self.rank]].copy()}
            )
            return _Chunks([(fp, len(codes), found)])
        found = {}
        for start in self.offsets.get(fp, ()):
            for r in self.wanted:
                if start <= r < start + len(codes):
                    found[r] = codes[r - start].copy()
        return _Chunks([(fp, len(codes), found)])


def _found(result: _Chunks) -> dict:
    out: dict = {}
    for _, _, found in result.chunks:
        out.update(found)
    return out


def _streamed_start(
    passes: RowPasses, k: int, init: str, rng: np.random.Generator, settings: LearningSettings
) -> Any:
    """The start :func:`_initial_responsibilities` draws in memory, as a function of a
    chunk's rows: ``"k_best"`` from the counts; ``"random"`` from seed rows drawn with the
    same draws of ``rng`` over the same rows, fetched by passes (one to scan, one to fetch,
    two more for each seed that repeats an earlier one's values)."""
    if k == 1:
        return _TreesStart([], np.ones(1))
    if init == "k_best":
        trees = k_best_trees_from_counts(
            passes.counts, k, LearningSettings(method="k-best", alpha=settings.alpha)
        )
        return _TreesStart([trees[c % len(trees)] for c in range(k)], np.full(k, 1.0 / k))
    scan = passes.sum(_ScanPass(passes.cardinalities))
    offsets = scan.offsets()
    n = sum(rows for _, rows, _ in scan.chunks)
    if n < k:
        raise TreelearnError(
            f"init='random' with chunksize needs at least n_components={k} rows; the data have {n}",
            values=[k],
        )
    drawn = [int(r) for r in rng.choice(n, size=k, replace=False)]
    rows = _found(passes.sum(_FetchPass(offsets, tuple(drawn))))
    seeds: list = []
    for r in drawn:  # _distinct_seeds, by passes
        seed = rows[r]
        if seeds and (np.array(seeds) == seed).all(axis=1).any():
            counted = passes.sum(_FetchPass(offsets, unlike=np.array(seeds)))
            total = sum(c for _, _, c in counted.chunks)
            if total:  # else fewer distinct rows than components: keep it
                rank = int(rng.choice(total))  # = rng.choice(candidates) in memory
                ends = np.cumsum([c for _, _, c in counted.chunks])
                i = int(np.searchsorted(ends, rank, side="right"))  # the chunk holding it
                rank -= int(ends[i - 1]) if i else 0
                seed = _found(
                    passes.sum(
                        _FetchPass(
                            offsets,
                            unlike=np.array(seeds),
                            fingerprint=counted.chunks[i][0],
                            rank=rank,
                        )
                    )
                )["row"]
        seeds.append(seed)
    return _SeedStart(np.array(seeds), _seed_marginals(scan.counts, passes.cardinalities))


def _posterior(
    components: Sequence[TreeModel], weights: np.ndarray, codes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(log_prob, resp)`` of rows under a mixture (a row impossible under every tree:
    uniform), as :func:`_responsibilities`."""
    log_prob = weighted_log_likelihoods(components, weights, codes)
    with np.errstate(invalid="ignore"):
        resp = np.exp(log_prob - logsumexp(log_prob, axis=1)[:, None])
    return log_prob, np.where(np.isfinite(resp), resp, 1.0 / len(components))


@dataclass
class _TreesStart:
    """Responsibilities: the posteriors under a mixture (the k-best start; no trees: one
    component)."""

    components: list
    weights: np.ndarray

    def __call__(self, codes: np.ndarray) -> np.ndarray:
        if not self.components:
            return np.ones((len(codes), 1))
        return _posterior(self.components, self.weights, codes)[1]


@dataclass
class _SplitStart:
    """Responsibilities: the posteriors under a mixture, its weakest components split
    (:func:`_split_columns`)."""

    components: list
    weights: np.ndarray
    plan: list

    def __call__(self, codes: np.ndarray) -> np.ndarray:
        return _split_columns(codes, _posterior(self.components, self.weights, codes)[1], self.plan)


@dataclass
class _WeakestPass:
    """Each component's total log-likelihood of the rows it holds (:func:`_component_totals`)."""

    components: list
    weights: np.ndarray

    def __call__(self, codes: np.ndarray, w: np.ndarray) -> np.ndarray:
        first, group = distinct_rows(codes)
        codes, w = codes[first], np.bincount(group, weights=w, minlength=len(first))
        log_prob, resp = _posterior(self.components, self.weights, codes)
        return _component_totals(log_prob, resp, self.weights, w)


@dataclass
class _PassSums:
    """A pass's sums over rows: log-likelihood, weight, each component's pair counts and
    total responsibility."""

    log_likelihood: float
    weight: float
    joints: list
    n_k: np.ndarray

    def __add__(self, other: _PassSums) -> _PassSums:
        return _PassSums(
            self.log_likelihood + other.log_likelihood,
            self.weight + other.weight,
            [a + b for a, b in zip(self.joints, other.joints)],
            self.n_k + other.n_k,
        )


@dataclass
class _MixturePass:
    """``summarise(codes, weights)`` of one EM pass under the mixture (``components``,
    ``weights``): the chunk's log-likelihood and, with each row's responsibilities as
    weights, every component's pair counts (``expected``: the expected counts under the
    component, EM over missing cells; else the counts of the observed pairs), what
    :func:`_m_step` computes from the rows in memory."""

    components: list
    weights: np.ndarray
    cardinalities: np.ndarray
    expected: bool

    def __call__(self, codes: np.ndarray, w: np.ndarray) -> _PassSums:
        first, group = distinct_rows(codes)  # identical rows: one weighted row
        codes, w = codes[first], np.bincount(group, weights=w, minlength=len(first))
        log_prob = weighted_log_likelihoods(self.components, self.weights, codes)
        log_norm = logsumexp(log_prob, axis=1)
        with np.errstate(invalid="ignore"):  # a row impossible under every tree: -inf - -inf
            resp = np.exp(log_prob - log_norm[:, None])
        row_w = np.where(np.isfinite(resp), resp, 1.0 / len(self.components)) * w[:, None]
        if self.expected:
            joints = [
                expected_counts(c, codes, row_w[:, k], all_pairs=True)[0].joint
                for k, c in enumerate(self.components)
            ]
        else:
            joints = count_codes_weighted(codes, self.cardinalities, row_w)
        with np.errstate(invalid="ignore"):
            total = float(np.sum(w * log_norm))
        return _PassSums(total, float(w.sum()), list(joints), row_w.sum(axis=0))


@dataclass
class _StartPass:
    """The first pass of a run: every component's pair counts with the ``start``'s
    responsibilities as row weights (what :func:`_m_step` first counts in memory)."""

    start: Any
    cardinalities: np.ndarray

    def __call__(self, codes: np.ndarray, w: np.ndarray) -> _PassSums:
        first, group = distinct_rows(codes)  # identical rows: one weighted row
        codes, w = codes[first], np.bincount(group, weights=w, minlength=len(first))
        row_w = self.start(codes) * w[:, None]
        joints = count_codes_weighted(codes, self.cardinalities, row_w)
        return _PassSums(0.0, float(w.sum()), list(joints), row_w.sum(axis=0))


def _components_from(
    passes: RowPasses, sums: _PassSums, settings: LearningSettings
) -> tuple[list, np.ndarray]:
    """The M-step of :func:`_m_step` from a pass's sums: one Chow-Liu tree per component."""
    components = []
    for joint, total in zip(sums.joints, sums.n_k):
        pairs = PairCounts(
            joint, passes.cardinalities, int(total) if joint.dtype.kind in "iu" else float(total)
        )
        stats = CountedTable(passes.columns, passes.states, passes.dtypes, pairs=pairs)
        components.append(chow_liu_from_counts(stats, settings))
    n_k = sums.n_k + 10 * np.finfo(float).eps  # no component of weight 0
    return components, n_k / n_k.sum()


def _em_passes(passes: RowPasses, start: Any, options: _Options) -> EMRun:
    """:func:`_em` with one pass over the rows per iteration (a file in chunks, a Dask
    DataFrame's partitions on its workers): the first pass gives the counts of the
    ``start``'s responsibilities of the rows (a function of a chunk's rows), each next one
    the bound of the current mixture and the counts of its M-step."""
    cards = passes.cardinalities

    def e_step(model: tuple) -> tuple[float, _PassSums]:
        components, weights = model
        sums = passes.sum(_MixturePass(components, weights, cards, passes.missing == "em"))
        return sums.log_likelihood / sums.weight, sums

    def m_step(sums: _PassSums, model: tuple | None) -> tuple:
        return _components_from(passes, sums, options.settings)

    return _run(m_step(passes.sum(_StartPass(start, cards)), None), e_step, m_step, options)
