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

- a mixture of trees (``TreeMixture``): its hidden component is the conditioner (a box
  named ``component``, whose marginal is the components' weights under the evidence), one
  tree per component.

- any other DAG (k-DB, SKDB, a network imported from pgmpy with v-structures): by cutset
  conditioning (:func:`_cutset`): fixing a few variables leaves every other variable one
  parent, so one forest per joint state of that cutset (each with the cutset observed at
  its state) gives ``P(evidence, cutset state)``, summed; at most 4,096 forests (beyond,
  a :class:`~treelearn.TreelearnError` names the cutset and its size);
- AODE (AnDE with ``n=1``): one super-parent's network, chosen by ``super_parent=`` (the
  feature most informative about the class by default). Its class posterior is that one
  network's, not AODE's average over super-parents (which is no joint distribution: a
  missing super-parent is dropped from the average, not summed out), as the title says;
- a Gaussian tree (``GaussianTreeModel``): each box shows its posterior density and takes
  a number (a slider or a number box; ``#evidence=x:1.5``); two passes of Gaussian message
  passing give every posterior mean and variance and ``log p(evidence)``, a density;
  ``data-marginal`` is ``[mean, variance]`` (``[value, 0]`` when observed);
- a CLG tree (``CLGTreeModel``): the discrete forest as above, each Gaussian subtree's
  density of the numbers (per state of the discrete variable it hangs from) soft evidence
  on that variable; a continuous variable's ``data-marginal`` is its Gaussian mixture,
  ``{"weights", "means", "variances"}`` over its subtree's discrete parent's states (as
  ``query`` gives it), ``{"observed": x}`` when observed. No side panel and no MAP there.

- a posterior over all spanning trees (``TreePosterior``) of at most 4,096 complete
  assignments: its joint table (every assignment's ``P(x | D)``, from the model's own
  ``log_likelihood_codes``) is summed under the evidence, as the model itself sums over
  completions; drawn as its most probable tree, each edge's strength its posterior
  probability ``P(uv in T | D)``. Larger ones are refused (no cheaper exact marginal).

- BayesianTAN (the average over every TAN feature tree) with at most 4,096 complete
  feature assignments: the page carries the model's tables and computes ``P(c, x | D)``
  of every complete assignment once (``explorer_bayes_tan.js``: a log-domain matrix-tree
  determinant per assignment and class, as the model's own), then sums that joint table
  under the evidence as a posterior over trees' page does, so its class posterior is
  ``predict_proba``'s (missing features summed out); drawn as the class above the most
  probable feature tree, each edge's strength its posterior probability.

- a Gaussian classifier (``GaussianClassifier``, every ``covariance``; ``GaussianTAN``):
  the class a discrete box, the features numbers (the CLG page's boxes); each class's joint
  Gaussian over the features is conditioned on the numbers in the page
  (``explorer_class_gaussians.js``): the density of the numbers per class is soft evidence
  on the class (so its posterior is ``predict_proba``'s), each other feature's
  ``data-marginal`` the mixture over classes of its conditional Gaussians;
- A2DE (AnDE with ``n=2``): its estimate of ``P(y, x_observed)`` (the mean over qualifying
  pairs of observed super-parents, falling back to AODE, then naive Bayes) evaluated in the
  page from its tables (``explorer_ande.js``): the class posterior is ``predict_proba``'s;
  each unobserved feature's bars the estimate with that feature added, normalised over its
  states. It is no distribution: no side panel, no soft evidence, no MAP;
- a feature-weighted naive Bayes (WANBIA, AWNB, MANB): the same page, its score
  ``log P(y) + sum_j w_j log P(x_j | y)`` over the observed features.

- MixedNaiveBayes with Gaussian features: a CLG tree's page (the class the discrete root
  of its network, each Gaussian feature a continuous child, one Gaussian per class).

- MixedTAN (a CLG tree per class, one structure): the class is the conditioner, one
  component per class with its own CPTs and Gaussians; a continuous variable's
  ``data-marginal`` is the mixture over the classes (then its attachment's states).

- a cutset network (``CutsetNetwork``, one OR-tree or an ensemble): one forest per leaf,
  the path's conditioning variables fixed at its states, weighted by the path's branch
  probabilities (times the network's weight); MAP for one network only.

Anything else (text naive Bayes, the copula and kernel classifiers and models) raises :class:`~treelearn.TreelearnError` saying why.

The drawing: each edge has an arrowhead at its child and its strength, ``I(parent;
child)`` in nats under the model (exact; within the shown tree's component for a
multinet or mixture), on hover and, with "edge strength" ticked, as a label
(``g.edge`` elements with ``data-edge``, ``data-strength``). The tools in the corner zoom
(buttons or the wheel, around the pointer), pan (drag the background), fit the drawing to
the window (the default when it is larger), and find a variable (``input#search``: the
matches outlined, Enter centres the first); ``#view`` carries ``data-scale``, ``data-tx``,
``data-ty``. The MAP button stars the most probable completion of the evidence (max-product,
as ``map_query``; a conditioner's state included), the status line carrying ``data-map``
(JSON ``{variable: state}`` of the unobserved variables) and ``data-map-log-prob``
(``log P(completion, evidence)``). Every state's bar has the marginal without evidence as a
thin grey line under it (``data-prior`` on each box; the row's tooltip says prior ->
posterior). In a notebook, ``model.explore()`` (:class:`Explorer`, :func:`to_iframe`)
shows the page inline, in an ``<iframe srcdoc=...>``.

The page, for tools and tests: every variable's element carries ``data-variable``
(its name) and ``data-marginal`` (a JSON list of probabilities in state order; an
observed variable shows its observed state as 1); the URL fragment
``#evidence=var:state,var:state`` preloads evidence (the page rewrites it on every
click, so a view can be linked); the status line carries ``data-evidence``
(JSON ``{variable: state}``) and ``data-log-evidence`` (``log P(evidence)``, nats).

Soft (likelihood) evidence, as ``evidence={"X": [w0, w1]}`` in Python: the side panel's
sliders give a variable one weight per state (set on release); the fragment carries it
as ``&soft=var:w0|w1|...`` (a bad likelihood there is ignored and named, as Python
refuses it), the status line as ``data-soft`` (JSON ``{variable: [weights]}``). A state
replaces a variable's likelihood.

A side panel explains a chosen target (the class by default) under the current
evidence: each piece of evidence's (a state or a likelihood) exact Shapley value for the
target's log-odds (its
most probable state; beyond 10 pieces of evidence, where 2^p coalitions per click would
be slow, the chain rule in ``explain(kind="log_odds")``'s order), as
:meth:`~treelearn.models._tree.TreeModel.explain` gives it, and the ranked "ask next"
list (the top 8), :meth:`~treelearn.models._tree.TreeModel.most_informative`'s
``I(T; X | evidence)``. Elements ``#contributions`` (``data-target``, ``data-state``,
``data-base``, ``data-prediction``, ``data-method``: ``shapley`` or ``chain``) and
``#ask-next``, one ``.item`` per variable with ``data-item`` (its name) and
``data-value``; the target is chosen in ``select#target``.

This module only reads a model (duck-typed: ``variables``, ``states``, ``parents()``,
``cpt()``, ``graph``; classifiers through ``model_`` or ``models_``), so ``TreeModel``
and the classifiers can call it without an import cycle. The page's template, styles
and script are package data: ``treelearn/viz/assets/explorer.html``, ``explorer.css``
and ``explorer.js``.
"""

from __future__ import annotations

import html
import itertools
import json
import os
import re
from collections.abc import Hashable, Mapping
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from .._base.errors import TreelearnError
from ..inference._conditioner import choose_conditioner
from ..inference._shapley import topological_order
from ._draw import display_parents, layout, tree_route

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
_MAX_CPT_ROWS = 64  # the hover table shows at most this many parent configurations


def _label(x: Any) -> str:
    return str(x.item() if isinstance(x, np.generic) else x)


# ---------------------------------------------------------------------- reading the model
def _networks(
    obj: Any, super_parent: Hashable | None = None
) -> tuple[Any, Hashable | None, list, dict]:
    """``(network to lay out, class node, variables, {component label: network})``.

    A Chow–Liu multinet has one forest per class and no single network: it is laid out
    from its most probable class's tree, the class node above it.
    """
    if super_parent is not None and not callable(getattr(obj, "super_parents", None)):
        raise TreelearnError(
            f"super_parent={super_parent!r} chooses one of AODE's networks; this "
            f"{type(obj).__name__} has no super-parents: leave it out"
        )
    if hasattr(obj, "cpt") and hasattr(obj, "variables"):
        return obj, obj.graph.graph.get("class"), list(obj.variables), {}
    _refuse_kinds(obj)
    components = getattr(obj, "components_", None)
    if isinstance(components, list) and hasattr(obj, "weights_"):
        # a mixture of trees: its hidden component is shown as the conditioner (one
        # forest per component, as a multinet's class), its marginal the components'
        # weights under the evidence
        features = list(components[0].variables)
        name = _MIXTURE_NODE
        while name in features:
            name += "'"
        first = int(np.argmax(obj.weights_))
        return components[first], name, [*features, name], dict(enumerate(components))
    if not hasattr(obj, "classes_") and hasattr(obj, "n_components"):
        raise TreelearnError(
            f"this {type(obj).__name__} is not fitted yet: call fit(X) before to_html"
        )
    if not hasattr(obj, "classes_") and not callable(getattr(obj, "fit", None)):
        raise TreelearnError(
            f"the explorer has no page for a {type(obj).__name__} (it shows discrete networks, "
            f"their mixtures and Gaussian trees)"
            + (": draw() shows it" if callable(getattr(obj, "draw", None)) else "")
        )
    if not hasattr(obj, "classes_"):
        raise TreelearnError(
            f"this {type(obj).__name__} is not fitted yet: call fit(X, y) before to_html"
        )
    models = getattr(obj, "models_", None)
    if (
        isinstance(models, dict)
        and len(models) == len(obj.classes_)
        and all(any(label == c for c in obj.classes_) for label in models)
    ):  # one per class
        labels = list(obj.models_)
        first = labels[int(np.argmax(obj.class_log_prior_))]
        features = list(obj.models_[first].variables)
        return obj.models_[first], obj.class_name_, [*features, obj.class_name_], obj.models_
    numeric = list(getattr(obj, "numeric_features_", None) or [])
    if numeric:  # a mixed classifier's network holds its categorical features only
        raise TreelearnError(
            f"the explorer computes exactly on discrete variables, but this "
            f"{type(obj).__name__} models the numeric features {numeric[:5]} as Gaussians: "
            f"bin them in a pipeline (tl.Discretizer) and fit a discrete classifier to explore "
            f"it, or use predict_proba() and draw()"
        )
    model = getattr(obj, "model_", None)
    if model is None and isinstance(models, dict) and callable(getattr(obj, "super_parents", None)):
        model = _super_parent_panel(obj, super_parent)
    if model is None:
        raise TreelearnError(
            f"the explorer shows one network (or one per class), but this "
            f"{type(obj).__name__} averages several: draw() shows them"
        )
    return model, obj.class_name_, list(model.variables), {}


def _information(joint: np.ndarray) -> float:
    """``I(A; B)`` in nats of a joint table (rows A, columns B), clipped at 0 (round-off)."""
    outer = joint.sum(axis=1, keepdims=True) * joint.sum(axis=0, keepdims=True)
    ok = joint > 0
    return max(float(np.sum(joint[ok] * np.log(joint[ok] / outer[ok]))), 0.0)


def _super_parent_panel(obj: Any, super_parent: Hashable | None) -> Any:
    """AODE's (AnDE's with ``n=1``) one-dependence network of one super-parent: the one
    named, else the feature most informative about the class, ``I(class; x_i)`` under the
    network (its ``P(y, x_i)``). The page computes exactly on that network alone: its class
    posterior is that super-parent's term, not AODE's average over super-parents."""
    if getattr(obj, "n", 1) != 1:
        raise TreelearnError(
            f"the explorer shows one super-parent's network of AODE, but this "
            f"{type(obj).__name__} (n={obj.n}) averages over pairs of super-parents, whose "
            f"networks it does not keep: use predict_proba() and draw(), or AnDE(n=1)"
        )
    models = obj.models_
    if super_parent is None:
        cls = obj.class_name_

        def class_information(sp: Hashable) -> float:
            m = models[sp]
            return _information(
                np.asarray(m.cpt(cls), dtype=float)[:, None] * np.asarray(m.cpt(sp))
            )

        return models[max(models, key=class_information)]
    if super_parent not in models:
        raise TreelearnError(
            f"super_parent={super_parent!r} is not a feature of this {type(obj).__name__}; "
            f"its super-parents: {list(models)[:20]}"
        )
    return models[super_parent]


def _refuse_kinds(obj: Any) -> None:
    """The fitted kinds the page cannot compute on, each refused with its reason (duck-typed:
    a Gaussian tree's implied joint Gaussian or a classifier's class means)."""
    kind = type(obj).__name__
    if callable(getattr(obj, "joint", None)) or hasattr(obj, "means_"):
        raise TreelearnError(
            f"the explorer computes exactly on discrete variables, but this {kind} models "
            f"numbers as Gaussians: bin them with tl.Discretizer and explore a discrete "
            f"model learned on the bins"
        )


_MIXTURE_NODE = "component"  # a mixture's hidden variable, named on the page


def _mixing_weights(obj: Any) -> np.ndarray:
    """The conditioner's prior of a multinet (the class prior) or a mixture (its weights)."""
    if hasattr(obj, "components_"):
        w = np.asarray(obj.weights_, dtype=float)
        return w / w.sum()
    return np.exp(np.asarray(obj.class_log_prior_, dtype=float))


def _conditioner(model: Any) -> tuple[bool, Hashable | None]:
    """``(True, None)`` for a forest of one-parent CPTs; ``(True, root)`` for the root whose
    removal leaves one (the engine's rule,
    :func:`~treelearn.inference._conditioner.choose_conditioner`, restricted to what the page
    computes with: ``pairwise``); ``(False, None)`` for any other DAG (:func:`_cutset`)."""
    parents = {v: list(model.parents(v)) for v in model.variables}
    return choose_conditioner(parents, pairwise=True)


def _forest_of(model: Any) -> None:
    """Refuse a network that is no forest of one-parent CPTs (a multinet's class tree)."""
    ok, cond = _conditioner(model)
    if not ok or cond is not None:
        many = [v for v in model.variables if len(model.parents(v)) > 1]
        raise TreelearnError(
            f"the explorer needs each class's network of a multinet to be a forest, but "
            f"{many[0]!r} has the parents {model.parents(many[0])!r}"
        )


def _cutset(model: Any) -> list:
    """Variables that, once fixed, leave every variable at most one parent outside them
    (greedy: the parent shared by most of the variables with two or more such parents,
    the one with fewer states on ties, then the first in the variables' order).

    The page then computes exactly by conditioning on them (Pearl's cutset conditioning):
    one forest per joint state of the cutset, in which the cutset's variables are observed
    at that state (a child's CPT is sliced there; the cutset variable's own CPT stays a
    factor on its one remaining parent), the forests' ``P(evidence, cutset state)`` summed.

    >>> import networkx as nx, pandas as pd, treelearn as tl
    >>> df = pd.DataFrame({v: [0, 1, 1, 0] for v in "abcd"})
    >>> _cutset(tl.fit_cpts(nx.DiGraph([("a", "c"), ("b", "c"), ("a", "d"), ("c", "d")]), df))
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


_MAX_COMPONENTS = 4096  # joint cutset states a page holds (one forest each)
_MAX_TABLES = 400_000  # forests x variables: the page's size and every click's work


def _cutset_components(model: Any, index: dict, cut: list) -> list:
    """One forest per joint state of ``cut`` (:func:`_cutset`), each with its ``fixed``
    ``[[variable index, state], ...]`` and weight 1 (the cutset's CPTs are in the forests)."""
    all_states = model.states
    cards = [len(all_states[c]) for c in cut]
    n = int(np.prod(cards))
    if n > _MAX_COMPONENTS or n * len(index) > _MAX_TABLES:
        raise TreelearnError(
            f"the explorer computes on this network exactly by conditioning on "
            f"{[_label(c) for c in cut]} ({n:,} joint states, one forest each), more than a "
            f"page holds ({_MAX_COMPONENTS:,} forests, {_MAX_TABLES:,} tables): query it in "
            f"Python (marginals, query) or draw() it"
        )
    out = []
    for states in itertools.product(*(range(k) for k in cards)):
        fixed = dict(zip(cut, states))
        out.append(
            {
                **_component(model, index, fixed, keep_given=True),
                "weight": 1.0,
                "fixed": [[index[c], s] for c, s in fixed.items()],
            }
        )
    return out


def _component(
    model: Any, index: dict, given: Mapping[Hashable, int], keep_given: bool = False
) -> dict:
    """One forest: parent indices, CPT rows ``[parent state][state]`` and a parent-first
    order; each CPT sliced at the ``given`` states of its parents among them. The ``given``
    variables themselves are left out (a conditioner, whose prior is the forest's weight)
    or, with ``keep_given``, kept with their own (sliced) CPTs (a cutset's, observed there)."""
    n = len(index)
    parent = [-1] * n
    cpt: list = [None] * n
    for v in model.variables:
        if v in given and not keep_given:
            continue
        ps = list(model.parents(v))
        table = np.asarray(model.cpt(v), dtype=float)
        for g in [p for p in ps if p in given]:
            table = np.take(table, given[g], axis=ps.index(g))
            ps.remove(g)
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
        kind = {
            "chow-liu": "Chow–Liu tree",
            "fit_cpts": "Bayesian network",
            "pgmpy": "Bayesian network",
        }.get(str(model.settings.get("method")), "tree model")
    parts = [kind, f"{n} variable{'' if n == 1 else 's'}"]
    per_class = getattr(obj, "models_", None)
    rows = getattr(model, "n_rows", None)
    sp = model.settings.get("super_parent") if hasattr(model, "settings") else None
    if sp is not None:  # one term of AODE's average, shown alone
        parts.append(f"super-parent {_label(sp)} (this network alone, not the average)")
    if hasattr(obj, "components_"):  # a mixture's trees are fitted to weighted rows
        parts.append(f"{len(obj.components_)} components")
        rows = None
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


def _mixed_title(title: str | None, name: str, clf: Any, n_features: int, n_numeric: int) -> str:
    """A mixed classifier's page title: its name, its categorical and Gaussian features,
    its training rows (when it counted them); ``title`` when given."""
    if title is not None:
        return title
    parts = [
        name,
        f"{n_features - n_numeric} categorical, "
        f"{n_numeric} Gaussian feature{'' if n_numeric == 1 else 's'}",
    ]
    n = getattr(clf, "class_count_", None)
    if n is not None:
        parts.append(f"n = {float(np.sum(n)):,.0f}")
    return " · ".join(parts)


def _own_page(obj: Any) -> Any:
    """The page builder of a kind with a page of its own (not one network's forests), or
    None; the order matters where kinds overlap (a tree average has the tree's methods)."""
    if callable(getattr(obj, "log_likelihood_codes", None)) and hasattr(
        obj, "edge_posterior_matrix"
    ):
        return _tree_average_spec
    for test, build in (
        (_is_bayes_tan, _bayes_tan_spec),
        (_is_a2de, _a2de_spec),
        (_is_weighted_naive_bayes, _weighted_nb_spec),
        (_is_cutset_network, _cutset_network_spec),
        (_is_mixed_tan, _mixed_tan_spec),
        (_is_mixed_naive_bayes, _mixed_nb_spec),
        (_is_class_gaussians, _class_gaussians_spec),
        (_is_gaussian_tree, _gaussian_spec),
        (_is_clg_tree, _clg_spec),
    ):
        if test(obj):
            return build
    return None


def explorer_spec(
    obj: Any, title: str | None = None, *, super_parent: Hashable | None = None
) -> dict:
    """Everything the explorer page shows and computes with, as JSON-ready data.

    ``variables`` (name, state labels, box position and size, CPT for the hover
    table), ``edges`` (for each forest, ``[parent, child, kind, width, strength]``, the
    strength ``I(parent; child)`` in nats under the model, or None), ``cond``
    (the conditioner's index, or -1), ``components`` (one forest, or one per
    conditioner state, each with its ``weight``), ``target`` (the side panel's first
    target: the class's index, or -1), ``order`` (the side panel's chain rule: the
    variables' indices in ``explain(kind="log_odds")``'s order). Numbers are the model's
    own.

    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}))
    >>> spec = explorer_spec(m)
    >>> [v["name"] for v in spec["variables"]], spec["cond"], len(spec["components"])
    (['a', 'b'], -1, 1)
    """
    build = _own_page(obj)
    if build is not None:
        if super_parent is not None:
            raise TreelearnError(
                f"super_parent={super_parent!r} chooses one of AODE's networks; A2DE "
                f"(AnDE(n=2)) averages over pairs of super-parents and its page shows that "
                f"average: leave it out, or use AnDE(n=1)"
                if build is _a2de_spec
                else f"super_parent={super_parent!r} chooses one of AODE's networks; a "
                f"{type(obj).__name__} has none: leave it out"
            )
        return build(obj, title)
    shown_model, cls, variables, per_class = _networks(obj, super_parent)
    index = {v: i for i, v in enumerate(variables)}
    if per_class:  # multinet: the class conditions a different forest per class
        labels = list(per_class)
        class_states = [_label(c) for c in labels]
        states = {v: [_label(s) for s in ss] for v, ss in shown_model.states.items()}
        for label, m in per_class.items():
            other = {v: [_label(s) for s in ss] for v, ss in m.states.items()}
            if other != states:
                raise TreelearnError(
                    f"the trees of the classes {labels[0]!r} and {label!r} have different "
                    f"states; the explorer needs the same states in every class's tree"
                )
            _forest_of(m)  # each class's network must be a forest
        states[cls] = class_states
        cond: Hashable | None = cls
        weights = _mixing_weights(obj)
        components = [
            {**_component(per_class[label], index, {}), "weight": float(wt)}
            for label, wt in zip(labels, weights)
        ]
        cpt_views = {v: _multinet_cpt(per_class, cls, v, states) for v in shown_model.variables}
        cpt_views[cls] = _cpt_view([weights.tolist()], [], states)
        layout_model, layout_cls = shown_model, None
    else:
        model = shown_model
        model_states = model.states  # a property that builds its dict: read once
        states = {v: [_label(s) for s in model_states[v]] for v in variables}
        ok, cond = _conditioner(model)
        if not ok:  # any other DAG: one forest per joint state of a cutset
            components = _cutset_components(model, index, _cutset(model))
        elif cond is None:
            components = [{**_component(model, index, {}), "weight": 1.0}]
        else:
            prior = np.asarray(model.cpt(cond), dtype=float).reshape(-1)
            components = [
                {**_component(model, index, {cond: c}), "weight": float(prior[c])}
                for c in range(len(prior))
            ]
        cpt_views = {
            v: _cpt_view(
                np.asarray(model.cpt(v), dtype=float).reshape(-1, len(states[v])).tolist(),
                list(model.parents(v)),
                states,
            )
            for v in variables
        }
        layout_model, layout_cls = model, cls

    # the side panel's chain rule: explain(kind="log_odds")'s order (a topological order
    # of the network; the multinet explains through its rows, in the variables' order)
    if per_class:
        chain_order = list(range(len(variables)))
    else:
        chain_order = [
            index[v]
            for v in topological_order(
                {v: list(shown_model.parents(v)) for v in variables}, variables
            )
        ]

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
    corner, width, height, route = _placed(children, roots, w, h)

    def edge_list(net: Any, class_node: Hashable | None) -> list:
        weights_mi = [a.get("weight") for _, _, a in net.graph.edges(data=True)]
        finite = [float(x) for x in weights_mi if x is not None and np.isfinite(x)]
        top_mi = max(finite, default=0.0)
        out = []
        # a child whose only parent is u: I(u; v) from P(u) and its CPT, all edges from one
        # marginals pass (the engine per edge otherwise: a TAN feature's class is a parent too)
        single = [v for _, v in net.graph.edges if len(net.parents(v)) == 1]
        prior = net.marginals() if single and hasattr(net, "marginals") else {}
        for u, v, a in net.graph.edges(data=True):
            mi = a.get("weight")
            # class: a mark on the box; extra: a DAG's edge beside the drawn tree (light)
            kind = "tree" if shown.get(v) == u else "class" if u == class_node else "extra"
            width_px = 1.5
            if mi is not None and np.isfinite(mi) and top_mi > 0:
                width_px = 1.0 + 3.0 * float(mi) / top_mi
            # the strength shown on hover: I(u; v) under the model itself (exact; the
            # graph's weight is the data's, and a network from fit_cpts has none)
            if u in prior and net.parents(v) == [u]:
                joint = np.asarray(prior[u], dtype=float)[:, None] * np.asarray(net.cpt(v))
                strength = _information(joint)
            else:
                strength = (
                    float(net.mutual_information(u, v))
                    if hasattr(net, "mutual_information")
                    else None
                )
            out.append([index[u], index[v], kind, round(width_px, 2), strength, route(u, v)])
        return out

    if per_class:
        edges = []
        for label in per_class:
            net_edges = edge_list(per_class[label], None)
            roots_c = [
                i
                for i, p in enumerate(components[len(edges)]["parent"])
                if p < 0 and i != index[cls]
            ]
            edges.append(
                [[index[cls], r, "tree", 1.5, None, route(cls, r)] for r in roots_c] + net_edges
            )
    else:
        edges = [edge_list(layout_model, cls)]
    out_vars = []
    for v in variables:
        out_vars.append(
            {
                "name": _label(v),
                "states": states[v],
                **_geometry(corner[v], w[v], h[v]),
                "cls": v == cls,
                "root": shown[v] is None,
                "cpt": cpt_views[v],
            }
        )
    return {
        "title": title if title is not None else _title(obj, shown_model, len(variables)),
        "variables": out_vars,
        "cond": index[cond] if cond is not None else -1,
        "target": index[cls] if cls is not None else -1,
        "order": chain_order,
        "components": components,
        "edges": edges,
        "edge_labels": [_label(c) for c in per_class] if per_class else [],
        "width": round(width, 1),
        "height": round(height, 1),
    }


#: the most complete assignments a page of a posterior over trees holds (its joint table):
#: the model's own limit on the completions it sums over (MAX_COMPLETIONS)
_MAX_JOINT = 4096


def _tree_average_spec(post: Any, title: str | None) -> dict:
    """A posterior over all spanning trees (``TreePosterior``): its exact distribution is no
    network, so the page carries its joint table, ``P(x | D)`` of every complete assignment
    from the model's own ``log_likelihood_codes`` (the Bayesian average, Meila & Jaakkola),
    at most :data:`_MAX_JOINT` of them; the page sums it under the evidence (``joint``:
    ``rows`` of state indices, ``p``). Laid out as its most probable tree (``map_tree``);
    each drawn edge's strength is its posterior probability ``P(uv in T | D)``."""
    variables = list(post.variables)
    states = post.states
    cards = [len(states[v]) for v in variables]
    total = int(np.prod(cards, dtype=float)) if cards else 1
    if np.prod(cards, dtype=float) > _MAX_JOINT:
        raise TreelearnError(
            f"the explorer shows this {type(post).__name__}'s exact posteriors from its joint "
            f"table, but its {len(variables)} variables have {np.prod(cards, dtype=float):,.0f} "
            f"complete assignments (more than {_MAX_JOINT:,}; each is a sum over every spanning "
            f"tree, and no cheaper exact marginal exists): explore its most probable tree, "
            f"map_tree()"
        )
    rows = np.array(list(itertools.product(*(range(k) for k in cards))), dtype=np.int64).reshape(
        total, len(variables)
    )
    p = np.exp(post.log_likelihood_codes(rows))
    spec = explorer_spec(post.map_tree(), title=title)
    P = post.edge_posterior_matrix
    index = {v: i for i, v in enumerate(variables)}
    names = [v["name"] for v in spec["variables"]]
    order = [index[next(v for v in variables if _label(v) == n)] for n in names]
    for e in spec["edges"][0]:  # strength: the edge's posterior probability
        e[3] = round(1.0 + 3.0 * float(P[order[e[0]], order[e[1]]]), 2)
        e[4] = float(P[order[e[0]], order[e[1]]])
    marg = [np.bincount(rows[:, j], weights=p, minlength=k) / p.sum() for j, k in enumerate(cards)]
    for i, v in enumerate(spec["variables"]):  # the hover: the variable's own marginal
        v["cpt"] = _cpt_view([marg[order[i]].tolist()], [], {})
    spec.update(
        {
            "title": title
            if title is not None
            else f"Bayesian average over all spanning trees · {len(variables)} variables · "
            f"n = {post.n_rows:,.0f} · drawn: the most probable tree",
            "cond": -1,
            "strength": "posterior",
            "joint": {"rows": rows[:, order].tolist(), "p": p.tolist()},
            "components": [],
        }
    )
    return spec


# ---------------------------------------------------------------------- BayesianTAN
def _is_bayes_tan(obj: Any) -> bool:
    """A fitted average over every TAN feature tree (duck-typed: BayesianTAN's tables)."""
    return all(hasattr(obj, a) for a in ("log_theta_", "log_rho_", "log_weights_", "classes_"))


def _max_spanning_tree(score: np.ndarray) -> list:
    """The maximum spanning tree of a symmetric score matrix (Prim's, from vertex 0, one
    vectorised step per vertex): ``parent[v]`` (``-1`` at the root), parents first."""
    d = len(score)
    parent = [-1] * d
    if d == 0:
        return parent
    best, via = score[0].copy(), np.zeros(d, dtype=int)
    inside = np.zeros(d, dtype=bool)
    inside[0] = True
    for _ in range(d - 1):
        v = int(np.argmax(np.where(inside, -np.inf, best)))
        inside[v] = True
        parent[v] = int(via[v])
        closer = score[v] > best
        best, via = np.where(closer, score[v], best), np.where(closer, v, via)
    return parent


def _bayes_tan_spec(clf: Any, title: str | None) -> dict:
    """BayesianTAN's page: its exact class posterior sums over every TAN feature tree (the
    matrix-tree determinant ``Z(w o rho_c(x))``, per class) for every completion of the
    unobserved features, so the page carries the model's own tables (``bayes_tan``:
    ``log_w``, the class prior, ``log_theta``, ``log_rho``, ``offsets``, ``cards``) and
    the page's script (``explorer_bayes_tan.js``) computes ``P(c, x | D)`` for every
    complete assignment once, by its own Cholesky determinant, into the joint table the
    discrete page sums under the evidence (as a posterior over trees' page). At most
    :data:`_MAX_JOINT` feature assignments, the model's own limit on the completions it
    sums over. Drawn: the class above its most probable feature tree (the maximum
    spanning tree of the log edge weights), each tree edge's strength its posterior
    probability ``P(uv in T | D)``."""
    features = list(clf.feature_names_in_)
    cls = clf.class_name_
    variables = [*features, cls]
    d = len(features)
    states = {v: [_label(s) for s in st] for v, st in zip(features, clf.states_)}
    states[cls] = [_label(c) for c in clf.classes_]
    cards = [len(states[v]) for v in features]
    total = float(np.prod(cards, dtype=float))
    rows = total * len(clf.classes_)
    if total > _MAX_JOINT or rows * len(variables) > _MAX_TABLES:
        raise TreelearnError(
            f"the explorer computes this {type(clf).__name__}'s exact posteriors from its joint "
            f"table (each entry a sum over every TAN feature tree), but its {d} features have "
            f"{total:,.0f} complete assignments (more than {_MAX_JOINT:,}, the completions the "
            f"model itself sums over): use predict_proba(), or explore a TAN fitted to the "
            f"same data (tl.TAN)"
        )
    log_w = np.asarray(clf.log_weights_, dtype=float)
    log_rho = np.array(clf.log_rho_, dtype=float)  # a copy: its same-feature blocks cleared
    offsets = [int(o) for o in clf.offsets_]
    for o, k in zip(offsets, cards):  # never read (no edge joins a feature to itself)
        log_rho[:, o : o + k, o : o + k] = 0.0
    off = ~np.eye(d, dtype=bool)
    tables = (log_w[off], np.asarray(clf.log_theta_), log_rho, np.asarray(clf.class_log_prior_))
    if not all(np.isfinite(t).all() for t in tables):
        raise TreelearnError(
            f"this {type(clf).__name__} has a non-finite weight or table entry (a zero "
            f"probability): refit it with equivalent_sample_size > 0"
        )
    parent = _max_spanning_tree(np.where(off, log_w, -np.inf))
    shown = {v: (features[parent[i]] if parent[i] >= 0 else cls) for i, v in enumerate(features)}
    shown[cls] = None
    children: dict = {v: [] for v in variables}
    for v in features:
        children[shown[v]].append(v)
    w, h = _boxes(variables, [states[v] for v in variables])
    corner, width, height, route = _placed(children, [cls], w, h)
    index = {v: i for i, v in enumerate(variables)}
    P = np.asarray(clf.edge_posteriors_, dtype=float)
    edges = []
    for i, v in enumerate(features):
        if parent[i] < 0:
            edges.append([d, i, "tree", 1.5, None, route(cls, v)])
        else:
            edges.append(
                [
                    parent[i],
                    i,
                    "tree",
                    round(1.0 + 3.0 * float(P[parent[i], i]), 2),
                    float(P[parent[i], i]),
                    route(features[parent[i]], v),
                ]
            )
            edges.append([d, i, "class", 1.5, None, None])
    theta = np.exp(np.asarray(clf.log_theta_, dtype=float))
    prior = np.exp(np.asarray(clf.class_log_prior_, dtype=float))
    out_vars = []
    for v in variables:  # the hover: a feature's P(x_v | c) (the same in every tree)
        view = (
            _cpt_view([prior.tolist()], [], states)
            if v == cls
            else _cpt_view(
                theta[:, offsets[index[v]] : offsets[index[v]] + cards[index[v]]].tolist(),
                [cls],
                states,
            )
        )
        out_vars.append(
            {
                "name": _label(v),
                "states": states[v],
                **_geometry(corner[v], w[v], h[v]),
                "cls": v == cls,
                "root": v == cls,
                "cpt": view,
            }
        )
    order = [d] + [index[v] for v in _tree_order(children, cls)]
    n = getattr(clf, "class_count_", None)
    parts = ["BayesianTAN: the average over every TAN feature tree", f"{d} features"]
    if n is not None:
        parts.append(f"n = {float(np.sum(n)):,.0f}")
    parts.append("drawn: the most probable feature tree")
    return {
        "title": title if title is not None else " · ".join(parts),
        "variables": out_vars,
        "cond": -1,
        "target": d,
        "order": order,
        "components": [],
        "edges": [edges],
        "edge_labels": [],
        "strength": "posterior",
        "bayes_tan": {
            "log_w": [
                [float(x) if i != j else 0.0 for j, x in enumerate(r)] for i, r in enumerate(log_w)
            ],
            "prior": [float(x) for x in clf.class_log_prior_],
            "log_theta": np.asarray(clf.log_theta_, dtype=float).tolist(),
            "log_rho": log_rho.tolist(),
            "offsets": offsets,
            "cards": cards,
        },
        "width": round(width, 1),
        "height": round(height, 1),
    }


def _tree_order(children: dict, root: Hashable) -> list:
    """The variables below ``root`` in a parent-first (depth-first) order."""
    order: list = []
    stack = list(reversed(children[root]))
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(reversed(children[v]))
    return order


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


def _geometry(corner: tuple, w: float, h: float) -> dict:
    return {"x": round(corner[0], 1), "y": round(corner[1], 1), "w": round(w, 1), "h": round(h, 1)}


# ---------------------------------------------------------------------- a Gaussian tree
_GAUSS_W = 230.0  # a Gaussian box: its name, the density, the moments, slider and number box
_GAUSS_H = _HEAD + 38 + 16 + 24 + _PAD


def _is_gaussian_tree(obj: Any) -> bool:
    """A linear-Gaussian tree (duck-typed: the node attributes of GaussianTreeModel)."""
    graph = getattr(obj, "graph", None)
    return (
        callable(getattr(obj, "joint", None))
        and not hasattr(obj, "classes_")
        and graph is not None
        and all("intercept" in graph.nodes[v] for v in graph.nodes)
    )


def _is_clg_tree(obj: Any) -> bool:
    """A conditional linear Gaussian tree (duck-typed: CLGTreeModel's ``continuous`` columns
    beside its ``discrete_model``)."""
    return (
        isinstance(getattr(obj, "continuous", None), list)
        and hasattr(obj, "discrete_model")
        and callable(getattr(obj, "query", None))
    )


# ---------------------------------------------------------------------- A2DE
#: the most numbers of A2DE's tables a page carries (``|Y| K^3`` conditional tables, the
#: largest): about 10 MB of JSON
_MAX_A2DE = 500_000


def _is_a2de(obj: Any) -> bool:
    """A fitted AnDE with ``n=2`` (duck-typed: its pair-of-super-parents tables)."""
    return all(hasattr(obj, a) for a in ("log_cond3_", "log_pair3_", "qualifies3_", "classes_"))


def _logs(a: Any) -> list:
    """A table of logs as JSON: ``-inf`` (a zero probability under ``alpha=0``) as null."""
    a = np.asarray(a, dtype=float)
    return np.where(np.isfinite(a), a, None).tolist()


def _a2de_spec(clf: Any, title: str | None) -> dict:
    """A2DE's page: its estimate of ``P(y, x_observed)`` (the average over qualifying pairs
    of observed super-parents, falling back to AODE, then naive Bayes, as the classifier
    does) is no joint distribution (a missing super-parent is dropped, not summed out), so
    the page evaluates that formula itself (``explorer_ande.js``) over the model's tables
    (``ande``): the class posterior is ``predict_proba``'s; each unobserved feature's bars
    are A2DE's estimate with that feature added, ``P(x_v = s | e) ∝ sum_y Ĵ(y, e, x_v = s)``,
    normalised over its states. No side panel, no soft evidence and no MAP (each assumes a
    distribution). Drawn: the class above its features."""
    fallback = clf.fallback_model_  # public: its states (the features' own)
    features = list(clf.feature_names_in_)
    size = int(np.size(clf.log_cond3_))
    if size > _MAX_A2DE:
        raise TreelearnError(
            f"the explorer evaluates A2DE's formula in the page from its tables, but this "
            f"{type(clf).__name__}'s {len(clf.classes_)} classes x "
            f"{np.shape(clf.log_cond3_)[1]}^3 feature states are {size:,} numbers (more "
            f"than {_MAX_A2DE:,}): use predict_proba(), or AnDE(n=1) (whose page shows one "
            f"super-parent's network)"
        )
    states = [list(fallback.states[v]) for v in features]
    cpts = [
        np.asarray(fallback.cpt(v), dtype=float).reshape(-1, len(st))
        for v, st in zip(features, states)
    ]
    tables = {
        "pair3": _logs(clf.log_pair3_),
        "cond3": _logs(clf.log_cond3_),
        "q3": np.asarray(clf.qualifies3_, dtype=bool).astype(int).tolist(),
        "pair1": _logs(clf.log_pair_),
        "cond1": _logs(clf.log_cond_),
        "q1": np.asarray(clf.qualifies_, dtype=bool).astype(int).tolist(),
        "nb": _logs(clf.log_nb_),
    }
    return _formula_spec(
        clf, title, states, cpts, tables, "A2DE: the average over pairs of super-parents"
    )


def _is_weighted_naive_bayes(obj: Any) -> bool:
    """A fitted naive Bayes with one table and one weight per feature (WANBIA, AWNB, MANB:
    duck-typed, ``feature_log_prob_`` a list of tables beside ``feature_weights_``)."""
    return (
        hasattr(obj, "classes_")
        and hasattr(obj, "feature_weights_")
        and isinstance(getattr(obj, "feature_log_prob_", None), list)
    )


def _weighted_nb_spec(clf: Any, title: str | None) -> dict:
    """A feature-weighted naive Bayes's page: ``s(y, x) = log P(y) + sum_j w_j T_j[y, x_j]``
    over the observed features (a missing one adds nothing), evaluated in the page by
    ``explorer_ande.js``'s last branch: the class posterior is ``predict_proba``'s; each
    unobserved feature's bars the score with that feature added, normalised (with every
    weight 1, MANB's, that is naive Bayes's exact posterior of the feature)."""
    tables = [np.asarray(t, dtype=float) for t in clf.feature_log_prob_]
    ande = {
        "nb": _logs(np.concatenate(tables, axis=1)),
        "weights": [float(x) for x in clf.feature_weights_],
    }
    return _formula_spec(
        clf,
        title,
        clf.states_,
        [np.exp(t) for t in tables],
        ande,
        f"{type(clf).__name__}: naive Bayes, one weight per feature",
    )


def _formula_spec(
    clf: Any, title: str | None, feature_states: list, cpts: list, tables: dict, head: str
) -> dict:
    """The page of a classifier whose score ``log Ĵ(y, x_observed)`` the page evaluates
    itself (``explorer_ande.js``, ``ande``: ``tables`` with the class prior and the
    features' offsets): the class above its features, each feature's hover its table
    ``cpts[j]`` (``P(x_j | y)`` per class)."""
    features = list(clf.feature_names_in_)
    cls = clf.class_name_
    variables = [*features, cls]
    d = len(features)
    states = {v: [_label(s) for s in st] for v, st in zip(features, feature_states)}
    states[cls] = [_label(c) for c in clf.classes_]
    cards = [len(states[v]) for v in features]
    children: dict = {v: [] for v in variables}
    children[cls] = list(features)
    w, h = _boxes(variables, [states[v] for v in variables])
    corner, width, height, route = _placed(children, [cls], w, h)
    prior = np.exp(np.asarray(clf.class_log_prior_, dtype=float))
    out_vars = []
    for i, v in enumerate(variables):
        view = (
            _cpt_view([prior.tolist()], [], states)
            if v == cls
            else _cpt_view(np.asarray(cpts[i]).tolist(), [cls], states)
        )
        out_vars.append(
            {
                "name": _label(v),
                "states": states[v],
                **_geometry(corner[v], w[v], h[v]),
                "cls": v == cls,
                "root": v == cls,
                "cpt": view,
            }
        )
    offsets = np.concatenate([[0], np.cumsum(cards)[:-1]]).astype(int).tolist()
    parts = [head, f"{d} feature{'' if d == 1 else 's'}"]
    n = getattr(clf, "class_count_", None)
    if n is not None:
        parts.append(f"n = {float(np.sum(n)):,.0f}")
    return {
        "title": title if title is not None else " · ".join(parts),
        "variables": out_vars,
        "cond": -1,
        "target": d,
        "order": [d, *range(d)],
        "components": [],
        "edges": [[[d, i, "tree", 1.5, None, route(cls, v)] for i, v in enumerate(features)]],
        "edge_labels": [],
        "ande": {"offsets": offsets, "prior": _logs(clf.class_log_prior_), **tables},
        "width": round(width, 1),
        "height": round(height, 1),
    }


# ---------------------------------------------------------------------- cutset networks
def _is_cutset_network(obj: Any) -> bool:
    """A fitted cutset network or ensemble of them (duck-typed: CutsetNetwork's
    ``networks_``, each an OR-tree with a ``root``, beside ``weights_``)."""
    nets = getattr(obj, "networks_", None)
    return (
        isinstance(nets, list)
        and bool(nets)
        and hasattr(obj, "weights_")
        and all(hasattr(n, "root") and hasattr(n, "columns") for n in nets)
    )


def _cutset_leaves(net: Any) -> list:
    """Every leaf of an OR-tree: ``(path probability, {column index: state}, leaf)``, the
    path's conditioning variables at the states its branches take."""
    out, stack = [], [(net.root, 1.0, {})]
    while stack:
        node, p, fixed = stack.pop()
        children = getattr(node, "children", None)
        if children is None:
            out.append((p, fixed, node))
            continue
        for a, child in enumerate(children):
            stack.append((child, p * float(node.weights[a]), {**fixed, int(node.variable): a}))
    return out


def _cutset_network_spec(obj: Any, title: str | None) -> dict:
    """A cutset network's page (``CutsetNetwork``: one OR-tree, or an ensemble with weights):
    one component per leaf of every network, its weight the network's times the path's
    branch probabilities, its conditioning variables fixed at the path's states (as a
    cutset's, with CPT rows of ones: the weight holds them) and the leaf's tree over the
    rest. The leaves of one network are disjoint events, so ``P(evidence)`` is their
    weighted sum, exactly as the model sums over the branches its missing conditioning
    variables leave open. MAP is one network's (an ensemble's, a mixture's, is refused, as
    ``map_query`` refuses it). Drawn: the largest leaf's tree, the other variables beside."""
    nets = list(obj.networks_)
    columns = list(nets[0].columns)
    index = {v: i for i, v in enumerate(columns)}
    states = {v: [_label(s) for s in nets[0].states[v]] for v in columns}
    n = len(columns)
    leaves = [
        (float(wt) * p, fixed, leaf)
        for net, wt in zip(nets, obj.weights_)
        for p, fixed, leaf in _cutset_leaves(net)
    ]
    if len(leaves) > _MAX_COMPONENTS or len(leaves) * n > _MAX_TABLES:
        raise TreelearnError(
            f"the explorer computes on this {type(obj).__name__} with one forest per leaf, but "
            f"it has {len(leaves):,} leaves (more than a page holds: {_MAX_COMPONENTS:,} "
            f"forests, {_MAX_TABLES:,} tables): query it in Python (query, map_query)"
        )
    components = []
    for w, fixed, leaf in leaves:
        if leaf.tree is not None:
            comp = _component(leaf.tree, index, {})
        else:
            comp = {"parent": [-1] * n, "cpt": [None] * n, "order": []}
        for j in fixed:  # a conditioning variable: a root whose CPT row is all ones
            comp["cpt"][j] = [[1.0] * len(states[columns[j]])]
        comp["order"] = sorted(fixed) + comp["order"]
        components.append({**comp, "weight": w, "fixed": [[j, s] for j, s in fixed.items()]})
    largest = max(
        (leaf.tree for _, _, leaf in leaves if leaf.tree is not None),
        key=lambda t: len(t.variables),
        default=None,
    )
    parent: dict = dict.fromkeys(columns)
    if largest is not None:
        parent.update({v: (largest.parents(v) or [None])[0] for v in largest.variables})
    children: dict = {v: [] for v in columns}
    for v in columns:
        if parent[v] is not None:
            children[parent[v]].append(v)
    roots = [v for v in columns if parent[v] is None]
    w, h = _boxes(columns, [states[v] for v in columns])
    corner, width, height, route = _placed(children, roots, w, h)
    edges = [
        [index[parent[v]], index[v], "tree", 1.5, None, route(parent[v], v)]
        for v in columns
        if parent[v] is not None
    ]
    out_vars = []
    for v in columns:  # the hover: the variable's marginal under the model (its own query)
        marginal = np.asarray(obj.query(v), dtype=float)
        out_vars.append(
            {
                "name": _label(v),
                "states": states[v],
                **_geometry(corner[v], w[v], h[v]),
                "cls": False,
                "root": parent[v] is None,
                "cpt": _cpt_view([marginal.tolist()], [], {}),
            }
        )
    parts = [
        f"cutset network{'' if len(nets) == 1 else f's (an ensemble of {len(nets)})'}",
        f"{n} variables",
        f"{len(leaves)} leaves",
        "drawn: the largest leaf's tree",
    ]
    return {
        "title": title if title is not None else " · ".join(parts),
        "variables": out_vars,
        "cond": -1,
        "target": -1,
        "order": list(range(n)),
        "components": components,
        "edges": [edges],
        "edge_labels": [],
        "no_map": len(nets) > 1,
        "width": round(width, 1),
        "height": round(height, 1),
    }


# ---------------------------------------------------------------------- mixed naive Bayes
def _is_mixed_tan(obj: Any) -> bool:
    """A fitted multinet of CLG trees (duck-typed: MixedTAN's ``models_``, one
    ``CLGTreeModel`` per class in ``classes_`` order, beside its ``feature_tree_``)."""
    models = getattr(obj, "models_", None)
    return (
        hasattr(obj, "classes_")
        and hasattr(obj, "feature_tree_")
        and isinstance(models, list)
        and len(models) == len(obj.classes_)
        and all(_is_clg_tree(m) for m in models)
    )


def _is_mixed_naive_bayes(obj: Any) -> bool:
    """A fitted naive Bayes with Gaussian features beside its network of categorical ones
    (duck-typed: MixedNaiveBayes's ``theta_``, ``var_``, ``numeric_features_``)."""
    return (
        hasattr(obj, "classes_")
        and hasattr(obj, "theta_")
        and hasattr(obj, "var_")
        and bool(getattr(obj, "numeric_features_", None))
        and hasattr(obj, "model_")
    )


def _mixed_nb_spec(clf: Any, title: str | None) -> dict:
    """MixedNaiveBayes's page: a CLG tree (the CLG page): the class the discrete root of
    its network ``model_`` (the categorical features its children), each Gaussian feature
    a continuous child of the class (``gauss`` kind 1: one mean and variance per class,
    ``theta_`` and ``var_``), so the numbers' density per class is soft evidence on the
    class and an unobserved Gaussian feature's posterior the mixture of its class
    Gaussians under the class posterior."""
    model = clf.model_
    cls = clf.class_name_
    features = list(clf.feature_names_in_)
    numeric = list(clf.numeric_features_)
    variables = [*features, cls]
    index = {v: i for i, v in enumerate(variables)}
    model_states = model.states
    states = {v: ([] if v in numeric else [_label(s) for s in model_states[v]]) for v in variables}
    children: dict = {v: [] for v in variables}
    children[cls] = list(features)
    w, h = _boxes(
        [v for v in variables if v not in numeric],
        [states[v] for v in variables if v not in numeric],
    )
    for v in numeric:
        w[v] = max(_GAUSS_W, min(len(_label(v)), 28) * (_CHAR + 0.5) + 2 * _PAD)
        h[v] = float(_GAUSS_H)
    corner, width, height, route = _placed(children, [cls], w, h)
    theta, var = np.asarray(clf.theta_, dtype=float), np.asarray(clf.var_, dtype=float)
    prior = np.asarray(model.cpt(cls), dtype=float).reshape(-1)
    gauss: list = [None] * len(variables)
    edges = []
    out_vars = []
    for v in variables:
        entry = {
            "name": _label(v),
            "states": states[v],
            **_geometry(corner[v], w[v], h[v]),
            "cls": v == cls,
            "root": v == cls,
        }
        if v in numeric:
            j = numeric.index(v)
            gauss[index[v]] = {"kind": 1, "means": theta[:, j].tolist(), "vars": var[:, j].tolist()}
            mean = float(prior @ theta[:, j])  # the prior mixture's (total variance)
            sd = float(np.sqrt(max(prior @ (var[:, j] + (theta[:, j] - mean) ** 2), 0.0)))
            entry["gauss"] = gauss[index[v]]
            entry["range"] = [mean - 4 * sd, mean + 4 * sd]
            edges.append([index[cls], index[v], "tree", 1.5, None, route(cls, v)])
        else:
            table = np.asarray(model.cpt(v), dtype=float).reshape(-1, len(states[v]))
            entry["cpt"] = _cpt_view(table.tolist(), list(model.parents(v)), states)
            if v != cls:
                edges.append(
                    [
                        index[cls],
                        index[v],
                        "tree",
                        1.5,
                        _information(prior[:, None] * table),
                        route(cls, v),
                    ]
                )
        out_vars.append(entry)
    return {
        "kind": "clg",
        "title": _mixed_title(title, type(clf).__name__, clf, len(features), len(numeric)),
        "variables": out_vars,
        "cond": -1,
        "target": index[cls],
        "order": [index[v] for v in variables if v not in numeric],
        "components": [{**_component(model, index, {}), "weight": 1.0}],
        "edges": [edges],
        "edge_labels": [],
        "gauss": gauss,
        "gparent": [index[cls] if v in numeric else -1 for v in variables],
        "gattach": [index[cls] if v in numeric else -1 for v in variables],
        "gauss_order": [index[v] for v in numeric],
        "width": round(width, 1),
        "height": round(height, 1),
    }


# ---------------------------------------------------------------------- Gaussian classifiers
def _is_class_gaussians(obj: Any) -> bool:
    """A fitted classifier whose features are one Gaussian per class (duck-typed:
    GaussianClassifier's ``covariance`` choice and ``covariances_``, GaussianTAN's
    ``implied_covariance``)."""
    if not hasattr(obj, "classes_") or not hasattr(obj, "means_"):
        return False
    if getattr(obj, "marginal", None) is not None:
        return False  # a copula classifier: its Gaussians are on normal scores, not the units
    return callable(getattr(obj, "implied_covariance", None)) or (
        hasattr(obj, "covariances_")
        and getattr(obj, "covariance", None) in ("full", "shared", "diagonal", "isotropic")
    )


def _class_gaussians(clf: Any) -> tuple[np.ndarray, np.ndarray, list]:
    """``(means k x d, covariances k x d x d, feature parents)`` of each class's Gaussian
    over the features, as the classifier's density uses them: GaussianClassifier's
    (``shared`` one matrix, ``diagonal`` and ``isotropic`` their variances on the
    diagonal; every feature's parent the class), GaussianTAN's implied by its regressions
    (the means propagated parent first, ``implied_covariance()``; its feature tree)."""
    k, d = np.shape(clf.means_)
    if callable(getattr(clf, "implied_covariance", None)):
        parent = [int(p) for p in clf.parent_]
        means = np.zeros((k, d))
        done = [False] * d
        while not all(done):  # parents first (d passes at most; d is the page's box count)
            for v in range(d):
                p = parent[v]
                if not done[v] and (p < 0 or done[p]):
                    means[:, v] = clf.intercept_[:, v] + (
                        clf.coefficient_[:, v] * means[:, p] if p >= 0 else 0.0
                    )
                    done[v] = True
        return means, np.asarray(clf.implied_covariance(), dtype=float), parent
    cov = np.asarray(clf.covariances_, dtype=float)
    covs = {
        "full": lambda: cov,
        "shared": lambda: np.broadcast_to(cov, (k, d, d)),
        "diagonal": lambda: cov[:, :, None] * np.eye(d),
        "isotropic": lambda: cov[:, None, None] * np.eye(d),
    }[clf.covariance]()
    return np.asarray(clf.means_, dtype=float), np.array(covs), [-1] * d


def _class_gaussians_spec(clf: Any, title: str | None) -> dict:
    """A Gaussian classifier's page (the CLG page's boxes and sliders): the class a discrete
    box (its prior the forest), each feature a number; ``mvn`` carries each class's mean
    and covariance and ``explorer_class_gaussians.js`` conditions them exactly on the
    numbers given (a Cholesky factor of the observed block per class): the density of the
    numbers per class is soft evidence on the class, and each other feature's posterior the
    mixture over classes of its conditional Gaussians, weighted by the class posterior.
    Drawn: the class above its features (GaussianTAN: above its feature tree)."""
    features = list(clf.feature_names_in_)
    cls = clf.class_name_
    variables = [*features, cls]
    d = len(features)
    means, covs, parent = _class_gaussians(clf)
    prior = np.exp(np.asarray(clf.class_log_prior_, dtype=float))
    prior = prior / prior.sum()
    states = {v: [] for v in features}
    states[cls] = [_label(c) for c in clf.classes_]
    shown = {v: (features[parent[i]] if parent[i] >= 0 else cls) for i, v in enumerate(features)}
    shown[cls] = None
    children: dict = {v: [] for v in variables}
    for v in features:
        children[shown[v]].append(v)
    w, h = _boxes([cls], [states[cls]])
    for v in features:
        w[v] = max(_GAUSS_W, min(len(_label(v)), 28) * (_CHAR + 0.5) + 2 * _PAD)
        h[v] = float(_GAUSS_H)
    corner, width, height, route = _placed(children, [cls], w, h)
    edges = []
    for i, v in enumerate(features):
        if parent[i] >= 0:
            edges.append([parent[i], i, "tree", 1.5, None, route(features[parent[i]], v)])
            edges.append([d, i, "class", 1.5, None, None])
        else:
            edges.append([d, i, "tree", 1.5, None, route(cls, v)])
    # the slider's range: the prior mixture's mean +- 4 sds (the law of total variance)
    var = np.diagonal(covs, axis1=1, axis2=2)
    mean = prior @ means
    sd = np.sqrt(np.maximum(prior @ (var + (means - mean) ** 2), 0.0))
    out_vars = []
    for i, v in enumerate(features):
        out_vars.append(
            {
                "name": _label(v),
                "states": [],
                **_geometry(corner[v], w[v], h[v]),
                "cls": False,
                "root": False,
                "gauss": {"kind": 3},
                "range": [float(mean[i] - 4 * sd[i]), float(mean[i] + 4 * sd[i])],
            }
        )
    out_vars.append(
        {
            "name": _label(cls),
            "states": states[cls],
            **_geometry(corner[cls], w[cls], h[cls]),
            "cls": True,
            "root": True,
            "cpt": _cpt_view([prior.tolist()], [], states),
        }
    )
    kind = type(clf).__name__
    how = (
        f"{clf.covariance} covariance"
        if isinstance(getattr(clf, "covariance", None), str)
        else "a Gaussian tree per class"
    )
    parts = [f"{kind} ({how})", f"{d} feature{'' if d == 1 else 's'}", f"{len(prior)} classes"]
    n = getattr(clf, "class_count_", None)
    if n is not None:
        parts.append(f"n = {float(np.sum(n)):,.0f}")
    n_vars = len(variables)
    return {
        "kind": "class_gaussians",
        "title": title if title is not None else " · ".join(parts),
        "variables": out_vars,
        "cond": -1,
        "target": d,
        "order": [d],
        "components": [
            {
                "parent": [-1] * n_vars,
                "cpt": [None] * d + [[prior.tolist()]],
                "order": [d],
                "weight": 1.0,
            }
        ],
        "edges": [edges],
        "edge_labels": [],
        "gauss": [{"kind": 3}] * d + [None],
        "gparent": [-1] * n_vars,
        "gattach": [d] * d + [-1],
        "gauss_order": list(range(d)),
        "mvn": {"means": means.tolist(), "covs": covs.tolist(), "cls": d},
        "width": round(width, 1),
        "height": round(height, 1),
    }


def _parent_first(model: Any, variables: list) -> tuple[dict, dict, list, list]:
    """A tree or forest's ``(parent, children, roots, order)``: each variable's one parent
    (``None`` at a root), its children and the roots in the model's order, and the
    variables in a parent-first (depth-first) order."""
    parent = {v: (model.parents(v) or [None])[0] for v in variables}
    children: dict = {v: [] for v in variables}
    for v in variables:
        if parent[v] is not None:
            children[parent[v]].append(v)
    roots = [v for v in variables if parent[v] is None]
    order: list = []
    stack = roots[::-1]
    while stack:  # parents before children
        v = stack.pop()
        order.append(v)
        stack.extend(reversed(children[v]))
    return parent, children, roots, order


def _clg_gaussians(model: Any, index: dict, parent: dict, order: list) -> tuple[list, list]:
    """A CLG tree's Gaussians, per variable (``None`` when discrete; ``kind`` 0, 1 or 2 as
    :func:`_clg_spec` says) and each continuous variable's attachment (the index of the
    discrete variable its Gaussian subtree hangs from, or -1)."""
    cont = set(model.continuous)
    gauss: list = [None] * len(index)
    attach = [-1] * len(index)
    node = model.graph.nodes
    for v in order:
        if v not in cont:
            continue
        p, a = parent[v], node[v]
        if p is None:
            gauss[index[v]] = {"kind": 0, "a": float(a["intercept"]), "s2": float(a["variance"])}
        elif p not in cont:
            gauss[index[v]] = {
                "kind": 1,
                "means": [float(x) for x in a["means"]],
                "vars": [float(x) for x in a["variances"]],
            }
            attach[index[v]] = index[p]
        else:
            gauss[index[v]] = {
                "kind": 2,
                "a": float(a["intercept"]),
                "b": float(a["coefficient"]),
                "s2": float(a["variance"]),
            }
            attach[index[v]] = attach[index[p]]
    return gauss, attach


def _mixed_tan_spec(clf: Any, title: str | None) -> dict:
    """MixedTAN's page: a multinet of CLG trees (one per class, one shared structure). The
    class is the conditioner (``cond``): one component per class, its weight the class
    prior, each with its own tree's CPTs and Gaussians (``gauss`` per component; the
    structure, ``gparent``, ``gattach``, ``gauss_order``, shared), so the page runs the
    CLG tree's computation per class and mixes the classes by ``P(c, evidence)``; a
    continuous variable's ``data-marginal`` is the mixture over classes and its
    attachment's states (class first). Drawn: the class above the feature tree."""
    cls = clf.class_name_
    features = list(clf.feature_names_in_)
    numeric = set(clf.numeric_features_)
    variables = [*features, cls]
    index = {v: i for i, v in enumerate(variables)}
    models = list(clf.models_)
    first = models[0]
    parent, _, _, order = _parent_first(first, features)
    dmodel = first.discrete_model
    states = {v: ([] if v in numeric else [_label(s) for s in dmodel.states[v]]) for v in features}
    states[cls] = [_label(c) for c in clf.classes_]
    prior = np.exp(np.asarray(clf.class_log_prior_, dtype=float))
    prior = prior / prior.sum()
    components = []
    for c, m in enumerate(models):
        gauss_c, attach = _clg_gaussians(m, index, parent, order)
        if m.discrete_model is not None:
            comp = _component(m.discrete_model, index, {})
        else:
            comp = {"parent": [-1] * len(variables), "cpt": [None] * len(variables), "order": []}
        components.append({**comp, "weight": float(prior[c]), "gauss": gauss_c})
    # the slider's range: the prior mixture's mean +- 4 sds, from each class's own query
    ranges = {}
    for v in numeric:
        qs = [m.query(v, {}) for m in models]
        w = np.concatenate([p * np.asarray(q.weights) for p, q in zip(prior, qs)])
        mu = np.concatenate([q.means for q in qs])
        var = np.concatenate([q.variances for q in qs])
        mean = float(w @ mu)
        sd = float(np.sqrt(max(float(w @ (var + (mu - mean) ** 2)), 0.0)))
        ranges[v] = [mean - 4 * sd, mean + 4 * sd]
    shown = {v: (parent[v] if parent[v] is not None else cls) for v in features}
    kids: dict = {v: [] for v in variables}
    for v in features:
        kids[shown[v]].append(v)
    w, h = _boxes(
        [v for v in variables if v not in numeric],
        [states[v] for v in variables if v not in numeric],
    )
    for v in numeric:
        w[v] = max(_GAUSS_W, min(len(_label(v)), 28) * (_CHAR + 0.5) + 2 * _PAD)
        h[v] = float(_GAUSS_H)
    corner, width, height, route = _placed(kids, [cls], w, h)
    edges = []
    for v in features:
        if parent[v] is None:
            edges.append([index[cls], index[v], "tree", 1.5, None, route(cls, v)])
        else:
            edges.append([index[parent[v]], index[v], "tree", 1.5, None, route(parent[v], v)])
            edges.append([index[cls], index[v], "class", 1.5, None, None])
    out_vars = []
    for v in variables:
        entry = {
            "name": _label(v),
            "states": states[v],
            **_geometry(corner[v], w[v], h[v]),
            "cls": v == cls,
            "root": v == cls,
        }
        if v in numeric:
            entry["gauss"] = components[0]["gauss"][index[v]]
            entry["range"] = ranges[v]
        elif v == cls:
            entry["cpt"] = _cpt_view([prior.tolist()], [], states)
        else:
            entry["cpt"] = _multinet_cpt(
                dict(zip(clf.classes_, [m.discrete_model for m in models])), cls, v, states
            )
        out_vars.append(entry)
    return {
        "kind": "clg",
        "title": _mixed_title(
            title, "MixedTAN: a CLG tree per class", clf, len(features), len(numeric)
        ),
        "variables": out_vars,
        "cond": index[cls],
        "target": index[cls],
        "order": [index[v] for v in variables if v not in numeric],
        "components": components,
        "edges": [edges],
        "edge_labels": [],
        "gauss": components[0]["gauss"],
        "gparent": [
            index[parent[v]] if v in numeric and parent[v] is not None else -1 for v in variables
        ],
        "gattach": attach,  # the structure's, the same in every class
        "gauss_order": [index[v] for v in order if v in numeric],
        "width": round(width, 1),
        "height": round(height, 1),
    }


def _clg_spec(model: Any, title: str | None) -> dict:
    """The mixed page's data: the discrete tree as the discrete page's one forest (its
    CPTs), and per continuous variable (``gauss``) its Gaussians: ``kind`` 0 (no parent:
    ``a``, ``s2``), 1 (a discrete parent: ``means``, ``vars``, one per state) or 2 (a
    continuous parent: ``a``, ``b``, ``s2``), ``gparent`` (its parent), ``gattach`` (the
    discrete variable its Gaussian subtree hangs from, or -1), ``gauss_order`` (parents
    first); the slider's range is the prior's mean +- 4 sds (``query`` with no evidence)."""
    variables = list(model.variables)
    index = {v: i for i, v in enumerate(variables)}
    cont = set(model.continuous)
    dmodel = model.discrete_model
    discrete_states = dmodel.states if dmodel is not None else {}
    states = {v: ([] if v in cont else [_label(s) for s in discrete_states[v]]) for v in variables}
    parent, children, roots, order = _parent_first(model, variables)
    gauss, attach = _clg_gaussians(model, index, parent, order)
    # each continuous variable's prior: per state of its attachment, a Gaussian propagated
    # down the regressions; mixed by the attachment's marginal (the law of total variance)
    marginals = dmodel.marginals() if dmodel is not None else {}
    per_state: dict = {}
    prior: dict = {}
    for v in order:
        if v not in cont:
            continue
        g, p = gauss[index[v]], parent[v]
        if g["kind"] == 0:
            per_state[v] = (np.array([g["a"]]), np.array([g["s2"]]))
        elif g["kind"] == 1:
            per_state[v] = (np.array(g["means"]), np.array(g["vars"]))
        else:
            m, s2 = per_state[p]
            per_state[v] = (g["a"] + g["b"] * m, g["b"] ** 2 * s2 + g["s2"])
        m, s2 = per_state[v]
        a = attach[index[v]]
        weights = np.ones(1) if a < 0 else np.asarray(marginals[variables[a]], dtype=float)
        mean = float(weights @ m)
        prior[v] = (mean, max(float(weights @ (s2 + (m - mean) ** 2)), 0.0))
    w, h = _boxes(variables, [states[v] for v in variables])
    for v in cont:
        w[v] = max(_GAUSS_W, min(len(_label(v)), 28) * (_CHAR + 0.5) + 2 * _PAD)
        h[v] = float(_GAUSS_H)
    corner, width, height, route = _placed(children, roots, w, h)
    if dmodel is not None:
        components = [{**_component(dmodel, index, {}), "weight": 1.0}]
        cpt_views = {
            v: _cpt_view(
                np.asarray(dmodel.cpt(v), dtype=float).reshape(-1, len(states[v])).tolist(),
                list(dmodel.parents(v)),
                states,
            )
            for v in dmodel.variables
        }
    else:
        components = [
            {
                "parent": [-1] * len(variables),
                "cpt": [None] * len(variables),
                "order": [],
                "weight": 1.0,
            }
        ]
        cpt_views = {}
    edges = []
    for u, v, a in model.graph.edges(data=True):
        # discrete pairs: I(u; v) under the model; a continuous end: the learned weight (the
        # mixed mutual information of the data, as bnlearn's mi-cg)
        mi = (
            float(dmodel.mutual_information(u, v))
            if u not in cont and v not in cont
            else (float(a["weight"]) if a.get("weight") is not None else None)
        )
        edges.append([index[u], index[v], "tree", 1.5, mi, route(u, v)])
    out_vars = []
    for v in variables:
        entry = {
            "name": _label(v),
            "states": states[v],
            **_geometry(corner[v], w[v], h[v]),
            "cls": False,
            "root": parent[v] is None,
        }
        if v in cont:
            mean, var = prior[v]
            entry["gauss"] = gauss[index[v]]
            entry["range"] = [mean - 4 * float(np.sqrt(var)), mean + 4 * float(np.sqrt(var))]
        else:
            entry["cpt"] = cpt_views[v]
        out_vars.append(entry)
    rows = getattr(model, "n_rows", None)
    parts = ["CLG tree", f"{len(variables) - len(cont)} discrete, {len(cont)} continuous"]
    if rows is not None:
        parts.append(f"n = {rows:,.0f}")
    return {
        "kind": "clg",
        "title": title if title is not None else " · ".join(parts),
        "variables": out_vars,
        "cond": -1,
        "target": -1,
        "order": [index[v] for v in order if v not in cont],
        "components": components,
        "edges": [edges],
        "edge_labels": [],
        "gauss": gauss,
        "gparent": [index[parent[v]] if parent[v] is not None else -1 for v in variables],
        "gattach": attach,
        "gauss_order": [index[v] for v in order if v in cont],
        "width": round(width, 1),
        "height": round(height, 1),
    }


def _gaussian_spec(model: Any, title: str | None) -> dict:
    """The Gaussian page's data: each variable's regression on its parent (``gauss``: ``a``,
    ``b``, ``s2``), the slider's range (the prior mean +- 4 prior sds), the tree (one
    component: parents and a parent-first order), the edges with their strength
    ``I(parent; child) = -log(1 - rho^2) / 2`` from the model's own variances."""
    variables = list(model.variables)
    index = {v: i for i, v in enumerate(variables)}
    parent, children, roots, order = _parent_first(model, variables)
    mean: dict = {}
    var: dict = {}
    node = model.graph.nodes
    for v in order:  # the prior moments, parent first: Var(v) = b^2 Var(p) + s2
        a, s2 = float(node[v]["intercept"]), float(node[v]["variance"])
        p = parent[v]
        b = float(node[v]["coefficient"]) if p is not None else 0.0
        mean[v] = a + b * (mean[p] if p is not None else 0.0)
        var[v] = b * b * (var[p] if p is not None else 0.0) + s2
    w = {v: max(_GAUSS_W, min(len(_label(v)), 28) * (_CHAR + 0.5) + 2 * _PAD) for v in variables}
    h = {v: float(_GAUSS_H) for v in variables}
    corner, width, height, route = _placed(children, roots, w, h)
    edges = []
    for v in variables:
        p = parent[v]
        if p is None:
            continue
        b = float(node[v]["coefficient"])
        rho2 = min(b * b * var[p] / var[v], 1.0)  # the squared correlation, <= 1 up to round-off
        mi = -0.5 * float(np.log1p(-rho2)) if rho2 < 1.0 else None
        edges.append([index[p], index[v], "tree", round(1.0 + 3.0 * rho2, 2), mi, route(p, v)])
    out_vars = []
    for v in variables:
        a = node[v]
        sd = float(np.sqrt(var[v]))
        out_vars.append(
            {
                "name": _label(v),
                "states": [],
                **_geometry(corner[v], w[v], h[v]),
                "cls": False,
                "root": parent[v] is None,
                "gauss": {
                    "a": float(a["intercept"]),
                    "s2": float(a["variance"]),
                    "b": float(a["coefficient"]) if parent[v] is not None else 0.0,
                },
                "range": [mean[v] - 4 * sd, mean[v] + 4 * sd],
            }
        )
    rows = getattr(model, "n_rows", None)
    parts = ["Gaussian tree", f"{len(variables)} variable{'' if len(variables) == 1 else 's'}"]
    if rows is not None:
        parts.append(f"n = {rows:,.0f}")
    return {
        "kind": "gaussian",
        "title": title if title is not None else " · ".join(parts),
        "variables": out_vars,
        "cond": -1,
        "target": -1,
        "order": [index[v] for v in order],
        "components": [
            {
                "parent": [index[parent[v]] if parent[v] is not None else -1 for v in variables],
                "order": [index[v] for v in order],
                "weight": 1.0,
            }
        ],
        "edges": [edges],
        "edge_labels": [],
        "width": round(width, 1),
        "height": round(height, 1),
    }


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
    class posterior is then that network's, not AODE's average. Returns the HTML text.

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
    numeric = {
        v["name"]
        for v in spec["variables"]
        if spec.get("kind") == "gaussian" or v.get("gauss") is not None
    }
    for var, state in [(k, x) for k, x in (evidence or {}).items() if _label(k) in numeric]:
        if _label(var) not in known:
            raise TreelearnError(
                f"evidence names {var!r}, which is not a variable of this model; "
                f"variables: {list(known)}"
            )
        if (
            isinstance(state, bool)
            or not isinstance(state, (int, float, np.number))
            or not np.isfinite(state)
        ):
            raise TreelearnError(
                f"evidence {var!r} = {state!r}: a Gaussian variable takes a finite number"
            )
        preset[_label(var)] = float(state)
    for var, state in [(k, x) for k, x in (evidence or {}).items() if _label(k) not in numeric]:
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
    # the drawing's script, the model kind's (discrete or Gaussian), the view's (which starts)
    # (BayesianTAN's joint table computed first, by its own script, from the model's tables)
    script = "explorer_gaussian.js" if spec.get("kind") == "gaussian" else "explorer.js"
    scripts = [
        "explorer_draw.js",
        "explorer_density.js",
        *(["explorer_bayes_tan.js"] if "bayes_tan" in spec else []),
        *(["explorer_class_gaussians.js"] if "mvn" in spec else []),
        *(["explorer_ande.js"] if "ande" in spec else []),
        script,
        "explorer_view.js",
    ]
    parts = {
        "TITLE": html.escape(spec["title"]),
        "CSS": _asset("explorer.css"),
        "JS": "\n".join(_asset(a) for a in scripts),
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
