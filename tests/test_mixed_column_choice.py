"""``numbers="auto"`` of MixedNaiveBayes and MixedTAN (issue 39): each numeric column a
Gaussian per class or its supervised MDL bins, whichever has the higher leave-one-out
log P(class | column) on the training rows.

Oracles: brute force (the one-column classifier refitted without each row:
``MixedNaiveBayes(numbers="gaussian")`` for the Gaussian part, pandas counts for the
bins), integer weights = repeated rows, the observed rows of a column with missing cells
alone, scipy's normal density with pandas groupby means and variances for the hand-built
posterior, ``tl.Discretizer(strategy="mdl")`` for the bins, and the Shapley efficiency
identity (the values add up to the prediction's log-odds).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

import treelearn as tl
from tests.conftest import run_installed
from treelearn.classifiers._number_choice import bins_loo_log_proba, gaussian_loo_log_proba

MIXED = [tl.MixedNaiveBayes, tl.MixedTAN]


def _small(seed: int = 1, n: int = 60) -> tuple[pd.DataFrame, pd.Series]:
    """Three classes, one column of numbers with missing cells; class "c" has a single
    observed row (left out of both scores: no other row shows its class)."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b"], n)
    x = np.where(y == "a", rng.normal(0.0, 1.0, n), rng.exponential(2.0, n) + 0.5)
    x[rng.random(n) < 0.1] = np.nan
    y[0], x[0] = "c", 1.7
    y[1], x[1] = "c", np.nan
    return pd.DataFrame({"x": x}), pd.Series(y, name="y")


def _brute_gaussian(X, y, var_prior, var_smoothing) -> np.ndarray:
    """log P_{-i}(y_i | x_i) of every observed row: MixedNaiveBayes(numbers="gaussian")
    fitted on the other observed rows (NaN where the row's class has no other row)."""
    seen = X["x"].notna().to_numpy()
    rows = np.flatnonzero(seen)
    out = np.full(len(rows), np.nan)
    for r, i in enumerate(rows):
        others = seen.copy()
        others[i] = False
        if y.iloc[i] not in set(y[others]):
            continue
        clf = tl.MixedNaiveBayes(
            numbers="gaussian", var_prior=var_prior, var_smoothing=var_smoothing
        ).fit(X[others], y[others])
        log_p = clf.predict_log_proba(X.iloc[[i]])[0]
        out[r] = log_p[list(clf.classes_).index(y.iloc[i])]
    return out


def _codes(y: pd.Series) -> tuple[np.ndarray, int]:
    codes, uniques = pd.factorize(y)
    return codes, len(uniques)


@pytest.mark.parametrize(("var_prior", "var_smoothing"), [(1.0, 1e-9), (2.5, 0.0), (0.0, 1e-3)])
def test_the_gaussian_score_is_a_refit_without_each_row(var_prior, var_smoothing):
    X, y = _small()
    seen = X["x"].notna().to_numpy()
    codes, k = _codes(y)
    mine = gaussian_loo_log_proba(
        X["x"].to_numpy()[seen], codes[seen], np.ones(seen.sum()), k, var_prior, var_smoothing
    )
    brute = _brute_gaussian(X, y, var_prior, var_smoothing)
    assert np.isnan(brute).sum() == 1  # the single observed "c" row
    np.testing.assert_array_equal(np.isnan(mine), np.isnan(brute))
    ok = ~np.isnan(brute)
    # a mean and variance downdated by one row against a refit: round-off of a few ulps of
    # the variances, amplified by the squared distance over the variance
    np.testing.assert_allclose(mine[ok], brute[ok], rtol=1e-9, atol=1e-12)
    # the classifier's own score is their mean
    clf = tl.MixedNaiveBayes(var_prior=var_prior, var_smoothing=var_smoothing).fit(X, y)
    assert clf.number_choices_["x"].gaussian == pytest.approx(np.mean(brute[ok]), rel=1e-9)


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_the_bins_score_is_a_recount_without_each_row(alpha):
    X, y = _small()
    seen = X["x"].notna().to_numpy()
    edges = tl.Discretizer(strategy="mdl").fit(X, y).edges_["x"]  # the MDL cut points
    B = len(edges) + 1
    assert B >= 2  # the skewed class is cut apart
    x, labels = X["x"].to_numpy()[seen], y.to_numpy()[seen]
    bins = np.searchsorted(edges, x, side="left")  # v <= edge: that edge's bin
    classes = sorted(set(labels))
    brute = np.full(len(x), np.nan)
    for i in range(len(x)):
        keep = np.arange(len(x)) != i
        if labels[i] not in set(labels[keep]):
            continue
        table = pd.crosstab(labels[keep], bins[keep]).reindex(
            index=classes, columns=range(B), fill_value=0
        )
        n_c = table.sum(axis=1)
        joint = n_c / keep.sum() * (table[bins[i]] + alpha) / (n_c + alpha * B)
        joint = joint[n_c > 0]
        brute[i] = np.log(joint[labels[i]] / joint.sum())
    codes, k = _codes(pd.Series(labels))
    mine = bins_loo_log_proba(bins, codes, np.ones(len(x)), k, B, alpha)
    np.testing.assert_array_equal(np.isnan(mine), np.isnan(brute))
    ok = ~np.isnan(brute)
    np.testing.assert_allclose(mine[ok], brute[ok], rtol=1e-12, atol=1e-14)
    choice = tl.MixedNaiveBayes(alpha=alpha).fit(X, y).number_choices_["x"]
    assert choice.n_bins == B
    assert choice.bins == pytest.approx(np.mean(brute[ok]), rel=1e-12)


def test_whole_weights_are_repeated_rows_and_missing_cells_are_left_out():
    X, y = _small()
    w = np.random.default_rng(5).integers(1, 4, len(X))
    for make in MIXED:
        weighted = make().fit(X, y, sample_weight=w)
        repeated = make().fit(X.loc[X.index.repeat(w)], y.loc[y.index.repeat(w)])
        for part in ("gaussian", "bins"):
            assert getattr(weighted.number_choices_["x"], part) == pytest.approx(
                getattr(repeated.number_choices_["x"], part), rel=1e-10
            )
        np.testing.assert_allclose(
            weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-9, atol=1e-12
        )
    # a column's missing cells: judged on its observed rows, as that table alone
    seen = X["x"].notna()
    for make in MIXED:
        assert make().fit(X, y).number_choices_ == make().fit(X[seen], y[seen]).number_choices_


# ---------------------------------------------------------------- the choice on built data
def _built(seed: int = 0, n: int = 400) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    # class 1 at -3 or +3, class 0 at 0: one Gaussian per class sees the same mean and
    # only a wider variance; the bins see three intervals
    bimodal = np.where(y == 1, rng.choice([-3.0, 3.0], n), 0.0) + rng.normal(0, 0.5, n)
    skewed = rng.lognormal(1.0 * y, 1.0)  # a long right tail no normal follows
    return pd.DataFrame({"bimodal": bimodal, "skewed": skewed}), pd.Series(y, name="y")


def _ordered(seed: int = 0, n: int = 200) -> tuple[pd.DataFrame, pd.Series]:
    # six classes in a row of overlapping normals (means 1.5 apart, sd 1): one Gaussian per
    # class is the true model, two numbers each; the bins would need a cut between every
    # pair of neighbouring classes from ~33 rows a class (measured over seeds 0-29: the
    # Gaussian ahead by 0.022-0.10 nats a row)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 6, n)
    return pd.DataFrame({"ordered": rng.normal(1.5 * y, 1.0)}), pd.Series(y, name="y")


@pytest.mark.parametrize("make", MIXED)
def test_skewed_and_bimodal_columns_are_binned_a_gaussian_one_stays_gaussian(make):
    X, y = _built()
    # MixedTAN chooses its forms in the tree: given the bimodal column's bins the skewed
    # one adds little either way (tests/test_mixed_tan_conditional_choice.py), so each is
    # judged alone here
    parts = [["bimodal", "skewed"]] if make is tl.MixedNaiveBayes else [["bimodal"], ["skewed"]]
    for columns in parts:
        clf = make().fit(X[columns], y)
        assert clf.binned_features_ == columns and clf.numeric_features_ == []
        for f in columns:  # by a margin, not a coin flip (measured: >= 0.1 nats)
            assert clf.number_choices_[f].bins > clf.number_choices_[f].gaussian + 0.05
        assert sorted(clf.binner_.edges_) == columns
        cut = tl.Discretizer(strategy="mdl", columns=columns).fit(X[columns], y)
        assert clf.binner_.to_dict() == cut.to_dict()
    X, y = _ordered()
    clf = make().fit(X, y)
    assert clf.numeric_features_ == ["ordered"] and clf.binned_features_ == []
    assert clf.binner_ is None
    assert clf.number_choices_["ordered"].gaussian > clf.number_choices_["ordered"].bins


def test_the_options_force_one_part_and_the_choice_is_deterministic():
    X, y = _built()
    assert tl.MixedNaiveBayes(numbers="gaussian").fit(X, y).numeric_features_ == list(X.columns)
    assert tl.MixedNaiveBayes(numbers="gaussian").fit(X, y).number_choices_ == {}
    X2, y2 = _ordered()
    forced = tl.MixedTAN(numbers="mdl").fit(X2, y2)
    assert forced.binned_features_ == ["ordered"] and forced.numeric_features_ == []
    assert forced.number_choices_["ordered"].binned  # its scores kept, the choice forced
    with pytest.raises(tl.TreelearnError, match="numbers == 'bins'"):
        tl.MixedNaiveBayes(numbers="bins").fit(X, y)
    # the same rows twice: the same choice to the bit; in another order: the same choice,
    # its scores summed in another order (round-off in the last bits)
    assert tl.MixedTAN().fit(X, y).number_choices_ == tl.MixedTAN().fit(X, y).number_choices_
    order = np.random.default_rng(3).permutation(len(X))
    a, b = tl.MixedTAN().fit(X, y), tl.MixedTAN().fit(X.iloc[order], y.iloc[order])
    for f, choice in a.number_choices_.items():
        other = b.number_choices_[f]
        assert (choice.binned, choice.n_bins) == (other.binned, other.n_bins)
        assert choice.gaussian == pytest.approx(other.gaussian, rel=1e-12)
        assert choice.bins == pytest.approx(other.bins, rel=1e-12)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-10, atol=1e-14)


# ---------------------------------------------------------------- the model of the choice
def _mixed(seed: int = 2, n: int = 300) -> tuple[pd.DataFrame, pd.Series]:
    """Six classes: an ordered Gaussian column, a bimodal one, a categorical one."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 6, n)
    odd = y % 2 == 1
    bimodal = np.where(odd, rng.choice([-4.0, 4.0], n), 0.0) + rng.normal(0, 0.5, n)
    return (
        pd.DataFrame(
            {
                "ordered": rng.normal(1.5 * y, 1.0),
                "bimodal": bimodal,
                "colour": np.where(rng.random(n) < 0.3 + 0.1 * y, "red", "blue"),
            }
        ),
        pd.Series(np.array(list("uvwxyz"))[y], name="y"),
    )


def test_predictions_are_naive_bayes_of_the_bins_times_the_gaussians_by_hand():
    X, y = _mixed()
    # hand-counted plain CPTs: every class arc kept (class_arcs="all"), not averaged
    clf = tl.MixedNaiveBayes(var_smoothing=0, class_arcs="all").fit(X, y)
    assert clf.numeric_features_ == ["ordered"] and clf.binned_features_ == ["bimodal"]
    bins = tl.Discretizer(strategy="mdl", columns=["bimodal"]).fit(X, y)
    cut = bins.transform(X)["bimodal"]
    rows = X.sample(40, random_state=0)
    rows.loc[rows.index[:3], "bimodal"] = [-50.0, 50.0, 0.01]  # beyond every value seen
    row_bins = bins.transform(rows)["bimodal"]
    s0 = X["ordered"].var(ddof=0)  # the variance prior's centre: the whole column's
    joint = []
    for c in clf.classes_:
        part = X[y == c]
        n = len(part)
        log = np.log(n / len(X))
        mean, s2 = part["ordered"].mean(), part["ordered"].var(ddof=0)
        var = (n * s2 + 1.0 * s0) / (n + 1.0)  # var_prior=1
        log = log + norm.logpdf(rows["ordered"], mean, np.sqrt(var))
        for col, values, states in (
            ("colour", rows["colour"], ["blue", "red"]),
            ("bimodal", row_bins, list(cut.cat.categories)),
        ):
            source = cut if col == "bimodal" else X["colour"]
            counts = source[y == c].value_counts().reindex(states, fill_value=0)
            p = (counts + 1.0) / (n + len(states))  # alpha=1
            log = log + np.log(p[values.astype(object)].to_numpy())
        joint.append(log)
    joint = np.column_stack(joint)
    want = np.exp(joint - joint.max(axis=1, keepdims=True))
    want /= want.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(clf.predict_proba(rows), want, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("make", MIXED)
def test_saved_and_loaded_with_the_bins_and_old_files_are_all_gaussian(make, tmp_path):
    X, y = _mixed()
    clf = make().fit(X, y)
    assert clf.binned_features_ == ["bimodal"]
    path = tmp_path / "clf.json"
    clf.save(path)
    back = tl.load(path)
    assert back.numbers == "auto" and back.binned_features_ == ["bimodal"]
    assert back.number_choices_ == clf.number_choices_
    assert back.binner_.to_dict() == clf.binner_.to_dict()
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    assert back.to_text() == clf.to_text() and "bimodal (" in clf.to_text()
    # a file from before the option: every number Gaussian
    old = make(numbers="gaussian").fit(X, y)
    old.save(path)
    document = json.loads(path.read_text())
    state = document["state"]
    del state["params"]["numbers"]
    for key in ("number_choices", "number_choice_columns"):
        for part in (state, state.get("fitted", {})):
            part.pop(key, None)
    path.write_text(json.dumps(document))
    loaded = tl.load(path)
    assert loaded.numbers == "gaussian" and loaded.number_choices_ == {}
    assert loaded.binner_ is None and loaded.numeric_features_ == ["ordered", "bimodal"]
    np.testing.assert_array_equal(loaded.predict_proba(X), old.predict_proba(X))


@pytest.mark.parametrize(
    "make",
    [
        lambda: tl.MixedNaiveBayes(),
        lambda: tl.MixedTAN(),
        lambda: tl.MixedNaiveBayes(numbers="mdl"),  # every feature in the network
    ],
)
def test_explain_adds_up_to_the_log_odds_and_a_binned_column_counts_as_its_bin(make):
    X, y = _mixed()
    clf = make().fit(X, y)
    assert "bimodal" in clf.binned_features_
    rows = X.head(12).copy()
    e = clf.explain(rows, kind="shapley", output="log_odds")
    log_p = clf.predict_log_proba(rows)
    picked = [list(clf.classes_).index(t) for t in e.target]
    assert (np.asarray(picked) == log_p.argmax(axis=1)).all()
    values = np.asarray(e.values, dtype=float)
    assert np.abs(values.sum(axis=1) + e.base - e.prediction).max() < 1e-10
    # another value in the same bin: the same prediction and the same explanation
    edges = clf.binner_.edges_["bimodal"]
    bins = np.searchsorted(edges, rows["bimodal"].to_numpy(), side="left")
    low = np.concatenate([[-np.inf], edges])[bins]
    high = np.concatenate([edges, [np.inf]])[bins]
    inside = np.where(np.isfinite(high), high, np.where(np.isfinite(low), low + 100.0, 0.0))
    moved = rows.assign(bimodal=inside)  # a bin's right edge belongs to it (v <= edge)
    np.testing.assert_array_equal(clf.predict_log_proba(moved), log_p)
    again = clf.explain(moved, kind="shapley", output="log_odds")
    np.testing.assert_allclose(np.asarray(again.values, dtype=float), values, atol=1e-12)


def test_a_binned_feature_given_a_number_is_evidence_on_its_bin():
    X, y = _mixed()
    clf = tl.MixedNaiveBayes().fit(X, y)
    row = pd.DataFrame({"ordered": [np.nan], "bimodal": [3.9], "colour": ["red"]})
    posterior = clf.query(clf.class_name_, {"bimodal": 3.9, "colour": "red"})
    np.testing.assert_allclose(posterior.to_numpy(), clf.predict_proba(row)[0], rtol=1e-12)
    text = clf.query(clf.class_name_, {"bimodal": "3.9", "colour": "red"})  # the CLI's text
    np.testing.assert_allclose(text.to_numpy(), posterior.to_numpy(), rtol=1e-15)
    drawn = clf.sample(5, random_state=0, evidence={"bimodal": 3.9})
    assert (drawn["bimodal"] == 3.9).all()
    with pytest.raises(tl.TreelearnError, match="'bimodal' is a binned feature"):
        clf.query(clf.class_name_, {"bimodal": "tall"})


# ---------------------------------------------------------------- the installed command
@pytest.mark.slow  # the installed command in subprocesses
def test_the_command_learns_the_choice_and_predicts_raw_numbers(tmp_path):
    X, y = _mixed()
    table = tmp_path / "mixed.csv"
    X.assign(y=y).to_csv(table, index=False)
    model = tmp_path / "m.json"

    run = run_installed
    learned = run("learn", str(table), "--numeric", "auto", "--class", "y", "-o", str(model))
    direct = tl.MixedTAN().fit(X, y)
    assert direct.binned_features_ == ["bimodal"]
    assert learned.startswith(direct.to_text())
    n_bins = len(direct.binner_.edges_["bimodal"]) + 1
    assert f"bimodal ({n_bins} MDL bins)" in learned and "ordered (Gaussian)" in learned
    predicted = run("predict", str(model), str(table)).splitlines()[1:]
    assert predicted == list(direct.predict(X))
