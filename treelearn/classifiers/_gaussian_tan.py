"""Gaussian TAN: a class-conditional linear-Gaussian tree over numeric features.

Within class ``c`` the features form one tree shared by all classes (rooted at
``root``); each feature is a linear-Gaussian function of its tree parent with
class-specific parameters: ``X_v | X_u = x, C = c ~ N(a_cv + b_cv x, s2_cv)``,
and the root ``N(mu_c, s2_c)``. As for discrete TAN (Friedman, Geiger and
Goldszmidt, 1997), the maximum-likelihood tree is the maximum spanning tree of
the conditional mutual information, here Gaussian:
``I(X_i; X_j | C) = sum_c p(c) (-1/2 log(1 - rho_cij^2))``, ``rho_c`` the
correlation within class ``c`` and ``p(c)`` the class proportion. With the tree
fixed, each class's parameters are the per-edge (weighted) least squares from
the class's mean and ML covariance.

A missing feature value at prediction is summed out exactly: the observed
features are Gaussian with the sub-matrix of the covariance the tree implies
(one Cholesky factor per class and pattern of missing features).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._base.errors import ColumnNotFoundError, FeatureMismatchError, TreelearnError
from ..models._gaussian import gaussian_mutual_information, numeric_classes, tree_covariance
from ..structure._trees import orient, spanning_skeleton
from ._decisions import JointLogProbaMixin

__all__ = ["GaussianTAN"]

_LOG_2PI = math.log(2 * math.pi)


class GaussianTAN(JointLogProbaMixin, ClassifierMixin, BaseEstimator):
    """Tree-augmented naive Bayes for numeric features (class-conditional linear-Gaussian tree).

    Parameters
    ----------
    root : the feature at the root of the tree (default: the first).
    fit_prior : the class prior is the class proportions; ``False``: uniform.
    class_prior : the class prior, given (in ``classes_`` order).

    Attributes
    ----------
    classes_, class_log_prior_, feature_names_in_, feature_tree_ (undirected,
    edge ``weight`` = the Gaussian CMI in nats), tree_ (oriented from ``root_``),
    parent_ (index of each feature's parent, -1 for the root), intercept_,
    coefficient_, variance_ (``k x d``: per class and feature), means_, covariances_
    (per class, ML).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import treelearn as tl
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> clf = tl.TAN(numeric="gaussian").fit(X, y)
    >>> sorted(clf.feature_tree_.edges())[:1]
    [('petal length (cm)', 'petal width (cm)')]
    >>> round(clf.score(X, y), 2)
    0.97
    """

    def __init__(self, root: Hashable | None = None, fit_prior: bool = True,
                 class_prior: Sequence[float] | None = None) -> None:
        self.root = root
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> GaussianTAN:
        """Per-class means and covariances (one product), the CMI tree, per-edge least squares."""
        names, A, classes, codes, w, weight = numeric_classes(X, y, sample_weight,
                                                              "a Gaussian TAN")
        n, d = A.shape
        k = len(classes)
        Y = np.zeros((n, k))
        Y[np.arange(n), codes] = w
        means = (Y.T @ A) / weight[:, None]
        centred = A - means[codes]
        cov = np.empty((k, d, d))
        for c in range(k):  # one product per class, over that class's rows only
            rows = codes == c
            part = centred[rows]
            cov[c] = (part * w[rows, None]).T @ part / weight[c]
        cov = (cov + cov.transpose(0, 2, 1)) / 2
        var = np.diagonal(cov, axis1=1, axis2=2)
        flat = var <= 1e-12 * np.maximum(np.abs(means), 1.0) ** 2
        if flat.any():
            c, j = np.argwhere(flat)[0]
            raise TreelearnError(
                f"column {names[j]!r} is constant in class {classes[c]!r} (variance 0): a "
                "Gaussian there has no density; drop the column", column=names[j])
        share = weight / weight.sum()
        cmi = sum(share[c] * gaussian_mutual_information(cov[c]) for c in range(k))
        if self.root is not None and self.root not in names:
            raise ColumnNotFoundError(f"root {self.root!r} is not a feature; the features are "
                                      f"{names[:20]}", column=self.root)
        tree = spanning_skeleton(names, cmi, n=float(weight.sum()))
        oriented = orient(tree, self.root if self.root is not None else names[0])
        index = {v: j for j, v in enumerate(names)}
        parent = np.full(d, -1)
        for u, v in oriented.edges():
            parent[index[v]] = index[u]
        child = np.flatnonzero(parent >= 0)
        pa = parent[child]
        coef = np.zeros((k, d))
        coef[:, child] = cov[:, pa, child] / cov[:, pa, pa]
        intercept = means.copy()
        intercept[:, child] = means[:, child] - coef[:, child] * means[:, pa]
        variance = var.copy()
        variance[:, child] = var[:, child] - coef[:, child] * cov[:, pa, child]
        if (variance <= 1e-12 * var).any():
            c, j = np.argwhere(variance <= 1e-12 * var)[0]
            raise TreelearnError(
                f"columns {names[parent[j]]!r} and {names[j]!r} are perfectly correlated in "
                f"class {classes[c]!r}: the Gaussian has no density; drop one of them",
                column=names[j])
        self.classes_ = classes
        self.class_count_ = weight
        self.class_log_prior_ = self._log_prior(weight)
        self.n_features_in_ = d
        self.feature_names_in_ = np.asarray(names, dtype=object)
        self.feature_tree_ = tree
        self.tree_ = oriented
        self.root_ = names[int(np.flatnonzero(parent < 0)[0])]
        self.parent_ = parent
        self.means_, self.covariances_ = means, cov
        self.intercept_, self.coefficient_, self.variance_ = intercept, coef, variance
        return self

    def fitted_state(self) -> dict:
        """The fitted parameters as JSON-able lists (labels encoded by the caller's rules
        are left to it): what :meth:`set_fitted_state` restores."""
        check_is_fitted(self)
        edges = [[self.feature_names_in_.tolist().index(u),
                  self.feature_names_in_.tolist().index(v), float(w)]
                 for u, v, w in self.feature_tree_.edges(data="weight")]
        return {"parent": self.parent_.tolist(), "intercept": self.intercept_.tolist(),
                "coefficient": self.coefficient_.tolist(), "variance": self.variance_.tolist(),
                "means": self.means_.tolist(), "class_count": self.class_count_.tolist(),
                "class_log_prior": [float(v) for v in self.class_log_prior_],
                "tree_edges": edges}

    def set_fitted_state(self, classes: Any, features: list, state: dict) -> GaussianTAN:
        """Restore what :meth:`fitted_state` gave (``classes`` and ``features`` decoded);
        inconsistent shapes or a non-tree raise :class:`~treelearn.TreelearnError`."""
        k, d = len(classes), len(features)
        parent = np.asarray(state["parent"], dtype=int)
        arrays = {key: np.asarray(state[key], dtype=float)
                  for key in ("intercept", "coefficient", "variance", "means")}
        if parent.shape != (d,) or any(a.shape != (k, d) for a in arrays.values()) or not (
                arrays["variance"] > 0).all() or (parent < 0).sum() != 1:
            raise TreelearnError(f"a Gaussian TAN over {d} features and {k} classes needs one "
                                 "root, a parent per feature and k x d positive variances")
        tree = nx.Graph()
        tree.add_nodes_from(features)
        tree.add_weighted_edges_from((features[i], features[j], w)
                                     for i, j, w in state["tree_edges"])
        oriented = nx.DiGraph()
        oriented.add_nodes_from(features)
        oriented.add_edges_from((features[p], features[v]) for v, p in enumerate(parent) if p >= 0)
        if not nx.is_tree(oriented) or {frozenset(e) for e in tree.edges} != {
                frozenset(e) for e in oriented.edges}:
            raise TreelearnError("the saved parents do not form the saved feature tree")
        self.classes_ = np.asarray(classes)
        self.class_count_ = np.asarray(state["class_count"], dtype=float)
        self.class_log_prior_ = np.asarray(state["class_log_prior"], dtype=float)
        self.n_features_in_ = d
        self.feature_names_in_ = np.asarray(features, dtype=object)
        self.feature_tree_, self.tree_, self.parent_ = tree, oriented, parent
        self.root_ = features[int(np.flatnonzero(parent < 0)[0])]
        self.means_ = arrays["means"]
        self.intercept_, self.coefficient_ = arrays["intercept"], arrays["coefficient"]
        self.variance_ = arrays["variance"]
        return self

    def _log_prior(self, weight: np.ndarray) -> np.ndarray:
        k = len(weight)
        if self.class_prior is not None:
            prior = np.asarray(self.class_prior, dtype=float)
            if prior.shape != (k,) or (prior < 0).any() or not np.isclose(prior.sum(), 1.0):
                raise TreelearnError(f"class_prior must be {k} non-negative probabilities "
                                     f"summing to 1, got {self.class_prior!r}")
        elif self.fit_prior:
            prior = weight / weight.sum()
        else:
            prior = np.full(k, 1.0 / k)
        with np.errstate(divide="ignore"):
            return np.log(prior)

    @property
    def n_parameters(self) -> int:
        """Free parameters: per class, two per root and three per other feature; the prior's."""
        check_is_fitted(self)
        k, d = len(self.classes_), self.n_features_in_
        return k - 1 + k * (2 + 3 * (d - 1))

    def implied_covariance(self) -> np.ndarray:
        """``k x d x d``: each class's covariance as the fitted tree implies it."""
        check_is_fitted(self)
        return tree_covariance(self.parent_, self.coefficient_, self.variance_)

    def _values(self, X: Any) -> np.ndarray:
        check_is_fitted(self)
        names = list(self.feature_names_in_)
        if isinstance(X, pd.DataFrame):
            absent = [c for c in names if c not in X.columns]
            if absent:
                raise FeatureMismatchError(f"X lacks the feature(s) {absent[:10]}")
            X = X[names]
        frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X, dtype=float))
        if frame.shape[1] != len(names):
            raise FeatureMismatchError(f"X has {frame.shape[1]} features; the classifier was "
                                       f"fitted on {len(names)}")
        bad = [c for c, t in frame.dtypes.items()
               if not pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t)]
        if bad:
            raise TreelearnError(f"column {bad[0]!r} is not numeric; give numbers (NaN = missing)",
                                 column=bad[0])
        values = frame.to_numpy(dtype=float, na_value=np.nan)
        if np.isinf(values).any():
            raise TreelearnError("X has an infinite value; give finite numbers (NaN = missing)")
        return values

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """``log p(x_observed, c)``; a missing (NaN) feature is summed out exactly."""
        values = self._values(X)
        n = values.shape[0]
        observed = ~np.isnan(values)
        out = np.tile(self.class_log_prior_, (n, 1))
        complete = observed.all(axis=1)
        if complete.any():  # one term per feature: its regression on its parent
            every = bool(complete.all())
            x = values if every else values[complete]
            # each feature's parent value (the root's own, with coefficient 0): one gather
            xp = x[:, np.where(self.parent_ >= 0, self.parent_, np.arange(len(self.parent_)))]
            scratch = np.empty_like(x)
            terms = np.empty((len(x), len(self.classes_)))
            for c in range(len(self.classes_)):
                np.multiply(xp, self.coefficient_[c], out=scratch)
                scratch += self.intercept_[c]
                np.subtract(x, scratch, out=scratch)
                scratch *= scratch
                var = self.variance_[c]
                terms[:, c] = scratch @ (1.0 / var)
                terms[:, c] += np.log(var).sum() + len(var) * _LOG_2PI
            terms *= -0.5
            if every:
                out += terms
            else:
                out[complete] += terms
        if not complete.all():
            sigma = self.implied_covariance()
            patterns, which = np.unique(observed[~complete], axis=0, return_inverse=True)
            rows = np.flatnonzero(~complete)
            for p, keep in enumerate(patterns):  # a loop over missing patterns, not rows
                r = rows[which.ravel() == p]
                if not keep.any():
                    continue
                x = values[np.ix_(r, np.flatnonzero(keep))]
                for c in range(len(self.classes_)):
                    S = sigma[c][np.ix_(keep, keep)]
                    L = scipy.linalg.cholesky(S, lower=True)
                    z = scipy.linalg.solve_triangular(L, (x - self.means_[c, keep]).T, lower=True)
                    out[r, c] += -0.5 * ((z**2).sum(axis=0) + keep.sum() * _LOG_2PI) - np.log(
                        np.diag(L)).sum()
        return out
