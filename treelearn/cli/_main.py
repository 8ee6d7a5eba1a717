"""The ``treelearn`` command: learn, score, predict, sample, query, explain and show models.

::

    treelearn learn DATA [--method chow-liu|tan|naive-bayes|kdb|aode|mixture|auto]
                         [--class COL] [--time-budget SECONDS]
                         [--root COL] [--components K] [--n-init N] [--seed S]
                         [--alpha A] [--class-arcs average|all]
                         [--missing error|drop|pairwise|em] [--drop COL ...]
                         [--discretize BINS] [--max-states N] [--keep COL ...]
                         [--numeric error|gaussian|auto|COL,COL]
                         [-o model.json] [--plot tree.png] [--bif model.bif]
    treelearn score MODEL DATA
    treelearn predict MODEL DATA [--proba] [--target VAR] > predictions.csv
    treelearn sample MODEL -n 1000 [--seed S] [--given COL=VALUE ...] > samples.csv
    treelearn query MODEL VAR [VAR ...] [--given COL=VALUE ...] [--map]
    treelearn explain MODEL DATA [--target VAR] [--kind log_odds|shapley] [-o out.csv]
    treelearn show MODEL [--plot out.png | --dot | --mermaid | --html out.html
                          | --bif F | --xmlbif F | --uai F]

DATA is a CSV or Parquet file, or ``-`` for CSV on standard input. Errors in the
input end the command with a one-line message on standard error and exit status
1 (2 for a wrong command line). This module parses the command line; ``learn`` is
:mod:`treelearn.cli._learn`, the commands using a saved model are
:mod:`treelearn.cli._use` (each asks the model for the capability it needs).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

from .._base.errors import TreelearnError
from ..encoding._table import DEFAULT_MAX_STATES
from ._common import SEP_WORDS, reading_options
from ._learn import METHODS, cmd_learn, in_cli_words, numeric_option
from ._use import cmd_explain, cmd_predict, cmd_query, cmd_sample, cmd_score, cmd_show

__all__ = ["GIVEN_POSITIONALS", "build_parser", "main", "untangle_given"]


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
        "given; mixture: a mixture of Chow-Liu trees by EM; auto: the classifier of lowest "
        "cross-validated log-loss with --class, else the density of highest validation "
        "log-likelihood)",
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
        help="mixture: random seed of EM's start; auto: of the validation rows or folds "
        "(default 0: same data, same model)",
    )
    p.add_argument(
        "--k",
        type=int,
        default=None,
        metavar="K",
        help="kdb: feature parents per feature besides the class (default: 0, 1 or 2, "
        "the least leave-one-out log-loss)",
    )
    p.add_argument(
        "--time-budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="auto without --class: no further candidate starts once SECONDS have passed "
        "(default: no limit)",
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
        help="Lidstone pseudocount for the CPTs (default 1, Laplace; 0 = maximum likelihood, "
        "the class arcs of a classifier all kept, not averaged)",
    )
    p.add_argument(
        "--class-arcs",
        choices=("average", "all"),
        default=None,
        help="the class arcs of a tan, naive-bayes or kdb classifier: average (each "
        "feature's CPT the Bayesian average over its class arc in or out, Dash & Cooper "
        "2002) or all (every class arc kept: the plain CPTs of textbook naive Bayes); "
        "default average, except --alpha 0, which implies all",
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
        type=numeric_option,
        default="error",
        metavar="error|gaussian|auto|COL,COL",
        help="numeric columns: error (default; see --discretize), gaussian (a linear-Gaussian "
        "Chow-Liu tree of numeric columns), auto (the float columns are Gaussian in a "
        "conditional linear Gaussian tree of the mixed table; with --class a mixed TAN, "
        "whose numbers are the float and whole-number columns, less --categorical, each "
        "a Gaussian or cut into MDL bins, whichever predicts the class better by "
        "leave-one-out) or the Gaussian columns named, comma-separated",
    )
    p.add_argument("--drop", nargs="+", metavar="COL", help="columns to leave out")
    p.add_argument(
        "--keep",
        nargs="+",
        metavar="COL",
        help="keep these columns even if they look like row identifiers",
    )
    reading_options(p)
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
    reading_options(p)
    p.set_defaults(func=cmd_score)

    p = sub.add_parser(
        "predict",
        help="predict a class (or any variable) for each row",
        description="Write predictions as CSV to standard output: one column named "
        "after the class, or with --proba one column P(class=label) per label.",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument("data", metavar="DATA")
    reading_options(p)
    p.add_argument("--proba", action="store_true", help="write class probabilities")
    p.add_argument(
        "--target",
        metavar="VAR",
        help="the variable to predict with a Chow-Liu tree (classifiers know theirs)",
    )
    p.add_argument(
        "--unseen",
        choices=("error", "ignore"),
        default=None,
        help="a value not seen in training: error (default), or ignore it (summed out, "
        "as a missing value is)",
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
        default=None,
        help="log_odds (default): the chain rule of the log posterior odds; "
        "shapley: Shapley values (the default with --background)",
    )
    p.add_argument(
        "--background",
        metavar="DATA",
        help="interventional Shapley values: an unknown feature's value taken from each of "
        "these rows in turn (CSV or Parquet), for models that cannot sum features out",
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
    reading_options(p)
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
    out.add_argument("--bif", metavar="FILE", help="write the network as a BIF file")
    out.add_argument("--xmlbif", metavar="FILE", help="write the network as an XMLBIF 0.3 file")
    out.add_argument("--uai", metavar="FILE", help="write the network as a UAI file")
    p.set_defaults(func=cmd_show)
    return parser


def _one_line(exc: BaseException) -> str:
    """The error in one line; an error naming its fixes has them in the command's words."""
    if isinstance(exc, TreelearnError) and exc.reason and exc.fixes:
        return " ".join(in_cli_words(exc).split())
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
        if hasattr(args, "encoding"):  # a command reading DATA: its options checked first
            from ..sources._dialect import check_reading_options

            sep = args.sep if args.sep is None else SEP_WORDS.get(args.sep.lower(), args.sep)
            check_reading_options(
                sep=sep,
                encoding=args.encoding,
                thousands=args.thousands,
                decimal=args.decimal,
                flags=True,
            )
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
