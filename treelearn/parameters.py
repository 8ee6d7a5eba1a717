"""Conditional probability tables for any DAG.

A CPT is an array indexed ``[parent_1 state, ..., parent_m state, own state]``,
normalised over the last axis. Estimators (``N(u, a)`` = rows with parents in
configuration ``u`` and the node in state ``a``; ``k`` = the node's states;
``q`` = the number of parent configurations):

* maximum likelihood (``prior="lidstone"``, ``alpha=0``): ``N(u, a) / N(u)``;
  a parent configuration never seen in the data gets a **uniform** row;
* Lidstone / Laplace (``alpha > 0``): ``(N(u, a) + alpha) / (N(u) + k alpha)``;
* BDeu (``prior="bdeu"``) with equivalent sample size ``s``: Lidstone with
  ``alpha = s / (q k)``.
"""

from __future__ import annotations

import numpy as np

from .settings import LearningSettings, Prior

__all__ = ["estimate_cpt"]


def estimate_cpt(
    counts: np.ndarray,
    alpha: float = 0.0,
    prior: Prior = "lidstone",
    equivalent_sample_size: float = 1.0,
) -> np.ndarray:
    """CPT from a family's counts ``counts[u_1, ..., u_m, a]`` (weighted counts too).

    Examples
    --------
    >>> import numpy as np
    >>> estimate_cpt(np.array([[3, 1], [0, 0]])).tolist()   # unseen parent state: uniform
    [[0.75, 0.25], [0.5, 0.5]]
    >>> estimate_cpt(np.array([[3, 1], [0, 0]]), alpha=1.0).tolist()
    [[0.6666666666666666, 0.3333333333333333], [0.5, 0.5]]
    """
    LearningSettings(alpha=alpha, prior=prior, equivalent_sample_size=equivalent_sample_size)
    counts = np.asarray(counts, dtype=float)
    k = counts.shape[-1]
    if prior == "bdeu":
        q = int(np.prod(counts.shape[:-1], dtype=np.int64))
        alpha = equivalent_sample_size / (q * k)
    smoothed = counts + alpha
    totals = smoothed.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        cpt = np.where(totals > 0, smoothed / np.where(totals > 0, totals, 1.0), 1.0 / k)
    return cpt
