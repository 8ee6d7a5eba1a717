"""Statistics per class label that add up across chunks of rows.

A file read in chunks or a Dask DataFrame's partitions each see some of the
class labels; their per-class statistics (:class:`~treelearn.stats._gaussian.ClassGaussianStatistics`,
:class:`~treelearn.stats._gaussian.ClassVariances`, :class:`~treelearn.stats._terms.TermCounts`)
are merged class by class. :func:`align_labels` lines two label sets up (the
union, in order of first appearance); the statistics are sorted into the final
class order once, at the end (``reordered``), by the code that checks the labels
(:func:`treelearn.sources._count.class_labels`).

>>> labels, left, right = align_labels(np.array(["b", "a"], dtype=object), np.array(["c", "a"], dtype=object))
>>> labels.tolist(), left.tolist(), right.tolist()
(['b', 'a', 'c'], [0, 1], [2, 1])
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from ..encoding._table import python_scalar

__all__ = ["ClassStatistics", "align_labels", "class_indicator", "label_array", "spread"]


def class_indicator(codes: np.ndarray, k: int, weights: np.ndarray | None = None) -> np.ndarray:
    """The ``n x k`` (weighted) class indicator ``Y``: class sums are products with it
    (dense: ``k`` is small, and dense @ sparse is fast)."""
    Y = np.zeros((len(codes), k))
    Y[np.arange(len(codes)), codes] = 1.0 if weights is None else weights
    return Y


def label_array(classes) -> np.ndarray:
    """The class labels as an array (an object array for a list: labels keep their types)."""
    if isinstance(classes, np.ndarray):
        return classes
    out = np.empty(len(classes), dtype=object)
    out[:] = list(classes)
    return out


def align_labels(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(labels, left, right)``: the union of the label arrays ``a`` and ``b`` (``a``'s
    first, then ``b``'s new ones), and where each label of ``a`` and of ``b`` is in it.

    Labels are compared as Python scalars (``np.int64(1)`` and ``1`` are one label)."""
    position: dict = {}
    for label in [*a.tolist(), *b.tolist()]:
        position.setdefault(python_scalar(label), len(position))
    labels = np.empty(len(position), dtype=object)
    labels[:] = list(position)
    left = np.array([position[python_scalar(v)] for v in a.tolist()], dtype=np.intp)
    right = np.array([position[python_scalar(v)] for v in b.tolist()], dtype=np.intp)
    return labels, left, right


def spread(values: np.ndarray, where: np.ndarray, size: int) -> np.ndarray:
    """``values`` (classes on the first axis) placed at the rows ``where`` of a zero array
    of ``size`` rows: a chunk's statistics on the merged labels (absent classes: zero)."""
    out = np.zeros((size, *values.shape[1:]), dtype=values.dtype)
    out[where] = values
    return out


@dataclass(frozen=True)
class ClassStatistics:
    """What every family of per-class statistics has: the ``variables`` (column names, or
    ``None``), the class labels ``classes``, and per class the ``rows`` seen and their total
    ``weight``. Subclasses add their own arrays, one entry per class on the first axis,
    and name every per-class field in ``per_class``."""

    variables: list | None
    classes: np.ndarray
    rows: np.ndarray
    weight: np.ndarray

    per_class: ClassVar[tuple[str, ...]] = ("classes", "rows", "weight")

    def reordered(self, order: np.ndarray, classes: np.ndarray | None = None):
        """The same statistics with the classes in the order ``order`` (indices), labelled
        ``classes`` (default: their own labels, reordered)."""
        changes = {
            name: getattr(self, name)[order]
            for name in self.per_class
            if getattr(self, name) is not None
        }
        if classes is not None:
            changes["classes"] = classes
        return replace(self, **changes)

    def aligned(self, other: ClassStatistics) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(labels, left, right)`` of :func:`align_labels` on the two sets' classes."""
        return align_labels(self.classes, other.classes)
