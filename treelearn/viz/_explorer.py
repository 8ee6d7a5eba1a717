"""An interactive model explorer: one self-contained HTML file.

:func:`to_html` writes a model's page: its structure, laid out like
:func:`treelearn.viz._draw.draw` (the same tidy tree layout,
:func:`treelearn.viz._draw.layout`), as one HTML page with its script and styles inline
(no network access). Each variable is a box with its marginal as bars (a number: its
density, a slider and a number box); hovering a box shows its CPT; clicking a state sets
(or clears) evidence and every marginal is recomputed at once, exactly, *in the
browser*, by the page's one inference engine over the numbers written into the page.

The page asks the model: an object that answers ``require("explorer")`` (the
:class:`~treelearn.models._base.Capable` protocol) gives its page specification,
``obj.explorer_spec(title=None, **options)`` (a method of its class, in its own module;
the vocabulary is :mod:`treelearn.viz._page_spec`'s), and this module lays it out and
writes the page. A kind that does not declare ``"explorer"`` is refused by the protocol's
one :class:`~treelearn.CapabilityError`; a page too large to hold is refused by the kind,
naming what to do instead. The only option is AODE's ``super_parent``.

What the engine (``assets/engine.js``) computes on:

- a weighted set of forests of one-parent CPTs (a tree; one forest per state of a
  conditioner such as TAN's class, a multinet's class or a mixture's component; one per
  joint state of a cutset, per leaf of a cutset network, per row of a joint table such as
  a posterior over trees' or BayesianTAN's; A2DE's pairs of super-parents, averaged over
  those observed): two passes of sum-product per forest, mixed by their weights, or
  max-product for MAP;
- Gaussians: a number hangs from a number by a regression or from a discrete variable by
  one Gaussian per state (a Gaussian or CLG tree, a classifier's Gaussian features), its
  subtree's density of the numbers given being a likelihood of that discrete variable;
  or one joint Gaussian of the numbers per class (a Gaussian classifier), conditioned on
  the numbers given.

The drawing: each edge has an arrowhead at its child and its strength, ``I(parent;
child)`` in nats under the model (or a posterior edge probability), on hover and, with
"edge strength" ticked, as a label (``g.edge`` elements with ``data-edge``,
``data-strength``). The tools in the corner zoom (buttons or the wheel, around the
pointer), pan (drag the background), fit the drawing to the window (the default when it
is larger), and find a variable (``input#search``: the matches outlined, Enter centres
the first); ``#view`` carries ``data-scale``, ``data-tx``, ``data-ty``. The MAP button
(where the page offers it) stars the most probable completion of the evidence
(max-product, as ``map_query``), the status line carrying ``data-map`` (JSON ``{variable:
state}`` of the unobserved variables) and ``data-map-log-prob``. Every state's bar has the
marginal without evidence as a thin grey line under it (``data-prior`` on each box). In a
notebook, ``model.explore()`` (:class:`Explorer`, :func:`to_iframe`) shows the page inline,
in an ``<iframe srcdoc=...>``.

The page, for tools and tests: every variable's element carries ``data-variable`` (its
name) and ``data-marginal`` (a JSON list of probabilities in state order, an observed
variable's observed state 1; a number's Gaussian mixture ``{"weights", "means",
"variances"}``, or ``[mean, variance]`` on a Gaussian tree's page, ``{"observed": x}`` /
``[x, 0]`` when observed); the URL fragment ``#evidence=var:state,var:number`` preloads
evidence (the page rewrites it on every click, so a view can be linked); the status line
carries ``data-evidence`` (JSON ``{variable: state or number}``) and ``data-log-evidence``
(``log P(evidence)``, nats; a log density with numbers).

Soft (likelihood) evidence, as ``evidence={"X": [w0, w1]}`` in Python: the side panel's
sliders give a variable one weight per state (set on release); the fragment carries it
as ``&soft=var:w0|w1|...`` (a bad likelihood there is ignored and named, as Python
refuses it), the status line as ``data-soft``. A state replaces a variable's likelihood.

The side panel (where the page offers it) explains a chosen target (the class by
default) under the current evidence: each piece of evidence's exact Shapley value for
the target's log-odds (beyond 10 pieces, the chain rule in ``explain(kind="log_odds")``'s
order), and the ranked "ask next" list (the top 8), ``I(T; X | evidence)``. Elements
``#contributions`` (``data-target``, ``data-state``, ``data-base``, ``data-prediction``,
``data-method``: ``shapley`` or ``chain``) and ``#ask-next``, one ``.item`` per variable
with ``data-item`` and ``data-value``; the target is chosen in ``select#target``.

The page's template, styles and scripts are package data in ``treelearn/viz/assets``:
``explorer.html``, ``explorer.css``, and the scripts by role: ``engine.js`` (the
inference engine), ``view.js`` (the drawing and the boxes), ``ui.js`` (evidence, the
status line, the side panel, the fragment, zoom and search).
"""

from __future__ import annotations

import html
import inspect
import json
import os
import re
from collections.abc import Hashable, Mapping
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from .._base.errors import TreelearnError
from ._draw import layout, tree_route
from ._page_spec import label

__all__ = ["Explorer", "explorer_spec", "to_html", "to_iframe"]

# box geometry (CSS pixels); widths are estimated from the text, the CSS cuts what overflows
_ROW = 17  # one state row
_HEAD = 22  # the variable's name
_PAD = 8
_CHAR = 7.0  # average width of a character of the 12 px sans-serif font
_MAX_LABEL = 18  # state labels longer than this are cut (the full label is the tooltip)
_BAR = 70
_PCT = 46
_GAP_X = 24
_GAP_TREE = 48
_GAP_Y = 46
_MARGIN = 16
_GAUSS_W = 230.0  # a number's box: its name, the density, the moments, slider and number box
_GAUSS_H = _HEAD + 38 + 16 + 24 + _PAD

#: each option of a page: what it does, and what a kind that takes none lacks (its refusal)
_OPTIONS = {"super_parent": ("chooses one of AODE's networks", "none (no super-parents)")}
#: what a page offers and shows unless its kind says otherwise
_DEFAULTS = {
    "edge_labels": [],
    "strength": "information",
    "cond": -1,
    "target": -1,
    "components": [],
    "panel": True,
    "map": True,
    "soft": True,
    "moments": False,
}


def explorer_spec(obj: Any, title: str | None = None, **options: Any) -> dict:
    """Everything the explorer page shows and computes with, as JSON-ready data: the
    kind's page specification (``obj.explorer_spec``; see :mod:`treelearn.viz._page_spec`)
    laid out: each variable's box (``x``, ``y``, ``w``, ``h``, ``root``) and each edge's
    route (a sixth entry, ``[[x, y], ...]``, or None for an edge the layout does not hang
    the child from), the drawing's ``width`` and ``height``.

    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}))
    >>> spec = explorer_spec(m)
    >>> [v["name"] for v in spec["variables"]], spec["cond"], len(spec["components"])
    (['a', 'b'], -1, 1)
    """
    require = getattr(obj, "require", None)  # the Capable protocol, not the kind
    if not callable(require):
        raise TreelearnError(
            f"the explorer shows treelearn's models and classifiers, not a {type(obj).__name__}"
        )
    require("explorer")
    provider = obj.explorer_spec
    options = {k: v for k, v in options.items() if v is not None}
    taken = inspect.signature(provider).parameters
    for name, value in options.items():
        if name not in taken:  # another kind's option, or none at all
            does, lacks = _OPTIONS.get(name, ("is no option of the explorer", "no such option"))
            raise TreelearnError(
                f"{name}={value!r} {does}; a {type(obj).__name__} has {lacks}: leave it out"
            )
    return _laid_out({**_DEFAULTS, **provider(title=title, **options)})


def _laid_out(spec: dict) -> dict:
    """The page specification with its picture: draw()'s tidy layout of ``drawn`` on box
    sizes in pixels, the edges' routes."""
    variables = spec["variables"]
    n = len(variables)
    drawn = spec["drawn"]
    children: dict = {i: [] for i in range(n)}
    for i, p in enumerate(drawn):
        if p >= 0:
            children[p].append(i)
    roots = [i for i in spec.get("roots", []) if drawn[i] < 0]
    roots += [i for i in range(n) if drawn[i] < 0 and i not in set(roots)]
    w: dict = {}
    h: dict = {}
    for i, v in enumerate(variables):
        title = min(len(v["name"]), 28) * (_CHAR + 0.5) + 2 * _PAD
        if v["states"]:
            longest = max(min(len(s), _MAX_LABEL) for s in v["states"])
            w[i] = max(title, longest * _CHAR + _BAR + _PCT + 3 * _PAD + 14)
            h[i] = _HEAD + _ROW * len(v["states"]) + _PAD
        else:  # a number
            w[i], h[i] = max(_GAUSS_W, title), float(_GAUSS_H)
    corner, width, height, route = _placed(children, roots, w, h)
    for i, v in enumerate(variables):
        x, y = corner[i]
        v.update(
            x=round(x, 1), y=round(y, 1), w=round(w[i], 1), h=round(h[i], 1), root=drawn[i] < 0
        )
    spec["edges"] = [[[*e, route(e[0], e[1])] for e in edges] for edges in spec["edges"]]
    spec.update(width=round(width, 1), height=round(height, 1))
    return spec


def _placed(children: dict, roots: list, w: dict, h: dict) -> tuple[dict, float, float, Any]:
    """draw()'s tidy layout on box sizes in pixels: each box's top-left corner, the
    drawing's width and height (each depth as tall as its tallest box), and ``route(u, v)``:
    a layout edge's polyline round the other boxes (:func:`~treelearn.viz._draw.tree_route`;
    ``None`` for an edge the layout does not hang ``v`` from)."""
    pos = layout(children, roots, w, gap=_GAP_X, tree_gap=_GAP_TREE)
    depth_h: dict = {}
    for v, (_, d) in pos.items():
        depth_h[d] = max(depth_h.get(d, 0.0), h[v])
    top = {}
    y = _MARGIN + 40.0  # below the status line
    for d in range(max(depth_h) + 1):
        top[d] = y
        y += depth_h.get(d, 0.0) + _GAP_Y
    width = max(x + w[v] / 2 for v, (x, _) in pos.items()) + 2 * _MARGIN
    corner = {v: (_MARGIN + x - w[v] / 2, top[d]) for v, (x, d) in pos.items()}
    hangs = {c: u for u, kids in children.items() for c in kids}

    def route(u: Hashable, v: Hashable) -> list | None:
        if hangs.get(v) != u:
            return None
        du = pos[u][1]
        (ux, uy), (vx, vy) = corner[u], corner[v]
        pts = tree_route(
            ux + w[u] / 2, uy + h[u], top[du] + depth_h[du], top[du + 1], vx + w[v] / 2, vy
        )
        return [[round(a, 2), round(b, 2)] for a, b in pts]

    return corner, width, y - _GAP_Y + _MARGIN, route


def to_html(
    obj: Any,
    path: str | os.PathLike | None = None,
    *,
    title: str | None = None,
    evidence: Mapping[Hashable, Any] | None = None,
    super_parent: Hashable | None = None,
) -> str:
    """The explorer page for a model or fitted classifier; written to ``path`` when given.

    ``evidence`` (``{variable: state}``) is set when the page opens without an
    ``#evidence=...`` fragment. ``super_parent`` chooses which of AODE's one-dependence
    networks is shown (default: the feature most informative about the class); the page's
    class posterior is then that network's, not AODE's average.

    The page is one self-contained file (no network access): click a node to set its
    state as evidence, and every marginal updates.

    Parameters
    ----------
    obj : Model or fitted classifier
        Anything whose ``capabilities`` include ``"explorer"``.
    path : str or os.PathLike, default=None
        Where to write the page (atomically); not written when None.
    title : str, default=None
        The page's title (default: the model's kind and size).
    evidence : dict, default=None
        ``{variable: state}`` set when the page opens.
    super_parent : hashable, default=None
        AODE only: which super-parent's network is shown.

    Returns
    -------
    str
        The HTML text.

    Raises
    ------
    CapabilityError
        ``obj`` has no explorer page.

    See Also
    --------
    TreeModel.draw : a static picture.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}))
    >>> page = to_html(m)
    >>> page.startswith("<!DOCTYPE html>"), "http" in page.split("<script")[0]
    (True, False)
    """
    page, _ = _page(obj, title, evidence, super_parent)
    if path is not None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(page)
    return page


def _page(
    obj: Any,
    title: str | None,
    evidence: Mapping[Hashable, Any] | None,
    super_parent: Hashable | None = None,
) -> tuple[str, dict]:
    """The page's text and the spec it shows."""
    spec = explorer_spec(obj, title=title, super_parent=super_parent)
    known = {v["name"]: v["states"] for v in spec["variables"]}
    preset: dict = {}
    for var, state in (evidence or {}).items():
        name = label(var)
        if name not in known:
            raise TreelearnError(
                f"evidence names {var!r}, which is not a variable of this model; "
                f"variables: {list(known)}"
            )
        if not known[name]:  # a number
            if (
                isinstance(state, bool)
                or not isinstance(state, (int, float, np.number))
                or not np.isfinite(state)
            ):
                raise TreelearnError(
                    f"evidence {var!r} = {state!r}: a Gaussian variable takes a finite number"
                )
            preset[name] = float(state)
        elif label(state) not in known[name]:
            raise TreelearnError(
                f"evidence {var!r} = {state!r}: not a state of {var!r}; states: {known[name]}"
            )
        else:
            preset[name] = label(state)
    spec["evidence"] = preset
    # inside <script>, "<" is the only character that can end the block early
    data = json.dumps(spec, ensure_ascii=False, allow_nan=False).replace("<", "\\u003c")
    parts = {
        "TITLE": html.escape(spec["title"]),
        "CSS": _asset("explorer.css"),
        "JS": "\n".join(_asset(a) for a in ("engine.js", "view.js", "ui.js")),
        "DATA": data,
    }
    # one pass over the template: what a part holds (a title "%JS%") is never expanded
    return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], _asset("explorer.html")), spec


def to_iframe(
    obj: Any,
    *,
    height: int | None = None,
    title: str | None = None,
    evidence: Mapping[Hashable, Any] | None = None,
    super_parent: Hashable | None = None,
) -> str:
    """The explorer page inside an ``<iframe srcdoc=...>``, for a notebook's output cell
    (``_repr_html_``): the page is the attribute's value, escaped, so it needs no file and
    no network; its script runs in the frame (``sandbox="allow-scripts"``), apart from
    the notebook's. ``height`` in pixels (default: the drawing's, between 320 and 720);
    ``title``, ``evidence`` and ``super_parent`` as :func:`to_html`'s.

    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}))
    >>> to_iframe(m).startswith('<iframe srcdoc="&lt;!DOCTYPE html&gt;')
    True
    """
    page, spec = _page(obj, title, evidence, super_parent)
    return _iframe(page, spec, height)


def _iframe(page: str, spec: dict, height: int | None) -> str:
    if height is None:
        height = int(min(max(spec["height"] + 60, 320), 720))
    elif not isinstance(height, (int, np.integer)) or isinstance(height, bool) or height < 1:
        raise TreelearnError(
            f"height={height!r}: give the frame's height in pixels, a "
            f"positive integer (or None for the drawing's)"
        )
    return (
        f'<iframe srcdoc="{html.escape(page, quote=True)}" sandbox="allow-scripts" '
        f'style="width: 100%; height: {int(height)}px; border: 1px solid #d0d7de" '
        f'title="{html.escape(spec["title"], quote=True)}"></iframe>'
    )


class Explorer:
    """The explorer page of a model, for a notebook's output cell: Jupyter shows it through
    ``_repr_html_``, :func:`to_iframe`'s ``<iframe srcdoc=...>`` (built at once, so a model
    the explorer refuses fails here); ``save(path)`` writes the page itself. Made by
    ``model.explore()`` (keywords as :func:`to_iframe`'s).

    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}))
    >>> m.explore()._repr_html_().startswith("<iframe srcdoc=")
    True
    """

    def __init__(
        self,
        obj: Any,
        *,
        height: int | None = None,
        title: str | None = None,
        evidence: Mapping[Hashable, Any] | None = None,
        super_parent: Hashable | None = None,
    ) -> None:
        self._page, spec = _page(obj, title, evidence, super_parent)
        self.title = spec["title"]
        self._html = _iframe(self._page, spec, height)

    def _repr_html_(self) -> str:
        return self._html

    def save(self, path: str | os.PathLike) -> None:
        """Write the page (a self-contained HTML file) to ``path``."""
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(self._page)

    def __repr__(self) -> str:
        return f"Explorer({self.title!r})"


_PLACEHOLDER = re.compile(r"%(TITLE|CSS|JS|DATA)%")


@cache
def _asset(name: str) -> str:
    """A file of the page (package data in ``treelearn/viz/assets``), read once."""
    return (
        resources.files(__package__).joinpath("assets").joinpath(name).read_text(encoding="utf-8")
    )
