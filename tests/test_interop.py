"""pgmpy export/import and BIF round trips."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import pgmpy_example, pgmpy_sample, random_dependent_frame

import treelearn as tl


def _assert_same_model(a, b, *, exact=True, labels=str):
    assert set(a.variables) == set(b.variables)
    assert {frozenset(e) for e in a.graph.edges} == {frozenset(e) for e in b.graph.edges}
    assert set(a.graph.edges) == set(b.graph.edges)
    for v in a.variables:
        assert [labels(s) for s in a.states[v]] == [labels(s) for s in b.states[v]]
        assert a.parents(v) == b.parents(v)
        if exact:
            assert np.array_equal(a.cpt(v), b.cpt(v)), v
        else:
            np.testing.assert_allclose(a.cpt(v), b.cpt(v), rtol=0, atol=1e-12)


def _mixed_frame(rng, n=300):
    df = random_dependent_frame(n, [2, 3, 4, 3, 2], rng)
    df["v1"] = df["v1"].map({0: "low", 1: "mid", 2: "high"})
    df["v4"] = df["v4"].astype(bool)
    df["v2"] = pd.Categorical(
        df["v2"].map({0: "a", 1: "b", 2: "c", 3: "d"}), categories=["d", "c", "b", "a", "unused"]
    )
    return df


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_to_pgmpy_from_pgmpy_round_trip_is_exact(alpha):
    rng = np.random.default_rng(0)
    df = _mixed_frame(rng)
    m = tl.chow_liu(df, alpha=alpha, root="v3")
    bn = m.to_pgmpy()
    assert bn.check_model()
    assert set(bn.nodes()) == set(df.columns)
    assert set(bn.edges()) == set(m.graph.edges)
    for v in m.variables:
        cpd = bn.get_cpds(v)
        assert list(cpd.state_names[v]) == m.states[v]
        # pgmpy layout: (own state, parent state); ours: [parent state, own state]
        values = cpd.get_values()
        expected = m.cpt(v).reshape(-1, m.cpt(v).shape[-1]).T
        assert np.array_equal(values, expected)
    back = tl.from_pgmpy(bn)
    _assert_same_model(m, back, labels=lambda s: s)
    # labels keep their Python types
    assert back.states["v4"] == [False, True]
    assert back.states["v0"] == [0, 1]
    assert back.states["v2"] == ["d", "c", "b", "a", "unused"]
    assert back.root == "v3"


def test_from_pgmpy_multi_parent_and_to_pgmpy_again():
    rng = np.random.default_rng(1)
    df = random_dependent_frame(300, [2, 3, 2, 3], rng)
    import networkx as nx

    D = nx.DiGraph([("v0", "v2"), ("v1", "v2"), ("v2", "v3")])
    D.nodes["v2"]["parents"] = ["v1", "v0"]
    m = tl.fit_cpts(D, df, alpha=0.5)
    bn = m.to_pgmpy()
    assert bn.check_model()
    assert bn.get_cpds("v2").variables == ["v2", "v1", "v0"]
    back = tl.from_pgmpy(bn)
    _assert_same_model(m, back, labels=lambda s: s)
    # evidence order follows the CPD: P(v2 = s | v1 = a, v0 = b) agrees with pgmpy
    cpd = bn.get_cpds("v2")
    for a in range(3):
        for b in range(2):
            for s in range(2):
                assert back.cpt("v2")[a, b, s] == cpd.get_value(v2=s, v1=a, v0=b)


def test_from_pgmpy_bundled_asia_network():
    bn = pgmpy_example("asia")
    m = tl.from_pgmpy(bn)
    assert set(m.graph.edges) == set(bn.edges())
    for v in m.variables:
        cpd = bn.get_cpds(v)
        assert m.parents(v) == list(cpd.variables[1:])
        assert m.states[v] == list(cpd.state_names[v])
        np.testing.assert_array_equal(
            np.moveaxis(m.cpt(v), -1, 0).reshape(cpd.get_values().shape), cpd.get_values()
        )
    # and queries match pgmpy on the original network
    from pgmpy.inference import VariableElimination

    ve = VariableElimination(bn)
    f = ve.query(["lung"], evidence={"smoke": "yes"}, show_progress=False)
    ours = m.query(["lung"], evidence={"smoke": "yes"})
    np.testing.assert_allclose(ours.to_numpy(), f.values, atol=1e-12)
    assert tl.from_pgmpy(m.to_pgmpy()) == m


@pytest.mark.parametrize("name", ["asia", "alarm"])
def test_bif_round_trip(tmp_path, name):
    df = pgmpy_sample(name, 2000, seed=2)
    m = tl.chow_liu(df, alpha=1.0)
    path = tmp_path / f"{name}.bif"
    m.to_bif(path)
    assert path.exists()
    back = tl.read_bif(path)
    _assert_same_model(m, back, exact=False)
    ref = tl.read_bif(str(path))
    assert ref == back


def test_bif_round_trip_non_string_labels(tmp_path):
    rng = np.random.default_rng(3)
    df = _mixed_frame(rng)
    m = tl.chow_liu(df, alpha=0.5)
    path = tmp_path / "mixed.bif"
    tl.write_bif(m, path)
    back = tl.read_bif(path)
    _assert_same_model(m, back, exact=False, labels=str)
    # treelearn's own file keeps each label's type (its treelearn_labels property) ...
    _assert_same_model(m, back, exact=False, labels=lambda s: (type(s), s))
    # ... and the same file without the properties (as another tool writes it) gives text
    plain = tmp_path / "plain.bif"
    text = path.read_text()
    plain.write_text("\n".join(x for x in text.split("\n") if "treelearn_labels" not in x))
    other = tl.read_bif(plain)
    _assert_same_model(m, other, exact=False, labels=str)
    for v in other.variables:
        assert all(isinstance(s, str) for s in other.states[v])


def test_from_pgmpy_rejects_non_networks():
    with pytest.raises(TypeError):
        tl.from_pgmpy(object())


def _two_node_network(parent_states_in_child):
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    bn = DiscreteBayesianNetwork([("a", "b")])
    ca = TabularCPD("a", 2, [[0.9], [0.1]], state_names={"a": ["yes", "no"]})
    cb = TabularCPD(
        "b",
        2,
        [[0.8, 0.3], [0.2, 0.7]],
        evidence=["a"],
        evidence_card=[2],
        state_names={"b": ["u", "v"], "a": parent_states_in_child},
    )
    bn.add_cpds(ca, cb)
    return bn, cb


def test_from_pgmpy_aligns_parent_states_listed_in_another_order():
    # the child's CPD lists a's states as [no, yes], a's own CPD as [yes, no]:
    # pgmpy's add_cpds accepts it; the labels, not the positions, must decide
    bn, cb = _two_node_network(["no", "yes"])
    m = tl.from_pgmpy(bn)
    assert m.states["a"] == ["yes", "no"]
    for a in ("yes", "no"):
        for b in ("u", "v"):
            expected = cb.get_value(b=b, a=a)  # pgmpy's lookup by label
            assert m.cpt("b")[m.states["a"].index(a), m.states["b"].index(b)] == expected
    # P(b = u | a = yes) = 0.3 by the child CPD's own labels
    assert m.query("b", evidence={"a": "yes"})["u"] == pytest.approx(0.3, abs=1e-15)


def test_from_pgmpy_rejects_parent_states_that_disagree():
    bn, _ = _two_node_network(["no", "maybe"])
    with pytest.raises(tl.StructureError, match="'a'"):
        tl.from_pgmpy(bn)


@pytest.mark.parametrize(
    "frame, word",
    [
        ({"col one": ["a", "b", "a"], "b": [1, 2, 2]}, "col_one"),
        ({"c": ["a b", "x,y", "a b"], "b": [1, 2, 2]}, "a_b"),
    ],
)
def test_write_bif_writes_words_bif_cannot_hold_and_reads_them_back(tmp_path, frame, word):
    # pgmpy's writer wrote 'x,y' and 'a b' as they are; its reader then failed obscurely.
    # (Issue 39: they were refused, so `learn --bif` lost bin labels.) Now each is written
    # as a BIF word, pgmpy's own reader reads the file, and read_bif gives the labels back.
    from pgmpy.readwrite import BIFReader

    m = tl.chow_liu(pd.DataFrame(frame))
    path = tmp_path / "m.bif"
    m.to_bif(path)
    assert tl.read_bif(path) == m
    theirs = BIFReader(str(path)).get_model()
    assert word in [*theirs.nodes(), *(s for states in theirs.states.values() for s in states)]


# ---------------------------------------------------------------------------------- hostile inputs
@pytest.mark.parametrize("table", ["-0.5, 1.5", "0.2, 0.3, 0.5"])
def test_read_bif_bad_tables_are_model_file_errors(tmp_path, table):
    path = tmp_path / "n.bif"
    path.write_text(
        "network n {}\nvariable a { type discrete [ 2 ] { x, y }; }\n"
        f"probability ( a ) {{ table {table}; }}\n"
    )
    with pytest.raises(tl.InvalidModelError, match="not a valid BIF network"):
        tl.read_bif(path)
