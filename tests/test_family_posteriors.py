"""TreeEngine.family_posteriors_codes (the E-step of EM) against brute-force enumeration."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import expected_pair_counts, family_posteriors

import treelearn as tl
from treelearn.inference._engine import TreeEngine
from treelearn.learners._em import expected_counts


def random_cpts(rng, variables, parents, card):
    out = {}
    for v in variables:
        shape = tuple(card[u] for u in [*parents[v], v])
        t = rng.random(shape) + 0.05
        out[v] = t / t.sum(axis=-1, keepdims=True)
    return out


NETWORKS = {
    # a forest: a tree of five and a tree of one
    "forest": (
        {"a": [], "b": ["a"], "c": ["a"], "d": ["b"], "e": ["b"], "f": []},
        {"a": 2, "b": 3, "c": 2, "d": 3, "e": 2, "f": 2},
    ),
    # TAN-like: the class c is a parent of every feature, the features form a tree
    "tan": (
        {"c": [], "a": ["c"], "b": ["c", "a"], "d": ["b", "c"]},
        {"c": 3, "a": 2, "b": 3, "d": 2},
    ),
    # the conditioner has a parent of its own
    "conditioner with a parent": (
        {"a": [], "c": ["a"], "b": ["c", "a"], "d": ["c", "b"]},
        {"a": 2, "c": 3, "b": 2, "d": 2},
    ),
    # a polytree (a node with two unlinked parents)
    "polytree": ({"a": [], "b": [], "c": ["a", "b"], "d": ["c"]}, {"a": 2, "b": 3, "c": 2, "d": 2}),
}
#: no forest even without one node: answered by variable elimination
GENERAL = {
    # a v-structure whose parents are linked, and more
    "linked parents": (
        {"a": [], "b": ["a"], "c": ["a", "b"], "d": ["c", "b"], "e": ["d", "a"]},
        {"a": 2, "b": 3, "c": 2, "d": 3, "e": 2},
    ),
    # a node of three parents, two of them linked, and a second cycle below it
    "three parents": (
        {"a": [], "b": [], "c": ["a"], "d": ["a", "b", "c"], "e": ["d"], "f": ["d", "e"]},
        {"a": 2, "b": 3, "c": 2, "d": 3, "e": 2, "f": 2},
    ),
}


@pytest.mark.parametrize("name", [*NETWORKS, *GENERAL])
def test_family_posteriors_equal_enumeration(name):
    parents, card = {**NETWORKS, **GENERAL}[name]
    variables = list(parents)
    rng = np.random.default_rng(7)
    cpts = random_cpts(rng, variables, parents, card)
    engine = TreeEngine(variables, parents, cpts, {v: list(range(card[v])) for v in variables})
    if name in GENERAL:
        assert engine.path == "variable elimination"
    else:
        assert engine.path.startswith("message passing")
    codes = np.array([[rng.integers(-1, card[v]) for v in variables] for _ in range(40)])
    codes[0] = -1  # nothing observed
    codes[1, 0] = 0  # the first variable (a root or the conditioner) observed
    log_ev, families = engine.family_posteriors_codes(codes)
    for r, row in enumerate(codes):
        expect_log, expect = family_posteriors(variables, parents, cpts, card, row)
        assert log_ev[r] == pytest.approx(expect_log, abs=1e-10)
        for got, want in zip(families, expect):
            assert got.shape[1:] == want.shape
            np.testing.assert_allclose(got[r], want, atol=1e-10)


@pytest.mark.parametrize(
    ("name", "codes"),
    [
        ("tan", [[-1, 1, -1, 0], [0, -1, 2, -1]]),
        ("linked parents", [[-1, 1, -1, 0, -1], [0, -1, 1, -1, 1]]),
    ],
)
def test_impossible_rows_get_minus_infinity_and_zeros_without_warnings(name, codes):
    parents, card = {**NETWORKS, **GENERAL}[name]
    variables = list(parents)
    cpts = random_cpts(np.random.default_rng(1), variables, parents, card)
    # the second variable's state 1 is impossible (it has one parent, the first)
    second = variables[1]
    cpts[second][:, 1] = 0.0
    cpts[second] /= cpts[second].sum(axis=-1, keepdims=True)
    engine = TreeEngine(variables, parents, cpts, {v: list(range(card[v])) for v in variables})
    codes = np.array(codes)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        log_ev, families = engine.family_posteriors_codes(codes)
    assert log_ev[0] == -np.inf and np.isfinite(log_ev[1])
    for table in families:
        assert not table[0].any()
        assert table[1].sum() == pytest.approx(1.0, abs=1e-12)


def test_all_pairs_expected_counts_on_a_forest_equal_enumeration():
    """Pairs within a tree, across trees and with a one-node tree, by brute force."""
    rng = np.random.default_rng(5)
    n = 200
    a = rng.integers(0, 3, n)
    df = pd.DataFrame(
        {
            "a": a,
            "b": (a + rng.integers(0, 2, n)) % 2,
            "c": (a + rng.integers(0, 2, n)) % 3,
            "d": rng.integers(0, 2, n),
            "e": rng.integers(0, 2, n),
        }
    )
    model = tl.fit_cpts(nx.DiGraph([("a", "b"), ("a", "c"), ("d", "e")]), df, alpha=1.0)
    codes = model.encode(df.head(30)).codes.astype(np.int64)
    codes[rng.random(codes.shape) < 0.4] = -1
    # and a model with two isolated nodes (trees of one)
    lone_model = tl.fit_cpts(_with_nodes(nx.DiGraph([("a", "b"), ("a", "c")]), df), df, alpha=1.0)
    for m in (model, lone_model):
        weights = np.linspace(0.5, 1.5, len(codes))
        want, ll = expected_pair_counts(m, codes, weights)  # every completion enumerated
        pairs, log_likelihood = expected_counts(m, codes, weights, all_pairs=True)
        np.testing.assert_allclose(pairs.joint, want, atol=1e-10)
        assert log_likelihood == pytest.approx(ll, rel=1e-12)


def _with_nodes(graph: nx.DiGraph, df: pd.DataFrame) -> nx.DiGraph:
    graph.add_nodes_from(df.columns)
    return graph
