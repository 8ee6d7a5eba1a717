"""A2DE's explorer page (AnDE(n=2)), checked in headless Chromium: the page evaluates
A2DE's own estimate of ``P(y, x_observed)`` (pairs of super-parents, falling back to AODE
and naive Bayes) from the model's tables; its class posterior must be ``predict_proba``
(missing features dropped, as the classifier drops them), ``log P(evidence)`` and each
unobserved feature's bars the normalised ``predict_joint_log_proba`` with that feature
added, and on complete rows the formula written out here from the counts-derived tables
by plain loops. The feature-weighted naive Bayes classifiers (AWNB, WANBIA, MANB) share
the page (its naive Bayes term, each feature's log-probability times its weight): the
same checks, and MANB's feature bars against naive Bayes's exact ``P(x | evidence)``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

import treelearn as tl
from tests.test_explorer import fragment, needs_browser, run_fragments
from treelearn.viz._explorer import explorer_spec, to_html

ASIA = pd.read_csv("datasets/asia.csv")
X, Y = ASIA.drop(columns="either"), ASIA["either"]
# the page's doubles against numpy's: sums of a few dozen logs in another order
TOL = 1e-12


def by_hand(clf, row: dict) -> np.ndarray:
    """``log Ĵ(y, row)`` per class, A2DE's formula over every pair of observed features
    (the module docstring's), with plain loops over the public tables; None where no pair
    qualifies (the test's rows always have one)."""
    features = list(X.columns)
    states = clf.fallback_model_.states
    cards = [len(states[f]) for f in features]
    off = np.concatenate([[0], np.cumsum(cards)[:-1]])
    obs = [j for j, f in enumerate(features) if f in row]
    pos = {j: off[j] + list(states[features[j]]).index(row[features[j]]) for j in obs}
    terms = []
    for i, j in itertools.combinations(obs, 2):
        if not clf.qualifies3_[pos[i], pos[j]]:
            continue
        t = clf.log_pair3_[:, pos[i], pos[j]].copy()
        for m in obs:
            if m not in (i, j):
                t += clf.log_cond3_[:, pos[i], pos[j], pos[m]]
        terms.append(t)
    assert terms
    return logsumexp(np.array(terms), axis=0) - np.log(len(terms))


SETS = [
    {},
    {"smoke": "yes"},
    {"dysp": "yes", "xray": "no", "asia": "yes"},
    dict(X.iloc[3]),
    {"tub": "yes", "bronc": "no"},
    {"either": "yes", "smoke": "no"},
    {"either": "no", "lung": "yes", "dysp": "no"},
]


@needs_browser
def test_class_posterior_is_predict_proba_and_bars_the_estimate(tmp_path):
    clf = tl.AnDE(n=2, alpha=0.5).fit(X, Y)
    features = list(X.columns)
    classes = list(clf.classes_)
    results = run_fragments(clf, tmp_path, [fragment(e) for e in SETS])

    def log_joint(assign: dict) -> np.ndarray:  # the model's own, the class masked if given
        row = pd.DataFrame([{k: v for k, v in assign.items() if k in features}], columns=features)
        j = clf.predict_joint_log_proba(row)[0]
        if "either" in assign:
            j = np.where([c == assign["either"] for c in classes], j, -np.inf)
        return j

    for ev, r in zip(SETS, results):
        assert r["evidence"] == ev
        j = log_joint(ev)
        np.testing.assert_allclose(
            r["marginals"]["either"], np.exp(j - logsumexp(j)), rtol=0, atol=TOL
        )
        assert r["log_evidence"] == pytest.approx(logsumexp(j) if ev else 0.0, abs=1e-10)
        if "either" not in ev:
            proba = clf.predict_proba(pd.DataFrame([ev], columns=features))[0]
            np.testing.assert_allclose(r["marginals"]["either"], proba, rtol=0, atol=TOL)
        if sum(f in ev for f in features) >= 2:  # a pair of observed super-parents
            hand = by_hand(clf, ev)
            if "either" in ev:
                hand = np.where([c == ev["either"] for c in classes], hand, -np.inf)
            np.testing.assert_allclose(
                r["marginals"]["either"], np.exp(hand - logsumexp(hand)), rtol=0, atol=TOL
            )
        for f in features:
            if f in ev:
                continue
            scores = [logsumexp(log_joint({**ev, f: s})) for s in clf.fallback_model_.states[f]]
            np.testing.assert_allclose(
                r["marginals"][f], np.exp(scores - logsumexp(scores)), rtol=0, atol=TOL
            )


@needs_browser
def test_alpha_zero_tables_and_soft_evidence_refused(tmp_path):
    # alpha=0: zero probabilities (log 0, null in the page's JSON) in the tables
    clf = tl.AnDE(n=2, alpha=0.0).fit(X.head(300), Y.head(300))
    sets = [{"asia": "yes", "tub": "no"}, {"smoke": "yes", "dysp": "yes", "bronc": "no"}]
    results = run_fragments(
        clf, tmp_path, [fragment(e) for e in sets] + ["#evidence=smoke:yes&soft=lung:0.2|0.8"]
    )
    for ev, r in zip(sets, results):
        with np.errstate(divide="ignore"):
            proba = clf.predict_proba(pd.DataFrame([ev], columns=X.columns))[0]
        np.testing.assert_allclose(r["marginals"]["either"], proba, rtol=0, atol=TOL)
    # min_count: pairs (and super-parents) of rare states do not qualify; rows with no
    # qualifying pair fall back to AODE, then to naive Bayes, as the classifier's own
    rare = tl.AnDE(n=2, min_count=40).fit(X.head(400), Y.head(400))
    assert not rare.qualifies3_.all()
    picky = [
        {"asia": "yes", "tub": "yes"},
        {"asia": "yes", "smoke": "no", "xray": "yes"},
        {"tub": "yes"},
        {"lung": "yes", "dysp": "no"},
    ]
    for ev, r in zip(picky, run_fragments(rare, tmp_path, [fragment(e) for e in picky])):
        proba = rare.predict_proba(pd.DataFrame([ev], columns=X.columns))[0]
        np.testing.assert_allclose(r["marginals"]["either"], proba, rtol=0, atol=TOL)
    # soft evidence has no meaning for an estimate that is no distribution: ignored
    base = clf.predict_proba(pd.DataFrame([{"smoke": "yes"}], columns=X.columns))[0]
    np.testing.assert_allclose(results[-1]["marginals"]["either"], base, rtol=0, atol=TOL)


def test_the_spec_and_what_is_refused():
    clf = tl.AnDE(n=2).fit(X, Y)
    spec = explorer_spec(clf)
    assert [v["name"] for v in spec["variables"]] == [*X.columns, "either"]
    assert {(u, v) for u, v, *_ in spec["edges"][0]} == {(7, i) for i in range(7)}
    assert "pairs of super-parents" in spec["title"]
    # the page's one engine averages A2DE's forests over the observed pairs (select): one
    # forest per qualifying pair of super-parent states, then AODE's per qualifying state,
    # then naive Bayes's; AODE's page is one network's, no average
    tiers = [c.get("tier") for c in spec["components"]]
    assert spec["select"] == "observed"
    assert tiers.count(0) == int(clf.qualifies3_.sum()) // 2  # symmetric, i != j
    assert tiers.count(1) == int(clf.qualifies_.sum()) and tiers.count(2) == 1
    assert all(len(c["fixed"]) == 2 - t for c, t in zip(spec["components"], tiers))
    aode = explorer_spec(tl.AODE().fit(X, Y))
    assert "select" not in aode and len(aode["components"]) == 2  # one per class
    assert not spec["panel"] and not spec["map"] and spec["soft"] is not True
    with pytest.raises(tl.TreelearnError, match="leave it out"):
        to_html(clf, super_parent="asia")


# ------------------------------------------------- the feature-weighted naive Bayes family
WEIGHTED = {
    "awnb": lambda: tl.AWNB(random_state=0).fit(X, Y),
    "manb": lambda: tl.MANB().fit(X, Y),
    "wanbia": lambda: tl.WeightedNaiveBayes().fit(X.head(1000), Y.head(1000)),
}


@needs_browser
@pytest.mark.parametrize("kind", sorted(WEIGHTED))
def test_weighted_naive_bayes_pages_are_their_score(kind, tmp_path):
    clf = WEIGHTED[kind]()
    features = list(X.columns)
    classes = list(clf.classes_)
    sets = [
        {},
        {"smoke": "yes"},
        {"dysp": "yes", "xray": "no", "asia": "yes"},
        {"either": "yes", "tub": "no"},
    ]
    results = run_fragments(clf, tmp_path, [fragment(e) for e in sets])
    states = clf.states_

    def by_hand(assign: dict) -> np.ndarray:  # log P(y) + sum_j w_j T_j[y, x_j], observed j
        s = clf.class_log_prior_.copy()
        for j, f in enumerate(features):
            if f in assign:
                s = (
                    s
                    + clf.feature_weights_[j]
                    * clf.feature_log_prob_[j][:, states[j].index(assign[f])]
                )
        if "either" in assign:
            s = np.where([c == assign["either"] for c in classes], s, -np.inf)
        return s

    for ev, r in zip(sets, results):
        hand = by_hand(ev)
        post = np.exp(hand - logsumexp(hand))
        np.testing.assert_allclose(r["marginals"]["either"], post, rtol=0, atol=TOL)
        if "either" not in ev:
            proba = clf.predict_proba(pd.DataFrame([ev], columns=features))[0]
            np.testing.assert_allclose(r["marginals"]["either"], proba, rtol=0, atol=TOL)
        for j, f in enumerate(features):
            if f in ev:
                continue
            scores = np.array([logsumexp(by_hand({**ev, f: s})) for s in states[j]])
            np.testing.assert_allclose(
                r["marginals"][f], np.exp(scores - logsumexp(scores)), rtol=0, atol=TOL
            )
            if kind == "manb":  # every weight 1, tables normalised: naive Bayes's exact P(x | e)
                exact = post @ np.exp(clf.feature_log_prob_[j])
                np.testing.assert_allclose(r["marginals"][f], exact, rtol=0, atol=TOL)
