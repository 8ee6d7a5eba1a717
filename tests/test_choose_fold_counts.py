"""AutoClassifier scores NaiveBayes, TAN, KDB(1), KDB(2) and AODE from fold counts (the
whole table's counts minus a fold's): each score, each fold's structure and the choice
equal brute-force refitting of the candidate on each fold's held-in rows (scikit-learn's
``StratifiedKFold``, a fresh estimator per fold), on two tables and with row weights."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold

import treelearn as tl
from treelearn.classifiers._choose import CANDIDATES, FOLD_COUNTED, FoldCounts, fold_of_rows


def _declared(X: pd.DataFrame) -> pd.DataFrame:
    """Every column's states declared as the whole table's, as the fold counts have them."""
    return X.apply(lambda s: pd.Categorical(s, categories=sorted(s.unique())))


def _refitted(name, X, y, cv, seed, w=None) -> tuple[float, list]:
    """The candidate's weighted held-out log-loss by refitting it on each fold, and the
    fitted estimator of each fold."""
    declared = _declared(X)
    splitter = StratifiedKFold(n_splits=cv, shuffle=True, random_state=seed)
    total, weight, fitted = 0.0, 0.0, []
    weights = np.ones(len(y)) if w is None else w
    for train, test in splitter.split(X, y):
        est = CANDIDATES[name][0]().fit(
            declared.iloc[train], y.iloc[train], sample_weight=None if w is None else w[train]
        )
        p = est.predict_proba(declared.iloc[test])
        truth = np.searchsorted(est.classes_, y.iloc[test])
        total -= np.sum(weights[test] * np.log(p[np.arange(len(test)), truth]))
        weight += weights[test].sum()
        fitted.append(est)
    return total / weight, fitted


def _asia() -> tuple[pd.DataFrame, pd.Series]:
    df = pd.read_csv("datasets/asia.csv").iloc[:2000]
    return df.drop(columns="either"), df["either"]


def _synthetic() -> tuple[pd.DataFrame, pd.Series]:
    """Three classes, features of 2 to 5 states that depend on the class and on each
    other; 152 rows, so each fold's structure differs."""
    rng = np.random.default_rng(11)
    n = 150
    c = rng.integers(0, 3, n)
    a = (c + rng.integers(0, 2, n)) % 4
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, 4, n))
    e = (b + c + rng.integers(0, 3, n)) % 5
    f = rng.integers(0, 2, n)
    g = np.where(rng.random(n) < 0.3, 4, (e + f) % 3)
    X = pd.DataFrame({"a": a, "b": b, "e": e, "f": f, "g": g}).astype(str)
    # two rows of values no other row has: their fold's held-in rows saw none of them, so
    # AODE has no super-parent there and answers with its naive-Bayes fallback
    odd = pd.DataFrame({v: ["8", "9"] for v in X.columns})
    labels = np.array(["lo", "mid", "hi"])[np.r_[c, [0, 1]]]
    return pd.concat([X, odd], ignore_index=True), pd.Series(labels, name="k")


@pytest.mark.parametrize("table", [_asia, _synthetic])
@pytest.mark.parametrize("weighted", [False, True])
def test_fold_count_scores_equal_refitting(table, weighted, monkeypatch):
    X, y = table()
    w = np.random.default_rng(5).integers(0, 4, len(y)).astype(float) if weighted else None
    scored = []  # the candidates the fold counts scored (none refitted)
    log_p = FoldCounts.log_p
    monkeypatch.setattr(FoldCounts, "log_p", lambda self, n: scored.append(n) or log_p(self, n))
    clf = tl.AutoClassifier(candidates=list(FOLD_COUNTED), cv=4, random_state=3).fit(X, y, w)
    assert scored == list(FOLD_COUNTED)
    monkeypatch.undo()
    expected = {name: _refitted(name, X, y, 4, 3, w)[0] for name in FOLD_COUNTED}
    for name in FOLD_COUNTED:
        # the same counts, summed in another order: 1e-9 relative leaves room for that alone
        assert clf.candidate_scores_[name] == pytest.approx(expected[name], rel=1e-9), name
    assert clf.chosen_ == min(expected, key=lambda k: expected[k])


@pytest.mark.parametrize("table", [_asia, _synthetic])
def test_each_fold_structure_equals_the_refitted_one(table):
    X, y = table()
    declared = _declared(X)
    codes = np.searchsorted(np.array(sorted(y.unique())), y.to_numpy())
    folds = fold_of_rows(codes, 5, 0)
    counted = FoldCounts(declared, codes.astype(np.intp), None, folds)
    features = list(X.columns)
    for name in ("TAN", "KDB1", "KDB2"):
        _, fitted = _refitted(name, X, y, 5, 0)
        for f, est in enumerate(fitted):
            parents = (
                counted.tan_parents(f) if name == "TAN" else counted.kdb_parents(f, int(name[-1]))
            )
            got = {features[j]: sorted(features[p] for p in ps) for j, ps in parents.items()}
            want = {v: sorted(est.model_.parents(v)[1:]) for v in features}
            assert got == want, (name, f)


def test_fold_counts_are_not_used_where_rows_are_missing():
    X, y = _synthetic()
    X = X.astype(object)
    X.iloc[3, 1] = None  # a missing cell: every candidate refitted
    clf = tl.AutoClassifier(candidates=["TAN", "AODE"], cv=3, random_state=0).fit(X, y)
    for name in ("TAN", "AODE"):
        declared = X.apply(
            lambda s: pd.Categorical(s, categories=sorted(s.dropna().unique(), key=str))
        )
        splitter = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
        loss = []
        for train, test in splitter.split(X, y):
            est = CANDIDATES[name][0]().fit(declared.iloc[train], y.iloc[train])
            p = est.predict_proba(declared.iloc[test])
            loss.extend(
                -np.log(p[np.arange(len(test)), np.searchsorted(est.classes_, y.iloc[test])])
            )
        assert clf.candidate_scores_[name] == pytest.approx(np.mean(loss), rel=1e-9)
