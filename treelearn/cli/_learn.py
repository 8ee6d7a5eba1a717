"""The ``learn`` command: read a table, check it, learn a model and print it.

``learn`` reads the table (:func:`~treelearn.cli._common.read_frame`), leaves out
identifier-like columns, checks every problem of the table at once (worded with the
command's options: :data:`CLI_FIXES`), learns the model ``--method`` names (a Chow-Liu tree,
a classifier from the registry's ``cli_method``, a mixture; with ``--numeric`` a Gaussian
or CLG tree, or a Gaussian / mixed classifier), then prints it as every kind prints itself
(``to_text``), with its scores on the training rows.
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import NumericColumnWarning, TreelearnError
from ..encoding._table import DEFAULT_MAX_STATES, fix_advice, missing_fix
from ..stats._information import PairwiseRowsWarning
from ._common import (
    CommandError,
    figure,
    note,
    print_scores,
    read_frame,
    read_memory_fix,
    require,
    save_figure,
    save_object,
)
from ._use import scores

__all__ = ["CLI_FIXES", "METHODS", "cli_advice", "cmd_learn", "in_cli_words", "numeric_option"]


class _Methods:
    """``--method``'s choices: chow-liu and mixture, and the classifiers from their registry
    (``cli_method``, :func:`treelearn.classifiers._base.command_line_classifiers`), read
    only when a classifier is named so that the tree commands never load scikit-learn."""

    fixed = ("chow-liu", "mixture", "auto")

    def _all(self) -> tuple:
        from ..classifiers._base import command_line_classifiers

        return ("chow-liu", *command_line_classifiers(), "mixture", "auto")

    def __contains__(self, value: object) -> bool:
        return value in self.fixed or value in self._all()

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())


METHODS = _Methods()


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


# ---------------------------------------------------------------------- learn
def _check_options(args: argparse.Namespace, method: str) -> tuple[Any, Any]:
    """Refuse options that do not apply to ``method`` (before anything is read or fitted);
    ``(whitelist, blacklist)`` as pairs."""
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
    if args.time_budget is not None and method != "auto":
        raise CommandError("--time-budget is for --method auto (without --class)")
    takes, why = _MISSING_BY_METHOD.get(method, (_ALL_MISSING, ""))
    if args.missing not in takes:
        raise CommandError(
            f"--method {method} takes --missing {_either(takes)} ({why}), not {args.missing}"
        )
    _check_class_arcs(args)
    return whitelist, blacklist


#: the --missing choices of the methods that take fewer than chow-liu's, and why
_ALL_MISSING = ("error", "drop", "pairwise", "em")
_MISSING_BY_METHOD = {
    "mixture": (("error", "drop", "em"), "pairwise counts have no likelihood to run EM on"),
    "auto": (("error", "drop"), "its candidates learn from complete rows"),
}


def _learn_method(args: argparse.Namespace) -> str:
    """The ``--method`` learn uses: as given, else tan with ``--class``, chow-liu without."""
    return args.method or ("tan" if args.class_ is not None else "chow-liu")


def _fit(args: argparse.Namespace, df: pd.DataFrame) -> Any:
    import treelearn as tl

    method = _learn_method(args)
    whitelist, blacklist = _check_options(args, method)
    if method == "auto":
        return _fit_auto(args, df)
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
                f"missing values in column(s) {bad}; use --missing drop or --missing pairwise"
            )
    alpha = 1.0 if args.alpha is None else args.alpha
    X, y = df.drop(columns=[args.class_]), df[args.class_]
    if y.isna().any():
        keep = y.notna().to_numpy()
        note(f"ignoring {int((~keep).sum())} row(s) without a class label")
        X, y = X[keep], y[keep]
    if args.root is not None and method != "tan":
        raise CommandError(f"--root does not apply to {method}: the class is the root")
    return _command_classifier(args, method).fit(X, y)


def _command_classifier(args: argparse.Namespace, method: str) -> Any:
    """The unfitted classifier ``--method`` names, with the command's options."""
    from ..classifiers._base import command_line_classifiers

    options = {
        "tan": {
            "root": args.root,
            "forest": args.forest,
            "whitelist": _pairs(args.whitelist, "--whitelist"),
            "blacklist": _pairs(args.blacklist, "--blacklist"),
        },
        "kdb": {} if args.k is None else {"k": args.k},  # None: KDB's k="auto"
    }
    alpha = 1.0 if args.alpha is None else args.alpha
    made = command_line_classifiers()[method]
    if "class_arcs" in made().get_params():
        options.setdefault(method, {})["class_arcs"] = _class_arcs(args)
    return made(alpha=alpha, **options.get(method, {}))


def _class_arcs(args: argparse.Namespace) -> str:
    """The ``class_arcs`` of a classifier the command builds: ``--class-arcs``, else
    ``"all"`` with ``--alpha 0`` (maximum likelihood: the plain CPTs, no marginal likelihood
    to average the class arcs by) and the classifiers' default ``"average"`` otherwise."""
    if args.class_arcs is not None:
        return str(args.class_arcs)
    return "all" if args.alpha == 0 else "average"


def _classifier_of(args: argparse.Namespace) -> type | None:
    """The classifier class ``learn`` builds with these options (``None``: no ``--class``, a
    density), as :func:`_fit`, :func:`_learn_gaussian_classifier` and
    :func:`_learn_mixed_model` choose it; a method a path refuses anyway gives ``None``."""
    if args.class_ is None:
        return None
    import treelearn as tl

    from ..classifiers._base import command_line_classifiers

    method = args.method or "tan"
    if method == "auto":
        return tl.AutoClassifier
    if args.numeric == "gaussian":
        return {"tan": tl.GaussianTAN, "naive-bayes": tl.MixedNaiveBayes}.get(method)
    if args.numeric not in (None, "error"):  # --numeric auto or COLS: a mixed TAN
        return tl.MixedTAN if method == "tan" else None
    return command_line_classifiers().get(method)


def _class_arcs_methods() -> str:
    """The methods whose classifiers take ``--class-arcs`` (those with a ``class_arcs``
    parameter), in the command's words."""
    import treelearn as tl

    from ..classifiers._base import command_line_classifiers

    methods = [name for name, made in command_line_classifiers().items() if _has_class_arcs(made)]
    takes = f"--class COL with --method {_either(methods)}"
    if _has_class_arcs(tl.MixedNaiveBayes):
        takes += " (naive-bayes with --numeric gaussian too)"
    return takes


def _has_class_arcs(made: type) -> bool:
    return "class_arcs" in made().get_params()


def _either(words: Sequence[str]) -> str:
    """``a, b or c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _check_class_arcs(args: argparse.Namespace) -> None:
    """Refuse ``--class-arcs`` before the data is read: for a learner without a class-arc
    choice (a density, AODE, AutoClassifier, the Gaussian and mixed TANs), naming the
    methods that take it, as ``--k`` is refused outside kdb; and ``average`` with ``--alpha
    0`` (maximum likelihood has no marginal likelihood to average the class arcs by)."""
    if args.class_arcs is None:
        return
    if args.class_ is None:
        raise CommandError(
            f"--class-arcs is for a classifier, {_class_arcs_methods()}; without --class "
            f"there is no class to have arcs from"
        )
    made = _classifier_of(args)
    if made is None or not _has_class_arcs(made):
        method = f"--method {args.method or 'tan'}"
        if args.numeric not in (None, "error"):
            method += f" --numeric {args.numeric if isinstance(args.numeric, str) else 'COLS'}"
        named = "" if made is None else f" ({made.__name__}, which has no class-arc choice)"
        raise CommandError(
            f"--class-arcs does not apply to {method}{named}; it is for {_class_arcs_methods()}"
        )
    if args.class_arcs == "average" and args.alpha == 0:
        raise CommandError(
            "--class-arcs average does not go with --alpha 0: maximum likelihood has no "
            "marginal likelihood to average the class arcs by; give --class-arcs all (the "
            "plain maximum-likelihood CPTs) or --alpha above 0 (e.g. --alpha 1)"
        )


def _binned_columns(args: argparse.Namespace, df: pd.DataFrame) -> list:
    """The feature columns a classifier of ``learn --class`` cuts into MDL bins in its fit
    (numbers by dtype, as the classifiers' default ``numbers="mdl"`` takes them; a
    ``--categorical`` column is read as text, so it stays states); none without a class or
    with ``--discretize`` (the columns are cut already)."""
    if args.class_ is None or args.discretize is not None:
        return []  # before the imports: a density's path loads no scikit-learn
    from ..classifiers._base import command_line_classifiers
    from ..classifiers._numbers import numeric_features

    method = args.method or "tan"
    if method not in (*command_line_classifiers(), "auto") or args.class_ not in df.columns:
        return []
    return numeric_features(df.drop(columns=[args.class_]), None)


def _refuse_given(options: Sequence[tuple[str, Any]], applies_to: str) -> None:
    """Refuse the first of ``options`` (``(flag, value)``) given on the command line (not
    None): ``FLAG does not apply to <applies_to>``."""
    given = [flag for flag, value in options if value is not None]
    if given:
        raise CommandError(f"{given[0]} does not apply to {applies_to}")


def _fit_auto(args: argparse.Namespace, df: pd.DataFrame) -> Any:
    """``--method auto``: with ``--class``, ``tl.AutoClassifier`` (the candidate of lowest
    cross-validated log-loss); without, ``tl.AutoDensity`` (the candidate of highest
    validation log-likelihood within ``--time-budget``). What was chosen and every
    candidate's score go to standard error."""
    import treelearn as tl

    _refuse_given(
        (
            ("--root", args.root),
            ("--alpha", args.alpha),
            ("--whitelist", args.whitelist),
            ("--blacklist", args.blacklist),
            ("--forest", args.forest),
            ("--k", args.k),
            ("--components", args.components),
            ("--n-init", args.n_init),
        ),
        "--method auto: each candidate it tries keeps its own settings (name a method to set them)",
    )
    seed = 0 if args.seed is None else args.seed  # same data, same choice
    if args.class_ is not None:
        if args.time_budget is not None:
            raise CommandError(
                "--time-budget is for --method auto without --class (the density); the "
                "classifier scores its candidates from fold counts"
            )
        if args.class_ not in df.columns:
            raise CommandError(
                f"--class {args.class_!r} is not a column of the data; the columns are "
                f"{list(df.columns)[:20]}"
            )
        X, y = df.drop(columns=[args.class_]), df[args.class_]
        if y.isna().any():
            keep = y.notna().to_numpy()
            note(f"ignoring {int((~keep).sum())} row(s) without a class label")
            X, y = X[keep], y[keep]
        clf = tl.AutoClassifier(random_state=seed).fit(X, y)
        note(
            f"--method auto chose {clf.chosen_} (cross-validated log-loss per row, "
            f"{clf.cv} folds, lower is better: "
            + ", ".join(f"{k} {v:.4f}" for k, v in clf.candidate_scores_.items())
            + ")"
        )
        for name, message in clf.candidate_errors_.items():
            note(f"--method auto: {name} refused the table: {message}")
        return clf
    if args.time_budget is not None and args.time_budget < 0:
        raise CommandError(f"--time-budget takes seconds (0 or more), not {args.time_budget}")
    auto = tl.AutoDensity(
        time_budget=args.time_budget,
        random_state=seed,
        max_states=_max_states(args),
    ).fit(df)
    note(
        f"--method auto chose {auto.chosen_} (validation log-likelihood per row, higher is "
        f"better: "
        + ", ".join(
            f"{k} {v:.4f} ({auto.candidate_seconds_[k]:.1f} s)"
            for k, v in auto.candidate_scores_.items()
        )
        + ")"
    )
    if auto.skipped_:
        note(
            f"--method auto: the --time-budget of {args.time_budget:g} s was spent before "
            f"{', '.join(auto.skipped_)} started"
        )
    for name, message in auto.candidate_errors_.items():
        note(f"--method auto: {name} refused the table: {message}")
    return auto


def _fit_mixture(args: argparse.Namespace, df: pd.DataFrame) -> Any:
    """``--method mixture``: a mixture of Chow-Liu trees by EM (tl.TreeMixture)."""
    import treelearn as tl

    if args.class_ is not None or args.root is not None:
        flag = "--class" if args.class_ is not None else "--root"
        raise CommandError(
            f"{flag} does not apply to --method mixture (a density over every "
            f"column; each component's tree has its own root)"
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
        note(
            f"cutting {len(columns)} numeric or date column(s) into {bins} quantile bins: {columns}"
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
    "missing_em": "use --missing drop to drop incomplete rows or --missing em to learn the "
    "missing cells by EM",
    "missing_drop": "use --missing drop to drop incomplete rows",
    "fill": "fill it in",
    "iso_dates": "write the dates as ISO 8601 (2021-04-03) to say their order",
    "encoding": "give its encoding with --encoding (e.g. --encoding cp1252, latin-1 or "
    "utf-16), or re-save it as UTF-8",
    "background": "explain it against background rows with --background DATA (interventional "
    "Shapley values)",
}


def cli_advice(fixes: Sequence[str], column: Any, n_states: int | None = None) -> str:
    """The fixes by name (``TreelearnError.fixes``) worded with the command's options
    (a fix the command has no option for, such as declaring a column categorical, is left out).

    >>> cli_advice(["discretize", "categorical", "drop"], "age")
    'cut it into bins with --discretize 5, or leave it out with --drop age'
    """
    return fix_advice(fixes, shlex.quote(str(column)), n_states, words=CLI_FIXES)


def in_cli_words(problem: TreelearnError, mixed: str | None = None) -> str:
    """An error that names its fixes (``reason``, ``fixes``), the fixes worded with the
    command's options (a column problem's ``n_states``, where it has one, sizes them).

    ``mixed``: the table also has columns that are not numbers, so a number's first fix is
    the mixed model (``--numeric auto``; ``mixed`` says which: "a tree over both kinds" or
    "a mixed TAN"), which keeps every column, where ``--numeric gaussian`` would drop them.

    >>> from treelearn._base.errors import NumericColumnError
    >>> e = NumericColumnError("x", column="w", reason="column 'w' is numeric",
    ...                        fixes=("discretize", "gaussian", "drop"))
    >>> in_cli_words(e, mixed="a mixed TAN")  # doctest: +NORMALIZE_WHITESPACE
    "column 'w' is numeric: model it as a Gaussian in a mixed TAN with --numeric auto, cut it
    into bins with --discretize 5, or leave it out with --drop w"
    """
    if not problem.fixes or not problem.reason:
        return " ".join(str(problem).split())
    n_states = getattr(problem, "n_states", None)  # only the too-many-states errors have it
    fixes, words = problem.fixes, CLI_FIXES
    if mixed is not None and "gaussian" in fixes:
        fixes = ("gaussian", *(f for f in fixes if f != "gaussian"))
        words = {**CLI_FIXES, "gaussian": f"model it as a Gaussian in {mixed} with --numeric auto"}
    advice = fix_advice(fixes, shlex.quote(str(problem.column)), n_states, words=words)
    return f"{problem.reason}: {advice}"


#: a hint names at most this many columns in one --drop; beyond, it names flags that take
#: every column at once
MAX_NAMED = 12


def _for_the_command(
    problem: TreelearnError, args: argparse.Namespace, df: pd.DataFrame | None = None
) -> TreelearnError:
    """A column's problem as the command words it, whether the table was read whole
    (``df``) or in chunks (the reader said it): where its column of numbers turns to text
    (:func:`~treelearn.sources._kinds.text_turn`), and with ``--class`` no ``--max-states``
    above what the classifiers take (refused for them: the fix would not work)."""
    from ..sources._kinds import text_turn, turn_reason

    column = problem.column
    if df is not None and column is not None and column in df.columns:
        _, turn = text_turn(df[column])
        if turn is not None:
            problem = turn_reason(problem, turn)
    n_states = getattr(problem, "n_states", None)
    if args.class_ is not None and n_states is not None and n_states > DEFAULT_MAX_STATES:
        problem = problem.copied()
        problem.fixes = tuple(f for f in problem.fixes if f != "max_states")
    word = missing_fix(_MISSING_BY_METHOD.get(_learn_method(args), (_ALL_MISSING, ""))[0])
    if tuple(problem.fixes) == ("missing",) and word != "missing":
        problem = problem.copied()  # the --missing choices this --method takes
        problem.fixes = (word,)
    return problem


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
    problems = [_for_the_command(p, args, df) for p in problems]
    continuous = [p for p in problems if "gaussian" in p.fixes]
    text = [
        c
        for c in df.columns
        if c != args.class_
        and (
            not pd.api.types.is_numeric_dtype(df[c].dtype)
            or pd.api.types.is_bool_dtype(df[c].dtype)
        )
    ]
    mixed = None
    if text and continuous:  # the mixed model keeps every column: it comes first
        mixed = "a mixed TAN" if args.class_ is not None else "a tree over both kinds"
    if len(continuous) > 1:  # one summary line for the continuous columns, both fixes once
        names = [p.column for p in continuous]
        shown = ", ".join(map(repr, names[:8])) + (
            f" and {len(names) - 8} more" if len(names) > 8 else ""
        )
        if mixed is not None:  # a mixed table: the mixed model first, it keeps every column
            gaussian = (
                f"model them as Gaussians in {mixed} with --numeric auto (or the numeric "
                f"columns alone with --numeric gaussian)"
            )
        else:
            gaussian = "model them as Gaussians with --numeric gaussian"
        # every column named in --drop, or (too many to type) no --drop: the fixes above
        # take them all
        drop = (
            f", or leave them out with --drop {' '.join(shlex.quote(str(c)) for c in names)}"
            if len(names) <= MAX_NAMED
            else ""
        )
        summary = (
            f"{len(names)} columns hold continuous numbers ({shown}; treelearn models "
            f"discrete variables): {gaussian}, or cut them into bins with --discretize 5"
            f"{drop}"
        )
        rest = [p for p in problems if p not in continuous]
        if not rest:
            raise CommandError(summary)
        raise CommandError(
            f"the table has {len(rest) + 1} problems: (1) {summary}; "
            + "; ".join(f"({i}) {in_cli_words(p, mixed)}" for i, p in enumerate(rest, 2))
        )
    if len(problems) == 1:
        raise CommandError(in_cli_words(problems[0], mixed))
    if problems:
        raise CommandError(
            f"the table has {len(problems)} problems: "
            + "; ".join(f"({i}) {in_cli_words(p, mixed)}" for i, p in enumerate(problems, 1))
        )
    for found in notes:
        note(
            f"{found.reason}; if the values are measured quantities, "
            f"{cli_advice(found.fixes, found.column)}"
        )


def _report_classifier(
    clf: Any, X: pd.DataFrame, y: pd.Series, output: str | None, plot: str | None
) -> int:
    """Save a classifier ``learn`` fitted (if ``-o``) and its picture (if ``--plot``: refused
    before anything is written when it has none), print it and its scores on ``X, y``."""
    if plot:
        require(clf, "draw", "--plot")
    if output:
        save_object(clf, output)
        print(f"wrote model to {output}", file=sys.stderr)
    if plot:
        save_figure(figure(clf, X.assign(**{clf.class_name_: y})), plot)
        print(f"wrote picture to {plot}", file=sys.stderr)
    print(clf.to_text())
    print()
    print_scores(clf.score_report(X, y))
    return 0


def _learn_gaussian(args: argparse.Namespace, df: pd.DataFrame) -> int:
    """``learn --numeric gaussian``: a linear-Gaussian Chow-Liu tree of numeric columns."""
    import treelearn as tl

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
                f"columns {text} are not numbers)"
            )
        note(
            f"--numeric gaussian models the numeric columns; leaving out the column(s) "
            f"{text}, which are not numbers (a classifier takes them: --class COL)"
        )
        df = df.drop(columns=text)
    _refuse_given(
        (
            ("--forest", args.forest),
            ("--whitelist", args.whitelist),
            ("--blacklist", args.blacklist),
            ("--bif", args.bif),
            ("--discretize", args.discretize),
            ("--k", args.k),
            ("--alpha", args.alpha),
        ),
        "--numeric gaussian (a Gaussian tree has no counts, states or BIF form)",
    )
    model = tl.gaussian_chow_liu(df, root=args.root)
    if args.output:
        model.save(args.output)
    if args.plot:
        save_figure(figure(model, df), args.plot)
    # each variable's Gaussian given its parent: mean (a regression on it) and variance
    print(model.to_text())
    print()
    print_scores(scores(model, df))
    for label, path in (("model", args.output), ("picture", args.plot)):
        if path:
            print(f"wrote {label} to {path}", file=sys.stderr)
    return 0


def numeric_option(text: str) -> str | list:
    """``--numeric``: error, gaussian, auto, or the Gaussian columns (comma-separated)."""
    if text in ("error", "gaussian", "auto"):
        return text
    names = [c.strip() for c in text.split(",") if c.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give error, gaussian, auto or column names (a,b)")
    return names


def _learn_mixed(args: argparse.Namespace, df: pd.DataFrame) -> int:
    """``learn --numeric auto|COLS``, its notes about numeric columns taken as states said
    in the command's words (name the Gaussian columns with ``--numeric A,B``)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status = _learn_mixed_model(args, df)
    states = [w for w in caught if issubclass(w.category, NumericColumnWarning)]
    for w in caught:
        if not issubclass(w.category, NumericColumnWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if states:
        named = [w.message.column for w in states]  # type: ignore[union-attr]
        gaussian = [
            c
            for c in df.columns
            if c != args.class_ and pd.api.types.is_float_dtype(df[c].dtype) and c not in named
        ]
        note(
            f"column(s) {named} hold many whole numbers, each taken as a state; if they are "
            f"measured quantities, name every Gaussian column: --numeric "
            f"{','.join(map(str, gaussian + named))}"
        )
    return status


def _learn_mixed_model(args: argparse.Namespace, df: pd.DataFrame) -> int:
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
    _refuse_given(
        (
            ("--whitelist", args.whitelist),
            ("--blacklist", args.blacklist),
            ("--bif", args.bif),
            ("--discretize", args.discretize),
            ("--k", args.k),
        ),
        f"--numeric {args.numeric if numeric == 'auto' else 'COLS'} "
        "(a conditional linear Gaussian model has no BIF form, and its "
        "numbers are not cut)",
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
            # auto: each number a Gaussian or its MDL bins, as predicts the class better;
            # the columns named are Gaussian
            numbers="auto" if numeric == "auto" else "gaussian",
        ).fit(X, y)
        return _report_classifier(clf, X, y, args.output, args.plot)
    if method != "chow-liu":
        raise CommandError(
            f"--numeric {args.numeric if numeric == 'auto' else 'COLS'} with "
            f"--method {method} needs --class COL (a mixed TAN); without a class "
            f"it learns a conditional linear Gaussian tree"
        )
    options = {} if args.forest is None else {"forest": args.forest}
    if args.missing == "em":
        raise CommandError(
            "--missing em is not for --numeric auto/COLS: use --missing drop or --missing "
            "pairwise (a conditional linear Gaussian tree learns from each pair's observed rows)"
        )
    model = tl.clg_tree(df, numeric=numeric, root=args.root, missing=args.missing, **options)
    if args.output:
        model.save(args.output)
        print(f"wrote model to {args.output}", file=sys.stderr)
    if args.plot:
        save_figure(figure(model, df), args.plot)
        print(f"wrote picture to {args.plot}", file=sys.stderr)
    print(model.to_text())  # the tree: each Gaussian's mean and variance given its parent
    print()
    print_scores(scores(model, df))
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
        note(f"ignoring {int((~keep).sum())} row(s) without a class label")
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
                f"{text} are not numbers: use --method naive-bayes (mixed "
                f"data) or --drop them"
            )
        clf = tl.GaussianTAN().fit(X, y)
    else:
        clf = tl.MixedNaiveBayes(
            alpha=1.0 if args.alpha is None else args.alpha,
            numbers="gaussian",
            class_arcs=_class_arcs(args),
        ).fit(X, y)
    return _report_classifier(clf, X, y, args.output, args.plot)


def _dropped_rows(df: pd.DataFrame, complete: pd.DataFrame) -> str:
    """The note for ``--missing drop``: the rows dropped, and every column that cost rows
    with how many it is missing in (most first), with the flags that keep them.

    >>> _dropped_rows(pd.DataFrame({"a": [1, None, 3], "b": [None, None, 1]}),
    ...               pd.DataFrame({"a": [3], "b": [1]}))  # doctest: +NORMALIZE_WHITESPACE
    "dropping 2 of 3 row(s) with missing values, missing in: 'b' (2 rows), 'a' (1 rows);
    keep those rows with --missing pairwise, or leave the columns out with --drop b a"
    """
    counts = df.isna().sum()
    counts = counts[counts > 0].sort_values(ascending=False, kind="stable")
    costs = ", ".join(f"{c!r} ({n} rows)" for c, n in counts.items())
    return (
        f"dropping {len(df) - len(complete)} of {len(df)} row(s) with missing values, missing "
        f"in: {costs}; keep those rows with --missing pairwise, or leave the columns out with "
        f"--drop {' '.join(shlex.quote(str(c)) for c in counts.index)}"
    )


#: rows of a file the streamed ``learn --class`` checks as the whole table is checked
#: (identifier-like, date and problem columns: any found, the file is read whole instead)
FIRST_ROWS = 10_000


def _streamable(args: argparse.Namespace) -> bool:
    """Whether ``learn DATA --class C`` can learn from ``DATA`` in chunks, as a classifier's
    ``fit(path, C)`` does: a CSV/Parquet file (not standard input), one of the
    command-line classifiers (they count states), and no option that needs the table whole
    (``--drop``, ``--keep``, ``--categorical``, ``--discretize``, ``--numeric``,
    ``--missing drop``, ``--plot``) or a reading option (the chunk reader finds the dialect
    from the file's first bytes)."""
    import os

    if args.class_ is None or args.data == "-" or not os.path.isfile(args.data):
        return False
    from ..classifiers._base import command_line_classifiers

    if args.method not in (None, *command_line_classifiers()):
        return False
    needs_whole = (args.drop, args.keep, args.categorical, args.discretize, args.plot)
    reading = [getattr(args, k, None) for k in ("sep", "encoding", "thousands", "decimal")]
    return (
        all(v is None or v == [] for v in (*needs_whole, *reading))
        and args.numeric in (None, "error")
        and args.missing in ("error", "pairwise")
    )


def _whole_read_or_refuse(path: str, problem: TreelearnError, args: argparse.Namespace) -> None:
    """A table problem the streamed fit met that the first rows did not show (a column of
    numbers turning to text later): return when the file fits in memory, to be read whole
    and refused (or learned: an identifier-like column is left out) as the whole read
    words it; else refuse here in the same words (:func:`_for_the_command`, the reader
    having said where the column turns)."""
    from .._base.errors import ResourceLimitError
    from ..sources._files import check_read_memory

    try:
        check_read_memory(path)  # learn's one check of the file (read_check)
    except ResourceLimitError:
        raise CommandError(in_cli_words(_for_the_command(problem, args))) from None


def _learn_streamed(args: argparse.Namespace) -> int | None:
    """``learn DATA --class C`` from the file in chunks: the classifier's ``fit(path, C)``
    (two passes keeping only each chunk's codes), then a pass scoring each chunk (the
    log-likelihood and the training accuracy are sums over rows). ``None``: the file is to
    be read whole instead (its first rows show what the whole table's checks speak of: an
    identifier-like or date column, a table problem, numbers written with thousands
    separators or another dialect note, a missing class label)."""
    from ..models._tree import ScoreReport
    from ..sources._files import iter_chunks
    from ..sources._reading import (
        ambiguous_date_columns,
        data_dialect,
        date_columns,
        identifier_columns,
        separator_note,
        thousands_columns,
    )

    path, cls = args.data, args.class_
    found = data_dialect(path)
    if found is not None and found.notes:
        return None  # a dialect the reader found (a note to say): read whole, said so
    first = next(iter_chunks(path, FIRST_ROWS), None)
    if first is None or cls not in first.columns or first[cls].isna().any():
        return None
    if args.missing == "error" and first.isna().any(axis=None):
        return None  # refused at once, as the table read whole is
    if (
        identifier_columns(first)
        or date_columns(first)
        or ambiguous_date_columns(first)
        or thousands_columns(first)[0]
        or separator_note(first)
    ):
        return None
    binned = _binned_columns(args, first)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from ..sources._reading import table_problems

            problems, notes = table_problems(
                first.drop(columns=binned),
                missing=args.missing,
                max_states=_max_states(args),
                class_column=cls,
                known=[],
            )
    except TreelearnError:
        return None
    if problems or notes or _max_states(args) > DEFAULT_MAX_STATES:
        return None
    method = args.method or "tan"  # its options were checked before the read (cmd_learn)
    if args.root is not None and method != "tan":
        raise CommandError(f"--root does not apply to {method}: the class is the root")
    from .._base.errors import MissingValuesError
    from ..classifiers._base import text_state_columns

    clf = _command_classifier(args, method)
    if args.bif:  # refused before learning (what a classifier answers is its class's)
        require(clf, "bif", "learn --bif")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", NumericColumnWarning)
        try:
            fitted = clf.fit(path, cls)
        except MissingValuesError:
            return None  # a missing class label: the whole table's path leaves its rows out
        except TreelearnError as problem:
            if not (problem.reason and problem.fixes):
                raise
            _whole_read_or_refuse(path, problem, args)
            return None  # a problem its first rows did not show: the whole read's words
    # the columns the fit binned: numbers in every chunk (one that is text in a later chunk
    # is states, as read whole, though its first rows held numbers)
    binned = [] if fitted.binner_ is None else list(fitted.binner_.edges_)
    if binned:
        note(
            f"cutting the numeric column(s) {binned[:12]}"
            f"{f' and {len(binned) - 12} more' if len(binned) > 12 else ''} into "
            f"supervised (MDL) bins learned with the class; keep a column's values as "
            f"states with --categorical COL"
        )
    note(f"learned from {path} in chunks (the table was not read whole)")
    for w in caught:
        if issubclass(w.category, PairwiseRowsWarning):
            note(str(w.message))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    n_rows, log_likelihood, correct = 0, 0.0, 0
    gaps: set = set()
    # the rows scored chunk by chunk (sums), read as the fit read them: a column learned as
    # text (numbers in some chunks, text in others) is text in every chunk
    for chunk in iter_chunks(path, 200_000, text_state_columns(fitted)):
        X, y = chunk.drop(columns=[cls]), chunk[cls]
        gaps.update(X.columns[X.isna().any()])
        if args.missing == "error" and gaps:
            continue  # refused below, naming every column
        part = fitted.score_report(fitted.select_features(X), y)
        n_rows += int(part.n)
        log_likelihood += part.log_likelihood
        correct += int(np.sum(fitted.predict(X) == y.to_numpy()))
    if args.missing == "error" and gaps:
        bad = [c for c in first.columns if c in gaps]
        raise CommandError(
            f"missing values in column(s) {bad}; use --missing drop or --missing pairwise"
        )
    report = ScoreReport(n=n_rows, log_likelihood=log_likelihood, n_parameters=fitted.n_parameters)
    if args.output:
        save_object(fitted, args.output)
    if args.bif:
        fitted.to_bif(args.bif)
    print(fitted.to_text())
    print()
    print_scores(report)
    print(f"training accuracy = {correct / n_rows:.4f}")
    for label, written in (("model", args.output), ("BIF", args.bif)):
        if written:
            print(f"wrote {label} to {written}", file=sys.stderr)
    return 0


def _read_fix(data: str) -> str:
    """``learn``'s ways around a file too large to read whole (the one memory check of the
    read, :func:`~treelearn.sources._files.read_check`, words its refusal so): a classifier
    learned in chunks first."""
    streams = (
        "learn a classifier with --class COL and --method tan, naive-bayes, kdb or aode, "
        "which read the file in chunks (without --drop, --keep, --categorical, "
        "--discretize, --numeric, --missing drop, --plot or a reading option); or "
    )
    return read_memory_fix(data, streams, parts=False)


def cmd_learn(args: argparse.Namespace) -> int:
    from ..sources._files import read_check

    _check_options(args, _learn_method(args))  # options that do not apply: before the read
    # one memory check of the file, in learn's words, whichever path reads it whole
    with read_check(_read_fix(args.data)):
        if _streamable(args):
            streamed = _learn_streamed(args)
            if streamed is not None:
                return streamed
        return _learn_whole(args)  # refused before the table is read whole


def _learn_whole(args: argparse.Namespace) -> int:
    """``learn`` from the table read whole (:func:`~treelearn.cli._common.read_frame`)."""
    from ..sources._reading import (
        ambiguous_date_columns,
        as_dates,
        date_columns,
        date_problems,
        identifier_columns,
    )

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
        ambiguous = [
            p for p in ambiguous_date_columns(df.drop(columns=drop)) if p.column not in protected
        ]
        undated = drop + dates + [p.column for p in ambiguous]
        for c in identifier_columns(df.drop(columns=undated)):
            if c not in keep and c not in protected:
                note(
                    f"ignoring column {c!r}: each of its {len(df)} values is distinct, so it "
                    f"looks like a row identifier (use --keep {c} to learn with it)"
                )
                drop.append(c)
        if drop and len(drop) == df.shape[1]:
            raise CommandError(
                f"no column is left to learn from after leaving out {drop}; keep "
                f"identifier-like columns with --keep COL"
            )
        df = df.drop(columns=drop)
        if args.missing == "drop" and df.isna().any(axis=None):
            complete = df.dropna()
            if complete.empty:
                raise CommandError("every row has a missing value: --missing drop leaves no rows")
            note(_dropped_rows(df, complete))
            df = complete
        if args.numeric == "gaussian":
            return _learn_gaussian(args, df)
        if args.numeric not in (None, "error"):
            return _learn_mixed(args, df)
        problems = [p for p in ambiguous if p.column in df.columns]
        if args.discretize is not None:  # dates are cut by time, like numbers
            df = _discretized(
                as_dates(df, dates), args.discretize, [c for c in (args.class_,) if c is not None]
            )
        else:
            problems += date_problems(df, dates, sorted(keep, key=str), _max_states(args))
        binned = _binned_columns(args, df)
        _check_table(df.drop(columns=binned), args, problems)
        if binned and args.method == "auto":
            note(
                f"--method auto: each candidate takes the numeric column(s) {binned[:12]}"
                f"{f' and {len(binned) - 12} more' if len(binned) > 12 else ''} its own way "
                f"(supervised MDL bins learned with the class, or Gaussians in the mixed and "
                f"Gaussian classifiers); keep a column's values as states with --categorical COL"
            )
        elif binned:
            note(
                f"cutting the numeric column(s) {binned[:12]}"
                f"{f' and {len(binned) - 12} more' if len(binned) > 12 else ''} into "
                f"supervised (MDL) bins learned with the class; keep a column's values as "
                f"states with --categorical COL"
            )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.simplefilter("ignore", NumericColumnWarning)  # printed, in the command's words
            fitted = _fit(args, df)
        for w in caught:  # the learner's notes as the command's notes; others as they were
            if issubclass(w.category, PairwiseRowsWarning):
                note(str(w.message))
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        classifier = fitted.supports("classify")
        if classifier:  # rows without a class label were left out of the fit
            df = df[df[fitted.class_name_].notna().to_numpy()]
        step("fit")
        # refused before anything is written: no model file left behind by a refused picture
        if args.bif:
            require(fitted, "bif", "learn --bif")
        if args.plot:
            require(fitted, "draw", "--plot")
        report = scores(fitted, df)
        step("score")
        if args.output:
            save_object(fitted, args.output)
        if args.bif:
            fitted.to_bif(args.bif)
        if args.plot:
            save_figure(figure(fitted, df), args.plot)
        step("write")
    print(fitted.to_text())
    print()
    print_scores(report)
    if classifier:
        cls = fitted.class_name_
        accuracy = float(np.mean(fitted.predict(df.drop(columns=[cls])) == df[cls].to_numpy()))
        print(f"training accuracy = {accuracy:.4f}")
    for label, path in (("model", args.output), ("BIF", args.bif), ("picture", args.plot)):
        if path:
            print(f"wrote {label} to {path}", file=sys.stderr)
    return 0
