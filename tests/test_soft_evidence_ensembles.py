"""Likelihood (soft) evidence on cutset networks, mixtures, bags of trees and bags of cutset
networks (issue 40): every answer against brute force over the full joint.

The oracle enumerates every complete row of a small model: a cutset network's probability
of a row is its branch weights down the OR-tree times its leaf tree's CPT entries
(:func:`oracles.cutset_joint_rows`), a mixture's is ``sum_k w_k P_k(x)``; the posterior
under evidence is ``P(x) prod_v L_v(x_v)`` restricted to the hard evidence, normalised
(:func:`oracles.soft_posterior`). Nothing goes through treelearn's inference.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from oracles import cutset_joint_rows, joint_probability_of_codes, soft_posterior

import treelearn as tl
from treelearn.models._cutset import CutsetModel, Split

#: posteriors are sums of at most 108 products of a few probabilities: round-off only
TOL = 1e-10
CARDS = {"a": 2, "b": 3, "c": 2, "d": 2, "e": 3}


def small_table(n: int = 600, seed: int = 0) -> pd.DataFrame:
    """Five dependent columns (2-3 states): a chain with noise, so trees and splits differ."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = (a + rng.integers(0, 2, n) * rng.integers(0, 3, n)) % 3
    c = np.where(rng.random(n) < 0.8, b % 2, 1 - b % 2)
    d = np.where(rng.random(n) < 0.7, a ^ c, rng.integers(0, 2, n))
    e = (b + d + (rng.random(n) < 0.3)) % 3
    return pd.DataFrame({k: [f"{k}{x}" for x in col] for k, col in zip("abcde", [a, b, c, d, e])})


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return small_table()


def joint_of(model) -> tuple[np.ndarray, np.ndarray, list]:
    """``(rows, P(row), variables)`` of every complete row of a tree, a cutset network or a
    mixture of either, by the oracles (no treelearn inference)."""
    if isinstance(model, tl.MixtureModel):
        parts = [joint_of(c) for c in model.components]
        rows = parts[0][0]
        p = sum(w * part[1] for w, part in zip(model.weights, parts))
        return rows, p, parts[0][2]
    if isinstance(model, CutsetModel):
        rows, p = cutset_joint_rows(model)
        return rows, p, list(model.columns)
    cards = [len(model.states[v]) for v in model.variables]
    rows = np.array(list(itertools.product(*(range(k) for k in cards))))
    p = np.array([joint_probability_of_codes(model, r) for r in rows])
    return rows, p, list(model.variables)


def split_evidence(model, evidence: dict) -> tuple[dict, dict]:
    """``(hard codes, soft vectors)`` by column index, labels looked up in the states."""
    variables = list(model.variables)
    hard, soft = {}, {}
    for v, s in evidence.items():
        states = model.states[v]
        if isinstance(s, dict):
            soft[variables.index(v)] = [float(s.get(t, 0.0)) for t in states]
        elif isinstance(s, list):
            soft[variables.index(v)] = s
        else:
            hard[variables.index(v)] = states.index(s)
    return hard, soft


def brute_query(model, variables: list, evidence: dict) -> np.ndarray:
    """``P(variables | evidence)`` flattened in the order of their joint states."""
    rows, p, names = joint_of(model)
    post = soft_posterior(rows, p, *split_evidence(model, evidence))
    cols = [names.index(v) for v in variables]
    sizes = [len(model.states[v]) for v in variables]
    flat = np.ravel_multi_index(rows[:, cols].T, sizes)
    return np.bincount(flat, weights=post, minlength=int(np.prod(sizes)))


def brute_map(model, evidence: dict) -> tuple[dict, float]:
    """The completion maximising ``P(x) prod L_v(x_v)`` over rows agreeing with the hard
    evidence, and the log of that maximum."""
    rows, p, names = joint_of(model)
    hard, soft = split_evidence(model, evidence)
    w = p.copy()
    for j, code in hard.items():
        w = w * (rows[:, j] == code)
    for j, lik in soft.items():
        w = w * np.asarray(lik)[rows[:, j]]
    best = int(np.argmax(w))
    out = {v: model.states[v][rows[best, j]] for j, v in enumerate(names) if j not in hard}
    return out, float(np.log(w[best]))


def cutset_models(data: pd.DataFrame) -> dict:
    """A cutset network of depth 2, and bags of 3 of them, of trees and of 2-tree mixtures."""
    net = tl.CutsetNetwork(max_depth=2, min_rows=20, penalty=None).fit(data).model_
    assert isinstance(net.root, Split) and net.depth == 2
    return {
        "cutset": net,
        "cutset bag": tl.CutsetNetwork(max_depth=2, min_rows=20, n_estimators=3, random_state=0)
        .fit(data)
        .model_,
        "bagged trees": tl.BaggedTrees(n_estimators=3, random_state=0).fit(data).model_,
        "bagged mixtures": tl.BaggedTrees(n_estimators=2, n_components=2, random_state=1)
        .fit(data)
        .model_,
        "mixture": tl.TreeMixture(n_components=3, random_state=0).fit(data).model_,
    }


@pytest.fixture(scope="module")
def models(data) -> dict:
    return cutset_models(data)


def evidence_sets(model) -> list[dict]:
    """Soft evidence on the root's conditioning variable (a cutset), on leaf variables,
    mixed with hard evidence, as a dict, with zero weights, and on the queried variable."""
    root = model.root.variable if isinstance(model, CutsetModel) else 1
    cond = list(model.variables)[root]
    k = len(model.states[cond])
    return [
        {cond: [0.2, 0.7, 0.1][:k]},
        {"e": [0.5, 2.0, 0.25], "d": "d1"},
        {cond: {model.states[cond][-1]: 3.0}, "a": [0.9, 0.1]},
        {"c": [0.0, 1.0], "e": [1.0, 0.0, 4.0], "b": [0.3, 0.3, 0.4]},
    ]


NAMES = ["cutset", "cutset bag", "bagged trees", "bagged mixtures", "mixture"]


@pytest.mark.parametrize("name", NAMES)
def test_query_with_soft_evidence_equals_brute_force(models, name):
    model = models[name]
    for evidence in evidence_sets(model):
        hard = [v for v, s in evidence.items() if not isinstance(s, (list, dict))]
        free = [v for v in model.variables if v not in hard]
        for q in free:  # a variable given a likelihood may be queried too
            got = model.query(q, evidence).to_numpy()
            np.testing.assert_allclose(got, brute_query(model, [q], evidence), rtol=0, atol=TOL)
        pair = free[:2]
        got = model.query(pair, evidence).to_numpy()
        np.testing.assert_allclose(got, brute_query(model, pair, evidence), rtol=0, atol=TOL)


@pytest.mark.parametrize("name", NAMES)
def test_marginals_with_soft_evidence_equal_brute_force(models, name):
    model = models[name]
    for evidence in evidence_sets(model):
        got = model.marginals(evidence)
        hard = {v for v, s in evidence.items() if not isinstance(s, (list, dict))}
        assert set(got) == set(model.variables) - hard  # a soft variable gets its posterior
        for v, series in got.items():
            np.testing.assert_allclose(
                series.to_numpy(), brute_query(model, [v], evidence), rtol=0, atol=TOL
            )


@pytest.mark.parametrize("name", ["cutset bag", "bagged trees", "bagged mixtures", "mixture"])
def test_component_posterior_weighs_each_member_by_its_soft_evidence(models, name):
    """``P(k | e) = w_k Z_k / sum_j w_j Z_j``, ``Z_k = sum_x P_k(x, hard) prod L(x)``."""
    model = models[name]
    for evidence in evidence_sets(model):
        z = []
        for c in model.components:
            rows, p, _ = joint_of(c)
            hard, soft = split_evidence(model, evidence)
            w = p.copy()
            for j, code in hard.items():
                w = w * (rows[:, j] == code)
            for j, lik in soft.items():
                w = w * np.asarray(lik)[rows[:, j]]
            z.append(w.sum())
        want = model.weights * np.array(z)
        np.testing.assert_allclose(
            model.component_posterior(evidence), want / want.sum(), rtol=0, atol=TOL
        )


def test_cutset_map_query_with_soft_evidence_equals_brute_force(models):
    net = models["cutset"]
    for evidence in evidence_sets(net):
        best, log_p = net.map_query(evidence, return_log_prob=True)
        want, want_log_p = brute_map(net, evidence)
        assert best == want
        assert abs(log_p - want_log_p) < 1e-9


@pytest.mark.parametrize("name", ["cutset", "cutset bag", "bagged trees"])
def test_sampling_with_soft_evidence_follows_the_posterior(models, name):
    """20,000 draws given soft evidence: every joint state of (b, e) within 5 standard
    errors of its exact posterior (a false alarm in about 1 in 10^5 runs, seeds fixed)."""
    model = models[name]
    evidence = {"b": [0.2, 0.7, 0.1], "e": [0.5, 2.0, 0.25], "d": "d1"}
    n = 20_000
    drawn = model.sample(n, evidence=evidence, random_state=3)
    assert (drawn["d"] == "d1").all()
    want = brute_query(model, ["b", "e"], evidence)
    codes = [
        model.states["b"].index(b) * 3 + model.states["e"].index(e)
        for b, e in zip(drawn["b"], drawn["e"])
    ]
    freq = np.bincount(codes, minlength=9) / n
    se = np.sqrt(want * (1 - want) / n)
    assert (np.abs(freq - want) <= 5 * se + 1e-12).all(), (freq, want)


@pytest.mark.parametrize("name", NAMES)
def test_one_hot_likelihood_is_the_state_and_scale_does_not_matter(models, name):
    """Identities: a likelihood putting all weight on one state answers as that state given;
    multiplying a likelihood by a constant changes nothing."""
    model = models[name]
    hard = model.query("a", {"e": "e2", "c": "c0"}).to_numpy()
    one_hot = model.query("a", {"e": [0.0, 0.0, 1.0], "c": {"c0": 7.0}}).to_numpy()
    np.testing.assert_allclose(one_hot, hard, rtol=0, atol=TOL)
    once = model.query("b", {"e": [0.5, 2.0, 0.25]}).to_numpy()
    scaled = model.query("b", {"e": [50.0, 200.0, 25.0]}).to_numpy()
    np.testing.assert_allclose(scaled, once, rtol=0, atol=TOL)


@pytest.mark.parametrize("name", NAMES)
def test_the_estimators_take_soft_evidence(data, name):
    """The estimators' own ``query`` (what the issue found refused) goes to the model."""
    est = {
        "cutset": tl.CutsetNetwork(max_depth=2, min_rows=20, penalty=None),
        "cutset bag": tl.CutsetNetwork(max_depth=2, min_rows=20, n_estimators=3, random_state=0),
        "bagged trees": tl.BaggedTrees(n_estimators=3, random_state=0),
        "bagged mixtures": tl.BaggedTrees(n_estimators=2, n_components=2, random_state=1),
        "mixture": tl.TreeMixture(n_components=3, random_state=0),
    }[name].fit(data)
    evidence = {"b": [0.2, 0.7, 0.1], "d": "d1"}
    np.testing.assert_allclose(
        est.query("e", evidence=evidence).to_numpy(),
        brute_query(est.model_, ["e"], evidence),
        rtol=0,
        atol=TOL,
    )


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("value", "words"),
    [
        ([0.5, -1.0, 0.5], "negative weight"),
        ([0.5, 0.5], "2 weight(s) for 3 states"),
        ([0.0, 0.0, 0.0], "all zero"),
        ([float("nan"), 1.0, 1.0], "not finite"),
        ({"e9": 1.0}, "e9"),
    ],
)
def test_bad_likelihoods_are_refused_naming_the_variable(models, name, value, words):
    with pytest.raises(tl.TreelearnError, match="'e'") as info:
        models[name].query("a", {"e": value})
    assert words in str(info.value)


@pytest.mark.parametrize("name", ["cutset", "cutset bag", "mixture"])
def test_soft_evidence_impossible_with_the_hard_is_refused(name):
    """A likelihood that weighs only states the hard evidence rules out (alpha = 0: zeros in
    the tables) is evidence of probability zero: a TreelearnError, no NaN."""
    df = pd.DataFrame({"x": ["x0", "x1"] * 50, "y": ["y0", "y1"] * 50, "z": ["z0"] * 100})
    est = {
        "cutset": tl.CutsetNetwork(max_depth=1, min_rows=2, alpha=0),
        "cutset bag": tl.CutsetNetwork(max_depth=1, min_rows=2, alpha=0, n_estimators=2),
        "mixture": tl.TreeMixture(n_components=2, alpha=0, random_state=0),
    }[name].fit(df)
    with pytest.raises(tl.TreelearnError, match="probability zero"):
        est.model_.query("z", {"x": "x0", "y": [0.0, 1.0]})


def test_dag_component_log_evidence_with_soft_evidence_by_elimination():
    """A network that is no forest scores soft evidence by variable elimination (it was
    refused as 'per-row likelihoods'): against brute force."""
    from test_general_inference import general_model

    model = general_model(seed=2)
    assert model.inference_path == "variable elimination"
    engine = model.engine()
    row = np.full((1, len(model.variables)), -1)
    row[0, model.variables.index("g")] = 1
    soft = {model.variables.index("b"): np.array([0.2, 0.5, 1.5])}
    cards = [len(model.states[v]) for v in model.variables]
    rows = np.array(list(itertools.product(*(range(k) for k in cards))))
    p = np.array([joint_probability_of_codes(model, r) for r in rows])
    keep = rows[:, model.variables.index("g")] == 1
    want = np.log((p * keep * soft[1][rows[:, 1]]).sum())
    assert abs(engine.log_evidence(row, soft)[0] - want) < 1e-12
