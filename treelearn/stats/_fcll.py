"""The decomposable factorized conditional log-likelihood (fCLL) of Carvalho, Oliveira, Roos
and Myllymäki (JMLR 12, 2011): a score of a Bayesian network classifier's structure that
approximates its conditional log-likelihood and, unlike it, is a sum over families.

For a row ``t`` of class ``c_t``, ``log P(c_t | x_t) = log(U / (U + V))`` with ``U = P(x_t,
c_t)`` and ``V = P(x_t, not c_t)``. The paper replaces it by the least-squares fit
``alpha log U + beta log V + gamma`` over ``U, V`` independent and uniform on ``(0, 1)``:

* ``alpha = (pi^2 + 6) / 24``, ``beta = (pi^2 - 18) / 24`` (so ``alpha - beta = 1``),
* ``gamma = 1/2 - 2 ln 2 + (pi^2 - 6) / 12`` (natural logarithms),

and, with the maximum-likelihood parameters, the log-odds ``log p - log(1 - p)`` of each
family's class posterior by its least-squares fit on ``log p`` for ``p`` uniform, of slope
``lambda = pi^2 / 6``. The score of a network whose features have the class and the
feature parents ``Pi_i`` is then, over ``N`` rows (nats),

``fCLL = (alpha + beta) LL - beta lambda sum_t [sum_i log(P(c_t | x_i, pi_i) / P(c_t | pi_i))
+ log P(c_t)] + N (gamma - beta lambda)``

``= -(alpha + beta) N [H(C) + sum_i H(X_i | C, Pi_i)] - beta lambda N [sum_i I(C; X_i |
Pi_i) - H(C)] + N (gamma - beta lambda)``,

every probability the plug-in one. For a tree-augmented naive Bayes, the edge
``X_i - X_j`` adds ``N w_ij`` to naive Bayes's score, with

``w_ij = (alpha + beta) I(X_i; X_j | C) - beta lambda [I(X_i; X_j | C) - I(X_i; X_j)]``,

symmetric (the bracket is the interaction information, ``I(C; X_i | X_j) - I(C; X_i)``): the
best TAN under fCLL is the maximum spanning tree of ``w``. The derivation is the paper's
for two classes; the score is the same expression for any number of classes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._counts import PairCounts, sum_counts
from ._information import (
    conditional_mutual_information_matrix,
    entropies,
    mutual_information_matrix,
)

__all__ = [
    "FCLL_ALPHA",
    "FCLL_BETA",
    "FCLL_GAMMA",
    "FCLL_LAMBDA",
    "fcll_edge_weights",
    "fcll_score",
]

#: ``alpha`` of ``log(U / (U + V)) ~ alpha log U + beta log V + gamma``
FCLL_ALPHA = (np.pi**2 + 6.0) / 24.0
#: ``beta`` (negative: a likely competing class lowers the score)
FCLL_BETA = (np.pi**2 - 18.0) / 24.0
#: ``gamma`` (natural logarithms)
FCLL_GAMMA = 0.5 - 2.0 * np.log(2.0) + (np.pi**2 - 6.0) / 12.0
#: the slope of ``log p - log(1 - p)`` on ``log p``, ``p`` uniform
FCLL_LAMBDA = np.pi**2 / 6.0


def _features_only(per_class: Sequence[PairCounts], d: int) -> tuple[np.ndarray, np.ndarray]:
    """``I(X_i; X_j | C)`` and ``I(X_i; X_j)`` of the first ``d`` columns (the features)."""
    cmi = conditional_mutual_information_matrix(per_class)[:d, :d]
    everything = PairCounts(
        sum_counts([pc.joint for pc in per_class]),
        per_class[0].cardinalities,
        sum(pc.n_rows for pc in per_class),
    )
    return cmi, mutual_information_matrix(everything)[:d, :d]


def fcll_edge_weights(per_class: Sequence[PairCounts], d: int) -> np.ndarray:
    """``d x d`` fCLL edge weights ``w_ij`` (nats per row) of the ``d`` features.

    ``per_class``: one :class:`~treelearn.stats._counts.PairCounts` per class (the
    features first). ``w_ij`` is what the edge ``X_i - X_j`` adds to a TAN's fCLL per row
    (see the module docstring); it may be negative.

    Examples
    --------
    >>> import pandas as pd
    >>> from treelearn.encoding._table import encode
    >>> from treelearn.stats._counts import class_pair_counts
    >>> df = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 0, 1], "c": [0, 1, 1, 0]})
    >>> w = fcll_edge_weights(class_pair_counts(encode(df), class_index=2), 2)
    >>> # c = a xor b: I(a; b) = 0 and I(a; b | c) = log 2, all of it discriminative
    >>> bool(np.isclose(w[0, 1], (FCLL_ALPHA + FCLL_BETA - FCLL_BETA * FCLL_LAMBDA) * np.log(2)))
    True
    """
    cmi, mi = _features_only(per_class, d)
    w = (FCLL_ALPHA + FCLL_BETA) * cmi - FCLL_BETA * FCLL_LAMBDA * (cmi - mi)
    np.fill_diagonal(w, 0.0)
    return (w + w.T) / 2  # exact symmetry, whatever the summation order


def fcll_score(per_class: Sequence[PairCounts], parents: Sequence[int]) -> float:
    """The fCLL (nats, summed over the rows) of the network in which feature ``i`` has the
    class and the feature ``parents[i]`` (``-1``: the class only) as parents.

    The features are the first ``len(parents)`` columns of ``per_class``; the rows are
    assumed complete (the plug-in terms are those of every row). See the module
    docstring for the formula.
    """
    d = len(parents)
    n_c = np.array([float(pc.n_rows) for pc in per_class])
    n = float(n_c.sum())
    if n <= 0:
        return 0.0
    p_c = n_c / n
    h_class = -float(np.sum(p_c[p_c > 0] * np.log(p_c[p_c > 0])))
    h_given_class = sum(p * entropies(pc)[:d] for p, pc in zip(p_c, per_class))
    everything = PairCounts(
        sum_counts([pc.joint for pc in per_class]), per_class[0].cardinalities, n
    )
    h = entropies(everything)[:d]
    # naive Bayes: H(X_i | C) and I(C; X_i) = H(X_i) - H(X_i | C); the edges add w_ij
    base = (
        -(FCLL_ALPHA + FCLL_BETA) * (h_class + h_given_class.sum())
        - FCLL_BETA * FCLL_LAMBDA * (np.sum(h - h_given_class) - h_class)
        + FCLL_GAMMA
        - FCLL_BETA * FCLL_LAMBDA
    )
    w = fcll_edge_weights(per_class, d)
    edges = sum(w[i, p] for i, p in enumerate(parents) if p >= 0)
    return float(n * (base + edges))
