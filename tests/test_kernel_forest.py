"""Kernel forest densities (issue 25, point 3), against independent checks: the KDEs are
scipy's ``gaussian_kde`` (1-D and 2-D, same bandwidth); the density integrates to 1
(scipy's dblquad in 2-D, a Gauss-Legendre tensor grid in 3-D); the grid MI equals a Monte
Carlo average of the model's own log-ratios on its samples, and approaches the Gaussian
pair's ``-1/2 log(1 - rho^2)``; the pruned forest is the brute-force best prefix of
Kruskal's edge order (networkx) by held-out log-likelihood; samples follow the marginals
(Kolmogorov-Smirnov)."""

from __future__ import annotations

import json
import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special, stats

import treelearn as tl
from treelearn.models._kernel_forest import KernelForestModel
from treelearn.stats._kernel import bandwidth_factor, kernel_mutual_information, weighted_moments


def skewed(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.exponential(size=n)
    b = np.sqrt(a) + 0.2 * rng.normal(size=n)
    mode = rng.integers(0, 2, size=n)
    c = np.where(mode == 1, 3.0, -3.0) + b + 0.5 * rng.normal(size=n)
    return pd.DataFrame({"a": a, "b": b, "c": c})


@pytest.mark.parametrize("bandwidth", ["scott", "silverman", 0.3])
@pytest.mark.parametrize("weighted", [False, True])
def test_kdes_are_scipys_gaussian_kde(bandwidth, weighted):
    df = skewed(80, seed=3)
    w = np.random.default_rng(1).uniform(0.2, 2.0, size=80) if weighted else None
    model = tl.kernel_forest(df, bandwidth, sample_weight=w, random_state=0)
    grid = pd.DataFrame({v: np.linspace(df[v].min() - 1, df[v].max() + 1, 37) for v in df.columns})
    X = grid.to_numpy()
    for j, v in enumerate(df.columns):
        kde = stats.gaussian_kde(df[v].to_numpy(), bw_method=bandwidth, weights=w)
        assert np.allclose(model._marginal(X, j), kde.logpdf(X[:, j]), rtol=0, atol=1e-12)
    # the pair density of every spanning-tree pair: scipy's 2-D KDE with the 1-D factor
    for u, v in [("a", "b"), ("b", "c"), ("a", "c")]:
        m2 = KernelForestModel(df[[u, v]].to_numpy(), [u, v], [(u, v)], model.factor, weights=w)
        kde2 = stats.gaussian_kde(df[[u, v]].to_numpy().T, bw_method=model.factor, weights=w)
        ours = m2.score_samples(grid[[u, v]])
        assert np.allclose(ours, kde2.logpdf(grid[[u, v]].to_numpy().T), rtol=0, atol=1e-11)


def test_two_variable_density_integrates_to_one():
    df = skewed(8, seed=5)[["a", "b"]]
    model = tl.kernel_forest(df, random_state=0, refit=True)
    model = KernelForestModel(df.to_numpy(), ["a", "b"], [("a", "b")], model.factor)

    def f(y, x):
        return float(np.exp(model.score_samples(np.array([[x, y]])))[0])

    pad = 12 * max(model.kernel_sd.values())
    total, err = integrate.dblquad(
        f, df.a.min() - pad, df.a.max() + pad, df.b.min() - pad, df.b.max() + pad, epsabs=1e-9
    )
    # the mass beyond 12 kernel sds is below 1e-30; dblquad's own error estimate is tiny
    assert err < 1e-7
    assert total == pytest.approx(1.0, abs=1e-7)


def test_three_variable_forest_integrates_to_one():
    df = skewed(9, seed=2)
    model = KernelForestModel(df.to_numpy(), list(df.columns), [("a", "b"), ("b", "c")], 0.6)
    axes = []
    for v in df.columns:  # Gauss-Legendre, 12 pieces of 6 nodes across 9 kernel sds each side
        s, lo, hi = model.kernel_sd[v], df[v].min(), df[v].max()
        edges = np.linspace(lo - 9 * s, hi + 9 * s, 13)
        t, w = np.polynomial.legendre.leggauss(6)
        a, b = edges[:-1, None], edges[1:, None]
        axes.append((((a + b) / 2 + (b - a) / 2 * t).ravel(), ((b - a) / 2 * w).ravel()))
    (xa, wa), (xb, wb), (xc, wc) = axes
    A, B, C = np.meshgrid(xa, xb, xc, indexing="ij")
    p = np.exp(model.score_samples(np.column_stack([A.ravel(), B.ravel(), C.ravel()])))
    W = (wa[:, None, None] * wb[None, :, None] * wc[None, None, :]).ravel()
    assert float(W @ p) == pytest.approx(1.0, abs=1e-6)


def test_grid_mi_is_the_kdes_mi_and_the_gaussian_pairs():
    rng = np.random.default_rng(7)
    rho, n = 0.7, 4000
    a = rng.normal(size=n)
    b = rho * a + math.sqrt(1 - rho**2) * rng.normal(size=n)
    model = tl.kernel_forest(pd.DataFrame({"a": a, "b": b}), random_state=0, refit=False)
    mi = model.mutual_information[("a", "b")]
    # the grid integral is the KDE's MI: the Monte Carlo mean of log p_ab / (p_a p_b) on
    # 20,000 of the model's own samples (4 standard errors)
    s = model.sample(20_000, random_state=1)
    ratios = model.edge_log_ratios(s)[:, 0]
    assert abs(ratios.mean() - mi) < 4 * ratios.std() / math.sqrt(len(ratios))
    # and it approaches the Gaussian's: on 2,000 rows (h = 0.22 sd) the KDE's plug-in MI is
    # biased up (0.03 nats here, about 9%; it shrinks as n grows and h with it): within 0.05
    assert mi == pytest.approx(-0.5 * math.log(1 - rho**2), abs=0.05)


def test_pruned_forest_is_the_best_prefix_by_brute_force():
    df = skewed(120, seed=11)
    rng = np.random.default_rng(4)
    df["d"] = rng.normal(size=120)  # independent: its edge should not pay held out
    df["e"] = df["a"] + rng.normal(size=120)
    model = tl.kernel_forest(df, random_state=3, refit=False)
    fit, held = model.split_rows_
    assert sorted(np.concatenate([fit, held]).tolist()) == list(range(120))
    X, names = df.to_numpy(), list(df.columns)
    wn = np.full(len(fit), 1.0 / len(fit))
    _, sd, n_eff = weighted_moments(X[fit], wn)
    factor = bandwidth_factor("scott", n_eff)
    assert model.factor == factor
    corr = np.corrcoef(X[fit].T)
    mi = kernel_mutual_information(X[fit], wn, factor * sd, corr, 48)
    # Kruskal's order of networkx's maximum spanning tree (ties: none on this table)
    G = nx.Graph()
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            G.add_edge(names[i], names[j], weight=mi[i, j])
    order = sorted(
        nx.maximum_spanning_edges(G, algorithm="kruskal", data=True), key=lambda e: -e[2]["weight"]
    )
    order = [tuple(sorted((u, v), key=names.index)) for u, v, _ in order]
    best, best_ll = None, -np.inf
    for k in range(len(order) + 1):
        m = KernelForestModel(X[fit], names, order[:k], factor)
        ll = m.log_likelihood(df.iloc[held])
        if ll > best_ll + 1e-9:
            best, best_ll = order[:k], ll
    assert model.edges == best
    assert 0 < len(best) < len(order)  # the table makes the pruning do something


def test_samples_follow_the_marginals():
    df = skewed(300, seed=8)
    model = tl.kernel_forest(df, random_state=0)
    assert model.graph.number_of_edges() >= 1
    s = model.sample(3000, random_state=2)
    for v in df.columns:
        c, sd = model.centres[:, list(df.columns).index(v)], model.kernel_sd[v]

        def cdf(x, c=c, sd=sd):
            return special.ndtr((np.asarray(x)[:, None] - c[None, :]) / sd).mean(axis=1)

        assert stats.kstest(s[v].to_numpy(), cdf).pvalue > 0.01
    assert model.sample(3000, random_state=2).equals(s)
    assert model.sample(0).shape == (0, 3)


def test_kernel_forest_beats_a_gaussian_tree_on_multimodal_data():
    df = skewed(1200, seed=1)
    train, test = df.iloc[:800], df.iloc[800:]
    kernel = tl.kernel_forest(train, random_state=0).score(test)
    gauss = tl.gaussian_chow_liu(train).log_likelihood(test) / len(test)
    assert kernel > gauss + 0.1


def test_save_load_round_trip_and_bad_files(tmp_path):
    df = skewed(60, seed=4)
    model = tl.kernel_forest(df, random_state=0, sample_weight=np.linspace(0.5, 2, 60))
    path = tmp_path / "kf.json"
    tl.save(model, path)
    back = tl.load(path)
    assert back == model
    assert np.array_equal(back.score_samples(df), model.score_samples(df))
    doc = json.loads(path.read_text())
    bad = [
        ("factor", -1.0),
        ("factor", "x"),
        ("weights", [1.0] * 3),
        ("centres", [[1.0]]),
        ("edges", [["a", "b"], ["b", "a"]]),
        ("edges", [["a", "zz"]]),
        ("mutual_information", ["x"]),
        ("variables", "a"),
    ]
    for key, value in bad:
        d = json.loads(json.dumps(doc))
        d["model"][key] = value
        path.write_text(json.dumps(d))
        with pytest.raises(tl.InvalidModelError):
            tl.load(path)


def test_bad_input_names_the_column_and_the_fix():
    df = skewed(40)
    for bw in (0, -1.0, float("nan"), "wide", True):
        with pytest.raises(tl.TreelearnError, match="bandwidth"):
            tl.kernel_forest(df, bw)
    with pytest.raises(tl.TreelearnError, match="split"):
        tl.kernel_forest(df, split=1.0)
    const = df.assign(k=2.5)
    with pytest.raises(tl.TreelearnError, match=r"'k' takes one value.*drop the column"):
        tl.kernel_forest(const)
    with pytest.raises(tl.TreelearnError, match=r"'a' has 1 infinite.*drop those rows"):
        tl.kernel_forest(df.assign(a=df.a.where(df.index != 3, np.inf)))
    with pytest.raises(tl.TreelearnError, match=r"'m' has no values.*drop the column"):
        tl.kernel_forest(df.assign(m=np.nan))
    with pytest.raises(tl.TreelearnError, match="'b' has 1 missing"):
        tl.kernel_forest(df.assign(b=df.b.where(df.index != 0)))
    with pytest.raises(tl.TreelearnError, match="'x' and 'y' are perfectly correlated"):
        x = np.arange(10.0)
        KernelForestModel(np.column_stack([x, 2 * x + 1]), ["x", "y"], [("x", "y")], 0.5)
    model = tl.kernel_forest(df, random_state=0)
    with pytest.raises(tl.ColumnNotFoundError):
        model.score(df[["a", "b"]])


def test_deterministic_and_drawn():
    df = skewed(100, seed=9)
    assert tl.kernel_forest(df, random_state=5) == tl.kernel_forest(df, random_state=5)
    pytest.importorskip("matplotlib")
    fig = tl.kernel_forest(df, random_state=5).draw()
    assert fig is not None


# ---------------------------------------------------------------------- missing cells
def _chain_and_star():
    from treelearn.models._kernel_forest import KernelForestModel

    rng = np.random.default_rng(0)
    n = 60
    a = rng.normal(size=n)
    b = a + 0.5 * rng.normal(size=n)
    c = np.sin(b) + 0.3 * rng.normal(size=n)
    d = c + 0.5 * rng.normal(size=n)
    df = pd.DataFrame({"a": a, "b": b, "c": c, "d": d})
    chain = KernelForestModel(
        df.to_numpy(), list(df.columns), [("a", "b"), ("b", "c"), ("c", "d")], 0.4
    )
    star = KernelForestModel(
        df.to_numpy(), list(df.columns), [("b", "a"), ("b", "c"), ("b", "d")], 0.4
    )
    return df, chain, star


@pytest.mark.parametrize("shape", ["chain", "star"])
@pytest.mark.parametrize("missing", [["a"], ["b"], ["c"], ["b", "c"], ["a", "d"], ["a", "b"]])
def test_missing_cells_are_integrated_out_as_scipy_integrates_them(shape, missing):
    from scipy import integrate

    df, chain, star = _chain_and_star()
    model = chain if shape == "chain" else star
    row = df.iloc[[3]]
    holes = row.copy()
    holes[missing] = np.nan
    got = model.score_samples(holes)[0]

    def density(*values):
        full = row.copy()
        full[missing] = np.array(values)[None, :]
        return np.exp(model.score_samples(full)[0])

    if len(missing) == 1:
        value = integrate.quad(density, -np.inf, np.inf, epsabs=0, epsrel=1e-11, limit=200)[0]
        tolerance = 1e-9  # quad's 1e-11 relative, and the quadrature grid's error
    else:
        # the trapezoid rule on a fine lattice (every row of it scored at once): for an
        # integrand this smooth (kernel sds >= 0.28, over 6 lattice steps each: the error
        # of a Gaussian of sd s with step h is about exp(-2 pi^2 s^2 / h^2))
        # is far below round-off, and [-9, 9] holds all but 1e-20 of the mass
        grid = np.linspace(-9, 9, 401)
        X, Y = np.meshgrid(grid, grid, indexing="ij")
        full = pd.DataFrame(np.repeat(row.to_numpy(), X.size, axis=0), columns=row.columns)
        full[missing[0]], full[missing[1]] = X.ravel(), Y.ravel()
        dens = np.exp(model.score_samples(full)).reshape(X.shape)
        value = integrate.trapezoid(integrate.trapezoid(dens, grid, axis=1), grid)
        tolerance = 1e-9
    assert got == pytest.approx(np.log(value), abs=tolerance)


def test_missing_cells_of_many_rows_at_once_and_an_empty_row():
    df, chain, _ = _chain_and_star()
    holes = df.iloc[:12].copy()
    holes.iloc[::2, 1] = np.nan
    holes.iloc[::3, 2] = np.nan
    holes.iloc[5] = np.nan
    got = chain.score_samples(holes)
    one_by_one = [chain.score_samples(holes.iloc[[i]])[0] for i in range(len(holes))]
    np.testing.assert_allclose(got, one_by_one, rtol=0, atol=1e-12)
    assert got[5] == 0.0  # nothing observed: log 1
    complete = holes.notna().all(axis=1).to_numpy()
    np.testing.assert_allclose(got[complete], chain.score_samples(df.iloc[:12][complete]))


def test_a_missing_node_between_strongly_correlated_neighbours_is_integrated_out():
    # r = 0.994 on both edges: the kernels given a neighbour are 9x narrower than alone,
    # which the quadrature's pieces must follow (a kernel-sd grid was 9e-4 nats off)
    from scipy import integrate

    from treelearn.models._kernel_forest import KernelForestModel

    rng = np.random.default_rng(0)
    a = rng.normal(size=60)
    b = a + 0.1 * rng.normal(size=60)
    df = pd.DataFrame({"a": a, "b": b, "c": b + 0.1 * rng.normal(size=60)})
    model = KernelForestModel(df.to_numpy(), list(df.columns), [("a", "b"), ("b", "c")], 0.4)
    row = df.iloc[[3]]

    def density(x):
        return np.exp(model.score_samples(row.assign(b=x))[0])

    value = integrate.quad(density, -np.inf, np.inf, epsabs=0, epsrel=1e-11, limit=400)[0]
    assert model.score_samples(row.assign(b=np.nan))[0] == pytest.approx(np.log(value), abs=1e-9)
