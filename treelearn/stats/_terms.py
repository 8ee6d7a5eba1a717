"""Term counts by class: the sufficient statistics of multinomial and Bernoulli naive Bayes.

For documents as rows of term counts ``X`` (dense, or ``scipy.sparse`` and never
made dense) and the weighted class indicator ``Y`` (``n x k``), everything text
naive Bayes learns from is two products:

* ``term_sums = Y^T X``: the (weighted) count of each term in each class (multinomial;
  not counted with ``term_sums=False``);
* ``document_counts = Y^T [X > binarize]``: the (weighted) number of documents of
  each class containing each term (Bernoulli), when ``binarize`` is given;

plus each class's rows and total weight. Sets of counts add up (``a + b``, class by
class), so a file read in chunks or Dask partitions give the counts of the whole.

>>> import scipy.sparse as sp
>>> X = sp.csr_matrix([[2, 0], [0, 1], [1, 1]])
>>> t = TermCounts.of_rows(None, X, np.array([0, 1, 1]), ["a", "b"], binarize=0.0)
>>> t.term_sums.tolist(), t.document_counts.tolist(), t.weight.tolist()
([[2.0, 0.0], [1.0, 2.0]], [[1.0, 0.0], [1.0, 2.0]], [1.0, 2.0])
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._base.errors import TreelearnError
from ._classes import ClassStatistics, class_indicator, label_array, spread

__all__ = ["TermCounts", "binary_terms"]


def binary_terms(A: Any, threshold: float) -> Any:
    """``[A > threshold]`` as floats: a sparse matrix stays sparse (a copy; the caller's
    data is not changed)."""
    if hasattr(A, "tocsr"):
        B = A.copy()
        B.data = (B.data > threshold).astype(float)
        B.eliminate_zeros()
        return B
    return (threshold < A).astype(float)


def _class_sums(Y: np.ndarray, A: Any) -> np.ndarray:
    """``Y^T A`` as a dense ``k x d`` array: one (sparse) product for every class and term."""
    out = (A.T @ Y).T if hasattr(A, "tocsr") else Y.T @ A
    return np.asarray(out)


@dataclass(frozen=True)
class TermCounts(ClassStatistics):
    """Term counts per class: ``rows`` (k,), ``weight`` (k,), ``term_sums`` (k, d; ``None``
    when counted with ``term_sums=False``) and, when counted with ``binarize``,
    ``document_counts`` (k, d); ``variables`` are the terms' names (``None`` for an array
    or a sparse matrix)."""

    term_sums: np.ndarray | None
    document_counts: np.ndarray | None
    binarize: float | None

    per_class = (*ClassStatistics.per_class, "term_sums", "document_counts")

    @classmethod
    def of_rows(
        cls,
        terms: Sequence[Hashable] | None,
        A: Any,
        codes: np.ndarray,
        classes: Sequence | np.ndarray,
        weights: np.ndarray | None = None,
        binarize: float | None = None,
        term_sums: bool = True,
    ) -> TermCounts:
        """The counts of the documents ``A`` (float CSR or array) with class index ``codes``:
        the term sums unless ``term_sums=False`` (one product fewer where only the
        documents containing each term are wanted), the document counts with ``binarize``."""
        if not term_sums and binarize is None:
            raise TreelearnError(
                "term_sums=False without binarize counts nothing; give "
                "binarize (e.g. 0.0) for the document counts"
            )
        k = len(classes)
        Y = class_indicator(codes, k, weights)
        return cls(
            None if terms is None else list(terms),
            label_array(classes),
            np.bincount(codes, minlength=k),
            Y.sum(axis=0),
            _class_sums(Y, A) if term_sums else None,
            None if binarize is None else _class_sums(Y, binary_terms(A, binarize)),
            binarize,
        )

    @property
    def n_terms(self) -> int:
        """The number of terms (columns) counted."""
        counted = self.term_sums if self.term_sums is not None else self.document_counts
        assert counted is not None  # of_rows counts one of the two at least
        return counted.shape[1]

    def __add__(self, other: TermCounts) -> TermCounts:
        if (
            self.variables != other.variables
            or self.n_terms != other.n_terms
            or self.binarize != other.binarize
            or (self.term_sums is None) != (other.term_sums is None)
        ):
            raise TreelearnError(
                "term counts of other terms (or another binarize) cannot be "
                "added: every chunk must have the same columns"
            )
        labels, left, right = self.aligned(other)
        k = len(labels)

        def both(a, b):
            return None if a is None else spread(a, left, k) + spread(b, right, k)

        return TermCounts(
            self.variables,
            labels,
            both(self.rows, other.rows),
            both(self.weight, other.weight),
            both(self.term_sums, other.term_sums),
            both(self.document_counts, other.document_counts),
            self.binarize,
        )
