"""TreeEngine.family_counts_codes (EM's E-step summed over rows) against brute-force enumeration."""

from __future__ import annotations

import numpy as np
import pytest
from oracles import family_posteriors
from test_family_posteriors import GENERAL, NETWORKS, random_cpts

from treelearn.inference._engine import TreeEngine


@pytest.mark.parametrize("name", [*NETWORKS, *GENERAL])
@pytest.mark.parametrize("cells", [10**6, 25])  # one chunk; chunks of a row or two
def test_weighted_family_counts_equal_enumeration(name, cells):
    parents, card = {**NETWORKS, **GENERAL}[name]
    variables = list(parents)
    rng = np.random.default_rng(11)
    cpts = random_cpts(rng, variables, parents, card)
    engine = TreeEngine(variables, parents, cpts, {v: list(range(card[v])) for v in variables})
    codes = np.array([[rng.integers(-1, card[v]) for v in variables] for _ in range(30)])
    codes[0] = -1
    weights = rng.random(len(codes)) * 3
    log_ev, counts = engine.family_counts_codes(codes, weights, cells=cells)
    want = [np.zeros([card[u] for u in [*parents[v], v]]) for v in variables]
    for r, row in enumerate(codes):
        expect_log, families = family_posteriors(variables, parents, cpts, card, row)
        assert log_ev[r] == pytest.approx(expect_log, abs=1e-10)
        for total, family in zip(want, families):
            total += weights[r] * family
    for got, expected in zip(counts, want):
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


def test_impossible_rows_count_for_nothing_and_weights_default_to_one():
    parents, card = NETWORKS["forest"]
    variables = list(parents)
    cpts = random_cpts(np.random.default_rng(0), variables, parents, card)
    cpts["b"][0] = [1.0, 0.0, 0.0]  # b = 1 is impossible when a = 0
    engine = TreeEngine(variables, parents, cpts, {v: list(range(card[v])) for v in variables})
    codes = np.array([[0, 1, -1, -1, -1, -1], [1, -1, 0, -1, -1, 1]])
    log_ev, counts = engine.family_counts_codes(codes)
    assert log_ev[0] == -np.inf and np.isfinite(log_ev[1])
    _, only = engine.family_counts_codes(codes[1:])
    for a, b in zip(counts, only):
        np.testing.assert_allclose(a, b, atol=1e-15)
    assert counts[0].sum() == pytest.approx(1.0)
