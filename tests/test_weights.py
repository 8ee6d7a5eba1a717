"""Row weights (``sample_weight``) on every learner, for DataFrames, files and sparse input.

Oracles: integer weights must give exactly the model learned on the rows
repeated that many times (``df.loc[df.index.repeat(w)]``), zero weight must be
the row left out, and fractional weights are checked against weighted
contingency tables summed by pandas and against scikit-learn's CategoricalNB.
The Dask path is tested in tests/test_dask.py.

Whole weights too large for exact counts (issue 26): counts are exact int64 only while
the total weight is provably below 2**53, float64 above; a constant weight multiplies
every count by the same factor, so a maximum-likelihood fit must be the unweighted fit
(or, for one huge row, the weighted frequencies pandas sums in floats).
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from conftest import random_dependent_frame, three_small_columns
from sklearn.naive_bayes import CategoricalNB

import treelearn as tl
from treelearn.stats._counts import EXACT_TOTAL, add_counts, whole_weights


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
    # the peer's plain CPTs: every class arc kept (class_arcs="all"), not averaged
    ours = tl.NaiveBayes(alpha=0.7, numbers="states", class_arcs="all").fit(X, y, sample_weight=w)
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


# --------------------------------------------- whole weights too large for exact counts (issue 26)
ASIA300 = pd.read_csv("datasets/asia.csv").head(300)
ASIA_X, ASIA_Y = ASIA300.drop(columns="either"), ASIA300["either"]


SCALES = [4e16, 1e17, 1e18, 1e19, 2.0**63]


def max_cpt_difference(a: tl.TreeModel, b: tl.TreeModel) -> float:
    assert a.variables == b.variables
    return max(float(np.abs(a.cpt(v) - b.cpt(v)).max()) for v in a.variables)


def test_whole_weights_are_exact_only_below_the_float_limit():
    assert whole_weights(None) and whole_weights(np.array([1.0, 2.0**52]))
    assert not whole_weights(np.array([2.0**52, 2.0**52]))  # total 2**53: a float sum may round
    assert not whole_weights(np.full(300, 4e16))
    joint, n = add_counts(
        np.array([2**62], dtype=np.int64), np.array([2**62], dtype=np.int64), 2**62, 2**62
    )
    assert joint.dtype == np.float64 and joint[0] == 2.0**63 and n == 2.0**63  # no wrap to -2**63
    small, n_small = add_counts(np.array([3]), np.array([4]), 3, 4)
    assert small.dtype.kind == "i" and n_small == 7 and EXACT_TOTAL == 2.0**53


@pytest.mark.parametrize("scale", SCALES)
def test_constant_whole_weights_do_not_change_chow_liu(scale):
    plain = tl.chow_liu(ASIA300, alpha=0)
    weighted = tl.chow_liu(ASIA300, alpha=0, sample_weight=np.full(len(ASIA300), scale))
    assert weighted.counts.joint.dtype == np.float64
    assert sorted(weighted.graph.edges) == sorted(plain.graph.edges)
    plain_mi = tl.mi_graph(ASIA300)
    weighted_mi = tl.mi_graph(ASIA300, sample_weight=np.full(len(ASIA300), scale))
    for u, v, data in plain_mi.edges(data=True):  # MI sums terms of size ~log k that cancel:
        # its absolute round-off is a few ulps of 1, whatever the weights
        assert weighted_mi.edges[u, v]["weight"] == pytest.approx(
            data["weight"], rel=1e-12, abs=1e-13
        )
    assert max_cpt_difference(plain, weighted) < 1e-12
    assert weighted.n_rows == pytest.approx(scale * len(ASIA300), rel=1e-15)


def test_mi_of_huge_whole_weights_equals_the_unweighted_mi():
    # 4e16 x 300 was silently another model: the int64 products overflowed
    plain = tl.chow_liu(ASIA300, alpha=0)
    weighted = tl.chow_liu(ASIA300, alpha=0, sample_weight=np.full(len(ASIA300), 4e16))
    for u, v, data in plain.graph.edges(data=True):
        assert weighted.graph.edges[u, v]["weight"] == pytest.approx(data["weight"], rel=1e-12)


def test_one_weight_of_two_to_the_63_gives_the_weighted_frequencies():
    w = np.ones(len(ASIA300))
    w[0] = 2.0**63  # was a raw ValueError (int64 overflow)
    model = tl.chow_liu(ASIA300, alpha=0, sample_weight=w, root="asia")
    expect = pd.Series(w).groupby(ASIA300["asia"]).sum()
    np.testing.assert_allclose(model.cpt("asia"), (expect / expect.sum()).to_numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "make",
    [
        # maximum likelihood's plain counts: every class arc kept, not averaged
        lambda: tl.NaiveBayes(alpha=0, class_arcs="all"),
        # maximum likelihood's plain counts: every class arc kept, not averaged
        lambda: tl.TAN(alpha=0, class_arcs="all"),
        # maximum likelihood's plain counts: every class arc kept, not averaged
        lambda: tl.KDB(k=2, alpha=0, class_arcs="all"),
        lambda: tl.AODE(alpha=0),
        lambda: tl.ChowLiuMultinet(alpha=0),
        # maximum likelihood's plain counts: every class arc kept, not averaged
        lambda: tl.MixedNaiveBayes(alpha=0, class_arcs="all"),
    ],
    ids=["NaiveBayes", "TAN", "KDB", "AODE", "ChowLiuMultinet", "MixedNaiveBayes"],
)
@pytest.mark.parametrize("scale", [1e17, 1e19])
def test_constant_whole_weights_do_not_change_a_classifier(make, scale):
    plain = make().fit(ASIA_X, ASIA_Y)
    weighted = make().fit(ASIA_X, ASIA_Y, sample_weight=np.full(len(ASIA_X), scale))
    np.testing.assert_allclose(
        weighted.predict_proba(ASIA_X), plain.predict_proba(ASIA_X), atol=1e-12
    )
    np.testing.assert_allclose(weighted.class_count_, plain.class_count_ * scale, rtol=1e-15)


@pytest.mark.parametrize("scale", [1e17, 1e19])
def test_constant_whole_weights_do_not_change_a_tree_mixture(scale):
    plain = tl.TreeMixture(n_components=1, alpha=0, random_state=0).fit(ASIA300)
    weighted = tl.TreeMixture(n_components=1, alpha=0, random_state=0).fit(
        ASIA300, sample_weight=np.full(len(ASIA300), scale)
    )
    np.testing.assert_allclose(
        weighted.score_samples(ASIA300), plain.score_samples(ASIA300), rtol=1e-12
    )
    # and k = 1 is the Chow-Liu tree of the same data
    np.testing.assert_allclose(
        plain.score_samples(ASIA300),
        tl.chow_liu(ASIA300, alpha=0).log_likelihood(ASIA300, per_row=True),
        rtol=1e-12,
    )


def test_constant_weights_do_not_change_the_numeric_and_text_fits():
    rng = np.random.default_rng(0)
    Xn = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    Xn["b"] += Xn["a"]
    yn = np.where(Xn["c"] > 0, "p", "q")
    w = np.full(len(Xn), 1e19)
    for make in (tl.GaussianClassifier, tl.GaussianTAN):
        # var_prior is in rows: scaled with the weights it is the same prior (as alpha below)
        np.testing.assert_allclose(
            make(var_prior=1e19).fit(Xn, yn, sample_weight=w).predict_proba(Xn),
            make(var_prior=1).fit(Xn, yn).predict_proba(Xn),
            atol=1e-9,
        )
    a, b = tl.gaussian_chow_liu(Xn), tl.gaussian_chow_liu(Xn, sample_weight=w)
    assert sorted(a.graph.edges) == sorted(b.graph.edges)
    np.testing.assert_allclose(
        b.log_likelihood(Xn, per_row=True), a.log_likelihood(Xn, per_row=True), rtol=1e-9
    )
    counts = pd.DataFrame(rng.integers(0, 4, (200, 6)))
    for event_model in ("multinomial", "bernoulli"):
        plain = tl.TextNaiveBayes(event_model=event_model, alpha=0.5).fit(counts, yn)
        heavy = tl.TextNaiveBayes(event_model=event_model, alpha=0.5 * 1e19).fit(
            counts, yn, sample_weight=w
        )  # alpha scales with the counts: the same smoothing
        np.testing.assert_allclose(
            heavy.predict_proba(counts), plain.predict_proba(counts), atol=1e-9
        )


def test_weights_whose_total_overflows_are_refused():
    with pytest.raises(tl.TreelearnError, match=r"sample_weight\) total .*scale the weights down"):
        tl.chow_liu(ASIA300, sample_weight=np.full(len(ASIA300), 1e300))
    with pytest.raises(tl.TreelearnError, match="scale the weights down"):
        tl.NaiveBayes().fit(ASIA_X, ASIA_Y, sample_weight=np.full(len(ASIA_X), 1e300))


def test_a_files_chunks_of_huge_whole_weights_add_up_in_floats(tmp_path):
    """Each 1,000-row chunk weighs 4e15 x 1,000 = 4e18 < 2**63 but > 2**53: the chunks'
    sums must not wrap as int64 (nor round as exact integers) when added."""
    data = pd.concat([ASIA300] * 10, ignore_index=True)
    path = tmp_path / "heavy.csv"
    data.assign(w=4e15).to_csv(path, index=False)
    ours = tl.chow_liu(path, sample_weight="w", chunksize=1000, alpha=0)
    plain = tl.chow_liu(data, alpha=0)
    assert sorted(ours.graph.edges) == sorted(plain.graph.edges)
    assert max_cpt_difference(plain, ours) < 1e-12
    assert ours.n_rows == pytest.approx(4e15 * len(data), rel=1e-15)


# ---------------------------------------------------------------------------------- hostile inputs
SMALL, SMALL_Y = three_small_columns()  # 80 rows of 3 small columns, 80 labels


def test_fractional_class_counts_survive_a_file():
    from treelearn import _io

    w = np.random.default_rng(1).random(len(SMALL_Y))
    clf = tl.NaiveBayes().fit(SMALL, SMALL_Y, sample_weight=w)
    back = _io.loads(_io.dumps(clf))
    expected = [w[c == SMALL_Y].sum() for c in clf.classes_]
    np.testing.assert_allclose(clf.class_count_, expected, rtol=1e-12)
    assert np.asarray(back.class_count_).tolist() == np.asarray(clf.class_count_).tolist()
