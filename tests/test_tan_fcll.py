"""TAN(criterion="fcll"): the constants are the least-squares fits the paper defines (derived here
by scipy's quadrature), a tree's score from counts equals the fCLL written row by row, and
the chosen tree is the best of every spanning tree (enumerated) under that score."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import spanning_trees, tree_parents
from scipy import integrate

import treelearn as tl
from treelearn.encoding._table import encode
from treelearn.stats._counts import class_pair_counts
from treelearn.stats._fcll import (
    FCLL_ALPHA,
    FCLL_BETA,
    FCLL_GAMMA,
    FCLL_LAMBDA,
    fcll_edge_weights,
    fcll_score,
)


def expectation(g, dims: int) -> float:
    """``E[g]`` over ``s, t`` independent Exp(1): ``U = exp(-s)``, ``V = exp(-t)`` uniform."""
    if dims == 1:
        return integrate.quad(
            lambda s: g(s) * np.exp(-s), 0, 80, epsabs=1e-13, epsrel=1e-13, limit=200
        )[0]
    return integrate.dblquad(
        lambda t, s: g(s, t) * np.exp(-s - t), 0, 60, 0, 60, epsabs=1e-12, epsrel=1e-12
    )[0]


@pytest.fixture(scope="module")
def constants():
    """The paper's least-squares fits, solved numerically from their normal equations:
    ``log(U / (U + V)) ~ alpha log U + beta log V + gamma`` over ``U, V`` uniform on the unit
    square, and ``log p - log(1 - p) ~ lambda log p + mu`` over ``p`` uniform."""

    def f(s, t):
        return -s - np.logaddexp(-s, -t)  # log U - log(U + V)

    basis = [lambda s, t: -s, lambda s, t: -t, lambda s, t: 1.0]  # log U, log V, 1
    gram = np.array(
        [[expectation(lambda s, t, a=a, b=b: a(s, t) * b(s, t), 2) for b in basis] for a in basis]
    )
    rhs = np.array([expectation(lambda s, t, a=a: a(s, t) * f(s, t), 2) for a in basis])
    alpha, beta, gamma = np.linalg.solve(gram, rhs)

    def logit(s):
        return -s - np.log(-np.expm1(-s))  # log p - log(1 - p), p = exp(-s)

    mean_log, var_log = expectation(lambda s: -s, 1), expectation(lambda s: s * s, 1) - 1.0
    lam = (expectation(lambda s: -s * logit(s), 1) - mean_log * expectation(logit, 1)) / var_log
    return {"alpha": alpha, "beta": beta, "gamma": gamma, "lambda": lam}


def test_the_constants_are_the_least_squares_fits(constants):
    # quadrature to ~1e-10; the closed forms in the code must agree to that
    assert constants["alpha"] == pytest.approx(FCLL_ALPHA, abs=1e-8)
    assert constants["beta"] == pytest.approx(FCLL_BETA, abs=1e-8)
    assert constants["gamma"] == pytest.approx(FCLL_GAMMA, abs=1e-8)
    assert constants["lambda"] == pytest.approx(FCLL_LAMBDA, abs=1e-7)


def data(n: int, seed: int, n_classes: int) -> tuple[pd.DataFrame, pd.Series]:
    """Five categorical features: chains of copies, some of the class, some redundant."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    cols, prev = {}, rng.integers(0, 3, n)
    for j in range(5):
        k = 2 + j % 2
        src = [y, prev, (y + prev) % k][j % 3]
        x = np.where(rng.random(n) < 0.6, src % k, rng.integers(0, k, n))
        cols[f"x{j}"] = x
        prev = x
    return pd.DataFrame(cols), pd.Series(y, name="C")


def row_by_row(X: pd.DataFrame, y: pd.Series, parent: dict, c: dict) -> float:
    """The fCLL summed over the rows, every probability a plug-in frequency of pandas:
    ``sum_t (alpha + beta) log P(x_t, c_t) - beta lambda [sum_i log(P(c_t | x_i, pi_i) /
    P(c_t | pi_i)) + log P(c_t)] + gamma - beta lambda``."""
    df = X.assign(C=y.to_numpy())
    n = len(df)

    def freq(cols):  # each row's relative frequency of its values of cols
        return df.groupby(cols)[cols[0]].transform("size").to_numpy() / n

    log_joint = np.log(freq(["C"]))
    discriminative = np.log(freq(["C"]))
    for f, p in parent.items():
        fam = ["C", f] if p is None else ["C", p, f]
        log_joint += np.log(freq(fam)) - np.log(freq(fam[:-1]))
        # log P(c | x_f, x_p) - log P(c | x_p)
        given = [f] if p is None else [p, f]
        term = np.log(freq(["C", *given])) - np.log(freq(given))
        term -= np.log(freq(["C"])) if p is None else np.log(freq(["C", p])) - np.log(freq([p]))
        discriminative += term
    ab, bl = c["alpha"] + c["beta"], c["beta"] * c["lambda"]
    return float(np.sum(ab * log_joint - bl * discriminative + c["gamma"] - bl))


@pytest.mark.parametrize(("seed", "n_classes"), [(0, 2), (1, 3), (2, 2)])
def test_the_tree_is_the_best_of_every_spanning_tree_and_scores_match_row_by_row(
    constants, seed, n_classes
):
    X, y = data(300, seed, n_classes)
    cols = list(X.columns)
    per_class = class_pair_counts(encode(X.assign(C=y)), class_index=5)
    scored = []
    for tree in spanning_trees(cols):  # all 125 trees on 5 features
        parent = tree_parents(tree, cols[0])
        want = row_by_row(X, y, parent, constants)
        got = fcll_score(
            per_class, [-1 if parent[f] is None else cols.index(parent[f]) for f in cols]
        )
        assert got == pytest.approx(want, rel=1e-9, abs=1e-9)  # counts vs rows, same sums
        scored.append((want, sorted(tuple(sorted(e)) for e in tree)))
    scored.sort(key=lambda t: -t[0])
    assert scored[0][0] - scored[1][0] > 1e-6  # a unique best: the comparison means something
    clf = tl.TAN(criterion="fcll", numbers="states").fit(X, y)
    assert sorted(tuple(sorted(e)) for e in clf.feature_tree_.edges) == scored[0][1]
    # the fitted CPTs are TAN's on that tree: the log-likelihood TAN forced onto it
    forced = tl.TAN(whitelist=scored[0][1], numbers="states").fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), forced.predict_proba(X), rtol=0, atol=1e-12)
    # naive Bayes plus one edge: its weight per row in the fitted tree
    a, b = next(iter(clf.feature_tree_.edges))
    parents = [-1] * 5
    parents[cols.index(b)] = cols.index(a)
    gain = (fcll_score(per_class, parents) - fcll_score(per_class, [-1] * 5)) / len(y)
    assert gain == pytest.approx(clf.feature_tree_.edges[a, b]["weight"], rel=1e-9, abs=1e-12)


def test_fcll_prefers_discriminative_edges_to_merely_correlated_ones():
    # x1 copies x0 (strongly dependent given the class, and marginally: no interaction);
    # x3 is the class's parity of x2 (independent of x2 marginally, dependent given C)
    rng = np.random.default_rng(5)
    n = 2000
    y = rng.integers(0, 2, n)
    x0 = np.where(rng.random(n) < 0.7, y, rng.integers(0, 2, n))
    x1 = np.where(rng.random(n) < 0.9, x0, rng.integers(0, 2, n))
    x2 = rng.integers(0, 2, n)
    x3 = np.where(rng.random(n) < 0.9, x2 ^ y, rng.integers(0, 2, n))
    X = pd.DataFrame({"x0": x0, "x1": x1, "x2": x2, "x3": x3})
    fcll = tl.TAN(criterion="fcll", numbers="states").fit(X, y)
    assert fcll.feature_tree_.has_edge("x2", "x3")
    assert fcll.feature_tree_.edges["x2", "x3"]["weight"] > 0
    w = fcll_edge_weights(class_pair_counts(encode(X.assign(C=y)), class_index=4), 4)
    # log-likelihood TAN's weights are I(X_i; X_j | C); fCLL's take off beta lambda I(X_i;
    # X_j): most of the copy's weight, nearly none of the parity's (x2, x3 independent)
    cmi = tl.TAN(numbers="states").fit(X, y).feature_tree_.edges
    scale = FCLL_ALPHA + FCLL_BETA - FCLL_BETA * FCLL_LAMBDA
    assert w[0, 1] < 0.5 * scale * cmi["x0", "x1"]["weight"]
    assert w[2, 3] > 0.95 * scale * cmi["x2", "x3"]["weight"]
    assert fcll.score(X, y) >= 0.85


def test_options_and_saving(tmp_path):
    X, y = data(200, 3, 2)
    with pytest.raises(tl.TreelearnError, match=r"criterion=.fcll.*forest"):
        tl.TAN(criterion="fcll", forest="bic", numbers="states").fit(X, y)
    with pytest.raises(tl.TreelearnError, match="criterion"):
        tl.TAN(criterion="cll", numbers="states").fit(X, y)
    clf = tl.TAN(criterion="fcll", numbers="states").fit(X, y)
    clf.save(tmp_path / "t.json")
    back = tl.load(tmp_path / "t.json")
    assert back.get_params()["criterion"] == "fcll"
    assert sorted(back.feature_tree_.edges) == sorted(clf.feature_tree_.edges)
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    # partial_fit on chunks gives the tree of the summed counts
    part = tl.TAN(criterion="fcll", numbers="states")
    states = {c: sorted(X[c].unique()) for c in X}
    for i, rows in enumerate(np.array_split(np.arange(len(y)), 3)):
        part.partial_fit(
            X.iloc[rows], y.iloc[rows], classes=[0, 1], states=states if i == 0 else None
        )
    assert sorted(part.learn_chunks().feature_tree_.edges) == sorted(clf.feature_tree_.edges)
