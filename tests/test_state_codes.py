"""The categorical classifiers' fast paths for input that holds state codes already
(treelearn/classifiers/_state_codes.py) and the text-label classes (sources/_count.py):
each gives exactly what the general path gives."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import CategoricalNB

import treelearn as tl
from treelearn.classifiers._state_codes import class_joint_log_likelihood, known_state_codes
from treelearn.encoding._table import encode
from treelearn.sources._count import _unique_labels


def general_codes(frame, names, states, unseen):
    """The general path: encode against the fitted states (what categorical_codes did)."""
    table = encode(
        frame[names],
        missing="pairwise",
        states=dict(zip(names, states)),
        max_states=10**9,
        unseen=unseen,
    )
    return table.codes.astype(np.intp)


def check_same(frame, names, states, unseen="error"):
    fast = known_state_codes(frame, names, states, unseen)
    assert fast is not None
    np.testing.assert_array_equal(fast, general_codes(frame, names, states, unseen))
    return fast


def test_integer_columns_with_gaps_negative_and_unseen_values():
    rng = np.random.default_rng(0)
    a = rng.choice([-7, 2, 5, 9], size=500)
    b = rng.choice([0, 1, 2], size=500).astype(np.int16)
    frame = pd.DataFrame({"a": a, "b": b.astype(np.int64)})
    codes = check_same(frame, ["a", "b"], [[-7, 2, 5, 9], [0, 1, 2]])
    # by hand: the position of each value in its states
    np.testing.assert_array_equal(codes[:, 0], np.searchsorted([-7, 2, 5, 9], a))
    # a value between, below and above the states: unseen
    frame.loc[[0, 1, 2], "a"] = [3, -100, 10**6]
    assert known_state_codes(frame, ["a", "b"], [[-7, 2, 5, 9], [0, 1, 2]], "error") is None
    codes = check_same(frame, ["a", "b"], [[-7, 2, 5, 9], [0, 1, 2]], unseen="ignore")
    assert codes[:3, 0].tolist() == [-1, -1, -1]
    # the classifier: the general path raises, naming the column and the value
    clf = tl.NaiveBayes(numbers="states").fit(frame.iloc[3:], rng.choice(["x", "y"], size=497))
    with pytest.raises(tl.UnseenStateError, match="'a'"):
        clf.predict_proba(frame.iloc[:3])


def test_columns_reordered_mixed_dtypes_categorical_and_bool():
    frame = pd.DataFrame(
        {
            "c": pd.Categorical(["q", None, "p", "r", "p"], categories=["r", "p", "q"]),
            "a": np.array([1, 0, 1, 1, 0], dtype=np.uint8),
            "t": [True, False, True, True, False],
            "s": pd.Categorical(["u", "v", "u", None, "v"]),
        }
    )
    names = ["a", "t", "s", "c"]
    states = [[0, 1], [False, True], ["u", "v"], ["p", "q", "r"]]
    codes = check_same(frame, names, states)
    assert codes[:, 3].tolist() == [1, -1, 0, 2, 0]  # remapped to the sorted states, NaN -1
    # a category never fitted but absent from the rows is no unseen value
    frame["s"] = frame["s"].cat.add_categories(["w"])
    check_same(frame, names, states)
    frame.loc[0, "s"] = "w"
    assert known_state_codes(frame, names, states, "error") is None
    assert check_same(frame, names, states, "ignore")[0, 2] == -1


@pytest.mark.parametrize(
    "column, states",
    [
        (np.array([0.0, 1.0]), [0, 1]),  # floats: the general path
        (np.array(["0", "1"], dtype=object), ["0", "1"]),  # text
        (np.array([0, 1]), ["0", "1"]),  # integers against text states
        (np.array([0, 1]), [False, True]),  # numbers do not stand for bools
        (np.array([0, 10**9]), [0, 10**9]),  # a range too wide for a table
        (np.array([0, 2**64 - 1], dtype=np.uint64), [0, 2**64 - 1]),
    ],
)
def test_other_columns_take_the_general_path(column, states):
    frame = pd.DataFrame({"x": column})
    assert known_state_codes(frame, ["x"], [states], "ignore") is None


def test_same_predictions_as_the_general_path_and_categorical_nb():
    rng = np.random.default_rng(1)
    n, d = 3000, 6
    cards = rng.integers(2, 6, size=d)
    Z = np.column_stack([rng.integers(0, k, size=n) for k in cards])
    y = np.where(Z[:, 0] + rng.integers(0, 3, size=n) > 2, "yes", "no")
    # the peer's plain CPTs: every class arc kept (class_arcs="all"), not averaged
    clf = tl.NaiveBayes(numbers="states", class_arcs="all").fit(Z[:2000], y[:2000])
    fast = clf.predict_proba(Z[2000:])
    frame = pd.DataFrame(Z[2000:].astype(str), columns=clf.feature_names_in_)
    general = (
        tl.NaiveBayes(class_arcs="all").fit(Z[:2000].astype(str), y[:2000]).predict_proba(frame)
    )
    np.testing.assert_array_equal(fast, general)  # the same doubles
    sk = CategoricalNB(alpha=1.0, min_categories=cards).fit(Z[:2000], y[:2000])
    np.testing.assert_allclose(fast, sk.predict_proba(Z[2000:]), rtol=0, atol=1e-12)


@pytest.mark.parametrize("make", [tl.NaiveBayes, tl.TAN, lambda: tl.KDB(k=2)])
def test_class_joint_log_likelihood_equals_a_gather_per_class(make):
    rng = np.random.default_rng(2)
    n = 800
    X = pd.DataFrame({f"x{j}": rng.integers(0, 3 + j % 2, size=n) for j in range(5)})
    y = pd.Series(rng.choice(["a", "b", "c"], size=n), name="klass")
    clf = make().fit(X.astype("category"), y)
    model = clf.model_
    codes = clf._prediction_input(X.astype("category"))
    fast = class_joint_log_likelihood(model, clf.class_name_, codes, len(clf.classes_))
    # the exact gather of TreeModel.complete_log_likelihood, the class set to each c
    klass = list(model.variables).index(clf.class_name_)
    for c in range(len(clf.classes_)):
        full = np.insert(codes, klass, c, axis=1)
        np.testing.assert_array_equal(fast[:, c], model.complete_log_likelihood(full))


def test_rows_built_to_cancel_keep_their_doubles():
    # two features whose evidence cancels exactly: the posterior is the prior, and the
    # fast path must give the same doubles as the per-class gather
    X = pd.DataFrame({"u": [0, 1, 0, 1], "v": [1, 0, 1, 0]}).astype("category")
    y = pd.Series(["p", "p", "q", "q"], name="y")
    X = pd.concat([X, X.iloc[[0, 3]]], ignore_index=True).astype("category")
    y = pd.concat([y, pd.Series(["q", "p"], name="y")], ignore_index=True)
    clf = tl.NaiveBayes().fit(X, y)
    codes = clf._prediction_input(X)
    fast = clf._joint_log_likelihood(codes)
    model = clf.model_
    for c in range(2):
        full = np.column_stack([codes, np.full(len(codes), c)])
        np.testing.assert_array_equal(fast[:, c], model.complete_log_likelihood(full))
    # by hand: counts p: u=(1,2) v=(2,1); q: u=(2,1) v=(1,2) (Laplace: +1 over 3+2)
    p = clf.predict_proba(pd.DataFrame({"u": [0], "v": [0]}).astype("category"))
    np.testing.assert_allclose(p, [[0.5, 0.5]], rtol=0, atol=1e-15)


def test_missing_rows_still_take_the_exact_branch():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({f"x{j}": rng.integers(0, 3, size=300).astype(float) for j in range(4)})
    y = rng.choice(["a", "b"], size=300)
    clf = tl.NaiveBayes(numbers="states").fit(X.astype(int), y)
    X.iloc[::7, 1] = np.nan
    got = clf.predict_log_proba(X)  # floats with NaN: the general path, then the engine
    # naive Bayes: a missing feature drops out of the product (its factor sums to one)
    ll = clf.model_
    klass = clf.class_name_
    prior = np.log(ll.cpt(klass))
    joint = np.tile(prior, (len(X), 1))
    for name in clf.feature_names_in_:
        table = np.log(ll.cpt(name))  # class x state
        seen = X[name].notna().to_numpy()
        joint[seen] += table[:, X[name][seen].astype(int).to_numpy()].T
    expected = joint - np.logaddexp.reduce(joint, axis=1, keepdims=True)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "labels",
    [
        ["b", "a", "b", "c", "a"],
        ["é", "e", "E", "", "ß", "e"],
        ["10", "9", "1", "10"],
    ],
)
def test_text_labels_as_numpy_unique(labels):
    values = np.array(labels, dtype=object)
    got = _unique_labels(values)
    expected = np.unique(values, return_inverse=True, return_counts=True)
    for a, b in zip(got, expected):
        assert a.tolist() == b.tolist()


def test_mixed_labels_still_refused():
    with pytest.raises(tl.ClassLabelError, match="cannot be sorted"):
        tl.NaiveBayes(numbers="states").fit(
            np.zeros((3, 1), dtype=int), np.array(["a", 1, "b"], dtype=object)
        )
