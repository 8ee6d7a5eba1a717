"""Issue 39 item 6: pictures a person can read, checked numerically (no image comparison).

Every text artist's bounding box (as matplotlib renders it) lies inside the figure and no
two overlap; a summary of many rows explains one class (equal to explaining that class
directly) with a colour bar; ensembles are one figure of bounded width; a drawing's size
follows its layout's extent.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from conftest import run_cli

import treelearn as tl

_DATA = Path(__file__).resolve().parent.parent / "datasets"
ASIA = pd.read_csv(_DATA / "asia.csv")


def _texts(fig) -> list:
    """Every text the figure draws, with its rendered box (pixels): each axes' tick labels
    inside its view (matplotlib keeps, but does not draw, those outside), its texts, title
    and axis labels, and the figure's own texts."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    artists = list(fig.texts)
    for ax in fig.axes:
        artists += [*ax.texts, ax.title, ax._left_title, ax._right_title]
        for axis in (ax.xaxis, ax.yaxis) if ax.axison else ():  # axis off: none drawn
            artists.append(axis.label)
            low, high = sorted(axis.get_view_interval())
            span = (high - low) * 1e-9
            for tick, loc in zip(axis.get_major_ticks(), axis.get_majorticklocs()):
                if low - span <= loc <= high + span:
                    artists += [tick.label1, tick.label2]
    out = []
    for artist in artists:
        if not artist.get_visible() or not str(artist.get_text()).strip():
            continue
        box = artist.get_window_extent(renderer)
        if box.width > 0 and box.height > 0:
            out.append((str(artist.get_text()), box))
    return out


def _check_readable(fig) -> int:
    """Every text inside the figure and no two overlapping (1 px of tolerance: rounding)."""
    width, height = fig.canvas.get_width_height()
    texts = _texts(fig)
    for text, box in texts:
        assert box.x0 >= -1 and box.y0 >= -1, (text, box, width, height)
        assert box.x1 <= width + 1 and box.y1 <= height + 1, (text, box, width, height)
    for (a, p), (b, q) in itertools.combinations(texts, 2):
        overlap_w = min(p.x1, q.x1) - max(p.x0, q.x0)
        overlap_h = min(p.y1, q.y1) - max(p.y0, q.y0)
        assert overlap_w <= 1 or overlap_h <= 1, (a, b, p, q)
    return len(texts)


# ---------------------------------------------------------------- the waterfall
def _survey():
    df = tl.io.read_data(_DATA / "real" / "survey.csv")  # Exer's "None" kept as a level
    df = df[df["Smoke"].notna()]
    X = df.drop(columns="Smoke").rename(
        columns={"Wr.Hnd": "writing hand span (cm), as measured", "Exer": "exercise per week"}
    )
    return X, df["Smoke"]


@pytest.mark.parametrize("row", [0, 1, 2, 3])
def test_waterfall_labels_are_inside_the_figure_and_never_overlap(row):
    X, y = _survey()
    clf = tl.MixedTAN().fit(X, y)
    e = clf.explain(X.iloc[:4], kind="shapley", output="log_odds")
    fig = tl.plot_explanation(e, row=row)
    # the labels: feature ticks, a value per bar, the title, the axis label
    assert _check_readable(fig) >= 2 * e.values.shape[1] + 2


def test_waterfall_with_negative_bars_and_a_long_label():
    X, y = ASIA.drop(columns="either"), ASIA["either"]
    X = X.rename(columns={"smoke": "smoking history of the patient, as reported"})
    clf = tl.NaiveBayes().fit(X, y)
    e = clf.explain(X.iloc[:40], kind="shapley", output="log_odds", target_class="yes")
    for row in range(0, 40, 7):
        fig = tl.plot_explanation(e, row=row, max_features=4)
        _check_readable(fig)
    assert (e.values < 0).any().any() and (e.values > 0).any().any()  # both directions drawn


# ---------------------------------------------------------------- the beeswarm
def test_beeswarm_explains_the_positive_class_of_two_exactly():
    X, y = ASIA.drop(columns="dysp"), ASIA["dysp"]
    clf = tl.TAN().fit(X, y)
    rows = X.iloc[:150]
    mixed = clf.explain(rows, kind="shapley", output="log_odds")  # each row's own class
    assert mixed.target.nunique() == 2
    fig = tl.plot_explanation(mixed, kind="beeswarm")
    positive = clf.explain(rows, kind="shapley", output="log_odds", target_class="yes")
    # the dots drawn are the positive class's values (the swarm's y is jittered: x only)
    ax = fig.axes[0]
    order = positive.values.abs().mean().sort_values(ascending=False, kind="stable").index[::-1]
    for dots, feature in zip(ax.collections, order):
        np.testing.assert_allclose(dots.get_offsets()[:, 0], positive.values[feature], atol=1e-12)
    assert "dysp = 'yes'" in ax.get_title()
    # the colour legend: a colour bar from low to high values
    bar = fig.axes[1]
    assert "feature value" in bar.get_ylabel()
    assert [t.get_text() for t in bar.get_yticklabels()] == ["low", "high"]
    _check_readable(fig)
    # on the proba scale too: P(no) = 1 - P(yes)
    proba = clf.explain(rows, kind="shapley", output="proba")
    direct = clf.explain(rows, kind="shapley", output="proba", target_class="yes")
    fig = tl.plot_explanation(proba, kind="beeswarm")
    for dots, feature in zip(fig.axes[0].collections, order):
        np.testing.assert_allclose(dots.get_offsets()[:, 0], direct.values[feature], atol=1e-12)


def test_beeswarm_of_several_classes_names_target_class():
    X, y = ASIA.drop(columns="dysp"), ASIA["dysp"]
    clf = tl.TAN().fit(X, y)
    e = clf.explain(X.iloc[:100], kind="shapley")  # log P: no row converts to the other class
    with pytest.raises(tl.TreelearnError, match=r"target_class='yes'"):
        tl.plot_explanation(e, kind="beeswarm")
    alarm = pd.read_csv(_DATA / "alarm.csv").head(600)
    three = tl.NaiveBayes().fit(alarm.drop(columns="BP"), alarm["BP"])
    e3 = three.explain(alarm.drop(columns="BP").head(60), output="log_odds")
    assert e3.target.nunique() > 1
    with pytest.raises(tl.TreelearnError, match=r"explain\(X, \.\.\., target_class="):
        tl.plot_explanation(e3, kind="bar")
    one = three.explain(alarm.drop(columns="BP").head(60), target_class="LOW")
    _check_readable(tl.plot_explanation(one, kind="beeswarm"))


def test_cli_plot_of_many_rows_explains_one_class(tmp_path):
    X, y = ASIA.drop(columns="dysp"), ASIA["dysp"]
    tl.save(tl.TAN().fit(X, y), tmp_path / "tan.json")
    ASIA.head(30).to_csv(tmp_path / "rows.csv", index=False)
    rc, _, err = run_cli(
        "explain", tmp_path / "tan.json", tmp_path / "rows.csv", "--plot", tmp_path / "p.png"
    )
    assert rc == 0, err
    assert "explaining dysp = 'yes' in every row" in err
    assert (tmp_path / "p.png").stat().st_size > 0
    alarm = pd.read_csv(_DATA / "alarm.csv").head(600)
    tl.save(tl.NaiveBayes().fit(alarm.drop(columns="BP"), alarm["BP"]), tmp_path / "nb.json")
    alarm.head(20).to_csv(tmp_path / "alarm.csv", index=False)
    rc, _, err = run_cli(
        "explain", tmp_path / "nb.json", tmp_path / "alarm.csv", "--plot", tmp_path / "q.png"
    )
    assert rc != 0
    assert "give --state CLASS" in err


# ---------------------------------------------------------------- ensembles: one bounded figure
def _alarm(n=1500):
    return pd.read_csv(_DATA / "alarm.csv").head(n)


def test_aode_is_one_figure_with_the_super_parents_framed():
    from treelearn.viz._draw import PANELS_MAX_WIDTH

    alarm = _alarm()
    X, y = alarm.iloc[:, 1:13], alarm.iloc[:, 0]  # 12 features: was 12 panels, 7,889 px
    clf = tl.AODE().fit(X, y)
    fig = clf.draw()
    assert len(fig.axes) == 1
    assert fig.get_size_inches()[0] <= PANELS_MAX_WIDTH + 1e-9  # 2,000 px at 200 dpi
    nodes = fig.treelearn_node_texts
    assert sorted(map(str, nodes)) == sorted(map(str, [*X.columns, y.name]))  # each once
    framed = [
        v
        for v, t in nodes.items()
        if t.get_bbox_patch().get_edgecolor()[:3]
        != nodes[y.name].get_bbox_patch().get_edgecolor()[:3]
        and v != y.name
    ]
    assert sorted(framed) == sorted(clf.models_)
    assert "12 one-dependence networks averaged" in fig.axes[0].get_title()
    _check_readable(fig)
    small = tl.AODE().fit(ASIA.drop(columns="dysp"), ASIA["dysp"]).draw()
    assert small.get_size_inches()[0] < PANELS_MAX_WIDTH  # a small one keeps its own size
    _check_readable(small)


def test_panels_fit_the_width_with_one_label_size():
    from treelearn.viz._draw import PANELS_MAX_WIDTH, draw_panels

    alarm = _alarm()
    mixture = tl.TreeMixture(n_components=5, random_state=0).fit(alarm.iloc[:, :12])
    fig = mixture.draw()
    width, height = fig.get_size_inches()
    assert width <= PANELS_MAX_WIDTH + 1e-9
    assert height <= 2.5 * width  # a grid at most square in panels, not one tall column
    titles = sorted(ax.get_title() for ax in fig.axes)
    assert titles == sorted(
        f"component {k}: weight {w:.3f}" for k, w in enumerate(mixture.model_.weights)
    )
    sizes = {t.get_fontsize() for ax in fig.axes for t in ax.texts if t.get_gid()}
    # every panel's labels one size (to the 5 % a panel shrinks to fit its title;
    # each panel scaled on its own differed by up to 2x)
    assert max(sizes) <= 1.1 * min(sizes)
    # small panels keep their own size: side by side, nothing scaled
    asia = [tl.chow_liu(ASIA.iloc[:2500]), tl.chow_liu(ASIA.iloc[2500:])]
    alone = tl.chow_liu(ASIA.iloc[:2500]).draw().get_size_inches()
    pair = draw_panels(asia, ["first", "second"])
    assert pair.get_size_inches()[0] == pytest.approx(2 * 1.02 * alone[0], rel=0.1)
    with pytest.raises(tl.TreelearnError, match="max_width"):
        draw_panels(asia, ["a", "b"], max_width=0)


# ---------------------------------------------------------------- draw(): sized to its graph
@pytest.mark.parametrize("n_columns", [8, 37])
def test_draw_is_sized_to_its_layout(n_columns):
    alarm = _alarm()
    model = tl.chow_liu(alarm.iloc[:, :n_columns])
    fig = model.draw(title=True)
    width, height = fig.canvas.get_width_height()
    renderer = fig.canvas.get_renderer()
    fig.canvas.draw()
    boxes = [t.get_window_extent(renderer) for t in fig.treelearn_node_texts.values()]
    x0, x1 = min(b.x0 for b in boxes), max(b.x1 for b in boxes)
    y0, y1 = min(b.y0 for b in boxes), max(b.y1 for b in boxes)
    # every node inside, and the nodes span the figure (no empty canvas around the graph)
    assert x0 >= 0 and y0 >= 0 and x1 <= width and y1 <= height
    assert (x1 - x0) >= 0.8 * width or (y1 - y0) >= 0.7 * height
    _check_readable(fig)


def test_a_tan_drawing_is_readable_in_a_notebook():
    # was 290 x 480 px (matplotlib's 100 dpi): the inches follow the layout, the labels
    # are drawn at 150 dpi (an 11 pt label about 23 px high)
    import io

    import matplotlib.image as mpimg

    clf = tl.TAN().fit(ASIA.drop(columns="dysp"), ASIA["dysp"])
    fig = clf.draw()
    height, width, _ = mpimg.imread(io.BytesIO(fig._repr_png_()), format="png").shape
    assert width >= 400 and height >= 600
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    heights = [t.get_window_extent(renderer).height for t in fig.treelearn_node_texts.values()]
    assert min(heights) >= 15
    _check_readable(fig)
