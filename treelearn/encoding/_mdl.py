"""Supervised discretization by the MDL principle (Fayyad & Irani 1993).

U. M. Fayyad and K. B. Irani, "Multi-interval discretization of continuous-valued
attributes for classification learning", IJCAI 1993, 1022-1027: the rows sorted by the
column, the cut point (a midpoint between two adjacent distinct values) that minimises
the class entropy of the two sides weighted by their sizes is taken if its information
gain exceeds the MDL price

``Gain(A, T; S) > log2(N - 1) / N + Delta(A, T; S) / N``,
``Delta = log2(3^k - 2) - (k Ent(S) - k1 Ent(S1) - k2 Ent(S2))``,

(``N`` the rows of ``S``, ``k`` the classes present in ``S``, ``k1``/``k2`` in each side,
entropies in bits), and each side is cut again the same way. This is what Weka's
supervised ``Discretize`` filter and ``NaiveBayes -D`` do (its ``FayyadAndIranisMDL``,
default encoding): ties between equally good cut points go to the smallest, rows with a
missing value or class are left out, and a column with no accepted cut is one bin.
"""

from __future__ import annotations

import numpy as np

__all__ = ["mdl_cut_points"]


def _entropy_bits(counts: np.ndarray) -> np.ndarray:
    """The class entropy in bits of each row of ``counts`` (rows of class weights)."""
    totals = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(counts > 0, counts / totals, 1.0)
        terms = np.where(counts > 0, -p * np.log2(p), 0.0)
    return np.clip(terms.sum(axis=-1), 0.0, None)  # non-negative by construction


def _best_cut(
    values: np.ndarray, onehot: np.ndarray
) -> tuple[int, float, np.ndarray, np.ndarray] | None:
    """The best boundary of one sorted segment: ``(i, weighted entropy, left counts, right
    counts)`` for the cut between rows ``i`` and ``i + 1``, or ``None`` without a boundary."""
    boundaries = np.flatnonzero(values[:-1] < values[1:])
    if not len(boundaries):
        return None
    cumulative = np.cumsum(onehot, axis=0)  # one pass: class weights up to each row
    total = cumulative[-1]
    left = cumulative[boundaries]
    right = total[None, :] - left
    right = np.clip(right, 0.0, None)  # a difference of sums: clip its round-off
    n_left, n_right = left.sum(axis=1), right.sum(axis=1)
    n = n_left + n_right
    weighted = (n_left * _entropy_bits(left) + n_right * _entropy_bits(right)) / n
    best = int(np.argmin(weighted))  # the first of equally good cuts (Weka's strict <)
    return int(boundaries[best]), float(weighted[best]), left[best], right[best]


def _accepted(total: np.ndarray, left: np.ndarray, right: np.ndarray, n_rows: float) -> bool:
    """Fayyad and Irani's MDL test of one cut (module docstring; ``N - 1`` cut points)."""
    prior = float(_entropy_bits(total))
    ent_left, ent_right = float(_entropy_bits(left)), float(_entropy_bits(right))
    n_left, n_right = float(left.sum()), float(right.sum())
    gain = prior - (n_left * ent_left + n_right * ent_right) / (n_left + n_right)
    if gain <= 0.0:
        return False
    k, k1, k2 = int((total > 0).sum()), int((left > 0).sum()), int((right > 0).sum())
    delta = np.log2(3.0**k - 2.0) - (k * prior - k1 * ent_left - k2 * ent_right)
    return bool(gain > (np.log2(n_rows - 1.0) + delta) / n_rows)


def mdl_cut_points(
    values: np.ndarray, classes: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """The cut points of one numeric column by Fayyad and Irani's MDL criterion.

    Parameters
    ----------
    values : array of float, shape (n,)
        The column (NaN: missing, left out).
    classes : array of int, shape (n,)
        Each row's class code, ``0 .. k - 1`` (``-1``: missing, left out).
    weights : array of float, shape (n,), optional
        Row weights (default: 1 each); the MDL price counts the rows (their weight).

    Returns
    -------
    numpy.ndarray
        The increasing cut points (midpoints of adjacent distinct values); empty when no
        cut pays for itself.

    Examples
    --------
    Two classes split at 3.5 by a clean boundary are cut there; noise is not cut:

    >>> mdl_cut_points(np.arange(1.0, 13.0), np.array([0] * 6 + [1] * 6)).tolist()
    [6.5]
    >>> mdl_cut_points(np.arange(1.0, 7.0), np.array([0, 1, 0, 1, 0, 1])).tolist()
    []
    """
    values = np.asarray(values, dtype=float)
    classes = np.asarray(classes)
    w = np.ones(len(values)) if weights is None else np.asarray(weights, dtype=float)
    keep = ~np.isnan(values) & (classes >= 0) & (w > 0)
    values, classes, w = values[keep], classes[keep].astype(np.intp), w[keep]
    if len(values) < 2:
        return np.empty(0)
    order = np.argsort(values, kind="stable")
    values, classes, w = values[order], classes[order], w[order]
    onehot = np.zeros((len(values), int(classes.max()) + 1))
    onehot[np.arange(len(values)), classes] = w
    cuts: list[float] = []
    segments = [(0, len(values))]  # [first, last + 1) of the sorted rows still to cut
    while segments:
        first, stop = segments.pop()
        if stop - first < 2:
            continue
        found = _best_cut(values[first:stop], onehot[first:stop])
        if found is None:
            continue
        i, _, left, right = found
        total = left + right
        n_rows = float(total.sum())
        if n_rows <= 1.0 or not _accepted(total, left, right, n_rows):
            continue
        cut = first + i
        cuts.append((values[cut] + values[cut + 1]) / 2.0)
        segments += [(first, cut + 1), (cut + 1, stop)]
    return np.array(sorted(cuts))
