"""Validation and encoding of tables: every column becomes integer codes 0..k-1.

A :class:`Table` is what the rest of treelearn works on: an ``n x d`` array of
small integer codes (``-1`` marks a missing value), the column names, and each
column's state labels. States follow a documented, stable order:

* a pandas ``Categorical`` keeps its declared categories, in their order, even
  the ones never observed (they are states; smoothing gives them mass);
* ``bool`` columns have the states ``[False, True]``;
* every other column has its distinct observed values, sorted.

Floats are accepted only when every value is a whole number and there are few of
them (an integer column that picked up a NaN); any other float column is
rejected with a pointer to :func:`discretize`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from .errors import (
    ColumnNotFoundError,
    DuplicateColumnError,
    EmptyDataError,
    MissingValuesError,
    NumericColumnError,
    TooManyStatesError,
    TreelearnError,
    UnseenStateError,
)

__all__ = ["DEFAULT_MAX_STATES", "MissingPolicy", "Table", "discretize", "encode"]

MissingPolicy = Literal["error", "drop", "pairwise"]
DEFAULT_MAX_STATES = 100


@dataclass(frozen=True)
class Table:
    """Integer-coded data: ``codes[r, j]`` is the state index of column ``j`` in row ``r``.

    Attributes
    ----------
    codes : ndarray of shape (n, d), signed integers, ``-1`` for a missing value.
    columns : tuple of column names, in the caller's order.
    states : tuple with, for each column, the tuple of its state labels.
    dtypes : tuple with each column's pandas dtype, used to give sampled data
        back its original types.
    """

    codes: np.ndarray
    columns: tuple
    states: tuple
    dtypes: tuple = field(default=())

    @property
    def n_rows(self) -> int:
        return int(self.codes.shape[0])

    @property
    def cardinalities(self) -> np.ndarray:
        return np.array([len(s) for s in self.states], dtype=np.int64)

    def index(self, column: Hashable) -> int:
        """Position of ``column``; :class:`ColumnNotFoundError` if it is not one."""
        try:
            return self.columns.index(column)
        except ValueError:
            raise ColumnNotFoundError(
                f"{column!r} is not a column of the data; the columns are {list(self.columns)}"
            ) from None

    def states_of(self) -> dict:
        """``{column: [state, ...]}``."""
        return {c: list(s) for c, s in zip(self.columns, self.states)}

    def decode(self, codes: np.ndarray | None = None) -> pd.DataFrame:
        """Turn codes (default: this table's) back into a DataFrame of labels and dtypes."""
        codes = self.codes if codes is None else codes
        out = {}
        for j, (name, states) in enumerate(zip(self.columns, self.states)):
            dtype = self.dtypes[j] if self.dtypes else None
            col = codes[:, j]
            if isinstance(dtype, pd.CategoricalDtype):
                if list(dtype.categories) != list(states):  # states given at learning time:
                    # codes index the states, not the column's categories
                    dtype = pd.CategoricalDtype(list(states), ordered=dtype.ordered)
                out[name] = pd.Categorical.from_codes(col, dtype=dtype)
                continue
            labels = np.empty(len(states), dtype=object)
            labels[:] = list(states)
            values = pd.Series(labels[col], dtype=object)
            values[col < 0] = None
            if dtype is not None:
                # e.g. integers with a missing value cannot be int64: keep object
                with contextlib.suppress(TypeError, ValueError):
                    values = values.astype(dtype)
            out[name] = values.to_numpy() if dtype is None else values
        return pd.DataFrame(out, columns=list(self.columns))


def _python_scalar(value: Any) -> Any:
    """numpy scalars -> Python scalars, so states compare, print and serialise cleanly."""
    return value.item() if isinstance(value, np.generic) else value


def _sorted_states(uniques: Sequence) -> list:
    values = [_python_scalar(v) for v in uniques]
    try:
        return sorted(values)
    except TypeError:  # mixed types (e.g. 1 and "a"): a stable order all the same
        return sorted(values, key=lambda v: (type(v).__name__, str(v)))


def _codes_for_states(name: Hashable, series: pd.Series, states: list, unseen: str) -> np.ndarray:
    """Codes of ``series`` against a fixed list of states; unseen values are an error or missing."""
    # factorize (one hash pass over the rows), then look up only the distinct values:
    # several times faster than pd.Categorical(series, categories=...) on object columns
    raw, uniques = pd.factorize(series, use_na_sentinel=True)
    lookup = pd.Index(states, dtype=object, tupleize_cols=False)
    found = lookup.get_indexer(pd.Index(np.asarray(uniques, dtype=object), dtype=object,
                                        tupleize_cols=False))
    # True == 1 and False == 0 hash alike; a bool must not stand for a number or back
    for i in np.flatnonzero(found >= 0):
        if isinstance(uniques[i], (bool, np.bool_)) != isinstance(states[found[i]], bool):
            found[i] = -1
    codes = np.append(found, -1).astype(np.int64)[raw]  # raw code -1 (missing) picks the -1
    bad = (codes < 0) & (raw >= 0)
    if bad.any() and unseen == "error":  # with "ignore" they stay -1: missing
        values = pd.unique(series[bad])
        shown = ", ".join(repr(_python_scalar(v)) for v in values[:5])
        raise UnseenStateError(
            f"column {name!r} has value(s) {shown} ({int(bad.sum())} rows) that are not among "
            f"its states {states}; fix the data, pass unseen='ignore' to treat them as "
            f"missing, or give the column these states when learning"
        )
    return codes


def _float_states(name: Hashable, values: np.ndarray, max_states: int) -> None:
    """Reject float columns that are not a few whole numbers."""
    observed = values[~np.isnan(values)]
    fractional = ~np.isfinite(observed) | (observed != np.round(observed))  # inf is no state
    whole = not fractional.any()
    distinct = np.unique(observed)
    if not whole or len(distinct) > max_states:
        example = observed[fractional][:1] if not whole else distinct[-1:]
        raise NumericColumnError(
            f"column {name!r} is numeric with {len(distinct)} distinct values (e.g. "
            f"{float(example[0])!r}); treelearn models discrete variables: discretize it first with "
            f"tl.discretize(df, bins=5, strategy='quantile') (or 'uniform'), or convert it to "
            f"a categorical dtype"
        )


def _small_integer_codes(series: pd.Series) -> tuple[np.ndarray, list] | None:
    """Codes and states of a numpy bool or integer column with a small range, without hashing.

    The same codes and states as the general path (sorted distinct values), found
    from the column's minimum and a presence count: a 0/1 column costs two
    reductions and a subtraction. ``None`` for other columns.
    """
    dtype = series.dtype
    if dtype.kind == "b":
        return series.to_numpy().view(np.int8), [False, True]
    if dtype.kind not in "iu" or len(series) == 0:
        return None
    values = series.to_numpy()
    low, high = values.min(), values.max()
    span = int(high) - int(low)
    if span >= 2**16 or int(high) >= 2**63:
        return None
    if span < 128:
        shifted = (values - low).astype(np.int8, copy=False)  # wraps harmlessly: 0 <= v - low < 128
    else:
        shifted = values.astype(np.int64) - int(low)
    if span <= 1:  # both ends are present: every value in between is
        present = np.ones(span + 1, dtype=bool)
    else:
        present = np.bincount(shifted.ravel().view(np.uint8) if span < 128 else shifted,
                              minlength=span + 1) > 0
    states = [int(low) + int(t) for t in np.flatnonzero(present)]
    if present.all():
        return shifted, states
    lookup = (np.cumsum(present) - 1).astype(np.int64)
    return lookup[shifted], states


def _small_integer_frame(data: pd.DataFrame, max_states: int) -> tuple[np.ndarray, list] | None:
    """Codes and states of a frame whose columns all share one numpy bool or integer dtype,
    each spanning fewer than 127 values, in a few 2-D passes (0/1 matrices, one-hot
    data, small integer codes); ``None`` for any other frame.

    The same codes and states as the column-by-column path; much faster on wide
    frames, whose columns are often strided views of one 2-D block.
    """
    dtypes = set(data.dtypes)
    if len(dtypes) != 1 or data.shape[0] == 0:
        return None
    dtype = dtypes.pop()
    if not isinstance(dtype, np.dtype) or dtype.kind not in "biu":
        return None
    values = data.to_numpy()
    n, d = values.shape
    out = np.empty((n, d), dtype=np.int8)
    if dtype.kind == "b":
        out[...] = values
        return out, [(False, True)] * d
    low, high = values.min(axis=0), values.max(axis=0)
    if int(high.max()) >= 2**63:
        return None
    span = high.astype(np.int64) - low.astype(np.int64)
    if span.max() >= 127 or span.min() < 0:  # negative: int64 overflow, a range over 2^63
        return None
    np.subtract(values, low, out=out, casting="unsafe")  # wraps harmlessly: 0 <= v - low < 127
    all_states = []
    for j in range(d):
        present = np.ones(int(span[j]) + 1, dtype=bool)
        if span[j] > 1:  # with 0/1 columns both ends are present: nothing to look for
            present = np.bincount(out[:, j].view(np.uint8), minlength=int(span[j]) + 1) > 0
            if not present.all():
                out[:, j] = (np.cumsum(present) - 1).astype(np.int8)[out[:, j]]
        if present.sum() > max_states:
            return None  # the column-by-column path raises the error
        all_states.append(tuple(int(low[j]) + int(t) for t in np.flatnonzero(present)))
    return out, all_states


def _given_states(name: Hashable, given: Any) -> list:
    """The states given for a column, as a list; a clear error for a list that cannot be one."""
    if isinstance(given, (str, bytes)) or not isinstance(given, Iterable):
        raise TreelearnError(
            f"the states given for column {name!r} must be a list of labels, not {given!r}"
        )
    states = [_python_scalar(v) for v in given]
    missing = [v for v in states if not isinstance(v, (list, tuple)) and pd.isna(v)]
    if missing:
        raise TreelearnError(
            f"the states given for column {name!r} include the missing value {missing[0]!r}; "
            f"a missing value is not a state: leave it out (see the missing= option)"
        )
    if pd.Index(states, dtype=object, tupleize_cols=False).has_duplicates:
        raise TreelearnError(
            f"the states given for column {name!r} repeat a label: {states}; list each state once"
        )
    return states


def _encode_column(
    name: Hashable, series: pd.Series, max_states: int, given: list | None, unseen: str
) -> tuple[np.ndarray, list]:
    if given is not None:
        states = _given_states(name, given)
        return _codes_for_states(name, series, states, unseen), states
    dtype = series.dtype
    fast = _small_integer_codes(series) if isinstance(dtype, np.dtype) else None
    if fast is not None:
        codes, states = fast
    elif isinstance(dtype, pd.CategoricalDtype):
        states = [_python_scalar(v) for v in dtype.categories]
        codes = np.asarray(series.cat.codes)
    elif pd.api.types.is_bool_dtype(dtype):
        states = [False, True]
        codes = _codes_for_states(name, series, states, "error")
    else:
        if pd.api.types.is_float_dtype(dtype):
            _float_states(name, series.to_numpy(dtype=float, na_value=np.nan), max_states)
        raw_codes, uniques = pd.factorize(series, use_na_sentinel=True)
        if len(uniques) > max_states:  # an error below; do not sort a million identifiers
            states = list(uniques)
            codes = raw_codes
        else:
            states = _sorted_states(list(uniques))
            # factorize numbers states by first appearance; remap to the sorted order
            position = {s: i for i, s in enumerate(states)}
            remap = np.array([position[_python_scalar(u)] for u in uniques] + [-1], dtype=np.int64)
            if np.array_equal(remap[:-1], np.arange(len(uniques))):
                codes = raw_codes  # already in sorted order
            else:
                codes = remap[raw_codes]  # raw code -1 picks the trailing -1
    if len(states) > max_states:
        raise TooManyStatesError(
            f"column {name!r} has {len(states)} distinct values, more than max_states="
            f"{max_states}; drop it if it is an identifier, discretize it with "
            f"tl.discretize(df, bins=...), or raise max_states"
        )
    if len(states) == 0:
        raise EmptyDataError(
            f"column {name!r} has no observed value; drop it or fill it in"
        )
    return codes, states


def _code_dtype(max_card: int) -> np.dtype:
    for dt in (np.int8, np.int16, np.int32):
        if max_card <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.int64)


def check_frame(data: pd.DataFrame) -> None:
    """Shape and name checks shared by every entry point."""
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"expected a pandas DataFrame, got {type(data).__name__}; "
            f"wrap arrays with pd.DataFrame(array, columns=[...])"
        )
    if data.shape[1] == 0:
        raise EmptyDataError("the table has no columns; give at least one column")
    # a NaN name is unequal to itself: graph algorithms keyed on names would loop forever
    unnamed = [j for j, c in enumerate(data.columns) if not isinstance(c, tuple) and pd.isna(c)]
    if unnamed:
        raise TreelearnError(
            f"column(s) at position(s) {unnamed} have a missing name ({data.columns[unnamed[0]]!r}); "
            f"give every column a name, e.g. df.columns = [...]"
        )
    duplicated = data.columns[data.columns.duplicated()].unique()
    if len(duplicated):
        raise DuplicateColumnError(
            f"duplicate column name(s) {list(duplicated)}; rename them so each column is unique"
        )
    if data.shape[0] == 0:
        raise EmptyDataError(
            f"the table has no rows (columns {list(data.columns)[:10]}); there is nothing to learn"
        )


def missing_summary(missing: np.ndarray, columns: Iterable) -> str:
    counts = missing.sum(axis=0)
    parts = [f"column {c!r}: {int(k)} missing" for c, k in zip(columns, counts) if k]
    return "; ".join(parts)


def encode(
    data: pd.DataFrame,
    *,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
    states: Mapping[Hashable, Sequence] | None = None,
    unseen: Literal["error", "ignore"] = "error",
) -> Table:
    """Validate ``data`` and encode every column as integer codes.

    Parameters
    ----------
    data : DataFrame of discrete columns. It is never modified.
    missing : ``"error"`` (default) raises :class:`MissingValuesError` naming the
        columns and counts; ``"drop"`` drops incomplete rows; ``"pairwise"``
        keeps them, coding each missing value as ``-1``.
    max_states : the most distinct values a column may have.
    states : optional ``{column: states}`` fixing the states (and their order) of
        some columns; a value outside them is an :class:`UnseenStateError`, or a
        missing value when ``unseen="ignore"``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = encode(pd.DataFrame({"a": ["y", "x", "y"], "b": [True, False, True]}))
    >>> t.states
    (('x', 'y'), (False, True))
    >>> t.codes.tolist()
    [[1, 1], [0, 0], [1, 1]]
    """
    check_frame(data)
    if missing not in ("error", "drop", "pairwise"):
        raise ValueError(f"missing must be 'error', 'drop' or 'pairwise', not {missing!r}")
    if unseen not in ("error", "ignore"):
        raise ValueError(f"unseen must be 'error' or 'ignore', not {unseen!r}")
    states = dict(states or {})
    unknown = [c for c in states if c not in data.columns]
    if unknown:
        raise ColumnNotFoundError(
            f"states given for {unknown!r}, which are not columns of the data "
            f"{list(data.columns)}"
        )
    columns = tuple(data.columns)
    # column by column: no n x d boolean frame (it would be as large as a categorical input)
    n_missing = np.array([int(data[c].isna().sum()) for c in columns], dtype=np.int64)
    if n_missing.any():
        if missing == "error":
            raise MissingValuesError(
                f"missing values found ({missing_summary(n_missing[None, :], columns)}); pass "
                f"missing='drop' to drop incomplete rows or missing='pairwise' to use, for "
                f"each table, the rows where its variables are observed"
            )
        if missing == "drop":
            keep = np.ones(len(data), dtype=bool)
            for c, k in zip(columns, n_missing):
                if k:
                    keep &= data[c].notna().to_numpy()
            if not keep.any():
                raise EmptyDataError(
                    f"every row has a missing value ({missing_summary(n_missing[None, :], columns)}); "
                    f"missing='drop' leaves no rows: try missing='pairwise'"
                )
            data = data.iloc[np.flatnonzero(keep)]
    whole = None if states else _small_integer_frame(data, max_states)
    if whole is not None:
        matrix, all_states = whole
        columns_to_encode = []
    else:
        all_states = []
        # codes go straight into the smallest integer matrix that holds them (widened
        # when a column needs it), so encoding never holds d int64 columns at once
        matrix = np.empty((len(data), len(columns)), dtype=np.int8)
        columns_to_encode = columns
    for j, name in enumerate(columns_to_encode):
        codes, col_states = _encode_column(
            name, data[name], max_states, states.get(name), unseen
        )
        width = _code_dtype(len(col_states))
        if width.itemsize > matrix.dtype.itemsize:
            matrix = matrix.astype(width)
        matrix[:, j] = codes
        all_states.append(tuple(col_states))
    dtypes = tuple(data[c].dtype for c in columns)
    return Table(codes=matrix, columns=columns, states=tuple(all_states), dtypes=dtypes)


def discretize(
    data: pd.DataFrame,
    bins: int = 5,
    strategy: Literal["quantile", "uniform"] = "quantile",
    columns: Sequence[Hashable] | None = None,
) -> pd.DataFrame:
    """Return a copy of ``data`` with numeric columns cut into ordered categorical bins.

    Parameters
    ----------
    bins : number of bins per column (quantile bins that coincide are merged).
    strategy : ``"quantile"`` (equal counts) or ``"uniform"`` (equal widths).
    columns : the columns to cut; default: every float column, and every integer
        column with more than ``bins`` distinct values.

    The new columns are ordered ``Categorical`` with interval labels such as
    ``"(0.5, 1.2]"``; missing values stay missing.

    Examples
    --------
    >>> import pandas as pd
    >>> out = discretize(pd.DataFrame({"x": [0.1, 0.2, 0.3, 0.4]}), bins=2)
    >>> out["x"].tolist()
    ['(0.099, 0.25]', '(0.099, 0.25]', '(0.25, 0.4]', '(0.25, 0.4]']
    """
    check_frame(data)
    if strategy not in ("quantile", "uniform"):
        raise ValueError(f"strategy must be 'quantile' or 'uniform', not {strategy!r}")
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"bins must be a positive integer, not {bins!r}")
    if columns is None:
        columns = [
            c
            for c in data.columns
            if pd.api.types.is_float_dtype(data[c].dtype)
            or (
                pd.api.types.is_integer_dtype(data[c].dtype)
                and not pd.api.types.is_bool_dtype(data[c].dtype)
                and data[c].nunique() > bins
            )
        ]
    out = data.copy()
    for c in columns:
        if c not in data.columns:
            raise ColumnNotFoundError(f"{c!r} is not a column of the data to discretize")
        values = data[c]
        if not pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(
            values.dtype
        ):
            raise NumericColumnError(
                f"column {c!r} has dtype {values.dtype}, not numbers; only numeric columns "
                f"can be discretized"
            )
        if np.isinf(values.to_numpy(dtype=float, na_value=np.nan)).any():
            raise NumericColumnError(
                f"column {c!r} has infinite values, which fall in no bin; replace them "
                f"(e.g. with NaN for missing) before discretizing"
            )
        if strategy == "quantile" and values.nunique() == 1:
            # qcut finds one edge and no bin, turning every value into NaN: one bin instead
            cut = pd.cut(values, bins=1)
        elif strategy == "quantile":
            cut = pd.qcut(values, q=bins, duplicates="drop")
        else:
            cut = pd.cut(values, bins=bins)
        out[c] = cut.cat.rename_categories([str(i) for i in cut.cat.categories])
    return out
