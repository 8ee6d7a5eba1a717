"""CPTs: empirical conditional frequencies, Lidstone and BDeu by hand, any DAG,
missing values (each CPT uses the rows where its family is observed)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import random_dependent_frame

import treelearn as tl


def _family_counts(df: pd.DataFrame, parents: list, child, states: dict) -> np.ndarray:
    """Counts N(u, a) as an array [parent states..., child states], from groupby, on complete rows."""
    cols = [*parents, child]
    rows = df[cols].dropna()
    sizes = rows.groupby(cols).size()
    shape = [len(states[c]) for c in cols]
    out = np.zeros(shape)
    for key, count in sizes.items():
        key = key if isinstance(key, tuple) else (key,)
        out[tuple(states[c].index(k) for c, k in zip(cols, key))] = count
    return out


def _states(df: pd.DataFrame) -> dict:
    return {c: sorted(df[c].dropna().unique().tolist()) for c in df.columns}


def test_ml_cpts_are_conditional_frequencies():
    rng = np.random.default_rng(0)
    df = random_dependent_frame(400, [2, 3, 4, 3, 2], rng)
    m = tl.chow_liu(df, root="v2", alpha=0)
    for v in m.variables:
        ps = m.parents(v)
        if not ps:
            expected = df[v].value_counts(normalize=True).sort_index().to_numpy()
        else:
            (p,) = ps
            expected = pd.crosstab(df[p], df[v], normalize="index").sort_index().to_numpy()
        np.testing.assert_allclose(m.cpt(v), expected, rtol=0, atol=1e-15)
        np.testing.assert_allclose(m.cpt(v).sum(axis=-1), 1.0, atol=1e-15)
        # the graph attribute is the same array
        assert m.graph.nodes[v]["cpt"] is m.cpt(v)
        assert m.graph.nodes[v]["states"] == sorted(df[v].unique().tolist())


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.5])
def test_lidstone_by_hand(alpha):
    rng = np.random.default_rng(1)
    df = random_dependent_frame(60, [2, 4, 3, 4], rng)
    m = tl.chow_liu(df, alpha=alpha)
    states = _states(df)
    for v in m.variables:
        N = _family_counts(df, m.parents(v), v, states)
        k = N.shape[-1]
        expected = (N + alpha) / (N.sum(axis=-1, keepdims=True) + k * alpha)
        np.testing.assert_allclose(m.cpt(v), expected, rtol=1e-14, atol=0)


@pytest.mark.parametrize("ess", [1.0, 4.0, 10.0])
def test_bdeu_by_hand(ess):
    rng = np.random.default_rng(2)
    df = random_dependent_frame(80, [3, 2, 4, 3], rng)
    m = tl.chow_liu(df, prior="bdeu", equivalent_sample_size=ess)
    states = _states(df)
    for v in m.variables:
        ps = m.parents(v)
        N = _family_counts(df, ps, v, states)
        k = len(states[v])
        q = int(np.prod([len(states[p]) for p in ps])) if ps else 1
        expected = (N + ess / (q * k)) / (N.sum(axis=-1, keepdims=True) + ess / q)
        np.testing.assert_allclose(m.cpt(v), expected, rtol=1e-14, atol=0)


def _multi_parent_dag() -> nx.DiGraph:
    return nx.DiGraph([("v0", "v3"), ("v1", "v3"), ("v2", "v3"), ("v0", "v1"), ("v3", "v4")])


@pytest.mark.parametrize(
    "kwargs", [{}, {"alpha": 1.0}, {"alpha": 0.3}, {"prior": "bdeu", "equivalent_sample_size": 5.0}]
)
def test_fit_cpts_multi_parent_dag(kwargs):
    rng = np.random.default_rng(3)
    df = random_dependent_frame(250, [2, 3, 2, 3, 2], rng)
    D = _multi_parent_dag()
    m = tl.fit_cpts(D, df, **{"alpha": 0.0, **kwargs})
    states = _states(df)
    for v in df.columns:
        ps = m.parents(v)
        assert ps == sorted(D.predecessors(v), key=list(df.columns).index)  # column order
        N = _family_counts(df, ps, v, states)
        k = len(states[v])
        q = int(np.prod([len(states[p]) for p in ps])) if ps else 1
        if kwargs.get("prior") == "bdeu":
            a = kwargs["equivalent_sample_size"] / (q * k)
        else:
            a = kwargs.get("alpha", 0.0)
        tot = N.sum(axis=-1, keepdims=True) + k * a
        expected = np.where(tot > 0, (N + a) / np.where(tot > 0, tot, 1), 1.0 / k)
        np.testing.assert_allclose(m.cpt(v), expected, rtol=1e-14, atol=1e-15)
    assert m.cpt("v3").shape == (2, 3, 2, 3)
    assert m.n_parameters == (1) + (2 * 2) + 1 + (2 * 3 * 2 * 2) + (3 * 1)


def test_fit_cpts_parent_order_attribute():
    rng = np.random.default_rng(4)
    df = random_dependent_frame(100, [2, 3, 2], rng)
    D = nx.DiGraph([("v0", "v2"), ("v1", "v2")])
    D.nodes["v2"]["parents"] = ["v1", "v0"]
    m = tl.fit_cpts(D, df, alpha=0)
    assert m.parents("v2") == ["v1", "v0"]
    N = _family_counts(df, ["v1", "v0"], "v2", _states(df))
    np.testing.assert_allclose(m.cpt("v2"), N / N.sum(axis=-1, keepdims=True), atol=1e-15)


def test_unseen_parent_configuration_gets_uniform_row_under_ml():
    df = pd.DataFrame(
        {
            "a": pd.Categorical(["x", "x", "y", "y"], categories=["x", "y", "z"]),
            "b": ["p", "q", "q", "q"],
        }
    )
    m = tl.fit_cpts(nx.DiGraph([("a", "b")]), df, alpha=0)
    assert m.cpt("b").tolist() == [[0.5, 0.5], [0.0, 1.0], [0.5, 0.5]]
    assert m.cpt("a").tolist() == [0.5, 0.5, 0.0]  # declared but unobserved: zero under ML
    m1 = tl.fit_cpts(nx.DiGraph([("a", "b")]), df, alpha=1.0)
    np.testing.assert_allclose(m1.cpt("a"), [3 / 7, 3 / 7, 1 / 7])  # smoothing gives it mass
    np.testing.assert_allclose(m1.cpt("b"), [[2 / 4, 2 / 4], [1 / 4, 3 / 4], [0.5, 0.5]])


def test_pairwise_missing_cpts_use_rows_where_family_observed():
    rng = np.random.default_rng(5)
    df = random_dependent_frame(500, [2, 3, 3, 2], rng).astype(object)
    for c, frac in zip(df.columns, [0.1, 0.2, 0.15, 0.05]):
        df.loc[rng.random(len(df)) < frac, c] = np.nan
    states = _states(df)
    m = tl.chow_liu(df, missing="pairwise", alpha=0.5)
    for v in m.variables:
        N = _family_counts(df, m.parents(v), v, states)
        k = N.shape[-1]
        expected = (N + 0.5) / (N.sum(axis=-1, keepdims=True) + k * 0.5)
        np.testing.assert_allclose(m.cpt(v), expected, rtol=1e-14)
    D = _multi_parent_dag()
    df5 = random_dependent_frame(500, [2, 3, 2, 3, 2], rng).astype(object)
    for c in df5.columns:
        df5.loc[rng.random(len(df5)) < 0.1, c] = None
    states5 = _states(df5)
    m5 = tl.fit_cpts(D, df5, missing="pairwise", alpha=0)
    for v in df5.columns:
        N = _family_counts(df5, m5.parents(v), v, states5)
        np.testing.assert_allclose(m5.cpt(v), N / N.sum(axis=-1, keepdims=True), rtol=1e-14)


def test_drop_missing_uses_complete_rows_only():
    rng = np.random.default_rng(6)
    df = random_dependent_frame(300, [2, 3, 3], rng).astype(float)
    df.loc[rng.random(300) < 0.2, "v1"] = np.nan
    m = tl.chow_liu(df, missing="drop")
    ref = tl.chow_liu(df.dropna().astype(int))
    assert set(m.graph.edges) == set(ref.graph.edges)
    for v in m.variables:
        np.testing.assert_allclose(m.cpt(v), ref.cpt(v), atol=1e-15)
    assert m.n_rows == len(df.dropna())


def test_bad_prior_arguments():
    df = pd.DataFrame({"a": [0, 1, 1], "b": [0, 0, 1]})
    with pytest.raises(ValueError):
        tl.chow_liu(df, alpha=-1)
    with pytest.raises(ValueError):
        tl.chow_liu(df, prior="nope")
    with pytest.raises(ValueError):
        tl.chow_liu(df, prior="bdeu", equivalent_sample_size=0)


def test_fit_cpts_errors():
    df = pd.DataFrame({"a": [0, 1, 1], "b": [0, 0, 1]})
    with pytest.raises(tl.ColumnNotFoundError, match="'zz'"):
        tl.fit_cpts(nx.DiGraph([("a", "zz")]), df)
    with pytest.raises(tl.StructureError):
        tl.fit_cpts(nx.DiGraph([("a", "b"), ("b", "a")]), df)


@pytest.mark.parametrize("given", [["typo"], ["a", "a"], ["c"]])
def test_fit_cpts_parents_attribute_must_match_the_edges(given):
    # a typo was a bare KeyError; a repeated parent fitted a CPT with a duplicate axis
    df = pd.DataFrame({"a": [0, 1, 1], "b": [0, 0, 1], "c": [1, 0, 1]})
    D = nx.DiGraph([("a", "b")])
    D.add_node("c")
    D.nodes["b"]["parents"] = given
    with pytest.raises(tl.StructureError, match=r"'b'.*parents"):
        tl.fit_cpts(D, df)


def test_fit_cpts_ignores_columns_outside_the_structure():
    df = pd.DataFrame({"a": [0, 1, 1, 0], "b": [0, 0, 1, 1], "extra": [0.5, 1.5, 2.5, 3.5]})
    m = tl.fit_cpts(nx.DiGraph([("a", "b")]), df, alpha=0)
    assert m.variables == ["a", "b"]
    assert m.cpt("b").tolist() == [[0.5, 0.5], [0.5, 0.5]]


def test_fit_cpts_from_a_path_ignores_other_columns(tmp_path):
    df = pd.DataFrame({"a": [0, 1, 1, 0], "b": [0, 0, 1, 1], "f": [0.5, 1.5, 2.25, 3.0]})
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    m = tl.fit_cpts(nx.DiGraph([("a", "b")]), path)
    assert m == tl.fit_cpts(nx.DiGraph([("a", "b")]), df)
    assert m == tl.fit_cpts(nx.DiGraph([("a", "b")]), str(path))
