"""What a kind's explorer page is made of: the vocabulary of ``explorer_spec``.

Every kind that declares the capability ``"explorer"`` has a method
``explorer_spec(title=None, **options)``, in its own module, that returns its **page
specification**: JSON-ready data saying what the page shows and computes with, never
where anything goes (:func:`treelearn.viz._explorer.explorer_spec` lays it out).

==================  ===========================================================================
key                 what it holds
==================  ===========================================================================
``title``           the page's headline
``variables``       per variable ``name``, ``states`` (labels; ``[]`` for a number), ``cls``
                    (drawn as the class), ``cpt`` (the hover table, :func:`hover_table`), and
                    for a number ``range`` (its slider)
``drawn``           each variable's parent in the picture (-1: a root); ``roots`` their order
``edges``           one list per shown tree of ``[parent, child, kind, width, strength]``
                    (kind ``tree``, ``class`` or ``extra``; strength in nats, or None)
``components``      the forests the page computes on (:func:`forest`): each a ``parent``
                    index and ``cpt`` rows ``[parent state][state]`` per variable (None: not
                    in it), a ``weight``, optionally ``fixed`` ``[[variable, state], ...]``
                    (observed there), ``tier`` and ``gauss`` (its own Gaussians)
``cond``            a variable in no forest whose state is the component's index (-1: none)
``select``          ``"observed"``: a component counts only where its fixed variables are
                    observed at its states, and the estimate is the mean over the counted
                    components of the lowest tier that has any (A2DE's average)
``joint``           ``rows`` (state indices) and ``p``: a joint table, one forest per row
``gauss``           per variable None, or a number's Gaussian (:func:`regressions`)
``mvn``             one joint Gaussian of the numbers per state of ``cls`` (``means``,
                    ``covs``)
``target``,         the side panel's first target and its chain rule's order
``order``
``panel``, ``map``  what the page offers (the side panel, the MAP button, likelihoods:
``soft``             ``true``, or why not)
``moments``         a number's ``data-marginal`` as ``[mean, variance]``
==================  ===========================================================================

The page's one engine (``assets/engine.js``) computes exactly on that data: message
passing on each forest (evidence, likelihoods, the Gaussians' densities as likelihoods
of the discrete variable they hang from), mixed by the components' weights.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from .._base.errors import TreelearnError
from ..inference._conditioner import choose_conditioner
from ..inference._shapley import topological_order
from ._draw import display_parents

__all__ = [
    "MAX_FORESTS",
    "MAX_JOINT",
    "MAX_TABLES",
    "class_gaussians_spec",
    "class_spec",
    "cutset",
    "forest",
    "hover_table",
    "hover_tables",
    "information",
    "label",
    "mixture_range",
    "multinet_spec",
    "multinet_table",
    "network_spec",
    "parent_first",
    "regressions",
    "require_fitted",
    "title_of",
]

MAX_FORESTS = 4096  # the forests a page holds (a cutset's joint states, a network's leaves)
MAX_TABLES = 400_000  # forests x variables: the page's size and every click's work
#: the complete assignments a joint table holds (the models' own limit on the completions
#: they sum over, MAX_COMPLETIONS)
MAX_JOINT = 4096
_MAX_CPT_ROWS = 64  # the hover table shows at most this many parent configurations


def label(x: Any) -> str:
    """A name or state as the page shows it.

    >>> label(np.int64(3)), label("a")
    ('3', 'a')
    """
    return str(x.item() if isinstance(x, np.generic) else x)


def title_of(head: str, parts: list, rows: float | None = None) -> str:
    """``head · part · ... · n = rows`` (the training rows when counted).

    >>> title_of("TAN", ["8 variables"], 10000)
    'TAN · 8 variables · n = 10,000'
    """
    return " · ".join([head, *parts, *([f"n = {rows:,.0f}"] if rows is not None else [])])


def parent_first(parent: Mapping) -> list:
    """The nodes of a forest (``parent[v]``, None at a root) parents first, depth first,
    roots and children in the mapping's order.

    >>> parent_first({"a": "c", "b": None, "c": "b", "d": None})
    ['b', 'c', 'a', 'd']
    """
    children: dict = {v: [] for v in parent}
    roots: list = []
    for v, p in parent.items():
        (children[p] if p is not None else roots).append(v)
    order: list = []
    stack = roots[::-1]
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(reversed(children[v]))
    return order


def require_fitted(obj: Any, call: str = "fit(X, y)") -> None:
    """Refuse an estimator that is not fitted (scikit-learn's rule: no attribute ending in
    ``_`` is set yet)."""
    if not any(k.endswith("_") and not k.startswith("__") for k in vars(obj)):
        raise TreelearnError(
            f"this {type(obj).__name__} is not fitted yet: call {call} before to_html"
        )


def information(joint: np.ndarray) -> float:
    """``I(A; B)`` in nats of a joint table (rows A, columns B), clipped at 0 (round-off).

    >>> round(information(np.array([[0.5, 0.0], [0.0, 0.5]])), 6)   # ln 2
    0.693147
    """
    outer = joint.sum(axis=1, keepdims=True) * joint.sum(axis=0, keepdims=True)
    ok = joint > 0
    return max(float(np.sum(joint[ok] * np.log(joint[ok] / outer[ok]))), 0.0)


def mixture_range(weights: Any, means: Any, variances: Any) -> list:
    """A number's slider: its prior mixture's mean +- 4 standard deviations (the law of
    total variance).

    >>> mixture_range([1.0], [2.0], [0.25])
    [0.0, 4.0]
    """
    w, m, v = (np.asarray(a, dtype=float) for a in (weights, means, variances))
    mean = float(w @ m)
    sd = float(np.sqrt(max(float(w @ (v + (m - mean) ** 2)), 0.0)))
    return [mean - 4 * sd, mean + 4 * sd]


# ---------------------------------------------------------------------- hover tables
def hover_table(rows_of: list, parents: list, states: Mapping) -> dict:
    """The hover table: parent names, then rows ``[parent state labels, probabilities]``
    (at most 64 of them; ``total`` says how many there are)."""
    shape = [len(states[p]) for p in parents]
    rows = []
    for flat, probs in enumerate(rows_of[:_MAX_CPT_ROWS]):
        combo = np.unravel_index(flat, shape) if shape else ()
        rows.append([[states[p][j] for p, j in zip(parents, combo)], probs])
    return {"parents": [label(p) for p in parents], "rows": rows, "total": len(rows_of)}


def multinet_table(per_class: Mapping, cls: Hashable, v: Hashable, states: Mapping) -> dict:
    """The hover table of a multinet's feature: its CPT in every class's tree, the class
    first; the parent (which may differ between classes) named in each row."""
    rows = []
    for name, model in per_class.items():
        ps = list(model.parents(v))
        table = np.asarray(model.cpt(v), dtype=float).reshape(-1, len(states[v])).tolist()
        for j, probs in enumerate(table):
            given = f"{label(ps[0])} = {states[ps[0]][j]}" if ps else "(root)"
            rows.append([[label(name), given], probs])
    return {"parents": [label(cls), "parent"], "rows": rows[:_MAX_CPT_ROWS], "total": len(rows)}


def hover_tables(model: Any, states: Mapping) -> dict:
    """Every variable's hover table of a discrete network: its CPT (``states``: labels)."""
    return {
        v: hover_table(
            np.asarray(model.cpt(v), dtype=float).reshape(-1, len(states[v])).tolist(),
            list(model.parents(v)),
            states,
        )
        for v in model.variables
    }


# ---------------------------------------------------------------------- forests
def forest(
    model: Any, index: Mapping, given: Mapping[Hashable, int] | None = None, keep: bool = False
) -> dict:
    """One forest of a network of one-parent CPTs: ``parent`` (indices) and ``cpt`` rows
    ``[parent state][state]`` per variable of ``index`` (None where not in it), each CPT
    sliced at the ``given`` states of its parents among them. The ``given`` variables
    themselves are left out (a conditioner, whose prior is the forest's weight) or, with
    ``keep``, kept with their own sliced CPTs (a cutset's, observed there)."""
    given = given or {}
    n = len(index)
    parent = [-1] * n
    cpt: list = [None] * n
    for v in model.variables:
        if v in given and not keep:
            continue
        ps = list(model.parents(v))
        table = np.asarray(model.cpt(v), dtype=float)
        for g in [p for p in ps if p in given]:
            table = np.take(table, given[g], axis=ps.index(g))
            ps.remove(g)
        cpt[index[v]] = table.reshape(-1, table.shape[-1]).tolist()
        if ps:
            parent[index[v]] = index[ps[0]]
    return {"parent": parent, "cpt": cpt}


def cutset(model: Any) -> list:
    """Variables that, once fixed, leave every variable at most one parent outside them
    (greedy: the parent shared by most of the variables with two or more such parents,
    the one with fewer states on ties, then the first in the variables' order).

    The page then computes exactly by conditioning on them (Pearl's cutset conditioning):
    one forest per joint state of the cutset, in which the cutset's variables are observed
    at that state (a child's CPT is sliced there; the cutset variable's own CPT stays a
    factor on its one remaining parent), the forests' ``P(evidence, cutset state)`` summed.

    >>> import networkx as nx, pandas as pd, treelearn as tl
    >>> df = pd.DataFrame({v: [0, 1, 1, 0] for v in "abcd"})
    >>> cutset(tl.fit_cpts(nx.DiGraph([("a", "c"), ("b", "c"), ("a", "d"), ("c", "d")]), df))
    ['a']
    """
    cut: list = []
    states = model.states  # a property that builds its dict: read once
    while True:
        free = {v: [p for p in model.parents(v) if p not in cut] for v in model.variables}
        over = [v for v in model.variables if len(free[v]) > 1]
        if not over:
            return cut
        shared: dict = {}
        for v in over:
            for p in free[v]:
                shared[p] = shared.get(p, 0) + 1
        cut.append(max(shared, key=lambda p: (shared[p], -len(states[p]))))


def _cutset_forests(model: Any, index: Mapping, cut: list) -> list:
    """One forest per joint state of ``cut``, each with its ``fixed`` states and weight 1
    (the cutset's CPTs are in the forests)."""
    all_states = model.states
    cards = [len(all_states[c]) for c in cut]
    n = int(np.prod(cards))
    if n > MAX_FORESTS or n * len(index) > MAX_TABLES:
        raise TreelearnError(
            f"the explorer computes on this network exactly by conditioning on "
            f"{[label(c) for c in cut]} ({n:,} joint states, one forest each), more than a "
            f"page holds ({MAX_FORESTS:,} forests, {MAX_TABLES:,} tables): query it in "
            f"Python (marginals, query) or draw() it"
        )
    out = []
    for states in itertools.product(*(range(k) for k in cards)):
        fixed = dict(zip(cut, states))
        out.append(
            {
                **forest(model, index, fixed, keep=True),
                "weight": 1.0,
                "fixed": [[index[c], s] for c, s in fixed.items()],
            }
        )
    return out


def _network_forests(model: Any, index: Mapping) -> tuple[list, Hashable | None]:
    """The forests of one discrete network, and its conditioner: a forest of one-parent
    CPTs is one forest; a network with a conditioner (the engine's rule,
    :func:`~treelearn.inference._conditioner.choose_conditioner`, restricted to one-parent
    CPTs: ``pairwise``) one forest per state of it, weighted by its prior; any other DAG
    one forest per joint state of a :func:`cutset`."""
    ok, cond = choose_conditioner(
        {v: list(model.parents(v)) for v in model.variables}, pairwise=True
    )
    if not ok:
        return _cutset_forests(model, index, cutset(model)), None
    if cond is None:
        return [{**forest(model, index), "weight": 1.0}], None
    prior = np.asarray(model.cpt(cond), dtype=float).reshape(-1)
    forests = [
        {**forest(model, index, {cond: c}), "weight": float(prior[c])} for c in range(len(prior))
    ]
    return forests, cond


def _edges(net: Any, index: Mapping, drawn: Mapping, class_node: Hashable | None) -> list:
    """A network's edges ``[parent, child, kind, width, strength]``: ``tree`` where the
    picture hangs the child from the parent, ``class`` from the class (a mark on the box),
    ``extra`` otherwise (a light line); the width from the learned weight (the data's MI),
    the strength ``I(parent; child)`` under the model itself (exact; a network from
    ``fit_cpts`` has no learned weights)."""
    learned = [a.get("weight") for _, _, a in net.graph.edges(data=True)]
    finite = [float(x) for x in learned if x is not None and np.isfinite(x)]
    top = max(finite, default=0.0)
    # a child whose only parent is u: I(u; v) from P(u) and its CPT, every edge from one
    # marginals pass (the engine per edge otherwise: a TAN feature's class is a parent too)
    single = [v for _, v in net.graph.edges if len(net.parents(v)) == 1]
    prior = net.marginals() if single else {}
    out = []
    for u, v, a in net.graph.edges(data=True):
        mi = a.get("weight")
        kind = "tree" if drawn.get(v) == u else "class" if u == class_node else "extra"
        width = 1.5
        if mi is not None and np.isfinite(mi) and top > 0:
            width = 1.0 + 3.0 * float(mi) / top
        if u in prior and net.parents(v) == [u]:
            joint = np.asarray(prior[u], dtype=float)[:, None] * np.asarray(net.cpt(v))
            strength = information(joint)
        else:
            strength = float(net.mutual_information(u, v))
        out.append([index[u], index[v], kind, round(width, 2), strength])
    return out


def network_spec(model: Any, title: str, cls: Hashable | None = None) -> dict:
    """The page of one discrete network (a ``TreeModel``; a classifier's, with its class
    ``cls``): its forests (:func:`forest`; a conditioner's states or a cutset's joint
    states when it is no forest), drawn as :func:`~treelearn.viz._draw.draw` draws it,
    the side panel's chain rule in a topological order (``explain(kind="log_odds")``'s)."""
    variables = list(model.variables)
    index = {v: i for i, v in enumerate(variables)}
    model_states = model.states  # a property that builds its dict: read once
    states = {v: [label(s) for s in model_states[v]] for v in variables}
    components, cond = _network_forests(model, index)
    tables = hover_tables(model, states)
    shown = display_parents(model, cls)
    roots = [v for v in model.roots if shown[v] is None]
    parents = {v: list(model.parents(v)) for v in variables}
    return {
        "title": title,
        "variables": [
            {"name": label(v), "states": states[v], "cls": v == cls, "cpt": tables[v]}
            for v in variables
        ],
        "drawn": [index[shown[v]] if shown[v] is not None else -1 for v in variables],
        "roots": [index[v] for v in roots],
        "edges": [_edges(model, index, shown, cls)],
        "cond": index[cond] if cond is not None else -1,
        "target": index[cls] if cls is not None else -1,
        "order": [index[v] for v in topological_order(parents, variables)],
        "components": components,
    }


def multinet_spec(per_class: Mapping, weights: Any, cls: Hashable, title: str) -> dict:
    """The page of one forest per state of a hidden or class variable ``cls`` (a multinet:
    one tree per class; a mixture: one per component), each weighted by ``weights`` (the
    prior of ``cls``): ``cls`` is the conditioner, a box whose marginal is the weights
    under the evidence. Drawn from the tree of the heaviest state, ``cls`` above it; one
    set of edges per state (the page's choice of tree)."""
    names = list(per_class)
    weights = np.asarray(weights, dtype=float)
    shown_model = per_class[names[int(np.argmax(weights))]]
    features = list(shown_model.variables)
    variables = [*features, cls]
    index = {v: i for i, v in enumerate(variables)}
    states = {v: [label(s) for s in ss] for v, ss in shown_model.states.items()}
    for name, m in per_class.items():
        if {v: [label(s) for s in ss] for v, ss in m.states.items()} != states:
            raise TreelearnError(
                f"the trees of {label(cls)} = {names[0]!r} and {name!r} have different "
                f"states; the explorer needs the same states in every tree"
            )
        ok, cond = choose_conditioner({v: list(m.parents(v)) for v in features}, pairwise=True)
        if not ok or cond is not None:
            many = next(v for v in features if len(m.parents(v)) > 1)
            raise TreelearnError(
                f"the explorer needs each tree of a multinet to be a forest, but "
                f"{many!r} has the parents {m.parents(many)!r}"
            )
    states[cls] = [label(c) for c in names]
    components = [
        {**forest(per_class[name], index), "weight": float(w)} for name, w in zip(names, weights)
    ]
    tables = {v: multinet_table(per_class, cls, v, states) for v in features}
    tables[cls] = hover_table([weights.tolist()], [], states)
    shown = {v: p if p is not None else cls for v, p in display_parents(shown_model).items()}
    edges = []
    for name, c in zip(names, components):
        roots = [i for i, p in enumerate(c["parent"]) if p < 0 and i != index[cls]]
        edges.append(
            [[index[cls], r, "tree", 1.5, None] for r in roots]
            + _edges(per_class[name], index, shown, None)
        )
    return {
        "title": title,
        "variables": [
            {"name": label(v), "states": states[v], "cls": v == cls, "cpt": tables[v]}
            for v in variables
        ],
        "drawn": [index[shown[v]] for v in features] + [-1],
        "roots": [index[cls]],
        "edges": edges,
        "edge_labels": [label(c) for c in names],
        "cond": index[cls],
        "target": index[cls],
        "order": list(range(len(variables))),  # explained through its rows: variable order
        "components": components,
    }


def class_spec(
    features: list,
    feature_states: list,
    cls: Hashable,
    classes: Any,
    prior: Any,
    hover: list,
    title: str,
    parent: list | None = None,
    strength: list | None = None,
) -> dict:
    """The page of a classifier drawn as its class above its features: the variables
    (the features, then the class; a feature's ``feature_states[j]`` empty for a number),
    their hover tables (``hover[j]``: ``P(x_j | class)``, one row per class, or None; the
    class's its ``prior``), and the picture: each feature under the class, or with
    ``parent`` (a feature's index, -1 for the class) under its feature tree, the class a
    mark on the box; ``strength[j]``, the edge to feature ``j``'s strength (None: none).
    The engine's numbers are the caller's to add."""
    d = len(features)
    states = {f: [label(s) for s in st] for f, st in zip(features, feature_states)}
    states[cls] = [label(c) for c in classes]
    parent = parent if parent is not None else [-1] * d
    strength = strength if strength is not None else [None] * d
    variables = [
        {
            "name": label(f),
            "states": states[f],
            "cls": False,
            **(
                {"cpt": hover_table(np.asarray(t).tolist(), [cls], states)} if t is not None else {}
            ),
        }
        for f, t in zip(features, hover)
    ]
    prior_row = np.asarray(prior, dtype=float).reshape(-1).tolist()
    variables.append(
        {
            "name": label(cls),
            "states": states[cls],
            "cls": True,
            "cpt": hover_table([prior_row], [], states),
        }
    )
    edges = []
    for j, p in enumerate(parent):
        if p < 0:
            edges.append([d, j, "tree", 1.5, strength[j]])
        else:
            width = 1.5 if strength[j] is None else round(1.0 + 3.0 * strength[j], 2)
            edges += [[p, j, "tree", width, strength[j]], [d, j, "class", 1.5, None]]
    return {
        "title": title,
        "variables": variables,
        "drawn": [p if p >= 0 else d for p in parent] + [-1],
        "roots": [d],
        "edges": [edges],
        "target": d,
        "order": [d, *range(d)],
    }


def class_gaussians_spec(
    features: list,
    cls: Hashable,
    classes: Any,
    prior: Any,
    means: np.ndarray,
    covs: np.ndarray,
    title: str,
    parent: list | None = None,
) -> dict:
    """The page of a classifier whose features are one joint Gaussian per class
    (``means`` ``k x d``, ``covs`` ``k x d x d``): the class a discrete box, each feature a
    number; the page conditions each class's Gaussian on the numbers given (``mvn``), the
    density of the numbers per class being a likelihood of the class, each other
    feature's posterior the mixture over classes of its conditional Gaussians. Drawn as
    :func:`class_spec` (``parent``: a feature tree). No side panel and no MAP."""
    d = len(features)
    prior = np.asarray(prior, dtype=float)
    spec = class_spec(features, [[]] * d, cls, classes, prior, [None] * d, title, parent)
    var = np.diagonal(covs, axis1=1, axis2=2)
    for j in range(d):  # the slider: the prior mixture's mean +- 4 sds
        spec["variables"][j]["range"] = mixture_range(prior, means[:, j], var[:, j])
    forest = {"parent": [-1] * (d + 1), "cpt": [None] * d + [[prior.tolist()]], "weight": 1.0}
    return {
        **spec,
        "order": [d],
        "components": [forest],
        "mvn": {"means": means.tolist(), "covs": covs.tolist(), "cls": d},
        "panel": False,
        "map": False,
    }


# ---------------------------------------------------------------------- numbers
def regressions(model: Any, index: Mapping, parent: Mapping, continuous: Any) -> list:
    """A CLG (or Gaussian) tree's Gaussians per variable of ``index``: None for a discrete
    one, else (for the ``continuous`` ones) its Gaussian given its ``parent`` (an index in
    the result, -1 for none): ``a``, ``b``,
    ``s2`` (``N(a + b x_parent, s2)``; no parent or a number parent) or ``means``, ``vars``
    (one Gaussian per state of a discrete parent), read off the graph's node attributes."""
    out: list = [None] * len(index)
    node = model.graph.nodes
    cont = set(continuous)
    for v in continuous:
        a, p = node[v], parent[v]
        if p is not None and p not in cont:
            out[index[v]] = {
                "parent": index[p],
                "means": [float(x) for x in a["means"]],
                "vars": [float(x) for x in a["variances"]],
            }
        else:
            out[index[v]] = {
                "parent": index[p] if p is not None else -1,
                "a": float(a["intercept"]),
                "b": float(a["coefficient"]) if p is not None else 0.0,
                "s2": float(a["variance"]),
            }
    return out
