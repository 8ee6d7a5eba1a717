"""Pictures of an explanation: a waterfall for one row, a beeswarm or bar summary over many.

Drawn with matplotlib on :func:`treelearn.viz._draw.new_figure` (never pyplot's state), or
into the axes given. Reads an :class:`~treelearn.Explanation` only
(``values``, ``base``, ``prediction``, ``target``, ``data``, ``output``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import InputTypeError, TreelearnError
from .._base.validation import Constraint, InstanceOf, Interval, Options, check_params
from ..inference._shapley import Explanation
from ._draw import new_figure

__all__ = ["plot_explanation"]

#: shap's colours: a push up, a push down
_UP, _DOWN = "#e8384f", "#1e88e5"
_OPTIONS: dict[str, list[Constraint]] = {
    "kind": [Options("auto", "waterfall", "beeswarm", "bar")],
    "row": [None, Interval(int, 0, None)],
    "max_features": [Interval(int, 1, None)],
    "ax": [None, InstanceOf(object)],
}
_SCALE = {"log_odds": "log-odds", "log_proba": "log P", "proba": "P"}


def plot_explanation(
    explanation: Explanation,
    row: int | None = None,
    kind: str = "auto",
    max_features: int = 12,
    ax: Any = None,
) -> Any:
    """Draw an explanation; returns the matplotlib Figure.

    Parameters
    ----------
    explanation : Explanation
        What ``explain`` returned (a classifier's or a model's).
    row : int, optional
        The row drawn by a waterfall (its position; default the first).
    kind : {"auto", "waterfall", "beeswarm", "bar"}, default="auto"
        ``"waterfall"`` (one row: from the base value, each feature's contribution in
        turn, largest first, to the prediction), ``"beeswarm"`` (every row: one dot per
        row and feature at its contribution, coloured by the feature's value, features
        by mean absolute contribution), ``"bar"`` (the mean absolute contribution of
        each feature), or ``"auto"``: a waterfall for one row (or when ``row`` is
        given), else a beeswarm.
    max_features : int, default=12
        The most features shown (the rest summed into one line).
    ax : matplotlib.axes.Axes, optional
        Draw into these axes (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not held by pyplot: close it or let it go).

    Raises
    ------
    InputTypeError
        ``explanation`` is not an :class:`Explanation`.

    See Also
    --------
    Explanation : the contributions drawn.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> clf = tl.NaiveBayes().fit(df.drop(columns="either"), df["either"])
    >>> e = clf.explain(df.drop(columns="either").head(20), kind="shapley")
    >>> fig = tl.plot_explanation(e, row=0)
    >>> fig.axes[0].get_xlabel()
    "contribution to log P(either = 'no')"
    >>> len(tl.plot_explanation(e, kind="bar").axes[0].patches)   # one bar per feature
    7
    """
    if not isinstance(explanation, Explanation):
        raise InputTypeError(
            "plot_explanation takes an Explanation (what a classifier's explain(X) returns), "
            f"not {type(explanation).__name__} {explanation!r:.60}"
        )
    params = check_params(
        {"kind": kind, "row": row, "max_features": max_features, "ax": ax}, _OPTIONS
    )
    values = explanation.values
    if values.shape[0] == 0 or values.shape[1] == 0:
        raise TreelearnError("the explanation has no rows or no features to draw")
    if row is not None and row >= len(values):
        raise TreelearnError(
            f"row == {row}, but the explanation has {len(values)} rows "
            f"(row is a position, 0 to {len(values) - 1})"
        )
    kind = params["kind"]
    if kind == "auto":
        kind = "waterfall" if row is not None or len(values) == 1 else "beeswarm"
    if ax is None:
        height = 0.9 + 0.32 * min(values.shape[1] + 1, max_features + 1)
        fig = new_figure((7.0, max(2.5, height)))
        ax = fig.add_subplot(1, 1, 1)
    else:
        fig = ax.figure
    if kind == "waterfall":
        _waterfall(ax, explanation, row or 0, max_features)
    elif kind == "beeswarm":
        _beeswarm(ax, explanation, max_features)
    else:
        _bar(ax, explanation, max_features)
    return fig


def _top(order: list, max_features: int) -> tuple[list, list]:
    return order[:max_features], order[max_features:]


def _waterfall(ax: Any, e: Explanation, r: int, max_features: int) -> None:
    contributions = e.values.iloc[r]
    data = e.data.iloc[r] if r < len(e.data) else pd.Series(dtype=object)
    order = list(contributions.abs().sort_values(ascending=False, kind="stable").index)
    shown, rest = _top(order, max_features - 1 if len(order) > max_features else max_features)
    items = [
        (
            f"{f} = {data.get(f)!s}"
            if f in data.index and pd.notna(data.get(f))
            else f"{f} (unknown)",
            float(contributions[f]),
        )
        for f in shown
    ]
    if rest:
        items.append((f"{len(rest)} other features", float(contributions[rest].sum())))
    items = items[::-1]  # the largest on top
    start = float(e.base.iloc[r])
    lefts = start + np.concatenate([[0.0], np.cumsum([v for _, v in items])[:-1]])
    for y, ((_, v), left) in enumerate(zip(items, lefts)):
        ax.barh(y, v, left=left, color=_UP if v >= 0 else _DOWN, height=0.7)
        ax.text(
            left + v, y, f" {v:+.3g} ", va="center", ha="left" if v >= 0 else "right", fontsize=8
        )
    ax.set_yticks(range(len(items)), [label for label, _ in items], fontsize=8)
    ax.axvline(start, color="0.6", lw=0.8, ls="--")
    end = float(e.prediction.iloc[r])
    ax.axvline(end, color="0.2", lw=0.8)
    target = e.target.iloc[r]
    ax.set_xlabel(f"contribution to {_SCALE.get(e.output, e.output)}({e.target.name} = {target!r})")
    ax.set_title(f"base {start:.3g} \u2192 prediction {end:.3g}", fontsize=9)
    ax.margins(x=0.12)  # room for the labels at the bars' ends
    _tidy(ax)


def _beeswarm(ax: Any, e: Explanation, max_features: int) -> None:
    importance = e.values.abs().mean().sort_values(ascending=False, kind="stable")
    shown = list(importance.index[:max_features])[::-1]
    colours = _value_colours(e.data, shown, len(e.values))
    import matplotlib as mpl

    cmap = mpl.colormaps["coolwarm"]
    for y, f in enumerate(shown):
        x = e.values[f].to_numpy()
        ax.scatter(x, y + _jitter(x), c=cmap(colours[f]), s=9, linewidths=0)
    ax.set_yticks(range(len(shown)), [str(f) for f in shown], fontsize=8)
    ax.axvline(0.0, color="0.6", lw=0.8)
    ax.set_xlabel(
        f"contribution to {_SCALE.get(e.output, e.output)}({e.target.name}) (a dot "
        f"per row; colour: the value, low blue to high red, categories sorted)"
    )
    ax.set_title(f"{e.kind}, {len(e.values)} rows", fontsize=9)
    _tidy(ax)


def _bar(ax: Any, e: Explanation, max_features: int) -> None:
    importance = e.values.abs().mean().sort_values(ascending=False, kind="stable")
    shown = importance.iloc[:max_features][::-1]
    ax.barh(range(len(shown)), shown.to_numpy(), color=_UP, height=0.7)
    ax.set_yticks(range(len(shown)), [str(f) for f in shown.index], fontsize=8)
    ax.set_xlabel(
        f"mean |contribution| to {_SCALE.get(e.output, e.output)} over {len(e.values)} rows"
    )
    _tidy(ax)


def _value_colours(data: pd.DataFrame, features: list, n: int) -> dict:
    """Each feature's values as numbers in [0, 1]: numbers by rank, categories by their
    position among the column's sorted values; 0.5 where unknown or constant."""
    out = {}
    for f in features:
        if f not in data.columns or len(data) != n:
            out[f] = np.full(n, 0.5)
            continue
        column = data[f]
        known = column.notna().to_numpy()
        values = np.full(n, 0.5)
        if known.any():
            if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
                ranks = column[known].rank(method="average").to_numpy()
            else:
                codes = pd.Categorical(column[known].astype(str)).codes.astype(float)
                ranks = codes + 1
            top = ranks.max() - ranks.min()
            values[known] = 0.5 if top == 0 else (ranks - ranks.min()) / top
        out[f] = values
    return out


def _jitter(x: np.ndarray) -> np.ndarray:
    """Deterministic vertical spread: dots close in x (one of 60 bins) are stacked
    alternately up and down, in row order."""
    n = len(x)
    if n < 2:
        return np.zeros(n)
    span = np.ptp(x) or 1.0
    bins = np.floor((x - x.min()) / span * 60).astype(int)
    order = np.lexsort((np.arange(n), bins))
    sorted_bins = bins[order]
    first = np.searchsorted(sorted_bins, sorted_bins, side="left")
    within = np.arange(n) - first  # each dot's place in its bin
    rank = np.empty(n)
    rank[order] = ((within + 1) // 2) * np.where(within % 2 == 1, 1.0, -1.0)
    return 0.35 * rank / max(np.abs(rank).max(), 1.0)


def _tidy(ax: Any) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
