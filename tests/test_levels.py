"""The level-batched forest path (inference/_levels.py) and the batch forms of marginals / MAP.

Every answer is checked against the full joint (brute force, small forests) and against
the engine's per-factor passes (larger ones)."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import joint_table

import treelearn as tl
from treelearn.inference import _levels
from treelearn.inference._levels import LevelPlan


def random_forest(d, seed, roots=2, kmax=4, zeros=False):
    """A forest of ``roots`` trees with random CPTs (some entries zero when ``zeros``)."""
    rng = np.random.default_rng(seed)
    card = rng.integers(2, kmax + 1, size=d)
    parent = [-1] * roots + [int(rng.integers(0, i)) for i in range(roots, d)]
    g = nx.DiGraph()
    for i in range(d):
        k = int(card[i])
        rows = () if parent[i] < 0 else (int(card[parent[i]]),)
        cpt = rng.dirichlet(np.ones(k), size=rows or None)
        if zeros and parent[i] >= 0:
            cpt = np.where(rng.random(cpt.shape) < 0.3, 0.0, cpt)
            cpt[..., 0] += 1e-3  # every row keeps a state
            cpt = cpt / cpt.sum(axis=-1, keepdims=True)
        g.add_node(f"v{i}", states=[f"s{j}" for j in range(k)], cpt=cpt)
    for i in range(d):
        if parent[i] >= 0:
            g.add_edge(f"v{parent[i]}", f"v{i}")
    return tl.TreeModel(g, variables=[f"v{i}" for i in range(d)]), parent, card


def weighted(model, p, row, soft):
    """The joint times each row's evidence (one-hot) and the likelihoods ``soft``."""
    for i, c in enumerate(row):
        w = np.ones(p.shape[i])
        if c >= 0:
            w = np.eye(p.shape[i])[c]
        if i in soft:
            w = w * soft[i]
        p = p * w.reshape([-1 if a == i else 1 for a in range(p.ndim)])
    return p


def random_rows(card, n, seed, observed=0.3):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 100, size=(n, len(card))) % np.asarray(card)
    codes[rng.random(codes.shape) > observed] = -1
    return codes


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_marginals_and_map_equal_brute_force(seed):
    model, _, card = random_forest(7, seed)
    plan = model.engine().level_plan()
    assert isinstance(plan, LevelPlan)
    rng = np.random.default_rng(seed)
    soft = {1: rng.random(card[1]) + 0.1}
    codes = random_rows(card, 12, seed)
    marg = plan.marginals(codes, soft)
    best, log_p = plan.map(codes, soft)
    p = joint_table(model)
    for r, row in enumerate(codes):
        w = weighted(model, p, row, soft)
        for i in range(len(card)):
            other = tuple(a for a in range(len(card)) if a != i)
            expected = w.sum(axis=other)
            np.testing.assert_allclose(marg[i][r], expected / expected.sum(), atol=1e-12)
        assert tuple(best[r]) == np.unravel_index(np.argmax(w), w.shape)
        np.testing.assert_allclose(log_p[r], np.log(w.max()), rtol=1e-12)


def test_large_forest_equals_the_per_factor_passes():
    model, _, card = random_forest(300, 5, roots=3)
    engine = model.engine()
    codes = random_rows(card, 40, 6, observed=0.2)
    soft = {4: np.linspace(0.2, 1.0, card[4])}
    fast = engine.marginals_codes(codes, soft)
    fast_map = engine.map_codes(codes, soft)
    engine._level_plan = False  # the per-factor passes
    slow = engine.marginals_codes(codes, soft)
    slow_map = engine.map_codes(codes, soft)
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, atol=1e-12)
    np.testing.assert_array_equal(fast_map[0], slow_map[0])
    np.testing.assert_allclose(fast_map[1], slow_map[1], rtol=1e-12)


def test_map_in_blocks_of_rows(monkeypatch):
    model, _, card = random_forest(30, 3)
    plan = model.engine().level_plan()
    codes = random_rows(card, 25, 4)
    whole = plan.map(codes)
    monkeypatch.setattr(_levels, "_BLOCK", 64)  # a few rows at a time
    parts = plan.map(codes)
    np.testing.assert_array_equal(whole[0], parts[0])
    np.testing.assert_allclose(whole[1], parts[1], rtol=1e-15)


def test_zero_messages_fall_back_to_the_per_factor_passes():
    model, _, card = random_forest(7, 8, zeros=True)
    plan = model.engine().level_plan()
    p = joint_table(model)
    # observe a leaf in a state its parent's CPT rows often give zero: some message has a zero
    codes = np.full((len(card) * 3, len(card)), -1)
    for i in range(len(card)):
        for c in range(min(card[i], 3)):
            codes[3 * i + c, i] = c
    assert plan.marginals(codes) is None
    marg = model.engine().marginals_codes(codes)
    for r, row in enumerate(codes):
        w = weighted(model, p, row, {})
        for i in range(len(card)):
            other = tuple(a for a in range(len(card)) if a != i)
            expected = w.sum(axis=other)
            np.testing.assert_allclose(marg[i][r], expected / expected.sum(), atol=1e-12)


def test_no_plan_beyond_one_parent_forests():
    df = pd.read_csv("datasets/asia.csv")
    tan = tl.TAN().fit(df.drop(columns="either"), df["either"]).model_
    assert tan.engine().level_plan() is None
    assert tl.chow_liu(df).engine().level_plan() is not None


def test_marginals_frame_matches_the_dicts():
    model, _, card = random_forest(9, 11)
    rows = pd.DataFrame(
        {"v2": ["s1", None, "s0"], "v5": [None, "s1", "s0"], "not_a_variable": [1, 2, 3]},
        index=["x", "y", "z"],
    )
    frame = model.marginals(rows)
    assert list(frame.index) == ["x", "y", "z"]
    assert frame.columns.tolist() == [(v, s) for v in model.variables for s in model.states[v]]
    for label, row in rows.drop(columns="not_a_variable").iterrows():
        evidence = {v: s for v, s in row.items() if pd.notna(s)}
        expected = model.marginals(evidence)
        for v in model.variables:
            got = frame.loc[label, v].to_numpy()
            if v in evidence:
                np.testing.assert_array_equal(
                    got, np.eye(len(got))[model.states[v].index(evidence[v])]
                )
            else:
                np.testing.assert_allclose(got, expected[v].to_numpy(), atol=1e-12)
    one = model.marginals({"v2": "s1", "v3": [0.3] * card[3]}, as_frame=True)
    expected = model.marginals({"v2": "s1", "v3": [0.3] * card[3]})
    np.testing.assert_allclose(one["v4"].to_numpy()[0], expected["v4"].to_numpy(), atol=1e-12)
    with pytest.raises(tl.TreelearnError, match="as_frame"):
        model.marginals({}, as_frame="yes")


def test_map_query_frame_matches_the_rows():
    model, _, _ = random_forest(9, 12)
    rows = pd.DataFrame({"v1": ["s0", None], "v6": [None, "s1"]})
    frame, log_p = model.map_query(rows, return_log_prob=True)
    for r, row in rows.iterrows():
        evidence = {v: s for v, s in row.items() if pd.notna(s)}
        assignment, lp = model.map_query(evidence, return_log_prob=True)
        assert {v: frame.loc[r, v] for v in assignment} == assignment
        assert all(frame.loc[r, v] == s for v, s in evidence.items())
        assert log_p[r] == pytest.approx(lp, rel=1e-12)


def test_frames_of_impossible_rows_raise_naming_the_row():
    df = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 1]})
    model = tl.chow_liu(df, alpha=0)
    rows = pd.DataFrame({"a": [0, 0], "b": [0, 1]}, index=["fine", "never"])
    with pytest.raises(tl.TreelearnError, match="'never'"):
        model.marginals(rows)
    with pytest.raises(tl.TreelearnError, match="'never'"):
        model.map_query(rows)
    with pytest.raises(tl.TreelearnError, match="probability zero"):
        model.marginals({"a": 0, "b": 1}, as_frame=True)


def test_one_state_variables_and_a_single_variable():
    g = nx.DiGraph()
    g.add_node("a", states=["only"], cpt=np.array([1.0]))
    g.add_node("b", states=["u", "v", "w"], cpt=np.array([[0.2, 0.3, 0.5]]))
    g.add_edge("a", "b")
    model = tl.TreeModel(g)
    assert model.marginals()["b"].tolist() == pytest.approx([0.2, 0.3, 0.5])
    assert model.map_query() == {"a": "only", "b": "w"}
    single = tl.TreeModel(_one_node())
    assert single.marginals()["x"].tolist() == pytest.approx([0.25, 0.75])
    assert single.map_query() == {"x": 1}


def _one_node():
    g = nx.DiGraph()
    g.add_node("x", states=[0, 1], cpt=np.array([0.25, 0.75]))
    return g


def test_brute_force_helper_is_a_distribution():
    model, _, _ = random_forest(5, 0)
    assert joint_table(model).sum() == pytest.approx(1.0)


def test_no_plan_when_padding_would_swamp_the_work():
    g = nx.DiGraph()
    g.add_node("big", states=list(range(300)), cpt=np.full(300, 1 / 300))
    rng = np.random.default_rng(0)
    for i in range(40):
        g.add_node(f"b{i}", states=[0, 1], cpt=rng.dirichlet([1, 1], size=2))
        g.add_edge("big" if i == 0 else f"b{i - 1}", f"b{i}")
    g.nodes["b0"]["cpt"] = rng.dirichlet([1, 1], size=300)
    model = tl.TreeModel(g)
    assert model.engine().level_plan() is None  # 41 x 300 x 300 padded cells for ~700 real ones
    assert model.marginals({"b5": 1})["big"].sum() == pytest.approx(1.0)
