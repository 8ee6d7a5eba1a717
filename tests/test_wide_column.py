"""Very wide columns counted without the K x K matrix (issue 40: a 10,000-state column with
``max_states=20000`` took 88 s and 4.7 GB; benchmarks/bench_wide_column.py measures it).

Every statistic of :class:`~treelearn.stats._wide.WideCountedTable` is checked against
pandas crosstabs (oracles) and against the ``K x K`` path; the Chow-Liu tree learned from it
equals the one learned from the ``K x K`` counts. The threshold of a wide column is lowered
(monkeypatched) so that the oracles' cell-by-cell loops stay small.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import mutual_information, smoothed_mutual_information

import treelearn as tl
from treelearn.encoding._table import encode
from treelearn.learners._chow_liu import chow_liu_from_counts
from treelearn.stats import _counts, _wide
from treelearn.stats._counts import CountedTable
from treelearn.stats._settings import LearningSettings
from treelearn.stats._wide import WideCountedTable

#: sums of a few thousand terms in another order: round-off only
TOL = 1e-12


def table(n: int = 3000, seed: int = 0, missing: bool = True) -> pd.DataFrame:
    """Two wide columns (40 and 30 states), three narrow ones; some cells missing."""
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 40, n)
    df = pd.DataFrame(
        {
            "a": (w + rng.integers(0, 2, n)) % 3,
            "w": w,
            "b": np.where(rng.random(n) < 0.8, w % 2, rng.integers(0, 2, n)),
            "v": (w * 3 + rng.integers(0, 4, n)) % 30,
            "c": rng.integers(0, 4, n),
        }
    ).astype(float)
    if missing:
        for col, share in (("a", 0.1), ("w", 0.05), ("v", 0.2)):
            df.loc[rng.random(n) < share, col] = np.nan
    # labels, not numbers (numbers of many values are binned or warned about)
    return df.apply(lambda s: s.map(lambda x: None if pd.isna(x) else f"{s.name}{int(x)}"))


@pytest.fixture
def narrow_threshold(monkeypatch):
    """Columns of more than 10 states are wide here (40 and 30: ``w`` and ``v``)."""
    monkeypatch.setattr(_wide, "WIDE_STATES", 10)


def stats_of(df: pd.DataFrame, weights=None) -> tuple[WideCountedTable, CountedTable]:
    t = encode(df, missing="pairwise", sample_weight=weights)
    wide = _wide.counted_table(t)
    assert isinstance(wide, WideCountedTable)
    return wide, CountedTable.of_table(t)


def test_mutual_information_of_every_pair_equals_crosstabs(narrow_threshold):
    df = table()
    wide, _ = stats_of(df)
    mi = wide.mutual_information()
    smoothed = wide.mutual_information(0.5)
    cols = list(df.columns)
    k = {c: int(df[c].nunique()) for c in cols}
    for i, a in enumerate(cols):
        for j, b in enumerate(cols):
            if i == j:
                assert mi[i, j] == 0.0
                continue
            both = df[[a, b]].dropna()
            assert abs(mi[i, j] - mutual_information(both[a], both[b])) < TOL, (a, b)
            codes = df[[a, b]].apply(
                lambda s: s.map({v: c for c, v in enumerate(sorted(s.dropna().unique()))})
            )
            want = smoothed_mutual_information(codes[a], codes[b], k[a], k[b], 0.5)
            assert abs(smoothed[i, j] - want) < TOL, (a, b)


def test_rows_and_miller_madow_bias_equal_crosstabs(narrow_threshold):
    df = table()
    wide, _ = stats_of(df)
    cols = list(df.columns)
    rows, bias, observed = wide.pair_totals(), wide.pairwise_bias(), wide.observed_rows()
    np.testing.assert_array_equal(observed, df.notna().sum().to_numpy())
    for i, a in enumerate(cols):
        for j, b in enumerate(cols):
            both = df[[a, b]].dropna()
            if i == j:
                assert rows[i, i] == df[a].notna().sum() and bias[i, i] == 0.0
                continue
            assert rows[i, j] == len(both)
            t = pd.crosstab(both[a], both[b]).to_numpy()
            m_ij, m_i, m_j = (t > 0).sum(), t.shape[0], t.shape[1]
            assert abs(bias[i, j] - (m_ij - m_i - m_j + 1) / (2 * len(both))) < TOL


@pytest.mark.parametrize("weights", ["whole", "fractional"])
def test_equal_to_the_k_by_k_path_with_weights(narrow_threshold, weights):
    df = table(seed=1)
    rng = np.random.default_rng(2)
    w = rng.integers(1, 4, len(df)).astype(float) + (0.25 if weights == "fractional" else 0.0)
    wide, dense = stats_of(df, w)
    for alpha in (None, 0.5):
        np.testing.assert_allclose(
            wide.mutual_information(alpha), dense.mutual_information(alpha), rtol=0, atol=TOL
        )
    np.testing.assert_allclose(wide.pair_totals(), dense.pair_totals(), rtol=0, atol=1e-9)
    np.testing.assert_allclose(wide.observed_rows(), dense.observed_rows(), rtol=0, atol=1e-9)
    np.testing.assert_allclose(wide.pairwise_bias(), dense.pairwise_bias(), rtol=0, atol=TOL)
    if weights == "whole":  # a whole weight is that many copies of the row
        copies = df.loc[df.index.repeat(w.astype(int))].reset_index(drop=True)
        repeated, _ = stats_of(copies)
        np.testing.assert_allclose(
            wide.mutual_information(), repeated.mutual_information(), rtol=0, atol=TOL
        )


@pytest.mark.parametrize(
    "options",
    [
        {"missing": "pairwise"},
        {"missing": "pairwise", "forest": "bic"},
        {"missing": "pairwise", "mi_alpha": 1.0},
        {"missing": "drop", "alpha": 0.0},
    ],
)
def test_chow_liu_equals_the_k_by_k_tree(narrow_threshold, options):
    df = table(seed=3)
    got = tl.chow_liu(df, **options)
    kept = df.dropna() if options["missing"] == "drop" else df
    t = encode(kept, missing="pairwise")
    settings = {k: v for k, v in options.items() if k != "alpha"}
    want = chow_liu_from_counts(
        CountedTable.of_table(t), LearningSettings(alpha=options.get("alpha", 1.0), **settings)
    )
    assert sorted(got.graph.edges) == sorted(want.graph.edges)
    for v in got.variables:
        np.testing.assert_allclose(got.cpt(v), want.cpt(v), rtol=0, atol=TOL)
    assert got.counts is None  # no K x K kept: no partial_fit
    with pytest.raises(tl.TreelearnError, match=r"partial_fit.*over 1,000 states"):
        got.partial_fit(df.head(5))


def test_a_wide_column_never_forms_the_k_by_k_matrix(monkeypatch):
    """A 1,200-state column (over the real threshold): counting any one-hot block that wide is
    made to fail, and the fit still succeeds, with the K x K path's tree."""
    rng = np.random.default_rng(4)
    n = 6000
    w = rng.integers(0, 1200, n)
    df = pd.DataFrame(
        {
            "w": [f"s{v}" for v in w],
            "a": (w + rng.integers(0, 2, n)) % 3,
            "b": rng.integers(0, 2, n),
        }
    )
    want = chow_liu_from_counts(
        CountedTable.of_table(encode(df, max_states=20_000)), LearningSettings()
    )
    real = _counts.count_codes

    def narrow_only(codes, cardinalities, *args, **kwargs):
        assert int(np.sum(cardinalities)) < 1000, "a K x K matrix of a wide column"
        return real(codes, cardinalities, *args, **kwargs)

    monkeypatch.setattr(_counts, "count_codes", narrow_only)
    got = tl.chow_liu(df, max_states=20_000)
    assert sorted(got.graph.edges) == sorted(want.graph.edges)
    for v in got.variables:
        np.testing.assert_allclose(got.cpt(v), want.cpt(v), rtol=0, atol=TOL)
