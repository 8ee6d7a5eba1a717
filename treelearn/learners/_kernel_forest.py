"""Learning a kernel forest density (Liu, Xu, Gu, Gupta, Lafferty & Wasserman, JMLR 2011):
:func:`kernel_forest`, the model of the estimator :class:`~treelearn.KernelForest`.

The rows are split at random in two halves. On the first, every pair's mutual information
under its 2-D KDE (:func:`~treelearn.stats._kernel.kernel_mutual_information`) and the
maximum spanning tree of those weights (:func:`~treelearn.structure._trees.spanning_tree_edges`,
the one spanning-tree routine: edges in Kruskal's order, larger MI first). On the second
(held out), the log-likelihood of the forest of the first ``k`` edges in that order,
``k = 0 .. d - 1``, under the first half's KDEs: the forest kept is the shortest prefix that
maximises it (the paper's pruning). The final KDEs are refitted on every row (``refit``).

``method`` says how the KDEs are evaluated. ``"exact"`` sums every kernel: the MI lattice
costs rows x grid^2 per pair and the held-out scores rows^2, so 30,000 rows take most of a
minute. ``"binned"`` (:mod:`treelearn.stats._kernel`'s binned path) linearly bins the rows
onto grids and convolves by FFT, so the cost is the rows once per pair plus the grids':
linear in rows; its log densities are within about 0.005 nats of the exact ones (a few
1e-3 per term, measured in ``tests/test_kernel_binned.py``). The default ``"auto"`` is
exact up to :data:`~treelearn.stats._kernel.EXACT_UP_TO` rows (cheap there, and the
reference) and binned past it.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np

from .._base.errors import MissingValuesError, TreelearnError
from .._base.validation import RANDOM_STATE, Interval, Options, check_params
from ..encoding._table import check_sample_weight
from ..models._kernel_forest import METHODS, KernelForestModel
from ..sources._kinds import empty_error, numeric_matrix
from ..stats._kernel import (
    bandwidth_factor,
    binned_kernel_mutual_information,
    evaluation_method,
    kernel_mutual_information,
    weighted_moments,
)
from ..structure._trees import spanning_tree_edges

__all__ = ["KERNEL_FOREST_CONSTRAINTS", "KERNEL_FOREST_NOTES", "kernel_forest", "prune_order"]

KERNEL_FOREST_CONSTRAINTS: dict[str, list[Any]] = {
    "bandwidth": [Options("scott", "silverman"), Interval(Real, 0, None, closed="neither")],
    "split": [Interval(Real, 0, 1, closed="neither")],
    "grid": [Interval(Integral, 8, None)],
    "refit": [Options(True, False)],
    "method": [Options(*METHODS)],
    "random_state": RANDOM_STATE,
}
KERNEL_FOREST_NOTES = {
    "bandwidth": "scipy's gaussian_kde bw_method: 'scott', 'silverman' or the factor of the "
    "data's standard deviation",
    "split": "the share of rows that estimates the tree; the rest prunes it",
    "grid": "grid points per column of the numerical MI integral",
    "method": "'exact' sums every kernel (time: rows squared), 'binned' bins the rows onto "
    "grids (time: rows); 'auto' is exact up to 2,000 rows",
}


def prune_order(gains: np.ndarray) -> int:
    """How many edges to keep: the shortest prefix of ``gains`` (each edge's held-out
    log-likelihood gain, in the edge order) whose cumulative sum is the largest (0: none).

    >>> prune_order(np.array([3.0, 1.0, -2.0, 0.5])), prune_order(np.array([-1.0]))
    (2, 0)
    """
    path = np.concatenate([[0.0], np.cumsum(gains)])
    return int(np.argmax(path))  # the first maximum: the fewest edges


def _check_missing(X: np.ndarray, names: list) -> None:
    nan = np.isnan(X)
    if nan.any():
        j = int(np.flatnonzero(nan.any(axis=0))[0])
        if nan[:, j].all():
            raise MissingValuesError(
                f"column {names[j]!r} has no values (every cell is missing); drop the column",
                column=names[j],
                fixes=("drop",),
            )
        raise MissingValuesError(
            f"column {names[j]!r} has {int(nan[:, j].sum())} missing "
            f"value(s) (NaN): a kernel forest takes complete rows; drop those "
            f"rows or fill them in",
            column=names[j],
            fixes=("fill",),
        )


def _check_columns(X: np.ndarray, names: list, where: str) -> None:
    flat = X.min(axis=0) == X.max(axis=0)
    if flat.any():
        j = int(np.flatnonzero(flat)[0])
        raise TreelearnError(
            f"column {names[j]!r} takes one value ({X[0, j]!r}){where}: a "
            f"kernel density needs a spread; drop the column",
            column=names[j],
            values=[float(X[0, j])],
        )


def _learn_forest(data: Any, sample_weight: Any, opts: dict) -> KernelForestModel:
    """The forest of ``data`` under the checked options ``opts`` (module docstring)."""
    names, X = numeric_matrix(data, learner="kernel_forest", missing="pairwise")
    X = np.asarray(X, dtype=float)
    if 0 in X.shape:
        raise empty_error(X.shape, "a kernel forest needs 4 or more rows and a numeric column")
    _check_missing(X, names)
    w = check_sample_weight(sample_weight, X.shape[0])
    if w is not None:
        keep = w > 0
        X, w = X[keep], w[keep]
    n = X.shape[0]
    if n < 4:
        raise TreelearnError(f"a kernel forest needs 4 or more rows (two per half), got {n}")
    _check_columns(X, names, "")
    rng = np.random.default_rng(opts["random_state"])
    order = rng.permutation(n)
    n_fit = min(max(2, round(opts["split"] * n)), n - 2)
    fit, held = np.sort(order[:n_fit]), np.sort(order[n_fit:])
    _check_columns(X[fit], names, " in the half that estimates the tree (split=)")
    w_fit = None if w is None else w[fit]
    wn = np.full(n_fit, 1.0 / n_fit) if w_fit is None else w_fit / w_fit.sum()
    _, sd, n_eff = weighted_moments(X[fit], wn)
    factor = bandwidth_factor(opts["bandwidth"], n_eff)
    centred = (X[fit] - wn @ X[fit]) / sd
    corr = np.clip((centred * wn[:, None]).T @ centred / (1.0 - float(wn @ wn)), -1.0, 1.0)
    method = opts["method"]
    mutual_information = (
        kernel_mutual_information
        if evaluation_method(method, n_fit) == "exact"
        else binned_kernel_mutual_information
    )
    mi = mutual_information(X[fit], wn, factor * sd, corr, opts["grid"])
    tree = [(names[i], names[j]) for i, j in spanning_tree_edges(mi, names=names)]
    weights = [float(mi[names.index(u), names.index(v)]) for u, v in tree]
    half = KernelForestModel(
        X[fit], names, tree, factor, weights=w_fit, mutual_information=weights, method=method
    )
    ratios = half.edge_log_ratios(X[held])
    gains = ratios.T @ (np.ones(len(held)) if w is None else w[held])
    k = prune_order(gains)
    settings = {
        "method": "kernel-forest",
        "bandwidth": opts["bandwidth"],
        "split": opts["split"],
        "grid": opts["grid"],
        "refit": opts["refit"],
        "evaluation": method,
    }
    if not opts["refit"]:
        model = KernelForestModel(
            X[fit],
            names,
            tree[:k],
            factor,
            weights=w_fit,
            mutual_information=weights[:k],
            settings=settings,
            n_rows=n_fit if w_fit is None else float(w_fit.sum()),
            method=method,
        )
    else:
        wa = np.full(n, 1.0 / n) if w is None else w / w.sum()
        factor_all = bandwidth_factor(opts["bandwidth"], weighted_moments(X, wa)[2])
        model = KernelForestModel(
            X,
            names,
            tree[:k],
            factor_all,
            weights=w,
            mutual_information=weights[:k],
            settings=settings,
            n_rows=n if w is None else float(w.sum()),
            method=method,
        )
    # each spanning-tree edge's held-out log-likelihood gain (what the pruning read)
    model.held_out_gains_ = dict(zip(tree, gains.tolist()))
    model.split_rows_ = (fit, held)  # positions (among the rows of weight > 0) of each half
    return model


def kernel_forest(
    data: Any,
    bandwidth: str | float = "scott",
    *,
    split: float = 0.5,
    grid: int = 48,
    refit: bool = True,
    method: str = "auto",
    sample_weight: Any = None,
    random_state: Any = None,
) -> KernelForestModel:
    """A forest density of Gaussian KDEs over numeric columns (a DataFrame or 2-D array,
    no missing values), its edges chosen by kernel MI on one half of the rows and pruned
    by held-out log-likelihood on the other (module docstring): the model
    ``KernelForest(bandwidth, ...).fit(data, sample_weight=sample_weight).model_`` (the
    estimator :class:`~treelearn.KernelForest`, whose docstring explains every option).

    Parameters
    ----------
    data : DataFrame or numpy.ndarray
        Numeric columns, no missing values.
    bandwidth : "scott", "silverman" or float, default="scott"
        scipy's ``gaussian_kde`` ``bw_method``: a rule, or the factor of the data's
        standard deviation.
    split : float, default=0.5
        The share of rows that choose the edges (the rest prune them).
    grid : int, default=48
        Points per axis of the grids the mutual information is integrated on.
    refit : bool, default=True
        Refit the densities on every row once the forest is chosen.
    method : {"auto", "exact", "binned"}, default="auto"
        Kernel sums exactly or on binned grids (``"auto"``: exact up to 2,000 rows).
    sample_weight : array-like, default=None
        One non-negative weight per row.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the split.

    Returns
    -------
    KernelForestModel
        The fitted forest.

    See Also
    --------
    KernelForest : the estimator.
    copula_chow_liu : a copula tree (smoother, parametric dependence).

    References
    ----------
    .. [1] Liu, H., Xu, M., Gu, H., Gupta, A., Lafferty, J. and Wasserman, L. (2011).
       Forest density estimation. Journal of Machine Learning Research 12, 907-951.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=400)
    >>> df = pd.DataFrame({"x": x, "y": np.sqrt(x) + 0.1 * rng.normal(size=400),
    ...                    "z": rng.normal(size=400)})
    >>> m = tl.kernel_forest(df, random_state=0)
    >>> m.edges      # z is independent: pruned away
    [('x', 'y')]
    """
    opts = check_params(
        {
            "bandwidth": bandwidth,
            "split": split,
            "grid": grid,
            "refit": refit,
            "method": method,
            "random_state": random_state,
        },
        KERNEL_FOREST_CONSTRAINTS,
        KERNEL_FOREST_NOTES,
    )
    return _learn_forest(data, sample_weight, opts)
