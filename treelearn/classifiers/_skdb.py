"""Selective k-dependence Bayes (SKDB; Martínez, Webb, Chen and Zaidi, JMLR 2016).

The k-DB of :class:`~treelearn.KDB` with ``max_k`` parents
defines a grid of nested classifiers: ``M(k, s)`` keeps the ``s`` features ranked first
by ``I(X_i; C)``, each with the first ``min(k, r)`` of its k-DB parents (best first).
SKDB fits the one ``M(k, s)`` of least leave-one-out loss, and the leave-one-out loss
of every cell of the grid comes from the counts, in one pass over the rows: leaving
row ``i`` out takes its own weight off the counts of its class,

``p_{-i}(x_j | c, u) = (N(c, u, x_j) - w_i [c = y_i] + alpha) /
(N(c, u) - w_i [c = y_i] + k_j alpha)``,

and the class prior alike (``(N(c) - w_i [c = y_i] + alpha) / (N - w_i + |C| alpha)``),
so no model is refitted. The counts of the smaller families are marginals of the
largest one (``max_k`` parents), counted once per feature.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from numbers import Integral, Real
from typing import ClassVar

import networkx as nx
import numpy as np

from .._base.persistence import SavedState
from .._base.validation import Interval, Options
from ..stats._counts import ClassCounts
from ..stats._information import conditional_mutual_information_matrix, mutual_information_matrix
from ..structure._trees import round_ties
from ._base import CLASS_PRIOR, UNSEEN, Unseen
from ._class_arcs import CLASS_ARCS
from ._network import SingleNetworkClassifier
from ._partial import PartialFitNetwork
from ._seminaive import kdb_parents, leave_one_out_of_rows

__all__ = ["SKDB"]


class SKDB(PartialFitNetwork, SingleNetworkClassifier):
    """Selective k-dependence Bayes (Martínez, Webb, Chen and Zaidi, JMLR 2016).

    A k-DB (:class:`~treelearn.KDB`) whose ``k`` and number of
    features are chosen by their exact leave-one-out loss, computed from the counts
    (see the module docstring): among the classifiers ``M(k, s)`` (``k <= max_k``
    parents, the ``s`` features ranked first by ``I(X_i; C)``) the one of least loss,
    ties to the smaller ``k``, then to fewer features (losses rounded to 12 decimals).
    The features left out stay in the network as isolated nodes (their marginal), so
    they change no posterior.

    Parameters
    ----------
    max_k : int, default=5
        The most feature parents of a feature (an integer >= 0).
    loss : {"log_loss", "zero_one"}, default="log_loss"
        ``"log_loss"`` (the default) or ``"zero_one"``: what leave-one-out minimises.
    alpha : float, default=1.0
        Lidstone pseudocount (> 0) of every CPT and of the class prior
        ``(N(c) + alpha) / (N + |C| alpha)``.
    fit_prior : bool, default=True
        As in :class:`~treelearn.NaiveBayes`
        (``fit_prior=False`` or ``class_prior`` fix the prior, also when leaving rows out).
    class_prior : array-like of float, default=None
        See ``fit_prior``.
    unseen : {"error", "ignore"}, default="error"
        As in :class:`~treelearn.NaiveBayes`.
    numbers : {"mdl", "states"}, default="mdl"
        Numeric columns cut into supervised MDL bins in ``fit`` (the
        default, ``numbers="mdl"``; ``numbers="states"`` makes each value a state), as in
        :class:`~treelearn.NaiveBayes`.
    categorical : sequence of hashable, default=None
        The columns of numbers kept as states, as in :class:`~treelearn.NaiveBayes`.
    class_arcs : {"average", "all"}, default="average"
        ``"average"``: each class arc averaged in or out (Dash and Cooper, 2002, for the
        fixed structure), as in :class:`~treelearn.NaiveBayes`; ``"all"``: the plain CPTs.
    arc_prior : float, default=0.5
        The prior probability of each arc from the class, as in :class:`~treelearn.NaiveBayes`.

    Attributes
    ----------
    k_ : the chosen number of feature parents.
    selected_features_ : the chosen features, in k-DB order (by ``I(X_i; C)``).
    feature_order_ : every feature in k-DB order.
    loo_loss_ : ``(max_k + 1, n_features + 1)``: the leave-one-out loss of ``M(k, s)``
        (column ``s = 0``: the class prior alone).
    model_, classes_, class_name_, class_count_, class_log_prior_, n_features_in_, feature_names_in_
        As :class:`~treelearn.KDB`'s.

    Notes
    -----
    Leave-one-out needs the rows: the training data in memory (a DataFrame, an array
    or a file). A row's weight is left out with it (integer weights are not the row
    repeated here: its copies leave together). Missing feature values are counted
    around (each family over the rows where it is observed; see
    :func:`leave_one_out_losses` for a row's leave-one-out term) and summed out exactly at
    prediction.

    See Also
    --------
    KDB : a given ``k``.
    AnDE : averages instead of selecting.

    References
    ----------
    .. [1] Martínez, A. M., Webb, G. I., Chen, S. and Zaidi, N. A. (2016). Scalable
       learning of Bayesian network classifiers. Journal of Machine Learning Research
       17(44), 1-35.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> clf = tl.SKDB(max_k=2).fit(df.drop(columns="either"), df["either"])
    >>> clf.k_, list(clf.selected_features_)   # 'either' is 'tub or lung': xray comes with it
    (1, ['lung', 'xray', 'tub'])
    >>> clf.loo_loss_.shape   # k = 0, 1, 2; none to all seven features
    (3, 8)
    >>> bool(clf.loo_loss_.min() == clf.loo_loss_[clf.k_, len(clf.selected_features_)])
    True
    """

    _method = "skdb"
    #: its network's answers, and adding rows (``partial_fit``)
    capabilities: ClassVar[frozenset[str]] = SingleNetworkClassifier.capabilities | {"partial_fit"}
    _parameter_constraints: ClassVar[dict] = {
        "max_k": [Interval(Integral, 0, None)],
        "loss": [Options("log_loss", "zero_one")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        **CLASS_PRIOR,
        **UNSEEN,
        **CLASS_ARCS,
    }

    def __init__(
        self,
        max_k: int = 5,
        loss: str = "log_loss",
        alpha: float = 1.0,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
        class_arcs: str = "average",
        arc_prior: float = 0.5,
    ) -> None:
        self.max_k = max_k
        self.loss = loss
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.numbers = numbers
        self.categorical = categorical
        self.class_arcs = class_arcs
        self.arc_prior = arc_prior

    def _prior_pseudocount(self, params: dict) -> float:
        return params["alpha"]

    def _keeps_rows(self, params: dict) -> bool:
        return True  # the leave-one-out pass revisits every row

    def _structure(self, stats: ClassCounts, params: dict) -> nx.DiGraph:
        features, class_name = list(stats.columns[:-1]), stats.columns[-1]
        d = len(features)
        class_mi = mutual_information_matrix(stats.counts)[:d, d]
        cmi = conditional_mutual_information_matrix(stats.per_class)[:d, :d]
        max_k = params["max_k"]
        ranked = kdb_parents(class_mi, cmi, max_k)
        self.loo_loss_ = leave_one_out_of_rows(self, stats, ranked, max_k, params, params["loss"])
        k, s = np.unravel_index(np.argmin(round_ties(self.loo_loss_)), self.loo_loss_.shape)
        self.k_ = int(k)  # argmin: the first of the least, smaller k, then fewer features
        order = [features[j] for j, _ in ranked]
        self.feature_order_ = np.array([*order, None], dtype=object)[:-1]
        self.selected_features_ = self.feature_order_[: int(s)]
        D = nx.DiGraph()
        D.add_node(class_name)
        D.add_nodes_from(features)
        for j, parents in ranked[: int(s)]:
            D.add_edge(class_name, features[j])
            D.add_edges_from((features[p], features[j]) for p in parents[: self.k_])
            D.nodes[features[j]]["parents"] = [
                class_name,
                *(features[p] for p in parents[: self.k_]),
            ]
        D.graph["roots"] = [class_name, *(features[j] for j, _ in ranked[int(s) :])]
        D.graph["class"] = class_name
        return D

    def _network_description(self, params: dict) -> dict:
        return {
            **super()._network_description(params),
            "feature_order": list(self.feature_order_),
            "k": self.k_,
            "selected_features": list(self.selected_features_),
            "loo_loss": self.loo_loss_.tolist(),
        }

    def _restore_model(self, saved: SavedState) -> None:
        super()._restore_model(saved)
        settings = self.model_.settings
        order, selected = settings.get("feature_order"), settings.get("selected_features")
        names = sorted(map(repr, self.feature_names_in_))
        if (
            not isinstance(order, list)
            or sorted(map(repr, order)) != names
            or not isinstance(selected, list)
            or selected != order[: len(selected)]
        ):
            raise saved.fail(
                "model",
                "has no feature_order and selected_features settings "
                "naming the features in k-DB order",
            )
        k = settings.get("k")
        if not isinstance(k, int) or isinstance(k, bool) or k < 0:
            raise saved.fail("model", "has no k setting (an integer >= 0)")
        loo = np.asarray(settings.get("loo_loss"), dtype=float)
        if loo.ndim != 2 or loo.shape[1] != len(order) + 1 or not np.isfinite(loo).all():
            raise saved.fail(
                "model",
                "has no loo_loss setting of one row per k and one column per number of features",
            )
        self.k_ = k
        self.feature_order_ = np.array([*order, None], dtype=object)[:-1]
        self.selected_features_ = self.feature_order_[: len(selected)]
        self.loo_loss_ = loo
