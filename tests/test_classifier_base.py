"""What the one classifier base gives every classifier alike: the fitted-feature matcher's
one rule, the posterior of an impossible row, ``predict(X, loss=)``, ``log_likelihood`` with
weights, options checked by ``check_params`` (numpy scalars accepted), and the CPT prior
options (``prior``, ``equivalent_sample_size``, ``m``).

Expected numbers: pandas counts and the BDeu formula, numpy's argmin of the expected loss,
the repeated rows."""

from __future__ import annotations

import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import expect, tiny_frame
from sklearn.datasets import load_iris

import treelearn as tl

HERE = os.path.dirname(os.path.abspath(__file__))
ASIA = pd.read_csv(os.path.join(HERE, "..", "datasets", "asia.csv"))

CATEGORICAL = ["NaiveBayes", "TAN", "ChowLiuMultinet", "KDB", "AODE", "BayesianTAN"]
NUMERIC = ["GaussianClassifier", "GaussianTAN", "MixedNaiveBayes"]
CLASSIFIERS = [*CATEGORICAL, *NUMERIC, "TextNaiveBayes"]


def _data(name):
    """A fitted classifier of ``name`` on a DataFrame, with its X and y."""
    rng = np.random.default_rng(0)
    if name in CATEGORICAL:
        X, y = ASIA.drop(columns="either").iloc[:2000], ASIA["either"].iloc[:2000]
    elif name in NUMERIC:
        X, y = load_iris(return_X_y=True, as_frame=True)
        y = y.rename("species")
    else:
        X = pd.DataFrame(rng.poisson(0.5, size=(200, 12)), columns=[f"w{j}" for j in range(12)])
        y = pd.Series(rng.choice(["ham", "spam"], 200), name="label")
    return getattr(tl, name)().fit(X, y), X, y


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_the_one_feature_matching_rule(name):
    clf, X, y = _data(name)
    expected = clf.predict_proba(X)
    # a DataFrame is matched by name: the same columns in another order are the same rows
    np.testing.assert_array_equal(clf.predict_proba(X[X.columns[::-1]]), expected)
    # an array by position
    np.testing.assert_allclose(clf.predict_proba(X.to_numpy()), expected, rtol=0, atol=1e-12)
    first = X.columns[0]
    with pytest.raises(
        tl.FeatureMismatchError, match=re.escape(f"missing [{first!r}], unexpected []")
    ):
        clf.predict(X.drop(columns=first))
    with pytest.raises(tl.FeatureMismatchError, match=r"missing \[\], unexpected \['extra'\]$"):
        clf.predict(X.assign(extra=X[first]))
    with pytest.raises(
        tl.FeatureMismatchError,
        match=rf"unexpected \[{y.name!r}\]; "
        rf"{y.name!r} is the class: drop it",
    ):
        clf.predict(pd.concat([X, y], axis=1))
    d = X.shape[1]
    with pytest.raises(
        tl.FeatureMismatchError,
        match=f"X has {d - 1} features, but {name} is expecting {d} features as input",
    ):
        clf.predict(X.to_numpy()[:, 1:])
    with pytest.raises(tl.TreelearnError, match="Reshape your data"):
        clf.predict(X.to_numpy()[0])
    with pytest.raises(tl.EmptyDataError, match="no rows"):
        clf.predict(X.iloc[:0])


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_minimum_expected_loss_and_weighted_scores(name):
    clf, X, y = _data(name)
    k = len(clf.classes_)
    L = np.ones((k, k)) - np.eye(k)
    L[-1, 0] = 30.0  # calling the last class the first costs 30
    p = clf.predict_proba(X)
    np.testing.assert_array_equal(clf.predict(X, loss=L), clf.classes_[np.argmin(p @ L, axis=1)])
    np.testing.assert_array_equal(clf.predict(X, loss=1 - np.eye(k)), clf.predict(X))
    # log_likelihood with integer weights = the rows repeated; per-row values unweighted
    w = np.arange(len(X)) % 3
    repeated = X.loc[X.index.repeat(w)], y.loc[y.index.repeat(w)]
    assert clf.log_likelihood(X, y, sample_weight=w) == pytest.approx(
        clf.log_likelihood(*repeated), rel=1e-12
    )
    np.testing.assert_array_equal(
        clf.log_likelihood(X, y, per_row=True, sample_weight=w),
        clf.log_likelihood(X, y, per_row=True),
    )
    report = clf.score_report(X, y, sample_weight=w)
    assert report.n == w.sum() and report.n_parameters == clf.n_parameters > 0


@pytest.mark.parametrize(
    "make",
    [
        lambda: tl.GaussianClassifier("full"),
        lambda: tl.GaussianClassifier("shared"),
        lambda: tl.GaussianClassifier("diagonal"),
        lambda: tl.GaussianClassifier("isotropic"),
        lambda: tl.GaussianTAN(),
        lambda: tl.MixedNaiveBayes(numbers="gaussian"),  # its Gaussians (bins: the end bin)
    ],
)
def test_a_value_far_from_every_class_gets_the_uniform_posterior_never_nan(make):
    X, y = load_iris(return_X_y=True)
    clf = make().fit(X, y)
    far = X[:3].copy()
    far[0, 0] = 1e200
    far[1, :] = 1e200
    far[2, 1] = -1e200
    with pytest.warns(RuntimeWarning, match="probability zero under every class"):
        proba = clf.predict_proba(far)
    np.testing.assert_array_equal(proba, np.full((3, 3), 1 / 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an ordinary row: no warning at all
        assert np.isfinite(clf.predict_log_proba(X[:5])).all()


def test_options_are_checked_once_in_one_wording():
    X, y = ASIA.drop(columns="either").iloc[:300], ASIA["either"].iloc[:300]
    cases = [
        (tl.NaiveBayes(alpha=True), r"alpha == True, must be a finite number >= 0 \(0 = maximum"),
        (tl.NaiveBayes(fit_prior="yes"), r"fit_prior == 'yes', must be True or False"),
        (tl.NaiveBayes(unseen="skip"), r"unseen == 'skip', must be one of 'error', 'ignore'"),
        (tl.NaiveBayes(prior="laplace"), r"prior == 'laplace', must be one of 'lidstone'"),
        (
            tl.NaiveBayes(prior="bdeu", equivalent_sample_size=0),
            r"equivalent_sample_size == 0, must be a finite number > 0",
        ),
        (tl.KDB(k=1.5), r"k == 1.5, must be an integer >= 0"),
        (tl.TAN(forest="mdl"), r"forest == 'mdl', must be None or one of 'bic', 'aic'"),
        (tl.AODE(min_count=-1), r"min_count == -1, must be a finite number >= 0"),
        (tl.ChowLiuMultinet(m=float("nan")), r"m == nan, must be a finite number > 0"),
    ]
    for clf, message in cases:
        with pytest.raises(tl.TreelearnError, match=message):
            clf.fit(X, y)
    # numpy scalars are numbers (bools never): the same classifier as with Python numbers
    for numpy_made, plain in [
        (tl.NaiveBayes(alpha=np.float32(0.5)), tl.NaiveBayes(alpha=0.5)),
        (
            tl.KDB(k=np.int64(1), m=np.float64(2), prior="m-estimate"),
            tl.KDB(k=1, m=2.0, prior="m-estimate"),
        ),
        (tl.AODE(min_count=np.int32(3)), tl.AODE(min_count=3)),
        (
            tl.BayesianTAN(equivalent_sample_size=np.float32(2)),
            tl.BayesianTAN(equivalent_sample_size=2.0),
        ),
    ]:
        np.testing.assert_array_equal(
            numpy_made.fit(X, y).predict_proba(X), plain.fit(X, y).predict_proba(X)
        )


@pytest.mark.parametrize("name", ["NaiveBayes", "TAN", "ChowLiuMultinet", "KDB"])
def test_prior_bdeu_uses_the_equivalent_sample_size(name):
    """A CPT under BDeu: (N(u, a) + s / (q r)) / (N(u) + s / q), q parent configurations."""
    df = ASIA.iloc[:1500]
    X, y, s = df.drop(columns="either"), df["either"], 6.0
    # hand-counted plain CPTs: every class arc kept (class_arcs="all"), not averaged
    plain = {} if name == "ChowLiuMultinet" else {"class_arcs": "all"}
    clf = getattr(tl, name)(prior="bdeu", equivalent_sample_size=s, **plain).fit(X, y)
    default = getattr(tl, name)(prior="bdeu", **plain).fit(X, y)
    models = list(clf.models_.values()) if name == "ChowLiuMultinet" else [clf.model_]
    rows = (
        [df[df["either"] == label] for label in clf.models_] if name == "ChowLiuMultinet" else [df]
    )
    checked = 0
    for model, data in zip(models, rows):
        for v in X.columns:
            parents = model.parents(v)
            r = len(model.states[v])
            q = int(np.prod([len(model.states[p]) for p in parents])) if parents else 1
            counts = data.groupby([*parents, v]).size() if parents else data[v].value_counts()
            for key, n in counts.items():
                key = key if isinstance(key, tuple) else (key,)
                total = (
                    data.groupby(parents).size()[key[:-1] if len(key) > 2 else key[0]]
                    if parents
                    else len(data)
                )
                index = tuple(model.states[u].index(k) for u, k in zip([*parents, v], key))
                assert model.cpt(v)[index] == pytest.approx(
                    (n + s / (q * r)) / (total + s / q), rel=1e-12
                )
                checked += 1
    assert checked > 20
    assert not np.allclose(clf.predict_proba(X), default.predict_proba(X))  # s matters


def test_aode_super_parents_are_the_observed_values_seen_min_count_times():
    df = ASIA.iloc[:300].copy()
    X, y = df.drop(columns="either"), df["either"]
    X.loc[X.index[:40], "asia"] = "rare"  # a value seen 40 times
    test = X.iloc[::7].astype(object).copy()
    test.iloc[::3, 2] = None  # missing: never a super-parent
    for min_count in (1, 41, 250):
        clf = tl.AODE(min_count=min_count).fit(X, y)
        counts = {c: X[c].value_counts() for c in X.columns}  # N(x_i = a), by pandas
        expected = np.array(
            [
                [pd.notna(v) and counts[c].get(v, 0) >= min_count for c, v in row.items()]
                for _, row in test.iterrows()
            ]
        )
        np.testing.assert_array_equal(clf.super_parents(test), expected)
        assert expected.any() and not expected.all()


def test_a_refit_on_an_unnamed_matrix_forgets_the_names():
    X = pd.DataFrame(np.random.default_rng(0).poisson(1.0, (40, 5)), columns=list("abcde"))
    y = np.array(["a", "b"] * 20)
    clf = tl.TextNaiveBayes().fit(X, y)
    assert list(clf.feature_names_in_) == list("abcde")
    clf.fit(X.to_numpy(), y)
    assert not hasattr(clf, "feature_names_in_") and clf.n_features_in_ == 5


def test_the_command_line_classifiers_come_from_the_registry():
    from treelearn.classifiers._base import command_line_classifiers
    from treelearn.cli._main import METHODS

    found = command_line_classifiers()
    assert found == {"tan": tl.TAN, "aode": tl.AODE, "kdb": tl.KDB, "naive-bayes": tl.NaiveBayes}
    assert list(METHODS) == ["chow-liu", *found, "mixture", "auto"]
    assert "kdb" in METHODS and "chow-liu" in METHODS and "gaussian" not in METHODS


# ---------------------------------------------------------------------------------- hostile inputs
TINY = tiny_frame()  # four rows: text, numbers, booleans


def test_classifier_bad_input():
    X, y = TINY[["a", "b"]], TINY["c"]
    expect(
        tl.TreelearnError,
        "class_prior",
        tl.NaiveBayes(numbers="states", class_prior=[2, 3]).fit,
        X,
        y,
    )
    expect(tl.ClassLabelError, "2 labels", tl.NaiveBayes(numbers="states").fit, X, y[:2])
    nb = tl.NaiveBayes(numbers="states").fit(X, y)
    expect(tl.FeatureMismatchError, "'b'", nb.predict, X[["a"]])
