"""Every categorical classifier in scikit-learn's evaluation tools: cross_validate with
scoring="neg_log_loss", GridSearchCV and CalibratedClassifierCV, behind tl.Discretizer in
a pipeline (numeric data cut into bins)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_iris
from sklearn.metrics import log_loss
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline

import treelearn as tl

CLASSIFIERS = {
    "NaiveBayes": tl.NaiveBayes,
    "TAN": tl.TAN,
    "KDB": tl.KDB,
    "AODE": tl.AODE,
    "SKDB": lambda: tl.SKDB(max_k=2),
    "AnDE": lambda: tl.AnDE(n=2),
    "WeightedNaiveBayes": tl.WeightedNaiveBayes,
    "BayesianTAN": tl.BayesianTAN,
    "ChowLiuMultinet": tl.ChowLiuMultinet,
    "TAN-fcll": lambda: tl.TAN(criterion="fcll"),
    "TANSuperParent": lambda: tl.TANSuperParent(random_state=0),
    "AWNB": lambda: tl.AWNB(random_state=0),
    "MANB": tl.MANB,
    "ETAN": tl.ETAN,
}


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    return X, y


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_cross_validate_with_log_loss_is_the_folds_own_log_loss(iris, name):
    X, y = iris
    pipe = make_pipeline(tl.Discretizer(bins=4), CLASSIFIERS[name]())
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    scores = cross_validate(pipe, X, y, cv=cv, scoring=["neg_log_loss", "accuracy"])
    # fold by fold, by hand: the same pipeline refitted, scikit-learn's log_loss
    for k, (train, test) in enumerate(cv.split(X, y)):
        fitted = make_pipeline(tl.Discretizer(bins=4), CLASSIFIERS[name]()).fit(
            X.iloc[train], y.iloc[train]
        )
        want = -log_loss(y.iloc[test], fitted.predict_proba(X.iloc[test]), labels=[0, 1, 2])
        assert np.isclose(scores["test_neg_log_loss"][k], want, rtol=1e-12)
    assert scores["test_accuracy"].mean() > 0.85


def test_grid_search_and_calibration(iris):
    X, y = iris
    grid = GridSearchCV(
        make_pipeline(tl.Discretizer(bins=4), tl.SKDB()),
        {"skdb__max_k": [0, 1, 2], "skdb__loss": ["log_loss", "zero_one"]},
        cv=3,
        scoring="neg_log_loss",
    ).fit(X, y)
    assert set(grid.best_params_) == {"skdb__max_k", "skdb__loss"}
    for est, grid_of in (
        (tl.TAN(), {"tan__criterion": ["loglik", "fcll"]}),
        (tl.ETAN(), {"etan__equivalent_sample_size": [0.5, 5.0]}),
        (tl.TANSuperParent(random_state=0), {"tansuperparent__cv": [3, 5]}),
        (tl.MANB(), {"manb__arc_prior": [0.2, 0.5]}),
        (tl.AWNB(random_state=0), {"awnb__n_trees": [2, 5]}),
    ):
        searched = GridSearchCV(
            make_pipeline(tl.Discretizer(bins=4), est), grid_of, cv=3, scoring="neg_log_loss"
        ).fit(X, y)
        assert set(searched.best_params_) == set(grid_of)
        assert np.isfinite(searched.best_score_)
    assert grid.best_estimator_.predict_proba(X).shape == (150, 3)
    for make in (
        tl.WeightedNaiveBayes,
        lambda: tl.AnDE(n=2),
        tl.MANB,
        lambda: tl.AWNB(random_state=0),
        lambda: tl.TAN(criterion="fcll"),
        lambda: tl.TANSuperParent(random_state=0),
        tl.ETAN,
    ):
        calibrated = CalibratedClassifierCV(
            make_pipeline(tl.Discretizer(bins=4), make()), cv=3, method="sigmoid"
        ).fit(X, y)
        proba = calibrated.predict_proba(X)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        assert (calibrated.predict(X) == y).mean() > 0.8
