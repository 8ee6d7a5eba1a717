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

In practice the product is taken over a smaller basis ``Z`` (each variable's
indicators of states ``1..k-1``, missing indicators, one column of ones; see
:class:`_ReducedLayout`), from which ``X.T @ X`` follows exactly: for binary data
a quarter of the work, and ``Z`` is sparse when the data are mostly zeros (then a
scipy.sparse product is used). A ``scipy.sparse`` 0/1 matrix is counted without
densifying it (:func:`sparse_binary_counts`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import DTypeLike

from .._base.errors import EmptyDataError, StructureError, TreelearnError
from .._base.limits import check_memory
from ..encoding._table import (
    Table,
    check_column_names,
    check_sample_weight,
    check_total_weight,
    python_scalar,
)
from ._information import miller_madow_bias, mutual_information_matrix

if TYPE_CHECKING:  # hints only: counting never loads NetworkX
    import networkx as nx

__all__ = [
    "EXACT_TOTAL",
    "ClassCounts",
    "CountedTable",
    "PairCounts",
    "add_counts",
    "binary_csr",
    "check_pair_memory",
    "chunk_rows_for",
    "class_pair_counts",
    "count_codes",
    "count_codes_weighted",
    "drop_round_off",
    "family_counts_from_codes",
    "is_scipy_sparse",
    "offsets_of",
    "pair_counts",
    "sparse_binary_counts",
    "sparse_names_and_weights",
    "sum_counts",
]

#: bytes of one-hot matrix per chunk; bounds the working memory of counting
CHUNK_BYTES = 16 * 2**20


def chunk_rows_for(width: int, budget: int = CHUNK_BYTES) -> int:
    """Rows per chunk so that a float32 one-hot chunk of ``width`` columns fits ``budget``."""
    return int(min(2**24 - 1, max(1024, budget // (4 * max(width, 1)))))


def offsets_of(cardinalities: np.ndarray) -> np.ndarray:
    """Start column of each variable's block (length d + 1, last entry = K)."""
    return np.concatenate([[0], np.cumsum(cardinalities)]).astype(np.int64)


@dataclass(frozen=True)
class PairCounts:
    """All marginal and pairwise contingency tables of a table, as one ``K x K`` matrix.

    ``joint[offsets[i]:offsets[i+1], offsets[j]:offsets[j+1]]`` is ``N_ij``, counted
    over the rows where both ``X_i`` and ``X_j`` are observed; the diagonal block
    ``(i, i)`` is diagonal and holds ``N_i``.

    With row weights (``sample_weight``) every count is a sum of weights: exact
    integers (int64) when the weights are whole numbers, floats otherwise; then
    ``n_rows`` is the total weight.
    """

    joint: np.ndarray  # (K, K) int64, or float64 for fractional weights
    cardinalities: np.ndarray  # (d,) int64
    n_rows: int | float

    def __post_init__(self) -> None:
        # Counts are sums of non-negative weights: a negative float entry can only be the
        # round-off of a subtraction (state 0 derived from the others, EM's corrections),
        # whose sign depends on the BLAS kernel's summation order. Clipping it here, the one
        # constructor every count path goes through, makes every CPT and MI the same on
        # every machine. The caller's array is never changed: a clipped copy replaces it.
        joint = self.joint
        check_total_weight(float(self.n_rows))  # a file's or EM's total, summed after the rows
        if joint.dtype.kind == "f":
            if not np.isfinite(joint).all():
                raise TreelearnError(
                    "the counts hold NaN or infinite values: the row weights (sample_weight, "
                    "or a mixture's responsibilities) must be finite and their total must "
                    "fit in a float; scale the weights down"
                )
            if (joint < 0).any():
                object.__setattr__(self, "joint", np.maximum(joint, 0.0))

    @cached_property
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
        """``d x d`` matrix of the number (or weight) of rows where both variables are observed."""
        B = self.block_indicator()
        totals = B.T @ self.joint @ B
        return np.rint(totals).astype(np.int64) if self.joint.dtype.kind in "iu" else totals

    def __add__(self, other: PairCounts) -> PairCounts:
        if not np.array_equal(self.cardinalities, other.cardinalities):
            raise ValueError("cannot add counts over different variables or states")
        joint, n_rows = add_counts(self.joint, other.joint, self.n_rows, other.n_rows)
        return PairCounts(joint, self.cardinalities, n_rows)


@dataclass(frozen=True)
class _ReducedLayout:
    """Columns of the reduced indicator matrix ``Z`` that :func:`count_codes` multiplies.

    For each variable only the indicators of states ``1..k-1`` are kept, then one
    *missing* indicator per variable that has missing values, then a column of
    ones. State 0's indicator is ``1 - missing - sum(states 1..k-1)``, a linear
    function of ``Z``'s columns, so every count of the full one-hot product
    follows exactly from ``Z.T @ Z``, which has ``K - d + (variables with
    missing values) + 1`` columns instead of ``K``: half as many for binary data,
    a quarter of the work. ``Z`` is sparse when the data are mostly state 0
    (0/1 baskets, text), which :func:`count_codes` exploits.
    """

    width: int  # columns of Z
    levels: tuple  # (state a, variables with k > a, first column of Z) for a = 1, 2, ...
    missing_vars: np.ndarray  # variables with a missing indicator
    missing_start: int  # column of Z of the first missing indicator
    full_index: np.ndarray  # one-hot column of each state column of Z
    offsets: np.ndarray  # one-hot offsets (d + 1)

    @property
    def ones(self) -> int:
        return self.width - 1


def _reduced_layout(cardinalities: np.ndarray, has_missing: np.ndarray) -> _ReducedLayout:
    k = np.asarray(cardinalities, dtype=np.int64)
    offsets = offsets_of(k)
    levels, full_index, col = [], [], 0
    for a in range(1, int(k.max(initial=1))):
        members = np.flatnonzero(k > a)
        levels.append((a, members, col))
        full_index.append(offsets[members] + a)
        col += len(members)
    missing_vars = np.flatnonzero(has_missing)
    full = np.concatenate(full_index) if full_index else np.zeros(0, dtype=np.int64)
    width = col + len(missing_vars) + 1
    return _ReducedLayout(width, tuple(levels), missing_vars, col, full, offsets)


def _dense_indicators(codes: np.ndarray, layout: _ReducedLayout, out: np.ndarray) -> np.ndarray:
    """Fill ``out[:len(codes)]`` with ``Z`` for a chunk of codes (float32, for BLAS)."""
    X = out[: codes.shape[0]]
    d = codes.shape[1]
    for a, members, start in layout.levels:
        block = codes if len(members) == d else codes[:, members]
        np.equal(block, a, out=X[:, start : start + len(members)])
    m0, mv = layout.missing_start, layout.missing_vars
    if len(mv):
        np.less(codes[:, mv], 0, out=X[:, m0 : m0 + len(mv)])
    X[:, layout.ones] = 1
    return X


def _sparse_product(
    codes: np.ndarray, layout: _ReducedLayout, weights: np.ndarray | None, dtype: DTypeLike
) -> np.ndarray:
    """``Z.T @ W Z`` (``width x width``, W the row weights) for a chunk, through a
    scipy.sparse product; ``dtype`` is int64 for whole-number weights."""
    import scipy.sparse as sp

    d = codes.shape[1]
    column = np.full((d, len(layout.levels) + 2), -1, dtype=np.int64)  # [j, code] -> column of Z
    for a, members, start in layout.levels:
        column[members, a] = start + np.arange(len(members))
    column[layout.missing_vars, -1] = layout.missing_start + np.arange(len(layout.missing_vars))
    flat = np.flatnonzero(codes != 0)  # row-major: sorted by row, as CSR wants
    r, j = np.divmod(flat, d)
    cols = column[j, codes.ravel()[flat]]  # a code of -1 picks the missing column
    inner = layout.width - 1
    indptr = np.searchsorted(r, np.arange(codes.shape[0] + 1))
    shape = (codes.shape[0], inner)
    Z = sp.csr_matrix((np.ones(len(cols), dtype=dtype), cols, indptr), shape=shape)
    ZW = (
        Z
        if weights is None
        else sp.csr_matrix((weights[r].astype(dtype), cols, indptr), shape=shape)
    )
    out = np.zeros((layout.width, layout.width), dtype=dtype)
    out[:inner, :inner] = (Z.T @ ZW).toarray()
    sums = np.bincount(cols, weights=None if weights is None else weights[r], minlength=inner)
    out[:inner, inner] = sums
    out[inner, :inner] = sums
    out[inner, inner] = codes.shape[0] if weights is None else weights.sum()
    return out


def drop_round_off(values: np.ndarray, scale: float | np.ndarray, n_terms: int) -> np.ndarray:
    """``values`` (float, a difference of sums of non-negative terms) with every entry that
    is within the round-off of that difference set to exactly 0, and negatives clipped.

    ``scale`` (broadcastable) bounds the sums that were subtracted; a difference of
    ``n_terms`` such sums is exact to about ``n_terms * eps * scale``. Below that, a
    count is indistinguishable from a structural zero, and its sign and size depend on
    the BLAS kernel's summation order: snapping it to 0 makes a maximum-likelihood CPT
    give probability exactly 0 (and a score of ``-inf``) on every machine alike.
    Changes ``values`` in place and returns it.

    >>> drop_round_off(np.array([6033.66 - 6033.6600000000001, 2e-3, -1e-13]), 6033.66, 2).tolist()
    [0.0, 0.002, 0.0]
    """
    tolerance = (8 * n_terms * np.finfo(np.float64).eps) * np.abs(scale)
    values[np.abs(values) <= tolerance] = 0.0
    np.maximum(values, 0.0, out=values)
    return values


def _expand_rows(Y: np.ndarray, layout: _ReducedLayout, total: float) -> np.ndarray:
    """Rows of a product over ``Z``'s columns -> rows over the one-hot columns.

    ``total`` is the total weight (the largest count): state 0's rows are differences
    of counts no larger, so for float counts what is left within their round-off
    (and that of the first pass's differences, which the second pass subtracts) is 0."""
    offsets = layout.offsets
    F = np.zeros((int(offsets[-1]), Y.shape[1]), dtype=Y.dtype)
    F[layout.full_index] = Y[: len(layout.full_index)]
    first = offsets[:-1]
    d = len(first)
    if len(layout.levels) == 1 and len(layout.levels[0][1]) == d:  # every variable binary
        # state 0 = ones - missing - state 1, written in place (F's rows paired by
        # variable): no d x K temporary, the same numbers
        pairs = F.reshape(d, 2, F.shape[1])
        np.subtract(Y[layout.ones], pairs[:, 1], out=pairs[:, 0])
    else:
        # state 0 = ones - missing - (states 1..k-1); F[first] is still 0, so reduceat sums
        # the others
        others = np.add.reduceat(F, first, axis=0)
        F[first] = np.subtract(Y[layout.ones], others, out=others)
    mv = layout.missing_vars
    F[first[mv]] -= Y[layout.missing_start : layout.missing_start + len(mv)]
    if F.dtype.kind == "f":  # fractional weights: the subtraction leaves round-off
        k_max = int(np.diff(offsets).max(initial=1))
        F[first] = drop_round_off(F[first], total, 2 * (k_max + 1))
    return F


def _expand(M: np.ndarray, layout: _ReducedLayout) -> np.ndarray:
    d = len(layout.offsets) - 1
    binary = len(layout.levels) == 1 and len(layout.levels[0][1]) == d
    if binary and M.dtype.kind in "iu" and not len(layout.missing_vars):
        return _expand_binary(M, d)
    # expanding the rows, then the rows of the transpose, gives the transpose of
    # X.T @ X, which is symmetric: no final transposed copy is needed
    total = float(M[layout.ones, layout.ones])
    return _expand_rows(_expand_rows(M, layout, total).T, layout, total)


def _expand_binary(M: np.ndarray, d: int) -> np.ndarray:
    """:func:`_expand` of integer counts of ``d`` binary variables without missing values,
    written straight into the ``2d x 2d`` result (no ``2d x (d + 1)`` half-way matrix, the
    largest temporary of a 1,000-column count): ``Z`` is each variable's indicator of
    state 1 and a column of ones, so with ``m = M[:d, :d]``, ``r = M[:d, d]`` (state 1's
    counts) and ``n = M[d, d]``, the four cells of a pair are ``N11 = m``,
    ``N10 = r_i - m``, ``N01 = r_j - m`` and ``N00 = n - r_i - r_j + m``, exactly.

    >>> count_codes(np.array([[0, 1], [1, 1], [1, 0]]), [2, 2]).tolist()  # rows 01, 11, 10
    [[1, 0, 0, 1], [0, 2, 1, 1], [0, 1, 1, 0], [1, 1, 0, 2]]
    """
    m, r, n = M[:d, :d], M[:d, d], M[d, d]
    out = np.empty((2 * d, 2 * d), dtype=M.dtype)
    cells = out.reshape(d, 2, d, 2)  # [i, a, j, b]
    cells[:, 1, :, 1] = m
    np.subtract(r[:, None], m, out=cells[:, 1, :, 0])
    np.subtract(r[None, :], m, out=cells[:, 0, :, 1])
    np.subtract(n - r[:, None], cells[:, 0, :, 1], out=cells[:, 0, :, 0])
    return out


#: ``count_codes`` multiplies sparse matrices instead of dense ones when ``Z`` is
#: wider than ``SPARSE_MIN_WIDTH`` columns and at most this fraction of it is non-zero
SPARSE_MAX_DENSITY = 0.02
SPARSE_MIN_WIDTH = 256


#: integer counts are kept only while every count is provably exact as a float64 sum
#: (the products run in floats) and as an int64: a total weight below 2**53
EXACT_TOTAL = 2.0**53


def whole_weights(weights: np.ndarray | None) -> bool:
    """Whether counts under these row weights are exact integers: no weights, or whole
    numbers whose total is below :data:`EXACT_TOTAL` (every count is at most the total, so
    no float64 sum rounds and no int64 overflows). Larger totals count in float64: a
    constant weight of ``1e17`` then gives the same frequencies as no weights.

    >>> whole_weights(np.array([1.0, 3.0])), whole_weights(np.array([0.5])), whole_weights(np.full(300, 4e16))
    (True, False, False)
    """
    if weights is None:
        return True
    return bool(np.all(weights == np.floor(weights))) and float(weights.sum()) < EXACT_TOTAL


def add_counts(a: np.ndarray, b: np.ndarray, n_a: float, n_b: float) -> tuple[np.ndarray, float]:
    """``(a + b, n_a + n_b)`` for counts of total weights ``n_a`` and ``n_b``: integer
    counts (and their total) become float64 once the total reaches :data:`EXACT_TOTAL`
    (an int64 sum would soon wrap, silently).

    >>> joint, n = add_counts(np.array([2**62]), np.array([2**62]), 2**62, 2**62)
    >>> joint.tolist(), n
    ([9.223372036854776e+18], 9.223372036854776e+18)
    """
    n = n_a + n_b
    if n >= EXACT_TOTAL and (a.dtype.kind in "iu" or b.dtype.kind in "iu"):
        return a.astype(np.float64) + b.astype(np.float64), float(n)
    return a + b, n


def check_pair_memory(width: int, n_columns: int) -> None:
    """Refuse, before allocating, pair counts whose arrays together exceed
    :data:`treelearn.limits.MEMORY_LIMIT`: ``width`` one-hot indicators of ``n_columns``
    columns are a ``width x width`` matrix of 8-byte counts, held twice at the peak (the
    expansion from the reduced product), and the ``n_columns x n_columns`` matrices built
    from them (mutual information, the spanning tree's weights). Each array alone may fit
    where all of them do not (a 1 x 20,000 table: 3 GiB each)."""
    check_memory(
        8.0 * (2.0 * width * width + 2.0 * n_columns * n_columns),
        f"counting pairs of {n_columns} columns ({width} one-hot indicators: a {width} x {width} "
        f"matrix, twice, and {n_columns} x {n_columns} ones)",
        "count fewer columns (select the ones you need), lower max_states, or raise "
        "treelearn.limits.MEMORY_LIMIT if the machine has the memory",
    )


def count_codes(
    codes: np.ndarray,
    cardinalities: np.ndarray,
    chunk_rows: int | None = None,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """``K x K`` matrix ``X.T @ W X`` of the one-hot encoding of ``codes``, chunked over rows.

    ``W`` is the diagonal of the row ``weights`` (default: every row once), so a
    weight scales its row's one-hot indicators and counting stays one product.
    The product is taken over the reduced indicators ``Z`` of :class:`_ReducedLayout`
    and expanded exactly afterwards. Each chunk's product is either a BLAS
    product or, when ``Z`` is sparse (mostly state 0), a scipy.sparse product.
    Without weights (or with whole-number weights) the result is int64 and
    exact: a float32 product is exact while a chunk's counts stay below 2^24
    (chunks of whole weights summing past that use float64, exact to 2^53).
    Fractional weights give float64 sums.

    >>> count_codes(np.array([[0], [1], [1]]), [2], weights=np.array([2.0, 1.0, 0.5])).tolist()
    [[2.0, 0.0], [0.0, 1.5]]
    """
    cardinalities = np.asarray(cardinalities, dtype=np.int64)
    n, d = codes.shape
    exact = whole_weights(weights)
    has_missing = codes.min(axis=0) < 0 if n else np.zeros(d, dtype=bool)  # no n x d temporary
    layout = _reduced_layout(cardinalities, has_missing)
    width = layout.width
    check_pair_memory(int(cardinalities.sum()), d)  # the expanded K x K result
    total = np.zeros((width, width), dtype=np.int64 if exact else np.float64)
    step = min(chunk_rows or chunk_rows_for(width), max(n, 1))
    sparse = (
        width > SPARSE_MIN_WIDTH
        and n > 0
        and (np.count_nonzero(codes) <= SPARSE_MAX_DENSITY * n * width)
    )
    # exact counts: the indicators in the codes' memory order (a frame's codes are column
    # after column; filling across the order was a third of a 10,000 x 50 count), the
    # product of either order being the same integers. Fractional weights' float sums
    # depend on the order BLAS adds them in: row-major, as always
    column_major = codes.flags.f_contiguous and not codes.flags.c_contiguous
    order: Literal["C", "F"] = "F" if exact and column_major else "C"
    buffer = None if sparse else np.empty((step, width), dtype=np.float32, order=order)
    for start in range(0, n, step):
        chunk = codes[start : start + step]
        w = None if weights is None else weights[start : start + step]
        if sparse:
            total += _sparse_product(chunk, layout, w, total.dtype)
            continue
        assert buffer is not None  # allocated whenever the product is dense
        X = _dense_indicators(chunk, layout, buffer)
        if w is None:
            total += np.rint(X.T @ X).astype(np.int64)
        elif exact and w.sum() < 2**24:  # whole weights: float32 sums stay exact
            total += np.rint(X.T @ (X * w[:, None].astype(np.float32))).astype(np.int64)
        else:
            X64 = X.astype(np.float64)
            product = X64.T @ (X64 * w[:, None])
            total += np.rint(product).astype(np.int64) if exact else product
    del buffer  # the indicators are not needed while the counts are expanded
    return _expand(total, layout)


def count_codes_weighted(codes: np.ndarray, cardinalities: np.ndarray, weights: np.ndarray) -> list:
    """``[count_codes(codes, cardinalities, weights=weights[:, c]) for c in ...]``, the
    indicators built once for every column of ``weights`` (``n x k``, fractional: a
    mixture's responsibilities times the row weights): the same numbers, one product per
    column and chunk instead of one indicator matrix per column too.

    >>> w = np.array([[2.0, 0.5], [1.0, 1.5], [0.5, 0.5]])
    >>> [j.tolist() for j in count_codes_weighted(np.array([[0], [1], [1]]), [2], w)]
    [[[2.0, 0.0], [0.0, 1.5]], [[0.5, 0.0], [0.0, 2.0]]]
    """
    cardinalities = np.asarray(cardinalities, dtype=np.int64)
    n, d = codes.shape
    k = weights.shape[1]
    if whole_weights(weights):  # exact integer counts: count_codes' own paths
        return [count_codes(codes, cardinalities, weights=weights[:, c]) for c in range(k)]
    has_missing = codes.min(axis=0) < 0 if n else np.zeros(d, dtype=bool)
    layout = _reduced_layout(cardinalities, has_missing)
    width = layout.width
    check_pair_memory(int(cardinalities.sum()), d)
    totals = [np.zeros((width, width)) for _ in range(k)]
    step = min(chunk_rows_for(width), max(n, 1))
    sparse = (
        width > SPARSE_MIN_WIDTH
        and n > 0
        and (np.count_nonzero(codes) <= SPARSE_MAX_DENSITY * n * width)
    )
    buffer = None if sparse else np.empty((step, width), dtype=np.float32)
    for start in range(0, n, step):
        chunk = codes[start : start + step]
        w = weights[start : start + step]
        if sparse:
            for c in range(k):
                totals[c] += _sparse_product(chunk, layout, w[:, c], np.float64)
            continue
        assert buffer is not None  # allocated whenever the product is dense
        X64 = _dense_indicators(chunk, layout, buffer).astype(np.float64)
        for c in range(k):
            totals[c] += X64.T @ (X64 * w[:, c, None])
    return [_expand(total, layout) for total in totals]


def pair_counts(table: Table, chunk_rows: int | None = None) -> PairCounts:
    """Every marginal and pairwise contingency table of ``table``, from one chunked product.

    Examples
    --------
    >>> import pandas as pd
    >>> from treelearn.encoding._table import encode
    >>> pc = pair_counts(encode(pd.DataFrame({"a": [0, 0, 1], "b": ["x", "y", "y"]})))
    >>> pc.block(0, 1).tolist()   # rows: a = 0, 1; columns: b = x, y
    [[1, 1], [0, 1]]
    >>> pc.marginal(1).tolist()
    [1, 2]
    """
    joint = count_codes(table.codes, table.cardinalities, chunk_rows, table.weights)
    return PairCounts(
        joint=joint,
        cardinalities=table.cardinalities,
        n_rows=total_weight(table.weights, table.n_rows),
    )


def total_weight(weights: np.ndarray | None, n_rows: int) -> int | float:
    """The number of rows, or their total weight (an int for whole-number weights)."""
    if weights is None:
        return int(n_rows)
    total = float(weights.sum())
    return int(total) if whole_weights(weights) else total


def class_pair_counts(
    table: Table, class_index: int, chunk_rows: int | None = None
) -> list[PairCounts]:
    """Pairwise tables of ``table`` within each class: one :class:`PairCounts` per class state.

    Rows whose class is missing are left out.
    """
    y = table.codes[:, class_index]
    out = []
    for c in range(len(table.states[class_index])):
        rows = y == c
        w = None if table.weights is None else table.weights[rows]
        joint = count_codes(table.codes[rows], table.cardinalities, chunk_rows, w)
        out.append(PairCounts(joint, table.cardinalities, total_weight(w, int(rows.sum()))))
    return out


def family_counts_from_codes(
    codes: np.ndarray,
    cardinalities: Sequence[int] | np.ndarray,
    family: Sequence[int],
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """Counts of the joint configurations of ``family`` (column indices; the node last).

    Rows where any member of the family is missing are left out. One
    ``np.bincount`` over a mixed-radix index (weighted by ``weights``): no loop
    over rows. Integer counts for no weights or whole-number weights.

    The index is built column by column from views of ``codes`` (a fancy-indexed block
    of columns costs more than the whole count), and the mask of observed rows only
    where a column has a missing value.

    >>> family_counts_from_codes(np.array([[0, 1], [1, 1], [-1, 0]]), [2, 2], [0, 1]).tolist()
    [[0, 1], [0, 1]]
    """
    family = [int(j) for j in family]
    shape = tuple(int(cardinalities[j]) for j in family)
    size = int(np.prod(shape, dtype=np.int64))
    flat = codes[:, family[0]].astype(np.intp)  # below size, which bincount allocates
    observed = None
    for position, j in enumerate(family):
        column = codes[:, j]
        if position:
            flat *= shape[position]
            flat += column
        if len(column) and column.min() < 0:  # a missing value: leave its rows out
            observed = column >= 0 if observed is None else observed & (column >= 0)
    w = weights
    if observed is not None:
        flat = flat[observed]
        w = None if weights is None else weights[observed]
    counts = np.bincount(flat, weights=w, minlength=size).reshape(shape)
    return np.rint(counts).astype(np.int64) if w is not None and whole_weights(w) else counts


def is_scipy_sparse(data) -> bool:
    """Whether ``data`` is a scipy.sparse matrix or array (without importing scipy)."""
    module = type(data).__module__ or ""
    return module.startswith("scipy.sparse") and hasattr(data, "tocsr")


def sparse_names_and_weights(
    matrix: Any, columns: Sequence[Hashable] | None, sample_weight: Any
) -> tuple[tuple, np.ndarray | None]:
    """The variables' names (default ``0 .. d-1``) and the checked row weights of a sparse matrix."""
    d = matrix.shape[1]
    names = tuple(range(d)) if columns is None else tuple(columns)
    if len(names) != d:
        raise TreelearnError(f"columns has {len(names)} names for a matrix with {d} columns")
    check_column_names(names)
    return names, check_sample_weight(sample_weight, matrix.shape[0])


def binary_csr(matrix: Any, weights: np.ndarray | None = None) -> tuple[Any, np.ndarray | None]:
    """A scipy.sparse 0/1 matrix as canonical CSR without stored zeros, rows of weight zero
    left out (with their weights); the one check of sparse 0/1 input.

    The caller's arrays are shared until something changes; every change is on a copy.
    """
    import scipy.sparse as sp

    A = sp.csr_matrix(matrix)
    if weights is not None and not (weights > 0).all():
        keep = np.flatnonzero(weights > 0)
        A, weights = A[keep], weights[keep]
    if A.shape[0] == 0 or A.shape[1] == 0:
        raise EmptyDataError(f"the sparse matrix has shape {A.shape}; there is nothing to learn")
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
    bad = ~np.isin(A.data, (0, 1))
    if bad.any():
        shown = A.data[bad][:3].tolist()
        raise TreelearnError(
            f"a scipy.sparse input must hold only 0/1 (or bool) values; found {shown}; "
            f"binarize it first (e.g. matrix > 0) or pass a DataFrame of discrete columns",
            values=shown,
        )
    if (A.data == 0).any():
        A = A.copy()
        A.eliminate_zeros()
    return A, weights


def sparse_binary_counts(
    matrix: Any, chunk_rows: int = 2**20, weights: np.ndarray | None = None
) -> tuple[PairCounts, tuple]:
    """Pair counts and states of a ``scipy.sparse`` matrix of 0/1 values (rows x variables).

    Never densified: the counts come from ``Z.T @ W Z`` on the sparse matrix itself
    (exact integer arithmetic without weights), where ``Z`` holds the columns
    that take both values and ``W`` the row ``weights`` (rows of weight zero are
    left out first); a column that is all 0 (or all 1) is a one-state variable,
    exactly as in a DataFrame. The work grows with the number of non-zeros, not ``n x d``.

    Returns the :class:`PairCounts` and each column's states: ``(False, True)``
    for a bool matrix, else the values present, ``(0, 1)``, ``(0,)`` or ``(1,)``
    (floats for a float matrix). These equal what :func:`pair_counts` gives on
    the dense DataFrame ``pd.DataFrame(matrix.toarray())``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> pc, states = sparse_binary_counts(sp.csr_matrix([[1, 0], [1, 1], [0, 0]]))
    >>> states
    ((0, 1), (0, 1))
    >>> pc.block(0, 1).tolist()   # rows: a = 0, 1; columns: b = 0, 1
    [[1, 0], [1, 1]]
    """
    import scipy.sparse as sp

    A, weights = binary_csr(matrix, weights)
    n, d = A.shape
    ones = np.bincount(A.indices, minlength=d)  # rows where each column is 1
    kind = A.dtype.kind
    zero, one = (False, True) if kind == "b" else (0.0, 1.0) if kind == "f" else (0, 1)
    states: tuple[tuple[bool | int | float, ...], ...]
    if kind == "b":
        states = tuple((False, True) for _ in range(d))
    else:
        two = (ones > 0) & (ones < n)
        states = tuple(
            (zero, one) if t else ((one,) if c == n else (zero,)) for t, c in zip(two, ones)
        )
    cardinalities = np.array([len(s) for s in states], dtype=np.int64)
    # Z: the 'state 1' indicator of every two-state column; ones column last
    layout = _reduced_layout(cardinalities, np.zeros(d, dtype=bool))
    members = np.flatnonzero(cardinalities > 1)
    exact = whole_weights(weights)
    dtype = np.int64 if exact else np.float64
    Z = A[:, members].astype(dtype)
    ZW = Z if weights is None else sp.csr_matrix(Z.multiply(weights.astype(dtype)[:, None]))
    inner = layout.width - 1
    total = np.zeros((layout.width, layout.width), dtype=dtype)
    for start in range(0, n, chunk_rows):
        block = Z[start : start + chunk_rows]
        total[:inner, :inner] += (block.T @ ZW[start : start + chunk_rows]).toarray()
    sums = ones[members] if weights is None else np.asarray(ZW.sum(axis=0)).ravel()
    total[:inner, inner] = sums
    total[inner, :inner] = sums
    total[inner, inner] = n if weights is None else weights.sum()
    joint = _expand(total, layout)
    pairs = PairCounts(joint=joint, cardinalities=cardinalities, n_rows=total_weight(weights, n))
    return pairs, states


# ----------------------------------------------------------------------------- statistics
def sum_counts(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """A new array, the sum of count arrays (one shape, at least one: e.g. each class's
    counts), in the dtype they promote to, as the built-in ``sum`` gives it.

    >>> sum_counts([np.array([1, 2]), np.array([0.5, 0.0])]).tolist()
    [1.5, 2.0]
    """
    return sum(arrays[1:], start=arrays[0].copy())


@dataclass(frozen=True)
class CountedTable:
    """Sufficient statistics of a table: what every learner starts from.

    ``columns``, ``states`` and ``dtypes`` describe the variables; ``counts`` is
    the :class:`PairCounts` of every marginal and pairwise table, and
    :meth:`family_counts` the counts of any family of variables. A table counted
    in memory keeps its encoded rows (``table``): its pair counts are computed
    on first use, and its families may be of any size. A table counted
    elsewhere (a file read in chunks, Dask partitions, a sparse matrix) brings
    its pair counts only, which hold every family of one or two variables.

    Examples
    --------
    >>> import pandas as pd
    >>> from treelearn.encoding._table import encode
    >>> stats = CountedTable.of_table(encode(pd.DataFrame({"a": [0, 1, 1], "b": [1, 1, 0]})))
    >>> stats.counts.block(0, 1).tolist(), stats.family_counts([1]).tolist(), stats.n_rows
    ([[0, 1], [1, 1]], [1, 2], 3)
    """

    columns: tuple
    states: tuple
    dtypes: tuple
    pairs: PairCounts | None = None
    table: Table | None = None

    @classmethod
    def of_table(cls, table: Table) -> CountedTable:
        """The statistics of an encoded table (and its row weights), counted when asked."""
        return cls(table.columns, table.states, table.dtypes, table=table)

    @cached_property
    def counts(self) -> PairCounts:
        """Every marginal and pairwise count table (one chunked product)."""
        if self.pairs is not None:
            return self.pairs
        assert self.table is not None  # the statistics hold pair counts, a table, or both
        return pair_counts(self.table)

    @property
    def n_rows(self) -> int | float:
        """Rows counted (their total weight with ``sample_weight``)."""
        if self.table is not None:
            return total_weight(self.table.weights, self.table.n_rows)
        return self.counts.n_rows

    @property
    def cardinalities(self) -> np.ndarray:
        return np.array([len(s) for s in self.states], dtype=np.int64)

    def family_counts(self, family: Sequence[int]) -> np.ndarray:
        """Counts ``N[u_1, ..., u_m, a]`` of the family (column indices, the node last),
        over the rows where the whole family is observed.

        Families of one or two variables are read off the pair counts when those
        exist (counted, or already computed for a table); larger families, and
        tables whose pair counts nobody asked for, are counted from the rows."""
        pairs_known = self.table is None or "counts" in self.__dict__  # cached_property
        if self.table is not None and not (pairs_known and len(family) <= 2):
            return family_counts_from_codes(
                self.table.codes, self.cardinalities, family, self.table.weights
            )
        if len(family) == 1:
            return self.counts.marginal(family[0])
        if len(family) == 2:
            return self.counts.block(family[0], family[1]).copy()
        raise StructureError(
            "pairwise counts (a file read in chunks, Dask, a sparse matrix) cannot fit a CPT "
            "with more than one parent; load the data as a DataFrame"
        )

    def family_counts_many(self, families: Sequence[Sequence[int]]) -> list[np.ndarray]:
        """:meth:`family_counts` of many families, in order (the same values): when the pair
        counts are known and every family has one or two variables (a tree's), the blocks of
        one shape are gathered from the ``K x K`` matrix at once, not one slice, one offsets
        array and one copy per node.

        >>> import pandas as pd
        >>> from treelearn.encoding._table import encode
        >>> stats = CountedTable.of_table(encode(pd.DataFrame({"a": [0, 1, 1], "b": [1, 1, 0]})))
        >>> [c.tolist() for c in stats.family_counts_many([[0, 1], [1]])]
        [[[0, 1], [1, 1]], [1, 2]]
        """
        if not self._families_from_pairs(families):
            return [self.family_counts(f) for f in families]
        out: list[Any] = [None] * len(families)
        for where, blocks in self._family_blocks(families):
            for t, block in zip(where, blocks):
                out[t] = block
        return out

    def family_count_stacks(self, parent: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]] | None:
        """Every column's family counts (its parent ``parent[v]``, ``-1`` for none) stacked
        by shape, as floats: ``(group, stacks)``, ``stacks[group[v]]`` holding the counts of
        the columns of that shape in column order, the values :meth:`family_counts_many`
        gives (converted to float as ``smoothed_cpts`` converts them) with no array per
        column; ``None`` where these statistics do not read families off the pair counts.

        >>> import pandas as pd
        >>> from treelearn.encoding._table import encode
        >>> stats = CountedTable.of_table(encode(pd.DataFrame({"a": [0, 1, 1], "b": [1, 1, 0]})))
        >>> _ = stats.counts   # the pair counts, computed
        >>> group, stacks = stats.family_count_stacks(np.array([-1, 0]))
        >>> group.tolist(), [s.tolist() for s in stacks]
        ([0, 1], [[[1.0, 2.0]], [[[0.0, 1.0], [1.0, 1.0]]]])
        """
        if not self.tree_families_from_pairs():
            return None
        up = np.asarray(parent, dtype=np.int64).tolist()
        families = [[p, v] if p >= 0 else [v] for v, p in enumerate(up)]
        group = np.empty(len(families), dtype=np.int64)
        stacks: list[np.ndarray] = []
        for where, blocks in self._family_blocks(families):
            group[where] = len(stacks)
            stacks.append(blocks.astype(float))
        return group, stacks

    def tree_families_from_pairs(self) -> bool:
        """Whether :meth:`family_counts` of a family of one or two columns (a tree's) is a
        block of the pair counts (known: counted, or computed for a table)."""
        pairs_known = self.table is None or "counts" in self.__dict__  # cached_property
        # (subclasses that count their families otherwise, e.g. wide columns, say no)
        return type(self).family_counts is CountedTable.family_counts and pairs_known

    def _families_from_pairs(self, families: Sequence[Sequence[int]]) -> bool:
        """Whether :meth:`family_counts` of each family is a block of the pair counts."""
        return self.tree_families_from_pairs() and all(len(f) in (1, 2) for f in families)

    def _family_blocks(self, families: Sequence[Sequence[int]]) -> Iterator[tuple[list, Any]]:
        """``(positions, blocks)`` per family shape, in order of first appearance: the
        families at those positions (in order) and their counts gathered from the ``K x K``
        matrix at once, ``blocks[t]`` the family at ``positions[t]``."""
        counts = self.counts
        joint, offsets, k = counts.joint, counts.offsets, counts.cardinalities
        groups: dict[tuple, list[int]] = {}
        for t, f in enumerate(families):
            groups.setdefault(tuple(int(k[v]) for v in f), []).append(t)
        for shape, where in groups.items():
            members = np.array([families[t] for t in where], dtype=np.int64)
            if len(shape) == 1:  # the marginal: the diagonal of the variable's own block
                cells = offsets[members[:, 0], None] + np.arange(shape[0])
                blocks = joint[cells, cells]
            else:
                rows = offsets[members[:, 0], None, None] + np.arange(shape[0])[:, None]
                cols = offsets[members[:, 1], None, None] + np.arange(shape[1])
                blocks = joint[rows, cols]
            yield where, blocks

    #: whether a model learned from these statistics keeps their :attr:`counts` (for
    #: ``partial_fit``); statistics that avoid the ``K x K`` matrix say no
    keeps_pair_counts = True

    def mutual_information(self, mi_alpha: float | None = None) -> np.ndarray:
        """The MI (nats) of every pair of columns, from the pair counts (``mi_alpha``: a
        pseudocount added to each cell of every pairwise joint first)."""
        return mutual_information_matrix(self.counts, mi_alpha)

    def pair_totals(self) -> np.ndarray:
        """``d x d`` rows (total weight) where both columns of each pair are observed."""
        return self.counts.pair_totals()

    def observed_rows(self) -> np.ndarray:
        """Rows (total weight) where each column is observed (the diagonal blocks' sums)."""
        counts = self.counts
        return np.add.reduceat(np.diag(counts.joint), counts.offsets[:-1]).astype(float)

    def pairwise_bias(self) -> np.ndarray:
        """``d x d`` Miller-Madow bias of each pair's plug-in MI (:func:`miller_madow_bias`)."""
        return miller_madow_bias(self.counts)

    def direct_tree(self, settings: Any) -> nx.DiGraph | None:
        """``None``: these statistics give the MI matrix (:meth:`mutual_information`), from
        which the learner finds the tree. Statistics that find their Chow-Liu tree without a
        ``d x d`` matrix return it here, directed away from ``settings.root``
        (:class:`~treelearn.SparseBinaryCounts`)."""
        return None


@dataclass(frozen=True)
class ClassCounts:
    """Sufficient statistics of a classification table: the features, then the class.

    ``columns``, ``states`` and ``dtypes`` list the features and, last, the
    class, whose states are the labels ``classes`` (sorted, as ``np.unique``
    gives them, in their own dtype). In memory the encoded ``table`` is kept and
    any family is counted from its rows; from Dask, ``per_class_pairs`` holds
    one :class:`PairCounts` per class, enough for every family of naive Bayes,
    TAN and ETAN (the class, at most one feature parent, the node; or a family
    without the class, summed over the classes).
    """

    columns: tuple
    states: tuple
    dtypes: tuple
    classes: np.ndarray
    table: Table | None = None
    per_class_pairs: tuple[PairCounts, ...] | None = None

    @property
    def class_index(self) -> int:
        return len(self.columns) - 1

    @property
    def _class_pairs(self) -> tuple[PairCounts, ...]:
        """``per_class_pairs``, which statistics without a ``table`` hold."""
        assert self.per_class_pairs is not None  # the statistics hold a table or these
        return self.per_class_pairs

    @property
    def cardinalities(self) -> np.ndarray:
        return np.array([len(s) for s in self.states], dtype=np.int64)

    @property
    def n_rows(self) -> int | float:
        """Rows with a class label (their total weight with ``sample_weight``)."""
        total = self.class_count.sum()
        return int(total) if self.class_count.dtype.kind in "iu" else float(total)

    @cached_property
    def class_count(self) -> np.ndarray:
        """Rows (or their total weight) of each class."""
        if self.table is not None:
            return self.family_counts([self.class_index])
        counts = [pc.n_rows for pc in self._class_pairs]
        exact = all(isinstance(c, (int, np.integer)) for c in counts)
        return np.array(counts, dtype=np.int64 if exact else float)

    def family_counts(self, family: Sequence[int]) -> np.ndarray:
        """Counts of a family of column indices (the node last), e.g. ``[class, parent, node]``."""
        family = list(family)
        if self.table is not None:
            return family_counts_from_codes(
                self.table.codes, self.cardinalities, family, self.table.weights
            )
        c = self.class_index
        if family == [c]:
            return self.class_count
        if family[0] == c and len(family) == 2:
            return np.stack([pc.marginal(family[1]) for pc in self._class_pairs])
        if family[0] == c and len(family) == 3:
            return np.stack([pc.block(family[1], family[2]) for pc in self._class_pairs])
        if c not in family and len(family) in (1, 2):  # without the class: summed over it
            parts = self._class_pairs
            if len(family) == 1:
                return sum_counts([pc.marginal(family[0]) for pc in parts])
            return sum_counts([pc.block(family[0], family[1]) for pc in parts])
        raise StructureError(f"no class-conditional pair counts for the family {family}")

    @cached_property
    def per_class(self) -> tuple[PairCounts, ...]:
        """One :class:`PairCounts` per class over every column (TAN and the multinet use them)."""
        if self.per_class_pairs is not None:
            return tuple(self.per_class_pairs)
        assert self.table is not None  # the statistics hold a table or per_class_pairs
        return tuple(class_pair_counts(self.table, class_index=self.class_index))

    @cached_property
    def counts(self) -> PairCounts:
        """The pair counts of the whole table (features and class), all classes together."""
        if self.table is not None:
            return pair_counts(self.table)
        parts = self.per_class
        return PairCounts(
            sum_counts([pc.joint for pc in parts]),
            parts[0].cardinalities,
            sum(pc.n_rows for pc in parts),
        )

    def within_class(self, c: int) -> CountedTable:
        """The statistics of the features over the rows of class number ``c``."""
        d = self.class_index
        pc = self.per_class[c]
        cards = pc.cardinalities[:d]
        width = int(cards.sum())  # the class's own one-hot block comes last: drop it
        pairs = PairCounts(pc.joint[:width, :width], cards, pc.n_rows)
        return CountedTable(self.columns[:d], self.states[:d], self.dtypes[:d], pairs=pairs)

    def class_labels(self) -> list:
        """The classes as plain Python labels (the class node's states)."""
        return [python_scalar(c) for c in self.classes]
