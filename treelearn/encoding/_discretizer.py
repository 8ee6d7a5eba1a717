"""A scikit-learn transformer that cuts numeric (and datetime) columns into bins.

:func:`treelearn.discretize` cuts a whole table once. Inside cross-validation
that is wrong twice over: the bins would be learned from the test rows too, and
each fold gets different bin labels, which a classifier fitted on one fold has
never seen. :class:`Discretizer` learns the bin edges in ``fit`` (on the
training rows only) and applies them in ``transform``; every output column is an
ordered ``Categorical`` that declares *every* bin, so a classifier learns all of
them as states even when a training fold leaves one empty.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._base.errors import (
    ColumnNotFoundError,
    FeatureMismatchError,
    NumericColumnError,
    TreelearnError,
)
from ._table import CategoricalTableInput, time_edges, time_label

__all__ = ["Discretizer"]


def _is_datetime(series: pd.Series) -> bool:
    return pd.api.types.is_datetime64_any_dtype(series.dtype)


def _numbers(series: pd.Series) -> np.ndarray:
    """The column as float64 (datetimes as nanoseconds since the epoch), NaN for missing."""
    if _is_datetime(series):
        values = series.to_numpy(dtype="datetime64[ns]").astype(np.int64).astype(float)
        values[series.isna().to_numpy()] = np.nan
        return values
    return series.to_numpy(dtype=float, na_value=np.nan)


def _round_edges(edges: np.ndarray) -> np.ndarray:
    """The edges at the fewest significant digits (3 at least) that keep them distinct."""
    for digits in range(3, 18):
        rounded = np.array([float(f"{e:.{digits}g}") for e in edges])
        if len(np.unique(rounded)) == len(edges):
            return rounded
    return edges


def _label(edge: float, datetime: bool) -> str:
    if datetime:
        return time_label(edge)
    return repr(float(edge)).removesuffix(".0") if float(edge).is_integer() else repr(float(edge))


class Discretizer(CategoricalTableInput, TransformerMixin, BaseEstimator):
    """Cut numeric and datetime columns into ordered categorical bins learned from the training rows.

    Parameters
    ----------
    bins : the number of bins per column (quantile edges that coincide are merged,
        so a column may get fewer).
    strategy : ``"quantile"`` (equal counts) or ``"uniform"`` (equal widths).
    columns : the columns to cut; default: every float and datetime column, and
        every integer column with more than ``bins`` distinct values. Other columns
        pass through unchanged.

    Attributes
    ----------
    edges_ : ``{column: array}``: the inner cut points (rounded to the fewest
        significant digits, at least 3, that keep them distinct; dates to whole days,
        hours, minutes or seconds by :func:`treelearn.encoding._table.time_edges`, labelled as
        :func:`treelearn.discretize` labels them; the bins are cut at these rounded
        values, so the labels say exactly what each bin holds).
        A value ``v`` goes to the first bin whose upper edge is ``>= v``; values
        below the first or above the last edge go to the end bins.
    categories_ : ``{column: [labels]}``, e.g. ``["(-inf, 5.1]", "(5.1, 5.8]", ...,
        "(6.4, inf)"]``.
    feature_names_in_, n_features_in_ : the columns seen in ``fit``.

    ``transform`` returns a DataFrame (a copy; the input is never changed) whose
    cut columns are ordered ``Categorical`` declaring every bin, and missing values
    stay missing. A 2-D array is read as columns ``x0, x1, ...``. In a
    ``ColumnTransformer``, call ``.set_output(transform="pandas")`` on it so the
    categories survive the concatenation.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> train = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": ["a", "b", "a", "b"]})
    >>> d = tl.Discretizer(bins=2).fit(train)
    >>> d.categories_["x"]
    ['(-inf, 2.5]', '(2.5, inf)']
    >>> d.transform(pd.DataFrame({"x": [0.0, 9.0], "g": ["a", "a"]}))["x"].tolist()
    ['(-inf, 2.5]', '(2.5, inf)']
    """

    def __init__(self, bins: int = 5, strategy: str = "quantile",
                 columns: Sequence[Hashable] | None = None) -> None:
        self.bins = bins
        self.strategy = strategy
        self.columns = columns

    def _frame(self, X: Any) -> pd.DataFrame:
        if isinstance(X, pd.DataFrame):
            return X
        array = np.asarray(X)
        if array.ndim != 2:
            raise TreelearnError(f"X must be 2-D (rows x columns), got shape {array.shape}")
        names = (list(self.feature_names_in_) if hasattr(self, "feature_names_in_")
                 else [f"x{j}" for j in range(array.shape[1])])
        if len(names) != array.shape[1]:
            raise FeatureMismatchError(
                f"X has {array.shape[1]} columns; the discretizer was fitted on {len(names)}")
        return pd.DataFrame(array, columns=names)

    def fit(self, X: Any, y: Any = None) -> Discretizer:
        """Learn every cut column's bin edges from ``X`` (``y`` is ignored)."""
        if self.strategy not in ("quantile", "uniform"):
            raise TreelearnError(f"strategy must be 'quantile' or 'uniform', not {self.strategy!r}",
                                 values=[self.strategy])
        if isinstance(self.bins, bool) or not isinstance(self.bins, (int, np.integer)) or self.bins < 1:
            raise TreelearnError(f"bins == {self.bins!r}, must be a positive integer",
                                 values=[self.bins])
        for attr in ("feature_names_in_", "n_features_in_"):
            self.__dict__.pop(attr, None)
        data = self._frame(X)
        columns = self.columns if self.columns is not None else [
            c for c in data.columns
            if pd.api.types.is_float_dtype(data[c].dtype) or _is_datetime(data[c])
            or (pd.api.types.is_integer_dtype(data[c].dtype)
                and not pd.api.types.is_bool_dtype(data[c].dtype)
                and data[c].nunique() > self.bins)
        ]
        self.edges_, self.categories_ = {}, {}
        for c in columns:
            if c not in data.columns:
                raise ColumnNotFoundError(
                    f"{c!r} is not a column of the data to discretize; the columns are "
                    f"{list(data.columns)[:20]}", column=c)
            series = data[c]
            numeric = (pd.api.types.is_numeric_dtype(series.dtype)
                       and not pd.api.types.is_bool_dtype(series.dtype))
            if not (numeric or _is_datetime(series)):
                raise NumericColumnError(
                    f"column {c!r} has dtype {series.dtype}, not numbers or dates; only those "
                    f"can be discretized: leave it out of columns=", column=c)
            values = _numbers(series)
            values = values[~np.isnan(values)]
            if np.isinf(values).any():
                raise NumericColumnError(
                    f"column {c!r} has infinite values; replace them (e.g. with NaN) first", column=c)
            if len(values) == 0:
                raise NumericColumnError(f"column {c!r} has no values to learn bins from", column=c)
            if self.strategy == "quantile":
                edges = np.quantile(values, np.linspace(0, 1, self.bins + 1)[1:-1])
            else:
                edges = np.linspace(values.min(), values.max(), self.bins + 1)[1:-1]
            edges = np.unique(edges)
            # dates: whole days (hours...) where that keeps the edges apart
            edges = (time_edges(edges, values.min(), values.max()) if _is_datetime(series)
                     else _round_edges(edges))
            self.edges_[c] = edges
            ends = ["-inf", *(_label(e, _is_datetime(series)) for e in edges), "inf"]
            self.categories_[c] = [
                f"({lo}, {hi}]" if hi != "inf" else f"({lo}, {hi})" for lo, hi in pairwise(ends)
            ]
        names = np.empty(len(data.columns), dtype=object)
        names[:] = list(data.columns)
        self.feature_names_in_ = names
        self.n_features_in_ = len(names)
        return self

    def transform(self, X: Any) -> pd.DataFrame:
        """``X`` with every fitted column replaced by its bins (a new DataFrame)."""
        check_is_fitted(self)
        data = self._frame(X)
        absent = [c for c in self.edges_ if c not in data.columns]
        if absent:
            raise FeatureMismatchError(
                f"X lacks the column(s) {absent[:10]} the discretizer was fitted on")
        out = data.copy()
        for c, edges in self.edges_.items():
            values = _numbers(data[c])
            codes = np.searchsorted(edges, values, side="left")  # v <= edge: that edge's bin
            codes[np.isnan(values)] = -1
            out[c] = pd.Categorical.from_codes(
                codes, dtype=pd.CategoricalDtype(self.categories_[c], ordered=True))
        return out

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The output columns: the input columns, in order (binning keeps the names)."""
        check_is_fitted(self)
        return self.feature_names_in_.copy()
