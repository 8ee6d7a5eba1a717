"""Validation and encoding: dtypes, states, missing values, bad input, discretize,
and the caller's DataFrame left untouched; the whole-frame and per-column integer
encoders equal ``pd.factorize``."""

from __future__ import annotations

import copy
import re

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import expect, random_dependent_frame
from oracles import log_joint_probability

import treelearn as tl
import treelearn.encoding._table as data_mod
from treelearn.encoding._table import encode


# ---------------------------------------------------------------- dtypes and states
def test_states_of_each_dtype():
    df = pd.DataFrame(
        {
            "obj": np.array(["b", "a", "c", "a"], dtype=object),
            "str": pd.array(["y", "x", "y", "x"], dtype="string"),
            "cat": pd.Categorical(["lo", "hi", "lo", "lo"], categories=["lo", "mid", "hi"]),
            "bool": [True, True, True, True],
            "int": np.array([3, -1, 3, 10], dtype=np.int64),
            "u8": np.array([1, 0, 1, 1], dtype=np.uint8),
            "float": [2.0, 1.0, 2.0, 0.0],
        }
    )
    t = encode(df)
    assert t.columns == tuple(df.columns)
    assert t.states == (
        ("a", "b", "c"),  # sorted
        ("x", "y"),
        ("lo", "mid", "hi"),  # declared order, unobserved category kept
        (False, True),  # both bool states, even when one is unobserved
        (-1, 3, 10),
        (0, 1),
        (0.0, 1.0, 2.0),
    )
    assert t.codes.tolist() == [
        [1, 1, 0, 1, 1, 1, 2],
        [0, 0, 2, 1, 0, 0, 1],
        [2, 1, 0, 1, 1, 1, 2],
        [0, 0, 0, 1, 2, 1, 0],
    ]
    assert t.n_rows == 4
    assert t.cardinalities.tolist() == [3, 2, 3, 2, 3, 2, 3]
    # states are plain Python scalars
    assert type(t.states[4][0]) is int and type(t.states[6][0]) is float


def test_learning_accepts_every_discrete_dtype():
    rng = np.random.default_rng(0)
    n = 200
    base = rng.integers(0, 3, n)
    df = pd.DataFrame(
        {
            "obj": np.array(["p", "q", "r"], dtype=object)[base],
            "str": pd.array(
                np.array(["u", "v", "w"])[(base + rng.integers(0, 2, n)) % 3], dtype="string"
            ),
            "cat": pd.Categorical(np.array(["a", "b", "c"])[base]),
            "bool": base == 0,
            "int": base * 2,
            "float": (base % 2).astype(float),
        }
    )
    m = tl.chow_liu(df)
    assert m.states["bool"] == [False, True]
    assert m.states["float"] == [0.0, 1.0]
    assert m.graph.number_of_edges() == 5
    assert np.isfinite(m.log_likelihood(df))


def test_integer_valued_float_with_nan_is_accepted():
    df = pd.DataFrame({"a": [1.0, 2.0, np.nan, 2.0], "b": [0, 1, 1, 0]})
    t = encode(df, missing="pairwise")
    assert t.states[0] == (1.0, 2.0)
    assert t.codes[:, 0].tolist() == [0, 1, -1, 1]


def test_declared_unobserved_categories_are_states():
    df = pd.DataFrame(
        {
            "a": pd.Categorical(["x", "y", "x", "x"], categories=["z", "x", "y"]),
            "b": ["u", "v", "u", "u"],
        }
    )
    m0 = tl.chow_liu(df, alpha=0)
    assert m0.states["a"] == ["z", "x", "y"]
    np.testing.assert_allclose(m0.cpt("a"), [0.0, 0.75, 0.25])
    m1 = tl.chow_liu(df, alpha=1.0)
    np.testing.assert_allclose(m1.cpt("a"), [1 / 7, 4 / 7, 2 / 7])  # smoothing gives mass
    # the unobserved parent state has a uniform row under ML, a smoothed one otherwise
    np.testing.assert_allclose(m0.cpt("b")[0], [0.5, 0.5])
    np.testing.assert_allclose(m1.cpt("b")[0], [0.5, 0.5])
    assert (m1.sample(2000, random_state=0)["a"] == "z").mean() == pytest.approx(1 / 7, abs=0.03)


def test_decode_round_trip():
    df = pd.DataFrame({"a": ["x", "y", None], "b": pd.Categorical(["p", None, "q"])})
    t = encode(df, missing="pairwise")
    back = t.decode()
    assert back["a"].tolist()[:2] == ["x", "y"] and back["a"].isna().tolist() == [
        False,
        False,
        True,
    ]
    assert back["a"].dtype == df["a"].dtype
    assert back["b"].isna().tolist() == [False, True, False]
    assert back["b"].dtype == df["b"].dtype


# ---------------------------------------------------------------- missing values
def _holey_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "a": ["x", None, "y", "x", "y"],
            "b": [1.0, 2.0, np.nan, np.nan, 1.0],
            "c": pd.array([1, 2, pd.NA, 1, 2], dtype="Int64"),
            "d": [0, 1, 0, 1, 1],
        }
    )


def test_missing_error_names_columns_and_counts():
    with pytest.raises(tl.MissingValuesError) as err:
        tl.chow_liu(_holey_frame())
    message = str(err.value)
    assert "'a': 1 missing" in message
    assert "'b': 2 missing" in message
    assert "'c': 1 missing" in message
    assert "'d'" not in message
    assert "drop" in message and "pairwise" in message


def test_missing_drop():
    df = _holey_frame()
    t = encode(df, missing="drop")
    assert t.n_rows == 2
    assert t.states[0] == ("x", "y") and t.states[1] == (1.0,)
    m = tl.chow_liu(df, missing="drop")
    assert m.n_rows == 2
    all_missing = pd.DataFrame({"a": [None, "x"], "b": [1, None]})
    with pytest.raises(tl.EmptyDataError, match="pairwise"):
        encode(all_missing, missing="drop")


def test_missing_pairwise_codes():
    t = encode(_holey_frame(), missing="pairwise")
    assert t.n_rows == 5
    assert (t.codes < 0).tolist() == _holey_frame().isna().to_numpy().tolist()
    assert t.states[2] == (1, 2)


def test_a_column_with_nothing_observed():
    df = pd.DataFrame({"a": [0, 1, 0], "empty": [None, None, None]})
    with pytest.raises(tl.EmptyDataError, match="'empty'"):
        encode(df, missing="pairwise")


def test_bad_missing_option():
    with pytest.raises(ValueError):
        encode(pd.DataFrame({"a": [1]}), missing="ignore")


# ---------------------------------------------------------------- bad input
def test_continuous_float_column_points_to_discretize():
    df = pd.DataFrame({"ok": [0, 1, 0, 1], "temp": [20.5, 21.25, 19.0, 22.0]})
    with pytest.raises(tl.NumericColumnError) as err:
        tl.chow_liu(df)
    assert "'temp'" in str(err.value)
    assert "discretize" in str(err.value)
    assert "'ok'" not in str(err.value)


def test_infinite_float_is_not_a_state():
    df = pd.DataFrame({"a": [1.0, np.inf, 2.0, 1.0], "b": [0, 1, 0, 1]})
    with pytest.raises(tl.NumericColumnError, match="'a'") as err:
        tl.chow_liu(df)
    assert "inf" in str(err.value) and "discretize" in str(err.value)


def test_many_state_numeric_column():
    df = pd.DataFrame({"a": np.arange(500) % 2, "id": np.arange(500)})
    with pytest.raises(tl.TooManyStatesError, match="'id'"):
        tl.chow_liu(df)
    floats = pd.DataFrame({"a": np.arange(500) % 2, "w": np.arange(500, dtype=float)})
    with pytest.raises(tl.NumericColumnError, match="'w'") as err:
        tl.chow_liu(floats)
    assert "discretize" in str(err.value)
    # raising the limit accepts it
    with pytest.warns(tl.NumericColumnWarning, match="'id' has 500 distinct numbers"):
        assert encode(df, max_states=500).states[1][-1] == 499
    strings = pd.DataFrame({"name": [f"n{i}" for i in range(150)]})
    with pytest.raises(tl.TooManyStatesError, match="'name'"):
        tl.chow_liu(strings)


def test_empty_frames():
    with pytest.raises(tl.EmptyDataError, match="no rows"):
        tl.chow_liu(pd.DataFrame({"a": pd.Series([], dtype=int), "b": pd.Series([], dtype=str)}))
    with pytest.raises(tl.EmptyDataError, match="no columns"):
        tl.chow_liu(pd.DataFrame())
    with pytest.raises(tl.EmptyDataError, match="no columns"):
        tl.chow_liu(pd.DataFrame(index=range(5)))


def test_duplicate_column_names():
    df = pd.DataFrame([[0, 1, 0], [1, 0, 1]], columns=["a", "b", "a"])
    with pytest.raises(tl.DuplicateColumnError, match="'a'"):
        tl.chow_liu(df)


@pytest.mark.parametrize(
    "columns, repeated",
    [
        ([0, 1, 0], 0),  # a frame made from an array: integer names
        ([0, "0", 0], 0),  # text and integer names: "0" and 0 are different names
        ([True, 1, 2], 1),  # True == 1: pandas and networkx see one name twice
        ([np.int64(3), 3, 4], 3),  # numpy and Python integers of one value
    ],
)
def test_duplicate_integer_column_names(columns, repeated):
    # integer names take the quick check that text names take; equal names of other
    # types (bool, numpy integers) still reach the full check; the repeat is named
    df = pd.DataFrame([[0, 1, 0], [1, 0, 1]], columns=columns)
    with pytest.raises(tl.DuplicateColumnError, match=re.escape(f"name(s) [{repeated!r}]")):
        tl.chow_liu(df)


def test_distinct_integer_and_text_names_learn():
    df = pd.DataFrame([[0, 1, 0], [1, 0, 1], [1, 1, 0]], columns=[0, "0", 2])
    assert sorted(map(str, tl.chow_liu(df).variables)) == ["0", "0", "2"]


@pytest.mark.parametrize("name", [None, np.nan])
def test_a_column_without_a_name_is_an_error_not_a_hang(name):
    # NaN != NaN: the spanning tree's union-find looped forever on such a name
    df = pd.DataFrame([[0, 1], [1, 1], [0, 0]], columns=[name, "b"])
    with pytest.raises(tl.TreelearnError, match="position"):
        tl.chow_liu(df)


def test_unknown_columns():
    df = pd.DataFrame({"a": [0, 1, 0], "b": [1, 1, 0]})
    with pytest.raises(tl.ColumnNotFoundError, match="'zz'"):
        tl.chow_liu(df, root="zz")
    with pytest.raises(tl.ColumnNotFoundError, match="'zz'"):
        encode(df, states={"zz": [0, 1]})
    with pytest.raises(KeyError):  # also a KeyError for callers that catch that
        tl.chow_liu(df, root="zz")


def test_unseen_state_against_given_states():
    df = pd.DataFrame({"a": ["x", "y", "w"]})
    with pytest.raises(tl.UnseenStateError, match="'a'") as err:
        encode(df, states={"a": ["x", "y"]})
    assert "'w'" in str(err.value)
    t = encode(df, states={"a": ["x", "y"]}, unseen="ignore")
    assert t.codes[:, 0].tolist() == [0, 1, -1]


def test_every_error_is_a_value_error():
    for cls in (
        tl.EmptyDataError,
        tl.DuplicateColumnError,
        tl.ColumnNotFoundError,
        tl.MissingValuesError,
        tl.NumericColumnError,
        tl.TooManyStatesError,
        tl.UnseenStateError,
        tl.StructureError,
    ):
        assert issubclass(cls, tl.TreelearnError) and issubclass(cls, ValueError)


def test_non_dataframe_input():
    with pytest.raises(TypeError, match="DataFrame"):
        encode(np.zeros((3, 2)))


# ---------------------------------------------------------------- discretize
def test_discretize_quantile_matches_qcut():
    rng = np.random.default_rng(1)
    df = pd.DataFrame(
        {"x": rng.normal(size=200), "k": rng.integers(0, 3, 200), "s": rng.choice(["a", "b"], 200)}
    )
    out = tl.discretize(df, bins=4, strategy="quantile")
    expected = pd.qcut(df["x"], q=4, duplicates="drop")
    assert out["x"].cat.codes.tolist() == expected.cat.codes.tolist()
    # one labelling everywhere: open ends, inner edges at 3 significant digits (enough here)
    inner = [f"{e:.3g}" for e in pd.qcut(df["x"], q=4, retbins=True)[1][1:-1]]
    assert list(out["x"].cat.categories) == [
        f"(-inf, {inner[0]}]",
        f"({inner[0]}, {inner[1]}]",
        f"({inner[1]}, {inner[2]}]",
        f"({inner[2]}, inf)",
    ]
    assert list(out["x"].cat.categories) == tl.Discretizer(bins=4).fit(df).categories_["x"]
    assert out["x"].cat.ordered
    assert out["x"].value_counts().tolist() == [50, 50, 50, 50]
    # few-valued ints and strings untouched
    assert out["k"].equals(df["k"]) and out["s"].equals(df["s"])
    tl.chow_liu(out)  # and learnable


def test_discretize_uniform_by_hand():
    df = pd.DataFrame({"x": [0.0, 1.0, 2.0, 9.9, 10.0, np.nan]})
    out = tl.discretize(df, bins=2, strategy="uniform")
    codes = out["x"].cat.codes.tolist()
    # equal widths over [0, 10]: (.., 5] and (5, 10]
    assert codes == [0, 0, 0, 1, 1, -1]
    assert out["x"].isna().tolist() == [False] * 5 + [True]
    assert list(out["x"].cat.categories) == ["(-inf, 5]", "(5, inf)"]


def test_discretize_options():
    df = pd.DataFrame({"i": np.arange(20), "j": np.arange(20) % 3, "f": np.linspace(0, 1, 20)})
    out = tl.discretize(df, bins=5)
    assert isinstance(out["i"].dtype, pd.CategoricalDtype)  # many-valued int: cut
    assert out["j"].equals(df["j"])  # few-valued int: kept
    only = tl.discretize(df, bins=2, columns=["j"])
    assert only["j"].nunique() == 2 and only["i"].equals(df["i"])
    with pytest.raises(ValueError):
        tl.discretize(df, strategy="kmeans")
    with pytest.raises(ValueError):
        tl.discretize(df, bins=0)
    with pytest.raises(tl.ColumnNotFoundError, match="'nope'"):
        tl.discretize(df, columns=["nope"])
    with pytest.raises(tl.NumericColumnError, match="'s'"):
        tl.discretize(df.assign(s="a"), columns=["s"])
    with pytest.raises(ValueError, match="bins"):
        tl.discretize(df, bins=True)


def test_discretize_constant_column_is_one_bin_not_missing():
    # quantile edges of a constant column coincide; no value may turn into NaN
    df = pd.DataFrame({"c": [1.5, 1.5, 1.5, np.nan], "x": [0.1, 0.2, 0.3, 0.4]})
    for strategy in ("quantile", "uniform"):
        out = tl.discretize(df, bins=3, strategy=strategy)
        assert out["c"].isna().tolist() == [False, False, False, True]
        assert out["c"].iloc[:3].nunique() == 1
    quantile = tl.discretize(df, bins=3)
    assert len(quantile["c"].cat.categories) == 1
    assert tl.chow_liu(quantile, missing="pairwise").states["c"] == list(
        quantile["c"].cat.categories
    )


def test_discretize_infinite_values_name_the_column():
    df = pd.DataFrame({"x": [0.1, np.inf, 0.3, 0.5]})
    for strategy in ("quantile", "uniform"):
        with pytest.raises(tl.NumericColumnError, match=r"'x'.*infinite"):
            tl.discretize(df, bins=2, strategy=strategy)


# ---------------------------------------------------------------- input untouched
def test_callers_frame_is_never_modified():
    rng = np.random.default_rng(2)
    df = random_dependent_frame(100, [2, 3, 4], rng).astype(object)
    df.loc[3, "v1"] = None
    df["cat"] = pd.Categorical(rng.choice(["a", "b"], 100), categories=["b", "a", "c"])
    df["f"] = rng.normal(size=100)
    snapshot = copy.deepcopy(df)
    discrete = df.drop(columns="f")
    snap2 = copy.deepcopy(discrete)
    m = tl.chow_liu(discrete, missing="pairwise", alpha=1.0)
    tl.chow_liu(discrete, missing="drop")
    tl.mi_graph(discrete, missing="pairwise")
    m.log_likelihood(discrete)
    tl.fit_cpts(m.graph, discrete, missing="pairwise")
    tl.discretize(df, bins=3)
    with pytest.raises(tl.MissingValuesError):
        tl.chow_liu(discrete)
    pd.testing.assert_frame_equal(df, snapshot)
    pd.testing.assert_frame_equal(discrete, snap2)
    assert list(df.columns) == list(snapshot.columns)


def test_read_data_csv(tmp_path):
    df = pd.DataFrame({"a": ["x", "y", "x"], "b": [1, 2, 1]})
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    assert tl.chow_liu(str(path)) == tl.chow_liu(df)
    with pytest.raises(FileNotFoundError):
        tl.read_data(tmp_path / "none.csv")


def test_given_states_do_not_confuse_bools_with_numbers():
    # pandas hashes True like 1: a bool column must still reject 0/1 and an int column True/False
    with pytest.raises(tl.UnseenStateError, match="'flag'"):
        encode(pd.DataFrame({"flag": [1, 0]}), states={"flag": [False, True]})
    with pytest.raises(tl.UnseenStateError, match="'count'"):
        encode(pd.DataFrame({"count": [True, False]}), states={"count": [0, 1]})
    # a whole-number float still matches its integer state (an int column that met a NaN)
    table = encode(pd.DataFrame({"count": [1.0, 0.0]}), states={"count": [0, 1]})
    assert table.codes[:, 0].tolist() == [1, 0]


def test_int64_columns_whose_range_overflows_int64():
    # max - min = 2^63 overflows int64; the fast whole-frame path must not be fooled
    big = 2**62
    df = pd.DataFrame(
        {
            "id": np.array([0, big, -big, 5, big], dtype=np.int64),
            "b": np.array([0, 1, 0, 1, 1], dtype=np.int64),
        }
    )
    t = encode(df)
    assert t.states == ((-big, 0, 5, big), (0, 1))  # sorted distinct values, by hand
    assert t.codes[:, 0].tolist() == [1, 3, 0, 2, 3]
    assert t.codes[:, 1].tolist() == [0, 1, 0, 1, 1]


@pytest.mark.parametrize(
    "given, match",
    [
        (["x", "x", "y"], "repeat a label"),
        (["x", "y", None], "missing value"),
        (["x", "y", np.nan], "missing value"),
        ("xy", "list of labels"),
    ],
)
def test_given_states_that_cannot_be_states(given, match):
    df = pd.DataFrame({"a": ["x", "y", "x"], "b": [0, 1, 1]})
    with pytest.raises(tl.TreelearnError, match=f"column 'a'.*{match}"):
        encode(df, states={"a": given})
    with pytest.raises(tl.TreelearnError, match="column 'a'"):
        tl.chow_liu(df, states={"a": given})


def test_read_data_and_fit_cpts_read_parq_files_as_chow_liu_does(tmp_path):
    df = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": [1, 2, 1, 1]})
    path = tmp_path / "t.parq"
    df.to_parquet(path)
    pd.testing.assert_frame_equal(tl.read_data(path), df)
    m = tl.chow_liu(str(path))
    assert m == tl.chow_liu(df)
    assert tl.fit_cpts(m.graph, str(path)) == m


# ---------------------------------------------------------------- the numeric rule (issue 15)
def _notes(df, **kwargs):
    """encode(df) and the columns it notes (NumericColumnWarning), in order."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = encode(df, **kwargs)
    notes = [w.message for w in caught if isinstance(w.message, tl.NumericColumnWarning)]
    return table, notes


def _repeated(values, times=2):
    """Each value ``times`` times (so every value is seen more than once)."""
    return np.repeat(np.asarray(values), times)


def test_integers_and_dates_get_a_note_above_20_distinct_values():
    for k in (20, 21):  # both sides of FEW_NUMBERS
        ints = pd.DataFrame({"n": np.arange(k)})  # each value once: ints need no repeats
        table, notes = _notes(ints)
        assert table.states[0] == tuple(range(k))
        assert [n.column for n in notes] == (["n"] if k == 21 else [])
        floats = pd.DataFrame({"n": [*np.arange(k, dtype=float), np.nan]})  # whole floats
        assert len(_notes(floats, missing="pairwise")[1]) == (k == 21)
        dates = pd.DataFrame({"t": pd.date_range("2024-01-01", periods=k, freq="D")})
        assert len(_notes(dates)[1]) == (k == 21)
    note = _notes(pd.DataFrame({"n": np.arange(61)}))[1][0]
    assert note.n_states == 61 and "discretize" in note.fixes and "'n'" in str(note)
    assert "tl.discretize(df, bins=5)" in note.hint
    # declared states (a Categorical, or states given) say the states are meant: no note
    assert _notes(pd.DataFrame({"n": pd.Categorical(np.arange(61))}))[1] == []
    assert _notes(pd.DataFrame({"n": np.arange(61)}), states={"n": list(range(61))})[1] == []


def test_integers_on_both_sides_of_max_states():
    df = pd.DataFrame({"n": np.arange(30)})
    with pytest.warns(tl.NumericColumnWarning, match="'n'"):  # 30 > 20 values: a note
        assert encode(df, max_states=30).states[0][-1] == 29
    with pytest.raises(tl.TooManyStatesError, match="'n'") as err:
        encode(df, max_states=29)
    assert err.value.column == "n" and err.value.n_states == 30
    assert set(err.value.fixes) == {"discretize", "drop", "max_states"}
    assert "raise max_states (to 30 or more)" in str(err.value)


def test_floats_with_repeated_values_are_categories_with_a_note():
    rng = np.random.default_rng(3)
    for k in (6, 20):
        levels = np.arange(k) + 0.5  # fractions: not an integer column
        values = rng.permutation(_repeated(levels, 3))
        table, notes = _notes(pd.DataFrame({"dose": values}))
        assert table.states[0] == tuple(levels)
        # codes are the positions in the sorted levels (computed by searchsorted)
        assert table.codes[:, 0].tolist() == np.searchsorted(levels, values).tolist()
        assert [n.column for n in notes] == ["dose"] and notes[0].n_states == k
        assert f"taken as {k} categories" in str(notes[0])
    # 21 repeated values: many-valued floats are refused
    with pytest.raises(tl.NumericColumnError, match="'dose'") as err:
        encode(pd.DataFrame({"dose": _repeated(np.arange(21) + 0.5)}))
    assert "discretize" in err.value.fixes and "tl.discretize" in str(err.value)
    # a value seen once: refused, naming it (6 values, 5 repeated, 0.25 once)
    once = pd.DataFrame({"dose": [*_repeated([0.5, 1.5, 2.5, 3.5, 4.5]), 0.25]})
    with pytest.raises(tl.NumericColumnError, match="'dose'") as err:
        encode(once)
    assert err.value.values == [0.25] and "seen once" in str(err.value)
    # the limit is max_states when that is lower than 20
    six = pd.DataFrame({"dose": _repeated(np.arange(6) + 0.5)})
    with pytest.warns(tl.NumericColumnWarning, match="'dose'"):
        assert encode(six, max_states=6).states[0][-1] == 5.5
    with pytest.raises(tl.NumericColumnError, match="'dose'"):
        encode(six, max_states=5)
    # a Categorical of the same floats is declared: no note
    assert _notes(six.astype("category"))[1] == []


def test_every_problem_of_a_table_is_reported_in_one_error():
    rng = np.random.default_rng(4)
    n = 150
    df = pd.DataFrame(
        {
            "ok": rng.choice(["a", "b"], n),
            "x": rng.normal(size=n),
            "gap": rng.choice(["u", "v", None], n),
            "y": rng.normal(size=n),
            "when": pd.date_range("2024-01-01", periods=n, freq="h"),
        }
    )
    snapshot = copy.deepcopy(df)
    with pytest.raises(tl.TableProblemsError) as err:
        tl.chow_liu(df)
    problems = err.value.problems
    kinds = {p.column: type(p) for p in problems}
    assert kinds == {
        "gap": tl.MissingValuesError,
        "x": tl.NumericColumnError,
        "y": tl.NumericColumnError,
        "when": tl.TooManyStatesError,
    }
    assert err.value.args[0].startswith("the table has 4 problems")
    for p in problems:  # each problem names its column and the fix, in the one message
        assert repr(p.column) in str(err.value) and p.hint in str(err.value)
    assert set(problems[-1].fixes) == {"discretize", "drop"}  # dates: no max_states advice
    pd.testing.assert_frame_equal(df, snapshot)
    # fixed as the message says, the table learns
    fixed = tl.discretize(df.drop(columns="gap"), bins=3)
    assert tl.chow_liu(fixed).variables == ["ok", "x", "y", "when"]


def test_discretize_cuts_dates_by_time():
    days = pd.Series(pd.date_range("2024-01-01", periods=10, freq="D"))
    df = pd.DataFrame({"t": days})
    out = tl.discretize(df, bins=2)
    # the median, 2024-01-05 12:00, rounds (half down) to the whole day 2024-01-05
    assert list(out["t"].cat.categories) == ["(-inf, 2024-01-05]", "(2024-01-05, inf)"]
    assert out["t"].cat.codes.tolist() == [0] * 5 + [1] * 5
    # the same bins and labels as the Discretizer (open ends: new data falls in a bin)
    fitted = tl.Discretizer(bins=2).fit(df)
    assert fitted.categories_["t"] == ["(-inf, 2024-01-05]", "(2024-01-05, inf)"]
    assert fitted.transform(df)["t"].cat.codes.tolist() == out["t"].cat.codes.tolist()
    # uniform: 30 days in 3 widths of 10 days, edges 2024-01-11 and 2024-01-21
    month = pd.DataFrame({"t": [*pd.date_range("2024-01-01", periods=31, freq="D"), pd.NaT]})
    uniform = tl.discretize(month, bins=3, strategy="uniform")["t"]
    assert list(uniform.cat.categories) == [
        "(-inf, 2024-01-11]",
        "(2024-01-11, 2024-01-21]",
        "(2024-01-21, inf)",
    ]
    assert uniform.cat.codes.tolist() == [0] * 11 + [1] * 10 + [2] * 10 + [-1]
    # within one day the edges are whole hours: every 10 minutes from 00:00 to 04:00
    minutes = pd.DataFrame({"t": pd.date_range("2024-01-01", periods=25, freq="10min")})
    hours = tl.discretize(minutes, bins=2)["t"]
    assert list(hours.cat.categories) == ["(-inf, 2024-01-01 02:00]", "(2024-01-01 02:00, inf)"]
    assert hours.cat.codes.tolist() == [0] * 13 + [1] * 12
    assert tl.chow_liu(tl.discretize(df.assign(k=[0, 1] * 5), bins=2)).states["t"] == list(
        out["t"].cat.categories
    )
    pd.testing.assert_frame_equal(df, pd.DataFrame({"t": days}))  # the caller's frame


# ---------------------------------------------------------------------------------- hostile inputs
@pytest.mark.parametrize("data", [[[1, 2]], np.zeros((3, 2)), None, nx.DiGraph()])
def test_non_dataframe_is_a_type_error(data):
    expect(tl.InputTypeError, type(data).__name__, tl.chow_liu, data)
    with pytest.raises(TypeError):  # the old type keeps working
        tl.chow_liu(data)


@pytest.mark.parametrize("cell", [[1], {"k": 1}, np.zeros(2), {1, 2}])
def test_unhashable_cells_name_the_column(cell, tmp_path):
    bad = pd.DataFrame({"b": [1, 2], "weird": [cell, cell]})
    expect(tl.InputTypeError, "'weird'", tl.chow_liu, bad)
    model = tl.chow_liu(pd.DataFrame({"b": [1, 2], "weird": [1, 2]}))
    expect(tl.InputTypeError, "'weird'", model.log_likelihood, bad)


def test_booleans_beside_the_numbers_one_and_zero_are_refused():
    # Hypothesis found it: pandas hashes True == 1, so the column's states were [0, 1] (or
    # [0, True], whichever came first) while scoring keeps a bool apart from a number
    for values in ([1, True, 0], [True, 1, 0], [False, 0.0, "x"]):
        df = pd.DataFrame({"a": pd.Series(values, dtype=object), "b": [0, 1, 0]})
        with pytest.raises(tl.TreelearnError, match="booleans and the numbers 0/1") as info:
            tl.chow_liu(df, alpha=1)
        assert info.value.column == "a"
    # bools beside other values (text, 2.5) do not merge and stay states of their own
    for values, expected in (
        ([True, "x", 2.5], ["'x'", "2.5", "True"]),
        ([True, "1", "0"], ["'0'", "'1'", "True"]),
    ):  # text "1" != True
        df = pd.DataFrame({"a": pd.Series(values, dtype=object), "b": [0, 1, 0]})
        model = tl.chow_liu(df, alpha=1)
        assert sorted(map(repr, model.states["a"])) == expected
        assert model.log_likelihood(df) == pytest.approx(
            sum(log_joint_probability(model, row) for _, row in df.iterrows())
        )


# ---------------------------------------------------------------- fast paths: the integer encoders
def _plain_encode(df, **kw):
    saved = data_mod._small_integer_codes, data_mod._small_integer_frame
    data_mod._small_integer_codes = lambda s: None
    data_mod._small_integer_frame = lambda *a: None
    try:
        return encode(df, **kw)
    finally:
        data_mod._small_integer_codes, data_mod._small_integer_frame = saved


@pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int64", "uint64"])
@pytest.mark.parametrize("copy", [True, False])
def test_integer_fast_encoders_equal_factorize(dtype, copy):
    rng = np.random.default_rng(11)
    for _ in range(25):
        n, d = int(rng.integers(1, 60)), int(rng.integers(1, 5))
        if dtype == "bool":
            A = rng.random((n, d)) < 0.5
        else:
            A = rng.integers(0, int(rng.choice([1, 2, 5, 126, 130])) + 1, size=(n, d))
            A = A * int(rng.choice([1, 3]))  # gaps between values
            if dtype.startswith("int"):
                A = A - int(rng.integers(0, 50))
            A = A.astype(dtype)
        df = pd.DataFrame(A, columns=[f"c{j}" for j in range(d)], copy=copy)
        mixed = df.assign(extra=np.arange(n) % 3)  # two dtypes: the per-column path
        for frame in (df, mixed):
            fast, plain = encode(frame, max_states=1000), _plain_encode(frame, max_states=1000)
            assert fast.states == plain.states
            assert [type(s) for t in fast.states for s in t] == [
                type(s) for t in plain.states for s in t
            ]
            assert fast.codes.dtype == plain.codes.dtype
            np.testing.assert_array_equal(fast.codes, plain.codes)


@pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")
def test_integer_fast_encoder_keeps_state_limit():
    df = pd.DataFrame({"a": np.arange(120) % 110})
    with pytest.raises(tl.TooManyStatesError, match="'a'"):
        encode(df)
