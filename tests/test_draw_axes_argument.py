"""``model.draw(ax)`` given something that is no matplotlib ``Axes``: a new user writes
``mixture.draw("mixture.png")`` (the command's ``show --plot FILE`` habit) and got
``AttributeError: 'str' object has no attribute 'figure'`` from deep in the drawing code,
for every kind that draws (a tree, a mixture, a cutset network, a hidden tree, a Gaussian
tree, TAN, AODE) and for ``plot_explanation``. Each is now one ``InputTypeError`` naming
the argument, what was given and the fix (save the returned figure), and no file is
written; Axes still draw where they are given."""

from __future__ import annotations

import pathlib

import numpy as np
import pandas as pd
import pytest

import treelearn as tl

pytest.importorskip("matplotlib")
from matplotlib.figure import Figure

ASIA = pd.read_csv(pathlib.Path(__file__).parents[1] / "datasets" / "asia.csv")


def _drawables() -> dict:
    X, y = ASIA.drop(columns="either"), ASIA["either"]
    rng = np.random.default_rng(0)
    numbers = pd.DataFrame(rng.normal(size=(200, 3)), columns=["u", "v", "w"])
    return {
        "tree": tl.chow_liu(ASIA),
        "mixture": tl.TreeMixture(n_components=2, random_state=0, max_iter=5).fit(ASIA).model_,
        "cutset": tl.CutsetNetwork(max_depth=1).fit(ASIA).model_,
        "hidden tree": tl.HiddenTree(n_states=2, random_state=0, max_iter=3).fit(ASIA).model_,
        "gaussian tree": tl.gaussian_chow_liu(numbers),
        "TAN": tl.TAN().fit(X, y),
        "AODE": tl.AODE().fit(X, y),
    }


DRAWABLES = _drawables()


@pytest.mark.parametrize("name", list(DRAWABLES))
def test_a_file_name_for_ax_is_refused_with_the_fix(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(tl.InputTypeError) as err:
        DRAWABLES[name].draw("picture.png")
    message = str(err.value)
    assert "ax" in message.split()[0]  # the argument's name comes first
    assert "'picture.png'" in message and ".draw().savefig('picture.png')" in message
    assert list(tmp_path.iterdir()) == []  # nothing written under the name


@pytest.mark.parametrize("name", ["tree", "TAN"])
@pytest.mark.parametrize(
    ("given", "fix"),
    [(3, "fig.add_subplot()"), (Figure(), "one of its axes"), (pathlib.Path("t.png"), "savefig")],
)
def test_other_things_for_ax_are_refused_by_kind(name, given, fix):
    with pytest.raises(tl.InputTypeError, match="ax must be matplotlib Axes") as err:
        DRAWABLES[name].draw(given)
    assert type(given).__name__ in str(err.value) and fix in str(err.value)


def test_a_panel_picture_given_one_axes_or_a_name_per_panel():
    mixture = DRAWABLES["mixture"]
    fig = Figure()
    with pytest.raises(tl.InputTypeError, match="give a list of 2 matplotlib Axes"):
        mixture.draw(fig.add_subplot())
    with pytest.raises(tl.InputTypeError, match=r"ax\[1\] must be matplotlib Axes"):
        mixture.draw([fig.add_subplot(121), "b.png"])


def test_axes_still_draw_where_given():
    fig = Figure()
    assert DRAWABLES["tree"].draw(fig.add_subplot()) is fig
    panels = Figure()
    left, right = panels.add_subplot(121), panels.add_subplot(122)
    assert DRAWABLES["mixture"].draw([left, right]) is panels
    assert left.get_title() and right.get_title()  # one component's tree in each


def test_plot_explanation_refuses_a_file_name():
    clf = DRAWABLES["TAN"]
    explanation = clf.explain(ASIA.drop(columns="either").head(3))
    with pytest.raises(tl.InputTypeError, match=r"savefig\('bars.png'\)"):
        tl.plot_explanation(explanation, kind="bar", ax="bars.png")
