"""Naive Bayes on mixed data: categorical features with CPTs, numeric ones with Gaussians.

``log p(x, c) = log p(c) + sum_j log p(x_j | c)`` where a categorical feature's
factor is its smoothed CPT (the network ``model_``, as
:class:`~treelearn.NaiveBayes`) and a Gaussian feature's
``N(x_j; theta_cj, var_cj)`` (weighted maximum likelihood, as scikit-learn's
``GaussianNB``). Which features are Gaussian is decided by their dtype (integer and
float columns, less those ``categorical=[...]`` keeps as states: the rule of every
treelearn classifier, :func:`~treelearn.sources._value_class_counts.number_columns`) or
named (``numeric=[...]``), never by how often values repeat, so a cross-validation fold
never meets an "unseen" whole number. A missing cell of either kind is summed out.

It learns from two statistics, read by
:func:`~treelearn.sources._mixed.mixed_statistics_by_class` from a DataFrame, an
array, a CSV/Parquet path (``y`` its class column's name; read whole) or a Dask
DataFrame (``y`` a Dask Series; counted on the workers): the categorical features'
class counts and the Gaussian features' per-class means and variances.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from numbers import Real
from typing import Any, ClassVar, cast

import networkx as nx
import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .._base.errors import TreelearnError
from .._base.jsonvalues import encode_label, json_value
from .._base.persistence import SavedState
from .._base.validation import InstanceOf, Interval, Options
from ..encoding._table import python_scalar
from ..inference._shapley import independent_groups
from ..models._tree import TreeModel
from ..sources._mixed import MixedStatistics, mixed_statistics_by_class
from ..stats._class_gaussians import (
    VAR_PRIOR,
    class_gaussian_log_density,
    older_files_without_categorical,
    older_files_without_var_prior,
    smoothed_variances,
)
from ..stats._counts import ClassCounts
from ..structure._trees import star
from ._base import (
    CLASS_PRIOR,
    CPT_PRIOR,
    UNSEEN,
    BayesNetClassifier,
    TrainingData,
    Unseen,
    categorical_codes,
    network_dtypes,
    numeric_rows,
)
from ._class_arcs import CLASS_ARCS
from ._network import SingleNetworkClassifier
from ._number_choice import (
    NUMBERS,
    binned_features,
    choices_state,
    mixed_numbers,
    older_files_without_numbers,
    restored_choices,
)
from ._numbers import bin_numbers
from ._structure_view import DrawsStructure

__all__ = ["MixedNaiveBayes"]


class MixedNaiveBayes(DrawsStructure, SingleNetworkClassifier):
    """Naive Bayes over categorical and Gaussian features (mixed data).

    Parameters
    ----------
    alpha : float, default=1.0
        As in :class:`~treelearn.NaiveBayes` (``alpha`` smooths the categorical
        features' CPTs).
    fit_prior : bool, default=True
        As in :class:`~treelearn.NaiveBayes`.
    class_prior : array-like of float, default=None
        As in :class:`~treelearn.NaiveBayes`.
    unseen : {"error", "ignore"}, default="error"
        As in :class:`~treelearn.NaiveBayes`.
    var_prior : float, default=1.0
        The weight, in rows, of a conjugate prior on each class's variance of a
        Gaussian feature, centred on the feature's variance over the whole table (the
        classes pooled): the variance learned is ``(n s2 + var_prior s0^2) / (n +
        var_prior)``, ``n`` the class's (weighted) rows where the feature is observed,
        ``s2`` their maximum-likelihood variance, ``s0^2`` the whole table's. It is the
        scale of the posterior under a scaled-inverse-chi-squared prior with
        ``var_prior`` degrees of freedom and a flat prior on the mean (Gelman et al.,
        *Bayesian Data Analysis*, 3rd ed., 2013, section 3.3), so the means stay the class
        means. A class's few rows then cannot make its variance so small that a held-out
        row has probability 0 (default 1; 0 = maximum likelihood, scikit-learn's).
    var_smoothing : float, default=1e-09
        Added to every Gaussian variance as a fraction of the largest
        (weighted) variance of the Gaussian columns (scikit-learn's ``GaussianNB``
        rule, 1e-9; 0 = none), after the prior.
    numeric : sequence of hashable, default=None
        ``None`` (default): the columns of numbers, decided by dtype (integers and
        floats; not booleans, text, categories or dates) as every treelearn classifier
        decides its numbers, never by how often values repeat, so every
        cross-validation fold takes the same columns (less those ``categorical``
        names); or the names of the numeric columns (the others categorical). Each is
        a Gaussian or cut into bins as ``numbers`` says.
    categorical : sequence of hashable, default=None
        Columns of numbers kept as categorical states (zip codes, codes of categories),
        as the counting classifiers' ``categorical=``.
    class_arcs : {"average", "all"}, default="average"
        ``"average"``: each class arc averaged in or out (Dash and Cooper, 2002, for the
        fixed structure), as in :class:`~treelearn.NaiveBayes`; ``"all"``: the plain CPTs.
    arc_prior : float, default=0.5
        The prior probability of each arc from the class, as in :class:`~treelearn.NaiveBayes`.
    numbers : {"auto", "gaussian", "mdl"}, default="auto"
        How each numeric column is modelled: ``"gaussian"`` a Gaussian per class (the
        rule before this option), ``"mdl"`` cut into the counting classifiers'
        supervised MDL bins (Fayyad & Irani, IJCAI 1993) and counted as a categorical
        feature, ``"auto"`` whichever of the two gives the higher leave-one-out
        conditional log-likelihood of the class given the column alone on the training
        rows (Stone 1974; closed forms, ties Gaussian; a column's missing cells left
        out). A binned column takes raw
        numbers at prediction (cut by ``binner_``) and is explained as its bin. A Dask
        frame keeps every number Gaussian under ``"auto"``.

    Attributes
    ----------
    numeric_features_, categorical_features_ : the Gaussian and the categorical features
        (a binned column among the categorical ones).
    binned_features_ : the numeric columns cut into bins (``numbers``), in feature order.
    arc_posterior_ : ``(len(categorical_features_),)``, each categorical (or binned)
        feature's class-arc posterior, as :class:`~treelearn.NaiveBayes`'s (the Gaussian
        features always depend on the class).
    binner_ : the fitted :class:`~treelearn.Discretizer` of ``binned_features_`` (``None``:
        no column binned).
    number_choices_ : dict
        Per numeric column judged by ``numbers="auto"``/``"mdl"``, its two leave-one-out
        scores (``gaussian``, ``bins``: mean ``log P(class | column)`` per row, nats),
        ``n_bins`` and ``binned``.
    model_ : the network over the categorical features and the class (naive Bayes;
        the class alone without categorical features).
    theta_, var_ : per class (rows) and Gaussian feature (columns), the means and variances.
    classes_, class_name_, class_count_, class_log_prior_, n_features_in_, feature_names_in_
        As :class:`~treelearn.NaiveBayes`'s.

    Notes
    -----
    A 2-D numeric array is all Gaussian (scikit-learn's ``GaussianNB``); an integer
    array of category codes is categorical with ``categorical=`` naming its columns
    (``x0, x1, ...``; scikit-learn's ``CategoricalNB``).

    See Also
    --------
    NaiveBayes : every feature categorical.
    GaussianClassifier : every feature numeric.
    MixedTAN : a feature tree too.

    References
    ----------
    .. [1] John, G. H. and Langley, P. (1995). Estimating continuous distributions in
       Bayesian classifiers. In Proceedings of the 11th Conference on Uncertainty in
       Artificial Intelligence (UAI), 338-345.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.DataFrame({"temp": [36.5, 37.0, 39.1, 38.7, 36.8, 39.4],
    ...                    "cough": ["no", "no", "yes", "yes", "yes", "no"]})
    >>> clf = tl.MixedNaiveBayes().fit(df, ["well", "well", "ill", "ill", "well", "ill"])
    >>> clf.numeric_features_, clf.categorical_features_
    (['temp'], ['cough'])
    >>> clf.predict(pd.DataFrame({"temp": [39.0], "cough": ["yes"]})).tolist()
    ['ill']
    """

    _method = "mixed-naive-bayes"
    _where = "MixedNaiveBayes"
    #: drawn with its Gaussian features (model_ holds only the categorical ones)
    _picture_method = "mixed naive Bayes"
    #: a Gaussian feature's value is evidence on the class (a likelihood); no pgmpy or BIF
    #: form (discrete networks only), and no most probable completion of mixed variables
    capabilities: ClassVar[frozenset[str]] = frozenset(
        {
            "classify",
            "score",
            "query",
            "sample",
            "sample_given",
            "explain",
            "draw",
            "explorer",
        }
    )
    _parameter_constraints: ClassVar[dict] = {
        "alpha": CPT_PRIOR["alpha"],
        **CLASS_PRIOR,
        **UNSEEN,
        "var_smoothing": [Interval(Real, 0, None)],
        "var_prior": [Interval(Real, 0, None)],
        "numeric": [None, InstanceOf(list, tuple, name="a list of column names")],
        "categorical": [None, InstanceOf(list, tuple, name="a list of column names")],
        "numbers": [Options(*NUMBERS)],
        **CLASS_ARCS,
    }

    def __init__(
        self,
        alpha: float = 1.0,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        var_smoothing: float = 1e-9,
        numeric: Sequence[Hashable] | None = None,
        var_prior: float = VAR_PRIOR,
        categorical: Sequence[Hashable] | None = None,
        numbers: str = "auto",
        class_arcs: str = "average",
        arc_prior: float = 0.5,
    ) -> None:
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.var_smoothing = var_smoothing
        self.numeric = numeric
        self.categorical = categorical
        self.var_prior = var_prior
        self.numbers = numbers
        self.class_arcs = class_arcs
        self.arc_prior = arc_prior

    def _checked_params(self) -> dict:
        # the counting classifiers' numbers= ("states"/"mdl") is not this one's
        return BayesNetClassifier._checked_params(self)

    # ------------------------------------------------------------ the mixed input kind
    def _training_data(self, X: Any, y: Any, sample_weight: Any) -> TrainingData:
        params = self._checked_params()
        chosen = mixed_numbers(
            X,
            y,
            sample_weight,
            numbers=params["numbers"],
            numeric=self.numeric,
            categorical=self.categorical,
            alpha=params["alpha"],
            var_prior=params["var_prior"],
            var_smoothing=params["var_smoothing"],
            who=self._where,
        )
        self.binner_, self.number_choices_ = chosen.binner, chosen.choices
        stats = mixed_statistics_by_class(
            chosen.X,
            chosen.y,
            numeric=chosen.numeric,
            categorical=self.categorical,
            sample_weight=chosen.sample_weight,
            learner=self._where,
        )
        return TrainingData(
            stats.features,
            len(stats.features),
            stats.classes,
            stats.class_name,
            stats.class_count,
            stats,
        )

    # The hooks below take the mixed statistics and rows this class's _training_data and
    # _prediction_input make, not the categorical ones of the network base: mypy is right
    # that they narrow the base's types (an LSP break), which only the base's template
    # methods, fed by the same class, ever meet. A base generic in the hooks' statistics
    # and rows would type this; until then each override says so.
    def _learn(self, stats: MixedStatistics, params: dict) -> None:  # type: ignore[override]
        self.numeric_features_ = list(stats.numeric)
        wanted = set(stats.numeric)
        self.categorical_features_ = [f for f in self.feature_names_in_ if f not in wanted]
        self.binned_features_ = binned_features(self.binner_, self.feature_names_in_)
        if stats.counts is not None:
            super()._learn(stats.counts, params)
        else:  # only Gaussian features: the network is the class alone, with its prior
            graph = nx.DiGraph()
            graph.add_node(
                self.class_name_,
                states=tuple(python_scalar(c) for c in self.classes_),
                cpt=np.exp(self.class_log_prior_),
            )
            self.model_ = TreeModel(
                graph,
                variables=[self.class_name_],
                dtypes=network_dtypes({self.class_name_: stats.class_dtype}),
                n_rows=float(stats.class_count.sum()),  # the Gaussian features' weights
                settings=self._network_description(params),
            )
            self.arc_posterior_ = np.ones(0)  # no feature in the network: no class arc
            self._build_engine()
        if stats.variances is None:
            k = len(self.classes_)
            self.theta_, self.var_ = np.zeros((k, 0)), np.zeros((k, 0))
        else:
            self.theta_, self.var_ = smoothed_variances(
                stats.variances, params["var_smoothing"], params["var_prior"]
            )

    def _structure(self, stats: ClassCounts, params: dict) -> nx.DiGraph:
        return star(stats.columns[-1], stats.columns[:-1])

    def _network_features(self) -> list:
        return list(self.categorical_features_)

    def _feature_states(self) -> list:
        states = self.model_.states
        return [states[f] for f in self.categorical_features_]

    def _prediction_input(self, X: Any) -> tuple:  # type: ignore[override]
        frame = self._matched_frame(X)
        if self.binner_ is not None:  # raw numbers of the binned features: their bins
            frame = bin_numbers(self.binner_, frame, None)
        cats = self.categorical_features_
        codes = (
            categorical_codes(frame, cats, self._feature_states(), self.unseen)
            if cats
            else np.empty((len(frame), 0), dtype=np.intp)
        )
        values = (
            numeric_rows(frame[self.numeric_features_], self._where, missing=True)
            if self.numeric_features_
            else np.empty((len(frame), 0))
        )
        return codes, values

    def _mask_rows(self, rows: tuple, keep: np.ndarray, other: tuple | None) -> tuple:
        """The explained rows with the features outside ``keep`` missing (or from ``other``):
        the categorical codes and the Gaussian values, each by its features' columns."""
        codes, values = rows
        where = {f: j for j, f in enumerate(self.feature_names_in_)}
        cat = [where[f] for f in self.categorical_features_]
        num = [where[f] for f in self.numeric_features_]
        return (
            np.where(keep[:, cat], codes, -1 if other is None else other[0]),
            np.where(keep[:, num], values, np.nan if other is None else other[1]),
        )

    def _feature_groups(self) -> list:
        """The network's groups of categorical features, and each Gaussian feature alone
        (independent of everything given the class)."""
        where = {f: j for j, f in enumerate(self.feature_names_in_)}
        model = self.model_
        groups = independent_groups(
            model.parent_map, model.variables, self.class_name_, self.categorical_features_
        )
        cats = [[where[self.categorical_features_[i]] for i in g] for g in groups]
        return cats + [[where[f]] for f in self.numeric_features_]

    def _joint_log_likelihood(self, rows: tuple) -> np.ndarray:  # type: ignore[override]
        """The categorical network's term plus ``sum_j log N(x_j; theta_cj, var_cj)`` over
        the observed Gaussian cells."""
        codes, values = rows
        if self.categorical_features_:
            jll = super()._joint_log_likelihood(codes)
        else:
            jll = np.tile(self.class_log_prior_, (len(values), 1))
        with np.errstate(over="ignore"):  # far out: -inf, the base's posterior copes
            return jll + class_gaussian_log_density(values, self.theta_, self.var_)

    # ------------------------------------------------------------ sizes, sampling, export
    @property
    def n_parameters(self) -> int:
        """Free parameters: the network's, and two per class and Gaussian feature."""
        check_is_fitted(self)
        return self.model_.n_parameters + 2 * len(self.classes_) * len(self.numeric_features_)

    def _network_evidence(self, evidence: Mapping[Hashable, Any] | None) -> tuple[dict, dict]:
        """``(evidence on the network, the Gaussian features' given values)``: the values of
        Gaussian features are one likelihood on the class, ``prod_j N(x_j; theta_cj,
        var_cj)`` (they are the class's children and nothing else's), scaled to a maximum of
        1; a class given a state needs no likelihood."""
        self._require_fitted()
        given = dict(evidence or {})
        binned = self._binned_evidence(given)
        numbers = {f: given.pop(f) for f in list(given) if f in set(self.numeric_features_)}
        if not numbers:
            return given, binned
        row = np.full((1, len(self.numeric_features_)), np.nan)
        for f, value in numbers.items():
            # text spelling a number (the command line's)
            numbers[f] = evidence_number(f, value, "a Gaussian feature, its evidence a number")
            row[0, self.numeric_features_.index(f)] = numbers[f]
        if not np.isfinite(row[~np.isnan(row)]).all():
            raise TreelearnError(f"the Gaussian evidence {numbers} must be finite numbers")
        if self.class_name_ not in given:
            log_l = class_gaussian_log_density(row, self.theta_, self.var_)[0]
            given[self.class_name_] = np.exp(log_l - log_l.max())
        return given, {**numbers, **binned}

    def _binned_evidence(self, given: dict) -> dict:
        """A binned feature given a number (or text spelling one): ``given`` holds its bin
        instead (a bin's label stays as it is); returns the numbers given."""
        cut = [f for f in getattr(self, "binned_features_", []) if f in given]
        numbers = {}
        for f in cut:
            value = given[f]
            if value in set(self.model_.states[f]):
                continue
            number = evidence_number(
                f,
                value,
                f"a binned feature, its evidence a number or one of its bins "
                f"{list(self.model_.states[f])[:5]}",
            )
            frame = pd.DataFrame({c: [number if c == f else np.nan] for c in self.binner_.edges_})
            given[f] = python_scalar(self.binner_.transform(frame)[f].iloc[0])
            numbers[f] = number
        return numbers

    def query(
        self,
        variables: Sequence[Hashable] | Hashable,
        evidence: Mapping[Hashable, Any] | None = None,
    ) -> pd.Series:
        """Exact ``P(variables | evidence)`` of categorical features and the class; the
        evidence may give Gaussian features their values (each a likelihood on the class).

        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.DataFrame({"temp": [36.5, 37.0, 39.1, 38.7, 36.8, 39.4],
        ...                    "cough": ["no", "no", "yes", "yes", "yes", "no"]})
        >>> clf = tl.MixedNaiveBayes().fit(df, ["well", "well", "ill", "ill", "well", "ill"])
        >>> row = pd.DataFrame({"temp": [39.0], "cough": ["yes"]})
        >>> bool(np.allclose(clf.query(clf.class_name_, {"temp": 39.0, "cough": "yes"}),
        ...                  clf.predict_proba(row)[0]))
        True
        """
        names = (
            [variables] if isinstance(variables, (str, int)) else list(cast(Sequence, variables))
        )
        gaussian = [v for v in names if v in set(self.numeric_features_)]
        if gaussian:
            raise TreelearnError(
                f"{gaussian[0]!r} is a Gaussian feature: its posterior (a mixture over the "
                f"classes) is not computed here; query the class or the categorical features",
                column=gaussian[0],
            )
        given, _ = self._network_evidence(evidence)
        return self.model_.query(names, given)

    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
    ) -> pd.DataFrame:
        """Draw ``n`` rows (the features, then the class); Gaussian features from their
        class's Gaussian. With ``evidence`` exactly from ``P(. | evidence)``: the network
        (the class given the Gaussian features' values as a likelihood), then each Gaussian
        feature not given from its class's Gaussian; ``numbers`` as in
        :meth:`TreeModel.sample <treelearn.TreeModel.sample>`."""
        check_is_fitted(self)
        given, values = self._network_evidence(evidence)
        rng = np.random.default_rng(random_state)
        rows = self.model_.sample(n, random_state=rng, evidence=given or None, numbers=numbers)
        index = {python_scalar(c): i for i, c in enumerate(self.classes_)}
        codes = np.array([index[python_scalar(v)] for v in rows[self.class_name_]], dtype=np.intp)
        draws = rng.normal(self.theta_[codes], np.sqrt(self.var_[codes]))
        for j, name in enumerate(self.numeric_features_):
            rows[name] = values[name] if name in values else draws[:, j]
        for name in getattr(self, "binned_features_", []):
            if name in values:  # a binned feature given a number: that number, in its bin
                rows[name] = values[name]
        return rows[[*self.feature_names_in_, self.class_name_]]

    def _explain_game(self, rows: tuple, background: tuple | None) -> Any:  # type: ignore[override]
        if not self.numeric_features_:  # every feature in the network: its own game
            return super()._explain_game(rows[0], None if background is None else background[0])
        return super()._explain_game(rows, background)  # type: ignore[arg-type]

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`): without Gaussian features,
        its network's. With them, a CLG tree's: the class the discrete root of the
        network ``model_`` (the categorical features its children), each Gaussian feature
        a number hanging from the class by one Gaussian per class (``theta_``, ``var_``),
        so the numbers' density per class is a likelihood of the class and an unobserved
        Gaussian feature's posterior the mixture of its class Gaussians."""
        if not self.numeric_features_:
            return super().explorer_spec(title)
        from ..viz._page_spec import (
            class_spec,
            forest,
            information,
            mixture_range,
            require_fitted,
            title_of,
        )

        require_fitted(self)
        self._require_fitted()  # a partial_fit call after the first: learn its counts now
        model, cls = self.model_, self.class_name_
        features, numeric = list(self.feature_names_in_), list(self.numeric_features_)
        d = len(features)
        states = model.states
        prior = np.asarray(model.cpt(cls), dtype=float).reshape(-1)
        tables = [None if f in numeric else np.asarray(model.cpt(f), dtype=float) for f in features]
        n_num = len(numeric)
        n_bin = len(self.binned_features_)
        binned = f" ({n_bin} of them MDL bins of numbers)" if n_bin else ""
        parts = [
            f"{d - n_num} categorical{binned}, {n_num} Gaussian feature{'' if n_num == 1 else 's'}"
        ]
        if title is None:
            title = title_of(type(self).__name__, parts, float(np.sum(self.class_count_)))
        spec = class_spec(
            features,
            [[] if f in numeric else states[f] for f in features],
            cls,
            states[cls],
            prior,
            tables,
            title,
            strength=[None if t is None else information(prior[:, None] * t) for t in tables],
        )
        theta, var = np.asarray(self.theta_, dtype=float), np.asarray(self.var_, dtype=float)
        gauss: list = [None] * (d + 1)
        for j, f in enumerate(numeric):
            i = features.index(f)
            gauss[i] = {"parent": d, "means": theta[:, j].tolist(), "vars": var[:, j].tolist()}
            spec["variables"][i]["range"] = mixture_range(prior, theta[:, j], var[:, j])
        index = {v: i for i, v in enumerate([*features, cls])}
        return {
            **spec,
            "order": [index[v] for v in [*features, cls] if v not in numeric],
            "components": [{**forest(model, index), "weight": 1.0}],
            "gauss": gauss,
            "panel": False,
            "map": False,
        }

    def to_pgmpy(self) -> Any:
        """The fitted network as a pgmpy ``DiscreteBayesianNetwork`` (categorical features only).

        Raises :class:`~treelearn.TreelearnError` for Gaussian features: pgmpy has
        no network mixing discrete and linear-Gaussian variables.
        """
        check_is_fitted(self)
        if self.numeric_features_:
            raise TreelearnError(
                f"pgmpy cannot hold this classifier: the Gaussian features "
                f"{self.numeric_features_[:5]} are not categorical variables and pgmpy has no "
                "hybrid discrete/Gaussian network; discretize them (tl.discretize) and fit "
                "tl.NaiveBayes to export"
            )
        return self.model_.to_pgmpy()

    # ------------------------------------------------------------ saving
    @classmethod
    def _check_saved_params(cls, saved: SavedState, est: Any) -> None:
        older_files_without_var_prior(saved, est)
        older_files_without_categorical(saved, est)
        older_files_without_numbers(saved, est)
        super()._check_saved_params(saved, est)

    def _fitted_state(self) -> dict:
        return {
            **super()._fitted_state(),
            **choices_state(self.number_choices_),
            "numeric_features": [encode_label(f) for f in self.numeric_features_],
            "theta": json_value(self.theta_),
            "var": json_value(self.var_),
        }

    def _restore_model(self, saved: SavedState) -> None:
        numeric = saved.labels("numeric_features")
        features = list(self.feature_names_in_)
        if any(f not in features for f in numeric):
            raise saved.fail("numeric_features", "names columns that are not features")
        wanted = set(numeric)
        self.numeric_features_ = [f for f in features if f in wanted]
        if self.numeric_features_ != numeric:
            raise saved.fail("numeric_features", "are not in the features' order")
        self.categorical_features_ = [f for f in features if f not in wanted]
        k, d = len(self.classes_), len(numeric)
        self.theta_ = saved.array("theta", (k, d))
        self.var_ = saved.array("var", (k, d), positive=True)
        self.number_choices_ = restored_choices(saved, features)
        super()._restore_model(saved)

    def _restore_fitted(self, saved: SavedState) -> None:
        super()._restore_fitted(saved)  # the model, then the bins (binner_)
        self.binned_features_ = binned_features(self.binner_, self.feature_names_in_)
        if not set(self.binned_features_) <= set(self.categorical_features_):
            raise saved.fail("numeric_bins", "must cut categorical features only")


def evidence_number(feature: Hashable, value: Any, what: str) -> float:
    """``value`` given as evidence of a feature read as a number (a float, or text spelling
    one, as the command line gives it); else the error saying the feature is ``what``."""
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TreelearnError(
            f"evidence {feature!r} == {value!r:.60}: {feature!r} is {what}",
            column=feature,
            values=[value],
        ) from None
