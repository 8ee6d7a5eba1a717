"""tl.Discretizer: bins learned on the training rows, applied to any rows, inside scikit-learn."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from conftest import expect
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.datasets import load_iris
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline

import treelearn as tl


def bounds(label: str) -> tuple[float, float]:
    lo, hi = re.fullmatch(r"\((.+), (.+)[\])]", label).groups()
    return float(lo), float(hi)


def test_labels_describe_the_bins_exactly_and_are_short():
    rng = np.random.default_rng(0)
    train = pd.DataFrame({"x": rng.normal(5, 2, 500), "z": rng.uniform(0, 1e-3, 500)})
    test = pd.DataFrame({"x": np.r_[rng.normal(5, 4, 300), -100, 100], "z": rng.normal(0, 1, 302)})
    for strategy in ("quantile", "uniform"):
        d = tl.Discretizer(bins=4, strategy=strategy).fit(train)
        out = d.transform(test)
        for c in ("x", "z"):
            assert list(out[c].cat.categories) == d.categories_[c]
            assert len(d.categories_[c]) == 4
            for v, label in zip(test[c], out[c]):
                lo, hi = bounds(label)
                assert lo < v <= hi  # beyond the training range: the end bins
            for e in d.edges_[c]:  # no 6.9799999999999995: few significant digits
                assert len(repr(float(e)).replace("-", "").replace(".", "").lstrip("0")) <= 8


def test_quantile_bins_come_from_the_training_rows_only():
    train = pd.DataFrame({"x": np.arange(100.0)})
    d = tl.Discretizer(bins=4).fit(train)
    counts = d.transform(train)["x"].value_counts(sort=False).tolist()
    assert counts == [25, 25, 25, 25]  # equal counts on the rows it was fitted on
    shifted = d.transform(pd.DataFrame({"x": np.arange(1000.0, 1010.0)}))
    assert set(shifted["x"]) == {d.categories_["x"][-1]}
    assert list(shifted["x"].cat.categories) == d.categories_["x"]  # every bin declared


def test_cross_validation_in_a_pipeline_has_no_nan_folds():
    X, y = load_iris(return_X_y=True, as_frame=True)
    for clf in (tl.NaiveBayes(), tl.TAN(), tl.KDB(k=1), tl.AODE()):
        scores = cross_val_score(
            make_pipeline(tl.Discretizer(), clf),
            X,
            y,
            cv=StratifiedKFold(10, shuffle=True, random_state=0),
            error_score="raise",
        )
        assert np.isfinite(scores).all() and scores.mean() > 0.88


def test_column_transformer_missing_values_and_untouched_input():
    X = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0, 5.0, 6.0], "g": list("xyxyxy")})
    before = X.copy()
    ct = ColumnTransformer([("bins", tl.Discretizer(bins=2), ["a"])], remainder="passthrough")
    out = ct.set_output(transform="pandas").fit_transform(X)
    assert out["bins__a"].isna().tolist() == [False, True, False, False, False, False]
    assert isinstance(out["bins__a"].dtype, pd.CategoricalDtype)
    pd.testing.assert_frame_equal(X, before)
    d = tl.Discretizer(bins=2).fit(X)
    assert d.get_feature_names_out().tolist() == ["a", "g"]
    assert clone(d).get_params() == d.get_params()


def test_datetime_columns_are_cut_by_time():
    t = pd.Series(pd.date_range("2024-01-01", periods=10, freq="D"))
    d = tl.Discretizer(bins=2).fit(pd.DataFrame({"t": t}))
    out = d.transform(pd.DataFrame({"t": t}))["t"]
    assert out.tolist() == [d.categories_["t"][0]] * 5 + [d.categories_["t"][1]] * 5
    assert "2024-01-05" in d.categories_["t"][0]


def test_errors_name_the_column():
    X = pd.DataFrame({"a": [1.0, 2.0], "s": ["u", "v"]})
    with pytest.raises(tl.ColumnNotFoundError, match="'b'"):
        tl.Discretizer(columns=["b"]).fit(X)
    with pytest.raises(tl.NumericColumnError, match="'s'"):
        tl.Discretizer(columns=["s"]).fit(X)
    with pytest.raises(tl.TreelearnError, match="bins == 0"):
        tl.Discretizer(bins=0).fit(X)
    with pytest.raises(tl.FeatureMismatchError, match="'a'"):
        tl.Discretizer().fit(X).transform(X[["s"]])


# ---------------------------------------------------------------------------------- hostile inputs
def test_quantile_edges_are_rounded_only_as_far_as_the_bins_keep_their_values():
    # 400 values in [1000, 1001): the median cut rounded to 3 digits (1000) emptied a bin
    values = pd.DataFrame({"x": 1000 + np.random.default_rng(26).random(400)})
    d = tl.Discretizer(bins=2).fit(values)
    got = d.transform(values)["x"].value_counts(sort=False).tolist()
    median = np.quantile(values["x"], 0.5)
    assert got == [int((values["x"] <= median).sum()), int((values["x"] > median).sum())]
    assert got == [200, 200]


def test_discretizer_bad_columns_are_named():
    with pytest.raises(tl.TreelearnError, match=r"\['a'\] occur more than once"):
        tl.Discretizer().fit(pd.DataFrame([[1.0, 2.0]] * 10, columns=["a", "a"]))
    d = tl.Discretizer(bins=2).fit(pd.DataFrame({"x": np.arange(10.0)}))
    with pytest.raises(tl.NumericColumnError, match=r"column 'x' has dtype .*not numbers"):
        d.transform(pd.DataFrame({"x": ["a", "b"]}))


def test_times_keep_their_zone():
    aware = pd.DataFrame(
        {"t": pd.date_range("2021-01-01", periods=48, freq="h", tz="Europe/Berlin")}
    )
    d = tl.Discretizer(bins=2).fit(aware)
    naive = pd.DataFrame({"t": aware["t"].dt.tz_localize(None)})  # wall clock, 1 h ahead of UTC
    with pytest.raises(tl.NumericColumnError, match=r"naive times.*Europe/Berlin"):
        d.transform(naive)
    # the same instants in another zone: the same bins
    utc = pd.DataFrame({"t": aware["t"].dt.tz_convert("UTC")})
    assert d.transform(utc)["t"].tolist() == d.transform(aware)["t"].tolist()
    from treelearn import _io

    back = _io.loads(_io.dumps(d))
    with pytest.raises(tl.NumericColumnError, match="naive times"):
        back.transform(naive)
    learned_naive = tl.Discretizer(bins=2).fit(naive)
    with pytest.raises(tl.NumericColumnError, match="learned naive times"):
        learned_naive.transform(aware)


def test_discretizer_bins_guarded_before_allocating():
    with pytest.raises(tl.ResourceLimitError, match=r"Discretizer\(bins=1000000000000\)"):
        tl.Discretizer(bins=10**12).fit(pd.DataFrame({"x": np.arange(10.0)}))


@pytest.mark.parametrize("bins", [10**7, 10_001, 0, True, 2.0, "5"])
def test_discretize_refuses_bad_or_unbounded_bins_before_any_work(bins):
    wide = pd.DataFrame({"x": np.arange(10**5, dtype=float)})
    expect(
        tl.TreelearnError,
        f"bins == {bins!r}, must be an integer >= 1 and <= 10000",
        tl.discretize,
        wide,
        bins=bins,
    )


def test_discretize_takes_numpy_integers_and_names_a_bad_strategy():
    df = pd.DataFrame({"x": [0.1, 0.2, 0.3, 0.4]})
    assert tl.discretize(df, bins=np.int64(2))["x"].nunique() == 2
    expect(
        tl.TreelearnError,
        "strategy == 'kmeans', must be one of 'quantile', 'uniform'",
        tl.discretize,
        df,
        strategy="kmeans",
    )
