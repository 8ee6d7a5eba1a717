"""MixedTAN's ``mean_prior``: a conjugate normal-inverse-gamma prior on each class's Gaussian
means (``k0`` pseudo-rows at the classes pooled), next to ``var_prior``.

Oracle: Gelman et al., *Bayesian Data Analysis* (3rd ed.), section 3.3, computed here with
pandas: ``mu_n = (k0 mu0 + n ybar) / (k0 + n)``, ``nu_n s_n^2 = nu0 s0^2 + sum (y - ybar)^2
+ k0 n / (k0 + n) (ybar - mu0)^2``, ``nu_n = nu0 + n`` (``nu0`` = ``var_prior``).

The mixed classifiers here take ``numbers="gaussian"``: these tests are about their
Gaussian parts (the per-column choice of ``numbers="auto"``, the default, is
tests/test_mixed_column_choice.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm
from test_gaussian_priors import _table  # the same mixed table (no holes)

import treelearn as tl
from treelearn.stats._class_gaussians import shrunk_mean


def test_shrunk_mean_is_the_bda3_posterior():
    cells = np.array([1.0, 2.5, 4.0, 0.5])
    k0, nu0, mu0, s0sq = 2.0, 3.0, -1.0, 1.7
    n, ybar = len(cells), cells.mean()
    mean, extra = shrunk_mean(np.array(ybar), np.array(float(n)), np.array(mu0), k0, nu0)
    assert mean == pytest.approx((k0 * mu0 + n * ybar) / (k0 + n), rel=1e-12)
    scale = (nu0 * s0sq + ((cells - ybar) ** 2).sum() + k0 * n / (k0 + n) * (ybar - mu0) ** 2) / (
        nu0 + n
    )
    # the variance prior's part plus the extra = the posterior scale
    ml = cells.var(ddof=0)
    assert (n * ml + nu0 * s0sq) / (n + nu0) + extra == pytest.approx(scale, rel=1e-12)


def test_mixed_tan_means_and_variances_are_the_posterior():
    X, y = _table()
    k0, nu0 = 2.0, 1.0
    clf = tl.MixedTAN(
        numbers="gaussian", mean_prior=k0, var_prior=nu0, var_smoothing=0, root="g"
    ).fit(X, y)
    assert next(iter(clf.feature_tree_.predecessors("z"))) == "g"  # z: one Gaussian per state
    for c, label in enumerate(clf.classes_):
        node = clf.models_[c].graph.nodes["z"]
        for s, state in enumerate(clf.models_[c].states["g"]):
            mine = X.loc[(y == label) & (X.g == state), "z"]
            every = X.loc[X.g == state, "z"]
            n, ybar, mu0, s0sq = len(mine), mine.mean(), every.mean(), every.var(ddof=0)
            want_mean = (k0 * mu0 + n * ybar) / (k0 + n)
            ss = ((mine - ybar) ** 2).sum()
            want_var = (nu0 * s0sq + ss + k0 * n / (k0 + n) * (ybar - mu0) ** 2) / (nu0 + n)
            assert node["means"][s] == pytest.approx(want_mean, rel=1e-9)
            assert node["variances"][s] == pytest.approx(want_var, rel=1e-9)
    # the predictions use them: the class's density of z given g = scipy's normal
    plain = tl.MixedTAN(numbers="gaussian", var_prior=nu0, var_smoothing=0, root="g").fit(X, y)
    rows = X.head(5)
    for c in range(len(clf.classes_)):
        states = list(clf.models_[c].states["g"])
        shrunk, ml = clf.models_[c].graph.nodes["z"], plain.models_[c].graph.nodes["z"]
        s = [states.index(v) for v in rows.g]

        def dens(node, s=s):
            mu, var = np.asarray(node["means"])[s], np.asarray(node["variances"])[s]
            return norm.logpdf(rows.z, mu, np.sqrt(var))

        got = clf.models_[c].score_samples(rows) - plain.models_[c].score_samples(rows)
        np.testing.assert_allclose(got, dens(shrunk) - dens(ml), rtol=1e-9, atol=1e-12)


def test_mean_prior_zero_is_the_model_before_and_is_saved(tmp_path):
    X, y = _table()
    before = tl.MixedTAN(numbers="gaussian").fit(X, y)
    np.testing.assert_array_equal(
        tl.MixedTAN(numbers="gaussian", mean_prior=0).fit(X, y).predict_log_proba(X),
        before.predict_log_proba(X),
    )
    clf = tl.MixedTAN(numbers="gaussian", mean_prior=3).fit(X, y)
    back = type(clf).from_dict(clf.to_dict())
    assert back.mean_prior == 3
    np.testing.assert_array_equal(back.predict_log_proba(X), clf.predict_log_proba(X))
    state = before.to_dict()
    del state["params"]["mean_prior"]  # a file from before the option
    assert type(before).from_dict(state).mean_prior == 0
