"""``Bins.numbers`` (``sample(numbers=True)``, ``treelearn sample --numbers``): a number drawn
uniformly within each bin; the open end bins take their inner neighbour's width (the rule
its docstring states), checked by the range and the mean of many draws."""

from __future__ import annotations

import numpy as np

from treelearn.encoding._bins import bins_of


def test_end_bins_take_their_neighbours_width():
    b = bins_of(("(-inf, 1]", "(1, 4]", "(4, 6]", "(6, inf)"))
    rng = np.random.default_rng(0)
    n = 20_000
    for code, (low, high) in enumerate([(-2, 1), (1, 4), (4, 6), (6, 8)]):
        x = b.numbers(np.full(n, code), rng)
        assert low < x.min() and x.max() <= high  # within (low, high]
        # uniform: the mean is the middle, to ~4 standard errors (sd (high-low)/sqrt(12n))
        assert abs(x.mean() - (low + high) / 2) < 4 * (high - low) / np.sqrt(12 * n)
        assert (b.codes(x) == code).all()  # each number falls back into its bin


def test_one_edge_and_dates():
    b = bins_of(("(-inf, 2.5]", "(2.5, inf)"))
    x = b.numbers(np.array([0] * 500 + [1] * 500), np.random.default_rng(1))
    assert ((x[:500] > 1.5) & (x[:500] <= 2.5)).all() and ((x[500:] > 2.5) & (x[500:] <= 3.5)).all()
    d = bins_of(("(-inf, 2024-01-01]", "(2024-01-01, inf)"))
    assert d.dates  # one edge of dates: a day on either side
    t = d.numbers(np.array([0, 1] * 200), np.random.default_rng(2))
    edge = np.datetime64("2024-01-01", "ns")
    day = np.timedelta64(1, "D")
    assert (t[::2] <= edge).all() and (t[::2] >= edge - day).all()
    assert (t[1::2] > edge).all() and (t[1::2] <= edge + day).all()
