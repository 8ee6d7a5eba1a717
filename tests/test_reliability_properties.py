"""Property tests, one per estimator family: random small tables, row weights and options
give a TreelearnError or the answer of an independent oracle (brute force over every
spanning tree, scikit-learn, numpy's weighted moments). Few examples each (the suite stays
fast); a failure prints the smallest table Hypothesis finds."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import spanning_tree_distribution, spanning_trees, tree_ml_loglik
from sklearn.naive_bayes import CategoricalNB, MultinomialNB

import treelearn as tl

FAST = settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def tables(draw, min_columns=2, max_columns=4):
    """A table of small integer states, every state of a column seen, and row weights
    (whole, fractional or with zeros)."""
    d = draw(st.integers(min_columns, max_columns))
    n = draw(st.integers(4, 30))
    cards = draw(st.lists(st.integers(2, 3), min_size=d, max_size=d))
    cols = {}
    for j, k in enumerate(cards):
        body = draw(st.lists(st.integers(0, k - 1), min_size=n - k, max_size=n - k))
        cols[f"v{j}"] = [*range(k), *body]  # every state once at least
    kind = draw(st.sampled_from(["none", "whole", "fractional"]))
    if kind == "none":
        w = np.ones(n)
    elif kind == "whole":
        w = np.array(draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)), float)
    else:
        w = np.array(draw(st.lists(st.floats(0.01, 3.0), min_size=n, max_size=n)))
    return pd.DataFrame(cols), w


@FAST
@given(tables())
def test_chow_liu_is_the_best_of_every_spanning_tree(data):
    df, w = data
    try:
        model = tl.chow_liu(df, sample_weight=w, alpha=0)
    except tl.TreelearnError:
        return
    cache: dict = {}  # each column's and pair's weighted counts, once
    best = max(
        tree_ml_loglik(df, tree, weights=w, cache=cache) for tree in spanning_trees(df.columns)
    )
    got = model.log_likelihood(df, sample_weight=w)
    assert got == pytest.approx(best, rel=1e-9, abs=1e-9)
    # every CPT is a distribution, with no negative round-off
    for v in model.variables:
        cpt = np.asarray(model.cpt(v))
        assert (cpt >= 0).all() and np.allclose(cpt.sum(axis=-1), 1, atol=1e-12)


@FAST
@given(tables(), st.sampled_from([0.5, 1.0, 2.0]))
def test_naive_bayes_equals_categorical_nb(data, alpha):
    df, w = data
    X, y = df.iloc[:, :-1], df.iloc[:, -1].to_numpy()
    try:
        clf = tl.NaiveBayes(alpha=alpha).fit(X, y, sample_weight=w)
    except tl.TreelearnError:
        return
    cards = [int(X[c].max()) + 1 for c in X.columns]
    cnb = CategoricalNB(alpha=alpha, min_categories=cards).fit(X.to_numpy(), y, sample_weight=w)
    np.testing.assert_allclose(
        clf.predict_proba(X), cnb.predict_proba(X.to_numpy()), rtol=0, atol=1e-10
    )


@FAST
@given(tables(min_columns=3))
def test_a_mixture_of_one_tree_is_the_chow_liu_tree(data):
    df, w = data
    try:
        mix = tl.TreeMixture(n_components=1, alpha=1.0, random_state=0).fit(df, sample_weight=w)
    except tl.TreelearnError:
        return
    tree = tl.chow_liu(df, sample_weight=w, alpha=1.0)
    np.testing.assert_allclose(
        mix.score_samples(df), tree.log_likelihood(df, per_row=True), rtol=1e-10, atol=1e-10
    )


@st.composite
def gaussian_tables(draw):
    n = draw(st.integers(8, 40))
    d = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**31))
    scale = draw(st.sampled_from([1e-3, 1.0, 1e4]))
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        rng.normal(size=(n, d)) * scale + draw(st.sampled_from([0.0, 1e6])),
        columns=[f"x{j}" for j in range(d)],
    )
    y = np.r_[[0, 1] * 4, rng.integers(0, 2, n - 8)]
    w = rng.random(n) + 0.1 if draw(st.booleans()) else np.ones(n)
    return X, y, w


def _gaussian_posterior(X, y, w, test, reg):
    """Per class: the weighted ML mean and covariance (shrunk: ``(1 - reg) S + reg I``),
    the density by scipy, the prior from the weights."""
    from scipy.stats import multivariate_normal

    logs = []
    for c in (0, 1):
        rows, wc = X[y == c], w[y == c]
        mean = np.average(rows, axis=0, weights=wc)
        cov = (1 - reg) * np.atleast_2d(np.cov(rows.T, aweights=wc, bias=True)) + reg * np.eye(
            X.shape[1]
        )
        logs.append(
            np.log(wc.sum() / w.sum())
            + multivariate_normal(mean, cov, allow_singular=False).logpdf(test)
        )
    logs = np.column_stack(logs)
    return np.exp(logs - np.logaddexp(logs[:, :1], logs[:, 1:]))


@FAST
@given(gaussian_tables())
def test_gaussian_classifier_equals_weighted_moments(data):
    X, y, w = data
    reg = 1e-3  # keeps a class of few rows non-singular
    try:
        clf = tl.GaussianClassifier(reg=reg).fit(X, y, sample_weight=w)
    except tl.TreelearnError:
        return
    expected = _gaussian_posterior(X.to_numpy(), y, w, X.to_numpy(), reg)
    got = clf.predict_proba(X)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)


@FAST
@given(st.integers(0, 2**31), st.sampled_from([0.1, 1.0]), st.booleans())
def test_text_naive_bayes_equals_multinomial_nb(seed, alpha, weighted):
    rng = np.random.default_rng(seed)
    X = rng.poisson(rng.random(5) * 3, size=(20, 5))
    y = np.r_[[0, 1], rng.integers(0, 2, 18)]
    w = rng.random(20) + 0.1 if weighted else None
    clf = tl.TextNaiveBayes(alpha=alpha).fit(X, y, sample_weight=w)
    ref = MultinomialNB(alpha=alpha, force_alpha=True).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(clf.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-10)


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


def test_the_property_tests_reach_their_oracles():
    # the properties return early on a TreelearnError; most drawn tables must not
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reached = 0
        for seed in range(10):
            rng = np.random.default_rng(seed)
            df = pd.DataFrame(rng.integers(0, 2, size=(20, 3)), columns=["a", "b", "c"])
            df.iloc[:2] = [[0, 0, 0], [1, 1, 1]]
            try:
                tl.chow_liu(df, sample_weight=rng.random(20), alpha=0)
                tl.NaiveBayes().fit(df[["a", "b"]], df["c"], sample_weight=rng.random(20))
                reached += 1
            except tl.TreelearnError:
                pass
    assert reached == 10
