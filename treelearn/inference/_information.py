"""Information on the model itself (not on data): entropy, mutual information, KL
divergence, and the value of information, exactly, with the engine.

* **entropy** of the posterior ``q(x) = P(x, e) prod_v L_v(x_v) / Z`` over the variables
  not given a state: ``log q = sum_v log CPT_v(x_v | x_pa) + sum log L - log Z``, a sum over
  families, so ``H(q) = log Z - sum_v E_q[log CPT_v] - sum E_q[log L]`` needs only every
  family's posterior (one collect and one distribute,
  :meth:`~treelearn.inference._engine.TreeEngine.family_posteriors_codes`) — no joint;
* **mutual information** ``I(X; Y | Z, e)`` from one joint posterior table of ``X``, ``Y``
  and ``Z`` (the engine's query): ``H(XZ) + H(YZ) - H(XYZ) - H(Z)``;
* **KL divergence** between two networks on the same variables,
  ``KL(P || Q) = -H(P) - sum_v E_P[log Q(x_v | x_pa_Q(v))]``: ``P``'s entropy by families,
  and for each of ``Q``'s families ``P``'s marginal over it (a pair on a tree) — a sum over
  families, no joint;
* **value of information** of each unobserved variable ``X`` for a target ``T``: the
  expected reduction of ``T``'s entropy by observing it, ``I(T; X | e) = sum_t P(t | e)
  KL(P(X | t, e) || P(X | e))``, for every candidate at once from one engine pass over
  ``k_T + 1`` evidence rows (every marginal given each state of ``T``).

Natural logarithms (nats). Quantities that are non-negative by construction are
clipped at 0 (round-off).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._base.errors import ColumnNotFoundError, StructureError, TreelearnError
from .._base.limits import check_memory
from .._base.validation import require_network

if TYPE_CHECKING:
    from ..models._tree import TreeModel
    from ._engine import TreeEngine

__all__ = ["entropy", "kl_divergence", "most_informative", "mutual_information"]


def _plogp(p: np.ndarray, logq: np.ndarray) -> float:
    """``sum p log q`` with ``0 log 0 = 0`` (``-inf`` where ``p > 0`` meets ``q = 0``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * logq, 0.0)
    return float(terms.sum())


def _table_entropy(p: np.ndarray) -> float:
    with np.errstate(divide="ignore"):
        return max(-_plogp(p, np.log(p)), 0.0)


def entropy(engine: TreeEngine, evidence: Mapping[Hashable, Any] | None = None) -> float:
    """``H(X_U | e)`` in nats: the entropy of the posterior over every variable not given a
    state in ``evidence`` (states or likelihoods, as the engine takes them).

    >>> import numpy as np
    >>> from treelearn.inference._engine import TreeEngine
    >>> e = TreeEngine(["a", "b"], {"a": [], "b": ["a"]},
    ...                {"a": np.array([0.5, 0.5]), "b": np.array([[1.0, 0.0], [0.5, 0.5]])},
    ...                {"a": [0, 1], "b": [0, 1]})
    >>> round(entropy(e), 6), round(float(1.5 * np.log(2)), 6)   # P(a,b) = 1/2, 0, 1/4, 1/4
    (1.039721, 1.039721)
    """
    hard, soft = engine.evidence_of(evidence)
    row = np.full((1, len(engine.variables)), -1, dtype=np.int64)
    for j, c in hard.items():
        row[0, j] = c
    log_z, families = engine.family_posteriors_codes(row, soft)
    if not np.isfinite(log_z[0]):
        raise engine.impossible(dict(evidence or {}))
    total = float(log_z[0])
    for v, family in zip(engine.variables, families):
        with np.errstate(divide="ignore"):
            total -= _plogp(family[0], np.log(engine.cpts[v]))
    for j, likelihood in soft.items():
        marginal = families[j][0]
        marginal = marginal.reshape(-1, marginal.shape[-1]).sum(axis=0)
        with np.errstate(divide="ignore"):
            total -= _plogp(marginal, np.log(likelihood))
    return max(total, 0.0)


def _as_list(variables: Any, engine: TreeEngine, what: str) -> list:
    if variables is None:
        return []
    if isinstance(variables, (list, tuple, set, frozenset)) and not (
        isinstance(variables, tuple) and variables in engine.index
    ):
        out = list(variables)
    else:
        out = [variables]
    for v in out:
        if v not in engine.index:
            raise ColumnNotFoundError(
                f"{what} {v!r} is not a variable of the model; the "
                f"variables are {engine.variables}",
                column=v,
            )
    return out


def mutual_information(
    engine: TreeEngine,
    X: Any,
    Y: Any,
    given: Any = None,
    evidence: Mapping[Hashable, Any] | None = None,
) -> float:
    """``I(X; Y | given, evidence)`` in nats, exactly: ``X``, ``Y`` and ``given`` are a
    variable or a list of them; ``given`` is summed over its states (conditional mutual
    information), ``evidence`` fixed (states or likelihoods).

    >>> import numpy as np
    >>> from treelearn.inference._engine import TreeEngine
    >>> e = TreeEngine(["a", "b"], {"a": [], "b": ["a"]},
    ...                {"a": np.array([0.5, 0.5]), "b": np.array([[1.0, 0.0], [0.0, 1.0]])},
    ...                {"a": [0, 1], "b": [0, 1]})
    >>> round(mutual_information(e, "a", "b") / float(np.log(2)), 12)   # b copies a: one bit
    1.0
    """
    xs, ys = _as_list(X, engine, "X"), _as_list(Y, engine, "Y")
    zs = _as_list(given, engine, "given")
    hard, soft = engine.evidence_of(evidence)
    named = xs + ys + zs
    if not xs or not ys:
        raise TreelearnError("mutual_information needs at least one variable in X and in Y")
    if len(set(named)) != len(named):
        raise TreelearnError(
            f"X, Y and given must not share variables; got X={xs}, Y={ys}, given={zs}"
        )
    observed = [v for v in named if engine.index[v] in hard]
    if observed:
        raise TreelearnError(
            f"{observed} are given a state in evidence: their information is "
            f"0; leave them out of X, Y and given (or out of evidence)",
            column=observed[0],
        )
    size = int(np.prod([engine.card[engine.index[v]] for v in named], dtype=float))
    check_memory(8.0 * size, f"the joint posterior of {named}", "ask about fewer variables")
    table = engine.query_codes([engine.index[v] for v in named], hard, soft)
    if not table.any():
        raise engine.impossible(dict(evidence or {}))
    nx_, ny, nz = len(xs), len(ys), len(zs)
    axes_x = tuple(range(nx_))
    axes_y = tuple(range(nx_, nx_ + ny))
    h_xyz = _table_entropy(table)
    h_xz = _table_entropy(table.sum(axis=axes_y))
    h_yz = _table_entropy(table.sum(axis=axes_x))
    h_z = _table_entropy(table.sum(axis=axes_x + axes_y)) if nz else 0.0
    return max(h_xz + h_yz - h_xyz - h_z, 0.0)


def kl_divergence(p: TreeModel, q: TreeModel) -> float:
    """``KL(P || Q)`` in nats between two networks over the same variables and states
    (any DAGs; states matched by label): ``sum_x P(x) log(P(x) / Q(x))``, exactly, as a sum
    over families — ``-H(P)`` from ``P``'s family posteriors, and for each family of ``Q``,
    ``P``'s marginal over it (one query each; a pair on a tree). ``inf`` where ``Q`` gives
    probability zero to something ``P`` does not.

    Parameters
    ----------
    p, q : TreeModel or fitted classifier
        Discrete networks over the same variables and states.

    Returns
    -------
    float
        ``KL(P || Q) >= 0`` in nats (0 when they are equal; ``inf`` possible).

    Raises
    ------
    InputTypeError
        ``p`` or ``q`` is not a discrete network.
    TreelearnError
        Their variables or states differ.

    See Also
    --------
    TreeModel.log_likelihood : the sample estimate ``mean(log P(x) - log Q(x))``.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> tree = tl.chow_liu(df)
    >>> tl.kl_divergence(tree, tree)
    0.0
    >>> bool(tl.kl_divergence(tree, tl.chow_liu(df, alpha=10)) > 0)
    True
    """
    require_network(p, "kl_divergence")
    require_network(q, "kl_divergence")
    if set(p.variables) != set(q.variables) or len(p.variables) != len(q.variables):
        raise StructureError(
            f"kl_divergence needs two models over the same variables; P has "
            f"{sorted(map(str, p.variables))[:10]}, Q has {sorted(map(str, q.variables))[:10]}"
        )
    p_states, q_states = p.states, q.states
    order: dict = {}
    for v in p.variables:
        if sorted(map(repr, p_states[v])) != sorted(map(repr, q_states[v])) or len(
            p_states[v]
        ) != len(q_states[v]):
            raise StructureError(
                f"variable {v!r} has the states {p_states[v]} in P but {q_states[v]} in Q; "
                f"give both models the same states (e.g. learn with states=...)",
                column=v,
            )
        order[v] = [q_states[v].index(s) for s in p_states[v]]  # Q's axis in P's state order
    engine = p.engine()
    # P's family posteriors (no evidence) serve both sums where Q's family of v is P's, so
    # the two sums are made of the same floats for the same model and KL(P || P) is 0
    # exactly, not round-off of either sign; other families of Q are one query each.
    _, families = engine.family_posteriors_codes(
        np.full((1, len(engine.variables)), -1, dtype=np.int64)
    )
    own = cross = 0.0
    for v in q.variables:
        i = engine.index[v]
        p_family = [*p.parents(v), v]
        q_family = [*q.parents(v), v]
        with np.errstate(divide="ignore"):
            own += _plogp(families[i][0], np.log(engine.cpts[v]))
            if set(p_family) == set(q_family):
                table = families[i][0].transpose([p_family.index(u) for u in q_family])
            else:
                table = engine.query_codes([engine.index[u] for u in q_family], {})
            cpt = q.cpt(v)
            for axis, u in enumerate(q_family):
                cpt = np.take(cpt, order[u], axis=axis)
            cross += _plogp(table, np.log(cpt))
    if cross == -np.inf:
        return float("inf")
    return max(own - cross, 0.0)


def most_informative(
    engine: TreeEngine,
    target: Hashable,
    evidence: Mapping[Hashable, Any] | None = None,
    candidates: Sequence[Hashable] | None = None,
) -> pd.Series:
    """The variables not yet observed ranked by the information they would give about
    ``target``: ``I(T; X | e)``, the expected reduction of ``H(T | e)`` by observing ``X``
    (nats; largest first, ties in the model's variable order).

    One engine pass over ``k_T + 1`` rows of evidence (the evidence, and the evidence
    with ``T = t`` for each state ``t``) gives ``P(X | e)`` and every ``P(X | t, e)``; then
    ``I(T; X | e) = sum_t P(t | e) sum_x P(x | t, e) log(P(x | t, e) / P(x | e))``.
    ``candidates`` (default: every variable but the target and those given a state) must
    not be observed; a variable with a likelihood may be a candidate.

    >>> import numpy as np
    >>> from treelearn.inference._engine import TreeEngine
    >>> e = TreeEngine(["t", "copy", "noise"], {"t": [], "copy": ["t"], "noise": ["t"]},
    ...                {"t": np.array([0.5, 0.5]), "copy": np.eye(2),
    ...                 "noise": np.full((2, 2), 0.5)}, {v: [0, 1] for v in ["t", "copy", "noise"]})
    >>> (most_informative(e, "t") / np.log(2)).round(12).to_dict()   # bits
    {'copy': 1.0, 'noise': 0.0}
    """
    if target not in engine.index:
        raise ColumnNotFoundError(
            f"target {target!r} is not a variable of the model; the "
            f"variables are {engine.variables}",
            column=target,
        )
    hard, soft = engine.evidence_of(evidence)
    t = engine.index[target]
    if t in hard:
        raise TreelearnError(
            f"the target {target!r} is also given a state in evidence: there "
            f"is nothing left to learn about it; drop it from evidence",
            column=target,
        )
    if candidates is None:
        cols = [j for j in range(len(engine.variables)) if j != t and j not in hard]
    else:
        cols = []
        for v in candidates:
            if v not in engine.index:
                raise ColumnNotFoundError(
                    f"candidate {v!r} is not a variable of the model; the "
                    f"variables are {engine.variables}",
                    column=v,
                )
            j = engine.index[v]
            if j == t or j in hard:
                raise TreelearnError(
                    f"candidate {v!r} is {'the target' if j == t else 'observed'}"
                    f": leave it out of candidates",
                    column=v,
                )
            cols.append(j)
    k = engine.card[t]
    rows = np.full((k + 1, len(engine.variables)), -1, dtype=np.int64)
    for j, c in hard.items():
        rows[:, j] = c
    rows[1:, t] = np.arange(k)
    marginals = engine.marginals_codes(rows, soft)
    p_t = marginals[t][0]
    if not np.isfinite(p_t).all():
        raise engine.impossible(dict(evidence or {}))
    values = np.zeros(len(cols))
    for i, j in enumerate(cols):
        before = marginals[j][0]
        after = marginals[j][1:]  # (k, k_x): P(x | t, e), NaN where P(t | e) = 0
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(after > 0, after * (np.log(after) - np.log(before)), 0.0)
        values[i] = float(np.where(p_t > 0, terms.sum(axis=1), 0.0) @ p_t)
    out = pd.Series(
        np.maximum(values, 0.0),
        name="information",
        index=pd.Index([engine.variables[j] for j in cols], name="variable", tupleize_cols=False),
    )
    return out.iloc[np.argsort(-out.to_numpy(), kind="stable")]
