"""``AutoClassifier``: the classifier that chooses among treelearn's classifiers by
cross-validated log-loss.

The candidates that apply to the table's columns are scored on the same stratified folds
(scikit-learn's ``StratifiedKFold(cv, shuffle=True, random_state)``); the score of a
candidate is its held-out log-loss, ``-sum_i w_i log p(y_i | x_i) / sum_i w_i`` over every
row, each row predicted by the candidate learned on the other folds. The candidate of the
lowest log-loss (the first in :data:`CANDIDATES` order on a tie at 12 decimals) is then
learned on every row and answers for the classifier.

Naive Bayes on complete categorical rows is scored from **fold counts** (no refit:
:class:`~treelearn.classifiers._wrappers.FoldScorer`, the held-in counts of a fold being
the whole table's minus the fold's); every other candidate is refitted on each fold's
held-in rows, the states of each categorical column being the whole table's (declared, as
the fold counts have them), so that no fold meets a state its training rows lacked.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_consistent_length

from .._base.errors import InputTypeError, TreelearnError
from .._base.logspace import logsumexp
from .._base.persistence import ESTIMATORS, SavedState
from .._base.validation import RANDOM_STATE, InstanceOf, Interval
from ..encoding._table import check_sample_weight
from ._base import BayesNetClassifier, TrainingData, categorical_training
from ._gaussian import GaussianClassifier
from ._gaussian_tan import GaussianTAN
from ._mixed import MixedNaiveBayes
from ._mixed_tan import MixedTAN
from ._naive_bayes import NaiveBayes
from ._seminaive import AODE, KDB
from ._skdb import SKDB
from ._tan import TAN
from ._weighted import WeightedNaiveBayes
from ._wrappers import FoldScorer

__all__ = ["CANDIDATES", "AutoClassifier", "applicable", "fold_of_rows"]

#: every candidate by name: (its estimator, the columns it takes: "categorical" tables,
#: "numeric" tables or "any" table)
CANDIDATES: dict[str, tuple[Any, str]] = {
    "NaiveBayes": (lambda: NaiveBayes(), "categorical"),
    "TAN": (lambda: TAN(), "categorical"),
    "KDB1": (lambda: KDB(k=1), "categorical"),
    "KDB2": (lambda: KDB(k=2), "categorical"),
    "AODE": (lambda: AODE(), "categorical"),
    "SKDB": (lambda: SKDB(), "categorical"),
    "WeightedNaiveBayes": (lambda: WeightedNaiveBayes(), "categorical"),
    "MixedNaiveBayes": (lambda: MixedNaiveBayes(), "any"),
    "MixedTAN": (lambda: MixedTAN(), "any"),
    "GaussianClassifier": (lambda: GaussianClassifier(covariance="diag", reg=1e-9), "numeric"),
    "GaussianTAN": (lambda: GaussianTAN(), "numeric"),
}


def _numeric_columns(frame: pd.DataFrame) -> list:
    """The columns modelled as numbers: numeric dtype, not bool (decided by dtype only)."""
    return [
        c
        for c in frame.columns
        if pd.api.types.is_numeric_dtype(frame[c].dtype)
        and not pd.api.types.is_bool_dtype(frame[c].dtype)
        and not isinstance(frame[c].dtype, pd.CategoricalDtype)
    ]


def applicable(frame: pd.DataFrame) -> list[str]:
    """The candidates that take the table's columns, in :data:`CANDIDATES` order."""
    numeric = _numeric_columns(frame)
    if not numeric:
        kind = "categorical"
    elif len(numeric) == frame.shape[1]:
        kind = "numeric"
    else:
        kind = "mixed"
    return [
        name
        for name, (_, takes) in CANDIDATES.items()
        if takes == "any" or takes == kind or (takes == "numeric" and kind == "numeric")
    ]


def _declared(frame: pd.DataFrame, numeric: list) -> pd.DataFrame:
    """A copy with each categorical column's states declared as the whole table's."""
    out = frame.copy()
    for c in frame.columns:
        if c not in numeric and not isinstance(frame[c].dtype, pd.CategoricalDtype):
            values = frame[c].dropna()
            out[c] = pd.Categorical(frame[c], categories=sorted(pd.unique(values), key=_order))
    return out


def fold_of_rows(y: np.ndarray, cv: Any, random_state: Any) -> np.ndarray:
    """Each row's fold: ``StratifiedKFold(cv, shuffle=True, random_state)`` on the labels,
    or the test sets of the ``(train, test)`` pairs ``cv``."""
    if not isinstance(cv, Integral):
        folds = np.full(len(y), -1, dtype=np.intp)
        for f, (_, test) in enumerate(cv):
            folds[np.asarray(test, dtype=np.intp)] = f
        if (folds < 0).any() or sum(len(t) for _, t in cv) != len(y):
            raise TreelearnError(
                "cv: every row must be in exactly one test set of the (train, test) pairs; "
                "give such splits or a number of folds"
            )
        return folds
    most = int(np.bincount(y).max()) if len(y) else 0
    if most < int(cv):
        raise TreelearnError(
            f"AutoClassifier scores each candidate by {cv}-fold cross-validation (cv={cv}), "
            f"which needs at least {cv} rows of some class; got n_samples = {len(y)}, the "
            f"largest class has {most}: "
            f"give more rows or a smaller cv (>= 2)"
        )
    folds = np.empty(len(y), dtype=np.intp)
    splitter = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    for f, (_, test) in enumerate(splitter.split(np.zeros((len(y), 1)), y)):
        folds[test] = f
    return folds


def _order(value: Any) -> tuple:
    return (type(value).__name__, value)


class AutoClassifier(BayesNetClassifier):
    """The classifier that chooses: the candidate of lowest cross-validated log-loss.

    Parameters
    ----------
    candidates : sequence of str, default=None
        The names of the candidates to try (``"NaiveBayes"``, ``"TAN"``,
        ``"KDB1"``, ``"KDB2"``, ``"AODE"``, ``"SKDB"``, ``"WeightedNaiveBayes"``,
        ``"MixedNaiveBayes"``, ``"MixedTAN"``, ``"GaussianClassifier"``,
        ``"GaussianTAN"``); ``None`` (default): every one
        that takes the table's columns -- NaiveBayes, TAN, KDB(k=1), KDB(k=2), AODE,
        SKDB and WeightedNaiveBayes on categorical tables, MixedNaiveBayes and MixedTAN
        on every table, GaussianClassifier and GaussianTAN on numeric tables.
    cv : int, default=5
        The number of stratified folds (>= 2), or the folds as scikit-learn's
        ``(train, test)`` index pairs (every row in one test set).
    random_state : the folds' shuffle.

    Attributes
    ----------
    chosen_ : the name of the chosen candidate.
    candidate_scores_ : ``{name: cross-validated log-loss}`` of every candidate tried
        (``inf`` where a fold gave a held-out row probability zero or the candidate
        refused the table, see ``candidate_errors_``).
    candidate_errors_ : ``{name: message}`` of the candidates that refused the table.
    estimator_ : the chosen candidate learned on every row; it answers the predictions.
    classes_, class_name_, class_count_, class_log_prior_, n_features_in_, feature_names_in_
        As every classifier's.

    See Also
    --------
    NaiveBayes, TAN, AODE : candidates it compares.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> X, y = df.drop(columns="either"), df["either"]
    >>> clf = tl.AutoClassifier(candidates=["NaiveBayes", "TAN"], random_state=0).fit(X, y)
    >>> clf.chosen_
    'TAN'
    >>> sorted(clf.candidate_scores_)
    ['NaiveBayes', 'TAN']
    """

    cli_method: ClassVar[str | None] = None
    _parameter_constraints: ClassVar[dict] = {
        "candidates": [None, InstanceOf(list, tuple, name="a list of candidate names")],
        "cv": [Interval(Integral, 2, None), InstanceOf(list, tuple, name="a list of splits")],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        candidates: Sequence[str] | None = None,
        cv: int = 5,
        random_state: int | None = 0,
    ) -> None:
        self.candidates = candidates
        self.cv = cv
        self.random_state = random_state

    # ------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> AutoClassifier:
        """Score every candidate on the folds, then learn the best on every row."""
        params = self._checked_params()
        frame = X if isinstance(X, pd.DataFrame) else None
        if frame is None:
            try:
                array = check_array(X, dtype=None, ensure_all_finite=False, accept_sparse=False)
            except (
                TypeError,
                ValueError,
            ) as exc:  # scikit-learn's words kept: its checks read them
                raise InputTypeError(
                    f"AutoClassifier takes a table as X (a DataFrame or a 2-D array), not a "
                    f"{type(X).__name__}: {exc}"
                ) from exc
            frame = pd.DataFrame(array, columns=[f"x{j}" for j in range(array.shape[1])])
        if frame.shape[0] == 0:
            raise TreelearnError("AutoClassifier needs at least one row, got 0 (n_samples = 0)")
        names = self._candidate_names(frame, params["candidates"])
        if y is None:
            raise ValueError(
                "AutoClassifier requires y to be passed, but the target y is None: give the "
                "class labels"
            )
        check_classification_targets(y)
        labels = (y if isinstance(y, pd.Series) else pd.Series(np.asarray(y).ravel())).reset_index(
            drop=True
        )
        frame = frame.reset_index(drop=True)
        check_consistent_length(frame, labels)
        weights = check_sample_weight(sample_weight, len(frame))
        numeric = _numeric_columns(frame)
        table = _declared(frame, numeric)
        _, codes = np.unique(labels.to_numpy(), return_inverse=True)
        folds = fold_of_rows(codes.astype(np.intp), params["cv"], params["random_state"])
        scores: dict[str, float] = {}
        errors: dict[str, str] = {}
        for name in names:
            try:
                scores[name] = self._cv_log_loss(name, table, labels, codes, weights, folds)
            except TreelearnError as exc:
                scores[name], errors[name] = float("inf"), str(exc)
        finite = {k: v for k, v in scores.items() if np.isfinite(v)}
        pool = finite or scores
        rounded = {k: round(v, 12) if np.isfinite(v) else v for k, v in pool.items()}
        chosen = min(rounded, key=lambda k: rounded[k])  # the first on a tie (dict order)
        estimator = CANDIDATES[chosen][0]()
        estimator.fit(table if isinstance(X, pd.DataFrame) else X, y, sample_weight=sample_weight)
        self.estimator_ = estimator
        self.chosen_ = chosen
        self.candidate_scores_ = scores
        self.candidate_errors_ = errors
        self._copy_header(estimator)
        return self

    def _candidate_names(self, frame: pd.DataFrame, given: Any) -> list[str]:
        if given is None:
            return applicable(frame)
        names = list(given)
        unknown = [n for n in names if n not in CANDIDATES]
        if unknown or not names:
            raise TreelearnError(
                f"candidates must name some of {list(CANDIDATES)}, got {given!r}",
                values=unknown,
            )
        return names

    def _copy_header(self, est: BayesNetClassifier) -> None:
        self.__dict__.pop("feature_names_in_", None)
        self.classes_ = est.classes_
        self.class_name_ = est.class_name_
        if getattr(est, "feature_names_in_", None) is not None:
            self.feature_names_in_ = est.feature_names_in_
        self.n_features_in_ = est.n_features_in_
        self.class_count_ = est.class_count_
        self.class_log_prior_ = est.class_log_prior_

    def _cv_log_loss(
        self,
        name: str,
        table: pd.DataFrame,
        labels: pd.Series,
        codes: np.ndarray,
        weights: np.ndarray | None,
        folds: np.ndarray,
    ) -> float:
        """The candidate's held-out log-loss over every row (fold counts where they suffice)."""
        w = np.ones(len(table)) if weights is None else np.asarray(weights, dtype=float)
        categorical = all(isinstance(table[c].dtype, pd.CategoricalDtype) for c in table.columns)
        if name == "NaiveBayes" and categorical and not table.isna().to_numpy().any():
            log_p = self._naive_bayes_fold_counts(table, codes, w, folds)
        else:
            log_p = np.empty(len(table))
            for f in range(int(folds.max()) + 1):
                held_out, held_in = folds == f, folds != f
                est = CANDIDATES[name][0]()
                est.fit(
                    table[held_in],
                    labels[held_in],
                    sample_weight=None if weights is None else w[held_in],
                )
                proba = est.predict_log_proba(table[held_out])
                index = {c: i for i, c in enumerate(est.classes_.tolist())}
                truth = labels[held_out].tolist()
                seen = np.array([t in index for t in truth])
                rows = np.full(len(truth), -np.inf)
                rows[seen] = proba[
                    np.flatnonzero(seen), [index[t] for t in np.array(truth, dtype=object)[seen]]
                ]
                log_p[held_out] = rows
        counted = w > 0
        if not np.isfinite(log_p[counted]).all():
            return float("inf")
        return float(-np.sum(w[counted] * log_p[counted]) / np.sum(w[counted]))

    @staticmethod
    def _naive_bayes_fold_counts(
        table: pd.DataFrame, y: np.ndarray, w: np.ndarray, folds: np.ndarray
    ) -> np.ndarray:
        """Naive Bayes' held-out ``log p(y_i | x_i)`` from fold counts (alpha = 1, the
        class prior the held-in class frequencies, as ``NaiveBayes()``)."""
        columns = [table[c].cat.codes.to_numpy().astype(np.intp) for c in table.columns]
        cards = [len(table[c].cat.categories) for c in table.columns]
        codes = np.column_stack([*columns, y]) if columns else y[:, None]
        scorer = FoldScorer(
            codes,
            w,
            np.asarray([*cards, int(y.max()) + 1]),
            folds,
            alpha=1.0,
            log_prior=None,
        )
        joint = scorer.base.copy()
        for j in range(len(columns)):
            joint = joint + scorer.term(j, [])
        with np.errstate(invalid="ignore"):
            log_p = joint[np.arange(len(y)), y] - logsumexp(joint, axis=1)
        return np.where(np.isnan(log_p), -np.inf, log_p)

    # ------------------------------------------------------------ answers: the chosen one's
    def _training_data(self, X: Any, y: Any, sample_weight: Any) -> TrainingData:
        return categorical_training(X, y, sample_weight)

    def _learn(self, stats: Any, params: dict) -> None:  # fit is the chooser's own
        raise NotImplementedError

    def _prediction_input(self, X: Any) -> Any:
        return self.estimator_._prediction_input(X)

    def _joint_log_likelihood(self, rows: Any) -> np.ndarray:
        return self.estimator_._joint_log_likelihood(rows)

    def _sums_out(self) -> bool:
        return self.estimator_._sums_out()

    def _explain_game(self, rows: Any, background: Any) -> Any:
        return self.estimator_._explain_game(rows, background)

    def _feature_groups(self) -> list | None:
        return self.estimator_._feature_groups()

    def _take_rows(self, rows: Any, index: np.ndarray) -> Any:  # type: ignore[override]
        return self.estimator_._take_rows(rows, index)

    def _mask_rows(self, rows: Any, keep: np.ndarray, other: Any) -> Any:
        return self.estimator_._mask_rows(rows, keep, other)

    @property
    def n_parameters(self) -> int:
        self._require_fitted()
        return int(self.estimator_.n_parameters)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _text_lines(self, digits: int) -> Any:
        yield from super()._text_lines(digits)
        yield f"chosen: {self.chosen_} (cross-validated log-loss {self.candidate_scores_[self.chosen_]:.{digits}f})"
        yield from list(self.estimator_._text_lines(digits))[1:]

    # ------------------------------------------------------------ files
    def _fitted_state(self) -> dict:
        return {
            "chosen": self.chosen_,
            "candidate_scores": {
                k: (v if np.isfinite(v) else "inf") for k, v in self.candidate_scores_.items()
            },
            "candidate_errors": dict(self.candidate_errors_),
            "chosen_estimator": self.estimator_.to_dict(),
        }

    def _restore_model(self, saved: SavedState) -> None:
        chosen = saved.raw("chosen", str)
        if chosen not in CANDIDATES:
            raise saved.fail("chosen", f"names no candidate of {list(CANDIDATES)}")
        state = saved.raw("chosen_estimator", dict)
        cls = ESTIMATORS.get(str(state.get("estimator")))
        if cls is None or type(CANDIDATES[chosen][0]()) is not cls:
            raise saved.fail("chosen_estimator", f"is not the chosen candidate {chosen!r}")
        self.estimator_ = cls.from_dict(state)
        self.chosen_ = chosen
        scores = saved.raw("candidate_scores", dict)
        self.candidate_scores_ = {
            str(k): float("inf") if v == "inf" else float(v) for k, v in scores.items()
        }
        self.candidate_errors_ = {
            str(k): str(v) for k, v in saved.raw("candidate_errors", dict).items()
        }
