"""A file holding a table in a format treelearn does not read is refused, saying what it is.

Anything not Parquet is read as CSV: a JSON-lines file was learned as a table of columns
named ``{"a":"x"`` (a silently wrong model), and a pickle, an Arrow file or gzip data under
a plain name was refused as "not UTF-8 text" with the advice to give its encoding.
``sources/_formats.py`` knows such files by their name or their first bytes; every test
here also runs the conversion the message gives and learns the converted file, which must
give the model of the original table.
"""

from __future__ import annotations

import bz2
import gzip
import pickle
import re
import sqlite3

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli

import treelearn as tl
from treelearn.sources._formats import table_format

TABLE = pd.DataFrame({"a": ["x", "y", "x", "y", "x", "y"], "b": ["p", "q", "p", "q", "q", "q"]})


def _convert(message: str, path) -> pd.DataFrame:
    """The table read by the pandas line the message gives (``path`` its file)."""
    line = re.search(r"e\.g\. (pd\.[^\n]*?)\.to_parquet\('table\.parquet'\)", message)
    assert line, message
    return eval(line.group(1), {"pd": pd, "np": np, "sqlite3": sqlite3, "path": str(path)})


def _refused(path) -> str:
    with pytest.raises(tl.DataFileError) as refused:
        tl.chow_liu(path)
    message = str(refused.value)
    assert repr(str(path)) in message
    for reader in (tl.io.read_data, lambda p: tl.TAN().fit(p, "b")):
        with pytest.raises(tl.DataFileError, match=re.escape(message)):
            reader(path)
    return message


WRITERS = {
    "t.json": lambda path: TABLE.to_json(path, orient="records"),
    "t.jsonl": lambda path: TABLE.to_json(path, orient="records", lines=True),
    "t.json.gz": lambda path: TABLE.to_json(path, orient="records"),  # pandas gzips it
    "default.json": lambda path: TABLE.to_json(path),  # one object on one line
    "lines.json": lambda path: TABLE.to_json(path, orient="records", lines=True),
    "t.pkl": lambda path: TABLE.to_pickle(path),
    "t.feather": lambda path: TABLE.to_feather(path),
}


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_known_suffix_is_refused_with_a_conversion_that_works(tmp_path, name):
    path = tmp_path / name
    WRITERS[name](path)
    message = _refused(path)
    assert "not a CSV or Parquet file" in message
    # one record a line (by the suffix, or a .json file's first two lines): lines=True
    assert ("lines=True" in message) == (name in ("t.jsonl", "lines.json"))
    assert tl.chow_liu(_convert(message, path)) == tl.chow_liu(TABLE)


@pytest.mark.parametrize(
    "name, write, what",
    [
        ("records", lambda p: TABLE.to_json(p, orient="records", lines=True), "JSON lines"),
        ("array.txt", lambda p: TABLE.to_json(p, orient="records"), "JSON"),
        ("pickled.csv", lambda p: p.write_bytes(pickle.dumps(TABLE, protocol=4)), "pickle"),
        ("arrow.csv", lambda p: TABLE.to_feather(p), "Arrow"),
    ],
)
def test_the_first_bytes_say_it_under_any_name(tmp_path, name, write, what):
    path = tmp_path / name
    write(path)
    message = _refused(path)
    assert what in message
    assert tl.chow_liu(_convert(message, path)) == tl.chow_liu(TABLE)


def test_an_sqlite_database(tmp_path):
    path = tmp_path / "t.csv"
    with sqlite3.connect(path) as db:
        TABLE.to_sql("t", db, index=False)
    message = _refused(path)
    assert "SQLite" in message
    assert tl.chow_liu(_convert(message, path)) == tl.chow_liu(TABLE)


@pytest.mark.parametrize(
    "name, write, suffix",
    [
        ("gzipped.csv", lambda p: p.write_bytes(gzip.compress(b"a,b\nx,p\ny,q\n")), ".gz"),
        ("bzipped.txt", lambda p: p.write_bytes(bz2.compress(b"a,b\nx,p\ny,q\n")), ".bz2"),
        ("parquet.csv", lambda p: TABLE.to_parquet(p), ".parquet"),
    ],
)
def test_a_format_read_under_its_own_suffix_only_is_told_to_rename(tmp_path, name, write, suffix):
    path = tmp_path / name
    write(path)
    message = _refused(path)
    assert f"rename it to end in {suffix}" in message
    renamed = path.rename(tmp_path / f"{name}{suffix}")
    expected = tl.chow_liu(TABLE) if suffix == ".parquet" else tl.chow_liu(pd.read_csv(renamed))
    assert tl.chow_liu(renamed) == expected


@pytest.mark.parametrize(
    "header",
    ["PAR1x,b", "BZhang,b", "[a],b", "{a},b", "ARROW1x,b", '"{""k"": 1}",b'],
)
def test_text_that_only_starts_like_a_magic_number_is_still_csv(tmp_path, header):
    path = tmp_path / "t.csv"
    path.write_text(header + "\n" + "x,p\ny,q\nx,q\ny,p\n")
    assert table_format(str(path)) is None
    assert list(tl.chow_liu(path).variables) == list(pd.read_csv(path).columns)


def test_a_directory_and_a_parquet_file_are_left_to_their_readers(tmp_path):
    TABLE.to_parquet(tmp_path / "t.parquet")
    assert table_format(str(tmp_path / "t.parquet")) is None
    assert table_format(str(tmp_path)) is None
    assert tl.chow_liu(tmp_path / "t.parquet") == tl.chow_liu(TABLE)


def test_the_command_refuses_json_lines_it_once_learned(tmp_path):
    path = tmp_path / "t.jsonl"
    TABLE.to_json(path, orient="records", lines=True)
    rc, out, err = run_cli("learn", path)
    assert rc != 0 and out == ""
    assert "is JSON lines, not a CSV or Parquet file" in err
    assert "pd.read_json(path, lines=True)" in err


def test_json_on_a_stream_is_refused():
    import io

    lines = TABLE.to_json(orient="records", lines=True)
    with pytest.raises(tl.DataFileError, match="is JSON lines, not a CSV or Parquet file"):
        tl.io.read_data(io.StringIO(lines))
    # CSV text on a stream is read as before
    assert tl.io.read_data(io.StringIO(TABLE.to_csv(index=False))).equals(TABLE)


def test_the_command_refuses_json_on_standard_input(monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(TABLE.to_json(orient="records", lines=True)))
    rc, out, err = run_cli("learn", "-")
    assert rc != 0 and out == ""
    assert "standard input is JSON lines" in err


def test_a_zip_is_a_workbook_by_its_entries_else_a_zipped_csv(tmp_path):
    import zipfile

    book = tmp_path / "book.csv"
    with zipfile.ZipFile(book, "w") as z:  # the first entry of an .xlsx
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
    assert "an Excel workbook" in _refused(book)
    zipped = tmp_path / "zipped.csv"
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("table.csv", TABLE.to_csv(index=False))
    assert "rename it to end in .zip" in _refused(zipped)
    renamed = zipped.rename(tmp_path / "zipped.zip")
    assert tl.chow_liu(renamed) == tl.chow_liu(TABLE)


def test_a_csv_under_a_name_no_format_claims_is_read(tmp_path):
    for name in ("table.db", "table.dat", "table.data", "table"):
        path = tmp_path / name
        path.write_text(TABLE.to_csv(index=False))
        assert table_format(str(path)) is None
        assert tl.chow_liu(path) == tl.chow_liu(TABLE)
