"""Bins of numeric and date columns: the one labelling, and the way back from raw values.

A cut column's states are interval labels in one canonical form, written by
:func:`bin_labels` for :func:`treelearn.discretize`, :class:`treelearn.Discretizer` and
the command line's ``--discretize`` alike::

    (-inf, 4.8]   (4.8, 5.6]   (5.6, inf)          numbers (one bin: "(-inf, inf)")
    (-inf, 2024-01-05]   (2024-01-05, inf)          dates, at whole days (hours, ...)

The inner edges are rounded to the fewest significant digits (3 at least) that keep
them distinct, and the values are cut at the rounded edges, so a label says exactly
what its bin holds: ``v`` goes to the first bin whose upper edge is ``>= v``.

Because the labels *are* the edges, a model whose variable has such states knows
its bins (:func:`bins_of` reads them back, and only labels that :func:`bin_labels`
would write count): its scores, predictions, queries and the command line take raw
numbers and dates for that variable and bin them (:func:`codes_of_values`,
:func:`bin_code`), and sampling can draw numbers within the bins
(:meth:`Bins.numbers`). No scikit-learn here: the command line's tree commands
import this module.

>>> b = bins_of(("(-inf, 4.8]", "(4.8, 5.6]", "(5.6, inf)"))
>>> b.edges.tolist(), bin_code(b, 5.1), bin_code(b, "7"), bin_code(b, 4.8)
([4.8, 5.6], 1, 2, 0)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "Bins",
    "bin_code",
    "bin_labels",
    "binned_numbers",
    "bins_of",
    "codes_of_values",
    "cut_edges",
    "edge_label",
    "round_edges",
    "time_edges",
    "time_label",
]

#: the units dates are rounded to for bin edges, coarsest first (nanoseconds)
_TIME_UNITS = (86_400 * 10**9, 3_600 * 10**9, 60 * 10**9, 10**9)


def time_edges(
    edges: np.ndarray, low: float | None = None, high: float | None = None
) -> np.ndarray:
    """Cut points in nanoseconds since the epoch, rounded to the coarsest of whole days,
    hours, minutes and seconds that keeps them distinct and (given the first and last
    date ``low`` and ``high``) within ``[low, high)``, else left as they are: the labels of
    date bins are then short and say exactly what each bin holds.

    >>> day = 86_400 * 10**9
    >>> (time_edges(np.array([1.2 * day, 3.7 * day])) / day).tolist()
    [1.0, 4.0]
    >>> (time_edges(np.array([0.1 * day]), low=0.0, high=0.2 * day) / 3_600e9).tolist()
    [2.0]
    """
    edges = np.unique(np.asarray(edges, dtype=float))
    low = -np.inf if low is None else low
    high = np.inf if high is None else high
    for unit in _TIME_UNITS:
        # half-way rounds down: an edge midway between two days keeps the earlier day in
        # the earlier bin, as the unrounded edge did (bins are closed on the right)
        rounded = np.ceil(edges / unit - 0.5) * unit
        # an edge above the first date must stay above it (else its first bin would shrink
        # to the first date alone); an edge at the first date (ties) may stay there
        inside = np.where(edges > low, rounded > low, rounded >= low) & (rounded < high)
        if len(np.unique(rounded)) == len(edges) and inside.all():
            return rounded
    return edges


def time_label(ns: float) -> str:
    """A date (nanoseconds since the epoch) as short as it can be written exactly.

    >>> time_label(pd.Timestamp("2024-03-01").value), time_label(pd.Timestamp("2024-03-01 12:30").value)
    ('2024-03-01', '2024-03-01 12:30')
    """
    ts = pd.Timestamp(int(ns))
    if ts == ts.normalize():
        return ts.strftime("%Y-%m-%d")
    if ts.second == 0 and ts.microsecond == 0 and ts.nanosecond == 0:
        return ts.strftime("%Y-%m-%d %H:%M")
    if ts.microsecond == 0 and ts.nanosecond == 0:
        return ts.strftime("%Y-%m-%d %H:%M:%S")
    return str(ts)


def round_edges(edges: np.ndarray, values: np.ndarray | None = None) -> np.ndarray:
    """The edges at the fewest significant digits (3 at least) that keep them distinct and,
    given the training ``values``, put every one in the bin the exact edges put it in (400
    values in [1000, 1001) cut at 1000.5 must not be cut at 1.00e3, which empties a bin).

    >>> round_edges(np.array([9.709000000000001, 15.656])).tolist()
    [9.71, 15.7]
    >>> round_edges(np.array([1000.5]), np.array([1000.2, 1000.7])).tolist()
    [1000.5]
    """
    # without values there is no bin to keep: an empty array's bins always agree
    kept = np.empty(0) if values is None else values
    exact = np.searchsorted(edges, kept, side="left")
    for digits in range(3, 18):
        rounded = np.array([float(f"{e:.{digits}g}") for e in edges])
        if len(np.unique(rounded)) == len(edges) and np.array_equal(
            np.searchsorted(rounded, kept, side="left"), exact
        ):
            return rounded
    return np.asarray(edges, dtype=float)


def edge_label(edge: float, dates: bool = False) -> str:
    """One edge as written in labels: a date, a whole number without ``.0``, else ``repr``.

    >>> edge_label(5.0), edge_label(0.25), edge_label(pd.Timestamp("2024-01-05").value, True)
    ('5', '0.25', '2024-01-05')
    """
    if dates:
        return time_label(edge)
    edge = float(edge)
    return repr(edge).removesuffix(".0") if edge.is_integer() else repr(edge)


def bin_labels(edges: Iterable[float], dates: bool = False) -> list[str]:
    """The labels of the bins cut at ``edges``: ``(-inf, e1]``, ``(e1, e2]``, ..., ``(ek, inf)``.

    >>> bin_labels([2.5]), bin_labels([])
    (['(-inf, 2.5]', '(2.5, inf)'], ['(-inf, inf)'])
    """
    ends = ["-inf", *(edge_label(e, dates) for e in edges), "inf"]
    return [f"({lo}, {hi}]" if hi != "inf" else f"({lo}, {hi})" for lo, hi in pairwise(ends)]


def cut_edges(values: np.ndarray, bins: int, strategy: str, dates: bool = False) -> np.ndarray:
    """The inner edges of ``bins`` quantile (equal counts) or uniform (equal widths) bins
    of the observed ``values`` (no NaN; dates as nanoseconds), rounded
    (:func:`round_edges`, :func:`time_edges`). Edges that coincide are merged and an
    edge at the largest value is left out (its bin would be empty), so a constant column
    is one bin.

    >>> cut_edges(np.array([1.0, 2.0, 3.0, 4.0]), 2, "quantile").tolist()
    [2.5]
    >>> cut_edges(np.array([1.5, 1.5]), 3, "quantile").tolist()
    []
    """
    low, high = float(values.min()), float(values.max())
    if strategy == "quantile":
        edges = np.quantile(values, np.linspace(0, 1, bins + 1)[1:-1])
    else:
        edges = np.linspace(low, high, bins + 1)[1:-1]
    edges = np.unique(edges[edges < high])
    edges = time_edges(edges, low, high) if dates else round_edges(edges, values)
    return np.unique(edges)


@dataclass(frozen=True, eq=False)
class Bins:
    """The bins of one variable: the inner ``edges`` (dates: nanoseconds since the
    epoch), whether they are ``dates``, and the ``labels`` (the variable's states)."""

    edges: np.ndarray
    dates: bool
    labels: tuple

    def codes(self, values: np.ndarray) -> np.ndarray:
        """Bin codes of numbers (dates: nanoseconds), ``-1`` for NaN."""
        values = np.asarray(values, dtype=float)
        codes = np.searchsorted(self.edges, values, side="left")  # v <= edge: that edge's bin
        codes[np.isnan(values)] = -1
        return codes

    def numbers(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A number drawn uniformly within each code's bin. The end bins are open
        (``(-inf, e1]``, ``(ek, inf)``): they are given the width of their inner
        neighbour, so ``(-inf, e1]`` draws from ``(e1 - (e2 - e1), e1]`` and ``(ek, inf)``
        from ``(ek, ek + (ek - ek-1)]``. With one edge (two bins, no inner bin) the width is
        1 (a day for dates); a variable of one bin has no width: 0 is drawn. The model keeps
        the edges only (they are its states' labels), not the training data's range within
        each bin, so numbers beyond the neighbour's width are never drawn. Dates come back
        as ``datetime64[ns]``.

        >>> b = bins_of(("(-inf, 1]", "(1, 3]", "(3, inf)"))
        >>> x = b.numbers(np.array([0, 1, 2]), np.random.default_rng(0))
        >>> bool(-1 <= x[0] <= 1 < x[1] <= 3 < x[2] <= 5)
        True
        """
        e = self.edges
        if len(e) == 0:
            out = np.zeros(len(codes))
        else:
            inner = np.diff(e)
            unit = 86_400e9 if self.dates else 1.0  # one edge: a day, or 1
            first = inner[0] if len(inner) else unit
            last = inner[-1] if len(inner) else unit
            lows = np.concatenate([[e[0] - first], e])
            highs = np.concatenate([e, [e[-1] + last]])
            u = rng.random(len(codes))
            # within (low, high]: 1 - u is in (0, 1]
            out = highs[codes] - u * (highs[codes] - lows[codes])
        if self.dates:
            return np.round(out).astype(np.int64).astype("datetime64[ns]")
        return out


_LABEL = re.compile(r"\((-inf|[^,]+), (inf\)|[^,]+\])\Z")


@functools.lru_cache(maxsize=1024)
def _bins_of_labels(states: tuple) -> Bins | None:
    uppers = []
    for s in states:
        m = _LABEL.match(s)
        if m is None:
            return None
        uppers.append(m.group(2)[:-1])
    inner = uppers[:-1]
    for dates in (False, True):
        try:
            if dates:
                edges = np.array([pd.Timestamp(u).value for u in inner], dtype=float)
            else:
                edges = np.array([float(u) for u in inner], dtype=float)
        except (ValueError, TypeError, OverflowError):
            continue
        if bin_labels(edges, dates) == list(states):  # only the canonical form counts
            return Bins(edges=edges, dates=dates, labels=states)
    return None


def bins_of(states: Sequence) -> Bins | None:
    """The :class:`Bins` a variable's states spell, or ``None`` where they are not bin
    labels exactly as :func:`bin_labels` writes them.

    >>> bins_of(["(-inf, 2024-01-05]", "(2024-01-05, inf)"]).dates
    True
    >>> bins_of(["(-inf, 1]", "(2, inf)"]) is None, bins_of(["a", "b"]) is None
    (True, True)
    """
    if not states or not isinstance(states[0], str) or not states[0].startswith("(-inf, "):
        return None
    states = tuple(states)
    if not all(isinstance(s, str) for s in states):
        return None
    return _bins_of_labels(states)


def _number(bins: Bins, value: Any) -> float | None:
    """``value`` as a number on the bins' axis (dates: nanoseconds), or ``None``."""
    if isinstance(value, (bool, np.bool_)) or value is None:
        return None
    if bins.dates:
        try:
            ts = pd.Timestamp(value)
        except (ValueError, TypeError, OverflowError):
            return None
        return None if ts is pd.NaT else float(ts.value)
    if isinstance(value, str):
        try:
            return float(value) if value.strip() else None
        except ValueError:
            return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return None if np.isnan(number) else number


def bin_code(bins: Bins, value: Any) -> int | None:
    """The bin of one raw value (a number, a date or their text), or ``None`` if it is
    none of them. Text equal to a label is that label's bin."""
    if isinstance(value, str) and value in bins.labels:
        return bins.labels.index(value)
    number = _number(bins, value)
    return None if number is None else int(bins.codes(np.array([number]))[0])


def codes_of_values(bins: Bins, series: pd.Series) -> np.ndarray | None:
    """Bin codes of a column of raw numbers or dates (``-1`` where missing), or ``None``
    when the column holds neither (its values are then matched to the labels).
    A text column whose values are labels or numbers is taken value by value."""
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return None
    if pd.api.types.is_datetime64_any_dtype(dtype):
        if not bins.dates:
            return None
        ns = series.to_numpy(dtype="datetime64[ns]").astype(np.int64).astype(float)
        ns[series.isna().to_numpy()] = np.nan
        return bins.codes(ns)
    if pd.api.types.is_numeric_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype):
        if bins.dates:
            return None
        return bins.codes(series.to_numpy(dtype=float, na_value=np.nan))
    if isinstance(dtype, pd.CategoricalDtype):
        return None
    # object / text: labels, numbers and their text; one look-up per distinct value
    raw, uniques = pd.factorize(series, use_na_sentinel=True)
    found = np.array([bin_code(bins, u) for u in uniques] + [-1], dtype=object)
    if any(f is None for f in found):
        return None
    return found.astype(np.int64)[raw]


def binned_numbers(
    frame: pd.DataFrame,
    codes: np.ndarray,
    variables: Sequence,
    states: Mapping,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """``frame`` (sampled rows, decoded) with each binned variable's labels replaced by
    numbers drawn uniformly within each row's bin (:meth:`Bins.numbers`), in ``variables``'
    order; ``codes[:, j]`` are variable ``j``'s bin codes. What every model's
    ``sample(numbers=True)`` does.

    >>> frame = pd.DataFrame({"x": ["(-inf, 1]", "(1, inf)"], "c": ["a", "b"]})
    >>> out = binned_numbers(frame, np.array([[0, 0], [1, 1]]), ["x", "c"],
    ...                      {"x": ["(-inf, 1]", "(1, inf)"], "c": ["a", "b"]},
    ...                      np.random.default_rng(0))
    >>> bool(0 <= out["x"][0] <= 1 < out["x"][1] <= 2), out["c"].tolist()
    (True, ['a', 'b'])
    """
    for j, v in enumerate(variables):
        bins = bins_of(states[v])
        if bins is not None:
            frame[v] = bins.numbers(codes[:, j], rng)
    return frame
