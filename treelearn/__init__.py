"""treelearn: tree-shaped Bayesian networks (Chow-Liu, naive Bayes, TAN) from tabular data.

>>> import pandas as pd, treelearn as tl
>>> model = tl.chow_liu(pd.read_csv("datasets/asia.csv"))
>>> sorted(model.variables)[:3]
['asia', 'bronc', 'dysp']

This module is the public API, assembled from the public submodules by role, each of
which lists its names once (``NAMES``: name -> the private module defining it):
:mod:`treelearn.classifiers`, :mod:`treelearn.density`, :mod:`treelearn.structure`,
:mod:`treelearn.io`, :mod:`treelearn.explain` and :mod:`treelearn.viz`; ``tl.TAN`` is
``treelearn.classifiers.TAN``. The exception family is imported eagerly; everything else
loads on first use. ARCHITECTURE.md says which module owns what.
"""

import sys as _sys
from typing import TYPE_CHECKING, Any

from . import classifiers, density, explain, io, structure, viz
from ._base import errors as _errors
from ._base import limits as _limits
from ._base.errors import (
    CapabilityError,
    ClassColumnError,
    ClassLabelError,
    ColumnNotFoundError,
    CorruptModelFileError,
    DataFileError,
    DuplicateColumnError,
    EmptyDataError,
    FeatureMismatchError,
    InputTypeError,
    InvalidModelError,
    MissingValuesError,
    ModelFileError,
    ModelFormatError,
    NumericColumnError,
    NumericColumnWarning,
    ResourceLimitError,
    StructureError,
    TableProblemsError,
    TooManyStatesError,
    TreelearnError,
    UnseenStateError,
)

if TYPE_CHECKING:  # the roles' names, for type checkers and IDEs (each role module lists
    # them under TYPE_CHECKING too); at run time see __getattr__
    from .classifiers import *  # noqa: F403
    from .density import *  # noqa: F403
    from .explain import *  # noqa: F403
    from .io import *  # noqa: F403
    from .structure import *  # noqa: F403
    from .viz import *  # noqa: F403

#: the public submodules by role, each listing its names once
ROLES = {
    "classifiers": classifiers,
    "density": density,
    "structure": structure,
    "io": io,
    "explain": explain,
    "viz": viz,
}
#: every lazily loaded public name and the module (below ``treelearn``) that defines it
_LAZY = {name: source for role in ROLES.values() for name, source in role.NAMES.items()}

#: modules that are part of the public API: ``treelearn.limits.MEMORY_LIMIT = 32 * 2**30``
_MODULES = {"limits": "_base.limits"}
# ``import treelearn.limits`` finds the very module the checks read (no file of its own)
_sys.modules[f"{__name__}.limits"] = _limits


def __getattr__(name: str) -> Any:
    from importlib import import_module

    if name in _MODULES:
        value = import_module(f".{_MODULES[name]}", __name__)
        globals()[name] = value
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'treelearn' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_MODULES})


__version__ = "0.1.0"

__all__ = sorted([*_errors.__all__, *_LAZY])
