"""The ``treelearn`` command: learn, score, predict, sample, query and show models.

::

    treelearn learn DATA [--method chow-liu|tan|naive-bayes|kdb|aode|mixture] [--class COL]
                         [--root COL] [--components K] [--n-init N] [--seed S]
                         [--alpha A] [--missing error|drop|pairwise|em] [--drop COL ...]
                         [--discretize BINS] [--max-states N] [--keep COL ...]
                         [-o model.json] [--plot tree.png] [--bif model.bif]
    treelearn score MODEL DATA
    treelearn predict MODEL DATA [--proba] [--target VAR] > predictions.csv
    treelearn sample MODEL -n 1000 [--seed S] [--given COL=VALUE ...] > samples.csv
    treelearn query MODEL VAR [VAR ...] [--given COL=VALUE ...] [--map]
    treelearn show MODEL [--plot out.png | --dot | --mermaid | --html out.html]

DATA is a CSV or Parquet file, or ``-`` for CSV on standard input. Errors in the
input end the command with a one-line message on standard error and exit status
1 (2 for a wrong command line).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._base.errors import (
    NumericColumnWarning,
)
from ..encoding._table import DEFAULT_MAX_STATES, fix_advice, python_scalar

if TYPE_CHECKING:  # pragma: no cover
    from ..models._tree import ScoreReport

__all__ = ["build_parser", "main"]


class _Methods:
    """``--method``'s choices: chow-liu and mixture, and the classifiers from their registry
    (``cli_method``, :func:`treelearn.classifiers._base.command_line_classifiers`), read
    only when a classifier is named so that the tree commands never load scikit-learn."""

    fixed = ("chow-liu", "mixture")

    def _all(self) -> tuple:
        from ..classifiers._base import command_line_classifiers

        return ("chow-liu", *command_line_classifiers(), "mixture")

    def __contains__(self, value: object) -> bool:
        return value in self.fixed or value in self._all()

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())


METHODS = _Methods()
MIN_ROWS_FOR_IDENTIFIER = 10


class CommandError(ValueError):
    """A problem with what the command was asked to do (reported in one line)."""


# ---------------------------------------------------------------------- helpers
def _note(message: str) -> None:
    print(f"treelearn: note: {message}", file=sys.stderr)


@contextlib.contextmanager
def _progress(total: int, desc: str) -> Iterator[Any]:
    """A stage counter on standard error, drawn by tqdm only when stderr is a terminal."""
    bar = None
    if sys.stderr.isatty():
        try:
            from tqdm import tqdm

            bar = tqdm(total=total, desc=desc, file=sys.stderr, leave=False, unit="step")
        except ImportError:
            bar = None

    class Step:
        def __call__(self, label: str) -> None:
            if bar is not None:
                bar.set_postfix_str(label)
                bar.update(1)

    try:
        yield Step()
    finally:
        if bar is not None:
            bar.close()


def read_frame(source: str, args: argparse.Namespace | None = None) -> pd.DataFrame:
    """A CSV or Parquet path, or ``-`` for CSV on standard input, read as the command reads
    data: the separator ``--sep`` or the one the header shows (said in a note when it is
    not a comma), ``--encoding``, ``--thousands``/``--decimal``; text columns of numbers
    written with thousands separators are read as numbers, with a note."""
    from ..sources._reading import data_separator, read_data, separator_note, thousands_columns

    options = {k: getattr(args, k, None) for k in ("sep", "encoding", "thousands")}
    if getattr(args, "decimal", None) is not None:
        options["decimal"] = args.decimal
    stream = sys.stdin if source == "-" else source
    found = data_separator(stream, options["encoding"]) if options["sep"] is None else None
    if found is not None and found != ",":
        _note(
            f"reading {source} as separated by {SEPARATORS_IN_WORDS.get(found, repr(found))} "
            f"(from its header line; --sep says otherwise)"
        )
    if source == "-" and options["sep"] is None:
        options["sep"] = ","  # standard input is read once: commas unless --sep
    df = read_data(stream, **options)
    if source != "-" and options["thousands"] is None and options.get("decimal") is None:
        columns, thousands, decimal = thousands_columns(df)
        if columns:
            _note(
                f"reading column(s) {columns[:10]} as numbers with {thousands!r} as the "
                f"thousands separator (e.g. {df[columns[0]].dropna().iloc[0]!r}); --thousands "
                f"and --decimal say otherwise"
            )
            df = read_data(stream, **{**options, "thousands": thousands, "decimal": decimal})
    note = separator_note(df)
    if note:
        _note(note)
    return df


#: separators as the notes name them
SEPARATORS_IN_WORDS = {";": "semicolons", "\t": "tabs", "|": "bars"}


def _reading_options(p: argparse.ArgumentParser) -> None:
    """``--sep``, ``--encoding``, ``--thousands``, ``--decimal`` for a command reading DATA."""
    p.add_argument(
        "--sep",
        default=None,
        metavar="S",
        help="the CSV separator (default: from the header line; tabs for .tsv)",
    )
    p.add_argument(
        "--encoding",
        default=None,
        metavar="E",
        help="the text encoding of the file (default UTF-8), e.g. latin-1",
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
        help="the decimal point of numbers, e.g. , for 1.234,5 (default .)",
    )


def _load(path: str) -> Any:
    from .._io import load

    return load(path)


def _is_tree(obj: Any) -> bool:
    from ..models._tree import TreeModel

    return isinstance(obj, TreeModel)


def _is_multinet(obj: Any) -> bool:
    """One tree per class (``models_``, by class) rather than one network (``model_``); a
    mixed TAN's list of CLG trees is not one (its trees are not discrete networks)."""
    return not _is_tree(obj) and isinstance(getattr(obj, "models_", None), dict)


def _is_mixture(obj: Any) -> bool:
    """A mixture of trees (``components_`` with ``weights_``), a density without a class."""
    return hasattr(obj, "components_") and hasattr(obj, "weights_")


def _has_network(obj: Any) -> bool:
    """An estimator whose ``model_`` is one discrete network: a classifier's TreeModel, or a
    hidden tree's (its latents and columns); a mixture's or a cutset network's is not."""
    from ..models._hidden_tree import HiddenTreeModel
    from ..models._tree import TreeModel

    return isinstance(getattr(obj, "model_", None), (TreeModel, HiddenTreeModel))


def _network(obj: Any, what: str) -> Any:
    """The TreeModel behind a model file: the model itself, a classifier's ``model_``, or a
    hidden tree's network."""
    if _is_tree(obj):
        return obj
    if _is_mixture(obj):
        raise CommandError(
            f"{what} needs one network; this mixture has "
            f"{len(obj.components_)} trees (one per component)"
        )
    from ..models._hidden_tree import HiddenTreeModel

    try:
        if not _has_network(obj):
            raise AttributeError("model_")
        model = obj.model_
        return model.network if isinstance(model, HiddenTreeModel) else model
    except AttributeError:
        from ._kinds import is_multinet_like

        shape = (
            "has one tree per class"
            if is_multinet_like(obj) or hasattr(obj, "models_")
            else "is not one discrete network"
        )
        raise CommandError(f"{what} needs one network; this {type(obj).__name__} {shape}") from None


def _class_column(clf: Any) -> Any:
    return clf.class_name_


def _fmt(x: float) -> str:
    return f"{float(x):.6f}"


def _save_figure(fig: Any, path: str) -> None:
    import matplotlib

    # TrueType fonts in PDF/PS: journals reject the default Type 3 fonts; the figure is not
    # pyplot's (treelearn.viz._draw.new_figure), so nothing to close
    with matplotlib.rc_context({"pdf.fonttype": 42, "ps.fonttype": 42}):
        fig.savefig(path, dpi=200, bbox_inches="tight", pad_inches=0.05, facecolor="white")


def _draw(obj: Any, data: pd.DataFrame | None = None) -> Any:
    """A figure for a tree, a classifier, or a multinet or mixture (one panel per tree)."""
    if _is_multinet(obj) or _is_mixture(obj):
        return obj.draw()
    if not _is_tree(obj) and not _has_network(obj):
        from ._kinds import refuse

        if hasattr(obj, "draw") and not hasattr(obj, "classes_"):  # Gaussian trees, ...
            return obj.draw()
        raise refuse(obj, "--plot", "it has no network to draw", "print it with show")
    return _network(obj, "drawing").draw(title=True, data=data, edge_labels=True)


# ---------------------------------------------------------------------- learn
def _fit(args: argparse.Namespace, df: pd.DataFrame) -> Any:
    import treelearn as tl

    method = args.method or ("tan" if args.class_ is not None else "chow-liu")
    whitelist, blacklist = (
        _pairs(args.whitelist, "--whitelist"),
        _pairs(args.blacklist, "--blacklist"),
    )
    if (whitelist or blacklist) and method not in ("chow-liu", "tan"):
        raise CommandError("--whitelist and --blacklist are for --method chow-liu or tan")
    if args.forest is not None and method not in ("chow-liu", "tan"):
        raise CommandError("--forest is for --method chow-liu or tan")
    if args.k is not None and method != "kdb":
        raise CommandError("--k is for --method kdb")
    given = [
        flag
        for flag, value in (("--components", args.components), ("--n-init", args.n_init))
        if value is not None
    ]
    if given and method != "mixture":
        raise CommandError(f"{given[0]} is for --method mixture")
    if args.missing == "em" and method not in ("chow-liu", "mixture"):
        raise CommandError(
            f"--missing em is for --method chow-liu or mixture; for --method "
            f"{method} use --missing drop or --missing pairwise"
        )
    if method == "mixture":
        return _fit_mixture(args, df)
    if method == "chow-liu":
        if args.class_ is not None:
            raise CommandError(
                "--class is for --method tan, naive-bayes, kdb or aode; chow-liu has no class"
            )
        alpha = 1.0 if args.alpha is None else args.alpha
        return tl.chow_liu(
            df,
            root=args.root,
            alpha=alpha,
            missing=args.missing,
            forest=args.forest,
            whitelist=whitelist,
            blacklist=blacklist,
            max_states=_max_states(args),
        )
    if args.class_ is None:
        raise CommandError(
            f"--method {method} needs --class COL, the column to predict "
            f"(one of {list(df.columns)[:12]})"
        )
    if args.class_ not in df.columns:
        raise CommandError(
            f"--class {args.class_!r} is not a column of the data; the columns are "
            f"{list(df.columns)[:20]}"
        )
    if args.missing == "error":
        bad = df.columns[df.isna().any()].tolist()
        if bad:
            raise CommandError(
                f"missing values in column(s) {bad[:10]}; use --missing drop or --missing pairwise"
            )
    alpha = 1.0 if args.alpha is None else args.alpha
    X, y = df.drop(columns=[args.class_]), df[args.class_]
    if y.isna().any():
        keep = y.notna().to_numpy()
        _note(f"ignoring {int((~keep).sum())} row(s) without a class label")
        X, y = X[keep], y[keep]
    if args.root is not None and method != "tan":
        raise CommandError(f"--root does not apply to {method}: the class is the root")
    from ..classifiers._base import command_line_classifiers

    options = {
        "tan": {
            "root": args.root,
            "forest": args.forest,
            "whitelist": whitelist,
            "blacklist": blacklist,
        },
        "kdb": {"k": 2 if args.k is None else args.k},
    }
    clf = command_line_classifiers()[method](alpha=alpha, **options.get(method, {}))
    return clf.fit(X, y)


def _fit_mixture(args: argparse.Namespace, df: pd.DataFrame) -> Any:
    """``--method mixture``: a mixture of Chow-Liu trees by EM (tl.TreeMixture)."""
    import treelearn as tl

    if args.class_ is not None or args.root is not None:
        flag = "--class" if args.class_ is not None else "--root"
        raise CommandError(
            f"{flag} does not apply to --method mixture (a density over every "
            f"column; each component's tree has its own root)"
        )
    if args.missing == "pairwise":
        raise CommandError(
            "--method mixture takes --missing error, drop or em (pairwise "
            "counts have no likelihood to run EM on)"
        )
    for flag, value in (("--components", args.components), ("--n-init", args.n_init)):
        if value is not None and value < 1:
            raise CommandError(f"{flag} takes a positive number, not {value}")
    return tl.TreeMixture(
        n_components=2 if args.components is None else args.components,
        n_init=1 if args.n_init is None else args.n_init,
        alpha=1.0 if args.alpha is None else args.alpha,
        random_state=0 if args.seed is None else args.seed,  # same data, same model
        missing="em" if args.missing == "em" else "error",
        max_states=_max_states(args),
    ).fit(df)


def _pairs(items: Sequence[str] | None, option: str) -> list[tuple[str, str]] | None:
    """``["A:B", ...]`` -> ``[("A", "B"), ...]`` (edges for --whitelist / --blacklist)."""
    if not items:
        return None
    pairs = []
    for item in items:
        a, sep, b = item.partition(":")
        if not sep or not a or not b or ":" in b:
            raise CommandError(f"{option} takes edges as A:B (two column names), not {item!r}")
        pairs.append((a, b))
    return pairs


def _discretized(df: pd.DataFrame, bins: int, keep: Sequence[str]) -> pd.DataFrame:
    """Numeric and datetime columns (other than ``keep``) cut into ``bins`` quantile bins."""
    from ..sources._reading import discretized

    if bins < 1:
        raise CommandError(f"--discretize takes a positive number of bins, not {bins}")
    df, columns = discretized(df, bins, keep)
    if columns:
        _note(
            f"cutting {len(columns)} numeric or date column(s) into {bins} quantile bins: "
            f"{columns[:8]}"
        )
    return df


def _max_states(args: argparse.Namespace) -> int:
    return DEFAULT_MAX_STATES if args.max_states is None else args.max_states


#: each fix an error or a note names (errors.TreelearnError.fixes), in the command's words
CLI_FIXES = {
    "discretize": "cut it into bins with --discretize 5",
    "gaussian": "model it as a Gaussian with --numeric gaussian",
    "drop": "leave it out with --drop {col}",
    "max_states": "allow more states with --max-states {n}",
    "missing": "use --missing drop to drop incomplete rows or --missing pairwise to use, for "
    "each table, the rows where its variables are observed",
    "fill": "fill it in",
}


def cli_advice(fixes: Sequence[str], column: Any, n_states: int | None = None) -> str:
    """The fixes by name (``TreelearnError.fixes``) worded with the command's options
    (a fix the command has no option for, such as declaring a column categorical, is left out).

    >>> cli_advice(["discretize", "categorical", "drop"], "age")
    'cut it into bins with --discretize 5, or leave it out with --drop age'
    """
    return fix_advice(fixes, shlex.quote(str(column)), n_states, words=CLI_FIXES)


def _in_cli_words(problem: Exception) -> str:
    """An error about a column, its fix worded with the command's options."""
    fixes, reason = getattr(problem, "fixes", ()), getattr(problem, "reason", None)
    if not fixes or not reason:
        return " ".join(str(problem).split())
    return f"{reason}: {cli_advice(fixes, problem.column, getattr(problem, 'n_states', None))}"


def _check_table(df: pd.DataFrame, args: argparse.Namespace, problems: list) -> None:
    """Every problem of the table in one error, worded with the command's options; the
    notes about numeric columns printed on standard error in the same words."""
    from ..sources._reading import table_problems

    max_states = _max_states(args)
    if max_states < 1:
        raise CommandError(f"--max-states takes a positive number of states, not {max_states}")
    if args.class_ is not None and args.class_ in df.columns and max_states > DEFAULT_MAX_STATES:
        raise CommandError(
            f"--max-states above {DEFAULT_MAX_STATES} is for --method "
            f"chow-liu: the classifiers take at most {DEFAULT_MAX_STATES} "
            f"states per feature"
        )
    problems, notes = table_problems(
        df, missing=args.missing, max_states=max_states, class_column=args.class_, known=problems
    )
    continuous = [p for p in problems if "gaussian" in getattr(p, "fixes", ())]
    if len(continuous) > 1:  # one summary line for the continuous columns, both fixes once
        names = [p.column for p in continuous]
        shown = ", ".join(map(repr, names[:8])) + (
            f" and {len(names) - 8} more" if len(names) > 8 else ""
        )
        summary = (
            f"{len(names)} columns hold continuous numbers ({shown}; treelearn models "
            f"discrete variables): cut them into bins with --discretize 5, or model "
            f"them as Gaussians with --numeric gaussian, or leave them out with --drop "
            f"{' '.join(shlex.quote(str(c)) for c in names[:8])}"
        )
        rest = [p for p in problems if p not in continuous]
        if not rest:
            raise CommandError(summary)
        raise CommandError(
            f"the table has {len(rest) + 1} problems: (1) {summary}; "
            + "; ".join(f"({i}) {_in_cli_words(p)}" for i, p in enumerate(rest, 2))
        )
    if len(problems) == 1:
        raise CommandError(_in_cli_words(problems[0]))
    if problems:
        raise CommandError(
            f"the table has {len(problems)} problems: "
            + "; ".join(f"({i}) {_in_cli_words(p)}" for i, p in enumerate(problems, 1))
        )
    for note in notes:
        _note(
            f"{note.reason}; if the values are measured quantities, "
            f"{cli_advice(note.fixes, note.column)}"
        )


def _scores(obj: Any, df: pd.DataFrame) -> ScoreReport:
    """The model's :class:`~treelearn.models._tree.ScoreReport` on ``df`` (rows as given).

    A classifier scores the class column's labels when ``df`` has one (a missing
    label sums the class out of that row), else the features alone.
    """
    if _is_tree(obj):
        return obj.score_report(df)
    if _is_mixture(obj):
        from ..models._tree import ScoreReport

        return ScoreReport(
            n=len(df),
            log_likelihood=float(obj.score_samples(df).sum()),
            n_parameters=obj.n_parameters,
        )
    if not hasattr(obj, "class_name_"):  # Gaussian trees, tree posteriors, densities
        from ..models._tree import ScoreReport
        from ._kinds import score_of

        log_likelihood, n_parameters = score_of(obj, df)
        return ScoreReport(n=len(df), log_likelihood=log_likelihood, n_parameters=n_parameters)
    cls = _class_column(obj)
    y = df[cls] if cls in df.columns else None
    return obj.score_report(obj.select_features(df), y)


def _report_classifier(clf: Any, X: pd.DataFrame, y: pd.Series, output: str | None) -> int:
    """Save a classifier ``learn`` fitted (if ``-o``), print it and its scores on ``X, y``."""
    if output:
        _save_obj(clf, output)
        print(f"wrote model to {output}", file=sys.stderr)
    from ._kinds import describe

    print(describe(clf))
    print()
    _print_scores(clf.score_report(X, y))
    return 0


def _print_scores(report: ScoreReport, out: Any = None) -> None:
    out = out or sys.stdout
    what = "log-likelihood"
    if report.summed_out is not None:
        what = f"log-likelihood of the features ({report.summed_out!r} summed out)"
    print(f"n = {report.n}", file=out)
    print(f"{what} = {_fmt(report.log_likelihood)} nats", file=out)
    print(f"average {what} = {_fmt(report.average)} nats per row", file=out)
    print(f"parameters = {report.n_parameters}", file=out)
    print(f"BIC = {_fmt(report.bic)}", file=out)


def _learn_gaussian(args: argparse.Namespace, df: pd.DataFrame) -> int:
    """``learn --numeric gaussian``: a linear-Gaussian Chow-Liu tree of numeric columns."""
    import treelearn as tl
    from treelearn.models._tree import ScoreReport

    method = args.method or ("tan" if args.class_ is not None else "chow-liu")
    if args.class_ is not None:
        return _learn_gaussian_classifier(args, df, method)
    if method != "chow-liu":
        raise CommandError(
            f"--numeric gaussian with --method {method} needs --class COL (a Gaussian "
            f"classifier); without a class it learns a Gaussian Chow-Liu tree"
        )
    text = [
        c
        for c in df.columns
        if not pd.api.types.is_numeric_dtype(df[c].dtype) or pd.api.types.is_bool_dtype(df[c].dtype)
    ]
    if text:
        if len(text) == df.shape[1]:
            raise CommandError(
                f"--numeric gaussian: no numeric column to learn from (the "
                f"columns {text[:10]} are not numbers)"
            )
        _note(
            f"--numeric gaussian models the numeric columns; leaving out the column(s) "
            f"{text[:10]}, which are not numbers (a classifier takes them: --class COL)"
        )
        df = df.drop(columns=text)
    unused = [
        flag
        for flag, value in (
            ("--forest", args.forest),
            ("--whitelist", args.whitelist),
            ("--blacklist", args.blacklist),
            ("--bif", args.bif),
            ("--discretize", args.discretize),
            ("--k", args.k),
            ("--alpha", args.alpha),
        )
        if value is not None
    ]
    if unused:
        raise CommandError(
            f"{unused[0]} does not apply to --numeric gaussian (a Gaussian tree "
            "has no counts, states or BIF form)"
        )
    model = tl.gaussian_chow_liu(df, root=args.root)
    if args.output:
        model.save(args.output)
    if args.plot:
        _save_figure(model.draw(edge_labels=True), args.plot)
    print(model)
    for v in model.variables:  # each variable's regression on its parent
        node = model.graph.nodes[v]
        parents = model.parents(v)
        if parents:
            mi = model.graph.edges[parents[0], v]["weight"]
            print(
                f"  {v} = {node['intercept']:.6g} + {node['coefficient']:.6g} * {parents[0]}"
                f" + N(0, {node['variance']:.6g})   [MI {mi:.4f} nats]"
            )
        else:
            print(f"  {v} ~ N({node['intercept']:.6g}, {node['variance']:.6g})   [root]")
    print()
    _print_scores(
        ScoreReport(
            n=len(df), log_likelihood=model.log_likelihood(df), n_parameters=model.n_parameters
        )
    )
    for label, path in (("model", args.output), ("picture", args.plot)):
        if path:
            print(f"wrote {label} to {path}", file=sys.stderr)
    return 0


def _numeric_option(text: str) -> str | list:
    """``--numeric``: error, gaussian, auto, or the Gaussian columns (comma-separated)."""
    if text in ("error", "gaussian", "auto"):
        return text
    names = [c.strip() for c in text.split(",") if c.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give error, gaussian, auto or column names (a,b)")
    return names


def _learn_mixed(args: argparse.Namespace, df: pd.DataFrame) -> int:
    """``learn --numeric auto|COLS``: a CLG tree of the mixed table (``tl.clg_tree(df,
    numeric=)``), or with ``--class`` a mixed TAN (``tl.MixedTAN``)."""
    import treelearn as tl

    numeric = args.numeric
    absent = [] if numeric == "auto" else [c for c in numeric if c not in df.columns]
    if absent:
        raise CommandError(
            f"--numeric {absent[0]!r} is not a column of the data; the columns "
            f"are {list(df.columns)[:20]}"
        )
    unused = [
        flag
        for flag, value in (
            ("--whitelist", args.whitelist),
            ("--blacklist", args.blacklist),
            ("--bif", args.bif),
            ("--discretize", args.discretize),
            ("--k", args.k),
        )
        if value is not None
    ]
    if unused:
        raise CommandError(
            f"{unused[0]} does not apply to --numeric {args.numeric if numeric == 'auto' else 'COLS'} "
            "(a conditional linear Gaussian model has no BIF form, and its "
            "numbers are not cut)"
        )
    method = args.method or ("tan" if args.class_ is not None else "chow-liu")
    if args.class_ is not None:
        if method != "tan":
            raise CommandError(
                f"--numeric with --class learns a mixed TAN (--method tan), not --method {method}"
            )
        if args.class_ not in df.columns:
            raise CommandError(
                f"--class {args.class_!r} is not a column of the data; the "
                f"columns are {list(df.columns)[:20]}"
            )
        labelled = df[df[args.class_].notna().to_numpy()]
        X, y = labelled.drop(columns=[args.class_]), labelled[args.class_]
        clf = tl.MixedTAN(
            alpha=1.0 if args.alpha is None else args.alpha,
            numeric=None if numeric == "auto" else [c for c in numeric if c != args.class_],
            root=args.root,
        ).fit(X, y)
        return _report_classifier(clf, X, y, args.output)
    if method != "chow-liu":
        raise CommandError(
            f"--numeric {args.numeric if numeric == 'auto' else 'COLS'} with "
            f"--method {method} needs --class COL (a mixed TAN); without a class "
            f"it learns a conditional linear Gaussian tree"
        )
    options = {} if args.forest is None else {"forest": args.forest}
    model = tl.clg_tree(df, numeric=numeric, root=args.root, **options)
    if args.output:
        model.save(args.output)
        print(f"wrote model to {args.output}", file=sys.stderr)
    if args.plot:
        _save_figure(model.draw(), args.plot)
        print(f"wrote picture to {args.plot}", file=sys.stderr)
    print(model)
    print()
    total = float(model.log_likelihood(df))
    from treelearn.models._tree import ScoreReport

    _print_scores(ScoreReport(n=len(df), log_likelihood=total, n_parameters=model.n_parameters))
    return 0


def _learn_gaussian_classifier(args: argparse.Namespace, df: pd.DataFrame, method: str) -> int:
    """``learn --numeric gaussian --class COL``: a Gaussian TAN (``--method tan``, the
    default) or a mixed naive Bayes (``--method naive-bayes``: Gaussian numeric columns,
    categorical text columns)."""
    import treelearn as tl

    if args.class_ not in df.columns:
        raise CommandError(
            f"--class {args.class_!r} is not a column of the data; the columns "
            f"are {list(df.columns)[:20]}"
        )
    if method not in ("tan", "naive-bayes"):
        raise CommandError(
            f"--numeric gaussian --class takes --method tan (a Gaussian TAN) or "
            f"naive-bayes (Gaussian numeric and categorical text columns), not "
            f"{method}"
        )
    y = df[args.class_]
    X = df.drop(columns=[args.class_])
    if y.isna().any():
        keep = y.notna().to_numpy()
        _note(f"ignoring {int((~keep).sum())} row(s) without a class label")
        X, y = X[keep], y[keep]
    if method == "tan":
        text = [
            c
            for c in X.columns
            if not pd.api.types.is_numeric_dtype(X[c].dtype)
            or pd.api.types.is_bool_dtype(X[c].dtype)
        ]
        if text:
            raise CommandError(
                f"--method tan with --numeric gaussian models numeric features; "
                f"{text[:10]} are not numbers: use --method naive-bayes (mixed "
                f"data) or --drop them"
            )
        clf = tl.GaussianTAN().fit(X, y)
    else:
        clf = tl.MixedNaiveBayes(alpha=1.0 if args.alpha is None else args.alpha).fit(X, y)
    return _report_classifier(clf, X, y, args.output)


def cmd_learn(args: argparse.Namespace) -> int:
    from ..sources._reading import as_dates, date_columns, date_problems, identifier_columns

    with _progress(4, "learning") as step:
        df = read_frame(args.data, args)
        step("read")
        drop = list(args.drop or [])
        absent = [c for c in drop if c not in df.columns]
        if absent:
            raise CommandError(f"--drop {absent}: not columns of the data {list(df.columns)[:20]}")
        keep = set(args.keep or [])
        protected = {args.class_, args.root}
        dates = [c for c in date_columns(df.drop(columns=drop)) if c not in protected]
        for c in identifier_columns(df.drop(columns=drop + dates)):
            if c not in keep and c not in protected:
                _note(
                    f"ignoring column {c!r}: each of its {len(df)} values is distinct, so it "
                    f"looks like a row identifier (use --keep {c} to learn with it)"
                )
                drop.append(c)
        if drop and len(drop) == df.shape[1]:
            raise CommandError(
                f"no column is left to learn from after leaving out {drop[:10]}; keep "
                f"identifier-like columns with --keep COL"
            )
        df = df.drop(columns=drop)
        if args.missing == "drop" and df.isna().any(axis=None):
            complete = df.dropna()
            if complete.empty:
                raise CommandError("every row has a missing value: --missing drop leaves no rows")
            _note(f"dropping {len(df) - len(complete)} row(s) with missing values")
            df = complete
        if args.numeric == "gaussian":
            return _learn_gaussian(args, df)
        if args.numeric not in (None, "error"):
            return _learn_mixed(args, df)
        problems = []
        if args.discretize is not None:  # dates are cut by time, like numbers
            df = _discretized(
                as_dates(df, dates), args.discretize, [c for c in (args.class_,) if c is not None]
            )
        else:
            problems = date_problems(df, dates, keep, _max_states(args))
        _check_table(df, args, problems)
        with warnings.catch_warnings():  # the notes were printed, in the command's words
            warnings.simplefilter("ignore", NumericColumnWarning)
            fitted = _fit(args, df)
        classifier = not _is_tree(fitted) and not _is_mixture(fitted)
        if classifier:  # rows without a class label were left out of the fit
            df = df[df[_class_column(fitted)].notna().to_numpy()]
        step("fit")
        several = _is_multinet(fitted) or _is_mixture(fitted)
        model = None if several else _network(fitted, "learn")
        if args.bif and model is None:
            trees = fitted.components_ if _is_mixture(fitted) else fitted.models_
            raise CommandError(
                f"--bif needs one network; this {type(fitted).__name__} has {len(trees)}"
            )
        scores = _scores(fitted, df)
        step("score")
        if args.output:
            _save_obj(fitted, args.output)
        if args.bif:
            model.to_bif(args.bif)
        if args.plot:
            _save_figure(_draw(fitted, df), args.plot)
        step("write")
    if model is not None:
        print(model.to_text())
    elif _is_mixture(fitted):
        _print_mixture(fitted)
    else:
        print(
            f"{type(fitted).__name__}: {fitted.n_features_in_} features, class "
            f"{_class_column(fitted)!r}, {len(fitted.models_)} networks"
        )
        for key, tree in fitted.models_.items():
            print(f"  {key}: {tree.to_text().splitlines()[0]}")
    print()
    _print_scores(scores)
    if classifier:
        cls = _class_column(fitted)
        accuracy = float(np.mean(fitted.predict(df.drop(columns=[cls])) == df[cls].to_numpy()))
        print(f"training accuracy = {accuracy:.4f}")
    for label, path in (("model", args.output), ("BIF", args.bif), ("picture", args.plot)):
        if path:
            print(f"wrote {label} to {path}", file=sys.stderr)
    return 0


def _print_mixture(mix: Any) -> None:
    """Each component's weight and text tree."""
    state = "converged" if mix.converged_ else "not converged"
    print(
        f"TreeMixture: {len(mix.components_)} components, EM {state} after "
        f"{mix.n_iter_} iteration{'s' if mix.n_iter_ != 1 else ''}"
    )
    for k, (w, tree) in enumerate(zip(mix.weights_, mix.components_)):
        print(f"\ncomponent {k} (weight {w:.4f}):")
        print(tree.to_text())


def _save_obj(obj: Any, path: str) -> None:
    from .._io import save

    save(obj, path)


# ---------------------------------------------------------------------- other commands
def cmd_score(args: argparse.Namespace) -> int:
    obj = _load(args.model)
    _print_scores(_scores(obj, read_frame(args.data, args)))
    return 0


def cmd_predict(args: argparse.Namespace) -> int:
    obj = _load(args.model)
    df = read_frame(args.data, args)
    if _is_tree(obj):
        if args.target is None:
            raise CommandError(
                "this model is not a classifier: give --target VAR, the variable to predict "
                f"(one of {obj.variables[:12]})"
            )
        if args.target not in obj.variables:
            raise CommandError(
                f"--target {args.target!r} is not a variable; they are {obj.variables[:20]}"
            )
        proba = obj.predict_proba(df, args.target)
        target, labels = args.target, list(proba.columns)
        values = proba.to_numpy()
    elif _is_mixture(obj) and args.target is None:  # each row's component
        target, labels = "component", list(range(len(obj.components_)))
        values = obj.predict_proba(df)
    elif not hasattr(obj, "class_name_") or _is_mixture(obj):  # no class: --target VAR
        from ._kinds import predict_target

        target, labels, values, numbers = predict_target(obj, df, args.target)
        if numbers is not None:  # a Gaussian's conditional mean
            if args.proba:
                raise CommandError(
                    f"--proba: {args.target!r} is a number; its conditional "
                    f"mean is printed without --proba"
                )
            numbers.to_csv(sys.stdout, index=False)
            return 0
    else:
        target = _class_column(obj)
        if args.target is not None and args.target != target:
            raise CommandError(f"this classifier predicts {target!r}, not {args.target!r}")
        lacking = [c for c in obj.feature_names_in_ if c not in df.columns]
        if lacking:
            _note(
                f"the data lacks the feature(s) {lacking[:10]}: summed out, as missing values are"
            )
        values = obj.predict_proba(obj.select_features(df, absent="missing"))
        labels = [python_scalar(c) for c in obj.classes_]
    if args.proba:
        out = pd.DataFrame(values, columns=[f"P({target}={label})" for label in labels])
    else:
        out = pd.DataFrame({target: [labels[i] for i in np.argmax(values, axis=1)]})
    out.to_csv(sys.stdout, index=False)
    return 0


def cmd_sample(args: argparse.Namespace) -> int:
    if args.n < 0:
        raise CommandError(f"-n must be a non-negative number of rows, not {args.n}")
    obj = _load(args.model)
    if args.given and not _is_tree(obj) and not _has_network(obj):
        from ._kinds import sample_given

        evidence = parse_given(args.given)
        if not _is_gaussian(obj):
            first = (
                obj.components_[0]
                if _is_mixture(obj)
                else next(iter(obj.models_.values()))
                if _is_multinet(obj)
                else None
            )
            if first is not None:
                evidence = {k: _typed_state(first, k, v) for k, v in evidence.items()}
        samples = sample_given(obj, args.n, evidence, args.seed, args.numbers)
    elif args.given:
        model = _network(obj, "sample --given")
        evidence = {k: _typed_state(model, k, v) for k, v in parse_given(args.given).items()}
        samples = model.sample(
            args.n,
            evidence=evidence,
            random_state=args.seed,
            **({"numbers": True} if args.numbers else {}),
        )
    elif args.numbers:
        samples = _network(obj, "sample --numbers").sample(
            args.n, random_state=args.seed, numbers=True
        )
    elif hasattr(obj, "sample"):
        samples = obj.sample(args.n, random_state=args.seed)
    else:
        from ._kinds import refuse

        raise refuse(
            obj,
            "sample",
            "it models the class given the features, not the rows",
            "sample from a Chow-Liu tree, a TAN or naive Bayes classifier, or a mixture",
        )
    samples.to_csv(sys.stdout, index=False)
    return 0


def parse_given(items: Sequence[str]) -> dict:
    evidence = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise CommandError(f"--given {item!r}: write it as COLUMN=VALUE")
        if name in evidence and evidence[name] != value:
            raise CommandError(
                f"--given names {name!r} twice ({evidence[name]!r} and {value!r}); give one value"
            )
        evidence[name] = value
    return evidence


def _typed_state(model: Any, name: Any, text: str) -> Any:
    """The state of ``name`` that ``text`` spells, as written in a CSV file.

    pandas reads ``TRUE``/``true`` as a bool and ``1.0`` as a number, so the states
    ``True`` and ``1.0`` are matched by those spellings too; other text is left
    to the model (which names the states when it matches none).
    """
    if name not in model.variables:
        return text
    states = model.states[name]
    if any(str(s) == text for s in states):
        return text
    folded = [s for s in states if isinstance(s, bool) and str(s).lower() == text.strip().lower()]
    if len(folded) == 1:
        return folded[0]
    try:
        number = float(text)
    except ValueError:
        return text
    numbers = [
        s for s in states if isinstance(s, (int, float)) and not isinstance(s, bool) and s == number
    ]
    return numbers[0] if len(numbers) == 1 else text


def _is_gaussian(obj: Any) -> bool:
    from ._kinds import is_gaussian_tree

    return is_gaussian_tree(obj)


def cmd_query(args: argparse.Namespace) -> int:
    obj = _load(args.model)
    if not _is_tree(obj) and not _has_network(obj):  # mixtures, multinets, Gaussians
        from ._kinds import query_text

        evidence = parse_given(args.given)
        first = (
            obj.components_[0]
            if _is_mixture(obj)
            else next(iter(obj.models_.values()))
            if _is_multinet(obj)
            else None
        )
        if first is not None:
            evidence = {k: _typed_state(first, k, v) for k, v in evidence.items()}
        print(query_text(obj, list(args.variables), evidence, args.map))
        return 0
    model = _network(obj, "query")
    evidence = {k: _typed_state(model, k, v) for k, v in parse_given(args.given).items()}
    given = ", ".join(f"{k}={v}" for k, v in evidence.items())
    if args.map:
        assignment, log_p = model.map_query(evidence, return_log_prob=True)
        wanted = [v for v in args.variables if v not in evidence]
        unknown = [v for v in wanted if v not in assignment]
        if unknown:
            raise CommandError(f"{unknown} are not variables; they are {model.variables[:20]}")
        print(
            f"most probable assignment{' given ' + given if given else ''} (log P = {_fmt(log_p)})"
        )
        for v in wanted:
            print(f"{v} = {assignment[v]}")
        return 0
    result = model.query(args.variables, evidence=evidence)
    print(f"P({', '.join(map(str, args.variables))}{' | ' + given if given else ''})")
    table = result.rename("probability").reset_index()
    # only the probabilities get six decimals: a float state is printed as it is
    print(table.to_string(index=False, formatters={"probability": lambda x: f"{x:.6f}"}))
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    obj = _load(args.model)
    df = read_frame(args.data, args)
    options = {"kind": args.kind, "output": args.scale, "random_state": args.seed}
    if _is_tree(obj) or _is_mixture(obj):
        variables = obj.variables if _is_tree(obj) else list(obj.feature_names_in_)
        if args.target is None or args.target not in variables:
            raise CommandError(
                f"give --target VAR, the variable to explain (one of {variables[:12]})"
                if args.target is None
                else f"--target {args.target!r} is not a variable; they are {variables[:20]}"
            )
        state = (
            None
            if args.state is None
            else _typed_state(obj if _is_tree(obj) else obj.components_[0], args.target, args.state)
        )
        explanation = obj.explain(df, args.target, target_state=state, **options)
    else:
        target = _class_column(obj)
        if args.target is not None and args.target != target:
            raise CommandError(f"this classifier predicts {target!r}, not {args.target!r}")
        state = None
        if args.state is not None:
            labels = [python_scalar(c) for c in obj.classes_]
            spelled = [c for c in labels if str(c) == args.state]
            state = spelled[0] if spelled else args.state
        explanation = obj.explain(obj.select_features(df), target_class=state, **options)
    frame = explanation.to_frame()
    if args.output:
        frame.to_csv(args.output, index=False)
        print(
            f"wrote {len(frame)} explained rows to {args.output} ({explanation.method})",
            file=sys.stderr,
        )
    elif not args.plot:
        frame.to_csv(sys.stdout, index=False)
    if args.plot:
        from ..viz._explain_plots import plot_explanation

        _save_figure(plot_explanation(explanation), args.plot)
        print(f"wrote picture to {args.plot}", file=sys.stderr)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    obj = _load(args.model)
    if args.plot:
        _save_figure(_draw(obj), args.plot)
        print(f"wrote picture to {args.plot}", file=sys.stderr)
        return 0
    if args.html:
        if hasattr(obj, "to_html"):
            obj.to_html(args.html)
        else:  # the explorer's own function: it shows the kind, or says why not
            from ..viz._explorer import to_html

            to_html(obj, args.html)
        print(f"wrote explorer page to {args.html}", file=sys.stderr)
        return 0
    if (args.dot or args.mermaid) and _is_gaussian(obj):
        print(obj.to_dot() if args.dot else obj.to_mermaid())
        return 0
    if args.dot or args.mermaid:
        model = _network(obj, "--dot and --mermaid")
        print(model.to_dot() if args.dot else model.to_mermaid())
        return 0
    if _is_mixture(obj) and hasattr(obj, "converged_"):
        _print_mixture(obj)
    elif not _is_tree(obj) and not _has_network(obj) and not _is_multinet(obj):
        from ._kinds import describe

        print(describe(obj))
    elif not _is_multinet(obj):
        if not _is_tree(obj) and not hasattr(obj, "class_name_"):  # a hidden tree
            from ._kinds import describe

            print(describe(obj))
        elif not _is_tree(obj):
            print(
                f"{type(obj).__name__} classifier for {obj.class_name_!r}, classes "
                f"{[python_scalar(c) for c in obj.classes_]}"
            )
        print(_network(obj, "show").to_text())
    else:
        for label, model in obj.models_.items():
            print(f"{obj.class_name_} = {label}:")
            print(model.to_text())
    return 0


# ---------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="treelearn",
        description="Learn tree-shaped Bayesian networks (Chow-Liu, TAN, naive Bayes) from "
        "tabular data, and use them.",
        epilog="DATA is a CSV or Parquet file, or - for CSV on standard input. "
        "Run 'treelearn COMMAND --help' for a command's options.",
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"treelearn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "learn",
        help="learn a model from data and print it",
        description="Learn a Chow-Liu tree (or a TAN / naive Bayes / KDB / AODE classifier, "
        "or a mixture of trees) "
        "and print it as a text tree with the mutual information on each edge, "
        "n, the log-likelihood and BIC.",
    )
    p.add_argument("data", metavar="DATA", help="CSV or Parquet file, or - for CSV on stdin")
    p.add_argument(
        "--method",
        choices=METHODS,
        metavar="METHOD",  # the choices are listed in the help, read only when it is printed
        default=None,
        help="structure to learn: %(choices)s (default: chow-liu, or tan when --class is "
        "given; mixture: a mixture of Chow-Liu trees by EM)",
    )
    p.add_argument(
        "--class",
        dest="class_",
        metavar="COL",
        help="the class column (tan, naive-bayes, kdb, aode)",
    )
    p.add_argument(
        "--components",
        type=int,
        default=None,
        metavar="K",
        help="mixture: number of trees (default 2)",
    )
    p.add_argument(
        "--n-init",
        type=int,
        default=None,
        metavar="N",
        help="mixture: EM restarts, the best kept (default 1)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help="mixture: random seed of EM's start (default 0: same data, same model)",
    )
    p.add_argument(
        "--k",
        type=int,
        default=None,
        metavar="K",
        help="kdb: feature parents per feature besides the class (default 2)",
    )
    p.add_argument(
        "--forest",
        choices=("bic", "aic"),
        default=None,
        help="chow-liu, tan: keep only edges that improve BIC or AIC (a forest)",
    )
    p.add_argument(
        "--whitelist", nargs="+", metavar="A:B", help="chow-liu, tan: edges the tree must contain"
    )
    p.add_argument(
        "--blacklist",
        nargs="+",
        metavar="A:B",
        help="chow-liu, tan: edges the tree must not contain",
    )
    p.add_argument(
        "--discretize",
        type=int,
        default=None,
        metavar="BINS",
        help="cut numeric and date columns into BINS quantile bins first "
        "(the saved model's states are those bins)",
    )
    p.add_argument(
        "--max-states",
        type=int,
        default=None,
        metavar="N",
        help=f"the most distinct values a column may have (default "
        f"{DEFAULT_MAX_STATES}; chow-liu may go higher)",
    )
    p.add_argument("--root", metavar="COL", help="root of the tree (default: the first column)")
    p.add_argument(
        "--alpha",
        type=float,
        default=None,
        metavar="A",
        help="Lidstone pseudocount for the CPTs (default 1, Laplace; 0 = maximum likelihood)",
    )
    p.add_argument(
        "--missing",
        choices=("error", "drop", "pairwise", "em"),
        default="error",
        help="what to do with missing values (default: error; em: learn them by EM, for "
        "chow-liu and mixture)",
    )
    p.add_argument(
        "--numeric",
        type=_numeric_option,
        default="error",
        metavar="error|gaussian|auto|COL,COL",
        help="numeric columns: error (default; see --discretize), gaussian (a linear-Gaussian "
        "Chow-Liu tree of numeric columns), auto (the fractional-float columns are "
        "Gaussian in a conditional linear Gaussian tree of the mixed table; with --class "
        "a mixed TAN) or the Gaussian columns named, comma-separated",
    )
    p.add_argument("--drop", nargs="+", metavar="COL", help="columns to leave out")
    p.add_argument(
        "--keep",
        nargs="+",
        metavar="COL",
        help="keep these columns even if they look like row identifiers",
    )
    _reading_options(p)
    p.add_argument("-o", "--output", metavar="MODEL.json", help="save the model (JSON)")
    p.add_argument("--plot", metavar="FILE", help="draw the tree (.png, .svg, .pdf)")
    p.add_argument("--bif", metavar="FILE", help="write the network as BIF")
    p.set_defaults(func=cmd_learn)

    p = sub.add_parser(
        "score",
        help="log-likelihood and BIC of data under a model",
        description="Print n, the total and average log-likelihood (nats) and BIC.",
    )
    p.add_argument("model", metavar="MODEL", help="model file written by 'learn -o'")
    p.add_argument("data", metavar="DATA", help="CSV or Parquet file, or - for CSV on stdin")
    _reading_options(p)
    p.set_defaults(func=cmd_score)

    p = sub.add_parser(
        "predict",
        help="predict a class (or any variable) for each row",
        description="Write predictions as CSV to standard output: one column named "
        "after the class, or with --proba one column P(class=label) per label.",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument("data", metavar="DATA")
    _reading_options(p)
    p.add_argument("--proba", action="store_true", help="write class probabilities")
    p.add_argument(
        "--target",
        metavar="VAR",
        help="the variable to predict with a Chow-Liu tree (classifiers know theirs)",
    )
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser(
        "sample",
        help="draw rows from a model (CSV on stdout)",
        description="Sample rows from the model (given evidence with --given); CSV to "
        "standard output.",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument("-n", type=int, default=1000, help="number of rows (default 1000)")
    p.add_argument("--seed", type=int, default=None, help="random seed")
    p.add_argument(
        "--given",
        nargs="+",
        metavar="COL=VALUE",
        default=[],
        help="sample given evidence, e.g. --given smoke=yes (exact conditional sampling)",
    )
    p.add_argument(
        "--numbers",
        action="store_true",
        help="binned columns (learned with --discretize) as numbers drawn within "
        "each row's bin, not bin labels",
    )
    p.set_defaults(func=cmd_sample)

    p = sub.add_parser(
        "query",
        help="exact posterior of variables given evidence",
        description="Print P(VAR ... | evidence), exact (message passing on trees), or with "
        "--map the most probable assignment.",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument("variables", metavar="VAR", nargs="+", help="the variable(s) to query")
    p.add_argument(
        "--given",
        nargs="+",
        metavar="COL=VALUE",
        default=[],
        help="evidence, e.g. --given smoke=yes xray=no",
    )
    p.add_argument(
        "--map",
        action="store_true",
        help="print the most probable joint assignment (of the VARs shown; MAP over all "
        "non-evidence variables) instead of the posterior",
    )
    p.set_defaults(func=cmd_query)

    p = sub.add_parser(
        "explain",
        help="each feature's contribution to each row's prediction",
        description="Explain the prediction of --target (a classifier's class, or any "
        "variable of a tree) for each row: the log-odds decomposition along the network, or "
        "with --kind shapley exact Shapley values (sampled, with standard errors, beyond 20 "
        "features). CSV (the contributions, (target), (base), (prediction)) to standard "
        "output or -o; --plot draws a waterfall for one row, a beeswarm for many.",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument("data", metavar="DATA", help="CSV or Parquet file, or - for CSV on stdin")
    p.add_argument(
        "--target", metavar="VAR", help="the variable explained (classifiers know theirs)"
    )
    p.add_argument(
        "--state",
        metavar="LABEL",
        help="the state (class) explained (default: each row's most probable)",
    )
    p.add_argument(
        "--kind",
        choices=["log_odds", "shapley"],
        default="log_odds",
        help="log_odds (default): the chain rule of the log posterior odds; "
        "shapley: Shapley values",
    )
    p.add_argument(
        "--scale",
        choices=["log_proba", "proba", "log_odds"],
        default=None,
        help="what --kind shapley explains (default log_proba)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="random seed of the sampling estimator (more than 20 features)",
    )
    p.add_argument("-o", "--output", metavar="CSV", help="write the table here")
    p.add_argument("--plot", metavar="FILE", help="draw it (.png, .svg, .pdf)")
    _reading_options(p)
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser(
        "show",
        help="print or draw a saved model",
        description="Print the model as a text tree, or draw or export it.",
    )
    p.add_argument("model", metavar="MODEL")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--plot", metavar="FILE", help="draw it (.png, .svg, .pdf)")
    out.add_argument("--dot", action="store_true", help="print Graphviz DOT")
    out.add_argument("--mermaid", action="store_true", help="print a Mermaid flowchart")
    out.add_argument(
        "--html",
        metavar="FILE",
        help="write an interactive explorer page (click states to set evidence)",
    )
    p.set_defaults(func=cmd_show)
    return parser


def _one_line(exc: BaseException) -> str:
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    text = " ".join(text.split())
    return text or type(exc).__name__


#: positional arguments each subcommand with --given needs before its first option
GIVEN_POSITIONALS = {"query": 2, "sample": 1}


def untangle_given(argv: Sequence[str]) -> list[str]:
    """Put positional arguments written after ``--given`` back in front of it.

    ``--given`` takes several ``COL=VALUE`` items, so argparse would swallow
    ``query --given smoke=yes MODEL VAR``'s MODEL and VAR as evidence. When too
    few positionals come before ``--given``, the items after it without ``=``
    are moved in front (a malformed item after enough positionals is left for
    the ``COL=VALUE`` error).

    >>> untangle_given(["query", "--given", "smoke=yes", "m.json", "lung"])
    ['query', 'm.json', 'lung', '--given', 'smoke=yes']
    """
    argv = list(argv)
    if not argv or argv[0] not in GIVEN_POSITIONALS or "--given" not in argv:
        return argv
    start = argv.index("--given")
    before = [t for t in argv[1:start] if not t.startswith("-")]
    if len(before) >= GIVEN_POSITIONALS[argv[0]]:
        return argv
    end = start + 1
    while end < len(argv) and not argv[end].startswith("-"):
        end += 1
    items = argv[start + 1 : end]
    moved = [t for t in items if "=" not in t]
    kept = [t for t in items if "=" in t]
    return argv[:start] + moved + ["--given", *kept] + argv[end:]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(untangle_given(sys.argv[1:] if argv is None else argv))
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # e.g. piped into head
        with contextlib.suppress(Exception):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (lives until exit)
        return 0
    except (ValueError, KeyError, OSError, ImportError) as exc:
        # TreelearnError is a ValueError; FileNotFoundError an OSError
        print(f"treelearn: error: {_one_line(exc)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
