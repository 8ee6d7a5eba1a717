"""Semiparametric (kernel) TAN: :class:`KernelTAN`.

As Li-Hu, Larrañaga & Bielza's semiparametric Bayesian network classifiers: the class is
the parent of every feature, the features form one tree (rooted at ``root``), and each
feature's density given the class and its tree parent ``p`` is, per feature, either

* **Gaussian**: the class's linear regression on the parent,
  ``N(a_cj + b_cj x_p, s2_cj)`` (the root ``N(mu_cj, s2_cj)``), as
  :class:`~treelearn.GaussianTAN`; or
* **kernel**: the ratio of the class's 2-D and 1-D Gaussian KDEs,
  ``f_c(x_j, x_p) / f_c(x_p)`` (the root: the 1-D KDE ``f_c(x_j)``), kernels at the class's
  rows with covariance ``factor_c**2`` times the class's covariance
  (:mod:`treelearn.stats._kernel`, scipy's ``gaussian_kde`` bandwidths; one factor for
  the 1-D and 2-D estimates, so the conditional integrates to 1).

Either is a conditional density, so any mix is a density: ``log p(x, c) = log p(c) +
sum_j log f_cj(x_j | x_p)``. The tree is the maximum spanning tree of the kernel
conditional mutual information ``I(X_i; X_j | C) = sum_c p(c) I_c(X_i; X_j)``, each
``I_c`` the MI of the class's 2-D KDE
(:func:`~treelearn.stats._kernel.kernel_mutual_information`: a grid integral).

``densities="auto"`` chooses each feature's kind by validation: a stratified share
``validation`` of each class's rows is held out, both kinds are fitted on the rest, and a
feature is kernel when its held-out log conditional density (summed over the classes'
held-out rows) beats the Gaussian's. Each factor depends on its own feature and parent
only, so choosing feature by feature maximises the held-out log-likelihood of the whole
model. The chosen factors are then refitted on every row. ``"gaussian"`` or ``"kernel"``
fixes the kind of every feature (all Gaussian: :class:`~treelearn.GaussianTAN`'s density
on the kernel-CMI tree).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from numbers import Integral, Real
from typing import Any, ClassVar

import networkx as nx
import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._base.errors import ColumnNotFoundError, TreelearnError
from .._base.persistence import SavedState
from .._base.validation import RANDOM_STATE, InstanceOf, Interval, Options
from ..encoding._table import python_scalar
from ..models._kernel_forest import MAX_ABS_CORRELATION
from ..sources._by_class import labelled_rows
from ..sources._kinds import numeric_matrix
from ..stats._gaussian import ClassGaussianStatistics, constant_variances
from ..stats._kernel import (
    UnitGridDensity,
    bandwidth_factor,
    binned_kernel_mutual_information,
    binned_log_density,
    binned_pair_log_density,
    evaluation_method,
    kde_log_density,
    kde_pair_log_density,
    kernel_mutual_information,
    pair_grid,
    weighted_moments,
)
from ..structure._trees import orient, spanning_skeleton
from ._base import CLASS_PRIOR, NumericClassifier, class_training, saved_feature_tree
from ._gaussian_tan import feature_tree_lines, tree_regressions
from ._numbers import refuse_states
from ._structure_view import DrawsStructure

__all__ = ["KernelTAN"]

_LOG_2PI = math.log(2 * math.pi)


@dataclass(frozen=True)
class _ClassFactors:
    """One class's factors of every feature: the kernels (centres, log weights, sds, the
    correlation with the tree parent) and the Gaussian regressions on the parent."""

    centres: np.ndarray
    log_w: np.ndarray
    sd: np.ndarray
    correlation: np.ndarray
    intercept: np.ndarray
    coefficient: np.ndarray
    variance: np.ndarray
    #: "exact" (every kernel summed) or "binned" (grids, built on first use, kept here)
    evaluation: str = "exact"
    grids: dict[tuple, UnitGridDensity] = field(default_factory=dict)

    def log1(self, x: np.ndarray, j: int) -> np.ndarray:
        """Feature ``j``'s 1-D KDE's log density at ``x``."""
        if self.evaluation == "exact":
            return kde_log_density(x, self.centres[:, j], self.log_w, self.sd[j])
        if (j,) not in self.grids and self.sd[j] > 0:
            self.grids[(j,)] = UnitGridDensity(
                self.centres[:, j : j + 1] / self.sd[j], np.exp(self.log_w)
            )
        return binned_log_density(
            x, self.centres[:, j], self.log_w, self.sd[j], self.grids.get((j,))
        )

    def log2(self, x: np.ndarray, y: np.ndarray, j: int, p: int) -> np.ndarray:
        """The 2-D KDE of feature ``j`` and its parent ``p``: log density at ``(x, y)``."""
        args = (
            self.centres[:, j],
            self.centres[:, p],
            self.log_w,
            float(self.sd[j]),
            float(self.sd[p]),
            float(self.correlation[j]),
        )
        if self.evaluation == "exact":
            return kde_pair_log_density(x, y, *args)
        degenerate = not (args[3] > 0 and args[4] > 0 and abs(args[5]) < 1.0)
        if (j, p) not in self.grids and not degenerate:
            self.grids[(j, p)] = pair_grid(*args)
        return binned_pair_log_density(x, y, *args, grid=self.grids.get((j, p)))


def _fit_class(
    X: np.ndarray,
    w: np.ndarray | None,
    parent: np.ndarray,
    factor: float,
    names: list,
    label: Any,
    check: bool = True,
    method: str = "auto",
) -> _ClassFactors:
    """Both kinds of factor of one class's rows ``X`` (weights ``w``) on the tree ``parent``
    (``check``: a perfect correlation is an error; else its factor is degenerate)."""
    wn = np.full(len(X), 1.0 / len(X)) if w is None else w / w.sum()
    mean, sd, _ = weighted_moments(X, wn)
    centred = (X - mean) / np.where(sd > 0, sd, 1.0)
    child = np.flatnonzero(parent >= 0)
    r = np.zeros(len(parent))
    r[child] = (wn[:, None] * centred[:, child] * centred[:, parent[child]]).sum(axis=0) / (
        1.0 - float(wn @ wn)
    )
    stats = ClassGaussianStatistics.of_rows(names, X, np.zeros(len(X), dtype=np.int64), [label], w)
    with np.errstate(divide="ignore", invalid="ignore"):
        intercept, coefficient, variance = tree_regressions(
            stats.mean, stats.covariance, parent, names, [label], check=check
        )
    return _ClassFactors(
        X,
        np.log(wn),
        factor * sd,
        np.clip(r, -1.0, 1.0),
        intercept[0],
        coefficient[0],
        variance[0],
        evaluation_method(method, len(X)),
    )


def _node_terms(
    f: _ClassFactors, X: np.ndarray, parent: np.ndarray, kernel: np.ndarray
) -> np.ndarray:
    """``n x d``: each feature's log conditional density given its parent, of its kind."""
    n, d = X.shape
    out = np.empty((n, d))
    marginal: dict = {}

    def kde(j: int) -> np.ndarray:
        if j not in marginal:
            marginal[j] = f.log1(X[:, j], j)
        return marginal[j]

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for j in range(d):  # a loop over features, every row at once
            p = int(parent[j])
            if not kernel[j]:
                mean = f.intercept[j] + (f.coefficient[j] * X[:, p] if p >= 0 else 0.0)
                # np.log: a Gaussian of no spread on a validation split's fitting share is
                # NaN here (the split scores it -inf), not an exception
                out[:, j] = -0.5 * (
                    (X[:, j] - mean) ** 2 / f.variance[j] + np.log(f.variance[j]) + _LOG_2PI
                )
            elif p < 0:
                out[:, j] = kde(j)
            else:
                out[:, j] = f.log2(X[:, j], X[:, p], j, p) - kde(p)
    return out


class KernelTAN(DrawsStructure, NumericClassifier):
    """Semiparametric TAN: each feature Gaussian or a kernel density given the class and its
    tree parent, chosen by validation; the tree on the kernel conditional MI (see the module
    docstring).

    Parameters
    ----------
    densities : {"auto", "gaussian", "kernel"}, default="auto"
        ``"auto"`` (each feature's kind chosen by validation), ``"gaussian"`` or
        ``"kernel"`` (every feature of that kind).
    bandwidth : "scott", "silverman" or float, default="scott"
        Scipy's ``gaussian_kde`` ``bw_method`` per class: ``"scott"``,
        ``"silverman"`` or the factor of the class's standard deviation (> 0).
    validation : float, default=0.25
        The share of each class's rows held out to choose the kinds.
    grid : int, default=32
        Grid points per column of the kernel MI integral.
    method : {"auto", "exact", "binned"}, default="auto"
        How the kernel densities are evaluated, per class: ``"exact"`` sums every
        kernel (time: the class's rows squared), ``"binned"`` bins the rows onto grids and
        convolves by FFT (time: linear in rows; log densities within a few 1e-3 nats of the
        exact ones), ``"auto"`` (default) exact up to 2,000 rows in the class, binned past
        it.
    root : hashable, default=None
        As :class:`~treelearn.GaussianTAN`'s.
    fit_prior : bool, default=True
        As :class:`~treelearn.GaussianTAN`'s.
    class_prior : array-like of float, default=None
        As :class:`~treelearn.GaussianTAN`'s.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the validation split.

    Attributes
    ----------
    kernel_features_ : the features with kernel factors (the others are Gaussian).
    validation_gain_ : per feature, held-out log density of the kernel factor minus the
        Gaussian's (``densities="auto"``; ``nan`` otherwise).
    feature_tree_ : networkx.Graph
        Undirected, edge ``weight`` = the kernel CMI in nats.
    tree_, parent_
        The tree oriented from ``root_``, and each feature's parent.
    factor_ : numpy.ndarray
        Per class, the bandwidth factor.
    classes_, class_count_, class_log_prior_
        As :class:`~treelearn.GaussianTAN`'s.

    See Also
    --------
    GaussianTAN : every feature Gaussian.
    CopulaTAN : a copula instead of kernels.

    References
    ----------
    .. [1] Pérez, A., Larrañaga, P. and Inza, I. (2009). Bayesian classifiers based on
       kernel density estimation: flexible classifiers. International Journal of
       Approximate Reasoning 50(2), 341-362.
    .. [2] Atienza, D., Larrañaga, P. and Bielza, C. (2022). Semiparametric Bayesian
       networks. Information Sciences 584, 564-582.

    Examples
    --------
    >>> import numpy as np, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> bimodal = rng.normal(np.where(rng.random(400) < 0.5, -2, 2) * (1 + y), 0.5)
    >>> X = np.column_stack([bimodal, rng.normal(y, 1.0)])
    >>> clf = tl.KernelTAN(random_state=0).fit(X, y)
    >>> clf.kernel_features_, bool(clf.score(X, y) > 0.8)
    (['x0'], True)
    """

    _where = "a kernel TAN"
    _picture_method = "kernel TAN"
    capabilities: ClassVar[frozenset[str]] = frozenset({"classify", "score", "explain", "draw"})
    _parameter_constraints: ClassVar[dict] = {
        **CLASS_PRIOR,
        "densities": [Options("auto", "gaussian", "kernel")],
        "bandwidth": [Options("scott", "silverman"), Interval(Real, 0, None, closed="neither")],
        "validation": [Interval(Real, 0, 1, closed="neither")],
        "grid": [Interval(Integral, 8, None)],
        "method": [Options("auto", "exact", "binned")],
        "root": [None, InstanceOf(object, name="a feature name")],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        densities: str = "auto",
        bandwidth: str | float = "scott",
        validation: float = 0.25,
        grid: int = 32,
        root: Hashable | None = None,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        random_state: Any = None,
        method: str = "auto",
    ) -> None:
        self.densities = densities
        self.bandwidth = bandwidth
        self.validation = validation
        self.grid = grid
        self.root = root
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.random_state = random_state
        self.method = method

    # ------------------------------------------------------------ fitting
    def _training_data(self, X: Any, y: Any, sample_weight: Any):
        refuse_states(X, type(self).__name__, self._mixed_instead, labelled=(y, sample_weight))
        names, A, classes, codes, weights = labelled_rows(
            X, y, sample_weight, lambda X: numeric_matrix(X, learner=self._where)
        )
        A = np.asarray(A, dtype=float)
        stats = ClassGaussianStatistics.of_rows(names, A, codes, classes, weights)
        data = class_training(stats, y, len(names))
        return replace(data, features=list(names), statistics=(A, codes, weights))

    def _learn(self, data: tuple, params: dict) -> None:
        A, codes, weights = data
        names, classes = list(self.feature_names_in_), self.classes_
        k, d = len(classes), len(names)
        rows = [np.flatnonzero(codes == c) for c in range(k)]
        w = [None if weights is None else weights[r] for r in rows]
        if params["root"] is not None and params["root"] not in names:
            raise ColumnNotFoundError(
                f"root {params['root']!r} is not a feature; the features are {names[:20]}",
                column=params["root"],
            )
        cmi = np.zeros((d, d))
        share = self.class_count_ / self.class_count_.sum()
        factors = []
        for c in range(k):  # a loop over classes: each one's kernel MI, pairs batched
            X, wc = A[rows[c]], w[c]
            self._check_class(X, wc, names, classes[c])
            wn = np.full(len(X), 1.0 / len(X)) if wc is None else wc / wc.sum()
            mean, sd, n_eff = weighted_moments(X, wn)
            factors.append(bandwidth_factor(params["bandwidth"], n_eff))
            centred = (X - mean) / sd
            corr = np.clip((centred * wn[:, None]).T @ centred / (1.0 - float(wn @ wn)), -1, 1)
            mutual_information = (
                kernel_mutual_information
                if evaluation_method(params["method"], len(X)) == "exact"
                else binned_kernel_mutual_information
            )
            cmi += share[c] * mutual_information(X, wn, factors[c] * sd, corr, params["grid"])
        tree = spanning_skeleton(names, cmi, n=float(self.class_count_.sum()))
        oriented = orient(tree, params["root"] if params["root"] is not None else names[0])
        parent = _parent_array(oriented, names)
        gain = np.full(d, np.nan)
        if params["densities"] == "auto":
            gain = self._validation_gain(A, rows, w, parent, factors, names, params)
            kernel = gain > 0
        else:
            kernel = np.full(d, params["densities"] == "kernel")
        self.validation_gain_ = gain
        self._set_model(tree, oriented, parent, kernel, [A[r] for r in rows], w, factors)

    @staticmethod
    def _check_class(X: np.ndarray, w: np.ndarray | None, names: list, label: Any) -> None:
        mean = np.average(X, axis=0, weights=w)
        var = np.average((X - mean) ** 2, axis=0, weights=w)
        flat = constant_variances(var, mean)
        if flat.any() or len(X) < 2:
            j = int(np.flatnonzero(flat)[0]) if flat.any() else 0
            raise TreelearnError(
                f"column {names[j]!r} is constant in class {python_scalar(label)!r} (variance "
                f"0, or a single row): neither a Gaussian nor a kernel density has a density "
                f"there; drop the column",
                column=names[j],
            )

    def _validation_gain(
        self,
        A: np.ndarray,
        rows: list,
        w: list,
        parent: np.ndarray,
        factors: list,
        names: list,
        params: dict,
    ) -> np.ndarray:
        """Per feature: held-out log density of its kernel factor minus its Gaussian's."""
        rng = np.random.default_rng(params["random_state"])
        d = A.shape[1]
        gain = np.zeros(d)
        everything, nothing = np.ones(d, dtype=bool), np.zeros(d, dtype=bool)
        for c, r in enumerate(rows):  # a loop over classes: a stratified split
            order = rng.permutation(len(r))
            n_held = min(round(params["validation"] * len(r)), len(r) - 2)
            if n_held <= 0:
                continue
            held, fit = np.sort(order[:n_held]), np.sort(order[n_held:])
            wf = None if w[c] is None else w[c][fit]
            f = _fit_class(
                A[r][fit],
                wf,
                parent,
                factors[c],
                names,
                self.classes_[c],
                check=False,
                method=params["method"],
            )
            wh = np.ones(n_held) if w[c] is None else w[c][held]
            for kind, sign in ((everything, 1.0), (nothing, -1.0)):
                terms = _node_terms(f, A[r][held], parent, kind)
                # a factor that is degenerate on the fitting share (no spread) is -inf
                terms = np.where(np.isnan(terms), -np.inf, terms)
                with np.errstate(invalid="ignore"):
                    gain += sign * (wh @ np.where(wh[:, None] > 0, terms, 0.0))
        return np.where(np.isnan(gain), 0.0, gain)  # -inf against -inf: keep the Gaussian

    def _set_model(
        self,
        tree: nx.Graph,
        oriented: nx.DiGraph,
        parent: np.ndarray,
        kernel: np.ndarray,
        centres: list,
        weights: list,
        factors: list,
    ) -> None:
        names = list(self.feature_names_in_)
        self._class_factors = [
            _fit_class(X, w, parent, f, names, label, method=self.method)
            for X, w, f, label in zip(centres, weights, factors, self.classes_)
        ]
        for c, f in enumerate(self._class_factors):
            bad = np.flatnonzero(
                ~(np.abs(f.correlation) < MAX_ABS_CORRELATION) & kernel & (parent >= 0)
            )
            if len(bad):
                j = int(bad[0])
                raise TreelearnError(
                    f"columns {names[parent[j]]!r} and {names[j]!r} are perfectly correlated "
                    f"in class {python_scalar(self.classes_[c])!r}: a 2-D kernel density needs "
                    f"a spread off the line; drop one of them",
                    column=names[j],
                )
        self.feature_tree_, self.tree_, self.parent_ = tree, oriented, parent
        self.root_ = names[int(np.flatnonzero(parent < 0)[0])]
        self.kernel_ = np.asarray(kernel, dtype=bool)
        self.kernel_features_ = [v for v, k in zip(names, self.kernel_) if k]
        self.factor_ = np.asarray(factors, dtype=float)
        self._weights = weights

    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then the feature tree under the class (each feature's factor a
        Gaussian regression or a kernel ratio given its parent; the kernel CMI on each edge)."""
        yield from super()._text_lines(digits)
        yield (
            "each feature given the class and its parent in the feature tree (kernel: a "
            "ratio of 2-D/1-D KDEs, else a Gaussian regression; the kernel CMI on each edge):"
        )
        kernel = set(self.kernel_features_)
        yield from feature_tree_lines(
            self.tree_,
            self.feature_tree_,
            digits,
            lambda v: f"{v} ({'kernel' if v in kernel else 'Gaussian'})",
        )

    @property
    def n_parameters(self) -> int:
        """The class prior's ``k - 1`` and, per class, two per Gaussian root and three per
        other Gaussian feature (kernel factors are nonparametric: not counted)."""
        check_is_fitted(self)
        k = len(self.classes_)
        gaussian = ~self.kernel_
        return k - 1 + k * int((np.where(self.parent_ < 0, 2, 3) * gaussian).sum())

    # ------------------------------------------------------------ prediction
    def _joint_log_likelihood(self, values: np.ndarray) -> np.ndarray:
        """``log p(c) + sum_j log f_cj(x_j | x_parent)`` for every class."""
        out = np.tile(self.class_log_prior_, (values.shape[0], 1))
        for c, f in enumerate(self._class_factors):  # a loop over classes, rows at once
            out[:, c] += _node_terms(f, values, self.parent_, self.kernel_).sum(axis=1)
        return out

    # ------------------------------------------------------------ saving
    def _fitted_state(self) -> dict:
        index = {v: j for j, v in enumerate(self.feature_names_in_)}
        edges = [
            [index[u], index[v], float(wt)] for u, v, wt in self.feature_tree_.edges(data="weight")
        ]
        return {
            "parent": self.parent_.tolist(),
            "tree_edges": edges,
            "kernel": self.kernel_.tolist(),
            "factor": self.factor_.tolist(),
            "validation_gain": [None if np.isnan(g) else float(g) for g in self.validation_gain_],
            "centres": [f.centres.T.tolist() for f in self._class_factors],
            "weights": [None if w is None else w.tolist() for w in self._weights],
        }

    def _restore_model(self, saved: SavedState) -> None:
        k, d = len(self.classes_), self.n_features_in_
        features = list(self.feature_names_in_)
        parent, tree, oriented = saved_feature_tree(saved, features)
        kernel = saved.array("kernel", (d,), dtype=bool)
        factors = saved.array("factor", (k,), positive=True)
        gain = saved.raw("validation_gain", list)
        if len(gain) != d or not all(
            g is None or (isinstance(g, (int, float)) and not isinstance(g, bool)) for g in gain
        ):
            raise saved.fail("validation_gain", "must hold one number or null per feature")
        raw_centres, raw_weights = saved.raw("centres", list), saved.raw("weights", list)
        if len(raw_centres) != k or len(raw_weights) != k:
            raise saved.fail("centres", f"must hold one matrix per class ({k})")
        centres, weights = [], []
        for c in range(k):
            X = saved.array("centres", (d, None), value=raw_centres[c]).T
            if len(X) < 2:
                raise saved.fail("centres", "need two or more rows per class")
            centres.append(np.ascontiguousarray(X))
            weights.append(
                None
                if raw_weights[c] is None
                else saved.array("weights", (len(X),), positive=True, value=raw_weights[c])
            )
        for c in range(k):
            try:
                self._check_class(centres[c], weights[c], features, self.classes_[c])
            except TreelearnError as exc:
                raise saved.fail("centres", f"do not give a density ({exc})") from None
        self.validation_gain_ = np.array([np.nan if g is None else g for g in gain], dtype=float)
        try:
            self._set_model(tree, oriented, parent, kernel, centres, weights, factors.tolist())
        except TreelearnError as exc:
            raise saved.fail("centres", f"do not give a density ({exc})") from None


def _parent_array(oriented: nx.DiGraph, names: list) -> np.ndarray:
    index = {v: j for j, v in enumerate(names)}
    parent = np.full(len(names), -1)
    for u, v in oriented.edges():
        parent[index[v]] = index[u]
    return parent
