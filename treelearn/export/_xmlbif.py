"""XMLBIF files (the XML Bayesian Interchange Format, version 0.3): write a model, read one
back into a checked graph.

A ``<VARIABLE>`` per variable (its ``<NAME>`` and ``<OUTCOME>`` s), a ``<DEFINITION>`` per
CPT (``<FOR>`` the variable, ``<GIVEN>`` each parent in the CPT's axis order, ``<TABLE>``
the probabilities with the variable's own state changing fastest: treelearn's
``[parent states..., own state]`` in C order, read by pgmpy's ``XMLBIFReader`` and
pyAgrum as they are). Names and states are text in XML; the writer adds one
``<PROPERTY>treelearn_labels = {...}</PROPERTY>`` per variable holding its name and
states as JSON values (:mod:`treelearn._base.jsonvalues`), which other readers ignore
and :func:`graph_from_xmlbif` uses to give every label its type back (a file without
it: text labels). Probabilities are written with ``repr`` (17 significant digits):
they read back exactly.

This module reads models duck-typed; building a :class:`~treelearn.TreeModel` from a
file is :func:`treelearn.read_xmlbif`'s (:mod:`treelearn._io`).
"""

from __future__ import annotations

import json
import math
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Hashable
from typing import TYPE_CHECKING

import networkx as nx
import numpy as np

from .._base.errors import InvalidModelError, ModelFormatError, StructureError, TreelearnError
from .._base.jsonvalues import DecodeError, decode_label, encode_label
from .._base.validation import own_export
from ..stats._parameters import check_cpt
from ._textfile import path_or_text, write_text_atomic

if TYPE_CHECKING:
    from ..models._tree import TreeModel

__all__ = ["graph_from_xmlbif", "write_xmlbif", "xmlbif_text"]

_PROPERTY = "treelearn_labels"


#: characters XML 1.0 cannot hold (control characters but tab, newline, return; surrogates)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(label: object) -> str:
    """A label as XML text: each character XML 1.0 cannot hold becomes U+FFFD, and line
    ends are ``"\\n"`` as every XML parser reads them back (``"\\r\\n"`` and ``"\\r"``
    normalised; the label itself is kept exactly in the treelearn property)."""
    text = str(label).replace("\r\n", "\n").replace("\r", "\n")
    return _NOT_XML.sub("\ufffd", text)


def _text_names(labels: list, what: str) -> list:
    """The labels as XMLBIF text, checked to read back distinct: readers strip the
    white space around an element's text, so ``" a "`` reads as ``"a"``."""
    texts = [_xml_text(x) for x in labels]
    read = [t.strip() for t in texts]
    if "" in read:
        raise TreelearnError(
            f"one of the {what} is blank ({texts[read.index('')]!r}); XMLBIF readers strip the "
            f"white space around names and states: rename it before writing"
        )
    if len(set(read)) != len(read):
        clash = next(t for t in read if read.count(t) > 1)
        raise TreelearnError(
            f"two {what} read {clash!r} as text (white space around them stripped); XMLBIF "
            f"holds names and states as text: rename one of them before writing"
        )
    return texts


def xmlbif_text(model: TreeModel, name: str = "treelearn") -> str:
    """The model as XMLBIF text.

    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]}), alpha=0)
    >>> "<FOR>b</FOR>" in xmlbif_text(m)
    True
    """
    names = _text_names(list(model.variables), "variable names")
    text_of = dict(zip(model.variables, names))
    root = ET.Element("BIF", VERSION="0.3")
    network = ET.SubElement(root, "NETWORK")
    ET.SubElement(network, "NAME").text = str(name)
    states = model.states
    for v in model.variables:
        var = ET.SubElement(network, "VARIABLE", TYPE="nature")
        ET.SubElement(var, "NAME").text = text_of[v]
        for s in _text_names(list(states[v]), f"states of {v!r}"):
            ET.SubElement(var, "OUTCOME").text = s
        labels = {"name": encode_label(v), "states": [encode_label(s) for s in states[v]]}
        ET.SubElement(var, "PROPERTY").text = f"{_PROPERTY} = {json.dumps(labels)}"
    for v in model.variables:
        definition = ET.SubElement(network, "DEFINITION")
        ET.SubElement(definition, "FOR").text = text_of[v]
        for p in model.parents(v):
            ET.SubElement(definition, "GIVEN").text = text_of[p]
        ET.SubElement(definition, "TABLE").text = " ".join(
            repr(float(x)) for x in np.asarray(model.cpt(v), dtype=float).ravel()
        )
    ET.indent(root)
    return "<?xml version='1.0' encoding='utf-8'?>\n" + ET.tostring(root, encoding="unicode") + "\n"


def write_xmlbif(model: TreeModel, path: str | os.PathLike, name: str = "treelearn") -> None:
    """Write ``model`` to an XMLBIF file (atomically: never a half-written file).

    Parameters
    ----------
    model : TreeModel or fitted classifier
        A discrete network.
    path : str or os.PathLike
        Where to write.
    name : str, default="treelearn"
        The network's ``<NAME>``.

    Raises
    ------
    InputTypeError
        ``model`` is not a discrete network.

    See Also
    --------
    read_xmlbif : reads it back.
    write_bif, write_uai : the other exchange formats.

    Examples
    --------
    >>> import os, tempfile, pandas as pd, treelearn as tl
    >>> model = tl.chow_liu(pd.read_csv("datasets/asia.csv"))
    >>> path = os.path.join(tempfile.mkdtemp(), "asia.xml")
    >>> tl.write_xmlbif(model, path, name="asia")
    >>> "<NAME>asia</NAME>" in open(path).read()
    True
    >>> tl.read_xmlbif(path) == model
    True
    """
    own = own_export(model, "write_xmlbif", "bif", "to_xmlbif")
    if own is not None:  # a fitted classifier writes its network
        own(path, name)
        return
    write_text_atomic(path, xmlbif_text(model, name))


def _labels(var: ET.Element, name: str, outcomes: list) -> tuple[Hashable, list]:
    """The variable's name and states with their types (the treelearn property), else text."""
    for prop in var.findall("PROPERTY"):
        text = (prop.text or "").strip()
        if not text.startswith(_PROPERTY):
            continue
        try:
            data = json.loads(text.split("=", 1)[1])
            label = decode_label(data["name"])
            states = [decode_label(s) for s in data["states"]]
        except (ValueError, KeyError, TypeError, IndexError, DecodeError):
            raise InvalidModelError(
                f"variable {name!r}: its {_PROPERTY} property is not valid JSON labels"
            ) from None
        if [_xml_text(s).strip() for s in states] != outcomes or _xml_text(label).strip() != name:
            raise InvalidModelError(
                f"variable {name!r}: its {_PROPERTY} property does not match its NAME and OUTCOMEs"
            )
        return label, states
    return name, outcomes


def graph_from_xmlbif(
    path: str | os.PathLike | None = None, *, text: str | None = None
) -> nx.DiGraph:
    """The checked graph of an XMLBIF file (``path``) or of its content (``text=``):
    nodes with ``states``, ``parents`` (the ``GIVEN`` order) and ``cpt``
    (:func:`~treelearn.stats._parameters.check_cpt`).

    Raises :class:`~treelearn.ModelFormatError` for a file that is not XMLBIF and
    :class:`~treelearn.InvalidModelError` naming the variable for inconsistent contents.

    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]}), alpha=0)
    >>> G = graph_from_xmlbif(text=xmlbif_text(m))
    >>> G.nodes["b"]["states"], G.nodes["b"]["cpt"].tolist() == m.cpt("b").tolist()
    ([0, 1], True)
    """
    text = path_or_text(path, text, "XMLBIF file")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ModelFormatError(f"not an XMLBIF file: the XML does not parse ({exc})") from None
    network = root.find("NETWORK") if root.tag == "BIF" else None
    if network is None:
        raise ModelFormatError("not an XMLBIF file: no <BIF><NETWORK> element")
    G = nx.DiGraph()
    by_text: dict = {}
    for var in network.findall("VARIABLE"):
        name = (var.findtext("NAME") or "").strip()
        outcomes = [(o.text or "").strip() for o in var.findall("OUTCOME")]
        if not name or not outcomes:
            raise InvalidModelError(f"an XMLBIF variable {name!r} has no NAME or no OUTCOME")
        if name in by_text:
            raise InvalidModelError(f"the XMLBIF file names the variable {name!r} twice")
        if len(set(outcomes)) != len(outcomes):
            twice = next(o for o in outcomes if outcomes.count(o) > 1)
            raise InvalidModelError(
                f"variable {name!r}: the OUTCOME {twice!r} is listed twice; give each state once"
            )
        label, states = _labels(var, name, outcomes)
        by_text[name] = label
        G.add_node(label, states=states)
    if not by_text:
        raise InvalidModelError("the XMLBIF file has no VARIABLE: a model needs at least one")
    defined: set = set()
    for definition in network.findall("DEFINITION"):
        child = (definition.findtext("FOR") or "").strip()
        if child not in by_text:
            raise InvalidModelError(f"a DEFINITION is FOR {child!r}, which is no VARIABLE")
        if child in defined:
            raise InvalidModelError(f"variable {child!r} has two DEFINITIONs")
        defined.add(child)
        given = [(g.text or "").strip() for g in definition.findall("GIVEN")]
        absent = [g for g in given if g not in by_text]
        if absent:
            raise InvalidModelError(
                f"variable {child!r} is GIVEN {absent[0]!r}, which is no VARIABLE"
            )
        v, parents = by_text[child], [by_text[g] for g in given]
        shape = [len(G.nodes[p]["states"]) for p in parents] + [len(G.nodes[v]["states"])]
        try:
            values = np.array([float(x) for x in (definition.findtext("TABLE") or "").split()])
        except ValueError:
            raise InvalidModelError(
                f"variable {child!r}: its TABLE holds something that is not a number"
            ) from None
        if values.size != math.prod(shape):
            raise InvalidModelError(
                f"variable {child!r}: its TABLE has {values.size} numbers, "
                f"its states and parents need {math.prod(shape)}"
            )
        G.add_node(v, parents=parents, cpt=_checked_cpt(v, values.reshape(shape), shape))
        G.add_edges_from((p, v) for p in parents)
    missing = [t for t in by_text if t not in defined]
    if missing:
        raise InvalidModelError(f"variable {missing[0]!r} has no DEFINITION (no CPT)")
    G.graph["roots"] = [v for v in G.nodes if G.in_degree(v) == 0]
    return G


def _checked_cpt(variable: Hashable, table: np.ndarray, shape: list) -> np.ndarray:
    """:func:`~treelearn.stats._parameters.check_cpt`, its error the file's fault."""
    try:
        return check_cpt(variable, table, shape)
    except StructureError as exc:
        raise InvalidModelError(str(exc)) from None
