"""A CSV counted without given states takes its header from its first chunk
(sources/_files.count_file: one read of the file less than a header read beside the rows,
issue 41's ``chow_liu(path)`` against ``read_csv`` + fit). Each check compares with the
header pandas reads (``read_csv(nrows=0)``, what ``read_header`` gives) and with the
model of the same file read whole."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.sources import _files


def _table(n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    return pd.DataFrame(
        {
            "a": a,
            "b": np.where(rng.random(n) < 0.8, a % 2, 1 - a % 2),
            "c": rng.choice(["x", "y"], n),
            "w": rng.integers(1, 3, n),
        }
    )


@pytest.fixture
def header_reads(monkeypatch):
    """Counts the calls of read_header (still answering them)."""
    calls: list = []
    original = _files.read_header

    def counted(path):
        calls.append(path)
        return original(path)

    monkeypatch.setattr(_files, "read_header", counted)
    return calls


@pytest.mark.parametrize("chunksize", [200_000, 100])  # one chunk; several chunks
def test_no_header_read_and_the_model_of_the_frame(tmp_path, header_reads, chunksize):
    path = tmp_path / "t.csv"
    df = _table().drop(columns="w")
    df.to_csv(path, index=False)
    model = tl.chow_liu(path, chunksize=chunksize)
    assert header_reads == []
    assert model == tl.chow_liu(pd.read_csv(path))
    assert list(model.variables) == list(pd.read_csv(path, nrows=0).columns)


def test_repeated_names_are_refused_before_pandas_renames_them(tmp_path, header_reads):
    # pandas reads the header "a,a,b" as a, a.1, b: the file is refused instead, naming 'a'
    # (tests/test_repeated_header_names.py: every reader, the command's words)
    path = tmp_path / "dup.csv"
    path.write_text("a,a,b\n0,1,0\n1,1,0\n0,0,1\n1,0,1\n")
    assert list(pd.read_csv(path, nrows=0).columns) == ["a", "a.1", "b"]
    with pytest.raises(tl.DuplicateColumnError, match=r"names column\(s\) \['a'\] more than once"):
        _files.count_file(path)
    assert header_reads == []


def test_weights_from_a_column_and_a_missing_weight_column(tmp_path, header_reads):
    path = tmp_path / "w.csv"
    df = _table()
    df.to_csv(path, index=False)
    weighted = tl.chow_liu(path, sample_weight="w")
    assert header_reads == []
    rows = df.loc[df.index.repeat(df["w"])].drop(columns="w")
    assert weighted == tl.chow_liu(rows.reset_index(drop=True))  # integer weights: repeats
    with pytest.raises(tl.ColumnNotFoundError, match=r"sample_weight='v' is not a column"):
        tl.chow_liu(path, sample_weight="v")


def test_a_file_of_a_header_alone_is_still_refused(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("a,b\n")
    with pytest.raises(tl.TreelearnError, match="no rows"):
        tl.chow_liu(path)


def test_given_states_still_read_the_header_first(tmp_path, header_reads):
    # text states make their column text before the first chunk is read
    path = tmp_path / "s.csv"
    pd.DataFrame({"a": ["1", "2", "1", "2"], "b": [0, 1, 1, 0]}).to_csv(path, index=False)
    counted = _files.count_file(path, states={"a": ["1", "2"]})
    assert len(header_reads) == 1
    assert counted.states[0] == ("1", "2")
    with pytest.raises(tl.ColumnNotFoundError, match="states given for"):
        _files.count_file(path, states={"z": [0, 1]})
