"""pyAgrum networks: the model to a ``pyagrum.BayesNet``, and a BayesNet to a checked graph.

pyAgrum (an optional dependency, ``pip install treelearn[pyagrum]``) is imported when
used. A pyAgrum CPT (a ``Tensor``) lists its variables as ``(child, last parent, ...,
first parent)`` with the first changing fastest, and ``toarray()`` gives the axes in
the reverse order: treelearn's ``[parent states..., own state]``, exactly. Integer state
labels become a ``pyagrum.IntegerVariable`` (read back as integers); any other labels a
``LabelizedVariable`` of their text (read back as text).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from .._base.errors import InputTypeError, StructureError, TreelearnError
from .._base.validation import own_export
from ..stats._parameters import check_cpt

if TYPE_CHECKING:
    from ..models._tree import TreeModel

__all__ = ["clg_to_pyagrum", "graph_from_pyagrum", "import_pyagrum", "to_pyagrum"]


def import_pyagrum() -> Any:
    """The ``pyagrum`` module, or a TreelearnError saying how to install it."""
    try:
        import pyagrum
    except ImportError:
        raise TreelearnError(
            "pyAgrum is not installed: pip install pyagrum (or treelearn[pyagrum])"
        ) from None
    return pyagrum


def _integers(labels: list) -> bool:
    return (
        bool(labels)
        and all(
            isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_)) for s in labels
        )
        and len(set(labels)) == len(labels)
    )


def clg_to_pyagrum(model: Any) -> Any:
    """A conditional linear Gaussian tree as a ``pyagrum.clg.CLG`` (names as text).

    pyAgrum's CLG holds Gaussian variables only (each a linear function of its parents
    plus noise): a tree of continuous columns goes over exactly (``mu`` the intercept,
    ``sigma`` the residual sd, each arc's coefficient); a tree with discrete columns is
    refused, naming them and what to export instead.
    """
    import_pyagrum()
    try:
        import pyagrum.clg as clg
    except ImportError:
        raise TreelearnError(
            "this pyAgrum has no pyagrum.clg (conditional linear Gaussian "
            "networks); upgrade it (pip install -U pyagrum)"
        ) from None
    discrete = [v for v in model.variables if v not in set(model.continuous)]
    if discrete:
        raise TreelearnError(
            f"pyAgrum's CLG (pyagrum.clg.CLG) holds Gaussian variables only, and this tree has "
            f"discrete column(s) {discrete[:5]}; export the discretized model instead: "
            f"tl.chow_liu(tl.discretize(df, bins=5)).to_pyagrum()",
            column=discrete[0],
        )
    names = [str(v) for v in model.variables]
    if len(set(names)) != len(names):
        raise TreelearnError(
            "two variable names read the same as text; pyAgrum names are text: rename one of them"
        )
    text = dict(zip(model.variables, names))
    net = clg.CLG()
    ids = {}
    for v in model.variables:
        node = model.graph.nodes[v]
        ids[v] = net.add(
            clg.GaussianVariable(
                text[v], float(node["intercept"]), float(np.sqrt(node["variance"]))
            )
        )
    for u, v in model.graph.edges():
        net.addArc(ids[u], ids[v])
        net.setCoef(ids[u], ids[v], float(model.graph.nodes[v]["coefficient"]))
    return net


def to_pyagrum(model: TreeModel) -> Any:
    """A ``pyagrum.BayesNet`` with the model's variables (names as text), states and CPTs.

    Needs pyAgrum (``pip install "treelearn[pyagrum]"``).

    Parameters
    ----------
    model : TreeModel or fitted classifier
        A discrete network.

    Returns
    -------
    pyagrum.BayesNet
        Integer states become ``IntegerVariable`` labels, others ``LabelizedVariable``.

    Raises
    ------
    InputTypeError
        ``model`` is not a discrete network.
    TreelearnError
        Two names (or two states of a variable) read the same as text.

    See Also
    --------
    from_pyagrum : the way back.
    to_pgmpy : the same for pgmpy.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> bn = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]})).to_pyagrum()
    >>> sorted(bn.names()), bn.variable("b").labels()
    (['a', 'b'], ('0', '1'))
    """
    own = own_export(model, "to_pyagrum", "pyagrum", "to_pyagrum")
    if own is not None:  # a fitted classifier's network, a CLG tree's own pyagrum.clg.CLG
        return own()
    gum = import_pyagrum()
    names = [str(v) for v in model.variables]
    if len(set(names)) != len(names):
        raise TreelearnError(
            "two variable names read the same as text; pyAgrum names are text: rename one of them"
        )
    text = dict(zip(model.variables, names))
    bn = gum.BayesNet()
    states = model.states
    for v in model.variables:
        labels = list(states[v])
        if _integers(labels):
            var = gum.IntegerVariable(text[v], text[v], [int(s) for s in labels])
            if [int(var.label(i)) for i in range(var.domainSize())] != [int(s) for s in labels]:
                var = None  # pyAgrum keeps integers sorted: out of order, use their text
        else:
            var = None
        if var is None:
            words = [str(s) for s in labels]
            if len(set(words)) != len(words):
                raise TreelearnError(
                    f"two states of {v!r} read the same as text; pyAgrum "
                    f"labels are text: rename one of them",
                    column=v,
                )
            var = gum.LabelizedVariable(text[v], text[v], words)
        bn.add(var)
    for v in model.variables:
        for p in model.parents(v):
            bn.addArc(text[p], text[v])
    for v in model.variables:
        tensor = bn.cpt(text[v])
        family = [*model.parents(v), v]
        order = [family.index(u) for u in _by_text(tensor.names, family, text)[::-1]]
        tensor.fillWith(np.transpose(model.cpt(v), order).ravel().tolist())
    return bn


def _by_text(names: Any, family: list, text: dict) -> list:
    back = {text[u]: u for u in family}
    return [back[name] for name in names]


def graph_from_pyagrum(bn: Any) -> nx.DiGraph:
    """The checked graph of a ``pyagrum.BayesNet``: nodes named by the variables' names,
    ``states`` their labels (integers for an integer or range variable, else text),
    ``parents`` in the CPT's axis order and ``cpt`` (checked)."""
    if not all(hasattr(bn, a) for a in ("cpt", "names", "variable", "parents")):
        raise InputTypeError(f"expected a pyagrum.BayesNet, got {type(bn).__name__}")
    gum = import_pyagrum()
    numbers = {gum.VarType_INTEGER, gum.VarType_RANGE}
    G = nx.DiGraph()
    order = sorted(bn.nodes())
    names = [bn.variable(i).name() for i in order]
    for name in names:
        var = bn.variable(name)
        labels = [var.label(i) for i in range(var.domainSize())]
        if var.varType() in numbers:
            labels = [int(s) for s in labels]
        G.add_node(name, states=labels)
    for name in names:
        tensor = bn.cpt(name)
        listed = list(tensor.names)
        if listed[0] != name:
            raise StructureError(f"the pyAgrum CPT of {name!r} lists {listed[0]!r} first")
        parents = listed[1:][::-1]
        values = np.asarray(tensor.toarray(), dtype=float)
        shape = [len(G.nodes[p]["states"]) for p in parents] + [len(G.nodes[name]["states"])]
        G.add_node(name, parents=parents, cpt=check_cpt(name, values.reshape(shape), shape))
        G.add_edges_from((p, name) for p in parents)
    G.graph["roots"] = [v for v in names if G.in_degree(v) == 0]
    return G
