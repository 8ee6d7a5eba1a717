"""scikit-learn compatible classifiers: naive Bayes, TAN and a per-class Chow-Liu multinet.

The three are Bayesian networks over the features and the class, learned with
the shared stages (encode -> count -> information -> spanning tree -> orient ->
CPTs). They differ only in the structure:

* :class:`NaiveBayes`: the star ``class -> every feature`` (:func:`~treelearn.structure._trees.star`);
* :class:`TAN`: the star plus a maximum spanning tree over the features weighted
  by ``I(X_i; X_j | C)`` (:func:`~treelearn.structure._trees.tan_structure`);
* :class:`ChowLiuMultinet`: one Chow-Liu tree over the features per class, and
  the class prior.

The class posterior is the normalised joint, in log space:
``log p(c | x) = b_c - logsumexp_c' b_c'`` with ``b_c = log p(x_observed, c)``.
A missing feature value (NaN) is summed out exactly (for naive Bayes its factor
drops out; for the trees, the sum-product pass of
:func:`~treelearn.inference._elimination.log_marginal_by_conditioner` sums it over the tree).
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from typing import Any, Literal

import networkx as nx
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._base.errors import (
    ClassLabelError,
    ColumnNotFoundError,
    EmptyDataError,
    FeatureMismatchError,
    InvalidModelError,
    StructureError,
    TreelearnError,
)
from .._base.jsonvalues import (
    DecodeError,
    EncodeError,
    decode_dtype,
    decode_label,
    encode_label,
    from_json_value,
    json_value,
    python_value,
)
from .._base.logspace import logsumexp
from ..encoding._table import CategoricalTableInput, check_sample_weight, encode, python_scalar
from ..export._jsonfile import save_document
from ..inference._elimination import log_marginal_by_conditioner
from ..inference._engine import TreeEngine
from ..learners._chow_liu import build_model, chow_liu_from_counts
from ..models._tree import ScoreReport, TreeModel
from ..sources._count import as_frame, class_dtype, class_labels, class_name, count_by_class
from ..sources._dask import is_dask_dataframe
from ..sources._files import NO_STATE_CAP
from ..stats._class_gaussians import (
    class_gaussian_log_density,
    class_gaussian_statistics,
    numeric_columns,
    numeric_values,
)
from ..stats._counts import ClassCounts
from ..stats._information import conditional_mutual_information_matrix
from ..stats._parameters import estimate_cpt
from ..stats._settings import LearningSettings
from ..structure._trees import spanning_skeleton, star, tan_structure
from ._decisions import loss_matrix
from ._gaussian_tan import GaussianTAN
from ._text import TextNaiveBayes

__all__ = ["TAN", "BayesNetClassifier", "ChowLiuMultinet", "NaiveBayes", "SingleNetworkClassifier"]

Unseen = Literal["error", "ignore"]


def _label_array(labels: Sequence, dtype: Any = object) -> np.ndarray:
    """A 1-D array of ``labels``, filled one by one: ``np.asarray`` would turn tuple
    labels (e.g. MultiIndex column names) into a second axis."""
    out = np.empty(len(labels), dtype=dtype)
    for i, label in enumerate(labels):
        out[i] = label
    return out


# ---------------------------------------------------------------------- shared base
class BayesNetClassifier(CategoricalTableInput, ClassifierMixin, BaseEstimator, ABC):
    """What every treelearn classifier shares: input checks, class prior, posteriors, decisions.

    Every input (a pandas table, a 2-D array, a Dask DataFrame, with or without
    row weights) reduces to sufficient statistics, a
    :class:`~treelearn.stats._counts.ClassCounts` from :func:`treelearn.sources._count.count_by_class`,
    that :meth:`_fit_statistics` learns from. A subclass supplies the hooks
    declared below with ``@abstractmethod``: ``_fit_counts`` (learn its
    network(s) from the statistics), ``_feature_states`` and
    ``_joint_log_likelihood`` (``log p(x_observed, c)`` for each row of feature
    codes and each class), plus the saving hooks ``_models``/``_restore_models``.
    """

    # ------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> BayesNetClassifier:
        """Learn from ``X`` (DataFrame or 2-D array of categorical features) and labels ``y``.

        ``sample_weight``: one non-negative weight per row; integer weights give
        exactly the classifier fitted on the rows repeated that many times, and
        zero leaves a row out. With a Dask DataFrame ``X``, ``y`` (and a weight
        Series) are Dask Series partitioned like it, and the counting runs on
        the workers.
        """
        self._check_params()
        return self._fit_statistics(count_by_class(X, y, sample_weight=sample_weight))

    def _check_params(self) -> None:
        self._cpt_settings()  # validates alpha, prior and m
        if self.unseen not in ("error", "ignore"):
            raise TreelearnError(f"unseen must be 'error' or 'ignore', not {self.unseen!r}",
                                 values=[self.unseen])

    def _cpt_settings(self, method: str = "classifier", **options: Any) -> LearningSettings:
        """The CPT estimator's settings: ``alpha``, and ``prior``/``m`` where the
        classifier has them (Lidstone otherwise)."""
        return LearningSettings(method=method, alpha=self.alpha,
                                prior=getattr(self, "prior", "lidstone"),
                                m=getattr(self, "m", 1.0), **options)

    def _fit_statistics(self, stats: ClassCounts) -> BayesNetClassifier:
        """Learn from sufficient statistics: the one fitting step of every input kind."""
        columns = stats.columns
        self.classes_ = stats.classes
        self.class_name_ = columns[-1]
        self.n_features_in_ = len(columns) - 1
        self.feature_names_in_ = _label_array(columns[:-1])
        self.class_count_ = stats.class_count
        self.class_log_prior_ = self._log_prior(stats.class_count)
        self._fit_counts(stats)
        return self

    @abstractmethod
    def _fit_counts(self, stats: ClassCounts) -> None:
        """Learn the network(s) from the statistics (``classes_`` and the prior are set)."""

    @abstractmethod
    def _feature_states(self) -> list:
        """Each feature's states, in ``feature_names_in_`` order."""

    @abstractmethod
    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """``log p(x_observed, c)``, shape ``(rows, classes)``, from feature codes (-1 = missing)."""

    @abstractmethod
    def _models(self) -> dict:
        """The fitted network(s) to save: ``{"model": TreeModel}`` or ``{"models": [...]}``."""

    @abstractmethod
    def _restore_models(self, models: dict) -> None:
        """Set the fitted network(s) from what :meth:`_models` saved."""

    def _log_prior(self, class_count: np.ndarray) -> np.ndarray:
        k = len(class_count)
        if self.class_prior is not None:
            prior = np.asarray(self.class_prior, dtype=float)
            if prior.shape != (k,) or (prior < 0).any() or not np.isclose(prior.sum(), 1.0):
                raise TreelearnError(
                    f"class_prior must be {k} non-negative probabilities summing to 1 (one per class "
                    f"of {list(self.classes_)}), got {self.class_prior!r}"
                )
        elif self.fit_prior:
            prior = estimate_cpt(class_count)  # class frequencies, unsmoothed (as scikit-learn)
        else:
            prior = np.full(k, 1.0 / k)
        with np.errstate(divide="ignore"):
            return np.log(prior)

    def _description(self, method: str) -> dict:
        return {"method": method, "class": self.class_name_, **{k: python_value(v) for k, v in self.get_params().items()}}

    # ------------------------------------------------------------ prediction
    def _feature_codes(self, X: Any) -> np.ndarray:
        """Validate ``X`` against the fitted features and encode it (``-1`` = missing or ignored)."""
        frame = self._feature_frame(X)
        names = list(self.feature_names_in_)
        return self._encode_features(frame, names, self._feature_states())

    def _encode_features(self, X: pd.DataFrame, names: list, states: list) -> np.ndarray:
        table = encode(
            X[names],
            missing="pairwise",
            states=dict(zip(names, states)),
            max_states=NO_STATE_CAP,
            unseen=self.unseen,
        )
        return table.codes.astype(np.intp)

    def _feature_frame(self, X: Any) -> pd.DataFrame:
        """``X`` as a DataFrame of the fitted features, checked (names, count, rows)."""
        check_is_fitted(self)
        names = list(self.feature_names_in_)
        if not isinstance(X, pd.DataFrame):
            array = np.asarray(X) if not hasattr(X, "tocsr") else X
            if getattr(array, "ndim", 0) == 2 and array.shape[1] != len(names):
                # scikit-learn's wording (its estimator checks look for it), then ours
                raise FeatureMismatchError(
                    f"X has {array.shape[1]} features, but {type(self).__name__} is expecting "
                    f"{len(names)} features as input: the classifier was fitted on "
                    f"{names[:10]}"
                )
            X = as_frame(array, names)
        absent = [c for c in names if c not in X.columns]
        extra = [c for c in X.columns if c not in set(names)]
        if absent or extra:
            hint = (
                f"; {self.class_name_!r} is the class: drop it from X"
                if self.class_name_ in extra
                else ""
            )
            raise FeatureMismatchError(
                f"X's columns differ from the features the classifier was fitted on: missing "
                f"{absent}, unexpected {extra}{hint}"
            )
        if len(X) == 0:
            raise EmptyDataError("X has no rows; there is nothing to predict or score")
        return X

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """``log p(x_observed, c)`` for each row and class (columns in ``classes_`` order)."""
        return self._joint_log_likelihood(self._feature_codes(X))

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """``log p(c | x_observed)``, normalised with log-sum-exp; shape ``(n, n_classes)``.

        A row that has probability zero under every class (possible only with
        ``alpha=0``) gets the uniform posterior, with a warning.
        """
        joint = self.predict_joint_log_proba(X)
        norm = logsumexp(joint, axis=1, keepdims=True)
        impossible = ~np.isfinite(norm[:, 0])
        if impossible.any():
            warnings.warn(
                f"{int(impossible.sum())} row(s) have probability zero under every class (a "
                f"feature value never seen with any class under alpha=0); their posterior is set "
                f"to uniform. Use alpha > 0 to avoid this",
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
        check_is_fitted(self)
        if loss is None:
            return self.classes_[np.argmax(self.predict_log_proba(X), axis=1)]
        L = loss_matrix(loss, self.classes_)
        return self.classes_[np.argmin(self.predict_proba(X) @ L, axis=1)]

    # ------------------------------------------------------------ scores and posteriors
    def select_features(self, data: pd.DataFrame) -> pd.DataFrame:
        """The fitted features' columns of ``data`` (a wider table, e.g. one holding the class).

        Raises :class:`~treelearn.FeatureMismatchError` naming the features
        that ``data`` lacks.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> df = pd.DataFrame({"f": ["a", "a", "b", "b"], "g": [0, 1, 0, 1], "c": [0, 0, 0, 1]})
        >>> clf = tl.NaiveBayes().fit(df[["f", "g"]], df["c"])
        >>> list(clf.select_features(df).columns)
        ['f', 'g']
        """
        check_is_fitted(self)
        features = list(self.feature_names_in_)
        absent = [c for c in features if c not in data.columns]
        if absent:
            raise FeatureMismatchError(f"the data lacks the classifier's feature(s) {absent[:10]}")
        return data[features]

    def log_likelihood(self, X: Any, y: Any = None, per_row: bool = False) -> float | np.ndarray:
        """Log-likelihood of the rows in nats: ``log p(x_observed, y)``, total or per row.

        ``X`` holds the features (as for :meth:`predict`). Where ``y`` is not
        given, or a row's label is missing (NaN), that row scores
        ``log p(x_observed)``: the class is summed out. Missing feature values are
        summed out as well.

        Raises :class:`~treelearn.ClassLabelError` for a label the classifier
        never saw, or a ``y`` whose length differs from ``X``'s rows.

        Examples
        --------
        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> X, y = pd.DataFrame({"f": ["a", "a", "b", "b"]}), pd.Series([0, 0, 0, 1])
        >>> clf = tl.NaiveBayes(alpha=0).fit(X, y)
        >>> # p(c=0) = 3/4, p(a | 0) = 2/3, p(b | 0) = 1/3; p(c=1) = 1/4, p(b | 1) = 1
        >>> np.allclose(clf.log_likelihood(X, y, per_row=True), np.log([1/2, 1/2, 1/4, 1/4]))
        True
        >>> round(clf.log_likelihood(X), 4)   # p(a) = p(b) = 1/2: 4 ln(1/2)
        -2.7726
        """
        joint = self.predict_joint_log_proba(X)
        rows = np.logaddexp.reduce(joint, axis=1)
        if y is not None:
            labels = self._labels_of(y, len(rows))
            known = labels.notna().to_numpy()  # a missing label: the class is summed out
            index = {
                python_scalar(c): i for i, c in enumerate(self.classes_)
            }
            values = [python_scalar(v) for v in labels[known]]
            unknown = sorted({str(v) for v in values if v not in index})
            if unknown:
                raise ClassLabelError(
                    f"class column {self.class_name_!r} has label(s) {unknown[:5]} that the "
                    f"classifier never saw"
                )
            rows[known] = joint[np.flatnonzero(known), [index[v] for v in values]]
        return rows if per_row else float(rows.sum())

    def _labels_of(self, y: Any, n_rows: int) -> pd.Series:
        """``y`` as a Series of labels (positions, not index, matter), one per row."""
        if isinstance(y, pd.DataFrame):
            if y.shape[1] != 1:
                raise ClassLabelError(f"y must be one column of class labels, got {y.shape[1]} columns")
            y = y.iloc[:, 0]
        labels = y if isinstance(y, pd.Series) else pd.Series(_label_array(list(y)))
        if len(labels) != n_rows:
            raise ClassLabelError(
                f"X has {n_rows} rows but y has {len(labels)} labels; give one label per row"
            )
        return labels

    def score_report(self, X: Any, y: Any = None) -> ScoreReport:
        """Rows, log-likelihood (:meth:`log_likelihood`), its average and BIC of ``X`` (and ``y``).

        Not :meth:`score`, which is scikit-learn's accuracy. Without ``y`` the
        report's ``summed_out`` names the class. The parameter count is
        :attr:`n_parameters`.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> X, y = pd.DataFrame({"f": ["a", "a", "b", "b"]}), pd.Series([0, 0, 0, 1])
        >>> report = tl.NaiveBayes(alpha=0).fit(X, y).score_report(X, y)
        >>> report.n, report.n_parameters   # the prior: 1, p(f | c): 2 x 1
        (4, 3)
        >>> round(report.log_likelihood, 4), round(report.bic, 4)   # 2 ln(1/2) + 2 ln(1/4); - 1.5 ln 4
        (-4.1589, -6.2383)
        """
        return ScoreReport(
            n=len(X),
            log_likelihood=self.log_likelihood(X, y),
            n_parameters=self.n_parameters,
            summed_out=self.class_name_ if y is None else None,
        )

    # ------------------------------------------------------------ pictures, files
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
        save_document(path, "classifier", **{"class": type(self).__name__, "state": self.to_dict()})

    def draw(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the fitted network(s); returns a matplotlib Figure (see :func:`treelearn.viz._draw.draw`)."""
        check_is_fitted(self)
        return self.model_.draw(ax, **kwargs)

    def to_html(self, path: Any = None, **kwargs: Any) -> str:
        """The fitted network(s) as an interactive page, the class marked; written to ``path``
        when given (see :func:`treelearn.viz._explorer.to_html`)."""
        check_is_fitted(self)
        from ..viz._explorer import to_html

        return to_html(self, path, **kwargs)

    def _repr_svg_(self) -> str | None:
        """Jupyter shows a fitted classifier as its network (the estimator's text otherwise)."""
        if not hasattr(self, "classes_"):
            return None
        from ..viz._draw import svg_or_none

        return svg_or_none(self)

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

    # ------------------------------------------------------------ saving
    def to_dict(self) -> dict:
        """Everything needed to rebuild this fitted classifier, as JSON-able values.

        Labels and names keep their types (:mod:`treelearn._base.jsonvalues`); the fitted
        networks are :meth:`TreeModel.to_dict <treelearn.models._tree.TreeModel.to_dict>`
        documents. It is the ``"state"`` of a saved classifier; :meth:`from_dict`
        is the inverse.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
        >>> X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
        >>> clf = tl.NaiveBayes().fit(X, y)
        >>> state = clf.to_dict()
        >>> state["classes"], state["class_count"]
        (['No', 'Yes'], [5, 9])
        >>> back = tl.NaiveBayes.from_dict(state)
        >>> (back.predict_proba(X) == clf.predict_proba(X)).all()
        np.True_
        """
        check_is_fitted(self)
        try:
            return self._state()
        except EncodeError as exc:  # jsonvalues knows no treelearn errors
            raise TreelearnError(str(exc)) from None

    def _estimator_state(self) -> dict:
        """What every fitted classifier's file holds: estimator, parameters, classes, names."""
        names = getattr(self, "feature_names_in_", None)
        return {
            "estimator": type(self).__name__,
            "params": {k: json_value(v) for k, v in self.get_params().items()},
            "classes": [encode_label(c) for c in self.classes_],
            "classes_dtype": str(self.classes_.dtype),
            "class_name": encode_label(self.class_name_),
            "feature_names": None if names is None else [encode_label(f) for f in names],
        }

    def _state(self) -> dict:
        state = {
            **self._estimator_state(),
            "class_count": [int(c) for c in self.class_count_],
            "class_prior": np.exp(self.class_log_prior_).tolist(),
        }
        for key, value in self._models().items():
            state[key] = [m.to_dict() for m in value] if isinstance(value, list) else value.to_dict()
        return state

    @classmethod
    def from_dict(cls, state: dict) -> BayesNetClassifier:
        """The fitted classifier that :meth:`to_dict` describes.

        A label that is not a valid encoding raises :class:`~treelearn.InvalidModelError`;
        a fitted network that does not check out, the same error naming its variable.
        """
        try:
            return cls._from_state(state)
        except DecodeError as exc:  # jsonvalues knows no treelearn errors
            raise InvalidModelError(str(exc)) from None

    @classmethod
    def _from_state(cls, state: dict) -> BayesNetClassifier:
        if state.get("estimator") != cls.__name__:
            raise TreelearnError(f"the saved state is a {state.get('estimator')!r}, not a {cls.__name__}")
        est = cls(**{k: from_json_value(v) for k, v in state["params"].items()})
        est.classes_ = _label_array(
            [decode_label(c) for c in state["classes"]], decode_dtype(state["classes_dtype"])
        )
        est.class_name_ = decode_label(state["class_name"])
        est.feature_names_in_ = _label_array([decode_label(f) for f in state["feature_names"]])
        est.n_features_in_ = len(est.feature_names_in_)
        est.class_count_ = np.asarray(state["class_count"], dtype=np.int64)
        with np.errstate(divide="ignore"):
            est.class_log_prior_ = np.log(np.asarray(state["class_prior"], dtype=float))
        est._restore_models(
            {k: ([TreeModel.from_dict(m) for m in v] if isinstance(v, list)
                 else TreeModel.from_dict(v))
             for k, v in state.items() if k in ("model", "models")}
        )
        est._check_restored(state)
        return est

    def _check_restored(self, state: dict) -> None:
        """A hand-edited file must agree with itself: classes vs the class variable's states,
        one count and one prior per class (else predictions would be silently wrong)."""
        k = len(self.classes_)
        if len(set(self.classes_.tolist())) != k or k < 2:
            raise InvalidModelError(f"classes {list(self.classes_)} must be 2 or more distinct labels")
        if self.class_count_.shape != (k,) or (self.class_count_ < 0).any():
            raise InvalidModelError(f"class_count must be {k} non-negative counts")
        prior = np.exp(self.class_log_prior_)
        if prior.shape != (k,) or not np.isclose(prior.sum(), 1.0):
            raise InvalidModelError(f"class_prior must be {k} probabilities summing to 1")
        model = getattr(self, "model_", None)
        if model is not None and self.class_name_ in model.variables:
            states = list(model.states[self.class_name_])
            if states != list(self.classes_):
                raise InvalidModelError(
                    f"classes {list(self.classes_)} differ from the states {states} of the class "
                    f"variable {self.class_name_!r} in the network (reordered by hand?)")


class SingleNetworkClassifier(BayesNetClassifier):
    """Naive Bayes and TAN: one network over the features and the class (``model_``)."""

    @abstractmethod
    def _structure(self, stats: ClassCounts) -> nx.DiGraph:
        """The network's structure over the features and the class (last column)."""

    def _fit_counts(self, stats: ClassCounts) -> None:
        model = build_model(
            self._structure(stats), stats, self._cpt_settings(self._method),
            description=self._description(self._method),
        )
        # the class node's CPT is the class prior (frequencies, given, or uniform)
        model.graph.nodes[self.class_name_]["cpt"] = np.exp(self.class_log_prior_)
        self.model_ = TreeModel(
            model.graph, variables=model.variables, dtypes=model.dtypes,
            n_rows=model.n_rows, settings=model.settings,
        )
        self._engine = self._build_engine()

    # the prediction engine is built when the network is set (fit, load), never during
    # predict: scikit-learn expects prediction to leave the estimator's __dict__ unchanged
    _engine: tuple | None = None

    def _build_engine(self) -> tuple:
        """``(graph, TreeEngine)`` of ``model_``: with the class taken out, the features form
        a forest; one message-passing sweep gives ``log p(x_observed, c)`` for every class."""
        model = self.model_
        return (model.graph, TreeEngine(model.variables, model.parent_map, model.cpts,
                                        model.states, conditioner=self.class_name_))

    def _feature_states(self) -> list:
        states = self.model_.states
        return [states[f] for f in self.feature_names_in_]

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        model = self.model_
        engine = self._engine
        if engine is None or engine[0] is not model.graph:  # model_ replaced by hand
            engine = self._build_engine()
        engine = engine[1]
        n, d = codes.shape
        k = len(self.classes_)
        # codes in the model's variable order: the features, then the class
        full = np.empty((n, d + 1), dtype=np.intp)
        full[:, :d] = codes
        out = np.empty((n, k))
        complete = (codes >= 0).all(axis=1)
        if complete.any():
            # complete rows: a gather per node and class, log p(x, c) exactly in log space,
            # cheaper than message passing when nothing is summed out
            rows = full[complete]
            for c in range(k):
                rows[:, d] = c
                out[complete, c] = model.log_likelihood_codes(rows)
        if not complete.all():
            rows = full[~complete]
            rows[:, d] = -1  # the class unobserved: one pass gives every class
            if engine.is_tree:
                out[~complete] = engine.log_evidence_by_conditioner(rows)
            else:
                out[~complete] = log_marginal_by_conditioner(
                    model.variables, model.parent_map, model.cpts, rows,
                    self.class_name_, list(nx.topological_sort(model.graph)),
                )
        return out

    def _models(self) -> dict:
        return {"model": self.model_}

    def to_dot(self, **kwargs: Any) -> str:
        """Graphviz DOT text of the fitted network, the class marked."""
        check_is_fitted(self)
        return self.model_.to_dot(**kwargs)

    def to_mermaid(self, **kwargs: Any) -> str:
        """A Mermaid flowchart of the fitted network."""
        check_is_fitted(self)
        return self.model_.to_mermaid(**kwargs)

    def _restore_models(self, models: dict) -> None:
        self.model_ = models["model"]
        self._engine = self._build_engine()

    # ------------------------------------------------------------ scores and sampling
    @property
    def n_parameters(self) -> int:
        """Free parameters of the fitted network (the class prior included)."""
        check_is_fitted(self)
        return self.model_.n_parameters

    def sample(
        self, n: int, random_state: int | np.random.Generator | None = None
    ) -> pd.DataFrame:
        """Draw ``n`` rows (the features, then the class) from the fitted network.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> X, y = pd.DataFrame({"f": ["a", "a", "b", "b"]}), pd.Series([0, 0, 0, 1], name="c")
        >>> list(tl.NaiveBayes().fit(X, y).sample(3, random_state=0).columns)
        ['f', 'c']
        """
        check_is_fitted(self)
        return self.model_.sample(n, random_state=random_state)


# ---------------------------------------------------------------------- the classifiers
class NaiveBayes(SingleNetworkClassifier):
    """Categorical naive Bayes: the star ``class -> every feature`` with Lidstone CPTs.

    Parameters
    ----------
    alpha : pseudocount added to every feature-state count in each class
        (1 = Laplace, 0 = maximum likelihood): ``p(x_j = a | c) = (N_jc(a) + alpha)
        / (N_c + k_j alpha)``, over the rows where ``x_j`` is observed.
    fit_prior : learn the class prior as the class frequencies (unsmoothed, as
        scikit-learn does); ``False`` uses a uniform prior.
    class_prior : prior probabilities of the classes (in ``classes_`` order);
        overrides ``fit_prior``.
    unseen : at prediction, a category not seen in training is an error
        (``"error"``, naming the column and value) or treated as missing (``"ignore"``).
    prior, m : ``prior="lidstone"`` (default) smooths with ``alpha``;
        ``prior="m-estimate"`` uses Mitchell's m-estimate with a uniform prior,
        ``p(x_j = a | parents) = (N(a, parents) + m / k_j) / (N(parents) + m)``.
    event_model : ``"categorical"`` (default: the features are categories), or
        for term counts (dense or scipy.sparse, never made dense)
        ``"multinomial"`` (word counts) / ``"bernoulli"`` (word presence,
        ``x > binarize``): the probabilities of scikit-learn's ``MultinomialNB`` /
        ``BernoulliNB`` (:class:`~treelearn.classifiers._text.TextNaiveBayes` does the work).
    numeric : ``"error"`` (default): a float column with fractional values is an
        error (discretize it); ``"gaussian"``: such columns (see
        :func:`~treelearn.stats._class_gaussians.numeric_columns`) are modelled per class
        as Gaussians (weighted ML mean and variance) next to the categorical
        features: mixed data. Missing cells of either kind are summed out.
    var_smoothing : with ``numeric="gaussian"``, added to every variance as a
        fraction of the largest column variance (scikit-learn's ``GaussianNB``
        rule; 0 = pure maximum likelihood).

    Attributes
    ----------
    classes_ : sorted class labels.
    model_ : the fitted :class:`~treelearn.models._tree.TreeModel` over the features and
        the class (``class_name_``); ``query``, ``to_pgmpy`` and drawing work on it.
    class_name_ : the class node's name: ``y.name`` if ``y`` is a named Series,
        else ``"class"``.
    class_count_, class_log_prior_ : rows per class and the log class prior.
    n_features_in_, feature_names_in_ : the features (arrays get the names ``x0, x1, ...``).
    numeric_features_, categorical_features_ : with ``numeric="gaussian"``, the
        Gaussian and the categorical features; ``model_`` is then the network
        over the categorical features and the class only.
    theta_, var_ : per class (rows) and numeric feature (columns), the Gaussians'
        means and variances.
    text_model_ : with a text ``event_model``, the fitted
        :class:`~treelearn.classifiers._text.TextNaiveBayes` (``model_`` is not set: a
        bag of words is no network of categorical variables); ``None`` otherwise.

    Notes
    -----
    Features are encoded by the core rules (:func:`treelearn.encoding._table.encode`): a
    pandas Categorical keeps its declared categories as states, other columns
    have their sorted distinct values. Missing feature values are allowed when
    fitting (each CPT counts the rows where its family is observed) and when
    predicting (summed out). At prediction a DataFrame is matched to the fitted
    features by column name, a 2-D array by position.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
    >>> X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
    >>> clf = tl.NaiveBayes(alpha=0).fit(X, y)
    >>> clf.predict(pd.DataFrame([{"Outlook": "Sunny", "Temperature": "Cool",
    ...                            "Humidity": "High", "Wind": "Strong"}])).tolist()
    ['No']
    >>> sorted(clf.model_.graph.successors("PlayTennis"))
    ['Humidity', 'Outlook', 'Temperature', 'Wind']
    """

    _method = "naive-bayes"

    def __init__(
        self,
        alpha: float = 1.0,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        prior: str = "lidstone",
        m: float = 1.0,
        event_model: str = "categorical",
        numeric: str = "error",
        binarize: float = 0.0,
        var_smoothing: float = 1e-9,
    ) -> None:
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.prior = prior
        self.m = m
        self.event_model = event_model
        self.numeric = numeric
        self.binarize = binarize
        self.var_smoothing = var_smoothing

    def _structure(self, stats: ClassCounts) -> nx.DiGraph:
        return star(stats.columns[-1], stats.columns[:-1])

    # ------------------------------------------------------------ text and mixed data
    def _check_params(self) -> None:
        super()._check_params()
        if self.event_model not in ("categorical", "multinomial", "bernoulli"):
            raise TreelearnError(f"event_model={self.event_model!r}; choose 'categorical', "
                                 "'multinomial' or 'bernoulli'", values=[self.event_model])
        if self.numeric not in ("error", "gaussian"):
            raise TreelearnError(f"numeric={self.numeric!r}; choose 'error' (discretize numeric "
                                 "columns first) or 'gaussian'", values=[self.numeric])
        if self.event_model != "categorical" and (self.numeric != "error"
                                                  or self.prior != "lidstone"):
            raise TreelearnError(
                f"event_model={self.event_model!r} models term counts: numeric='gaussian' and "
                "prior='m-estimate' apply to event_model='categorical' only; leave them at "
                "their defaults")
        v = self.var_smoothing
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v) or v < 0:
            raise TreelearnError(f"var_smoothing={v!r}; it must be a number >= 0 (e.g. 1e-9)")

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> NaiveBayes:
        """Learn from ``X`` and labels ``y`` (see :meth:`BayesNetClassifier.fit`).

        With a text ``event_model``, ``X`` holds term counts (DataFrame, array or
        scipy.sparse); with ``numeric="gaussian"``, numeric columns become Gaussians.
        """
        self._check_params()
        self.text_model_ = None
        self.numeric_features_ = []
        self.theta_ = self.var_ = np.empty((0, 0))
        if self.event_model != "categorical":
            return self._fit_text(X, y, sample_weight)
        numeric = []
        if self.numeric == "gaussian":
            if is_dask_dataframe(X):
                raise TreelearnError("numeric='gaussian' needs an in-memory DataFrame or array, "
                                     "not a Dask DataFrame; call X.compute() first")
            X = as_frame(X)
            numeric = numeric_columns(X)
        if not numeric:
            super().fit(X, y, sample_weight)
            self.categorical_features_ = list(self.feature_names_in_)
            return self
        return self._fit_mixed(X, numeric, y, sample_weight)

    def _fit_text(self, X: Any, y: Any, sample_weight: Any) -> NaiveBayes:
        text = TextNaiveBayes(self.event_model, alpha=self.alpha, binarize=self.binarize)
        text.fit(X, y, sample_weight=sample_weight)
        self.text_model_ = text
        self.categorical_features_ = []
        # numpy text labels as objects: the dtype every other classifier keeps (and saves)
        self.classes_ = (text.classes_.astype(object) if text.classes_.dtype.kind in "US"
                         else text.classes_)
        self.class_name_ = class_name(getattr(y, "name", None), ())
        self.n_features_in_ = text.n_features_in_
        if hasattr(text, "feature_names_in_"):
            self.feature_names_in_ = text.feature_names_in_
        self.class_count_ = text.class_count_
        self.class_log_prior_ = self._log_prior(text.class_count_)
        return self

    def _fit_mixed(self, X: pd.DataFrame, numeric: list, y: Any, sample_weight: Any) -> NaiveBayes:
        categorical = [c for c in X.columns if c not in set(numeric)]
        w = check_sample_weight(sample_weight, len(X))
        w = np.ones(len(X)) if w is None else w
        keep = np.flatnonzero(w > 0)  # rows of weight zero are absent, as count_by_class does
        if isinstance(y, (pd.Series, pd.DataFrame)):
            y_kept = y.iloc[keep]
        else:
            y_kept = np.asarray(y)[keep] if y is not None and len(keep) < len(X) else y
        classes, codes, y_name = class_labels(y_kept, len(keep))
        if categorical:
            self._fit_statistics(count_by_class(X[categorical], y, sample_weight=sample_weight))
        else:  # only numeric features: the network is the class alone, with its prior
            self.classes_ = classes
            self.class_name_ = class_name(y_name, list(X.columns))
            self.class_count_ = np.bincount(codes, weights=w[keep], minlength=len(classes))
            self.class_log_prior_ = self._log_prior(self.class_count_)
            graph = nx.DiGraph()
            graph.add_node(self.class_name_, states=tuple(python_scalar(c) for c in classes),
                           cpt=np.exp(self.class_log_prior_))
            self.model_ = TreeModel(
                graph, variables=[self.class_name_],
                dtypes={self.class_name_: class_dtype(getattr(y, "dtype", None), classes)},
                n_rows=float(w[keep].sum()), settings=self._description(self._method))
            self._engine = self._build_engine()
        self.feature_names_in_ = _label_array(list(X.columns))
        self.n_features_in_ = X.shape[1]
        self.categorical_features_ = categorical
        self.numeric_features_ = list(numeric)
        values = numeric_values(X.iloc[keep] if len(keep) < len(X) else X, numeric)
        _, self.theta_, self.var_ = class_gaussian_statistics(
            values, codes, w[keep], len(classes), numeric, list(self.classes_),
            float(self.var_smoothing))
        return self

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """``log p(x_observed, c)`` for each row and class (columns in ``classes_`` order).

        With ``numeric="gaussian"``: the categorical network's term plus
        ``sum_j log N(x_j; theta_cj, var_cj)`` over the observed numeric cells.
        """
        check_is_fitted(self)
        if self.text_model_ is not None:
            return self.text_model_.predict_class_log_likelihood(X) + self.class_log_prior_
        if not self.numeric_features_:
            return super().predict_joint_log_proba(X)
        frame = self._feature_frame(X)
        cats = self.categorical_features_
        if cats:
            jll = self._joint_log_likelihood(self._encode_features(
                frame, cats, [self.model_.states[f] for f in cats]))
        else:
            jll = np.tile(self.class_log_prior_, (len(frame), 1))
        values = numeric_values(frame, self.numeric_features_)
        return jll + class_gaussian_log_density(values, self.theta_, self.var_)

    @property
    def n_parameters(self) -> int:
        """Free parameters: the network's, two per class and numeric feature, or the text
        model's ``k (|V| - 1)`` (multinomial) / ``k |V|`` (Bernoulli) plus the prior's ``k - 1``."""
        check_is_fitted(self)
        k = len(self.classes_)
        if self.text_model_ is not None:
            d = self.n_features_in_
            return k - 1 + k * (d - 1 if self.event_model == "multinomial" else d)
        return self.model_.n_parameters + 2 * k * len(self.numeric_features_)

    def sample(
        self, n: int, random_state: int | np.random.Generator | None = None
    ) -> pd.DataFrame:
        """Draw ``n`` rows (the features, then the class); numeric features from their
        class's Gaussian. Not available for a text ``event_model``."""
        check_is_fitted(self)
        if self.text_model_ is not None:
            raise TreelearnError(f"event_model={self.event_model!r} has no document length "
                                 "model, so it cannot draw documents; use event_model="
                                 "'categorical' on word-presence columns to sample")
        if not self.numeric_features_:
            return super().sample(n, random_state=random_state)
        rng = np.random.default_rng(random_state)
        rows = self.model_.sample(n, random_state=rng)
        index = {python_scalar(c): i for i, c in enumerate(self.classes_)}
        codes = np.array([index[python_scalar(v)] for v in rows[self.class_name_]], dtype=np.intp)
        draws = rng.normal(self.theta_[codes], np.sqrt(self.var_[codes]))
        for j, name in enumerate(self.numeric_features_):
            rows[name] = draws[:, j]
        return rows[[*self.feature_names_in_, self.class_name_]]

    def to_pgmpy(self) -> Any:
        """The fitted network as a pgmpy ``DiscreteBayesianNetwork`` (categorical features only).

        Raises :class:`~treelearn.TreelearnError` for Gaussian features (pgmpy has
        no network mixing discrete and linear-Gaussian variables) and for a text
        ``event_model`` (term counts are no categorical variables).
        """
        check_is_fitted(self)
        if self.text_model_ is not None or self.numeric_features_:
            what = (f"event_model={self.event_model!r} (term counts)" if self.text_model_
                    is not None else f"Gaussian features {self.numeric_features_[:5]}")
            raise TreelearnError(
                f"pgmpy cannot hold this classifier: {what} are not categorical variables and "
                "pgmpy has no hybrid discrete/Gaussian network; discretize them "
                "(tl.discretize) and fit event_model='categorical', numeric='error' to export")
        return self.model_.to_pgmpy()

    def _state(self) -> dict:
        if self.text_model_ is None:
            state = super()._state()
            if self.numeric_features_:
                state["gaussian"] = {
                    "features": [encode_label(f) for f in self.numeric_features_],
                    "mean": self.theta_.tolist(), "variance": self.var_.tolist()}
            return state
        return {
            **self._estimator_state(),
            "class_count": self.class_count_.tolist(),
            "class_prior": np.exp(self.class_log_prior_).tolist(),
            "text": {"feature_count": self.text_model_.feature_count_.tolist()},
        }

    @classmethod
    def _from_state(cls, state: dict) -> NaiveBayes:
        if "text" not in state:
            est = super()._from_state(state)
            est.text_model_ = None
            gaussian = state.get("gaussian")
            est.numeric_features_ = ([decode_label(f) for f in gaussian["features"]]
                                     if gaussian else [])
            numeric = set(est.numeric_features_)
            est.categorical_features_ = [f for f in est.feature_names_in_ if f not in numeric]
            k, d = len(est.classes_), len(est.numeric_features_)
            est.theta_ = np.asarray(gaussian["mean"] if gaussian else np.empty((k, 0)), float)
            est.var_ = np.asarray(gaussian["variance"] if gaussian else np.empty((k, 0)), float)
            if (est.theta_.shape != (k, d) or est.var_.shape != (k, d)
                    or not (est.var_ > 0).all() or not np.isfinite(est.theta_).all()):
                raise InvalidModelError(f"the Gaussian features need a {k} x {d} mean and a "
                                        f"positive {k} x {d} variance, one row per class")
            return est
        if state.get("estimator") != cls.__name__:
            raise TreelearnError(f"the saved state is a {state.get('estimator')!r}, not a "
                                 f"{cls.__name__}")
        est = cls(**{k: from_json_value(v) for k, v in state["params"].items()})
        est.classes_ = _label_array(
            [decode_label(c) for c in state["classes"]], decode_dtype(state["classes_dtype"]))
        est.class_name_ = decode_label(state["class_name"])
        est.class_count_ = np.asarray(state["class_count"], dtype=float)
        with np.errstate(divide="ignore"):
            est.class_log_prior_ = np.log(np.asarray(state["class_prior"], dtype=float))
        text = TextNaiveBayes(est.event_model, alpha=est.alpha, binarize=est.binarize)
        text.set_counts(est.classes_, state["text"]["feature_count"], est.class_count_)
        if state["feature_names"] is not None:
            est.feature_names_in_ = _label_array([decode_label(f) for f in state["feature_names"]])
            text.feature_names_in_ = est.feature_names_in_
        est.text_model_ = text
        est.n_features_in_ = text.n_features_in_
        est.numeric_features_, est.categorical_features_ = [], []
        est.theta_ = est.var_ = np.empty((0, 0))
        return est


class TAN(SingleNetworkClassifier):
    """Tree-augmented naive Bayes (Friedman, Geiger and Goldszmidt, 1997).

    The feature tree is the maximum spanning tree of the complete graph weighted
    by the plug-in conditional mutual information ``I(X_i; X_j | C)`` (class-wise
    pairwise counts, one one-hot product per class), oriented away from ``root``;
    the class is a parent of every feature. Ties are broken by column order.

    Parameters
    ----------
    alpha, fit_prior, class_prior, unseen, prior, m : as in :class:`NaiveBayes`.
    root : the feature at the root of the feature tree. ``None`` (default) uses
        the **first feature column**; never the class. The root changes the
        edges' direction, not the maximum-likelihood fit.
    forest : ``None`` (a spanning tree), ``"bic"`` or ``"aic"``: a penalised forest
        (bnclassify's ``tan_cl(score=...)``): an edge adds ``|C| (k_i - 1)(k_j - 1)``
        parameters, and is kept only when ``n I(X_i; X_j | C)`` exceeds their
        penalty (BIC: ``ln(n) / 2`` each, AIC: 1 each). Each tree of the forest is
        rooted at its first column (``root``'s tree at ``root``).
    whitelist, blacklist : undirected feature pairs the tree must / must not
        contain (as bnlearn's); see :func:`treelearn.structure._trees.spanning_skeleton`.
    numeric : ``"error"`` (default: features are categories) or ``"gaussian"``:
        every feature is numeric and the model is the class-conditional
        linear-Gaussian tree of :class:`~treelearn.classifiers._gaussian_tan.GaussianTAN`
        (``gaussian_model_``; ``root``, ``fit_prior`` and ``class_prior`` apply;
        save/:func:`treelearn.load` work; ``model_`` is not set: pgmpy has no network
        with a discrete parent of linear-Gaussian variables).

    Attributes
    ----------
    As :class:`NaiveBayes`, plus ``feature_tree_``: the undirected maximum
    spanning tree (or forest) over the features (edge ``weight`` = ``I(X_i; X_j | C)``
    in nats).

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> clf = tl.TAN().fit(df.drop(columns="either"), df["either"])
    >>> clf.model_.parents("asia")   # the root of the feature tree: the first feature
    ['either']
    >>> clf.model_.parents("tub")[0]   # every other feature: the class first, then its tree parent
    'either'
    """

    _method = "tan"

    def __init__(
        self,
        alpha: float = 1.0,
        root: Hashable | None = None,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        forest: str | None = None,
        whitelist: Sequence[tuple] | None = None,
        blacklist: Sequence[tuple] | None = None,
        prior: str = "lidstone",
        m: float = 1.0,
        numeric: str = "error",
    ) -> None:
        self.alpha = alpha
        self.root = root
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.forest = forest
        self.whitelist = whitelist
        self.blacklist = blacklist
        self.prior = prior
        self.m = m
        self.numeric = numeric

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> TAN:
        """Learn from ``X`` and ``y`` (see :meth:`BayesNetClassifier.fit`); with
        ``numeric="gaussian"``, a Gaussian TAN on numeric features."""
        if self.numeric not in ("error", "gaussian"):
            raise TreelearnError(f"numeric={self.numeric!r}; choose 'error' (discretize numeric "
                                 "columns first) or 'gaussian'", values=[self.numeric])
        self.gaussian_model_ = None
        if self.numeric == "error":
            return super().fit(X, y, sample_weight)
        self._check_params()
        if self.forest is not None or self.whitelist or self.blacklist:
            raise TreelearnError("numeric='gaussian' learns a spanning tree: forest, whitelist "
                                 "and blacklist apply to categorical features only")
        model = GaussianTAN(root=self.root, fit_prior=self.fit_prior,
                            class_prior=self.class_prior).fit(X, y, sample_weight)
        self.gaussian_model_ = model
        self.classes_ = model.classes_
        self.class_name_ = class_name(getattr(y, "name", None), list(model.feature_names_in_))
        self.class_count_ = model.class_count_
        self.class_log_prior_ = model.class_log_prior_
        self.n_features_in_ = model.n_features_in_
        self.feature_names_in_ = model.feature_names_in_
        self.feature_tree_ = model.feature_tree_
        return self

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """``log p(x_observed, c)`` for each row and class (columns in ``classes_`` order)."""
        check_is_fitted(self)
        if getattr(self, "gaussian_model_", None) is not None:
            return self.gaussian_model_.predict_joint_log_proba(X)
        return super().predict_joint_log_proba(X)

    @property
    def n_parameters(self) -> int:
        """Free parameters of the fitted network (the class prior included)."""
        check_is_fitted(self)
        if getattr(self, "gaussian_model_", None) is not None:
            return self.gaussian_model_.n_parameters
        return self.model_.n_parameters

    def _state(self) -> dict:
        model = getattr(self, "gaussian_model_", None)
        if model is None:
            return super()._state()
        return {**self._estimator_state(), "gaussian": model.fitted_state()}

    @classmethod
    def _from_state(cls, state: dict) -> TAN:
        if "gaussian" not in state:
            est = super()._from_state(state)
            est.gaussian_model_ = None
            return est
        if state.get("estimator") != cls.__name__:
            raise TreelearnError(f"the saved state is a {state.get('estimator')!r}, not a "
                                 f"{cls.__name__}")
        est = cls(**{k: from_json_value(v) for k, v in state["params"].items()})
        classes = _label_array([decode_label(c) for c in state["classes"]],
                               decode_dtype(state["classes_dtype"]))
        features = [decode_label(f) for f in state["feature_names"]]
        try:
            model = GaussianTAN(root=est.root, fit_prior=est.fit_prior,
                                class_prior=est.class_prior).set_fitted_state(
                classes, features, state["gaussian"])
        except TreelearnError as exc:
            raise InvalidModelError(str(exc)) from None
        est.gaussian_model_ = model
        est.classes_, est.class_name_ = classes, decode_label(state["class_name"])
        est.class_count_, est.class_log_prior_ = model.class_count_, model.class_log_prior_
        est.n_features_in_, est.feature_names_in_ = model.n_features_in_, _label_array(features)
        est.feature_tree_ = model.feature_tree_
        return est

    def _restore_models(self, models: dict) -> None:
        super()._restore_models(models)
        # the feature tree is the model minus the class, undirected (edges keep their weight)
        tree = nx.Graph()
        features = list(self.feature_names_in_)
        tree.add_nodes_from((f, {"states": self.model_.states[f]}) for f in features)
        tree.add_edges_from(self.model_.graph.subgraph(features).edges(data=True))
        self.feature_tree_ = tree

    def _structure(self, stats: ClassCounts) -> nx.DiGraph:
        features, class_name = list(stats.columns[:-1]), stats.columns[-1]
        root = _check_root(self.root, features, class_name)
        d = len(features)
        cmi = conditional_mutual_information_matrix(stats.per_class)[:d, :d]
        rows = None
        if self.forest is not None:  # n per pair: the rows where both are observed
            rows = sum(pc.pair_totals() for pc in stats.per_class)[:d, :d]
        self.feature_tree_ = spanning_skeleton(
            features, cmi, stats.states[:d], forest=self.forest, n=rows,
            n_classes=len(stats.classes), whitelist=self.whitelist, blacklist=self.blacklist,
        )
        return tan_structure(self.feature_tree_, class_name, root)


def _check_root(root: Hashable | None, features: list, class_name: Hashable) -> Hashable:
    if root is None:
        return features[0]
    if root == class_name:
        raise StructureError(
            f"the root must be a feature, not the class {class_name!r}: the class is already "
            f"the parent of every feature"
        )
    if root not in features:
        raise ColumnNotFoundError(f"root {root!r} is not a feature; the features are {features[:20]}")
    return root


class ChowLiuMultinet(BayesNetClassifier):
    """One Chow-Liu tree over the features per class, and Bayes' rule on top.

    ``p(c, x) = p(c) p_c(x)`` where ``p_c`` is the Chow-Liu tree (MI graph ->
    maximum spanning tree -> CPTs) learned from the rows of class ``c``, with the
    states of the whole training set (so a state unseen in one class still gets
    smoothed mass).

    Parameters
    ----------
    alpha, fit_prior, class_prior, unseen, prior, m : as in :class:`NaiveBayes`.
    root : the root of every class's tree; ``None`` uses the first feature column.

    Attributes
    ----------
    models_ : ``{class label: TreeModel}``, each tree over the features only.
    model_ : not available: the per-class trees generally disagree on edge
        directions, so their union is not one Bayesian network. Use
        ``models_[c]`` and ``class_log_prior_``. (Accessing ``model_`` raises an
        ``AttributeError`` that says so.)
    Other attributes as :class:`NaiveBayes`.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> clf = tl.ChowLiuMultinet().fit(df.drop(columns="either"), df["either"])
    >>> sorted(clf.models_)
    ['no', 'yes']
    """

    _method = "chow-liu-multinet"

    def __init__(
        self,
        alpha: float = 1.0,
        root: Hashable | None = None,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        prior: str = "lidstone",
        m: float = 1.0,
    ) -> None:
        self.alpha = alpha
        self.root = root
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.prior = prior
        self.m = m

    @property
    def model_(self) -> TreeModel:
        raise AttributeError(
            "a ChowLiuMultinet has one tree per class and no single network: use "
            "models_[label] (a TreeModel over the features) and class_log_prior_"
        )

    def _fit_counts(self, stats: ClassCounts) -> None:
        features = list(stats.columns[:-1])
        root = _check_root(self.root, features, stats.columns[-1])
        settings = self._cpt_settings(root=root)
        self.models_ = {
            label: chow_liu_from_counts(stats.within_class(c), settings,
                                        description=self._description(self._method))
            for c, label in enumerate(stats.class_labels())
        }

    # ------------------------------------------------------------ pictures, scores, sampling
    def draw(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw every class's tree side by side (one panel per class); returns the Figure.

        With ``ax`` (a sequence of Axes, one per class) the trees go there. Each
        panel is titled by its class; ``title="..."`` adds a line above them all
        (``title=True`` keeps the class titles only). Other keywords go to
        :func:`treelearn.viz._draw.draw` for every panel (see :func:`treelearn.viz._draw.draw_panels`).
        """
        check_is_fitted(self)
        from ..viz._draw import draw_panels

        title = kwargs.pop("title", None)
        labels = [python_scalar(c) for c in self.classes_]
        return draw_panels(
            [self.models_[label] for label in labels],
            [f"{self.class_name_} = {label}" for label in labels],
            ax,
            heading=title if isinstance(title, str) and title else None,
            **kwargs,
        )

    @property
    def n_parameters(self) -> int:
        """Free parameters: every class's tree, and the ``k - 1`` of the class prior."""
        check_is_fitted(self)
        return sum(m.n_parameters for m in self.models_.values()) + len(self.classes_) - 1

    def sample(
        self, n: int, random_state: int | np.random.Generator | None = None
    ) -> pd.DataFrame:
        """Draw ``n`` rows: the class from the prior, then the features from that class's tree.

        The columns are the features, then the class (``class_name_``); the rows
        come in random order.

        Examples
        --------
        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> clf = tl.ChowLiuMultinet().fit(df.drop(columns="either"), df["either"])
        >>> rows = clf.sample(20_000, random_state=0)
        >>> list(rows.columns) == [*clf.feature_names_in_, "either"]
        True
        >>> bool(abs((rows["either"] == "yes").mean() - np.exp(clf.class_log_prior_[1])) < 0.01)
        True
        """
        check_is_fitted(self)
        if not isinstance(n, (int, np.integer)) or n < 0:
            raise TreelearnError(f"n must be a non-negative integer, not {n!r}")
        rng = np.random.default_rng(random_state)
        counts = rng.multinomial(n, np.exp(self.class_log_prior_))
        parts = []
        for label, k in zip(self.classes_, counts):
            label = python_scalar(label)
            part = self.models_[label].sample(int(k), random_state=rng)
            part[self.class_name_] = label
            parts.append(part)
        rows = pd.concat(parts, ignore_index=True)
        return rows.iloc[rng.permutation(len(rows))].reset_index(drop=True)

    def _feature_states(self) -> list:
        states = next(iter(self.models_.values())).states
        return [states[f] for f in self.feature_names_in_]

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        out = np.empty((codes.shape[0], len(self.classes_)))
        for c, label in enumerate(self.classes_):
            model = self.models_[python_scalar(label)]
            out[:, c] = self.class_log_prior_[c] + model.log_likelihood_codes(codes)
        return out

    def _models(self) -> dict:
        return {"models": [self.models_[python_scalar(label)] for label in self.classes_]}

    def _restore_models(self, models: dict) -> None:
        self.models_ = dict(zip((python_scalar(c) for c in self.classes_), models["models"]))
