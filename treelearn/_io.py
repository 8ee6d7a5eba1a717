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
    ESTIMATOR_KINDS,
    check_document,
    dumps_document,
    estimator_document,
    model_document,
    parse_document,
)
from .export._pgmpy import graph_from_bif, graph_from_pgmpy
from .export._pyagrum import graph_from_pyagrum
from .export._textfile import read_text, write_text_atomic
from .export._uai import graph_from_uai
from .export._xmlbif import graph_from_xmlbif
from .models._base import MODEL_KINDS, Model
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
    "model_class",
    "read_bif",
    "read_uai",
    "read_xmlbif",
    "save",
    "to_document",
]


def estimator_class(name: Any) -> type[Persistent]:
    """The persistent estimator class a file names: from the registry, its module loaded
    through the facade (``treelearn.<name>``) if no one has used it yet.

    Raises :class:`~treelearn.ModelFormatError` for any other name.

    >>> estimator_class("TAN").__name__
    'TAN'
    """
    public = _public_class(name)  # loads the module, whose classes register themselves
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
    evidence order.

    Parameters
    ----------
    network : pgmpy.models.DiscreteBayesianNetwork or LinearGaussianBayesianNetwork
        The network, with a CPD for every node (a discrete network may have any
        number of parents per node; a linear Gaussian one at most one).

    Returns
    -------
    TreeModel or GaussianTreeModel
        The same distribution as a treelearn model.

    Raises
    ------
    StructureError
        The network has a cycle or a node without a CPD.

    See Also
    --------
    to_pgmpy : the way back.
    read_bif : a network from a BIF file.

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


def read_bif(path: str | os.PathLike | None = None, *, text: str | None = None) -> TreeModel:
    """Read a BIF file (``path``) or its content (``text=``) with pgmpy's ``BIFReader``,
    checked first (a variable at least, no name or state twice, declared sizes equal to
    the states listed, sizes within :mod:`treelearn.limits`): names and states
    come back as treelearn wrote them (their labels kept in a property), else as text.

    Parameters
    ----------
    path : str or os.PathLike, default=None
        The file (read within ``treelearn.limits.FILE_SIZE_LIMIT``).
    text : str, default=None
        The file's content instead of ``path`` (give one of the two).

    Returns
    -------
    TreeModel
        The network the file describes (any DAG, not only a tree).

    Raises
    ------
    InvalidModelError
        The file names a variable or a state twice, declares sizes that differ from the
        states it lists, or describes a cycle.
    ResourceLimitError
        A table would be larger than ``treelearn.limits`` allow.

    See Also
    --------
    write_bif : writes a BIF file.
    read_xmlbif, read_uai : the other exchange formats.

    Examples
    --------
    >>> import os, tempfile, pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": ["u", "v", "v"]}))
    >>> path = os.path.join(tempfile.mkdtemp(), "m.bif")
    >>> m.to_bif(path)
    >>> tl.read_bif(path).states == m.states
    True
    """
    return _checked_model(graph_from_bif(path, text=text), "pgmpy")


def _model_from_graph(G: nx.DiGraph, method: str = "pgmpy") -> TreeModel:
    return TreeModel(G, variables=list(G.nodes), settings={"method": method})


# ---------------------------------------------------------------------- XMLBIF, UAI, pyAgrum
def read_xmlbif(path: str | os.PathLike | None = None, *, text: str | None = None) -> TreeModel:
    """Read an XMLBIF file (pgmpy's, pyAgrum's, Weka's...) at ``path``, or its content
    given as ``text=``: labels with their types where treelearn wrote the file, else text.

    Parameters
    ----------
    path : str or os.PathLike, default=None
        The file (read within ``treelearn.limits.FILE_SIZE_LIMIT``).
    text : str, default=None
        The file's content instead of ``path`` (give one of the two).

    Returns
    -------
    TreeModel
        The network the file describes.

    Raises
    ------
    InvalidModelError
        The XML is malformed, a variable or state appears twice, a table's size differs
        from its variables' states, or the arcs make a cycle.

    See Also
    --------
    write_xmlbif : writes an XMLBIF file.
    read_bif, read_uai : the other exchange formats.

    Examples
    --------
    >>> import os, tempfile, pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]}))
    >>> path = os.path.join(tempfile.mkdtemp(), "m.xml")
    >>> m.to_xmlbif(path)
    >>> tl.read_xmlbif(path) == m
    True
    """
    return _checked_model(graph_from_xmlbif(path, text=text), "xmlbif")


def read_uai(
    path: str | os.PathLike | None = None,
    names: Any = None,
    states: Any = None,
    *,
    text: str | None = None,
) -> TreeModel:
    """Read a UAI ``BAYES`` file at ``path`` (or its content given as ``text=``).

    A UAI file holds numbers only: ``names`` and ``states`` give back what the format
    does not hold.

    Parameters
    ----------
    path : str or os.PathLike, default=None
        The file (read within ``treelearn.limits.FILE_SIZE_LIMIT``).
    names : list, default=None
        The variables' names in file order (default ``var_0, var_1, ...``).
    states : dict, default=None
        ``{name: [states]}`` (default ``0`` to ``k - 1`` for a variable of ``k`` states).
    text : str, default=None
        The file's content instead of ``path`` (give one of the two).

    Returns
    -------
    TreeModel
        The network the file describes.

    Raises
    ------
    InvalidModelError
        The file is not a ``BAYES`` network, its tables do not match its sizes, or
        ``names`` / ``states`` do not match the file.

    See Also
    --------
    write_uai : writes a UAI file.
    read_bif, read_xmlbif : formats that keep names and states.

    Examples
    --------
    >>> import os, tempfile, pandas as pd, treelearn as tl
    >>> m = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]}))
    >>> path = os.path.join(tempfile.mkdtemp(), "m.uai")
    >>> m.to_uai(path)
    >>> tl.read_uai(path, names=m.variables, states=m.states) == m
    True
    """
    return _checked_model(graph_from_uai(path, names=names, states=states, text=text), "uai")


def from_pyagrum(bn: Any) -> TreeModel:
    """A :class:`TreeModel` from a ``pyagrum.BayesNet``.

    Needs pyAgrum (``pip install "treelearn[pyagrum]"``).

    Parameters
    ----------
    bn : pyagrum.BayesNet
        The network; labels of integer variables come back as integers.

    Returns
    -------
    TreeModel
        The same distribution as a treelearn model.

    Raises
    ------
    InvalidModelError
        The network cannot be a treelearn model (a cycle, a name or label twice).

    See Also
    --------
    to_pyagrum : the way back.
    from_pgmpy : the same from a pgmpy network.

    References
    ----------
    .. [1] Ducamp, G., Gonzales, C. and Wuillemin, P.-H. (2020). aGrUM/pyAgrum: a toolbox
       to build models and algorithms for probabilistic graphical models in Python.
       Proceedings of the 10th International Conference on Probabilistic Graphical
       Models (PGM), 609-612.

    Examples
    --------
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
    """The whole file's content for a model or a fitted estimator."""
    if isinstance(obj, Model):
        return model_document(obj)
    if isinstance(obj, Persistent):
        return estimator_document(obj, obj.kind)
    raise InputTypeError(
        f"can only save a treelearn model (tl.Model: a TreeModel, a GaussianTreeModel, ...) or a "
        f"fitted treelearn estimator (a classifier, a Discretizer, a TreeMixture, ...), not "
        f"{type(obj).__name__}"
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


def model_class(kind: str, name: Any) -> type[Model]:
    """The model class a file names (``name``, found through the facade as
    :func:`estimator_class` finds estimators), checked to be of the file's ``kind``.

    >>> model_class("tree_model", "TreeModel").__name__
    'TreeModel'
    """
    cls = _public_class(name)
    if not (isinstance(cls, type) and issubclass(cls, Model) and MODEL_KINDS.get(kind) is cls):
        raise ModelFormatError(f"unknown model kind {kind!r} (class {name!r}) in the model file")
    return cls


def _public_class(name: Any) -> Any:
    """The facade's public name ``name`` (its module loaded on first use), or None."""
    if not isinstance(name, str) or name.startswith("_"):
        return None
    facade = importlib.import_module("treelearn")  # its one table maps names to modules
    return getattr(facade, name, None)


def _from_document(doc: Any) -> Any:
    kind = check_document(doc)
    name = doc.get("class")
    if kind not in ESTIMATOR_KINDS:
        return model_class(kind, name).from_dict(doc.get("model"))
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

    The file is written atomically (a temporary file renamed over ``path``), so a crash
    never leaves half a file.

    Parameters
    ----------
    obj : Model or fitted estimator
        What to save: any :class:`Model` (``tl.chow_liu(df)``...) or a fitted treelearn
        estimator (a classifier, a :class:`Discretizer`, a :class:`TreeMixture`...).
    path : str or os.PathLike
        Where to write.

    Raises
    ------
    InputTypeError
        ``obj`` is neither a model nor a fitted treelearn estimator.

    See Also
    --------
    load : reads the file back.

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

    Parameters
    ----------
    path : str or os.PathLike
        A file :func:`save` wrote (read within ``treelearn.limits.FILE_SIZE_LIMIT``).

    Returns
    -------
    Model or estimator
        What was saved, equal to it (``tl.load(path) == model``).

    Raises
    ------
    FileNotFoundError
        No such file.
    CorruptModelFileError
        Not JSON (e.g. truncated).
    ModelFormatError
        Not a treelearn file, or an unsupported version or kind.
    InvalidModelError
        The contents are inconsistent (the message says where).

    See Also
    --------
    save : writes the file.

    Examples
    --------
    >>> import os, tempfile, pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> X, y = df.drop(columns="either"), df["either"]
    >>> clf = tl.TAN().fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "tan.json")
    >>> tl.save(clf, path)
    >>> again = tl.load(path)
    >>> type(again).__name__, bool((again.predict(X) == clf.predict(X)).all())
    ('TAN', True)
    """
    text = read_text(path)
    try:
        return loads(text)
    except ModelFileError as exc:
        raise type(exc)(f"{os.fspath(path)}: {exc}") from None
