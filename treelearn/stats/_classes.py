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

import numpy as np

from ..encoding._table import python_scalar

__all__ = ["align_labels", "spread"]


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
