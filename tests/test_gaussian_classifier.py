"""GaussianClassifier equals scikit-learn's QDA / LDA / GaussianNB, and scipy for isotropic."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import FAST
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from scipy.special import softmax
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.discriminant_analysis import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from sklearn.naive_bayes import GaussianNB

import treelearn as tl
from treelearn._base.errors import FeatureMismatchError, TreelearnError

LOADERS = [load_iris, load_wine, load_breast_cancer]


def _xy(load):
    return load(return_X_y=True, as_frame=True)


def _sk(cov, reg=0.0):
    return {
        # tol: sklearn's rank test (singular values > 1e-4, absolute) refuses breast_cancer
        "full": QuadraticDiscriminantAnalysis(reg_param=reg, tol=1e-12),
        "shared": LinearDiscriminantAnalysis(solver="lsqr"),
        "diagonal": GaussianNB(var_smoothing=0),
    }[cov]


@pytest.mark.parametrize("load", LOADERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("cov", ["full", "shared", "diagonal"])
def test_equals_scikit_learn(load, cov):
    X, y = _xy(load)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _sk(cov).fit(X, y).predict_proba(X)
    clf = tl.GaussianClassifier(cov).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), expected, atol=1e-8)
    assert (clf.predict(X) == np.asarray(y)).mean() == pytest.approx(
        (_sk(cov).fit(X, y).predict(X) == np.asarray(y)).mean()
    )


def test_full_with_reg_equals_qda_reg_param():
    X, y = _xy(load_wine)
    expected = QuadraticDiscriminantAnalysis(reg_param=0.3).fit(X, y).predict_proba(X)
    got = tl.GaussianClassifier("full", reg=0.3).fit(X, y).predict_proba(X)
    np.testing.assert_allclose(got, expected, atol=1e-8)


def test_isotropic_is_scipy_normal_with_mean_variance():
    X, y = load_iris(return_X_y=True)
    classes = np.unique(y)
    joint = np.column_stack(
        [
            np.log(np.mean(y == c))
            + stats.multivariate_normal(
                X[y == c].mean(0), X[y == c].var(0).mean() * np.eye(4)
            ).logpdf(X)
            for c in classes
        ]
    )
    clf = tl.GaussianClassifier("isotropic").fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), softmax(joint, axis=1), atol=1e-10)
    np.testing.assert_allclose(clf.predict_joint_log_proba(X), joint, rtol=1e-10)


@pytest.mark.parametrize("cov", ["full", "shared", "diagonal", "isotropic"])
def test_integer_weights_equal_repeated_rows(cov):
    X, y = load_iris(return_X_y=True)
    w = np.random.default_rng(0).integers(1, 4, size=len(y))
    a = tl.GaussianClassifier(cov).fit(X, y, sample_weight=w)
    b = tl.GaussianClassifier(cov).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-10)


def test_loss_matrix_decision():
    X, y = load_iris(return_X_y=True)
    clf = tl.GaussianClassifier("diagonal").fit(X, y)
    p = clf.predict_proba(X)
    L = np.array([[0, 1, 1], [1, 0, 20], [1, 1, 0]])  # calling 1 a 2 costs 20
    expected = np.argmin(p @ L, axis=1)  # sum_k p(k) L[k, j]
    np.testing.assert_array_equal(clf.predict(X, loss=L), clf.classes_[expected])
    labelled = pd.DataFrame(L, index=[0, 1, 2], columns=[0, 1, 2])
    np.testing.assert_array_equal(clf.predict(X, loss=labelled), clf.classes_[expected])


def test_errors_and_data_untouched():
    X, y = load_iris(return_X_y=True, as_frame=True)
    before = X.copy()
    clf = tl.GaussianClassifier().fit(X, y)
    pd.testing.assert_frame_equal(X, before)
    # collinear features: a singular covariance, and the message says how to fix it
    Xc = X.assign(dup=X.iloc[:, 0] * 2)
    for cov in ("full", "shared"):
        with pytest.raises(TreelearnError, match=r"singular.*reg > 0"):
            tl.GaussianClassifier(cov).fit(Xc, y)
    assert tl.GaussianClassifier("full", reg=1e-3).fit(Xc, y).predict_proba(Xc).shape == (150, 3)
    with pytest.raises(TreelearnError, match="feature 'k' is constant within class 0"):
        tl.GaussianClassifier("diagonal").fit(X.assign(k=1.0), y)
    with pytest.raises(TreelearnError, match="'s' is not numeric"):
        tl.GaussianClassifier().fit(X.assign(s=pd.Categorical(["a"] * 150)), y)
    with pytest.raises(TreelearnError, match="covariance == 'tied', must be one of 'full'"):
        tl.GaussianClassifier("tied").fit(X, y)
    with pytest.raises(TreelearnError, match=r"reg == 2, must be a finite number >= 0 and <= 1"):
        tl.GaussianClassifier(reg=2).fit(X, y)
    # numpy scalars are numbers: the same classifier as with the Python float
    np.testing.assert_array_equal(
        tl.GaussianClassifier(reg=np.float32(0.25)).fit(X, y).predict_proba(X),
        tl.GaussianClassifier(reg=float(np.float32(0.25))).fit(X, y).predict_proba(X),
    )
    with pytest.raises(FeatureMismatchError, match="petal width"):
        clf.predict(X.drop(columns="petal width (cm)"))
    # an extra column is refused (it was dropped silently), naming it
    with pytest.raises(FeatureMismatchError, match=r"unexpected \['extra'\]"):
        clf.predict(X.assign(extra=1.0))
    # columns are matched by name, not position
    np.testing.assert_allclose(clf.predict_proba(X[X.columns[::-1]]), clf.predict_proba(X))


@pytest.mark.parametrize("make", [lambda: tl.GaussianClassifier(), lambda: tl.GaussianTAN()])
def test_a_class_of_total_weight_zero_is_no_class(make):
    # the one rule of every classifier (sources): a row of weight zero is absent before
    # anything else, so a class whose rows all weigh zero is no class; the fit is the fit
    # without those rows (scikit-learn's sample-weight equivalence)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    y = np.array(["a"] * 10 + ["b"] * 10 + ["c"] * 10)
    w = np.where(y == "b", 0.0, 1.0)
    weighted = make().fit(X, y, sample_weight=w)
    assert weighted.classes_.tolist() == ["a", "c"]
    assert weighted.class_count_.tolist() == [10, 10]
    kept = make().fit(X[y != "b"], y[y != "b"])
    np.testing.assert_array_equal(weighted.predict_proba(X), kept.predict_proba(X))


@pytest.mark.parametrize("cov", ["full", "shared", "diagonal", "isotropic"])
def test_moments_are_the_weighted_moments_of_each_class_rows(cov):
    # the statistics (sources: one product per class) against numpy on each class's rows;
    # 1e-12: the same sums in another order (a class indicator product, symmetrised)
    X, y = load_wine(return_X_y=True)
    w = np.random.default_rng(4).uniform(0.2, 3, size=len(y))
    clf = tl.GaussianClassifier(cov).fit(X, y, sample_weight=w)
    classes = np.unique(y)
    means = np.array([np.average(X[y == c], axis=0, weights=w[y == c]) for c in classes])
    covs = np.array(
        [np.cov(X[y == c], rowvar=False, aweights=w[y == c], bias=True) for c in classes]
    )
    np.testing.assert_allclose(clf.means_, means, rtol=1e-12)
    expected = {
        "full": covs,
        "shared": np.tensordot([w[y == c].sum() for c in classes], covs, axes=1) / w.sum(),
        "diagonal": np.diagonal(covs, axis1=1, axis2=2),
        "isotropic": np.diagonal(covs, axis1=1, axis2=2).mean(axis=1),
    }[cov]
    np.testing.assert_allclose(clf.covariances_, expected, rtol=1e-12)
    np.testing.assert_allclose(clf.class_count_, [w[y == c].sum() for c in classes], rtol=1e-13)


# ---------------------------------------------------------------- every input kind
def _labelled(n=400, seed=6):
    rng = np.random.default_rng(seed)
    y = rng.choice(["p", "q", "r"], size=n)
    shift = pd.Series(y).map({"p": 0.0, "q": 1.0, "r": -1.5}).to_numpy()
    a = rng.normal(size=n) + shift
    X = pd.DataFrame({"a": a, "b": 0.6 * a + rng.normal(size=n), "c": rng.normal(size=n) * 2})
    return X, pd.Series(y, name="label"), rng.integers(0, 4, n)


@pytest.mark.parametrize("cov", ["full", "shared", "diagonal", "isotropic"])
@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_file_fits_as_its_rows_in_memory(tmp_path, cov, suffix):
    X, y, w = _labelled()
    path = tmp_path / f"rows.{suffix}"
    frame = X.assign(label=y, w=w)
    frame.to_csv(path, index=False) if suffix == "csv" else frame.to_parquet(path)
    # the class column named by y, the row weights by sample_weight: read in chunks
    ours = tl.GaussianClassifier(cov).fit(path, "label", sample_weight="w")
    theirs = tl.GaussianClassifier(cov).fit(X, y, sample_weight=w)
    assert ours.feature_names_in_.tolist() == ["a", "b", "c"] and ours.class_name_ == "label"
    assert ours.classes_.tolist() == theirs.classes_.tolist()
    np.testing.assert_array_equal(ours.class_count_, theirs.class_count_)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-10)


def test_kinds_it_cannot_take_say_why(tmp_path):
    import scipy.sparse as sp

    from treelearn.encoding._table import encode

    X, y, _ = _labelled(n=60)
    with pytest.raises(
        tl.InputTypeError,
        match=r"GaussianClassifier cannot take a scipy.sparse "
        r"matrix \(csr_matrix\): it needs a dense table",
    ):
        tl.GaussianClassifier().fit(sp.csr_matrix(X.to_numpy()), y)
    with pytest.raises(tl.InputTypeError, match=r"cannot take an encoded Table.*category codes"):
        tl.GaussianClassifier("diagonal").fit(encode(X.round(0)), y)
    X.assign(label=y).to_csv(tmp_path / "rows.csv", index=False)
    with pytest.raises(tl.ColumnNotFoundError, match="y is the name of its class column"):
        tl.GaussianClassifier().fit(tmp_path / "rows.csv", y)
    # a NaN in training is learned from by every covariance: full and shared by EM (its
    # oracles: tests/test_gaussian_missing_em.py), diagonal and isotropic from the observed
    # cells (tests/test_gaussian_priors.py); an infinite value is still refused, by name
    for cov in ("full", "shared"):
        clf = tl.GaussianClassifier(cov).fit(X.assign(b=X["b"].where(X.index != 3)), y)
        assert clf.n_iter_ >= 2 and np.isfinite(clf.covariances_).all()
        with pytest.raises(tl.TreelearnError, match=r"column 'b'.*infinite"):
            tl.GaussianClassifier(cov).fit(X.assign(b=X["b"].where(X.index != 3, np.inf)), y)


# ---------------------------------------------------------------------- Hypothesis: random tables, weights
@st.composite
def gaussian_tables(draw):
    n = draw(st.integers(8, 40))
    d = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**31))
    scale = draw(st.sampled_from([1e-3, 1.0, 1e4]))
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        rng.normal(size=(n, d)) * scale + draw(st.sampled_from([0.0, 1e6])),
        columns=[f"x{j}" for j in range(d)],
    )
    y = np.r_[[0, 1] * 4, rng.integers(0, 2, n - 8)]
    w = rng.random(n) + 0.1 if draw(st.booleans()) else np.ones(n)
    return X, y, w


def _gaussian_posterior(X, y, w, test, reg):
    """Per class: the weighted ML mean and covariance (shrunk: ``(1 - reg) S + reg I``),
    the density by scipy, the prior from the weights."""
    from scipy.stats import multivariate_normal

    logs = []
    for c in (0, 1):
        rows, wc = X[y == c], w[y == c]
        mean = np.average(rows, axis=0, weights=wc)
        cov = (1 - reg) * np.atleast_2d(np.cov(rows.T, aweights=wc, bias=True)) + reg * np.eye(
            X.shape[1]
        )
        logs.append(
            np.log(wc.sum() / w.sum())
            + multivariate_normal(mean, cov, allow_singular=False).logpdf(test)
        )
    logs = np.column_stack(logs)
    return np.exp(logs - np.logaddexp(logs[:, :1], logs[:, 1:]))


@FAST
@given(gaussian_tables())
def test_gaussian_classifier_equals_weighted_moments(data):
    X, y, w = data
    reg = 1e-3  # keeps a class of few rows non-singular
    try:
        clf = tl.GaussianClassifier(reg=reg).fit(X, y, sample_weight=w)
    except tl.TreelearnError:
        return
    expected = _gaussian_posterior(X.to_numpy(), y, w, X.to_numpy(), reg)
    got = clf.predict_proba(X)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
