"""Classifiers: naive Bayes, TAN and the Chow-Liu multinet.

Expected numbers come from scikit-learn's CategoricalNB, pgmpy (TreeSearch,
VariableElimination), the PlayTennis counts worked by hand, the generating
network's true posterior, or brute-force enumeration written here.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from conftest import FAST, tables
from hypothesis import given
from hypothesis import strategies as st
from oracles import marginal_probability
from sklearn.base import clone
from sklearn.metrics import log_loss, mutual_info_score
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.naive_bayes import CategoricalNB
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import KBinsDiscretizer, OrdinalEncoder

import treelearn as tl

CLASSIFIERS = [tl.NaiveBayes, tl.TAN, tl.ChowLiuMultinet]


# ---------------------------------------------------------------- data makers
def _draw(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One categorical draw per row of ``probs`` (n x k)."""
    u = rng.random(len(probs))[:, None]
    return np.minimum((np.cumsum(probs, axis=1) < u).sum(axis=1), probs.shape[1] - 1)


def make_tan_network(d: int, cards: list[int], k_c: int, rng, strength: float = 0.7):
    """A known TAN: class prior, a random feature tree rooted at feature 0, CPTs [c, parent, x]."""
    parent = {j: int(rng.integers(0, j)) for j in range(1, d)}  # random recursive tree
    prior = rng.dirichlet(np.full(k_c, 5.0))
    cpts = {}
    for j in range(d):
        k = cards[j]
        kp = cards[parent[j]] if j in parent else 1
        table = np.empty((k_c, kp, k))
        for c in range(k_c):
            for a in range(kp):
                row = rng.dirichlet(np.ones(k)) * (1 - strength)
                row[(a + 2 * c + j) % k] += strength  # depends on both the class and the parent
                table[c, a] = row
        cpts[j] = table
    return prior, parent, cpts


def sample_tan(prior, parent, cpts, n: int, rng) -> tuple[pd.DataFrame, pd.Series]:
    d = len(cpts)
    y = _draw(np.tile(prior, (n, 1)), rng)
    x = np.zeros((n, d), dtype=np.int64)
    for j in range(d):  # parents have smaller indices
        pa = x[:, parent[j]] if j in parent else np.zeros(n, dtype=np.int64)
        x[:, j] = _draw(cpts[j][y, pa], rng)
    X = pd.DataFrame(x, columns=[f"f{j}" for j in range(d)])
    return X, pd.Series(np.array(["a", "b", "c", "d"])[y], name="C")


def make_nb_network(d: int, cards: list[int], k_c: int, rng):
    prior = rng.dirichlet(np.full(k_c, 5.0))
    cpts = [rng.dirichlet(np.full(k, 0.7), size=k_c) for k in cards]  # [c, x]
    return prior, cpts


def sample_nb(prior, cpts, n: int, rng) -> tuple[pd.DataFrame, pd.Series]:
    y = _draw(np.tile(prior, (n, 1)), rng)
    X = pd.DataFrame({f"f{j}": _draw(t[y], rng) for j, t in enumerate(cpts)})
    return X, pd.Series(y, name="C")


def nb_true_posterior(prior, cpts, X: pd.DataFrame) -> np.ndarray:
    log = np.log(prior)[None, :] + sum(
        np.log(t[:, X[f"f{j}"].to_numpy()]).T for j, t in enumerate(cpts)
    )
    log -= log.max(axis=1, keepdims=True)
    p = np.exp(log)
    return p / p.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def tan_data():
    rng = np.random.default_rng(7)
    cards = [3, 2, 4, 3, 2, 3, 4]
    net = make_tan_network(len(cards), cards, 3, rng)
    X, y = sample_tan(*net, 6000, rng)
    return net, X, y


def _categorical_nb_frame(n: int, rng) -> tuple[pd.DataFrame, pd.Series]:
    """6 features, 3 classes; some states never occur with some class (f0 = 4 only in class 0)."""
    y = rng.integers(0, 3, size=n)
    cols = {}
    for j, k in enumerate([5, 2, 3, 4, 6, 3]):
        shift = rng.integers(0, k, size=3)
        p_same = 0.5
        values = np.where(rng.random(n) < p_same, (y + shift[y]) % k, rng.integers(0, k, size=n))
        cols[f"f{j}"] = values
    cols["f0"] = np.where((cols["f0"] == 4) & (y != 0), 3, cols["f0"])
    X = pd.DataFrame(cols)
    X["f2"] = X["f2"].map({0: "lo", 1: "mid", 2: "hi"})  # text labels too
    return X, pd.Series(np.array(["x", "y", "z"])[y], name="label")


# ---------------------------------------------------------------- naive Bayes
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_naive_bayes_equals_categorical_nb(alpha):
    rng = np.random.default_rng(0)
    X, y = _categorical_nb_frame(400, rng)
    X_test, _ = _categorical_nb_frame(200, np.random.default_rng(1))
    assert not ((X["f0"] == 4) & (y != "x")).any()  # a state unseen in two classes
    enc = OrdinalEncoder().fit(X)  # sorted categories, like treelearn's states
    cnb = CategoricalNB(alpha=alpha, min_categories=[len(c) for c in enc.categories_])
    cnb.fit(enc.transform(X).astype(int), y)
    clf = tl.NaiveBayes(numbers="states", alpha=alpha).fit(X, y)
    expected = cnb.predict_proba(enc.transform(X_test).astype(int))
    np.testing.assert_allclose(clf.predict_proba(X_test), expected, rtol=0, atol=1e-10)
    np.testing.assert_allclose(
        clf.predict_joint_log_proba(X_test),
        cnb.predict_joint_log_proba(enc.transform(X_test).astype(int)),
        rtol=1e-12,
        atol=1e-10,
    )
    assert list(clf.classes_) == list(cnb.classes_)
    np.testing.assert_array_equal(
        clf.predict(X_test), cnb.predict(enc.transform(X_test).astype(int))
    )


@pytest.mark.parametrize("kwargs", [{"fit_prior": False}, {"class_prior": [0.2, 0.3, 0.5]}])
def test_naive_bayes_prior_options_equal_categorical_nb(kwargs):
    X, y = _categorical_nb_frame(300, np.random.default_rng(2))
    enc = OrdinalEncoder().fit(X)
    cnb = CategoricalNB(alpha=1.0, min_categories=[len(c) for c in enc.categories_], **kwargs)
    cnb.fit(enc.transform(X).astype(int), y)
    # the peer's plain CPTs: every class arc kept (class_arcs="all"), not averaged
    clf = tl.NaiveBayes(numbers="states", class_arcs="all", **kwargs).fit(X, y)
    np.testing.assert_allclose(
        clf.predict_proba(X), cnb.predict_proba(enc.transform(X).astype(int)), atol=1e-10
    )
    np.testing.assert_allclose(clf.class_log_prior_, cnb.class_log_prior_, atol=1e-12)


def test_playtennis_maximum_likelihood_numbers():
    df = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
    X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
    # maximum likelihood's plain counts: every class arc kept, not averaged
    clf = tl.NaiveBayes(alpha=0, class_arcs="all").fit(X, y)
    m = clf.model_
    assert list(clf.classes_) == ["No", "Yes"]
    assert m.cpt("PlayTennis")[1] == pytest.approx(9 / 14)
    wind = m.cpt("Wind")  # [class, Wind]; Wind states sorted: Strong, Weak
    assert m.states["Wind"] == ["Strong", "Weak"]
    assert wind[1, 0] == pytest.approx(3 / 9) and wind[0, 0] == pytest.approx(3 / 5)
    query = pd.DataFrame(
        [{"Outlook": "Sunny", "Temperature": "Cool", "Humidity": "High", "Wind": "Strong"}]
    )
    scores = np.exp(clf.predict_joint_log_proba(query))[0]
    # Mitchell's counts: P(yes) 9/14, P(sunny|yes) 2/9, P(cool|yes) 3/9, P(high|yes) 3/9, P(strong|yes) 3/9
    yes = Fraction(9, 14) * Fraction(2, 9) * Fraction(3, 9) * Fraction(3, 9) * Fraction(3, 9)
    no = Fraction(5, 14) * Fraction(3, 5) * Fraction(1, 5) * Fraction(4, 5) * Fraction(3, 5)
    assert scores[1] == pytest.approx(float(yes), rel=1e-12) and round(scores[1], 4) == 0.0053
    assert scores[0] == pytest.approx(float(no), rel=1e-12) and round(scores[0], 4) == 0.0206
    assert clf.predict(query).tolist() == ["No"]
    assert clf.predict_proba(query)[0, 0] == pytest.approx(float(no / (yes + no)), rel=1e-12)


def test_naive_bayes_structure_is_the_star_and_model_exports():
    df = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
    clf = tl.NaiveBayes().fit(df.drop(columns="PlayTennis"), df["PlayTennis"])
    assert set(clf.model_.graph.edges) == {
        ("PlayTennis", f) for f in ["Outlook", "Temperature", "Humidity", "Wind"]
    }
    assert clf.model_.to_pgmpy().check_model()
    assert clf.class_name_ == "PlayTennis"
    assert clf.n_features_in_ == 4
    assert list(clf.feature_names_in_) == ["Outlook", "Temperature", "Humidity", "Wind"]


# ---------------------------------------------------------------- TAN
def test_tan_structure_equals_pgmpy_treesearch_and_the_true_tree(tan_data):
    from pgmpy.estimators import TreeSearch

    (_, parent, _), X, y = tan_data
    df = pd.concat([X, y], axis=1)
    for root in ["f0", "f3"]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dag = TreeSearch(df, root_node=root, n_jobs=1).estimate(
                "tan", class_node="C", show_progress=False
            )
        clf = tl.TAN(root=root).fit(X, y)
        assert set(clf.model_.graph.edges) == set(dag.edges())
    true_tree = {frozenset((f"f{p}", f"f{c}")) for c, p in parent.items()}
    assert {frozenset(e) for e in clf.feature_tree_.edges} == true_tree


def test_tan_default_root_is_the_first_feature_and_parents_put_the_class_first(tan_data):
    _, X, y = tan_data
    clf = tl.TAN().fit(X, y)
    assert clf.model_.parents("f0") == ["C"]
    for f in X.columns[1:]:
        ps = clf.model_.parents(f)
        assert ps[0] == "C" and len(ps) == 2
    # the reversed column order roots the tree at the (new) first column
    rev = tl.TAN().fit(X[X.columns[::-1]], y)
    assert rev.model_.parents(X.columns[-1]) == ["C"]


def test_tan_beats_naive_bayes_on_tan_data(tan_data):
    net, X, y = tan_data
    X_test, y_test = sample_tan(*net, 4000, np.random.default_rng(99))
    losses = {}
    for C in CLASSIFIERS:
        clf = C().fit(X.iloc[:2000], y.iloc[:2000])
        losses[C.__name__] = log_loss(y_test, clf.predict_proba(X_test), labels=clf.classes_)
    assert losses["TAN"] < losses["NaiveBayes"] - 0.05
    assert losses["ChowLiuMultinet"] < losses["NaiveBayes"]


def test_three_classifiers_agree_on_naive_bayes_data():
    rng = np.random.default_rng(3)
    net = make_nb_network(8, [2, 3, 4, 3, 2, 3, 2, 4], 3, rng)
    X, y = sample_nb(*net, 3000, rng)
    X_test, y_test = sample_nb(*net, 4000, rng)
    bayes = (nb_true_posterior(*net, X_test).argmax(axis=1) == y_test.to_numpy()).mean()
    se = np.sqrt(bayes * (1 - bayes) / len(y_test))
    for C in CLASSIFIERS:
        acc = C().fit(X, y).score(X_test, y_test)
        # a few standard errors of the Bayes-optimal accuracy (and nothing can beat it by more)
        assert abs(acc - bayes) < 5 * se + 0.01, (C.__name__, acc, bayes)


# ---------------------------------------------------------------- multinet
def test_multinet_trees_are_chow_liu_per_class(tan_data):
    _, X, y = tan_data
    clf = tl.ChowLiuMultinet(numbers="states", alpha=0.5).fit(X, y)
    assert sorted(clf.models_) == ["a", "b", "c"]
    for label in clf.classes_:
        rows = X[y == label]
        assert all(rows[c].nunique() == X[c].nunique() for c in X)  # so the states agree
        expected = tl.chow_liu(rows, alpha=0.5)
        got = clf.models_[label]
        assert set(got.graph.edges) == set(expected.graph.edges)
        for v in X.columns:
            np.testing.assert_allclose(got.cpt(v), expected.cpt(v), atol=1e-12)
    with pytest.raises(AttributeError, match="models_"):
        _ = clf.model_


def test_multinet_posterior_is_bayes_rule_over_the_class_trees(tan_data):
    _, X, y = tan_data
    clf = tl.ChowLiuMultinet().fit(X.iloc[:500], y.iloc[:500])
    X_test = X.iloc[500:600]
    log_joint = np.column_stack(
        [
            np.log(np.mean(y.iloc[:500] == c)) + clf.models_[c].log_likelihood(X_test, per_row=True)
            for c in clf.classes_
        ]
    )
    post = np.exp(log_joint - log_joint.max(axis=1, keepdims=True))
    np.testing.assert_allclose(
        clf.predict_proba(X_test), post / post.sum(axis=1, keepdims=True), atol=1e-12
    )


# ---------------------------------------------------------------- missing values
def _brute_force_joint(clf, row: pd.Series) -> np.ndarray:
    """p(x_observed, c) for every class: the complete joint (a product of CPT entries)
    summed over the missing features (``marginal_probability``), times the class prior
    for a multinet (one network per class)."""
    out = np.zeros(len(clf.classes_))
    for c, label in enumerate(clf.classes_):
        if isinstance(clf, tl.ChowLiuMultinet):
            prior = np.exp(clf.class_log_prior_[c])
            out[c] = prior * marginal_probability(clf.models_[label], row.to_dict())
        else:
            out[c] = marginal_probability(clf.model_, {**row.to_dict(), clf.class_name_: label})
    return out


@pytest.mark.parametrize("C", CLASSIFIERS)
def test_missing_features_are_summed_out_exactly(C, tan_data):
    _, X, y = tan_data
    clf = C(alpha=0.5, numbers="states").fit(X.iloc[:800], y.iloc[:800])
    rng = np.random.default_rng(5)
    rows = X.iloc[800:812].astype(float)  # a float copy so NaN can go in
    for r in range(len(rows)):
        drop = rng.choice(X.columns, size=r % 4 + (r == 11) * 4, replace=False)
        rows.iloc[r, [X.columns.get_loc(c) for c in drop]] = np.nan
    expected = np.array([_brute_force_joint(clf, rows.iloc[r]) for r in range(len(rows))])
    np.testing.assert_allclose(np.exp(clf.predict_joint_log_proba(rows)), expected, rtol=1e-10)
    np.testing.assert_allclose(
        clf.predict_proba(rows), expected / expected.sum(axis=1, keepdims=True), atol=1e-12
    )


@pytest.mark.parametrize("C", CLASSIFIERS)
def test_all_features_missing_gives_the_class_prior(C, tan_data):
    _, X, y = tan_data
    clf = C().fit(X, y)
    empty = pd.DataFrame({c: [np.nan] for c in X.columns})
    freq = y.value_counts(normalize=True).sort_index().to_numpy()
    np.testing.assert_allclose(clf.predict_proba(empty)[0], freq, atol=1e-12)


# ---------------------------------------------------------------- pgmpy agreement
@pytest.mark.parametrize("C", [tl.NaiveBayes, tl.TAN])
def test_pgmpy_variable_elimination_gives_the_same_posterior(C):
    from pgmpy.inference import VariableElimination

    df = pd.read_csv("datasets/asia.csv")
    X, y = df.drop(columns="dysp"), df["dysp"]
    clf = C(alpha=0.5).fit(X, y)
    bn = clf.model_.to_pgmpy()
    ve = VariableElimination(bn)
    rows = X.drop_duplicates().head(12).copy()
    rows.iloc[::3, 2] = np.nan  # some rows with a missing feature: left out of the evidence
    proba = clf.predict_proba(rows)
    for r in range(len(rows)):
        evidence = {k: v for k, v in rows.iloc[r].items() if not pd.isna(v)}
        q = ve.query(["dysp"], evidence=evidence, show_progress=False)
        expected = [q.values[q.state_names["dysp"].index(c)] for c in clf.classes_]
        np.testing.assert_allclose(proba[r], expected, rtol=0, atol=1e-10)


# ---------------------------------------------------------------- scikit-learn integration
def test_gridsearch_tan_inside_a_pipeline_and_cross_val_score():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    pipe = Pipeline(
        [
            ("bins", KBinsDiscretizer(n_bins=4, encode="ordinal", strategy="uniform")),
            ("search", GridSearchCV(tl.TAN(unseen="ignore"), {"alpha": [0.1, 1.0]}, cv=3)),
        ]
    )
    pipe.fit(X, y)
    assert pipe.named_steps["search"].best_params_["alpha"] in (0.1, 1.0)
    assert pipe.score(X, y) > 0.85
    outer = GridSearchCV(
        Pipeline(
            [
                ("bins", KBinsDiscretizer(n_bins=4, encode="ordinal", strategy="uniform")),
                ("clf", tl.NaiveBayes(unseen="ignore")),
            ]
        ),
        {"clf__alpha": [0.1, 1.0]},
        cv=3,
    ).fit(X, y)
    assert outer.best_score_ > 0.8
    for C in CLASSIFIERS:
        pipe = Pipeline(
            [
                ("bins", KBinsDiscretizer(n_bins=4, encode="ordinal", strategy="uniform")),
                ("clf", C(unseen="ignore")),
            ]
        )
        assert cross_val_score(pipe, X, y, cv=5).mean() > 0.8


@pytest.mark.parametrize("C", CLASSIFIERS)
def test_clone_and_params(C):
    est = C(alpha=0.3, unseen="ignore", class_prior=[0.5, 0.5])
    copy = clone(est)
    assert copy.get_params() == est.get_params() and copy is not est
    assert not hasattr(copy, "classes_")
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        copy.predict(pd.DataFrame({"a": [1]}))
    fitted = est.fit(pd.DataFrame({"a": [0, 1, 1, 0]}), [0, 1, 1, 1])
    assert fitted is est and clone(fitted).get_params() == est.get_params()


def test_numpy_arrays_are_named_x0_x1():
    X = np.array([[0, 1], [1, 1], [1, 0], [0, 0], [1, 1]])
    y = np.array([0, 1, 1, 0, 1])
    clf = tl.TAN().fit(X, y)
    assert list(clf.feature_names_in_) == ["x0", "x1"]
    assert clf.class_name_ == "class"
    np.testing.assert_allclose(
        clf.predict_proba(X), clf.predict_proba(pd.DataFrame(X, columns=["x0", "x1"]))
    )


# ---------------------------------------------------------------- many features
def test_no_underflow_with_1000_features():
    rng = np.random.default_rng(11)
    n, d = 300, 1000
    y = rng.integers(0, 3, size=n)
    X = pd.DataFrame(
        np.where(
            rng.random((n, d)) < 0.7, (y[:, None] + np.arange(d)) % 2, rng.integers(0, 2, (n, d))
        ),
        columns=[f"f{j}" for j in range(d)],
    )
    clf = tl.NaiveBayes().fit(X, y)
    cnb = CategoricalNB(alpha=1.0, min_categories=2).fit(X.to_numpy(), y)
    test = X.iloc[:20].astype(float)
    test.iloc[::2, ::7] = np.nan  # rows with missing values take the sum-product path
    # the reference: CategoricalNB's log tables, summed over the observed features only
    codes = test.to_numpy()
    expected = np.tile(cnb.class_log_prior_, (len(test), 1))
    for j in range(d):
        seen = ~np.isnan(codes[:, j])
        expected[seen] += cnb.feature_log_prob_[j][:, codes[seen, j].astype(int)].T
    got = clf.predict_joint_log_proba(test)
    assert np.isfinite(got).all() and expected.min() < -500  # far beyond exp underflow range
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    log_post = clf.predict_log_proba(test)
    np.testing.assert_allclose(
        log_post, expected - np.logaddexp.reduce(expected, axis=1)[:, None], atol=1e-8
    )
    assert np.isfinite(log_post).all()


def test_tan_posterior_stays_finite_when_the_classes_differ_by_over_745_nats():
    rng = np.random.default_rng(12)
    n, d = 3000, 450  # enough rows that the rare (class, parent) cells are well estimated
    y = rng.integers(0, 2, size=n)
    X = pd.DataFrame(
        np.where(
            rng.random((n, d)) < 0.95, (y[:, None] + np.arange(d)) % 2, rng.integers(0, 2, (n, d))
        ),
        columns=[f"f{j}" for j in range(d)],
    )
    tan = tl.TAN().fit(X, y)
    test = X.iloc[:10].astype(float)
    test.iloc[::2, ::10] = np.nan  # rows with missing values take the sum-product path
    joint = tan.predict_joint_log_proba(test)
    assert np.isfinite(joint).all()
    assert (joint.max(axis=1) - joint.min(axis=1)).min() > 745  # exp() of the gap underflows
    log_post = tan.predict_log_proba(test)
    np.testing.assert_allclose(
        log_post, joint - np.logaddexp.reduce(joint, axis=1)[:, None], atol=1e-8
    )
    np.testing.assert_array_equal(tan.predict(test), y[:10])


# ---------------------------------------------------------------- decisions and ranking
def test_minimum_expected_loss_decision():
    X, y = _categorical_nb_frame(300, np.random.default_rng(4))
    clf = tl.NaiveBayes().fit(X, y)
    proba = clf.predict_proba(X)
    zero_one = 1 - np.eye(3)
    np.testing.assert_array_equal(clf.predict(X, loss=zero_one), clf.predict(X))
    L = np.array([[0, 1, 1], [1, 0, 1], [20, 20, 0]])  # missing a true "z" costs 20
    expected = np.array(["x", "y", "z"])[np.argmin(proba @ L, axis=1)]
    np.testing.assert_array_equal(clf.predict(X, loss=L), expected)
    assert (clf.predict(X, loss=L) == "z").sum() > (clf.predict(X) == "z").sum()
    labelled = pd.DataFrame(L, index=["x", "y", "z"], columns=["x", "y", "z"]).iloc[::-1, ::-1]
    np.testing.assert_array_equal(clf.predict(X, loss=labelled), expected)
    with pytest.raises(tl.TreelearnError, match="3 x 3"):
        clf.predict(X, loss=np.eye(2))


def test_loss_dataframe_labelled_by_bool_classes():
    X = pd.DataFrame({"a": ["u", "v", "u", "v", "u", "v"]})
    y = pd.Series([True, False, True, False, False, True])
    # maximum likelihood's plain counts: every class arc kept, not averaged
    clf = tl.NaiveBayes(alpha=0, class_arcs="all").fit(X, y)  # p(True | u) = 2/3, p(True | v) = 1/3
    # missing a true True costs 5: predict True when 5 p(True) > p(False), i.e. p(True) > 1/6
    L = pd.DataFrame([[0, 1], [5, 0]], index=[False, True], columns=[False, True])
    assert clf.predict(X.iloc[:2], loss=L).tolist() == [True, True]
    assert clf.predict(X.iloc[:2], loss=L.iloc[::-1, ::-1]).tolist() == [True, True]
    assert clf.predict(X.iloc[:2]).tolist() == [True, False]


def test_rank_features_by_mutual_information_with_the_class():
    X, y = _categorical_nb_frame(300, np.random.default_rng(6))
    ranking = tl.rank_features(X, y)
    expected = pd.Series({c: mutual_info_score(X[c], y) for c in X.columns}).sort_values(
        ascending=False
    )
    assert list(ranking.index) == list(expected.index)
    np.testing.assert_allclose(ranking.to_numpy(), expected.to_numpy(), atol=1e-12)


# ---------------------------------------------------------------- save and load
@pytest.mark.parametrize("C", CLASSIFIERS)
def test_save_load_round_trip(C, tmp_path, tan_data):
    _, X, y = tan_data
    clf = C(alpha=0.5, class_prior=[0.2, 0.3, 0.5]).fit(X.iloc[:500], y.iloc[:500])
    from treelearn import _io as tl_io

    again = C.from_dict(clf.to_dict())
    path = tmp_path / "clf.json"
    tl_io.save(clf, path)
    for other in (again, tl_io.load(path)):
        assert type(other) is C and other.get_params() == clf.get_params()
        assert list(other.classes_) == list(clf.classes_)
        assert list(other.feature_names_in_) == list(clf.feature_names_in_)
        np.testing.assert_array_equal(other.class_log_prior_, clf.class_log_prior_)
        np.testing.assert_array_equal(
            other.predict_proba(X.iloc[500:700]), clf.predict_proba(X.iloc[500:700])
        )
        if C is tl.ChowLiuMultinet:
            assert all(other.models_[c] == clf.models_[c] for c in clf.classes_)
        else:
            assert other.model_ == clf.model_


def test_categorical_class_with_unsorted_and_unused_categories(tmp_path):
    # the class is a Categorical declared ["z", "m", "unused"]; a = "p" exactly when y = "z"
    y = pd.Series(pd.Categorical(["z"] * 6 + ["m"] * 2, categories=["z", "m", "unused"]), name="y")
    X = pd.DataFrame({"a": ["p"] * 6 + ["q"] * 2})
    # maximum likelihood's plain counts: every class arc kept, not averaged
    clf = tl.NaiveBayes(alpha=0, class_arcs="all").fit(X, y)
    assert clf.classes_.tolist() == ["m", "z"]  # sorted observed labels, as scikit-learn
    clf.save(tmp_path / "clf.json")
    # every row sampled from the fitted network keeps the pairing of the training data
    for model in (clf.model_, tl.load(tmp_path / "clf.json").model_):
        sample = model.sample(200, random_state=0)
        assert set(zip(sample["a"].astype(str), sample["y"].astype(str))) == {
            ("p", "z"),
            ("q", "m"),
        }
        assert model.query(["y"]).to_dict() == pytest.approx({"m": 0.25, "z": 0.75})


@pytest.mark.parametrize("C", CLASSIFIERS)
def test_tuple_labels_and_feature_names_survive_save_and_load(C, tmp_path):
    # tuple class labels, and tuple feature names (MultiIndex columns)
    X = pd.DataFrame({("b", 1): [0, 1, 0, 1, 1], ("c", 2): [0, 0, 1, 1, 0]})
    y = pd.Series([(1, "t"), (2, "t"), (1, "t"), (2, "t"), (2, "t")], dtype=object)
    clf = C(alpha=1).fit(X, y)
    assert clf.feature_names_in_.tolist() == [("b", 1), ("c", 2)]
    plain = C(alpha=1).fit(
        X.set_axis(["b", "c"], axis=1), y.map({(1, "t"): "one", (2, "t"): "two"})
    )
    path = tmp_path / "clf.json"
    clf.save(path)
    again = tl.load(path)
    assert again.classes_.shape == (2,)
    assert again.feature_names_in_.tolist() == [("b", 1), ("c", 2)]
    assert again.predict(X).tolist() == [(1, "t"), (2, "t"), (1, "t"), (2, "t"), (2, "t")]
    np.testing.assert_allclose(
        again.predict_proba(X), plain.predict_proba(X.set_axis(["b", "c"], axis=1))
    )


# ---------------------------------------------------------------- bad input
@pytest.fixture
def small():
    X = pd.DataFrame({"a": ["u", "v", "u", "v", "u"], "b": [1, 2, 2, 1, 1]})
    y = pd.Series(["p", "q", "q", "p", "q"], name="target")
    return X, y


def test_y_with_missing_values(small):
    X, y = small
    y = y.copy()
    y[2] = None
    with pytest.raises(tl.MissingValuesError, match=r"y has 1 missing class label.*rows \[2\]"):
        tl.NaiveBayes().fit(X, y)


def test_single_class(small):
    X, _ = small
    with pytest.raises(tl.ClassLabelError, match="single class 'p'"):
        tl.TAN().fit(X, ["p"] * 5)


def test_y_of_the_wrong_length(small):
    X, y = small
    with pytest.raises(tl.ClassLabelError, match="5 rows but y has 4"):
        tl.NaiveBayes(numbers="states").fit(X, y[:4])


def test_class_column_inside_x(small):
    X, y = small
    with pytest.raises(tl.ClassColumnError, match="'target' is also a column of X"):
        tl.NaiveBayes().fit(X.assign(target=y), y)
    clf = tl.NaiveBayes().fit(X, y)
    with pytest.raises(tl.FeatureMismatchError, match="'target' is the class: drop it"):
        clf.predict(X.assign(target=y))


def test_feature_mismatch_at_predict_time(small):
    X, y = small
    clf = tl.ChowLiuMultinet().fit(X, y)
    with pytest.raises(tl.FeatureMismatchError, match=r"missing \['b'\]"):
        clf.predict(X[["a"]])
    with pytest.raises(tl.FeatureMismatchError, match=r"unexpected \['c'\]"):
        clf.predict(X.assign(c=1))
    with pytest.raises(tl.FeatureMismatchError, match="X has 3 features"):
        clf.predict(np.zeros((2, 3)))
    # the same columns in another order are matched by name
    np.testing.assert_allclose(clf.predict_proba(X[["b", "a"]]), clf.predict_proba(X))


@pytest.mark.parametrize("C", CLASSIFIERS)
def test_unseen_category_policies(C, small):
    X, y = small
    new = pd.DataFrame({"a": ["w", "u"], "b": [1, 3]})
    with pytest.raises(tl.UnseenStateError, match=r"column 'a' has value\(s\) 'w'"):
        C().fit(X, y).predict(new)
    ignoring = C(unseen="ignore").fit(X, y)
    as_missing = pd.DataFrame({"a": [np.nan, "u"], "b": [1, np.nan]})
    np.testing.assert_allclose(ignoring.predict_proba(new), ignoring.predict_proba(as_missing))


def test_bad_parameters_and_columns(small):
    X, y = small
    with pytest.raises(tl.StructureError, match="root must be a feature"):
        tl.TAN(numbers="states", root="target").fit(X, y)
    with pytest.raises(tl.ColumnNotFoundError, match="root 'z' is not a feature"):
        tl.ChowLiuMultinet(numbers="states", root="z").fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        tl.NaiveBayes(numbers="states", alpha=-1).fit(X, y)
    with pytest.raises(ValueError, match="unseen"):
        tl.NaiveBayes(numbers="states", unseen="skip").fit(X, y)
    with pytest.raises(ValueError, match="class_prior must be 2"):
        tl.NaiveBayes(numbers="states", class_prior=[0.2, 0.3, 0.5]).fit(X, y)
    with pytest.raises(tl.NumericColumnError, match="column 'r'"):
        tl.TAN(numbers="states").fit(X.assign(r=np.linspace(0, 1, 5) + 0.01), y)


def test_inputs_are_not_modified(small):
    X, y = small
    X0, y0 = X.copy(), y.copy()
    for C in CLASSIFIERS:
        C().fit(X, y).predict_proba(X)
    tl.rank_features(X, y)
    pd.testing.assert_frame_equal(X, X0)
    pd.testing.assert_series_equal(y, y0)


def test_zero_probability_rows_warn_and_get_a_uniform_posterior():
    X = pd.DataFrame({"a": ["u", "v", "u", "v"], "b": [1, 2, 1, 2]})
    y = pd.Series(["p", "q", "p", "q"])
    # maximum likelihood's plain counts: every class arc kept, not averaged
    clf = tl.NaiveBayes(alpha=0, class_arcs="all").fit(X, y)
    # maximum likelihood: a = "u" never occurs with "q" and b = 2 never with "p"
    with pytest.warns(RuntimeWarning, match="probability zero under every class"):
        proba = clf.predict_proba(pd.DataFrame({"a": ["u"], "b": [2]}))
    np.testing.assert_allclose(proba, [[0.5, 0.5]])


# ---------------------------------------------------------------- m-estimate on every classifier
def test_m_estimate_cpts_for_every_classifier():
    """CPTs under prior="m-estimate" are (N + m / k) / (N_parents + m), counted here by pandas."""
    rng = np.random.default_rng(31)
    df = pd.DataFrame(
        {"a": rng.integers(0, 3, 300), "b": rng.integers(0, 2, 300), "c": rng.integers(0, 4, 300)}
    )
    df["y"] = np.where((df["a"] + df["b"] + rng.integers(0, 2, 300)) % 2 == 0, "u", "v")
    X, y, m = df[["a", "b", "c"]], df["y"], 2.5

    def m_estimate(frame, parents, child):
        k = df[child].nunique()  # the states of the whole training set
        joint = frame.groupby(parents + [child]).size()
        totals = frame.groupby(parents).size()
        return {
            key: (n + m / k) / (totals[key[:-1] if len(key) > 2 else key[0]] + m)
            for key, n in joint.items()
        }

    for clf in (
        # hand-counted plain CPTs: every class arc kept (class_arcs="all"), not averaged
        tl.NaiveBayes(numbers="states", prior="m-estimate", m=m, class_arcs="all"),
        # hand-counted plain CPTs: every class arc kept (class_arcs="all"), not averaged
        tl.TAN(numbers="states", prior="m-estimate", m=m, class_arcs="all"),
    ):
        model = clf.fit(X, y).model_
        for v in X.columns:
            parents = model.parents(v)
            for key, expected in m_estimate(df, parents, v).items():
                index = tuple(model.states[u].index(s) for u, s in zip(parents + [v], key))
                assert model.cpt(v)[index] == pytest.approx(expected, rel=1e-12)
    multinet = tl.ChowLiuMultinet(numbers="states", prior="m-estimate", m=m).fit(X, y)
    for label, tree in multinet.models_.items():
        rows = df[df["y"] == label]
        for v in X.columns:
            parents = tree.parents(v)
            if not parents:
                k = df[v].nunique()
                for s, n in rows[v].value_counts().items():
                    assert tree.cpt(v)[tree.states[v].index(s)] == pytest.approx(
                        (n + m / k) / (len(rows) + m), rel=1e-12
                    )
                continue
            for key, expected in m_estimate(rows, parents, v).items():
                index = tuple(tree.states[u].index(s) for u, s in zip(parents + [v], key))
                assert tree.cpt(v)[index] == pytest.approx(expected, rel=1e-12)
    with pytest.raises(tl.TreelearnError, match="prior"):
        tl.NaiveBayes(numbers="states", prior="laplace").fit(X, y)


# ---------------------------------------------------------------------- Hypothesis: random tables, weights
@FAST
@given(tables(), st.sampled_from([0.5, 1.0, 2.0]))
def test_naive_bayes_equals_categorical_nb_on_random_weighted_tables(data, alpha):
    df, w = data
    X, y = df.iloc[:, :-1], df.iloc[:, -1].to_numpy()
    try:
        # the peer's plain CPTs: every class arc kept (class_arcs="all"), not averaged
        clf = tl.NaiveBayes(numbers="states", alpha=alpha, class_arcs="all").fit(
            X, y, sample_weight=w
        )
    except tl.TreelearnError:
        return
    cards = [int(X[c].max()) + 1 for c in X.columns]
    cnb = CategoricalNB(alpha=alpha, min_categories=cards).fit(X.to_numpy(), y, sample_weight=w)
    np.testing.assert_allclose(
        clf.predict_proba(X), cnb.predict_proba(X.to_numpy()), rtol=0, atol=1e-10
    )
