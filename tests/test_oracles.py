"""The shared oracles (tests/oracles.py) on cases worked out by hand: a test that trusts
an oracle is only as good as the oracle.

Counts with closed forms (Cayley's ``n^(n-2)`` spanning trees of the complete graph, the
forests of ``K_n``), a two-variable network whose joint, queries, MAP, mutual
information and EM step are written out here in fractions, Shapley values of small games,
a latent class and a two-step HMM by hand, and the second opinions the oracles can have
(networkx's spanning-tree iterator, a second Prüfer enumeration, the closed-form BDeu
against Pólya's urn).
"""

from __future__ import annotations

import itertools
import math
from types import SimpleNamespace

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import (
    Network,
    all_rows,
    bdeu_conditional,
    bdeu_family_log_ml,
    best_forest,
    best_spanning_tree,
    clg_conditionals,
    clg_log_density,
    completions,
    conditional_from_rows,
    conditional_mutual_information,
    crosstab,
    distribution_entropy,
    em_step,
    entropy,
    evidence_weights,
    expected_family_counts,
    expected_pair_counts,
    family_posteriors,
    forests,
    gaussian_tree_covariance,
    joint_probability,
    joint_probability_of_codes,
    joint_rows,
    joint_table,
    labelled_posterior,
    latent_tree_joint,
    log_joint_probability,
    map_assignment,
    marginal_of,
    marginal_probability,
    marginal_rows,
    marginal_table,
    max_log_probability,
    mixture_em_step,
    mixture_table,
    model_mutual_information,
    mutual_information,
    posterior_marginals,
    prufer_tree,
    prufer_trees,
    restrict,
    rows_given,
    scored_rows,
    sequential_log_evidence,
    shapley_values,
    smoothed_mutual_information,
    spanning_tree_distribution,
    spanning_trees,
    tree_ml_loglik,
    tree_parents,
)
from scipy import stats

# a -> b: P(a) = (3/10, 7/10), P(b | a=0) = (9/10, 1/10), P(b | a=1) = (2/10, 8/10)
TWO = Network(["a", "b"], {"b": ["a"]}, {"a": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
JOINT = np.array([[0.27, 0.03], [0.14, 0.56]])  # P(a, b), multiplied out by hand


# ---------------------------------------------------------------- spanning trees and forests
@pytest.mark.parametrize("n", range(1, 8))
def test_spanning_trees_of_the_complete_graph_are_cayleys_count(n):
    trees = spanning_trees(range(n))
    assert len(trees) == n ** max(n - 2, 0)  # Cayley (one tree, empty, on one node)
    assert len({frozenset(map(frozenset, t)) for t in trees}) == len(trees)  # no repeats
    for t in trees[:: max(1, len(trees) // 50)]:
        G = nx.Graph(list(t))
        G.add_nodes_from(range(n))
        assert nx.is_tree(G)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_spanning_trees_agree_with_networkx_and_pruefer(n):
    ours = {frozenset(map(frozenset, t)) for t in spanning_trees(range(n))}
    theirs = {
        frozenset(map(frozenset, T.edges())) for T in nx.SpanningTreeIterator(nx.complete_graph(n))
    }
    pruefer = {frozenset(map(frozenset, t)) for t in prufer_trees(n)}
    assert ours == theirs == pruefer


def test_prufer_decoder_enumerates_every_tree_once():
    for d in (3, 4, 5):
        trees = {
            frozenset(frozenset(e) for e in prufer_tree(s, d))
            for s in itertools.product(range(d), repeat=d - 2)
        }
        assert len(trees) == d ** (d - 2)
        for t in trees:
            G = nx.Graph([tuple(e) for e in t])
            assert nx.is_tree(G) and G.number_of_nodes() == d


def test_forests_of_the_complete_graph_are_counted():
    # the labelled forests on n nodes: 1, 2, 7, 38, 291 (OEIS A001858)
    assert [sum(1 for _ in forests(range(n))) for n in range(1, 6)] == [1, 2, 7, 38, 291]
    for f in forests(range(4)):
        assert not f or nx.is_forest(nx.Graph(list(f)))
    # candidates given: a triangle's 3 edges make 1 + 3 + 3 forests (not the triangle)
    assert sum(1 for _ in forests("abc", [("a", "b"), ("b", "c"), ("a", "c")], range(4))) == 7


def test_best_tree_and_forest_by_hand():
    W = np.array([[0, 5, 1, 0], [5, 0, 4, 2], [1, 4, 0, 3], [0, 2, 3, 0]])
    names = list("abcd")
    # the heaviest: a-b (5), b-c (4), c-d (3)
    assert best_spanning_tree(names, W) == {frozenset("ab"), frozenset("bc"), frozenset("cd")}
    # b-c forbidden: a-b (5), c-d (3) and the best link b-d (2)
    assert best_spanning_tree(names, W, black={frozenset("bc")}) == {
        frozenset("ab"),
        frozenset("cd"),
        frozenset("bd"),
    }
    # a-d required (0): with a-b (5) and b-c (4)
    assert best_spanning_tree(names, W, white={frozenset("ad")}) == {
        frozenset("ad"),
        frozenset("ab"),
        frozenset("bc"),
    }
    score, edges = best_forest("abc", {("a", "b"): 2.0, ("b", "c"): -1.0, ("a", "c"): 0.5}, 1e-12)
    assert score == 2.5 and edges == {frozenset("ab"), frozenset("ac")}


def test_tree_parents_orient_away_from_the_root():
    assert tree_parents([(0, 1), (1, 2), (1, 3)], 0) == {0: None, 1: 0, 2: 1, 3: 1}
    # a forest: the other component is left out, an isolated node of `nodes` too
    assert tree_parents([("a", "b"), ("c", "d")], "b", "abcde") == {"b": None, "a": "b"}


@pytest.mark.parametrize("n", [3, 4, 5])
def test_uniform_tree_distribution(n):
    # every tree equally likely: n^(n-2) of them, and each edge in a fraction
    # (n - 1) / C(n, 2) = 2 / n of them
    log_z, P = spanning_tree_distribution(np.zeros((n, n)))
    assert log_z == pytest.approx((n - 2) * math.log(n), rel=1e-14)
    np.testing.assert_allclose(P, (2 / n) * (1 - np.eye(n)), atol=1e-14)


def test_tree_distribution_by_hand():
    # three trees on three nodes (L01 = 0, L02 = 1, L12 = 1): {01, 02} weighs e^1,
    # {01, 12} e^1, {02, 12} e^2, so Z = 2e + e^2
    L = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    log_z, P = spanning_tree_distribution(L)
    Z = 2 * math.e + math.e**2
    assert log_z == pytest.approx(math.log(Z), rel=1e-14)
    assert P[0, 1] == pytest.approx(2 * math.e / Z, rel=1e-14)
    assert P[1, 2] == pytest.approx((math.e + math.e**2) / Z, rel=1e-14)


# ---------------------------------------------------------------- a network by hand
def test_two_variable_joint_by_hand():
    np.testing.assert_allclose(joint_table(TWO), JOINT, rtol=1e-15)
    rows, p = joint_rows(TWO)
    assert rows == [(0, 0), (0, 1), (1, 0), (1, 1)]
    np.testing.assert_allclose(p, JOINT.ravel(), rtol=1e-15)
    for a, b in rows:
        assert joint_probability(TWO, {"a": a, "b": b}) == pytest.approx(JOINT[a, b], rel=1e-15)
        assert joint_probability_of_codes(TWO, (a, b)) == pytest.approx(JOINT[a, b], rel=1e-15)
        assert log_joint_probability(TWO, {"a": a, "b": b}) == pytest.approx(
            math.log(JOINT[a, b]), rel=1e-14
        )
    # P(b = 1) = 0.03 + 0.56, the missing cell summed out
    assert marginal_probability(TWO, {"a": None, "b": 1}) == pytest.approx(0.59, rel=1e-15)
    assert marginal_probability(TWO, {"b": 1}) == pytest.approx(0.59, rel=1e-15)
    assert marginal_probability(TWO, {"a": np.nan, "b": None}) == pytest.approx(1.0, rel=1e-15)
    assert [(full, round(q, 12)) for full, q in completions(TWO, [-1, 0])] == [
        ((0, 0), 0.27),
        ((1, 0), 0.14),
    ]


def test_queries_and_map_by_hand():
    joint = joint_table(TWO)
    np.testing.assert_allclose(restrict(TWO, joint, {"a": 1}), [[0, 0], [0.14, 0.56]])
    # P(a | b = 1) = (0.03, 0.56) / 0.59, P(b) = (0.41, 0.59)
    np.testing.assert_allclose(
        marginal_table(TWO, joint, ["a"], {"b": 1}), [3 / 59, 56 / 59], rtol=1e-14
    )
    np.testing.assert_allclose(marginal_table(TWO, joint, ["b"], {}), [0.41, 0.59], rtol=1e-14)
    np.testing.assert_allclose(marginal_table(TWO, joint, ["b", "a"], {}), JOINT.T, rtol=1e-14)
    marginals = posterior_marginals(TWO, {"b": 1})
    np.testing.assert_allclose(marginals["a"], [3 / 59, 56 / 59], rtol=1e-14)
    np.testing.assert_allclose(marginals["b"], [0, 1])
    # MAP: (1, 1) with 0.56; given b = 0: a = 0 with 0.27
    assert max_log_probability(TWO, joint, {}) == pytest.approx(math.log(0.56), rel=1e-14)
    best, log_p = map_assignment(TWO, {})
    assert best == {"a": 1, "b": 1} and log_p == pytest.approx(math.log(0.56), rel=1e-14)
    best, log_p = map_assignment(TWO, {"b": 0})
    assert best == {"a": 0} and log_p == pytest.approx(math.log(0.27), rel=1e-14)


def test_mutual_information_under_the_model_by_hand():
    pa, pb = [0.3, 0.7], [0.41, 0.59]
    want = sum(
        JOINT[i, j] * math.log(JOINT[i, j] / (pa[i] * pb[j])) for i in (0, 1) for j in (0, 1)
    )
    assert model_mutual_information(TWO, "a", "b") == pytest.approx(want, rel=1e-13)
    assert model_mutual_information(TWO, "b", "a") == pytest.approx(want, rel=1e-13)


def test_soft_evidence_weights_and_posterior_by_hand():
    # a likelihood (1, 1/2) on a: weights 0.27, 0.03, 0.07, 0.28
    weights = evidence_weights(TWO, {}, {"a": [1.0, 0.5]})
    assert {k: round(float(w), 12) for k, w in weights.items()} == {
        (0, 0): 0.27,
        (0, 1): 0.03,
        (1, 0): 0.07,
        (1, 1): 0.28,
    }
    table, variables = labelled_posterior(TWO, {"b": 1}, {"a": [1.0, 0.5]})
    assert variables == ["a", "b"] and set(table) == {(0, 1), (1, 1)}
    assert table[(0, 1)] == pytest.approx(0.03 / 0.31, rel=1e-14)
    assert marginal_of(table, variables, ["b"]) == {(1,): pytest.approx(1.0, rel=1e-15)}
    assert distribution_entropy({0: 0.25, 1: 0.25, 2: 0.5}) == pytest.approx(
        1.5 * math.log(2), rel=1e-14
    )


def test_family_posteriors_by_hand():
    cpts = {v: TWO.cpt(v) for v in "ab"}
    log_p, (fa, fb) = family_posteriors(
        ["a", "b"], {"a": [], "b": ["a"]}, cpts, {"a": 2, "b": 2}, [1, -1]
    )
    assert log_p == pytest.approx(math.log(0.7), rel=1e-14)  # P(a = 1)
    np.testing.assert_allclose(fa, [0, 1])
    np.testing.assert_allclose(fb, [[0, 0], [0.2, 0.8]], rtol=1e-14)
    log_p, _ = family_posteriors(["a", "b"], {"a": [], "b": ["a"]}, cpts, {"a": 2, "b": 2}, [0, 1])
    assert log_p == pytest.approx(math.log(0.03), rel=1e-14)


def test_a_chain_marginal_is_the_sum_over_the_middle():
    # a -> b -> c: P(c | a) = sum_b P(b | a) P(c | b), written out
    pc = np.array([[0.5, 0.5], [0.1, 0.9]])
    chain = Network(
        ["a", "b", "c"], {"b": ["a"], "c": ["b"]}, {**{v: TWO.cpt(v) for v in "ab"}, "c": pc}
    )
    want = TWO.cpt("b") @ pc  # rows: a
    got = marginal_table(chain, joint_table(chain), ["c"], {"a": 1})
    np.testing.assert_allclose(got, want[1], rtol=1e-14)
    rows = marginal_rows(chain, ["c", "a"])
    assert rows[["c", "a"]].values.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    np.testing.assert_allclose(rows["p"], (np.array([0.3, 0.7])[:, None] * want).T.ravel())


# ---------------------------------------------------------------- EM by hand
def test_one_em_step_by_hand():
    # rows (a=0, b=0) and (a=1, b missing): the second row's b is 0 w.p. 0.2, 1 w.p. 0.8
    codes = np.array([[0, 0], [1, -1]])
    counts, ll = expected_family_counts(TWO, codes)
    np.testing.assert_allclose(counts["a"], [1, 1])
    np.testing.assert_allclose(counts["b"], [[1, 0], [0.2, 0.8]], rtol=1e-14)
    assert ll == pytest.approx(math.log(0.27) + math.log(0.7), rel=1e-14)
    new, ll_before = em_step(TWO, codes, alpha=0.0)
    assert ll_before == ll
    np.testing.assert_allclose(new.cpt("a"), [0.5, 0.5])
    np.testing.assert_allclose(new.cpt("b"), [[1, 0], [0.2, 0.8]], rtol=1e-14)
    smoothed, _ = em_step(TWO, codes, alpha=1.0)  # Lidstone: (N + 1) / (N_u + 2)
    np.testing.assert_allclose(smoothed.cpt("b"), [[2 / 3, 1 / 3], [0.4, 0.6]], rtol=1e-14)
    # the one-hot products: the a-by-b block holds the same expected counts; weights scale
    pairs, ll_pairs = expected_pair_counts(TWO, codes, weights=[2.0, 1.0])
    np.testing.assert_allclose(pairs[:2, 2:], [[2, 0], [0.2, 0.8]], rtol=1e-14)
    assert ll_pairs == pytest.approx(2 * math.log(0.27) + math.log(0.7), rel=1e-14)


def test_a_parent_state_never_seen_gets_a_uniform_row():
    codes = np.array([[0, 0], [0, 1]])  # a = 1 never: its row of b has no counts
    new, _ = em_step(TWO, codes, alpha=0.0)
    np.testing.assert_allclose(new.cpt("b"), [[0.5, 0.5], [0.5, 0.5]])


def test_latent_class_and_hmm_by_hand():
    prior, emit = np.array([0.4, 0.6]), np.array([[0.9, 0.1], [0.3, 0.7]])
    configs, p = latent_tree_joint([-1], [prior], [emit], np.array([[1], [-1]]))
    assert configs == [(0,), (1,)]
    np.testing.assert_allclose(p, [[0.04, 0.42], [0.4, 0.6]], rtol=1e-14)
    # a two-step HMM: P(z, x) = pi(z0) B(z0, x0) A(z0, z1) B(z1, x1)
    A = np.array([[0.8, 0.2], [0.3, 0.7]])
    paths, p = latent_tree_joint([-1, 0], [prior, A], [emit, emit], np.array([[0, 1]]))
    assert paths == [(0, 0), (0, 1), (1, 0), (1, 1)]
    want = [prior[i] * emit[i, 0] * A[i, j] * emit[j, 1] for i, j in paths]
    np.testing.assert_allclose(p[0], want, rtol=1e-14)


def test_mixture_step_by_hand():
    a = Network(["x"], {}, {"x": [0.2, 0.8]})
    b = Network(["x"], {}, {"x": [0.6, 0.4]})
    table = mixture_table([0.5, 0.5], [a, b])
    np.testing.assert_allclose(table["p"], [0.4, 0.6], rtol=1e-14)
    # rows x = 0 and x = 1: responsibilities (0.1, 0.3) / 0.4 and (0.4, 0.2) / 0.6, that
    # is (1/4, 3/4) and (2/3, 1/3); the weights their means, each component's new
    # distribution its expected counts normalised: (1/4, 2/3) and (3/4, 1/3)
    joints, weights = mixture_em_step([0.5, 0.5], [a, b], pd.DataFrame({"x": [0, 1]}))
    np.testing.assert_allclose(weights, [11 / 24, 13 / 24], rtol=1e-14)
    np.testing.assert_allclose(joints[0], [3 / 11, 8 / 11], rtol=1e-14)
    np.testing.assert_allclose(joints[1], [9 / 13, 4 / 13], rtol=1e-14)


# ---------------------------------------------------------------- tables of rows
def test_rows_and_conditionals_from_rows():
    rows = all_rows(["a", "b"], {"a": [0, 1], "b": ["x", "y"]})
    assert rows.values.tolist() == [[0, "x"], [0, "y"], [1, "x"], [1, "y"]]
    p = np.array([0.27, 0.03, 0.14, 0.56])
    got = conditional_from_rows(rows, p, "a", {"b": "y"})
    np.testing.assert_allclose(got.loc[[0, 1]], [3 / 59, 56 / 59], rtol=1e-14)
    assert rows_given(rows.assign(p=p), {"a": 1})["p"].tolist() == [0.14, 0.56]
    scored, q = scored_rows(lambda r: np.log(np.where(r["a"] == 0, 0.1, 0.4)), "ab", [[0, 1]] * 2)
    assert scored.values.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    np.testing.assert_allclose(q, [0.1, 0.1, 0.4, 0.4])


# ---------------------------------------------------------------- counting
def test_entropy_and_mutual_information_by_hand():
    x = pd.Series([0, 0, 0, 1])
    assert entropy(x) == pytest.approx(-(0.75 * math.log(0.75) + 0.25 * math.log(0.25)), rel=1e-14)
    y = pd.Series([0, 0, 1, 1])
    # joint (1/2, 1/4, 0, 1/4): I = H(x) + H(y) - H(x, y)
    h_xy = -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25))
    assert mutual_information(x, y) == pytest.approx(entropy(x) + entropy(y) - h_xy, rel=1e-13)
    assert mutual_information(x, x) == pytest.approx(entropy(x), rel=1e-14)
    # smoothed: the table (2, 1; 0, 1) plus 1 each, over 8
    p = np.array([[3, 2], [1, 2]]) / 8
    want = sum(
        p[i, j] * math.log(p[i, j] / (p[i].sum() * p[:, j].sum())) for i in (0, 1) for j in (0, 1)
    )
    assert smoothed_mutual_information(x, y, 2, 2, 1.0) == pytest.approx(want, rel=1e-13)
    # given the class, a copy in one class and independent in the other: 1/2 log 2
    X = pd.DataFrame({"a": [0, 1, 0, 1, 0, 0, 1, 1], "b": [0, 1, 0, 1, 0, 1, 0, 1]})
    cmi = conditional_mutual_information(X, pd.Series([0, 0, 0, 0, 1, 1, 1, 1]), "a", "b")
    assert cmi == pytest.approx(0.5 * math.log(2), rel=1e-13)


def test_crosstab_keeps_declared_states_and_drops_missing():
    df = pd.DataFrame({"a": ["x", "y", "y", None, "x"], "b": [1, 1, 2, 2, None]})
    assert crosstab(df, "a", "b", ["x", "y", "z"], [1, 2, 3]).tolist() == [
        [1, 0, 0],
        [1, 1, 0],
        [0, 0, 0],
    ]


def test_tree_likelihood_by_hand_and_with_weights():
    df = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 1, 1]})
    # no edge: 4 log 1/2 + (1 log 1/4 + 3 log 3/4); the edge: a's part plus b given a
    # (0: 1/2, 1/2; 1: 1, 1)
    none = 4 * math.log(0.5) + math.log(0.25) + 3 * math.log(0.75)
    edge = 4 * math.log(0.5) + 2 * math.log(0.5)
    assert tree_ml_loglik(df, []) == pytest.approx(none, rel=1e-14)
    assert tree_ml_loglik(df, [("a", "b")]) == pytest.approx(edge, rel=1e-14)
    # whole weights are repeated rows; a constant weight scales the log-likelihood
    w = np.array([2.0, 1.0, 1.0, 3.0])
    repeated = df.loc[df.index.repeat(w.astype(int))]
    assert tree_ml_loglik(df, [("a", "b")], weights=w) == pytest.approx(
        tree_ml_loglik(repeated, [("a", "b")]), rel=1e-13
    )
    assert tree_ml_loglik(df, [("a", "b")], weights=np.full(4, 2.5)) == pytest.approx(
        2.5 * edge, rel=1e-13
    )
    cache: dict = {}
    assert tree_ml_loglik(df, [("a", "b")], cache=cache) == tree_ml_loglik(df, [("a", "b")])
    assert set(cache) == {("a",), ("b",), ("a", "b")}


def test_bdeu_closed_form_equals_polyas_urn():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"p": rng.integers(0, 2, 30), "q": rng.integers(0, 3, 30)})
    df["c"] = (df["p"] + rng.integers(0, 2, 30)) % 3
    states = {"p": [0, 1], "q": [0, 1, 2], "c": [0, 1, 2]}
    arrays = {v: df[v].to_numpy() for v in df.columns}
    for parents in ([], ["p"], ["p", "q"]):
        q = int(np.prod([len(states[p]) for p in parents])) if parents else 1
        groups = list(df[parents].itertuples(index=False, name=None)) if parents else None
        urn = sequential_log_evidence(df["c"].to_numpy(), 3, 2.0 / (q * 3), groups)
        assert bdeu_family_log_ml(arrays, "c", parents, states, 2.0) == pytest.approx(
            urn, rel=1e-12
        )
    # the predictive of the next row: (N(u, a) + a') / (N(u) + r a'), here (1 + 1) / (2 + 2)
    small = {"a": np.array([0, 0, 1]), "b": np.array([1, 0, 0])}
    ab = {"a": [0, 1], "b": [0, 1]}
    assert bdeu_conditional(small, "b", ["a"], ab, 4.0, {"a": 0, "b": 1}) == 0.5
    assert bdeu_conditional(small, "b", [], ab, 2.0, {"b": 1}) == pytest.approx(2 / 5)


# ---------------------------------------------------------------- Shapley values
def test_shapley_values_of_small_games_by_hand():
    # v(S) = (sum of weights)^2, weights a: 1, b: 2: phi_a = (1 + (9 - 4)) / 2 = 3, phi_b = 6
    weight = {"a": 1, "b": 2}
    phi = shapley_values(lambda S: sum(weight[k] for k in S) ** 2, ["a", "b"])
    assert phi == {"a": pytest.approx(3.0), "b": pytest.approx(6.0)}

    # the glove game: a left glove (L) and two right ones (R1, R2); a pair is worth 1.
    # L is pivotal unless it comes first (1/3), so phi_L = 2/3, each R 1/6
    def gloves(S):
        return float("L" in S and bool(S & {"R1", "R2"}))

    phi = shapley_values(gloves, ["L", "R1", "R2"])
    assert phi["L"] == pytest.approx(2 / 3) and phi["R1"] == pytest.approx(1 / 6)
    # additive games give each player its own value; efficiency
    values = {"x": 0.5, "y": -2.0, "z": 4.0}
    phi = shapley_values(lambda S: sum(values[k] for k in S), list(values))
    assert phi == {k: pytest.approx(v) for k, v in values.items()}


# ---------------------------------------------------------------- Gaussian and CLG trees
def test_gaussian_tree_covariance_is_markov_on_the_tree():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(4, 4))
    cov = A @ A.T + 4 * np.eye(4)
    edges = [(0, 1), (1, 2), (1, 3)]
    S = gaussian_tree_covariance(cov, edges)
    # kept: the variances and the edges' covariances
    np.testing.assert_allclose(np.diag(S), np.diag(cov), rtol=1e-14)
    for u, v in edges:
        assert S[u, v] == pytest.approx(cov[u, v], rel=1e-13)
    # the inverse is zero off the tree's edges (conditional independence)
    K = np.linalg.inv(S)
    for u, v in [(0, 2), (0, 3), (2, 3)]:
        assert abs(K[u, v]) < 1e-12 * np.abs(K).max()
    # by hand: S_02 = S_01 S_12 / S_11
    assert S[0, 2] == pytest.approx(cov[0, 1] * cov[1, 2] / cov[1, 1], rel=1e-13)


def test_clg_mixture_of_two_gaussians_by_hand():
    # d -> x: P(d) = (0.4, 0.6), x | d ~ N(0, 1) or N(2, 4)
    graph = nx.DiGraph([("d", "x")])
    graph.nodes["x"].update(means=[0.0, 2.0], variances=[1.0, 4.0])
    model = SimpleNamespace(
        discrete_model=Network(["d"], {}, {"d": [0.4, 0.6]}),
        continuous=["x"],
        parents=lambda v: list(graph.predecessors(v)),
        graph=graph,
    )
    parts = [0.4 * stats.norm(0, 1).pdf(1.0), 0.6 * stats.norm(2, 2).pdf(1.0)]
    assert clg_log_density(model, {"x": 1.0}) == pytest.approx(math.log(sum(parts)), rel=1e-13)
    assert clg_log_density(model, {"x": None, "d": 1}) == pytest.approx(math.log(0.6), rel=1e-14)
    log_e, configs = clg_conditionals(model, {"x": 1.0})
    assert log_e == pytest.approx(math.log(sum(parts)), rel=1e-13)
    assert [c[0] for c in configs] == [{"d": 0}, {"d": 1}]
    np.testing.assert_allclose([c[1] for c in configs], np.array(parts) / sum(parts), rtol=1e-13)
    _, configs = clg_conditionals(model, {"d": 1})  # x unobserved: its Gaussian given d
    (_, weight, mean, cov) = configs[0]
    assert weight == 1.0 and mean.tolist() == [2.0] and cov.tolist() == [[4.0]]
