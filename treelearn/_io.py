"""Load models and classifiers, and build models from outside: JSON files, pgmpy, BIF,
XMLBIF, UAI, pyAgrum.

:func:`save` writes a :class:`~treelearn.TreeModel` or a fitted classifier as
versioned JSON (the format is described in :mod:`treelearn.export._jsonfile`; labels
keep their types through :mod:`treelearn._base.jsonvalues`), and :func:`load` reads
it back exactly: ``load(save(m)) == m``.

Loading checks everything a :class:`~treelearn.TreeModel` relies on and raises a
:class:`ModelFileError` subclass that says what is wrong: not JSON or cut short
(:class:`CorruptModelFileError`), not a treelearn file or an unknown version
(:class:`ModelFormatError`), or inconsistent contents such as a CPT of the wrong
shape or a row not summing to 1 (:class:`InvalidModelError`).

A saved estimator (a classifier, a :class:`~treelearn.Discretizer`, a
:class:`~treelearn.TreeMixture`) names its class; the class is found in the one
registry of persistent estimators (:data:`treelearn._base.persistence.ESTIMATORS`,
filled as each class is defined), its module loaded through the facade on first
use: adding an estimator is its class and its facade entry.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

import networkx as nx

from ._base.errors import (
    InputTypeError,
    InvalidModelError,
    ModelFileError,
    ModelFormatError,
    StructureError,
)
from ._base.persistence import ESTIMATORS, Persistent
from .export._jsonfile import (
    check_document,
    document,
    dumps_document,
    parse_document,
    read_text,
    write_text_atomic,
)
from .export._pgmpy import graph_from_bif, graph_from_pgmpy
from .export._pyagrum import graph_from_pyagrum
from .export._uai import graph_from_uai
from .export._xmlbif import graph_from_xmlbif
from .models._tree import TreeModel

if TYPE_CHECKING:  # pragma: no cover
    from .models._gaussian import GaussianTreeModel

__all__ = [
    "dumps",
    "estimator_class",
    "from_document",
    "from_pgmpy",
    "from_pyagrum",
    "load",
    "loads",
    "read_bif",
    "read_uai",
    "read_xmlbif",
    "save",
    "to_document",
]


def estimator_class(name: Any) -> type:
    """The persistent estimator class a file names: from the registry, its module loaded
    through the facade (``treelearn.<name>``) if no one has used it yet.

    Raises :class:`~treelearn.ModelFormatError` for any other name.

    >>> estimator_class("TAN").__name__
    'TAN'
    """
    facade = importlib.import_module("treelearn")  # its one table maps names to modules
    public = (
        getattr(facade, name, None) if isinstance(name, str) and not name.startswith("_") else None
    )  # loads the module, whose classes register themselves
    cls = ESTIMATORS.get(name) if isinstance(name, str) else None
    if cls is None or public is not cls:
        raise ModelFormatError(f"unknown classifier class {name!r} in the model file")
    return cls


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
        from .models._gaussian import GaussianTreeModel

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


def _model_from_graph(G: nx.DiGraph, method: str = "pgmpy") -> TreeModel:
    return TreeModel(G, variables=list(G.nodes), settings={"method": method})


# ---------------------------------------------------------------------- XMLBIF, UAI, pyAgrum
def read_xmlbif(path: str | os.PathLike) -> TreeModel:
    """Read an XMLBIF file (pgmpy's, pyAgrum's, Weka's...): labels with their types where
    treelearn wrote the file, else text (see :mod:`treelearn.export._xmlbif`).

    >>> import os, tempfile, pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]}))
    >>> path = os.path.join(tempfile.mkdtemp(), "m.xml")
    >>> m.to_xmlbif(path)
    >>> tl.read_xmlbif(path) == m
    True
    """
    return _checked_model(graph_from_xmlbif(path), "xmlbif")


def read_uai(path: str | os.PathLike, names: Any = None, states: Any = None) -> TreeModel:
    """Read a UAI ``BAYES`` file; ``names`` (the variables in file order) and ``states``
    (``{name: [states]}``) give back what the format does not hold (default:
    ``var_0, var_1, ...`` with states ``0 .. k-1``; see :mod:`treelearn.export._uai`).

    >>> import os, tempfile, pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]}))
    >>> path = os.path.join(tempfile.mkdtemp(), "m.uai")
    >>> m.to_uai(path)
    >>> tl.read_uai(path, names=m.variables, states=m.states) == m
    True
    """
    return _checked_model(graph_from_uai(path, names=names, states=states), "uai")


def from_pyagrum(bn: Any) -> TreeModel:
    """A :class:`TreeModel` from a ``pyagrum.BayesNet`` (see :mod:`treelearn.export._pyagrum`).

    >>> import pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]}))
    >>> tl.from_pyagrum(m.to_pyagrum()) == m
    True
    """
    return _checked_model(graph_from_pyagrum(bn), "pyagrum")


def _checked_model(G: nx.DiGraph, method: str) -> TreeModel:
    try:
        return _model_from_graph(G, method)
    except StructureError as exc:  # e.g. a cycle: the file is at fault
        raise InvalidModelError(str(exc)) from None


# ---------------------------------------------------------------------- files
def to_document(obj: Any) -> dict:
    """The whole file's content for a model or a classifier."""
    if isinstance(obj, TreeModel):
        return document("tree_model", model=obj.to_dict())
    # the other kinds' modules are loaded only for them: a tree loads without SciPy
    from .learners._bayes_trees import TreePosterior
    from .models._clg import CLGTreeModel
    from .models._copula import CopulaTreeModel
    from .models._gaussian import GaussianTreeModel
    from .models._kernel_forest import KernelForestModel

    if isinstance(obj, GaussianTreeModel):
        return document("gaussian_tree", model=obj.to_dict())
    if isinstance(obj, TreePosterior):
        return document("tree_posterior", model=obj.to_dict())
    if isinstance(obj, CLGTreeModel):
        return document("clg_tree", model=obj.to_dict())
    if isinstance(obj, CopulaTreeModel):
        return document("copula_tree", model=obj.to_dict())
    if isinstance(obj, KernelForestModel):
        return document("kernel_forest", model=obj.to_dict())
    if isinstance(obj, Persistent):
        from sklearn.base import is_classifier  # every persistent estimator is scikit-learn's

        kind = "classifier" if is_classifier(obj) else "estimator"
        return document(kind, **{"class": type(obj).__name__, "state": obj.to_dict()})
    raise InputTypeError(
        f"can only save a TreeModel, a GaussianTreeModel, a CLGTreeModel, a CopulaTreeModel, a "
        f"KernelForestModel, a "
        f"TreePosterior or a treelearn estimator (a classifier, a Discretizer, a TreeMixture), "
        f"not {type(obj).__name__}"
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
    except (
        KeyError,
        TypeError,
        ValueError,
        IndexError,
        AttributeError,
        OverflowError,
        RecursionError,
    ) as exc:
        raise InvalidModelError(
            f"the model file is inconsistent ({type(exc).__name__}: {str(exc)[:200]})"
        ) from None


def _from_document(doc: Any) -> Any:
    kind = check_document(doc)
    if kind == "tree_model":
        return TreeModel.from_dict(doc.get("model"))
    if kind == "gaussian_tree":
        from .models._gaussian import GaussianTreeModel

        return GaussianTreeModel.from_dict(doc.get("model"))
    if kind == "tree_posterior":
        from .learners._bayes_trees import TreePosterior

        return TreePosterior.from_dict(doc.get("model"))
    if kind == "clg_tree":
        from .models._clg import CLGTreeModel

        return CLGTreeModel.from_dict(doc.get("model"))
    if kind == "copula_tree":
        from .models._copula import CopulaTreeModel

        return CopulaTreeModel.from_dict(doc.get("model"))
    if kind == "kernel_forest":
        from .models._kernel_forest import KernelForestModel

        return KernelForestModel.from_dict(doc.get("model"))
    name = doc.get("class")
    cls = estimator_class(name)
    state = doc.get("state")
    if not isinstance(state, dict):
        raise InvalidModelError(f"{kind} file: 'state' must be an object")
    try:
        return cls.from_dict(state)
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise InvalidModelError(f"{name}: bad saved state ({exc})") from None


def dumps(obj: Any) -> str:
    """The JSON text :func:`save` writes."""
    return dumps_document(to_document(obj))


def loads(text: str) -> Any:
    """Inverse of :func:`dumps`."""
    return from_document(parse_document(text))


def save(obj: Any, path: str | os.PathLike) -> None:
    """Save a model or a fitted estimator (classifier, Discretizer, TreeMixture) to
    ``path`` as versioned JSON.

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
    """Load a model or estimator written by :func:`save`, validating it.

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
