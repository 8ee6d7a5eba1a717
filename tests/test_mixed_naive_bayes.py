"""MixedNaiveBayes: GaussianNB on numeric data (weighted too), CategoricalNB on categorical
data, a hand-written product of categorical and Gaussian terms on mixed data (missing cells
summed out), and which columns are Gaussian decided by dtype or name only: duplicated rows,
a rescaled column or a cross-validation fold never move a column between the two kinds.

The mixed classifiers here take ``numbers="gaussian"``: these tests are about their
Gaussian parts (the per-column choice of ``numbers="auto"``, the default, is
tests/test_mixed_column_choice.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.naive_bayes import CategoricalNB, GaussianNB

import treelearn as tl
from treelearn._base.errors import NumericColumnError, TreelearnError


@pytest.mark.parametrize("var_smoothing", [1e-9, 1e-2, 0.0])
def test_numeric_only_equals_gaussian_nb(var_smoothing):
    X, y = load_iris(return_X_y=True)
    X = X + np.random.default_rng(0).normal(scale=1e-3, size=X.shape)  # fractional: numeric
    ours = tl.MixedNaiveBayes(numbers="gaussian", var_prior=0, var_smoothing=var_smoothing).fit(
        X, y
    )
    theirs = GaussianNB(var_smoothing=var_smoothing).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-10)
    assert ours.n_parameters == 2 + 2 * 3 * 4


@pytest.mark.parametrize(
    "load", [load_iris, load_wine, load_breast_cancer, load_digits], ids=lambda f: f.__name__
)
def test_numeric_weights_equal_gaussian_nb_and_repeated_rows(load):
    X, y = load(return_X_y=True)
    w = np.random.default_rng(2).integers(0, 4, size=len(y))
    frac = np.random.default_rng(1).uniform(0.2, 3, size=len(y))
    for weight in (w, frac) if load is not load_digits else ():  # digits: constant pixels
        ours = tl.MixedNaiveBayes(numbers="gaussian", var_prior=0, var_smoothing=0).fit(
            X, y, sample_weight=weight
        )
        theirs = GaussianNB(var_smoothing=0).fit(X, y, sample_weight=weight)
        np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
        np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12, atol=1e-12)
    # duplicating rows = integer weights, var_smoothing's epsilon included (it is computed
    # from the weighted variance; GaussianNB's np.var(X) ignores the weights)
    repeated = tl.MixedNaiveBayes(numbers="gaussian", var_prior=0).fit(
        np.repeat(X, w, axis=0), np.repeat(y, w)
    )
    weighted = tl.MixedNaiveBayes(numbers="gaussian", var_prior=0).fit(X, y, sample_weight=w)
    assert (
        weighted.numeric_features_ == repeated.numeric_features_ == list(weighted.feature_names_in_)
    )
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(weighted.class_count_, np.bincount(y, weights=w).astype(int))


def test_var_smoothing_epsilon_is_the_largest_weighted_variance():
    X, y = load_breast_cancer(return_X_y=True)
    w = np.random.default_rng(3).uniform(0.2, 3, size=len(y))
    plain = tl.MixedNaiveBayes(numbers="gaussian", var_smoothing=0).fit(X, y, sample_weight=w)
    smooth = tl.MixedNaiveBayes(numbers="gaussian", var_smoothing=1e-9).fit(X, y, sample_weight=w)
    mean = np.average(X, axis=0, weights=w)
    epsilon = 1e-9 * np.average((X - mean) ** 2, axis=0, weights=w).max()  # numpy, weighted
    np.testing.assert_allclose(smooth.var_ - plain.var_, epsilon, rtol=1e-6)
    # without weights it is GaussianNB's epsilon, var_smoothing * np.var(X).max()
    assert np.allclose(
        tl.MixedNaiveBayes(numbers="gaussian").fit(X, y).var_
        - tl.MixedNaiveBayes(numbers="gaussian", var_smoothing=0).fit(X, y).var_,
        GaussianNB().fit(X, y).epsilon_,
        rtol=1e-6,
    )


def test_scaling_a_gaussian_column_keeps_it_gaussian_and_the_accuracy():
    X, y = load_iris(return_X_y=True)
    base = tl.MixedNaiveBayes(numbers="gaussian", var_prior=0).fit(X, y)
    scaled = tl.MixedNaiveBayes(numbers="gaussian", var_prior=0).fit(
        X * 1e10, y
    )  # every column: var_smoothing scales too
    assert scaled.numeric_features_ == base.numeric_features_ == ["x0", "x1", "x2", "x3"]
    np.testing.assert_allclose(scaled.predict_proba(X * 1e10), base.predict_proba(X), atol=1e-9)
    assert scaled.score(X * 1e10, y) == base.score(X, y) == GaussianNB().fit(X, y).score(X, y)
    one = X.copy()
    one[:, 2] *= 1e10  # one column: its own Gaussian is rescaled, nothing else changes
    ours = tl.MixedNaiveBayes(numbers="gaussian", var_prior=0, var_smoothing=0).fit(one, y)
    assert ours.numeric_features_ == base.numeric_features_
    np.testing.assert_allclose(
        ours.predict_proba(one),
        tl.MixedNaiveBayes(numbers="gaussian", var_prior=0, var_smoothing=0)
        .fit(X, y)
        .predict_proba(X),
        atol=1e-9,
    )


def test_digits_in_cross_validation_equal_gaussian_nb():
    # 64 pixels, floats 0..16: every column is Gaussian in every fold (by dtype), so a pixel
    # value a training fold never saw is just a number, never an UnseenStateError
    X, y = load_digits(return_X_y=True)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    ours = cross_val_score(
        tl.MixedNaiveBayes(numbers="gaussian", var_prior=0), X, y, cv=folds, error_score="raise"
    )
    theirs = cross_val_score(GaussianNB(), X, y, cv=folds)
    np.testing.assert_array_equal(ours, theirs)
    for train, test in folds.split(X, y):
        np.testing.assert_allclose(
            tl.MixedNaiveBayes(numbers="gaussian", var_prior=0)
            .fit(X[train], y[train])
            .predict_proba(X[test]),
            GaussianNB().fit(X[train], y[train]).predict_proba(X[test]),
            atol=1e-9,
        )


def test_integer_codes_named_categorical_are_categorical_naive_bayes():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 4, size=(300, 5))
    y = (X[:, 0] + rng.integers(0, 2, 300)) % 3
    codes = [f"x{j}" for j in range(5)]
    # the peer's plain CPTs: every class arc kept (class_arcs="all"), not averaged
    ours = tl.MixedNaiveBayes(
        numbers="gaussian", alpha=0.5, categorical=codes, class_arcs="all"
    ).fit(X, y)
    assert ours.numeric_features_ == [] and ours.categorical_features_ == codes
    theirs = CategoricalNB(alpha=0.5, min_categories=4).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
    # without categorical= integers are numbers by dtype (as every classifier's): Gaussian,
    # scikit-learn's GaussianNB of the same integers
    gaussian = tl.MixedNaiveBayes(numbers="gaussian", var_prior=0).fit(X, y)
    assert gaussian.numeric_features_ == codes and gaussian.categorical_features_ == []
    np.testing.assert_allclose(
        gaussian.predict_proba(X), GaussianNB().fit(X, y).predict_proba(X), atol=1e-9
    )
    # numeric= names the Gaussian columns, whatever their dtype
    named = tl.MixedNaiveBayes(numbers="gaussian", numeric=["x1", "x3"]).fit(
        pd.DataFrame(X).add_prefix("x"), y
    )
    assert named.numeric_features_ == ["x1", "x3"]
    assert named.categorical_features_ == ["x0", "x2", "x4"]


def _mixed(n=240, seed=3):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    shift = pd.Series(y).map({"a": 0.0, "b": 1.5, "c": -1.0}).to_numpy()
    df = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], size=n),
            "temp": 36.5 + shift + rng.normal(size=n),
            "size": np.where(rng.random(n) < 0.5 + 0.2 * shift.clip(-1, 1), "big", "small"),
            "weight": 70 + 5 * shift + rng.normal(scale=3, size=n),
        }
    )
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
    # hand-counted plain CPTs: every class arc kept (class_arcs="all"), not averaged
    clf = tl.MixedNaiveBayes(
        numbers="gaussian", var_prior=0, alpha=0.5, var_smoothing=0, class_arcs="all"
    ).fit(df, y)
    assert clf.numeric_features_ == ["temp", "weight"]
    assert clf.categorical_features_ == ["colour", "size"]
    np.testing.assert_allclose(
        clf.predict_proba(test), _hand_posterior(df, y, test, 0.5), atol=1e-10
    )
    # two parameters per class and Gaussian feature, next to the network's
    assert clf.n_parameters == 2 + 3 * (2 + 1) + 2 * 3 * 2
    # the caller's frame is unchanged
    again, _ = _mixed()
    pd.testing.assert_frame_equal(df, again)


def test_mixed_default_still_refuses_numeric_columns():
    # numbers="states" (each value a state; the default "mdl" cuts them into bins) refuses
    # the measurements, both in one error
    df, y = _mixed()
    with pytest.raises(tl.TableProblemsError, match="temp") as caught:
        tl.NaiveBayes(numbers="states").fit(df, y)
    assert [type(p) for p in caught.value.problems] == [NumericColumnError] * 2
    assert "weight" in str(caught.value)


def test_mixed_save_load_sample_and_pgmpy(tmp_path):
    df, y = _mixed(n=2000)
    clf = tl.MixedNaiveBayes(numbers="gaussian").fit(df, y)
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
        tl.MixedNaiveBayes(numbers="gaussian", var_prior=0, var_smoothing=0).fit(df, y)
    clf = tl.MixedNaiveBayes(numbers="gaussian", var_prior=0).fit(df.drop(columns="flat"), y)
    bad = df.drop(columns="flat").assign(temp="hot")
    with pytest.raises(TreelearnError, match="'temp'"):
        clf.predict(bad)
    with pytest.raises(
        TreelearnError, match="numeric == 'exact', must be None or a list of column names"
    ):
        tl.MixedNaiveBayes(numbers="gaussian", var_prior=0, numeric="exact").fit(df, y)
    with pytest.raises(tl.ColumnNotFoundError, match=r"numeric= names \['nope'\]"):
        tl.MixedNaiveBayes(numbers="gaussian", var_prior=0, numeric=["nope"]).fit(df, y)
    with pytest.raises(TreelearnError, match=r"var_smoothing == -1, must be a finite number >= 0"):
        tl.MixedNaiveBayes(numbers="gaussian", var_prior=0, var_smoothing=-1).fit(df, y)


def test_gaussian_columns_are_decided_by_dtype_never_by_repeats():
    from treelearn.stats._class_gaussians import gaussian_columns

    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "fraction": rng.normal(size=300),
            "whole_few": rng.integers(0, 5, 300).astype(float),  # floats, every value repeated
            "whole_many": rng.permutation(300).astype(float),
            "with_nan": np.where(rng.random(300) < 0.2, np.nan, rng.integers(0, 3, 300)),
            "ints": rng.integers(0, 1000, 300),
            "flags": rng.random(300) < 0.5,
            "text": rng.choice(["a", "b"], 300),
            "cat": pd.Categorical(rng.choice([0.5, 1.5], 300)),
        }
    )
    floats = ["fraction", "whole_few", "whole_many", "with_nan"]
    assert gaussian_columns(df) == floats
    # duplicated rows and a rescaled column decide nothing
    assert gaussian_columns(pd.concat([df, df])) == floats
    assert gaussian_columns(df.assign(fraction=df["fraction"] * 1e10)) == floats
    assert gaussian_columns(df.iloc[:7]) == floats
    assert gaussian_columns(df, named=["ints", "fraction"]) == ["fraction", "ints"]


def test_numeric_only_with_missing_cells_is_gaussian_nb_on_the_observed_columns():
    X, y = load_iris(return_X_y=True)
    X = X + np.random.default_rng(0).normal(scale=1e-3, size=X.shape)
    clf = tl.MixedNaiveBayes(numbers="gaussian", var_prior=0, var_smoothing=0).fit(X, y)
    test = X[:20].copy()
    test[:10, 2] = np.nan
    # rows missing feature 2: GaussianNB fitted on the other three features (same estimates)
    sub = GaussianNB(var_smoothing=0).fit(X[:, [0, 1, 3]], y)
    np.testing.assert_allclose(
        clf.predict_proba(test[:10]), sub.predict_proba(test[:10][:, [0, 1, 3]]), atol=1e-10
    )


# ---------------------------------------------------------------- every input kind
@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_file_fits_as_its_rows_in_memory(tmp_path, suffix):
    df, y = _mixed(n=400, seed=5)
    w = np.random.default_rng(9).integers(0, 4, len(y))
    path = tmp_path / f"rows.{suffix}"
    table = df.assign(y=y, w=w)
    table.to_csv(path, index=False) if suffix == "csv" else table.to_parquet(path)
    ours = tl.MixedNaiveBayes(numbers="gaussian").fit(path, "y", sample_weight="w")
    theirs = tl.MixedNaiveBayes(numbers="gaussian").fit(df, y, sample_weight=w)
    assert ours.numeric_features_ == theirs.numeric_features_ == ["temp", "weight"]
    assert ours.categorical_features_ == theirs.categorical_features_ == ["colour", "size"]
    np.testing.assert_array_equal(ours.class_count_, theirs.class_count_)
    assert ours.model_ == theirs.model_
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-13)
    np.testing.assert_allclose(ours.predict_proba(df), theirs.predict_proba(df), rtol=0, atol=1e-10)
    # Gaussian columns only: the network is the class alone, named after the file's column
    numbers = tmp_path / f"numbers.{suffix}"
    only = df[["temp", "weight"]].assign(y=y, w=w)
    only.to_csv(numbers, index=False) if suffix == "csv" else only.to_parquet(numbers)
    ours = tl.MixedNaiveBayes(numbers="gaussian", var_smoothing=0).fit(
        numbers, "y", sample_weight="w"
    )
    theirs = tl.MixedNaiveBayes(numbers="gaussian", var_smoothing=0).fit(
        df[["temp", "weight"]], y, sample_weight=w
    )
    assert ours.class_name_ == "y" and ours.model_.variables == ["y"]
    np.testing.assert_allclose(
        ours.predict_proba(df[["temp", "weight"]]),
        theirs.predict_proba(df[["temp", "weight"]]),
        rtol=0,
        atol=1e-10,
    )


def test_weighted_gaussian_part_with_missing_cells_is_weighted_numpy_over_observed_rows():
    # the class weight and the per-column observed weight differ where a cell is missing:
    # theta_ and var_ are numpy's weighted mean and variance over the observed rows only
    df, y = _mixed(n=300, seed=7)
    w = np.random.default_rng(1).uniform(0.2, 3, len(y))
    clf = tl.MixedNaiveBayes(numbers="gaussian", var_prior=0, var_smoothing=0).fit(
        df, y, sample_weight=w
    )
    for c, label in enumerate(clf.classes_):
        for j, col in enumerate(["temp", "weight"]):
            seen = (y == label).to_numpy() & df[col].notna().to_numpy()
            mean = np.average(df[col][seen], weights=w[seen])
            assert clf.theta_[c, j] == pytest.approx(mean, rel=1e-12)
            assert clf.var_[c, j] == pytest.approx(
                np.average((df[col][seen] - mean) ** 2, weights=w[seen]), rel=1e-12
            )
    np.testing.assert_allclose(
        clf.class_count_, [w[y == c].sum() for c in clf.classes_], rtol=1e-13
    )


def test_kinds_it_cannot_take_say_why():
    import scipy.sparse as sp

    with pytest.raises(
        tl.InputTypeError,
        match=r"MixedNaiveBayes cannot take a scipy.sparse "
        r"matrix \(csr_matrix\): it needs a dense table",
    ):
        tl.MixedNaiveBayes(numbers="gaussian").fit(sp.csr_matrix(np.eye(4)), [0, 1, 0, 1])
