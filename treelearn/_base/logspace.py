"""Sums of probabilities kept as logarithms: the one log-sum-exp (plain numpy).

scipy's ``logsumexp`` checks and dispatches enough to double a classifier's
``predict_proba``; this one is a max, a subtraction, an ``exp`` and a sum.
"""

from __future__ import annotations

import numpy as np

__all__ = ["logsumexp"]


def logsumexp(a: np.ndarray, axis: int = -1, keepdims: bool = False) -> np.ndarray:
    """``log(sum(exp(a)))`` along ``axis``, without overflow; ``-inf`` where every term is
    ``-inf`` (and no warning).

    >>> logsumexp(np.array([[0.0, np.log(3.0)], [-np.inf, -np.inf]]), axis=1).tolist()
    [1.3862943611198906, -inf]
    >>> round(float(logsumexp(np.array([1000.0, 1000.0])) - 1000.0), 12)   # log 2, no overflow
    0.69314718056
    """
    a = np.asarray(a, dtype=float)
    top = np.max(a, axis=axis, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(a - safe), axis=axis, keepdims=True)) + safe
    out = np.where(np.isneginf(top), -np.inf, out)
    return out if keepdims else np.squeeze(out, axis=axis)
