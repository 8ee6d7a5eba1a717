"""Gaussian Chow-Liu trees: the maximum-likelihood linear-Gaussian tree of numeric columns.

For jointly Gaussian variables the mutual information of a pair is a function
of its correlation, ``I(X_i; X_j) = -1/2 log(1 - rho_ij^2)``, so the Chow-Liu
tree (the maximum-likelihood tree) is the maximum spanning tree of that matrix,
chosen by the same :func:`~treelearn.structure._trees.spanning_skeleton` and
:func:`~treelearn.structure._trees.orient` the categorical learner uses. With the tree
fixed, each variable's maximum-likelihood CPD is the least-squares regression on
its parent: ``X_v = a_v + b_v X_pa(v) + e_v``, ``e_v ~ N(0, s_v^2)`` (``s_v^2``
the mean squared residual, divisor n). The sufficient statistics are the
(weighted) mean vector and covariance matrix
(:class:`~treelearn.stats._gaussian.GaussianStatistics`), which
:func:`treelearn.sources._gaussian.gaussian_statistics` gives from any input kind:
a DataFrame or array, a CSV/Parquet file read in chunks, a Dask DataFrame reduced
on its workers. :func:`gaussian_chow_liu` is the model of the estimator
:class:`~treelearn.GaussianTree`.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import networkx as nx

from .._base.errors import ColumnNotFoundError, TreelearnError
from .._base.validation import check_param
from ..models._gaussian import GaussianTreeModel
from ..sources._gaussian import gaussian_statistics
from ..stats._gaussian import GaussianStatistics
from ..stats._settings import READING
from ..structure._trees import orient, spanning_skeleton

__all__ = ["gaussian_chow_liu", "gaussian_chow_liu_from_statistics"]


def gaussian_chow_liu(
    data: Any,
    root: Hashable | None = None,
    sample_weight: Any = None,
    *,
    chunksize: int = 200_000,
) -> GaussianTreeModel:
    """Learn the maximum-likelihood linear-Gaussian tree of the numeric columns of ``data``:
    the model ``GaussianTree(root, chunksize=chunksize).fit(data,
    sample_weight=sample_weight).model_`` (the estimator :class:`~treelearn.GaussianTree`).

    ``data`` is a DataFrame or 2-D array of numbers, a CSV/Parquet path (read
    ``chunksize`` rows at a time, never whole; ``sample_weight`` then names its weight
    column) or a Dask DataFrame (reduced on its workers; ``sample_weight`` a column
    name or a Dask Series partitioned like it); every kind gives the same model. The
    tree is the maximum spanning tree of ``-1/2 log(1 - rho^2)`` (ties broken by
    column order, as for :func:`~treelearn.chow_liu`), rooted at ``root`` (default:
    the first column); each variable is regressed on its parent by (weighted) least
    squares.

    Parameters
    ----------
    data : DataFrame, numpy.ndarray, str, os.PathLike or dask DataFrame
        Numeric columns, no missing values.
    root : hashable, default=None
        The root (default: the first column).
    sample_weight : array-like or str, default=None
        One non-negative weight per row (a column name for a file or Dask DataFrame).
    chunksize : int, default=200000
        Rows per chunk when ``data`` is a file.

    Returns
    -------
    GaussianTreeModel
        The fitted tree.

    Raises
    ------
    MissingValuesError
        A missing value.
    NumericColumnError
        A column that is not numeric.

    See Also
    --------
    GaussianTree : the estimator.
    clg_tree : discrete and continuous columns together.
    copula_chow_liu : non-Gaussian marginals.

    References
    ----------
    .. [1] Chow, C. K. and Liu, C. N. (1968). Approximating discrete probability
       distributions with dependence trees. IEEE Transactions on Information Theory
       14(3), 462-467.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=500)
    >>> b = 2 * a + rng.normal(size=500)
    >>> df = pd.DataFrame({"a": a, "b": b, "c": b - 1 + rng.normal(size=500)})
    >>> m = tl.gaussian_chow_liu(df)
    >>> sorted(m.graph.edges())
    [('a', 'b'), ('b', 'c')]
    >>> round(m.graph.nodes["c"]["coefficient"], 1)
    1.0
    >>> mean, cov = m.query(["a"], evidence={"c": 3.0})
    """
    stats = gaussian_statistics(
        data,
        sample_weight=sample_weight,
        chunksize=check_param("chunksize", chunksize, READING["chunksize"]),
        learner="gaussian_chow_liu",
    )
    return gaussian_chow_liu_from_statistics(stats, root)


def gaussian_chow_liu_from_statistics(
    stats: GaussianStatistics, root: Hashable | None = None
) -> GaussianTreeModel:
    """:func:`gaussian_chow_liu` from a mean vector and ML covariance matrix."""
    names = stats.variables
    mi = stats.mutual_information()  # refuses a constant column first
    if root is not None and root not in names:
        raise ColumnNotFoundError(
            f"root {root!r} is not a column; the columns are {names}", column=root
        )
    tree = orient(spanning_skeleton(names, mi, n=stats.n), root)
    index = {v: j for j, v in enumerate(names)}
    cov, mean = stats.covariance, stats.mean
    G = nx.DiGraph()
    G.graph.update(tree.graph)
    for v in names:  # the columns' order, not the tree's
        j = index[v]
        parents = list(tree.predecessors(v))
        if parents:
            i = index[parents[0]]
            b = cov[i, j] / cov[i, i]
            a = mean[j] - b * mean[i]
            s2 = cov[j, j] - b * cov[i, j]
            if s2 <= 1e-12 * cov[j, j]:
                raise TreelearnError(
                    f"columns {parents[0]!r} and {v!r} are perfectly correlated: one is a linear "
                    f"function of the other and the Gaussian has no density; drop one of them",
                    column=v,
                    hint=f"drop {v!r} or {parents[0]!r}",
                )
            G.add_node(v, intercept=float(a), coefficient=float(b), variance=float(s2))
        else:
            G.add_node(v, intercept=float(mean[j]), coefficient=None, variance=float(cov[j, j]))
    G.add_edges_from(tree.edges(data=True))
    return GaussianTreeModel(G, n_rows=stats.n)
