"""The commands that use a saved model: ``score``, ``predict``, ``sample``, ``query``,
``explain`` and ``show``.

Each command asks the loaded object for the capability it needs and calls the method every
kind answering it has, whatever the kind:

=======================================  =====================  ==============================
command                                  capability             the kind's method
=======================================  =====================  ==============================
``score``                                ``score``              ``score_samples`` (a
                                                                classifier: ``score_report``)
``predict`` (the class)                  ``classify``           ``predict_proba(X)``
``predict --target VAR [--proba]``       ``predict``            ``predict(X, VAR)``,
                                                                ``predict_proba(X, VAR)``
``sample [--given ...] [--numbers]``     ``sample``,            ``sample(n, random_state,
                                         ``sample_given``       evidence=, numbers=)``
``query VAR ... [--given ...]``          ``query``              ``query(...).to_frame()``
``query --map``                          ``map``                ``map_query``
``explain``                              ``explain``            ``explain``
``show``                                 (every kind)           ``to_text``
``show --plot/--dot/--mermaid``          ``draw``               ``draw``, ``to_dot``,
                                                                ``to_mermaid``
``show --html``                          ``explorer``           ``to_html``
``show --bif/--xmlbif/--uai``            ``bif``                ``to_bif``, ``to_xmlbif``,
                                                                ``to_uai``
=======================================  =====================  ==============================

Evidence (``--given COL=VALUE``) is handed over as text: each kind reads it (a state spelled
as a CSV file spells it, a number).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._base.errors import UnseenStateError
from ..encoding._table import python_scalar
from ._common import (
    CommandError,
    figure,
    fmt,
    load_model,
    note,
    print_scores,
    read_frame,
    require,
    save_figure,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..models._tree import ScoreReport

__all__ = [
    "cmd_explain",
    "cmd_predict",
    "cmd_query",
    "cmd_sample",
    "cmd_score",
    "cmd_show",
    "parse_given",
    "scores",
]


def scores(obj: Any, df: pd.DataFrame) -> ScoreReport:
    """The model's rows, log-likelihood and BIC on ``df`` (rows as given).

    A classifier scores the class column's labels when ``df`` has one (a missing label
    sums the class out of that row), else the features alone; any other kind scores its
    variables' columns (other columns, such as an identifier, are ignored).
    """
    require(obj, "score", "score")
    from ..models._tree import ScoreReport

    if obj.supports("classify"):
        cls = obj.class_name_
        y = df[cls] if cls in df.columns else None
        return obj.score_report(obj.select_features(df), y)
    absent = [v for v in obj.variables if v not in df.columns]
    if absent:  # every kind scores rows of all its variables (a missing cell: NaN)
        raise CommandError(
            f"the data lacks the model's column(s) {absent}; its columns are "
            f"{list(df.columns)[:20]}"
        )
    rows = _model_columns(df, obj.variables)
    return ScoreReport(
        n=len(df),
        log_likelihood=float(np.sum(obj.score_samples(rows))),
        n_parameters=obj.n_parameters,
    )


def _model_columns(df: pd.DataFrame, variables: Sequence) -> pd.DataFrame:
    """The columns of ``df`` that are the model's variables (others, such as an identifier
    or a class column, are not the model's to read); a variable ``df`` lacks is the
    model's to name or sum out."""
    wanted = set(variables)
    return df[[c for c in df.columns if c in wanted]]


def cmd_score(args: argparse.Namespace) -> int:
    obj = load_model(args.model)
    print_scores(scores(obj, read_frame(args.data, args)))
    return 0


#: the fix of a value outside a classifier's states, in the command's words
UNSEEN_HINT = (
    "Fix the data, use --unseen ignore to treat such values as missing, or learn the "
    "model from data holding them."
)


def cmd_predict(args: argparse.Namespace) -> int:
    obj = load_model(args.model)
    unseen = getattr(args, "unseen", None)
    if unseen is not None:
        if not (obj.supports("classify") and "unseen" in obj.get_params()):
            raise CommandError(
                f"--unseen is for classifiers that take values not seen in training "
                f"(naive-bayes, tan, kdb, aode...); this {type(obj).__name__} does not"
            )
        obj.set_params(unseen=unseen)
    df = read_frame(args.data, args)
    try:
        return _predict(obj, df, args)
    except UnseenStateError as exc:
        raise exc.with_hint(UNSEEN_HINT, type_fix=_type_fix(exc)) from None


def _type_fix(exc: UnseenStateError) -> str:
    """The command's fix of values read as another type than the model's states: a column
    learned as text (``--categorical`` at ``learn``) is read as text again by naming it."""
    if all(isinstance(s, str) for s in exc.states):
        return f"read it as text, as it was learned, with --categorical {exc.column}"
    return f"read it as it was learned (without --categorical {exc.column})"


def _predict(obj: Any, df: pd.DataFrame, args: argparse.Namespace) -> int:
    if args.target is None or (obj.supports("classify") and args.target == obj.class_name_):
        require(obj, "classify", "predict without --target")
        target = obj.class_name_
        lacking = [c for c in obj.feature_names_in_ if c not in df.columns]
        if lacking:
            note(f"the data lacks the feature(s) {lacking}: summed out, as missing values are")
        values = obj.predict_proba(obj.select_features(df, absent="missing"))
        labels = [python_scalar(c) for c in obj.classes_]
        if args.proba:
            out = pd.DataFrame(values, columns=[f"P({target}={label})" for label in labels])
        else:
            out = pd.DataFrame({target: [labels[i] for i in np.argmax(values, axis=1)]})
        out.to_csv(sys.stdout, index=False)
        return 0
    target = args.target
    if obj.supports("classify") and not obj.supports("predict"):
        raise CommandError(
            f"this {type(obj).__name__} predicts its class {obj.class_name_!r}, not "
            f"{target!r}: leave out --target"
        )
    require(obj, "predict", "predict --target")
    variables = list(obj.variables)
    if target not in variables:
        raise CommandError(f"--target {target!r} is not a variable; they are {variables[:20]}")
    df = _model_columns(df, variables)
    if args.proba:  # a Gaussian target has no states: the kind says so, naming predict
        proba = obj.predict_proba(df, target)
        out = pd.DataFrame(
            np.asarray(proba), columns=[f"P({target}={label})" for label in proba.columns]
        )
    else:  # the most probable state, or a Gaussian's conditional mean
        out = pd.DataFrame({target: np.asarray(obj.predict(df, target))})
    out.to_csv(sys.stdout, index=False)
    return 0


def cmd_sample(args: argparse.Namespace) -> int:
    if args.n < 0:
        raise CommandError(f"-n must be a non-negative number of rows, not {args.n}")
    obj = load_model(args.model)
    evidence = parse_given(args.given)
    options: dict = {"random_state": args.seed}
    if evidence:
        require(obj, "sample_given", "sample --given")
        options["evidence"] = evidence
    else:
        require(obj, "sample", "sample")
    if args.numbers:
        options["numbers"] = True
    obj.sample(args.n, **options).to_csv(sys.stdout, index=False)
    return 0


def parse_given(items: Sequence[str]) -> dict:
    """``["COL=VALUE", ...]`` -> ``{COL: VALUE}`` (the values as text: the model reads them)."""
    evidence: dict[str, str] = {}
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


def cmd_query(args: argparse.Namespace) -> int:
    obj = load_model(args.model)
    evidence = parse_given(args.given)
    given = ", ".join(f"{k}={v}" for k, v in evidence.items())
    if args.map:
        require(obj, "map", "query --map")
        assignment, log_p = obj.map_query(evidence, return_log_prob=True)
        wanted = [v for v in args.variables if v not in evidence]
        unknown = [v for v in wanted if v not in assignment]
        if unknown:
            raise CommandError(f"{unknown} are not variables; they are {list(obj.variables)[:20]}")
        print(
            f"most probable assignment{' given ' + given if given else ''} (log P = {fmt(log_p)})"
        )
        for v in wanted:
            print(f"{v} = {assignment[v]}")
        return 0
    require(obj, "query", "query")
    variables = list(args.variables)
    result = obj.query(variables[0] if len(variables) == 1 else variables, evidence)
    # every kind's answer prints the same way: its to_frame, the states or the variable
    # named, then the probability (or the mean, variance and sd, or the quantiles)
    answer = result.to_frame()
    print(f"P({', '.join(map(str, variables))}{' | ' + given if given else ''})")
    # only the answer's numbers get six decimals: a float state is printed as it is
    print(
        answer.reset_index().to_string(
            index=False, formatters=dict.fromkeys(answer.columns, "{:.6f}".format)
        )
    )
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    obj = load_model(args.model)
    df = read_frame(args.data, args)
    require(obj, "explain", "explain")
    if args.background is not None and args.kind == "log_odds":
        raise CommandError(
            "--background is for --kind shapley (interventional Shapley values); --kind "
            "log_odds is the model's own posterior, with nothing taken from other rows"
        )
    background = None if args.background is None else read_frame(args.background, args)
    options = {
        "kind": args.kind or ("log_odds" if background is None else "shapley"),
        "output": args.scale,
        "random_state": args.seed,
        "conditional": background is None,
    }
    if obj.supports("classify"):  # the class is the target
        target = obj.class_name_
        if args.target is not None and args.target != target:
            raise CommandError(
                f"this {type(obj).__name__} predicts {target!r}, not {args.target!r}: leave "
                f"out --target"
            )
        state = None
        if args.state is not None:
            labels = [python_scalar(c) for c in obj.classes_]
            spelled = [c for c in labels if str(c) == args.state]
            state = spelled[0] if spelled else args.state
        if args.plot and state is None and len(df) > 1:  # a summary picture shows one class
            labels = [python_scalar(c) for c in obj.classes_]
            if len(labels) != 2:
                raise CommandError(
                    f"--plot of {len(df)} rows draws one class: give --state CLASS (one of "
                    f"{labels[:20]})"
                )
            state = labels[1]
            print(
                f"explaining {target} = {state!r} in every row (--state to choose)", file=sys.stderr
            )
        if background is not None:
            options["background"] = obj.select_features(background)
        explanation = obj.explain(obj.select_features(df), target_class=state, **options)
    else:
        variables = list(obj.variables)
        if args.target is None or args.target not in variables:
            raise CommandError(
                f"give --target VAR, the variable to explain (one of {variables[:12]})"
                if args.target is None
                else f"--target {args.target!r} is not a variable; they are {variables[:20]}"
            )
        if background is not None:
            background = _model_columns(background, variables)
        explanation = obj.explain(
            _model_columns(df, variables),
            args.target,
            target_state=args.state,
            background=background,
            **options,
        )
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

        save_figure(plot_explanation(explanation), args.plot)
        print(f"wrote picture to {args.plot}", file=sys.stderr)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    obj = load_model(args.model)
    if args.plot:
        save_figure(figure(obj), args.plot)
        print(f"wrote picture to {args.plot}", file=sys.stderr)
    elif args.html:
        require(obj, "explorer", "show --html")
        obj.to_html(args.html)
        print(f"wrote explorer page to {args.html}", file=sys.stderr)
    elif args.dot or args.mermaid:
        require(obj, "draw", "show --dot" if args.dot else "show --mermaid")
        print(obj.to_dot() if args.dot else obj.to_mermaid())
    elif args.bif or args.xmlbif or args.uai:
        option = "bif" if args.bif else "xmlbif" if args.xmlbif else "uai"
        require(obj, "bif", f"show --{option}")
        path = args.bif or args.xmlbif or args.uai
        {"bif": obj.to_bif, "xmlbif": obj.to_xmlbif, "uai": obj.to_uai}[option](path)
        print(f"wrote {option.upper()} to {path}", file=sys.stderr)
    else:
        print(obj.to_text())
    return 0
