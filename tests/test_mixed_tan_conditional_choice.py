"""MixedTAN's ``numbers="auto"`` judges each numeric column in the feature tree (issue 39):
the leave-one-out log P(class | column, its tree parent, its tree children) of its Gaussian
part against its MDL bins (treelearn/classifiers/_tree_number_choice.py).

Oracles: brute force (every part of the model refitted without each row: numpy least
squares for the regressions, pandas group means and variances, pandas counts), integer
weights = repeated rows, the one-column score of MixedNaiveBayes (a column with no tree
neighbour), scikit-learn's StratifiedKFold accuracy of ``numbers="gaussian"`` against
``"auto"`` on the built example, and a save/load round trip.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold

import treelearn as tl
from tests.conftest import installed_command
from treelearn.classifiers._tree_number_choice import Variable, blanket_loo_log_proba


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


def _brute(x, bins, n_bins, parent, children, y, *, alpha, var_prior, var_smoothing):
    """log P_{-i}(y_i | x_i, p_i, z_i) under each part, every piece refitted without row i."""
    n, classes = len(x), sorted(set(y))
    out = np.full((2, n), np.nan)
    for i in range(n):
        o = np.arange(n) != i
        if y[i] not in set(y[o]):
            continue
        joint = {"gaussian": {}, "bins": {}}
        for c in classes:
            r = o & (y == c)
            if not r.any():
                continue
            shared = np.log(r.sum() / o.sum())
            if parent is not None and parent.numeric:
                p = parent.values
                shared += _gauss(p[i], p[r], p[r], p[o], p[o], var_prior, var_smoothing)
                g = _line(x[i], p[i], x[r], p[r], x[o], p[o], var_prior, var_smoothing)
                b = _lidstone(bins[i], bins[r], n_bins, alpha)
            elif parent is not None:
                p = parent.values
                shared += _lidstone(p[i], p[r], parent.states, alpha)
                cell = r & (p == p[i])
                in_cell = o & (p == p[i])
                g = _gauss(x[i], x[cell], x[r], x[in_cell], x[o], var_prior, var_smoothing)
                b = _lidstone(bins[i], bins[cell], n_bins, alpha)
            else:
                g = _gauss(x[i], x[r], x[r], x[o], x[o], var_prior, var_smoothing)
                b = _lidstone(bins[i], bins[r], n_bins, alpha)
            for z in children:
                g += _line(z[i], x[i], z[r], x[r], z[o], x[o], var_prior, var_smoothing)
                same = o & (bins == bins[i])
                b += _gauss(z[i], z[r & same], z[r], z[same], z[o], var_prior, var_smoothing)
            joint["gaussian"][c] = shared + g
            joint["bins"][c] = shared + b
        for row, part in enumerate(("gaussian", "bins")):
            values = np.array(list(joint[part].values()))
            out[row, i] = joint[part][y[i]] - np.logaddexp.reduce(values)
    return out


def _family(seed: int = 3, n: int = 45):
    """Three classes (the third with one row: NaN), a column x, its parent of either
    kind, two children; a cell (class, parent state) with no row, and a bin of one row,
    to show the fallbacks."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[0] = 2
    g = rng.integers(0, 3, n)
    g[(y == 1) & (g == 2)] = 1  # class 1 never in state 2: an empty cell
    p = rng.normal(size=n)
    x = rng.normal(g + 0.5 * p, 1.0)
    z1 = x + rng.normal(0.8 * y, 0.5)
    z2 = rng.normal(-x, 1.0) + y
    # the last bin holds one row: left out, no other row is in its cell
    bins = np.searchsorted([-0.5, 1.0, np.sort(x)[-2]], x, side="left")
    return x, bins, g, p, [z1, z2], y


@pytest.mark.parametrize("parent_kind", ["none", "categorical", "numeric"])
@pytest.mark.parametrize("n_children", [0, 1, 2])
@pytest.mark.parametrize(
    ("alpha", "var_prior", "var_smoothing"), [(1.0, 1.0, 1e-9), (0.5, 0.0, 1e-3), (1.0, 2.5, 0.0)]
)
def test_the_scores_are_refits_without_each_row(
    parent_kind, n_children, alpha, var_prior, var_smoothing
):
    x, bins, g, p, children, y = _family()
    parent = {"none": None, "categorical": Variable(g, 3), "numeric": Variable(p)}[parent_kind]
    kids = children[:n_children]
    options = {"alpha": alpha, "var_prior": var_prior, "var_smoothing": var_smoothing}
    gaussian, binned = blanket_loo_log_proba(
        x, bins, 4, parent, kids, y, np.ones(len(x)), 3, **options
    )
    brute = _brute(x, bins, 4, parent, kids, y, **options)
    assert (bins == 3).sum() == 1
    assert np.isnan(brute[0]).sum() == 1  # the single row of class 2
    for mine, theirs in ((gaussian, brute[0]), (binned, brute[1])):
        np.testing.assert_array_equal(np.isnan(mine), np.isnan(theirs))
        ok = ~np.isnan(theirs)
        # moments downdated by one row against a refit: round-off of a few ulps of each
        # variance, amplified by the squared distance over it
        np.testing.assert_allclose(mine[ok], theirs[ok], rtol=1e-8, atol=1e-10)


def _table(seed: int = 7, n: int = 600) -> tuple[pd.DataFrame, np.ndarray]:
    """The class in z - x (x alone says nothing of it), x under a categorical g."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    g = rng.integers(0, 3, n)
    x = rng.normal(g, 1.0)
    z = x + rng.normal(0.3 * y, 0.3)
    return pd.DataFrame({"g": g.astype(str), "x": x, "z": z}), y


def test_the_classifier_scores_are_the_brute_force_means_in_the_gaussian_tree():
    X, y = _table(n=80)
    tree = tl.MixedTAN(numbers="gaussian").fit(X, y).feature_tree_
    assert tree.has_edge("g", "x") or tree.has_edge("g", "z")  # g the root, then a chain
    clf = tl.MixedTAN().fit(X, y)
    edges = clf.binner_.edges_ if clf.binner_ is not None else {}
    cut = tl.Discretizer(strategy="mdl", columns=["x", "z"]).fit(X, y)
    g_codes = pd.factorize(X["g"], sort=True)[0]
    options = {"alpha": 1.0, "var_prior": 1.0, "var_smoothing": 1e-9}
    for column in ("x", "z"):
        (above,) = tree.predecessors(column)
        parent = Variable(g_codes, 3) if above == "g" else Variable(X[above].to_numpy())
        kids = [X[v].to_numpy() for v in tree.successors(column)]
        cuts = np.asarray(cut.edges_[column])
        bins = np.searchsorted(cuts, X[column].to_numpy(), side="left")
        brute = _brute(X[column].to_numpy(), bins, len(cuts) + 1, parent, kids, y, **options)
        choice = clf.number_choices_[column]
        # the classifier standardises each column first: the posteriors do not change
        assert choice.gaussian == pytest.approx(brute[0].mean(), rel=1e-9)
        assert choice.bins == pytest.approx(brute[1].mean(), rel=1e-9)
        assert choice.n_bins == len(cuts) + 1
        assert choice.binned == (choice.bins > choice.gaussian)
        assert (column in edges) == choice.binned


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
    # the built table of tests/test_mixed_column_choice.py: a bimodal and a skewed column
    # are binned; six ordered normal classes keep their Gaussian
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    bimodal = np.where(y == 1, rng.choice([-3.0, 3.0], n), 0.0) + rng.normal(0, 0.5, n)
    X = pd.DataFrame({"bimodal": bimodal, "skewed": rng.lognormal(1.0 * y, 1.0)})
    clf = tl.MixedTAN().fit(X, y)
    assert clf.binned_features_ == ["bimodal", "skewed"]
    for f in ("bimodal", "skewed"):
        assert clf.number_choices_[f].bins > clf.number_choices_[f].gaussian + 0.05
    y6 = rng.integers(0, 6, 200)
    X6 = pd.DataFrame({"ordered": rng.normal(1.5 * y6, 1.0), "noise": rng.normal(size=200)})
    clf = tl.MixedTAN().fit(X6, y6)
    assert "ordered" in clf.numeric_features_


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
    exe = installed_command()
    if exe is None:
        pytest.skip("the treelearn command is not installed")
    X, y = _table(n=1500)
    table = tmp_path / "zx.csv"
    X.assign(y=y).to_csv(table, index=False)
    model = tmp_path / "m.json"

    def run(*argv: str) -> str:
        done = subprocess.run([exe, *argv], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout

    learned = run("learn", str(table), "--numeric", "auto", "--class", "y", "-o", str(model))
    direct = tl.MixedTAN().fit(tl.io.read_data(table).drop(columns="y"), y)
    assert "x" in direct.numeric_features_
    assert learned.startswith(direct.to_text())
    assert "x (Gaussian)" in learned and "z (Gaussian)" in learned
    predicted = run("predict", str(model), str(table)).splitlines()[1:]
    assert predicted == [str(v) for v in direct.predict(tl.io.read_data(table).drop(columns="y"))]
