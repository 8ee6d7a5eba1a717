"""CopulaTAN (issue 25): the Gaussian family is exactly GaussianTAN; the empirical copula's
class posterior against a brute-force copula density (scipy.stats, all spanning trees);
missing values against numerical integration; bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from oracles import gaussian_tree_covariance, spanning_trees
from scipy import integrate, stats
from sklearn.datasets import load_iris

import treelearn as tl
from treelearn.models._copula import smoothed_cdf_knots, truncation


@pytest.fixture(scope="module")
def skewed():
    """Two classes, three features: lognormal marginals on a Gaussian copula (a chain)."""
    rng = np.random.default_rng(3)
    n = 160
    y = rng.integers(0, 2, n)
    z0 = rng.normal(size=n)
    z1 = np.where(y == 1, 0.8, 0.3) * z0 + rng.normal(size=n) * 0.6
    z2 = 0.7 * z1 + rng.normal(size=n) * 0.7
    X = pd.DataFrame({"a": np.exp(z0 + y), "b": np.exp(0.5 * z1), "c": z2**3 + y})
    return X, y


def test_the_gaussian_family_is_exactly_gaussian_tan():
    X, y = load_iris(return_X_y=True, as_frame=True)
    g = tl.GaussianTAN(var_prior=0).fit(X, y)
    c = tl.CopulaTAN(marginal="gaussian").fit(X, y)
    assert sorted(map(sorted, c.feature_tree_.edges())) == sorted(
        map(sorted, g.feature_tree_.edges())
    )
    # the same density computed through standardised scores: round-off only
    np.testing.assert_allclose(
        c.predict_joint_log_proba(X), g.predict_joint_log_proba(X), rtol=0, atol=1e-9
    )
    holes = X.copy()
    holes.iloc[::3, 1] = np.nan
    holes.iloc[::5, 3] = np.nan
    np.testing.assert_allclose(
        c.predict_joint_log_proba(holes), g.predict_joint_log_proba(holes), rtol=0, atol=1e-9
    )
    assert c.n_parameters == g.n_parameters + 2 * 3 * 4


def test_class_posterior_equals_the_brute_force_copula_density(skewed):
    X, y = skewed
    clf = tl.CopulaTAN().fit(X, y)
    A = X.to_numpy()
    d = A.shape[1]
    marginals, cov, share = [], [], []
    for c in (0, 1):
        rows = A[y == c]
        parts = [smoothed_cdf_knots(rows[:, j]) for j in range(d)]
        delta = truncation(len(rows))
        Z = np.column_stack(
            [
                stats.norm.ppf(np.clip(np.interp(rows[:, j], u, F), delta, 1 - delta))
                for j, (u, F, _) in enumerate(parts)
            ]
        )
        marginals.append(parts)
        cov.append(np.cov(Z.T, bias=True))
        share.append(len(rows) / len(A))
    # the tree: the best of all spanning trees of the class-weighted Gaussian CMI
    cmi = sum(
        s * -0.5 * np.log(1 - (C / np.sqrt(np.outer(np.diag(C), np.diag(C)))) ** 2 + np.eye(d))
        for s, C in zip(share, cov)
    )
    trees = spanning_trees(range(d))
    best = max(trees, key=lambda t: sum(cmi[i, j] for i, j in t))
    names = list(X.columns)
    assert {frozenset(e) for e in clf.feature_tree_.edges()} == {
        frozenset((names[i], names[j])) for i, j in best
    }
    # test rows strictly inside every class's knots (no tails)
    rng = np.random.default_rng(1)
    lo = np.max([[p[0][0] for p in m] for m in marginals], axis=0)
    hi = np.min([[p[0][-1] for p in m] for m in marginals], axis=0)
    T = lo + (hi - lo) * rng.uniform(0.05, 0.95, size=(25, d))
    joint = np.empty((len(T), 2))
    for c in (0, 1):
        mean = np.zeros(d)
        rows = A[y == c]
        delta = truncation(len(rows))
        Ztrain = np.column_stack(
            [
                stats.norm.ppf(np.clip(np.interp(rows[:, j], u, F), delta, 1 - delta))
                for j, (u, F, _) in enumerate(marginals[c])
            ]
        )
        mean = Ztrain.mean(axis=0)
        S = gaussian_tree_covariance(cov[c], best)
        log = np.log(share[c]) + stats.multivariate_normal(mean, S).logpdf(
            np.column_stack(
                [
                    stats.norm.ppf(np.interp(T[:, j], u, F))
                    for j, (u, F, _) in enumerate(marginals[c])
                ]
            )
        )
        for j, (u, F, _) in enumerate(marginals[c]):
            # the CDF is piecewise linear: a central difference is its slope to round-off
            h = 1e-6 * (u[-1] - u[0])
            g = (np.interp(T[:, j] + h, u, F) - np.interp(T[:, j] - h, u, F)) / (2 * h)
            log += np.log(g) - stats.norm.logpdf(stats.norm.ppf(np.interp(T[:, j], u, F)))
        joint[:, c] = log
    # tolerance: the central difference's round-off (1e-16 / 1e-6 relative) and ppf's
    np.testing.assert_allclose(clf.predict_joint_log_proba(T), joint, rtol=0, atol=1e-7)
    posterior = np.exp(joint - np.logaddexp(joint[:, :1], joint[:, 1:]))
    np.testing.assert_allclose(clf.predict_proba(T), posterior, rtol=0, atol=1e-7)


def test_a_missing_value_is_integrated_out(skewed):
    X, y = skewed
    clf = tl.CopulaTAN().fit(X, y)
    row = X.iloc[[5]].copy()
    holed = row.copy()
    holed["b"] = np.nan
    got = clf.predict_joint_log_proba(holed)[0]
    for c in (0, 1):
        u = clf.knots_[c][1]

        def density(b, c=c):
            x = row.copy()
            x["b"] = b
            return np.exp(clf.predict_joint_log_proba(x)[0, c])

        # piece by piece: the knot segments (the density is smooth on each), both tails
        pieces = [
            integrate.quad(density, a, b, epsabs=0, epsrel=1e-10)[0]
            for a, b in itertools.pairwise(u)
        ]
        pieces += [
            integrate.quad(density, -np.inf, u[0], epsabs=0, epsrel=1e-10)[0],
            integrate.quad(density, u[-1], np.inf, epsabs=0, epsrel=1e-10)[0],
        ]
        # quad's relative error per piece (1e-10) and round-off of the sum
        assert np.log(sum(pieces)) == pytest.approx(got[c], abs=1e-7)


def test_skewed_classes_are_told_apart_better_than_by_gaussian_tan():
    # the skewed fixture's law, more rows: the class changes the copula's correlation and
    # shifts a lognormal and a cubed column, which a Gaussian per class mis-models
    rng = np.random.default_rng(3)
    n = 1000
    y = rng.integers(0, 2, n)
    z0 = rng.normal(size=n)
    z1 = np.where(y == 1, 0.8, 0.3) * z0 + rng.normal(size=n) * 0.6
    z2 = 0.7 * z1 + rng.normal(size=n) * 0.7
    X = pd.DataFrame({"a": np.exp(z0 + y), "b": np.exp(0.5 * z1), "c": z2**3 + y})
    test = rng.random(n) < 0.3
    copula = tl.CopulaTAN().fit(X[~test], y[~test]).score(X[test], y[test])
    gaussian = tl.GaussianTAN().fit(X[~test], y[~test]).score(X[test], y[test])
    assert copula > gaussian + 0.1  # measured: 0.82 against 0.63


def test_bad_input_names_the_column():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "b": [1.0, 1.0, 1.0, 2.0, 3.0, 4.0]})
    y = [0, 0, 0, 1, 1, 1]
    with pytest.raises(tl.TreelearnError, match="'b' is constant in class 0"):
        tl.CopulaTAN().fit(X, y)
    with pytest.raises(tl.TreelearnError, match="'b'"):
        tl.CopulaTAN().fit(X.assign(b=[1.0, np.inf, 2.0, 3.0, 4.0, 5.0]), y)
    with pytest.raises(tl.TreelearnError, match="'b'"):
        tl.CopulaTAN().fit(X.assign(b=[1.0, np.nan, 2.0, 3.0, 4.0, 5.0]), y)
    with pytest.raises(tl.TreelearnError, match="marginal"):
        tl.CopulaTAN(marginal="beta").fit(X, y)
