"""Gaussian-copula TAN: :class:`CopulaTAN`.

Within class ``c`` each feature ``x_j`` is mapped to a normal score ``z_cj = Phi^-1(G_cj(x_j))``
by its marginal CDF *in that class*, and the scores follow a class-conditional Gaussian TAN
(:class:`~treelearn.GaussianTAN`: one CMI tree shared by the classes, per-class linear-Gaussian
regressions on the tree parent). With ``g_cj = G_cj'``,

    log p(x, c) = log p(c) + log N_tree,c(z_c) + sum_j (log g_cj(x_j) - log phi(z_cj)).

The marginals are **per class**, not pooled, for two reasons. A pooled marginal's Jacobian
``prod_j g_j / phi(z_j)`` is the same for every class and cancels from the posterior: the
class would be told apart by a Gaussian on scores alone, and a feature that is skewed or
bimodal *within* a class (what a copula is for) would stay mis-modelled. Per class, the
marginal carries the class's own shape and the Gaussian only the dependence. And per class,
the parametric family ``marginal="gaussian"`` (``G_cj`` the normal CDF of the class's ML mean
and sd) gives exactly :class:`~treelearn.GaussianTAN`: the scores are the standardised
values, their tree the same CMI tree, the density the same. The price: a small class gets
a coarse CDF (about ``4 n_c^(1/3)`` knots).

``marginal="empirical"``: the smoothed empirical CDF of
:func:`~treelearn.models._copula.smoothed_cdf_knots` (piecewise linear, exponential tails),
and the tree learned from Liu, Lafferty & Wasserman's truncated scores, as
:func:`~treelearn.copula_chow_liu`. A missing value at prediction is summed out exactly: the
map to the scores is a bijection per column, so the missing score is integrated out of the
Gaussian and its Jacobian term drops.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._base.errors import TreelearnError
from .._base.jsonvalues import json_value
from .._base.persistence import SavedState
from .._base.validation import Options
from ..encoding._table import python_scalar
from ..models._copula import cdf_parts, smoothed_cdf_knots, truncation
from ..sources._by_class import labelled_rows
from ..sources._kinds import numeric_matrix
from ..stats._gaussian import ClassGaussianStatistics, constant_variances
from ._base import TrainingData, class_training
from ._gaussian_tan import GaussianTAN
from ._numbers import refuse_states

__all__ = ["CopulaTAN"]

_LOG_2PI = math.log(2 * math.pi)


def _log_phi(z: np.ndarray) -> np.ndarray:
    return -0.5 * (_LOG_2PI + z * z)


class CopulaTAN(GaussianTAN):
    """Tree-augmented naive Bayes on a Gaussian copula: per-class marginals, a Gaussian TAN
    on the normal scores (see the module docstring).

    Parameters
    ----------
    marginal : {"empirical", "gaussian"}, default="empirical"
        ``"empirical"`` (the smoothed empirical CDF per class) or ``"gaussian"``
        (the normal CDF per class: exactly :class:`~treelearn.GaussianTAN`).
    root : hashable, default=None
        As :class:`~treelearn.GaussianTAN`'s.
    fit_prior : bool, default=True
        As :class:`~treelearn.GaussianTAN`'s.
    class_prior : array-like of float, default=None
        As :class:`~treelearn.GaussianTAN`'s.

    Attributes
    ----------
    knots_, cdf_, scales_ : per class (``classes_`` order) and feature, the empirical CDF's
        knots, values there and tail scale (``marginal="empirical"``).
    location_, scale_ : ``k x d``, the normal marginals' means and sds (``"gaussian"``).
    feature_tree_, tree_, parent_, intercept_, coefficient_, variance_
        As :class:`~treelearn.GaussianTAN`'s, of the normal scores.

    See Also
    --------
    GaussianTAN : Gaussian marginals.
    KernelTAN : kernel densities.
    CopulaTree : the unsupervised copula tree.

    References
    ----------
    .. [1] Elidan, G. (2010). Copula Bayesian networks. Advances in Neural Information
       Processing Systems 23, 559-567.
    .. [2] Friedman, N., Geiger, D. and Goldszmidt, M. (1997). Bayesian network
       classifiers. Machine Learning 29(2-3), 131-163.

    Examples
    --------
    >>> import numpy as np, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 600)
    >>> u = rng.exponential(1 + y)                      # skewed, scale by class
    >>> X = np.column_stack([u, np.log1p(u) + 0.2 * rng.normal(size=600)])
    >>> clf = tl.CopulaTAN().fit(X, y)
    >>> clf.feature_tree_.number_of_edges(), bool(clf.score(X, y) > 0.6)
    (1, True)
    """

    _where = "a copula TAN"
    _picture_method = "Gaussian-copula TAN"
    #: a Gaussian TAN on normal scores: no explorer page of its own; its picture is the
    #: Gaussian TAN's (the feature tree's MI is the normal scores')
    capabilities: ClassVar[frozenset[str]] = frozenset({"classify", "score", "explain", "draw"})
    _parameter_constraints: ClassVar[dict] = {
        **GaussianTAN._parameter_constraints,
        "marginal": [Options("empirical", "gaussian")],
    }

    def __init__(
        self,
        marginal: str = "empirical",
        root: Hashable | None = None,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
    ) -> None:
        self.marginal = marginal
        super().__init__(root=root, fit_prior=fit_prior, class_prior=class_prior)

    # ------------------------------------------------------------ fitting
    def _training_data(self, X: Any, y: Any, sample_weight: Any) -> TrainingData:
        """The rows in memory: each class's marginals, then the per-class moments of the
        normal scores (what the Gaussian TAN learns from)."""
        refuse_states(X, type(self).__name__, self._mixed_instead, labelled=(y, sample_weight))
        names, A, classes, codes, weights = labelled_rows(
            X, y, sample_weight, lambda X: numeric_matrix(X, learner=self._where)
        )
        A = np.asarray(A, dtype=float)
        k = len(classes)
        Z = np.empty_like(A)
        marginals: list = []
        for c in range(k):  # a loop over classes, every row of the class at once
            rows = codes == c
            w = None if weights is None else weights[rows]
            marginals.append(self._fit_marginals(A[rows], w, names, classes[c]))
            Z[rows] = self._scores(A[rows], marginals[c], truncate=True)[0]
        stats = ClassGaussianStatistics.of_rows(names, Z, codes, classes, weights)
        data = class_training(stats, y, len(names))
        return replace(data, features=list(names), statistics=(stats, marginals))

    def _fit_marginals(self, X: np.ndarray, w: np.ndarray | None, names: list, label: Any) -> list:
        n = X.shape[0] if w is None else float(w.sum())
        out: list[tuple] = []  # per column: (mean, sd), or the smoothed CDF and its truncation
        for j, v in enumerate(names):  # a loop over columns, every row at once
            column = X[:, j]
            if self.marginal == "gaussian":
                mean = float(np.average(column, weights=w))
                var = float(np.average((column - mean) ** 2, weights=w))
                flat = constant_variances(np.array([var]), np.array([mean]))[0]
            else:
                flat = column.min() == column.max()
            if flat:
                raise TreelearnError(
                    f"column {v!r} is constant in class {python_scalar(label)!r} "
                    f"({float(column[0])!r}): its marginal there has no density; drop the column",
                    column=v,
                    values=[float(column[0])],
                )
            if self.marginal == "gaussian":
                out.append((mean, math.sqrt(var)))
            else:
                out.append((*smoothed_cdf_knots(column, w), truncation(n)))
        return out

    def _scores(
        self, X: np.ndarray, marginals: list, truncate: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """One class's normal scores of ``X`` (NaN stays NaN) and each row's Jacobian
        ``sum_j log g_j - log phi(z_j)`` over its observed cells. ``truncate``: the training
        scores, clipped at Liu-Lafferty-Wasserman's ``delta_n`` (empirical marginals)."""
        from scipy import special  # imported when used: `import treelearn` stays light

        Z = np.empty_like(X)
        jacobian = np.zeros(X.shape[0])
        for j, part in enumerate(marginals):  # a loop over columns, every row at once
            if self.marginal == "gaussian":
                mean, sd = part
                Z[:, j] = (X[:, j] - mean) / sd
                log_g = _log_phi(Z[:, j]) - math.log(sd)
            elif truncate:
                knots, F, _, delta = part
                G = np.interp(X[:, j], knots, F)  # the training values: on the knots
                Z[:, j] = special.ndtri(np.clip(G, delta, 1 - delta))
                continue
            else:
                knots, F, h, _ = part
                Z[:, j], log_g = cdf_parts(X[:, j], knots, F, h)
            jacobian += np.where(np.isnan(X[:, j]), 0.0, log_g - _log_phi(Z[:, j]))
        return Z, jacobian

    def _learn_training_data(self, data: TrainingData, params: dict) -> None:
        """The Gaussian TAN of the normal scores' moments, then each class's marginals."""
        stats, marginals = data.statistics
        super()._learn_training_data(replace(data, statistics=stats), params)
        self._set_marginals(marginals)

    def _set_marginals(self, marginals: list) -> None:
        self._marginals = marginals
        if self.marginal == "gaussian":
            self.location_ = np.array([[m[0] for m in per] for per in marginals])
            self.scale_ = np.array([[m[1] for m in per] for per in marginals])
        else:
            self.knots_ = [[m[0] for m in per] for per in marginals]
            self.cdf_ = [[m[1] for m in per] for per in marginals]
            self.scales_ = np.array([[m[2] for m in per] for per in marginals])

    @property
    def n_parameters(self) -> int:
        """The score TAN's parameters, plus two per class and feature for Gaussian marginals
        (empirical marginals are nonparametric: not counted)."""
        check_is_fitted(self)
        extra = 2 * len(self.classes_) * self.n_features_in_ if self.marginal == "gaussian" else 0
        return super().n_parameters + extra

    # ------------------------------------------------------------ prediction
    def _log_density(self, values: np.ndarray) -> np.ndarray:
        out = np.tile(self.class_log_prior_, (values.shape[0], 1))
        sigma = None if not np.isnan(values).any() else self.implied_covariance()
        for c in range(len(self.classes_)):  # a loop over classes, every row at once
            Z, jacobian = self._scores(values, self._marginals[c])
            out[:, c] += self._class_log_density(Z, c, sigma) + jacobian
        return out

    # ------------------------------------------------------------ saving
    def _fitted_state(self) -> dict:
        state = super()._fitted_state()
        if self.marginal == "gaussian":
            state.update(location=json_value(self.location_), scale=json_value(self.scale_))
        else:
            state.update(
                knots=[[m[0].tolist() for m in per] for per in self._marginals],
                cdf=[[m[1].tolist() for m in per] for per in self._marginals],
                scales=[[m[2] for m in per] for per in self._marginals],
                truncation=[per[0][3] for per in self._marginals],
            )
        return state

    def _restore_model(self, saved: SavedState) -> None:
        super()._restore_model(saved)
        k, d = len(self.classes_), self.n_features_in_
        if self.marginal == "gaussian":
            location = saved.array("location", (k, d))
            scale = saved.array("scale", (k, d), positive=True)
            self._set_marginals(
                [list(zip(location[c].tolist(), scale[c].tolist())) for c in range(k)]
            )
            return
        scales = saved.array("scales", (k, d), positive=True)
        delta = saved.array("truncation", (k,), positive=True)
        knots, cdf = saved.raw("knots", list), saved.raw("cdf", list)
        if (
            len(knots) != k
            or len(cdf) != k
            or not all(isinstance(part, list) and len(part) == d for part in (*knots, *cdf))
        ):
            raise saved.fail(
                "knots", f"'knots' and 'cdf' must hold {d} lists for each of the {k} classes"
            )
        marginals = []
        for c in range(k):
            per = []
            for j in range(d):
                x = saved.array("knots", (None,), value=knots[c][j])
                F = saved.array("cdf", (None,), value=cdf[c][j])
                if (
                    x.shape != F.shape
                    or len(x) < 2
                    or (np.diff(x) <= 0).any()
                    or (np.diff(F) <= 0).any()
                    or F[0] <= 0
                    or F[-1] >= 1
                ):
                    raise saved.fail(
                        "knots",
                        "each feature's knots and CDF must rise strictly "
                        "(one length, 2 or more), the CDF inside (0, 1)",
                    )
                per.append((x, F, float(scales[c, j]), float(delta[c])))
            marginals.append(per)
        self._set_marginals(marginals)
