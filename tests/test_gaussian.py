"""Gaussian Chow-Liu trees against independent computations: brute force over all
spanning trees, numpy least squares, scipy's multivariate normal, pgmpy's joint
Gaussian and the Gaussian conditioning formulas written out here."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import spanning_trees, tree_parents
from scipy import stats

import treelearn as tl
from treelearn._base.errors import ColumnNotFoundError, MissingValuesError, TreelearnError
from treelearn.encoding._table import encode


def _data(n=400, d=5, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(d, d))
    X = rng.normal(size=(n, d)) @ A + rng.normal(size=d) * 3
    return pd.DataFrame(X, columns=[f"v{j}" for j in range(d)])


def _tree_fit_loglik(X: np.ndarray, tree: nx.Graph, root: int = 0) -> float:
    """ML log-likelihood of a linear-Gaussian tree, by numpy least squares per edge."""
    n = X.shape[0]
    ll = 0.0
    for v, u in tree_parents(tree.edges, root, tree.nodes).items():
        if u is None:
            mu, var = X[:, v].mean(), X[:, v].var()
            ll += stats.norm.logpdf(X[:, v], mu, math.sqrt(var)).sum()
        else:
            design = np.column_stack([np.ones(n), X[:, u]])
            beta, *_ = np.linalg.lstsq(design, X[:, v], rcond=None)
            resid = X[:, v] - design @ beta
            ll += stats.norm.logpdf(resid, 0, math.sqrt(np.mean(resid**2))).sum()
    return ll


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tree_is_the_maximum_likelihood_tree_by_brute_force(seed):
    df = _data(n=300, d=5, seed=seed)
    X = df.to_numpy()
    scores = [(_tree_fit_loglik(X, T), T) for T in map(nx.Graph, spanning_trees(range(5)))]
    best_ll, best = max(scores, key=lambda s: s[0])
    m = tl.gaussian_chow_liu(df)
    assert m.log_likelihood(df) == pytest.approx(best_ll, rel=1e-10)
    learned = {frozenset((int(u[1:]), int(v[1:]))) for u, v in m.graph.edges}
    assert learned == {frozenset(e) for e in best.edges}


def test_tree_is_networkx_mst_of_correlation_mi():
    df = _data(n=200, d=8, seed=3)
    rho = np.corrcoef(df.to_numpy(), rowvar=False)
    G = nx.Graph()
    for i, j in itertools.combinations(range(8), 2):
        G.add_edge(df.columns[i], df.columns[j], weight=-0.5 * math.log(1 - rho[i, j] ** 2))
    T = nx.maximum_spanning_tree(G)
    m = tl.gaussian_chow_liu(df)
    assert {frozenset(e) for e in m.graph.edges} == {frozenset(e) for e in T.edges}
    for u, v, w in m.graph.edges(data="weight"):
        assert w == pytest.approx(G.edges[u, v]["weight"], rel=1e-10)


def test_parameters_are_least_squares():
    df = _data(seed=4)
    m = tl.gaussian_chow_liu(df, root="v2")
    assert m.root == "v2" and m.parents("v2") == []
    for v in df.columns:
        node = m.graph.nodes[v]
        (p,) = m.parents(v) or [None]
        if p is None:
            assert node["intercept"] == pytest.approx(df[v].mean(), rel=1e-12)
            assert node["variance"] == pytest.approx(df[v].var(ddof=0), rel=1e-12)
            assert node["coefficient"] is None
            continue
        design = np.column_stack([np.ones(len(df)), df[p]])
        beta, *_ = np.linalg.lstsq(design, df[v].to_numpy(), rcond=None)
        resid = df[v].to_numpy() - design @ beta
        assert node["intercept"] == pytest.approx(beta[0], rel=1e-9, abs=1e-9)
        assert node["coefficient"] == pytest.approx(beta[1], rel=1e-9)
        assert node["variance"] == pytest.approx(np.mean(resid**2), rel=1e-9)


def test_weighted_equals_repeated_rows_and_weighted_least_squares():
    df = _data(n=60, d=4, seed=5)
    w = np.random.default_rng(0).integers(0, 4, size=len(df))
    weighted = tl.gaussian_chow_liu(df, sample_weight=w)
    repeated = tl.gaussian_chow_liu(df.loc[df.index.repeat(w)].reset_index(drop=True))
    assert set(weighted.graph.edges) == set(repeated.graph.edges)
    for v in df.columns:
        for key in ("intercept", "variance"):
            assert weighted.graph.nodes[v][key] == pytest.approx(
                repeated.graph.nodes[v][key], rel=1e-9
            )
    # fractional weights: numpy weighted least squares through sqrt(w) scaling
    wf = np.random.default_rng(1).uniform(0.1, 2.0, size=len(df))
    m = tl.gaussian_chow_liu(df, sample_weight=wf)
    for v in df.columns:
        (p,) = m.parents(v) or [None]
        if p is None:
            continue
        design = np.column_stack([np.ones(len(df)), df[p]])
        sw = np.sqrt(wf)
        beta, *_ = np.linalg.lstsq(design * sw[:, None], df[v].to_numpy() * sw, rcond=None)
        resid = df[v].to_numpy() - design @ beta
        assert m.graph.nodes[v]["coefficient"] == pytest.approx(beta[1], rel=1e-9)
        assert m.graph.nodes[v]["variance"] == pytest.approx(
            np.average(resid**2, weights=wf), rel=1e-9
        )


def test_log_likelihood_is_the_implied_multivariate_normal():
    df = _data(seed=6)
    m = tl.gaussian_chow_liu(df)
    mean, cov = m.to_pgmpy().to_joint_gaussian()  # pgmpy: topological order, rounded to 1e-8
    from pgmpy.models import LinearGaussianBayesianNetwork

    order = list(nx.topological_sort(LinearGaussianBayesianNetwork(m.graph.edges)))
    mvn = stats.multivariate_normal(mean, cov)
    expected = mvn.logpdf(df[order].to_numpy())
    np.testing.assert_allclose(m.log_likelihood(df, per_row=True), expected, rtol=1e-6)
    mu, S = m.joint()
    np.testing.assert_allclose(S.loc[order, order].to_numpy(), cov, atol=1e-7)
    np.testing.assert_allclose(mu[order].to_numpy(), mean, atol=1e-7)
    k = 2 * 5 + 4
    assert m.bic(df) == pytest.approx(m.log_likelihood(df) - k / 2 * math.log(len(df)))
    assert m.aic(df) == pytest.approx(m.log_likelihood(df) - k)


def test_query_is_gaussian_conditioning():
    df = _data(seed=7)
    m = tl.gaussian_chow_liu(df)
    mu, S = m.joint()
    q, e = ["v0", "v3"], {"v1": 1.5, "v4": -2.0}
    # conditioning through the precision matrix (not the Schur formula the model uses)
    names = list(df.columns)
    P = np.linalg.inv(S.to_numpy())
    qi = [names.index(v) for v in q]
    ei = [names.index(v) for v in e]
    cov = np.linalg.inv(P[np.ix_(qi, qi)])
    mean = mu.to_numpy()[qi] - cov @ P[np.ix_(qi, ei)] @ (
        np.array(list(e.values())) - mu.to_numpy()[ei]
    )
    got = m.query(q, evidence=e)
    np.testing.assert_allclose(got.mean.to_numpy(), mean, rtol=1e-9)
    np.testing.assert_allclose(got.covariance.to_numpy(), cov, rtol=1e-9)
    # no evidence: the marginal
    marg = m.query(["v2"])
    assert marg.mean["v2"] == pytest.approx(df["v2"].mean(), rel=1e-9)
    assert marg.covariance.loc["v2", "v2"] == pytest.approx(df["v2"].var(ddof=0), rel=1e-9)


def test_pgmpy_round_trip_and_save_load(tmp_path):
    df = _data(seed=8)
    m = tl.gaussian_chow_liu(df)
    net = m.to_pgmpy()
    assert net.check_model()
    back = tl.from_pgmpy(net)
    assert isinstance(back, tl.GaussianTreeModel)
    assert set(back.graph.edges) == set(m.graph.edges)
    np.testing.assert_allclose(back.log_likelihood(df), m.log_likelihood(df), rtol=1e-12)
    path = tmp_path / "g.json"
    m.save(path)
    loaded = tl.load(path)
    assert loaded == m and loaded.log_likelihood(df) == m.log_likelihood(df)
    tl.save(m, tmp_path / "h.json")
    assert tl.load(tmp_path / "h.json") == m


def test_sample_recovers_the_model():
    df = _data(seed=9, d=4)
    m = tl.gaussian_chow_liu(df)
    s = m.sample(200_000, random_state=0)
    _, S = m.joint()
    np.testing.assert_allclose(
        np.cov(s.to_numpy(), rowvar=False),
        S.to_numpy(),
        rtol=0.05,
        atol=0.05 * S.abs().to_numpy().max(),
    )
    assert set(tl.gaussian_chow_liu(s).graph.to_undirected().edges) == set(
        m.graph.to_undirected().edges
    )
    pd.testing.assert_frame_equal(m.sample(5, random_state=1), m.sample(5, random_state=1))


def test_bad_input_is_named_and_data_untouched():
    df = _data(n=20, d=3)
    before = df.copy()
    tl.gaussian_chow_liu(df)
    pd.testing.assert_frame_equal(df, before)
    with pytest.raises(TreelearnError, match="'colour' is not numeric") as info:
        tl.gaussian_chow_liu(df.assign(colour=pd.Categorical(["r", "g"] * 10)))
    assert info.value.column == "colour"
    with pytest.raises(MissingValuesError, match="'v1' has 1 missing"):
        tl.gaussian_chow_liu(df.assign(v1=df.v1.where(df.index != 3)))
    with pytest.raises(TreelearnError, match="'k' is constant"):
        tl.gaussian_chow_liu(df.assign(k=5.0))
    with pytest.raises(TreelearnError, match="perfectly correlated"):
        tl.gaussian_chow_liu(df.assign(w=2 * df.v0 + 1))
    with pytest.raises(ColumnNotFoundError, match="root 'zz'"):
        tl.gaussian_chow_liu(df, root="zz")
    m = tl.gaussian_chow_liu(df)
    with pytest.raises(ColumnNotFoundError):
        m.query(["nope"])
    with pytest.raises(TreelearnError, match="both queried"):
        m.query(["v0"], evidence={"v0": 1})


def test_array_input_and_draw():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    m = tl.gaussian_chow_liu(_data(d=3).to_numpy())
    assert m.variables == ["x0", "x1", "x2"]
    fig = m.draw(edge_labels=True, title=True)
    fig.savefig("/dev/null", format="png")
    assert m.to_dot().count("->") == 2


# ---------------------------------------------------------------------- any input kind
def _same_model(a: tl.GaussianTreeModel, b: tl.GaussianTreeModel, rtol: float = 1e-10) -> None:
    assert a.variables == b.variables and a.roots == b.roots
    assert sorted(a.graph.edges) == sorted(b.graph.edges)
    for v in a.variables:
        for key in ("intercept", "coefficient", "variance"):
            x, y = a.graph.nodes[v][key], b.graph.nodes[v][key]
            assert (x is None and y is None) or x == pytest.approx(y, rel=rtol, abs=1e-12)
    assert a.n_rows == pytest.approx(b.n_rows, rel=1e-14)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_file_in_chunks_gives_the_in_memory_model(tmp_path, suffix):
    df = _data(n=3500, d=5, seed=11)
    w = np.random.default_rng(2).integers(0, 3, len(df))
    path = tmp_path / f"numbers{suffix}"
    written = df.assign(w=w)
    written.to_csv(path, index=False) if suffix == ".csv" else written.to_parquet(path)
    in_memory = tl.gaussian_chow_liu(df, root="v2", sample_weight=w)
    for chunksize in (1000, 1234, 10_000):
        _same_model(
            tl.gaussian_chow_liu(path, root="v2", sample_weight="w", chunksize=chunksize), in_memory
        )
    if suffix == ".csv":  # the CSV's round trip of the floats is exact
        df.to_csv(tmp_path / "plain.csv", index=False)
        _same_model(
            tl.gaussian_chow_liu(tmp_path / "plain.csv", chunksize=1000), tl.gaussian_chow_liu(df)
        )
    G = tl.mi_graph(path, kind="gaussian", sample_weight="w")
    H = tl.mi_graph(df, kind="gaussian", sample_weight=w)
    for u, v, weight in H.edges(data="weight"):
        assert G[u][v]["weight"] == pytest.approx(weight, rel=1e-10)


def test_a_large_offset_keeps_the_covariance_when_chunks_are_merged(tmp_path):
    """Values around 1e9 with sd 1: chunk moments merged by Chan et al.'s update keep every
    digit the data hold (sum x^2 / n - mean^2 would lose them all: 1e18 * 1e-16 = 100)."""
    rng = np.random.default_rng(7)
    Z = rng.normal(size=(5000, 3)) @ np.array([[1.0, 0.6, 0.0], [0.0, 0.8, 0.5], [0.0, 0.0, 1.0]])
    X = 1e9 + Z
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    path = tmp_path / "offset.parquet"  # Parquet keeps the doubles as they are
    df.to_parquet(path)
    # the oracle: X - 1e9 is exact (Sterbenz), so numpy's covariance of it is the truth
    truth = np.cov(X - 1e9, rowvar=False, bias=True)
    from treelearn.sources._gaussian import gaussian_statistics

    for data, chunksize in ((df, 200_000), (path, 1000), (path, 1777)):
        s = gaussian_statistics(data, chunksize=chunksize)
        np.testing.assert_allclose(s.covariance, truth, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(s.mean - 1e9, (X - 1e9).mean(axis=0), atol=1e-6)
    naive = (X.T @ X) / len(X) - np.outer(X.mean(axis=0), X.mean(axis=0))
    assert np.abs(naive - truth).max() > 1.0  # the test can fail: the textbook formula does
    _same_model(tl.gaussian_chow_liu(path, chunksize=1000), tl.gaussian_chow_liu(df), rtol=1e-6)


def test_a_text_column_is_named_with_the_fix_whatever_the_kind(tmp_path):
    with pytest.raises(TreelearnError) as info:
        tl.gaussian_chow_liu("datasets/asia.csv")
    message = str(info.value)
    assert info.value.column == "asia"
    assert "column 'asia' is not numeric" in message and "datasets/asia.csv, rows 0-" in message
    assert message.endswith(
        "gaussian_chow_liu needs numeric columns only: drop it, or encode it as numbers"
    )
    with pytest.raises(TreelearnError, match="column 'asia' is not numeric"):
        tl.gaussian_chow_liu(pd.read_csv("datasets/asia.csv"))
    with pytest.raises(TreelearnError, match=r"mi_graph\(kind='gaussian'\) needs numeric"):
        tl.mi_graph("datasets/asia.csv", kind="gaussian")
    for bad, match in (
        (np.array([1.0, 2.0]), "Reshape your data"),
        (np.ones((3, 2)) * 1j, "Complex data not supported"),
        (encode(pd.DataFrame({"a": [0, 1]})), "holds category codes"),
        (None, "NoneType"),
    ):
        with pytest.raises(tl.TreelearnError, match=match):
            tl.gaussian_chow_liu(bad)
    path = tmp_path / "late.csv"  # a text value only in a later chunk: named with its rows
    pd.DataFrame({"a": [0.5] * 1500 + ["unknown"] + [1.5] * 10, "b": np.arange(1511.0)}).to_csv(
        path, index=False
    )
    with pytest.raises(TreelearnError, match=r"rows 1000-1510: column 'a' is not numeric"):
        tl.gaussian_chow_liu(path, chunksize=1000)


def test_vocabulary_n_parameters_sample_and_weighted_scores():
    df = _data(n=50, d=3, seed=12)
    m = tl.gaussian_chow_liu(df)
    assert m.n_parameters == 2 * 3 + 2  # a property: intercept + variance each, one per edge
    w = np.random.default_rng(0).integers(0, 3, len(df))
    repeated = df.loc[df.index.repeat(w)]
    assert m.log_likelihood(df, sample_weight=w) == pytest.approx(m.log_likelihood(repeated))
    assert m.bic(df, sample_weight=w) == pytest.approx(m.bic(repeated), rel=1e-12)
    assert m.aic(df, sample_weight=w) == pytest.approx(m.aic(repeated), rel=1e-12)
    assert m.sample(np.int64(2), random_state=np.random.default_rng(1)).shape == (2, 3)
    assert m.sample(0).shape == (0, 3)
    for n, random_state, match in (
        (-1, None, "n == -1, must be an integer >= 0"),
        (2.5, None, "n == 2.5"),
        (True, None, "n == True"),
        (3, "x", "random_state == 'x'"),
    ):
        with pytest.raises(TreelearnError, match=match):
            m.sample(n, random_state=random_state)
    with pytest.raises(tl.ResourceLimitError):
        m.sample(10**12)


# ---------------------------------------------------------------------------------- hostile inputs
def test_gaussian_evidence_must_be_a_finite_number():
    num = pd.DataFrame(np.random.default_rng(26).normal(size=(60, 2)), columns=["u", "v"])
    model = tl.gaussian_chow_liu(num)
    for bad in ("x", np.nan, np.inf, None, True):
        with pytest.raises(tl.TreelearnError, match=r"evidence 'v' == .*must be a finite number"):
            model.query(["u"], evidence={"v": bad})
    # the oracle: the bivariate normal's conditional mean from the ML moments
    mu, S = num.mean(), num.cov(ddof=0)
    got = model.query(["u"], evidence={"v": 1.5}).mean["u"]
    assert got == pytest.approx(mu["u"] + S.loc["u", "v"] / S.loc["v", "v"] * (1.5 - mu["v"]))
