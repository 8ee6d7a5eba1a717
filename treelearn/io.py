"""Save and load models as versioned JSON.

A file is one JSON object::

    {"format": "treelearn", "version": 1, "kind": "tree_model", "model": {...}}
    {"format": "treelearn", "version": 1, "kind": "classifier",
     "class": "TAN", "state": {...}}

A model holds its variables, for each node the states, the dtype, the parents
(in the CPT's axis order) and the CPT (nested lists, ``[parent states..., own
state]``), the edges with their attributes (``weight`` = MI), the graph
attributes (``roots``, ``class``...), ``n_rows`` and the learning settings.

Labels keep their type: strings, integers, floats and booleans are the JSON
values themselves (Python's ``json`` keeps ``1``, ``1.0`` and ``true`` apart),
anything else is a tagged object such as ``{"$float": "nan"}`` or
``{"$timestamp": "2024-01-01T00:00:00"}``. Floats are written with ``repr``
precision, so ``load(save(m)) == m`` exactly.

Loading checks everything a :class:`~treelearn.TreeModel` relies on and raises a
:class:`ModelFileError` subclass that says what is wrong: not JSON or cut short
(:class:`CorruptModelFileError`), not a treelearn file or an unknown version
(:class:`ModelFormatError`), or inconsistent contents such as a CPT of the wrong
shape or a row not summing to 1 (:class:`InvalidModelError`).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
from collections.abc import Hashable
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from .errors import StructureError, TreelearnError
from .model import TreeModel

__all__ = [
    "FORMAT",
    "VERSION",
    "CorruptModelFileError",
    "InvalidModelError",
    "ModelFileError",
    "ModelFormatError",
    "load",
    "model_from_dict",
    "model_to_dict",
    "save",
]

FORMAT = "treelearn"
VERSION = 1
_KINDS = ("tree_model", "classifier")
_SUM_TOLERANCE = 1e-6


class ModelFileError(TreelearnError):
    """A model file that cannot be loaded."""


class CorruptModelFileError(ModelFileError):
    """The file is not valid JSON (for example cut short)."""


class ModelFormatError(ModelFileError):
    """Not a treelearn model file, or a format version or kind this treelearn cannot read."""


class InvalidModelError(ModelFileError):
    """The file parses but its contents are inconsistent (CPT shape or sums, states...)."""


# ---------------------------------------------------------------------- labels
def encode_label(value: Any) -> Any:
    """A state label or variable name as JSON, keeping its type."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, tuple):
        return {"$tuple": [encode_label(v) for v in value]}
    if isinstance(value, pd.Timestamp):
        return {"$timestamp": value.isoformat()}
    if isinstance(value, pd.Timedelta):
        return {"$timedelta": value.isoformat()}
    if isinstance(value, _dt.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, _dt.date):
        return {"$date": value.isoformat()}
    if isinstance(value, pd.Interval):
        return {"$interval": [encode_label(value.left), encode_label(value.right), value.closed]}
    raise TreelearnError(
        f"cannot save the label {value!r} of type {type(value).__name__}: labels must be "
        f"strings, numbers, booleans, dates, intervals or tuples of these"
    )


def decode_label(value: Any) -> Any:
    """Inverse of :func:`encode_label`."""
    if not isinstance(value, dict):
        if isinstance(value, list):
            raise InvalidModelError(f"a label cannot be a list: {value!r}")
        return value
    if len(value) != 1:
        raise InvalidModelError(f"unknown label encoding {value!r}")
    ((tag, payload),) = value.items()
    try:
        if tag == "$float":
            return float(payload)
        if tag == "$tuple":
            return tuple(decode_label(v) for v in payload)
        if tag == "$timestamp":
            return pd.Timestamp(payload)
        if tag == "$timedelta":
            return pd.Timedelta(payload)
        if tag == "$datetime":
            return _dt.datetime.fromisoformat(payload)
        if tag == "$date":
            return _dt.date.fromisoformat(payload)
        if tag == "$interval":
            left, right, closed = payload
            return pd.Interval(decode_label(left), decode_label(right), closed=closed)
    except (TypeError, ValueError) as exc:
        raise InvalidModelError(f"bad label {value!r}: {exc}") from None
    raise InvalidModelError(f"unknown label type {tag!r} in {value!r}")


# ---------------------------------------------------------------------- dtypes
def _encode_dtype(dtype: Any) -> Any:
    if dtype is None:
        return None
    if isinstance(dtype, pd.CategoricalDtype):
        return {
            "category": [encode_label(c) for c in dtype.categories],
            "categories_dtype": str(dtype.categories.dtype),
            "ordered": bool(dtype.ordered),
        }
    return str(dtype)


def _decode_dtype(value: Any, where: str) -> Any:
    if value is None:
        return None
    try:
        if isinstance(value, dict):
            categories = [decode_label(c) for c in value["category"]]
            index = pd.Index(categories, dtype=value.get("categories_dtype"), tupleize_cols=False)
            return pd.CategoricalDtype(index, ordered=bool(value.get("ordered", False)))
        return pd.api.types.pandas_dtype(value)
    except (TypeError, ValueError, KeyError) as exc:
        raise InvalidModelError(f"{where}: unknown dtype {value!r} ({exc})") from None


# ---------------------------------------------------------------------- values
def _json_value(value: Any) -> Any:
    """Settings and attributes: JSON as is, numpy scalars unwrapped, labels tagged."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        return {"$array": [_json_value(v) for v in value.tolist()]}
    if isinstance(value, dict):
        return {"$dict": [[_json_value(k), _json_value(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    return encode_label(value)


def _from_json_value(value: Any) -> Any:
    if isinstance(value, list):
        return [_from_json_value(v) for v in value]
    if isinstance(value, dict) and len(value) == 1:
        ((tag, payload),) = value.items()
        if tag == "$dict":
            return {_from_json_value(k): _from_json_value(v) for k, v in payload}
        if tag == "$array":
            return np.array(_from_json_value(payload))
    return decode_label(value)


def _float_list(array: np.ndarray) -> Any:
    """Nested lists of Python floats (``json`` writes them with round-trip precision)."""
    return np.asarray(array, dtype=float).tolist()


# ---------------------------------------------------------------------- models
def model_to_dict(model: TreeModel) -> dict:
    """The JSON-able content of a :class:`TreeModel` (the ``"model"`` part of a file).

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": [1, 2, 2], "b": [True, False, False]}))
    >>> d = model_to_dict(m)
    >>> d["nodes"][1]["states"], d["nodes"][1]["dtype"]
    ([False, True], 'bool')
    >>> model_from_dict(d) == m
    True
    """
    G = model.graph
    nodes = []
    for v in model.variables:
        attrs = G.nodes[v]
        extra = {
            k: _json_value(x) for k, x in attrs.items() if k not in ("states", "cpt", "parents")
        }
        node = {
            "name": encode_label(v),
            "states": [encode_label(s) for s in attrs["states"]],
            "dtype": _encode_dtype(model.dtypes.get(v)),
            "parents": [encode_label(p) for p in attrs["parents"]],
            "cpt": _float_list(attrs["cpt"]),
        }
        if extra:
            node["attrs"] = extra
        nodes.append(node)
    edges = [
        {
            "source": encode_label(u),
            "target": encode_label(v),
            "attrs": {k: _json_value(x) for k, x in data.items()},
        }
        for u, v, data in G.edges(data=True)
    ]
    return {
        "variables": [encode_label(v) for v in model.variables],
        "nodes": nodes,
        "edges": edges,
        "graph": {k: _json_value(x) for k, x in G.graph.items()},
        "n_rows": None if model.n_rows is None else int(model.n_rows),
        "settings": {k: _json_value(x) for k, x in model.settings.items()},
    }


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


def model_from_dict(d: dict) -> TreeModel:
    """Rebuild a :class:`TreeModel` from :func:`model_to_dict` output, validating it.

    Raises :class:`InvalidModelError` naming the variable and what is wrong.
    """
    if not isinstance(d, dict):
        raise InvalidModelError(f"the model must be a JSON object, not {type(d).__name__}")
    variables = [
        _hashable(decode_label(v), "variables") for v in _require(d, "variables", list, "model")
    ]
    if len(set(variables)) != len(variables):
        raise InvalidModelError(f"the variables {variables} are not distinct")
    raw_nodes = _require(d, "nodes", list, "model")
    G = nx.DiGraph()
    dtypes = {}
    for i, node in enumerate(raw_nodes):
        name = _hashable(
            decode_label(_require(node, "name", (str, int, float, bool, dict), f"node {i}")),
            f"node {i}",
        )
        where = f"variable {name!r}"
        if name not in variables:
            raise InvalidModelError(f"{where} has a node but is not among the variables")
        if name in G:
            raise InvalidModelError(f"{where} has two nodes")
        states = [decode_label(s) for s in _require(node, "states", list, where)]
        if not states:
            raise InvalidModelError(f"{where} has no states")
        try:
            distinct = len(set(map(_state_key, states))) == len(states)
        except TypeError:
            raise InvalidModelError(f"{where}: the states {states} are not all labels") from None
        if not distinct:
            raise InvalidModelError(f"{where}: the states {states} are not distinct")
        parents = [decode_label(p) for p in _require(node, "parents", list, where)]
        raw_cpt = _require(node, "cpt", list, where)
        try:
            cpt = np.array(raw_cpt, dtype=float)
        except (TypeError, ValueError):
            raise InvalidModelError(
                f"{where}: the CPT is not a rectangular array of numbers"
            ) from None
        attrs = {k: _from_json_value(x) for k, x in node.get("attrs", {}).items()}
        G.add_node(name, **attrs, states=states, cpt=cpt, parents=parents)
        dtypes[name] = _decode_dtype(node.get("dtype"), where)
    missing = [v for v in variables if v not in G]
    if missing:
        raise InvalidModelError(f"the variable(s) {missing} have no node (states and CPT)")
    for v in variables:
        where = f"variable {v!r}"
        parents = G.nodes[v]["parents"]
        unknown = [p for p in parents if p not in G]
        if unknown:
            raise InvalidModelError(f"{where}: the parent(s) {unknown} are not variables")
        if len(set(parents)) != len(parents):
            raise InvalidModelError(f"{where}: the parents {parents} repeat")
        cpt = G.nodes[v]["cpt"]
        expected = tuple(len(G.nodes[p]["states"]) for p in parents) + (len(G.nodes[v]["states"]),)
        if cpt.shape != expected:
            raise InvalidModelError(
                f"{where}: the CPT has shape {cpt.shape}, but its parents {parents} and its "
                f"{expected[-1]} states need {expected}"
            )
        if not np.isfinite(cpt).all() or (cpt < 0).any():
            raise InvalidModelError(f"{where}: the CPT has negative or non-finite entries")
        sums = cpt.sum(axis=-1)
        bad = np.abs(sums - 1.0) > _SUM_TOLERANCE
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            raise InvalidModelError(
                f"{where}: CPT row {list(index)} sums to {float(sums[index]):.9g}, not 1"
            )
    for i, edge in enumerate(_require(d, "edges", list, "model")):
        u = decode_label(_require(edge, "source", (str, int, float, bool, dict), f"edge {i}"))
        v = decode_label(_require(edge, "target", (str, int, float, bool, dict), f"edge {i}"))
        if u not in G or v not in G:
            raise InvalidModelError(f"edge {i} ({u!r} -> {v!r}) joins unknown variables")
        if u not in G.nodes[v]["parents"]:
            raise InvalidModelError(f"edge {u!r} -> {v!r} is not in {v!r}'s parents")
        G.add_edge(u, v, **{k: _from_json_value(x) for k, x in edge.get("attrs", {}).items()})
    for v in variables:
        for p in G.nodes[v]["parents"]:
            if not G.has_edge(p, v):
                raise InvalidModelError(f"variable {v!r} has the parent {p!r} but no edge from it")
    graph_attrs = d.get("graph", {})
    if not isinstance(graph_attrs, dict):
        raise InvalidModelError("model: 'graph' must be an object")
    G.graph.update({k: _from_json_value(x) for k, x in graph_attrs.items()})
    n_rows = d.get("n_rows")
    if n_rows is not None and (
        not isinstance(n_rows, int) or isinstance(n_rows, bool) or n_rows < 0
    ):
        raise InvalidModelError(
            f"model: n_rows must be a non-negative integer or null, not {n_rows!r}"
        )
    settings = d.get("settings", {})
    if not isinstance(settings, dict):
        raise InvalidModelError("model: 'settings' must be an object")
    try:
        return TreeModel(
            G,
            variables=variables,
            dtypes={v: t for v, t in dtypes.items() if t is not None},
            n_rows=n_rows,
            settings={k: _from_json_value(x) for k, x in settings.items()},
        )
    except StructureError as exc:
        raise InvalidModelError(str(exc)) from None


def _state_key(s: Any) -> tuple:
    # 1, 1.0 and True are equal in Python; as states they are distinct
    return (type(s).__name__, s)


# ---------------------------------------------------------------------- files
def to_document(obj: Any) -> dict:
    """The whole file's content for a model or a classifier."""
    head = {"format": FORMAT, "version": VERSION}
    if isinstance(obj, TreeModel):
        return {**head, "kind": "tree_model", "model": model_to_dict(obj)}
    if hasattr(obj, "_state_dict"):
        return {
            **head,
            "kind": "classifier",
            "class": type(obj).__name__,
            "state": obj._state_dict(),
        }
    raise TypeError(
        f"can only save a TreeModel or a treelearn classifier, not {type(obj).__name__}"
    )


def from_document(doc: Any) -> Any:
    """Validate a parsed file and rebuild what it holds."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelFormatError('not a treelearn model file (no "format": "treelearn" field)')
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version != VERSION:
        raise ModelFormatError(
            f"model file format version {version!r} is not supported: this treelearn reads "
            f"version {VERSION}; upgrade treelearn or re-save the model"
        )
    kind = doc.get("kind")
    if kind not in _KINDS:
        raise ModelFormatError(f"unknown model kind {kind!r}; expected one of {list(_KINDS)}")
    if kind == "tree_model":
        return model_from_dict(doc.get("model"))
    from . import classify

    name = doc.get("class")
    cls = (
        getattr(classify, name, None)
        if isinstance(name, str) and not name.startswith("_")
        else None
    )
    if cls is None or not hasattr(cls, "_from_state_dict"):
        raise ModelFormatError(f"unknown classifier class {name!r} in the model file")
    state = doc.get("state")
    if not isinstance(state, dict):
        raise InvalidModelError("classifier file: 'state' must be an object")
    try:
        return cls._from_state_dict(state)
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise InvalidModelError(f"classifier {name}: bad saved state ({exc})") from None


def dumps(obj: Any) -> str:
    """The JSON text :func:`save` writes."""
    return json.dumps(to_document(obj), allow_nan=False, ensure_ascii=False)


def loads(text: str) -> Any:
    """Inverse of :func:`dumps`."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
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
    return from_document(doc)


def save(obj: Any, path: str | os.PathLike) -> None:
    """Save a :class:`TreeModel` or a classifier to ``path`` as versioned JSON.

    Examples
    --------
    >>> import os, tempfile, pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.read_csv("datasets/asia.csv"))
    >>> path = os.path.join(tempfile.mkdtemp(), "asia.json")
    >>> tl.save(m, path)
    >>> tl.load(path) == m
    True
    """
    text = dumps(obj)
    path = os.fspath(path)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:  # write then rename: never a half-written file
        f.write(text)
    os.replace(tmp, path)


def load(path: str | os.PathLike) -> Any:
    """Load a model or classifier written by :func:`save`, validating it.

    Raises
    ------
    FileNotFoundError : no such file.
    CorruptModelFileError : not JSON (e.g. truncated).
    ModelFormatError : not a treelearn file, or an unsupported version or kind.
    InvalidModelError : the contents are inconsistent (the message says where).
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such model file: {path!r}")
    with open(path, encoding="utf-8-sig") as f:  # -sig: a file re-saved by an editor with a BOM
        try:
            text = f.read()
        except UnicodeDecodeError:
            raise CorruptModelFileError(f"{path!r} is not a text (JSON) file") from None
    try:
        return loads(text)
    except ModelFileError as exc:
        raise type(exc)(f"{path}: {exc}") from None
