"""The explorer in a notebook: ``explore()`` shows the page in one sandboxed iframe whose
``srcdoc`` is the page itself (nothing loaded from outside), refuses what the page
refuses, and the frame's page computes its marginals in headless Chromium."""

from __future__ import annotations

import html
import os
import subprocess
from html.parser import HTMLParser

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from tests.test_explorer import CHROMIUM, needs_browser
from tests.test_explorer_panel import page_and_model
from treelearn.viz._explorer import to_html, to_iframe

ROOT = os.path.dirname(os.path.dirname(__file__))
ASIA = pd.read_csv(os.path.join(ROOT, "datasets", "asia.csv"))
TOL = 1e-12  # the page's doubles against numpy's: round-off only


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
