"""Model-averaged naive Bayes (MANB; Dash and Cooper, 2002; bnclassify's ``manb_prior``).

Naive Bayes averaged over all ``2^n`` subsets ``S`` of the features, a feature in ``S``
depending on the class and one outside it not: the model-averaged joint is

``P(c, x | D) = sum_S P(S | D) P(c | D) prod_{j in S} P(x_j | c, D) prod_{j not in S} P(x_j | D)``

``= P(c | D) prod_j [p_j P(x_j | c, D) + (1 - p_j) P(x_j | D)]``,

because the prior over subsets and the marginal likelihood both factor over the
features: each arc ``C -> X_j`` is in ``S`` independently, with prior probability
``arc_prior`` and posterior ``p_j``. With Dirichlet(``alpha``) priors on every
distribution (the marginal likelihood of the Bayesian-Dirichlet score, ``r_j`` states,
counts ``N_jck`` of state ``k`` in class ``c``),

``log P(D_j | C -> X_j) = sum_c [lgamma(r alpha) - lgamma(r alpha + N_jc) + sum_k (lgamma(alpha
+ N_jck) - lgamma(alpha))]``,

``log P(D_j | no arc) = lgamma(r alpha) - lgamma(r alpha + N_j) + sum_k (lgamma(alpha + N_jk) -
lgamma(alpha))``,

and ``p_j`` is Bayes's rule between the two. The averaged tables are ``T_j[c, k] = log(p_j
(N_jck + alpha) / (N_jc + r alpha) + (1 - p_j) (N_jk + alpha) / (N_j + r alpha))``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from numbers import Real
from typing import ClassVar

import numpy as np

from .._base.persistence import SavedState
from .._base.validation import Interval
from ..stats._counts import ClassCounts
from ._base import CLASS_PRIOR, UNSEEN, Unseen
from ._class_arcs import averaged_cpts
from ._partial import PartialFit
from ._weighted import FeatureWeightedClassifier

__all__ = ["MANB"]


class MANB(PartialFit, FeatureWeightedClassifier):
    """Model-averaged naive Bayes over every subset of the features (Dash and Cooper, 2002).

    See the module docstring: the exact Bayesian average of the ``2^n`` naive Bayes
    models (each feature with or without its arc from the class), in closed form. A
    feature the data show independent of the class gets ``p_j`` near 0, and its tables
    near its marginal: it stops moving the posterior.

    Parameters
    ----------
    alpha : float, default=1.0
        The Dirichlet pseudocount of every distribution (> 0; bnclassify's ``smooth``).
    arc_prior : float, default=0.5
        The prior probability of each arc ``C -> X_j`` (in ``(0, 1)``; 0.5: every
        subset equally likely).
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

    Notes
    -----
    ``partial_fit`` sums chunks' counts as naive Bayes's does (the tables need the class-
    feature pairs only).

    Attributes
    ----------
    arc_posterior_ : ``(n_features,)``, each feature's ``p_j`` (bnclassify's
        ``manb_arc_posterior``).
    feature_log_prob_ : per feature, the averaged ``T_j`` of shape ``(classes, states)``.
    feature_weights_ : ones (the average is in the tables).

    See Also
    --------
    NaiveBayes : every feature.
    FSSJ : a chosen subset of features.

    References
    ----------
    .. [1] Dash, D. and Cooper, G. F. (2002). Exact model averaging with naive Bayesian
       classifiers. In Proceedings of the 19th International Conference on Machine
       Learning (ICML), 91-98.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv").head(2000)
    >>> clf = tl.MANB().fit(df.drop(columns="either"), df["either"])
    >>> p = dict(zip(clf.feature_names_in_, clf.arc_posterior_.round(3).tolist()))
    >>> p["lung"], p["asia"]   # asia barely moves 'either' on 2,000 rows
    (1.0, 0.022)
    """

    capabilities: ClassVar[frozenset[str]] = FeatureWeightedClassifier.capabilities | {
        "partial_fit"
    }
    _parameter_constraints: ClassVar[dict] = {
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "arc_prior": [Interval(Real, 0, 1, closed="neither")],
        **CLASS_PRIOR,
        **UNSEEN,
    }

    def __init__(
        self,
        alpha: float = 1.0,
        arc_prior: float = 0.5,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
    ) -> None:
        self.alpha = alpha
        self.arc_prior = arc_prior
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.numbers = numbers
        self.categorical = categorical

    def _learn_weighted(self, stats: ClassCounts, params: dict) -> None:
        d = len(stats.columns) - 1
        families = [stats.family_counts([d, j]) for j in range(d)]  # the class first
        tables, posterior = averaged_cpts(
            families, [0] * d, params["alpha"], "lidstone", 1.0, 1.0, params["arc_prior"]
        )
        self.arc_posterior_ = posterior
        self.feature_log_prob_ = [np.log(t) for t in tables]
        self.feature_weights_ = np.ones(d)

    def _more_state(self) -> dict:
        return {"arc_posterior": self.arc_posterior_.tolist()}

    def _restore_more(self, saved: SavedState) -> None:
        if not np.array_equal(self.feature_weights_, np.ones(self.n_features_in_)):
            raise saved.fail("feature_weights", "must be ones: MANB averages in its tables")
        self.arc_posterior_ = saved.array("arc_posterior", (self.n_features_in_,), low=0)
        if (self.arc_posterior_ > 1).any():
            raise saved.fail("arc_posterior", "must hold probabilities between 0 and 1")
