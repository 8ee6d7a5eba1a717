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
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._base.errors import (
    ColumnNotFoundError,
    EmptyDataError,
    FeatureMismatchError,
    InputTypeError,
    NumericColumnError,
    ResourceLimitError,
    TreelearnError,
)
from .._base.jsonvalues import encode_label
from .._base.limits import check_memory
from .._base.persistence import Persistent, SavedState
from .._base.validation import InstanceOf, Interval, Options, check_params
from ._bins import bin_labels, cut_edges, round_edges, time_edges
from ._mdl import mdl_cut_points
from ._table import MAX_BINS, CategoricalTableInput, check_sample_weight

__all__ = ["Discretizer", "mdl_discretizer"]


#: about what one bin's label ("(1.25, 2.5]", a Python str) takes
_LABEL_BYTES = 100


def _is_datetime(series: pd.Series) -> bool:
    return pd.api.types.is_datetime64_any_dtype(series.dtype)


def _numbers(series: pd.Series) -> np.ndarray:
    """The column as float64 (datetimes as nanoseconds since the epoch), NaN for missing."""
    if _is_datetime(series):
        values = series.to_numpy(dtype="datetime64[ns]").astype(np.int64).astype(float)
        values[series.isna().to_numpy()] = np.nan
        return values
    return series.to_numpy(dtype=float, na_value=np.nan)


def _timezone(series: pd.Series) -> str | None:
    """The time zone of a date column (``None``: naive dates, or not dates)."""
    tz = getattr(series.dtype, "tz", None)
    return None if tz is None else str(tz)


def _class_codes(y: Any, n_rows: int) -> np.ndarray:
    """The class labels ``y`` as codes ``0 .. k - 1`` (``-1``: missing), checked."""
    if y is None:
        raise TreelearnError(
            "strategy='mdl' cuts where the class changes: give the class labels, fit(X, y)"
        )
    labels = pd.Series(np.asarray(y, dtype=object) if not isinstance(y, pd.Series) else y)
    if labels.ndim != 1 or len(labels) != n_rows:
        raise TreelearnError(
            f"X has {n_rows} rows but y has {len(labels)} labels; give one label per row"
        )
    codes, _ = pd.factorize(labels, sort=False)
    return np.asarray(codes, dtype=np.intp)


def _mdl_edges(
    all_values: np.ndarray,
    observed: np.ndarray,
    classes: np.ndarray,
    weights: np.ndarray | None,
    dates: bool,
) -> np.ndarray:
    """The MDL cut points of one column, rounded as the other strategies' edges (every
    training value kept in the bin the exact cut points put it in)."""
    cuts = mdl_cut_points(all_values, classes, weights)
    if not len(cuts):
        return cuts
    if dates:
        return np.unique(time_edges(cuts, float(observed.min()), float(observed.max())))
    return np.unique(round_edges(cuts, observed))


class Discretizer(Persistent, CategoricalTableInput, TransformerMixin, BaseEstimator):
    """Cut numeric and datetime columns into ordered categorical bins learned from the training rows.

    Parameters
    ----------
    bins : int, default=5
        The number of bins per column, at most ``MAX_BINS`` (10,000, as
        :func:`treelearn.discretize`; quantile edges that coincide are merged, so a
        column may get fewer).
    strategy : {"quantile", "uniform", "mdl"}, default="quantile"
        ``"quantile"`` (equal counts), ``"uniform"`` (equal widths) or ``"mdl"``:
        supervised, the class entropy's cut points accepted by Fayyad and Irani's MDL
        criterion (IJCAI 1993; Weka's supervised ``Discretize``), which needs the class labels
        ``y`` in ``fit`` and ignores ``bins`` (a column no cut pays for is one bin).
    columns : sequence of hashable, default=None
        The columns to cut; default: every float and datetime column, and
        every integer column with more than ``bins`` distinct values (``"mdl"``: every
        column of numbers or dates, by its dtype alone). Other columns pass through
        unchanged.

    Attributes
    ----------
    edges_ : dict of str to ndarray
        ``{column: array}``: the inner cut points (rounded to the fewest
        significant digits, at least 3, that keep them distinct; dates to whole days,
        hours, minutes or seconds, labelled as
        :func:`treelearn.discretize` labels them; the bins are cut at these rounded
        values, so the labels say exactly what each bin holds).
        A value ``v`` goes to the first bin whose upper edge is ``>= v``; values
        below the first or above the last edge go to the end bins.
    categories_ : dict of str to list
        ``{column: [labels]}``, e.g. ``["(-inf, 5.1]", "(5.1, 5.8]", ..., "(6.4, inf)"]``.
    feature_names_in_, n_features_in_ : ndarray, int
        The columns seen in ``fit``.

    Notes
    -----
    ``transform`` returns a DataFrame (a copy; the input is never changed) whose
    cut columns are ordered ``Categorical`` declaring every bin, and missing values
    stay missing. A 2-D array is read as columns ``x0, x1, ...``. In a
    ``ColumnTransformer``, call ``.set_output(transform="pandas")`` on it so the
    categories survive the concatenation.

    See Also
    --------
    discretize : the same cut once, without fit.
    NaiveBayes : ``numbers='mdl'`` bins inside a classifier.

    References
    ----------
    .. [1] Fayyad, U. M. and Irani, K. B. (1993). Multi-interval discretization of
       continuous-valued attributes for classification learning. In Proceedings of the
       13th International Joint Conference on Artificial Intelligence (IJCAI), 1022-1027.

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

    _parameter_constraints: ClassVar[dict] = {
        "bins": [Interval(Integral, 1, None)],
        "strategy": [Options("quantile", "uniform", "mdl")],
        "columns": [None, InstanceOf(list, tuple, name="a list of column names")],
    }

    def __init__(
        self, bins: int = 5, strategy: str = "quantile", columns: Sequence[Hashable] | None = None
    ) -> None:
        self.bins = bins
        self.strategy = strategy
        self.columns = columns

    def _frame(self, X: Any) -> pd.DataFrame:
        if hasattr(X, "tocsr") or hasattr(X, "toarray"):
            raise InputTypeError(
                "a sparse matrix is not supported by the Discretizer: give a "
                "DataFrame or a dense 2-D array of numbers or dates"
            )
        if isinstance(X, pd.DataFrame):
            frame = X
        else:
            array = np.asarray(X)
            if array.ndim != 2:  # "Reshape your data": scikit-learn's wording
                raise TreelearnError(
                    f"X must be 2-D (rows x columns), got shape {array.shape}. Reshape your "
                    f"data: X.reshape(-1, 1) if it is a single column, X.reshape(1, -1) if it "
                    f"is a single row"
                )
            fitted = hasattr(self, "feature_names_in_")
            names = (
                list(self.feature_names_in_) if fitted else [f"x{j}" for j in range(array.shape[1])]
            )
            if len(names) != array.shape[1]:
                raise FeatureMismatchError(
                    f"X has {array.shape[1]} features, but Discretizer is expecting "
                    f"{len(names)} features as input"
                )
            if array.dtype.kind == "c":
                raise InputTypeError(
                    "X holds complex numbers: Complex data not supported; give "
                    "real numbers or dates"
                )
            frame = pd.DataFrame(array, columns=names)
        if frame.shape[0] == 0 or frame.shape[1] == 0:
            what = "feature(s)" if frame.shape[1] == 0 else "sample(s)"
            raise EmptyDataError(
                f"X has 0 {what} (shape={frame.shape}) while a minimum of 1 is "
                f"required by the Discretizer"
            )
        repeated = frame.columns[frame.columns.duplicated()].unique().tolist()
        if repeated:
            raise TreelearnError(
                f"the column name(s) {repeated[:10]} occur more than once; "
                f"give each column its own name",
                column=repeated[0],
            )
        return frame

    def fit(self, X: Any, y: Any = None) -> Discretizer:
        """Learn every cut column's bin edges from ``X`` (``y``, the class labels, only
        with ``strategy="mdl"``; ignored otherwise)."""
        return self._fit(X, y, None)

    def _fit(self, X: Any, y: Any, sample_weight: Any) -> Discretizer:
        params = check_params(self.get_params(deep=False), self._parameter_constraints)
        bins = params["bins"]
        for attr in ("feature_names_in_", "n_features_in_"):
            self.__dict__.pop(attr, None)
        data = self._frame(X)
        supervised = params["strategy"] == "mdl"
        classes = _class_codes(y, len(data)) if supervised else None
        weights = check_sample_weight(sample_weight, len(data)) if supervised else None
        columns = (
            self.columns
            if self.columns is not None
            else [
                c
                for c in data.columns
                if pd.api.types.is_float_dtype(data[c].dtype)
                or _is_datetime(data[c])
                or (
                    pd.api.types.is_integer_dtype(data[c].dtype)
                    and not pd.api.types.is_bool_dtype(data[c].dtype)
                    and (supervised or data[c].nunique() > bins)
                )
            ]
        )
        self.edges_, self.categories_, self.timezones_ = {}, {}, {}
        for c in columns:
            if c not in data.columns:
                raise ColumnNotFoundError(
                    f"{c!r} is not a column of the data to discretize; the columns are "
                    f"{list(data.columns)[:20]}",
                    column=c,
                )
            series = data[c]
            numeric = pd.api.types.is_numeric_dtype(
                series.dtype
            ) and not pd.api.types.is_bool_dtype(series.dtype)
            if not (numeric or _is_datetime(series)):
                raise NumericColumnError(
                    f"column {c!r} has dtype {series.dtype}, not numbers or dates; only those "
                    f"can be discretized: leave it out of columns=",
                    column=c,
                )
            all_values = _numbers(series)
            values = all_values[~np.isnan(all_values)]
            if np.isinf(values).any():
                raise NumericColumnError(
                    f"column {c!r} has infinite values (inf); replace them (e.g. with NaN) first",
                    column=c,
                )
            if np.iscomplexobj(values):
                raise NumericColumnError(
                    f"column {c!r} holds complex numbers: Complex data not supported", column=c
                )
            if len(values) == 0:
                raise NumericColumnError(f"column {c!r} has no values to learn bins from", column=c)
            if classes is not None:
                edges = _mdl_edges(all_values, values, classes, weights, _is_datetime(series))
            else:
                # the edges (several float arrays) and a label of each bin, before any exists
                check_memory(
                    bins * (5 * 8 + _LABEL_BYTES),
                    f"Discretizer(bins={bins}) on column {c!r}",
                    "give fewer bins",
                )
                if bins > MAX_BINS:  # the work (quantiles, labels) grows with the bins
                    raise ResourceLimitError(
                        f"Discretizer(bins={bins}) on column {c!r}: at most {MAX_BINS} bins "
                        f"(as tl.discretize; each bin is a state); give fewer bins",
                        column=c,
                    )
                edges = cut_edges(values, bins, self.strategy, _is_datetime(series))
            self.edges_[c] = edges
            self.timezones_[c] = _timezone(series)
            self.categories_[c] = bin_labels(edges, _is_datetime(series))
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
                f"X lacks the column(s) {absent[:10]} the discretizer was fitted on"
            )
        out = data.copy()
        for c, edges in self.edges_.items():
            self._check_transformable(c, data[c])
            values = _numbers(data[c])
            codes = np.searchsorted(edges, values, side="left")  # v <= edge: that edge's bin
            codes[np.isnan(values)] = -1
            out[c] = pd.Categorical.from_codes(
                codes, dtype=pd.CategoricalDtype(self.categories_[c], ordered=True)
            )
        return out

    def _check_transformable(self, c: Hashable, series: pd.Series) -> None:
        """Numbers or dates, and dates with the time zone (or none) of the training ones:
        naive times compared to edges learned in UTC would shift by the offset."""
        fitted = getattr(self, "timezones_", {}).get(c, "unknown")  # a file from before
        if _is_datetime(series):
            if fitted != "unknown" and _timezone(series) is not None and fitted is None:
                raise NumericColumnError(
                    f"column {c!r} holds times of zone {_timezone(series)}, but the "
                    f"discretizer learned naive times: remove the zone (tz_localize(None))",
                    column=c,
                )
            if fitted not in ("unknown", None) and _timezone(series) is None:
                raise NumericColumnError(
                    f"column {c!r} holds naive times, but the discretizer learned times of "
                    f"zone {fitted}: give them a zone (tz_localize({fitted!r}))",
                    column=c,
                )
        elif not (
            pd.api.types.is_numeric_dtype(series.dtype)
            and not pd.api.types.is_bool_dtype(series.dtype)
        ):
            raise NumericColumnError(
                f"column {c!r} has dtype {series.dtype}, not numbers or dates, but the "
                f"discretizer cuts it: give its numbers",
                column=c,
            )

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The output columns: the input columns, in order (binning keeps the names)."""
        check_is_fitted(self)
        return self.feature_names_in_.copy()

    # ------------------------------------------------------------ saving
    def _fitted_state(self) -> dict:
        # edges of a date column are nanoseconds since the epoch, as transform compares them
        zones = getattr(self, "timezones_", {})
        return {
            "cuts": [
                {
                    "column": encode_label(c),
                    "edges": [float(e) for e in edges],
                    "categories": list(self.categories_[c]),
                    **({"timezone": zones[c]} if c in zones else {}),
                }
                for c, edges in self.edges_.items()
            ]
        }

    def _restore_fitted(self, saved: SavedState) -> None:
        if not hasattr(self, "feature_names_in_"):
            raise saved.fail("feature_names", "is missing")
        features = list(self.feature_names_in_)
        raw = saved.raw("cuts", list)
        self.edges_, self.categories_, self.timezones_ = {}, {}, {}
        for i, cut in enumerate(raw):
            if not isinstance(cut, dict):
                raise saved.fail("cuts", f"entry {i} is not an object")
            column = saved.labels_in([cut.get("column")], "cuts")[0]
            if column not in features or column in self.edges_:
                raise saved.fail("cuts", f"entry {i} cuts {column!r}, not a feature cut once")
            edges = saved.array("cuts", value=cut.get("edges"), shape=(None,))
            labels = cut.get("categories")
            if (np.diff(edges) <= 0).any():
                raise saved.fail(
                    "cuts", f"column {column!r}: the edges must be increasing finite numbers"
                )
            if (
                not isinstance(labels, list)
                or len(labels) != len(edges) + 1
                or not all(isinstance(v, str) for v in labels)
                or len(set(labels)) != len(labels)
            ):
                raise saved.fail(
                    "cuts",
                    f"column {column!r}: one distinct text label per bin "
                    f"({len(edges) + 1}) is needed",
                )
            zone = cut.get("timezone")
            if zone is not None and not isinstance(zone, str):
                raise saved.fail("cuts", f"column {column!r}: the time zone must be a text")
            self.edges_[column] = edges
            self.categories_[column] = labels
            if "timezone" in cut:  # a file from before has none: times are not checked
                self.timezones_[column] = zone


def mdl_discretizer(
    X: Any, y: Any, columns: Sequence[Hashable], sample_weight: Any = None
) -> Discretizer:
    """``Discretizer(strategy="mdl", columns=columns)`` fitted on ``X`` and the class
    labels ``y`` with row weights (``sample_weight``: the MDL criterion counts each row by
    its weight, so whole weights are repeated rows; ``Discretizer.fit`` itself takes none,
    as its other strategies would ignore them)."""
    return Discretizer(strategy="mdl", columns=list(columns))._fit(X, y, sample_weight)
