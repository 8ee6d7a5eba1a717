"""The dense Chow-Liu tree's model held as stacked CPTs (issue 41: a fit's fixed costs).

``tl.chow_liu`` on a table in memory makes its spanning tree's model from arrays
(:func:`treelearn.learners._dense_model.dense_tree_model`), its networkx graph built when
first read. The reference is the construction it replaces, run on the same statistics:
``build_model(oriented_skeleton(...), stats, settings, owned=True, ...)`` (nodes, edges,
attributes and their order, every CPT to the bit, the saved bytes, the pair counts kept
for ``partial_fit``), across data kinds and options: several states and text labels, row
weights, missing cells counted pairwise, each prior, ``mi_alpha``, a root given as a numpy
string, white- and blacklists (a forest by blacklisting). A ``forest=`` fit still takes the
graph path (its edges carry a second attribute). The tree itself is checked against every
spanning tree of a small table (brute force).
"""

import itertools
import pickle

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import mutual_information
from test_stacked_tree_model import assert_same_graph, assert_same_model, graph_built

import treelearn as tl
from treelearn.learners._chow_liu import build_model, chow_liu_from_counts, pairwise_corrected
from treelearn.learners._dense_model import dense_tree_model
from treelearn.sources._count import count
from treelearn.stats._settings import LearningSettings
from treelearn.structure._trees import oriented_skeleton, oriented_tree_arrays


def table(seed, n=300):
    """Binary, three-state, text and one-state columns; a copied column (tied MI)."""
    rng = np.random.default_rng(seed)
    a = (rng.random(n) < 0.4).astype(np.int64)
    b = np.where(rng.random(n) < 0.8, a, 1 - a)
    c = np.where(rng.random(n) < 0.6, b + rng.integers(0, 2, n), rng.integers(0, 3, n))
    d = np.array(["x", "y", "z"])[np.where(rng.random(n) < 0.7, c, rng.integers(0, 3, n))]
    return pd.DataFrame(
        {
            "a": a,
            "b": b,
            "c": c,
            "d": d,
            "e": b.copy(),
            "one": np.full(n, 7),
            "f": rng.random(n) < 0.5,
        }
    )


def eager_reference(data, settings, sample_weight=None):
    """The model the old last stage made from the same statistics (chow_liu_from_counts
    before the stacked path): the directed tree's graph, then build_model on it."""
    missing = settings.missing
    stats = count(data, missing=missing, sample_weight=sample_weight)
    mi = stats.mutual_information(settings.mi_alpha)
    if settings.mi_alpha is None and missing == "pairwise":
        mi = pairwise_corrected(mi, stats, stats.columns)
    structure = oriented_skeleton(
        list(stats.columns),
        mi,
        stats.states,
        root=settings.root,
        n=stats.n_rows,
        whitelist=settings.whitelist,
        blacklist=settings.blacklist,
    )
    return build_model(structure, stats, settings, counts=stats.counts, owned=True)


CASES = [
    ({}, None),
    ({"root": "c", "alpha": 0.0}, None),
    ({"root": np.str_("d"), "prior": "bdeu", "equivalent_sample_size": 3.0}, None),
    ({"prior": "m-estimate", "m": 2.5, "mi_alpha": 0.5}, None),
    ({"whitelist": (("a", "d"),), "blacklist": (("a", "b"), ("b", "e"))}, None),
    ({"blacklist": tuple((x, "f") for x in "abcde") + (("one", "f"),)}, None),  # a forest
    ({"root": "b"}, "weights"),
    ({"root": "e", "missing": "pairwise"}, "holes"),
]


@pytest.mark.parametrize("seed, case", list(enumerate(CASES)))
def test_stacked_dense_model_equals_the_graph_construction(tmp_path, seed, case):
    options, extra = case
    df = table(seed)
    w = None
    if extra == "weights":
        w = np.random.default_rng(seed).uniform(0.2, 3.0, len(df))
    if extra == "holes":
        df = df.astype(object)
        df.iloc[::7, 2] = None
        df.iloc[::11, 3] = None
    settings = LearningSettings(method="chow-liu", **options)
    model = tl.chow_liu(
        df,
        sample_weight=w,
        **{k: (list(v) if k in ("whitelist", "blacklist") else v) for k, v in options.items()},
    )
    reference = eager_reference(df, settings, sample_weight=w)
    assert not graph_built(model)  # the stacked path
    assert model.counts is not None and model.learner is not None
    assert np.array_equal(model.counts.joint, reference.counts.joint)
    assert model.counts.joint.dtype == reference.counts.joint.dtype
    assert_same_model(model, reference, df.dropna() if extra == "holes" else df)
    assert not graph_built(model)  # all of it answered from the stacks
    a, b = tmp_path / "stacked.json", tmp_path / "eager.json"
    model.save(a)
    reference.save(b)
    assert a.read_bytes() == b.read_bytes()
    assert model.to_text() == reference.to_text()
    assert graph_built(model)
    assert_same_graph(model, reference)
    if "blacklist" in options and extra is None and len(options) == 1:
        assert len(model.roots) == 2  # f is cut off: a forest of two trees


def test_stacked_dense_model_pickles_and_learns_on(tmp_path):
    df = table(11)
    model = tl.chow_liu(df, root="c")
    reference = eager_reference(df, LearningSettings(method="chow-liu", root="c"))
    copy = pickle.loads(pickle.dumps(model))  # before its graph is built
    assert not graph_built(copy)
    assert_same_model(copy, reference, df)
    assert_same_graph(copy, reference)
    # partial_fit: the kept counts plus the new rows learn the model of all the rows
    more = table(12, n=120)
    grown = model.partial_fit(more)
    whole = tl.chow_liu(pd.concat([df, more], ignore_index=True), root="c")
    assert_same_model(grown, whole, df)
    assert_same_graph(grown, whole)


def test_forest_option_keeps_the_graph_path():
    df = table(3)
    model = tl.chow_liu(df, forest="bic")
    assert graph_built(model)  # its edges carry penalised_weight too: built eagerly
    assert all("penalised_weight" in e for *_, e in model.graph.edges(data=True))


def test_dense_tree_model_declines_statistics_without_pair_blocks():
    df = table(4)
    stats = count(df)  # pair counts not computed yet: the families are not blocks of them
    settings = LearningSettings(method="chow-liu")
    assert not stats.tree_families_from_pairs()
    assert stats.family_count_stacks(np.full(len(stats.columns), -1)) is None
    mi = stats.mutual_information()  # computes them
    assert stats.tree_families_from_pairs()
    model = dense_tree_model(stats, mi, settings)
    assert model is not None and not graph_built(model)
    assert_same_model(model, chow_liu_from_counts(stats, settings), df)


def test_tree_arrays_match_the_directed_graph():
    # oriented_tree_arrays against oriented_skeleton's graph, on random weights with ties
    rng = np.random.default_rng(5)
    for d in (1, 2, 5, 9):
        W = np.round(rng.random((d, d)), 1)
        W = W + W.T
        names = [f"v{j}" for j in range(d)]
        for root in (None, names[-1]):
            parent, child, weight, roots = oriented_tree_arrays(names, W, root=root)
            D = oriented_skeleton(names, W, root=root)
            assert [(names[parent[c]], names[c]) for c in child] == list(D.edges)
            assert weight[child].tolist() == [x for *_, x in D.edges(data="weight")]
            assert roots == D.graph["roots"]
            assert [i for i in range(d) if parent[i] < 0] == [
                i for i, v in enumerate(names) if not D.pred[v]
            ]


def test_the_tree_is_the_best_spanning_tree_by_brute_force():
    # 5 columns: all 125 spanning trees scored by the MI sum of the oracle's plug-in MI
    df = table(6)[["a", "b", "c", "d", "f"]]
    columns = list(df.columns)
    mi = {
        frozenset((u, v)): mutual_information(df[u], df[v])
        for u, v in itertools.combinations(columns, 2)
    }
    best = None
    for edges in itertools.combinations(mi, len(columns) - 1):
        G = nx.Graph([tuple(e) for e in edges])
        if G.number_of_nodes() == len(columns) and nx.is_tree(G):
            total = sum(mi[e] for e in edges)
            best = total if best is None else max(best, total)
    model = tl.chow_liu(df)
    assert not graph_built(model)
    chosen = sum(mi[frozenset((p, v))] for v, ps in model.parent_map.items() for p in ps)
    assert chosen == pytest.approx(best, rel=1e-12)  # sums of the same logs, reordered
