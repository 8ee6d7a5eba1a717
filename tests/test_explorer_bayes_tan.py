"""BayesianTAN's explorer page, checked in headless Chromium: the page sums the exact
average over every TAN feature tree, the joint table of every complete assignment (the
model's own matrix-tree determinants, handed over as data); its class posterior must be
``predict_proba`` (missing features summed out), every feature's marginal and ``log
P(evidence)`` the model's own ``predict_joint_log_proba``; on four features, the table
and every answer against a brute force over all 16 labelled spanning trees from the
model's public tables alone.
"""

from __future__ import annotations

import itertools
import json

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import spanning_trees
from scipy.special import logsumexp

import treelearn as tl
from tests.test_explorer import HARNESS, fragment, needs_browser, run_fragments, run_page
from treelearn.viz._explorer import explorer_spec, to_html

ASIA = pd.read_csv("datasets/asia.csv")
X, Y = ASIA.drop(columns="either"), ASIA["either"]
TENNIS = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
# the page's doubles against numpy's: the same sums taken in another order (a log-domain
# elimination against numpy's batched one); the log weights reach thousands of nats, so
# the logs agree to ~1e-12 and the probabilities better
TOL = 1e-10


def model_answers(clf, features: list, ev: dict) -> tuple[float, dict]:
    """``log P(evidence | D)`` and each unobserved feature's posterior, from the model's own
    ``predict_joint_log_proba`` (its sum over completions of the missing features)."""

    def log_p(assign: dict) -> float:
        row = pd.DataFrame([assign], columns=features)
        return float(logsumexp(clf.predict_joint_log_proba(row)[0]))

    base = log_p(ev)
    out = {}
    for j, v in enumerate(features):
        if v not in ev:
            out[v] = np.array([np.exp(log_p({**ev, v: s}) - base) for s in clf.states_[j]])
    return base, out


@needs_browser
def test_class_posterior_is_predict_proba_and_marginals_the_models(tmp_path):
    clf = tl.BayesianTAN(equivalent_sample_size=2.0).fit(X, Y)
    features = list(X.columns)
    sets = [
        {},
        {"smoke": "yes"},
        {"dysp": "yes", "xray": "no", "asia": "yes"},
        dict(X.iloc[3]),
        {"tub": "yes", "bronc": "no"},
    ]
    results = run_fragments(clf, tmp_path, [fragment(e) for e in sets])
    proba = clf.predict_proba(pd.DataFrame(sets, columns=features))
    for ev, r, expected in zip(sets, results, proba):
        assert r["evidence"] == ev
        np.testing.assert_allclose(r["marginals"]["either"], expected, rtol=0, atol=TOL)
        base, marg = model_answers(clf, features, ev)
        assert r["log_evidence"] == pytest.approx(base if ev else 0.0, abs=1e-9)
        for v, m in marg.items():
            np.testing.assert_allclose(r["marginals"][v], m, rtol=0, atol=TOL)


def brute_joint(clf) -> tuple[list, np.ndarray]:
    """``P(x, c | D)`` of every complete assignment (features, then the class) by summing
    over every labelled spanning tree of the features, from the public tables only:
    ``theta_c prod_v theta_v|c(x_v) sum_T prod_{uv in T} w_uv rho_c(x_u, x_v) / sum_T prod w``."""
    d = len(clf.states_)
    trees = spanning_trees(range(d))
    assert len(trees) == d ** (d - 2)  # Cayley
    lw = clf.log_weights_
    log_z = logsumexp([sum(lw[u, v] for u, v in t) for t in trees])
    off = np.concatenate([[0], np.cumsum([len(s) for s in clf.states_])[:-1]])
    rows, logp = [], []
    for x in itertools.product(*(range(len(s)) for s in clf.states_)):
        idx = off + np.array(x)
        for c in range(len(clf.classes_)):
            rho = clf.log_rho_[c]
            sums = logsumexp([sum(lw[u, v] + rho[idx[u], idx[v]] for u, v in t) for t in trees])
            rows.append([*x, c])
            logp.append(clf.class_log_prior_[c] + clf.log_theta_[c][idx].sum() + sums - log_z)
    return rows, np.exp(logp)


@needs_browser
def test_four_features_against_every_spanning_tree(tmp_path):
    Xt, yt = TENNIS.drop(columns="PlayTennis"), TENNIS["PlayTennis"]
    clf = tl.BayesianTAN(equivalent_sample_size=1.0, class_arcs="all").fit(Xt, yt)
    features = list(Xt.columns)
    rows, p = brute_joint(clf)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)  # the average is a distribution
    rows = np.array(rows)
    sets = [
        {},
        {"Outlook": "Sunny"},
        {"Humidity": "High", "Wind": "Strong"},
        {"Outlook": "Rain", "Temperature": "Cool", "Humidity": "Normal", "Wind": "Weak"},
    ]
    # the page's table (every assignment's P(x, c | D)) sums to one, as the brute force's
    script = HARNESS.replace(
        "RESULTS.push({", "RESULTS.push({total: Number(document.body.dataset.jointTotal), "
    )
    results = run_page(clf, tmp_path, script % json.dumps([fragment(e) for e in sets]))
    assert results[0]["total"] == pytest.approx(1.0, abs=1e-12)
    # and it is the brute force's, row by row (the model's determinants, made in Python)
    joint = explorer_spec(clf)["joint"]
    assert joint["rows"] == rows.tolist()
    np.testing.assert_allclose(joint["p"], p, rtol=1e-12, atol=0)
    names = [*features, "PlayTennis"]
    labels = [*[list(s) for s in clf.states_], list(clf.classes_)]
    for ev, r in zip(sets, results):
        keep = np.ones(len(rows), bool)
        for k, s in ev.items():
            keep &= rows[:, names.index(k)] == labels[names.index(k)].index(s)
        pe = p[keep].sum()
        assert r["log_evidence"] == pytest.approx(np.log(pe), abs=1e-10)
        for j, v in enumerate(names):
            m = np.bincount(rows[keep, j], weights=p[keep], minlength=len(labels[j])) / pe
            np.testing.assert_allclose(r["marginals"][v], m, rtol=0, atol=TOL)


def test_drawn_tree_is_the_most_probable_one_with_edge_posteriors():
    # every class arc: an undirected tree (class_arcs="average" draws the most probable
    # directed tree: tests/test_bayes_tan_arc_averaging.py)
    clf = tl.BayesianTAN(class_arcs="all").fit(X, Y)
    spec = explorer_spec(clf)
    names = [v["name"] for v in spec["variables"]]
    assert names == [*X.columns, "either"] and spec["target"] == names.index("either")
    g = nx.Graph()
    d = len(X.columns)
    for u, v in itertools.combinations(range(d), 2):
        g.add_edge(u, v, weight=clf.log_weights_[u, v])
    best = {frozenset(e) for e in nx.maximum_spanning_tree(g).edges}
    tree = [(u, v, s) for u, v, kind, _, s, _ in spec["edges"][0] if kind == "tree" and u < d]
    assert {frozenset((u, v)) for u, v, _ in tree} == best
    for u, v, s in tree:  # each drawn feature edge: its posterior probability
        assert s == pytest.approx(clf.edge_posteriors_[u, v], abs=1e-15)
    # every feature has the class as a parent: one tree edge to the root, a mark elsewhere
    to_class = [e for e in spec["edges"][0] if e[0] == d]
    assert len(to_class) == d and sum(e[2] == "tree" for e in to_class) == 1
    assert spec["strength"] == "posterior" and "every TAN feature tree" in spec["title"]
    # the hover of a feature: P(x | c) in each class (the same in every tree)
    asia = spec["variables"][0]["cpt"]
    assert asia["parents"] == ["either"]
    np.testing.assert_allclose(
        [row[1] for row in asia["rows"]], np.exp(clf.log_theta_[:, :2]), rtol=0, atol=1e-15
    )


def test_too_many_assignments_refused_and_super_parent_checked():
    alarm = pd.read_csv("datasets/alarm.csv", nrows=400)
    Xa, ya = alarm.drop(columns="HR").iloc[:, :14], alarm["HR"]
    with pytest.raises(tl.TreelearnError, match="complete assignments"):
        to_html(tl.BayesianTAN().fit(Xa, ya))
    with pytest.raises(tl.TreelearnError, match="leave it out"):
        to_html(tl.BayesianTAN().fit(X, Y), super_parent="asia")
