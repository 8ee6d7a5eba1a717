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

from .._base.errors import MissingValuesError
from .._base.persistence import SavedState
from .._base.validation import Interval, Options
from ..stats._counts import ClassCounts
from ..stats._information import conditional_mutual_information_matrix, mutual_information_matrix
from ..structure._trees import round_ties
from ._base import CLASS_PRIOR, UNSEEN, Unseen
from ._network import SingleNetworkClassifier
from ._partial import ChunkCounts, PartialFitNetwork
from ._seminaive import kdb_parents

__all__ = ["SKDB", "leave_one_out_losses"]


def _log_loss(joint: np.ndarray, own: np.ndarray, w: np.ndarray, buf: np.ndarray) -> float:
    """``sum_i w_i (logsumexp_c joint[c, i] - own_i)``, through the SIMD ``exp`` and ``log``
    (``logaddexp`` has none), the row's peak taken out first; ``buf``: scratch of
    ``joint``'s shape."""
    peak = joint.max(axis=0)
    np.subtract(joint, peak, out=buf)
    # below exp(-700) a term is lost in the round-off of a sum holding 1 (the peak's);
    # clipping there keeps exp off its slow subnormal path
    np.maximum(buf, -700.0, out=buf)
    np.exp(buf, out=buf)
    return float(w @ (np.log(buf.sum(axis=0)) + peak - own))


def _zero_one(joint: np.ndarray, own: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """The weight of the rows whose first most probable class (``argmax``) is not ``y``:
    a class scores above the row's own, or level with it and before it."""
    wrong = np.zeros(joint.shape[1], dtype=bool)
    for c in range(joint.shape[0]):  # the classes: a few vector ops each
        wrong |= (joint[c] > own) | ((joint[c] == own) & (c < y))
    return float(w @ wrong)


def leave_one_out_losses(
    stats: ClassCounts,
    ranked: list[tuple[int, list[int]]],
    max_k: int,
    codes: np.ndarray,
    weights: np.ndarray | None,
    *,
    alpha: float,
    log_prior: np.ndarray | None,
    loss: str,
) -> np.ndarray:
    """``losses[k, s]``: the leave-one-out loss of ``M(k, s)`` over the rows ``codes``
    (features then the class, complete; weighted by ``weights``), from the counts of
    ``stats``. ``log_prior``: a fixed log class prior (``None``: the leave-one-out
    frequencies with ``alpha``). ``loss``: ``"log_loss"`` (``-sum w_i log p(y_i | x_i)``)
    or ``"zero_one"`` (the weight of the rows whose most probable class is wrong).

    A row's term for a class other than its own is the full-data CPT entry: a gather from
    the ``|C| x configurations x states`` log table. Only its own class's term leaves the
    row out: without weights that is a second table (every row takes off 1), with weights
    one expression per row."""
    n, d = codes.shape[0], codes.shape[1] - 1
    c = d
    # one contiguous row per column (a column of the row-major codes is a strided read), as
    # intp once: every gather below indexes with these
    columns = np.ascontiguousarray(codes.T, dtype=np.intp)
    y = columns[c]
    n_classes = len(stats.classes)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if log_prior is None:
        class_count = np.asarray(stats.class_count, dtype=float)
        total = class_count.sum()
        own = np.zeros((n_classes, n))
        own[y, np.arange(n)] = w  # the row's own weight, in its class's counts only
        prior = (np.maximum(class_count[:, None] - own, 0.0) + alpha) / (
            np.maximum(total - w, 0.0) + n_classes * alpha
        )[None, :]
        base = np.log(prior)
    else:
        base = np.repeat(np.asarray(log_prior, dtype=float)[:, None], n, axis=1)

    own_cell = y * n + np.arange(n)  # each row's own class, in the flattened (classes, rows)

    buf = np.empty((n_classes, n))

    def score(joint: np.ndarray) -> float:
        own_joint = np.take(joint, own_cell)
        if loss == "log_loss":
            return _log_loss(joint, own_joint, w, buf)
        return _zero_one(joint, own_joint, y, w)

    sums = np.repeat(base[None], max_k + 1, axis=0)  # (k, classes, rows)
    losses = np.empty((max_k + 1, d + 1))
    losses[:, 0] = score(base)
    cards = stats.cardinalities
    for s, (j, parents) in enumerate(ranked):  # d steps, each over every row at once
        full = np.asarray(stats.family_counts([c, *parents, j]), dtype=float)
        k_j = int(cards[j])
        term = None
        config = np.zeros(n, dtype=np.intp)  # each row's configuration of the first k parents
        for k in range(max_k + 1):
            if k <= len(parents):  # k parents: the marginal of the largest family
                if k:
                    config = config * int(cards[parents[k - 1]]) + columns[parents[k - 1]]
                counts = (
                    full.sum(axis=tuple(range(1 + k, 1 + len(parents))))
                    if k < len(parents)
                    else full
                )
                num = counts.reshape(n_classes, -1)  # (classes, configurations x states)
                den = np.repeat(counts.sum(axis=-1).reshape(n_classes, -1), k_j, axis=1)
                cell = config * k_j + columns[j]  # each row's (configuration, state)
                log_cpt = np.log((num + alpha) / (den + k_j * alpha))
                if weights is None:  # every row takes off 1: a second table, one gather
                    left_out = np.log(
                        (np.maximum(num - 1.0, 0.0) + alpha)
                        / (np.maximum(den - 1.0, 0.0) + k_j * alpha)
                    )
                    # table[c, y, cell]: the row's own class (c == y) left out, or the CPT
                    table = np.repeat(log_cpt[:, None, :], n_classes, axis=1)
                    table[np.arange(n_classes), np.arange(n_classes)] = left_out
                    term = np.take(table.reshape(n_classes, -1), y * num.shape[1] + cell, axis=1)
                else:  # the own class: the same expression, the row's weight taken off
                    term = np.take(log_cpt, cell, axis=1)
                    at = y * num.shape[1] + cell
                    term.flat[own_cell] = np.log(
                        (np.maximum(np.take(num, at) - w, 0.0) + alpha)
                        / (np.maximum(np.take(den, at) - w, 0.0) + k_j * alpha)
                    )
            sums[k] += term  # more parents than the feature has: its full family
            losses[k, s + 1] = score(sums[k])
    return losses


def _refuse_missing(codes: np.ndarray, features: list) -> None:
    """Leave-one-out is over complete rows: a missing feature value is an error."""
    missing = (codes[:, : len(features)] < 0).any(axis=0)
    if missing.any():
        raise MissingValuesError(
            f"SKDB chooses its model by leave-one-out over complete rows; the feature(s) "
            f"{[features[j] for j in np.flatnonzero(missing)][:10]} have missing values: "
            f"drop or fill those rows (or use tl.KDB, which counts around them)"
        )


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
    or a file), complete (no missing feature value). A row's weight is left out with
    it (integer weights are not the row repeated here: its copies leave together).

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
    ) -> None:
        self.max_k = max_k
        self.loss = loss
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.numbers = numbers
        self.categorical = categorical

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False  # leave-one-out needs complete rows
        return tags

    def _prior_pseudocount(self, params: dict) -> float:
        return params["alpha"]

    def _keeps_rows(self, params: dict) -> bool:
        return True  # the leave-one-out pass revisits every row

    def _check_chunk(self, stats: ClassCounts, params: dict) -> None:
        if stats.table is not None:  # (rows elsewhere are refused when they are kept)
            _refuse_missing(stats.table.codes, list(stats.columns[:-1]))

    def _structure(self, stats: ClassCounts, params: dict) -> nx.DiGraph:
        features, class_name = list(stats.columns[:-1]), stats.columns[-1]
        d = len(features)
        class_mi = mutual_information_matrix(stats.counts)[:d, d]
        cmi = conditional_mutual_information_matrix(stats.per_class)[:d, :d]
        max_k = params["max_k"]
        ranked = kdb_parents(class_mi, cmi, max_k)
        assert isinstance(stats, ChunkCounts)  # partial_fit's totals, after a fit too
        parts = stats.rows()
        codes = np.concatenate([p[0] for p in parts])
        weights = (
            None
            if all(p[1] is None for p in parts)
            else np.concatenate([np.ones(len(p[0])) if p[1] is None else p[1] for p in parts])
        )
        _refuse_missing(codes, features)
        log_prior = None
        if params.get("class_prior") is not None or not params["fit_prior"]:
            log_prior = self.class_log_prior_
        self.loo_loss_ = leave_one_out_losses(
            stats,
            ranked,
            max_k,
            codes,
            weights,
            alpha=params["alpha"],
            log_prior=log_prior,
            loss=params["loss"],
        )
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
