"""The shortcuts a file's chunks take per column (issue 24) give what the general ways give.

``state_positions`` looks small sets of plain values up in a dict instead of a pandas
Index, and ``factorize`` encodes bool and Arrow text columns without ``pd.factorize``:
both are checked here against the general way, on values drawn to hit the corners of
equality (``1 == 1.0 == True``, ``-0.0``, NaN, numpy scalars, tuples, Timestamps).
"""

from __future__ import annotations

import datetime

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treelearn.encoding._table import state_index, state_positions
from treelearn.sources import _files as stream
from treelearn.sources._growing import factorize


def index_positions(values, states) -> np.ndarray:
    """``state_positions`` as it was before the dict: a pandas Index's get_indexer, then
    a bool never matching a number (the reference the dict must agree with)."""
    lookup = state_index(states)
    values = np.asarray(values, dtype=object)
    found = lookup.get_indexer(pd.Index(values, dtype=object, tupleize_cols=False))
    for i in np.flatnonzero(found >= 0):
        if isinstance(values[i], (bool, np.bool_)) != isinstance(
            lookup[found[i]], (bool, np.bool_)
        ):
            found[i] = -1
    return found


def outcome(fn, *args):
    try:
        out = fn(*args)
    except Exception as error:  # the same refusal (e.g. states that repeat) on both ways
        return type(error).__name__
    return out.dtype.str, out.tolist()


scalars = st.one_of(
    st.sampled_from(["a", "b", "NORMAL", "", "1", "True", "nan"]),
    st.integers(-3, 3),
    st.sampled_from([2**53, 2**53 + 1, 2**63]),
    st.sampled_from([0.0, -0.0, 1.0, 1.5, -2.0, float("inf"), float("nan"), 2.0**53]),
    st.builds(float, st.sampled_from(["nan", "-0.0", "1", "1.5"])),  # a new object each time
    st.booleans(),
    st.sampled_from(
        [
            np.int64(1),
            np.float64(1.0),
            np.float64("nan"),
            np.bool_(True),
            np.str_("a"),
            None,
            pd.NA,
            pd.Timestamp("2020-01-01"),
            datetime.date(2020, 1, 1),
            (1, "a"),
            (1.0, "a"),
            ("a",),
            1 + 0j,
        ]
    ),
)


@settings(max_examples=400, deadline=None)
@given(values=st.lists(scalars, max_size=8), states=st.lists(scalars, max_size=8))
def test_dict_lookup_matches_the_index(values, states):
    assert outcome(state_positions, values, states) == outcome(index_positions, values, states)
    distinct = list(dict.fromkeys(states))  # the same with a kept lookup, where one can be built
    try:
        lookup = state_index(distinct)
    except Exception:  # pragma: no cover - building an object Index does not fail on these
        return
    assert outcome(state_positions, values, distinct, lookup) == outcome(
        index_positions, values, distinct
    )


def test_dict_lookup_matches_the_index_on_the_edge_cases():
    cases = [
        (["b", 1.0, True, "z"], ["a", "b", 1]),  # 1.0 is 1; True is no number
        ([1, 0], [True, False]),  # nor a number a bool
        ([-0.0, 2**53 + 1], [0.0, float(2**53)]),  # -0.0 == 0.0; a big int is not its float
        ([1], [1, 1.0]),  # states that repeat: both ways refuse them
        ([float("nan")], [float("nan"), "a"]),  # NaN: the Index matches it (no dict)
        ([np.int64(1), np.str_("a")], [1, "a"]),  # numpy scalars: the Index decides
        ([], []),
    ]
    for values, states in cases:
        assert outcome(state_positions, values, states) == outcome(index_positions, values, states)
    big = list(range(300))  # past the dict's size: the Index
    assert state_positions(big[::-1], big).tolist() == big[::-1]


def check_factorize(series: pd.Series) -> None:
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    got_codes, got_uniques = factorize(series)
    assert got_codes.tolist() == codes.tolist()
    pd.testing.assert_index_equal(got_uniques, uniques, exact=True)
    assert type(got_uniques.array) is type(uniques.array)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), max_size=30))
def test_factorize_bool_columns(flags):
    check_factorize(pd.Series(flags, dtype=bool))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "", "é", "HIGH"])), max_size=12),
        min_size=1,
        max_size=3,
    )
)
def test_factorize_text_columns(parts):
    # several Arrow chunks (as a CSV chunk's columns are), missing values among them
    series = pd.concat([pd.Series(p, dtype="str") for p in parts], ignore_index=True)
    check_factorize(series)


@pytest.mark.parametrize(
    "series",
    [
        pd.Series([1, 2, 1]),
        pd.Series([0.5, np.nan, 0.5]),
        pd.Series(["a", None, 1], dtype=object),
        pd.Series(pd.Categorical(["b", "a", "b"])),
        pd.Series([True, None, False], dtype=object),
        pd.Series(["x", None], dtype="string[python]"),
        pd.Series([], dtype=bool),
        pd.Series([], dtype="str"),
    ],
)
def test_factorize_other_columns_as_pandas(series):
    check_factorize(series)


def test_factorize_arrow_text_of_other_dtypes():
    pa = pytest.importorskip("pyarrow")
    check_factorize(pd.Series(["b", None, "a", "b"], dtype="string[pyarrow]"))  # NA, not NaN
    check_factorize(pd.Series(["b", "a"], dtype=pd.ArrowDtype(pa.string())))  # pandas' way


def test_scans_with_the_same_distinct_values_merge_as_one_at_a_time():
    """Chunks whose columns show the same values in the same order (most columns of most
    chunks: merge_all then keeps the first's) merged in one step and one at a time alike:
    floats seen once in one chunk and again in another, 0.0 in one and -0.0 in another,
    bools, text, integers; and a chunk that shows them in another order."""

    def frame(k: int) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "t": pd.Series(
                    ["a", "b", "a", None] if k < 3 else ["b", "a", None, "b"], dtype="str"
                ),
                "b": [True, False, True, True],
                "i": [3, 1, 3, 1],
                "f": [0.5, -0.0 if k % 2 else 0.0, 1.5, 1.5] if k < 3 else [1.5, 0.0, 0.5, 0.5],
                "once": [0.25 + k % 2, 2.0, 2.0, np.nan],  # 0.25 seen once in chunks 0 and 2
                "same": [0.25, 2.0, 2.0, np.nan],  # 0.25 once in every chunk: repeated
            }
        )

    for n_parts in (3, 4):
        parts, grouped = compare_merges([frame(k) for k in range(n_parts)])
        assert all(s.repeats.dtype == np.uint8 for s in grouped.scans)
    assert grouped.scans[4].repeats.tolist() == [2, 2, 2]  # 0.25 in chunks 0 and 2: repeated
    assert grouped.scans[5].repeats.tolist() == [2, 2]
    # the dict merged every one of these columns (pandas merges object columns)
    assert all(stream._merge_small([p.scans[j] for p in parts]) is not None for j in range(6))
    objects = [stream.scan_chunk(pd.DataFrame({"o": [1, "a"]}), "pairwise") for _ in range(3)]
    assert stream._merge_small([p.scans[0] for p in objects]) is None


def compare_merges(frames: list) -> tuple:
    """The chunks' scans merged in one step equal the one-at-a-time fold (values, their
    types, -0.0 and repeats included); returns the scans and the merged one."""
    parts = [stream.scan_chunk(f, "pairwise") for f in frames]
    folded = parts[0]
    for p in parts[1:]:
        folded = folded.merge(p)
    grouped = stream.Scan.merge_all(parts)
    for a, b in zip(grouped.scans, folded.scans):
        assert (a.kinds, a.dtype, a.value_kinds, a.nonfinite, a.hashed) == (
            b.kinds,
            b.dtype,
            b.value_kinds,
            b.nonfinite,
            b.hashed,
        )
        assert (a.distinct is None) == (b.distinct is None)
        if a.distinct is not None:
            pd.testing.assert_series_equal(a.distinct, b.distinct, check_exact=True)
            assert [(type(v), v) for v in a.distinct] == [(type(v), v) for v in b.distinct]
            assert [str(v) for v in a.distinct] == [str(v) for v in b.distinct]  # -0.0 kept
            assert a.repeats.tolist() == b.repeats.tolist() and a.repeats.dtype == b.repeats.dtype
    return parts, grouped


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["a", "b", "c", "HIGH", None]), min_size=3, max_size=3),
            st.lists(st.integers(-2, 3), min_size=3, max_size=3),
            st.lists(
                st.sampled_from([0.0, -0.0, 0.5, 1.5, float("inf"), float("nan")]),
                min_size=3,
                max_size=3,
            ),
            st.lists(st.booleans(), min_size=3, max_size=3),
        ),
        min_size=3,
        max_size=9,
    )
)
def test_small_merges_equal_the_merges_one_at_a_time(chunks):
    compare_merges(
        [
            pd.DataFrame({"t": pd.Series(t, dtype="str"), "i": i, "f": f, "b": b})
            for t, i, f, b in chunks
        ]
    )
