"""The sparse Chow-Liu fast path (issue 41): the spanning forest's key-sorted filter-Kruskal
against a plain union-find Kruskal written here, the sparse model against the dense path
(tree, CPTs, scores, saved file bytes) on empty documents, terms in every document and tied
counts, and the TreeModel construction's checks (parents, cycles) on small and large graphs."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import treelearn as tl
import treelearn.sources._count
from treelearn.learners._chow_liu import chow_liu_from_counts
from treelearn.sources._count import count
from treelearn.stats._settings import LearningSettings
from treelearn.structure import _sparse_chow_liu as scl


def union_find_kruskal(ei, ej, rank, d):
    """Kruskal by hand: edges sorted by (rank, i, j) with Python's sort, a union-find with
    path halving; the indices of the chosen edges in the order chosen."""
    parent = list(range(d))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    chosen = []
    for k in sorted(range(len(rank)), key=lambda k: (int(rank[k]), int(ei[k]), int(ej[k]))):
        a, b = find(int(ei[k])), find(int(ej[k]))
        if a != b:
            parent[a] = b
            chosen.append(k)
    return chosen


def random_edges(seed, d, m, levels):
    """``m`` distinct pairs ``i < j`` of ``d`` nodes in random order, ranks drawn from ``levels``
    values (many ties)."""
    rng = np.random.default_rng(seed)
    i, j = np.triu_indices(d, k=1)
    pick = rng.choice(len(i), size=min(m, len(i)), replace=False)
    return i[pick], j[pick], rng.integers(0, levels, len(pick)).astype(np.uint16)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("knobs", [(2**20, 64, 4), (1, 1, 0), (3, 2, 1)])
def test_spanning_forest_is_union_find_kruskal(monkeypatch, seed, knobs):
    # knobs (first batch, candidates per first batch, batch per variable): the default; one
    # edge per first round (many rounds, parallel edges between merged components); small
    first, per_first, per_variable = knobs
    monkeypatch.setattr(scl, "_FIRST_BATCH", first)
    monkeypatch.setattr(scl, "_CANDIDATES_PER_FIRST", per_first)
    monkeypatch.setattr(scl, "_BATCH_PER_VARIABLE", per_variable)
    d = 5 + seed * 7
    # sparse graphs leave a forest of several trees; dense ones a tree
    m = [d // 2, d, 3 * d, d * d][seed % 4]
    ei, ej, rank = random_edges(seed, d, m, levels=[1, 3, 50][seed % 3])
    got = scl._spanning_forest(ei, ej, rank, d)
    assert got.tolist() == union_find_kruskal(ei, ej, rank, d)


def test_kruskal_order_is_lexsort_both_ways():
    rng = np.random.default_rng(0)
    ei, ej = rng.integers(0, 30, 500), rng.integers(0, 30, 500)
    keep = np.unique(ei * 30 + ej, return_index=True)[1]  # distinct edges
    ei, ej = ei[keep], ej[keep]
    rank = rng.integers(0, 4, len(ei)).astype(np.uint16)
    expected = np.lexsort((ej, ei, rank)).tolist()
    assert scl._kruskal_order(ei, ej, rank, 30).tolist() == expected
    # a key that would not fit in 62 bits: the lexsort branch, the same permutation
    assert scl._kruskal_order(ei, ej, rank, 2**31).tolist() == expected


def tricky_matrix(seed):
    """0/1 documents x terms with empty documents, terms in every document, empty terms,
    copied terms (tied MI) and a few frequent terms among rare ones."""
    rng = np.random.default_rng(seed)
    n, d = 40 + 7 * seed, 30 + 5 * seed
    p = np.where(rng.random(d) < 0.2, 0.5, 0.06)
    X = (rng.random((n, d)) < p).astype(np.int8)
    X[rng.choice(n, 4, replace=False)] = 0  # empty documents
    X[:, 3] = 1  # in every document
    X[:, 5] = 0  # in none
    X[:, 7] = X[:, 8]  # copies: tied pairs
    X[:, 9] = X[:, 8]
    return X


@pytest.mark.parametrize("seed", range(6))
def test_sparse_model_equals_dense_model(monkeypatch, tmp_path, seed):
    X = tricky_matrix(seed)
    names = [f"t{j}" for j in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=names)
    dense = chow_liu_from_counts(
        count(sp.csr_matrix(X), names=names),  # below the threshold: the dense K x K path
        LearningSettings(method="chow-liu", root="t2"),
    )
    monkeypatch.setattr(treelearn.sources._count, "SPARSE_CHOW_LIU_MIN_COLUMNS", 10)
    model = tl.chow_liu(sp.csr_matrix(X), names=names, root="t2")  # the sparse path
    assert model.counts is None  # it did take the sparse path
    # the same tree (edges in order with the same MI doubles), the same CPT doubles
    assert list(model.graph.edges(data="weight")) == list(dense.graph.edges(data="weight"))
    assert model.parent_map == dense.parent_map
    for v in names:
        assert np.array_equal(model.cpt(v), dense.cpt(v)), v
    # scores: the same CPT doubles gathered the same way, so the same per-row doubles
    assert np.array_equal(model.score_samples(frame), dense.score_samples(frame))
    # each saved file the same bytes (settings aside: they say which path was taken), and
    # a save of the loaded model is the file again
    a, b = tmp_path / "sparse.json", tmp_path / "dense.json"
    model.settings = dict(dense.settings)
    model.save(a)
    dense.save(b)
    assert a.read_bytes() == b.read_bytes()
    c = tmp_path / "again.json"
    tl.load(a).save(c)
    assert c.read_bytes() == a.read_bytes()


def labelled_tree(d, seed=0):
    """A random tree of ``d`` nodes with CPTs (parents before children in no order)."""
    rng = np.random.default_rng(seed)
    names = [f"v{k}" for k in rng.permutation(d)]
    G = nx.DiGraph()
    for k, v in enumerate(names):
        G.add_node(v, states=["a", "b"])
        if k:
            G.add_edge(names[int(rng.integers(0, k))], v)
    for v in G:
        shape = (2,) * (G.in_degree(v) + 1)
        G.nodes[v]["cpt"] = np.full(shape, 0.5)
    return G


@pytest.mark.parametrize("d", [6, 6000])  # below and above the numpy acyclicity check
def test_tree_model_construction_checks(d):
    G = labelled_tree(d)
    m = tl.TreeModel(G)
    # parents are each node's predecessors; the caller's graph untouched
    assert all(m.parents(v) == list(G.predecessors(v)) for v in G)
    assert all("parents" not in G.nodes[v] for v in G)
    assert m == tl.TreeModel(m.graph)  # with its 'parents' attributes given
    # a cycle: named first, even where a node lacks its CPT too
    root = next(v for v in G if G.in_degree(v) == 0)
    leaf = next(v for v in G if G.out_degree(v) == 0)
    cyclic = G.copy()
    cyclic.remove_node(root)  # the cycle below is then the only way back to a parent
    child = next(v for v in cyclic if cyclic.in_degree(v) == 0)
    cyclic.add_edge(leaf, child)
    with pytest.raises(tl.StructureError, match="directed acyclic"):
        tl.TreeModel(cyclic)
    del cyclic.nodes[leaf]["cpt"]
    with pytest.raises(tl.StructureError, match="directed acyclic"):
        tl.TreeModel(cyclic)
    with pytest.raises(tl.StructureError, match="directed acyclic"):
        tl.TreeModel(cyclic, variables=list(cyclic)[1:])
    looped = G.copy()
    looped.add_edge(root, root)  # a self-loop: its own parent, a second parent elsewhere
    with pytest.raises(tl.StructureError, match="directed acyclic"):
        tl.TreeModel(looped)
    # parents that differ from the edges: named with the node
    wrong = G.copy()
    wrong.nodes[leaf]["parents"] = [leaf]
    with pytest.raises(tl.StructureError, match=f"node '{leaf}': 'parents'"):
        tl.TreeModel(wrong)
    missing = G.copy()
    del missing.nodes[leaf]["states"]
    with pytest.raises(tl.StructureError, match=f"node '{leaf}' needs the attributes"):
        tl.TreeModel(missing)


def test_tree_model_two_parents_and_duplicates():
    G = nx.DiGraph([("a", "c"), ("b", "c")])
    for v in "abc":
        G.add_node(v, states=[0, 1])
    G.nodes["a"]["cpt"] = G.nodes["b"]["cpt"] = np.array([0.5, 0.5])
    G.nodes["c"]["cpt"] = np.array([[[0.1, 0.9], [0.2, 0.8]], [[0.3, 0.7], [0.4, 0.6]]])
    m = tl.TreeModel(G, variables=["b", "a", "c"])
    assert m.parents("c") == ["b", "a"]  # predecessors in the variables' order
    G.nodes["c"]["parents"] = ["a", "a"]
    with pytest.raises(tl.StructureError, match="differ from the graph's edges"):
        tl.TreeModel(G)
    G.nodes["c"]["parents"] = ["a", "b"]
    assert tl.TreeModel(G, variables=["b", "a", "c"]).parents("c") == ["a", "b"]
