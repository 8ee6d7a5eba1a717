"""SKDB: the leave-one-out losses from the counts equal refitting without each row (by
direct counting over the other rows), and the chosen (k, features) is the brute-force
best of that grid."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelearn as tl


def data(n: int, seed: int) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    cols, prev = {}, rng.integers(0, 2, n)
    for j, k in enumerate((2, 3, 2, 3)):
        keep = rng.random(n) < 0.55
        cols[f"f{j}"] = np.where(keep, (prev + y * (j % 2) + j) % k, rng.integers(0, k, n))
        prev = cols[f"f{j}"]
    return pd.DataFrame(cols), pd.Series(np.array(["a", "b", "c"])[y], name="C")


def loo_by_refitting(X, y, order, parents, max_k, alpha, loss, w, log_prior=None):
    """losses[k, s] by leaving each row out and counting the other rows directly."""
    n, classes = len(X), sorted(set(y))
    w = np.ones(n) if w is None else np.asarray(w, float)
    V, labels = X.to_numpy(), y.to_numpy()
    cards = {f: X[f].nunique() for f in X.columns}
    col = {f: j for j, f in enumerate(X.columns)}
    out = np.zeros((max_k + 1, len(order) + 1))
    for i in range(n):
        rest = np.arange(n) != i
        for k in range(max_k + 1):
            joint = np.zeros(len(classes))
            for ci, c in enumerate(classes):  # the refitted model's log p(x_i, c)
                if log_prior is None:
                    joint[ci] = np.log(
                        (w[rest & (labels == c)].sum() + alpha)
                        / (w[rest].sum() + len(classes) * alpha)
                    )
                else:
                    joint[ci] = log_prior[ci]
            terms = [joint.copy()]
            for f in order:
                u = parents[f][:k]
                match = rest & np.all([V[:, col[p]] == V[i, col[p]] for p in u] + [rest], axis=0)
                for ci, c in enumerate(classes):
                    den = w[match & (labels == c)].sum()
                    num = w[match & (labels == c) & (V[:, col[f]] == V[i, col[f]])].sum()
                    joint[ci] += np.log((num + alpha) / (den + cards[f] * alpha))
                terms.append(joint.copy())
            yi = classes.index(labels[i])
            for s, jl in enumerate(terms):
                if loss == "log_loss":
                    out[k, s] += w[i] * (np.logaddexp.reduce(jl) - jl[yi])
                else:
                    out[k, s] += w[i] * (np.argmax(jl) != yi)
    return out


@pytest.mark.parametrize(
    ("loss", "weighted", "alpha"),
    [("log_loss", False, 1.0), ("log_loss", True, 0.5), ("zero_one", False, 1.0)],
)
def test_leave_one_out_from_counts_is_refitting_and_the_choice_is_the_grid_best(
    loss, weighted, alpha
):
    X, y = data(60, seed=7)
    w = np.random.default_rng(1).random(60) * 2 + 0.1 if weighted else None
    clf = tl.SKDB(numbers="states", max_k=2, loss=loss, alpha=alpha).fit(X, y, sample_weight=w)
    # the structure SKDB chooses within
    kdb = tl.KDB(numbers="states", k=2).fit(X, y, sample_weight=w)
    order = list(kdb.feature_order_)
    assert list(clf.feature_order_) == order
    parents = {f: kdb.model_.parents(f)[1:] for f in order}
    want = loo_by_refitting(X, y, order, parents, 2, alpha, loss, w)
    np.testing.assert_allclose(clf.loo_loss_, want, rtol=1e-10, atol=1e-10)
    # brute force over the grid: least loss, then smaller k, then fewer features
    cells = sorted((round(want[k, s], 9), k, s) for k in range(3) for s in range(5))
    _, k, s = cells[0]
    assert (clf.k_, list(clf.selected_features_)) == (k, order[:s])
    # the fitted network: the chosen features with their first k parents, the rest alone
    for f in order:
        expect = ["C", *parents[f][:k]] if f in order[:s] else []
        assert clf.model_.parents(f) == expect


def test_fixed_prior_is_not_left_out_and_the_model_predicts_as_its_network():
    X, y = data(50, seed=3)
    clf = tl.SKDB(numbers="states", max_k=1, fit_prior=False).fit(X, y)
    kdb = tl.KDB(numbers="states", k=1).fit(X, y)
    order = list(kdb.feature_order_)
    parents = {f: kdb.model_.parents(f)[1:] for f in order}
    want = loo_by_refitting(
        X, y, order, parents, 1, 1.0, "log_loss", None, log_prior=np.log(np.full(3, 1 / 3))
    )
    np.testing.assert_allclose(clf.loo_loss_, want, rtol=1e-10, atol=1e-10)
    # the isolated features change no posterior: the network of the chosen features alone
    chosen = list(clf.selected_features_)
    ref = tl.KDB(numbers="states", k=clf.k_, fit_prior=False).fit(X[chosen], y) if chosen else None
    if ref is not None and list(ref.feature_order_) == chosen:
        np.testing.assert_allclose(
            clf.predict_proba(X), ref.predict_proba(X[chosen]), rtol=0, atol=1e-12
        )


def test_selection_drops_noise_features_and_keeps_the_informative_ones():
    rng = np.random.default_rng(0)
    n = 3000
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.8, y, 1 - y)
    b = np.where(rng.random(n) < 0.6, y, a)  # informative, and dependent on a given y
    X = pd.DataFrame({"a": a, "b": b, **{f"noise{j}": rng.integers(0, 3, n) for j in range(4)}})
    clf = tl.SKDB(max_k=2).fit(X, y)
    assert clf.k_ >= 1
    assert {"a", "b"} <= set(clf.selected_features_)
    # noise features rank last, and most are left out (one may lower the loss by chance)
    assert list(clf.feature_order_[:2]) == ["b", "a"]
    assert sum(f.startswith("noise") for f in clf.selected_features_) <= 2
    assert clf.score(X, y) >= tl.NaiveBayes().fit(X, y).score(X, y)


def test_options_are_errors_and_missing_values_are_counted_around():
    X, y = data(30, seed=1)
    X = X.astype(float)
    X.iloc[0, 1] = np.nan
    # missing cells: leave-one-out over the rows each family is observed in
    # (tests/test_missing_cells_structure.py checks it against refitting)
    assert np.isfinite(tl.SKDB(numbers="states").fit(X, y).loo_loss_).all()
    with pytest.raises(tl.TreelearnError, match="alpha"):
        tl.SKDB(alpha=0).fit(X.fillna(0), y)
    with pytest.raises(tl.TreelearnError, match="loss"):
        tl.SKDB(loss="hinge").fit(X.fillna(0), y)


def test_partial_fit_and_save_round_trip(tmp_path):
    X, y = data(400, seed=2)
    clf = tl.SKDB(numbers="states", max_k=2)
    for part in np.array_split(np.arange(400), 4):
        clf.partial_fit(
            X.iloc[part],
            y.iloc[part],
            classes=["a", "b", "c"],
            states={f: sorted(X[f].unique()) for f in X} if part[0] == 0 else None,
        )
    ref = tl.SKDB(numbers="states", max_k=2).fit(X, y)
    clf.learn_chunks()  # the model, learned from the summed counts
    np.testing.assert_allclose(clf.loo_loss_, ref.loo_loss_, rtol=1e-12)
    assert (clf.k_, list(clf.selected_features_)) == (ref.k_, list(ref.selected_features_))
    for v in ref.model_.variables:
        np.testing.assert_allclose(clf.model_.cpt(v), ref.model_.cpt(v), rtol=0, atol=1e-12)
    path = tmp_path / "skdb.json"
    ref.save(path)
    back = tl.load(path)
    assert (back.k_, list(back.selected_features_)) == (ref.k_, list(ref.selected_features_))
    np.testing.assert_array_equal(back.loo_loss_, ref.loo_loss_)
    np.testing.assert_array_equal(back.predict_proba(X), ref.predict_proba(X))


def test_partial_fit_after_fit_keeps_the_choice_or_says_why_not():
    X, y = data(300, seed=8)
    clf = tl.SKDB(numbers="states", max_k=2).fit(X.iloc[:200], y.iloc[:200])
    with pytest.raises(tl.TreelearnError, match="refit_structure=False"):
        clf.partial_fit(X.iloc[200:], y.iloc[200:])
    # the CPT learner's plain CPTs: every class arc kept (class_arcs="all"), not averaged
    clf = tl.SKDB(numbers="states", max_k=2, class_arcs="all").fit(X.iloc[:200], y.iloc[:200])
    chosen = (clf.k_, list(clf.selected_features_))
    structure = {v: clf.model_.parents(v) for v in clf.model_.variables}
    clf.partial_fit(X.iloc[200:], y.iloc[200:], refit_structure=False)
    assert (clf.k_, list(clf.selected_features_)) == chosen
    assert {v: clf.model_.parents(v) for v in clf.model_.variables} == structure
    # the CPTs: those of that network on all 300 rows
    from treelearn.learners._chow_liu import build_model
    from treelearn.sources._count import count_by_class
    from treelearn.stats._settings import LearningSettings

    want = build_model(
        clf.model_.graph.copy(), count_by_class(X, y), LearningSettings(method="skdb", alpha=1.0)
    )
    for v in X.columns:
        np.testing.assert_allclose(clf.model_.cpt(v), want.cpt(v), rtol=0, atol=1e-12)


def test_the_fast_paths_equal_their_definitions():
    # the scores: logsumexp and argmax over the classes, on spreads past exp's range and ties
    from treelearn.classifiers._seminaive import _log_loss, _zero_one

    rng = np.random.default_rng(4)
    joint = rng.normal(0, 400, (3, 500))
    joint[:, :50] = joint[0, :50]  # every class level: the first is the argmax
    joint[1, 50:100] = joint[2, 50:100]
    y = rng.integers(0, 3, 500)
    w = rng.random(500)
    own = joint[y, np.arange(500)]
    want = w @ (np.logaddexp.reduce(joint, axis=0) - own)
    assert np.isclose(_log_loss(joint, own, w, np.empty_like(joint)), want, rtol=1e-13)
    assert _zero_one(joint, own, y, w) == pytest.approx(
        w @ (np.argmax(joint, axis=0) != y), rel=1e-13
    )
    # without weights every row takes off 1 (a table); weights of 1 take the per-row path
    X, y = data(80, seed=5)
    plain = tl.SKDB(max_k=2).fit(X, y)
    ones = tl.SKDB(max_k=2).fit(X, y, sample_weight=np.ones(len(X)))
    np.testing.assert_allclose(plain.loo_loss_, ones.loo_loss_, rtol=1e-13, atol=0)
