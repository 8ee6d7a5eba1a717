"""Drawing, DOT and Mermaid: the pictures read as trees and carry the model's information."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import random_tree_network, sample_tree_network

import treelearn as tl
from treelearn.viz._draw import layout

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATASETS = os.path.join(HERE, "..", "datasets")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def asia_df():
    return pd.read_csv(os.path.join(DATASETS, "asia.csv"))


@pytest.fixture(scope="module")
def alarm_model():
    return tl.chow_liu(pd.read_csv(os.path.join(DATASETS, "alarm.csv")))


@pytest.fixture(scope="module")
def tree60():
    """A Chow-Liu tree learned on data from a random 60-node tree network, long names."""
    rng = np.random.default_rng(7)
    d = 60
    edges, cpts = random_tree_network(d, [2 + (j % 3) for j in range(d)], rng, strength=0.9)
    names = [f"variable_{j:02d}" + ("_long" if j % 4 == 0 else "") for j in range(d)]
    df = sample_tree_network(edges, cpts, 3000, rng, names=names)
    return tl.chow_liu(df)


def _label_boxes(fig):
    """Display-space boxes of the node labels (the drawn rounded box, not just the glyphs)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = {}
    for v, text in fig.treelearn_node_texts.items():
        patch = text.get_bbox_patch()
        boxes[v] = (
            patch.get_window_extent(renderer)
            if patch is not None
            else text.get_window_extent(renderer)
        )
    return boxes


def _overlapping(boxes):
    return [(u, v) for (u, a), (v, b) in itertools.combinations(boxes.items(), 2) if a.overlaps(b)]


def _node_positions(fig):
    return {v: t.get_position() for v, t in fig.treelearn_node_texts.items()}


def _png_pixels(path):
    from matplotlib.image import imread

    return imread(path)


def test_alarm_png_is_a_sensible_image(alarm_model, tmp_path):
    path = tmp_path / "alarm.png"
    fig = alarm_model.draw(title=True)
    fig.savefig(path, dpi=100)
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    pixels = _png_pixels(path)
    h, w = pixels.shape[:2]
    assert 300 <= w <= 6000 and 300 <= h <= 6000
    assert 0.2 < w / h < 8
    rgb = pixels[..., :3]
    background = (rgb > 0.99).all(axis=-1)
    assert 0.02 < 1 - background.mean() < 0.6  # ink, but not a blot
    assert not _overlapping(_label_boxes(fig))


def test_sixty_node_tree_labels_do_not_overlap(tree60):
    assert len(tree60.variables) == 60
    fig = tree60.draw(edge_labels=True, title=True)
    boxes = _label_boxes(fig)
    assert len(boxes) == 60
    assert not _overlapping(boxes)
    # and every label lies inside the figure
    fig_box = fig.bbox
    for box in boxes.values():
        assert box.x0 >= fig_box.x0 - 1 and box.x1 <= fig_box.x1 + 1
        assert box.y0 >= fig_box.y0 - 1 and box.y1 <= fig_box.y1 + 1


def test_reads_as_a_tree(tree60):
    """Root on top, one row per depth, each parent above and centred over its children."""
    fig = tree60.draw()
    pos = _node_positions(fig)
    depth = nx.shortest_path_length(tree60.graph, tree60.root)
    rows = {}
    for v, d in depth.items():
        rows.setdefault(d, set()).add(round(pos[v][1], 6))
    assert all(len(ys) == 1 for ys in rows.values())
    ys = [rows[d].pop() for d in sorted(rows)]
    assert ys == sorted(ys, reverse=True)  # deeper is lower
    for v in tree60.variables:
        kids = list(tree60.graph.successors(v))
        if kids:
            xs = sorted(pos[c][0] for c in kids)
            assert pos[v][0] == pytest.approx((xs[0] + xs[-1]) / 2)


def test_figure_grows_with_the_tree(asia_df, tree60):
    small = tl.chow_liu(asia_df).draw().get_size_inches()
    big = tree60.draw().get_size_inches()
    assert big[0] > 2 * small[0]


def test_forest_trees_side_by_side(asia_df):
    forest = tl.chow_liu(asia_df, forest=0.03)
    assert len(forest.roots) > 1
    fig = forest.draw()
    pos = _node_positions(fig)
    assert not _overlapping(_label_boxes(fig))
    for r in forest.roots:  # every root on the top row
        assert pos[r][1] == pytest.approx(pos[forest.roots[0]][1])


def test_edge_width_follows_mutual_information(asia_df):
    from matplotlib.patches import FancyArrowPatch

    model = tl.chow_liu(asia_df)
    fig = model.draw()
    arrows = [p for p in fig.axes[0].patches if isinstance(p, FancyArrowPatch)]
    assert len(arrows) == model.graph.number_of_edges()
    widths = sorted(a.get_linewidth() for a in arrows)
    weights = sorted(d["weight"] for _, _, d in model.graph.edges(data=True))
    # same order: the widest edge is the largest MI
    assert np.argsort(widths).tolist() == np.argsort(weights).tolist() or widths[-1] > widths[0]
    assert widths[-1] > 3 * widths[0]


def test_edge_labels_and_title(asia_df):
    model = tl.chow_liu(asia_df)
    fig = model.draw(edge_labels=True, title=True, data=asia_df)
    texts = [t.get_text() for t in fig.axes[0].texts]
    for _, _, d in model.graph.edges(data=True):
        assert f"{d['weight']:.3f}" in texts
    title = fig.axes[0].get_title()
    assert "n = 10,000" in title
    ll = f"{model.log_likelihood(asia_df):,.1f}".replace("-", "\u2212")
    assert ll in title
    assert fig.axes[0].get_title() != "" and model.draw(title="Asia").axes[0].get_title() == "Asia"
    assert model.draw().axes[0].get_title() == ""


def test_dollar_signs_in_names_are_drawn_as_written(tmp_path):
    import matplotlib

    model = tl.chow_liu(pd.DataFrame({"cost $x$": [0, 1, 1, 0], "b": [0, 1, 1, 1]}))
    fig = model.draw(title=True)
    path = tmp_path / "dollar.svg"
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # text stays text in the SVG
        fig.savefig(path)
    svg = path.read_text()
    assert ">cost $x$<" in svg  # one text element; mathtext sets "cost " and an italic "x" apart
    assert "2 variables" in fig.axes[0].get_title()
    one = tl.chow_liu(pd.DataFrame({"a": [0, 1, 1]})).draw(title=True)
    assert "1 variable\n" in one.axes[0].get_title() + "\n"


def test_no_weights_after_pgmpy_round_trip(asia_df):
    model = tl.from_pgmpy(tl.chow_liu(asia_df).to_pgmpy())
    fig = model.draw(edge_labels=True)
    assert not _overlapping(_label_boxes(fig))


def test_class_node_marked_for_classifiers(asia_df):
    X, y = asia_df.drop(columns="either"), asia_df["either"]
    for clf in (tl.NaiveBayes().fit(X, y), tl.TAN().fit(X, y)):
        fig = clf.model_.draw()
        texts = fig.treelearn_node_texts
        assert texts["either"].get_fontweight() == "bold"
        assert texts["asia"].get_fontweight() == "normal"
        face = texts["either"].get_bbox_patch().get_facecolor()
        assert face != texts["asia"].get_bbox_patch().get_facecolor()
        assert not _overlapping(_label_boxes(fig))
    # TAN: the class on top, the feature tree below it; class -> feature edges dashed
    tan = tl.TAN().fit(X, y).model_
    fig = tan.draw(class_edges="lines")
    pos = _node_positions(fig)
    assert all(pos["either"][1] > pos[v][1] for v in tan.variables if v != "either")
    styles = [p.get_linestyle() for p in fig.axes[0].patches]
    assert sum(s != "-" for s in styles) >= len(tan.variables) - 2


def test_draw_into_given_axes(asia_df):
    model = tl.chow_liu(asia_df)
    fig, (a, b) = plt.subplots(1, 2, figsize=(6, 3))
    assert model.draw(a) is fig
    model.draw(b, title="second")
    assert b.get_title() == "second"
    assert not _overlapping(_label_boxes(fig))


def test_saves_png_svg_pdf(asia_df, tmp_path):
    fig = tl.chow_liu(asia_df).draw()
    for ext, magic in (("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")):
        path = tmp_path / f"tree.{ext}"
        fig.savefig(path)
        assert path.read_bytes().startswith(magic)


def test_jupyter_svg(asia_df):
    svg = tl.chow_liu(asia_df)._repr_svg_()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "smoke" in repr(tl.chow_liu(asia_df))


def test_draw_without_matplotlib_says_how_to_install(asia_df):
    code = (
        "import sys; sys.modules['matplotlib'] = None; sys.modules['matplotlib.pyplot'] = None\n"
        "import pandas as pd, treelearn as tl\n"
        "m = tl.chow_liu(pd.DataFrame({'a': [0, 1, 1], 'b': [0, 1, 0]}))\n"
        "assert m._repr_svg_() is None\n"
        "try:\n    m.draw()\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 'pip install "treelearn[viz]"' in out.stdout


# ------------------------------------------------------------------ DOT and Mermaid
def _dot_edges(text):
    pydot = pytest.importorskip("pydot")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyparsing deprecations inside pydot
        (graph,) = pydot.graph_from_dot_data(text)
    strip = lambda s: s[1:-1].replace('\\"', '"').replace("\\\\", "\\") if s.startswith('"') else s  # noqa: E731
    nodes = {
        strip(n.get_name()): strip(n.get("label"))
        for n in graph.get_nodes()
        if n.get_name() not in ("node", "edge", "graph")
    }
    edges = {
        (nodes[strip(e.get_source())], nodes[strip(e.get_destination())]) for e in graph.get_edges()
    }
    return graph, nodes, edges


def test_dot_parses_and_has_the_models_edges(alarm_model):
    graph, nodes, edges = _dot_edges(alarm_model.to_dot())
    assert set(nodes.values()) == set(alarm_model.variables)
    assert edges == set(alarm_model.graph.edges)
    labels = {float(e.get("label").strip('"')) for e in graph.get_edges()}
    assert labels == {round(d["weight"], 3) for _, _, d in alarm_model.graph.edges(data=True)}


def test_dot_quotes_awkward_names():
    df = pd.DataFrame(
        {
            'say "hi"': [0, 1, 1, 0],
            "back\\slash": [0, 1, 1, 1],
            "two words; {x}": [1, 1, 0, 0],
            "new\nline": [0, 0, 1, 1],
        }
    )
    model = tl.chow_liu(df)
    _, _nodes, edges = _dot_edges(model.to_dot())
    expected = {(str(u), str(v).replace("\n", "\\n")) for u, v in model.graph.edges}
    assert {(u, v) for u, v in edges} == expected


def test_dot_renders_with_graphviz_when_installed(alarm_model, tmp_path):
    import shutil

    if shutil.which("dot") is None:
        pytest.skip("Graphviz is not installed")
    out = subprocess.run(
        ["dot", "-Tsvg"], input=alarm_model.to_dot(), capture_output=True, text=True, check=True
    )
    assert "<svg" in out.stdout


def test_dot_and_mermaid_mark_the_class(asia_df):
    tan = tl.TAN().fit(asia_df.drop(columns="either"), asia_df["either"]).model_
    dot = tan.to_dot()
    assert dot.count("style=dashed") == len(tan.variables) - 1
    _, _, edges = _dot_edges(dot)
    assert edges == set(tan.graph.edges)
    mermaid = tan.to_mermaid()
    assert mermaid.splitlines()[0] == "flowchart TD"
    assert mermaid.count("-.->") == len(tan.variables) - 1
    assert "class n" in mermaid and "cls" in mermaid


def test_mermaid_ids_are_safe():
    df = pd.DataFrame({'a "b"': [0, 1, 1, 0], "c-->d": [0, 1, 1, 1], "end": [1, 1, 0, 0]})
    model = tl.chow_liu(df)
    text = model.to_mermaid()
    lines = text.splitlines()
    node_lines = [ln.strip() for ln in lines[1 : 1 + len(model.variables)]]
    assert node_lines == ['n0["a #quot;b#quot;"]', 'n1["c--#gt;d"]', 'n2["end"]']
    edge_lines = [ln for ln in lines if "-->" in ln and "[" not in ln]
    assert len(edge_lines) == model.graph.number_of_edges()
    ids = {v: f"n{i}" for i, v in enumerate(model.variables)}
    for u, v in model.graph.edges:
        assert any(
            ln.strip().startswith(ids[u] + " ") and ln.strip().endswith(" " + ids[v])
            for ln in edge_lines
        )


def test_large_star_and_tan_stay_readable():
    """Naive Bayes with many features: round the class; TAN: class edges become dots."""
    alarm = pd.read_csv(os.path.join(DATASETS, "alarm.csv")).iloc[:2000]
    X, y = alarm.drop(columns="BP"), alarm["BP"]
    nb = tl.NaiveBayes().fit(X, y).model_
    fig = nb.draw(title=True)
    assert not _overlapping(_label_boxes(fig))
    width, height = fig.get_size_inches()
    assert width < 16 and height < 16  # not one 30-inch row
    tan = tl.TAN().fit(X, y).model_
    fig = tan.draw(edge_labels=True)
    assert not _overlapping(_label_boxes(fig))
    from matplotlib.patches import FancyArrowPatch

    arrows = [p for p in fig.axes[0].patches if isinstance(p, FancyArrowPatch)]
    assert len(arrows) == tan.graph.number_of_edges() - (len(tan.variables) - 2)
    assert any("also a parent" in t.get_text() for t in fig.axes[0].texts)
    lines = tan.draw(class_edges="lines")
    arrows = [p for p in lines.axes[0].patches if isinstance(p, FancyArrowPatch)]
    assert len(arrows) == tan.graph.number_of_edges()
    with pytest.raises(ValueError, match="class_edges"):
        tan.draw(class_edges="bogus")


def test_classifiers_draw_show_and_save_like_models(asia_df, tmp_path):
    X, y = asia_df.drop(columns="either"), asia_df["either"]
    tan = tl.TAN().fit(X, y)
    fig = tan.draw()
    texts = {t.get_text() for t in fig.axes[0].texts}
    assert set(tan.model_.variables) <= texts  # every node labelled, the class among them
    assert tan.to_dot() == tan.model_.to_dot()
    assert tan._repr_svg_().lstrip().startswith(("<?xml", "<svg"))
    assert tl.TAN()._repr_svg_() is None  # unfitted: no picture, the estimator's own repr
    tan.save(tmp_path / "tan.json")
    np.testing.assert_array_equal(
        tl.load(tmp_path / "tan.json").predict_proba(X), tan.predict_proba(X)
    )

    multinet = tl.ChowLiuMultinet().fit(X, y)
    fig = multinet.draw()
    assert len(fig.axes) == len(multinet.classes_)  # one panel per class's tree
    for ax, label in zip(fig.axes, multinet.classes_):
        assert {t.get_text() for t in ax.texts} >= set(multinet.models_[label].variables)
        assert label in ax.get_title()


def test_multinet_takes_a_title_like_a_model(asia_df):
    X, y = asia_df.drop(columns="either").iloc[:2000], asia_df["either"].iloc[:2000]
    multinet = tl.ChowLiuMultinet().fit(X, y)
    fig = multinet.draw(title="Asia multinet", edge_labels=True)
    assert fig._suptitle.get_text() == "Asia multinet"
    # a panel per class tree (two structures here), the more probable class first, titled
    # with its prior (issue 39 item 6: classes sharing a structure share a panel)
    prior = np.exp(multinet.class_log_prior_)
    order = np.argsort(-prior, kind="stable")
    assert [ax.get_title() for ax in fig.axes] == [
        f"either = {multinet.classes_[k]}: prior {prior[k] / prior.sum():.3f}" for k in order
    ]
    assert multinet.draw(title=True)._suptitle is None  # the class titles only


# ---------------------------------------------------------------------------------- hostile inputs
def test_dot_ids_stay_distinct_when_names_differ_only_in_line_breaks():
    data = pd.DataFrame({"a\nb": [0, 1] * 5, "a\r\nb": [0, 1] * 5, "a\rb": [1, 0] * 5})
    dot = tl.chow_liu(data).to_dot()
    ids = set(re.findall(r"^\s*(\S+) \[label=", dot, flags=re.MULTILINE))
    assert len(ids) == 3, dot


def test_chain_of_1500_variables_prints_and_draws(tmp_path):
    n = 1500
    chain = pd.DataFrame({f"v{i}": (np.arange(4) >> (i % 2)) % 2 for i in range(n)})
    model = tl.fit_cpts(nx.DiGraph([(f"v{i}", f"v{i + 1}") for i in range(n - 1)]), chain)
    lines = model.to_text().splitlines()
    assert len(lines) == n + 1 and lines[-1].strip().startswith("└── v1499")
    assert model.to_dot().count("->") == n - 1
    model.save(tmp_path / "deep.json")
    assert tl.load(tmp_path / "deep.json") == model
    pos = layout(
        {f"v{i}": [f"v{i + 1}"] for i in range(n - 1)}, ["v0"], {f"v{i}": 1.0 for i in range(n)}
    )
    assert pos["v1499"][1] == n - 1  # depth of the last node
