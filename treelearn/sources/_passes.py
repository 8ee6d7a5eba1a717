"""Passes over the rows of a table of any kind, one per EM iteration: what EM learners read.

An EM learner (a mixture, a hidden tree) needs its rows again at every iteration, but
only through sums: expected counts and the log-likelihood add up over rows. So a
source here is the table's description (columns, states, dtypes), its counts (the
statistics of one counting pass, e.g. for the first tree) and one method,
:meth:`RowPasses.sum`: ``summarise(codes, weights)`` of every chunk of encoded rows,
added up.

* a DataFrame, array, ``scipy.sparse`` matrix or encoded Table is encoded once and held
  in memory, identical rows merged into one weighted row (EM on them is EM on the data):
  one chunk; so is a file (read whole) or a Dask DataFrame (computed) when no
  ``chunksize`` is given;
* with a ``chunksize``, a CSV/Parquet file is read ``chunksize`` rows at a time at every
  pass, never whole (memory flat in the number of rows): the states come from the
  counting pass (:func:`~treelearn.sources._files.count_file`); and a Dask DataFrame is
  summarised partition by partition on its workers, the sums tree-reduced there
  (:func:`~treelearn.sources._dask.tree_reduce`): only the sums come back.

``missing``: ``"error"`` and ``"drop"`` as everywhere; ``"em"`` keeps rows with
missing cells (``-1`` in the codes: EM sums them out).

>>> import pandas as pd
>>> passes = row_passes(pd.DataFrame({"a": [0, 1, 1]}), learner="EM")
>>> passes.states, passes.n_rows, passes.sum(lambda codes, w: float(w @ codes[:, 0]))
(((0, 1),), 3, 2.0)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._base.errors import TreelearnError, UnseenStateError
from ..encoding._table import DEFAULT_MAX_STATES, Table, distinct_rows, encode
from ..stats._counts import CountedTable
from ._count import count, in_memory_table
from ._dask import import_dask, tree_reduce, with_weights
from ._files import NO_STATE_CAP, given_states_hint, is_parquet, iter_chunks, split_weights
from ._kinds import by_kind

__all__ = ["EMMissing", "InMemoryRows", "RowPasses", "merge_identical_rows", "row_passes"]

Summarise = Callable[[np.ndarray, np.ndarray], Any]
#: what EM does with missing cells: refuse them, drop their rows, or fill them in ("em")
EMMissing = Literal["error", "drop", "em"]


def merge_identical_rows(table: Table) -> tuple[Table, np.ndarray]:
    """The same data with identical rows merged into one row weighted by their total weight,
    and the merged row of every original row.

    Identical rows get identical posteriors, so EM on the merged rows is EM on the data
    (every count and the likelihood are the same weighted sums), at the cost of the
    distinct rows only: 291,326 rows of msnbc are 9,228 distinct ones. The distinct rows
    come from :func:`treelearn.encoding._table.distinct_rows` (exact, numbered in order of
    first appearance).
    """
    n = table.codes.shape[0]
    if table.codes.shape[1] == 0:
        return table, np.arange(n)
    first, group = distinct_rows(table.codes)
    m = len(first)
    if m == n:
        return table, np.arange(n)
    weights = np.bincount(group, weights=table.weights, minlength=m)
    return Table(table.codes[first], table.columns, table.states, table.dtypes, weights), group


@dataclass
class RowPasses:
    """A table's rows for EM: ``sum(summarise)`` adds ``summarise(codes, weights)`` over its
    chunks (``weights``: one per row, never None); ``counts`` are its statistics."""

    columns: tuple
    states: tuple
    dtypes: tuple
    counts: CountedTable
    missing: EMMissing = "error"
    where: str = "the data"

    @property
    def n_rows(self) -> int | float:
        """The rows (their total weight with ``sample_weight``)."""
        return self.counts.n_rows

    @property
    def cardinalities(self) -> np.ndarray:
        return np.array([len(s) for s in self.states], dtype=np.int64)

    @property
    def in_memory(self) -> bool:
        return False

    def sum(self, summarise: Summarise) -> Any:  # pragma: no cover - every kind defines it
        raise NotImplementedError


@dataclass
class InMemoryRows(RowPasses):
    """Encoded rows held in memory, identical rows merged (``table.weights``: their counts;
    ``group[r]``: the merged row of original row ``r``, for draws over the original rows)."""

    table: Table = field(kw_only=True)
    group: np.ndarray = field(kw_only=True)

    @property
    def in_memory(self) -> bool:
        return True

    def sum(self, summarise: Summarise) -> Any:
        t = self.table
        w = np.ones(t.n_rows) if t.weights is None else t.weights
        return summarise(t.codes, w)


def _encode_chunk(
    rows: pd.DataFrame, weights: np.ndarray | None, passes: RowPasses, where: str
) -> tuple[np.ndarray, np.ndarray]:
    given = dict(zip(passes.columns, passes.states))
    try:
        table = encode(
            rows[list(passes.columns)], missing="pairwise", states=given, max_states=NO_STATE_CAP
        )
    except UnseenStateError as error:
        raise error.with_hint(given_states_hint(error.column), where=where) from None
    codes = table.codes
    w = np.ones(len(codes)) if weights is None else np.asarray(weights, dtype=float)
    if passes.missing == "drop":
        keep = (codes >= 0).all(axis=1)
        codes, w = codes[keep], w[keep]
    return codes, w


@dataclass
class FileRows(RowPasses):
    """A CSV/Parquet file, read ``chunksize`` rows at a time at every pass."""

    path: str = ""
    chunksize: int = 200_000
    weight_column: Hashable | None = None

    def sum(self, summarise: Summarise) -> Any:
        csv = not is_parquet(self.path)
        text = [
            c
            for c, s in zip(self.columns, self.states)
            if csv and s and all(isinstance(v, str) for v in s)
        ]
        total, start = None, 0
        for chunk in iter_chunks(self.path, self.chunksize, text):
            where = f"{self.path}, rows {start}-{start + len(chunk) - 1}: "
            start += len(chunk)
            rows, weights = split_weights(chunk, self.weight_column, where)
            codes, w = _encode_chunk(rows, weights, self, where)
            if len(codes):
                part = summarise(codes, w)
                total = part if total is None else total + part
        return total


def _summarise_partition(
    part: pd.DataFrame, passes: RowPasses, weight_column: Hashable | None, summarise: Summarise
) -> Any:
    rows, weights = split_weights(part, weight_column)
    codes, w = _encode_chunk(rows, weights, passes, "")
    return summarise(codes, w) if len(codes) else None


def _add(a: Any, b: Any) -> Any:
    return b if a is None else a if b is None else a + b


@dataclass
class DaskRows(RowPasses):
    """A Dask DataFrame: every pass summarises each partition on its worker, sums reduced there."""

    frame: Any = None
    weight_column: Hashable | None = None

    def sum(self, summarise: Summarise) -> Any:
        delayed = import_dask().delayed
        # the workers get the description only, not the counts
        plain = RowPasses(self.columns, self.states, self.dtypes, self.counts, self.missing)
        parts = [
            delayed(_summarise_partition)(p, plain, self.weight_column, summarise)
            for p in self.frame.to_delayed()
        ]
        return tree_reduce(parts, _add).compute()


def row_passes(
    data: Any,
    *,
    learner: str,
    missing: EMMissing = "error",
    max_states: int = DEFAULT_MAX_STATES,
    states: Mapping[Hashable, Sequence] | None = None,
    names: Sequence[Hashable] | None = None,
    sample_weight: Any = None,
    chunksize: int | None = None,
) -> RowPasses:
    """The rows of ``data`` (any kind) as :class:`RowPasses` for the EM ``learner``.

    ``missing``: ``"error"``, ``"drop"`` or ``"em"`` (rows with missing cells kept).
    ``sample_weight``: one weight per row, or the name of the weight column of a file or
    a Dask DataFrame (or a Dask Series partitioned like it). With ``chunksize`` a file is
    read in chunks of that many rows at every pass (the first pass finds the states, unless
    ``states`` gives every column's) and a Dask DataFrame stays on its workers; without,
    both are held in memory.
    """
    counting = "pairwise" if missing == "em" else missing

    def in_memory(source: Any) -> RowPasses:
        table = in_memory_table(
            source,
            learner=learner,
            missing=counting,
            max_states=max_states,
            states=states,
            names=names,
            sample_weight=sample_weight,
        )
        merged, group = merge_identical_rows(table)
        return InMemoryRows(
            merged.columns,
            merged.states,
            merged.dtypes,
            CountedTable.of_table(merged),
            missing,
            table=merged,
            group=group,
        )

    def path(source: Any) -> RowPasses:
        if sample_weight is not None and not isinstance(sample_weight, (str, int)):
            raise TreelearnError(
                "for a file, sample_weight is the name of the column that "
                "holds the weights (e.g. sample_weight='w'), not "
                f"{type(sample_weight).__name__}"
            )
        assert chunksize is not None  # a file is read in passes only with a chunksize
        counted = count(
            source,
            missing=counting,
            max_states=max_states,
            states=states,
            chunksize=chunksize,
            sample_weight=sample_weight,
        )
        return FileRows(
            counted.columns,
            counted.states,
            counted.dtypes,
            counted,
            missing,
            repr(os.fspath(source)),
            path=os.fspath(source),
            chunksize=chunksize,
            weight_column=sample_weight,
        )

    def dask(source: Any) -> RowPasses:
        counted = count(
            source,
            missing=counting,
            max_states=max_states,
            states=states,
            sample_weight=sample_weight,
        )
        frame, weight_column = with_weights(source, sample_weight)
        return DaskRows(
            counted.columns,
            counted.states,
            counted.dtypes,
            counted,
            missing,
            "the dask DataFrame",
            frame=frame,
            weight_column=weight_column,
        )

    return by_kind(
        data,
        {
            "table": in_memory,
            "sparse": in_memory,
            "frame": in_memory,
            "array": in_memory,
            "path": in_memory if chunksize is None else path,
            "dask": in_memory if chunksize is None else dask,
        },
        learner=learner,
    )
