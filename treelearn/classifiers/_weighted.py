"""Weighted naive Bayes by conditional likelihood (WANBIA; Zaidi, Cerquides, Carman and
Webb, JMLR 2013).

Naive Bayes with one weight per feature, ``0 <= w_j <= 1`` (a weight below 1 discounts
evidence that other features repeat):

``s(c, x) = log P(c) + sum_j w_j log P(x_j | c)``,  ``p(c | x) = softmax_c s(c, x)``,

the probabilities those of naive Bayes (Lidstone ``alpha``), the weights chosen by
L-BFGS-B (``scipy.optimize.minimize``, bounds ``[0, 1]`` as in the paper, started at 1 =
naive Bayes)
on the training rows' conditional log-likelihood (``objective="cll"``) or mean squared
error of the posterior (``"mse"``), with exact gradients:

* CLL: ``-sum_i r_i log p(y_i | x_i)``; ``d/dw_j = -sum_i r_i (F_ij(y_i) - sum_c p_ic F_ij(c))``,
* MSE: ``1/2 sum_i r_i sum_c (p_ic - [c = y_i])^2``; ``d/ds_ik = p_ik (e_ik - sum_c e_ic p_ic)``
  with ``e = p - t``, and ``d/dw_j = sum_i r_i sum_k d/ds_ik F_ij(k)``,

where ``F_ij(c) = log P(x_ij | c)`` (0 for a missing value) and ``r_i`` the row weights.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from numbers import Integral, Real
from typing import ClassVar

import numpy as np

from .._base.errors import TreelearnError
from .._base.jsonvalues import encode_label
from .._base.limits import check_memory
from .._base.logspace import logsumexp
from .._base.persistence import SavedState
from .._base.validation import Interval, Options
from ..stats._counts import ClassCounts
from ..stats._parameters import estimate_cpt
from ._base import CLASS_PRIOR, UNSEEN, CategoricalClassifier, Unseen

__all__ = ["FeatureWeightedClassifier", "WeightedNaiveBayes", "wanbia_objective"]


def wanbia_objective(
    weights: np.ndarray,
    F: np.ndarray,
    y: np.ndarray,
    log_prior: np.ndarray,
    row_weights: np.ndarray,
    objective: str,
) -> tuple[float, np.ndarray]:
    """The objective (to minimise) and its exact gradient at the feature ``weights``.

    ``F``: ``(rows, features, classes)`` of ``log P(x_ij | c)`` (0 where missing); ``y``:
    each row's class index; ``log_prior``: ``log P(c)``; ``row_weights``: ``r_i``.

    >>> F = np.log(np.array([[[0.8, 0.3]], [[0.2, 0.7]]]))   # two rows, one feature
    >>> value, grad = wanbia_objective(np.ones(1), F, np.array([0, 1]), np.log([0.5, 0.5]),
    ...                                np.ones(2), "cll")
    >>> bool(np.isclose(value, -np.log(0.8 / 1.1) - np.log(0.7 / 0.9)))
    True
    """
    s = log_prior[None, :] + np.einsum("ijc,j->ic", F, weights)
    log_p = s - logsumexp(s, axis=1, keepdims=True)
    p = np.exp(log_p)
    rows = np.arange(len(y))
    if objective == "cll":
        value = -float(np.sum(row_weights * log_p[rows, y]))
        expected = np.einsum("ijc,ic->ij", F, p)  # sum_c p_ic F_ij(c)
        grad = -np.einsum("i,ij->j", row_weights, F[rows, :, y] - expected)
        return value, grad
    t = np.zeros_like(p)
    t[rows, y] = 1.0
    e = p - t
    value = 0.5 * float(np.sum(row_weights[:, None] * e * e))
    ds = p * (e - np.sum(e * p, axis=1, keepdims=True))
    grad = np.einsum("i,ic,ijc->j", row_weights, ds, F)
    return value, grad


class FeatureWeightedClassifier(CategoricalClassifier):
    """What the naive Bayes classifiers with one table and one weight per feature share
    (WANBIA, AWNB, MANB): ``s(c, x) = log P(c) + sum_j w_j T_j[c, x_j]``, a missing value
    adding nothing, and the saving of the tables and weights.

    A subclass learns ``feature_log_prob_`` (per feature, ``T_j`` of shape ``(classes,
    states)``: log-probabilities of the feature given the class) and
    ``feature_weights_`` (``(n_features,)``, in ``[0, 1]``) in ``_learn_weighted``, and
    saves anything more through ``_more_state`` / ``_restore_more``.
    """

    #: its class posterior on the explorer page beside the classifier's own answers
    capabilities: ClassVar[frozenset[str]] = frozenset({"classify", "score", "explain", "explorer"})

    def _learn(self, stats: ClassCounts, params: dict) -> None:
        d = len(stats.columns) - 1
        self._states = [list(s) for s in stats.states[:d]]
        self._learn_weighted(stats, params)

    def _learn_weighted(self, stats: ClassCounts, params: dict) -> None:
        raise NotImplementedError

    def _naive_bayes_tables(self, stats: ClassCounts, alpha: float) -> list[np.ndarray]:
        """Naive Bayes's ``log P(x_j | c)`` (Lidstone ``alpha``), one table per feature."""
        d = len(stats.columns) - 1
        return [np.log(estimate_cpt(stats.family_counts([d, j]), alpha)) for j in range(d)]

    def _log_probabilities(self, codes: np.ndarray) -> np.ndarray:
        """``F[i, j, c] = T_j[c, x_ij]``, 0 where ``x_ij`` is missing."""
        n, d = codes.shape
        F = np.zeros((n, d, len(self.classes_)))
        for j, table in enumerate(self.feature_log_prob_):  # d gathers over every row
            seen = codes[:, j] >= 0
            F[seen, j, :] = table[:, codes[seen, j]].T
        return F

    # ------------------------------------------------------------ prediction
    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        out = np.repeat(self.class_log_prior_[None, :], len(codes), axis=0)
        for j, table in enumerate(self.feature_log_prob_):  # one gather per feature
            seen = codes[:, j] >= 0
            out[seen] += self.feature_weights_[j] * table[:, codes[seen, j]].T
        return out

    def _feature_states(self) -> list:
        return self._states

    @property
    def states_(self) -> list:
        """Each feature's states, in ``feature_names_in_`` order (a copy)."""
        self._require_fitted()
        return [list(s) for s in self._states]

    @property
    def n_parameters(self) -> int:
        """The class prior's, naive Bayes's and one weight per feature."""
        self._require_fitted()
        k = len(self.classes_)
        return (k - 1) + sum(k * (len(s) - 1) for s in self._states) + len(self._states)

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`): its score
        ``log P(y) + sum_j w_j T_j[y, x_j]`` over the observed features as one forest, the
        class the root and each feature its child with the rows ``exp(w_j T_j)`` (a
        feature without evidence adds nothing: the page's forests send no message from an
        unobserved leaf), so the class posterior is ``predict_proba``'s and an unobserved
        feature's bars the score with that feature added, normalised (MANB's, every weight
        1: naive Bayes's exact posterior). No side panel, likelihoods or MAP (the score is
        no distribution). Drawn: the class above its features."""
        from ..viz._page_spec import class_spec, require_fitted, title_of

        require_fitted(self)
        self._require_fitted()  # a partial_fit call after the first: learn its counts now
        features = list(self.feature_names_in_)
        d = len(features)
        tables = [np.asarray(t, dtype=float) for t in self.feature_log_prob_]
        with np.errstate(invalid="ignore"):  # a weight 0 drops the feature: 0 x log 0 is 0
            rows = [
                np.where(np.isfinite(t), np.exp(w * t), 0.0) if w != 0 else np.ones_like(t)
                for t, w in zip(tables, self.feature_weights_)
            ]
        prior = np.exp(self.class_log_prior_)
        parts = [f"{d} feature{'' if d == 1 else 's'}"]
        if title is None:
            head = f"{type(self).__name__}: naive Bayes, one weight per feature"
            title = title_of(head, parts, float(np.sum(self.class_count_)))
        spec = class_spec(
            features,
            self._states,
            self.class_name_,
            self.classes_,
            prior,
            [np.exp(t) for t in tables],
            title,
        )
        cpt = [r.tolist() for r in rows] + [[prior.tolist()]]
        forest = {"parent": [d] * d + [-1], "cpt": cpt, "weight": 1.0}
        return {
            **spec,
            "components": [forest],
            "panel": False,
            "map": False,
            "soft": "its score is no distribution to weight",
        }

    def _feature_groups(self) -> list:
        return [[j] for j in range(len(self._states))]  # independent given the class

    # ------------------------------------------------------------ saving
    def _more_state(self) -> dict:
        return {}

    def _restore_more(self, saved: SavedState) -> None:
        pass

    def _fitted_state(self) -> dict:
        return {
            "states": [[encode_label(v) for v in s] for s in self._states],
            "feature_log_prob": [t.tolist() for t in self.feature_log_prob_],
            "feature_weights": self.feature_weights_.tolist(),
            **self._more_state(),
        }

    def _restore_model(self, saved: SavedState) -> None:
        raw = saved.raw("states", list)
        d, k = self.n_features_in_, len(self.classes_)
        if len(raw) != d:
            raise saved.fail("states", f"holds {len(raw)} features' states, not {d}")
        self._states = [saved.labels_in(s, "states") for s in raw]
        tables = saved.raw("feature_log_prob", list)
        if len(tables) != d:
            raise saved.fail("feature_log_prob", f"holds {len(tables)} tables, not {d}")
        self.feature_log_prob_ = []
        for j, states in enumerate(self._states):
            table = np.asarray(tables[j], dtype=float)
            if (
                table.shape != (k, len(states))
                or (table > 0).any()
                or not np.allclose(np.exp(table).sum(axis=1), 1.0, rtol=0, atol=1e-9)
            ):
                raise saved.fail(
                    "feature_log_prob", f"table {j} is not {k} x {len(states)} log-probabilities"
                )
            self.feature_log_prob_.append(table)
        self.feature_weights_ = saved.array("feature_weights", (d,), low=0)
        if (self.feature_weights_ > 1).any():
            raise saved.fail("feature_weights", "must hold weights between 0 and 1")
        self._restore_more(saved)


class WeightedNaiveBayes(FeatureWeightedClassifier):
    """Naive Bayes with one weight per feature, by conditional likelihood (WANBIA).

    See the module docstring for the model and the optimisation.

    Parameters
    ----------
    objective : {"cll", "mse"}, default="cll"
        ``"cll"`` (conditional log-likelihood, the default) or ``"mse"``
        (mean squared error of the posterior).
    alpha : float, default=1.0
        Lidstone pseudocount of ``P(x_j | c)`` (> 0: every log-probability finite).
    max_iter : int, default=500
        L-BFGS-B's most iterations and its gradient tolerance (``gtol``).
    tol : float, default=1e-08
        L-BFGS-B's most iterations and its gradient tolerance (``gtol``).
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
    feature_weights_ : ``(n_features,)``, each in ``[0, 1]`` (1 everywhere is naive Bayes).
    feature_log_prob_ : per feature, ``log P(x_j | c)`` of shape ``(classes, states)``.
    n_iter_, objective_value_ : the optimiser's iterations and the objective at the end.
    classes_, class_name_, class_count_, class_log_prior_, n_features_in_, feature_names_in_
        As :class:`~treelearn.NaiveBayes`'s.

    Notes
    -----
    The rows are revisited at every iteration: the training data in memory (a DataFrame,
    an array or a file). ``predict_joint_log_proba`` gives the weighted score ``s(c, x)``,
    which is not a normalised ``log p(x, c)`` unless every weight is 1.

    See Also
    --------
    AWNB : weights from decision trees.
    NaiveBayes : no weights.

    References
    ----------
    .. [1] Zaidi, N. A., Cerquides, J., Carman, M. J. and Webb, G. I. (2013). Alleviating
       naive Bayes attribute independence assumption by attribute weighting. Journal of
       Machine Learning Research 14, 1947-1988.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv").head(3000)
    >>> X, y = df.drop(columns="either"), df["either"]
    >>> clf = tl.WeightedNaiveBayes().fit(X, y)
    >>> clf.feature_weights_.shape, bool((clf.feature_weights_ >= 0).all())
    ((7,), True)
    >>> bool(clf.objective_value_ <= -tl.NaiveBayes().fit(X, y).predict_log_proba(X)[
    ...     range(len(y)), (y == "yes").to_numpy().astype(int)].sum())   # no worse than NB
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "objective": [Options("cll", "mse")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None, closed="neither")],
        **CLASS_PRIOR,
        **UNSEEN,
    }

    def __init__(
        self,
        objective: str = "cll",
        alpha: float = 1.0,
        max_iter: int = 500,
        tol: float = 1e-8,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
    ) -> None:
        self.objective = objective
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.numbers = numbers
        self.categorical = categorical

    # ------------------------------------------------------------ fitting
    def _learn_weighted(self, stats: ClassCounts, params: dict) -> None:
        from scipy.optimize import minimize  # here: scipy only for this learner

        d = len(stats.columns) - 1
        self.feature_log_prob_ = self._naive_bayes_tables(stats, params["alpha"])
        if stats.table is None:
            raise TreelearnError(
                "WeightedNaiveBayes revisits the training rows at every "
                "iteration: give a DataFrame, an array or a file"
            )
        codes, row_weights = stats.table.codes, stats.table.weights
        n, n_classes = codes.shape[0], len(stats.classes)
        check_memory(
            8.0 * n * d * n_classes * 3,
            f"WANBIA's {n} x {d} x {n_classes} log-probabilities",
            "learn from fewer rows (a sample)",
        )
        F = self._log_probabilities(codes[:, :d].astype(np.intp))
        r = np.ones(n) if row_weights is None else np.asarray(row_weights, dtype=float)
        y = codes[:, d].astype(np.intp)
        result = minimize(
            wanbia_objective,
            np.ones(d),
            jac=True,
            method="L-BFGS-B",
            args=(F, y, self.class_log_prior_, r, params["objective"]),
            bounds=[(0.0, 1.0)] * d,
            options={"maxiter": params["max_iter"], "gtol": params["tol"], "ftol": 0.0},
        )
        self.feature_weights_ = np.clip(result.x, 0.0, 1.0)
        self.n_iter_ = int(result.nit)
        self.objective_value_ = float(result.fun)

    # ------------------------------------------------------------ saving
    def _more_state(self) -> dict:
        return {"n_iter": self.n_iter_, "objective_value": self.objective_value_}

    def _restore_more(self, saved: SavedState) -> None:
        self.n_iter_ = saved.raw("n_iter", int)
        self.objective_value_ = float(saved.array("objective_value", ()))
