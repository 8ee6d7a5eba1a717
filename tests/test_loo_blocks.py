"""KDB's ``k="auto"`` and SKDB's leave-one-out losses scored block by block over the rows
(issue 39: memory that does not grow with rows). The losses are sums over rows, so the
oracle is the same computation over the rows in one block (itself checked against
leave-one-out by refitting in test_kdb_auto.py and test_skdb.py): equal to round-off of a
sum grouped differently, and the traced working memory of 400,000 rows not twice that of
200,000."""

from __future__ import annotations

import itertools
import tracemalloc

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.classifiers._partial import _Recorder
from treelearn.classifiers._seminaive import (
    kdb_parents,
    leave_one_out_losses,
    leave_one_out_losses_of_parts,
)
from treelearn.sources._count import count_by_class
from treelearn.stats._information import (
    conditional_mutual_information_matrix,
    mutual_information_matrix,
)


def _frame(n: int, seed: int, gaps: bool) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    cols, prev = {}, y % 2
    for j, k in enumerate((2, 3, 2, 4, 3)):
        x = np.where(rng.random(n) < 0.7, (prev + y * (j % 2)) % k, rng.integers(0, k, n))
        column = pd.Series(pd.Categorical(x, categories=range(k)))
        if gaps and j in (1, 3):
            column[rng.random(n) < 0.1] = np.nan
        cols[f"x{j}"] = column
        prev = x
    return pd.DataFrame(cols), np.array(["a", "b", "c"])[y]


def _setting(n: int, seed: int, gaps: bool, weighted: bool, max_k: int = 2):
    X, y = _frame(n, seed, gaps)
    w = np.random.default_rng(seed + 1).uniform(0.2, 3.0, n) if weighted else None
    stats = _Recorder(count_by_class(X, pd.Series(y, name="C"), sample_weight=w)).counts
    d = X.shape[1]
    class_mi = mutual_information_matrix(stats.counts)[:d, d]
    cmi = conditional_mutual_information_matrix(stats.per_class)[:d, :d]
    codes, weights = stats.rows()[0]
    return stats, kdb_parents(class_mi, cmi, max_k), codes, weights


@pytest.mark.parametrize("gaps", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("loss", ["log_loss", "zero_one"])
@pytest.mark.parametrize("fixed_prior", [False, True])
def test_blocks_and_parts_give_the_losses_of_one_pass(gaps, weighted, loss, fixed_prior):
    stats, ranked, codes, weights = _setting(997, 3, gaps, weighted)
    log_prior = np.log([0.2, 0.5, 0.3]) if fixed_prior else None
    options = {"alpha": 1.0, "log_prior": log_prior, "loss": loss}
    whole = leave_one_out_losses_of_parts(
        stats, ranked, 2, [(codes, weights)], block_rows=10**9, **options
    )
    # the public entry point: one part, default blocks (997 rows: one block)
    np.testing.assert_array_equal(
        leave_one_out_losses(stats, ranked, 2, codes, weights, **options), whole
    )
    # blocks of 7 rows, in three parts of uneven length (a part of no weights beside
    # weighted ones: weight 1)
    cuts = [0, 400, 401, 997]
    parts = [
        (codes[a:b], None if weights is None else weights[a:b]) for a, b in itertools.pairwise(cuts)
    ]
    if weighted:  # the middle part without weights: weight 1, as the joined rows' ones
        parts[1] = (parts[1][0], None)
        weights = weights.copy()
        weights[400:401] = 1.0
        whole = leave_one_out_losses_of_parts(
            stats, ranked, 2, [(codes, weights)], block_rows=10**9, **options
        )
    blocked = leave_one_out_losses_of_parts(stats, ranked, 2, parts, block_rows=7, **options)
    assert whole.shape == (3, 6)
    if loss == "zero_one":  # sums of weights of wrong rows: whole numbers without weights
        assert (whole[:, 1:] <= (weights.sum() if weighted else len(codes)) + 1e-9).all()
    # the same terms summed in 143 blocks instead of one: round-off of ~1,000 terms
    np.testing.assert_allclose(blocked, whole, rtol=1e-12, atol=1e-9)


def test_kdb_auto_is_the_same_with_small_blocks(monkeypatch):
    X, y = _frame(3000, 5, gaps=True)
    whole = tl.KDB().fit(X, y)
    import treelearn.classifiers._seminaive as seminaive

    monkeypatch.setattr(seminaive, "LOO_BLOCK_ROWS", 64)
    blocked = tl.KDB().fit(X, y)
    assert blocked.k_ == whole.k_
    np.testing.assert_allclose(blocked.loo_loss_, whole.loo_loss_, rtol=1e-12)
    np.testing.assert_array_equal(blocked.predict_proba(X), whole.predict_proba(X))


def _traced_peak(n: int) -> int:
    stats, ranked, codes, weights = _setting(n, 11, gaps=True, weighted=False)
    tracemalloc.start()
    leave_one_out_losses_of_parts(
        stats, ranked, 2, [(codes, weights)], alpha=1.0, log_prior=None, loss="log_loss"
    )
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_working_memory_does_not_grow_with_the_rows():
    # the rows' codes are the input (6 bytes a row, allocated before tracing); the
    # families counted anew (gaps) take one intp index a row for a moment (3.2 MB at
    # 400,000 rows), below a block's working set (~27 MB: 65,536 rows). One pass over
    # every row took ~1 KB a row (a 1M-row KDB fit: 590 MiB traced)
    small, large = _traced_peak(200_000), _traced_peak(400_000)
    assert large < 1.1 * small, (small, large)
    assert large < 64 * 2**20, large
