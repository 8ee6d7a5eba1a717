"""XMLBIF, UAI and pyAgrum: written and read back equal, and read by the other libraries
(pgmpy's XMLBIFReader, pyAgrum's loaders and LazyPropagation) with the same numbers."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import treelearn as tl

ASIA = pd.read_csv("datasets/asia.csv")


@pytest.fixture(scope="module")
def models():
    X, y = ASIA.drop(columns="either"), ASIA["either"]
    typed = pd.DataFrame(
        {
            "n": [1, 2, 2, 3, 1, 3],
            "b": [True, False, False, True, True, False],
            "t": ["u", "v", "u", "v", "v", "u"],
        }
    )
    return {
        "tree": tl.chow_liu(ASIA),
        "tan": tl.TAN().fit(X, y).model_,
        "kdb": tl.KDB(k=2).fit(X, y).model_,
        "typed": tl.chow_liu(typed),
    }


def quiet():
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("ignore")
    return ctx


@pytest.mark.parametrize("name", ["tree", "tan", "kdb", "typed"])
def test_xmlbif_round_trip_and_pgmpy_reads_it(models, name, tmp_path):
    from pgmpy.readwrite import XMLBIFReader, XMLBIFWriter

    m = models[name]
    path = tmp_path / "m.xml"
    m.to_xmlbif(path)
    back = tl.read_xmlbif(path)
    assert back == m and back.variables == m.variables
    assert back.states == m.states  # labels keep their types (ints, bools)
    ctx = quiet()
    theirs = tl.from_pgmpy(XMLBIFReader(str(path)).get_model())
    if name != "typed":  # pgmpy reads labels as text
        assert theirs == m
        writer = XMLBIFWriter(m.to_pgmpy())
        other = tmp_path / "pgmpy.xml"
        (writer.write if hasattr(writer, "write") else writer.write_xmlbif)(str(other))
        assert tl.read_xmlbif(other) == m
    else:
        assert {v: [str(s) for s in st] for v, st in m.states.items()} == theirs.states
        for v in m.variables:
            axes = [theirs.parents(v).index(p) for p in m.parents(v)] + [len(m.parents(v))]
            np.testing.assert_array_equal(np.transpose(theirs.cpt(v), axes), m.cpt(v))
    ctx.__exit__(None, None, None)


def test_pyagrum_reads_our_xmlbif(models, tmp_path):
    gum = pytest.importorskip("pyagrum")
    m = models["tree"]
    path = tmp_path / "m.bifxml"
    m.to_xmlbif(path)
    assert tl.from_pyagrum(gum.loadBN(str(path))) == m


@pytest.mark.parametrize("name", ["tree", "tan", "kdb", "typed"])
def test_uai_round_trip(models, name, tmp_path):
    m = models[name]
    path = tmp_path / "m.uai"
    m.to_uai(path)
    assert tl.read_uai(path, names=m.variables, states=m.states) == m
    plain = tl.read_uai(path)
    assert plain.variables == [f"var_{i}" for i in range(len(m.variables))]
    for i, v in enumerate(m.variables):
        np.testing.assert_array_equal(plain.cpt(f"var_{i}"), m.cpt(v))


def test_uai_with_pyagrum_on_one_parent_families(models, tmp_path):
    """pyAgrum reads and writes the format the same way for CPTs of at most one parent (for
    more, its writer and reader put the first parent fastest after the child, against the
    format's order; its reader parses single-precision floats and its writer 6 digits)."""
    gum = pytest.importorskip("pyagrum")
    m = models["tree"]
    ours = tmp_path / "ours.uai"
    m.to_uai(ours)
    bn = gum.loadBN(str(ours))
    read = tl.from_pyagrum(bn)
    for i, v in enumerate(m.variables):
        np.testing.assert_allclose(read.cpt(bn.variable(i).name()), m.cpt(v), atol=1e-7)
    theirs = tmp_path / "theirs.uai"
    gum.saveBN(m.to_pyagrum(), str(theirs))  # names as comments
    back = tl.read_uai(theirs, states=m.states)
    assert back.variables == m.variables
    for v in m.variables:
        np.testing.assert_allclose(back.cpt(v), m.cpt(v), atol=1e-6)


def test_uai_as_the_format_describes_it(tmp_path):
    # a published example (schlandals' documentation of the format): P(D | B, C) over the
    # scope "1 2 3", the last variable changing fastest
    text = (
        "BAYES\n4\n2 2 2 2\n4\n1 0\n2 0 1\n2 0 2\n3 1 2 3\n\n2\n0.2 0.8\n4\n"
        "0.6 0.4 0.3 0.7\n4\n0.25 0.75 0.75 0.25\n8\n1.0 0.0 0.35 0.65 0.8 0.2 0.0 1.0\n"
    )
    path = tmp_path / "example.uai"
    path.write_text(text)
    m = tl.read_uai(path, names=list("ABCD"))
    assert m.parents("D") == ["B", "C"]
    np.testing.assert_array_equal(m.cpt("D")[0, 1], [0.35, 0.65])  # B = 0, C = 1
    np.testing.assert_array_equal(m.cpt("D")[1, 0], [0.8, 0.2])  # B = 1, C = 0
    np.testing.assert_array_equal(m.cpt("B"), [[0.6, 0.4], [0.3, 0.7]])
    m.to_uai(tmp_path / "again.uai")
    numbers = [float(x) for x in (tmp_path / "again.uai").read_text().split()[1:]]
    assert numbers == [float(x) for x in text.split()[1:]]


@pytest.mark.parametrize("name", ["tree", "tan", "kdb", "typed"])
def test_pyagrum_round_trip_and_lazy_propagation(models, name):
    gum = pytest.importorskip("pyagrum")
    m = models[name]
    bn = m.to_pyagrum()
    back = tl.from_pyagrum(bn)
    if name == "typed":
        assert back.states["n"] == [1, 2, 3]  # integers stay integers
        assert back.states["b"] == ["False", "True"]
    else:
        assert back == m
    ie = gum.LazyPropagation(bn)
    states = m.states
    cases = [
        {},
        {m.variables[0]: states[m.variables[0]][0]},
        {m.variables[1]: states[m.variables[1]][-1], m.variables[-1]: states[m.variables[-1]][0]},
    ]
    for evidence in cases:
        ie.eraseAllEvidence()
        ie.setEvidence({str(v): str(s) for v, s in evidence.items()})
        ie.makeInference()
        for v in m.variables:
            if v in evidence:
                continue
            theirs = ie.posterior(str(v)).toarray()
            ours = m.query(v, evidence=evidence).to_numpy()
            np.testing.assert_allclose(ours, theirs, atol=1e-12)


def test_soft_evidence_equals_pyagrum(models):
    gum = pytest.importorskip("pyagrum")
    m = models["tan"]
    ie = gum.LazyPropagation(m.to_pyagrum())
    ie.setEvidence({"smoke": [0.3, 0.9], "xray": "yes"})
    ie.makeInference()
    ours = m.query("lung", evidence={"smoke": [0.3, 0.9], "xray": "yes"}).to_numpy()
    np.testing.assert_allclose(ours, ie.posterior("lung").toarray(), atol=1e-12)


def test_bad_files_say_what_is_wrong(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text(
        "<BIF><NETWORK><VARIABLE><NAME>a</NAME><OUTCOME>x</OUTCOME>"
        "<OUTCOME>y</OUTCOME></VARIABLE><DEFINITION><FOR>a</FOR>"
        "<TABLE>0.5 0.4</TABLE></DEFINITION></NETWORK></BIF>"
    )
    with pytest.raises(tl.InvalidModelError, match="'a'"):
        tl.read_xmlbif(bad)
    bad.write_text(
        "<BIF><NETWORK><VARIABLE><NAME>a</NAME><OUTCOME>x</OUTCOME></VARIABLE></NETWORK></BIF>"
    )
    with pytest.raises(tl.InvalidModelError, match="no DEFINITION"):
        tl.read_xmlbif(bad)
    bad.write_text(
        "<BIF><NETWORK><VARIABLE><NAME>a</NAME><OUTCOME>x</OUTCOME></VARIABLE>"
        "<DEFINITION><FOR>a</FOR><TABLE>1 1</TABLE></DEFINITION></NETWORK></BIF>"
    )
    with pytest.raises(tl.InvalidModelError, match="2 numbers"):
        tl.read_xmlbif(bad)
    bad.write_text("not xml")
    with pytest.raises(tl.ModelFormatError, match="not an XMLBIF"):
        tl.read_xmlbif(bad)
    cyc = (
        "<BIF><NETWORK>"
        + "".join(f"<VARIABLE><NAME>{v}</NAME><OUTCOME>0</OUTCOME></VARIABLE>" for v in "ab")
        + "<DEFINITION><FOR>a</FOR><GIVEN>b</GIVEN><TABLE>1</TABLE></DEFINITION>"
        + "<DEFINITION><FOR>b</FOR><GIVEN>a</GIVEN><TABLE>1</TABLE></DEFINITION></NETWORK></BIF>"
    )
    bad.write_text(cyc)
    with pytest.raises(tl.InvalidModelError, match="acyclic"):
        tl.read_xmlbif(bad)
    uai = tmp_path / "bad.uai"
    uai.write_text("MARKOV\n1\n2\n1\n1 0\n2\n0.5 0.5\n")
    with pytest.raises(tl.ModelFormatError, match="BAYES"):
        tl.read_uai(uai)
    uai.write_text("BAYES\n1\n2\n1\n1 0\n3\n0.5 0.5 0.1\n")
    with pytest.raises(tl.InvalidModelError, match="3 entries"):
        tl.read_uai(uai)
    uai.write_text("BAYES\n1\n2\n1\n1 0\n2\n0.5\n")
    with pytest.raises(tl.InvalidModelError, match="ends before"):
        tl.read_uai(uai)
    uai.write_text("BAYES\n1\n2\n1\n1 0\n2\n0.5 0.5\n")
    with pytest.raises(tl.InvalidModelError, match="states="):
        tl.read_uai(uai, states={"var_0": ["a", "b", "c"]})
    with pytest.raises(tl.TreelearnError, match="read '1' as text"):
        tl.chow_liu(pd.DataFrame({1: [0, 1], "1": [1, 0]})).to_xmlbif(tmp_path / "x.xml")
