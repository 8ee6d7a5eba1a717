"""AutoDensity: its choice equals the argmax of the candidates' validation log-likelihoods
computed independently (each candidate learned afresh with the same options and scored on
the same rows); the time budget respected, read from a fake clock (no timing); the
validation rows it holds out; saving and loading."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
import treelearn.learners._choose as choose

FAST = ["ChowLiuTree", "CutsetNetwork", "TreeMixture", "HiddenTree"]


def _table(n: int = 500, seed: int = 0) -> pd.DataFrame:
    """Two clusters of 6 binary columns with a chain inside each: a mixture beats one tree."""
    rng = np.random.default_rng(seed)
    z = rng.random(n) < 0.4
    cols = {}
    prev = np.where(z, rng.random(n) < 0.85, rng.random(n) < 0.15)
    for j in range(6):
        flip = rng.random(n) < np.where(z, 0.1, 0.3)
        prev = np.where(flip, ~prev, prev)
        cols[f"v{j}"] = prev.astype(int)
    return pd.DataFrame(cols)


def _independent_scores(train: pd.DataFrame, valid: pd.DataFrame, names, seed) -> dict:
    """Each candidate learned afresh (the options of CANDIDATES) and scored on ``valid`` as
    the mean of the model's per-row log-likelihoods."""
    states = {c: sorted(pd.unique(pd.concat([train[c], valid[c]]))) for c in train.columns}
    out = {}
    for name in names:
        est = choose.CANDIDATES[name](states, len(train), train.shape[1], seed)
        if name == "ChowLiuTree":
            est.fit(train)
        else:
            est.fit(train, validation=valid)
        out[name] = float(np.mean(est.model_.score_samples(valid)))
    return out


def test_choice_is_the_argmax_of_independent_validation_scores():
    df = _table()
    train, valid = df.iloc[:400], df.iloc[400:]
    states = {c: [0, 1] for c in df.columns}
    auto = tl.AutoDensity(candidates=FAST, random_state=3, states=states).fit(
        train, validation=valid
    )
    expected = _independent_scores(train, valid, FAST, 3)
    assert list(auto.candidate_scores_) == FAST
    for name in FAST:
        # the same fit on the same rows (identical rows merged both ways): to round-off
        assert auto.candidate_scores_[name] == pytest.approx(expected[name], abs=1e-9), name
    assert auto.chosen_ == max(expected, key=lambda k: expected[k])
    assert auto.skipped_ == [] and auto.candidate_errors_ == {}
    # the chosen model answers: its own scores, a Model of the protocol
    assert isinstance(auto.model_, tl.Model)
    np.testing.assert_allclose(auto.score_samples(valid), auto.model_.score_samples(valid))
    assert auto.score(valid) == pytest.approx(auto.candidate_scores_[auto.chosen_], abs=1e-12)


def test_validation_rows_held_out_of_the_table():
    df = _table(300, seed=1)
    auto = tl.AutoDensity(
        candidates=["ChowLiuTree", "CutsetNetwork"], validation_fraction=0.25, random_state=5
    ).fit(df)
    held_out = np.zeros(len(df), dtype=bool)
    held_out[np.random.default_rng(5).permutation(len(df))[:75]] = True
    train, valid = df[~held_out], df[held_out]
    expected = _independent_scores(train, valid, ["ChowLiuTree", "CutsetNetwork"], 5)
    for name, score in expected.items():
        assert auto.candidate_scores_[name] == pytest.approx(score, abs=1e-9), name


def test_the_budget_is_checked_before_each_candidate(monkeypatch):
    # a fake clock: time passes only inside a candidate's fit, by its declared cost
    now = [100.0]
    monkeypatch.setattr(choose, "clock", lambda: now[0])
    costs = {"ChowLiuTree": 1.0, "CutsetNetwork": 5.0, "TreeMixture": 5.0, "HiddenTree": 5.0}
    for name, cost in costs.items():
        make = choose.CANDIDATES[name]

        def timed(*args, make=make, cost=cost):
            est = make(*args)
            fit = est.fit

            def slow_fit(*a, **k):
                now[0] += cost
                return fit(*a, **k)

            est.fit = slow_fit
            return est

        monkeypatch.setitem(choose.CANDIDATES, name, timed)
    df = _table(200, seed=2)
    auto = tl.AutoDensity(candidates=list(costs), time_budget=4.0).fit(df)
    # the tree (t = 0 -> 1) and the cutset network (starts at 1 < 4, ends at 6) ran; the
    # mixture would start at 6 >= 4: it and HCLT are skipped
    assert list(auto.candidate_scores_) == ["ChowLiuTree", "CutsetNetwork"]
    assert auto.skipped_ == ["TreeMixture", "HiddenTree"]
    assert now[0] - 100.0 <= 4.0 + max(costs.values())  # over by one candidate's fit at most
    assert auto.candidate_seconds_ == {"ChowLiuTree": 1.0, "CutsetNetwork": 5.0}
    # a budget of zero still learns the first candidate
    now[0] = 100.0
    first = tl.AutoDensity(candidates=list(costs), time_budget=0).fit(df)
    assert first.chosen_ == "ChowLiuTree" and len(first.skipped_) == 3


def test_save_and_load(tmp_path):
    df = _table(300, seed=4)
    auto = tl.AutoDensity(candidates=["ChowLiuTree", "TreeMixture"], random_state=0).fit(df)
    path = tmp_path / "auto.json"
    auto.save(path)
    back = tl.load(path)
    assert type(back) is tl.AutoDensity
    assert back.chosen_ == auto.chosen_
    assert back.candidate_scores_ == auto.candidate_scores_
    assert back.skipped_ == auto.skipped_
    np.testing.assert_array_equal(back.score_samples(df), auto.score_samples(df))
    assert list(back.feature_names_in_) == list(df.columns)


def test_bad_candidates_are_named():
    df = _table(100)
    with pytest.raises(tl.TreelearnError, match="Bogus"):
        tl.AutoDensity(candidates=["ChowLiuTree", "Bogus"]).fit(df)
    with pytest.raises(tl.TreelearnError, match="validation"):
        tl.AutoDensity(validation_fraction=0.001).fit(df.iloc[:10])
