"""Issue 39 item 1 in the mixed classifiers: which columns are numbers (Gaussian) is decided
by dtype, integers and floats, with ``categorical=[...]`` keeping a numeric column as states,
the one rule of the counting classifiers (never by how often values repeat, so a
cross-validation fold never meets an "unseen" whole number).

Oracles: the counting classifiers' own choice of numbers (their MDL binner's columns); a
naive Bayes posterior computed by hand from pandas groupby counts, means and ``ddof=0``
variances with scipy's normal density.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from sklearn.model_selection import StratifiedKFold

import treelearn as tl

MIXED = [tl.MixedNaiveBayes, tl.MixedTAN]


def _table(n: int = 240, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = pd.DataFrame(
        {
            "age": rng.integers(20, 80, n) + 10 * y,  # whole numbers, many values
            "dose": rng.normal(0, 1, n) + y,  # floats
            "smoker": np.where(rng.random(n) < 0.3 + 0.4 * y, "yes", "no"),
            "zip": rng.choice([2139, 2140, 2141], n),  # numbers that are codes
            "flag": rng.random(n) < 0.5,  # booleans: states
        }
    )
    return X, pd.Series(np.array(["well", "ill"])[y], name="status")


@pytest.mark.parametrize("make", MIXED)
def test_integer_columns_are_numbers_by_dtype_as_the_counting_classifiers_decide(make):
    X, y = _table()
    X_before = X.copy()
    for categorical in (None, ["zip"]):
        clf = make(categorical=categorical).fit(X, y)
        counting = tl.NaiveBayes(categorical=categorical).fit(X, y)  # its MDL-binned columns
        # the numbers: each a Gaussian or (numbers="auto", the default) cut into bins
        numbers = [f for f in X.columns if f in {*clf.numeric_features_, *clf.binned_features_}]
        assert numbers == list(counting.binner_.edges_)
        expected = ["age", "dose"] + ([] if categorical else ["zip"])
        assert numbers == expected
        assert clf.categorical_features_ == [
            c for c in X.columns if c not in expected or c in clf.binned_features_
        ]
        gaussian = make(categorical=categorical, numbers="gaussian").fit(X, y)
        assert gaussian.numeric_features_ == expected
    pd.testing.assert_frame_equal(X, X_before)  # the caller's data is never changed


@pytest.mark.parametrize("make", MIXED)
def test_a_fold_lacking_a_whole_number_never_raises(make):
    X, y = _table()
    seen = X["age"] != X["age"].iloc[0]  # training rows without the first row's age
    clf = make().fit(X[seen], y[seen])
    assert X["age"].iloc[0] not in set(X.loc[seen, "age"])
    proba = clf.predict_proba(X.iloc[:5])
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1)
    assert np.isfinite(clf.predict_log_proba(X.iloc[:5])).all()


@pytest.mark.parametrize("make", MIXED)
def test_the_choice_is_the_same_on_every_fold(make):
    X, y = _table(120)
    chosen = set()
    for train, _ in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        for part in (train, train[:12]):  # few rows: a column seen with few values
            clf = make().fit(X.iloc[part], y.iloc[part])
            # the numbers, each a Gaussian or its bins (as the fold's rows say)
            chosen.add(tuple(sorted(clf.numeric_features_ + clf.binned_features_)))
            gaussian = make(numbers="gaussian").fit(X.iloc[part], y.iloc[part])
            chosen.add(tuple(gaussian.numeric_features_))
    assert chosen == {("age", "dose", "zip")}


def test_categorical_keeps_a_numeric_column_as_states():
    X, y = _table()
    clf = tl.MixedNaiveBayes(categorical=["zip"]).fit(X, y)
    states = dict(zip(clf.categorical_features_, clf._feature_states()))
    assert list(states["zip"]) == [2139, 2140, 2141]
    # as states, a zip never seen is an unseen state (refused by default, as NaiveBayes's)
    with pytest.raises(tl.UnseenStateError, match="zip"):
        clf.predict(X.head(1).assign(zip=10001))
    tan = tl.MixedTAN(categorical=["zip"]).fit(X, y)
    assert "zip" in tan.categorical_features_ and "zip" not in tan.numeric_features_


@pytest.mark.parametrize("make", MIXED)
def test_categorical_names_are_checked(make):
    X, y = _table(60)
    with pytest.raises(tl.TreelearnError, match=r"categorical= names \['zap'\]"):
        make(categorical=["zap"]).fit(X, y)
    with pytest.raises(tl.TreelearnError, match=r"\['age'\] named both in numeric="):
        make(numeric=["age", "dose"], categorical=["age"]).fit(X, y)


def test_naive_bayes_of_an_integer_column_by_hand():
    # a whole-number column is one Gaussian per class: the posterior from pandas groupby
    # counts, means and ddof=0 variances with scipy's normal density
    X, y = _table(200, seed=3)
    X = X[["age", "smoker"]]
    # hand-counted plain CPTs: every class arc kept (class_arcs="all"), not averaged
    clf = tl.MixedNaiveBayes(
        var_prior=0, var_smoothing=0, numbers="gaussian", class_arcs="all"
    ).fit(X, y)
    rows = X.head(30)
    joint = []
    for c in clf.classes_:
        part = X[y == c]
        prior = len(part) / len(X)
        smoker = (part["smoker"].value_counts().reindex(["no", "yes"], fill_value=0) + 1) / (
            len(part) + 2
        )
        age = norm(part["age"].mean(), np.sqrt(part["age"].var(ddof=0)))
        joint.append(prior * smoker[rows["smoker"]].to_numpy() * age.pdf(rows["age"]))
    expected = np.array(joint).T
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(clf.predict_proba(rows), expected, rtol=1e-9)


@pytest.mark.parametrize("make", MIXED)
def test_a_file_from_before_categorical_loads(make, tmp_path):
    X, y = _table()
    clf = make().fit(X, y)
    path = tmp_path / "clf.json"
    clf.save(path)
    document = json.loads(path.read_text())
    del document["state"]["params"]["categorical"]
    path.write_text(json.dumps(document))
    old = tl.load(path)
    assert old.categorical is None and old.numeric_features_ == clf.numeric_features_
    np.testing.assert_array_equal(old.predict_proba(X), clf.predict_proba(X))


@pytest.mark.parametrize(
    ("method", "instead"),
    [
        ("GaussianClassifier", "MixedNaiveBayes"),
        ("GaussianTAN", "MixedTAN"),
        ("CopulaTAN", "MixedTAN"),
        ("KernelTAN", "MixedTAN"),
        ("TextNaiveBayes", "MixedNaiveBayes"),
    ],
)
def test_a_numbers_only_classifier_refuses_states_naming_the_mixed_one(method, instead):
    X, y = _table(60)
    with pytest.raises(tl.TreelearnError) as err:
        getattr(tl, method)().fit(X, y)
    text = str(err.value)
    # one error naming every column that holds states (text and booleans) and the fix
    assert text.startswith("columns 'smoker', 'flag' are not numeric"), text
    assert f"{method} takes" in text and f"tl.{instead}()" in text
    assert "X.drop(columns=['smoker', 'flag'])" in text
    assert err.value.column == "smoker"
    # the classifier named learns the same table
    assert np.isfinite(getattr(tl, instead)().fit(X, y).predict_log_proba(X)).all()
