"""The explorer's MAP button, checked in headless Chromium: the most probable completion of
the evidence it stars, with its log-probability, against ``map_query`` and against brute
force over the joint enumerated from the CPTs (tree, TAN, a network with a v-structure,
soft evidence, the multinet over its class); the prior shown beside the posterior."""

from __future__ import annotations

import json
import os

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import map_assignment

import treelearn as tl
from tests.test_explorer import fragment, multinet_tables, needs_browser, run_page
from tests.test_explorer_panel import page_and_model

ROOT = os.path.dirname(os.path.dirname(__file__))
ASIA = pd.read_csv(os.path.join(ROOT, "datasets", "asia.csv"))
TOL = 1e-12  # the page's doubles against numpy's: round-off only


MAP = """<script>
const MAPS = [];
document.getElementById("map").click();
for (const frag of %s) {
  history.replaceState(null, "", frag);
  load();
  const st = document.getElementById("status");
  const starred = {};
  document.querySelectorAll("[data-variable]").forEach(d => {
    const on = [...d.querySelectorAll(".st")].filter(r => r.classList.contains("map"));
    starred[d.dataset.variable] = on.map(r => r.dataset.state); });
  const prior = {};
  document.querySelectorAll("[data-variable]").forEach(d => { prior[d.dataset.variable] =
    JSON.parse(d.dataset.prior); });
  MAPS.push({map: JSON.parse(st.dataset.map), log_prob: Number(st.dataset.mapLogProb),
             starred: starred, prior: prior,
             title: document.querySelector('[data-variable] .st').title});
}
document.getElementById("map").click();
MAPS.push({off: document.getElementById("status").dataset.map === undefined,
           stars: document.querySelectorAll(".st.map").length});
const out = document.createElement("pre"); out.id = "map-out";
out.textContent = JSON.stringify(MAPS); document.body.appendChild(out);
</script></body>"""


MAP_EVIDENCE = [
    {},
    {"smoke": "yes"},
    {"dysp": "yes", "xray": "no"},
    {"asia": "yes", "bronc": "no", "either": "yes"},
]


@needs_browser
@pytest.mark.parametrize("kind", ["tree", "tan", "network"])
def test_map_button_equals_map_query_and_brute_force(kind, tmp_path):
    if kind in ("tree", "tan"):
        obj, model = page_and_model(kind)
    else:
        rng = np.random.default_rng(4)
        df = pd.DataFrame(rng.integers(0, 3, (300, 4)), columns=list("abcd"))
        obj = model = tl.fit_cpts(nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d")]), df, alpha=1.0)
    sets = MAP_EVIDENCE if kind != "network" else [{}, {"d": 2}, {"c": 0, "b": 1}, {"a": 2}]
    res = run_page(obj, tmp_path, MAP % json.dumps([fragment(e) for e in sets]), out="map-out")
    prior = {str(v): s.to_numpy() for v, s in model.marginals().items()}
    for ev, r in zip(sets, res):
        assignment, log_p = model.map_query(ev, return_log_prob=True)
        brute, brute_log_p = map_assignment(model, ev)
        assert assignment == brute  # the oracle agrees with itself
        assert r["map"] == {str(k): str(v) for k, v in assignment.items()}
        assert r["log_prob"] == pytest.approx(log_p, abs=1e-10)
        assert r["log_prob"] == pytest.approx(brute_log_p, abs=1e-10)
        for v in model.variables:  # one star per unobserved variable, on its MAP state
            assert r["starred"][str(v)] == ([str(assignment[v])] if v in assignment else [])
            np.testing.assert_allclose(r["prior"][str(v)], prior[str(v)], rtol=0, atol=TOL)
        assert "prior" in r["title"] and "\u2192" in r["title"]
    assert res[-1] == {"off": True, "stars": 0}  # a second click hides it


@needs_browser
def test_map_with_soft_evidence_equals_map_query(tmp_path):
    model = tl.chow_liu(ASIA)
    ev = {"smoke": "yes", "dysp": [0.3, 0.9], "lung": [0.8, 0.1]}
    frag = "#evidence=smoke:yes&soft=dysp:0.3|0.9,lung:0.8|0.1"
    res = run_page(model, tmp_path, MAP % json.dumps([frag]), out="map-out")
    assignment, log_p = model.map_query(ev, return_log_prob=True)
    assert res[0]["map"] == {str(k): str(v) for k, v in assignment.items()}
    assert res[0]["log_prob"] == pytest.approx(log_p, abs=1e-10)


@needs_browser
def test_multinet_map_equals_brute_force(tmp_path):
    X, y = ASIA.drop(columns="either"), ASIA["either"]
    clf = tl.ChowLiuMultinet().fit(X, y)
    labels, prior, tables, features, states = multinet_tables(clf)
    sets = [{}, {"smoke": "yes", "dysp": "yes"}, {"either": "no", "xray": "yes"}]
    res = run_page(clf, tmp_path, MAP % json.dumps([fragment(e) for e in sets]), out="map-out")
    for ev, r in zip(sets, res):
        best, best_p = None, -1.0
        for c, (rows, p) in enumerate(tables):
            if "either" in ev and labels[c] != ev["either"]:
                continue
            for row, pr in zip(rows, p):
                if any(
                    k != "either" and row[features.index(k)] != states[k].index(s)
                    for k, s in ev.items()
                ):
                    continue
                if prior[c] * pr > best_p:
                    best_p, best = prior[c] * pr, (c, row)
        c, row = best
        expected = {f: str(states[f][row[j]]) for j, f in enumerate(features) if f not in ev}
        if "either" not in ev:
            expected["either"] = str(labels[c])
        assert r["map"] == expected
        assert r["log_prob"] == pytest.approx(np.log(best_p), abs=1e-10)
