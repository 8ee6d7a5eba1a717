"""Entropy, mutual information, KL divergence and value of information of a model,
against brute-force enumeration of its joint (asia: 8 binary variables, 256 assignments)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import distribution_entropy, labelled_posterior, marginal_of

import treelearn as tl

ASIA = pd.read_csv("datasets/asia.csv")


@pytest.fixture(scope="module")
def models():
    X, y = ASIA.drop(columns="either"), ASIA["either"]
    return {
        "tree": tl.chow_liu(ASIA),
        "tan": tl.TAN().fit(X, y).model_,
        "kdb": tl.KDB(k=2).fit(X, y).model_,
        "ml": tl.chow_liu(ASIA, alpha=0),
    }


EVIDENCE = [({}, {}), ({"asia": "yes"}, {}), ({"xray": "yes"}, {"smoke": [0.2, 0.9]})]


@pytest.mark.parametrize("name", ["tree", "tan", "kdb", "ml"])
@pytest.mark.parametrize("hard,soft", EVIDENCE)
def test_entropy_equals_enumeration(models, name, hard, soft):
    m = models[name]
    table, _ = labelled_posterior(m, hard, soft)
    assert m.entropy({**hard, **soft}) == pytest.approx(distribution_entropy(table), abs=1e-12)


@pytest.mark.parametrize("name", ["tree", "kdb"])
@pytest.mark.parametrize("hard,soft", EVIDENCE)
def test_mutual_information_equals_enumeration(models, name, hard, soft):
    m = models[name]
    table, variables = labelled_posterior(m, hard, soft)
    ev = {**hard, **soft}
    for X, Y, Z in [
        ("lung", "dysp", []),
        ("tub", "bronc", ["either"]),
        (["lung", "bronc"], "dysp", ["smoke"]),
    ]:
        xs = X if isinstance(X, list) else [X]
        ys = Y if isinstance(Y, list) else [Y]
        expected = (
            distribution_entropy(marginal_of(table, variables, xs + Z))
            + distribution_entropy(marginal_of(table, variables, ys + Z))
            - distribution_entropy(marginal_of(table, variables, xs + ys + Z))
            - (distribution_entropy(marginal_of(table, variables, Z)) if Z else 0.0)
        )
        got = m.mutual_information(X, Y, given=Z or None, evidence=ev)
        assert got == pytest.approx(expected, abs=1e-12)
        assert got >= 0.0


def test_kl_divergence_equals_enumeration(models):
    pairs = [("tree", "tan"), ("tan", "tree"), ("kdb", "tree"), ("tree", "kdb")]
    for a, b in pairs:
        P, Q = models[a], models[b]
        tp, vp = labelled_posterior(P)
        tq, vq = labelled_posterior(Q)
        expected = sum(
            p * (np.log(p) - np.log(tq[tuple(k[vp.index(v)] for v in vq)]))
            for k, p in tp.items()
            if p > 0
        )
        assert tl.kl_divergence(P, Q) == pytest.approx(expected, abs=1e-12)
    assert tl.kl_divergence(models["tree"], models["tree"]) == 0.0


def test_kl_divergence_infinite_and_state_order():
    df = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]})
    p = tl.chow_liu(df, alpha=1)
    q = tl.chow_liu(df, alpha=0)  # P(b = 1 | a = 0) = 0 under q, not under p
    assert tl.kl_divergence(p, q) == float("inf")
    assert np.isfinite(tl.kl_divergence(q, p))
    flipped = tl.chow_liu(df, states={"a": [1, 0], "b": [0, 1]})
    assert tl.kl_divergence(p, flipped) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(tl.StructureError, match="same variables"):
        tl.kl_divergence(p, tl.chow_liu(df[["a"]]))
    with pytest.raises(tl.StructureError, match="states"):
        tl.kl_divergence(p, tl.chow_liu(df, states={"a": [0, 1, 2]}))


@pytest.mark.parametrize("name", ["tree", "tan", "kdb"])
@pytest.mark.parametrize("hard,soft", EVIDENCE)
def test_most_informative_equals_enumeration(models, name, hard, soft):
    m = models[name]
    table, variables = labelled_posterior(m, hard, soft)
    target = "lung"
    ranked = m.most_informative(target, {**hard, **soft})
    expected = {}
    h_t = distribution_entropy(marginal_of(table, variables, [target]))
    for x in variables:
        if x == target or x in hard:
            continue
        h_tx = distribution_entropy(marginal_of(table, variables, [target, x]))
        expected[x] = h_t + distribution_entropy(marginal_of(table, variables, [x])) - h_tx
    assert set(ranked.index) == set(expected)
    for x, value in ranked.items():
        assert value == pytest.approx(expected[x], abs=1e-12)
    assert list(ranked.to_numpy()) == sorted(ranked.to_numpy(), reverse=True)
    some = m.most_informative(target, {**hard, **soft}, candidates=["dysp", "tub"])
    assert list(some.index) == sorted(["dysp", "tub"], key=lambda v: -expected[v])


def test_bad_input(models):
    m = models["tree"]
    with pytest.raises(tl.TreelearnError, match="also given a state"):
        m.most_informative("lung", {"lung": "yes"})
    with pytest.raises(tl.TreelearnError, match="candidate 'smoke' is observed"):
        m.most_informative("lung", {"smoke": "yes"}, candidates=["smoke"])
    with pytest.raises(tl.ColumnNotFoundError, match="'nope'"):
        m.most_informative("nope")
    with pytest.raises(tl.ColumnNotFoundError, match="'nope'"):
        m.mutual_information("lung", "nope")
    with pytest.raises(tl.TreelearnError, match="share"):
        m.mutual_information("lung", "lung")
    with pytest.raises(tl.TreelearnError, match="given a state in evidence"):
        m.mutual_information("lung", "dysp", evidence={"dysp": "yes"})
    with pytest.raises(tl.TreelearnError, match="negative weight"):
        m.entropy({"smoke": [1, -1]})
    zero = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}), root="a", alpha=0)
    with pytest.raises(tl.TreelearnError, match="probability zero"):
        zero.entropy({"a": 0, "b": 1})
