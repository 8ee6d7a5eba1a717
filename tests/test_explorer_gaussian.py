"""The explorer on a linear-Gaussian tree (GaussianTreeModel), checked in headless Chromium:
each variable's posterior mean and variance given numbers as evidence against
``model.query`` (Schur complements of the implied joint) and against a conditional
Gaussian computed here from the joint by numpy alone; ``log p(evidence)`` against SciPy's
multivariate normal; the number box and the slider set evidence; bad numbers are named.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from scipy.stats import multivariate_normal

import treelearn as tl
from tests.test_explorer import HARNESS, needs_browser, run_page
from treelearn.viz._explorer import explorer_spec, to_html

# the page's doubles against numpy's: a few products and sums of numbers of order 1 (the
# data are standardised-ish), round-off only
TOL = 1e-12


def gaussian_data(n=400, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    d = pd.DataFrame(rng.normal(size=(n, 6)), columns=list("abcdef"))
    d["b"] += 0.9 * d["a"]
    d["c"] += 0.6 * d["b"]
    d["d"] -= 0.7 * d["a"]
    d["e"] += 0.5 * d["d"] + 2.0
    d["f"] = 0.3 * d["f"] + 0.8 * d["c"]
    return d


def by_hand(model, evidence: dict) -> tuple[dict, float]:
    """The conditional mean and variance of every free variable, from the joint by
    ``inv``; the evidence's log density by SciPy."""
    mu, S = model.joint()
    e = list(evidence)
    q = [v for v in model.variables if v not in evidence]
    out = {}
    if not e:
        return {v: (mu[v], S.loc[v, v]) for v in q}, 0.0
    x = np.array([evidence[v] for v in e])
    See = S.loc[e, e].to_numpy()
    inv = np.linalg.inv(See)
    for v in q:
        Sqe = S.loc[v, e].to_numpy()
        out[v] = (mu[v] + Sqe @ inv @ (x - mu[e].to_numpy()), S.loc[v, v] - Sqe @ inv @ Sqe)
    return out, float(multivariate_normal(mu[e].to_numpy(), See).logpdf(x))


def fragment(evidence: dict) -> str:
    return "#evidence=" + ",".join(f"{k}:{v!r}" for k, v in evidence.items()) if evidence else "#"


SETS = [
    {},
    {"a": 1.5},
    {"f": -0.25, "e": 3.0},
    {"b": 0.4, "d": -1.2, "f": 2.0},
    {"c": 0.0, "a": -2.0, "e": 1.75, "b": 0.5},
]


def hand_forest():
    """Two trees, a -> b -> c, a -> f and d -> e, by hand (intercepts, slopes, variances)."""
    g = nx.DiGraph([("a", "b"), ("b", "c"), ("a", "f"), ("d", "e")])
    params = {
        "a": (0.5, None, 1.3),
        "b": (-1.0, 0.8, 0.6),
        "c": (2.0, -1.5, 0.4),
        "f": (0.0, 0.3, 2.0),
        "d": (1.0, None, 0.7),
        "e": (-0.5, 1.2, 0.9),
    }
    for v, (a, b, s2) in params.items():
        g.nodes[v].update(intercept=a, coefficient=b, variance=s2)
    return tl.GaussianTreeModel(g)


@needs_browser
@pytest.mark.parametrize("kind", ["learned", "forest"])
def test_posteriors_equal_query_and_the_joint(kind, tmp_path):
    model = tl.gaussian_chow_liu(gaussian_data()) if kind == "learned" else hand_forest()
    results = run_page(model, tmp_path, HARNESS % json.dumps([fragment(e) for e in SETS]))
    for ev, r in zip(SETS, results):
        assert r["evidence"] == ev
        free = [v for v in model.variables if v not in ev]
        q = model.query(free, ev)
        hand, log_density = by_hand(model, ev)
        for v in free:
            mean, var = r["marginals"][v]
            assert mean == pytest.approx(q.mean[v], abs=TOL)
            assert var == pytest.approx(q.covariance.loc[v, v], abs=TOL)
            assert mean == pytest.approx(hand[v][0], abs=TOL)
            assert var == pytest.approx(hand[v][1], abs=TOL)
        for v, x in ev.items():
            assert r["marginals"][v] == [x, 0]
        if ev:
            assert r["log_evidence"] == pytest.approx(log_density, abs=1e-10)


INPUTS = """<script>
const OUT = [];
const box = name => document.querySelector('[data-variable="' + name + '"]');
const read = () => ({marginals: Object.fromEntries([...document.querySelectorAll("[data-variable]")]
  .map(d => [d.dataset.variable, JSON.parse(d.dataset.marginal)])),
  evidence: JSON.parse(document.getElementById("status").dataset.evidence), hash: location.hash,
  message: (document.querySelector("#status .msg") || {}).textContent || null});
history.replaceState(null, "", "#"); load();
let input = box("a").querySelector("input.value");
input.value = "1.5"; input.dispatchEvent(new Event("change"));
OUT.push(read());
const slider = box("f").querySelector("input.slider");
slider.value = slider.min; slider.dispatchEvent(new Event("change"));
OUT.push(Object.assign(read(), {min: Number(slider.min)}));
box("a").querySelector("button").click();
OUT.push(read());
input = box("c").querySelector("input.value");
input.value = "abc"; input.dispatchEvent(new Event("change"));
OUT.push(read());
history.replaceState(null, "", "#evidence=a:oops,zz:1,b:0.5"); load();
OUT.push(read());
const out = document.createElement("pre"); out.id = "inputs-out";
out.textContent = JSON.stringify(OUT); document.body.appendChild(out);
</script></body>"""


@needs_browser
def test_number_box_and_slider_set_evidence(tmp_path):
    model = tl.gaussian_chow_liu(gaussian_data())
    typed, slid, cleared, bad, frag = run_page(model, tmp_path, INPUTS, out="inputs-out")
    assert typed["evidence"] == {"a": 1.5} and typed["hash"] == "#evidence=a:1.5"
    f = slid["evidence"]["f"]  # the slider at its left end (its value string's number)
    assert slid["evidence"] == {"a": 1.5, "f": f} and f == pytest.approx(slid["min"], abs=1e-9)
    assert cleared["evidence"] == {"f": f}
    for r, ev in ((typed, {"a": 1.5}), (slid, {"a": 1.5, "f": f}), (cleared, {"f": f})):
        hand, _ = by_hand(model, ev)
        for v, (mean, var) in hand.items():
            np.testing.assert_allclose(r["marginals"][v], [mean, var], rtol=0, atol=TOL)
    # the slider's range: the prior mean -+ 4 prior sds
    mu, S = model.joint()
    assert slid["min"] == pytest.approx(mu["f"] - 4 * np.sqrt(S.loc["f", "f"]), abs=1e-9)
    assert bad["evidence"] == {"f": f} and "takes a number" in bad["message"]
    assert (
        frag["evidence"] == {"b": 0.5} and "a:oops" in frag["message"] and "zz:1" in frag["message"]
    )


def test_spec_edges_are_the_models_mutual_information():
    model = tl.gaussian_chow_liu(gaussian_data())
    spec = explorer_spec(model)
    _, S = model.joint()
    names = [v["name"] for v in spec["variables"]]
    # every variable a number, data-marginal [mean, variance] (moments)
    assert all(v["states"] == [] for v in spec["variables"]) and spec["moments"] is True
    assert len(spec["edges"][0]) == len(model.variables) - 1
    for u, v, _, _, mi, _ in spec["edges"][0]:
        rho = S.iloc[u, v] / np.sqrt(S.iloc[u, u] * S.iloc[v, v])
        assert mi == pytest.approx(-0.5 * np.log(1 - rho**2), abs=1e-12), (names[u], names[v])
    with pytest.raises(tl.TreelearnError, match="finite number"):
        to_html(model, evidence={"a": "high"})
    with pytest.raises(tl.TreelearnError, match="not a variable"):
        to_html(model, evidence={"zz": 1.0})
    page = to_html(model, evidence={"a": 2})
    assert '"evidence": {"a": 2.0}' in page
    assert model.to_html(os.devnull) is None
    assert "<iframe" in model.explore()._repr_html_()


def test_the_command_line_writes_the_gaussian_page(tmp_path):
    model = tl.gaussian_chow_liu(gaussian_data())
    path = tmp_path / "g.json"
    model.save(path)
    out = tmp_path / "g.html"
    installed = os.path.join(os.path.dirname(sys.executable), "treelearn")
    done = subprocess.run(
        [installed, "show", str(path), "--html", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == to_html(tl.load(path))
