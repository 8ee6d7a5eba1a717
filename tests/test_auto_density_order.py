"""AutoDensity's default order of its two slow candidates: the bagged cutset networks
before HCLT exactly when the single cutset network's validation score came within
CLOSE_TO_MIXTURE nats per row of the mixture's (the DEBD sets they win: nltcs, plants);
read from the candidates' own scores, with a fake clock that stops the run after the
fourth candidate (no timing)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
import treelearn.learners._choose as choose


def _table(n: int = 200, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.random(n) < 0.5
    b = np.where(rng.random(n) < 0.2, ~a, a)
    c = np.where(rng.random(n) < 0.3, ~b, b)
    return pd.DataFrame({"a": a.astype(int), "b": b.astype(int), "c": c.astype(int)})


def _one_second_each(monkeypatch) -> None:
    now = [0.0]
    monkeypatch.setattr(choose, "clock", lambda: now[0])
    for name, make in list(choose.CANDIDATES.items()):

        def timed(*args, make=make):
            est = make(*args)
            fit = est.fit

            def slow_fit(*a, **k):
                now[0] += 1.0
                return fit(*a, **k)

            est.fit = slow_fit
            return est

        monkeypatch.setitem(choose.CANDIDATES, name, timed)


@pytest.mark.parametrize(
    ("close", "fourth"), [(np.inf, "BaggedCutsetNetworks"), (-np.inf, "HiddenTree")]
)
def test_the_fourth_candidate_follows_the_cutset_networks_gap(monkeypatch, close, fourth):
    _one_second_each(monkeypatch)
    monkeypatch.setattr(choose, "CLOSE_TO_MIXTURE", close)
    # the tree, the cutset network and the mixture end at 3 s; the fourth starts at 3 < 3.5
    auto = tl.AutoDensity(time_budget=3.5, random_state=0).fit(_table())
    ran = list(auto.candidate_scores_)
    assert ran == ["ChowLiuTree", "CutsetNetwork", "TreeMixture", fourth]
    other = "HiddenTree" if fourth == "BaggedCutsetNetworks" else "BaggedCutsetNetworks"
    assert auto.skipped_ == [other, "BaggedTrees"]


def test_the_gap_is_read_from_the_two_scores():
    slow = ["HiddenTree", "BaggedCutsetNetworks", "BaggedTrees"]
    gap = choose.CLOSE_TO_MIXTURE
    near = {"CutsetNetwork": -10.0, "TreeMixture": -10.0 + gap * 0.99}
    far = {"CutsetNetwork": -10.0, "TreeMixture": -10.0 + gap * 1.01}
    assert choose.slow_candidates_first(near, slow)[:2] == ["BaggedCutsetNetworks", "HiddenTree"]
    assert choose.slow_candidates_first(far, slow) == slow
    # the cutset network better than the mixture: near too
    better = {"CutsetNetwork": -9.0, "TreeMixture": -10.0}
    assert choose.slow_candidates_first(better, slow)[0] == "BaggedCutsetNetworks"
    # a refused cutset network (-inf) or a missing score leaves the order
    refused = {"CutsetNetwork": float("-inf"), "TreeMixture": -10.0}
    assert choose.slow_candidates_first(refused, slow) == slow
    assert choose.slow_candidates_first({"TreeMixture": -10.0}, slow) == slow


def test_a_given_list_keeps_its_order(monkeypatch):
    _one_second_each(monkeypatch)
    monkeypatch.setattr(choose, "CLOSE_TO_MIXTURE", np.inf)
    names = ["CutsetNetwork", "TreeMixture", "HiddenTree", "BaggedCutsetNetworks"]
    auto = tl.AutoDensity(candidates=names, time_budget=2.5, random_state=0).fit(_table())
    assert list(auto.candidate_scores_) == names[:3]
    assert auto.skipped_ == ["BaggedCutsetNetworks"]
