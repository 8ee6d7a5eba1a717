"""Issue 26, cause 2: whole-number row weights must not overflow the counts.

Counts are exact int64 only while the total weight is provably below 2**53 (every
count is at most the total: no float64 sum rounds, no int64 wraps); above it they
are float64. A constant weight multiplies every count by the same factor, so a
maximum-likelihood fit (``alpha=0``) must be the unweighted fit: the oracle of every
test here is the same learner without weights (or, for one huge row, the weighted
frequencies pandas sums in floats).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.stats._counts import EXACT_TOTAL, add_counts, whole_weights

ASIA = pd.read_csv("datasets/asia.csv").head(300)
X, Y = ASIA.drop(columns="either"), ASIA["either"]
SCALES = [4e16, 1e17, 1e18, 1e19, 2.0**63]


def max_cpt_difference(a: tl.TreeModel, b: tl.TreeModel) -> float:
    assert a.variables == b.variables
    return max(float(np.abs(a.cpt(v) - b.cpt(v)).max()) for v in a.variables)


def test_whole_weights_are_exact_only_below_the_float_limit():
    assert whole_weights(None) and whole_weights(np.array([1.0, 2.0**52]))
    assert not whole_weights(np.array([2.0**52, 2.0**52]))  # total 2**53: a float sum may round
    assert not whole_weights(np.full(300, 4e16))
    joint, n = add_counts(
        np.array([2**62], dtype=np.int64), np.array([2**62], dtype=np.int64), 2**62, 2**62
    )
    assert joint.dtype == np.float64 and joint[0] == 2.0**63 and n == 2.0**63  # no wrap to -2**63
    small, n_small = add_counts(np.array([3]), np.array([4]), 3, 4)
    assert small.dtype.kind == "i" and n_small == 7 and EXACT_TOTAL == 2.0**53


@pytest.mark.parametrize("scale", SCALES)
def test_constant_whole_weights_do_not_change_chow_liu(scale):
    plain = tl.chow_liu(ASIA, alpha=0)
    weighted = tl.chow_liu(ASIA, alpha=0, sample_weight=np.full(len(ASIA), scale))
    assert weighted.counts.joint.dtype == np.float64
    assert sorted(weighted.graph.edges) == sorted(plain.graph.edges)
    plain_mi = tl.mi_graph(ASIA)
    weighted_mi = tl.mi_graph(ASIA, sample_weight=np.full(len(ASIA), scale))
    for u, v, data in plain_mi.edges(data=True):  # MI sums terms of size ~log k that cancel:
        # its absolute round-off is a few ulps of 1, whatever the weights
        assert weighted_mi.edges[u, v]["weight"] == pytest.approx(
            data["weight"], rel=1e-12, abs=1e-13
        )
    assert max_cpt_difference(plain, weighted) < 1e-12
    assert weighted.n_rows == pytest.approx(scale * len(ASIA), rel=1e-15)


def test_mi_of_huge_whole_weights_equals_the_unweighted_mi():
    # 4e16 x 300 was silently another model: the int64 products overflowed
    plain = tl.chow_liu(ASIA, alpha=0)
    weighted = tl.chow_liu(ASIA, alpha=0, sample_weight=np.full(len(ASIA), 4e16))
    for u, v, data in plain.graph.edges(data=True):
        assert weighted.graph.edges[u, v]["weight"] == pytest.approx(data["weight"], rel=1e-12)


def test_one_weight_of_two_to_the_63_gives_the_weighted_frequencies():
    w = np.ones(len(ASIA))
    w[0] = 2.0**63  # was a raw ValueError (int64 overflow)
    model = tl.chow_liu(ASIA, alpha=0, sample_weight=w, root="asia")
    expect = pd.Series(w).groupby(ASIA["asia"]).sum()
    np.testing.assert_allclose(model.cpt("asia"), (expect / expect.sum()).to_numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "make",
    [
        lambda: tl.NaiveBayes(alpha=0),
        lambda: tl.TAN(alpha=0),
        lambda: tl.KDB(k=2, alpha=0),
        lambda: tl.AODE(alpha=0),
        lambda: tl.ChowLiuMultinet(alpha=0),
        lambda: tl.MixedNaiveBayes(alpha=0),
    ],
    ids=["NaiveBayes", "TAN", "KDB", "AODE", "ChowLiuMultinet", "MixedNaiveBayes"],
)
@pytest.mark.parametrize("scale", [1e17, 1e19])
def test_constant_whole_weights_do_not_change_a_classifier(make, scale):
    plain = make().fit(X, Y)
    weighted = make().fit(X, Y, sample_weight=np.full(len(X), scale))
    np.testing.assert_allclose(weighted.predict_proba(X), plain.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(weighted.class_count_, plain.class_count_ * scale, rtol=1e-15)


@pytest.mark.parametrize("scale", [1e17, 1e19])
def test_constant_whole_weights_do_not_change_a_tree_mixture(scale):
    plain = tl.TreeMixture(n_components=1, alpha=0, random_state=0).fit(ASIA)
    weighted = tl.TreeMixture(n_components=1, alpha=0, random_state=0).fit(
        ASIA, sample_weight=np.full(len(ASIA), scale)
    )
    np.testing.assert_allclose(weighted.score_samples(ASIA), plain.score_samples(ASIA), rtol=1e-12)
    # and k = 1 is the Chow-Liu tree of the same data
    np.testing.assert_allclose(
        plain.score_samples(ASIA),
        tl.chow_liu(ASIA, alpha=0).log_likelihood(ASIA, per_row=True),
        rtol=1e-12,
    )


def test_constant_weights_do_not_change_the_numeric_and_text_fits():
    rng = np.random.default_rng(0)
    Xn = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    Xn["b"] += Xn["a"]
    yn = np.where(Xn["c"] > 0, "p", "q")
    w = np.full(len(Xn), 1e19)
    for make in (lambda: tl.GaussianClassifier(), lambda: tl.GaussianTAN()):
        np.testing.assert_allclose(
            make().fit(Xn, yn, sample_weight=w).predict_proba(Xn),
            make().fit(Xn, yn).predict_proba(Xn),
            atol=1e-9,
        )
    a, b = tl.gaussian_chow_liu(Xn), tl.gaussian_chow_liu(Xn, sample_weight=w)
    assert sorted(a.graph.edges) == sorted(b.graph.edges)
    np.testing.assert_allclose(
        b.log_likelihood(Xn, per_row=True), a.log_likelihood(Xn, per_row=True), rtol=1e-9
    )
    counts = pd.DataFrame(rng.integers(0, 4, (200, 6)))
    for event_model in ("multinomial", "bernoulli"):
        plain = tl.TextNaiveBayes(event_model=event_model, alpha=0.5).fit(counts, yn)
        heavy = tl.TextNaiveBayes(event_model=event_model, alpha=0.5 * 1e19).fit(
            counts, yn, sample_weight=w
        )  # alpha scales with the counts: the same smoothing
        np.testing.assert_allclose(
            heavy.predict_proba(counts), plain.predict_proba(counts), atol=1e-9
        )


def test_weights_whose_total_overflows_are_refused():
    with pytest.raises(tl.TreelearnError, match=r"sample_weight\) total .*scale the weights down"):
        tl.chow_liu(ASIA, sample_weight=np.full(len(ASIA), 1e300))
    with pytest.raises(tl.TreelearnError, match="scale the weights down"):
        tl.NaiveBayes().fit(X, Y, sample_weight=np.full(len(X), 1e300))


def test_a_files_chunks_of_huge_whole_weights_add_up_in_floats(tmp_path):
    """Each 1,000-row chunk weighs 4e15 x 1,000 = 4e18 < 2**63 but > 2**53: the chunks'
    sums must not wrap as int64 (nor round as exact integers) when added."""
    data = pd.concat([ASIA] * 10, ignore_index=True)
    path = tmp_path / "heavy.csv"
    data.assign(w=4e15).to_csv(path, index=False)
    ours = tl.chow_liu(path, sample_weight="w", chunksize=1000, alpha=0)
    plain = tl.chow_liu(data, alpha=0)
    assert sorted(ours.graph.edges) == sorted(plain.graph.edges)
    assert max_cpt_difference(plain, ours) < 1e-12
    assert ours.n_rows == pytest.approx(4e15 * len(data), rel=1e-15)
