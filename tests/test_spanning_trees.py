"""The one spanning-tree routine (``spanning_skeleton`` on a weight matrix) against
networkx's Kruskal on the complete graph, and against brute force where small; the
tie rounding against Python's ``round``; ``chow_liu``'s matrix path against the graph
stages (``mi_graph``, networkx's tree, ``orient``, ``fit_cpts``).

The oracle here is written independently of ``treelearn.structure._trees``: Python's
``round`` to 12 decimals, the BIC penalty from its formula with ``math.log``, a
complete ``nx.Graph`` in column order and ``nx.maximum_spanning_tree(...,
algorithm="kruskal")``. The matrices have many exactly equal weights, differences
below the rounding (1e-14) and just above it (3e-13), zero weights, thresholds
equal to a weight, and per-pair row counts (including 0 and 1 rows).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import forests

import treelearn as tl
from treelearn.structure._trees import (
    TIE_DECIMALS,
    complete_graph,
    edge_penalty,
    maximum_spanning_tree,
    penalised_forest,
    round_ties,
    spanning_skeleton,
    spanning_tree_edges,
)

DECIMALS = 12  # the documented tie rule, restated here rather than imported


def test_tie_rule_is_twelve_decimals():
    assert TIE_DECIMALS == DECIMALS


# ----------------------------------------------------------------------------- the oracle
def oracle_scores(W, states=None, forest=None, n=None, n_classes=1):
    """Penalised weight of every pair i < j, in plain Python."""
    d = W.shape[0]
    scores = {}
    for i, j in itertools.combinations(range(d), 2):
        w = float(W[i, j])
        if forest in ("bic", "aic"):
            rows = float(n if np.ndim(n) == 0 else n[i][j])
            dof = n_classes * (len(states[i]) - 1) * (len(states[j]) - 1)
            if forest == "bic":
                w -= dof * math.log(rows) / (2 * rows) if rows > 1 else 0.0
            else:
                w -= dof / rows if rows > 1 else dof
        elif forest is not None:
            w -= float(forest)
        scores[i, j] = w
    return scores


def oracle(names, W, states=None, forest=None, n=None):
    """networkx's Kruskal on the complete graph (column order) of rounded (penalised) weights.

    Returns the tree and the edges as index pairs in the order Kruskal adds them.
    """
    scores = oracle_scores(W, states, forest, n)
    H = nx.Graph()
    H.add_nodes_from(names)
    for (i, j), s in scores.items():  # dicts keep insertion order: column order
        rank = round(s, DECIMALS)
        if forest is not None and not rank > 0:
            continue
        attrs = {"weight": float(W[i, j])}
        if forest is not None:
            attrs["penalised_weight"] = s
        H.add_edge(names[i], names[j], rank=rank, **attrs)
    T = nx.maximum_spanning_tree(H, weight="rank", algorithm="kruskal")
    index = {name: j for j, name in enumerate(names)}
    added = [
        tuple(sorted((index[u], index[v])))
        for u, v in nx.maximum_spanning_edges(H, weight="rank", algorithm="kruskal", data=False)
    ]
    return T, added


def assert_same_as_oracle(names, W, states=None, forest=None, n=None):
    W_before = W.copy()
    n_before = None if n is None else np.array(n, copy=True)
    got = spanning_skeleton(names, W, states, forest=forest, n=n)
    want, added = oracle(names, W, states, forest, n)
    # nodes, in column order, with their states
    assert list(got.nodes) == list(names)
    for j, name in enumerate(names):
        assert got.nodes[name] == ({"states": list(states[j])} if states is not None else {})
    # edges: the same ones, in the same order, with the same attributes in the same order
    assert list(got.edges()) == list(want.edges())
    keys = ["weight"] if forest is None else ["weight", "penalised_weight"]
    for u, v in got.edges():
        assert list(got.edges[u, v]) == keys
        assert got.edges[u, v]["weight"] == want.edges[u, v]["weight"]
        if forest is not None:
            assert got.edges[u, v]["penalised_weight"] == pytest.approx(
                want.edges[u, v]["penalised_weight"], rel=1e-14, abs=1e-17
            )
    assert got.graph == ({"n": n} if n is not None and np.ndim(n) == 0 else {})
    # the edge list itself, in Kruskal's order
    scores = oracle_scores(W, states, forest, n)
    S = np.zeros_like(W, dtype=float)
    present = np.zeros(W.shape, dtype=bool)
    for (i, j), s in scores.items():
        S[i, j] = s
        present[i, j] = forest is None or round(s, DECIMALS) > 0
    assert spanning_tree_edges(S, present) == added
    # inputs untouched
    np.testing.assert_array_equal(W, W_before)
    if n is not None:
        np.testing.assert_array_equal(n, n_before)
    return got


def assert_graph_path_agrees(names, W, states=None, forest=None, n=None):
    """The public graph functions pick the same graph, and leave their input alone."""
    G = complete_graph(names, W, states)
    if n is not None:
        G.graph["n"] = n
    before = (list(G.nodes(data=True)), list(G.edges(data=True)), dict(G.graph))
    before = (repr(before[0]), repr(before[1]), repr(before[2]))
    by_graph = maximum_spanning_tree(G) if forest is None else penalised_forest(G, forest)
    assert (
        repr(list(G.nodes(data=True))),
        repr(list(G.edges(data=True))),
        repr(dict(G.graph)),
    ) == before
    by_matrix = spanning_skeleton(names, W, states, forest=forest, n=n)
    assert list(by_graph.nodes(data=True)) == list(by_matrix.nodes(data=True))
    assert [(u, v, list(a.items())) for u, v, a in by_graph.edges(data=True)] == [
        (u, v, list(a.items())) for u, v, a in by_matrix.edges(data=True)
    ]
    assert by_graph.graph == by_matrix.graph


# ----------------------------------------------------------------------------- weight matrices
def tied_weights(rng, d):
    """Symmetric weights with many exact ties, near-ties below 1e-12 and just above."""
    levels = rng.choice([0.0, 0.1, 0.25, 0.5, 0.7], size=(d, d))
    W = levels + rng.choice([0.0, 1e-14, -1e-14, 3e-13], size=(d, d))
    W = np.triu(W, 1)
    return W + W.T


def random_states(rng, d):
    return [list(range(int(k))) for k in rng.integers(1, 5, size=d)]


@pytest.mark.parametrize("d", [1, 2, 3, 4, 7, 12, 25])
def test_tree_equals_networkx_kruskal_with_ties(d):
    rng = np.random.default_rng(100 + d)
    for trial in range(25):
        W = tied_weights(rng, d)
        names = [f"v{j}" for j in range(d)] if trial % 2 else list(range(d))
        states = random_states(rng, d) if trial % 3 else None
        assert_same_as_oracle(names, W, states)
        assert_graph_path_agrees(names, W, states)


def test_all_weights_equal_gives_the_column_order_star():
    W = np.full((6, 6), 0.3)
    T = assert_same_as_oracle(list("abcdef"), W)
    assert list(T.edges()) == [("a", x) for x in "bcdef"]


def test_only_the_upper_triangle_is_read():
    rng = np.random.default_rng(3)
    W = tied_weights(rng, 8)
    skewed = W + np.tril(rng.random((8, 8)), -1)  # junk below the diagonal
    a = spanning_skeleton(list(range(8)), W)
    b = spanning_skeleton(list(range(8)), skewed)
    assert list(a.edges(data=True)) == list(b.edges(data=True))


@pytest.mark.parametrize("d", [2, 3, 5, 9, 20])
def test_forests_equal_networkx_kruskal(d):
    rng = np.random.default_rng(200 + d)
    for _ in range(15):
        W = tied_weights(rng, d) * 0.01
        names = [f"x{j}" for j in range(d)]
        states = random_states(rng, d)
        # thresholds: none dropped, some dropped, one equal to a tied level (dropped:
        # its score rounds to 0), and one that drops everything
        for forest in (0.0, 0.002, 0.0025, 0.1):
            assert_same_as_oracle(names, W, states, forest)
            assert_graph_path_agrees(names, W, states, forest)
        for n in (1, 2, 50, 500, 10**6):
            assert_same_as_oracle(names, W, states, "bic", n)
            assert_graph_path_agrees(names, W, states, "bic", n)


@pytest.mark.parametrize("d", [2, 4, 8, 15])
def test_bic_forests_with_rows_per_pair_equal_networkx_kruskal(d):
    rng = np.random.default_rng(300 + d)
    for _ in range(20):
        W = tied_weights(rng, d) * 0.02
        states = random_states(rng, d)
        rows = rng.choice([0, 1, 2, 30, 30, 200, 200, 5000], size=(d, d))
        rows = np.triu(rows, 1)
        rows = rows + rows.T
        assert_same_as_oracle(list(range(d)), W, states, "bic", rows)


# ----------------------------------------------------------------------------- from data
def mi_matrix(df, **kwargs):
    G = tl.mi_graph(df, **kwargs)
    names = list(G.nodes)
    return names, nx.to_numpy_array(G, nodelist=names), [G.nodes[v]["states"] for v in names]


def tied_frame(seed, n=400):
    """Duplicated columns (exact ties), relabelled copies (ties up to rounding), a constant."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, n)
    z = np.where(rng.random(n) < 0.6, a, rng.integers(0, 4, n))
    y = np.where(rng.random(n) < 0.5, z, rng.integers(0, 3, n))
    labels = np.array(["w", "q", "z", "b"])
    return pd.DataFrame(
        {
            "a": a,
            "b": labels[a],
            "a2": a,
            "z": z,
            "k": 1,
            "y": y,
            "y2": (y + 1) % 3,
            "u": rng.integers(0, 2, n),
        }
    )


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_on_mutual_information_of_tied_data(seed):
    df = tied_frame(seed)
    names, W, states = mi_matrix(df)
    n = len(df)
    assert_same_as_oracle(names, W, states)
    assert_graph_path_agrees(names, W, states)
    for forest in ("bic", 0.01, float(np.sort(W[np.triu_indices(len(names), 1)])[-3])):
        assert_same_as_oracle(names, W, states, forest, n)
        assert_graph_path_agrees(names, W, states, forest, n)
    # a forest that drops something and keeps something, so the case is not vacuous
    F = spanning_skeleton(names, W, states, forest="bic", n=n)
    assert 0 < F.number_of_edges() < len(names) - 1


@pytest.mark.parametrize("seed", [0, 1])
def test_on_data_with_missing_values_and_rows_per_pair(seed):
    rng = np.random.default_rng(seed)
    df = tied_frame(10 + seed, n=300).astype(object)
    for col, p in (("a2", 0.7), ("z", 0.4), ("u", 0.9)):
        df.loc[rng.random(len(df)) < p, col] = None
    names, W, states = mi_matrix(df, missing="pairwise")
    seen = df[names].notna().to_numpy().astype(np.int64)
    rows = seen.T @ seen  # the rows each pair is observed on, counted here from the frame
    assert len(np.unique(rows[np.triu_indices(len(names), 1)])) > 2
    assert_same_as_oracle(names, W, states, "bic", rows)
    model = tl.chow_liu(df, forest="bic", missing="pairwise")
    want, _ = oracle(names, W, states, "bic", rows)
    assert {frozenset(e) for e in model.graph.edges} == {frozenset(e) for e in want.edges}


# ----------------------------------------------------------------------------- brute force
@pytest.mark.parametrize("forest", [None, 0.002, "bic"])
def test_total_weight_is_the_brute_force_maximum(forest):
    """No spanning tree (forest) has a larger total of rounded (penalised) weights."""
    rng = np.random.default_rng(7)
    for d in (2, 3, 4, 5):
        for _ in range(10):
            W = tied_weights(rng, d) * (1 if forest is None else 0.01)
            states = random_states(rng, d)
            scores = oracle_scores(W, states, forest, 100)
            rank = {e: Fraction(round(s, DECIMALS)) for e, s in scores.items()}
            usable = [e for e in rank if forest is None or rank[e] > 0]
            best = max(sum((rank[e] for e in f), Fraction(0)) for f in forests(range(d), usable))
            T = spanning_skeleton(list(range(d)), W, states, forest=forest, n=100)
            got = sum((rank[tuple(sorted(e))] for e in T.edges()), Fraction(0))
            assert got == best
            if forest is None:
                assert nx.is_tree(T)


# ----------------------------------------------------------------------------- the BIC penalty
def test_bic_edge_penalty_matches_formula_scalar_and_broadcast():
    k = np.array([1, 2, 3, 5])
    rows = np.array([[0, 1, 2, 7], [1, 10, 100, 3], [2, 100, 1000, 9], [7, 3, 9, 12345]])
    P = edge_penalty("bic", k[:, None], k[None, :], rows)
    assert P.shape == (4, 4)
    for i in range(4):
        for j in range(4):
            r = int(rows[i, j])
            want = (k[i] - 1) * (k[j] - 1) * math.log(r) / (2 * r) if r > 1 else 0.0
            assert P[i, j] == pytest.approx(want, rel=1e-15, abs=0)
            one = edge_penalty("bic", int(k[i]), int(k[j]), r)
            assert isinstance(one, float) and one == P[i, j]
    # one number of rows for every pair
    np.testing.assert_array_equal(
        edge_penalty("bic", k[:, None], k[None, :], 500),
        edge_penalty("bic", k[:, None], k[None, :], np.full((4, 4), 500)),
    )


def test_nan_weight_is_an_error_on_both_paths():
    W = np.array([[0, np.nan, 0.2], [np.nan, 0, 0.3], [0.2, 0.3, 0]])
    with pytest.raises(ValueError):
        spanning_skeleton(["a", "b", "c"], W)
    with pytest.raises(ValueError):
        maximum_spanning_tree(complete_graph(["a", "b", "c"], W))
    # a NaN pair that a forest drops anyway is no error (as on the graph path)
    a = spanning_skeleton(["a", "b", "c"], W, forest=0.1)
    b = penalised_forest(complete_graph(["a", "b", "c"], W), 0.1)
    assert (
        list(a.edges(data=True))
        == list(b.edges(data=True))
        == [
            ("a", "c", {"weight": 0.2, "penalised_weight": pytest.approx(0.1)}),
            ("b", "c", {"weight": 0.3, "penalised_weight": pytest.approx(0.2)}),
        ]
    )


def test_aic_and_class_conditional_penalties_match_their_formulas():
    k = np.array([1, 2, 3, 5])
    rows = np.array([[0, 1, 2, 7], [1, 10, 100, 3], [2, 100, 1000, 9], [7, 3, 9, 12345]])
    for n_classes in (1, 3):
        for score in ("bic", "aic"):
            P = edge_penalty(score, k[:, None], k[None, :], rows, n_classes)
            for i in range(4):
                for j in range(4):
                    r = int(rows[i, j])
                    dof = n_classes * (k[i] - 1) * (k[j] - 1)
                    if score == "bic":
                        want = dof * math.log(r) / (2 * r) if r > 1 else 0.0
                    else:
                        want = dof / r if r > 1 else float(dof)
                    assert P[i, j] == pytest.approx(want, rel=1e-15, abs=0)
    with pytest.raises(tl.TreelearnError, match="score == 'mdl', must be one of 'bic', 'aic'"):
        edge_penalty("mdl", 2, 2, 10)


# ----------------------------------------------------------------------------- any graph
def random_graph(rng, d, p_edge=0.6):
    """A graph over d nodes (inserted in a shuffled order) with some of the pairs as edges,
    added in a shuffled order and orientation, tied weights, some without a weight, extra
    node, edge and graph attributes, and a self-loop."""
    W = tied_weights(rng, d)
    nodes = [f"n{j}" for j in rng.permutation(d)]
    G = nx.Graph(name="g", n=100)
    G.add_nodes_from(
        (v, {"states": list(range(int(rng.integers(1, 4)))), "colour": v}) for v in nodes
    )
    pairs = [(i, j) for i, j in itertools.combinations(range(d), 2) if rng.random() < p_edge]
    for e in rng.permutation(len(pairs)):
        i, j = pairs[e]
        u, v = (nodes[i], nodes[j]) if rng.random() < 0.5 else (nodes[j], nodes[i])
        attrs = {"label": f"{u}-{v}"}
        if rng.random() < 0.9:
            attrs["weight"] = float(W[i, j])  # else counts as 1
        G.add_edge(u, v, **attrs)
    if d:
        G.add_edge(nodes[0], nodes[0], weight=5.0)
    return G


def networkx_forest(G, penalty=None, n=None):
    """networkx's Kruskal on ``G``'s rounded (penalised) weights, attributes copied from ``G``."""
    H = nx.Graph()
    H.add_nodes_from(G)
    for u, v, data in G.edges(data=True):
        if u == v:
            continue
        w = float(data.get("weight", 1.0))
        if penalty in ("bic", "aic"):
            n = n if n is not None else G.graph["n"]
            dof = (len(G.nodes[u]["states"]) - 1) * (len(G.nodes[v]["states"]) - 1)
            w -= dof * math.log(n) / (2 * n) if penalty == "bic" else dof / n
        elif penalty is not None:
            w -= penalty
        if penalty is not None and not round(w, DECIMALS) > 0:
            continue
        H.add_edge(u, v, rank=round(w, DECIMALS), penalised=w)
    T = nx.maximum_spanning_tree(H, weight="rank", algorithm="kruskal")
    F = nx.Graph()
    F.graph.update(G.graph)
    F.add_nodes_from(G.nodes(data=True))
    for u, v in T.edges():
        attrs = dict(G.edges[u, v])
        if penalty is not None:
            attrs["penalised_weight"] = H.edges[u, v]["penalised"]
        F.add_edge(u, v, **attrs)
    return F


@pytest.mark.parametrize("d", [0, 1, 2, 3, 6, 11])
def test_graph_functions_on_any_graph_equal_networkx_kruskal(d):
    rng = np.random.default_rng(400 + d)
    for trial in range(20):
        G = random_graph(rng, d, p_edge=0.3 + 0.7 * (trial % 2))
        before = repr((list(G.nodes(data=True)), list(G.edges(data=True)), G.graph))
        for penalty in (None, 0.1, 0.25, "bic", "aic"):
            got = maximum_spanning_tree(G) if penalty is None else penalised_forest(G, penalty)
            want = networkx_forest(G, penalty)
            assert list(got.nodes(data=True)) == list(want.nodes(data=True))
            assert [(u, v, list(a)) for u, v, a in got.edges(data=True)] == [
                (u, v, list(a)) for u, v, a in want.edges(data=True)
            ]
            for u, v, a in want.edges(data=True):
                for key, value in a.items():
                    if key == "penalised_weight":
                        assert got.edges[u, v][key] == pytest.approx(value, rel=1e-14, abs=1e-17)
                    else:
                        assert got.edges[u, v][key] == value
            assert got.graph == want.graph
        assert repr((list(G.nodes(data=True)), list(G.edges(data=True)), G.graph)) == before


def test_graph_functions_refuse_directed_graphs_and_forests_without_rows():
    with pytest.raises(tl.StructureError, match="undirected"):
        maximum_spanning_tree(nx.DiGraph([("a", "b")]))
    G = complete_graph(["a", "b"], np.array([[0, 0.5], [0.5, 0]]), [[0, 1], [0, 1]])
    with pytest.raises(tl.StructureError, match="number of rows n"):
        penalised_forest(G, "aic")
    with pytest.raises(tl.TreelearnError, match="penalty == 'mdl'"):
        penalised_forest(G, "mdl", n=10)
    assert list(penalised_forest(G, "aic", n=10).edges()) == [("a", "b")]  # 0.5 > 1 / 10


# ----------------------------------------------------------------------------- constraints
def kruskal_with_constraints(names, W, white, black, states=None, forest=None, n=None):
    """networkx's Kruskal started from the whitelisted edges (its ``partition``: INCLUDED),
    blacklisted ones EXCLUDED, edges a forest drops left out; the edges in the order it adds
    them."""
    from networkx.algorithms.tree.mst import EdgePartition, kruskal_mst_edges

    scores = oracle_scores(W, states, forest, n)
    H = nx.Graph()
    H.add_nodes_from(names)
    for (i, j), s in scores.items():
        pair = frozenset((i, j))
        rank = round(s, DECIMALS)
        if pair in white:
            part = EdgePartition.INCLUDED
        elif pair in black or (forest is not None and not rank > 0):
            part = EdgePartition.EXCLUDED
        else:
            part = EdgePartition.OPEN
        H.add_edge(names[i], names[j], rank=rank, partition=part)
    index = {name: j for j, name in enumerate(names)}
    return [
        tuple(sorted((index[u], index[v])))
        for u, v in kruskal_mst_edges(
            H, minimum=False, weight="rank", data=False, partition="partition"
        )
    ]


@pytest.mark.parametrize("d", [3, 5, 8])
def test_whitelist_and_blacklist_equal_networkx_kruskal_with_a_partition(d):
    rng = np.random.default_rng(500 + d)
    pairs = list(itertools.combinations(range(d), 2))
    for trial in range(30):
        W = tied_weights(rng, d) * (0.01 if trial % 3 else 1.0)
        states = random_states(rng, d)
        names = [f"x{j}" for j in range(d)]
        picked = [pairs[e] for e in rng.permutation(len(pairs))[:d]]
        white = []
        for e in picked[: d // 2]:  # an acyclic whitelist
            if nx.is_forest(nx.Graph([*white, e])):
                white.append(e)
        black = [e for e in picked[d // 2 :] if e not in white]
        for forest in (None, 0.002, "bic", "aic"):
            n = 100 if forest in ("bic", "aic") else None
            got = spanning_skeleton(
                names,
                W,
                states,
                forest=forest,
                n=n,
                whitelist=[(names[i], names[j]) for i, j in white],
                blacklist=[(names[j], names[i]) for i, j in black],
            )
            added = kruskal_with_constraints(
                names,
                W,
                {frozenset(e) for e in white},
                {frozenset(e) for e in black},
                states,
                forest,
                n,
            )
            # the edges Kruskal adds, listed as networkx lists a graph built from them
            want = nx.Graph()
            want.add_nodes_from(names)
            want.add_edges_from((names[i], names[j]) for i, j in added)
            assert list(got.edges()) == list(want.edges())
            assert {frozenset((names[i], names[j])) for i, j in white} <= {
                frozenset(e) for e in got.edges()
            }
            assert not {frozenset((names[i], names[j])) for i, j in black} & {
                frozenset(e) for e in got.edges()
            }


def test_is_acyclic_agrees_with_networkx_on_large_forests_and_cycles():
    """The pointer-doubling check (graphs of >= GC_PAUSE_NODES nodes, one parent each)
    against networkx, on a random forest, the same with one back edge (a cycle), a
    self-loop, and a node of two parents (networkx's own check then)."""
    import networkx as nx

    from treelearn.structure._trees import GC_PAUSE_NODES, is_acyclic

    rng = np.random.default_rng(0)
    n = GC_PAUSE_NODES + 100
    parent = [int(rng.integers(0, j)) if j and rng.random() > 0.01 else None for j in range(n)]
    forest = nx.DiGraph()
    forest.add_nodes_from(f"v{j}" for j in range(n))
    forest.add_edges_from((f"v{p}", f"v{j}") for j, p in enumerate(parent) if p is not None)
    cases = [forest]
    deep = next(
        j for j in range(n - 1, 0, -1) if parent[j] is not None and parent[parent[j]] is not None
    )
    root = deep
    while parent[root] is not None:
        root = parent[root]
    for extra in ((f"v{deep}", f"v{root}"), ("v7", "v7"), ("v3", f"v{n - 1}")):
        g = forest.copy()
        g.add_edge(*extra)  # a cycle through the root; a self-loop; a second parent
        cases.append(g)
    got = [is_acyclic(g) for g in cases]
    assert got == [nx.is_directed_acyclic_graph(g) for g in cases]
    assert got[:3] == [True, False, False]


# -------------------------------------------------------- the matrix path against the graph stages
@pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")
@given(st.lists(st.floats(-10, 10, allow_nan=False), min_size=1, max_size=50))
@settings(max_examples=200, deadline=None)
def test_round_ties_equals_python_round(values):
    values = values + [v + 5e-13 for v in values] + [0.5e-12, 2.5e-12, -0.5e-12, 1e20, -1e17]
    got = round_ties(np.array(values))
    assert [float(x) for x in got] == [round(v, TIE_DECIMALS) for v in values]


def nx_path(names, W, states=None, forest=None, n=None):
    G = complete_graph(names, W, states)
    if n is not None:
        G.graph["n"] = n
    return maximum_spanning_tree(G) if forest is None else penalised_forest(G, forest)


def same_graph(A: nx.Graph, B: nx.Graph) -> None:
    assert list(A.nodes(data=True)) == list(B.nodes(data=True))
    assert list(A.edges()) == list(B.edges())
    for u, v in A.edges():
        assert A.edges[u, v].keys() == B.edges[u, v].keys()
        for key in A.edges[u, v]:
            assert A.edges[u, v][key] == B.edges[u, v][key]
    assert A.graph == B.graph


@pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")
def test_matrix_tree_equals_networkx_tree_with_ties():
    rng = np.random.default_rng(5)
    for d in (1, 2, 3, 5, 8, 13, 30):
        for _ in range(30):
            W = tied_weights(rng, d)
            names = [f"v{j}" for j in range(d)]
            same_graph(spanning_skeleton(names, W), nx_path(names, W))


@pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")
def test_matrix_forest_equals_networkx_forest():
    rng = np.random.default_rng(9)
    for d in (2, 4, 9, 20):
        for _ in range(20):
            W = tied_weights(rng, d) * 0.01
            names = list(range(d))
            states = [list(range(int(k))) for k in rng.integers(1, 4, size=d)]
            for forest, n in (("bic", 500), (0.002, None), (0.0, None)):
                got = spanning_skeleton(names, W, states, forest=forest, n=n if n else 100)
                want = nx_path(names, W, states, forest=forest, n=n if n else 100)
                same_graph(got, want)


@pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")
def test_spanning_tree_edges_in_kruskal_order():
    W = np.array([[0, 0.5, 0.5, 0.1], [0.5, 0, 0.5, 0.1], [0.5, 0.5, 0, 0.1], [0.1, 0.1, 0.1, 0]])
    assert spanning_tree_edges(W) == [(0, 1), (0, 2), (0, 3)]


def graph_pipeline(df, forest=None, mi_alpha=None, alpha=0.0):
    """Chow-Liu through the public graph stages: mi_graph -> networkx spanning tree -> orient -> CPTs."""
    G = tl.mi_graph(df, mi_alpha=mi_alpha)
    T = maximum_spanning_tree(G) if forest is None else penalised_forest(G, forest)
    return tl.fit_cpts(tl.orient(T), df, alpha=alpha)


@pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")
def test_chow_liu_matrix_path_equals_graph_path():
    """Data with duplicated columns (exact MI ties): chow_liu (the matrix path) learns
    the model the graph stages give."""
    rng = np.random.default_rng(1)
    base = rng.integers(0, 3, size=(400, 12))
    df = pd.DataFrame(np.hstack([base, base[:, :6], rng.integers(0, 2, size=(400, 4))]))
    df.columns = [f"c{j}" for j in range(df.shape[1])]
    for kwargs in ({}, {"forest": "bic"}, {"forest": 0.01}, {"mi_alpha": 1.0, "alpha": 1.0}):
        by_matrix = tl.chow_liu(df, **{"alpha": 0.0, **kwargs})
        by_graph = graph_pipeline(df, **kwargs)
        assert list(by_matrix.graph.edges(data="weight")) == list(
            by_graph.graph.edges(data="weight")
        )
        for v in df.columns:
            np.testing.assert_array_equal(
                by_matrix.graph.nodes[v]["cpt"], by_graph.graph.nodes[v]["cpt"]
            )
