"""Issue 19, point 6: ensembles drawn as a bounded grid of panels; to_html(path) writes the
page and returns None (a notebook does not print 18,000 characters)."""

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.viz._draw import draw, draw_panels


@pytest.fixture(scope="module")
def asia():
    return pd.read_csv("datasets/asia.csv")


def test_panels_are_a_grid_of_at_most_max_panels(asia):
    trees = [tl.chow_liu(asia.iloc[i::5]) for i in range(5)]
    alone = draw(trees[0], title="t0").get_size_inches()
    fig = draw_panels(trees, [f"t{i}" for i in range(5)], max_panels=4)
    shown = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in shown] == ["t0", "t1", "t2", "t3"]  # the first four
    assert "the first 4 of 5 panels" in fig._suptitle.get_text()
    width, height = fig.get_size_inches()
    # as many columns as fit in 10 inches (issue 39 item 6), at least 2 x 2: each panel as
    # large as its tree alone
    columns = round(width / (1.02 * alone[0]))
    assert columns in (2, 3, 4)
    assert width == pytest.approx(columns * 1.02 * alone[0], rel=0.25)
    assert width <= 10.0
    assert height < 2.3 * alone[1] + 1
    with pytest.raises(tl.TreelearnError, match="max_panels"):
        draw_panels(trees, [f"t{i}" for i in range(5)], max_panels=0)


def test_aode_picture_is_bounded(asia):
    clf = tl.AODE().fit(asia.drop(columns="either"), asia["either"])
    fig = clf.draw()
    # one picture of the shared structure, the super-parents framed (issue 39 item 6; was
    # a panel per super-parent, 3 columns): no wider than one member's network alone
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert len(panels) == 1
    one = draw(next(iter(clf.models_.values()))).get_size_inches()
    assert fig.get_size_inches()[0] <= 1.3 * one[0]


def test_to_html_returns_none_when_it_writes(asia, tmp_path):
    model = tl.chow_liu(asia)
    page = model.to_html()
    assert isinstance(page, str) and page.startswith("<!")
    assert model.to_html(tmp_path / "m.html") is None
    assert (tmp_path / "m.html").read_text(encoding="utf-8") == page
    clf = tl.TAN().fit(asia.drop(columns="either"), asia["either"])
    assert clf.to_html(tmp_path / "c.html") is None
    assert (tmp_path / "c.html").stat().st_size > 1000
    assert np.isfinite(len(clf.to_html()))
