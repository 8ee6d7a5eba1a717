"""KernelTAN (issue 25): the class posterior against scipy's gaussian_kde evaluated by
brute force, the tree against the best spanning tree of a fine-grid kernel CMI, the
Gaussian kind against GaussianTAN, the kinds chosen by validation, bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from oracles import spanning_trees
from scipy import stats
from sklearn.datasets import load_iris

import treelearn as tl


@pytest.fixture(scope="module")
def small():
    """Two classes, three features: ``a`` bimodal, ``b`` a noisy square of ``a``, ``c``
    weakly tied to ``b``."""
    rng = np.random.default_rng(7)
    n = 90
    y = rng.integers(0, 2, n)
    a = rng.normal(np.where(rng.random(n) < 0.5, -2.0, 2.0) + y, 0.6)
    b = 0.3 * a**2 + rng.normal(size=n) * 0.5 + y
    c = 0.4 * b + rng.normal(size=n)
    return pd.DataFrame({"a": a, "b": b, "c": c}), y


def _kdes(rows: np.ndarray, parent: np.ndarray):
    """scipy's KDEs of one class: the 1-D ones and each (feature, parent) 2-D one, the 1-D
    Scott factor ``n^(-1/5)`` for both (as the model documents)."""
    factor = len(rows) ** (-1 / 5)
    one = [stats.gaussian_kde(rows[:, j], bw_method=factor) for j in range(rows.shape[1])]
    two = {
        j: stats.gaussian_kde(np.vstack([rows[:, j], rows[:, p]]), bw_method=factor)
        for j, p in enumerate(parent)
        if p >= 0
    }
    return one, two


def test_class_posterior_equals_scipy_kdes_by_brute_force(small):
    X, y = small
    clf = tl.KernelTAN(densities="kernel").fit(X, y)
    A = X.to_numpy()
    parent = clf.parent_
    rng = np.random.default_rng(0)
    T = A[rng.choice(len(A), 15)] + rng.normal(size=(15, 3)) * 0.3
    joint = np.empty((len(T), 2))
    for c in (0, 1):
        rows = A[y == c]
        one, two = _kdes(rows, parent)
        log = np.full(len(T), np.log((y == c).mean()))
        for j, p in enumerate(parent):
            if p < 0:
                log += one[j].logpdf(T[:, j])
            else:
                log += two[j].logpdf(np.vstack([T[:, j], T[:, p]])) - one[p].logpdf(T[:, p])
        joint[:, c] = log
    # two implementations of the same sums of exponentials: round-off only
    np.testing.assert_allclose(clf.predict_joint_log_proba(T), joint, rtol=0, atol=1e-9)
    posterior = np.exp(joint - np.logaddexp(joint[:, :1], joint[:, 1:]))
    np.testing.assert_allclose(clf.predict_proba(T), posterior, rtol=0, atol=1e-9)


def test_the_tree_is_the_best_spanning_tree_of_the_kernel_cmi(small):
    X, y = small
    clf = tl.KernelTAN(densities="kernel").fit(X, y)
    A = X.to_numpy()
    d = A.shape[1]
    cmi = np.zeros((d, d))
    for c in (0, 1):
        rows = A[y == c]
        factor = len(rows) ** (-1 / 5)
        for i, j in itertools.combinations(range(d), 2):
            # the MI of scipy's 2-D KDE on a fine grid (the model: a 32-point grid)
            kde = stats.gaussian_kde(np.vstack([rows[:, i], rows[:, j]]), bw_method=factor)
            sd = np.sqrt(np.diag(kde.covariance))
            gi = np.linspace(rows[:, i].min() - 5 * sd[0], rows[:, i].max() + 5 * sd[0], 200)
            gj = np.linspace(rows[:, j].min() - 5 * sd[1], rows[:, j].max() + 5 * sd[1], 200)
            U, V = np.meshgrid(gi, gj, indexing="ij")
            P = kde(np.vstack([U.ravel(), V.ravel()])).reshape(U.shape)
            P /= P.sum()
            pi, pj = P.sum(axis=1, keepdims=True), P.sum(axis=0, keepdims=True)
            mi = np.sum(np.where(P > 0, P * np.log(P / (pi * pj)), 0.0))
            cmi[i, j] += (y == c).mean() * mi
    trees = spanning_trees(range(d))
    scores = sorted(sum(cmi[i, j] for i, j in t) for t in trees)
    assert scores[-1] - scores[-2] > 0.05  # a clear best tree: grid error cannot flip it
    best = max(trees, key=lambda t: sum(cmi[i, j] for i, j in t))
    names = list(X.columns)
    assert {frozenset(e) for e in clf.feature_tree_.edges()} == {
        frozenset((names[i], names[j])) for i, j in best
    }


def test_the_gaussian_kind_is_gaussian_tan_on_the_same_tree():
    X, y = load_iris(return_X_y=True, as_frame=True)
    g = tl.GaussianTAN(var_prior=0).fit(X, y)
    k = tl.KernelTAN(densities="gaussian").fit(X, y)
    assert {frozenset(e) for e in k.feature_tree_.edges()} == {
        frozenset(e) for e in g.feature_tree_.edges()
    }
    # the same regressions, summed in another order: round-off only
    np.testing.assert_allclose(
        k.predict_joint_log_proba(X), g.predict_joint_log_proba(X), rtol=0, atol=1e-9
    )
    assert k.kernel_features_ == [] and k.n_parameters == g.n_parameters


def test_validation_picks_kernels_for_a_bimodal_feature_and_gaussians_for_a_normal_one():
    rng = np.random.default_rng(0)
    n = 1200
    y = rng.integers(0, 2, n)
    bimodal = rng.normal(np.where(rng.random(n) < 0.5, -3.0, 3.0), 0.5) + y
    normal = rng.normal(y, 1.0)
    X = pd.DataFrame({"bimodal": bimodal, "normal": normal, "linear": normal + rng.normal(size=n)})
    clf = tl.KernelTAN(random_state=0).fit(X, y)
    assert clf.kernel_features_ == ["bimodal"]
    assert clf.validation_gain_[0] > 50 and (clf.validation_gain_[1:] < 0).all()
    # the chosen mix predicts at least as well as the all-Gaussian tree on fresh rows
    test_y = rng.integers(0, 2, n)
    test = pd.DataFrame(
        {
            "bimodal": rng.normal(np.where(rng.random(n) < 0.5, -3.0, 3.0), 0.5) + test_y,
            "normal": rng.normal(test_y, 1.0),
        }
    )
    test["linear"] = test["normal"] + rng.normal(size=n)
    gaussian = tl.KernelTAN(densities="gaussian").fit(X, y)
    assert clf.log_likelihood(test, test_y) > gaussian.log_likelihood(test, test_y)


def test_bad_input_is_refused_naming_the_fix(small):
    X, y = small
    with pytest.raises(tl.TreelearnError, match="bandwidth"):
        tl.KernelTAN(bandwidth=0.0).fit(X, y)
    with pytest.raises(tl.TreelearnError, match="bandwidth"):
        tl.KernelTAN(bandwidth=-1.0).fit(X, y)
    flat = X.assign(c=np.where(y == 0, 1.0, X["c"]))
    with pytest.raises(tl.TreelearnError, match="'c' is constant in class 0"):
        tl.KernelTAN().fit(flat, y)
    with pytest.raises(tl.TreelearnError, match="'a'"):
        tl.KernelTAN().fit(X.assign(a=np.where(np.arange(len(X)) == 3, np.inf, X["a"])), y)
    clf = tl.KernelTAN(random_state=0).fit(X, y)
    with pytest.raises(tl.TreelearnError, match="'b'"):
        clf.predict(X.assign(b=np.nan))


def test_a_column_constant_on_the_fitting_share_keeps_its_gaussian_for_every_seed():
    # class "a" has one odd value in x: whenever the validation split holds that row out,
    # the kernel fitted on the rest has width 0 (no density). That is a -inf held-out score
    # for the kernel, never a crash, whatever the seed; the fit is the same kind of model.
    X = pd.DataFrame(
        {
            "x": [1.0, 1.0, 1.0, 1.0, 2.0, 0.3, 0.9, 1.7, 2.2, 2.8],
            "z": [0.1, 0.4, 0.2, 0.9, 0.5, 1.1, 0.2, 0.8, 0.3, 0.6],
        }
    )
    y = np.array(["a"] * 5 + ["b"] * 5)
    for seed in range(12):
        clf = tl.KernelTAN(random_state=seed, validation=0.4).fit(X, y)
        p = clf.predict_proba(X)
        assert np.isfinite(p).all() and np.allclose(p.sum(axis=1), 1.0)
