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
the class's mean and ML covariance. Those per-class statistics
(:class:`~treelearn.stats._gaussian.ClassGaussianStatistics`) are all it learns
from, read by :mod:`treelearn.sources._gaussian` from any input: a DataFrame, an
array, a CSV/Parquet path (``y`` its class column's name), a Dask DataFrame (``y``
a Dask Series), never held whole where the source streams.

A missing feature value at prediction is summed out exactly: the observed
features are Gaussian with the sub-matrix of the covariance the tree implies
(one Cholesky factor per class and pattern of missing features). Rows in memory may
have missing cells in training too: each class's statistics are then pairwise
(every mean, variance and covariance over the rows where its columns are observed,
:func:`~treelearn.stats._mixed_pairs.mixed_pair_statistics`), as
:class:`~treelearn.MixedTAN` learns, and each regression is the least squares of the
rows where the feature and its parent are both observed.

Each class's variances (the root's, and every feature's residual variance given its
parent) are shrunk towards the same tree's variances learned from the whole table
(the classes pooled) by ``var_prior`` pseudo-rows: a conjugate prior
(:func:`~treelearn.stats._class_gaussians.shrunk_variance`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any, ClassVar

import networkx as nx
import numpy as np
import pandas as pd
import scipy.linalg
from sklearn.utils.validation import check_is_fitted

from .._base.errors import ColumnNotFoundError, TreelearnError
from .._base.jsonvalues import json_value
from .._base.persistence import SavedState
from .._base.validation import Interval
from ..encoding._table import python_scalar
from ..models._base import tree_lines
from ..models._gaussian import tree_covariance
from ..sources._by_class import labelled_rows
from ..sources._kinds import numeric_matrix
from ..stats._class_gaussians import VAR_PRIOR, older_files_without_var_prior, shrunk_variance
from ..stats._gaussian import (
    ClassGaussianStatistics,
    constant_variances,
    gaussian_mutual_information,
)
from ..stats._mixed_pairs import MixedPairs, mixed_pair_statistics
from ..structure._trees import orient, spanning_skeleton
from ._base import CLASS_PRIOR, NumericClassifier, saved_feature_tree
from ._structure_view import DrawsStructure

__all__ = [
    "GaussianTAN",
    "PairwiseClassStatistics",
    "feature_tree_lines",
    "pair_regressions",
    "tree_regressions",
]

_LOG_2PI = math.log(2 * math.pi)


def tree_regressions(
    means: np.ndarray,
    cov: np.ndarray,
    parent: np.ndarray,
    names: Sequence,
    classes: Sequence | np.ndarray,
    *,
    check: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(intercept, coefficient, variance)``, each ``k x d``: every feature's least-squares
    regression on its tree parent (``parent[j]``, ``-1`` for the root: its mean and variance)
    within each class, from the class means and ML covariances; a perfect correlation
    within a class (no residual variance) raises a TreelearnError naming the columns
    (``check=False``: it is returned, for a caller that scores it as degenerate)."""
    k, d = means.shape
    var = np.diagonal(cov, axis1=1, axis2=2)
    child = np.flatnonzero(parent >= 0)
    pa = parent[child]
    coef = np.zeros((k, d))
    coef[:, child] = cov[:, pa, child] / cov[:, pa, pa]
    intercept = means.copy()
    intercept[:, child] = means[:, child] - coef[:, child] * means[:, pa]
    variance = var.copy()
    variance[:, child] = var[:, child] - coef[:, child] * cov[:, pa, child]
    if check and (variance <= 1e-12 * var).any():
        c, j = np.argwhere(variance <= 1e-12 * var)[0]
        raise TreelearnError(
            f"columns {names[parent[j]]!r} and {names[j]!r} are perfectly correlated in "
            f"class {python_scalar(classes[c])!r}: the Gaussian has no density; drop one of them",
            column=names[j],
        )
    return intercept, coef, variance


def feature_tree_lines(
    oriented: nx.DiGraph,
    weighted: nx.Graph,
    digits: int,
    describe: Callable[[Hashable], str] = str,
) -> Iterator[str]:
    """A TAN's feature tree as text: each feature (``describe(feature)``) under its tree
    parent in ``oriented``, the weight of the edge in ``weighted`` (the class-conditional
    MI, nats) after it.

    >>> tree = nx.DiGraph([("a", "b")])
    >>> print("\\n".join(feature_tree_lines(tree, nx.Graph([("a", "b", {"weight": 0.25})]), 3)))
    a
    └── b  [CMI 0.250]
    """
    parent_of = {v: next(iter(oriented.predecessors(v)), None) for v in oriented.nodes}

    def label(v: Hashable, parent: Hashable | None) -> str:
        weight = None if parent is None else weighted.edges[parent, v].get("weight")
        return describe(v) + ("" if weight is None else f"  [CMI {weight:.{digits}f}]")

    roots = [v for v, p in parent_of.items() if p is None]
    yield from tree_lines(roots, parent_of, label)


@dataclass(frozen=True)
class PairwiseClassStatistics:
    """Per-class pairwise statistics of numeric rows with missing cells: ``pairs[c]`` the
    :class:`~treelearn.stats._mixed_pairs.MixedPairs` of class ``c``'s rows, ``pooled``
    those of every row; ``weight`` (k,) each class's total weight."""

    variables: list
    classes: np.ndarray
    weight: np.ndarray
    pairs: list
    pooled: MixedPairs

    @classmethod
    def of_rows(
        cls,
        names: list,
        values: np.ndarray,
        codes: np.ndarray,
        classes: np.ndarray,
        weights: np.ndarray | None,
    ) -> PairwiseClassStatistics:
        """The statistics of the float matrix ``values`` (NaN = missing) by class index."""
        none = np.empty((0,), dtype=np.int64)

        def pairs_of(rows: np.ndarray) -> MixedPairs:
            w = None if weights is None else weights[rows]
            return mixed_pair_statistics(np.empty((int(rows.sum()), 0)), none, values[rows], w)

        per_class = [pairs_of(codes == c) for c in range(len(classes))]
        w = np.ones(len(codes)) if weights is None else np.asarray(weights, dtype=float)
        weight = np.bincount(codes, weights=w, minlength=len(classes)).astype(float)
        every = np.ones(len(codes), dtype=bool)
        return cls(list(names), np.asarray(classes), weight, per_class, pairs_of(every))

    def regressions(self, parent: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(intercept, coefficient, variance, rows)``, each ``k x d``: every feature's
        least squares on its tree parent within each class over the rows where both are
        observed (the root: its mean and variance where observed), and those rows' weight
        (:func:`pair_regressions` per class)."""
        fits = [pair_regressions(p, parent) for p in self.pairs]
        return tuple(np.array([f[i] for f in fits]) for i in range(4))


def pair_regressions(pairs: MixedPairs, parent: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(intercept, coefficient, variance, rows)`` (each ``d``) of every feature's least
    squares on its tree parent (``-1``: the root, its mean and variance) from pairwise
    statistics: over the rows where the feature and its parent are both observed, as
    :func:`~treelearn.learners._clg_tree.clg_model` learns a CLG tree's regressions."""
    d = len(parent)
    j = np.arange(d)
    q = np.where(parent >= 0, parent, j)
    vq, cov = pairs.pair_variance[q, j], pairs.pair_covariance[j, q]
    slope = np.where(parent >= 0, np.divide(cov, vq, out=np.zeros(d), where=vq > 0), 0.0)
    intercept = pairs.pair_mean[j, q] - slope * np.where(parent >= 0, pairs.pair_mean[q, j], 0.0)
    variance = pairs.pair_variance[j, q] - np.where(parent >= 0, cov * slope, 0.0)
    return intercept, slope, variance, pairs.pair_weight[j, q]


def _missing_in_memory(X: Any) -> bool:
    """Whether ``X`` is a table in memory with a missing cell (rows with holes are learned
    from pairwise statistics; other inputs stream, complete)."""
    if isinstance(X, pd.DataFrame):
        return bool(X.isna().to_numpy().any())
    if isinstance(X, np.ndarray) and X.dtype.kind == "f":
        return bool(np.isnan(X).any())
    return False


class GaussianTAN(DrawsStructure, NumericClassifier):
    """Tree-augmented naive Bayes for numeric features (class-conditional linear-Gaussian tree).

    Rows in memory may have missing cells: each class's statistics are then pairwise
    (each regression over the rows where the feature and its parent are observed);
    files and Dask input are read complete.

    Parameters
    ----------
    root : hashable, default=None
        The feature at the root of the tree (default: the first).
    fit_prior : bool, default=True
        The class prior is the class proportions; ``False``: uniform.
    class_prior : array-like of float, default=None
        The class prior, given (in ``classes_`` order).
    var_prior : float, default=1.0
        The weight, in rows, of a conjugate prior on each class's variances (the
        root's, and each feature's residual variance given its parent), centred on the
        same tree's variances learned from the whole table (the classes pooled): ``(n s2
        + var_prior s0^2) / (n + var_prior)``, ``n`` the class's (weighted) rows the
        variance ``s2`` is learned from. It is the posterior scale of a
        scaled-inverse-chi-squared prior with ``var_prior`` degrees of freedom and a flat
        prior on the regression (Gelman et al., *Bayesian Data Analysis*, 3rd ed., 2013,
        section 3.3; :class:`~treelearn.MixedTAN`'s rule). A small class then cannot give
        another class's row probability exactly 0 (default 1; 0 = maximum likelihood).

    Attributes
    ----------
    feature_tree_ : networkx.Graph
        Undirected, edge ``weight`` = the Gaussian CMI in nats.
    tree_ : networkx.DiGraph
        The feature tree oriented from ``root_``.
    parent_ : numpy.ndarray
        Index of each feature's parent, -1 for the root.
    intercept_, coefficient_, variance_ : numpy.ndarray
        ``k x d``: per class and feature, the regression on the parent.
    means_, covariances_ : numpy.ndarray
        Per class, maximum likelihood.
    classes_, class_name_, class_count_, class_log_prior_, feature_names_in_
        As every classifier's.

    See Also
    --------
    GaussianClassifier : Gaussian naive Bayes, LDA and QDA.
    MixedTAN : categorical and Gaussian features.
    KernelTAN : kernel densities.

    References
    ----------
    .. [1] Pérez, A., Larrañaga, P. and Inza, I. (2006). Supervised classification with
       conditional Gaussian networks: increasing the structure complexity from naive
       Bayes. International Journal of Approximate Reasoning 43(1), 1-25.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import treelearn as tl
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> clf = tl.GaussianTAN().fit(X, y)
    >>> sorted(clf.feature_tree_.edges())[:1]
    [('petal length (cm)', 'petal width (cm)')]
    >>> round(clf.score(X, y), 2)
    0.97
    """

    _where = "a Gaussian TAN"
    _picture_method = "Gaussian TAN"
    #: its class posterior on the explorer page beside the classifier's own answers; the
    #: picture is the class over the feature tree (``classifiers/_structure_view.py``)
    capabilities: ClassVar[frozenset[str]] = frozenset(
        {"classify", "score", "explain", "explorer", "draw"}
    )
    _missing_at_prediction = True
    _parameter_constraints: ClassVar[dict] = {
        **CLASS_PRIOR,
        "var_prior": [Interval(Real, 0, None)],
    }

    def __init__(
        self,
        root: Hashable | None = None,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        var_prior: float = VAR_PRIOR,
    ) -> None:
        self.root = root
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.var_prior = var_prior

    def _statistics(self, X: Any, y: Any, sample_weight: Any) -> Any:
        """Per-class moments from any kind of input; rows in memory with missing cells:
        per-class pairwise statistics."""
        if not _missing_in_memory(X):
            return super()._statistics(X, y, sample_weight)
        names, A, classes, codes, weights = labelled_rows(
            X,
            y,
            sample_weight,
            lambda X: numeric_matrix(X, learner=self._where, missing="pairwise"),
        )
        return PairwiseClassStatistics.of_rows(names, np.asarray(A, float), codes, classes, weights)

    def _learn(
        self, stats: ClassGaussianStatistics | PairwiseClassStatistics, params: dict
    ) -> None:
        """From the per-class weights, means and covariances (or pairwise statistics): the
        CMI tree, per-edge least squares, the variances shrunk by the prior."""
        names, classes = list(self.feature_names_in_), self.classes_
        if isinstance(stats, PairwiseClassStatistics):
            means = np.array([p.column_mean() for p in stats.pairs])
            cov = np.array([p.pair_covariance for p in stats.pairs])
            for c, p in enumerate(stats.pairs):
                np.fill_diagonal(cov[c], p.column_variance())
            seen = np.array([np.diagonal(p.pair_weight) for p in stats.pairs])
            if (seen <= 0).any():
                c, j = np.argwhere(seen <= 0)[0]
                raise TreelearnError(
                    f"column {names[j]!r} has no observed value in class "
                    f"{python_scalar(classes[c])!r}: its mean there is unknown; drop the "
                    "column or give rows of that class a value",
                    column=names[j],
                )
        else:
            means, cov = stats.mean, stats.covariance
        weight = stats.weight
        k = len(classes)
        var = np.diagonal(cov, axis1=1, axis2=2)
        flat = constant_variances(var, means)
        if flat.any():
            c, j = np.argwhere(flat)[0]
            raise TreelearnError(
                f"column {names[j]!r} is constant in class {python_scalar(classes[c])!r} "
                "(variance 0): a Gaussian there has no density; drop the column",
                column=names[j],
            )
        share = weight / weight.sum()
        if isinstance(stats, PairwiseClassStatistics):
            cmi = sum(share[c] * p.continuous_information() for c, p in enumerate(stats.pairs))
        else:
            cmi = sum(share[c] * gaussian_mutual_information(cov[c]) for c in range(k))
        if self.root is not None and self.root not in names:
            raise ColumnNotFoundError(
                f"root {self.root!r} is not a feature; the features are {names[:20]}",
                column=self.root,
            )
        tree = spanning_skeleton(names, cmi, n=float(weight.sum()))
        oriented = orient(tree, self.root if self.root is not None else names[0])
        index = {v: j for j, v in enumerate(names)}
        parent = np.full(len(names), -1)
        for u, v in oriented.edges():
            parent[index[v]] = index[u]
        nu = float(params.get("var_prior", 0.0))  # CopulaTAN has no prior: its scores' ML
        if isinstance(stats, PairwiseClassStatistics):
            intercept, coef, variance, rows = stats.regressions(parent)
            _check_residuals(variance, var, parent, names, classes)
            pooled = pair_regressions(stats.pooled, parent)[2]
        else:
            intercept, coef, variance = tree_regressions(means, cov, parent, names, classes)
            rows = np.repeat(weight[:, None], len(names), axis=1)
            grand = share @ means
            spread = means - grand
            total = np.einsum("c,cij->ij", share, cov) + np.einsum(
                "c,ci,cj->ij", share, spread, spread
            )
            pooled = tree_regressions(
                grand[None], total[None], parent, names, classes[:1], check=False
            )[2][0]
        variance = shrunk_variance(variance, rows, pooled, nu)
        self.feature_tree_ = tree
        self.covariances_ = cov
        self._set_tree(oriented, parent, intercept, coef, variance)
        self.means_ = self._implied_means()

    def _set_tree(
        self,
        tree: nx.DiGraph,
        parent: np.ndarray,
        intercept: np.ndarray,
        coefficient: np.ndarray,
        variance: np.ndarray,
    ) -> None:
        names = list(self.feature_names_in_)
        self.tree_ = tree
        self.root_ = names[int(np.flatnonzero(parent < 0)[0])]
        self.parent_ = parent
        self.intercept_, self.coefficient_, self.variance_ = intercept, coefficient, variance

    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then the feature tree under the class, the class-conditional MI
        (nats) on each edge."""
        yield from super()._text_lines(digits)
        yield (
            "each feature a linear Gaussian given the class and its parent in the feature tree "
            "(the class-conditional MI on each edge):"
        )
        yield from feature_tree_lines(self.tree_, self.feature_tree_, digits)

    @property
    def n_parameters(self) -> int:
        """Free parameters: per class, two per root and three per other feature; the prior's."""
        check_is_fitted(self)
        k, d = len(self.classes_), self.n_features_in_
        return k - 1 + k * (2 + 3 * (d - 1))

    def _implied_means(self) -> np.ndarray:
        """``k x d``: each class's means as the fitted regressions imply them (parents first);
        the class means themselves when learned from complete rows."""
        k, d = self.intercept_.shape
        means = np.zeros((k, d))
        for v in _parents_first(self.parent_):
            p = int(self.parent_[v])
            means[:, v] = self.intercept_[:, v] + (
                self.coefficient_[:, v] * means[:, p] if p >= 0 else 0.0
            )
        return means

    def implied_covariance(self) -> np.ndarray:
        """``k x d x d``: each class's covariance as the fitted tree implies it."""
        check_is_fitted(self)
        return tree_covariance(self.parent_, self.coefficient_, self.variance_)

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`): each class's Gaussian over
        the features as its tree implies it (the means propagated down the regressions,
        :meth:`implied_covariance`), conditioned in the page on the numbers given; the
        class's posterior is ``predict_proba``'s. Drawn: the class above the feature tree."""
        from ..viz._page_spec import class_gaussians_spec, require_fitted, title_of

        require_fitted(self)
        k, d = np.shape(self.means_)
        parent = [int(p) for p in self.parent_]
        means = self._implied_means()
        prior = np.exp(np.asarray(self.class_log_prior_, dtype=float))
        parts = [f"{d} feature{'' if d == 1 else 's'}", f"{k} classes"]
        if title is None:
            head = f"{type(self).__name__} (a Gaussian tree per class)"
            title = title_of(head, parts, float(np.sum(self.class_count_)))
        return class_gaussians_spec(
            list(self.feature_names_in_),
            self.class_name_,
            self.classes_,
            prior / prior.sum(),
            means,
            np.asarray(self.implied_covariance(), dtype=float),
            title,
            parent,
        )

    def _joint_log_likelihood(self, values: np.ndarray) -> np.ndarray:
        """``log p(x_observed, c)``; a missing (NaN) feature is summed out exactly."""
        with np.errstate(over="ignore", invalid="ignore"):  # far out: -inf, the base copes
            return self._log_density(values)

    def _log_density(self, values: np.ndarray) -> np.ndarray:
        out = np.tile(self.class_log_prior_, (values.shape[0], 1))
        sigma = None if not np.isnan(values).any() else self.implied_covariance()
        for c in range(len(self.classes_)):  # a loop over classes, every row at once
            out[:, c] += self._class_log_density(values, c, sigma)
        return out

    def _class_log_density(
        self, values: np.ndarray, c: int, sigma: np.ndarray | None
    ) -> np.ndarray:
        """``log p(x_observed | c)`` of every row (``sigma``: the implied covariances,
        needed only where a value is missing)."""
        observed = ~np.isnan(values)
        out = np.zeros(values.shape[0])
        complete = observed.all(axis=1)
        if complete.any():  # one term per feature: its regression on its parent
            every = bool(complete.all())
            x = values if every else values[complete]
            # each feature's parent value (the root's own, with coefficient 0): one gather
            xp = x[:, np.where(self.parent_ >= 0, self.parent_, np.arange(len(self.parent_)))]
            scratch = np.multiply(xp, self.coefficient_[c])
            scratch += self.intercept_[c]
            np.subtract(x, scratch, out=scratch)
            scratch *= scratch
            var = self.variance_[c]
            terms = scratch @ (1.0 / var)
            terms += np.log(var).sum() + len(var) * _LOG_2PI
            terms *= -0.5
            if every:
                return terms
            out[complete] = terms
        assert sigma is not None  # a value is missing: the caller gave the implied covariances
        patterns, which = np.unique(observed[~complete], axis=0, return_inverse=True)
        rows = np.flatnonzero(~complete)
        for p, keep in enumerate(patterns):  # a loop over missing patterns, not rows
            r = rows[which.ravel() == p]
            if not keep.any():
                continue
            x = values[np.ix_(r, np.flatnonzero(keep))]
            L = scipy.linalg.cholesky(sigma[c][np.ix_(keep, keep)], lower=True)
            z = scipy.linalg.solve_triangular(L, (x - self.means_[c, keep]).T, lower=True)
            out[r] = -0.5 * ((z**2).sum(axis=0) + keep.sum() * _LOG_2PI) - np.log(np.diag(L)).sum()
        return out

    # ------------------------------------------------------------ saving
    @classmethod
    def _check_saved_params(cls, saved: SavedState, est: Any) -> None:
        if "var_prior" in est.get_params(deep=False):  # not CopulaTAN's
            older_files_without_var_prior(saved, est)
        super()._check_saved_params(saved, est)

    def _fitted_state(self) -> dict:
        index = {v: j for j, v in enumerate(self.feature_names_in_)}
        edges = [
            [index[u], index[v], float(w)] for u, v, w in self.feature_tree_.edges(data="weight")
        ]
        return {
            "parent": self.parent_.tolist(),
            "intercept": json_value(self.intercept_),
            "coefficient": json_value(self.coefficient_),
            "variance": json_value(self.variance_),
            "means": json_value(self.means_),
            "covariances": json_value(self.covariances_),
            "tree_edges": edges,
        }

    def _restore_model(self, saved: SavedState) -> None:
        k, d = len(self.classes_), self.n_features_in_
        features = list(self.feature_names_in_)
        parent, tree, oriented = saved_feature_tree(saved, features)
        self.feature_tree_ = tree
        self.means_ = saved.array("means", (k, d))
        cov = saved.array("covariances", (k, d, d))
        if not np.array_equal(cov, cov.transpose(0, 2, 1)):
            raise saved.fail("covariances", "must be symmetric")
        self.covariances_ = cov
        self._set_tree(
            oriented,
            parent,
            saved.array("intercept", (k, d)),
            saved.array("coefficient", (k, d)),
            saved.array("variance", (k, d), positive=True),
        )


def _parents_first(parent: np.ndarray) -> list[int]:
    """The features in an order that puts every parent before its children."""
    order: list[int] = [int(v) for v in np.flatnonzero(parent < 0)]
    children: dict[int, list[int]] = {}
    for v, p in enumerate(parent):
        if p >= 0:
            children.setdefault(int(p), []).append(v)
    for v in order:  # grows while read: breadth first
        order.extend(children.get(v, []))
    return order


def _check_residuals(
    variance: np.ndarray, var: np.ndarray, parent: np.ndarray, names: list, classes: Any
) -> None:
    """A perfect correlation within a class (no residual variance) is an error naming the
    columns, as :func:`tree_regressions` says it."""
    bad = variance <= 1e-12 * var
    if bad.any():
        c, j = np.argwhere(bad)[0]
        raise TreelearnError(
            f"columns {names[parent[j]]!r} and {names[j]!r} are perfectly correlated in "
            f"class {python_scalar(classes[c])!r}: the Gaussian has no density; drop one of them",
            column=names[j],
        )
