"""Pictures of cutset networks: the OR-tree of conditioning variables, each leaf's tree.

A cutset network conditions on a variable at each OR node (one branch per state, with its
probability) and ends in leaves, each a Chow-Liu tree over the variables left. Its picture
is the OR-tree on top (each OR node labelled with its variable, each branch with the state
and its probability, each leaf a box ``leaf k``) and the leaves' trees below it, one panel
each, the heaviest first (a leaf's weight is the probability of the way to it, the product
of the branch probabilities). In DOT the leaves are clusters, in Mermaid subgraphs.

A big network is summarised, the heaviest part in full: the OR-tree is opened from the root,
always at the heaviest OR node left closed, as long as it shows at most ``max_leaves``
boxes at its bottom; a closed OR node is a dashed box saying how many leaves it holds and
their weight. At most ``max_panels`` leaf trees are drawn; the heading names the rest.

This module reads an OR-tree in its own small vocabulary (:class:`OrNode`): the model builds
it (``CutsetModel.or_tree()``), so nothing here probes a model's attributes.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import TYPE_CHECKING, Any, cast

import networkx as nx
import numpy as np

from .._base.errors import TreelearnError
from .._base.validation import Interval, check_param
from ._draw import (
    PANELS_MAX_WIDTH,
    MermaidChart,
    Network,
    StructureGroup,
    dot_head,
    dot_lines,
    dot_node_ids,
    dot_quote,
    draw,
    draw_ensemble,
    group_structures,
    mermaid_label,
    new_figure,
    panel_grid,
    structure_key,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "MAX_BAG_LEAVES",
    "MAX_LEAVES",
    "OrNode",
    "cutset_ensemble_to_dot",
    "cutset_ensemble_to_mermaid",
    "cutset_key",
    "cutset_to_dot",
    "cutset_to_mermaid",
    "draw_cutset",
    "draw_cutset_ensemble",
    "or_tree_drawing",
]

#: the most boxes at the bottom of a drawn OR-tree (leaves and closed OR nodes) by default
MAX_LEAVES = 12
#: the same in each panel of a bag's picture (up to six OR-trees in 2,000 px)
MAX_BAG_LEAVES = 8
#: inches between the OR-tree and the leaves' panels: a rule, then the first row's
#: two-line titles (drawn above their axes)
_BAND = 0.75
#: what the OR-tree's boxes and edges are, under the heading
_KEY = "each branch: state (probability); leaf k: its Chow-Liu tree below"


@dataclass(frozen=True)
class OrNode:
    """One node of a cutset network's OR-tree as a picture reads it: an OR node
    (``variable`` conditioned on; ``branches``: ``(state, probability, child)`` per state)
    or a leaf (``variable`` None; ``tree``: its network over ``n_columns`` variables, or
    None when none is left)."""

    variable: Hashable | None = None
    branches: tuple = ()
    tree: Network | None = field(default=None, compare=False)
    n_columns: int = 0

    @property
    def is_leaf(self) -> bool:
        return self.variable is None


@dataclass(frozen=True)
class _Box:
    """A box of the drawn OR-tree: ``path`` (the branch indices from the root) makes it one
    node of the graph, ``text`` is what it shows (``str``), ``detail`` what two networks
    drawn alike share beyond the text (a leaf tree's structure)."""

    path: tuple
    text: str
    detail: Hashable = None

    def __str__(self) -> str:
        return self.text


@dataclass
class _Placed:
    """The OR-tree as drawn: ``leaves`` (``(number, path, weight, way, node)`` of every
    leaf, in the network's left-to-right order), the boxes shown, which are closed OR
    nodes, and the graph of the picture."""

    leaves: list
    boxes: dict  # path -> _Box
    closed: dict  # path -> (number of leaves below, their weight)
    graph: Any
    root: _Box


def _walk(root: OrNode) -> list:
    """``(path, node, weight, way)`` of every node, parents first, left to right (``way``:
    the ``(variable, state)`` conditions to it; ``weight``: the product of its branches)."""
    out: list = []
    stack: list[tuple[tuple, OrNode, float, tuple]] = [((), root, 1.0, ())]
    while stack:
        path, node, weight, way = stack.pop()
        out.append((path, node, weight, way))
        for a in reversed(range(len(node.branches))):
            state, w, child = node.branches[a]
            stack.append(((*path, a), child, weight * float(w), (*way, (node.variable, state))))
    return out


def _opened(nodes: list, max_leaves: int | None) -> set:
    """The OR nodes drawn open: all, or opened from the root, the heaviest first, while the
    bottom of the drawing has at most ``max_leaves`` boxes."""
    inner = {path: (node, weight) for path, node, weight, _ in nodes if not node.is_leaf}
    if max_leaves is None:
        return set(inner)
    opened: set = set()
    if () not in inner:
        return opened
    heap: list[tuple[float, tuple]] = [(-inner[()][1], ())]
    bottom = 1
    while heap:
        _, path = heapq.heappop(heap)
        node, _ = inner[path]
        if bottom - 1 + len(node.branches) > max_leaves and opened:
            continue  # a lighter node with fewer branches may still fit
        opened.add(path)
        bottom += len(node.branches) - 1
        for a in range(len(node.branches)):
            child = (*path, a)
            if child in inner:
                heapq.heappush(heap, (-inner[child][1], child))
    return opened


def _place(root: OrNode, max_leaves: int | None, digits: int) -> _Placed:
    nodes = _walk(root)
    leaves: list[tuple] = []
    for path, node, weight, way in nodes:
        if node.is_leaf:
            leaves.append((len(leaves) + 1, path, weight, way, node))
    number = {path: k for k, path, *_ in leaves}
    opened = _opened(nodes, max_leaves)
    below: dict = {}  # every OR node's leaves: count and weight
    for _, path, weight, _, _ in leaves:
        for d in range(len(path)):
            n, w = below.get(path[:d], (0, []))
            below[path[:d]] = (n + 1, [*w, weight])
    graph = nx.DiGraph()
    boxes: dict = {}
    closed: dict = {}
    shown = [
        (path, node)
        for path, node, _, _ in nodes
        if all(path[:d] in opened for d in range(len(path)))
    ]
    for path, node in shown:
        if node.is_leaf:
            k = number[path]
            size = "empty" if node.tree is None else f"{node.n_columns} variables"
            detail = None if node.tree is None else structure_key(node.tree)
            box = _Box(path, f"leaf {k}\n{size}", detail)
        elif path in opened:
            box = _Box(path, str(node.variable))
        else:
            n, weights = below[path]
            closed[path] = (n, math.fsum(weights))
            box = _Box(path, f"{node.variable}\n{n} leaves")
        boxes[path] = box
        graph.add_node(box)
    by_path = {path: node for path, node, _, _ in nodes}
    for path, box in boxes.items():
        if path:
            parent = by_path[path[:-1]]
            state, w, _ = parent.branches[path[-1]]
            graph.add_edge(
                boxes[path[:-1]], box, weight=float(w), label=f"{state} ({float(w):.{digits}g})"
            )
    return _Placed(leaves, boxes, closed, graph, boxes[()])


class _OrDrawing:
    """The OR-tree as a :class:`~treelearn.viz._draw.Network` (what :func:`draw` reads)."""

    def __init__(self, placed: _Placed) -> None:
        self.graph = placed.graph
        self.variables = list(placed.graph.nodes)
        self.roots = [placed.root]
        self.settings: dict = {}
        self.n_rows = None

    def parents(self, variable: Hashable) -> list:
        return list(self.graph.predecessors(variable))

    def log_likelihood(self, data: Any) -> float:  # pragma: no cover - titles are given
        raise TreelearnError("an OR-tree drawing has no log-likelihood")


def or_tree_drawing(root: OrNode, max_leaves: int | None = MAX_LEAVES, digits: int = 3) -> Any:
    """The OR-tree of ``root`` as a drawable network: one box per shown node (its text the
    variable, ``leaf k (n variables)`` or a closed node's ``variable: n leaves``), each edge
    a branch labelled ``state (probability)``, its weight the probability."""
    return _OrDrawing(_place(root, max_leaves, digits))


def cutset_key(root: OrNode) -> Hashable:
    """What two cutset networks drawn alike share: the variable of every OR node, its
    number of branches, and every leaf's tree (:func:`~treelearn.viz._draw.structure_key`)."""
    return tuple(
        (path, node.variable, len(node.branches), node.n_columns)
        if not node.is_leaf or node.tree is None
        else (path, None, 0, structure_key(node.tree))
        for path, node, _, _ in _walk(root)
    )


def _way_text(way: tuple, limit: int = 3) -> str:
    shown = ", ".join(f"{v}={s}" for v, s in way[:limit])
    return (shown + (", ..." if len(way) > limit else "")) or "no conditions"


def _heaviest_trees(placed: _Placed) -> list:
    """The leaves shown in the OR-tree with a tree of two or more variables, heaviest first
    (ties: left first)."""
    kept = [
        leaf
        for leaf in placed.leaves
        if leaf[1] in placed.boxes and leaf[4].tree is not None and leaf[4].n_columns > 1
    ]
    return sorted(kept, key=lambda leaf: (-leaf[2], leaf[0]))


def _notes(placed: _Placed, drawn: int, trees: int, max_panels: int) -> list[str]:
    lines = []
    if placed.closed:
        n = sum(c[0] for c in placed.closed.values())
        w = math.fsum(c[1] for c in placed.closed.values())
        lines.append(
            f"{n} more leaves in {len(placed.closed)} dashed subtree"
            f"{'' if len(placed.closed) == 1 else 's'} (weight {w:.3f}; max_leaves= for more)"
        )
    if trees > drawn:
        lines.append(f"the {drawn} heaviest of {trees} leaf trees drawn (max_panels= for more)")
    return lines


def draw_cutset(
    root: OrNode,
    ax: Any = None,
    *,
    title: str | None = None,
    max_leaves: int | None = MAX_LEAVES,
    max_panels: int = 6,
    max_width: float = PANELS_MAX_WIDTH,
    digits: int = 3,
    edge_labels: bool = True,
    fontsize: float | None = None,
) -> Figure:
    """The picture of a cutset network (see the module docstring); returns the Figure.

    With ``ax`` only the OR-tree is drawn there; without, a figure of the OR-tree over its
    heaviest leaf trees, at most ``max_width`` inches wide (10: 2,000 px at the command
    line's 200 dpi). ``edge_labels``: the mutual information on the leaf trees' edges (the
    branches are always labelled).
    """
    if max_leaves is not None:
        max_leaves = check_param("max_leaves", max_leaves, [Interval(Integral, 1, None)])
    max_panels = check_param("max_panels", max_panels, [Interval(Integral, 0, None)])
    placed = _place(root, max_leaves, digits)
    drawing = _OrDrawing(placed)
    latent = [placed.boxes[p] for p in placed.closed]  # closed subtrees: grey, dashed
    trees = _heaviest_trees(placed)
    panels = trees[:max_panels]
    lines = ([title] if title else []) + _notes(placed, len(panels), len(trees), max_panels)
    if panels and ax is None:
        lines.append(_KEY)
    heading = "\n".join(lines) or None
    if ax is not None or not panels:
        fig = draw(drawing, ax, title=heading, edge_labels=True, latent=latent, fontsize=fontsize)
        width, height = fig.get_size_inches()
        if ax is None and width > max_width:
            fig = draw(
                drawing,
                title=heading,
                edge_labels=True,
                latent=latent,
                figsize=(max_width, height),
                fontsize=fontsize,
            )
        return fig
    alone = draw(drawing, edge_labels=True, latent=latent, fontsize=fontsize)
    top_w, top_h = alone.get_size_inches()
    titles = [f"leaf {k}: weight {w:.3f}\n{_way_text(way)}" for k, _, w, way, _ in panels]
    sizes, fonts = [], []
    for (*_, node), panel_title in zip(panels, titles):
        panel = draw(node.tree, title=panel_title, edge_labels=edge_labels, fontsize=fontsize)
        sizes.append(panel.get_size_inches())
        fonts.append(_font_of(panel))
    n_rows, n_cols, widths, heights, shrink = panel_grid(sizes, max_width)
    leaf_font = fontsize
    if shrink < 1.0 and fontsize is None:  # one label size in every panel, as draw_panels
        leaf_font = shrink * min(fonts)
    width = min(max_width, max(top_w, 1.02 * sum(widths)))
    top_scale = min(1.0, width / top_w)
    top_h *= top_scale
    bottom_h = 1.02 * sum(heights)
    # the heading above everything, at the panels' title size (not the OR-tree's, which
    # may be scaled down to the width)
    head_h = 0.15 + 0.24 * len(lines)
    height = head_h + top_h + _BAND + bottom_h
    fig = new_figure((width, height))
    outer = fig.add_gridspec(3, 1, height_ratios=[top_h, _BAND, bottom_h], hspace=0.0)
    fig.subplots_adjust(left=0, right=1, bottom=0, top=1 - head_h / height)
    fig.suptitle(heading or "", y=1 - 0.06 / height, va="top", fontsize=11, linespacing=1.3)
    top = fig.add_subplot(outer[0])
    size = None if top_scale == 1.0 else max(3.0, top_scale * _font_of(alone))
    draw(
        drawing,
        top,
        edge_labels=True,
        latent=latent,
        fontsize=size if size is not None else fontsize,
    )
    band = fig.add_subplot(outer[1])  # a rule between the OR-tree and the leaves' trees
    band.set_axis_off()
    band.axhline(0.9, color="#c5ccd6", linewidth=0.8)
    grid = outer[2].subgridspec(
        n_rows, n_cols, width_ratios=widths, height_ratios=heights, wspace=0.02, hspace=0.02
    )
    for i, ((*_, node), panel_title) in enumerate(zip(panels, titles)):
        axes = fig.add_subplot(grid[i // n_cols, i % n_cols])
        draw(node.tree, axes, title=panel_title, edge_labels=edge_labels, fontsize=leaf_font)
    return fig


def _font_of(fig: Any) -> float:
    texts = list(fig.treelearn_node_texts.values())
    return float(texts[0].get_fontsize()) if texts else 10.0


def draw_cutset_ensemble(
    roots: Sequence[OrNode],
    weights: Sequence[float] | np.ndarray,
    ax: Any = None,
    *,
    heading: str | None = None,
    max_leaves: int | None = MAX_BAG_LEAVES,
    max_panels: int = 6,
    max_width: float = PANELS_MAX_WIDTH,
    digits: int = 3,
    **kwargs: Any,
) -> Figure:
    """A bag of cutset networks: one OR-tree per structure (networks with the same OR-tree
    and leaf trees, :func:`cutset_key`, drawn once, titled with their members and summed
    weight, the heaviest first; :func:`~treelearn.viz._draw.draw_ensemble`'s grouping), each
    opened up to ``max_leaves`` boxes (default 8). ``ax``: one axes per structure drawn."""
    kwargs["edge_labels"] = True  # the branches are always labelled
    placed = [_place(r, max_leaves, digits) for r in roots]
    drawings = [_OrDrawing(p) for p in placed]
    # closed subtrees dashed: a box is its path and text, so one list serves every panel
    kwargs["latent"] = [p.boxes[path] for p in placed for path in p.closed]
    lines = [heading] if heading else []
    lines.append("each network's OR-tree (its leaf trees: draw the network alone)")
    return draw_ensemble(
        drawings,
        weights,
        ax,
        unit="network",
        heading="\n".join(lines),
        max_panels=max_panels,
        max_width=max_width,
        keys=[cutset_key(r) for r in roots],
        **kwargs,
    )


# ---------------------------------------------------------------------- text formats
def _leaf_title(k: int, weight: float, way: tuple) -> str:
    return f"leaf {k}: weight {weight:.3f} ({_way_text(way, len(way))})"


def _dot_network(
    placed: _Placed, prefix: str, indent: str, edge_labels: bool, digits: int
) -> list[str]:
    """One network's statements: its OR nodes and closed subtrees as nodes, each leaf tree a
    cluster (an empty leaf a plain node), each branch an edge into the leaf's cluster."""
    lines: list[str] = []
    ids: dict = {}
    number = {path: (k, w, way, node) for k, path, w, way, node in placed.leaves}
    for path, box in placed.boxes.items():
        ident = f"{prefix}or" + ".".join(map(str, path))
        if path in number and number[path][3].tree is not None:
            k, w, way, node = number[path]
            tree = node.tree
            inner = f"{prefix}L{k}:"
            cluster = f"cluster_{prefix}L{k}"
            lines += [
                f"{indent}subgraph {dot_quote(cluster)} {{",
                f"{indent}  label={dot_quote(_leaf_title(k, w, way))};",
            ]
            lines += dot_lines(tree, inner, indent + "  ", None, edge_labels, digits)
            lines.append(f"{indent}}}")
            first = dot_node_ids(tree)[tree.roots[0] if tree.roots else tree.variables[0]]
            ids[path] = (dot_quote(inner + first), cluster)
            continue
        if path in placed.closed:
            style = 'shape=box, style="rounded,dashed,filled", fillcolor="#ececec"'
        elif path in number:
            style = 'shape=box, style="rounded,filled", fillcolor="#ffffff"'
        else:
            style = 'shape=ellipse, style="filled", fillcolor="#d3e3f7"'
        lines.append(f"{indent}{dot_quote(ident)} [label={dot_quote(box.text)}, {style}];")
        ids[path] = (dot_quote(ident), None)
    for u, v, data in placed.graph.edges(data=True):
        attrs = [f"label={dot_quote(data['label'])}"]
        target, cluster = ids[v.path]
        if cluster is not None:
            attrs.append(f"lhead={dot_quote(cluster)}")
        lines.append(f"{indent}{ids[u.path][0]} -> {target} [{', '.join(attrs)}];")
    return lines


def cutset_to_dot(
    root: OrNode,
    *,
    title: str | None = None,
    max_leaves: int | None = MAX_LEAVES,
    edge_labels: bool = True,
    digits: int = 3,
    name: str = "treelearn",
) -> str:
    """Graphviz DOT of a cutset network: OR nodes as ellipses labelled with their
    variable, branches as edges labelled ``state (probability)``, each leaf tree a titled
    cluster (``leaf k: weight w (the conditions)``) the branch points into; summarised as
    the drawing is (``max_leaves=None``: every node)."""
    placed = _place(root, max_leaves, digits)
    lines = [*dot_head(name), "  compound=true;"]
    lines += _dot_network(placed, "", "  ", edge_labels, digits)
    notes = ([title] if title else []) + _notes(placed, 0, 0, 0)
    if notes:
        lines += [f"  label={dot_quote(chr(10).join(notes))};", '  labelloc="t";']
    return "\n".join([*lines, "}"])


def _mermaid_network(
    chart: MermaidChart, placed: _Placed, prefix: str, indent: str, edge_labels: bool, digits: int
) -> None:
    number = {path: (k, w, way, node) for k, path, w, way, node in placed.leaves}
    ids: dict = {}
    dashed: list[str] = []
    for path, box in placed.boxes.items():
        ident = f"{prefix}or" + "_".join(map(str, path))
        if path in number and number[path][3].tree is not None:
            k, w, way, node = number[path]
            ident = f"{prefix}L{k}"
            chart.lines.append(f"{indent}subgraph {ident}[{mermaid_label(_leaf_title(k, w, way))}]")
            chart.add(node.tree, f"{ident}n", indent + "  ", None, edge_labels, digits)
            chart.lines.append(f"{indent}end")
        elif path in number:
            chart.lines.append(f"{indent}{ident}[{mermaid_label(box.text)}]")
        else:
            chart.lines.append(f"{indent}{ident}([{mermaid_label(box.text)}])")
            if path in placed.closed:
                dashed.append(ident)
        ids[path] = ident
    for u, v, data in placed.graph.edges(data=True):
        chart.lines.append(
            f"{indent}{ids[u.path]} -->|{mermaid_label(data['label'])}| {ids[v.path]}"
        )
        chart.edges += 1
    if dashed:
        chart.styles.append("  classDef closed fill:#ececec,stroke-dasharray: 4 3")
        chart.styles.append(f"  class {','.join(dashed)} closed")


def cutset_to_mermaid(
    root: OrNode,
    *,
    max_leaves: int | None = MAX_LEAVES,
    edge_labels: bool = True,
    digits: int = 3,
) -> str:
    """A Mermaid flowchart of a cutset network: OR nodes as rounded boxes, branches as
    links labelled ``state (probability)``, each leaf tree a titled subgraph the branch
    links to; summarised as the drawing is."""
    chart = MermaidChart()
    _mermaid_network(chart, _place(root, max_leaves, digits), "", "  ", edge_labels, digits)
    return chart.text()


def _groups(roots: Sequence[OrNode], weights: Any) -> list[StructureGroup]:
    return group_structures(cast(Any, roots), weights, [cutset_key(r) for r in roots])


def _group_title(group: StructureGroup) -> str:
    ids = group.members
    who = (
        f"network {ids[0]}"
        if len(ids) == 1
        else f"{len(ids)} networks ({', '.join(map(str, ids[:4]))}{', ...' if len(ids) > 4 else ''})"
    )
    return f"{who}: weight {group.weight:.3f}"


def cutset_ensemble_to_dot(
    roots: Sequence[OrNode],
    weights: Any,
    *,
    max_leaves: int | None = MAX_LEAVES,
    edge_labels: bool = True,
    digits: int = 3,
    name: str = "treelearn",
) -> str:
    """A bag of cutset networks in DOT: one titled cluster per structure (the networks
    sharing it and their weight, heaviest first), each network's as :func:`cutset_to_dot`."""
    lines = [*dot_head(name), "  compound=true;"]
    for g, group in enumerate(_groups(roots, weights)):
        placed = _place(roots[group.members[0]], max_leaves, digits)
        lines += [
            f"  subgraph cluster_s{g} {{",
            f"    label={dot_quote(_group_title(group))};",
            *_dot_network(placed, f"s{g}:", "    ", edge_labels, digits),
            "  }",
        ]
    return "\n".join([*lines, "}"])


def cutset_ensemble_to_mermaid(
    roots: Sequence[OrNode],
    weights: Any,
    *,
    max_leaves: int | None = MAX_LEAVES,
    edge_labels: bool = True,
    digits: int = 3,
) -> str:
    """A bag of cutset networks as a Mermaid flowchart: one titled subgraph per structure."""
    chart = MermaidChart()
    for g, group in enumerate(_groups(roots, weights)):
        placed = _place(roots[group.members[0]], max_leaves, digits)
        chart.lines.append(f"  subgraph s{g}[{mermaid_label(_group_title(group))}]")
        _mermaid_network(chart, placed, f"s{g}", "    ", edge_labels, digits)
        chart.lines.append("  end")
    return chart.text()
