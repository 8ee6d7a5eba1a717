"""Contingency tables from one matrix product of one-hot blocks.

Every variable ``j`` owns a block of ``k_j`` indicator columns in a one-hot
matrix ``X`` (``n x K``, ``K = sum k_j``). Then ``X.T @ X`` holds, in its
``(i, j)`` block, the pairwise table ``N_ij(a, b)``, and on its diagonal blocks
the marginals. A missing value is an all-zero one-hot row, so every block
counts exactly the rows where *both* of its variables are observed: the
pairwise-complete counts come from the same product.

Rows are processed in chunks (memory ``O(K^2 + chunk K)``, independent of ``n``);
each chunk's product is computed in float32, exact because a chunk has fewer
than 2^24 rows, then added to an int64 total, so the counts are exact integers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .data import Table

__all__ = ["PairCounts", "pair_counts", "one_hot", "chunk_rows_for"]

#: bytes of one-hot matrix per chunk; bounds the working memory of counting
CHUNK_BYTES = 32 * 2**20


def chunk_rows_for(width: int, budget: int = CHUNK_BYTES) -> int:
    """Rows per chunk so that a float32 one-hot chunk of ``width`` columns fits ``budget``."""
    return int(min(2**24 - 1, max(1024, budget // (4 * max(width, 1)))))


def offsets_of(cardinalities: np.ndarray) -> np.ndarray:
    """Start column of each variable's block (length d + 1, last entry = K)."""
    return np.concatenate([[0], np.cumsum(cardinalities)]).astype(np.int64)


def one_hot(codes: np.ndarray, offsets: np.ndarray, dtype=np.float32) -> np.ndarray:
    """One-hot matrix of a chunk of codes; a missing code (-1) gives an all-zero block."""
    n, d = codes.shape
    out = np.zeros((n, int(offsets[-1])), dtype=dtype)
    observed = codes >= 0
    rows = np.broadcast_to(np.arange(n)[:, None], (n, d))[observed]
    cols = (codes.astype(np.int64) + offsets[:-1])[observed]
    out[rows, cols] = 1
    return out


@dataclass(frozen=True)
class PairCounts:
    """All marginal and pairwise contingency tables of a table, as one ``K x K`` matrix.

    ``joint[offsets[i]:offsets[i+1], offsets[j]:offsets[j+1]]`` is ``N_ij``, counted
    over the rows where both ``X_i`` and ``X_j`` are observed; the diagonal block
    ``(i, i)`` is diagonal and holds ``N_i``.
    """

    joint: np.ndarray  # (K, K) int64
    cardinalities: np.ndarray  # (d,) int64
    n_rows: int

    @property
    def offsets(self) -> np.ndarray:
        return offsets_of(self.cardinalities)

    @property
    def n_variables(self) -> int:
        return len(self.cardinalities)

    def block(self, i: int, j: int) -> np.ndarray:
        """``N_ij`` as a ``k_i x k_j`` integer array."""
        o = self.offsets
        return self.joint[o[i] : o[i + 1], o[j] : o[j + 1]]

    def marginal(self, i: int) -> np.ndarray:
        """``N_i``: counts of each state of variable ``i`` over the rows where it is observed."""
        return np.diagonal(self.block(i, i)).copy()

    def block_indicator(self) -> np.ndarray:
        """``K x d`` 0/1 matrix: column ``j`` marks the rows of ``joint`` in block ``j``."""
        owner = np.repeat(np.arange(self.n_variables), self.cardinalities)
        out = np.zeros((len(owner), self.n_variables))
        out[np.arange(len(owner)), owner] = 1.0
        return out

    def pair_totals(self) -> np.ndarray:
        """``d x d`` matrix of the number of rows where both variables are observed."""
        B = self.block_indicator()
        return np.rint(B.T @ self.joint @ B).astype(np.int64)

    def __add__(self, other: "PairCounts") -> "PairCounts":
        if not np.array_equal(self.cardinalities, other.cardinalities):
            raise ValueError("cannot add counts over different variables or states")
        return PairCounts(self.joint + other.joint, self.cardinalities, self.n_rows + other.n_rows)


def count_codes(codes: np.ndarray, cardinalities: np.ndarray, chunk_rows: int | None = None) -> np.ndarray:
    """``K x K`` int64 matrix ``X.T @ X`` of the one-hot encoding of ``codes``, chunked over rows."""
    offsets = offsets_of(cardinalities)
    width = int(offsets[-1])
    total = np.zeros((width, width), dtype=np.int64)
    step = chunk_rows or chunk_rows_for(width)
    for start in range(0, codes.shape[0], step):
        X = one_hot(codes[start : start + step], offsets)
        total += np.rint(X.T @ X).astype(np.int64)
    return total


def pair_counts(table: Table, chunk_rows: int | None = None) -> PairCounts:
    """Every marginal and pairwise contingency table of ``table``, from one chunked product.

    Examples
    --------
    >>> import pandas as pd
    >>> from treelearn.data import encode
    >>> pc = pair_counts(encode(pd.DataFrame({"a": [0, 0, 1], "b": ["x", "y", "y"]})))
    >>> pc.block(0, 1).tolist()   # rows: a = 0, 1; columns: b = x, y
    [[1, 1], [0, 1]]
    >>> pc.marginal(1).tolist()
    [1, 2]
    """
    joint = count_codes(table.codes, table.cardinalities, chunk_rows)
    return PairCounts(joint=joint, cardinalities=table.cardinalities, n_rows=table.n_rows)


def class_pair_counts(
    table: Table, class_index: int, chunk_rows: int | None = None
) -> list[PairCounts]:
    """Pairwise tables of ``table`` within each class: one :class:`PairCounts` per class state.

    Rows whose class is missing are left out.
    """
    y = table.codes[:, class_index]
    out = []
    for c in range(len(table.states[class_index])):
        rows = table.codes[y == c]
        out.append(
            PairCounts(count_codes(rows, table.cardinalities, chunk_rows), table.cardinalities, len(rows))
        )
    return out
