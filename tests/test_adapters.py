"""One CPT check for every way in (TreeModel, JSON files, pgmpy), models that copy the graph
they are given, and the save/load/pgmpy adapters without import cycles."""

from __future__ import annotations

import ast
import json
import os

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import pgmpy_example

import treelearn as tl
from treelearn.stats._parameters import CPT_SUM_TOLERANCE, check_cpt

PACKAGE = os.path.dirname(tl.__file__)


def _two_node_graph(cpt_b):
    G = nx.DiGraph([("a", "b")])
    G.nodes["a"].update(states=["x", "y"], cpt=[0.25, 0.75])
    G.nodes["b"].update(states=[0, 1, 2], cpt=cpt_b)
    return G


# ------------------------------------------------------------------ check_cpt
def test_check_cpt_names_the_variable_the_row_and_its_sum():
    with pytest.raises(
        tl.StructureError, match=r"^variable 'lung': CPT row \[1\] sums to 0.9, not 1$"
    ):
        check_cpt("lung", [[0.5, 0.5], [0.7, 0.2]])
    # two parents: the first bad row in C order is [1, 0], summing to 0.25 + 0.25 + 0.25
    cpt = np.full((2, 2, 3), 1 / 3)
    cpt[1, 0] = [0.25, 0.25, 0.25]
    cpt[1, 1] = [0.5, 0.5, 0.5]
    with pytest.raises(tl.StructureError, match=r"'v': CPT row \[1, 0\] sums to 0.75, not 1"):
        check_cpt("v", cpt)
    with pytest.raises(tl.StructureError, match=r"^variable 'r': the CPT sums to 1.5, not 1$"):
        check_cpt("r", [0.5, 1.0])


def test_check_cpt_shape_entries_and_copy():
    with pytest.raises(
        tl.StructureError, match=r"'v': the CPT has shape \(2,\), expected \(2, 2\)"
    ):
        check_cpt("v", [0.5, 0.5], shape=(2, 2))
    with pytest.raises(tl.StructureError, match="'v': the CPT has negative or non-finite"):
        check_cpt("v", [1.5, -0.5])
    with pytest.raises(tl.StructureError, match="'v': the CPT has negative or non-finite"):
        check_cpt("v", [np.nan, 1.0])
    with pytest.raises(tl.StructureError, match="not a rectangular array of numbers"):
        check_cpt("v", [[0.5, 0.5], [1.0]])
    given = np.array([[0.5, 0.5], [0.1, 0.9]])
    out = check_cpt("v", given, shape=[2, 2])
    assert out.dtype == np.float64 and np.array_equal(out, given) and out is not given
    assert np.array_equal(check_cpt("v", [[1, 0]]), [[1.0, 0.0]])  # integers become floats


def test_one_tolerance_accepts_what_is_within_it_and_pgmpy_alarm():
    inside, outside = 1 - CPT_SUM_TOLERANCE / 2, 1 - 2 * CPT_SUM_TOLERANCE
    check_cpt("v", [inside - 0.5, 0.5])
    with pytest.raises(tl.StructureError):
        check_cpt("v", [outside - 0.5, 0.5])
    # pgmpy's bundled alarm CPDs sum to 1 only within about 1e-7: accepted everywhere
    bn = pgmpy_example("alarm")
    worst = max(np.abs(np.asarray(c.values).sum(axis=0) - 1).max() for c in bn.get_cpds())
    assert 0 < worst < CPT_SUM_TOLERANCE
    m = tl.from_pgmpy(bn)
    assert tl.TreeModel.from_dict(m.to_dict()) == m


def test_the_same_check_in_the_model_the_loader_and_from_pgmpy():
    bad = [[0.5, 0.5, 0.0], [0.7, 0.2, 0.0]]  # row [1] sums to 0.9
    message = r"variable 'b': CPT row \[1\] sums to 0.9, not 1"
    with pytest.raises(tl.StructureError, match=message):
        tl.TreeModel(_two_node_graph(bad))
    d = tl.TreeModel(_two_node_graph([[0.5, 0.5, 0.0], [0.7, 0.3, 0.0]])).to_dict()
    d["nodes"][1]["cpt"] = bad
    with pytest.raises(tl.InvalidModelError, match=message):
        tl.TreeModel.from_dict(d)
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    bn = DiscreteBayesianNetwork([("a", "b")])
    bn.add_cpds(
        TabularCPD("a", 2, [[0.25], [0.75]], state_names={"a": ["x", "y"]}),
        TabularCPD(
            "b",
            3,
            np.array(bad).T,
            evidence=["a"],
            evidence_card=[2],
            state_names={"b": [0, 1, 2], "a": ["x", "y"]},
        ),
    )
    with pytest.raises(tl.StructureError, match=message):
        tl.from_pgmpy(bn)


# ------------------------------------------------------------------ TreeModel copies its graph
def test_tree_model_leaves_the_callers_graph_unchanged():
    cpt_b = [[0.5, 0.25, 0.25], [0.0, 0.0, 1.0]]  # lists of Python numbers, no 'parents'
    G = _two_node_graph(cpt_b)
    G.graph["roots"] = ["a"]
    before_nodes = {v: dict(d) for v, d in G.nodes(data=True)}
    before_edges = list(G.edges(data=True))
    before_graph = dict(G.graph)
    m = tl.TreeModel(G)
    assert {v: dict(d) for v, d in G.nodes(data=True)} == before_nodes
    assert "parents" not in G.nodes["b"]
    assert G.nodes["b"]["cpt"] is cpt_b and isinstance(G.nodes["a"]["cpt"], list)
    assert list(G.edges(data=True)) == before_edges and G.graph == before_graph
    assert m.parents("b") == ["a"] and m.cpt("b").dtype == np.float64
    # and later changes to the caller's graph or arrays do not reach the model
    array = np.array([0.5, 0.5])
    H = nx.DiGraph()
    H.add_node("z", states=[0, 1], cpt=array)
    model = tl.TreeModel(H)
    H.nodes["z"]["states"] = [7]
    array[:] = [1.0, 0.0]
    H.add_node("extra")
    assert model.states == {"z": [0, 1]} and model.cpt("z").tolist() == [0.5, 0.5]
    assert model.variables == ["z"]


def test_cpts_and_parent_map_are_public():
    df = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]})
    m = tl.chow_liu(df, root="a", alpha=0)
    assert m.parent_map == {"a": [], "b": ["a"]}
    # b given a: a = 0 -> b always 0; a = 1 -> b = 1 and 0 once each
    assert {v: c.tolist() for v, c in m.cpts.items()} == {
        "a": [0.5, 0.5],
        "b": [[1.0, 0.0], [0.5, 0.5]],
    }


# ------------------------------------------------------------------ dicts and files
def test_to_dict_from_dict_and_save_without_io(tmp_path):
    df = pd.DataFrame({"a": ["x", "y", "y", "x"], "b": [True, False, False, True]})
    m = tl.chow_liu(df)
    d = m.to_dict()
    json.dumps(d, allow_nan=False)  # plain JSON
    assert tl.TreeModel.from_dict(json.loads(json.dumps(d))) == m
    m.save(tmp_path / "m.json")
    tl.save(m, tmp_path / "n.json")
    assert (tmp_path / "m.json").read_text() == (tmp_path / "n.json").read_text()
    with pytest.raises(tl.InvalidModelError, match="must be a JSON object"):
        tl.TreeModel.from_dict([])
    d["edges"].append({"source": "b", "target": "a", "attrs": {}})
    d["nodes"][0]["parents"] = ["b"]
    d["nodes"][0]["cpt"] = [[0.5, 0.5], [0.5, 0.5]]
    with pytest.raises(tl.InvalidModelError):  # a cycle: the file is at fault
        tl.TreeModel.from_dict(d)


def test_a_bad_label_in_a_file_names_where():
    d = tl.chow_liu(pd.DataFrame({"a": [0, 1], "b": [1, 0]})).to_dict()
    d["nodes"][1]["states"][0] = {"$nope": 1}
    with pytest.raises(tl.InvalidModelError, match=r"variable 'b': unknown label type '\$nope'"):
        tl.TreeModel.from_dict(d)


def test_classifier_state_round_trip_keeps_tuple_settings(tmp_path):
    # a MultiIndex column name is a tuple: the root setting keeps it through a file
    X = pd.DataFrame({("f", 1): [0, 1, 0, 1, 1, 0], ("f", 2): [1, 1, 0, 0, 1, 0]})
    y = pd.Series([0, 1, 0, 1, 1, 0], name="y")
    clf = tl.TAN(root=("f", 2), class_prior=(0.25, 0.75)).fit(X, y)
    assert clf.model_.settings["root"] == ("f", 2)
    assert clf.model_.settings["class_prior"] == (0.25, 0.75)
    back = tl.TAN.from_dict(json.loads(json.dumps(clf.to_dict())))
    assert back.get_params() == clf.get_params()
    assert back.model_.settings == clf.model_.settings
    clf.save(tmp_path / "c.json")
    again = tl.load(tmp_path / "c.json")
    assert again.model_.settings == clf.model_.settings
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))


def test_bad_label_in_a_classifier_state_is_an_invalid_model_error():
    X = pd.DataFrame({"a": [0, 1, 0, 1]})
    state = tl.NaiveBayes().fit(X, [0, 1, 0, 1]).to_dict()
    state["classes"][0] = {"$nope": 1}
    with pytest.raises(tl.InvalidModelError, match="unknown label type"):
        tl.NaiveBayes.from_dict(state)


# ------------------------------------------------------------------ layering
def _imports(module: str) -> set:
    """treelearn modules (dotted, under treelearn) that ``module`` imports anywhere
    (TYPE_CHECKING blocks left out)."""
    with open(os.path.join(PACKAGE, *module.split(".")) + ".py", encoding="utf-8") as f:
        tree = ast.parse(f.read())
    skip = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for b in node.body
        for n in ast.walk(b)
    }
    package = module.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if id(node) in skip or not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        base = package[: len(package) - node.level + 1]
        if node.module:
            found.add(".".join([*base, node.module]))
        else:
            found.update(".".join([*base, a.name]) for a in node.names)
    return found


@pytest.mark.parametrize(
    "module, never",
    [
        # (the JSON value encoder imports nothing: tests/test_jsonvalues.py)
        ("export._jsonfile", {"models._tree", "classifiers._base", "_io", "export._pgmpy"}),
        ("export._pgmpy", {"models._tree", "classifiers._base", "_io", "export._jsonfile"}),
        ("models._tree", {"_io", "classifiers._base"}),
        ("classifiers._base", {"_io"}),
    ],
)
def test_adapters_import_only_downwards(module, never):
    found = _imports(module)
    assert found, "the reader must find the module's imports"
    assert not found & never
