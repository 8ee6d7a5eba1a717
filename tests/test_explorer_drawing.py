"""The explorer's drawing (treelearn.viz._explorer), checked in headless Chromium:
arrowheads and each edge's strength (its mutual information under the model, against a
joint table enumerated from the CPTs), zoom/pan/fit and search (the boxes' rectangles on
the screen), and no overlapping boxes at two window sizes. The MAP button is checked in
tests/test_explorer_map.py, the notebook display in tests/test_explorer_notebook.py, a
mixture's page in tests/test_explorer_mixture.py.
"""

from __future__ import annotations

import html
import itertools
import json
import os
import re
import subprocess

import networkx as nx
import pandas as pd
import pytest
from oracles import model_mutual_information

import treelearn as tl
from tests.test_explorer import CHROMIUM, needs_browser, run_page
from tests.test_explorer_panel import page_and_model
from treelearn.viz._explorer import to_html

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
