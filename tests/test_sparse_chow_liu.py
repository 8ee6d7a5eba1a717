"""Sparse high-dimensional Chow-Liu (acCL) against the dense path and independent MI."""

import itertools

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import mutual_info_score

import treelearn as tl
from treelearn.counts import sparse_binary_counts
from treelearn.information import mutual_information_matrix
from treelearn.learn import chow_liu_from_counts
from treelearn.settings import LearningSettings
from treelearn.sources import count
from treelearn.sparse_chow_liu import (
    pair_information,
    sparse_binary_statistics,
    sparse_spanning_skeleton,
    zero_pair_information,
)
from treelearn.structure import spanning_skeleton


def dense_skeleton(X, w=None):
    pc, states = sparse_binary_counts(X, weights=None if w is None else np.asarray(w, float))
    mi = mutual_information_matrix(pc)
    return spanning_skeleton(list(range(X.shape[1])), mi, states, n=pc.n_rows)


def edges(G):
    return list(G.edges(data="weight"))


def tied_matrix(seed):
    """Small 0/1 matrices full of ties: copied columns, an all-ones and an empty column,
    a few frequent columns among rare ones (so the hub rule is exercised)."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(5, 60)), int(rng.integers(2, 25))
    p = np.where(rng.random(d) < 0.25, 0.6, 0.08)
    X = (rng.random((n, d)) < p).astype(np.int64)
    X = np.hstack([X, X[:, : min(3, d)], np.ones((n, 1), np.int64), np.zeros((n, 1), np.int64)])
    return sp.csr_matrix(X), rng


@pytest.mark.parametrize("seed", range(25))
def test_equals_dense_path_with_ties_and_weights(seed):
    X, rng = tied_matrix(seed)
    assert edges(sparse_spanning_skeleton(sparse_binary_statistics(X))) == edges(dense_skeleton(X))
    for w in (rng.integers(0, 3, X.shape[0]), rng.random(X.shape[0]) * 2):
        if w.sum() > 0:
            got = sparse_spanning_skeleton(sparse_binary_statistics(X, sample_weight=w))
            assert edges(got) == edges(dense_skeleton(X, w))


def test_small_case_is_the_brute_force_best_tree():
    # every spanning tree of 5 variables, scored by sklearn's MI: the best total wins
    X, _ = tied_matrix(3)
    X = X[:, :5]
    A = X.toarray()
    mi = {(i, j): mutual_info_score(A[:, i], A[:, j]) for i, j in itertools.combinations(range(5), 2)}
    best = max(
        (t for t in itertools.combinations(mi, 4) if nx.is_tree(nx.Graph(list(t)))),
        key=lambda t: round(sum(mi[e] for e in t), 9),
    )
    got = sparse_spanning_skeleton(sparse_binary_statistics(X))
    assert sum(mi[e] for e in got.edges()) == pytest.approx(sum(mi[e] for e in best), abs=1e-12)


def test_d2000_equals_dense_model(monkeypatch):
    X = sp.random(3000, 2000, density=0.01, random_state=1, format="csr", dtype=np.float64)
    X.data[:] = 1
    X = X.astype(np.int8)
    names = [f"t{j}" for j in range(2000)]
    dense = chow_liu_from_counts(count(X, columns=names),  # the dense K x K path
                                 LearningSettings(method="chow-liu", root="t5"))
    import treelearn.sources

    monkeypatch.setattr(treelearn.sources, "SPARSE_CHOW_LIU_MIN_COLUMNS", 1000)
    model = tl.chow_liu(X, columns=names, root="t5")  # routed through sparse_chow_liu
    assert model.counts is None
    assert model == dense
    assert list(model.graph.edges(data="weight")) == list(dense.graph.edges(data="weight"))


def test_pair_information_is_sklearns_mi():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(2, 40))
        a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
        got = pair_information(np.array([np.sum(a & b)]), np.array([a.sum()]), np.array([b.sum()]),
                               n, bool(0 < a.sum() < n), bool(0 < b.sum() < n))[0]
        assert got == pytest.approx(mutual_info_score(a, b), abs=1e-12)


def test_zero_pair_information_increases_with_each_count():
    # closed form of I for N_11 = 0 (entropies), and strict growth in N_j for fixed N_i
    n = 200
    ni, nj = np.meshgrid(np.arange(1, n), np.arange(1, n), indexing="ij")
    ok = ni + nj <= n
    a, b = ni[ok].astype(float), nj[ok].astype(float)

    def h(*p):
        p = np.array(p)
        return -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1)), 0), axis=0)

    closed = h(a / n, 1 - a / n) + h(b / n, 1 - b / n) - h(a / n, b / n, (n - a - b) / n)
    got = zero_pair_information(a, b, n)
    np.testing.assert_allclose(got, closed, atol=1e-12)
    grid = np.full(ni.shape, np.nan)
    grid[ok] = got
    both = ok[:, 1:] & ok[:, :-1]
    assert (grid[:, 1:][both] > grid[:, :-1][both]).all()


def test_too_many_pairs_is_a_clear_error():
    X = sp.csr_matrix(np.ones((3, 50), dtype=np.int64))
    with pytest.raises(tl.TreelearnError, match=r"co-occurring pairs at most .*GiB.*max_pairs"):
        sparse_binary_statistics(X, max_pairs=100)


def test_bad_values_and_partial_fit(monkeypatch):
    X = sp.csr_matrix(np.array([[2, 0], [1, 1]]))
    with pytest.raises(tl.TreelearnError, match="0/1"):
        sparse_binary_statistics(X)
    import treelearn.sources

    monkeypatch.setattr(treelearn.sources, "SPARSE_CHOW_LIU_MIN_COLUMNS", 1000)
    Y = sp.random(50, 1200, density=0.01, random_state=0, format="csr")
    Y.data[:] = 1
    model = tl.chow_liu(Y)
    with pytest.raises(tl.TreelearnError, match="partial_fit"):
        model.partial_fit(Y)
