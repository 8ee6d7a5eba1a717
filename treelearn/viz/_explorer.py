"""An interactive model explorer: one self-contained HTML file.

:func:`to_html` writes the learned structure, laid out like :func:`treelearn.viz._draw.draw`
(the same tidy tree layout, :func:`treelearn.viz._draw.layout`), as one HTML page with its
script and styles inline (no network access). Each variable is a box with its marginal
as bars; hovering a box shows its CPT; clicking a state sets (or clears) evidence and
every marginal is recomputed at once by exact sum-product message passing *in the
browser*, over the CPTs written into the page.

What the page can compute exactly, and so what it accepts:

- a tree or a forest (every variable has at most one parent): one message-passing pass;
- a network with one *conditioner*: a variable without parents whose removal leaves
  every other variable at most one parent (TAN's class; a parent of a v-structure). For
  each state ``c`` of the conditioner the others form a forest, so one pass per ``c``
  gives ``P(evidence, c)`` and the marginals given ``c``, mixed by those weights;
- a Chow–Liu multinet: the class is the conditioner, with a different forest per class.

Anything else (e.g. a network imported from pgmpy with two feature parents) raises
:class:`~treelearn.TreelearnError`.

The page, for tools and tests: every variable's element carries ``data-variable``
(its name) and ``data-marginal`` (a JSON list of probabilities in state order; an
observed variable shows its observed state as 1); the URL fragment
``#evidence=var:state,var:state`` preloads evidence (the page rewrites it on every
click, so a view can be linked); the status line carries ``data-evidence``
(JSON ``{variable: state}``) and ``data-log-evidence`` (``log P(evidence)``, nats).

This module only reads a model (duck-typed: ``variables``, ``states``, ``parents()``,
``cpt()``, ``graph``; classifiers through ``model_`` or ``models_``), so ``TreeModel``
and the classifiers can call it without an import cycle.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from .._base.errors import TreelearnError
from ..inference._conditioner import choose_conditioner
from ._draw import display_parents, layout

__all__ = ["explorer_spec", "to_html"]

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
_MAX_CPT_ROWS = 64  # the hover table shows at most this many parent configurations


def _label(x: Any) -> str:
    return str(x.item() if isinstance(x, np.generic) else x)


# ---------------------------------------------------------------------- reading the model
def _networks(obj: Any) -> tuple[Any, Hashable | None, list, dict]:
    """``(network to lay out, class node, variables, {component label: network})``.

    A Chow–Liu multinet has one forest per class and no single network: it is laid out
    from its most probable class's tree, the class node above it.
    """
    if hasattr(obj, "cpt") and hasattr(obj, "variables"):
        return obj, obj.graph.graph.get("class"), list(obj.variables), {}
    if not hasattr(obj, "classes_"):
        raise TreelearnError(
            f"this {type(obj).__name__} is not fitted yet: call fit(X, y) before to_html"
        )
    if hasattr(obj, "models_") and isinstance(obj.models_, dict):
        labels = list(obj.models_)
        first = labels[int(np.argmax(obj.class_log_prior_))]
        features = list(obj.models_[first].variables)
        return obj.models_[first], obj.class_name_, [*features, obj.class_name_], obj.models_
    model = obj.model_
    return model, obj.class_name_, list(model.variables), {}


def _conditioner(model: Any) -> Hashable | None:
    """``None`` for a forest of one-parent CPTs; else the root whose removal leaves one
    (the engine's rule, :func:`~treelearn.inference._conditioner.choose_conditioner`,
    restricted to what the page computes with: ``pairwise``)."""
    parents = {v: list(model.parents(v)) for v in model.variables}
    ok, cond = choose_conditioner(parents, pairwise=True)
    if ok:
        return cond
    many = [v for v in model.variables if len(parents[v]) > 1]
    raise TreelearnError(
        f"the explorer computes exactly on trees (or a tree plus one class node), but "
        f"{many[0]!r} has the parents {model.parents(many[0])!r}: export this network "
        f"with to_pgmpy() or draw() instead"
    )


def _component(model: Any, index: dict, cond: Hashable | None, state: int | None) -> dict:
    """One forest: parent indices, CPT rows ``[parent state][state]`` and a parent-first order."""
    n = len(index)
    parent = [-1] * n
    cpt: list = [None] * n
    for v in model.variables:
        if v == cond:
            continue
        ps = list(model.parents(v))
        table = np.asarray(model.cpt(v), dtype=float)
        if cond is not None and cond in ps:
            table = np.take(table, state, axis=ps.index(cond))
            ps.remove(cond)
        k = table.shape[-1]
        cpt[index[v]] = table.reshape(-1, k).tolist()
        if ps:
            parent[index[v]] = index[ps[0]]
    children: dict = {i: [] for i in range(n)}
    for i, p in enumerate(parent):
        if p >= 0:
            children[p].append(i)
    order: list = []
    stack = [i for i in range(n) if parent[i] < 0 and cpt[i] is not None][::-1]
    while stack:  # parents before children
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(children[i]))
    return {"parent": parent, "cpt": cpt, "order": order}


def _cpt_view(rows_of: list, parents: list, states: dict) -> dict:
    """The hover table: parent names, then rows ``[parent state labels, probabilities]``."""
    shape = [len(states[p]) for p in parents]
    rows = []
    for flat, probs in enumerate(rows_of):
        if len(rows) == _MAX_CPT_ROWS:
            break
        combo = np.unravel_index(flat, shape) if shape else ()
        rows.append([[states[p][j] for p, j in zip(parents, combo)], probs])
    return {"parents": [_label(p) for p in parents], "rows": rows, "total": len(rows_of)}


def _multinet_cpt(per_class: dict, cls: Hashable, v: Hashable, states: dict) -> dict:
    """The hover table of a multinet's feature: its CPT in every class's tree, the class
    first; the parent (which may differ between classes) named in each row."""
    rows = []
    for label, model in per_class.items():
        ps = list(model.parents(v))
        table = np.asarray(model.cpt(v), dtype=float).reshape(-1, len(states[v])).tolist()
        for j, probs in enumerate(table):
            given = f"{_label(ps[0])} = {states[ps[0]][j]}" if ps else "(root)"
            rows.append([[_label(label), given], probs])
    return {"parents": [_label(cls), "parent"], "rows": rows[:_MAX_CPT_ROWS], "total": len(rows)}


def _title(obj: Any, model: Any, n: int) -> str:
    kind = type(obj).__name__
    if kind == "TreeModel":
        kind = {"chow-liu": "Chow–Liu tree", "fit_cpts": "Bayesian network",
                "pgmpy": "Bayesian network"}.get(str(model.settings.get("method")), "tree model")
    parts = [kind, f"{n} variable{'' if n == 1 else 's'}"]
    per_class = getattr(obj, "models_", None)
    rows = getattr(model, "n_rows", None)
    if isinstance(per_class, dict):  # a multinet's trees each count their class's rows
        counted = [m.n_rows for m in per_class.values()]
        rows = None if None in counted else sum(counted)
    if rows is not None:
        parts.append(f"n = {rows:,}")
    return " · ".join(parts)


def _boxes(names: list, states: list) -> tuple[dict, dict]:
    w, h = {}, {}
    for v, ss in zip(names, states):
        longest = max((min(len(s), _MAX_LABEL) for s in ss), default=1)
        title = min(len(_label(v)), 28) * (_CHAR + 0.5) + 2 * _PAD
        w[v] = max(title, longest * _CHAR + _BAR + _PCT + 3 * _PAD + 14)
        h[v] = _HEAD + _ROW * len(ss) + _PAD
    return w, h


def explorer_spec(obj: Any, title: str | None = None) -> dict:
    """Everything the explorer page shows and computes with, as JSON-ready data.

    ``variables`` (name, state labels, box position and size, CPT for the hover
    table), ``edges`` (for each forest, ``[parent, child, kind, width]``), ``cond``
    (the conditioner's index, or -1), ``components`` (one forest, or one per
    conditioner state, each with its ``weight``). Numbers are the model's own.

    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}))
    >>> spec = explorer_spec(m)
    >>> [v["name"] for v in spec["variables"]], spec["cond"], len(spec["components"])
    (['a', 'b'], -1, 1)
    """
    shown_model, cls, variables, per_class = _networks(obj)
    index = {v: i for i, v in enumerate(variables)}
    if per_class:  # multinet: the class conditions a different forest per class
        labels = list(per_class)
        class_states = [_label(c) for c in labels]
        states = {v: [_label(s) for s in shown_model.states[v]] for v in shown_model.variables}
        for label, m in per_class.items():
            other = {v: [_label(s) for s in m.states[v]] for v in m.variables}
            if other != states:
                raise TreelearnError(
                    f"the trees of the classes {labels[0]!r} and {label!r} have different "
                    f"states; the explorer needs the same states in every class's tree"
                )
            _conditioner(m)  # each class's network must be a forest
        states[cls] = class_states
        cond: Hashable | None = cls
        weights = np.exp(np.asarray(obj.class_log_prior_, dtype=float))
        components = [
            {**_component(per_class[label], index, None, None), "weight": float(wt)}
            for label, wt in zip(labels, weights)
        ]
        cpt_views = {v: _multinet_cpt(per_class, cls, v, states) for v in shown_model.variables}
        cpt_views[cls] = _cpt_view([weights.tolist()], [], states)
        layout_model, layout_cls = shown_model, None
    else:
        model = shown_model
        states = {v: [_label(s) for s in model.states[v]] for v in variables}
        cond = _conditioner(model)
        if cond is None:
            components = [{**_component(model, index, None, None), "weight": 1.0}]
        else:
            prior = np.asarray(model.cpt(cond), dtype=float).reshape(-1)
            components = [
                {**_component(model, index, cond, c), "weight": float(prior[c])}
                for c in range(len(prior))
            ]
        cpt_views = {
            v: _cpt_view(
                np.asarray(model.cpt(v), dtype=float).reshape(-1, len(states[v])).tolist(),
                list(model.parents(v)), states,
            )
            for v in variables
        }
        layout_model, layout_cls = model, cls

    # the picture: draw()'s tidy layout on box widths in pixels
    shown = display_parents(layout_model, layout_cls)
    if per_class:
        shown = {v: (p if p is not None else cls) for v, p in shown.items()}
        shown[cls] = None
    children: dict = {v: [] for v in variables}
    for v in variables:
        if shown[v] is not None:
            children[shown[v]].append(v)
    roots = [v for v in ([cls] if per_class else list(layout_model.roots)) if shown[v] is None]
    roots += [v for v in variables if shown[v] is None and v not in roots]
    w, h = _boxes(variables, [states[v] for v in variables])
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

    def edge_list(net: Any, class_node: Hashable | None) -> list:
        weights_mi = [a.get("weight") for _, _, a in net.graph.edges(data=True)]
        finite = [float(x) for x in weights_mi if x is not None and np.isfinite(x)]
        top_mi = max(finite, default=0.0)
        out = []
        for u, v, a in net.graph.edges(data=True):
            mi = a.get("weight")
            kind = "class" if (u == class_node and shown.get(v) != u) else "tree"
            width_px = 1.5
            if mi is not None and np.isfinite(mi) and top_mi > 0:
                width_px = 1.0 + 3.0 * float(mi) / top_mi
            out.append([index[u], index[v], kind, round(width_px, 2)])
        return out

    if per_class:
        edges = []
        for label in per_class:
            net_edges = edge_list(per_class[label], None)
            roots_c = [i for i, p in enumerate(components[len(edges)]["parent"])
                       if p < 0 and i != index[cls]]
            edges.append([[index[cls], r, "tree", 1.5] for r in roots_c] + net_edges)
    else:
        edges = [edge_list(layout_model, cls)]
    out_vars = []
    for v in variables:
        x, d = pos[v]
        out_vars.append({
            "name": _label(v),
            "states": states[v],
            "x": round(_MARGIN + x - w[v] / 2, 1),
            "y": round(top[d], 1),
            "w": round(w[v], 1),
            "h": round(h[v], 1),
            "cls": v == cls,
            "root": shown[v] is None,
            "cpt": cpt_views[v],
        })
    return {
        "title": title if title is not None else _title(obj, shown_model, len(variables)),
        "variables": out_vars,
        "cond": index[cond] if cond is not None else -1,
        "components": components,
        "edges": edges,
        "edge_labels": [_label(c) for c in per_class] if per_class else [],
        "width": round(width, 1),
        "height": round(y - _GAP_Y + _MARGIN, 1),
    }


def to_html(
    obj: Any,
    path: str | os.PathLike | None = None,
    *,
    title: str | None = None,
    evidence: Mapping[Hashable, Any] | None = None,
) -> str:
    """The explorer page for a model or fitted classifier; written to ``path`` when given.

    ``evidence`` (``{variable: state}``) is set when the page opens without an
    ``#evidence=...`` fragment. Returns the HTML text.

    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}))
    >>> page = to_html(m)
    >>> page.startswith("<!DOCTYPE html>"), "http" in page.split("<script")[0]
    (True, False)
    """
    spec = explorer_spec(obj, title=title)
    known = {v["name"]: v["states"] for v in spec["variables"]}
    preset = {}
    for var, state in (evidence or {}).items():
        name, label = _label(var), _label(state)
        if name not in known:
            raise TreelearnError(
                f"evidence names {var!r}, which is not a variable of this model; "
                f"variables: {list(known)}"
            )
        if label not in known[name]:
            raise TreelearnError(
                f"evidence {var!r} = {state!r}: not a state of {var!r}; states: {known[name]}"
            )
        preset[name] = label
    spec["evidence"] = preset
    # inside <script>, "<" is the only character that can end the block early
    data = json.dumps(spec, ensure_ascii=False, allow_nan=False).replace("<", "\\u003c")
    page = (
        _TEMPLATE.replace("%TITLE%", html.escape(spec["title"]))
        .replace("%CSS%", _CSS)
        .replace("%JS%", _JS)
        .replace("%DATA%", data)
    )
    if path is not None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(page)
    return page


_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>%TITLE%</title>
<style>%CSS%</style>
</head>
<body>
<div id="status"></div>
<div id="canvas"><svg id="edges"></svg></div>
<div id="tip"></div>
<script type="application/json" id="treelearn-data">%DATA%</script>
<script>%JS%</script>
</body>
</html>
"""

# the colours of draw.py: light blue boxes, darker roots, the class in orange
_CSS = """
body { font: 12px/1.3 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       margin: 0; color: #1d2733; background: #fff; }
#status { position: sticky; top: 0; z-index: 3; background: #f6f8fa; border-bottom: 1px solid #d0d7de;
          padding: 8px 16px; min-height: 20px; }
#status h1 { display: inline; font-size: 13px; margin: 0 14px 0 0; }
#status .ev { display: inline-block; background: #2f3e4e; color: #fff; border-radius: 10px;
              padding: 1px 8px; margin-right: 6px; cursor: pointer; }
#status button { font: inherit; margin-left: 6px; cursor: pointer; }
#status .msg { color: #b3541e; margin-left: 10px; }
#status .pe { color: #57606a; margin-left: 10px; white-space: nowrap; }
#canvas { position: relative; margin: 0 auto; }
#edges { position: absolute; left: 0; top: 0; z-index: 0; }
#edges line { stroke: #2f3e4e; }
.mark { display: inline-block; width: 8px; height: 8px; border-radius: 50%; background: #c98a5a;
        margin-right: 5px; vertical-align: 1px; }
.var { position: absolute; z-index: 1; box-sizing: border-box; background: #eaf1fb;
       border: 1.3px solid #2f3e4e; border-radius: 7px; padding: 3px 8px 4px; overflow: hidden; }
.var.root { background: #d3e3f7; }
.var.cls { background: #fde0c5; border-color: #b3541e; }
.var.observed { box-shadow: 0 0 0 3px #2f3e4e55; }
.var .name { font-weight: 600; font-size: 13px; height: 19px; white-space: nowrap;
             overflow: hidden; text-overflow: ellipsis; }
.var.cls .name { color: #b3541e; }
.st { display: flex; align-items: center; height: 17px; cursor: pointer; border-radius: 3px; }
.st:hover { background: #ffffffaa; }
.st.on { background: #2f3e4e; color: #fff; }
.st .lab { flex: 1 1 auto; white-space: nowrap; overflow: hidden; text-overflow: ellipsis;
           padding-right: 6px; }
.st .bar { flex: 0 0 70px; height: 10px; background: #ffffff; border: 1px solid #c5d3e3; }
.st .bar i { display: block; height: 100%; background: #4a78b5; }
.var.cls .st .bar i { background: #d07a3a; }
.st .pct { flex: 0 0 46px; text-align: right; font-variant-numeric: tabular-nums; }
#tip { position: absolute; z-index: 5; display: none; background: #fff; border: 1px solid #8a97a6;
       box-shadow: 0 2px 8px #0003; padding: 6px 8px; pointer-events: none; max-width: 640px; }
#tip table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
#tip th, #tip td { padding: 1px 6px; text-align: right; border-bottom: 1px solid #eee; }
#tip th { background: #f6f8fa; }
#tip caption { text-align: left; font-weight: 600; padding-bottom: 3px; }
"""

_JS = r"""
"use strict";
const S = JSON.parse(document.getElementById("treelearn-data").textContent);
const V = S.variables, N = V.length;
const K = V.map(v => v.states.length);
for (const c of S.components) {
  c.children = V.map(() => []);
  c.parent.forEach((p, i) => { if (p >= 0) c.children[p].push(i); });
}
let evidence = {};  // variable index -> state index

function sum(a) { let s = 0; for (const x of a) s += x; return s; }
function scaleBy(a, s) { for (let i = 0; i < a.length; i++) a[i] /= s; }

// one forest, evidence as indicator vectors: log P(evidence) and every marginal
function forest(c, lam) {
  const up = new Array(N), msg = new Array(N);
  let logZ = 0;
  for (let o = c.order.length - 1; o >= 0; o--) {  // leaves to roots
    const v = c.order[o], k = K[v];
    const b = lam[v] ? lam[v].slice() : new Array(k).fill(1);
    for (const ch of c.children[v]) {
      const m = msg[ch];
      for (let x = 0; x < k; x++) b[x] *= m[x];
      const top = Math.max(...b);  // rescaled, so that long products cannot underflow
      if (top === 0) return null;
      scaleBy(b, top); logZ += Math.log(top);
    }
    up[v] = b;
    const T = c.cpt[v];
    if (c.parent[v] >= 0) {
      const m = T.map(row => { let s = 0; for (let x = 0; x < k; x++) s += row[x] * b[x]; return s; });
      const t = sum(m);
      if (t === 0) return null;
      scaleBy(m, t); logZ += Math.log(t);
      msg[v] = m;
    } else {
      let s = 0;
      for (let x = 0; x < k; x++) s += T[0][x] * b[x];
      if (s === 0) return null;
      logZ += Math.log(s);
    }
  }
  const pi = new Array(N), marg = new Array(N);
  for (const v of c.order) {  // roots to leaves
    const k = K[v], p = c.parent[v], T = c.cpt[v];
    let prior;
    if (p < 0) prior = T[0].slice();
    else {
      const q = pi[p].slice();
      if (lam[p]) for (let y = 0; y < q.length; y++) q[y] *= lam[p][y];
      for (const ch of c.children[p]) {
        if (ch === v) continue;
        for (let y = 0; y < q.length; y++) q[y] *= msg[ch][y];
        const top = Math.max(...q);
        if (top > 0) scaleBy(q, top);
      }
      prior = new Array(k).fill(0);
      for (let y = 0; y < q.length; y++) {
        if (q[y] === 0) continue;
        for (let x = 0; x < k; x++) prior[x] += q[y] * T[y][x];
      }
    }
    scaleBy(prior, sum(prior));
    pi[v] = prior;
    const m = prior.map((x, i) => x * up[v][i]);
    scaleBy(m, sum(m));
    marg[v] = m;
  }
  return { logZ: logZ, marg: marg };
}

// the whole model: one forest, or a mixture over the conditioner's states
function infer(ev) {
  const lam = V.map((v, i) => {
    if (!(i in ev)) return null;
    const l = new Array(K[i]).fill(0); l[ev[i]] = 1; return l;
  });
  const runs = [], logw = [];
  S.components.forEach((c, j) => {
    if (S.cond >= 0 && S.cond in ev && ev[S.cond] !== j) return;
    if (!(c.weight > 0)) return;
    const r = forest(c, lam);
    if (r) { runs.push([j, r]); logw.push(Math.log(c.weight) + r.logZ); }
  });
  if (!runs.length) return null;
  const top = Math.max(...logw);
  const w = logw.map(x => Math.exp(x - top)), tw = sum(w);
  const marg = V.map((v, i) => new Array(K[i]).fill(0));
  runs.forEach(([j, r], n) => {
    const a = w[n] / tw;
    for (let i = 0; i < N; i++) {
      if (i === S.cond) marg[i][j] += a;
      else for (let x = 0; x < K[i]; x++) marg[i][x] += a * r.marg[i][x];
    }
  });
  for (const i in ev) { marg[i].fill(0); marg[i][ev[i]] = 1; }
  return { logZ: top + Math.log(tw), marg: marg };
}

// ---------------------------------------------------------------- the page
const canvas = document.getElementById("canvas"), svg = document.getElementById("edges");
const tip = document.getElementById("tip"), status = document.getElementById("status");
canvas.style.width = S.width + "px"; canvas.style.height = S.height + "px";
svg.setAttribute("width", S.width); svg.setAttribute("height", S.height);
const NS = "http://www.w3.org/2000/svg";
let shownEdges = 0;

function drawEdges() {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  for (const [u, v, kind, width] of S.edges[shownEdges]) {
    if (kind === "class") continue;  // a mark on the box instead: lines would cross the boxes
    const a = V[u], b = V[v], l = document.createElementNS(NS, "line");
    const down = b.y >= a.y + a.h;
    l.setAttribute("x1", a.x + a.w / 2); l.setAttribute("y1", down ? a.y + a.h : a.y + a.h / 2);
    l.setAttribute("x2", b.x + b.w / 2); l.setAttribute("y2", down ? b.y : b.y + b.h / 2);
    l.setAttribute("stroke-width", width);
    if (kind === "class") l.setAttribute("class", "class");
    svg.appendChild(l);
  }
}

const classMarked = new Set(S.edges[0].filter(e => e[2] === "class").map(e => e[1]));
const boxes = V.map((v, i) => {
  const d = document.createElement("div");
  d.className = "var" + (v.root ? " root" : "") + (v.cls ? " cls" : "");
  d.dataset.variable = v.name;
  Object.assign(d.style, { left: v.x + "px", top: v.y + "px", width: v.w + "px", height: v.h + "px" });
  const t = document.createElement("div"); t.className = "name"; t.textContent = v.name;
  t.title = v.name; d.appendChild(t);
  if (classMarked.has(i)) {
    const mk = document.createElement("span"); mk.className = "mark";
    mk.title = V[S.cond].name + " is also a parent of " + v.name; t.prepend(mk);
  }
  v.states.forEach((s, x) => {
    const r = document.createElement("div"); r.className = "st"; r.dataset.state = s;
    r.innerHTML = '<span class="lab"></span><span class="bar"><i></i></span><span class="pct"></span>';
    r.firstChild.textContent = s; r.firstChild.title = s;
    r.addEventListener("click", () => toggle(i, x));
    d.appendChild(r);
  });
  d.addEventListener("mouseenter", e => showCpt(i, e));
  d.addEventListener("mousemove", moveTip);
  d.addEventListener("mouseleave", () => { tip.style.display = "none"; });
  canvas.appendChild(d);
  return d;
});

function fmt(p) { return (100 * p).toFixed(p > 0 && p < 0.001 ? 3 : 1) + "%"; }

function showCpt(i) {
  const v = V[i], c = v.cpt;
  let h = "<table><caption></caption><tr>";
  for (const p of c.parents) h += "<th></th>";
  for (const s of v.states) h += "<th></th>";
  h += "</tr>";
  for (const [ps, probs] of c.rows) {
    h += "<tr>" + ps.map(() => "<td></td>").join("") + probs.map(() => "<td></td>").join("") + "</tr>";
  }
  if (c.total > c.rows.length) h += "<tr><td colspan=99>… " + (c.total - c.rows.length) + " more rows</td></tr>";
  tip.innerHTML = h + "</table>";
  // text through textContent: labels are data, never markup
  tip.querySelector("caption").textContent = "P(" + v.name + (c.parents.length ? " | " + c.parents.join(", ") : "") + ")";
  const ths = tip.querySelectorAll("th");
  [...c.parents, ...v.states].forEach((t, n) => { ths[n].textContent = t; });
  const trs = tip.querySelectorAll("tr");
  c.rows.forEach(([ps, probs], r) => {
    const tds = trs[r + 1].querySelectorAll("td");
    ps.forEach((t, n) => { tds[n].textContent = t; tds[n].style.textAlign = "left"; });
    probs.forEach((p, n) => { tds[ps.length + n].textContent = p.toFixed(4); });
  });
  tip.style.display = "block";
}
function moveTip(e) {
  tip.style.left = (e.pageX + 14) + "px"; tip.style.top = (e.pageY + 14) + "px";
}

let message = "";
function render() {
  const r = infer(evidence);
  V.forEach((v, i) => {
    const m = r.marg[i], d = boxes[i];
    d.dataset.marginal = JSON.stringify(m);
    d.classList.toggle("observed", i in evidence);
    d.querySelectorAll(".st").forEach((row, x) => {
      row.querySelector("i").style.width = (100 * m[x]) + "%";
      row.querySelector(".pct").textContent = fmt(m[x]);
      row.classList.toggle("on", evidence[i] === x);
    });
  });
  const named = {};
  for (const i in evidence) named[V[i].name] = V[i].states[evidence[i]];
  status.dataset.evidence = JSON.stringify(named);
  status.dataset.logEvidence = String(r.logZ);
  status.innerHTML = "<h1></h1>";
  status.firstChild.textContent = S.title;
  if (S.edge_labels.length) {
    const sel = document.createElement("select");
    S.edge_labels.forEach((l, j) => {
      const o = document.createElement("option"); o.value = j;
      o.textContent = "tree of " + V[S.cond].name + " = " + l; sel.appendChild(o);
    });
    sel.value = shownEdges;
    sel.addEventListener("change", () => { shownEdges = +sel.value; drawEdges(); });
    status.appendChild(sel);
    status.appendChild(document.createTextNode(" "));
  }
  const keys = Object.keys(evidence);
  if (!keys.length) status.appendChild(document.createTextNode("click a state to set evidence"));
  for (const i of keys) {
    const s = document.createElement("span"); s.className = "ev";
    s.textContent = V[i].name + " = " + V[i].states[evidence[i]] + " ×";
    s.title = "clear"; s.addEventListener("click", () => toggle(+i, evidence[i]));
    status.appendChild(s);
  }
  if (keys.length) {
    const b = document.createElement("button"); b.textContent = "clear all";
    b.addEventListener("click", () => { evidence = {}; changed(); });
    status.appendChild(b);
    const pe = document.createElement("span"); pe.className = "pe";
    pe.textContent = "P(evidence) = " + Math.exp(r.logZ).toPrecision(4);
    status.appendChild(pe);
  }
  if (classMarked.size) {
    const s = document.createElement("span"); s.className = "pe";
    s.innerHTML = '<span class="mark"></span>'; s.appendChild(document.createTextNode(
      "the class " + V[S.cond].name + " is also a parent of these"));
    status.appendChild(s);
  }
  if (message) {
    const s = document.createElement("span"); s.className = "msg"; s.textContent = message;
    status.appendChild(s);
  }
}

function fragment() {
  const items = Object.keys(evidence).map(i =>
    encodeURIComponent(V[i].name) + ":" + encodeURIComponent(V[i].states[evidence[i]]));
  return items.length ? "#evidence=" + items.join(",") : "";
}
function changed() {
  message = "";
  const f = fragment();
  try { history.replaceState(null, "", f || location.pathname + location.search); } catch (e) { /* file: pages may refuse */ }
  render();
}
function toggle(i, x) {
  const next = Object.assign({}, evidence);
  if (next[i] === x) delete next[i]; else next[i] = x;
  if (!infer(next)) {
    message = V[i].name + " = " + V[i].states[x] + " is impossible with this evidence";
    render(); return;
  }
  evidence = next; changed();
}

// "#evidence=var:state,var:state" (names may be percent-encoded; a ":" inside a name is
// found by trying every split against the model's names)
function parse(hash) {
  const out = {}, bad = [];
  const part = hash.replace(/^#/, "").split("&").find(p => p.startsWith("evidence="));
  if (!part) return [out, bad];
  for (const item of part.slice(9).split(",")) {
    if (!item) continue;
    let found = false;
    for (let at = item.indexOf(":"); at >= 0 && !found; at = item.indexOf(":", at + 1)) {
      let name, state;
      try { name = decodeURIComponent(item.slice(0, at)); state = decodeURIComponent(item.slice(at + 1)); }
      catch (e) { continue; }
      const i = V.findIndex(v => v.name === name);
      if (i < 0) continue;
      const x = V[i].states.indexOf(state);
      if (x < 0) continue;
      out[i] = x; found = true;
    }
    if (!found) bad.push(item);
  }
  return [out, bad];
}
function load() {
  let [ev, bad] = parse(location.hash);
  if (!location.hash) {
    ev = {};
    for (const [name, state] of Object.entries(S.evidence)) {
      const i = V.findIndex(v => v.name === name); ev[i] = V[i].states.indexOf(state);
    }
  }
  if (!infer(ev)) { bad.push("the evidence has probability zero"); ev = {}; }
  evidence = ev;
  message = bad.length ? "ignored: " + bad.join(", ") : "";
  render();
}
window.addEventListener("hashchange", load);
drawEdges();
load();
"""
