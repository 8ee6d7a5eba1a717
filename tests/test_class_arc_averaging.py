"""Class-arc averaging (``class_arcs="average"``, the default of the single-network counting
classifiers): the exact Bayesian average over every subset of the arcs ``C -> X_j`` of a
fixed structure (Dash and Cooper 2002, generalised), checked against a brute-force average
over all ``2^n`` subsets (each subset's marginal likelihood from ``gammaln`` by hand, its
plug-in predictive from counts made here), and what the averaging must keep: CPT rows
summing to one, a feature the class decides left as it was, the saved files (old ones load
as ``"all"``), chunks summed, MANB's equality with naive Bayes, alpha = 0 refused."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from conftest import run_installed
from scipy.special import gammaln
from test_numbers_in_classifiers import _real

import treelearn as tl


def built_table(n: int = 70, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """Four categorical features (declared states): one copying the class often, one
    copying another feature, two nearly independent of the class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.7, y % 2, rng.integers(0, 2, n))
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, 2, n))
    c = rng.integers(0, 3, n)
    d = np.where(rng.random(n) < 0.8, c % 2, rng.integers(0, 2, n))
    X = pd.DataFrame(
        {
            "a": pd.Categorical(a, categories=[0, 1]),
            "b": pd.Categorical(b, categories=[0, 1]),
            "c": pd.Categorical(c, categories=[0, 1, 2]),
            "d": pd.Categorical(d, categories=[0, 1]),
        }
    )
    return X, pd.Series(np.array(["p", "q", "r"])[y], name="C")


def counted(codes: np.ndarray, cards: list[int], columns: list[int]) -> np.ndarray:
    """The counts of the columns' joint states, row by row (the oracle's own counting)."""
    out = np.zeros([cards[j] for j in columns])
    for row in codes:
        out[tuple(row[j] for j in columns)] += 1
    return out


def pseudocount(shape: tuple, prior: str, alpha: float, s: float, m: float) -> float:
    k, q = shape[-1], int(np.prod(shape[:-1]))
    return {"lidstone": alpha, "bdeu": s / (q * k), "m-estimate": m / k}[prior]


def log_evidence(counts: np.ndarray, a: float) -> float:
    """``log P(D_family)``: per parent configuration, the Dirichlet-multinomial."""
    k = counts.shape[-1]
    rows = counts.reshape(-1, k)
    return float(
        sum(
            gammaln(k * a) - gammaln(k * a + r.sum()) + sum(gammaln(a + x) - gammaln(a) for x in r)
            for r in rows
        )
    )


def brute_force(clf, X, y, prior="lidstone", alpha=1.0, s=1.0, m=1.0, arc_prior=0.5):
    """``P(c | x)`` of every row of ``X`` and each feature's arc posterior, averaged over all
    ``2^n`` subsets of the class arcs of ``clf``'s structure (its feature parents kept)."""
    features = list(X.columns)
    classes = sorted(set(y))
    codes = np.column_stack(
        [*(X[f].cat.codes.to_numpy() for f in features), [classes.index(v) for v in y]]
    )
    cards = [len(X[f].cat.categories) for f in features] + [len(classes)]
    C = len(features)  # the class's column
    feature_parents = {
        j: [features.index(p) for p in clf.model_.parents(f) if p != clf.class_name_]
        for j, f in enumerate(features)
    }
    class_counts = counted(codes, cards, [C])
    log_prior_c = np.log(class_counts / class_counts.sum())  # the class frequencies
    total = np.full((len(X), len(classes)), -np.inf)
    weights = []
    for subset in itertools.product([False, True], repeat=len(features)):
        log_w = sum(np.log(arc_prior) if arc else np.log1p(-arc_prior) for arc in subset)
        joint = np.tile(log_prior_c, (len(X), 1))
        for j, arc in enumerate(subset):
            parents = feature_parents[j] + ([C] if arc else [])
            counts = counted(codes, cards, [*parents, j])
            a = pseudocount(counts.shape, prior, alpha, s, m)
            log_w += log_evidence(counts, a)
            cpt = (counts + a) / (counts.sum(axis=-1, keepdims=True) + cards[j] * a)
            for ci in range(len(classes)):
                index = [codes[:, p] if p != C else np.full(len(X), ci) for p in parents]
                joint[:, ci] += np.log(cpt[(*index, codes[:, j])])
        weights.append((subset, log_w))
        total = np.logaddexp(total, log_w + joint)
    log_ws = np.array([w for _, w in weights])
    norm = np.logaddexp.reduce(log_ws)
    arcs = np.array([sum(np.exp(w - norm) for subset, w in weights if subset[j]) for j in range(C)])
    return np.exp(total - np.logaddexp.reduce(total, axis=1, keepdims=True)), arcs


CASES = [
    ("NaiveBayes", {}),
    ("TAN", {}),
    ("KDB", {"k": 2}),
]


@pytest.mark.parametrize(("method", "options"), CASES)
@pytest.mark.parametrize(
    "smoothing",
    [
        {"alpha": 1.0},
        {"alpha": 0.4},
        {"prior": "bdeu", "equivalent_sample_size": 3.0},
        {"prior": "m-estimate", "m": 2.0},
    ],
)
def test_the_average_equals_the_brute_force_over_every_subset_of_class_arcs(
    method, options, smoothing
):
    X, y = built_table()
    clf = getattr(tl, method)(**options, **smoothing, numbers="states").fit(X, y)
    proba, arcs = brute_force(
        clf,
        X,
        y,
        prior=smoothing.get("prior", "lidstone"),
        alpha=smoothing.get("alpha", 1.0),
        s=smoothing.get("equivalent_sample_size", 1.0),
        m=smoothing.get("m", 1.0),
    )
    np.testing.assert_allclose(clf.predict_proba(X), proba, rtol=0, atol=1e-10)
    np.testing.assert_allclose(clf.arc_posterior_, arcs, rtol=0, atol=1e-10)
    # the data's dependence shows: 'a' copies the class, 'c' and 'd' do not
    assert arcs[0] > 0.99 and arcs[2] < 0.5


def test_another_arc_prior_equals_the_brute_force():
    X, y = built_table(50, 3)
    clf = tl.TAN(arc_prior=0.2, numbers="states").fit(X, y)
    proba, arcs = brute_force(clf, X, y, arc_prior=0.2)
    np.testing.assert_allclose(clf.predict_proba(X), proba, rtol=0, atol=1e-10)
    np.testing.assert_allclose(clf.arc_posterior_, arcs, rtol=0, atol=1e-10)


@pytest.mark.parametrize("method", ["NaiveBayes", "TAN", "KDB", "SKDB", "ETAN"])
def test_averaged_cpt_rows_sum_to_one_on_a_real_table(method):
    X, y = _real("survey")
    clf = getattr(tl, method)().fit(X, y)
    for f in clf.feature_names_in_:
        np.testing.assert_allclose(clf.model_.cpt(f).sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    assert ((clf.arc_posterior_ >= 0) & (clf.arc_posterior_ <= 1)).all()
    # the averaging moves some feature: survey's Smoke is nearly independent of every column
    assert clf.arc_posterior_.min() < 0.5


def test_a_feature_the_class_decides_keeps_its_plain_cpt():
    X, y = built_table(200, 1)
    X = X.assign(e=pd.Categorical(y.map({"p": 0, "q": 1, "r": 2}), categories=[0, 1, 2]))
    for method in ("NaiveBayes", "TAN"):
        avg = getattr(tl, method)(numbers="states").fit(X, y)
        plain = getattr(tl, method)(numbers="states", class_arcs="all").fit(X, y)
        j = list(X.columns).index("e")
        assert avg.arc_posterior_[j] > 0.999
        np.testing.assert_allclose(avg.model_.cpt("e"), plain.model_.cpt("e"), rtol=0, atol=1e-3)
        np.testing.assert_array_equal(plain.arc_posterior_, np.ones(X.shape[1]))


def test_etan_features_without_the_class_arc_have_posterior_zero():
    X, y = _real("survey")
    clf = tl.ETAN().fit(X, y)
    without = [f for f in clf.feature_names_in_ if clf.class_name_ not in clf.model_.parents(f)]
    for j, f in enumerate(clf.feature_names_in_):
        if f in without:
            assert clf.arc_posterior_[j] == 0.0


def test_alpha_zero_is_refused_with_the_fix_named():
    X, y = built_table()
    for method in ("NaiveBayes", "TAN", "KDB", "MixedNaiveBayes"):
        with pytest.raises(tl.TreelearnError, match="class_arcs='all'"):
            getattr(tl, method)(alpha=0).fit(X, y)
        # the fix named works: maximum likelihood with every class arc
        plain = getattr(tl, method)(alpha=0, class_arcs="all").fit(X, y)
        assert np.isfinite(plain.predict_log_proba(X)).any()
    # BDeu and the m-estimate have their own pseudocounts: alpha is not read
    tl.NaiveBayes(alpha=0, prior="bdeu").fit(X, y)
    with pytest.raises(tl.TreelearnError, match="class_arcs"):
        tl.NaiveBayes(class_arcs="some").fit(X, y)
    with pytest.raises(tl.TreelearnError, match="arc_prior"):
        tl.NaiveBayes(arc_prior=1.0).fit(X, y)


def test_manb_is_naive_bayes_with_its_defaults():
    X, y = _real("survey")  # missing cells, numbers cut into MDL bins
    manb, nb = tl.MANB().fit(X, y), tl.NaiveBayes().fit(X, y)
    np.testing.assert_allclose(
        manb.predict_log_proba(X), nb.predict_log_proba(X), rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(manb.arc_posterior_, nb.arc_posterior_, rtol=0, atol=1e-12)


def test_mixed_naive_bayes_averages_its_state_columns_as_naive_bayes():
    X, y = _real("survey")
    mixed, nb = tl.MixedNaiveBayes().fit(X, y), tl.NaiveBayes().fit(X, y)
    np.testing.assert_allclose(
        mixed.predict_log_proba(X), nb.predict_log_proba(X), rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("method", ["NaiveBayes", "TAN", "KDB"])
def test_save_and_load_keep_the_average_and_old_files_load_as_all(method, tmp_path):
    X, y = _real("titanic")
    clf = getattr(tl, method)().fit(X, y)
    path = tmp_path / "m.json"
    tl.save(clf, path)
    back = tl.load(path)
    assert back.class_arcs == "average" and back.arc_prior == 0.5
    np.testing.assert_array_equal(back.arc_posterior_, clf.arc_posterior_)
    np.testing.assert_array_equal(back.predict_log_proba(X), clf.predict_log_proba(X))
    # a file from before class_arcs: plain CPTs, no class_arcs, arc_prior nor arc_posterior
    plain = getattr(tl, method)(class_arcs="all").fit(X, y)
    tl.save(plain, path)
    saved = json.loads(path.read_text())
    found = 0
    for node in (saved, *saved.values()):
        if isinstance(node, dict):
            for key in ("class_arcs", "arc_prior", "arc_posterior"):
                found += node.pop(key, None) is not None
            if isinstance(node.get("params"), dict):
                for key in ("class_arcs", "arc_prior"):
                    found += node["params"].pop(key, None) is not None
    assert found >= 3  # the two options and the posteriors were in the file
    path.write_text(json.dumps(saved))
    old = tl.load(path)
    assert old.class_arcs == "all"
    np.testing.assert_array_equal(old.arc_posterior_, np.ones(X.shape[1]))
    np.testing.assert_array_equal(old.predict_log_proba(X), plain.predict_log_proba(X))


@pytest.mark.parametrize("method", ["NaiveBayes", "TAN", "KDB"])
def test_partial_fit_averages_the_summed_counts(method):
    X, y = _real("titanic")
    X = X.astype("category")  # declared states: every chunk knows them
    whole = getattr(tl, method)(numbers="states").fit(X, y)
    chunks = getattr(tl, method)(numbers="states")
    for part in np.array_split(np.arange(len(X)), 3):
        chunks.partial_fit(X.iloc[part], y.iloc[part], classes=sorted(set(y)))
    np.testing.assert_allclose(
        chunks.predict_log_proba(X), whole.predict_log_proba(X), rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(chunks.arc_posterior_, whole.arc_posterior_, rtol=0, atol=1e-12)


def test_the_wrappers_score_their_candidates_averaged():
    # TANHillClimb's and BSEJ's start is naive Bayes: its CV accuracy from fold counts
    # equals cross_val_score of the averaged naive Bayes refitted on each fold
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    X, y = built_table(120, 5)
    cv = StratifiedKFold(5, shuffle=True, random_state=2)
    for average in ("average", "all"):
        nb = cross_val_score(tl.NaiveBayes(class_arcs=average), X, y, cv=cv).mean()
        for method in (tl.TANHillClimb, tl.BSEJ):
            clf = method(random_state=2, class_arcs=average).fit(X, y)
            assert clf.cv_accuracy_[0] == pytest.approx(nb, abs=1e-12)
    # the final network is the averaged network of the chosen structure
    clf = tl.TANHillClimb(random_state=2).fit(X, y)
    assert clf.arc_posterior_.min() < 0.5


def test_the_command_line_averages_and_alpha_zero_keeps_every_arc(tmp_path):
    from conftest import run_cli

    data = tmp_path / "t.csv"
    X, y = built_table(80, 2)
    X.assign(C=y).to_csv(data, index=False)
    for alpha, want in ((None, "average"), (0, "all")):
        flags = [] if alpha is None else ["--alpha", alpha]
        rc, _, err = run_cli(
            "learn",
            data,
            "--class",
            "C",
            "--method",
            "naive-bayes",
            *flags,
            "-o",
            tmp_path / "m.json",
        )
        assert rc == 0, err
        assert tl.load(tmp_path / "m.json").class_arcs == want


@pytest.mark.slow
def test_the_installed_command_learns_survey_averaged_and_predicts(tmp_path):
    data = tl.io.read_data(
        __import__("pathlib").Path(__file__).resolve().parent.parent
        / "datasets"
        / "real"
        / "survey.csv"
    )
    data.to_csv(tmp_path / "survey.csv", index=False)

    def run(*argv):
        return run_installed(*argv, cwd=tmp_path)

    run(
        "learn",
        "survey.csv",
        "--class",
        "Smoke",
        "--method",
        "naive-bayes",
        "--missing",
        "pairwise",
        "-o",
        "nb.json",
    )
    clf = tl.load(tmp_path / "nb.json")
    assert clf.class_arcs == "average" and clf.arc_posterior_.min() < 0.5
    predicted = run("predict", "nb.json", "survey.csv").split()
    X, y = _real("survey")
    want = tl.NaiveBayes().fit(X, y).predict(data.drop(columns="Smoke"))
    assert predicted[0] == "Smoke" and predicted[1:] == [str(v) for v in want]


def averaged_term(tr, te, f, ps, classes, cards, alpha):
    """``log`` of the class-arc averaged ``P(x_f | c, x_ps)`` of each test row and class,
    from the training rows' weights (column ``w``): counted, and the arc's posterior from
    ``gammaln``, here."""
    cols = [*ps, f]
    k = cards[f]
    N = np.zeros([len(classes), *(cards[c] for c in cols)])
    at = (tr["C"].map(classes.index).to_numpy(), *(tr[c].cat.codes.to_numpy() for c in cols))
    np.add.at(N, at, tr["w"].to_numpy())
    free = N.sum(axis=0)
    log_odds = log_evidence(N, alpha) - log_evidence(free, alpha)
    p = 1.0 / (1.0 + np.exp(-log_odds))
    given = (N + alpha) / (N.sum(axis=-1, keepdims=True) + k * alpha)
    alone = (free + alpha) / (free.sum(axis=-1, keepdims=True) + k * alpha)
    mixed = p * given + (1 - p) * alone[None]
    codes = tuple(te[c].cat.codes.to_numpy() for c in cols)
    return np.log(np.column_stack([mixed[(ci, *codes)] for ci in range(len(classes))]))


def test_tan_hill_climb_averaged_equals_the_exhaustive_search_by_refitting():
    # each candidate's CV accuracy from fold counts, averaged per fold, equals refitting
    # the averaged network of the candidate on each fold's rows (counted here)
    from test_wrappers import data, folds_of, greedy, tan_arc_candidates

    X, y = data(90, 5)
    cols = list(X.columns)
    cards = {c: len(X[c].cat.categories) for c in cols}
    classes = sorted(set(y))
    folds = folds_of(y, 5, 5)
    df = X.assign(C=y.to_numpy(), w=1.0)
    memo: dict = {}

    def score(parent):
        out = []
        for fold, (train, test) in enumerate(folds):
            tr, te = df.iloc[train], df.iloc[test]
            prior = tr.groupby("C")["w"].sum().reindex(classes).to_numpy()
            joint = np.tile(np.log(prior / prior.sum()), (len(te), 1))
            for f in cols:
                ps = [parent[f]] if parent[f] else []
                key = (fold, f, tuple(ps))
                if key not in memo:
                    memo[key] = averaged_term(tr, te, f, ps, classes, cards, 1.0)
                joint += memo[key]
            out.append(np.mean(np.array(classes)[joint.argmax(axis=1)] == te["C"].to_numpy()))
        return float(np.mean(out))

    candidates = tan_arc_candidates(cols)

    clf = tl.TANHillClimb(random_state=5).fit(X, y)  # class_arcs="average", the default
    parent, history, path = greedy(dict.fromkeys(cols), candidates, score)
    assert path  # some arc improves: the steps are compared, not only the start
    np.testing.assert_allclose(clf.cv_accuracy_, history, rtol=0, atol=1e-12)
    assert clf.steps_ == path
    for f in cols:
        assert clf.model_.parents(f) == ["C", *([parent[f]] if parent[f] else [])]
