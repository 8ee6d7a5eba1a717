"""EM for missing values (treelearn.learners._em) against brute-force enumeration of every missing cell."""

from __future__ import annotations

import itertools
import math
from functools import partial

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import completions, em_step, expected_pair_counts

import treelearn as tl
from treelearn.encoding._table import encode
from treelearn.learners._chow_liu import build_model, chow_liu_from_counts
from treelearn.learners._em import chow_liu_em, expected_counts, fit_cpts_em, forest_posteriors
from treelearn.sources._count import count
from treelearn.stats._counts import PairCounts
from treelearn.stats._information import mutual_information_matrix
from treelearn.stats._settings import LearningSettings


@pytest.fixture(scope="module")
def tiny():
    """A 4-variable tree (states 3, 2, 2, 3) and rows with every kind of missing pattern."""
    rng = np.random.default_rng(3)
    n = 300
    a = rng.integers(0, 3, n)
    b = (a == 0) | (rng.random(n) < 0.3)
    c = np.where(rng.random(n) < 0.8, b, ~b)
    d = (a + rng.integers(0, 2, n)) % 3
    df = pd.DataFrame({"a": a, "b": b, "c": c, "d": d})
    model = tl.chow_liu(df, alpha=1.0, root="b")
    codes = model.encode(df.head(40)).codes.astype(np.int64)
    mask = rng.random(codes.shape) < 0.35
    codes[mask] = -1
    codes[0] = -1  # nothing observed
    return df, model, codes


def test_forest_posteriors_equal_enumeration(tiny):
    _, model, codes = tiny
    log_ev, node, family = forest_posteriors(model, codes)
    for r, row in enumerate(codes):
        done = list(completions(model, row))
        p_obs = sum(p for _, p in done)
        assert log_ev[r] == pytest.approx(math.log(p_obs), abs=1e-12)
        for j, v in enumerate(model.variables):
            expect = np.zeros(len(model.states[v]))
            for full, p in done:
                expect[full[j]] += p / p_obs
            np.testing.assert_allclose(node[v][r], expect, atol=1e-12)
            if model.parents(v):
                i = model.variables.index(model.parents(v)[0])
                pair = np.zeros(family[v].shape[1:])
                for full, p in done:
                    pair[full[i], full[j]] += p / p_obs
                np.testing.assert_allclose(family[v][r], pair, atol=1e-12)


def test_expected_counts_equal_enumeration(tiny):
    _, model, codes = tiny
    weights = np.linspace(0.5, 2.0, len(codes))
    brute, ll = expected_pair_counts(model, codes, weights)
    pairs, log_likelihood = expected_counts(model, codes, weights, all_pairs=True)
    np.testing.assert_allclose(pairs.joint, brute, atol=1e-10)
    assert log_likelihood == pytest.approx(ll, rel=1e-12)
    assert pairs.n_rows == pytest.approx(weights.sum())
    # without all_pairs: the families' blocks only, the same numbers
    fam, _ = expected_counts(model, codes, weights)
    for v in model.variables:
        j = model.variables.index(v)
        np.testing.assert_allclose(fam.block(j, j), brute_block(brute, pairs, j, j), atol=1e-10)
        for p in model.parents(v):
            i = model.variables.index(p)
            np.testing.assert_allclose(fam.block(i, j), brute_block(brute, pairs, i, j), atol=1e-10)


def brute_block(brute, pairs, i, j):
    o = pairs.offsets
    return brute[o[i] : o[i + 1], o[j] : o[j + 1]]


def test_fit_cpts_em_follows_brute_force_em_step_by_step(tiny):
    df, model, _ = tiny
    rng = np.random.default_rng(0)
    data = df.head(60).mask(rng.random((60, 4)) < 0.3)
    structure = model.graph
    alpha = 0.5
    start = tl.fit_cpts(structure, data, alpha=alpha, missing="pairwise")
    codes = start.encode(data).codes.astype(np.int64)
    stats = count(data, missing="pairwise")
    build = partial(build_model, settings=LearningSettings(alpha=alpha))
    brute, done = start, 0
    for steps in (1, 2, 5):
        while done < steps:
            brute, _ = em_step(brute, codes, alpha)
            done += 1
        em = fit_cpts_em(structure, stats, build, max_iter=steps, tol=0.0)
        assert em.settings["em_iterations"] == steps
        for v in model.variables:
            np.testing.assert_allclose(em.cpt(v), brute.cpt(v), atol=1e-12)
    # and the public entry point converges to the brute-force fixed point
    while done < 300:
        brute, _ = em_step(brute, codes, alpha)
        done += 1
    final = tl.fit_cpts(structure, data, alpha=alpha, missing="em")
    for v in model.variables:
        np.testing.assert_allclose(final.cpt(v), brute.cpt(v), atol=1e-4)


@pytest.mark.parametrize("learner", ["fit_cpts", "chow_liu"])
def test_observed_log_likelihood_never_decreases(learner):
    df = pd.read_csv("datasets/asia.csv").head(2000)
    rng = np.random.default_rng(1)
    data = df.mask(rng.random(df.shape) < 0.3)
    if learner == "fit_cpts":
        model = tl.fit_cpts(tl.chow_liu(df).graph, data, missing="em", alpha=0)
    else:  # maximum likelihood: EM never lowers the likelihood (smoothed EM, the posterior)
        model = tl.chow_liu(data, missing="em", alpha=0)
    history = model.settings["em_log_likelihood"]
    assert len(history) == model.settings["em_iterations"] + 1 >= 3
    assert (np.diff(history) >= -1e-9).all()
    # the last value is the observed-data log-likelihood of the returned model, computed anew
    assert history[-1] == pytest.approx(model.log_likelihood(data), rel=1e-10)
    assert model.settings["missing"] == "em"


def test_structural_em_expected_pairs_choose_the_tree_of_brute_force(tiny):
    df = tiny[0]
    rng = np.random.default_rng(5)
    data = df.head(80).mask(rng.random((80, 4)) < 0.25)
    start = tl.chow_liu(data, missing="pairwise", alpha=0)
    codes = start.encode(data).codes.astype(np.int64)
    brute, _ = expected_pair_counts(start, codes)
    pairs = PairCounts(brute, start.counts.cardinalities, 80.0)
    mi = mutual_information_matrix(pairs)
    G = nx.Graph()
    for i, j in itertools.combinations(range(4), 2):
        G.add_edge(data.columns[i], data.columns[j], weight=mi[i, j])
    expected_tree = {frozenset(e) for e in nx.maximum_spanning_tree(G).edges}
    # the first M-step of structural EM is the maximum spanning tree of the expected MI
    first = chow_liu_em(
        count(data, missing="pairwise"),
        partial(chow_liu_from_counts, settings=LearningSettings(alpha=0)),
        max_iter=1,
    )
    assert {frozenset(e) for e in first.graph.to_undirected().edges} == expected_tree


def test_complete_data_em_is_the_plain_fit():
    df = pd.read_csv("datasets/asia.csv")
    assert tl.chow_liu(df, missing="em", alpha=1.0) == tl.chow_liu(df, alpha=1.0)
    structure = tl.chow_liu(df).graph
    assert tl.fit_cpts(structure, df, missing="em") == tl.fit_cpts(structure, df)


def test_em_takes_any_dag_and_needs_rows_in_memory(tmp_path):
    df = pd.DataFrame({"a": [0, 1, None, 1], "b": [0, 1, 1, None], "c": [1, 0, 1, 0]})
    collider = nx.DiGraph([("a", "c"), ("b", "c")])  # EM on any DAG: tests/test_em_dag.py
    assert tl.fit_cpts(collider, df, missing="em").settings["missing"] == "em"
    with pytest.raises(tl.TreelearnError, match="missing"):
        encode(df, missing="em")
    df_before = df.copy()
    tl.chow_liu(df, missing="em", alpha=1.0)
    assert df.equals(df_before)
