"""The input kinds, and the one conversion of arrays and tables.

Every learner's data goes through this module first (scipy's ``validate_graph``
is the model): :func:`kind_of` says what a piece of data is, from one registry,
:data:`KINDS`, and :func:`by_kind` calls the reader a statistics function
declares for that kind, or raises one :class:`~treelearn.InputTypeError`
saying why that learner cannot take it. The kinds, in the order they are
recognised:

========  ====================================================================
name      what it is
========  ====================================================================
table     an encoded :class:`~treelearn.encoding._table.Table` (integer codes)
sparse    a ``scipy.sparse`` matrix or array
dask      a ``dask.dataframe.DataFrame`` (recognised without importing dask)
path      a ``str`` or ``os.PathLike``: a CSV or Parquet file (or Parquet folder)
frame     a pandas ``DataFrame``
array     a numpy array, or anything ``np.asarray`` takes (lists, a Series...)
========  ====================================================================

A new kind is one :class:`InputKind` in :data:`KINDS` plus one reader in each
statistics function that can take it; no learner changes.

The conversion of an array or a table is written once, here, with one error per
problem whoever asks: :func:`as_frame` (a DataFrame of any columns),
:func:`numeric_matrix` (a float matrix of numeric columns), :func:`term_matrix`
(non-negative counts, a sparse matrix kept sparse). The problems: an array that
is not 2-D (scikit-learn's "Reshape your data"), complex numbers, a sparse matrix
where a dense table is needed, a column that is not numbers where numbers are
needed, missing or infinite values, negative counts; each error names the
column and the fix.

>>> kind_of([[1, 2]]).name, kind_of("datasets/asia.csv").name
('array', 'path')
>>> numeric_matrix([[1, 2.5], [3, 4.0]])[0]
['x0', 'x1']
>>> numeric_matrix(pd.DataFrame({"a": [1.0], "c": ["no"]}), learner="gaussian_chow_liu")
... # doctest: +ELLIPSIS
Traceback (most recent call last):
...
treelearn.TreelearnError: column 'c' is not numeric (dtype ..., e.g. 'no'); gaussian_chow_liu needs numeric columns only: drop it, or encode it as numbers
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from .._base.errors import (
    EmptyDataError,
    FeatureMismatchError,
    InputTypeError,
    MissingValuesError,
    TreelearnError,
)
from ..encoding._table import Table, check_column_names, python_scalar
from ..stats._counts import is_scipy_sparse
from ._dask import is_dask_dataframe

__all__ = [
    "DENSE_NEEDED",
    "KINDS",
    "InputKind",
    "as_frame",
    "by_kind",
    "complex_error",
    "empty_error",
    "first_not_number",
    "frame_of_array",
    "is_path",
    "kind_of",
    "match_features",
    "not_2d_error",
    "not_numeric_error",
    "not_numeric_words",
    "numeric_matrix",
    "refusal",
    "sparse_error",
    "term_matrix",
    "text_turn",
    "turn_reason",
]

T = TypeVar("T")


def is_path(data: Any) -> bool:
    """Whether ``data`` names a file (a ``str`` or ``os.PathLike``)."""
    return isinstance(data, (str, os.PathLike))


def _is_array(data: Any) -> bool:
    return isinstance(data, (np.ndarray, list, tuple)) or (
        hasattr(data, "__array__") and not hasattr(data, "to_delayed")
    )  # a dask Series: no


@dataclass(frozen=True)
class InputKind:
    """One kind of input: its ``name`` (the key readers are declared under), a
    ``description`` for messages, and the test that ``recognises`` it."""

    name: str
    description: str
    recognises: Callable[[Any], bool]


#: every kind of input treelearn reads, in the order they are tried
KINDS: tuple[InputKind, ...] = (
    InputKind("table", "an encoded Table", lambda data: isinstance(data, Table)),
    InputKind("sparse", "a scipy.sparse matrix", is_scipy_sparse),
    InputKind("dask", "a dask DataFrame", is_dask_dataframe),
    InputKind("path", "a CSV/Parquet path", is_path),
    InputKind("frame", "a pandas DataFrame", lambda data: isinstance(data, pd.DataFrame)),
    InputKind("array", "an array", _is_array),
)
#: every kind's name (a module constant: mypy misreads a generator in a default argument)
_ALL_KINDS = tuple(k.name for k in KINDS)


def _listing(names: Sequence[str]) -> str:
    words = [k.description for k in KINDS if k.name in names]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def kind_of(
    data: Any,
    accepted: Sequence[str] = _ALL_KINDS,
    learner: str = "treelearn",
    fix: str = "",
) -> InputKind:
    """The :class:`InputKind` of ``data``; an :class:`~treelearn.InputTypeError` naming
    its type and what ``learner`` takes (the ``accepted`` kinds) when no kind fits."""
    for kind in KINDS:
        if kind.recognises(data):
            return kind
    raise InputTypeError(
        f"{learner} takes {_listing(accepted)}, not {type(data).__name__}"
        + (f"; {fix}" if fix else "")
    )


def refusal(learner: str, data: Any, why: str) -> InputTypeError:
    """The one error for a kind of input a learner cannot take: what, which type, why."""
    kind = next((k for k in KINDS if k.recognises(data)), None)
    what = kind.description if kind is not None else "this input"
    return InputTypeError(f"{learner} cannot take {what} ({type(data).__name__}): {why}")


def by_kind(
    data: Any,
    readers: Mapping[str, Callable[[Any], T]],
    *,
    learner: str,
    refusals: Mapping[str, str] | None = None,
) -> T:
    """``readers[kind](data)`` for the kind of ``data``: the one dispatch on input kinds.

    A kind without a reader raises :class:`~treelearn.InputTypeError`: ``learner``
    cannot take it, with ``refusals[kind]`` (why, and the fix) when given.

    >>> by_kind([[1]], {"frame": len}, learner="count", refusals={"array": "wrap it in a DataFrame"})
    Traceback (most recent call last):
    ...
    treelearn.InputTypeError: count cannot take an array (list): wrap it in a DataFrame
    """
    refusals = refusals or {}
    kind = kind_of(data, list(readers), learner, refusals.get("unknown", ""))
    reader = readers.get(kind.name)
    if reader is None:
        raise refusal(
            learner, data, refusals.get(kind.name) or f"it takes {_listing(list(readers))}"
        )
    return reader(data)


# ---------------------------------------------------------------------- the one conversion
#: why a learner that needs a dense table refuses a sparse matrix, and the fix
DENSE_NEEDED = "it needs a dense table; pass X.toarray() (or a DataFrame) if it fits in memory"


def sparse_error(learner: str, data: Any) -> InputTypeError:
    """The one error for a sparse matrix where a dense table is needed (the word "sparse"
    is what scikit-learn's estimator checks look for)."""
    return refusal(learner, data, DENSE_NEEDED)


def complex_error(column: Hashable | None = None, need: str = "real numbers") -> TreelearnError:
    """The one error for complex numbers (scikit-learn's "Complex data not supported")."""
    where = "X" if column is None else f"column {column!r}"
    return TreelearnError(
        f"{where} holds complex numbers: Complex data not supported; give {need}", column=column
    )


def first_not_number(series: pd.Series) -> tuple[Hashable, Any] | None:
    """``(row, value)``: the first observed cell of ``series`` that is not a number, by its
    row label (a file's rows numbered from 0, as the table read whole numbers them): the
    first text that does not read as a number (``"unknown"`` in a column of numbers
    written as text, where a CSV column turns to text), else the first boolean, category,
    date or text; ``None`` when nothing is observed.

    >>> first_not_number(pd.Series(["1.5", "2", "unknown", "x"], index=[10, 11, 12, 13]))
    (12, 'unknown')
    >>> first_not_number(pd.Series([None, True, False]))
    (1, True)
    """
    observed = series.dropna()
    if observed.empty:
        return None
    if observed.dtype == object or pd.api.types.is_string_dtype(observed.dtype):
        words = _words(observed)
        if words.any():
            at = int(np.argmax(words))
            return python_scalar(observed.index[at]), python_scalar(observed.iloc[at])
    return python_scalar(observed.index[0]), python_scalar(observed.iloc[0])


def _words(observed: pd.Series) -> np.ndarray:
    """Per observed cell of a text column: whether it does not read as a number."""
    words = pd.to_numeric(observed.astype(str), errors="coerce").isna().to_numpy()
    if observed.dtype == object:  # booleans among objects: no numbers (a rare, slow path)
        flags = observed.map(lambda v: isinstance(v, (bool, np.bool_)))
        words = words | flags.to_numpy(dtype=bool)
    return words


def text_turn(
    series: pd.Series, started: bool | None = None
) -> tuple[bool | None, tuple[Hashable, Any] | None]:
    """``(started, turn)`` of a text column read in pieces (a file's chunks, or a table
    whole): ``started``, whether its first observed cell reads as a number (``None``: none
    observed yet; pass it on from the pieces before); ``turn``, ``(row, value)`` of its
    first cell after that which does not: where a column of numbers turns to text (a
    file's ``"unknown"``), named with the problems of the column read as text.

    >>> text_turn(pd.Series([None, "2", "3.5", "n/a", "x"]))
    (True, (3, 'n/a'))
    >>> text_turn(pd.Series(["a", "1"]))  # text from the start: no turn
    (False, None)
    """
    if started is False or pd.api.types.is_numeric_dtype(series.dtype):
        started = True if started is None and series.notna().any() else started
        return started, None
    observed = series.dropna()
    if observed.empty:
        return started, None
    if started is None:  # its first cell alone: a column of text costs one parse
        started = not _words(observed.iloc[:1])[0]
        if not started:
            return False, None
    words = _words(observed)
    if not words.any():
        return started, None
    at = int(np.argmax(words))
    return started, (python_scalar(observed.index[at]), python_scalar(observed.iloc[at]))


def turn_reason(error: TreelearnError, turn: tuple[Hashable, Any]) -> TreelearnError:
    """``error`` (a column's problem) saying where its column of numbers turns to text:
    ``(numbers until row R, which holds 'v')`` after its reason, in its message too; its
    class and fields kept.

    >>> e = TreelearnError("column 'x' has 300 values; drop it", column="x",
    ...                    reason="column 'x' has 300 values", fixes=("drop",))
    >>> turn_reason(e, (11500, "unknown")).reason
    "column 'x' has 300 values (numbers until row 11500, which holds 'unknown')"
    """
    if not error.reason:
        return error
    said = f" (numbers until row {turn[0]}, which holds {turn[1]!r})"
    out = error.copied(str(error).replace(error.reason, error.reason + said, 1))
    out.reason = error.reason + said
    return out


#: how a caller words the refusal of a column that is not numbers (``None``: the learner's
#: default words, :func:`not_numeric_error`); set by :func:`not_numeric_words`
_NOT_NUMERIC: ContextVar[Callable[[Hashable, pd.Series], TreelearnError] | None] = ContextVar(
    "treelearn_not_numeric", default=None
)


@contextmanager
def not_numeric_words(refuse: Callable[[Hashable, pd.Series], TreelearnError]) -> Iterator[None]:
    """Within this block a column that is not numbers where numbers are needed is refused
    with ``refuse(column, series)``: a classifier words it as it words the same column of a
    table in memory (naming the classifier of numbers and states), whether the column is
    met in a table or in the chunk of a file where it turns to text.

    >>> from treelearn._base.errors import TreelearnError
    >>> with not_numeric_words(lambda c, s: TreelearnError(f"no {c}")):
    ...     numeric_matrix(pd.DataFrame({"a": ["x"]}))
    Traceback (most recent call last):
    ...
    treelearn.TreelearnError: no a
    """
    token = _NOT_NUMERIC.set(refuse)
    try:
        yield
    finally:
        _NOT_NUMERIC.reset(token)


def not_numeric_error(column: Hashable, series: pd.Series, learner: str) -> TreelearnError:
    """The one error for a column that is not numbers where numbers are needed (in the
    words of the caller's :func:`not_numeric_words`, if any)."""
    refuse = _NOT_NUMERIC.get()
    if refuse is not None:
        return refuse(column, series)
    example = ""
    observed = series.dropna()
    if len(observed) and not pd.api.types.is_bool_dtype(series.dtype):  # text, categories...
        example = f", e.g. {python_scalar(observed.iloc[0])!r}"
    return TreelearnError(
        f"column {column!r} is not numeric (dtype {series.dtype}{example}); {learner} needs "
        f"numeric columns only: drop it, or encode it as numbers",
        column=column,
        hint="drop the column or encode it as numbers",
    )


def not_2d_error(shape: tuple) -> InputTypeError:
    """The one error for an array that is not 2-D ("Reshape your data": scikit-learn's
    wording, which its estimator checks look for)."""
    return InputTypeError(
        f"X must be 2-D (rows x features), got an array of shape {shape}. Reshape your data: "
        f"X.reshape(-1, 1) if it is a single feature, X.reshape(1, -1) if it is a single row"
    )


#: why a conversion of rows in memory refuses a path or a Dask DataFrame
NOT_IN_MEMORY = {
    "path": "it needs the rows in memory; read the file first (tl.read_data(path))",
    "dask": "it needs the rows in memory; compute them first (ddf.compute())",
}


def _array(X: Any, learner: str = "this model") -> np.ndarray:
    """``X`` as a 2-D numpy array (not copied when it is one), or the error saying why not."""
    kind = next((k.name for k in KINDS if k.recognises(X)), None)
    if kind in NOT_IN_MEMORY:
        raise refusal(learner, X, NOT_IN_MEMORY[kind])
    array = np.asarray(X)
    if array.ndim != 2:
        raise not_2d_error(array.shape)
    return array


def _default_names(d: int, names: Sequence[Hashable] | None) -> list:
    return list(names) if names is not None else [f"x{j}" for j in range(d)]


def as_frame(
    X: Any,
    names: Sequence[Hashable] | None = None,
    *,
    learner: str = "this model",
    need: str = "categorical values (labels, integers or text)",
) -> pd.DataFrame:
    """``X`` as a DataFrame (a DataFrame is returned as it is, never copied or changed);
    a 2-D array gets the columns ``names`` (default ``x0, x1, ...``). ``need`` words what
    the caller needs, for the complex-number error.

    >>> as_frame(np.array([[1, 2]])).columns.tolist()
    ['x0', 'x1']
    >>> as_frame(np.array([1, 2]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    treelearn.InputTypeError: X must be 2-D (rows x features), got an array of shape (2,). Reshape your data: ...
    """
    if isinstance(X, pd.DataFrame):
        return X
    if is_scipy_sparse(X) or hasattr(X, "toarray"):
        raise sparse_error(learner, X)
    array = _array(X, learner)
    if array.dtype.kind == "c":
        raise complex_error(need=need)
    return pd.DataFrame(array, columns=_default_names(array.shape[1], names), copy=False)


def empty_error(shape: tuple, needs: str) -> EmptyDataError:
    """The error for data of no rows or no columns, in scikit-learn's words (what its
    estimator checks look for), then ``needs``: what the learner needs.

    >>> str(empty_error((12, 0), "a Gaussian needs a numeric column"))
    'X has 0 feature(s) (shape=(12, 0)) while a minimum of 1 is required; a Gaussian needs a numeric column'
    """
    what = "sample(s)" if shape[0] == 0 else "feature(s)"
    return EmptyDataError(
        f"X has 0 {what} (shape={tuple(shape)}) while a minimum of 1 is required; {needs}"
    )


def frame_of_array(X: Any, *, learner: str = "this model") -> Any:
    """``X`` unchanged, unless it is an array: then the table of its columns ``x0, x1, ...``
    (:func:`as_frame`), as the classifiers take an array; a table-reading learner that takes
    arrays calls this first (any other kind goes on to its own readers).

    >>> frame_of_array(np.array([[0, 1]])).columns.tolist()
    ['x0', 'x1']
    """
    for kind in KINDS:
        if kind.recognises(X):
            return as_frame(X, learner=learner) if kind.name == "array" else X
    return X  # no kind: the statistics function's refusal names it


def numeric_matrix(
    X: Any,
    *,
    learner: str = "this model",
    names: Sequence[Hashable] | None = None,
    missing: str = "error",
) -> tuple[list, np.ndarray]:
    """``(column names, float64 matrix)`` of a table of numeric columns; ``X`` is not changed
    (the matrix may share its memory: never write to it).

    A 2-D array gets the names ``names`` (default ``x0, x1, ...``). A column that is
    not numbers (text, categories, dates, booleans), holds complex numbers, or holds
    an infinite value raises a :class:`~treelearn.TreelearnError` naming it and the
    fix; so does a sparse matrix or an array that is not 2-D. A missing value (NaN)
    is an error with ``missing="error"``; ``missing="pairwise"`` keeps it as NaN, for
    statistics that use, for each column, the rows where it is observed.

    >>> numeric_matrix(pd.DataFrame({"a": [1, 2], "b": [0.5, 1.5]}))[1].tolist()
    [[1.0, 0.5], [2.0, 1.5]]
    """
    if not isinstance(X, pd.DataFrame):
        if is_scipy_sparse(X) or hasattr(X, "toarray"):
            raise sparse_error(learner, X)
        array = _array(X, learner)
        columns = _default_names(array.shape[1], names)
        if array.dtype.kind in "iuf":  # a plain numeric array: nothing to inspect per column
            return columns, _finite(np.asarray(array, dtype=float), columns, missing)
        if array.dtype.kind == "c":
            raise complex_error(need="real numbers")
        X = pd.DataFrame(array, columns=columns, copy=False).infer_objects()
    columns = list(X.columns)
    check_column_names(columns)
    for name, dtype in X.dtypes.items():
        if pd.api.types.is_complex_dtype(dtype):
            raise complex_error(name, need="real numbers")
        if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            raise not_numeric_error(name, X[name], learner)
    return columns, _finite(X.to_numpy(dtype=float, na_value=np.nan), columns, missing)


def _finite(X: np.ndarray, names: list, missing: str = "error") -> np.ndarray:
    """``X`` if every value is finite (or NaN, with ``missing="pairwise"``); else the error
    naming the first bad column."""
    if missing not in ("error", "pairwise"):
        raise TreelearnError(
            f"missing == {missing!r}, must be one of 'error', 'pairwise'", values=[missing]
        )
    if np.isfinite(X.sum(axis=0)).all():  # one pass; NaN or inf anywhere shows in the sums
        return X
    bad = np.isinf(X) if missing == "pairwise" else ~np.isfinite(X)
    if bad.any():
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        rows = np.flatnonzero(bad[:, j])
        kind, symbol = ("missing", "NaN") if np.isnan(X[rows[0], j]) else ("infinite", "inf")
        cls = MissingValuesError if kind == "missing" else TreelearnError
        raise cls(
            f"column {names[j]!r} has {len(rows)} {kind} value(s) ({symbol} in rows {rows[:5].tolist()}"
            f"{', ...' if len(rows) > 5 else ''}); drop those rows or fill them in",
            column=names[j],
        )
    return X  # finite values whose column sums overflow


def term_matrix(X: Any, *, learner: str = "this model") -> tuple[Any, list | None]:
    """``(counts, column names or None)``: a ``scipy.sparse`` matrix as float CSR (never
    made dense; it shares the caller's arrays, never written to), anything else as
    :func:`numeric_matrix` gives it; negative, missing or infinite values are refused.

    >>> A, names = term_matrix(pd.DataFrame({"w": [0, 2]}))
    >>> A.tolist(), names
    ([[0.0], [2.0]], ['w'])
    """
    if is_scipy_sparse(X):
        import scipy.sparse as sp

        if len(X.shape) != 2:  # scipy's sparse arrays may be 1-D
            raise not_2d_error(X.shape)
        if X.dtype.kind == "c":
            raise complex_error(need="term counts (non-negative numbers)")
        A = sp.csr_matrix(X, dtype=float, copy=False)
        values, names = A.data, None
        if np.isnan(values).any():
            raise MissingValuesError(
                f"X has missing values (NaN); {learner} needs term counts: fill them with 0"
            )
        if not np.isfinite(values).all():
            raise TreelearnError(
                f"X has infinite values; {learner} needs term counts (non-negative numbers)"
            )
    else:
        names, A = numeric_matrix(X, learner=learner)
        values = A
        if not isinstance(X, pd.DataFrame):
            names = None
    if (values < 0).any():
        # "Negative values in data": scikit-learn's wording, which its estimator checks look for
        raise TreelearnError(
            f"Negative values in data passed to {learner} (e.g. "
            f"{float(values[values < 0][0])!r}): it needs term counts "
            f"(non-negative numbers)"
        )
    return A, names


def match_features(
    X: Any,
    *,
    names: Sequence[Hashable] | None,
    n_features: int,
    estimator: str,
    class_name: Hashable | None = None,
) -> Any:
    """``X`` checked against a fitted estimator's features: the one rule of every estimator.

    A DataFrame is matched by name when the estimator was fitted with ``names`` (the
    same columns in any order are fine, and come back in the fitted order); a missing
    feature or an extra column is a :class:`~treelearn.FeatureMismatchError` naming them
    (and, when the extra column is the class ``class_name``, saying to drop it). An
    array or sparse matrix is matched by position, with scikit-learn's wording for a
    wrong number of columns. No rows is an :class:`~treelearn.EmptyDataError`.

    >>> match_features(pd.DataFrame({"b": [1], "a": [2]}), names=["a", "b"], n_features=2,
    ...                estimator="E").columns.tolist()
    ['a', 'b']
    >>> match_features(np.zeros((1, 3)), names=None, n_features=2, estimator="E")
    Traceback (most recent call last):
    ...
    treelearn.FeatureMismatchError: X has 3 features, but E is expecting 2 features as input
    """
    if isinstance(X, pd.DataFrame) and names is not None:
        fitted = list(names)
        absent = [c for c in fitted if c not in X.columns]
        wanted = set(fitted)
        extra = [c for c in X.columns if c not in wanted]
        if absent or extra:
            hint = (
                f"; {class_name!r} is the class: drop it from X"
                if class_name is not None and any(c == class_name for c in extra)
                else ""
            )
            if absent and not hint:  # features not measured: missing cells, summed out
                hint = (
                    "; to sum the missing features out as unknown (as missing cells are), "
                    "pass X.reindex(columns=clf.feature_names_in_)"
                )
            raise FeatureMismatchError(
                f"X's columns differ from the features {estimator} was fitted on: missing "
                f"{absent[:10]}, unexpected {extra[:10]}{hint}"
            )
        X = X if list(X.columns) == fitted else X[fitted]
    elif not isinstance(X, pd.DataFrame) and not hasattr(X, "tocsr"):
        X = _array(X, estimator)
    if X.shape[1] != n_features:
        fitted_on = "" if names is None else f": {estimator} was fitted on {list(names)[:10]}"
        raise FeatureMismatchError(
            f"X has {X.shape[1]} features, but {estimator} is expecting {n_features} features "
            f"as input{fitted_on}"
        )
    if X.shape[0] == 0:
        raise EmptyDataError("X has no rows; there is nothing to predict or score")
    return X
