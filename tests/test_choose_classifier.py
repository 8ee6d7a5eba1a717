"""AutoClassifier: its scores and choice against brute-force refitting of every candidate on
the same folds (scikit-learn's ``cross_val_predict`` with ``StratifiedKFold``, the mean of
``-log p(y | x)``), on a categorical and a mixed table; saving; GridSearchCV."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_predict

import treelearn as tl
from treelearn.classifiers._choose import CANDIDATES


def _brute_force(name: str, X: pd.DataFrame, y: pd.Series, cv: int, seed: int) -> float:
    """A fresh candidate refitted on each fold's held-in rows; states declared as the whole
    table's (pandas Categorical), so a fold never meets an unseen state."""
    declared = X.copy()
    for c in X.columns:
        if not pd.api.types.is_float_dtype(X[c].dtype):
            declared[c] = pd.Categorical(X[c], categories=sorted(X[c].unique()))
    splitter = StratifiedKFold(n_splits=cv, shuffle=True, random_state=seed)
    proba = cross_val_predict(
        CANDIDATES[name][0](), declared, y, cv=splitter, method="predict_proba"
    )
    truth = np.searchsorted(np.array(sorted(y.unique())), y.to_numpy())
    return float(-np.mean(np.log(proba[np.arange(len(y)), truth])))


def _categorical_table() -> tuple[pd.DataFrame, pd.Series]:
    df = pd.read_csv("datasets/asia.csv").iloc[:1500]
    return df.drop(columns="either"), df["either"]


def _mixed_table() -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(3)
    n = 400
    c = rng.integers(0, 3, n)
    X = pd.DataFrame(
        {
            "a": np.where(rng.random(n) < 0.7, c, rng.integers(0, 3, n)).astype(str),
            "u": rng.normal(c * 0.8, 1.0),
            "v": rng.normal(0, 1 + c * 0.5),
        }
    )
    return X, pd.Series(np.array(["p", "q", "r"])[c], name="k")


@pytest.mark.parametrize(
    ("table", "names"),
    [
        (_categorical_table, ["NaiveBayes", "TAN", "KDB1", "AODE", "MixedNaiveBayes"]),
        (_mixed_table, None),
    ],
)
def test_choice_equals_brute_force_refitting(table, names):
    X, y = table()
    clf = tl.AutoClassifier(candidates=names, cv=4, random_state=7).fit(X, y)
    expected = {name: _brute_force(name, X, y, 4, 7) for name in clf.candidate_scores_}
    # sklearn's log_loss clips probabilities at float eps: 1e-9 relative is far above that
    for name, score in expected.items():
        assert clf.candidate_scores_[name] == pytest.approx(score, rel=1e-9, abs=1e-12), name
    assert clf.chosen_ == min(expected, key=lambda k: expected[k])
    assert type(clf.estimator_) is type(CANDIDATES[clf.chosen_][0]())
    if names is None:  # the mixed table's candidates: the counting ones (MDL bins of
        # the numbers) and the mixed ones; no Gaussian-only one (a column is categorical)
        assert list(clf.candidate_scores_) == [
            "NaiveBayes",
            "TAN",
            "KDB1",
            "KDB2",
            "AODE",
            "SKDB",
            "WeightedNaiveBayes",
            "MixedNaiveBayes",
            "MixedTAN",
        ]


def test_naive_bayes_fold_counts_equal_refitting_with_weights():
    X, y = _categorical_table()
    w = np.random.default_rng(0).integers(0, 3, len(X)).astype(float)
    clf = tl.AutoClassifier(candidates=["NaiveBayes"], cv=3, random_state=1).fit(X, y, w)
    splitter = StratifiedKFold(n_splits=3, shuffle=True, random_state=1)
    declared = X.apply(lambda s: pd.Categorical(s, categories=sorted(s.unique())))
    total, weight = 0.0, 0.0
    for train, test in splitter.split(X, y):
        nb = tl.NaiveBayes().fit(declared.iloc[train], y.iloc[train], sample_weight=w[train])
        p = nb.predict_proba(declared.iloc[test])
        truth = np.searchsorted(nb.classes_, y.iloc[test])
        total -= np.sum(w[test] * np.log(p[np.arange(len(test)), truth]))
        weight += w[test].sum()
    assert clf.candidate_scores_["NaiveBayes"] == pytest.approx(total / weight, rel=1e-10)


def test_save_load_explain_and_grid_search(tmp_path):
    X, y = _categorical_table()
    clf = tl.AutoClassifier(candidates=["NaiveBayes", "TAN"], cv=3).fit(X, y)
    path = tmp_path / "auto.json"
    clf.save(path)
    back = tl.load(path)
    assert back.chosen_ == clf.chosen_ and back.candidate_scores_ == clf.candidate_scores_
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    np.testing.assert_allclose(clf.predict_proba(X), clf.estimator_.predict_proba(X))
    explanation = clf.explain(X.iloc[:3])
    direct = clf.estimator_.explain(X.iloc[:3])
    np.testing.assert_allclose(explanation.values, direct.values)
    grid = GridSearchCV(
        tl.AutoClassifier(cv=3), {"candidates": [["NaiveBayes"], ["TAN"]]}, cv=3
    ).fit(X, y)
    assert grid.best_estimator_.chosen_ in {"NaiveBayes", "TAN"}


def test_unknown_candidate_is_named():
    X, y = _categorical_table()
    with pytest.raises(tl.TreelearnError, match="Bogus"):
        tl.AutoClassifier(candidates=["Bogus"]).fit(X, y)
