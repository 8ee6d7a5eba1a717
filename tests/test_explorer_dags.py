"""The explorer on any DAG (k-DB, SKDB, AODE's super-parent networks, a network with
several v-structures) by cutset conditioning, checked in headless Chromium: every marginal
against the Python engine and against the joint table enumerated from the CPTs alone, the
class posterior against ``predict_proba`` (missing features summed out), MAP against brute
force, soft evidence on a cutset variable; a cutset too large for a page is refused.
"""

from __future__ import annotations

import html
import json
import re

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import joint_rows, map_assignment, model_mutual_information, posterior_marginals

import treelearn as tl
from tests.test_explorer import HARNESS, dump_dom, fragment, needs_browser, run_fragments, run_page
from tests.test_explorer_map import MAP
from treelearn.viz._explorer import explorer_spec, to_html
from treelearn.viz._page_spec import cutset

ASIA = pd.read_csv("datasets/asia.csv")
X, Y = ASIA.drop(columns="either"), ASIA["either"]
TOL = 1e-12  # the page's doubles against numpy's: sums of products of a few CPT entries


def two_v_structures():
    rng = np.random.default_rng(3)
    df = pd.DataFrame(rng.integers(0, 3, (400, 6)), columns=list("abcdef"))
    g = nx.DiGraph([("a", "c"), ("b", "c"), ("d", "f"), ("e", "f"), ("c", "f")])
    return tl.fit_cpts(g, df, alpha=1.0)


SETS = [
    {},
    {"smoke": "yes"},
    {"dysp": "yes", "xray": "no"},
    {"asia": "yes", "bronc": "no", "either": "yes"},
    {"tub": "yes", "lung": "no"},
]


def _cases():
    kdb = tl.KDB(k=2).fit(X, Y)
    skdb = tl.SKDB(max_k=3).fit(X, Y)
    return {
        "kdb": (kdb, kdb.model_),
        "skdb": (skdb, skdb.model_),
        "network": (two_v_structures(), two_v_structures()),
    }


@needs_browser
@pytest.mark.parametrize("kind", ["kdb", "skdb", "network"])
def test_marginals_equal_the_engine_and_the_joint(kind, tmp_path):
    obj, model = _cases()[kind]
    sets = (
        SETS
        if kind != "network"
        else [{}, {"f": "2"}, {"c": "0", "d": "1"}, {"a": "2", "f": "0", "e": "1"}]
    )
    results = run_fragments(obj, tmp_path, [fragment(e) for e in sets])
    for ev, r in zip(sets, results):
        typed = {k: next(s for s in model.states[k] if str(s) == v) for k, v in ev.items()}
        brute = posterior_marginals(model, typed)
        for v, series in model.marginals(typed).items():
            np.testing.assert_allclose(r["marginals"][str(v)], series.to_numpy(), rtol=0, atol=TOL)
            np.testing.assert_allclose(r["marginals"][str(v)], brute[v], rtol=0, atol=TOL)
        assert r["evidence"] == ev


@needs_browser
@pytest.mark.parametrize("kind", ["kdb", "skdb"])
def test_class_posterior_is_predict_proba(kind, tmp_path):
    clf, _ = _cases()[kind]
    rows = [
        {"smoke": "yes"},
        {"dysp": "yes", "xray": "no", "asia": "yes"},
        dict(X.iloc[3]),
        {"tub": "yes", "bronc": "no"},
    ]
    results = run_fragments(clf, tmp_path, [fragment(e) for e in rows])
    frame = pd.DataFrame(rows, columns=X.columns)  # missing features: summed out
    proba = clf.predict_proba(frame)
    for r, expected in zip(results, proba):
        np.testing.assert_allclose(r["marginals"]["either"], expected, rtol=0, atol=TOL)


@needs_browser
def test_map_on_a_cutset_network_equals_brute_force(tmp_path):
    model = two_v_structures()
    sets = [{}, {"f": 2}, {"c": 0, "b": 1}, {"a": 2, "e": 0}]
    res = run_page(model, tmp_path, MAP % json.dumps([fragment(e) for e in sets]), out="map-out")
    for ev, r in zip(sets, res):
        assignment, log_p = model.map_query(ev, return_log_prob=True)
        brute, brute_log_p = map_assignment(model, ev)
        assert assignment == brute
        assert r["map"] == {str(k): str(v) for k, v in assignment.items()}
        assert r["log_prob"] == pytest.approx(brute_log_p, abs=1e-10)
        assert r["log_prob"] == pytest.approx(log_p, abs=1e-10)


@needs_browser
def test_soft_evidence_on_a_cutset_variable(tmp_path):
    model = two_v_structures()
    cut = cutset(model)
    soft = {cut[0]: [0.2, 0.5, 0.9], "f": [1.0, 0.1, 0.4]}
    frag = "#soft=" + ",".join(f"{k}:{'|'.join(map(str, w))}" for k, w in soft.items())
    results = run_page(model, tmp_path, HARNESS % json.dumps([frag + "&evidence=b:1"]))
    rows, p = joint_rows(model)
    vs = list(model.variables)
    w = p * np.array(
        [(r[vs.index("b")] == 1) * np.prod([soft[k][r[vs.index(k)]] for k in soft]) for r in rows]
    )
    for i, v in enumerate(vs):
        m = np.zeros(3)
        np.add.at(m, [r[i] for r in rows], w)
        np.testing.assert_allclose(results[0]["marginals"][v], m / m.sum(), rtol=0, atol=TOL)
    assert results[0]["log_evidence"] == pytest.approx(np.log(w.sum()), abs=1e-10)


@needs_browser
def test_aode_shows_one_super_parent_network(tmp_path):
    clf = tl.AODE().fit(X, Y)
    page_sp = "smoke"
    model = clf.models_[page_sp]
    sets = [{}, {"dysp": "yes"}, {"smoke": "no", "xray": "yes"}]
    page = to_html(clf, super_parent=page_sp)
    assert "super-parent smoke" in page
    path = tmp_path / "aode.html"
    path.write_text(
        page.replace("</body>", HARNESS % json.dumps([fragment(e) for e in sets]), 1),
        encoding="utf-8",
    )
    found = re.search('<pre id="results">(.*?)</pre>', dump_dom(str(path)), re.S)
    results = json.loads(html.unescape(found.group(1)))
    for ev, r in zip(sets, results):
        brute = posterior_marginals(model, ev)
        for v in model.variables:
            np.testing.assert_allclose(r["marginals"][v], brute[v], rtol=0, atol=TOL)


def test_aode_default_super_parent_is_the_most_informative_about_the_class():
    clf = tl.AODE().fit(X, Y)

    def mi(sp):  # I(y; x_i) under network i, from its joint table by brute force
        return model_mutual_information(clf.models_[sp], "either", sp)

    best = max(clf.models_, key=mi)
    assert f"super-parent {best} " in explorer_spec(clf)["title"]
    with pytest.raises(tl.TreelearnError, match="not a feature"):
        to_html(clf, super_parent="nope")
    with pytest.raises(tl.TreelearnError, match="no super-parents"):
        to_html(tl.TAN().fit(X, Y), super_parent="smoke")
    with pytest.raises(tl.TreelearnError, match="pairs of super-parents"):  # its own page
        to_html(tl.AnDE(n=2).fit(X, Y), super_parent="smoke")


def test_a_cutset_too_large_for_a_page_is_refused():
    rng = np.random.default_rng(0)
    cols = [f"x{i}" for i in range(16)]
    df = pd.DataFrame(rng.integers(0, 4, (200, 16)), columns=cols)
    # a chain of v-structures: each x_i has the parents x_{i-1} and x_{i-2}
    g = nx.DiGraph([(cols[i - k], cols[i]) for i in range(2, 16) for k in (1, 2)])
    with pytest.raises(tl.TreelearnError, match="joint states"):
        to_html(tl.fit_cpts(g, df))


def test_kinds_without_a_page_say_so():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=300)})
    df["y"] = df["x"] * 2 + rng.normal(size=300)
    # the one refusal of a capability the kind does not declare, naming what it answers
    with pytest.raises(tl.CapabilityError, match="a CopulaTreeModel does not answer explorer"):
        to_html(tl.copula_chow_liu(df[["x", "y"]]))
    with pytest.raises(tl.TreelearnError, match="not a DataFrame"):  # no treelearn object
        to_html(df)


# --------------------------------------------------------------------- a posterior over trees
@needs_browser
def test_tree_posterior_marginals_are_the_models_own(tmp_path):
    cols = ["asia", "tub", "smoke", "lung", "either", "xray"]
    post = tl.tree_posterior(ASIA[cols])
    sets = [{}, {"smoke": "yes"}, {"xray": "yes", "asia": "no"}, {"either": "yes", "lung": "no"}]
    results = run_fragments(post, tmp_path, [fragment(e) for e in sets])
    states = post.states

    def log_p(assign: dict) -> float:  # the model's own sum over completions (-1: missing)
        row = np.array([[states[v].index(assign[v]) if v in assign else -1 for v in cols]])
        return float(post.log_likelihood_codes(row)[0])

    for ev, r in zip(sets, results):
        base = log_p(ev) if ev else 0.0
        assert r["log_evidence"] == pytest.approx(base, abs=1e-10)
        for v in cols:
            if v in ev:
                continue
            expected = [np.exp(log_p({**ev, v: s}) - base) for s in states[v]]
            np.testing.assert_allclose(r["marginals"][v], expected, rtol=0, atol=TOL)
    # the joint table is a distribution (the matrix-tree normaliser), and the drawn edges
    # carry their posterior probabilities
    spec = explorer_spec(post)
    assert sum(spec["joint"]["p"]) == pytest.approx(1.0, abs=1e-12)
    P = post.edge_posterior_matrix
    names = [v["name"] for v in spec["variables"]]
    for u, v, _, _, strength, _ in spec["edges"][0]:
        assert strength == pytest.approx(P[cols.index(names[u]), cols.index(names[v])], abs=1e-15)
    with pytest.raises(tl.TreelearnError, match="complete assignments"):
        to_html(tl.tree_posterior(pd.read_csv("datasets/alarm.csv", nrows=500)))
