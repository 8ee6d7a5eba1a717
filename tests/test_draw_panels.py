"""Several trees in one figure (the multinet picture), and the drawing's public helpers."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

import treelearn as tl

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from treelearn.viz._draw import draw, draw_panels  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def asia():
    return pd.read_csv(os.path.join(HERE, "..", "datasets", "asia.csv"))


def _pixels(fig) -> np.ndarray:
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba()).copy()


def test_panels_are_sized_like_the_trees_alone(asia):
    small, big = tl.chow_liu(asia.iloc[:, :3]), tl.chow_liu(asia)
    fig = draw_panels([small, big], ["three", "eight"], heading="both")
    assert [ax.get_title() for ax in fig.axes] == ["three", "eight"]
    assert fig._suptitle.get_text() == "both"
    widths = [ax.get_position().width for ax in fig.axes]
    alone = [draw(m, title=t).get_size_inches()[0] for m, t in ((small, "three"), (big, "eight"))]
    assert widths[0] / widths[1] == pytest.approx(alone[0] / alone[1], rel=1e-6)


def test_multinet_draw_is_draw_panels(asia):
    X, y = asia.drop(columns="either"), asia["either"]
    clf = tl.ChowLiuMultinet().fit(X, y)
    ours = clf.draw(title="Asia", edge_labels=True)
    # two class trees of different structures: a panel each, the more probable class
    # first, titled with its prior (issue 39 item 6)
    prior = np.exp(clf.class_log_prior_)
    order = np.argsort(-prior, kind="stable")
    theirs = draw_panels(
        [clf.models_[clf.classes_[k]] for k in order],
        [f"either = {clf.classes_[k]}: prior {prior[k] / prior.sum():.3f}" for k in order],
        heading="Asia",
        edge_labels=True,
    )
    np.testing.assert_array_equal(_pixels(ours), _pixels(theirs))


def test_panels_into_given_axes_and_errors(asia):
    model = tl.chow_liu(asia)
    fig, axes = plt.subplots(1, 2)
    assert draw_panels([model, model], ["a", "b"], axes) is fig
    assert [ax.get_title() for ax in axes] == ["a", "b"]
    with pytest.raises(tl.TreelearnError, match="one title per model"):
        draw_panels([model, model], ["only one"])
    with pytest.raises(tl.TreelearnError, match="need 2 axes"):
        draw_panels([model, model], ["a", "b"], axes[:1])


def test_bad_class_edges_is_an_input_error_before_any_figure(asia):
    tan = tl.TAN().fit(asia.drop(columns="either"), asia["either"])
    before = len(plt.get_fignums())
    with pytest.raises(tl.TreelearnError, match="class_edges"):
        tan.draw(class_edges="bogus")
    assert len(plt.get_fignums()) == before
