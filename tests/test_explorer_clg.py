"""The explorer on a conditional linear Gaussian (CLG) tree, checked in headless Chromium:
discrete posteriors and each continuous variable's Gaussian mixture given states and
numbers, against ``model.query`` and against brute force (every discrete assignment, the
continuous columns' joint Gaussian given it built here from the regressions, SciPy's
multivariate normal); the number box sets a number; the CLI writes the page.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from oracles import clg_conditionals

import treelearn as tl
from tests.test_explorer import HARNESS, needs_browser, run_page
from treelearn.viz._explorer import explorer_spec, to_html

TOL = 1e-12  # the page's doubles against numpy's: closed-form Gaussians of order-1 numbers


def clg_model():
    rng = np.random.default_rng(0)
    n = 500
    g = rng.integers(0, 3, n)
    df = pd.DataFrame({"g": g, "h": (g + rng.integers(0, 2, n)) % 3, "x": rng.normal(1.5 * g, 1.0)})
    df["y"] = df["x"] * 2 + rng.normal(size=n)
    df["z"] = rng.normal(size=n) - df["y"] * 0.3
    df["w"] = rng.normal(size=n)  # a continuous root of its own tree (a forest)
    return tl.clg_tree(df, forest="bic")


def brute(model, evidence: dict):
    """``(log p(evidence), {discrete: posterior}, {continuous: (mean, variance)})`` by
    enumerating the discrete assignments (``clg_conditionals``): given one, the continuous
    columns are jointly Gaussian (``X = a + B X + e`` solved from the regressions), the
    observed ones scored by SciPy's multivariate normal, the others conditioned on them."""
    log_e, parts = clg_conditionals(model, evidence)
    D = model.discrete_model
    disc = {v: np.zeros(len(D.states[v])) for v in D.variables}
    for assignment, weight, _, _ in parts:
        for v in disc:
            disc[v][D.states[v].index(assignment[v])] += weight
    unseen = [v for v in model.continuous if v not in evidence]
    w = np.array([weight for _, weight, _, _ in parts])
    cont = {}
    for j, v in enumerate(unseen):
        mu = np.array([m[j] for _, _, m, _ in parts])
        var = np.array([S[j, j] for _, _, _, S in parts])
        mean = w @ mu
        cont[v] = (mean, w @ (var + (mu - mean) ** 2))
    return log_e, disc, cont


def frag(evidence: dict) -> str:
    return "#evidence=" + ",".join(f"{k}:{v}" for k, v in evidence.items()) if evidence else "#"


SETS = [
    {},
    {"y": 2.0},
    {"y": 2.0, "h": 1},
    {"z": -1.25, "w": 0.5},
    {"x": 0.3, "g": 2},
    {"h": 0, "z": 0.75},
]


@needs_browser
def test_posteriors_equal_query_and_brute_force(tmp_path):
    model = clg_model()
    assert set(model.continuous) == {"x", "y", "z", "w"} and model.parents("w") == []
    results = run_page(model, tmp_path, HARNESS % json.dumps([frag(e) for e in SETS]))
    for ev, r in zip(SETS, results):
        assert r["evidence"] == {k: (str(v) if k in ("g", "h") else v) for k, v in ev.items()}
        typed = {k: (int(v) if k in ("g", "h") else v) for k, v in ev.items()}
        log_e, disc, cont = brute(model, typed)
        for v in model.variables:
            if v in typed:
                continue
            shown = r["marginals"][v]
            if v in model.continuous:
                q = model.query(v, typed)
                np.testing.assert_allclose(shown["weights"], q.weights, rtol=0, atol=TOL)
                np.testing.assert_allclose(shown["means"], q.means, rtol=0, atol=TOL)
                np.testing.assert_allclose(shown["variances"], q.variances, rtol=0, atol=TOL)
                w, mu, var = map(np.asarray, (shown["weights"], shown["means"], shown["variances"]))
                mean = w @ mu
                assert mean == pytest.approx(cont[v][0], abs=1e-10)
                assert w @ (var + (mu - mean) ** 2) == pytest.approx(cont[v][1], abs=1e-10)
            else:
                np.testing.assert_allclose(
                    shown, model.query(v, typed).to_numpy(), rtol=0, atol=TOL
                )
                np.testing.assert_allclose(shown, disc[v], rtol=0, atol=1e-10)
        if ev:
            assert r["log_evidence"] == pytest.approx(log_e, abs=1e-10)


TYPE = """<script>
history.replaceState(null, "", "#"); load();
const input = document.querySelector('[data-variable="y"] input.value');
input.value = "2"; input.dispatchEvent(new Event("change"));
document.querySelectorAll('[data-variable="h"] .st')[1].click();
const out = document.createElement("pre"); out.id = "type-out";
out.textContent = JSON.stringify({hash: location.hash,
  evidence: JSON.parse(document.getElementById("status").dataset.evidence),
  g: JSON.parse(document.querySelector('[data-variable="g"]').dataset.marginal),
  panel: getComputedStyle(document.getElementById("why")).display});
document.body.appendChild(out);
</script></body>"""


@needs_browser
def test_typing_a_number_and_clicking_a_state(tmp_path):
    model = clg_model()
    r = run_page(model, tmp_path, TYPE, out="type-out")
    assert r["evidence"] == {"y": 2, "h": "1"} and r["hash"] == "#evidence=h:1,y:2"
    np.testing.assert_allclose(
        r["g"], model.query("g", {"y": 2.0, "h": 1}).to_numpy(), rtol=0, atol=TOL
    )
    assert r["panel"] == "none"


def test_clg_page_from_python_and_the_command_line(tmp_path):
    model = clg_model()
    for v in explorer_spec(model)["variables"]:  # the slider: the prior mean -+ 4 sds
        if v["name"] in model.continuous:
            q = model.query(v["name"])
            sd = np.sqrt(q.variance)
            np.testing.assert_allclose(v["range"], [q.mean - 4 * sd, q.mean + 4 * sd], atol=1e-9)
    with pytest.raises(tl.TreelearnError, match="finite number"):
        to_html(model, evidence={"y": "high"})
    assert '"evidence": {"y": 1.0, "h": "1"}' in to_html(model, evidence={"y": 1, "h": 1})
    path = tmp_path / "clg.json"
    model.save(path)
    out = tmp_path / "clg.html"
    installed = os.path.join(os.path.dirname(sys.executable), "treelearn")
    done = subprocess.run(
        [installed, "show", str(path), "--html", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == to_html(tl.load(path))
