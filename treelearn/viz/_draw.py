"""Pictures of a model: a matplotlib tree drawing, Graphviz DOT and Mermaid text.

The drawing reads as a tree: the root at the top, one row per depth, subtrees
packed side by side without overlapping labels (a Reingold-Tilford style tidy
layout on each node's measured label width), parents centred over their
children, forests side by side. Edge width grows with the mutual information
(edge attribute ``weight``, nats) and the class node of a classifier is marked.
For TAN the feature tree is drawn as the tree and the ``class -> feature`` edges
as light dashed lines, each bent just enough to pass round every other box.

Layout works in inches: the axes span the figure and one data unit is one inch,
so labels (sized in points) cannot collide however many nodes there are; the
figure grows with the tree instead.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

import numpy as np

from .._base.errors import InputTypeError, TreelearnError
from .._base.validation import Interval, check_param

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "VIZ_HINT",
    "MermaidChart",
    "Network",
    "StructureGroup",
    "display_parents",
    "dot_head",
    "dot_lines",
    "dot_node_ids",
    "dot_quote",
    "draw",
    "draw_ensemble",
    "draw_panels",
    "draw_super_parents",
    "given_axes",
    "graph_to_dot",
    "graph_to_mermaid",
    "group_structures",
    "html_with_picture",
    "layout",
    "mermaid_label",
    "new_figure",
    "panel_grid",
    "panels_to_dot",
    "panels_to_mermaid",
    "svg_or_none",
    "titled_dot",
    "titled_mermaid",
    "to_dot",
    "to_mermaid",
    "tree_route",
]

VIZ_HINT = 'drawing needs matplotlib: pip install "treelearn[viz]"'

# colours (colour-blind safe, print well in grey)
_EDGE = "#2f3e4e"
_NODE_FACE = "#eaf1fb"
_NODE_EDGE = "#2f3e4e"
_ROOT_FACE = "#d3e3f7"
_LATENT_FACE = "#ececec"  # latent variables (a hidden tree's): grey, dashed outline
_CLASS_FACE = "#fde0c5"
_CLASS_EDGE = "#b3541e"
_CLASS_LINK = "#c98a5a"
_EXTRA_LINK = "#8a97a6"

# geometry (inches)
_SIBLING_GAP = 0.14
_TREE_GAP = 0.45
_MARGIN = 0.2
#: the widest figure of panels made by default, inches: 2,000 px at the command line's 200 dpi
PANELS_MAX_WIDTH = 10.0
#: the frame of a super-parent (AODE's picture)
_SUPER_EDGE = "#7b3fa0"
_MAX_ROW = 12  # a star with more leaves than this is drawn round its centre
_MAX_CLASS_LINES = 4  # TAN: more class -> feature edges than this become dots
_LABEL_AT = 0.55  # where on an edge its MI label sits (0 = parent, 1 = child)


@runtime_checkable
class Network(Protocol):
    """What a picture reads of a model: the kinds that declare ``"draw"`` (``TreeModel``,
    ``GaussianTreeModel``, ``CLGTreeModel``, ``CopulaTreeModel``, ``KernelForestModel``)
    are one network each; a mixture or a hidden tree draws its networks."""

    @property
    def variables(self) -> list: ...

    @property
    def graph(self) -> Any: ...  # a networkx DiGraph (networkx ships no hints)

    @property
    def roots(self) -> list: ...

    @property
    def settings(self) -> dict: ...

    @property
    def n_rows(self) -> float | None: ...

    def parents(self, variable: Hashable) -> list: ...

    def log_likelihood(self, data: Any) -> float: ...  # the title's, of data=


def _class_node(model: Network, class_node: Hashable | None) -> Hashable | None:
    node = class_node if class_node is not None else model.graph.graph.get("class")
    return node if node is not None and node in model.graph else None


def display_parents(model: Network, class_node: Hashable | None = None) -> dict:
    """The parent each node hangs from in the picture (``None`` for a root).

    A tree node's only parent; in TAN, a feature's feature parent (the class for
    the feature root); in any other DAG, the last parent of the CPT's axes. The
    other edges are drawn as extra (light) links.
    """
    cls = _class_node(model, class_node)
    out = {}
    for v in model.variables:
        ps = model.parents(v)
        others = [p for p in ps if p != cls]
        out[v] = others[-1] if others else (ps[-1] if ps else None)
    return out


def _edge_kind(model: Network, u: Hashable, v: Hashable, shown: dict, cls: Hashable | None) -> str:
    """``tree``: an edge of the drawn tree; ``class``: class -> feature next to a feature tree;
    ``extra``: any other edge of a DAG."""
    feature_edges = cls is not None and any(cls not in e for e in model.graph.edges)
    if u == cls and feature_edges:
        return "class"
    return "tree" if shown.get(v) == u else "extra"


def layout(
    children: dict,
    roots: list,
    widths: dict,
    gap: float = _SIBLING_GAP,
    tree_gap: float = _TREE_GAP,
    max_row: int | None = _MAX_ROW,
) -> dict:
    """Tidy tree layout: ``{node: (x, depth)}`` with x in the units of ``widths``.

    Each subtree is laid out once; siblings are placed left to right, each as
    close to the previous ones as their contours (leftmost and rightmost extent
    at every depth) allow, then the parent is centred over its first and last
    child. Nodes at the same depth are therefore at least ``gap`` apart, edge to
    edge. Trees of a forest are packed the same way, ``tree_gap`` apart.

    A node with more than ``max_row`` children that are all leaves (a naive Bayes
    star) spreads them over several staggered rows, one depth each, so that the
    picture does not become a single very wide row.
    """
    extra: dict = {}  # staggered leaves: rows below their natural depth

    def fan(kids: list, max_row: int) -> tuple[dict, list]:
        rows = math.ceil(len(kids) / max_row)
        xs: list = []
        right = -math.inf  # the right edge of the leaves placed so far
        for i, c in enumerate(kids):
            x = xs[-1] + gap if xs else 0.0
            if i >= rows:  # clear the previous leaf of the same row
                left = kids[i - rows]
                x = max(x, xs[i - rows] + (widths[left] + widths[c]) / 2 + gap)
            if xs:
                # a lane for each leaf's edge: its centre right of every box before it, and
                # its box right of the centre before it, so the vertical drop to a leaf of a
                # lower row passes between the leaves of the rows above (tree_route)
                x = max(x, right + gap / 2, xs[-1] + widths[c] / 2 + gap / 2)
            right = max(right, x + widths[c] / 2)
            xs.append(x)
            extra[c] = i % rows
        contour = []
        for k in range(rows):
            row = [
                (xs[i] - widths[c] / 2, xs[i] + widths[c] / 2)
                for i, c in enumerate(kids)
                if i % rows == k
            ]
            # the lanes of the leaves of lower rows cross this row: a neighbouring subtree
            # must not put a box there either
            lanes = [xs[i] for i in range(len(kids)) if i % rows > k]
            contour.append((min([lo for lo, _ in row] + lanes), max([hi for _, hi in row] + lanes)))
        return dict(zip(kids, xs)), contour

    def place_node(v: Hashable, placed_kids: list) -> tuple[dict, list]:
        kids = children.get(v, [])
        half = widths[v] / 2
        if not kids:
            return {v: 0.0}, [(-half, half)]
        if max_row and len(kids) > max_row and not any(children.get(c) for c in kids):
            pos, contour = fan(kids, max_row)
            mid = (min(pos.values()) + max(pos.values())) / 2
        else:
            pos, contour, centres = _pack(placed_kids, gap)
            mid = (centres[0] + centres[-1]) / 2
        pos = {u: x - mid for u, x in pos.items()}
        contour = [(lo - mid, hi - mid) for lo, hi in contour]
        pos[v] = 0.0
        return pos, [(-half, half), *contour]

    def place(root: Hashable) -> tuple[dict, list]:
        # post-order with an explicit stack, not recursion: deep chains lay out too
        done: dict = {}
        stack = [(root, False)]
        while stack:
            v, expanded = stack.pop()
            kids = children.get(v, [])
            if expanded or not kids:
                done[v] = place_node(v, [done.pop(c) for c in kids])
            else:
                stack.append((v, True))
                stack.extend((c, False) for c in reversed(kids))
        return done[root]

    pos, _, _ = _pack([place(r) for r in roots], tree_gap)
    depth: dict = {}
    for r in roots:
        stack = [(r, 0)]
        while stack:
            u, d = stack.pop()
            depth[u] = d + extra.get(u, 0)
            stack.extend((c, d + 1) for c in children.get(u, []))
    shift = min((x - widths[u] / 2 for u, x in pos.items()), default=0.0)
    return {u: (x - shift, depth[u]) for u, x in pos.items()}


def tree_route(
    x_u: float, near_u: float, row_u: float, row_next: float, x_v: float, near_v: float
) -> list[tuple[float, float]]:
    """The polyline of a tree edge in :func:`layout`'s rows, clear of every other box:
    down from the parent's box (``near_u``: its side facing the child) to the far edge of
    its row (``row_u``: the row's lowest box), across the empty band between the rows to
    the near edge of the next row (``row_next``) above the child, then straight to the
    child's box (``near_v``), passing a staggered fan's upper rows in the child's own lane.
    The same in either vertical direction (the page's y grows down, a figure's up).

    >>> tree_route(0.0, 1.0, 2.0, 3.0, 5.0, 4.0)
    [(0.0, 1.0), (0.0, 2.0), (5.0, 3.0), (5.0, 4.0)]
    >>> tree_route(0.0, 2.0, 2.0, 3.0, 5.0, 3.0)   # boxes flush with their rows
    [(0.0, 2.0), (5.0, 3.0)]
    >>> tree_route(0.0, 1.997, 2.0, 3.0, 5.0, 3.0)  # "asia" over "lung": no stub
    [(0.0, 1.997), (5.0, 3.0)]
    """
    # a box a hair shorter than its row's tallest (a label without descenders) gets no
    # stub: a stub of a few thousandths of an inch would carry the edge's label and turn
    # its arrow head
    stub = _ROUTE_STUB
    points = [(x_u, near_u)]
    if abs(row_u - near_u) > stub:
        points.append((x_u, row_u))
    if abs(near_v - row_next) > stub:
        points.append((x_v, row_next))
    points.append((x_v, near_v))
    out = [points[0]]
    for p in points[1:]:
        if p != out[-1]:
            out.append(p)
    return out


#: inches: a tree edge's vertical stub shorter than this is left out (:func:`tree_route`)
_ROUTE_STUB = 0.02


def _pack(subtrees: list, gap: float) -> tuple[dict, list, list]:
    """Place laid-out subtrees side by side; returns positions, merged contour, centres."""
    pos: dict = {}
    contour: list = []
    centres = []
    for sub_pos, sub_contour in subtrees:
        if contour:
            offset = max(
                contour[d][1] - sub_contour[d][0] + gap
                for d in range(min(len(contour), len(sub_contour)))
            )
        else:
            offset = 0.0
        for u, x in sub_pos.items():
            pos[u] = x + offset
        for d, (lo, hi) in enumerate(sub_contour):
            if d < len(contour):
                contour[d] = (min(contour[d][0], lo + offset), max(contour[d][1], hi + offset))
            else:
                contour.append((lo + offset, hi + offset))
        centres.append(offset)
    return pos, contour, centres


def _radial(centre: Hashable, leaves: list, w: dict, h: dict, gap: float, labels: bool) -> dict:
    """The leaves of a star evenly round an ellipse about the centre, as close as they fit."""
    n = len(leaves)
    angle = np.pi / 2 - 2 * np.pi * np.arange(n) / n  # clockwise from twelve o'clock
    cos, sin = np.cos(angle), np.sin(angle)
    ws = np.array([w[v] for v in leaves]) + gap
    hs = np.array([h[v] for v in leaves]) + gap
    tangent = np.abs(ws * sin) + np.abs(hs * cos)
    # many leaves: every other one on an inner ring, so the circle need not be so large
    ring = np.where(np.arange(n) % 2 == 1, 0.7, 1.0) if n > 24 else np.ones(n)
    share = 0.6 if n > 24 else 1.0
    radius = max(share * tangent.sum() / (2 * np.pi), w[centre], 1.0) * (1.3 if labels else 1.0)
    for _ in range(200):
        x, y = 1.25 * radius * ring * cos, radius * ring * sin
        dx = np.abs(x[:, None] - x[None, :]) < (ws[:, None] + ws[None, :]) / 2
        dy = np.abs(y[:, None] - y[None, :]) < (hs[:, None] + hs[None, :]) / 2
        np.fill_diagonal(dx, False)
        hits_centre = (np.abs(x) < (ws + w[centre]) / 2 + gap) & (
            np.abs(y) < (hs + h[centre]) / 2 + gap
        )
        # no edge may run under another leaf's label
        t = np.linspace(0.0, 1.0, 48)
        px, py = x[:, None] * t, y[:, None] * t  # points along each edge
        under = (np.abs(px[:, None, :] - x[None, :, None]) < ws[None, :, None] / 2) & (
            np.abs(py[:, None, :] - y[None, :, None]) < hs[None, :, None] / 2
        )
        under[np.arange(n), np.arange(n), :] = False
        if not (dx & dy).any() and not hits_centre.any() and not under.any():
            break
        radius *= 1.05
    out = {v: (float(a), float(b)) for v, a, b in zip(leaves, x, y)}
    out[centre] = (0.0, 0.0)
    return out


def _font_size(n_leaves: int) -> float:
    if n_leaves <= 12:
        return 11.0
    if n_leaves <= 24:
        return 10.0
    if n_leaves <= 45:
        return 9.0
    return 8.0


def _boundary_point(cx: float, cy: float, hw: float, hh: float, tx: float, ty: float) -> tuple:
    """Where the segment from a box's centre towards (tx, ty) leaves the box."""
    dx, dy = tx - cx, ty - cy
    if dx == 0 and dy == 0:
        return cx, cy
    scale = min(hw / abs(dx) if dx else math.inf, hh / abs(dy) if dy else math.inf)
    return cx + dx * scale, cy + dy * scale


def given_axes(ax: Any, argument: str = "ax") -> Any:
    """``ax`` checked to be matplotlib ``Axes`` (:func:`treelearn.viz._figures.check_axes`:
    a file name or anything else is refused naming ``argument`` and the fix)."""
    try:
        from ._figures import check_axes
    except ImportError as exc:
        raise ImportError(VIZ_HINT) from exc
    return check_axes(ax, argument)


def new_figure(figsize: tuple[float, float] = (6, 4)) -> Figure:
    """A matplotlib ``Figure`` on its own Agg canvas, not registered with pyplot.

    Drawings are made on such figures: any number of them neither warns "More than
    20 figures" nor stays in pyplot's memory (it is freed with the last reference),
    and Jupyter shows one returned as a cell's last line exactly once (pyplot's
    inline backend only shows the figures pyplot knows). To show one in a window,
    hand it to pyplot first (``plt.figure(fig)``, matplotlib >= 3.10) or draw into
    pyplot's axes with ``ax=``.

    Raises
    ------
    ImportError : matplotlib is not installed (:data:`VIZ_HINT`).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> before = plt.get_fignums()
    >>> fig = new_figure((3, 2))
    >>> fig.get_size_inches().tolist(), plt.get_fignums() == before
    ([3.0, 2.0], True)
    """
    try:
        from ._figures import agg_figure
    except ImportError as exc:
        raise ImportError(VIZ_HINT) from exc
    return agg_figure(figsize)


def _renderer(fig: Any) -> Any:
    """The canvas's renderer; ``None`` lets matplotlib measure text with the figure's own."""
    canvas = fig.canvas
    return canvas.get_renderer() if hasattr(canvas, "get_renderer") else None


def _auto_title(model: Network, data: Any) -> list[str]:
    """The parts of the automatic title (joined on one line, or two if the tree is narrow)."""
    method = str(model.settings.get("method", "model"))
    names = {
        "chow-liu": "Chow–Liu tree",
        "tan": "TAN",
        "naive-bayes": "naive Bayes",
        "pgmpy": "Bayesian network",
        "fit_cpts": "Bayesian network",
        "gaussian-chow-liu": "Gaussian Chow–Liu tree",
        "clg-chow-liu": "CLG tree (conditional linear Gaussian)",
    }
    n = len(model.variables)
    parts = [names.get(method, method), f"{n} variable{'' if n == 1 else 's'}"]
    if model.n_rows is not None:  # whole rows as a whole number (a Gaussian's is a float)
        rows = model.n_rows
        parts.append(f"n = {int(rows):,}" if float(rows).is_integer() else f"n = {rows:,}")
    if data is not None:
        ll = f"{model.log_likelihood(data):,.1f}".replace("-", "\u2212")
        parts.append(f"log-likelihood = {ll} nats")
    return parts


# ---------------------------------------------------------------------- the drawing's stages
# A figure from a model goes: what to draw (_scene, from the model alone) -> measure the
# labels (_measure, needs a matplotlib renderer) -> positions and bounds in inches
# (_geometry) -> the figure's size and view (_frame) -> matplotlib artists (_render).


@dataclass(frozen=True)
class _Edge:
    parent: Hashable
    child: Hashable
    kind: str  # "tree", "class" or "extra" (see _edge_kind)
    weight: Any  # the edge's MI (nats), or None
    text: str | None = None  # the edge's own label (attribute "label"), shown for the weight


@dataclass(frozen=True)
class _Scene:
    """What the picture shows, decided from the model alone (no matplotlib)."""

    variables: list
    cls: Hashable | None  # the class node, marked
    shown: dict  # the parent each node hangs from in the picture
    children: dict
    roots: list
    edges: list  # _Edge, in the graph's edge order
    star: bool  # one root with many leaf children: drawn round its centre
    marks: bool  # TAN: class -> feature edges drawn as dots plus a legend line
    legend: str
    max_weight: float  # the largest finite MI on a tree edge (0 when none)

    @property
    def n_leaves(self) -> int:
        return sum(1 for v in self.variables if not self.children[v])


def _scene(model: Network, class_node: Hashable | None, class_edges: str) -> _Scene:
    if class_edges not in ("auto", "lines", "marks"):
        raise TreelearnError(f"class_edges must be 'auto', 'lines' or 'marks', not {class_edges!r}")
    cls = _class_node(model, class_node)
    shown = display_parents(model, cls)
    children: dict = {v: [] for v in model.variables}
    for v in model.variables:
        if shown[v] is not None:
            children[shown[v]].append(v)
    roots = [r for r in model.roots if shown[r] is None]
    roots += [v for v in model.variables if shown[v] is None and v not in roots]
    star = (
        len(roots) == 1
        and len(children[roots[0]]) > _MAX_ROW
        and not any(children[c] for c in children[roots[0]])
    )
    edges = [
        _Edge(u, v, _edge_kind(model, u, v, shown, cls), attrs.get("weight"), _edge_text(attrs))
        for u, v, attrs in model.graph.edges(data=True)
    ]
    n_class_edges = sum(1 for u, v in model.graph.edges if u == cls and shown[v] != cls)
    has_feature_edges = cls is not None and any(cls not in e for e in model.graph.edges)
    marks = (
        has_feature_edges
        and n_class_edges > 0
        and (class_edges == "marks" or (class_edges == "auto" and n_class_edges > _MAX_CLASS_LINES))
    )
    weights = [e.weight for e in edges if e.kind == "tree" and e.weight is not None]
    return _Scene(
        variables=list(model.variables),
        cls=cls,
        shown=shown,
        children=children,
        roots=roots,
        edges=edges,
        star=star,
        marks=marks,
        legend=f"the class {cls} is also a parent of these" if marks else "",
        max_weight=max((float(x) for x in weights if math.isfinite(x)), default=0.0),
    )


def _edge_text(attrs: dict) -> str | None:
    """An edge's own label (its ``label`` attribute: a cutset network's branch, say), shown
    where the weight would be."""
    text = attrs.get("label")
    return None if text is None else str(text)


class _Ruler:
    """Measures text on one figure, in inches (labels are sized in points)."""

    def __init__(self, ax: Any) -> None:
        self.ax = ax
        self.dpi = ax.figure.dpi
        self.renderer = _renderer(ax.figure)

    def label_boxes(self, variables: list, cls: Hashable | None, size: float) -> tuple[dict, dict]:
        """Box width and height of every node label (text and its padding)."""
        probe = self.ax.text(0, 0, "", fontsize=size, parse_math=False)
        w, h = {}, {}
        for v in variables:
            probe.set_text(str(v))
            probe.set_fontweight("bold" if v == cls else "normal")
            box = probe.get_window_extent(self.renderer)
            pad = 2 * 0.45 * size / 72  # the node's bbox pad (_render_nodes), both sides
            w[v] = box.width / self.dpi + pad
            h[v] = box.height / self.dpi + pad
        probe.remove()
        return w, h

    def text_width(self, text: str, size: float) -> float:
        probe = self.ax.text(0, 0, text, fontsize=size)
        width = probe.get_window_extent(self.renderer).width / self.dpi
        probe.remove()
        return width


@dataclass(frozen=True)
class _Sizes:
    """The measured sizes a layout needs, in inches."""

    w: dict  # label box widths
    h: dict  # label box heights
    edge_label: float | None  # room for an MI label on an edge, when edges are labelled
    legend: float | None  # the legend line's text, when there is one


def _measure(scene: _Scene, ruler: _Ruler, size: float, edge_labels: bool, digits: int) -> _Sizes:
    w, h = ruler.label_boxes(scene.variables, scene.cls, size)
    edge_label = None
    if edge_labels and not scene.star:
        texts = {e.text for e in scene.edges if e.text is not None} | {"0." + "0" * digits}
        edge_label = max(ruler.text_width(t, 0.72 * size) for t in texts) + 0.08
    legend = ruler.text_width(scene.legend, 0.8 * size) if scene.marks else None
    return _Sizes(w, h, edge_label, legend)


@dataclass(frozen=True)
class _Geometry:
    """Label sizes, node centres and the drawing's bounds ``(x0, x1, y0, y1)``, in inches."""

    w: dict
    h: dict
    xy: dict
    bounds: tuple
    routes: dict  # (parent, child) -> (start, control, end) of a light edge's quadratic curve
    paths: dict  # (parent, child) -> the points of a tree edge's polyline (tree_route)

    @property
    def width(self) -> float:
        return self.bounds[1] - self.bounds[0]

    @property
    def height(self) -> float:
        return self.bounds[3] - self.bounds[2]


def _positions(
    scene: _Scene, sizes: _Sizes, size: float, edge_labels: bool, level_gap: float | None
) -> dict:
    """Node centres in inches: the tidy tree layout, or a star's leaves round its centre."""
    w, h = sizes.w, sizes.h
    gap_x = _SIBLING_GAP * size / 10
    if scene.star:  # naive Bayes with many features: the features around the class
        root = scene.roots[0]
        return _radial(root, scene.children[root], w, h, gap_x, edge_labels)
    spread = dict(w)
    if sizes.edge_label is not None:
        # children far enough apart that the MI labels of sibling edges do not collide
        spread = {v: max(x, sizes.edge_label / _LABEL_AT) for v, x in w.items()}
    pos = layout(scene.children, scene.roots, spread, gap=gap_x, tree_gap=_TREE_GAP * size / 10)
    box_h = max(h.values())
    gap_y = (
        level_gap if level_gap is not None else box_h + (0.62 if edge_labels else 0.45) * size / 10
    )
    return {v: (x, -d * gap_y) for v, (x, d) in pos.items()}


def _bounds(scene: _Scene, sizes: _Sizes, xy: dict, size: float) -> tuple:
    """``(x0, x1, y0, y1)``: the label boxes, and the legend line below them."""
    w, h = sizes.w, sizes.h
    x0 = min(xy[v][0] - w[v] / 2 for v in xy)
    x1 = max(xy[v][0] + w[v] / 2 for v in xy)
    y0 = min(xy[v][1] - h[v] / 2 for v in xy)
    y1 = max(xy[v][1] + h[v] / 2 for v in xy)
    if sizes.legend is not None:
        y0 -= 1.6 * 0.8 * size / 72  # room for the legend line
        x1 = max(x1, x0 + 0.06 + 0.9 * 0.8 * size / 72 + sizes.legend)
    return x0, x1, y0, y1


def _geometry(
    scene: _Scene,
    ruler: _Ruler,
    size: float,
    *,
    edge_labels: bool,
    digits: int,
    level_gap: float | None,
) -> _Geometry:
    """Measure the labels at font ``size``, then place the nodes."""
    sizes = _measure(scene, ruler, size, edge_labels, digits)
    xy = _positions(scene, sizes, size, edge_labels, level_gap)
    paths = {} if scene.star else _tree_paths(scene, sizes, xy)
    routes = _light_routes(scene, sizes, xy, size, paths)
    x0, x1, y0, y1 = _bounds(scene, sizes, xy, size)
    for start, control, end in routes.values():  # a curve bowing out widens the drawing
        pts = _bezier(np.array(start), np.array(control), np.array(end), np.linspace(0, 1, 33))
        x0, x1 = min(x0, pts[:, 0].min()), max(x1, pts[:, 0].max())
        y0, y1 = min(y0, pts[:, 1].min()), max(y1, pts[:, 1].max())
    return _Geometry(sizes.w, sizes.h, xy, (x0, x1, y0, y1), routes, paths)


def _tree_paths(scene: _Scene, sizes: _Sizes, xy: dict) -> dict:
    """Each tree edge's polyline (:func:`tree_route`) in the figure's rows (y grows up)."""
    h = sizes.h
    bottom: dict = {}  # each row's lowest box edge, and highest
    top: dict = {}
    for v, (_, y) in xy.items():
        bottom[y] = min(bottom.get(y, math.inf), y - h[v] / 2)
        top[y] = max(top.get(y, -math.inf), y + h[v] / 2)
    rows = sorted(top, reverse=True)
    below = dict(itertools.pairwise(rows))
    out = {}
    for e in scene.edges:
        u, v = e.parent, e.child
        if e.kind != "tree" or xy[v][1] >= xy[u][1]:
            continue
        (ux, uy), (vx, vy) = xy[u], xy[v]
        out[(u, v)] = tree_route(ux, uy - h[u] / 2, bottom[uy], top[below[uy]], vx, vy + h[v] / 2)
    return out


def _label_point(xy: dict, paths: dict, u: Hashable, v: Hashable) -> tuple[float, float]:
    """Where a tree edge's MI label sits: on its polyline's crossing between the rows (its
    longest segment: a box shorter than its row's tallest adds a short vertical stub, which
    must not carry the label; the middle one on a tie), or ``_LABEL_AT`` of the way along a
    straight edge."""
    if (u, v) in paths:
        pts = paths[(u, v)]
        lengths = [math.dist(p, q) for p, q in itertools.pairwise(pts)]
        middle = len(pts) // 2 - 1
        k = 1 + max(range(len(lengths)), key=lambda i: (lengths[i], i == middle))
        (ax_, ay), (bx, by) = pts[k - 1], pts[k]
        return ax_ + 0.5 * (bx - ax_), ay + 0.5 * (by - ay)
    (ux, uy), (vx, vy) = xy[u], xy[v]
    return ux + _LABEL_AT * (vx - ux), uy + _LABEL_AT * (vy - uy)


# ---------------------------------------------------------------------- routing light edges
# The class -> feature edges of TAN (and the extra edges of other DAGs) join nodes rows apart,
# so a straight line would run through the boxes between them. Each becomes a quadratic
# curve (matplotlib's arc3: control point off the midpoint by ``rad`` times the edge turned a
# quarter), the least bent that clears every other box, clipped at the boxes of its ends.
_BENDS = (0.0, 0.15, 0.3, 0.45, 0.6, 0.8, 1.0, 1.3, 1.7)
_CLEARANCE = 0.06  # inches kept between a curve and a box it passes
_TIP_GAP = 0.01  # inches between an arrow's ends and its boxes' borders


def _bezier(p0: np.ndarray, c: np.ndarray, p2: np.ndarray, t: np.ndarray) -> np.ndarray:
    t = t[:, None]
    return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * c + t**2 * p2


def _inside(pts: np.ndarray, centre: tuple, half_w: float, half_h: float) -> np.ndarray:
    return (np.abs(pts[:, 0] - centre[0]) < half_w) & (np.abs(pts[:, 1] - centre[1]) < half_h)


def _light_routes(scene: _Scene, sizes: _Sizes, xy: dict, size: float, paths: dict) -> dict:
    """``{(parent, child): (start, control, end)}`` for every edge drawn as a light line."""
    w, h = sizes.w, sizes.h
    nodes = list(xy)
    # the MI labels on tree edges are in the way too (where _render_edges writes them)
    labels = []
    if sizes.edge_label is not None:
        half = (sizes.edge_label / 2, 0.72 * size / 72 * 0.8)
        for e in scene.edges:
            if e.kind == "tree" and e.weight is not None:
                labels.append((_label_point(xy, paths, e.parent, e.child), half))
    centre_x = (min(x for x, _ in xy.values()) + max(x for x, _ in xy.values())) / 2
    t = np.linspace(0.0, 1.0, 401)
    routes = {}
    for edge in scene.edges:
        u, v = edge.parent, edge.child
        if edge.kind == "tree" or (scene.marks and edge.kind == "class" and scene.shown[v] != u):
            continue
        p0, p2 = np.array(xy[u], dtype=float), np.array(xy[v], dtype=float)
        d = p2 - p0
        quarter = np.array([d[1], -d[0]])  # arc3's direction for a positive rad
        # bend away from the middle of the drawing first: the curve goes round the tree
        outward = (p0[0] + p2[0]) / 2 - centre_x
        sign = 1.0 if (quarter[0] * outward > 0 or (outward == 0 and quarter[0] >= 0)) else -1.0
        others = [n for n in nodes if n not in (u, v)]
        centres = np.array([xy[n] for n in others] + [c for c, _ in labels], dtype=float)
        halves = np.array([(w[n] / 2, h[n] / 2) for n in others] + [hw for _, hw in labels])
        centres, halves = centres.reshape(-1, 2), halves.reshape(-1, 2) + _CLEARANCE
        best = None
        for bend in _BENDS:
            for rad in (bend,) if bend == 0 else (sign * bend, -sign * bend):
                c = (p0 + p2) / 2 + rad * quarter
                pts = _bezier(p0, c, p2, t)
                out_u = ~_inside(pts, xy[u], w[u] / 2 + _TIP_GAP, h[u] / 2 + _TIP_GAP)
                out_v = ~_inside(pts, xy[v], w[v] / 2 + _TIP_GAP, h[v] / 2 + _TIP_GAP)
                a = int(np.argmax(out_u))  # first point out of the parent's box
                b = len(t) - 1 - int(np.argmax(out_v[::-1]))  # last point out of the child's
                if not out_u.any() or not out_v.any() or b <= a:
                    continue  # the boxes touch: nothing to draw between them
                seg = pts[a : b + 1]
                near = (np.abs(seg[None, :, 0] - centres[:, None, 0]) < halves[:, None, 0]) & (
                    np.abs(seg[None, :, 1] - centres[:, None, 1]) < halves[:, None, 1]
                )
                hits = int(near.any(axis=1).sum())  # other boxes the curve runs through
                # back into its own boxes (a curve bent too far) counts as a hit too
                hits += int(not out_u[a:].all()) + int(not out_v[: b + 1].all())
                if best is None or hits < best[0]:
                    best = (hits, t[a], t[b], c)
                if hits == 0:
                    break
            if best is not None and best[0] == 0:
                break
        if best is None:
            continue
        _, ta, tb, c = best
        # the piece of the curve between ta and tb is itself a quadratic curve
        control = (1 - ta) * (1 - tb) * p0 + ((1 - ta) * tb + ta * (1 - tb)) * c + ta * tb * p2
        start, end = _bezier(p0, c, p2, np.array([ta, tb]))
        routes[(u, v)] = (tuple(start), tuple(control), tuple(end))
    return routes


def _title_text(
    model: Network, data: Any, title: str | bool | None, width: float, size: float, ruler: _Ruler
) -> str | None:
    if title is True:
        parts = _auto_title(model, data)
        text = "  ·  ".join(parts)
        if len(parts) > 2 and ruler.text_width(text, size * 1.05) > width + 2 * _MARGIN:
            text = "  ·  ".join(parts[:2]) + "\n" + "  ·  ".join(parts[2:])
        return text
    return str(title) if title else None


def _frame(
    ax: Any,
    geometry: _Geometry,
    remeasure: Callable[[float], _Geometry],
    size: float,
    title_text: str | None,
    ruler: _Ruler,
    *,
    own_figure: bool,
    figsize: tuple[float, float] | None,
) -> tuple[float, _Geometry]:
    """Fit the drawing to its figure: size a figure of our own to the tree (one data unit is
    one inch), or shrink the labels to a given size or axes; sets the view. Returns the font
    size and the geometry finally used."""
    fig = ax.figure
    n_lines = title_text.count("\n") + 1 if title_text else 0
    title_h = (n_lines * 1.3 * 1.05 * size / 72 + 0.12) if title_text else 0.0
    tree_w, tree_h = geometry.width + 2 * _MARGIN, geometry.height + 2 * _MARGIN
    grows = own_figure and figsize is None
    if grows:
        title_w = (
            max(ruler.text_width(t, size * 1.05) for t in title_text.split("\n")) + 2 * _MARGIN
            if title_text
            else 0.0
        )
        fig_w, fig_h = max(tree_w, title_w, 2.5), tree_h + title_h
        fig.set_size_inches(fig_w, fig_h)
        ax.set_position((0, 0, 1, tree_h / fig_h))
        avail_w, avail_h = fig_w, tree_h
    else:
        # a given size or axes: shrink the labels if the tree would not fit
        fig_w, fig_h = fig.get_size_inches()
        if own_figure:
            ax.set_position((0, 0, 1, max(fig_h - title_h, 0.1 * fig_h) / fig_h))
        box = ax.get_position()
        avail_w, avail_h = box.width * fig_w, box.height * fig_h
        scale = min(1.0, avail_w / tree_w, avail_h / tree_h)
        if scale < 1.0:
            size = max(3.0, 0.98 * size * scale)
            geometry = remeasure(size)
            tree_w, tree_h = geometry.width + 2 * _MARGIN, geometry.height + 2 * _MARGIN
        avail_w, avail_h = max(avail_w, tree_w), max(avail_h, tree_h)
    x0, x1, y0, y1 = geometry.bounds
    centre_y = y1 + _MARGIN - avail_h / 2 if grows else (y0 + y1) / 2
    ax.set_xlim((x0 + x1) / 2 - avail_w / 2, (x0 + x1) / 2 + avail_w / 2)
    ax.set_ylim(centre_y - avail_h / 2, centre_y + avail_h / 2)
    ax.set_axis_off()
    return size, geometry


def _class_mark(size: float) -> dict:
    """The dot that marks "the class is also a parent of this node", and its legend entry."""
    return dict(ms=0.55 * size, color=_CLASS_LINK, mec="white", mew=0.6 * size / 10, zorder=6)


def _render_edges(
    ax: Any, scene: _Scene, geometry: _Geometry, size: float, edge_labels: bool, digits: int
) -> None:
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path

    w, h, xy = geometry.w, geometry.h, geometry.xy
    lw_scale = size / 10
    for edge in scene.edges:
        u, v, kind, weight = edge.parent, edge.child, edge.kind, edge.weight
        if scene.marks and kind == "class" and scene.shown[v] != scene.cls:
            # a dot on the child instead of a line from the class
            ax.plot(xy[v][0] + w[v] / 2, xy[v][1] + h[v] / 2, "o", **_class_mark(size))
            continue
        (ux, uy), (vx, vy) = xy[u], xy[v]
        start = _boundary_point(ux, uy, w[u] / 2, h[u] / 2, vx, vy)
        end = _boundary_point(vx, vy, w[v] / 2, h[v] / 2, ux, uy)
        path = None
        if kind == "tree" and (u, v) in geometry.paths:  # round the other boxes
            pts = geometry.paths[(u, v)]
            path = Path(pts, [Path.MOVETO] + [Path.LINETO] * (len(pts) - 1))
        linestyle: str | tuple[int, tuple[int, int]]
        if kind == "tree":
            if weight is not None and scene.max_weight > 0:
                lw = (0.7 + 3.5 * max(float(weight), 0.0) / scene.max_weight) * lw_scale
            else:
                lw = 1.4 * lw_scale
            colour, linestyle, alpha, zorder = _EDGE, "-", 1.0, 2
            connection = "arc3"
        else:
            colour = _CLASS_LINK if kind == "class" else _EXTRA_LINK
            lw, linestyle, alpha, zorder = 0.8 * lw_scale, (0, (3, 2)), 0.75, 1
            connection = "arc3"
            if (u, v) not in geometry.routes:
                continue  # the two boxes touch: no room for a line
            path = Path(geometry.routes[(u, v)], [Path.MOVETO, Path.CURVE3, Path.CURVE3])
        arrow = FancyArrowPatch(  # from the two ends, or along the path when there is one
            posA=start if path is None else None,
            posB=end if path is None else None,
            path=path,
            arrowstyle="-|>",
            mutation_scale=6 + 3.5 * lw**0.5,
            shrinkA=0,
            shrinkB=0.5,
            connectionstyle=connection,
            joinstyle="miter",
            color=colour,
            linewidth=lw,
            linestyle=linestyle,
            alpha=alpha,
            zorder=zorder,
        )
        ax.add_patch(arrow)
        if edge_labels and (weight is not None or edge.text) and kind == "tree":
            lx, ly = _label_point(xy, geometry.paths, u, v)
            ax.text(
                lx,
                ly,
                edge.text if edge.text is not None else f"{float(weight):.{digits}f}",
                fontsize=0.72 * size,
                ha="center",
                va="center",
                color="#4a5563",
                zorder=4,
                bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none"),
            )


def _render_nodes(
    ax: Any, scene: _Scene, geometry: _Geometry, size: float, latent: frozenset = frozenset()
) -> dict:
    """The node labels in their boxes (latent variables: grey, dashed); returns
    ``{variable: Text}``."""
    lw_scale = size / 10
    texts = {}
    for v in scene.variables:
        is_class = v == scene.cls
        face = _CLASS_FACE if is_class else (_ROOT_FACE if scene.shown[v] is None else _NODE_FACE)
        if v in latent:
            face = _LATENT_FACE
        texts[v] = ax.text(
            *geometry.xy[v],
            str(v),
            fontsize=size,
            parse_math=False,  # a name such as "cost $x$" is text, not mathtext
            ha="center",
            va="center",
            zorder=5,
            fontweight="bold" if is_class else "normal",
            color="#111111",
            bbox=dict(
                boxstyle="round,pad=0.45",
                fc=face,
                ec=_CLASS_EDGE if is_class else _NODE_EDGE,
                lw=(1.6 if is_class else 0.9) * lw_scale,
                ls="--" if v in latent else "-",
            ),
            gid=f"node-{v}",
        )
    return texts


def _render_legend(ax: Any, scene: _Scene, geometry: _Geometry, size: float) -> None:
    x0, _, y0, _ = geometry.bounds
    ax.plot(x0 + 0.06, y0 + 0.06, "o", **_class_mark(size))
    ax.text(
        x0 + 0.06 + 0.9 * 0.8 * size / 72,
        y0 + 0.06,
        scene.legend,
        fontsize=0.8 * size,
        ha="left",
        va="center",
        color="#4a5563",
    )


def draw(
    model: Network,
    ax: Any = None,
    *,
    data: Any = None,
    edge_labels: bool = False,
    title: str | bool | None = None,
    class_node: Hashable | None = None,
    figsize: tuple[float, float] | None = None,
    fontsize: float | None = None,
    digits: int = 3,
    level_gap: float | None = None,
    class_edges: str = "auto",
    latent: Sequence[Hashable] = (),
) -> Figure:
    """Draw ``model`` as a tree and return the matplotlib ``Figure``.

    Parameters
    ----------
    ax : an existing matplotlib Axes to draw into; by default a new figure sized
        to the tree (width grows with the number of leaves).
    data : optional DataFrame; with ``title=True`` its log-likelihood is shown.
    edge_labels : write the mutual information (nats) on each edge.
    title : ``None``/``False`` for none, ``True`` for an automatic title (method,
        variables, n, and log-likelihood when ``data`` is given), or a string.
    class_node : the node to mark as the class (default: the graph attribute
        ``class``, set for naive Bayes and TAN).
    figsize : force the figure size (inches); labels are then scaled to fit.
    fontsize : label size in points (default: from the number of leaves).
    digits : decimals of the MI edge labels.
    level_gap : vertical distance between depths, in inches.
    class_edges : for TAN, how to show the ``class -> feature`` edges besides the
        one to the feature root: ``"lines"`` (light dashed lines), ``"marks"`` (a
        dot on each feature, explained in a legend) or ``"auto"`` (lines for up
        to 4 such edges, dots beyond).
    latent : nodes that are latent variables (a hidden tree's), drawn in grey dashed boxes.

    Raises
    ------
    ImportError : matplotlib is not installed (``pip install "treelearn[viz]"``).
    TreelearnError : ``class_edges`` is not one of the three.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> fig = tl.chow_liu(pd.read_csv("datasets/asia.csv")).draw(edge_labels=True)
    >>> fig.savefig("/dev/null", format="png")
    """
    scene = _scene(model, class_node, class_edges)
    size = float(fontsize) if fontsize is not None else _font_size(scene.n_leaves)
    own_figure = ax is None
    if own_figure:
        fig = new_figure(figsize or (6, 4))  # not pyplot's: see new_figure
        ax = fig.add_axes((0, 0, 1, 1))
    else:
        fig = given_axes(ax).figure
    ruler = _Ruler(ax)

    def geometry_at(size: float) -> _Geometry:
        return _geometry(
            scene, ruler, size, edge_labels=edge_labels, digits=digits, level_gap=level_gap
        )

    geometry = geometry_at(size)
    title_text = _title_text(model, data, title, geometry.width, size, ruler)
    size, geometry = _frame(
        ax, geometry, geometry_at, size, title_text, ruler, own_figure=own_figure, figsize=figsize
    )
    _render_edges(ax, scene, geometry, size, edge_labels, digits)
    texts = _render_nodes(ax, scene, geometry, size, frozenset(latent))
    if scene.marks:
        _render_legend(ax, scene, geometry, size)
    if title_text:
        ax.set_title(title_text, fontsize=size * 1.05, pad=4 if own_figure else 6, linespacing=1.3)
    # for tests and callers that want the label artists (an attribute matplotlib lacks)
    setattr(fig, "treelearn_node_texts", texts)  # noqa: B010
    return fig


def draw_panels(
    models: Sequence[Network],
    titles: Sequence[str],
    axes: Sequence[Any] | None = None,
    *,
    heading: str | None = None,
    max_panels: int = 12,
    max_width: float = PANELS_MAX_WIDTH,
    **kwargs: Any,
) -> Figure:
    """Draw several models in a grid, one titled panel each; returns the Figure.

    Without ``axes`` the figure is made here: a grid of as many columns as fit in
    ``max_width`` inches (default 10: 2,000 px at the command line's 200 dpi), at least
    ``ceil(sqrt(k))`` (no taller than square), each panel as large as its tree drawn
    alone by :func:`draw` (so every panel's labels keep their size); when
    ``ceil(sqrt(k))`` columns do not fit, they are scaled down to ``max_width`` (the
    labels shrink with them).
    At most ``max_panels`` panels (the first ones; the heading says how many were
    left out), so an ensemble of 37 networks is a bounded picture, not one row 85,000
    pixels wide. With ``axes`` (one per model)
    the trees go there. ``heading`` adds a line above all panels. Other keywords go
    to :func:`draw` for every panel. This is the picture of a
    :class:`~treelearn.classifiers._multinet.ChowLiuMultinet` (one tree per class),
    a mixture (one per component) and AODE (one per super-parent).

    Raises
    ------
    TreelearnError : no models, or fewer titles or axes than models.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> trees = [tl.chow_liu(df.iloc[:2500]), tl.chow_liu(df.iloc[2500:])]
    >>> fig = draw_panels(trees, ["first half", "second half"], heading="asia")
    >>> [ax.get_title() for ax in fig.axes]
    ['first half', 'second half']
    """
    models, titles = list(models), list(titles)
    if not models or len(titles) != len(models):
        raise TreelearnError(
            f"draw_panels needs one title per model, got {len(models)} model(s) and "
            f"{len(titles)} title(s)"
        )
    if axes is None:
        max_panels = check_param("max_panels", max_panels, [Interval(Integral, 1, None)])
        max_width = check_param("max_width", max_width, [Interval(Real, 1, None)])
        if len(models) > max_panels:
            left_out = f"the first {max_panels} of {len(models)} panels (max_panels= for more)"
            heading = f"{heading}: {left_out}" if heading else left_out
            models, titles = models[:max_panels], titles[:max_panels]
        # each panel as large as its tree drawn alone, so the labels keep their size
        sizes, fonts = [], []
        for model, title in zip(models, titles):
            alone = draw(model, title=title, **kwargs)
            sizes.append(alone.get_size_inches())
            texts = list(cast(Any, alone).treelearn_node_texts.values())
            fonts.append(texts[0].get_fontsize() if texts else 10.0)
        n_rows, n_cols, widths, heights, shrink = panel_grid(sizes, max_width)
        if shrink < 1.0 and kwargs.get("fontsize") is None:  # one label size in every panel
            kwargs["fontsize"] = shrink * min(fonts)
        # inches above the panels: the panel titles, then each line of the heading
        top = 0.4 + (0.35 * (heading.count("\n") + 1) if heading else 0.0)
        height = 1.02 * sum(heights) + top
        fig = new_figure((1.02 * sum(widths), height))
        grid = fig.subplots(
            n_rows,
            n_cols,
            squeeze=False,
            gridspec_kw={
                "width_ratios": widths,
                "height_ratios": heights,
                "wspace": 0.02,
                "hspace": 0.02,
            },
        )
        fig.subplots_adjust(left=0, right=1, bottom=0, top=1 - top / height)
        axes = list(grid.ravel())
        for unused in axes[len(models) :]:  # the grid's last row may be short
            fig.delaxes(unused)
    else:
        if isinstance(axes, str) or not isinstance(axes, Sequence | np.ndarray):
            given_axes(axes)  # a file name or anything else but Axes: refused by its kind
            raise InputTypeError(
                f"ax: this picture has {len(models)} panel(s); give a list of "
                f"{len(models)} matplotlib Axes (one per panel), or none for a new figure"
            )
        panels = np.ravel(axes) if isinstance(axes, np.ndarray) else axes
        axes = [given_axes(panel, f"ax[{i}]") for i, panel in enumerate(panels)]
        if len(axes) < len(models):
            raise TreelearnError(f"{len(models)} panels need {len(models)} axes, got {len(axes)}")
        fig = axes[0].figure
    for model, title, panel in zip(models, titles, axes):
        draw(model, panel, title=title, **kwargs)
    if heading:
        fig.suptitle(heading, y=1 - 0.05 / fig.get_size_inches()[1], va="top")
    return fig


def panel_grid(sizes: Sequence[Any], max_width: float) -> tuple[int, int, list, list, float]:
    """``(n_rows, n_cols, widths, heights, shrink)``: the grid :func:`draw_panels` puts
    panels of ``sizes`` (inches, each ``(width, height)``) in: the most columns that fit in
    ``max_width`` (a wide short grid reads better than a tall one), at least
    ``ceil(sqrt(k))``; each column as wide and each row as tall as its largest panel,
    scaled by ``shrink`` (below 1 when ``ceil(sqrt(k))`` columns do not fit).

    >>> panel_grid([(3, 2), (4, 1), (2, 2)], 10.0)
    (1, 3, [3.0, 4.0, 2.0], [2.0], 1.0)
    """
    k = len(sizes)

    def grid_of(n_cols: int) -> tuple[list, list]:
        n_rows = math.ceil(k / n_cols)
        widths = [float(max(sizes[i][0] for i in range(c, k, n_cols))) for c in range(n_cols)]
        heights = [
            float(max(sizes[i][1] for i in range(r * n_cols, min((r + 1) * n_cols, k))))
            for r in range(n_rows)
        ]
        return widths, heights

    square = math.ceil(math.sqrt(k))
    n_cols = next(
        (c for c in range(k, square - 1, -1) if 1.02 * sum(grid_of(c)[0]) <= max_width),
        square,
    )
    widths, heights = grid_of(n_cols)
    shrink = min(1.0, max_width / (1.02 * sum(widths)))  # one column too wide: scaled
    widths, heights = [shrink * w for w in widths], [shrink * h for h in heights]
    return math.ceil(k / n_cols), n_cols, widths, heights, shrink


@dataclass(frozen=True)
class StructureGroup:
    """Members of an ensemble that share one structure (the same directed edges, hence
    the same roots): ``members`` their positions in the ensemble, in order, ``weight``
    their summed weight (:func:`math.fsum`: the correctly rounded sum)."""

    members: tuple[int, ...]
    weight: float


def structure_key(model: Network) -> tuple:
    """What two members drawn alike share: their variables, directed edges and roots
    (as sets: the drawing's forest order aside, one picture)."""
    return (
        frozenset(model.variables),
        frozenset(model.graph.edges),
        frozenset(model.roots),
    )


def group_structures(
    models: Sequence[Network],
    weights: Sequence[float] | np.ndarray,
    keys: Sequence[Hashable] | None = None,
) -> list[StructureGroup]:
    """The members of an ensemble grouped by structure (:func:`structure_key`, or the
    members' ``keys`` when given: a cutset network's is its OR-tree's and its leaves'), the
    heaviest group first (ties: the group whose first member comes first).

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> a, b = tl.chow_liu(df), tl.chow_liu(df, root="smoke")
    >>> group_structures([a, b, a], [0.2, 0.5, 0.3])
    [StructureGroup(members=(0, 2), weight=0.5), StructureGroup(members=(1,), weight=0.5)]
    """
    models, weights = list(models), [float(w) for w in weights]
    if len(weights) != len(models):
        raise TreelearnError(
            f"group_structures needs one weight per member, got {len(models)} member(s) "
            f"and {len(weights)} weight(s)"
        )
    keys = [structure_key(m) for m in models] if keys is None else list(keys)
    if len(keys) != len(models):
        raise TreelearnError(f"group_structures needs one key per member, got {len(keys)}")
    by_key: dict[Hashable, list[int]] = {}
    for i, key in enumerate(keys):
        by_key.setdefault(key, []).append(i)
    groups = [
        StructureGroup(tuple(ids), math.fsum(weights[i] for i in ids)) for ids in by_key.values()
    ]
    return sorted(groups, key=lambda g: (-g.weight, g.members[0]))


def _members_label(unit: str, ids: Sequence[Any]) -> str:
    """``"component 3"``, ``"3 components (0, 4, 7)"`` or ``"9 components (0, 1, 2, 5, ...)"``."""
    if len(ids) == 1:
        return f"{unit} {ids[0]}"
    shown = ", ".join(str(i) for i in ids[:4]) + (", ..." if len(ids) > 4 else "")
    return f"{len(ids)} {unit}s ({shown})"


def draw_ensemble(
    models: Sequence[Network],
    weights: Sequence[float] | np.ndarray,
    axes: Sequence[Any] | None = None,
    *,
    names: Sequence[Any] | None = None,
    unit: str = "component",
    label: Callable[[list], str] | None = None,
    weight_name: str = "weight",
    heading: str | None = None,
    max_panels: int = 6,
    max_width: float = PANELS_MAX_WIDTH,
    keys: Sequence[Hashable] | None = None,
    **kwargs: Any,
) -> Figure:
    """One picture of an ensemble of networks (a mixture's trees, a bag's): members with
    the same structure (:func:`group_structures`) drawn once, in one panel titled with
    the members it stands for and their summed weight, the heaviest structure first.

    A bag of 10 Chow-Liu trees on a few thousand rows is mostly one tree: drawing each
    member repeated it panel after panel. Each panel draws the group's heaviest member
    (its edge labels, with ``edge_labels=True``, are that member's mutual information).
    At most ``max_panels`` panels, no wider than ``max_width`` inches (default 10: 2,000 px
    at the command line's 200 dpi; a wider grid is scaled down, as :func:`draw_panels`
    does); the heading says how many structures the rest are, how many members and their
    weight. ``names`` are the members' names in titles (default their positions),
    ``unit`` what a member is called; ``label`` (a group's names -> its title's start)
    replaces ``"3 components (0, 4, 7)"``, and ``weight_name`` the word ``weight`` (a
    multinet's class prior); ``keys`` as :func:`group_structures` takes them. Other
    keywords go to :func:`draw` for every panel.

    Raises
    ------
    TreelearnError : no members, a weight missing, or ``max_panels`` below 1.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> a, b = tl.chow_liu(df), tl.chow_liu(df, root="smoke")
    >>> fig = draw_ensemble([a, b, a], [0.2, 0.5, 0.3], heading="three trees")
    >>> [ax.get_title() for ax in fig.axes]
    ['2 components (0, 2): weight 0.500', 'component 1: weight 0.500']
    """
    models = list(models)
    if not models:
        raise TreelearnError("draw_ensemble needs at least one member, got none")
    names = list(range(len(models))) if names is None else list(names)
    if len(names) != len(models):
        raise TreelearnError(
            f"draw_ensemble needs one name per member, got {len(models)} member(s) and "
            f"{len(names)} name(s)"
        )
    max_panels = check_param("max_panels", max_panels, [Interval(Integral, 1, None)])
    groups = group_structures(models, weights, keys)
    lines = [heading] if heading else []
    if len(groups) < len(models):
        lines.append(f"{len(groups)} structure{'' if len(groups) == 1 else 's'}, each drawn once")
    if axes is None and len(groups) > max_panels:
        rest = groups[max_panels:]
        n_rest = sum(len(g.members) for g in rest)
        lines.append(
            f"the rest: {len(rest)} more structure{'' if len(rest) == 1 else 's'} "
            f"({n_rest} {unit}{'' if n_rest == 1 else 's'}, weight "
            f"{math.fsum(g.weight for g in rest):.3f}; max_panels= for more)"
        )
        groups = groups[:max_panels]
    # each group drawn as its heaviest member (the first of them on a tie)
    heaviest = [models[max(g.members, key=lambda i: (float(weights[i]), -i))] for g in groups]
    name_group = label or (lambda ids: _members_label(unit, ids))
    titles = [
        f"{name_group([names[i] for i in g.members])}: {weight_name} {g.weight:.3f}" for g in groups
    ]
    return draw_panels(
        heaviest,
        titles,
        axes,
        heading="\n".join(lines) or None,
        max_panels=max(1, len(heaviest)),
        max_width=max_width,
        **kwargs,
    )


def draw_super_parents(
    model: Network,
    super_parents: Sequence[Hashable],
    ax: Any = None,
    *,
    heading: str | None = None,
    max_width: float = PANELS_MAX_WIDTH,
    **kwargs: Any,
) -> Figure:
    """One picture of an averaged one-dependence ensemble (AODE, AnDE): the structure
    every member shares once, ``model`` (the class the parent of every feature), with
    each super-parent framed; a heading says what the frames mean. Each member network
    is that structure plus its super-parent as a parent of every other feature, so
    drawing the members one by one repeats one picture ``k`` times (AODE on 12
    features: 12 near-identical panels, 7,889 px wide). A structure wider than
    ``max_width`` inches (default 10: 2,000 px at 200 dpi) is drawn at that width, its
    labels shrunk to fit. Other keywords go to :func:`draw`.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> fig = tl.AODE().fit(df.drop(columns="dysp"), df["dysp"]).draw()
    >>> bool(fig.get_size_inches()[0] < 10)
    True
    """
    marked = [v for v in super_parents if v in set(model.variables)]
    k = len(marked)
    networks = f"{k} one-dependence network{'' if k == 1 else 's'} averaged"
    lines = [f"{heading}: {networks}" if heading else networks]
    lines.append("framed: a super-parent, in turn a parent of every other feature")
    kwargs.setdefault("class_edges", "lines")
    title = "\n".join(lines)
    fig = draw(model, ax, title=title, **kwargs)
    width, height = fig.get_size_inches()
    if ax is None and "figsize" not in kwargs and width > max_width:  # many features
        fig = draw(model, title=title, figsize=(max_width, height), **kwargs)
    texts = cast(Any, fig).treelearn_node_texts  # draw() sets it
    for v in marked:
        box = texts[v].get_bbox_patch()
        box.set_edgecolor(_SUPER_EDGE)
        box.set_linewidth(2.2 * box.get_linewidth())
    return fig


# ---------------------------------------------------------------------- text formats
def dot_quote(text: Any) -> str:
    s = str(text).replace("\\", "\\\\").replace('"', '\\"')
    s = s.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n")
    return f'"{s}"'


def dot_node_ids(model: Network) -> dict:
    """DOT ids: the variable names, unless two share a text as DOT writes it ("a\\nb" and
    "a\\r\\nb" both as ``a\\nb``; then n0, n1, ...)."""
    names = [str(v) for v in model.variables]
    if len({dot_quote(n) for n in names}) == len(names):
        return dict(zip(model.variables, names))
    return {v: f"n{i}" for i, v in enumerate(model.variables)}


def to_dot(
    model: Network,
    *,
    edge_labels: bool = True,
    class_node: Hashable | None = None,
    digits: int = 3,
    name: str = "treelearn",
) -> str:
    """Graphviz DOT text: nodes, edges with MI labels and pen widths, the class marked.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> print(tl.chow_liu(pd.DataFrame({"a": [0, 1, 1], "b": [0, 1, 1]})).to_dot())
    digraph "treelearn" {
      graph [rankdir=TB, nodesep=0.25, ranksep=0.45];
      node [shape=box, style="rounded,filled", fontname="Helvetica",
            fillcolor="#eaf1fb", color="#2f3e4e"];
      edge [color="#2f3e4e", arrowsize=0.7];
      "a" [label="a", fillcolor="#d3e3f7"];
      "b" [label="b"];
      "a" -> "b" [penwidth=5.00, label="0.637"];
    }
    """
    body = dot_lines(model, "", "  ", class_node, edge_labels, digits)
    return "\n".join([*dot_head(name), *body, "}"])


def panels_to_dot(
    models: Sequence[Network],
    titles: Sequence[str],
    *,
    edge_labels: bool = True,
    digits: int = 3,
    name: str = "treelearn",
) -> str:
    """Several networks in one DOT graph, each in a titled cluster (``subgraph cluster_k``;
    node ids prefixed ``k:`` so the same variable in two panels is two nodes): the text form
    of :func:`draw_panels` (a multinet's class trees, a mixture's components, AODE's
    super-parent networks).

    >>> import pandas as pd, treelearn as tl
    >>> df = pd.DataFrame({"a": [0, 1, 1], "b": [0, 1, 1]})
    >>> text = panels_to_dot([tl.chow_liu(df), tl.chow_liu(df, root="b")], ["one", "two"])
    >>> [line.strip() for line in text.splitlines() if "label=" in line and "->" not in line][:2]
    ['label="one";', '"0:a" [label="a", fillcolor="#d3e3f7"];']
    """
    lines = dot_head(name)
    for k, (model, title) in enumerate(zip(models, titles, strict=True)):
        lines += [f"  subgraph cluster_{k} {{", f"    label={dot_quote(title)};"]
        lines += dot_lines(model, f"{k}:", "    ", None, edge_labels, digits)
        lines.append("  }")
    return "\n".join([*lines, "}"])


def dot_head(name: str) -> list[str]:
    return [
        f"digraph {dot_quote(name)} {{",
        "  graph [rankdir=TB, nodesep=0.25, ranksep=0.45];",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica",\n'
        f'        fillcolor="{_NODE_FACE}", color="{_NODE_EDGE}"];',
        f'  edge [color="{_EDGE}", arrowsize=0.7];',
    ]


def dot_lines(
    model: Network,
    prefix: str,
    indent: str,
    class_node: Hashable | None,
    edge_labels: bool,
    digits: int,
) -> list[str]:
    """One network's node and edge statements, its node ids prefixed by ``prefix``."""
    cls = _class_node(model, class_node)
    shown = display_parents(model, cls)
    ids = {v: dot_quote(prefix + i) for v, i in dot_node_ids(model).items()}
    lines = []
    for v in model.variables:
        attrs = [f"label={dot_quote(v)}"]
        if v == cls:
            attrs += [
                f'fillcolor="{_CLASS_FACE}"',
                f'color="{_CLASS_EDGE}"',
                "penwidth=2",
                'fontname="Helvetica-Bold"',
            ]
        elif shown[v] is None:
            attrs.append(f'fillcolor="{_ROOT_FACE}"')
        lines.append(f"{indent}{ids[v]} [{', '.join(attrs)}];")
    weights = [
        d["weight"]
        for u, v, d in model.graph.edges(data=True)
        if d.get("weight") is not None and _edge_kind(model, u, v, shown, cls) == "tree"
    ]
    max_w = max((float(x) for x in weights if math.isfinite(float(x))), default=0.0)
    for v in model.variables:
        for u in model.parents(v):
            attrs = []
            weight = model.graph.edges[u, v].get("weight")
            kind = _edge_kind(model, u, v, shown, cls)
            if kind == "tree":
                if weight is not None and max_w > 0:
                    attrs.append(f"penwidth={0.7 + 4.3 * max(float(weight), 0.0) / max_w:.2f}")
            else:
                colour = _CLASS_LINK if kind == "class" else _EXTRA_LINK
                attrs += ["style=dashed", f'color="{colour}"']
                if kind == "class":
                    attrs.append("constraint=false")
            text = _edge_text(model.graph.edges[u, v])
            if edge_labels and text is not None:
                attrs.append(f"label={dot_quote(text)}")
            elif edge_labels and weight is not None:
                attrs.append(f'label="{float(weight):.{digits}f}"')
            suffix = f" [{', '.join(attrs)}]" if attrs else ""
            lines.append(f"{indent}{ids[u]} -> {ids[v]}{suffix};")
    return lines


def mermaid_label(text: Any) -> str:
    s = str(text)
    for char, code in (("&", "#amp;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;")):
        s = s.replace(char, code)
    s = re.sub(r"[\r\n]+", " ", s)
    return f'"{s}"'


def to_mermaid(
    model: Network,
    *,
    edge_labels: bool = True,
    class_node: Hashable | None = None,
    digits: int = 3,
) -> str:
    """A Mermaid flowchart (top-down) for Markdown; node ids are ``n0, n1, ...``.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> print(tl.chow_liu(pd.DataFrame({"a": [0, 1, 1], "b": [0, 1, 1]})).to_mermaid())
    flowchart TD
      n0["a"]
      n1["b"]
      n0 -->|"0.637"| n1
      classDef root fill:#d3e3f7,stroke:#2f3e4e
      class n0 root
    """
    chart = MermaidChart()
    chart.add(model, "n", "  ", class_node, edge_labels, digits)
    return chart.text()


def panels_to_mermaid(
    models: Sequence[Network],
    titles: Sequence[str],
    *,
    edge_labels: bool = True,
    digits: int = 3,
) -> str:
    """Several networks in one Mermaid flowchart, each a titled ``subgraph`` (node ids
    ``p<k>n<i>``): the text form of :func:`draw_panels`.

    >>> import pandas as pd, treelearn as tl
    >>> df = pd.DataFrame({"a": [0, 1, 1], "b": [0, 1, 1]})
    >>> print(panels_to_mermaid([tl.chow_liu(df)], ["one"]))
    flowchart TD
      subgraph p0["one"]
        p0n0["a"]
        p0n1["b"]
        p0n0 -->|"0.637"| p0n1
      end
      classDef root fill:#d3e3f7,stroke:#2f3e4e
      class p0n0 root
    """
    chart = MermaidChart()
    for k, (model, title) in enumerate(zip(models, titles, strict=True)):
        chart.lines.append(f"  subgraph p{k}[{mermaid_label(title)}]")
        chart.add(model, f"p{k}n", "    ", None, edge_labels, digits)
        chart.lines.append("  end")
    return chart.text()


class MermaidChart:
    """A flowchart being written: its lines, and what is styled after them (link styles
    count the edges of the whole chart; roots and the class get one classDef each)."""

    def __init__(self) -> None:
        self.lines = ["flowchart TD"]
        self.styles: list[str] = []
        self.roots: list[str] = []
        self.classes: list[str] = []
        self.edges = 0

    def add(
        self,
        model: Network,
        prefix: str,
        indent: str,
        class_node: Hashable | None,
        edge_labels: bool,
        digits: int,
    ) -> None:
        cls = _class_node(model, class_node)
        shown = display_parents(model, cls)
        ids = {v: f"{prefix}{i}" for i, v in enumerate(model.variables)}
        self.lines += [f"{indent}{ids[v]}[{mermaid_label(v)}]" for v in model.variables]
        for v in model.variables:
            for u in model.parents(v):
                weight = model.graph.edges[u, v].get("weight")
                kind = _edge_kind(model, u, v, shown, cls)
                arrow = "-->" if kind == "tree" else "-.->"
                text = _edge_text(model.graph.edges[u, v])
                if text is None and weight is not None:
                    text = f"{float(weight):.{digits}f}"
                label = f"|{mermaid_label(text)}|" if edge_labels and text is not None else ""
                self.lines.append(f"{indent}{ids[u]} {arrow}{label} {ids[v]}")
                if kind == "class":
                    self.styles.append(f"  linkStyle {self.edges} stroke:{_CLASS_LINK}")
                self.edges += 1
        self.roots += [ids[v] for v in model.variables if shown[v] is None and v != cls]
        if cls is not None:
            self.classes.append(ids[cls])

    def text(self) -> str:
        lines = self.lines + self.styles
        if self.roots:
            lines.append(f"  classDef root fill:{_ROOT_FACE},stroke:{_NODE_EDGE}")
            lines.append(f"  class {','.join(self.roots)} root")
        if self.classes:
            lines.append(f"  classDef cls fill:{_CLASS_FACE},stroke:{_CLASS_EDGE},stroke-width:2px")
            lines.append(f"  class {','.join(self.classes)} cls")
        return "\n".join(lines)


def graph_to_dot(graph: Any, weight: str, *, digits: int = 2, name: str = "treelearn") -> str:
    """An undirected weighted graph (e.g. a tree posterior's edges and their probabilities)
    as Graphviz DOT: each edge labelled with its ``weight`` attribute, pen width by it.

    >>> import networkx as nx
    >>> print(graph_to_dot(nx.Graph([("a", "b", {"p": 0.75})]), "p"))
    graph "treelearn" {
      node [shape=box, style="rounded,filled", fontname="Helvetica",
            fillcolor="#eaf1fb", color="#2f3e4e"];
      edge [color="#2f3e4e"];
      "a" [label="a"];
      "b" [label="b"];
      "a" -- "b" [penwidth=3.70, label="0.75"];
    }
    """
    ids = {
        v: dot_quote(f"n{i}" if len(set(map(str, graph))) < len(graph) else v)
        for i, v in enumerate(graph)
    }
    lines = [
        f"graph {dot_quote(name)} {{",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica",\n'
        f'        fillcolor="{_NODE_FACE}", color="{_NODE_EDGE}"];',
        f'  edge [color="{_EDGE}"];',
    ]
    lines += [f"  {ids[v]} [label={dot_quote(v)}];" for v in graph]
    for u, v, w in graph.edges(data=weight):
        w = float(w)
        lines.append(
            f'  {ids[u]} -- {ids[v]} [penwidth={0.7 + 4 * w:.2f}, label="{w:.{digits}f}"];'
        )
    lines.append("}")
    return "\n".join(lines)


def graph_to_mermaid(graph: Any, weight: str, *, digits: int = 2) -> str:
    """An undirected weighted graph as a Mermaid flowchart (``---`` links labelled with the
    edge's ``weight`` attribute; node ids ``n0, n1, ...``).

    >>> import networkx as nx
    >>> print(graph_to_mermaid(nx.Graph([("a", "b", {"p": 0.75})]), "p"))
    flowchart TD
      n0["a"]
      n1["b"]
      n0 ---|"0.75"| n1
    """
    ids = {v: f"n{i}" for i, v in enumerate(graph)}
    lines = ["flowchart TD", *(f"  {ids[v]}[{mermaid_label(v)}]" for v in graph)]
    lines += [
        f'  {ids[u]} ---|"{float(w):.{digits}f}"| {ids[v]}' for u, v, w in graph.edges(data=weight)
    ]
    return "\n".join(lines)


def titled_dot(text: str, title: str) -> str:
    """DOT ``text`` with ``title`` as its graph's label, on top (set after every statement,
    so no cluster inherits it).

    >>> print(titled_dot('digraph "g" {\\n  "a";\\n}', "chosen: a"))
    digraph "g" {
      "a";
      label="chosen: a";
      labelloc="t";
    }
    """
    head, _, _ = text.rstrip().rpartition("}")
    return f'{head}  label={dot_quote(title)};\n  labelloc="t";\n}}'


def titled_mermaid(text: str, title: str) -> str:
    """Mermaid ``text`` with ``title`` in its front matter (Mermaid draws it above the chart).

    >>> print(titled_mermaid("flowchart TD\\n  n0[a]", 'chose "a"'))
    ---
    title: "chose \\"a\\""
    ---
    flowchart TD
      n0[a]
    """
    quoted = str(title).replace("\\", "\\\\").replace('"', '\\"')
    quoted = re.sub(r"[\r\n]+", " ", quoted)
    return f'---\ntitle: "{quoted}"\n---\n{text}'


def svg_or_none(model: Any) -> str | None:
    """``model.draw()`` (a TreeModel or a fitted classifier) as SVG text, or ``None``
    without matplotlib (Jupyter then shows the text)."""
    try:
        import matplotlib
    except ImportError:
        return None
    import io

    buffer = io.StringIO()
    # the same model gives the same text: no date, ids hashed from the content (not random)
    with matplotlib.rc_context({"svg.hashsalt": "treelearn"}):
        model.draw().savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    return buffer.getvalue()


def html_with_picture(html: str, svg: str) -> str:
    """``html`` (such as scikit-learn's estimator box) with the SVG picture ``svg`` (as
    :func:`svg_or_none` gives it) inline under it, in one ``<div>``.

    The picture refers to nothing outside the page: the XML prolog, the DOCTYPE (an
    external DTD) and the metadata block (RDF vocabulary links) are dropped, and
    matplotlib's ``*{...}`` style rule is scoped to this picture (an id from its
    content), so it restyles nothing else on the page.

    Examples
    --------
    >>> svg = '<?xml version="1.0"?>\\n<svg width="1pt"><style>*{stroke-linecap: butt}</style></svg>'
    >>> html_with_picture("<div>box</div>", svg)  # doctest: +ELLIPSIS
    '<div class="treelearn-estimator"><div>box</div><div ...><svg id="treelearn-..." ...#treelearn-... *{...'
    """
    body = svg[svg.index("<svg") :]
    body = re.sub(r"<metadata>.*?</metadata>\s*", "", body, flags=re.S)
    opening = body[: body.index(">") + 1]
    given = re.search(r'\sid="([^"]*)"', opening)  # rcParams["svg.id"] names the picture
    if given:
        ident = given.group(1)
    else:
        ident = "treelearn-" + hashlib.sha1(body.encode("utf-8")).hexdigest()[:12]
        body = body.replace("<svg", f'<svg id="{ident}"', 1)
    body = body.replace("*{", f"#{ident} *{{")
    return (
        f'<div class="treelearn-estimator">{html}'
        f'<div class="treelearn-network" style="margin-top:0.5em">{body}</div></div>'
    )
