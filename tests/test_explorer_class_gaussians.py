"""The Gaussian classifiers' explorer page (GaussianClassifier with each covariance choice,
GaussianTAN), checked in headless Chromium: numbers set on some features, a class or
none; the page's class posterior against ``predict_proba`` (all features given; for
GaussianTAN, missing ones summed out by the model itself), against SciPy's multivariate
normal on the observed block otherwise, ``log p(evidence)`` against
``predict_joint_log_proba``, and each other feature's mixture of conditional Gaussians
against numpy's solve of the conditioning formula.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

import treelearn as tl
from tests.test_explorer import HARNESS, needs_browser, run_page
from treelearn.viz._explorer import explorer_spec, to_html

# the page's doubles against numpy's: Cholesky solves of a 3 x 3 block of order-1 numbers
TOL = 1e-12


def data():
    rng = np.random.default_rng(0)
    num = pd.DataFrame(rng.normal(size=(300, 4)), columns=list("abcd"))
    num["b"] += 0.8 * num["a"]
    num["c"] -= 0.5 * num["b"]
    label = np.where(num["d"] + num["a"] > 0, "hi", "lo")
    num.loc[label == "hi", "c"] += 1.0
    return num.drop(columns="d"), pd.Series(label, name="y")


X, Y = data()
KINDS = ["full", "shared", "diagonal", "isotropic", "tan"]


def fitted(kind: str):
    if kind == "tan":
        return tl.GaussianTAN().fit(X, Y)
    return tl.GaussianClassifier(covariance=kind, reg=0.01 if kind == "full" else 0.0).fit(X, Y)


def gaussians(clf, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Each class's mean and covariance as the classifier documents them (GaussianTAN's: the
    covariance its tree implies, and its class means)."""
    k, d = clf.means_.shape
    cov = clf.covariances_
    if kind == "tan":
        return clf.means_, clf.implied_covariance()
    if kind == "full":
        return clf.means_, cov
    if kind == "shared":
        return clf.means_, np.array([cov] * k)
    if kind == "diagonal":
        return clf.means_, np.array([np.diag(v) for v in cov])
    return clf.means_, np.array([s * np.eye(d) for s in cov])


SETS = [
    {},
    {"a": 0.5, "b": -0.3, "c": 1.0},
    {"a": 0.5},
    {"b": 1.2, "c": -0.4},
    {"y": "hi", "c": 0.25},
    {"y": "lo"},
]


def frag(ev: dict) -> str:
    return "#evidence=" + ",".join(f"{k}:{v}" for k, v in ev.items()) if ev else "#"


@needs_browser
@pytest.mark.parametrize("kind", KINDS)
def test_posteriors_equal_predict_proba_and_the_conditional_gaussians(kind, tmp_path):
    clf = fitted(kind)
    means, covs = gaussians(clf, kind)
    prior = np.exp(clf.class_log_prior_)
    classes = list(clf.classes_)
    features = list(X.columns)
    results = run_page(clf, tmp_path, HARNESS % json.dumps([frag(e) for e in SETS]))
    for ev, r in zip(SETS, results):
        assert r["evidence"] == ev
        nums = {k: v for k, v in ev.items() if k != "y"}
        obs = [features.index(f) for f in nums]
        x = np.array(list(nums.values()))
        log_joint = np.log(prior) + np.array(
            [
                multivariate_normal(means[c, obs], covs[c][np.ix_(obs, obs)]).logpdf(x)
                if obs
                else 0.0
                for c in range(len(classes))
            ]
        )
        if "y" in ev:  # an observed class: its row of the joint alone
            keep = np.array([c == ev["y"] for c in classes])
            log_joint = np.where(keep, log_joint, -np.inf)
        post = np.exp(log_joint - logsumexp(log_joint))
        np.testing.assert_allclose(r["marginals"]["y"], post, rtol=0, atol=TOL)
        if ev:
            assert r["log_evidence"] == pytest.approx(logsumexp(log_joint), abs=1e-10)
        if obs and "y" not in ev:  # the model's own answer: predict_proba, its joint density
            row = pd.DataFrame([nums], columns=features)
            if len(obs) == len(features) or kind == "tan":  # GaussianTAN sums out the rest
                np.testing.assert_allclose(
                    r["marginals"]["y"], clf.predict_proba(row)[0], rtol=0, atol=TOL
                )
                assert r["log_evidence"] == pytest.approx(
                    logsumexp(clf.predict_joint_log_proba(row)[0]), abs=1e-10
                )
        for u in [f for f in features if f not in nums]:
            j = features.index(u)
            shown = r["marginals"][u]
            np.testing.assert_allclose(shown["weights"], post, rtol=0, atol=TOL)
            for c in range(len(classes)):
                S = covs[c]
                if obs:
                    gain = np.linalg.solve(S[np.ix_(obs, obs)], S[obs, j])
                    m = means[c, j] + gain @ (x - means[c, obs])
                    v = S[j, j] - gain @ S[obs, j]
                else:
                    m, v = means[c, j], S[j, j]
                assert shown["means"][c] == pytest.approx(m, abs=1e-10)
                assert shown["variances"][c] == pytest.approx(v, abs=1e-10)
        for f in nums:
            assert r["marginals"][f] == {"observed": nums[f]}


def test_the_drawing_and_the_preset_numbers():
    tan = fitted("tan")
    spec = explorer_spec(tan)
    names = [v["name"] for v in spec["variables"]]
    assert names == ["a", "b", "c", "y"] and spec["target"] == 3
    tree = {
        (names[u], names[v]) for u, v, kind, *_ in spec["edges"][0] if kind == "tree" and u != 3
    }
    assert tree == set(tan.tree_.edges)  # the feature tree under the class
    assert "GaussianTAN" in spec["title"]
    qda = fitted("full")
    spec = explorer_spec(qda)
    assert {(u, v) for u, v, *_ in spec["edges"][0]} == {(3, 0), (3, 1), (3, 2)}
    assert "full covariance" in spec["title"]
    page = to_html(qda, evidence={"a": 1.5, "y": "hi"})
    assert '"evidence": {"a": 1.5, "y": "hi"}' in page
    with pytest.raises(tl.TreelearnError, match="finite number"):
        to_html(qda, evidence={"a": "high"})
    with pytest.raises(tl.TreelearnError, match="leave it out"):
        to_html(qda, super_parent="a")


def test_the_command_line_writes_the_page(tmp_path):
    clf = fitted("tan")
    model = tmp_path / "gtan.json"
    clf.save(model)
    out = tmp_path / "gtan.html"
    installed = os.path.join(os.path.dirname(sys.executable), "treelearn")
    done = subprocess.run(
        [installed, "show", str(model), "--html", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == to_html(tl.load(model))
