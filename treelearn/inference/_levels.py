"""Marginals and MAP on a forest of one-parent CPTs, one depth level of the forest at a time.

:class:`TreeEngine` passes one message per factor, each a few numpy calls on
``(rows, states)`` arrays: on a tree of a thousand variables the calls, not the
arithmetic, are the cost. Here the variables of one depth of the forest are one
batch: every state count is padded to the largest, ``K``, every CPT becomes a
``(K, K)`` slab of one ``(d, K, K)`` array (zeros in the padding), and a whole
level's messages are one ``matmul``; siblings' messages meet their parent by one
``multiply.reduceat`` (children sorted by parent). A tree of depth ``D`` costs
``O(D)`` numpy calls whatever its size.

The message into a child on the way down is its parent's belief divided by the
child's own upward message (no prefix and suffix products over siblings); a zero
in an upward message would make that ``0 / 0``, so then :meth:`LevelPlan.marginals`
returns ``None`` and the caller takes the per-factor path (which also handles
evidence of probability zero). MAP is max-product in logs: no rescaling, one
``max`` and one ``argmax`` per level, and one gather per level on the way back.

>>> import numpy as np
>>> plan = LevelPlan([2, 2], [-1, 0], [np.array([0.2, 0.8]), np.array([[0.9, 0.1], [0.3, 0.7]])])
>>> [m.round(4).tolist() for m in plan.marginals(np.array([[-1, 1]]))]   # P(a | b = 1)
[[[0.0345, 0.9655]], [[0.0, 1.0]]]
>>> codes, log_p = plan.map(np.array([[-1, -1]]))
>>> codes.tolist(), round(float(np.exp(log_p[0])), 4)   # argmax of 0.2 * 0.9, 0.8 * 0.7, ...
([[1, 1]], 0.56)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["LevelPlan"]

_BLOCK = 1 << 22  # elements of the largest (level, rows, K, K) array MAP builds at once


class LevelPlan:
    """A forest of one-parent CPTs compiled into depth levels (see the module docstring).

    Parameters
    ----------
    card : state count of each variable.
    parents : each variable's parent (its index), ``-1`` for a root.
    cpts : each variable's CPT: ``(k,)`` for a root, ``(k_parent, k)`` otherwise.
    """

    def __init__(
        self, card: Sequence[int], parents: Sequence[int], cpts: Sequence[np.ndarray]
    ) -> None:
        d = len(card)
        self.card = np.asarray(card, dtype=np.intp)
        self.k = k = int(self.card.max()) if d else 1
        self.valid = np.arange(k)[None, :] < self.card[:, None]  # (d, K) real states
        parent = np.asarray(parents, dtype=np.intp)
        self.roots = np.flatnonzero(parent < 0)
        self.prior = np.zeros((d, k))
        table = np.zeros((d, k, k))  # [child, parent state, child state]
        for i in range(d):
            c = np.asarray(cpts[i], dtype=float)
            if parent[i] < 0:
                self.prior[i, : c.shape[0]] = c
            else:
                table[i, : c.shape[0], : c.shape[1]] = c
        self.table = table
        self.table_t = np.ascontiguousarray(table.transpose(0, 2, 1))
        with np.errstate(divide="ignore"):
            self.log_table = np.log(table)
            self.log_prior = np.log(self.prior)
        # 1 at each child's parent's padding states: added to its upward message (0 there),
        # so that a zero left in a message is a real one and the way down divides by 1
        self.pad = np.zeros((d, 1, k))
        has = parent >= 0
        self.pad[has, 0] = ~self.valid[parent[has]]
        # depth of each variable, then the levels below the roots, children sorted by parent
        depth = np.full(d, -1, dtype=np.intp)
        depth[self.roots] = 0
        children: list[list] = [[] for _ in range(d)]
        for i in range(d):
            if parent[i] >= 0:
                children[parent[i]].append(i)
        frontier = list(self.roots)
        self.levels: list[tuple] = []  # (children, their parents, reduceat starts, parents once)
        self._slabs: list[tuple] = []  # per level: (table_t, table, pad, log_table) of its children
        t = 0
        while frontier:
            t += 1
            nodes = [c for p in frontier for c in children[p]]
            if not nodes:
                break
            nodes_a = np.asarray(nodes, dtype=np.intp)
            par = parent[nodes_a]
            starts = np.flatnonzero(np.r_[True, par[1:] != par[:-1]])
            self.levels.append((nodes_a, par, starts, par[starts]))
            # the level's slabs, gathered once: (m, K, K) each, log ones with a row axis
            self._slabs.append(
                (
                    self.table_t[nodes_a],
                    table[nodes_a],
                    self.pad[nodes_a],
                    self.log_table[nodes_a][:, None],
                )
            )
            depth[nodes_a] = t
            frontier = nodes
        self.flat = np.flatnonzero(self.valid.ravel())  # real states in (d * K) order

    # ------------------------------------------------------------------ evidence
    def _evidence(self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None) -> np.ndarray:
        """``(d, n, K)``: 1 for each state a row allows (all real states where the code is
        -1, the observed one otherwise), times the likelihoods ``soft`` (per variable, one
        vector of its states' weights, or one row of them per row: ``(n, k)``)."""
        n = codes.shape[0]
        lam = np.repeat(self.valid[:, None, :].astype(float), n, axis=1)
        obs = codes.T >= 0  # (d, n)
        if obs.any():
            var, row = np.nonzero(obs)
            lam[var, row] = 0.0
            lam[var, row, codes[row, var]] = 1.0
        for j, likelihood in (soft or {}).items():
            lam[j, :, : likelihood.shape[-1]] *= likelihood
        return lam

    # ------------------------------------------------------------------ sum-product
    def marginals(
        self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None
    ) -> list | None:
        """Every variable's posterior given each row, ``[(n, k_v) per variable]`` (views of
        one array); ``None`` where a message has a zero (see the module docstring)."""
        out = self.marginals_padded(codes, soft)
        if out is None:
            return None
        return [out[i, :, :c] for i, c in enumerate(self.card.tolist())]

    def marginals_padded(
        self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None
    ) -> np.ndarray | None:
        """The posteriors as one ``(d, n, K)`` array (zeros in the padding), or ``None``."""
        codes = np.asarray(codes, dtype=np.intp)
        lam = self._evidence(codes, soft)
        msgs = []
        for (nodes, _par, starts, once), (table_t, _t, pad, _l) in zip(
            reversed(self.levels), reversed(self._slabs)
        ):
            msg = np.matmul(lam[nodes], table_t)  # (m, n, K) toward the parents
            top = msg.max(axis=2, keepdims=True)
            if not top.all():
                return None
            msg /= top
            msg += pad
            if not msg.all():
                return None  # a zero: the way down would divide by it
            msgs.append(msg)
            lam[once] *= np.multiply.reduceat(msg, starts, axis=0)
        belief = np.empty_like(lam)
        belief[self.roots] = self.prior[self.roots][:, None, :] * lam[self.roots]
        for (nodes, par, _starts, _once), msg, (_tt, table, _p, _l) in zip(
            self.levels, reversed(msgs), self._slabs
        ):
            outside = belief[par] / msg  # the parent's belief without this child's message
            pi = np.matmul(outside, table)
            belief[nodes] = pi * lam[nodes]
            top = belief[nodes].max(axis=2, keepdims=True)
            if not top.all():
                return None
            belief[nodes] /= top  # bounded along long chains
        z = belief.sum(axis=2, keepdims=True)
        if not z.all():
            return None
        return belief / z

    def marginals_matrix(
        self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None
    ) -> np.ndarray | None:
        """The posteriors side by side, ``(n, sum k_v)`` (variables in order, states within),
        or ``None``."""
        out = self.marginals_padded(codes, soft)
        if out is None:
            return None
        n = out.shape[1]
        return out.transpose(1, 0, 2).reshape(n, -1)[:, self.flat]

    # ------------------------------------------------------------------ max-product
    def map(self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None) -> tuple:
        """The most probable completion of each row and its log-probability, as
        :meth:`TreeEngine.map_codes` (ties go to the first state)."""
        codes = np.asarray(codes, dtype=np.intp)
        n = codes.shape[0]
        widest = max((len(lv[0]) for lv in self.levels), default=1)
        step = max(1, _BLOCK // max(widest * self.k * self.k, 1))
        if n > step:
            parts = [
                self.map(codes[s : s + step], _rows_of(soft, s, step)) for s in range(0, n, step)
            ]
            return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
        with np.errstate(divide="ignore"):
            lam = np.log(self._evidence(codes, soft))
        backs = []
        for (nodes, _par, starts, once), (_tt, _t, _p, log_table) in zip(
            reversed(self.levels), reversed(self._slabs)
        ):
            # [child, row, parent state, child state]: child's value plus log P(child | parent)
            s = lam[nodes][:, :, None, :] + log_table
            backs.append(s.argmax(axis=3))
            lam[once] += np.add.reduceat(s.max(axis=3), starts, axis=0)
        out = np.zeros((n, len(self.card)), dtype=np.int64)
        top = lam[self.roots] + self.log_prior[self.roots][:, None, :]  # (roots, n, K)
        out[:, self.roots] = top.argmax(axis=2).T
        log_p = top.max(axis=2).sum(axis=0)
        rows = np.arange(n)[None, :]
        for (nodes, par, _starts, _once), arg in zip(self.levels, reversed(backs)):
            # each child's best state given its parent's: arg[child, row, parent's state]
            out[:, nodes] = arg[np.arange(len(nodes))[:, None], rows, out[:, par].T].T
        return out, log_p


def _rows_of(
    soft: Mapping[int, np.ndarray] | None, start: int, step: int
) -> Mapping[int, np.ndarray] | None:
    """The likelihoods of rows ``start .. start + step``: per-row ones (2-D) sliced, one
    vector for every row kept."""
    if not soft:
        return soft
    return {j: (w[start : start + step] if np.ndim(w) == 2 else w) for j, w in soft.items()}
