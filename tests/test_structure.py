"""Structure learning: brute force over every spanning tree, the LL identity, pgmpy's
TreeSearch, recovery of a known tree, forests, ties and determinism; Hypothesis' random
weighted tables (the tree is the best of every spanning tree) and random frames of
hostile labels (an error, or a model that saves, loads and scores as its CPTs say)."""

from __future__ import annotations

import itertools
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import (
    FAST,
    pgmpy_sample,
    random_dependent_frame,
    random_tree_network,
    sample_tree_network,
    tables,
    undirected,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import (
    best_forest,
    entropy,
    log_joint_probability,
    mutual_information,
    prufer_trees,
    spanning_trees,
    tree_ml_loglik,
)

import treelearn as tl


# ---------------------------------------------------------------- brute force
@pytest.mark.parametrize("d,seed", [(4, 0), (4, 1), (5, 2), (5, 3), (6, 4), (6, 5)])
def test_learned_tree_is_the_best_of_all_spanning_trees(d, seed):
    rng = np.random.default_rng(seed)
    cards = [int(c) for c in rng.integers(2, 5, size=d)]
    cards[0], cards[-1] = 2, 4  # make sure the cardinalities are mixed
    df = random_dependent_frame(300, cards, rng)
    cache: dict = {}
    cols = list(df.columns)
    scores = [  # every labelled tree, one per Pruefer sequence
        tree_ml_loglik(df, [(cols[u], cols[v]) for u, v in tree], cache=cache)
        for tree in prufer_trees(d)
    ]
    assert len(scores) == d ** (d - 2)
    best = max(scores)

    model = tl.chow_liu(df, alpha=0)
    assert model.graph.number_of_edges() == d - 1
    assert nx.is_tree(model.graph.to_undirected())
    learned_ll = model.log_likelihood(df)
    assert learned_ll == pytest.approx(best, rel=1e-10, abs=1e-8)
    # and the learned edges, scored independently, are that maximum too
    learned_edges = list(model.graph.edges)
    assert tree_ml_loglik(df, learned_edges, cache=cache) == pytest.approx(
        best, rel=1e-10, abs=1e-8
    )
    # the root does not change the maximum-likelihood fit
    other = tl.chow_liu(df, root=df.columns[-1], alpha=0)
    assert other.log_likelihood(df) == pytest.approx(best, rel=1e-10, abs=1e-8)


# ---------------------------------------------------------------- identity
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ml_loglik_identity(seed):
    rng = np.random.default_rng(seed)
    cards = [2, 3, 4, 3, 2, 4, 3]
    df = random_dependent_frame(500, cards, rng)
    model = tl.chow_liu(df, root="v3", alpha=0)
    n = len(df)
    edges = [(u, v) for u, v in model.graph.edges]
    sum_i = sum(mutual_information(df[u], df[v]) for u, v in edges)
    sum_h = sum(entropy(df[c]) for c in df.columns)
    expected = n * (sum_i - sum_h)
    assert model.log_likelihood(df) == pytest.approx(expected, rel=1e-11)
    assert tree_ml_loglik(df, edges) == pytest.approx(expected, rel=1e-11)
    # per-row values add up to the total
    assert model.log_likelihood(df, per_row=True).sum() == pytest.approx(expected, rel=1e-11)
    # edge weights are the mutual information
    for u, v in edges:
        assert model.graph.edges[u, v]["weight"] == pytest.approx(
            mutual_information(df[u], df[v]), abs=1e-12
        )


# ---------------------------------------------------------------- pgmpy TreeSearch
def _pgmpy_chow_liu(df: pd.DataFrame, root):
    from pgmpy.estimators import TreeSearch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TreeSearch(df, root_node=root, n_jobs=1).estimate("chow-liu", show_progress=False)


@pytest.mark.parametrize("name,size", [("asia", 5000), ("alarm", 2000)])
def test_same_edges_as_pgmpy_tree_search(name, size):
    df = pgmpy_sample(name, size, seed=0)
    root = df.columns[0]
    dag = _pgmpy_chow_liu(df, root)
    model = tl.chow_liu(df, root=root)
    assert undirected(model.graph.edges) == undirected(dag.edges())
    assert model.root == root
    assert all(model.graph.in_degree(v) == 1 for v in model.variables if v != root)


# ---------------------------------------------------------------- recovery
@pytest.mark.parametrize("seed", [0, 1])
def test_recovers_a_known_tree(seed):
    rng = np.random.default_rng(100 + seed)
    d = 12
    cards = [int(c) for c in rng.integers(2, 5, size=d)]
    edges, cpts = random_tree_network(d, cards, rng, strength=0.8)
    names = [f"x{j}" for j in range(d)]
    df = sample_tree_network(edges, cpts, 10_000, rng, names)
    model = tl.chow_liu(df, root="x0")
    truth = {frozenset((names[p], names[c])) for p, c in edges}
    assert undirected(model.graph.edges) == truth
    # rooted at x0, the edge directions are the generating ones
    assert set(model.graph.edges) == {(names[p], names[c]) for p, c in edges}


# ---------------------------------------------------------------- forests
def _components_and_roots(model):
    U = model.graph.to_undirected()
    comps = list(nx.connected_components(U))
    return comps, model.roots


def test_bic_forest_equal_cardinalities_drops_nonpositive_edges():
    rng = np.random.default_rng(7)
    d = 8
    cards = [3] * d
    # two independent trees: x0..x3 and x4..x7, weak links only by chance
    e1, c1 = random_tree_network(4, cards[:4], rng, strength=0.6)
    e2, c2 = random_tree_network(4, cards[4:], rng, strength=0.6)
    a = sample_tree_network(e1, c1, 400, rng, [f"x{j}" for j in range(4)])
    b = sample_tree_network(e2, c2, 400, rng, [f"x{j}" for j in range(4, 8)])
    df = pd.concat([a, b], axis=1)
    n = len(df)
    full = tl.chow_liu(df)
    penalty = (3 - 1) * (3 - 1) * np.log(n) / (2 * n)
    # same penalty on every edge: the forest is the tree minus edges with MI <= penalty
    expected = {
        frozenset((u, v))
        for u, v in full.graph.edges
        if mutual_information(df[u], df[v]) - penalty > 0
    }
    dropped = undirected(full.graph.edges) - expected
    assert dropped, "the test data should give at least one dropped edge"
    forest = tl.chow_liu(df, forest="bic", alpha=0)
    assert undirected(forest.graph.edges) == expected
    comps, roots = _components_and_roots(forest)
    assert len(roots) == len(comps) == d - len(expected)
    order = list(df.columns)
    for comp in comps:
        in_comp = [r for r in roots if r in comp]
        assert len(in_comp) == 1  # each tree its own root...
        assert in_comp[0] == min(comp, key=order.index)  # ...its first column
    for v in forest.variables:
        assert forest.graph.in_degree(v) == (0 if v in roots else 1)
    # forest LL is the sum of its edges' terms (identity holds for forests too)
    sum_i = sum(mutual_information(df[u], df[v]) for u, v in forest.graph.edges)
    sum_h = sum(entropy(df[c]) for c in df.columns)
    assert forest.log_likelihood(df) == pytest.approx(n * (sum_i - sum_h), rel=1e-11)


def test_bic_forest_mixed_cardinalities_matches_penalised_spanning_forest():
    rng = np.random.default_rng(11)
    cards = [2, 4, 3, 4, 2, 3]
    df = random_dependent_frame(400, cards, rng)
    n = len(df)
    cols = list(df.columns)
    k = {c: df[c].nunique() for c in cols}
    H = nx.Graph()
    H.add_nodes_from(cols)
    for u, v in itertools.combinations(cols, 2):
        w = mutual_information(df[u], df[v]) - (k[u] - 1) * (k[v] - 1) * np.log(n) / (2 * n)
        if w > 0:
            H.add_edge(u, v, weight=w)
    # brute force: the best forest among subsets of the positive edges that are acyclic
    _, best_set = best_forest(cols, {(u, v): w for u, v, w in H.edges(data="weight")}, 1e-12)
    assert 0 < len(best_set) < len(cols) - 1  # some edges kept, some dropped
    forest = tl.chow_liu(df, forest="bic")
    assert undirected(forest.graph.edges) == best_set
    for u, v in forest.graph.edges:
        assert forest.graph.edges[u, v]["weight"] == pytest.approx(
            mutual_information(df[u], df[v]), abs=1e-12
        )


def test_bic_forest_with_missing_values_penalises_each_pair_by_its_own_rows():
    rng = np.random.default_rng(12)
    df = random_dependent_frame(300, [2, 3, 2, 3, 2], rng)
    # knock out many values of two columns: their pairs are counted on far fewer rows
    df = df.astype(object)
    df.loc[rng.random(len(df)) < 0.7, df.columns[1]] = None
    df.loc[rng.random(len(df)) < 0.5, df.columns[3]] = None
    cols = list(df.columns)
    H = nx.Graph()
    H.add_nodes_from(cols)
    for u, v in itertools.combinations(cols, 2):
        both = df[[u, v]].dropna()
        n_uv = len(both)
        k_u, k_v = df[u].nunique(), df[v].nunique()
        w = mutual_information(both[u], both[v]) - (k_u - 1) * (k_v - 1) * np.log(n_uv) / (2 * n_uv)
        if w > 0:
            H.add_edge(u, v, weight=w)
    expected = {frozenset(e) for e in nx.maximum_spanning_tree(H).edges}
    forest = tl.chow_liu(df, forest="bic", missing="pairwise")
    assert undirected(forest.graph.edges) == expected


def test_threshold_forest():
    rng = np.random.default_rng(3)
    df = random_dependent_frame(400, [3, 2, 4, 3, 2, 3], rng)
    full = tl.chow_liu(df)
    mis = sorted(mutual_information(df[u], df[v]) for u, v in full.graph.edges)
    threshold = (mis[1] + mis[2]) / 2  # drops exactly the two weakest tree edges
    expected = {
        frozenset((u, v))
        for u, v in full.graph.edges
        if mutual_information(df[u], df[v]) > threshold
    }
    forest = tl.chow_liu(df, forest=threshold)
    assert undirected(forest.graph.edges) == expected
    assert len(forest.roots) == 3
    assert tl.chow_liu(df, forest=0.0).graph.number_of_edges() == len(df.columns) - 1
    assert tl.chow_liu(df, forest=10.0).graph.number_of_edges() == 0


def test_forest_with_root_roots_its_own_component_only():
    rng = np.random.default_rng(5)
    a = pd.DataFrame({"a": rng.integers(0, 2, 500)})
    a["b"] = a["a"]
    b = pd.DataFrame({"c": rng.integers(0, 2, 500)})
    b["d"] = 1 - b["c"]
    df = pd.concat([a, b], axis=1)
    forest = tl.chow_liu(df, root="d", forest="bic")
    assert set(forest.graph.edges) == {("a", "b"), ("d", "c")}
    # the root asked for comes first (it is model.root); the other tree gets its first column
    assert forest.roots == ["d", "a"]
    assert forest.root == "d"
    assert tl.chow_liu(df, forest="bic").roots == ["a", "c"]


def test_bad_forest_option():
    df = pd.DataFrame({"a": [0, 1], "b": [1, 0]})
    with pytest.raises(ValueError):
        tl.chow_liu(df, forest="mdl")
    with pytest.raises(ValueError):  # not silently a threshold of 1 nat
        tl.chow_liu(df, forest=True)


# ---------------------------------------------------------------- ties, determinism
def test_ties_broken_by_column_order():
    rng = np.random.default_rng(0)
    base = rng.integers(0, 3, 200)
    noise = (base + (rng.random(200) < 0.3)) % 3
    df = pd.DataFrame({"a": base, "b": base.copy(), "c": base.copy(), "z": noise})
    m = tl.chow_liu(df)
    assert set(m.graph.edges) == {("a", "b"), ("a", "c"), ("a", "z")}
    reordered = df[["c", "z", "b", "a"]]
    m2 = tl.chow_liu(reordered)
    assert set(m2.graph.edges) == {("c", "z"), ("c", "b"), ("c", "a")}


def test_ties_between_relabelled_copies_broken_by_column_order():
    # b is a relabelling of a whose states sort in another order, so MI(a, z) and
    # MI(b, z) are sums of the same terms in a different order: equal up to rounding
    rng = np.random.default_rng(8)
    for trial in range(5):
        a = rng.integers(0, 4, 500)
        labels = np.array(["w", "q", "z", "b"])
        z = np.where(rng.random(500) < 0.6, a, rng.integers(0, 4, 500))
        y = np.where(rng.random(500) < 0.5, z, rng.integers(0, 3, 500))
        df = pd.DataFrame({"a": a, "b": labels[a], "z": z, "y": y})
        m = tl.chow_liu(df)
        assert m.parents("b") == ["a"] and m.parents("z") == ["a"], trial
        m2 = tl.chow_liu(df[["b", "a", "z", "y"]])
        assert m2.parents("a") == ["b"] and m2.parents("z") == ["b"], trial


def test_same_data_same_tree_and_cpts():
    rng = np.random.default_rng(1)
    df = random_dependent_frame(300, [2, 3, 3, 2, 4, 2, 3, 3], rng)
    m1 = tl.chow_liu(df, alpha=0.5)
    m2 = tl.chow_liu(df.copy(), alpha=0.5)
    assert list(m1.graph.edges) == list(m2.graph.edges)
    assert m1 == m2
    for v in m1.variables:
        assert np.array_equal(m1.cpt(v), m2.cpt(v))


def test_root_none_is_first_column():
    rng = np.random.default_rng(2)
    df = random_dependent_frame(200, [2, 3, 4], rng)
    assert tl.chow_liu(df).root == "v0"
    assert tl.chow_liu(df[["v2", "v0", "v1"]]).root == "v2"


def test_constant_column_attached_deterministically():
    rng = np.random.default_rng(4)
    df = random_dependent_frame(300, [3, 3, 2, 3], rng)
    df.insert(2, "const", "k")
    G = tl.mi_graph(df)
    for other in df.columns:
        if other != "const":
            assert G["const"][other]["weight"] == 0.0
    m = tl.chow_liu(df)
    assert m.states["const"] == ["k"]
    # its earliest edge in column order, (v0, const), wins the tie of zero weights
    assert m.parents("const") == ["v0"]
    assert m.cpt("const").shape == (3, 1)
    assert np.all(m.cpt("const") == 1.0)
    assert tl.chow_liu(df) == m


def test_single_column_is_one_node_model():
    df = pd.DataFrame({"only": ["a", "b", "b", "c", "b"]})
    m = tl.chow_liu(df, alpha=0)
    assert list(m.graph.nodes) == ["only"] and m.graph.number_of_edges() == 0
    assert m.root == "only"
    assert m.log_likelihood(df) == pytest.approx(-len(df) * entropy(df["only"]), rel=1e-12)
    assert m.n_parameters == 2


# ---------------------------------------------------------------- graph stages
def test_stages_compose_like_chow_liu():
    rng = np.random.default_rng(9)
    df = random_dependent_frame(300, [2, 3, 4, 3, 2], rng)
    G = tl.mi_graph(df)
    assert G.number_of_edges() == 10 and G.graph["n"] == 300
    assert G.nodes["v2"]["states"] == [0, 1, 2, 3]
    T = nx.maximum_spanning_tree(G)
    D = tl.orient(T, root="v3")
    m = tl.fit_cpts(D, df)
    ref = tl.chow_liu(df, root="v3")
    assert undirected(D.edges) == undirected(ref.graph.edges)
    assert set(D.edges) == set(ref.graph.edges)
    for v in ref.variables:
        np.testing.assert_allclose(m.cpt(v), ref.cpt(v), atol=1e-15)


def test_orient_errors_and_inputs_untouched():
    T = nx.Graph([("a", "b"), ("b", "c")])
    before = nx.to_dict_of_dicts(T)
    D = tl.orient(T, root="b")
    assert set(D.edges) == {("b", "a"), ("b", "c")}
    assert nx.to_dict_of_dicts(T) == before
    with pytest.raises(tl.ColumnNotFoundError, match="'zz'"):
        tl.orient(T, root="zz")
    with pytest.raises(tl.StructureError):
        tl.orient(nx.Graph([("a", "b"), ("b", "c"), ("c", "a")]))


@pytest.mark.parametrize("seed", range(4))
def test_orient_of_a_large_forest_is_the_breadth_first_one(monkeypatch, seed):
    """From 5,000 nodes orient takes its parents from one scipy search: the same graph
    (nodes, edges, their order and attributes, roots) as networkx's search gives."""
    from treelearn.structure import _trees

    rng = np.random.default_rng(seed)
    d = 5000 + int(rng.integers(0, 1500))
    names = [f"v{k}" for k in rng.permutation(d)] if seed % 2 else rng.permutation(d).tolist()
    T = nx.Graph(n=3)
    T.add_nodes_from((v, {"states": [0, 1]}) for v in names)
    order = rng.permutation(d)
    for k in range(1, d):  # each node joined to an earlier one; a few left out: a forest
        if seed >= 2 and rng.random() < 0.01:
            continue
        a, b = names[order[k]], names[order[rng.integers(0, k)]]
        T.add_edge(*((a, b) if rng.random() < 0.5 else (b, a)), weight=float(rng.random()))
    root = None if seed == 2 else names[int(rng.integers(0, d))]
    before = nx.to_dict_of_dicts(T)

    def listed(D):
        return (
            list(D.nodes(data=True)),
            list(D.edges(data=True)),
            D.graph,
            [list(D.pred[v]) for v in D],
        )

    fast = tl.orient(T, root)
    monkeypatch.setattr(_trees, "GC_PAUSE_NODES", 10**9)  # networkx's search
    assert listed(fast) == listed(tl.orient(T, root))
    assert nx.to_dict_of_dicts(T) == before
    u, v = next(iter(fast.edges))
    assert fast.edges[u, v] is not T.edges[u, v]  # the model's edges are its own
    monkeypatch.undo()
    T.add_edge(names[0], names[1])
    T.add_edge(names[1], names[2])
    T.add_edge(names[2], names[0])
    with pytest.raises(tl.StructureError, match="cycle"):
        tl.orient(T)


def test_tree_model_copies_its_graph_unless_told_not_to():
    G = nx.DiGraph([("a", "b")])
    G.nodes["a"].update(states=[0, 1], cpt=[0.5, 0.5])
    G.nodes["b"].update(states=[0, 1], cpt=[[1, 0], [0, 1]])
    kept = tl.TreeModel(G)
    assert kept.graph is not G and "parents" not in G.nodes["a"]
    own = tl.TreeModel(G, copy=False)
    assert own.graph is G and G.nodes["b"]["parents"] == ["a"]
    assert own == kept


def test_root_not_a_column():
    df = pd.DataFrame({"a": [0, 1, 0], "b": [1, 1, 0]})
    with pytest.raises(tl.ColumnNotFoundError, match="'nope'"):
        tl.chow_liu(df, root="nope")


# ---------------------------------------------------------------------- Hypothesis: random tables, weights
@FAST
@given(tables())
def test_chow_liu_is_the_best_of_every_spanning_tree(data):
    df, w = data
    try:
        model = tl.chow_liu(df, sample_weight=w, alpha=0)
    except tl.TreelearnError:
        return
    cache: dict = {}  # each column's and pair's weighted counts, once
    best = max(
        tree_ml_loglik(df, tree, weights=w, cache=cache) for tree in spanning_trees(df.columns)
    )
    got = model.log_likelihood(df, sample_weight=w)
    assert got == pytest.approx(best, rel=1e-9, abs=1e-9)
    # every CPT is a distribution, with no negative round-off
    for v in model.variables:
        cpt = np.asarray(model.cpt(v))
        assert (cpt >= 0).all() and np.allclose(cpt.sum(axis=-1), 1, atol=1e-12)


def test_the_property_tests_reach_their_oracles():
    # the properties return early on a TreelearnError; most drawn tables must not
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reached = 0
        for seed in range(10):
            rng = np.random.default_rng(seed)
            df = pd.DataFrame(rng.integers(0, 2, size=(20, 3)), columns=["a", "b", "c"])
            df.iloc[:2] = [[0, 0, 0], [1, 1, 1]]
            try:
                tl.chow_liu(df, sample_weight=rng.random(20), alpha=0)
                tl.NaiveBayes().fit(df[["a", "b"]], df["c"], sample_weight=rng.random(20))
                reached += 1
            except tl.TreelearnError:
                pass
    assert reached == 10


# ---------------------------------------------------------------------------------- hostile inputs
LABELS = st.one_of(
    st.integers(-3, 3),
    st.sampled_from(["x", "y", "é,\n", ""]),
    st.booleans(),
    st.none(),
    st.just(float("nan")),
    st.floats(-2, 2, allow_nan=False),
)


NAMES = st.text(st.characters(codec="utf-8"), min_size=0, max_size=4)


@st.composite
def frames(draw):
    names = draw(st.lists(NAMES, min_size=0, max_size=3, unique=True))
    n = draw(st.integers(0, 3))
    return pd.DataFrame(
        {c: pd.Series(draw(st.lists(LABELS, min_size=n, max_size=n)), dtype=object) for c in names}
    )


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(frames(), st.sampled_from(["error", "drop", "pairwise"]))
def test_random_frames_error_or_correct(tmp_path_factory, df, missing):
    original = df.copy()
    try:
        model = tl.chow_liu(df, missing=missing, alpha=1)
    except tl.TreelearnError:
        return
    finally:
        pd.testing.assert_frame_equal(df, original)  # never mutates the caller's frame
    path = tmp_path_factory.mktemp("h") / "m.json"
    model.save(path)
    loaded = tl.load(path)
    assert loaded == model
    complete = df.dropna()
    if len(complete):
        brute = sum(log_joint_probability(model, row) for _, row in complete.iterrows())
        assert loaded.log_likelihood(complete) == pytest.approx(brute)
    v = model.variables[-1]
    q = loaded.query(v)
    assert np.asarray(q).sum() == pytest.approx(1.0)
    if len(model.variables) >= 2 and len(complete) >= 2:
        y = complete[v]
        try:
            clf = tl.NaiveBayes().fit(complete.drop(columns=[v]), y)
        except tl.TreelearnError:
            return
        assert set(clf.predict(complete.drop(columns=[v])).tolist()) <= set(clf.classes_.tolist())
