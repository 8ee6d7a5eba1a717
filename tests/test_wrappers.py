"""Wrapper searches (FSSJ, BSEJ, TANHillClimb): the CV accuracy from fold counts equals
refitting each candidate on each fold's rows (pandas counts, written here), the searches
equal the step-by-step exhaustive search over every candidate on <= 5 features, and a
fixed structure's CV accuracy is scikit-learn's cross_val_score with the same folds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold, cross_val_score

import treelearn as tl


def data(n: int, seed: int, d: int = 5) -> tuple[pd.DataFrame, pd.Series]:
    """Categorical features (declared states: every fold knows them), some copying the
    class or each other, so that adding, joining and deleting all matter."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    cols = {}
    prev = rng.integers(0, 2, n)
    for j in range(d):
        k = 2 + j % 2
        keep = rng.random(n) < 0.5
        x = np.where(keep, (prev + y * (j % 3 != 2)) % k, rng.integers(0, k, n))
        cols[f"f{j}"] = pd.Categorical(x, categories=range(k))
        prev = x if j % 2 else (x + y) % 2
    return pd.DataFrame(cols), pd.Series(np.array(["a", "b", "c"])[y], name="C")


def folds_of(y: pd.Series, cv: int, seed: int) -> list:
    return list(StratifiedKFold(cv, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))


def family_term(tr, te, f, ps, classes, k, alpha):
    """``log p(x_f | c, x_ps)`` of each test row and class, from the training rows' weights
    (column ``w``) summed."""
    out = np.zeros((len(te), len(classes)))
    for ci, c in enumerate(classes):
        fam = tr[tr["C"] == c]
        if ps:
            num = fam.groupby([*ps, f], observed=False)["w"].sum()
            den = fam.groupby(list(ps), observed=False)["w"].sum()
            n_num = num.reindex(pd.MultiIndex.from_frame(te[[*ps, f]])).to_numpy()
            keys = pd.MultiIndex.from_frame(te[list(ps)]) if len(ps) > 1 else te[ps[0]]
            n_den = den.reindex(keys).to_numpy()
        else:
            n_num = fam.groupby(f, observed=False)["w"].sum().reindex(te[f]).to_numpy()
            n_den = np.full(len(te), fam["w"].sum())
        out[:, ci] = np.log((n_num + alpha) / (n_den + k * alpha))
    return out


def refit_accuracy(
    X: pd.DataFrame,
    y: pd.Series,
    parents: dict,
    folds: list,
    alpha: float = 1.0,
    memo: dict | None = None,
    w=None,
) -> float:
    """Mean held-out accuracy (weighted by ``w``) of the network ``class -> f`` (with
    ``parents[f]`` more) for every ``f`` of ``parents``, refitted on each fold's training
    rows by counting them (``memo``: each fold's family terms, counted once)."""
    df = X.assign(C=y.to_numpy(), w=np.ones(len(X)) if w is None else np.asarray(w, float))
    classes = sorted(set(y))
    memo = {} if memo is None else memo
    out = []
    for fold, (train, test) in enumerate(folds):
        tr, te = df.iloc[train], df.iloc[test]
        prior = tr.groupby("C")["w"].sum()
        joint = np.zeros((len(te), len(classes)))
        for ci, c in enumerate(classes):
            joint[:, ci] = np.log(prior.get(c, 0) / tr["w"].sum()) if prior.get(c, 0) else -np.inf
        for f, ps in parents.items():
            key = (fold, f, tuple(ps))
            if key not in memo:
                memo[key] = family_term(
                    tr, te, f, list(ps), classes, len(X[f].cat.categories), alpha
                )
            joint += memo[key]
        pred = np.array(classes)[np.argmax(joint, axis=1)]
        out.append(np.sum(te["w"].to_numpy() * (pred == te["C"].to_numpy())) / te["w"].sum())
    return float(np.mean(out))


def group_parents(X, groups):
    cols = list(X.columns)
    out = {}
    for g in groups:
        g = sorted(g, key=cols.index)
        for r, f in enumerate(g):
            out[f] = g[:r]
    return out


def greedy(start, candidates, score):
    """The step-by-step exhaustive search: every candidate scored, the first best kept
    while it improves."""
    state, history, path = start, [score(start)], []
    while True:
        options = candidates(state)
        if not options:
            return state, history, path
        scored = [(round(score(s), 12), i) for i, (s, _) in enumerate(options)]
        best, i = max(scored, key=lambda t: (t[0], -t[1]))
        if best <= round(history[-1], 12):
            return state, history, path
        state = options[i][0]
        history.append(score(state))
        path.append(options[i][1])


def norm(groups):
    return sorted(tuple(sorted(g)) for g in groups)


def tan_arc_candidates(cols):
    """TANHillClimb's steps from ``parent`` (each feature's feature parent or ``None``):
    every arc ``i -> j`` into a feature without one that makes no cycle."""

    def candidates(parent):
        def ancestors(f):
            seen = set()
            while f and f not in seen:
                seen.add(f)
                f = parent[f]
            return seen

        return [
            ({**parent, j: i}, ("arc", (i, j)))
            for i in cols
            for j in cols
            if i != j and parent[j] is None and j not in ancestors(i)
        ]

    return candidates


def fssj_candidates(cols):
    def candidates(groups):
        used = {f for g in groups for f in g}
        unused = [f for f in cols if f not in used]
        adds = [(norm([*groups, (f,)]), ("add", (f,))) for f in unused]
        joins = []
        for f in unused:
            for g in groups:
                joined = tuple(sorted((*g, f), key=cols.index))
                joins.append((norm([h for h in groups if h != g] + [joined]), ("join", joined)))
        return adds + joins

    return candidates


def bsej_candidates(cols):
    def candidates(groups):
        deletes = []
        for f in [c for c in cols if any(c in g for g in groups)]:
            g = next(g for g in groups if f in g)
            rest = tuple(m for m in g if m != f)
            deletes.append(
                (norm([h for h in groups if h != g] + ([rest] if rest else [])), ("delete", (f,)))
            )
        ordered = sorted(groups, key=lambda g: cols.index(min(g, key=cols.index)))
        joins = []
        for a, g in enumerate(ordered):
            for h in ordered[a + 1 :]:
                joined = tuple(sorted((*g, *h), key=cols.index))
                joins.append(
                    (norm([x for x in groups if x not in (g, h)] + [joined]), ("join", joined))
                )
        return deletes + joins

    return candidates


@pytest.mark.parametrize(("seed", "cv", "weighted"), [(0, 5, False), (3, 3, False), (4, 4, True)])
def test_fssj_and_bsej_equal_the_exhaustive_stepwise_search_by_refitting(seed, cv, weighted):
    X, y = data(90, seed)
    w = np.random.default_rng(seed).uniform(0.2, 2.0, len(y)) if weighted else None
    cols = list(X.columns)
    folds = folds_of(y, cv, seed)
    memo = {}

    def score(groups):
        return refit_accuracy(X, y, group_parents(X, groups), folds, memo=memo, w=w)

    for make, start, candidates in (
        (tl.FSSJ, [], fssj_candidates(cols)),
        (tl.BSEJ, [(c,) for c in cols], bsej_candidates(cols)),
    ):
        # the refit oracle counts plain Lidstone CPTs: the class arcs all kept
        clf = make(cv=cv, random_state=seed, class_arcs="all").fit(X, y, sample_weight=w)
        groups, history, path = greedy(norm(start), candidates, score)
        np.testing.assert_allclose(clf.cv_accuracy_, history, rtol=0, atol=1e-12)
        assert clf.steps_ == path
        assert norm(clf.feature_groups_) == groups
        # the fitted network: each group's features chained under the class, the rest alone
        parents = group_parents(X, groups)
        for f in cols:
            assert clf.model_.parents(f) == (["C", *parents[f]] if f in parents else [])


def test_some_search_joins_and_some_deletes():
    # the data above exercises every operation (else the equality tests would be weaker)
    ops = set()
    for seed in (0, 3):
        X, y = data(90, seed)
        ops |= {op for op, _ in tl.FSSJ(random_state=seed).fit(X, y).steps_}
        ops |= {op for op, _ in tl.BSEJ(random_state=seed).fit(X, y).steps_}
    assert {"add", "join", "delete"} <= ops


def test_tan_hill_climb_equals_the_exhaustive_stepwise_search_by_refitting():
    X, y = data(90, 5)
    cols = list(X.columns)
    folds = folds_of(y, 5, 5)

    memo = {}

    def score(parent):
        return refit_accuracy(
            X, y, {f: [parent[f]] if parent[f] else [] for f in cols}, folds, memo=memo
        )

    candidates = tan_arc_candidates(cols)

    # the refit oracle counts plain Lidstone CPTs: the class arcs all kept
    clf = tl.TANHillClimb(random_state=5, class_arcs="all").fit(X, y)
    parent, history, path = greedy(dict.fromkeys(cols), candidates, score)
    np.testing.assert_allclose(clf.cv_accuracy_, history, rtol=0, atol=1e-12)
    assert clf.steps_ == path and clf.arcs_ == [a for _, a in path]
    assert len(path) >= 1
    for f in cols:
        assert clf.model_.parents(f) == ["C", *([parent[f]] if parent[f] else [])]


def test_a_fixed_structure_scores_as_cross_val_score_with_the_same_folds():
    # naive Bayes is BSEJ's and TANHillClimb's start; FSSJ adding only is naive Bayes on
    # the features it selected: scikit-learn refits them on each fold
    X, y = data(120, 11)
    cv = StratifiedKFold(5, shuffle=True, random_state=4)
    nb = cross_val_score(tl.NaiveBayes(), X, y, cv=cv).mean()
    assert tl.BSEJ(random_state=4).fit(X, y).cv_accuracy_[0] == pytest.approx(nb, abs=1e-12)
    assert tl.TANHillClimb(random_state=4).fit(X, y).cv_accuracy_[0] == pytest.approx(nb, abs=1e-12)
    for alpha in (1.0, 0.5):
        fssj = tl.FSSJ(random_state=4, alpha=alpha).fit(X, y)
        for s, (op, _) in enumerate(fssj.steps_):
            if op != "add":
                break
            chosen = [f for (o, g) in fssj.steps_[: s + 1] for f in g]
            want = cross_val_score(tl.NaiveBayes(alpha=alpha), X[chosen], y, cv=cv).mean()
            assert fssj.cv_accuracy_[s + 1] == pytest.approx(want, abs=1e-12)


def test_deterministic_with_random_state_and_the_same_with_threads():
    X, y = data(150, 2)
    for make in (tl.FSSJ, tl.BSEJ, tl.TANHillClimb):
        a = make(random_state=7).fit(X, y)
        b = make(random_state=7, n_jobs=2).fit(X, y)
        c = make(random_state=np.random.default_rng(3)).fit(X, y)
        assert a.steps_ == b.steps_ and np.array_equal(a.cv_accuracy_, b.cv_accuracy_)
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
        assert len(c.cv_accuracy_) >= 1


def test_the_final_model_is_refitted_on_every_row():
    X, y = data(150, 2)
    # the CPTs are checked against plain Lidstone counts: the class arcs all kept
    clf = tl.FSSJ(random_state=1, class_arcs="all").fit(X, y)
    chosen = [f for g in clf.feature_groups_ for f in g]
    if all(len(g) == 1 for g in clf.feature_groups_):
        ref = tl.NaiveBayes(class_arcs="all").fit(X[chosen], y)
        np.testing.assert_allclose(
            clf.predict_proba(X), ref.predict_proba(X[chosen]), rtol=0, atol=1e-12
        )
    # every CPT from all the rows' counts
    df = X.assign(C=y)
    for f in chosen:
        parents = clf.model_.parents(f)
        counts = df.groupby([*parents, f], observed=False).size().to_numpy(float)
        k = len(X[f].cat.categories)
        counts = counts.reshape(-1, k)
        want = (counts + 1) / (counts.sum(axis=1, keepdims=True) + k)
        np.testing.assert_allclose(clf.model_.cpt(f).reshape(-1, k), want, rtol=1e-12)


def test_errors_name_the_fix():
    X, y = data(40, 1)
    with pytest.raises(tl.TreelearnError, match=r"cv=5.*n_samples = 4"):
        tl.FSSJ().fit(X.iloc[:4], y.iloc[:4])
    Xf = X.astype(float)
    Xf.iloc[0, 2] = np.nan  # counted around (tests/test_missing_cells_structure.py)
    assert len(tl.BSEJ(numbers="states").fit(Xf, y).cv_accuracy_) >= 1
    for bad in ({"cv": 1}, {"alpha": 0}, {"n_jobs": "two"}, {"n_jobs": 0}, {"random_state": -1}):
        with pytest.raises(tl.TreelearnError, match=next(iter(bad))):
            tl.TANHillClimb(**bad).fit(X, y)


def test_save_round_trip_keeps_the_search(tmp_path):
    X, y = data(120, 0)
    for make in (tl.FSSJ, tl.BSEJ, tl.TANHillClimb, tl.TANSuperParent):
        clf = make(random_state=0).fit(X, y)
        clf.save(tmp_path / "w.json")
        back = tl.load(tmp_path / "w.json")
        assert back.steps_ == clf.steps_
        np.testing.assert_array_equal(back.cv_accuracy_, clf.cv_accuracy_)
        np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
        if hasattr(clf, "feature_groups_"):
            assert back.feature_groups_ == clf.feature_groups_
        else:
            assert back.arcs_ == clf.arcs_


@pytest.mark.parametrize(("seed", "d"), [(5, 4), (6, 4), (7, 3)])
def test_tan_super_parent_equals_the_exhaustive_super_parent_search_by_refitting(seed, d):
    # every step by brute force: each feature's super-parent network (all the orphans it
    # may adopt) refitted fold by fold, the best one's single arcs refitted, the best arc
    # kept while it improves
    X, y = data(90, seed, d=d)
    cols = list(X.columns)
    folds = folds_of(y, 5, seed)
    memo = {}

    def score(parent):
        return refit_accuracy(
            X, y, {f: [parent[f]] if parent[f] else [] for f in cols}, folds, memo=memo
        )

    def adoptive(parent, i):
        seen, f = set(), i
        while f and f not in seen:
            seen.add(f)
            f = parent[f]
        return [j for j in cols if parent[j] is None and j not in seen]

    parent, history, path = dict.fromkeys(cols), [score(dict.fromkeys(cols))], []
    while True:
        supers = [i for i in cols if adoptive(parent, i)]
        if not supers:
            break
        sp_scores = [
            round(score({**parent, **dict.fromkeys(adoptive(parent, i), i)}), 12) for i in supers
        ]
        sp = supers[int(np.argmax(sp_scores))]  # the first best
        arcs = [(sp, j) for j in adoptive(parent, sp)]
        arc_scores = [round(score({**parent, j: i}), 12) for i, j in arcs]
        best = int(np.argmax(arc_scores))
        if arc_scores[best] <= round(history[-1], 12):
            break
        i, j = arcs[best]
        parent[j] = i
        history.append(score(parent))
        path.append(("arc", (i, j)))
    assert path  # some arc improves: the steps are compared, not only the start
    # the refit oracle counts plain Lidstone CPTs: the class arcs all kept
    clf = tl.TANSuperParent(random_state=seed, class_arcs="all").fit(X, y)
    np.testing.assert_allclose(clf.cv_accuracy_, history, rtol=0, atol=1e-12)
    assert clf.steps_ == path and clf.arcs_ == [a for _, a in path]
    for f in cols:
        assert clf.model_.parents(f) == ["C", *([parent[f]] if parent[f] else [])]


def test_some_super_parent_search_adds_arcs_and_saves():
    X, y = data(150, 2)
    clf = tl.TANSuperParent(random_state=0).fit(X, y)
    assert len(clf.arcs_) >= 1
    assert (np.diff(clf.cv_accuracy_) > 0).all()
    same = tl.TANSuperParent(random_state=0, n_jobs=2).fit(X, y)
    assert same.steps_ == clf.steps_
