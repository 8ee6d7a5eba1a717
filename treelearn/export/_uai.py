"""UAI files (the UAI inference competitions' format, ``BAYES`` networks): write a model,
read one back into a checked graph.

The format holds numbers only: the preamble (``BAYES``, the number of variables, their
cardinalities, then one function per variable: its scope, the parents in the CPT's
axis order and the variable last), then each function's table, in the order of its
scope with the **last variable changing fastest** (treelearn's ``[parent states...,
own state]`` in C order; pyAgrum reads and writes it so). Variables are numbered in the
model's order; names and states are not in the file: :func:`graph_from_uai` names
them ``var_0, var_1, ...`` (pgmpy's names) with states ``0 .. k-1``, or takes them
from ``names=`` / ``states=`` (or from ``# name`` comments after the scope lines, as
pyAgrum writes them). Probabilities are written with ``repr``: they read back exactly.

(pgmpy's ``UAIWriter`` and ``UAIReader`` put the variable's own state slowest instead,
against the format: their files and these disagree on every CPT with parents.)
"""

from __future__ import annotations

import math
import os
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from .._base.errors import (
    InputTypeError,
    InvalidModelError,
    ModelFormatError,
    StructureError,
    TreelearnError,
)
from .._base.limits import check_memory
from .._base.validation import own_export
from ..stats._parameters import check_cpt
from ._textfile import path_or_text, write_text_atomic

if TYPE_CHECKING:
    from ..models._tree import TreeModel

__all__ = ["graph_from_uai", "uai_text", "write_uai"]


def uai_text(model: TreeModel) -> str:
    """The model as UAI text (variables numbered in the model's order).

    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}), root="a", alpha=0)
    >>> print(uai_text(m))
    BAYES
    2
    2 2
    2
    1 0
    2 0 1
    <BLANKLINE>
    2
    0.5 0.5
    4
    1.0 0.0 0.5 0.5
    <BLANKLINE>
    """
    index = {v: i for i, v in enumerate(model.variables)}
    states = model.states
    lines = [
        "BAYES",
        str(len(model.variables)),
        " ".join(str(len(states[v])) for v in model.variables),
        str(len(model.variables)),
    ]
    for v in model.variables:
        scope = [index[p] for p in model.parents(v)] + [index[v]]
        lines.append(" ".join(map(str, [len(scope), *scope])))
    lines.append("")
    for v in model.variables:
        table = np.asarray(model.cpt(v), dtype=float).ravel()
        lines.append(str(table.size))
        lines.append(" ".join(repr(float(x)) for x in table))
    return "\n".join(lines) + "\n"


def write_uai(model: TreeModel, path: str | os.PathLike) -> None:
    """Write ``model`` to a UAI file (atomically).

    A UAI ``BAYES`` file holds the sizes and tables only: keep the names and states to
    read it back (:func:`~treelearn.read_uai`'s ``names`` and ``states``).

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
    read_uai : reads it back.
    write_bif, write_xmlbif : formats that keep the names and states.

    Examples
    --------
    >>> import os, tempfile, pandas as pd, treelearn as tl
    >>> model = tl.chow_liu(pd.read_csv("datasets/asia.csv"))
    >>> path = os.path.join(tempfile.mkdtemp(), "asia.uai")
    >>> tl.write_uai(model, path)
    >>> open(path).readline().strip()
    'BAYES'
    >>> tl.read_uai(path, names=model.variables, states=model.states) == model
    True
    """
    own = own_export(model, "write_uai", "bif", "to_uai")
    if own is not None:  # a fitted classifier writes its network
        own(path)
        return
    write_text_atomic(path, uai_text(model))


def _tokens(text: str) -> tuple[list[str], list[str]]:
    """The whitespace-separated tokens (``#`` comments dropped), and each comment."""
    tokens: list = []
    comments: list = []
    for line in text.splitlines():
        body, _, comment = line.partition("#")
        tokens += body.split()
        if comment.strip():
            comments.append(comment.strip())
    return tokens, comments


def graph_from_uai(
    path: str | os.PathLike | None = None,
    names: Sequence[Hashable] | None = None,
    states: Mapping[Hashable, Sequence] | None = None,
    *,
    text: str | None = None,
) -> nx.DiGraph:
    """The checked graph of a UAI ``BAYES`` file (``path``) or of its content (``text=``).
    ``names``: the variables' names in file order (default: the ``#``
    comments of the scope lines where every one has one, else ``var_0, var_1, ...``);
    ``states``: ``{name: [states]}`` for some variables (default ``0 .. k-1``).

    Raises :class:`~treelearn.ModelFormatError` for a file that is not UAI ``BAYES`` and
    :class:`~treelearn.InvalidModelError` naming the variable for inconsistent contents.

    >>> G = graph_from_uai(text="BAYES 2 2 2 2 1 0 2 0 1 2 0.5 0.5 4 1 0 0.5 0.5")
    >>> G.nodes["var_1"]["parents"], G.nodes["var_1"]["cpt"].tolist()
    (['var_0'], [[1.0, 0.0], [0.5, 0.5]])
    """
    names = _checked_names(names)
    states = _checked_states(states)
    text = path_or_text(path, text, "UAI file")
    tokens, comments = _tokens(text)
    if not tokens or tokens[0].upper() != "BAYES":
        kind = tokens[0] if tokens else "nothing"
        raise ModelFormatError(
            f"not a UAI Bayesian network: the file starts with {kind!r}, "
            f"not BAYES (a MARKOV network has no CPTs)"
        )
    position = 1

    def take(what: str, kind: type = int) -> float | int:
        nonlocal position
        if position >= len(tokens):
            raise InvalidModelError(f"the UAI file ends before {what}")
        token = tokens[position]
        position += 1
        try:
            return kind(token)
        except ValueError:
            raise InvalidModelError(f"the UAI file has {token!r} where {what} belongs") from None

    n = int(take("the number of variables"))
    if n < 1:
        raise InvalidModelError(f"the UAI file declares {n} variables: a model needs at least one")
    card = [int(take(f"the cardinality of variable {i}")) for i in range(n)]
    if any(k < 1 for k in card):
        raise InvalidModelError(f"the UAI file's cardinalities {card[:20]} must be positive")
    for i, k in enumerate(card):  # its table holds k numbers at least: bounded before any list
        check_memory(8 * k, f"variable {i}'s table ({k} states declared)", _SMALLER)
    if names is None:
        names = (
            comments[:n]
            if len(comments) >= n and len(set(comments[:n])) == n
            else [f"var_{i}" for i in range(n)]
        )
    if len(names) != n:
        raise InvalidModelError(
            f"names must be {n} distinct names, one per variable of the file; got {len(names)}"
        )
    unknown = [v for v in states if v not in set(names)]
    if unknown:
        raise TreelearnError(
            f"states= names {unknown[:5]}, which are not among the file's variables "
            f"{names[:10]}; give states for those names (or pass names=[...] in file order)"
        )
    labels = {v: list((states or {}).get(v, range(k))) for v, k in zip(names, card)}
    for v, k in zip(names, card):
        if len(labels[v]) != k:
            raise InvalidModelError(
                f"variable {v!r} has {k} states in the file, but states= gives {len(labels[v])}"
            )
    m = int(take("the number of functions"))
    if m != n:
        raise InvalidModelError(
            f"a UAI Bayesian network has one function (CPT) per variable: "
            f"{m} functions for {n} variables"
        )
    scopes = []
    for f in range(m):
        size = int(take(f"the scope size of function {f}"))
        scope = [int(take(f"a variable of function {f}")) for _ in range(size)]
        if not scope or any(not 0 <= u < n for u in scope) or len(set(scope)) != len(scope):
            raise InvalidModelError(
                f"function {f} has the scope {scope}: it needs distinct "
                f"variables among 0..{n - 1}, the child last"
            )
        scopes.append(scope)
    children = [s[-1] for s in scopes]
    if sorted(children) != list(range(n)):
        raise InvalidModelError(
            "each variable must be the last (the child) of exactly one function's scope"
        )
    G = nx.DiGraph()
    for v in names:
        G.add_node(v, states=labels[v])
    for f, scope in enumerate(scopes):
        v = names[scope[-1]]
        size = int(take(f"the table size of function {f}"))
        shape = [card[u] for u in scope]
        if size != math.prod(shape):
            raise InvalidModelError(
                f"variable {v!r}: its table has {size} entries, its scope needs {math.prod(shape)}"
            )
        check_memory(8 * size, f"variable {v!r}'s table ({size} entries declared)", _SMALLER)
        values = np.array([take(f"an entry of {v!r}'s table", float) for _ in range(size)])
        parents = [names[u] for u in scope[:-1]]
        G.add_node(v, parents=parents, cpt=_checked_cpt(v, values.reshape(shape), shape))
        G.add_edges_from((p, v) for p in parents)
    if position != len(tokens):
        raise InvalidModelError(
            f"the UAI file has {len(tokens) - position} numbers after the last table"
        )
    G.graph["roots"] = [v for v in names if G.in_degree(v) == 0]
    return G


_SMALLER = (
    "the file declares more than a model can hold: check it, or raise treelearn.limits.MEMORY_LIMIT"
)


def _checked_names(names: Any) -> list | None:
    """``names=`` as a list of distinct labels, or an error saying what to pass."""
    if names is None:
        return None
    if (
        isinstance(names, (str, bytes))
        or not isinstance(names, Iterable)
        or isinstance(names, Mapping)
    ):
        raise InputTypeError(
            f"names= must be a list of the variables' names in file order (e.g. "
            f"names=['A', 'B']), not {type(names).__name__} {names!r:.60}"
        )
    names = list(names)
    for i, v in enumerate(names):
        if not isinstance(v, Hashable):
            raise InputTypeError(
                f"names[{i}] = {v!r:.60} cannot be a variable name (a {type(v).__name__}); "
                f"give names as text or numbers"
            )
    if len(set(names)) != len(names):
        twice = next(v for v in names if names.count(v) > 1)
        raise TreelearnError(f"names= gives {twice!r} twice; give each variable's name once")
    return names


def _checked_states(states: Any) -> dict:
    """``states=`` as ``{name: [distinct labels]}``, or an error saying what to pass."""
    if states is None:
        return {}
    if not isinstance(states, Mapping):
        raise InputTypeError(
            f"states= must be a dict {{name: [states]}}, not {type(states).__name__}"
        )
    checked = {}
    for v, labels in states.items():
        if isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable):
            raise InputTypeError(
                f"states[{v!r}] must be a list of state labels, not {type(labels).__name__} "
                f"{labels!r:.60}"
            )
        labels = list(labels)
        bad = [s for s in labels if not isinstance(s, Hashable)]
        if bad:
            raise InputTypeError(f"states[{v!r}] holds {bad[0]!r:.60}, which cannot be a state")
        keys = [(type(s).__name__, s) for s in labels]
        if len(set(keys)) != len(keys) or len(set(labels)) != len(labels):
            raise TreelearnError(
                f"states[{v!r}] = {labels[:10]!r} repeats a state (or holds equal labels such "
                f"as 1 and 1.0); give each state once",
                column=v,
            )
        checked[v] = labels
    return checked


def _checked_cpt(variable: Hashable, table: np.ndarray, shape: list) -> np.ndarray:
    """:func:`~treelearn.stats._parameters.check_cpt`, its error the file's fault."""
    try:
        return check_cpt(variable, table, shape)
    except StructureError as exc:
        raise InvalidModelError(str(exc)) from None
