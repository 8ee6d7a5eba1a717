"""MixtureModel (models/_mixture.py): every answer of a mixture of trees or of cutset
networks against the full joint, enumerated here from the CPTs (products of entries
multiplied out in plain Python) or, for cutset components, from each component's
probabilities of the complete rows summed by hand."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import all_rows, mixture_table, rows_given

import treelearn as tl
from treelearn.models._mixture import MixtureModel

STATES = {"a": ["x", "y"], "b": [0, 1, 2], "c": [False, True]}
VARS = list(STATES)


def _tree(edges: list, seed: int) -> tl.TreeModel:
    rng = np.random.default_rng(seed)
    G = nx.DiGraph()
    parent = {c: p for p, c in edges}
    for v in VARS:
        k = len(STATES[v])
        shape = (len(STATES[parent[v]]), k) if v in parent else (k,)
        G.add_node(v, states=STATES[v], cpt=rng.dirichlet(np.ones(k), size=shape[:-1] or None))
    G.add_edges_from(edges)
    return tl.TreeModel(G, variables=VARS)


@pytest.fixture(scope="module")
def mixture() -> MixtureModel:
    return MixtureModel(
        [_tree([("a", "b"), ("b", "c")], 1), _tree([("c", "a"), ("c", "b")], 2)], [0.3, 0.7]
    )


def test_scores_of_complete_and_holed_rows_are_sums_of_the_joint(mixture):
    table = mixture_table(mixture.weights, mixture.components)
    assert table["p"].sum() == pytest.approx(1.0, abs=1e-14)
    rows = pd.DataFrame({"a": ["x", None, "y"], "b": [2, 1, None], "c": [True, None, None]})
    want = [
        rows_given(table, {"a": "x", "b": 2, "c": True})["p"].sum(),
        rows_given(table, {"b": 1})["p"].sum(),
        rows_given(table, {"a": "y"})["p"].sum(),
    ]
    np.testing.assert_allclose(np.exp(mixture.score_samples(rows)), want, rtol=1e-13)
    # P(component | row)
    for r, evidence in enumerate(({"a": "x", "b": 2, "c": True}, {"b": 1}, {"a": "y"})):
        part = rows_given(table, evidence)
        want = np.array([part["p0"].sum(), part["p1"].sum()]) / part["p"].sum()
        np.testing.assert_allclose(mixture.component_proba(rows)[r], want, rtol=1e-12)
        np.testing.assert_allclose(mixture.component_posterior(evidence), want, rtol=1e-12)


def test_query_marginals_and_predict_proba_equal_the_joint(mixture):
    table = mixture_table(mixture.weights, mixture.components)
    part = rows_given(table, {"a": "y"})
    want = part.groupby(["b", "c"])["p"].sum() / part["p"].sum()
    got = mixture.query(["b", "c"], {"a": "y"})
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-12)
    marginals = mixture.marginals({"c": False})
    assert set(marginals) == {"a", "b"}
    part = rows_given(table, {"c": False})
    for v in ("a", "b"):
        want = part.groupby(v)["p"].sum() / part["p"].sum()
        np.testing.assert_allclose(marginals[v].to_numpy(), want.to_numpy(), rtol=1e-12)
    # predict_proba of b: a row with a missing cell, a row without the column c at all
    rows = pd.DataFrame({"a": ["x", None], "b": [0, 1]}, index=[10, 11])
    proba = mixture.predict_proba(rows, "b")
    assert list(proba.index) == [10, 11] and list(proba.columns) == [0, 1, 2]
    for r, evidence in enumerate(({"a": "x"}, {})):
        part = rows_given(table, evidence)
        want = part.groupby("b")["p"].sum() / part["p"].sum()
        np.testing.assert_allclose(proba.iloc[r].to_numpy(), want.to_numpy(), rtol=1e-12)
    assert mixture.predict(rows, "b").tolist() == proba.to_numpy().argmax(axis=1).tolist()


def test_conditional_samples_follow_the_joint(mixture):
    table = mixture_table(mixture.weights, mixture.components)
    drawn, which = mixture.sample(
        40_000, random_state=0, evidence={"a": "x"}, return_components=True
    )
    assert (drawn["a"] == "x").all() and len(which) == 40_000
    part = rows_given(table, {"a": "x"})
    want = part.groupby(["b", "c"])["p"].sum() / part["p"].sum()
    freq = drawn.groupby(["b", "c"]).size() / len(drawn)
    np.testing.assert_allclose(freq.reindex(want.index).to_numpy(), want.to_numpy(), atol=0.01)
    assert abs(np.mean(which == 0) - part["p0"].sum() / part["p"].sum()) < 0.01
    plain = mixture.sample(10, random_state=1)
    assert list(plain.columns) == VARS and len(plain) == 10


def test_parameters_text_and_refusals(mixture):
    # each tree: a root (k - 1) and two children ((k - 1) x parent states); one weight
    assert mixture.n_parameters == (1 + 2 * 2 + 1 * 3) + (1 + 1 * 2 + 2 * 2) + 1
    text = mixture.to_text()
    assert text.splitlines()[0] == "MixtureModel: 2 components over 3 variables, 16 parameters"
    assert "component 1 (weight 0.7):" in text and "    └── " in text
    with pytest.raises(tl.CapabilityError, match="does not answer map"):
        mixture.require("map")
    # a likelihood is taken now (issue 40: test_soft_evidence_ensembles.py); a bad one not
    with pytest.raises(tl.TreelearnError, match=r"'b': the likelihood .* negative weight"):
        mixture.query("a", {"b": [0.2, -0.3, 0.5]})
    with pytest.raises(tl.ColumnNotFoundError, match="'z'"):
        mixture.query("a", {"z": 1})
    with pytest.raises(tl.TreelearnError, match="summing to 1"):
        MixtureModel(mixture.components, [0.5, 0.6])
    other = tl.chow_liu(pd.DataFrame({"a": ["x", "y"], "b": [0, 1], "c": [False, True]}))
    with pytest.raises(tl.TreelearnError, match="component 1 has other variables or states"):
        MixtureModel([mixture.components[0], other], [0.5, 0.5])


def test_files_check_every_field(mixture, tmp_path):
    d = mixture.to_dict()
    back = MixtureModel.from_dict(d)
    assert all(a == b for a, b in zip(back.components, mixture.components))
    np.testing.assert_array_equal(back.weights, mixture.weights)
    for change, field in [
        (lambda d: d.update(weights=[0.5, 0.6]), "weights"),
        (lambda d: d.update(weights=[0.3, "0.7"]), "weights"),
        (lambda d: d.update(weights=[1.0]), "weights"),
        (lambda d: d.update(component_kind="gaussian_tree"), "component_kind"),
        (lambda d: d.pop("components"), "components"),
        (lambda d: d.update(components=[]), "components"),
    ]:
        bad = mixture.to_dict()
        change(bad)
        with pytest.raises(tl.InvalidModelError, match=f"field '{field}'"):
            MixtureModel.from_dict(bad)
    tl.save(mixture, tmp_path / "m.json")
    np.testing.assert_array_equal(
        tl.load(tmp_path / "m.json").score_samples(
            mixture_table(mixture.weights, mixture.components)[VARS]
        ),
        mixture.score_samples(mixture_table(mixture.weights, mixture.components)[VARS]),
    )


def test_a_mixture_of_cutset_networks_answers_as_its_joint():
    rng = np.random.default_rng(0)
    n = 2000
    a = rng.integers(0, 2, n)
    b = (a ^ (rng.random(n) < 0.2)).astype(int)
    c = np.where(a == 1, rng.integers(0, 3, n), b)
    df = pd.DataFrame({"a": a, "b": b, "c": c})
    bag = tl.CutsetNetwork(max_depth=1, min_rows=10, n_estimators=3, random_state=0).fit(df)
    model = bag.model_
    assert isinstance(model, MixtureModel) and model.component_kind == "cutset_network"
    rows = all_rows("abc", [[0, 1], [0, 1], [0, 1, 2]])
    # the oracle: each network's complete-row probabilities (tests/test_cutset.py checks
    # those against brute force), weighted and summed here
    each = np.column_stack([np.exp(net.score_samples(rows)) for net in model.components])
    p = each @ model.weights
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    holed = pd.DataFrame({"a": [1, None], "b": [None, 0], "c": [2, None]})
    for r in range(2):
        keep = np.all([rows[v] == holed[v][r] for v in "abc" if pd.notna(holed[v][r])], axis=0)
        assert np.exp(model.score_samples(holed.iloc[[r]]))[0] == pytest.approx(p[keep].sum())
        proba = model.predict_proba(holed.iloc[[r]], "c").to_numpy()[0]
        others = np.all([rows[v] == holed[v][r] for v in "ab" if pd.notna(holed[v][r])], axis=0)
        want = np.array([p[others & (rows["c"] == s)].sum() for s in range(3)])
        np.testing.assert_allclose(proba, want / want.sum(), rtol=1e-12)
    keep = rows["a"] == 1
    want = pd.Series(p[keep]).groupby(rows["c"][keep].to_numpy()).sum()
    np.testing.assert_allclose(
        model.query("c", {"a": 1}).to_numpy(), (want / want.sum()).to_numpy(), rtol=1e-12
    )
    np.testing.assert_allclose(
        model.marginals({"a": 1})["c"].to_numpy(), (want / want.sum()).to_numpy(), rtol=1e-12
    )
    drawn = model.sample(3000, random_state=0, evidence={"a": 1})
    assert (drawn["a"] == 1).all()
    for capability in ("explain", "map"):
        with pytest.raises(tl.CapabilityError):
            model.require(capability)
    # drawn since issue 39 item 6 (each distinct network's OR-tree once; the pictures'
    # structure against the model's in test_cutset_pictures.py)
    model.require("draw")
    assert "subgraph cluster_s0" in model.to_dot()
    # numbers=True turns binned columns into numbers; these columns are no bins, so the
    # same draws come back as labels
    pd.testing.assert_frame_equal(
        model.sample(50, random_state=3, numbers=True), model.sample(50, random_state=3)
    )
