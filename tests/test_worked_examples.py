"""The worked examples of MATH.md, by hand: naive Bayes on ``datasets/scifi_films.csv``
with maximum likelihood (zero probabilities) and with Laplace smoothing."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import treelearn as tl

DATA = Path(__file__).resolve().parents[1] / "datasets" / "scifi_films.csv"
CLASS = "good_film"
QUERY = {"setting": "space", "protagonist": "child", "era": "present", "aliens": "yes"}


@pytest.fixture(scope="module")
def films():
    return pd.read_csv(DATA)


def _naive_bayes(df, alpha):
    features = [c for c in df.columns if c != CLASS]
    return tl.fit_cpts(tl.star(CLASS, features), df, alpha=alpha)


def _by_hand(df, x, alpha):
    """p(c) prod_j p(x_j | c) for each class, as exact fractions from pandas counts."""
    n, classes = len(df), sorted(df[CLASS].unique())
    out = {}
    for c in classes:
        rows = df[df[CLASS] == c]
        p = Fraction(len(rows) + alpha, n + len(classes) * alpha)
        for feature, value in x.items():
            k = df[feature].nunique()
            p *= Fraction(int((rows[feature] == value).sum()) + alpha, len(rows) + k * alpha)
        out[c] = p
    return out


def test_scifi_counts_as_written_down(films):
    # the table itself: 8 films, 3 good; what the hand computations below rest on
    assert len(films) == 8
    assert films[CLASS].value_counts().to_dict() == {"no": 5, "yes": 3}


@pytest.mark.parametrize("alpha", [0, 1])
def test_scifi_posterior_equals_hand_computation(films, alpha):
    joint = _by_hand(films, QUERY, alpha)
    # the same numbers written out:
    # ML:      yes 3/8 * 2/3 * 1/3 * 1/3 * 1/3 = 1/108, no 5/8 * 2/5 * 1/5 * 1/5 * 3/5 = 3/500
    # Laplace: yes 4/10 * 3/6 * 2/7 * 2/6 * 2/5 = 4/525, no 6/10 * 3/8 * 2/9 * 2/8 * 4/7 = 1/140
    expected = {
        0: {"yes": Fraction(1, 108), "no": Fraction(3, 500)},
        1: {"yes": Fraction(4, 525), "no": Fraction(1, 140)},
    }[alpha]
    assert joint == expected
    posterior_yes = joint["yes"] / (joint["yes"] + joint["no"])
    assert posterior_yes == {0: Fraction(125, 206), 1: Fraction(16, 31)}[alpha]
    model = _naive_bayes(films, alpha)
    q = model.query(CLASS, evidence=QUERY)
    assert q["yes"] == pytest.approx(float(posterior_yes), abs=1e-12)
    assert q["no"] == pytest.approx(1 - float(posterior_yes), abs=1e-12)
    # the joint probability of the full row, p(c, x), from the log-likelihood
    row = pd.DataFrame([{**QUERY, CLASS: "yes"}])
    assert model.log_likelihood(row) == pytest.approx(np.log(float(joint["yes"])), abs=1e-12)


def test_scifi_zero_probabilities_under_ml_and_not_under_laplace(films):
    # no good film is set 'elsewhere' or has a criminal protagonist (counted here)
    good = films[films[CLASS] == "yes"]
    assert (good["setting"] == "elsewhere").sum() == 0
    assert (good["protagonist"] == "criminal").sum() == 0
    x = {**QUERY, "setting": "elsewhere"}
    ml, laplace = _naive_bayes(films, 0), _naive_bayes(films, 1)
    assert (
        ml.cpt("setting")[ml.states[CLASS].index("yes"), ml.states["setting"].index("elsewhere")]
        == 0
    )
    # ML: one unseen (feature, class) pair zeroes the whole class, whatever the rest says
    assert ml.query(CLASS, evidence=x)["yes"] == 0.0
    assert ml.log_likelihood(pd.DataFrame([{**x, CLASS: "yes"}])) == -np.inf
    # Laplace: every state keeps mass; the posterior is the hand computation's
    hand = _by_hand(films, x, 1)
    assert hand["yes"] > 0
    expected = float(hand["yes"] / (hand["yes"] + hand["no"]))
    assert laplace.query(CLASS, evidence=x)["yes"] == pytest.approx(expected, abs=1e-12)
    assert np.isfinite(laplace.log_likelihood(pd.DataFrame([{**x, CLASS: "yes"}])))
