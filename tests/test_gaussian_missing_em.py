"""GaussianClassifier(covariance="full"/"shared") learned by EM from rows with missing cells
(issue 39), checked against oracles computed another way:

* the EM fixed point equals the maximiser of the observed-data log-likelihood found by
  scipy.optimize over (means, Cholesky factors), the likelihood written with
  scipy.stats.multivariate_normal on each row's observed block;
* the observed-data log-likelihood never decreases over EM's iterations;
* a complete table gives the closed form (numpy's covariances), in one step;
* predict_log_proba with missing cells equals scipy's density of the observed block
  plus the class prior, normalised;
* integer sample weights equal repeated rows; a file read in chunks equals the table;
* a real table with holes (penguins) in 5-fold CV: finite log-loss, accuracy above the
  majority class.
"""

from __future__ import annotations

import os
import warnings
from functools import partial

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold, cross_val_score

import treelearn as tl
from treelearn.classifiers._gaussian import gaussian_parameters
from treelearn.classifiers._gaussian_em import em_class_gaussians
from treelearn.stats._gaussian_missing import (
    expected_class_gaussians,
    gap_groups,
    observed_log_densities,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PENGUINS = os.path.join(ROOT, "datasets", "real", "penguins.csv")


def holey(n: int = 70, d: int = 3, seed: int = 0, gap: float = 0.25, k: int = 2):
    """Correlated Gaussian rows per class, ``gap`` of the cells missing at random."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    mix = rng.normal(size=(k, d, d)) + 2 * np.eye(d)
    X = np.einsum("nj,nij->ni", rng.normal(size=(n, d)), mix[y]) + 3.0 * y[:, None]
    X[rng.random((n, d)) < gap] = np.nan
    return X, y


def observed_log_likelihood(X, y, means, covs):
    """``sum_rows log N(x_o; mu_o, Sigma_oo)`` of the class-``y`` rows with scipy, the rows
    of one class and one pattern of gaps at a time."""
    total = 0.0
    holes = np.isnan(X)
    for c in np.unique(y):
        for hole in np.unique(holes[y == c], axis=0):
            rows = (y == c) & (holes == hole).all(axis=1)
            o = ~hole
            if o.any():
                block = X[np.ix_(rows, o)]
                dist = multivariate_normal(means[c][o], covs[c][np.ix_(o, o)])
                total += np.sum(dist.logpdf(block))
    return total


def unpack(theta, k, d, shared):
    """``(means k x d, covariances k x d x d)`` from free parameters: the means, then the
    lower Cholesky factor(s) with the log of their diagonal."""
    means = theta[: k * d].reshape(k, d)
    rest = theta[k * d :]
    rows, cols = np.tril_indices(d)
    covs = []
    for c in range(1 if shared else k):
        L = np.zeros((d, d))
        L[rows, cols] = rest[c * len(rows) : (c + 1) * len(rows)]
        L[np.diag_indices(d)] = np.exp(np.diag(L))
        covs.append(L @ L.T)
    return means, np.array(covs if not shared else covs * k)


def maximiser(X, y, k, shared):
    """The observed-data ML estimates by BFGS from the complete-case estimates (each class
    on its own for per-class covariances: the problems are independent)."""
    d = X.shape[1]
    if not shared and k > 1:
        parts = [
            maximiser(X[y == c], np.zeros((y == c).sum(), dtype=int), 1, True) for c in range(k)
        ]
        return (
            np.concatenate([p[0] for p in parts]),
            np.concatenate([p[1] for p in parts]),
            sum(p[2] for p in parts),
        )
    complete = ~np.isnan(X).any(axis=1)
    start = []
    for c in range(k):
        start.extend(np.nanmean(X[y == c], axis=0))
    rows, cols = np.tril_indices(d)
    for c in range(1 if shared else k):
        part = X[complete & ((y == c) | shared)]
        L = np.linalg.cholesky(np.cov(part.T, bias=True))
        L[np.diag_indices(d)] = np.log(np.diag(L))
        start.extend(L[rows, cols])

    def loss(theta):
        means, covs = unpack(theta, k, d, shared)
        return -observed_log_likelihood(X, y, means, covs)

    res = minimize(loss, np.array(start), method="BFGS", options={"gtol": 1e-9, "maxiter": 5000})
    means, covs = unpack(res.x, k, d, shared)
    return means, covs, -res.fun


@pytest.mark.parametrize(
    ("covariance", "d", "seed"), [("full", 2, 0), ("full", 3, 1), ("shared", 3, 2)]
)
def test_the_em_fixed_point_maximises_the_observed_likelihood(covariance, d, seed):
    X, y = holey(d=d, seed=seed)
    clf = tl.GaussianClassifier(covariance, tol=1e-13, max_iter=5000).fit(X, y)
    shared = covariance == "shared"
    covs = np.broadcast_to(clf.covariances_, (2, d, d)) if shared else clf.covariances_
    means, opt_covs, best = maximiser(X, y, 2, shared)
    em = observed_log_likelihood(X, y, clf.means_, covs)
    # EM's point is at least as high as the optimiser's, and the two are the same point
    # (BFGS's gradient tolerance 1e-9 on numerical gradients: parameters to ~1e-5)
    assert em >= best - 1e-8
    np.testing.assert_allclose(clf.means_, means, atol=1e-4)
    np.testing.assert_allclose(covs, opt_covs, atol=1e-4)


@pytest.mark.parametrize("covariance", ["full", "shared"])
def test_the_observed_likelihood_never_decreases(covariance):
    X, y = holey(n=120, d=4, seed=3, gap=0.35, k=3)
    m_step = partial(gaussian_parameters, covariance=covariance, reg=0.0, var_prior=0.0)
    out = em_class_gaussians(X, y, m_step=m_step, tol=0.0, max_iter=40)
    trace = np.array(out.log_likelihood)
    assert len(trace) >= 10  # tol 0: steps until the likelihood stops changing at all
    # each E-step's log-likelihood is the scipy one at the parameters it was given
    means, covs = m_step(out.statistics)
    assert trace[0] < trace[-1]
    # rounding in sums of ~500 terms of size ~10: 1e-9 absolute
    assert (np.diff(trace) >= -1e-9).all(), np.diff(trace).min()
    again = expected_class_gaussians(
        ["a", "b", "c", "d"], X, y, [0, 1, 2], means=means, covariances=covs
    ).log_likelihood.sum()
    covs = np.broadcast_to(covs, (3, 4, 4)) if covariance == "shared" else covs
    np.testing.assert_allclose(again, observed_log_likelihood(X, y, means, covs), rtol=1e-12)


@pytest.mark.parametrize("covariance", ["full", "shared"])
def test_a_complete_table_gives_the_closed_form_in_one_step(covariance):
    X, y = holey(gap=0.0)
    clf = tl.GaussianClassifier(covariance).fit(X, y)
    assert clf.n_iter_ == 1  # the closed form: one step
    per_class = np.array([np.cov(X[y == c].T, bias=True) for c in (0, 1)])
    expected = (
        per_class if covariance == "full" else np.tensordot(np.bincount(y) / len(y), per_class, 1)
    )
    np.testing.assert_allclose(clf.covariances_, expected, rtol=1e-12)
    # EM forced on complete rows: its statistics are the closed form whatever the start
    m_step = partial(gaussian_parameters, covariance=covariance, reg=0.0, var_prior=0.0)
    out = em_class_gaussians(X, y, m_step=m_step)
    np.testing.assert_allclose(out.statistics.covariance, per_class, rtol=1e-12)
    assert out.converged and out.n_iter <= 3


@pytest.mark.parametrize("covariance", ["full", "shared"])
def test_predictions_with_gaps_are_the_observed_blocks_density(covariance):
    X, y = holey(seed=4)
    clf = tl.GaussianClassifier(covariance).fit(X, y)
    rows = np.array([[0.5, np.nan, 2.0], [np.nan, np.nan, 4.0], [1.0, -1.0, np.nan]])
    covs = np.broadcast_to(clf.covariances_, (2, 3, 3))
    prior = np.bincount(y) / len(y)
    for row, got in zip(rows, clf.predict_log_proba(rows), strict=True):
        o = ~np.isnan(row)
        joint = [
            np.log(prior[c])
            + multivariate_normal(clf.means_[c, o], covs[c][np.ix_(o, o)]).logpdf(row[o])
            for c in (0, 1)
        ]
        np.testing.assert_allclose(got, np.array(joint) - logsumexp(joint), rtol=1e-10, atol=1e-12)


def test_integer_weights_equal_repeated_rows_and_a_file_equals_the_table(tmp_path):
    X, y = holey(seed=5)
    w = np.arange(len(y)) % 3 + 1
    weighted = tl.GaussianClassifier(tol=1e-12).fit(X, y, sample_weight=w)
    repeated = tl.GaussianClassifier(tol=1e-12).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.means_, repeated.means_, rtol=1e-10)
    np.testing.assert_allclose(weighted.covariances_, repeated.covariances_, rtol=1e-9)
    assert weighted.n_iter_ == repeated.n_iter_
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=y)
    path = tmp_path / "holes.csv"
    frame.to_csv(path, index=False)
    table = tl.GaussianClassifier("shared").fit(frame[["a", "b", "c"]], y)
    from_file = tl.GaussianClassifier("shared").fit(path, "label")
    np.testing.assert_allclose(from_file.covariances_, table.covariances_, rtol=1e-10)
    # read 9 rows at a time: the chunks' expected statistics merged, the same fixed point
    m_step = partial(gaussian_parameters, covariance="full", reg=0.0, var_prior=0.0)
    whole = em_class_gaussians(frame[["a", "b", "c"]], y, m_step=m_step)
    chunks = em_class_gaussians(path, "label", m_step=m_step, chunksize=9)
    np.testing.assert_allclose(chunks.log_likelihood, whole.log_likelihood, rtol=1e-10)
    np.testing.assert_allclose(chunks.statistics.covariance, whole.statistics.covariance, rtol=1e-9)


def test_a_dask_frame_equals_the_table():
    dd = pytest.importorskip("dask.dataframe")
    X, y = holey(seed=6)
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=y)
    ddf = dd.from_pandas(frame, npartitions=3)
    table = tl.GaussianClassifier().fit(frame[["a", "b", "c"]], y)
    parts = tl.GaussianClassifier().fit(ddf[["a", "b", "c"]], ddf["label"])
    np.testing.assert_allclose(parts.covariances_, table.covariances_, rtol=1e-9)
    assert parts.n_iter_ == table.n_iter_


def test_regularised_em_stops_at_a_fixed_point_of_its_own_m_step():
    X, y = holey(seed=7)
    clf = tl.GaussianClassifier(reg=0.05, var_prior=2.0, tol=1e-13, max_iter=2000).fit(X, y)
    stats = expected_class_gaussians(
        ["a", "b", "c"], X, y, [0, 1], means=clf.means_, covariances=clf.covariances_
    )
    means, covs = gaussian_parameters(stats, "full", 0.05, 2.0)
    np.testing.assert_allclose(means, clf.means_, atol=1e-8)
    np.testing.assert_allclose(covs, clf.covariances_, atol=1e-8)


def test_max_iter_warns_and_the_file_keeps_the_iterations():
    X, y = holey(seed=8)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        clf = tl.GaussianClassifier(max_iter=2).fit(X, y)
    assert clf.n_iter_ == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # converged: no warning
        clf = tl.GaussianClassifier().fit(X, y)
    back = tl.GaussianClassifier.from_dict(clf.to_dict())
    assert back.n_iter_ == clf.n_iter_ > 2
    np.testing.assert_array_equal(back.predict_log_proba(X), clf.predict_log_proba(X))
    # a complete table's file is as before: no EM field
    complete = tl.GaussianClassifier().fit(*holey(gap=0.0))
    assert "n_iter" not in complete.to_dict() and "n_iter" in clf.to_dict()


def test_a_class_too_small_for_its_covariance_names_reg():
    X = np.array([[0.0, 0.0], [2.0, 1.0], [1.0, 3.0], [1.0, np.nan], [np.nan, 2.0],
                  [5.0, 5.0], [6.0, 4.0], [4.0, np.nan]])  # fmt: skip
    y = np.array([0] * 5 + [1] * 3)  # class 1: two complete rows on a line
    with pytest.raises(tl.TreelearnError, match=r"class 1.*singular.*reg > 0"):
        tl.GaussianClassifier().fit(X, y)
    clf = tl.GaussianClassifier(reg=1e-3).fit(X, y)
    assert np.isfinite(clf.predict_log_proba(X)).all()


@pytest.mark.parametrize("covariance", ["full", "shared"])
@pytest.mark.parametrize("holes", [0.0, 0.2])
def test_penguins_with_holes_in_5_fold_cv(covariance, holes):
    df = pd.read_csv(PENGUINS)
    X = df[["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]]
    y = df["species"]
    assert X.isna().any(axis=1).sum() == 2  # the table's own holes: 2 rows without a number
    X = X.mask(np.random.default_rng(0).random(X.shape) < holes)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    clf = tl.GaussianClassifier(covariance)
    loss = -cross_val_score(clf, X, y, cv=cv, scoring="neg_log_loss", error_score="raise")
    accuracy = cross_val_score(clf, X, y, cv=cv, error_score="raise")
    majority = y.value_counts(normalize=True).max()
    assert np.isfinite(loss).all()
    assert accuracy.mean() >= majority


def test_files_from_before_em_load_with_the_default_options():
    X, y = holey(gap=0.0)
    clf = tl.GaussianClassifier("shared").fit(X, y)
    state = clf.to_dict()
    del state["params"]["tol"], state["params"]["max_iter"]  # a file from before EM
    back = tl.GaussianClassifier.from_dict(state)
    assert (back.tol, back.max_iter, back.n_iter_) == (1e-6, 200, 1)
    np.testing.assert_array_equal(back.predict_log_proba(X), clf.predict_log_proba(X))


@pytest.mark.parametrize("d", [4, 60])  # 60 > 52: the patterns sorted as rows, not numbers
def test_gap_groups_are_the_rows_of_one_pattern_and_class(d):
    rng = np.random.default_rng(d)
    holes = rng.random((300, d)) < (0.3 if d == 4 else 0.02)
    holes[::7] = holes[0]  # some patterns repeat
    codes = rng.integers(0, 3, 300)
    patterns, order, groups = gap_groups(holes, codes, 3)
    brute: dict = {}
    for i, (hole, c) in enumerate(zip(holes, codes, strict=True)):
        brute.setdefault((hole.tobytes(), int(c)), []).append(i)
    found = {
        (patterns[p].tobytes(), c): sorted(order[start:stop].tolist())
        for p, c, start, stop in groups
    }
    assert found == brute
    assert len({tuple(p) for p in patterns}) == len(patterns)


def test_observed_log_densities_of_many_patterns_are_scipys():
    X, _ = holey(n=200, d=4, seed=9, gap=0.4)
    rng = np.random.default_rng(9)
    means = rng.normal(size=(3, 4))
    covs = np.array([m @ m.T + np.eye(4) for m in rng.normal(size=(3, 4, 4))])
    got = observed_log_densities(X, means, covs)
    for x, row in zip(X, got, strict=True):
        o = ~np.isnan(x)
        want = [
            multivariate_normal(means[c, o], covs[c][np.ix_(o, o)]).logpdf(x[o]) if o.any() else 0.0
            for c in range(3)
        ]
        np.testing.assert_allclose(row, want, rtol=1e-11, atol=1e-11)


def test_auto_classifier_scores_its_gaussian_candidate_on_a_table_with_holes():
    # the candidate was built with covariance="diag", refused by the option check: every
    # table scored it inf ("refused the table"); its score is the 5-fold log-loss
    from sklearn.model_selection import cross_val_predict

    df = pd.read_csv(PENGUINS)
    X = df[["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]]
    X = X.mask(np.random.default_rng(1).random(X.shape) < 0.2)
    y = df["species"]
    auto = tl.AutoClassifier(candidates=["GaussianClassifier"], cv=5, random_state=0).fit(X, y)
    assert not auto.candidate_errors_
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    log_p = cross_val_predict(
        tl.GaussianClassifier("diagonal", reg=1e-9), X, y, cv=cv, method="predict_log_proba"
    )
    truth = pd.Categorical(y, categories=sorted(y.unique())).codes
    want = -log_p[np.arange(len(y)), truth].mean()
    np.testing.assert_allclose(auto.candidate_scores_["GaussianClassifier"], want, rtol=1e-10)


def test_a_feature_never_observed_in_a_class_is_named():
    X, y = holey(seed=10)
    X[y == 1, 2] = np.nan
    with pytest.raises(tl.TreelearnError, match=r"feature 'x2' has no observed value in class 1"):
        tl.GaussianClassifier("shared").fit(X, y)
