"""Drawings outside pyplot, and what Jupyter shows for a drawing, a model and a classifier."""

from __future__ import annotations

import gc
import io
import os
import re
import warnings
import weakref
import xml.etree.ElementTree as ET

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import treelearn as tl

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

DATASETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "datasets")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def asia():
    return pd.read_csv(os.path.join(DATASETS, "asia.csv"))


@pytest.fixture(scope="module")
def tennis():
    df = pd.read_csv(os.path.join(DATASETS, "playtennis.csv"))
    return df.drop(columns=["Day", "PlayTennis"]), df["PlayTennis"]


# ---------------------------------------------------------------- pyplot-free drawing
def test_25_drawings_neither_warn_nor_stay_in_pyplot(asia, tennis):
    model = tl.chow_liu(asia)
    tan = tl.TAN().fit(*tennis)
    multinet = tl.ChowLiuMultinet().fit(*tennis)
    before = plt.get_fignums()
    assert matplotlib.rcParams["figure.max_open_warning"] <= 20  # pyplot would warn at 21
    figures = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "More than 20 figures" would fail here
        for i in range(25):
            fig = (model.draw(title=True), tan.draw(), multinet.draw())[i % 3]
            assert isinstance(fig, Figure)
            figures.append(weakref.ref(fig))
    assert plt.get_fignums() == before
    del fig
    gc.collect()
    assert all(ref() is None for ref in figures)  # nothing keeps them once the caller drops them


def test_drawing_into_given_axes_stays_there(asia):
    fig, (left, right) = plt.subplots(1, 2)
    before = plt.get_fignums()
    assert tl.chow_liu(asia).draw(ax=right) is fig
    assert plt.get_fignums() == before
    labels = {t.get_text() for t in right.texts}
    assert set(asia.columns) <= labels
    assert not left.texts  # the other axes untouched


def test_pyplot_can_take_a_drawing_to_show_it(asia):
    fig = tl.chow_liu(asia).draw()
    if tuple(int(x) for x in matplotlib.__version__.split(".")[:2]) < (3, 10):
        pytest.skip("plt.figure(fig) adopts an unmanaged figure from matplotlib 3.10 on")
    before = len(plt.get_fignums())
    assert plt.figure(fig) is fig  # what new_figure's docstring advises for a window
    assert len(plt.get_fignums()) == before + 1


# ---------------------------------------------------------------- Jupyter: one picture
def _png_shape(data: bytes) -> tuple:
    assert data.startswith(PNG_SIGNATURE)
    return mpimg.imread(io.BytesIO(data), format="png").shape


def test_returned_drawing_is_one_png_and_not_pyplots(asia):
    """A cell ending in ``model.draw()``: pyplot's inline backend shows only the figures pyplot
    holds (none here), IPython shows the returned value once, as its PNG."""
    before = plt.get_fignums()
    fig = tl.chow_liu(asia).draw(title=True)
    assert plt.get_fignums() == before
    height, width, _ = _png_shape(fig._repr_png_())
    w_in, h_in = fig.get_size_inches()
    # bbox_inches="tight": the drawing's extent plus savefig.pad_inches on each side
    pad = 2 * matplotlib.rcParams["savefig.pad_inches"]
    assert width / height == pytest.approx(w_in / h_in, rel=0.15)
    assert width <= (w_in + pad) * fig.dpi + 2 and height <= (h_in + pad) * fig.dpi + 2


def test_model_repr_is_one_svg_picture(asia):
    model = tl.chow_liu(asia)
    before = plt.get_fignums()
    svg = model._repr_svg_()
    assert plt.get_fignums() == before
    root = ET.fromstring(svg.encode("utf-8"))  # well-formed XML
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert svg.count("<svg") == 1
    assert "<dc:date>" not in svg  # the same model gives the same text
    assert model._repr_svg_() == svg


NOTEBOOK = r"""
import json, os, sys
os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"  # as ipykernel sets it
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

shell = InteractiveShell.instance()
setup = (
    "import pandas as pd, treelearn as tl\n"
    "df = pd.read_csv(%r)\n"
    "m = tl.chow_liu(df)\n"
    "clf = tl.TAN().fit(df.drop(columns='either'), df['either'])\n"
) % sys.argv[1]
if sys.argv[2] == "pyplot":  # pyplot imported: the inline backend and its figure printer active
    setup += "import matplotlib.pyplot as plt\n"
shell.run_cell(setup).raise_error()
images = ("image/png", "image/svg+xml")
out = {}
for cell in sys.argv[3:]:
    with capture_output() as cap:  # what pyplot's inline backend shows after the cell
        result = shell.run_cell(cell)
    result.raise_error()
    flushed = sum(any(k in o.data for k in images) for o in cap.outputs)
    shown = 0  # what the notebook shows for the cell's value (one output, its richest mime)
    if result.result is not None and not cell.rstrip().endswith(";"):
        data, _ = shell.display_formatter.format(result.result)
        shown = int(any(k in data for k in images) or "<svg" in data.get("text/html", ""))
        if "text/html" in data:  # the frontend shows the HTML: the picture must be in it
            shown = int("<svg" in data["text/html"])
    out[cell] = [shown, flushed, "More than 20 figures" in cap.stderr]
print(json.dumps(out))
"""


@pytest.mark.slow  # an IPython shell in a subprocess: the second CI job
@pytest.mark.parametrize("pyplot", ["pyplot", "no pyplot"])
def test_notebook_cells_show_one_picture(tmp_path, pyplot):
    """A simulated notebook (IPython's shell with ipykernel's inline backend): a cell ending in
    ``m.draw()``, ``m`` or a fitted classifier shows one picture; 25 drawings none and no
    warning. Skipped without IPython and matplotlib-inline."""
    pytest.importorskip("IPython")
    pytest.importorskip("matplotlib_inline")
    import json
    import subprocess
    import sys

    cells = ["m.draw()", "m", "clf", "fig = m.draw()", "[m.draw() for _ in range(25)];"]
    script = tmp_path / "notebook.py"
    script.write_text(NOTEBOOK)
    run = subprocess.run(
        [sys.executable, str(script), os.path.join(DATASETS, "asia.csv"), pyplot, *cells],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen == {
        "m.draw()": [1, 0, False],
        "m": [1, 0, False],
        "clf": [1, 0, False],
        "fig = m.draw()": [0, 0, False],
        "[m.draw() for _ in range(25)];": [0, 0, False],
    }


# ---------------------------------------------------------------- the classifier's HTML box
def _svg_paths(text: str) -> list:
    return re.findall(r' d="([^"]*)"', text)


def _external_references(html: str) -> list:
    """Whatever a browser would fetch: src/href not to '#...', url(...) not to '#...', @import,
    <link>, <script src>; and any URL not in an xmlns declaration (a namespace name)."""
    found = re.findall(r'(?:src|href)\s*=\s*"(?!#)[^"]*"', html)
    found += re.findall(r"url\((?!#)[^)]*\)", html)
    found += re.findall(r"@import|<link\b|<script\b[^>]*\bsrc", html)
    without_ns = re.sub(r'xmlns(?::\w+)?="[^"]*"', "", html)
    found += re.findall(r"(?:https?|ftp|file)://\S+", without_ns)
    return found


@pytest.mark.parametrize("make", [tl.TAN, tl.NaiveBayes, tl.ChowLiuMultinet])
def test_classifier_html_box_carries_the_network(tennis, make):
    sklearn = pytest.importorskip("sklearn")
    clf = make().fit(*tennis)
    with sklearn.config_context(display="diagram"):
        bundle = clf._repr_mimebundle_()
        html = clf._repr_html_()
    for text in (html, bundle["text/html"]):
        # scikit-learn's box, as it draws it for any estimator, then our picture
        assert "sk-top-container" in text and type(clf).__name__ in text
        assert text.count("<svg") == 1 and text.count("</svg>") == 1
        box, picture = text.split('<div class="treelearn-network"', 1)
        assert "sk-top-container" in box and "<svg" not in box
        svg = picture[picture.index("<svg") : picture.index("</svg>") + len("</svg>")]
        root = ET.fromstring(svg.encode("utf-8"))
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert _external_references(picture) == []
        # matplotlib's "*{...}" rule restyles this picture only
        ident = root.get("id")
        assert ident and picture.count("*{") == picture.count(f"#{ident} *{{") >= 1
        # the same drawing as the picture Jupyter shows alone
        assert _svg_paths(svg) == _svg_paths(bundle["image/svg+xml"])
    assert _svg_paths(bundle["image/svg+xml"]) == _svg_paths(clf._repr_svg_())


def test_unfitted_or_text_display_keeps_scikit_learns_repr(tennis):
    sklearn = pytest.importorskip("sklearn")
    with sklearn.config_context(display="diagram"):
        unfitted = tl.TAN()
        assert set(unfitted._repr_mimebundle_()) == {"text/plain", "text/html"}
        assert "<svg" not in unfitted._repr_html_()
        assert "sk-top-container" in unfitted._repr_html_()
    clf = tl.TAN().fit(*tennis)
    with sklearn.config_context(display="text"):
        assert not hasattr(clf, "_repr_html_")  # as scikit-learn's: no HTML in text mode
        bundle = clf._repr_mimebundle_()
        assert set(bundle) == {"text/plain", "image/svg+xml"}  # the picture still shown
        assert bundle["text/plain"] == repr(clf)


# ---------------------------------------------------------------- light edges go round the boxes
def _box_extents(fig) -> dict:
    """Display-space extents ``[x0, y0, x1, y1]`` of every node's drawn (rounded) box."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return {
        v: text.get_bbox_patch().get_window_extent(renderer).extents
        for v, text in fig.treelearn_node_texts.items()
    }


def _dashed_arrow_points(fig) -> list:
    """For each dashed arrow, points densely along its drawn path (line and head), in display
    coordinates, taken from the artist itself."""
    from matplotlib.patches import FancyArrowPatch

    out = []
    t = np.linspace(0.0, 1.0, 400)
    for patch in fig.axes[0].patches:
        if not isinstance(patch, FancyArrowPatch) or patch.get_linestyle() in ("-", "solid"):
            continue
        path = patch.get_transform().transform_path(patch.get_path())
        pts = np.concatenate([segment(t) for segment, _ in path.iter_bezier()])
        out.append((pts, path.vertices[0]))
    return out


def _distance_to_box(point, extents) -> float:
    x0, y0, x1, y1 = extents
    dx = max(x0 - point[0], 0.0, point[0] - x1)
    dy = max(y0 - point[1], 0.0, point[1] - y1)
    return float(np.hypot(dx, dy))


def _inside_box(pts, extents, margin) -> np.ndarray:
    x0, y0, x1, y1 = extents
    return (
        (pts[:, 0] > x0 + margin)
        & (pts[:, 0] < x1 - margin)
        & (pts[:, 1] > y0 + margin)
        & (pts[:, 1] < y1 - margin)
    )


def _check_light_edges(fig, expected: set) -> int:
    """Every dashed arrow runs from one box to another without entering any box: not the
    boxes it passes, not an MI label, and not its own two beyond their borders (it is
    clipped at both)."""
    boxes = _box_extents(fig)
    renderer = fig.canvas.get_renderer()
    nodes = set(fig.treelearn_node_texts.values())
    labels = [  # the MI labels on the tree's edges (white boxes)
        t.get_bbox_patch().get_window_extent(renderer).extents
        for t in fig.axes[0].texts
        if t not in nodes and t.get_bbox_patch() is not None
    ]
    arrows = _dashed_arrow_points(fig)
    found = set()
    for pts, first in arrows:
        # its ends: the box nearest its first point (the tail) and the one nearest the tip,
        # which is the point farthest along the drawn line from the tail
        tail = min(boxes, key=lambda v: _distance_to_box(first, boxes[v]))
        tip_point = pts[np.argmax(np.hypot(*(pts - first).T))]
        head = min(
            (v for v in boxes if v != tail), key=lambda v: _distance_to_box(tip_point, boxes[v])
        )
        found.add((tail, head))
        for v, extents in boxes.items():
            crossed = _inside_box(pts, extents, 1.0 if v in (tail, head) else -1.0)
            assert not crossed.any(), f"the dashed arrow {tail} -> {head} runs through {v}"
        for extents in labels:
            assert not _inside_box(pts, extents, 1.0).any(), f"{tail} -> {head} crosses an MI label"
        near = 4 * fig.dpi / 100  # 4 px at 100 dpi (0.04 in): drawings are 150 dpi now
        assert _distance_to_box(first, boxes[tail]) < near  # starts at its box
        assert _distance_to_box(tip_point, boxes[head]) < near  # and ends at the other
    assert found == expected
    return len(labels)


@pytest.mark.parametrize("name", ["playtennis", "scifi_films", "asia"])
def test_tan_class_arrows_go_round_the_boxes(name):
    df = pd.read_csv(os.path.join(DATASETS, f"{name}.csv"))
    target = {"playtennis": "PlayTennis", "scifi_films": "good_film", "asia": "either"}[name]
    X, y = df.drop(columns=[target, "Day"], errors="ignore"), df[target]
    model = tl.TAN().fit(X, y).model_
    for kwargs in (
        {"class_edges": "lines"},
        {"class_edges": "lines", "edge_labels": True, "title": True},
    ):
        fig = model.draw(**kwargs)
        n_labels = _check_light_edges(fig, {(target, v) for v in X.columns})
        # with edge_labels, every feature -> feature edge carries its label
        assert n_labels == (len(X.columns) - 1 if kwargs.get("edge_labels") else 0)


def test_extra_edges_of_a_dag_go_round_the_boxes():
    from treelearn.viz._draw import display_parents

    # asia's network: either has two parents (tub, lung), dysp two (bronc, either)
    edges = [
        ("asia", "tub"),
        ("smoke", "lung"),
        ("smoke", "bronc"),
        ("tub", "either"),
        ("lung", "either"),
        ("either", "xray"),
        ("bronc", "dysp"),
        ("either", "dysp"),
    ]
    graph = nx.DiGraph(edges)
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.integers(0, 2, size=(300, len(graph))), columns=list(graph))
    model = tl.fit_cpts(graph, df)
    hang = display_parents(model)  # each node hangs from one parent; the others are extra
    extra = {(p, v) for v in graph for p in graph.predecessors(v) if p != hang[v]}
    assert len(extra) == 2
    _check_light_edges(model.draw(), extra)


def test_html_picture_keeps_a_given_svg_id(tennis):
    """rcParams["svg.id"] already names the picture: it stays the only id, and the style
    rule is scoped to it (a second id attribute would make the SVG malformed)."""
    clf = tl.TAN().fit(*tennis)
    with matplotlib.rc_context({"svg.id": "my-network"}):
        svg = clf._repr_svg_()
    from treelearn.viz._draw import html_with_picture

    html = html_with_picture("<div>box</div>", svg)
    picture = html[html.index("<svg") : html.index("</svg>") + len("</svg>")]
    assert ET.fromstring(picture.encode("utf-8")).get("id") == "my-network"
    assert html.count("*{") == html.count("#my-network *{") >= 1
