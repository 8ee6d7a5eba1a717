"""MANB against brute-force Bayesian averaging over every feature subset (each model's
marginal likelihood by the sequential Dirichlet predictive, row after row), and AWNB's
weights against scikit-learn's bagged trees read here node by node."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from oracles import sequential_log_evidence
from sklearn.ensemble import BaggingClassifier
from sklearn.tree import DecisionTreeClassifier

import treelearn as tl


def data(n: int, seed: int, d: int = 5) -> tuple[pd.DataFrame, pd.Series]:
    """Features from strongly to barely class-dependent, so that the arc posteriors lie
    anywhere in [0, 1] on few rows."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    cols = {}
    for j in range(d):
        k = 2 + j % 3
        keep = rng.random(n) < [0.8, 0.35, 0.15, 0.0, 0.5, 0.25][j]
        cols[f"x{j}"] = np.where(keep, (y + j) % k, rng.integers(0, k, n))
    return pd.DataFrame(cols), pd.Series(np.array(["neg", "pos"])[y], name="C")


@pytest.mark.parametrize(
    ("seed", "d", "alpha", "prior"), [(0, 5, 1.0, 0.5), (1, 6, 0.5, 0.3), (2, 4, 2.0, 0.8)]
)
def test_manb_is_the_average_over_every_feature_subset(seed, d, alpha, prior):
    X, y = data(40, seed, d)
    clf = tl.MANB(numbers="states", alpha=alpha, arc_prior=prior).fit(X, y)
    cols, classes = list(X.columns), sorted(set(y))
    yc = pd.Index(classes).get_indexer(y)
    k = {f: int(X[f].max()) + 1 for f in cols}
    # each feature's evidence with the arc (one urn per class) and without (one urn)
    with_arc = {
        f: sum(
            sequential_log_evidence(X[f].to_numpy()[yc == c], k[f], alpha)
            for c in range(len(classes))
        )
        for f in cols
    }
    without = {f: sequential_log_evidence(X[f].to_numpy(), k[f], alpha) for f in cols}
    subsets = [frozenset(s) for r in range(d + 1) for s in itertools.combinations(cols, r)]
    log_post = np.array(
        [
            sum(
                with_arc[f] + np.log(prior) if f in S else without[f] + np.log1p(-prior)
                for f in cols
            )
            for S in subsets
        ]
    )
    post = np.exp(log_post - np.logaddexp.reduce(log_post))
    # the arcs' posteriors: the subsets' mass with the feature in
    arc = [sum(p for p, S in zip(post, subsets) if f in S) for f in cols]
    np.testing.assert_allclose(clf.arc_posterior_, arc, rtol=1e-9, atol=1e-12)
    assert min(arc) > 0.01 and max(arc) > 0.99  # not all saturated: the average matters

    # the averaged joint of every row: each subset's naive Bayes (Dirichlet predictive
    # probabilities), weighted by its posterior, then normalised over the classes
    df = X.assign(C=yc)
    prior_c = np.bincount(yc) / len(yc)
    joint = np.zeros((len(X), len(classes)))
    for p, S in zip(post, subsets):
        part = np.tile(prior_c, (len(X), 1))
        for f in cols:
            for c in range(len(classes)):
                rows = df[df["C"] == c][f]
                if f in S:
                    q = (rows.value_counts().reindex(range(k[f]), fill_value=0) + alpha) / (
                        len(rows) + k[f] * alpha
                    )
                else:
                    q = (df[f].value_counts().reindex(range(k[f]), fill_value=0) + alpha) / (
                        len(df) + k[f] * alpha
                    )
                part[:, c] *= q.to_numpy()[X[f].to_numpy()]
        joint += p * part
    want = joint / joint.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(clf.predict_proba(X), want, rtol=1e-9, atol=1e-12)


def test_manb_with_a_sure_arc_is_naive_bayes_and_saves(tmp_path):
    X, y = data(300, 3, 3)
    X = X.assign(x1=np.where(y == "pos", 1, 0))  # every arc certain: naive Bayes exactly
    X["x0"] = X["x1"] * 2 + (np.arange(300) % 2)
    X["x2"] = X["x1"]
    clf = tl.MANB().fit(X, y)
    np.testing.assert_allclose(clf.arc_posterior_, 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        # MANB with every arc sure is plain naive Bayes: the class arcs all kept
        clf.predict_proba(X),
        tl.NaiveBayes(class_arcs="all").fit(X, y).predict_proba(X),
        rtol=0,
        atol=1e-9,
    )
    path = tmp_path / "manb.json"
    clf.save(path)
    back = tl.load(path)
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    np.testing.assert_array_equal(back.arc_posterior_, clf.arc_posterior_)
    with pytest.raises(tl.TreelearnError, match="arc_prior"):
        tl.MANB(arc_prior=1.0).fit(X, y)


def one_hot(X: pd.DataFrame) -> tuple[np.ndarray, list]:
    """The indicators of every feature's states in order, and each column's feature."""
    blocks, owner = [], []
    for f in X.columns:
        states = sorted(X[f].dropna().unique())
        for s in states:
            blocks.append((X[f] == s).to_numpy(np.float32))
            owner.append(f)
    return np.column_stack(blocks), owner


def least_depths(tree, owner: list) -> dict:
    """Each feature's least depth in the tree (root = 1), by recursion over its nodes."""
    t = tree.tree_
    best: dict = {}

    def walk(node, depth):
        if t.children_left[node] < 0:
            return
        f = owner[t.feature[node]]
        best[f] = min(best.get(f, depth), depth)
        walk(t.children_left[node], depth + 1)
        walk(t.children_right[node], depth + 1)

    walk(0, 1)
    return best


@pytest.mark.parametrize(("n_trees", "bootstrap", "seed"), [(10, 0.5, 0), (4, 1.0, 3)])
def test_awnb_weights_are_the_mean_inverse_root_depth_in_the_bagged_trees(n_trees, bootstrap, seed):
    X, y = data(200, seed, 5)
    clf = tl.AWNB(numbers="states", n_trees=n_trees, bootstrap=bootstrap, random_state=seed).fit(
        X, y
    )
    M, owner = one_hot(X)
    bag = BaggingClassifier(
        DecisionTreeClassifier(criterion="entropy"),
        n_estimators=n_trees,
        max_samples=bootstrap,
        bootstrap=True,
        random_state=seed,
    )
    bag.fit(M, pd.Index(sorted(set(y))).get_indexer(y))
    want = np.zeros(X.shape[1])
    for tree in bag.estimators_:
        depths = least_depths(tree, owner)
        want += [1 / np.sqrt(depths[f]) if f in depths else 0.0 for f in X.columns]
    want /= n_trees
    np.testing.assert_allclose(clf.feature_weights_, want, rtol=1e-12, atol=0)
    assert want.argmax() == 0 and len(set(want.round(9))) > 2  # x0 copies the class most
    # the model: naive Bayes's CPTs to the weights' powers
    # AWNB weighs plain Lidstone CPTs (its own tables): the class arcs all kept
    nb = tl.NaiveBayes(numbers="states", class_arcs="all").fit(X, y)
    s = np.tile(nb.class_log_prior_, (len(X), 1))
    for w, f in zip(want, X.columns):
        cpt = nb.model_.cpt(f)
        s += w * np.log(cpt[:, X[f].to_numpy()].T)
    np.testing.assert_allclose(clf.predict_joint_log_proba(X), s, rtol=0, atol=1e-10)


def test_awnb_a_copy_of_the_class_gets_weight_one_the_rest_nothing(tmp_path):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 100)
    X = pd.DataFrame({"noise": rng.integers(0, 3, 100), "copy": y, "more": rng.integers(0, 2, 100)})
    clf = tl.AWNB(random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.feature_weights_, [0.0, 1.0, 0.0])  # one pure split
    assert (clf.predict(X) == y).all()
    clf.save(tmp_path / "a.json")
    back = tl.load(tmp_path / "a.json")
    np.testing.assert_array_equal(back.feature_weights_, clf.feature_weights_)
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    with pytest.raises(tl.TreelearnError, match="bootstrap"):
        tl.AWNB(bootstrap=0).fit(X, y)
