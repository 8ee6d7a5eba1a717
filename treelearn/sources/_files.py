"""Counting without loading: CSV and Parquet files read in row chunks.

Chow-Liu needs only the pairwise count tables, and those are sums over rows, so
a file is never loaded whole. Two passes at most:

1. **states** (skipped when ``states=`` gives every column): each chunk is
   scanned for facts about each column (its distinct values, whether each was
   seen once or more, missing values, infinite values, cells that cannot be
   states), which are merged across chunks; at the end of the scan they are
   judged by the rules of :func:`treelearn.encoding._table.encode` (sorted values;
   ``[False, True]`` for bool columns; declared categories for categoricals; the
   numeric rule for floats, a value seen once in one chunk and again in another
   counting as repeated; at most ``max_states``), and every problem of the file
   is reported in one error, worded as ``encode`` words it for the table read
   whole (:class:`~treelearn.TableProblemsError` for several), with the
   same notes. An integer column that is float in some chunk (a missing value)
   gets float states, as it would when read whole. A CSV column parsed as
   numbers in some chunks and as text in others is read again as text, as
   pandas reads it whole (``"1"``, not ``1`` and ``"1"``).
2. **counts**: each chunk is encoded against those states and its ``K x K``
   count matrix is added to a running total. A CSV file is counted in the states
   pass instead (one read: :mod:`treelearn.sources._growing` counts each chunk
   against states that grow and permutes the total into the final order); it is
   read again only where that could differ from this pass (a column read again as
   text, a value outside given states, a refused column, the memory limit), and
   Parquet, cheap to decode, keeps both passes.

Memory is that of one chunk plus the ``K x K`` counts, whatever the number of
rows (for Parquet, pyarrow decodes a row group at a time: files written with
huge row groups hold one row group's columns in memory), except for a column
refused for its many values: to count them as ``encode`` does, the scan keeps
about 8 bytes per distinct value (a hash; numbers as they are, which the numeric
rule needs), e.g. 8 MB for an identifier column of a million rows. The same chunk
functions serve :mod:`treelearn.sources._dask`, where the chunks are a dask
DataFrame's partitions.

A CSV is read with a header row and the options found from its first bytes
(:func:`treelearn.sources._dialect.csv_dialect`: encoding, separator, decimal commas),
as :func:`read_whole` and :func:`treelearn.sources._reading.read_data` read it whole.

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

import itertools
import lzma
import os
import warnings
import zlib
from collections.abc import Callable, Generator, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .._base import limits
from .._base.errors import (
    ColumnNotFoundError,
    DataFileError,
    DuplicateColumnError,
    EmptyDataError,
    NumericColumnWarning,
    ResourceLimitError,
    TreelearnError,
    UnseenStateError,
)
from .._base.validation import file_path
from ..encoding._table import (
    DEFAULT_MAX_STATES,
    MissingPolicy,
    check_float_levels,
    check_missing_policy,
    check_sample_weight,
    encode,
    many_values_note,
    missing_summary,
    missing_values_error,
    no_value_error,
    python_scalar,
    raise_problems,
    state_order,
    too_many_states_error,
    unhashable_error,
)
from ..stats._counts import (
    CountedTable,
    PairCounts,
    add_counts,
    check_pair_memory,
    count_codes,
    pair_counts,
    total_weight,
    whole_weights,
)
from ._dialect import csv_dialect, header_separator
from ._formats import check_table_format
from ._growing import GrowingCounts

__all__ = [
    "MIN_CHUNK_ROWS",
    "NO_STATE_CAP",
    "ChunkCounts",
    "ColumnScan",
    "ReadEstimate",
    "Scan",
    "check_missing",
    "check_read_memory",
    "count_chunk",
    "count_file",
    "data_file",
    "final_states",
    "given_states_hint",
    "is_parquet",
    "iter_chunks",
    "python_read_fix",
    "read_as_text",
    "read_check",
    "read_header",
    "read_memory_estimate",
    "read_whole",
    "reading",
    "scan_chunk",
    "split_weights",
    "text_columns",
    "value_kinds",
]

#: Files are read at least this many rows at a time (a smaller ``chunksize`` is raised to
#: it): per-chunk overhead would otherwise dominate (``chunksize=1`` on 20,000 rows took 80 s)
#: while 1,000 rows of any width are still a small, bounded amount of memory.
MIN_CHUNK_ROWS = 1_000

#: ``encode`` gets states for every column in the counting pass; the cap was applied before
NO_STATE_CAP = np.iinfo(np.int64).max

#: the states pass merges the chunks' scans this many at a time (one concatenation per
#: column, not one per chunk; the scans held meanwhile are each at most one chunk's values)
_MERGE_EVERY = 8


def given_states_hint(column: Hashable) -> str:
    """The fix for a value outside the states given to a file or Dask learner."""
    return (
        f"Give states that include every value, or leave {column!r} out of states= "
        f"to find them in a first pass."
    )


def split_weights(
    chunk: pd.DataFrame, weight_column: Hashable | None, where: str = ""
) -> tuple[pd.DataFrame, np.ndarray | None]:
    """``(rows, weights)`` of a chunk whose column ``weight_column`` holds row weights.

    The weight column is taken out; rows of weight zero are left out here, as if
    absent from the file (their values are no states, their gaps no error).
    """
    if weight_column is None:
        return chunk, None
    try:
        w = check_sample_weight(chunk[weight_column], len(chunk), allow_all_zero=True)
    except TreelearnError as error:
        raise TreelearnError(
            f"{where}weight column {weight_column!r}: {error}", column=weight_column
        ) from None
    assert w is not None  # a column's weights, never None
    rows = chunk.drop(columns=[weight_column])
    if not (w > 0).all():
        keep = np.flatnonzero(w > 0)
        rows, w = rows.iloc[keep], w[keep]
    return rows, w


# ---------------------------------------------------------------- pass 1: states
# The scan keeps, per column, facts that chunks add up (distinct values, whether each
# was seen once or more, missing counts, infinite values, an unusable cell) and
# decides nothing: every problem of the table is found at the end of the scan, from
# the merged facts, by the rules :func:`treelearn.encoding._table.encode` applies to a whole table,
# and reported in one error.
@dataclass
class ColumnScan:
    """What the chunks seen so far say about one column's states."""

    kinds: set = field(default_factory=set)  # "bool", "int", "float", "category", "other"
    categories: dict = field(default_factory=dict)  # declared categories, an ordered set
    ordered: bool = False
    dtype: Any = None  # dtype of the first chunk where the column is observed
    # types of the observed values ("bool", "number", "text", "other"), chunk by chunk:
    # kept apart because merging the distinct values merges 1 and True
    value_kinds: set = field(default_factory=set)
    # the distinct observed values, in order of appearance (None: none yet); once a
    # column that is not numbers has more than max_states of them, their 64-bit hashes
    # (`hashed`): enough to count them for the error, 8 bytes each. Numbers stay exact:
    # the numeric rule needs the values (and a float column's are its states)
    distinct: pd.Series | None = None
    # per distinct value: 1 if seen once so far, 2 if seen more often (the numeric rule
    # refuses fractional floats seen once, accepts them as categories when all repeat)
    repeats: np.ndarray | None = None
    hashed: bool = False
    nonfinite: tuple = ()  # inf / -inf seen in a float column (no state)
    unhashable: pd.Series | None = None  # the first cell that cannot be a state (a list...)

    def merge(self, other: ColumnScan, max_states: int = DEFAULT_MAX_STATES) -> ColumnScan:
        out = ColumnScan(
            kinds=self.kinds | other.kinds,
            categories={**self.categories, **other.categories},
            ordered=self.ordered or other.ordered,
            dtype=self.dtype if self.dtype is not None else other.dtype,
            value_kinds=self.value_kinds | other.value_kinds,
            nonfinite=tuple(sorted(set(self.nonfinite) | set(other.nonfinite))),
            unhashable=self.unhashable if self.unhashable is not None else other.unhashable,
        )
        if self.hashed or other.hashed:
            out.distinct = pd.Series(
                pd.unique(
                    pd.concat(
                        [_hashes(s) for s in (self, other) if s.distinct is not None],
                        ignore_index=True,
                    )
                )
            )
            out.hashed = True
        elif self.distinct is None or other.distinct is None:
            first = self if other.distinct is None else other
            out.distinct, out.repeats = first.distinct, first.repeats
        else:
            both = pd.concat([self.distinct, other.distinct], ignore_index=True)
            codes, uniques = pd.factorize(both)
            seen = np.bincount(
                codes, weights=np.concatenate([self.repeats, other.repeats]), minlength=len(uniques)
            )
            out.distinct = pd.Series(uniques)
            out.repeats = np.minimum(seen, 2).astype(np.uint8)
        out.hash_if_many(max_states)
        return out

    @staticmethod
    def merge_all(scans: Sequence[ColumnScan], max_states: int = DEFAULT_MAX_STATES) -> ColumnScan:
        """``scans[0].merge(scans[1]).merge(...)`` in one step: the distinct values of all
        in one concatenation and one factorize (per-call pandas overhead was most of a
        merge at 25,000-row chunks). The same result: first appearances, repeats capped
        at 2 and the union of the facts are associative. Where the distinct values differ
        in dtype (a concatenation of three may convert them differently from two
        concatenations) or some are hashed, the merges are made one at a time."""
        distincts = [s.distinct for s in scans if s.distinct is not None]
        if (
            len(scans) <= 2
            or any(s.hashed for s in scans)
            or len({str(d.dtype) for d in distincts}) > 1
        ):
            out = scans[0]
            for other in scans[1:]:
                out = out.merge(other, max_states)
            return out
        out = ColumnScan(
            kinds=set().union(*(s.kinds for s in scans)),
            categories={k: v for s in scans for k, v in s.categories.items()},
            ordered=any(s.ordered for s in scans),
            dtype=next((s.dtype for s in scans if s.dtype is not None), None),
            value_kinds=set().union(*(s.value_kinds for s in scans)),
            nonfinite=tuple(sorted(set().union(*(s.nonfinite for s in scans)))),
            unhashable=next((s.unhashable for s in scans if s.unhashable is not None), None),
        )
        have = [s for s in scans if s.distinct is not None]
        if len(have) == 1:
            out.distinct, out.repeats = have[0].counted()
        elif (small := _merge_small(have)) is not None:
            out.distinct, out.repeats = small
        elif have:
            counted = [s.counted() for s in have]
            codes, uniques = pd.factorize(pd.concat([d for d, _ in counted], ignore_index=True))
            seen = np.bincount(
                codes, weights=np.concatenate([r for _, r in counted]), minlength=len(uniques)
            )
            out.distinct = pd.Series(uniques)
            out.repeats = np.minimum(seen, 2).astype(np.uint8)
        out.hash_if_many(max_states)
        return out

    def counted(self) -> tuple[pd.Series, np.ndarray]:
        """``(distinct, repeats)`` of a scan that holds values, not hashed (the two are
        kept together until :meth:`hash_if_many` drops the repeats)."""
        assert self.distinct is not None and self.repeats is not None and not self.hashed
        return self.distinct, self.repeats

    def hash_if_many(self, max_states: int) -> None:
        """Keep only hashes of a non-numeric column's values once they are too many:
        the column is refused, and the scan needs only their number."""
        numeric = self.kinds <= {"int", "float"}
        if (
            not self.hashed
            and not numeric
            and self.distinct is not None
            and len(self.distinct) > max_states
        ):
            self.distinct, self.repeats, self.hashed = _hashes(self), None, True


#: ColumnScan.merge_all merges at most this many distinct values (all scans together) by a
#: dict; more go through pandas (a numeric column keeps all its values, maybe millions)
_SMALL_MERGE = 1024


def _merge_small(scans: Sequence[ColumnScan]) -> tuple[pd.Series, np.ndarray] | None:
    """``(distinct, repeats)`` of the scans merged as ``merge_all`` merges them through
    ``pd.factorize`` of their concatenation (first appearances; repeats summed, at most 2),
    for a few values of one dtype (bool, integers, floats, text): a dict, without the
    per-call cost of concat and factorize paid per column (most columns of a file's chunks).
    ``None`` otherwise. On values of one such dtype ``==`` is the equality factorize uses
    (no NaN among them: a float column's values are its finite ones; ``0.0 == -0.0``, the
    first kept, as factorize keeps it)."""
    if len(scans) < 2:
        return None
    counted = [s.counted() for s in scans]
    dtype = counted[0][0].dtype
    text = isinstance(dtype, pd.StringDtype)
    if (
        not (text or (isinstance(dtype, np.dtype) and dtype.kind in "biuf"))
        or any(distinct.dtype != dtype for distinct, _ in counted)
        or sum(len(distinct) for distinct, _ in counted) > _SMALL_MERGE
    ):
        return None
    where: dict = {}  # value -> its position among the first appearances
    seen: list = []
    for distinct, counts in counted:
        for value, repeats in zip(distinct.tolist(), counts.tolist()):
            at = where.setdefault(value, len(where))
            if at == len(seen):
                seen.append(repeats)
            else:
                seen[at] += repeats
    values = list(where)
    distinct = pd.Series(pd.array(values, dtype=dtype) if text else np.array(values, dtype=dtype))
    return distinct, np.minimum(np.array(seen, dtype=np.int64), 2).astype(np.uint8)


def _hashes(scan: ColumnScan) -> pd.Series:
    """The distinct values of a scan as 64-bit hashes, hashed alike whatever the chunk's dtype
    (through object: text as it is, other values as their text)."""
    if scan.hashed:
        return scan.distinct
    values = np.asarray(scan.distinct, dtype=object)
    return pd.Series(pd.util.hash_array(values), dtype=np.uint64)


@dataclass
class Scan:
    """Summary of one chunk, or of several merged: per-column scans and missing counts."""

    columns: tuple
    scans: list
    missing: np.ndarray  # (d,) missing values per column
    n_rows: int
    max_states: int = DEFAULT_MAX_STATES
    n_kept: int = 0  # rows whose values were scanned (with missing="drop": complete rows)

    def merge(self, other: Scan) -> Scan:
        check_columns(other.columns, self.columns)
        return Scan(
            self.columns,
            [a.merge(b, self.max_states) for a, b in zip(self.scans, other.scans)],
            self.missing + other.missing,
            self.n_rows + other.n_rows,
            self.max_states,
            self.n_kept + other.n_kept,
        )

    @staticmethod
    def merge_all(parts: Sequence[Scan]) -> Scan:
        """``parts[0].merge(parts[1]).merge(...)``, each column's scans merged in one step
        (:meth:`ColumnScan.merge_all`)."""
        first = parts[0]
        if len(parts) == 1:
            return first
        for other in parts[1:]:
            check_columns(other.columns, first.columns)
        return Scan(
            first.columns,
            [
                ColumnScan.merge_all(column, first.max_states)
                for column in zip(*(p.scans for p in parts))
            ],
            sum((p.missing for p in parts[1:]), first.missing),
            sum(p.n_rows for p in parts),
            first.max_states,
            sum(p.n_kept for p in parts),
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
    is_missing: np.ndarray | None = None,
    uniques: Mapping[Hashable, Any] | None = None,
) -> Scan:
    """The distinct values, kinds and missing counts of a chunk's columns.

    With ``missing="drop"`` only complete rows contribute values, as when a
    whole table is encoded. Columns in ``skip`` (given states) are not scanned.
    ``is_missing`` (``chunk.isna()`` as an array) and ``uniques`` (the distinct
    observed values of some columns' scanned rows, in order of first appearance)
    are taken as given, where the caller has them.
    Nothing is refused here: :func:`final_states` judges the merged scan.
    """
    if is_missing is None:
        is_missing = chunk.isna().to_numpy()
    uniques = uniques or {}
    kept = chunk
    if missing == "drop" and is_missing.any():
        kept = chunk.iloc[np.flatnonzero(~is_missing.any(axis=1))]
    skip = set(skip)
    scans = []
    observed = ~is_missing.all(axis=0)
    assert isinstance(observed, np.ndarray)  # one per column: is_missing is rows x columns
    kinds: dict = {}  # _kind of each dtype met (the dtype tests cost more than the rest)
    # (columns that repeat, possible in Parquet, fail at chunk[name].dtype as before)
    dtypes = chunk.dtypes if chunk.columns.is_unique else [chunk[c].dtype for c in chunk.columns]
    for j, (name, dtype) in enumerate(zip(chunk.columns, dtypes)):
        kind = kinds.get(dtype)
        if kind is None:
            kind = kinds[dtype] = _kind(dtype)
        scan = ColumnScan(kinds={kind})
        if observed[j]:
            scan.dtype = dtype
        if name not in skip:
            if kind == "category":
                scan.categories = dict.fromkeys(python_scalar(v) for v in dtype.categories)
                scan.ordered = bool(dtype.ordered)
            else:
                found = uniques.get(name)
                # with the distinct values known, only a float column needs its values
                series = kept[name] if found is None or kind == "float" else None
                _scan_values(scan, name, series, dtype, kind, max_states, found)
        scans.append(scan)
    return Scan(
        tuple(chunk.columns),
        scans,
        is_missing.sum(axis=0).astype(np.int64),
        len(chunk),
        max_states,
        len(kept),
    )


def _scan_values(
    scan: ColumnScan,
    name: Hashable,
    series: pd.Series | None,
    dtype: Any,
    kind: str,
    max_states: int,
    found: Any = None,
) -> None:
    """Fill ``scan`` with the facts of one chunk's values (no loop over rows) of ``dtype``
    (``kind``: its :func:`_kind`); ``found``: their distinct values, if known (``series``
    may then be ``None``, except for a float column)."""
    if kind == "float":
        assert series is not None  # a float column's values are always read
        values = series.dropna().to_numpy(dtype=float)
        finite = np.isfinite(values)
        if not finite.all():  # at most inf and -inf
            scan.nonfinite = tuple(sorted(set(values[~finite].tolist())))
        uniques, counts = np.unique(values[finite], return_counts=True)
        repeats = np.minimum(counts, 2).astype(np.uint8)
    else:
        if found is not None:
            uniques = found
        else:
            assert series is not None  # read where the distinct values are not known
            try:
                uniques = pd.unique(series.dropna())
            except TypeError:  # list/struct cells (Parquet nested columns), as encode finds them
                scan.unhashable = pd.Series(
                    unhashable_error(name, series.dropna()).values, dtype=object
                )
                return
        # only a float column's counts matter (the numeric rule); whole numbers, text and
        # the rest count as repeated
        repeats = np.full(len(uniques), 2, dtype=np.uint8)
    if len(uniques):
        scan.distinct, scan.repeats = pd.Series(uniques), repeats
        scan.value_kinds = _value_kinds(dtype, kind, uniques)
        scan.hash_if_many(max_states)


def _value_kinds(dtype: Any, kind: str, uniques: Any) -> set:
    """The kinds of a chunk's distinct values, from the dtype (``kind``: its :func:`_kind`)
    or pandas' inference."""
    if kind == "bool":
        return {"bool"}
    if kind in ("int", "float") or pd.api.types.is_numeric_dtype(dtype):
        return {"number"}
    inferred = pd.api.types.infer_dtype(uniques, skipna=True)
    if inferred == "string":
        return {"text"}
    if inferred == "boolean":
        return {"bool"}
    if inferred in ("integer", "floating", "mixed-integer-float", "decimal"):
        return {"number"}
    return {_value_kind(v) for v in uniques}  # mixed objects: a look at each distinct value


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
    return [name for name, s in zip(scan.columns, scan.scans) if read_as_text(s.value_kinds)]


def read_as_text(kinds: set) -> bool:
    """Whether a CSV column whose chunks held values of these ``kinds`` (``"bool"``,
    ``"number"``, ``"text"``, ``"other"``: :func:`value_kinds`) is read as text: numbers or
    booleans in some chunks and text (or the other of the two) in others. The one rule of
    every chunked reader (:func:`text_columns`, the classifiers' two passes).

    >>> read_as_text({"number", "text"}), read_as_text({"number"}), read_as_text({"bool", "number"})
    (True, False, True)
    """
    return bool(("text" in kinds and kinds & {"bool", "number"}) or {"bool", "number"} <= kinds)


def value_kinds(dtype: Any, uniques: Any) -> set:
    """The kinds of a chunk column's distinct observed values ``uniques`` (no missing
    value among them), read as ``dtype``: ``{"number"}``, ``{"text"}``, ... (what
    :func:`read_as_text` judges, merged over the chunks).

    >>> value_kinds(np.dtype("int64"), [1, 2]), value_kinds(np.dtype(object), ["1", "x"])
    ({'number'}, {'text'})
    """
    if len(uniques) == 0:
        return set()
    return _value_kinds(dtype, _kind(dtype), uniques)


def check_missing(scan: Scan, missing: MissingPolicy, where: str) -> None:
    """``missing="error"``: one error with the counts over the whole file or frame."""
    if missing == "error" and scan.missing.any():
        raise missing_values_error(scan.missing, scan.columns, where)


def final_states(
    scan: Scan,
    given: Mapping[Hashable, Sequence],
    max_states: int,
    unknown_categories: Sequence[Hashable] = (),
    missing: MissingPolicy = "pairwise",
    where: str = "",
) -> tuple[tuple, tuple]:
    """States and dtypes of every column, from the merged scan and the given states.

    The order is :func:`treelearn.encoding._table.state_order`'s, as for a table read whole.
    ``unknown_categories`` names categorical columns whose chunks each declared
    their own categories (Dask's unknown categories): read whole, pandas would
    sort them, so they are sorted. Every problem of the table (missing values
    with ``missing="error"``, refused numeric columns, too many states, no value,
    cells that cannot be states) is raised at once, as :func:`treelearn.encoding._table.encode`
    raises them (:class:`TableProblemsError` for several); then the numeric
    rule's notes are given.
    """
    if missing == "drop" and scan.n_kept == 0 and scan.n_rows:  # as encode: before the columns
        raise EmptyDataError(
            f"every row{' of ' + where if where else ''} has a missing value "
            f"({missing_summary(scan.missing[None, :], scan.columns)}); missing='drop' leaves "
            f"no rows: try missing='pairwise'"
        )
    problems: list[TreelearnError] = []
    if missing == "error" and scan.missing.any():
        problems.append(missing_values_error(scan.missing, scan.columns, where))
    all_states, dtypes, notes = [], [], []
    for name, s in zip(scan.columns, scan.scans):
        try:
            states, dtype, note = _column_states(
                name, s, given, max_states, name in unknown_categories
            )
        except TreelearnError as problem:
            problems.append(problem)
            states, dtype, note = [], s.dtype, None
        all_states.append(tuple(states))
        dtypes.append(dtype)
        notes.append(note)
    raise_problems(problems)
    for note in notes:
        if note is not None:
            warnings.warn(note, stacklevel=2)
    return tuple(all_states), tuple(dtypes)


def _column_states(
    name: Hashable, s: ColumnScan, given: Mapping, max_states: int, unknown_categories: bool
) -> tuple[list, Any, NumericColumnWarning | None]:
    """States, dtype (as read whole) and note of one column; raises its problem."""
    dtype = s.dtype
    if name in given:
        return [python_scalar(v) for v in given[name]], dtype, None
    if s.unhashable is not None:
        raise unhashable_error(name, s.unhashable)
    if s.kinds == {"category"}:
        declared = list(s.categories)
        states = (
            state_order(declared) if unknown_categories else state_order((), categories=declared)
        )
        dtype = pd.CategoricalDtype(pd.Index(states, tupleize_cols=False), ordered=s.ordered)
        if len(states) > max_states:
            raise too_many_states_error(name, dtype, len(states), max_states)
        if not states:
            raise no_value_error(name)
        return states, dtype, None
    if s.kinds == {"bool"}:
        return state_order((), boolean=True), dtype, None
    if "float" in s.kinds and s.kinds <= {"int", "float"}:
        # an integer column with a missing value in some chunk: floats, as read whole
        dtype = np.dtype(float)
        values = np.empty(0) if s.distinct is None else s.distinct.to_numpy(dtype=float)
        repeats = np.empty(0, dtype=np.uint8) if s.repeats is None else s.repeats
        values = np.concatenate([values, np.array(s.nonfinite, dtype=float)])
        repeats = np.concatenate([repeats, np.full(len(s.nonfinite), 2, dtype=np.uint8)])
        order = np.argsort(values, kind="stable")
        # the numeric rule, as for a table read whole (raises a refused column's problem)
        note = check_float_levels(name, values[order], repeats[order], max_states)
        if not len(values):
            raise no_value_error(name)
        return [float(v) for v in values[order]], dtype, note
    if len(s.kinds) > 1:
        dtype = np.dtype(object)
    distinct = s.distinct
    k = 0 if distinct is None else len(distinct)
    if k > max_states:  # exact: every distinct value (or its hash) was kept
        raise too_many_states_error(name, dtype, k, max_states)
    if distinct is None or not k:
        raise no_value_error(name)
    states = state_order(distinct)
    return states, dtype, many_values_note(name, dtype, states)


# ---------------------------------------------------------------- pass 2: counts
@dataclass(frozen=True)
class ChunkCounts:
    """What counting one chunk gives: the ``K x K`` counts, the rows (or weight)
    counted, missing values per column and rows seen. Chunks add up."""

    joint: np.ndarray
    n_rows: int | float
    n_missing: np.ndarray
    n_seen: int

    def __add__(self, other: ChunkCounts) -> ChunkCounts:
        joint, n_rows = add_counts(self.joint, other.joint, self.n_rows, other.n_rows)
        return ChunkCounts(
            joint, n_rows, self.n_missing + other.n_missing, self.n_seen + other.n_seen
        )


def count_chunk(
    chunk: pd.DataFrame,
    columns: Sequence[Hashable],
    states: Sequence[Sequence],
    missing: MissingPolicy = "error",
    where: str = "",
    weights: np.ndarray | None = None,
) -> ChunkCounts:
    """The counts of one chunk of rows (``weights``: one positive weight per row).

    With ``missing="error"`` a chunk with missing values is not counted (the
    caller raises once, with the counts of the whole file).
    """
    check_columns(chunk.columns, columns, where)
    cardinalities = np.array([len(s) for s in states], dtype=np.int64)
    width = int(cardinalities.sum())
    is_missing = chunk.isna().to_numpy()
    n_missing = is_missing.sum(axis=0).astype(np.int64)
    exact = whole_weights(weights)
    check_pair_memory(width, len(columns))
    empty = ChunkCounts(
        np.zeros((width, width), dtype=np.int64 if exact else float), 0, n_missing, len(chunk)
    )
    if is_missing.any():
        if missing == "error":
            return empty
        if missing == "drop":
            keep = np.flatnonzero(~is_missing.any(axis=1))
            chunk = chunk.iloc[keep]
            weights = None if weights is None else weights[keep]
    if len(chunk) == 0:
        return empty
    given = dict(zip(columns, states))
    try:
        table = encode(chunk, missing="pairwise", states=given, max_states=NO_STATE_CAP)
    except UnseenStateError as error:
        raise error.with_hint(given_states_hint(error.column), where=where) from None
    joint = count_codes(table.codes, table.cardinalities, weights=weights)
    return ChunkCounts(joint, total_weight(weights, table.n_rows), n_missing, empty.n_seen)


# ---------------------------------------------------------------- files
def data_file(path: str | os.PathLike) -> str:
    """``path`` as a string, once checked to be a path (an
    :class:`~treelearn.InputTypeError` otherwise), to exist (``FileNotFoundError``
    naming it) and to hold no table of another format (a :class:`~treelearn.DataFileError`:
    :func:`~treelearn.sources._formats.check_table_format`)."""
    path = file_path(path, "data file", also=" or a readable text stream")
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such data file: {path!r}")
    check_table_format(path)  # JSON, a spreadsheet, a pickle, ...: not read as CSV
    return path


PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")


def is_parquet(path: str) -> bool:
    """A Parquet file by its suffix (any case), or a directory holding Parquet files (a
    Parquet dataset, as Dask and Spark write them); anything else is read as CSV."""
    if os.path.isdir(path):  # every data file under it Parquet ("_metadata", ".crc" aside)
        names = [
            n.lower()
            for _, _, files in os.walk(path)
            for n in files
            if not n.startswith(("_", "."))
        ]
        return bool(names) and all(n.endswith(PARQUET_SUFFIXES) for n in names)
    return str(path).lower().endswith(PARQUET_SUFFIXES)


def _parquet():
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError(
            "reading Parquet needs pyarrow: pip install 'treelearn[parquet]'"
        ) from None
    return pq


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


@contextmanager
def reading(path: str, name: str | None = None, encoding: str | None = None) -> Iterator[None]:
    """Turn what the CSV/Parquet readers raise for a bad file into a :class:`DataFileError`
    naming the file (``name``: how to name it, default ``repr(path)``), the problem and the
    fix (pandas, pyarrow and codec errors otherwise)."""
    name = repr(path) if name is None else name
    try:
        yield
    except TreelearnError:
        raise
    except pd.errors.EmptyDataError:
        raise EmptyDataError(f"{name} is empty (no CSV data: no header, no rows)") from None
    except UnicodeError:
        what = "UTF-8" if encoding is None else encoding
        reason = f"{name} is not {what} text (another encoding, compressed data or a binary file)"
        raise DataFileError(
            f"{reason}: give the file's encoding, e.g. encoding='cp1252' or encoding='latin-1' "
            f"(read_data(path, encoding=...)), or re-save it as UTF-8",
            reason=reason,
            fixes=("encoding",),
        ) from None
    except pd.errors.ParserError as exc:
        raise DataFileError(
            f"{name} is not a well-formed CSV file ({_first_line(exc)}): every row must have "
            f"as many separated fields as the header"
        ) from None
    except IsADirectoryError:
        raise DataFileError(
            f"{name} is a directory without Parquet files, not a data file: give a CSV or "
            f"Parquet file, or a directory of Parquet files (a Parquet dataset)"
        ) from None
    except PermissionError:
        raise DataFileError(f"{name} cannot be read: permission denied") from None
    except (zlib.error, lzma.LZMAError, EOFError) as exc:  # gzip's BadGzipFile is an OSError
        raise DataFileError(
            f"{name} is not readable compressed data ({_first_line(exc)}): give the file "
            f"uncompressed, or a whole .gz, .bz2 or .xz file"
        ) from None
    except Exception as exc:
        if type(exc).__module__.split(".")[0] != "pyarrow":
            raise
        raise DataFileError(
            f"{name} is not a readable Parquet file ({_first_line(exc)}); a file named "
            f".parquet must be Parquet (rename a CSV file to .csv)"
        ) from None


def _dataset(path: str):
    _parquet()
    import pyarrow.dataset as ds

    return ds.dataset(path, format="parquet")


def _parquet_schema(path: str) -> Any:
    """The Arrow schema of a Parquet file or dataset directory, its column names checked:
    Parquet keeps repeated names (pandas renames a CSV's second ``a`` to ``a.1``), which
    would make ``frame[name]`` a DataFrame where a column was expected."""
    schema = (
        _dataset(path).schema if os.path.isdir(path) else _parquet().ParquetFile(path).schema_arrow
    )
    names = pd.Index(schema.names, dtype=object, tupleize_cols=False)
    repeated = list(names[names.duplicated()].unique())
    if repeated:
        raise DuplicateColumnError(
            f"{os.fspath(path)!r} has duplicate column name(s) {repeated}; rename them so "
            f"each column is unique (e.g. pyarrow's Table.rename_columns before writing)",
            column=repeated[0],
        )
    return schema


# ---------------------------------------------------------------- memory of a whole read
#: Peak memory of reading a file whole, measured by benchmarks/bench_read_memory.py (a fresh
#: process per file, VmHWM after the read less before; 2 cores, load 4.6): pandas'
#: ``read_csv(low_memory=False)`` rose by 2.0 bytes per byte on disk plus 16 bytes per cell
#: at most over 8 real tables repeated to 40 MB (per byte alone: 3.9 titanic .. 9.5 msnbc;
#: per cell alone: 19 msnbc .. 35 titanic). With the rows estimated from the first 64 KiB,
#: the estimate is within -5 .. +17 % of each measured rise: asia 280 MB for 294, titanic 151
#: for 155, msnbc 378 for 358, hmda 188 for 168, alarm 193 for 166, boston 205 for 175. The
#: tokenizer holds the text and an offset per cell while the columns are built.
CSV_BYTES_PER_BYTE = 2.0
CSV_BYTES_PER_CELL = 16.0
#: ``read_parquet`` rose by 16 (asia) .. 31 (titanic: text) bytes per cell over the same
#: tables (Arrow's columns, then pandas' copy)
PARQUET_BYTES_PER_CELL = 32.0
#: bytes of a CSV sampled for its row length and columns
_SAMPLE_BYTES = 1 << 16


@dataclass(frozen=True)
class ReadEstimate:
    """What reading a file whole is expected to take: ``n_bytes`` of memory at the peak, for
    about ``n_rows`` rows of ``n_columns`` columns (``text_bytes``: the CSV text, that of a
    compressed file counted or estimated from a bounded sample, :func:`_csv_sample`)."""

    n_bytes: int
    n_rows: int
    n_columns: int
    text_bytes: int

    def describe(self) -> str:
        return f"about {self.n_rows:,} rows x {self.n_columns} columns"


#: decompressed bytes a compressed CSV's sample stops at (its ratio measured on them): a few
#: milliseconds for gzip and xz, about 0.15 s for bz2 (its slowest), whatever the file's size
_RATIO_SAMPLE_BYTES = 2 << 20
#: most compressed bytes fed to the decompressor at a time; a feed is also at most 1/32 of
#: those fed before it (at least 16 bytes), so that the ratio, read where the output last
#: grew (a bz2 block comes out whole), is measured to within 3 % even where a few hundred
#: compressed bytes hold the whole sample
_FEED_BYTES = 1 << 13


def _decompressor_of(lower: str) -> Callable[[], Any] | None:
    """What makes a streaming decompressor for a CSV path ending in .gz, .bz2 or .xz
    (``None`` for other paths)."""
    import bz2

    if lower.endswith(".gz"):
        return partial(zlib.decompressobj, wbits=47)  # 32 + 15: a gzip or zlib header
    if lower.endswith(".bz2"):
        return bz2.BZ2Decompressor
    if lower.endswith(".xz"):
        return lzma.LZMADecompressor
    return None


_ZLIB_DECOMPRESS = type(zlib.decompressobj())


def _pieces(decompressor: Any, data: bytes) -> Iterator[bytes]:
    """The text of ``data`` fed to ``decompressor``, in pieces of at most
    :data:`_RATIO_SAMPLE_BYTES` (zlib keeps what it has not read in ``unconsumed_tail``;
    bz2 and lzma keep it inside, until they need input again)."""
    if isinstance(decompressor, _ZLIB_DECOMPRESS):
        while data and not decompressor.eof:
            yield decompressor.decompress(data, _RATIO_SAMPLE_BYTES)
            data = decompressor.unconsumed_tail
        return
    yield decompressor.decompress(data, _RATIO_SAMPLE_BYTES)
    while not decompressor.eof and not decompressor.needs_input:
        yield decompressor.decompress(b"", _RATIO_SAMPLE_BYTES)


@dataclass(frozen=True)
class _TextSample:
    """The first bytes of a compressed CSV's text (``head``), its text's size (``size``:
    counted if ``exact``, else estimated), and the compressed streams seen (``streams``:
    gzip members, bz2 or xz streams, concatenated)."""

    head: bytes
    size: int
    exact: bool
    streams: int


def _decompressed_sample(path: str, make: Callable[[], Any]) -> _TextSample:
    """A compressed CSV's first :data:`_SAMPLE_BYTES` of text and its text's size: counted
    when the whole file decompresses within :data:`_RATIO_SAMPLE_BYTES`, else the file's size
    times the ratio of the text to the compressed bytes fed when the output last grew (a bz2
    block comes out whole once read: measured then, the ratio is that of whole blocks).
    Concatenated streams (pbzip2's, bgzip's members) are read on, each with a new
    decompressor. At most one feed and one bounded piece of text are held at a time: nothing
    is allocated in proportion to the file."""
    size = os.path.getsize(path)
    head = bytearray()
    fed = out = 0  # compressed bytes given, text bytes produced
    at_growth = (0, 0)  # (fed, out) when the output last grew
    decompressor, streams = make(), 1
    with open(path, "rb") as f:
        pending = b""  # compressed bytes after a stream's end: the next stream's
        while out < _RATIO_SAMPLE_BYTES:
            data = pending or f.read(max(16, min(_FEED_BYTES, fed // 32)))
            if not data:
                break  # the end of the file (a truncated one is said when it is read)
            if not pending:
                fed += len(data)
            pending, grown = b"", out
            for piece in _pieces(decompressor, data):
                if len(head) < _SAMPLE_BYTES:
                    head += piece[: _SAMPLE_BYTES - len(head)]
                out += len(piece)
                if out >= _RATIO_SAMPLE_BYTES:
                    break
            if out > grown:
                at_growth = (fed, out)
            if decompressor.eof:  # a stream ended: another may follow
                pending = decompressor.unused_data
                if not pending:
                    pending = f.read(_FEED_BYTES)
                    fed += len(pending)
                if not pending.strip(b"\0") and not f.peek(1):  # (padding, then) the end
                    return _TextSample(bytes(head), out, True, streams)
                decompressor, streams = make(), streams + 1
    fed_then, out_then = at_growth
    return _TextSample(bytes(head), int(size * out_then / max(fed_then, 1)), False, streams)


def _csv_sample(path: str) -> tuple[bytes, int]:
    """The first bytes of a CSV's text and its whole text's size: a compressed file's
    (.gz, .bz2, .xz) measured on a bounded sample (:func:`_decompressed_sample`; a .gz of
    one member as far as the sample saw sized by its trailer, ISIZE, the text's size modulo
    2**32, where the sample agrees with it); a .zip of one file by its directory; other
    compressions (.zst, a .zip of several files, refused by pandas) their bytes as they
    are."""
    size = os.path.getsize(path)
    lower = path.lower()
    if lower.endswith(".zip"):  # pandas reads its one member; its size is in the directory
        import zipfile

        with zipfile.ZipFile(path) as archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
            if len(members) == 1:
                with archive.open(members[0]) as f:
                    return f.read(_SAMPLE_BYTES), members[0].file_size
    make = _decompressor_of(lower)
    if make is None:
        with open(path, "rb") as f:
            return f.read(_SAMPLE_BYTES), size
    sample = _decompressed_sample(path, make)
    text_size = sample.size
    if not sample.exact and sample.streams == 1 and lower.endswith(".gz") and size >= 4:
        with open(path, "rb") as f:  # ISIZE: the last member's text size modulo 2**32
            f.seek(-4, os.SEEK_END)
            isize = int.from_bytes(f.read(4), "little")
        wraps = max(0, round((text_size - isize) / 2**32))  # a text over 4 GiB wraps ISIZE
        trailer = isize + wraps * 2**32
        # one member: the trailer is exact. More, past the sample (two halves of a text
        # concatenated): the last member's size alone, far from the sample's; kept apart by
        # the sample's ratio, good to a few per cent on real tables
        if 0.75 * text_size <= trailer <= text_size / 0.75:
            text_size = trailer
    return sample.head, text_size


def read_memory_estimate(path: str | os.PathLike) -> ReadEstimate:
    """The memory reading ``path`` whole takes, estimated without reading its rows: for a
    CSV from its size (its text's) and its first 64 KiB (the header's columns, the mean
    row length), as :data:`CSV_BYTES_PER_BYTE` x bytes + :data:`CSV_BYTES_PER_CELL` x cells;
    for Parquet from its metadata (rows x columns x :data:`PARQUET_BYTES_PER_CELL`).

    >>> e = read_memory_estimate("datasets/asia.csv")
    >>> e.n_columns, 9_000 < e.n_rows < 11_000
    (8, True)
    """
    path = data_file(path)
    if is_parquet(path):
        if os.path.isdir(path):
            fragments = _dataset(path).get_fragments()
            n_rows = sum(f.metadata.num_rows for f in fragments)
        else:
            n_rows = _parquet().ParquetFile(path).metadata.num_rows
        n_columns = len(_parquet_schema(path).names)
        cells = n_rows * n_columns
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)
        return ReadEstimate(int(PARQUET_BYTES_PER_CELL * cells), n_rows, n_columns, size)
    if os.path.isdir(path):
        return ReadEstimate(0, 0, 0, 0)  # refused as a directory when read
    sample, size = _csv_sample(path)
    header, _, body = sample.partition(b"\n")
    text = header.decode("latin-1")
    sep = "\t" if path.lower().endswith((".tsv", ".tab")) else header_separator(text)
    n_columns = text.count(sep) + 1
    if len(sample) < _SAMPLE_BYTES:  # the whole text: its rows counted
        n_rows = len(body.splitlines())
    else:  # the rest of the text over the mean length of the sample's whole rows
        whole_rows = body.count(b"\n")
        per_row = body.rfind(b"\n") / whole_rows if whole_rows else len(body)
        n_rows = int((size - len(header) - 1) / max(per_row, 1))
    cells = n_rows * n_columns
    n_bytes = CSV_BYTES_PER_BYTE * size + CSV_BYTES_PER_CELL * cells
    return ReadEstimate(int(n_bytes), n_rows, n_columns, size)


def python_read_fix() -> str:
    """What a Python user does instead of reading a file too large for memory whole."""
    return (
        "read it in chunks instead: fit a counting classifier on the path (NaiveBayes, TAN, "
        "KDB, AODE, ... read a file in chunks), or learn a density from the path with a "
        "learner that reads it in chunks (tl.chow_liu(path), tl.TreeMixture(chunksize=100_000),"
        " tl.HiddenTree(chunksize=100_000)); or learn from a sample of its rows "
        "(pandas.read_csv(path, nrows=100_000)); if the estimate is wrong for this file, "
        "raise treelearn.limits.READ_MEMORY_LIMIT (bytes)"
    )


@dataclass
class _ReadCheck:
    """The interface a whole read is asked from: the words of its fix, and the files whose
    read it has checked (by path, size and modification time), each checked once."""

    fix: str
    checked: set = field(default_factory=set)


#: the read check of the interface the current call came through (``None``: Python's)
_READ_CHECK: ContextVar[_ReadCheck | None] = ContextVar("treelearn_read_check", default=None)


@contextmanager
def read_check(fix: str) -> Iterator[None]:
    """Within this block every whole read is checked once (:func:`check_read_memory`: one
    estimate per file, however many readers read it) and refused with ``fix``, the
    interface's way around (the command line's flags; Python's arguments are the default,
    :func:`python_read_fix`). An outer block's words win: the command that knows most about
    its ways around (``learn``, which can stream) words the refusal of the readers it calls.

    >>> with read_check("use a smaller file"):
    ...     check_read_memory("datasets/asia.csv")  # estimated once, here
    ...     check_read_memory("datasets/asia.csv")  # already checked: not estimated again
    """
    if _READ_CHECK.get() is not None:
        yield
        return
    token = _READ_CHECK.set(_ReadCheck(fix))
    try:
        yield
    finally:
        _READ_CHECK.reset(token)


def _file_key(path: str) -> tuple:
    """A file as the read check knows it: its real path, size and modification time (a file
    rewritten between two reads is checked again)."""
    try:
        stat = os.stat(path)
    except OSError:
        return (path,)
    return (os.path.realpath(path), stat.st_size, stat.st_mtime_ns)


def check_read_memory(path: str | os.PathLike, fix: str | None = None) -> None:
    """Refuse to read ``path`` whole when :func:`read_memory_estimate` exceeds what may be
    taken (:func:`treelearn.limits.read_memory_limit`: the machine's available memory, unless
    a limit is set), before anything is read: a :class:`~treelearn.ResourceLimitError`
    naming the file, the estimate, the memory available and the fix: ``fix``, else that of
    the interface the call came through (:func:`read_check`), else Python's
    (:func:`python_read_fix`). Within :func:`read_check` a file is estimated once.

    >>> check_read_memory("datasets/asia.csv")  # a small file passes
    """
    allowed, source = limits.read_memory_limit()
    if allowed is None:
        return  # nothing known of the machine's memory: read, as before
    name = os.fspath(path)
    context = _READ_CHECK.get()
    key = _file_key(name)
    if context is not None and key in context.checked:
        return  # this interface's call checked this file already
    with reading(name):  # a bad file named as a reader names it
        estimate = read_memory_estimate(path)
    if estimate.n_bytes <= allowed:
        if context is not None:
            context.checked.add(key)
        return
    if fix is None:
        fix = python_read_fix() if context is None else context.fix
    on_disk = os.path.getsize(name) if os.path.isfile(name) else estimate.text_bytes
    raise ResourceLimitError(
        f"{name!r} ({limits.size_text(on_disk)} on disk, {estimate.describe()}) would need "
        f"about {limits.size_text(estimate.n_bytes)} of memory read whole, more than the "
        f"{limits.size_text(allowed)} {source}; {fix}"
    )


def read_whole(path: str | os.PathLike, **csv: Any) -> pd.DataFrame:
    """A whole CSV or Parquet file (or Parquet dataset directory) as a DataFrame.

    First the memory the read takes is estimated and checked against what the machine has
    (:func:`check_read_memory`): a file too large is refused before it is read.

    A CSV column is parsed in one go (``low_memory=False``): pandas would otherwise
    parse blocks of rows separately and give ``1`` and ``"1"`` in one column, where
    the chunked reader (:func:`text_columns`) reads such a column as text. Both give
    the same states. ``csv``: the reading options (``sep``, ``encoding``, ``thousands``,
    ``decimal``, ``quotechar``; ``dtype`` for pandas); those not given are found from the
    file's first bytes (:func:`treelearn.sources._dialect.csv_dialect`), as the chunked
    reader finds them.
    """
    path = data_file(path)
    with reading(path, encoding=csv.get("encoding")):
        check_read_memory(path)
        if is_parquet(path):
            _parquet_schema(path)  # its names checked before the rows are read
            if os.path.isdir(path):
                return _dataset(path).to_table().to_pandas()
            return pd.read_parquet(path)
        if os.path.isdir(path):
            raise IsADirectoryError(path)
        dtype = csv.pop("dtype", None)
        dialect = csv_dialect(path, **{k: v for k, v in csv.items() if v is not None})
        return pd.read_csv(path, low_memory=False, dtype=dtype, **dialect.pandas())


def iter_chunks(
    path: str | os.PathLike, chunksize: int, text: Sequence[Hashable] = ()
) -> Generator[pd.DataFrame, None, None]:
    """DataFrames of at most ``max(chunksize, MIN_CHUNK_ROWS)`` rows from a CSV (pandas) or
    Parquet (pyarrow) file, or a directory of Parquet files.

    ``text``: CSV columns to read as text (see :func:`text_columns`).
    """
    path = data_file(path)
    chunksize = max(int(chunksize), MIN_CHUNK_ROWS)
    with reading(path):
        if is_parquet(path):
            if os.path.isdir(path):
                batches = _dataset(path).to_batches(batch_size=chunksize, use_threads=False)
            else:
                batches = _parquet().ParquetFile(path).iter_batches(batch_size=chunksize)
            start = 0
            for batch in batches:  # rows numbered on from chunk to chunk, as pandas' CSV chunks
                frame = batch.to_pandas()
                frame.index = pd.RangeIndex(start, start + len(frame))
                start += len(frame)
                yield frame
        else:
            if os.path.isdir(path):
                raise IsADirectoryError(path)
            dtype = dict.fromkeys(text, str) if text else None
            dialect = csv_dialect(path).pandas()
            with pd.read_csv(path, chunksize=chunksize, dtype=dtype, **dialect) as reader:
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
    sample_weight: Hashable | None = None,
) -> CountedTable:
    """Pair counts of a CSV or Parquet file read ``chunksize`` rows at a time.

    Parameters
    ----------
    states : optional ``{column: states}`` for some or all columns; the others are
        found in a first pass. A value outside given states raises
        :class:`UnseenStateError` naming the column and value.
    missing : ``"error"``, ``"drop"`` or ``"pairwise"``, as in :func:`treelearn.encoding._table.encode`.
    sample_weight : the name of a column of the file holding row weights (see
        :func:`treelearn.encoding._table.check_sample_weight`); it is not a variable.

    Raises ``FileNotFoundError`` for a missing file.
    """
    if isinstance(chunksize, bool) or not isinstance(chunksize, (int, np.integer)) or chunksize < 1:
        raise TreelearnError(f"chunksize must be a positive integer, not {chunksize!r}")
    check_missing_policy(missing)
    path = os.fspath(path)
    given = dict(states or {})
    csv = not is_parquet(path)
    # a CSV given no states takes its header from its first chunk (the same parser and
    # dialect as read_header: one read of the file less); the others need it first
    header_from_chunk = csv and not given
    # CSV columns read as text: those given text states ("1" must stay "1", as in
    # a model learned from this data) and those found to mix numbers and text
    text: list = []
    if not header_from_chunk:
        header = _checked_header(path, read_header(path), given, sample_weight)
        text = [
            c
            for c in header
            if csv
            and c in given
            and len(given[c]) > 0
            and all(isinstance(s, str) for s in given[c])
        ]

    # the first chunk and whether more follow: a file of one chunk is read once and
    # encoded as a table read whole (what the two passes reproduce chunk by chunk)
    reader = iter_chunks(path, chunksize, text)
    ahead = list(itertools.islice(reader, 2))
    if header_from_chunk:
        names = tuple(ahead[0].columns) if ahead else read_header(path)
        header = _checked_header(path, names, given, sample_weight)
    if len(ahead) == 1:
        counted = _count_whole(ahead[0], header, given, missing, max_states, sample_weight)
        if counted is not None:
            reader.close()
            return counted
    pending: list = [(tuple(text), itertools.chain(ahead, reader))]  # for the first pass

    def chunks() -> Iterator[tuple[str, pd.DataFrame, np.ndarray | None]]:
        start = 0
        source = (
            pending.pop()[1]
            if pending and pending[0][0] == tuple(text)
            else iter_chunks(path, chunksize, text)
        )
        pending.clear()
        for chunk in source:
            where = _rows(start, chunk, path)
            start += len(chunk)
            rows, weights = split_weights(chunk, sample_weight, where)
            yield where, rows, weights

    def scan_file(grow: GrowingCounts | None = None) -> Scan | None:
        """The merged scan of every chunk; with ``grow``, each chunk counted there too."""
        parts: list = []  # the running scan first, then chunks' scans merged in groups
        for where, chunk, weights in chunks():
            check_columns(chunk.columns, header, where)
            is_missing = chunk.isna().to_numpy()
            found = None if grow is None else grow.add(chunk, missing, weights, is_missing)
            parts.append(
                scan_chunk(
                    chunk, missing, max_states, skip=given, is_missing=is_missing, uniques=found
                )
            )
            if len(parts) > _MERGE_EVERY:
                parts = [Scan.merge_all(parts)]
        return Scan.merge_all(parts) if parts else None

    if all(c in given for c in header):
        # no scan: missing values are known only once counted (one error after the
        # counting pass), and a value outside the given states stops the count where it
        # is found (UnseenStateError, as encode raises it at once)
        all_states = tuple(tuple(python_scalar(v) for v in given[c]) for c in header)
        dtypes = None  # from the first chunk of the counting pass
    else:
        # a CSV is counted in the states pass (one read); Parquet, whose decoding is cheap
        # next to parsing text, keeps its two passes
        grow = GrowingCounts(header, given, max_states) if csv else None
        scan = scan_file(grow)
        found = [c for c in text_columns(scan) if c not in text] if scan is not None and csv else []
        if found:
            text += found
            grow = None  # those columns were counted as numbers and as text: count again
            scan = scan_file()
        if scan is None or scan.n_rows == 0:
            raise EmptyDataError(
                f"{path!r} has no rows{_weighted(sample_weight)}; there is nothing to learn"
            )
        all_states, dtypes = final_states(
            scan, given, max_states, missing=missing, where=repr(path)
        )
        joint = None if grow is None else grow.joint(all_states)
        if grow is not None and joint is not None:
            return _counted(
                path,
                header,
                all_states,
                dtypes,
                missing,
                sample_weight,
                ChunkCounts(joint, grow.n_rows, scan.missing, scan.n_rows),
            )
    total = None
    for where, chunk, weights in chunks():
        if dtypes is None:
            dtypes = tuple(chunk[c].dtype for c in chunk.columns)
        part = count_chunk(chunk, header, all_states, missing, where, weights)
        total = part if total is None else total + part
    return _counted(path, header, all_states, dtypes, missing, sample_weight, total)


def _checked_header(
    path: str, header: tuple, given: Mapping, sample_weight: Hashable | None
) -> tuple:
    """The file's columns but the weight column, once the weight column and the columns
    given states are found among them."""
    if sample_weight is not None:
        if sample_weight not in header:
            raise ColumnNotFoundError(
                f"sample_weight={sample_weight!r} is not a column of {path!r} {list(header)}; "
                f"name the column that holds the row weights",
                column=sample_weight,
            )
        header = tuple(c for c in header if c != sample_weight)
    unknown = [c for c in given if c not in header]
    if unknown:
        raise ColumnNotFoundError(
            f"states given for {unknown!r}, which are not columns of {path!r} {list(header)}",
            column=unknown[0],
        )
    return header


def _counted(
    path: str,
    header: Sequence,
    all_states: tuple,
    dtypes: Sequence | None,
    missing: MissingPolicy,
    sample_weight: Hashable | None,
    total: ChunkCounts | None,
) -> CountedTable:
    """The file's counts, once its missing values and rows are checked."""
    if total is None or total.n_seen == 0:
        raise EmptyDataError(
            f"{path!r} has no rows{_weighted(sample_weight)}; there is nothing to learn"
        )
    assert dtypes is not None  # known from the states pass or the first chunk counted
    check_missing(Scan(tuple(header), [], total.n_missing, total.n_seen), missing, repr(path))
    if total.n_rows == 0:
        raise EmptyDataError(
            f"every row of {path!r} has a missing value; missing='drop' leaves no rows: "
            f"try missing='pairwise'"
        )
    cards = np.array([len(s) for s in all_states], dtype=np.int64)
    pairs = PairCounts(total.joint, cards, total.n_rows)
    return CountedTable(tuple(header), all_states, tuple(dtypes), pairs=pairs)


def _count_whole(
    chunk: pd.DataFrame,
    header: Sequence,
    given: Mapping,
    missing: MissingPolicy,
    max_states: int,
    sample_weight: Hashable | None,
) -> CountedTable | None:
    """The counts of a file read whole in one chunk, by ``encode`` as for a DataFrame;
    ``None`` where the two passes must decide (a column of mixed numbers and text, which
    they read again as text; any problem, which they word with the file's rows)."""
    if [c for c in chunk.columns if c != sample_weight] != list(header):
        return None
    if any(dtype == np.dtype(object) for dtype in chunk.dtypes):  # no Series per column
        return None
    # its notes are given once it stands (else the two passes give them)
    with warnings.catch_warnings(record=True) as notes:
        warnings.simplefilter("always")
        try:
            rows, weights = split_weights(chunk, sample_weight)
            table = encode(
                rows,  # its columns are the header, in order (checked above): no copy
                missing=missing,
                max_states=max_states,
                states=given or None,
                sample_weight=weights,
            )
        except TreelearnError:
            return None
    if table.n_rows == 0:
        return None
    for note in notes:
        warnings.warn(note.message, note.category, stacklevel=5)
    return CountedTable(table.columns, table.states, table.dtypes, pairs=pair_counts(table))


def _weighted(weight_column: Hashable | None) -> str:
    return "" if weight_column is None else f" of positive weight ({weight_column!r})"


def read_header(path: str | os.PathLike) -> tuple:
    """Column names of a CSV or Parquet file, read without reading the rows."""
    path = data_file(path)
    with reading(path):
        if is_parquet(path):
            schema = _parquet_schema(path)
            return tuple(pd.DataFrame(schema.empty_table().to_pandas()).columns)
        if os.path.isdir(path):
            raise IsADirectoryError(path)
        return tuple(pd.read_csv(path, nrows=0, **csv_dialect(path).pandas()).columns)
