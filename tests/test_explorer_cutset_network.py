"""A cutset network's explorer page (``CutsetNetwork``: one OR-tree, or an ensemble), one
forest per leaf, checked in headless Chromium: every marginal against the model's own
``query`` and against a brute force (the full joint table from ``score_samples`` on every
complete row, summed under the evidence), ``log P(evidence)`` likewise, the MAP button
against ``map_query`` (one network); an ensemble's page has no MAP (a mixture's is refused).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from oracles import scored_rows

import treelearn as tl
from tests.test_explorer import fragment, needs_browser, run_fragments, run_page
from tests.test_explorer_map import MAP
from treelearn.viz._explorer import explorer_spec, to_html

ASIA = pd.read_csv("datasets/asia.csv")
TOL = 1e-12  # the page's doubles against numpy's: sums of a few hundred CPT products
SETS = [{}, {"smoke": "yes"}, {"xray": "yes", "either": "no"}, {"asia": "yes", "dysp": "no"}]


@needs_browser
@pytest.mark.parametrize("n", [1, 3])
def test_marginals_equal_query_and_the_joint(n, tmp_path):
    est = tl.CutsetNetwork(max_depth=2, n_estimators=n, random_state=0).fit(ASIA)
    rows, p = scored_rows(est.score_samples, est.feature_names_in_, est.networks_[0].states)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    results = run_fragments(est, tmp_path, [fragment(e) for e in SETS])
    for ev, r in zip(SETS, results):
        keep = np.ones(len(rows), bool)
        for k, s in ev.items():
            keep &= (rows[k] == s).to_numpy()
        assert r["log_evidence"] == pytest.approx(np.log(p[keep].sum()), abs=1e-10)
        for v in ASIA.columns:
            if v in ev:
                continue
            np.testing.assert_allclose(
                r["marginals"][v], est.query(v, ev).to_numpy(), rtol=0, atol=TOL
            )
            brute = [
                p[keep & (rows[v] == s).to_numpy()].sum() / p[keep].sum()
                for s in est.networks_[0].states[v]
            ]
            np.testing.assert_allclose(r["marginals"][v], brute, rtol=0, atol=TOL)


@needs_browser
def test_map_equals_map_query_and_an_ensemble_has_none(tmp_path):
    est = tl.CutsetNetwork(max_depth=2).fit(ASIA)
    res = run_page(est, tmp_path, MAP % json.dumps([fragment(e) for e in SETS]), out="map-out")
    for ev, r in zip(SETS, res):
        best, log_p = est.map_query(ev, return_log_prob=True)
        assert r["map"] == {str(k): str(v) for k, v in best.items()}
        assert r["log_prob"] == pytest.approx(log_p, abs=1e-10)
    assert explorer_spec(est)["map"] is True
    ensemble = tl.CutsetNetwork(max_depth=2, n_estimators=3, random_state=0).fit(ASIA)
    assert explorer_spec(ensemble)["map"] is False
    assert "an ensemble of 3" in explorer_spec(ensemble)["title"]


def test_components_are_the_leaves():
    est = tl.CutsetNetwork(max_depth=2).fit(ASIA)
    spec = explorer_spec(est)
    leaves = [node for node in est.networks_[0].nodes() if not hasattr(node, "children")]
    assert len(spec["components"]) == len(leaves)
    assert sum(c["weight"] for c in spec["components"]) == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(tl.TreelearnError, match="leave it out"):
        to_html(est, super_parent="smoke")
