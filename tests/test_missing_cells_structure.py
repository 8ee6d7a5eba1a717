"""The structure-searching classifiers learn from tables with missing cells (issue 39):
ETAN, SKDB, BayesianTAN, FSSJ, BSEJ, TANHillClimb and TANSuperParent.

Each number is computed here independently, by counting the rows of a pandas frame:

* every CPT is the Lidstone estimate of a pandas ``groupby`` count over the rows where
  its family is observed;
* every posterior is the full joint of the fitted network with the missing features
  summed out (``oracles.marginal_probability``), normalised over the classes;
* ETAN's family scores are the sequential Dirichlet predictive (Pólya's urn) over the rows
  each family is scored on, and its structure the best of every ETAN structure under
  them (enumerated);
* SKDB's leave-one-out losses and the wrappers' fold accuracies refit by counting the
  other rows (the folds' held-in rows), row by row, with the missing-cell rule the
  docstrings state;
* BayesianTAN's posterior sums over every spanning tree (enumerated) and every
  completion of a row's missing features.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from oracles import marginal_probability, sequential_log_evidence, spanning_trees
from scipy.special import gammaln, logsumexp
from sklearn.model_selection import StratifiedKFold

import treelearn as tl
from treelearn.classifiers._bayes_tan import pairwise_complete_tables
from treelearn.classifiers._wrappers import FoldScorer
from treelearn.learners._bayes_trees import bdeu_edge_weights, bdeu_predictive_tables
from treelearn.sources._count import count

CARDS = (2, 3, 2, 3)


def gappy(
    n: int, seed: int, rate: float = 0.12, last_rate: float | None = None
) -> tuple[pd.DataFrame, pd.Series]:
    """Four categorical features that hang on the class and on each other, each cell
    missing with probability ``rate`` (the last column's ``last_rate``; declared states:
    every fold knows them)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    cols, prev = {}, y % 2
    for j, k in enumerate(CARDS):
        keep = rng.random(n) < 0.7
        x = np.where(keep, (prev + y * (j % 2)) % k, rng.integers(0, k, n))
        values = pd.Series(np.array([f"s{v}" for v in range(k)], dtype=object)[x])
        gap = rate if last_rate is None or j < len(CARDS) - 1 else last_rate
        values[rng.random(n) < gap] = None
        cols[f"x{j}"] = pd.Categorical(values, categories=[f"s{v}" for v in range(k)])
        prev = x
    return pd.DataFrame(cols), pd.Series(np.array(["a", "b", "c"])[y], name="C")


def codes_of(X: pd.DataFrame) -> np.ndarray:
    return np.column_stack([X[c].cat.codes.to_numpy() for c in X.columns])


NETWORKS = {
    "ETAN": lambda: tl.ETAN(numbers="states", alpha=0.5),
    "SKDB": lambda: tl.SKDB(numbers="states", max_k=2, alpha=0.5),
    "FSSJ": lambda: tl.FSSJ(numbers="states", alpha=0.5, random_state=0),
    "BSEJ": lambda: tl.BSEJ(numbers="states", alpha=0.5, random_state=0),
    "TANHillClimb": lambda: tl.TANHillClimb(numbers="states", alpha=0.5, random_state=0),
    "TANSuperParent": lambda: tl.TANSuperParent(numbers="states", alpha=0.5, random_state=0),
}


@pytest.mark.parametrize("name", list(NETWORKS))
def test_cpts_are_counts_of_the_rows_where_the_family_is_observed(name):
    X, y = gappy(400, seed=1)
    # hand-counted plain CPTs: every class arc kept (class_arcs="all"), not averaged
    clf = NETWORKS[name]().set_params(class_arcs="all").fit(X, y)
    df = X.assign(C=pd.Categorical(y, categories=list(clf.classes_)))
    model, with_parents = clf.model_, 0
    for f in X.columns:
        parents = model.parents(f)
        if not parents:
            continue
        with_parents += len(parents) > 1
        k = len(X[f].cat.categories)
        # groupby leaves out the rows with a missing key: the family's observed rows
        counts = df.groupby([*parents, f], observed=False).size().to_numpy(float).reshape(-1, k)
        want = (counts + 0.5) / (counts.sum(axis=1, keepdims=True) + k * 0.5)
        np.testing.assert_allclose(model.cpt(f).reshape(-1, k), want, rtol=1e-12)
    if name in ("ETAN", "SKDB", "TANHillClimb", "TANSuperParent"):
        assert with_parents >= 1  # a feature parent, whose rows differ from its child's


@pytest.mark.parametrize("name", list(NETWORKS))
def test_posteriors_sum_the_missing_features_out_of_the_full_joint(name):
    X, y = gappy(300, seed=2)
    clf = NETWORKS[name]().fit(X, y)
    rows = X[X.isna().any(axis=1)].head(25)
    assert len(rows) == 25
    proba = clf.predict_proba(rows)
    model, cls = clf.model_, clf.class_name_
    for i, (_, row) in enumerate(rows.iterrows()):
        joint = np.array([marginal_probability(model, {**row, cls: c}) for c in clf.classes_])
        np.testing.assert_allclose(proba[i], joint / joint.sum(), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------------------- ETAN
def family_score(df: pd.DataFrame, child: str, parents: list, rows: np.ndarray, ess: float):
    """BDeu of ``child | parents`` over ``rows``, as Pólya's urn row after row."""
    sub = df[rows]
    r = len(df[child].cat.categories)
    q = int(np.prod([len(df[p].cat.categories) for p in parents])) if parents else 1
    groups = list(sub[parents].itertuples(index=False, name=None)) if parents else None
    return sequential_log_evidence(sub[child].cat.codes.to_numpy(), r, ess / (q * r), groups)


@pytest.mark.parametrize(("seed", "ess"), [(3, 1.0), (4, 4.0)])
def test_etan_scores_each_family_on_its_rows_and_takes_the_best_structure(seed, ess):
    # x3 mostly missing: an arc out of it, scored against x_i's family over all of x_i's
    # rows, would win by seeing fewer rows
    X, y = gappy(160, seed, rate=0.1, last_rate=0.7)
    df = X.assign(C=pd.Categorical(y))
    cols = list(X.columns)
    seen = {c: X[c].notna().to_numpy() for c in cols}

    def best_alone(i, rows):
        return max(family_score(df, i, [], rows, ess), family_score(df, i, ["C"], rows, ess))

    def best_with(i, j):
        rows = seen[i] & seen[j]
        return max(family_score(df, i, [j], rows, ess), family_score(df, i, ["C", j], rows, ess))

    alone = {i: best_alone(i, seen[i]) for i in cols}
    gain = {
        (j, i): best_with(i, j) - best_alone(i, seen[i] & seen[j])
        for i in cols
        for j in cols
        if i != j
    }
    # every branching (at most one feature parent each, no cycle): the arcs' gains summed
    best = []
    for choice in itertools.product([None, *cols], repeat=len(cols)):
        arcs = [(p, f) for f, p in zip(cols, choice) if p is not None]
        if any(p == f for p, f in arcs):
            continue
        parent = dict(zip(cols, choice))
        ok = True
        for f in cols:  # follow the parents up: a cycle comes back
            seen_nodes, v = set(), f
            while v is not None and ok:
                ok = v not in seen_nodes
                seen_nodes.add(v)
                v = parent[v]
        if ok:
            best.append((sum(alone.values()) + sum(gain[a] for a in arcs), choice))
    scores = {choice: total for total, choice in best}
    top = max(scores.values())
    clf = tl.ETAN(numbers="states", equivalent_sample_size=ess).fit(X, y)
    # BDeu is score-equivalent: reversing an arc may tie, so the choice is one of the best
    chosen = tuple(clf.feature_parent_[f] for f in cols)
    assert scores[chosen] == pytest.approx(top, rel=1e-12)
    assert any(p is not None for p in clf.feature_parent_.values())
    # the reported score: each chosen family's over its own rows
    want = sum(
        best_alone(f, seen[f]) if p is None else best_with(f, p)
        for f, p in clf.feature_parent_.items()
    )
    assert clf.structure_score_ == pytest.approx(want, rel=1e-10)


# ------------------------------------------------------------------------------- SKDB
def gap_family_term(X, V, labels, classes, i, f, u, counted, alpha) -> np.ndarray:
    """Row ``i``'s Lidstone term ``log p(x_f | c, u)`` for every class, counted over the
    rows ``counted`` where the family is observed: 0 where ``x_f`` is missing, the parents
    cut at the row's first missing one."""
    col = {g: j for j, g in enumerate(X.columns)}
    term = np.zeros(len(classes))
    if V[i, col[f]] < 0:
        return term
    cut = next((r for r, p in enumerate(u) if V[i, col[p]] < 0), len(u))
    match = counted & (V[:, col[f]] >= 0)
    for p in u[:cut]:
        match &= V[:, col[p]] == V[i, col[p]]
    kf = len(X[f].cat.categories)
    for ci, c in enumerate(classes):
        den = (match & (labels == c)).sum()
        num = (match & (labels == c) & (V[:, col[f]] == V[i, col[f]])).sum()
        term[ci] = np.log((num + alpha) / (den + kf * alpha))
    return term


def loo_with_gaps(X, y, order, parents, max_k, alpha):
    """losses[k, s] by leaving each row out and counting the other rows: a missing x_f
    adds nothing, a missing parent cuts the row's parents at it; each family's counts
    over the other rows where the (cut) family is observed."""
    n, classes = len(X), sorted(set(y))
    V, labels = codes_of(X), y.to_numpy()
    out = np.zeros((max_k + 1, len(order) + 1))
    for i in range(n):
        rest = np.arange(n) != i
        for k in range(max_k + 1):
            joint = np.array(
                [
                    np.log(
                        ((labels[rest] == c).sum() + alpha) / (rest.sum() + len(classes) * alpha)
                    )
                    for c in classes
                ]
            )
            terms = [joint.copy()]
            for f in order:
                joint += gap_family_term(X, V, labels, classes, i, f, parents[f][:k], rest, alpha)
                terms.append(joint.copy())
            yi = classes.index(labels[i])
            for s, jl in enumerate(terms):
                out[k, s] += logsumexp(jl) - jl[yi]
    return out


def test_skdb_leave_one_out_with_missing_cells_is_refitting():
    X, y = gappy(70, seed=5, rate=0.15)
    clf = tl.SKDB(numbers="states", max_k=2, alpha=0.5).fit(X, y)
    kdb = tl.KDB(numbers="states", k=2).fit(X, y)
    order = list(kdb.feature_order_)
    assert list(clf.feature_order_) == order
    parents = {f: kdb.model_.parents(f)[1:] for f in order}
    assert max(len(p) for p in parents.values()) == 2
    want = loo_with_gaps(X, y, order, parents, 2, 0.5)
    np.testing.assert_allclose(clf.loo_loss_, want, rtol=1e-10, atol=1e-10)


# --------------------------------------------------------------------------- wrappers
def fold_accuracy(X, y, parents: dict, cv: int, seed: int, alpha: float) -> float:
    """Mean held-out accuracy of the network ``C -> f`` (and ``parents[f]``) refitted on
    each fold by counting, row by row, under the missing-cell rule of FoldScorer."""
    V, labels = codes_of(X), y.to_numpy()
    classes = sorted(set(labels))
    folds = StratifiedKFold(cv, shuffle=True, random_state=seed).split(np.zeros(len(y)), labels)
    accuracies = []
    for train, test in folds:
        held_in = np.zeros(len(y), dtype=bool)
        held_in[train] = True
        hits = 0
        for i in test:
            joint = np.array([np.log((labels[train] == c).mean()) for c in classes])
            for f, u in parents.items():
                joint += gap_family_term(X, V, labels, classes, i, f, u, held_in, alpha)
            hits += classes[int(np.argmax(joint))] == labels[i]
        accuracies.append(hits / len(test))
    return float(np.mean(accuracies))


@pytest.mark.parametrize(
    "parents",
    [
        {"x0": [], "x1": [], "x2": [], "x3": []},
        {"x0": [], "x1": ["x0"], "x2": ["x1"], "x3": ["x1"]},
        {"x1": [], "x2": ["x1", "x3"], "x3": ["x1"]},  # a super-feature's chain, and x0 out
    ],
)
def test_fold_scores_with_missing_cells_are_refitting(parents):
    X, y = gappy(150, seed=6, rate=0.15)
    codes = np.column_stack([codes_of(X), pd.Categorical(y).codes])
    folds = np.empty(len(y), dtype=np.intp)
    splits = StratifiedKFold(5, shuffle=True, random_state=0).split(np.zeros(len(y)), y)
    for f, (_, test) in enumerate(splits):
        folds[test] = f
    scorer = FoldScorer(codes, None, np.array([*CARDS, 3]), folds, alpha=0.5, log_prior=None)
    col = {f: j for j, f in enumerate(X.columns)}
    total = scorer.base.copy()
    for f, u in parents.items():
        total = total + scorer.term(col[f], [col[p] for p in u])
    want = fold_accuracy(X, y, parents, 5, 0, 0.5)
    assert scorer.accuracy(total) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("name", ["FSSJ", "BSEJ", "TANHillClimb", "TANSuperParent"])
def test_each_search_reports_the_refitted_fold_accuracy_of_its_structure(name):
    X, y = gappy(150, seed=7, rate=0.15)
    clf = NETWORKS[name]().fit(X, y)
    parents = {
        f: clf.model_.parents(f)[1:] for f in X.columns if clf.model_.parents(f)[:1] == ["C"]
    }
    want = fold_accuracy(X, y, parents, 5, 0, 0.5)
    assert clf.cv_accuracy_[-1] == pytest.approx(want, abs=1e-12)
    assert np.all(np.diff(clf.cv_accuracy_) > 0)  # each step improved the score


# ------------------------------------------------------------------------ BayesianTAN
def test_pairwise_tables_without_missing_cells_are_the_bdeu_tables():
    X, _ = gappy(80, seed=8, rate=0.0)
    counts = count(X).counts
    log_w, log_theta, log_rho = pairwise_complete_tables(counts, 2.0)
    np.testing.assert_allclose(log_w, bdeu_edge_weights(counts, 2.0)[1], rtol=1e-12)
    theta, rho = bdeu_predictive_tables(counts, 2.0)
    np.testing.assert_allclose(log_theta, theta, rtol=1e-12)
    owner = np.repeat(np.arange(len(CARDS)), CARDS)
    between = owner[:, None] != owner[None, :]  # the blocks the posterior reads
    np.testing.assert_allclose(log_rho[between], rho[between], rtol=1e-12, atol=1e-12)


def test_bayesian_tan_with_missing_cells_is_the_average_over_every_tree():
    X, y = gappy(120, seed=9, rate=0.15)
    s = 2.0
    clf = tl.BayesianTAN(numbers="states", equivalent_sample_size=s, class_arcs="all").fit(X, y)
    classes = list(clf.classes_)
    V, labels = codes_of(X), y.to_numpy()
    cols = list(X.columns)
    d, r_c = len(cols), len(classes)
    a = s / r_c  # each class's tables: BDeu with s / r_C

    def ml(values, k, alpha_cell):  # Dirichlet-multinomial of one column
        c = np.bincount(values, minlength=k)
        return (
            gammaln(k * alpha_cell)
            - gammaln(len(values) + k * alpha_cell)
            + float(np.sum(gammaln(c + alpha_cell) - gammaln(alpha_cell)))
        )

    log_w = np.zeros((d, d))
    theta: dict = {}
    pair: dict = {}
    for ci, c in enumerate(classes):
        in_c = labels == c
        for u in range(d):
            ku = CARDS[u]
            rows = in_c & (V[:, u] >= 0)
            theta[ci, u] = (np.bincount(V[rows, u], minlength=ku) + a / ku) / (rows.sum() + a)
            for v in range(d):
                if u == v:
                    continue
                kv = CARDS[v]
                both = in_c & (V[:, u] >= 0) & (V[:, v] >= 0)
                joint_codes = V[both, u] * kv + V[both, v]
                log_w[u, v] += (
                    ml(joint_codes, ku * kv, a / (ku * kv))
                    - ml(V[both, u], ku, a / ku)
                    - ml(V[both, v], kv, a / kv)
                )
                nuv = both.sum() + a
                t_uv = np.bincount(joint_codes, minlength=ku * kv).reshape(ku, kv) + a / (ku * kv)
                t_u = (np.bincount(V[both, u], minlength=ku) + a / ku) / nuv
                t_v = (np.bincount(V[both, v], minlength=kv) + a / kv) / nuv
                pair[ci, u, v] = t_uv / nuv / t_u[:, None] / t_v[None, :]
    prior = np.array([(labels == c).sum() + a for c in classes]) / (len(labels) + s)
    trees = spanning_trees(range(d))
    tree_weight = np.array([np.exp(sum(log_w[u, v] for u, v in t)) for t in trees])

    def joint(full, ci):  # P(c, x | D): the average over trees of one complete row
        node = prior[ci] * np.prod([theta[ci, u][full[u]] for u in range(d)])
        per_tree = [np.prod([pair[ci, u, v][full[u], full[v]] for u, v in t]) for t in trees]
        return node * float(tree_weight @ np.array(per_tree)) / tree_weight.sum()

    gaps = np.flatnonzero((V < 0).any(axis=1))[:12]
    proba = clf.predict_proba(X.iloc[gaps])
    for row, i in zip(proba, gaps):
        choices = [range(CARDS[u]) if V[i, u] < 0 else [V[i, u]] for u in range(d)]
        want = np.array(
            [sum(joint(full, ci) for full in itertools.product(*choices)) for ci in range(r_c)]
        )
        np.testing.assert_allclose(row, want / want.sum(), rtol=1e-9)
