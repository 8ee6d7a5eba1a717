"""Categorical statistics from any input kind: counts, counts by class, encoded rows.

Every categorical learner starts from sufficient statistics, and this module is
where they come from, whatever the input (the kinds are
:data:`treelearn.sources._kinds.KINDS`; :func:`~treelearn.sources._kinds.by_kind`
picks the reader):

* :func:`count` turns a table — a pandas DataFrame, a CSV or Parquet path, a
  Dask DataFrame, a ``scipy.sparse`` 0/1 matrix (its variables named by
  ``names=``), or an already encoded :class:`~treelearn.encoding._table.Table` —
  into a :class:`~treelearn.stats._counts.CountedTable`;
* :func:`count_by_class` turns features and class labels into a
  :class:`~treelearn.stats._counts.ClassCounts`;
* :func:`in_memory_table` gives the encoded rows themselves, for learners that
  need the rows (EM): a file is read whole, a Dask DataFrame computed.

Row weights (``sample_weight``) are taken here, for every kind of input. The
back-ends count and never fit:

* in memory: :func:`treelearn.encoding._table.encode` (codes; counted when a learner asks);
* files: :func:`treelearn.sources._files.count_file` (row chunks, never loaded whole);
* Dask: :mod:`treelearn.sources._dask` (partitions counted on the workers);
* ``scipy.sparse``: :func:`treelearn.stats._counts.sparse_binary_counts` (never densified).

A new kind of input is one new reader in each function (and its back-end
returning the same statistics); no learner changes.

Examples
--------
>>> import pandas as pd
>>> stats = count(pd.DataFrame({"a": [0, 1, 1], "b": ["x", "y", "y"]}), sample_weight=[1, 2, 0])
>>> stats.states, stats.n_rows
(((0, 1), ('x', 'y')), 3)
>>> stats.counts.block(0, 1).tolist()
[[1, 0], [0, 2]]
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import (
    ClassColumnError,
    ClassLabelError,
    ColumnNotFoundError,
    EmptyDataError,
    InputTypeError,
    MissingValuesError,
    TreelearnError,
)
from .._base.limits import check_memory
from ..encoding._table import (
    DEFAULT_MAX_STATES,
    MissingPolicy,
    Table,
    check_column_names,
    check_frame,
    check_sample_weight,
    code_dtype,
    encode,
    python_scalar,
)
from ..stats._counts import (
    ClassCounts,
    CountedTable,
    binary_csr,
    sparse_binary_counts,
    sparse_names_and_weights,
)
from ..stats._wide import counted_table
from ..structure._sparse_chow_liu import SPARSE_CHOW_LIU_MIN_COLUMNS, sparse_binary_statistics
from ._dask import (
    count_by_class_dask,
    count_dask,
    distinct_labels,
    is_dask_dataframe,
    is_dask_series,
)
from ._files import count_file, read_header, read_whole
from ._kinds import DENSE_NEEDED, as_frame, by_kind, is_path, kind_of

__all__ = [
    "check_not_continuous",
    "class_dtype",
    "class_labels",
    "class_name",
    "column_names",
    "count",
    "count_by_class",
    "declared_class_codes",
    "in_memory_table",
    "label_values",
    "labelled_file",
    "positive_rows",
    "target_name",
]

#: what the categorical readers say of an array: they need column names and types
ARRAY_REFUSAL = "wrap arrays with pd.DataFrame(array, columns=[...])"


def column_names(data: Any) -> tuple | None:
    """The column names of a DataFrame, a Dask DataFrame or a file (its header only);
    ``None`` for data without named columns."""
    if is_path(data):
        return tuple(read_header(data))
    if isinstance(data, pd.DataFrame) or is_dask_dataframe(data):
        return tuple(data.columns)
    return None


# ---------------------------------------------------------------------- tables
def count(
    data: Any,
    *,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
    states: Mapping[Hashable, Sequence] | None = None,
    chunksize: int = 200_000,
    names: Sequence[Hashable] | None = None,
    sample_weight: Any = None,
    variables: Sequence[Hashable] | None = None,
    in_memory: bool = False,
) -> CountedTable:
    """The sufficient statistics of a table, whatever its kind.

    Parameters
    ----------
    data : DataFrame, CSV/Parquet path (read ``chunksize`` rows at a time unless
        ``in_memory``), Dask DataFrame (counted on its workers), ``scipy.sparse``
        0/1 matrix (its variables named by ``names``, default ``0 .. d-1``), or an
        encoded :class:`Table`. A numpy array is refused: it has no column names.
    missing, max_states, states : as in :func:`treelearn.encoding._table.encode`.
    sample_weight : one non-negative weight per row: an array-like for a
        DataFrame or sparse matrix, a column name for a file or a Dask DataFrame
        (or a Dask Series partitioned like it). Integer weights count a row that
        many times; zero weight leaves it out.
    variables : count only these columns, in this order: a DataFrame or a Dask
        DataFrame is narrowed to them; a file read in chunks must have exactly
        these columns (the weight column aside).
    in_memory : read a file whole (families of any size can then be counted).
    """
    if names is not None and kind_of(data).name != "sparse":
        raise InputTypeError(
            "names= names the variables of a scipy.sparse matrix; a DataFrame brings its own "
            "column names (select columns with df[[...]])"
        )
    if is_path(data) and in_memory:
        data, sample_weight = _read_whole(data, sample_weight)
    options = {
        "missing": missing,
        "max_states": max_states,
        "states": states,
        "sample_weight": sample_weight,
        "variables": variables,
    }
    return by_kind(
        data,
        {
            "table": partial(_count_table, sample_weight=sample_weight, variables=variables),
            "sparse": partial(
                _count_sparse_matrix,
                names=names,
                states=states,
                sample_weight=sample_weight,
                variables=variables,
            ),
            "dask": partial(_count_dask_frame, **options),
            "path": partial(_count_path, chunksize=chunksize, **options),
            "frame": partial(_count_frame, **options),
        },
        learner="a categorical learner",
        refusals={"array": ARRAY_REFUSAL},
    )


def _read_whole(path: Any, sample_weight: Any) -> tuple[pd.DataFrame, Any]:
    """A file read whole, its weight column (named by ``sample_weight``) taken out."""
    data = read_whole(path)
    if isinstance(sample_weight, (str, int)) and sample_weight in data.columns:
        sample_weight = data.pop(sample_weight)  # a copy read from the file: ours to change
    return data, sample_weight


def _count_table(table: Table, *, sample_weight: Any, variables: Any) -> CountedTable:
    if sample_weight is not None or variables is not None:
        raise TreelearnError("an encoded Table carries its own weights and columns")
    return counted_table(table)  # a very wide column: no K x K matrix (stats/_wide.py)


def _count_sparse_matrix(
    matrix: Any, *, names: Any, states: Any, sample_weight: Any, variables: Any
) -> CountedTable:
    if matrix.shape[1] > SPARSE_CHOW_LIU_MIN_COLUMNS and not states and variables is None:
        # wide: co-occurrence counts only, never the K x K matrix (sparse_chow_liu). They
        # stand in for a CountedTable (columns, states, direct_tree) without deriving from
        # it; count() and the Chow-Liu learners are typed with CountedTable until stats/
        # names the statistics both answer (a Protocol)
        return sparse_binary_statistics(  # type: ignore[return-value]
            matrix, names, sample_weight=sample_weight
        )
    return _count_sparse(matrix, names, states=states, sample_weight=sample_weight)


def _count_dask_frame(
    data: Any,
    *,
    missing: MissingPolicy,
    max_states: int,
    states: Any,
    sample_weight: Any,
    variables: Any,
) -> CountedTable:
    if variables is not None:
        _require_columns(list(data.columns), variables, "the dask DataFrame")
        keep = list(variables)
        if isinstance(sample_weight, (str, int)) and sample_weight in data.columns:
            keep.append(sample_weight)
        data = data[keep]
    return count_dask(
        data, missing=missing, max_states=max_states, states=states, sample_weight=sample_weight
    )


def _count_path(
    data: Any,
    *,
    missing: MissingPolicy,
    max_states: int,
    states: Any,
    sample_weight: Any,
    variables: Any,
    chunksize: int,
) -> CountedTable:
    if variables is not None:
        header = [c for c in read_header(data) if c != sample_weight]
        if header != list(variables):
            raise ColumnNotFoundError(
                f"the columns {header} of {os.fspath(data)!r} differ from the variables "
                f"{list(variables)}; a file or dask DataFrame must have exactly these "
                f"columns, in this order",
                column=next(iter(set(variables) - set(header)), None),
            )
    if sample_weight is not None and not isinstance(sample_weight, (str, int)):
        raise TreelearnError(
            "for a file, sample_weight is the name of the column that holds the weights "
            f"(e.g. sample_weight='w'), not {type(sample_weight).__name__}"
        )
    return count_file(
        data,
        chunksize=chunksize,
        states=states,
        missing=missing,
        max_states=max_states,
        sample_weight=sample_weight,
    )


def _count_frame(
    data: pd.DataFrame,
    *,
    missing: MissingPolicy,
    max_states: int,
    states: Any,
    sample_weight: Any,
    variables: Any,
) -> CountedTable:
    if variables is not None:
        check_column_names(data.columns)
        _require_columns(list(data.columns), variables, "the data")
        data = data[list(variables)]
    table = encode(
        data, missing=missing, max_states=max_states, states=states, sample_weight=sample_weight
    )
    return counted_table(table)  # a very wide column: no K x K matrix (stats/_wide.py)


def _require_columns(present: list, wanted: Sequence[Hashable], where: str) -> None:
    absent = [v for v in wanted if v not in present]
    if absent:
        raise ColumnNotFoundError(
            f"{where} lacks the variable(s) {absent}; its columns are {present[:20]}",
            column=absent[0],
        )


def _count_sparse(
    matrix: Any,
    names: Sequence[Hashable] | None = None,
    *,
    states: Mapping[Hashable, Sequence] | None = None,
    sample_weight: Any = None,
) -> CountedTable:
    """The statistics of a ``scipy.sparse`` 0/1 matrix (rows x variables)."""
    if states:
        raise TreelearnError(
            "states= is not supported for scipy.sparse input: its columns' states are the "
            "0/1 values present; pass a DataFrame to fix states"
        )
    names, weights = sparse_names_and_weights(matrix, names, sample_weight)
    pairs, col_states = sparse_binary_counts(matrix, weights=weights)
    return CountedTable(names, col_states, (matrix.dtype,) * len(names), pairs=pairs)


# ---------------------------------------------------------------------- rows in memory
def in_memory_table(
    data: Any,
    *,
    learner: str,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
    states: Mapping[Hashable, Sequence] | None = None,
    names: Sequence[Hashable] | None = None,
    sample_weight: Any = None,
) -> Table:
    """The encoded rows of a table of any kind, for a ``learner`` that needs the rows
    (EM revisits every row at every iteration), so they are held in memory:

    * a DataFrame is encoded (:func:`~treelearn.encoding._table.encode`);
    * a CSV/Parquet path is **read whole** (``sample_weight``: the name of its weight
      column), with the states the chunked reader gives;
    * a Dask DataFrame is **computed** (``sample_weight``: a column name or a Dask
      Series partitioned like it), then encoded;
    * a ``scipy.sparse`` 0/1 matrix (variables named by ``names``) becomes the table of
      its dense 0/1 values (memory checked first), as ``pd.DataFrame(matrix.toarray())``;
    * an encoded :class:`Table` is returned as it is;
    * a 2-D array is the table of its columns ``x0, x1, ...`` (as a classifier takes it;
      scoring an array matches its columns by position).

    >>> import pandas as pd
    >>> in_memory_table(pd.DataFrame({"a": ["x", "y"]}), learner="EM").codes.tolist()
    [[0], [1]]
    """

    def encoded(frame: pd.DataFrame, weights: Any = sample_weight) -> Table:
        check_frame(frame)
        return encode(
            frame, missing=missing, max_states=max_states, states=states, sample_weight=weights
        )

    def path(source: Any) -> Table:
        return encoded(*_read_whole(source, sample_weight))

    def dask(ddf: Any) -> Table:
        weights = sample_weight
        if is_dask_series(weights):
            weights = weights.compute()
        frame = ddf.compute()
        if isinstance(weights, (str, int)) and weights in frame.columns:
            weights = frame.pop(weights)
        return encoded(frame, weights)

    def sparse(matrix: Any) -> Table:
        table = encoded(*_sparse_frame(matrix, names, sample_weight))
        return replace(table, dtypes=(matrix.dtype,) * len(table.columns))  # as count gives

    def table(t: Table) -> Table:
        if sample_weight is not None:
            raise TreelearnError("an encoded Table carries its own weights")
        return t

    if names is not None and kind_of(data).name != "sparse":
        raise InputTypeError(
            "names= names the variables of a scipy.sparse matrix; a "
            "DataFrame brings its own column names"
        )

    def array(values: Any) -> Table:
        return encoded(as_frame(values, learner=learner))

    return by_kind(
        data,
        {
            "table": table,
            "sparse": sparse,
            "dask": dask,
            "path": path,
            "frame": encoded,
            "array": array,
        },
        learner=learner,
    )


def _sparse_frame(matrix: Any, names: Any, sample_weight: Any) -> tuple[pd.DataFrame, Any]:
    """A sparse 0/1 matrix as a DataFrame of its values (rows of weight zero left out) and
    the weights of the rows kept."""
    names, weights = sparse_names_and_weights(matrix, names, sample_weight)
    A, weights = binary_csr(matrix, weights)
    kind = A.dtype.kind
    dense = A.astype(np.int8) if kind in "iu" else A  # 0/1: a byte per cell is enough
    check_memory(
        A.shape[0] * A.shape[1] * dense.dtype.itemsize,
        f"the {A.shape[0]} x {A.shape[1]} rows of a sparse matrix",
        "give fewer rows or columns",
    )
    return pd.DataFrame(dense.toarray(), columns=list(names), copy=False), weights


# ---------------------------------------------------------------------- classification
def class_labels(
    y: Any, n_rows: int, *, check_continuous: bool = True
) -> tuple[np.ndarray, np.ndarray, Hashable | None]:
    """``(classes, codes, name)``: sorted distinct labels, each row's class index, y's name.

    Any labels are classes (text, integers, even floats such as 0.5), except a
    target that looks like a regression target: see :func:`check_not_continuous`
    (skipped with ``check_continuous=False``, for distinct labels counted elsewhere).
    A 2-D ``y`` of one column is taken as 1-D with scikit-learn's
    ``DataConversionWarning``, as its classifiers do.

    >>> classes, codes, name = class_labels(pd.Series(["b", "a", "b"], name="y"), 3)
    >>> classes.tolist(), codes.tolist(), name
    (['a', 'b'], [1, 0, 1], 'y')
    """
    values, name = label_values(y, n_rows)
    try:
        classes, codes, counts = _unique_labels(values)
    except TypeError:
        raise ClassLabelError(
            "y mixes label types that cannot be sorted (e.g. numbers and text); "
            "convert the labels to one type, e.g. y.astype(str)"
        ) from None
    if check_continuous:
        check_not_continuous(classes, counts)
    if len(classes) < 2:
        # "1 class": scikit-learn's estimator checks look for it
        raise ClassLabelError(
            f"y has a single class {python_scalar(classes[0])!r} (1 class among the rows of "
            f"non-zero weight); a classifier needs at least two classes",
            values=[python_scalar(classes[0])],
        )
    return classes, codes.ravel(), name


def _unique_labels(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True, return_counts=True)``; text labels by one
    hash pass (``pd.factorize``) and a sort of the distinct labels only: the same sorted
    classes, codes and counts (``str`` compares alike in both), at a fraction of the
    time of sorting every row's string."""
    if values.dtype == object and pd.api.types.infer_dtype(values, skipna=False) == "string":
        raw, uniques = pd.factorize(values)
        order = np.argsort(uniques, kind="stable")
        rank = np.empty(len(order), dtype=np.intp)
        rank[order] = np.arange(len(order))
        codes = rank[raw]
        return uniques[order], codes, np.bincount(codes, minlength=len(order))
    return np.unique(values, return_inverse=True, return_counts=True)


def declared_class_codes(
    y: Any, n_rows: int, declared: Any
) -> tuple[np.ndarray, np.ndarray, Hashable | None]:
    """``(classes, codes, name)`` as :func:`class_labels` gives them, the classes being the
    ``declared`` labels (sorted, distinct, in the dtype ``y``'s labels have) rather than
    those ``y`` holds: ``y`` may hold one class, or none of some; a label outside them is a
    :class:`~treelearn.ClassLabelError` saying to declare it.

    >>> classes, codes, _ = declared_class_codes(["b", "b"], 2, ["b", "a", "c"])
    >>> classes.tolist(), codes.tolist()
    (['a', 'b', 'c'], [1, 1])
    """
    values, name = label_values(y, n_rows)
    given = np.asarray(declared) if isinstance(declared, np.ndarray) else None
    if given is None:
        given = np.empty(len(declared), dtype=object) if values.dtype == object else None
        if given is None:
            given = np.asarray(list(declared))
        else:
            given[:] = list(declared)
    try:
        classes = np.unique(given)
    except TypeError:
        raise ClassLabelError(
            "classes= mixes label types that cannot be sorted; give labels of one type"
        ) from None
    if classes.ndim != 1 or len(classes) < 2:
        raise ClassLabelError(
            f"classes= must declare two or more distinct labels, got "
            f"{[python_scalar(c) for c in classes.ravel()][:10]}"
        )
    codes = pd.Index(classes, tupleize_cols=False).get_indexer(values)
    if (codes < 0).any():
        unknown = sorted({str(python_scalar(v)) for v in values[codes < 0]})
        raise ClassLabelError(
            f"y has label(s) {unknown[:5]} outside the declared classes "
            f"{[python_scalar(c) for c in classes][:10]}; declare every class the rows can "
            f"have on the first call (partial_fit(X, y, classes=[...]))",
            values=unknown[:5],
        )
    return classes, codes.astype(np.intp), name


def label_values(y: Any, n_rows: int) -> tuple[np.ndarray, Hashable | None]:
    """``y`` as a 1-D array of labels (none missing, one per row) and its name."""
    name = None
    _check_y_given(y)
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ClassLabelError(f"y must be one column of class labels, got {y.shape[1]} columns")
        name, y = y.columns[0], y.iloc[:, 0]
    elif isinstance(y, pd.Series):
        name = y.name
    values = np.asarray(y, dtype=object if isinstance(y, pd.Series) and y.dtype == object else None)
    if values.ndim == 2 and values.shape[1] == 1:
        import warnings

        from sklearn.exceptions import DataConversionWarning  # here: sklearn only for classifiers

        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change the "
            "shape of y to (n_samples,), for example using ravel().",
            DataConversionWarning,
            stacklevel=3,
        )
        values = values.ravel()
    if values.dtype.kind == "c":
        raise ClassLabelError(
            "y holds complex numbers: Complex data not supported as class labels; give one "
            "label (text, integer) per row"
        )
    if values.ndim != 1:
        raise ClassLabelError(f"y must be 1-D (one label per row), got shape {values.shape}")
    if len(values) != n_rows:
        raise ClassLabelError(
            f"X has {n_rows} rows but y has {len(values)} labels; give one label per row"
        )
    missing = np.flatnonzero(pd.isna(values))
    if len(missing):
        raise MissingValuesError(
            f"y has {len(missing)} missing class label(s) (rows {missing[:5].tolist()}"
            f"{', ...' if len(missing) > 5 else ''}); drop those rows or fill them in"
        )
    return values, name


def _check_y_given(y: Any) -> None:
    if y is None:
        # scikit-learn's wording, which its estimator checks look for
        raise ClassLabelError(
            "a classifier requires y to be passed, but the target y is None; give the class "
            "labels, one per row of X"
        )


def check_not_continuous(classes: np.ndarray, counts: np.ndarray) -> None:
    """Refuse a regression target given to a classifier.

    The rule: labels that scikit-learn's ``type_of_target`` calls ``'continuous'``
    (floats with a fractional part) are classes only when **every** label occurs
    at least twice; a label seen once among such floats means a measured quantity,
    not a category, and raises :class:`~treelearn.ClassLabelError`. So a
    few float labels such as 0.25 and 1.5 stay classes, whole floats (1.0, 2.0)
    always do, and 50 distinct measurements do not.

    >>> check_not_continuous(np.array([0.25, 1.5]), np.array([3, 2]))
    >>> check_not_continuous(np.array([0.25, 1.5, 2.7]), np.array([3, 2, 1]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    treelearn.ClassLabelError: y looks continuous (a regression target): ...
    """
    if classes.dtype.kind != "f" or len(counts) == 0 or counts.min() >= 2:
        return
    from sklearn.utils.multiclass import type_of_target  # here: sklearn only for classifiers

    if type_of_target(classes) == "continuous":
        once = classes[counts < 2]
        raise ClassLabelError(
            f"y looks continuous (a regression target): {len(classes)} distinct float labels, "
            f"{len(once)} of them seen once (e.g. {float(once[0])!r}); a classifier needs "
            f"categories: discretize y (e.g. tl.discretize(y.to_frame(), bins=5)) or use a "
            f"regressor",
            values=[float(once[0])],
        )


def target_name(y: Any) -> Hashable | None:
    """``y``'s name: a (pandas or Dask) Series' name, a one-column DataFrame's column, or
    ``y`` itself where it names the class column of a file or a Dask DataFrame (a ``str``);
    else ``None``.

    >>> target_name(pd.Series([0, 1], name="y")), target_name("label"), target_name([0, 1])
    ('y', 'label', None)
    """
    if isinstance(y, pd.DataFrame):
        return y.columns[0] if y.shape[1] == 1 else None
    if isinstance(y, str):
        return y
    name = getattr(y, "name", None)
    return name if isinstance(name, Hashable) else None


def class_name(y_name: Hashable | None, columns: Sequence[Hashable]) -> Hashable:
    """The class node's name: y's name, else ``"class"`` (with ``_`` appended until unused)."""
    if y_name is not None:
        if y_name in columns:
            raise ClassColumnError(
                f"the class {y_name!r} is also a column of X; drop it from the features "
                f"(X.drop(columns=[{y_name!r}])), otherwise the classifier learns from the answer",
                column=y_name,
            )
        return y_name
    name = "class"
    while name in columns:
        name += "_"
    return name


def class_dtype(dtype: Any, classes: np.ndarray) -> Any:
    """The class node's dtype, given ``y``'s dtype and the sorted labels ``classes``.

    The class node's states are the sorted labels seen in ``y``, while a Categorical
    ``y`` declares its own categories (order, unused ones); decoding the node's
    codes with that declared dtype would give other labels, so a Categorical class
    becomes one whose categories are the node's states.
    """
    if isinstance(dtype, pd.CategoricalDtype):
        return pd.CategoricalDtype(
            pd.Index([python_scalar(c) for c in classes], tupleize_cols=False)
        )
    return dtype


def positive_rows(n_rows: int, y: Any, weights: np.ndarray | None) -> tuple[Any, Any, Any]:
    """``(keep, y, weights)``: the rows of positive weight (``keep``: their indices, or
    ``None`` when every row counts), their labels and weights. Rows of weight zero are
    absent: their labels are no classes, their values no states."""
    if weights is None or (weights > 0).all():
        return None, y, weights
    n_labels = len(y) if hasattr(y, "__len__") else None
    if n_labels is not None and n_labels != n_rows:
        raise ClassLabelError(
            f"X has {n_rows} rows but y has {n_labels} labels; give one label per row"
        )
    keep = np.flatnonzero(weights > 0)
    y = y.iloc[keep] if isinstance(y, (pd.Series, pd.DataFrame)) else np.asarray(y)[keep]
    return keep, y, weights[keep]


def labelled_file(path: Any, y: Any, sample_weight: Any) -> tuple[pd.DataFrame, pd.Series, Any]:
    """``(features, labels, weights)`` of a file read whole whose column ``y`` holds the class
    labels (and column ``sample_weight``, if named, the row weights)."""
    if not isinstance(y, (str, int)):
        raise ClassLabelError(
            f"with a file X, y is the name of its class column (e.g. y='label'), not "
            f"{type(y).__name__}"
        )
    frame, weights = _read_whole(path, sample_weight)
    if y not in frame.columns:
        raise ColumnNotFoundError(
            f"y={y!r} is not a column of {os.fspath(path)!r}; its columns "
            f"are {list(frame.columns)[:20]}",
            column=y,
        )
    labels = frame.pop(y)
    return frame, labels, weights


def count_by_class(
    X: Any,
    y: Any,
    *,
    sample_weight: Any = None,
    states: Mapping[Hashable, Sequence] | None = None,
    classes: Any = None,
) -> ClassCounts:
    """The statistics a classifier learns from: the features ``X`` and the class ``y``.

    ``X`` is a DataFrame or a 2-D array of categorical features (missing values
    kept: each count uses the rows where its variables are observed); a Dask
    DataFrame with ``y`` a Dask Series partitioned like it (counted on the
    workers); or a CSV/Parquet path (read whole) with ``y`` the name of its class
    column. ``y``'s sorted distinct labels are the classes; ``sample_weight``
    gives each row a weight (zero: the row is left out before anything else).

    ``states`` fixes the states of some features (as in
    :func:`~treelearn.encoding._table.encode`: a value outside them is an
    :class:`~treelearn.UnseenStateError`); ``classes`` declares the class labels (a
    chunk of rows may then hold one class, or none of some: their counts are 0, and a
    label outside them is a :class:`~treelearn.ClassLabelError`). Both are how a
    classifier learning chunk by chunk (``partial_fit``) keeps its states and classes.

    >>> import pandas as pd
    >>> stats = count_by_class(pd.DataFrame({"x": [0, 1, 1]}), pd.Series(["a", "b", "b"]))
    >>> stats.columns, stats.class_count.tolist()
    (('x', 'class'), [1, 2])
    >>> stats = count_by_class(pd.DataFrame({"x": [1]}), ["b"], states={"x": [0, 1]},
    ...                        classes=["a", "b"])
    >>> stats.states, stats.class_count.tolist()
    (((0, 1), ('a', 'b')), [0, 1])
    """

    def in_memory(features: Any, labels: Any = y, weights: Any = sample_weight) -> ClassCounts:
        return _count_by_class_frame(features, labels, weights, states, classes)

    return by_kind(
        X,
        {
            "dask": lambda ddf: _count_by_class_dask(ddf, y, sample_weight, states, classes),
            "path": lambda path: in_memory(*labelled_file(path, y, sample_weight)),
            "frame": in_memory,
            "array": in_memory,
        },
        learner="a categorical classifier",
        refusals={"sparse": DENSE_NEEDED},
    )


def _count_by_class_frame(
    X: Any, y: Any, sample_weight: Any, states: Any = None, declared: Any = None
) -> ClassCounts:
    _check_y_given(y)
    X = as_frame(X)
    if X.shape[1] == 0 or len(X) == 0:
        # "0 feature(s) (shape=...) while a minimum of 1 is required": scikit-learn's wording
        what = "feature(s)" if X.shape[1] == 0 else "sample(s)"
        raise EmptyDataError(
            f"X has 0 {what} (shape={X.shape}) while a minimum of 1 is required; a classifier "
            f"needs at least one row and one feature column"
        )
    keep, y, weights = positive_rows(len(X), y, check_sample_weight(sample_weight, len(X)))
    if keep is not None:
        X = X.iloc[keep]
    # the labels first: a target that cannot train a classifier (one class, continuous)
    # is the first thing to say, whatever the features hold
    if declared is None:
        classes, y_codes, y_name = class_labels(y, len(X))
    else:
        classes, y_codes, y_name = declared_class_codes(y, len(X), declared)
    features = encode(X, missing="pairwise", states=states)
    name = class_name(y_name, features.columns)
    width = code_dtype(max(len(classes), int(features.cardinalities.max())))
    codes = np.empty((features.n_rows, len(features.columns) + 1), dtype=width)
    codes[:, :-1] = features.codes
    codes[:, -1] = y_codes
    table = Table(
        codes=codes,
        columns=features.columns + (name,),
        states=features.states + (tuple(python_scalar(c) for c in classes),),
        dtypes=features.dtypes + (class_dtype(getattr(y, "dtype", None), classes),),
        weights=weights,
    )
    return ClassCounts(table.columns, table.states, table.dtypes, classes, table=table)


def _count_by_class_dask(
    X: Any, y: Any, sample_weight: Any, states: Any = None, declared: Any = None
) -> ClassCounts:
    if not is_dask_series(y):
        raise InputTypeError(
            "with a dask DataFrame X, y must be a dask Series partitioned like X, "
            "e.g. ddf['y'] beside ddf.drop(columns='y')"
        )
    name = class_name(y.name, list(X.columns))
    y = y.rename(name)
    # rows of weight zero are absent: their labels are no classes
    weight = X[sample_weight] if isinstance(sample_weight, (str, int)) else sample_weight
    # one pass over y: its missing labels and its distinct labels, the classes (any
    # labels, as in pandas: not held to the feature rules, e.g. 0.5 or many classes)
    n_missing, distinct, label_counts = distinct_labels(y if weight is None else y[weight > 0])
    if n_missing:
        raise MissingValuesError(
            f"y has {n_missing} missing class label(s); drop those rows or fill them in"
        )
    # a Categorical y: its values (dask may not know its categories), as np.unique sees them
    as_dtype = None if isinstance(y.dtype, pd.CategoricalDtype) else y.dtype
    labels = pd.Series(np.asarray(distinct), dtype=as_dtype, name=name)
    if declared is None:
        classes, _, _ = class_labels(
            labels, len(labels), check_continuous=False
        )  # sorted, as np.unique(y)
        check_not_continuous(np.asarray(distinct), np.asarray(label_counts))
    else:
        classes, _, _ = declared_class_codes(labels, len(labels), declared)
    stats = count_by_class_dask(X, y, classes, sample_weight=sample_weight, states=states)
    dtypes = stats.dtypes[:-1] + (class_dtype(y.dtype, classes),)
    return ClassCounts(
        stats.columns, stats.states, dtypes, classes, per_class_pairs=stats.per_class_pairs
    )
