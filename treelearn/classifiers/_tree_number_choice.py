"""MixedTAN's choice of each numeric column's part, judged in the feature tree.

:mod:`~treelearn.classifiers._number_choice` judges a column alone: the leave-one-out
``log P(class | column)`` of a Gaussian per class against the column's MDL bins. That is
right for naive Bayes (the column meets the class only), but a TAN column also meets its
tree neighbours: a number that tells the class only together with its neighbour (the
class in ``z - x``, ``x`` alone saying nothing) scores nothing alone, is cut into one
bin, and the tree loses it. :class:`~treelearn.MixedTAN` (``numbers="auto"``) judges
each numeric column ``x`` in the tree instead:

* **the tree**: the feature tree MixedTAN learns with every number Gaussian (its
  structure step; the class-conditional CLG tree of ``numbers="gaussian"``). In a CLG
  tree every child of a Gaussian column is Gaussian, and ``x``'s parent ``p`` is a
  category, a Gaussian or none (the root).
* **the criterion**: the leave-one-out log-probability of the class given ``x`` and the
  columns whose families hold it (its parent ``p`` and its children ``z_j``: its Markov
  blanket given the class, in the tree), ``sum_i w_i log P_{-i}(y_i | x_i, p_i, z_i) /
  sum_i w_i`` (Stone 1974), each part's model learned from the other rows:

  ``P(c, p, x, z) = P(c) P(p | c) P(x | c, p) prod_j P(z_j | c, x)``

  - the Gaussian part: ``x`` given ``(c, p)`` one Gaussian per class and parent state (a
    categorical parent), a per-class linear regression on ``p`` (a Gaussian one) or one
    Gaussian per class (no parent); each child a per-class regression on ``x``;
  - the bins part (``b`` the MDL bin of ``x``): ``b`` given ``(c, p)`` Lidstone-smoothed
    counts (``(n_cpb + alpha) / (n_cp + alpha B)``) under a categorical parent, given
    ``c`` alone under a Gaussian parent or none (a categorical column cannot have a
    Gaussian parent in a CLG network, so the refitted tree cannot keep that edge); each
    child one Gaussian per class and bin;
  - both parts share ``P(c)`` (the class shares) and ``P(p | c)`` (Lidstone counts of a
    categorical parent, one Gaussian per class of a Gaussian one).

  Every Gaussian is the classifier's own family (its ML mean and variance in the
  class, the variance shrunk by ``var_prior`` pseudo-rows to the same family's with the
  classes pooled: a cell's pooled variance, a line's pooled residual variance), so the
  score judges the families MixedTAN will fit; a cell (class and parent state, or class
  and bin) no other row of the class shows takes the class's mean of the column and the
  pooled cell's variance, as the classifier does; a line on a regressor constant in the
  class has slope 0. Two simplifications, both of size ``1e-9``: ``var_smoothing``
  scales the column's own pooled variance (the classifier: the largest of its Gaussian
  columns'), and the classifier's variance floor (``1e-9`` of the class's) is left out.
  ``P(p | c)`` of a Gaussian parent is one Gaussian per class, shrunk the same way. It
  is a conditional log-likelihood (Grossman & Domingos 2004), so a density (the
  Gaussian part) and a probability (the bins) compare; with no parent and no child it
  is the one-column score.
* **closed forms**: every part is a sum of weighted moments per class and cell, so
  leaving row ``i`` out takes ``u_i = min(w_i, 1)`` of its moments out of its own
  class's cells (a weight-``w`` row counts as ``w`` rows, one of them left out, as in
  the one-column score): a few vectorised passes per column (``n x k`` arrays, ``k`` the
  classes), no loop over rows. Judged on the rows where ``x``, ``p`` and every ``z_j``
  are observed, with positive weight; rows whose class has no other such row are left
  out (neither part can predict it). The bins are taken when strictly better.
* **then** the tree is learned again with the chosen parts (the structure step of
  MixedTAN on the binned table): a binned column is categorical and, under a Gaussian
  parent, cannot keep its edge, so the first tree is not a valid CLG tree for the
  choice; the columns kept Gaussian (the ones whose neighbours carry the class) keep the
  weights they had. Every column is judged against the all-Gaussian tree (not against
  the other columns' choices): one pass, independent of the order of the columns.
  Deterministic; no random split, so the same rule in every fold.

References: Stone, M. (1974). Cross-validatory choice and assessment of statistical
predictions. JRSS B 36(2), 111-147. Grossman, D. and Domingos, P. (2004). Learning
Bayesian network classifiers by maximizing conditional likelihood. ICML. Friedman, N.,
Geiger, D. and Goldszmidt, M. (1997). Bayesian network classifiers. Machine Learning 29,
131-163 (the TAN tree). Pérez, A., Larrañaga, P. and Inza, I. (2006). Supervised
classification with conditional Gaussian networks. IJAR 43(1), 1-25 (CLG TAN).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np

__all__ = ["Neighbours", "Variable", "blanket_loo_log_proba"]


@dataclass(frozen=True)
class Neighbours:
    """A numeric column's place in the all-Gaussian feature tree: its parent (``None``:
    the root), whether that parent is Gaussian, and its (Gaussian) children."""

    parent: Hashable | None
    parent_is_numeric: bool
    children: tuple


@dataclass(frozen=True)
class Variable:
    """A column's values on the judged rows: floats (Gaussian) or codes ``0..states-1``
    (categorical, ``states`` their number)."""

    values: np.ndarray
    states: int = 0

    @property
    def numeric(self) -> bool:
        return self.states == 0


class _Rows:
    """The judged rows' classes and weights, and the leave-one-out bookkeeping."""

    def __init__(self, codes: np.ndarray, weights: np.ndarray, k: int) -> None:
        self.codes, self.weights, self.k = codes, weights, k
        self.own = codes[:, None] == np.arange(k)[None, :]  # n x k: the row's class
        self.left = np.minimum(weights, 1.0)  # one row of a weight-w row left out

    def sums(self, cells: np.ndarray, n_cells: int, f: np.ndarray) -> np.ndarray:
        """``n x k``: each class's weighted sum of ``f`` over its rows in row ``i``'s cell,
        row ``i`` (``u_i`` of it) taken out of its own class."""
        table = np.zeros((self.k, n_cells))
        np.add.at(table, (self.codes, cells), self.weights * f)
        return table[:, cells].T - self.own * (self.left * f)[:, None]

    def pooled(self, f: np.ndarray) -> np.ndarray:
        """Every row's sum of ``f`` over the other rows (the classes pooled)."""
        return float((self.weights * f).sum()) - self.left * f

    def pooled_in(self, cells: np.ndarray, n_cells: int, f: np.ndarray) -> np.ndarray:
        """Every row's sum of ``f`` over the other rows in its cell (the classes pooled)."""
        table = np.bincount(cells, weights=self.weights * f, minlength=n_cells)
        return table[cells] - self.left * f


def _log_normal(v: np.ndarray, mean: np.ndarray, var: np.ndarray) -> np.ndarray:
    return -0.5 * (np.log(2 * np.pi * var) + (v - mean) ** 2 / var)


def _moments(n, s1, s2):
    """The mean and the ML variance (``>= 0`` by construction: round-off clipped) of
    weighted sums; ``n <= 0`` gives NaN."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = s1 / n
        return mean, np.clip(s2 / n - mean * mean, 0.0, None)


def _shrunk(variance, n, reference, var_prior: float):
    """``(n variance + var_prior reference) / (n + var_prior)``, as the classifier's
    :func:`~treelearn.stats._class_gaussians.shrunk_variance` (no rows: ``reference``)."""
    if not var_prior:
        return variance
    with np.errstate(invalid="ignore"):
        return (np.where(n > 0, n * variance, 0.0) + var_prior * reference) / (
            np.clip(n, 0.0, None) + var_prior
        )


def _gaussian_in_cells(
    rows: _Rows, v: np.ndarray, cells: np.ndarray, n_cells: int, var_prior, var_smoothing
) -> np.ndarray:
    """``n x k``: ``log N(v_i; mean, var)`` under each class's Gaussian of ``v`` in row
    ``i``'s cell (the classifier's CLG family under a categorical parent, or a root's with
    one cell), learned from the other rows: the ML mean and variance, the variance shrunk
    to the classes pooled in the same cell (the column's pooled variance when no other row
    is in it); a cell the class does not show: the class's mean of the column."""
    one = np.ones_like(v)
    mean, var = _moments(*(rows.sums(cells, n_cells, f) for f in (one, v, v * v)))
    n = rows.sums(cells, n_cells, one)
    zero = np.zeros(len(v), dtype=np.intp)
    class_mean, class_var = _moments(*(rows.sums(zero, 1, f) for f in (one, v, v * v)))
    _, s0 = _moments(*(rows.pooled(f) for f in (one, v, v * v)))
    pooled_n = rows.pooled_in(cells, n_cells, one)
    _, pooled = _moments(
        pooled_n, rows.pooled_in(cells, n_cells, v), rows.pooled_in(cells, n_cells, v * v)
    )
    reference = np.where(pooled_n > 0, pooled, s0)[:, None]
    empty = n <= 0
    mean = np.where(empty, class_mean, mean)
    var = _shrunk(np.where(empty, class_var, var), n, reference, var_prior)
    return _log_normal(v[:, None], mean, var + var_smoothing * s0[:, None])


def _regression(
    rows: _Rows, v: np.ndarray, on: np.ndarray, var_prior: float, var_smoothing: float
) -> np.ndarray:
    """``n x k``: ``log N(v_i; a_c + b_c on_i, var_c)`` under each class's least-squares
    line of ``v`` on ``on`` (the classifier's CLG family under a Gaussian parent), learned
    from the other rows: the ML residual variance shrunk to the classes pooled line's
    (slope 0 when ``on`` is constant)."""
    zero, one = np.zeros(len(v), dtype=np.intp), np.ones_like(v)
    terms = (one, on, v, on * on, on * v, v * v)

    def line(n, sx, sy, sxx, sxy, syy):
        with np.errstate(divide="ignore", invalid="ignore"):
            cxx = np.clip(sxx - sx * sx / n, 0.0, None)
            cxy = sxy - sx * sy / n
            flat = ~(cxx > 1e-12 * np.clip(n, 1.0, None))  # the regressor constant
            slope = np.where(flat, 0.0, cxy / np.where(flat, 1.0, cxx))
            rss = np.clip(syy - sy * sy / n - slope * cxy, 0.0, None)
            return (sy - slope * sx) / n, slope, rss / n

    intercept, slope, var = line(*(rows.sums(zero, 1, f) for f in terms))
    n = rows.sums(zero, 1, one)
    _, _, pooled = line(*(rows.pooled(f) for f in terms))
    _, s0 = _moments(*(rows.pooled(f) for f in (one, v, v * v)))
    var = _shrunk(var, n, pooled[:, None], var_prior)
    mean = intercept + slope * on[:, None]
    return _log_normal(v[:, None], mean, var + var_smoothing * s0[:, None])


def _counts(rows: _Rows, a: np.ndarray, states: int, group: np.ndarray, groups: int, alpha):
    """``n x k``: ``log (n_cga + alpha) / (n_cg + alpha A)`` of row ``i``'s state ``a_i`` in
    its group ``g_i`` (Lidstone), counted on the other rows."""
    one = np.ones(len(a))
    count = rows.sums(group * states + a, groups * states, one)
    total = rows.sums(group, groups, one)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(np.clip(count, 0.0, None) + alpha) - np.log(
            np.clip(total, 0.0, None) + alpha * states
        )


def blanket_loo_log_proba(
    x: np.ndarray,
    bins: np.ndarray,
    n_bins: int,
    parent: Variable | None,
    children: list[np.ndarray],
    codes: np.ndarray,
    weights: np.ndarray,
    k: int,
    *,
    alpha: float,
    var_prior: float,
    var_smoothing: float,
) -> tuple[np.ndarray, np.ndarray]:
    """``log P_{-i}(y_i | x_i, p_i, z_i)`` of every row under the Gaussian part and under
    the bins part of ``x`` (closed forms; the module docstring says the model). Every row
    holds every value; a row whose class has no other weight gets NaN.

    >>> x = np.array([0.0, 1.0, 2.0, 0.5, 1.5, 2.5])
    >>> z = x + np.array([0, 0, 0, 1, 1, 1.0])  # the class in z - x
    >>> g, b = blanket_loo_log_proba(x, np.zeros(6, dtype=int), 1, None, [z],
    ...     np.array([0, 0, 0, 1, 1, 1]), np.ones(6), 2, alpha=1.0, var_prior=1.0,
    ...     var_smoothing=0.0)
    >>> bool(g.mean() > b.mean())
    True
    """
    rows = _Rows(codes, weights, k)
    n_c = rows.sums(np.zeros(len(x), dtype=np.intp), 1, np.ones_like(x))
    rest = rows.pooled(np.ones_like(x))
    with np.errstate(divide="ignore", invalid="ignore"):
        shared = np.log(n_c) - np.log(rest)[:, None]
    zero = np.zeros(len(x), dtype=np.intp)
    if parent is None:
        gaussian = _gaussian_in_cells(rows, x, zero, 1, var_prior, var_smoothing)
        binned = _counts(rows, bins, n_bins, zero, 1, alpha)
    elif parent.numeric:
        p = parent.values
        shared = shared + _gaussian_in_cells(rows, p, zero, 1, var_prior, var_smoothing)
        gaussian = _regression(rows, x, p, var_prior, var_smoothing)
        binned = _counts(rows, bins, n_bins, zero, 1, alpha)
    else:
        p, states = parent.values, parent.states
        shared = shared + _counts(rows, p, states, zero, 1, alpha)
        gaussian = _gaussian_in_cells(rows, x, p, states, var_prior, var_smoothing)
        binned = _counts(rows, bins, n_bins, p, states, alpha)
    for z in children:
        gaussian = gaussian + _regression(rows, z, x, var_prior, var_smoothing)
        binned = binned + _gaussian_in_cells(rows, z, bins, n_bins, var_prior, var_smoothing)
    live = n_c > 0
    out = []
    for part in (gaussian, binned):
        joint = np.where(live, shared + part, -np.inf)
        top = joint.max(axis=1)
        safe = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            norm = np.log(np.exp(joint - safe[:, None]).sum(axis=1)) + safe
            got = joint[rows.own] - norm
        got[~live[rows.own]] = np.nan
        out.append(got)
    return out[0], out[1]
