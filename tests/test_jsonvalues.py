"""The one JSON value encoder: every tagged type round-trips with its type, errors are plain
ValueErrors there and treelearn errors at the treelearn entry points."""

from __future__ import annotations

import ast
import datetime as dt
import json
import math
import os

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn._base import jsonvalues as jv

# (value, its JSON encoding written out by hand from the format's table)
TAGGED = [
    (float("nan"), {"$float": "nan"}),
    (float("inf"), {"$float": "inf"}),
    (-float("inf"), {"$float": "-inf"}),
    ((1, "a"), {"$tuple": [1, "a"]}),
    (("x", (2.5, True)), {"$tuple": ["x", {"$tuple": [2.5, True]}]}),
    ((float("nan"),), {"$tuple": [{"$float": "nan"}]}),
    (pd.Timestamp("2024-01-02 03:04:05"), {"$timestamp": "2024-01-02T03:04:05"}),
    (pd.Timedelta(days=1, hours=2), {"$timedelta": "P1DT2H0M0S"}),
    (dt.datetime(2020, 5, 6, 7, 8), {"$datetime": "2020-05-06T07:08:00"}),
    (dt.date(2020, 5, 6), {"$date": "2020-05-06"}),
    (pd.Interval(0.5, 1.5, closed="left"), {"$interval": [0.5, 1.5, "left"]}),
]
PLAIN = ["a", "", 0, 1, -7, 1.0, 0.25, True, False, None]


def _same(a, b) -> bool:
    """Equal with the same type all the way down (NaN equal to NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    return a == b


@pytest.mark.parametrize("value, encoded", TAGGED, ids=repr)
def test_every_tagged_label_has_its_encoding_and_comes_back_with_its_type(value, encoded):
    assert jv.encode_label(value) == encoded
    text = json.dumps(jv.encode_label(value), allow_nan=False)  # strict JSON: no NaN literal
    assert _same(jv.decode_label(json.loads(text)), value)
    # settings use the same tags for the same values
    assert jv.json_value(value) == encoded
    assert _same(jv.from_json_value(json.loads(json.dumps(jv.json_value(value)))), value)


@pytest.mark.parametrize("value", PLAIN, ids=repr)
def test_plain_json_values_are_themselves(value):
    assert jv.encode_label(value) is value
    assert _same(jv.decode_label(json.loads(json.dumps(value))), value)


def test_numpy_scalars_become_python_values():
    assert _same(jv.encode_label(np.int64(3)), 3)
    assert _same(jv.encode_label(np.float32(0.5)), 0.5)
    assert _same(jv.encode_label(np.bool_(True)), True)
    assert jv.encode_label(np.float64("nan")) == {"$float": "nan"}


def test_settings_with_lists_arrays_dicts_and_tuples_round_trip():
    value = {
        "root": ("a", 1),
        7: [1, 2.5, None, float("nan")],
        ("k", 2): {"inner": np.array([[0.25, 0.75], [1.0, 0.0]])},
        "prior": (0.2, [0.3, 0.5]),  # a tuple holding a list: a setting, not a label
    }
    encoded = jv.json_value(value)
    back = jv.from_json_value(json.loads(json.dumps(encoded, allow_nan=False)))
    assert _same(back, value)
    assert encoded["$dict"][3] == ["prior", {"$tuple": [0.2, [0.3, 0.5]]}]


def test_python_value_unwraps_numpy_and_keeps_tuples():
    value = {"prior": np.array([0.5, 0.5]), "root": ("a", np.int64(1)), "alpha": np.float64(1)}
    plain = jv.python_value(value)
    assert _same(plain, {"prior": [0.5, 0.5], "root": ("a", 1), "alpha": 1.0})
    assert _same(jv.from_json_value(json.loads(json.dumps(jv.json_value(plain)))), plain)


def test_dtypes_round_trip():
    for dtype in [
        np.dtype("int64"),
        np.dtype("bool"),
        np.dtype("float64"),
        pd.CategoricalDtype([3, 1, 2], ordered=True),
        pd.CategoricalDtype(["b", "a"], ordered=False),
    ]:
        assert jv.decode_dtype(json.loads(json.dumps(jv.encode_dtype(dtype)))) == dtype
    assert jv.encode_dtype(None) is None and jv.decode_dtype(None) is None


def test_errors_are_plain_value_errors_here_and_treelearn_errors_at_the_entry_points():
    with pytest.raises(jv.EncodeError, match="cannot save the label"):
        jv.encode_label(object())
    with pytest.raises(jv.EncodeError):
        jv.encode_label(("a", [1]))  # a label tuple holds labels only
    for bad in ([1, 2], {"$nope": 1}, {"a": 1, "b": 2}, {"$interval": [1]}):
        with pytest.raises(jv.DecodeError):
            jv.decode_label(bad)
    with pytest.raises(jv.DecodeError, match="unknown dtype"):
        jv.decode_dtype("no-such-dtype")
    assert issubclass(jv.EncodeError, ValueError) and issubclass(jv.DecodeError, ValueError)
    assert not issubclass(jv.JsonValueError, tl.TreelearnError)

    # at the entry points (a classifier's state): treelearn's own errors
    import pandas as pd

    clf = tl.NaiveBayes().fit(pd.DataFrame({"a": [0, 1, 0, 1]}), [0, 1, 0, 1])
    clf.class_name_ = object()
    with pytest.raises(tl.TreelearnError, match="cannot save the label"):
        clf.to_dict()
    state = tl.NaiveBayes().fit(pd.DataFrame({"a": [0, 1, 0, 1]}), [0, 1, 0, 1]).to_dict()
    state["classes"][0] = {"$nope": 1}
    with pytest.raises(tl.InvalidModelError, match="unknown label type"):
        tl.NaiveBayes.from_dict(state)


def test_jsonvalues_imports_nothing_from_treelearn():
    path = os.path.join(os.path.dirname(tl.__file__), "_base", "jsonvalues.py")
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and not (node.module or "").startswith("treelearn")
        elif isinstance(node, ast.Import):
            assert not any(a.name.startswith("treelearn") for a in node.names)
