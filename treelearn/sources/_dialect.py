"""How a CSV file is written: its reading options checked, and those not given found from
its first bytes, once for every reader (:func:`treelearn.read_data`, the ``treelearn``
command and every learner given a path read a file alike).

* :func:`check_reading_options`: the separator, decimal point, thousands separator,
  encoding and quote character checked before pandas sees them, one
  :class:`~treelearn.TreelearnError` naming the option (as a Python argument, or as the
  command's flag) and the fix;
* :func:`sniff_encoding`: the encoding from a byte-order mark (UTF-8, UTF-16, UTF-32),
  from the pattern of NUL bytes of UTF-16/32 text without one, else UTF-8, or, when the
  first bytes are not UTF-8, Windows-1252 (or Latin-1, which decodes any byte) with a note;
* :func:`csv_dialect`: every option of a CSV path: the separator from the header line
  (``;``, tab or ``|`` in a header without a comma; tabs for ``.tsv``/``.tab``), and
  decimal commas found in a file separated by something else than commas (``5,1``); a
  header line that names a column twice is refused (:func:`repeated_header_names`; the names
  in the first :data:`SNIFF_BYTES` bytes: a header longer than that is checked that far).

>>> check_reading_options(encoding="nope")
Traceback (most recent call last):
...
treelearn.TreelearnError: encoding='nope' is not a text encoding Python knows: give one such as encoding='utf-8' or encoding='latin-1'
"""

from __future__ import annotations

import codecs
import csv
import functools
import io
import lzma
import os
import re
import warnings
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._base.errors import DuplicateColumnError, TreelearnError

__all__ = [
    "COMPRESSED",
    "MISSING_MARKERS",
    "SEPARATORS",
    "SNIFF_BYTES",
    "CsvDialect",
    "EncodingNote",
    "check_reading_options",
    "comma_decimals",
    "csv_dialect",
    "header_separator",
    "repeated_header_names",
    "repeated_names_error",
    "sniff_encoding",
]

#: separators found from a header line, after the comma, and how a note names them
SEPARATORS = {";": "semicolons", "\t": "tabs", "|": "bars"}

#: the CSV cells read as missing: an empty cell and pandas' default markers (``NA``,
#: ``N/A``, ``NaN``, ``NULL``, ``#N/A``, ...), but for ``None``, which real tables use as a
#: level: MASS::survey's ``Exer`` is ``Freq``/``Some``/``None``, and pandas' default reading
#: turns its 24 ``None`` answers into missing cells without a word. R's ``read.csv`` reads
#: only ``NA`` as missing; a CSV written by pandas writes a missing cell empty, never ``None``.
MISSING_MARKERS = (
    "",
    "#N/A",
    "#N/A N/A",
    "#NA",
    "-1.#IND",
    "-1.#QNAN",
    "-NaN",
    "-nan",
    "1.#IND",
    "1.#QNAN",
    "<NA>",
    "N/A",
    "NA",
    "NULL",
    "NaN",
    "n/a",
    "nan",
    "null",
)

#: suffixes of compressed files pandas opens itself (their bytes are not sniffed)
COMPRESSED = (".gz", ".bz2", ".zip", ".xz", ".zst", ".tar")


def _open_lzma(path: str, mode: str) -> Any:
    return lzma.open(path, mode)


def _open_gzip(path: str, mode: str) -> Any:
    import gzip

    return gzip.open(path, mode)


def _open_bz2(path: str, mode: str) -> Any:
    import bz2

    return bz2.open(path, mode)


#: compressed files whose first bytes are sniffed through their decompressor (the others
#: keep pandas' defaults)
_OPENERS = {".gz": _open_gzip, ".bz2": _open_bz2, ".xz": _open_lzma}

#: the first bytes of a file read to find its encoding, separator and decimal point
SNIFF_BYTES = 1 << 16

#: characters no reading option may be: line ends (they end rows) and the NUL byte
_NEVER = ("\n", "\r", "\0")

_BOMS = (  # UTF-32 first: its little-endian mark begins with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


class EncodingNote(UserWarning):
    """A file that is not UTF-8 was read in another encoding (Windows-1252 or Latin-1)."""


def _option(name: str, value: Any, flags: bool) -> str:
    """An option as the user wrote it: ``sep=';'`` in Python, ``--sep ';'`` on the command line."""
    if flags:
        return f"--{name.replace('_', '-')} {value!s}" if value is not None else f"--{name}"
    return f"{name}={value!r}"


def _fix(name: str, example: str, flags: bool) -> str:
    return f"--{name} {example}" if flags else f"{name}={example!r}"


def _a(value: Any) -> str:
    name = type(value).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _one_character(name: str, value: Any, flags: bool, what: str, example: str) -> None:
    if not isinstance(value, str):
        raise TreelearnError(
            f"{_option(name, value, flags)}: {name} must be one character ({what}), not "
            f"{_a(value)}; give e.g. "
            f"{_fix(name, example, flags)}",
            values=[value],
        )
    if len(value) != 1 or value in _NEVER:
        shown = (
            "empty" if not value else f"{len(value)} characters" if len(value) > 1 else "a line end"
        )
        raise TreelearnError(
            f"{_option(name, value, flags)}: {name} must be one character ({what}), not "
            f"{shown}; give e.g. {_fix(name, example, flags)}",
            values=[value],
        )


def check_reading_options(
    *,
    sep: Any = None,
    decimal: Any = None,
    thousands: Any = None,
    encoding: Any = None,
    quotechar: Any = '"',
    flags: bool = False,
) -> None:
    """Refuse a reading option pandas would refuse, misread with, or fail on with its own
    error: a separator, decimal point, thousands separator or quote character that is not
    one character other than a line end, two options that are the same character
    (``thousands=','`` with ``decimal=','`` would read ``1,5`` as 15; ``thousands`` may be
    ``sep``, as in a comma file's quoted ``"76,705"``), a digit or sign
    as any of them, and an encoding that is not a text codec Python knows (``"rot13"``,
    ``"base64"``). ``None`` for ``sep``, ``decimal`` and ``encoding`` means "find it", for
    ``thousands`` "none". The error names the option as a Python argument, or with
    ``flags=True`` as the command's flag.

    >>> check_reading_options(sep=";", decimal=",")
    >>> check_reading_options(decimal=",", thousands=",", flags=True)
    Traceback (most recent call last):
    ...
    treelearn.TreelearnError: --thousands , is the same character as --decimal ,: 1,5 would read as 15; give different characters, e.g. --thousands . --decimal ,
    """
    if sep is not None:
        _one_character("sep", sep, flags, "the column separator", ";")
    if decimal is not None:
        _one_character("decimal", decimal, flags, "the decimal point", ",")
    if thousands is not None:
        _one_character("thousands", thousands, flags, "the thousands separator", ".")
    if quotechar is not None:
        _one_character("quotechar", quotechar, flags, "the quote character", '"')
    for name, value in (("sep", sep), ("decimal", decimal), ("thousands", thousands)):
        if value is not None and (value.isdigit() or value in ("+", "-")):
            raise TreelearnError(
                f"{_option(name, value, flags)}: a digit or sign cannot be the {name} (it is "
                f"part of numbers); give another character",
                values=[value],
            )
    given = {"sep": sep, "decimal": decimal, "thousands": thousands, "quotechar": quotechar}
    names = [n for n, v in given.items() if v is not None]
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            # a thousands separator that is the column separator can only sit in a quoted
            # field ("76,705" in a comma file), which pandas reads as one number: allowed
            if given[a] == given[b] and {a, b} != {"sep", "thousands"}:
                example = {
                    ("sep", "decimal"): f"{_fix('sep', ';', flags)} {_fix('decimal', ',', flags)}",
                    ("decimal", "thousands"): f"{_fix('thousands', '.', flags)} "
                    f"{_fix('decimal', ',', flags)}",
                }.get((a, b), f"{_fix(a, given[a], flags)} alone")
                consequence = (
                    f": 1{given[a]}5 would read as 15" if {a, b} == {"decimal", "thousands"} else ""
                )
                raise TreelearnError(
                    f"{_option(b, given[b], flags)} is the same character as "
                    f"{_option(a, given[a], flags)}{consequence}; give different characters, "
                    f"e.g. {example}",
                    values=[given[b]],
                )
    if encoding is not None:
        if not isinstance(encoding, str):
            raise TreelearnError(
                f"{_option('encoding', encoding, flags)}: encoding must be the name of a text "
                f"encoding (a str), not {_a(encoding)}; give e.g. "
                f"{_fix('encoding', 'utf-8', flags)}",
                values=[encoding],
            )
        try:
            codecs.lookup(encoding)
            known = True
        except (LookupError, ValueError):
            known = False
        text = known
        if known:
            try:
                "a,b".encode(encoding)  # a codec that is not str -> bytes raises LookupError
            except LookupError:
                text = False
            except (UnicodeError, ValueError):
                pass  # a text encoding that cannot write these characters
        if not text:
            what = "a text encoding Python knows" if not known else "a text encoding"
            raise TreelearnError(
                f"{_option('encoding', encoding, flags)} is not {what}: give one such as "
                f"{_fix('encoding', 'utf-8', flags)} or {_fix('encoding', 'latin-1', flags)}",
                values=[encoding],
            )


def _nul_pattern(head: bytes) -> str | None:
    """UTF-16/32 text without a byte-order mark, from where its NUL bytes fall (text of
    mostly ASCII characters has a NUL in the same place of every 2- or 4-byte unit)."""
    if head.count(0) < len(head) // 4 or len(head) < 4:
        return None

    def zeros(part: bytes) -> float:
        return part.count(0) / max(len(part), 1)

    n4 = len(head) - len(head) % 4
    b = head[:n4]
    if zeros(b[2::4]) > 0.99 and zeros(b[3::4]) > 0.99 and zeros(b[0::4]) < 0.5:
        return "utf-32-le"
    if zeros(b[0::4]) > 0.99 and zeros(b[1::4]) > 0.99 and zeros(b[3::4]) < 0.5:
        return "utf-32-be"
    b = head[: len(head) - len(head) % 2]
    if zeros(b[1::2]) > 0.9 and zeros(b[0::2]) < 0.1:
        return "utf-16-le"
    if zeros(b[0::2]) > 0.9 and zeros(b[1::2]) < 0.1:
        return "utf-16-be"
    return None


def _decodes(head: bytes, encoding: str, whole: bool) -> bool:
    decoder = codecs.getincrementaldecoder(encoding)()
    try:
        decoder.decode(head, final=whole)
    except UnicodeDecodeError:
        return False
    return True


#: control bytes no text file holds (NUL, and C0 controls other than tab, line ends, form
#: feed and escape): a file holding them is not text in a single-byte encoding
_BINARY = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")


def sniff_encoding(head: bytes, whole: bool = True) -> tuple[str, str | None]:
    """``(encoding, note)`` of text whose first bytes are ``head`` (all of it if ``whole``):
    a byte-order mark's, UTF-16/32 from its NUL bytes, UTF-8 if the bytes are UTF-8, else
    Windows-1252 or Latin-1 with a note saying so (``None`` otherwise).

    >>> sniff_encoding("a,b\\n".encode("utf-16-le"))
    ('utf-16-le', None)
    >>> sniff_encoding("caf\\xe9\\n".encode("latin-1"))[0]
    'cp1252'
    """
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name, None
    found = _nul_pattern(head)
    if found is not None:
        return found, None
    if _decodes(head, "utf-8", whole) or _BINARY.search(head):
        return "utf-8", None  # binary bytes (compressed data...) are refused as not UTF-8
    for name in ("cp1252", "latin-1"):  # latin-1 decodes every byte
        if _decodes(head, name, whole):
            return name, (
                f"not UTF-8 text: read as {name} "
                f"({'Windows Western European' if name == 'cp1252' else 'ISO 8859-1'})"
            )
    raise AssertionError("latin-1 decodes any bytes")  # pragma: no cover


def header_separator(line: str) -> str:
    """The separator of a CSV whose header line is ``line``: a comma if it holds one (outside
    quotes), else the first of ``;``, tab and ``|`` it holds, else a comma.

    >>> header_separator("a;b;c"), header_separator("a,b;c")
    (';', ',')
    """
    bare = re.sub(r'"[^"]*"', "", line)
    if "," in bare:
        return ","
    return next((sep for sep in SEPARATORS if sep in bare), ",")


#: a number written with a decimal comma (``5,1``), maybe thousands dots (``1.234,5``)
_COMMA_DECIMAL = re.compile(r"[-+]?(?:\d{1,3}(?:\.\d{3})+|\d*),\d+")
_COMMA_PLAIN = re.compile(r"[-+]?(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d+)?")
_DOT_GROUPED = re.compile(r"[-+]?\d{1,3}(?:\.\d{3})+(?:,\d+)?")


def _comma_decimal_columns(text: str, sep: str, quotechar: str) -> tuple[list, bool]:
    """``(columns, grouped)``: the columns of a sample whose every value is a number and
    some written with a decimal comma; whether some are grouped by dots (``1.234,5``)."""
    import pandas as pd

    try:
        sample = pd.read_csv(
            io.StringIO(text),
            sep=sep,
            dtype=str,
            quotechar=quotechar,
            keep_default_na=False,
            na_values=list(MISSING_MARKERS),
        )
    except Exception:  # a malformed sample: the read proper reports it
        return [], False
    columns, grouped = [], False
    for c in sample.columns:
        values = sample[c].dropna().str.strip()
        if values.empty or not values.str.fullmatch(_COMMA_PLAIN.pattern).all():
            continue
        if values.str.fullmatch(_COMMA_DECIMAL.pattern).any():
            columns.append(c)
            grouped = grouped or bool(values.str.fullmatch(_DOT_GROUPED.pattern).any())
    return columns, grouped


@dataclass(frozen=True)
class CsvDialect:
    """The options a CSV file is read with, and what was found (not given) in words.

    ``notes``: ``(option, what)`` pairs, e.g. ``("decimal", "decimal commas (5,1) in
    column(s) ['wage']")``; a front end words each with its own name of the option.
    """

    sep: str = ","
    decimal: str = "."
    thousands: str | None = None
    encoding: str = "utf-8"
    quotechar: str = '"'
    notes: tuple[tuple[str, str], ...] = ()
    #: names the header line holds more than once (refused by :func:`csv_dialect`)
    repeated_names: tuple[str, ...] = ()

    def pandas(self) -> dict[str, Any]:
        """The options as ``pandas.read_csv`` keywords."""
        return {
            "sep": self.sep,
            "decimal": self.decimal,
            "thousands": self.thousands,
            "encoding": self.encoding,
            "quotechar": self.quotechar,
            "keep_default_na": False,
            "na_values": list(MISSING_MARKERS),
        }


def csv_dialect(
    path: str,
    *,
    sep: str | None = None,
    decimal: str | None = None,
    thousands: str | None = None,
    encoding: str | None = None,
    quotechar: str = '"',
) -> CsvDialect:
    """The options to read the CSV file ``path`` with: those given, the others found from
    its first :data:`SNIFF_BYTES` bytes (see the module's docstring; a ``.gz``, ``.bz2``
    or ``.xz`` file's decompressed bytes). Other compressed files keep pandas' defaults
    for those not given. The options are checked first
    (:func:`check_reading_options`).

    Cached by the file's path, size and modification time, so that the passes of a learner
    over one file cost one sniff.
    """
    check_reading_options(
        sep=sep,
        decimal=decimal,
        thousands=thousands,
        encoding=encoding,
        quotechar=quotechar,
    )
    try:
        st = os.stat(path)
        stamp = (st.st_size, st.st_mtime_ns)
    except OSError:  # the read proper says why
        stamp = None
    dialect = _dialect(os.fspath(path), stamp, sep, decimal, thousands, encoding, quotechar)
    if dialect.repeated_names:
        raise repeated_names_error(repr(os.fspath(path)), dialect.repeated_names)
    for option, what in dialect.notes:
        if option == "encoding":
            warnings.warn(
                f"{path!r} is {what}; pass encoding= to say otherwise",
                EncodingNote,
                stacklevel=3,
            )
    return dialect


def repeated_header_names(text: str, sep: str, quotechar: str = '"', whole: bool = True) -> list:
    """The names the header line of CSV ``text`` holds more than once, in order. Empty names
    are left out (pandas names each ``Unnamed: k``: a header with trailing separators), and
    where ``text`` is the start of a file (``whole`` False) holding no complete record, the
    last name, which may be cut short.

    >>> repeated_header_names('a,b,"a",,', ",")  # two empty names: Unnamed: 3 and 4
    ['a']
    >>> repeated_header_names("x;y;x", ";", whole=False), repeated_header_names("0,1,1,0", ",")
    ([], ['1', '0'])
    """
    if len(sep) != 1:  # a pattern, not a character: pandas' own parsing decides
        return []
    records = csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=sep, quotechar=quotechar)
    try:
        names = next(records, [])
        if not whole and next(records, None) is None:
            names = names[:-1]
    except csv.Error:  # the read proper says what is wrong with the text
        return []
    seen: set[str] = set()
    repeated: list[str] = []
    for name in names:
        if name and name in seen and name not in repeated:
            repeated.append(name)
        seen.add(name)
    return repeated


def repeated_names_error(name: str, repeated: Sequence[str]) -> DuplicateColumnError:
    """The refusal of CSV text (``name``: the file or stream) whose header line names the
    columns ``repeated`` more than once: pandas would rename the second ``a`` to ``a.1``, a
    column the file does not name; a header of data (no header line) repeats values alike."""
    first = repeated[0]
    return DuplicateColumnError(
        f"{name} names column(s) {list(repeated)} more than once in its header line (pandas "
        f"would read the second {first!r} as {first + '.1'!r}); rename them in the file so each "
        f"column is unique, or, if the first line is data, add a line of column names above it",
        column=first,
    )


def comma_decimals(text: str, sep: str, quotechar: str = '"') -> tuple[str, str | None, list]:
    """``(decimal, thousands, columns)`` of CSV ``text`` separated by ``sep``: decimal commas
    where a column's every value is a number and some have one (``5,1``), with dots as the
    thousands separator where some are grouped (``1.234,5``); else ``(".", None, [])``."""
    if sep == ",":
        return ".", None, []
    columns, grouped = _comma_decimal_columns(text, sep, quotechar)
    if not columns:
        return ".", None, []
    return ",", ("." if grouped else None), columns


@functools.lru_cache(maxsize=64)
def _dialect(
    path: str,
    stamp: tuple | None,
    sep: str | None,
    decimal: str | None,
    thousands: str | None,
    encoding: str | None,
    quotechar: str,
) -> CsvDialect:
    lower = path.lower()
    default_sep = "\t" if lower.endswith((".tsv", ".tab")) else ","
    plain = CsvDialect(  # what is not found from the bytes
        sep=default_sep if sep is None else sep,
        decimal=("," if thousands == "." else ".") if decimal is None else decimal,
        thousands=thousands,
        encoding="utf-8" if encoding is None else encoding,
        quotechar=quotechar,
    )
    opener = _OPENERS.get(os.path.splitext(lower)[1])
    if stamp is None or (opener is None and lower.endswith(COMPRESSED)) or os.path.isdir(path):
        return plain
    try:
        with (opener or open)(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
            whole = len(head) < SNIFF_BYTES or not fh.read(1)
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError):
        # a directory, an unreadable or corrupt file: the read proper says why
        return plain
    notes: list[tuple[str, str]] = []
    if encoding is None:
        encoding, note = sniff_encoding(head, whole)
        if note is not None:
            notes.append(("encoding", note))
    text = codecs.getincrementaldecoder(encoding)(errors="replace").decode(head, final=whole)
    lines = text.splitlines()
    if not whole and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut short
    if sep is None:
        sep = (
            default_sep
            if default_sep != "," or not lines
            else header_separator(lines[0].lstrip("\ufeff"))
        )
        if sep != ",":
            notes.append(("sep", f"separated by {SEPARATORS.get(sep, repr(sep))}"))
    if decimal is None:
        decimal = "," if thousands == "." else "."
        if decimal == "." and len(lines) > 1:
            found, grouping, columns = comma_decimals("\n".join(lines), sep, quotechar)
            if columns:
                decimal = found
                if thousands is None:
                    thousands = grouping
                notes.append(("decimal", f"decimal commas (5,1) in column(s) {columns}"))
    return CsvDialect(
        sep=sep,
        decimal=decimal,
        thousands=thousands,
        encoding=encoding,
        quotechar=quotechar,
        notes=tuple(notes),
        repeated_names=tuple(repeated_header_names(text, sep, quotechar, whole)),
    )
