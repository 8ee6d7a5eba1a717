"""Feature ranking for classification: features by mutual information with the class."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .information import mutual_information_matrix
from .sources import count_by_class

__all__ = ["rank_features"]


def rank_features(X: Any, y: Any, sample_weight: Any = None) -> pd.Series:
    """The features sorted by their mutual information ``I(X_j; C)`` with the class, in nats.

    ``X`` and ``y`` (and ``sample_weight``) are checked and counted as by the
    classifiers' ``fit`` (pandas or Dask). Each MI uses the rows where the
    feature is observed. Ties keep the column order.

    Returns
    -------
    pd.Series named ``"mutual_information"``, indexed by feature, largest first.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
    >>> tl.rank_features(df.drop(columns="PlayTennis"), df["PlayTennis"]).index.tolist()
    ['Outlook', 'Humidity', 'Wind', 'Temperature']
    """
    stats = count_by_class(X, y, sample_weight=sample_weight)
    mi = mutual_information_matrix(stats.counts)[-1, :-1]
    ranking = pd.Series(mi, index=pd.Index(list(stats.columns[:-1]), tupleize_cols=False),
                        name="mutual_information")
    return ranking.sort_values(ascending=False, kind="stable")
