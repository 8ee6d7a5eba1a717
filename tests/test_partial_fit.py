"""TreeModel.partial_fit: add rows to the counts and re-learn tree and CPTs."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import treelearn as tl


@pytest.fixture(scope="module")
def alarm() -> pd.DataFrame:
    return pd.read_csv("datasets/alarm.csv")


def all_states(df: pd.DataFrame) -> dict:
    """Every column's distinct values, sorted: the states a whole-table fit finds."""
    return {c: sorted(df[c].dropna().unique().tolist()) for c in df.columns}


def pieces(df: pd.DataFrame, cuts=(0.2, 0.7)) -> list[pd.DataFrame]:
    n = len(df)
    a, b = int(cuts[0] * n), int(cuts[1] * n)
    return [df.iloc[:a], df.iloc[a:b], df.iloc[b:]]


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"alpha": 1.0, "mi_alpha": 1.0}, {"root": "HR", "prior": "bdeu"}, {"forest": "bic"}],
)
def test_three_pieces_equal_one_fit(alarm, kwargs):
    first, second, third = pieces(alarm)
    model = tl.chow_liu(first, states=all_states(alarm), **kwargs)
    assert model.partial_fit(second) is model
    model.partial_fit(third)
    whole = tl.chow_liu(alarm, **kwargs)
    assert model.states == whole.states
    assert sorted(model.graph.edges) == sorted(whole.graph.edges)
    for v in whole.variables:
        assert model.parents(v) == whole.parents(v)
        np.testing.assert_array_equal(model.cpt(v), whole.cpt(v))
    np.testing.assert_array_equal(model.counts.joint, whole.counts.joint)
    assert model.n_rows == len(alarm)
    assert model == whole


def test_pieces_sharing_states_need_no_states_argument():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 900)
    df = pd.DataFrame({"a": a, "b": a ^ (rng.random(900) < 0.1), "c": rng.integers(0, 2, 900)})
    model = tl.chow_liu(df.iloc[:300])
    for piece in (df.iloc[300:600], df.iloc[600:]):
        model.partial_fit(piece)
    assert model == tl.chow_liu(df)
    # the counts of (a, b), independently from a pandas crosstab
    expected = pd.crosstab(df["a"], df["b"]).to_numpy()
    np.testing.assert_array_equal(model.counts.block(0, 1), expected)


def test_the_tree_changes_when_the_new_rows_say_so():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 2, 2000)
    noise = rng.integers(0, 2, 2000)
    early = pd.DataFrame({"x": x[:200], "y": x[:200], "z": noise[:200]})  # x - y linked
    late = pd.DataFrame({"x": x[200:], "y": noise[200:], "z": x[200:]})  # then x - z
    model = tl.chow_liu(early)
    assert {frozenset(e) for e in model.graph.to_undirected().edges} >= {frozenset("xy")}
    model.partial_fit(late)
    assert frozenset("xz") in {frozenset(e) for e in model.graph.to_undirected().edges}
    assert nx.is_tree(model.graph.to_undirected())


def test_missing_values_with_the_pairwise_policy():
    rng = np.random.default_rng(2)
    a = rng.integers(0, 3, 1200).astype(float)
    df = pd.DataFrame(
        {"a": a, "b": (a + (rng.random(1200) < 0.2)) % 3, "c": rng.integers(0, 2, 1200)}
    )
    df.loc[rng.choice(1200, 60, replace=False), "a"] = np.nan
    df.loc[rng.choice(1200, 40, replace=False), "c"] = np.nan
    model = tl.chow_liu(df.iloc[:400], missing="pairwise")
    model.partial_fit(df.iloc[400:800]).partial_fit(df.iloc[800:])
    whole = tl.chow_liu(df, missing="pairwise")
    assert model == whole
    np.testing.assert_array_equal(model.counts.joint, whole.counts.joint)


def test_a_new_category_names_column_and_value(alarm):
    model = tl.chow_liu(alarm.iloc[:500], states=all_states(alarm))
    bad = alarm.iloc[500:600].copy()
    bad.loc[bad.index[7], "HR"] = "VERY_HIGH"
    with pytest.raises(tl.UnseenStateError, match=r"'HR'.*'VERY_HIGH'.*states are fixed"):
        model.partial_fit(bad)
    assert model.n_rows == 500  # nothing was added


def test_bad_inputs(alarm):
    model = tl.chow_liu(alarm.iloc[:500])
    with pytest.raises(tl.ColumnNotFoundError, match="'HR'"):
        model.partial_fit(alarm.iloc[500:600].drop(columns="HR"))
    gaps = alarm.iloc[500:600].copy()
    gaps.loc[gaps.index[3], "HR"] = None
    with pytest.raises(tl.MissingValuesError, match="'HR': 1 missing"):
        model.partial_fit(gaps)  # learned with missing="error"
    by_hand = tl.fit_cpts(nx.DiGraph([("HR", "CO")]), alarm)
    with pytest.raises(
        tl.TreelearnError, match=r"partial_fit needs a model learned by tl\.chow_liu"
    ):
        by_hand.partial_fit(alarm)


def test_a_streamed_model_keeps_learning(alarm, tmp_path):
    first, second, third = pieces(alarm, (0.5, 0.8))
    first.to_csv(tmp_path / "first.csv", index=False)
    model = tl.chow_liu(tmp_path / "first.csv", chunksize=1000, states=all_states(alarm))
    model.partial_fit(second).partial_fit(third)
    assert model == tl.chow_liu(alarm)


def test_rows_from_a_file_add_like_a_frame(alarm, tmp_path):
    first, second, third = pieces(alarm)
    second.to_csv(tmp_path / "second.csv", index=False)
    third.to_parquet(tmp_path / "third.parquet", index=False)
    model = tl.chow_liu(first, states=all_states(alarm), alpha=1.0)
    model.partial_fit(tmp_path / "second.csv", chunksize=1000)
    model.partial_fit(str(tmp_path / "third.parquet"), chunksize=1000)
    assert model == tl.chow_liu(alarm, alpha=1.0)
    np.testing.assert_array_equal(model.counts.joint, tl.chow_liu(alarm).counts.joint)


def test_a_file_with_other_columns_or_values(alarm, tmp_path):
    model = tl.chow_liu(alarm.iloc[:500])
    alarm.iloc[500:700, ::-1].to_csv(tmp_path / "reversed.csv", index=False)
    with pytest.raises(tl.ColumnNotFoundError, match="exactly these columns, in this order"):
        model.partial_fit(tmp_path / "reversed.csv")
    bad = alarm.iloc[500:700].copy()
    bad.loc[bad.index[150], "HR"] = "VERY_HIGH"
    bad.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(tl.UnseenStateError, match=r"rows 0-199: column 'HR'.*'VERY_HIGH'.*fixed"):
        model.partial_fit(tmp_path / "bad.csv")
    assert model.n_rows == 500
