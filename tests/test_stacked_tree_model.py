"""A TreeModel held as stacked CPTs (issue 41: sparse Chow-Liu without a networkx graph per
fit): every attribute and method of a stacked model equals the eager model's, the
reference built the old way from the same CPTs (``build_model`` on the directed tree for
the sparse learner; ``TreeModel(graph)`` for dense learners' forests), before and after its
graph is built; pickling, ``tl.save`` / ``tl.load`` and ``to_pgmpy`` give the same."""

import pickle

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import treelearn as tl
import treelearn.sources._count
from treelearn.learners._chow_liu import build_model
from treelearn.models._tree import StackedTree
from treelearn.stats._settings import LearningSettings
from treelearn.structure import _sparse_chow_liu as scl


def corpus(seed, n=60, d=45, weights=False, dtype=np.int8):
    """0/1 documents x terms: empty documents, a term in every document, an empty term,
    copied terms (tied MI), frequent terms among rare ones; optional row weights."""
    rng = np.random.default_rng(seed)
    p = np.where(rng.random(d) < 0.2, 0.5, 0.06)
    X = (rng.random((n, d)) < p).astype(dtype)
    X[rng.choice(n, 4, replace=False)] = 0
    X[:, 3] = 1
    X[:, 5] = 0
    X[:, 7] = X[:, 8]
    w = rng.uniform(0.5, 2.0, n) if weights else None
    return X, w


def graph_built(model):
    return model.__dict__.get("_graph") is not None


def assert_same_model(model, reference, frame):
    """Everything a user can read from the two models is equal (values, types, order)."""
    assert type(model.variables) is list and model.variables == reference.variables
    assert model.states == reference.states
    assert model.roots == reference.roots and model.root == reference.root
    assert model.parent_map == reference.parent_map
    assert list(model.cpts) == list(reference.cpts)
    for v in reference.variables:
        assert model.parents(v) == reference.parents(v)
        mine, theirs = model.cpt(v), reference.cpt(v)
        assert mine.dtype == theirs.dtype and mine.shape == theirs.shape
        assert np.array_equal(mine, theirs), v
    assert model.n_parameters == reference.n_parameters
    assert model.dtypes == reference.dtypes and model.n_rows == reference.n_rows
    assert model.settings == reference.settings
    for got, want in zip(model.log_cpt_index(), reference.log_cpt_index()):
        assert got.dtype == want.dtype and np.array_equal(got, want)
    # scoring (complete rows one gather, rows with missing cells through the engine)
    holes = frame.astype(object).copy()
    holes.iloc[::3, 1] = None
    for data in (frame, holes):
        assert np.array_equal(model.score_samples(data), reference.score_samples(data))
    pd.testing.assert_frame_equal(
        model.sample(50, random_state=0), reference.sample(50, random_state=0)
    )
    first, last = reference.variables[0], reference.variables[-1]
    evidence = {last: reference.states[last][-1]}
    pd.testing.assert_series_equal(
        model.query([first], evidence), reference.query([first], evidence)
    )
    pd.testing.assert_frame_equal(
        model.marginals(as_frame=True), reference.marginals(as_frame=True)
    )
    pd.testing.assert_frame_equal(
        model.predict_proba(frame.head(5), first), reference.predict_proba(frame.head(5), first)
    )
    assert model == reference and reference == model


def assert_same_graph(model, reference):
    """The lazily built graph is the eager one: node attributes (keys in order), edges in
    order with their attributes, the graph's own attributes."""
    G, H = model.graph, reference.graph
    assert isinstance(G, nx.DiGraph)
    assert list(G.nodes) == list(H.nodes)
    for v in H:
        a, b = G.nodes[v], H.nodes[v]
        assert list(a) == list(b), v
        assert a["states"] == b["states"] and a["parents"] == b["parents"]
        assert a["cpt"].dtype == b["cpt"].dtype and np.array_equal(a["cpt"], b["cpt"])
    assert list(G.edges(data=True)) == list(H.edges(data=True))
    assert G.graph == H.graph and list(G.graph) == list(H.graph)


def sparse_pair(monkeypatch, X, w, root):
    """The stacked model ``tl.chow_liu`` learns and the reference ``build_model`` makes from
    the same counts' directed tree (the way the sparse path built it before)."""
    names = [f"t{j}" for j in range(X.shape[1])]
    monkeypatch.setattr(treelearn.sources._count, "SPARSE_CHOW_LIU_MIN_COLUMNS", 10)
    model = tl.chow_liu(sp.csr_matrix(X), names=names, root=root, sample_weight=w)
    stats = scl.sparse_binary_statistics(sp.csr_matrix(X), names, sample_weight=w)
    settings = LearningSettings(method="chow-liu", root=root)
    tree = scl.sparse_spanning_tree(stats, root)
    reference = build_model(tree, stats, settings, description=model.settings, owned=True)
    frame = pd.DataFrame(X, columns=names)
    return model, reference, frame


@pytest.mark.parametrize(
    "seed, weights, dtype, root",
    [
        (0, False, np.int8, None),
        (1, False, np.int8, "t2"),
        (2, True, np.int8, "t5"),  # row weights: float counts; the root an empty term
        (3, False, np.bool_, "t3"),  # bool: every column two states
        (4, False, np.float32, None),
        (5, True, np.float64, "t9"),
    ],
)
def test_sparse_stacked_model_equals_build_model(monkeypatch, tmp_path, seed, weights, dtype, root):
    X, w = corpus(seed, weights=weights, dtype=dtype)
    model, reference, frame = sparse_pair(monkeypatch, X, w, root)
    assert model.counts is None and not graph_built(model)  # the sparse path, stacked
    assert_same_model(model, reference, frame)
    assert not graph_built(model)  # all of it answered from the stacks
    # text and files: the graph is built (once) and the output is the same bytes
    a, b = tmp_path / "stacked.json", tmp_path / "eager.json"
    model.save(a)
    reference.save(b)
    assert a.read_bytes() == b.read_bytes()
    assert graph_built(model)
    assert model.to_text() == reference.to_text()
    assert_same_graph(model, reference)
    assert_same_model(model, reference, frame)  # from the graph now
    loaded = tl.load(a)
    c = tmp_path / "again.json"
    loaded.save(c)
    assert c.read_bytes() == a.read_bytes()
    assert_same_model(loaded, tl.load(b), frame)  # (a file keeps n_rows as an integer)


def test_sparse_stacked_model_pickles_and_exports(monkeypatch, tmp_path):
    X, w = corpus(7)
    model, reference, frame = sparse_pair(monkeypatch, X, w, "t1")
    copy = pickle.loads(pickle.dumps(model))  # before its graph is built
    assert not graph_built(copy)
    assert_same_model(copy, reference, frame)
    assert_same_graph(copy, reference)
    copy.save(tmp_path / "a.json")
    reference.save(tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    again = pickle.loads(pickle.dumps(copy))  # after
    assert graph_built(again)
    assert_same_graph(again, reference)
    # pgmpy: the same network (edges, each CPD's values and state names)
    mine, theirs = model.to_pgmpy(), reference.to_pgmpy()
    assert sorted(mine.edges()) == sorted(theirs.edges())
    for cpd in theirs.get_cpds():
        other = mine.get_cpds(cpd.variable)
        assert other.state_names == cpd.state_names
        assert np.array_equal(other.get_values(), cpd.get_values())


def stacked_from(reference):
    """A StackedTree of an eager forest model's CPTs, grouped by shape."""
    variables = reference.variables
    position = {v: i for i, v in enumerate(variables)}
    parent = np.array(
        [position[p[0]] if p else -1 for p in (reference.parents(v) for v in variables)]
    )
    shapes: dict[tuple, list] = {}
    for i, v in enumerate(variables):
        shapes.setdefault(reference.cpt(v).shape, []).append(i)
    group = np.zeros(len(variables), dtype=np.int64)
    tables = []
    for g, members in enumerate(shapes.values()):
        group[members] = g
        tables.append(np.array([reference.cpt(variables[i]) for i in members]))
    child = np.array([position[v] for _, v in reference.graph.edges])
    weighted = all("weight" in e for *_, e in reference.graph.edges(data=True))
    weight = np.zeros(len(variables))
    if weighted:
        for _, v, x in reference.graph.edges(data="weight"):
            weight[position[v]] = x
    return StackedTree(
        list(variables),
        [reference.states[v] for v in variables],
        parent,
        child,
        weight if weighted else None,
        group,
        tables,
        dict(reference.graph.graph),
    )


@pytest.mark.parametrize("forest", [None, "bic"])
def test_dense_models_stacked_the_same(tmp_path, forest):
    # multi-state variables (asia's, and a 4-state column), a tree and a BIC forest
    df = pd.read_csv("datasets/asia.csv").head(400)
    df["four"] = np.arange(len(df)) % 4
    learned = tl.chow_liu(df, forest=forest)
    # a StackedTree's edges carry the weight only (the BIC forest's also its penalised one)
    G = learned.graph.copy()
    for *_, attributes in G.edges(data=True):
        for key in [k for k in attributes if k != "weight"]:
            del attributes[key]
    reference = tl.TreeModel(
        G, dtypes=learned.dtypes, n_rows=learned.n_rows, settings=learned.settings
    )
    assert forest is None or len(reference.roots) > 1  # a forest indeed
    model = tl.TreeModel.from_stacked(
        stacked_from(reference),
        dtypes=reference.dtypes,
        n_rows=reference.n_rows,
        settings=reference.settings,
    )
    assert_same_model(model, reference, df)
    assert not graph_built(model)
    model.save(tmp_path / "a.json")
    reference.save(tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert_same_graph(model, reference)


def small_stacked(cpt_b=((0.9, 0.1), (0.2, 0.8)), parent=(-1, 0)):
    return StackedTree(
        ["a", "b"],
        [["x", "y"], ["u", "v"]],
        np.array(parent),
        np.array([1]),
        None,
        np.array([0, 1]),
        [np.array([[0.5, 0.5]]), np.array([cpt_b], dtype=float)],
        {"roots": ["a"]},
    )


def test_stacked_model_checks_and_errors():
    with pytest.raises(tl.StructureError, match=r"variable .b.: CPT row \[1\] sums to 0.9"):
        tl.TreeModel.from_stacked(small_stacked(cpt_b=((0.9, 0.1), (0.2, 0.7))))
    with pytest.raises(tl.StructureError, match="variable 'b': the CPT has negative"):
        tl.TreeModel.from_stacked(small_stacked(cpt_b=((1.1, -0.1), (0.2, 0.8))))
    s = small_stacked()
    s.parent = np.array([1, 0])  # a cycle
    with pytest.raises(tl.StructureError, match="directed acyclic"):
        tl.TreeModel.from_stacked(s)
    s = small_stacked()
    s.tables[1] = np.array([[[0.5, 0.5]]])  # a parent of 2 states, one row
    with pytest.raises(tl.StructureError, match="node 'b'"):
        tl.TreeModel.from_stacked(s)
    s = small_stacked()
    s.group = np.array([0, 2])  # no third table
    with pytest.raises(tl.StructureError, match="groups must index its tables"):
        tl.TreeModel.from_stacked(s)
    m = tl.TreeModel.from_stacked(small_stacked())
    for call in (lambda: m.cpt("c"), lambda: m.parents("c"), lambda: m.query("c")):
        with pytest.raises(tl.ColumnNotFoundError, match="'c' is not a variable"):
            call()
    with pytest.raises(tl.ColumnNotFoundError):
        m.query("a", evidence={"c": "u"})
    assert not graph_built(m)
    # P(b = v | a = y) = 0.8 by hand; P(b = v) = 0.5 * 0.1 + 0.5 * 0.8
    assert m.query("b", evidence={"a": "y"}).tolist() == [0.2, 0.8]
    assert m.query("b").round(12).tolist() == [0.55, 0.45]


def test_graph_set_later_replaces_the_stacks():
    m = tl.TreeModel.from_stacked(small_stacked())
    assert m.query("b").round(12).tolist() == [0.55, 0.45]  # an engine of the stacks
    other = tl.TreeModel.from_stacked(small_stacked(cpt_b=((0.5, 0.5), (0.5, 0.5)))).graph
    m.graph = other
    assert m.query("b").round(12).tolist() == [0.5, 0.5]  # a new engine of the new graph
    assert m.cpt("b").tolist() == [[0.5, 0.5], [0.5, 0.5]]
    flat = m.log_cpt_index()[0]
    assert np.allclose(np.exp(flat), [0.5, 0.5, 0.5, 0.5, 0.5, 0.5])


def test_model_pickled_with_a_graph_attribute_loads():
    # before the graph became a property a pickled model's state held "graph" itself
    m = tl.chow_liu(pd.read_csv("datasets/asia.csv"))
    assert m.graph is m.__dict__["_graph"]  # built now: the state such a model had
    state = {("graph" if k == "_graph" else k): v for k, v in m.__dict__.items()}
    del state["_stacked"], state["_token"]
    old = tl.TreeModel.__new__(tl.TreeModel)
    old.__setstate__(state)
    assert old.graph is state["graph"] and old == m
    assert old.query("lung", evidence={"smoke": "yes"}).equals(
        m.query("lung", evidence={"smoke": "yes"})
    )
