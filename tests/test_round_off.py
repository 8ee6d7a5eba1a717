"""Round-off made visible on any machine: quantities non-negative by construction stay so.

Counts are sums of non-negative weights; some are computed as differences (state 0 of
a variable from its other states, EM's expected pairs as a product plus corrections).
The sign of what such a difference leaves where the exact answer is 0 depends on the
BLAS kernel's summation order, so a check that only fails on another CPU is a check
that fails too late. These inputs are built so that the exact answer is a structural
zero (an implication, a copy, a constant column) under fractional weights, the
situation in which the subtraction's residue appears; every assertion is exact
(``== 0``, ``>= 0``) or against weighted sums computed by pandas.

The estimators added since (latent and cutset models, the tree posterior's edge
marginals, Gaussian variances, class posteriors) keep every quantity that is
non-negative or normalised by construction so on inputs built to cancel: weights of
1 - 1e-16 and 1e-16, values that differ by one part in 1e16, log-likelihoods equal but
for the last bit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.learners._em import expected_counts
from treelearn.stats._counts import PairCounts, drop_round_off


def implication_frame(seed: int, n: int = 12_000, d: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.integers(0, 2, (n, d)), columns=[f"v{j}" for j in range(d)])
    df["v1"] = df["v0"] | df["v2"]  # v0 = 1 and v1 = 0 never occur together
    return df


@pytest.mark.parametrize("seed", range(8))
def test_fractional_weights_leave_structural_zeros_exactly_zero(seed):
    df = implication_frame(seed)
    w = np.random.default_rng(100 + seed).random(len(df))
    model = tl.chow_liu(df, sample_weight=w, alpha=0)  # a negative count was a CPT error
    joint = model.counts.joint
    assert (joint >= 0).all()
    i, j = model.variables.index("v0"), model.variables.index("v1")
    assert model.counts.block(i, j)[1, 0] == 0.0  # exactly, not -1.8e-12 or +1.8e-12
    # the other cells are the weighted frequencies pandas sums directly
    expect = pd.Series(w).groupby([df["v0"], df["v1"]]).sum().unstack(fill_value=0.0)
    np.testing.assert_allclose(model.counts.block(i, j), expect.to_numpy(), rtol=1e-12)
    # a maximum-likelihood CPT holds the exact zero: P(v1 = 0 | v0 = 1) = 0, score -inf
    impossible = df.head(1).assign(v0=1, v1=0)
    if model.parents("v1") == ["v0"]:
        assert model.cpt("v1")[1, 0] == 0.0
    assert model.log_likelihood(impossible) == -np.inf


@pytest.mark.parametrize("seed", range(5))
def test_an_absent_declared_state_has_an_exact_zero_count(seed):
    """State 0 of a 3-state column is never seen: its count is the total minus the counts
    of states 1 and 2, two sums over different rows whose float total is not the float
    sum over all rows (on any kernel); the difference must come out exactly 0."""
    rng = np.random.default_rng(seed)
    n = 12_000
    df = pd.DataFrame({"c": rng.integers(1, 3, n), "x": rng.integers(0, 2, n)})
    w = rng.random(n)
    model = tl.chow_liu(df, sample_weight=w, states={"c": [0, 1, 2]}, root="c", alpha=0)
    assert model.counts.marginal(0).tolist()[0] == 0.0
    assert model.cpt("c")[0] == 0.0
    assert (model.counts.block(0, 1)[0] == 0).all()
    expect = pd.Series(w).groupby([df["c"], df["x"]]).sum().unstack().to_numpy()
    np.testing.assert_allclose(model.counts.block(0, 1)[1:], expect, rtol=1e-12)


def test_constant_column_with_declared_states_has_an_exact_zero_count():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"c": np.ones(12_000, dtype=int), "x": rng.integers(0, 3, 12_000)})
    w = rng.random(len(df))
    model = tl.chow_liu(df, sample_weight=w, states={"c": [0, 1]}, alpha=0)
    marginal = model.counts.marginal(model.variables.index("c"))
    assert marginal[0] == 0.0
    assert marginal[1] == pytest.approx(w.sum(), rel=1e-12)
    assert (model.cpt("c")[..., 0] == 0).all()  # P(c = 0 | anything) = 0 exactly


@pytest.mark.parametrize("tiny_weight", [1e-16, 1e-300])
def test_weights_of_one_minus_epsilon(tiny_weight):
    """Responsibilities of ``1 - 1e-16`` and ``1e-16``: each cell is a sum of the two
    kinds, so the subtraction cancels to the last bit."""
    rng = np.random.default_rng(1)
    n = 5_000
    a = rng.integers(0, 3, n)
    df = pd.DataFrame({"a": a, "b": a, "c": (a + rng.integers(0, 2, n)) % 3})  # b copies a
    w = np.where(rng.random(n) < 0.5, 1 - 1e-16, tiny_weight)
    model = tl.chow_liu(df, sample_weight=w)
    block = model.counts.block(0, 1)
    assert (block[~np.eye(3, dtype=bool)] == 0).all()  # b == a: off-diagonal exactly 0
    expect = pd.Series(w).groupby(a).sum().to_numpy()
    np.testing.assert_allclose(np.diag(block), expect, rtol=1e-12)


def copy_chain(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    noisy = np.where(rng.random(n) < 0.9, a, rng.integers(0, 3, n))
    return pd.DataFrame({"a": a, "b": a.copy(), "c": noisy, "d": (noisy + 1) % 3})


@pytest.mark.parametrize("seed", range(6))
def test_em_expected_counts_are_non_negative_and_exactly_zero_where_impossible(seed):
    df = copy_chain(3_000, seed)
    model = tl.chow_liu(df, alpha=0.1, root="a")
    codes = model.encode(df).codes.astype(np.int64)
    rng = np.random.default_rng(50 + seed)
    codes[rng.random(codes.shape) < 0.4] = -1
    weights = np.where(rng.random(len(codes)) < 0.5, 1 - 1e-16, 0.3)
    for all_pairs in (False, True):
        pairs, _ = expected_counts(model, codes, weights, all_pairs=all_pairs)
        assert (pairs.joint >= 0).all()
        o = pairs.offsets
        for j in range(len(model.variables)):  # a variable's own block is diagonal
            own = pairs.joint[o[j] : o[j + 1], o[j] : o[j + 1]]
            assert (own[~np.eye(len(own), dtype=bool)] == 0).all()
    # the expected marginals are the weighted node posteriors, whatever rows were merged
    np.testing.assert_allclose(pairs.marginal(0).sum(), weights.sum(), rtol=1e-12)


@pytest.mark.parametrize("mask", [0.1, 0.2, 0.3])
def test_structural_em_on_asia_with_masked_cells(mask):
    """The case that failed on another CPU (expected counts of -1.4e-17)."""
    df = pd.read_csv("datasets/asia.csv").head(3000)
    data = df.mask(np.random.default_rng(7).random(df.shape) < mask)
    model = tl.chow_liu(data, missing="em", alpha=0)  # maximum likelihood: EM never lowers it
    history = model.settings["em_log_likelihood"]
    assert (np.diff(history) >= -1e-9).all()
    for v in model.variables:
        assert (model.cpt(v) >= 0).all()


def test_pair_counts_clip_negative_round_off_without_touching_the_callers_array():
    joint = np.array([[2.0, -1e-17], [-1e-17, 1.0]])
    pc = PairCounts(joint, np.array([2]), 3.0)
    assert pc.joint.tolist() == [[2.0, 0.0], [0.0, 1.0]]
    assert joint[0, 1] == -1e-17


def test_drop_round_off_keeps_values_above_the_bound():
    scale = np.array([1e4, 1e4, 1.0])
    values = np.array([1e-13, 1e-9, 1e-15])  # 8 * 2 * eps * 1e4 = 3.6e-11; 8 * 2 * eps = 3.6e-15
    assert drop_round_off(values.copy(), scale, 2).tolist() == [0.0, 1e-9, 0.0]


def test_mixture_responsibilities_as_weights_never_give_nan_weights():
    """TreeMixture's responsibilities are fractional row weights; on DEBD's pumsb_star they
    left counts of -1e-12, a NaN mutual information and a bare ValueError after 13 EM
    iterations. A table of the same kind (sparse binary, many near-implications), made here."""
    rng = np.random.default_rng(0)
    n, d = 3_000, 40
    base = rng.random((n, 1)) < 0.3
    X = (rng.random((n, d)) < 0.05) | base & (rng.random((n, d)) < 0.9)
    X[:, 1] = X[:, 0] | X[:, 2]  # implications give structural zeros within components
    X[:, 3] = X[:, 1]
    df = pd.DataFrame(X.astype(int))
    model = tl.TreeMixture(n_components=4, random_state=0, max_iter=40).fit(df)
    for component in model.components_:
        assert (component.counts.joint >= 0).all() if component.counts is not None else True
        for v in component.variables:
            assert np.isfinite(component.cpt(v)).all()
    assert np.isfinite(model.score_samples(df)).all()


def test_a_nan_spanning_tree_weight_is_a_treelearn_error():
    from treelearn.structure._trees import spanning_tree_edges

    with pytest.raises(tl.TreelearnError, match=r"NaN found as the weight of the pair \(0, 1\)"):
        spanning_tree_edges(np.array([[0.0, np.nan], [np.nan, 0.0]]))


def test_non_finite_counts_are_refused():
    with pytest.raises(tl.TreelearnError, match="NaN or infinite"):
        PairCounts(np.array([[np.nan]]), np.array([1]), 1.0)


# ---------------------- the estimators added since: latent, cutset, posterior, Gaussian, classes
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
