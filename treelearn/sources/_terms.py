"""Term counts by class from any input kind: what text naive Bayes asks for.

The contract: :func:`term_counts_by_class` ``(X, y, *, sample_weight=None,
binarize=None, term_sums=True, chunksize=200_000, learner=...) -> TermCounts``
(:class:`~treelearn.stats._terms.TermCounts`: ``term_sums = Y^T X`` unless
``term_sums=False`` and, with ``binarize``, ``document_counts = Y^T [X > binarize]``,
per class). ``X`` is

* a ``scipy.sparse`` matrix of documents x terms: **never made dense** (the products
  follow the non-zeros);
* a DataFrame or a 2-D array of counts (``terms``: the DataFrame's column names);
* a CSV/Parquet path, ``y`` the name of its class column, read in chunks;
* a Dask DataFrame, ``y`` a Dask Series partitioned like it (or a column name),
  reduced on the workers.

Counts must be non-negative and finite; rows of weight zero are left out (their
labels are no classes).

>>> t = term_counts_by_class([[1, 0], [2, 0], [0, 1], [0, 0]], ["a", "a", "b", "b"], binarize=0.0)
>>> t.classes.tolist(), t.term_sums.tolist(), t.document_counts.tolist()
(['a', 'b'], [[3.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 1.0]])
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ..stats._terms import TermCounts
from ._by_class import statistics_by_class
from ._kinds import term_matrix

__all__ = ["term_counts_by_class"]


def term_counts_by_class(
    X: Any,
    y: Any,
    *,
    sample_weight: Any = None,
    binarize: float | None = None,
    term_sums: bool = True,
    chunksize: int = 200_000,
    learner: str = "text naive Bayes",
) -> TermCounts:
    """The term counts of each class of the documents ``X`` (classes: ``y``'s sorted
    labels), from any kind of input (see the module's contract)."""
    return statistics_by_class(
        X,
        y,
        matrix=partial(_named_terms, learner=learner),
        of_rows=partial(_term_counts, binarize=binarize, term_sums=term_sums),
        learner=learner,
        in_memory=("sparse", "frame", "array"),
        refusals={
            "table": "an encoded Table holds category codes, not term counts; give the "
            "documents x terms counts"
        },
        sample_weight=sample_weight,
        chunksize=chunksize,
    )


def _named_terms(X: Any, *, learner: str) -> tuple[Any, Any]:
    A, names = term_matrix(X, learner=learner)
    return names, A


def _term_counts(
    names: Any,
    A: Any,
    codes: np.ndarray,
    classes: np.ndarray,
    weights: Any,
    *,
    binarize: float | None,
    term_sums: bool,
) -> TermCounts:
    return TermCounts.of_rows(names, A, codes, classes, weights, binarize, term_sums)
