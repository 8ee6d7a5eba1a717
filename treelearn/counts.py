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

from dataclasses import dataclass

import numpy as np

from .data import Table

__all__ = ["PairCounts", "chunk_rows_for", "one_hot", "pair_counts"]

#: bytes of one-hot matrix per chunk; bounds the working memory of counting
CHUNK_BYTES = 16 * 2**20


def chunk_rows_for(width: int, budget: int = CHUNK_BYTES) -> int:
    """Rows per chunk so that a float32 one-hot chunk of ``width`` columns fits ``budget``."""
    return int(min(2**24 - 1, max(1024, budget // (4 * max(width, 1)))))


def offsets_of(cardinalities: np.ndarray) -> np.ndarray:
    """Start column of each variable's block (length d + 1, last entry = K)."""
    return np.concatenate([[0], np.cumsum(cardinalities)]).astype(np.int64)


def one_hot(codes: np.ndarray, offsets: np.ndarray, dtype=np.float32) -> np.ndarray:
    """One-hot matrix of a chunk of codes; a missing code (-1) gives an all-zero block."""
    n, d = codes.shape
    out = np.empty((n, int(offsets[-1])), dtype=dtype)
    for j in range(d):  # one vectorised comparison per variable
        np.equal(codes[:, j, None], np.arange(offsets[j + 1] - offsets[j]), out=out[:, offsets[j] : offsets[j + 1]])
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

    def __add__(self, other: PairCounts) -> PairCounts:
        if not np.array_equal(self.cardinalities, other.cardinalities):
            raise ValueError("cannot add counts over different variables or states")
        return PairCounts(self.joint + other.joint, self.cardinalities, self.n_rows + other.n_rows)


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


def _sparse_product(codes: np.ndarray, layout: _ReducedLayout) -> np.ndarray:
    """``Z.T @ Z`` (int64, ``width x width``) for a chunk, through a scipy.sparse product."""
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
    Z = sp.csr_matrix((np.ones(len(cols), dtype=np.int64), cols, indptr), shape=(codes.shape[0], inner))
    out = np.zeros((layout.width, layout.width), dtype=np.int64)
    out[:inner, :inner] = (Z.T @ Z).toarray()
    sums = np.bincount(cols, minlength=inner)
    out[:inner, inner] = sums
    out[inner, :inner] = sums
    out[inner, inner] = codes.shape[0]
    return out


def _expand_rows(Y: np.ndarray, layout: _ReducedLayout) -> np.ndarray:
    """Rows of a product over ``Z``'s columns -> rows over the one-hot columns."""
    offsets = layout.offsets
    F = np.zeros((int(offsets[-1]), Y.shape[1]), dtype=Y.dtype)
    F[layout.full_index] = Y[: len(layout.full_index)]
    first = offsets[:-1]
    # state 0 = ones - missing - (states 1..k-1); F[first] is still 0, so reduceat sums the others
    others = np.add.reduceat(F, first, axis=0)
    F[first] = np.subtract(Y[layout.ones], others, out=others)
    mv = layout.missing_vars
    F[first[mv]] -= Y[layout.missing_start : layout.missing_start + len(mv)]
    return F


def _expand(M: np.ndarray, layout: _ReducedLayout) -> np.ndarray:
    # expanding the rows, then the rows of the transpose, gives the transpose of
    # X.T @ X, which is symmetric: no final transposed copy is needed
    return _expand_rows(_expand_rows(M, layout).T, layout)


#: ``count_codes`` multiplies sparse matrices instead of dense ones when ``Z`` is
#: wider than ``SPARSE_MIN_WIDTH`` columns and at most this fraction of it is non-zero
SPARSE_MAX_DENSITY = 0.02
SPARSE_MIN_WIDTH = 256


def count_codes(codes: np.ndarray, cardinalities: np.ndarray, chunk_rows: int | None = None) -> np.ndarray:
    """``K x K`` int64 matrix ``X.T @ X`` of the one-hot encoding of ``codes``, chunked over rows.

    The product is taken over the reduced indicators ``Z`` of :class:`_ReducedLayout`
    and expanded exactly afterwards. Each chunk's product is either a float32
    BLAS product, exact because a chunk has fewer than 2^24 rows, or, when ``Z``
    is sparse (mostly state 0), an integer scipy.sparse product; either way it
    is added to an int64 total.
    """
    cardinalities = np.asarray(cardinalities, dtype=np.int64)
    n, d = codes.shape
    has_missing = codes.min(axis=0) < 0 if n else np.zeros(d, dtype=bool)  # no n x d temporary
    layout = _reduced_layout(cardinalities, has_missing)
    width = layout.width
    total = np.zeros((width, width), dtype=np.int64)
    step = min(chunk_rows or chunk_rows_for(width), max(n, 1))
    sparse = width > SPARSE_MIN_WIDTH and n > 0 and (
        np.count_nonzero(codes) <= SPARSE_MAX_DENSITY * n * width
    )
    if sparse:
        try:
            import scipy.sparse  # noqa: F401  (scikit-learn, a dependency, brings scipy)
        except ImportError:  # pragma: no cover
            sparse = False
    buffer = None if sparse else np.empty((step, width), dtype=np.float32)
    for start in range(0, n, step):
        chunk = codes[start : start + step]
        if sparse:
            total += _sparse_product(chunk, layout)
        else:
            X = _dense_indicators(chunk, layout, buffer)
            total += np.rint(X.T @ X).astype(np.int64)
    return _expand(total, layout)


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


def is_scipy_sparse(data) -> bool:
    """Whether ``data`` is a scipy.sparse matrix or array (without importing scipy)."""
    module = type(data).__module__ or ""
    return module.startswith("scipy.sparse") and hasattr(data, "tocsr")


def sparse_binary_counts(matrix, chunk_rows: int = 2**20) -> tuple[PairCounts, tuple]:
    """Pair counts and states of a ``scipy.sparse`` matrix of 0/1 values (rows x variables).

    Never densified: the counts come from ``Z.T @ Z`` on the sparse matrix itself
    (exact integer arithmetic), where ``Z`` holds the columns that take both
    values; a column that is all 0 (or all 1) is a one-state variable, exactly as
    in a DataFrame. The work grows with the number of non-zeros, not ``n x d``.

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

    A = sp.csr_matrix(matrix)  # shares the caller's arrays; every change below is on a copy
    n, d = A.shape
    if n == 0 or d == 0:
        from .errors import EmptyDataError

        raise EmptyDataError(f"the sparse matrix has shape {A.shape}; there is nothing to learn")
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
    values = A.data
    if not np.isin(values, (0, 1)).all():
        bad = values[~np.isin(values, (0, 1))][:3]
        raise ValueError(
            f"a scipy.sparse input must hold only 0/1 (or bool) values; found {bad.tolist()}; "
            f"binarize it first (e.g. matrix > 0) or pass a DataFrame of discrete columns"
        )
    if (values == 0).any():
        A = A.copy()
        A.eliminate_zeros()
    ones = np.bincount(A.indices, minlength=d)  # rows where each column is 1
    kind = A.dtype.kind
    zero, one = (False, True) if kind == "b" else (0.0, 1.0) if kind == "f" else (0, 1)
    if kind == "b":
        states = tuple((False, True) for _ in range(d))
        two = np.ones(d, dtype=bool)
    else:
        two = (ones > 0) & (ones < n)
        states = tuple((zero, one) if t else ((one,) if c == n else (zero,)) for t, c in zip(two, ones))
    cardinalities = np.array([len(s) for s in states], dtype=np.int64)
    # Z: the 'state 1' indicator of every two-state column; ones column last
    layout = _reduced_layout(cardinalities, np.zeros(d, dtype=bool))
    members = np.flatnonzero(cardinalities > 1)
    Z = A[:, members].astype(np.int64)
    inner = layout.width - 1
    total = np.zeros((layout.width, layout.width), dtype=np.int64)
    for start in range(0, n, chunk_rows):
        block = Z[start : start + chunk_rows]
        total[:inner, :inner] += (block.T @ block).toarray()
    sums = ones[members]
    total[:inner, inner] = sums
    total[inner, :inner] = sums
    total[inner, inner] = n
    joint = _expand(total, layout)
    return PairCounts(joint=joint, cardinalities=cardinalities, n_rows=n), states
