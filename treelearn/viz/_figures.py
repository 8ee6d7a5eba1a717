"""The matplotlib figure every drawing is made on: not pyplot's, shown once in Jupyter.

This module imports matplotlib when it is imported; :func:`treelearn.viz._draw.new_figure`
imports it lazily (``import treelearn`` loads no matplotlib) and turns a missing
matplotlib into an ImportError that says how to install it.
"""

from __future__ import annotations

import io
import os
from typing import Any

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .._base.errors import InputTypeError

__all__ = ["DPI", "NotebookFigure", "agg_figure", "check_axes"]

#: pixels per inch of every drawing on screen and in files saved without ``dpi=``:
#: matplotlib's 100 made a TAN of 7 features 290 x 480 px in a notebook; the sizes in
#: inches follow each drawing's layout, this makes them readable (the CLI saves at 200)
DPI = 150


class NotebookFigure(Figure):
    """A ``Figure`` that shows itself as a PNG in Jupyter, with or without pyplot.

    Drawings are not registered with pyplot (see :func:`agg_figure`), so pyplot's inline
    backend never shows them by itself: a drawing returned as a cell's last line is shown
    once, by IPython's display of the returned value. Where pyplot's inline backend is
    active, IPython's own Figure printer is used (it wins over ``_repr_png_``); where it
    is not (pyplot never imported), this method gives the picture instead of the text
    ``<Figure size ...>``.
    """

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()


def agg_figure(figsize: tuple[float, float]) -> NotebookFigure:
    """A :class:`NotebookFigure` on its own Agg canvas (measures text, saves any format)."""
    fig = NotebookFigure(figsize=figsize, dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def check_axes(ax: Any, argument: str = "ax") -> Axes:
    """``ax`` if it is matplotlib ``Axes``, else an :class:`~treelearn.InputTypeError`
    naming the argument and the fix: a file name given where the axes go
    (``model.draw("tree.png")``) is told to save the returned figure instead (it was
    ``AttributeError: 'str' object has no attribute 'figure'``).

    >>> check_axes("tree.png")
    Traceback (most recent call last):
    ...
    treelearn.InputTypeError: ax must be matplotlib Axes (or None for a new figure), not str 'tree.png'; drawings return a figure: to write a file, save it: .draw().savefig('tree.png')
    """
    if isinstance(ax, Axes):
        return ax
    if isinstance(ax, (str, os.PathLike)):
        fix = f"drawings return a figure: to write a file, save it: .draw().savefig({os.fspath(ax)!r})"
    elif isinstance(ax, Figure):
        fix = "give one of its axes (fig.add_subplot() or fig.axes[0])"
    else:
        fix = "make them with fig.add_subplot(), or leave the argument out"
    raise InputTypeError(
        f"{argument} must be matplotlib Axes (or None for a new figure), not "
        f"{type(ax).__name__} {ax!r:.60}; {fix}"
    )
