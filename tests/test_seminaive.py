"""KDB, AODE, penalised TAN/Chow-Liu forests, edge constraints and m-estimates.

Every expected value is recomputed here from its definition: counts by pandas
``groupby``, mutual information by scikit-learn's ``mutual_info_score``, the AODE
and KDB posteriors by evaluating the formulas row by row, and the best forests
and constrained trees by brute force over every edge subset.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from functools import partial

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import three_small_columns
from oracles import best_forest, best_spanning_tree, conditional_mutual_information
from sklearn.base import clone
from sklearn.metrics import mutual_info_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score

import treelearn as tl
from treelearn.classifiers._seminaive import kdb_parents
from treelearn.sources._count import count
from treelearn.stats._information import mutual_information_matrix
from treelearn.structure._trees import penalised_forest, spanning_skeleton


# ---------------------------------------------------------------- data and oracles
def dependent_data(
    n: int, d: int, seed: int, cards=(2, 3, 2, 4, 3, 2)
) -> tuple[pd.DataFrame, pd.Series]:
    """Features that depend on the class and on each other (a chain with noise)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    cols = {}
    prev = rng.integers(0, 2, n)
    for j in range(d):
        k = cards[j % len(cards)]
        noise = rng.integers(0, k, n)
        keep = rng.random(n) < 0.5 + 0.08 * j
        cols[f"f{j}"] = np.where(keep, (prev + y + j) % k, noise)
        prev = cols[f"f{j}"]
    return pd.DataFrame(cols), pd.Series(np.array(["a", "b", "c"])[y], name="C")


def cpt_by_groupby(df: pd.DataFrame, node: str, parents: list[str], alpha: float, states: dict):
    """p(node = v | parents = u) by the Lidstone formula, from groupby counts; a function."""
    k = len(states[node])
    fam = df.groupby([*parents, node]).size() if parents else df.groupby(node).size()
    par = df.groupby(parents).size() if parents else None
    n = len(df)

    def p(u: tuple, v) -> float:
        num = fam.get((*u, v), 0) if parents else fam.get(v, 0)
        den = par.get(u if len(u) > 1 else u[0], 0) if parents else n
        return (num + alpha) / (den + k * alpha)

    return p


# ---------------------------------------------------------------- KDB
@pytest.mark.parametrize("k", [1, 2, 3])
def test_kdb_structure_follows_the_definition(k):
    X, y = dependent_data(600, 6, seed=1)
    clf = tl.KDB(k=k).fit(X, y)
    names = list(X.columns)
    class_mi = {f: mutual_info_score(X[f], y) for f in names}
    order = sorted(names, key=lambda f: (-round(class_mi[f], 12), names.index(f)))
    assert list(clf.feature_order_) == order
    for r, f in enumerate(order):
        earlier = sorted(
            order[:r],
            key=lambda g: (-round(conditional_mutual_information(X, y, f, g), 12), names.index(g)),
        )
        assert clf.model_.parents(f) == ["C", *earlier[: min(k, r)]]


def test_kdb_parents_ties_go_to_column_order():
    # every value ties: rank by column order; parents are the earliest-ranked columns
    out = kdb_parents(np.zeros(4), np.zeros((4, 4)), k=2)
    assert out == [(0, []), (1, [0]), (2, [0, 1]), (3, [0, 1])]


@pytest.mark.parametrize("k", [1, 2])
def test_kdb_posterior_is_the_product_of_groupby_cpts(k):
    X, y = dependent_data(300, 5, seed=2)
    alpha = 0.5
    # hand-counted plain CPTs: every class arc kept (class_arcs="all"), not averaged
    clf = tl.KDB(numbers="states", k=k, alpha=alpha, class_arcs="all").fit(X, y)
    df = X.assign(C=y)
    states = {c: sorted(df[c].unique()) for c in df.columns}
    cpts = {
        f: (clf.model_.parents(f), cpt_by_groupby(df, f, clf.model_.parents(f), alpha, states))
        for f in X.columns
    }
    test = X.iloc[::7]
    expected = []
    for _, row in test.iterrows():
        joint = []
        for c in clf.classes_:
            lp = np.log((y == c).mean())
            full = {**row.to_dict(), "C": c}
            for f, (parents, p) in cpts.items():
                lp += np.log(p(tuple(full[q] for q in parents), full[f]))
            joint.append(lp)
        joint = np.exp(np.array(joint) - max(joint))
        expected.append(joint / joint.sum())
    np.testing.assert_allclose(clf.predict_proba(test), np.array(expected), rtol=1e-10)


def test_kdb_zero_is_naive_bayes_and_missing_values_are_summed_out():
    X, y = dependent_data(300, 5, seed=3)
    np.testing.assert_allclose(
        tl.KDB(k=0).fit(X, y).predict_proba(X),
        tl.NaiveBayes().fit(X, y).predict_proba(X),
        rtol=1e-12,
    )
    clf = tl.KDB(k=2).fit(X, y)
    row = X.iloc[[4]].astype(float)
    row.iloc[0, 2] = np.nan
    # brute force: sum the joint over the missing feature's states
    states = sorted(X["f2"].unique())
    full = pd.concat([X.iloc[[4]].assign(f2=s) for s in states])
    expected = np.logaddexp.reduce(clf.predict_joint_log_proba(full), axis=0)
    np.testing.assert_allclose(clf.predict_joint_log_proba(row)[0], expected, rtol=1e-10)


def test_kdb_m_estimate_is_lidstone_with_alpha_m_over_r():
    X, y = dependent_data(200, 4, seed=4, cards=(3, 3, 3, 3))
    m = 2.0  # every feature has 3 states: alpha = m / 3
    a = tl.KDB(k=1, prior="m-estimate", m=m).fit(X, y)
    b = tl.KDB(k=1, alpha=m / 3).fit(X, y)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-12)


# ---------------------------------------------------------------- AODE
def aode_posterior(X, y, test, alpha, min_count):
    """The AODE formula of the docstring, row by row, from groupby counts."""
    df = X.assign(C=y)
    classes = sorted(y.unique())
    feats = list(X.columns)
    n = len(df)
    k = {f: X[f].nunique() for f in feats}
    out = []
    for _, row in test.iterrows():
        supers = [f for f in feats if (X[f] == row[f]).sum() >= min_count]
        joint = []
        for c in classes:
            in_c = df[c == df.C]
            if not supers:
                p = (len(in_c) + alpha) / (n + alpha * len(classes))
                for f in feats:
                    p *= ((in_c[f] == row[f]).sum() + alpha) / (len(in_c) + alpha * k[f])
                joint.append(p)
                continue
            terms = []
            for i in supers:
                both = in_c[in_c[i] == row[i]]
                p = (len(both) + alpha) / (n + alpha * len(classes) * k[i])
                for f in feats:
                    if f != i:  # nothing to go on (alpha = 0, unseen (y, x_i)): uniform
                        den = len(both) + alpha * k[f]
                        p *= ((both[f] == row[f]).sum() + alpha) / den if den else 1 / k[f]
                terms.append(p)
            joint.append(np.mean(terms))
        joint = np.array(joint)
        out.append(joint / joint.sum())
    return np.array(out)


@pytest.mark.parametrize("alpha,min_count", [(1.0, 1), (0.5, 30), (1.0, 10_000)])
def test_aode_matches_the_formula(alpha, min_count):
    X, y = dependent_data(250, 5, seed=5)
    test = X.iloc[::9]
    clf = tl.AODE(numbers="states", alpha=alpha, min_count=min_count).fit(X, y)
    np.testing.assert_allclose(
        clf.predict_proba(test), aode_posterior(X, y, test, alpha, min_count), rtol=1e-9
    )


def test_aode_networks_are_the_terms_of_the_average():
    X, y = dependent_data(200, 4, seed=6)
    clf = tl.AODE().fit(X, y)
    assert sorted(clf.models_) == list(X.columns)
    row = X.iloc[[3]]
    for c_index, c in enumerate(clf.classes_):
        terms = [
            np.exp(m.log_likelihood(row.assign(C=c), per_row=True)[0]) for m in clf.models_.values()
        ]
        assert np.isclose(np.log(np.mean(terms)), clf.predict_joint_log_proba(row)[0, c_index])
    assert clf.models_["f2"].parents("f0") == ["C", "f2"]


def test_aode_missing_value_drops_out_of_every_term():
    X, y = dependent_data(200, 4, seed=7)
    clf = tl.AODE(numbers="states", alpha=1.0).fit(X, y)
    row = X.iloc[[5]].astype(float)
    row["f1"] = np.nan
    # with f1 missing: the same formula over the other features (f1 never a super-parent)
    # and its factor left out; counts over all rows (no missing values in training)
    rest = X.drop(columns="f1")
    expected = aode_posterior(rest, y, rest.iloc[[5]], 1.0, 1)
    np.testing.assert_allclose(clf.predict_proba(row), expected, rtol=1e-10)


def test_aode_alpha_zero_gives_zero_probability_terms():
    X = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 0, 1]})
    y = pd.Series([0, 0, 0, 1])
    clf = tl.AODE(numbers="states", alpha=0).fit(X, y)
    # p(y=1, a=0) = 0 and p(b=0 | y=1, ...) = 0: class 1 is impossible for row (0, 0)
    assert clf.predict_proba(X.iloc[[0]])[0].tolist() == [1.0, 0.0]
    np.testing.assert_allclose(clf.predict_proba(X), aode_posterior(X, y, X, 0.0, 1))


def test_aode_save_and_load_round_trip():
    X, y = dependent_data(150, 4, seed=8)
    clf = tl.AODE(min_count=20).fit(X, y)
    path = os.path.join(tempfile.mkdtemp(), "aode.json")
    clf.save(path)
    back = tl.load(path)
    np.testing.assert_allclose(back.predict_proba(X), clf.predict_proba(X), rtol=1e-12)
    kdb = tl.KDB(k=2).fit(X, y)
    kdb.save(path)
    back = tl.load(path)
    assert list(back.feature_order_) == list(kdb.feature_order_)
    np.testing.assert_allclose(back.predict_proba(X), kdb.predict_proba(X), rtol=1e-12)


@pytest.mark.parametrize("make", [lambda: tl.AODE(), lambda: tl.KDB(k=2)])
def test_integer_weights_equal_repeated_rows(make):
    X, y = dependent_data(120, 4, seed=9)
    w = np.random.default_rng(0).integers(0, 4, len(X))
    a = make().fit(X, y, sample_weight=w)
    b = make().fit(X.loc[X.index.repeat(w)], y.loc[y.index.repeat(w)])
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-12)


@pytest.mark.parametrize("make", [lambda: tl.AODE(), lambda: tl.KDB(k=2), lambda: tl.KDB(k=1)])
def test_predictions_do_not_depend_on_column_order(make):
    X, y = dependent_data(300, 5, seed=10)
    perm = list(reversed(X.columns))
    a = make().fit(X, y).predict_proba(X)
    b = make().fit(X[perm], y).predict_proba(X[perm])
    np.testing.assert_allclose(a, b, rtol=1e-10)


def test_scikit_learn_behaviours():
    X, y = dependent_data(300, 4, seed=11)
    for est in (tl.AODE(alpha=0.5), tl.KDB(k=1)):
        c = clone(est)
        assert c.get_params() == est.get_params()
        scores = cross_val_score(c, X, y, cv=StratifiedKFold(5))
        assert np.isfinite(scores).all() and scores.mean() > 0.5
    grid = GridSearchCV(tl.KDB(), {"k": [0, 1, 2]}, cv=3).fit(X, y)
    assert grid.best_params_["k"] in (0, 1, 2)
    with pytest.raises(tl.TreelearnError, match="k == -1"):
        tl.KDB(k=-1).fit(X, y)
    with pytest.raises(tl.TreelearnError, match="min_count"):
        tl.AODE(min_count=-2).fit(X, y)


# ---------------------------------------------------------------- penalised forests
@pytest.mark.parametrize("score", ["bic", "aic"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tan_forest_is_the_best_penalised_forest(score, seed):
    X, y = dependent_data(120, 5, seed=20 + seed)
    names = list(X.columns)
    n, n_classes = len(X), y.nunique()
    k = [X[f].nunique() for f in names]
    gain = np.array(
        [
            [n * conditional_mutual_information(X, y, a, b) if a != b else 0 for b in names]
            for a in names
        ]
    )
    dof = np.array([[n_classes * (ka - 1) * (kb - 1) for kb in k] for ka in k], dtype=float)
    penalty = dof * (np.log(n) / 2 if score == "bic" else 1.0)
    pairs = itertools.combinations(range(len(names)), 2)
    scores = {(names[i], names[j]): gain[i, j] - penalty[i, j] for i, j in pairs}
    _, expected = best_forest(names, scores, 1e-9)  # every forest scored
    clf = tl.TAN(numbers="states", forest=score).fit(X, y)
    got = {frozenset(e) for e in clf.feature_tree_.edges()}
    assert got == expected
    assert len(got) > 0 or score == "bic"  # the AIC forest keeps something here


def test_tan_forest_roots_every_tree_and_predicts():
    X, y = dependent_data(60, 5, seed=30)
    clf = tl.TAN(forest="bic").fit(X, y)
    for tree in nx.connected_components(clf.feature_tree_):
        roots = [f for f in tree if clf.model_.parents(f) == ["C"]]
        assert len(roots) == 1  # each tree rooted separately, at its first column
        assert roots[0] == min(tree, key=list(X.columns).index)
    assert np.isfinite(clf.predict_log_proba(X)).all()


def test_chow_liu_aic_forest_is_brute_force_best():
    X, _ = dependent_data(80, 5, seed=31)
    names = list(X.columns)
    n = len(X)
    k = [X[f].nunique() for f in names]
    gain = np.array(
        [[n * mutual_info_score(X[a], X[b]) if a != b else 0 for b in names] for a in names]
    )
    penalty = np.array([[(ka - 1) * (kb - 1) for kb in k] for ka in k], dtype=float)
    model = tl.chow_liu(X, forest="aic")
    pairs = itertools.combinations(range(len(names)), 2)
    scores = {(names[i], names[j]): gain[i, j] - penalty[i, j] for i, j in pairs}
    assert {frozenset(e) for e in model.graph.to_undirected().edges()} == (
        best_forest(names, scores, 1e-9)[1]  # every forest scored
    )


def test_bic_and_aic_forests_of_the_matrix_and_the_graph_agree():
    X, _ = dependent_data(50, 6, seed=32)
    stats = count(X)
    mi = mutual_information_matrix(stats.counts)
    for score in ("bic", "aic"):
        a = penalised_forest(tl.mi_graph(X), score)
        b = spanning_skeleton(list(X.columns), mi, stats.states, forest=score, n=len(X))
        assert list(a.edges(data=True)) == list(b.edges(data=True))


# ---------------------------------------------------------------- constraints
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_chow_liu_constrained_tree_is_brute_force_best(seed):
    X, _ = dependent_data(200, 6, seed=40 + seed)
    names = list(X.columns)
    mi = np.array([[mutual_info_score(X[a], X[b]) for b in names] for a in names])
    rng = np.random.default_rng(seed)
    pairs = [tuple(rng.choice(names, 2, replace=False)) for _ in range(4)]
    white = pairs[:1]
    black = [p for p in pairs[1:] if frozenset(p) != frozenset(white[0])]
    expected = best_spanning_tree(
        names, mi, {frozenset(p) for p in white}, {frozenset(p) for p in black}
    )
    model = tl.chow_liu(X, whitelist=white, blacklist=black)
    assert {frozenset(e) for e in model.graph.to_undirected().edges()} == expected
    tan = tl.TAN(whitelist=white, blacklist=black).fit(X, pd.Series(X["f0"] > 0, name="C"))
    assert {frozenset(p) for p in white} <= {frozenset(e) for e in tan.feature_tree_.edges()}


def test_constraint_errors_name_the_problem():
    X, _ = dependent_data(50, 4, seed=50)
    with pytest.raises(tl.StructureError, match="cycle"):
        tl.chow_liu(X, whitelist=[("f0", "f1"), ("f1", "f2"), ("f2", "f0")])
    with pytest.raises(tl.ColumnNotFoundError, match="'nope'"):
        tl.chow_liu(X, blacklist=[("f0", "nope")])
    with pytest.raises(tl.StructureError, match="both whitelisted and blacklisted"):
        tl.chow_liu(X, whitelist=[("f0", "f1")], blacklist=[("f1", "f0")])
    with pytest.raises(tl.TreelearnError, match="forest"):
        tl.TAN(forest="mdl").fit(X, X["f0"].rename("C"))


def test_blacklist_can_leave_a_forest_and_whitelist_survives_the_penalty():
    X, _ = dependent_data(50, 4, seed=51)
    names = list(X.columns)
    black = [(a, "f3") for a in names[:3]]  # f3 cannot be joined to anything
    model = tl.chow_liu(X, blacklist=black)
    assert model.graph.in_degree("f3") == 0 and model.graph.out_degree("f3") == 0
    assert model.graph.number_of_edges() == 2
    # a whitelisted edge is kept even where the penalty would drop it
    T = spanning_skeleton(names, np.zeros((4, 4)), forest=10.0, whitelist=[("f1", "f2")])
    assert list(T.edges()) == [("f1", "f2")]


# ---------------------------------------------------------------- m-estimate
def test_fit_cpts_m_estimate_by_hand():
    df = pd.DataFrame({"c": [0, 0, 0, 1], "x": ["a", "b", "b", "c"]})
    m = tl.fit_cpts(nx.DiGraph([("c", "x")]), df, prior="m-estimate", m=3.0)
    # x has r = 3 states, p = 1/3: (N + m p) / (N_c + m) = (N + 1) / (N_c + 3)
    np.testing.assert_allclose(m.cpt("x"), [[2 / 6, 3 / 6, 1 / 6], [1 / 4, 1 / 4, 2 / 4]])
    with pytest.raises(tl.TreelearnError, match="m == 0"):
        tl.fit_cpts(nx.DiGraph([("c", "x")]), df, prior="m-estimate", m=0)
    tree = tl.chow_liu(df, prior="m-estimate", m=3.0, root="c")
    np.testing.assert_allclose(tree.cpt("x"), m.cpt("x"))


# ---------------------------------------------------------------------------------- hostile inputs
SMALL, SMALL_Y = three_small_columns()  # 80 rows of 3 small columns, 80 labels


@pytest.mark.parametrize(
    "make", [tl.AODE, partial(tl.BayesianTAN, class_arcs="all")], ids=["AODE", "BayesianTAN"]
)
def test_per_class_tables_are_guarded_before_stacking(make, monkeypatch):
    # 2 classes x 5 one-hot states of the features, three 2 x 5 x 5 float arrays: 1,200
    # bytes; counting alone (7 indicators with the class) needs 928, which fits
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 8 * 3 * 2 * 5 * 5 - 1)
    X = SMALL[["a", "b"]]
    with pytest.raises(tl.ResourceLimitError, match="2 x 5 x 5, three of them"):
        make(numbers="states").fit(X, SMALL_Y)
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 8 * 3 * 2 * 5 * 5)
    make(numbers="states").fit(X, SMALL_Y)
