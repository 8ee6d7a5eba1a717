"""The exact Bayes classifier over all TAN structures (Cerquides & López de Màntaras 2005).

A TAN network has the class ``C`` as a parent of every feature and a spanning
tree ``T`` over the features. With a uniform prior over the feature trees and
BDeu with equivalent sample size ``s`` over the whole network (pseudo-counts
``s / r_C`` per class, ``s / (r_C r_v)`` per cell of ``(C, X_v)``, ``s / (r_C r_u r_v)``
per cell of ``(C, X_u, X_v)``), the marginal likelihood factorises as

    P(D | T) = ML(C) prod_v ML(X_v | C) prod_{uv in T} w_uv,
    w_uv = prod_c w^(c)_uv,

where ``w^(c)`` is the tree weight of :func:`treelearn.learners._bayes_trees.bdeu_edge_weights`
on the rows of class ``c`` with equivalent sample size ``s / r_C``. The
classifier averages the *joint* over structures and then normalises over classes:

    P(c, x | D) = θ_c prod_v θ_v|c(x_v) Z(w ∘ ρ_c(x)) / Z(w),   P(c | x, D) ∝ P(c, x | D),

with ``θ`` the BDeu posterior means and ``ρ_c`` the within-class pair ratios —
one spanning-tree sum per row and class, vectorised (:mod:`treelearn.structure._spanning_sums`).

That is ``class_arcs="all"``. The default, ``class_arcs="average"``, averages over the
class arcs too (Dash & Cooper 2002): every directed feature tree x every subset of the
arcs ``C -> X_v``, which still factorises over the arcs (:func:`arc_averaged_tables`) and
is summed by the directed matrix-tree theorem
(:mod:`treelearn.structure._arborescence_sums`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from numbers import Real
from typing import Any, ClassVar

import networkx as nx
import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._base.errors import TreelearnError
from .._base.jsonvalues import encode_label, json_value
from .._base.limits import check_memory
from .._base.persistence import SavedState
from .._base.validation import Interval, Options
from ..learners._bayes_trees import (
    bdeu_edge_weights,
    bdeu_predictive_tables,
    log_sum_over_completions,
)
from ..stats._counts import ClassCounts
from ..structure._arborescence_sums import arc_marginals, log_arborescence_sum
from ..structure._spanning_sums import BATCH_ELEMENTS, edge_marginals, log_spanning_tree_sum
from ..structure._trees import spanning_tree_edges
from ._base import CategoricalClassifier

__all__ = ["BayesianTAN", "arc_averaged_tables", "pairwise_complete_tables"]

#: ``class_arcs``: each class arc averaged over (Dash & Cooper), or every one kept (TBMATAN)
CLASS_ARCS = ("average", "all")


def pairwise_complete_tables(
    counts: Any, equivalent_sample_size: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(log w, log θ, log ρ)`` of one class's pair counts with missing cells: each pair
    ``(u, v)``'s edge weight and ratio over the rows where both are observed, each node's
    ``θ`` over the rows where it is observed (available-case BDeu).

    ``log w_uv = log ML_uv - log ML_u - log ML_v`` with the three marginal likelihoods over
    the ``n_uv`` rows where ``u`` and ``v`` are observed; ``θ_u(a) = (N_u(a) + s / r_u) /
    (n_u + s)``; ``log ρ_uv(a, b) = log θ_uv(a, b) - log θ^uv_u(a) - log θ^uv_v(b)``, the
    ``θ^uv`` the pair's own margins (so ``ρ`` averages to 1 over either margin, as for
    complete rows). Without missing cells these are
    :func:`~treelearn.learners._bayes_trees.bdeu_edge_weights`' and
    :func:`~treelearn.learners._bayes_trees.bdeu_predictive_tables`' numbers.
    """
    from scipy.special import gammaln  # here: loading a saved posterior needs no SciPy

    ess = equivalent_sample_size
    k = np.asarray(counts.cardinalities, dtype=float)
    d = len(k)
    owner = np.repeat(np.arange(d), counts.cardinalities)
    B = np.zeros((len(owner), d))
    B[np.arange(len(owner)), owner] = 1.0
    joint = np.asarray(counts.joint, dtype=float)
    n_pair = B.T @ joint @ B  # [u, v]: the rows where both are observed
    node_alpha = ess / k[owner]
    # [state a of u, v]: u's counts over the rows where v is observed
    u_on_pair = joint @ B
    node_on_pair = B.T @ (gammaln(u_on_pair + node_alpha[:, None]) - gammaln(node_alpha)[:, None])
    cell_alpha = ess / (k[owner][:, None] * k[owner][None, :])
    pair_terms = B.T @ (gammaln(joint + cell_alpha) - gammaln(cell_alpha)) @ B
    const = gammaln(ess) - gammaln(n_pair + ess)
    # log ML_uv - log ML_u - log ML_v: the constant once in each, so minus one in total
    log_w = pair_terms - node_on_pair - node_on_pair.T - const
    log_w[np.arange(d), np.arange(d)] = -np.inf
    n_node = np.diagonal(n_pair)
    log_theta = np.log((np.diagonal(joint) + node_alpha) / (n_node[owner] + ess))
    total = n_pair[owner][:, owner] + ess  # [a, b]: the pair's rows, plus s
    log_pair = np.log((joint + cell_alpha) / total)
    margin_u = np.log((u_on_pair[:, owner] + node_alpha[:, None]) / total)  # θ^uv_u(a)
    margin_v = margin_u.T  # θ^uv_v(b): the same table seen from v
    return log_w, log_theta, log_pair - margin_u - margin_v


def arc_averaged_tables(
    joints: np.ndarray,
    cardinalities: Sequence[int],
    equivalent_sample_size: float,
    arc_prior: float,
) -> dict[str, np.ndarray]:
    """The arc weights and averaged tables of :class:`BayesianTAN` with ``class_arcs="average"``.

    ``joints``: ``(r_C, K, K)``, each class's one-hot pair counts (``[c, a, b]``: the rows of
    class ``c`` with state ``a`` and state ``b``; the diagonal blocks the state counts).
    Every family is counted over the rows where its features are observed (available
    case, as :func:`pairwise_complete_tables`). With ``s`` the equivalent sample size and
    ``π`` the arc prior, the weight of the arc ``u -> v`` (``u`` the root ``d``: no
    feature parent) is

    ``W_uv = π ML(D_v | C, X_u) + (1 - π) ML(D_v | X_u)``,

    BDeu marginal likelihoods (pseudo-counts ``s / (q r_v)``, ``q`` the parent
    configurations), each over ``ML(D_v | C)`` on the same rows (a constant per child without
    missing cells); the averaged table ``T_uv(b | c, a) = p_uv θ(b | c, a) + (1 - p_uv)
    θ(b | a)``, ``θ`` the posterior means, ``p_uv = π ML(D_v | C, X_u) / W_uv``.

    Returns ``log_arcs`` ``(d + 1, d)`` (``[u, v]``; row ``d`` the root; each column less
    its largest entry, a constant per child that cancels in every ratio), ``class_arc``
    ``(d + 1, d)`` the ``p_uv``, ``log_tables`` ``(r_C, K + 1, K)`` (row ``K``: the root's
    one state) and ``log_theta`` ``(r_C, K)``, ``log θ(b | c)``.
    """
    from scipy.special import expit, gammaln  # here: loading a saved model needs no SciPy

    s, pi = equivalent_sample_size, arc_prior
    J = np.asarray(joints, dtype=float)
    r_c = J.shape[0]
    k = np.asarray(cardinalities, dtype=float)
    d, K = len(k), J.shape[1]
    owner = np.repeat(np.arange(d), np.asarray(cardinalities, dtype=np.int64))
    B = np.zeros((K, d))
    B[np.arange(K), owner] = 1.0
    N = J.sum(axis=0)  # the classes pooled
    kk = k[owner]
    with_c = {"joint": J, "cells": s / (r_c * kk[:, None] * kk[None, :]), "parent": s / (r_c * kk)}
    without = {"joint": N[None], "cells": s / (kk[:, None] * kk[None, :]), "parent": s / kk}
    log_ml, theta = [], []
    for fam in (with_c, without):
        joint, cells, parent = fam["joint"], fam["cells"], fam["parent"]
        on_pair = joint @ B  # [., a, v]: rows with u = a (u owns a) where v is observed
        pair = B.T @ (gammaln(joint + cells) - gammaln(cells)).sum(axis=0) @ B
        par = B.T @ (gammaln(parent)[:, None] - gammaln(parent[:, None] + on_pair)).sum(axis=0)
        log_ml.append(pair + par)  # [u, v]: log ML(D_v | (C,) X_u)
        theta.append((joint + cells) / (on_pair[:, :, owner] + parent[:, None]))
        # the root families: v alone, (C,) v over the rows where v is observed
        states = np.diagonal(joint, axis1=1, axis2=2)  # [., b]
        n_v = states @ B  # [., v]
        root_cell = parent  # s / (r_C r_v) with the class, s / r_v without
        total = s / r_c if fam is with_c else s
        root_ml = (gammaln(total) - gammaln(total + n_v)).sum(axis=0) + (
            (gammaln(states + root_cell) - gammaln(root_cell)).sum(axis=0) @ B
        )
        log_ml[-1] = np.vstack([log_ml[-1], root_ml])
        theta[-1] = np.concatenate(
            [theta[-1], ((states + root_cell) / (n_v[:, owner] + total))[:, None, :]], axis=1
        )
    # each family over ML(D_v | C) on the family's own rows (the rows where u and v are
    # observed): without missing cells a constant per child, which cancels; with them it
    # keeps a parent observed on fewer rows from looking likelier, and as the arc prior
    # goes to 1 the arc weights are "all"'s pair ratios (its available-case posterior)
    alone = s / (r_c * kk)
    on_rows = B.T @ J  # [c, u, b]: rows of class c where u is observed and v = b
    on_rows = np.concatenate([on_rows, np.diagonal(J, axis1=1, axis2=2)[:, None]], axis=1)
    log_alone = (gammaln(s / r_c) - gammaln(s / r_c + on_rows @ B)).sum(axis=0) + (
        (gammaln(on_rows + alone) - gammaln(alone)).sum(axis=0) @ B
    )
    lm_c, lm_0 = log_ml[0] - log_alone, log_ml[1] - log_alone
    log_arcs = np.logaddexp(np.log(pi) + lm_c, np.log1p(-pi) + lm_0)
    log_arcs[np.arange(d), np.arange(d)] = -np.inf  # no arc from a feature to itself
    class_arc = expit(np.log(pi) - np.log1p(-pi) + lm_c - lm_0)  # Bayes's rule per arc
    class_arc[np.arange(d), np.arange(d)] = 0.0
    p = class_arc[np.r_[owner, d]][:, owner]  # [a, b]: of the arc from a's owner to b's
    tables = p[None] * theta[0] + (1.0 - p[None]) * theta[1]
    log_arcs -= log_arcs.max(axis=0, keepdims=True)
    return {
        "log_arcs": log_arcs,
        "class_arc": np.clip(class_arc, 0.0, 1.0),
        "log_tables": np.log(tables),
        "log_theta": np.log(theta[0][:, K, :]),
    }


class BayesianTAN(CategoricalClassifier):
    """Bayesian model averaging over every TAN structure (scikit-learn classifier).

    Parameters
    ----------
    equivalent_sample_size : float, default=1.0
        BDeu's equivalent sample size over the whole network (> 0).
    numbers : {"mdl", "states"}, default="mdl"
        Numeric columns cut into supervised MDL bins in ``fit`` (the
        default, ``numbers="mdl"``; ``numbers="states"`` makes each value a state), as in
        :class:`~treelearn.NaiveBayes`.
    categorical : sequence of hashable, default=None
        The columns of numbers kept as states, as in :class:`~treelearn.NaiveBayes`.
    class_arcs : {"average", "all"}, default="average"
        ``"average"``: each arc ``C -> X_v`` from the class is in or out of the network
        independently (prior ``arc_prior``), and the average runs over every directed
        feature tree and every subset of the class arcs (Dash and Cooper's model averaging
        [2]_ over Cerquides and López de Màntaras' structures [1]_): a feature the data
        show independent of the class given its tree parent stops moving the posterior.
        ``"all"``: every feature has the class as a parent (their TBMATAN, the average over
        the undirected feature trees only; the default before the option).
    arc_prior : float, default=0.5
        Under ``class_arcs="average"``, each class arc's prior probability (in ``(0, 1)``);
        not read under ``"all"``.

    Attributes
    ----------
    classes_, class_name_, class_count_, feature_names_in_, n_features_in_ : as
        :class:`~treelearn.NaiveBayes`.
    class_log_prior_ : the BDeu posterior mean of the class, ``(n_c + s / r_C) / (n + s)``.
    states_ : each feature's states.
    edge_posteriors_ : ``d x d`` posterior probabilities of the feature-tree edges
        (either direction).
    log_weights_ : ``d x d`` log edge weights of the posterior over feature trees
        (``class_arcs="all"``).
    log_arc_weights_ : ``(d + 1) x d`` log arc weights ``log W_uv`` of the directed trees,
        row ``d`` the root's (``class_arcs="average"``; each column less a constant).
    arc_posteriors_ : ``(d + 1) x d``, ``P(u -> v | D)``; row ``d``: ``P(v is the root | D)``
        (``class_arcs="average"``; made on first read, as ``feature_class_posteriors_``
        and that model's ``edge_posteriors_``).
    class_arc_posteriors_ : ``(d + 1) x d``, ``P(C -> X_v | u -> v, D)``, the class arc's
        posterior given the tree arc (``class_arcs="average"``).
    feature_class_posteriors_ : ``d``, ``P(C -> X_v | D)`` over every tree
        (``class_arcs="average"``).

    Notes
    -----
    Under ``class_arcs="average"`` a structure is a directed tree over the features (its
    root's family: the class or nothing) with each class arc in or out. With BDeu
    marginal likelihoods ``ML`` (equivalent sample size ``s``: pseudo-counts
    ``s / (q r_v)`` per cell of a family with ``q`` parent configurations), a uniform
    prior over directed trees and ``π = arc_prior``, everything factorises over the
    features, so the sum over the class-arc subsets moves inside each arc:

    ``P(D) ∝ sum_A prod_v W_pa(v) v``, ``W_uv = π ML(D_v | C, X_u) + (1 - π) ML(D_v | X_u)``

    (the root's arc: ``| C`` against ``| nothing``), and the joint predictive is

    ``P(c, x | D) = θ_c Z(W ∘ T(c, x)) / Z(W)``, ``T_uv(c, x) = p_uv θ(x_v | c, x_u) +
    (1 - p_uv) θ(x_v | x_u)``,

    ``p_uv = π ML(D_v | C, X_u) / W_uv``, ``θ`` the posterior means, ``Z`` the sum over
    every arborescence (Tutte's directed matrix-tree theorem [3]_, in logs and without a
    subtraction): one sum per row and class, ``O(d^3)`` each. As ``π -> 1`` this is the ``"all"`` model: BDeu is
    score equivalent, so every rooting of a tree weighs the same.

    Missing feature values in training: each family is counted over the rows where its
    features are observed (available-case BDeu, :func:`pairwise_complete_tables`; the
    exact posterior over trees of incomplete rows has no closed form). Without missing
    values this is the exact posterior. Under ``"average"`` each family's tables and
    marginal likelihood come from its own rows, the latter over ``ML(D_v | C)`` on those
    rows (so as ``arc_prior -> 1`` the tree posterior is ``"all"``'s; its predictive
    corrects the pair tables to each feature's own margins, so the two differ there).
    At prediction time missing values are summed
    out exactly (through their completions). An unseen feature value raises
    :class:`~treelearn.UnseenStateError`.

    See Also
    --------
    TAN : the one most likely tree.
    BayesianTrees : the same average over trees, unsupervised.

    References
    ----------
    .. [1] Cerquides, J. and López de Màntaras, R. (2005). TAN classifiers based on
       decomposable distributions. Machine Learning 59(3), 323-354.
    .. [2] Dash, D. and Cooper, G. F. (2002). Exact model averaging with naive Bayesian
       classifiers. ICML, 91-98.
    .. [3] Meilă, M. and Jaakkola, T. (2006). Tractable Bayesian learning of tree belief
       networks. Statistics and Computing 16(1), 77-92.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
    >>> X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
    >>> clf = tl.BayesianTAN(equivalent_sample_size=1.0).fit(X, y)
    >>> clf.predict_proba(X.head(2)).sum(axis=1).round(12).tolist()
    [1.0, 1.0]
    >>> round(float(clf.edge_posteriors_.sum()) / 2, 9)   # three edges in every tree of 4 features
    3.0
    """

    #: the average over every feature tree has no one network to query or draw
    capabilities: ClassVar[frozenset[str]] = frozenset({"classify", "score", "explain", "explorer"})
    _parameter_constraints: ClassVar[dict] = {
        "equivalent_sample_size": [Interval(Real, 0, None, closed="neither")],
        "class_arcs": [Options(*CLASS_ARCS)],
        "arc_prior": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(
        self,
        equivalent_sample_size: float = 1.0,
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
        class_arcs: str = "average",
        arc_prior: float = 0.5,
    ) -> None:
        self.equivalent_sample_size = equivalent_sample_size
        self.numbers = numbers
        self.categorical = categorical
        self.class_arcs = class_arcs
        self.arc_prior = arc_prior

    def _prior_pseudocount(self, params: dict) -> float:
        return params["equivalent_sample_size"] / len(self.classes_)  # BDeu: s / r_C per class

    def _learn(self, stats: ClassCounts, params: dict) -> None:
        """Count ``X`` and ``y`` once, and build the posterior over trees (pairwise-complete
        counts where cells are missing: :func:`pairwise_complete_tables`)."""
        s = params["equivalent_sample_size"]
        d = stats.class_index
        self.states_ = [list(st) for st in stats.states[:d]]
        r_c = len(self.classes_)
        width = int(sum(len(st) for st in self.states_))
        if params["class_arcs"] == "average":
            check_memory(
                8.0 * 6 * r_c * (width + 1) * width,
                f"BayesianTAN's per-class tables ({r_c} x {width + 1} x {width}, six of them)",
                "use fewer features, or fewer states (max_states)",
            )
            joints = np.stack([stats.within_class(c).counts.joint for c in range(r_c)])
            cards = [len(st) for st in self.states_]
            self._set_arc_average(arc_averaged_tables(joints, cards, s, params["arc_prior"]))
            return
        check_memory(
            8.0 * 3 * r_c * width * width,
            f"BayesianTAN's per-class tables ({r_c} x {width} x {width}, three of them)",
            "use fewer features, or fewer states (max_states)",
        )
        log_w = np.zeros((d, d))
        thetas, rhos = [], []
        for c in range(r_c):
            counts = stats.within_class(c).counts
            totals = np.asarray(counts.pair_totals(), dtype=float)
            # every pair observed on every row of the class (weights: up to round-off)
            if not d or np.allclose(totals, float(counts.n_rows), rtol=1e-9, atol=0):
                log_w = log_w + bdeu_edge_weights(counts, s / r_c)[1]
                theta, rho = bdeu_predictive_tables(counts, s / r_c)
            else:
                edge_w, theta, rho = pairwise_complete_tables(counts, s / r_c)
                log_w = log_w + edge_w
            thetas.append(theta)
            rhos.append(rho)
        log_w[np.arange(d), np.arange(d)] = -np.inf
        self._set_posterior(log_w, np.stack(thetas), np.stack(rhos))

    def _set_arc_average(self, tables: dict[str, np.ndarray]) -> None:
        """The fitted tables of ``class_arcs="average"`` (:func:`arc_averaged_tables`), and
        what follows from them (learned or loaded)."""
        for name in ("log_weights_", "log_rho_", "_edge_posteriors"):  # a refit from "all"
            self.__dict__.pop(name, None)
        d = len(self.states_)
        self.log_arc_weights_ = tables["log_arcs"]
        self.class_arc_posteriors_ = tables["class_arc"]
        self.log_arc_tables_ = tables["log_tables"]
        self.log_theta_ = tables["log_theta"]
        self.offsets_ = np.concatenate([[0], np.cumsum([len(st) for st in self.states_])[:-1]])
        arcs, roots = self.log_arc_weights_[:d], self.log_arc_weights_[d]
        self.log_normaliser_ = float(log_arborescence_sum(arcs, roots)) if d else 0.0
        self._arc_summary: dict | None = None  # the posteriors of arcs, made on first read

    def _averaged(self) -> bool:
        """Whether the fitted model is ``class_arcs="average"``'s (its tables, not the option)."""
        return "log_arc_weights_" in self.__dict__

    def _summary(self, name: str) -> np.ndarray:
        """A posterior summary of the arcs under ``class_arcs="average"``: made on first
        read (``O(d^5)``, :func:`~treelearn.structure._arborescence_sums.arc_marginals`:
        0.2 s at 30 features, 4 s at 60), not by ``fit``, whose predictions need none."""
        if not self._averaged():
            raise AttributeError(f"{name} (a BayesianTAN fitted with class_arcs='average')")
        if self._arc_summary is None:
            d = len(self.states_)
            arcs, roots = self.log_arc_weights_[:d], self.log_arc_weights_[d]
            if d:
                P, P_root = arc_marginals(arcs, roots)
            else:
                P, P_root = np.zeros((0, 0)), np.zeros(0)
            arc = np.clip(np.vstack([P, P_root]), 0.0, 1.0)
            self._arc_summary = {
                "arc_posteriors_": arc,
                "edge_posteriors_": np.clip(P + P.T, 0.0, 1.0),
                # P(C -> X_v | D): over v's parent, the class arc's chance given that parent
                "feature_class_posteriors_": np.clip(
                    (arc * self.class_arc_posteriors_).sum(axis=0), 0.0, 1.0
                ),
            }
        return self._arc_summary[name]

    @property
    def edge_posteriors_(self) -> np.ndarray:
        """``d x d`` posterior probabilities of the feature-tree edges (either direction)."""
        if "_edge_posteriors" in self.__dict__:
            return self._edge_posteriors
        return self._summary("edge_posteriors_")

    @property
    def arc_posteriors_(self) -> np.ndarray:
        """``(d + 1) x d``: ``P(u -> v | D)``, row ``d`` ``P(v is the root | D)``
        (``class_arcs="average"``)."""
        return self._summary("arc_posteriors_")

    @property
    def feature_class_posteriors_(self) -> np.ndarray:
        """``d``: ``P(C -> X_v | D)``, over every tree (``class_arcs="average"``)."""
        return self._summary("feature_class_posteriors_")

    def _set_posterior(self, log_w: np.ndarray, log_theta: np.ndarray, log_rho: np.ndarray) -> None:
        """The fitted tables, and what follows from them (learned or loaded)."""
        for name in ("log_arc_weights_", "class_arc_posteriors_", "log_arc_tables_"):
            self.__dict__.pop(name, None)  # a refit from "average"
        d = len(self.states_)
        self.log_weights_ = log_w
        self.log_theta_ = log_theta  # (classes, K): log θ_v|c
        self.log_rho_ = log_rho  # (classes, K, K)
        self.log_normaliser_ = float(log_spanning_tree_sum(log_w)) if d > 1 else 0.0
        self._edge_posteriors = (
            np.clip(edge_marginals(log_w)[0], 0.0, 1.0) if d > 1 else np.zeros((d, d))
        )
        self.offsets_ = np.concatenate([[0], np.cumsum([len(st) for st in self.states_])[:-1]])

    def _feature_states(self) -> list:
        return self.states_

    def _complete_joint(self, codes: np.ndarray) -> np.ndarray:
        if self._averaged():
            return self._complete_joint_averaged(codes)
        idx = self.offsets_[None, :] + codes
        out = np.empty((len(codes), len(self.classes_)))
        d = codes.shape[1]
        for c in range(len(self.classes_)):
            node = self.log_theta_[c][idx].sum(axis=1) + self.class_log_prior_[c]
            if d < 2:
                out[:, c] = node
                continue
            rho = self.log_rho_[c][idx[:, :, None], idx[:, None, :]]
            out[:, c] = node + log_spanning_tree_sum(self.log_weights_ + rho) - self.log_normaliser_
        return out

    def _complete_joint_averaged(self, codes: np.ndarray) -> np.ndarray:
        """``log P(c, x | D)`` of complete rows under ``class_arcs="average"``: one
        arborescence sum per row and class of the arc weights times the row's averaged
        tables, over that of the weights (rows in chunks: one ``(rows, d + 1, d)`` gather)."""
        d, k = codes.shape[1], len(self.classes_)
        out = np.tile(self.class_log_prior_, (len(codes), 1))
        if d == 0:
            return out
        K = self.log_arc_tables_.shape[1] - 1
        idx = self.offsets_[None, :] + codes
        parents = np.hstack([idx, np.full((len(codes), 1), K)])
        arcs, roots = self.log_arc_weights_[:d], self.log_arc_weights_[d]
        step = max(1, BATCH_ELEMENTS // ((d + 1) * d))
        for start in range(0, len(codes), step):
            rows = slice(start, start + step)
            for c in range(k):
                t = self.log_arc_tables_[c][parents[rows, :, None], idx[rows, None, :]]
                z = log_arborescence_sum(arcs + t[:, :d], roots + t[:, d])
                out[rows, c] += z - self.log_normaliser_
        return out

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """``log P(c, x_observed | D)`` per row and class, averaged over all feature trees."""
        card = np.array([len(st) for st in self.states_], dtype=np.int64)
        return log_sum_over_completions(
            codes, card, self._complete_joint, list(self.feature_names_in_)
        )

    @property
    def n_parameters(self) -> int:
        """Free parameters of the pairwise tables the average is taken over: the prior's
        ``k - 1``, per class ``r_v - 1`` per feature and ``(r_u - 1)(r_v - 1)`` per feature
        pair; under ``class_arcs="average"`` the pooled tables (no class arc) once more."""
        check_is_fitted(self)
        r = np.array([len(st) for st in self.states_]) - 1
        k = len(self.classes_)
        pairs = (r.sum() ** 2 - (r**2).sum()) // 2
        tables = k + 1 if self._averaged() else k
        return int(k - 1 + tables * (r.sum() + pairs))

    def map_tree(self) -> nx.DiGraph:
        """The most probable feature tree ``argmax_T P(T | D)``: the maximum spanning tree of
        ``log_weights_`` (ties in column order), directed away from the first feature;
        edge attribute ``posterior``, the edge's posterior probability ``P(uv in T | D)``.

        >>> import pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
        >>> clf = tl.BayesianTAN().fit(df.drop(columns="PlayTennis"), df["PlayTennis"])
        >>> clf.map_tree().number_of_edges()
        3
        """
        check_is_fitted(self)
        features = list(self.feature_names_in_)
        if self._averaged():
            return self._map_arborescence()
        present = np.isfinite(self.log_weights_)
        finite = np.where(present, self.log_weights_, 0.0)
        tree = nx.Graph()
        tree.add_nodes_from(features)
        tree.add_edges_from(
            (features[i], features[j], {"posterior": float(self.edge_posteriors_[i, j])})
            for i, j in spanning_tree_edges(finite, present)
        )
        out = nx.DiGraph()
        out.add_nodes_from(features)
        if features:
            out.add_edges_from((u, v, tree.edges[u, v]) for u, v in nx.bfs_edges(tree, features[0]))
        return out

    def _map_arborescence(self) -> nx.DiGraph:
        """``class_arcs="average"``'s :meth:`map_tree`: the directed tree of largest
        ``prod W_uv`` (the class arcs summed out), by Edmonds' algorithm from each root."""
        features = list(self.feature_names_in_)
        d = len(features)
        arcs, roots = self.log_arc_weights_[:d], self.log_arc_weights_[d]
        best: tuple[float, list] = (-np.inf, [])
        for r in range(d):
            G = nx.DiGraph()
            G.add_nodes_from(range(d))
            G.add_weighted_edges_from(
                (u, v, float(arcs[u, v])) for u in range(d) for v in range(d) if u != v and v != r
            )
            tree = nx.maximum_spanning_arborescence(G) if d > 1 else G
            score = float(roots[r]) + sum(float(arcs[u, v]) for u, v in tree.edges)
            if score > best[0] + 1e-12:
                best = (score, list(tree.edges))
        out = nx.DiGraph()
        out.add_nodes_from(features)
        out.add_edges_from(
            (
                features[u],
                features[v],
                {
                    "posterior": float(self.edge_posteriors_[u, v]),
                    "class_arc": float(self.class_arc_posteriors_[u, v]),
                },
            )
            for u, v in best[1]
        )
        return out

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`): its exact posterior sums
        over every TAN feature tree for every completion of the unobserved features, so
        the page carries its joint table, ``P(c, x | D)`` of every complete assignment from
        the model's own determinants (at most 4,096 feature assignments, the completions
        the model itself sums over), which the page sums under the evidence: the class
        posterior is ``predict_proba``'s. Drawn: the class above the most probable feature
        tree (:meth:`map_tree`), each tree edge's strength its posterior probability."""
        from ..viz._page_spec import (
            MAX_JOINT,
            MAX_TABLES,
            class_spec,
            parent_first,
            require_fitted,
            title_of,
        )

        require_fitted(self)
        self._require_fitted()  # a partial_fit call after the first: learn its counts now
        features = list(self.feature_names_in_)
        d, k = len(features), len(self.classes_)
        cards = [len(st) for st in self.states_]
        total = float(np.prod(cards, dtype=float))
        if total > MAX_JOINT or total * k * (d + 1) > MAX_TABLES:
            raise TreelearnError(
                f"the explorer computes this {type(self).__name__}'s exact posteriors from "
                f"its joint table (each entry a sum over every TAN feature tree), but its {d} "
                f"features have {total:,.0f} complete assignments (more than {MAX_JOINT:,}, the "
                f"completions the model itself sums over): use predict_proba(), or explore a "
                f"TAN fitted to the same data (tl.TAN)"
            )
        codes = np.array(list(np.ndindex(*cards)), dtype=np.int64).reshape(int(total), d)
        p = np.exp(self._complete_joint(codes))  # rows x classes
        if not np.isfinite(p).all():
            raise TreelearnError(
                f"this {type(self).__name__} has a non-finite weight or table entry: refit it "
                f"with equivalent_sample_size > 0"
            )
        tree = self.map_tree()
        index = {f: j for j, f in enumerate(features)}
        parent = [-1] * d
        strength: list = [None] * d
        for u, v, posterior in tree.edges(data="posterior"):
            parent[index[v]], strength[index[v]] = index[u], posterior
        theta = np.exp(self.log_theta_)
        off = [int(o) for o in self.offsets_]
        parts = [f"{d} features"]
        if title is None:
            title = (
                title_of(
                    "BayesianTAN: the average over every directed feature tree and every "
                    "subset of class arcs"
                    if self._averaged()
                    else "BayesianTAN: the average over every TAN feature tree",
                    parts,
                    float(np.sum(self.class_count_)),
                )
                + " · drawn: the most probable feature tree"
            )
        spec = class_spec(
            features,
            self.states_,
            self.class_name_,
            self.classes_,
            np.exp(self.class_log_prior_),
            [theta[:, o : o + c] for o, c in zip(off, cards)],
            title,
            parent=parent,
            strength=strength,
        )
        rows = np.hstack([np.repeat(codes, k, axis=0), np.tile(np.arange(k), len(codes))[:, None]])
        return {
            **spec,
            "order": [d, *parent_first(dict(enumerate(None if p < 0 else p for p in parent)))],
            "strength": "posterior",
            "joint": {"rows": rows.tolist(), "p": p.reshape(-1).tolist()},
        }

    def _drawable(self) -> bool:
        return False  # an average over every tree: no one network to draw

    # ------------------------------------------------------------ saving
    def _fitted_state(self) -> dict:
        state = {"states": [[encode_label(s) for s in st] for st in self.states_]}
        if self._averaged():
            return {
                **state,
                "log_weights": json_value(self.log_arc_weights_),
                "class_arc": json_value(self.class_arc_posteriors_),
                "log_theta": json_value(self.log_theta_),
                "log_arc_tables": json_value(self.log_arc_tables_),
            }
        return {
            **state,
            "log_weights": json_value(self.log_weights_),
            "log_theta": json_value(self.log_theta_),
            "log_rho": json_value(self.log_rho_),
        }

    @classmethod
    def _check_saved_params(cls, saved: SavedState, est: Any) -> None:
        given = saved.raw("params", dict)
        if "class_arcs" not in given:  # a file from before the option: every class arc
            given.update(class_arcs="all", arc_prior=0.5)
            est.set_params(class_arcs="all", arc_prior=0.5)
        super()._check_saved_params(saved, est)

    def _restore_model(self, saved: SavedState) -> None:
        raw = saved.raw("states", list)
        d = self.n_features_in_
        if len(raw) != d:
            raise saved.fail("states", f"holds {len(raw)} state lists for {d} features")
        self.states_ = [saved.labels_in(st, "states") for st in raw]
        if any(len(st) == 0 for st in self.states_):
            raise saved.fail("states", "has a feature without states")
        k, K = len(self.classes_), sum(len(st) for st in self.states_)
        starts = np.concatenate([[0], np.cumsum([len(st) for st in self.states_])[:-1]])
        log_theta = saved.array("log_theta", (k, K))
        if (log_theta > 0).any() or not np.allclose(
            np.add.reduceat(np.exp(log_theta), starts, axis=1), 1.0, rtol=0, atol=1e-9
        ):
            raise saved.fail("log_theta", "must hold each feature's log-probabilities per class")
        if self.class_arcs == "average":
            self._restore_arc_average(saved, log_theta, starts)
            return
        log_w = saved.array("log_weights", (d, d), finite=False)
        off = ~np.eye(d, dtype=bool)
        if (
            np.isnan(log_w).any()
            or not np.isfinite(log_w[off]).all()
            or not (log_w[~off] == -np.inf).all()
            or not np.allclose(log_w[off], log_w.T[off], rtol=1e-9, atol=1e-9)
        ):
            raise saved.fail(
                "log_weights", "must be symmetric, finite off the diagonal and -inf on it"
            )
        log_rho = saved.array("log_rho", (k, K, K))
        self._set_posterior(log_w, log_theta, log_rho)

    def _restore_arc_average(
        self, saved: SavedState, log_theta: np.ndarray, starts: np.ndarray
    ) -> None:
        d, k = self.n_features_in_, len(self.classes_)
        K = int(sum(len(st) for st in self.states_))
        log_arcs = saved.array("log_weights", (d + 1, d), finite=False)
        off = np.vstack([~np.eye(d, dtype=bool), np.ones((1, d), dtype=bool)])
        if not np.isfinite(log_arcs[off]).all() or not (log_arcs[~off] == -np.inf).all():
            raise saved.fail(
                "log_weights",
                "must hold the log arc weights (d + 1 rows, the root's last), finite but on "
                "the diagonal (-inf)",
            )
        class_arc = saved.array("class_arc", (d + 1, d), low=0.0)
        if (class_arc > 1).any():
            raise saved.fail("class_arc", "must hold probabilities")
        tables = saved.array("log_arc_tables", (k, K + 1, K))
        if (tables > 0).any() or not np.allclose(
            np.add.reduceat(np.exp(tables), starts, axis=2), 1.0, rtol=0, atol=1e-9
        ):
            raise saved.fail(
                "log_arc_tables", "must hold each feature's log-probabilities per class and parent"
            )
        self._set_arc_average(
            {
                "log_arcs": log_arcs,
                "class_arc": class_arc,
                "log_tables": tables,
                "log_theta": log_theta,
            }
        )
