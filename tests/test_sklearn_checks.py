"""scikit-learn's own estimator checks on the categorical classifiers, and the input rules
they exercise (continuous targets, complex data, y=None, column-vector y, shapes).

The checks run with the tags the classifiers declare (``categorical``, ``string``,
``allow_nan``): scikit-learn then hands them rounded, category-like features. One
check gives raw continuous floats (every value distinct) whatever the tags say; it
cannot apply to an estimator of categorical features and is listed in
``EXPECTED_FAILED`` with the reason (strict: should it start passing, the entry must
go). ``check_positive_only_tag_during_fit`` (iris, rounded, minus its mean) passes:
floats whose every value is repeated are categories (with a NumericColumnWarning).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.multiclass import type_of_target

import treelearn as tl

CONTINUOUS_X = (
    "treelearn's classifiers take categorical features and refuse floats with a fractional "
    "part seen once (NumericColumnError: discretize first); this check feeds such floats "
    "whatever the categorical tag says"
)
EXPECTED_FAILED = {
    # X = rng.rand(15, 30), every value distinct; the same equivalence on categorical
    # data: tests/test_weights.py::test_classifiers_integer_weights_equal_repeated_rows
    "check_sample_weight_equivalence_on_dense_data": CONTINUOUS_X,
}

# numeric="gaussian" models continuous floats as Gaussians: those two checks apply and pass
ESTIMATORS = [tl.NaiveBayes(), tl.TAN(), tl.ChowLiuMultinet(), tl.KDB(), tl.AODE(),
              tl.NaiveBayes(numeric="gaussian")]


def _expected_failed(est):
    return {} if est.get_params().get("numeric") == "gaussian" else EXPECTED_FAILED


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed,
                         xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # alpha=0-free, but tiny data warns
        warnings.simplefilter("ignore", tl.NumericColumnWarning)  # repeated floats: a note
        check(estimator)


# ---------------------------------------------------------------------- the rules, directly
@pytest.fixture
def features():
    return pd.DataFrame({"a": ["x", "y", "x", "y", "x", "y"], "b": [0, 0, 1, 1, 0, 1]})


@pytest.mark.parametrize("make", [tl.NaiveBayes, tl.TAN, tl.ChowLiuMultinet, tl.KDB, tl.AODE])
def test_continuous_target_is_an_error(features, make):
    y = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])  # six measurements, each seen once
    assert type_of_target(y) == "continuous"
    with pytest.raises(tl.ClassLabelError, match=r"continuous.*0\.1.*discretize y"):
        make().fit(features, y)


def test_repeated_float_labels_are_classes(features):
    # sklearn calls these 'continuous' too, but every label occurs twice or more: classes
    y = pd.Series([0.25, 1.5, 0.25, 1.5, 0.25, 1.5])
    assert type_of_target(y) == "continuous"
    clf = tl.NaiveBayes().fit(features, y)
    assert clf.classes_.tolist() == [0.25, 1.5]
    assert clf.class_count_.tolist() == [3, 3]


def test_one_float_label_seen_once_makes_the_target_continuous(features):
    y = pd.Series([0.25, 1.5, 0.25, 1.5, 0.25, 2.75])
    with pytest.raises(tl.ClassLabelError, match=r"3 distinct float labels, 1 of them seen once"):
        tl.NaiveBayes().fit(features, y)


def test_whole_float_labels_are_classes_even_when_seen_once(features):
    y = np.array([1.0, 2.0, 1.0, 2.0, 1.0, 3.0])
    assert type_of_target(y) == "multiclass"
    assert tl.TAN().fit(features, y).classes_.tolist() == [1.0, 2.0, 3.0]


def test_weights_decide_which_labels_count(features):
    # the once-seen 2.75 has weight zero: absent, so the other labels (each twice) are classes
    y = [0.25, 1.5, 0.25, 1.5, 0.25, 2.75]
    clf = tl.NaiveBayes().fit(features, y, sample_weight=[1, 1, 1, 1, 1, 0])
    assert clf.classes_.tolist() == [0.25, 1.5]


def test_complex_features_and_labels_are_errors(features):
    with pytest.raises(tl.TreelearnError, match=r"column 'a'.*Complex data not supported"):
        tl.NaiveBayes().fit(pd.DataFrame({"a": [1 + 1j, 2 + 0j] * 3}), [0, 1] * 3)
    with pytest.raises(tl.TreelearnError, match="X holds complex numbers"):
        tl.NaiveBayes().fit(np.ones((4, 2)) * 1j, [0, 1, 0, 1])
    with pytest.raises(tl.ClassLabelError, match="y holds complex numbers"):
        tl.NaiveBayes().fit(features, np.array([0, 1] * 3) + 1j)


def test_y_none_and_empty_inputs(features):
    with pytest.raises(tl.ClassLabelError, match="requires y to be passed"):
        tl.TAN().fit(features, None)
    with pytest.raises(tl.EmptyDataError, match=r"0 feature\(s\) \(shape=\(6, 0\)\)"):
        tl.TAN().fit(features[[]], [0, 1] * 3)
    with pytest.raises(tl.EmptyDataError, match=r"0 sample\(s\)"):
        tl.TAN().fit(features.iloc[:0], [])


def test_single_class_after_weights_names_the_class(features):
    with pytest.raises(tl.ClassLabelError, match=r"single class 1 \(1 class among"):
        tl.NaiveBayes().fit(features, [0, 1] * 3, sample_weight=[0, 1] * 3)


def test_column_vector_y_warns_and_fits_the_same(features):
    y = np.array([0, 1, 1, 0, 0, 1])
    flat = tl.TAN().fit(features, y)
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        column = tl.TAN().fit(features, y[:, None])
    np.testing.assert_array_equal(column.predict_proba(features), flat.predict_proba(features))


def test_wrong_number_of_array_features_and_1d_x(features):
    clf = tl.NaiveBayes().fit(features.to_numpy(), [0, 1, 1, 0, 0, 1])
    with pytest.raises(tl.FeatureMismatchError,
                       match="X has 1 features, but NaiveBayes is expecting 2 features"):
        clf.predict(features.to_numpy()[:, :1])
    with pytest.raises(tl.TreelearnError, match="Reshape your data"):
        clf.predict(features.to_numpy()[0])


@pytest.mark.parametrize("make", [tl.NaiveBayes, tl.TAN])
def test_prediction_leaves_the_estimator_unchanged(features, make, tmp_path):
    clf = make().fit(features, [0, 1, 1, 0, 0, 1])
    before = dict(vars(clf))
    proba = clf.predict_proba(features)
    assert vars(clf) == before
    path = tmp_path / "clf.json"
    clf.save(path)
    back = tl.load(path)  # a loaded classifier predicts the same without building anything
    loaded = dict(vars(back))
    np.testing.assert_array_equal(back.predict_proba(features), proba)
    assert vars(back) == loaded


def test_training_data_never_modified(features):
    copy = features.copy()
    tl.TAN().fit(features, pd.Series([0.25, 1.5] * 3))
    pd.testing.assert_frame_equal(features, copy)



def test_dask_target_follows_the_same_rule(features):
    dd = pytest.importorskip("dask.dataframe")
    df = features.assign(y=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(tl.ClassLabelError, match="continuous"):
        tl.NaiveBayes().fit(ddf.drop(columns="y"), ddf["y"])
    ddf = dd.from_pandas(df.assign(y=[0.25, 1.5] * 3), npartitions=2)
    assert tl.NaiveBayes().fit(ddf.drop(columns="y"), ddf["y"]).classes_.tolist() == [0.25, 1.5]
