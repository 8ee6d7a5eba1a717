"""Save and load: exact round trips for trees and classifiers, and damaged files rejected
with an error that says what is wrong."""

from __future__ import annotations

import json
import os

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn._io import dumps, loads

HERE = os.path.dirname(os.path.abspath(__file__))
DATASETS = os.path.join(HERE, "..", "datasets")


@pytest.fixture(scope="module")
def asia():
    return pd.read_csv(os.path.join(DATASETS, "asia.csv"))


def _assert_same_model(a: tl.TreeModel, b: tl.TreeModel) -> None:
    assert a == b
    assert a.variables == b.variables
    for v in a.variables:  # states with their types (1, 1.0 and True differ)
        assert [(type(s), s) for s in a.states[v]] == [(type(s), s) for s in b.states[v]]
        assert a.cpt(v).dtype == b.cpt(v).dtype
    assert set(a.graph.edges) == set(b.graph.edges)
    for u, v, data in a.graph.edges(data=True):
        assert b.graph.edges[u, v] == data  # MI weights, exactly
    assert a.graph.graph == b.graph.graph
    assert a.dtypes == b.dtypes
    assert a.n_rows == b.n_rows
    assert a.settings == b.settings


def _round_trip(obj, tmp_path, name="m.json"):
    path = tmp_path / name
    tl.save(obj, path)
    return tl.load(path)


def test_tree_round_trip_is_exact(asia, tmp_path):
    model = tl.chow_liu(asia, root="smoke", alpha=0.5)
    back = _round_trip(model, tmp_path)
    _assert_same_model(model, back)
    assert back.log_likelihood(asia) == model.log_likelihood(asia)
    pd.testing.assert_frame_equal(back.sample(50, random_state=3), model.sample(50, random_state=3))
    model.save(tmp_path / "again.json")  # the method writes the same file
    assert (tmp_path / "again.json").read_text() == (tmp_path / "m.json").read_text()


def test_file_is_versioned_json(asia, tmp_path):
    tl.save(tl.chow_liu(asia), tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    assert (doc["format"], doc["version"], doc["kind"]) == ("treelearn", 1, "tree_model")
    assert doc["model"]["variables"] == list(asia.columns)


def test_typed_labels_and_dtypes_round_trip(tmp_path):
    df = pd.DataFrame(
        {
            "i": [1, 2, 2, 3, 1],
            "b": [True, False, True, True, False],
            "f": [0.0, 1.0, 1.0, 2.0, 0.0],
            "cat": pd.Categorical(
                ["a", "b", "a", "a", "b"], categories=["b", "a", "z"], ordered=True
            ),
            "s": pd.Series(["x", "y", "x", "y", "y"], dtype="string"),
            7: ["p", "q", "p", "q", "p"],  # a non-string column name
            "mixed": pd.Series([1, "1", 1, "1", True], dtype=object),
        }
    )
    model = tl.chow_liu(df, alpha=1.0)
    back = _round_trip(model, tmp_path)
    _assert_same_model(model, back)
    assert back.states["mixed"] == model.states["mixed"]
    assert [type(s) for s in back.states["mixed"]] == [type(s) for s in model.states["mixed"]]
    pd.testing.assert_frame_equal(back.sample(20, random_state=0), model.sample(20, random_state=0))


def test_special_labels(tmp_path):
    values = [
        float("nan"),
        float("inf"),
        -float("inf"),
        (1, "a"),
        pd.Timestamp("2024-01-02"),
        pd.Interval(0.5, 1.5, closed="right"),
        np.int64(3),
        np.bool_(True),
        None,
    ]
    # the labels as the states of a model, through a file: each comes back with its type
    G = nx.DiGraph()
    G.add_node("x", states=list(values), cpt=np.full(len(values), 1 / len(values)))
    path = tmp_path / "labels.json"
    tl.save(tl.TreeModel(G, variables=["x"]), path)
    for v, back in zip(values, tl.load(path).states["x"]):
        if isinstance(v, float) and np.isnan(v):
            assert np.isnan(back)
        else:
            assert back == v and type(back) is type(v.item() if isinstance(v, np.generic) else v)
    G.nodes["x"]["states"] = [object(), 1]
    G.nodes["x"]["cpt"] = np.array([0.5, 0.5])
    with pytest.raises(tl.TreelearnError, match="cannot save the label"):
        tl.save(tl.TreeModel(G, variables=["x"]), tmp_path / "bad.json")


def test_dict_helpers_match_files(asia):
    model = tl.chow_liu(asia)
    assert tl.TreeModel.from_dict(model.to_dict()) == model
    assert loads(dumps(model)) == model


def test_pgmpy_model_without_weights_round_trips(asia, tmp_path):
    model = tl.from_pgmpy(tl.chow_liu(asia).to_pgmpy())
    _assert_same_model(model, _round_trip(model, tmp_path))


@pytest.mark.parametrize("name", ["NaiveBayes", "TAN", "ChowLiuMultinet"])
def test_classifier_round_trip_is_exact(asia, tmp_path, name):
    X, y = asia.drop(columns="either"), asia["either"]
    clf = getattr(tl, name)(alpha=0.5).fit(X, y)
    back = _round_trip(clf, tmp_path)
    assert type(back) is type(clf)
    assert back.get_params() == clf.get_params()
    np.testing.assert_array_equal(back.classes_, clf.classes_)
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))
    if hasattr(clf, "models_"):
        for label in clf.models_:
            _assert_same_model(clf.models_[label], back.models_[label])
    else:
        _assert_same_model(clf.model_, back.model_)
    doc = json.loads((tmp_path / "m.json").read_text())
    assert (doc["kind"], doc["class"]) == ("classifier", name)


def test_classifier_with_integer_classes(tmp_path):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 3, 200), "b": rng.integers(0, 2, 200)})
    y = pd.Series((X["a"] + rng.integers(0, 2, 200)) % 3, name="label")
    clf = tl.TAN().fit(X, y)
    back = _round_trip(clf, tmp_path)
    assert back.classes_.dtype == clf.classes_.dtype
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))


# ------------------------------------------------------------------ damaged files
@pytest.fixture
def saved(asia, tmp_path):
    path = tmp_path / "m.json"
    tl.save(tl.chow_liu(asia), path)
    return path


def _rewrite(path, change):
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def test_truncated_file(saved):
    text = saved.read_text()
    saved.write_text(text[: len(text) // 2])
    with pytest.raises(tl.CorruptModelFileError, match=r"not valid JSON.*cut short"):
        tl.load(saved)


def test_empty_and_binary_files(tmp_path):
    (tmp_path / "empty.json").write_text("")
    with pytest.raises(tl.CorruptModelFileError):
        tl.load(tmp_path / "empty.json")
    (tmp_path / "bin.json").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(tl.CorruptModelFileError):
        tl.load(tmp_path / "bin.json")
    # a data file given where a model belongs: said plainly, not "cut short"
    (tmp_path / "data.csv").write_text("a,b\nx,1\ny,2\n")
    with pytest.raises(tl.CorruptModelFileError, match="not a treelearn model file") as info:
        tl.load(tmp_path / "data.csv")
    assert "cut short" not in str(info.value)


def test_file_with_a_byte_order_mark_loads(saved, tmp_path):
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + saved.read_bytes())  # as some Windows editors save it
    assert tl.load(bom) == tl.load(saved)


def test_wrong_version(saved):
    _rewrite(saved, lambda d: d.update(version=2))
    with pytest.raises(tl.ModelFormatError, match="version 2 is not supported"):
        tl.load(saved)


def test_not_a_treelearn_file(tmp_path):
    (tmp_path / "x.json").write_text('{"hello": 1}')
    with pytest.raises(tl.ModelFormatError, match="not a treelearn model file"):
        tl.load(tmp_path / "x.json")
    (tmp_path / "y.json").write_text('{"format": "treelearn", "version": 1, "kind": "soup"}')
    with pytest.raises(tl.ModelFormatError, match="unknown model kind 'soup'"):
        tl.load(tmp_path / "y.json")


def test_cpt_row_not_summing_to_one(saved):
    def change(doc):
        node = next(n for n in doc["model"]["nodes"] if n["name"] == "lung")
        node["cpt"][1] = [0.7, 0.2]

    _rewrite(saved, change)
    with pytest.raises(tl.InvalidModelError, match=r"'lung': CPT row \[1\] sums to 0.9, not 1"):
        tl.load(saved)


def test_cpt_wrong_shape(saved):
    def change(doc):
        node = next(n for n in doc["model"]["nodes"] if n["name"] == "lung")
        node["cpt"] = node["cpt"][:1]

    _rewrite(saved, change)
    with pytest.raises(tl.InvalidModelError, match=r"'lung': the CPT has shape \(1, 2\).*\(2, 2\)"):
        tl.load(saved)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda n: n.update(states=["no", "no"]), "not distinct"),
        (lambda n: n.update(states=[]), "has no states"),
        (lambda n: n.update(states=["no", "yes", "maybe"]), "CPT has shape"),
        (lambda n: n.update(parents=["nowhere"]), "are not variables"),
        (lambda n: n.pop("cpt"), "'cpt' is missing"),
        (lambda n: n.update(cpt=[[0.5, "x"], [0.5, 0.5]]), "not a rectangular array of numbers"),
        (lambda n: n.update(cpt=[[1.5, -0.5], [0.5, 0.5]]), "negative"),
        (lambda n: n.update(dtype="no-such-dtype"), "unknown dtype"),
    ],
)
def test_inconsistent_nodes(saved, change, message):
    def apply(doc):
        change(next(n for n in doc["model"]["nodes"] if n["name"] == "lung"))

    _rewrite(saved, apply)
    with pytest.raises(tl.InvalidModelError, match=message):
        tl.load(saved)


def test_edge_without_parent_and_missing_node(saved):
    _rewrite(
        saved,
        lambda d: d["model"]["edges"].append({"source": "asia", "target": "dysp", "attrs": {}}),
    )
    with pytest.raises(tl.InvalidModelError, match="not in 'dysp'"):
        tl.load(saved)
    _rewrite(saved, lambda d: d["model"]["nodes"].pop())
    with pytest.raises(tl.InvalidModelError):
        tl.load(saved)


def test_missing_file_and_errors_are_value_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such model file"):
        tl.load(tmp_path / "absent.json")
    assert issubclass(tl.ModelFileError, tl.TreelearnError)
    assert issubclass(tl.InvalidModelError, ValueError)


def test_unknown_classifier_class(asia, tmp_path):
    clf = tl.NaiveBayes().fit(asia.drop(columns="either"), asia["either"])
    path = tmp_path / "c.json"
    tl.save(clf, path)
    _rewrite(path, lambda d: d.update({"class": "Nope"}))
    with pytest.raises(tl.ModelFormatError, match="unknown classifier class 'Nope'"):
        tl.load(path)


def test_save_rejects_other_objects(tmp_path):
    with pytest.raises(TypeError, match="a TreeModel, a GaussianTreeModel or a treelearn estimator"):
        tl.save({"a": 1}, tmp_path / "x.json")
