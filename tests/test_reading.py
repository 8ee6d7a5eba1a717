"""tl.read_data and the command line's data preparation, now the library's: the separator
found from the header, .tsv files, encodings, thousands and decimal marks, standard input,
ISO dates and identifier columns. Expected tables are written out by hand. Bad files
(ragged, not UTF-8, compressed, not Parquet, empty), directories and Parquet datasets,
Parquet columns of lists or repeated names: each a TreelearnError naming the file or the
column, in Python and on the command line."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pandas as pd
import pytest
from conftest import expect, tiny_frame

import treelearn as tl
from treelearn.cli._main import main
from treelearn.sources._dialect import EncodingNote
from treelearn.sources._reading import date_problems, separator_note, table_problems

EXPECTED = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})


@pytest.mark.parametrize(
    "name, text",
    [
        ("semi.csv", "a;b\n1;x\n2;y\n"),
        ("tabs.txt", "a\tb\n1\tx\n2\ty\n"),
        ("bars.csv", "a|b\n1|x\n2|y\n"),
        ("tabs.tsv", "a\tb\n1\tx\n2\ty\n"),
        ("comma.csv", "a,b\n1,x\n2,y\n"),
    ],
)
def test_the_separator_is_found_from_the_header(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    pd.testing.assert_frame_equal(tl.read_data(path), EXPECTED)
    pd.testing.assert_frame_equal(tl.read_data(io.StringIO(text)), EXPECTED)


def test_a_comma_header_stays_comma_separated_and_sep_can_be_given(tmp_path):
    path = tmp_path / "quoted.csv"
    path.write_text('"a;1",b\n1,x\n2,y\n')  # a ';' inside a quoted name is no separator
    assert tl.read_data(path).columns.tolist() == ["a;1", "b"]
    path.write_text("a;b,c\n1;x,2\n")
    assert tl.read_data(path).columns.tolist() == ["a;b", "c"]  # a comma in the header wins
    assert tl.read_data(path, sep=";").columns.tolist() == ["a", "b,c"]
    tsv = tmp_path / "odd.tsv"  # .tsv means tabs, whatever the header holds
    tsv.write_text("a;x\tb\n1;y\t2\n")
    assert tl.read_data(tsv).columns.tolist() == ["a;x", "b"]


def test_encoding_thousands_and_decimal(tmp_path):
    path = tmp_path / "de.csv"
    path.write_bytes("Stadt;Betrag\nKöln;1.234,5\nMünchen;12,25\n".encode("latin-1"))
    # not UTF-8: read as Windows-1252 (issue 39), with a note; the decimal commas and
    # thousands dots are found in a file separated by semicolons
    with pytest.warns(EncodingNote, match="not UTF-8 text: read as cp1252"):
        found = tl.read_data(path)
    assert found["Stadt"].tolist() == ["Köln", "München"]
    assert found["Betrag"].tolist() == [1234.5, 12.25]  # by hand
    df = tl.read_data(path, encoding="latin-1", thousands=".", decimal=",")
    assert df["Stadt"].tolist() == ["Köln", "München"]
    assert df["Betrag"].tolist() == [1234.5, 12.25]  # by hand
    with pytest.raises(tl.DataFileError, match="not ascii text"):
        tl.read_data(path, encoding="ascii")
    # Parquet columns have their types: the CSV options do not apply
    EXPECTED.to_parquet(tmp_path / "t.parquet")
    pd.testing.assert_frame_equal(tl.read_data(tmp_path / "t.parquet", sep=";"), EXPECTED)


def test_standard_input_and_empty_input(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("a;b\n1;x\n2;y\n"))
    import sys

    pd.testing.assert_frame_equal(tl.read_data(sys.stdin), EXPECTED)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(tl.EmptyDataError, match="standard input is empty"):
        tl.read_data(sys.stdin)


def test_the_note_for_a_table_read_with_the_wrong_separator():
    assert "separated by semicolons" in separator_note(pd.DataFrame({"a;b": [1]}))
    assert "separated by tabs" in separator_note(pd.DataFrame({"a\tb": [1]}))
    assert separator_note(pd.DataFrame({"a": [1]})) is None
    assert separator_note(EXPECTED) is None


def test_dates_and_identifiers_for_python_users():
    n = 12
    df = pd.DataFrame(
        {
            "id": [f"r{i}" for i in range(n)],
            "when": pd.date_range("2024-01-01", periods=n, freq="D").strftime("%Y-%m-%d"),
            "x": [0.5] * n,
            "g": ["a", "b"] * 6,
        }
    )
    assert tl.date_columns(df) == ["when"]
    assert tl.identifier_columns(df) == ["id", "when"]  # a date in every row is distinct too
    assert tl.identifier_columns(df.head(9)) == []  # too few rows to tell
    assert tl.identifier_columns(df, min_rows=5) == ["id", "when"]
    problems = date_problems(df, ["when"])
    assert [p.column for p in problems] == ["when"] and problems[0].fixes == ("discretize", "drop")
    assert date_problems(df, ["when"], keep=["when"]) == []  # kept: only too many dates count


def test_table_problems_collects_every_problem_and_the_notes():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "x": rng.normal(size=50),
            "g": ["a", None] * 25,
            "dose": rng.choice([0.5, 1.5], 50),
            "c": ["u", "v"] * 25,
        }
    )
    problems, notes = table_problems(df)
    assert sorted(p.column for p in problems) == ["g", "x"]
    problems, notes = table_problems(df[["dose", "c"]])  # no problem: the notes are given
    assert problems == [] and [n.column for n in notes] == ["dose"]
    problems, _ = table_problems(df, missing="drop", class_column="g")
    assert [p.column for p in problems] == ["x"]  # the class column has rules of its own


# ---------------------------------------------------------------------------------- hostile inputs
TINY = tiny_frame()  # four rows: text, numbers, booleans


def test_parquet_list_column_names_the_column(tmp_path):
    path = tmp_path / "l.parquet"
    pd.DataFrame({"b": [1, 2], "lst": [[1, 2], [3]]}).to_parquet(path)
    expect(tl.InputTypeError, "'lst'", tl.chow_liu, path)
    assert main(["learn", str(path)]) == 1  # one line on stderr, no traceback


def test_parquet_repeated_column_names_are_refused(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "dup.parquet"
    pq.write_table(
        pa.table(
            [pa.array([1, 2, 1]), pa.array([0, 1, 1]), pa.array([3, 3, 4])], names=["a", "b", "a"]
        ),
        path,
    )
    for fit in (
        tl.chow_liu,
        lambda p: tl.TreeMixture(n_components=2).fit(p),
        lambda p: tl.NaiveBayes().fit(p, "b"),
    ):
        expect(tl.DuplicateColumnError, "duplicate column name(s) ['a']", fit, path)
    assert main(["learn", str(path)]) == 1  # one line on stderr, no traceback


def _write(path, data):
    (path.write_bytes if isinstance(data, bytes) else path.write_text)(data)
    return path


FILES = [
    ("ragged.csv", "a,b\n1,2\n3,4,5\n", tl.DataFileError, "well-formed CSV"),
    # gzip bytes under a plain name: known by their magic number, not as "not UTF-8"
    ("gzip.csv", gzip.compress(b"a,b\n1,2\n"), tl.DataFileError, "gzip-compressed data"),
    ("fake.parquet", "a,b\n1,2\n", tl.DataFileError, "Parquet"),
    ("empty.csv", "", tl.EmptyDataError, "empty"),
]


@pytest.mark.parametrize("name, content, error, pattern", FILES, ids=[f[0] for f in FILES])
def test_bad_files(tmp_path, name, content, error, pattern, capsys):
    path = _write(tmp_path / name, content)
    for reader in (tl.read_data, tl.chow_liu, tl.mi_graph):
        expect(error, pattern, reader, path)
        expect(error, name, reader, path)
    assert main(["learn", str(path)]) == 1
    assert name in capsys.readouterr().err


def test_directory_without_parquet(tmp_path):
    _write(tmp_path / "a.csv", "a\n1\n")
    expect(tl.DataFileError, "directory", tl.read_data, tmp_path)
    expect(tl.DataFileError, "directory", tl.chow_liu, tmp_path)


def test_parquet_dataset_directory_is_accepted(tmp_path):
    ds = tmp_path / "ds"
    ds.mkdir()
    TINY.iloc[:2].to_parquet(ds / "part.0.parquet")
    TINY.iloc[2:].to_parquet(ds / "part.1.parquet")
    assert tl.read_data(ds).equals(TINY)
    assert tl.chow_liu(ds) == tl.chow_liu(TINY)
    assert main(["learn", str(ds), "-o", str(tmp_path / "m.json")]) == 0


def test_whole_file_and_streaming_reads_give_the_same_states(tmp_path):
    # pandas' low-memory reader parses blocks of ~260,000 rows separately: "1" became 1
    path = tmp_path / "mixed.csv"
    path.write_text("a,b\n" + "1,0\n" * 300_000 + "x,1\n")
    whole = tl.read_data(path)
    assert sorted(whole["a"].unique()) == ["1", "x"]
    assert tl.chow_liu(path).states["a"] == tl.chow_liu(whole).states["a"] == ["1", "x"]
