"""Mixed data from any input kind: what a naive Bayes over categorical and Gaussian columns asks for.

The contract: :func:`mixed_statistics_by_class` ``(X, y, *, numeric=None,
sample_weight=None, learner=...) -> MixedStatistics``. Which columns are Gaussian is
decided by their dtype or named (``numeric``; see
:func:`~treelearn.stats._class_gaussians.gaussian_columns`), the others are
categorical; then

* the categorical columns and the class: a :class:`~treelearn.stats._counts.ClassCounts`
  (:func:`~treelearn.sources._count.count_by_class`; ``None`` without categorical columns);
* the Gaussian columns: a :class:`~treelearn.stats._gaussian.ClassVariances`
  (:func:`~treelearn.sources._gaussian.variances_by_class`, missing cells summed out;
  ``None`` without Gaussian columns).

``X`` is

* a DataFrame, or a 2-D array (its columns ``x0, x1, ...``; a float array is all
  Gaussian, an integer one all categorical);
* a Dask DataFrame, ``y`` a Dask Series partitioned like it or the name of its class
  column: the dtypes are the frame's metadata, the statistics come from the workers;
* a CSV/Parquet path, ``y`` the name of its class column: **read whole**, as
  ``count_by_class`` reads a file, because a column's kind is the dtype of the whole
  column, which a chunk of a CSV does not know (an integer column with a missing
  value in a later chunk is float there).

A scipy.sparse matrix and an encoded Table are refused. Rows of weight zero are left
out (their labels are no classes).

>>> import pandas as pd
>>> s = mixed_statistics_by_class(pd.DataFrame({"t": [36.6, 38.9, 37.0], "c": ["n", "y", "n"]}),
...                               pd.Series(["well", "ill", "well"], name="y"))
>>> s.features, s.numeric, s.class_name, s.classes.tolist(), s.class_count.tolist()
(['t', 'c'], ['t'], 'y', ['ill', 'well'], [1, 2])
>>> s.variances.mean.ravel().tolist()
[38.9, 36.8]
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..stats._class_gaussians import gaussian_columns
from ..stats._counts import ClassCounts
from ..stats._gaussian import ClassVariances
from ._count import class_dtype, class_name, count_by_class, labelled_file, target_name
from ._dask import is_dask_series
from ._gaussian import REFUSALS, variances_by_class
from ._kinds import as_frame, by_kind

__all__ = ["MixedStatistics", "mixed_statistics_by_class"]


@dataclass(frozen=True)
class MixedStatistics:
    """The statistics of mixed data: ``features`` (every feature, in ``X``'s order), the
    Gaussian ones ``numeric``, the categorical features' ``counts`` (with the class as
    their last column) and the Gaussian features' ``variances`` (either ``None`` when
    there are no such features), the class node's name and dtype."""

    features: list
    numeric: list
    counts: ClassCounts | None
    variances: ClassVariances | None
    class_name: Hashable
    class_dtype: Any

    @property
    def classes(self) -> np.ndarray:
        """The sorted class labels."""
        return self.counts.classes if self.counts is not None else self.variances.classes

    @property
    def class_count(self) -> np.ndarray:
        """Each class's total weight."""
        return self.counts.class_count if self.counts is not None else self.variances.weight


def mixed_statistics_by_class(X: Any, y: Any, *, numeric: Sequence[Hashable] | None = None,
                              sample_weight: Any = None,
                              learner: str = "a mixed naive Bayes") -> MixedStatistics:
    """The statistics of mixed data from any kind of input (see the module's contract)."""
    def path(source: Any) -> MixedStatistics:
        frame, labels, weights = labelled_file(source, y, sample_weight)
        return _of_columns(frame, labels, weights, numeric)

    def dask(ddf: Any) -> MixedStatistics:
        if not is_dask_series(y) and isinstance(y, (str, int)) and y in list(ddf.columns):
            return _of_columns(ddf.drop(columns=[y]), ddf[y], sample_weight, numeric)
        return _of_columns(ddf, y, sample_weight, numeric)

    return by_kind(X, {
        "path": path,
        "dask": dask,
        "frame": lambda frame: _of_columns(frame, y, sample_weight, numeric),
        "array": lambda array: _of_columns(as_frame(array, learner=learner), y, sample_weight,
                                           numeric),
    }, learner=learner, refusals=REFUSALS)


def _of_columns(X: Any, y: Any, sample_weight: Any,
                numeric: Sequence[Hashable] | None) -> MixedStatistics:
    """The statistics of a pandas or Dask DataFrame ``X`` (a weight column named by
    ``sample_weight`` is no feature)."""
    weight_column = sample_weight if isinstance(sample_weight, (str, int)) else None
    features = [c for c in X.columns if weight_column is None or c != weight_column]
    gaussian = [c for c in gaussian_columns(X, numeric) if c != weight_column]
    wanted = set(gaussian)
    categorical = [c for c in features if c not in wanted]
    counts = variances = None
    if categorical or not gaussian:  # no feature at all: count_by_class's error says so
        extra = [] if weight_column is None else [weight_column]
        counts = count_by_class(X[categorical + extra], y, sample_weight=sample_weight)
        name, dtype = counts.columns[-1], counts.dtypes[-1] if counts.dtypes else None
    if gaussian:
        variances = variances_by_class(X, y, columns=gaussian, sample_weight=sample_weight)
    if counts is None:  # the class alone: its name and dtype from y
        name = class_name(target_name(y), features)
        dtype = class_dtype(getattr(y, "dtype", None), variances.classes)
    return MixedStatistics(features, gaussian, counts, variances, name, dtype)
