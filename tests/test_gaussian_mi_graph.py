"""mi_graph(kind="gaussian"): edge weights -1/2 log(1 - rho^2) from numpy's correlations, and the
categorical pipeline stages on it give gaussian_chow_liu's tree."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn._base.errors import MissingValuesError, TreelearnError


def _numeric(n=500, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = a + rng.normal(size=n)
    c = -0.5 * b + rng.normal(size=n)
    d = rng.normal(size=n) + 0.3 * a
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d})


def test_weights_are_gaussian_mi_of_numpy_correlations():
    df = _numeric()
    G = tl.mi_graph(df, kind="gaussian")
    rho = np.corrcoef(df.to_numpy(), rowvar=False)
    cols = list(df.columns)
    assert list(G.nodes) == cols
    assert G.number_of_edges() == 6
    for u, v, w in G.edges(data="weight"):
        i, j = cols.index(u), cols.index(v)
        assert w == pytest.approx(-0.5 * np.log(1 - rho[i, j] ** 2), rel=1e-10)
    assert G.graph["n"] == len(df)


def test_weighted_correlations():
    df = _numeric()
    w = np.random.default_rng(1).uniform(0, 2, size=len(df))
    G = tl.mi_graph(df, kind="gaussian", sample_weight=w)
    cov = np.cov(df.to_numpy(), rowvar=False, aweights=w)
    sd = np.sqrt(np.diag(cov))
    rho = cov / np.outer(sd, sd)
    assert G["a"]["d"]["weight"] == pytest.approx(-0.5 * np.log(1 - rho[0, 3] ** 2), rel=1e-10)
    assert G.graph["n"] == pytest.approx(w.sum())


def test_pipeline_stages_give_the_gaussian_chow_liu_tree():
    df = _numeric()
    T = tl.maximum_spanning_tree(tl.mi_graph(df, kind="gaussian"))
    D = tl.orient(T, root="a")
    model = tl.gaussian_chow_liu(df, root="a")
    assert set(D.edges()) == set(model.graph.edges())
    # and by brute force: the chosen tree has the largest total weight among all spanning trees
    import networkx as nx

    G = tl.mi_graph(df, kind="gaussian")
    total = max(
        sum(G[u][v]["weight"] for u, v in tree.edges())
        for tree in nx.SpanningTreeIterator(G, weight="weight")
    )
    assert sum(G[u][v]["weight"] for u, v in T.edges()) == pytest.approx(total)


def test_errors_name_the_problem():
    df = _numeric()
    with pytest.raises(TreelearnError, match="kind == 'poisson'"):
        tl.mi_graph(df, kind="poisson")
    with pytest.raises(TreelearnError, match="'e' is constant"):
        tl.mi_graph(df.assign(e=1.0), kind="gaussian")
    with pytest.raises(MissingValuesError, match="'b'"):
        tl.mi_graph(df.assign(b=np.where(df.index == 3, np.nan, df["b"])), kind="gaussian")
    with pytest.raises(TreelearnError, match="'s' is not numeric"):
        tl.mi_graph(df.assign(s="x"), kind="gaussian")
    with pytest.raises(TreelearnError, match="mi_alpha=None"):
        tl.mi_graph(df, kind="gaussian", mi_alpha=1.0)
