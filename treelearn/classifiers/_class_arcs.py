"""Class-arc averaging: the exact Bayesian average over the arcs ``C -> X_j`` of a network
classifier of fixed structure (Dash and Cooper, 2002, generalised from naive Bayes).

In the network each feature ``X_j`` has the class and its feature parents ``S_j`` as
parents. Averaged over the ``2^n`` networks in which each arc ``C -> X_j`` is in or out
(independently, with prior probability ``arc_prior``; ``S_j`` kept), the Dirichlet marginal
likelihood decomposes over the families, so the posterior over the subsets factorises
and the model-averaged joint is

``P(c, x | D) = P(c | D) prod_j [p_j P(x_j | c, s_j, D) + (1 - p_j) P(x_j | s_j, D)]``,

``p_j`` Bayes's rule between the family's two marginal likelihoods,
``log P(D_j | C, S_j)`` and ``log P(D_j | S_j)``, each

``sum_u [lgamma(k a) - lgamma(k a + N_u) + sum_x (lgamma(a + N_ux) - lgamma(a))]``

over the family's parent configurations ``u`` (``k`` the feature's states, ``a`` the
Dirichlet pseudocount of each cell, the CPT estimator's own: Lidstone ``alpha``; BDeu
``s / (q k)`` with the family's own ``q``; m-estimate ``m / k``). The mixture
``p_j P(x_j | c, s_j) + (1 - p_j) P(x_j | s_j)`` is itself a CPT of ``X_j`` given
``(C, S_j)``: the averaged model is an ordinary network with the same graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real

import numpy as np
from scipy.special import expit, gammaln

from .._base.validation import Interval, Options
from ..stats._parameters import cell_pseudocount, smoothed_stack
from ..stats._settings import Prior

__all__ = [
    "CLASS_ARCS",
    "averaged_cpts",
    "averaged_stack",
    "class_arc_posteriors",
    "log_marginal_likelihoods",
]

#: the options of every classifier that averages its class arcs
CLASS_ARCS = {
    "class_arcs": [Options("average", "all")],
    "arc_prior": [Interval(Real, 0, 1, closed="neither")],
}


def log_marginal_likelihoods(stack: np.ndarray, a: float) -> np.ndarray:
    """``(B,)``: the Dirichlet-multinomial log marginal likelihood of each family's counts
    ``stack[t]`` (parent axes, then the node's ``k`` states), pseudocount ``a`` per cell.

    >>> from scipy.special import gammaln
    >>> got = log_marginal_likelihoods(np.array([[[2.0, 1.0]]]), 1.0)   # P(a, a, b) = 1/12
    >>> bool(np.isclose(got[0], np.log(1 / 12)))
    True
    """
    stack = np.asarray(stack, dtype=float)
    k = stack.shape[-1]
    rows = stack.reshape(len(stack), -1, k)
    totals = rows.sum(axis=-1)
    per_row = gammaln(k * a) - gammaln(k * a + totals)
    return per_row.sum(axis=-1) + (gammaln(a + rows) - gammaln(a)).sum(axis=(-2, -1))


def class_arc_posteriors(
    stack: np.ndarray,
    class_axis: int,
    alpha: float,
    prior: Prior,
    equivalent_sample_size: float,
    m: float,
    arc_prior: float,
) -> np.ndarray:
    """``(B,)``: each family's ``p = P(C -> X | D)``, from its counts ``stack[t]`` (the
    parents' axes, the class at ``class_axis`` of them, then the node's states).

    >>> counts = np.array([[[10.0, 0.0], [0.0, 10.0]]])   # the class decides the feature
    >>> float(class_arc_posteriors(counts, 0, 1.0, "lidstone", 1.0, 1.0, 0.5)[0]) > 0.999
    True
    >>> even = np.array([[[5.0, 5.0], [5.0, 5.0]]])   # the same in both classes
    >>> float(class_arc_posteriors(even, 0, 1.0, "lidstone", 1.0, 1.0, 0.5)[0]) < 0.5
    True
    """
    stack = np.asarray(stack, dtype=float)
    shape = stack.shape[1:]
    free = stack.sum(axis=1 + class_axis)
    smoothing = (alpha, prior, equivalent_sample_size, m)
    with_arc = log_marginal_likelihoods(stack, cell_pseudocount(shape, *smoothing))
    without = log_marginal_likelihoods(free, cell_pseudocount(free.shape[1:], *smoothing))
    return np.asarray(expit(with_arc - without + np.log(arc_prior) - np.log1p(-arc_prior)))


def averaged_stack(
    stack: np.ndarray,
    class_axis: int,
    alpha: float,
    prior: Prior,
    equivalent_sample_size: float,
    m: float,
    arc_prior: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The averaged CPTs of families of one shape, ``stack[t]`` their counts (the class at
    ``class_axis`` of the parents' axes), and their ``p``: ``p P(x | c, s) + (1 - p) P(x | s)``,
    each term the CPT estimator's (:func:`~treelearn.stats._parameters.smoothed_stack`).

    >>> cpt, p = averaged_stack(np.array([[[3.0, 1.0], [1.0, 3.0]]]), 0, 1.0, "lidstone", 1.0,
    ...                         1.0, 0.5)
    >>> cpt[0].sum(axis=-1).round(12).tolist(), bool(0 < p[0] < 1)
    ([1.0, 1.0], True)
    """
    stack = np.asarray(stack, dtype=float)
    smoothing = (alpha, prior, equivalent_sample_size, m)
    given = smoothed_stack(stack, *smoothing)
    alone = smoothed_stack(stack.sum(axis=1 + class_axis), *smoothing)
    p = class_arc_posteriors(stack, class_axis, *smoothing, arc_prior)
    weight = p.reshape(-1, *([1] * (stack.ndim - 1)))
    return weight * given + (1.0 - weight) * np.expand_dims(alone, 1 + class_axis), p


def averaged_cpts(
    counts: Sequence[np.ndarray],
    class_axes: Sequence[int],
    alpha: float,
    prior: Prior,
    equivalent_sample_size: float,
    m: float,
    arc_prior: float,
) -> tuple[list[np.ndarray], np.ndarray]:
    """:func:`averaged_stack` of many families (``counts[t]`` with the class at
    ``class_axes[t]``): those of one shape and class axis in one stacked computation, as
    :func:`~treelearn.stats._parameters.smoothed_cpts` groups them; the CPTs in order and
    each family's ``p``."""
    out: list = [None] * len(counts)
    posterior = np.zeros(len(counts))
    groups: dict[tuple, list[int]] = {}
    for t, (c, axis) in enumerate(zip(counts, class_axes)):
        groups.setdefault((np.shape(c), axis), []).append(t)
    for (_, axis), where in groups.items():
        stack = np.stack([np.asarray(counts[t], dtype=float) for t in where])
        cpts, p = averaged_stack(stack, axis, alpha, prior, equivalent_sample_size, m, arc_prior)
        posterior[where] = p
        for t, cpt in zip(where, cpts):
            out[t] = cpt
    return out, posterior
