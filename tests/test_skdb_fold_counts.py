"""AutoClassifier scores SKDB from fold counts on complete categorical tables (issue 39
item 3: "no refit per candidate where counts suffice"): each fold's k-DB ranking, its
leave-one-out loss over ``(k, s)``, its choice of ``k`` and features, and the held-out
log-loss equal SKDB refitted on the fold's held-in rows (brute force: a fresh
``SKDB(numbers="mdl")`` per fold on scikit-learn's ``StratifiedKFold``), to 1e-10."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold

import treelearn as tl
from treelearn.classifiers._choose import FoldCounts, fold_of_rows


def _declared(X: pd.DataFrame) -> pd.DataFrame:
    return X.apply(lambda s: pd.Categorical(s, categories=sorted(s.unique())))


def _titanic() -> tuple[pd.DataFrame, pd.Series]:
    df = pd.read_csv("datasets/real/titanic.csv")[["survived", "sex", "passengerClass"]]
    return df.drop(columns="survived"), df["survived"]


def _survey_states() -> tuple[pd.DataFrame, pd.Series]:
    """MASS::survey's columns of states (no numbers), complete rows: 4 classes of Exer."""
    df = pd.read_csv("datasets/real/survey.csv")
    text = [c for c in df.columns if df[c].dtype.kind not in "if"]
    df = df[text].dropna().reset_index(drop=True)
    return df.drop(columns="Exer"), df["Exer"]


def _synthetic() -> tuple[pd.DataFrame, pd.Series]:
    """Three classes, six features of 2 to 5 states depending on the class and on each
    other (k = 2..5 parents all possible), 240 rows: the folds choose differently."""
    rng = np.random.default_rng(7)
    n = 240
    c = rng.integers(0, 3, n)
    a = (c + rng.integers(0, 2, n)) % 4
    b = np.where(rng.random(n) < 0.7, a, rng.integers(0, 4, n))
    e = (b + c + rng.integers(0, 2, n)) % 5
    f = rng.integers(0, 2, n)
    g = np.where(rng.random(n) < 0.3, 2, (e + f) % 3)
    h = (a + e + rng.integers(0, 2, n)) % 3
    X = pd.DataFrame({"a": a, "b": b, "e": e, "f": f, "g": g, "h": h}).astype(str)
    return X, pd.Series(np.array(["lo", "mid", "hi"])[c], name="k")


TABLES = [_titanic, _survey_states, _synthetic]


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("weighted", [False, True])
def test_each_fold_skdb_equals_skdb_refitted_on_the_fold(table, weighted):
    X, y = table()
    w = np.random.default_rng(3).integers(1, 4, len(y)).astype(float) if weighted else None
    declared = _declared(X)
    classes = np.array(sorted(y.unique()))
    codes = np.searchsorted(classes, y.to_numpy()).astype(np.intp)
    folds = fold_of_rows(codes, 5, 0)
    counted = FoldCounts(declared, codes, w, folds)
    splitter = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    features = list(X.columns)
    log_p = counted.log_p("SKDB")
    for f, (train, test) in enumerate(splitter.split(X, y)):
        assert set(np.flatnonzero(folds == f)) == set(test)
        est = tl.SKDB(numbers="mdl").fit(
            declared.iloc[train], y.iloc[train], sample_weight=None if w is None else w[train]
        )
        ranked, k, s, loo = counted.skdb_choice(f)
        np.testing.assert_allclose(loo, est.loo_loss_, rtol=1e-10, atol=0)
        assert (k, s) == (est.k_, len(est.selected_features_)), f
        assert [features[j] for j, _ in ranked] == list(est.feature_order_)
        for j, parents in ranked[:s]:  # the selected families, the class first
            want = est.model_.parents(features[j])
            assert want == [y.name, *(features[p] for p in parents[:k])], (f, features[j])
        # the held-out rows' log p(y | x): the refitted SKDB's own prediction
        p = est.predict_log_proba(declared.iloc[test])
        want = p[np.arange(len(test)), np.searchsorted(est.classes_, y.iloc[test])]
        np.testing.assert_allclose(log_p[test], want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("table", TABLES)
def test_the_skdb_score_and_the_choice_equal_refitting(table, monkeypatch):
    X, y = table()
    calls = []
    fit = tl.SKDB.fit
    monkeypatch.setattr(tl.SKDB, "fit", lambda self, *a, **k: calls.append(1) or fit(self, *a, **k))
    auto = tl.AutoClassifier(cv=5, random_state=0).fit(X, y)
    assert len(calls) == int(auto.chosen_ == "SKDB")  # no refit per fold: the final fit only
    monkeypatch.undo()
    declared = _declared(X)
    splitter = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    loss = np.empty(len(y))
    for train, test in splitter.split(X, y):
        est = tl.SKDB(numbers="mdl").fit(declared.iloc[train], y.iloc[train])
        p = est.predict_log_proba(declared.iloc[test])
        loss[test] = -p[np.arange(len(test)), np.searchsorted(est.classes_, y.iloc[test])]
    assert auto.candidate_scores_["SKDB"] == pytest.approx(loss.mean(), rel=1e-10)
    # the choice: brute force over every candidate's refitted score is in
    # test_choose_fold_counts.py; here SKDB against the others' fold-count scores
    best = min(auto.candidate_scores_, key=lambda n: round(auto.candidate_scores_[n], 12))
    assert auto.chosen_ == best


def test_skdb_families_too_big_for_every_fold_are_refitted_instead(monkeypatch):
    # the fold counts hold SKDB's largest families for every fold at once (2 x cv x their
    # size): past the memory limit SKDB is refitted fold by fold (each family alone), the
    # same score, never inf for a table the refit could learn
    import treelearn._base.limits as limits

    X, y = _synthetic()
    want = tl.AutoClassifier(candidates=["SKDB"], cv=5).fit(X, y).candidate_scores_["SKDB"]
    # the largest family: the class (3), five parents and the child, each of <= 5 states
    monkeypatch.setattr(limits, "MEMORY_LIMIT", 2 * 5 * 8.0 * 3 * 4 * 4 * 5 * 2 * 3 * 3 - 1)
    refits = []
    fit = tl.SKDB.fit
    monkeypatch.setattr(
        tl.SKDB, "fit", lambda self, *a, **k: refits.append(1) or fit(self, *a, **k)
    )
    auto = tl.AutoClassifier(candidates=["SKDB"], cv=5).fit(X, y)
    assert len(refits) == 5 + 1  # each fold, then every row
    assert auto.candidate_errors_ == {}
    assert auto.candidate_scores_["SKDB"] == pytest.approx(want, rel=1e-10)
