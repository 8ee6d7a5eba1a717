"""Feature ranking for classification: features by mutual information with the class."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .classify import training_table
from .counts import pair_counts
from .information import mutual_information_matrix

__all__ = ["rank_features"]


def rank_features(X: Any, y: Any) -> pd.Series:
    """The features sorted by their mutual information ``I(X_j; C)`` with the class, in nats.

    ``X`` and ``y`` are checked and encoded as by the classifiers' ``fit``. Each
    MI uses the rows where the feature is observed. Ties keep the column order.

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
    table, _ = training_table(X, y)
    mi = mutual_information_matrix(pair_counts(table))[-1, :-1]
    ranking = pd.Series(mi, index=pd.Index(list(table.columns[:-1]), tupleize_cols=False),
                        name="mutual_information")
    return ranking.sort_values(ascending=False, kind="stable")
