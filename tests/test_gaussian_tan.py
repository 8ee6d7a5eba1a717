"""GaussianTAN: the tree is the best of all spanning trees under the class-weighted
Gaussian CMI (computed here from numpy covariances), and the posteriors equal scipy's
multivariate normal densities with the covariance a Gaussian tree implies (correlations multiply
along paths), missing features summed out by taking the observed sub-matrix."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import gaussian_tree_covariance
from scipy.stats import multivariate_normal
from sklearn.datasets import load_iris

import treelearn as tl
from treelearn._base.errors import TreelearnError


def _data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["p", "q", "r"], size=n, p=[0.4, 0.35, 0.25])
    s = pd.Series(y).map({"p": 1.0, "q": -0.5, "r": 0.2}).to_numpy()
    a = rng.normal(size=n) + s
    b = s * a + rng.normal(size=n)
    c = 0.7 * b + rng.normal(size=n)
    d = rng.normal(size=n) - a * 0.4
    e = rng.normal(size=n) * (1 + (y == "r"))
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e}), pd.Series(y, name="label")


def _class_stats(X, y, w=None):
    w = np.ones(len(y)) if w is None else w
    classes = sorted(set(y))
    out = {}
    for label in classes:
        m = (y == label).to_numpy() if isinstance(y, pd.Series) else (y == label)
        out[label] = (
            w[m].sum() / w.sum(),
            np.average(X[m], axis=0, weights=w[m]),
            np.cov(X[m], rowvar=False, aweights=w[m], bias=True),
        )
    return classes, out


def _cmi(stats, d):
    total = np.zeros((d, d))
    for share, _, cov in stats.values():
        sd = np.sqrt(np.diag(cov))
        rho = cov / np.outer(sd, sd)
        np.fill_diagonal(rho, 0.0)  # the diagonal is never an edge
        total += share * -0.5 * np.log(1 - rho**2)
    return total


def _posterior(X, classes, stats, tree, names):
    out = np.zeros((len(X), len(classes)))
    for i, row in enumerate(X):
        keep = ~np.isnan(row)
        for c, label in enumerate(classes):
            share, mean, cov = stats[label]
            S = gaussian_tree_covariance(cov, tree.edges, names)[np.ix_(keep, keep)]
            out[i, c] = np.log(share) + multivariate_normal(mean[keep], S).logpdf(row[keep])
    out = np.exp(out - out.max(axis=1, keepdims=True))
    return out / out.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("weighted", [False, True])
def test_tree_is_the_best_spanning_tree_and_posteriors_equal_scipy(weighted):
    X, y = _data()
    names = list(X.columns)
    w = np.random.default_rng(5).uniform(0.1, 2.0, size=len(y)) if weighted else None
    clf = tl.GaussianTAN(var_prior=0).fit(X, y, sample_weight=w)
    classes, stats = _class_stats(X.to_numpy(), y, w)
    cmi = _cmi(stats, len(names))
    G = nx.Graph()
    G.add_weighted_edges_from(
        (names[i], names[j], cmi[i, j]) for i in range(len(names)) for j in range(i + 1, len(names))
    )
    best = max(sum(G[u][v]["weight"] for u, v in t.edges()) for t in nx.SpanningTreeIterator(G))
    ours = clf.feature_tree_
    assert sum(G[u][v]["weight"] for u, v in ours.edges()) == pytest.approx(best, rel=1e-12)
    for u, v, weight in ours.edges(data="weight"):
        assert weight == pytest.approx(G[u][v]["weight"], rel=1e-10)
    test = X.to_numpy()[:30].copy()
    np.testing.assert_allclose(
        clf.predict_proba(X.iloc[:30]), _posterior(test, classes, stats, ours, names), atol=1e-10
    )
    # missing features: summed out (the observed block of the implied covariance)
    test[:10, 1] = np.nan
    test[5:15, 3] = np.nan
    test[20, :4] = np.nan
    np.testing.assert_allclose(
        clf.predict_proba(pd.DataFrame(test, columns=names)),
        _posterior(test, classes, stats, ours, names),
        atol=1e-10,
    )


def test_iris_and_integer_weights_equal_repeated_rows():
    X, y = load_iris(return_X_y=True)
    w = np.random.default_rng(2).integers(0, 4, size=len(y))
    weighted = tl.GaussianTAN(root="x2").fit(X, y, sample_weight=w)
    repeated = tl.GaussianTAN(root="x2").fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-9)
    assert weighted.root_ == "x2"
    k, d = 3, 4  # per class: root mean and variance, 3 per other feature; the prior
    assert weighted.n_parameters == 2 + k * (2 + 3 * (d - 1))


def test_gaussian_tan_errors():
    X, y = _data()
    with pytest.raises(TreelearnError, match="'s' is not numeric"):
        tl.GaussianTAN().fit(X.assign(s="x"), y)
    with pytest.raises(TreelearnError, match="'f' is constant in class"):
        tl.GaussianTAN().fit(X.assign(f=np.where(y == "p", 2.5, X["a"])), y)


def test_save_load_round_trip(tmp_path):
    X, y = _data()
    clf = tl.GaussianTAN(root="c", class_prior=[0.2, 0.3, 0.5]).fit(X, y)
    clf.save(tmp_path / "gtan.json")
    back = tl.load(tmp_path / "gtan.json")
    test = X.iloc[:50].copy()
    test.iloc[:5, 2] = np.nan
    np.testing.assert_array_equal(back.predict_proba(test), clf.predict_proba(test))
    assert back.root_ == "c" and back.class_name_ == "label"
    assert sorted(back.feature_tree_.edges(data="weight")) == sorted(
        clf.feature_tree_.edges(data="weight")
    )
    import json

    doc = json.loads((tmp_path / "gtan.json").read_text())
    doc["state"]["parent"][0] = 0  # a feature its own parent: no tree
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(tl.InvalidModelError):
        tl.load(tmp_path / "bad.json")


# ---------------------------------------------------------------- every input kind
@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_file_fits_as_its_rows_in_memory(tmp_path, suffix):
    X, y = _data(n=500, seed=4)
    w = np.random.default_rng(8).integers(0, 4, len(y))
    frame = X.assign(label=y, w=w)
    path = tmp_path / f"rows.{suffix}"
    frame.to_csv(path, index=False) if suffix == "csv" else frame.to_parquet(path)
    ours = tl.GaussianTAN(root="b").fit(path, "label", sample_weight="w")
    theirs = tl.GaussianTAN(root="b").fit(X, y, sample_weight=w)
    assert sorted(ours.feature_tree_.edges()) == sorted(theirs.feature_tree_.edges())
    assert ours.class_name_ == "label" and ours.feature_names_in_.tolist() == list(X.columns)
    test = X.iloc[:60].copy()
    test.iloc[:8, 2] = np.nan  # summed out, as in memory
    np.testing.assert_allclose(
        ours.predict_proba(test), theirs.predict_proba(test), rtol=0, atol=1e-10
    )


def test_kinds_it_cannot_take_say_why():
    import scipy.sparse as sp

    X, y = _data(n=50)
    with pytest.raises(
        tl.InputTypeError,
        match=r"a Gaussian TAN cannot take a scipy.sparse "
        r"matrix \(csr_matrix\): it needs a dense table; "
        r"pass X.toarray\(\)",
    ):
        tl.GaussianTAN().fit(sp.csr_matrix(X.to_numpy()), y)
    # a missing cell is no longer refused in training (issue 39 item 2): the pairwise fit
    # is checked against MixedTAN and by hand in tests/test_gaussian_priors.py


# ---------------------------------------------------------------------------------- hostile inputs
def test_gaussian_tan_calls_a_column_constant_by_the_one_rule():
    # mean 1.7e9, sd 1000: not constant (the rule was var <= 1e-12 mean**2 here, an sd of
    # 1700); a translation changes no posterior, so the shifted fit equals the centred one
    # (to the moments' round-off: eps * mean / sd ~ 4e-10)
    rng = np.random.default_rng(5)
    centred = pd.DataFrame({"u": rng.normal(0, 1000, 300), "v": rng.normal(size=300)})
    centred["v"] += centred["u"] / 1000
    y = np.where(centred["v"] + 0.5 * rng.normal(size=300) > 0, 1, 0)
    shifted = centred.assign(u=centred["u"] + 1.7e9)
    np.testing.assert_allclose(
        tl.GaussianTAN().fit(shifted, y).predict_proba(shifted),
        tl.GaussianTAN().fit(centred, y).predict_proba(centred),
        atol=1e-8,
    )
    flat = shifted.assign(u=1.7e9)
    with pytest.raises(tl.TreelearnError, match="column 'u' is constant"):
        tl.GaussianTAN().fit(flat, y)
