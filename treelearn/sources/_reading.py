"""Reading a table and preparing it for learning: what the ``treelearn`` command does, for
Python users too.

* :func:`read_data`: a CSV or Parquet file (or a text stream such as standard input)
  as a DataFrame; a CSV's separator is found from its header (a header without a
  comma that holds ``;``, a tab or ``|`` is separated by it; ``.tsv`` and ``.tab``
  files by tabs), and ``encoding``, ``thousands`` and ``decimal`` are pandas'.
* :func:`date_columns` (ISO 8601 dates, and datetime columns), :func:`as_dates`;
* :func:`identifier_columns`: columns that look like row identifiers;
* :func:`date_problems`, :func:`table_problems`: every problem of a table before
  learning, with the numeric rule's notes, as errors carrying their fixes by name
  (``TreelearnError.fixes``) so that a front end words them its own way;
* :func:`separator_note`: the pointer for a table read with the wrong separator;
* :func:`discretized`: numbers and dates cut into quantile bins.

The learners read paths themselves (:func:`treelearn.sources._files.read_whole`, or
in chunks), with pandas' defaults; read a file with another separator here first.

>>> import io
>>> read_data(io.StringIO("a;b\\n1;x\\n2;y\\n")).columns.tolist()
['a', 'b']
"""

from __future__ import annotations

import io
import os
import re
import sys
import warnings
from collections.abc import Hashable, Sequence
from typing import Any

import pandas as pd

from .._base.errors import (
    InputTypeError,
    NumericColumnWarning,
    TableProblemsError,
    TooManyStatesError,
    TreelearnError,
)
from ..encoding._table import DEFAULT_MAX_STATES, MissingPolicy, encode, fix_advice
from ._dialect import (
    MISSING_MARKERS,
    SEPARATORS,
    CsvDialect,
    EncodingNote,
    check_reading_options,
    comma_decimals,
    csv_dialect,
    header_separator,
    repeated_header_names,
    repeated_names_error,
    sniff_encoding,
)
from ._files import data_file, is_parquet, read_whole, reading
from ._formats import check_table_text

__all__ = [
    "ISO_DATE",
    "MIN_ROWS_FOR_IDENTIFIER",
    "SLASH_DATE",
    "ambiguous_date_columns",
    "as_dates",
    "data_dialect",
    "data_separator",
    "date_columns",
    "date_format",
    "date_problems",
    "discretized",
    "identifier_columns",
    "read_data",
    "separator_note",
    "table_problems",
    "thousands_columns",
]

#: a column is an identifier only in a table of at least this many rows
MIN_ROWS_FOR_IDENTIFIER = 10

#: ISO 8601 dates as CSV files write them (2024-01-31, 2024-01-31 12:00, ...T12:00:05.5)
ISO_DATE = r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?"


def read_data(
    source: str | os.PathLike | io.TextIOBase,
    *,
    sep: str | None = None,
    encoding: str | None = None,
    thousands: str | None = None,
    decimal: str | None = None,
    quotechar: str = '"',
    categorical: Sequence[Hashable] = (),
) -> pd.DataFrame:
    """Read a CSV or Parquet file (by suffix; a directory of Parquet files is a dataset),
    or CSV text from a stream (``sys.stdin``), into a DataFrame.

    Every learner given a path reads it this way too (``tl.chow_liu("data.csv")``).

    Parameters
    ----------
    source : str, os.PathLike or io.TextIOBase
        A path, or a readable text stream.
    sep : str, default=None
        The CSV separator (one character); ``None`` finds it: tabs for ``.tsv``/``.tab``
        files, else from the header line (a header without a comma that holds ``;``, a
        tab or ``|`` is separated by it; otherwise commas).
    encoding : str, default=None
        The text encoding; ``None`` finds it: a byte-order mark's (UTF-8, UTF-16,
        UTF-32), UTF-16/32 without one from its NUL bytes, UTF-8, or for a file whose
        first 64 KiB are not UTF-8, Windows-1252 (else Latin-1) with an
        ``EncodingNote`` warning (a :class:`UserWarning`).
    thousands, decimal : str, default=None
        The thousands separator and the decimal point of numbers (``thousands="."``,
        ``decimal=","`` for ``1.234,5``), as in ``pandas.read_csv``. ``decimal=None``
        finds decimal commas in a file not separated by commas (``5,1;x``: a column whose
        every value is a number and some have a decimal comma).
    quotechar : str, default='"'
        The character quoting fields that hold the separator.
    categorical : sequence of column names, default=()
        Columns read as the text written in the file (a zip code ``02139`` stays
        ``'02139'``), not as numbers.

    Notes
    -----
    The options are checked before the file is read: a separator, decimal point,
    thousands separator or quote character that is not one character, two of them alike
    (``thousands=","`` with ``decimal=","``), or an encoding Python does not know as a text
    encoding raise :class:`~treelearn.TreelearnError` naming the argument. They do not
    apply to a Parquet file: its columns have their types.

    A CSV column is parsed in one go, so it has one type, and the states are those
    the learners' own readers give. A file that cannot be read raises
    :class:`~treelearn.DataFileError` naming it; an empty one
    :class:`~treelearn.EmptyDataError`; a missing one ``FileNotFoundError``.

    Returns
    -------
    pandas.DataFrame
        The table, its columns typed as the file says (or as ``categorical`` asks).

    Raises
    ------
    TreelearnError
        An option is not one character, two options are alike, or the encoding is unknown.
    DataFileError
        The file cannot be read.
    EmptyDataError
        The file holds no table.

    See Also
    --------
    date_columns, identifier_columns : columns to look at before learning.
    discretize : numbers into bins.

    Examples
    --------
    >>> read_data("datasets/playtennis.csv").shape
    (14, 6)
    >>> read_data(io.StringIO("wage;zip\\n5,1;02139\\n6,25;10001\\n"), categorical=["zip"])
       wage    zip
    0  5.10  02139
    1  6.25  10001
    """
    check_reading_options(
        sep=sep, decimal=decimal, thousands=thousands, encoding=encoding, quotechar=quotechar
    )
    text_columns = _categorical(categorical)
    if hasattr(source, "read"):
        name = (
            "standard input" if source is sys.stdin else repr(getattr(source, "name", "the stream"))
        )
        with reading(name, name=name, encoding=encoding):
            text = source.read()
            if isinstance(text, bytes):
                text = text.decode(encoding or sniff_encoding(text)[0])
            check_table_text(name, text)  # JSON is no CSV
            lines = text.splitlines()
            sep = sep if sep is not None else header_separator(lines[0] if lines else "")
            repeated = repeated_header_names(text, sep, quotechar)
            if repeated:
                raise repeated_names_error(name, repeated)
            if decimal is None:
                found, grouping, _ = comma_decimals("\n".join(lines[:1000]), sep, quotechar)
                decimal = "," if thousands == "." else found
                thousands = thousands if thousands is not None else grouping
            return pd.read_csv(
                io.StringIO(text),
                sep=sep,
                low_memory=False,
                thousands=thousands,
                decimal=decimal,
                quotechar=quotechar,
                dtype=text_columns,
                keep_default_na=False,
                na_values=list(MISSING_MARKERS),
            )
    path = data_file(source)
    if is_parquet(path):  # its columns have their types: the CSV options do not apply
        return read_whole(path)
    return read_whole(
        path,
        sep=sep,
        encoding=encoding,
        thousands=thousands,
        decimal=decimal,
        quotechar=quotechar,
        dtype=text_columns,
    )


def _categorical(columns: Sequence[Hashable]) -> dict | None:
    if isinstance(columns, (str, bytes)) or not isinstance(columns, Sequence):
        raise TreelearnError(
            f"categorical={columns!r}: give a list of column names, e.g. categorical=[{columns!r}]",
            values=[columns],
        )
    return dict.fromkeys(columns, str) if columns else None


def data_separator(source: Any, encoding: str | None = None) -> str | None:
    """The separator :func:`read_data` finds for a CSV path (``None`` for a stream or a
    Parquet file, whose separator is not looked for here).

    >>> data_separator("datasets/asia.csv")
    ','
    """
    dialect = data_dialect(source, encoding=encoding)
    return None if dialect is None else dialect.sep


def data_dialect(source: Any, **options: Any) -> CsvDialect | None:
    """The options :func:`read_data` reads a CSV path with, given ``options`` (``sep``,
    ``encoding``, ...; ``None`` for one to find), and what was found
    (:class:`~treelearn.sources._dialect.CsvDialect`; ``None`` for a stream or Parquet).

    >>> data_dialect("datasets/asia.csv").sep
    ','
    """
    if hasattr(source, "read"):
        return None
    path = data_file(source)
    if is_parquet(path):
        return None
    with warnings.catch_warnings():  # the caller says what was found its own way
        warnings.simplefilter("ignore", EncodingNote)
        return csv_dialect(path, **{k: v for k, v in options.items() if v is not None})


#: numbers written with a thousands separator: ``{separator: (pattern, decimal point)}``
_GROUPED = {
    ",": (re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?"), "."),
    ".": (re.compile(r"[-+]?\d{1,3}(?:\.\d{3})+(?:,\d+)?"), ","),
}
_PLAIN = {",": re.compile(r"[-+]?\d+(?:\.\d+)?"), ".": re.compile(r"[-+]?\d+(?:,\d+)?")}


def thousands_columns(df: pd.DataFrame) -> tuple[list, str | None, str | None]:
    """Text columns whose every value is a number, some written with a thousands
    separator (``"81,900.70"``, ``"1.234,5"``): ``(columns, thousands, decimal)``, the
    separators those columns share, or ``([], None, None)``.

    >>> thousands_columns(pd.DataFrame({"income": ["81,900.70", "950.5"], "city": ["a", "b"]}))
    (['income'], ',', '.')
    """
    found: dict[str, list] = {",": [], ".": []}
    for c in df.columns:
        series = df[c]
        if pd.api.types.is_numeric_dtype(series.dtype) or not (
            series.dtype == object or pd.api.types.is_string_dtype(series.dtype)
        ):
            continue
        values = series.dropna().astype(str).str.strip()
        if values.empty:
            continue
        for sep, (grouped, _) in _GROUPED.items():
            is_grouped = values.str.fullmatch(grouped.pattern)
            if is_grouped.any() and (is_grouped | values.str.fullmatch(_PLAIN[sep].pattern)).all():
                found[sep].append(c)
                break
    if found[","] and not found["."]:
        return found[","], ",", "."
    if found["."] and not found[","]:
        return found["."], ".", ","
    return [], None, None


def separator_note(df: pd.DataFrame) -> str | None:
    """A note when a table read as comma-separated has one column whose name holds another
    separator (``None`` otherwise)."""
    if df.shape[1] != 1:
        return None
    name = str(df.columns[0])
    word = next((word for sep, word in SEPARATORS.items() if sep in name), None)
    if word is None:
        return None
    return (
        f"the data has a single column {name!r}: is the file separated by {word}? "
        f"treelearn reads comma-separated files (convert it, e.g. with pandas)"
    )


# ---------------------------------------------------------------------- columns
def _require_frame(df: object, function: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise InputTypeError(
            f"{function} takes a pandas DataFrame, not {type(df).__name__}: read a file with "
            f"tl.read_data(path)"
        )


def identifier_columns(df: pd.DataFrame, min_rows: int = MIN_ROWS_FOR_IDENTIFIER) -> list:
    """Columns that look like row identifiers: a distinct value in every row of a table of
    at least ``min_rows`` rows (not floats, not booleans, not dates: a date column is cut
    by time, or named in an error).

    A learner counts such a column as one state per row, which tells nothing about new
    rows: drop it before learning (the command line does, saying so).

    Parameters
    ----------
    df : pandas.DataFrame
        The table.
    min_rows : int, default=10
        Smaller tables have no identifier (every column of a few rows is distinct).

    Returns
    -------
    list
        The columns, in table order.

    Raises
    ------
    InputTypeError
        ``df`` is not a DataFrame.

    See Also
    --------
    date_columns : the columns that hold dates.
    read_data : reads a table.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> tl.identifier_columns(pd.DataFrame({"id": range(12), "x": [0, 1] * 6}))
    ['id']
    >>> tl.identifier_columns(pd.DataFrame({"id": range(5), "x": [0, 1, 0, 1, 0]}))
    []
    """
    _require_frame(df, "identifier_columns")
    n = len(df)
    if n < min_rows:
        return []
    return [
        c
        for c in df.columns
        if not pd.api.types.is_float_dtype(df[c].dtype)
        and not pd.api.types.is_bool_dtype(df[c].dtype)
        and not pd.api.types.is_datetime64_any_dtype(df[c].dtype)
        and df[c].notna().all()
        and df[c].nunique() == n
    ]


#: dates written day and month first, in either order (12/26/2021, 26.12.2021, 1-2-2021)
SLASH_DATE = r"(\d{1,2})([/.-])(\d{1,2})\2(\d{4})"

#: the strptime formats of the two orders, by separator
_ORDERS = {"month": "%m{0}%d{0}%Y", "day": "%d{0}%m{0}%Y"}


def _text_values(series: pd.Series) -> pd.Series | None:
    """The distinct observed values of a text column (``None`` for other columns)."""
    if not pd.api.types.is_string_dtype(series.dtype) or isinstance(
        series.dtype, pd.CategoricalDtype
    ):
        return None
    values = series.dropna()
    if values.empty or not isinstance(values.iloc[0], str):
        return None
    return pd.Series(pd.unique(values), dtype=object)


def date_format(series: pd.Series) -> str | None:
    """How a column's text dates are written: ``"ISO8601"``; ``"%m/%d/%Y"`` (US) or
    ``"%d/%m/%Y"`` (day first; ``/``, ``.`` or ``-`` between the parts) when some value
    shows the order (a first part above 12: day first; a second: month first);
    ``"ambiguous"`` when every value reads both ways (no part above 12); ``None`` when the
    column does not hold dates (or some value is no date in the order found).

    >>> date_format(pd.Series(["12/26/2021", "01/02/2022"]))
    '%m/%d/%Y'
    >>> date_format(pd.Series(["26.12.2021", "01.02.2022"]))
    '%d.%m.%Y'
    >>> date_format(pd.Series(["03/04/2021", "01/02/2022"]))
    'ambiguous'
    """
    distinct = _text_values(series)
    if distinct is None:
        return None
    first = distinct.iloc[0]
    if re.fullmatch(ISO_DATE, first):
        if not all(isinstance(v, str) and re.fullmatch(ISO_DATE, v) for v in distinct):
            return None  # unhashable or other cells are the encoder's to report
        try:
            pd.to_datetime(distinct, format="ISO8601")
        except (ValueError, TypeError):  # 2024-13-45 has the shape of a date, not a date
            return None
        return "ISO8601"
    if not re.fullmatch(SLASH_DATE, first):
        return None  # the first value decides, cheaply, for most columns
    if not all(isinstance(v, str) for v in distinct):
        return None
    parts = distinct.str.extract("^" + SLASH_DATE + "$")
    if parts.isna().any(axis=None) or parts[1].nunique() != 1:
        return None
    sep = parts[1].iloc[0]
    a, b = parts[0].astype(int), parts[2].astype(int)
    day_first, month_first = bool((a > 12).any()), bool((b > 12).any())
    if day_first == month_first:
        return "ambiguous" if not day_first else None
    fmt = _ORDERS["day" if day_first else "month"].format(sep)
    try:
        pd.to_datetime(distinct, format=fmt)
    except (ValueError, TypeError):
        return None
    return fmt


def date_columns(df: pd.DataFrame) -> list:
    """Datetime columns, and text columns whose every value is a date: ISO 8601, or day
    and month first in an order some value shows (:func:`date_format`; a column whose
    every date reads both ways is in :func:`ambiguous_date_columns`, not here).

    Parameters
    ----------
    df : pandas.DataFrame
        The table.

    Returns
    -------
    list
        The columns, in table order.

    Raises
    ------
    InputTypeError
        ``df`` is not a DataFrame.

    See Also
    --------
    discretize : cuts date columns into bins of time.
    identifier_columns : the columns that name rows.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.DataFrame({"day": ["2024-01-31", None], "us": ["12/26/2021", None],
    ...                    "both": ["01/02/2021", "03/04/2021"], "x": ["a", "b"]})
    >>> tl.date_columns(df)   # "both" reads as 2 January or 1 February: not sure
    ['day', 'us']
    """
    _require_frame(df, "date_columns")
    out = []
    for c in df.columns:
        if pd.api.types.is_datetime64_any_dtype(df[c].dtype) or date_format(df[c]) not in (
            None,
            "ambiguous",
        ):
            out.append(c)
    return out


def ambiguous_date_columns(df: pd.DataFrame) -> list[TreelearnError]:
    """An error per text column of dates that read both as month/day and as day/month (no
    part above 12), naming the ambiguity and its fixes (``iso_dates``, ``drop``).

    >>> [e.column for e in ambiguous_date_columns(pd.DataFrame({"d": ["03/04/2021"]}))]
    ['d']
    """
    problems = []
    for c in df.columns:
        if date_format(df[c]) == "ambiguous":
            example = str(df[c].dropna().iloc[0])
            m = re.fullmatch(SLASH_DATE, example)
            assert m is not None  # an ambiguous column's values are such dates
            a, b, year = int(m.group(1)), int(m.group(3)), m.group(4)
            reason = (
                f"column {c!r} holds dates that read both as month/day and as day/month "
                f"(e.g. {example!r}: {year}-{a:02d}-{b:02d} or {year}-{b:02d}-{a:02d}; no "
                f"part is above 12)"
            )
            problems.append(
                TreelearnError(
                    f"{reason}: {fix_advice(('iso_dates', 'drop'), c)}",
                    column=c,
                    values=[example],
                    reason=reason,
                    fixes=("iso_dates", "drop"),
                )
            )
    return problems


def as_dates(df: pd.DataFrame, columns: Sequence[Hashable]) -> pd.DataFrame:
    """``df`` with the text date ``columns`` as datetimes, so that they are cut by time (a
    copy when anything changes; ``df`` itself is never changed)."""
    text = [c for c in columns if not pd.api.types.is_datetime64_any_dtype(df[c].dtype)]
    if not text:
        return df
    df = df.copy()
    for c in text:
        fmt = date_format(df[c])
        if fmt in (None, "ambiguous"):
            raise TreelearnError(f"column {c!r} does not hold dates in one order", column=c)
        df[c] = pd.to_datetime(df[c], format=fmt)
    return df


def discretized(
    df: pd.DataFrame, bins: int, keep: Sequence[Hashable] = ()
) -> tuple[pd.DataFrame, list]:
    """``(table, columns cut)``: the float, datetime and many-valued integer columns of
    ``df`` (other than ``keep``) cut into ``bins`` quantile bins by
    :class:`~treelearn.Discretizer` (``df`` itself is not changed)."""
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise TreelearnError(f"bins == {bins!r}, must be an integer >= 1", values=[bins])
    columns = [
        c
        for c in df.columns
        if c not in keep
        and (
            pd.api.types.is_float_dtype(df[c])
            or pd.api.types.is_datetime64_any_dtype(df[c])
            or (
                pd.api.types.is_integer_dtype(df[c])
                and not pd.api.types.is_bool_dtype(df[c])
                and df[c].nunique() > bins
            )
        )
    ]
    if not columns:
        return df, []
    from ..encoding._discretizer import Discretizer  # here: scikit-learn only when cutting

    return Discretizer(bins=bins, columns=columns).fit_transform(df), columns


# ---------------------------------------------------------------------- problems
def date_problems(
    df: pd.DataFrame,
    dates: Sequence[Hashable],
    keep: Sequence[Hashable] = (),
    max_states: int = DEFAULT_MAX_STATES,
) -> list[TooManyStatesError]:
    """Date columns that cannot be states as they are (a different date in every row, or
    more than ``max_states`` dates): errors whose fixes are ``discretize`` and ``drop``."""
    problems = []
    for c in dates:
        k = int(df[c].nunique())
        every_row = len(df) >= MIN_ROWS_FOR_IDENTIFIER and k == len(df) and c not in keep
        if every_row or k > max_states:
            what = "a different date in every row" if every_row else f"{k} distinct dates"
            problems.append(
                TooManyStatesError(
                    f"column {c!r} holds {what}",
                    column=c,
                    reason=f"column {c!r} holds {what}",
                    fixes=("discretize", "drop"),
                )
            )
    return problems


def table_problems(
    df: pd.DataFrame,
    *,
    missing: MissingPolicy = "error",
    max_states: int = DEFAULT_MAX_STATES,
    class_column: Hashable | None = None,
    known: Sequence[TreelearnError] = (),
) -> tuple[list[TreelearnError], list[NumericColumnWarning]]:
    """``(problems, notes)``: every problem the encoder finds in ``df`` (after the ``known``
    ones, whose columns are not checked again), and its notes about numeric columns.

    The class column (``class_column``) has rules of its own: it is left out, and so are
    the rows without a class label. ``missing="em"`` keeps missing cells, so the table is
    checked as ``"pairwise"`` would.
    """
    table = df
    if class_column is not None and class_column in df.columns:
        labelled = df[class_column].notna().to_numpy()
        table = df[labelled].drop(columns=[class_column])
    table = table.drop(columns=[p.column for p in known])
    problems = list(known)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NumericColumnWarning)
        try:
            if table.shape[1] and len(table):
                encode(
                    table, missing="pairwise" if missing == "em" else missing, max_states=max_states
                )
        except TableProblemsError as exc:
            problems += list(exc.problems)
        except TreelearnError as exc:
            problems.append(exc)
    notes = []
    for w in caught:
        if isinstance(w.message, NumericColumnWarning):
            notes.append(w.message)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return problems, notes
