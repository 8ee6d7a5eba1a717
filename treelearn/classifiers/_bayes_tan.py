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
from .._base.validation import Interval
from ..learners._bayes_trees import (
    bdeu_edge_weights,
    bdeu_predictive_tables,
    log_sum_over_completions,
)
from ..stats._counts import ClassCounts
from ..structure._spanning_sums import edge_marginals, log_spanning_tree_sum
from ..structure._trees import spanning_tree_edges
from ._base import CategoricalClassifier

__all__ = ["BayesianTAN", "pairwise_complete_tables"]


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

    Attributes
    ----------
    classes_, class_name_, class_count_, feature_names_in_, n_features_in_ : as
        :class:`~treelearn.NaiveBayes`.
    class_log_prior_ : the BDeu posterior mean of the class, ``(n_c + s / r_C) / (n + s)``.
    states_ : each feature's states.
    log_weights_ : ``d x d`` log edge weights of the posterior over feature trees.
    edge_posteriors_ : ``d x d`` posterior probabilities of the feature-tree edges.

    Notes
    -----
    Missing feature values in training: each class's pair tables are counted over the rows
    where both features are observed and each feature's over the rows where it is
    (available-case BDeu, :func:`pairwise_complete_tables`; the exact posterior over trees
    of incomplete rows has no closed form). Without missing values this is Cerquides and
    López de Màntaras' posterior exactly. At prediction time missing values are summed
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
        "equivalent_sample_size": [Interval(Real, 0, None, closed="neither")]
    }

    def __init__(
        self,
        equivalent_sample_size: float = 1.0,
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
    ) -> None:
        self.equivalent_sample_size = equivalent_sample_size
        self.numbers = numbers
        self.categorical = categorical

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

    def _set_posterior(self, log_w: np.ndarray, log_theta: np.ndarray, log_rho: np.ndarray) -> None:
        """The fitted tables, and what follows from them (learned or loaded)."""
        d = len(self.states_)
        self.log_weights_ = log_w
        self.log_theta_ = log_theta  # (classes, K): log θ_v|c
        self.log_rho_ = log_rho  # (classes, K, K)
        self.log_normaliser_ = float(log_spanning_tree_sum(log_w)) if d > 1 else 0.0
        self.edge_posteriors_ = (
            np.clip(edge_marginals(log_w)[0], 0.0, 1.0) if d > 1 else np.zeros((d, d))
        )
        self.offsets_ = np.concatenate([[0], np.cumsum([len(st) for st in self.states_])[:-1]])

    def _feature_states(self) -> list:
        return self.states_

    def _complete_joint(self, codes: np.ndarray) -> np.ndarray:
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

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """``log P(c, x_observed | D)`` per row and class, averaged over all feature trees."""
        card = np.array([len(st) for st in self.states_], dtype=np.int64)
        return log_sum_over_completions(
            codes, card, self._complete_joint, list(self.feature_names_in_)
        )

    @property
    def n_parameters(self) -> int:
        """Free parameters of the class-conditional pairwise tables the average is taken over:
        the prior's ``k - 1``, per class ``r_v - 1`` per feature and ``(r_u - 1)(r_v - 1)``
        per feature pair."""
        check_is_fitted(self)
        r = np.array([len(st) for st in self.states_]) - 1
        k = len(self.classes_)
        pairs = (r.sum() ** 2 - (r**2).sum()) // 2
        return int(k - 1 + k * r.sum() + k * pairs)

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
                    "BayesianTAN: the average over every TAN feature tree",
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
        return {
            "states": [[encode_label(s) for s in st] for st in self.states_],
            "log_weights": json_value(self.log_weights_),
            "log_theta": json_value(self.log_theta_),
            "log_rho": json_value(self.log_rho_),
        }

    def _restore_model(self, saved: SavedState) -> None:
        raw = saved.raw("states", list)
        d = self.n_features_in_
        if len(raw) != d:
            raise saved.fail("states", f"holds {len(raw)} state lists for {d} features")
        self.states_ = [saved.labels_in(st, "states") for st in raw]
        if any(len(st) == 0 for st in self.states_):
            raise saved.fail("states", "has a feature without states")
        k, K = len(self.classes_), sum(len(st) for st in self.states_)
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
        log_theta = saved.array("log_theta", (k, K))
        starts = np.concatenate([[0], np.cumsum([len(st) for st in self.states_])[:-1]])
        if (log_theta > 0).any() or not np.allclose(
            np.add.reduceat(np.exp(log_theta), starts, axis=1), 1.0, rtol=0, atol=1e-9
        ):
            raise saved.fail("log_theta", "must hold each feature's log-probabilities per class")
        log_rho = saved.array("log_rho", (k, K, K))
        self._set_posterior(log_w, log_theta, log_rho)
