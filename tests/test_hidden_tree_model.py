"""HiddenTreeModel (models/_hidden_tree.py): every answer over the observed columns
against brute force over the latent states (the joint enumerated here from the CPTs)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import marginal_rows, rows_given

import treelearn as tl
from treelearn.models._hidden_tree import HiddenTreeModel

COLUMNS = {"a": ["u", "v"], "b": [0, 1, 2], "c": ["p", "q"]}
LATENT = ["H_a", "H_b", "H_c"]
UP = {"H_b": "H_a", "H_c": "H_a"}  # the latent tree: H_a above H_b and H_c
H = 2


def _model(seed: int = 0, tied: bool = False) -> HiddenTreeModel:
    rng = np.random.default_rng(seed)
    G = nx.DiGraph()
    for lat in LATENT:
        shape = (H, H) if lat in UP else (H,)
        cpt = rng.dirichlet(np.ones(H), size=shape[:-1] or None)
        G.add_node(lat, states=list(range(H)), cpt=cpt)
    for lat, col in zip(LATENT, COLUMNS):
        G.add_node(col, states=COLUMNS[col], cpt=rng.dirichlet(np.ones(len(COLUMNS[col])), size=H))
        G.add_edge(lat, col)
    G.add_edges_from((p, c) for c, p in UP.items())
    return HiddenTreeModel(tl.TreeModel(G, variables=[*LATENT, *COLUMNS]), LATENT, tied)


@pytest.fixture(scope="module")
def model():
    return _model()


def test_scores_queries_and_marginals_sum_the_latents_out(model):
    table = marginal_rows(model.network, list(COLUMNS))
    assert model.variables == list(COLUMNS) and model.latent == LATENT
    assert table["p"].sum() == pytest.approx(1.0, abs=1e-14)
    rows = pd.DataFrame({"a": ["u", None], "b": [2, 0], "c": [None, None]})
    want = [
        rows_given(table, {"a": "u", "b": 2})["p"].sum(),
        rows_given(table, {"b": 0})["p"].sum(),
    ]
    np.testing.assert_allclose(np.exp(model.score_samples(rows)), want, rtol=1e-13)
    part = rows_given(table, {"c": "q"})
    want = part.groupby(["a", "b"])["p"].sum() / part["p"].sum()
    np.testing.assert_allclose(
        model.query(["a", "b"], {"c": "q"}).to_numpy(), want.to_numpy(), rtol=1e-12
    )
    marginals = model.marginals({"c": "q"})
    assert set(marginals) == {"a", "b"}  # no latent
    want = part.groupby("b")["p"].sum() / part["p"].sum()
    np.testing.assert_allclose(marginals["b"].to_numpy(), want.to_numpy(), rtol=1e-12)
    proba = model.predict_proba(pd.DataFrame({"a": ["v"], "H_a": [0]}), "b")  # H_a ignored
    part = rows_given(table, {"a": "v"})
    want = part.groupby("b")["p"].sum() / part["p"].sum()
    np.testing.assert_allclose(proba.to_numpy()[0], want.to_numpy(), rtol=1e-12)
    with pytest.raises(tl.ColumnNotFoundError, match="'H_a' is not an observed column"):
        model.query("H_a")


@pytest.mark.parametrize("seed", range(6))
def test_map_sums_the_latents_out(seed):
    model = _model(seed)
    table = marginal_rows(model.network, list(COLUMNS))
    for evidence in ({}, {"b": 1}, {"a": "v", "c": "p"}):
        part = rows_given(table, evidence)
        best = part.iloc[int(np.argmax(part["p"].to_numpy()))]
        got, log_p = model.map_query(evidence, return_log_prob=True)
        assert got == {v: best[v] for v in COLUMNS if v not in evidence}
        assert log_p == pytest.approx(np.log(best["p"]), rel=1e-12)


def test_the_most_probable_columns_are_not_those_of_the_most_probable_network_row():
    """Marginal MAP (the latents summed out) and the columns of the network's MAP (the
    latents maximised) differ on some hidden trees: map_query is the first."""
    differ = 0
    for seed in range(40):
        model = _model(seed)
        joint = model.network.map_query()
        if {v: joint[v] for v in COLUMNS} != model.map_query():
            differ += 1
    assert differ > 0


def test_samples_impute_and_text(model):
    table = marginal_rows(model.network, list(COLUMNS))
    rows, latents = model.sample(40_000, random_state=0, evidence={"a": "u"}, return_latent=True)
    assert list(rows.columns) == list(COLUMNS) and list(latents.columns) == LATENT
    part = rows_given(table, {"a": "u"})
    want = part.groupby(["b", "c"])["p"].sum() / part["p"].sum()
    freq = rows.groupby(["b", "c"]).size() / len(rows)
    np.testing.assert_allclose(freq.reindex(want.index).to_numpy(), want.to_numpy(), atol=0.01)
    holed = pd.DataFrame({"a": ["u"], "b": [None], "c": ["q"]}, index=[7])
    filled = model.impute(holed)
    part = rows_given(table, {"a": "u", "c": "q"})
    assert filled.index.tolist() == [7]
    assert filled["b"].iloc[0] == part.groupby("b")["p"].sum().idxmax()
    # one root (1 free parameter each table row), two transitions (2 x 1), emissions
    # 2 x (1 + 2 + 1)
    assert model.n_parameters == 1 + 2 * 2 + 2 * (1 + 2 + 1)
    text = model.to_text().splitlines()
    assert (
        text[0] == "HiddenTreeModel: 3 observed columns, one latent of 2 states each, 13 parameters"
    )
    assert text[1:] == ["H_a -> a (2 states)", "├── H_b -> b (3 states)", "└── H_c -> c (2 states)"]


def test_tied_tables_are_counted_once_and_checked():
    rng = np.random.default_rng(0)
    seqs = pd.DataFrame(rng.integers(0, 3, size=(200, 4)), columns=[f"t{i}" for i in range(4)])
    hmm = tl.HiddenMarkovModel(n_states=2, random_state=0, max_iter=4).fit(seqs)
    model = hmm.model_
    assert model.tied and hmm.n_parameters == model.n_parameters == (2 - 1) + 2 * 1 + 2 * 2
    d = model.to_dict()
    node = next(n for n in d["network"]["nodes"] if n["name"] == "H_t2")
    node["cpt"] = node["cpt"][::-1]  # one step's transition rows swapped: no longer tied
    with pytest.raises(tl.InvalidModelError, match="field 'tied'"):
        HiddenTreeModel.from_dict(d)
    d["tied"] = False
    untied = HiddenTreeModel.from_dict(d)
    assert untied.n_parameters == untied.network.n_parameters


def test_files_check_the_shape(model, tmp_path):
    d = model.to_dict()
    back = HiddenTreeModel.from_dict(d)
    assert back.network == model.network and back.latent == model.latent
    for change, field in [
        (lambda d: d.update(latent_names=["H_a", "H_b"]), "latent_names"),
        (lambda d: d.update(latent_names=["H_a", "H_c", "H_b"]), "network"),
        (lambda d: d.update(latent_names=["H_a", "H_a", "H_b"]), "latent_names"),
        (lambda d: d.update(tied="no"), "tied"),
        (lambda d: d.pop("network"), "network"),
    ]:
        bad = model.to_dict()
        change(bad)
        with pytest.raises(tl.InvalidModelError, match=f"field '{field}'"):
            HiddenTreeModel.from_dict(bad)
    tl.save(model, tmp_path / "h.json")
    rows = marginal_rows(model.network, list(COLUMNS))[list(COLUMNS)]
    np.testing.assert_array_equal(
        tl.load(tmp_path / "h.json").score_samples(rows), model.score_samples(rows)
    )
    with pytest.raises(tl.StructureError, match="must have its latent"):
        HiddenTreeModel(model.network, ["H_b", "H_a", "H_c"])
