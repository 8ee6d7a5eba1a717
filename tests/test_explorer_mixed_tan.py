"""MixedTAN's explorer page (a multinet of CLG trees: one per class, one structure), checked
in headless Chromium: the class posterior against ``predict_proba`` (missing cells summed
out by the model), ``log p(evidence)`` against ``predict_joint_log_proba``, and every other
variable against the classes' own CLG trees: ``sum_c P(c | e) models_[c].query(v, e)`` for
a discrete one, the mixture over classes of ``models_[c].query(v, e)`` for a continuous one.

The mixed classifiers here take ``numbers="gaussian"``: these tests are about their
Gaussian parts (the per-column choice of ``numbers="auto"``, the default, is
tests/test_mixed_column_choice.py).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

import treelearn as tl
from tests.test_explorer import HARNESS, needs_browser, run_page
from tests.test_explorer_mixed_nb import fitted as mixed_data
from treelearn.viz._explorer import explorer_spec

# the page's doubles against numpy's: Gaussian messages of order-1 numbers, CPT products
TOL = 1e-12


def fitted():
    _, df = mixed_data()
    noise = np.random.default_rng(1).normal(size=len(df))
    y = pd.Series(np.where(df["u"] + noise > 1.5, "hi", "lo"), name="y")
    return tl.MixedTAN(numbers="gaussian").fit(df, y), df


SETS = [
    {},
    {"u": 0.5},
    {"a": "1", "v": -0.7},
    {"a": "0", "u": 2.0, "v": 1.0, "b": "2"},
    {"y": "hi", "b": "1"},
    {"y": "lo", "v": 0.3},
]


def frag(ev: dict) -> str:
    return "#evidence=" + ",".join(f"{k}:{v}" for k, v in ev.items()) if ev else "#"


@needs_browser
def test_posteriors_equal_predict_proba_and_each_class_tree(tmp_path):
    clf, df = fitted()
    assert clf.numeric_features_ == ["u", "v"] and len(clf.feature_tree_.edges) == 3
    classes = list(clf.classes_)
    results = run_page(clf, tmp_path, HARNESS % json.dumps([frag(e) for e in SETS]))
    for ev, r in zip(SETS, results):
        assert r["evidence"] == ev
        given = {k: v for k, v in ev.items() if k != "y"}
        row = pd.DataFrame([given], columns=df.columns)
        j = clf.predict_joint_log_proba(row)[0]
        if "y" in ev:
            j = np.where([c == ev["y"] for c in classes], j, -np.inf)
        post = np.exp(j - logsumexp(j))
        np.testing.assert_allclose(r["marginals"]["y"], post, rtol=0, atol=TOL)
        if "y" not in ev:
            np.testing.assert_allclose(
                r["marginals"]["y"], clf.predict_proba(row)[0], rtol=0, atol=TOL
            )
        if ev:
            assert r["log_evidence"] == pytest.approx(logsumexp(j), abs=1e-10)
        live = [c for c in range(len(classes)) if post[c] > 0]  # the page's components
        for v in df.columns:
            if v in given:
                continue
            qs = {c: clf.models_[c].query(v, given) for c in live}
            shown = r["marginals"][v]
            if v in clf.numeric_features_:
                np.testing.assert_allclose(
                    shown["weights"],
                    np.concatenate([post[c] * qs[c].weights for c in live]),
                    rtol=0,
                    atol=TOL,
                )
                np.testing.assert_allclose(
                    shown["means"], np.concatenate([qs[c].means for c in live]), rtol=0, atol=1e-10
                )
                np.testing.assert_allclose(
                    shown["variances"],
                    np.concatenate([qs[c].variances for c in live]),
                    rtol=0,
                    atol=1e-10,
                )
            else:
                expected = sum(post[c] * qs[c].to_numpy() for c in live)
                np.testing.assert_allclose(shown, expected, rtol=0, atol=TOL)


def test_the_drawing():
    clf, _ = fitted()
    spec = explorer_spec(clf)
    names = [v["name"] for v in spec["variables"]]
    assert names == ["a", "u", "b", "v", "y"] and spec["cond"] == 4
    tree = {
        (names[u], names[v]) for u, v, kind, *_ in spec["edges"][0] if kind == "tree" and u != 4
    }
    assert tree == set(clf.feature_tree_.edges)
    assert len(spec["components"]) == 2 and "a CLG tree per class" in spec["title"]


@needs_browser
def test_all_numeric_and_all_categorical_mixed_tans(tmp_path):
    rng = np.random.default_rng(0)
    num = pd.DataFrame(rng.normal(size=(200, 4)), columns=list("abcd"))
    num["b"] += num["a"]
    Xn, yn = num.drop(columns="d"), pd.Series((num["d"] + num["a"] > 0).astype(int), name="k")
    asia = pd.read_csv("datasets/asia.csv")
    Xc, yc = asia.drop(columns="either"), asia["either"]
    cases = [
        (tl.MixedTAN(numbers="gaussian").fit(Xn, yn), [{}, {"a": 0.5, "c": -1.0}, {"b": 2.0}]),
        (tl.MixedTAN(numbers="gaussian").fit(Xc, yc), [{}, {"smoke": "yes", "xray": "no"}]),
    ]
    for clf, sets in cases:
        results = run_page(clf, tmp_path, HARNESS % json.dumps([frag(e) for e in sets]))
        proba = clf.predict_proba(pd.DataFrame(sets, columns=clf.feature_names_in_))
        for r, p in zip(results, proba):
            np.testing.assert_allclose(r["marginals"][str(clf.class_name_)], p, rtol=0, atol=TOL)
