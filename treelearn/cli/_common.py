"""What every ``treelearn`` command shares: reading data, loading a model and asking it what
it answers, the one refusal in the command line's words, and printing scores and pictures.

A command never asks what kind of object a model file holds. It asks the object whether it
answers the capability the command needs (:func:`require`: the words of
:data:`treelearn.models._base.CAPABILITIES`), and calls the same protocol method on any
kind that does (``to_text``, ``score_samples``, ``query``, ``sample``, ``draw``, ...). A
kind that does not is refused in one line naming the commands it does answer
(:data:`COMMAND_WORDS`).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._base.errors import CapabilityError

if TYPE_CHECKING:  # pragma: no cover
    from ..models._tree import ScoreReport

__all__ = [
    "COMMAND_WORDS",
    "SEPARATORS_IN_WORDS",
    "SEP_WORDS",
    "CommandError",
    "figure",
    "fmt",
    "load_model",
    "note",
    "print_scores",
    "read_frame",
    "reading_options",
    "require",
    "save_figure",
    "save_object",
]


class CommandError(ValueError):
    """A problem with what the command was asked to do (reported in one line)."""


#: each capability as the command line asks for it (what a refusal lists a kind answers);
#: the capabilities without a command (marginals, to_pgmpy, pyagrum, partial_fit) are
#: Python's only
COMMAND_WORDS = {
    "score": "score",
    "classify": "predict",
    "predict": "predict --target VAR",
    "query": "query",
    "map": "query --map",
    "sample": "sample",
    "sample_given": "sample --given",
    "explain": "explain",
    "draw": "show --plot/--dot/--mermaid",
    "explorer": "show --html",
    "bif": "show --bif/--xmlbif/--uai",
}


#: a refusal's fixes by name (:attr:`CapabilityError.fixes`) in the command line's words
REFUSAL_FIXES = {
    "diagonal": "a Gaussian naive Bayes (diagonal covariance) draws: learn DATA --class COL "
    "--numeric gaussian --method naive-bayes --plot PICTURE",
    "candidates": "learn with a --method that does instead of --method auto",
}


def require(obj: Any, capability: str, asked: str) -> None:
    """The one refusal, in the command line's words: unless ``obj`` answers ``capability``,
    one error naming what was ``asked``, the kind, and the commands the kind does answer
    (``show`` always); then why, and the fix as flags, where the refusal says them."""
    try:
        obj.require(capability)
    except CapabilityError as exc:
        from ..models._base import CAPABILITIES

        answers = ["show", *(COMMAND_WORDS[c] for c in exc.supported if c in COMMAND_WORDS)]
        fixes = [REFUSAL_FIXES[f] for f in exc.fixes if f in REFUSAL_FIXES]
        why = f"; {exc.reason}" + (f": {'; or '.join(fixes)}" if fixes else "")
        raise CommandError(
            f"this {type(obj).__name__} does not answer {asked} ({CAPABILITIES[capability]}); "
            f"it answers: {', '.join(answers)}{why if exc.reason else ''}"
        ) from None


def load_model(path: str) -> Any:
    """The model (or fitted estimator) a file holds, checked to be one the commands ask:
    an object that says what it answers (:class:`~treelearn.models._base.Capable`)."""
    from .._io import load
    from ..models._base import Capable

    obj = load(path)
    if not isinstance(obj, Capable):  # e.g. a saved Discretizer: a transformer, no model
        raise CommandError(
            f"{path} holds a {type(obj).__name__}, which no command uses: give a model file "
            f"written by 'treelearn learn -o' or tl.save"
        )
    return obj


def note(message: str) -> None:
    print(f"treelearn: note: {message}", file=sys.stderr)


def fmt(x: float) -> str:
    return f"{float(x):.6f}"


def read_memory_fix(source: str, streams: str = "", *, parts: bool = True) -> str:
    """The command line's way around a data file too large to read whole: ``streams``, the
    command's own way to read it in chunks (said first), a sample of its rows, and with
    ``parts`` (a command answering row by row) the file in parts."""
    import shlex

    from .._base.limits import READ_MEMORY_ENV

    shown = shlex.quote(source)
    # a compressed file's text comes from its decompressor (head would cut its bytes)
    tool = next(
        (t for suffix, t in _DECOMPRESSORS.items() if source.lower().endswith(suffix)), None
    )
    text, name = (f"{tool} {shown} | ", "-") if tool else ("", shown)
    split = (
        f", or parts of them one at a time ({text}split -l 100000 {name} part-, each with "
        f"the header line)"
        if parts
        else ""
    )
    return (
        f"{streams}give the command a sample of its rows (e.g. {text}head -n 100001 "
        f"{'' if tool else shown + ' '}> sample.csv){split}; if the estimate is wrong for this "
        f"file, allow more memory with {READ_MEMORY_ENV}=BYTES (e.g. 32G)"
    )


#: the command that writes a compressed file's text, by suffix (pandas reads these)
_DECOMPRESSORS = {".gz": "gzip -dc", ".bz2": "bzip2 -dc", ".xz": "xz -dc", ".zip": "unzip -p"}


def read_frame(source: str, args: argparse.Namespace | None = None) -> pd.DataFrame:
    """A CSV or Parquet path, or ``-`` for CSV on standard input, read as the command reads
    data: the options checked first (an error names the flag), the separator ``--sep`` or
    the one the header shows, ``--encoding`` or the one the bytes show, ``--decimal`` or
    decimal commas found in a file not separated by commas (each found option said in a
    note), ``--thousands``; text columns of numbers written with thousands separators are
    read as numbers, with a note; ``--categorical`` columns are kept as the text read.

    A path is checked against memory once, before anything is read, and refused in the
    command's words (:func:`~treelearn.sources._files.read_check`: the words of a caller's
    block, such as ``learn``'s, win; the readers below check it again for nothing)."""
    from ..sources._files import check_read_memory, read_check

    with read_check(read_memory_fix(source)):
        if source != "-":
            check_read_memory(source)  # refused before anything is read, in these words
        return _read_frame(source, args)


def _read_frame(source: str, args: argparse.Namespace | None) -> pd.DataFrame:
    from ..sources._dialect import check_reading_options
    from ..sources._reading import data_dialect, read_data, separator_note, thousands_columns

    # the reading options of the command (none when a caller gives no arguments)
    options: dict[str, Any] = {
        k: getattr(args, k, None) for k in ("sep", "encoding", "thousands", "decimal")
    }
    if options["sep"] is not None:
        options["sep"] = SEP_WORDS.get(options["sep"].lower(), options["sep"])
    check_reading_options(**options, flags=True)
    categorical = list(getattr(args, "categorical", None) or [])
    stream: Any = sys.stdin if source == "-" else source
    found = data_dialect(stream, **options)
    if found is not None:
        for option, what in found.notes:
            if option == "encoding":
                note(f"{source} is {what}; --encoding says otherwise")
            elif option == "sep":
                note(f"reading {source} as {what} (from its header line; --sep says otherwise)")
            else:
                note(f"reading {source} with {what} (--decimal says otherwise)")
        # read with what was found, so that the read and the notes agree
        options = {**options, **{k: getattr(found, k) for k in ("sep", "encoding", "decimal")}}
        if options["thousands"] is None:
            options["thousands"] = found.thousands
    if source == "-" and options["sep"] is None:
        options["sep"] = ","  # standard input is read once: commas unless --sep
    df = read_data(stream, categorical=categorical, **options)
    absent = [c for c in categorical if c not in df.columns]
    if absent:
        raise CommandError(
            f"--categorical {' '.join(map(str, absent))}: not column(s) of the data; the "
            f"columns are {list(df.columns)}"
        )
    if source != "-" and options["thousands"] is None and options.get("decimal") in (None, "."):
        columns, thousands, decimal = thousands_columns(df)
        if columns:
            note(
                f"reading column(s) {columns} as numbers with {thousands!r} as the "
                f"thousands separator (e.g. {df[columns[0]].dropna().iloc[0]!r}); --thousands "
                f"and --decimal say otherwise"
            )
            df = read_data(
                stream,
                categorical=categorical,
                **{**options, "thousands": thousands, "decimal": decimal},
            )
    found_note = separator_note(df)
    if found_note:
        note(found_note)
    return df


#: how ``--sep`` may name a separator hard to type
SEP_WORDS = {"\\t": "\t", "tab": "\t", "semicolon": ";", "comma": ",", "pipe": "|", "space": " "}


#: separators as the notes name them
SEPARATORS_IN_WORDS = {";": "semicolons", "\t": "tabs", "|": "bars"}


def reading_options(p: argparse.ArgumentParser) -> None:
    """``--sep``, ``--encoding``, ``--thousands``, ``--decimal`` for a command reading DATA."""
    p.add_argument(
        "--sep",
        default=None,
        metavar="S",
        help="the CSV separator, one character or tab (default: from the header line; "
        "tabs for .tsv)",
    )
    p.add_argument(
        "--encoding",
        default=None,
        metavar="E",
        help="the text encoding of the file, e.g. latin-1 (default: from a byte-order "
        "mark, UTF-8, or cp1252 with a note when the file is not UTF-8)",
    )
    p.add_argument(
        "--thousands",
        default=None,
        metavar="C",
        help="the thousands separator of numbers, e.g. , for 81,900.70 (default: "
        "found in columns that need it)",
    )
    p.add_argument(
        "--decimal",
        default=None,
        metavar="C",
        help="the decimal point of numbers, e.g. , for 1.234,5 (default: . or decimal "
        "commas found in a file not separated by commas, with a note)",
    )
    p.add_argument(
        "--categorical",
        nargs="+",
        metavar="COL",
        help="read these columns as the text in the file, as categories (a zip code "
        "02139 stays 02139), never as numbers",
    )


def figure(obj: Any, data: pd.DataFrame | None = None) -> Any:
    """The picture of any drawable kind, titled and with its edges labelled (the mutual
    information, or a tree posterior's edge probabilities); with ``data`` the title gives
    its log-likelihood where the picture has one title."""
    require(obj, "draw", "--plot")
    return obj.draw(title=True, edge_labels=True, **({} if data is None else {"data": data}))


def save_figure(fig: Any, path: str) -> None:
    import matplotlib

    # TrueType fonts in PDF/PS: journals reject the default Type 3 fonts; the figure is not
    # pyplot's (treelearn.viz._draw.new_figure), so nothing to close
    with matplotlib.rc_context({"pdf.fonttype": 42, "ps.fonttype": 42}):
        fig.savefig(path, dpi=200, bbox_inches="tight", pad_inches=0.05, facecolor="white")


def save_object(obj: Any, path: str) -> None:
    from .._io import save

    save(obj, path)


def print_scores(report: ScoreReport, out: Any = None) -> None:
    out = out or sys.stdout
    what = "log-likelihood"
    if report.summed_out is not None:
        what = f"log-likelihood of the features ({report.summed_out!r} summed out)"
    print(f"n = {report.n}", file=out)
    print(f"{what} = {fmt(report.log_likelihood)} nats", file=out)
    print(f"average {what} = {fmt(report.average)} nats per row", file=out)
    print(f"parameters = {report.n_parameters}", file=out)
    print(f"BIC = {fmt(report.bic)}", file=out)
