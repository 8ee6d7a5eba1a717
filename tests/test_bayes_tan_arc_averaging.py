"""BayesianTAN's class-arc average (``class_arcs="average"``): the exact Bayesian average
over every directed feature tree and every subset of the class arcs (Dash & Cooper 2002,
over Cerquides & López de Màntaras' TAN structures), from arborescence sums.

Oracles: every arborescence enumerated (itertools) for the sums; every directed tree x
class-arc subset of a 4-feature table, each with its BDeu marginal likelihood
(``oracles.bdeu_family_log_ml``, gammaln by hand) and plug-in predictive
(``oracles.bdeu_conditional``), for the classifier."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from oracles import bdeu_conditional, bdeu_family_log_ml
from scipy.special import logsumexp

import treelearn as tl
from treelearn._base.jsonvalues import json_value
from treelearn.structure._arborescence_sums import arc_marginals, log_arborescence_sum


def _arborescences(d: int) -> list[tuple[int, tuple]]:
    """Every ``(root, parent)`` of a spanning arborescence of K_d (``parent[root] = -1``):
    each parent assignment whose parent links reach the root from every vertex."""
    out = []
    for root in range(d):
        others = [v for v in range(d) if v != root]
        for choice in itertools.product(range(d), repeat=len(others)):
            parent = [-1] * d
            for v, u in zip(others, choice):
                parent[v] = u
            if any(parent[v] == v for v in others):
                continue
            ok = True
            for v in others:  # follow parents: the root within d steps, else a cycle
                seen, u = 0, v
                while u != root and seen <= d:
                    u, seen = parent[u], seen + 1
                ok &= u == root
            if ok:
                out.append((root, tuple(parent)))
    return out


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])
def test_the_count_of_arborescences_is_cayleys(d):
    assert len(_arborescences(d)) == d ** (d - 1)  # rooted labelled trees


@pytest.mark.parametrize("d", [4, 5])
def test_the_arborescence_sum_and_its_marginals_against_every_arborescence(d):
    rng = np.random.default_rng(d)
    # log weights thousands of nats apart, as marginal likelihoods are
    arcs = rng.normal(0, 300, (d, d))
    roots = rng.normal(0, 300, d)
    terms, trees = [], _arborescences(d)
    for root, parent in trees:
        terms.append(roots[root] + sum(arcs[parent[v], v] for v in range(d) if v != root))
    terms_a = np.array(terms)
    log_z = logsumexp(terms_a)
    got = log_arborescence_sum(arcs, roots)
    # relative accuracy of a sum of positive terms: a few ulps of the largest log term
    assert got == pytest.approx(log_z, abs=1e-12 * np.abs(terms_a).max())
    # moderate weights too, where every arborescence counts
    small_a, small_r = rng.normal(0, 1, (d, d)), rng.normal(0, 1, d)
    t = [small_r[r] + sum(small_a[p[v], v] for v in range(d) if v != r) for r, p in trees]
    assert log_arborescence_sum(small_a, small_r) == pytest.approx(logsumexp(t), abs=1e-12)
    # a batch, one sum per matrix, as a loop of single sums
    batch = rng.normal(0, 2, (3, 2, d, d))
    want = [[log_arborescence_sum(m, small_r) for m in row] for row in batch]
    np.testing.assert_allclose(log_arborescence_sum(batch, small_r), want, rtol=1e-13)
    # marginals: the probability mass of the arborescences that hold each arc / root
    w = np.exp(np.array(t) - logsumexp(t))
    P_want, root_want = np.zeros((d, d)), np.zeros(d)
    for (r, p), wi in zip(trees, w):
        root_want[r] += wi
        for v in range(d):
            if v != r:
                P_want[p[v], v] += wi
    P, P_root = arc_marginals(small_a, small_r)
    np.testing.assert_allclose(P, P_want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(P_root, root_want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(P.sum(axis=0) + P_root, 1.0, rtol=0, atol=1e-12)


def test_absent_arcs_and_the_vertex_order():
    # arcs 0->1 (2), 1->0 (3), 1->2 (5), no others: rooted at 0, 0->1->2 (1 * 2 * 5); at
    # 1, 1->0 and 1->2 (1 * 3 * 5); at 2 none (2 reaches nothing)
    w = np.array([[0.0, 2.0, 0.0], [3.0, 0.0, 5.0], [0.0, 0.0, 0.0]])
    with np.errstate(divide="ignore"):
        arcs, roots = np.log(w), np.log(np.array([1.0, 1.0, 7.0]))
    order = [0, 2, 1]  # the last vertex (1) reaches every other: every pivot positive
    got = log_arborescence_sum(arcs[np.ix_(order, order)], roots[order])
    assert got == pytest.approx(np.log(25.0), rel=1e-14)
    with pytest.raises(ValueError, match="every arc"):
        arc_marginals(arcs, roots)
    # in the given order vertex 1 is reached from no later vertex: refused, not a wrong 0
    with pytest.raises(ValueError, match="zero pivot"):
        log_arborescence_sum(arcs, roots)


# ------------------------------------------------------------ the classifier
FEATURES = ["a", "b", "e", "f"]
STATES = {"a": [0, 1], "b": [0, 1, 2], "e": [0, 1], "f": [0, 1], "y": [0, 1]}


def _table(n: int = 40, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.8, y, 1 - y)  # depends on the class
    b = (a + rng.integers(0, 2, n)) % 3  # on a, not on the class
    e = rng.integers(0, 2, n)  # on nothing
    f = np.where(rng.random(n) < 0.7, e, 1 - e)  # on e
    return pd.DataFrame({"a": a, "b": b, "e": e, "f": f, "y": y})


def _brute_force_joint(df: pd.DataFrame, x: dict, ess: float, arc_prior: float) -> np.ndarray:
    """``P(c, x | D)`` for c = 0, 1: the average over every directed tree over the features
    (uniform prior) x every subset of class arcs (prior ``arc_prior`` each) of the BDeu
    posterior predictive, weighted by prior x marginal likelihood."""
    data = {c: df[c].to_numpy() for c in df}
    log_ml: dict = {}
    log_post, predictive = [], []
    for root, parent in _arborescences(len(FEATURES)):
        for arcs_in in itertools.product([True, False], repeat=len(FEATURES)):
            families = [("y", ())]
            for v, (name, has_c) in enumerate(zip(FEATURES, arcs_in)):
                parents = (("y",) if has_c else ()) + (() if v == root else (FEATURES[parent[v]],))
                families.append((name, parents))
            for fam in families:
                if fam not in log_ml:
                    log_ml[fam] = bdeu_family_log_ml(data, fam[0], list(fam[1]), STATES, ess)
            n_in = sum(arcs_in)
            prior = n_in * np.log(arc_prior) + (len(FEATURES) - n_in) * np.log1p(-arc_prior)
            log_post.append(prior + sum(log_ml[f] for f in families))
            predictive.append(
                [
                    np.prod(
                        [
                            bdeu_conditional(data, f[0], list(f[1]), STATES, ess, {**x, "y": c})
                            for f in families
                        ]
                    )
                    for c in (0, 1)
                ]
            )
    w = np.exp(np.array(log_post) - logsumexp(log_post))
    return w @ np.array(predictive)


@pytest.mark.parametrize(("ess", "arc_prior"), [(1.0, 0.5), (4.0, 0.2)])
def test_the_class_posterior_against_every_directed_tree_and_class_arc_subset(ess, arc_prior):
    df = _table()
    X, y = df[FEATURES], df["y"]
    clf = tl.BayesianTAN(equivalent_sample_size=ess, arc_prior=arc_prior, numbers="states").fit(
        X, y
    )
    rows = X.drop_duplicates().head(6)
    got = clf.predict_proba(rows)
    for proba, (_, row) in zip(got, rows.iterrows()):
        joint = _brute_force_joint(df, row.to_dict(), ess, arc_prior)
        np.testing.assert_allclose(proba, joint / joint.sum(), rtol=1e-9, atol=0)
        # the joint itself, P(c, x | D): exp of the model's joint log-likelihood
        np.testing.assert_allclose(
            np.exp(clf._joint_log_likelihood(clf._prediction_input(row.to_frame().T))[0]),
            joint,
            rtol=1e-9,
        )


def test_the_structure_posterior_summaries_against_every_structure():
    df = _table()
    clf = tl.BayesianTAN(numbers="states").fit(df[FEATURES], df["y"])
    data = {c: df[c].to_numpy() for c in df}
    d = len(FEATURES)
    arcs, roots = np.zeros((d, d)), np.zeros(d)
    class_arc = np.zeros(d)
    log_post, structures = [], []
    for root, parent in _arborescences(d):
        for arcs_in in itertools.product([True, False], repeat=d):
            lp = 0.0
            for v, (name, has_c) in enumerate(zip(FEATURES, arcs_in)):
                parents = (["y"] if has_c else []) + ([] if v == root else [FEATURES[parent[v]]])
                lp += bdeu_family_log_ml(data, name, parents, STATES, 1.0) + np.log(0.5)
            log_post.append(lp)
            structures.append((root, parent, arcs_in))
    w = np.exp(np.array(log_post) - logsumexp(log_post))
    for (root, parent, arcs_in), wi in zip(structures, w):
        roots[root] += wi
        class_arc += wi * np.array(arcs_in)
        for v in range(d):
            if v != root:
                arcs[parent[v], v] += wi
    np.testing.assert_allclose(clf.arc_posteriors_[:d], arcs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(clf.arc_posteriors_[d], roots, rtol=0, atol=1e-12)
    np.testing.assert_allclose(clf.feature_class_posteriors_, class_arc, rtol=0, atol=1e-12)
    np.testing.assert_allclose(clf.edge_posteriors_, arcs + arcs.T, rtol=0, atol=1e-12)
    # a depends on the class; e and f on nothing and on each other: their arcs mostly out
    assert class_arc[0] > 0.9 and class_arc[2] < 0.5 and class_arc[3] < 0.5
    # the drawn tree: the arborescence of largest prod W over every one (the arcs' weights)
    lw = clf.log_arc_weights_

    def score(r, p):
        return lw[d, r] + sum(lw[p[v], v] for v in range(d) if v != r)

    best_root, best_parent = max(_arborescences(d), key=lambda rp: score(*rp))
    tree = clf.map_tree()
    want = {(FEATURES[best_parent[v]], FEATURES[v]) for v in range(d) if v != best_root}
    assert set(tree.edges) == want
    for u, v, p in tree.edges(data="posterior"):
        i, j = FEATURES.index(u), FEATURES.index(v)
        assert p == pytest.approx(arcs[i, j] + arcs[j, i], abs=1e-12)


@pytest.mark.parametrize("seed", [3, 4])
def test_an_arc_prior_near_one_is_every_class_arc(seed):
    df = _table(60, seed)
    X, y = df[FEATURES], df["y"]
    every = tl.BayesianTAN(class_arcs="all", numbers="states").fit(X, y)
    eps = 1e-12
    near = tl.BayesianTAN(arc_prior=1 - eps, numbers="states").fit(X, y)
    # each arc's weight and table move by the share of its no-class-arc term, 1 - p_uv
    # (~ eps ML(D_v | X_u) / ML(D_v | C, X_u)); P(c | x) is a ratio of sums over d arcs,
    # so it moves by at most ~2 d max(1 - p_uv) (first order), plus round-off
    d = len(FEATURES)
    off = np.vstack([~np.eye(d, dtype=bool), np.ones((1, d), dtype=bool)])
    share = float((1.0 - near.class_arc_posteriors_[off]).max())
    tol = 4 * d * share + 1e-13
    # the bound is small beside what the class arcs change: the comparison means something
    half = tl.BayesianTAN(numbers="states").fit(X, y)
    assert np.abs(half.predict_proba(X) - every.predict_proba(X)).max() > 1e4 * tol
    np.testing.assert_allclose(near.predict_proba(X), every.predict_proba(X), rtol=0, atol=tol)
    np.testing.assert_allclose(near.edge_posteriors_, every.edge_posteriors_, rtol=0, atol=tol)
    # and class_arcs="all" itself is untouched by arc_prior (not read)
    other = tl.BayesianTAN(class_arcs="all", arc_prior=0.1, numbers="states").fit(X, y)
    assert np.array_equal(other.predict_proba(X), every.predict_proba(X))


def test_a_feature_the_class_determines_keeps_its_arc():
    df = _table(80, 5)
    df["g"] = np.where(df["y"] == 1, "yes", "no")  # the class itself, another name
    X, y = df[[*FEATURES, "g"]], df["y"]
    clf = tl.BayesianTAN(numbers="states").fit(X, y)
    g = list(clf.feature_names_in_).index("g")
    assert clf.feature_class_posteriors_[g] > 1 - 1e-9
    # it decides every row, as it does with every class arc
    proba = clf.predict_proba(X)
    assert (clf.classes_[proba.argmax(axis=1)] == y.to_numpy()).all()
    assert proba.max(axis=1).min() > 0.9


def test_saved_and_loaded_and_an_older_file_is_every_class_arc(tmp_path):
    df = _table()
    X, y = df[FEATURES], df["y"]
    clf = tl.BayesianTAN(numbers="states", arc_prior=0.3).fit(X, y)
    clf.save(tmp_path / "m.json")
    back = tl.load(tmp_path / "m.json")
    assert back.get_params() == clf.get_params()
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    np.testing.assert_array_equal(back.edge_posteriors_, clf.edge_posteriors_)
    # a file from before the option (every class arc, no class_arcs in its params)
    every = tl.BayesianTAN(numbers="states", class_arcs="all").fit(X, y)
    state = every.to_dict()
    del state["params"]["class_arcs"], state["params"]["arc_prior"]
    old = tl.BayesianTAN.from_dict(state)
    assert old.class_arcs == "all"
    np.testing.assert_array_equal(old.predict_proba(X), every.predict_proba(X))
    # a damaged table is refused, naming its field
    bad = clf.to_dict()
    bad["log_arc_tables"] = json_value(np.zeros((2, 10, 9)))
    with pytest.raises(tl.InvalidModelError, match="log_arc_tables"):
        tl.BayesianTAN.from_dict(bad)


def test_missing_cells_each_family_on_its_own_rows():
    df = _table(60, 7).astype(object)
    rng = np.random.default_rng(7)
    for c in FEATURES:
        df.loc[rng.random(len(df)) < 0.15, c] = None
    X, y = df[FEATURES], df["y"].astype(int)
    clf = tl.BayesianTAN(numbers="states").fit(X, y)
    data = {c: df[c].to_numpy() for c in df}
    observed = {c: np.array([v is not None for v in data[c]]) for c in FEATURES}
    observed["y"] = np.ones(len(df), bool)

    def rows_of(child, parents):  # the family's rows: its features observed
        keep = observed[child].copy()
        for p in parents:
            keep &= observed[p]
        return {c: data[c][keep] for c in data}

    def family(child, parents):  # log ML over ML(D_v | C) on the same rows (the model's)
        sub = rows_of(child, [p for p in parents if p != "y"])
        return bdeu_family_log_ml(sub, child, parents, STATES, 1.0) - (
            bdeu_family_log_ml(sub, child, ["y"], STATES, 1.0) if child != "y" else 0.0
        )

    d = len(FEATURES)
    log_post, fams = [], []
    for root, parent in _arborescences(d):
        for arcs_in in itertools.product([True, False], repeat=d):
            f = [("y", ())]
            for v, (name, has_c) in enumerate(zip(FEATURES, arcs_in)):
                f.append(
                    (
                        name,
                        (("y",) if has_c else ()) + (() if v == root else (FEATURES[parent[v]],)),
                    )
                )
            log_post.append(sum(family(c, list(p)) for c, p in f) + d * np.log(0.5))
            fams.append(f)
    w = np.exp(np.array(log_post) - logsumexp(log_post))
    complete = X.notna().all(axis=1).to_numpy()
    test_rows = X[complete].drop_duplicates().head(3)
    gap = X[~complete].head(2)
    got = clf.predict_proba(pd.concat([test_rows, gap]))
    cond: dict = {}
    for proba, (_, row) in zip(got, pd.concat([test_rows, gap]).iterrows()):
        gaps = [c for c in FEATURES if row[c] is None]
        joint = np.zeros(2)
        for fill in itertools.product(*[STATES[g] for g in gaps]):
            x = {**row.to_dict(), **dict(zip(gaps, fill))}
            for c in (0, 1):
                xc = {**x, "y": c}
                per = []
                for f in fams:
                    p = 1.0
                    for child, parents in f:
                        key = (child, parents, tuple(xc[q] for q in (child, *parents)))
                        if key not in cond:
                            sub = rows_of(child, [q for q in parents if q != "y"])
                            cond[key] = bdeu_conditional(sub, child, list(parents), STATES, 1.0, xc)
                        p *= cond[key]
                    per.append(p)
                joint[c] += w @ np.array(per)
        np.testing.assert_allclose(proba, joint / joint.sum(), rtol=1e-9, atol=0)


def test_the_explorer_table_is_the_average_and_sums_to_one():
    from treelearn.viz._explorer import explorer_spec

    df = _table()
    X, y = df[FEATURES].astype(str), df["y"]
    clf = tl.BayesianTAN(numbers="states").fit(X, y)
    spec = explorer_spec(clf)
    rows, p = np.array(spec["joint"]["rows"]), np.array(spec["joint"]["p"])
    assert len(rows) == 2 * 3 * 2 * 2 * 2  # every assignment x class
    assert p.sum() == pytest.approx(1.0, abs=1e-12)  # P(c, x | D) over every (c, x)
    # each assignment's class posterior is predict_proba's
    states = [list(s) for s in clf.states_]
    first = rows[rows[:, -1] == 0][:, :-1]
    frame = pd.DataFrame([[states[j][k] for j, k in enumerate(r)] for r in first], columns=FEATURES)
    joint = p.reshape(-1, 2)
    np.testing.assert_allclose(
        clf.predict_proba(frame), joint / joint.sum(axis=1, keepdims=True), rtol=1e-12
    )
    # the drawn tree is map_tree's, its strengths the edge posteriors
    drawn = {(u, v) for u, v, kind, *_ in spec["edges"][0] if kind == "tree" and u < len(FEATURES)}
    index = {f: j for j, f in enumerate(FEATURES)}
    assert drawn == {(index[u], index[v]) for u, v in clf.map_tree().edges}
    assert "every subset of class arcs" in spec["title"]
    # parameters: k - 1, and per table set (each class's, and the pooled one) the features'
    # r_v - 1 and the pairs' (r_u - 1)(r_v - 1): states 2, 3, 2, 2 -> 5 and 2+1+1+2+2+1 = 9
    assert clf.n_parameters == 1 + 3 * (5 + 9)
    assert tl.BayesianTAN(numbers="states", class_arcs="all").fit(X, y).n_parameters == 1 + 2 * 14


def test_survey_the_row_below_the_majority_goes_to_the_majority_class():
    from test_bayes_tan_survey import ROW, _fold
    from test_numbers_in_classifiers import _check_defaults_on_raw_table

    X, y, train, _ = _fold()
    clf = tl.BayesianTAN().fit(X.iloc[train], y.iloc[train])  # class_arcs="average"
    assert clf.predict(X.iloc[[ROW]])[0] == "Never"  # "all" sends it to Occas
    names = list(clf.feature_names_in_)
    # Smoke is (nearly) independent of every column: each state column's class arc is out
    for name in ("Sex", "W.Hnd", "Fold", "Clap", "Exer", "M.I"):
        assert clf.feature_class_posteriors_[names.index(name)] < 0.5
    # the grid's five folds: at or above the majority class (0.8008)
    _check_defaults_on_raw_table("BayesianTAN", "survey")


def test_the_tables_are_guarded_before_they_are_made(monkeypatch):
    df = _table()
    X, y = df[["a", "b"]], df["y"]  # 5 one-hot states, 2 classes: six 2 x 6 x 5 arrays
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 8 * 6 * 2 * 6 * 5 - 1)
    with pytest.raises(tl.ResourceLimitError, match="2 x 6 x 5, six of them"):
        tl.BayesianTAN(numbers="states").fit(X, y)
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 8 * 6 * 2 * 6 * 5)
    tl.BayesianTAN(numbers="states").fit(X, y)


def test_the_tree_sums_of_a_batch_are_the_same_in_slices_of_any_size(monkeypatch):
    # the eliminations run one slice of matrices at a time (matrix_batches): a slice of one
    # matrix, or of two, gives each matrix's sum of the whole batch at once, bit for bit
    import treelearn.structure._spanning_sums as spanning
    from treelearn.structure._arborescence_sums import log_arborescence_sum

    rng = np.random.default_rng(4)
    arcs, roots = rng.normal(size=(7, 5, 5)), rng.normal(size=(7, 5))
    undirected = arcs + arcs.transpose(0, 2, 1)
    whole = (log_arborescence_sum(arcs, roots), spanning.log_spanning_tree_sum(undirected))
    for elements in (25, 50):  # 5 x 5 matrices: one, then two a slice
        monkeypatch.setattr(spanning, "BATCH_ELEMENTS", elements)
        assert len(list(spanning.matrix_batches(7, 5))) == -(-7 // (elements // 25))
        np.testing.assert_array_equal(log_arborescence_sum(arcs, roots), whole[0])
        np.testing.assert_array_equal(spanning.log_spanning_tree_sum(undirected), whole[1])
