"""Integer frames encoded through int8 (issue 41: a fit's fixed costs): where every
column's bitwise OR is in 0..126 the values are narrowed to int8 in one pass before the
minima, maxima and codes; 0/1 columns take the narrowed copy as their codes. Each case is
checked against the column-by-column encoder (the fast paths switched off) and against
``np.unique`` (states sorted, codes their positions), at the OR's edges: 126 (narrowed),
127 with every value below 127 (``{63, 64}``: not narrowed), negatives (the sign bit),
uint64 values past 2**63, all-zero, all-one and 0/1 columns, ``max_states=1``."""

import numpy as np
import pandas as pd
import pytest
from test_data import _plain_encode

import treelearn as tl
from treelearn.encoding._table import encode

PATTERNS = {
    "zero-one": [0, 1],
    "all zero": [0],
    "all one": [1],
    "or 126": [62, 64],  # 62 | 64 = 126: narrowed
    "or 127": [63, 64],  # 63 | 64 = 127 though both < 127: the wide path
    "0..126": list(range(0, 127, 7)) + [126],
    "gaps": [5, 9, 40],
    "past int8": [130, 131],  # 130 | 131 = 131: one byte, but not int8's
    "negative": [-1, 0, 1],
    "large": [1000, 1001],
}


def oracle(df):
    """States (sorted unique values, as Python ints) and codes (their positions)."""
    states, codes = [], []
    for c in df.columns:
        u, inverse = np.unique(df[c].to_numpy(), return_inverse=True)
        states.append(tuple(int(x) for x in u))
        codes.append(inverse)
    return tuple(states), np.column_stack(codes)


@pytest.mark.parametrize("dtype", ["int16", "int32", "int64", "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_narrowed_codes_equal_the_column_path_and_unique(dtype, order):
    rng = np.random.default_rng(3)
    n = 200
    for name, values in PATTERNS.items():
        if dtype.startswith("uint") and min(values) < 0:
            continue
        columns = [rng.choice(values, n) for _ in range(3)]
        columns.append(np.zeros(n, dtype=np.int64))  # an all-zero column beside them
        columns.append(rng.integers(0, 2, n))  # and a 0/1 one
        A = np.array(np.column_stack(columns), dtype=dtype, order=order)
        df = pd.DataFrame(A, columns=[f"c{j}" for j in range(A.shape[1])])
        fast, plain = encode(df), _plain_encode(df)
        states, codes = oracle(df)
        assert fast.states == plain.states == states, name
        assert [type(s) for t in fast.states for s in t] == [int] * sum(map(len, states))
        assert fast.codes.dtype == plain.codes.dtype == np.int8
        np.testing.assert_array_equal(fast.codes, codes)
        np.testing.assert_array_equal(plain.codes, codes)
        assert tl.chow_liu(df) == tl.chow_liu(df.astype(object)), name  # the object path


def test_uint64_past_two_to_the_63():
    df = pd.DataFrame({"a": np.array([2**63, 2**63 + 1, 2**63], dtype=np.uint64), "b": [0, 1, 1]})
    df["b"] = df["b"].astype(np.uint64)
    t = encode(df)
    assert t.states == ((2**63, 2**63 + 1), (0, 1))
    np.testing.assert_array_equal(t.codes, [[0, 0], [1, 1], [0, 1]])


def test_max_states_one_refuses_a_zero_one_column():
    df = pd.DataFrame({"a": np.array([0, 1, 0], dtype=np.int64)})
    with pytest.raises(tl.TreelearnError, match="max_states"):
        encode(df, max_states=1)
    assert encode(pd.DataFrame({"a": np.zeros(3, dtype=np.int64)}), max_states=1).states == ((0,),)


def test_the_callers_frame_is_not_changed():
    A = np.array([[0, 1], [1, 1], [0, 0]], dtype=np.int64)
    df = pd.DataFrame(A.copy(), columns=["a", "b"])
    t = encode(df)
    t.codes[:] = 5  # the codes are the encoder's own copy
    np.testing.assert_array_equal(df.to_numpy(), A)


@pytest.mark.parametrize(
    "names",
    [
        pd.Index(["a", "b"]),
        pd.Index([1, 2]),
        pd.Index([1.5, 2.0]),
        pd.Index([np.str_("a"), 3], dtype=object),
        pd.MultiIndex.from_tuples([("a", 1), ("b", 2)]),
        pd.DatetimeIndex(["2020-01-01", "2021-01-01"]),
        pd.RangeIndex(2),
        pd.CategoricalIndex(["x", "y"]),
    ],
    ids=lambda i: type(i).__name__ + str(i.dtype),
)
def test_column_names_are_the_ones_iteration_gives(names):
    # the encoder reads the names with Index.tolist (fast on pandas' text Index): the same
    # objects, of the same types, as iterating the columns
    df = pd.DataFrame(np.array([[0, 1], [1, 1], [0, 0]], dtype=np.int64), columns=names)
    t = encode(df)
    assert t.columns == tuple(iter(df.columns))
    assert [type(c) for c in t.columns] == [type(c) for c in iter(df.columns)]
    assert tl.chow_liu(df).variables == list(iter(df.columns))
