"""AutoClassifier: accuracy on real tables against logistic regression, and its fold counts
against refitting every candidate per fold.

    .venv/bin/python benchmarks/bench_choose.py [--quick] [--skip-accuracy] [--skip-speed]
                                                [--json PATH]

1. **Accuracy** (issue 39, item 3): ``tl.AutoClassifier()`` with its defaults on the raw
   real tables of ``datasets/real`` (mifem, survey, penguins, titanic, cps1985, hmda,
   boston; the classes of ``datasets/README.md``: cps1985's ``wage`` and boston's ``medv``
   cut at their tertiles) in 5-fold stratified cross-validation (``StratifiedKFold(5,
   shuffle=True, random_state=0)``), next to scikit-learn's ``LogisticRegression``
   (``max_iter=5000``) behind a ``ColumnTransformer``: numeric columns median-imputed
   and scaled (``StandardScaler``), the others most-frequent-imputed and one-hot encoded
   (``handle_unknown="ignore"``), learned inside each training fold. The same folds for
   both. **Answers compared first**: both predict every held-out row with a label of the
   table's classes (checked), and the fold sizes add up to the table. The target: the mean
   accuracy over the tables within 1 point of logistic regression's.
2. **Speed** (fold counts): NaiveBayes, TAN, KDB(1), KDB(2) and AODE scored by
   ``AutoClassifier`` (5 folds, from fold counts) against refitting each candidate on each
   fold's training rows (states declared), on rows of pgmpy's ``alarm`` (class
   ``HYPOVOLEMIA``, 36 features). **Answers compared first**: every candidate's
   cross-validated log-loss equal between the two to 1e-9 relative.

3. **AutoDensity on DEBD** (``--debd PATH --datasets nltcs,plants,jester --budget S``):
   ``tl.AutoDensity(time_budget=S, random_state=0)`` learns on ``NAME.ts`` and chooses on
   ``NAME.valid``; its validation and test log-likelihood per row next to the best
   validation score of the columns of ``benchmarks/results/debd_density.jsonl`` (the
   DEBD table of ``benchmarks/README.md``; the later line of a column replaces the
   earlier). Target: at least that best validation score, within the budget (fit seconds
   at most the budget plus the longest candidate's fit). Each finished dataset's row is
   appended to ``--debd-results FILE`` as it ends.

BLAS is pinned to one thread (threadpoolctl) and the script prints that.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import ROOT, alarm_sample, machine, pin_blas, print_table, row, write_json

import treelearn as tl
from treelearn.classifiers._choose import CANDIDATES, FOLD_COUNTED

BENCH = "choose"
#: each real table's class column (datasets/README.md)
TARGETS = {
    "mifem": "outcome",
    "survey": "Smoke",
    "penguins": "species",
    "titanic": "survived",
    "cps1985": "wage",
    "hmda": "deny",
    "boston": "medv",
}


def real_table(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """A real table as read, its class apart (the numeric classes cut at their tertiles)."""
    df = tl.io.read_data(ROOT / "datasets" / "real" / f"{name}.csv")  # "None" a level
    target = TARGETS[name]
    if name == "titanic":
        df = df.drop(columns="name")
    if name in ("boston", "cps1985"):
        df[target] = pd.qcut(df[target], 3, labels=["low", "mid", "high"]).astype(str)
    df = df[df[target].notna()].reset_index(drop=True)
    return df.drop(columns=target), df[target]


def logistic_pipeline(X: pd.DataFrame):
    from sklearn.compose import make_column_transformer
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    numeric = [
        c
        for c in X.columns
        if pd.api.types.is_numeric_dtype(X[c]) and not pd.api.types.is_bool_dtype(X[c])
    ]
    other = [c for c in X.columns if c not in numeric]
    columns = make_column_transformer(
        (make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), numeric),
        (
            make_pipeline(
                SimpleImputer(strategy="most_frequent"), OneHotEncoder(handle_unknown="ignore")
            ),
            other,
        ),
    )
    return make_pipeline(columns, LogisticRegression(max_iter=5000))


def accuracy_rows(names: list[str]) -> list[dict]:
    from sklearn.model_selection import StratifiedKFold

    rows, gaps, auto_means, lr_means = [], [], [], []
    for name in names:
        X, y = real_table(name)
        splitter = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
        auto, logistic, chosen, seconds, covered = [], [], [], 0.0, 0
        for train, test in splitter.split(X, y):
            Xtr, ytr, Xte, yte = X.iloc[train], y.iloc[train], X.iloc[test], y.iloc[test]
            t = time.perf_counter()
            clf = tl.AutoClassifier().fit(Xtr, ytr)
            pa = clf.predict(Xte)
            seconds += time.perf_counter() - t
            pl = logistic_pipeline(X).fit(Xtr, ytr).predict(Xte)
            # answers compared first: a class label of the table for every held-out row
            classes = set(y.unique())
            assert len(pa) == len(pl) == len(test), name
            assert set(pa) <= classes and set(pl) <= classes, name
            covered += len(test)
            auto.append(float(np.mean(pa == yte.to_numpy())))
            logistic.append(float(np.mean(pl == yte.to_numpy())))
            chosen.append(clf.chosen_)
        assert covered == len(y), name  # every row held out once
        a, b = float(np.mean(auto)), float(np.mean(logistic))
        majority = float(y.value_counts(normalize=True).max())
        picks = ", ".join(f"{k} x{chosen.count(k)}" for k in dict.fromkeys(chosen))
        case = f"{name} ({X.shape[0]} x {X.shape[1]}, {y.nunique()} classes)"
        rows += [
            row(BENCH, case, "majority class", majority),
            row(BENCH, case, "LogisticRegression accuracy", b),
            row(BENCH, case, "AutoClassifier accuracy", a, note=f"chosen: {picks}"),
            row(BENCH, case, "AutoClassifier - logistic", a - b, "accuracy"),
            row(BENCH, case, "AutoClassifier fit+predict", seconds / 5, "s per fold"),
        ]
        gaps.append(a - b)
        auto_means.append(a)
        lr_means.append(b)
        print(f"{case}: auto {a:.4f} logistic {b:.4f} ({picks}; {seconds / 5:.1f} s a fold)")
    gap = float(np.mean(auto_means) - np.mean(lr_means))
    rows.append(
        row(
            BENCH,
            f"mean over {len(names)} tables",
            "AutoClassifier - logistic",
            gap,
            "accuracy",
            target=">= -0.01",
            ok=gap >= -0.01,
            note=f"AutoClassifier {np.mean(auto_means):.4f}, logistic {np.mean(lr_means):.4f}",
        )
    )
    return rows


def _refitted_loss(name: str, X: pd.DataFrame, y: pd.Series, folds: np.ndarray) -> float:
    """The candidate refitted on each fold's training rows (states declared)."""
    declared = X.apply(lambda s: pd.Categorical(s, categories=sorted(s.unique())))
    total = 0.0
    for f in range(int(folds.max()) + 1):
        est = CANDIDATES[name][0]().fit(declared[folds != f], y[folds != f])
        p = est.predict_proba(declared[folds == f])
        truth = np.searchsorted(est.classes_, y[folds == f])
        total -= float(np.sum(np.log(p[np.arange(len(truth)), truth])))
    return total / len(y)


def speed_rows(n: int) -> list[dict]:
    from treelearn.classifiers._choose import fold_of_rows

    df = alarm_sample(n)
    X, y = df.drop(columns="HYPOVOLEMIA"), df["HYPOVOLEMIA"]
    t = time.perf_counter()
    clf = tl.AutoClassifier(candidates=list(FOLD_COUNTED), cv=5, random_state=0).fit(X, y)
    counted = time.perf_counter() - t
    codes = np.unique(y.to_numpy(), return_inverse=True)[1]
    folds = fold_of_rows(codes, 5, 0)
    t = time.perf_counter()
    refitted = {name: _refitted_loss(name, X, y, folds) for name in FOLD_COUNTED}
    refit = time.perf_counter() - t
    for name in FOLD_COUNTED:  # answers compared first
        a, b = clf.candidate_scores_[name], refitted[name]
        assert abs(a - b) <= 1e-9 * abs(b), (name, a, b)
    case = f"alarm {n:,} x 36, 5 folds, {len(FOLD_COUNTED)} candidates"
    print(f"{case}: fold counts {counted:.2f} s (fit included), refitting {refit:.2f} s")
    return [
        row(BENCH, case, "scores equal refitting", True, note="rel 1e-9, every candidate"),
        row(BENCH, case, "AutoClassifier fit (fold counts + final fit)", counted, "s"),
        row(BENCH, case, "refitting every candidate per fold", refit, "s"),
        row(BENCH, case, "refitting / fold counts", refit / counted, "x"),
    ]


def table_best_valid(name: str) -> tuple[float, str]:
    """The best validation score among the DEBD table's columns of ``name``, and its column."""
    import json

    lines = (ROOT / "benchmarks" / "results" / "debd_density.jsonl").read_text().splitlines()
    columns: dict = {}
    for line in lines:
        r = json.loads(line)
        if r.get("name") == name and "valid" in r:
            columns[r["column"]] = r  # the later line of a column replaces the earlier
    best = max(columns.values(), key=lambda r: r["valid"])
    return float(best["valid"]), f"{best['column']} ({best.get('label', '')})"


def debd_rows(folder: str, names: list[str], budget: float, out: str | None) -> list[dict]:
    import json

    rows = []
    for name in names:

        def load(part: str, name: str = name) -> pd.DataFrame:
            path = os.path.join(folder, f"{name}.{part}.data.gz")
            return pd.read_csv(path, header=None, dtype=np.int8)

        train, valid, test = load("ts"), load("valid"), load("test")
        states = {c: [0, 1] for c in train.columns}
        t = time.perf_counter()
        auto = tl.AutoDensity(time_budget=budget, random_state=0, states=states)
        auto.fit(train, validation=valid)
        seconds = time.perf_counter() - t
        v, te = float(auto.score(valid)), float(auto.score(test))
        best, column = table_best_valid(name)
        longest = max(auto.candidate_seconds_.values())
        within = seconds <= budget + longest + 5.0  # + reading and scoring
        case = f"DEBD {name} ({train.shape[0]} x {train.shape[1]})"
        scores = ", ".join(f"{k} {x:.3f}" for k, x in auto.candidate_scores_.items())
        result = [
            row(BENCH, case, "AutoDensity chosen", auto.chosen_, note=scores),
            row(
                BENCH,
                case,
                "AutoDensity valid LL - table's best valid",
                v - best,
                "nats/row",
                target=">= -0.0005",
                ok=v - best >= -0.0005,
                note=f"{v:.4f} vs {best:.4f} ({column})",
            ),
            row(BENCH, case, "AutoDensity test LL", te, "nats/row"),
            row(
                BENCH,
                case,
                "fit seconds",
                seconds,
                "s",
                target=f"<= budget {budget:g} + longest fit {longest:.0f}",
                ok=within,
                note=f"skipped: {auto.skipped_ or 'none'}; "
                + ", ".join(f"{k} {x:.0f}s" for k, x in auto.candidate_seconds_.items()),
            ),
        ]
        print(*(f"{r['case']}: {r['metric']} = {r['value']} {r['note']}" for r in result), sep="\n")
        if out:
            with open(out, "a") as fh:
                fh.write(json.dumps(result, default=str) + "\n")
        rows += result
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three tables, 5,000 alarm rows")
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--json", default=None)
    parser.add_argument("--debd", default=None, help="the DEBD folder (AutoDensity rows)")
    parser.add_argument("--datasets", default="nltcs,plants,jester")
    parser.add_argument("--budget", type=float, default=900.0, help="AutoDensity time_budget")
    parser.add_argument("--debd-results", default=None, help="append each dataset's rows here")
    args = parser.parse_args()
    print(pin_blas(1))
    print(machine())
    warnings.filterwarnings("ignore")  # pairwise-rows notes of the mixed candidates
    rows: list[dict] = []
    if not args.skip_accuracy:
        names = ["mifem", "survey", "penguins"] if args.quick else list(TARGETS)
        rows += accuracy_rows(names)
    if not args.skip_speed:
        rows += speed_rows(5_000 if args.quick else 20_000)
    if args.debd:
        names = args.datasets.split(",")
        rows += debd_rows(args.debd, names, args.budget, args.debd_results)
    print_table(rows)
    write_json(rows, args.json)


if __name__ == "__main__":
    main()
