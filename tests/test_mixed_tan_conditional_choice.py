"""MixedTAN's ``numbers="auto"`` chooses the numeric columns' forms in the feature tree
(issue 39): Gaussian or MDL bins for every number at once, the sum over the tree's families
of the leave-one-out log P(class | column, parent) the highest, every binned column under a
categorical or binned parent (treelearn/classifiers/_tree_number_choice.py).

Oracles: brute force (every part of each family refitted without each row: numpy least
squares for the lines, numpy means and variances, counts; every assignment of forms
enumerated), integer weights = repeated rows, the one-column score of MixedNaiveBayes (a
lone column), scikit-learn's StratifiedKFold accuracy of ``numbers="gaussian"`` against
``"auto"`` on the built example, and a save/load round trip.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold

import treelearn as tl
from tests.conftest import run_installed
from treelearn.classifiers._tree_number_choice import Variable, best_forms, family_loo_log_proba


# ---------------------------------------------------------------- the brute force
def _gauss(v, values, in_class, in_cell, everyone, var_prior, var_smoothing) -> float:
    """log N(v; mean, var) of a class's Gaussian learned from ``values`` (its rows in the
    cell): the ML mean and variance (np.mean, np.var), the variance shrunk by var_prior
    rows to ``in_cell``'s (the classes pooled in the cell; ``everyone``'s when empty);
    no value: the class's (``in_class``) mean and variance; plus var_smoothing times
    ``everyone``'s variance."""
    s0 = float(np.var(everyone))
    reference = float(np.var(in_cell)) if len(in_cell) else s0
    source = values if len(values) else in_class
    mean, var, n = float(np.mean(source)), float(np.var(source)), len(values)
    if var_prior:
        var = (n * var + var_prior * reference) / (n + var_prior)
    var += var_smoothing * s0
    return -0.5 * (np.log(2 * np.pi * var) + (v - mean) ** 2 / var)


def _fit_line(vs, ons) -> tuple[float, float, float]:
    """The least-squares line (np.linalg.lstsq; slope 0 for a constant regressor) and its
    ML residual variance."""
    if np.ptp(ons) == 0:
        return float(np.mean(vs)), 0.0, float(np.var(vs))
    design = np.column_stack([np.ones(len(ons)), ons])
    (a, b), *_ = np.linalg.lstsq(design, vs, rcond=None)
    return float(a), float(b), float(np.mean((vs - a - b * ons) ** 2))


def _line(v, on, vs, ons, all_vs, all_ons, var_prior, var_smoothing) -> float:
    """log N(v; a + b on, var) of a class's line of ``vs`` on ``ons``, its residual variance
    shrunk to the line of every other row's (``all_*``)."""
    a, b, var = _fit_line(vs, ons)
    _, _, reference = _fit_line(all_vs, all_ons)
    if var_prior:
        var = (len(vs) * var + var_prior * reference) / (len(vs) + var_prior)
    var += var_smoothing * float(np.var(all_vs))
    return -0.5 * (np.log(2 * np.pi * var) + (v - a - b * on) ** 2 / var)


def _lidstone(state, states: np.ndarray, n_states: int, alpha: float) -> float:
    return float(np.log(((states == state).sum() + alpha) / (len(states) + alpha * n_states)))


def _brute_family(x, x_states, parent, p_states, y, *, alpha, var_prior, var_smoothing):
    """log P_{-i}(y_i | x_i, p_i) under P(c) P(p | c) P(x | c, p), every part refitted
    without row i (``*_states`` 0: a Gaussian column; ``parent`` None: no parent)."""
    n = len(x)
    out = np.full(n, np.nan)
    gauss = {"var_prior": var_prior, "var_smoothing": var_smoothing}
    for i in range(n):
        o = np.arange(n) != i
        if y[i] not in set(y[o]):
            continue
        joint = {}
        for c in sorted(set(y[o])):
            r = o & (y == c)
            term = np.log(r.sum() / o.sum())
            p = parent
            if p is None:
                cell, in_cell = r, o
            elif p_states:
                term += _lidstone(p[i], p[r], p_states, alpha)
                cell, in_cell = r & (p == p[i]), o & (p == p[i])
            else:  # a Gaussian parent: binned x given the class alone (no CLG family)
                term += _gauss(p[i], p[r], p[r], p[o], p[o], **gauss)
                cell = r
            if p is not None and not p_states and not x_states:
                term += _line(x[i], p[i], x[r], p[r], x[o], p[o], **gauss)
            elif x_states:
                term += _lidstone(x[i], x[cell], x_states, alpha)
            else:
                term += _gauss(x[i], x[cell], x[r], x[in_cell], x[o], **gauss)
            joint[c] = term
        out[i] = joint[y[i]] - np.logaddexp.reduce(np.array(list(joint.values())))
    return out


def _family(seed: int = 3, n: int = 45):
    """Three classes (the third with one row: NaN), a number x with bins, a categorical
    g (class 1 never in its state 2: an empty cell) and a number p with bins (the last
    bin of one row: left out, no other row is in its cell)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[0] = 2
    g = rng.integers(0, 3, n)
    g[(y == 1) & (g == 2)] = 1
    p = rng.normal(size=n) + 0.5 * y
    x = rng.normal(g + 0.5 * p, 1.0) + 0.8 * y
    x_bins = np.searchsorted([-0.5, 1.0], x, side="left")
    p_bins = np.searchsorted([0.0, np.sort(p)[-2]], p, side="left")
    return x, x_bins, g, p, p_bins, y


FORMS = [  # (child form, parent form)
    ("gaussian", "none"),
    ("bins", "none"),
    ("gaussian", "categorical"),
    ("bins", "categorical"),
    ("gaussian", "gaussian"),
    ("gaussian", "bins"),
    ("bins", "gaussian"),
    ("bins", "bins"),
]


@pytest.mark.parametrize(("child_form", "parent_form"), FORMS)
@pytest.mark.parametrize(
    ("alpha", "var_prior", "var_smoothing"), [(1.0, 1.0, 1e-9), (0.5, 0.0, 1e-3), (1.0, 2.5, 0.0)]
)
def test_the_family_scores_are_refits_without_each_row(
    child_form, parent_form, alpha, var_prior, var_smoothing
):
    x, x_bins, g, p, p_bins, y = _family()
    assert (p_bins == 2).sum() == 1
    child = {"gaussian": (x, 0), "bins": (x_bins, 3)}[child_form]
    parent = {"none": (None, 0), "categorical": (g, 3), "gaussian": (p, 0), "bins": (p_bins, 3)}[
        parent_form
    ]
    options = {"alpha": alpha, "var_prior": var_prior, "var_smoothing": var_smoothing}
    mine = family_loo_log_proba(
        Variable(*child),
        None if parent[0] is None else Variable(*parent),
        y,
        np.ones(len(x)),
        3,
        **options,
    )
    brute = _brute_family(*child, *parent, y, **options)
    assert np.isnan(brute).sum() == 1  # the single row of class 2
    np.testing.assert_array_equal(np.isnan(mine), np.isnan(brute))
    ok = ~np.isnan(brute)
    # moments downdated by one row against a refit: round-off of a few ulps of each
    # variance, amplified by the squared distance over it
    np.testing.assert_allclose(mine[ok], brute[ok], rtol=1e-8, atol=1e-10)


def _enumerated(parents: dict, numeric: list, scores: dict) -> tuple[dict, dict]:
    """Every assignment of forms (0 Gaussian, 1 bins) to the numeric columns: the best, and
    each column's best with it Gaussian and binned."""
    best, totals = None, {v: [-np.inf, -np.inf] for v in numeric}
    for assignment in itertools.product((0, 1), repeat=len(numeric)):
        form = dict(zip(numeric, assignment))
        total = sum(scores[v][form[v], form.get(parents[v])] for v in numeric)
        for v in numeric:
            totals[v][form[v]] = max(totals[v][form[v]], total)
        # ties: the assignment with more Gaussians (then the first in this order)
        key = (total, -sum(assignment))
        if best is None or key > best[0]:
            best = (key, form)
    return best[1], {v: tuple(t) for v, t in totals.items()}


@pytest.mark.parametrize("seed", range(6))
def test_the_forms_are_the_best_assignment_by_enumeration(seed):
    rng = np.random.default_rng(seed)
    d = 8
    names = [f"v{i}" for i in range(d)]
    parents = {names[0]: None}
    for i in range(1, d):
        parents[names[i]] = names[int(rng.integers(0, i))]
    categorical = {names[0]} if seed % 2 else set()  # a categorical root, or every one a number
    numeric = [v for v in names if v not in categorical]
    scores = {}
    for v in numeric:
        p = parents[v]
        if p is None or p in categorical:
            scores[v] = {(f, None): float(rng.normal()) for f in (0, 1)}
        else:
            scores[v] = {k: float(rng.normal()) for k in itertools.product((0, 1), repeat=2)}
    forms, totals = best_forms(parents, numeric, scores)
    want, want_totals = _enumerated(parents, numeric, scores)
    assert forms == want
    for v in numeric:
        assert totals[v] == pytest.approx(want_totals[v], rel=1e-12)


def _table(seed: int = 7, n: int = 600) -> tuple[pd.DataFrame, np.ndarray]:
    """The class in z - x (x alone says nothing of it), x under a categorical g."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    g = rng.integers(0, 3, n)
    x = rng.normal(g, 1.0)
    z = x + rng.normal(0.3 * y, 0.3)
    return pd.DataFrame({"g": g.astype(str), "x": x, "z": z}), y


def test_the_classifier_chooses_by_the_brute_force_family_scores_in_the_gaussian_tree():
    X, y = _table(n=80)
    X["w"] = np.random.default_rng(2).lognormal(0.8 * y, 1.0)  # skewed: a candidate for bins
    X.loc[X.index[::9], "w"] = np.nan  # a family is judged on the rows holding both
    tree = tl.MixedTAN(numbers="gaussian").fit(X, y).feature_tree_
    clf = tl.MixedTAN().fit(X, y)
    numeric = ["x", "z", "w"]
    cut = tl.Discretizer(strategy="mdl", columns=numeric).fit(X, y)
    states = {v: len(cut.edges_[v]) + 1 for v in numeric}
    binned = {v: np.searchsorted(cut.edges_[v], X[v].to_numpy(), side="left") for v in numeric}
    options = {"alpha": 1.0, "var_prior": 1.0, "var_smoothing": 1e-9}
    parents = {v: next(iter(tree.predecessors(v)), None) for v in tree.nodes}
    scores = {}
    for v in numeric:
        p = parents[v]
        rows = X[v].notna().to_numpy() & (X[p].notna().to_numpy() if p else True)
        forms = {0: (X[v].to_numpy()[rows], 0), 1: (binned[v][rows], states[v])}
        if p == "g":
            g = (pd.factorize(X["g"], sort=True)[0][rows], 3)
            scores[v] = {
                (f, None): _brute_family(*forms[f], *g, y[rows], **options).mean() for f in (0, 1)
            }
        else:
            theirs = {0: (X[p].to_numpy()[rows], 0), 1: (binned[p][rows], states[p])}
            scores[v] = {
                (f, q): _brute_family(*forms[f], *theirs[q], y[rows], **options).mean()
                for f, q in itertools.product((0, 1), repeat=2)
            }
    want, totals = _enumerated(parents, numeric, scores)
    for v in numeric:
        choice = clf.number_choices_[v]
        # the classifier standardises each column first: the posteriors do not change
        assert (choice.gaussian, choice.bins) == pytest.approx(totals[v], rel=1e-9)
        assert choice.binned == (want[v] == 1) == (v in clf.binned_features_)
        assert choice.n_bins == states[v]


def _cv_accuracy(clf, X: pd.DataFrame, y: np.ndarray) -> float:
    hits = []
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        hits.append(clf.fit(X.iloc[train], y[train]).score(X.iloc[test], y[test]))
    return float(np.mean(hits))


def test_a_number_telling_the_class_with_its_neighbour_stays_gaussian():
    # the built example of tests/test_clg_trees.py: judged alone, x (its class-conditional
    # distribution the same in both classes) was cut into one bin and z - x was lost
    # (0.531 there, as naive Bayes; 0.697 with the Gaussians)
    rng = np.random.default_rng(7)
    n = 4000
    y = rng.integers(0, 2, n)
    g = rng.integers(0, 3, n)
    x = rng.normal(g, 1.0)
    X = pd.DataFrame({"g": g, "x": x, "z": x + rng.normal(0.3 * y, 0.3)})
    auto = tl.MixedTAN().fit(X, y)
    assert "x" in auto.numeric_features_ and "z" in auto.numeric_features_
    choice = auto.number_choices_["x"]
    assert choice.gaussian > choice.bins + 0.05  # by a margin (measured: 0.10 nats a row)
    alone = tl.MixedNaiveBayes().fit(X, y).number_choices_["x"]
    assert alone.binned  # what the one-column score says
    gaussian = _cv_accuracy(tl.MixedTAN(numbers="gaussian"), X, y)
    assert _cv_accuracy(tl.MixedTAN(), X, y) >= gaussian - 1e-12
    assert gaussian > _cv_accuracy(tl.MixedNaiveBayes(), X, y) + 0.1


def test_a_column_with_no_neighbour_is_judged_as_alone():
    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 2, n)
    bimodal = np.where(y == 1, rng.choice([-3.0, 3.0], n), 0.0) + rng.normal(0, 0.5, n)
    X = pd.DataFrame({"bimodal": bimodal})
    tan, nb = tl.MixedTAN().fit(X, y), tl.MixedNaiveBayes().fit(X, y)
    for part in ("gaussian", "bins"):
        assert getattr(tan.number_choices_["bimodal"], part) == pytest.approx(
            getattr(nb.number_choices_["bimodal"], part), rel=1e-9
        )
    assert tan.binned_features_ == nb.binned_features_ == ["bimodal"]


def test_columns_informative_alone_are_chosen_as_before():
    # the built columns of tests/test_mixed_column_choice.py: a bimodal and a skewed one
    # are binned, six ordered normal classes keep their Gaussian, each alone as before
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    bimodal = np.where(y == 1, rng.choice([-3.0, 3.0], n), 0.0) + rng.normal(0, 0.5, n)
    X = pd.DataFrame({"bimodal": bimodal, "skewed": rng.lognormal(1.0 * y, 1.0)})
    for f in ("bimodal", "skewed"):
        alone = tl.MixedTAN().fit(X[[f]], y)
        assert alone.binned_features_ == tl.MixedNaiveBayes().fit(X[[f]], y).binned_features_
        assert alone.binned_features_ == [f]
    # together: the bimodal column tells the class (LOO -0.04 nats a row) and stays binned;
    # given its bins the skewed one adds little either way (its two forms within 0.005)
    both = tl.MixedTAN().fit(X, y)
    assert "bimodal" in both.binned_features_
    skewed = both.number_choices_["skewed"]
    assert abs(skewed.gaussian - skewed.bins) < 0.005
    y6 = rng.integers(0, 6, 200)
    X6 = pd.DataFrame({"ordered": rng.normal(1.5 * y6, 1.0)})
    assert tl.MixedTAN().fit(X6, y6).numeric_features_ == ["ordered"]


def test_whole_weights_are_repeated_rows():
    X, y = _table(n=120)
    X.loc[X.index[::7], "z"] = np.nan  # rows missing a neighbour are left out of x's score
    w = np.random.default_rng(5).integers(1, 4, len(X))
    weighted = tl.MixedTAN().fit(X, y, sample_weight=w)
    repeated = tl.MixedTAN().fit(X.loc[X.index.repeat(w)], np.repeat(y, w))
    assert weighted.number_choices_.keys() == repeated.number_choices_.keys()
    for f, choice in weighted.number_choices_.items():
        other = repeated.number_choices_[f]
        assert (choice.binned, choice.n_bins) == (other.binned, other.n_bins)
        assert choice.gaussian == pytest.approx(other.gaussian, rel=1e-10)
        assert choice.bins == pytest.approx(other.bins, rel=1e-10)
    np.testing.assert_allclose(
        weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-9, atol=1e-12
    )


def test_saved_and_loaded(tmp_path):
    X, y = _table(n=300)
    X["skewed"] = np.random.default_rng(1).lognormal(1.0 * y, 1.0)
    clf = tl.MixedTAN().fit(X, y)
    assert clf.binned_features_  # something binned, something Gaussian
    assert clf.numeric_features_
    path = tmp_path / "m.json"
    clf.save(path)
    back = tl.load(path)
    assert back.number_choices_ == clf.number_choices_
    assert back.binned_features_ == clf.binned_features_
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))


@pytest.mark.slow  # the installed command in subprocesses
def test_the_command_keeps_a_number_its_neighbour_needs(tmp_path):
    X, y = _table(n=1500)
    table = tmp_path / "zx.csv"
    X.assign(y=y).to_csv(table, index=False)
    model = tmp_path / "m.json"

    run = run_installed
    learned = run("learn", str(table), "--numeric", "auto", "--class", "y", "-o", str(model))
    read = tl.io.read_data(table)
    direct = tl.MixedTAN().fit(read.drop(columns="y"), read["y"])
    assert "x" in direct.numeric_features_
    assert learned.startswith(direct.to_text())
    assert "x (Gaussian)" in learned and "z (Gaussian)" in learned
    predicted = run("predict", str(model), str(table)).splitlines()[1:]
    assert predicted == [str(v) for v in direct.predict(read.drop(columns="y"))]
