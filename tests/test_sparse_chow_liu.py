"""Sparse high-dimensional Chow-Liu (acCL) against the dense path and independent MI;
``tl.chow_liu`` on a ``scipy.sparse`` 0/1 matrix equals the dense DataFrame path."""

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from oracles import spanning_trees
from sklearn.metrics import mutual_info_score

import treelearn as tl
from treelearn.learners._chow_liu import chow_liu_from_counts
from treelearn.sources._count import count
from treelearn.stats._counts import sparse_binary_counts
from treelearn.stats._information import mutual_information_matrix
from treelearn.stats._settings import LearningSettings
from treelearn.structure._sparse_chow_liu import (
    pair_information,
    sparse_binary_statistics,
    sparse_spanning_skeleton,
    sparse_spanning_tree,
    zero_pair_information,
)
from treelearn.structure._trees import (
    orient,
    spanning_skeleton,
)


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
    mi = {
        (i, j): mutual_info_score(A[:, i], A[:, j]) for i, j in itertools.combinations(range(5), 2)
    }
    best = max(spanning_trees(range(5)), key=lambda t: round(sum(mi[e] for e in t), 9))
    got = sparse_spanning_skeleton(sparse_binary_statistics(X))
    assert sum(mi[e] for e in got.edges()) == pytest.approx(sum(mi[e] for e in best), abs=1e-12)


def test_d2000_equals_dense_model(monkeypatch):
    X = sp.random(3000, 2000, density=0.01, random_state=1, format="csr", dtype=np.float64)
    X.data[:] = 1
    X = X.astype(np.int8)
    names = [f"t{j}" for j in range(2000)]
    dense = chow_liu_from_counts(
        count(X, names=names),  # the dense K x K path
        LearningSettings(method="chow-liu", root="t5"),
    )
    import treelearn.sources._count

    monkeypatch.setattr(treelearn.sources._count, "SPARSE_CHOW_LIU_MIN_COLUMNS", 1000)
    model = tl.chow_liu(X, names=names, root="t5")  # routed through sparse_chow_liu
    assert model.counts is None
    assert model == dense
    assert list(model.graph.edges(data="weight")) == list(dense.graph.edges(data="weight"))


def test_pair_information_is_sklearns_mi():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(2, 40))
        a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
        got = pair_information(
            np.array([np.sum(a & b)]),
            np.array([a.sum()]),
            np.array([b.sum()]),
            n,
            bool(0 < a.sum() < n),
            bool(0 < b.sum() < n),
        )[0]
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
    import treelearn.sources._count

    monkeypatch.setattr(treelearn.sources._count, "SPARSE_CHOW_LIU_MIN_COLUMNS", 1000)
    Y = sp.random(50, 1200, density=0.01, random_state=0, format="csr")
    Y.data[:] = 1
    model = tl.chow_liu(Y)
    with pytest.raises(tl.TreelearnError, match="partial_fit"):
        model.partial_fit(Y)


def skewed_matrix(seed, n=400, d=300):
    """Zipf-like column frequencies (a few frequent 'hub' terms, many rare ones), with
    copied columns: never-co-occurring pairs and ties in every part of the tree."""
    rng = np.random.default_rng(seed)
    p = np.minimum(0.5, 0.6 / np.arange(1, d + 1) ** 0.8)
    X = (rng.random((n, d)) < p[rng.permutation(d)]).astype(np.int8)
    X = np.hstack([X, X[:, :5]])
    return sp.csr_matrix(X)


def one_hot_matrix(seed, n=300):
    """One-hot codes of a few categorical variables (each row has one 1 per group): the
    strongest pairs never co-occur, so the tree is made mostly of N_11 = 0 edges."""
    rng = np.random.default_rng(seed)
    blocks, prev = [], rng.integers(0, 3, n)
    for k in rng.integers(2, 8, 12):
        prev = np.where(rng.random(n) < 0.6, prev % k, rng.integers(0, k, n))
        blocks.append(np.eye(k, dtype=np.int8)[prev])
    return sp.csr_matrix(np.hstack(blocks))


def test_one_hot_trees_of_never_co_occurring_pairs():
    for seed in range(6):
        X = one_hot_matrix(seed)
        want = dense_skeleton(X)
        co = (X.T @ X).toarray()
        assert sum(co[i, j] == 0 for i, j in want.edges()) >= X.shape[1] // 5  # the point
        assert edges(sparse_spanning_skeleton(sparse_binary_statistics(X))) == edges(want)


@pytest.mark.parametrize(
    "knobs",
    [
        {"_MEX_BITS": 1},  # every gap read from the variables' own neighbour lists
        {"_MEX_BITS": 3},  # hubs beyond the bitmask: their lists from a second pass
        {"_TABLE_CELLS": 0},  # every MI computed pair by pair, no table
        {"_PAIRS_PER_CELL": 0},  # the whole table, every cell computed
        {"_PAIRS_PER_CELL": 10**9},  # only the table cells some pair meets
        {"_FIRST_BATCH": 1, "_BATCH_PER_VARIABLE": 0},  # Kruskal in many small rounds
        {"_CHUNK": 7},  # passes over the pairs in many chunks
        {"_LOOKUP_CHUNK": 3},  # the binary searches in many chunks
        {"_SMALL_RANKS": 0},  # int32 ranks (uint16 where the distinct MI values fit)
        {"_ZERO_PAIR_BOUNDS": False},  # the hub search for every column, second Kruskal
    ],
)
def test_every_internal_path_gives_the_dense_tree(monkeypatch, knobs):
    import treelearn.structure._sparse_chow_liu as scl

    for name, value in knobs.items():
        monkeypatch.setattr(scl, name, value)
    if "_CHUNK" in knobs:  # the default argument was bound at definition
        monkeypatch.setattr(scl._chunks, "__defaults__", (knobs["_CHUNK"],))
    cases = (
        [tied_matrix(seed)[0] for seed in range(8)]
        + [skewed_matrix(s) for s in range(3)]
        + [one_hot_matrix(s) for s in range(3)]
    )
    for X in cases:
        want = edges(dense_skeleton(X))
        assert edges(sparse_spanning_skeleton(sparse_binary_statistics(X))) == want
        w = np.arange(X.shape[0]) % 3  # integer weights: the table path with weights
        assert edges(
            sparse_spanning_skeleton(sparse_binary_statistics(X, sample_weight=w))
        ) == edges(dense_skeleton(X, w))


def uniform_matrix(seed, n=1500, d=150, density=0.01):
    """Uniformly scattered ones: every column co-occurs with many others, so the tree of the
    co-occurring pairs already beats every never-co-occurring pair."""
    rng = np.random.default_rng(seed)
    return sp.csr_matrix((rng.random((n, d)) < density).astype(np.int8))


def entropy(*p):
    """Entropy (nats) of the distributions whose probabilities are ``p`` (elementwise)."""
    return -sum(np.where(q > 0, q * np.log(np.where(q > 0, q, 1)), 0) for q in p)


def test_never_cooccurring_pairs_are_sought_only_where_they_may_join(monkeypatch):
    import treelearn.structure._sparse_chow_liu as scl

    found = {}  # what the last call of each step returned

    def spy(name):
        real = getattr(scl, name)
        monkeypatch.setattr(
            scl, name, lambda *a, **k: found.__setitem__(name, real(*a, **k)) or found[name]
        )

    for name in (
        "_columns_zero_pairs_may_join",
        "_ranked_zero_candidates",
        "_never_cooccurring_candidates",
    ):
        spy(name)
    cases = (
        [tied_matrix(seed)[0] for seed in range(10)]
        + [skewed_matrix(s) for s in range(3)]
        + [one_hot_matrix(s) for s in range(3)]
        + [uniform_matrix(s) for s in range(4)]
    )
    skipped = ranked = 0
    for X in cases:
        found.clear()
        stats = sparse_binary_statistics(X)
        want = dense_skeleton(X)
        assert edges(sparse_spanning_skeleton(stats)) == edges(want)
        needed = found["_columns_zero_pairs_may_join"][0]
        skipped += not needed.any()
        # brute force over the dense counts: the bounds are above every never-co-occurring
        # pair's rounded MI; every such pair in the tree (column 0's aside) has an end among
        # the columns its candidates were sought for, and is among the candidates
        A = X.toarray().astype(np.int64)
        n, co, ones = A.shape[0], A.T @ A, A.sum(axis=0)
        two = (ones > 0) & (ones < n)
        i, j = np.nonzero(np.triu((co == 0) & two[:, None] & two[None, :], 1))
        a, b = ones[i] / n, ones[j] / n  # N_11 = 0: I = H(a) + H(b) - H(a, b, 1 - a - b)
        mi = np.round(entropy(a, 1 - a) + entropy(b, 1 - b) - entropy(a, b, 1 - a - b), 12)
        for bound in (
            scl._zero_pair_bounds(stats),
            scl._zero_pair_bounds(stats, scl._largest_non_partner(stats)),
        ):
            # one unit of the 12th decimal: the closed form and the cell arithmetic may
            # round apart
            assert (mi <= np.minimum(bound[i], bound[j]) + 1e-12).all()
        zero_edges = {
            (min(u, v), max(u, v))
            for u, v in want.edges()
            if co[u, v] == 0 and two[u] and two[v] and 0 not in (u, v)
        }
        assert all(needed[u] or needed[v] for u, v in zero_edges)
        if needed.any():
            step = (
                "_ranked_zero_candidates"
                if "_ranked_zero_candidates" in found
                else "_never_cooccurring_candidates"
            )
            ranked += step == "_ranked_zero_candidates"
            zi, zj = found[step]
            assert zero_edges <= set(zip(zi.tolist(), zj.tolist()))
    # every outcome occurs: the one-hot trees need never-co-occurring pairs, uniform data not
    assert 4 <= skipped < len(cases) and ranked >= 1


def test_the_directed_tree_is_the_oriented_skeleton(monkeypatch):
    import treelearn.structure._trees as trees

    # orient's array path too (it serves graphs of 5,000 nodes or more)
    monkeypatch.setattr(trees, "GC_PAUSE_NODES", 1)
    for X in [tied_matrix(seed)[0] for seed in range(4)] + [skewed_matrix(0), one_hot_matrix(0)]:
        stats = sparse_binary_statistics(X, [f"c{j}" for j in range(X.shape[1])])
        for root in (None, "c0", f"c{X.shape[1] - 1}", f"c{X.shape[1] // 2}"):
            got = sparse_spanning_tree(stats, root)
            want = orient(sparse_spanning_skeleton(stats), root)
            assert list(got.nodes(data=True)) == list(want.nodes(data=True))
            assert list(got.edges(data=True)) == list(want.edges(data=True))
            assert got.graph == want.graph


def test_blocked_and_chunked_counting_is_the_dense_count():
    X = skewed_matrix(5, n=120, d=60)
    whole = sparse_binary_statistics(X)
    parts = sparse_binary_statistics(X, block_columns=7, chunk_rows=13)
    A = X.toarray().astype(np.int64)
    co = A.T @ A  # independent: the dense product
    i, j = np.nonzero(np.triu(co, 1))
    two = (A.sum(0) > 0) & (A.sum(0) < A.shape[0])
    keep = two[i] & two[j]
    for s in (whole, parts):
        assert s.pair_i.tolist() == i[keep].tolist() and s.pair_j.tolist() == j[keep].tolist()
        assert s.pair_n11.tolist() == co[i[keep], j[keep]].tolist()
        assert s.diagonal.tolist() == np.diag(co).tolist()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("prior", ["lidstone", "bdeu", "m-estimate"])
def test_batched_cpts_are_the_per_family_cpts(seed, prior):
    """family_counts_many + smoothed_cpts (the sparse model's one pass) give, family by
    family, exactly the arrays family_counts + smoothed_cpt give (same shapes and doubles),
    one-state columns and weights included."""
    from treelearn.stats._parameters import smoothed_cpt, smoothed_cpts

    X, rng = tied_matrix(seed)
    w = rng.random(X.shape[0]) * 2 if seed % 2 else None
    stats = sparse_binary_statistics(X, sample_weight=w)
    d = X.shape[1]
    families = [[j] for j in range(d)] + [[p, q] for p in range(d) for q in range(d) if p != q]
    many = stats.family_counts_many(families)
    one = [stats.family_counts(f) for f in families]
    assert all(a.shape == b.shape and np.array_equal(a, b) for a, b in zip(many, one))
    batched = smoothed_cpts(many, 0.5, prior, 2.0, 1.5)
    single = [smoothed_cpt(c, 0.5, prior, 2.0, 1.5) for c in one]
    assert all(
        a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)
        for a, b in zip(batched, single)
    )


# ------------------------------------------------------------- scipy.sparse input through chow_liu
@pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")
@pytest.mark.parametrize("dtype", ["int64", "float64", "bool", "uint8"])
def test_chow_liu_on_scipy_sparse_equals_dense(dtype):
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(4)
    A = (rng.random((500, 15)) < 0.1).astype(dtype)
    A[:, 3] = A[:, 2]  # a tie
    A[:, 7] = 0  # a one-state column
    if dtype != "bool":
        A[:, 9] = 1  # the other one-state column
    names = [f"w{j}" for j in range(15)]
    dense = tl.chow_liu(pd.DataFrame(A, columns=names), alpha=1.0)
    for fmt in ("csr", "csc", "coo"):
        sparse = tl.chow_liu(sp.csr_matrix(A).asformat(fmt), names=names, alpha=1.0)
        assert list(sparse.graph.edges(data="weight")) == list(dense.graph.edges(data="weight"))
        for v in names:
            assert sparse.graph.nodes[v]["states"] == dense.graph.nodes[v]["states"]
            np.testing.assert_array_equal(sparse.graph.nodes[v]["cpt"], dense.graph.nodes[v]["cpt"])
    default_names = tl.chow_liu(sp.csr_matrix(A))
    assert list(default_names.graph.nodes) == list(range(15))


@pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")
def test_scipy_sparse_bad_input():
    sp = pytest.importorskip("scipy.sparse")
    with pytest.raises(ValueError, match="0/1"):
        tl.chow_liu(sp.csr_matrix(np.array([[0, 2], [1, 0]])))
    with pytest.raises(ValueError, match="names"):
        tl.chow_liu(sp.csr_matrix(np.eye(3)), names=["a", "b"])
    with pytest.raises(tl.DuplicateColumnError, match="'a'"):
        tl.chow_liu(sp.csr_matrix(np.eye(3)), names=["a", "b", "a"])
    with pytest.raises(TypeError, match=r"scipy\.sparse"):
        tl.chow_liu(pd.DataFrame({"a": [0, 1]}), names=["a"])


@pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")
def test_sparse_input_explicit_zeros_and_duplicates_are_harmless():
    sp = pytest.importorskip("scipy.sparse")
    rows, cols = np.array([0, 0, 1, 2, 2]), np.array([0, 1, 1, 0, 1])
    M = sp.coo_matrix((np.array([1, 0, 1, 1, 0]), (rows, cols)), shape=(4, 2)).tocsr()
    before = M.data.copy()
    model = tl.chow_liu(M, names=["a", "b"])
    np.testing.assert_array_equal(M.data, before)  # the caller's matrix is untouched
    dense = tl.chow_liu(pd.DataFrame(M.toarray(), columns=["a", "b"]))
    np.testing.assert_array_equal(model.graph.nodes["b"]["cpt"], dense.graph.nodes["b"]["cpt"])
