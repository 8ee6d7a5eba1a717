"""tl.read_data and the command line's data preparation, now the library's: the separator
found from the header, .tsv files, encodings, thousands and decimal marks, standard input,
ISO dates and identifier columns. Expected tables are written out by hand."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
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
