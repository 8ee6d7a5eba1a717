"""MixedNaiveBayes's explorer page (categorical features with CPTs, Gaussian ones per
class), the CLG page's boxes, checked in headless Chromium: the class posterior against
``predict_proba`` (missing cells summed out by the model), ``log p(evidence)`` against
``predict_joint_log_proba``, each Gaussian feature's mixture (the class posterior times
its class Gaussians, ``theta_`` and ``var_``) and each categorical feature's bars against
naive Bayes's identity ``P(x | e) = sum_c P(c | e) P(x | c)``.

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
from treelearn.viz._explorer import explorer_spec

# the page's doubles against numpy's: a few Gaussian log-densities and CPT products
TOL = 1e-12


def fitted():
    rng = np.random.default_rng(0)
    n = 300
    c = rng.integers(0, 3, n)
    df = pd.DataFrame(
        {
            "a": np.where(rng.random(n) < 0.7, c % 2, 1 - c % 2).astype(str),
            "u": rng.normal(c * 1.5, 1.0),
            "b": (c + rng.integers(0, 2, n)).astype(str),
            "v": rng.normal(-c, 2.0),
        }
    )
    y = pd.Series(np.array(["lo", "mid", "hi"])[c], name="y")
    return tl.MixedNaiveBayes(numbers="gaussian").fit(df, y), df


SETS = [
    {},
    {"u": 0.5},
    {"a": "1", "v": -0.7},
    {"a": "0", "u": 2.0, "v": 1.0, "b": "2"},
    {"y": "mid", "u": -1.0},
]


def frag(ev: dict) -> str:
    return "#evidence=" + ",".join(f"{k}:{v}" for k, v in ev.items()) if ev else "#"


@needs_browser
def test_posteriors_equal_predict_proba_and_the_class_mixtures(tmp_path):
    clf, df = fitted()
    assert clf.numeric_features_ == ["u", "v"]
    classes = list(clf.classes_)
    results = run_page(clf, tmp_path, HARNESS % json.dumps([frag(e) for e in SETS]))
    for ev, r in zip(SETS, results):
        assert r["evidence"] == ev
        row = pd.DataFrame([{k: v for k, v in ev.items() if k != "y"}], columns=df.columns)
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
        for k, f in enumerate(clf.numeric_features_):
            if f in ev:
                assert r["marginals"][f] == {"observed": ev[f]}
                continue
            shown = r["marginals"][f]
            np.testing.assert_allclose(shown["weights"], post, rtol=0, atol=TOL)
            np.testing.assert_allclose(shown["means"], clf.theta_[:, k], rtol=0, atol=TOL)
            np.testing.assert_allclose(shown["variances"], clf.var_[:, k], rtol=0, atol=TOL)
        for f in clf.categorical_features_:
            if f in ev:
                continue
            cpt = np.asarray(clf.model_.cpt(f))  # rows: the class's states, in classes_ order
            np.testing.assert_allclose(r["marginals"][f], post @ cpt, rtol=0, atol=TOL)


def test_the_drawing():
    clf, _ = fitted()
    spec = explorer_spec(clf)
    names = [v["name"] for v in spec["variables"]]
    assert names == ["a", "u", "b", "v", "y"]
    assert {(u, v) for u, v, *_ in spec["edges"][0]} == {(4, i) for i in range(4)}
    assert [v["states"] == [] for v in spec["variables"]] == [  # the numbers
        False,
        True,
        False,
        True,
        False,
    ]
    assert "2 categorical, 2 Gaussian features" in spec["title"]
