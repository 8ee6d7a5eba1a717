"""The CLG tree's complete-row fast path (rows without a missing number skip the
integrating pass) gives the exact pass's answers to round-off, on complete rows, rows
with missing cells mixed in, and values built so that large terms cancel."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import treelearn as tl


def clg_model(offset: float = 0.0, seed: int = 0) -> tl.CLGTreeModel:
    """d0 -> d1 (3 states each); x0 | d0; x1 | x0 (linear); x2 | d1; x3 a root; x4 | x1.

    ``offset`` shifts every mean and intercept (and the sampled numbers with them), so
    that residuals are small differences of large numbers.
    """
    rng = np.random.default_rng(seed)
    D = nx.DiGraph()
    D.add_node("d0", states=[0, 1, 2], cpt=rng.dirichlet(np.ones(3)))
    D.add_node("d1", states=[0, 1, 2], cpt=rng.dirichlet(np.ones(3), size=3))
    D.add_edge("d0", "d1")
    dnames, xnames = ["d0", "d1"], ["x0", "x1", "x2", "x3", "x4"]
    discrete = tl.TreeModel(D, variables=dnames, dtypes=dict.fromkeys(dnames, np.dtype("int64")))
    G = nx.DiGraph()
    G.add_nodes_from(dnames + xnames)
    G.add_edges_from([("d0", "d1"), ("d0", "x0"), ("x0", "x1"), ("d1", "x2"), ("x1", "x4")])
    G.nodes["x0"].update(means=(offset + rng.normal(0, 2, 3)).tolist(), variances=[0.5, 1.0, 2.0])
    G.nodes["x2"].update(means=(offset + rng.normal(0, 2, 3)).tolist(), variances=[1.5, 0.7, 0.3])
    G.nodes["x1"].update(intercept=offset * 0.2, coefficient=0.8, variance=0.6)
    G.nodes["x4"].update(intercept=-offset * 0.5, coefficient=1.5, variance=1.1)
    G.nodes["x3"].update(intercept=offset + 0.3, variance=2.0)
    return tl.CLGTreeModel(
        G, discrete, variables=dnames + xnames, continuous=xnames, dtypes=discrete.dtypes
    )


def exact_scores(model: tl.CLGTreeModel, X: pd.DataFrame) -> np.ndarray:
    """score_samples by the exact (integrating) pass on every row, as before the fast path."""
    codes, values = model._arrays(X)
    soft_log, roots, _ = model._upward(values)
    soft, removed = model._linear(soft_log)
    with np.errstate(divide="ignore"):
        total = roots + model.discrete_model.engine().log_evidence(codes, soft)
    return total + removed


def with_holes(X: pd.DataFrame, fraction: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    out = X.copy()
    for c in ["x0", "x1", "x2", "x3", "x4"]:
        out.loc[rng.random(len(out)) < fraction, c] = np.nan
    return out


def independent_scores(model: tl.CLGTreeModel, X: pd.DataFrame) -> np.ndarray:
    """log p(row) of complete rows from scipy's normal log-densities and the CPTs."""
    g = model.graph
    tree = model.discrete_model
    cpt0 = np.asarray(tree.graph.nodes["d0"]["cpt"])
    cpt1 = np.asarray(tree.graph.nodes["d1"]["cpt"])
    d0, d1 = X["d0"].to_numpy(), X["d1"].to_numpy()
    out = np.log(cpt0[d0]) + np.log(cpt1[d0, d1])
    for x, d in (("x0", d0), ("x2", d1)):
        node = g.nodes[x]
        out += stats.norm.logpdf(
            X[x], np.asarray(node["means"])[d], np.sqrt(np.asarray(node["variances"])[d])
        )
    for x, parent in (("x1", "x0"), ("x4", "x1"), ("x3", None)):
        node = g.nodes[x]
        mean = node["intercept"] + (0.0 if parent is None else node["coefficient"] * X[parent])
        out += stats.norm.logpdf(X[x], mean, np.sqrt(node["variance"]))
    return np.asarray(out)


@pytest.mark.parametrize("offset", [0.0, 1e6])
def test_complete_rows_equal_the_exact_pass_and_scipy(offset):
    model = clg_model(offset)
    X = model.sample(3000, random_state=1)
    fast = model.score_samples(X)
    exact = exact_scores(model, X)
    # scipy's normal log-densities subtract the mean first, as the fast path does: both
    # keep the residuals' digits, so they agree to round-off at any offset
    np.testing.assert_allclose(fast, independent_scores(model, X), rtol=1e-10, atol=1e-9)
    # the exact pass expands (y - b0)^2 around the children's messages, P y^2 / 2 - h y,
    # which cancel: its error is eps * y^2 / variance (about 4e-4 nats at y = 1e6)
    y = X[["x0", "x1", "x2", "x3", "x4"]].abs().to_numpy().max(axis=1)
    np.testing.assert_array_less(np.abs(fast - exact), 1e-9 + 8 * 2.3e-16 * y**2 / 0.3)


@pytest.mark.parametrize("fraction", [0.05, 0.5, 1.0])
def test_rows_with_missing_cells_mixed_in_take_the_exact_pass(fraction):
    model = clg_model()
    X = with_holes(model.sample(2000, random_state=2), fraction, seed=3)
    X.loc[X.index[:50], "d1"] = np.nan  # a missing discrete cell on complete numbers too
    missing = X[["x0", "x1", "x2", "x3", "x4"]].isna().any(axis=1)
    assert 0 < missing.sum() <= len(X)
    fast = model.score_samples(X)
    np.testing.assert_allclose(fast, exact_scores(model, X), rtol=1e-12, atol=1e-10)
    # the complete rows alone score the same as inside the mixed table
    complete = X[~missing.to_numpy()]
    if len(complete):
        np.testing.assert_allclose(
            model.score_samples(complete), fast[~missing.to_numpy()], rtol=1e-13, atol=1e-12
        )


def test_discrete_posteriors_equal_the_exact_pass():
    model = clg_model()
    X = with_holes(model.sample(1500, random_state=4), 0.1, seed=5)
    for target in ("d0", "d1"):
        fast = model.posterior(X, target).to_numpy()
        codes, values = model._arrays(X)
        codes[:, model._dpos[target]] = -1
        soft_log, _, _ = model._upward(values)
        soft, _ = model._linear(soft_log)
        exact = model.discrete_model.engine().marginals_codes(codes, soft)[model._dpos[target]]
        np.testing.assert_allclose(fast, exact, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(fast.sum(axis=1), 1.0, atol=1e-12)


def test_a_row_whose_densities_underflow_still_scores_finitely():
    """A number 1e5 away from every mean: every state's density underflows in linear
    space; the log-scale shift keeps the score finite and equal to the exact pass (an
    observed parent state other than the likeliest scores -inf on both paths)."""
    model = clg_model()
    X = model.sample(10, random_state=6)
    X.loc[X.index[0], "x0"] = 1e5
    X.loc[X.index[0], "d0"] = np.nan  # summed out: the likeliest state carries the row
    fast = model.score_samples(X)
    assert np.isfinite(fast).all()
    np.testing.assert_allclose(fast, exact_scores(model, X), rtol=1e-12)


@pytest.mark.parametrize("fraction", [0.0, 0.2])
def test_copula_tree_complete_rows_equal_the_joint_gaussian(fraction):
    """Complete rows score by the Gaussian tree's conditionals; the joint multivariate
    normal of the scores (scipy) plus the Jacobian is the independent answer."""
    rng = np.random.default_rng(7)
    n = 1500
    a = rng.gamma(2.0, size=n)
    b = a + rng.exponential(size=n)
    c = np.log1p(b) + rng.normal(0, 0.3, n)
    d = rng.uniform(size=n)
    train = pd.DataFrame({"a": a, "b": b, "c": c, "d": d})
    model = tl.copula_chow_liu(train)
    X = train.sample(400, random_state=0).reset_index(drop=True)
    rng2 = np.random.default_rng(8)
    for col in X.columns:
        X.loc[rng2.random(len(X)) < fraction, col] = np.nan
    got = model.score_samples(X)
    Z, jac = model._scores_of(model._matrix(X))
    mu, S = (v.to_numpy() for v in model.scores.joint())
    complete = ~np.isnan(Z).any(axis=1)
    want = stats.multivariate_normal(mu, S).logpdf(Z[complete]) + jac[complete]
    np.testing.assert_allclose(got[complete], np.atleast_1d(want), rtol=1e-11, atol=1e-11)
    for r in np.flatnonzero(~complete)[:30]:  # the rows with holes: the observed margin
        keep = ~np.isnan(Z[r])
        if keep.any():
            margin = stats.multivariate_normal(mu[keep], S[np.ix_(keep, keep)])
            np.testing.assert_allclose(got[r], margin.logpdf(Z[r, keep]) + jac[r], rtol=1e-11)
