"""Sums over all spanning arborescences (directed trees), in log space.

For non-negative arc weights ``w_uv`` (arc ``u -> v``) on ``d`` vertices and root
weights ``ρ_r``,

    Z(w, ρ) = sum over arborescences A (one root r, one in-arc per other vertex)
              of ρ_r prod_{u -> v in A} w_uv.

Tutte's directed matrix-tree theorem gives ``A_r``, the sum over arborescences rooted at
``r``, as the determinant of the in-weight Laplacian (``L_vv = sum_u w_uv``,
``L_uv = -w_uv``) with row and column ``r`` removed; ``Z = sum_r ρ_r A_r``. Here it is
computed without a subtraction, as :mod:`~treelearn.structure._spanning_sums` does for
undirected trees: eliminating vertex ``k`` (pivot ``p_k = sum_u w_uk``, its in-weight
from the vertices left) leaves a Laplacian again, with arc weights
``w_uv + w_uk w_kv / p_k``, and ``A_{d-1} = prod_k p_k`` (the last vertex kept).
``A = (A_r)`` spans the kernel of ``L`` (``L adj(L) = 0``, and ``adj(L)``'s rows are
constant because ``L``'s columns sum to zero), so back-substitution through the same
eliminated rows gives every ``A_r / A_{d-1} = a_r``: ``a_{d-1} = 1``,
``a_k = sum_{v > k} w^(k)_kv a_v / p_k``, positive terms only (the GTH algorithm for the
stationary law of a Markov chain, here in logs). Each quantity keeps a few ulps of
*relative* accuracy however far apart the weights are.

* :func:`log_arborescence_sum` — ``log Z`` of one or a batch of weight matrices;
* :func:`arc_marginals` — ``P(u -> v in A)`` and ``P(r is the root)`` under
  ``P(A) ∝ ρ_r prod w``, each as a ratio of two such sums (the arborescences that hold
  the arc are those of the weights with ``v``'s other in-arcs removed).

A weight of zero (``log w = -inf``) is an absent arc. The elimination runs in vertex
order and needs each eliminated vertex reachable from the vertices after it (a positive
pivot): true of every order when every arc is present, and of any order whose last
vertex reaches every other; otherwise it refuses (``ValueError``) rather than answer 0.
"""

from __future__ import annotations

import numpy as np

from .._base.logspace import logsumexp
from ._spanning_sums import matrix_batches

__all__ = ["arc_marginals", "log_arborescence_sum"]


def _checked(log_arcs: np.ndarray, log_roots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    W = np.array(log_arcs, dtype=float)  # a copy: eliminated in place
    if W.ndim < 2 or W.shape[-1] != W.shape[-2]:
        raise ValueError(f"log arc weights must be square matrices, got shape {W.shape}")
    R = np.broadcast_to(np.asarray(log_roots, dtype=float), W.shape[:-1])
    for name, a in (("arc", W), ("root", R)):
        if np.isnan(a).any() or np.isposinf(a).any():
            raise ValueError(f"log {name} weights must be finite or -inf (absent)")
    d = W.shape[-1]
    W[..., np.arange(d), np.arange(d)] = -np.inf  # no self-loops (the diagonal is not read)
    return W, R


def log_arborescence_sum(log_arcs: np.ndarray, log_roots: np.ndarray) -> float | np.ndarray:
    """``log`` of the sum over spanning arborescences of ``ρ_root prod_{u -> v} w_uv``.

    ``log_arcs`` is one ``d x d`` matrix (``[u, v]``: the arc ``u -> v``; the diagonal
    is not read) or a batch ``(..., d, d)``; ``log_roots`` the ``(..., d)`` log root
    weights (broadcast). ``O(d^3)`` per matrix, vectorised over the batch.

    Examples
    --------
    >>> W = np.log(np.array([[1, 2], [3, 1.]]))   # arcs 0 -> 1 (2) and 1 -> 0 (3)
    >>> round(float(np.exp(log_arborescence_sum(W, np.log([5.0, 7.0])))), 9)   # 5*2 + 7*3
    31.0
    >>> d = 4   # every rooted labelled tree once: d^(d-1) (Cayley)
    >>> round(float(np.exp(log_arborescence_sum(np.zeros((d, d)), np.zeros(d)))), 9)
    64.0
    """
    W, R = _checked(log_arcs, log_roots)
    batch, d = W.shape[:-2], W.shape[-1]
    flat, roots = W.reshape((-1, d, d)), R.reshape((-1, d))
    out = np.zeros(len(flat))
    with np.errstate(invalid="ignore"):
        for part in matrix_batches(len(flat), d):
            block = flat[part]
            total = np.zeros(len(block))
            for k in range(d - 1):
                into = block[:, k + 1 :, k]  # arcs u -> k from the vertices left
                lp = logsumexp(into)
                if np.isneginf(lp).any():
                    raise ValueError(
                        f"vertex {k} is reached from no later vertex (a zero pivot): order "
                        f"the vertices so that the last one reaches every other"
                    )
                fill = into[:, :, None] + (block[:, k, k + 1 :] - lp[:, None])[:, None, :]
                block[:, k + 1 :, k + 1 :] = np.logaddexp(block[:, k + 1 :, k + 1 :], fill)
                total += lp
            # back-substitution: log a_k from the rows w^(k)_k. kept in the block
            log_a = np.zeros((len(block), d))
            for k in range(d - 2, -1, -1):
                pivot = logsumexp(block[:, k + 1 :, k])
                log_a[:, k] = logsumexp(block[:, k, k + 1 :] + log_a[:, k + 1 :]) - pivot
            out[part] = total + logsumexp(roots[part] + log_a)
    sums = out.reshape(batch)
    return float(sums) if sums.ndim == 0 else sums


def arc_marginals(log_arcs: np.ndarray, log_roots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(P, P_root)``: ``P[u, v]`` the probability that the arc ``u -> v`` is in an
    arborescence drawn with probability ``ρ_root prod w / Z``, ``P_root[r]`` that ``r``
    is its root. Each column of ``P`` plus ``P_root`` sums to 1 (every vertex has one
    parent or is the root).

    Each is ``Z`` of the weights with every other in-arc of the child removed, over
    ``Z``: ``d`` batches of ``d`` sums, ``O(d^5)`` in all (a fitted model's summary).
    Every arc and root weight must be positive (finite logs: the complete graph).

    Examples
    --------
    >>> W = np.log(np.array([[1, 2], [3, 1.]]))
    >>> P, P_root = arc_marginals(W, np.log([5.0, 7.0]))   # Z = 5*2 + 7*3 = 31
    >>> (np.round(P * 31, 9).tolist(), np.round(P_root * 31, 9).tolist())
    ([[0.0, 10.0], [21.0, 0.0]], [10.0, 21.0])
    """
    W, R = _checked(log_arcs, log_roots)
    if W.ndim != 2:
        raise ValueError("arc_marginals takes one matrix")
    d = W.shape[0]
    off = ~np.eye(d, dtype=bool)
    if not (np.isfinite(W[off]).all() and np.isfinite(R).all()):
        raise ValueError("arc_marginals takes positive weights on every arc and root")
    log_z = log_arborescence_sum(W, R)
    P = np.zeros((d, d))
    P_root = np.zeros(d)
    for v in range(d):
        last = np.r_[np.delete(np.arange(d), v), v]  # v, with its one in-arc, eliminated last
        Wv, Rv = W[np.ix_(last, last)], R[last]
        # d + 1 choices of v's parent: each feature (itself: none, weight 0) and the root
        arcs = np.broadcast_to(Wv, (d + 1, d, d)).copy()
        roots = np.broadcast_to(Rv, (d + 1, d)).copy()
        arcs[:, :, -1] = -np.inf
        roots[:, -1] = -np.inf
        arcs[np.arange(d), np.arange(d), -1] = Wv[:, -1]
        roots[d, -1] = Rv[-1]
        with np.errstate(invalid="ignore"):
            kept = np.exp(log_arborescence_sum(arcs, roots) - log_z)
        P[last, v] = kept[:d]
        P_root[v] = kept[d]
    P[np.arange(d), np.arange(d)] = 0.0
    return P, P_root
