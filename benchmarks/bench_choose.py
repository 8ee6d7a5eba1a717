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
    df = pd.read_csv(ROOT / "datasets" / "real" / f"{name}.csv")
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
            row(BENCH, case, "AutoClassifier - logistic", a - b, "points x 0.01"),
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
            "points x 0.01",
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three tables, 5,000 alarm rows")
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--json", default=None)
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
    print_table(rows)
    write_json(rows, args.json)


if __name__ == "__main__":
    main()
