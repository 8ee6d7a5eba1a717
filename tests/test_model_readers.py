"""Every model reader checks what it reads (issue 40 items 2, 3, 5; issue 39's BIF labels).

Each test below failed before its fix (the finding it pins is named in its comment);
the fuzzers at the end mutate valid files field by field and byte by byte and expect a
TreelearnError or the same model back.
"""

from __future__ import annotations

import json
import os
import threading
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import treelearn as tl
from treelearn._io import dumps, loads
from treelearn.export._pgmpy import bif_text
from treelearn.export._uai import uai_text
from treelearn.export._xmlbif import xmlbif_text

BIF_ONE = "network x {{}}\nvariable a {{ type discrete [ {n} ] {{ {states} }}; }}\n{tail}"
TABLE = "probability ( a ) { table 0.5, 0.5; }\n"


def _bif(tmp_path, text, name="m.bif"):
    path = tmp_path / name
    path.write_text(text)
    return path


# ---------------------------------------------------------------------- limits, bounded reads
def test_import_treelearn_limits_is_the_module_the_checks_read(monkeypatch):
    # finding: `import treelearn.limits` failed though the README shows it as public
    import treelearn.limits as limits

    import treelearn._base.limits as inner

    assert limits is inner is tl.limits
    monkeypatch.setattr(limits, "MEMORY_LIMIT", 10)
    with pytest.raises(tl.ResourceLimitError, match="MEMORY_LIMIT"):
        inner.check_memory(11, "x", "y")


@pytest.mark.parametrize("reader", [tl.load, tl.read_xmlbif, tl.read_bif, tl.read_uai])
def test_devices_are_refused_before_reading(reader):
    # finding: tl.load("/dev/zero") and read_xmlbif("/dev/zero") raised a raw MemoryError
    with pytest.raises(tl.ModelFileError, match="not a regular file"):
        reader("/dev/zero")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    # finding: tl.load of a FIFO blocked forever (nobody writes to it)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    outcome = []

    def load():
        try:
            tl.load(fifo)
        except tl.ModelFileError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "tl.load blocked on a FIFO"
    assert outcome and "not a regular file" in str(outcome[0])


def test_files_over_the_size_limit_are_refused_naming_it(tmp_path, monkeypatch):
    m = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]}))
    path = tmp_path / "m.json"
    tl.save(m, path)
    monkeypatch.setattr(tl.limits, "FILE_SIZE_LIMIT", os.path.getsize(path) - 1)
    with pytest.raises(tl.ResourceLimitError, match="FILE_SIZE_LIMIT"):
        tl.load(path)
    monkeypatch.setattr(tl.limits, "FILE_SIZE_LIMIT", os.path.getsize(path))
    assert tl.load(path) == m


# ---------------------------------------------------------------------- BIF
@pytest.mark.parametrize(
    "text, match",
    [
        ("", "declares no variable"),  # finding: an empty file gave a model of no variables
        ("network x {}\n", "declares no variable"),
        (
            BIF_ONE.format(n=3, states="x, y", tail=TABLE),
            r"declares 3 states \(\[ 3 \]\) but lists 2",
        ),
        (BIF_ONE.format(n=10**12, states="x, y", tail=TABLE), "declares 1000000000000 states"),
        (
            BIF_ONE.format(n=2, states="x, y", tail="")
            + "variable a { type discrete [ 2 ] { x, y }; }\n"
            + TABLE,
            "declared twice",
        ),
        (BIF_ONE.format(n=2, states="x, x", tail=TABLE), "'x' twice"),
        (BIF_ONE.format(n=2, states="x, y", tail="probability ( a | zz ) { table 1; }\n"), "'zz'"),
    ],
)
def test_read_bif_refuses_what_is_no_model(tmp_path, text, match):
    with pytest.raises(tl.InvalidModelError, match=match):
        tl.read_bif(_bif(tmp_path, text))
    with pytest.raises(tl.InvalidModelError, match=match):
        tl.read_bif(text=text)


def test_read_bif_refuses_binary_junk(tmp_path):
    path = tmp_path / "junk.bif"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(tl.TreelearnError):
        tl.read_bif(path)


def test_read_bif_of_300000_states_is_refused_by_the_named_limit(tmp_path):
    # finding: one variable of 300,000 states took over a minute in pgmpy's parser
    k = 300_000
    states = ", ".join(f"s{i}" for i in range(k))
    path = _bif(tmp_path, BIF_ONE.format(n=k, states=states, tail=""))
    start = time.perf_counter()
    with pytest.raises(tl.ResourceLimitError, match="BIF_STATES_LIMIT"):
        tl.read_bif(path)
    assert time.perf_counter() - start < 10  # the check is one regex pass (~0.1 s)


def test_read_bif_states_within_the_limit_are_read(tmp_path, monkeypatch):
    monkeypatch.setattr(tl.limits, "BIF_STATES_LIMIT", 3)
    text = BIF_ONE.format(
        n=3, states="x, y, z", tail="probability ( a ) { table 0.2, 0.3, 0.5; }\n"
    )
    assert tl.read_bif(text=text).states == {"a": ["x", "y", "z"]}


def test_read_bif_refuses_a_table_over_the_memory_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 8 * 4 - 1)
    text = (
        "variable a { type discrete [ 2 ] { x, y }; }\n"
        "variable b { type discrete [ 2 ] { u, v }; }\n"
        "probability ( a ) { table 0.5, 0.5; }\n"
        "probability ( b | a ) { table 0.5, 0.5, 0.5, 0.5; }\n"
    )
    with pytest.raises(tl.ResourceLimitError, match="MEMORY_LIMIT"):
        tl.read_bif(text=text)


def test_bif_keeps_bin_labels_exactly(tmp_path):
    # issue 39: `learn --discretize 3 --bif` refused treelearn's own bin labels
    rng = np.random.default_rng(0)
    df = tl.discretize(pd.DataFrame({"x": rng.normal(size=60), "y": rng.normal(size=60)}), bins=3)
    m = tl.chow_liu(df)
    assert any("(" in str(s) for s in m.states["x"])
    path = tmp_path / "m.bif"
    m.to_bif(path)
    back = tl.read_bif(path)
    assert back == m
    assert back.states == m.states


# ---------------------------------------------------------------------- XMLBIF
def test_read_xmlbif_refuses_a_repeated_outcome_and_an_empty_network(tmp_path):
    # findings: states ['x', 'x'] were accepted; an empty <NETWORK> gave an empty model
    m = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]}))
    text = xmlbif_text(m)
    twice = text.replace("<OUTCOME>y</OUTCOME>", "<OUTCOME>x</OUTCOME>", 1)
    with pytest.raises(tl.InvalidModelError, match="'x' is listed twice"):
        tl.read_xmlbif(text=twice)
    with pytest.raises(tl.InvalidModelError, match="no VARIABLE"):
        tl.read_xmlbif(text="<BIF VERSION='0.3'><NETWORK><NAME>x</NAME></NETWORK></BIF>")


def test_xmlbif_reads_back_states_with_white_space_around_them():
    # finding: write_xmlbif of a state " sp " wrote a file its own read_xmlbif refused
    m = tl.chow_liu(pd.DataFrame({"a": [" sp ", "y", "y"], "b": [0, 1, 1]}))
    assert tl.read_xmlbif(text=xmlbif_text(m)) == m


def test_write_xmlbif_refuses_states_that_would_read_back_as_one():
    m = tl.chow_liu(pd.DataFrame({"a": [" x", "x", "x"], "b": [0, 1, 1]}))
    with pytest.raises(tl.TreelearnError, match="read 'x' as text"):
        xmlbif_text(m)


# ---------------------------------------------------------------------- UAI
@pytest.fixture
def uai_path(tmp_path):
    m = tl.chow_liu(pd.DataFrame({"a": ["x", "y", "y"], "b": [0, 1, 1]}))
    path = tmp_path / "bayes_net.uai"
    m.to_uai(path)
    return path


def test_read_uai_reads_a_file_named_bayes(uai_path):
    # finding: any string starting with "bayes" was taken as file content
    assert tl.read_uai(uai_path).variables == ["var_0", "var_1"]
    assert tl.read_uai(str(uai_path)).variables == ["var_0", "var_1"]
    assert tl.read_uai(text=uai_path.read_text()) == tl.read_uai(uai_path)


def test_read_uai_takes_a_path_or_a_text_not_both(uai_path):
    with pytest.raises(tl.InputTypeError, match="not both"):
        tl.read_uai(uai_path, text="BAYES")
    with pytest.raises(tl.InputTypeError, match="as a path"):
        tl.read_uai()


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"names": "AB"}, tl.InputTypeError, "not str 'AB'"),  # was split into characters
        ({"names": [["A"], "B"]}, tl.InputTypeError, r"names\[0\]"),  # was a raw TypeError
        ({"names": ["A", "A"]}, tl.TreelearnError, "'A' twice"),
        ({"states": {"var_0": ["x", "x"]}}, tl.TreelearnError, "repeats a state"),
        ({"states": {"var_0": [1, 1.0]}}, tl.TreelearnError, "repeats a state"),
        ({"states": {"zz": ["x", "y"]}}, tl.TreelearnError, r"\['zz'\]"),  # was ignored
        ({"states": {"var_0": "xy"}}, tl.InputTypeError, "list of state labels"),
        ({"states": ["x"]}, tl.InputTypeError, "must be a dict"),
    ],
)
def test_read_uai_checks_names_and_states(uai_path, kwargs, error, match):
    with pytest.raises(error, match=match):
        tl.read_uai(uai_path, **kwargs)


@pytest.mark.parametrize(
    "text, error, match",
    [
        ("BAYES 0 0", tl.InvalidModelError, "at least one"),
        ("BAYES 1 1000000000000 1 1 0 1000000000000", tl.ResourceLimitError, "MEMORY_LIMIT"),
    ],
)
def test_read_uai_refuses_no_variables_and_huge_declared_sizes(text, error, match):
    with pytest.raises(error, match=match):
        tl.read_uai(text=text)


# ---------------------------------------------------------------------- Gaussian tree files
def _gaussian_doc():
    rng = np.random.default_rng(1)
    x = rng.normal(size=200)
    df = pd.DataFrame({"a": x, "b": x + rng.normal(size=200), "c": -x + rng.normal(size=200)})
    return json.loads(dumps(tl.gaussian_chow_liu(df)))


def _tampered(change):
    doc = _gaussian_doc()
    change(doc["model"])
    return json.dumps(doc)


def _node(model, name):
    return model["nodes"][model["variables"].index(name)]


def _cycle(model):
    (u, v) = model["edges"][0]
    model["edges"].append([v, u])
    model["weights"].append(0.1)


def _self_loop(model):
    model["edges"].append(["a", "a"])
    model["weights"].append(0.1)


def _string_weight(model):
    model["weights"][0] = "high"


def _ghost_root(model):
    model["roots"].append("ghost")


def _ghost_edge(model):
    model["edges"].append(["ghost", model["variables"][0]])
    model["weights"].append(0.1)


def _wrong_parent(model):
    child = model["edges"][0][1]
    others = [v for v in model["variables"] if v not in model["edges"][0]]
    _node(model, child)["parent"] = others[0]


def _no_variables(model):
    model["variables"], model["nodes"], model["edges"], model["weights"] = [], [], [], []
    model["roots"] = []


@pytest.mark.parametrize(
    "change, match",
    [
        (_cycle, "'edges'"),  # finding: loaded, then sample() raised NetworkXUnfeasible
        (_self_loop, "self-loop"),  # finding: loaded
        (_string_weight, "'weights'"),  # finding: loaded, then draw() raised a raw ValueError
        (_ghost_root, "'roots'"),  # finding: loaded silently
        (_ghost_edge, "not in 'variables'"),
        (_wrong_parent, "'parent'"),  # finding: parents that disagree with the edges loaded
        (_no_variables, "'variables'"),
    ],
)
def test_tampered_gaussian_tree_files_are_refused_naming_the_field(change, match):
    with pytest.raises(tl.InvalidModelError, match=match):
        loads(_tampered(change))


def test_an_untampered_gaussian_tree_file_loads_equal():
    doc = _gaussian_doc()
    back = loads(json.dumps(doc))
    assert dumps(back) == json.dumps(doc, ensure_ascii=False)


# ---------------------------------------------------------------------- saved hidden trees
@pytest.mark.parametrize("h", [10**15, 10**9])
def test_saved_hidden_models_with_huge_n_states_are_refused_fast(tmp_path, h):
    df = pd.read_csv("datasets/asia.csv")
    est = tl.HiddenTree(n_states=2, random_state=0, max_iter=2).fit(df)
    doc = json.loads(dumps(est))
    doc["state"]["params"]["n_states"] = h
    start = time.perf_counter()
    with pytest.raises(tl.InvalidModelError, match=f"n_states={h}"):
        loads(json.dumps(doc))
    assert time.perf_counter() - start < 5


# ---------------------------------------------------------------------- hostile names round trip
HOSTILE = [" sp ", 'q"uote', "br{ace}", "semi;colon", "sl//ash", "ünï©ødé", "(0.61, 0.74]", "a,b"]


def _hostile_model():
    rng = np.random.default_rng(4)
    n = 80
    df = pd.DataFrame(
        {
            HOSTILE[0]: rng.choice(HOSTILE[1:4], n),
            "ünï©ødé col": rng.choice(HOSTILE[4:], n),
            "(0.1, 2]": rng.integers(0, 3, n),
            "x": rng.normal(size=n),
        }
    )
    return tl.chow_liu(tl.discretize(df, bins=3, columns=["x"]))


@pytest.mark.parametrize("fmt", ["json", "bif", "xmlbif"])
def test_every_writer_reads_back_hostile_but_legal_names(tmp_path, fmt):
    m = _hostile_model()
    path = tmp_path / f"m.{fmt}"
    if fmt == "json":
        tl.save(m, path)
        back = tl.load(path)
    elif fmt == "bif":
        m.to_bif(path)
        back = tl.read_bif(path)
    else:
        m.to_xmlbif(path)
        back = tl.read_xmlbif(path)
    assert back.states == m.states
    # pgmpy's BIFWriter writes the variables sorted: BIF keeps the set, not the order
    if fmt == "bif":
        assert set(back.variables) == set(m.variables)
    else:
        assert back.variables == m.variables
    for v in m.variables:
        assert back.parents(v) == m.parents(v)
        np.testing.assert_allclose(back.cpt(v), m.cpt(v), rtol=0, atol=1e-15)


def test_uai_and_pgmpy_read_back_hostile_names_given_them(tmp_path):
    m = _hostile_model()
    path = tmp_path / "m.uai"
    m.to_uai(path)
    assert tl.read_uai(path, names=m.variables, states=m.states) == m
    assert tl.from_pgmpy(m.to_pgmpy()) == m


# ---------------------------------------------------------------------- fuzzers
FUZZ = settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
SLOW_FUZZ = settings(FUZZ, max_examples=400)

labels = st.one_of(
    st.text(min_size=1, max_size=6),
    st.integers(-5, 5),
    st.sampled_from(HOSTILE),
)


@st.composite
def models(draw):
    """A small random tree model with hostile-but-legal labels."""
    n_vars = draw(st.integers(1, 3))
    names = draw(
        st.lists(st.text(min_size=1, max_size=6), min_size=n_vars, max_size=n_vars, unique=True)
    )
    columns = {}
    for name in names:
        states = draw(st.lists(labels, min_size=1, max_size=3, unique_by=lambda s: (type(s), s)))
        columns[name] = draw(st.lists(st.sampled_from(states), min_size=6, max_size=6))
    return tl.chow_liu(pd.DataFrame(columns))


def _text_of(m, fmt):
    if fmt == "json":
        return dumps(m)
    if fmt == "xmlbif":
        return xmlbif_text(m)
    if fmt == "bif":
        return bif_text(m)
    return uai_text(m)


def _read(text, fmt, m):
    if fmt == "json":
        return loads(text)
    if fmt == "xmlbif":
        return tl.read_xmlbif(text=text)
    if fmt == "bif":
        return tl.read_bif(text=text)
    return tl.read_uai(text=text, names=m.variables, states=m.states)


def _writable(m, fmt):
    try:
        return _text_of(m, fmt)
    except tl.TreelearnError:  # e.g. XMLBIF: two labels with one text; refused before writing
        return None


@st.composite
def mutations(draw, text):
    """``text`` mutated: a byte changed, cut short, a token repeated or dropped."""
    kind = draw(st.sampled_from(["byte", "cut", "dup", "drop"]))
    if not text:
        return text
    i = draw(st.integers(0, len(text) - 1))
    if kind == "byte":
        return text[:i] + draw(st.characters(codec="utf-8")) + text[i + 1 :]
    if kind == "cut":
        return text[:i]
    tokens = text.split(" ")
    j = draw(st.integers(0, len(tokens) - 1))
    if kind == "dup":
        return " ".join([*tokens[: j + 1], tokens[j], *tokens[j + 1 :]])
    return " ".join(tokens[:j] + tokens[j + 1 :])


def _fuzz_one(fmt, data):
    m = data.draw(models())
    text = _writable(m, fmt)
    if text is None:
        return
    back = _read(text, fmt, m)
    assert back.states == m.states
    # pgmpy's BIFWriter writes the variables sorted: BIF keeps the set, not the order
    assert (
        set(back.variables) == set(m.variables) if fmt == "bif" else back.variables == m.variables
    )
    bad = data.draw(mutations(text))
    try:
        again = _read(bad, fmt, m)
    except tl.TreelearnError:
        return
    # read back: a model whose every CPT is a checked distribution
    for v in again.variables:
        cpt = again.cpt(v)
        assert np.all(cpt >= 0) and np.allclose(cpt.sum(axis=-1), 1)


@pytest.mark.parametrize("fmt", ["json", "xmlbif", "uai"])
@FUZZ
@given(data=st.data())
def test_fuzz_readers(fmt, data):
    _fuzz_one(fmt, data)


@settings(FUZZ, max_examples=8)
@given(data=st.data())
def test_fuzz_bif_reader(data):
    _fuzz_one("bif", data)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "xmlbif", "uai"])
@SLOW_FUZZ
@given(data=st.data())
def test_fuzz_readers_long(fmt, data):
    _fuzz_one(fmt, data)


# pgmpy's BIF parser takes ~0.5-3 s a file: 40 mutated files keep the slow job in minutes
@pytest.mark.slow
@settings(FUZZ, max_examples=40)
@given(data=st.data())
def test_fuzz_bif_reader_long(data):
    _fuzz_one("bif", data)


def test_xmlbif_round_trips_carriage_returns_in_names_and_states(tmp_path):
    # found by the long fuzzer: XML parsers read "\r" and "\r\n" back as "\n", so the
    # NAME/OUTCOME text is written with "\n" and the exact label kept in the property
    df = pd.DataFrame({"0\r0": [0, 1, 0, 1, 1, 0], "b\r\nc": ["x\ry", "z", "x\ry", "z", "z", "z"]})
    model = tl.chow_liu(df)
    tl.write_xmlbif(model, tmp_path / "m.xml")
    again = tl.read_xmlbif(tmp_path / "m.xml")
    assert again.variables == ["0\r0", "b\r\nc"]
    assert again == model
