"""What treelearn's density estimators share: the estimator base and the one EM loop.

:class:`DensityEstimator` is the base of :class:`~treelearn.TreeMixture`,
:class:`~treelearn.BaggedTrees`, :class:`~treelearn.HiddenTree`,
:class:`~treelearn.HiddenMarkovModel` and :class:`~treelearn.CutsetNetwork`, as
scikit-learn's ``BaseMixture`` is its mixtures': the parameter check (declared constraints
composed from the fragments below, :meth:`~DensityEstimator._checked_params`), the rows
(:func:`~treelearn.sources._passes.row_passes`: any input kind, ``sample_weight``, passes
over a file or a Dask DataFrame), validation rows (:func:`validation_codes`), and every
score, written once *in the model*: the fitted ``model_`` (a
:class:`~treelearn.Model`) answers ``score_samples``, ``score``, ``bic``,
``aic`` and ``n_parameters``; the estimator matches the rows to its features and asks it.

:func:`em_run` is the one EM loop (pomegranate's ``summarize`` / ``from_summaries``
shape): a learner gives its E-step (a model's training bound and the statistics of the
next M-step, in one pass over the rows), its M-step (the next model from those
statistics) and its starts; the loop does the iterations, the tolerance, early stopping on
validation rows (:class:`EarlyStopping`) and the progress bar; :func:`run_starts` runs the
``n_init`` starts (in parallel with ``n_jobs``, the same results) and :func:`best_run`
keeps the best.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils.validation import check_is_fitted

from .._base.errors import ColumnNotFoundError, TreelearnError
from .._base.jsonvalues import json_value
from .._base.persistence import Persistent, SavedState
from .._base.validation import (
    BOOLEAN,
    RANDOM_STATE,
    InstanceOf,
    Interval,
    Options,
    check_params,
)
from ..encoding._table import CategoricalTableInput, encode, missing_fixed_by
from ..export._jsonfile import estimator_document, save_document
from ..models._base import Capable, Model
from ..sources._count import in_memory_table
from ..sources._kinds import as_frame, kind_of, match_features
from ..sources._passes import RowPasses, row_passes

__all__ = [
    "EM_OPTIONS",
    "FORWARDED",
    "N_JOBS",
    "SMOOTHING",
    "SOURCE_OPTIONS",
    "DensityEstimator",
    "EMEstimator",
    "EMRun",
    "EMSchedule",
    "EarlyStopping",
    "best_run",
    "em_run",
    "progress_bar",
    "run_starts",
    "validation_codes",
]

#: ``n_jobs``: None (one process), or a number of joblib workers (-1: one per core)
N_JOBS = [None, Interval(Integral, -1, None)]

#: the capabilities a density estimator answers by passing the call on to its ``model_``
#: (its methods below); an estimator answering for a model it chose declares those of them
#: its model answers (:class:`~treelearn.models._base.ChosenCapabilities`)
FORWARDED = frozenset(
    {"score", "sample", "sample_given", "query", "marginals", "map", "predict", "draw", "explorer"}
)

# ---------------------------------------------------------------------- option fragments
#: how the rows are read (every density estimator)
SOURCE_OPTIONS: dict = {
    "random_state": RANDOM_STATE,
    "states": [None, InstanceOf(Mapping, name="a dict {column: [states]}")],
    "max_states": [Interval(Integral, 1, None)],
    "n_jobs": N_JOBS,
}
#: the CPTs' smoothing and the trees' MI smoothing
SMOOTHING: dict = {
    "alpha": [Interval(Real, 0, None)],
    "mi_alpha": [None, Interval(Real, 0, None)],
}
#: an EM fit's iterations, starts and passes
EM_OPTIONS: dict = {
    "max_iter": [Interval(Integral, 1, None)],
    "tol": [Interval(Real, 0, None)],
    "n_init": [Interval(Integral, 1, None)],
    "n_iter_no_change": [Interval(Integral, 1, None)],
    "progress": [BOOLEAN],
    "chunksize": [None, Interval(Integral, 1, None)],
}
#: what the shared options mean, in the error of a bad one
NOTES: dict = {"alpha": "0 = maximum likelihood, 1 = Laplace"}


# ---------------------------------------------------------------------- early stopping, bar
class EarlyStopping:
    """The best model on validation data so far, and whether to stop: after
    ``patience`` iterations without a better validation score.

    >>> stop = EarlyStopping(patience=2)
    >>> [stop.update(s, f"model {i}") for i, s in enumerate([-3.0, -2.0, -2.5, -2.1])]
    [False, False, False, True]
    >>> stop.best, stop.best_score, stop.scores
    ('model 1', -2.0, [-3.0, -2.0, -2.5, -2.1])
    """

    def __init__(self, patience: int) -> None:
        self.patience = patience
        self.best: Any = None
        self.best_score = -np.inf
        self.scores: list[float] = []
        self._since = 0

    def update(self, score: float, model: Any) -> bool:
        """Record ``model``'s validation ``score``; True when it is time to stop."""
        self.scores.append(float(score))
        if self.best is None or score > self.best_score:
            self.best, self.best_score, self._since = model, float(score), 0
            return False
        self._since += 1
        return self._since >= self.patience


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass


@contextmanager
def progress_bar(enabled: bool, total: int, desc: str) -> Iterator[Any]:
    """A tqdm bar over ``total`` steps when ``enabled`` (tqdm is optional: asking for a bar
    without it is an error saying how to install it), else a bar that shows nothing."""
    if not enabled:
        yield _NoBar()
        return
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - depends on the installation
        raise TreelearnError("progress=True needs tqdm: pip install tqdm") from None
    bar = tqdm(total=total, desc=desc, leave=False)
    try:
        yield bar
    finally:
        bar.close()


# ---------------------------------------------------------------------- the EM loop
@dataclass(frozen=True)
class EMSchedule:
    """What every EM run of one fit shares: at most ``max_iter`` iterations, stop when the
    bound moves by less than ``tol``, or (with validation rows) after ``n_iter_no_change``
    iterations without a better validation score; ``progress``: a bar named ``label``."""

    max_iter: int
    tol: float
    n_iter_no_change: int = 5
    progress: bool = False
    label: str = "EM"


@dataclass
class EMRun:
    """One EM run: the kept ``model`` (the last, or the best on the validation rows), the
    training bound of every model scored up to it (``bounds``, the kept one's last), their
    validation scores (or None), and whether the bound converged."""

    model: Any
    bounds: list
    valid_scores: list | None
    converged: bool

    @property
    def lower_bound(self) -> float:
        """The kept model's training bound (mean log-likelihood per row)."""
        return self.bounds[-1]

    @property
    def valid(self) -> float | None:
        """The kept model's mean validation log-likelihood (None without validation rows)."""
        return None if self.valid_scores is None else self.valid_scores[-1]


def em_run(
    model: Any,
    e_step: Callable[[Any], tuple[float, Any]],
    m_step: Callable[[Any, Any], Any],
    schedule: EMSchedule,
    *,
    n_steps: int,
    valid_score: Callable[[Any], float] | None = None,
    score_only: Callable[[Any], float] | None = None,
) -> EMRun:
    """EM from ``model``: ``n_steps`` times, ``e_step(model)`` gives its training bound
    (mean log-likelihood per row) and the statistics ``m_step(statistics, model)`` makes the
    next model from; stops early at a non-finite bound, when the bound moves by less than
    ``schedule.tol``, or when ``valid_score(model)`` (the mean validation log-likelihood)
    has not improved for ``schedule.n_iter_no_change`` models (keeping the best). The last
    model is scored by ``score_only`` when given (no statistics: no M-step follows).

    >>> run = em_run(0.0, lambda x: (-abs(x - 1), x), lambda s, x: (s + 1) / 2,
    ...              EMSchedule(max_iter=10, tol=0.01), n_steps=10)
    >>> # each step halves the distance to 1: the bounds -1, -1/2, ..., -1/128 move by
    >>> # 1/128 < 0.01 at the eighth model, x = 1 - 1/128
    >>> run.model, len(run.bounds), run.converged
    (0.9921875, 8, True)
    """
    bounds: list[float] = []
    stop = None if valid_score is None else EarlyStopping(schedule.n_iter_no_change)
    converged = False
    with progress_bar(schedule.progress, schedule.max_iter, schedule.label) as bar:
        for step in range(n_steps):
            last = step == n_steps - 1
            if last and stop is None and score_only is not None:
                bounds.append(score_only(model))
                break
            bound, statistics = e_step(model)
            bounds.append(bound)
            bar.update()
            bar.set_postfix_str(f"{bound:.4f}")
            if not np.isfinite(bound):
                break
            if (
                stop is not None
                and valid_score is not None
                and stop.update(valid_score(model), (model, len(bounds)))
            ):
                break
            if len(bounds) > 1 and abs(bounds[-1] - bounds[-2]) < schedule.tol:
                converged = True
                break
            if last:
                break
            model = m_step(statistics, model)
    kept, n = (model, len(bounds)) if stop is None else stop.best
    return EMRun(kept, bounds[:n], None if stop is None else stop.scores[:n], converged)


def run_starts(run: Callable[[Any], Any], starts: list, n_jobs: int | None) -> list:
    """``run(start)`` for every start, in order; with ``n_jobs``, joblib workers (the
    starts were drawn before, so the results do not depend on it)."""
    if n_jobs is None or len(starts) == 1:
        return [run(s) for s in starts]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=n_jobs)(delayed(run)(s) for s in starts)


def best_run(runs: list) -> EMRun:
    """The run with the best validation score when there were validation rows, else the
    best training bound (the first of equals)."""
    return max(runs, key=lambda r: r.lower_bound if r.valid is None else r.valid)


# ---------------------------------------------------------------------- validation rows
def validation_codes(validation: Any, passes: RowPasses, learner: str) -> np.ndarray:
    """The validation rows encoded with the training rows' columns and states (``-1``:
    missing): a table of any in-memory kind, a ``scipy.sparse`` 0/1 matrix as ``fit``
    reads it (columns by position)."""
    columns = list(passes.columns)
    states = dict(zip(passes.columns, passes.states))
    if not isinstance(validation, pd.DataFrame) and kind_of(validation).name == "sparse":
        return in_memory_table(
            validation, learner=learner, states=states, names=passes.columns
        ).codes
    frame = as_frame(validation, columns, learner=learner)
    absent = [c for c in columns if c not in frame.columns]
    if absent:
        raise ColumnNotFoundError(f"validation= lacks the columns {absent}", column=absent[0])
    return encode(
        frame[columns], missing="pairwise", states=states, max_states=np.iinfo(np.int64).max
    ).codes


# ---------------------------------------------------------------------- the estimators
class DensityEstimator(Persistent, Capable, CategoricalTableInput, DensityMixin, BaseEstimator):
    """The base of treelearn's density estimators (see the module docstring).

    A subclass declares ``_parameter_constraints`` (composed of :data:`SOURCE_OPTIONS`,
    :data:`SMOOTHING`, :data:`EM_OPTIONS` and its own), learns in ``fit`` and sets
    ``model_``, a :class:`~treelearn.Model`; its scores are the model's.
    """

    _parameter_constraints: ClassVar[dict] = {}
    _parameter_notes: ClassVar[dict] = NOTES
    #: the fitted model (each estimator says which kind)
    model_: Any

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # 0/1 scipy.sparse matrices (sources.in_memory_table)
        tags.input_tags.allow_nan = False  # missing="error" by default; scoring sums NaN out
        return tags

    # ------------------------------------------------------------ options and rows
    def _checked_params(self) -> dict:
        """Every option checked against ``_parameter_constraints`` (numbers as Python
        ``int``/``float``), then the combinations (:meth:`_check_combination`)."""
        params = check_params(
            self.get_params(deep=False), self._parameter_constraints, self._parameter_notes
        )
        self._check_combination(params)
        return params

    def _check_combination(self, params: dict) -> None:
        """Options that are valid alone but not together (none by default)."""

    def _passes(self, X: Any, params: dict, sample_weight: Any) -> RowPasses:
        """``X``'s rows for learning (any kind; with ``chunksize``, a file or Dask DataFrame
        in passes); missing cells refused naming the ``missing=`` fix this learner takes."""
        with missing_fixed_by(self._missing_options()):
            return row_passes(
                X,
                learner=type(self).__name__,
                missing=params["missing"],
                max_states=params["max_states"],
                states=params["states"],
                sample_weight=sample_weight,
                chunksize=params.get("chunksize"),
            )

    @classmethod
    def _missing_options(cls) -> tuple:
        """The ``missing=`` choices this learner takes (its declared constraint's).

        >>> import treelearn as tl
        >>> tl.TreeMixture._missing_options(), tl.CutsetNetwork._missing_options()
        (('error', 'drop', 'em'), ('error', 'drop'))
        """
        forms = cls._parameter_constraints.get("missing", [])
        return next((tuple(f.values) for f in forms if isinstance(f, Options)), ())

    def _validation(self, validation: Any, passes: RowPasses) -> np.ndarray | None:
        return (
            None
            if validation is None
            else validation_codes(validation, passes, type(self).__name__)
        )

    def _set_features(self, columns: Any) -> None:
        self.feature_names_in_ = np.asarray(list(columns), dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)

    def _restore_model(self, saved: SavedState, model: Model, field: str) -> None:
        """``model_`` from a file: its variables must be the saved features (else
        ``field``, where the model was read, is wrong)."""
        names = getattr(self, "feature_names_in_", None)
        if names is not None and list(names) != list(model.variables):
            raise saved.fail("feature_names", f"differ from the variables of {field!r}")
        self.model_ = model
        self._set_features(model.variables)

    # ------------------------------------------------------------ scores: the model's
    def _fitted_model(self) -> Any:
        """``model_`` (a :class:`~treelearn.Model` of the estimator's kind),
        once fitted."""
        check_is_fitted(self)
        return self.model_

    def _rows(self, X: Any) -> pd.DataFrame:
        """``X`` as a DataFrame of the fitted features (matched by name, or by position)."""
        model = self._fitted_model()
        name = type(self).__name__
        matched = match_features(
            X, names=list(self.feature_names_in_), n_features=self.n_features_in_, estimator=name
        )
        return as_frame(matched, list(model.variables), learner=name)

    def score_samples(self, X: Any) -> np.ndarray:
        """Log-likelihood of each row (nats); missing cells are summed out exactly."""
        return self._fitted_model().score_samples(self._rows(X))

    def score(self, X: Any, y: Any = None, sample_weight: Any = None) -> float:
        """Mean log-likelihood per row (what ``GridSearchCV`` maximises); with
        ``sample_weight``, the weighted mean."""
        return self._fitted_model().score(self._rows(X), sample_weight=sample_weight)

    def bic(self, X: Any, sample_weight: Any = None) -> float:
        """``log_likelihood - n_parameters / 2 * ln n`` (``n``: the rows, or their total
        weight): **larger is better**, as for :meth:`TreeModel.bic
        <treelearn.TreeModel.bic>`; scikit-learn's ``GaussianMixture.bic`` is
        ``-2`` times this."""
        return self._fitted_model().bic(self._rows(X), sample_weight=sample_weight)

    def aic(self, X: Any, sample_weight: Any = None) -> float:
        """``log_likelihood - n_parameters`` (weighted by ``sample_weight``): larger is better."""
        return self._fitted_model().aic(self._rows(X), sample_weight=sample_weight)

    @property
    def n_parameters(self) -> int:
        """The model's free parameters (what BIC and AIC charge)."""
        return self._fitted_model().n_parameters

    # ------------------------------------------------------------ answers: the model's
    # each asks the estimator's declared capabilities first (the one refusal), then
    # ``model_``: one implementation of every answer, in the model
    @property
    def variables(self) -> list:
        """The columns the fitted model is over, in order."""
        return list(self._fitted_model().variables)

    def query(
        self,
        variables: Sequence[Hashable] | Hashable,
        evidence: Mapping[Hashable, Any] | None = None,
    ) -> Any:
        """Exact ``P(variables | evidence)``: :attr:`model_`'s ``query``."""
        self.require("query")
        return self._fitted_model().query(variables, evidence)

    def marginals(self, evidence: Mapping[Hashable, Any] | None = None) -> dict:
        """``{variable: P(variable | evidence)}`` of every variable not given: :attr:`model_`'s."""
        self.require("marginals")
        return self._fitted_model().marginals(evidence)

    def map_query(
        self, evidence: Mapping[Hashable, Any] | None = None, return_log_prob: bool = False
    ) -> Any:
        """The most probable completion of ``evidence``: :attr:`model_`'s ``map_query``."""
        self.require("map")
        return self._fitted_model().map_query(evidence, return_log_prob=return_log_prob)

    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
    ) -> pd.DataFrame:
        """``n`` rows drawn from :attr:`model_` (exactly given ``evidence``; ``numbers``:
        binned columns as numbers within each row's bin)."""
        self.require("sample_given" if evidence else "sample")
        # keyword options forwarded as given: each kind's sample takes the ones it answers
        extra: dict[str, Any] = {"evidence": evidence} if evidence else {}
        if numbers:
            extra["numbers"] = True
        return self._fitted_model().sample(n, random_state, **extra)

    def predict_proba(self, X: Any, target: Hashable) -> pd.DataFrame:
        """``P(target | each row's other observed values)`` (absent columns summed out):
        :attr:`model_`'s ``predict_proba``."""
        self.require("predict")
        return self._fitted_model().predict_proba(X, target)

    def predict(self, X: Any, target: Hashable) -> pd.Series:
        """Each row's most probable state of ``target`` given its other observed values."""
        self.require("predict")
        return self._fitted_model().predict(X, target)

    def to_text(self, digits: int = 4) -> str:
        """The fitted model as text (what ``treelearn show`` prints), headed by how the
        learner ended."""
        model = self._fitted_model()
        return self._headline() + "\n" + model.to_text(digits)

    def _headline(self) -> str:
        """The first line of :meth:`to_text` (an EM learner says how its run ended)."""
        return type(self).__name__

    def draw(self, *args: Any, **kwargs: Any) -> Any:
        """:attr:`model_`'s picture (a matplotlib Figure)."""
        self.require("draw")
        return self._fitted_model().draw(*args, **kwargs)

    def to_dot(self, **kwargs: Any) -> str:
        """:attr:`model_` as Graphviz DOT text."""
        self.require("draw")
        return self._fitted_model().to_dot(**kwargs)

    def to_mermaid(self, **kwargs: Any) -> str:
        """:attr:`model_` as a Mermaid flowchart."""
        self.require("draw")
        return self._fitted_model().to_mermaid(**kwargs)

    def to_html(self, path: str | os.PathLike | None = None, **kwargs: Any) -> str | None:
        """The interactive explorer page (:func:`treelearn.to_html`) of a
        learner that declares ``"explorer"``: the page's text, or with ``path`` written
        there and ``None`` returned."""
        self.require("explorer")
        from ..viz._explorer import to_html

        page = to_html(self, path, **kwargs)
        return None if path is not None else page

    def explore(self, **kwargs: Any) -> Any:
        """The explorer inline in a notebook (an object whose ``_repr_html_`` is the page in
        an ``<iframe srcdoc=...>``); ``kwargs`` as :func:`treelearn.to_html`'s."""
        self.require("explorer")
        from ..viz._explorer import Explorer

        return Explorer(self, **kwargs)

    def save(self, path: str | os.PathLike) -> None:
        """Save to a versioned JSON file; read it back with :func:`treelearn.load`
        (``tl.save(est.model_, path)`` saves the model alone)."""
        save_document(path, estimator_document(self, self.kind))


class EMEstimator(DensityEstimator):
    """A density estimator learned by EM (:func:`em_run`): ``fit`` written once (the
    options, the rows, the validation rows, the seed, then the learner's :meth:`_em` and
    :meth:`_model_of`), and the fit's history (``converged_``, ``n_iter_``,
    ``lower_bound_``, ``lower_bounds_``, ``validation_scores_``), set from the kept run and
    saved with the model."""

    #: how many of a run's bounds are no EM iteration (a hidden tree scores its start)
    _scored_start: ClassVar[int] = 0
    #: the progress bar's name
    _em_label: ClassVar[str] = "EM"

    def _headline(self) -> str:
        state = "converged" if self.converged_ else "not converged"
        n = self.n_iter_
        return f"{type(self).__name__}: EM {state} after {n} iteration{'' if n == 1 else 's'}"

    def fit(
        self, X: Any, y: Any = None, sample_weight: Any = None, *, validation: Any = None
    ) -> EMEstimator:
        """Learn by EM from the rows of ``X`` (``y`` is ignored); returns self.

        ``X``: a DataFrame, a CSV/Parquet path (read whole; with ``chunksize``, in chunks at
        every pass), a Dask DataFrame (computed; with ``chunksize``, summarised on its
        workers at every pass), a ``scipy.sparse`` 0/1 matrix or a 2-D array.
        ``sample_weight``: one weight per row (integer weights equal repeated rows), or the
        name of the weight column of a file or a Dask DataFrame. ``validation``: held-out
        rows (a table with the same columns): EM stops once their log-likelihood has not
        improved for ``n_iter_no_change`` iterations, keeping the best model on them.
        """
        params = self._checked_params()
        passes = self._passes(X, params, sample_weight)
        valid = self._validation(validation, passes)
        rng = np.random.default_rng(params["random_state"])
        run = self._em(passes, params, valid, rng)
        self._set_history(run)
        self.model_ = self._model_of(run, passes, params)
        self._set_features(passes.columns)
        return self

    def _em(
        self, passes: RowPasses, params: dict, valid: np.ndarray | None, rng: np.random.Generator
    ) -> EMRun:  # pragma: no cover - every learner defines it
        """The kept EM run: the learner's starts, E- and M-steps through :func:`em_run`."""
        raise NotImplementedError

    def _model_of(
        self, run: EMRun, passes: RowPasses, params: dict
    ) -> Model:  # pragma: no cover - every learner defines it
        """The fitted model of the kept run."""
        raise NotImplementedError

    def _schedule(self, params: dict) -> EMSchedule:
        return EMSchedule(
            params["max_iter"],
            params["tol"],
            params["n_iter_no_change"],
            params["progress"],
            self._em_label,
        )

    def _set_history(self, run: EMRun) -> None:
        self.converged_ = run.converged
        self.n_iter_ = len(run.bounds) - self._scored_start
        self.lower_bound_ = run.lower_bound
        self.lower_bounds_ = list(run.bounds)
        self.validation_scores_ = run.valid_scores

    def _history_state(self) -> dict:
        return {
            "lower_bounds": json_value([float(b) for b in self.lower_bounds_]),
            "validation_scores": (
                None
                if self.validation_scores_ is None
                else json_value([float(b) for b in self.validation_scores_])
            ),
            "n_iter": int(self.n_iter_),
            "converged": bool(self.converged_),
        }

    def _restore_history(self, saved: SavedState) -> None:
        self.lower_bounds_ = saved.array("lower_bounds", (None,), finite=False).tolist()
        if not self.lower_bounds_:
            raise saved.fail("lower_bounds", "is empty")
        self.lower_bound_ = float(self.lower_bounds_[-1])
        scores = saved.state.get("validation_scores")
        self.validation_scores_ = (
            None
            if scores is None
            else saved.array("validation_scores", (None,), finite=False).tolist()
        )
        self.n_iter_ = saved.raw("n_iter", int)
        if isinstance(self.n_iter_, bool) or self.n_iter_ < 0:
            raise saved.fail("n_iter", "must be an integer >= 0")
        self.converged_ = bool(saved.raw("converged", bool))
