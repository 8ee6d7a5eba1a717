"""The mutual information's terms computed on whole arrays (issue 41: a fit's fixed costs):
``_xlogx_ratio`` takes every entry's ``num * (log num - log den)`` at once and keeps the
entries it used to gather (``num > 0`` and a normal ``den``), the rest 0, the underflowing
ones in logs as before. The reference is the gather-and-scatter construction it replaces,
copied here: the same doubles, bit for bit, on counts with zeros, fractional weights,
marginals that underflow and broadcast shapes; and every MI matrix built with either is the
same array (so the same trees), checked on integer, weighted, smoothed and missing-cell
counts against the plug-in MI of pandas crosstabs too. Binary columns take their four
``d x d`` cells at once (``BINARY_MI_MAX``): the same doubles as the ``2d x 2d`` bands."""

import numpy as np
import pandas as pd
import pytest
from oracles import mutual_information

import treelearn.stats._information as info
from treelearn.encoding._table import encode
from treelearn.stats._counts import pair_counts


def reference_xlogx_ratio(num, r, c, n):
    """The construction before: the observed entries with a normal ``den`` gathered."""
    out = np.zeros_like(num, dtype=float)
    den = r * c / n
    observed = num > 0
    ok = observed & (den >= np.finfo(np.float64).tiny)
    out[ok] = num[ok] * (np.log(num[ok]) - np.log(den[ok]))
    under = observed & ~ok
    if under.any():
        r, c, n = (np.broadcast_to(x, num.shape)[under] for x in (r, c, n))
        out[under] = num[under] * (np.log(num[under]) - np.log(r) - np.log(c) + np.log(n))
    return out


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("seed", range(6))
def test_terms_equal_the_gathered_construction_to_the_bit(seed):
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(1, 40)), int(rng.integers(1, 40)))
    num = rng.integers(0, 5, shape).astype(float)  # many zeros
    if seed % 2:
        num *= rng.uniform(1e-3, 3.0, shape)  # fractional (weighted) counts
    r = num.sum(axis=1, keepdims=True) + rng.uniform(0, 2, (shape[0], 1))
    c = num.sum(axis=0, keepdims=True) + rng.uniform(0, 2, (1, shape[1]))
    n = np.where(rng.random(shape) < 0.1, 1.0, num.sum() + 1.0)
    if seed >= 4:  # marginals of ~1e-170: r c / n underflows where num > 0
        scale = 1e-170
        num, r, c, n = num * scale, r * scale, c * scale, n * scale
        assert ((num > 0) & (r * c / n < np.finfo(np.float64).tiny)).any()
    got = info._xlogx_ratio(num, r, c, n)
    want = reference_xlogx_ratio(num, r, c, n)
    assert same_bits(got, want)
    assert np.isfinite(got).all()


def frames():
    rng = np.random.default_rng(9)
    n = 400
    a = rng.integers(0, 3, n)
    df = pd.DataFrame(
        {
            "a": a,
            "b": np.where(rng.random(n) < 0.7, a, rng.integers(0, 3, n)),
            "c": rng.integers(0, 2, n),
            "d": np.where(rng.random(n) < 0.5, a % 2, 1),
            "one": np.zeros(n, dtype=int),
        }
    )
    yield df, None, None
    yield df, rng.uniform(0.1, 3.0, n), None
    yield df, None, 0.5
    holes = df.astype(object)
    holes.iloc[::5, 1] = None
    yield holes, None, None


@pytest.mark.parametrize("case", range(4))
def test_mi_matrices_equal_the_gathered_construction(monkeypatch, case):
    df, w, alpha = list(frames())[case]
    table = encode(df, missing="pairwise", sample_weight=w)
    counts = pair_counts(table)
    got = info.mutual_information_matrix(counts, alpha)
    monkeypatch.setattr(info, "_xlogx_ratio", reference_xlogx_ratio)
    want = info.mutual_information_matrix(counts, alpha)
    assert same_bits(got, want)
    if w is None and alpha is None:  # and the plug-in MI of each pair's complete rows
        cols = list(df.columns)
        for i, u in enumerate(cols):
            for j, v in enumerate(cols):
                if i < j:
                    both = df[[u, v]].dropna()
                    oracle = mutual_information(both[u].astype(int), both[v].astype(int))
                    assert got[i, j] == pytest.approx(oracle, abs=1e-12)


def binary_frames():
    rng = np.random.default_rng(12)
    n, d = 300, 9
    X = (rng.random((n, d)) < 0.4).astype(np.int64)
    for j in range(1, d):
        X[:, j] = np.where(rng.random(n) < 0.3, X[:, j], X[:, j - 1])
    X[:, 4] = X[:, 3]  # a copy: tied MI
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(d)])
    yield df, None
    yield df, rng.uniform(0.1, 3.0, n)
    yield df, rng.uniform(0.1, 3.0, n) * 1e-170  # marginals whose products underflow
    holes = df.astype(object)
    holes.iloc[::4, 2] = None
    holes.iloc[::7, 5] = None
    yield holes, None
    yield df.iloc[:, :1], None  # one column


@pytest.mark.parametrize("case", range(5))
def test_binary_cells_equal_the_banded_computation(monkeypatch, case):
    # the four d x d cells of binary columns against the 2d x 2d bands, to the bit
    df, w = list(binary_frames())[case]
    counts = pair_counts(encode(df, missing="pairwise", sample_weight=w))
    assert (counts.cardinalities == 2).all() and len(counts.cardinalities) <= info.BINARY_MI_MAX
    got = info.mutual_information_matrix(counts)
    monkeypatch.setattr(info, "BINARY_MI_MAX", 0)
    want = info.mutual_information_matrix(counts)
    assert same_bits(got, want)
    for alpha in (0.0, 0.5):  # smoothing (0: none) takes the bands either way
        monkeypatch.setattr(info, "BINARY_MI_MAX", 256)
        smoothed = info.mutual_information_matrix(counts, alpha)
        monkeypatch.setattr(info, "BINARY_MI_MAX", 0)
        assert same_bits(smoothed, info.mutual_information_matrix(counts, alpha))
    if w is None and case == 0:
        cols = list(df.columns)
        for i in range(len(cols)):
            for j in range(i + 1, len(cols)):
                oracle = mutual_information(df[cols[i]], df[cols[j]])
                assert got[i, j] == pytest.approx(oracle, abs=1e-12)
