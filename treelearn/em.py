"""EM for missing values: CPTs of a fixed tree, and structural EM for Chow-Liu trees.

Rows with missing cells are kept. EM alternates

* **E-step**: expected sufficient statistics under the current model, exactly:
  for each row, the posterior of its missing cells given its observed ones
  (:func:`expected_counts`, one vectorised upward-downward pass over the tree
  for all rows at once; identical rows are grouped first);
* **M-step**: the learner applied to those expected counts, as if they were
  counts of complete data: the CPTs of the fixed structure
  (:func:`fit_cpts_em`), or a new maximum spanning tree over the expected
  mutual information and its CPTs (:func:`chow_liu_em`, Friedman's structural
  EM, 1997/98).

With maximum likelihood (``alpha=0``) the observed-data log-likelihood never
decreases. Each model keeps its history in ``model.settings``:
``em_iterations`` and ``em_log_likelihood`` (one value per iteration, the
observed-data log-likelihood of the training rows under that iteration's model).
EM starts from the available-case fit (``missing="pairwise"``).

Only forests (every node at most one parent) are handled: that is what makes
the E-step exact and cheap.
"""

from __future__ import annotations

from collections.abc import Callable

import networkx as nx
import numpy as np

from .counts import CountedTable, PairCounts, offsets_of
from .data import Table
from .errors import StructureError, TreelearnError
from .model import TreeModel
from .settings import check_number

__all__ = ["chow_liu_em", "expected_counts", "fit_cpts_em", "forest_posteriors"]

#: default stop: the observed-data log-likelihood per row changes by less than this
DEFAULT_TOL = 1e-6
DEFAULT_MAX_ITER = 100


# ---------------------------------------------------------------------- the exact E-step
def _normalise(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows scaled to sum 1 (rows of zeros stay zero); returns them and the row sums."""
    axes = tuple(range(1, a.ndim))
    total = a.sum(axis=axes)
    safe = np.where(total > 0, total, 1.0)
    return a / safe.reshape((-1,) + (1,) * (a.ndim - 1)), total


def forest_posteriors(model: TreeModel, codes: np.ndarray) -> tuple[np.ndarray, dict, dict]:
    """Exact posteriors of every node and every (parent, child) pair, for every row.

    ``codes`` is ``n x d`` in ``model.variables`` order, ``-1`` = missing.
    Returns ``(log_evidence, node, family)``: ``log P(observed cells of row r)``;
    ``node[v]`` an ``n x k_v`` array of ``P(x_v | row r)``; ``family[v]`` an
    ``n x k_parent x k_v`` array of ``P(x_parent, x_v | row r)`` for every node
    with a parent. One upward and one downward sum-product pass over the forest,
    each a few array operations per node for all rows at once; messages are
    rescaled per row (their logs carried), so nothing underflows. A row of
    probability zero gets ``-inf`` and all-zero posteriors.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}), root="a")
    >>> log_ev, node, family = forest_posteriors(m, np.array([[-1, 1]]))   # a missing, b = 1
    >>> node["a"].round(3).tolist(), float(np.exp(log_ev[0]))   # P(a | b=1), P(b=1)
    ([[0.0, 1.0]], 0.25)
    """
    variables = model.variables
    parents = model.parent_map
    if any(len(p) > 1 for p in parents.values()):
        many = next(v for v, p in parents.items() if len(p) > 1)
        raise StructureError(
            f"node {many!r} has the parents {parents[many]}; exact EM here needs a tree or "
            f"forest (at most one parent per node): use missing='pairwise' or 'drop'"
        )
    n = codes.shape[0]
    column = {v: j for j, v in enumerate(variables)}
    parent = {v: (p[0] if p else None) for v, p in parents.items()}
    children: dict = {v: [] for v in variables}
    for v in variables:
        if parent[v] is not None:
            children[parent[v]].append(v)
    order = list(nx.topological_sort(model.graph))
    cpt = model.cpts

    def evidence(v):
        obs = codes[:, column[v]]
        ev = np.ones((n, cpt[v].shape[-1]))
        seen = np.flatnonzero(obs >= 0)
        ev[seen] = 0.0
        ev[seen, obs[seen]] = 1.0
        return ev

    lam = {v: evidence(v) for v in variables}
    up, message = {}, {}
    log_ev = np.zeros(n)
    with np.errstate(divide="ignore"):
        for v in reversed(order):  # upward: up[v] = lambda_v * messages of the children
            belief = lam[v]
            for c in children[v]:
                belief = belief * message[c]
            up[v] = belief
            if parent[v] is not None:
                msg, scale = _normalise(belief @ cpt[v].T)  # sum_x P(x | a) up(x), per parent a
                message[v] = msg
                log_ev += np.log(scale)
            else:
                log_ev += np.log(belief @ cpt[v])
    node, family, down = {}, {}, {}
    for v in order:  # downward: down[v] = P(x_v, observed cells outside v's subtree), scaled
        if parent[v] is None:
            down[v] = np.broadcast_to(cpt[v], (n, cpt[v].shape[-1]))
        node[v] = _normalise(down[v] * up[v])[0]
        kids = children[v]
        if not kids:
            continue
        base = down[v] * lam[v]
        # products of the other children's messages, by prefix and suffix products
        prefix = [np.ones_like(base)]
        for c in kids[:-1]:
            prefix.append(prefix[-1] * message[c])
        suffix = np.ones_like(base)
        for i in range(len(kids) - 1, -1, -1):
            c = kids[i]
            outside, _ = _normalise(base * prefix[i] * suffix)
            family[c] = _normalise(outside[:, :, None] * cpt[c][None] * up[c][:, None, :])[0]
            down[c] = _normalise(outside @ cpt[c])[0]
            suffix = suffix * message[c]
    return log_ev, node, family


def _grouped(codes: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Identical rows merged (their weights summed): each missingness pattern and
    observed values is one row of the E-step."""
    unique, inverse = np.unique(codes, axis=0, return_inverse=True)
    w = np.bincount(inverse.ravel(), weights=weights, minlength=len(unique))
    return unique, w


def expected_counts(
    model: TreeModel,
    codes: np.ndarray,
    weights: np.ndarray | None = None,
    *,
    all_pairs: bool = False,
) -> tuple[PairCounts, float]:
    """Expected counts of complete data under ``model``, given rows with missing cells.

    Returns a :class:`~treelearn.counts.PairCounts` (float) over ``model.variables``
    and the observed-data log-likelihood ``sum_r w_r log P(observed cells of r)``.
    Without ``all_pairs`` only the blocks of the model's families are filled
    (every marginal and every ``(parent, child)`` table: what CPTs need); with
    it, every pairwise table (what structural EM needs): for each variable
    ``i`` and state ``a``, the rows missing ``i`` are passed again with ``x_i = a``
    and ``P(x_i = a, x_j | row) = P(x_i = a | row) P(x_j | row, x_i = a)``.

    This is the one place EM asks for inference; :func:`forest_posteriors` does it.
    """
    codes, w = _grouped(np.asarray(codes), weights)
    cards = np.array([len(model.states[v]) for v in model.variables], dtype=np.int64)
    offsets = offsets_of(cards)
    log_ev, node, family = forest_posteriors(model, codes)
    possible = w > 0
    log_likelihood = float(np.sum(w[possible] * log_ev[possible]))
    K, d = int(offsets[-1]), len(cards)
    joint = np.zeros((K, K))
    Q = np.hstack([node[v] for v in model.variables])  # n x K posteriors
    if not all_pairs:
        for j, v in enumerate(model.variables):
            o = slice(offsets[j], offsets[j + 1])
            joint[o, o] = np.diag(w @ node[v])
            if v in family:
                i = model.variables.index(model.parents(v)[0])
                block = np.einsum("r,rab->ab", w, family[v])
                joint[offsets[i]:offsets[i + 1], o] = block
                joint[o, offsets[i]:offsets[i + 1]] = block.T
    else:
        for i in range(d):  # a loop over variables; every pass is over all rows at once
            rows_i = slice(offsets[i], offsets[i + 1])
            seen = codes[:, i] >= 0
            # rows that observe x_i: its posterior is an indicator, the base pass holds the rest
            joint[rows_i] += (Q[seen, rows_i] * w[seen, None]).T @ Q[seen]
            missing = np.flatnonzero(~seen)
            for a in range(cards[i]):
                p_a = node[model.variables[i]][missing, a]
                keep = missing[p_a > 0]
                if not len(keep):
                    continue
                clamped = codes[keep].copy()
                clamped[:, i] = a
                _, node_a, _ = forest_posteriors(model, clamped)
                Q_a = np.hstack([node_a[v] for v in model.variables])
                joint[offsets[i] + a] += (w[keep] * p_a[p_a > 0]) @ Q_a
        joint = (joint + joint.T) / 2  # equal in exact arithmetic; symmetric to the last bit
    return PairCounts(joint, cards, float(w.sum())), log_likelihood


# ---------------------------------------------------------------------- the EM loop
def _run(
    stats: CountedTable,
    learner: Callable[[CountedTable], TreeModel],
    all_pairs: bool,
    max_iter: int,
    tol: float,
    same: Callable[[TreeModel, TreeModel], bool],
) -> TreeModel:
    if stats.table is None:
        raise TreelearnError(
            "missing='em' needs the rows in memory (a DataFrame or a file read whole); "
            "files read in chunks, Dask and sparse matrices give counts only"
        )
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise TreelearnError(f"max_iter == {max_iter!r}, must be an integer >= 1")
    check_number(tol, "tol")
    table: Table = stats.table
    n = float(table.n_rows if table.weights is None else table.weights.sum())
    model = learner(stats)  # the available-case (pairwise) start
    history: list[float] = []
    previous = model
    if not (table.codes < 0).any():  # complete data: EM's first M-step is the answer
        return _finish(model, history, n, table)
    for _ in range(max_iter):
        expected, log_likelihood = expected_counts(model, table.codes, table.weights,
                                                   all_pairs=all_pairs)
        history.append(log_likelihood)
        if len(history) > 1 and abs(history[-1] - history[-2]) < tol * n and same(model, previous):
            break
        previous = model
        model = learner(CountedTable(table.columns, table.states, table.dtypes, pairs=expected))
    else:
        # the last M-step's model has not been scored: score it, it is the one returned
        history.append(expected_counts(model, table.codes, table.weights)[1])
    return _finish(model, history, n, table)


def _finish(model: TreeModel, history: list, n: float, table: Table) -> TreeModel:
    model.settings["missing"] = "em"
    model.settings["em_iterations"] = max(len(history) - 1, 0)
    model.settings["em_log_likelihood"] = [float(h) for h in history]
    model.n_rows = table.n_rows if table.weights is None else n
    # partial_fit would add complete-data counts to expected ones: not EM
    model.counts, model.learner = None, None
    return model


def fit_cpts_em(
    structure: nx.DiGraph,
    stats: CountedTable,
    build: Callable[[nx.DiGraph, CountedTable], TreeModel],
    *,
    max_iter: int = DEFAULT_MAX_ITER,
    tol: float = DEFAULT_TOL,
) -> TreeModel:
    """CPTs of a fixed forest ``structure`` by EM over the missing cells of ``stats.table``.

    ``build(structure, stats)`` fits CPTs from (expected) counts, e.g.
    :func:`treelearn.learn.build_model` with the settings; it is also the
    available-case start. Stops when the observed-data log-likelihood per row
    changes by less than ``tol``, or after ``max_iter`` E-steps.
    :func:`treelearn.fit_cpts` with ``missing="em"`` calls this.
    """
    return _run(stats, lambda s: build(structure, s), False, max_iter, tol, lambda a, b: True)


def chow_liu_em(
    stats: CountedTable,
    learn: Callable[[CountedTable], TreeModel],
    *,
    max_iter: int = DEFAULT_MAX_ITER,
    tol: float = DEFAULT_TOL,
) -> TreeModel:
    """Structural EM: alternate expected pairwise counts and the Chow-Liu tree learned from them.

    ``learn(stats)`` is :func:`treelearn.learn.chow_liu_from_counts` with the
    settings. Stops when the tree is unchanged and the observed-data
    log-likelihood per row changes by less than ``tol``, or after ``max_iter``
    E-steps. :func:`treelearn.chow_liu` with ``missing="em"`` calls this.
    """
    def same_tree(a: TreeModel, b: TreeModel) -> bool:
        return set(a.graph.edges) == set(b.graph.edges)

    return _run(stats, learn, True, max_iter, tol, same_tree)
