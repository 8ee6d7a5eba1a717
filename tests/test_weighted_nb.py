"""WeightedNaiveBayes (WANBIA): weights = 1 is naive Bayes; the gradients are exact
(finite differences); the optimum is scipy's from another start on an objective written
here independently."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import check_grad, minimize

import treelearn as tl
from treelearn.classifiers._weighted import wanbia_objective


def data(n: int, seed: int) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    cols = {
        "a": a,
        "a_copy": np.where(rng.random(n) < 0.95, a, rng.integers(0, 3, n)),
        "b": np.where(rng.random(n) < 0.4, y % 2, rng.integers(0, 2, n)),
        "noise": rng.integers(0, 4, n),
    }
    X = pd.DataFrame(cols).astype(float)
    X.loc[rng.random(n) < 0.05, "b"] = np.nan
    return X, pd.Series(np.array(["p", "q", "r"])[y], name="C")


def objective_by_hand(w, nb, X, y, objective, r):
    """The objective from naive Bayes's own CPTs, feature by feature (no shared code)."""
    classes = list(nb.classes_)
    s = np.tile(nb.class_log_prior_, (len(X), 1))
    for j, f in enumerate(X.columns):
        cpt = nb.model_.cpt(f)  # (classes, states)
        states = nb.model_.states[f]
        for i, v in enumerate(X[f]):
            if not pd.isna(v):
                s[i] += w[j] * np.log(cpt[:, states.index(v)])
    p = np.exp(s - np.logaddexp.reduce(s, axis=1, keepdims=True))
    t = np.array([[c == label for c in classes] for label in y], dtype=float)
    if objective == "cll":
        return -np.sum(r * np.log(np.sum(p * t, axis=1)))
    return 0.5 * np.sum(r[:, None] * (p - t) ** 2)


def test_weights_one_is_naive_bayes():
    X, y = data(300, seed=0)
    clf = tl.WeightedNaiveBayes().fit(X, y)
    nb = tl.NaiveBayes().fit(X, y)
    clf.feature_weights_ = np.ones(4)
    np.testing.assert_allclose(
        clf.predict_joint_log_proba(X), nb.predict_joint_log_proba(X), rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(clf.predict_proba(X), nb.predict_proba(X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("objective", ["cll", "mse"])
def test_gradient_is_exact_and_the_optimum_is_scipys_from_elsewhere(objective):
    X, y = data(200, seed=1)
    r = np.random.default_rng(3).random(200) + 0.5
    clf = tl.WeightedNaiveBayes(numbers="states", objective=objective).fit(X, y, sample_weight=r)
    # WANBIA weighs plain Lidstone CPTs: every class arc kept (class_arcs="all"), not averaged
    nb = tl.NaiveBayes(numbers="states", class_arcs="all").fit(X, y, sample_weight=r)
    # the objective is the one written here from naive Bayes's CPTs
    w0 = np.array([0.3, 1.7, 0.9, 0.1])
    F = clf._log_probabilities(clf._prediction_input(X))
    codes = pd.Index(clf.classes_).get_indexer(y)
    value, _ = wanbia_objective(w0, F, codes, clf.class_log_prior_, r, objective)
    assert np.isclose(value, objective_by_hand(w0, nb, X, y, objective, r), rtol=1e-12)

    # exact gradient: finite differences agree
    def f(w):
        return wanbia_objective(w, F, codes, clf.class_log_prior_, r, objective)[0]

    def g(w):
        return wanbia_objective(w, F, codes, clf.class_log_prior_, r, objective)[1]

    assert check_grad(f, g, w0, epsilon=1e-7) < 1e-4 * max(1.0, np.abs(g(w0)).max())
    # scipy from another start, with finite-difference gradients, on the hand objective
    other = minimize(
        lambda w: objective_by_hand(w, nb, X, y, objective, r),
        np.full(4, 0.2),
        method="L-BFGS-B",
        bounds=[(0, 1)] * 4,
        options={"ftol": 1e-14, "gtol": 1e-9},
    )
    assert clf.objective_value_ <= other.fun + 1e-7 * abs(other.fun)
    np.testing.assert_allclose(clf.feature_weights_, other.x, atol=2e-3)
    assert ((clf.feature_weights_ >= 0) & (clf.feature_weights_ <= 1)).all()


def test_weights_fix_redundant_features_and_save_round_trip(tmp_path):
    X, y = data(2000, seed=2)
    clf = tl.WeightedNaiveBayes().fit(X, y)
    nb = tl.NaiveBayes().fit(X, y)
    # the copy of 'a' double-counts its evidence in naive Bayes: their weights share it
    assert clf.feature_weights_[0] + clf.feature_weights_[1] < 1.6
    nb_loss = -nb.predict_log_proba(X)[np.arange(len(y)), pd.Index(nb.classes_).get_indexer(y)]
    assert clf.objective_value_ < nb_loss.sum()
    path = tmp_path / "wnb.json"
    clf.save(path)
    back = tl.load(path)
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    np.testing.assert_array_equal(back.feature_weights_, clf.feature_weights_)


def test_options_are_checked():
    X, y = data(50, seed=4)
    with pytest.raises(tl.TreelearnError, match="objective"):
        tl.WeightedNaiveBayes(objective="hinge").fit(X, y)
    with pytest.raises(tl.TreelearnError, match="alpha"):
        tl.WeightedNaiveBayes(alpha=0).fit(X, y)
