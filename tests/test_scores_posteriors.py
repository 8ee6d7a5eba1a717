"""Scores, posteriors and sampling that the command line prints, as public model methods.

Expected numbers are computed another way: the posterior as the brute-force
normalised joint (the product of the CPTs summed over the missing cells, the target set
to each state), ``query`` row by row and pgmpy's variable elimination; scores from the
``log_likelihood`` / ``bic`` identities; a classifier's likelihood through its
network's own :meth:`TreeModel.log_likelihood`, or the class prior plus each
class's tree for the multinet.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd
import pytest
from oracles import marginal_probability

import treelearn as tl
from treelearn.models._tree import ScoreReport

HERE = os.path.dirname(os.path.abspath(__file__))
DATASETS = os.path.join(HERE, "..", "datasets")


@pytest.fixture(scope="module")
def asia():
    return pd.read_csv(os.path.join(DATASETS, "asia.csv"))


@pytest.fixture(scope="module")
def asia_tree(asia):
    return tl.chow_liu(asia, alpha=0.5)


def _brute_force_posterior(model, df, target):
    """P(target | row) as the normalised joint: the product of the CPTs summed over the
    row's missing cells (absent columns too), one state of the target at a time."""
    joint = np.array(
        [
            [marginal_probability(model, {**row, target: s}) for s in model.states[target]]
            for row in df.to_dict("records")
        ]
    )
    return joint / joint.sum(axis=1, keepdims=True)


# ---------------------------------------------------------------- TreeModel.predict_proba
def test_posterior_is_the_normalised_joint(asia, asia_tree):
    rows = asia.iloc[:200].copy()
    rows.loc[rows.index[::3], "smoke"] = np.nan  # some evidence missing
    rows = rows.drop(columns=["xray"])  # a column absent: unobserved in every row
    got = asia_tree.predict_proba(rows, "lung")
    assert list(got.columns) == asia_tree.states["lung"]
    assert got.index.equals(rows.index)
    np.testing.assert_allclose(
        got.to_numpy(), _brute_force_posterior(asia_tree, rows, "lung"), rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(got.sum(axis=1), 1.0, atol=1e-12)


def test_posterior_equals_query_and_pgmpy_row_by_row(asia, asia_tree):
    from pgmpy.inference import VariableElimination

    rows = asia.iloc[[0, 7, 42, 99]].copy()
    rows.iloc[1, rows.columns.get_loc("bronc")] = np.nan
    rows.index = ["a", "b", "c", "d"]  # the result keeps the data's index
    got = asia_tree.predict_proba(rows, "either")
    ve = VariableElimination(asia_tree.to_pgmpy())
    for name, row in rows.iterrows():
        evidence = {k: v for k, v in row.items() if k != "either" and pd.notna(v)}
        ours = asia_tree.query("either", evidence=evidence)
        np.testing.assert_allclose(got.loc[name].to_numpy(), ours.to_numpy(), atol=1e-12)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            factor = ve.query(["either"], evidence=evidence, show_progress=False)
        order = [factor.state_names["either"].index(s) for s in asia_tree.states["either"]]
        np.testing.assert_allclose(got.loc[name].to_numpy(), factor.values[order], atol=1e-10)


def test_posterior_ignores_the_rows_own_target_value(asia, asia_tree):
    rows = asia.iloc[:50]
    np.testing.assert_array_equal(
        asia_tree.predict_proba(rows, "tub").to_numpy(),
        asia_tree.predict_proba(rows.drop(columns=["tub"]), "tub").to_numpy(),
    )


def test_posterior_errors(asia, asia_tree):
    with pytest.raises(tl.ColumnNotFoundError, match="not a variable"):
        asia_tree.predict_proba(asia.iloc[:5], "nope")
    bad = asia.iloc[:3].copy()
    bad["smoke"] = "maybe"
    with pytest.raises(tl.UnseenStateError):
        asia_tree.predict_proba(bad, "lung")
    # maximum likelihood: b = 1 never occurs with a = 0, so a row (a=0, b=1) is impossible
    ml = tl.chow_liu(
        pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 1], "c": [0, 1, 0, 1]}), alpha=0
    )
    with pytest.raises(tl.TreelearnError, match="probability zero"):
        ml.predict_proba(pd.DataFrame({"a": [0], "b": [1]}), "c")


# ---------------------------------------------------------------- TreeModel.score_report
def test_tree_score_report_is_the_log_likelihood_and_bic(asia, asia_tree):
    data = asia.iloc[:1234]
    report = asia_tree.score_report(data)
    assert isinstance(report, ScoreReport)
    ll = asia_tree.log_likelihood(data, per_row=True).sum()
    assert report.n == 1234 and report.summed_out is None
    assert report.n_parameters == asia_tree.n_parameters
    assert report.log_likelihood == pytest.approx(ll, abs=1e-9)
    assert report.average == pytest.approx(ll / 1234, abs=1e-12)
    assert report.bic == pytest.approx(asia_tree.bic(data), abs=1e-9)
    assert report.bic == pytest.approx(ll - 0.5 * report.n_parameters * np.log(1234), abs=1e-9)


def test_score_report_of_no_rows_is_nan():
    report = ScoreReport(n=0, log_likelihood=0.0, n_parameters=3)
    assert np.isnan(report.average) and np.isnan(report.bic)


# ---------------------------------------------------------------- classifiers
@pytest.fixture(scope="module")
def xy(asia):
    return asia.drop(columns="either"), asia["either"]


@pytest.mark.parametrize("estimator", [tl.NaiveBayes, tl.TAN])
def test_single_network_log_likelihood_is_its_networks(xy, estimator):
    X, y = xy
    clf = estimator().fit(X, y)
    joint_rows = X.assign(either=y)
    np.testing.assert_allclose(
        clf.log_likelihood(X, y, per_row=True),
        clf.model_.log_likelihood(joint_rows, per_row=True),
        rtol=0,
        atol=1e-10,
    )
    # no labels: the class is summed out of every row (the network scores it missing)
    np.testing.assert_allclose(
        clf.log_likelihood(X, per_row=True),
        clf.model_.log_likelihood(X.assign(either=np.nan), per_row=True),
        rtol=0,
        atol=1e-10,
    )
    # a missing label sums the class out of that row only
    partial = y.astype(object).copy()
    partial.iloc[::4] = np.nan
    np.testing.assert_allclose(
        clf.log_likelihood(X, partial, per_row=True),
        clf.model_.log_likelihood(X.assign(either=partial), per_row=True),
        rtol=0,
        atol=1e-10,
    )
    report = clf.score_report(X, y)
    assert report.n == len(X) and report.summed_out is None
    assert report.n_parameters == clf.n_parameters == clf.model_.n_parameters
    assert report.bic == pytest.approx(clf.model_.bic(joint_rows), abs=1e-8)
    assert clf.score_report(X).summed_out == "either"


def test_multinet_log_likelihood_is_prior_plus_class_tree(xy):
    X, y = xy
    clf = tl.ChowLiuMultinet().fit(X, y)
    prior = dict(zip(clf.classes_, clf.class_log_prior_))
    by_class = {c: clf.models_[c].log_likelihood(X, per_row=True) for c in clf.classes_}
    expected = np.array([prior[c] + by_class[c][i] for i, c in enumerate(y)])
    np.testing.assert_allclose(clf.log_likelihood(X, y, per_row=True), expected, atol=1e-10)
    summed = np.logaddexp.reduce([prior[c] + by_class[c] for c in clf.classes_], axis=0)
    assert clf.log_likelihood(X) == pytest.approx(summed.sum(), abs=1e-8)
    k = sum(m.n_parameters for m in clf.models_.values()) + len(clf.classes_) - 1
    report = clf.score_report(X, y.to_numpy())  # labels as an array work as well
    assert report.n_parameters == clf.n_parameters == k
    assert report.bic == pytest.approx(expected.sum() - 0.5 * k * np.log(len(X)), abs=1e-8)


def test_classifier_label_errors(xy):
    X, y = xy
    clf = tl.NaiveBayes().fit(X, y)
    with pytest.raises(tl.ClassLabelError, match="never saw"):
        clf.log_likelihood(X.iloc[:3], ["no", "maybe", "yes"])
    with pytest.raises(tl.ClassLabelError, match="one label per row"):
        clf.log_likelihood(X.iloc[:3], ["no", "yes"])


def test_select_features(xy, asia):
    X, y = xy
    clf = tl.TAN().fit(X, y)
    wide = asia.assign(extra=1)[["extra", *reversed(asia.columns)]]
    assert list(clf.select_features(wide).columns) == list(X.columns)
    with pytest.raises(tl.FeatureMismatchError, match="lacks the classifier's feature"):
        clf.select_features(asia.drop(columns=["tub"]))


# ---------------------------------------------------------------- sampling
def _old_cli_multinet_sample(clf, n, seed):
    """What ``treelearn sample`` did before the method existed (kept identical)."""
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, np.exp(clf.class_log_prior_))
    parts = []
    for label, k in zip(clf.classes_, counts):
        part = clf.models_[label].sample(int(k), random_state=rng)
        part[clf.class_name_] = label
        parts.append(part)
    samples = pd.concat(parts, ignore_index=True)
    return samples.iloc[rng.permutation(len(samples))].reset_index(drop=True)


def test_multinet_sample(xy):
    X, y = xy
    clf = tl.ChowLiuMultinet().fit(X, y)
    rows = clf.sample(40_000, random_state=3)
    pd.testing.assert_frame_equal(rows, _old_cli_multinet_sample(clf, 40_000, 3))
    assert list(rows.columns) == [*X.columns, "either"]
    pd.testing.assert_frame_equal(rows, clf.sample(40_000, random_state=3))
    # the class from the prior, and each class's features from its own tree
    freq = rows["either"].value_counts(normalize=True)
    for c, logp in zip(clf.classes_, clf.class_log_prior_):
        assert freq[c] == pytest.approx(np.exp(logp), abs=0.01)
        within = rows.loc[rows["either"] == c, "lung"].value_counts(normalize=True)
        for state, p in clf.models_[c].query("lung").items():
            assert within.get(state, 0.0) == pytest.approx(p, abs=0.03)
    assert clf.sample(0).shape == (0, 8)
    with pytest.raises(tl.TreelearnError, match="non-negative"):
        clf.sample(-1)


@pytest.mark.parametrize("estimator", [tl.NaiveBayes, tl.TAN])
def test_single_network_sample_is_its_networks(xy, estimator):
    X, y = xy
    clf = estimator().fit(X, y)
    pd.testing.assert_frame_equal(
        clf.sample(100, random_state=0), clf.model_.sample(100, random_state=0)
    )


# ---------------------------------------------------------------------------------- hostile inputs
def test_scoring_or_predicting_no_rows_says_so():
    df = pd.read_csv("datasets/asia.csv")
    model = tl.chow_liu(df)
    clf = tl.NaiveBayes().fit(df.drop(columns="either"), df["either"])
    for call in (
        lambda: model.log_likelihood(df.head(0)),
        lambda: model.predict_proba(df.head(0), "lung"),
        lambda: clf.predict_proba(df.drop(columns="either").head(0)),
    ):
        with pytest.raises(tl.EmptyDataError, match=r"nothing to (score|predict)") as info:
            call()
        assert "learn" not in str(info.value)
