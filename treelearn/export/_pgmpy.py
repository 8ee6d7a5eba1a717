"""pgmpy networks and BIF files: the model to pgmpy, and pgmpy to a checked graph.

pgmpy's CPD layout (node state x flattened parent states, first parent slowest)
appears only here; inside treelearn a CPT is ``[parent states..., own state]``.

This module reads models duck-typed (``variables``, ``states``, ``parents(v)``,
``cpt(v)``) and never imports :mod:`treelearn.models._tree`; building a
:class:`~treelearn.TreeModel` from pgmpy or BIF (:func:`treelearn.from_pgmpy`,
:func:`treelearn.read_bif`) is :mod:`treelearn._io`'s, on top of
:func:`graph_from_pgmpy` and :func:`graph_from_bif`.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from .._base.errors import InputTypeError, InvalidModelError, StructureError, TreelearnError
from .._base.jsonvalues import DecodeError, decode_label, encode_label
from .._base.limits import check_memory, check_states
from .._base.validation import own_export
from ..stats._parameters import check_cpt
from ._textfile import path_or_text, write_text_atomic

if TYPE_CHECKING:
    from ..models._tree import TreeModel

__all__ = ["bif_text", "check_bif", "graph_from_bif", "graph_from_pgmpy", "to_pgmpy", "write_bif"]


def to_pgmpy(model: TreeModel | Any) -> Any:
    """``DiscreteBayesianNetwork`` with one ``TabularCPD`` per variable, state names included.

    Parameters
    ----------
    model : TreeModel or fitted classifier
        A discrete network: ``tl.chow_liu(df)``, a model read from a file, or a fitted
        counting classifier (its network, the class a variable).

    Returns
    -------
    pgmpy.models.DiscreteBayesianNetwork
        The same network and CPTs; ``check_model()`` passes.

    Raises
    ------
    CapabilityError
        ``model`` is a kind with no pgmpy network (a mixture, an AODE...): it names what
        the kind answers. A Gaussian tree gives its ``LinearGaussianBayesianNetwork``.
    InputTypeError
        ``model`` is no model at all.

    See Also
    --------
    from_pgmpy : the way back.
    to_pyagrum : the same for pyAgrum.
    write_bif : a BIF file, which pgmpy, bnlearn and pyAgrum read.

    References
    ----------
    .. [1] Ankan, A. and Textor, J. (2024). pgmpy: a Python toolkit for Bayesian
       networks. Journal of Machine Learning Research 25(265), 1-8.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> bn = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]})).to_pgmpy()
    >>> bn.check_model()
    True
    """
    own = own_export(model, "to_pgmpy", "to_pgmpy", "to_pgmpy")
    if own is not None:  # a fitted classifier's network, or another kind's own export
        return own()
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    bn = DiscreteBayesianNetwork()
    bn.add_nodes_from(model.variables)
    bn.add_edges_from((p, v) for v in model.variables for p in model.parents(v))
    states = model.states
    cpds = []
    for v in model.variables:
        parents = model.parents(v)
        cpt = model.cpt(v)
        values = np.moveaxis(cpt, -1, 0).reshape(cpt.shape[-1], -1)
        cpds.append(
            TabularCPD(
                variable=v,
                variable_card=cpt.shape[-1],
                values=values,
                evidence=parents or None,
                evidence_card=[len(states[p]) for p in parents] or None,
                state_names={u: list(states[u]) for u in [v, *parents]},
            )
        )
    bn.add_cpds(*cpds)
    return bn


def graph_from_pgmpy(network: Any) -> nx.DiGraph:
    """The graph of a pgmpy discrete Bayesian network with tabular CPDs, checked.

    Nodes carry ``states`` (the CPD's state names), ``parents`` (the CPD's
    evidence order) and ``cpt`` (``[parent states..., own state]``, checked by
    :func:`~treelearn.stats._parameters.check_cpt`); ``graph.graph["roots"]`` lists the
    nodes without parents. Every state label and every CPT entry is kept. Raises
    :class:`~treelearn.StructureError` naming the variable that is wrong.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> bn = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}), root="a",
    ...                  alpha=0).to_pgmpy()
    >>> G = graph_from_pgmpy(bn)
    >>> G.nodes["b"]["parents"], G.nodes["b"]["cpt"].tolist(), G.graph["roots"]
    (['a'], [[1.0, 0.0], [0.5, 0.5]], ['a'])
    """
    if not hasattr(network, "get_cpds") or not hasattr(network, "nodes"):
        raise InputTypeError(
            f"expected a pgmpy DiscreteBayesianNetwork, got {type(network).__name__}"
        )
    G = nx.DiGraph()
    nodes = list(network.nodes())
    G.add_nodes_from(nodes)
    for node in nodes:
        cpd = network.get_cpds(node)
        if cpd is None:
            raise StructureError(f"the pgmpy network has no CPD for {node!r}")
        scope = list(cpd.variables)
        values = np.asarray(cpd.values, dtype=float).reshape(
            [cpd.cardinality[i] for i in range(len(scope))]
        )
        parents = scope[1:]
        G.add_node(
            node,
            states=list(cpd.state_names[node]),
            cpt=np.moveaxis(values, 0, -1),
            parents=parents,
        )
        G.add_edges_from((p, node) for p in parents)
    # a child's CPD may list a parent's states in another order than the parent's own
    # CPD (pgmpy's check_model rejects it, add_cpds does not): align the axes by label
    for node in nodes:
        cpd = network.get_cpds(node)
        cpt = G.nodes[node]["cpt"]
        for axis, p in enumerate(G.nodes[node]["parents"]):
            own, listed = list(G.nodes[p]["states"]), list(cpd.state_names[p])
            if listed == own:
                continue
            if sorted(map(repr, listed)) != sorted(map(repr, own)) or len(
                set(map(repr, own))
            ) != len(own):
                raise StructureError(
                    f"the CPD of {node!r} lists the states of its parent {p!r} as {listed}, but "
                    f"{p!r}'s own CPD has {own}; make them the same (pgmpy's check_model() says so too)"
                )
            order = [listed.index(s) for s in own]
            cpt = np.take(cpt, order, axis=axis)
        shape = [len(G.nodes[p]["states"]) for p in G.nodes[node]["parents"]]
        G.nodes[node]["cpt"] = check_cpt(node, cpt, [*shape, len(G.nodes[node]["states"])])
    roots = [v for v in nodes if G.in_degree(v) == 0]
    G.graph["roots"] = roots
    return G


_PROPERTY = "treelearn_labels"
#: what a BIF word may hold (pgmpy's reader and the classic BIF grammar agree on these)
_WORD = re.compile(r"[A-Za-z0-9_.\-]+")
#: pgmpy's reader: comments outside quoted strings, blocks, declarations, headers
_COMMENT = re.compile(r'("[^"\\]*(?:\\.[^"\\]*)*")|(/\*.*?\*/|//[^\n]*)', re.DOTALL)
_BLOCK = re.compile(r"(variable|probability).*?\}\n", re.DOTALL)
_VARIABLE = re.compile(r"variable\s+([^{]+?)\s*\{")
_DECLARATION = re.compile(r"type\s+\w+\s*\[\s*(\d+)\s*\]\s*\{([^}]*)\}\s*;")
_LABELS = re.compile(rf"property\s+{_PROPERTY}\s*=\s*([^;]*);")
_HEADER = re.compile(r"probability\s*\(\s*(.+?)(?:\s*\|\s*(.+?))?\s*\)")


def _words(labels: list) -> list[str]:
    """Each label as a distinct BIF word (letters, digits, ``_``, ``.``, ``-``): any other
    run of characters becomes ``_``, and a word already taken (compared ignoring case, as
    pgmpy matches names) gets ``_2``, ``_3``... appended."""
    taken: set = set()
    words = []
    for label in labels:
        base = re.sub(r"[^A-Za-z0-9_.\-]+", "_", str(label)) or "_"
        word, k = base, 1
        while word.lower() in taken:
            k += 1
            word = f"{base}_{k}"
        taken.add(word.lower())
        words.append(word)
    return words


def _labels_property(name: Any, states: list) -> str:
    """The labels as JSON on one line that BIF readers pass over: no ``;`` (it ends a
    property), no ``//`` or ``/*`` (comments) and no newline, each escaped as JSON allows."""
    text = json.dumps({"name": encode_label(name), "states": [encode_label(s) for s in states]})
    return text.replace(";", "\\u003b").replace("/", "\\/")


def bif_text(model: TreeModel) -> str:
    """The model as BIF text: names and states as BIF words (see :func:`_words`), each
    variable's exact labels in a ``property treelearn_labels = {...} ;`` line that
    :func:`graph_from_bif` reads back (other readers ignore properties), and each CPT as
    pgmpy's ``BIFWriter`` writes it.

    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a b": ["(0, 1]", "(1, 2]", "(1, 2]"]}))
    >>> print(bif_text(m).split("variable ")[1].split("property")[0].strip())
    a_b {
        type discrete [ 2 ] { _0_1_, _1_2_ };
    """
    from pgmpy.readwrite import BIFWriter

    names = _words(list(model.variables))
    word_of = dict(zip(model.variables, names))
    states = model.states
    state_words = {v: _words(list(states[v])) for v in model.variables}
    renamed = _Renamed(model, word_of, state_words)
    text = str(BIFWriter(to_pgmpy(renamed)))
    for v in model.variables:  # the labels, after the variable's declaration
        declaration = re.compile(
            rf"(variable {re.escape(word_of[v])} \{{\n(\s*)type discrete[^\n]*\n)"
        )
        line = f"property {_PROPERTY} = {_labels_property(v, list(states[v]))} ;"
        text, found = declaration.subn(_after_declaration(line), text, count=1)
        if found != 1:  # pragma: no cover - pgmpy's layout changed
            raise TreelearnError(f"cannot place the labels of {v!r} in pgmpy's BIF text")
    return text


def _after_declaration(line: str) -> Any:
    """A ``re.sub`` replacement: the matched declaration, then ``line`` at its indent."""

    def insert(found: re.Match) -> str:
        return found.group(1) + found.group(2) + line + "\n"

    return insert


class _Renamed:
    """A model's variables, states and CPTs under BIF words (what :func:`to_pgmpy` reads)."""

    def __init__(self, model: TreeModel, word_of: dict, state_words: dict) -> None:
        self.variables = [word_of[v] for v in model.variables]
        self.states = {word_of[v]: state_words[v] for v in model.variables}
        self._parents = {
            word_of[v]: [word_of[p] for p in model.parents(v)] for v in model.variables
        }
        self._cpts = {word_of[v]: model.cpt(v) for v in model.variables}

    def parents(self, v: str) -> list:
        return self._parents[v]

    def cpt(self, v: str) -> np.ndarray:
        return self._cpts[v]


def write_bif(model: TreeModel, path: str | os.PathLike) -> None:
    """Write ``model`` to a BIF file (atomically): every name and state is written, made a
    BIF word, its exact label kept for :func:`treelearn.read_bif`.

    Parameters
    ----------
    model : TreeModel or fitted classifier
        A discrete network.
    path : str or os.PathLike
        Where to write (a temporary file renamed over it: never half a file).

    Raises
    ------
    InputTypeError
        ``model`` is not a discrete network.

    See Also
    --------
    read_bif : reads it back.
    write_xmlbif, write_uai : the other exchange formats.

    Examples
    --------
    >>> import os, tempfile, pandas as pd, treelearn as tl
    >>> model = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": ["u", "v", "v"]}))
    >>> path = os.path.join(tempfile.mkdtemp(), "m.bif")
    >>> tl.write_bif(model, path)
    >>> open(path).read().startswith("network")
    True
    >>> tl.read_bif(path) == model
    True
    """
    own = own_export(model, "write_bif", "bif", "to_bif")
    if own is not None:  # a fitted classifier writes its network
        own(path)
        return
    write_text_atomic(path, bif_text(model))


def _bif_labels(body: str, word: str) -> tuple[Any, list] | None:
    """The labels of a treelearn property in a variable block, or None."""
    found = _LABELS.search(body)
    if found is None:
        return None
    try:
        data = json.loads(found.group(1))
        return decode_label(data["name"]), [decode_label(x) for x in data["states"]]
    except (ValueError, KeyError, TypeError, IndexError, DecodeError):
        raise InvalidModelError(
            f"variable {word!r}: its {_PROPERTY} property is not valid JSON labels"
        ) from None


def check_bif(text: str, what: str = "the BIF file") -> dict:
    """Check a BIF text before pgmpy parses it, as pgmpy will split it: at least one
    variable, each declared once (ignoring case, as pgmpy matches names) with its states
    listed once each and as many as its ``[n]`` declares, at most
    :data:`treelearn.limits.BIF_STATES_LIMIT` of them, and every CPT within
    :data:`treelearn.limits.MEMORY_LIMIT`. Returns the variables in file order
    (``"order"``) and ``{word: (label, states, listed)}`` from the treelearn properties
    found (``"labels"``).

    >>> check_bif("variable a { type discrete [ 3 ] { x, y }; }" + chr(10))
    Traceback (most recent call last):
    ...
    treelearn.InvalidModelError: the BIF file: variable 'a' declares 3 states ([ 3 ]) but lists 2: ['x', 'y']
    """
    text = _COMMENT.sub(lambda m: m.group(1) or "", text)
    sizes: dict = {}
    seen: dict = {}
    labels: dict = {}
    order: list = []
    headers = []
    for block in _BLOCK.finditer(text):
        body = block.group(0)
        if body.startswith("probability"):
            headers.append(body.split("\n")[0])
            continue
        named = _VARIABLE.match(body)
        word = named.group(1).strip() if named else body[:40]
        if word.lower() in seen:
            raise InvalidModelError(f"{what}: the variable {word!r} is declared twice")
        seen[word.lower()] = word
        declared = _DECLARATION.search(body)
        if named is None or declared is None:
            raise InvalidModelError(
                f"{what}: the variable block {word!r} has no 'type discrete [ n ] {{ states }};'"
            )
        raw = declared.group(2)
        listed = [x.strip() for x in raw.split(",") if x.strip()] if "," in raw else raw.split()
        check_states(len(listed), word, what)
        n = int(declared.group(1))
        if n != len(listed):
            raise InvalidModelError(
                f"{what}: variable {word!r} declares {n} states ([ {n} ]) but lists "
                f"{len(listed)}: {listed[:10]}"
            )
        if len(set(listed)) != n:
            twice = next(x for x in listed if listed.count(x) > 1)
            raise InvalidModelError(
                f"{what}: variable {word!r} lists the state {twice!r} twice; give each state once"
            )
        sizes[word.lower()] = n
        order.append(word)
        found = _bif_labels(body, word)
        if found is not None:
            if len(found[1]) != n:
                raise InvalidModelError(
                    f"{what}: variable {word!r}: its {_PROPERTY} property does not match its states"
                )
            labels[word] = (found[0], found[1], listed)
    if not sizes:
        raise InvalidModelError(
            f"{what} declares no variable ('variable name {{ type discrete [ n ] {{ ... }}; }}'): "
            f"it is no BIF network, or it is empty"
        )
    for header in headers:
        parsed = _HEADER.search(header)
        if parsed is None:
            raise InvalidModelError(f"{what}: cannot read the probability header {header[:60]!r}")
        family = [parsed.group(1).strip()]
        if parsed.group(2):
            family += [p.strip() for p in parsed.group(2).split(",")]
        else:
            family = family[0].split()
        unknown = [u for u in family if u.lower() not in sizes]
        if unknown:
            raise InvalidModelError(
                f"{what}: the probability of {family[0]!r} names {unknown[0]!r}, "
                f"which is no declared variable"
            )
        size = math.prod(sizes[u.lower()] for u in family)
        check_memory(
            8 * size,
            f"{what}: the CPT of {family[0]!r} ({size} entries)",
            "the file declares more than a model can hold: check it, or raise "
            "treelearn.limits.MEMORY_LIMIT",
        )
    return {"labels": labels, "order": order}


@functools.cache
def bif_reader() -> type:
    """pgmpy's ``BIFReader`` with its pyparsing grammar built once per process.

    ``BIFReader`` builds its grammar for every file it reads, and the grammar's words over
    every Unicode letter cost a second or more to build (pyparsing sorts about a million
    characters), whatever the size of the file. The grammar does not depend on the file,
    so this subclass builds it once and reuses it; what it parses is unchanged.
    """
    from pgmpy.readwrite import BIFReader

    grammar: dict[str, Any] = {}  # the one grammar of the process, built on first use

    class CachedGrammarBIFReader(BIFReader):
        def get_variable_grammar(self) -> Any:
            if "variable" not in grammar:
                grammar["variable"] = super().get_variable_grammar()
            return grammar["variable"]

        def get_probability_grammar(self) -> Any:
            if "probability" not in grammar:
                grammar["probability"] = super().get_probability_grammar()
            return grammar["probability"]

    return CachedGrammarBIFReader


def graph_from_bif(path: str | os.PathLike | None = None, *, text: str | None = None) -> nx.DiGraph:
    """The checked graph (:func:`graph_from_pgmpy`) of a BIF file (``path``, read bounded)
    or of its content (``text=``), checked by :func:`check_bif` before pgmpy's
    ``BIFReader`` parses it.

    Names and states are given back as treelearn wrote them where the file holds its
    ``treelearn_labels`` properties, else as text.
    """
    text = path_or_text(path, text, "BIF file")  # checks the path's type first
    what = "the BIF text" if path is None else f"{os.fspath(path)}"
    checked = check_bif(text, what)
    try:  # pgmpy checks the tables (negative, mis-sized) with bare ValueErrors
        network = bif_reader()(string=text).get_model()
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise InvalidModelError(
            f"{what}: not a valid BIF network ({type(exc).__name__}: {str(exc)[:200]})"
        ) from None
    G = graph_from_pgmpy(network)
    order = [u for u in checked["order"] if u in G]
    if len(order) == len(G):  # the file's order (pgmpy's follows its blocks differently)
        ordered = nx.DiGraph()
        ordered.add_nodes_from((u, G.nodes[u]) for u in order)
        ordered.add_edges_from(G.edges(data=True))
        ordered.graph.update(G.graph)
        ordered.graph["roots"] = [u for u in order if ordered.in_degree(u) == 0]
        G = ordered
    if not checked["labels"]:
        return G
    return _relabelled(G, checked["labels"], what)


def _relabelled(G: nx.DiGraph, labels: dict, what: str) -> nx.DiGraph:
    """``G`` with the names and states of the treelearn properties, checked to match."""
    name_of = {}
    for word, (label, states, listed) in labels.items():
        base = _words([label])[0]  # a repeated word gets a suffix: _2, _3...
        if word not in G or _words(states) != listed or not word.startswith(base):
            raise InvalidModelError(
                f"{what}: variable {word!r}: its {_PROPERTY} property does not match its "
                f"name and states"
            )
        name_of[word] = label
    if len(set(name_of.values())) != len(name_of):
        raise InvalidModelError(f"{what}: two {_PROPERTY} properties give one name")
    for word, (_, states, _) in labels.items():
        G.nodes[word]["states"] = states
    H = nx.relabel_nodes(G, name_of, copy=True)
    for v in H.nodes:
        H.nodes[v]["parents"] = [name_of.get(p, p) for p in H.nodes[v]["parents"]]
    H.graph["roots"] = [name_of.get(r, r) for r in G.graph["roots"]]
    return H
