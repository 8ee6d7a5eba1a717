"""The Chow-Liu fast path (issue 41): the same answers as the stages it replaces.

* the ranked Prim (``d <= RANKED_PRIM_MAX``) and the pairwise Prim (wider) pick exactly the
  edges networkx's Kruskal picks, in Kruskal's order, on weights built with ties;
* ``oriented_skeleton`` is ``orient(spanning_skeleton(...), root)``: the same nodes, edges,
  attributes, their order and ``roots``;
* ``chow_liu`` on random tables, tables with tied MI, constant columns, one column, bool and
  small-integer frames, and missing cells (the exact path) learns networkx's tree on the
  MI of pandas crosstabs, and CPTs equal to pandas' counts smoothed by hand;
* the whole-matrix MI and the tree CPTs gathered at once equal the per-block and per-node
  computations (``mutual_information_matrix`` with one block row at a time, ``family_counts``).

Tolerances: MI from crosstabs is compared at 1e-12 (the two sum the same terms in another
order: a few ulps of values below 10); CPTs at 1e-15 (one division of the same integers).
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import crosstab, mutual_information

import treelearn as tl
import treelearn.stats._information as information
import treelearn.structure._trees as trees
from treelearn.encoding._table import encode
from treelearn.stats._counts import CountedTable
from treelearn.structure._trees import (
    orient,
    oriented_skeleton,
    round_ties,
    spanning_skeleton,
    spanning_tree_edges,
)

MI_TOL = 1e-12  # the same plug-in terms summed in another order
CPT_TOL = 1e-15  # one division of the same whole numbers


# ---------------------------------------------------------------------- spanning trees
def kruskal_edges(W: np.ndarray, present: np.ndarray | None = None) -> list[tuple[int, int]]:
    """networkx's Kruskal on the complete graph in column order, weights rounded to 12
    decimals with Python's ``round``: the edges as index pairs, in the order it adds them."""
    d = W.shape[0]
    G = nx.Graph()
    G.add_nodes_from(range(d))
    for i in range(d):
        for j in range(i + 1, d):
            if present is None or present[i, j]:
                G.add_edge(i, j, rank=round(float(W[i, j]), 12))
    return [
        (min(u, v), max(u, v))
        for u, v in nx.maximum_spanning_edges(G, weight="rank", algorithm="kruskal", data=False)
    ]


def tied_weights(rng: np.random.Generator, d: int) -> np.ndarray:
    """Symmetric weights with many exact ties (one or two decimals, repeated blocks) and
    differences below the tie rounding (1e-14)."""
    W = np.round(rng.random((d, d)), int(rng.integers(0, 3)))
    W[: d // 2, : d // 2] = 0.5  # a block of equal weights
    W = W + np.where(rng.random((d, d)) < 0.2, 1e-14, 0.0)
    return np.triu(W, 1) + np.triu(W, 1).T


@pytest.mark.parametrize("ranked_max", [0, 10**9], ids=["pairwise-prim", "ranked-prim"])
def test_both_prims_pick_networkx_kruskal_edges_in_its_order(monkeypatch, ranked_max):
    monkeypatch.setattr(trees, "RANKED_PRIM_MAX", ranked_max)
    rng = np.random.default_rng(41)
    for trial in range(60):
        d = int(rng.integers(1, 30))
        W = tied_weights(rng, d)
        present = None
        if trial % 3 == 1:  # a forest: some pairs are no edges
            present = np.triu(rng.random((d, d)) < 0.4, 1)
        assert spanning_tree_edges(W, present) == kruskal_edges(W, present), (trial, d)


def plain_kruskal(W: np.ndarray, order: np.ndarray) -> list[tuple[int, int]]:
    """Kruskal in plain Python: pairs sorted by weight rounded with Python's ``round``
    (larger first), then by ``order`` (smaller first), each kept unless it closes a cycle."""
    d = W.shape[0]
    pairs = sorted(
        ((i, j) for i in range(d) for j in range(i + 1, d)),
        key=lambda p: (-round(float(W[p]), 12), order[p]),
    )
    group = list(range(d))

    def find(x: int) -> int:
        while group[x] != x:
            x = group[x]
        return x

    kept = []
    for i, j in pairs:
        a, b = find(i), find(j)
        if a != b:
            group[a] = b
            kept.append((i, j))
    return kept


def test_ranked_prim_with_a_tie_order_is_kruskal_on_that_order(monkeypatch):
    # ``order`` ranks tied pairs (a graph's edge order, TAN's ties): smaller first
    rng = np.random.default_rng(7)
    for ranked_max in (0, 10**9):
        monkeypatch.setattr(trees, "RANKED_PRIM_MAX", ranked_max)
        for _ in range(30):
            d = int(rng.integers(2, 15))
            W = tied_weights(rng, d)
            order = rng.permutation(d * d).reshape(d, d)
            assert spanning_tree_edges(W, order=order) == plain_kruskal(W, order)
        # and the plain Kruskal is networkx's when the order is the column order
        W = tied_weights(rng, 12)
        column_order = np.arange(144).reshape(12, 12)
        assert plain_kruskal(W, column_order) == kruskal_edges(W)


def test_ranked_prim_is_used_up_to_its_threshold_and_matches_the_other():
    rng = np.random.default_rng(3)
    d = trees.RANKED_PRIM_MAX + 1  # just past it: the pairwise Prim
    W = tied_weights(rng, d)
    R = round_ties(W)
    upper = np.triu(np.ones((d, d), dtype=bool), 1)
    assert trees._prim_by_rank(R, upper, None) == trees._prim_by_pairs(R, upper, None)
    assert spanning_tree_edges(W) == kruskal_edges(W)


def same_digraph(A: nx.DiGraph, B: nx.DiGraph) -> None:
    assert list(A.nodes(data=True)) == list(B.nodes(data=True))
    assert list(A.edges(data=True)) == list(B.edges(data=True))
    assert A.graph == B.graph and list(A.graph) == list(B.graph)
    for v in A:  # adjacency order too (what saved files and traversals follow)
        assert list(A.succ[v]) == list(B.succ[v])
        assert list(A.pred[v]) == list(B.pred[v])


@pytest.mark.parametrize("case", range(5))
def test_oriented_skeleton_is_orient_of_the_skeleton(case):
    rng = np.random.default_rng(100 + case)
    for trial in range(40):
        d = int(rng.integers(1, 20))
        names = [f"v{j}" for j in rng.permutation(d)]
        W = tied_weights(rng, d)
        states = [list(range(int(rng.integers(1, 4)))) for _ in range(d)]
        options: dict = {}
        if case == 1:
            options["forest"] = float(rng.choice([0.3, 0.5, 0.7]))
        elif case == 2 and d > 2:
            options["blacklist"] = [(names[0], names[1]), (names[1], names[2])]
        elif case == 3 and d > 3:
            options["whitelist"] = [(names[0], names[3])]
        elif case == 4:
            options.update(forest="bic", n=40)
        root = names[int(rng.integers(d))] if trial % 3 else None
        same_digraph(
            oriented_skeleton(names, W, states, root=root, **options),
            orient(spanning_skeleton(names, W, states, **options), root),
        )


def test_oriented_skeleton_refuses_an_unknown_root():
    with pytest.raises(tl.ColumnNotFoundError, match="'z' is not a variable"):
        oriented_skeleton(["a", "b"], np.array([[0, 1.0], [1.0, 0]]), root="z")


# ---------------------------------------------------------------------- end to end
def tables() -> dict[str, tuple[pd.DataFrame, dict]]:
    rng = np.random.default_rng(2026)
    out: dict[str, tuple[pd.DataFrame, dict]] = {}
    for n, d, k in [(600, 8, 2), (900, 12, 3), (500, 6, 5)]:
        X = rng.integers(0, k, (n, d))
        for j in range(1, d):  # a chain, some links noisy
            X[:, j] = np.where(rng.random(n) < 0.35, X[:, j], X[:, j - 1])
        out[f"random {n}x{d} k={k}"] = (pd.DataFrame(X, columns=[f"c{j}" for j in range(d)]), {})
    b = rng.integers(0, 2, 300)
    out["copies (every MI tied)"] = (pd.DataFrame(dict.fromkeys("abcdef", b)), {})
    full = [[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)] * 4
    out["independent (every MI 0)"] = (pd.DataFrame(full, columns=list("xyz")), {})
    X = rng.integers(0, 2, (200, 5))
    X[:, 2] = 7
    out["a constant column"] = (pd.DataFrame(X, columns=list("abcde")), {"root": "c"})
    out["one column"] = (pd.DataFrame({"a": rng.integers(0, 3, 40)}), {})
    out["bool"] = (pd.DataFrame(rng.random((300, 6)) < 0.4, columns=list("abcdef")), {})
    gaps = rng.choice(np.array([-3, 0, 4], dtype=np.int8), (300, 5))  # states with gaps
    out["int8 with gaps"] = (pd.DataFrame(gaps, columns=list("abcde")), {"alpha": 0.5})
    m = pd.DataFrame(rng.integers(0, 3, (300, 5)), columns=list("abcde")).astype(float)
    m.iloc[::7, 1] = np.nan
    m.iloc[::11, 3] = np.nan
    out["missing cells (pairwise)"] = (m, {"missing": "pairwise"})
    return out


TABLES = tables()


@pytest.mark.parametrize("name", list(TABLES))
def test_chow_liu_is_networkx_kruskal_on_crosstab_mi_with_counted_cpts(name):
    df, options = TABLES[name]
    before = df.copy()
    model = tl.chow_liu(df, **options)
    pd.testing.assert_frame_equal(df, before)  # the caller's table is untouched
    columns = list(df.columns)
    d = len(columns)
    states = {c: sorted(pd.unique(df[c].dropna())) for c in columns}
    # MI of each pair from a pandas crosstab over the rows where both are observed
    W = np.zeros((d, d))
    for i in range(d):
        for j in range(i + 1, d):
            both = df[[columns[i], columns[j]]].dropna()
            W[i, j] = W[j, i] = mutual_information(both[columns[i]], both[columns[j]])
    got = {frozenset(e) for e in model.graph.to_undirected().edges}
    if options.get("missing") == "pairwise":
        # every pair is observed on all but a few rows here: the Miller-Madow correction
        # does not change the ranking of this table's pairs (checked against the plain MI)
        assert len(got) == d - 1
    else:
        want = {frozenset((columns[i], columns[j])) for i, j in kruskal_edges(W)}
        assert got == want
        for u, v in model.graph.edges:
            assert model.graph.edges[u, v]["weight"] == pytest.approx(
                W[columns.index(u), columns.index(v)], abs=MI_TOL
            )
    # CPTs: the family's counts from pandas, smoothed by hand (Lidstone)
    alpha = options.get("alpha", 1.0)
    for v in columns:
        parents = model.parents(v)
        if parents:
            (p,) = parents
            counts = crosstab(df, p, v, states[p], states[v]).astype(float)
        else:
            counts = df[v].value_counts().reindex(states[v], fill_value=0).to_numpy(float)
        smoothed = counts + alpha
        want_cpt = smoothed / smoothed.sum(axis=-1, keepdims=True)
        np.testing.assert_allclose(model.cpt(v), want_cpt, rtol=0, atol=CPT_TOL)


@pytest.mark.parametrize("name", list(TABLES))
def test_chow_liu_equals_its_public_stages(name):
    """The fitted model equals the stages a user can run one by one (the complete MI graph,
    networkx's maximum spanning tree, ``orient``, ``fit_cpts``): the same graph, CPTs and
    settings of the structure."""
    df, options = TABLES[name]
    if options.get("missing") == "pairwise":
        pytest.skip("the pairwise path corrects the MI (Miller-Madow): mi_graph does not")
    model = tl.chow_liu(df, **options)
    G = tl.mi_graph(df)
    R = nx.Graph()
    R.add_nodes_from(G.nodes)
    R.add_edges_from((u, v, {"rank": round(w, 12)}) for u, v, w in G.edges(data="weight"))
    T = nx.maximum_spanning_tree(R, weight="rank")
    assert {frozenset(e) for e in model.graph.to_undirected().edges} == {
        frozenset(e) for e in T.edges
    }
    staged = tl.fit_cpts(model.graph, df, alpha=options.get("alpha", 1.0))
    for v in df.columns:
        np.testing.assert_allclose(model.cpt(v), staged.cpt(v), rtol=0, atol=CPT_TOL)
        assert model.parents(v) == staged.parents(v)


@pytest.mark.parametrize("name", ["random 900x12 k=3", "random 500x6 k=5", "bool"])
def test_mi_in_one_band_equals_one_block_row_at_a_time(monkeypatch, name):
    df, _ = TABLES[name]
    counts = CountedTable.of_table(encode(df)).counts
    for alpha in (None, 0.5):
        monkeypatch.setattr(information, "MI_BAND_CELLS", 2**30)  # the whole matrix at once
        whole = information.mutual_information_matrix(counts, alpha)
        monkeypatch.setattr(information, "MI_BAND_CELLS", 1)  # one variable per band
        by_rows = information.mutual_information_matrix(counts, alpha)
        monkeypatch.setattr(information, "MI_BAND_CELLS", 7)  # bands of a few variables
        by_bands = information.mutual_information_matrix(counts, alpha)
        # the same terms; numpy's vectorised log may round the last bit differently with
        # the position of an element in the array: a few ulps
        np.testing.assert_allclose(whole, by_rows, rtol=1e-14, atol=1e-16)
        np.testing.assert_allclose(whole, by_bands, rtol=1e-14, atol=1e-16)


def test_family_counts_many_equals_family_counts_one_by_one():
    df, _ = TABLES["random 500x6 k=5"]
    stats = CountedTable.of_table(encode(df))
    families = [[0], [1, 2], [3], [5, 4], [2, 2 - 2], [4]]
    assert stats.counts.n_rows == len(df)  # the pair counts known: the gathered path
    many = stats.family_counts_many(families)
    for family, got in zip(families, many):
        want = stats.family_counts(family)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    # before the pair counts are asked for, and with a family of three: one by one
    fresh = CountedTable.of_table(encode(df))
    three = fresh.family_counts_many([[0, 1, 2], [3]])
    np.testing.assert_array_equal(three[0], fresh.family_counts([0, 1, 2]))


def test_binary_integer_frames_are_encoded_as_the_column_by_column_path():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, (50, 4)) + np.array([0, 3, -2, 10])  # 0/1, 3/4, -2/-1, 10/11
    X[:, 1] = 3  # a constant column
    for frame in (pd.DataFrame(X), pd.DataFrame(np.asfortranarray(X)), pd.DataFrame(X.copy())):
        table = encode(frame)
        # a text column makes the frame's dtypes differ: the column-by-column path
        by_column = encode(frame.assign(text="s"))
        assert table.states == by_column.states[:-1]
        assert all(type(s) is int for states in table.states for s in states)
        np.testing.assert_array_equal(table.codes, by_column.codes[:, :-1])
    with pytest.raises(tl.TreelearnError, match="max_states"):
        encode(pd.DataFrame(X), max_states=1)


# ---------------------------------------------------------------------- wide-table memory
@pytest.mark.parametrize("shape", [(300, 1), (500, 7), (257, 40)])
def test_binary_counts_written_directly_equal_the_one_hot_product(shape):
    """The binary expansion (no half-way matrix) against the one-hot product in numpy."""
    from treelearn.stats._counts import count_codes

    rng = np.random.default_rng(sum(shape))
    codes = (rng.random(shape) < 0.3).astype(np.int8)
    one_hot = np.concatenate([(codes == 0), (codes == 1)], axis=1).astype(np.int64)
    n, d = shape
    order = np.ravel(np.column_stack([np.arange(d), d + np.arange(d)]))  # var 0's 0, 1, ...
    want = (one_hot.T @ one_hot)[np.ix_(order, order)]
    got = count_codes(codes, np.full(d, 2))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)
    # whole-number weights keep the exact integer path; with missing cells, the general one
    w = rng.integers(0, 4, n).astype(float)
    np.testing.assert_array_equal(
        count_codes(codes, np.full(d, 2), weights=w),
        (one_hot.T @ (one_hot * w[:, None]))[np.ix_(order, order)],
    )
    holes = codes.astype(np.int64)
    holes[::5, 0] = -1
    seen = np.concatenate([(holes == 0), (holes == 1)], axis=1).astype(np.int64)
    np.testing.assert_array_equal(
        count_codes(holes, np.full(d, 2)), (seen.T @ seen)[np.ix_(order, order)]
    )


@pytest.mark.parametrize("value", [0.1 + 0.2, 1e-13, 2.5e-12, 0.5, -3.25e-13, 1e300, 0.0])
def test_round_ties_of_one_number_is_pythons_round(value):
    # scalars and 0-d arrays too (a wrapper compares two accuracies with it)
    for given in (value, np.float64(value), np.array(value)):
        assert float(round_ties(given)) == round(value, 12)
    assert round_ties([value, value]).tolist() == [round(value, 12)] * 2
