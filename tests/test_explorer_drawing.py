"""The explorer's second version (treelearn.viz._explorer), checked in headless Chromium:
arrowheads and each edge's strength (its mutual information under the model, against a
joint table enumerated from the CPTs), zoom/pan/fit and search (the boxes' rectangles on
the screen), the MAP button (against ``map_query`` and brute force), the prior beside the
posterior, the inline notebook display, and no overlapping boxes at two window sizes.
"""

from __future__ import annotations

import html
import itertools
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import joint_rows, map_assignment, model_mutual_information

import treelearn as tl
from tests.test_explorer import CHROMIUM, fragment, multinet_tables, needs_browser, run_page
from tests.test_explorer_panel import page_and_model
from treelearn.viz._explorer import to_html, to_iframe

ROOT = os.path.dirname(os.path.dirname(__file__))
ASIA = pd.read_csv(os.path.join(ROOT, "datasets", "asia.csv"))
TOL = 1e-12  # the page's doubles against numpy's: round-off only


# --------------------------------------------------------------------- edges
EDGES = """<script>
const EDGES = [...document.querySelectorAll("#edges g.edge")].map(g => ({
  edge: JSON.parse(g.dataset.edge), strength: g.dataset.strength === "" ? null : Number(g.dataset.strength),
  title: g.querySelector("title").textContent,
  line: (pts => [...pts[0], ...pts[pts.length - 1]])(g.querySelector("polyline.shown")
    .getAttribute("points").split(" ").map(p => p.split(",").map(Number))),
  head: g.querySelector("path.head").getAttribute("d"),
  label: g.querySelector("text") ? getComputedStyle(g.querySelector("text")).display : null}));
document.getElementById("edge-labels").click();
const SHOWN = [...document.querySelectorAll("#edges text")].map(t => getComputedStyle(t).display);
const out = document.createElement("pre"); out.id = "edges-out";
out.textContent = JSON.stringify({edges: EDGES, after: SHOWN,
  boxes: Object.fromEntries(V.map(v => [v.name, [v.x, v.y, v.w, v.h]]))});
document.body.appendChild(out);
</script></body>"""


@needs_browser
@pytest.mark.parametrize("kind", ["tree", "tan", "network"])
def test_edges_have_arrowheads_and_their_mutual_information(kind, tmp_path):
    if kind in ("tree", "tan"):
        obj, model = page_and_model(kind)
    else:  # fit_cpts: a graph without weights, one v-structure
        g = nx.DiGraph(
            [("smoke", "lung"), ("tub", "either"), ("lung", "either"), ("either", "xray")]
        )
        obj = model = tl.fit_cpts(g, ASIA[["smoke", "lung", "tub", "either", "xray"]])
    res = run_page(obj, tmp_path, EDGES, out="edges-out")
    shown = {tuple(e["edge"]): e for e in res["edges"]}
    # every edge is drawn, but TAN's class -> feature edges beside a feature parent (a
    # mark on the box instead): the drawn ones are the network's
    edges = {(str(u), str(v)) for u, v in model.graph.edges}
    marked = {
        (u, v) for u, v in edges if kind == "tan" and u == "either" and len(model.parents(v)) > 1
    }
    assert set(shown) == edges - marked
    for (u, v), e in shown.items():
        # the arrowhead's tip is the line's end, on the child's box (its top edge, or
        # its side for a child beside its parent)
        x1, _, x2, y2 = e["line"]
        tip = re.match(r"M([-0-9.e]+),([-0-9.e]+) L", e["head"])
        assert (float(tip.group(1)), float(tip.group(2))) == pytest.approx((x2, y2))
        bx, by, bw, bh = res["boxes"][v]
        assert x2 == pytest.approx(bx + bw / 2) and by <= y2 <= by + bh / 2 + 1e-9
        px, _, pw, _ = res["boxes"][u]
        assert x1 == pytest.approx(px + pw / 2)
        assert e["strength"] == pytest.approx(model_mutual_information(model, u, v), abs=TOL)
        assert f"I({u}; {v}) = {e['strength']:.4f} nats" in e["title"]
        assert e["label"] == "none"  # labels are optional: off until the box is ticked
    assert res["after"] and "none" not in res["after"]  # ticked: every label shown


# --------------------------------------------------------------------- MAP and the prior
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


# --------------------------------------------------------------------- zoom, pan, fit, search
def dump(path, size: tuple[int, int], fragment: str = "") -> str:
    url = "file://" + os.path.abspath(path) + fragment
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--hide-scrollbars",
            f"--window-size={size[0]},{size[1]}",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "<body" in done.stdout, done.stderr[-2000:]
    return done.stdout


def page_result(obj, tmp_path, script: str, out: str, size=(1200, 800)):
    path = tmp_path / "v2.html"
    path.write_text(to_html(obj).replace("</body>", script, 1), encoding="utf-8")
    found = re.search(f'<pre id="{out}">(.*?)</pre>', dump(path, size), re.S)
    assert found
    return json.loads(html.unescape(found.group(1)))


RECTS = """<script>
function rects() {
  const out = {};
  document.querySelectorAll("[data-variable]").forEach(d => {
    const r = d.getBoundingClientRect();
    out[d.dataset.variable] = [r.left, r.top, r.right, r.bottom]; });
  const v = document.getElementById("view").getBoundingClientRect();
  return {boxes: out, view: [v.left, v.top, v.right, v.bottom],
          scale: Number(document.getElementById("view").dataset.scale)};
}
const STEPS = {start: rects()};
document.getElementById("fit").click(); STEPS.fit = rects();
document.getElementById("zoom-in").click(); STEPS.zoom_in = rects();
document.getElementById("zoom-out").click(); document.getElementById("zoom-out").click();
STEPS.zoom_out = rects();
const viewEl = document.getElementById("view");
viewEl.dispatchEvent(new WheelEvent("wheel", {deltaY: -200, clientX: 300, clientY: 300, bubbles: true,
                                            cancelable: true}));
STEPS.wheel = rects();
viewEl.dispatchEvent(new MouseEvent("mousedown", {clientX: 5, clientY: 700, button: 0, bubbles: true}));
window.dispatchEvent(new MouseEvent("mousemove", {clientX: 45, clientY: 670}));
window.dispatchEvent(new MouseEvent("mouseup", {}));
STEPS.drag = rects();
const box = document.getElementById("search");
box.value = "%s"; box.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter"}));
STEPS.search = rects();
STEPS.found = [...document.querySelectorAll(".var.found")].map(d => d.dataset.variable);
STEPS.matched = [...document.querySelectorAll(".var.match")].map(d => d.dataset.variable);
STEPS.panel = document.getElementById("why").getBoundingClientRect().width;
STEPS.tools = document.getElementById("tools").getBoundingClientRect().height;
STEPS.width = window.innerWidth;
const out = document.createElement("pre"); out.id = "rects";
out.textContent = JSON.stringify(STEPS); document.body.appendChild(out);
</script></body>"""

ALARM = os.path.join(ROOT, "datasets", "alarm.csv")


def centre(r):
    return ((r[0] + r[2]) / 2, (r[1] + r[3]) / 2)


@needs_browser
def test_fit_zoom_wheel_drag_and_search_move_the_drawing(tmp_path):
    model = tl.chow_liu(pd.read_csv(ALARM, nrows=2000))
    name = "HR"
    steps = page_result(model, tmp_path, RECTS % name, "rects")
    view = steps["start"]["view"]
    width = view[2] - view[0] - (steps["panel"] + 20)  # the panel covers the right side
    bottom = view[3] - (steps["tools"] + 20)  # and the tools the bottom
    # ALARM is larger than the window: it opens fitted, every box inside the window
    for key in ("start", "fit"):
        for r in steps[key]["boxes"].values():
            assert r[0] >= view[0] - 1e-6 and r[2] <= view[0] + width + 1e-6
            assert r[1] >= view[1] - 1e-6 and r[3] <= bottom + 1e-6
    s = steps["fit"]["scale"]
    assert s < 1
    assert steps["zoom_in"]["scale"] == pytest.approx(1.25 * s)
    assert steps["zoom_out"]["scale"] == pytest.approx(1.25 * 0.8 * 0.8 * s)
    # a box's size on screen follows the scale
    a, b = steps["fit"]["boxes"][name], steps["zoom_in"]["boxes"][name]
    assert (b[2] - b[0]) == pytest.approx(1.25 * (a[2] - a[0]), rel=1e-6)
    # the wheel zooms in around the pointer: the point under it stays put
    before, after = steps["zoom_out"], steps["wheel"]
    assert after["scale"] > before["scale"]
    ratio = after["scale"] / before["scale"]
    for v in list(before["boxes"])[:5]:
        x0, x1 = before["boxes"][v][0], after["boxes"][v][0]
        assert x1 - 300 == pytest.approx((x0 - 300) * ratio, abs=1e-3)
    # a drag on the background pans by the pointer's move
    for v, r in steps["drag"]["boxes"].items():
        assert r[0] - steps["wheel"]["boxes"][v][0] == pytest.approx(40, abs=1e-3)
        assert r[1] - steps["wheel"]["boxes"][v][1] == pytest.approx(-30, abs=1e-3)
    # search: the variable is highlighted and its box centred in the visible part
    assert steps["found"] == [name]
    assert name in steps["matched"]
    cx, cy = centre(steps["search"]["boxes"][name])
    assert cx == pytest.approx(view[0] + width / 2, abs=0.5)
    assert cy == pytest.approx((view[1] + bottom) / 2, abs=0.5)


@needs_browser
def test_search_without_a_match_says_so(tmp_path):
    script = """<script>
    const box = document.getElementById("search");
    box.value = "nothing like it"; box.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter"}));
    const out = document.createElement("pre"); out.id = "s";
    out.textContent = JSON.stringify([document.querySelector("#status .msg").textContent,
                                      document.querySelectorAll(".var.found").length]);
    document.body.appendChild(out);
    </script></body>"""
    msg, found = page_result(tl.chow_liu(ASIA), tmp_path, script, "s")
    assert "no variable matches" in msg and found == 0


# --------------------------------------------------------------------- no overlap, two sizes
OVERLAP = """<script>
const BOXES = [...document.querySelectorAll("[data-variable]")].map(d => {
  const r = d.getBoundingClientRect(); return [d.dataset.variable, r.left, r.top, r.right, r.bottom]; });
const v = document.getElementById("view").getBoundingClientRect();
const out = document.createElement("pre"); out.id = "boxes";
out.textContent = JSON.stringify({boxes: BOXES, view: [v.left, v.top, v.right, v.bottom],
                                  window: [innerWidth, innerHeight]});
document.body.appendChild(out);
</script></body>"""


def overlapping(boxes) -> list:
    return [
        (a[0], b[0])
        for a, b in itertools.combinations(boxes, 2)
        if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
    ]


def test_overlap_check_catches_overlapping_boxes():
    assert overlapping([["a", 0, 0, 10, 10], ["b", 5, 5, 15, 15]]) == [("a", "b")]
    assert overlapping([["a", 0, 0, 10, 10], ["b", 10, 0, 20, 10]]) == []  # touching


@needs_browser
@pytest.mark.parametrize("size", [(1280, 800), (640, 480)])
@pytest.mark.parametrize(
    "kind", ["alarm", "tan", "gaussian", "clg", "bayes_tan", "gaussian_tan", "a2de", "mixed_nb"]
)
def test_no_boxes_overlap_on_screen(kind, size, tmp_path):
    X, y = ASIA.drop(columns="either"), ASIA["either"]
    if kind in ("bayes_tan", "a2de"):  # the class above the (most probable) feature tree
        obj = (tl.BayesianTAN() if kind == "bayes_tan" else tl.AnDE(n=2)).fit(X, y)
    elif kind == "gaussian_tan":
        from tests.test_explorer_class_gaussians import fitted

        obj = fitted("tan")
    elif kind == "mixed_nb":
        from tests.test_explorer_mixed_nb import fitted

        obj = fitted()[0]
    elif kind == "alarm":
        obj = tl.chow_liu(pd.read_csv(ALARM, nrows=2000))
    elif kind == "gaussian":  # ALARM's shape as a Gaussian tree: its state codes as numbers
        codes = pd.read_csv(ALARM, nrows=2000).apply(lambda c: c.astype("category").cat.codes)
        obj = tl.gaussian_chow_liu(codes.loc[:, codes.std() > 0].astype(float))
    elif kind == "clg":
        from tests.test_explorer_clg import clg_model

        obj = clg_model()
    else:
        obj = tl.TAN().fit(ASIA.drop(columns="either"), ASIA["either"])
    res = page_result(obj, tmp_path, OVERLAP, "boxes", size=size)
    assert res["window"][0] == size[0]  # (headless Chromium keeps some height for itself)
    assert (
        len(res["boxes"])
        == {
            "alarm": 37,
            "tan": 8,
            "clg": 6,
            "bayes_tan": 8,
            "a2de": 8,
            "gaussian_tan": 4,
            "mixed_nb": 5,
            "gaussian": len(getattr(obj, "variables", ())),
        }[kind]
    )
    assert overlapping(res["boxes"]) == []
    view = res["view"]
    for _, left, top, right, bottom in res["boxes"]:  # the whole drawing in the window
        assert left >= view[0] - 1e-6 and right <= view[2] + 1e-6
        assert top >= view[1] - 1e-6 and bottom <= view[3] + 1e-6
    # and a picture of it, at that size
    shot = tmp_path / "shot.png"
    page = tmp_path / "plain.html"
    page.write_text(to_html(obj), encoding="utf-8")
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--hide-scrollbars",
            f"--window-size={size[0]},{size[1]}",
            f"--screenshot={shot}",
            "file://" + str(page),
        ],
        capture_output=True,
        timeout=120,
    )
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png[16:20], "big") == size[0]


# --------------------------------------------------------------------- in a notebook
class _Frames(HTMLParser):
    def __init__(self):
        super().__init__()
        self.frames, self.tags = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "iframe":
            self.frames.append(dict(attrs))


@pytest.mark.parametrize("kind", ["tree", "tan"])
def test_explore_shows_the_page_in_an_iframe(kind, tmp_path):
    obj, _ = page_and_model(kind)
    shown = obj.explore()
    out = shown._repr_html_()
    parser = _Frames()
    parser.feed(out)
    assert [t for t, _ in parser.tags] == ["iframe"]  # one element, nothing else loaded
    (frame,) = parser.frames
    assert "src" not in frame and frame["sandbox"] == "allow-scripts"
    assert frame["srcdoc"] == to_html(obj)  # the attribute unescapes to the page itself
    assert html.escape(frame["srcdoc"], quote=True) in out
    assert '"' not in out.split('srcdoc="', 1)[1].split('" sandbox', 1)[0]  # escaped
    for needle in ("<script src", "<link", "https://", "url("):
        assert needle not in frame["srcdoc"]
    assert to_iframe(obj, height=500).count("height: 500px") == 1
    shown.save(tmp_path / "p.html")
    assert (tmp_path / "p.html").read_text(encoding="utf-8") == to_html(obj)
    with pytest.raises(tl.TreelearnError, match="height"):
        to_iframe(obj, height=0)


def test_explore_refuses_what_the_explorer_refuses():
    rng = np.random.default_rng(3)
    cols = [f"x{i}" for i in range(16)]
    df = pd.DataFrame(rng.integers(0, 4, (200, 16)), columns=cols)
    g = nx.DiGraph([(cols[i - k], cols[i]) for i in range(2, 16) for k in (1, 2)])
    with pytest.raises(tl.TreelearnError, match="joint states"):
        tl.fit_cpts(g, df).explore()


@needs_browser
def test_the_iframe_runs_the_page(tmp_path):
    # the notebook's cell, as a page: the frame's page computes its marginals
    model = tl.chow_liu(ASIA)
    outer = tmp_path / "cell.html"
    outer.write_text(
        "<!DOCTYPE html><html><body>"
        + to_iframe(model, evidence={"smoke": "yes"})
        + "</body></html>",
        encoding="utf-8",
    )
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--dump-dom",
            "file://" + str(outer),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "<iframe" in done.stdout  # dump-dom shows the outer page only; the frame's own
    frame = _Frames()  # page is checked by loading its srcdoc directly
    frame.feed(to_iframe(model, evidence={"smoke": "yes"}))
    page = tmp_path / "frame.html"
    page.write_text(frame.frames[0]["srcdoc"], encoding="utf-8")
    from tests.test_explorer import displayed, dump_dom

    shown = displayed(dump_dom(str(page)))
    for v, series in model.marginals({"smoke": "yes"}).items():
        np.testing.assert_allclose(shown[v], series.to_numpy(), rtol=0, atol=TOL)


# --------------------------------------------------------------------- a mixture of trees
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


def test_kinds_the_page_cannot_compute_on_are_refused_with_the_reason():
    X, y = ASIA.drop(columns="either"), ASIA["either"]
    rng = np.random.default_rng(0)
    num = pd.DataFrame(rng.normal(size=(200, 4)), columns=list("abcd"))
    Xn, yn = num.drop(columns="d"), (num["d"] > 0).astype(int)
    # too large for its page: the kind says why; no page at all: the one refusal of an
    # undeclared capability (a copula's Gaussians are of normal scores, a kernel TAN
    # averages several estimators), naming what the kind does answer
    with pytest.raises(tl.TreelearnError, match="map_tree"):
        to_html(tl.tree_posterior(pd.read_csv(ALARM, nrows=300)))
    for obj in (tl.CopulaTAN().fit(Xn, yn), tl.KernelTAN().fit(Xn, yn)):
        with pytest.raises(tl.CapabilityError, match="does not answer explorer"):
            to_html(obj)
        assert not obj.supports("explorer")
    # a mixed classifier without numeric columns is a discrete one: explored as such
    assert "treelearn-data" in to_html(tl.MixedNaiveBayes().fit(X, y))


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
