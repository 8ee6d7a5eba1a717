"""Issue 19, point 6: in a bushy tree no edge runs through a box other than its own two.

A 200-node tree whose nodes have up to 30 children (leaf fans drawn in staggered rows),
labels of different lengths and boxes of different heights (2 to 5 states). The check is
geometric and independent of the router: every segment of every drawn edge is clipped
against every other box (Liang-Barsky), in the explorer's layout (the page's polylines, in
CSS pixels) and in the matplotlib drawing (the arrows' paths and the label boxes as
rendered, in display pixels). Straight lines between the same boxes do cross boxes, so the
check has something to catch.
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.viz._explorer import explorer_spec

EPS = 0.5  # pixels: a segment may touch a box's border (round-off), not enter it


def crosses(p, q, box) -> bool:
    """Does the segment p-q enter the open rectangle ``(x0, y0, x1, y1)`` shrunk by EPS?"""
    x0, y0, x1, y1 = box[0] + EPS, box[1] + EPS, box[2] - EPS, box[3] - EPS
    if x0 >= x1 or y0 >= y1:
        return False
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for edge_p, edge_q in ((-dx, p[0] - x0), (dx, x1 - p[0]), (-dy, p[1] - y0), (dy, y1 - p[1])):
        if edge_p == 0:
            if edge_q <= 0:
                return False
            continue
        t = edge_q / edge_p
        if edge_p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 >= t1:
            return False
    return True


def violations(paths: dict, boxes: dict) -> list:
    out = []
    for (u, v), pts in paths.items():
        for p, q in itertools.pairwise(pts):
            out += [(u, v, n) for n, b in boxes.items() if n not in (u, v) and crosses(p, q, b)]
    return out


@pytest.fixture(scope="module")
def bushy():
    rng = np.random.default_rng(7)
    g = nx.DiGraph()
    g.add_node("root")
    names = ["root"]
    fans = [30, 3, 22, 14, 1, 27, 5, 18, 9, 25]
    for k, n_leaves in enumerate(fans):  # 10 inner nodes, 169 leaves below them
        kid = f"inner{k}" + ("_with_a_long_name" if k % 3 == 0 else "")
        g.add_edge("root", kid)
        names.append(kid)
        for j in range(n_leaves):
            leaf = f"x{k}_{j}" + ("_wide_label" if j % 4 == 0 else "")
            g.add_edge(kid, leaf)
            names.append(leaf)
    while len(names) < 200:  # a deeper branch: chains and small fans under inner1
        parent = names[int(rng.integers(len(names) - 20, len(names)))]
        child = f"deep{len(names)}"
        g.add_edge(parent, child)
        names.append(child)
    assert len(g) == 200 and nx.is_arborescence(g) and max(d for _, d in g.out_degree) == 30
    cards = {v: int(rng.integers(2, 6)) for v in names}
    data = pd.DataFrame({v: rng.integers(0, cards[v], 400) for v in names})
    return tl.fit_cpts(g, data, alpha=1.0)


def test_explorer_edges_go_round_the_boxes(bushy):
    spec = explorer_spec(bushy)
    V = spec["variables"]
    boxes = {v["name"]: (v["x"], v["y"], v["x"] + v["w"], v["y"] + v["h"]) for v in V}
    paths, straight = {}, {}
    for u, v, kind, _, _, route in spec["edges"][0]:
        a, b = V[u]["name"], V[v]["name"]
        assert kind == "tree" and route is not None
        paths[(a, b)] = [tuple(p) for p in route]
        # the ends on the boxes: the parent's bottom centre, the child's top centre (the
        # page's boxes are rounded to 0.1 px, its routes to 0.01 px)
        ba, bb = boxes[a], boxes[b]
        assert paths[(a, b)][0] == pytest.approx(((ba[0] + ba[2]) / 2, ba[3]), abs=0.11)
        assert paths[(a, b)][-1] == pytest.approx(((bb[0] + bb[2]) / 2, bb[1]), abs=0.11)
        straight[(a, b)] = [paths[(a, b)][0], paths[(a, b)][-1]]
    assert len(paths) == 199
    assert violations(paths, boxes) == []
    assert violations(straight, boxes)  # straight lines would cross boxes: a real test
    # and no two boxes overlap
    names = list(boxes)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p, q = boxes[a], boxes[b]
            assert p[2] <= q[0] or q[2] <= p[0] or p[3] <= q[1] or q[3] <= p[1], (a, b)


def test_drawing_edges_go_round_the_boxes(bushy):
    from matplotlib.patches import FancyArrowPatch

    fig = bushy.draw()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = {}
    for v, text in fig.treelearn_node_texts.items():
        e = text.get_bbox_patch().get_window_extent(renderer)
        boxes[v] = (e.x0, e.y0, e.x1, e.y1)
    ax = fig.axes[0]
    arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    assert len(arrows) == 199
    paths = {}
    heads = {}
    for arrow in arrows:
        # the arrow as drawn: its shaft, then its head's outline (data coordinates)
        shaft, *head = [
            ax.transData.transform(p) for p in arrow.get_path().to_polygons(closed_only=False)
        ]
        # the arrow's own boxes: the ones its two ends touch
        ends = tuple(
            min(boxes, key=lambda n: _distance(pt, boxes[n])) for pt in (shaft[0], shaft[-1])
        )
        paths[ends] = [tuple(p) for p in shaft]
        heads[ends] = [tuple(p) for h in head for p in h]
    assert set(paths) == {(str(u), str(v)) for u, v in bushy.graph.edges}
    assert violations(paths, boxes) == []
    assert violations(heads, boxes) == []


def _distance(pt, box) -> float:
    dx = max(box[0] - pt[0], 0, pt[0] - box[2])
    dy = max(box[1] - pt[1], 0, pt[1] - box[3])
    return float(np.hypot(dx, dy))
