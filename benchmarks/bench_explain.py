"""Explanations and value of information: treelearn against pyAgrum and shap.

    .venv/bin/python benchmarks/bench_explain.py [--quick] [--rows N] [--pyagrum-full] [--json OUT]

The model: ``tl.TAN`` on 5,000 rows of a synthetic 20-feature binary problem (each
feature depends on the class and on the feature before it), exported with
``model_.to_pyagrum()`` for pyAgrum. In one run, CPU seconds (``time.process_time``:
the machine is shared, wall time is not a fair measure; pyAgrum's inference may use
more than one thread, which CPU time counts):

* **exact conditional Shapley values of the log-odds** (the value of a coalition is
  the posterior with only its features observed, the others summed out), for
  ``--rows`` rows (1,000; ``--quick``: 50) of all 20 features:
  ``clf.explain(X, kind="shapley", output="log_odds", method="exact")``, 2^20
  coalitions per row. pyAgrum's ``ConditionalShapValues(bn, "y", logit=True)``
  enumerates the same coalitions with one LazyPropagation posterior each (about
  0.6 ms apiece here): ~10 CPU minutes for one row of 20 features. So it is timed on
  rows of the same model with only 10, 12, 14 features known (both libraries
  enumerate the 2^m coalitions of the known ones; equal values checked, ratio
  measured), and its time for 20 features is its CPU time per coalition at 14
  features times 2^20 (an extrapolation, said so in the row; ``--pyagrum-full`` times
  one row of 20 features instead).
* **interventional Shapley values** (the unknown features taken from a background
  of 10 rows, shap's definition) of ``P(y = 1)`` against ``shap.ExactExplainer`` on
  ``predict_proba`` with the same background (one row of the 20-feature TAN;
  ``--quick``: of a 14-feature one), equal values checked.
* **value of information**: ``most_informative(target, evidence)`` on the Chow-Liu
  tree of ALARM (10,000 rows in datasets/alarm.csv) with 5 evidence variables, against
  one ``marginals(evidence)`` call (best of 7 CPU times each), and its values against
  ``sum_t P(t | e) KL(P(X | e, t) || P(X | e))`` from ``k_T + 1`` marginals calls.

BLAS is pinned to one thread.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import ROOT, machine, pin_blas, print_table, row, write_json

BENCH = "explain"


def cpu(fn, repeat: int = 1) -> tuple[float, object]:
    """Best CPU seconds of ``repeat`` calls of ``fn()`` and its last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t)
    return best, out


def synthetic_tan(d: int, n: int = 5000, seed: int = 0):
    """A fitted ``tl.TAN`` on ``d`` binary features (each depends on the class and on the
    feature before it) and its training rows."""
    import treelearn as tl

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = np.zeros((n, d), dtype=np.int64)
    for j in range(d):
        prev = X[:, j - 1] if j else 0
        X[:, j] = rng.random(n) < np.clip(0.2 + 0.4 * y + 0.3 * prev, 0.05, 0.95)
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(d)])
    return tl.TAN(numbers="states").fit(df, pd.Series(y, name="y")), df


def pyagrum_values(explainer, rows: pd.DataFrame) -> np.ndarray:
    """pyAgrum's Shapley values of ``P(y = 1)``'s logit, one row at a time (``compute``
    on a DataFrame drops duplicate rows), in ``rows``' columns (0 where unknown)."""
    out = np.zeros(rows.shape)
    for r in range(len(rows)):
        one = rows.iloc[[r]].dropna(axis=1).astype(np.int64).astype(str)
        values = explainer.compute(one)[1]
        for j, c in enumerate(rows.columns):
            out[r, j] = values.get(c, 0.0)
    return out


def conditional(args, rows_out: list) -> None:
    from pyagrum.explain import ConditionalShapValues

    clf, df = synthetic_tan(20)
    d = df.shape[1]
    sv = ConditionalShapValues(clf.model_.to_pyagrum(), "y", logit=True)
    options = dict(kind="shapley", output="log_odds", method="exact", target_class=1)

    # the same model, rows with only m features known: both enumerate 2^m coalitions
    per_coalition = None
    for m in (10, 12) if args.quick else (10, 12, 14):
        some = df.iloc[:50].astype(float).copy()
        some.iloc[:, m:] = np.nan
        few = some.iloc[:3]  # pyAgrum: ~0.6 ms a coalition, 3 rows
        theirs_t, theirs = cpu(lambda few=few: pyagrum_values(sv, few))
        ours_t, e = cpu(lambda some=some: clf.explain(some, **options), repeat=3)
        diff = float(np.abs(e.values.to_numpy()[:3] - theirs).max())
        ours_row, theirs_row = ours_t / len(some), theirs_t / len(few)
        ratio = theirs_row / ours_row
        per_coalition = theirs_row / 2**m
        case = f"TAN, {m} of {d} features known"
        rows_out += [
            row(
                BENCH,
                case,
                "treelearn explain (conditional, exact)",
                ours_row * 1e3,
                "ms/row",
                note=f"CPU, best of 3, {len(some)} rows",
            ),
            row(
                BENCH,
                case,
                "pyAgrum ConditionalShapValues",
                theirs_row,
                "s/row",
                note=f"CPU, {len(few)} rows",
            ),
            row(BENCH, case, "pyAgrum / treelearn (per row)", ratio, "x", ">= 100", ratio >= 100),
            row(
                BENCH,
                case,
                "largest |difference| vs pyAgrum (3 rows)",
                diff,
                "",
                "<= 1e-10",
                diff <= 1e-10,
                note=f"{diff:.1e}",
            ),
        ]
        print_table(rows_out[-4:], file=sys.stderr)

    n = args.rows or (50 if args.quick else 1000)
    X = df.iloc[:n]
    ours_t, e = cpu(lambda: clf.explain(X, **options))
    efficiency = float(np.abs(e.values.sum(axis=1) + e.base - e.prediction).max())
    case = f"TAN, all {d} features, {n:,} rows"
    per_row = ours_t / n
    rows_out += [
        row(
            BENCH,
            case,
            "treelearn explain (conditional, exact, 2^20 coalitions)",
            ours_t,
            "s",
            note=f"CPU; {per_row:.3f} s/row; method {e.method!r}",
        ),
        row(
            BENCH,
            case,
            "efficiency |sum + base - prediction|",
            efficiency,
            "",
            "<= 1e-10",
            efficiency <= 1e-10,
            note=f"{efficiency:.1e}",
        ),
    ]
    if args.pyagrum_full:
        one = X.iloc[:1]
        theirs_t, theirs = cpu(lambda: pyagrum_values(sv, one.astype(float)))
        diff = float(np.abs(e.values.to_numpy()[:1] - theirs).max())
        ratio = theirs_t / per_row
        rows_out += [
            row(
                BENCH,
                case,
                "pyAgrum ConditionalShapValues (1 row, measured)",
                theirs_t,
                "s/row",
                note="CPU",
            ),
            row(BENCH, case, "pyAgrum / treelearn (per row)", ratio, "x", ">= 100", ratio >= 100),
            row(
                BENCH,
                case,
                "largest |difference| vs pyAgrum (1 row)",
                diff,
                "",
                "<= 1e-10",
                diff <= 1e-10,
                note=f"{diff:.1e}",
            ),
        ]
    else:
        theirs = per_coalition * 2**d
        ratio = theirs / per_row
        rows_out += [
            row(
                BENCH,
                case,
                "pyAgrum ConditionalShapValues (extrapolated)",
                theirs,
                "s/row",
                note="its CPU per coalition at the largest m above x 2^20; --pyagrum-full "
                "measures it",
            ),
            row(
                BENCH,
                case,
                "pyAgrum / treelearn (per row, extrapolated)",
                ratio,
                "x",
                ">= 100",
                ratio >= 100,
            ),
        ]
    print_table(rows_out[-4:], file=sys.stderr)


def interventional(args, rows_out: list) -> None:
    import shap

    d = 14 if args.quick else 20
    clf, df = synthetic_tan(d)
    background = df.iloc[100:110]
    x = df.iloc[:1]

    def f(a: np.ndarray) -> np.ndarray:
        return clf.predict_proba(pd.DataFrame(a, columns=df.columns))[:, 1]

    explainer = shap.explainers.Exact(f, shap.maskers.Independent(background, max_samples=10))
    theirs_t, theirs = cpu(lambda: explainer(x, max_evals=2 ** (d + 1), silent=True))
    ours_t, e = cpu(
        lambda: clf.explain(
            x,
            kind="shapley",
            conditional=False,
            background=background,
            output="proba",
            target_class=1,
            method="exact",
        )
    )
    diff = float(np.abs(e.values.to_numpy() - theirs.values).max())
    ratio = theirs_t / ours_t
    case = f"TAN, {d} features, 1 row, background 10 rows"
    rows_out += [
        row(BENCH, case, "treelearn explain (interventional, exact)", ours_t, "s", note="CPU"),
        row(BENCH, case, "shap ExactExplainer on predict_proba", theirs_t, "s", note="CPU"),
        row(BENCH, case, "shap / treelearn", ratio, "x"),
        row(
            BENCH,
            case,
            "largest |difference| vs shap",
            diff,
            "",
            "<= 1e-10",
            diff <= 1e-10,
            note=f"{diff:.1e}",
        ),
    ]
    print_table(rows_out[-4:], file=sys.stderr)


def value_of_information(args, rows_out: list) -> None:
    import treelearn as tl

    alarm = pd.read_csv(ROOT / "datasets" / "alarm.csv")
    model = tl.chow_liu(alarm)
    target = "HYPOVOLEMIA"
    evidence = {v: alarm[v].iloc[0] for v in ["CVP", "PCWP", "HISTORY", "HRBP", "SAO2"]}
    repeat = 3 if args.quick else 7
    model.marginals(evidence)  # the engine built once, as for any query
    marg_t, marg = cpu(lambda: model.marginals(evidence), repeat=repeat)
    voi_t, ranked = cpu(lambda: model.most_informative(target, evidence), repeat=repeat)
    # I(T; X | e) = sum_t P(t | e) KL(P(X | e, t) || P(X | e)), from k_T + 1 marginals calls
    pt = marg[target]
    given = {t: model.marginals({**evidence, target: t}) for t in pt.index if pt[t] > 0}
    diff = 0.0
    for v, value in ranked.items():
        info = 0.0
        for t, m in given.items():
            q, p = m[v].to_numpy(), marg[v].to_numpy()
            info += pt[t] * float(
                np.sum(np.where(q > 0, q * np.log(np.where(q > 0, q, 1) / p), 0.0))
            )
        diff = max(diff, abs(info - value))
    ratio = voi_t / marg_t
    case = f"ALARM Chow-Liu tree, target {target}, 5 evidence, {len(ranked)} candidates"
    rows_out += [
        row(
            BENCH,
            case,
            "treelearn marginals (one call)",
            marg_t * 1e3,
            "ms",
            note=f"CPU, best of {repeat}",
        ),
        row(
            BENCH,
            case,
            "treelearn most_informative",
            voi_t * 1e3,
            "ms",
            note=f"CPU, best of {repeat}",
        ),
        row(BENCH, case, "most_informative / marginals", ratio, "x", "<= 10", ratio <= 10),
        row(
            BENCH,
            case,
            "largest |difference| vs k_T + 1 marginals",
            diff,
            "",
            "<= 1e-12",
            bool(diff <= 1e-12),
            note=f"{diff:.1e}",
        ),
    ]
    print_table(rows_out[-4:], file=sys.stderr)


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="50 rows, pyAgrum at 10 and 12 known features, shap on 14 features",
    )
    ap.add_argument("--rows", type=int, default=None, help="rows explained (default 1,000)")
    ap.add_argument(
        "--pyagrum-full",
        action="store_true",
        help="time pyAgrum on one row of all 20 features (~10 CPU minutes)",
    )
    ap.add_argument("--json", default=None, help="also write the result rows to this JSON file")
    args = ap.parse_args(argv)
    print(pin_blas(1), file=sys.stderr)
    print("machine:", machine(), f"load average {os.getloadavg()[0]:.2f}", file=sys.stderr)
    rows: list[dict] = []
    value_of_information(args, rows)
    conditional(args, rows)
    interventional(args, rows)
    print_table(rows)
    write_json(rows, args.json)
    return rows


if __name__ == "__main__":
    main()
