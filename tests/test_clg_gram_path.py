"""The CLG statistics' complete-row path (one Gram matrix of ``[H | D | D^2 | 1]`` per block
of rows, :func:`~treelearn.stats._mixed_pairs.complete_pair_sums`) against a brute-force
oracle (each state's rows picked by a mask, numpy's mean and variance; pandas' crosstab for
the discrete pairs) and against the exact path (the same table with unit weights), and the
CLG trees learned through it against the exact path's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
import treelearn.stats._mixed_pairs as mp
from treelearn.sources._mixed import table_statistics
from treelearn.stats._counts import pair_counts

CARDS = np.array([3, 2, 4])


def mixed_arrays(n: int, seed: int, offset: float = 0.0, missing_codes: float = 0.0):
    """Codes of 3 discrete columns (``missing_codes`` of the cells -1) and 4 numbers that
    depend on them (means ``offset`` + a few units)."""
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, k, n) for k in CARDS])
    x0 = offset + 2.0 * codes[:, 0] + rng.normal(0, 1 + codes[:, 0], n)
    x1 = offset + 0.5 * x0 + rng.normal(0, 0.3, n)
    x2 = offset - 3.0 * codes[:, 2] + rng.gamma(2.0, size=n)
    x3 = offset + rng.normal(size=n)
    values = np.column_stack([x0, x1, x2, x3])
    if missing_codes:
        codes = np.where(rng.random(codes.shape) < missing_codes, -1, codes)
    return codes, values


def brute_force(codes: np.ndarray, values: np.ndarray) -> dict:
    """Every statistic from its definition, one state and one column at a time."""
    offsets = np.concatenate([[0], np.cumsum(CARDS)])
    K, p = int(offsets[-1]), values.shape[1]
    weight, mean, var = np.zeros((K, p)), np.zeros((K, p)), np.zeros((K, p))
    for i, k in enumerate(CARDS):
        for a in range(k):
            rows = codes[:, i] == a
            for j in range(p):
                weight[offsets[i] + a, j] = rows.sum()
                if rows.any():
                    mean[offsets[i] + a, j] = values[rows, j].mean()
                    var[offsets[i] + a, j] = values[rows, j].var()
    joint = np.zeros((K, K), dtype=np.int64)
    frame = pd.DataFrame(codes)
    for i in range(len(CARDS)):
        for j in range(len(CARDS)):
            both = frame[(frame[i] >= 0) & (frame[j] >= 0)]
            table = pd.crosstab(both[i], both[j]).reindex(
                index=range(CARDS[i]), columns=range(CARDS[j]), fill_value=0
            )
            joint[offsets[i] : offsets[i + 1], offsets[j] : offsets[j + 1]] = table.to_numpy()
    return {
        "state_weight": weight,
        "state_mean": mean,
        "state_variance": var,
        "pair_mean": np.repeat(values.mean(axis=0)[:, None], p, axis=1),
        "pair_variance": np.repeat(values.var(axis=0)[:, None], p, axis=1),
        "pair_covariance": np.cov(values, rowvar=False, bias=True),
        "joint": joint,
    }


@pytest.mark.parametrize(
    ("n", "offset", "missing_codes"),
    [(3000, 0.0, 0.0), (2999, 1e6, 0.0), (1000, 0.0, 0.2), (5, 10.0, 0.0)],
)
def test_complete_rows_equal_brute_force(n, offset, missing_codes, monkeypatch):
    monkeypatch.setattr(mp, "GRAM_BLOCK_ROWS", 256)  # many blocks, a short last one
    codes, values = mixed_arrays(n, seed=n, offset=offset, missing_codes=missing_codes)
    codes_before, values_before = codes.copy(), values.copy()
    got = mp.mixed_pair_statistics(codes, CARDS, values)
    want = brute_force(codes, values)
    np.testing.assert_array_equal(codes, codes_before)  # the caller's arrays untouched
    np.testing.assert_array_equal(values, values_before)
    # counts are whole numbers summed in float64: exact
    np.testing.assert_array_equal(got.state_weight, want["state_weight"])
    assert got.discrete_counts is not None and got.discrete_counts.dtype == np.int64
    np.testing.assert_array_equal(got.discrete_counts, want["joint"])
    # centred sums keep the residuals' digits: means to eps times the offset, (co)variances
    # (about 1-10 here) to eps times the squared deviations summed, n of them
    scale = 1.0 + abs(offset)
    np.testing.assert_allclose(got.state_mean, want["state_mean"], rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(got.pair_mean, want["pair_mean"], rtol=0, atol=1e-12 * scale)
    for key in ("state_variance", "pair_variance", "pair_covariance"):
        np.testing.assert_allclose(getattr(got, key), want[key], rtol=1e-9, atol=1e-9, err_msg=key)
    np.testing.assert_array_equal(got.pair_weight, np.full((4, 4), float(n)))


def test_complete_rows_equal_the_exact_path():
    """Unit weights take the exact path (sparse one-hot products of standardised numbers):
    every field agrees to round-off, and every edge gain with them."""
    codes, values = mixed_arrays(4000, seed=1, offset=50.0, missing_codes=0.05)
    fast = mp.mixed_pair_statistics(codes, CARDS, values)
    exact = mp.mixed_pair_statistics(codes, CARDS, values, np.ones(len(values)))
    assert exact.discrete_counts is None
    for key in ("state_weight", "pair_weight"):
        np.testing.assert_array_equal(getattr(fast, key), getattr(exact, key))
    for key in ("state_mean", "pair_mean", "state_variance", "pair_variance", "pair_covariance"):
        np.testing.assert_allclose(
            getattr(fast, key), getattr(exact, key), rtol=1e-11, atol=1e-11, err_msg=key
        )
    np.testing.assert_allclose(
        fast.conditional_information(), exact.conditional_information(), rtol=1e-10, atol=1e-13
    )
    np.testing.assert_allclose(
        fast.continuous_information(), exact.continuous_information(), rtol=1e-10, atol=1e-13
    )


def test_numbers_with_a_hole_or_weights_take_the_exact_path(monkeypatch):
    called = []
    monkeypatch.setattr(mp, "complete_pair_sums", lambda *a: called.append(1))
    codes, values = mixed_arrays(200, seed=2)
    mp.mixed_pair_statistics(codes, CARDS, values, np.full(200, 2.0))
    values[3, 1] = np.nan
    stats = mp.mixed_pair_statistics(codes, CARDS, values)
    assert not called and stats.discrete_counts is None
    assert stats.pair_weight[1, 1] == 199 and stats.pair_weight[0, 0] == 200


def test_a_wide_table_takes_the_exact_path(monkeypatch):
    codes, values = mixed_arrays(500, seed=3)
    fast = mp.mixed_pair_statistics(codes, CARDS, values)
    monkeypatch.setattr(mp, "GRAM_MAX_COLUMNS", int(CARDS.sum()) + 2 * 4)  # one column short
    exact = mp.mixed_pair_statistics(codes, CARDS, values)
    assert fast.discrete_counts is not None and exact.discrete_counts is None
    np.testing.assert_allclose(fast.state_variance, exact.state_variance, rtol=1e-11, atol=1e-12)


def test_the_discrete_pair_counts_are_pair_counts_of_the_table():
    """The counts the Gram matrix brings are what pair_counts gives (the discrete MI and the
    CPTs read them instead of a second count)."""
    codes, values = mixed_arrays(1500, seed=4)
    df = pd.DataFrame(codes, columns=["a", "b", "c"]).astype(str)
    df[["x0", "x1", "x2", "x3"]] = values
    df.loc[::7, "b"] = np.nan
    stats = table_statistics(df, numeric="auto", missing="pairwise")
    own = pair_counts(stats.discrete.table)
    stats.mutual_information()
    assert "counts" in stats.discrete.__dict__
    np.testing.assert_array_equal(stats.discrete.counts.joint, own.joint)
    assert stats.discrete.counts.n_rows == own.n_rows == 1500


@pytest.mark.parametrize("offset", [0.0, 1e5])
def test_clg_trees_equal_the_exact_paths(offset):
    """The whole fit: the same tree and parameters as with unit weights (the exact path)."""
    codes, values = mixed_arrays(3000, seed=5, offset=offset)
    df = pd.DataFrame(codes, columns=["a", "b", "c"])
    df[["x0", "x1", "x2", "x3"]] = values
    fast = tl.clg_tree(df, numeric="auto")
    exact = tl.clg_tree(df, numeric="auto", sample_weight=np.ones(len(df)))
    assert sorted(fast.graph.edges()) == sorted(exact.graph.edges())
    for v in fast.graph.nodes:
        a, b = fast.graph.nodes[v], exact.graph.nodes[v]
        for key in ("means", "variances", "intercept", "coefficient", "variance"):
            if a.get(key) is not None:
                np.testing.assert_allclose(
                    a[key], b[key], rtol=1e-9, atol=1e-9 * (1 + offset), err_msg=f"{v} {key}"
                )
    for v in ("a", "b", "c"):
        np.testing.assert_array_equal(
            fast.discrete_model.graph.nodes[v]["cpt"], exact.discrete_model.graph.nodes[v]["cpt"]
        )
    np.testing.assert_allclose(
        fast.score_samples(df), exact.score_samples(df), rtol=1e-9, atol=1e-9
    )
