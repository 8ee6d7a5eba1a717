"""BayesianTAN with every class arc (``class_arcs="all"``, Cerquides' TBMATAN, the default
before class-arc averaging) below the majority class on MASS::survey (issue 39's grid).

The one held-out row that puts it under the majority is the model's exact answer, checked
here against the Bayesian average over every TAN tree enumerated (``oracles.bayesian_tan_joint``)
on the survey's own training rows, with the counts that make it so read from pandas."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from oracles import bayesian_tan_joint
from sklearn.model_selection import StratifiedKFold

import treelearn as tl

_SURVEY = Path(__file__).resolve().parent.parent / "datasets" / "real" / "survey.csv"
#: the survey's columns of states; its five numeric columns get no MDL cut (one bin each)
STATES = ["Sex", "W.Hnd", "Fold", "Clap", "Exer", "M.I"]
#: the held-out row (position in the table) that BayesianTAN sends to a minority class
ROW = 17


def _fold() -> tuple[pd.DataFrame, pd.Series, np.ndarray, np.ndarray]:
    """The table as the grid reads it and the grid's third fold (seed 0), the one with ROW."""
    df = tl.io.read_data(_SURVEY)  # Exer's level "None" kept, as the grid reads it
    df = df[df["Smoke"].notna()]
    X, y = df.drop(columns="Smoke"), df["Smoke"]
    train, test = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))[2]
    assert ROW in test
    return X, y, train, test


def test_the_training_counts_behind_the_row():
    X, y, train, _ = _fold()
    row = X.iloc[ROW]
    assert (row["W.Hnd"], row["M.I"], y.iloc[ROW]) == ("Left", "Imperial", "Never")
    seen = X.iloc[train].assign(Smoke=y.iloc[train])
    left = seen[seen["W.Hnd"] == "Left"]
    table = pd.crosstab(left["Smoke"], left["M.I"]).reindex(columns=["Imperial", "Metric"])
    # every left-handed writer who smokes uses Imperial units, no left-handed Never does
    assert table.loc["Occas"].tolist() == [2, 0]
    assert table.loc["Never"].tolist() == [0, 6]
    assert table.loc[["Heavy", "Regul"], "Metric"].sum() == 0
    # the model of the grid before class-arc averaging (its defaults then, the raw table):
    # no numeric column is cut, the W.Hnd - M.I edge is in (nearly) every tree, and the row
    # goes to Occas (the default class_arcs="average": tests/test_bayes_tan_arc_averaging.py)
    clf = tl.BayesianTAN(class_arcs="all").fit(X.iloc[train], y.iloc[train])
    assert all(len(edges) == 0 for edges in clf.binner_.edges_.values())
    names = list(clf.feature_names_in_)
    assert clf.edge_posteriors_[names.index("W.Hnd"), names.index("M.I")] > 0.99
    assert clf.predict(X.iloc[[ROW]])[0] == "Occas"


@pytest.mark.parametrize("ess", [1.0, 10.0])  # the default, and the authors' own lambda
def test_the_row_goes_to_a_minority_class_under_the_exact_average_over_trees(ess):
    X, y, train, test = _fold()
    seen = X.iloc[train][STATES]
    complete = seen.notna().all(axis=1).to_numpy()
    Xt, yt = seen[complete], y.iloc[train][complete]
    clf = tl.BayesianTAN(numbers="states", equivalent_sample_size=ess, class_arcs="all")
    clf.fit(Xt, yt)
    data = {c: Xt[c].to_numpy() for c in STATES} | {"Smoke": yt.to_numpy()}
    states = {c: sorted(set(data[c].tolist())) for c in data}
    held = X.iloc[test][STATES]
    rows = [ROW] + [int(i) for i in test[held.notna().all(axis=1).to_numpy()][:4] if i != ROW]
    got = clf.predict_proba(X.iloc[rows][STATES])
    for proba, i in zip(got, rows):
        # 6^4 = 1,296 trees, each with its BDeu posterior and its predictive
        joint = bayesian_tan_joint(data, STATES, "Smoke", states, ess, X.iloc[i][STATES])
        want = np.array([joint[c] for c in clf.classes_])
        np.testing.assert_allclose(proba, want / want.sum(), rtol=1e-9, atol=0)
    assert clf.classes_[got[0].argmax()] == "Occas"  # ROW is a Never
