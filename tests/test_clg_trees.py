"""CLG trees over mixed tables (issue 25), against independent oracles.

- likelihoods and queries: brute force over the discrete states, each continuous part a
  closed-form joint Gaussian (``(I - B)^-1``) marginalised with scipy.stats;
- the tree: the brute-force best over every CLG-valid spanning tree (and, with
  forest="bic", every CLG-valid forest) of small tables, each scored by its own
  maximum-likelihood fit computed with numpy group moments and least squares;
- the edge weights: numerical integration (scipy.integrate).
"""

from __future__ import annotations

import math
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import clg_conditionals, clg_log_density, forests, spanning_trees
from scipy import integrate, stats

import treelearn as tl
from treelearn.stats._mixed_pairs import conditional_gaussian_information, mixed_pair_statistics


def mixed_frame(n: int = 600, seed: int = 0) -> pd.DataFrame:
    """Two discrete columns and three continuous ones, each depending on another."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, n)
    h = np.where(rng.random(n) < 0.7, g % 2, 1 - g % 2)
    x = rng.normal(1.5 * g, 1.0 + 0.3 * g)
    y = 0.8 * x + rng.normal(size=n)
    z = rng.normal(2.0 * h - 1, 0.7)
    return pd.DataFrame({"g": g, "h": h, "x": x, "y": y, "z": z})


# ------------------------------------------------------------------ brute force
def frame_row(frame: pd.DataFrame, r: int) -> dict:
    return {c: (None if pd.isna(v) else v) for c, v in frame.iloc[r].items()}


def with_holes(df: pd.DataFrame, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    out = df.copy().astype({"g": "Int64", "h": "Int64"})
    for c in df.columns:
        out.loc[rng.random(len(df)) < 0.3, c] = pd.NA if c in ("g", "h") else np.nan
    return out


# ------------------------------------------------------------------ likelihood and queries
def test_log_likelihood_with_missing_cells_equals_brute_force():
    df = mixed_frame()
    model = tl.clg_tree(df)
    assert isinstance(model, tl.CLGTreeModel)
    holes = with_holes(df.iloc[:40])
    got = model.score_samples(holes)
    want = [clg_log_density(model, frame_row(holes, r)) for r in range(len(holes))]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    complete = [clg_log_density(model, frame_row(df, r)) for r in range(20)]
    np.testing.assert_allclose(model.score_samples(df.iloc[:20]), complete, rtol=1e-10)


def test_discrete_posterior_equals_brute_force():
    df = mixed_frame()
    model = tl.clg_tree(df)
    evidence = {"y": 2.5, "z": -0.4}
    got = model.query("g", evidence)
    joint = [math.exp(clg_log_density(model, {**evidence, "g": s})) for s in [0, 1, 2]]
    np.testing.assert_allclose(got.to_numpy(), np.array(joint) / sum(joint), rtol=1e-10)
    # the row's own cell is ignored by posterior(): the same numbers from a full row
    row = pd.DataFrame(
        {"g": [2], "h": pd.array([None], dtype="Int64"), "x": [np.nan], "y": [2.5], "z": [-0.4]}
    )
    np.testing.assert_allclose(model.posterior(row, "g").to_numpy()[0], got.to_numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "target, evidence",
    [("x", {"y": 1.0, "h": 1}), ("y", {"g": 2}), ("y", {"z": 0.3}), ("z", {"x": 2.0, "y": 1.0})],
)
def test_continuous_posterior_is_the_brute_force_conditional_density(target, evidence):
    df = mixed_frame()
    model = tl.clg_tree(df)
    q = model.query(target, evidence)
    assert isinstance(q, tl.GaussianMixtureQuery)
    points = np.linspace(-3.0, 5.0, 9)
    p_e = math.exp(clg_log_density(model, evidence))
    want = [math.exp(clg_log_density(model, {**evidence, target: t})) / p_e for t in points]
    np.testing.assert_allclose(q.pdf(points), want, rtol=1e-9)
    # the mixture is a density, and predict() is its mean
    total, _ = integrate.quad(q.pdf, -30, 30, points=list(q.means))
    assert total == pytest.approx(1.0, abs=1e-8)
    first, _ = integrate.quad(lambda t: t * q.pdf(t), -30, 30, points=list(q.means))
    assert q.mean == pytest.approx(first, abs=1e-7)


def test_predict_discrete_and_continuous_targets():
    df = mixed_frame(2000)
    model = tl.clg_tree(df.iloc[:1500])
    test = df.iloc[1500:]
    post = model.posterior(test, "g")
    assert (model.predict(test, "g").to_numpy() == post.to_numpy().argmax(axis=1)).all()
    pred = model.predict(test, "x")
    # better than the column mean: the per-row posterior mean uses g, y
    assert ((pred - test["x"]) ** 2).mean() < 0.6 * test["x"].var()


# ------------------------------------------------------------------ the tree
def ml_family_log_likelihood(df: pd.DataFrame, child, parent, continuous) -> float:
    """The maximum log-likelihood of one family, from numpy directly."""
    n = len(df)
    if child not in continuous:
        if parent is None:
            counts = df[child].value_counts().to_numpy()
            return float((counts * np.log(counts / n)).sum())
        joint = df.groupby([parent, child]).size()
        parents = joint.groupby(level=0).transform("sum")
        return float((joint * np.log(joint / parents)).sum())
    x = df[child].to_numpy()
    if parent is None:
        return float(-n / 2 * (math.log(2 * math.pi * x.var()) + 1))
    if parent not in continuous:
        total = 0.0
        for _, group in df.groupby(parent)[child]:
            v = group.to_numpy()
            total += -len(v) / 2 * (math.log(2 * math.pi * v.var()) + 1)
        return total
    slope, intercept = np.polyfit(df[parent].to_numpy(), x, 1)
    resid = x - intercept - slope * df[parent].to_numpy()
    return float(-n / 2 * (math.log(2 * math.pi * (resid**2).mean()) + 1))


def family_parameters(df: pd.DataFrame, child, parent, continuous) -> int:
    k = {c: df[c].nunique() for c in df.columns if c not in continuous}
    if child not in continuous:
        return (k[child] - 1) * (1 if parent is None else k[parent])
    if parent is None:
        return 2
    return 2 * k[parent] if parent not in continuous else 3


def valid_orientations(forest: nx.Graph, continuous) -> nx.DiGraph | None:
    """The forest rooted so that no discrete node has a continuous parent, or None."""
    out = nx.DiGraph()
    out.add_nodes_from(forest)
    for comp in nx.connected_components(forest):
        discrete = [v for v in comp if v not in continuous]
        if discrete and not nx.is_connected(forest.subgraph(discrete)):
            return None
        root = discrete[0] if discrete else next(iter(comp))
        out.add_edges_from(nx.bfs_edges(forest.subgraph(comp), root))
    return out


def best_by_brute_force(df: pd.DataFrame, continuous, penalty: float = 0.0):
    cols = list(df.columns)
    best, best_score = None, -np.inf
    sizes = [len(cols) - 1] if penalty == 0 else range(len(cols))
    for edges in forests(cols, sizes=sizes):  # every forest (every spanning tree unpenalised)
        F = nx.Graph(edges)
        F.add_nodes_from(cols)
        D = valid_orientations(F, continuous)
        if D is None:
            continue
        parent = {v: next(iter(D.predecessors(v)), None) for v in cols}
        score = sum(
            ml_family_log_likelihood(df, v, parent[v], continuous)
            - penalty * family_parameters(df, v, parent[v], continuous)
            for v in cols
        )
        if score > best_score + 1e-9:
            best, best_score = F, score
    return best, best_score


def undirected(graph) -> set:
    return {frozenset(e) for e in graph.edges}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tree_is_the_best_clg_valid_spanning_tree(seed):
    rng = np.random.default_rng(seed)
    n = 300
    a = rng.integers(0, 2, n)
    b = rng.integers(0, 3, n)
    x = rng.normal(a + 0.5 * b, 1.0)
    y = rng.normal(-x, 1.0 + a)
    z = rng.normal(b * 0.7, 1.0) + 0.5 * y
    df = pd.DataFrame({"a": a, "b": b, "x": x, "y": y, "z": z})
    continuous = {"x", "y", "z"}
    best, score = best_by_brute_force(df, continuous)
    model = tl.clg_tree(df, alpha=0)
    assert undirected(model.graph) == undirected(best)
    assert model.log_likelihood(df) == pytest.approx(score, rel=1e-10)
    for v in model.discrete:  # the CLG rule
        assert all(p not in continuous for p in model.parents(v))


def test_bic_forest_is_the_best_penalised_clg_forest():
    rng = np.random.default_rng(5)
    n = 400
    a = rng.integers(0, 2, n)
    b = np.where(rng.random(n) < 0.8, a, 1 - a)
    x = rng.normal(0.4 * a, 1.0)  # weak: the penalty decides
    y = rng.normal(size=n)  # independent of everything
    df = pd.DataFrame({"a": a, "b": b, "x": x, "y": y})
    best, score = best_by_brute_force(df, {"x", "y"}, penalty=0.5 * math.log(n))
    model = tl.clg_tree(df, alpha=0, forest="bic")
    assert undirected(model.graph) == undirected(best)
    assert model.bic(df) == pytest.approx(score, rel=1e-10)


def test_the_tree_never_gives_a_discrete_node_a_continuous_parent():
    # the plain maximum spanning tree would join a and b through x (x is a copy of both)
    rng = np.random.default_rng(3)
    n = 500
    a = rng.integers(0, 2, n)
    b = rng.integers(0, 2, n)
    x = a + b + rng.normal(scale=0.05, size=n)
    df = pd.DataFrame({"a": a, "b": b, "x": x})
    model = tl.clg_tree(df)
    assert model.parents("a") == [] and model.parents("b") == ["a"]
    with pytest.raises(tl.StructureError, match="root 'x' is continuous"):
        tl.clg_tree(df, root="x")


# ------------------------------------------------------------------ edge weights
def test_discrete_gaussian_weight_is_the_likelihood_gain_by_integration():
    """mi-cg is ``E[log N(x; m_a, v_a) - log N(x; m, s^2)]`` under the per-state Gaussians
    (integrated numerically here); the mixture's own MI is below it (Gibbs)."""
    w = np.array([[3.0], [5.0], [2.0]])
    m = np.array([[-1.0], [0.5], [2.0]])
    v = np.array([[0.5], [1.0], [2.0]])
    got = conditional_gaussian_information(w, m, v, np.array([0]), np.array([1.0]))[0, 0]
    p = w[:, 0] / w.sum()
    mean = p @ m[:, 0]
    s2 = p @ (v[:, 0] + (m[:, 0] - mean) ** 2)
    comps = [stats.norm(m[a, 0], math.sqrt(v[a, 0])) for a in range(3)]
    gain = sum(
        p[a]
        * integrate.quad(
            lambda t, a=a: (
                comps[a].pdf(t) * (comps[a].logpdf(t) - stats.norm(mean, math.sqrt(s2)).logpdf(t))
            ),
            -40,
            40,
        )[0]
        for a in range(3)
    )
    assert got == pytest.approx(gain, abs=1e-9)

    def mix(t):
        return sum(p[a] * comps[a].pdf(t) for a in range(3))

    true_mi = sum(
        p[a]
        * integrate.quad(
            lambda t, a=a: (
                comps[a].pdf(t) * math.log(comps[a].pdf(t) / mix(t)) if comps[a].pdf(t) > 0 else 0.0
            ),
            -40,
            40,
        )[0]
        for a in range(3)
    )
    assert 0 < true_mi < got


def test_gaussian_weight_is_the_bivariate_normal_mi_by_integration():
    df = mixed_frame(800)
    rho = np.corrcoef(df["x"], df["y"])[0, 1]
    pairs = mixed_pair_statistics(
        np.zeros((len(df), 0), dtype=np.int64), np.array([], int), df[["x", "y"]].to_numpy()
    )
    got = pairs.continuous_information()[0, 1]
    joint = stats.multivariate_normal([0, 0], [[1, rho], [rho, 1]])

    def f(u, t):
        return joint.pdf([t, u]) * (
            joint.logpdf([t, u]) - stats.norm.logpdf(t) - stats.norm.logpdf(u)
        )

    mi, _ = integrate.dblquad(f, -7, 7, -7, 7, epsabs=1e-8)
    assert got == pytest.approx(mi, abs=1e-6)


def test_weights_equal_the_per_row_gain_of_the_fitted_families():
    df = mixed_frame(500)
    model = tl.clg_tree(df, alpha=0)
    n = len(df)
    for u, v, attrs in model.graph.edges(data=True):
        gain = (
            ml_family_log_likelihood(df, v, u, set(model.continuous))
            - ml_family_log_likelihood(df, v, None, set(model.continuous))
        ) / n
        assert attrs["weight"] == pytest.approx(gain, rel=1e-9, abs=1e-12)


# ------------------------------------------------------------------ sampling, files, adapters
def test_sample_reproduces_the_model():
    df = mixed_frame(3000)
    model = tl.clg_tree(df)
    s = model.sample(40_000, random_state=0)
    assert list(s.columns) == list(df.columns) and s["g"].dtype == df["g"].dtype
    assert s.equals(model.sample(40_000, random_state=0))
    node = model.graph.nodes["x"]
    for a in range(3):
        xs = s.loc[s["g"] == a, "x"]
        se = math.sqrt(node["variances"][a] / len(xs))
        assert abs(xs.mean() - node["means"][a]) < 5 * se
    # the sample's own CLG tree scores held-out rows as the model does, near enough
    refit = tl.clg_tree(s)
    assert undirected(refit.graph) == undirected(model.graph)
    assert refit.score(df) == pytest.approx(model.score(df), abs=0.02)


@pytest.mark.parametrize(
    "evidence, numbers_only",
    [
        ({"y": 2.5}, False),
        ({"y": 2.5, "h": 1}, False),
        ({"g": 2, "z": -0.4}, False),
        ({"x": 1.0, "h": 0, "z": 0.5}, False),
        ({}, False),
        ({"y": 1.5}, True),  # a tree of numbers alone: no discrete node
    ],
)
def test_conditional_sampling_is_the_brute_force_conditional(evidence, numbers_only):
    df = mixed_frame(3000)
    model = tl.clg_tree(df[["x", "y", "z"]] if numbers_only else df, numeric="auto")
    n = 40_000
    rows = model.sample(n, random_state=3, evidence=evidence)
    assert list(rows.columns) == list(model.variables) and len(rows) == n
    for v, value in evidence.items():
        assert (rows[v] == value).all()
    cont = model.continuous
    unseen = [v for v in cont if v not in evidence]
    for assignment, weight, mean, cov in clg_conditionals(model, evidence)[1]:
        keep = np.ones(n, dtype=bool)
        for v, state in assignment.items():
            keep &= (rows[v] == state).to_numpy()
        m = int(keep.sum())
        # the configuration's frequency: binomial with its posterior probability
        assert abs(m / n - weight) <= 5 * math.sqrt(weight * (1 - weight) / n) + 1e-12
        if m < 500 or not unseen:
            continue
        got = rows.loc[keep, unseen].to_numpy()
        sd = np.sqrt(np.diag(cov))
        assert (np.abs(got.mean(axis=0) - mean) <= 5 * sd / math.sqrt(m)).all()
        # each covariance entry within 5 standard errors of the sample covariance
        se = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / m)
        assert (np.abs(np.cov(got, rowvar=False).reshape(cov.shape) - cov) <= 5 * se).all()


def test_conditional_sampling_refuses_impossible_and_unknown_evidence():
    model = tl.clg_tree(mixed_frame(), numeric="auto")
    with pytest.raises(tl.ColumnNotFoundError, match="nope"):
        model.sample(3, evidence={"nope": 1})
    with pytest.raises(tl.TreelearnError, match="'y' is a Gaussian variable"):
        model.sample(3, evidence={"y": "high"})
    with pytest.raises(tl.UnseenStateError):
        model.sample(3, evidence={"g": 7})
    # without evidence: the same rows as before conditional sampling existed (ancestral)
    assert model.sample(50, random_state=1).equals(model.sample(50, random_state=1, evidence={}))


def test_save_and_load_round_trip_and_checked_fields(tmp_path):
    df = mixed_frame()
    df["label"] = np.where(df["h"] == 1, "yes", "no")
    model = tl.clg_tree(df.drop(columns="h"))
    path = tmp_path / "m.json"
    model.save(path)
    back = tl.load(path)
    assert isinstance(back, tl.CLGTreeModel) and back == model
    np.testing.assert_array_equal(back.score_samples(df), model.score_samples(df))
    tl.save(model, tmp_path / "n.json")
    assert tl.load(tmp_path / "n.json") == model
    d = model.to_dict()
    bad = {**d, "continuous": [{**d["continuous"][0], "variance": -1.0}] + d["continuous"][1:]}
    key = "variance" if "variance" in d["continuous"][0] else "variances"
    if key == "variances":
        bad["continuous"][0] = {
            **d["continuous"][0],
            "variances": [-1.0] * len(d["continuous"][0]["variances"]),
        }
    with pytest.raises(tl.InvalidModelError, match="must be > 0"):
        tl.CLGTreeModel.from_dict(bad)
    wrong_parent = {
        **d,
        "continuous": [{**d["continuous"][0], "parent": "nope"}] + d["continuous"][1:],
    }
    with pytest.raises(tl.InvalidModelError, match="differs from the edges"):
        tl.CLGTreeModel.from_dict(wrong_parent)
    flipped = {**d, "edges": [[v, u, w] for u, v, w in d["edges"]]}
    with pytest.raises(tl.InvalidModelError):
        tl.CLGTreeModel.from_dict(flipped)


def test_to_pgmpy_is_refused_offering_the_discretized_model():
    model = tl.clg_tree(mixed_frame())
    with pytest.raises(tl.TreelearnError, match="pgmpy has no hybrid") as info:
        model.to_pgmpy()
    assert "tl.discretize" in str(info.value)


def test_draw(tmp_path):
    fig = tl.clg_tree(mixed_frame()).draw(title=True)
    fig.savefig(tmp_path / "clg.png")


# ------------------------------------------------------------------ which columns, bad input
def test_continuous_columns_by_dtype_or_named():
    df = mixed_frame()
    df["k"] = (df["x"] > 1).astype(int)  # integers: discrete
    df["w"] = (df["y"] > 0).astype(float)  # floats: continuous under "auto" (by dtype)
    model = tl.clg_tree(df)
    assert model.continuous == ["x", "y", "z", "w"] and "k" in model.discrete
    named = tl.clg_tree(df, numeric=["x", "y", "z", "k"])
    assert named.continuous == ["x", "y", "z", "k"]
    # no float column: the Chow-Liu tree of the discrete columns, as a CLG tree of no
    # continuous node (the same CPTs; scored through the engine's soft-evidence path)
    plain = tl.clg_tree(df[["g", "h"]])
    discrete = tl.chow_liu(df[["g", "h"]])
    assert isinstance(plain, tl.CLGTreeModel) and plain.continuous == []
    assert plain.discrete_model == discrete
    np.testing.assert_allclose(plain.score_samples(df), discrete.score_samples(df), rtol=1e-14)
    # chow_liu takes discrete columns only: measurements are refused, naming the fixes
    with pytest.raises(tl.TableProblemsError, match="column 'x' is numeric") as info:
        tl.chow_liu(df)
    assert "tl.discretize" in str(info.value) and "tl.clg_tree" in str(info.value)
    with pytest.raises(TypeError, match="numeric"):  # the one model class of chow_liu
        tl.chow_liu(df, numeric="auto")
    with pytest.raises(tl.TreelearnError, match="numeric == 'float'"):
        tl.clg_tree(df, numeric="float")


def test_missing_pairwise_and_drop():
    df = mixed_frame()
    holes = with_holes(df)
    model = tl.clg_tree(holes, missing="pairwise")
    assert np.isfinite(model.score_samples(holes)).all()
    dropped = tl.clg_tree(holes, missing="drop")
    assert dropped.n_rows == int(holes.notna().all(axis=1).sum())
    with pytest.raises(tl.TreelearnError, match="missing"):
        tl.clg_tree(holes)
    with pytest.raises(tl.TreelearnError, match="missing='em' is for discrete tables"):
        tl.clg_tree(holes, missing="em")


@pytest.mark.parametrize(
    "change, column, match",
    [
        (lambda d: d.assign(c=1.5), "c", "single value"),
        (lambda d: d.assign(x=d["x"].where(d.index != 7, np.inf)), "x", "infinite"),
        (lambda d: d.assign(e=np.nan), "e", "no observed value"),
    ],
)
def test_bad_continuous_columns_are_named(change, column, match):
    df = change(mixed_frame())
    with pytest.raises(tl.TreelearnError, match=match) as info:
        tl.clg_tree(
            df,
            numeric=[c for c in ["x", "y", "z", "c", "e"] if c in df.columns],
            missing="pairwise",
        )
    assert repr(column) in str(info.value)


def test_a_many_valued_column_declared_discrete_is_refused():
    df = mixed_frame(10_000)
    with pytest.raises(tl.TreelearnError, match="'y'"):
        tl.clg_tree(df, numeric=["x", "z"])  # y left discrete: 10,000 values


def test_score_refuses_infinite_values_naming_the_column():
    df = mixed_frame()
    model = tl.clg_tree(df)
    with pytest.raises(tl.TreelearnError, match="'y'"):
        model.score_samples(df.assign(y=np.inf))


# ------------------------------------------------------------------ the mixed TAN
def test_mixed_tan_on_numbers_is_gaussian_tan():
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True, as_frame=True)
    ours = tl.MixedTAN(var_smoothing=0.0, numbers="gaussian").fit(X, y)  # every number Gaussian
    theirs = tl.GaussianTAN().fit(X, y)
    assert undirected(ours.feature_tree_) == undirected(theirs.feature_tree_)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X), rtol=1e-9
    )
    holes = X.mask(np.random.default_rng(0).random(X.shape) < 0.2)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(holes), theirs.predict_joint_log_proba(holes), rtol=1e-9
    )


def test_mixed_tan_on_categories_is_tan():
    asia = pd.read_csv(Path(__file__).resolve().parents[1] / "datasets" / "asia.csv")
    X, y = asia.drop(columns="either"), asia["either"]
    ours = tl.MixedTAN().fit(X, y)
    # MixedTAN's state CPTs are plain: every class arc kept (class_arcs="all"), not averaged
    theirs = tl.TAN(class_arcs="all").fit(X, y)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(X.iloc[:300]),
        theirs.predict_joint_log_proba(X.iloc[:300]),
        rtol=1e-10,
    )


def class_conditional_best_tree(X: pd.DataFrame, y: np.ndarray, continuous: set):
    """The CLG-valid spanning tree of largest class-conditional log-likelihood (numpy fits
    per class, every tree enumerated)."""
    cols = list(X.columns)
    best, best_score = None, -np.inf
    for edges in spanning_trees(cols):
        F = nx.Graph(edges)
        F.add_nodes_from(cols)
        D = valid_orientations(F, continuous)
        if D is None:
            continue
        parent = {v: next(iter(D.predecessors(v)), None) for v in cols}
        score = sum(
            ml_family_log_likelihood(X[y == c], v, parent[v], continuous)
            for c in np.unique(y)
            for v in cols
        )
        if score > best_score + 1e-9:
            best, best_score = F, score
    return best


@pytest.mark.parametrize("seed", [0, 1])
def test_mixed_tan_tree_is_the_best_class_conditional_clg_tree(seed):
    rng = np.random.default_rng(seed)
    n = 400
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    b = (a + rng.integers(0, 2, n)) % 3
    x = rng.normal(a - y, 1.0)
    z = rng.normal(0.5 * x * (1 + y), 1.0)
    X = pd.DataFrame({"a": a, "b": b, "x": x, "z": z})
    # a and b are integer codes of categories: kept as states (integers are numbers by dtype)
    clf = tl.MixedTAN(alpha=0, var_smoothing=0.0, categorical=["a", "b"]).fit(X, y)
    assert undirected(clf.feature_tree_) == undirected(
        class_conditional_best_tree(X, y, {"x", "z"})
    )
    for v in clf.categorical_features_:
        assert all(p in clf.categorical_features_ for p in clf.feature_tree_.predecessors(v))


def test_mixed_tan_beats_mixed_naive_bayes_when_features_depend():
    rng = np.random.default_rng(7)
    n = 4000
    y = rng.integers(0, 2, n)
    g = rng.integers(0, 3, n)
    x = rng.normal(g, 1.0)
    z = x + rng.normal(0.3 * y, 0.3)  # the class shows only in z - x
    X = pd.DataFrame({"g": g, "x": x, "z": z})
    train, test = slice(0, 3000), slice(3000, None)
    # the defaults (numbers="auto"): MixedTAN judges x with its tree neighbour z and keeps
    # it Gaussian (judged alone, x said nothing and was cut into one bin: 0.531, as naive
    # Bayes; tests/test_mixed_tan_conditional_choice.py)
    tan = tl.MixedTAN().fit(X[train], y[train])
    nb = tl.MixedNaiveBayes().fit(X[train], y[train])
    assert tan.score(X[test], y[test]) > nb.score(X[test], y[test]) + 0.1
    # the joint log-likelihoods compare only with the same columns as densities ("auto"
    # cuts g into a bin, a probability, in one and not the other): every number Gaussian
    tan = tl.MixedTAN(numbers="gaussian").fit(X[train], y[train])
    nb = tl.MixedNaiveBayes(numbers="gaussian").fit(X[train], y[train])
    assert tan.log_likelihood(X[test], y[test]) > nb.log_likelihood(X[test], y[test])


def test_mixed_tan_refuses_a_gaussian_root_above_categories():
    X = mixed_frame().drop(columns="h")
    with pytest.raises(tl.StructureError, match="root 'x' is Gaussian"):
        tl.MixedTAN(root="x", categorical=["g"], numbers="gaussian").fit(X, np.arange(len(X)) % 2)


def test_a_table_of_numbers_is_the_gaussian_chow_liu_tree():
    df = mixed_frame()[["x", "y", "z"]]
    model = tl.clg_tree(df)
    gauss = tl.gaussian_chow_liu(df)
    assert undirected(model.graph) == undirected(gauss.graph) and model.discrete == []
    np.testing.assert_allclose(
        model.score_samples(df), gauss.log_likelihood(df, per_row=True), rtol=1e-10
    )


def test_engine_takes_one_likelihood_per_row():
    """The engine's soft evidence with one likelihood vector per row (what a CLG tree hands
    it) against brute force over the joint of a small discrete tree."""
    df = mixed_frame(300)[["g", "h"]]
    model = tl.chow_liu(df)
    rng = np.random.default_rng(0)
    likelihood = rng.uniform(0.05, 1.0, size=(6, 3))
    codes = np.array([[-1, -1], [0, -1], [-1, 1], [2, 0], [-1, -1], [1, 1]])
    engine = model.engine()
    got = engine.log_evidence(codes, {0: likelihood})
    prior_g, cpt_h = model.cpt("g"), model.cpt("h")
    want = []
    for r, (cg, ch) in enumerate(codes):
        total = sum(
            prior_g[a] * cpt_h[a, b] * likelihood[r, a]
            for a in range(3)
            for b in range(2)
            if (cg < 0 or cg == a) and (ch < 0 or ch == b)
        )
        want.append(math.log(total))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    marg = engine.marginals_codes(codes, {0: likelihood})[0]
    for r, (cg, ch) in enumerate(codes):
        w = np.array(
            [
                prior_g[a]
                * likelihood[r, a]
                * (cpt_h[a, ch] if ch >= 0 else 1.0)
                * (1.0 if cg < 0 or cg == a else 0.0)
                for a in range(3)
            ]
        )
        np.testing.assert_allclose(marg[r], w / w.sum(), rtol=1e-12)


def test_a_blacklist_splitting_the_discrete_columns_makes_a_forest_and_says_why():
    df = mixed_frame()
    with pytest.warns(UserWarning, match="cannot join them through a continuous column"):
        model = tl.clg_tree(df, blacklist=[("g", "h")])
    assert nx.number_connected_components(model.graph.to_undirected()) == 2
    for v in model.discrete:
        assert all(p not in model.continuous for p in model.parents(v))
