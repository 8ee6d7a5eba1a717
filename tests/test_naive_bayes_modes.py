"""NaiveBayes's event models and mixed data: text = scikit-learn's MultinomialNB/BernoulliNB,
numeric="gaussian" = GaussianNB on numeric data and a hand-written product of categorical and
Gaussian terms on mixed data (missing cells summed out)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy.stats import norm
from sklearn.datasets import load_iris
from sklearn.naive_bayes import BernoulliNB, GaussianNB, MultinomialNB

import treelearn as tl
from treelearn._base.errors import NumericColumnError, TreelearnError


def _corpus(n=300, d=200, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    rates = rng.gamma(0.3, 1.0, size=(k, d)) * 0.2
    return sp.csr_matrix(rng.poisson(rates[y])), np.array(["ham", "spam", "promo"])[y]


SK = {"multinomial": MultinomialNB, "bernoulli": BernoulliNB}


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
@pytest.mark.parametrize("dense", [False, True])
def test_text_event_models_equal_scikit_learn(event_model, dense):
    X, y = _corpus()
    Xin = X.toarray() if dense else X
    w = np.random.default_rng(1).uniform(0.2, 3, size=len(y))
    for weight in (None, w):
        ours = tl.NaiveBayes(event_model=event_model, alpha=0.5).fit(Xin, y, sample_weight=weight)
        theirs = SK[event_model](alpha=0.5).fit(X, y, sample_weight=weight)
        np.testing.assert_allclose(ours.predict_proba(Xin), theirs.predict_proba(X), atol=1e-10)
        assert (ours.predict(Xin) == theirs.predict(X)).all()
    # a uniform prior: the same as scikit-learn's fit_prior=False
    ours = tl.NaiveBayes(event_model=event_model, fit_prior=False).fit(Xin, y)
    theirs = SK[event_model](fit_prior=False).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(Xin), theirs.predict_proba(X), atol=1e-10)


def test_text_sparse_is_never_made_dense(monkeypatch):
    X, y = _corpus()

    def refuse(*args, **kwargs):
        raise AssertionError("a sparse matrix was made dense")

    clf = tl.NaiveBayes(event_model="bernoulli")
    expected = BernoulliNB().fit(X, y).predict_proba(X)
    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    np.testing.assert_allclose(clf.fit(X, y).predict_proba(X), expected, atol=1e-10)


def test_text_save_load_and_parameters(tmp_path):
    X, y = _corpus()
    frame = pd.DataFrame(X.toarray(), columns=[f"w{j}" for j in range(X.shape[1])])
    for data in (X, frame):
        clf = tl.NaiveBayes(event_model="multinomial", class_prior=[0.2, 0.3, 0.5]).fit(data, y)
        clf.save(tmp_path / "text.json")
        back = tl.load(tmp_path / "text.json")
        np.testing.assert_array_equal(back.predict_proba(data), clf.predict_proba(data))
    k, d = 3, X.shape[1]
    assert clf.n_parameters == k - 1 + k * (d - 1)  # multinomial: each theta_c sums to one
    with pytest.raises(TreelearnError, match="pgmpy cannot hold"):
        clf.to_pgmpy()
    with pytest.raises(TreelearnError, match="cannot draw documents"):
        clf.sample(3)
    with pytest.raises(TreelearnError, match="'categorical' only"):
        tl.NaiveBayes(event_model="bernoulli", numeric="gaussian").fit(X, y)
    with pytest.raises(TreelearnError, match="event_model='poisson'"):
        tl.NaiveBayes(event_model="poisson").fit(X, y)


@pytest.mark.parametrize("var_smoothing", [1e-9, 1e-2, 0.0])
def test_numeric_only_equals_gaussian_nb(var_smoothing):
    X, y = load_iris(return_X_y=True)
    X = X + np.random.default_rng(0).normal(scale=1e-3, size=X.shape)  # fractional: numeric
    ours = tl.NaiveBayes(numeric="gaussian", var_smoothing=var_smoothing).fit(X, y)
    theirs = GaussianNB(var_smoothing=var_smoothing).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-10)
    assert ours.n_parameters == 2 + 2 * 3 * 4


def test_numeric_weights_equal_gaussian_nb_and_repeated_rows():
    X, y = load_iris(return_X_y=True)
    X = X + np.random.default_rng(0).normal(scale=1e-3, size=X.shape)
    w = np.random.default_rng(2).integers(0, 4, size=len(y))
    ours = tl.NaiveBayes(numeric="gaussian", var_smoothing=0).fit(X, y, sample_weight=w)
    theirs = GaussianNB(var_smoothing=0).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-9)
    repeated = tl.NaiveBayes(numeric="gaussian").fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    weighted = tl.NaiveBayes(numeric="gaussian").fit(X, y, sample_weight=w)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-9)


def _mixed(n=240, seed=3):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    shift = pd.Series(y).map({"a": 0.0, "b": 1.5, "c": -1.0}).to_numpy()
    df = pd.DataFrame({
        "colour": rng.choice(["red", "green", "blue"], size=n),
        "temp": 36.5 + shift + rng.normal(size=n),
        "size": np.where(rng.random(n) < 0.5 + 0.2 * shift.clip(-1, 1), "big", "small"),
        "weight": 70 + 5 * shift + rng.normal(scale=3, size=n),
    })
    # some missing cells of both kinds
    df.loc[rng.random(n) < 0.1, "colour"] = None
    df.loc[rng.random(n) < 0.1, "temp"] = np.nan
    return df, pd.Series(y, name="y")


def _hand_posterior(train, y, test, alpha):
    """p(c | x) from the formulas: the class frequencies, Lidstone categorical terms over the rows
    where the feature is observed, Gaussian terms (np.mean, np.var) likewise; missing test
    cells leave their factor out."""
    classes = sorted(y.unique())
    log = np.zeros((len(test), len(classes)))
    for c, label in enumerate(classes):
        rows = train[y == label]
        log[:, c] += np.log((y == label).mean())
        for col in ("colour", "size"):
            states = sorted(train[col].dropna().unique())
            seen = rows[col].dropna()
            for i, value in enumerate(test[col]):
                if pd.notna(value):
                    count = (seen == value).sum()
                    log[i, c] += np.log((count + alpha) / (len(seen) + len(states) * alpha))
        for col in ("temp", "weight"):
            seen = rows[col].dropna().to_numpy()
            mu, var = np.mean(seen), np.var(seen)
            for i, value in enumerate(test[col]):
                if pd.notna(value):
                    log[i, c] += norm.logpdf(value, mu, np.sqrt(var))
    log -= log.max(axis=1, keepdims=True)
    p = np.exp(log)
    return p / p.sum(axis=1, keepdims=True)


def test_mixed_posteriors_equal_the_hand_written_product():
    df, y = _mixed()
    test = df.iloc[:40].copy()
    test.loc[test.index[:5], "size"] = None  # summed out at prediction
    test.loc[test.index[3:9], "weight"] = np.nan
    clf = tl.NaiveBayes(alpha=0.5, numeric="gaussian", var_smoothing=0).fit(df, y)
    assert clf.numeric_features_ == ["temp", "weight"]
    assert clf.categorical_features_ == ["colour", "size"]
    np.testing.assert_allclose(clf.predict_proba(test), _hand_posterior(df, y, test, 0.5),
                               atol=1e-10)
    # two parameters per class and Gaussian feature, next to the network's
    assert clf.n_parameters == 2 + 3 * (2 + 1) + 2 * 3 * 2
    # the caller's frame is unchanged
    again, _ = _mixed()
    pd.testing.assert_frame_equal(df, again)


def test_mixed_default_still_refuses_numeric_columns():
    df, y = _mixed()
    with pytest.raises(tl.TableProblemsError, match="temp") as caught:  # both, in one error
        tl.NaiveBayes().fit(df, y)
    assert [type(p) for p in caught.value.problems] == [NumericColumnError] * 2
    assert "weight" in str(caught.value)


def test_mixed_save_load_sample_and_pgmpy(tmp_path):
    df, y = _mixed(n=2000)
    clf = tl.NaiveBayes(numeric="gaussian").fit(df, y)
    clf.save(tmp_path / "mixed.json")
    back = tl.load(tmp_path / "mixed.json")
    np.testing.assert_array_equal(back.predict_proba(df), clf.predict_proba(df))
    assert back.numeric_features_ == clf.numeric_features_
    rows = clf.sample(40_000, random_state=0)
    assert list(rows.columns) == ["colour", "temp", "size", "weight", "y"]
    for label in ["a", "b"]:  # each class's temperature: its Gaussian, within 4 standard errors
        drawn = rows.loc[rows["y"] == label, "temp"]
        observed = df.loc[(y == label) & df["temp"].notna(), "temp"]
        assert abs(drawn.mean() - observed.mean()) < 4 * observed.std() / np.sqrt(len(drawn))
    with pytest.raises(TreelearnError, match=r"pgmpy cannot hold.*temp"):
        clf.to_pgmpy()
    plain = tl.NaiveBayes().fit(df[["colour", "size"]], y)
    assert set(plain.to_pgmpy().nodes()) == {"colour", "size", "y"}


def test_mixed_errors_name_the_column():
    df, y = _mixed()
    df["flat"] = np.where(y == "a", 1.25, np.linspace(0, 1, len(df)))
    with pytest.raises(TreelearnError, match=r"'flat' is constant in class 'a'.*var_smoothing"):
        tl.NaiveBayes(numeric="gaussian", var_smoothing=0).fit(df, y)
    clf = tl.NaiveBayes(numeric="gaussian").fit(df.drop(columns="flat"), y)
    bad = df.drop(columns="flat").assign(temp="hot")
    with pytest.raises(TreelearnError, match="'temp'"):
        clf.predict(bad)
    with pytest.raises(TreelearnError, match="numeric='exact'"):
        tl.NaiveBayes(numeric="exact").fit(df, y)


def test_numeric_columns_are_exactly_those_the_encoder_refuses():
    from treelearn.stats._class_gaussians import numeric_columns

    rng = np.random.default_rng(0)
    df = pd.DataFrame({
        "fraction": rng.normal(size=300),
        "whole_few": rng.integers(0, 5, 300).astype(float),
        "whole_many": rng.permutation(300).astype(float),  # 300 distinct whole numbers > 100
        "with_nan": np.where(rng.random(300) < 0.2, np.nan, rng.integers(0, 3, 300)),
        "ints": rng.integers(0, 1000, 300),
        "text": rng.choice(["a", "b"], 300),
    })
    refused = []
    for col in df.columns:
        try:
            tl.encode(df[[col]], missing="pairwise")
        except NumericColumnError:
            refused.append(col)
        except TreelearnError:
            pass  # e.g. too many integer states: not a float column, stays categorical
    assert numeric_columns(df) == refused == ["fraction", "whole_many"]


def test_numeric_only_with_missing_cells_is_gaussian_nb_on_the_observed_columns():
    X, y = load_iris(return_X_y=True)
    X = X + np.random.default_rng(0).normal(scale=1e-3, size=X.shape)
    clf = tl.NaiveBayes(numeric="gaussian", var_smoothing=0).fit(X, y)
    test = X[:20].copy()
    test[:10, 2] = np.nan
    # rows missing feature 2: GaussianNB fitted on the other three features (same estimates)
    sub = GaussianNB(var_smoothing=0).fit(X[:, [0, 1, 3]], y)
    np.testing.assert_allclose(clf.predict_proba(test[:10]),
                               sub.predict_proba(test[:10][:, [0, 1, 3]]), atol=1e-10)
