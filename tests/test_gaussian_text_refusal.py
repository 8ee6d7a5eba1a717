"""The Gaussian classifiers refuse a column that holds states in one message, whether they
read a table in memory or a file in chunks where the column turns to text in a later chunk
(issue 39, item 5): the column, its first cell that is not a number (value and row, rows
numbered as the table read whole numbers them) and the fixes in Python's words (the mixed
classifier, or dropping it). Before, the chunk where a file's column turned to text was
refused as "column 'x' is not numeric (dtype str, e.g. '-0.657'); GaussianClassifier needs
numeric columns only: drop it, or encode it as numbers": another wording, the first value
of the chunk (a number written as text) instead of the text that made it text.

The row and value are found independently with pandas (the whole read's index of the first
cell that ``pd.to_numeric`` cannot read; the first chunk pandas reads as text).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
import treelearn.sources._chunks as chunks
from treelearn.sources._files import MIN_CHUNK_ROWS, iter_chunks

N = 3_500
TURN = 2 * MIN_CHUNK_ROWS + 321  # in the third 1,000-row chunk


@pytest.fixture
def late_text(tmp_path) -> Path:
    """``x``: numbers with one ``"unknown"`` at row TURN; ``z``: numbers; ``label``."""
    rng = np.random.default_rng(0)
    label = rng.choice(["a", "b"], N)
    x = np.round(rng.normal(size=N) + (label == "b"), 3).astype(object)
    x[TURN] = "unknown"
    frame = pd.DataFrame({"x": x, "z": rng.normal(size=N), "label": label})
    path = tmp_path / "late.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def small_chunks(monkeypatch):
    """The per-class file passes read 1,000 rows at a time (iter_chunks' floor)."""
    monkeypatch.setattr(chunks, "iter_chunks", lambda path, chunksize: iter_chunks(path, 1))


def _turn(path: Path) -> tuple[int, str, int]:
    """``(row, value, chunk start)`` by pandas alone: the first cell of the whole read that
    is not a number, and the first 1,000-row chunk pandas reads as text."""
    whole = pd.read_csv(path, low_memory=False)
    bad = pd.to_numeric(whole["x"], errors="coerce").isna() & whole["x"].notna()
    row = int(whole.index[bad.to_numpy()][0])
    starts = [
        i * MIN_CHUNK_ROWS
        for i, c in enumerate(pd.read_csv(path, chunksize=MIN_CHUNK_ROWS))
        if not pd.api.types.is_numeric_dtype(c["x"].dtype)
    ]
    return row, whole["x"].iloc[row], starts[0]


CLASSIFIERS = [
    (tl.GaussianClassifier, {}, "MixedNaiveBayes"),
    (tl.GaussianClassifier, {"covariance": "full"}, "MixedNaiveBayes"),
    (tl.GaussianTAN, {}, "MixedTAN"),
]


@pytest.mark.parametrize(("cls", "options", "instead"), CLASSIFIERS)
def test_a_file_turning_to_text_is_refused_as_the_table_is(
    late_text, small_chunks, cls, options, instead
):
    row, value, start = _turn(late_text)
    assert (row, value, start) == (TURN, "unknown", 2 * MIN_CHUNK_ROWS)  # the premise
    whole = pd.read_csv(late_text, low_memory=False)
    with pytest.raises(tl.TreelearnError) as table:
        cls(**options).fit(whole.drop(columns=["label"]), whole["label"])
    with pytest.raises(tl.TreelearnError) as file:
        cls(**options).fit(late_text, "label")
    name = cls.__name__
    words = (
        f"column 'x' is not numeric (row {row}: {value!r}; states: text, categories, booleans "
        f"or dates) and {name} takes numbers only; learn the {{}} as it is with tl.{instead}() "
        f"(its numbers Gaussian, its other columns categorical), or drop it ({{}}(columns=['x']))"
    )
    assert str(table.value) == words.format("table", "X.drop")
    # the file's: the chunk where the column turns, then the same words
    where = f"{late_text}, rows {start}-{start + MIN_CHUNK_ROWS - 1}: "
    assert str(file.value) == where + words.format("file", "tl.read_data(path).drop")
    for error in (table.value, file.value):
        assert (error.column, error.values) == ("x", [value])


def test_a_table_names_each_state_columns_first_cell(tmp_path):
    """Several columns of states: each named with its first cell that is not a number (a
    boolean, a category, text after numbers); the index labels are the rows."""
    rows = pd.DataFrame(
        {
            "n": [1.0, 2.0, 3.0, 4.0],
            "flag": [None, True, False, True],
            "kind": pd.Categorical([None, None, "b", "a"]),
            "code": ["1", "2", "2", "x9"],
            "label": ["p", "q", "p", "q"],
        },
        index=[10, 11, 12, 13],
    )
    with pytest.raises(tl.TreelearnError) as info:
        tl.GaussianClassifier().fit(rows.drop(columns=["label"]), rows["label"])
    message = str(info.value)
    assert message.startswith(
        "columns 'flag', 'kind', 'code' are not numeric ('flag' row 11: True; 'kind' row 12: "
        "'b'; 'code' row 13: 'x9'; states: text, categories, booleans or dates)"
    )
    assert "tl.MixedNaiveBayes()" in message
    assert "X.drop(columns=['flag', 'kind', 'code'])" in message


def test_the_fixes_named_for_the_file(late_text):
    """The mixed classifier named reads the file as the table read whole: its column of
    numbers and one text is states, refused for its many values in the whole read's own
    words; dropping the column (the other fix) learns."""
    with pytest.raises(tl.TooManyStatesError, match="column 'x' has"):
        tl.MixedNaiveBayes().fit(late_text, "label")
    fixed = late_text.with_name("fixed.csv")
    pd.read_csv(late_text, low_memory=False).drop(columns=["x"]).to_csv(fixed, index=False)
    assert list(tl.GaussianClassifier().fit(fixed, "label").classes_) == ["a", "b"]
