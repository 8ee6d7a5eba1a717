"""A CSV header line that names a column twice is refused, by every reader.

pandas reads the header ``a,a,b`` as ``a, a.1, b``: the model then has a column ``a.1``
the file does not name (and a file without a header line, whose first row of data
becomes the names, loses that row the same way, its repeated values renamed). The
dialect sniffed from the file's first bytes (``sources/_dialect.py``) holds the header's
names as written, so every reader refuses such a file with a DuplicateColumnError that
names the column and the fix.
"""

from __future__ import annotations

import gzip

import pandas as pd
import pytest
from conftest import run_cli

import treelearn as tl
from treelearn.sources._dialect import SNIFF_BYTES, csv_dialect, repeated_header_names

ROWS = "0,1,0\n1,1,0\n0,0,1\n1,0,1\n"
NAMED_TWICE = r"names column\(s\) \['a'\] more than once in its header line"


@pytest.fixture
def twice(tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text("a,b,a\n" + ROWS)
    return path


def test_pandas_renames_the_second_name(twice):
    # the behaviour refused: what pandas makes of the header
    assert list(pd.read_csv(twice).columns) == ["a", "b", "a.1"]


@pytest.mark.parametrize(
    "read",
    [
        tl.chow_liu,
        tl.io.read_data,
        lambda path: tl.chow_liu(path, chunksize=2),
        lambda path: tl.TAN().fit(path, "b"),
    ],
    ids=["chow_liu", "read_data", "chow_liu in chunks", "TAN of the file"],
)
def test_every_python_reader_refuses_it(twice, read):
    with pytest.raises(tl.DuplicateColumnError, match=NAMED_TWICE) as refused:
        read(twice)
    assert refused.value.column == "a"
    assert "rename them in the file" in str(refused.value)


@pytest.mark.parametrize(
    "name, text",
    [
        ("semi.csv", "a;b;a\n0;1;0\n1;1;0\n"),
        ("tabs.tsv", "a\tb\ta\n0\t1\t0\n1\t1\t0\n"),
        ("quoted.csv", '"a","b","a"\n0,1,0\n1,1,0\n'),
        ("bom.csv", "\ufeffa,b,a\n0,1,0\n1,1,0\n"),
    ],
)
def test_any_separator_quotes_and_byte_order_mark(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(tl.DuplicateColumnError, match=NAMED_TWICE):
        tl.io.read_data(path)


def test_a_gzip_file_is_read_decompressed(tmp_path):
    path = tmp_path / "twice.csv.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("a,b,a\n" + ROWS)
    with pytest.raises(tl.DuplicateColumnError, match=NAMED_TWICE):
        tl.chow_liu(path)


def test_a_file_without_a_header_line_is_refused_with_the_hint(tmp_path):
    path = tmp_path / "data_only.csv"
    path.write_text("0,1,1,0\n" + "1,1,0,0\n0,0,1,1\n")
    with pytest.raises(tl.DuplicateColumnError, match=r"\['1', '0'\].*add a line of column names"):
        tl.chow_liu(path)


def test_names_alike_but_not_equal_are_kept(tmp_path):
    # "a" and "a.1" written so, a quoted comma, a space, and two empty names (trailing
    # separators: pandas' Unnamed columns, refused or not as before, for what they hold)
    assert repeated_header_names('a,a.1,"a,",a ,,', ",") == []
    path = tmp_path / "alike.csv"
    path.write_text('a,a.1,"a,",a \n0,1,0,1\n1,1,0,0\n0,0,1,1\n')
    assert list(tl.chow_liu(path).variables) == ["a", "a.1", "a,", "a "]


def test_a_name_cut_short_at_the_sniffed_bytes_is_not_taken_for_a_repeat(tmp_path):
    # a header longer than the bytes sniffed: its last name there is cut ("n1" of "n1xyz")
    head, i = "", 1
    while len(head) < SNIFF_BYTES - 100:
        head, i = head + f"n{i},", i + 1
    cut = head + "f" * (SNIFF_BYTES - 3 - len(head)) + ","  # SNIFF_BYTES - 2 characters
    line = cut + "n1" + "x" * 10 + ",zz"
    assert line.encode()[:SNIFF_BYTES].endswith(b",n1")
    path = tmp_path / "wide.csv"
    path.write_text(line + "\n" + "0," * line.count(",") + "1\n")
    assert csv_dialect(path).repeated_names == ()
    assert tl.io.read_data(path).shape == (1, line.count(",") + 1)
    # the same names as the head of a whole text: the cut name is a repeat there
    assert repeated_header_names(cut + "n1", ",") == ["n1"]


def test_the_command_refuses_it_and_says_how_to_fix_it(twice, tmp_path):
    for argv in (["learn", twice], ["learn", twice, "--class", "b"]):
        rc, out, err = run_cli(*argv)
        assert rc != 0 and out == ""
        assert "'a'" in err and "more than once in its header line" in err
        assert "rename them in the file" in err
    # a model's other commands read files the same way
    good = tmp_path / "good.csv"
    good.write_text("a,b,c\n" + ROWS)
    saved = tmp_path / "m.json"
    assert run_cli("learn", good, "-o", saved)[0] == 0
    rc, _, err = run_cli("score", saved, twice)
    assert rc != 0 and "more than once in its header line" in err


def test_a_stream_is_refused_alike():
    import io

    with pytest.raises(tl.DuplicateColumnError, match="the stream' names column"):
        tl.io.read_data(io.StringIO("a,b,a\n" + ROWS))
    assert list(tl.io.read_data(io.StringIO("a,b,c\n" + ROWS)).columns) == ["a", "b", "c"]
