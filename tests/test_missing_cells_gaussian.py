"""GaussianClassifier with missing training cells (issue 39): ``full`` and ``shared``
covariances learn by EM (their oracles: tests/test_gaussian_missing_em.py); ``diagonal``
learns each class's mean and variance of a feature from the rows where it is observed
(checked against numpy)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

import treelearn as tl


def gappy(n: int = 80, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.normal(size=(n, 3)) + y[:, None] * np.array([1.0, -0.5, 2.0])
    X[rng.random((n, 3)) < 0.15] = np.nan
    return X, y


@pytest.mark.parametrize("covariance", ["full", "shared"])
def test_full_and_shared_covariances_learn_by_em(covariance):
    X, y = gappy()
    clf = tl.GaussianClassifier(covariance=covariance).fit(X, y)
    assert clf.n_iter_ >= 2  # EM ran (complete tables: 1, tests/test_gaussian_missing_em.py)
    assert np.isfinite(clf.predict_log_proba(X)).all()


def test_the_diagonal_fix_learns_from_the_observed_cells_and_sums_gaps_out():
    X, y = gappy()
    clf = tl.GaussianClassifier(covariance="diagonal").fit(X, y)
    for c in (0, 1):
        rows = X[y == c]
        np.testing.assert_allclose(clf.means_[c], np.nanmean(rows, axis=0), rtol=1e-12)
        np.testing.assert_allclose(clf.covariances_[c], np.nanvar(rows, axis=0), rtol=1e-10)
    # a row with a missing feature: the product of the observed features' normal densities
    row = np.array([[0.3, np.nan, 1.1]])
    prior = np.bincount(y) / len(y)
    dens = [
        prior[c]
        * np.prod(
            [norm.pdf(row[0, j], clf.means_[c, j], np.sqrt(clf.covariances_[c, j])) for j in (0, 2)]
        )
        for c in (0, 1)
    ]
    np.testing.assert_allclose(clf.predict_proba(row)[0], np.array(dens) / sum(dens), rtol=1e-10)
