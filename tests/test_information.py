"""Entropies and mutual information against scikit-learn and hand computations; the MI
matrix computed block by block equals the textbook per-pair formula."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from conftest import random_codes, random_dependent_frame
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import entropy, smoothed_mutual_information
from sklearn.metrics import mutual_info_score

import treelearn as tl
from treelearn.encoding._table import encode
from treelearn.stats._counts import pair_counts
from treelearn.stats._information import entropies, mutual_information_matrix


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mi_matrix_equals_sklearn_on_every_pair(seed):
    rng = np.random.default_rng(seed)
    cards = [2, 3, 4, 5, 2, 3, 7]
    df = random_dependent_frame(int(rng.integers(50, 2000)), cards, rng)
    mi = mutual_information_matrix(pair_counts(encode(df)))
    d = len(cards)
    assert mi.shape == (d, d)
    assert np.all(np.diag(mi) == 0)
    for i, j in itertools.permutations(range(d), 2):
        expected = mutual_info_score(df.iloc[:, i], df.iloc[:, j])
        assert abs(mi[i, j] - expected) <= 1e-12, (i, j)
    G = tl.mi_graph(df)
    for u, v, w in G.edges(data="weight"):
        assert abs(w - mutual_info_score(df[u], df[v])) <= 1e-12


def test_mi_of_string_and_bool_columns_equals_sklearn():
    rng = np.random.default_rng(3)
    n = 700
    s = rng.choice(["a", "b", "c"], n)
    df = pd.DataFrame(
        {
            "s": s,
            "b": (s == "a") ^ (rng.random(n) < 0.2),
            "c": pd.Categorical(np.where(rng.random(n) < 0.5, s, "z")),
        }
    )
    G = tl.mi_graph(df)
    for u, v, w in G.edges(data="weight"):
        assert abs(w - mutual_info_score(df[u].astype(str), df[v].astype(str))) <= 1e-12


def test_entropies_by_hand():
    rng = np.random.default_rng(4)
    df = random_dependent_frame(333, [2, 3, 4, 6], rng)
    h = entropies(pair_counts(encode(df)))
    for j, c in enumerate(df.columns):
        assert h[j] == pytest.approx(entropy(df[c]), abs=1e-13)


def test_mi_identities():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, 500)
    df = pd.DataFrame({"a": a, "copy": a.copy(), "noise": rng.integers(0, 3, 500), "k": 1})
    mi = mutual_information_matrix(pair_counts(encode(df)))
    h = entropies(pair_counts(encode(df)))
    assert mi[0, 1] == pytest.approx(h[0], abs=1e-13)  # I(X; X) = H(X)
    assert np.all(mi[3] == 0) and np.all(mi[:, 3] == 0)  # a constant shares nothing
    assert h[3] == 0
    assert np.array_equal(mi, mi.T)
    assert np.all(mi >= 0)


@pytest.mark.parametrize("alpha", [0.5, 1.0, 3.0])
def test_mi_alpha_is_mi_of_smoothed_joint(alpha):
    rng = np.random.default_rng(6)
    df = random_dependent_frame(120, [2, 3, 4, 3], rng)
    # make sure some cells are empty so the smoothing matters
    df.loc[df["v2"] == 3, "v0"] = 0
    k = [2, 3, 4, 3]
    G = tl.mi_graph(df, mi_alpha=alpha)
    for (i, u), (j, v) in itertools.combinations(enumerate(df.columns), 2):
        expected = smoothed_mutual_information(df[u], df[v], k[i], k[j], alpha)
        assert G[u][v]["weight"] == pytest.approx(expected, abs=1e-12)
        assert expected < mutual_info_score(df[u], df[v])  # smoothing shrinks MI


def test_mi_alpha_with_missing_values_uses_pairwise_rows():
    rng = np.random.default_rng(7)
    df = random_dependent_frame(200, [3, 3, 2], rng).astype(float)
    df.loc[rng.random(200) < 0.2, "v0"] = np.nan
    df.loc[rng.random(200) < 0.2, "v1"] = np.nan
    G = tl.mi_graph(df, missing="pairwise", mi_alpha=1.0)
    G0 = tl.mi_graph(df, missing="pairwise")
    k = {"v0": 3, "v1": 3, "v2": 2}
    for u, v in G.edges:
        expected = smoothed_mutual_information(df[u], df[v], k[u], k[v], 1.0)
        assert G[u][v]["weight"] == pytest.approx(expected, abs=1e-12)
        both = df[[u, v]].dropna()
        assert G0[u][v]["weight"] == pytest.approx(mutual_info_score(both[u], both[v]), abs=1e-12)


def test_pairwise_mi_equals_sklearn_on_complete_pairs():
    rng = np.random.default_rng(8)
    df = random_dependent_frame(600, [2, 3, 4, 3, 2], rng).astype(object)
    for c in df.columns:
        df.loc[rng.random(600) < 0.15, c] = None
    G = tl.mi_graph(df, missing="pairwise")
    for u, v, w in G.edges(data="weight"):
        both = df[[u, v]].dropna()
        assert abs(w - mutual_info_score(both[u].astype(int), both[v].astype(int))) <= 1e-12


def test_pair_with_no_common_rows_has_zero_mi():
    df = pd.DataFrame({"a": [0, 1, None, None], "b": [None, None, 1, 0], "c": [0, 1, 1, 0]})
    G = tl.mi_graph(df, missing="pairwise")
    assert G["a"]["b"]["weight"] == 0.0
    assert G["a"]["c"]["weight"] == pytest.approx(np.log(2), abs=1e-15)
    m = tl.chow_liu(df, missing="pairwise", root="a")
    for v in m.variables:
        np.testing.assert_allclose(m.cpt(v).sum(axis=-1), 1.0)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 40).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, 3), min_size=n, max_size=n),
            st.lists(st.integers(0, 2), min_size=n, max_size=n),
            st.lists(st.sampled_from(["p", "q"]), min_size=n, max_size=n),
        )
    )
)
def test_mi_equals_sklearn_property(cols):
    df = pd.DataFrame({"a": cols[0], "b": cols[1], "c": cols[2]})
    G = tl.mi_graph(df)
    for u, v, w in G.edges(data="weight"):
        assert abs(w - mutual_info_score(df[u], df[v])) <= 1e-12
    m = tl.chow_liu(df, alpha=0)
    n = len(df)
    expected = n * (
        sum(w for _, _, w in m.graph.edges(data="weight")) - sum(entropy(df[c]) for c in df.columns)
    )
    assert m.log_likelihood(df) == pytest.approx(expected, rel=1e-10, abs=1e-9)


def test_tiny_row_weights_do_not_make_mutual_information_infinite():
    # a's state 2 and c's state 2 occur only in one row of weight 1e-170..1e-300: the
    # product of their two marginals underflows, and log(0) once made MI(a, c) infinite
    # (and the edge a-c the tree's first, whatever the other pairs' dependence)
    df = pd.DataFrame(
        {"a": [0, 0, 1, 1, 0, 1, 2], "b": [0, 0, 1, 1, 0, 1, 0], "c": [0, 1, 0, 1, 1, 0, 2]}
    )
    for exponent in (170, 200, 250, 300):
        w = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 10.0**-exponent])
        mi = mutual_information_matrix(pair_counts(encode(df, sample_weight=w)))
        assert np.isfinite(mi).all()
        # the plug-in MI written term by term in logs (no product of marginals formed)
        codes = df.to_numpy()
        n = w.sum()
        for i, j in ((0, 1), (0, 2), (1, 2)):
            expected = 0.0
            for s in range(3):
                for t in range(3):
                    nst = w[(codes[:, i] == s) & (codes[:, j] == t)].sum()
                    if nst > 0:
                        ns, nt = w[codes[:, i] == s].sum(), w[codes[:, j] == t].sum()
                        expected += (
                            nst / n * (math.log(nst) + math.log(n) - math.log(ns) - math.log(nt))
                        )
            # a few ulps of the largest term: sums of terms of size ~log(3) / 3
            assert abs(mi[i, j] - max(expected, 0.0)) < 1e-15, (exponent, i, j)
        # the tree is the one learned without the tiny row (its MI moves by ~1e-168)
        states = {c: [0, 1, 2] for c in df.columns}
        with_row = tl.chow_liu(df, sample_weight=w, states=states)
        without = tl.chow_liu(df.iloc[:-1], states=states)
        assert sorted(map(sorted, with_row.graph.to_undirected().edges())) == sorted(
            map(sorted, without.graph.to_undirected().edges())
        )


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_two_state_block_sums_are_reduceats_doubles(seed):
    """The 0/1 shortcut of the block sums (two strided takes) against np.add.reduceat on
    fractional weighted counts, one-state variables mixed in: the same doubles; with a
    three-state variable the reduceat itself is used."""
    from treelearn.stats._information import _block_sums

    rng = np.random.default_rng(seed)
    for cards in ([2, 1, 2, 2, 1], [2] * 9, [1, 1], [2, 3, 2]):
        cards = np.array(cards)
        starts = np.concatenate([[0], np.cumsum(cards)[:-1]])
        x = rng.random((cards.sum(), cards.sum())) * 10.0 ** rng.integers(-5, 5)
        for axis in (0, 1):
            assert np.array_equal(
                _block_sums(x, starts, cards, axis), np.add.reduceat(x, starts, axis=axis)
            )
    # the whole matrix on weighted 0/1 counts with holes (the shortcut's path), against
    # each pair's MI computed term by term from its own block
    df = random_dependent_frame(300, [2, 2, 1, 2, 2, 2], rng).astype(float)
    df.iloc[rng.random(df.shape) < 0.1] = np.nan
    pc = pair_counts(encode(df, missing="pairwise"))
    scale = np.triu(rng.choice([0.5, 1.25, 3.0], size=pc.joint.shape))
    scale = scale + np.triu(scale, 1).T  # symmetric: block (j, i) stays block (i, j) transposed
    weighted = type(pc)(**{**vars(pc), "joint": pc.joint * scale})
    mi = mutual_information_matrix(weighted, alpha=0.3)
    d = len(pc.cardinalities)
    for i, j in itertools.permutations(range(d), 2):
        block = weighted.block(i, j).astype(float) + 0.3
        p = block / block.sum()
        pr, pc_ = p.sum(axis=1, keepdims=True), p.sum(axis=0, keepdims=True)
        expected = float(np.sum(np.where(p > 0, p * np.log(p / (pr * pc_)), 0.0)))
        assert abs(mi[i, j] - expected) <= 1e-12, (i, j)


# -------------------------------------------------------------------- the MI matrix block by block
@pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")
def test_mi_matrix_unchanged_by_blockwise_computation():
    """The block-row MI equals the textbook per-pair formula."""
    rng = np.random.default_rng(2)
    codes, _ = random_codes(rng, 300, 6, missing=0.1)
    df = pd.DataFrame({f"c{j}": pd.Series(codes[:, j]).where(codes[:, j] >= 0) for j in range(6)})
    table = encode(df, missing="pairwise")
    pc = pair_counts(table)
    for alpha in (None, 0.5):
        mi = mutual_information_matrix(pc, alpha)
        for i in range(6):
            for j in range(6):
                if i == j:
                    continue
                N = pc.block(i, j).astype(float) + (alpha or 0)
                P = N / N.sum()
                outer = np.outer(P.sum(1), P.sum(0))
                ok = P > 0
                assert mi[i, j] == pytest.approx(
                    np.sum(P[ok] * np.log(P[ok] / outer[ok])), abs=1e-12
                )
