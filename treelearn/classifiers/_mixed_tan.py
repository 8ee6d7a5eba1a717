"""Tree-augmented naive Bayes on mixed data: :class:`MixedTAN`.

The class is the parent of every feature, and the features form one tree that is a
valid CLG network given the class: a categorical feature's feature parent is
categorical; a Gaussian feature's is either (one Gaussian per class and parent state, or
a per-class regression on a Gaussian parent). So the model is a multinet of CLG trees
with one shared structure: ``log p(x, c) = log p(c) + log p_c(x)``, ``p_c`` the
:class:`~treelearn.CLGTreeModel` of class ``c`` (its parameters from the class's rows),
and a missing cell of either kind is summed out exactly by it.

The tree is the best CLG-valid spanning tree
(:func:`~treelearn.structure._clg_trees.clg_skeleton`) of the conditional mutual
information ``I(X; Y | C) = sum_c p(c) I_c(X; Y)``, each ``I_c`` the exact per-pair-kind
weight of :mod:`treelearn.stats._mixed_pairs` on the class's rows: the class-conditional
log-likelihood gain of each edge, as Friedman, Geiger & Goldszmidt's TAN. Which features
are Gaussian is decided as in :class:`~treelearn.MixedNaiveBayes` (integer and float
columns by dtype less ``categorical=``, or ``numeric=``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from numbers import Real
from typing import Any, ClassVar

import networkx as nx
import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .._base.errors import ColumnNotFoundError, StructureError, TreelearnError
from .._base.jsonvalues import encode_label
from .._base.persistence import SavedState
from .._base.validation import InstanceOf, Interval, Options
from ..encoding._table import Table, check_sample_weight, encode, python_scalar
from ..learners._chow_liu import build_model
from ..learners._clg_tree import clg_model
from ..models._clg import CLGTreeModel
from ..models._tree import states_text
from ..sources._gaussian import REFUSALS
from ..sources._kinds import as_frame, by_kind, kind_of
from ..sources._mixed import mixed_statistics_by_class, mixed_table
from ..stats._class_gaussians import (
    VAR_PRIOR,
    older_files_without_categorical,
    older_files_without_var_prior,
    shrunk_mean,
)
from ..stats._counts import CountedTable
from ..stats._settings import LearningSettings
from ..structure._clg_trees import MixedTableStatistics, clg_skeleton
from ..structure._trees import orient
from ._base import CLASS_PRIOR, CPT_PRIOR, BayesNetClassifier, TrainingData
from ._gaussian_tan import feature_tree_lines
from ._number_choice import (
    NUMBERS,
    binned_features,
    choices_state,
    mixed_numbers,
    older_files_without_numbers,
    restored_choices,
)
from ._numbers import bin_numbers, restored_binner
from ._structure_view import DrawsStructure, binned_kinds

__all__ = ["MixedTAN"]


class MixedTAN(DrawsStructure, BayesNetClassifier):
    """TAN over categorical and Gaussian features: a class-conditional CLG feature tree.

    Parameters
    ----------
    alpha : float, default=1.0
        Lidstone pseudocount of the categorical features' CPTs (1 = Laplace).
    fit_prior : bool, default=True
        The class prior, as :class:`~treelearn.NaiveBayes`'s.
    class_prior : array-like of float, default=None
        The class prior, as :class:`~treelearn.NaiveBayes`'s.
    var_prior : float, default=1.0
        The weight, in rows, of a conjugate prior on every class's variance of a
        Gaussian feature (per parent state under a categorical parent, the residual
        variance under a Gaussian one), centred on the same variance learned from the
        whole table (the classes pooled, the same tree): ``(n s2 + var_prior s0^2) / (n +
        var_prior)``, ``n`` the (weighted) rows the variance ``s2`` is learned from. It
        is the posterior scale of a scaled-inverse-chi-squared prior with ``var_prior``
        degrees of freedom and a flat prior on the means (Gelman et al., *Bayesian Data
        Analysis*, 3rd ed., 2013, section 3.3). A parent state seen once in a class then
        gets no variance near 0, so no held-out row has probability exactly 0 (default 1;
        0 = maximum likelihood).
    mean_prior : float, default=0.0
        The weight, in rows, of a conjugate normal prior on every class's mean of
        a Gaussian feature (a root's, and each parent state's under a categorical parent;
        a regression on a Gaussian parent is left as learned), centred on the same mean
        learned from the whole table: ``(n m + mean_prior m0) / (n + mean_prior)``, the
        variance growing by ``n mean_prior / (n + mean_prior) (m - m0)^2 / (n +
        var_prior)``: the posterior mean and scale of the normal-inverse-gamma prior
        (Gelman et al., section 3.3), used as plug-in values. 0 means no mean prior:
        on MASS::survey ``mean_prior=1`` moves the 5-fold accuracy 0.763 -> 0.767 (the
        majority is 0.801), see the tests.
    var_smoothing : float, default=1e-09
        Added to every Gaussian variance as a fraction of the largest
        (weighted) variance of the Gaussian columns (``GaussianNB``'s rule, 1e-9), after
        the prior.
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
    root : hashable, default=None
        The feature at the root of the tree (default: the first categorical feature;
        a Gaussian root only when every feature is Gaussian).
    numbers : {"auto", "gaussian", "mdl"}, default="auto"
        How each numeric column is modelled, as :class:`~treelearn.MixedNaiveBayes`'s:
        ``"gaussian"`` a Gaussian feature of the CLG trees (the rule before this
        option), ``"mdl"`` cut into supervised MDL bins (Fayyad & Irani, IJCAI 1993) and
        a categorical feature of the tree, ``"auto"`` the forms that predict the class
        best in the feature tree: the tree is learned with every number Gaussian, each
        family (a numeric column and its tree parent) is scored by the leave-one-out
        conditional log-likelihood of the class given the family for each pair of forms
        (Stone 1974; Gaussian: the CLG family, per parent state or a line on a Gaussian
        parent; binned: a Lidstone CPT given the parent's state or bin; this classifier's
        ``alpha``, ``var_prior`` and ``var_smoothing``; closed forms), the forms with the
        highest sum over the tree are taken (exact dynamic programming, ties Gaussian; a
        binned column under a Gaussian parent scored given the class alone, since the
        CLG tree cannot keep that edge), and the tree is learned again on them
        (the reasons and the measurements: ``treelearn/classifiers/_tree_number_choice.py``).
        A number that tells the class only with its neighbour (the class in ``z
        - x``) keeps its Gaussian, where judged alone (as
        :class:`~treelearn.MixedNaiveBayes` judges, having no feature arcs) it would be
        one bin. A binned column takes raw numbers at prediction (cut by ``binner_``) and
        is explained as its bin.

    Attributes
    ----------
    numeric_features_, categorical_features_ : the Gaussian and the categorical features
        (a binned column among the categorical ones).
    binned_features_, binner_, number_choices_ : the numeric columns cut into bins, their
        fitted :class:`~treelearn.Discretizer` (``None``: none) and each judged column's
        two scores (under ``"auto"``: the best sum of the family scores with the column
        Gaussian and with it binned, nats a row).
    feature_tree_ : the oriented feature tree (edge ``weight`` = the conditional MI, nats).
    models_ : one :class:`~treelearn.CLGTreeModel` per class (``classes_`` order), the
        features' distribution given that class.
    classes_, class_name_, class_count_, class_log_prior_, n_features_in_, feature_names_in_
        As :class:`~treelearn.NaiveBayes`'s.

    See Also
    --------
    MixedNaiveBayes : no feature tree.
    GaussianTAN : every feature numeric.
    CLGTree : the unsupervised CLG tree.

    References
    ----------
    .. [1] Pérez, A., Larrañaga, P. and Inza, I. (2006). Supervised classification with
       conditional Gaussian networks: increasing the structure complexity from naive
       Bayes. International Journal of Approximate Reasoning 43(1), 1-25.
    .. [2] Lauritzen, S. L. and Wermuth, N. (1989). Graphical models for associations
       between variables, some of which are qualitative and some quantitative. The Annals
       of Statistics 17(1), 31-57.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 400)
    >>> g = rng.integers(0, 3, 400)
    >>> x = rng.normal(g, 1.0)  # x alone says nothing of the class ...
    >>> X = pd.DataFrame({"g": g, "x": x, "z": x + rng.normal(0.5 * y, 0.3)})  # ... z - x does
    >>> clf = tl.MixedTAN(categorical=["g"]).fit(X, y)  # g: integer codes of states
    >>> clf.numeric_features_, sorted(clf.feature_tree_.edges())
    (['x', 'z'], [('g', 'x'), ('x', 'z')])

    ``numbers="auto"`` kept ``x`` Gaussian: ``z``'s family, a line on ``x`` in each
    class, tells the class. Judged alone (naive Bayes) ``x`` is cut into one bin:

    >>> tl.MixedNaiveBayes(categorical=["g"]).fit(X, y).binned_features_
    ['x']
    """

    _where = "a mixed TAN"
    _picture_method = "mixed TAN"
    #: the classes' CLG trees: rows drawn, and the explorer's sliders; the picture is the
    #: class over the feature tree (``classifiers/_structure_view.py``)
    capabilities: ClassVar[frozenset[str]] = frozenset(
        {"classify", "score", "explain", "sample", "explorer", "draw"}
    )
    _parameter_constraints: ClassVar[dict] = {
        "alpha": CPT_PRIOR["alpha"],
        **CLASS_PRIOR,
        "var_smoothing": [Interval(Real, 0, None)],
        "numeric": [None, InstanceOf(list, tuple, name="a list of column names")],
        "categorical": [None, InstanceOf(list, tuple, name="a list of column names")],
        "root": [None, InstanceOf(object, name="a feature name")],
        "var_prior": [Interval(Real, 0, None)],
        "mean_prior": [Interval(Real, 0, None)],
        "numbers": [Options(*NUMBERS)],
    }

    def __init__(
        self,
        alpha: float = 1.0,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        var_smoothing: float = 1e-9,
        numeric: Sequence[Hashable] | None = None,
        root: Hashable | None = None,
        var_prior: float = VAR_PRIOR,
        mean_prior: float = 0.0,
        categorical: Sequence[Hashable] | None = None,
        numbers: str = "auto",
    ) -> None:
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.var_smoothing = var_smoothing
        self.numeric = numeric
        self.categorical = categorical
        self.root = root
        self.var_prior = var_prior
        self.mean_prior = mean_prior
        self.numbers = numbers

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    # ------------------------------------------------------------ fitting
    def _training_data(self, X: Any, y: Any, sample_weight: Any) -> TrainingData:
        self.binner_, self.number_choices_ = None, {}
        numeric, gaussian_tree = self.numeric, None
        if kind_of(X, learner=self._where).name in ("frame", "array"):
            params = self._checked_params()
            gaussian_tree = self._gaussian_tree(X, y, sample_weight, params)
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
                tree=gaussian_tree,
            )
            X, numeric = chosen.X, chosen.numeric
            self.binner_, self.number_choices_ = chosen.binner, chosen.choices
        header = mixed_statistics_by_class(
            X,
            y,
            numeric=numeric,
            categorical=self.categorical,
            sample_weight=sample_weight,
            learner=self._where,
        )
        frame = by_kind(
            X,
            {"frame": lambda f: f, "array": lambda a: as_frame(a, learner=self._where)},
            learner=self._where,
            refusals=REFUSALS,
        )[header.features]
        labels = pd.Series(np.asarray(y).ravel() if not isinstance(y, pd.Series) else y.to_numpy())
        weights = check_sample_weight(sample_weight, len(frame))
        keep = np.ones(len(frame), dtype=bool) if weights is None else weights > 0
        which = pd.Index(header.classes).get_indexer(labels[keep])
        frame = frame.iloc[np.flatnonzero(keep)]
        weights = None if weights is None else weights[keep]
        states = None
        if header.counts is not None:
            states = dict(zip(header.counts.columns[:-1], header.counts.states[:-1]))
        full = (
            mixed_table(
                frame, header.numeric, missing="pairwise", states=states, sample_weight=weights
            )
            if header.numeric
            else None
        )
        return TrainingData(
            header.features,
            len(header.features),
            header.classes,
            header.class_name,
            header.class_count,
            (header, frame, which, weights, full),
        )

    def _gaussian_tree(self, X: Any, y: Any, sample_weight: Any, params: dict) -> Any:
        """Under ``numbers="auto"``: the oriented feature tree learned with every number
        Gaussian (the forms are chosen in it,
        :mod:`~treelearn.classifiers._tree_number_choice`); ``None`` (each column judged
        alone) for the other options, or when that tree cannot be
        learned (a number constant in a class with ``var_smoothing=0``, a Gaussian
        ``root`` above categories: the bins may still make the table learnable)."""
        if params["numbers"] != "auto":
            return None
        gaussian = type(self)(**{**self.get_params(), "numbers": "gaussian"})
        try:
            gaussian.fit(X, y, sample_weight=sample_weight)
        except TreelearnError:
            return None
        return gaussian.feature_tree_

    def _learn(self, data: tuple, params: dict) -> None:
        header, frame, which, weights, full = data
        features = list(self.feature_names_in_)
        numeric = list(header.numeric)
        self.numeric_features_ = numeric
        self.categorical_features_ = [f for f in features if f not in set(numeric)]
        self.binned_features_ = binned_features(self.binner_, features)
        if full is None:  # no Gaussian feature: the categorical columns alone
            full = _categorical_only(frame, header, weights)
        per_class = [_class_statistics(full, which == c) for c in range(len(self.classes_))]
        share = self.class_count_ / self.class_count_.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            cmi = sum(share[c] * s.mutual_information(None) for c, s in enumerate(per_class))
        cmi = np.nan_to_num(cmi, nan=0.0, posinf=1e300)  # a column constant in a class
        discrete = full.is_discrete
        tree = clg_skeleton(features, cmi, discrete, full.states, n=float(self.class_count_.sum()))
        root = params["root"]
        if root is not None:
            if root not in features:
                raise ColumnNotFoundError(
                    f"root {root!r} is not a feature; the features are {features[:20]}", column=root
                )
            if root in set(numeric) and self.categorical_features_:
                raise StructureError(
                    f"root {root!r} is Gaussian, but the tree holds categorical features "
                    f"{self.categorical_features_[:5]}: a categorical feature never has a "
                    f"Gaussian parent, so the root must be categorical (e.g. "
                    f"root={self.categorical_features_[0]!r}), or leave root=None"
                )
        self.feature_tree_ = orient(tree, root)
        self.models_ = self._class_models(full, per_class, numeric, params)

    def _class_models(
        self, full: MixedTableStatistics, per_class: list, numeric: list, params: dict
    ) -> list:
        """Every class's CLG tree over ``feature_tree_`` (the variance prior centred on the
        classes pooled, then the mean prior)."""
        oriented = self.feature_tree_
        epsilon = 0.0
        if numeric:
            epsilon = params["var_smoothing"] * float(full.pairs.column_variance().max())
        settings = LearningSettings(method="mixed-tan", alpha=params["alpha"])
        prior, pooled = None, None
        if numeric and (params["var_prior"] or params["mean_prior"]):
            pooled = clg_model(full, oriented, settings, build_model)  # the classes pooled
            if params["var_prior"]:  # centred on the classes pooled, the same tree
                prior = (float(params["var_prior"]), pooled.graph)
        models = []
        for c, stats in enumerate(per_class):
            try:
                models.append(
                    clg_model(
                        stats,
                        oriented,
                        settings,
                        build_model,
                        epsilon=epsilon,
                        variance_prior=prior,
                    )
                )
            except TreelearnError as exc:
                raise TreelearnError(
                    f"class {python_scalar(self.classes_[c])!r}: {exc} (a Gaussian feature "
                    f"constant or unobserved in the class; var_smoothing > 0 gives it a "
                    f"variance)"
                ) from None
        if pooled is not None and params["mean_prior"]:
            models = [
                _shrink_means(
                    model, stats, pooled, float(params["mean_prior"]), float(params["var_prior"])
                )
                for stats, model in zip(per_class, models)
            ]
        return models

    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then the feature tree shared by the classes' CLG trees: each
        feature categorical (its states) or Gaussian, the class-conditional mixed MI (nats)
        on each edge."""
        yield from super()._text_lines(digits)
        yield (
            "the feature tree of every class's CLG tree (a Gaussian feature's mean and "
            "variance depend on the class and its parent; the class-conditional MI on each edge):"
        )
        numeric = set(self.numeric_features_)
        states = self.models_[0].states
        binned = binned_kinds(self)

        def describe(v: Hashable) -> str:
            if v in binned:
                return f"{v} ({binned[v]})"
            return f"{v} (Gaussian)" if v in numeric else f"{v} ({states_text(len(states[v]))})"

        yield from feature_tree_lines(self.feature_tree_, self.feature_tree_, digits, describe)

    @property
    def n_parameters(self) -> int:
        """The class prior's ``k - 1`` and every class's CLG tree's parameters."""
        check_is_fitted(self)
        return len(self.classes_) - 1 + sum(m.n_parameters for m in self.models_)

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`): a multinet of CLG trees
        (one per class, one shared structure): the class is the conditioner, one forest per
        class weighted by its prior, each with its own CPTs and Gaussians, so a number's
        posterior is the mixture over the classes (then its attachment's states). Drawn:
        the class above the feature tree. No side panel and no MAP."""
        from ..viz._page_spec import (
            class_spec,
            forest,
            label,
            mixture_range,
            multinet_table,
            regressions,
            require_fitted,
            title_of,
        )

        require_fitted(self)
        self._require_fitted()  # a partial_fit call after the first: learn its counts now
        cls, features = self.class_name_, list(self.feature_names_in_)
        numeric = list(self.numeric_features_)
        d = len(features)
        index = {v: i for i, v in enumerate([*features, cls])}
        models = list(self.models_)
        parent = {v: (models[0].parents(v) or [None])[0] for v in features}
        states = {v: [] if v in numeric else models[0].states[v] for v in features}
        prior = np.exp(np.asarray(self.class_log_prior_, dtype=float))
        prior = prior / prior.sum()
        n_num = len(numeric)
        n_bin = len(self.binned_features_)
        binned = f" ({n_bin} of them MDL bins of numbers)" if n_bin else ""
        parts = [
            f"{d - n_num} categorical{binned}, {n_num} Gaussian feature{'' if n_num == 1 else 's'}"
        ]
        if title is None:
            head = "MixedTAN: a CLG tree per class"
            title = title_of(head, parts, float(np.sum(self.class_count_)))
        spec = class_spec(
            features,
            [states[f] for f in features],
            cls,
            self.classes_,
            prior,
            [None] * d,
            title,
            parent=[index[parent[f]] if parent[f] is not None else -1 for f in features],
        )
        per_class = dict(zip(self.classes_, [m.discrete_model for m in models]))
        labels = {v: [label(s) for s in st] for v, st in states.items()}
        components = []
        for c, m in enumerate(models):
            if m.discrete_model is not None:
                part = forest(m.discrete_model, index)
            else:
                part = {"parent": [-1] * (d + 1), "cpt": [None] * (d + 1)}
            gauss = regressions(m, index, parent, numeric)
            components.append({**part, "weight": float(prior[c]), "gauss": gauss})
        for v in features:
            if v in numeric:  # the slider: the prior mixture over every class's query
                qs = [m.query(v, {}) for m in models]
                spec["variables"][index[v]]["range"] = mixture_range(
                    np.concatenate([p * np.asarray(q.weights) for p, q in zip(prior, qs)]),
                    np.concatenate([q.means for q in qs]),
                    np.concatenate([q.variances for q in qs]),
                )
            else:
                spec["variables"][index[v]]["cpt"] = multinet_table(per_class, cls, v, labels)
        return {
            **spec,
            "cond": index[cls],
            "order": [index[v] for v in [*features, cls] if v not in numeric],
            "components": components,
            "gauss": components[0]["gauss"],  # the structure, the same in every class
            "panel": False,
            "map": False,
        }

    # ------------------------------------------------------------ prediction
    def _sums_out(self) -> bool:
        return True

    def _prediction_input(self, X: Any) -> pd.DataFrame:
        frame = self._matched_frame(X)
        if self.binner_ is not None:  # raw numbers of the binned features: their bins
            frame = bin_numbers(self.binner_, frame, None)
        return frame

    def _joint_log_likelihood(self, rows: pd.DataFrame) -> np.ndarray:
        """``log p(c) + log p_c(x_observed)`` for every class (missing cells summed out)."""
        if len(rows) == 0:
            return np.zeros((0, len(self.classes_)))
        with np.errstate(over="ignore", divide="ignore"):
            return np.column_stack(
                [
                    prior + m.score_samples(rows)
                    for prior, m in zip(self.class_log_prior_, self.models_)
                ]
            )

    @staticmethod
    def _take_rows(rows: Any, index: np.ndarray) -> Any:
        return rows.iloc[index]

    def _mask_rows(self, rows: Any, keep: np.ndarray, other: Any) -> Any:
        """The rows with the features outside ``keep`` missing (or from ``other``)."""
        out = rows.astype(object).where(keep, None if other is None else other.to_numpy())
        # a number column goes back to numbers: floats as they were, and whole numbers the
        # model reads as numbers (Gaussian or cut into bins) as floats, since a masked cell
        # is NaN (as objects, the Gaussian part would refuse the column as not numeric)
        numbers = {*self.numeric_features_, *self.binned_features_}
        return out.astype(
            {
                c: rows[c].dtype if rows[c].dtype.kind == "f" else float
                for c in rows.columns
                if rows[c].dtype.kind == "f" or (rows[c].dtype.kind in "iu" and c in numbers)
            }
        )

    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        numbers: bool = False,
    ) -> pd.DataFrame:
        """Draw ``n`` rows: a class from the prior, then the features from its CLG tree
        (``numbers``: binned categorical features as numbers, :meth:`CLGTreeModel.sample
        <treelearn.CLGTreeModel.sample>`)."""
        check_is_fitted(self)
        rng = np.random.default_rng(random_state)
        prior = np.exp(self.class_log_prior_)
        drawn = rng.choice(len(self.classes_), size=n, p=prior / prior.sum())
        parts, order = [], []
        for c, model in enumerate(self.models_):
            rows = np.flatnonzero(drawn == c)
            part = model.sample(len(rows), random_state=rng, numbers=numbers)
            part[self.class_name_] = np.repeat(self.classes_[c : c + 1], len(rows))
            parts.append(part)
            order.append(rows)
        out = pd.concat(parts, ignore_index=True)
        out.index = np.concatenate(order)
        return out.sort_index()[[*self.feature_names_in_, self.class_name_]]

    # ------------------------------------------------------------ saving
    @classmethod
    def _check_saved_params(cls, saved: SavedState, est: Any) -> None:
        older_files_without_var_prior(saved, est)
        older_files_without_categorical(saved, est)
        older_files_without_numbers(saved, est)
        given = saved.raw("params", dict)
        if "mean_prior" not in given:  # a file from before the option: no mean prior
            given["mean_prior"] = 0.0
            est.mean_prior = 0.0
        super()._check_saved_params(saved, est)

    def _fitted_state(self) -> dict:
        bins = {} if self.binner_ is None else {"numeric_bins": self.binner_.to_dict()}
        return {
            "numeric_features": [encode_label(f) for f in self.numeric_features_],
            "models": [m.to_dict() for m in self.models_],
            **bins,
            **choices_state(self.number_choices_),
        }

    def _restore_model(self, saved: SavedState) -> None:
        features = list(self.feature_names_in_)
        numeric = saved.labels("numeric_features")
        if [f for f in features if f in set(numeric)] != numeric:
            raise saved.fail("numeric_features", "must be features, in the features' order")
        raw = saved.raw("models", list)
        if len(raw) != len(self.classes_):
            raise saved.fail("models", f"must hold one CLG tree per class ({len(self.classes_)})")
        models = [CLGTreeModel.from_dict(d) for d in raw]
        edges = {frozenset(e) for e in models[0].graph.edges}
        for m in models:
            if m.variables != features or m.continuous != numeric:
                raise saved.fail(
                    "models", "must be over the features, Gaussian as numeric_features says"
                )
            if {frozenset(e) for e in m.graph.edges} != edges:
                raise saved.fail("models", "must share one feature tree")
        self.numeric_features_ = numeric
        self.categorical_features_ = [f for f in features if f not in set(numeric)]
        tree = nx.DiGraph()
        tree.add_nodes_from(features)
        tree.add_edges_from(models[0].graph.edges(data=True))
        self.feature_tree_ = tree
        self.models_ = models
        self.binner_ = restored_binner(saved) if saved.has("numeric_bins") else None
        self.binned_features_ = binned_features(self.binner_, features)
        if not set(self.binned_features_) <= set(self.categorical_features_):
            raise saved.fail("numeric_bins", "must cut categorical features only")
        self.number_choices_ = restored_choices(saved, features)


def _shrink_means(
    model: CLGTreeModel, stats: MixedTableStatistics, pooled: Any, k0: float, nu: float
) -> CLGTreeModel:
    """One class's CLG tree with its Gaussian means (a root's, and each parent state's
    under a categorical parent) shrunk towards the classes pooled by ``k0`` pseudo-rows
    (:func:`~treelearn.stats._class_gaussians.shrunk_mean`)."""
    pairs = stats.pairs
    dpos = {v: i for i, v in enumerate(stats.discrete.columns)}
    graph = model.graph.copy()
    for j, v in enumerate(stats.continuous):
        node, ref = graph.nodes[v], pooled.graph.nodes[v]
        parents = list(graph.predecessors(v))
        if not parents:
            mean, extra = shrunk_mean(
                np.asarray(node["intercept"]), pairs.pair_weight[j, j], ref["intercept"], k0, nu
            )
            node.update(intercept=float(mean), variance=float(node["variance"] + extra))
        elif parents[0] in dpos:
            w = pairs.state_weight[pairs.states_of(dpos[parents[0]]), j]
            mean, extra = shrunk_mean(
                np.asarray(node["means"]), w, np.asarray(ref["means"]), k0, nu
            )
            node.update(
                means=mean.tolist(), variances=(np.asarray(node["variances"]) + extra).tolist()
            )
    return CLGTreeModel(
        graph,
        model.discrete_model,
        variables=model.variables,
        continuous=model.continuous,
        dtypes=model.dtypes,
        n_rows=model.n_rows,
        settings=model.settings,
    )


def _categorical_only(frame: pd.DataFrame, header: Any, weights: Any) -> MixedTableStatistics:
    """The statistics of categorical features alone, in the mixed statistics' form."""
    states = dict(zip(header.counts.columns[:-1], header.counts.states[:-1]))
    table = encode(frame, missing="pairwise", states=states, sample_weight=weights)
    return MixedTableStatistics(
        tuple(frame.columns),
        (),
        CountedTable.of_table(table),
        np.zeros((len(frame), 0)),
        (),
        table.weights,
    )


def _class_statistics(full: MixedTableStatistics, rows: np.ndarray) -> MixedTableStatistics:
    """The statistics of one class's rows (the states of the whole table)."""
    table = full.discrete.table
    assert table is not None  # mixed statistics keep the discrete columns' rows
    weights = None if full.weights is None else full.weights[rows]
    sub = Table(
        codes=table.codes[rows],
        columns=table.columns,
        states=table.states,
        dtypes=table.dtypes,
        weights=weights,
    )
    return MixedTableStatistics(
        full.columns,
        full.continuous,
        CountedTable.of_table(sub),
        full.values[rows],
        full.continuous_dtypes,
        weights,
    )
