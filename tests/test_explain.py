"""Explanations: Shapley values and log-odds contributions against independent oracles.

* brute force: every coalition's posterior from pgmpy's VariableElimination on
  ``to_pgmpy()``, the Shapley formula written out with itertools;
* shap's ExactExplainer on ``predict_proba`` with the same background (interventional);
* identities: efficiency, the log-odds chain rule against ``predict_log_proba``, and
  the CPT terms of a complete row computed by hand.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from conftest import random_tree_network, sample_tree_network
from oracles import joint_rows, shapley_values

import treelearn as tl
from treelearn.inference._shapley import coalition_masks, shapley_matrix

ASIA = pd.read_csv("datasets/asia.csv")


def pgmpy_posterior(bn, target, evidence):
    from pgmpy.inference import VariableElimination

    q = VariableElimination(bn).query([target], evidence=evidence, show_progress=False)
    return dict(zip(q.state_names[target], q.values))


def on_scale(p_t, p_all, output):
    if output == "proba":
        return p_t
    if output == "log_proba":
        return math.log(p_t)
    others = [math.log(v) for v in p_all if v is not p_t]
    return math.log(p_t) - sum(others) / len(others)


@pytest.fixture(scope="module")
def asia_tan():
    X, y = ASIA.drop(columns="either"), ASIA["either"]
    return tl.TAN().fit(X, y), X


def test_shapley_equals_brute_force_with_pgmpy(asia_tan):
    clf, X = asia_tan
    bn = clf.to_pgmpy()
    rows = X.iloc[[0, 7, 42]]
    features = list(X.columns)
    for output in ["log_proba", "proba", "log_odds"]:
        e = clf.explain(rows, kind="shapley", output=output, target_class="yes")
        for r, (_, row) in enumerate(rows.iterrows()):
            cache = {}

            def value(S, row=row, cache=cache, output=output):
                if S not in cache:
                    post = pgmpy_posterior(bn, "either", {f: row[f] for f in S})
                    cache[S] = on_scale(post["yes"], [post["yes"], post["no"]], output)
                return cache[S]

            expected = shapley_values(value, features)
            got = e.values.iloc[r]
            assert max(abs(got[f] - expected[f]) for f in features) < 1e-10
            assert abs(e.base.iloc[r] - value(frozenset())) < 1e-12
            assert abs(e.prediction.iloc[r] - value(frozenset(features))) < 1e-12


def test_tree_model_target_in_the_middle_brute_force():
    m = tl.chow_liu(ASIA)
    target = "either"  # a branch point of the tree: the branches are independent given it
    bn = m.to_pgmpy()
    rows = ASIA.iloc[[3, 11]]
    others = [v for v in m.variables if v != target]
    exact = m.explain(rows, target, kind="shapley", output="log_odds", method="exact")
    grouped = m.explain(rows, target, kind="shapley", output="log_odds")
    assert grouped.method == "exact per independent group"
    assert np.abs(grouped.values.to_numpy() - exact.values.to_numpy()).max() < 1e-12
    for r, (_, row) in enumerate(rows.iterrows()):
        t = exact.target.iloc[r]

        def value(S, row=row, t=t):
            post = pgmpy_posterior(bn, target, {f: row[f] for f in S})
            return on_scale(post[t], list(post.values()), "log_odds")

        expected = shapley_values(value, others)
        assert max(abs(exact.values.iloc[r][f] - expected[f]) for f in others) < 1e-10


def test_every_coalition_of_a_row_in_one_pass_equals_one_by_one():
    """The tree pass (all 2^p coalitions) against the engine run on each masked row, on
    a polytree given the target (families of four: factors with two down variables)."""
    import networkx as nx

    from treelearn.inference._shapley import EngineGame, _bits_in

    rng = np.random.default_rng(3)
    edges, cpts = random_tree_network(9, [2, 3, 2, 4, 2, 3, 2, 2, 3], rng)
    df = sample_tree_network(edges, cpts, 400, rng)
    G = nx.DiGraph(
        [("x0", f"x{j}") for j in range(1, 9)]
        + [("x1", "x3"), ("x2", "x3"), ("x3", "x4"), ("x5", "x6"), ("x7", "x6")]
    )
    m = tl.fit_cpts(G, df)
    assert m.engine("x0").path == "message passing given 'x0'"
    rows = df.iloc[:4].astype(float)
    rows.iloc[1, 2] = np.nan  # a missing value: a dummy player
    codes = m.encode(rows).codes
    players = [j for j, v in enumerate(m.variables) if v != "x0"]
    game = EngineGame(m.engine("x0"), codes, players)
    one_by_one = game.log_joint(coalition_masks(8), slice(0, 4))
    table, order = game.all_coalitions(list(range(8)), slice(0, 4))
    assert np.abs(_bits_in(table, order, list(range(8))) - one_by_one).max() < 1e-12
    e = m.explain(rows, "x0", kind="shapley")
    assert e.values.loc[rows.index[1], "x2"] == pytest.approx(0.0, abs=1e-12)


def test_shapley_matrix_is_the_formula():
    C = shapley_matrix(3)
    masks = coalition_masks(3)
    for j in range(3):
        for m, S in enumerate(masks):
            s = int(S.sum())
            expected = (
                math.factorial(s - 1) * math.factorial(3 - s) / 6
                if S[j]
                else -math.factorial(s) * math.factorial(3 - s - 1) / 6
            )
            assert C[m, j] == pytest.approx(expected, abs=1e-15)


def test_interventional_equals_shap_exact_explainer():
    shap = pytest.importorskip("shap")
    rng = np.random.default_rng(0)
    edges, cpts = random_tree_network(6, [2, 3, 2, 2, 3, 2], rng)
    df = sample_tree_network(edges, cpts, 600, rng)
    X, y = df.drop(columns="x0").to_numpy(), df["x0"].to_numpy()
    clf = tl.TAN().fit(X, y)
    background = X[:20]
    rows = X[100:103]
    explainer = shap.ExactExplainer(
        clf.predict_proba, shap.maskers.Independent(background, max_samples=20)
    )
    theirs = explainer(rows)
    ours = clf.explain(
        rows,
        kind="shapley",
        conditional=False,
        background=background,
        output="proba",
        target_class=1,
    )
    assert np.abs(ours.values.to_numpy() - theirs.values[:, :, 1]).max() < 1e-10
    assert np.abs(ours.base.to_numpy() - theirs.base_values[:, 1]).max() < 1e-10


@pytest.mark.parametrize("target", ["either", "smoke", "dysp"])
def test_interventional_family_sums_equal_the_engine(target):
    # complete hybrid rows are scored as sums of the families' log CPT entries; the
    # engine's message passing on the same hybrid rows is the oracle (a root, a middle
    # and a leaf target: the target's own CPT is then a factor over its parents)
    from treelearn.inference._shapley import EngineGame, coalition_masks

    m = tl.chow_liu(ASIA)
    codes = m.encode(ASIA.iloc[:4]).codes
    players = [j for j, v in enumerate(m.variables) if v != target]
    game = EngineGame(m.engine(target), codes, players, background=m.encode(ASIA.iloc[50:57]).codes)
    keep = coalition_masks(len(players))
    assert game._complete_families()
    fast = game.hybrid_log_joint(keep, slice(1, 4))
    game._complete = False
    slow = game.hybrid_log_joint(keep, slice(1, 4))
    assert fast.shape == slow.shape == (3, 2 ** len(players), 7, 2)
    assert np.abs(fast - slow).max() < 1e-12


@pytest.mark.parametrize(
    "name", ["NaiveBayes", "TAN", "KDB", "AODE", "ChowLiuMultinet", "BayesianTAN"]
)
def test_efficiency_and_log_odds_chain_rule(name, asia_tan):
    _, X = asia_tan
    clf = getattr(tl, name)().fit(X, ASIA["either"])
    rows = X.iloc[:25]
    logp = clf.predict_log_proba(rows)
    lo = clf.explain(rows, target_class="yes")
    yes = list(clf.classes_).index("yes")
    assert np.abs(lo.values.sum(axis=1) + lo.base - (logp[:, yes] - logp[:, 1 - yes])).max() < 1e-12
    for output in ["log_proba", "proba", "log_odds"]:
        e = clf.explain(rows, kind="shapley", output=output)
        assert np.abs(e.values.sum(axis=1) + e.base - e.prediction).max() < 1e-10
        picked = [list(clf.classes_).index(c) for c in e.target]
        assert (np.asarray(picked) == np.argmax(logp, axis=1)).all()
        if output == "log_proba":
            assert np.abs(e.prediction - logp[np.arange(25), picked]).max() < 1e-12


def test_tan_log_odds_terms_are_the_cpt_terms(asia_tan):
    clf, X = asia_tan
    rows = X.iloc[:10]
    e = clf.explain(rows, target_class="yes")
    model = clf.model_
    states = model.states
    for r, (_, row) in enumerate(rows.iterrows()):
        for f in X.columns:
            ps = model.parents(f)
            cpt = model.cpt(f)

            def term(c, f=f, ps=ps, cpt=cpt, row=row):
                index = tuple(c if p == "either" else states[p].index(row[p]) for p in ps)
                return math.log(cpt[index + (states[f].index(row[f]),)])

            yes, no = states["either"].index("yes"), states["either"].index("no")
            assert e.values.iloc[r][f] == pytest.approx(term(yes) - term(no), abs=1e-12)
    prior = np.log(model.cpt("either"))
    assert e.base.iloc[0] == pytest.approx(
        prior[states["either"].index("yes")] - prior[states["either"].index("no")], abs=1e-12
    )


def test_naive_bayes_shapley_log_odds_exact_for_many_features():
    rng = np.random.default_rng(1)
    n, d = 300, 40
    y = rng.integers(0, 2, n)
    X = pd.DataFrame(
        (rng.random((n, d)) < 0.3 + 0.4 * y[:, None]).astype(int),
        columns=[f"f{j}" for j in range(d)],
    )
    clf = tl.NaiveBayes().fit(X, y)
    rows = X.iloc[:5].astype(float)
    rows.iloc[0, 3] = np.nan
    terms = clf.explain(rows, target_class=1)
    shap_values = clf.explain(rows, kind="shapley", output="log_odds", target_class=1)
    assert shap_values.method == "exact per independent group"
    assert np.abs(shap_values.values.to_numpy() - terms.values.to_numpy()).max() < 1e-12
    # each term by hand: log p(x_j | 1) - log p(x_j | 0) from the CPTs
    cpt = clf.model_.cpt("f5")
    x = int(rows.iloc[2, 5])
    assert terms.values.iloc[2, 5] == pytest.approx(
        np.log(cpt[1, x]) - np.log(cpt[0, x]), abs=1e-12
    )
    assert terms.values.iloc[0, 3] == 0.0  # missing: no evidence, no contribution


def test_sampling_estimator_is_unbiased_within_its_error():
    rng = np.random.default_rng(5)
    edges, cpts = random_tree_network(9, [2] * 9, rng)
    df = sample_tree_network(edges, cpts, 500, rng)
    X, y = df.drop(columns="x0"), df["x0"]
    clf = tl.TAN().fit(X, y)
    rows = X.iloc[:6]
    exact = clf.explain(rows, kind="shapley", method="exact")
    a = clf.explain(rows, kind="shapley", method="sampling", n_permutations=400, random_state=1)
    b = clf.explain(rows, kind="shapley", method="sampling", n_permutations=400, random_state=1)
    assert a.method == "permutation sampling"
    assert (a.values == b.values).all().all()  # the same seed, the same numbers
    assert np.abs(a.values.sum(axis=1) + a.base - a.prediction).max() < 1e-10
    z = (a.values - exact.values).abs() / np.maximum(a.standard_error, 1e-12)
    assert (z.to_numpy() < 5).all()
    few = clf.explain(rows, kind="shapley", method="sampling", n_permutations=16, random_state=2)
    assert few.standard_error.to_numpy().mean() > a.standard_error.to_numpy().mean()


def test_auto_samples_beyond_enumeration_and_says_so():
    rng = np.random.default_rng(2)
    d = 24
    edges, cpts = random_tree_network(d + 1, [2] * (d + 1), rng)
    df = sample_tree_network(edges, cpts, 300, rng)
    clf = tl.TAN().fit(df.drop(columns="x0"), df["x0"])
    e = clf.explain(
        df.drop(columns="x0").iloc[:2], kind="shapley", n_permutations=8, random_state=0
    )
    assert e.method == "permutation sampling" and e.standard_error is not None
    assert np.abs(e.values.sum(axis=1) + e.base - e.prediction).max() < 1e-10
    with pytest.raises(tl.TreelearnError, match=r"2\^24 .*method='sampling'"):
        clf.explain(df.drop(columns="x0").iloc[:2], kind="shapley", method="exact")
    # interventional: coalitions x background rows; refused before anything is evaluated
    X20 = df[[f"x{j}" for j in range(1, 21)]]
    clf20 = tl.TAN().fit(X20, df["x0"])
    with pytest.raises(tl.TreelearnError, match=r"2\^20 x 150 = .*fewer background rows"):
        clf20.explain(
            X20.iloc[:2],
            kind="shapley",
            conditional=False,
            background=X20.iloc[:150],
            method="exact",
        )


def test_features_unknown_in_every_row_are_null_players_not_enumerated():
    # 36 players, but only 4 known in the rows explained: the others are null players of
    # the conditional game (0), so method="exact" enumerates 2^4 coalitions, not 2^36
    alarm = pd.read_csv("datasets/alarm.csv")
    m = tl.chow_liu(alarm)
    target, known = "HYPOVOLEMIA", ["LVFAILURE", "CVP", "HISTORY", "HRBP"]
    rows = alarm.iloc[[0, 7]][known]
    e = m.explain(rows, target, kind="shapley", output="log_odds", method="exact")
    assert e.method == "exact"
    unknown = [v for v in e.values.columns if v not in known]
    assert len(unknown) == 32 and (e.values[unknown].to_numpy() == 0).all()
    for r, (_, row) in enumerate(rows.iterrows()):
        t = e.target.iloc[r]

        def value(S, row=row, t=t):
            post = m.query(target, {f: row[f] for f in S})
            return math.log(post[t]) - np.log(post.drop(t).to_numpy()).mean()

        expected = shapley_values(value, known)
        assert max(abs(e.values.iloc[r][f] - expected[f]) for f in known) < 1e-10


def test_mixture_explanation_equals_brute_force():
    mix = tl.TreeMixture(n_components=2, random_state=0).fit(ASIA)
    rows = ASIA.iloc[[5, 9]]
    target = "lung"
    e = mix.explain(rows, target, kind="shapley", output="proba", target_state="yes")
    first = mix.components_[0]
    variables, states = first.variables, first.states
    others = [v for v in variables if v != target]
    w = mix.weights_ / mix.weights_.sum()
    joints = [dict(zip(*joint_rows(c))) for c in mix.components_]
    t_at, yes = variables.index(target), states[target].index("yes")
    for r, (_, row) in enumerate(rows.iterrows()):
        code = {v: states[v].index(row[v]) for v in others}

        def value(S, code=code):
            num = den = 0.0
            for wk, joint in zip(w, joints):
                for values, p in joint.items():
                    if all(values[variables.index(f)] == code[f] for f in S):
                        den += wk * p
                        num += wk * p * (values[t_at] == yes)
            return num / den

        expected = shapley_values(value, others)
        assert max(abs(e.values.iloc[r][f] - expected[f]) for f in others) < 1e-10


def test_bayesian_tan_shapley_equals_brute_force_over_its_own_predictions(asia_tan):
    # BayesianTAN averages over every spanning tree of the features: the value of a
    # coalition is its predict_proba with the other features missing (NaN), one row and
    # one coalition at a time; the Shapley formula written out over the 7 features
    _, X = asia_tan
    clf = tl.BayesianTAN().fit(X, ASIA["either"])
    rows = X.iloc[[0, 5]]
    e = clf.explain(rows, kind="shapley", output="log_odds", target_class="yes")
    yes = list(clf.classes_).index("yes")
    features = list(X.columns)
    subsets = [
        frozenset(S) for r in range(len(features) + 1) for S in itertools.combinations(features, r)
    ]
    for r, (_, row) in enumerate(rows.iterrows()):
        masked = pd.DataFrame(
            [{f: (row[f] if f in S else np.nan) for f in features} for S in subsets]
        )
        p = clf.predict_proba(masked)  # every coalition's prediction in one call
        odds = dict(zip(subsets, np.log(p[:, yes]) - np.log(p[:, 1 - yes])))
        expected = shapley_values(odds.__getitem__, features)
        assert max(abs(e.values.iloc[r][f] - expected[f]) for f in features) < 1e-10


def test_mixed_and_gaussian_classifiers():
    rng = np.random.default_rng(4)
    n = 200
    y = rng.integers(0, 2, n)
    X = pd.DataFrame(
        {"a": rng.integers(0, 3, n) + y, "b": rng.normal(y, 1.0), "c": rng.normal(-y, 2.0)}
    )
    X["a"] = X["a"].astype(str)
    mixed = tl.MixedNaiveBayes().fit(X, y)
    e = mixed.explain(X.iloc[:5], kind="shapley", output="log_odds", target_class=1)
    assert e.method == "exact per independent group"
    terms = mixed.explain(X.iloc[:5], target_class=1)
    assert np.abs(e.values.to_numpy() - terms.values.to_numpy()).max() < 1e-12
    logp = mixed.predict_log_proba(X.iloc[:5])
    assert np.abs(terms.values.sum(axis=1) + terms.base - (logp[:, 1] - logp[:, 0])).max() < 1e-12
    gauss = tl.GaussianClassifier().fit(X[["b", "c"]], y)
    # it sums a missing feature out (issue 39 item 2), so conditional Shapley values exist:
    # by hand for two players from its predictions with the other feature missing
    rows = X[["b", "c"]].iloc[:3]
    cond = gauss.explain(rows, kind="shapley", output="proba", target_class=1)

    def value(keep):
        return gauss.predict_proba(rows.where(pd.DataFrame(keep, index=rows.index)))[:, 1]

    v = {(b, c): value({"b": [b] * 3, "c": [c] * 3}) for b in (False, True) for c in (False, True)}
    phi_b = 0.5 * ((v[True, False] - v[False, False]) + (v[True, True] - v[False, True]))
    assert np.abs(cond.values["b"].to_numpy() - phi_b).max() < 1e-10
    g = gauss.explain(
        X[["b", "c"]].iloc[:3],
        kind="shapley",
        conditional=False,
        background=X[["b", "c"]].iloc[50:70],
        output="proba",
    )
    assert np.abs(g.values.sum(axis=1) + g.base - g.prediction).max() < 1e-10


def test_bad_options_name_the_problem_and_the_fix(asia_tan):
    clf, X = asia_tan
    rows = X.iloc[:2]
    with pytest.raises(tl.TreelearnError, match="kind == 'lime'"):
        clf.explain(rows, kind="lime")
    with pytest.raises(tl.TreelearnError, match="output='proba' is for kind='shapley'"):
        clf.explain(rows, output="proba")
    with pytest.raises(tl.TreelearnError, match="pass background="):
        clf.explain(rows, kind="shapley", conditional=False)
    with pytest.raises(tl.TreelearnError, match="kind='shapley', conditional=False"):
        clf.explain(rows, conditional=False, background=X.iloc[:5])
    with pytest.raises(tl.ClassLabelError, match="'maybe' is not a class"):
        clf.explain(rows, target_class="maybe")
    with pytest.raises(tl.TreelearnError, match="must be even"):
        clf.explain(rows, kind="shapley", method="sampling", n_permutations=3)
    with pytest.raises(tl.TreelearnError, match="random_state"):
        clf.explain(rows, kind="shapley", random_state="seed")
    m = tl.chow_liu(ASIA)
    with pytest.raises(tl.ColumnNotFoundError, match="'nope' is not a variable"):
        m.explain(ASIA.head(2), "nope")
    # maximum likelihood's plain counts: every class arc kept, not averaged
    zero = tl.NaiveBayes(alpha=0, class_arcs="all").fit(
        pd.DataFrame({"f": ["a", "a", "b"]}), [0, 0, 1]
    )
    with pytest.raises(tl.TreelearnError, match="output='proba'"):
        zero.explain(pd.DataFrame({"f": ["a"]}), target_class=1)
    ok = zero.explain(pd.DataFrame({"f": ["a"]}), kind="shapley", output="proba", target_class=1)
    assert ok.values.iloc[0, 0] == pytest.approx(-1 / 3)  # P(1) = 1/3, P(1 | a) = 0


def test_explanation_frame_and_importance(asia_tan):
    clf, X = asia_tan
    e = clf.explain(X.iloc[:4], kind="shapley")
    frame = e.to_frame()
    assert list(frame.columns[-3:]) == ["(target)", "(base)", "(prediction)"]
    assert e.importance().index[0] in X.columns
    assert "shapley" in repr(e)
