"""The explorer on a conditional linear Gaussian (CLG) tree, checked in headless Chromium:
discrete posteriors and each continuous variable's Gaussian mixture given states and
numbers, against ``model.query`` and against brute force (every discrete assignment, the
continuous columns' joint Gaussian given it built here from the regressions, SciPy's
multivariate normal); the number box sets a number; the CLI writes the page.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy.stats import multivariate_normal

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
    """``(log p(evidence), {discrete: posterior}, {continuous: (mean, var, pdf)})`` by
    enumerating the discrete assignments; given one, the continuous columns are jointly
    Gaussian (mean and covariance propagated parent first through the regressions)."""
    disc = [v for v in model.variables if v not in model.continuous]
    cont = [v for v in model.variables if v in model.continuous]
    order = [v for v in model.graph.graph.get("order", []) if v in cont] or cont
    # parents first: repeat until every continuous parent is placed
    placed: list = []
    while len(placed) < len(cont):
        for v in cont:
            ps = model.parents(v)
            if v not in placed and (not ps or ps[0] not in cont or ps[0] in placed):
                placed.append(v)
    order = placed
    D = model.discrete_model
    states = {v: list(D.states[v]) for v in disc}
    obs_c = [v for v in cont if v in evidence]
    free_c = [v for v in cont if v not in evidence]
    total, post_d, comps = 0.0, {v: np.zeros(len(states[v])) for v in disc}, []
    for combo in itertools.product(*(range(len(states[v])) for v in disc)):
        a = dict(zip(disc, combo))
        if any(states[v][a[v]] != evidence[v] for v in disc if v in evidence):
            continue
        p = 1.0
        for v in disc:
            ps = D.parents(v)
            p *= D.cpt(v)[tuple(a[q] for q in ps) + (a[v],)]
        mean, cov = {}, {}
        for v in order:
            node, ps = model.graph.nodes[v], model.parents(v)
            if not ps:
                mean[v], s2, b, par = node["intercept"], node["variance"], 0.0, None
            elif ps[0] not in cont:
                mean[v], s2, b, par = (
                    node["means"][a[ps[0]]],
                    node["variances"][a[ps[0]]],
                    0.0,
                    None,
                )
            else:
                par, b, s2 = ps[0], node["coefficient"], node["variance"]
                mean[v] = node["intercept"] + b * mean[par]
            for u in list(mean):
                if u != v:
                    cov[v, u] = cov[u, v] = b * cov[par, u] if par is not None else 0.0
            cov[v, v] = (b * b * cov[par, par] if par is not None else 0.0) + s2
        m = np.array([mean[v] for v in cont])
        S = np.array([[cov[u, v] for v in cont] for u in cont])
        io = [cont.index(v) for v in obs_c]
        iq = [cont.index(v) for v in free_c]
        x = np.array([evidence[v] for v in obs_c])
        like = multivariate_normal(m[io], S[np.ix_(io, io)]).pdf(x) if io else 1.0
        weight = p * like
        total += weight
        for v in disc:
            post_d[v][a[v]] += weight
        if io:
            K = S[np.ix_(iq, io)] @ np.linalg.inv(S[np.ix_(io, io)])
            cm = m[iq] + K @ (x - m[io])
            cv = S[np.ix_(iq, iq)] - K @ S[np.ix_(io, iq)]
        else:
            cm, cv = m[iq], S[np.ix_(iq, iq)]
        comps.append((weight, cm, np.diag(cv)))
    out_c = {}
    for j, v in enumerate(free_c):
        w = np.array([c[0] for c in comps]) / total
        mu = np.array([c[1][j] for c in comps])
        var = np.array([c[2][j] for c in comps])
        mean = w @ mu
        out_c[v] = (mean, w @ (var + (mu - mean) ** 2), (w, mu, var))
    return np.log(total), {v: p / total for v, p in post_d.items()}, out_c


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
