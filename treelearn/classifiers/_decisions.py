"""Posteriors and decisions shared by the classifiers that do not work from category counts.

``posterior`` normalises joint log-likelihoods with log-sum-exp; ``decide`` picks
the most probable class or, with a loss matrix ``L[true, predicted]``, the
minimum expected loss class ``argmin_j sum_k L[k, j] p(k | x)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import TreelearnError
from .._base.logspace import logsumexp
from ..encoding._table import python_scalar

__all__ = ["JointLogProbaMixin", "decide", "loss_matrix", "posterior"]


def loss_matrix(loss: Any, classes: np.ndarray) -> np.ndarray:
    """``L[true, predicted]`` as a ``k x k`` float array (a DataFrame is aligned on the labels).

    >>> loss_matrix([[0, 1], [5, 0]], np.array(["a", "b"])).tolist()
    [[0.0, 1.0], [5.0, 0.0]]
    """
    k = len(classes)
    if isinstance(loss, pd.DataFrame):
        labels = [python_scalar(c) for c in classes]
        absent = [c for c in labels if c not in loss.index or c not in loss.columns]
        if absent:
            raise TreelearnError(
                f"the loss DataFrame lacks the class(es) {absent} in its index or columns"
            )
        loss = loss.reindex(index=labels, columns=labels)  # .loc reads bool labels as a mask
    L = np.asarray(loss, dtype=float)
    if L.shape != (k, k) or not np.isfinite(L).all():
        raise TreelearnError(
            f"loss must be a finite {k} x {k} matrix L[true, predicted] over the classes "
            f"{[python_scalar(c) for c in classes]}; got shape {L.shape}"
        )
    return L


def posterior(joint: np.ndarray) -> np.ndarray:
    """``log p(c | x)`` from ``log p(x, c)`` (rows normalised with log-sum-exp).

    >>> np.exp(posterior(np.log([[1.0, 3.0]]))).round(12).tolist()
    [[0.25, 0.75]]
    """
    return joint - logsumexp(joint, axis=1, keepdims=True)


def decide(log_proba: np.ndarray, classes: np.ndarray, loss: Any = None) -> np.ndarray:
    """The class with the largest posterior, or the minimum expected loss class under ``loss``.

    >>> decide(np.log([[0.7, 0.3]]), np.array(["a", "b"])).tolist()
    ['a']
    >>> decide(np.log([[0.7, 0.3]]), np.array(["a", "b"]), loss=[[0, 1], [5, 0]]).tolist()
    ['b']
    """
    if loss is None:
        return classes[np.argmax(log_proba, axis=1)]
    L = loss_matrix(loss, classes)
    return classes[np.argmin(np.exp(log_proba) @ L, axis=1)]


class JointLogProbaMixin:
    """``predict_log_proba``, ``predict_proba`` and ``predict(X, loss=None)`` written once,
    from the class's ``predict_joint_log_proba(X)`` (``log p(x, c)``, rows x ``classes_``)."""

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """``log p(c | x)``, normalised with log-sum-exp."""
        return posterior(self.predict_joint_log_proba(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """``p(c | x)``; rows sum to 1."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: Any, loss: Any = None) -> np.ndarray:
        """The most probable class, or with ``loss[true, predicted]`` the minimum expected loss one."""
        return decide(self.predict_log_proba(X), self.classes_, loss)
