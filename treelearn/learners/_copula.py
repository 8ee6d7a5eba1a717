"""Learning a Gaussian-copula (nonparanormal) tree: :func:`copula_chow_liu`.

Each column's smoothed empirical CDF (:func:`~treelearn.models._copula.smoothed_cdf_knots`),
the truncated normal scores of the training rows (Liu, Lafferty & Wasserman's
``delta_n``), and the Gaussian Chow-Liu tree of those scores
(:func:`~treelearn.learners._gaussian_chow_liu.gaussian_chow_liu_from_statistics`).
:func:`copula_chow_liu` is the model of the estimator :class:`~treelearn.CopulaTree`.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import TreelearnError
from ..encoding._table import check_sample_weight
from ..models._copula import CopulaTreeModel, smoothed_cdf_knots, truncation
from ..sources._kinds import empty_error, numeric_matrix
from ._gaussian_chow_liu import gaussian_chow_liu

__all__ = ["copula_chow_liu"]


def copula_chow_liu(
    data: Any, root: Hashable | None = None, *, sample_weight: Any = None
) -> CopulaTreeModel:
    """A Gaussian-copula tree of numeric columns (a DataFrame or 2-D array, no missing
    values): smoothed empirical CDF marginals, the Gaussian Chow-Liu tree of the truncated
    normal scores; density, sampling and queries in the original units: the model
    ``CopulaTree(root).fit(data, sample_weight=sample_weight).model_`` (the estimator
    :class:`~treelearn.CopulaTree`).

    Parameters
    ----------
    data : DataFrame or numpy.ndarray
        Numeric columns, no missing values.
    root : hashable, default=None
        The root (default: the first column).
    sample_weight : array-like, default=None
        One non-negative weight per row.

    Returns
    -------
    CopulaTreeModel
        The fitted copula tree.

    Raises
    ------
    MissingValuesError
        A missing value.
    NumericColumnError
        A column that is not numeric.

    See Also
    --------
    CopulaTree : the estimator.
    gaussian_chow_liu : Gaussian marginals, linear dependence.
    kernel_forest : kernel density marginals and pairs.

    References
    ----------
    .. [1] Elidan, G. (2010). Copula Bayesian networks. Advances in Neural Information
       Processing Systems 23, 559-567.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=500)
    >>> df = pd.DataFrame({"x": x, "y": np.log1p(x) + 0.1 * rng.normal(size=500)})
    >>> m = tl.copula_chow_liu(df)
    >>> sorted(m.graph.edges()), round(m.query("y", {"x": 1.0}).median, 1)
    ([('x', 'y')], 0.7)
    """
    from scipy import special

    names, X = numeric_matrix(data, learner="copula_chow_liu")
    X = np.asarray(X, dtype=float)
    if 0 in X.shape:
        raise empty_error(X.shape, "a copula tree needs two or more rows and a numeric column")
    weights = check_sample_weight(sample_weight, X.shape[0])
    if weights is not None:
        keep = weights > 0
        X, weights = X[keep], weights[keep]
    n = X.shape[0] if weights is None else float(weights.sum())
    if X.shape[0] < 2:
        raise TreelearnError("a copula tree needs two or more rows")
    knots, cdf, scales = {}, {}, {}
    scores = np.empty_like(X)
    delta = truncation(n)
    for j, v in enumerate(names):  # a loop over columns, every row at once
        if X[:, j].min() == X[:, j].max():
            raise TreelearnError(
                f"column {v!r} has a single value ({X[0, j]!r}): it has no continuous "
                f"distribution; drop the column",
                column=v,
                values=[float(X[0, j])],
            )
        knots[v], cdf[v], scales[v] = smoothed_cdf_knots(X[:, j], weights)
        G = np.interp(X[:, j], knots[v], cdf[v])  # the training values: on the knots
        scores[:, j] = special.ndtri(np.clip(G, delta, 1 - delta))
    tree = gaussian_chow_liu(pd.DataFrame(scores, columns=names), root=root, sample_weight=weights)
    return CopulaTreeModel(
        knots,
        cdf,
        scales,
        tree,
        n_rows=n if weights is not None else X.shape[0],
        settings={"method": "copula-chow-liu"},
    )
