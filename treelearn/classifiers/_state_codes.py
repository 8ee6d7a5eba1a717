"""Fast paths of the categorical classifiers for input that already holds state codes.

Two functions, each giving exactly what the general path gives (tested against it):

* :func:`known_state_codes`: the codes of features that the classifier already knows
  to be states — numpy integer or bool columns whose fitted states are integers (or
  ``False``/``True``), pandas Categorical columns — as CategoricalNB reads them: one
  2-D lookup, no hashing or per-value Python; ``None`` for anything else (floats, text,
  an unseen value under ``unseen="error"``), and the caller takes the general path
  (:func:`~treelearn.classifiers._base.categorical_codes`), which words the errors.
* :func:`class_joint_log_likelihood`: ``log p(x, c)`` of complete rows for every class
  of a network in which the class is a variable: one index over the log-CPTs built once
  and shifted by the class's strides, where the general path rebuilds it per class.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd

from ..encoding._table import state_positions
from ..models._tree import TreeModel

__all__ = ["class_joint_log_likelihood", "known_state_codes"]

#: a column's integer states are looked up in a table over their range when the range
#: is at most this many times the number of states (plus a small slack): codes of
#: categories, not identifiers spread over millions
_SPAN_PER_STATE = 4
_SPAN_SLACK = 1024

#: cells (variables x rows) of one block of :func:`class_joint_log_likelihood`: its
#: index (int32) and gathered logs (float64) of a block stay within L2 cache
_BLOCK_CELLS = 2**15


def _integer_states(states: Sequence) -> np.ndarray | None:
    """``states`` as an int64 array if every state is a Python/numpy integer (no bool)
    and their range is small enough for a lookup table; else ``None``."""
    if not states or not all(
        isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_)) for s in states
    ):
        return None
    # Python's min/max over a short list: a numpy reduction per feature cost more
    low, high = int(min(states)), int(max(states))
    if not (low > -(2**62) and high < 2**62):
        return None  # far from zero: the shift below could wrap around int64
    if high - low + 1 > _SPAN_PER_STATE * len(states) + _SPAN_SLACK:
        return None
    return np.asarray(states, dtype=np.int64)


def _integer_matrix_codes(values: np.ndarray, states: list, unseen: str) -> np.ndarray | None:
    """Codes of an integer matrix (rows x features) against each feature's integer
    states: one lookup table laid end to end for all features, one gather."""
    found = [_integer_states(s) for s in states]
    as_ints = [s for s in found if s is not None]
    if len(as_ints) < len(found):
        return None
    if values.dtype.kind == "u" and values.dtype.itemsize == 8 and values.max(initial=0) >= 2**63:
        return None  # beyond int64: the general path
    if all(list(s) == list(range(len(s))) for s in states):
        # the states are the codes 0..k-1 (codes of categories): a value is its own code,
        # -1 outside; no lookup table (a third of the time on 10,000 x 36 codes)
        codes = values.astype(np.intp)  # a copy: the caller's array is kept
        counts = np.array([len(s) for s in states], dtype=np.uintp)
        np.copyto(codes, -1, where=codes.view(np.uintp) >= counts)  # negatives wrap high
        if unseen == "error" and (codes < 0).any():
            return None  # the general path names the column and the value
        return codes
    lows = np.array([min(s) for s in states], dtype=np.int64)  # Python ints: checked above
    highs = np.array([max(s) for s in states], dtype=np.int64)
    spans = highs - lows + 1
    starts = np.concatenate([[0], np.cumsum(spans)[:-1]])
    table = np.full(int(spans.sum()) + 1, -1, dtype=np.intp)  # the last slot: unseen
    for s, start, low in zip(as_ints, starts, lows):
        table[start + s - low] = np.arange(len(s))
    shifted = values.astype(np.int64, copy=False) - lows  # a new n x d array (the caller's kept)
    # below the lowest state wraps to >= 2^63 as unsigned: one comparison finds both ends
    outside = shifted.view(np.uint64) >= spans.astype(np.uint64)
    shifted += starts
    np.copyto(shifted, len(table) - 1, where=outside)
    codes = np.take(table, shifted)  # np.take: 2x to 3x faster than table[shifted]
    if unseen == "error" and (codes < 0).any():
        return None  # the general path names the column and the value
    return codes


def _column_codes(series: pd.Series, states: Sequence, unseen: str) -> np.ndarray | None:
    """Codes of one column that holds states already (Categorical, numpy integers or
    bools), ``None`` for any other column or an unseen value under ``unseen="error"``."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        raw = np.asarray(series.cat.codes, dtype=np.intp)
        categories = dtype.categories
        if len(categories) == len(states) and all(
            type(a) is type(b) and a == b for a, b in zip(categories.tolist(), states)
        ):
            return raw  # the fitted states in the same order: the codes themselves
        remap = np.append(state_positions(categories, states), -1).astype(np.intp)
        codes = remap[raw]  # raw -1 (missing) picks the trailing -1
        if unseen == "error" and ((codes < 0) & (raw >= 0)).any():
            return None
        return codes
    if not isinstance(dtype, np.dtype):
        return None
    if dtype.kind == "b":
        if list(states) == [False, True] and all(isinstance(s, bool) for s in states):
            return series.to_numpy().astype(np.intp)
        return None
    if dtype.kind in "iu":
        matrix = _integer_matrix_codes(series.to_numpy()[:, None], [states], unseen)
        return None if matrix is None else matrix[:, 0]
    return None


def known_state_codes(
    frame: pd.DataFrame, names: list, states: list, unseen: str
) -> np.ndarray | None:
    """The features ``names`` of ``frame`` as codes of the fitted ``states`` (``-1`` =
    missing, or unseen with ``unseen="ignore"``), when every feature holds states
    already; ``None`` otherwise (the caller then encodes the general way).

    The same codes as :func:`~treelearn.classifiers._base.categorical_codes`; memory:
    the codes and one integer matrix of the rows' size.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [3, 5, 3], "b": pd.Categorical(["y", None, "x"])})
    >>> known_state_codes(frame, ["a", "b"], [[3, 5], ["x", "y"]], "error").tolist()
    [[0, 1], [1, -1], [0, 0]]
    >>> known_state_codes(frame, ["a", "b"], [[3], ["x", "y"]], "error") is None  # 5 unseen
    True
    >>> known_state_codes(frame.astype({"a": float}), ["a", "b"], [[3, 5], ["x", "y"]], "error")
    """
    columns = frame[names] if list(frame.columns) != list(names) else frame
    dtypes = set(columns.dtypes)
    if len(dtypes) == 1:
        dtype = next(iter(dtypes))
        if isinstance(dtype, np.dtype) and dtype.kind in "iu":
            return _integer_matrix_codes(columns.to_numpy(), states, unseen)
    out = np.empty((len(columns), len(names)), dtype=np.intp)
    for j, (name, col_states) in enumerate(zip(names, states)):
        codes = _column_codes(columns[name], col_states, unseen)
        if codes is None:
            return None
        out[:, j] = codes
    return out


def class_joint_log_likelihood(
    model: TreeModel,
    class_name: Hashable,
    codes: np.ndarray,
    n_classes: int,
    which: np.ndarray | None = None,
) -> np.ndarray:
    """``log p(x, c)`` of complete feature rows ``codes`` (rows x the model's variables
    but the class, in the model's order, no ``-1``) for every class ``c``, shape
    ``(rows, n_classes)``; with ``which`` (row positions) of those rows of ``codes``
    alone, shape ``(len(which), n_classes)``, read a block at a time (no copy of them).

    The doubles of :meth:`~treelearn.models._tree.TreeModel.complete_log_likelihood`
    with the class column set to each ``c`` (the same gather, the same sum in the
    nodes' order): the index into the log-CPTs is built once, with the class at state 0,
    and shifted by the class's stride for each other class.
    """
    flat, columns, strides, offsets = model.log_cpt_index()
    variables = list(model.variables)
    klass = variables.index(class_name)
    n_rows = codes.shape[0] if which is None else len(which)
    # 32-bit indices where the log-CPTs allow (half the memory traffic of intp)
    width = np.int32 if flat.size < 2**31 else np.intp
    offsets, strides = offsets.astype(width), strides.astype(width)
    others = [j for j in range(len(variables)) if j != klass]
    position = np.empty(len(variables), dtype=np.intp)
    position[others] = np.arange(len(others))
    position[klass] = len(variables) - 1
    rows = position[columns]  # each node's family as rows of ``by_column``
    # each node's stride of the class (0 where the class is not in its family)
    class_stride = np.where(columns == klass, strides, 0).sum(axis=1)[:, None]
    out = np.empty((n_rows, n_classes))
    # blocks of rows: the index and the gathered log-probabilities are variables x block,
    # so the temporaries stay a fixed size (in cache) whatever the rows; each row's sum is
    # the same sequential sum over the nodes, so the doubles do not depend on the block
    block = max(1, _BLOCK_CELLS // len(variables))
    by_column = np.empty((len(variables), min(block, n_rows)), dtype=width)
    for start in range(0, n_rows, block):
        stop = min(start + block, n_rows)
        # the rows laid out variables x rows (contiguous rows of the index below), the
        # class as its own last row at state 0
        here = by_column[:, : stop - start]
        taken = codes[start:stop] if which is None else codes[which[start:stop]]
        here[: len(others)] = np.asarray(taken).T
        here[-1] = 0
        index = offsets[:, None] + strides[:, :1] * here[rows[:, 0]]
        for f in range(1, columns.shape[1]):
            index += strides[:, f : f + 1] * here[rows[:, f]]
        for c in range(n_classes):
            if c:
                index += class_stride
            # np.take, not flat[index]: the same doubles, 2x to 3x faster than fancy
            # indexing
            out[start:stop, c] = np.add.reduce(np.take(flat, index), axis=0)
    return out
