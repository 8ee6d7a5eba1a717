"""Conditional probability tables for any DAG.

A CPT is an array indexed ``[parent_1 state, ..., parent_m state, own state]``,
normalised over the last axis. Estimators (``N(u, a)`` = rows with parents in
configuration ``u`` and the node in state ``a``; ``k`` = the node's states;
``q`` = the number of parent configurations):

* maximum likelihood (``prior="lidstone"``, ``alpha=0``): ``N(u, a) / N(u)``;
  a parent configuration never seen in the data gets a **uniform** row;
* Lidstone / Laplace (``alpha > 0``): ``(N(u, a) + alpha) / (N(u) + k alpha)``;
* BDeu (``prior="bdeu"``) with equivalent sample size ``s``: Lidstone with
  ``alpha = s / (q k)``;
* m-estimate (``prior="m-estimate"``, Mitchell 1997, ch. 6) with a uniform prior
  ``1 / k``: ``(N(u, a) + m / k) / (N(u) + m)``, i.e. Lidstone with ``alpha = m / k``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from .._base.errors import StructureError
from .._base.validation import check_params
from ._settings import CONSTRAINTS, NOTES, Prior

__all__ = ["CPT_SUM_TOLERANCE", "check_cpt", "estimate_cpt", "smoothed_cpt"]

CPT_SUM_TOLERANCE = 1e-5
"""How far from 1 a CPT row may sum. Estimated CPTs are exact to ~1e-15; tables typed by
hand or read from other tools are not: pgmpy's bundled ``alarm`` network is off by 1e-7,
and six printed decimals (``0.333333`` three times) by 1e-6."""


def check_cpt(variable: Hashable, cpt: Any, shape: Sequence[int] | None = None) -> np.ndarray:
    """``cpt`` as a new float array, checked to be a CPT of ``variable``; the one such check.

    Every row (last axis) must be non-negative, finite and sum to 1 within
    :data:`CPT_SUM_TOLERANCE`; with ``shape`` (one axis per parent, in order,
    then the variable's own states) the shape must be that. Raises
    :class:`~treelearn.StructureError` naming the variable and, for a
    sum, the row and what it sums to.

    Examples
    --------
    >>> check_cpt("lung", [[0.5, 0.5], [0.7, 0.2]])
    Traceback (most recent call last):
    ...
    treelearn.StructureError: variable 'lung': CPT row [1] sums to 0.9, not 1
    >>> check_cpt("smoke", [0.25, 0.75], shape=(2,)).tolist()
    [0.25, 0.75]
    """
    where = f"variable {variable!r}"
    try:
        table = np.array(cpt, dtype=float)  # a copy: the caller's array stays the caller's
    except (TypeError, ValueError):
        raise StructureError(f"{where}: the CPT is not a rectangular array of numbers") from None
    if shape is not None and table.shape != tuple(shape):
        raise StructureError(
            f"{where}: the CPT has shape {table.shape}, expected {tuple(shape)} "
            f"(one axis per parent, in the parents' order, then its own states)"
        )
    if table.ndim == 0:
        raise StructureError(f"{where}: the CPT must have an axis for the variable's states")
    if not np.isfinite(table).all() or (table < 0).any():
        raise StructureError(f"{where}: the CPT has negative or non-finite entries")
    sums = table.sum(axis=-1)
    bad = np.abs(sums - 1.0) > CPT_SUM_TOLERANCE
    if bad.any():
        if table.ndim == 1:
            raise StructureError(f"{where}: the CPT sums to {float(sums):.9g}, not 1")
        row = tuple(int(i) for i in np.argwhere(bad)[0])
        raise StructureError(f"{where}: CPT row {list(row)} sums to {float(sums[row]):.9g}, not 1")
    return table


def estimate_cpt(
    counts: np.ndarray,
    alpha: float = 0.0,
    prior: Prior = "lidstone",
    equivalent_sample_size: float = 1.0,
    m: float = 1.0,
) -> np.ndarray:
    """CPT from a family's counts ``counts[u_1, ..., u_m, a]`` (weighted counts too).

    Examples
    --------
    >>> import numpy as np
    >>> estimate_cpt(np.array([[3, 1], [0, 0]])).tolist()   # unseen parent state: uniform
    [[0.75, 0.25], [0.5, 0.5]]
    >>> estimate_cpt(np.array([[3, 1], [0, 0]]), alpha=1.0).tolist()
    [[0.6666666666666666, 0.3333333333333333], [0.5, 0.5]]
    >>> estimate_cpt(np.array([3, 1]), prior="m-estimate", m=2).tolist()   # (3 + 1) / 6, (1 + 1) / 6
    [0.6666666666666666, 0.3333333333333333]
    """
    check_params(
        {"alpha": alpha, "prior": prior, "equivalent_sample_size": equivalent_sample_size, "m": m},
        CONSTRAINTS,
        NOTES,
    )
    return smoothed_cpt(counts, alpha, prior, equivalent_sample_size, m)


def smoothed_cpt(
    counts: np.ndarray,
    alpha: float,
    prior: Prior,
    equivalent_sample_size: float,
    m: float,
) -> np.ndarray:
    """:func:`estimate_cpt`'s arithmetic, the options taken as checked: for a caller that
    checks them once for many families (``build_model``: a mixture's M-step builds every
    node of every component, and the option check was most of each node's cost).

    >>> smoothed_cpt(np.array([[3, 1], [0, 0]]), 1.0, "lidstone", 1.0, 1.0).tolist()
    [[0.6666666666666666, 0.3333333333333333], [0.5, 0.5]]
    """
    counts = np.asarray(counts, dtype=float)
    return smoothed_stack(counts[np.newaxis], alpha, prior, equivalent_sample_size, m)[0]


def smoothed_cpts(
    counts: Sequence[np.ndarray],
    alpha: float,
    prior: Prior,
    equivalent_sample_size: float,
    m: float,
) -> list[np.ndarray]:
    """:func:`smoothed_cpt` of many count arrays: those of one shape in one stacked
    computation (the same operations element by element, so the same doubles), each
    CPT returned as its own row of the stack, in order. For tens of thousands of
    small families (a sparse 20,000-term tree) the per-call cost was most of the time.

    >>> [c.tolist() for c in smoothed_cpts([np.array([3, 0]), np.array([[3, 1], [0, 0]])],
    ...                                    1.0, "lidstone", 1.0, 1.0)]
    [[0.8, 0.2], [[0.6666666666666666, 0.3333333333333333], [0.5, 0.5]]]
    """
    out: list[Any] = [None] * len(counts)
    by_shape: dict[tuple, list[int]] = {}
    for t, c in enumerate(counts):
        by_shape.setdefault(np.shape(c), []).append(t)
    for where in by_shape.values():
        stack = np.stack([np.asarray(counts[t], dtype=float) for t in where])
        cpt = smoothed_stack(stack, alpha, prior, equivalent_sample_size, m)
        for t, row in zip(where, cpt):
            out[t] = row
    return out


def cell_pseudocount(
    shape: Sequence[int],
    alpha: float,
    prior: Prior,
    equivalent_sample_size: float,
    m: float,
) -> float:
    """The Dirichlet pseudocount of each cell of a family's counts of ``shape`` (the
    parents' axes, then the node's ``k`` states): ``alpha`` (Lidstone), ``s / (q k)``
    (BDeu, ``q`` the parent configurations) or ``m / k`` (m-estimate).

    >>> cell_pseudocount((3, 2), 1.0, "bdeu", 6.0, 1.0)
    1.0
    """
    k = shape[-1]
    if prior == "bdeu":
        q = int(np.prod(shape[:-1], dtype=np.int64))
        return equivalent_sample_size / (q * k)
    if prior == "m-estimate":
        return m / k
    return alpha


def smoothed_stack(
    stack: np.ndarray,
    alpha: float,
    prior: Prior,
    equivalent_sample_size: float,
    m: float,
) -> np.ndarray:
    """:func:`smoothed_cpts` of counts already stacked, ``stack[t]`` one family's counts
    (float, all of one shape): the CPTs as one array of the same shape.

    >>> smoothed_stack(np.array([[3.0, 0.0], [1.0, 1.0]]), 1.0, "lidstone", 1.0, 1.0).tolist()
    [[0.8, 0.2], [0.5, 0.5]]
    """
    shape = stack.shape[1:]
    k = shape[-1]
    smoothed = stack + cell_pseudocount(shape, alpha, prior, equivalent_sample_size, m)
    totals = smoothed.sum(axis=-1, keepdims=True)
    # no division by zero to silence (the divisor is 1 where a total is 0), so no errstate:
    # entering one cost more than the arithmetic on a 2 x 2 family (20,000-term sparse trees)
    return np.where(totals > 0, smoothed / np.where(totals > 0, totals, 1.0), 1.0 / k)
