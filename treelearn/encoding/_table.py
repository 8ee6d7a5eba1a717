"""Validation and encoding of tables: every column becomes integer codes 0..k-1.

A :class:`Table` is what the rest of treelearn works on: an ``n x d`` array of
small integer codes (``-1`` marks a missing value), the column names, and each
column's state labels. States follow a documented, stable order:

* a pandas ``Categorical`` keeps its declared categories, in their order, even
  the ones never observed (they are states; smoothing gives them mass);
* ``bool`` columns have the states ``[False, True]``;
* every other column has its distinct observed values, sorted.

**The rule for numeric columns** (integers, floats; dates follow the integer row).
``k`` is a column's number of distinct observed values, ``FEW_NUMBERS`` is 20:

============================================  ===================  ==========================
column                                        k <= 20              20 < k <= max_states
============================================  ===================  ==========================
whole numbers (ints; floats such as 1.0, 2.0  states, quietly      states, with a
of an int column that picked up a NaN), dates                      :class:`NumericColumnWarning`
floats with fractions, every value repeated   states, with a       refused
                                              ``NumericColumnWarning``
floats with fractions, some value seen once   refused              refused
============================================  ===================  ==========================

More than ``max_states`` distinct values is refused for every column. A refused
numeric column raises :class:`NumericColumnError` (or :class:`TooManyStatesError`)
naming the fix: :func:`discretize` (dates are cut into time periods), declaring it
categorical, or dropping it. A many-valued integer column is noted because each
value becomes a state, and a variable with many states gets inflated mutual
information estimates (about ``(k - 1)(k' - 1) / 2n`` nats of bias) and tends to
become the hub of a Chow-Liu tree. A ``Categorical`` column is always taken as
declared, without notes. Every problem of a table is reported in one error
(:class:`TableProblemsError` when there are several).
"""

from __future__ import annotations

import contextlib
import itertools
import warnings
from collections.abc import Collection, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .._base.errors import (
    ColumnNotFoundError,
    DuplicateColumnError,
    EmptyDataError,
    InputTypeError,
    MissingValuesError,
    NumericColumnError,
    NumericColumnWarning,
    TableProblemsError,
    TooManyStatesError,
    TreelearnError,
    UnseenStateError,
)
from .._base.validation import Interval, Options, check_param, check_params
from ._bins import Bins, bin_labels, bins_of, codes_of_values, cut_edges

__all__ = [
    "DEFAULT_MAX_STATES",
    "FEW_NUMBERS",
    "MAX_BINS",
    "MAX_TOTAL_WEIGHT",
    "CategoricalTableInput",
    "MissingPolicy",
    "Table",
    "check_column_names",
    "check_float_levels",
    "check_frame",
    "check_missing_policy",
    "check_sample_weight",
    "check_total_weight",
    "code_dtype",
    "cut_column",
    "discretize",
    "distinct_rows",
    "encode",
    "fix_advice",
    "many_values_note",
    "missing_fix",
    "missing_fixed_by",
    "missing_summary",
    "missing_values_error",
    "no_value_error",
    "python_scalar",
    "raise_problems",
    "state_index",
    "state_order",
    "state_positions",
    "too_many_states_error",
    "unhashable_error",
    "weighted_total",
]

MissingPolicy = Literal["error", "drop", "pairwise"]
DEFAULT_MAX_STATES = 100
#: numeric columns with more distinct values than this are "many-valued": integers
#: (and dates) get a :class:`NumericColumnWarning`, floats with fractions are refused
FEW_NUMBERS = 20
#: the most bins a column is cut into: each bin is a state, and a learner's counts grow
#: with the square of the states (100 per column by default, ``max_states``)
MAX_BINS = 10_000
_MISSING = [Options("error", "drop", "pairwise")]
_ENCODE: dict[str, list[Interval | Options]] = {
    "max_states": [Interval(Integral, 1, None)],
    "unseen": [Options("error", "ignore")],
}
_DISCRETIZE: dict[str, list[Interval | Options]] = {
    "bins": [Interval(Integral, 1, MAX_BINS)],
    "strategy": [Options("quantile", "uniform")],
}


if TYPE_CHECKING:  # the mixin's host, for the type checker (at run time: object)
    from sklearn.base import BaseEstimator as _Host
else:
    _Host = object


class CategoricalTableInput(_Host):
    """scikit-learn tags of an estimator that takes tables :func:`encode` reads: categorical
    and text columns, missing values (mix in before ``BaseEstimator``)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True
        return tags


@dataclass(frozen=True)
class Table:
    """Integer-coded data: ``codes[r, j]`` is the state index of column ``j`` in row ``r``.

    Attributes
    ----------
    codes : ndarray of shape (n, d), signed integers, ``-1`` for a missing value.
    columns : tuple of column names, in the caller's order.
    states : tuple with, for each column, the tuple of its state labels.
    dtypes : tuple with each column's pandas dtype, used to give sampled data
        back its original types.
    weights : ``None`` (every row counts once) or one positive weight per row
        (``sample_weight``; rows of weight zero are not in the table).
    """

    codes: np.ndarray
    columns: tuple
    states: tuple
    dtypes: tuple = field(default=())
    weights: np.ndarray | None = None

    @property
    def n_rows(self) -> int:
        return int(self.codes.shape[0])

    @property
    def cardinalities(self) -> np.ndarray:
        return np.array([len(s) for s in self.states], dtype=np.int64)

    def index(self, column: Hashable) -> int:
        """Position of ``column``; :class:`ColumnNotFoundError` if it is not one."""
        try:
            return self.columns.index(column)
        except ValueError:
            raise ColumnNotFoundError(
                f"{column!r} is not a column of the data; the columns are {list(self.columns)}"
            ) from None

    def decode(self, codes: np.ndarray | None = None) -> pd.DataFrame:
        """Turn codes (default: this table's) back into a DataFrame of labels and dtypes."""
        codes = self.codes if codes is None else codes
        out = {}
        for j, (name, states) in enumerate(zip(self.columns, self.states)):
            dtype = self.dtypes[j] if self.dtypes else None
            col = codes[:, j]
            if isinstance(dtype, pd.CategoricalDtype):
                if list(dtype.categories) != list(states):  # states given at learning time:
                    # codes index the states, not the column's categories
                    dtype = pd.CategoricalDtype(list(states), ordered=dtype.ordered)
                out[name] = pd.Categorical.from_codes(col, dtype=dtype)
                continue
            labels = np.empty(len(states), dtype=object)
            labels[:] = list(states)
            values = pd.Series(labels[col], dtype=object)
            values[col < 0] = None
            if dtype is not None:
                # e.g. integers with a missing value cannot be int64: keep object
                with contextlib.suppress(TypeError, ValueError):
                    values = values.astype(dtype)
            out[name] = values.to_numpy() if dtype is None else values
        return pd.DataFrame(out, columns=list(self.columns))


def python_scalar(value: Any) -> Any:
    """numpy scalars -> Python scalars, so states compare, print and serialise cleanly.

    >>> import numpy as np
    >>> type(python_scalar(np.int64(3))).__name__
    'int'
    """
    return value.item() if isinstance(value, np.generic) else value


def state_order(
    values: Iterable, *, categories: Sequence | None = None, boolean: bool = False
) -> list:
    """The one rule that orders a column's states, wherever the column comes from.

    * a pandas ``Categorical`` (``categories`` given) keeps its declared
      categories, in their order, observed or not;
    * a ``bool`` column (``boolean=True``) has the states ``[False, True]``;
    * every other column has its distinct observed ``values``, sorted (values of
      mixed types, which do not sort, by type name and text: stable all the same).

    In-memory encoding, files read in chunks and Dask partitions all end here.

    >>> state_order(["b", "a", "b"]), state_order([], boolean=True)
    (['a', 'b'], [False, True])
    >>> state_order(["x"], categories=["z", "x"])
    ['z', 'x']
    """
    if categories is not None:
        return [python_scalar(v) for v in categories]
    if boolean:
        return [False, True]
    distinct = list(dict.fromkeys(python_scalar(v) for v in values))
    try:
        return sorted(distinct)
    except TypeError:  # mixed types (e.g. 1 and "a"): a stable order all the same
        return sorted(distinct, key=lambda v: (type(v).__name__, str(v)))


def check_missing_policy(missing: str) -> None:
    """``missing`` is one of ``"error"``, ``"drop"``, ``"pairwise"``.

    >>> check_missing_policy("skip")
    Traceback (most recent call last):
    ...
    treelearn.TreelearnError: missing == 'skip', must be one of 'error', 'drop', 'pairwise'
    """
    check_param("missing", missing, _MISSING)


#: the largest total row weight: counts (sums of weights) and the products of two of them
#: (mutual information, pairwise ratios) then stay finite in float64
MAX_TOTAL_WEIGHT = 1e150


def check_total_weight(total: float) -> None:
    """Refuse a total row weight whose counts could overflow float64 products.

    >>> check_total_weight(1e200)
    Traceback (most recent call last):
    ...
    treelearn.TreelearnError: the row weights (sample_weight) total 1e+200, more than 1e+150: products of counts would overflow floats; scale the weights down (a constant factor does not change a maximum-likelihood fit)
    >>> check_total_weight(float("nan"))
    Traceback (most recent call last):
    ...
    treelearn.TreelearnError: the row weights total NaN: a weight or an internal responsibility is not a number
    """
    if np.isnan(total):  # a learner's bug, not the user's weights: say so plainly
        raise TreelearnError(
            "the row weights total NaN: a weight or an internal responsibility is not a number",
            values=[total],
        )
    if not total <= MAX_TOTAL_WEIGHT:
        raise TreelearnError(
            f"the row weights (sample_weight) total {total:.3g}, more than {MAX_TOTAL_WEIGHT:.3g}: "
            f"products of counts would overflow floats; scale the weights down (a constant "
            f"factor does not change a maximum-likelihood fit)",
            values=[total],
        )


def weighted_total(rows: np.ndarray, sample_weight: Any) -> tuple[float, float]:
    """``(sum of rows' values, n)`` weighted by ``sample_weight`` (checked; ``n``: the rows,
    or their total weight). A row of weight zero does not count, even at ``-inf`` (an
    impossible row left out by its weight must not make the total NaN).

    >>> weighted_total(np.array([-1.0, -np.inf, -2.0]), [1, 0, 3])
    (-7.0, 4.0)
    """
    weights = check_sample_weight(sample_weight, len(rows))
    if weights is None:
        return float(rows.sum()), float(len(rows))
    counted = weights > 0
    # numpy's pairwise sum of the products, not a BLAS dot: the same doubles on every CPU
    return float(np.sum(rows[counted] * weights[counted])), float(weights.sum())


def check_sample_weight(
    sample_weight: Any, n_rows: int, *, allow_all_zero: bool = False
) -> np.ndarray | None:
    """Row weights as a float array of length ``n_rows`` (``None`` stays ``None``).

    One non-negative finite number per row (scikit-learn's ``sample_weight``). A
    weight of zero leaves the row out; integer weights count a row that many
    times. ``allow_all_zero`` is for one chunk of a larger table (the whole
    table is checked once at the end).

    >>> check_sample_weight([1, 0, 2.5], 3).tolist()
    [1.0, 0.0, 2.5]
    >>> check_sample_weight([1, -1], 2)
    Traceback (most recent call last):
    ...
    treelearn.TreelearnError: sample_weight has 1 negative value(s) (e.g. -1.0 in row 1); weights must be >= 0
    """
    if sample_weight is None:
        return None
    if isinstance(sample_weight, pd.DataFrame):
        raise TreelearnError(
            "sample_weight must be one number per row (a Series, array or list), not a DataFrame"
        )
    try:
        w = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        raise TreelearnError(
            "sample_weight must hold numbers (one non-negative weight per row); convert it with "
            "pd.to_numeric"
        ) from None
    if w.ndim != 1:
        raise TreelearnError(f"sample_weight must be 1-D (one weight per row), got shape {w.shape}")
    if len(w) != n_rows:
        raise TreelearnError(
            f"sample_weight has {len(w)} values for {n_rows} rows; give one weight per row"
        )
    for what, bad in (
        ("missing (NaN)", np.isnan(w)),
        ("infinite", np.isinf(w)),
        ("negative", w < 0),
    ):
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise TreelearnError(
                f"sample_weight has {int(bad.sum())} {what} value(s) (e.g. {float(w[row])!r} in row "
                f"{row}); weights must be {'>= 0' if what == 'negative' else 'finite numbers'}",
                values=[float(w[row])],
            )
    check_total_weight(float(w.sum()))
    if not allow_all_zero and n_rows and not (w > 0).any():
        raise TreelearnError(
            "every sample_weight is zero: no row would count; give some rows a positive weight"
        )
    return w


def state_index(states: Sequence) -> pd.Index:
    """``states`` as the lookup :func:`state_positions` builds: for a caller that looks up
    values against the same states many times (a file's chunks)."""
    return pd.Index(list(states), dtype=object, tupleize_cols=False)


#: :func:`state_positions` looks up at most this many values among at most this many states
#: with a dict (an Index's get_indexer costs ~0.1 ms a call: a file's chunks make one per column)
_DICT_LOOKUP_MAX = 256
#: the exact types whose matching a dict reproduces: pandas' object hashtable hashes them as
#: Python does and compares them with ``==``, save NaN (equal to NaN there, not in a dict)
_DICT_TYPES = frozenset({str, int, float, bool})


def _dict_positions(values: np.ndarray, states: Sequence) -> np.ndarray | None:
    """:func:`state_positions` by a dict, where values and states are all plain str, int,
    float (not NaN) or bool and the states distinct; ``None`` otherwise (the Index then
    decides, and refuses states that repeat as it did)."""
    states = list(states)
    if not all(type(v) in _DICT_TYPES and v == v for v in itertools.chain(values, states)):
        return None
    where = {s: i for i, s in enumerate(states)}
    if len(where) != len(states):  # 1 and 1.0 (or True): duplicates to the Index too
        return None
    found = [where.get(v, -1) for v in values]
    # True == 1 and False == 0 hash alike; a bool must not stand for a number or back
    return np.array(
        [
            i if i < 0 or (type(v) is bool) == (type(states[i]) is bool) else -1
            for v, i in zip(values, found)
        ],
        dtype=np.intp,
    )


def state_positions(values: Any, states: Sequence, lookup: pd.Index | None = None) -> np.ndarray:
    """The position of each of the distinct ``values`` in ``states`` (``-1``: not a state), by
    the equality every encoding uses (``1 == 1.0``; a bool never stands for a number).
    ``lookup``: :func:`state_index` of ``states``, if the caller keeps it.

    >>> state_positions(["b", 1.0, True, "z"], ["a", "b", 1]).tolist()
    [1, 2, -1, -1]
    """
    values = np.asarray(values, dtype=object)
    if len(values) <= _DICT_LOOKUP_MAX and len(states) <= _DICT_LOOKUP_MAX:
        found = _dict_positions(values, states)
        if found is not None:
            return found
    if lookup is None:
        lookup = state_index(states)
    found = lookup.get_indexer(pd.Index(values, dtype=object, tupleize_cols=False))
    # True == 1 and False == 0 hash alike; a bool must not stand for a number or back
    for i in np.flatnonzero(found >= 0):
        if isinstance(values[i], (bool, np.bool_)) != isinstance(
            lookup[found[i]], (bool, np.bool_)
        ):
            found[i] = -1
    return found


def _codes_for_states(name: Hashable, series: pd.Series, states: list, unseen: str) -> np.ndarray:
    """Codes of ``series`` against a fixed list of states; unseen values are an error or missing."""
    # factorize (one hash pass over the rows), then look up only the distinct values:
    # several times faster than pd.Categorical(series, categories=...) on object columns
    bins = bins_of(states)
    if bins is not None:  # a cut column takes raw numbers and dates too, binned
        binned = codes_of_values(bins, series)
        if binned is not None:
            return binned
    raw, uniques = pd.factorize(series, use_na_sentinel=True)
    found = state_positions(uniques, states)
    codes = np.append(found, -1).astype(np.int64)[raw]  # raw code -1 (missing) picks the -1
    bad = (codes < 0) & (raw >= 0)
    if bad.any() and unseen == "error":  # with "ignore" they stay -1: missing
        values = [python_scalar(v) for v in pd.unique(series[bad])[:5]]
        raise UnseenStateError(name, values, states, n_rows=int(bad.sum()), dtype=series.dtype)
    return codes


#: how each fix is worded for Python callers (the command line words its own)
_PYTHON_FIXES = {
    "discretize": "cut it into bins with tl.discretize(df, bins=5) (in cross-validation: "
    "tl.Discretizer(bins=5) in a pipeline; the model then takes raw numbers)",
    "gaussian": "model it as a number with the mixed tree, tl.clg_tree(df) (its discrete and "
    "continuous columns together; classifiers: tl.MixedTAN, tl.MixedNaiveBayes), or with "
    "tl.gaussian_chow_liu if every column is a number",
    "categorical": "declare it categorical with df[{col!r}].astype('category')",
    "drop": "drop it (df.drop(columns=[{col!r}])) if it is an identifier or not needed",
    "max_states": "raise max_states (to {n} or more)",
    "missing": "pass missing='drop' to drop incomplete rows or missing='pairwise' to use, for "
    "each table, the rows where its variables are observed",
    "missing_em": "pass missing='drop' to drop incomplete rows or missing='em' to learn the "
    "missing cells by EM",
    "missing_drop": "pass missing='drop' to drop incomplete rows",
    "fill": "fill it in",
    "iso_dates": "write the dates as ISO 8601 (2021-04-03), or parse them with "
    "pd.to_datetime(df[{col!r}], dayfirst=True) (or False) to say the order",
    "background": "use kind='shapley', conditional=False with background= rows",
}


def fix_advice(
    fixes: Sequence[str],
    column: Hashable = None,
    n_states: int | None = None,
    words: Mapping[str, str] | None = None,
) -> str:
    """The fixes named in an error's or a note's ``fixes``, worded for Python, or by
    ``words`` (``{fix: template}`` with ``{col}`` and ``{n}``; a front end such as the
    command line passes its own, and a fix it has no words for is left out).

    >>> fix_advice(["drop"], "age")
    "drop it (df.drop(columns=['age'])) if it is an identifier or not needed"
    """
    words = _PYTHON_FIXES if words is None else words
    parts = [words[f].format(col=column, n=n_states) for f in fixes if f in words]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + ", or " + parts[-1]


def _problem(
    cls: type,
    column: Hashable,
    reason: str,
    fixes: Sequence[str],
    *,
    values: Sequence | None = None,
    n_states: int | None = None,
) -> TreelearnError:
    """An error about one column: its reason, the fixes by name, and the Python wording."""
    hint = fix_advice(fixes, column, n_states)
    error = cls(
        f"{reason}: {hint}", column=column, values=values, hint=hint, reason=reason, fixes=fixes
    )
    error.n_states = n_states
    return error


def _note(column: Hashable, reason: str, n_states: int) -> NumericColumnWarning:
    fixes = ("discretize", "categorical")
    hint = (
        f"if the values are measured quantities, {fix_advice(fixes[:1], column)}; if "
        f"they are labels, {fix_advice(fixes[1:], column)} to silence this note"
    )
    return NumericColumnWarning(
        f"{reason}; {hint}", column=column, n_states=n_states, reason=reason, fixes=fixes, hint=hint
    )


def raise_problems(problems: Sequence[TreelearnError]) -> None:
    """Raise the one problem, or one :class:`TableProblemsError` listing them all."""
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise TableProblemsError(problems)


def _check_floats(
    name: Hashable, values: np.ndarray, max_states: int
) -> NumericColumnWarning | None:
    """The numeric rule (module docstring) for a float column's values."""
    observed = values[~np.isnan(values)]
    distinct, counts = np.unique(observed, return_counts=True)
    return check_float_levels(name, distinct, counts, max_states)


def check_float_levels(
    name: Hashable, distinct: np.ndarray, counts: np.ndarray, max_states: int
) -> NumericColumnWarning | None:
    """The numeric rule (module docstring) for a float column with these sorted
    ``distinct`` values seen ``counts`` times (a count of 2 may stand for "2 or more"):
    ``None`` for whole numbers within ``max_states``, a note for fractional values taken
    as categories, :class:`NumericColumnError` for a refused column.

    >>> check_float_levels("a", np.array([0.5, 1.5]), np.array([2, 3]), 100).reason
    "column 'a' has 2 distinct float values (0.5, 1.5), each seen at least twice: taken as 2 categories"
    >>> check_float_levels("a", np.array([0.5, 1.5]), np.array([2, 1]), 100)
    Traceback (most recent call last):
    ...
    treelearn.NumericColumnError: column 'a' is numeric with 2 distinct values, 1 of them seen once (e.g. 1.5) (treelearn models discrete variables): model it as a number with the mixed tree, tl.clg_tree(df) (its discrete and continuous columns together; classifiers: tl.MixedTAN, tl.MixedNaiveBayes), or with tl.gaussian_chow_liu if every column is a number, cut it into bins with tl.discretize(df, bins=5) (in cross-validation: tl.Discretizer(bins=5) in a pipeline; the model then takes raw numbers), declare it categorical with df['a'].astype('category'), or drop it (df.drop(columns=['a'])) if it is an identifier or not needed
    """
    distinct, counts = np.asarray(distinct, dtype=float), np.asarray(counts)
    k = len(distinct)
    fixes = ("discretize", "categorical", "drop")
    if not np.isfinite(distinct).all():
        bad = float(distinct[~np.isfinite(distinct)][0])
        reason = (
            f"column {name!r} has the value {bad!r}, which is no state (replace it, e.g. by NaN)"
        )
        raise _problem(NumericColumnError, name, reason, fixes, values=[bad])
    if (distinct == np.round(distinct)).all():  # whole numbers: an int column (a NaN made it float)
        if k <= max_states:
            return None
        reason = (
            f"column {name!r} is numeric with {k} distinct values (e.g. "
            f"{float(distinct[-1])!r}), more than the limit of {max_states}"
        )
        raise _problem(
            NumericColumnError,
            name,
            reason,
            (*fixes, "max_states"),
            values=[float(distinct[-1])],
            n_states=k,
        )
    once = distinct[counts == 1]
    limit = min(FEW_NUMBERS, max_states)
    if k <= limit and not len(once):
        shown = ", ".join(repr(float(v)) for v in distinct[:4]) + (", ..." if k > 4 else "")
        return _note(
            name,
            f"column {name!r} has {k} distinct float values ({shown}), each seen "
            f"at least twice: taken as {k} categories",
            k,
        )
    if len(once):
        example = float(once[0])
        what = f"{len(once)} of them seen once (e.g. {example!r})"
    else:
        example = float(distinct[-1])
        what = f"more than {limit}, with fractions (e.g. {example!r})"
    reason = (
        f"column {name!r} is numeric with {k} distinct values, {what} (treelearn models "
        f"discrete variables)"
    )
    # measured numbers: bins or a Gaussian; categories only for a few levels
    # measured numbers: the mixed tree first (it keeps them numbers), then bins
    fixes = ("gaussian", "discretize", *(("categorical",) if k <= FEW_NUMBERS else ()), "drop")
    raise _problem(NumericColumnError, name, reason, fixes, values=[example], n_states=k)


def many_values_note(name: Hashable, dtype: Any, states: Sequence) -> NumericColumnWarning | None:
    """The note for a column of whole numbers or dates with more than FEW_NUMBERS states."""
    if len(states) <= FEW_NUMBERS or not isinstance(dtype, np.dtype) or dtype.kind not in "iufmM":
        return None
    what = "dates" if dtype.kind in "mM" else "numbers"
    return _note(
        name,
        f"column {name!r} has {len(states)} distinct {what}, each taken as a "
        f"state: a variable with many states tends to become the hub of the tree",
        len(states),
    )


def _small_integer_codes(series: pd.Series) -> tuple[np.ndarray, list] | None:
    """Codes and states of a numpy bool or integer column with a small range, without hashing.

    The same codes and states as the general path (sorted distinct values), found
    from the column's minimum and a presence count: a 0/1 column costs two
    reductions and a subtraction. ``None`` for other columns.
    """
    dtype = series.dtype
    if dtype.kind == "b":
        return series.to_numpy().view(np.int8), [False, True]
    if dtype.kind not in "iu" or len(series) == 0:
        return None
    values = series.to_numpy()
    low, high = values.min(), values.max()
    span = int(high) - int(low)
    if span >= 2**16 or int(high) >= 2**63:
        return None
    if span < 128:
        shifted = (values - low).astype(np.int8, copy=False)  # wraps harmlessly: 0 <= v - low < 128
    else:
        shifted = values.astype(np.int64) - int(low)
    if span <= 1:  # both ends are present: every value in between is
        present = np.ones(span + 1, dtype=bool)
    else:
        present = (
            np.bincount(
                shifted.ravel().view(np.uint8) if span < 128 else shifted, minlength=span + 1
            )
            > 0
        )
    states = [int(low) + int(t) for t in np.flatnonzero(present)]
    if present.all():
        return shifted, states
    lookup = (np.cumsum(present) - 1).astype(np.int64)
    return lookup[shifted], states


def _small_integer_frame(
    data: pd.DataFrame, max_states: int, column_dtypes: Sequence | None = None
) -> tuple[np.ndarray, list] | None:
    """Codes and states of a frame whose columns all share one numpy bool or integer dtype,
    each spanning fewer than 127 values, in a few 2-D passes (0/1 matrices, one-hot
    data, small integer codes); ``None`` for any other frame.

    The same codes and states as the column-by-column path; much faster on wide
    frames, whose columns are often strided views of one 2-D block.
    """
    dtypes = set(data.dtypes if column_dtypes is None else column_dtypes)
    if len(dtypes) != 1 or data.shape[0] == 0:
        return None
    dtype = dtypes.pop()
    if not isinstance(dtype, np.dtype) or dtype.kind not in "biu":
        return None
    values = data.to_numpy()
    n, d = values.shape
    # in the frame's own memory order (pandas keeps a column block's values column after
    # column): writing across the order was 0.78 ms of a 10,000 x 50 table's 1.3 ms
    order: Literal["C", "F"] = "F" if values.flags.f_contiguous else "C"
    if dtype.kind == "b":
        out = np.empty((n, d), dtype=np.int8, order=order)
        out[...] = values
        return out, [(False, True)] * d
    if dtype.itemsize > 1:
        # one pass over the wide integers: where every column's bitwise OR is in 0..126,
        # every value is (no sign bit, no bit above the OR's), so int8 holds them exactly
        # and the minima, maxima and codes below read 1 byte a cell, not 8 (10,000 x 50
        # int64: 0.49 -> 0.3 ms; the same codes and states)
        bits = np.bitwise_or.reduce(values, axis=0)
        if bits.min() >= 0 and bits.max() < 127:
            values = values.astype(np.int8)  # (in the frame's memory order)
            top = int(bits.max())
            if top <= 1 and top + 1 <= max_states and not values.min(axis=0).any():
                # 0/1 columns (or all 0): the codes are the values, this copy is ours
                return values, [(0,) if b == 0 else (0, 1) for b in bits.tolist()]
    low, high = values.min(axis=0), values.max(axis=0)
    if int(high.max()) >= 2**63:
        return None
    out = np.empty((n, d), dtype=np.int8, order=order)
    span = high.astype(np.int64) - low.astype(np.int64)
    if span.max() >= 127 or span.min() < 0:  # negative: int64 overflow, a range over 2^63
        return None
    np.subtract(values, low, out=out, casting="unsafe")  # wraps harmlessly: 0 <= v - low < 127
    if span.max() <= 1:  # 0/1 (or constant) columns: both ends present, nothing to look for
        if span.max() + 1 > max_states:
            return None  # the column-by-column path raises the error
        lows = low.astype(np.int64).tolist()  # Python ints, as int(low[j]) below
        return out, [(lo,) if s == 0 else (lo, lo + 1) for lo, s in zip(lows, span.tolist())]
    all_states = []
    for j in range(d):
        present = np.ones(int(span[j]) + 1, dtype=bool)
        if span[j] > 1:  # with 0/1 columns both ends are present: nothing to look for
            present = np.bincount(out[:, j].view(np.uint8), minlength=int(span[j]) + 1) > 0
            if not present.all():
                out[:, j] = (np.cumsum(present) - 1).astype(np.int8)[out[:, j]]
        if present.sum() > max_states:
            return None  # the column-by-column path raises the error
        all_states.append(tuple(int(low[j]) + int(t) for t in np.flatnonzero(present)))
    return out, all_states


def _given_states(name: Hashable, given: Any) -> list:
    """The states given for a column, as a list; a clear error for a list that cannot be one."""
    if isinstance(given, (str, bytes)) or not isinstance(given, Iterable):
        raise TreelearnError(
            f"the states given for column {name!r} must be a list of labels, not {given!r}"
        )
    states = [python_scalar(v) for v in given]
    missing = [v for v in states if not isinstance(v, (list, tuple)) and pd.isna(v)]
    if missing:
        raise TreelearnError(
            f"the states given for column {name!r} include the missing value {missing[0]!r}; "
            f"a missing value is not a state: leave it out (see the missing= option)"
        )
    if pd.Index(states, dtype=object, tupleize_cols=False).has_duplicates:
        raise TreelearnError(
            f"the states given for column {name!r} repeat a label: {states}; list each state once"
        )
    return states


def _encode_column(
    name: Hashable, series: pd.Series, max_states: int, given: Sequence | None, unseen: str
) -> tuple[np.ndarray, list, NumericColumnWarning | None]:
    """Codes, states and a note (or ``None``) of one column; raises its problem."""
    if given is not None:
        states = _given_states(name, given)
        return _codes_for_states(name, series, states, unseen), states, None
    note = None
    dtype = series.dtype
    fast = _small_integer_codes(series) if isinstance(dtype, np.dtype) else None
    if fast is not None:
        codes, states = fast
    elif isinstance(dtype, pd.CategoricalDtype):
        states = state_order((), categories=dtype.categories)
        codes = np.asarray(series.cat.codes)
    elif pd.api.types.is_bool_dtype(dtype):
        states = state_order((), boolean=True)
        codes = _codes_for_states(name, series, states, "error")
    else:
        if pd.api.types.is_complex_dtype(dtype):
            raise NumericColumnError(
                f"column {name!r} holds complex numbers: Complex data not supported; give "
                f"categorical values (labels, integers or text)",
                column=name,
            )
        if pd.api.types.is_float_dtype(dtype):
            note = _check_floats(name, series.to_numpy(dtype=float, na_value=np.nan), max_states)
        if pd.api.types.is_object_dtype(dtype):
            _refuse_bools_among_numbers(name, series)
        raw_codes, uniques = pd.factorize(series, use_na_sentinel=True)
        if len(uniques) > max_states:  # an error below; do not sort a million identifiers
            states = list(uniques)
            codes = raw_codes
        else:
            states = state_order(uniques)
            # factorize numbers states by first appearance; remap to the sorted order
            position = {s: i for i, s in enumerate(states)}
            remap = np.array([position[python_scalar(u)] for u in uniques] + [-1], dtype=np.int64)
            if np.array_equal(remap[:-1], np.arange(len(uniques))):
                codes = raw_codes  # already in sorted order
            else:
                codes = remap[raw_codes]  # raw code -1 picks the trailing -1
    if len(states) > max_states:
        raise too_many_states_error(name, dtype, len(states), max_states)
    if len(states) == 0:
        raise no_value_error(name)
    return codes, states, note


def _refuse_bools_among_numbers(name: Hashable, series: pd.Series) -> None:
    """An object column holding ``True``/``False`` beside the numbers 1/0 is refused: Python
    (and pandas' hashing) counts ``True == 1``, so they would merge into one state, whichever
    came first, while scoring keeps a bool apart from a number (:func:`state_positions`)."""
    if pd.api.types.infer_dtype(series, skipna=True) not in (
        "mixed",
        "mixed-integer",
        "mixed-integer-float",
    ):
        return  # one kind of value (C-speed scan); only mixed columns are looked at below
    is_bool = series.map(lambda v: isinstance(v, (bool, np.bool_))).to_numpy(dtype=bool)
    if not is_bool.any():
        return
    others = series[~is_bool]
    numbers = others[
        others.map(lambda v: isinstance(v, (int, float, np.number))).to_numpy(dtype=bool)
    ]  # numbers only: the text "1" does not hash like True
    clash = numbers[numbers.isin([0, 1])]
    if len(clash):
        raise TreelearnError(
            f"column {name!r} holds both booleans and the numbers 0/1 (e.g. "
            f"{python_scalar(series[is_bool].iloc[0])!r} and {python_scalar(clash.iloc[0])!r}), "
            f"which Python counts as equal: give it one kind of value, e.g. "
            f"df[{name!r}].astype(str) or .astype(int)",
            column=name,
            values=[python_scalar(series[is_bool].iloc[0]), python_scalar(clash.iloc[0])],
            hint="give the column one kind of value",
        )


def too_many_states_error(
    name: Hashable, dtype: Any, n_states: int, max_states: int
) -> TooManyStatesError:
    """The problem of a column of ``dtype`` with ``n_states`` distinct values, more than
    ``max_states`` (files and Dask build it from their scans, as :func:`encode` does)."""
    dates = pd.api.types.is_datetime64_any_dtype(dtype)
    numbers = isinstance(dtype, np.dtype) and dtype.kind in "iuf"
    what = "dates" if dates else "values"
    fixes = (
        ("discretize", "drop")
        if dates
        else ("discretize", "drop", "max_states")
        if numbers
        else ("drop", "max_states")
    )
    error = _problem(
        TooManyStatesError,
        name,
        f"column {name!r} has {n_states} distinct {what}, more than the limit of {max_states}",
        fixes,
        n_states=n_states,
    )
    assert isinstance(error, TooManyStatesError)  # _problem builds the class it is given
    return error


def no_value_error(name: Hashable) -> EmptyDataError:
    """The problem of a column without any observed value."""
    error = _problem(
        EmptyDataError, name, f"column {name!r} has no observed value", ("drop", "fill")
    )
    assert isinstance(error, EmptyDataError)  # _problem builds the class it is given
    return error


def distinct_rows(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, group)``: the index of the first row of each distinct row of ``codes``, and
    each row's group (distinct rows numbered in order of first appearance).

    Rows are compared as raw bytes (exact) and hashed by ``pd.factorize``, so there is no
    sort and the numbering is deterministic. Whoever merges identical rows into weighted
    ones (EM, mixtures, sums over completions) calls this.

    >>> first, group = distinct_rows(np.array([[0, 1], [1, -1], [0, 1]]))
    >>> first.tolist(), group.tolist()
    ([0, 1], [0, 1, 0])
    """
    codes = np.ascontiguousarray(codes)
    n, d = codes.shape
    if n == 0 or d == 0:
        return np.arange(min(n, 1)), np.zeros(n, dtype=np.intp)
    keys = codes.view(np.dtype((np.void, codes.dtype.itemsize * d))).ravel()
    group, _ = pd.factorize(keys)
    # groups are numbered in order of first appearance: a row starts one where the running
    # maximum of the group numbers steps up
    first = np.flatnonzero(np.diff(np.maximum.accumulate(group), prepend=-1) > 0)
    return first, group


def code_dtype(max_card: int) -> np.dtype:
    """The smallest signed integer dtype that holds codes ``-1 .. max_card - 1``."""
    for dt in (np.int8, np.int16, np.int32):
        if max_card <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.int64)


def check_column_names(columns: Sequence[Hashable]) -> None:
    """Every column has a name, and no two share one (any table: pandas, Dask, a file)."""
    # (an Index's tolist: the same names, 5x faster than iterating pandas' text Index)
    columns = columns.tolist() if isinstance(columns, pd.Index) else list(columns)
    if not columns:
        raise EmptyDataError("the table has no columns; give at least one column")
    # text or integer names (a matrix's default 0 .. d-1), all distinct: none missing, none
    # repeated (the common case; a pd.isna per name was ~0.9 ms per 1,000 columns)
    if set(map(type, columns)) <= {str, int} and len(set(columns)) == len(columns):
        return
    # a NaN name is unequal to itself: graph algorithms keyed on names would loop forever
    unnamed = [j for j, c in enumerate(columns) if not isinstance(c, tuple) and pd.isna(c)]
    if unnamed:
        raise TreelearnError(
            f"column(s) at position(s) {unnamed} have a missing name ({columns[unnamed[0]]!r}); "
            f"give every column a name, e.g. df.columns = [...]",
            values=[columns[unnamed[0]]],
        )
    index = pd.Index(columns, dtype=object, tupleize_cols=False)
    duplicated = index[index.duplicated()].unique()
    if len(duplicated):
        raise DuplicateColumnError(
            f"duplicate column name(s) {list(duplicated)}; rename them so each column is unique",
            column=duplicated[0],
        )


def check_frame(data: pd.DataFrame, action: str = "learn") -> None:
    """Shape and name checks shared by every entry point (``action``: what the rows are for)."""
    if not isinstance(data, pd.DataFrame):
        raise InputTypeError(
            f"expected a pandas DataFrame, got {type(data).__name__}; "
            f"wrap arrays with pd.DataFrame(array, columns=[...])"
        )
    if data.shape[1] == 0:  # "0 feature(s) ... minimum of 1": scikit-learn's wording
        raise EmptyDataError(
            f"the table has no columns: 0 feature(s) (shape={data.shape}) while "
            f"a minimum of 1 is required; give at least one column"
        )
    check_column_names(data.columns)
    if data.shape[0] == 0:
        raise EmptyDataError(
            f"the table has no rows (columns {list(data.columns)[:10]}); there is nothing to "
            f"{action}"
        )


def missing_summary(missing: np.ndarray, columns: Iterable) -> str:
    """``"column 'a': 3 missing; ..."`` from an ``n x d`` mask or a ``1 x d`` row of counts."""
    counts = np.asarray(missing).sum(axis=0)
    parts = [f"column {c!r}: {int(k)} missing" for c, k in zip(columns, counts) if k]
    return "; ".join(parts)


def missing_values_error(
    n_missing: np.ndarray, columns: Sequence, where: str = ""
) -> MissingValuesError:
    """The error of ``missing="error"``, naming every column with its count of missing values."""
    place = f" in {where}" if where else ""
    first = next((c for c, k in zip(columns, n_missing) if k), None)
    reason = (
        f"missing values found{place} "
        f"({missing_summary(np.asarray(n_missing)[None, :], tuple(columns))})"
    )
    hint = fix_advice(["missing"])
    return MissingValuesError(
        f"{reason}; {hint}", column=first, reason=reason, hint=hint, fixes=("missing",)
    )


def missing_fix(options: Collection[str]) -> str:
    """The fix of missing values (a word of ``TreelearnError.fixes``) by the ``missing=``
    options a learner takes: drop or pairwise, drop or EM, or drop only.

    >>> missing_fix(["error", "drop", "pairwise", "em"]), missing_fix(["error", "drop", "em"])
    ('missing', 'missing_em')
    """
    if "pairwise" in options:
        return "missing"
    return "missing_em" if "em" in options else "missing_drop"


@contextlib.contextmanager
def missing_fixed_by(options: Collection[str]) -> Iterator[None]:
    """A :class:`~treelearn.MissingValuesError` raised inside names the fix the learner
    takes (``options``: its ``missing=`` choices): the readers word it for any learner,
    and ``TreeMixture`` (drop, em) or ``CutsetNetwork`` (drop) were told to pass
    ``missing='pairwise'``, which they refuse, and never told of ``'em'``."""
    try:
        yield
    except MissingValuesError as err:
        word = missing_fix(options)
        if tuple(err.fixes) != ("missing",) or word == "missing" or err.reason is None:
            raise
        hint = fix_advice([word])
        raise MissingValuesError(
            f"{err.reason}; {hint}", column=err.column, reason=err.reason, hint=hint, fixes=(word,)
        ) from None


def unhashable_error(name: Hashable, series: pd.Series) -> InputTypeError:
    """The error for a column whose cells cannot be states (lists, dicts, arrays: unhashable).

    >>> str(unhashable_error("a", pd.Series([[1], [2]])))
    "column 'a' holds list values such as [1]: a state must be a single value (a number, text, a bool, a date); turn them into text (e.g. df['a'].map(str)) or drop the column"
    """
    bad = next((v for v in series if not isinstance(v, Hashable) or _unhashable(v)), None)
    kind = type(bad).__name__ if bad is not None else "unhashable"
    return InputTypeError(
        f"column {name!r} holds {kind} values such as {bad!r:.60}: a state must be a single "
        f"value (a number, text, a bool, a date); turn them into text (e.g. "
        f"df[{name!r}].map(str)) or drop the column",
        column=name,
        values=[bad],
    )


def _unhashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return True
    return False


def encode(
    data: pd.DataFrame,
    *,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
    states: Mapping[Hashable, Sequence] | None = None,
    unseen: Literal["error", "ignore"] = "error",
    sample_weight: Any = None,
) -> Table:
    """Validate ``data`` and encode every column as integer codes.

    Parameters
    ----------
    data : DataFrame of discrete columns. It is never modified.
    missing : ``"error"`` (default) raises :class:`MissingValuesError` naming the
        columns and counts; ``"drop"`` drops incomplete rows; ``"pairwise"``
        keeps them, coding each missing value as ``-1``.
    max_states : the most distinct values a column may have.
    states : optional ``{column: states}`` fixing the states (and their order) of
        some columns; a value outside them is an :class:`UnseenStateError`, or a
        missing value when ``unseen="ignore"``.
    sample_weight : optional weight per row (see :func:`check_sample_weight`).
        Rows of weight zero are left out *before* anything else, as if absent
        (their values are no states, their missing values no error); the other
        weights are kept in ``Table.weights``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = encode(pd.DataFrame({"a": ["y", "x", "y"], "b": [True, False, True]}))
    >>> t.states
    (('x', 'y'), (False, True))
    >>> t.codes.tolist()
    [[1, 1], [0, 0], [1, 1]]
    >>> encode(pd.DataFrame({"a": ["y", "x", "z"]}), sample_weight=[2, 1, 0]).states
    (('x', 'y'),)
    """
    check_frame(data)
    check_missing_policy(missing)
    max_states = check_params({"max_states": max_states, "unseen": unseen}, _ENCODE)["max_states"]
    weights = check_sample_weight(sample_weight, len(data))
    if weights is not None and not (weights > 0).all():
        keep_rows = np.flatnonzero(weights > 0)
        data, weights = data.iloc[keep_rows], weights[keep_rows]
    states = dict(states or {})
    unknown = [c for c in states if c not in data.columns]
    if unknown:
        raise ColumnNotFoundError(
            f"states given for {unknown!r}, which are not columns of the data {list(data.columns)}",
            column=unknown[0],
        )
    columns = tuple(data.columns.tolist())  # (the names iteration gives, at once)
    # every problem of the table is collected and reported in one error at the end
    problems: list[TreelearnError] = []
    # column by column: no n x d boolean frame (it would be as large as a categorical input)
    dtypes = tuple(data.dtypes)  # one per column, in order (one Series, built once)
    if all(isinstance(t, np.dtype) and t.kind in "biu" for t in dtypes):
        n_missing = np.zeros(len(columns), dtype=np.int64)  # numpy ints and bools hold no NaN
    else:
        n_missing = np.array([int(data[c].isna().sum()) for c in columns], dtype=np.int64)
    if n_missing.any():
        if missing == "error":  # the columns are still checked, as with "pairwise"
            problems.append(missing_values_error(n_missing, columns))
        elif missing == "drop":
            keep = np.ones(len(data), dtype=bool)
            for c, k in zip(columns, n_missing):
                if k:
                    keep &= data[c].notna().to_numpy()
            if not keep.any():
                raise EmptyDataError(
                    f"every row has a missing value ({missing_summary(n_missing[None, :], columns)}); "
                    f"missing='drop' leaves no rows: try missing='pairwise'"
                )
            data = data.iloc[np.flatnonzero(keep)]
            weights = None if weights is None else weights[keep]
    whole = None if states else _small_integer_frame(data, max_states, dtypes)
    columns_to_encode: Sequence[Hashable]
    if whole is not None:
        matrix, all_states = whole
        columns_to_encode = []
    else:
        all_states = []
        # codes go straight into the smallest integer matrix that holds them (widened
        # when a column needs it), so encoding never holds d int64 columns at once
        matrix = np.empty((len(data), len(columns)), dtype=np.int8)
        columns_to_encode = columns
    notes = {}
    for j, name in enumerate(columns_to_encode):
        try:
            codes, col_states, note = _encode_column(
                name, data[name], max_states, states.get(name), unseen
            )
        except UnseenStateError:
            raise  # new data against known states: callers re-word it (with_hint)
        except TreelearnError as exc:
            problems.append(exc)
            all_states.append(())
            continue
        except TypeError:
            problems.append(unhashable_error(name, data[name]))
            all_states.append(())
            continue
        if note is not None:
            notes[name] = note
        width = code_dtype(len(col_states))
        if width.itemsize > matrix.dtype.itemsize:
            matrix = matrix.astype(width)
        matrix[:, j] = codes
        all_states.append(tuple(col_states))
    raise_problems(problems)
    for name, dtype, col_states in zip(columns, dtypes, all_states):
        note = notes.get(name) or (
            None if name in states else many_values_note(name, dtype, col_states)
        )
        if note is not None:
            warnings.warn(note, stacklevel=2)
    return Table(
        codes=matrix, columns=columns, states=tuple(all_states), dtypes=dtypes, weights=weights
    )


def discretize(
    data: pd.DataFrame,
    bins: int = 5,
    strategy: Literal["quantile", "uniform"] = "quantile",
    columns: Sequence[Hashable] | None = None,
) -> pd.DataFrame:
    """Return a copy of ``data`` with numeric and date columns cut into ordered categorical bins.

    Parameters
    ----------
    data : pandas.DataFrame
        The table (never modified).
    bins : int, default=5
        Number of bins per column (quantile bins that coincide are merged), at most
        :data:`MAX_BINS` (10,000): each bin is a state of the column.
    strategy : {"quantile", "uniform"}, default="quantile"
        ``"quantile"`` (equal counts) or ``"uniform"`` (equal widths).
    columns : sequence of hashable, default=None
        The columns to cut; default: every float and datetime column, and every
        integer column with more than ``bins`` distinct values.

    Notes
    -----
    The new columns are ordered ``Categorical`` whose labels are the bins, written
    once for every cut in treelearn (:class:`~treelearn.Discretizer`, the command
    line's ``--discretize``): ``"(-inf, 0.25]"``, ``"(0.25, 0.5]"``, ..., ``"(0.9, inf)"``,
    the edges rounded to the fewest significant digits (3 at least) that keep them
    apart, and the values cut at the rounded edges, so a label says exactly what its
    bin holds. Dates are cut by time, the edges rounded to whole days (hours, minutes,
    seconds when days would merge two edges): ``"(-inf, 2024-02-15]"``,
    ``"(2024-02-15, inf)"``. Missing values stay missing. A model learned on the
    result reads its bins back from these labels, so it takes raw numbers and dates
    for those columns (scores, predictions, query evidence) and bins them. Inside
    cross-validation use a :class:`~treelearn.Discretizer` in a pipeline instead (bins
    learned from the training rows only).

    Returns
    -------
    pandas.DataFrame
        A copy of ``data`` (never modified), the cut columns ordered ``Categorical``.

    See Also
    --------
    Discretizer : the same as a scikit-learn transformer (bins learned by ``fit``).
    clg_tree : a model of the numbers themselves.

    Examples
    --------
    >>> import pandas as pd
    >>> out = discretize(pd.DataFrame({"x": [0.1, 0.2, 0.3, 0.4]}), bins=2)
    >>> out["x"].tolist()
    ['(-inf, 0.25]', '(-inf, 0.25]', '(0.25, inf)', '(0.25, inf)']
    >>> days = pd.DataFrame({"t": pd.date_range("2024-01-01", periods=4, freq="7D")})
    >>> discretize(days, bins=2)["t"].tolist()
    ['(-inf, 2024-01-11]', '(-inf, 2024-01-11]', '(2024-01-11, inf)', '(2024-01-11, inf)']
    """
    check_frame(data)
    bins = check_params(
        {"bins": bins, "strategy": strategy},
        _DISCRETIZE,
        {"bins": f"each bin is a state; cut into at most {MAX_BINS:,} bins"},
    )["bins"]
    if columns is None:
        columns = [
            c
            for c in data.columns
            if pd.api.types.is_float_dtype(data[c].dtype)
            or pd.api.types.is_datetime64_any_dtype(data[c].dtype)
            or (
                pd.api.types.is_integer_dtype(data[c].dtype)
                and not pd.api.types.is_bool_dtype(data[c].dtype)
                and data[c].nunique() > bins
            )
        ]
    out = data.copy()
    for c in columns:
        if c not in data.columns:
            raise ColumnNotFoundError(f"{c!r} is not a column of the data to discretize")
        out[c] = cut_column(c, data[c], bins, strategy)
    return out


def cut_column(name: Hashable, values: pd.Series, bins: int, strategy: str) -> pd.Categorical:
    """One numeric or datetime column cut into ``bins`` bins, labelled by
    :func:`~treelearn.encoding._bins.bin_labels` (the labels a model reads its bins from)."""
    dates = pd.api.types.is_datetime64_any_dtype(values.dtype)
    if not dates and (
        not pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype)
    ):
        raise NumericColumnError(
            f"column {name!r} has dtype {values.dtype}, not numbers or dates; only numeric and "
            f"datetime columns can be discretized",
            column=name,
        )
    if dates:
        numbers = values.to_numpy(dtype="datetime64[ns]").astype(np.int64).astype(float)
        numbers[values.isna().to_numpy()] = np.nan
    else:
        numbers = values.to_numpy(dtype=float, na_value=np.nan)
    if np.isinf(numbers).any():
        raise NumericColumnError(
            f"column {name!r} has infinite values, which fall in no bin; replace them "
            f"(e.g. with NaN for missing) before discretizing",
            column=name,
        )
    observed = numbers[~np.isnan(numbers)]
    if len(observed) == 0:
        raise NumericColumnError(f"column {name!r} has no values to cut into bins", column=name)
    edges = cut_edges(observed, bins, strategy, dates)
    bins_ = Bins(edges=edges, dates=dates, labels=tuple(bin_labels(edges, dates)))
    return pd.Categorical.from_codes(
        bins_.codes(numbers), dtype=pd.CategoricalDtype(list(bins_.labels), ordered=True)
    )
