"""The inference fast paths of issue 41: ``marginals()`` as a dict whose Series are built
on first read (inference/_marginals.py) and one variable's posterior from its Markov
blanket read in place (TreeEngine._blanket_posterior); each checked against the full
joint (tests/oracles.py) and against the general path."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pandas as pd
import pytest
from oracles import posterior_marginals

import treelearn as tl
from treelearn.inference._marginals import Marginals


def small_model(alpha: float = 1.0, seed: int = 0) -> tl.TreeModel:
    rng = np.random.default_rng(seed)
    n = 400
    a = rng.integers(0, 3, size=n)
    b = (a + rng.integers(0, 2, size=n)) % 3
    c = np.where(rng.random(n) < 0.8, b % 2, 1 - b % 2)
    d = rng.choice(["x", "y"], size=n)
    e = np.where(c == 1, "hi", rng.choice(["hi", "lo", "mid"], size=n))
    df = pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e})
    return tl.chow_liu(df, alpha=alpha)


@pytest.mark.parametrize("evidence", [None, {}, {"c": 1}, {"a": 2, "e": "hi"}])
def test_marginals_equal_the_full_joint_and_the_frame(evidence):
    model = small_model()
    m = model.marginals(evidence)
    assert isinstance(m, dict) and isinstance(m, Marginals)
    expected = posterior_marginals(model, evidence or {})
    asked = [v for v in model.variables if v not in (evidence or {})]
    assert list(m) == asked and len(m) == len(asked)
    frame = model.marginals(evidence, as_frame=True)
    for v in asked:
        s = m[v]
        assert isinstance(s, pd.Series) and s.name == "probability"
        assert s.index.tolist() == list(model.states[v]) and s.index.name == v
        np.testing.assert_allclose(s.to_numpy(), expected[v], rtol=0, atol=1e-12)
        np.testing.assert_array_equal(s.to_numpy(), frame[v].to_numpy()[0])  # same doubles
        assert m[v] is s  # built once, then kept


def test_marginals_behave_as_a_dict_of_series():
    model = small_model()
    m = model.marginals({"c": 0})
    eager = {v: m[v].copy() for v in ["a", "b", "d", "e"]}
    fresh = model.marginals({"c": 0})
    for view in (
        dict(fresh),
        {**model.marginals({"c": 0})},
        model.marginals({"c": 0}).copy(),
        copy.copy(model.marginals({"c": 0})),
        pickle.loads(pickle.dumps(model.marginals({"c": 0}))),
        model.marginals({"c": 0}) | {},
        {} | model.marginals({"c": 0}),
    ):
        assert type(view) is dict and list(view) == list(eager)
        for v, s in view.items():
            pd.testing.assert_series_equal(s, eager[v])
    lazy = model.marginals({"c": 0})
    assert [s.sum() for s in lazy.values()] == pytest.approx([1.0] * 4, abs=1e-12)
    assert [k for k, _ in lazy.items()] == list(eager)
    assert model.marginals({"c": 0}).get("a").equals(eager["a"])
    assert model.marginals({"c": 0}).get("c", "absent") == "absent"
    with pytest.raises(KeyError):
        model.marginals({"c": 0})["c"]
    target: dict = {}
    target.update(model.marginals({"c": 0}))
    assert all(isinstance(s, pd.Series) for s in target.values())
    popped = model.marginals({"c": 0})
    assert popped.pop("a").equals(eager["a"]) and "a" not in popped and len(popped) == 3
    assert popped.popitem()[1].equals(eager["e"])
    assert "probability" in repr(model.marginals({"c": 0}))


def general_posterior(engine, codes, target):
    """The two passes: the blanket plan switched off for this call."""
    plans = engine.__dict__.setdefault("_blanket_plans", {})
    kept = plans.get(target, "unset")
    plans[target] = None
    try:
        return engine.posterior_codes(codes, target)
    finally:
        if kept == "unset":
            plans.pop(target)
        else:
            plans[target] = kept


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # the oracle on impossible rows
@pytest.mark.parametrize("alpha", [1.0, 0.0])
@pytest.mark.parametrize("dtype", [np.int8, np.int64])
def test_blanket_posterior_equals_the_two_passes_and_the_joint(alpha, dtype):
    model = small_model(alpha=alpha, seed=3)
    engine = model.engine()
    rows = [tuple(r) for r in np.ndindex(*[len(model.states[v]) for v in model.variables])]
    codes = np.array(rows, dtype=dtype)
    before = codes.copy()
    for t, v in enumerate(model.variables):
        fast = engine.posterior_codes(codes, t)
        np.testing.assert_array_equal(codes, before)  # read in place, never written
        slow = general_posterior(engine, codes, t)
        np.testing.assert_array_equal(np.isnan(fast), np.isnan(slow))
        np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-13)
        # the joint: P(v | every other variable), NaN where that evidence is impossible
        for r in range(0, len(rows), 7):
            evidence = {
                u: model.states[u][rows[r][j]] for j, u in enumerate(model.variables) if j != t
            }
            expected = posterior_marginals(model, evidence)[v]
            if np.isfinite(expected).all():
                np.testing.assert_allclose(fast[r], expected, rtol=0, atol=1e-12)
            else:
                assert np.isnan(fast[r]).all()
    if alpha == 0.0:  # the zero CPT entries make some rows impossible: checked above
        assert np.isnan(engine.posterior_codes(codes, 0)).any()


def test_rows_with_a_missing_value_take_the_two_passes():
    model = small_model()
    df = model.sample(50, random_state=0)
    df.loc[::3, "a"] = None
    got = model.predict_proba(df, "c").to_numpy()
    codes = model.encode(df).codes.astype(np.int64)  # missing: -1
    np.testing.assert_allclose(got, general_posterior(model.engine(), codes, 2), rtol=0, atol=1e-13)
    for r in range(0, 50, 5):
        evidence = {u: df.loc[r, u] for u in model.variables if u != "c" and pd.notna(df.loc[r, u])}
        expected = posterior_marginals(model, evidence)["c"]
        np.testing.assert_allclose(got[r], expected, rtol=0, atol=1e-12)
