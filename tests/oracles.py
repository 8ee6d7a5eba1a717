"""Brute-force oracles the tests share: the slow, obvious computation of what treelearn
computes fast.

Every function here answers by enumeration or by counting, in plain Python, NumPy,
pandas, SciPy or networkx: the full joint of a discrete network as the product of its
CPT entries, queries by summing that joint, MAP by taking its largest entry, every
spanning tree or forest of a small graph, mutual information and likelihoods from
pandas counts, one EM step by enumerating every completion of every row, Shapley values
over every coalition. **Nothing here imports treelearn**: a model is read only through
its tables (``variables``, ``states``, ``parents(v)``, ``cpt(v)`` with the parents'
axes first), so an oracle shares no code with the function a test checks.
``tests/test_oracles.py`` checks each oracle on cases worked out by hand.

A *model* below is anything with those four members (a ``TreeModel``, a pgmpy-free
:class:`Network` of plain tables). An *assignment* maps variables to state labels;
*codes* are state indices in ``model.variables`` order, ``-1`` for a missing cell.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import gammaln
from scipy.special import logsumexp as _logsumexp
from sklearn.metrics import mutual_info_score

__all__ = [
    "Network",
    "all_rows",
    "bayesian_tan_joint",
    "bdeu_conditional",
    "bdeu_family_log_ml",
    "best_forest",
    "best_spanning_tree",
    "clg_conditionals",
    "clg_log_density",
    "completions",
    "conditional_from_rows",
    "conditional_mutual_information",
    "consistent_assignments",
    "crosstab",
    "distribution_entropy",
    "em_step",
    "entropy",
    "evidence_weights",
    "expected_family_counts",
    "expected_pair_counts",
    "family_posteriors",
    "forests",
    "gaussian_tree_covariance",
    "joint_probability",
    "joint_probability_of_codes",
    "joint_rows",
    "joint_table",
    "labelled_posterior",
    "latent_tree_joint",
    "log_joint_probability",
    "map_assignment",
    "marginal_of",
    "marginal_probability",
    "marginal_rows",
    "marginal_table",
    "max_log_probability",
    "mixture_em_step",
    "mixture_table",
    "model_mutual_information",
    "mutual_information",
    "posterior_marginals",
    "prufer_tree",
    "prufer_trees",
    "restrict",
    "rows_given",
    "scored_rows",
    "sequential_log_evidence",
    "shapley_values",
    "smoothed_mutual_information",
    "spanning_tree_distribution",
    "spanning_trees",
    "tree_ml_loglik",
    "tree_parents",
]


# ============================================================== a network of plain tables
class Network:
    """A discrete Bayesian network held as plain tables: the oracles' own model.

    Parameters
    ----------
    variables : sequence of hashable
        The variables, in the order of the joint's axes.
    parents : mapping
        Each variable's parents (a list; absent means none).
    cpts : mapping
        Each variable's table, the parents' axes first and its own last.
    states : mapping, optional
        Each variable's state labels; by default ``0 .. k-1``.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> net.parents("b"), net.states["b"]
    (['a'], [0, 1])
    >>> round(joint_probability(net, {"a": 1, "b": 1}), 12)
    0.56
    """

    def __init__(
        self,
        variables: Sequence[Hashable],
        parents: Mapping[Hashable, Sequence[Hashable]],
        cpts: Mapping[Hashable, Any],
        states: Mapping[Hashable, Sequence[Any]] | None = None,
    ) -> None:
        self.variables = list(variables)
        self._parents = {v: list(parents.get(v, [])) for v in self.variables}
        self._cpts = {v: np.asarray(cpts[v], dtype=float) for v in self.variables}
        self.states = (
            {v: list(states[v]) for v in self.variables}
            if states is not None
            else {v: list(range(self._cpts[v].shape[-1])) for v in self.variables}
        )

    @classmethod
    def of(cls, model: Any) -> Network:
        """A copy of ``model``'s tables (anything with the four members)."""
        return cls(
            model.variables,
            {v: model.parents(v) for v in model.variables},
            {v: model.cpt(v) for v in model.variables},
            model.states,
        )

    def parents(self, v: Hashable) -> list:
        """``v``'s parents, in the order of its table's leading axes."""
        return list(self._parents[v])

    def cpt(self, v: Hashable) -> np.ndarray:
        """``v``'s table: the parents' axes first, its own last."""
        return self._cpts[v]


# ============================================================== one complete assignment
def joint_probability(model: Any, assignment: Mapping) -> float:
    """``P(x)`` of a complete assignment of state labels: the product of one CPT entry
    per variable, looked up state by state.

    Independent of treelearn's inference: nothing but ``cpt(v)[parent states, state]``.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> round(joint_probability(net, {"a": 0, "b": 1}), 12)
    0.03
    """
    p = 1.0
    for v in model.variables:
        index = tuple(model.states[u].index(assignment[u]) for u in model.parents(v))
        p *= float(model.cpt(v)[(*index, model.states[v].index(assignment[v]))])
    return p


def joint_probability_of_codes(model: Any, codes: Sequence[int]) -> float:
    """``P(x)`` of a complete row of state indices (``model.variables`` order): the
    product of one CPT entry per variable.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> round(joint_probability_of_codes(net, (1, 0)), 12)
    0.14
    """
    at = dict(zip(model.variables, codes))
    p = 1.0
    for v in model.variables:
        p *= float(model.cpt(v)[(*(at[u] for u in model.parents(v)), at[v])])
    return p


def log_joint_probability(model: Any, assignment: Mapping) -> float:
    """``log P(x)`` of a complete assignment of labels: the sum of one log CPT entry per
    variable (``-inf`` where an entry is 0).

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[1.0, 0.0], [0.2, 0.8]]})
    >>> round(float(np.exp(log_joint_probability(net, {"a": 1, "b": 1}))), 12)
    0.56
    >>> log_joint_probability(net, {"a": 0, "b": 1})
    -inf
    """
    total = 0.0
    for v in model.variables:
        st = model.states
        idx = tuple(st[p].index(assignment[p]) for p in model.parents(v)) + (
            st[v].index(assignment[v]),
        )
        with np.errstate(divide="ignore"):
            total += np.log(model.cpt(v)[idx])
    return float(total)


def completions(model: Any, codes: Sequence[int]) -> Iterator[tuple[tuple, float]]:
    """Every completion of a row's missing cells (codes ``< 0``), as a full tuple of state
    indices, with its joint probability (:func:`joint_probability_of_codes`).

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> [(full, round(p, 12)) for full, p in completions(net, [-1, 1])]
    [((0, 1), 0.03), ((1, 1), 0.56)]
    """
    cards = [len(model.states[v]) for v in model.variables]
    choices = [range(k) if c < 0 else [c] for c, k in zip(codes, cards)]
    for full in itertools.product(*choices):
        yield full, joint_probability_of_codes(model, full)


def _missing(value: Any) -> bool:
    return value is None or bool(pd.isna(value))


def marginal_probability(model: Any, row: Mapping) -> float:
    """``P(observed cells of row)``: the joint summed over every completion of the cells
    that are missing (absent, ``None`` or NaN), labels elsewhere.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> round(marginal_probability(net, {"a": None, "b": 1}), 12)
    0.59
    """
    missing = [v for v in model.variables if _missing(row.get(v))]
    total = 0.0
    for values in itertools.product(*(model.states[v] for v in missing)):
        full = dict(row)
        full.update(zip(missing, values))
        total += joint_probability(model, full)
    return total


# ============================================================== the full joint
def joint_table(model: Any) -> np.ndarray:
    """The full joint ``P(x)`` as an array with one axis per variable
    (``model.variables`` order): every CPT broadcast onto its variables' axes and
    multiplied, one variable after another.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> joint_table(net).round(12).tolist()
    [[0.27, 0.03], [0.14, 0.56]]
    """
    vs = list(model.variables)
    shape = [len(model.states[v]) for v in vs]
    joint = np.ones(shape)
    for v in vs:
        axes = [vs.index(u) for u in [*model.parents(v), v]]
        table = np.asarray(model.cpt(v))
        # put the CPT's axes where its variables sit in the joint
        expanded = np.moveaxis(
            table.reshape(table.shape + (1,) * (len(vs) - table.ndim)), list(range(len(axes))), axes
        )
        joint = joint * expanded
    return joint


def joint_rows(model: Any) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Every complete assignment as a tuple of state indices (``itertools.product``
    order) and its probability (:func:`joint_table`, flattened).

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> rows, p = joint_rows(net)
    >>> rows, p.round(12).tolist()
    ([(0, 0), (0, 1), (1, 0), (1, 1)], [0.27, 0.03, 0.14, 0.56])
    """
    vs = list(model.variables)
    rows = list(itertools.product(*(range(len(model.states[v])) for v in vs)))
    return rows, joint_table(model).reshape(-1)


def marginal_rows(model: Any, variables: Sequence[Hashable]) -> pd.DataFrame:
    """Every complete row of ``variables`` (their states' ``itertools.product`` order) with
    ``p``, the joint (:func:`joint_rows`) summed over the other variables, row after row:
    the distribution of the observed columns of a network with latent variables.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> marginal_rows(net, ["b"]).round(12).to_dict("list")
    {'b': [0, 1], 'p': [0.41, 0.59]}
    """
    rows, p = joint_rows(model)
    vs = list(model.variables)
    shape = [len(model.states[v]) for v in variables]
    at = [vs.index(v) for v in variables]
    flat = np.ravel_multi_index(tuple(np.array([r[i] for r in rows]) for i in at), shape)
    total = np.zeros(int(np.prod(shape)))
    np.add.at(total, flat, p)
    out = all_rows(variables, model.states)
    out["p"] = total
    return out


def all_rows(columns: Sequence[Hashable], states: Mapping | Sequence) -> pd.DataFrame:
    """Every complete row of ``columns`` (states given per column, as a mapping or a list
    in column order), in ``itertools.product`` order.

    Examples
    --------
    >>> all_rows(["a", "b"], {"a": [0, 1], "b": ["x", "y"]}).values.tolist()
    [[0, 'x'], [0, 'y'], [1, 'x'], [1, 'y']]
    """
    cols = list(columns)
    per = [states[c] for c in cols] if isinstance(states, Mapping) else list(states)
    return pd.DataFrame(list(itertools.product(*per)), columns=cols)


def scored_rows(
    score_samples: Callable[[pd.DataFrame], np.ndarray],
    columns: Sequence,
    states: Mapping | Sequence,
) -> tuple[pd.DataFrame, np.ndarray]:
    """Every complete row (:func:`all_rows`) and its probability as the model scores it,
    ``exp(score_samples(rows))``: the joint of a model without tables (a cutset network),
    to check its queries, which are computed another way, against.

    Examples
    --------
    >>> rows, p = scored_rows(lambda rows: np.log(np.full(len(rows), 0.25)), "ab", [[0, 1], [0, 1]])
    >>> len(rows), p.tolist()
    (4, [0.25, 0.25, 0.25, 0.25])
    """
    rows = all_rows(columns, states)
    return rows, np.exp(score_samples(rows))


def mixture_table(weights: Sequence[float], components: Sequence[Any]) -> pd.DataFrame:
    """Every complete row of a mixture of discrete networks (the first component's
    variables and states, ``itertools.product`` order) with ``p0 .. p{k-1}``, each
    component's ``w_k P_k(x)`` (:func:`joint_probability`), and ``p``, their sum over the
    sum of the weights.

    Examples
    --------
    >>> a = Network(["x"], {}, {"x": [0.2, 0.8]})
    >>> b = Network(["x"], {}, {"x": [0.6, 0.4]})
    >>> mixture_table([0.5, 0.5], [a, b]).round(12).to_dict("list")
    {'x': [0, 1], 'p0': [0.1, 0.4], 'p1': [0.3, 0.2], 'p': [0.4, 0.6]}
    """
    first = components[0]
    out = all_rows(first.variables, first.states)
    records = out.to_dict("records")
    for k, (w, c) in enumerate(zip(weights, components)):
        out[f"p{k}"] = [w * joint_probability(c, r) for r in records]
    out["p"] = sum(out[f"p{k}"] for k in range(len(components))) / np.sum(weights)
    return out


def restrict(model: Any, joint: np.ndarray, evidence: Mapping) -> np.ndarray:
    """The joint (:func:`joint_table`) with every entry that disagrees with the evidence
    (state labels) set to zero.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> restrict(net, joint_table(net), {"b": 1}).round(12).tolist()
    [[0.0, 0.03], [0.0, 0.56]]
    """
    vs = list(model.variables)
    mask = np.ones_like(joint, dtype=bool)
    for v, s in evidence.items():
        keep = np.zeros(len(model.states[v]), dtype=bool)
        keep[model.states[v].index(s)] = True
        shape = [1] * len(vs)
        shape[vs.index(v)] = -1
        mask &= keep.reshape(shape)
    return np.where(mask, joint, 0.0)


def marginal_table(
    model: Any, joint: np.ndarray, variables: Sequence, evidence: Mapping
) -> np.ndarray:
    """``P(variables | evidence)`` as an array (axes in the order of ``variables``): the
    restricted joint summed over the other variables, normalised.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> (marginal_table(net, joint_table(net), ["a"], {"b": 1}) * 59).round(9).tolist()
    [3.0, 56.0]
    """
    vs = list(model.variables)
    part = restrict(model, joint, evidence)
    other = tuple(i for i, v in enumerate(vs) if v not in variables)
    table = part.sum(axis=other)
    kept = [v for v in vs if v in variables]
    table = np.transpose(table, [kept.index(v) for v in variables])
    return table / table.sum()


def max_log_probability(model: Any, joint: np.ndarray, evidence: Mapping) -> float:
    """``log max_x P(x, evidence)``: the MAP value by the largest restricted entry.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> round(float(np.exp(max_log_probability(net, joint_table(net), {"a": 0}))), 12)
    0.27
    """
    part = restrict(model, joint, evidence)
    return float(np.log(part.max()))


def map_assignment(model: Any, evidence: Mapping) -> tuple[dict, float]:
    """The most probable completion of the evidence and its ``log P(x, evidence)``, by
    scanning every row of the joint (:func:`joint_rows`; the first of equal rows).

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> best, log_p = map_assignment(net, {"b": 0})
    >>> best, round(float(np.exp(log_p)), 12)
    ({'a': 0}, 0.27)
    """
    rows, p = joint_rows(model)
    vs = list(model.variables)
    keep = np.array(
        [all(r[vs.index(k)] == model.states[k].index(s) for k, s in evidence.items()) for r in rows]
    )
    best = int(np.argmax(np.where(keep, p, -1.0)))
    return (
        {v: model.states[v][rows[best][i]] for i, v in enumerate(vs) if v not in evidence},
        float(np.log(p[best])),
    )


def posterior_marginals(model: Any, evidence: Mapping) -> dict:
    """``P(v | evidence)`` of every variable, by summing the rows of the joint
    (:func:`joint_rows`) that agree with the evidence.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> (posterior_marginals(net, {"b": 1})["a"] * 59).round(9).tolist()
    [3.0, 56.0]
    """
    rows, p = joint_rows(model)
    vs = list(model.variables)
    keep = np.array(
        [all(r[vs.index(k)] == model.states[k].index(s) for k, s in evidence.items()) for r in rows]
    )
    p = np.where(keep, p, 0.0)
    out = {}
    for i, v in enumerate(vs):
        m = np.zeros(len(model.states[v]))
        np.add.at(m, [r[i] for r in rows], p)
        out[v] = m / m.sum()
    return out


def model_mutual_information(model: Any, u: Hashable, v: Hashable) -> float:
    """``I(u; v)`` (nats) under the model: the pair's table summed from the rows of the
    full joint (:func:`joint_rows`), then ``sum p log p / (p_u p_v)``.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.5, 0.5], "b": [[1.0, 0.0], [0.0, 1.0]]})
    >>> bool(np.isclose(model_mutual_information(net, "a", "b"), np.log(2)))  # a copy: one bit
    True
    """
    rows, p = joint_rows(model)
    vs = list(model.variables)
    iu, iv = vs.index(u), vs.index(v)
    table = np.zeros((len(model.states[u]), len(model.states[v])))
    for r, pr in zip(rows, p):
        table[r[iu], r[iv]] += pr
    pu, pv = table.sum(1, keepdims=True), table.sum(0, keepdims=True)
    nz = table > 0
    return float((table[nz] * np.log(table[nz] / (pu @ pv)[nz])).sum())


def consistent_assignments(
    variables: Sequence, parents: Mapping, cpts: Mapping, card: Mapping, codes: Sequence[int]
) -> Iterator[tuple[tuple[int, ...], float]]:
    """Every complete assignment (a tuple of state indices, ``itertools.product`` order)
    that agrees with the observed ``codes`` (``-1``: missing), with its joint probability:
    the product of one entry of each plain CPT ``cpts[v][parents..., v]``.

    Examples
    --------
    >>> cpts = {"a": np.array([0.3, 0.7]), "b": np.array([[0.9, 0.1], [0.2, 0.8]])}
    >>> found = consistent_assignments(["a", "b"], {"a": [], "b": ["a"]}, cpts, {"a": 2, "b": 2}, [-1, 1])
    >>> [(x, round(float(p), 12)) for x, p in found]
    [((0, 1), 0.03), ((1, 1), 0.56)]
    """
    index = {v: i for i, v in enumerate(variables)}
    for x in itertools.product(*[range(card[v]) for v in variables]):
        if any(c >= 0 and c != xj for c, xj in zip(codes, x)):
            continue
        p = 1.0
        for v in variables:
            p *= cpts[v][tuple(x[index[u]] for u in [*parents[v], v])]
        yield x, p


def evidence_weights(model: Any, evidence: Mapping, soft: Mapping) -> dict:
    """Every assignment's weight ``P(x) prod_v L_v(x_v)`` (``soft``: a likelihood vector
    per variable), keyed by the tuple of state indices; assignments that disagree with the
    hard ``evidence`` (labels) are left out.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> {k: round(float(w), 12) for k, w in evidence_weights(net, {"b": 1}, {"a": [1.0, 0.5]}).items()}
    {(0, 1): 0.03, (1, 1): 0.28}
    """
    variables, states = model.variables, model.states
    codes = [-1] * len(variables)
    for v, s in evidence.items():
        codes[variables.index(v)] = states[v].index(s)
    parents = {v: model.parents(v) for v in variables}
    cpts = {v: model.cpt(v) for v in variables}
    card = {v: len(states[v]) for v in variables}
    out = {}
    for values, p in consistent_assignments(variables, parents, cpts, card, codes):
        for v, w in soft.items():
            p *= w[values[variables.index(v)]]
        out[values] = p
    return out


def labelled_posterior(
    model: Any, evidence: Mapping | None = None, soft: Mapping | None = None
) -> tuple[dict, list]:
    """``{assignment (a tuple of state labels): posterior}`` given hard and soft evidence:
    :func:`evidence_weights` normalised; and the variables, the order of the tuples.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> table, variables = labelled_posterior(net, {"b": 1})
    >>> {k: round(float(p * 59), 9) for k, p in table.items()}, variables
    ({(0, 1): 3.0, (1, 1): 56.0}, ['a', 'b'])
    """
    weights = evidence_weights(model, evidence or {}, soft or {})
    variables, states = model.variables, model.states
    z = sum(weights.values())
    return (
        {
            tuple(states[v][c] for v, c in zip(variables, codes)): p / z
            for codes, p in weights.items()
        },
        variables,
    )


def marginal_of(table: Mapping, variables: Sequence, keep: Sequence) -> dict:
    """The marginal over ``keep`` of a distribution keyed by tuples (in ``variables``
    order), summed entry by entry.

    Examples
    --------
    >>> marginal_of({(0, 0): 0.1, (0, 1): 0.2, (1, 0): 0.3, (1, 1): 0.4}, ["a", "b"], ["b"])
    {(0,): 0.4, (1,): 0.6000000000000001}
    """
    idx = [variables.index(v) for v in keep]
    out: dict = {}
    for k, p in table.items():
        key = tuple(k[i] for i in idx)
        out[key] = out.get(key, 0.0) + p
    return out


def distribution_entropy(dist: Mapping) -> float:
    """``-sum p log p`` (nats) of a distribution given as a mapping to probabilities.

    Examples
    --------
    >>> bool(np.isclose(distribution_entropy({"x": 0.5, "y": 0.5, "z": 0.0}), np.log(2)))
    True
    """
    return -sum(p * np.log(p) for p in dist.values() if p > 0)


def family_posteriors(
    variables: Sequence, parents: Mapping, cpts: Mapping, card: Mapping, row: Sequence[int]
) -> tuple[float, list[np.ndarray]]:
    """``log P(observed cells)`` of one row of codes (``-1`` missing) and each family's
    posterior table ``P(parents, v | observed)``, by summing the full joint of plain CPTs.

    Examples
    --------
    >>> cpts = {"a": np.array([0.3, 0.7]), "b": np.array([[0.9, 0.1], [0.2, 0.8]])}
    >>> log_p, fam = family_posteriors(["a", "b"], {"a": [], "b": ["a"]}, cpts, {"a": 2, "b": 2}, [-1, 1])
    >>> round(float(np.exp(log_p)), 12), (fam[1] * 59).round(9).tolist()
    (0.59, [[0.0, 3.0], [0.0, 56.0]])
    """
    d = len(variables)
    index = {v: i for i, v in enumerate(variables)}
    joint = np.zeros([card[v] for v in variables])
    for x, p in consistent_assignments(variables, parents, cpts, card, row):
        joint[x] = p
    total = joint.sum()
    families = []
    for v in variables:
        axes = [index[u] for u in [*parents[v], v]]
        m = joint.sum(axis=tuple(j for j in range(d) if j not in axes))
        ordered = sorted(axes)
        m = np.transpose(m, [ordered.index(a) for a in axes])
        families.append(m / total if total > 0 else m)
    return (np.log(total) if total > 0 else -np.inf), families


def rows_given(table: pd.DataFrame, evidence: Mapping) -> pd.DataFrame:
    """The rows of an enumerated table (one column per variable) that agree with the
    evidence.

    Examples
    --------
    >>> t = pd.DataFrame({"a": [0, 0, 1], "p": [0.2, 0.3, 0.5]})
    >>> rows_given(t, {"a": 0})["p"].tolist()
    [0.2, 0.3]
    """
    keep = np.ones(len(table), dtype=bool)
    for v, s in evidence.items():
        keep &= table[v] == s
    return table[keep]


def conditional_from_rows(
    rows: pd.DataFrame, p: np.ndarray, target: Hashable, evidence: Mapping
) -> pd.Series:
    """``P(target | evidence)`` from enumerated rows and their probabilities: the rows
    agreeing with the evidence, summed by the target's state, normalised.

    Examples
    --------
    >>> rows = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 0, 1]})
    >>> conditional_from_rows(rows, np.array([0.27, 0.03, 0.14, 0.56]), "a", {"b": 0}).round(9).tolist()
    [0.658536585, 0.341463415]
    """
    keep = np.ones(len(rows), bool)
    for k, v in evidence.items():
        keep &= (rows[k] == v).to_numpy()
    s = pd.Series(p[keep], index=rows.loc[keep, target].to_numpy()).groupby(level=0).sum()
    return s / s.sum()


# ============================================================== EM by enumeration
def expected_pair_counts(
    model: Any, codes: np.ndarray, weights: Sequence[float] | None = None
) -> tuple[np.ndarray, float]:
    """EM's expected sufficient statistics by brute force: the expected one-hot products
    ``sum_r w_r E[x_r x_r^T | observed cells]`` over every completion of every row (one
    block per pair of variables, blocks in ``model.variables`` order) and the weighted
    observed-data log-likelihood.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> pairs, ll = expected_pair_counts(net, np.array([[-1, 1]]))
    >>> (pairs[:2, 2:] * 59).round(9).tolist(), round(float(np.exp(ll)), 12)  # a x b block
    ([[0.0, 3.0], [0.0, 56.0]], 0.59)
    """
    cards = [len(model.states[v]) for v in model.variables]
    offsets = np.concatenate([[0], np.cumsum(cards)])
    K = offsets[-1]
    total, ll = np.zeros((K, K)), 0.0
    for r, row in enumerate(codes):
        w = 1.0 if weights is None else weights[r]
        done = list(completions(model, row))
        p_obs = sum(p for _, p in done)
        ll += w * math.log(p_obs)
        for full, p in done:
            x = np.zeros(K)
            x[offsets[:-1] + np.array(full)] = 1.0
            total += w * (p / p_obs) * np.outer(x, x)
    return total, ll


def expected_family_counts(
    model: Any, codes: np.ndarray, weights: Sequence[float] | None = None
) -> tuple[dict, float]:
    """Each family's expected counts ``sum_r w_r P(parents, v | observed cells of r)``
    (tables shaped like the CPTs) by enumerating every completion of every row, and the
    weighted observed-data log-likelihood.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> counts, ll = expected_family_counts(net, np.array([[-1, 1], [0, 0]]))
    >>> (counts["a"] * 59).round(9).tolist()  # row 1: a | b=1 is (3, 56)/59; row 2: a=0
    [62.0, 56.0]
    """
    cards = [len(model.states[v]) for v in model.variables]
    index = {v: i for i, v in enumerate(model.variables)}
    families = {v: [index[u] for u in (*model.parents(v), v)] for v in model.variables}
    counts = {v: np.zeros([cards[i] for i in f]) for v, f in families.items()}
    ll = 0.0
    for r, row in enumerate(codes):
        w = 1.0 if weights is None else weights[r]
        done = list(completions(model, row))
        p_obs = sum(p for _, p in done)
        ll += w * math.log(p_obs)
        for full, p in done:
            for v, f in families.items():
                counts[v][tuple(full[i] for i in f)] += w * (p / p_obs)
    return counts, ll


def em_step(
    model: Any, codes: np.ndarray, alpha: float, weights: Sequence[float] | None = None
) -> tuple[Network, float]:
    """One EM step for the model's own structure, every missing cell enumerated: the CPTs
    of the expected counts (:func:`expected_family_counts`) smoothed by Lidstone's
    ``alpha`` (a parent state of zero total: uniform), and the observed-data
    log-likelihood of the model *before* the step.

    Examples
    --------
    >>> net = Network(["a", "b"], {"b": ["a"]}, {"a": [0.5, 0.5], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> new, ll = em_step(net, np.array([[0, 0], [-1, 1]]), alpha=0.0)
    >>> (new.cpt("a") * 18).round(9).tolist()  # a | b=1: (0.05, 0.4) / 0.45
    [10.0, 8.0]
    """
    counts, ll = expected_family_counts(model, codes, weights)
    cpts = {}
    for v in model.variables:
        smoothed = counts[v] + alpha
        total = smoothed.sum(axis=-1, keepdims=True)  # a parent state never seen: uniform
        cpts[v] = np.where(
            total > 0, smoothed / np.where(total > 0, total, 1), 1 / smoothed.shape[-1]
        )
    parents = {v: model.parents(v) for v in model.variables}
    return Network(model.variables, parents, cpts, model.states), ll


def latent_tree_joint(
    parent: Sequence[int],
    latent: Sequence[np.ndarray],
    emission: Sequence[np.ndarray],
    codes: np.ndarray,
) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """``P(h, x_observed)`` of a tree of latent nodes (one column each) for every latent
    configuration ``h`` and row of codes: an ``(n, h^d)`` array, configurations in
    ``itertools.product`` order. ``parent[i] < 0`` marks a root (``latent[i]`` its prior),
    otherwise ``latent[i][h_parent, h_i]``; column ``i`` is emitted by
    ``emission[i][h_i, x_i]``; a cell ``< 0`` is missing (summed out). An HMM is the chain
    ``parent = [-1, 0, 1, ...]`` with its tables repeated.

    Examples
    --------
    >>> prior, emit = np.array([0.4, 0.6]), np.array([[0.9, 0.1], [0.3, 0.7]])
    >>> configs, p = latent_tree_joint([-1], [prior], [emit], np.array([[1], [-1]]))
    >>> configs, p.round(12).tolist()
    ([(0,), (1,)], [[0.04, 0.42], [0.4, 0.6]])
    """
    d = len(parent)
    h = len(latent[next(i for i in range(d) if parent[i] < 0)])
    configs = list(itertools.product(range(h), repeat=d))
    codes = np.asarray(codes)
    out = np.ones((len(codes), len(configs)))
    for c, z in enumerate(configs):
        for i in range(d):
            p = parent[i]
            out[:, c] *= latent[i][z[i]] if p < 0 else latent[i][z[p], z[i]]
            emit = emission[i][z[i]]
            seen = codes[:, i] >= 0
            out[seen, c] *= emit[codes[seen, i]]
    return configs, out


def mixture_em_step(
    weights: Sequence[float], components: Sequence[Any], df: pd.DataFrame
) -> tuple[list[np.ndarray], np.ndarray]:
    """One EM step of a mixture of trees over its components and the rows' missing cells
    (None/NaN), every completion enumerated. Returns each component's new distribution
    over every complete state (``itertools.product`` order of the first component's
    states): the best of *all* spanning trees of its expected counts, with
    maximum-likelihood CPTs; and the new weights.

    Independent of treelearn: responsibilities from CPT products
    (:func:`joint_probability`), trees from :func:`spanning_trees`.

    Examples
    --------
    >>> one = Network(["a", "b"], {"b": ["a"]}, {"a": [0.5, 0.5], "b": [[0.9, 0.1], [0.2, 0.8]]})
    >>> rows = pd.DataFrame({"a": [0, 1, 1, 0, 1], "b": [0, 1, 1, 1, 0]})
    >>> joints, w = mixture_em_step([1.0], [one], rows)
    >>> (joints[0] * 5).round(9).tolist(), w.tolist()  # one tree on two columns: the data
    ([1.0, 1.0, 1.0, 2.0], [1.0])
    """
    variables = list(df.columns)
    states = {v: components[0].states[v] for v in variables}
    full_states = list(itertools.product(*(states[v] for v in variables)))
    k = len(components)
    # q[r, k, s]: posterior of component k and complete state s given row r's observed cells
    records = df.to_dict("records")
    q = np.zeros((len(records), k, len(full_states)))
    for r, row in enumerate(records):
        for s, values in enumerate(full_states):
            if all(
                row[v] is None or pd.isna(row[v]) or row[v] == x for v, x in zip(variables, values)
            ):
                for j, (w, c) in enumerate(zip(weights, components)):
                    q[r, j, s] = w * joint_probability(c, dict(zip(variables, values)))
        q[r] /= q[r].sum()
    expected = q.sum(axis=0)  # k x states: expected complete-data counts
    new_weights = expected.sum(axis=1) / len(records)
    index = [{x: i for i, x in enumerate(states[v])} for v in variables]
    coded = np.array([[index[i][x] for i, x in enumerate(s)] for s in full_states])

    def marginal(p, *cols):
        out = np.zeros(tuple(len(states[variables[c]]) for c in cols))
        np.add.at(out, tuple(coded[:, c] for c in cols), p)
        return out

    def tree_joint(p, edges):
        # a tree's ML distribution: prod of node marginals x prod over edges of p_ij/(p_i p_j)
        out = np.prod([marginal(p, i)[coded[:, i]] for i in range(len(variables))], axis=0)
        for i, m in edges:
            out = (
                out
                * marginal(p, i, m)[coded[:, i], coded[:, m]]
                / (marginal(p, i)[coded[:, i]] * marginal(p, m)[coded[:, m]])
            )
        return out

    d = len(variables)
    trees = spanning_trees(range(d))
    assert len(trees) == d ** (d - 2)  # Cayley
    joints = []
    for j in range(k):
        p = expected[j] / expected[j].sum()
        best = max(trees, key=lambda e, p=p: float(np.sum(p * np.log(tree_joint(p, e)))))
        joints.append(tree_joint(p, best))
    return joints, new_weights


# ============================================================== spanning trees and forests
def _acyclic(edges: Iterable[tuple]) -> bool:
    """Whether the edges form a forest (union-find; no networkx)."""
    root: dict = {}

    def find(x):
        while root.get(x, x) != x:
            x = root[x]
        return x

    for u, v in edges:
        a, b = find(u), find(v)
        if a == b:
            return False
        root[a] = b
    return True


def spanning_trees(nodes: Iterable[Hashable]) -> list[tuple[tuple, ...]]:
    """Every spanning tree of the complete graph on ``nodes``: each a tuple of ``d - 1``
    edges ``(u, v)`` (``u`` before ``v`` in ``nodes``), enumerated as
    ``itertools.combinations`` of the pairs, the acyclic ones kept (a union-find, no
    networkx). There are ``d^(d-2)`` of them (Cayley).

    Examples
    --------
    >>> spanning_trees("abc")
    [(('a', 'b'), ('a', 'c')), (('a', 'b'), ('b', 'c')), (('a', 'c'), ('b', 'c'))]
    >>> [len(spanning_trees(range(d))) for d in range(1, 6)]
    [1, 1, 3, 16, 125]
    """
    nodes = list(nodes)
    pairs = list(itertools.combinations(nodes, 2))
    return [t for t in itertools.combinations(pairs, max(len(nodes) - 1, 0)) if _acyclic(t)]


def forests(
    nodes: Iterable[Hashable],
    edges: Iterable[tuple] | None = None,
    sizes: Iterable[int] | None = None,
) -> Iterator[tuple[tuple, ...]]:
    """Every acyclic subset of ``edges`` (default: every pair of ``nodes``), smallest
    first, each size in ``itertools.combinations`` order; ``sizes`` picks the numbers of
    edges (default: 0 to ``d - 1``).

    Examples
    --------
    >>> [len(f) for f in forests("abc")]  # the empty forest, 3 single edges, 3 paths
    [0, 1, 1, 1, 2, 2, 2]
    >>> sum(1 for _ in forests(range(4)))
    38
    """
    nodes = list(nodes)
    edges = list(itertools.combinations(nodes, 2)) if edges is None else list(edges)
    if sizes is None:
        sizes = range(min(len(edges), max(len(nodes) - 1, 0)) + 1)
    for r in sizes:
        for subset in itertools.combinations(edges, r):
            if _acyclic(subset):
                yield subset


def prufer_tree(seq: Sequence[int], d: int) -> list[tuple[int, int]]:
    """Decode a Prüfer sequence of length ``d - 2`` into the ``d - 1`` edges of a
    labelled tree on ``0 .. d-1`` (written out here, not networkx's decoder).

    Examples
    --------
    >>> prufer_tree((3, 3, 3), 5)  # a star around 3
    [(0, 3), (1, 3), (2, 3), (3, 4)]
    """
    degree = [1] * d
    for x in seq:
        degree[x] += 1
    edges = []
    for x in seq:
        leaf = min(i for i in range(d) if degree[i] == 1)
        edges.append((leaf, x))
        degree[leaf] -= 1
        degree[x] -= 1
    u, v = [i for i in range(d) if degree[i] == 1]
    edges.append((u, v))
    return edges


def prufer_trees(d: int) -> list[list[tuple[int, int]]]:
    """Every labelled tree on ``0 .. d-1`` (``d >= 2``), one per Prüfer sequence
    (:func:`prufer_tree`): a second enumeration, independent of :func:`spanning_trees`.

    Examples
    --------
    >>> len(prufer_trees(5))
    125
    """
    return [prufer_tree(seq, d) for seq in itertools.product(range(d), repeat=d - 2)]


def tree_parents(edges: Iterable[tuple], root: Hashable, nodes: Iterable | None = None) -> dict:
    """Each node's parent (``None`` at the root) in the tree or forest ``edges`` oriented
    away from ``root``, in breadth-first order from the root. Nodes of ``nodes`` in other
    components are left out.

    Examples
    --------
    >>> tree_parents([(0, 1), (1, 2), (1, 3)], 2)
    {2: None, 1: 2, 0: 1, 3: 1}
    """
    G = nx.Graph(list(edges))
    G.add_nodes_from([root] if nodes is None else nodes)
    parent: dict = {root: None}
    for u, v in nx.bfs_edges(G, root):
        parent[v] = u
    return parent


def best_spanning_tree(
    names: Sequence[Hashable],
    weight: np.ndarray,
    white: frozenset | set = frozenset(),
    black: frozenset | set = frozenset(),
) -> set | None:
    """The spanning tree of largest total ``weight[i, j]`` (positions in ``names``) that
    holds every whitelisted edge and no blacklisted one (edges as frozensets of names), by
    scoring every spanning tree (:func:`spanning_trees`); the first of trees within
    1e-12 of each other. ``None`` when no tree qualifies.

    Examples
    --------
    >>> W = np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]])
    >>> sorted(sorted(e) for e in best_spanning_tree("abc", W))
    [['a', 'b'], ['b', 'c']]
    >>> sorted(sorted(e) for e in best_spanning_tree("abc", W, black={frozenset("bc")}))
    [['a', 'b'], ['a', 'c']]
    """
    best, best_edges = -np.inf, None
    for edges in spanning_trees(range(len(names))):
        es = {frozenset((names[i], names[j])) for i, j in edges}
        if not white <= es or es & black:
            continue
        score = sum(weight[i, j] for i, j in edges)
        if score > best + 1e-12:
            best, best_edges = score, es
    return best_edges


def best_forest(
    nodes: Sequence[Hashable], edge_score: Mapping[tuple, float], tol: float
) -> tuple[float, set]:
    """The forest of largest total score among every acyclic subset of the candidate edges
    (:func:`forests`; the empty forest scores 0), a later forest winning only by more than
    ``tol``. Returns ``(score, {frozenset edge, ...})``.

    Examples
    --------
    >>> best_forest("abc", {("a", "b"): 0.5, ("a", "c"): -0.1, ("b", "c"): 0.2}, 1e-12)[0]
    0.7
    >>> best_forest("ab", {("a", "b"): -1.0}, 1e-12)[1]  # only the empty forest is worth 0
    set()
    """
    best, best_edges = -np.inf, set()
    for subset in forests(nodes, list(edge_score)):
        s = sum(edge_score[e] for e in subset)
        if s > best + tol:
            best, best_edges = s, {frozenset(e) for e in subset}
    return best, best_edges


def spanning_tree_distribution(
    log_weights: np.ndarray, trees: Sequence[Sequence[tuple[int, int]]] | None = None
) -> tuple[float, np.ndarray]:
    """The distribution over spanning trees ``P(T) ∝ exp(sum_{uv in T} L[u, v])`` by
    enumeration (``trees`` default: every spanning tree of ``0 .. d-1``): the log
    normaliser ``log sum_T exp(...)`` and the matrix of edge marginals ``P(uv in T)``.

    Examples
    --------
    >>> log_z, P = spanning_tree_distribution(np.zeros((3, 3)))
    >>> round(float(np.exp(log_z)), 9), (P * 3).round(9).tolist()  # 3 trees, each edge in 2
    (3.0, [[0.0, 2.0, 2.0], [2.0, 0.0, 2.0], [2.0, 2.0, 0.0]])
    """
    L = np.asarray(log_weights, dtype=float)
    d = L.shape[0]
    trees = spanning_trees(range(d)) if trees is None else trees
    lw = np.array([sum(L[u, v] for u, v in t) for t in trees])
    log_z = float(_logsumexp(lw))
    P = np.zeros((d, d))
    for t, w in zip(trees, np.exp(lw - log_z)):
        for u, v in t:
            P[u, v] += w
            P[v, u] += w
    return log_z, P


# ============================================================== counting
def entropy(s: pd.Series) -> float:
    """Plug-in entropy (nats) from ``value_counts``.

    Examples
    --------
    >>> bool(np.isclose(entropy(pd.Series([0, 0, 1, 1])), np.log(2)))
    True
    """
    p = s.value_counts().to_numpy(dtype=float)
    p = p / p.sum()
    return float(-(p * np.log(p)).sum())


def mutual_information(a: pd.Series, b: pd.Series) -> float:
    """Plug-in mutual information (nats) from a pandas crosstab.

    Examples
    --------
    >>> bool(np.isclose(mutual_information(pd.Series([0, 0, 1, 1]), pd.Series([1, 1, 0, 0])), np.log(2)))
    True
    """
    t = pd.crosstab(a, b).to_numpy(dtype=float)
    n = t.sum()
    r = t.sum(axis=1, keepdims=True)
    c = t.sum(axis=0, keepdims=True)
    nz = t > 0
    return float((t[nz] / n * np.log(t[nz] * n / (r @ c)[nz])).sum())


def smoothed_mutual_information(
    x: pd.Series, y: pd.Series, kx: int, ky: int, alpha: float
) -> float:
    """The mutual information of the pair's Lidstone-smoothed joint ``(N + alpha) /
    (n + kx ky alpha)`` over the rows where both are present (codes ``0 .. k-1``),
    summed cell by cell.

    Examples
    --------
    >>> mi = smoothed_mutual_information(pd.Series([0, 1]), pd.Series([0, 1]), 2, 2, 1.0)
    >>> bool(np.isclose(mi, 2 / 3 * np.log(4 / 3) + 1 / 3 * np.log(2 / 3)))  # p = (2 1; 1 2) / 6
    True
    """
    both = pd.concat([x, y], axis=1).dropna()
    t = (
        pd.crosstab(both.iloc[:, 0], both.iloc[:, 1])
        .reindex(index=range(kx), columns=range(ky), fill_value=0)
        .to_numpy(dtype=float)
    )
    p = (t + alpha) / (t.sum() + kx * ky * alpha)
    px = p.sum(axis=1)
    py = p.sum(axis=0)
    total = 0.0
    for a in range(kx):
        for b in range(ky):
            total += p[a, b] * np.log(p[a, b] / (px[a] * py[b]))
    return total


def conditional_mutual_information(X: pd.DataFrame, y: pd.Series, a: str, b: str) -> float:
    """``I(A; B | C) = sum_c p(c) I(A; B | C = c)``, each term scikit-learn's plug-in MI.

    Examples
    --------
    >>> X = pd.DataFrame({"a": [0, 1, 0, 1], "b": [0, 1, 1, 0]})
    >>> cmi = conditional_mutual_information(X, pd.Series([0, 0, 1, 1]), "a", "b")
    >>> bool(np.isclose(cmi, np.log(2)))  # a copy in one class, a negation in the other
    True
    """
    total = 0.0
    for _, rows in X.groupby(y.to_numpy()):
        total += len(rows) / len(X) * mutual_info_score(rows[a], rows[b])
    return total


def crosstab(df: pd.DataFrame, a: Hashable, b: Hashable, states_a, states_b) -> np.ndarray:
    """The pair's counts over the rows where both are present, states in the given order
    (absent states counted 0).

    Examples
    --------
    >>> df = pd.DataFrame({"a": ["x", "y", "y", None], "b": [1, 1, 2, 2]})
    >>> crosstab(df, "a", "b", ["y", "x", "z"], [1, 2]).tolist()
    [[1, 1], [1, 0], [0, 0]]
    """
    both = df[[a, b]].dropna()
    t = pd.crosstab(both[a], both[b])
    return t.reindex(index=states_a, columns=states_b, fill_value=0).to_numpy()


def tree_ml_loglik(
    df: pd.DataFrame,
    undirected_edges: Iterable[tuple],
    weights: np.ndarray | None = None,
    cache: dict | None = None,
) -> float:
    """The maximum-likelihood log-likelihood of ``df`` under the tree (or forest) with
    these undirected edges, from pandas counts: ``sum_v sum_x N(x) log(N(x) / n)`` plus,
    per edge, ``sum N(x, y) log(N(x, y) n / (N(x) N(y)))``. With ``weights``, ``N`` are
    weighted counts and ``n`` their total; ``cache`` (a dict kept by the caller) saves
    each column's and pair's term across calls.

    Examples
    --------
    >>> df = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 1]})
    >>> bool(np.isclose(tree_ml_loglik(df, []), 8 * np.log(1 / 2)))  # two fair coins, 4 rows
    True
    >>> bool(np.isclose(tree_ml_loglik(df, [("a", "b")]), 4 * np.log(1 / 2)))  # b copies a
    True
    """
    cache = {} if cache is None else cache
    w = None if weights is None else np.asarray(weights, dtype=float)
    n = len(df) if w is None else float(w.sum())

    def counts(cols: list) -> pd.Series:
        if w is None:
            return df.groupby(cols if len(cols) > 1 else cols[0], observed=True).size()
        return df.assign(_w=w).groupby(cols, observed=True)["_w"].sum()

    def term(key: tuple) -> float:
        if key not in cache:
            if len(key) == 1:
                m = counts([key[0]]).to_numpy(dtype=float)
                cache[key] = float((m * np.log(m / n)).sum())
            else:
                u, v = key
                j = counts([u, v])
                nu, nv = counts([u]), counts([v])
                ju = nu.loc[j.index.get_level_values(0)].to_numpy(dtype=float)
                jv = nv.loc[j.index.get_level_values(1)].to_numpy(dtype=float)
                jj = j.to_numpy(dtype=float)
                cache[key] = float((jj * np.log(jj * n / (ju * jv))).sum())
        return cache[key]

    total = 0.0
    for c in df.columns:
        total += term((c,))
    for u, v in undirected_edges:
        total += term((u, v))
    return total


def bdeu_family_log_ml(
    df: Mapping[Hashable, np.ndarray] | pd.DataFrame,
    child: Hashable,
    parents: Sequence[Hashable],
    states: Mapping,
    ess: float,
    weights: np.ndarray | None = None,
) -> float:
    """The Dirichlet-multinomial marginal likelihood of one family under BDeu
    (pseudo-counts ``ess / (q r)``), in closed form with ``gammaln``, from counts of the
    rows of each parent configuration (weighted by ``weights``).

    Examples
    --------
    >>> df = {"a": np.array([0, 0, 1])}
    >>> round(float(np.exp(bdeu_family_log_ml(df, "a", [], {"a": [0, 1]}, 2.0))), 12)  # 1/2 2/3 1/4
    0.083333333333
    """
    first = df[next(iter(df))]
    w = np.ones(len(first)) if weights is None else np.asarray(weights, dtype=float)
    cfgs = list(itertools.product(*[states[p] for p in parents]))
    q, r = len(cfgs), len(states[child])
    a = ess / (q * r)
    child_values = np.asarray(df[child])
    total = 0.0
    for cfg in cfgs:
        rows = np.ones(len(w), bool)
        for p, val in zip(parents, cfg):
            rows &= np.asarray(df[p]) == val
        total += gammaln(r * a) - gammaln(w[rows].sum() + r * a)
        for val in states[child]:
            total += gammaln(w[rows & (child_values == val)].sum() + a) - gammaln(a)
    return total


def bdeu_conditional(
    df: Mapping[Hashable, np.ndarray] | pd.DataFrame,
    child: Hashable,
    parents: Sequence[Hashable],
    states: Mapping,
    ess: float,
    x: Mapping,
    weights: np.ndarray | None = None,
) -> float:
    """The posterior-mean probability ``(N(u, a) + a') / (N(u) + r a')`` of the child's
    state ``x[child]`` given its parents' states in ``x``, BDeu pseudo-counts
    ``a' = ess / (q r)``, counted row by row (weighted by ``weights``).

    Examples
    --------
    >>> df = {"a": np.array([0, 0, 1]), "b": np.array([1, 1, 0])}
    >>> states = {"a": [0, 1], "b": [0, 1]}
    >>> bdeu_conditional(df, "b", ["a"], states, 4.0, {"a": 0, "b": 1})  # (2 + 1) / (2 + 2)
    0.75
    """
    first = df[next(iter(df))]
    w = np.ones(len(first)) if weights is None else np.asarray(weights, dtype=float)
    q = int(np.prod([len(states[p]) for p in parents])) if parents else 1
    r = len(states[child])
    a = ess / (q * r)
    rows = np.ones(len(w), bool)
    for p in parents:
        rows &= np.asarray(df[p]) == x[p]
    n_ua = w[rows & (np.asarray(df[child]) == x[child])].sum()
    return float((n_ua + a) / (w[rows].sum() + r * a))


def bayesian_tan_joint(
    df: Mapping[Hashable, np.ndarray] | pd.DataFrame,
    features: Sequence[Hashable],
    target: Hashable,
    states: Mapping,
    ess: float,
    x: Mapping,
) -> dict:
    """``P(c, x | D)`` for every class ``c``: the Bayesian average over every TAN structure
    (the class a parent of each feature, a spanning tree over the features, uniform prior
    over the trees) of each structure's BDeu posterior-predictive joint, one equivalent
    sample size ``ess`` over the whole network (Cerquides & López de Màntaras 2005). Each
    tree of :func:`spanning_trees` is oriented away from ``features[0]``
    (:func:`tree_parents`; BDeu is score-equivalent, so the root does not matter), its
    posterior ``∝ prod of`` :func:`bdeu_family_log_ml` over its families and its
    predictive the product of :func:`bdeu_conditional`; ``d^(d-2)`` trees, so small ``d``
    only. ``P(c | x, D)`` is the returned values normalised.

    Examples
    --------
    One feature: one tree, ``θ_c θ_a|c`` with ``θ_c(0) = (1 + 2/2) / (3 + 2)`` and
    ``θ_a|c(0 | 0) = (1 + 2/4) / (1 + 2/2)``, so ``0.4 * 0.75``:

    >>> df = {"a": np.array([0, 0, 1]), "c": np.array([0, 1, 1])}
    >>> joint = bayesian_tan_joint(df, ["a"], "c", {"a": [0, 1], "c": [0, 1]}, 2.0, {"a": 0})
    >>> round(joint[0], 12)
    0.3
    """
    features = list(features)
    log_ml: dict = {}  # (child, parents) -> BDeu family log marginal likelihood
    trees, log_post = [], []
    for tree in spanning_trees(features):
        parent = tree_parents(tree, features[0], features)
        families = [(target, ())] + [
            (v, (target,) if p is None else (target, p)) for v, p in parent.items()
        ]
        for fam in families:
            if fam not in log_ml:
                log_ml[fam] = bdeu_family_log_ml(df, fam[0], list(fam[1]), states, ess)
        trees.append(families)
        log_post.append(sum(log_ml[fam] for fam in families))
    weights = np.exp(np.asarray(log_post) - _logsumexp(log_post))
    out = {}
    for c in states[target]:
        row = {**dict(x), target: c}
        cond: dict = {}
        total = 0.0
        for families, weight in zip(trees, weights):
            p = 1.0
            for fam in families:
                if fam not in cond:
                    cond[fam] = bdeu_conditional(df, fam[0], list(fam[1]), states, ess, row)
                p *= cond[fam]
            total += weight * p
        out[c] = float(total)
    return out


def sequential_log_evidence(
    values: Sequence[int], k: int, alpha: float, groups: Sequence[Hashable] | None = None
) -> float:
    """``log P(values)`` under a Dirichlet(``alpha``) multinomial over ``k`` states (one per
    group when ``groups`` gives each value's group), as the product of each value's
    predictive probability given the ones before it in its group (Pólya's urn): a second
    route to :func:`bdeu_family_log_ml`, without the closed form.

    Examples
    --------
    >>> round(float(np.exp(sequential_log_evidence([0, 0, 1], 2, 1.0))), 12)  # 1/2 2/3 1/4
    0.083333333333
    """
    groups = [()] * len(values) if groups is None else groups
    seen: dict = {}
    total = 0.0
    for key, v in zip(groups, values):
        cell = seen.setdefault(key, np.zeros(k))
        total += np.log((cell[v] + alpha) / (cell.sum() + k * alpha))
        cell[v] += 1
    return total


# ============================================================== Shapley values
def shapley_values(value: Callable[[frozenset], float], players: Sequence[Hashable]) -> dict:
    """Shapley values by the formula over every coalition: ``phi_j = sum_{S not j} |S|!
    (p - |S| - 1)! / p! (v(S + j) - v(S))``, ``value`` called with frozensets.

    Examples
    --------
    >>> shapley_values(lambda S: float(len(S) >= 2), "abc")  # majority of three
    {'a': 0.3333333333333333, 'b': 0.3333333333333333, 'c': 0.3333333333333333}
    """
    p = len(players)
    out = {}
    for j in players:
        others = [q for q in players if q != j]
        total = 0.0
        for r in range(p):
            for S in itertools.combinations(others, r):
                w = math.factorial(r) * math.factorial(p - r - 1) / math.factorial(p)
                total += w * (value(frozenset(S) | {j}) - value(frozenset(S)))
        out[j] = total
    return out


# ============================================================== Gaussian trees
def gaussian_tree_covariance(
    cov: np.ndarray, edges: Iterable[tuple], nodes: Sequence[Hashable] | None = None
) -> np.ndarray:
    """The covariance of the maximum-likelihood Gaussian tree with these edges, from a full
    covariance ``cov`` (axes in ``nodes`` order, default ``0 .. d-1``): the variances and
    the edges' covariances kept, every other entry ``sd_i sd_j`` times the product of the
    correlations along the tree path from ``i`` to ``j``.

    Examples
    --------
    >>> cov = np.array([[4.0, 1.0, 0.5], [1.0, 1.0, 0.5], [0.5, 0.5, 1.0]])
    >>> gaussian_tree_covariance(cov, [(0, 1), (1, 2)]).round(12)[0].tolist()  # 1 x 0.5 / 1
    [4.0, 1.0, 0.5]
    """
    nodes = list(range(len(cov))) if nodes is None else list(nodes)
    T = nx.Graph(list(edges))
    T.add_nodes_from(nodes)
    sd = np.sqrt(np.diag(cov))
    rho = cov / np.outer(sd, sd)
    idx = {v: j for j, v in enumerate(nodes)}
    S = np.empty_like(cov)
    for u in nodes:
        for v in nodes:
            path = nx.shortest_path(T, u, v)
            prod = np.prod([rho[idx[p], idx[q]] for p, q in itertools.pairwise(path)])
            S[idx[u], idx[v]] = sd[idx[u]] * sd[idx[v]] * prod
    return S


# ============================================================== conditional linear Gaussian trees
def _clg_gaussian(model: Any, assignment: Mapping) -> tuple[float, np.ndarray, np.ndarray]:
    """``(log P(discrete assignment), mean, covariance)`` of a CLG tree's continuous
    columns given every discrete column's state: ``X = a + B X + e`` gives
    ``(I - B)^-1``."""
    dm = model.discrete_model
    cont = list(model.continuous)
    log_p = 0.0
    if dm is not None:
        for v in dm.variables:
            ps = dm.parents(v)
            index = tuple(dm.states[p].index(assignment[p]) for p in ps)
            log_p += math.log(dm.cpt(v)[index + (dm.states[v].index(assignment[v]),)])
    p = len(cont)
    a, var, B = np.zeros(p), np.zeros(p), np.zeros((p, p))
    for j, v in enumerate(cont):
        node = model.graph.nodes[v]
        ps = model.parents(v)
        if ps and dm is not None and ps[0] in dm.variables:
            k = dm.states[ps[0]].index(assignment[ps[0]])
            a[j], var[j] = node["means"][k], node["variances"][k]
        else:
            a[j], var[j] = node["intercept"], node["variance"]
            if ps:
                B[j, cont.index(ps[0])] = node["coefficient"]
    inv = np.linalg.inv(np.eye(p) - B)
    return log_p, inv @ a, inv @ np.diag(var) @ inv.T


def clg_conditionals(model: Any, evidence: Mapping) -> tuple[float, list]:
    """A conditional linear Gaussian tree given evidence, by brute force: every discrete
    configuration agreeing with the evidence, its posterior weight ``P(d) N(observed
    cells; mean_d, cov_d)`` normalised, and the Gaussian of the unobserved continuous
    cells given it (the Schur complement). Returns ``log p(evidence)`` and a list of
    ``(assignment, weight, mean, covariance)`` (continuous cells in
    ``model.continuous`` order).

    The model is read through ``discrete_model`` (a discrete network or None),
    ``continuous``, ``parents`` and each continuous node's regression in ``graph.nodes``.
    """
    dm = model.discrete_model
    discrete = [] if dm is None else list(dm.variables)
    free = [v for v in discrete if v not in evidence]
    cont = list(model.continuous)
    seen = [j for j, v in enumerate(cont) if v in evidence]
    unseen = [j for j, v in enumerate(cont) if v not in evidence]
    values = np.array([float(evidence[cont[j]]) for j in seen])
    out = []
    for combo in itertools.product(*[dm.states[v] for v in free]) if dm else [()]:
        assignment = {
            **{v: evidence[v] for v in discrete if v in evidence},
            **dict(zip(free, combo)),
        }
        log_p, mean, cov = _clg_gaussian(model, assignment)
        m, S = mean[unseen], cov[np.ix_(unseen, unseen)]
        if seen:
            S_ss, S_us = cov[np.ix_(seen, seen)], cov[np.ix_(unseen, seen)]
            log_p += stats.multivariate_normal(mean[seen], S_ss).logpdf(values)
            K = S_us @ np.linalg.inv(S_ss)
            m, S = m + K @ (values - mean[seen]), S - K @ S_us.T
        out.append((assignment, log_p, m, S))
    total = float(np.logaddexp.reduce([log_p for _, log_p, _, _ in out]))
    return total, [(d, math.exp(log_p - total), m, S) for d, log_p, m, S in out]


def clg_log_density(model: Any, row: Mapping) -> float:
    """``log p(observed cells)`` of a CLG tree (cells ``None`` or absent are missing): a
    sum over the discrete states not observed, each term a SciPy multivariate normal of
    the observed continuous cells (:func:`clg_conditionals`)."""
    evidence = {v: x for v, x in row.items() if x is not None}
    return clg_conditionals(model, evidence)[0]


# ---------------------------------------------------------------- MDL cut points
def _mdl_entropy_bits(counts: Sequence[float]) -> float:
    total = sum(counts)
    return -sum(c / total * math.log2(c / total) for c in counts if c > 0)


def mdl_cut_points_brute(values: Sequence[float], classes: Sequence[int]) -> list[float]:
    """Fayyad and Irani's (IJCAI 1993) recursive MDL cut points, by trying every boundary
    of every segment in turn: the first cut of least weighted class entropy, taken if
    ``gain > (log2(N - 1) + log2(3^k - 2) - (k Ent(S) - k1 Ent(S1) - k2 Ent(S2))) / N``."""
    rows = sorted(zip(values, classes), key=lambda r: r[0])
    labels = sorted({c for _, c in rows})

    def counts(part: list) -> list[float]:
        return [float(sum(1 for _, c in part if c == label)) for label in labels]

    def cut(part: list) -> list[float]:
        n = len(part)
        if n < 2:
            return []
        best = None
        for i in range(n - 1):
            if part[i][0] == part[i + 1][0]:
                continue  # no boundary between equal values
            left, right = part[: i + 1], part[i + 1 :]
            e = (
                len(left) * _mdl_entropy_bits(counts(left))
                + len(right) * _mdl_entropy_bits(counts(right))
            ) / n
            if best is None or e < best[0]:
                best = (e, i, left, right)
        if best is None:
            return []
        e, i, left, right = best
        prior = _mdl_entropy_bits(counts(part))
        gain = prior - e
        if gain <= 0:
            return []
        k = sum(1 for c in counts(part) if c > 0)
        k1 = sum(1 for c in counts(left) if c > 0)
        k2 = sum(1 for c in counts(right) if c > 0)
        e1, e2 = _mdl_entropy_bits(counts(left)), _mdl_entropy_bits(counts(right))
        delta = math.log2(3**k - 2) - (k * prior - k1 * e1 - k2 * e2)
        if not gain > (math.log2(n - 1) + delta) / n:
            return []
        point = (part[i][0] + part[i + 1][0]) / 2
        return [*cut(left), point, *cut(right)]

    return cut(rows)


# ============================================================== cutset networks
def cutset_joint_rows(net: Any) -> tuple[np.ndarray, np.ndarray]:
    """Every complete row of a cutset network (state indices, ``itertools.product`` order
    over its columns) and its probability: the branch weights on the row's way down the
    OR-tree times its leaf tree's :func:`joint_probability_of_codes`, one row at a time.

    Independent of treelearn's inference: nothing but the nodes' weights and CPT entries.

    Examples
    --------
    >>> from treelearn.models._cutset import CutsetModel, Leaf, Split
    >>> leaf = Leaf(np.array([], dtype=np.int64), None)
    >>> net = CutsetModel(Split(0, np.array([0.25, 0.75]), [leaf, leaf]), ["a"], [[0, 1]])
    >>> rows, p = cutset_joint_rows(net)
    >>> rows.tolist(), p.tolist()
    ([[0], [1]], [0.25, 0.75])
    """
    cards = [len(net.states[c]) for c in net.columns]
    rows = np.array(list(itertools.product(*(range(k) for k in cards))), dtype=np.int64)
    p = np.empty(len(rows))
    for r, row in enumerate(rows):
        node, prob = net.root, 1.0
        while hasattr(node, "children"):
            prob *= float(node.weights[row[node.variable]])
            node = node.children[row[node.variable]]
        if node.tree is not None:
            prob *= joint_probability_of_codes(node.tree, [int(row[c]) for c in node.columns])
        p[r] = prob
    return rows.reshape(len(rows), len(cards)), p


def soft_posterior(
    rows: np.ndarray, p: np.ndarray, hard: Mapping[int, int], soft: Mapping[int, Sequence]
) -> np.ndarray:
    """Every complete row's posterior ``P(x) prod_v L_v(x_v)`` (rows disagreeing with the
    ``hard`` codes: 0), normalised; ``rows``/``p`` as :func:`cutset_joint_rows` gives them.

    >>> rows = np.array([[0], [1]]); p = np.array([0.5, 0.5])
    >>> soft_posterior(rows, p, {}, {0: [1.0, 3.0]}).tolist()
    [0.25, 0.75]
    """
    w = p.copy()
    for j, code in hard.items():
        w = w * (rows[:, j] == code)
    for j, lik in soft.items():
        w = w * np.asarray(lik, dtype=float)[rows[:, j]]
    return w / w.sum()


def class_arc_averaged_cpt(counts: Any, alpha: float = 1.0, arc_prior: float = 0.5) -> np.ndarray:
    """Naive Bayes's CPT of one feature under class-arc averaging (Dash and Cooper 2002), by
    hand: ``counts[c][x]``; each marginal likelihood a product of Dirichlet-multinomials
    from ``gammaln``, the arc's posterior Bayes's rule between them, the CPT
    ``p (N_cx + a) / (N_c + k a) + (1 - p) (N_x + a) / (N + k a)``.

    >>> bool(np.allclose(class_arc_averaged_cpt([[30, 0], [0, 30]]), [[1, 0], [0, 1]], atol=1e-1))
    True
    """
    n = np.asarray(counts, dtype=float)
    k = n.shape[1]

    def evidence(rows: np.ndarray) -> float:
        return float(
            sum(
                gammaln(k * alpha)
                - gammaln(k * alpha + r.sum())
                + sum(gammaln(alpha + r) - gammaln(alpha))
                for r in rows
            )
        )

    free = n.sum(axis=0, keepdims=True)
    odds = evidence(n) - evidence(free) + math.log(arc_prior) - math.log(1 - arc_prior)
    p = 1.0 / (1.0 + math.exp(-odds))
    given = (n + alpha) / (n.sum(axis=1, keepdims=True) + k * alpha)
    alone = (free + alpha) / (free.sum() + k * alpha)
    return p * given + (1 - p) * alone
