"""Every engine method on DAGs that are no forest, even without one node (variable
elimination behind the same methods), against brute-force enumeration of the joint
and pgmpy's VariableElimination; and the one conditioner rule (engine and explorer).
"""

from __future__ import annotations

import itertools
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import pgmpy_example
from oracles import joint_table, marginal_table, max_log_probability, restrict

import treelearn as tl
from treelearn.inference import _elimination
from treelearn.inference._conditioner import choose_conditioner, leaves_forest
from treelearn.inference._engine import TreeEngine
from treelearn.viz._explorer import explorer_spec

TOL = 1e-10
#: a node of three parents (d), two of them linked (a -> c), and cycles below it
PARENTS = {
    "a": [],
    "b": [],
    "c": ["a"],
    "d": ["a", "b", "c"],
    "e": ["d"],
    "f": ["d", "e"],
    "g": ["b", "f"],
}
CARD = {"a": 2, "b": 3, "c": 2, "d": 3, "e": 2, "f": 2, "g": 2}


def general_model(seed: int = 0, zeros: bool = False) -> tl.TreeModel:
    rng = np.random.default_rng(seed)
    G = nx.DiGraph()
    G.add_nodes_from(PARENTS)
    for v, ps in PARENTS.items():
        G.add_edges_from((p, v) for p in ps)
        t = rng.dirichlet(np.ones(CARD[v]), size=[CARD[p] for p in ps] or None)
        if zeros and v == "e":
            t[0] = [1.0, 0.0]  # e = 1 impossible when d = 0
        G.nodes[v].update(states=[f"{v}{i}" for i in range(CARD[v])], cpt=t, parents=ps)
    return tl.TreeModel(G, variables=list(PARENTS))


@pytest.fixture(scope="module")
def model():
    m = general_model()
    assert m.inference_path == "variable elimination"
    return m


def incomplete_rows(model, n: int, seed: int, missing: float = 0.4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = model.sample(n, random_state=seed).astype(object)
    rows = rows.mask(rng.random(rows.shape) < missing)
    return pd.concat([rows, rows.iloc[:5]], ignore_index=True)  # repeated rows too


def row_evidence(rows: pd.DataFrame, r: int, skip=()) -> dict:
    return {v: rows[v].iloc[r] for v in rows.columns if v not in skip and pd.notna(rows[v].iloc[r])}


# ---------------------------------------------------------------- brute force
def test_log_likelihood_of_incomplete_rows(model):
    joint = joint_table(model)
    rows = incomplete_rows(model, 60, seed=1)
    got = model.log_likelihood(rows, per_row=True)
    for r in range(len(rows)):
        want = np.log(restrict(model, joint, row_evidence(rows, r)).sum())
        assert got[r] == pytest.approx(want, abs=TOL)


def test_log_evidence_by_conditioner_for_any_conditioner(model):
    joint = joint_table(model)
    codes = model.encode(incomplete_rows(model, 40, seed=2)).codes.astype(np.int64)
    for g in ("d", "b", "a"):
        engine = model.engine(g)
        assert engine.path == "variable elimination" and engine.conditioner == g
        by = engine.log_evidence_by_conditioner(codes)
        assert by.shape == (len(codes), CARD[g])
        j = model.variables.index(g)
        for r, row in enumerate(codes):
            evidence = {v: model.states[v][c] for v, c in zip(model.variables, row) if c >= 0}
            for s in range(CARD[g]):
                if row[j] >= 0 and row[j] != s:
                    assert by[r, s] == -np.inf
                    continue
                p = restrict(model, joint, {**evidence, g: model.states[g][s]}).sum()
                assert by[r, s] == pytest.approx(np.log(p), abs=TOL)
        np.testing.assert_allclose(
            np.logaddexp.reduce(by, axis=1), engine.log_evidence(codes), atol=TOL
        )


def test_posterior_of_a_target_per_row(model):
    joint = joint_table(model)
    rows = incomplete_rows(model, 40, seed=3)
    for target in ("a", "d", "g"):
        got = model.predict_proba(rows, target)
        for r in range(len(rows)):
            want = marginal_table(model, joint, [target], row_evidence(rows, r, skip=[target]))
            np.testing.assert_allclose(got.iloc[r].to_numpy(), want, rtol=0, atol=TOL)


def test_all_marginals_per_row_and_queries(model):
    joint = joint_table(model)
    rows = incomplete_rows(model, 30, seed=4)
    codes = model.encode(rows).codes.astype(np.int64)
    marginals = model.engine().marginals_codes(codes)
    for r in range(len(rows)):
        evidence = row_evidence(rows, r)
        for i, v in enumerate(model.variables):
            if v in evidence:  # an observed variable: its one-hot row
                want = np.eye(CARD[v])[model.states[v].index(evidence[v])]
            else:
                want = marginal_table(model, joint, [v], evidence)
            np.testing.assert_allclose(marginals[i][r], want, rtol=0, atol=TOL)
    for evidence in ({}, {"g": "g1"}, {"e": "e0", "b": "b2"}):
        for v, series in model.marginals(evidence).items():
            np.testing.assert_allclose(
                series.to_numpy(), marginal_table(model, joint, [v], evidence), atol=TOL
            )
        free = [v for v in model.variables if v not in evidence]
        for q in (free[:1], free[-2:], free[:3]):
            np.testing.assert_allclose(
                model.query(q, evidence).to_numpy(),
                marginal_table(model, joint, q, evidence).ravel(),
                atol=TOL,
            )


def test_map_per_row_and_map_query(model):
    joint = joint_table(model)
    rows = incomplete_rows(model, 30, seed=5)
    codes = model.encode(rows).codes.astype(np.int64)
    best, log_p = model.engine().map_codes(codes)
    for r, row in enumerate(codes):
        evidence = {v: model.states[v][c] for v, c in zip(model.variables, row) if c >= 0}
        assert log_p[r] == pytest.approx(max_log_probability(model, joint, evidence), abs=TOL)
        observed = row >= 0
        np.testing.assert_array_equal(best[r, observed], row[observed])  # evidence stays
        full = {v: model.states[v][c] for v, c in zip(model.variables, best[r])}
        assert np.log(restrict(model, joint, full).sum()) == pytest.approx(log_p[r], abs=TOL)
    assignment, lp = model.map_query({"f": "f1"}, return_log_prob=True)
    assert lp == pytest.approx(max_log_probability(model, joint, {"f": "f1"}), abs=TOL)
    assert np.log(restrict(model, joint, {**assignment, "f": "f1"}).sum()) == pytest.approx(
        lp, abs=TOL
    )


def test_sampling_given_evidence_matches_the_posterior(model):
    n = 40_000
    evidence = {"g": "g0", "c": "c1"}
    s = model.sample(n, evidence=evidence, random_state=0)
    assert (s["g"] == "g0").all() and (s["c"] == "c1").all()
    joint = joint_table(model)
    for q in (["a"], ["d"], ["e", "f"], ["a", "b", "d"]):
        p = marginal_table(model, joint, q, evidence).ravel()
        index = pd.MultiIndex.from_product([model.states[v] for v in q])
        freq = s.groupby(q).size() if len(q) > 1 else s[q[0]].value_counts()
        freq = (
            freq.reindex(index if len(q) > 1 else model.states[q[0]], fill_value=0).to_numpy() / n
        )
        # within 5 standard errors of the exact posterior
        assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12), q
    again = model.sample(500, evidence=evidence, random_state=3)
    pd.testing.assert_frame_equal(again, model.sample(500, evidence=evidence, random_state=3))


def test_impossible_evidence_and_rows():
    m = general_model(zeros=True)
    assert m.inference_path == "variable elimination"
    evidence = {"d": "d0", "e": "e1"}
    for call in (
        lambda e: m.marginals(e),
        lambda e: m.map_query(e),
        lambda e: m.query("a", e),
        lambda e: m.sample(3, evidence=e),
    ):
        with pytest.raises(tl.TreelearnError, match="probability zero"):
            call(evidence)
    rows = pd.DataFrame({"d": ["d0", "d0"], "e": ["e1", "e0"]}).reindex(columns=m.variables)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division warnings on the way
        ll = m.log_likelihood(rows, per_row=True)
        codes = m.encode(rows).codes.astype(np.int64)
        marginals = m.engine().marginals_codes(codes)
        _best, log_p = m.engine().map_codes(codes)
    assert ll[0] == -np.inf and np.isfinite(ll[1])
    assert log_p[0] == -np.inf and np.isfinite(log_p[1])
    assert all(np.isnan(t[0]).all() and np.isfinite(t[1]).all() for t in marginals)
    with pytest.raises(tl.TreelearnError, match="probability zero"):
        m.predict_proba(rows.iloc[:1], "a")


def test_rows_of_many_patterns_take_one_elimination(model, monkeypatch):
    rows = incomplete_rows(model, 400, seed=6)
    codes = model.encode(rows).codes.astype(np.int64)
    calls = []
    original = _elimination.eliminate
    monkeypatch.setattr(
        _elimination, "eliminate", lambda *a, **k: calls.append(1) or original(*a, **k)
    )
    engine = TreeEngine(model.variables, model.parent_map, model.cpts, model.states)
    got = engine.log_evidence(codes)
    assert len(calls) == 1 < len({tuple(row) for row in (codes >= 0)})  # many patterns
    # the same numbers as one row at a time (each its own pattern: its CPTs reduced)
    one_by_one = np.array([engine.log_evidence(row[None])[0] for row in codes])
    assert len(calls) == 1 + len(codes)
    np.testing.assert_allclose(got, one_by_one, rtol=0, atol=1e-12)


def test_chunked_eliminations_give_the_same_numbers(model, monkeypatch):
    codes = model.encode(incomplete_rows(model, 200, seed=7)).codes.astype(np.int64)
    engine = TreeEngine(model.variables, model.parent_map, model.cpts, model.states)
    whole = engine.log_evidence(codes)
    monkeypatch.setattr(_elimination, "_CELLS", 7)  # a few rows per elimination
    engine = TreeEngine(model.variables, model.parent_map, model.cpts, model.states)
    np.testing.assert_allclose(engine.log_evidence(codes), whole, rtol=0, atol=1e-12)
    monkeypatch.setattr(_elimination, "_CELLS", 1 << 21)
    monkeypatch.setattr(_elimination, "_MIXED_WIDTH", 0)  # one pattern per elimination
    engine = TreeEngine(model.variables, model.parent_map, model.cpts, model.states)
    calls = []
    original = _elimination.eliminate
    monkeypatch.setattr(
        _elimination, "eliminate", lambda *a, **k: calls.append(1) or original(*a, **k)
    )
    np.testing.assert_allclose(engine.log_evidence(codes), whole, rtol=0, atol=1e-12)
    assert len(calls) == len({tuple(row) for row in (codes >= 0)})
    for t in range(len(model.variables)):  # and the posteriors
        np.testing.assert_allclose(
            engine.posterior_codes(codes, t), model.engine().posterior_codes(codes, t), atol=1e-12
        )


def test_many_factors_and_tiny_probabilities_do_not_underflow():
    # naive Bayes over 1000 features, plus two diamonds: no one conditioner; P(row) ~ e^-900
    d, F = 1000, np.array([[0.9, 0.1], [0.2, 0.8]])
    G = nx.DiGraph(
        [("y", f"f{i}") for i in range(d)]
        + [("f0", "z"), ("f1", "z")]
        + [("p", "q"), ("p", "r"), ("q", "s"), ("r", "s")]
    )
    G.nodes["y"].update(states=[0, 1], cpt=np.array([0.5, 0.5]))
    for i in range(d):
        G.nodes[f"f{i}"].update(states=[0, 1], cpt=F)
    Z = np.array([[[0.7, 0.3], [0.4, 0.6]], [[0.5, 0.5], [0.1, 0.9]]])
    G.nodes["z"].update(states=[0, 1], cpt=Z, parents=["f0", "f1"])
    G.nodes["p"].update(states=[0, 1], cpt=np.array([0.3, 0.7]))
    for v in "qr":
        G.nodes[v].update(states=[0, 1], cpt=F)
    S = np.full((2, 2, 2), 0.5)
    G.nodes["s"].update(states=[0, 1], cpt=S, parents=["q", "r"])
    m = tl.TreeModel(G)
    assert m.inference_path == "variable elimination"
    x = np.arange(d) % 2
    row = {
        "y": None,
        **{f"f{i}": int(x[i]) for i in range(d)},
        "z": 1,
        "p": None,
        "q": None,
        "r": None,
        "s": 0,
    }
    by_class = np.log(0.5) + np.array([np.log(F[c, x]).sum() for c in (0, 1)])
    expected = np.logaddexp.reduce(by_class) + np.log(Z[0, 1, 1]) + np.log(0.5)
    assert expected < np.log(np.finfo(float).tiny)
    assert m.log_likelihood(pd.DataFrame([row], dtype=object)) == pytest.approx(expected, rel=1e-12)
    evidence = {k: v for k, v in row.items() if v is not None}
    post = m.query("y", evidence=evidence)
    np.testing.assert_allclose(
        post.to_numpy(), np.exp(by_class - np.logaddexp.reduce(by_class)), rtol=1e-10
    )
    # MAP: the best class, and the best (p, q, r) by enumeration (s's CPT is flat)
    diamond = max(
        np.log([0.3, 0.7][p] * F[p, q] * F[p, r] * 0.5)
        for p, q, r in itertools.product([0, 1], repeat=3)
    )
    assignment, log_p = m.map_query(evidence, return_log_prob=True)
    assert assignment["y"] == int(np.argmax(by_class))
    assert log_p == pytest.approx(by_class.max() + np.log(Z[0, 1, 1]) + diamond, rel=1e-12)
    # and sampling given that evidence: the class drawn by its posterior
    s = m.sample(4000, evidence=evidence, random_state=0)
    p1 = post.to_numpy()[1]
    assert abs((s["y"] == 1).mean() - p1) <= 5 * np.sqrt(p1 * (1 - p1) / 4000) + 1e-12


# ---------------------------------------------------------------- pgmpy on a bundled network
@pytest.fixture(scope="module")
def alarm():
    raw = tl.from_pgmpy(pgmpy_example("alarm"))
    # its CPT rows sum to 1 within 1e-8 only; pgmpy drops barren nodes, whose row sums then
    # do not count: renormalised, both answer the same model
    G = raw.graph.copy()
    for v in G:
        G.nodes[v]["cpt"] = G.nodes[v]["cpt"] / G.nodes[v]["cpt"].sum(axis=-1, keepdims=True)
    return tl.TreeModel(G, variables=raw.variables)


def test_alarm_marginals_posteriors_and_likelihood_equal_pgmpy(alarm):
    from pgmpy.inference import VariableElimination

    m = alarm
    assert m.inference_path == "variable elimination"
    ve = VariableElimination(m.to_pgmpy())
    rows = m.sample(12, random_state=0).astype(object)
    rows = rows.mask(np.random.default_rng(0).random(rows.shape) < 0.8)  # mostly missing
    ll = m.log_likelihood(rows, per_row=True)
    target = "HYPOVOLEMIA"
    proba = m.predict_proba(rows, target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(len(rows)):
            evidence = row_evidence(rows, r)
            # log P(evidence) by the chain rule, one pgmpy query per observed variable
            want, given = 0.0, {}
            for v, s in evidence.items():
                f = ve.query([v], evidence=given or None, show_progress=False)
                want += np.log(f.values[list(f.state_names[v]).index(s)])
                given[v] = s
            assert ll[r] == pytest.approx(want, abs=1e-9)
            given = {v: s for v, s in evidence.items() if v != target}
            f = ve.query([target], evidence=given or None, show_progress=False)
            assert list(f.state_names[target]) == list(proba.columns)
            np.testing.assert_allclose(proba.iloc[r].to_numpy(), f.values, atol=1e-9)
        evidence = {"HRBP": "HIGH", "CO": "LOW", "BP": "LOW"}
        for v, series in m.marginals(evidence).items():
            f = ve.query([v], evidence=evidence, show_progress=False)
            np.testing.assert_allclose(series.to_numpy(), f.values, atol=1e-9)


def test_alarm_map_scores_its_own_assignment_and_beats_every_one_change(alarm):
    m = alarm
    evidence = {"HRBP": "HIGH", "CO": "LOW", "BP": "LOW"}
    assignment, log_p = m.map_query(evidence, return_log_prob=True)
    full = {**assignment, **evidence}
    assert m.log_likelihood(pd.DataFrame([full])) == pytest.approx(log_p, abs=1e-9)
    changed = pd.DataFrame([{**full, v: s} for v in assignment for s in m.states[v]])
    assert m.log_likelihood(changed, per_row=True).max() <= log_p + 1e-9  # no change scores higher


# ---------------------------------------------------------------- the one conditioner rule
def test_conditioner_rule_finds_one_exactly_when_one_exists():
    # random DAGs of up to 7 nodes: the rule's answer against trying every node
    rng = np.random.default_rng(11)
    for _trial in range(300):
        d = int(rng.integers(2, 8))
        p = rng.uniform(0.1, 0.6)
        parents = {v: [u for u in range(v) if rng.random() < p] for v in range(d)}
        for pairwise in (False, True):
            ok, g = choose_conditioner(parents, pairwise=pairwise)
            if leaves_forest(parents, None, pairwise):
                assert (ok, g) == (True, None)
                continue
            works = [v for v in parents if leaves_forest(parents, v, pairwise)]
            assert ok == bool(works), (parents, pairwise)
            if ok:
                assert g in works


def test_a_low_degree_conditioner_is_found():
    # a triangle x -> u -> w, x -> w, which only x or u breaks (degree 2 each), below w nine
    # hubs of five leaves each: many nodes of higher degree than the conditioner
    parents = {
        "x": [],
        "u": ["x"],
        "w": ["x", "u"],
        **{f"h{i}": ["w"] for i in range(9)},
        **{f"l{i}{j}": [f"h{i}"] for i in range(9) for j in range(5)},
    }
    ok, g = choose_conditioner(parents)
    assert ok and g in ("x", "u") and leaves_forest(parents, g)
    assert not leaves_forest(parents, "w") and not leaves_forest(parents, None)
    cpts = {v: np.full([2] * (len(ps) + 1), 0.5) for v, ps in parents.items()}
    engine = TreeEngine(list(parents), parents, cpts, {key: [0, 1] for key in parents})
    assert engine.path == f"message passing given {g!r}"


def test_the_engine_and_the_explorer_take_the_rule_s_conditioner():
    rng = np.random.default_rng(4)
    df = pd.DataFrame(rng.integers(0, 2, (200, 5)), columns=list("abcde"))
    # c has the parents a and b (a v-structure), d -> e: the engine needs no conditioner
    # (a polytree), the explorer's page computes with one-parent forests: given a root of c
    polytree = tl.fit_cpts(
        nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("d", "e")]), df, alpha=1.0
    )
    assert polytree.inference_path == "message passing"
    parents = polytree.parent_map
    assert choose_conditioner(parents, pairwise=True) == (True, "a")
    spec = explorer_spec(polytree)
    assert spec["cond"] == polytree.variables.index("a") and len(spec["components"]) == 2
    # TAN: the class, for the engine and the page alike
    X, y = df.drop(columns="e"), df["e"].rename("cls")
    tan = tl.TAN(alpha=1.0).fit(X, y)
    assert tan.model_.inference_path == "message passing given 'cls'"
    assert choose_conditioner(tan.model_.parent_map, pairwise=True) == (True, "cls")
    spec = explorer_spec(tan)
    assert spec["cond"] == tan.model_.variables.index("cls")
    # a triangle and a v-structure: one node (a) serves both
    tri = tl.fit_cpts(
        nx.DiGraph([("a", "b"), ("a", "c"), ("b", "c"), ("d", "e"), ("a", "e")]), df, alpha=1.0
    )
    assert tri.inference_path == "message passing given 'a'"
    assert explorer_spec(tri)["cond"] == tri.variables.index("a")
    # two v-structures: the engine still passes messages (a polytree); the page has no one
    # conditioner and conditions on a cutset instead. By hand, the greedy rule (the parent
    # shared by most over-parented variables, then fewer states, then the variables' order):
    # c's parents {a, b} and e's {c, d} all tie at 1, so a; then e alone has two, c before d.
    # One forest per joint state of {a, c} (2 x 2); tests/test_explorer_dags.py checks the
    # page's marginals against the engine
    two = tl.fit_cpts(nx.DiGraph([("a", "c"), ("b", "c"), ("c", "e"), ("d", "e")]), df)
    assert two.inference_path == "message passing"
    spec = explorer_spec(two)
    assert spec["cond"] == -1 and len(spec["components"]) == 4
    fixed = {tuple(two.variables[v] for v, _ in comp["fixed"]) for comp in spec["components"]}
    assert fixed == {("a", "c")}


def test_every_conditioner_gives_the_same_answers():
    # a triangle a, b, c with a tail: a or b can each be the conditioner (not c: its CPT
    # would still link a and b)
    parents = {"a": [], "b": ["a"], "c": ["a", "b"], "d": ["c"]}
    rng = np.random.default_rng(2)
    cpts = {v: rng.dirichlet(np.ones(2), size=[2] * len(ps) or None) for v, ps in parents.items()}
    states = {key: [0, 1] for key in parents}
    codes = np.array(list(itertools.product([-1, 0, 1], repeat=4)))
    engines = [TreeEngine(list(parents), parents, cpts, states, conditioner=g) for g in "ab"]
    assert [e.path for e in engines] == [f"message passing given {g!r}" for g in "ab"]
    general = TreeEngine(list(parents), parents, cpts, states, conditioner="d")
    assert general.path == "variable elimination"
    want = general.log_evidence(codes)
    for e in engines:
        np.testing.assert_allclose(e.log_evidence(codes), want, atol=1e-12)
        for t in range(4):
            np.testing.assert_allclose(
                e.posterior_codes(codes, t), general.posterior_codes(codes, t), atol=1e-12
            )
