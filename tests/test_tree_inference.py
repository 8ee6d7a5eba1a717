"""The tree inference engine against independent oracles.

Every expected number comes from brute-force enumeration of the joint
distribution (the product of the CPTs over all state combinations, numpy only),
or from pgmpy's VariableElimination / BeliefPropagation on ``to_pgmpy()``.
Models: random trees, forests, TAN and naive Bayes (the class as a shared
parent) with missing evidence, polytrees from ``fit_cpts``, and a DAG that is
none of these (the variable-elimination path).
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import random_tree_network, sample_tree_network
from oracles import (
    joint_probability_of_codes,
    joint_table,
    marginal_table,
    max_log_probability,
    restrict,
)

import treelearn as tl

HERE = os.path.dirname(os.path.abspath(__file__))
DATASETS = os.path.join(HERE, "..", "datasets")
TOL = 1e-10


# ---------------------------------------------------------------- models
def tree_model(seed, d=6, cards=None):
    rng = np.random.default_rng(seed)
    cards = cards or [int(c) for c in rng.integers(2, 4, size=d)]
    edges, cpts = random_tree_network(d, cards, rng)
    G = nx.DiGraph(edges)
    G.add_nodes_from(range(d))
    for v in range(d):
        G.nodes[v].update(states=[f"s{i}" for i in range(cards[v])], cpt=cpts[v])
    return tl.TreeModel(G, variables=list(range(d)))


def forest_model(seed):
    a, b = tree_model(seed, d=4), tree_model(seed + 100, d=3)
    G = nx.disjoint_union(a.graph, b.graph)
    for v in G:  # disjoint_union renumbers the nodes: keep the CPTs' parent axes
        G.nodes[v]["parents"] = list(G.predecessors(v))
    return tl.TreeModel(G, variables=list(range(7)))


@pytest.fixture(scope="module")
def xy():
    rng = np.random.default_rng(3)
    edges, cpts = random_tree_network(6, [3, 2, 3, 2, 2, 3], rng)
    df = sample_tree_network(edges, cpts, 600, rng).astype(str)
    return df.drop(columns=["x0"]), df["x0"].rename("cls")


def tan_model(xy):
    X, y = xy
    return tl.TAN(alpha=1.0).fit(X, y)


def polytree_model():
    rng = np.random.default_rng(8)
    n = 500
    a, b = rng.integers(0, 2, n), rng.integers(0, 3, n)
    c = (a + b + (rng.random(n) < 0.3)) % 3  # c has two parents: a v-structure
    d = (c + (rng.random(n) < 0.2)) % 2
    e = (b + (rng.random(n) < 0.4)) % 2
    df = pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e})
    G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("b", "e")])
    return tl.fit_cpts(G, df, alpha=0.5)


def cases(xy):
    return {
        "tree": tree_model(1),
        "tree3": tree_model(2, d=5, cards=[3, 3, 2, 4, 2]),
        "forest": forest_model(4),
        "tan": tan_model(xy).model_,
        "naive_bayes": tl.NaiveBayes(alpha=0.5).fit(*xy).model_,
        "polytree": polytree_model(),
    }


def some_evidence(model, rng, k):
    vs = [model.variables[i] for i in rng.choice(len(model.variables), size=k, replace=False)]
    return {v: model.states[v][int(rng.integers(len(model.states[v])))] for v in vs}


# ---------------------------------------------------------------- brute force
@pytest.mark.parametrize("name", ["tree", "tree3", "forest", "tan", "naive_bayes", "polytree"])
def test_marginals_query_map_equal_brute_force(name, xy):
    model = cases(xy)[name]
    assert model.inference_path.startswith("message passing")
    joint = joint_table(model)
    assert joint.sum() == pytest.approx(1.0, abs=1e-12)
    rng = np.random.default_rng(len(name))
    for k in (0, 1, 2, 3):
        evidence = some_evidence(model, rng, k)
        if restrict(model, joint, evidence).sum() == 0:
            continue
        marg = model.marginals(evidence)
        assert set(marg) == {v for v in model.variables if v not in evidence}
        for v, series in marg.items():
            assert list(series.index) == model.states[v]
            np.testing.assert_allclose(
                series.to_numpy(), marginal_table(model, joint, [v], evidence), rtol=0, atol=TOL
            )
        free = [v for v in model.variables if v not in evidence]
        for q in ([free[0]], free[-2:]):
            got = model.query(q, evidence).to_numpy()
            np.testing.assert_allclose(
                got, marginal_table(model, joint, q, evidence).ravel(), rtol=0, atol=TOL
            )
        assignment, log_p = model.map_query(evidence, return_log_prob=True)
        assert set(assignment) == set(free)
        assert log_p == pytest.approx(max_log_probability(model, joint, evidence), abs=TOL)
        full = {**evidence, **assignment}  # the assignment itself scores log_p
        assert np.log(restrict(model, joint, full).sum()) == pytest.approx(log_p, abs=TOL)


@pytest.mark.parametrize("name", ["tree", "forest", "tan", "polytree"])
def test_predict_proba_with_missing_values_equals_brute_force(name, xy):
    model = cases(xy)[name]
    joint = joint_table(model)
    rng = np.random.default_rng(7)
    rows = model.sample(40, random_state=1).astype(object)
    rows = rows.mask(rng.random(rows.shape) < 0.35)  # NaN = unobserved
    rows["extra"] = "ignored"
    for target in (model.variables[0], model.variables[-1], model.variables[2]):
        got = model.predict_proba(rows, target)
        assert list(got.columns) == model.states[target] and got.index.equals(rows.index)
        for r in range(len(rows)):
            evidence = {
                v: rows[v].iloc[r]
                for v in model.variables
                if v != target and pd.notna(rows[v].iloc[r])
            }
            expected = marginal_table(model, joint, [target], evidence)
            np.testing.assert_allclose(got.iloc[r].to_numpy(), expected, rtol=0, atol=TOL)
        predicted = model.predict(rows, target)
        assert predicted.index.equals(rows.index)
        best = [model.states[target][i] for i in np.argmax(got.to_numpy(), axis=1)]
        assert predicted.tolist() == best


def test_predict_proba_unseen_policy():
    model = tree_model(1)
    rows = pd.DataFrame({0: ["s0", "nope"], 1: ["s1", "s0"]})
    with pytest.raises(tl.UnseenStateError, match="nope"):
        model.predict_proba(rows, 2)
    ignored = model.predict_proba(rows, 2, unseen="ignore")
    expected = model.predict_proba(pd.DataFrame({0: ["s0", None], 1: ["s1", "s0"]}), 2)
    pd.testing.assert_frame_equal(ignored, expected)


def test_classifier_posterior_equals_brute_force_with_missing_features(xy):
    X, y = xy
    for clf in (tl.TAN(alpha=1.0).fit(X, y), tl.NaiveBayes(alpha=0.5).fit(X, y)):
        model = clf.model_
        joint = joint_table(model)
        rows = X.iloc[:25].copy().astype(object)
        rows.iloc[::3, 1] = None
        rows.iloc[::4, 3] = None
        got = clf.predict_proba(rows)
        for r in range(len(rows)):
            evidence = {c: rows[c].iloc[r] for c in rows.columns if pd.notna(rows[c].iloc[r])}
            expected = marginal_table(model, joint, [clf.class_name_], evidence)
            np.testing.assert_allclose(got[r], expected, rtol=0, atol=TOL)


def test_long_chain_map_and_marginals():
    # v0 -> ... -> v299, "stay" with probability 0.9: given both ends equal a, every v is a
    d, T = 300, np.array([[0.9, 0.1], [0.2, 0.8]])
    G = nx.DiGraph([(f"v{i}", f"v{i + 1}") for i in range(d - 1)])
    G.nodes["v0"].update(states=["a", "b"], cpt=np.array([0.5, 0.5]))
    for i in range(1, d):
        G.nodes[f"v{i}"].update(states=["a", "b"], cpt=T)
    m = tl.TreeModel(G, variables=[f"v{i}" for i in range(d)])
    assignment, log_p = m.map_query({"v0": "a", "v299": "a"}, return_log_prob=True)
    assert set(assignment.values()) == {"a"}
    assert log_p == pytest.approx(np.log(0.5) + (d - 1) * np.log(0.9), rel=1e-12)
    # P(v150 | v0 = a, v299 = b): the two halves by matrix powers (Bayes' rule)
    left, right = np.linalg.matrix_power(T, 150)[0], np.linalg.matrix_power(T, 149)[:, 1]
    post = m.marginals({"v0": "a", "v299": "b"})["v150"].to_numpy()
    np.testing.assert_allclose(post, left * right / (left @ right), atol=1e-12)


def test_log_likelihood_of_incomplete_rows_far_below_the_smallest_double():
    # v0 -> ... -> v1499, alternating pairs: P(row) ~ e^-1600; v700 (and v701 in the
    # second row) missing, summed out; the third row is impossible (a zero of the CPT)
    d, T = 1500, np.array([[0.9, 0.1], [0.2, 0.8]])
    Z = np.array([[1.0, 0.0], [0.2, 0.8]])  # v1 given v0: 0 -> 1 impossible
    G = nx.DiGraph([(f"v{i}", f"v{i + 1}") for i in range(d - 1)])
    G.nodes["v0"].update(states=[0, 1], cpt=np.array([0.5, 0.5]))
    G.nodes["v1"].update(states=[0, 1], cpt=Z)
    for i in range(2, d):
        G.nodes[f"v{i}"].update(states=[0, 1], cpt=T)
    m = tl.TreeModel(G, variables=[f"v{i}" for i in range(d)])
    x = (np.arange(d) // 2) % 2  # 0 0 1 1 0 0 ...: v0 = v1 = 0 is possible
    rows = pd.DataFrame([x, x, x], columns=m.variables).astype(object)
    rows.iloc[0, 700] = None
    rows.iloc[1, 700:702] = None
    rows.iloc[2, 1] = 1  # v0 = 0, v1 = 1: impossible
    rows.iloc[2, 900] = None
    steps = np.log([Z[x[0], x[1]]] + [T[x[i - 1], x[i]] for i in range(2, d)])  # log P(v_i | v_i-1)
    full = np.log(0.5) + steps.sum()
    one = full - steps[699] - steps[700] + np.log(T[x[699]] @ T[:, x[701]])
    two = full - steps[699:702].sum() + np.log(T[x[699]] @ T @ T[:, x[702]])
    got = m.log_likelihood(rows, per_row=True)
    assert full < 2 * np.log(np.finfo(float).tiny)  # the case: far below the smallest double
    assert got[0] == pytest.approx(one, rel=1e-12) and got[1] == pytest.approx(two, rel=1e-12)
    assert got[2] == -np.inf


# ---------------------------------------------------------------- pgmpy
@pytest.fixture(scope="module")
def asia_tree():
    return tl.chow_liu(pd.read_csv(os.path.join(DATASETS, "asia.csv")), alpha=0.5)


def test_marginals_and_map_equal_pgmpy(asia_tree):
    from pgmpy.inference import BeliefPropagation, VariableElimination

    m = asia_tree
    bn = m.to_pgmpy()
    evidence = {"smoke": "yes", "xray": "yes"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bp = BeliefPropagation(bn)
        bp.calibrate()
        ours = m.marginals(evidence)
        for v, series in ours.items():
            f = bp.query([v], evidence=evidence, show_progress=False)
            assert list(f.state_names[v]) == list(series.index)
            np.testing.assert_allclose(series.to_numpy(), f.values, rtol=0, atol=TOL)
        ve = VariableElimination(bn)
        free = [v for v in m.variables if v not in evidence]
        theirs = ve.map_query(free, evidence=evidence, show_progress=False)
    _assignment, log_p = m.map_query(evidence, return_log_prob=True)
    # compare log P(assignment, evidence) of both answers (ties may pick other states)
    joint = joint_table(m)
    log_theirs = np.log(restrict(m, joint, {**evidence, **theirs}).sum())
    assert log_p == pytest.approx(log_theirs, abs=TOL)


def test_query_equals_pgmpy_on_a_polytree():
    from pgmpy.inference import VariableElimination

    m = polytree_model()
    assert m.inference_path == "message passing"
    ve = VariableElimination(m.to_pgmpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = ve.query(["a", "b"], evidence={"d": 1}, joint=True, show_progress=False)
    values = np.transpose(f.values, [f.variables.index("a"), f.variables.index("b")])
    np.testing.assert_allclose(
        m.query(["a", "b"], {"d": 1}).to_numpy(), values.ravel(), rtol=0, atol=TOL
    )


# ---------------------------------------------------------------- sampling
def test_conditional_sampling_matches_query(xy):
    for model, evidence in ((tree_model(1), {3: "s1"}), (tan_model(xy).model_, {"x2": "1"})):
        n = 40_000
        s = model.sample(n, evidence=evidence, random_state=0)
        for v, state in evidence.items():
            assert (s[v] == state).all()
        for v in [u for u in model.variables if u not in evidence][:4]:
            p = model.query(v, evidence).to_numpy()
            freq = s[v].value_counts().reindex(model.states[v], fill_value=0).to_numpy() / n
            # within 5 standard errors of the exact posterior
            assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12), v
        a, b = model.variables[1], model.variables[2]  # a pair too: the joint is sampled
        if a not in evidence and b not in evidence:
            p = model.query([a, b], evidence)
            freq = s.groupby([a, b]).size().reindex(p.index, fill_value=0).to_numpy() / n
            assert np.all(np.abs(freq - p.to_numpy()) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12)


def test_sampling_is_reproducible_and_typed():
    m = tl.chow_liu(
        pd.DataFrame(
            {
                "a": [1, 2, 2, 3],
                "b": [True, False, False, True],
                "c": pd.Categorical(["x", "y", "x", "y"]),
            }
        ),
        alpha=0,
    )
    a = m.sample(500, evidence={"a": 2}, random_state=3)
    pd.testing.assert_frame_equal(a, m.sample(500, evidence={"a": 2}, random_state=3))
    assert a.dtypes.tolist() == [m.dtypes[v] for v in m.variables]
    assert (a["b"] == False).all()  # noqa: E712 - a = 2 only occurs with b False
    with pytest.raises(tl.TreelearnError, match="random_state"):
        m.sample(5, {"a": 2})


# ---------------------------------------------------------------- errors and other paths
def test_impossible_evidence_names_the_value():
    m = tl.chow_liu(
        pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["p", "p", "q", "q"], "c": [0, 1, 0, 1]}),
        alpha=0,
    )
    for call in (
        lambda e: m.marginals(e),
        lambda e: m.map_query(e),
        lambda e: m.query("c", e),
        lambda e: m.sample(3, evidence=e),
    ):
        with pytest.raises(tl.TreelearnError, match="probability zero") as info:
            call({"a": "x", "b": "q"})
        assert "together" in str(info.value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division warnings on the way
        with pytest.raises(tl.TreelearnError, match=r"'b' = 'z'|not a state"):
            m.marginals({"b": "z"})


def test_general_dag_falls_back_to_elimination():
    # two diamonds: no single node leaves a forest
    rng = np.random.default_rng(5)
    G = nx.DiGraph()
    for t in "12":
        G.add_edges_from(
            [(f"a{t}", f"b{t}"), (f"a{t}", f"c{t}"), (f"b{t}", f"d{t}"), (f"c{t}", f"d{t}")]
        )
    for v in G:
        ps = sorted(G.predecessors(v))
        G.nodes[v].update(
            states=[0, 1], cpt=rng.dirichlet([1, 1], size=[2] * len(ps) or None), parents=ps
        )
    m = tl.TreeModel(G)
    assert m.inference_path == "variable elimination"
    joint = joint_table(m)
    evidence = {"d1": 1, "b2": 0}
    for v, series in m.marginals(evidence).items():
        np.testing.assert_allclose(
            series.to_numpy(), marginal_table(m, joint, [v], evidence), atol=TOL
        )
    rows = pd.DataFrame({"d1": [1, None], "b2": [0, 1]})
    got = m.predict_proba(rows, "a1")
    np.testing.assert_allclose(
        got.iloc[0], marginal_table(m, joint, ["a1"], {"d1": 1, "b2": 0}), atol=TOL
    )
    # MAP by max-product elimination: its log probability is the joint's largest entry
    for evidence in ({}, {"d1": 1, "b2": 0}):
        assignment, log_p = m.map_query(evidence, return_log_prob=True)
        assert log_p == pytest.approx(max_log_probability(m, joint, evidence), abs=TOL)
        full = {**evidence, **assignment}
        assert np.log(restrict(m, joint, full).sum()) == pytest.approx(log_p, abs=TOL)


def test_tan_uses_the_class_as_conditioner(xy):
    m = tan_model(xy).model_
    joint = joint_table(m)
    for evidence in ({}, {"cls": m.states["cls"][1]}):  # the class alone: nothing else touched
        free = "cls" if not evidence else m.variables[0]
        np.testing.assert_allclose(
            m.query(free, evidence).to_numpy(), marginal_table(m, joint, [free], evidence), atol=TOL
        )
    assert m.inference_path in ("message passing given 'cls'", "message passing")
    # the class node has two parents' worth of MultiIndex in a feature's table
    f = next(v for v in m.variables if len(m.parents(v)) == 2)
    table = m.cpt_frame(f)
    assert isinstance(table.index, pd.MultiIndex)
    assert list(table.index.names) == m.parents(f) and list(table.columns) == m.states[f]
    np.testing.assert_array_equal(table.to_numpy(), m.cpt(f).reshape(-1, len(m.states[f])))
    combos = list(itertools.product(*[m.states[p] for p in m.parents(f)]))
    assert list(table.index) == combos
    root = m.cpt_frame(m.root)
    assert root.shape == (1, len(m.states[m.root]))


# ---------------------------------------------------------------- command line
def _cli(*args, stdin=None):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        [sys.executable, "-m", "treelearn", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin,
    )


def test_cli_map_and_sample_given(tmp_path, asia_tree):
    path = tmp_path / "asia.json"
    asia_tree.save(path)
    out = _cli("query", str(path), "lung", "tub", "--given", "smoke=yes", "--map")
    assert out.returncode == 0, out.stderr
    assignment, log_p = asia_tree.map_query({"smoke": "yes"}, return_log_prob=True)
    assert f"lung = {assignment['lung']}" in out.stdout
    assert f"tub = {assignment['tub']}" in out.stdout
    assert f"{log_p:.6f}" in out.stdout
    out = _cli("sample", str(path), "-n", "50", "--seed", "2", "--given", "lung=yes")
    assert out.returncode == 0, out.stderr
    got = pd.read_csv(__import__("io").StringIO(out.stdout))
    expected = asia_tree.sample(50, evidence={"lung": "yes"}, random_state=2)
    pd.testing.assert_frame_equal(got, expected)


def test_posterior_of_complete_rows_is_the_brute_force_conditional():
    # complete rows take the Markov-blanket path: every configuration of a small tree
    # learned with alpha=0 (zero CPT entries: impossible rows must be NaN), against the
    # joint enumerated as a product of CPT entries, normalised over the target
    import itertools

    rng = np.random.default_rng(3)
    a = rng.integers(0, 3, 40)
    df = pd.DataFrame(
        {
            "a": a,
            "b": (a + rng.integers(0, 2, 40)) % 3,
            "c": a % 2,
            "d": rng.integers(0, 2, 40),
            "e": (a == 0).astype(int),
        }
    )
    m = tl.chow_liu(df, alpha=0)
    vs = m.variables
    states = [range(len(m.states[v])) for v in vs]
    rows = np.array(list(itertools.product(*states)))

    for target in range(len(vs)):
        got = m.engine().posterior_codes(rows, target)
        for r, g in zip(rows, got):
            ps = []
            for t in states[target]:
                x = r.copy()
                x[target] = t
                ps.append(joint_probability_of_codes(m, x))
            ps = np.array(ps)
            if ps.sum() == 0:
                assert np.isnan(g).all()
            else:  # a product of a few CPT entries: round-off only
                np.testing.assert_allclose(g, ps / ps.sum(), rtol=1e-12, atol=1e-15)
