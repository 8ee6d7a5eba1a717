"""TextNaiveBayes equals scikit-learn's MultinomialNB / BernoulliNB on dense and sparse input;
term_class_information equals scikit-learn's discrete mutual information."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from conftest import FAST
from hypothesis import given
from hypothesis import strategies as st
from sklearn.feature_selection import mutual_info_classif
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

import treelearn as tl
from treelearn._base.errors import MissingValuesError, TreelearnError


def _corpus(n=400, d=250, k=3, seed=0):
    """Synthetic bag of words: each class prefers its own block of terms."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    rates = rng.gamma(0.3, 1.0, size=(k, d)) * 0.2
    X = rng.poisson(rates[y])
    return sp.csr_matrix(X), np.array(["ham", "spam", "promo"])[y]


SK = {"multinomial": MultinomialNB, "bernoulli": BernoulliNB}


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
@pytest.mark.parametrize("alpha", [1.0, 0.1])
@pytest.mark.parametrize("dense", [False, True])
def test_equals_scikit_learn(event_model, alpha, dense):
    X, y = _corpus()
    Xin = X.toarray() if dense else X
    w = np.random.default_rng(1).uniform(0.2, 3, size=len(y))
    for weight in (None, w):
        ours = tl.TextNaiveBayes(event_model, alpha=alpha).fit(Xin, y, sample_weight=weight)
        theirs = SK[event_model](alpha=alpha, force_alpha=True).fit(X, y, sample_weight=weight)
        np.testing.assert_allclose(ours.predict_proba(Xin), theirs.predict_proba(X), atol=1e-8)
        np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-10)
        np.testing.assert_array_equal(ours.predict(Xin), theirs.predict(X))


def test_bernoulli_threshold_and_dataframe_names():
    X, y = _corpus(d=30)
    df = pd.DataFrame(X.toarray(), columns=[f"w{j}" for j in range(30)])
    ours = tl.TextNaiveBayes("bernoulli", binarize=1).fit(df, y)
    theirs = BernoulliNB(binarize=1).fit(X, y)
    np.testing.assert_allclose(
        ours.predict_proba(df[df.columns[::-1]]), theirs.predict_proba(X), atol=1e-8
    )


def test_laplace_is_the_textbook_estimate():
    # (n_k + 1) / (n + |V|) by hand: class a has words [0, 0, 1], |V| = 3
    X = np.array([[2, 1, 0], [0, 0, 3]])
    clf = tl.TextNaiveBayes("multinomial").fit(X, ["a", "b"])
    np.testing.assert_allclose(np.exp(clf.feature_log_prob_[0]), [3 / 6, 2 / 6, 1 / 6])


def test_sparse_input_is_never_made_dense():
    # a dense float copy of this matrix would need 2,000 x 2,000,000 x 8 bytes = 32 GB
    rng = np.random.default_rng(0)
    n, d = 2_000, 2_000_000
    nnz = 40 * n  # forty words per document
    X = sp.csr_matrix(
        (
            rng.integers(1, 3, nnz).astype(float),
            (np.repeat(np.arange(n), 40), rng.integers(0, d, nnz)),
        ),
        shape=(n, d),
    )
    y = rng.integers(0, 2, n)
    for model in ("multinomial", "bernoulli"):
        clf = tl.TextNaiveBayes(model).fit(X, y)
        assert clf.predict_proba(X[:50]).shape == (50, 2)
    assert tl.term_class_information(X, y).shape == (d,)


def test_term_class_information_equals_sklearn():
    X, y = _corpus(d=40)
    expected = mutual_info_classif((X > 0).astype(int), y, discrete_features=True)
    np.testing.assert_allclose(tl.term_class_information(X, y), expected, atol=1e-12)
    np.testing.assert_allclose(tl.term_class_information(X.toarray(), y), expected, atol=1e-12)


def test_loss_and_errors():
    X, y = _corpus(d=20)
    clf = tl.TextNaiveBayes().fit(X, y)
    L = np.ones((3, 3)) - np.eye(3)
    L[0, 1] = 50  # classes_ sorted: ham, promo, spam
    expected = clf.classes_[np.argmin(clf.predict_proba(X) @ L, axis=1)]
    np.testing.assert_array_equal(clf.predict(X, loss=L), expected)
    with pytest.raises(TreelearnError, match="negative"):
        tl.TextNaiveBayes().fit(-X, y)
    with pytest.raises(MissingValuesError):
        tl.TextNaiveBayes().fit(np.where(X.toarray() == 0, np.nan, 1.0), y)
    with pytest.raises(TreelearnError, match="event_model == 'gaussian', must be one of"):
        tl.TextNaiveBayes("gaussian").fit(X, y)
    with pytest.raises(TreelearnError, match=r"alpha == -1, must be a finite number >= 0"):
        tl.TextNaiveBayes(alpha=-1).fit(X, y)
    before = X.copy()
    tl.TextNaiveBayes("bernoulli").fit(X, y)
    assert (before != X).nnz == 0


# ---------------------------------------------------------------- moved from NaiveBayes(event_model=)
@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
@pytest.mark.parametrize("dense", [False, True])
def test_priors_and_weights_equal_scikit_learn(event_model, dense):
    X, y = _corpus(n=300, d=200)
    Xin = X.toarray() if dense else X
    w = np.random.default_rng(1).uniform(0.2, 3, size=len(y))
    for weight in (None, w):
        ours = tl.TextNaiveBayes(event_model, alpha=0.5).fit(Xin, y, sample_weight=weight)
        theirs = SK[event_model](alpha=0.5).fit(X, y, sample_weight=weight)
        np.testing.assert_allclose(ours.predict_proba(Xin), theirs.predict_proba(X), atol=1e-10)
        assert (ours.predict(Xin) == theirs.predict(X)).all()
    # a uniform prior, and a given one: the same as scikit-learn's fit_prior / class_prior
    ours = tl.TextNaiveBayes(event_model, fit_prior=False).fit(Xin, y)
    theirs = SK[event_model](fit_prior=False).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(Xin), theirs.predict_proba(X), atol=1e-10)
    ours = tl.TextNaiveBayes(event_model, class_prior=[0.2, 0.3, 0.5]).fit(Xin, y)
    theirs = SK[event_model](class_prior=[0.2, 0.3, 0.5]).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(Xin), theirs.predict_proba(X), atol=1e-10)
    np.testing.assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, atol=1e-12)


def test_save_load_parameters_and_numpy_scalars(tmp_path):
    X, y = _corpus(n=300, d=200)
    frame = pd.DataFrame(X.toarray(), columns=[f"w{j}" for j in range(X.shape[1])])
    for data in (X, frame):
        clf = tl.TextNaiveBayes("multinomial", class_prior=[0.2, 0.3, 0.5]).fit(data, y)
        clf.save(tmp_path / "text.json")
        back = tl.load(tmp_path / "text.json")
        np.testing.assert_array_equal(back.predict_proba(data), clf.predict_proba(data))
        assert back.classes_.dtype == clf.classes_.dtype  # numpy text labels (<U5)
    k, d = 3, X.shape[1]
    assert clf.n_parameters == k - 1 + k * (d - 1)  # multinomial: each theta_c sums to one
    assert tl.TextNaiveBayes("bernoulli").fit(X, y).n_parameters == k - 1 + k * d
    # numpy scalars are numbers: the same model as with the Python float
    np.testing.assert_array_equal(
        tl.TextNaiveBayes(alpha=np.float32(0.5)).fit(X, y).feature_log_prob_,
        tl.TextNaiveBayes(alpha=0.5).fit(X, y).feature_log_prob_,
    )


def test_sparse_fit_is_never_made_dense_and_matched_by_position(monkeypatch):
    X, y = _corpus(n=300, d=200)
    expected = BernoulliNB().fit(X, y).predict_proba(X)

    def refuse(*args, **kwargs):
        raise AssertionError("a sparse matrix was made dense")

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    clf = tl.TextNaiveBayes("bernoulli").fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), expected, atol=1e-10)
    assert not hasattr(clf, "feature_names_in_")  # a vocabulary by position: none named
    with pytest.raises(
        tl.FeatureMismatchError, match="X has 199 features, but TextNaiveBayes is expecting 200"
    ):
        clf.predict(X[:, :199])


# ---------------------------------------------------------------- every input kind
@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_file_fits_as_its_rows_in_memory(tmp_path, event_model, suffix):
    X, y = _corpus(n=300, d=40)
    frame = pd.DataFrame(X.toarray(), columns=[f"t{j}" for j in range(X.shape[1])])
    w = np.random.default_rng(3).integers(0, 4, len(y))
    path = tmp_path / f"docs.{suffix}"
    table = frame.assign(label=y, weight=w)
    table.to_csv(path, index=False) if suffix == "csv" else table.to_parquet(path)
    ours = tl.TextNaiveBayes(event_model, binarize=1.0).fit(path, "label", sample_weight="weight")
    theirs = tl.TextNaiveBayes(event_model, binarize=1.0).fit(
        frame, pd.Series(y, name="label"), sample_weight=w
    )
    assert ours.feature_names_in_.tolist() == list(frame.columns) and ours.class_name_ == "label"
    np.testing.assert_array_equal(ours.feature_count_, theirs.feature_count_)  # whole counts
    np.testing.assert_allclose(
        ours.predict_proba(frame), theirs.predict_proba(frame), rtol=0, atol=1e-10
    )
    # and the scikit-learn oracle, on the weighted sparse matrix
    sk = SK[event_model](binarize=1.0) if event_model == "bernoulli" else SK[event_model]()
    np.testing.assert_allclose(
        ours.predict_proba(frame), sk.fit(X, y, sample_weight=w).predict_proba(X), atol=1e-10
    )


def test_term_class_information_of_a_file_and_kinds_refused(tmp_path):
    from treelearn.encoding._table import encode

    X, y = _corpus(d=30)
    frame = pd.DataFrame(X.toarray(), columns=[f"t{j}" for j in range(30)])
    frame.assign(label=y).to_csv(tmp_path / "docs.csv", index=False)
    expected = mutual_info_classif((X > 0).astype(int), y, discrete_features=True)
    np.testing.assert_allclose(
        tl.term_class_information(tmp_path / "docs.csv", "label"), expected, atol=1e-12
    )
    with pytest.raises(
        tl.InputTypeError,
        match=r"TextNaiveBayes cannot take an encoded Table "
        r"\(Table\): an encoded Table holds category codes",
    ):
        tl.TextNaiveBayes().fit(encode(frame.iloc[:, :3]), y)


# ---------------------------------------------------------------------- Hypothesis: random corpora, weights
@FAST
@given(st.integers(0, 2**31), st.sampled_from([0.1, 1.0]), st.booleans())
def test_text_naive_bayes_equals_multinomial_nb(seed, alpha, weighted):
    rng = np.random.default_rng(seed)
    X = rng.poisson(rng.random(5) * 3, size=(20, 5))
    y = np.r_[[0, 1], rng.integers(0, 2, 18)]
    w = rng.random(20) + 0.1 if weighted else None
    clf = tl.TextNaiveBayes(alpha=alpha).fit(X, y, sample_weight=w)
    ref = MultinomialNB(alpha=alpha, force_alpha=True).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(clf.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-10)


# ---------------------------------------------------------------------------------- hostile inputs
def _brute_force_text_posterior(X, y, T, event_model):
    """P(c | t) from the ML estimates, by products over the terms (0 ** 0 = 1)."""
    X, y = np.asarray(X, float), np.asarray(y)
    classes = np.unique(y)
    out = []
    for t in np.asarray(T, float):
        joint = []
        for c in classes:
            rows = X[y == c]
            prior = len(rows) / len(X)
            if event_model == "multinomial":
                p = rows.sum(axis=0) / rows.sum()
                joint.append(prior * np.prod(p**t))
            else:
                p = (rows > 0).mean(axis=0)
                b = t > 0
                joint.append(prior * np.prod(np.where(b, p, 1 - p)))
        joint = np.array(joint)
        out.append(joint / joint.sum() if joint.sum() > 0 else np.full(len(classes), 0.5))
    return np.array(out)


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
def test_text_naive_bayes_alpha_zero_is_exact_dense_and_sparse(event_model):
    X = np.array([[2, 0, 1], [1, 0, 3], [0, 4, 1], [0, 2, 0]])
    y = [0, 0, 1, 1]
    T = np.array([[1, 1, 0], [3, 0, 0], [1, 0, 1], [0, 1, 0], [0, 3, 0]])
    expected = _brute_force_text_posterior(X, y, T, event_model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # rows impossible in every class
        dense = tl.TextNaiveBayes(event_model=event_model, alpha=0).fit(X, y).predict_proba(T)
        sparse = (
            tl.TextNaiveBayes(event_model=event_model, alpha=0)
            .fit(sp.csr_matrix(X), y)
            .predict_proba(sp.csr_matrix(T))
        )
    np.testing.assert_allclose(dense, expected, atol=1e-12)
    np.testing.assert_allclose(sparse, expected, atol=1e-12)
