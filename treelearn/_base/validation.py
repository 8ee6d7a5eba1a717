"""Declarative parameter validation: constraints as data, one wording for every bad option.

Every learner, model method and estimator states what its options may be, as a
mapping from the option's name to a list of accepted forms (scikit-learn's
``_parameter_constraints``), and checks them once, at the entry point, with
:func:`check_params`. A value that fits none of the forms raises a
:class:`~treelearn.TreelearnError` in one wording::

    alpha == -1, must be a finite number >= 0 (0 = maximum likelihood, 1 = Laplace)

The forms are :class:`Interval` (numbers, with bounds; integers with
``Integral``), :class:`Options` (a fixed set of values), :class:`InstanceOf`
(types), ``None`` (the option may be ``None``), and :data:`BOOLEAN`. Numbers may
be numpy scalars (``np.float32(0.5)``, ``np.int64(3)``); a bool is never a
number (``True`` is not ``1`` here), and NaN or infinity is never a finite
number.

>>> check_param("alpha", 0.5, [Interval(Real, 0, None)])
0.5
>>> check_param("alpha", -1, [Interval(Real, 0, None)], note="0 = maximum likelihood, 1 = Laplace")
Traceback (most recent call last):
...
treelearn.TreelearnError: alpha == -1, must be a finite number >= 0 (0 = maximum likelihood, 1 = Laplace)
>>> check_param("n_components", True, [Interval(Integral, 1, None)])
Traceback (most recent call last):
...
treelearn.TreelearnError: n_components == True, must be an integer >= 1
>>> check_param("init", "kmeans", [Options("random", "k-means++")])
Traceback (most recent call last):
...
treelearn.TreelearnError: init == 'kmeans', must be one of 'random', 'k-means++'

(the examples import ``Integral`` and ``Real`` from :mod:`numbers`, as every caller does)
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from .errors import InputTypeError, TreelearnError

__all__ = [
    "BOOLEAN",
    "RANDOM_STATE",
    "Constraint",
    "InstanceOf",
    "Interval",
    "Options",
    "check_param",
    "check_params",
    "file_path",
    "own_export",
    "require_network",
]


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class Interval:
    """Numbers of ``kind`` (``Real`` or ``Integral``) between ``low`` and ``high`` (``None``:
    unbounded); ``closed`` says which ends belong: ``"both"``, ``"left"``, ``"right"`` or
    ``"neither"``. A ``Real`` interval holds finite numbers only.

    >>> Interval(Real, 0, 1, closed="right").accepts(0.0), Interval(Integral, 1, None).accepts(2.0)
    (False, False)
    >>> Interval(Real, 0, 1, closed="right").describe()
    'a finite number > 0 and <= 1'
    """

    #: numbers.Real or numbers.Integral (abstract classes, which ``type[Real]`` refuses)
    kind: type[Any]
    low: float | None = None
    high: float | None = None
    closed: str = "both"

    def accepts(self, value: Any) -> bool:
        if _is_bool(value) or not isinstance(value, self.kind):
            return False
        if self.kind is Real and not math.isfinite(value):
            return False
        open_low, open_high = (
            self.closed in ("right", "neither"),
            self.closed in ("left", "neither"),
        )
        below = self.low is not None and (value < self.low or (value == self.low and open_low))
        above = self.high is not None and (value > self.high or (value == self.high and open_high))
        return not (below or above)

    def describe(self) -> str:
        what = "an integer" if self.kind is Integral else "a finite number"
        bounds = []
        if self.low is not None:
            bounds.append(f"{'>=' if self.closed in ('both', 'left') else '>'} {self.low:g}")
        if self.high is not None:
            bounds.append(f"{'<=' if self.closed in ('both', 'right') else '<'} {self.high:g}")
        return what + (" " + " and ".join(bounds) if bounds else "")

    def convert(self, value: Any) -> Any:
        """The value as a Python ``int`` or ``float`` (numpy scalars included)."""
        return int(value) if self.kind is Integral else float(value)


@dataclass(frozen=True)
class Options:
    """One of a fixed set of values (compared with ``==``, bools kept apart from numbers).

    >>> Options("error", "ignore").accepts("ignore"), Options(1, 2).accepts(True)
    (True, False)
    """

    values: tuple

    def __init__(self, *values: Any) -> None:
        object.__setattr__(self, "values", tuple(values))

    def accepts(self, value: Any) -> bool:
        try:
            return any(value == v and _is_bool(value) == _is_bool(v) for v in self.values)
        except (TypeError, ValueError):  # an array compared elementwise
            return False

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)

    def convert(self, value: Any) -> Any:
        return value


@dataclass(frozen=True)
class InstanceOf:
    """An instance of one of ``types`` (bools excluded unless ``bool`` is listed).

    >>> InstanceOf(dict).accepts({}), InstanceOf(int).accepts(True)
    (True, False)
    """

    types: tuple
    name: str = ""

    def __init__(self, *types: type, name: str = "") -> None:
        object.__setattr__(self, "types", tuple(types))
        object.__setattr__(self, "name", name)

    def accepts(self, value: Any) -> bool:
        if _is_bool(value) and bool not in self.types:
            return False
        return isinstance(value, self.types)

    def describe(self) -> str:
        if self.name:
            return self.name
        names = [t.__name__ for t in self.types]
        return "a " + " or a ".join(names)

    def convert(self, value: Any) -> Any:
        return value


#: one accepted form of an option (``None``: the option may be ``None``)
Constraint = Interval | Options | InstanceOf | None

#: ``True`` or ``False`` (numpy bools too)
BOOLEAN = InstanceOf(bool, np.bool_, name="True or False")
#: a seed: ``None``, an int >= 0 or a ``np.random.Generator`` (the same seed, the same draws)
RANDOM_STATE: list[Constraint] = [
    None,
    Interval(Integral, 0, None),
    InstanceOf(np.random.Generator),
]


def _describe(constraint: Any) -> str:
    return "None" if constraint is None else constraint.describe()


def check_param(name: str, value: Any, constraints: Sequence[Any], *, note: str = "") -> Any:
    """``value`` if it fits one of ``constraints`` (numbers converted to ``int``/``float``),
    else a :class:`~treelearn.TreelearnError` naming the option, the value and what it must be.

    ``note`` is added in parentheses (what the option means, or the fix).
    """
    for constraint in constraints:
        if constraint is None:
            if value is None:
                return None
        elif constraint.accepts(value):
            return constraint.convert(value)
    forms = [_describe(c) for c in constraints]
    must = forms[0] if len(forms) == 1 else ", ".join(forms[:-1]) + " or " + forms[-1]
    raise TreelearnError(
        f"{name} == {value!r}, must be {must}" + (f" ({note})" if note else ""), values=[value]
    )


def check_params(
    values: Mapping[str, Any],
    constraints: Mapping[str, Sequence[Any]],
    notes: Mapping[str, str] | None = None,
) -> dict:
    """Every option of ``values`` that ``constraints`` names, checked by :func:`check_param`
    (in ``constraints``' order); returns ``{name: converted value}``.

    >>> check_params({"alpha": 1, "unseen": "ignore"},
    ...              {"alpha": [Interval(Real, 0, None)], "unseen": [Options("error", "ignore")]})
    {'alpha': 1.0, 'unseen': 'ignore'}
    """
    notes = notes or {}
    return {
        name: check_param(name, values[name], forms, note=notes.get(name, ""))
        for name, forms in constraints.items()
        if name in values
    }


#: what a discrete network answers (TreeModel, a classifier's network, pgmpy's reader output)
_NETWORK_METHODS = ("parents", "cpt")


def _is_network(model: Any) -> bool:
    has_tables = all(callable(getattr(model, name, None)) for name in _NETWORK_METHODS)
    return has_tables and hasattr(model, "variables") and hasattr(model, "states")


def require_network(model: Any, function: str) -> None:
    """Refuse what is no discrete network before ``function`` reads it.

    A network is duck-typed (this layer sits below the model kinds): it has ``variables``,
    ``states`` and the methods ``parents(v)`` and ``cpt(v)``, as a
    :class:`~treelearn.TreeModel` and a fitted classifier's network (``clf.model_``) do.

    >>> require_network(5, "kl_divergence")
    Traceback (most recent call last):
    ...
    treelearn.InputTypeError: kl_divergence takes a discrete network (a TreeModel such as tl.chow_liu(df), or a fitted classifier's network clf.model_), not int 5
    """
    if not _is_network(model):
        raise InputTypeError(
            f"{function} takes a discrete network (a TreeModel such as tl.chow_liu(df), or a "
            f"fitted classifier's network clf.model_), not {type(model).__name__} {model!r:.60}"
        )


def own_export(model: Any, function: str, capability: str, method: str) -> Any:
    """How the export ``function`` (``to_pgmpy``, ``write_bif``, ...) takes ``model``:
    ``None`` for a discrete network (the function reads it, :func:`require_network`),
    else the object's own ``method`` (``to_pgmpy``, ``to_bif``, ...) once it answers
    ``capability``. So ``tl.write_bif(clf, path)`` writes a fitted TAN's network as
    ``clf.to_bif(path)`` does, and what answers no such file (an AODE, a mixture, a
    Gaussian tree's BIF) is refused with its own ``CapabilityError``, which names what it
    answers; anything else is the one ``InputTypeError``.

    >>> own_export(5, "write_bif", "bif", "to_bif")
    Traceback (most recent call last):
    ...
    treelearn.InputTypeError: write_bif takes a discrete network (a TreeModel such as tl.chow_liu(df), or a fitted classifier), not int 5
    """
    if _is_network(model):
        return None
    require = getattr(model, "require", None)
    if callable(require):  # a Capable (a model kind, a classifier): answers it or says why not
        require(capability)
        own = getattr(model, method, None)
        if callable(own):
            return own
    raise InputTypeError(
        f"{function} takes a discrete network (a TreeModel such as tl.chow_liu(df), or a "
        f"fitted classifier), not {type(model).__name__} {model!r:.60}"
    )


def file_path(path: Any, what: str = "model file", also: str = "") -> str:
    """``path`` as a string, or an :class:`~treelearn.InputTypeError` for anything that is
    no file name (``None``, a number, an open file); ``also`` names what else the caller
    takes (``" or a readable text stream"``).

    >>> file_path(123)
    Traceback (most recent call last):
    ...
    treelearn.InputTypeError: the model file must be a path (a str or os.PathLike such as pathlib.Path), not int 123
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InputTypeError(
            f"the {what} must be a path (a str or os.PathLike such as "
            f"pathlib.Path){also}, not {type(path).__name__} {path!r:.60}"
        )
    path = os.fspath(path)
    if not isinstance(path, str):  # a bytes path
        path = os.fsdecode(path)
    if not path:
        raise InputTypeError(f"the {what} must be a path, not the empty string")
    return path
