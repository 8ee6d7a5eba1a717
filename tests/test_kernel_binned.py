"""The binned kernel path (linear binning + FFT convolution on grids) of kernel_forest and
KernelTAN, checked against direct sums of Gaussian kernels written here, against
scipy.stats.gaussian_kde, and against the exact path: log densities, held-out
log-likelihood (within 0.01 nats/row, the issue's bound), the tree, determinism, files."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import gaussian_kde

import treelearn as tl
from treelearn._base.errors import InvalidModelError
from treelearn.stats._kernel import (
    EXACT_UP_TO,
    binned_log_density,
    binned_pair_log_density,
    fft_convolve,
    linear_bin,
)


def direct_log_density(x: np.ndarray, centres: np.ndarray, sd: float) -> np.ndarray:
    """The oracle: log of the mean of N(x; c, sd^2) over the centres, summed directly."""
    z = (x[:, None] - centres[None, :]) / sd
    dens = np.exp(-0.5 * z * z).mean(axis=1) / (sd * math.sqrt(2 * math.pi))
    return np.log(dens)


def direct_pair_log_density(
    x: np.ndarray, y: np.ndarray, cx: np.ndarray, cy: np.ndarray, S: np.ndarray
) -> np.ndarray:
    """The oracle: log of the mean bivariate normal density with covariance S."""
    P = np.linalg.inv(S)
    dx, dy = x[:, None] - cx[None, :], y[:, None] - cy[None, :]
    q = P[0, 0] * dx * dx + 2 * P[0, 1] * dx * dy + P[1, 1] * dy * dy
    dens = np.exp(-0.5 * q).mean(axis=1) / (2 * math.pi * math.sqrt(np.linalg.det(S)))
    return np.log(dens)


def skewed_table(n: int, seed: int) -> pd.DataFrame:
    """x -> y (a curve), z -> u (a parabola, no linear correlation), w independent."""
    rng = np.random.default_rng(seed)
    x = rng.exponential(size=n)
    z = rng.normal(size=n)
    return pd.DataFrame(
        {
            "x": x,
            "y": np.sqrt(x) + 0.1 * rng.normal(size=n),
            "z": z,
            "u": z**2 + 0.3 * rng.normal(size=n),
            "w": rng.normal(size=n),
        }
    )


def test_linear_binning_keeps_mass_and_mean_and_its_2d_marginal_is_the_1d_binning():
    rng = np.random.default_rng(0)
    P = rng.normal(size=(300, 2))
    w = rng.random(300)
    lo, step = P.min(axis=0) - 1.0, np.array([0.25, 0.4])
    shape = (int((P[:, 0].max() - lo[0]) / 0.25) + 3, int((P[:, 1].max() - lo[1]) / 0.4) + 3)
    B = linear_bin(P, w, lo, step, shape)
    assert B.sum() == pytest.approx(w.sum(), rel=1e-12)
    nodes0 = lo[0] + step[0] * np.arange(shape[0])
    # each point's shares sit at its own mean: the binned mean is the weighted mean
    assert nodes0 @ B.sum(axis=1) == pytest.approx(w @ P[:, 0], rel=1e-10)
    one = linear_bin(P[:, :1], w, lo[:1], step[:1], shape[:1])
    np.testing.assert_allclose(B.sum(axis=1), one, rtol=1e-12, atol=1e-15)


def test_fft_convolution_is_numpys_direct_convolution():
    rng = np.random.default_rng(1)
    a, k = rng.random(37), rng.random(11)
    np.testing.assert_allclose(fft_convolve(a, k, (0,)), np.convolve(a, k), atol=1e-12)
    A = rng.random((3, 9))
    got = fft_convolve(A, k[None, :], (1,))
    for row in range(3):
        np.testing.assert_allclose(got[row], np.convolve(A[row], k), atol=1e-12)


def test_binned_1d_density_matches_direct_sums_and_scipy():
    rng = np.random.default_rng(2)
    c = rng.exponential(size=5000)
    kde = gaussian_kde(c)  # scipy's Scott bandwidth: its sd is what we pass
    sd = float(np.sqrt(kde.covariance[0, 0]))
    x = rng.exponential(size=2000)
    got = binned_log_density(x, c, np.full(len(c), -math.log(len(c))), sd)
    oracle = direct_log_density(x, c, sd)
    np.testing.assert_allclose(kde.logpdf(x), oracle, atol=1e-9)  # the oracle is scipy's
    # linear binning + linear interpolation of the log: O((step/sd)^2) = O(1/64) per
    # unit curvature; measured mean 3e-4, max 2.5e-3 nats
    assert np.abs(got - oracle).mean() < 2e-3
    assert np.abs(got - oracle).max() < 2e-2


def test_binned_pair_density_matches_direct_sums_and_scipy_at_any_correlation():
    rng = np.random.default_rng(3)
    n = 4000
    cx = rng.exponential(size=n)
    for noise in (0.05, 0.5, 5.0):  # r about 0.999, 0.9, 0.2
        cy = cx + noise * rng.normal(size=n)
        kde = gaussian_kde(np.vstack([cx, cy]))
        S = kde.covariance
        sx, sy = math.sqrt(S[0, 0]), math.sqrt(S[1, 1])
        r = S[0, 1] / (sx * sy)
        qx = rng.exponential(size=1500)
        qy = qx + noise * rng.normal(size=1500)
        oracle = direct_pair_log_density(qx, qy, cx, cy, S)
        np.testing.assert_allclose(kde.logpdf(np.vstack([qx, qy])), oracle, atol=1e-8)
        got = binned_pair_log_density(qx, qy, cx, cy, np.full(n, -math.log(n)), sx, sy, r)
        assert np.isfinite(got).all()
        assert np.abs(got - oracle).mean() < 3e-3, noise
        assert np.abs(got - oracle).max() < 0.1, noise


def test_binned_forest_is_within_a_hundredth_of_a_nat_of_the_exact_one_with_the_same_edges():
    train, test = skewed_table(1500, 0), skewed_table(3000, 1)
    exact = tl.kernel_forest(train, random_state=0, method="exact")
    binned = tl.kernel_forest(train, random_state=0, method="binned")
    assert exact.evaluation == "exact" and binned.evaluation == "binned"
    assert sorted(map(sorted, binned.edges)) == sorted(map(sorted, exact.edges))
    assert {frozenset(e) for e in exact.edges} >= {frozenset(("x", "y")), frozenset(("z", "u"))}
    gap = binned.score_samples(test) - exact.score_samples(test)
    assert abs(gap.mean()) < 0.01
    # the exact model itself against the oracle: its joint is the forest formula of sums
    row = test.iloc[:50]
    lp = sum(
        direct_log_density(row[v].to_numpy(), exact.centres[:, j], exact.kernel_sd[v])
        for j, v in enumerate(exact.variables)
    )
    for u, v in exact.edges:
        i, j = exact.variables.index(u), exact.variables.index(v)
        su, sv, r = exact.kernel_sd[u], exact.kernel_sd[v], exact.correlation[(u, v)]
        S = np.array([[su * su, r * su * sv], [r * su * sv, sv * sv]])
        lp = lp + direct_pair_log_density(
            row[u].to_numpy(), row[v].to_numpy(), exact.centres[:, i], exact.centres[:, j], S
        )
        lp = lp - direct_log_density(row[u].to_numpy(), exact.centres[:, i], su)
        lp = lp - direct_log_density(row[v].to_numpy(), exact.centres[:, j], sv)
    np.testing.assert_allclose(exact.score_samples(row), lp, atol=1e-9)


def test_auto_is_exact_up_to_the_threshold_and_binned_past_it():
    small = tl.kernel_forest(skewed_table(400, 0), random_state=0)
    assert small.evaluation == "exact" and small.method == "auto"
    big = tl.kernel_forest(skewed_table(2 * EXACT_UP_TO + 10, 0), random_state=0)
    assert big.evaluation == "binned"


def test_binned_fits_are_deterministic_and_round_trip_through_files(tmp_path):
    train, test = skewed_table(1200, 2), skewed_table(500, 3)
    a = tl.kernel_forest(train, random_state=0, method="binned")
    b = tl.kernel_forest(train, random_state=0, method="binned")
    assert a == b
    np.testing.assert_array_equal(a.score_samples(test), b.score_samples(test))
    path = tmp_path / "kf.json"
    tl.save(a, path)
    back = tl.load(path)
    assert back.method == "binned" and back == a
    np.testing.assert_array_equal(back.score_samples(test), a.score_samples(test))


def test_files_before_the_binned_path_load_as_auto_and_a_bad_method_is_refused():
    m = tl.kernel_forest(skewed_table(300, 4), random_state=0)
    d = m.to_dict()
    d.pop("method")  # a file written before the field existed
    old = type(m).from_dict(d)
    assert old.method == "auto" and old.evaluation == "exact"
    np.testing.assert_array_equal(
        old.score_samples(skewed_table(50, 5)), m.score_samples(skewed_table(50, 5))
    )
    d["method"] = "fast"
    with pytest.raises(InvalidModelError, match="'method' == 'fast'"):
        type(m).from_dict(d)
    with pytest.raises(ValueError, match="method"):
        tl.kernel_forest(skewed_table(300, 4), method="fast")


def _classes(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    bimodal = rng.normal(np.where(rng.random(n) < 0.5, -2, 2) * (1 + y), 0.5)
    X = np.column_stack([bimodal, rng.normal(y, 1.0), bimodal**2 + rng.normal(size=n)])
    return X, y


def test_binned_kernel_tan_is_within_a_hundredth_of_a_nat_of_the_exact_one():
    X, y = _classes(2400, 0)
    Xt, _ = _classes(1500, 1)
    fits = {
        m: tl.KernelTAN(densities="kernel", method=m, random_state=0).fit(X, y)
        for m in ("exact", "binned")
    }
    edges = {m: sorted(map(sorted, c.feature_tree_.edges())) for m, c in fits.items()}
    assert edges["exact"] == edges["binned"]
    joint = {m: c._joint_log_likelihood(Xt) for m, c in fits.items()}
    gap = np.logaddexp.reduce(joint["binned"], axis=1) - np.logaddexp.reduce(joint["exact"], axis=1)
    assert abs(gap.mean()) < 0.01
    assert np.array_equal(fits["exact"].predict(Xt), fits["binned"].predict(Xt)) or (
        (fits["exact"].predict(Xt) != fits["binned"].predict(Xt)).mean() < 0.01
    )
