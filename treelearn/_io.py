"""Load models and classifiers, and build models from outside: JSON files, pgmpy, BIF.

:func:`save` writes a :class:`~treelearn.TreeModel` or a fitted classifier as
versioned JSON (the format is described in :mod:`treelearn.export._jsonfile`; labels
keep their types through :mod:`treelearn._base.jsonvalues`), and :func:`load` reads
it back exactly: ``load(save(m)) == m``.

Loading checks everything a :class:`~treelearn.TreeModel` relies on and raises a
:class:`ModelFileError` subclass that says what is wrong: not JSON or cut short
(:class:`CorruptModelFileError`), not a treelearn file or an unknown version
(:class:`ModelFormatError`), or inconsistent contents such as a CPT of the wrong
shape or a row not summing to 1 (:class:`InvalidModelError`).

This is the top of the model layers: it imports :mod:`treelearn.models._tree` and
:mod:`treelearn.classifiers._classify` (to dispatch on what a file holds), and neither imports it.
"""

from __future__ import annotations

import os
from typing import Any

import networkx as nx

from ._base.errors import (
    InputTypeError,
    InvalidModelError,
    ModelFileError,
    ModelFormatError,
    TreelearnError,
)
from ._base.jsonvalues import DecodeError, EncodeError
from ._base.jsonvalues import decode_label as decode_json_label
from ._base.jsonvalues import encode_label as encode_json_label
from .classifiers._classify import TAN, ChowLiuMultinet, NaiveBayes
from .classifiers._seminaive import AODE, KDB
from .export._jsonfile import (
    check_document,
    document,
    dumps_document,
    parse_document,
    read_text,
    write_text_atomic,
)
from .export._pgmpy import graph_from_bif, graph_from_pgmpy
from .learners._mixture import TreeMixture
from .models._gaussian import GaussianTreeModel
from .models._tree import TreeModel

__all__ = [
    "decode_label",
    "dumps",
    "encode_label",
    "from_document",
    "from_pgmpy",
    "load",
    "loads",
    "model_from_dict",
    "model_to_dict",
    "read_bif",
    "save",
    "to_document",
]

# the classes a file may name; a file names a class, so this is what load can build
_CLASSIFIERS = {cls.__name__: cls for cls in (NaiveBayes, TAN, ChowLiuMultinet, KDB, AODE,
                                                TreeMixture)}


# ---------------------------------------------------------------------- labels
def encode_label(value: Any) -> Any:
    """A state label or variable name as JSON, keeping its type (:mod:`treelearn._base.jsonvalues`).

    Raises :class:`~treelearn.TreelearnError` for a label that has no encoding.

    Examples
    --------
    >>> encode_label(("a", float("nan")))
    {'$tuple': ['a', {'$float': 'nan'}]}
    """
    try:
        return encode_json_label(value)
    except EncodeError as exc:
        raise TreelearnError(str(exc)) from None


def decode_label(value: Any) -> Any:
    """Inverse of :func:`encode_label`; raises :class:`InvalidModelError` for anything else.

    Examples
    --------
    >>> decode_label({"$tuple": ["a", {"$float": "nan"}]})
    ('a', nan)
    """
    try:
        return decode_json_label(value)
    except DecodeError as exc:
        raise InvalidModelError(str(exc)) from None


# ---------------------------------------------------------------------- models
def model_to_dict(model: TreeModel) -> dict:
    """The JSON-able content of a :class:`TreeModel`: :meth:`TreeModel.to_dict`.

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
    return model.to_dict()


def model_from_dict(d: dict) -> TreeModel:
    """Rebuild a :class:`TreeModel` from :func:`model_to_dict` output: :meth:`TreeModel.from_dict`.

    Raises :class:`InvalidModelError` naming the variable and what is wrong.
    """
    return TreeModel.from_dict(d)


# ---------------------------------------------------------------------- pgmpy, BIF
def from_pgmpy(network: Any) -> TreeModel | GaussianTreeModel:
    """A :class:`TreeModel` from a pgmpy discrete Bayesian network with tabular CPDs.

    A ``LinearGaussianBayesianNetwork`` (at most one parent each) gives a
    :class:`~treelearn.GaussianTreeModel`.

    Every state label and every CPT entry is kept; parent order follows each CPD's
    evidence order (see :func:`treelearn.export._pgmpy.graph_from_pgmpy`).

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]}))
    >>> tl.from_pgmpy(m.to_pgmpy()) == m
    True
    """
    if type(network).__name__ == "LinearGaussianBayesianNetwork":
        return GaussianTreeModel.from_pgmpy(network)
    return _model_from_graph(graph_from_pgmpy(network))


def read_bif(path: str | os.PathLike) -> TreeModel:
    """Read a BIF file with pgmpy's ``BIFReader`` (state labels come back as strings).

    Examples
    --------
    >>> import os, tempfile, pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": ["u", "v", "v"]}))
    >>> path = os.path.join(tempfile.mkdtemp(), "m.bif")
    >>> m.to_bif(path)
    >>> tl.read_bif(path).states == m.states
    True
    """
    return _model_from_graph(graph_from_bif(path))


def _model_from_graph(G: nx.DiGraph) -> TreeModel:
    return TreeModel(G, variables=list(G.nodes), settings={"method": "pgmpy"})


# ---------------------------------------------------------------------- files
def to_document(obj: Any) -> dict:
    """The whole file's content for a model or a classifier."""
    if isinstance(obj, TreeModel):
        return document("tree_model", model=obj.to_dict())
    if isinstance(obj, GaussianTreeModel):
        return document("gaussian_tree", model=obj.to_dict())
    if isinstance(obj, tuple(_CLASSIFIERS.values())):
        return document("classifier", **{"class": type(obj).__name__, "state": obj.to_dict()})
    raise InputTypeError(
        f"can only save a TreeModel or a treelearn classifier, not {type(obj).__name__}"
    )


def from_document(doc: Any) -> Any:
    """Validate a parsed file and rebuild what it holds.

    Whatever a hand-edited or hostile file holds, the error is a
    :class:`~treelearn.ModelFileError`: the checks name what is wrong, and anything
    they miss that a library raises while rebuilding is reported as an
    :class:`~treelearn.InvalidModelError` too.
    """
    try:
        return _from_document(doc)
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError,
            RecursionError) as exc:
        raise InvalidModelError(f"the model file is inconsistent ({type(exc).__name__}: "
                                f"{str(exc)[:200]})") from None


def _from_document(doc: Any) -> Any:
    kind = check_document(doc)
    if kind == "tree_model":
        return TreeModel.from_dict(doc.get("model"))
    if kind == "gaussian_tree":
        return GaussianTreeModel.from_dict(doc.get("model"))
    name = doc.get("class")
    cls = _CLASSIFIERS.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ModelFormatError(f"unknown classifier class {name!r} in the model file")
    state = doc.get("state")
    if not isinstance(state, dict):
        raise InvalidModelError("classifier file: 'state' must be an object")
    try:
        return cls.from_dict(state)
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise InvalidModelError(f"classifier {name}: bad saved state ({exc})") from None


def dumps(obj: Any) -> str:
    """The JSON text :func:`save` writes."""
    return dumps_document(to_document(obj))


def loads(text: str) -> Any:
    """Inverse of :func:`dumps`."""
    return from_document(parse_document(text))


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
    write_text_atomic(path, dumps(obj))


def load(path: str | os.PathLike) -> Any:
    """Load a model or classifier written by :func:`save`, validating it.

    Raises
    ------
    FileNotFoundError : no such file.
    CorruptModelFileError : not JSON (e.g. truncated).
    ModelFormatError : not a treelearn file, or an unsupported version or kind.
    InvalidModelError : the contents are inconsistent (the message says where).
    """
    text = read_text(path)
    try:
        return loads(text)
    except ModelFileError as exc:
        raise type(exc)(f"{os.fspath(path)}: {exc}") from None
