"""BayesianTAN's class-arc average (``class_arcs="average"``): the exact Bayesian average
over every directed feature tree and every subset of the class arcs (Dash & Cooper 2002,
over Cerquides & López de Màntaras' TAN structures), from arborescence sums.

Oracles: every arborescence enumerated (itertools) for the sums; every directed tree x
class-arc subset of a 4-feature table, each with its BDeu marginal likelihood
(``oracles.bdeu_family_log_ml``, gammaln by hand) and plug-in predictive
(``oracles.bdeu_conditional``), for the classifier."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from oracles import bdeu_conditional, bdeu_family_log_ml
from scipy.special import logsumexp

import treelearn as tl
from treelearn.structure._arborescence_sums import arc_marginals, log_arborescence_sum


def _arborescences(d: int) -> list[tuple[int, tuple]]:
    """Every ``(root, parent)`` of a spanning arborescence of K_d (``parent[root] = -1``):
    each parent assignment whose parent links reach the root from every vertex."""
    out = []
    for root in range(d):
        others = [v for v in range(d) if v != root]
        for choice in itertools.product(range(d), repeat=len(others)):
            parent = [-1] * d
            for v, u in zip(others, choice):
                parent[v] = u
            if any(parent[v] == v for v in others):
                continue
            ok = True
            for v in others:  # follow parents: the root within d steps, else a cycle
                seen, u = 0, v
                while u != root and seen <= d:
                    u, seen = parent[u], seen + 1
                ok &= u == root
            if ok:
                out.append((root, tuple(parent)))
    return out


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])
def test_the_count_of_arborescences_is_cayleys(d):
    assert len(_arborescences(d)) == d ** (d - 1)  # rooted labelled trees


@pytest.mark.parametrize("d", [4, 5])
def test_the_arborescence_sum_and_its_marginals_against_every_arborescence(d):
    rng = np.random.default_rng(d)
    # log weights thousands of nats apart, as marginal likelihoods are
    arcs = rng.normal(0, 300, (d, d))
    roots = rng.normal(0, 300, d)
    terms, trees = [], _arborescences(d)
    for root, parent in trees:
        terms.append(roots[root] + sum(arcs[parent[v], v] for v in range(d) if v != root))
    terms_a = np.array(terms)
    log_z = logsumexp(terms_a)
    got = log_arborescence_sum(arcs, roots)
    # relative accuracy of a sum of positive terms: a few ulps of the largest log term
    assert got == pytest.approx(log_z, abs=1e-12 * np.abs(terms_a).max())
    # moderate weights too, where every arborescence counts
    small_a, small_r = rng.normal(0, 1, (d, d)), rng.normal(0, 1, d)
    t = [small_r[r] + sum(small_a[p[v], v] for v in range(d) if v != r) for r, p in trees]
    assert log_arborescence_sum(small_a, small_r) == pytest.approx(logsumexp(t), abs=1e-12)
    # a batch, one sum per matrix, as a loop of single sums
    batch = rng.normal(0, 2, (3, 2, d, d))
    want = [[log_arborescence_sum(m, small_r) for m in row] for row in batch]
    np.testing.assert_allclose(log_arborescence_sum(batch, small_r), want, rtol=1e-13)
    # marginals: the probability mass of the arborescences that hold each arc / root
    w = np.exp(np.array(t) - logsumexp(t))
    P_want, root_want = np.zeros((d, d)), np.zeros(d)
    for (r, p), wi in zip(trees, w):
        root_want[r] += wi
        for v in range(d):
            if v != r:
                P_want[p[v], v] += wi
    P, P_root = arc_marginals(small_a, small_r)
    np.testing.assert_allclose(P, P_want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(P_root, root_want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(P.sum(axis=0) + P_root, 1.0, rtol=0, atol=1e-12)


def test_absent_arcs_and_the_vertex_order():
    # arcs 0->1 (2), 1->0 (3), 1->2 (5), no others: rooted at 0, 0->1->2 (1 * 2 * 5); at
    # 1, 1->0 and 1->2 (1 * 3 * 5); at 2 none (2 reaches nothing)
    w = np.array([[0.0, 2.0, 0.0], [3.0, 0.0, 5.0], [0.0, 0.0, 0.0]])
    with np.errstate(divide="ignore"):
        arcs, roots = np.log(w), np.log(np.array([1.0, 1.0, 7.0]))
    order = [0, 2, 1]  # the last vertex (1) reaches every other: every pivot positive
    got = log_arborescence_sum(arcs[np.ix_(order, order)], roots[order])
    assert got == pytest.approx(np.log(25.0), rel=1e-14)
    with pytest.raises(ValueError, match="every arc"):
        arc_marginals(arcs, roots)
    # in the given order vertex 1 is reached from no later vertex: refused, not a wrong 0
    with pytest.raises(ValueError, match="zero pivot"):
        log_arborescence_sum(arcs, roots)


# ------------------------------------------------------------ the classifier
FEATURES = ["a", "b", "e", "f"]
STATES = {"a": [0, 1], "b": [0, 1, 2], "e": [0, 1], "f": [0, 1], "y": [0, 1]}


def _table(n: int = 40, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.8, y, 1 - y)  # depends on the class
    b = (a + rng.integers(0, 2, n)) % 3  # on a, not on the class
    e = rng.integers(0, 2, n)  # on nothing
    f = np.where(rng.random(n) < 0.7, e, 1 - e)  # on e
    return pd.DataFrame({"a": a, "b": b, "e": e, "f": f, "y": y})


def _brute_force_joint(df: pd.DataFrame, x: dict, ess: float, arc_prior: float) -> np.ndarray:
    """``P(c, x | D)`` for c = 0, 1: the average over every directed tree over the features
    (uniform prior) x every subset of class arcs (prior ``arc_prior`` each) of the BDeu
    posterior predictive, weighted by prior x marginal likelihood."""
    data = {c: df[c].to_numpy() for c in df}
    log_ml: dict = {}
    log_post, predictive = [], []
    for root, parent in _arborescences(len(FEATURES)):
        for arcs_in in itertools.product([True, False], repeat=len(FEATURES)):
            families = [("y", ())]
            for v, (name, has_c) in enumerate(zip(FEATURES, arcs_in)):
                parents = (("y",) if has_c else ()) + (() if v == root else (FEATURES[parent[v]],))
                families.append((name, parents))
            for fam in families:
                if fam not in log_ml:
                    log_ml[fam] = bdeu_family_log_ml(data, fam[0], list(fam[1]), STATES, ess)
            n_in = sum(arcs_in)
            prior = n_in * np.log(arc_prior) + (len(FEATURES) - n_in) * np.log1p(-arc_prior)
            log_post.append(prior + sum(log_ml[f] for f in families))
            predictive.append(
                [
                    np.prod(
                        [
                            bdeu_conditional(data, f[0], list(f[1]), STATES, ess, {**x, "y": c})
                            for f in families
                        ]
                    )
                    for c in (0, 1)
                ]
            )
    w = np.exp(np.array(log_post) - logsumexp(log_post))
    return w @ np.array(predictive)


@pytest.mark.parametrize(("ess", "arc_prior"), [(1.0, 0.5), (4.0, 0.2)])
def test_the_class_posterior_against_every_directed_tree_and_class_arc_subset(ess, arc_prior):
    df = _table()
    X, y = df[FEATURES], df["y"]
    clf = tl.BayesianTAN(equivalent_sample_size=ess, arc_prior=arc_prior, numbers="states").fit(
        X, y
    )
    rows = X.drop_duplicates().head(6)
    got = clf.predict_proba(rows)
    for proba, (_, row) in zip(got, rows.iterrows()):
        joint = _brute_force_joint(df, row.to_dict(), ess, arc_prior)
        np.testing.assert_allclose(proba, joint / joint.sum(), rtol=1e-9, atol=0)
        # the joint itself, P(c, x | D): exp of the model's joint log-likelihood
        np.testing.assert_allclose(
            np.exp(clf._joint_log_likelihood(clf._prediction_input(row.to_frame().T))[0]),
            joint,
            rtol=1e-9,
        )
