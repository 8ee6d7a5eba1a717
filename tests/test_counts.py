"""Pairwise counting: every block equals a pandas crosstab, also with missing values
(pairwise-complete rows) and whatever the chunk size; the fast paths (reduced indicators,
dense BLAS and scipy.sparse products) equal the plain one-hot product; the memory guards
count every array a fit holds before allocating."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import expect, random_codes
from oracles import crosstab

import treelearn as tl
import treelearn.stats._counts as counts_mod
from treelearn.encoding._table import Table, encode
from treelearn.stats._counts import count_codes, offsets_of, pair_counts


def _mixed_frame(n: int, rng: np.random.Generator) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "s": rng.choice(["lo", "mid", "hi"], n),
            "i": rng.integers(-1, 3, n),
            "b": rng.random(n) < 0.3,
            "c": pd.Categorical(rng.choice(["x", "y"], n), categories=["y", "x", "never"]),
            "j": rng.integers(0, 2, n) * 10,
        }
    )


@pytest.mark.parametrize("chunk_rows", [None, 1, 7, 64])
def test_blocks_equal_crosstabs(chunk_rows):
    rng = np.random.default_rng(0)
    df = _mixed_frame(500, rng)
    table = encode(df)
    pc = pair_counts(table, chunk_rows=chunk_rows)
    assert pc.n_rows == 500
    for (i, a), (j, b) in itertools.product(enumerate(df.columns), repeat=2):
        sa, sb = list(table.states[i]), list(table.states[j])
        block = pc.block(i, j)
        assert block.dtype.kind in "iu"
        if i == j:
            expected = np.diag(df[a].value_counts().reindex(sa, fill_value=0).to_numpy())
        else:
            expected = crosstab(df, a, b, sa, sb)
        assert np.array_equal(block, expected), (a, b)
    for i, a in enumerate(df.columns):
        expected = df[a].value_counts().reindex(list(table.states[i]), fill_value=0).to_numpy()
        assert np.array_equal(pc.marginal(i), expected)
    # the declared but unobserved category has a zero count, not an absent one
    assert pc.marginal(3).tolist()[2] == 0


@pytest.mark.parametrize("chunk_rows", [None, 3, 50])
def test_pairwise_missing_counts_equal_pairwise_complete_crosstabs(chunk_rows):
    rng = np.random.default_rng(1)
    df = _mixed_frame(400, rng).astype(object)
    for col, frac in zip(df.columns, [0.1, 0.2, 0.05, 0.3, 0.15]):
        holes = rng.random(len(df)) < frac
        df.loc[holes, col] = [None, np.nan, pd.NA][int(rng.integers(0, 3))]
    table = encode(df, missing="pairwise")
    assert table.n_rows == 400
    assert ((table.codes < 0) == df.isna().to_numpy()).all()
    pc = pair_counts(table, chunk_rows=chunk_rows)
    totals = pc.pair_totals()
    for (i, a), (j, b) in itertools.combinations(enumerate(df.columns), 2):
        expected = crosstab(df, a, b, list(table.states[i]), list(table.states[j]))
        assert np.array_equal(pc.block(i, j), expected), (a, b)
        assert np.array_equal(pc.block(j, i), expected.T)
        assert totals[i, j] == len(df[[a, b]].dropna())
    for i, a in enumerate(df.columns):
        assert pc.marginal(i).sum() == df[a].notna().sum()


def test_counts_exact_for_many_rows_in_one_chunk():
    # float32 products are exact below 2^24; check a count well above float16 range
    n = 300_000
    codes = np.zeros((n, 2), dtype=np.int8)
    codes[: n // 3, 1] = 1
    table = Table(codes=codes, columns=("a", "b"), states=((0,), (0, 1)))
    pc = pair_counts(table)
    assert pc.block(0, 1).tolist() == [[n - n // 3, n // 3]]


def test_counts_add():
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"a": rng.integers(0, 3, 100), "b": rng.integers(0, 2, 100)})
    t = encode(df)
    whole = pair_counts(t)
    first = pair_counts(Table(t.codes[:40], t.columns, t.states))
    second = pair_counts(Table(t.codes[40:], t.columns, t.states))
    summed = first + second
    assert np.array_equal(summed.joint, whole.joint) and summed.n_rows == 100


@pytest.mark.parametrize("weights", [None, "whole", "fractional"])
def test_family_counts_from_codes_count_row_by_row(weights):
    from treelearn.stats._counts import family_counts_from_codes

    rng = np.random.default_rng(8)
    cards = [3, 2, 4, 2]
    codes = np.column_stack([rng.integers(-1, k, 200) for k in cards]).astype(np.int8)
    codes[:, 1] = np.abs(codes[:, 1])  # one column with no missing value
    w = {None: None, "whole": rng.integers(0, 4, 200).astype(float), "fractional": rng.random(200)}[
        weights
    ]
    for family in ([2], [1, 0], [3, 0, 2], [0, 1, 2, 3], [2, 1]):
        want = np.zeros([cards[j] for j in family])
        for r, row in enumerate(codes):  # the definition: each complete row adds its weight
            if all(row[j] >= 0 for j in family):
                want[tuple(row[j] for j in family)] += 1.0 if w is None else w[r]
        got = family_counts_from_codes(codes, cards, family, w)
        assert got.shape == want.shape
        assert got.dtype == (np.float64 if weights == "fractional" else np.int64)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------- hostile inputs
def test_the_pair_counts_guard_counts_every_array_not_each(tmp_path, monkeypatch):
    # one row of 300 columns: one 300 x 300 matrix of 8-byte counts (720,000 bytes) fits
    # the limit, but counting holds it twice and the MI and tree-weight matrices too
    path = tmp_path / "wide.csv"
    path.write_text(",".join(f"c{i}" for i in range(300)) + "\n" + ",".join("1" * 300) + "\n")
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 1_000_000)
    assert 8 * 300**2 < tl.limits.MEMORY_LIMIT < 8 * 4 * 300**2
    with pytest.raises(tl.ResourceLimitError, match="300 x 300 matrix, twice"):
        tl.chow_liu(str(path))


def test_pair_count_matrix_guard(monkeypatch):
    # 4 columns of 2 states: an 8 x 8 matrix of 8-byte counts, twice at the peak, and
    # two 4 x 4 matrices of the columns (MI, the tree's weights): 8 * (128 + 32) bytes
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 8 * (2 * 8 * 8 + 2 * 4 * 4) - 1)
    table = pd.DataFrame({f"v{i}": [0, 1] for i in range(4)})
    expect(tl.ResourceLimitError, "max_states", tl.chow_liu, table)
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 8 * (2 * 8 * 8 + 2 * 4 * 4))
    tl.chow_liu(table)


# ------------------------------------------- fast paths: reduced indicators, BLAS and scipy.sparse
def plain_counts(codes: np.ndarray, cardinalities) -> np.ndarray:
    """``X.T @ X`` of the full one-hot matrix, no tricks, as int64.

    The product is taken in float64 (BLAS), then converted: a sum of at most ``n`` products
    of 0 and 1 is exact in float64 below 2**53 rows. (numpy's int64 matmul has no BLAS:
    3,000 x 800 took 16 s.)"""
    offsets = offsets_of(np.asarray(cardinalities))
    n, d = codes.shape
    assert n < 2**53
    X = np.zeros((n, int(offsets[-1])), dtype=np.float64)
    for j in range(d):
        ok = codes[:, j] >= 0
        X[np.flatnonzero(ok), offsets[j] + codes[ok, j]] = 1.0
    return (X.T @ X).astype(np.int64)


@pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_reduced_counts_equal_plain_one_hot(monkeypatch, sparse, missing):
    if sparse:  # force the scipy.sparse product whatever the width and density
        monkeypatch.setattr(counts_mod, "SPARSE_MIN_WIDTH", 0)
        monkeypatch.setattr(counts_mod, "SPARSE_MAX_DENSITY", 10.0)
    rng = np.random.default_rng(7)
    for _ in range(40):
        codes, card = random_codes(
            rng, int(rng.integers(0, 120)), int(rng.integers(1, 7)), missing=missing
        )
        expected = plain_counts(codes, card)
        for chunk in (None, 1, 13):
            got = count_codes(codes, card, chunk)
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, expected)


@pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")
def test_sparse_product_chosen_for_sparse_wide_data_and_exact():
    rng = np.random.default_rng(3)
    codes = (rng.random((3000, 400)) < 0.005).astype(np.int8)
    codes[rng.random(codes.shape) < 0.001] = -1
    card = np.full(400, 2)
    np.testing.assert_array_equal(count_codes(codes, card), plain_counts(codes, card))
