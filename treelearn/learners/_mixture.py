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

import hashlib
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils.validation import check_is_fitted

from .._base.errors import ColumnNotFoundError, TreelearnError
from .._base.jsonvalues import json_value
from .._base.limits import check_memory
from .._base.logspace import logsumexp
from .._base.persistence import Persistent, SavedState
from .._base.validation import BOOLEAN, RANDOM_STATE, InstanceOf, Interval, Options, check_params
from ..encoding._table import (
    DEFAULT_MAX_STATES,
    CategoricalTableInput,
    Table,
    distinct_rows,
    encode,
)
from ..inference._engine import state_index
from ..inference._shapley import (
    EngineGame,
    Explanation,
    MixtureGame,
    check_explain_options,
    explain_game,
)
from ..models._base import Capable
from ..models._tree import TreeModel
from ..sources._count import in_memory_table
from ..sources._kinds import as_frame, match_features
from ..sources._passes import RowPasses, merge_identical_rows, row_passes
from ..stats._counts import CountedTable, PairCounts, count_codes_weighted
from ..stats._information import mutual_information_matrix
from ..stats._settings import LearningSettings
from ._bayes_trees import k_best_trees, k_best_trees_from_counts
from ._chow_liu import chow_liu_from_counts
from ._density import N_JOBS, DensityScores, EarlyStopping, most_probable, progress_bar
from ._em import expected_counts
from ._mixture_queries import (
    component_posterior,
    mixture_marginals,
    mixture_predict_proba,
    mixture_query,
    mixture_sample,
)

__all__ = ["TreeMixture"]


class TreeMixture(
    Persistent, Capable, DensityScores, CategoricalTableInput, DensityMixin, BaseEstimator
):
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
    n_components : number of trees ``k`` (>= 1), or several (e.g. ``range(2, 17)``): then ``k``
        is chosen in one call, on ``validation=`` data if given (else by BIC): the smallest
        size is fitted, and each next one starts from the last one with its weakest
        components split in two (those whose rows carry the lowest total log-likelihood;
        each split around its most probable rows given its variable of most MI) and runs
        ``split_iter`` EM iterations, stopping after two sizes that score no better; the
        best size's model then runs on to convergence (``max_iter``, ``tol``, early stopping
        on ``validation=``), kept if it scores no worse. ``n_components_`` is the chosen
        size, ``n_components_scores_`` the score of each size tried (what the choice was
        made on: after its ``split_iter`` iterations).
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
        ``"k_best"``: the components start as the ``k`` spanning trees of highest likelihood
        (:func:`treelearn.k_best_trees`), each row's responsibilities its posterior under
        their equal mixture.
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
    n_iter_no_change : with ``validation=`` in :meth:`fit`, stop after this many iterations
        without a better validation log-likelihood, keeping the best model.
    split_iter : EM iterations at each size after a split while choosing among several
        ``n_components`` (the smallest size and the chosen one run to convergence): each
        size starts from the last one's model, so the iterations add up along the sizes,
        and a few per size say which size is best at a fraction of running every size to
        convergence (plants, k in 2..16, validation rows: 8 per size took 2.5x the fit at the
        chosen k = 16 and 10 per size 3.5x in one run, every size to convergence 4.4x in
        another; test -13.062, -13.066 and -13.102 nats per row; over the 20 DEBD sets, 8
        against 10 halved the fit times and moved the test scores by -0.15 to +0.09).
        ``None``: every size runs to convergence.
    n_jobs : joblib workers running the ``n_init`` starts in parallel (the starts are drawn
        first, so the result does not depend on it).
    progress : show a progress bar over the EM iterations (needs tqdm).
    chunksize : ``None`` (default): a file is read whole and a Dask DataFrame computed. A
        number: a CSV/Parquet file is read that many rows at a time at every EM pass (memory
        flat in the number of rows) and a Dask DataFrame summarised partition by partition
        on its workers (only the counts come back). Such a fit takes ``init="k_best"`` or
        ``"random"`` (its seed rows found by passes: the same draws over the same rows) and
        chooses among several ``n_components`` as in memory, and gives the in-memory fit of
        the same options (to round-off: the chunks' counts are summed in another order).

    Attributes
    ----------
    components_ : list of :class:`~treelearn.models._tree.TreeModel`, one tree per component.
    weights_ : ndarray (k,), the mixing weights.
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

    #: what a fitted mixture answers (the command line asks these words)
    capabilities = frozenset(
        {
            "score",
            "sample",
            "sample_given",
            "query",
            "marginals",
            "predict",
            "explain",
            "draw",
            "explorer",
        }
    )

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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # 0/1 scipy.sparse matrices (sources.in_memory_table)
        tags.input_tags.allow_nan = False  # missing="error" by default; scoring sums NaN out
        return tags

    # ------------------------------------------------------------ options
    #: every option's accepted values, checked once when ``fit`` starts
    _parameter_constraints: ClassVar[dict] = {
        "n_components": [
            Interval(Integral, 1, None),
            InstanceOf(Sequence, name="a sequence of sizes such as range(2, 17)"),
        ],
        "alpha": [Interval(Real, 0, None)],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
        "n_init": [Interval(Integral, 1, None)],
        "init": [Options("random", "random_resp", "k-means++", "k_best")],
        "random_state": RANDOM_STATE,
        "mi_alpha": [None, Interval(Real, 0, None)],
        "states": [None, InstanceOf(Mapping, name="a dict {column: [states]}")],
        "missing": [Options("error", "drop", "em")],
        "max_states": [Interval(Integral, 1, None)],
        "n_iter_no_change": [Interval(Integral, 1, None)],
        "split_iter": [None, Interval(Integral, 1, None)],
        "n_jobs": N_JOBS,
        "progress": [BOOLEAN],
        "chunksize": [None, Interval(Integral, 1, None)],
    }
    _parameter_notes: ClassVar[dict] = {
        "alpha": "0 = maximum likelihood, 1 = Laplace",
        "missing": "scoring sums missing cells out whatever this is; 'pairwise' counts have "
        "no likelihood to run EM on",
    }

    def _check_params(self) -> tuple[dict, LearningSettings]:
        params = check_params(self.get_params(), self._parameter_constraints, self._parameter_notes)
        params["n_components"] = _sizes(params["n_components"])
        return params, LearningSettings(
            method="tree-mixture component",
            alpha=params["alpha"],
            mi_alpha=params["mi_alpha"],
            missing=params["missing"],
        )

    # ------------------------------------------------------------ fitting
    def fit(
        self, X: Any, y: Any = None, sample_weight: Any = None, *, validation: Any = None
    ) -> TreeMixture:
        """Learn the mixture by EM from the rows of ``X`` (``y`` is ignored); returns self.

        ``X``: any kind :func:`~treelearn.sources._count.in_memory_table` takes (a path is
        read whole, a Dask DataFrame computed). ``sample_weight`` weights the rows (integer
        weights equal repeated rows): one number per row, or the name of the weight column
        of a file or a Dask DataFrame. ``validation``: held-out rows (a DataFrame with the
        same columns): EM stops once their log-likelihood has not improved for
        ``n_iter_no_change`` iterations, keeping the best model on them; they also choose
        among several ``n_components``.
        """
        params, settings = self._check_params()
        if params["chunksize"] is not None:
            _check_streamed(params)
            passes = row_passes(
                X,
                learner="TreeMixture",
                missing=params["missing"],
                max_states=params["max_states"],
                states=params["states"],
                sample_weight=sample_weight,
                chunksize=params["chunksize"],
            )
            if not passes.in_memory:  # a file in chunks, a Dask DataFrame on its workers
                return self._fit_passes(passes, params, settings, validation)
        table, group = _merge_identical_rows(
            in_memory_table(
                X,
                learner="TreeMixture",
                missing="pairwise" if params["missing"] == "em" else params["missing"],
                max_states=params["max_states"],
                states=params["states"],
                sample_weight=sample_weight,
            )
        )
        options = _Options(
            settings,
            params["max_iter"],
            params["tol"],
            None if validation is None else _validation_codes(validation, table),
            params["n_iter_no_change"],
            params["progress"],
        )
        rng = np.random.default_rng(params["random_state"])
        sizes = params["n_components"]
        _check_mixture_memory(table, len(group), max(sizes))
        # every start drawn first, in order: the same starts whatever n_jobs is
        starts = [
            _initial_responsibilities(table, group, sizes[0], params["init"], rng, settings)
            for _ in range(params["n_init"])
        ]
        runs = _run_all(table, starts, options, params["n_jobs"])
        best = max(runs, key=lambda run: _run_score(run, table, options))
        scores = None
        if len(sizes) > 1:
            n = float(table.n_rows if table.weights is None else table.weights.sum())
            split = _split_options(options, params["split_iter"])
            best, scores = _grow(
                best,
                sizes,
                lambda run: _size_score(run, n, options),
                lambda run, m: _em(table, _split_weakest(table, run, m), split),
                None
                if params["split_iter"] is None
                else lambda run: _em(
                    table, _responsibilities(table, run["components"], run["weights"])[1], options
                ),
            )
        self.components_ = best["components"]
        self.weights_ = best["weights"]
        self.converged_ = best["converged"]
        self.n_iter_ = best["n_iter"]
        self.lower_bound_ = best["lower_bound"]
        self.lower_bounds_ = best["lower_bounds"]
        self.validation_scores_ = best["valid_scores"]
        self.n_components_ = len(self.components_)
        self.n_components_scores_ = scores
        self.feature_names_in_ = np.asarray(table.columns, dtype=object)
        self.n_features_in_ = len(table.columns)
        return self

    def _fit_passes(
        self, passes: RowPasses, params: dict, settings: LearningSettings, validation: Any
    ) -> TreeMixture:
        """EM with one pass over the rows per iteration (:func:`_em_passes`), from the same
        starts as in memory, choosing ``k`` as in memory (:func:`_grow`)."""
        sizes = params["n_components"]
        valid = None if validation is None else _validation_codes(validation, passes)
        options = _Options(
            settings,
            params["max_iter"],
            params["tol"],
            valid,
            params["n_iter_no_change"],
            params["progress"],
        )
        rng = np.random.default_rng(params["random_state"])
        starts = [
            _streamed_start(passes, sizes[0], params["init"], rng, settings)
            for _ in range(params["n_init"])
        ]  # every start drawn first, as in memory
        runs = [_em_passes(passes, start, options) for start in starts]
        best = max(runs, key=lambda run: _run_score(run, None, options))
        scores = None
        if len(sizes) > 1:
            n = float(passes.n_rows)

            split = _split_options(options, params["split_iter"])

            def next_run(run: dict, m: int) -> dict:
                totals = passes.sum(_WeakestPass(run["components"], run["weights"]))
                plan = _split_plan(run["components"], totals, m)
                return _em_passes(
                    passes, _SplitStart(run["components"], run["weights"], plan), split
                )

            best, scores = _grow(
                best,
                sizes,
                lambda run: _size_score(run, n, options),
                next_run,
                None
                if params["split_iter"] is None
                else lambda run: _em_passes(
                    passes, _SplitStart(run["components"], run["weights"], []), options
                ),
            )
        self.components_, self.weights_ = best["components"], best["weights"]
        self.converged_, self.n_iter_ = best["converged"], best["n_iter"]
        self.lower_bound_, self.lower_bounds_ = best["lower_bound"], best["lower_bounds"]
        self.validation_scores_ = best["valid_scores"]
        self.n_components_, self.n_components_scores_ = len(self.components_), scores
        self.feature_names_in_ = np.asarray(passes.columns, dtype=object)
        self.n_features_in_ = len(passes.columns)
        return self

    # ------------------------------------------------------------ scoring
    def _estimate_log_prob(self, X: Any) -> np.ndarray:
        """``log w_k + log T_k(x_r)`` for every row and component (missing cells summed out)."""
        check_is_fitted(self)
        codes = (
            self.components_[0].encode(self._matched_frame(X)).codes
        )  # every component has the same states
        return _weighted_log_prob(self.components_, self.weights_, codes)

    def score_samples(self, X: Any) -> np.ndarray:
        """Log-likelihood of each row (nats); missing cells are summed out exactly."""
        return logsumexp(self._estimate_log_prob(X), axis=1)

    def predict_proba(self, X: Any, target: Hashable | None = None) -> np.ndarray | pd.DataFrame:
        """``P(component k | observed values of row r)``: an ``n x k`` array whose rows sum to 1.

        With ``target`` (a variable), ``P(target | the row's other observed values)``
        instead, exactly: ``sum_k P(k | row) P_k(target | row)``, a DataFrame with one
        column per state (missing cells and absent columns summed out).
        """
        if target is not None:
            check_is_fitted(self)
            return mixture_predict_proba(
                self.components_, self.weights_, as_frame(X, learner="TreeMixture"), target
            )
        log_prob = self._estimate_log_prob(X)
        return np.exp(log_prob - logsumexp(log_prob, axis=1, keepdims=True))

    def predict(self, X: Any, target: Hashable | None = None) -> np.ndarray | pd.Series:
        """The most probable component of each row; with ``target`` (a variable), its most
        probable state given the row's other observed values (the argmax of
        :meth:`predict_proba`, ties to the first state), a Series named ``target``."""
        if target is not None:
            return most_probable(self.predict_proba(X, target=target), target)
        return np.argmax(self._estimate_log_prob(X), axis=1)

    def to_html(self, path: Any = None, **kwargs: Any) -> str | None:
        """The interactive explorer page of the mixture (see
        :func:`treelearn.viz._explorer.to_html`): the hidden component is a box whose
        marginal is the components' weights under the evidence. The page's text, or with
        ``path`` written there and ``None`` returned."""
        from ..viz._explorer import to_html

        page = to_html(self, path, **kwargs)
        return None if path is not None else page

    def explore(self, **kwargs: Any) -> Any:
        """The explorer inline in a notebook (see :class:`treelearn.viz._explorer.Explorer`)."""
        from ..viz._explorer import Explorer

        return Explorer(self, **kwargs)

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
        params = check_explain_options(
            kind=kind,
            conditional=conditional,
            output=output,
            method=method,
            n_permutations=n_permutations,
            random_state=random_state,
        )
        first = self.components_[0]
        first.parents(target)  # a ColumnNotFoundError naming the variables
        frame = self._matched_frame(X)
        codes = first.encode(frame).codes
        other = None if background is None else first.encode(self._matched_frame(background)).codes
        players = [j for j, v in enumerate(first.variables) if v != target]
        games = [
            EngineGame(c.engine(target), codes, players, background=other) for c in self.components_
        ]
        with np.errstate(divide="ignore"):
            log_w = np.log(self.weights_ / self.weights_.sum())
        state = (
            None
            if target_state is None
            else state_index(first.states[target], target, target_state)
        )
        data = frame[[first.variables[j] for j in players]]
        return explain_game(
            MixtureGame(games, log_w),
            target=state,
            data=data,
            index=frame.index,
            target_name=target,
            **params,
        )

    def _matched_frame(self, X: Any) -> pd.DataFrame:
        return as_frame(
            match_features(
                X,
                names=self.feature_names_in_,
                n_features=self.n_features_in_,
                estimator="TreeMixture",
            ),
            self.feature_names_in_,
            learner="TreeMixture",
        )

    @property
    def n_parameters(self) -> int:
        """Free parameters: every component's CPT parameters and ``k - 1`` weights."""
        check_is_fitted(self)
        return sum(c.n_parameters for c in self.components_) + len(self.components_) - 1

    # ------------------------------------------------------------ sampling
    def query(
        self,
        variables: Sequence[Hashable] | Hashable,
        evidence: Mapping[Hashable, Any] | None = None,
    ) -> pd.Series:
        """Exact ``P(variables | evidence)`` (states as evidence): ``sum_k P(k | evidence)
        P_k(variables | evidence)``, a Series as :meth:`TreeModel.query` returns it.

        >>> import pandas as pd, treelearn as tl
        >>> mix = tl.TreeMixture(random_state=0).fit(pd.read_csv("datasets/asia.csv"))
        >>> round(float(mix.query("lung", {"smoke": "yes"}).sum()), 12)
        1.0
        """
        check_is_fitted(self)
        names = [variables] if isinstance(variables, (str, int)) else list(variables)
        return mixture_query(self.components_, self.weights_, names, evidence)

    def marginals(self, evidence: Mapping[Hashable, Any] | None = None) -> dict:
        """``{variable: P(variable | evidence)}`` for every variable not given, exactly."""
        check_is_fitted(self)
        return mixture_marginals(self.components_, self.weights_, evidence)

    def component_posterior(self, evidence: Mapping[Hashable, Any] | None = None) -> np.ndarray:
        """``P(component k | evidence)`` for every ``k``."""
        check_is_fitted(self)
        return component_posterior(self.components_, self.weights_, evidence)

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
        component each row was drawn from: ``(DataFrame, array)``, scikit-learn's pair).
        With ``evidence`` the rows come exactly from ``P(. | evidence)`` (each row's
        component from ``P(k | evidence)``, then the row from that tree given the
        evidence); ``numbers`` as in :meth:`TreeModel.sample`.

        >>> import pandas as pd, treelearn as tl
        >>> mix = tl.TreeMixture(random_state=0).fit(pd.read_csv("datasets/asia.csv"))
        >>> mix.sample(4, random_state=1).shape
        (4, 8)
        >>> X, component = mix.sample(4, random_state=1, return_components=True)
        >>> component.shape
        (4,)
        """
        check_is_fitted(self)
        checked = check_params(
            {"n": n, "random_state": random_state},
            {"n": [Interval(Integral, 0, None)], "random_state": RANDOM_STATE},
        )
        n = checked["n"]
        rng = np.random.default_rng(checked["random_state"])
        if evidence is not None or numbers:
            X, labels = mixture_sample(
                self.components_, self.weights_, n, evidence, rng, numbers=numbers
            )
            return (X, labels) if return_components else X
        per_component = rng.multinomial(n, self.weights_ / self.weights_.sum())
        parts = [
            c.sample(int(m), random_state=rng) for c, m in zip(self.components_, per_component)
        ]
        labels = np.repeat(np.arange(len(self.components_)), per_component)
        X = pd.concat(parts, ignore_index=True)
        return (X, labels) if return_components else X

    # ------------------------------------------------------------ what it is over
    @property
    def variables(self) -> list:
        """The columns the mixture is over, in order."""
        check_is_fitted(self)
        return list(self.components_[0].variables)

    # ------------------------------------------------------------ text, pictures, files
    def to_text(self, digits: int = 4) -> str:
        """The mixture as text: how EM ended, then each component's weight and tree (what
        ``treelearn show`` prints).

        >>> import pandas as pd, treelearn as tl
        >>> mix = tl.TreeMixture(n_components=2, random_state=0).fit(pd.read_csv("datasets/asia.csv"))
        >>> mix.to_text().splitlines()[2].startswith("component 0 (weight ")
        True
        """
        check_is_fitted(self)
        state = "converged" if self.converged_ else "not converged"
        lines = [
            f"{type(self).__name__}: {len(self.components_)} components, EM {state} after "
            f"{self.n_iter_} iteration{'s' if self.n_iter_ != 1 else ''}"
        ]
        for k, (w, tree) in enumerate(zip(self.weights_, self.components_)):
            lines += ["", f"component {k} (weight {w:.{digits}f}):", tree.to_text(digits)]
        return "\n".join(lines)

    def _panel_titles(self) -> list[str]:
        return [f"component {k}: weight {w:.3f}" for k, w in enumerate(self.weights_)]

    def draw(self, **kwargs: Any) -> Any:
        """One panel per component, titled with its weight (see
        :func:`treelearn.viz._draw.draw_panels`); ``title="..."`` is the heading above them
        (``True``: "mixture of k trees", the default), other keywords go to every panel."""
        check_is_fitted(self)
        from ..viz._draw import draw_panels

        title = kwargs.pop("title", True)
        kwargs.pop("data", None)  # the panels are titled by their weights, not a score
        heading = title if isinstance(title, str) else None
        if title is True or title is None:
            heading = f"mixture of {len(self.components_)} trees"
        kwargs.setdefault("heading", heading)
        return draw_panels(self.components_, self._panel_titles(), **kwargs)

    def to_dot(self, **kwargs: Any) -> str:
        """Graphviz DOT: one titled cluster per component (see
        :func:`treelearn.viz._draw.panels_to_dot`)."""
        check_is_fitted(self)
        from ..viz._draw import panels_to_dot

        return panels_to_dot(self.components_, self._panel_titles(), **kwargs)

    def to_mermaid(self, **kwargs: Any) -> str:
        """A Mermaid flowchart: one titled subgraph per component."""
        check_is_fitted(self)
        from ..viz._draw import panels_to_mermaid

        return panels_to_mermaid(self.components_, self._panel_titles(), **kwargs)

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
        return {
            "weights": [float(w) for w in self.weights_],
            "components": [c.to_dict() for c in self.components_],
            "converged": bool(self.converged_),
            "n_iter": int(self.n_iter_),
            "lower_bounds": json_value([float(b) for b in self.lower_bounds_]),
            "lower_bound": json_value(float(self.lower_bound_)),
        }

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
                raise saved.fail(
                    "components", f"component {k} has other variables or states than component 0"
                )
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


# ---------------------------------------------------------------- EM
#: identical rows merged into one weighted row (:func:`treelearn.sources._passes.merge_identical_rows`)
_merge_identical_rows = merge_identical_rows


def _weighted_log_prob(
    components: Sequence[TreeModel], weights: np.ndarray, codes: np.ndarray
) -> np.ndarray:
    with np.errstate(divide="ignore"):
        log_w = np.log(weights)
    return np.column_stack([lw + c.log_likelihood_codes(codes) for lw, c in zip(log_w, components)])


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
        if incomplete:
            pairs, _ = expected_counts(previous[k], table.codes, w, all_pairs=True)
        else:
            joint = joints[k]
            total = float(w.sum())
            pairs = PairCounts(
                joint, table.cardinalities, int(total) if joint.dtype.kind in "iu" else total
            )
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
    """What every EM run of one fit shares."""

    settings: LearningSettings
    max_iter: int
    tol: float
    valid: np.ndarray | None  # validation codes (early stopping, choosing k)
    n_iter_no_change: int
    progress: bool


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


def _validation_codes(validation: Any, table: Table) -> np.ndarray:
    """The validation rows encoded with the training table's states."""
    frame = as_frame(validation, list(table.columns), learner="TreeMixture")
    absent = [c for c in table.columns if c not in frame.columns]
    if absent:
        raise ColumnNotFoundError(f"validation= lacks the columns {absent}", column=absent[0])
    return encode(
        frame[list(table.columns)],
        missing="pairwise",
        states=dict(zip(table.columns, table.states)),
        max_states=np.iinfo(np.int64).max,
    ).codes


def _mean_log_likelihood(
    components: Sequence[TreeModel], weights: np.ndarray, codes: np.ndarray
) -> float:
    return float(np.mean(logsumexp(_weighted_log_prob(components, weights, codes), axis=1)))


def _run_score(run: dict, table: Table, options: _Options) -> float:
    """How a run is judged: its validation log-likelihood per row when there are validation
    rows, else (choosing between runs of one size) its training bound."""
    return run["lower_bound"] if options.valid is None else run["valid"]


def _size_score(run: dict, n: float, options: _Options) -> float:
    """How a size is judged: the validation log-likelihood per row, else the BIC per row
    (larger is better; ``n``: the rows' total weight)."""
    if options.valid is not None:
        return run["valid"]
    p = sum(c.n_parameters for c in run["components"]) + len(run["components"]) - 1
    return run["lower_bound"] - 0.5 * p * np.log(n) / n


def _run_all(table: Table, starts: list, options: _Options, n_jobs: int | None) -> list:
    if n_jobs is None or len(starts) == 1:
        return [_em(table, resp, options) for resp in starts]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=n_jobs)(delayed(_em)(table, resp, options) for resp in starts)


def _responsibilities(
    table: Table, components: Sequence[TreeModel], weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(log_prob, resp)`` of the rows under a mixture."""
    log_prob = _weighted_log_prob(components, weights, table.codes)
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
    plan = []
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


def _split_weakest(table: Table, run: dict, m: int) -> np.ndarray:
    """Responsibilities of ``k + m`` components: the mixture's, with its ``m`` weakest
    components (the lowest total log-likelihood of the rows they hold) each split in two
    on one variable (:func:`_split_plan`)."""
    components, weights = run["components"], run["weights"]
    log_prob, resp = _responsibilities(table, components, weights)
    w = np.ones(len(resp)) if table.weights is None else table.weights
    plan = _split_plan(components, _component_totals(log_prob, resp, weights, w), m)
    return _split_columns(table.codes, resp, plan)


def _weighted_marginals(
    codes: np.ndarray, seen: np.ndarray, weights: np.ndarray, cards: np.ndarray
) -> np.ndarray:
    """``marginal[j, s]``: the weighted share of state ``s`` of variable ``j`` (a last column
    of ones for a missing cell, code -1)."""
    d = codes.shape[1]
    out = np.zeros((d, int(cards.max()) + 1))
    for j in range(d):  # a loop over variables, not rows
        observed = np.bincount(
            codes[seen[:, j], j], weights=weights[seen[:, j]], minlength=cards[j]
        )
        out[j, : cards[j]] = observed / max(observed.sum(), 1e-300)
    out[:, -1] = 1.0
    return out


def _split_options(options: _Options, split_iter: int | None) -> _Options:
    """The options of the EM runs after a split while choosing ``k``: at most ``split_iter``
    iterations (``None``: as every run)."""
    return (
        options
        if split_iter is None
        else replace(options, max_iter=min(split_iter, options.max_iter))
    )


def _grow(
    best: dict, sizes: list, score: Any, next_run: Any, finish: Any | None
) -> tuple[dict, dict]:
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
        current = next_run(current, k - len(current["components"]))
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


def _em(table: Table, resp: np.ndarray, options: _Options) -> dict:
    """One EM run from the responsibilities ``resp``: the kept model (the last, or the best on
    the validation rows), its bound and history."""
    settings = options.settings
    row_w = None if table.weights is None else table.weights / table.weights.sum()
    state: dict = {"resp": resp, "components": None}

    def m_step() -> tuple[list, np.ndarray]:
        components, weights = _m_step(table, state["resp"], settings, state["components"])
        state["components"] = components
        return components, weights

    def e_step(components: list, weights: np.ndarray) -> float:
        log_prob = _weighted_log_prob(components, weights, table.codes)
        log_norm = logsumexp(log_prob, axis=1)
        with np.errstate(invalid="ignore"):  # a row impossible under every tree: -inf - -inf
            state["resp"] = np.exp(log_prob - log_norm[:, None])
        return float(np.mean(log_norm) if row_w is None else np.sum(row_w * log_norm))

    return _em_loop(m_step, e_step, options)


def _em_loop(m_step: Any, e_step: Any, options: _Options) -> dict:
    """EM's iterations, whatever holds the rows: ``m_step()`` gives the next mixture
    ``(components, weights)`` from the last E-step's statistics, ``e_step(components,
    weights)`` the training bound (mean log-likelihood per row) and the next statistics.
    Stops at ``max_iter``, a non-finite bound, ``tol`` or the validation rows' early
    stopping; returns the kept run (the last, or the best on the validation rows)."""
    bounds: list[float] = []
    converged = False
    stop = None if options.valid is None else EarlyStopping(options.n_iter_no_change)
    components, weights = None, None
    with progress_bar(options.progress, options.max_iter, "tree mixture EM") as bar:
        for _ in range(options.max_iter):
            components, weights = m_step()
            bound = e_step(components, weights)
            bounds.append(bound)
            bar.update()
            bar.set_postfix_str(f"{bound:.4f}")
            if not np.isfinite(bound):
                break
            if stop is not None and stop.update(
                _mean_log_likelihood(components, weights, options.valid),
                (components, weights, len(bounds)),
            ):
                break
            if len(bounds) > 1 and abs(bounds[-1] - bounds[-2]) < options.tol:
                converged = True
                break
    kept = (components, weights, len(bounds)) if stop is None else stop.best
    components, weights, n = kept
    return {
        "components": components,
        "weights": weights,
        "converged": converged,
        "n_iter": n,
        "lower_bound": bounds[n - 1],
        "lower_bounds": bounds[:n],
        "valid": None if stop is None else stop.best_score,
        "valid_scores": None if stop is None else stop.scores[:n],
    }


# ---------------------------------------------------------------- EM, one pass per iteration
def _check_streamed(params: dict) -> None:
    """``chunksize`` (on any kind of input, so that every kind gives the same mixture) takes
    the starts that need no rows in memory: ``"k_best"`` (from the counts) and ``"random"``
    (its seed rows fetched by passes)."""
    if params["init"] not in ("k_best", "random"):
        raise TreelearnError(
            f"chunksize={params['chunksize']} streams the rows: it takes init='random' or "
            f"init='k_best', not {params['init']!r} (which draws over every row at once: "
            "chunksize=None)",
            values=[params["chunksize"]],
        )


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
    log_prob = _weighted_log_prob(components, weights, codes)
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
        log_prob = _weighted_log_prob(self.components, self.weights, codes)
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


def _em_passes(passes: RowPasses, start: Any, options: _Options) -> dict:
    """:func:`_em` with one pass over the rows per iteration (a file in chunks, a Dask
    DataFrame's partitions on its workers): the first pass gives the counts of the
    ``start``'s responsibilities of the rows (a function of a chunk's rows), each next one
    the bound of the current mixture and the counts of its M-step."""
    cards = passes.cardinalities
    state = {"sums": passes.sum(_StartPass(start, cards))}

    def e_step(components: list, weights: np.ndarray) -> float:
        sums = passes.sum(_MixturePass(components, weights, cards, passes.missing == "em"))
        state["sums"] = sums
        return sums.log_likelihood / sums.weight

    return _em_loop(
        lambda: _components_from(passes, state["sums"], options.settings), e_step, options
    )
