"""Lazy public names: a module's ``__getattr__`` and ``__dir__`` that import the module
defining a name on its first use, so ``import treelearn`` (and the command line's tree
commands) never load scikit-learn, SciPy, matplotlib or pgmpy before they are needed.

>>> import types
>>> mod = types.ModuleType("demo")
>>> mod.__getattr__, mod.__dir__ = lazy_names("demo", {"sqrt": "math"}, package="")
>>> mod.__getattr__("sqrt")(9.0)
3.0
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    module: str, names: Mapping[str, str], package: str = "treelearn"
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the module named ``module``: ``names`` maps each public
    name to the module defining it (below ``package``); a name is imported on first use and
    kept in the module's namespace, so later look-ups do not come here."""

    def __getattr__(name: str) -> Any:
        source = names.get(name)
        if source is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{source}" if package else source), name)
        namespace = sys.modules.get(module)
        if namespace is not None:
            setattr(namespace, name, value)
        return value

    def __dir__() -> list[str]:
        namespace = sys.modules.get(module)
        return sorted({*(vars(namespace) if namespace else ()), *names})

    return __getattr__, __dir__
