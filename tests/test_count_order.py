"""Pair counts of codes in either memory order (issue 41: a fit's fixed costs). A frame's
codes are column after column (Fortran order), and ``count_codes`` fills its indicator
chunks in the codes' own order; every count must be what the one-hot product gives,
computed here in int64 from ``np.eye`` (a missing code, -1, has no indicator): binary and
multi-state columns, missing cells, whole and fractional row weights, chunks that split
the rows unevenly."""

import numpy as np
import pytest

from treelearn.stats._counts import count_codes


def one_hot_oracle(codes, cards, weights=None):
    blocks = []
    for j, k in enumerate(cards):
        eye = np.vstack([np.eye(k, dtype=np.int64), np.zeros((1, k), dtype=np.int64)])
        blocks.append(eye[codes[:, j]])  # code -1 picks the zero row
    X = np.hstack(blocks)
    if weights is None:
        return X.T @ X
    return X.T.astype(float) @ (X * weights[:, None])


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("chunk_rows", [None, 7, 64])
@pytest.mark.parametrize("kind", ["binary", "states", "missing", "whole", "fractional"])
def test_counts_in_either_order_equal_the_one_hot_product(order, chunk_rows, kind):
    rng = np.random.default_rng(len(kind) + (chunk_rows or 0))
    n = 101
    cards = [2, 2, 2, 2] if kind == "binary" else [2, 3, 1, 5, 2]
    codes = np.column_stack([rng.integers(0, k, n) for k in cards]).astype(np.int8)
    if kind in ("missing", "fractional"):
        codes[rng.random(codes.shape) < 0.1] = -1
    codes = np.array(codes, order=order)
    weights = None
    if kind == "whole":
        weights = rng.integers(0, 4, n).astype(float)
    elif kind == "fractional":
        weights = rng.uniform(0.1, 2.0, n)
    got = count_codes(codes, cards, chunk_rows, weights)
    want = one_hot_oracle(codes.astype(np.int64), cards, weights)
    if weights is None or kind == "whole":
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want)
    else:  # sums of the same doubles in another order: round-off of the largest count
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * weights.sum())
    same = count_codes(np.ascontiguousarray(codes), cards, chunk_rows, weights)
    np.testing.assert_array_equal(got, same)  # the order changes no count, to the bit
