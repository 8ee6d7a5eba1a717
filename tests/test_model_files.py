"""Saved model files. Every saved kind (tests/_saved_kinds.py: each model kind and each
persistent estimator) round-trips through ``tl.save``/``tl.load`` and through pickle with
exactly the same answers, and an estimator's ``model_`` saves and loads on its own.

Tampered files of every saved kind: each field of each file dropped, of the wrong type,
NaN, infinite, negative, huge, an index out of range, a list one longer or shorter, two
labels swapped. Loading must refuse it with a ModelFileError, or give an object whose
answers (probabilities, log-likelihoods, predictions) equal the original's, or give the
model the file describes: saved again it is the same file, and its answers are finite
probabilities. Anything else (another exception, a NaN probability, a model that is
neither) fails, with the field's path and the mutation in the message. A kind that
``tl.save`` writes and that has no sample in tests/_saved_kinds.py fails
``test_every_saved_kind_has_a_sample``.

Hostile files (deep nesting, huge numbers and dtypes, cycles, text for numbers) are
refused with the exact ModelFileError subclass naming the thing, on load and by the
command line."""

from __future__ import annotations

import copy
import json
import math
import pickle
import warnings
from collections.abc import Iterator

import numpy as np
import pytest
from _saved_kinds import saved_classes, saved_kinds
from conftest import expect, tiny_frame

import treelearn as tl
from treelearn import _io
from treelearn.cli._main import main
from treelearn.export._jsonfile import ESTIMATOR_KINDS
from treelearn.learners._density import DensityEstimator
from treelearn.models._base import MODEL_KINDS, Model

_KINDS = saved_kinds()


#: the kinds whose answers come back as the same doubles (the others: to 1e-13, as a
#: classifier rebuilt from its saved tables may add its terms in another order: AODE)
EXACT = {
    "TreeModel",
    "TreeMixture",
    "BaggedTrees",
    "HiddenTree",
    "HiddenMarkovModel-tied",
    "HiddenMarkovModel-untied",
    "CutsetNetwork",
    "CutsetModel",
    "MixtureModel",
    "MixtureModel-cutset",
    "HiddenTreeModel",
    "HiddenTreeModel-tied",
}


def _same(a: list, b: list, exact: bool) -> None:
    for x, y in zip(a, b, strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape and x.dtype.kind == y.dtype.kind
        if x.dtype.kind in "fc" and exact:
            np.testing.assert_array_equal(x, y)  # the same doubles, NaN where NaN
        elif x.dtype.kind in "fc":
            np.testing.assert_allclose(x, y, rtol=1e-13, atol=1e-15)
        else:
            assert np.array_equal(x, y)


@pytest.mark.parametrize("kind", _KINDS, ids=[k.name for k in _KINDS])
def test_every_kind_round_trips_through_files_and_pickle(kind, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = kind.answers(kind.obj)
        path = tmp_path / "m.json"
        tl.save(kind.obj, path)
        for back in (tl.load(path), pickle.loads(pickle.dumps(kind.obj))):
            assert type(back) is type(kind.obj)
            _same(kind.answers(back), expected, kind.name in EXACT)
        if kind.name in EXACT:  # saved again, the file is the same
            tl.save(tl.load(path), tmp_path / "again.json")
            assert (tmp_path / "again.json").read_text() == path.read_text()


_FITTED = [k for k in _KINDS if isinstance(k.obj, DensityEstimator)]


@pytest.mark.parametrize("kind", _FITTED, ids=[k.name for k in _FITTED])
def test_an_estimators_model_saves_alone_and_answers_as_the_estimator(kind, tmp_path):
    model = kind.obj.model_
    assert isinstance(model, Model) and MODEL_KINDS[model.kind] is type(model)
    tl.save(model, tmp_path / "model.json")
    back = tl.load(tmp_path / "model.json")
    assert type(back) is type(model) and back.kind == model.kind
    rows = kind.obj.sample(40, random_state=0)
    np.testing.assert_array_equal(back.score_samples(rows), kind.obj.score_samples(rows))
    assert back.n_parameters == kind.obj.n_parameters
    assert back.to_text().splitlines()[0] == model.to_text().splitlines()[0]


def test_the_new_kinds_are_in_the_samples():
    names = {k.name for k in _KINDS}
    assert {
        "MixtureModel",
        "MixtureModel-cutset",
        "HiddenTreeModel",
        "HiddenTreeModel-tied",
    } <= names
    assert {"mixture", "hidden_tree"} <= set(MODEL_KINDS)


# -------------------------------------------------------------- tampered files of every saved kind


_DROP = object()


def test_every_saved_kind_has_a_sample():
    """Every file kind and every concrete estimator of the registry has a sample: a kind
    added later cannot go untested."""
    docs = [_io.to_document(k.obj) for k in _KINDS]
    assert {d["kind"] for d in docs} == set(MODEL_KINDS) | set(ESTIMATOR_KINDS)
    sampled = {d["class"] for d in docs if "class" in d}
    missing = saved_classes() - sampled
    assert not missing, f"no sample in tests/_saved_kinds.py for {sorted(missing)}"


def _mutations(value) -> Iterator[tuple[str, object]]:
    """(what, new value) for one field's value."""
    yield "dropped", _DROP
    if isinstance(value, bool):
        yield "wrong type", 2
        yield "flipped", not value
    elif isinstance(value, (int, float)):
        yield "wrong type", "7"
        yield "NaN", math.nan
        yield "infinite", math.inf
        yield "negative", -abs(value) - 1
        yield "huge", 1e300
        if isinstance(value, int):
            yield "out of range", value + 1000
    elif isinstance(value, str):
        yield "wrong type", 7
        yield "unknown text", value + "?"
    elif value is None:
        yield "wrong type", "x"
    elif isinstance(value, list):
        yield "wrong type", "x"
        if value:
            yield "one shorter", value[:-1]
            yield "one longer", [*value, copy.deepcopy(value[-1])]
        if len(value) >= 2 and value[0] != value[1]:
            yield "first two swapped", [value[1], value[0], *value[2:]]
    elif isinstance(value, dict):
        yield "wrong type", [1]


def _fields(doc, path=()) -> Iterator[tuple]:
    """The path of every field (long lists: their first and last items only)."""
    items = (
        doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    )
    items = list(items)
    if isinstance(doc, list) and len(items) > 3:
        items = [items[0], items[-1]]
    for key, value in items:
        if path == () and key in ("format", "version", "kind", "class"):
            continue  # the envelope: tests/test_io.py
        yield (*path, key), value
        yield from _fields(value, (*path, key))


def _mutated(doc, path, new):
    """``doc`` with the field at ``path`` replaced (or dropped): the containers on the way
    copied, the rest shared (the result is only written out)."""
    out = copy.copy(doc)
    parent = out
    for key in path[:-1]:
        parent[key] = copy.copy(parent[key])
        parent = parent[key]
    if new is _DROP:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return out


def _same_numbers(a, b) -> bool:
    """JSON values equal, numbers to 1e-12 (a file's 1000 reads back as 1000.0, its
    NaN and Infinity as tagged floats), edges in any order."""
    if isinstance(a, dict) and set(a) == {"$float"}:
        a = float(a["$float"])
    if isinstance(b, dict) and set(b) == {"$float"}:
        b = float(b["$float"])
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return (
            a == b
            or (a != a and b != b)
            or (
                math.isfinite(a)
                and math.isfinite(b)
                and math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
            )
        )
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_numbers(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(
            _same_numbers(
                *(
                    (sorted(a[k], key=json.dumps), sorted(b[k], key=json.dumps))
                    if k == "edges" and isinstance(a[k], list) and isinstance(b[k], list)
                    else (a[k], b[k])
                )
            )
            for k in a
        )
    return a == b


def _difference(a, b, path="") -> str:
    """Where two JSON values first differ (for the failure message)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                return f" ({path}/{k}: {'missing when saved again' if k not in a else 'added'})"
            if not _same_numbers(a[k], b[k]):
                return _difference(a[k], b[k], f"{path}/{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if not _same_numbers(x, y):
                return _difference(x, y, f"{path}/{i}")
    return f" ({path}: saved again {str(a)[:60]}, the file {str(b)[:60]})"


def _answers_equal(a: list, b: list) -> bool:
    for x, y in zip(a, b):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape:
            return False
        if x.dtype.kind in "fc":
            if not np.allclose(x, y, rtol=1e-9, atol=1e-12, equal_nan=True):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


def _sane(answers: list) -> str | None:
    """Why the answers of a loaded model are no model's, or None."""
    for x in answers:
        x = np.asarray(x)
        if x.dtype.kind == "f" and np.isnan(x).any():
            return "NaN in its answers"
    return None


@pytest.mark.slow  # every saved kind tampered field by field (~9,600 files): the second CI job
@pytest.mark.parametrize("kind", _KINDS, ids=[k.name for k in _KINDS])
def test_tampered_files_are_refused_or_equal(kind):
    doc = json.loads(json.dumps(_io.to_document(kind.obj)))
    expected = kind.answers(kind.obj)
    problems = []
    n_cases = 0
    for path, value in _fields(doc):
        for what, new in _mutations(value):
            n_cases += 1
            tampered = _mutated(doc, path, new)
            text = json.dumps(tampered)  # NaN and Infinity as a hand-edited file holds them
            where = f"{'/'.join(map(str, path))} {what}"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    loaded = _io.from_document(json.loads(text))
                except tl.ModelFileError:
                    continue
                except Exception as exc:  # what the test is for
                    problems.append(f"{where}: {type(exc).__name__}: {str(exc)[:120]}")
                    continue
                try:
                    got = kind.answers(loaded)
                except tl.TreelearnError:
                    got = None  # e.g. renamed states: the data is refused, loudly
                except Exception as exc:
                    problems.append(f"{where}: loads, then {type(exc).__name__}: {str(exc)[:120]}")
                    continue
            if got is not None and _answers_equal(got, expected):
                continue
            insane = got is not None and _sane(got)
            if insane:
                problems.append(f"{where}: loads, {insane}")
                continue
            resaved = json.loads(json.dumps(_io.to_document(loaded)))
            if not _same_numbers(resaved, json.loads(text)):
                problems.append(
                    f"{where}: loads as a different model than the file says"
                    f"{_difference(resaved, json.loads(text))}"
                )
    assert n_cases > 20
    assert not problems, f"{len(problems)} of {n_cases} tampered files:\n" + "\n".join(problems)


def test_classes_in_another_order_are_refused():
    """Reversed classes relabel every class's parameters (accuracy 1.0 -> 0.0): the order
    is fit's (sorted), in every classifier's file."""
    for kind in _KINDS:
        doc = json.loads(json.dumps(_io.to_document(kind.obj)))
        if "classes" not in doc.get("state", {}):
            continue
        doc["state"]["classes"] = doc["state"]["classes"][::-1]
        with pytest.raises(tl.ModelFileError, match="classes"):
            _io.from_document(doc)


# ---------------------------------------------------------------------------------- hostile inputs
TINY = tiny_frame()  # four rows: text, numbers, booleans


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "m.json"
    tl.chow_liu(TINY).save(path)
    return path


def _nodes(doc):
    return {n["name"]: n for n in doc["model"]["nodes"]}


HOSTILE = [
    ("deep nesting", lambda d: "[" * 100_000 + "]" * 100_000, tl.CorruptModelFileError, "nested"),
    (
        "huge int",
        lambda d: json.dumps(d).replace('"n_rows": 4', '"n_rows": 1' + "0" * 5000),
        tl.CorruptModelFileError,
        "value",
    ),
    (
        "n_rows inf",
        lambda d: json.dumps(d).replace('"n_rows": 4', '"n_rows": 1e400'),
        tl.InvalidModelError,
        "n_rows",
    ),
    (
        "dtype S",
        lambda d: _nodes(d)["a"].update(dtype="S2000000000"),
        tl.InvalidModelError,
        "S2000000000",
    ),
    (
        "dtype V",
        lambda d: _nodes(d)["a"].update(dtype="V100000000"),
        tl.InvalidModelError,
        "V100000000",
    ),
    (
        "dtype cat",
        lambda d: _nodes(d)["a"].update(
            dtype={"category": ["x", "y"], "categories_dtype": "U1000000000"}
        ),
        tl.InvalidModelError,
        "'a'",
    ),
    ("equal states", lambda d: _nodes(d)["b"].update(states=[1, 1.0]), tl.InvalidModelError, "'b'"),
    (
        "cycle",
        lambda d: (
            _nodes(d)["a"].update(parents=["c"], cpt=[[0.5, 0.5]] * 2),
            d["model"]["edges"].append({"source": "c", "target": "a"}),
        ),
        tl.InvalidModelError,
        "cycle",
    ),
    ("roots", lambda d: d["model"]["graph"].update(roots=["zz"]), tl.InvalidModelError, "roots"),
    ("roots int", lambda d: d["model"]["graph"].update(roots=5), tl.InvalidModelError, "roots"),
    (
        "weight",
        lambda d: d["model"]["edges"][0]["attrs"].update(weight="x"),
        tl.InvalidModelError,
        "weight",
    ),
    ("attrs", lambda d: d["model"]["edges"][0].update(attrs=[1]), tl.InvalidModelError, "attrs"),
    (
        "cpt text",
        lambda d: _nodes(d)["a"].update(cpt=["0.5", "0.5"]),
        tl.InvalidModelError,
        "'0.5'",
    ),
    ("settings", lambda d: d["model"]["settings"].update(alpha="x"), tl.InvalidModelError, "alpha"),
    ("graph n", lambda d: d["model"]["graph"].update(n="x"), tl.InvalidModelError, "n must"),
]


@pytest.mark.parametrize("name, change, error, pattern", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_model_files(saved, name, change, error, pattern):
    doc = json.loads(saved.read_text())
    text = change(doc)
    saved.write_text(text if isinstance(text, str) else json.dumps(doc))
    expect(error, pattern, tl.load, saved)
    assert main(["show", str(saved)]) == 1


def test_reordered_classes_are_refused(tmp_path):
    path = tmp_path / "nb.json"
    tl.NaiveBayes().fit(TINY[["a", "b"]], TINY["c"]).save(path)
    doc = json.loads(path.read_text())
    doc["state"]["classes"] = doc["state"]["classes"][::-1]
    path.write_text(json.dumps(doc))
    expect(tl.InvalidModelError, "reordered", tl.load, path)
    doc["state"]["classes"] = doc["state"]["classes"][::-1]
    doc["state"]["classes_dtype"] = "S2000000000"
    path.write_text(json.dumps(doc))
    expect(tl.InvalidModelError, "S2000000000", tl.load, path)
