"""A CSV file of several chunks is read once: its chunks are counted in the states pass
against states that grow (sources/_growing.py), then permuted into the final order.

The reference is the in-memory fit of the same file read whole (another path: one
``encode`` of the whole table), and pair blocks are checked against ``pd.crosstab``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.sources import _files as stream
from treelearn.sources._files import count_file
from treelearn.sources._growing import GrowingCounts

CHUNK = 1000


def late_frame(n: int = 4 * CHUNK, seed: int = 0) -> pd.DataFrame:
    """Dependent text, integer, bool and whole-float columns, with states that first
    appear in a late chunk: 'zz' and 99 only in the last chunk, 'late' missing in the
    first two chunks, 'f' sorted otherwise than first seen."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))
    text = np.array(["mid", "hi", "lo"])[b].astype(object)
    text[-5:] = "zz"  # a new state in the last chunk, sorted last
    ints = a + 10
    ints[-3:] = 99
    ints[-7:-3] = 1  # sorted first, seen first in the last chunk
    late = np.where(rng.random(n) < 0.7, b, rng.integers(0, 3, n)).astype(float)
    late[: 2 * CHUNK] = np.nan
    return pd.DataFrame(
        {
            "text": text,
            "int": ints,
            "bool": (b % 2 == 0),
            "float": np.where(rng.random(n) < 0.6, a, 2).astype(float) + 0.5,
            "late": late,
        }
    )


def assert_same(streamed: tl.TreeModel, whole: tl.TreeModel) -> None:
    assert streamed.states == whole.states
    assert sorted(streamed.graph.edges) == sorted(whole.graph.edges)
    for v in whole.variables:
        assert streamed.parents(v) == whole.parents(v)
        np.testing.assert_array_equal(streamed.cpt(v), whole.cpt(v))
    np.testing.assert_array_equal(streamed.counts.joint, whole.counts.joint)
    assert streamed.counts.n_rows == whole.counts.n_rows


def count_reads(monkeypatch) -> list:
    """Every ``pd.read_csv`` call that reads rows (the header read, ``nrows=0``, aside)."""
    reads = []
    real = pd.read_csv

    def spy(*args, **kwargs):
        if kwargs.get("nrows") != 0:
            reads.append(kwargs.get("chunksize"))
        return real(*args, **kwargs)

    monkeypatch.setattr(stream.pd, "read_csv", spy)
    return reads


def test_a_file_of_several_chunks_is_read_once_and_fits_as_in_memory(tmp_path, monkeypatch):
    df = late_frame()
    path = tmp_path / "late.csv"
    df.to_csv(path, index=False)
    whole_frame = pd.read_csv(path)
    whole = tl.chow_liu(whole_frame, missing="pairwise", alpha=0.5)
    reads = count_reads(monkeypatch)
    streamed = tl.chow_liu(path, chunksize=CHUNK, missing="pairwise", alpha=0.5)
    assert reads == [CHUNK]  # one chunked read of the file, no second pass
    assert_same(streamed, whole)
    # the states in sorted order, new ones from the last chunk among them
    assert streamed.states["text"] == ["hi", "lo", "mid", "zz"]
    assert streamed.states["int"] == [1, 10, 11, 12, 99]
    assert streamed.states["bool"] == [False, True]
    assert streamed.states["late"] == [0.0, 1.0, 2.0]
    # a pair block against pandas' crosstab of the file read whole
    counted = count_file(path, chunksize=CHUNK, missing="pairwise")
    i, j = counted.columns.index("text"), counted.columns.index("int")
    expected = pd.crosstab(whole_frame["text"], whole_frame["int"]).reindex(
        index=streamed.states["text"], columns=streamed.states["int"], fill_value=0
    )
    np.testing.assert_array_equal(counted.counts.block(i, j), expected.to_numpy())


@pytest.mark.parametrize("missing", ["drop", "pairwise"])
def test_weights_missing_values_and_given_states_in_one_pass(tmp_path, monkeypatch, missing):
    df = late_frame(seed=1)
    df["float"] = df["float"].mask(np.arange(len(df)) % 97 == 0)  # gaps in every chunk
    weights = np.random.default_rng(2).integers(0, 3, len(df))
    path = tmp_path / "w.csv"
    df.assign(w=weights).to_csv(path, index=False)
    given = {"bool": [True, False], "text": ["zz", "mid", "lo", "hi", "unseen"]}
    whole = tl.chow_liu(
        pd.read_csv(path).drop(columns="w"), missing=missing, states=given, sample_weight=weights
    )
    reads = count_reads(monkeypatch)
    streamed = tl.chow_liu(path, chunksize=CHUNK, missing=missing, states=given, sample_weight="w")
    assert len(reads) == 1
    assert_same(streamed, whole)
    assert streamed.states["text"] == given["text"]  # given order, unseen state kept


def test_growing_counts_pad_and_permute_to_the_one_hot_product():
    rng = np.random.default_rng(5)
    parts = [
        pd.DataFrame({"x": rng.choice(list(values), 50), "y": rng.integers(lo, hi, 50)})
        for values, lo, hi in [("ba", 3, 5), ("bc", 0, 4), ("dab", 2, 6)]
    ]
    grow = GrowingCounts(("x", "y"), {})
    for part in parts:
        grow.add(part, "error")
    rows = pd.concat(parts, ignore_index=True)
    assert grow.states == [list(dict.fromkeys(rows[c].tolist())) for c in "xy"]  # first seen
    final = [["a", "b", "c", "d"], [0, 1, 2, 3, 4, 5]]
    one_hot = np.hstack(
        [
            (rows[[c]].to_numpy() == np.array(s, dtype=object)).astype(int)
            for c, s in zip("xy", final)
        ]
    )
    np.testing.assert_array_equal(grow.joint(final), one_hot.T @ one_hot)
    assert grow.n_rows == 150


def test_a_state_that_does_not_map_one_to_one_asks_for_a_second_pass():
    grow = GrowingCounts(("x",), {})
    grow.add(pd.DataFrame({"x": ["a", "b"] * 600}), "error")
    assert grow.joint([["a"]]) is None
    assert grow.joint([["a", "b"]]).tolist() == [[600, 0], [0, 600]]


def test_a_column_past_max_states_stops_counting_and_the_scan_refuses_it(tmp_path, monkeypatch):
    df = pd.DataFrame({"id": [f"r{i}" for i in range(3 * CHUNK)], "a": [0, 1, 2] * CHUNK})
    path = tmp_path / "id.csv"
    df.to_csv(path, index=False)
    with pytest.raises(tl.TooManyStatesError, match="'id'") as streamed:
        tl.chow_liu(path, chunksize=CHUNK)
    with pytest.raises(tl.TooManyStatesError) as whole:
        tl.chow_liu(df)
    assert str(streamed.value) == str(whole.value)


def test_pair_counts_past_the_memory_limit_are_refused_as_before(tmp_path, monkeypatch):
    # 4 columns of 30 states in the last chunk only: K = 4 + 3 * 30 grows past the limit late
    n = 3 * CHUNK
    df = pd.DataFrame({c: np.r_[np.zeros(n - 30, dtype=int), np.arange(30)] for c in "abc"})
    df["d"] = np.arange(n) % 4
    path = tmp_path / "wide.csv"
    df.to_csv(path, index=False)
    width = 3 * 30 + 4
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 8 * (2 * width**2 + 2 * 4**2) - 1)
    with pytest.raises(tl.ResourceLimitError, match=f"{width} one-hot indicators"):
        tl.chow_liu(path, chunksize=CHUNK)
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 8 * (2 * width**2 + 2 * 4**2))
    assert_same(tl.chow_liu(path, chunksize=CHUNK), tl.chow_liu(pd.read_csv(path)))


def test_an_integer_column_with_a_gap_in_a_late_chunk_gets_float_states(tmp_path, monkeypatch):
    df = late_frame(seed=3)
    df["int"] = df["int"].astype("Int64").mask(np.arange(len(df)) == len(df) - 10)  # "10", ""
    path = tmp_path / "gap.csv"
    df.to_csv(path, index=False)
    reads = count_reads(monkeypatch)
    streamed = tl.chow_liu(path, chunksize=CHUNK, missing="pairwise")
    assert len(reads) == 1
    assert_same(streamed, tl.chow_liu(pd.read_csv(path), missing="pairwise"))
    # integers in the first chunks, floats in the last, as read whole: float states
    assert streamed.states["int"] == [1.0, 10.0, 11.0, 12.0, 99.0]
    assert all(type(s) is float for s in streamed.states["int"])


def test_scans_merged_in_groups_equal_the_merges_one_at_a_time():
    """Scan.merge_all (the states pass's grouped merge) against the pairwise fold it
    replaces: chunks of text, integers, floats with repeats, missing values, one column
    of mixed dtypes across chunks (the fold is kept there), categories."""
    rng = np.random.default_rng(3)
    parts = []
    for k in range(7):
        n = 200
        frame = pd.DataFrame(
            {
                "t": rng.choice(["a", "b", "c", f"x{k}"], n),
                "i": rng.integers(0, 5 + k, n),
                "f": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 4, n) / 2),
                "m": rng.integers(0, 3, n) if k % 2 else rng.choice(["1", "2"], n),
                "c": pd.Categorical(rng.choice(["u", "v"], n), categories=["v", "u", f"w{k % 3}"]),
            }
        )
        parts.append(stream.scan_chunk(frame, "pairwise"))
    folded = parts[0]
    for p in parts[1:]:
        folded = folded.merge(p)
    grouped = stream.Scan.merge_all(parts)
    assert grouped.n_rows == folded.n_rows and grouped.n_kept == folded.n_kept
    assert np.array_equal(grouped.missing, folded.missing)
    for a, b in zip(grouped.scans, folded.scans):
        assert (
            a.kinds,
            a.categories,
            a.ordered,
            a.dtype,
            a.value_kinds,
            a.nonfinite,
            a.hashed,
        ) == (b.kinds, b.categories, b.ordered, b.dtype, b.value_kinds, b.nonfinite, b.hashed)
        assert (a.distinct is None) == (b.distinct is None)
        if a.distinct is not None:
            assert a.distinct.dtype == b.distinct.dtype
            assert a.distinct.tolist() == b.distinct.tolist()
            assert [type(v) for v in a.distinct] == [type(v) for v in b.distinct]
            assert np.array_equal(a.repeats, b.repeats)
