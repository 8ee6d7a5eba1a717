"""Kernel-forest sampling without a rows x kernels table (issue 40: it was quadratic in rows).

:func:`~treelearn.models._kernel_forest.pick_kernels` draws, for each parent value, a kernel
with probability ``w_k N(x; c_k, sd^2)``: its frequencies are checked against those
probabilities computed directly (every kernel's weight times its Gaussian, normalised), at
values inside the kernels, in a gap between them, and beyond its reach (the fallback). The
whole sampler's draws are checked against the model's moments: a two-column kernel forest is
the 2-D KDE, whose mean is the centres' and covariance ``(1 + factor^2)`` times theirs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.models._kernel_forest import SAMPLING_REACH, pick_kernels

DRAWS = 40_000


def exact_probabilities(x: float, centres, weights, sd: float) -> np.ndarray:
    log = np.log(weights) - 0.5 * ((x - centres) / sd) ** 2
    p = np.exp(log - log.max())
    return p / p.sum()


@pytest.mark.parametrize("x", [0.0, 0.37, 2.5, 5.05, -3.0, 9.9, 200.0])
def test_kernel_picks_follow_weight_times_gaussian(x):
    """Kernels in two clusters with an empty gap, unequal weights (one zero), sd 0.5: every
    kernel's frequency within 5 standard errors of its exact probability (a false alarm
    about once in 10^5 runs per kernel; seeds fixed). ``x = 200`` is beyond the reach
    (400 sds from every kernel): the fallback, over every kernel."""
    rng = np.random.default_rng(0)
    centres = np.concatenate([rng.normal(0, 1, 30), rng.normal(10, 0.5, 20)])
    weights = rng.uniform(0.2, 2.0, 50)
    weights[3] = 0.0
    weights /= weights.sum()
    sd = 0.5
    assert (200.0 - centres.max()) / sd > SAMPLING_REACH
    with np.errstate(divide="ignore"):
        want = exact_probabilities(x, centres, weights, sd)
    k = pick_kernels(np.full(DRAWS, x), centres, weights, sd, np.random.default_rng(1))
    freq = np.bincount(k, minlength=len(centres)) / DRAWS
    se = np.sqrt(want * (1 - want) / DRAWS)
    assert freq[3] == 0.0  # weight zero: never drawn
    assert (np.abs(freq - want) <= 5 * se + 1e-12).all(), np.abs(freq - want).max()


def test_kernel_picks_for_many_values_at_once():
    """Each row its own value: the picks given x in one half of the rows and another x in
    the other half follow their own probabilities (rows are not mixed up)."""
    rng = np.random.default_rng(2)
    centres = rng.normal(size=200)
    weights = np.full(200, 1 / 200)
    x = np.repeat([-0.5, 1.5], DRAWS // 2)
    k = pick_kernels(x, centres, weights, 0.3, np.random.default_rng(3))
    for value, part in ((-0.5, k[: DRAWS // 2]), (1.5, k[DRAWS // 2 :])):
        want = exact_probabilities(value, centres, weights, 0.3)
        freq = np.bincount(part, minlength=200) / len(part)
        se = np.sqrt(want * (1 - want) / len(part))
        assert (np.abs(freq - want) <= 5 * se + 1e-12).all()


def test_a_two_column_forest_samples_the_2d_kde():
    """Mean and covariance of 100,000 draws against the KDE's (centres' weighted mean;
    covariance ``(1 + factor^2)`` times the centres'), within 5 standard errors."""
    rng = np.random.default_rng(4)
    x = rng.exponential(size=3000)
    df = pd.DataFrame({"x": x, "y": np.sqrt(x) + 0.2 * rng.normal(size=3000)})
    model = tl.kernel_forest(df, random_state=0)
    assert len(model.edges) == 1
    n = 100_000
    s = model.sample(n, random_state=5).to_numpy()
    C = model.centres
    mean = C.mean(axis=0)
    cov = np.cov(C.T, bias=True) * (1 + model.factor**2)
    se_mean = np.sqrt(np.diag(cov) / n)
    assert (np.abs(s.mean(axis=0) - mean) <= 5 * se_mean).all()
    got = np.cov(s.T, bias=True)
    # the sd of a sample covariance entry: sqrt(var(XY) / n), estimated from the draws
    centred = s - s.mean(axis=0)
    for i in range(2):
        for j in range(2):
            se = np.sqrt(np.var(centred[:, i] * centred[:, j]) / n)
            assert abs(got[i, j] - cov[i, j]) <= 5 * se, (i, j, got[i, j], cov[i, j])


def test_sampling_is_deterministic_and_takes_zero_rows():
    rng = np.random.default_rng(6)
    a = rng.normal(size=500)
    df = pd.DataFrame({"a": a, "b": a + rng.normal(size=500), "c": rng.normal(size=500)})
    model = tl.kernel_forest(df, random_state=0)
    pd.testing.assert_frame_equal(
        model.sample(300, random_state=7), model.sample(300, random_state=7)
    )
    assert model.sample(0, random_state=0).shape == (0, 3)
