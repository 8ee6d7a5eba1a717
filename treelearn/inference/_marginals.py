"""The answer of ``marginals(evidence)``: a dict ``{variable: Series}`` whose Series are
built when first read.

A pandas Series costs ~15-50 us to build; on a tree of 1,000 variables that was 20x the
message passing itself. :class:`Marginals` holds the probabilities of every variable
in one row (what the frame form holds) and builds a variable's Series the first time it
is read, then keeps it. It is a ``dict`` and behaves as one: ``m[v]``, ``m.get``,
``len``, ``in``, iteration, ``items()``/``values()``, ``dict(m)``, ``{**m}``, ``m | d``,
``==``, ``repr``, ``copy``, pickling all see the Series (a copy or a pickle is a plain
``dict``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, ItemsView, Iterator, Sequence, ValuesView
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Marginals"]

_NOT_BUILT = object()  # the value a variable holds until its Series is built


class Marginals(dict):
    """``{variable: P(variable | evidence)}`` (each a Series over the variable's states,
    named ``"probability"``), built on first read.

    Parameters
    ----------
    variables : the variables answered, in order.
    values : their probabilities side by side (``sum k_v``).
    offsets : where each variable's states start in ``values`` (one per variable).
    labels : ``labels(variable)`` -> the variable's states as a pandas Index.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> m = Marginals(["a", "b"], np.array([0.25, 0.75, 1.0]), [0, 2],
    ...               lambda v: pd.Index({"a": ["x", "y"], "b": ["z"]}[v], name=v))
    >>> m["a"].tolist(), len(m), "b" in m, isinstance(m, dict)
    ([0.25, 0.75], 2, True, True)
    >>> {k: s.tolist() for k, s in dict(m).items()}
    {'a': [0.25, 0.75], 'b': [1.0]}
    """

    def __init__(
        self,
        variables: Sequence[Hashable],
        values: np.ndarray,
        offsets: Sequence[int],
        labels: Callable[[Hashable], pd.Index],
    ) -> None:
        super().__init__(dict.fromkeys(variables, _NOT_BUILT))
        self._variables = variables
        self._offsets = offsets
        self._values = values
        self._labels = labels
        self._position: dict | None = None  # variable -> its place, on the first read

    # every read goes through here: the Series is built once, then kept in the dict
    def __getitem__(self, key: Hashable) -> Any:
        value = dict.__getitem__(self, key)
        if value is _NOT_BUILT:
            if self._position is None:
                self._position = {v: i for i, v in enumerate(self._variables)}
            i = self._position[key]
            a = int(self._offsets[i])
            b = int(self._offsets[i + 1]) if i + 1 < len(self._offsets) else len(self._values)
            value = pd.Series(self._values[a:b].copy(), index=self._labels(key), name="probability")
            dict.__setitem__(self, key, value)
        return value

    def get(self, key: Hashable, default: Any = None) -> Any:
        return self[key] if dict.__contains__(self, key) else default

    def __iter__(self) -> Iterator:
        # a method of our own (not dict's): dict(m), {**m} and dict.update(m) then read
        # the values through keys() and __getitem__, not the placeholders
        return iter(list(dict.keys(self)))

    def keys(self) -> Any:
        return dict.keys(self)

    def values(self) -> Any:
        return ValuesView(self)

    def items(self) -> Any:
        return ItemsView(self)

    def _built(self) -> dict:
        return {k: self[k] for k in dict.keys(self)}

    def copy(self) -> dict:
        return self._built()

    def __eq__(self, other: object) -> bool:
        return self._built() == other

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __repr__(self) -> str:
        return repr(self._built())

    def __or__(self, other: Any) -> Any:
        return self._built() | other

    def __ror__(self, other: Any) -> Any:
        return other | self._built()

    def pop(self, key: Hashable, *default: Any) -> Any:
        if dict.__contains__(self, key):
            value = self[key]
            dict.pop(self, key)
            return value
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple:
        key = next(reversed(dict.keys(self)))
        return key, self.pop(key)

    def setdefault(self, key: Hashable, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            return self[key]
        dict.__setitem__(self, key, default)
        return default

    def __reduce__(self) -> Any:
        return (dict, (self._built(),))

    def __reversed__(self) -> Iterator:
        return reversed(list(dict.keys(self)))
