"""Exact Bayesian averaging over spanning trees, checked against brute force over
every labelled spanning tree (tests/oracles.py), networkx and identities.

The oracle computes each tree's BDeu marginal likelihood family by family from
counts of the rows (rooted at a random vertex: BDeu is score-equivalent), the
posterior by normalising over all d^(d-2) trees, and predictive probabilities
from each tree's posterior-mean CPTs; it shares no code with treelearn.
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import FAST, tables, three_small_columns
from hypothesis import given
from oracles import (
    bdeu_conditional,
    bdeu_family_log_ml,
    spanning_tree_distribution,
    spanning_trees,
    tree_parents,
)
from scipy.special import logsumexp as lse

import treelearn as tl
from treelearn.structure._spanning_sums import (
    edge_marginals,
    log_spanning_tree_sum,
    sample_spanning_tree,
)


# ----------------------------------------------------------------------------- the oracle
class Oracle:
    def __init__(self, df, ess, beta=None, weights=None, seed=0):
        rng = np.random.default_rng(seed)
        self.cols = list(df.columns)
        self.ess, self.weights = ess, weights
        df = self.df = {c: df[c].to_numpy() for c in self.cols}  # plain arrays: fast enough
        d = len(self.cols)
        self.states = {c: sorted(np.unique(df[c]).tolist()) for c in self.cols}
        self.trees = spanning_trees(range(d))
        self.beta = np.ones((d, d)) if beta is None else beta
        log_lik, log_prior, self.parents = [], [], []
        for t in self.trees:
            parent = tree_parents(t, int(rng.integers(d)), range(d))
            self.parents.append(parent)
            log_lik.append(
                sum(
                    bdeu_family_log_ml(
                        df,
                        self.cols[v],
                        [] if p is None else [self.cols[p]],
                        self.states,
                        ess,
                        weights,
                    )
                    for v, p in parent.items()
                )
            )
            with np.errstate(divide="ignore"):
                log_prior.append(sum(np.log(self.beta[u, v]) for u, v in t))
        log_prior = np.array(log_prior) - lse(log_prior)
        joint = np.array(log_lik) + log_prior
        self.log_evidence = lse(joint)
        self.log_post = joint - self.log_evidence
        self.edge_post = np.zeros((d, d))
        for t, lp in zip(self.trees, self.log_post):
            for u, v in t:
                self.edge_post[u, v] += np.exp(lp)
                self.edge_post[v, u] += np.exp(lp)

    def predictive(self, row):
        """P(x | D) for a dict row; None values summed out by enumeration."""
        gaps = [c for c in self.cols if row[c] is None]
        total = 0.0
        for fill in itertools.product(*[self.states[c] for c in gaps]):
            x = dict(row, **dict(zip(gaps, fill)))
            for parent, lp in zip(self.parents, self.log_post):
                prob = 1.0
                for v, p in parent.items():
                    prob *= bdeu_conditional(
                        self.df,
                        self.cols[v],
                        [] if p is None else [self.cols[p]],
                        self.states,
                        self.ess,
                        x,
                        self.weights,
                    )
                total += np.exp(lp) * prob
        return total


def random_frame(seed, d, n, cards=(2, 3)):
    rng = np.random.default_rng(seed)
    data = {}
    prev = None
    for j in range(d):
        k = cards[j % len(cards)]
        col = rng.integers(k, size=n)
        if prev is not None:  # some dependence, so that the posterior is not flat
            copy = rng.random(n) < 0.6
            col = np.where(copy, prev % k, col)
        data[f"x{j}"] = col
        prev = col
    return pd.DataFrame(data)


# ----------------------------------------------------------------------------- spanning sums
def test_log_spanning_tree_sum_matches_networkx():
    rng = np.random.default_rng(1)
    for d in (2, 3, 5, 7):
        G = nx.complete_graph(d)
        assert np.exp(log_spanning_tree_sum(np.zeros((d, d)))) == pytest.approx(
            nx.number_of_spanning_trees(G), rel=1e-12
        )
        W = np.triu(rng.random((d, d)) * 3, 1)
        for u, v in G.edges:
            G.edges[u, v]["w"] = W[u, v]
        with np.errstate(divide="ignore"):
            got = log_spanning_tree_sum(np.log(W + W.T))
        assert np.exp(got) == pytest.approx(nx.number_of_spanning_trees(G, weight="w"), rel=1e-10)


def test_spanning_sums_exact_over_thousands_of_nats():
    # weights spanning ~10,000 nats: floats would overflow; log-space brute force is exact
    rng = np.random.default_rng(2)
    for d in (4, 5, 6):
        L = np.triu(rng.normal(size=(d, d)) * 3000, 1)
        L = L + L.T
        Z, expect = spanning_tree_distribution(L)  # every spanning tree enumerated
        assert log_spanning_tree_sum(L) == pytest.approx(Z, rel=1e-13)
        P, log_z = edge_marginals(L)
        assert log_z == pytest.approx(Z, rel=1e-13)
        np.testing.assert_allclose(P, expect, atol=1e-12)


def test_edge_marginals_with_absent_edges_and_batches():
    d = 5
    rng = np.random.default_rng(3)
    L = np.triu(rng.normal(size=(d, d)), 1)
    L = L + L.T
    L[0, 1] = L[1, 0] = -np.inf  # forbidden edge
    trees = [t for t in spanning_trees(range(d)) if (0, 1) not in t]
    lw = np.array([sum(L[u, v] for u, v in t) for t in trees])
    P, log_z = edge_marginals(L)
    assert log_z == pytest.approx(lse(lw), rel=1e-13)
    assert P[0, 1] == 0.0
    batch = np.stack([L, 2 * L, np.zeros((d, d))])
    expected = [lse(lw), lse(2 * lw), (d - 2) * np.log(d)]
    np.testing.assert_allclose(log_spanning_tree_sum(batch), expected, rtol=1e-13)


def test_disconnected_graph_has_no_tree():
    L = np.full((4, 4), -np.inf)
    L[0, 1] = L[1, 0] = L[2, 3] = L[3, 2] = 0.0
    assert log_spanning_tree_sum(L) == -np.inf
    with pytest.raises(ValueError, match="not connected"):
        edge_marginals(L)


def test_sampled_trees_follow_the_tree_distribution():
    d = 4
    rng = np.random.default_rng(4)
    L = np.triu(rng.normal(size=(d, d)) * 1.5, 1)
    L = L + L.T
    trees = spanning_trees(range(d))
    lw = np.array([sum(L[u, v] for u, v in t) for t in trees])
    p = np.exp(lw - lse(lw))
    n = 4000
    draws = [tuple(sample_spanning_tree(L, rng)) for _ in range(n)]
    freq = np.array([draws.count(tuple(sorted(t))) for t in trees]) / n
    assert freq.sum() == 1.0  # every draw is a spanning tree
    assert np.all(np.abs(freq - p) <= 4.5 * np.sqrt(p * (1 - p) / n) + 1e-3)


# ----------------------------------------------------------------------------- the posterior
@pytest.mark.parametrize(("seed", "d", "ess"), [(0, 3, 1.0), (1, 4, 2.5), (2, 5, 0.7), (3, 6, 1.0)])
def test_posterior_equals_enumeration(seed, d, ess):
    df = random_frame(seed, d, 25)
    oracle = Oracle(df, ess, seed=seed)
    post = tl.tree_posterior(df, equivalent_sample_size=ess)
    assert post.log_evidence == pytest.approx(oracle.log_evidence, rel=1e-11)
    np.testing.assert_allclose(post.edge_posterior_matrix, oracle.edge_post, atol=1e-11)
    G = post.edge_probabilities()
    assert G.number_of_edges() == d * (d - 1) // 2
    assert G["x0"]["x1"]["posterior"] == pytest.approx(oracle.edge_post[0, 1], abs=1e-11)
    frame = post.to_frame()
    assert frame["posterior"].is_monotonic_decreasing and len(frame) == d * (d - 1) // 2
    # E[degree of v]: each tree's degrees weighted by its probability, over every tree
    degrees = np.zeros(d)
    for t, lp in zip(oracle.trees, oracle.log_post):
        for u, v in t:
            degrees[[u, v]] += np.exp(lp)
    assert list(post.expected_degrees.index) == list(df.columns)
    np.testing.assert_allclose(post.expected_degrees.to_numpy(), degrees, atol=1e-10)
    assert post.expected_degrees.sum() == pytest.approx(2 * (d - 1), rel=1e-12)
    # the MAP tree and its probability
    best = int(np.argmax(oracle.log_post))
    m = post.map_tree()
    pos = {c: j for j, c in enumerate(df.columns)}
    got = sorted(tuple(sorted((pos[u], pos[v]))) for u, v in m.graph.edges())
    assert got == sorted(oracle.trees[best])
    assert post.log_tree_probability(m.graph.to_undirected()) == pytest.approx(
        oracle.log_post[best], rel=1e-10
    )
    # its CPTs are the BDeu posterior means of that structure
    ref = tl.fit_cpts(m.graph, df, prior="bdeu", equivalent_sample_size=ess)
    for v in m.variables:
        np.testing.assert_allclose(m.cpt(v), ref.cpt(v), rtol=1e-12)
    # predictive per row, including rows with missing values
    rows = [
        df.iloc[0].to_dict(),
        df.iloc[3].to_dict(),
        {c: (None if j in (1, d - 1) else df.iloc[5][c]) for j, c in enumerate(df.columns)},
    ]
    test = pd.DataFrame(rows, columns=df.columns)
    got = post.log_likelihood(test, per_row=True)
    expect = np.log([oracle.predictive(r) for r in rows])
    np.testing.assert_allclose(got, expect, rtol=1e-10)
    assert post.log_likelihood(test) == pytest.approx(expect.sum(), rel=1e-10)


def test_predictive_is_the_ratio_of_evidences():
    # P(x | D) = P(D, x) / P(D): an identity, not the determinant-ratio formula
    df = random_frame(7, 7, 40)
    post = tl.tree_posterior(df, equivalent_sample_size=1.5)
    for r in (0, 11, 23):
        more = pd.concat([df, df.iloc[[r]]], ignore_index=True)
        ratio = tl.tree_posterior(more, equivalent_sample_size=1.5).log_evidence - post.log_evidence
        assert post.log_likelihood(df.iloc[[r]]) == pytest.approx(ratio, rel=1e-11)


def test_edge_prior_matrix_and_graph():
    df = random_frame(5, 5, 30)
    d = 5
    rng = np.random.default_rng(5)
    beta = rng.random((d, d)) + 0.1
    beta = beta + beta.T
    oracle = Oracle(df, 1.0, beta=beta)
    post = tl.tree_posterior(df, edge_prior=beta)
    assert post.log_evidence == pytest.approx(oracle.log_evidence, rel=1e-11)
    np.testing.assert_allclose(post.edge_posterior_matrix, oracle.edge_post, atol=1e-11)
    # a graph: pairs that are not edges are forbidden
    allowed = nx.complete_graph(list(df.columns))
    allowed.remove_edge("x0", "x1")
    allowed.edges["x2", "x3"]["prior"] = 3.0
    b = np.ones((d, d))
    b[0, 1] = b[1, 0] = 0.0
    b[2, 3] = b[3, 2] = 3.0
    oracle = Oracle(df, 1.0, beta=b)
    post = tl.tree_posterior(df, edge_prior=allowed)
    assert post.log_evidence == pytest.approx(oracle.log_evidence, rel=1e-11)
    np.testing.assert_allclose(post.edge_posterior_matrix, oracle.edge_post, atol=1e-11)
    assert post.edge_posterior_matrix[0, 1] == 0.0


def test_weights_are_repeated_rows_and_fractions_are_counts():
    df = random_frame(8, 4, 20)
    w = np.arange(20) % 3
    a = tl.tree_posterior(df, sample_weight=w)
    b = tl.tree_posterior(df.loc[df.index.repeat(w)])
    assert a.log_evidence == pytest.approx(b.log_evidence, rel=1e-12)
    np.testing.assert_allclose(a.edge_posterior_matrix, b.edge_posterior_matrix, atol=1e-12)
    frac = np.linspace(0.2, 2.0, 20)
    oracle = Oracle(df, 1.0, weights=frac)
    post = tl.tree_posterior(df, sample_weight=frac)
    assert post.log_evidence == pytest.approx(oracle.log_evidence, rel=1e-11)
    np.testing.assert_allclose(post.edge_posterior_matrix, oracle.edge_post, atol=1e-11)


def test_collapsed_posterior_is_the_map_trees_model():
    # 200,000 rows (weights): one tree outweighs all others by hundreds of nats
    df = random_frame(9, 8, 200)
    post = tl.tree_posterior(df, sample_weight=np.full(200, 1000))
    assert np.isfinite(post.log_evidence)
    P = post.edge_posterior_matrix
    assert P.sum() / 2 == pytest.approx(7, abs=1e-9)
    m = post.map_tree()
    pos = {c: j for j, c in enumerate(df.columns)}
    in_map = np.zeros_like(P, dtype=bool)
    for u, v in m.graph.edges():
        in_map[pos[u], pos[v]] = in_map[pos[v], pos[u]] = True
    assert post.log_tree_probability(m.graph.to_undirected()) > -1e-9
    np.testing.assert_allclose(P, in_map.astype(float), atol=1e-9)
    np.testing.assert_allclose(
        post.log_likelihood(df.iloc[:30], per_row=True),
        m.log_likelihood(df.iloc[:30], per_row=True),
        rtol=1e-9,
    )


def test_sample_trees_match_edge_posteriors():
    df = random_frame(10, 4, 12)
    post = tl.tree_posterior(df, equivalent_sample_size=1.0)
    n = 1500
    models = post.sample_trees(n, random_state=0)
    pos = {c: j for j, c in enumerate(df.columns)}
    freq = np.zeros((4, 4))
    for m in models:
        for u, v in m.graph.edges():
            freq[pos[u], pos[v]] += 1 / n
            freq[pos[v], pos[u]] += 1 / n
    P = post.edge_posterior_matrix
    assert np.all(np.abs(freq - P) <= 4.5 * np.sqrt(P * (1 - P) / n) + 1e-3)
    assert [sorted(m.graph.edges()) for m in post.sample_trees(3, random_state=1)] == [
        sorted(m.graph.edges()) for m in post.sample_trees(3, random_state=1)
    ]


def test_k_best_trees_are_the_top_of_the_enumeration():
    df = random_frame(11, 5, 60, cards=(2, 3, 4))
    k = 6
    best = tl.k_best_trees(df, k, alpha=0)
    lls = [m.log_likelihood(df) for m in best]
    # every tree's maximum-likelihood fit, by brute force through fit_cpts
    every = []
    for t in spanning_trees(range(5)):
        G = nx.DiGraph()
        G.add_nodes_from(df.columns)
        parent = tree_parents(t, 0, range(5))
        G.add_edges_from((df.columns[p], df.columns[v]) for v, p in parent.items() if p is not None)
        every.append(tl.fit_cpts(G, df, alpha=0).log_likelihood(df))
    top = sorted(every, reverse=True)[:k]
    np.testing.assert_allclose(lls, top, rtol=1e-12)
    assert best[0] == tl.chow_liu(df, alpha=0)
    smoothed = tl.k_best_trees(df, 2)  # smoothed CPTs (alpha = 1), the same trees
    assert all(m == s for m, s in zip(smoothed, tl.k_best_trees(df, 2, alpha=1.0)))
    assert [sorted(m.graph.edges()) for m in smoothed] == [
        sorted(m.graph.edges()) for m in best[:2]
    ]
    assert len(tl.k_best_trees(df.iloc[:, :3], 10)) == 3  # only 3 trees on 3 vertices


def test_bad_input_fails_loudly():
    df = random_frame(12, 3, 10)
    gap = df.astype(object)
    gap.iloc[0, 1] = None
    with pytest.raises(tl.MissingValuesError):
        tl.tree_posterior(gap)
    with pytest.raises(tl.TreelearnError, match="pairwise"):
        tl.tree_posterior(gap, missing="pairwise")
    dropped = tl.tree_posterior(gap, missing="drop")
    assert dropped.n_rows == 9
    with pytest.raises(tl.TreelearnError, match="equivalent_sample_size == 0, must be"):
        tl.tree_posterior(df, equivalent_sample_size=0)
    with pytest.raises(tl.StructureError, match="3 x 3"):
        tl.tree_posterior(df, edge_prior=np.ones((2, 2)))
    with pytest.raises(tl.StructureError, match="no spanning tree"):
        tl.tree_posterior(df, edge_prior=nx.Graph([("x0", "x1")]))
    with pytest.raises(tl.ColumnNotFoundError):
        tl.tree_posterior(df, edge_prior=nx.Graph([("x0", "zz")]))
    with pytest.raises(tl.TreelearnError, match="k == 0, must be an integer >= 1 and <= 10000"):
        tl.k_best_trees(df, 0)
    # unbounded work is refused before any: the path is never read
    with pytest.raises(tl.TreelearnError, match=r"k == 1000000, .*<= 10000 \(each tree is a model"):
        tl.k_best_trees("no such file.csv", 10**6)
    for k in (True, 2.0, "3"):
        with pytest.raises(tl.TreelearnError, match=f"k == {k!r}"):
            tl.k_best_trees(df, k)
    assert len(tl.k_best_trees(df, np.int64(2))) == 2
    with pytest.raises(tl.TreelearnError, match="k == 10001"):
        tl.tree_posterior(df).sample_trees(10_001)
    post = tl.tree_posterior(df)
    with pytest.raises(tl.ColumnNotFoundError):
        post.log_likelihood(df.drop(columns="x1"))
    with pytest.raises(tl.UnseenStateError):
        post.log_likelihood(df.assign(x0=7))
    before = df.copy()
    tl.tree_posterior(df)
    pd.testing.assert_frame_equal(df, before)


def test_draw_returns_a_figure():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    post = tl.tree_posterior(random_frame(13, 5, 40))
    fig = post.draw(threshold=0.3)
    assert fig.axes and "posterior" in fig.axes[0].get_title()


def test_draw_takes_the_axes_first_as_every_model_draw_does():
    # Model.draw(ax, **kwargs) is the protocol; the posterior's picture took the threshold
    # first, so post.draw(ax) compared each posterior with the Axes (a TypeError)
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    post = tl.tree_posterior(random_frame(13, 5, 40))
    fig, ax = plt.subplots()
    assert post.draw(ax) is fig
    frame = post.to_frame()
    expected = sorted(f"{p:.2f}" for p in frame["posterior"] if p >= 0.5)
    names = set(frame["u"]) | set(frame["v"])
    drawn = sorted(t.get_text() for t in ax.texts if t.get_text() not in names)
    assert drawn == expected and len(expected) == 4  # the edges of posterior >= 0.5
    plt.close(fig)
    with pytest.raises(tl.TreelearnError, match=r"draw\(threshold=0.3\)"):
        post.draw(0.3)
    with pytest.raises(TypeError, match="bogus"):
        post.draw(bogus=True)


# ----------------------------------------------------------------------------- Bayesian TAN
def test_bayesian_tan_equals_enumeration_over_feature_trees():
    rng = np.random.default_rng(14)
    n, d = 30, 4
    y = rng.integers(3, size=n)
    X = random_frame(14, d, n)
    X["x0"] = np.where(rng.random(n) < 0.5, y % 2, X["x0"])
    ess = 1.7
    full = X.assign(c=y)
    cols = list(X.columns)
    arr = {c: full[c].to_numpy() for c in full.columns}
    states = {c: sorted(np.unique(arr[c]).tolist()) for c in full.columns}
    r_c = len(states["c"])

    def fam(child, parents):  # BDeu family marginal likelihood, parents a list
        return bdeu_family_log_ml(arr, child, parents, states, ess)

    def cond(child, parents, x):
        return bdeu_conditional(arr, child, parents, states, ess, x)

    trees = spanning_trees(range(d))
    log_post, parent_sets = [], []
    for t in trees:
        parent = tree_parents(t, 0, range(d))
        ps = {cols[v]: ["c"] + ([] if p is None else [cols[p]]) for v, p in parent.items()}
        parent_sets.append(ps)
        log_post.append(fam("c", []) + sum(fam(v, pv) for v, pv in ps.items()))
    log_post = np.array(log_post) - lse(log_post)
    # every class arc (TBMATAN); class_arcs="average": tests/test_bayes_tan_arc_averaging.py
    clf = tl.BayesianTAN(numbers="states", equivalent_sample_size=ess, class_arcs="all")
    clf.fit(X, y)
    edge = np.zeros((d, d))
    for t, lp in zip(trees, log_post):
        for u, v in t:
            edge[u, v] += np.exp(lp)
            edge[v, u] += np.exp(lp)
    np.testing.assert_allclose(clf.edge_posteriors_, edge, atol=1e-11)
    test = X.iloc[:6].astype(object).copy()
    test.iloc[2, 1] = None
    got = clf.predict_proba(test)
    for i in range(len(test)):
        row = test.iloc[i].to_dict()
        gaps = [c for c in cols if row[c] is None]
        joint = np.zeros(r_c)
        for k, cval in enumerate(states["c"]):
            for fill in itertools.product(*[states[g] for g in gaps]):
                x = dict(row, **dict(zip(gaps, fill)), c=cval)
                for ps, lp in zip(parent_sets, log_post):
                    p = cond("c", [], x)
                    for v, pv in ps.items():
                        p *= cond(v, pv, x)
                    joint[k] += np.exp(lp) * p
        np.testing.assert_allclose(got[i], joint / joint.sum(), rtol=1e-10)
    assert list(clf.predict(X.iloc[:6])) == list(np.array(states["c"])[got.argmax(axis=1)])


def test_bayesian_tan_is_a_sklearn_classifier():
    from sklearn.base import clone
    from sklearn.model_selection import cross_val_score

    df = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
    X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
    assert cross_val_score(tl.BayesianTAN(numbers="states"), X, y, cv=2).shape == (2,)
    assert clone(tl.BayesianTAN(numbers="states", equivalent_sample_size=3.0)).get_params() == {
        "equivalent_sample_size": 3.0,
        "numbers": "states",  # the options of every classifier that counts states
        "categorical": None,
        "class_arcs": "average",
        "arc_prior": 0.5,
    }
    w = np.arange(len(X)) % 3
    a = tl.BayesianTAN(numbers="states").fit(X, y, sample_weight=w).predict_proba(X)
    b = (
        tl.BayesianTAN(numbers="states")
        .fit(X.loc[X.index.repeat(w)], y.loc[y.index.repeat(w)])
        .predict_proba(X)
    )
    np.testing.assert_allclose(a, b, rtol=1e-12)
    gap = X.astype(object)
    gap.iloc[0, 0] = None  # counted pairwise (tests/test_missing_cells_structure.py)
    proba = tl.BayesianTAN(numbers="states").fit(gap, y).predict_proba(gap)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    with pytest.raises(
        tl.TreelearnError,
        match=r"equivalent_sample_size == -1, must be a "
        r"finite number > 0",
    ):
        tl.BayesianTAN(numbers="states", equivalent_sample_size=-1).fit(X, y)
    clf = tl.BayesianTAN(numbers="states").fit(X, y)
    with pytest.raises(tl.FeatureMismatchError, match=r"missing \['Wind'\]"):
        clf.predict(X.drop(columns="Wind"))
    # extra columns are refused as by every classifier (they were dropped silently)
    with pytest.raises(tl.FeatureMismatchError, match=r"unexpected \['PlayTennis'\].*is the class"):
        clf.predict(df)
    # the class prior is BDeu's posterior mean (n_c + s / r_C) / (n + s), counted here
    counts = y.value_counts().sort_index().to_numpy()
    np.testing.assert_allclose(np.exp(clf.class_log_prior_), (counts + 0.5) / (counts.sum() + 1))
    # the minimum expected loss decision, as every classifier's
    L = np.array([[0, 1], [10, 0]])
    np.testing.assert_array_equal(
        clf.predict(X, loss=L), clf.classes_[np.argmin(clf.predict_proba(X) @ L, axis=1)]
    )


# ---------------------------------------------------------------------- Hypothesis: random tables, weights
@FAST
@given(tables(min_columns=2, max_columns=3))
def test_tree_posterior_marginals_are_a_brute_force_sum(data):
    df, w = data
    w = np.rint(w * 2) / 2 + 0.5  # tree_posterior's counts: any positive weights
    try:
        post = tl.tree_posterior(df, sample_weight=w)
    except tl.TreelearnError:
        return
    # P(T | D) over every spanning tree, by enumeration: the normaliser and the edge marginals
    log_z, marg = spanning_tree_distribution(post.log_weights)
    assert post.log_normaliser == pytest.approx(log_z, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(post.edge_posterior_matrix, marg, atol=1e-10)


# ---------------------------------------------------------------------------------- hostile inputs
SMALL, SMALL_Y = three_small_columns()  # 80 rows of 3 small columns, 80 labels


def test_tree_posterior_bad_inputs():
    with pytest.raises(tl.StructureError, match="edge_prior must be a 3 x 3 matrix of numbers"):
        tl.tree_posterior(SMALL, edge_prior="x")
    post = tl.tree_posterior(SMALL)
    # by hand: log P(T) = sum of the edges' log weights - log Z; a repeated edge is no tree
    single = post.log_tree_probability([("a", "b"), ("b", "c")])
    pos = {v: j for j, v in enumerate(post.variables)}
    assert single == pytest.approx(
        post.log_weights[pos["a"], pos["b"]]
        + post.log_weights[pos["b"], pos["c"]]
        - post.log_normaliser
    )
    for edges in ([("a", "b"), ("a", "b"), ("b", "c")], [("a", "b"), ("b", "a"), ("b", "c")]):
        with pytest.raises(tl.StructureError, match="spanning tree"):
            post.log_tree_probability(edges)
