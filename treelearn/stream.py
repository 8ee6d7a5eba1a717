"""Counting without loading: CSV and Parquet files read in row chunks.

Chow-Liu needs only the pairwise count tables, and those are sums over rows, so
a file is never loaded whole. Two passes at most:

1. **states** (skipped when ``states=`` gives every column): each chunk is
   scanned for its distinct values, which are merged across chunks with the same
   rules as :func:`treelearn.data.encode` (sorted values; ``[False, True]`` for
   bool columns; declared categories for categoricals; whole-number floats only;
   at most ``max_states``). An integer column that is float in some chunk (a
   missing value) gets float states, as it would when read whole. A CSV column
   parsed as numbers in some chunks and as text in others is read again as
   text, as pandas reads it whole (``"1"``, not ``1`` and ``"1"``).
2. **counts**: each chunk is encoded against those states and its ``K x K``
   count matrix is added to a running total.

Memory is that of one chunk plus the ``K x K`` counts, whatever the number of
rows (for Parquet, pyarrow decodes a row group at a time: files written with
huge row groups hold one row group's columns in memory). The same chunk
functions serve :mod:`treelearn.dask_support`, where the chunks are a dask
DataFrame's partitions.

A CSV is read with pandas' defaults (header row, comma separator), as
:func:`treelearn.learn.read_data` reads it whole.

Examples
--------
>>> import os, tempfile, pandas as pd
>>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
>>> pd.DataFrame({"a": [0, 0, 1, 1], "b": ["x", "x", "y", "y"]}).to_csv(path, index=False)
>>> counted = count_file(path, chunksize=3)
>>> counted.states, counted.counts.block(0, 1).tolist()
(((0, 1), ('x', 'y')), [[2, 0], [0, 2]])
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .counts import PairCounts, offsets_of, pair_counts
from .data import (
    DEFAULT_MAX_STATES,
    MissingPolicy,
    _float_states,
    _python_scalar,
    _sorted_states,
    encode,
    missing_summary,
)
from .errors import (
    ColumnNotFoundError,
    EmptyDataError,
    MissingValuesError,
    NumericColumnError,
    TooManyStatesError,
    UnseenStateError,
)

__all__ = [
    "CountedTable",
    "count_chunk",
    "count_file",
    "final_states",
    "iter_chunks",
    "read_header",
    "scan_chunk",
    "text_columns",
    "unseen_message",
]

#: where the advice starts in an unseen-value message (callers with other advice cut there)
STATES_ADVICE = " Give states "

#: ``encode`` gets states for every column in the counting pass; the cap was applied before
_NO_CAP = np.iinfo(np.int64).max


@dataclass(frozen=True)
class CountedTable:
    """Sufficient statistics of a table: its pair counts, columns, states and dtypes."""

    counts: PairCounts
    columns: tuple
    states: tuple
    dtypes: tuple


# ---------------------------------------------------------------- pass 1: states
@dataclass
class ColumnScan:
    """What the chunks seen so far say about one column's states."""

    values: dict = field(default_factory=dict)  # observed values, an ordered set
    kinds: set = field(default_factory=set)  # "bool", "int", "float", "category", "other"
    categories: dict = field(default_factory=dict)  # declared categories, an ordered set
    ordered: bool = False
    dtype: Any = None  # dtype of the first chunk where the column is observed
    # types of the observed values ("bool", "number", "text", "other"), chunk by chunk:
    # kept apart because the ordered set `values` merges 1 and True
    value_kinds: set = field(default_factory=set)

    def merge(self, other: ColumnScan) -> ColumnScan:
        return ColumnScan(
            values={**self.values, **other.values},
            kinds=self.kinds | other.kinds,
            categories={**self.categories, **other.categories},
            ordered=self.ordered or other.ordered,
            dtype=self.dtype if self.dtype is not None else other.dtype,
            value_kinds=self.value_kinds | other.value_kinds,
        )


@dataclass
class Scan:
    """Summary of one chunk, or of several merged: per-column scans and missing counts."""

    columns: tuple
    scans: list
    missing: np.ndarray  # (d,) missing values per column
    n_rows: int

    def merge(self, other: Scan) -> Scan:
        check_columns(other.columns, self.columns)
        return Scan(
            self.columns,
            [a.merge(b) for a, b in zip(self.scans, other.scans)],
            self.missing + other.missing,
            self.n_rows + other.n_rows,
        )


def check_columns(columns: Sequence, expected: Sequence, where: str = "") -> None:
    if tuple(columns) != tuple(expected):
        raise ColumnNotFoundError(
            f"{where}the columns {list(columns)} differ from those of the first chunk "
            f"{list(expected)}; every chunk must have the same columns"
        )


def _kind(dtype: Any) -> str:
    if isinstance(dtype, pd.CategoricalDtype):
        return "category"
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_float_dtype(dtype):
        return "float"
    if pd.api.types.is_integer_dtype(dtype):
        return "int"
    return "other"


def scan_chunk(
    chunk: pd.DataFrame,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
    skip: Iterable[Hashable] = (),
) -> Scan:
    """The distinct values, kinds and missing counts of a chunk's columns.

    With ``missing="drop"`` only complete rows contribute values, as when a
    whole table is encoded. Columns in ``skip`` (given states) are not scanned.
    Raises :class:`NumericColumnError` on a float column that is not whole numbers.
    """
    is_missing = chunk.isna().to_numpy()
    kept = chunk
    if missing == "drop" and is_missing.any():
        kept = chunk.iloc[np.flatnonzero(~is_missing.any(axis=1))]
    skip = set(skip)
    scans = []
    for j, name in enumerate(chunk.columns):
        dtype = chunk[name].dtype
        scan = ColumnScan(kinds={_kind(dtype)})
        if not is_missing[:, j].all():
            scan.dtype = dtype
        if name not in skip:
            series = kept[name]
            if isinstance(dtype, pd.CategoricalDtype):
                scan.categories = dict.fromkeys(_python_scalar(v) for v in dtype.categories)
                scan.ordered = bool(dtype.ordered)
            elif pd.api.types.is_float_dtype(dtype):
                _float_states(name, series.to_numpy(dtype=float, na_value=np.nan), max_states)
            scan.values = dict.fromkeys(_python_scalar(v) for v in pd.unique(series.dropna()))
            scan.value_kinds = {_value_kind(v) for v in scan.values}
        scans.append(scan)
    return Scan(tuple(chunk.columns), scans, is_missing.sum(axis=0).astype(np.int64), len(chunk))


def _value_kind(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, float, np.number)):
        return "number"
    return "text" if isinstance(value, str) else "other"


def text_columns(scan: Scan) -> list:
    """Columns whose values were parsed as numbers or booleans in some CSV chunks and
    as text (or the other of the two) in others.

    Read whole, pandas gives such a column one type, text, keeping every value as
    written; chunk by chunk, ``1`` and ``"1"`` (or ``True`` and ``"True"``) would be
    two states. These columns are read as text instead, as pandas reads them whole.
    """
    out = []
    for name, s in zip(scan.columns, scan.scans):
        kinds = s.value_kinds
        if ("text" in kinds and kinds & {"bool", "number"}) or {"bool", "number"} <= kinds:
            out.append(name)
    return out


def _too_many(name: Hashable, scan: ColumnScan, max_states: int) -> None:
    n = len(scan.values)
    if n <= max_states:
        return
    if scan.kinds <= {"int", "float"} and "float" in scan.kinds:
        raise NumericColumnError(
            f"column {name!r} is numeric with more than {max_states} distinct values; "
            f"treelearn models discrete variables: discretize it first (tl.discretize), or "
            f"give its states"
        )
    raise TooManyStatesError(
        f"column {name!r} has more than max_states={max_states} distinct values ({n} so far); "
        f"drop it if it is an identifier, discretize it, or raise max_states"
    )


def check_scan(scan: Scan, max_states: int) -> None:
    """Stop early (and keep memory bounded) when a column already has too many values."""
    for name, s in zip(scan.columns, scan.scans):
        if not s.categories:
            _too_many(name, s, max_states)


def check_missing(scan: Scan, missing: MissingPolicy, where: str) -> None:
    """``missing="error"``: one error with the counts over the whole file or frame."""
    if missing == "error" and scan.missing.any():
        raise MissingValuesError(
            f"missing values found in {where} ({missing_summary(scan.missing[None, :], scan.columns)}); "
            f"pass missing='drop' to drop incomplete rows or missing='pairwise' to use, for each "
            f"table, the rows where its variables are observed"
        )


def final_states(
    scan: Scan, given: Mapping[Hashable, Sequence], max_states: int
) -> tuple[tuple, tuple]:
    """States and dtypes of every column, from the merged scan and the given states."""
    all_states, dtypes = [], []
    for name, s in zip(scan.columns, scan.scans):
        dtype = s.dtype
        if name in given:
            states = [_python_scalar(v) for v in given[name]]
        elif s.kinds == {"category"}:
            states = list(s.categories)
            dtype = pd.CategoricalDtype(pd.Index(states, tupleize_cols=False), ordered=s.ordered)
        elif s.kinds == {"bool"}:
            states = [False, True]
        elif "float" in s.kinds and s.kinds <= {"int", "float"}:
            # an integer column with a missing value in some chunk: floats, as read whole
            states = _sorted_states(list(dict.fromkeys(float(v) for v in s.values)))
            dtype = np.dtype(float)
        else:
            states = _sorted_states(list(s.values))
            if len(s.kinds) > 1:
                dtype = np.dtype(object)
        if name not in given:
            _too_many(name, ColumnScan(values=dict.fromkeys(states), kinds=s.kinds), max_states)
            if not states:
                raise EmptyDataError(f"column {name!r} has no observed value; drop it or fill it in")
        all_states.append(tuple(states))
        dtypes.append(dtype)
    return tuple(all_states), tuple(dtypes)


# ---------------------------------------------------------------- pass 2: counts
def unseen_message(chunk: pd.DataFrame, states: Mapping[Hashable, Sequence], where: str) -> str:
    """Name the first column with a value outside its states, the values and their type."""
    for name, allowed in states.items():
        series = chunk[name]
        bad = series.notna() & ~series.isin(pd.Index(list(allowed), dtype=object))
        if bad.any():
            values = [_python_scalar(v) for v in pd.unique(series[bad])[:5]]
            hint = ""
            kinds = {type(v).__name__ for v in allowed}
            if len(kinds) == 1 and type(values[0]).__name__ not in kinds:
                hint = (
                    f" The data stores {name!r} as {series.dtype} while its states are "
                    f"{kinds.pop()}: give states of the data's type."
                )
            return (
                f"{where}column {name!r} has value(s) {', '.join(map(repr, values))} "
                f"({int(bad.sum())} rows) outside its states {list(allowed)}.{hint}"
                f"{STATES_ADVICE}that include every value, or leave {name!r} out of states= "
                f"to find them in a first pass."
            )
    return f"{where}a value outside the given states"


def count_chunk(
    chunk: pd.DataFrame,
    columns: Sequence[Hashable],
    states: Sequence[Sequence],
    missing: MissingPolicy = "error",
    where: str = "",
) -> tuple[np.ndarray, int, np.ndarray]:
    """``(K x K counts, rows counted, missing per column)`` of one chunk.

    With ``missing="error"`` a chunk with missing values is not counted (the
    caller raises once, with the counts of the whole file).
    """
    check_columns(chunk.columns, columns, where)
    cardinalities = np.array([len(s) for s in states], dtype=np.int64)
    width = int(offsets_of(cardinalities)[-1])
    is_missing = chunk.isna().to_numpy()
    n_missing = is_missing.sum(axis=0).astype(np.int64)
    empty = np.zeros((width, width), dtype=np.int64)
    if is_missing.any():
        if missing == "error":
            return empty, 0, n_missing
        if missing == "drop":
            chunk = chunk.iloc[np.flatnonzero(~is_missing.any(axis=1))]
    if len(chunk) == 0:
        return empty, 0, n_missing
    given = dict(zip(columns, states))
    try:
        table = encode(chunk, missing="pairwise", states=given, max_states=_NO_CAP)
    except UnseenStateError:
        raise UnseenStateError(unseen_message(chunk, given, where)) from None
    return pair_counts(table).joint, table.n_rows, n_missing


# ---------------------------------------------------------------- files
def is_parquet(path: str) -> bool:
    """A Parquet file by its suffix (any case); anything else is read as CSV."""
    return str(path).lower().endswith((".parquet", ".pq", ".parq"))


def _parquet():
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError("reading Parquet needs pyarrow: pip install 'treelearn[parquet]'") from None
    return pq


def iter_chunks(
    path: str | os.PathLike, chunksize: int, text: Sequence[Hashable] = ()
) -> Iterator[pd.DataFrame]:
    """DataFrames of at most ``chunksize`` rows from a CSV (pandas) or Parquet (pyarrow) file.

    ``text``: CSV columns to read as text (see :func:`text_columns`).
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such data file: {path!r}")
    if is_parquet(path):
        for batch in _parquet().ParquetFile(path).iter_batches(batch_size=chunksize):
            yield batch.to_pandas()
    else:
        dtype = dict.fromkeys(text, str) if text else None
        with pd.read_csv(path, chunksize=chunksize, dtype=dtype) as reader:
            yield from reader


def _rows(start: int, chunk: pd.DataFrame, path: str) -> str:
    return f"{path}, rows {start}-{start + len(chunk) - 1}: "


def count_file(
    path: str | os.PathLike,
    *,
    chunksize: int = 200_000,
    states: Mapping[Hashable, Sequence] | None = None,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
) -> CountedTable:
    """Pair counts of a CSV or Parquet file read ``chunksize`` rows at a time.

    Parameters
    ----------
    states : optional ``{column: states}`` for some or all columns; the others are
        found in a first pass. A value outside given states raises
        :class:`UnseenStateError` naming the column and value.
    missing : ``"error"``, ``"drop"`` or ``"pairwise"``, as in :func:`treelearn.data.encode`.

    Raises ``FileNotFoundError`` for a missing file.
    """
    if not isinstance(chunksize, (int, np.integer)) or chunksize < 1:
        raise ValueError(f"chunksize must be a positive integer, not {chunksize!r}")
    if missing not in ("error", "drop", "pairwise"):
        raise ValueError(f"missing must be 'error', 'drop' or 'pairwise', not {missing!r}")
    path = os.fspath(path)
    given = dict(states or {})
    header = read_header(path)
    unknown = [c for c in given if c not in header]
    if unknown:
        raise ColumnNotFoundError(
            f"states given for {unknown!r}, which are not columns of {path!r} {list(header)}"
        )
    csv = not is_parquet(path)
    # CSV columns read as text: those given text states ("1" must stay "1", as in
    # a model learned from this data) and those found to mix numbers and text
    text = [c for c in header if csv and c in given and len(given[c]) > 0
            and all(isinstance(s, str) for s in given[c])]

    def scan_file() -> Scan | None:
        scan = None
        start = 0
        for chunk in iter_chunks(path, chunksize, text):
            where = _rows(start, chunk, path)
            check_columns(chunk.columns, header, where)
            part = scan_chunk(chunk, missing, max_states, skip=given)
            scan = part if scan is None else scan.merge(part)
            check_scan(scan, max_states)
            start += len(chunk)
        return scan

    if all(c in given for c in header):
        all_states = tuple(tuple(_python_scalar(v) for v in given[c]) for c in header)
        dtypes = None  # from the first chunk of the counting pass
    else:
        scan = scan_file()
        found = [c for c in text_columns(scan) if c not in text] if scan is not None and csv else []
        if found:
            text += found
            scan = scan_file()
        if scan is None or scan.n_rows == 0:
            raise EmptyDataError(f"{path!r} has no rows; there is nothing to learn")
        check_missing(scan, missing, repr(path))
        all_states, dtypes = final_states(scan, given, max_states)
    K = sum(len(s) for s in all_states)
    joint = np.zeros((K, K), dtype=np.int64)
    n_rows, n_missing, start = 0, np.zeros(len(header), dtype=np.int64), 0
    for chunk in iter_chunks(path, chunksize, text):
        where = _rows(start, chunk, path)
        if dtypes is None:
            dtypes = tuple(chunk[c].dtype for c in chunk.columns)
        part, rows, gaps = count_chunk(chunk, header, all_states, missing, where)
        joint += part
        n_rows += rows
        n_missing += gaps
        start += len(chunk)
    if start == 0:
        raise EmptyDataError(f"{path!r} has no rows; there is nothing to learn")
    check_missing(Scan(tuple(header), [], n_missing, start), missing, repr(path))
    if n_rows == 0:
        raise EmptyDataError(
            f"every row of {path!r} has a missing value; missing='drop' leaves no rows: "
            f"try missing='pairwise'"
        )
    cards = np.array([len(s) for s in all_states], dtype=np.int64)
    return CountedTable(PairCounts(joint, cards, n_rows), tuple(header), all_states, tuple(dtypes))


def read_header(path: str | os.PathLike) -> tuple:
    """Column names of a CSV or Parquet file, read without reading the rows."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such data file: {path!r}")
    if is_parquet(path):
        schema = _parquet().ParquetFile(path).schema_arrow
        return tuple(pd.DataFrame(schema.empty_table().to_pandas()).columns)
    try:
        return tuple(pd.read_csv(path, nrows=0).columns)
    except pd.errors.EmptyDataError:
        raise EmptyDataError(f"{path!r} is empty: no header, no rows") from None

