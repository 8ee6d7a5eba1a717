"""The sparse Chow-Liu fit's fixed costs cut (issue 41: 1,000 x 5,001 a few multiples of
``X.T @ X``) without changing a number: the one-product counting against the blocked one
(every count, pair and state the same), ``from_stacked(built=True)`` against the checked
construction and against the model built node by node (``build_model`` on the networkx
tree), and ``orient_arrays`` (one matrix, no sparse sum) against networkx's breadth-first
orientation."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import treelearn as tl
from treelearn.learners._chow_liu import build_model
from treelearn.models._tree import StackedTree
from treelearn.stats._settings import LearningSettings
from treelearn.structure import _sparse_chow_liu as scl
from treelearn.structure._trees import orient, orient_arrays


def corpus(seed, n, d, density, *, ones_column=False, weights=False):
    """A 0/1 CSR (int8) with empty columns (rare terms), optionally an all-ones column
    (a one-state variable whose pairs are dropped) and row weights (float counts)."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < density).astype(np.int8)
    X[:, 1] = X[:, 2]  # a tie in MI
    if ones_column:
        X[:, 4] = 1
    w = rng.uniform(0.5, 2.0, n) if weights else None
    return sp.csr_matrix(X), w


def assert_same_counts(a, b):
    for field in ("columns", "states", "dtypes", "n_rows"):
        assert getattr(a, field) == getattr(b, field), field
    assert type(a.n_rows) is type(b.n_rows)
    for field in ("ones", "diagonal", "first_partners", "pair_i", "pair_j", "pair_n11"):
        x, y = getattr(a, field), getattr(b, field)
        assert x.dtype == y.dtype and np.array_equal(x, y), field
    assert np.array_equal(a.cardinalities, b.cardinalities)


@pytest.mark.parametrize(
    "seed, ones_column, weights",
    [(0, False, False), (1, True, False), (2, False, True), (3, True, True)],
)
def test_one_product_counts_equal_the_blocked_counts(seed, ones_column, weights):
    X, w = corpus(seed, 80, 60, 0.08, ones_column=ones_column, weights=weights)
    whole = scl.sparse_binary_statistics(X, sample_weight=w)  # few pairs: one product
    assert len(whole.runs[0]) == X.shape[1]  # one block: each column's run once
    for block in (7, 25, 4096):
        blocked = scl.sparse_binary_statistics(X, sample_weight=w, block_columns=block)
        assert_same_counts(whole, blocked)
    # and the dense product's counts, independently: Z.T W Z's upper triangle
    Z = X.toarray().astype(float)
    W = np.ones(len(Z)) if w is None else w
    full = Z.T @ (Z * W[:, None])
    two = whole.cardinalities == 2
    i, j = np.triu_indices(X.shape[1], k=1)
    keep = two[i] & two[j] & (full[i, j] != 0)
    assert np.array_equal(whole.pair_i, i[keep]) and np.array_equal(whole.pair_j, j[keep])
    assert np.allclose(whole.pair_n11, full[i, j][keep], rtol=0, atol=1e-9)
    assert np.allclose(whole.diagonal, np.diag(full), rtol=0, atol=1e-9)


def test_many_pairs_keep_the_blocks(monkeypatch):
    X, _ = corpus(4, 50, 30, 0.3)
    monkeypatch.setattr(scl, "_ONE_BLOCK_PAIRS", 10)  # "many" pairs: blocks of 4,096 ...
    monkeypatch.setattr(scl, "_BLOCK_COLUMNS", 8)  # ... here 8 columns
    blocked = scl.sparse_binary_statistics(X)
    assert len(blocked.runs[0]) > X.shape[1]  # square and right parts per block
    monkeypatch.undo()
    assert_same_counts(blocked, scl.sparse_binary_statistics(X))


def test_wide_fit_equals_the_node_by_node_model(tmp_path):
    """Past the sparse threshold (1,000 x 5,001 at 0.2 %, the benchmark's shape): the
    stacked model of the one-product counts, built trusted, is the model ``build_model``
    makes node by node from the networkx tree of the blocked counts: every saved byte."""
    d = scl.SPARSE_CHOW_LIU_MIN_COLUMNS + 1
    X, _ = corpus(5, 1000, d, 0.002)
    names = [f"t{j}" for j in range(d)]
    model = tl.chow_liu(X, names=names)
    stats = scl.sparse_binary_statistics(X, names, block_columns=4096)
    assert len(stats.runs[0]) > d  # the blocked counting, as before
    settings = LearningSettings(method="chow-liu")
    tree = scl.sparse_spanning_tree(stats, None)
    reference = build_model(tree, stats, settings, description=model.settings, owned=True)
    a, b = tmp_path / "fit.json", tmp_path / "reference.json"
    model.save(a)
    reference.save(b)
    assert a.read_bytes() == b.read_bytes()
    assert model == reference


def stacked_of(model):
    """A fresh StackedTree of a stacked model's arrays (the CPT stacks copied)."""
    s = model._stacked
    return StackedTree(
        list(s.variables),
        s.states,
        s.parent.copy(),
        s.edge_child.copy(),
        None if s.weight is None else s.weight.copy(),
        s.group.copy(),
        [t.copy() for t in s.tables],
        dict(s.graph_attributes),
    )


def test_built_equals_checked(tmp_path):
    X, w = corpus(6, 120, 40, 0.1, ones_column=True, weights=True)
    model = tl.ChowLiuTree().fit(X, sample_weight=w).model_
    assert model.__dict__.get("_stacked") is not None  # learned stacked
    checked = tl.TreeModel.from_stacked(
        stacked_of(model), dtypes=model.dtypes, n_rows=model.n_rows, settings=model.settings
    )
    built = tl.TreeModel.from_stacked(
        stacked_of(model),
        dtypes=dict(model.dtypes),
        n_rows=model.n_rows,
        settings=model.settings,
        built=True,
    )
    assert built == checked
    built.save(tmp_path / "built.json")
    checked.save(tmp_path / "checked.json")
    assert (tmp_path / "built.json").read_bytes() == (tmp_path / "checked.json").read_bytes()
    # the states are read, never handed out: a caller's change leaves the model's alone
    states = built.states
    states[built.variables[0]].append("x")
    assert built.states == checked.states


def test_built_still_checks_cpt_values():
    s = StackedTree(
        ["a", "b"],
        [(0, 1), (0, 1)],
        np.array([-1, 0]),
        np.array([1]),
        None,
        np.array([0, 1]),
        [np.array([[0.5, 0.5]]), np.array([[[0.9, 0.1], [0.2, 0.7]]])],
        {"roots": ["a"]},
    )
    with pytest.raises(tl.StructureError, match=r"variable .b.: CPT row \[1\] sums to 0.9"):
        tl.TreeModel.from_stacked(s, built=True)


def test_unchecked_input_still_refused():
    s = StackedTree(
        ["a", "a"],
        [(0, 1), (0, 1)],
        np.array([-1, 0]),
        np.array([1]),
        None,
        np.array([0, 1]),
        [np.array([[0.5, 0.5]]), np.array([[[0.9, 0.1], [0.2, 0.8]]])],
        {"roots": ["a"]},
    )
    with pytest.raises(tl.StructureError, match="every node of the graph once"):
        tl.TreeModel.from_stacked(s)


@pytest.mark.parametrize("seed, root", [(0, None), (1, 3), (2, 17)])
def test_orient_arrays_equals_networkx(seed, root):
    """A random forest of three trees and a lone node: the parents, the edge order and the
    roots networkx's breadth-first orientation gives (``orient`` below its large-tree
    threshold walks the graph with networkx)."""
    rng = np.random.default_rng(seed)
    d = 40
    perm = rng.permutation(d)
    edges = []
    for lo, hi in ((0, 15), (15, 30), (30, 39)):  # node perm[39] alone
        for k in range(lo + 1, hi):
            edges.append((int(perm[k]), int(perm[rng.integers(lo, k)])))
    a = np.array([min(e) for e in edges])
    b = np.array([max(e) for e in edges])
    parent, child, roots = orient_arrays(d, a, b, root)
    G = nx.Graph()
    G.add_nodes_from(range(d))
    G.add_edges_from(edges)
    D = orient(G, root)
    assert list(zip(parent.tolist(), child.tolist())) == list(D.edges())
    assert roots == D.graph["roots"]
