"""Supervised discretization by Fayyad & Irani's MDL criterion (issue 39, item 1):
``mdl_cut_points`` and ``Discretizer(strategy="mdl")`` against hand-worked examples, a
brute-force search of the criterion (tests/oracles.py) and Weka's published cut points."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import mdl_cut_points_brute

import treelearn as tl
from treelearn.encoding._mdl import mdl_cut_points


# ---------------------------------------------------------------- the MDL cut points
def test_mdl_hand_worked_examples():
    # 1..8, classes 0000 1111: the cut at 4.5 has gain 1 bit (Ent(S) = 1, both sides pure);
    # k = 2, k1 = k2 = 1: Delta = log2(3^2 - 2) - (2 * 1 - 0 - 0) = 0.807, and the price
    # (log2(7) + 0.807) / 8 = 0.452 < 1: taken; each side is pure (no gain): [4.5]
    assert mdl_cut_points(np.arange(1.0, 9.0), np.array([0] * 4 + [1] * 4)).tolist() == [4.5]
    # 1..4, classes 0 1 0 1: the first least entropy is after 1 (3/4 * H(1/3) = 0.689 bits;
    # after 3 ties), gain 0.311; Delta = log2 7 - (2 - 0 - 2 * 0.918) = 2.644, price
    # (log2 3 + 2.644) / 4 = 1.057 > 0.311: refused, one bin
    assert mdl_cut_points(np.arange(1.0, 5.0), np.array([0, 1, 0, 1])).tolist() == []
    # 1..9, classes 000 111 222: after 3 and after 6 tie (6/9 * 1 bit); the first is taken:
    # gain log2 3 - 2/3 = 0.918 > (log2 8 + log2 25 - (3 log2 3 - 0 - 2)) / 9 = 0.543; then
    # 4..9 (111 222): gain 1 > (log2 5 + log2 7 - 2) / 6 = 0.522: [3.5, 6.5]
    cuts = mdl_cut_points(np.arange(1.0, 10.0), np.repeat([0, 1, 2], 3))
    assert cuts.tolist() == [3.5, 6.5]


def test_mdl_equals_a_brute_force_search_of_the_criterion():
    rng = np.random.default_rng(7)
    cut_any = 0
    for trial in range(300):
        n = int(rng.integers(2, 40))
        k = int(rng.integers(2, 4))
        values = rng.integers(0, int(rng.integers(2, 15)), n).astype(float)
        # classes that follow the value more or less, so that some columns are cut
        noise = rng.random() < 0.5
        classes = np.where(
            rng.random(n) < (0.3 if noise else 0.9),
            (values > np.median(values)).astype(int) % k,
            rng.integers(0, k, n),
        )
        got = mdl_cut_points(values, classes).tolist()
        expected = mdl_cut_points_brute(values.tolist(), classes.tolist())
        assert got == pytest.approx(sorted(expected), abs=0), (trial, values, classes)
        cut_any += bool(got)
    assert 30 < cut_any < 290  # both outcomes were exercised


def test_mdl_equals_wekas_published_cut_points_for_iris():
    # Weka's supervised Discretize (Fayyad & Irani's MDL) on iris.arff gives the labels
    # '(-inf-5.55]', '(5.55-6.15]', '(6.15-inf)'; '(-inf-2.95]', '(2.95-3.35]', '(3.35-inf)';
    # '(-inf-2.45]', '(2.45-4.75]', '(4.75-inf)'; '(-inf-0.8]', '(0.8-1.75]', '(1.75-inf)'
    # (written out by a Weka API program declaring the discretized iris attributes, found
    # with the project's code search; the same cut points as Witten & Frank's examples)
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    weka = [[5.55, 6.15], [2.95, 3.35], [2.45, 4.75], [0.8, 1.75]]
    for j, expected in enumerate(weka):
        np.testing.assert_allclose(mdl_cut_points(X[:, j], y), expected, rtol=0, atol=1e-12)
    d = tl.Discretizer(strategy="mdl").fit(pd.DataFrame(X, columns=list("abcd")), y)
    assert d.categories_["c"] == ["(-inf, 2.45]", "(2.45, 4.75]", "(4.75, inf)"]


def test_mdl_leaves_missing_values_and_labels_out_and_takes_weights():
    values = np.array([1.0, 2.0, np.nan, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
    classes = np.array([0, 0, 1, 0, -1, 0, 1, 1, 1, 1])
    kept = ~np.isnan(values) & (classes >= 0)
    assert (
        mdl_cut_points(values, classes).tolist()
        == mdl_cut_points(values[kept], classes[kept]).tolist()
    )
    # whole weights are repeated rows
    v, c, w = np.arange(1.0, 7.0), np.array([0, 0, 1, 0, 1, 1]), np.array([3, 1, 2, 1, 4, 2])
    assert (
        mdl_cut_points(v, c, w.astype(float)).tolist()
        == mdl_cut_points(np.repeat(v, w), np.repeat(c, w)).tolist()
    )


def test_discretizer_mdl_needs_y_and_cuts_every_number_column_by_dtype():
    X = pd.DataFrame({"age": [30, 31, 32, 60, 61, 62] * 3, "g": list("abcabc") * 3})
    y = np.array([0, 0, 0, 1, 1, 1] * 3)
    with pytest.raises(tl.TreelearnError, match=r"fit\(X, y\)"):
        tl.Discretizer(strategy="mdl").fit(X)
    d = tl.Discretizer(strategy="mdl").fit(X, y)
    assert list(d.edges_) == ["age"]  # an integer column with 6 values: numbers, by dtype
    assert d.categories_["age"] == ["(-inf, 46]", "(46, inf)"]
    assert d.transform(X)["g"].tolist() == X["g"].tolist()


def test_discretizer_bins_are_bounded_before_the_work():
    X = pd.DataFrame({"x": np.random.default_rng(0).normal(size=100)})
    with pytest.raises(tl.ResourceLimitError, match=r"Discretizer\(bins=10000000\).*at most 10000"):
        tl.Discretizer(bins=10**7).fit(X)


def test_mdl_discretizer_counts_rows_by_their_weights():
    from treelearn.encoding._discretizer import mdl_discretizer

    rng = np.random.default_rng(3)
    X = pd.DataFrame({"x": rng.normal(size=60)})
    y = (X["x"] + rng.normal(0, 0.5, 60) > 0).astype(int).to_numpy()
    w = rng.integers(0, 4, 60)
    weighted = mdl_discretizer(X, y, ["x"], w.astype(float))
    repeated = tl.Discretizer(strategy="mdl").fit(X.loc[X.index.repeat(w)], np.repeat(y, w))
    assert weighted.edges_["x"].tolist() == repeated.edges_["x"].tolist()
