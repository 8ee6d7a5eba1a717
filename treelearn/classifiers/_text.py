"""Naive Bayes for text: Bernoulli and multinomial event models on dense or scipy.sparse counts.

A document is a row of term counts (a bag of words). Both models are naive
Bayes with the class prior ``n_c / n``; they differ in what a row is:

* ``"multinomial"``: a sequence of words drawn from ``theta_c``;
  ``theta_cj = (N_cj + alpha) / (N_c + alpha |V|)`` (``N_cj`` the count of term
  ``j`` in class ``c``, ``alpha = 1`` Laplace), and
  ``log p(x | c) = sum_j x_j log theta_cj`` (the multinomial coefficient, the
  same for every class, is left out as scikit-learn does);
* ``"bernoulli"``: one yes/no per vocabulary word (``x_j > binarize``);
  ``p_cj = (D_cj + alpha) / (D_c + 2 alpha)`` (``D_cj`` documents of class ``c``
  containing ``j``), and absent words count through ``log(1 - p_cj)``.

A sparse matrix is never made dense: the statistics are one product
``Y^T X`` (``Y`` the weighted class indicator), and the joint log-likelihood is
``X log(theta)^T``, so time and memory follow the non-zeros. The probabilities
equal scikit-learn's ``MultinomialNB`` / ``BernoulliNB`` (same ``alpha``,
``fit_prior=True``).

:func:`term_class_information` is ``I(term present; class)`` for every term, from
the same counts: the feature-selection score for text.
"""

from __future__ import annotations

from numbers import Real
from typing import Any, ClassVar

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._base.jsonvalues import json_value
from .._base.persistence import SavedState
from .._base.validation import Interval, Options
from ..sources._kinds import term_matrix
from ..sources._terms import term_counts_by_class
from ..stats._terms import TermCounts, binary_terms
from ._base import CLASS_PRIOR, BayesNetClassifier, TrainingData, class_training
from ._numbers import refuse_states

__all__ = ["TextNaiveBayes", "term_class_information"]

_EVENT_MODELS = ("multinomial", "bernoulli")


def term_class_information(
    X: Any, y: Any, binarize: float = 0.0, sample_weight: Any = None
) -> np.ndarray:
    """``I(X_j > binarize; C)`` in nats for every term ``j`` (dense or sparse ``X``).

    From the document counts ``D_cj`` (one sparse product) and the class sizes,
    with the empirical (maximum-likelihood) distribution; ``sample_weight``
    weights the documents (whole numbers: as if repeated).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix
        Documents x terms counts (never made dense).
    y : array-like
        The class of each document.
    binarize : float, default=0.0
        A term is present in a document when its count exceeds this.
    sample_weight : array-like, default=None
        One non-negative weight per document.

    Returns
    -------
    numpy.ndarray
        One mutual information per term, in nats (``0 <= I <= H(C)``).

    See Also
    --------
    rank_features : the same for any table, as a sorted Series.
    TextNaiveBayes : the classifier for such counts.

    Examples
    --------
    >>> import numpy as np
    >>> from treelearn import term_class_information
    >>> X = np.array([[1, 0], [2, 0], [0, 1], [0, 0]])
    >>> term_class_information(X, ["a", "a", "b", "b"]).round(4).tolist()
    [0.6931, 0.2158]
    """
    counts = term_counts_by_class(
        X,
        y,
        sample_weight=sample_weight,
        binarize=binarize,
        term_sums=False,
        learner="term_class_information",
    )
    present = counts.document_counts  # k x d: documents of each class containing each term
    assert present is not None  # counted with binarize (without, the counting refuses)
    nc = counts.weight[:, None]
    n = float(nc.sum())
    joint = np.stack([present, nc - present]) / n  # (present?, class, term)
    pc = nc / n
    pt = joint.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(joint > 0, joint * np.log(joint / (pc[None] * pt)), 0.0)
    return terms.sum(axis=(0, 1))


class TextNaiveBayes(BayesNetClassifier):
    """Naive Bayes for term counts: ``event_model="multinomial"`` or ``"bernoulli"``.

    Parameters
    ----------
    event_model : {"multinomial", "bernoulli"}, default="multinomial"
        ``"multinomial"`` (word counts) or ``"bernoulli"`` (word presence).
    alpha : float, default=1.0
        Lidstone pseudocount (1 = Laplace: ``(n_k + 1) / (n + |V|)``).
    binarize : float, default=0.0
        For Bernoulli, a count above this is "present".
    fit_prior : bool, default=True
        The class prior: the class frequencies (default), given
        probabilities (in ``classes_`` order), or uniform (``fit_prior=False``), as
        scikit-learn's ``MultinomialNB`` / ``BernoulliNB``.
    class_prior : array-like of float, default=None
        See ``fit_prior``.

    Notes
    -----
    ``X`` is a DataFrame, an array or a scipy.sparse matrix of non-negative counts
    (a sparse matrix stays sparse), a CSV/Parquet path (``y`` its class column's name;
    read in chunks) or a Dask DataFrame (``y`` a Dask Series; counted on the workers):
    everything is learned from the counts per class (one sparse product). A DataFrame's columns name the terms
    (``feature_names_in_``) and are matched by name at prediction; an array or a
    sparse matrix by position (a vocabulary may have millions of terms: none are
    named). Attributes: ``classes_``, ``class_log_prior_``, ``feature_log_prob_``
    (``k x |V|``: ``log theta_cj`` or ``log p_cj``), ``feature_count_``, ``class_count_``.

    See Also
    --------
    NaiveBayes : categorical features.
    term_class_information : the terms' information about the class.

    References
    ----------
    .. [1] McCallum, A. and Nigam, K. (1998). A comparison of event models for naive
       Bayes text classification. In AAAI-98 Workshop on Learning for Text
       Categorization, 41-48.

    Examples
    --------
    >>> import scipy.sparse as sp, treelearn as tl
    >>> X = sp.csr_matrix([[2, 1, 0], [3, 0, 0], [0, 1, 4], [0, 0, 2]])
    >>> clf = tl.TextNaiveBayes("multinomial").fit(X, ["spam", "spam", "ham", "ham"])
    >>> clf.predict(sp.csr_matrix([[1, 0, 0], [0, 0, 1]])).tolist()
    ['spam', 'ham']
    >>> clf = tl.TextNaiveBayes("bernoulli").fit([[1, 0], [0, 1], [0, 3]], ["a", "b", "b"])
    >>> np.exp(clf.feature_log_prob_).round(3).tolist()   # (D_cj + 1) / (D_c + 2)
    [[0.667, 0.333], [0.25, 0.75]]
    """

    _parameter_constraints: ClassVar[dict] = {
        "event_model": [Options(*_EVENT_MODELS)],
        "alpha": [Interval(Real, 0, None)],
        "binarize": [Interval(Real, None, None)],
        **CLASS_PRIOR,
    }
    _parameter_notes: ClassVar[dict] = {"alpha": "0 = maximum likelihood, 1 = Laplace"}

    def __init__(
        self,
        event_model: str = "multinomial",
        alpha: float = 1.0,
        binarize: float = 0.0,
        fit_prior: bool = True,
        class_prior: Any = None,
    ) -> None:
        self.event_model = event_model
        self.alpha = alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        # as scikit-learn's MultinomialNB / BernoulliNB: counts models score poorly on the
        # dense continuous data of its checks
        tags.classifier_tags.poor_score = True
        return tags

    # ------------------------------------------------------------ the term-count input kind
    def _training_data(self, X: Any, y: Any, sample_weight: Any) -> TrainingData:
        bernoulli = self.event_model == "bernoulli"  # document counts only; else term sums only
        refuse_states(
            X, "TextNaiveBayes", "MixedNaiveBayes", "term counts only", (y, sample_weight)
        )
        stats = term_counts_by_class(
            X,
            y,
            sample_weight=sample_weight,
            binarize=self.binarize if bernoulli else None,
            term_sums=not bernoulli,
            learner="TextNaiveBayes",
        )
        return class_training(stats, y, stats.n_terms)

    def _prediction_input(self, X: Any) -> Any:
        A, _ = term_matrix(self._matched(X), learner="TextNaiveBayes")
        return binary_terms(A, self.binarize) if self.event_model == "bernoulli" else A

    # ------------------------------------------------------------ the model
    def _learn(self, stats: TermCounts, params: dict) -> None:
        """Every probability from the (weighted) counts per class: the count of each term in
        each class (multinomial), or of each class's documents containing it (Bernoulli)."""
        counted = stats.term_sums if self.event_model == "multinomial" else stats.document_counts
        assert counted is not None  # _training_data counted what the event model reads
        self._estimate(counted, params)

    def _estimate(self, feature_count: np.ndarray, params: dict) -> None:
        """``feature_count[c, j]``: the count of term ``j`` in class ``c`` (multinomial) or of
        class-``c`` documents containing it (Bernoulli)."""
        counts = np.asarray(feature_count, dtype=float)
        class_count = np.asarray(self.class_count_, dtype=float)
        d = counts.shape[1]
        alpha = params["alpha"]
        with np.errstate(divide="ignore"):
            if self.event_model == "multinomial":
                log_prob = np.log(counts + alpha) - np.log(
                    counts.sum(axis=1, keepdims=True) + alpha * d
                )
            else:
                log_prob = np.log(counts + alpha) - np.log(class_count[:, None] + 2 * alpha)
                self._neg_log_prob = np.log1p(-np.exp(log_prob))
        self.feature_count_ = counts
        self.feature_log_prob_ = log_prob

    def _joint_log_likelihood(self, A: Any) -> np.ndarray:
        """``log p(x, c)`` (up to the class-free multinomial coefficient), ``n x k``."""
        log_p = self.feature_log_prob_
        neg = self._neg_log_prob if self.event_model == "bernoulli" else np.zeros_like(log_p)
        if np.isfinite(log_p).all() and np.isfinite(neg).all():
            jll = A @ (log_p - neg).T + neg.sum(axis=1)
        else:  # alpha = 0: a probability of 0 or 1; 0 * log 0 is 0, not the product's NaN
            finite_p, finite_neg = (
                np.where(np.isfinite(log_p), log_p, 0.0),
                np.where(np.isfinite(neg), neg, 0.0),
            )
            jll = np.asarray(A @ (finite_p - finite_neg).T) + finite_neg.sum(axis=1)
            # impossible: a term present where p = 0, or (Bernoulli) absent where p = 1
            zero, one = np.isneginf(log_p).astype(float), np.isneginf(neg).astype(float)
            bad = np.asarray(A @ (zero - one).T) + one.sum(axis=1)
            jll = np.where(bad > 0.5, -np.inf, jll)
        return np.asarray(jll) + self.class_log_prior_

    @property
    def n_parameters(self) -> int:
        """Free parameters: the prior's ``k - 1``, and ``k (|V| - 1)`` (multinomial: each
        ``theta_c`` sums to one) or ``k |V|`` (Bernoulli)."""
        check_is_fitted(self)
        k, d = len(self.classes_), self.n_features_in_
        return k - 1 + k * (d - 1 if self.event_model == "multinomial" else d)

    # ------------------------------------------------------------ saving
    def _fitted_state(self) -> dict:
        return {"feature_count": json_value(self.feature_count_)}

    def _restore_model(self, saved: SavedState) -> None:
        counts = saved.array("feature_count", (len(self.classes_), self.n_features_in_), low=0)
        if (
            self.event_model == "bernoulli"
            and (counts > np.asarray(self.class_count_, dtype=float)[:, None]).any()
        ):
            raise saved.fail("feature_count", "has more documents with a term than the class has")
        self._estimate(counts, self._checked_params())
