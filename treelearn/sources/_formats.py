"""Files that hold a table in a format treelearn does not read, refused before a CSV read.

Anything not Parquet is read as CSV, so a JSON-lines file was learned as a table of
one-word columns named ``{"a":"x"`` and ``b:"p"}``, and a spreadsheet, a pickle or an
Arrow file was refused as "not UTF-8 text" with a hint to give its encoding. Such a file is
known by its name (``.json``, ``.xlsx``, ``.feather``, ... also under ``.gz``) or by its
first bytes (the magic numbers of Parquet, Arrow, HDF5, pickle, SQLite, gzip, zip, and a
first line of JSON), and :func:`check_table_format` refuses it with a
:class:`~treelearn.DataFileError` naming what it is and how to convert it.
"""

from __future__ import annotations

import os
import re

from .._base.errors import DataFileError

__all__ = ["check_table_format", "check_table_text", "table_format"]

#: compression suffixes a CSV may carry (the format is then the suffix before)
_COMPRESSION = (".gz", ".bz2", ".xz", ".zip", ".zst")


def _pandas(read: str) -> str:
    return f"convert it with pandas, e.g. {read}.to_parquet('table.parquet')"


_JSON = ("JSON", _pandas("pd.read_json(path)"))
_JSON_LINES = ("JSON lines", _pandas("pd.read_json(path, lines=True)"))
_EXCEL = ("an Excel workbook", _pandas("pd.read_excel(path)"))
_ARROW = ("an Arrow (Feather) file", _pandas("pd.read_feather(path)"))
_PICKLE = ("a Python pickle", _pandas("pd.read_pickle(path)") + ", or pass the DataFrame itself")
_HDF5 = ("an HDF5 file", _pandas("pd.read_hdf(path)"))
_SQLITE = ("an SQLite database", _pandas("pd.read_sql('select * from t', sqlite3.connect(path))"))
_SPSS = ("an SPSS file", _pandas("pd.read_spss(path)"))
_SAS = ("a SAS file", _pandas("pd.read_sas(path)"))
_R = ("an R data file", "write it as CSV in R, e.g. write.csv(df, 'table.csv', row.names = FALSE)")

#: format by suffix: (what the file is, how to convert it)
_BY_SUFFIX: dict[str, tuple[str, str]] = {
    ".json": _JSON,
    ".jsonl": _JSON_LINES,
    ".ndjson": _JSON_LINES,
    ".xlsx": _EXCEL,
    ".xlsm": _EXCEL,
    ".xlsb": _EXCEL,
    ".xls": _EXCEL,
    ".ods": ("an OpenDocument spreadsheet", _pandas("pd.read_excel(path)")),
    ".feather": _ARROW,
    ".arrow": _ARROW,
    ".ipc": _ARROW,
    ".pkl": _PICKLE,
    ".pickle": _PICKLE,
    ".h5": _HDF5,
    ".hdf5": _HDF5,
    ".hdf": _HDF5,
    ".orc": ("an ORC file", _pandas("pd.read_orc(path)")),
    ".sav": _SPSS,
    ".zsav": _SPSS,
    ".dta": ("a Stata file", _pandas("pd.read_stata(path)")),
    ".sas7bdat": _SAS,
    ".xpt": _SAS,
    ".rds": _R,
    ".rda": _R,
    ".rdata": _R,
    ".npy": ("a NumPy array", _pandas("pd.DataFrame(np.load(path))")),
    ".npz": ("NumPy arrays", _pandas("pd.DataFrame(np.load(path)[name])")),
    ".sqlite": _SQLITE,
}

#: format by first bytes, for a file whose name says nothing else (each magic number with
#: the bytes that follow it where text could start alike: "PAR1..." could be a CSV header,
#: a Parquet file also ends in PAR1; bzip2's "BZh" is followed by a level and "1AY&SY")
_MAGIC: tuple[tuple[re.Pattern[bytes], tuple[str, str]], ...] = tuple(
    (re.compile(pattern, re.DOTALL), found)
    for pattern, found in (
        (rb"PAR1", ("a Parquet file", "rename it to end in .parquet")),
        (rb"ARROW1\x00\x00", _ARROW),
        (rb"\x89HDF\r\n\x1a\n", _HDF5),
        (rb"SQLite format 3\x00", _SQLITE),
        (rb"\x1f\x8b", ("gzip-compressed data", "rename it to end in .gz (e.g. table.csv.gz)")),
        (rb"BZh[1-9]1AY&SY", ("bzip2-compressed data", "rename it to end in .bz2")),
        (rb"\xfd7zXZ\x00", ("xz-compressed data", "rename it to end in .xz")),
        # a workbook is a zip whose entries are named [Content_Types].xml, xl/..., or for an
        # OpenDocument sheet, mimetype ... opendocument (its first entry, read here)
        (rb"PK\x03\x04.{26}(\[Content_Types\]\.xml|xl/|docProps/|mimetype)", _EXCEL),
        (rb"PK\x03\x04", ("a zip archive", "rename it to end in .zip (a zip of one CSV file)")),
        (rb"\x80[\x02-\x05]", _PICKLE),
    )
)


#: the first line of JSON: one record ``{"...": ...}`` (JSON lines), or an array opening
_RECORD_LINE = re.compile(rb'^\s*\{\s*".*\}\s*$')
_ARRAY_LINE = re.compile(rb'^\s*\[\s*([\{\["].*)?$')


def _json_kind(head: bytes) -> tuple[str, str] | None:
    """JSON lines (two first lines each one record), JSON (a first line opening an array,
    or one record: pandas' default ``to_json`` writes the table as one object), or neither."""
    lines = head.lstrip(b"\xef\xbb\xbf").split(b"\n", 2)
    first = lines[0].rstrip(b"\r")
    if _RECORD_LINE.match(first):
        second = lines[1].rstrip(b"\r") if len(lines) > 1 else b""
        return _JSON_LINES if _RECORD_LINE.match(second) else _JSON
    return _JSON if _ARRAY_LINE.match(first) else None


def table_format(path: str) -> tuple[str, str] | None:
    """What ``path`` holds when it is no CSV or Parquet file treelearn reads, and how to
    convert it (``None``: read it as CSV or Parquet), by its name, else its first bytes.

    >>> table_format("survey.jsonl")[0]
    'JSON lines'
    >>> table_format("survey.csv.gz") is None
    True
    """
    lower = os.fspath(path).lower()
    stem, suffix = os.path.splitext(lower)
    compressed = suffix in _COMPRESSION
    if compressed:
        suffix = os.path.splitext(stem)[1]
    if suffix in _BY_SUFFIX and (suffix != ".json" or compressed):
        return _BY_SUFFIX[suffix]
    if compressed or lower.endswith((".parquet", ".pq", ".parq")):
        return None  # the readers of those check their bytes themselves
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
            fh.seek(max(0, os.fstat(fh.fileno()).st_size - 4))
            tail = fh.read(4)
    except OSError:  # a directory, or unreadable: the read proper says why
        return None
    for magic, known in _MAGIC:
        if magic.match(head) and (magic.pattern != b"PAR1" or tail == b"PAR1"):
            return known
    json = _json_kind(head)
    return _JSON if json is None and suffix == ".json" else json


def check_table_format(path: str) -> None:
    """Refuse ``path`` (a :class:`~treelearn.DataFileError`) when :func:`table_format` says
    it holds a table in another format than CSV or Parquet."""
    found = table_format(path)
    if found is not None:
        raise _refusal(repr(os.fspath(path)), found)


def check_table_text(name: str, text: str) -> None:
    """Refuse CSV ``text`` read from a stream (``name``: how to name it, e.g. "standard
    input") that is JSON, as :func:`check_table_format` refuses such a file."""
    found = _json_kind(text[:4096].encode("utf-8", "replace"))
    if found is not None:
        raise _refusal(name, found)


def _refusal(name: str, found: tuple[str, str]) -> DataFileError:
    what, fix = found
    if fix.startswith("rename"):  # a format treelearn reads, under a name read as plain CSV
        message = f"{name} holds {what}, but its name makes it read as plain CSV text: {fix}"
    else:
        message = (
            f"{name} is {what}, not a CSV or Parquet file (treelearn reads CSV and TSV files, "
            f"also .gz, .bz2, .xz or .zip, and Parquet): {fix}"
        )
    return DataFileError(message, reason=f"{name} is {what}")
