"""Sums over chunks of rows: a file read a chunk at a time, Dask partitions on their workers.

Statistics that add up (``a + b``: Gaussian moments, term counts) are computed
per chunk by a ``summarise(rows, weights, where)`` function and added:

* :func:`sum_file`: a CSV or Parquet file read ``chunksize`` rows at a time
  (:func:`treelearn.sources._files.iter_chunks`), never whole;
* :func:`sum_partitions`: one ``summarise`` per partition of a Dask DataFrame, run
  where the partition lives, the results tree-reduced on the workers
  (:func:`treelearn.sources._dask.tree_reduce`): only the sum comes back.

``sample_weight`` is the name of a column holding the row weights (or, for Dask,
a Dask Series partitioned like the frame); it is taken out of the rows, and rows
of weight zero are left out before ``summarise`` sees them. An error about a
chunk's rows names the file and the rows.

>>> import os, tempfile, pandas as pd
>>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
>>> pd.DataFrame({"a": range(5), "w": [1, 0, 1, 1, 1]}).to_csv(path, index=False)
>>> sum_file(path, lambda rows, w, where: int(rows["a"].sum()), sample_weight="w")
9
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import pandas as pd

from .._base.errors import ColumnNotFoundError, EmptyDataError, TreelearnError
from ._dask import import_dask, tree_reduce, with_weights
from ._files import data_file, iter_chunks, read_header, split_weights

__all__ = ["located", "sum_file", "sum_partitions"]

S = TypeVar("S")
Summarise = Callable[[pd.DataFrame, Any, str], Any]


def located(error: TreelearnError, where: str) -> TreelearnError:
    """``error`` with ``where`` (e.g. ``"data.csv, rows 0-999: "``) before its message,
    its class and fields kept."""
    return error.copied(where + str(error))


def _weight_column(header: tuple, sample_weight: Any, where: str) -> Hashable | None:
    if sample_weight is None:
        return None
    if not isinstance(sample_weight, (str, int)):
        raise TreelearnError(
            "for a file, sample_weight is the name of the column that holds the weights "
            f"(e.g. sample_weight='w'), not {type(sample_weight).__name__}"
        )
    if sample_weight not in header:
        raise ColumnNotFoundError(
            f"sample_weight={sample_weight!r} is not a column of {where} {list(header)}; name "
            f"the column that holds the row weights",
            column=sample_weight,
        )
    return sample_weight


def sum_file(
    path: str | os.PathLike,
    summarise: Summarise,
    *,
    sample_weight: Any = None,
    chunksize: int = 200_000,
) -> Any:
    """``summarise(rows, weights, where)`` of every chunk of a CSV/Parquet file, added up.

    Raises :class:`~treelearn.EmptyDataError` for a file without rows (of positive weight).
    """
    path = data_file(path)
    weight_column = _weight_column(read_header(path), sample_weight, repr(path))
    total, start = None, 0
    for chunk in iter_chunks(path, chunksize):
        where = f"{path}, rows {start}-{start + len(chunk) - 1}: "
        start += len(chunk)
        rows, weights = split_weights(chunk, weight_column, where)
        if len(rows) == 0:
            continue
        try:
            part = summarise(rows, weights, where)
        except TreelearnError as error:
            raise located(error, where) from None
        total = part if total is None else total + part
    if total is None:
        raise EmptyDataError(
            f"{path!r} has no rows{'' if weight_column is None else ' of positive weight'}; "
            f"there is nothing to learn"
        )
    return total


def _summarise_partition(
    part: pd.DataFrame, summarise: Summarise, weight_column: Hashable | None
) -> Any:
    rows, weights = split_weights(part, weight_column)
    return None if len(rows) == 0 else summarise(rows, weights, "")


def _add(a: Any, b: Any) -> Any:
    return b if a is None else a if b is None else a + b


def sum_partitions(ddf: Any, summarise: Summarise, *, sample_weight: Any = None) -> Any:
    """``summarise(rows, weights, "")`` of every partition of a Dask DataFrame, computed on
    the workers and added up there (a tree reduction); only the total comes back."""
    ddf, weight_column = with_weights(ddf, sample_weight)
    delayed = import_dask().delayed
    parts = [delayed(_summarise_partition)(p, summarise, weight_column) for p in ddf.to_delayed()]
    total = tree_reduce(parts, _add).compute()
    if total is None:
        raise EmptyDataError(
            "the dask DataFrame has no rows (of positive weight); there is nothing to learn"
        )
    return total
