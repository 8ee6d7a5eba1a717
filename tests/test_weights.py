"""Row weights (``sample_weight``) on every learner, for DataFrames, files and sparse input.

Oracles: integer weights must give exactly the model learned on the rows
repeated that many times (``df.loc[df.index.repeat(w)]``), zero weight must be
the row left out, and fractional weights are checked against weighted
contingency tables summed by pandas and against scikit-learn's CategoricalNB.
The Dask path is tested in tests/test_dask.py.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from conftest import random_dependent_frame
from sklearn.naive_bayes import CategoricalNB

import treelearn as tl


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(21)
    df = random_dependent_frame(400, [2, 3, 4, 2, 3], rng)
    df["v1"] = df["v1"].map({0: "lo", 1: "mid", 2: "hi"})  # text states too
    return df


@pytest.fixture(scope="module")
def weights(frame) -> np.ndarray:
    w = np.random.default_rng(5).integers(0, 4, len(frame))  # zeros included
    w[:3] = [0, 7, 1]
    return w


def repeated(df: pd.DataFrame, w) -> pd.DataFrame:
    return df.loc[df.index.repeat(np.asarray(w, dtype=int))]


def assert_same_model(ours: tl.TreeModel, ref: tl.TreeModel) -> None:
    assert ours.variables == ref.variables
    assert ours.states == ref.states
    assert sorted(ours.graph.edges) == sorted(ref.graph.edges)
    for v in ref.variables:
        assert ours.parents(v) == ref.parents(v)
        np.testing.assert_allclose(ours.cpt(v), ref.cpt(v), rtol=0, atol=1e-12)


# ----------------------------------------------------------------------------- integer weights
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"alpha": 1.0},
        {"prior": "bdeu", "equivalent_sample_size": 4},
        {"forest": "bic"},
        {"mi_alpha": 1.0, "root": "v2"},
    ],
)
def test_chow_liu_integer_weights_equal_repeated_rows(frame, weights, kwargs):
    ours = tl.chow_liu(frame, sample_weight=weights, **kwargs)
    ref = tl.chow_liu(repeated(frame, weights), **kwargs)
    assert_same_model(ours, ref)
    np.testing.assert_array_equal(ours.counts.joint, ref.counts.joint)
    assert ours.n_rows == ref.n_rows == int(weights.sum())
    rep = repeated(frame, weights)
    assert ours.log_likelihood(rep) == pytest.approx(ref.log_likelihood(rep), rel=1e-12)
    # the weighted log-likelihood of the original rows is that of the repeated rows
    assert ours.log_likelihood(frame, sample_weight=weights) == pytest.approx(
        ref.log_likelihood(rep), rel=1e-12
    )
    assert ours.bic(frame, sample_weight=weights) == pytest.approx(ref.bic(rep), rel=1e-12)


def test_weights_with_missing_values(frame, weights):
    df = frame.copy()
    rng = np.random.default_rng(9)
    for c in ["v0", "v3"]:
        df.loc[rng.random(len(df)) < 0.15, c] = None
    for missing in ("drop", "pairwise"):
        ours = tl.chow_liu(df, sample_weight=weights, missing=missing, forest="bic")
        ref = tl.chow_liu(repeated(df, weights), missing=missing, forest="bic")
        assert_same_model(ours, ref)


def test_zero_weight_is_the_row_absent(frame):
    df = frame.copy()
    df["v1"] = df["v1"].astype(object)
    df.loc[0, "v1"] = "only-here"  # a state only a zero-weight row has
    df.loc[1, "v2"] = None  # a missing value only in a zero-weight row: missing="error" is fine
    w = np.ones(len(df))
    w[[0, 1]] = 0
    ours = tl.chow_liu(df, sample_weight=w)
    ref = tl.chow_liu(df.drop(index=[0, 1]))
    assert "only-here" not in ours.states["v1"]
    assert_same_model(ours, ref)


def test_fit_cpts_and_mi_graph_integer_weights(frame, weights):
    dag = nx.DiGraph([("v0", "v1"), ("v0", "v2"), ("v1", "v2"), ("v3", "v2"), ("v2", "v4")])
    ours = tl.fit_cpts(dag, frame, alpha=0.5, sample_weight=weights)
    ref = tl.fit_cpts(dag, repeated(frame, weights), alpha=0.5)
    assert_same_model(ours, ref)  # a three-parent family: counted from the rows
    G = tl.mi_graph(frame, sample_weight=weights)
    H = tl.mi_graph(repeated(frame, weights))
    assert G.graph["n"] == H.graph["n"]
    for u, v, d in H.edges(data=True):
        assert G[u][v]["weight"] == pytest.approx(d["weight"], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    "make",
    [
        lambda: tl.NaiveBayes(alpha=1.0),
        lambda: tl.TAN(alpha=0.5),
        lambda: tl.ChowLiuMultinet(alpha=1.0),
    ],
)
def test_classifiers_integer_weights_equal_repeated_rows(frame, weights, make):
    X, y = frame.drop(columns="v4"), frame["v4"]
    ours = make().fit(X, y, sample_weight=weights)
    rep = repeated(frame, weights)
    ref = make().fit(rep.drop(columns="v4"), rep["v4"])
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    np.testing.assert_array_equal(ours.class_count_, ref.class_count_)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-12)
    models = ours.models_ if hasattr(ours, "models_") else {None: ours.model_}
    refs = ref.models_ if hasattr(ref, "models_") else {None: ref.model_}
    for key in refs:
        assert_same_model(models[key], refs[key])


def test_rank_features_weighted(frame, weights):
    X, y = frame.drop(columns="v4"), frame["v4"]
    rep = repeated(frame, weights)
    ours = tl.rank_features(X, y, sample_weight=weights)
    ref = tl.rank_features(rep.drop(columns="v4"), rep["v4"])
    pd.testing.assert_series_equal(ours, ref, rtol=1e-12)


# ----------------------------------------------------------------------------- fractional weights
def weighted_table(df: pd.DataFrame, w, cols) -> pd.Series:
    """Weighted counts of the value combinations of ``cols``, summed by pandas."""
    return df.assign(_w=w).groupby(list(cols), observed=True)["_w"].sum()


def test_fractional_weights_give_weighted_frequencies(frame):
    w = np.random.default_rng(3).uniform(0.1, 3.0, len(frame))
    model = tl.chow_liu(frame, sample_weight=w, alpha=0)
    assert model.n_rows == pytest.approx(w.sum(), rel=1e-12)
    for v in model.variables:
        parents = model.parents(v)
        counts = weighted_table(frame, w, parents + [v])
        cpt = model.cpt(v)
        for key, value in counts.items():
            key = key if isinstance(key, tuple) else (key,)
            index = tuple(model.states[u].index(k) for u, k in zip(parents + [v], key))
            total = (
                counts.xs(key[:-1], level=list(range(len(parents)))).sum() if parents else w.sum()
            )
            assert cpt[index] == pytest.approx(value / total, rel=1e-12)
    # MI of every pair from the weighted joint, by hand
    G = tl.mi_graph(frame, sample_weight=w)
    for u, v, d in G.edges(data=True):
        joint = weighted_table(frame, w, [u, v]).unstack(fill_value=0.0).to_numpy()
        p = joint / joint.sum()
        outer = p.sum(axis=1, keepdims=True) @ p.sum(axis=0, keepdims=True)
        nz = p > 0
        assert d["weight"] == pytest.approx(
            float((p[nz] * np.log(p[nz] / outer[nz])).sum()), abs=1e-12
        )


def test_naive_bayes_fractional_weights_equal_sklearn(frame):
    X, y = frame.drop(columns="v4"), frame["v4"]
    w = np.random.default_rng(4).uniform(0.0, 2.0, len(frame))
    ours = tl.NaiveBayes(alpha=0.7).fit(X, y, sample_weight=w)
    codes = np.column_stack([pd.Categorical(X[c]).codes for c in X.columns])
    ref = CategoricalNB(alpha=0.7, min_categories=[X[c].nunique() for c in X.columns])
    ref.fit(codes, y, sample_weight=w)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(codes), rtol=1e-10)
    np.testing.assert_allclose(ours.class_count_, ref.class_count_, rtol=1e-12)


def test_scaling_weights_changes_counts_not_the_tree(frame):
    w = np.random.default_rng(8).uniform(0.5, 2.0, len(frame))
    a, b = (
        tl.chow_liu(frame, sample_weight=w, alpha=0),
        tl.chow_liu(frame, sample_weight=10 * w, alpha=0),
    )
    assert_same_model(a, b)  # ML CPTs and MI are invariant to a common factor
    assert b.n_rows == pytest.approx(10 * a.n_rows)


# ----------------------------------------------------------------------------- files, sparse
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_file_weight_column_equals_repeated_rows(frame, weights, tmp_path, fmt):
    path = tmp_path / f"w.{fmt}"
    # 2,800 rows: files are read at least 1,000 rows at a time, so three chunks
    frame = pd.concat([frame] * 7, ignore_index=True)
    weights = np.tile(weights, 7)
    data = frame.assign(w=weights)
    data.to_csv(path, index=False) if fmt == "csv" else data.to_parquet(
        path, index=False, row_group_size=1000
    )
    ours = tl.chow_liu(path, sample_weight="w", chunksize=1000)
    ref = tl.chow_liu(repeated(frame, weights))
    assert_same_model(ours, ref)
    np.testing.assert_array_equal(ours.counts.joint, ref.counts.joint)
    dag = nx.DiGraph([("v0", "v2"), ("v1", "v2")])
    assert_same_model(
        tl.fit_cpts(dag, path, sample_weight="w"), tl.fit_cpts(dag, repeated(frame, weights))
    )
    G, H = tl.mi_graph(path, sample_weight="w"), tl.mi_graph(repeated(frame, weights))
    for u, v, mi in H.edges(data="weight"):
        assert G[u][v]["weight"] == pytest.approx(mi, rel=1e-12, abs=1e-15)


def test_partial_fit_with_weights(frame, weights):
    states = {c: sorted(frame[c].unique()) for c in frame.columns}
    model = tl.chow_liu(frame.iloc[:200], states=states, sample_weight=weights[:200])
    model.partial_fit(frame.iloc[200:], sample_weight=weights[200:])
    assert_same_model(model, tl.chow_liu(repeated(frame, weights), states=states))


def test_sparse_weights_equal_dense(frame):
    rng = np.random.default_rng(2)
    dense = (rng.random((300, 6)) < 0.3).astype(np.int8)
    w = rng.integers(0, 3, 300)
    names = list("abcdef")
    ours = tl.chow_liu(sp.csr_matrix(dense), names=names, sample_weight=w)
    ref = tl.chow_liu(repeated(pd.DataFrame(dense, columns=names), w))
    assert_same_model(ours, ref)


# ----------------------------------------------------------------------------- bad weights
@pytest.mark.parametrize(
    "bad, message",
    [
        ([1.0, -1.0, 1.0], "negative"),
        ([1.0, np.nan, 1.0], "missing"),
        ([1.0, np.inf, 1.0], "infinite"),
        ([1.0, 1.0], "2 values for 3 rows"),
        ([0, 0, 0], "every sample_weight is zero"),
        (["a", "b", "c"], "numbers"),
        ([[1], [1], [1]], "1-D"),
    ],
)
def test_bad_weights_are_clear_errors(bad, message):
    df = pd.DataFrame({"a": [0, 1, 1], "b": [1, 0, 1]})
    for learn in (
        lambda: tl.chow_liu(df, sample_weight=bad),
        lambda: tl.mi_graph(df, sample_weight=bad),
        lambda: tl.fit_cpts(nx.DiGraph([("a", "b")]), df, sample_weight=bad),
        lambda: tl.NaiveBayes().fit(df[["a"]], df["b"], sample_weight=bad),
    ):
        with pytest.raises(tl.TreelearnError, match=message):
            learn()


def test_bad_weight_column_in_a_file(tmp_path):
    path = tmp_path / "w.csv"
    pd.DataFrame({"a": [0, 1, 1], "w": [1.0, -2.0, 1.0]}).to_csv(path, index=False)
    with pytest.raises(tl.TreelearnError, match=r"rows 0-2: weight column 'w'.*negative"):
        tl.chow_liu(path, sample_weight="w")
    with pytest.raises(tl.ColumnNotFoundError, match="'nope'"):
        tl.chow_liu(path, sample_weight="nope")
    pd.DataFrame({"a": [0, 1, 1], "w": [0, 0, 0]}).to_csv(path, index=False)
    with pytest.raises(tl.EmptyDataError, match="positive weight"):
        tl.chow_liu(path, sample_weight="w")


def test_weights_never_change_the_callers_data(frame, weights):
    before, w_before = frame.copy(deep=True), weights.copy()
    tl.chow_liu(frame, sample_weight=weights)
    tl.TAN().fit(frame.drop(columns="v4"), frame["v4"], sample_weight=weights)
    pd.testing.assert_frame_equal(frame, before)
    np.testing.assert_array_equal(weights, w_before)
