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

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._base.errors import FeatureMismatchError, MissingValuesError
from .._base.logspace import logsumexp
from .._base.validation import check_param
from ..encoding._table import CategoricalTableInput, encode
from ..learners._bayes_trees import (
    bdeu_edge_weights,
    bdeu_predictive_tables,
    log_sum_over_completions,
)
from ..sources._count import as_frame, count_by_class
from ..stats._settings import CONSTRAINTS, NOTES
from ..structure._spanning_sums import edge_marginals, log_spanning_tree_sum

__all__ = ["BayesianTAN"]


class BayesianTAN(CategoricalTableInput, ClassifierMixin, BaseEstimator):
    """Bayesian model averaging over every TAN structure (scikit-learn classifier).

    Parameters
    ----------
    ess : BDeu's equivalent sample size over the whole network (> 0).

    Attributes
    ----------
    classes_ : the sorted class labels.
    feature_names_in_ : the features' names (``x0, x1, ...`` for arrays).
    log_weights_ : ``d x d`` log edge weights of the posterior over feature trees.
    edge_posteriors_ : ``d x d`` posterior probabilities of the feature-tree edges.

    The training data must have no missing feature values; at prediction time
    missing values are summed out exactly (through their completions). An
    unseen feature value raises :class:`~treelearn.UnseenStateError`.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
    >>> X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
    >>> clf = tl.BayesianTAN(ess=1.0).fit(X, y)
    >>> clf.predict_proba(X.head(2)).sum(axis=1).round(12).tolist()
    [1.0, 1.0]
    >>> round(float(clf.edge_posteriors_.sum()) / 2, 9)   # three edges in every tree of 4 features
    3.0
    """

    def __init__(self, ess: float = 1.0) -> None:
        self.ess = ess

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> BayesianTAN:
        """Count ``X`` (no missing values) and ``y`` once, and build the posterior over trees."""
        s = check_param("ess", self.ess, CONSTRAINTS["equivalent_sample_size"],
                        note=NOTES["equivalent_sample_size"])
        stats = count_by_class(X, y, sample_weight=sample_weight)
        d = stats.class_index
        self.classes_ = np.asarray(stats.classes)
        self.feature_names_in_ = np.asarray(stats.columns[:d], dtype=object)
        self.n_features_in_ = d
        self.states_ = [list(st) for st in stats.states[:d]]
        r_c = len(self.classes_)
        class_count = np.asarray(stats.class_count, dtype=float)
        log_w = np.zeros((d, d))
        thetas, rhos = [], []
        for c in range(r_c):
            counts = stats.within_class(c).counts
            totals = np.asarray(counts.pair_totals(), dtype=float)
            if d and (totals != float(counts.n_rows)).any():
                j = int(np.argwhere(totals != float(counts.n_rows))[0][0])
                raise MissingValuesError(
                    f"BayesianTAN needs complete training rows; feature "
                    f"{self.feature_names_in_[j]!r} has missing values: drop or impute them",
                    column=self.feature_names_in_[j],
                )
            log_w = log_w + bdeu_edge_weights(counts, s / r_c)[1]
            theta, rho = bdeu_predictive_tables(counts, s / r_c)
            thetas.append(theta)
            rhos.append(rho)
        log_w[np.arange(d), np.arange(d)] = -np.inf
        self.log_weights_ = log_w
        self.log_normaliser_ = float(log_spanning_tree_sum(log_w)) if d > 1 else 0.0
        self.edge_posteriors_ = (np.clip(edge_marginals(log_w)[0], 0.0, 1.0) if d > 1
                                 else np.zeros((d, d)))
        self.log_class_prior_ = np.log((class_count + s / r_c) / (class_count.sum() + s))
        self.log_theta_ = np.stack(thetas)  # (classes, K): log θ_v|c
        self.log_rho_ = np.stack(rhos)  # (classes, K, K)
        self.offsets_ = np.concatenate([[0], np.cumsum([len(st) for st in self.states_])[:-1]])
        return self

    def _codes(self, X: Any) -> np.ndarray:
        check_is_fitted(self)
        names = list(self.feature_names_in_)
        X = as_frame(X, names)
        absent = [c for c in names if c not in X.columns]
        extra = [c for c in X.columns if c not in set(names)]
        if absent or extra:
            raise FeatureMismatchError(
                f"X's columns differ from the features the classifier was fitted on: "
                f"missing {absent[:10]}, unexpected {extra[:10]}"
            )
        table = encode(X[names], missing="pairwise", states=dict(zip(names, self.states_)),
                       max_states=np.iinfo(np.int64).max)
        return table.codes.astype(np.int64)

    def _complete_joint(self, codes: np.ndarray) -> np.ndarray:
        idx = self.offsets_[None, :] + codes
        out = np.empty((len(codes), len(self.classes_)))
        d = codes.shape[1]
        for c in range(len(self.classes_)):
            node = self.log_theta_[c][idx].sum(axis=1) + self.log_class_prior_[c]
            if d < 2:
                out[:, c] = node
                continue
            rho = self.log_rho_[c][idx[:, :, None], idx[:, None, :]]
            out[:, c] = node + log_spanning_tree_sum(self.log_weights_ + rho) - self.log_normaliser_
        return out

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """``log P(c, x_observed | D)`` per row and class, averaged over all feature trees."""
        codes = self._codes(X)
        if len(codes) == 0:
            return np.zeros((0, len(self.classes_)))
        card = np.array([len(st) for st in self.states_], dtype=np.int64)
        return log_sum_over_completions(codes, card, self._complete_joint,
                                        list(self.feature_names_in_))

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """``log P(c | x, D)``: the structure-averaged joint, normalised over classes."""
        joint = self.predict_joint_log_proba(X)
        return joint - logsumexp(joint, axis=1)[:, None]

    def predict_proba(self, X: Any) -> np.ndarray:
        """``P(c | x, D)``; columns in ``classes_`` order."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: Any) -> np.ndarray:
        """The most probable class of each row."""
        return self.classes_[np.argmax(self.predict_joint_log_proba(X), axis=1)]
