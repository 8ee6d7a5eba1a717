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
``(1 - reg) Sigma + reg I``. ``var_prior`` (0 by default, scikit-learn's estimates)
shrinks each class's covariance (variances) towards the whole table's (the classes
pooled) by that many pseudo-rows: ``(n_c Sigma_c + var_prior Sigma_0) / (n_c +
var_prior)``, the posterior scale of a conjugate inverse-Wishart (scaled inverse-chi-squared
per variance) prior with a flat prior on the mean (Gelman et al., *Bayesian Data
Analysis*, 3rd ed., 2013, sections 3.3 and 3.6), so that a class's few rows cannot make
another class's row have probability exactly 0.

A missing cell (NaN) at prediction is summed out exactly (the observed features'
Gaussian: the sub-matrix of each class's covariance, one factor per pattern of missing
features). Rows with missing cells are learned from too. With ``diagonal`` and
``isotropic`` covariances each class's mean and variance of a feature come from the rows
where it is observed (as :class:`~treelearn.MixedNaiveBayes` learns). With ``full`` and
``shared`` covariances (pairwise-complete covariances need not form a positive definite
matrix) the means and covariances maximise the likelihood of the observed cells, found by
EM (Dempster, Laird and Rubin 1977; Little and Rubin, *Statistical Analysis with Missing
Data*, 2nd ed., 2002, ch. 11: :mod:`treelearn.stats._gaussian_missing`), each M-step
pooled and shrunk by ``var_prior`` and ``reg`` as the complete-data estimates are, from
each class's available-case means and variances, until the log-likelihood of the observed
cells gains less than ``tol`` per row or ``max_iter`` E-steps have run. A table without
missing cells is learned in one step, as before.

Everything is learned from per-class statistics that add up, read by
:mod:`treelearn.sources._gaussian` from any input (a DataFrame, an array, a
CSV/Parquet path with ``y`` its class column's name, a Dask DataFrame with ``y`` a
Dask Series): the weight, mean and ML covariance of each class for ``full`` and
``shared`` (:class:`~treelearn.stats._gaussian.ClassGaussianStatistics`), the
weight, mean and variance of each class and feature for ``diagonal`` and
``isotropic`` (:class:`~treelearn.stats._gaussian.ClassVariances`: no ``d x d``
matrix where only its diagonal is used).
"""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._base.errors import MissingValuesError, TreelearnError
from .._base.jsonvalues import json_value
from .._base.persistence import SavedState
from .._base.validation import Interval, Options
from ..encoding._table import python_scalar
from ..sources._gaussian import variances_by_class
from ..stats._class_gaussians import (
    class_gaussian_log_density,
    older_files_without_var_prior,
    shrunk_variance,
)
from ..stats._gaussian import ClassGaussianStatistics, ClassVariances
from ..stats._gaussian_missing import observed_log_densities
from ._base import NumericClassifier, invalid
from ._gaussian_em import check_observed, em_class_gaussians
from ._structure_view import DrawnWhen, DrawsStructure

__all__ = ["GaussianClassifier"]

_COVARIANCES = ("full", "shared", "diagonal", "isotropic")
_LOG_2PI = math.log(2 * math.pi)


def gaussian_parameters(
    stats: ClassGaussianStatistics, covariance: str, reg: float, var_prior: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(means k x d, covariances)`` of ``full`` (``k x d x d``) or ``shared`` (``d x d``)
    from per-class weights, means and ML covariances: pooled for ``shared``, shrunk by
    ``var_prior`` pseudo-rows towards the whole table's covariance, then by ``reg`` towards
    the identity. The complete-data estimate, and EM's M-step.

    >>> s = ClassGaussianStatistics(["x"], np.array(["a", "b"], dtype=object), np.array([2, 2]),
    ...     np.array([2.0, 2.0]), np.array([[0.0], [2.0]]), np.array([[[1.0]], [[3.0]]]))
    >>> gaussian_parameters(s, "shared", 0.0, 0.0)[1].tolist()
    [[2.0]]
    >>> gaussian_parameters(s, "full", 0.5, 0.0)[1].ravel().tolist()
    [1.0, 2.0]
    """
    d = stats.mean.shape[1]
    share = stats.weight / stats.weight.sum()
    spread = stats.mean - share @ stats.mean
    total = stats.shared_covariance() + np.einsum("c,ci,cj->ij", share, spread, spread)
    if covariance == "full":
        cov = shrunk_variance(stats.covariance, stats.weight[:, None, None], total, var_prior)
    else:
        cov = shrunk_variance(stats.shared_covariance(), stats.weight.sum(), total, var_prior)
    return stats.mean, (1 - reg) * cov + reg * np.eye(d)


class GaussianClassifier(DrawsStructure, NumericClassifier):
    """Gaussian class-conditional classifier (QDA, LDA, Gaussian naive Bayes, isotropic).

    Parameters
    ----------
    covariance : {"full", "shared", "diagonal", "isotropic"}, default="full"
        ``"full"`` (one matrix per class), ``"shared"`` (pooled),
        ``"diagonal"`` (naive Bayes) or ``"isotropic"`` (one variance per class).
    reg : float, default=0.0
        In ``[0, 1]``; each covariance becomes ``(1 - reg) Sigma + reg I``.
    var_prior : float, default=0.0
        The weight, in rows, of a conjugate prior centred on the whole table's
        covariance (the classes pooled): each class's becomes ``(n_c Sigma_c + var_prior
        Sigma_0) / (n_c + var_prior)`` (Gelman et al., *Bayesian Data Analysis*, 3rd ed.,
        section 3.6), before ``reg``. ``0`` (default) = maximum likelihood, scikit-learn's.
    tol : float, default=1e-6
        ``full`` and ``shared`` with missing training cells: EM stops when the
        log-likelihood of the observed cells gains less than ``tol`` per row (of weight 1).
    max_iter : int, default=200
        ``full`` and ``shared`` with missing training cells: the most E-steps EM runs (a
        ``ConvergenceWarning`` if it stops there).

    Attributes
    ----------
    means_ : numpy.ndarray
        ``k x d``: each class's mean.
    covariances_ : numpy.ndarray
        ``k x d x d`` for full, ``d x d`` shared, ``k x d`` variances for diagonal, ``k``
        for isotropic.
    class_count_ : numpy.ndarray
        Each class's total weight; ``class_log_prior_`` is ``log n_c / n``.
    n_iter_ : int
        The E-steps EM ran (``full`` and ``shared`` with missing training cells); 1 for
        the one-step closed form (no missing training cell, ``diagonal``, ``isotropic``).
    classes_, class_name_, class_log_prior_, feature_names_in_, n_features_in_
        As every classifier's.

    See Also
    --------
    GaussianTAN : one tree of regressions per class.
    MixedNaiveBayes : categorical and Gaussian features.

    References
    ----------
    .. [1] Duda, R. O., Hart, P. E. and Stork, D. G. (2001). Pattern Classification, 2nd
       edition, chapter 2 (the normal density's discriminant functions). Wiley.

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

    _where = "GaussianClassifier"
    _mixed_instead = "MixedNaiveBayes"
    _picture_method = "Gaussian naive Bayes"
    #: its class posterior on the explorer page beside the classifier's own answers; drawn
    #: as naive Bayes where the features are independent given the class (diagonal,
    #: isotropic; full and shared covariances have no such picture)
    capabilities = DrawnWhen(
        {"classify", "score", "explain", "explorer"},
        lambda clf: getattr(clf, "covariance", None) in ("diagonal", "isotropic"),
    )
    _parameter_constraints: ClassVar[dict] = {
        "covariance": [Options(*_COVARIANCES)],
        "reg": [Interval(Real, 0, 1)],
        "var_prior": [Interval(Real, 0, None)],
        "tol": [Interval(Real, 0, None)],
        "max_iter": [Interval(Integral, 1, None)],
    }
    _missing_at_prediction = True
    _parameter_notes: ClassVar[dict] = {"reg": "each covariance becomes (1 - reg) Sigma + reg I"}

    def _refusal_reason(self, capability: str) -> tuple[str, str, tuple[str, ...]] | None:
        """The picture's refusal under a full or shared covariance says why and the fix."""
        if capability != "draw" or self.covariance not in ("full", "shared"):
            return None
        return (
            f"a {self.covariance} covariance is not a tree: every pair of features is "
            f"dependent within a class, which a picture of the class over each feature "
            f"would hide",
            'learn GaussianClassifier(covariance="diagonal") (Gaussian naive Bayes) to draw it',
            ("diagonal",),
        )

    def __init__(
        self,
        covariance: str = "full",
        reg: float = 0.0,
        var_prior: float = 0.0,
        tol: float = 1e-6,
        max_iter: int = 200,
    ) -> None:
        self.covariance = covariance
        self.reg = reg
        self.var_prior = var_prior
        self.tol = tol
        self.max_iter = max_iter

    # ------------------------------------------------------------ fitting
    def _statistics(
        self, X: Any, y: Any, sample_weight: Any
    ) -> ClassGaussianStatistics | ClassVariances:
        """Means and covariances per class (``full``, ``shared``), or means and variances per
        class and feature (``diagonal``, ``isotropic``), from any kind of input."""
        self.n_iter_ = 1  # the closed form, one step
        if self.covariance in ("full", "shared"):
            try:
                return super()._statistics(X, y, sample_weight)
            except MissingValuesError:
                # a covariance matrix from rows with missing cells: EM (Little and Rubin
                # 2002, ch. 11); pairwise covariances need not be positive definite
                return self._em_statistics(X, y, sample_weight)
        return variances_by_class(
            X, y, missing="pairwise", sample_weight=sample_weight, learner=self._where
        )

    def _em_statistics(self, X: Any, y: Any, sample_weight: Any) -> ClassGaussianStatistics:
        """The expected statistics at EM's fixed point (``full``, ``shared``, rows with
        missing cells): the M-step of them is the estimate :meth:`_learn` makes."""
        result = em_class_gaussians(
            X,
            y,
            m_step=lambda stats: gaussian_parameters(
                stats, self.covariance, self.reg, self.var_prior
            ),
            sample_weight=sample_weight,
            tol=self.tol,
            max_iter=self.max_iter,
            learner=self._where,
        )
        self.n_iter_ = result.n_iter
        if not result.converged:
            gains = np.diff(result.log_likelihood[-2:])
            warnings.warn(
                f"{self._where}: EM for the {self.covariance} covariance with missing cells "
                f"stopped after max_iter={self.max_iter} E-steps, the log-likelihood still "
                f"gaining {float(gains[-1]) if len(gains) else float('nan'):.3g}; raise max_iter "
                "or tol",
                ConvergenceWarning,
                stacklevel=4,
            )
        return result.statistics

    def _learn(self, stats: ClassGaussianStatistics | ClassVariances, params: dict) -> None:
        """The class means and covariances (maximum likelihood, weighted) from the statistics
        :meth:`_statistics` read, shrunk by ``reg``."""
        r, nu = params["reg"], params["var_prior"]
        if self.covariance in ("full", "shared"):
            assert isinstance(stats, ClassGaussianStatistics)  # _statistics read covariances
            self.means_, self.covariances_ = gaussian_parameters(stats, self.covariance, r, nu)
            self._factor()
            return
        assert isinstance(stats, ClassVariances)  # _statistics read variances
        check_observed(stats)
        var = shrunk_variance(stats.variance, stats.observed, stats.overall_variance(), nu)
        var = var if self.covariance == "diagonal" else var.mean(axis=1)
        cov = (1 - r) * var + r
        self.means_ = stats.mean
        self.covariances_ = cov
        self._factor()

    def _factor(self) -> None:
        """Cholesky factors (or variances) and log-determinants; a singular covariance is refused."""
        cov = self.covariances_
        names = list(self.feature_names_in_)
        fix = (
            "; set reg > 0 (e.g. reg=1e-3) to shrink it towards the identity, or choose a "
            "simpler covariance"
        )
        if self.covariance in ("diagonal", "isotropic"):
            var = cov if self.covariance == "diagonal" else cov[:, None]
            bad = var <= 0
            if bad.any():
                c, j = np.argwhere(bad)[0]
                what = (
                    f"feature {names[j]!r} is constant"
                    if self.covariance == "diagonal"
                    else "every feature is constant"
                )
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
                who = (
                    "the pooled covariance"
                    if self.covariance == "shared"
                    else f"the covariance of class {python_scalar(self.classes_[c])!r}"
                )
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
    def _joint_log_likelihood(self, A: np.ndarray) -> np.ndarray:
        """``log p(x_observed, c)`` for each row and class (columns in ``classes_`` order);
        a missing (NaN) feature is summed out exactly."""
        holes = np.isnan(A)
        if not holes.any():
            return self._complete_log_likelihood(A)
        if self._chol is None:  # independent features given the class: drop their terms
            return self.class_log_prior_ + class_gaussian_log_density(
                A, self.means_, np.broadcast_to(self._variances(), self.means_.shape)
            )
        out = np.empty((A.shape[0], len(self.classes_)))
        complete = ~holes.any(axis=1)
        out[complete] = self._complete_log_likelihood(A[complete])
        # the observed cells' Gaussian: one factor per (pattern of gaps, class)
        out[~complete] = self.class_log_prior_ + observed_log_densities(
            A[~complete], self.means_, self._covariance_matrices()
        )
        return out

    def _variances(self) -> np.ndarray:
        """The per-class variances of ``diagonal`` (``k x d``) or ``isotropic`` (``k x 1``)."""
        cov = np.asarray(self.covariances_, dtype=float)
        return cov if self.covariance == "diagonal" else cov[:, None]

    def _covariance_matrices(self) -> np.ndarray:
        """``k x d x d``: each class's covariance matrix (``full``, ``shared``)."""
        k, d = self.means_.shape
        cov = np.asarray(self.covariances_, dtype=float)
        return cov if self.covariance == "full" else np.broadcast_to(cov, (k, d, d))

    def _complete_log_likelihood(self, A: np.ndarray) -> np.ndarray:
        """``log p(x, c)`` of rows without a missing cell."""
        k, d = self.means_.shape
        out = np.empty((A.shape[0], k))
        with np.errstate(over="ignore"):  # a value far out: -inf, the base's posterior copes
            for c in range(k):  # classes only: each step is vectorised over rows
                diff = A - self.means_[c]
                if self._chol is None:
                    var = self.covariances_[c]
                    maha = (diff**2 / var).sum(axis=1)
                else:
                    z = diff @ self._chol[c if self.covariance == "full" else 0]  # whitened rows
                    maha = np.einsum("ij,ij->i", z, z)
                logdet = self._logdet[c if self.covariance != "shared" else 0]
                out[:, c] = self.class_log_prior_[c] - 0.5 * (d * _LOG_2PI + logdet + maha)
        return out

    @property
    def n_parameters(self) -> int:
        """Free parameters: the prior's ``k - 1``, ``k d`` means and the covariances' (per
        class ``d (d + 1) / 2`` full, once shared, ``d`` diagonal, 1 isotropic)."""
        check_is_fitted(self)
        k, d = self.means_.shape
        per = {
            "full": k * d * (d + 1) // 2,
            "shared": d * (d + 1) // 2,
            "diagonal": k * d,
            "isotropic": k,
        }[self.covariance]
        return k - 1 + k * d + per

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`): each class's Gaussian over
        the features (``shared``: one matrix; ``diagonal``, ``isotropic``: their variances
        on the diagonal), conditioned in the page on the numbers given; the class's
        posterior is ``predict_proba``'s."""
        from ..viz._page_spec import class_gaussians_spec, require_fitted, title_of

        require_fitted(self)
        k, d = np.shape(self.means_)
        cov = np.asarray(self.covariances_, dtype=float)
        covs = {
            "full": lambda: cov,
            "shared": lambda: np.broadcast_to(cov, (k, d, d)),
            "diagonal": lambda: cov[:, :, None] * np.eye(d),
            "isotropic": lambda: cov[:, None, None] * np.eye(d),
        }[self.covariance]()
        prior = np.exp(np.asarray(self.class_log_prior_, dtype=float))
        parts = [f"{d} feature{'' if d == 1 else 's'}", f"{k} classes"]
        if title is None:
            head = f"{type(self).__name__} ({self.covariance} covariance)"
            title = title_of(head, parts, float(np.sum(self.class_count_)))
        return class_gaussians_spec(
            list(self.feature_names_in_),
            self.class_name_,
            self.classes_,
            prior / prior.sum(),
            np.asarray(self.means_, dtype=float),
            np.array(covs),
            title,
        )

    # ------------------------------------------------------------ saving
    @classmethod
    def _check_saved_params(cls, saved: SavedState, est: Any) -> None:
        older_files_without_var_prior(saved, est)
        # a file from before EM: its full/shared model saw no missing cell, so EM's
        # options never acted; they read as the defaults
        given = saved.raw("params", dict)
        given.setdefault("tol", est.tol)
        given.setdefault("max_iter", est.max_iter)
        super()._check_saved_params(saved, est)

    def _fitted_state(self) -> dict:
        state = {"means": json_value(self.means_), "covariances": json_value(self.covariances_)}
        if self.n_iter_ > 1:  # EM ran; files of complete tables stay as they were
            state["n_iter"] = int(self.n_iter_)
        return state

    def _restore_model(self, saved: SavedState) -> None:
        k, d = len(self.classes_), self.n_features_in_
        shape = {"full": (k, d, d), "shared": (d, d), "diagonal": (k, d), "isotropic": (k,)}
        self.means_ = saved.array("means", (k, d))
        cov = saved.array("covariances", shape[self.covariance])
        if self.covariance in ("full", "shared") and not np.allclose(
            cov, np.swapaxes(cov, -1, -2), rtol=1e-9, atol=1e-12 * np.abs(cov).max()
        ):
            raise saved.fail("covariances", "must be symmetric")
        self.covariances_ = cov
        self.n_iter_ = saved.raw("n_iter", int) if saved.has("n_iter") else 1
        try:
            self._factor()
        except TreelearnError as exc:
            raise invalid(saved, "covariances", exc) from None
