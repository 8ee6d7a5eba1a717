"""Pictures of an explanation: a waterfall for one row, a beeswarm or bar summary over many.

Drawn with matplotlib on :func:`treelearn.viz._draw.new_figure` (never pyplot's state), or
into the axes given. Reads an :class:`~treelearn.Explanation` only
(``values``, ``base``, ``prediction``, ``target``, ``data``, ``output``, ``states``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import InputTypeError, TreelearnError
from .._base.validation import Constraint, InstanceOf, Interval, Options, check_params
from ..inference._shapley import Explanation
from ._draw import given_axes, new_figure

__all__ = ["plot_explanation"]

#: shap's colours: a push up, a push down
_UP, _DOWN = "#e8384f", "#1e88e5"
_OPTIONS: dict[str, list[Constraint]] = {
    "kind": [Options("auto", "waterfall", "beeswarm", "bar")],
    "row": [None, Interval(int, 0, None)],
    "max_features": [Interval(int, 1, None)],
    "ax": [None, InstanceOf(object)],
    "target_class": [None, InstanceOf(object, name="a class label")],
}
_SCALE = {"log_odds": "log-odds", "log_proba": "log P", "proba": "P"}


def plot_explanation(
    explanation: Explanation,
    row: int | None = None,
    kind: str = "auto",
    max_features: int = 12,
    ax: Any = None,
    target_class: Any = None,
) -> Any:
    """Draw an explanation; returns the matplotlib Figure.

    Parameters
    ----------
    explanation : Explanation
        What ``explain`` returned (a classifier's or a model's).
    row : int, default=None
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
    ax : matplotlib.axes.Axes, default=None
        Draw into these axes (default: a new figure).
    target_class : , default=None
        The class a beeswarm or bar summarises; ``None``: the one every row explains,
        or for a target of two states the second (the positive class). Rows that
        explain the other state are turned into the positive one exactly on the
        ``log_odds`` and ``proba`` scales (the values negated: ``log_odds(a) =
        -log_odds(b)``, ``P(a) = 1 - P(b)``). Rows explaining several classes otherwise
        are refused, naming the fix (``explain(X, target_class=...)``). The colour bar
        says the feature values' colours.

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
        {
            "kind": kind,
            "row": row,
            "max_features": max_features,
            "ax": ax,
            "target_class": target_class,
        },
        _OPTIONS,
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
    own = ax is None
    if own:
        height = 0.9 + 0.32 * min(values.shape[1] + 1, max_features + 1)
        fig = new_figure((7.0, max(2.5, height)))
        # the tick labels, title and axis label kept inside the figure, whatever their length
        fig.set_layout_engine("constrained")
        ax = fig.add_subplot(1, 1, 1)
    else:
        fig = given_axes(ax).figure
    if kind == "waterfall":
        labels = _waterfall(ax, explanation, row or 0, max_features)
        _fit_labels(ax, labels)
    elif kind == "beeswarm":
        _beeswarm(ax, _one_class(explanation, target_class), max_features)
    else:
        _bar(ax, _one_class(explanation, target_class), max_features)
    return fig


def _one_class(e: Explanation, target_class: Any) -> Explanation:
    """The explanation with every row explaining one class (see :func:`plot_explanation`)."""
    targets = e.target
    seen = list(pd.unique(targets))
    states = tuple(e.states or ())  # () where not recorded
    two = len(states) == 2
    want = target_class
    if want is None:
        want = seen[0] if len(seen) == 1 else (states[1] if two else None)
    if want is not None and all(t == want for t in seen):
        return e
    if want is not None and two and want in states and e.output in ("log_odds", "proba"):
        other = (targets != want).to_numpy()
        sign = np.where(other, -1.0, 1.0)
        shift = np.where(other, 1.0 if e.output == "proba" else 0.0, 0.0)
        return replace(
            e,
            values=e.values.mul(sign, axis=0),
            base=shift + sign * e.base,
            prediction=shift + sign * e.prediction,
            target=pd.Series([want] * len(targets), index=targets.index, name=targets.name),
            standard_error=e.standard_error,
        )
    example = want if want is not None else seen[0]
    why = (
        f"on the {e.output} scale a row explaining one class is no row explaining the other"
        if two
        else "a summary over rows shows one class"
    )
    raise TreelearnError(
        f"these rows explain {len(seen)} classes ({seen[:10]}) and {why}: explain them all "
        f"as one class, e.g. explain(X, ..., target_class={example!r})"
        + (", or with output='log_odds'" if two else ""),
        values=seen[:10],
        hint=f"target_class={example!r}",
    )


def _fit_labels(ax: Any, labels: list) -> None:
    """Widen the x-axis so every value label at a bar's end lies inside the axes (no label
    clipped, none over the tick labels): each label's width in pixels is fixed, so the
    limits that hold them are a fixed point of the data-per-pixel scale."""
    if not labels:
        return
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    fig.canvas.draw()  # the layout engine places the axes first
    widths = np.array([t.get_window_extent(renderer).width for t in labels])
    anchors = np.array([t.get_position()[0] for t in labels])
    right = np.array([t.get_horizontalalignment() == "left" for t in labels])
    low, high = ax.get_xlim()
    core_low, core_high = low, high
    pixels = max(ax.get_window_extent(renderer).width, 1.0)
    for _ in range(20):  # converges fast: the labels take a fraction of the width
        scale = (high - low) / pixels * 1.04  # data per pixel, with a little air
        new_high = max(core_high, float(np.max(np.where(right, anchors + widths * scale, -np.inf))))
        new_low = min(core_low, float(np.min(np.where(right, np.inf, anchors - widths * scale))))
        if np.isclose(new_low, low) and np.isclose(new_high, high):
            break
        low, high = new_low, new_high
        ax.set_xlim(low, high)
        fig.canvas.draw()
        pixels = max(ax.get_window_extent(renderer).width, 1.0)


def _top(order: list, max_features: int) -> tuple[list, list]:
    return order[:max_features], order[max_features:]


def _waterfall(ax: Any, e: Explanation, r: int, max_features: int) -> list:
    """Draw the waterfall of row ``r``; returns the value labels at the bars' ends."""
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
    texts = []
    # a contribution within round-off of 0 (an unknown feature's) is written 0, not 1e-16
    tiny = 1e-9 * max([abs(v) for _, v in items] + [abs(start), 1e-300])
    for y, ((_, v), left) in enumerate(zip(items, lefts)):
        ax.barh(y, v, left=left, color=_UP if v >= 0 else _DOWN, height=0.7)
        texts.append(
            ax.text(
                left + v,
                y,
                f" {v:+.3g} " if abs(v) > tiny else " 0 ",
                va="center",
                ha="left" if v >= 0 else "right",
                fontsize=8,
            )
        )
    ax.set_yticks(range(len(items)), [label for label, _ in items], fontsize=8)
    ax.axvline(start, color="0.6", lw=0.8, ls="--")
    end = float(e.prediction.iloc[r])
    ax.axvline(end, color="0.2", lw=0.8)
    target = e.target.iloc[r]
    ax.set_xlabel(f"contribution to {_SCALE.get(e.output, e.output)}({e.target.name} = {target!r})")
    ax.set_title(f"base {start:.3g} \u2192 prediction {end:.3g}", fontsize=9)
    ax.margins(x=0.02)  # the value labels' room is made by _fit_labels
    _tidy(ax)
    return texts


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
    target = e.target.iloc[0]
    ax.set_xlabel(
        f"contribution to {_SCALE.get(e.output, e.output)}({e.target.name} = {target!r}), "
        "a dot per row"
    )
    ax.set_title(
        f"{e.kind}, {len(e.values)} rows, explaining {e.target.name} = {target!r}", fontsize=9
    )
    bar = ax.figure.colorbar(
        mpl.cm.ScalarMappable(norm=mpl.colors.Normalize(0, 1), cmap=cmap),
        ax=ax,
        fraction=0.04,
        pad=0.02,
        aspect=30,
    )
    bar.set_ticks([0, 1], labels=["low", "high"], fontsize=8)
    bar.set_label("feature value (categories in sorted order)", fontsize=8)
    bar.outline.set_visible(False)
    _tidy(ax)


def _bar(ax: Any, e: Explanation, max_features: int) -> None:
    importance = e.values.abs().mean().sort_values(ascending=False, kind="stable")
    shown = importance.iloc[:max_features][::-1]
    ax.barh(range(len(shown)), shown.to_numpy(), color=_UP, height=0.7)
    ax.set_yticks(range(len(shown)), [str(f) for f in shown.index], fontsize=8)
    ax.set_xlabel(
        f"mean |contribution| to {_SCALE.get(e.output, e.output)}({e.target.name} = "
        f"{e.target.iloc[0]!r}) over {len(e.values)} rows"
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
