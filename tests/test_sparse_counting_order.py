"""Sparse Chow-Liu counting without sorting the pairs, and the tree's shortcuts (issue 41).

The counting keeps the co-occurring pairs in the order the blocked product makes them
(``counted_i/j/n11``, with ``counted_i`` also as runs); ``pair_i/j/n11`` sort them on
first use. Kruskal sizes its first batch from a sample of the ranks and, after a round,
tests the edges against the few nodes outside the largest component. Every check here is
against an independent count (the dense product ``A.T @ A``) or the dense path's tree.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from test_sparse_chow_liu import dense_skeleton, edges, one_hot_matrix, skewed_matrix, tied_matrix

import treelearn.structure._sparse_chow_liu as scl
from treelearn.stats._settings import LearningSettings
from treelearn.structure._sparse_chow_liu import (
    sparse_binary_statistics,
    sparse_spanning_skeleton,
)


def corpora():
    """Tied (copied, all-ones and empty columns), skewed, one-hot and uniform corpora."""
    rng = np.random.default_rng(7)
    uniform = sp.csr_matrix((rng.random((400, 90)) < 0.05).astype(np.int8))
    # column counts above 255: the product counts in uint16, not uint8
    dense = sp.csr_matrix((rng.random((600, 30)) < 0.5).astype(np.int8))
    return (
        [tied_matrix(seed)[0] for seed in range(6)]
        + [skewed_matrix(s, n=150, d=80) for s in range(2)]
        + [one_hot_matrix(0), uniform, dense]
    )


def dense_pairs(X, w=None):
    """The upper triangle of ``A.T W A`` over two-state columns, computed densely: a dict
    ``(i, j) -> N_11`` of the nonzero ones, the diagonal and each column's partners."""
    A = X.toarray().astype(np.float64 if w is not None else np.int64)
    W = A if w is None else A * np.asarray(w, float)[:, None]
    co = A.T @ W
    col = A.sum(0)
    two = (col > 0) & (col < A.shape[0])
    i, j = np.nonzero(np.triu(co, 1))
    keep = two[i] & two[j]
    return {(a, b): co[a, b] for a, b in zip(i[keep].tolist(), j[keep].tolist())}, np.diag(co)


@pytest.mark.parametrize("blocks", [(4096, 2**20), (7, 13), (1, 5)])
def test_counted_pairs_are_the_dense_product(blocks):
    block_columns, chunk_rows = blocks
    rng = np.random.default_rng(3)
    for X in corpora():
        for w in (None, rng.integers(0, 3, X.shape[0])):
            s = sparse_binary_statistics(
                X, sample_weight=w, block_columns=block_columns, chunk_rows=chunk_rows
            )
            want, diagonal = dense_pairs(X, w)
            got_pairs = list(zip(s.counted_i.tolist(), s.counted_j.tolist()))
            # every pair once, i < j, the dense count; and sorted (i, j) order in pair_*
            assert len(set(got_pairs)) == len(got_pairs)
            assert dict(zip(got_pairs, s.counted_n11.tolist())) == want
            assert list(zip(s.pair_i.tolist(), s.pair_j.tolist())) == sorted(want)
            assert s.pair_n11.tolist() == [want[p] for p in sorted(want)]
            assert s.diagonal.tolist() == diagonal.tolist()
            # the runs are counted_i; column 0's partners are its pairs
            rows, ends = s.runs
            assert np.repeat(rows, np.diff(ends, prepend=0)).tolist() == s.counted_i.tolist()
            assert s.first_partners.tolist() == sorted(b for a, b in want if a == 0)
            # unweighted: the smallest unsigned type holding the largest column count
            if w is None:
                top = int(X.toarray().sum(0).max())
                assert s.counted_n11.dtype == (np.uint8 if top < 256 else np.uint16)
            # the cardinalities set while counting are the states' lengths
            assert s.cardinalities.tolist() == [len(t) for t in s.states]


def test_at_rows_is_the_gather_for_every_stretch():
    X = skewed_matrix(1, n=120, d=70)
    s = sparse_binary_statistics(X, block_columns=9)
    values = np.arange(100, 100 + X.shape[1]) * 3
    total = len(s.counted_i)
    rng = np.random.default_rng(0)
    cuts = [(0, total), (0, 1), (total - 1, total), (5, 5), (total, total + 10)]
    cuts += [tuple(sorted(rng.integers(0, total + 1, 2).tolist())) for _ in range(40)]
    for a, b in cuts:
        part = slice(a, b)
        assert s.at_rows(values, part).tolist() == values[s.counted_i[part]].tolist(), (a, b)


@pytest.mark.parametrize(
    "knobs",
    [
        {"_OUTSIDE_FEW": 1},  # the outside test after every round
        # ... over the edges left alive by earlier rounds (many small rounds)
        {"_OUTSIDE_FEW": 1, "_FIRST_BATCH": 1, "_BATCH_PER_VARIABLE": 0, "_CHUNK": 7},
        {"_OUTSIDE_FEW": 10**9},  # never: both ends' components for every edge
        {"_HIST_SAMPLE_BITS": 0, "_FIRST_BATCH": 3, "_BATCH_PER_VARIABLE": 0},  # tiny sample
        {"_HIST_SAMPLE_BITS": 40},  # every rank in the histogram
    ],
)
def test_kruskal_shortcuts_give_the_dense_tree(monkeypatch, knobs):
    for name, value in knobs.items():
        monkeypatch.setattr(scl, name, value)
    if "_CHUNK" in knobs:  # the default argument was bound at definition
        monkeypatch.setattr(scl._chunks, "__defaults__", (knobs["_CHUNK"],))
    rng = np.random.default_rng(11)
    for X in corpora():
        want = edges(dense_skeleton(X))
        assert edges(sparse_spanning_skeleton(sparse_binary_statistics(X))) == want
        w = rng.integers(0, 3, X.shape[0])  # integer weights: the table path with weights
        if w.sum() > 0:
            got = sparse_spanning_skeleton(sparse_binary_statistics(X, sample_weight=w))
            assert edges(got) == edges(dense_skeleton(X, w))


def test_tree_counts_are_the_looked_up_counts():
    """The N_11 the tree carries to the family counts = a lookup in the sorted pairs = the
    dense product, and the family counts from either are the same arrays."""
    for X in corpora():
        s = sparse_binary_statistics(X)
        settings = LearningSettings()
        parent, child, weight, _roots, n11 = s.tree_arrays_and_counts(settings)
        assert [a.tolist() for a in s.tree_arrays(settings)[:3]] == [
            parent.tolist(),
            child.tolist(),
            weight.tolist(),
        ]
        co = X.toarray().astype(np.int64)
        co = co.T @ co
        two = s.cardinalities == 2
        for v in child.tolist():
            p = int(parent[v])
            assert n11[v] == (co[p, v] if two[p] and two[v] else 0)
        group, stacks = scl.family_count_stacks(s, parent, n11)
        group2, stacks2 = scl.family_count_stacks(s, parent)
        assert group.tolist() == group2.tolist()
        assert all(np.array_equal(a, b) for a, b in zip(stacks, stacks2))
