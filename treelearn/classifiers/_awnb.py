"""Attribute-weighted naive Bayes (AWNB; Hall, 2007; bnclassify's ``awnb_trees``,
``awnb_bootstrap``).

Naive Bayes with one weight per feature, ``s(c, x) = log P(c) + sum_j w_j log P(x_j | c)``,
the weights read off unpruned decision trees: a feature tested near the root of a tree
matters, one tested deep down less, one never tested not at all. ``n_trees`` trees
(scikit-learn's ``DecisionTreeClassifier(criterion="entropy")``, unpruned) are grown on
bootstrap samples of ``bootstrap`` times the rows (``BaggingClassifier``); in each, feature
``j`` gets ``1 / sqrt(d_j)``, ``d_j`` the least depth at which it is tested (the root at
depth 1), or 0 when it is not tested; ``w_j`` is the mean over the trees.

The trees split the features' one-hot indicators (a categorical feature's state ``k``
against the rest, as scikit-learn's trees split numbers): feature ``j`` is tested at a
node that splits any of its indicators.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from numbers import Integral, Real
from typing import ClassVar

import numpy as np

from .._base.errors import InputTypeError
from .._base.limits import check_memory
from .._base.validation import RANDOM_STATE, Interval
from ..stats._counts import ClassCounts
from ._base import CLASS_PRIOR, UNSEEN, Unseen
from ._weighted import FeatureWeightedClassifier

__all__ = ["AWNB", "indicator_matrix", "tree_feature_weights"]


def tree_feature_weights(tree, owner: np.ndarray, n_features: int) -> np.ndarray:
    """``1 / sqrt(least depth)`` of each feature in one fitted scikit-learn tree (0 when not
    tested); ``owner[column]``: the feature of each column the tree was grown on.

    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 0], [1, 1]] * 4)   # x0 = 1 more often
    >>> t = DecisionTreeClassifier(criterion="entropy").fit(X, X[:, 0] | X[:, 1])
    >>> tree_feature_weights(t, np.array([0, 1]), 2).round(4).tolist()  # root, then depth 2
    [1.0, 0.7071]
    """
    nodes = tree.tree_
    depth = np.zeros(nodes.node_count, dtype=np.int64)
    frontier, level = np.array([0]), 1
    while frontier.size:  # one level of the tree at a time
        depth[frontier] = level
        below = np.concatenate([nodes.children_left[frontier], nodes.children_right[frontier]])
        frontier, level = below[below >= 0], level + 1
    split = nodes.feature >= 0  # leaves hold -2
    least = np.full(n_features, np.inf)
    np.minimum.at(least, owner[nodes.feature[split]], depth[split])
    return np.where(np.isfinite(least), 1.0 / np.sqrt(least), 0.0)


class AWNB(FeatureWeightedClassifier):
    """Naive Bayes weighted by the depth of each feature in bagged decision trees (Hall, 2007).

    See the module docstring for the weights; the probabilities are naive Bayes's
    (Lidstone ``alpha``).

    Parameters
    ----------
    n_trees : int, default=10
        The number of trees (bnclassify's ``awnb_trees``, Hall's 10).
    bootstrap : float, default=0.5
        Each tree's bootstrap sample, as a fraction of the rows (``(0, 1]``;
        bnclassify's ``awnb_bootstrap``, Hall's 0.5).
    random_state : int, numpy.random.Generator or None, default=None
        The bootstrap samples' and the trees' seed.
    alpha : float, default=1.0
        Lidstone pseudocount of ``P(x_j | c)`` (> 0).
    fit_prior : bool, default=True
        As in :class:`~treelearn.NaiveBayes`.
    class_prior : array-like of float, default=None
        As in :class:`~treelearn.NaiveBayes`.
    unseen : {"error", "ignore"}, default="error"
        As in :class:`~treelearn.NaiveBayes`.
    numbers : {"mdl", "states"}, default="mdl"
        Numeric columns cut into supervised MDL bins in ``fit`` (the
        default, ``numbers="mdl"``; ``numbers="states"`` makes each value a state), as in
        :class:`~treelearn.NaiveBayes`.
    categorical : sequence of hashable, default=None
        The columns of numbers kept as states, as in :class:`~treelearn.NaiveBayes`.

    Attributes
    ----------
    feature_weights_ : ``(n_features,)``, each in ``[0, 1]`` (bnclassify's ``awnb_weights``).
    feature_log_prob_ : per feature, ``log P(x_j | c)`` of shape ``(classes, states)``.

    Notes
    -----
    The trees are grown on the rows in memory (a DataFrame, an array or a file); a
    missing value is the all-zero indicator block.

    See Also
    --------
    WeightedNaiveBayes : weights by conditional likelihood (WANBIA).
    NaiveBayes : no weights.

    References
    ----------
    .. [1] Hall, M. (2007). A decision tree-based attribute weighting filter for naive
       Bayes. Knowledge-Based Systems 20(2), 120-126.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv").head(2000)
    >>> clf = tl.AWNB(random_state=0).fit(df.drop(columns="either"), df["either"])
    >>> w = dict(zip(clf.feature_names_in_, clf.feature_weights_.round(3).tolist()))
    >>> w["lung"], w["tub"], w["asia"]   # 'either' is 'tub or lung': lung near the root
    (0.941, 0.681, 0.0)
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_trees": [Interval(Integral, 1, None)],
        "bootstrap": [Interval(Real, 0, 1, closed="right")],
        "random_state": RANDOM_STATE,
        "alpha": [Interval(Real, 0, None, closed="neither")],
        **CLASS_PRIOR,
        **UNSEEN,
    }

    def __init__(
        self,
        n_trees: int = 10,
        bootstrap: float = 0.5,
        random_state: int | np.random.Generator | None = None,
        alpha: float = 1.0,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
    ) -> None:
        self.n_trees = n_trees
        self.bootstrap = bootstrap
        self.random_state = random_state
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.numbers = numbers
        self.categorical = categorical

    def _learn_weighted(self, stats: ClassCounts, params: dict) -> None:
        from sklearn.ensemble import BaggingClassifier
        from sklearn.tree import DecisionTreeClassifier

        d = len(stats.columns) - 1
        self.feature_log_prob_ = self._naive_bayes_tables(stats, params["alpha"])
        if stats.table is None:
            raise InputTypeError(
                "AWNB grows its trees on the rows in memory: give a "
                "DataFrame, an array or a file, not a Dask DataFrame"
            )
        codes, weights = stats.table.codes, stats.table.weights
        cards = stats.cardinalities[:d]
        n, width = codes.shape[0], int(cards.sum())
        check_memory(
            4.0 * n * width * 2,
            f"AWNB's {n} x {width} one-hot indicators",
            "learn from fewer rows (a sample) or features with fewer states",
        )
        X = indicator_matrix(codes[:, :d], cards)
        random_state = params["random_state"]
        if isinstance(random_state, np.random.Generator):
            random_state = int(random_state.integers(2**31 - 1))
        bagging = BaggingClassifier(
            DecisionTreeClassifier(criterion="entropy"),
            n_estimators=params["n_trees"],
            max_samples=params["bootstrap"],
            bootstrap=True,
            random_state=random_state,
        )
        with warnings.catch_warnings():  # max_samples is a fraction by design (Hall's 0.5)
            warnings.filterwarnings("ignore", "Using the fractional value max_samples", UserWarning)
            bagging.fit(X, codes[:, d], sample_weight=weights)
        owner = np.repeat(np.arange(d), cards)
        self.feature_weights_ = np.mean(
            [tree_feature_weights(t, owner, d) for t in bagging.estimators_], axis=0
        )


def indicator_matrix(codes: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """``(n, sum k_j)`` float32 indicators: column ``offset_j + k`` is ``[x_j = k]`` (a missing
    value, code -1, leaves its block zero)."""
    n = codes.shape[0]
    offsets = np.concatenate([[0], np.cumsum(cards)[:-1]])
    X = np.zeros((n, int(np.sum(cards))), dtype=np.float32)
    rows, cols = np.nonzero(codes >= 0)
    X[rows, offsets[cols] + codes[rows, cols]] = 1.0
    return X
