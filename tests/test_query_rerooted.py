"""Single-variable queries on trees and forests (answered by rerooting the tree at the
queried variable and passing messages along the evidence paths only) against
brute-force enumeration of the joint, exhaustively over query and evidence positions:
evidence on different branches, below and above the query, in another tree of a
forest, states of probability zero, impossible evidence, evidence labels of mixed
kinds, and a chain long enough that the evidence probability underflows.
"""

from __future__ import annotations

import itertools
import warnings

import networkx as nx
import numpy as np
import pytest
from conftest import random_tree_network
from oracles import joint_table, marginal_table, restrict
from test_tree_inference import forest_model

import treelearn as tl

TOL = 1e-10


def model_from(edges, cpts, states, order):
    G = nx.DiGraph(edges)
    G.add_nodes_from(order)
    for v in order:
        G.nodes[v].update(states=states[v], cpt=np.asarray(cpts[v], dtype=float))
    return tl.TreeModel(G, variables=list(order))


def random_tree(seed, d=8):
    rng = np.random.default_rng(seed)
    cards = [int(c) for c in rng.integers(2, 5, size=d)]
    edges, cpts = random_tree_network(d, cards, rng, strength=0.5)
    return model_from(
        edges, cpts, {v: [f"s{i}" for i in range(cards[v])] for v in range(d)}, range(d)
    )


def check_all(model, k, seed, extra=()):
    """Every variable queried given every ``k`` others (random states), and ``extra``
    evidence sets, against the brute-force joint; returns how many were compared."""
    joint = joint_table(model)
    rng = np.random.default_rng(seed)
    vs = model.variables
    sets = [
        dict(zip(ev, [model.states[v][int(rng.integers(len(model.states[v])))] for v in ev]))
        for ev in itertools.combinations(vs, k)
    ]
    done = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division warnings from zero-probability states
        for evidence in [*sets, *extra]:
            possible = restrict(model, joint, evidence).sum() > 0
            for q in vs:
                if q in evidence:
                    continue
                if not possible:
                    with pytest.raises(tl.TreelearnError, match="probability zero"):
                        model.query(q, evidence)
                    continue
                got = model.query(q, evidence)
                assert list(got.index) == model.states[q] and got.name == "probability"
                np.testing.assert_allclose(
                    got.to_numpy(), marginal_table(model, joint, [q], evidence), rtol=0, atol=TOL
                )
                done += 1
    return done


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_every_query_and_evidence_position_on_trees(k):
    for seed in (1, 2):
        model = random_tree(seed)
        assert model.inference_path == "message passing"
        assert check_all(model, k, seed) > 0


def test_forest_evidence_in_the_other_tree_and_in_both():
    model = forest_model(4)  # trees {0, 1, 2, 3} and {4, 5, 6}
    assert nx.number_weakly_connected_components(model.graph) == 2
    for k in (1, 2, 3):
        assert check_all(model, k, k) > 0


def test_zero_probability_states_and_impossible_evidence():
    # a -> b -> c, d -> e, f alone: b = "b2" only when a = "a1", which never happens;
    # c = "c0" only after b = "b0"; e = "e1" never after d = "d0"; f is always "f0"
    states = {
        "a": ["a0", "a1"],
        "b": ["b0", "b1", "b2"],
        "c": ["c0", "c1"],
        "d": ["d0", "d1"],
        "e": ["e0", "e1"],
        "f": ["f0", "f1"],
    }
    cpts = {
        "a": [1.0, 0.0],
        "b": [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]],
        "c": [[0.3, 0.7], [0.0, 1.0], [0.6, 0.4]],
        "d": [0.4, 0.6],
        "e": [[1.0, 0.0], [0.2, 0.8]],
        "f": [1.0, 0.0],
    }
    model = model_from([("a", "b"), ("b", "c"), ("d", "e")], cpts, states, "abcdef")
    extra = [
        {"a": "a1"},
        {"b": "b2", "d": "d1"},
        {"c": "c0", "b": "b1"},
        {"d": "d0", "e": "e1"},
        {"c": "c0", "e": "e1"},
        {"b": "b0", "d": "d0", "e": "e1"},
        {"f": "f1"},
        {"f": "f0", "c": "c1"},
        {"f": "f1", "d": "d1"},
    ]
    assert check_all(model, 1, 0, extra) > 0
    assert check_all(model, 2, 1) > 0
    # the message names the impossible value, or says the values clash
    with pytest.raises(tl.TreelearnError, match="'a' = 'a1' has probability zero"):
        model.query("c", {"a": "a1"})
    with pytest.raises(tl.TreelearnError, match="together"):
        model.query("a", {"d": "d0", "e": "e1"})  # impossible in the other tree
    with pytest.raises(tl.TreelearnError, match="together"):
        model.query("a", {"b": "b1", "c": "c0"})
    with pytest.raises(tl.TreelearnError, match="'f' = 'f1' has probability zero"):
        model.query("c", {"f": "f1", "a": "a0"})  # a tree of its own


def test_tan_with_the_class_as_evidence_and_as_query():
    rng = np.random.default_rng(5)
    edges, cpts = random_tree_network(5, [3, 2, 3, 2, 2], rng)
    model = model_from(
        edges,
        cpts,
        {v: [f"s{i}" for i in range(c)] for v, c in enumerate([3, 2, 3, 2, 2])},
        range(5),
    )
    rows = model.sample(400, random_state=2)
    tan = tl.TAN(alpha=1.0).fit(rows.drop(columns=[0]), rows[0].rename("cls")).model_
    assert tan.inference_path == "message passing given 'cls'"
    for k in (1, 2):
        assert check_all(tan, k, k) > 0


def test_evidence_labels_match_like_state_index():
    states = {"f": [False, True], "n": [1, 2, 3], "t": ["1", "x"]}
    cpts = {"f": [0.3, 0.7], "n": [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], "t": [[0.5, 0.5]] * 3}
    model = model_from([("f", "n"), ("n", "t")], cpts, states, "fnt")
    joint = joint_table(model)
    expected = marginal_table(model, joint, ["n"], {"f": True})
    for label in (True, np.bool_(True)):
        np.testing.assert_allclose(model.query("n", {"f": label}).to_numpy(), expected, atol=TOL)
    with pytest.raises(tl.UnseenStateError):
        model.query("n", {"f": 1})  # 1 == True, but a bool state wants a bool
    expected = marginal_table(model, joint, ["f"], {"n": 2})
    for label in (2, np.int64(2), 2.0, "2"):  # text names a non-text state
        np.testing.assert_allclose(model.query("f", {"n": label}).to_numpy(), expected, atol=TOL)
    with pytest.raises(tl.UnseenStateError):
        model.query("f", {"n": True})
    with pytest.raises(tl.UnseenStateError):
        model.query("f", {"t": 1})  # "1" is text: the int 1 is not it
    with pytest.raises(tl.UnseenStateError):
        model.query("f", {"n": {2}})  # unhashable: no state
    # a list is a likelihood over the states (virtual evidence, issue 20): [2] has one
    # weight for three states
    with pytest.raises(tl.TreelearnError, match="1 weight"):
        model.query("f", {"n": [2]})


def test_long_chain_whose_evidence_probability_underflows():
    # v0 -> ... -> v299, "stay" with probability 0.999; evidence alternates a, b on
    # v0, v2, ..., v240: P(evidence) ~ 1e-363, below the smallest double
    d, T = 300, np.array([[0.999, 0.001], [0.001, 0.999]])
    names = [f"v{i}" for i in range(d)]
    cpts = {"v0": [0.5, 0.5], **dict.fromkeys(names[1:], T)}
    model = model_from(list(itertools.pairwise(names)), cpts, {v: ["a", "b"] for v in names}, names)
    evidence = {f"v{i}": "ab"[(i // 2) % 2] for i in range(0, 241, 2)}
    # by the Markov property only the nearest evidence on each side matters
    last = "ab".index(evidence["v240"])
    np.testing.assert_allclose(
        model.query("v260", evidence).to_numpy(), np.linalg.matrix_power(T, 20)[last], atol=1e-12
    )
    s, t = "ab".index(evidence["v120"]), "ab".index(evidence["v122"])
    between = T[s] * T[:, t]
    np.testing.assert_allclose(
        model.query("v121", evidence).to_numpy(), between / between.sum(), atol=1e-12
    )
    # and without underflow, the same formula between two observed neighbours
    assert model.query("v1", {"v0": "a", "v2": "b"}).to_numpy() == pytest.approx(
        T[0] * T[:, 1] / (T[0] @ T[:, 1]), abs=1e-12
    )


def test_answers_stay_exact_when_the_caches_are_bounded(monkeypatch):
    # the per-model caches (path conditionals, ways down to queried variables) are
    # emptied when full: with room for one entry each they are emptied on every query
    monkeypatch.setattr("treelearn.inference._engine._PAIRS_KEPT", 1)
    monkeypatch.setattr("treelearn.inference._engine._TOWARD_KEPT", 1)
    assert check_all(random_tree(3), 2, 3) > 0
    assert check_all(forest_model(5), 3, 5) > 0
