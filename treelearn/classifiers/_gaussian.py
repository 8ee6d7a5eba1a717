"""Gaussian class-conditional classifiers: quadratic, linear, naive and isotropic discriminants.

``p(x | c) = N(x; mu_c, Sigma_c)`` with maximum-likelihood estimates (divisor:
the class's total weight) and the class prior ``p(c) = n_c / n``. The four
``covariance`` choices differ only in ``Sigma_c``:

=============  ================================================  scikit-learn equal
``full``       each class's own covariance matrix                ``QuadraticDiscriminantAnalysis(reg_param=reg)``
``shared``     one pooled within-class matrix ``sum_c n_c S_c / n``  ``LinearDiscriminantAnalysis(solver="lsqr")``
``diagonal``   each class's per-feature variances                 ``GaussianNB(var_smoothing=0)``
``isotropic``  ``sigma_c^2 I``, ``sigma_c^2`` = mean of the class's per-feature variances
=============  ================================================  ===================

``reg`` shrinks every covariance towards the identity as scikit-learn's QDA does:
``(1 - reg) Sigma + reg I``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._base.errors import FeatureMismatchError, TreelearnError
from ..encoding._table import python_scalar
from ..models._gaussian import numeric_classes, numeric_matrix
from ._decisions import JointLogProbaMixin

__all__ = ["GaussianClassifier"]

_COVARIANCES = ("full", "shared", "diagonal", "isotropic")
_LOG_2PI = math.log(2 * math.pi)


class GaussianClassifier(JointLogProbaMixin, ClassifierMixin, BaseEstimator):
    """Gaussian class-conditional classifier (QDA, LDA, Gaussian naive Bayes, isotropic).

    Parameters
    ----------
    covariance : ``"full"`` (one matrix per class), ``"shared"`` (pooled),
        ``"diagonal"`` (naive Bayes) or ``"isotropic"`` (one variance per class).
    reg : in ``[0, 1]``; each covariance becomes ``(1 - reg) Sigma + reg I``.

    Attributes
    ----------
    classes_, priors_ (``n_c / n``), means_ (``k x d``), covariances_ (``k x d x d``
    for full, ``d x d`` shared, ``k x d`` variances for diagonal, ``k`` for isotropic).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import treelearn as tl
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> clf = tl.GaussianClassifier("full").fit(X, y)
    >>> round(clf.score(X, y), 2)
    0.98
    >>> clf.predict(X.iloc[:1], loss=[[0, 1, 1], [1, 0, 1], [1, 1, 0]]).tolist()
    [0]
    """

    def __init__(self, covariance: str = "full", reg: float = 0.0) -> None:
        self.covariance = covariance
        self.reg = reg

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

    # ------------------------------------------------------------ fitting
    def _check_params(self) -> None:
        if self.covariance not in _COVARIANCES:
            raise TreelearnError(
                f"covariance={self.covariance!r}; choose one of {list(_COVARIANCES)}"
            )
        reg = self.reg
        if isinstance(reg, bool) or not isinstance(reg, (int, float)) or not 0 <= reg <= 1:
            raise TreelearnError(f"reg={reg!r}; it must be a number in [0, 1]")

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> GaussianClassifier:
        """Estimate the class priors, means and covariances (maximum likelihood)."""
        self._check_params()
        names, A, classes, codes, w, weight = numeric_classes(X, y, sample_weight,
                                                              "GaussianClassifier")
        n, d = A.shape
        k = len(classes)
        # one product for all class sums: R is the (weighted) class indicator, k x n
        R = np.zeros((k, n))
        R[codes, np.arange(n)] = w
        means = R @ A / weight[:, None]
        centred = A - means[codes]
        wc = centred * w[:, None]
        r = float(self.reg)
        if self.covariance == "full":
            cov = np.stack([wc[codes == c].T @ centred[codes == c] / weight[c] for c in range(k)])
            cov = (1 - r) * cov + r * np.eye(d)
        elif self.covariance == "shared":
            cov = wc.T @ centred / weight.sum()
            cov = (1 - r) * cov + r * np.eye(d)
        else:
            var = R @ (centred**2) / weight[:, None]
            if self.covariance == "isotropic":
                var = var.mean(axis=1)
            cov = (1 - r) * var + r
        self.classes_ = classes
        self.n_features_in_ = d
        if isinstance(X, pd.DataFrame):
            self.feature_names_in_ = np.asarray(names, dtype=object)
        self.priors_ = weight / weight.sum()
        self.means_ = means
        self.covariances_ = cov
        self._factor(names)
        return self

    def _factor(self, names: list) -> None:
        """Cholesky factors (or variances) and log-determinants; a singular covariance is refused."""
        cov = self.covariances_
        fix = ("; set reg > 0 (e.g. reg=1e-3) to shrink it towards the identity, or choose a "
               "simpler covariance")
        if self.covariance in ("diagonal", "isotropic"):
            var = cov if self.covariance == "diagonal" else cov[:, None]
            bad = var <= 0
            if bad.any():
                c, j = np.argwhere(bad)[0]
                what = (f"feature {names[j]!r} is constant" if self.covariance == "diagonal"
                        else "every feature is constant")
                raise TreelearnError(
                    f"{what} within class {python_scalar(self.classes_[c])!r} (variance 0)" + fix,
                    column=names[j] if self.covariance == "diagonal" else None,
                    hint="set reg > 0",
                )
            self._chol = None
            self._logdet = np.log(np.broadcast_to(var, self.means_.shape)).sum(axis=1)
            return
        mats = cov if self.covariance == "full" else cov[None]
        chols, logdets = [], []
        for c, S in enumerate(mats):
            eig = np.linalg.eigvalsh(S)
            # numpy's matrix_rank tolerance: below it the smallest eigenvalue is rounding noise
            if eig[0] <= eig[-1] * len(eig) * np.finfo(float).eps:
                who = ("the pooled covariance" if self.covariance == "shared"
                       else f"the covariance of class {python_scalar(self.classes_[c])!r}")
                raise TreelearnError(
                    f"{who} is singular (smallest eigenvalue {eig[0]:.3g}): some features are "
                    "constant or linear combinations of others, or the class has no more rows "
                    "than features" + fix,
                    hint="set reg > 0",
                )
            L = np.linalg.cholesky(S)
            # x -> L^-1 x whitens: kept as the matrix (L^-1)^T so prediction is one product
            chols.append(scipy.linalg.solve_triangular(L, np.eye(len(S)), lower=True).T)
            logdets.append(2 * np.log(np.diag(L)).sum())
        self._chol = chols
        self._logdet = np.array(logdets)

    # ------------------------------------------------------------ prediction
    def _matrix(self, X: Any) -> np.ndarray:
        check_is_fitted(self)
        if isinstance(X, pd.DataFrame) and hasattr(self, "feature_names_in_"):
            absent = [c for c in self.feature_names_in_ if c not in X.columns]
            if absent:
                raise FeatureMismatchError(f"X lacks the fitted feature(s) {absent[:10]}")
            X = X[list(self.feature_names_in_)]
        _, A = numeric_matrix(X, where="GaussianClassifier")
        if A.shape[1] != self.n_features_in_:
            raise FeatureMismatchError(
                f"X has {A.shape[1]} features; the classifier was fitted on {self.n_features_in_}"
            )
        return A

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """``log p(x, c)`` for each row and class (columns in ``classes_`` order)."""
        A = self._matrix(X)
        k, d = self.means_.shape
        out = np.empty((A.shape[0], k))
        for c in range(k):  # classes only: each step is vectorised over rows
            diff = A - self.means_[c]
            if self._chol is None:
                var = self.covariances_[c]
                maha = (diff**2 / var).sum(axis=1)
            else:
                z = diff @ self._chol[c if self.covariance == "full" else 0]  # whitened rows
                maha = np.einsum("ij,ij->i", z, z)
            logdet = self._logdet[c if self.covariance != "shared" else 0]
            out[:, c] = math.log(self.priors_[c]) - 0.5 * (d * _LOG_2PI + logdet + maha)
        return out

