"""Round-off made visible on any machine (tests/test_round_off.py covers pair counts, EM's
expected counts and mixture responsibilities): every quantity that is non-negative or
normalised by construction, here of the estimators added since, on inputs built to cancel
(weights of 1 - 1e-16 and 1e-16, values that differ by one part in 1e16, log-likelihoods
equal but for the last bit)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import treelearn as tl

EPS = np.finfo(float).eps


def _cancelling_weights(n, seed):
    """Rows of weight 1 - 1e-16 (that is 1 - eps/2 rounded: 1 or 1 - eps) and 1e-16."""
    rng = np.random.default_rng(seed)
    return np.where(rng.random(n) < 0.5, 1 - 1e-16, 1e-16) * (1 + EPS * rng.integers(0, 3, n))


def _assert_distributions(cpt, where):
    cpt = np.asarray(cpt, dtype=float)
    assert (cpt >= 0).all(), f"{where}: negative probability {cpt.min()!r}"
    np.testing.assert_allclose(cpt.sum(axis=-1), 1.0, rtol=0, atol=1e-12, err_msg=where)


def _table(seed, n=300):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = a | rng.integers(0, 2, n)  # an implication: a structural zero (a=1, b=0)
    c = rng.integers(0, 3, n)
    return pd.DataFrame({"a": a, "b": b, "c": c})


@pytest.mark.parametrize("seed", range(3))
def test_latent_and_cutset_models_keep_their_cpts_distributions(seed):
    data, w = _table(seed), _cancelling_weights(300, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hidden = tl.HiddenTree(n_states=2, alpha=0, max_iter=5, random_state=seed).fit(
            data, sample_weight=w
        )
        cutset = tl.CutsetNetwork(max_depth=1, min_rows=1e-3, alpha=0).fit(data, sample_weight=w)
    network = hidden.model_.network  # every CPT: the latents' and the columns'
    for v in network.variables:
        _assert_distributions(network.cpt(v), f"HiddenTree {v!r}")
    assert np.isfinite(hidden.score_samples(data)).all()
    scores = cutset.score_samples(data)
    assert not np.isnan(scores).any()
    # the training rows have probability > 0 under the ML cutset network
    assert np.isfinite(scores[w > 0.5]).all()


def test_tree_posterior_edge_marginals_stay_probabilities_on_near_ties():
    # four columns that copy one another up to one differing row: every edge weight ties
    # up to round-off, the Laplacian is near-singular in its cancellations
    rng = np.random.default_rng(3)
    base = rng.integers(0, 2, 400)
    data = pd.DataFrame({f"v{j}": base.copy() for j in range(4)})
    data.iloc[0, 1] ^= 1
    w = np.full(400, 1 - 1e-16)
    post = tl.tree_posterior(data, sample_weight=w)
    marg = post.edge_posterior_matrix
    assert ((marg >= 0) & (marg <= 1)).all()
    # every spanning tree has d - 1 edges: the marginals add up to d - 1 (twice, symmetric)
    assert marg.sum() == pytest.approx(2 * 3, abs=1e-9)


def test_gaussian_variances_of_values_that_differ_in_the_last_digits():
    # sd 1e-7 around 1e8: one part in 1e15 of the values; the variance is small but > 0
    rng = np.random.default_rng(4)
    data = pd.DataFrame({"u": 1e8 + 1e-7 * rng.normal(size=200), "v": rng.normal(size=200)})
    y = (data["v"] > 0).astype(int)
    for clf in (tl.GaussianClassifier(covariance="diagonal"), tl.MixedNaiveBayes()):
        try:
            clf.fit(data, y)
        except tl.TreelearnError:
            continue  # "constant": also loud
        proba = clf.predict_proba(data)
        assert ((proba >= 0) & (proba <= 1)).all()
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    try:
        model = tl.gaussian_chow_liu(data)
    except tl.TreelearnError:
        return
    assert all(model.graph.nodes[v]["variance"] > 0 for v in model.variables)


def test_posteriors_of_classes_equal_to_the_last_bit():
    # two classes whose joint log-likelihoods differ by one ulp: the posterior is 1/2 each,
    # never outside [0, 1] and never summing to other than 1
    X = pd.DataFrame({"a": [0, 1] * 50, "b": [0, 0, 1, 1] * 25})
    y = np.array([0, 1] * 50)
    w = np.where(y == 0, 1.0, 1.0 + EPS)  # class weights equal but for the last bit
    for clf in (
        tl.NaiveBayes(),
        tl.TAN(),
        tl.AODE(),
        tl.KDB(k=1),
        tl.BayesianTAN(),
        tl.ChowLiuMultinet(),
    ):
        proba = clf.fit(X, y, sample_weight=w).predict_proba(X)
        assert ((proba >= 0) & (proba <= 1)).all(), type(clf).__name__
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-15)
        assert np.isfinite(clf.class_log_prior_).all()
        np.testing.assert_allclose(np.exp(clf.class_log_prior_).sum(), 1.0, atol=1e-15)
