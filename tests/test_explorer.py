"""The interactive explorer page (treelearn.viz._explorer), checked in a real browser.

The browser tests open the page in headless Chromium (skipped, with the reason, where
it is not installed; .ci/run installs it) and compare the marginals the page displays
(``data-marginal``) with ``model.marginals`` (treelearn's own inference, Python) and,
for the multinet, with a brute-force joint table built from the CPTs alone.
"""

from __future__ import annotations

import html
import itertools
import json
import os
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from oracles import joint_rows

import treelearn as tl
from treelearn.viz._explorer import explorer_spec, to_html

ASIA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "datasets", "asia.csv")
CHROMIUM = next(
    (shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)),
    None,
)
needs_browser = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium not installed (apt-get install chromium)"
)

# A harness appended to the page: for each fragment, set the URL's fragment, let the page
# load it (its own parser and render), then copy every displayed marginal into the DOM.
HARNESS = """<script>
const RESULTS = [];
for (const frag of %s) {
  history.replaceState(null, "", frag);
  load();
  const row = {};
  document.querySelectorAll("[data-variable]").forEach(d => {
    row[d.dataset.variable] = JSON.parse(d.dataset.marginal); });
  RESULTS.push({frag: frag, marginals: row,
                evidence: JSON.parse(document.getElementById("status").dataset.evidence),
                log_evidence: Number(document.getElementById("status").dataset.logEvidence)});
}
const out = document.createElement("pre"); out.id = "results";
out.textContent = JSON.stringify(RESULTS); document.body.appendChild(out);
</script></body>"""


def dump_dom(path: str, fragment: str = "") -> str:
    url = "file://" + os.path.abspath(path) + fragment
    done = subprocess.run(
        [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "<body" in done.stdout, done.stderr[-2000:]
    return done.stdout


def displayed(dom: str) -> dict:
    """``{variable: marginal}`` as the page shows them."""
    out = {}
    for m in re.finditer(r'data-variable="([^"]*)"[^>]*?data-marginal="([^"]*)"', dom):
        out[html.unescape(m.group(1))] = json.loads(html.unescape(m.group(2)))
    return out


def run_page(obj, tmp_path, script: str, out: str = "results") -> list | dict:
    """Open ``obj``'s page with ``script`` (ending ``</body>``) appended; the JSON it
    leaves in ``<pre id=out>``."""
    page = to_html(obj).replace("</body>", script, 1)
    path = tmp_path / "harness.html"
    path.write_text(page, encoding="utf-8")
    dom = dump_dom(str(path))
    found = re.search(f'<pre id="{out}">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


def run_fragments(obj, tmp_path, fragments: list[str]) -> list[dict]:
    return run_page(obj, tmp_path, HARNESS % json.dumps(fragments))


def fragment(evidence: dict) -> str:
    return "#evidence=" + ",".join(f"{k}:{v}" for k, v in evidence.items()) if evidence else "#"


def multinet_tables(clf) -> tuple:
    """A multinet's class labels, class prior, each class's joint table (:func:`joint`),
    features and states."""
    labels = list(clf.models_)
    tables = [joint_rows(clf.models_[c]) for c in labels]
    features = list(clf.models_[labels[0]].variables)
    return labels, np.exp(clf.class_log_prior_), tables, features, clf.models_[labels[0]].states


@pytest.fixture(scope="module")
def asia():
    return pd.read_csv(ASIA)


EVIDENCE_SETS = [
    {},
    {"smoke": "yes"},
    {"smoke": "yes", "xray": "yes"},
    {"dysp": "no", "asia": "yes", "bronc": "yes"},
    {"either": "yes"},
]


# --------------------------------------------------------------------- in a browser
@needs_browser
def test_fragment_preloads_evidence_and_marginals_match(asia, tmp_path):
    model = tl.chow_liu(asia)
    path = tmp_path / "asia.html"
    model.to_html(path)
    shown = displayed(dump_dom(str(path), "#evidence=smoke:yes,xray:yes"))
    expected = model.marginals({"smoke": "yes", "xray": "yes"})
    assert set(shown) == set(model.variables)
    for v, series in expected.items():
        np.testing.assert_allclose(shown[v], series.to_numpy(), rtol=0, atol=1e-12)
    assert shown["smoke"] == [0, 1] and shown["xray"] == [0, 1]  # observed: its state


@needs_browser
def test_chow_liu_tree_many_evidence_sets(asia, tmp_path):
    model = tl.chow_liu(asia)
    results = run_fragments(model, tmp_path, [fragment(e) for e in EVIDENCE_SETS])
    rows, p = joint_rows(model)
    index = {v: i for i, v in enumerate(model.variables)}
    for ev, res in zip(EVIDENCE_SETS, results):
        assert res["evidence"] == ev
        expected = model.marginals(ev)
        for v, series in expected.items():
            np.testing.assert_allclose(res["marginals"][v], series.to_numpy(), atol=1e-12)
        # P(evidence), by brute force over the joint table
        keep = np.array(
            [all(r[index[k]] == model.states[k].index(s) for k, s in ev.items()) for r in rows]
        )
        assert res["log_evidence"] == pytest.approx(np.log(p[keep].sum()), abs=1e-10)


@needs_browser
@pytest.mark.parametrize("make", [tl.NaiveBayes, tl.TAN])
def test_classifiers_single_network(asia, tmp_path, make):
    X, y = asia.drop(columns="either"), asia["either"]
    clf = make().fit(X, y)
    results = run_fragments(clf, tmp_path, [fragment(e) for e in EVIDENCE_SETS])
    for ev, res in zip(EVIDENCE_SETS, results):
        for v, series in clf.model_.marginals(ev).items():
            np.testing.assert_allclose(res["marginals"][v], series.to_numpy(), atol=1e-12)
    assert '"cls": true' in to_html(clf)  # the class node is marked


@needs_browser
def test_multinet_matches_brute_force(asia, tmp_path):
    X, y = asia.drop(columns="either"), asia["either"]
    clf = tl.ChowLiuMultinet().fit(X, y)
    labels, prior, tables, features, states = multinet_tables(clf)
    results = run_fragments(clf, tmp_path, [fragment(e) for e in EVIDENCE_SETS])
    for ev, res in zip(EVIDENCE_SETS, results):
        # P(x, c) = prior_c P_c(x), restricted to the evidence, summed to each marginal
        mass = {v: np.zeros(len(states[v])) for v in features}
        cls_mass = np.zeros(len(labels))
        for c, (rows, p) in enumerate(tables):
            for r, pr in zip(rows, p):
                if any(
                    k != "either" and r[features.index(k)] != states[k].index(s)
                    for k, s in ev.items()
                ):
                    continue
                if "either" in ev and labels[c] != ev["either"]:
                    continue
                cls_mass[c] += prior[c] * pr
                for j, v in enumerate(features):
                    mass[v][r[j]] += prior[c] * pr
        total = cls_mass.sum()
        for v in features:
            if v not in ev:
                np.testing.assert_allclose(res["marginals"][v], mass[v] / total, atol=1e-12)
        np.testing.assert_allclose(res["marginals"]["either"], cls_mass / total, atol=1e-12)


@needs_browser
def test_random_forests_and_awkward_names(tmp_path):
    # a forest (BIC drops weak edges), names with ":" "," "<" and numbers, 3 and 4 states
    rng = np.random.default_rng(7)
    n = 400
    a = rng.integers(0, 3, n)
    df = pd.DataFrame(
        {
            "a:b": a,
            "c,d": (a + (rng.random(n) < 0.2)) % 3,
            "</script>": rng.integers(0, 4, n),
            7: rng.choice(["x:y", "p,q", "z"], n),
        }
    )
    model = tl.chow_liu(df, forest="bic")
    assert len(model.roots) >= 2  # a forest
    sets = [{}, {"a:b": 1}, {"</script>": 2, 7: "x:y"}, {"c,d": 0, 7: "p,q"}]
    frags = []
    from urllib.parse import quote

    for ev in sets:
        items = [quote(str(k), safe="") + ":" + quote(str(v), safe="") for k, v in ev.items()]
        frags.append("#evidence=" + ",".join(items) if items else "#")
    results = run_fragments(model, tmp_path, frags)
    for ev, res in zip(sets, results):
        assert res["evidence"] == {str(k): str(v) for k, v in ev.items()}
        for v, series in model.marginals(ev).items():
            np.testing.assert_allclose(res["marginals"][str(v)], series.to_numpy(), atol=1e-12)


@needs_browser
def test_clicks_set_and_clear_evidence_and_rewrite_the_fragment(asia, tmp_path):
    model = tl.chow_liu(asia)
    clicks = """<script>
    const row = (v, s) => document.querySelector(
      '[data-variable="' + v + '"] .st[data-state="' + s + '"]');
    row("smoke", "yes").click(); row("xray", "yes").click();
    const after2 = {hash: location.hash, lung: document.querySelector(
      '[data-variable="lung"]').dataset.marginal};
    row("xray", "yes").click();  // the same state again clears it
    document.body.dataset.after2 = JSON.stringify(after2);
    document.body.dataset.after3 = JSON.stringify({hash: location.hash, lung:
      document.querySelector('[data-variable="lung"]').dataset.marginal});
    </script></body>"""
    path = tmp_path / "click.html"
    path.write_text(to_html(model).replace("</body>", clicks, 1), encoding="utf-8")
    dom = dump_dom(str(path))
    after2 = json.loads(html.unescape(re.search(r'data-after2="([^"]*)"', dom).group(1)))
    after3 = json.loads(html.unescape(re.search(r'data-after3="([^"]*)"', dom).group(1)))
    assert after2["hash"] == "#evidence=smoke:yes,xray:yes"
    assert after3["hash"] == "#evidence=smoke:yes"
    np.testing.assert_allclose(
        json.loads(after2["lung"]),
        model.marginals({"smoke": "yes", "xray": "yes"})["lung"],
        atol=1e-12,
    )
    np.testing.assert_allclose(
        json.loads(after3["lung"]), model.marginals({"smoke": "yes"})["lung"], atol=1e-12
    )


@needs_browser
def test_impossible_or_unknown_evidence_is_ignored_with_a_message(tmp_path):
    df = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 1]})  # b = a: (a=0, b=1) impossible
    model = tl.chow_liu(df, alpha=0)  # under maximum likelihood
    with pytest.raises(tl.TreelearnError):
        model.marginals({"a": 0, "b": 1})
    path = tmp_path / "m.html"
    model.to_html(path)
    dom = dump_dom(str(path), "#evidence=a:0,b:1")
    assert "probability zero" in dom
    np.testing.assert_allclose(displayed(dom)["b"], model.marginals()["b"], atol=1e-12)
    dom = dump_dom(str(path), "#evidence=nope:1")
    assert "ignored: nope:1" in dom


# --------------------------------------------------------------------- no browser needed
def test_page_is_self_contained(asia):
    page = to_html(tl.chow_liu(asia))
    assert page.startswith("<!DOCTYPE html>")
    for needle in ("<script src", "<link", "@import", "url(", "https://", "cdn"):
        assert needle not in page
    # the only http:// is the SVG namespace name, which is never fetched
    assert set(re.findall(r"http://[^\"' ]+", page)) == {"http://www.w3.org/2000/svg"}


ASSETS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "treelearn", "viz", "assets")


def test_the_page_is_built_from_its_package_data_files(asia):
    page = to_html(tl.chow_liu(asia))
    with open(os.path.join(ASSETS, "explorer.css"), encoding="utf-8") as f:
        css = f.read()
    scripts = sorted(name for name in os.listdir(ASSETS) if name.endswith(".js"))
    assert scripts == ["engine.js", "ui.js", "view.js"]  # one engine, whatever the kind
    for name in scripts:
        with open(os.path.join(ASSETS, name), encoding="utf-8") as f:
            js = f.read()
        assert css in page and js in page and page.count(js) == 1
    assert "%CSS%" not in page and "%JS%" not in page and "%DATA%" not in page
    # pyproject.toml ships every file of the folder (a wheel then holds them)
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(os.path.dirname(ASSETS), "..", "..", "pyproject.toml"), "rb") as f:
        patterns = tomllib.load(f)["tool"]["setuptools"]["package-data"]["treelearn.viz"]
    import fnmatch

    for name in os.listdir(ASSETS):
        assert any(fnmatch.fnmatch(f"assets/{name}", p) for p in patterns), name


def test_placeholders_in_the_title_are_not_expanded(asia):
    title = "tree %JS% %CSS% %DATA% %TITLE% <b>&"
    page = to_html(tl.chow_liu(asia), title=title)
    shown = re.search(r"<title>(.*?)</title>", page, flags=re.S).group(1)
    assert shown == html.escape(title)
    assert page.count('"use strict"') == 1  # the script, once
    assert page.count('id="treelearn-data"') == 1
    data = re.search(r'id="treelearn-data">(.*?)</script>', page, flags=re.S).group(1)
    assert json.loads(data)["title"] == title


def test_layout_is_draws_layout(asia):
    # parent boxes sit above their children, like draw(): one row per depth
    model = tl.chow_liu(asia)
    spec = explorer_spec(model)
    box = {v["name"]: v for v in spec["variables"]}
    for v in model.variables:
        for p in model.parents(v):
            assert box[p]["y"] + box[p]["h"] < box[v]["y"]
    assert box[model.root]["root"]
    # no two boxes overlap
    vs = list(box.values())
    for a, b in itertools.combinations(vs, 2):
        apart_x = a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"]
        apart_y = a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"]
        assert apart_x or apart_y, (a["name"], b["name"])


def test_evidence_argument_checked(asia, tmp_path):
    model = tl.chow_liu(asia)
    with pytest.raises(tl.TreelearnError, match="smok"):
        to_html(model, evidence={"smok": "yes"})
    with pytest.raises(tl.TreelearnError, match="maybe"):
        to_html(model, evidence={"smoke": "maybe"})
    page = to_html(model, evidence={"smoke": "yes"})
    assert '"evidence": {"smoke": "yes"}' in page


def test_network_needing_two_conditioners_is_explored_by_its_cutset():
    import networkx as nx

    rng = np.random.default_rng(3)
    df = pd.DataFrame(rng.integers(0, 2, (50, 6)), columns=list("abcdef"))
    # two v-structures: no one variable whose removal leaves a forest, but fixing one
    # parent of each does (tests/test_explorer_dags.py checks the page's numbers)
    g = nx.DiGraph([("a", "c"), ("b", "c"), ("d", "f"), ("e", "f")])
    spec = explorer_spec(tl.fit_cpts(g, df))
    assert spec["cond"] == -1 and len(spec["components"]) == 4
    assert [[spec["variables"][i]["name"] for i, _ in c["fixed"]] for c in spec["components"]] == [
        ["a", "d"]
    ] * 4


@needs_browser
def test_one_conditioner_network_matches(tmp_path):
    import networkx as nx

    rng = np.random.default_rng(4)
    df = pd.DataFrame(rng.integers(0, 3, (300, 4)), columns=list("abcd"))
    # c has the parents a and b: given a, the rest (b -> c -> d) is a tree
    g = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d")])
    model = tl.fit_cpts(g, df, alpha=1.0)
    sets = [{}, {"d": 2}, {"c": 0, "b": 1}, {"a": 2, "d": 0}]
    results = run_fragments(model, tmp_path, [fragment(e) for e in sets])
    for ev, res in zip(sets, results):
        for v, series in model.marginals(ev).items():
            np.testing.assert_allclose(res["marginals"][v], series.to_numpy(), atol=1e-12)


def test_unfitted_classifier_refused():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        tl.TAN().to_html()


def test_cli_show_html(asia, tmp_path):
    model_path = tmp_path / "m.json"
    tl.chow_liu(asia).save(model_path)
    out = tmp_path / "m.html"
    from treelearn.cli._main import main

    assert main(["show", str(model_path), "--html", str(out)]) == 0
    assert 'id="treelearn-data"' in out.read_text(encoding="utf-8")
