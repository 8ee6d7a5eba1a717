"""Sums over all spanning trees, in log space: the matrix-tree theorem without overflow.

For symmetric non-negative edge weights ``w`` on ``d`` vertices,

    Z(w) = sum over spanning trees T of prod_{uv in T} w_uv = det L^(r)(w),

the determinant of the Laplacian with the row and column of one vertex ``r``
removed (Kirchhoff). Bayesian tree weights span thousands of nats, so ``Z`` is
computed from ``log w`` by Gaussian elimination written on the *graph*: removing
vertex ``k`` (pivot ``p_k = sum_j w_kj`` over the vertices left, the kept vertex
``r`` included) leaves the Schur complement, which is again a Laplacian, with
weights ``w_ij + w_ik w_kj / p_k``; ``Z = prod_k p_k``. Every quantity is a sum
of positive terms (no subtraction, as in the GTH algorithm for Markov chains),
so each is computed to a few ulps *relative* accuracy in log space, however
far apart the weights are.

* :func:`log_spanning_tree_sum` — ``log Z`` of one or a batch of weight matrices;
* :func:`edge_marginals` — ``P(uv in T)`` under ``P(T) ∝ prod w``, the derivative
  ``d log Z / d log w_uv``, by reverse-mode differentiation of that elimination
  (absolute error ~1e-13: the adjoints are expected edge counts, of size ≤ d);
* :func:`sample_spanning_tree` — an exact draw from ``P(T) ∝ prod w`` (Wilson's
  algorithm with the loop-erased walk's exact step law, each step one
  positive-only Dirichlet solve: no walk that can get stuck).

A weight of zero (``log w = -inf``) is an absent edge; if the graph is
disconnected, ``log Z = -inf``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from .._base.logspace import logsumexp

__all__ = ["edge_marginals", "log_spanning_tree_sum", "matrix_batches", "sample_spanning_tree"]

#: elements of a batch of matrices eliminated at once (bounds the working memory)
BATCH_ELEMENTS = 2_000_000


def _step(W: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eliminate vertex ``k`` of the batch ``W`` (..., d, d) whose vertices ``< k`` are gone.

    Returns ``(log pivot, row a, new W[k+1:, k+1:])``."""
    a = W[..., k, k + 1 :]
    lp = logsumexp(a)
    safe = np.where(np.isfinite(lp), lp, np.inf)  # a zero pivot: no fill (and Z = 0)
    fill = a[..., :, None] + (a - safe[..., None])[..., None, :]
    return lp, a, np.logaddexp(W[..., k + 1 :, k + 1 :], fill)


def _checked(log_weights: np.ndarray) -> np.ndarray:
    W = np.array(log_weights, dtype=float)  # a copy: eliminated in place
    if W.ndim < 2 or W.shape[-1] != W.shape[-2]:
        raise ValueError(f"log weights must be square matrices, got shape {W.shape}")
    if np.isnan(W).any() or np.isposinf(W).any():
        raise ValueError("log weights must be finite or -inf (an absent edge)")
    d = W.shape[-1]
    # only the upper triangle is read (the matrix is symmetric); the diagonal never
    iu = np.triu_indices(d, k=1)
    W[..., iu[1], iu[0]] = W[..., iu[0], iu[1]]
    W[..., np.arange(d), np.arange(d)] = -np.inf
    return W


def matrix_batches(n: int, d: int) -> Iterator[slice]:
    """Slices of a batch of ``n`` matrices ``d x d``, each about :data:`BATCH_ELEMENTS`
    numbers: an elimination works on one slice at a time, its memory bounded.

    >>> [(s.start, s.stop) for s in matrix_batches(5, 1000)]   # 2 matrices a slice
    [(0, 2), (2, 4), (4, 6)]
    """
    chunk = max(1, BATCH_ELEMENTS // max(d * d, 1))
    for start in range(0, n, chunk):
        yield slice(start, start + chunk)


def log_spanning_tree_sum(log_weights: np.ndarray) -> float | np.ndarray:
    """``log`` of the sum over spanning trees of the product of edge weights.

    ``log_weights`` is one ``d x d`` matrix of log edge weights or a batch
    ``(..., d, d)`` of them; only the upper triangle is read, ``-inf`` is an
    absent edge. ``O(d^3)`` per matrix, vectorised over the batch.

    Examples
    --------
    >>> round(float(np.exp(log_spanning_tree_sum(np.zeros((4, 4))))), 9)   # Cayley: 4^2
    16.0
    >>> W = np.log(np.array([[1, 1, 2], [1, 1, 3], [2, 3, 1.]]))   # the diagonal is not read
    >>> round(float(np.exp(log_spanning_tree_sum(W))), 9)   # 1*2 + 1*3 + 2*3
    11.0
    """
    W = _checked(log_weights)
    batch, d = W.shape[:-2], W.shape[-1]
    flat = W.reshape((-1, d, d))
    out = np.zeros(len(flat))
    with np.errstate(invalid="ignore"):
        for part in matrix_batches(len(flat), d):
            block = flat[part]
            total = np.zeros(len(block))
            for k in range(d - 1):
                lp, _, rest = _step(block, k)
                block[:, k + 1 :, k + 1 :] = rest
                total += lp
            out[part] = total
    sums = out.reshape(batch)
    return float(sums) if sums.ndim == 0 else sums


def edge_marginals(log_weights: np.ndarray) -> tuple[np.ndarray, float]:
    """``(P, log Z)``: ``P[u, v]`` = probability that edge ``uv`` is in a tree drawn
    with probability ``prod w / Z``; ``P`` is symmetric with a zero diagonal.

    ``P[u, v] = d log Z / d log w_uv``, by reverse-mode differentiation of the
    elimination of :func:`log_spanning_tree_sum` (memory ``O(d^3)`` floats are
    avoided by recomputing segments between ``sqrt(d)`` checkpoints). Each row
    of ``P`` sums to the vertex's expected degree; all of ``P`` to ``d - 1``.

    Examples
    --------
    >>> P, log_z = edge_marginals(np.log(np.array([[1, 1, 2], [1, 1, 3], [2, 3, 1.]])))
    >>> np.round(P * 11, 9).tolist()   # edge ab is in 1*2 + 1*3 of the weight 11
    [[0.0, 5.0, 8.0], [5.0, 0.0, 9.0], [8.0, 9.0, 0.0]]
    """
    W = _checked(log_weights)
    if W.ndim != 2:
        raise ValueError("edge_marginals takes one matrix")
    d = W.shape[0]
    steps = d - 1
    span = max(1, int(np.ceil(np.sqrt(max(steps, 1)))))
    checkpoints: dict[int, np.ndarray] = {}
    log_z = 0.0
    with np.errstate(invalid="ignore"):
        for k in range(steps):
            if k % span == 0:
                checkpoints[k] = W[k:, k:].copy()
            lp, _, rest = _step(W, k)
            W[k + 1 :, k + 1 :] = rest
            log_z += float(lp)
        if not np.isfinite(log_z):
            raise ValueError("the graph of positive weights is not connected: no spanning tree")
        grad = np.zeros((d, d))
        for seg in sorted(checkpoints, reverse=True):
            # recompute the segment's matrices W_k[k:, k:] from its checkpoint
            saved = [checkpoints[seg]]
            for _ in range(seg, min(seg + span, steps) - 1):
                M = saved[-1]
                saved.append(_step(M, 0)[2])
            for k in range(min(seg + span, steps) - 1, seg - 1, -1):
                M = saved[k - seg]  # W_k[k:, k:]
                lp, a, new = _step(M, 0)
                t = a[:, None] + (a - lp)[None, :]
                with np.errstate(over="ignore"):
                    sigma = np.where(np.isneginf(new), 0.0, np.exp(M[1:, 1:] - new))
                    tau = np.where(np.isneginf(new), 0.0, np.exp(t - new))
                g_new = grad[k + 1 :, k + 1 :]
                g_t = g_new * tau
                grad[k + 1 :, k + 1 :] = g_new * sigma
                g_lp = 1.0 - g_t.sum()
                g_a = g_t.sum(axis=1) + g_t.sum(axis=0)
                grad[k, k + 1 :] += g_a + g_lp * np.exp(a - lp)
    P = np.triu(grad, k=1)
    return P + P.T, log_z


def _log_harmonic(
    W: np.ndarray, interior: np.ndarray, one: np.ndarray, zero: np.ndarray
) -> np.ndarray:
    """``log h`` on every vertex: ``h`` harmonic on ``interior`` for the walk with steps
    ∝ ``w``, ``h = 1`` on ``one``, ``0`` on ``zero`` (the chance to reach ``one`` first).

    The interior is eliminated as in :func:`log_spanning_tree_sum` with the two
    boundary sets merged into two terminals; back-substitution is then a
    positive combination, so ``h`` keeps relative accuracy."""
    d = W.shape[0]
    h = np.full(d, -np.inf)
    h[one] = 0.0
    m = len(interior)
    if m == 0:
        return h
    M = np.full((m + 2, m + 2), -np.inf)
    M[:m, :m] = W[np.ix_(interior, interior)]
    M[:m, m] = logsumexp(W[np.ix_(interior, one)]) if len(one) else -np.inf
    M[:m, m + 1] = logsumexp(W[np.ix_(interior, zero)]) if len(zero) else -np.inf
    M[m, :m] = M[:m, m]
    M[m + 1, :m] = M[:m, m + 1]
    M[np.arange(m), np.arange(m)] = -np.inf
    rows, pivots = [], []
    with np.errstate(invalid="ignore"):
        for k in range(m):
            lp, a, rest = _step(M, k)
            rows.append(a.copy())
            pivots.append(lp)
            M[k + 1 :, k + 1 :] = rest
        values = np.full(m + 2, -np.inf)
        values[m] = 0.0
        for k in range(m - 1, -1, -1):
            values[k] = logsumexp(rows[k] - pivots[k] + values[k + 1 :])
    h[interior] = values[:m]
    return h


def sample_spanning_tree(
    log_weights: np.ndarray, rng: np.random.Generator, order: Sequence[int] | None = None
) -> list[tuple[int, int]]:
    """One spanning tree drawn with probability ``prod w / Z``, as edges ``(i, j)``, ``i < j``.

    Wilson's algorithm: the tree grows from vertex ``order[0]`` by loop-erased
    random walks from the other vertices (in ``order``). Each walk is drawn
    directly by its exact step law — from ``x`` with path ``γ`` so far, the
    next vertex is ``y`` with probability ∝ ``w_xy h(y)``, ``h`` the chance that
    a walk from ``y`` reaches the tree before ``γ`` — so a walk never has to
    cross an edge of negligible weight by chance. ``O(d^4)`` per tree.
    """
    W = _checked(log_weights)
    d = W.shape[0]
    order = list(range(d)) if order is None else list(order)
    in_tree = np.zeros(d, dtype=bool)
    in_tree[order[0]] = True
    edges = []
    for start in order[1:]:
        if in_tree[start]:
            continue
        path = [start]
        on_path = np.zeros(d, dtype=bool)
        on_path[start] = True
        while True:
            x = path[-1]
            interior = np.flatnonzero(~in_tree & ~on_path)
            h = _log_harmonic(W, interior, np.flatnonzero(in_tree), np.flatnonzero(on_path))
            logits = W[x] + h
            logits[on_path] = -np.inf
            p = np.exp(logits - logsumexp(logits))
            y = int(rng.choice(d, p=p / p.sum()))
            edges.append((min(x, y), max(x, y)))
            if in_tree[y]:
                break
            path.append(y)
            on_path[y] = True
        in_tree[path] = True
    return sorted(edges)
