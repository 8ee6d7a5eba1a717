"""The explorer's side panel: the page's own script (its inference and the panel's
functions, run in Node with the page's data) against ``TreeModel.explain`` and
``most_informative`` (skipped where Node is not installed)."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.viz._explorer import explorer_spec

NODE = shutil.which("node") or shutil.which("nodejs")
ASIA = pd.read_csv("datasets/asia.csv")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js not installed")


def run_page_script(obj, calls: list[tuple[dict, str]]) -> list:
    """``why`` and ``askNext`` of the page's script for each (evidence, target)."""
    from treelearn.viz._explorer import _asset

    spec = explorer_spec(obj)
    names = [v["name"] for v in spec["variables"]]
    script = _asset("explorer.js").split("// ------------------------------------------"
                                         "---------------------- the page")[0]
    cases = []
    for evidence, target in calls:
        ev = {names.index(v): spec["variables"][names.index(v)]["states"].index(str(s))
              for v, s in evidence.items()}
        cases.append([ev, names.index(target)])
    program = (
        "const document = {getElementById: () => ({textContent: " + json.dumps(json.dumps(spec))
        + "})};\n" + script + "\nconst out = [];\nfor (const [ev, t] of " + json.dumps(cases)
        + ") out.push({why: why(ev, t), next: askNext(ev, t)});\n"
        "console.log(JSON.stringify(out));\n")
    done = subprocess.run([NODE, "-e", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout)
    for r in results:
        if r["why"]:
            r["why"]["items"] = {names[i]: x for i, x in r["why"]["items"]}
        r["next"] = {names[i]: x for i, x in r["next"]}
    return results


@pytest.mark.parametrize("kind", ["tree", "tan"])
def test_panel_equals_explain_and_most_informative(kind):
    X, y = ASIA.drop(columns="either"), ASIA["either"]
    model = tl.chow_liu(ASIA) if kind == "tree" else tl.TAN().fit(X, y).model_
    target = "either" if kind == "tan" else "lung"
    calls = [({"smoke": "yes", "xray": "yes"}, target),
             ({"dysp": "no", "asia": "yes", "bronc": "yes"}, target), ({}, target)]
    results = run_page_script(model if kind == "tree" else tl.TAN().fit(X, y), calls)
    for (evidence, t), r in zip(calls, results):
        ranked = model.most_informative(t, evidence)
        assert set(r["next"]) == set(ranked.index)
        for v, x in ranked.items():
            assert r["next"][v] == pytest.approx(x, abs=1e-10)
        if not evidence:
            assert r["why"]["items"] == {}
            continue
        row = pd.DataFrame([evidence])
        e = model.explain(row, t, kind="shapley", output="log_odds", method="exact")
        assert r["why"]["exact"]
        assert model.states[t][r["why"]["state"]] == e.target.iloc[0]
        assert r["why"]["base"] == pytest.approx(e.base.iloc[0], abs=1e-10)
        assert r["why"]["value"] == pytest.approx(e.prediction.iloc[0], abs=1e-10)
        for v, x in r["why"]["items"].items():
            assert x == pytest.approx(e.values.iloc[0][v], abs=1e-10)
        others = [v for v in e.values.columns if v not in evidence]
        assert np.abs(e.values.iloc[0][others].to_numpy()).max() < 1e-12  # unknown: no share
