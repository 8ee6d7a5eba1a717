"""Soft (virtual, likelihood) evidence against pgmpy's ``virtual_evidence`` and brute force.

A likelihood ``L`` on a variable ``v`` weighs every assignment ``x`` by ``L(x_v)``: the
posterior is ``P(x) prod L_v(x_v)`` normalised (pgmpy's virtual evidence, pyAgrum's
soft evidence). Every path of the engine takes it: rerooted one-variable queries fall
back to the subtree pass, TAN's conditioner, and variable elimination on other DAGs.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from oracles import evidence_weights

import treelearn as tl

ASIA = pd.read_csv("datasets/asia.csv")


def virtual(variable, weights, states):
    from pgmpy.factors.discrete import TabularCPD

    return TabularCPD(
        variable, len(weights), [[w] for w in weights], state_names={variable: list(states)}
    )


def pgmpy_query(model, variables, evidence, soft):
    from pgmpy.inference import VariableElimination

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ve = VariableElimination(model.to_pgmpy())
        q = ve.query(
            variables,
            evidence=evidence or None,
            show_progress=False,
            joint=True,
            virtual_evidence=[virtual(v, w, model.states[v]) for v, w in soft.items()],
        )
    return q.values


@pytest.fixture(scope="module")
def models():
    X, y = ASIA.drop(columns="either"), ASIA["either"]
    return {
        "tree": tl.chow_liu(ASIA),  # rerooted queries
        "tan": tl.TAN().fit(X, y).model_,  # a conditioner
        "kdb": tl.KDB(k=2).fit(X, y).model_,  # variable elimination
    }


CASES = [
    ({"smoke": [0.3, 0.9]}, {}),
    ({"smoke": [0.3, 0.9], "dysp": [1.0, 0.1]}, {"asia": "yes"}),
    ({"either": [0.2, 0.7]}, {"xray": "yes"}),
]


@pytest.mark.parametrize("name", ["tree", "tan", "kdb"])
@pytest.mark.parametrize("soft,hard", CASES)
def test_query_and_marginals_equal_pgmpy_virtual_evidence(models, name, soft, hard):
    m = models[name]
    evidence = {**hard, **soft}
    for target in ["lung", "smoke", "either"]:
        if target in hard:
            continue
        expected = pgmpy_query(m, [target], hard, soft)
        got = m.query(target, evidence=evidence).to_numpy()
        np.testing.assert_allclose(got, expected, atol=1e-12)
    expected = pgmpy_query(m, ["lung", "tub"], hard, soft)
    np.testing.assert_allclose(
        m.query(["lung", "tub"], evidence=evidence).to_numpy(), expected.ravel(), atol=1e-12
    )
    marginals = m.marginals(evidence)
    assert set(marginals) == set(m.variables) - set(hard)  # soft variables get posteriors
    for v in ["smoke", "bronc"]:
        np.testing.assert_allclose(
            marginals[v].to_numpy(), pgmpy_query(m, [v], hard, soft), atol=1e-12
        )


@pytest.mark.parametrize("name", ["tree", "tan", "kdb"])
def test_map_query_is_the_brute_force_argmax(models, name):
    m = models[name]
    soft = {"smoke": np.array([0.05, 1.0]), "lung": np.array([1.0, 0.001])}
    hard = {"dysp": "yes"}
    weights = evidence_weights(m, hard, soft)
    best = max(weights, key=weights.get)
    assignment, log_p = m.map_query({**hard, **soft}, return_log_prob=True)
    states = m.states
    assert assignment == {v: states[v][c] for v, c in zip(m.variables, best) if v not in hard}
    assert log_p == pytest.approx(np.log(weights[best]), abs=1e-10)


@pytest.mark.parametrize("name", ["tree", "kdb"])
def test_sampling_given_a_likelihood(models, name):
    m = models[name]
    soft = {"smoke": {"yes": 0.9, "no": 0.1}}
    rows = m.sample(20_000, evidence=soft, random_state=0)
    expected = m.query("lung", evidence=soft)
    share = (rows["lung"] == "yes").mean()
    p = expected["yes"]
    assert abs(share - p) < 4 * np.sqrt(p * (1 - p) / len(rows))
    assert (rows["smoke"] == "yes").mean() == pytest.approx(
        m.query("smoke", evidence=soft)["yes"], abs=0.02
    )


def test_a_one_hot_likelihood_is_hard_evidence(models):
    m = models["tree"]
    hard = m.query("lung", evidence={"smoke": "yes"}).to_numpy()
    soft = m.query("lung", evidence={"smoke": {"yes": 3.0}}).to_numpy()
    np.testing.assert_allclose(soft, hard, atol=1e-14)


def test_a_likelihood_on_the_queried_variable(models):
    m = models["tree"]
    prior = m.query("smoke").to_numpy()
    got = m.query("smoke", evidence={"smoke": [1.0, 3.0]}).to_numpy()
    expected = prior * [1.0, 3.0] / (prior * [1.0, 3.0]).sum()
    np.testing.assert_allclose(got, expected, atol=1e-14)
    with pytest.raises(tl.TreelearnError, match="both queried and given"):
        m.query("smoke", evidence={"smoke": "yes"})


@pytest.mark.parametrize(
    "bad,match",
    [
        ([0.5, -0.1], "negative weight"),
        ([0.5, np.nan], "not finite"),
        ([1.0, 2.0, 3.0], "3 weight"),
        ([0.0, 0.0], "all zero"),
        ({"maybe": 1.0}, "maybe"),
        (["a", "b"], "not numbers"),
        ({"yes": "x"}, "not a number"),
    ],
)
def test_bad_likelihoods_name_the_variable_and_the_fix(models, bad, match):
    m = models["tree"]
    with pytest.raises(tl.TreelearnError, match=match) as info:
        m.query("lung", evidence={"smoke": bad})
    assert "smoke" in str(info.value)
    if match != "maybe":
        assert "give one non-negative weight per state" in str(info.value)
    for call in (
        lambda: m.marginals({"smoke": bad}),
        lambda: m.map_query({"smoke": bad}),
        lambda: m.sample(3, evidence={"smoke": bad}),
    ):
        with pytest.raises(tl.TreelearnError):
            call()


def test_unknown_variable_and_impossible_soft_evidence():
    m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}), root="a", alpha=0)
    with pytest.raises(tl.ColumnNotFoundError, match="'nope' is not a variable"):
        m.query("b", evidence={"nope": [0.5, 0.5]})
    # P(b = 1 | a = 0) = 0: a likelihood that allows only b = 1, with a = 0, is impossible
    with pytest.raises(tl.TreelearnError, match="probability zero"):
        m.marginals({"a": 0, "b": {1: 1.0}})
    with pytest.raises(tl.TreelearnError, match="a likelihood"):
        m.map_query({"a": 0, "b": [0.0, 1.0]})
