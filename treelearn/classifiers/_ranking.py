"""Feature ranking for classification: features by mutual information with the class."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import pandas as pd

from .._base.errors import FeatureMismatchError, TreelearnError
from ..sources._count import count_by_class
from ..stats._counts import is_scipy_sparse
from ..stats._information import mutual_information_matrix
from ._text import term_class_information

__all__ = ["rank_features"]


def rank_features(
    X: Any, y: Any, sample_weight: Any = None, feature_names: Sequence[Hashable] | None = None
) -> pd.Series:
    """The features sorted by their mutual information ``I(X_j; C)`` with the class, in nats.

    ``X`` and ``y`` (and ``sample_weight``) are checked and counted as by the
    classifiers' ``fit`` (pandas or Dask). Each MI uses the rows where the
    feature is observed. Ties keep the column order.

    A scipy.sparse ``X`` (e.g. a bag of words) is never made dense: each column
    counts as present (non-zero) or absent, and its MI with the class comes from
    one sparse product (:func:`~treelearn.term_class_information`).

    Parameters
    ----------
    X : DataFrame, dask DataFrame or scipy.sparse matrix
        The features (discrete columns; a sparse matrix counts non-zero as present).
    y : array-like
        The class of each row.
    sample_weight : array-like, default=None
        One non-negative weight per row.
    feature_names : sequence, default=None
        Names of a sparse ``X``'s columns (default ``x0, x1, ...``), e.g. a vectorizer's
        ``get_feature_names_out()``.

    Returns
    -------
    pandas.Series
        Named ``"mutual_information"``, indexed by feature, largest first.

    See Also
    --------
    FSSJ : forward selection by cross-validated accuracy.
    SKDB : selects features and parents together.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
    >>> tl.rank_features(df.drop(columns="PlayTennis"), df["PlayTennis"]).index.tolist()
    ['Outlook', 'Humidity', 'Wind', 'Temperature']
    >>> import scipy.sparse as sp
    >>> words = sp.csr_matrix([[1, 0, 3], [2, 0, 0], [0, 1, 1], [0, 4, 0]])
    >>> tl.rank_features(words, ["a", "a", "b", "b"], feature_names=["x", "y", "z"]).index.tolist()
    ['x', 'y', 'z']
    """
    if is_scipy_sparse(X):
        mi = term_class_information(X, y, sample_weight=sample_weight)
        names = (
            list(feature_names)
            if feature_names is not None
            else [f"x{j}" for j in range(X.shape[1])]
        )
        if len(names) != X.shape[1]:
            raise FeatureMismatchError(
                f"feature_names has {len(names)} names for X's "
                f"{X.shape[1]} columns; give one name per column"
            )
        ranking = pd.Series(
            mi, index=pd.Index(names, tupleize_cols=False), name="mutual_information"
        )
        return ranking.sort_values(ascending=False, kind="stable")
    if feature_names is not None:
        raise TreelearnError(
            "feature_names is for a scipy.sparse X; name a table's features by its columns"
        )
    stats = count_by_class(X, y, sample_weight=sample_weight)
    mi = mutual_information_matrix(stats.counts)[-1, :-1]
    ranking = pd.Series(
        mi, index=pd.Index(list(stats.columns[:-1]), tupleize_cols=False), name="mutual_information"
    )
    return ranking.sort_values(ascending=False, kind="stable")
