"""Numbers inside the classifiers that count states: numeric features cut into bins in ``fit``.

A classifier that counts states (naive Bayes, TAN, KDB, AODE, ...) given a column of
numbers would make each value a state: a cross-validation fold then meets a value it
never saw (:class:`~treelearn.UnseenStateError`) and the many states overfit. So ``fit``
cuts every numeric feature into bins first, with the bins kept in the classifier (its
``binner_``, a fitted :class:`~treelearn.Discretizer`, saved with it) and applied to the
rows it is later given: predictions, scores and explanations take raw numbers, as a
Discretizer in front of it in a pipeline does.

* **Which columns are numbers** is decided by the column's dtype alone (integers and
  floats, not booleans; dates), never by how often its values repeat, so every fold of a
  table takes the same columns as numbers. ``categorical=[...]`` keeps the columns named
  as states (zip codes, codes of categories).
* **The bins** are supervised: Fayyad and Irani's MDL cut points (IJCAI 1993), as Weka's
  ``NaiveBayes -D`` and its supervised ``Discretize`` (``Discretizer(strategy="mdl")``).
  A column no cut pays for is one bin: it then says nothing about the class, as in Weka.
* A CSV/Parquet path is read in chunks and cut as the same table read whole would be
  (:func:`file_numbers_binned`: the MDL bins need only each numeric column's class counts
  per distinct value, summed over the chunks). A Dask DataFrame with numeric features is refused under
  ``numbers="mdl"`` (its counts would be of states, pandas's of bins): pass
  ``numbers="states"`` or cut them first.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._base.errors import ClassLabelError, TreelearnError
from .._base.persistence import SavedState
from ..encoding._table import no_value_error
from ..sources._count import label_values
from ..sources._kinds import as_frame, first_not_number, kind_of
from ..sources._value_class_counts import (
    check_categorical_named,
    counted_file,
    counted_states_file,
    mdl_binner_of_counts,
    number_columns,
    number_dtype,
    scan_labelled_file,
)

if TYPE_CHECKING:  # the Discretizer imports scikit-learn: loaded when bins are cut or read
    from ..encoding._discretizer import Discretizer
    from ..stats._counts import ClassCounts

__all__ = [
    "bin_numbers",
    "check_chunk_numbers",
    "counted_dtypes",
    "file_numbers_binned",
    "numbers_binner",
    "numeric_features",
    "refuse_states",
    "restored_binner",
    "states_refusal",
]


def file_numbers_binned(
    path: Any,
    y: Any,
    categorical: Sequence[Hashable] | None,
    who: str,
    sample_weight: Any,
    *,
    numbers: str = "mdl",
) -> tuple[Discretizer | None, ClassCounts]:
    """A CSV/Parquet file read in chunks with its numeric features cut into MDL bins
    (:mod:`~treelearn.sources._value_class_counts`: one pass sums each numeric column's
    value x class table, a second bins and encodes each chunk, keeping its codes only):
    ``(binner, counts)``, the bins and counts those of the same table read whole into a
    DataFrame. ``numbers="states"``: no bins, every feature's values its states (the
    same two passes: ``(None, counts)``)."""
    if not isinstance(y, (str, int)):
        raise ClassLabelError(
            f"with a file X, y is the name of its class column (e.g. y='label'), not "
            f"{type(y).__name__}"
        )
    if numbers == "states":
        return None, counted_states_file(path, y, sample_weight)
    scan = scan_labelled_file(path, y, categorical, who, sample_weight)
    check_categorical_named(categorical, list(scan.header), who)
    binner = mdl_binner_of_counts(scan.tables, list(scan.tables))
    return binner, counted_file(path, y, binner, scan, sample_weight)


def numeric_features(frame: pd.DataFrame, categorical: Sequence[Hashable] | None) -> list:
    """The columns of ``frame`` a classifier cuts into bins: numbers by dtype, less
    ``categorical``.

    >>> frame = pd.DataFrame({"age": [30, 41], "zip": [2139, 2140], "sex": ["f", "m"]})
    >>> numeric_features(frame, ["zip"])
    ['age']
    """
    return number_columns(frame.dtypes, categorical)


def numbers_binner(
    X: Any, y: Any, categorical: Sequence[Hashable] | None, who: str, sample_weight: Any = None
) -> Discretizer | None:
    """The fitted MDL bins of the numeric features of ``X`` given the classes ``y``
    (``None``: no numeric feature, or input not in memory)."""
    kind = kind_of(X, learner=who).name
    if kind == "dask":
        _refuse_dask_numbers(X, categorical, who)
    if kind not in ("frame", "array"):
        return None
    frame = as_frame(X, learner=who)
    check_categorical_named(categorical, list(frame.columns), who)
    columns = numeric_features(frame, categorical)
    if not columns:
        return None
    empty = [c for c in columns if not frame[c].notna().any()]
    if empty:  # the error numbers="states" gives, with its fixes (no bins to learn)
        raise no_value_error(empty[0])
    from ..encoding._discretizer import mdl_discretizer

    with warnings.catch_warnings():  # class_labels warns once, when the classes are read
        warnings.simplefilter("ignore")
        # y checked as the classes are (None, 2-D, complex, missing, length): the same
        # errors with or without numeric features; a column vector taken as 1-D
        labels, _ = label_values(y, len(frame))
    return mdl_discretizer(frame[columns], labels, columns, sample_weight)


def refuse_states(
    X: Any, who: str, instead: str, takes: str = "numbers only", labelled: Sequence = ()
) -> None:
    """Refuse, in one error, the columns of a table in memory (or of a Dask frame, by its
    dtypes) that hold states (text, categories, booleans, dates) where a classifier
    ``who`` takes numbers only (or what ``takes`` says), naming them all, each with its
    first cell that is not a number, and the classifier ``instead`` that takes numbers and
    states together (the mixed ones): a real table of both needs no column dropped. An
    array, a file and a table of numbers are left to the reader (a file's chunk refused in
    the same words, :func:`states_refusal`). ``labelled``: the ``y`` and ``sample_weight``
    of the call, whichever name a column of ``X`` (the class and the weights), which are no
    features."""
    kind = kind_of(X, learner=who).name
    if kind not in ("frame", "dask"):
        return
    label_columns = {c for c in labelled if isinstance(c, (str, int))}
    states = [
        c
        for c, dtype in X.dtypes.items()
        if c not in label_columns
        and not pd.api.types.is_complex_dtype(dtype)  # refused as complex by the reader
        and (not number_dtype(dtype) or pd.api.types.is_datetime64_any_dtype(dtype))
    ]
    if states:
        # a Dask frame's cells are not read here: its columns named by their dtypes
        firsts = {c: None if kind == "dask" else first_not_number(X[c]) for c in states[:10]}
        raise states_refusal(states, firsts, who, instead, takes)


def states_refusal(
    states: Sequence[Hashable],
    firsts: Mapping[Hashable, tuple[Hashable, Any] | None],
    who: str,
    instead: str,
    takes: str = "numbers only",
    *,
    data: str = "table",
) -> TreelearnError:
    """The one refusal of columns holding states where ``who`` takes numbers: of a table
    in memory (:func:`refuse_states`) and of the chunk of a file where a column turns to
    text (``data="file"``), in the same words: the columns, each column's first cell that
    is not a number (``firsts``: ``(row, value)``, rows numbered as the table read whole
    numbers them), and the fixes (the mixed classifier ``instead``, or dropping them).

    >>> states_refusal(["x"], {"x": (11500, "unknown")}, "GaussianClassifier", "MixedNaiveBayes")
    ... # doctest: +NORMALIZE_WHITESPACE
    TreelearnError("column 'x' is not numeric (row 11500: 'unknown'; states: text, categories,
    booleans or dates) and GaussianClassifier takes numbers only; learn the table as it is with
    tl.MixedNaiveBayes() (its numbers Gaussian, its other columns categorical), or drop it
    (X.drop(columns=['x']))")
    """
    states = list(states)
    named = ", ".join(map(repr, states[:10])) + (" ..." if len(states) > 10 else "")
    which = f"column {named} is" if len(states) == 1 else f"columns {named} are"
    cells = [
        (c, *first) for c in states[:10] if (first := firsts.get(c)) is not None
    ]  # (column, row, value)
    shown = "; ".join(
        f"row {row}: {value!r}" if len(states) == 1 else f"{c!r} row {row}: {value!r}"
        for c, row, value in cells
    )
    drop = "X.drop" if data == "table" else "tl.read_data(path).drop"
    them = "it" if len(states) == 1 else "them"
    return TreelearnError(
        f"{which} not numeric ({shown + '; ' if shown else ''}states: text, categories, "
        f"booleans or dates) and {who} takes {takes}; learn the {data} as it is with "
        f"tl.{instead}() (its numbers Gaussian, its other columns categorical), or drop "
        f"{them} ({drop}(columns={states!r}))",
        column=states[0],
        values=[cells[0][2]] if cells else None,
        hint=f"use tl.{instead}, or drop the columns that hold states",
    )


def _refuse_dask_numbers(X: Any, categorical: Sequence[Hashable] | None, who: str) -> None:
    """A Dask frame is counted partition by partition, as read: its numeric columns would
    be states where the same table in pandas is cut into MDL bins, a silently different
    model; refused by dtype (no data read), naming the fixes."""
    columns = number_columns(X.dtypes, categorical)
    if columns:
        named = ", ".join(map(repr, columns[:10])) + (" ..." if len(columns) > 10 else "")
        raise TreelearnError(
            f"{who} cannot cut the numeric feature(s) {named} of a Dask frame into MDL bins "
            f"(the bins need every row in memory); keep their values as states with "
            f'{who}(numbers="states") (or categorical=[...]), cut them first with a '
            f"tl.Discretizer fitted on a sample, or fit on a pandas DataFrame"
        )


def check_chunk_numbers(
    X: Any,
    categorical: Sequence[Hashable] | None,
    declared: Any,
    who: str,
    y: Any = None,
    sample_weight: Any = None,
) -> None:
    """Refuse a first ``partial_fit`` chunk with numeric features under ``numbers="mdl"``:
    MDL bins need every row with its class at once, and bins cut from the first chunk
    alone would differ from :meth:`fit`'s (the columns of ``declared``, the ``states=``
    of the call, are states). A CSV/Parquet path is judged once counted, by the dtypes of
    the file read whole (:func:`counted_dtypes`: a column of numbers in its first rows and
    text later is text, as read whole); here it passes."""
    kind = kind_of(X, learner=who).name
    if kind in ("frame", "array"):
        frame = as_frame(X, learner=who)
    else:
        return
    keep = [*(categorical or ()), *(declared or ())]
    columns = numeric_features(frame, keep)
    if columns:
        named = ", ".join(map(repr, columns[:10])) + (" ..." if len(columns) > 10 else "")
        raise TreelearnError(
            f"{who}.partial_fit cannot cut the numeric feature(s) {named} into MDL bins "
            f"chunk by chunk (the bins need every row); fit on a first batch of rows and "
            f"call partial_fit on the next ones (they are cut with its bins), put a fitted "
            f"tl.Discretizer in front, keep their values as states with "
            f'numbers="states" (or categorical=[...]), or declare their states with states='
        )


def counted_dtypes(stats: ClassCounts) -> pd.DataFrame:
    """An empty frame with the dtypes of the features ``stats`` counted (the class aside):
    what :func:`check_chunk_numbers` judges a file by once it is counted.

    >>> from treelearn.sources._count import count_by_class
    >>> stats = count_by_class(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}), ["p", "q"])
    >>> counted_dtypes(stats).dtypes.astype(str).tolist()
    ['int64', 'str']
    """
    features = zip(stats.columns[: stats.class_index], stats.dtypes[: stats.class_index])
    return pd.DataFrame({c: pd.Series(dtype=d) for c, d in features})


def bin_numbers(binner: Discretizer, X: Any, names: Sequence[Hashable] | None) -> Any:
    """``X`` with the binned features replaced by their bins (a new frame; ``X`` is never
    changed); input not in memory is returned as it is."""
    if kind_of(X).name not in ("frame", "array"):
        return X
    frame = as_frame(X, None if names is None else list(names))
    columns = list(binner.edges_)
    present = [c for c in columns if c in frame.columns]
    if not present:
        return frame
    cut = binner.transform(frame[present]) if present == columns else None
    if cut is None:  # some binned features absent: the matcher names them later
        return frame
    out = frame.copy(deep=False)
    for c in present:
        out[c] = cut[c]
    return out


def restored_binner(saved: SavedState) -> Discretizer:
    """The saved bins of a classifier's numeric features (its field ``numeric_bins``: the
    fitted Discretizer's own saved state), checked as the Discretizer checks its files."""
    from ..encoding._discretizer import Discretizer

    state = saved.raw("numeric_bins", dict)
    try:
        binner = Discretizer.from_dict(state)
    except TreelearnError as exc:
        raise saved.fail("numeric_bins", f"does not give valid bins ({exc})") from None
    if binner.strategy != "mdl" or not binner.edges_:
        raise saved.fail("numeric_bins", "must hold the MDL bins of at least one feature")
    return binner
