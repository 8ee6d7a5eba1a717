"""The E-step of a hidden tree on complete rows as batched products per edge.

A hidden tree (:mod:`~treelearn.learners._hidden_tree`) has a latent ``H_i`` above each
column ``X_i`` and the latents in a tree (or forest). With every column observed, each
row's evidence at ``H_i`` is one gather of ``P(x_i | H_i)``; the upward pass is one
``(rows, h) @ (h, h)`` product per edge, the downward pass another, and each family's
expected counts one product over the rows: ``table * (outside^T diag(w / z) inside)``
for an edge, ``posterior^T onehot(x_i)`` for an emission. The engine's
``family_counts_codes`` computes the same sums on the joint tree of latents and
columns (any evidence, any structure); this is that arithmetic without its generality,
equal to round-off (tested). Rows go in chunks so the messages stay near
:data:`MESSAGE_CELLS` entries (as the engine's family counts).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["MESSAGE_CELLS", "latent_tree_counts"]

#: message entries per chunk of rows (the engine's own chunk size for family counts)
MESSAGE_CELLS = 2**22


def _parents_first(parent: np.ndarray) -> list[int]:
    """The latents in an order where each comes after its parent."""
    children: dict[int, list[int]] = {}
    for i, p in enumerate(parent):
        children.setdefault(int(p), []).append(i)
    order: list[int] = []
    stack = list(reversed(children.get(-1, [])))
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(children.get(i, [])))
    return order


def latent_tree_counts(
    parent: np.ndarray,
    latent: Sequence[np.ndarray],
    emission: Sequence[np.ndarray],
    codes: np.ndarray,
    weights: np.ndarray,
) -> tuple[np.ndarray, list, list]:
    """``(log_evidence, latent_counts, emission_counts)`` of complete rows ``codes``
    (rows x columns, no ``-1``) with row weights ``weights``: each row's
    ``log P(x)``, and ``sum_r w_r P(family | row r)`` of every latent's CPT (``(h,)`` at a
    root, ``(h, h)`` below) and every emission ``(h, k_i)``. A row of probability zero
    counts for nothing (its log-evidence is ``-inf``).

    >>> import numpy as np
    >>> parent = np.array([-1, 0])
    >>> latent = [np.array([0.4, 0.6]), np.array([[0.9, 0.1], [0.2, 0.8]])]
    >>> emission = [np.array([[0.7, 0.3], [0.1, 0.9]])] * 2
    >>> log_ev, lat, emi = latent_tree_counts(parent, latent, emission, np.array([[0, 1]]), np.ones(1))
    >>> p = sum(latent[0][a] * emission[0][a, 0] * latent[1][a, b] * emission[1][b, 1]
    ...         for a in range(2) for b in range(2))
    >>> bool(np.isclose(log_ev[0], np.log(p))), round(float(lat[1].sum()), 12)
    (True, 1.0)
    """
    parent = np.asarray(parent)
    d = len(parent)
    n = codes.shape[0]
    h = int(latent[0].shape[-1]) if d else 1
    order = _parents_first(parent)
    root = np.empty(d, dtype=np.intp)
    for i in order:
        root[i] = i if parent[i] < 0 else root[parent[i]]
    roots = [i for i in order if parent[i] < 0]
    log_ev = np.empty(n)
    lat_counts = [np.zeros_like(t, dtype=float) for t in latent]
    emi_counts = [np.zeros_like(t, dtype=float) for t in emission]
    step = max(1, MESSAGE_CELLS // max(1, 3 * d * h))
    for start in range(0, n, step):
        rows = slice(start, min(n, start + step))
        log_ev[rows] = _chunk(
            parent,
            latent,
            emission,
            codes[rows],
            weights[rows],
            order,
            root,
            roots,
            lat_counts,
            emi_counts,
        )
    return log_ev, lat_counts, emi_counts


def _chunk(
    parent: np.ndarray,
    latent: Sequence[np.ndarray],
    emission: Sequence[np.ndarray],
    codes: np.ndarray,
    w: np.ndarray,
    order: list[int],
    root: np.ndarray,
    roots: list[int],
    lat_counts: list,
    emi_counts: list,
) -> np.ndarray:
    """One chunk of rows: adds its counts in place, returns its log-evidence."""
    n, d = codes.shape
    # inside[i]: P(x of i's subtree | H_i), rescaled per row (the scales kept in logs)
    inside = [emission[i][:, codes[:, i]].T.copy() for i in range(d)]
    log_scale = np.zeros(n)
    up: list = [None] * d
    for i in reversed(order):  # children first
        s = inside[i].max(axis=1)
        s[s == 0] = 1.0  # an impossible row stays 0 (its evidence below is 0)
        inside[i] /= s[:, None]
        log_scale += np.log(s)
        p = parent[i]
        if p >= 0:
            up[i] = inside[i] @ latent[i].T  # sum_b P(b | a) inside_i(b)
            inside[p] *= up[i]
    z = {r: inside[r] @ latent[r] for r in roots}
    with np.errstate(divide="ignore"):
        log_ev = log_scale + sum(np.log(v) for v in z.values())
    # w / z per tree; a row of probability zero counts for nothing
    scales = {}
    for r, v in z.items():
        scale = np.zeros(n)
        np.divide(w, v, out=scale, where=v > 0)
        scales[r] = scale
    outside: list = [None] * d  # P(evidence outside i's subtree, H_i), same scale
    for i in order:  # parents first
        p = parent[i]
        scale = scales[root[i]]
        if p < 0:
            outside[i] = np.broadcast_to(latent[i], (n, len(latent[i])))
            lat_counts[i] += (outside[i] * inside[i]).T @ scale
        else:
            # the parent's belief without i's message; where that message is 0 every term
            # of i's family is 0 too (a sum of non-negative terms), so 0 stands for it
            rest = np.zeros_like(inside[p])
            np.divide(inside[p], up[i], out=rest, where=up[i] > 0)
            rest *= outside[p]
            outside[i] = rest @ latent[i]
            rest *= scale[:, None]
            lat_counts[i] += latent[i] * (rest.T @ inside[i])
        post = outside[i] * inside[i]
        post *= scale[:, None]  # w P(H_i | row)
        onehot = np.eye(emission[i].shape[1])[codes[:, i]]
        emi_counts[i] += post.T @ onehot
    return log_ev
