"""The explorer on a mixture of trees, checked in headless Chromium: each variable's
marginal, the components' posterior weights, the evidence's probability and the MAP over
the components and the variables together, against the model and against brute force
(``P(x, k) = w_k P_k(x)`` over every component and assignment, from the CPTs); an unfitted
mixture refused; the page written from Python and from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from oracles import joint_rows

import treelearn as tl
from tests.test_explorer import fragment, needs_browser, run_page
from tests.test_explorer_map import MAP
from treelearn.viz._explorer import to_html

ROOT = os.path.dirname(os.path.dirname(__file__))
ASIA = pd.read_csv(os.path.join(ROOT, "datasets", "asia.csv"))
TOL = 1e-12  # the page's doubles against numpy's: round-off only


@needs_browser
def test_mixture_marginals_and_component_weights_match(tmp_path):
    mix = tl.TreeMixture(n_components=3, random_state=0).fit(ASIA)
    w = np.asarray(mix.weights_) / np.sum(mix.weights_)
    tables = [joint_rows(c) for c in mix.components_]
    vs = list(mix.components_[0].variables)
    states = mix.components_[0].states
    sets = [
        {},
        {"smoke": "yes"},
        {"dysp": "yes", "xray": "no"},
        {"asia": "yes", "bronc": "no", "either": "yes"},
    ]
    results = run_page(mix, tmp_path, MAP % json.dumps([fragment(e) for e in sets]), out="map-out")
    from tests.test_explorer import HARNESS

    shown = run_page(mix, tmp_path, HARNESS % json.dumps([fragment(e) for e in sets]))
    for ev, r, m in zip(sets, shown, results):
        # brute force: P(x, k) = w_k P_k(x) over every (component, assignment)
        mass = {v: np.zeros(len(states[v])) for v in vs}
        comp = np.zeros(len(tables))
        best, best_p = None, -1.0
        for k, (rows, p) in enumerate(tables):
            for row, pr in zip(rows, p):
                if any(row[vs.index(a)] != states[a].index(s) for a, s in ev.items()):
                    continue
                comp[k] += w[k] * pr
                for j, v in enumerate(vs):
                    mass[v][row[j]] += w[k] * pr
                if w[k] * pr > best_p:
                    best_p, best = w[k] * pr, (k, row)
        total = comp.sum()
        np.testing.assert_allclose(r["marginals"]["component"], comp / total, rtol=0, atol=TOL)
        np.testing.assert_allclose(
            r["marginals"]["component"], mix.component_posterior(ev), rtol=0, atol=TOL
        )
        for v, series in mix.marginals(ev).items():
            np.testing.assert_allclose(r["marginals"][v], series.to_numpy(), rtol=0, atol=TOL)
            np.testing.assert_allclose(r["marginals"][v], mass[v] / total, rtol=0, atol=TOL)
        assert r["log_evidence"] == pytest.approx(np.log(total), abs=1e-10)
        # MAP over the components and the variables together
        k, row = best
        expected = {v: str(states[v][row[j]]) for j, v in enumerate(vs) if v not in ev}
        expected["component"] = str(k)
        assert m["map"] == expected
        assert m["log_prob"] == pytest.approx(np.log(best_p), abs=1e-10)
        np.testing.assert_allclose(m["prior"]["component"], w, rtol=0, atol=TOL)


def test_unfitted_mixture_refused():
    with pytest.raises(tl.TreelearnError, match="not fitted"):
        to_html(tl.TreeMixture())


def test_a_mixture_writes_its_page_from_python_and_the_command_line(tmp_path):
    mix = tl.TreeMixture(n_components=2, random_state=0).fit(ASIA.head(2000))
    page = tmp_path / "mix.html"
    assert mix.to_html(page) is None  # a notebook does not print the page it wrote
    assert page.read_text(encoding="utf-8") == to_html(mix)
    assert "<iframe" in mix.explore()._repr_html_()
    model = tmp_path / "mix.json"
    mix.save(model)
    out = tmp_path / "cli.html"
    installed = os.path.join(os.path.dirname(sys.executable), "treelearn")
    done = subprocess.run(
        [installed, "show", str(model), "--html", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == to_html(tl.load(model))
