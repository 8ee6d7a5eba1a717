"""Exact queries on a mixture of trees: the posterior over components times each tree's.

For a mixture ``P(x) = sum_k w_k P_k(x)`` and evidence ``e`` (each given variable a
state), ``P(k | e) = w_k P_k(e) / sum_j w_j P_j(e)`` and

    P(X | e) = sum_k P(k | e) P_k(X | e),

each ``P_k(e)`` and ``P_k(X | e)`` from component ``k``'s engine (message passing on
its tree, missing values summed out). Conditional sampling draws each row's
component from ``P(k | e)``, then the row from ``P_k(. | e)``. A component that
gives the evidence probability zero takes no part; evidence impossible under every
component is refused, naming it. Likelihood (soft) evidence is not a state and is
refused here: a mixture needs ``P_k(e)``, which the engine gives for states.

>>> import pandas as pd, treelearn as tl
>>> mix = tl.TreeMixture(n_components=2, random_state=0).fit(pd.read_csv("datasets/asia.csv"))
>>> p = component_posterior(mix.components_, mix.weights_, {"smoke": "yes"})
>>> bool(abs(p.sum() - 1) < 1e-12)
True
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import ColumnNotFoundError, TreelearnError
from .._base.logspace import logsumexp
from ..models._tree import TreeModel

__all__ = [
    "component_posterior",
    "mixture_marginals",
    "mixture_predict_proba",
    "mixture_query",
    "mixture_sample",
]


def _log_evidence(component: TreeModel, evidence: Mapping[Hashable, Any]) -> float:
    """``log P_k(e)`` of hard evidence (a likelihood is refused, naming the variable)."""
    engine = component.engine()
    fixed = engine.codes_of(evidence)
    row = np.full((1, len(component.variables)), -1, dtype=np.int64)
    for i, s in fixed.items():
        row[0, i] = s
    return float(engine.log_evidence(row)[0])


def component_posterior(
    components: Sequence[TreeModel], weights: np.ndarray, evidence: Mapping[Hashable, Any] | None
) -> np.ndarray:
    """``P(component k | evidence)`` for every ``k`` (sums to 1)."""
    evidence = dict(evidence or {})
    with np.errstate(divide="ignore"):
        log_w = np.log(np.asarray(weights, dtype=float) / np.sum(weights))
    log_joint = log_w + np.array([_log_evidence(c, evidence) for c in components])
    total = logsumexp(log_joint)
    if not np.isfinite(total):
        given = ", ".join(f"{k}={v!r}" for k, v in evidence.items())
        raise TreelearnError(
            f"the evidence {given} has probability zero under every "
            f"component of the mixture; fix or drop a value"
        )
    return np.exp(log_joint - total)


def mixture_query(
    components: Sequence[TreeModel],
    weights: np.ndarray,
    variables: Sequence[Hashable],
    evidence: Mapping[Hashable, Any] | None,
) -> pd.Series:
    """``P(variables | evidence)`` as :meth:`TreeModel.query` returns it (one joint Series)."""
    post = component_posterior(components, weights, evidence)
    out = None
    for p, c in zip(post, components):
        if p > 0:
            part = p * c.query(list(variables), evidence=evidence)
            out = part if out is None else out + part
    return out


def mixture_marginals(
    components: Sequence[TreeModel], weights: np.ndarray, evidence: Mapping[Hashable, Any] | None
) -> dict:
    """``{variable: P(variable | evidence)}`` for every variable not given."""
    post = component_posterior(components, weights, evidence)
    out: dict = {}
    for p, c in zip(post, components):
        if p > 0:
            for v, series in c.marginals(evidence).items():
                out[v] = p * series if v not in out else out[v] + p * series
    return out


def mixture_predict_proba(
    components: Sequence[TreeModel], weights: np.ndarray, data: pd.DataFrame, target: Hashable
) -> pd.DataFrame:
    """``P(target | each row's other observed values)``: one column per state of
    ``target``, rows summing to 1 (missing cells and absent columns summed out)."""
    first = components[0]
    if target not in first.variables:
        raise ColumnNotFoundError(
            f"{target!r} is not a variable of the mixture; they are {first.variables[:20]}",
            column=target,
        )
    t = first.variables.index(target)
    with np.errstate(divide="ignore"):
        log_w = np.log(np.asarray(weights, dtype=float) / np.sum(weights))
    log_rows, posts = [], []
    for c in components:
        # absent columns are missing (summed out), as missing cells are
        codes = c.encode(data.reindex(columns=c.variables)).codes.astype(np.int64)
        codes[:, t] = -1
        engine = c.engine()
        log_rows.append(engine.log_evidence(codes))
        posts.append(engine.posterior_codes(codes, t))
    log_joint = log_w[None, :] + np.column_stack(log_rows)  # (n, k)
    total = logsumexp(log_joint, axis=1, keepdims=True)
    bad = ~np.isfinite(total[:, 0])
    if bad.any():
        raise TreelearnError(
            f"{int(bad.sum())} row(s) have probability zero under every "
            f"component, e.g. row {data.index[int(np.flatnonzero(bad)[0])]!r}"
        )
    resp = np.exp(log_joint - total)
    proba = sum(resp[:, [k]] * np.nan_to_num(p) for k, p in enumerate(posts))
    return pd.DataFrame(proba, columns=first.states[target], index=data.index)


def mixture_sample(
    components: Sequence[TreeModel],
    weights: np.ndarray,
    n: int,
    evidence: Mapping[Hashable, Any] | None,
    rng: np.random.Generator,
    numbers: bool = False,
) -> tuple[pd.DataFrame, np.ndarray]:
    """``n`` rows from ``P(. | evidence)`` and the component of each."""
    post = component_posterior(components, weights, evidence)
    per_component = rng.multinomial(n, post)
    parts = [
        c.sample(int(m), evidence=evidence, random_state=rng, numbers=numbers)
        for c, m in zip(components, per_component)
        if m > 0
    ]
    labels = np.repeat(np.arange(len(components)), per_component)
    X = (
        pd.concat(parts, ignore_index=True)
        if parts
        else components[0].sample(0, random_state=rng, numbers=numbers)
    )
    return X, labels
