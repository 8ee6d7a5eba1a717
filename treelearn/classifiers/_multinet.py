"""The Chow-Liu multinet: one Chow-Liu tree over the features per class, and Bayes' rule.

``p(c, x) = p(c) p_c(x)`` where ``p_c`` is the Chow-Liu tree learned from the rows of
class ``c``; a missing feature value is summed out over that class's tree.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, cast

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .._base.errors import TreelearnError
from .._base.persistence import SavedState
from ..encoding._bins import binned_numbers
from ..encoding._table import python_scalar
from ..inference._engine import state_index
from ..learners._chow_liu import chow_liu_from_counts
from ..models._mixture import MixtureModel
from ..models._tree import TreeModel
from ..stats._counts import ClassCounts
from ._base import CLASS_PRIOR, CPT_PRIOR, UNSEEN, CategoricalClassifier, Unseen
from ._tan import check_root

__all__ = ["ChowLiuMultinet"]


class ChowLiuMultinet(CategoricalClassifier):
    """One Chow-Liu tree over the features per class, and Bayes' rule on top.

    ``p(c, x) = p(c) p_c(x)`` where ``p_c`` is the Chow-Liu tree (MI graph ->
    maximum spanning tree -> CPTs) learned from the rows of class ``c``, with the
    states of the whole training set (so a state unseen in one class still gets
    smoothed mass).

    Parameters
    ----------
    alpha : float, default=1.0
        As in :class:`~treelearn.NaiveBayes`.
    fit_prior : bool, default=True
        As in :class:`~treelearn.NaiveBayes`.
    class_prior : array-like of float, default=None
        As in :class:`~treelearn.NaiveBayes`.
    unseen : {"error", "ignore"}, default="error"
        As in :class:`~treelearn.NaiveBayes`.
    prior : {"lidstone", "bdeu", "m-estimate"}, default="lidstone"
        As in :class:`~treelearn.NaiveBayes`.
    equivalent_sample_size : float, default=1.0
        As in :class:`~treelearn.NaiveBayes`.
    m : float, default=1.0
        As in :class:`~treelearn.NaiveBayes`.
    numbers : {"mdl", "states"}, default="mdl"
        Numeric columns cut into supervised MDL bins in ``fit`` (the
        default, ``numbers="mdl"``; ``numbers="states"`` makes each value a state), as in
        :class:`~treelearn.NaiveBayes`.
    categorical : sequence of hashable, default=None
        The columns of numbers kept as states, as in :class:`~treelearn.NaiveBayes`.
    root : hashable, default=None
        The root of every class's tree; ``None`` uses the first feature column.

    Attributes
    ----------
    models_ : ``{class label: TreeModel}``, each tree over the features only.
    model_ : not available: the per-class trees generally disagree on edge
        directions, so their union is not one Bayesian network. Use
        ``models_[c]`` and ``class_log_prior_``. (Accessing ``model_`` raises an
        ``AttributeError`` that says so.)
    classes_, class_name_, class_count_, class_log_prior_, n_features_in_, feature_names_in_
        As :class:`~treelearn.NaiveBayes`'s.

    See Also
    --------
    TAN : one tree shared by every class.
    ChowLiuTree : the tree of one table.

    References
    ----------
    .. [1] Friedman, N., Geiger, D. and Goldszmidt, M. (1997). Bayesian network
       classifiers. Machine Learning 29(2-3), 131-163.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> clf = tl.ChowLiuMultinet().fit(df.drop(columns="either"), df["either"])
    >>> sorted(clf.models_)
    ['no', 'yes']
    """

    _method = "chow-liu-multinet"
    _parameter_constraints: ClassVar[dict] = {**CPT_PRIOR, **CLASS_PRIOR, **UNSEEN}
    #: a mixture of trees over the features, one per class: its queries and conditional
    #: samples are exact (the most probable completion of a mixture is not computed)
    capabilities: ClassVar[frozenset[str]] = frozenset(
        {
            "classify",
            "score",
            "query",
            "marginals",
            "sample",
            "sample_given",
            "explain",
            "draw",
            "explorer",
        }
    )

    def __init__(
        self,
        alpha: float = 1.0,
        root: Hashable | None = None,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        prior: str = "lidstone",
        equivalent_sample_size: float = 1.0,
        m: float = 1.0,
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
    ) -> None:
        self.alpha = alpha
        self.root = root
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.prior = prior
        self.equivalent_sample_size = equivalent_sample_size
        self.m = m
        self.numbers = numbers
        self.categorical = categorical

    @property
    def model_(self) -> TreeModel:
        raise AttributeError(
            "a ChowLiuMultinet has one tree per class and no single network: use "
            "models_[label] (a TreeModel over the features) and class_log_prior_"
        )

    def _learn(self, stats: ClassCounts, params: dict) -> None:
        features = list(stats.columns[:-1])
        root = check_root(self.root, features, stats.columns[-1])
        settings = self._cpt_settings(params, self._method, root=root)
        self.models_ = {
            label: chow_liu_from_counts(
                stats.within_class(c), settings, description=self._description(self._method)
            )
            for c, label in enumerate(stats.class_labels())
        }

    def _feature_states(self) -> list:
        states = next(iter(self.models_.values())).states
        return [states[f] for f in self.feature_names_in_]

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        out = np.empty((codes.shape[0], len(self.classes_)))
        for c, label in enumerate(self.classes_):
            model = self.models_[python_scalar(label)]
            out[:, c] = self.class_log_prior_[c] + model.log_likelihood_codes(codes)
        return out

    # ------------------------------------------------------------ as a mixture over the classes
    def _mixture(self, evidence: Mapping[Hashable, Any] | None) -> tuple[MixtureModel, list, dict]:
        """``(mixture, labels, feature evidence)``: the multinet as the mixture of its class
        trees weighted by the class prior (:class:`~treelearn.MixtureModel`); a class given
        in ``evidence`` leaves its tree alone."""
        self._require_fitted()
        labels = [python_scalar(c) for c in self.classes_]
        trees = [self.models_[c] for c in labels]
        prior = np.exp(np.asarray(self.class_log_prior_, dtype=float))
        features = dict(evidence or {})
        if self.class_name_ in features:
            k = state_index(labels, self.class_name_, features.pop(self.class_name_))
            trees, prior, labels = [trees[k]], np.ones(1), [labels[k]]
        return MixtureModel(trees, prior / prior.sum()), labels, features

    def query(
        self,
        variables: Sequence[Hashable] | Hashable,
        evidence: Mapping[Hashable, Any] | None = None,
    ) -> pd.Series:
        """Exact ``P(variables | evidence)``: the class alone (``P(c | e)``, Bayes' rule over
        the class trees) or features (``sum_c P(c | e) P_c(features | e)``; a class given in
        ``evidence`` leaves its tree alone).

        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> clf = tl.ChowLiuMultinet().fit(df.drop(columns="either"), df["either"])
        >>> row = df.drop(columns="either").iloc[:1]
        >>> bool(np.allclose(clf.query("either", row.iloc[0].to_dict()), clf.predict_proba(row)[0]))
        True
        """
        names = (
            [variables] if isinstance(variables, (str, int)) else list(cast(Sequence, variables))
        )
        cls = self.class_name_
        if cls in names and cls in dict(evidence or {}):
            raise TreelearnError(f"{cls!r} is both queried and given as evidence")
        mixture, labels, features = self._mixture(evidence)
        if cls in names:
            if names != [cls]:
                raise TreelearnError(
                    f"query the class {cls!r} alone or the features alone, not {names[:5]}"
                )
            post = mixture.component_posterior(features)
            return pd.Series(post, index=pd.Index(labels, name=cls), name="probability")
        return mixture.query(names, features)

    def marginals(self, evidence: Mapping[Hashable, Any] | None = None) -> dict:
        """``{variable: P(variable | evidence)}`` of the class and every feature not given."""
        mixture, _, features = self._mixture(evidence)
        out = mixture.marginals(features)
        if self.class_name_ not in dict(evidence or {}):
            out[self.class_name_] = self.query(self.class_name_, evidence)
        return out

    # ------------------------------------------------------------ pictures, sizes, sampling
    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then each class's tree."""
        yield from super()._text_lines(digits)
        for label in self.classes_:
            label = python_scalar(label)
            yield f"{self.class_name_} = {label}:"
            yield self.models_[label].to_text(digits)

    def _panel_titles(self) -> list[str]:
        return [f"{self.class_name_} = {python_scalar(c)}" for c in self.classes_]

    def to_dot(self, **kwargs: Any) -> str:
        """Graphviz DOT: one titled cluster per class tree."""
        self.require("draw")
        self._require_fitted()
        from ..viz._draw import panels_to_dot

        trees = [self.models_[python_scalar(c)] for c in self.classes_]
        return panels_to_dot(trees, self._panel_titles(), **kwargs)

    def to_mermaid(self, **kwargs: Any) -> str:
        """A Mermaid flowchart: one titled subgraph per class tree."""
        self.require("draw")
        self._require_fitted()
        from ..viz._draw import panels_to_mermaid

        trees = [self.models_[python_scalar(c)] for c in self.classes_]
        return panels_to_mermaid(trees, self._panel_titles(), **kwargs)

    def draw(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the class trees (one panel per structure); returns the Figure.

        Classes whose trees have the same structure (the same edges and roots) share one
        panel, titled by the classes and their summed prior, the most probable first. With ``ax`` (a sequence of Axes, one per
        panel) the trees go there; ``title="..."`` adds a line above them all
        (``title=True`` keeps the class titles only). Other keywords are
        :meth:`treelearn.Model.draw`'s, for every panel.
        """
        self.require("draw")
        check_is_fitted(self)
        from ..viz._draw import draw_ensemble

        title = kwargs.pop("title", None)
        kwargs.pop("data", None)  # the panels are titled by their classes, not a score
        labels = [python_scalar(c) for c in self.classes_]
        prior = np.exp(np.asarray(self.class_log_prior_, dtype=float))
        return draw_ensemble(
            [self.models_[label] for label in labels],
            prior / prior.sum(),
            ax,
            names=labels,
            label=lambda group: f"{self.class_name_} = {', '.join(map(str, group))}",
            weight_name="prior",
            heading=title if isinstance(title, str) and title else None,
            **{"max_panels": 12, **kwargs},  # a panel per class, as many as before
        )

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`): the class the conditioner,
        one forest per class (its tree), weighted by the class prior."""
        from ..viz._page_spec import multinet_spec, require_fitted, title_of

        require_fitted(self)
        self._require_fitted()  # a partial_fit call after the first: learn its counts now
        counted = [m.n_rows for m in self.models_.values()]
        rows = None if None in counted else float(sum(n for n in counted if n is not None))
        parts = [f"{len(self.feature_names_in_) + 1} variables"]
        if title is None:
            title = title_of(type(self).__name__, parts, rows)
        return multinet_spec(self.models_, np.exp(self.class_log_prior_), self.class_name_, title)

    @property
    def n_parameters(self) -> int:
        """Free parameters: every class's tree, and the ``k - 1`` of the class prior."""
        check_is_fitted(self)
        return sum(m.n_parameters for m in self.models_.values()) + len(self.classes_) - 1

    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
    ) -> pd.DataFrame:
        """Draw ``n`` rows: the class from the prior, then the features from that class's tree.

        The columns are the features, then the class (``class_name_``); the rows
        come in random order. With ``evidence`` exactly from ``P(. | evidence)``: each row's
        class from ``P(c | evidence)``, then its features from that class's tree given the
        evidence (a class given: its tree alone). ``numbers``: binned features as numbers
        within each row's bin (:meth:`TreeModel.sample
        <treelearn.TreeModel.sample>`), drawn after the rows.

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
        if evidence:
            mixture, labels, features = self._mixture(evidence)
            rows, which = mixture.sample(n, rng, evidence=features, return_components=True)
            rows[self.class_name_] = [labels[k] for k in which]
        else:
            counts = rng.multinomial(n, np.exp(self.class_log_prior_))
            parts = []
            for label, k in zip(self.classes_, counts):
                label = python_scalar(label)
                part = self.models_[label].sample(int(k), random_state=rng)
                part[self.class_name_] = label
                parts.append(part)
            rows = pd.concat(parts, ignore_index=True)
            rows = rows.iloc[rng.permutation(len(rows))].reset_index(drop=True)
        if numbers:  # every class's tree has the features' states
            states = next(iter(self.models_.values())).states
            names = list(self.feature_names_in_)
            codes = np.column_stack(
                [pd.Categorical(rows[f], categories=states[f]).codes for f in names]
            )
            rows = binned_numbers(rows, codes, names, states, rng)
        return rows

    # ------------------------------------------------------------ saving
    def _fitted_state(self) -> dict:
        return {"models": [self.models_[python_scalar(label)].to_dict() for label in self.classes_]}

    def _restore_model(self, saved: SavedState) -> None:
        raw = saved.raw("models", list)
        if len(raw) != len(self.classes_):
            raise saved.fail("models", f"holds {len(raw)} trees for {len(self.classes_)} classes")
        models = [TreeModel.from_dict(m) for m in raw]
        for model in models:
            self._check_feature_states(saved, model)
            if model.states != models[0].states:
                raise saved.fail("models", "hold trees whose features have different states")
        self.models_ = dict(zip((python_scalar(c) for c in self.classes_), models))
