"""The one base of every treelearn classifier, in the shape of scikit-learn's ``_BaseNB``.

Written once, here, for every classifier:

* **fitting**: :meth:`BayesNetClassifier.fit` checks the options once against the
  class's declarative ``_parameter_constraints``
  (:func:`~treelearn._base.validation.check_params`), reads the training data
  through the class's input kind, sets the header (``classes_``, ``class_name_``,
  ``feature_names_in_``, ``n_features_in_``, ``class_count_``, ``class_log_prior_``)
  and hands the statistics to the model's ``_learn`` hook;
* **the class prior** (:meth:`BayesNetClassifier._class_log_prior`): ``class_prior``
  given, else the class frequencies (``fit_prior``; with the model's pseudocount,
  e.g. AODE's ``alpha``), else uniform;
* **the fitted-feature matcher** (:meth:`BayesNetClassifier._matched`): a DataFrame
  is matched by column name (reordering is fine; a missing feature or an extra
  column is a :class:`~treelearn.FeatureMismatchError` naming them, and naming the
  class column if it is there), anything else by position (a wrong number of
  columns in scikit-learn's wording);
* **the posterior and the decision**: ``log p(c | x) = b_c - logsumexp_c' b_c'`` with
  ``b_c = log p(x_observed, c)`` (a row impossible under every class gets the uniform
  posterior, with a warning, never NaN), and ``predict(X, loss=None)``: the most
  probable class, or with a loss matrix the minimum expected loss class;
* scores (``log_likelihood``, ``score_report``), and saving (:mod:`treelearn._base.persistence`).

A model supplies only what varies, as ``@abstractmethod`` hooks: how its input is
read (one input kind per class below: :class:`CategoricalClassifier`,
:class:`NumericClassifier`; term counts in :mod:`treelearn.classifiers._text`), how
the statistics are learned (``_learn``), the joint log-likelihood of converted rows
(``_joint_log_likelihood``), its size (``n_parameters``) and its fitted parts
(``_fitted_state`` / ``_restore_model``). One network over the features and the class
is :class:`~treelearn.classifiers._network.SingleNetworkClassifier`.

Each input kind reads its data in one place, the functions of the section "input
kinds": the statistics come from :mod:`treelearn.sources` for every kind of input
(DataFrame, array, CSV/Parquet path, Dask DataFrame; :func:`categorical_training`,
:func:`class_training`), and rows to predict are converted by the one conversion of
:mod:`treelearn.sources._kinds` (:func:`categorical_codes`, :func:`numeric_rows`).
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, overload

import networkx as nx
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._base.errors import (
    ClassLabelError,
    EmptyDataError,
    FeatureMismatchError,
    InvalidModelError,
    TreelearnError,
)
from .._base.jsonvalues import python_value
from .._base.limits import check_memory
from .._base.logspace import logsumexp
from .._base.persistence import ESTIMATORS, Persistent, SavedState, label_array
from .._base.validation import BOOLEAN, InstanceOf, Options, check_param, check_params
from ..encoding._table import CategoricalTableInput, check_sample_weight, encode, python_scalar
from ..export._jsonfile import estimator_document, save_document
from ..inference._shapley import (
    Explanation,
    Game,
    RowsGame,
    check_explain_options,
    explain_game,
)
from ..models._base import Capable
from ..models._tree import ScoreReport, TreeModel
from ..sources._count import class_name, count_by_class, target_name
from ..sources._files import NO_STATE_CAP
from ..sources._gaussian import gaussian_statistics_by_class
from ..sources._kinds import (
    as_frame,
    first_not_number,
    kind_of,
    match_features,
    not_numeric_words,
    numeric_matrix,
)
from ..stats._classes import ClassStatistics
from ..stats._counts import ClassCounts
from ..stats._gaussian import ClassGaussianStatistics, ClassVariances
from ..stats._settings import CONSTRAINTS, LearningSettings
from ..stats._settings import NOTES as LEARNER_NOTES
from ._numbers import (
    bin_numbers,
    file_numbers_binned,
    numbers_binner,
    refuse_states,
    restored_binner,
    states_refusal,
)
from ._state_codes import known_state_codes

__all__ = [
    "CLASS_PRIOR",
    "CPT_PRIOR",
    "NOTES",
    "UNSEEN",
    "BayesNetClassifier",
    "CategoricalClassifier",
    "NumericClassifier",
    "TrainingData",
    "Unseen",
    "categorical_codes",
    "categorical_training",
    "check_not_empty",
    "check_tree",
    "class_training",
    "command_line_classifiers",
    "invalid",
    "loss_matrix",
    "network_dtypes",
    "numeric_rows",
    "saved_feature_tree",
]

Unseen = Literal["error", "ignore"]

_COLUMN_LIST = "a list of column names"
#: the class-prior options of every classifier that has them (scikit-learn's names)
CLASS_PRIOR = {
    "fit_prior": [BOOLEAN],
    "class_prior": [
        None,
        InstanceOf(list, tuple, np.ndarray, pd.Series, name="a sequence of probabilities"),
    ],
}
#: the CPT estimator's options (VOCABULARY: ``prior`` with ``alpha``, BDeu's
#: ``equivalent_sample_size``, the m-estimate's ``m``): the learners' own constraints
CPT_PRIOR = {name: CONSTRAINTS[name] for name in ("alpha", "prior", "equivalent_sample_size", "m")}
UNSEEN = {"unseen": [Options("error", "ignore")]}
#: what the options mean, added to their messages (the learners' words)
NOTES = {name: LEARNER_NOTES[name] for name in ("alpha", "equivalent_sample_size", "m")}


def loss_matrix(loss: Any, classes: np.ndarray) -> np.ndarray:
    """``L[true, predicted]`` as a ``k x k`` float array (a DataFrame is aligned on the labels).

    >>> loss_matrix([[0, 1], [5, 0]], np.array(["a", "b"])).tolist()
    [[0.0, 1.0], [5.0, 0.0]]
    """
    k = len(classes)
    if isinstance(loss, pd.DataFrame):
        labels = [python_scalar(c) for c in classes]
        absent = [c for c in labels if c not in loss.index or c not in loss.columns]
        if absent:
            raise TreelearnError(
                f"the loss DataFrame lacks the class(es) {absent} in its index or columns"
            )
        loss = loss.reindex(index=labels, columns=labels)  # .loc reads bool labels as a mask
    L = np.asarray(loss, dtype=float)
    if L.shape != (k, k) or not np.isfinite(L).all():
        raise TreelearnError(
            f"loss must be a finite {k} x {k} matrix L[true, predicted] over the classes "
            f"{[python_scalar(c) for c in classes]}; got shape {L.shape}"
        )
    return L


def _exact_counts(counts: np.ndarray) -> np.ndarray:
    """Class counts as int64 when every one is whole (VOCABULARY), else float64."""
    counts = np.asarray(counts)
    if (
        counts.dtype.kind == "f"
        and np.array_equal(counts, np.round(counts))
        and (np.abs(counts) < 2**53).all()
    ):
        return counts.astype(np.int64)
    return counts


def network_dtypes(dtypes: dict | None) -> dict | None:
    """A network's column dtypes, a numpy text dtype (``<U5``: labels from a numpy str
    array) as ``object``: a model file holds no fixed-width text dtype (it could allocate
    gigabytes), and pandas keeps such text as objects anyway."""
    if not dtypes:
        return dtypes
    return {
        v: np.dtype(object) if isinstance(t, np.dtype) and t.kind in "US" else t
        for v, t in dtypes.items()
    }


def check_not_empty(X: Any) -> None:
    """A 2-D input with no row or no column, in scikit-learn's wording (its checks look
    for it); paths and Dask frames are checked where they are read."""
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2 or not all(isinstance(s, (int, np.integer)) for s in shape):
        return
    if shape[0] == 0 or shape[1] == 0:
        what = "feature(s)" if shape[1] == 0 else "sample(s)"
        raise EmptyDataError(
            f"X has 0 {what} (shape={tuple(shape)}) while a minimum of 1 is required; a "
            f"classifier needs at least one row and one feature column"
        )


def _n_rows(rows: Any) -> int:
    """Rows of converted prediction input (an array, a sparse matrix, or a tuple of arrays)."""
    return (rows[0] if isinstance(rows, tuple) else rows).shape[0]


@dataclass(frozen=True)
class TrainingData:
    """What an input kind hands the learner: the header's parts and the statistics.

    ``features`` is ``None`` for a matrix fitted by position (term counts without
    names): ``feature_names_in_`` is then not set.
    """

    features: list | None
    n_features: int
    classes: np.ndarray
    class_name: Hashable
    class_count: np.ndarray
    statistics: Any


# ---------------------------------------------------------------------- input kinds
def categorical_training(X: Any, y: Any, sample_weight: Any) -> TrainingData:
    """The categorical input kind's training data: a :class:`ClassCounts`
    (:func:`~treelearn.sources._count.count_by_class`: DataFrame, array, Dask)."""
    return counted_training(count_by_class(X, y, sample_weight=sample_weight))


def counted_training(stats: ClassCounts) -> TrainingData:
    """The categorical input kind's training data of counts already made (a file read in
    chunks: :func:`~treelearn.classifiers._numbers.file_numbers_binned`)."""
    features = list(stats.columns[:-1])
    return TrainingData(
        features, len(features), stats.classes, stats.columns[-1], stats.class_count, stats
    )


def categorical_codes(frame: pd.DataFrame, names: list, states: list, unseen: Unseen) -> np.ndarray:
    """The features ``names`` of ``frame`` as codes of the fitted ``states`` (``-1`` =
    missing, or unseen with ``unseen="ignore"``)."""
    known = known_state_codes(frame, names, states, unseen)  # codes of states: no re-encoding
    if known is not None:
        return known
    table = encode(
        frame[names],
        missing="pairwise",
        states=dict(zip(names, states)),
        max_states=NO_STATE_CAP,
        unseen=unseen,
    )
    return table.codes.astype(np.intp)


def class_training(stats: ClassStatistics, y: Any, n_features: int) -> TrainingData:
    """The training data of per-class statistics (Gaussian moments, variances, term counts;
    :class:`~treelearn.stats._classes.ClassStatistics`, from any kind of input): the
    features are the statistics' variables (``None``: a matrix fitted by position), the
    classes and their weights theirs, the class named after ``y``
    (:func:`~treelearn.sources._count.target_name`: a file's class column too)."""
    features = None if stats.variables is None else list(stats.variables)
    return TrainingData(
        features,
        n_features,
        stats.classes,
        class_name(target_name(y), features or ()),
        stats.weight,
        stats,
    )


def numeric_rows(matched: Any, where: str, *, missing: bool) -> np.ndarray:
    """Matched rows (a frame of the fitted features, or an array) as floats
    (:func:`~treelearn.sources._kinds.numeric_matrix`): NaN kept (``missing``: summed out
    by the model) or refused."""
    return numeric_matrix(matched, learner=where, missing="pairwise" if missing else "error")[1]


# ---------------------------------------------------------------------- the base
class BayesNetClassifier(Persistent, Capable, ClassifierMixin, BaseEstimator, ABC):
    """What every treelearn classifier shares (see the module docstring).

    Class attributes a subclass sets: ``_parameter_constraints`` (option -> accepted
    forms, checked once by :meth:`fit`), ``_parameter_notes`` (what an option means,
    added to its error), and ``cli_method`` (the ``treelearn learn --method`` name of
    a classifier the command line fits, or ``None``).
    """

    _parameter_constraints: ClassVar[dict] = {}
    _parameter_notes: ClassVar[dict] = NOTES
    kind: ClassVar[str] = "classifier"
    #: what every classifier answers; a class with more (one network's queries, sampling,
    #: pictures) declares them
    capabilities: ClassVar[frozenset[str]] = frozenset({"classify", "score", "explain"})
    _saved_header: ClassVar[tuple[str, ...]] = (
        "n_features",
        "classes",
        "class_name",
        "class_count",
        "class_log_prior",
    )
    cli_method: ClassVar[str | None] = None

    # ------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> BayesNetClassifier:
        """Learn from ``X`` and the class labels ``y``.

        ``sample_weight``: one non-negative weight per row; integer weights give
        exactly the classifier fitted on the rows repeated that many times, and
        zero leaves a row out. Which inputs ``X`` may be depends on the model's
        input kind (categorical tables, numbers, term counts).
        """
        params = self._checked_params()
        check_not_empty(X)
        self._learn_training_data(self._training_data(X, y, sample_weight), params)
        return self

    def _learn_training_data(self, data: TrainingData, params: dict) -> None:
        """Set the header and learn the model from the training data's statistics."""
        self._set_header(data, params)
        self._learn(data.statistics, params)

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

    def _set_header(self, data: TrainingData, params: dict) -> None:
        self.__dict__.pop("feature_names_in_", None)  # a refit on an unnamed matrix
        self.classes_ = data.classes
        self.class_name_ = data.class_name
        if data.features is not None:
            self.feature_names_in_ = label_array(data.features)
        self.n_features_in_ = data.n_features
        self.class_count_ = _exact_counts(data.class_count)
        self.class_log_prior_ = self._class_log_prior(self.class_count_, params)

    def _class_log_prior(self, class_count: np.ndarray, params: dict) -> np.ndarray:
        """The one class prior: ``class_prior`` given, else the class frequencies
        (``fit_prior``, the default; ``(n_c + a) / (n + k a)`` with the model's
        pseudocount ``a``, :meth:`_prior_pseudocount`), else uniform."""
        k = len(class_count)
        given = params.get("class_prior")
        if given is not None:
            prior = np.asarray(given, dtype=float)
            if (
                prior.shape != (k,)
                or not np.isfinite(prior).all()
                or (prior < 0).any()
                or not np.isclose(prior.sum(), 1.0)
            ):
                raise TreelearnError(
                    f"class_prior must be {k} non-negative probabilities summing to 1 (one per "
                    f"class of {[python_scalar(c) for c in self.classes_]}), got {given!r}",
                    values=[given],
                )
        elif params.get("fit_prior", True):
            counts = np.asarray(class_count, dtype=float) + self._prior_pseudocount(params)
            prior = counts / counts.sum()
        else:
            prior = np.full(k, 1.0 / k)
        with np.errstate(divide="ignore"):
            return np.log(prior)

    def _prior_pseudocount(self, params: dict) -> float:
        """The pseudocount added to each class count (0: frequencies, as scikit-learn)."""
        return 0.0

    @abstractmethod
    def _training_data(self, X: Any, y: Any, sample_weight: Any) -> TrainingData:
        """Read ``X``, ``y`` and the weights: the input kind's one conversion."""

    @abstractmethod
    def _learn(self, stats: Any, params: dict) -> None:
        """Learn the model from the statistics (the header is set; ``params`` checked)."""

    @abstractmethod
    def _prediction_input(self, X: Any) -> Any:
        """``X`` matched to the fitted features (:meth:`_matched`) and converted."""

    @abstractmethod
    def _joint_log_likelihood(self, rows: Any) -> np.ndarray:
        """``log p(x_observed, c)``, shape ``(rows, classes)``, of converted rows."""

    @property
    @abstractmethod
    def n_parameters(self) -> int:
        """Free parameters of the fitted model (the class prior's ``k - 1`` included)."""

    # ------------------------------------------------------------ the fitted model
    def _require_fitted(self) -> None:
        """The first step of every method that reads the fitted model (predictions, scores,
        explanations, files, pictures, ``n_parameters``): scikit-learn's ``NotFittedError``
        before a fit, and the model learned from every statistic recorded
        (:meth:`_learn_recorded`). Reading an attribute never learns."""
        check_is_fitted(self)
        self._learn_recorded()

    def _learn_recorded(self) -> None:
        """Learn the model from statistics recorded but not learned from yet: a
        ``partial_fit`` after the first records a chunk's counts and leaves the learn to
        the model's next use (:class:`~treelearn.classifiers._partial.PartialFit`). Nothing
        by default."""

    # ------------------------------------------------------------ the fitted features
    def _matched(self, X: Any) -> Any:
        """``X`` checked against the fitted features (:func:`~treelearn.sources._kinds.match_features`:
        a DataFrame by name, reordering fine, a missing or extra column refused; an array
        by position)."""
        check_is_fitted(self)
        return match_features(
            X,
            names=getattr(self, "feature_names_in_", None),
            n_features=self.n_features_in_,
            estimator=type(self).__name__,
            class_name=self.class_name_,
        )

    def _matched_frame(self, X: Any) -> pd.DataFrame:
        """:meth:`_matched` as a DataFrame of the fitted features (an array named by them)."""
        return as_frame(self._matched(X), list(self.feature_names_in_))

    def select_features(self, data: pd.DataFrame, absent: str = "error") -> pd.DataFrame:
        """The fitted features' columns of ``data`` (a wider table, e.g. one holding the class).

        Raises :class:`~treelearn.FeatureMismatchError` naming the features
        that ``data`` lacks; with ``absent="missing"`` they are added as missing
        values instead (summed out by the prediction, as missing cells are).

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> df = pd.DataFrame({"f": ["a", "a", "b", "b"], "g": [0, 1, 0, 1], "c": [0, 0, 0, 1]})
        >>> clf = tl.NaiveBayes().fit(df[["f", "g"]], df["c"])
        >>> list(clf.select_features(df).columns)
        ['f', 'g']
        """
        check_is_fitted(self)
        check_param("absent", absent, [Options("error", "missing")])
        features = list(self.feature_names_in_)
        lacking = [c for c in features if c not in data.columns]
        if lacking and absent == "error":
            raise FeatureMismatchError(
                f"the data lacks the classifier's feature(s) "
                f"{lacking[:10]}; absent='missing' sums them out"
            )
        return data.reindex(columns=features) if lacking else data[features]

    # ------------------------------------------------------------ posterior and decision
    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """``log p(x_observed, c)`` for each row and class (columns in ``classes_`` order)."""
        self._require_fitted()
        return self._joint_log_likelihood(self._prediction_input(X))

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """``log p(c | x_observed)``, normalised with log-sum-exp; shape ``(n, n_classes)``.

        A row that has probability zero under every class (a value never seen with
        any class under ``alpha=0``, or one so far from every class that its
        density underflows) gets the uniform posterior, with a warning.
        """
        joint = self.predict_joint_log_proba(X)
        with np.errstate(invalid="ignore"):
            norm = logsumexp(joint, axis=1, keepdims=True)
        impossible = ~np.isfinite(norm[:, 0])
        if impossible.any():
            warnings.warn(
                f"{int(impossible.sum())} row(s) have probability zero under every class (a "
                f"value never seen with any class under alpha=0, or so far from every class "
                f"that its density underflows); their posterior is set to uniform",
                RuntimeWarning,
                stacklevel=2,
            )
            joint[impossible] = 0.0
            norm[impossible] = np.log(joint.shape[1])
        return joint - norm

    def predict_proba(self, X: Any) -> np.ndarray:
        """``p(c | x_observed)``; rows sum to 1, columns in ``classes_`` order."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: Any, loss: Any = None) -> np.ndarray:
        """The most probable class, or with ``loss`` the minimum expected loss decision.

        ``loss[k, j]`` is the cost of predicting class ``j`` when the truth is ``k``
        (rows and columns in ``classes_`` order, or a DataFrame labelled by class);
        the decision is ``argmin_j sum_k loss[k, j] p(k | x)``.
        """
        self._require_fitted()
        if loss is None:
            return self.classes_[np.argmax(self.predict_log_proba(X), axis=1)]
        L = loss_matrix(loss, self.classes_)
        return self.classes_[np.argmin(self.predict_proba(X) @ L, axis=1)]

    # ------------------------------------------------------------ explanations
    def explain(
        self,
        X: Any,
        kind: str = "log_odds",
        conditional: bool = True,
        background: Any = None,
        output: str | None = None,
        target_class: Any = None,
        random_state: Any = None,
        method: str = "auto",
        n_permutations: int = 256,
    ) -> Explanation:
        """Each feature's contribution to the prediction of each row of ``X``.

        The value of a coalition ``S`` of features is the classifier's prediction with
        only ``S`` known: the others summed out exactly as its missing-value path does
        (``conditional=True``), or taken from each row of ``background`` in turn and
        the predictions averaged (``conditional=False``, shap's interventional values).
        The prediction explained is that of ``target_class`` (default: each row's
        predicted class) on the ``output`` scale: ``"log_proba"`` (``log p(c | x)``),
        ``"proba"`` or ``"log_odds"`` (``log p(c | x) - mean_{c' != c} log p(c' | x)``,
        the logit for two classes).

        * ``kind="log_odds"``: the chain rule of the log posterior odds along the
          network (a topological order of its features; the features' order for a
          model without one): feature ``j`` adds ``log p(x_j | x_before, c) -
          mean_{c' != c} log p(x_j | x_before, c')``. The contributions plus the prior
          log-odds (``base``) are the log posterior odds exactly. For naive Bayes each
          term is the feature's own ``log p(x_j | c) - mean log p(x_j | c')``; for TAN and
          KDB, on a complete row, the feature's CPT term given its parents (the
          decomposition along the network's families); a missing feature adds 0.
        * ``kind="shapley"``: Shapley values, ``values.sum(axis=1) + base ==
          prediction`` to round-off. Exact by enumerating the ``2^p`` coalitions
          (``method="auto"``: up to 20 features where the network computes every
          coalition of a row in one pass, else 15), and exact for any number of
          features where the game splits: the conditional log-odds of a network adds up
          over groups of features linked only through the class (for naive Bayes every
          feature alone: its Shapley value is its log-odds term). Otherwise a
          permutation-sampling estimate (``n_permutations`` in antithetic pairs,
          ``random_state``) with its ``standard_error``.

        Returns an :class:`~treelearn.Explanation` (``values``: rows x
        features; ``base``, ``prediction``, ``target`` per row).

        Examples
        --------
        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
        >>> X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
        >>> clf = tl.NaiveBayes().fit(X, y)
        >>> e = clf.explain(X.head(3), target_class="Yes")
        >>> logp = clf.predict_log_proba(X.head(3))
        >>> bool(np.allclose(e.values.sum(axis=1) + e.base, logp[:, 1] - logp[:, 0]))
        True
        >>> s = clf.explain(X.head(3), kind="shapley", output="log_odds", target_class="Yes")
        >>> bool(np.allclose(s.values, e.values))   # naive Bayes: the same terms
        True
        """
        self._require_fitted()
        params = check_explain_options(
            kind=kind,
            conditional=conditional,
            output=output,
            method=method,
            n_permutations=n_permutations,
            random_state=random_state,
        )
        rows = self._prediction_input(X)
        data = self._explained_frame(X)
        other = None if background is None else self._prediction_input(background)
        game = self._explain_game(rows, other)
        target = None
        if target_class is not None:
            index = {python_scalar(c): i for i, c in enumerate(self.classes_)}
            if python_scalar(target_class) not in index:
                raise ClassLabelError(
                    f"target_class == {target_class!r} is not a class of the classifier; the "
                    f"classes are {list(index)}"
                )
            target = index[python_scalar(target_class)]
        return explain_game(
            game,
            target=target,
            data=data,
            index=data.index,
            what=type(self).__name__,
            target_name=self.class_name_,
            **params,
        )

    def _explained_frame(self, X: Any) -> pd.DataFrame:
        """The explained rows' feature values, labelled by the fitted features."""
        matched = self._matched(X)
        if hasattr(matched, "toarray"):  # a sparse matrix: its rows, densified
            check_memory(
                8.0 * matched.shape[0] * matched.shape[1],
                "the explained rows",
                "explain fewer rows at a time",
            )
            matched = matched.toarray()
        return as_frame(matched, list(self.feature_names_in_))

    def _explain_game(self, rows: Any, background: Any) -> Game:
        """The game of the prediction through the classifier's own path: masked rows into
        :meth:`_joint_log_likelihood` (hooks :meth:`_mask_rows`, :meth:`_take_rows`,
        :meth:`_feature_groups`, :meth:`_sums_out`)."""
        return RowsGame(
            self._joint_log_likelihood,
            self._mask_rows,
            self._take_rows,
            rows,
            _n_rows(rows),
            list(self.feature_names_in_),
            list(self.classes_),
            groups=self._feature_groups(),
            background=background,
            n_background=0 if background is None else _n_rows(background),
            sums_out=self._sums_out(),
            who=type(self).__name__,
        )

    def _sums_out(self) -> bool:
        """Whether the prediction sums unknown features out (missing values at prediction)."""
        return False

    def _feature_groups(self) -> list | None:
        """Features in groups independent given the class (their log-odds games add up),
        as lists of positions; ``None``: not known."""
        return None

    @staticmethod
    def _take_rows(rows: Any, index: np.ndarray) -> Any:
        """The converted rows ``index`` (a sparse matrix densified: masking needs values)."""
        if isinstance(rows, tuple):
            return tuple(r[index] for r in rows)
        picked = rows[index]
        if hasattr(picked, "toarray"):
            check_memory(
                8.0 * picked.shape[0] * picked.shape[1],
                "the rows of an explanation",
                "explain fewer rows, or give fewer permutations or background rows",
            )
            picked = picked.toarray()
        return picked

    def _mask_rows(self, rows: Any, keep: np.ndarray, other: Any) -> Any:
        """``rows`` with the features outside ``keep`` missing (``-1`` codes, NaN values)
        or, with ``other``, taken from it."""
        rows = np.asarray(rows)
        if other is None:
            other = -1 if rows.dtype.kind in "iu" else np.nan
        return np.where(keep, rows, other)

    # ------------------------------------------------------------ scores
    @overload
    def log_likelihood(
        self, X: Any, y: Any = None, per_row: Literal[False] = False, sample_weight: Any = None
    ) -> float: ...
    @overload
    def log_likelihood(
        self, X: Any, y: Any, per_row: Literal[True], sample_weight: Any = None
    ) -> np.ndarray: ...
    @overload
    def log_likelihood(
        self, X: Any, y: Any = None, *, per_row: Literal[True], sample_weight: Any = None
    ) -> np.ndarray: ...
    @overload
    def log_likelihood(
        self, X: Any, y: Any = None, per_row: bool = False, sample_weight: Any = None
    ) -> float | np.ndarray: ...
    def log_likelihood(
        self, X: Any, y: Any = None, per_row: bool = False, sample_weight: Any = None
    ) -> float | np.ndarray:
        """Log-likelihood of the rows in nats: ``log p(x_observed, y)``, total or per row.

        ``X`` holds the features (as for :meth:`predict`). Where ``y`` is not
        given, or a row's label is missing (NaN), that row scores
        ``log p(x_observed)``: the class is summed out. Missing feature values are
        summed out as well. With ``sample_weight`` the total is the weighted sum
        (``per_row`` values are not weighted; a row of weight zero does not count).

        Raises :class:`~treelearn.ClassLabelError` for a label the classifier
        never saw, or a ``y`` whose length differs from ``X``'s rows.

        Examples
        --------
        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> X, y = pd.DataFrame({"f": ["a", "a", "b", "b"]}), pd.Series([0, 0, 0, 1])
        >>> clf = tl.NaiveBayes(alpha=0, class_arcs="all").fit(X, y)
        >>> # p(c=0) = 3/4, p(a | 0) = 2/3, p(b | 0) = 1/3; p(c=1) = 1/4, p(b | 1) = 1
        >>> np.allclose(clf.log_likelihood(X, y, per_row=True), np.log([1/2, 1/2, 1/4, 1/4]))
        True
        >>> round(clf.log_likelihood(X), 4)   # p(a) = p(b) = 1/2: 4 ln(1/2)
        -2.7726
        >>> bool(np.isclose(clf.log_likelihood(X, sample_weight=[2, 0, 1, 1]), 4 * np.log(1/2)))
        True
        """
        joint = self.predict_joint_log_proba(X)
        weights = check_sample_weight(sample_weight, len(joint))
        with np.errstate(invalid="ignore"):
            rows = logsumexp(joint, axis=1)
        if y is not None:
            labels = self._labels_of(y, len(rows))
            known = labels.notna().to_numpy()  # a missing label: the class is summed out
            index = {python_scalar(c): i for i, c in enumerate(self.classes_)}
            values = [python_scalar(v) for v in labels[known]]
            unknown = sorted({str(v) for v in values if v not in index})
            if unknown:
                raise ClassLabelError(
                    f"class column {self.class_name_!r} has label(s) {unknown[:5]} that the "
                    f"classifier never saw"
                )
            rows[known] = joint[np.flatnonzero(known), [index[v] for v in values]]
        if per_row:
            return rows
        if weights is None:
            return float(rows.sum())
        counted = weights > 0
        return float(np.sum(rows[counted] * weights[counted]))

    def _labels_of(self, y: Any, n_rows: int) -> pd.Series:
        """``y`` as a Series of labels (positions, not index, matter), one per row."""
        if isinstance(y, pd.DataFrame):
            if y.shape[1] != 1:
                raise ClassLabelError(
                    f"y must be one column of class labels, got {y.shape[1]} columns"
                )
            y = y.iloc[:, 0]
        labels = y if isinstance(y, pd.Series) else pd.Series(label_array(list(y)))
        if len(labels) != n_rows:
            raise ClassLabelError(
                f"X has {n_rows} rows but y has {len(labels)} labels; give one label per row"
            )
        return labels

    def score_report(self, X: Any, y: Any = None, sample_weight: Any = None) -> ScoreReport:
        """Rows, log-likelihood (:meth:`log_likelihood`), its average and BIC of ``X`` (and ``y``).

        Not :meth:`score`, which is scikit-learn's accuracy. Without ``y`` the
        report's ``summed_out`` names the class. The parameter count is
        :attr:`n_parameters`; with ``sample_weight``, ``n`` is the rows' total weight.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> X, y = pd.DataFrame({"f": ["a", "a", "b", "b"]}), pd.Series([0, 0, 0, 1])
        >>> report = tl.NaiveBayes(alpha=0, class_arcs="all").fit(X, y).score_report(X, y)
        >>> report.n, report.n_parameters   # the prior: 1, p(f | c): 2 x 1
        (4, 3)
        >>> round(report.log_likelihood, 4), round(report.bic, 4)   # 2 ln(1/2) + 2 ln(1/4); - 1.5 ln 4
        (-4.1589, -6.2383)
        """
        weights = check_sample_weight(sample_weight, len(X))
        n = len(X) if weights is None else float(weights.sum())
        return ScoreReport(
            n=n,
            log_likelihood=self.log_likelihood(X, y, sample_weight=weights),
            n_parameters=self.n_parameters,
            summed_out=self.class_name_ if y is None else None,
        )

    # ------------------------------------------------------------ text, the explorer
    def to_html(self, path: Any = None, **kwargs: Any) -> str | None:
        """The fitted classifier as an interactive page, the class marked (see
        :func:`treelearn.to_html`): the page's text, or with ``path``
        written there and ``None`` returned."""
        self._require_fitted()
        self.require("explorer")
        from ..viz._explorer import to_html

        page = to_html(self, path, **kwargs)
        return None if path is not None else page

    def explore(self, **kwargs: Any) -> Any:
        """The explorer inline in a notebook (an object whose ``_repr_html_`` is the page in
        an ``<iframe srcdoc=...>``); ``kwargs`` as :func:`treelearn.to_html`'s."""
        self._require_fitted()
        self.require("explorer")
        from ..viz._explorer import Explorer

        return Explorer(self, **kwargs)

    def to_text(self, digits: int = 4) -> str:
        """The fitted classifier as text: what it predicts from which features, then its
        structure where it has one (``treelearn show`` prints it).

        >>> import pandas as pd, treelearn as tl
        >>> X, y = pd.DataFrame({"f": ["a", "a", "b", "b"]}), pd.Series([0, 0, 0, 1], name="c")
        >>> print(tl.NaiveBayes().fit(X, y).to_text().splitlines()[0])
        NaiveBayes classifier for 'c', classes [0, 1], 1 feature: ['f']
        """
        self._require_fitted()
        return "\n".join(self._text_lines(digits))

    def _text_lines(self, digits: int) -> Any:
        """The lines of :meth:`to_text`: the headline (a classifier with a structure adds it)."""
        features = list(getattr(self, "feature_names_in_", range(self.n_features_in_)))
        yield (
            f"{type(self).__name__} classifier for {self.class_name_!r}, classes "
            f"{[python_scalar(c) for c in self.classes_]}, {len(features)} "
            f"feature{'' if len(features) == 1 else 's'}: "
            f"{[python_scalar(f) for f in features[:20]]}{' ...' if len(features) > 20 else ''}"
        )

    # ------------------------------------------------------------ files
    def save(self, path: Any) -> None:
        """Save the fitted classifier to a versioned JSON file; read it back with :func:`treelearn.load`.

        Examples
        --------
        >>> import os, tempfile, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> X, y = df.drop(columns="either"), df["either"]
        >>> clf = tl.TAN().fit(X, y)
        >>> path = os.path.join(tempfile.mkdtemp(), "tan.json")
        >>> clf.save(path)
        >>> (tl.load(path).predict_proba(X) == clf.predict_proba(X)).all()
        np.True_
        """
        save_document(path, estimator_document(self, self.kind))

    def _restore_fitted(self, saved: SavedState) -> None:
        if not hasattr(self, "classes_"):
            raise saved.fail("classes", "is missing")
        self._restore_model(saved)

    @abstractmethod
    def _restore_model(self, saved: SavedState) -> None:
        """Set the fitted model from its saved parts (the header is restored and checked)."""

    # ------------------------------------------------------------ pictures in Jupyter
    def _repr_svg_(self) -> str | None:
        """Jupyter shows a fitted classifier as its network (the estimator's text otherwise)."""
        if not hasattr(self, "classes_") or not self.supports("draw") or not self._drawable():
            return None
        from ..viz._draw import svg_or_none

        return svg_or_none(self)

    def _drawable(self) -> bool:
        """Whether :meth:`draw` has a network to draw (a model averaged over trees has none)."""
        return True

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        """Jupyter: scikit-learn's estimator box (HTML) with the fitted network inline under
        it, so a notebook exported to HTML keeps the picture; the picture alone as SVG too,
        for exporters that skip HTML. Drawn once."""
        bundle = super()._repr_mimebundle_(**kwargs)
        svg = self._repr_svg_()
        if svg is not None:
            from ..viz._draw import html_with_picture

            bundle["image/svg+xml"] = svg
            if "text/html" in bundle:
                bundle["text/html"] = html_with_picture(bundle["text/html"], svg)
        return bundle

    @property
    def _repr_html_(self) -> Any:
        """scikit-learn's HTML box with the network, for consumers that do not read
        ``_repr_mimebundle_``; an AttributeError, as scikit-learn's, unless its ``display``
        option is ``"diagram"``."""
        box = super()._repr_html_

        def html() -> str:
            svg = self._repr_svg_()
            if svg is None:
                return box()
            from ..viz._draw import html_with_picture

            return html_with_picture(box(), svg)

        return html


# ---------------------------------------------------------------------- categorical input
class CategoricalClassifier(CategoricalTableInput, BayesNetClassifier):
    """The categorical input kind: tables of categories (DataFrame, array, Dask; missing
    values summed out) read into a :class:`~treelearn.stats._counts.ClassCounts`.

    Hooks: ``_learn(stats: ClassCounts, params)``, ``_feature_states()`` (each feature's
    states) and ``_joint_log_likelihood(codes)`` (feature codes, ``-1`` = missing).
    """

    _saved_header: ClassVar[tuple[str, ...]] = (*BayesNetClassifier._saved_header, "feature_names")
    #: what a state never seen in training does at prediction: the option ``unseen`` of
    #: the classifiers that take it (UNSEEN), else refused
    unseen: Unseen = "error"

    #: what ``fit`` does with columns of numbers (the option ``numbers`` of every classifier
    #: that counts states): ``"states"``, each value a state, or ``"mdl"``, cut into
    #: supervised MDL bins kept in the model (:mod:`~treelearn.classifiers._numbers`)
    numbers: str = "mdl"
    #: the columns kept as states though they hold numbers (the option ``categorical``)
    categorical: Sequence[Hashable] | None = None
    #: the fitted bins of the numeric features (``None``: every feature taken as states)
    binner_: Any = None

    def _checked_params(self) -> dict:
        params = super()._checked_params()
        params["numbers"] = check_param("numbers", self.numbers, [Options("states", "mdl")])
        params["categorical"] = check_param(
            "categorical", self.categorical, [None, InstanceOf(list, tuple, name=_COLUMN_LIST)]
        )
        return params

    def _training_data(self, X: Any, y: Any, sample_weight: Any) -> TrainingData:
        self.binner_ = None
        if kind_of(X, learner=type(self).__name__).name == "path":  # read in chunks
            self.binner_, stats = file_numbers_binned(
                X, y, self.categorical, type(self).__name__, sample_weight, numbers=self.numbers
            )
            return counted_training(stats)
        if self.numbers == "mdl":
            self.binner_ = numbers_binner(
                X, y, self.categorical, type(self).__name__, sample_weight=sample_weight
            )
        return categorical_training(self._binned(X), y, sample_weight)

    def _binned(self, X: Any) -> Any:
        """``X`` (a chunk of rows) with its numeric features cut into the fitted bins
        (unchanged without bins, or for input not in memory)."""
        if self.binner_ is None:
            return X
        return bin_numbers(self.binner_, X, getattr(self, "feature_names_in_", None))

    def _sums_out(self) -> bool:
        return True

    def _prediction_input(self, X: Any) -> np.ndarray:
        frame = self._matched_frame(X)
        if self.binner_ is not None:
            frame = bin_numbers(self.binner_, frame, None)
        return categorical_codes(
            frame,
            list(self.feature_names_in_),
            self._feature_states(),
            self.unseen,
        )

    def _header(self) -> dict:
        header = super()._header()
        if self.binner_ is not None:  # the bins, beside the network over their labels
            header["numeric_bins"] = self.binner_.to_dict()
        return header

    def _restore_fitted(self, saved: SavedState) -> None:
        super()._restore_fitted(saved)
        self.binner_ = None
        if saved.has("numeric_bins"):
            self.binner_ = restored_binner(saved)
            unknown = [c for c in self.binner_.edges_ if c not in set(self.feature_names_in_)]
            if unknown:
                raise saved.fail("numeric_bins", f"cut(s) {unknown[:10]}, not features")

    @classmethod
    def _check_saved_params(cls, saved: SavedState, est: Any) -> None:
        """A file from before the options ``numbers`` and ``categorical`` took every
        feature as states."""
        given = saved.raw("params", dict)
        if "numbers" in est.get_params(deep=False) and "numbers" not in given:
            est.set_params(numbers="states")  # not the default "mdl" it was built with
        given.setdefault("numbers", "states")
        given.setdefault("categorical", None)
        super()._check_saved_params(saved, est)

    @abstractmethod
    def _feature_states(self) -> list:
        """Each feature's states, in ``feature_names_in_`` order."""

    def _cpt_settings(self, params: dict, method: str, **options: Any) -> LearningSettings:
        """The CPT estimator's settings: ``alpha``, and ``prior`` (with BDeu's
        ``equivalent_sample_size`` and the m-estimate's ``m``) where the model has them."""
        return LearningSettings(
            method=method,
            alpha=params["alpha"],
            prior=params.get("prior", "lidstone"),
            equivalent_sample_size=params.get("equivalent_sample_size", 1.0),
            m=params.get("m", 1.0),
            **options,
        )

    def _description(self, method: str) -> dict:
        """The settings a fitted network records: its method, the class, every option."""
        return {
            "method": method,
            "class": self.class_name_,
            **{k: python_value(v) for k, v in self.get_params().items()},
        }

    def _check_class_states(self, saved: SavedState, model: TreeModel) -> None:
        """A restored network's class variable must have exactly the saved classes."""
        if self.class_name_ in model.variables:
            states = list(model.states[self.class_name_])
            if states != [python_scalar(c) for c in self.classes_]:
                raise saved.fail(
                    "classes",
                    f"{list(self.classes_)} differ from the states "
                    f"{states} of the class variable "
                    f"{self.class_name_!r} in the network",
                )

    def _network_features(self) -> list:
        """The features the network is over (every feature, but for mixed data)."""
        return list(self.feature_names_in_)

    def _check_feature_states(self, saved: SavedState, model: TreeModel) -> None:
        """A restored network must be over exactly the saved features."""
        features = self._network_features()
        if [v for v in model.variables if v != self.class_name_] != features:
            raise saved.fail(
                "feature_names",
                f"{features[:10]} differ from the network's variables {list(model.variables)[:10]}",
            )

    # ------------------------------------------------------------ pictures
    def draw(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the fitted network(s); returns a matplotlib Figure.

        ``ax`` and ``kwargs`` as :meth:`treelearn.Model.draw`'s (the class is marked).
        """
        self.require("draw")
        self._require_fitted()
        return self.model_.draw(ax, **kwargs)


# ---------------------------------------------------------------------- numeric input
class NumericClassifier(BayesNetClassifier):
    """The numeric input kind: tables of numbers (a DataFrame, an array, a CSV/Parquet path
    with ``y`` its class column's name, a Dask DataFrame with ``y`` a Dask Series) read
    into per-class statistics (``_where`` names the model in errors;
    ``_missing_at_prediction``: NaN at prediction is summed out, not refused).

    Hooks: ``_statistics(X, y, sample_weight)`` (default: per-class means and ML
    covariances, a :class:`~treelearn.stats._gaussian.ClassGaussianStatistics`),
    ``_learn(stats, params)`` and ``_joint_log_likelihood(values)``.
    """

    _where: ClassVar[str] = "this classifier"
    _missing_at_prediction: ClassVar[bool] = False
    #: the classifier that takes numbers and states together, named when a table holds
    #: states (:func:`~treelearn.classifiers._numbers.refuse_states`)
    _mixed_instead: ClassVar[str] = "MixedTAN"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

    def _training_data(self, X: Any, y: Any, sample_weight: Any) -> TrainingData:
        who = type(self).__name__
        refuse_states(X, who, self._mixed_instead, labelled=(y, sample_weight))
        data = "file" if kind_of(X, learner=who).name == "path" else "table"

        def refuse(column: Hashable, series: pd.Series) -> TreelearnError:
            # a file's column turning to text in a later chunk: the words of the table
            first = {column: first_not_number(series)}
            return states_refusal([column], first, who, self._mixed_instead, data=data)

        with not_numeric_words(refuse):
            stats = self._statistics(X, y, sample_weight)
        assert stats.variables is not None  # numeric statistics name their columns
        return class_training(stats, y, len(stats.variables))

    def _statistics(
        self, X: Any, y: Any, sample_weight: Any
    ) -> ClassGaussianStatistics | ClassVariances:
        """The statistics the model learns from, from any kind of input
        (:func:`~treelearn.sources._gaussian.gaussian_statistics_by_class`)."""
        return gaussian_statistics_by_class(X, y, sample_weight=sample_weight, learner=self._where)

    def _sums_out(self) -> bool:
        return self._missing_at_prediction

    def _prediction_input(self, X: Any) -> np.ndarray:
        return numeric_rows(self._matched(X), self._where, missing=self._missing_at_prediction)


def check_tree(saved: SavedState, key: str, parent: np.ndarray) -> None:
    """``parent[v]`` (``-1`` for the root) must describe one tree over every node."""
    d = len(parent)
    if d and ((parent < -1).any() or (parent >= d).any() or (parent < 0).sum() != 1):
        raise saved.fail(
            key, "must name one root (-1) and a parent among the features for every other feature"
        )
    G = nx.DiGraph()
    G.add_nodes_from(range(d))
    G.add_edges_from((int(p), v) for v, p in enumerate(parent) if p >= 0)
    if d and not nx.is_tree(G):
        raise saved.fail(key, "does not form a tree (a cycle, or a feature cut off)")


def saved_feature_tree(
    saved: SavedState, features: list
) -> tuple[np.ndarray, nx.Graph, nx.DiGraph]:
    """A saved feature tree, checked: ``(parent, tree, oriented)`` from the fields
    ``parent`` (one tree, :func:`check_tree`) and ``tree_edges`` (``(i, j, weight)`` rows
    naming feature indices, the same edges as the parents form)."""
    d = len(features)
    parent = saved.array("parent", (d,), dtype=np.int64)
    check_tree(saved, "parent", parent)
    edges = saved.array("tree_edges", (d - 1, 3)) if d > 1 else np.empty((0, 3))
    pairs = edges[:, :2]
    if ((pairs < 0) | (pairs >= d) | (pairs != np.round(pairs))).any():
        raise saved.fail("tree_edges", "must name feature indices")
    tree = nx.Graph()
    tree.add_nodes_from(features)
    tree.add_weighted_edges_from((features[int(i)], features[int(j)], w) for i, j, w in edges)
    oriented = nx.DiGraph()
    oriented.add_nodes_from(features)
    oriented.add_edges_from((features[p], features[v]) for v, p in enumerate(parent) if p >= 0)
    if {frozenset(e) for e in tree.edges} != {frozenset(e) for e in oriented.edges}:
        raise saved.fail("tree_edges", "differ from the tree the saved parents form")
    return parent, tree, oriented


def command_line_classifiers() -> dict[str, type]:
    """``{cli_method: class}`` of the classifiers ``treelearn learn --method`` fits (in the
    command line's order: ``tan`` first, then by name): the registry of persistent
    estimators, after importing every module of this package (a new classifier module
    registers itself by being defined)."""
    import importlib
    import pkgutil
    from pathlib import Path

    package = __name__.rpartition(".")[0]
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        importlib.import_module(f"{package}.{info.name}")
    found = {
        cls.cli_method: cls
        for cls in ESTIMATORS.values()
        if issubclass(cls, BayesNetClassifier) and cls.cli_method
    }
    return dict(sorted(found.items(), key=lambda item: (item[0] != "tan", item[0])))


def text_state_columns(clf: CategoricalClassifier) -> list:
    """The columns of a fitted classifier (its features, then its class) whose every state is
    text, its binned features aside: what a CSV's chunks are read with as text
    (:func:`treelearn.sources._files.iter_chunks`) to give the states it learned. A column
    that held numbers in some chunks and text in others was learned as text (the whole read's
    states); a column of text alone reads the same either way.

    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": ["1", "x"], "b": [0, 1]})
    >>> import treelearn as tl
    >>> text_state_columns(tl.NaiveBayes(numbers="states").fit(X, ["p", "q"]))
    ['a', 'class']
    """
    binned = set() if clf.binner_ is None else set(clf.binner_.edges_)
    columns = [*clf.feature_names_in_, clf.class_name_]
    states = [*clf._feature_states(), list(clf.classes_)]
    return [
        c
        for c, st in zip(columns, states)
        if c not in binned and len(st) and all(isinstance(v, str) for v in st)
    ]


def invalid(saved: SavedState, key: str, exc: TreelearnError) -> InvalidModelError:
    """A treelearn error raised while rebuilding a saved part, as the file's fault."""
    return saved.fail(key, f"does not give a valid model ({exc})")
