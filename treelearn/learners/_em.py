"""EM for missing values: CPTs of a fixed tree, and structural EM for Chow-Liu trees.

Rows with missing cells are kept. EM alternates

* **E-step**: expected sufficient statistics under the current model, exactly:
  for each row, the posterior of its missing cells given its observed ones
  (:func:`expected_counts`: one pass of the tree inference engine,
  :meth:`~treelearn.inference._engine.TreeEngine.family_posteriors_codes`, for all rows
  at once; identical rows are grouped first);
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

The CPTs of a fixed structure (:func:`fit_cpts_em`) may be those of any DAG: the
E-step is then :meth:`~treelearn.inference._engine.TreeEngine.family_counts_codes`
(message passing on a forest, exact variable elimination over each row's missing
cells on any other DAG), the M-step the CPTs of those expected family counts. A
variable no row observes (a latent class) would keep the available-case start's
symmetry (its children's CPTs equal for every latent state: a fixpoint EM cannot
leave), so such a fit starts from a seeded random perturbation instead, ``n_init``
times, and keeps the run of highest likelihood. Structural EM (:func:`chow_liu_em`)
learns trees, whose every pairwise table the forest E-step gives exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Integral, Real

import networkx as nx
import numpy as np

from .._base.errors import StructureError, TreelearnError
from .._base.validation import RANDOM_STATE, InstanceOf, Interval, Options, check_params
from ..encoding._table import Table, distinct_rows
from ..models._tree import TreeModel
from ..stats._counts import CountedTable, PairCounts, drop_round_off, offsets_of

__all__ = [
    "ExpectedFamilies",
    "chow_liu_em",
    "expected_counts",
    "fit_cpts_em",
    "forest_posteriors",
    "random_start",
]

#: default stop: the observed-data log-likelihood per row changes by less than this
DEFAULT_TOL = 1e-6
DEFAULT_MAX_ITER = 100
_CONSTRAINTS: dict[str, Sequence[Interval | Options | InstanceOf | None]] = {
    "max_iter": [Interval(Integral, 1, None)],
    "tol": [Interval(Real, 0, None)],
    "n_init": [Interval(Integral, 1, None)],
    "random_state": RANDOM_STATE,
}
#: a random start multiplies each available-case count by a factor drawn in this range
_PERTURBATION = (0.5, 1.5)


# ---------------------------------------------------------------------- the exact E-step
def _check_forest(model: TreeModel) -> None:
    """EM's counts are those of a forest's families (at most one parent per node)."""
    parents = model.parent_map
    if any(len(p) > 1 for p in parents.values()):
        many = next(v for v, p in parents.items() if len(p) > 1)
        raise StructureError(
            f"node {many!r} has the parents {parents[many]}; exact EM here needs a tree or "
            f"forest (at most one parent per node): use missing='pairwise' or 'drop'"
        )


def forest_posteriors(model: TreeModel, codes: np.ndarray) -> tuple[np.ndarray, dict, dict]:
    """Exact posteriors of every node and every (parent, child) pair, for every row.

    ``codes`` is ``n x d`` in ``model.variables`` order, ``-1`` = missing.
    Returns ``(log_evidence, node, family)``: ``log P(observed cells of row r)``;
    ``node[v]`` an ``n x k_v`` array of ``P(x_v | row r)``; ``family[v]`` an
    ``n x k_parent x k_v`` array of ``P(x_parent, x_v | row r)`` for every node
    with a parent. The tree inference engine's
    :meth:`~treelearn.inference._engine.TreeEngine.family_posteriors_codes` computes them
    (one collect and one distribute for all rows at once, messages rescaled per row).
    A row of probability zero gets ``-inf`` and all-zero posteriors.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}), root="a", alpha=0)
    >>> log_ev, node, family = forest_posteriors(m, np.array([[-1, 1]]))   # a missing, b = 1
    >>> node["a"].round(3).tolist(), float(np.exp(log_ev[0]))   # P(a | b=1), P(b=1)
    ([[0.0, 1.0]], 0.25)
    """
    _check_forest(model)
    log_ev, families = model.engine().family_posteriors_codes(codes)
    node, family = {}, {}
    for v, table in zip(model.variables, families):
        if table.ndim == 3:
            family[v] = table
            node[v] = np.einsum("rab->rb", table)  # einsum: faster than sum over a middle axis
        else:
            node[v] = table
    return log_ev, node, family


def _all_pairs(
    model: TreeModel,
    codes: np.ndarray,
    w: np.ndarray,
    node: dict,
    family: dict,
    offsets: np.ndarray,
) -> np.ndarray:
    """Expected counts of every pair of variables, ``K x K``, exactly.

    Given a row, its missing cells are still distributed as a tree on the model's
    edges (the posterior of a tree-shaped model is one), with the conditionals
    ``P(x_c | x_p, row) = P(x_p, x_c | row) / P(x_p | row)`` along each edge, either
    way (computed only in the rows that need them); an observed cell separates the tree. So ``P(x_u, x_y | row)`` is the product
    ``P(x_u | row) P(x_y | row)`` of the node posteriors (one ``K x K`` product for all
    rows and pairs) unless ``u``, ``y`` and every variable between them are missing in
    the row; for those rows the joint is ``diag P(x_u | row)`` times the conditionals
    along the path, and its difference from the product is added. The walk from each
    ``u`` keeps only the rows still missing every variable so far, so it stops soon:
    with a fraction ``h`` of cells hidden, a path of ``l`` edges keeps about ``h^l`` of
    the rows.
    """
    variables = model.variables
    index = {v: i for i, v in enumerate(variables)}
    missing = codes < 0
    neighbours: list[list] = [[] for _ in variables]
    # (x, y) -> P(x_y | x_x, row) as (n, k_x, k_y) for neighbours x, y: filled only in the
    # rows missing both (the only rows a walk crosses the edge in), zero elsewhere
    step = {}
    for v, table in family.items():
        c, p = index[v], index[model.parents(v)[0]]
        neighbours[p].append(c)
        neighbours[c].append(p)
        both = np.flatnonzero(missing[:, p] & missing[:, c])
        sub = table[both]
        for x, y, joint_xy in ((p, c, sub), (c, p, np.swapaxes(sub, 1, 2))):
            q_x = np.einsum("rab->ra", joint_xy)[:, :, None]  # P(x_x | row)
            full = np.zeros((len(codes),) + joint_xy.shape[1:])
            full[both] = np.divide(joint_xy, q_x, out=np.zeros_like(joint_xy), where=q_x > 0)
            step[x, y] = full
    Q = np.hstack([node[v] for v in variables])  # n x K posteriors
    joint = (Q * w[:, None]).T @ Q  # every pair as if independent given the row
    scale = joint.copy()  # what the corrections below subtract from: their round-off bound
    block = [slice(offsets[i], offsets[i + 1]) for i in range(len(variables))]
    for u in range(len(variables)):  # a loop over variables; each step is over rows at once
        rows = np.flatnonzero(missing[:, u])
        if not len(rows):
            continue
        q_u = Q[rows, block[u]]
        wq_u = q_u * w[rows, None]
        # u with itself: a diagonal, not a product
        joint[block[u], block[u]] += np.diag(wq_u.sum(axis=0)) - wq_u.T @ q_u
        # (variable, the rows missing it and every variable back to u, P(x_u, x_var | row))
        stack = [(u, -1, rows, q_u[:, :, None] * np.eye(q_u.shape[1]))]
        while stack:
            x, before, rows_x, through = stack.pop()
            for y in neighbours[x]:
                if y == before:
                    continue
                keep = missing[rows_x, y]
                if not keep.any():
                    continue
                rows_y = rows_x[keep]
                at_y = through[keep] @ step[x, y][rows_y]  # P(x_u, x_y | row)
                w_y = w[rows_y]
                joint[block[u], block[y]] += (
                    np.tensordot(w_y, at_y, axes=1)
                    - (Q[rows_y, block[u]] * w_y[:, None]).T @ Q[rows_y, block[y]]
                )
                stack.append((y, x, rows_y, at_y))
    # a correction cancels the product where two missing cells cannot co-occur: what is
    # left there is round-off of either sign, which must be an exact 0 on every machine
    joint = drop_round_off((joint + joint.T) / 2, scale, 4)  # symmetric to the last bit
    for j, v in enumerate(variables):  # a variable's own block is diagonal by construction
        joint[block[j], block[j]] = np.diag(w @ node[v])
    return joint


def _grouped(codes: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Identical rows merged (their weights summed): each missingness pattern and
    observed values is one row of the E-step."""
    first, inverse = distinct_rows(codes)
    unique = codes[first]
    w = np.bincount(inverse, weights=weights, minlength=len(unique))
    return unique, w


def expected_counts(
    model: TreeModel,
    codes: np.ndarray,
    weights: np.ndarray | None = None,
    *,
    all_pairs: bool = False,
) -> tuple[PairCounts, float]:
    """Expected counts of complete data under ``model``, given rows with missing cells.

    Returns a :class:`~treelearn.stats._counts.PairCounts` (float) over ``model.variables``
    and the observed-data log-likelihood ``sum_r w_r log P(observed cells of r)``.
    Without ``all_pairs`` only the blocks of the model's families are filled
    (every marginal and every ``(parent, child)`` table: what CPTs need); with
    it, every pairwise table (what structural EM needs), exact: within a tree, the
    joint of a missing variable and any other is carried along the tree path by the
    per-row edge conditionals of the one pass; no further inference pass.

    This is the one place EM asks for inference; :func:`forest_posteriors` (the tree
    inference engine) does it.
    """
    codes, w = _grouped(np.asarray(codes), weights)
    cards = np.array([len(model.states[v]) for v in model.variables], dtype=np.int64)
    offsets = offsets_of(cards)
    log_ev, node, family = forest_posteriors(model, codes)
    possible = w > 0
    log_likelihood = float(np.sum(w[possible] * log_ev[possible]))
    if all_pairs:
        joint = _all_pairs(model, codes, w, node, family, offsets)
    else:
        K = int(offsets[-1])
        joint = np.zeros((K, K))
        for j, v in enumerate(model.variables):
            o = slice(offsets[j], offsets[j + 1])
            joint[o, o] = np.diag(w @ node[v])
            if v in family:
                i = model.variables.index(model.parents(v)[0])
                block = np.einsum("r,rab->ab", w, family[v])
                joint[offsets[i] : offsets[i + 1], o] = block
                joint[o, offsets[i] : offsets[i + 1]] = block.T
    return PairCounts(joint, cards, float(w.sum())), log_likelihood


# ---------------------------------------------------------------------- the EM loop
def _rows_of(stats: CountedTable) -> Table:
    """The rows EM completes: ``stats.table``, or the error of statistics without rows."""
    if stats.table is None:
        raise TreelearnError(
            "missing='em' needs the rows in memory (a DataFrame or a file read whole); "
            "files read in chunks, Dask and sparse matrices give counts only"
        )
    return stats.table


def _run(
    stats: CountedTable,
    learner: Callable[[CountedTable], TreeModel],
    all_pairs: bool,
    max_iter: int,
    tol: float,
    same: Callable[[TreeModel, TreeModel], bool],
) -> TreeModel:
    table = _rows_of(stats)
    check_params({"max_iter": max_iter, "tol": tol}, _CONSTRAINTS)
    n = float(table.n_rows if table.weights is None else table.weights.sum())
    model = learner(stats)  # the available-case (pairwise) start
    history: list[float] = []
    previous = model
    if not (table.codes < 0).any():  # complete data: EM's first M-step is the answer
        return _finish(model, history, n, table)
    for _ in range(max_iter):
        expected, log_likelihood = expected_counts(
            model, table.codes, table.weights, all_pairs=all_pairs
        )
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
    build: Callable[[nx.DiGraph, object], TreeModel],
    *,
    max_iter: int = DEFAULT_MAX_ITER,
    tol: float = DEFAULT_TOL,
    n_init: int = 1,
    random_state: int | np.random.Generator | None = None,
    start: TreeModel | None = None,
) -> TreeModel:
    """CPTs of a fixed DAG ``structure`` by EM over the missing cells of ``stats.table``.

    ``build(structure, stats)`` fits CPTs from (expected) counts, e.g.
    :func:`treelearn.learners._chow_liu.build_model` with the settings. EM starts from
    ``start`` if given; else from the available-case fit ``build(structure, stats)``
    when every variable is observed somewhere, and from :func:`random_start` (seeded by
    ``random_state``) when one is never observed. ``n_init`` runs (the first from the
    available-case fit if it applies, the others from random starts) keep the one of
    highest final likelihood. Each run stops when the observed-data log-likelihood
    per row changes by less than ``tol``, or after ``max_iter`` E-steps.
    :func:`treelearn.fit_cpts` with ``missing="em"`` calls this.
    """
    table = _rows_of(stats)
    check_params(
        {"max_iter": max_iter, "tol": tol, "n_init": n_init, "random_state": random_state},
        _CONSTRAINTS,
    )
    if not (table.codes < 0).any():  # complete data: EM's first M-step is the answer
        n = float(table.n_rows if table.weights is None else table.weights.sum())
        return _finish(build(structure, stats), [], n, table)
    rng = np.random.default_rng(random_state)
    hidden = _never_observed(table)
    best: TreeModel | None = None
    for run in range(n_init):
        if start is not None and run == 0:
            first = start
        elif run == 0 and not hidden:
            first = build(structure, stats)
        else:
            first = random_start(structure, stats, build, rng)
        model = _fixed_structure_em(structure, stats, build, first, max_iter, tol)
        if (
            best is None
            or model.settings["em_log_likelihood"][-1] > best.settings["em_log_likelihood"][-1]
        ):
            best = model
    assert best is not None  # n_init >= 1 runs, checked above
    best.settings["em_n_init"] = n_init
    return best


def _never_observed(table: Table) -> list:
    """The columns no row (of positive weight) observes."""
    codes = table.codes
    counted = np.ones(len(codes), bool) if table.weights is None else table.weights > 0
    if not counted.any():
        return []
    return [c for c, seen in zip(table.columns, np.any(codes[counted] >= 0, axis=0)) if not seen]


class ExpectedFamilies:
    """The M-step's statistics: the expected counts of each family of a structure, by the
    family's column indices (parents in CPT order, the node last), and the table's
    description, what :func:`~treelearn.learners._chow_liu.build_model` reads."""

    def __init__(self, stats: CountedTable, families: dict, n_rows: float) -> None:
        self.columns, self.states, self.dtypes = stats.columns, stats.states, stats.dtypes
        self.families, self.n_rows = families, n_rows

    def family_counts(self, family: list) -> np.ndarray:
        return self.families[tuple(family)]


def random_start(
    structure: nx.DiGraph,
    stats: CountedTable,
    build: Callable[[nx.DiGraph, object], TreeModel],
    rng: np.random.Generator,
) -> TreeModel:
    """A start for EM that breaks the symmetry of never-observed variables.

    Each family's available-case counts over its observed members (those a row
    observes; all ones where none is) are spread evenly over the states of its
    never-observed members, then every count is multiplied by its own factor drawn
    uniformly in ``[0.5, 1.5]``: the marginals the data shows are kept about right,
    and the latent states differ. ``build`` turns the counts into CPTs (smoothing
    included), as an M-step would.
    """
    position = {c: j for j, c in enumerate(stats.columns)}
    hidden = {position[c] for c in _never_observed(_rows_of(stats))}
    model = build(structure, stats)  # the parents' order of every family
    families = {}
    for v in model.variables:
        family = [position[u] for u in (*model.parents(v), v)]
        seen = [j for j in family if j not in hidden]
        counts = stats.family_counts(seen).astype(float) if seen else np.ones(())
        shapes = [len(stats.states[j]) for j in family]
        # the observed members' axes in place, the hidden ones of size 1, then spread
        spread = counts.reshape([s if j not in hidden else 1 for j, s in zip(family, shapes)])
        n_hidden = int(np.prod([s for j, s in zip(family, shapes) if j in hidden]))
        full = np.broadcast_to(spread / n_hidden, shapes)
        families[tuple(family)] = full * rng.uniform(*_PERTURBATION, size=shapes)
    return build(structure, ExpectedFamilies(stats, families, stats.n_rows))


def _fixed_structure_em(
    structure: nx.DiGraph,
    stats: CountedTable,
    build: Callable[[nx.DiGraph, object], TreeModel],
    model: TreeModel,
    max_iter: int,
    tol: float,
) -> TreeModel:
    """EM from ``model``: the E-step is the engine's expected family counts (any DAG)."""
    table = _rows_of(stats)
    position = {c: j for j, c in enumerate(stats.columns)}
    order = [position[v] for v in model.variables]
    codes, w = _grouped(table.codes[:, order], table.weights)
    n = float(w.sum())
    history: list[float] = []

    def e_step(m: TreeModel) -> tuple[float, list]:
        log_ev, counts = m.engine().family_counts_codes(codes, w)
        possible = w > 0
        return float(np.sum(w[possible] * log_ev[possible])), counts

    for _ in range(max_iter):
        log_likelihood, counts = e_step(model)
        history.append(log_likelihood)
        if len(history) > 1 and abs(history[-1] - history[-2]) < tol * n:
            break
        families = {
            tuple(position[u] for u in (*model.parents(v), v)): c
            for v, c in zip(model.variables, counts)
        }
        model = build(structure, ExpectedFamilies(stats, families, n))
    else:
        # the last M-step's model has not been scored: score it, it is the one returned
        history.append(e_step(model)[0])
    return _finish(model, history, n, table)


def chow_liu_em(
    stats: CountedTable,
    learn: Callable[[CountedTable], TreeModel],
    *,
    max_iter: int = DEFAULT_MAX_ITER,
    tol: float = DEFAULT_TOL,
) -> TreeModel:
    """Structural EM: alternate expected pairwise counts and the Chow-Liu tree learned from them.

    ``learn(stats)`` is :func:`treelearn.learners._chow_liu.chow_liu_from_counts` with the
    settings. Stops when the tree is unchanged and the observed-data
    log-likelihood per row changes by less than ``tol``, or after ``max_iter``
    E-steps. :func:`treelearn.chow_liu` with ``missing="em"`` calls this.
    """

    def same_tree(a: TreeModel, b: TreeModel) -> bool:
        return set(a.graph.edges) == set(b.graph.edges)

    return _run(stats, learn, True, max_iter, tol, same_tree)
