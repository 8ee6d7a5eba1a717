"""Exact inference: variable elimination for queries, and a row-vectorised
sum-product pass for the likelihood of rows with missing values.

Both work on a list of variables, their parents and CPTs (``[parents..., node]``
layout), so they serve Chow-Liu trees, forests, naive Bayes and TAN alike.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Hashable, Mapping, Sequence

import numpy as np

__all__ = ["Factor", "eliminate_log", "find_conditioner", "log_marginal_by_conditioner"]

#: A factor: its scope (variable names) and a table with one axis per variable, in scope order.
Factor = tuple[tuple, np.ndarray]


#: numpy's einsum takes at most 64 operands; larger products are taken in groups
_MAX_OPERANDS = 32


def _einsum(factors: Sequence[Factor], keep: Sequence[Hashable], labels: dict) -> np.ndarray:
    operands: list = []
    for scope, table in factors:
        operands += [table, [labels.setdefault(v, len(labels)) for v in scope]]
    return np.einsum(*operands, [labels[v] for v in keep], optimize=True)


def _product_sum(factors: Sequence[Factor], keep: Sequence[Hashable]) -> tuple[Factor, float]:
    """Multiply ``factors`` and sum out every variable not in ``keep``.

    Returns the factor divided by its largest entry, and the log of that divisor,
    so that long products (much evidence, many variables) do not underflow. More
    than ``_MAX_OPERANDS`` factors are multiplied in groups, each over the union
    of its factors' scopes (no larger than the elimination's own factor).
    """
    factors = list(factors)
    keep = [v for v in keep if any(v in scope for scope, _ in factors)]
    labels: dict = {}
    log_scale = 0.0
    while len(factors) > _MAX_OPERANDS:
        group = factors[:_MAX_OPERANDS]
        union = list(dict.fromkeys(v for scope, _ in group for v in scope))
        table, log_group = _rescale(_einsum(group, union, labels))
        log_scale += log_group
        factors = [(tuple(union), table)] + factors[_MAX_OPERANDS:]
    result, log_result = _rescale(_einsum(factors, keep, labels))
    return (tuple(keep), result), log_scale + log_result


def _rescale(table: np.ndarray) -> tuple[np.ndarray, float]:
    top = float(table.max()) if table.size else 0.0
    if not top > 0 or not np.isfinite(top):  # all zero: nothing to rescale
        return table, 0.0
    return table / top, float(np.log(top))


def eliminate_log(factors: list[Factor], query: Sequence[Hashable]) -> tuple[tuple, np.ndarray, float]:
    """Sum-product variable elimination: the unnormalised joint over ``query`` as
    ``(scope, table, log_scale)``, the joint being ``table * exp(log_scale)``.

    The elimination order is greedy (smallest resulting factor first), which on
    a tree eliminates leaves first and never builds a factor over more than a
    family. Each variable's factors and cost are kept up to date as factors are
    merged (only the merged variables' neighbours change), so a query on a tree
    of d variables takes O(d log d) bookkeeping rather than O(d^3). Every new
    factor is rescaled (its log scale carried apart), so nothing underflows.

    Examples
    --------
    >>> import numpy as np
    >>> p_a = (("a",), np.array([0.2, 0.8]))
    >>> p_b_given_a = (("a", "b"), np.array([[0.9, 0.1], [0.3, 0.7]]))
    >>> scope, table, log_scale = eliminate_log([p_a, p_b_given_a], ["b"])
    >>> scope, (table * np.exp(log_scale)).round(2).tolist()   # P(b)
    (('b',), [0.42, 0.58])
    """
    factors = [(tuple(s), np.asarray(t, dtype=float)) for s, t in factors]
    query = list(query)
    sizes: dict = {}
    for scope, table in factors:
        sizes.update(zip(scope, table.shape))
    live = dict(enumerate(factors))  # id -> factor; ids grow, so id order is list order
    holding: dict = {}  # variable -> ids of the live factors that mention it
    for i, (scope, _) in live.items():
        for v in scope:
            holding.setdefault(v, set()).add(i)
    hidden = set(holding) - set(query)

    def cost(v: Hashable) -> int:
        scope = {u for i in holding[v] for u in live[i][0]}
        return int(np.prod([sizes[u] for u in scope], dtype=np.int64))

    # a heap of (cost, name, tiebreak, variable); stale entries are skipped when popped
    tiebreak = itertools.count()  # unique, so variables themselves are never compared
    heap = [(cost(v), str(v), next(tiebreak), v) for v in sorted(hidden, key=str)]
    current = {v: c for c, _, _, v in heap}
    heapq.heapify(heap)
    next_id = len(live)
    log_scale = 0.0
    while hidden:
        c, _, _, var = heapq.heappop(heap)
        if var not in hidden or current[var] != c:
            continue
        ids = sorted(holding.pop(var))
        touching = [live.pop(i) for i in ids]
        scope = list(dict.fromkeys(u for s, _ in touching for u in s if u != var))
        for u in scope:
            holding[u].difference_update(ids)
        live[next_id], log_factor = _product_sum(touching, scope)
        log_scale += log_factor
        for u in scope:
            holding[u].add(next_id)
        next_id += 1
        hidden.discard(var)
        for u in scope:
            if u in hidden:
                current[u] = cost(u)
                heapq.heappush(heap, (current[u], str(u), next(tiebreak), u))
    (scope, table), log_factor = _product_sum(list(live.values()), query)
    return scope, table, log_scale + log_factor


def find_conditioner(parents: Mapping[Hashable, Sequence[Hashable]]) -> tuple[bool, Hashable | None]:
    """Can the row-vectorised pass handle this DAG, and around which node?

    It can when every node has at most one parent (a tree or forest), or when one
    node ``g`` is such that every node has at most one parent besides ``g`` (naive
    Bayes, TAN: ``g`` is the class). Returns ``(ok, g)``.

    Examples
    --------
    >>> find_conditioner({"a": [], "b": ["a"], "c": ["a"]})   # a tree
    (True, None)
    >>> find_conditioner({"y": [], "x1": ["y"], "x2": ["y", "x1"]})   # TAN around the class
    (True, 'y')
    >>> find_conditioner({"a": [], "b": [], "c": [], "d": ["a", "b", "c"]})
    (False, None)
    """
    if all(len(p) <= 1 for p in parents.values()):
        return True, None
    candidates = None
    for ps in parents.values():
        if len(ps) > 1:
            candidates = set(ps) if candidates is None else candidates & set(ps)
    for g in sorted(candidates or [], key=str):
        if not parents[g] and all(len([p for p in ps if p != g]) <= 1 for ps in parents.values()):
            return True, g
    return False, None


def log_marginal_by_conditioner(
    variables: Sequence[Hashable],
    parents: Mapping[Hashable, Sequence[Hashable]],
    cpts: Mapping[Hashable, np.ndarray],
    codes: np.ndarray,
    conditioner: Hashable | None,
    topological: Sequence[Hashable],
) -> np.ndarray:
    """``log P(observed part of row r, g)`` for every row and every state ``g`` of the conditioner.

    ``codes`` is ``n x d`` in the order of ``variables`` with ``-1`` for missing
    values; missing variables are summed out exactly. A row where the conditioner
    is observed gets ``-inf`` for the other states. Without a conditioner the
    result has one column. Messages are rescaled per row (their logs are carried
    separately), so deep trees and many variables do not underflow.

    Examples
    --------
    >>> import numpy as np
    >>> cpts = {"a": np.array([0.2, 0.8]), "b": np.array([[0.9, 0.1], [0.3, 0.7]])}
    >>> codes = np.array([[0, 1], [-1, 1]])   # rows (a=0, b=1) and (a missing, b=1)
    >>> out = log_marginal_by_conditioner(["a", "b"], {"a": [], "b": ["a"]}, cpts, codes, None, ["a", "b"])
    >>> np.exp(out).round(2).tolist()   # P(a=0, b=1) and P(b=1)
    [[0.02], [0.58]]
    """
    n = codes.shape[0]
    column = {v: j for j, v in enumerate(variables)}
    children: dict = {v: [] for v in variables}
    for v in variables:
        for p in parents[v]:
            if p != conditioner:
                children[p].append(v)
    k_g = cpts[conditioner].shape[-1] if conditioner is not None else 1

    def evidence(v: Hashable) -> np.ndarray:
        k = cpts[v].shape[-1]
        obs = codes[:, column[v]]
        ev = np.ones((n, k))
        seen = obs >= 0
        ev[seen] = 0.0
        ev[np.flatnonzero(seen), obs[seen]] = 1.0
        return ev

    # one scale per (row, conditioner state): the states' messages are separate
    # products, and one shared scale would underflow the improbable states to 0
    log_scale = np.zeros((n, k_g))
    messages: dict = {}  # v -> (n, k_g, k_parent) message to its tree parent
    for v in reversed(list(topological)):
        if v == conditioner:
            continue
        cpt = cpts[v]
        ps = list(parents[v])
        tree_parent = [p for p in ps if p != conditioner]
        # bring the CPT to shape (k_g, k_parent, k_v)
        if conditioner in ps:
            if ps[0] != conditioner:
                cpt = np.swapaxes(cpt, 0, 1)
            table = cpt if tree_parent else cpt[:, None, :]
        else:
            table = (cpt if tree_parent else cpt[None, :])[None]
        table = np.broadcast_to(table, (k_g, table.shape[1], table.shape[2]))
        belief = evidence(v)[:, None, :] * np.ones((1, k_g, 1))
        for w in children[v]:
            belief = belief * messages.pop(w)
        msg = np.einsum("gpx,rgx->rgp", table, belief)
        top = msg.max(axis=2)
        safe = np.where(top > 0, top, 1.0)
        msg = msg / safe[:, :, None]
        with np.errstate(divide="ignore"):
            log_scale += np.where(top > 0, np.log(safe), -np.inf)
        messages[v] = msg
    total = np.ones((n, k_g))
    for msg in messages.values():  # what remains are the roots' messages (k_parent = 1)
        total = total * msg[:, :, 0]
    if conditioner is not None:
        total = total * cpts[conditioner][None, :] * evidence(conditioner)
    with np.errstate(divide="ignore"):
        return np.log(total) + log_scale
