"""Learning from CSV and Parquet files read in row chunks (treelearn.sources._files).

The reference is the in-memory path (the whole file read by pandas), whose
counts are themselves checked here against pandas crosstabs.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from conftest import FRAME_PROBLEMS, problem_frame, problem_kinds

import treelearn as tl
from treelearn.sources._files import MIN_CHUNK_ROWS, count_file, iter_chunks

CHUNK = 1000


def mixed_frame(n: int, seed: int = 0) -> pd.DataFrame:
    """Dependent columns of several kinds: int, str, bool, whole floats."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))
    c = np.where(rng.random(n) < 0.7, b % 2, rng.integers(0, 2, n))
    d = np.where(rng.random(n) < 0.6, a + 1, rng.integers(1, 4, n))
    return pd.DataFrame(
        {
            "a": a,
            "b": np.array(["lo", "mid", "hi"])[b],
            "c": c.astype(bool),
            "d": d.astype(float),
            "e": rng.integers(0, 2, n),  # independent of the rest
        }
    )


@pytest.fixture(scope="module")
def alarm() -> pd.DataFrame:
    return pd.read_csv("datasets/alarm.csv")


def assert_same(streamed: tl.TreeModel, whole: tl.TreeModel) -> None:
    assert streamed.states == whole.states
    assert sorted(streamed.graph.edges) == sorted(whole.graph.edges)
    for v in whole.variables:
        assert streamed.parents(v) == whole.parents(v)
        np.testing.assert_array_equal(streamed.cpt(v), whole.cpt(v))
    np.testing.assert_array_equal(streamed.counts.joint, whole.counts.joint)
    assert streamed.counts.n_rows == whole.counts.n_rows
    assert streamed == whole


def write(df: pd.DataFrame, path, kind: str):
    if kind == "csv":
        df.to_csv(path, index=False)
    else:
        df.to_parquet(path, index=False, row_group_size=2 * CHUNK + 17)
    return path


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_chunks_give_the_in_memory_counts_tree_and_cpts(alarm, tmp_path, kind):
    path = write(alarm, tmp_path / f"alarm.{kind}", kind)
    whole = tl.chow_liu(tl.read_data(path), alpha=0.5)
    streamed = tl.chow_liu(path, chunksize=CHUNK, alpha=0.5)
    assert_same(streamed, whole)
    assert streamed.n_rows == len(alarm)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_mixed_column_kinds(tmp_path, kind):
    df = mixed_frame(4321)
    path = write(df, tmp_path / f"mixed.{kind}", kind)
    streamed = tl.chow_liu(path, chunksize=CHUNK)
    assert_same(streamed, tl.chow_liu(tl.read_data(path)))
    assert streamed.states["c"] == [False, True]
    assert streamed.states["d"] == [1.0, 2.0, 3.0]
    assert streamed.states["b"] == ["hi", "lo", "mid"]
    # the counts of one pair, independently from a pandas crosstab
    block = streamed.counts.block(0, 1)
    expected = pd.crosstab(df["a"], df["b"]).reindex(columns=["hi", "lo", "mid"]).to_numpy()
    np.testing.assert_array_equal(block, expected)
    # dtypes come back for sampling
    sample = streamed.sample(5, random_state=0)
    assert sample["c"].dtype == bool and sample["d"].dtype == float


def test_parquet_categorical_keeps_declared_categories(tmp_path):
    df = mixed_frame(2500)
    df["b"] = pd.Categorical(df["b"], categories=["mid", "never", "lo", "hi"])
    path = write(df, tmp_path / "cat.parquet", "parquet")
    streamed = tl.chow_liu(path, chunksize=CHUNK)
    assert streamed.states["b"] == ["mid", "never", "lo", "hi"]  # declared order, unused kept
    assert_same(streamed, tl.chow_liu(df))


@pytest.mark.parametrize("missing", ["pairwise", "drop"])
def test_missing_values_in_some_chunks(tmp_path, missing):
    df = mixed_frame(3500, seed=1)
    df = df.astype({"a": object, "b": object})
    df.loc[[10, 2500, 2501], "a"] = None  # only chunks 0 and 2 see them: int -> float
    df.loc[[1200, 3400], "b"] = None
    path = write(df, tmp_path / "gaps.csv", "csv")
    whole = tl.chow_liu(pd.read_csv(path), missing=missing)
    streamed = tl.chow_liu(path, chunksize=CHUNK, missing=missing)
    assert streamed.states["a"] == [0.0, 1.0, 2.0]  # float, as in the whole file
    assert all(isinstance(s, float) for s in streamed.states["a"])
    assert_same(streamed, whole)
    assert streamed.n_rows == (3500 if missing == "pairwise" else 3500 - 5)


def test_csv_column_of_numbers_that_turns_to_text_in_a_late_chunk(tmp_path):
    # "c" holds 0/1/2 in the first chunks and a code "k" only near the end; "d" holds
    # True/False and then "maybe": read whole, pandas makes both text columns
    df = mixed_frame(2600, seed=4)
    df["c"] = df["a"].astype(str)
    df.loc[2500, "c"] = "k"
    df["f"] = np.where(df["e"] == 1, "True", "False")
    df.loc[2550, "f"] = "maybe"
    path = write(df, tmp_path / "late_text.csv", "csv")
    streamed = tl.chow_liu(path, chunksize=CHUNK)
    assert streamed.states["c"] == ["0", "1", "2", "k"]  # not 0, 1, 2, "0", "1", "2", "k"
    assert streamed.states["f"] == ["False", "True", "maybe"]
    # the counts of c by hand, from the strings as written
    expected = df["c"].value_counts().reindex(["0", "1", "2", "k"]).to_numpy()
    np.testing.assert_array_equal(streamed.counts.marginal(2), expected)
    assert_same(streamed, tl.chow_liu(pd.read_csv(path)))
    # more rows in a file where c holds only digits: still the text states "0", "1", "2"
    more = df[df["c"] != "k"].iloc[:1500]
    more_path = write(more, tmp_path / "more.csv", "csv")
    streamed.partial_fit(more_path, chunksize=CHUNK)
    both = pd.concat([df, more], ignore_index=True)
    expected = both["c"].value_counts().reindex(["0", "1", "2", "k"]).to_numpy()
    np.testing.assert_array_equal(streamed.counts.marginal(2), expected)


def test_missing_error_counts_the_whole_file(tmp_path):
    df = mixed_frame(3500, seed=2).astype({"b": object})
    df.loc[[5, 1500, 3499], "b"] = None
    path = write(df, tmp_path / "gaps.csv", "csv")
    with pytest.raises(tl.MissingValuesError, match=r"column 'b': 3 missing"):
        tl.chow_liu(path, chunksize=CHUNK)
    states = {c: sorted(df[c].dropna().unique().tolist()) for c in df.columns}
    with pytest.raises(tl.MissingValuesError, match=r"column 'b': 3 missing"):  # one pass
        tl.chow_liu(path, chunksize=CHUNK, states=states)


def test_given_states_for_every_column_read_once(tmp_path, monkeypatch):
    df = mixed_frame(3000, seed=3)
    path = write(df, tmp_path / "m.csv", "csv")
    states = {
        "a": [2, 1, 0, 7],
        "b": ["lo", "mid", "hi"],
        "c": [True, False],
        "d": [3.0, 2.0, 1.0],
        "e": [0, 1],
    }
    from treelearn.sources import _files as stream

    passes = []
    real = stream.iter_chunks
    monkeypatch.setattr(stream, "iter_chunks", lambda *a: passes.append(1) or real(*a))
    streamed = tl.chow_liu(path, chunksize=CHUNK, states=states)
    assert len(passes) == 1
    assert streamed.states == states  # given order, unseen state 7 kept
    assert_same(streamed, tl.chow_liu(df, states=states))


def test_some_states_given_others_found(tmp_path):
    df = mixed_frame(2000, seed=4)
    path = write(df, tmp_path / "m.parquet", "parquet")
    streamed = tl.chow_liu(path, chunksize=CHUNK, states={"b": ["mid", "lo", "hi", "top"]})
    assert streamed.states["b"] == ["mid", "lo", "hi", "top"]
    assert streamed.states["a"] == [0, 1, 2]
    assert_same(streamed, tl.chow_liu(df, states={"b": ["mid", "lo", "hi", "top"]}))
    assert streamed.dtypes["b"] == df["b"].dtype  # a column with given states keeps its dtype


def test_new_category_in_a_late_chunk_names_column_value_and_rows(tmp_path):
    df = mixed_frame(3000, seed=5).astype({"b": object})
    df.loc[2718, "b"] = "surprise"
    path = write(df, tmp_path / "m.csv", "csv")
    with pytest.raises(tl.UnseenStateError, match=r"rows 2000-2999.*'b'.*'surprise'"):
        tl.chow_liu(path, chunksize=CHUNK, states={"b": ["hi", "lo", "mid"]})


def test_parquet_column_of_another_type_than_its_states(tmp_path):
    df = mixed_frame(1500, seed=6)
    df["e"] = df["e"].astype(str)  # text "0"/"1" in the file
    path = write(df, tmp_path / "m.parquet", "parquet")
    with pytest.raises(
        tl.UnseenStateError, match=r"'d'.*stores 'd' as float64 while its states are str"
    ):
        tl.chow_liu(path, chunksize=CHUNK, states={"d": ["1", "2", "3"]})
    with pytest.raises(
        tl.UnseenStateError,
        match=r"'e' has value\(s\) '[01]', '[01]'.*as str while its states are int",
    ):
        tl.chow_liu(path, chunksize=CHUNK, states={"e": [0, 1]})


def test_parquet_non_integer_float_column(tmp_path):
    df = mixed_frame(2500, seed=7)
    df["d"] = df["d"].astype(float)
    df.loc[2100, "d"] = 2.5  # a measurement, in the third chunk
    path = write(df, tmp_path / "m.parquet", "parquet")
    with pytest.raises(tl.NumericColumnError, match=r"column 'd'.*2\.5.*discretize"):
        tl.chow_liu(path, chunksize=CHUNK)


def test_identifier_column_is_counted_as_in_memory(tmp_path):
    df = mixed_frame(3000, seed=8)
    df["id"] = [f"row{i}" for i in range(len(df))]  # 3,000 distinct values in 3 chunks
    path = write(df, tmp_path / "m.csv", "csv")
    with pytest.raises(
        tl.TooManyStatesError,
        match=r"column 'id' has 3000 distinct values, "
        r"more than the limit of 100",
    ) as streamed:
        tl.chow_liu(path, chunksize=CHUNK)
    with pytest.raises(tl.TooManyStatesError) as whole:
        tl.chow_liu(df)
    assert str(streamed.value) == str(whole.value)


def test_bad_paths_and_arguments(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such data file"):
        tl.chow_liu(tmp_path / "absent.csv")
    with pytest.raises(FileNotFoundError, match="no such data file"):
        tl.chow_liu(str(tmp_path / "absent.parquet"))
    path = write(mixed_frame(50), tmp_path / "m.csv", "csv")
    with pytest.raises(tl.ColumnNotFoundError, match="'zz'"):
        tl.chow_liu(path, states={"zz": [0, 1]})
    with pytest.raises(tl.ColumnNotFoundError, match="'zz'"):
        tl.chow_liu(path, root="zz")
    with pytest.raises(ValueError, match="chunksize"):
        tl.chow_liu(path, chunksize=0)
    (tmp_path / "header.csv").write_text("a,b\n")
    with pytest.raises(tl.EmptyDataError, match="no rows"):
        tl.chow_liu(tmp_path / "header.csv")


def test_chunks_change_nothing_in_other_settings(alarm, tmp_path):
    path = write(alarm, tmp_path / "alarm.csv", "csv")
    for kwargs in ({"forest": "bic"}, {"root": "HR", "mi_alpha": 1.0, "prior": "bdeu"}):
        assert_same(tl.chow_liu(path, chunksize=777, **kwargs), tl.chow_liu(alarm, **kwargs))


def _peak_bytes(path, chunksize: int) -> int:
    tracemalloc.start()
    count_file(path, chunksize=chunksize)  # the part that sees the rows
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def wide_frame(n: int, seed: int) -> pd.DataFrame:
    return pd.concat([mixed_frame(n, 2 * seed + k).add_suffix(str(k)) for k in range(2)], axis=1)


def test_memory_does_not_grow_with_rows(tmp_path):
    small = wide_frame(10 * CHUNK, seed=0)
    large = pd.concat([wide_frame(10 * CHUNK, seed=1 + i) for i in range(10)], ignore_index=True)
    write(small, tmp_path / "small.csv", "csv")
    write(large, tmp_path / "large.csv", "csv")
    assert len(large) == 10 * len(small) == 100 * CHUNK
    _peak_bytes(tmp_path / "small.csv", CHUNK)  # warm caches and lazy imports
    peak_small = _peak_bytes(tmp_path / "small.csv", CHUNK)
    peak_large = _peak_bytes(tmp_path / "large.csv", CHUNK)
    # loading the large file whole would take ~10x the small one (~7 MB here); the
    # peaks differ only by garbage that waits a little longer for collection
    whole = large.memory_usage(deep=True).sum()
    assert peak_large < 1.5 * peak_small, (peak_small, peak_large)
    assert peak_large - peak_small < 0.05 * whole, (peak_small, peak_large, whole)


def test_mi_graph_of_a_path_is_streamed_too(alarm, tmp_path):
    path = write(alarm, tmp_path / "alarm.parquet", "parquet")
    streamed, whole = tl.mi_graph(path, mi_alpha=0.5), tl.mi_graph(alarm, mi_alpha=0.5)
    assert streamed.graph["n"] == whole.graph["n"] == len(alarm)
    for u, v, w in whole.edges(data="weight"):
        assert streamed[u][v]["weight"] == w


def test_parquet_suffix_in_any_case_is_read_as_parquet(tmp_path):
    pytest.importorskip("pyarrow")
    df = pd.DataFrame({"a": ["x", "y", "y", "x"], "b": [1, 2, 2, 1]})
    path = tmp_path / "DATA.PARQUET"
    df.to_parquet(path)
    expected = tl.chow_liu(df)
    assert tl.chow_liu(str(path), chunksize=2) == expected
    pd.testing.assert_frame_equal(tl.read_data(path), df)


def test_the_numeric_rule_holds_across_chunks(tmp_path):
    """Floats whose every value repeats are categories whether read whole or in chunks,
    even when a value's two occurrences lie in different chunks; a value seen once in
    the whole file is refused either way."""
    import warnings

    levels = np.arange(6) + 0.5
    # 3,000 rows in 3 chunks of 1,000: 0.5 appears once in the first chunk and once in the last
    dose = np.concatenate([[0.5], np.resize(levels[1:], 2998), [0.5]])  # the others cycle
    assert len(dose) == 3000
    df = pd.DataFrame({"dose": dose, "k": np.arange(3000) % 3})
    path = tmp_path / "dose.csv"
    df.to_csv(path, index=False)
    with warnings.catch_warnings(record=True) as whole_notes:
        warnings.simplefilter("always")
        whole = tl.chow_liu(df)
    with warnings.catch_warnings(record=True) as chunk_notes:
        warnings.simplefilter("always")
        chunked = tl.chow_liu(str(path), chunksize=1000)
    assert chunked == whole and chunked.states["dose"] == list(levels)
    for notes in (whole_notes, chunk_notes):
        assert [
            w.message.column for w in notes if isinstance(w.message, tl.NumericColumnWarning)
        ] == ["dose"]
    once = df.assign(dose=np.where(np.arange(3000) == 1500, 9.25, dose))  # 9.25 seen once
    once.to_csv(path, index=False)
    for data in (once, str(path)):
        with pytest.raises(tl.NumericColumnError, match=r"'dose'.*seen once \(e\.g\. 9\.25\)"):
            tl.chow_liu(data, chunksize=1000) if isinstance(data, str) else tl.chow_liu(data)


# ---------------------------------------------------------------- every problem at once
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_every_problem_of_a_file_in_one_error_as_in_memory(tmp_path, kind):
    """Problems spread over three chunks (an identifier with 50 labels per chunk, 150 in
    all; a float seen once in the middle chunk; gaps in the first and last) are found
    together, with the in-memory path's types, columns and words."""
    df = problem_frame(3 * CHUNK)
    path = write(df, tmp_path / f"p.{kind}", kind)
    with pytest.raises(tl.TableProblemsError) as whole:
        tl.chow_liu(df)
    with pytest.raises(tl.TableProblemsError) as streamed:
        tl.chow_liu(path, chunksize=CHUNK)
    assert problem_kinds(streamed.value) == problem_kinds(whole.value) == FRAME_PROBLEMS
    gaps, *others = streamed.value.problems
    assert str(gaps) == str(whole.value.problems[0]).replace("found (", f"found in {str(path)!r} (")
    assert [str(p) for p in others] == [str(p) for p in whole.value.problems[1:]]
    # no chunk alone shows them all: the scan decides at its end
    for start in range(0, len(df), CHUNK):
        with pytest.raises(tl.TreelearnError) as one:
            tl.chow_liu(df.iloc[start : start + CHUNK])
        assert problem_kinds(one.value) != FRAME_PROBLEMS
    # missing="pairwise": the same, without the missing values
    with pytest.raises(tl.TableProblemsError) as pairwise:
        tl.chow_liu(path, chunksize=CHUNK, missing="pairwise")
    assert problem_kinds(pairwise.value) == FRAME_PROBLEMS[1:]
    # missing="drop": 'e' is never observed, no row is left; said first, as in memory
    for data in (df, path):
        with pytest.raises(tl.EmptyDataError, match=r"every row.*'drop' leaves no rows"):
            tl.chow_liu(data, chunksize=CHUNK, missing="drop")


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_a_single_problem_of_a_file_raises_its_own_error(tmp_path, kind):
    df = problem_frame(3 * CHUNK)
    for cls, column in FRAME_PROBLEMS:
        path = write(df[["a", column]], tmp_path / f"{column}.{kind}", kind)
        # only the gaps of 'm' are a problem here (those of 'e' would be a second one)
        missing = "error" if column == "m" else "pairwise"
        with pytest.raises(getattr(tl, cls), match=repr(column)) as streamed:
            tl.chow_liu(path, chunksize=CHUNK, missing=missing)
        assert not isinstance(streamed.value, tl.TableProblemsError)
        assert streamed.value.column == column
        if cls != "MissingValuesError":  # that one names the file
            with pytest.raises(getattr(tl, cls)) as whole:
                tl.chow_liu(df[["a", column]], missing=missing)
            assert str(streamed.value) == str(whole.value)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_a_file_without_problems_gives_the_in_memory_model_and_notes(tmp_path, kind):
    import warnings

    df = problem_frame(3 * CHUNK, problems=False)
    path = write(df, tmp_path / f"ok.{kind}", kind)
    with warnings.catch_warnings(record=True) as whole_notes:
        warnings.simplefilter("always")
        whole = tl.chow_liu(df)
    with warnings.catch_warnings(record=True) as chunk_notes:
        warnings.simplefilter("always")
        streamed = tl.chow_liu(path, chunksize=CHUNK)
    assert_same(streamed, whole)
    notes = [
        [str(w.message) for w in ws if isinstance(w.message, tl.NumericColumnWarning)]
        for ws in (whole_notes, chunk_notes)
    ]
    assert notes[0] == notes[1] and len(notes[0]) == 3  # f1, f2 (repeated fractions), k (30)


# ---------------------------------------------------------------------------------- hostile inputs
def test_chunksize_one_is_batched(tmp_path):
    path = tmp_path / "t.csv"
    pd.DataFrame({"a": np.arange(20_000) % 3, "b": np.arange(20_000) % 2}).to_csv(path, index=False)
    chunks = list(iter_chunks(path, 1))
    assert len(chunks) == 20 and all(len(c) == MIN_CHUNK_ROWS for c in chunks)
    assert tl.chow_liu(path, chunksize=1) == tl.chow_liu(pd.read_csv(path))
