"""The model file: its JSON envelope, a model's JSON content, and safe reading and writing.

A file is one JSON object::

    {"format": "treelearn", "version": 1, "kind": "tree_model", "model": {...}}
    {"format": "treelearn", "version": 1, "kind": "classifier",
     "class": "TAN", "state": {...}}

(``"estimator"``, with ``"class"`` and ``"state"`` too, for the estimators that are no
classifiers: ``Discretizer``, ``TreeMixture``).

A model (:func:`model_to_dict`) holds its variables, for each node the states,
the dtype, the parents (in the CPT's axis order) and the CPT (nested lists,
``[parent states..., own state]``), the edges with their attributes (``weight``
= MI), the graph attributes (``roots``, ``class``...), ``n_rows`` and the
learning settings. Labels keep their type through :mod:`treelearn._base.jsonvalues`;
floats are written with ``repr`` precision, so a model loads back exactly.

This module reads models duck-typed and never imports :mod:`treelearn.models._tree`:
:meth:`TreeModel.save <treelearn.TreeModel.save>`, the classifiers'
``save`` and :mod:`treelearn._io` (which builds models from files) all use it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Hashable
from itertools import pairwise
from typing import Any

import networkx as nx
import numpy as np

from .._base.errors import (
    CorruptModelFileError,
    InvalidModelError,
    ModelFormatError,
    StructureError,
    TreelearnError,
)
from .._base.jsonvalues import (
    DecodeError,
    EncodeError,
    decode_dtype,
    decode_label,
    encode_dtype,
    encode_label,
    from_json_value,
    json_value,
)
from ..encoding._bins import bin_labels, bins_of
from ..stats._parameters import check_cpt
from ._textfile import write_text_atomic

__all__ = [
    "ESTIMATOR_KINDS",
    "FORMAT",
    "VERSION",
    "check_document",
    "document",
    "dumps_document",
    "estimator_document",
    "model_arguments_from_dict",
    "model_document",
    "model_to_dict",
    "parse_document",
    "save_document",
]

FORMAT = "treelearn"
VERSION = 1
#: the kinds of saved estimators (the model kinds are the models' own: their ``kind``)
ESTIMATOR_KINDS = ("classifier", "estimator")


# ---------------------------------------------------------------------- models
def model_to_dict(model: Any) -> dict:
    """The JSON-able content of a model (the ``"model"`` part of a file).

    ``model`` is read through ``variables``, ``graph``, ``dtypes``, ``n_rows`` and
    ``settings`` (a :class:`~treelearn.TreeModel`). A label that has no JSON
    encoding raises :class:`~treelearn.TreelearnError`.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> d = model_to_dict(tl.chow_liu(pd.DataFrame({"a": [1, 2, 2], "b": [True, False, False]})))
    >>> d["nodes"][1]["states"], d["nodes"][1]["dtype"], d["nodes"][1]["parents"]
    ([False, True], 'bool', ['a'])
    """
    try:
        return _model_to_dict(model)
    except EncodeError as exc:  # jsonvalues knows no treelearn errors
        raise TreelearnError(str(exc)) from None


def _model_to_dict(model: Any) -> dict:
    G = model.graph
    nodes = []
    for v in model.variables:
        attrs = G.nodes[v]
        extra = {
            k: json_value(x) for k, x in attrs.items() if k not in ("states", "cpt", "parents")
        }
        node = {
            "name": encode_label(v),
            "states": [encode_label(s) for s in attrs["states"]],
            "dtype": encode_dtype(model.dtypes.get(v)),
            "parents": [encode_label(p) for p in attrs["parents"]],
            # Python floats: json writes them with round-trip precision
            "cpt": np.asarray(attrs["cpt"], dtype=float).tolist(),
        }
        if extra:
            node["attrs"] = extra
        bins = bins_of(attrs["states"])
        if bins is not None:  # a cut variable: its edges, for readers of the file
            node["bins"] = {"edges": bins.edges.tolist(), "dates": bins.dates}
        nodes.append(node)
    edges = [
        {
            "source": encode_label(u),
            "target": encode_label(v),
            "attrs": {k: json_value(x) for k, x in data.items()},
        }
        for u, v, data in G.edges(data=True)
    ]
    return {
        "variables": [encode_label(v) for v in model.variables],
        "nodes": nodes,
        "edges": edges,
        "graph": {k: json_value(x) for k, x in G.graph.items()},
        "n_rows": _rows_value(model.n_rows),
        "settings": {k: json_value(x) for k, x in model.settings.items()},
    }


def model_arguments_from_dict(d: Any) -> dict:
    """The keyword arguments of :class:`~treelearn.TreeModel` that :func:`model_to_dict` describes.

    Checks everything the model relies on (names, states, parents, edges, every
    CPT with :func:`~treelearn.stats._parameters.check_cpt`) and raises
    :class:`~treelearn.InvalidModelError` naming the variable and what is wrong.
    :meth:`TreeModel.from_dict <treelearn.TreeModel.from_dict>` builds the model.

    Examples
    --------
    >>> args = model_arguments_from_dict({
    ...     "variables": ["a"], "edges": [],
    ...     "nodes": [{"name": "a", "states": [0, 1], "parents": [], "cpt": [0.5, 0.6]}]})
    Traceback (most recent call last):
    ...
    treelearn.InvalidModelError: variable 'a': the CPT sums to 1.1, not 1
    """
    if not isinstance(d, dict):
        raise InvalidModelError(f"the model must be a JSON object, not {type(d).__name__}")
    variables = [
        _hashable(_decoded(decode_label, v, "variables"), "variables")
        for v in _require(d, "variables", list, "model")
    ]
    if len(set(variables)) != len(variables):
        raise InvalidModelError(f"the variables {variables} are not distinct")
    G = nx.DiGraph()
    dtypes = {}
    for i, node in enumerate(_require(d, "nodes", list, "model")):
        raw_name = _require(node, "name", (str, int, float, bool, dict), f"node {i}")
        name = _hashable(_decoded(decode_label, raw_name, f"node {i}"), f"node {i}")
        where = f"variable {name!r}"
        if name not in variables:
            raise InvalidModelError(f"{where} has a node but is not among the variables")
        if name in G:
            raise InvalidModelError(f"{where} has two nodes")
        states = [_decoded(decode_label, s, where) for s in _require(node, "states", list, where)]
        if not states:
            raise InvalidModelError(f"{where} has no states")
        try:
            distinct = len(set(map(_state_key, states))) == len(states)
        except TypeError:
            raise InvalidModelError(f"{where}: the states {states} are not all labels") from None
        if not distinct:
            raise InvalidModelError(f"{where}: the states {states} are not distinct")
        if len(set(states)) != len(states):  # 1, 1.0 and True: one label for pandas and dicts
            raise InvalidModelError(
                f"{where}: the states {states} hold equal labels (such as 1 and 1.0); "
                f"give each state once"
            )
        parents = [_decoded(decode_label, p, where) for p in _require(node, "parents", list, where)]
        cpt = _require(node, "cpt", list, where)
        _check_numbers(cpt, where)
        attrs = {k: _decoded(from_json_value, x, where) for k, x in _attrs(node, where).items()}
        if "bins" in node:
            _check_bins(node["bins"], states, where)
        G.add_node(name, **attrs, states=states, cpt=cpt, parents=parents)
        dtypes[name] = _decoded(decode_dtype, node.get("dtype"), where)
    missing = [v for v in variables if v not in G]
    if missing:
        raise InvalidModelError(f"the variable(s) {missing} have no node (states and CPT)")
    for v in variables:
        parents = G.nodes[v]["parents"]
        unknown = [p for p in parents if p not in G]
        if unknown:
            raise InvalidModelError(f"variable {v!r}: the parent(s) {unknown} are not variables")
        if len(set(parents)) != len(parents):
            raise InvalidModelError(f"variable {v!r}: the parents {parents} repeat")
        shape = [len(G.nodes[p]["states"]) for p in parents] + [len(G.nodes[v]["states"])]
        try:
            G.nodes[v]["cpt"] = check_cpt(v, G.nodes[v]["cpt"], shape)
        except StructureError as exc:
            raise InvalidModelError(str(exc)) from None
    for i, edge in enumerate(_require(d, "edges", list, "model")):
        ends = [
            _decoded(
                decode_label,
                _require(edge, key, (str, int, float, bool, dict), f"edge {i}"),
                f"edge {i}",
            )
            for key in ("source", "target")
        ]
        u, v = ends
        if u not in G or v not in G:
            raise InvalidModelError(f"edge {i} ({u!r} -> {v!r}) joins unknown variables")
        if u not in G.nodes[v]["parents"]:
            raise InvalidModelError(f"edge {u!r} -> {v!r} is not in {v!r}'s parents")
        attrs = {
            k: _decoded(from_json_value, x, f"edge {i}")
            for k, x in _attrs(edge, f"edge {i}").items()
        }
        weight = attrs.get("weight")
        if weight is not None and not _is_number(weight):
            raise InvalidModelError(f"edge {u!r} -> {v!r}: the weight {weight!r} is not a number")
        G.add_edge(u, v, **attrs)
    for v in variables:
        for p in G.nodes[v]["parents"]:
            if not G.has_edge(p, v):
                raise InvalidModelError(f"variable {v!r} has the parent {p!r} but no edge from it")
    graph_attrs = d.get("graph", {})
    if not isinstance(graph_attrs, dict):
        raise InvalidModelError("model: 'graph' must be an object")
    G.graph.update({k: _decoded(from_json_value, x, "graph") for k, x in graph_attrs.items()})
    if not nx.is_directed_acyclic_graph(G):
        raise InvalidModelError(f"the parents form a cycle: {nx.find_cycle(G)}")
    roots = G.graph.get("roots", [])
    if not isinstance(roots, list) or not all(_is_label(r) and r in G for r in roots):
        raise InvalidModelError(f"graph: roots must be a list of variables, not {roots!r}")
    if "n" in G.graph and G.graph["n"] is not None and not _is_number(G.graph["n"]):
        raise InvalidModelError(f"graph: n must be a number, not {G.graph['n']!r}")
    n_rows = d.get("n_rows")
    if n_rows is not None and not (_is_number(n_rows) and n_rows >= 0):
        raise InvalidModelError(
            f"model: n_rows must be a non-negative number or null, not {n_rows!r}"
        )
    settings = d.get("settings", {})
    if not isinstance(settings, dict):
        raise InvalidModelError("model: 'settings' must be an object")
    settings = {k: _decoded(from_json_value, x, "settings") for k, x in settings.items()}
    for key in ("alpha", "equivalent_sample_size", "m", "mi_alpha"):
        if settings.get(key) is not None and not (_is_number(settings[key]) and settings[key] >= 0):
            raise InvalidModelError(f"settings: {key} must be a number >= 0, not {settings[key]!r}")
    forest = settings.get("forest")
    if forest is not None and forest not in ("bic", "aic") and not _is_number(forest):
        raise InvalidModelError(
            f"settings: forest must be null, 'bic', 'aic' or a number, not {forest!r}"
        )
    return {
        "graph": G,
        "variables": variables,
        "dtypes": {v: t for v, t in dtypes.items() if t is not None},
        "n_rows": n_rows,
        "settings": settings,
    }


def _check_bins(bins: Any, states: list, where: str) -> None:
    """A cut variable's saved ``bins`` must be increasing finite edges whose labels
    (:func:`~treelearn.encoding._bins.bin_labels`) are the variable's states."""
    if (
        not isinstance(bins, dict)
        or not isinstance(bins.get("edges"), list)
        or not isinstance(bins.get("dates", False), bool)
    ):
        raise InvalidModelError(
            f"{where}: 'bins' must be an object with a list of 'edges' and 'dates' true or false"
        )
    edges = bins["edges"]
    if not all(_is_number(e) and np.isfinite(e) for e in edges) or any(
        b <= a for a, b in pairwise(edges)
    ):
        raise InvalidModelError(
            f"{where}: the bin edges {edges[:10]} must be increasing finite numbers"
        )
    labels = bin_labels(edges, bins.get("dates", False))
    if labels != states:
        raise InvalidModelError(
            f"{where}: the bin edges {edges[:10]} give the bins "
            f"{labels[:5]}, not the states {states[:5]}"
        )


def _attrs(d: dict, where: str) -> dict:
    attrs = d.get("attrs", {})
    if not isinstance(attrs, dict):
        raise InvalidModelError(f"{where}: 'attrs' must be an object, not {type(attrs).__name__}")
    return attrs


def _rows_value(n_rows: Any) -> int | float | None:
    """The training rows as saved: an int for whole rows, the float of a weighted fit's sum
    of weights (a tree-mixture component's expected rows, 435.08 of 944): ``int()`` of it
    made the loaded model's text say 435 where the fitted one said 435.078."""
    if n_rows is None:
        return None
    value = float(n_rows)
    return int(value) if value.is_integer() else value


def _is_number(x: Any) -> bool:
    """A finite int or float, not a bool."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and bool(np.isfinite(float(x)))


def _is_label(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def _check_numbers(cpt: list, where: str) -> None:
    """Every leaf of a nested CPT list a JSON number (not text, bool or null)."""
    stack = [cpt]
    while stack:  # iterative: a hostile file may nest deeply
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, bool) or not isinstance(item, (int, float)):
            raise InvalidModelError(
                f"{where}: the CPT is not a rectangular array of numbers (it holds {item!r})"
            )


def _decoded(decode: Any, value: Any, where: str) -> Any:
    """``decode(value)``, its :class:`DecodeError` an :class:`InvalidModelError` saying where."""
    try:
        return decode(value)
    except DecodeError as exc:
        raise InvalidModelError(f"{where}: {exc}") from None


def _require(d: Any, key: str, kind: type | tuple, where: str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise InvalidModelError(f"{where}: the field {key!r} is missing")
    value = d[key]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InvalidModelError(f"{where}: {key!r} must be a {names}, not {type(value).__name__}")
    return value


def _hashable(label: Any, where: str) -> Hashable:
    try:
        hash(label)
    except TypeError:
        raise InvalidModelError(f"{where}: {label!r} cannot be a name") from None
    return label


def _state_key(s: Any) -> tuple:
    # 1, 1.0 and True are equal in Python; as states they are distinct
    return (type(s).__name__, s)


# ---------------------------------------------------------------------- the envelope
def document(kind: str, **content: Any) -> dict:
    """A whole file's content: the format, version and ``kind`` heading ``content``.

    Examples
    --------
    >>> document("tree_model", model={})
    {'format': 'treelearn', 'version': 1, 'kind': 'tree_model', 'model': {}}
    """
    return {"format": FORMAT, "version": VERSION, "kind": kind, **content}


def model_document(model: Any) -> dict:
    """The file of a model (a :class:`~treelearn.Model`): its ``kind``, its class's name
    and its ``to_dict()`` as ``"model"``; :func:`treelearn.load` finds the class again
    by the name and checks it is of that kind.

    >>> import pandas as pd, treelearn as tl
    >>> doc = model_document(tl.chow_liu(pd.DataFrame({"a": [0, 1], "b": [0, 1]})))
    >>> doc["kind"], doc["class"], sorted(doc["model"])[:2]
    ('tree_model', 'TreeModel', ['edges', 'graph'])
    """
    return document(model.kind, **{"class": type(model).__name__, "model": model.to_dict()})


def estimator_document(estimator: Any, kind: str) -> dict:
    """The file of a fitted estimator (``kind``: one of :data:`ESTIMATOR_KINDS`): its
    class's name and its ``to_dict()`` as ``"state"``."""
    if kind not in ESTIMATOR_KINDS:
        raise ModelFormatError(
            f"unknown estimator kind {kind!r}; expected one of {ESTIMATOR_KINDS}"
        )
    return document(kind, **{"class": type(estimator).__name__, "state": estimator.to_dict()})


def check_document(doc: Any) -> str:
    """The ``kind`` of a parsed file, after checking its format and version.

    Raises :class:`~treelearn.ModelFormatError` for anything else.

    Examples
    --------
    >>> check_document({"format": "treelearn", "version": 1, "kind": "classifier"})
    'classifier'
    """
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelFormatError('not a treelearn model file (no "format": "treelearn" field)')
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version != VERSION:
        raise ModelFormatError(
            f"model file format version {version!r} is not supported: this treelearn reads "
            f"version {VERSION}; upgrade treelearn or re-save the model"
        )
    kind = doc.get("kind")
    if not isinstance(kind, str) or not kind:
        raise ModelFormatError(f"unknown model kind {kind!r}: the file names no kind")
    return kind


def dumps_document(doc: dict) -> str:
    """The JSON text of a file (no NaN literals: labels carry them as tagged values)."""
    return json.dumps(doc, allow_nan=False, ensure_ascii=False)


def parse_document(text: str) -> dict:
    """Parse a file's text and check its envelope (:func:`check_document`).

    Raises :class:`~treelearn.CorruptModelFileError` when the text is not JSON,
    saying whether it looks cut short or is not a model file at all.

    Examples
    --------
    >>> parse_document('{"format": "treelearn", "version": 1, "kind": "tree_m')
    Traceback (most recent call last):
    ...
    treelearn.CorruptModelFileError: not valid JSON at line 1, ...; the file looks cut short
    >>> parse_document('{"format": "treelearn", "version": 1, "kind": "tree_model"}')["kind"]
    'tree_model'
    """
    try:
        doc = json.loads(text)
    except RecursionError:  # deeply nested arrays or objects
        raise CorruptModelFileError(
            "not a treelearn model file: the JSON is nested too deeply"
        ) from None
    except ValueError as exc:
        if not isinstance(exc, json.JSONDecodeError):  # e.g. an integer of 5,000 digits
            raise CorruptModelFileError(
                f"not a treelearn model file: a value cannot be read ({str(exc)[:80]})"
            ) from None
        stripped = text.rstrip()
        if not stripped:
            raise CorruptModelFileError("the file is empty") from None
        if not stripped.lstrip().startswith("{"):  # e.g. the data file given as the model
            raise CorruptModelFileError(
                "not a treelearn model file: it is not JSON (a model file is the JSON "
                "that save() or 'treelearn learn -o' writes)"
            ) from None
        cut = "; the file looks cut short" if not stripped.endswith("}") else ""
        raise CorruptModelFileError(
            f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}{cut}"
        ) from None
    check_document(doc)
    return doc


def save_document(path: str | os.PathLike, doc: dict) -> None:
    """Write the file ``doc`` (a :func:`document`) to ``path``, atomically."""
    write_text_atomic(path, dumps_document(doc))
