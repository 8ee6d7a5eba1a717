"""Issue 19, point 1: the bins travel with the model. A model learned on cut columns
(tl.discretize, tl.Discretizer, the command line's --discretize) takes raw numbers and
dates wherever values meet states, and bins them exactly as binning by hand does."""

import json
import subprocess
import sys
from io import StringIO

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.encoding._bins import bins_of


def _by_hand(values, edges):
    """The bin of each value: how many edges lie strictly below it (v <= edge: that bin)."""
    values = np.asarray(values, dtype=float)
    return np.array([sum(v > e for e in edges) for v in values])


@pytest.fixture(scope="module")
def raw():
    rng = np.random.default_rng(0)
    n = 300
    x = rng.normal(10, 3, n)
    y = x + rng.normal(0, 2, n)
    g = np.where(x + rng.normal(0, 1, n) > 10, "hi", "lo")
    return pd.DataFrame(
        {
            "x": x,
            "y": y,
            "g": g,
            "t": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 90, n), unit="D"),
        }
    )


def test_one_labelling_short_edges_and_its_inverse(raw):
    cut = tl.discretize(raw, bins=4)
    fitted = tl.Discretizer(bins=4).fit(raw)
    for c in ("x", "y", "t"):
        assert list(cut[c].cat.categories) == fitted.categories_[c]
        bins = bins_of(list(cut[c].cat.categories))
        assert bins is not None and len(bins.labels) == 4
        assert bins.dates == (c == "t")
    # the edges are written at the fewest digits (>= 3) that keep them apart: no 9.70900000001
    for label in cut["x"].cat.categories:
        for end in label.strip("(]) ").split(", "):
            assert end in ("-inf", "inf") or len(end.replace("-", "").replace(".", "")) <= 4
    # and the bins are cut at the written edges: labels say what each bin holds
    edges = bins_of(list(cut["x"].cat.categories)).edges
    assert (cut["x"].cat.codes.to_numpy() == _by_hand(raw["x"], edges)).all()
    assert bins_of(["(-inf, 1]", "(2, inf)"]) is None  # a gap: no bins
    assert bins_of(["(-inf, 1.0]", "(1.0, inf)"]) is None  # not the canonical spelling


def test_tree_takes_raw_numbers_and_dates(raw):
    cut = tl.discretize(raw, bins=4)
    m = tl.chow_liu(cut)
    edges = {c: bins_of(m.states[c]).edges for c in ("x", "y", "t")}
    by_hand = cut.copy()
    for c in ("x", "y"):
        by_hand[c] = [m.states[c][k] for k in _by_hand(raw[c], edges[c])]
    by_hand["t"] = [
        m.states["t"][k]
        for k in _by_hand(raw["t"].astype("datetime64[ns]").astype("int64"), edges["t"])
    ]
    np.testing.assert_array_equal(
        m.log_likelihood(raw, per_row=True), m.log_likelihood(by_hand, per_row=True)
    )
    assert (
        m.predict(raw.drop(columns="g"), "g").tolist()
        == m.predict(by_hand.drop(columns="g"), "g").tolist()
    )
    # evidence: a raw number, its text (the command line) and a date pick the label's bin
    label = m.states["x"][int(_by_hand([11.3], edges["x"])[0])]
    expected = m.query("g", evidence={"x": label})
    for value in (11.3, "11.3", np.float32(11.3)):
        pd.testing.assert_series_equal(m.query("g", evidence={"x": value}), expected)
    day = pd.Timestamp("2024-02-10")
    t_label = m.states["t"][int(_by_hand([day.value], edges["t"])[0])]
    pd.testing.assert_series_equal(
        m.query("g", evidence={"t": day}), m.query("g", evidence={"t": t_label})
    )
    # missing raw values stay missing (summed out)
    holed = raw.copy()
    holed.loc[0, "x"] = np.nan
    one = m.log_likelihood(holed.iloc[[0]], per_row=True)[0]
    assert one == pytest.approx(
        m.log_likelihood(by_hand.iloc[[0]].drop(columns="x").assign(x=np.nan), per_row=True)[0],
        abs=1e-12,
    )


def test_classifiers_take_raw_numbers(raw):
    d = tl.Discretizer(bins=5).fit(raw)
    binned = d.transform(raw)
    X_raw, X = raw.drop(columns="g"), binned.drop(columns="g")
    for clf in (tl.NaiveBayes(), tl.TAN()):
        clf.fit(X, raw["g"])
        np.testing.assert_array_equal(clf.predict_proba(X_raw), clf.predict_proba(X))
        assert clf.score(X_raw, raw["g"]) == clf.score(X, raw["g"])


def test_bins_are_saved_and_checked_on_load(raw, tmp_path):
    m = tl.chow_liu(tl.discretize(raw, bins=3))
    path = tmp_path / "m.json"
    m.save(path)
    doc = json.loads(path.read_text())
    node = next(n for n in doc["model"]["nodes"] if n["name"] == "x")
    assert node["bins"]["edges"] == bins_of(m.states["x"]).edges.tolist()
    assert node["bins"]["dates"] is False
    loaded = tl.load(path)
    assert loaded == m
    assert loaded.query("g", evidence={"x": 12.0}).equals(m.query("g", evidence={"x": 12.0}))
    node["bins"]["edges"] = [node["bins"]["edges"][0] + 1, *node["bins"]["edges"][1:]]
    path.write_text(json.dumps(doc))
    with pytest.raises(tl.InvalidModelError, match=r"'x'.*bin edges"):
        tl.load(path)


def test_sample_numbers_within_the_bins(raw):
    m = tl.chow_liu(tl.discretize(raw, bins=4))
    labels = m.sample(500, random_state=3)
    numbers = m.sample(500, random_state=3, numbers=True)
    assert numbers["g"].tolist() == labels["g"].tolist()
    for c in ("x", "y", "t"):
        b = bins_of(m.states[c])
        values = numbers[c].astype("datetime64[ns]").astype("int64") if c == "t" else numbers[c]
        codes = _by_hand(values, b.edges)
        assert [m.states[c][k] for k in codes] == labels[c].astype(str).tolist()
    assert pd.api.types.is_datetime64_any_dtype(numbers["t"])
    given = m.sample(50, evidence={"x": 11.3}, random_state=0, numbers=True)
    edges = bins_of(m.states["x"]).edges
    assert (_by_hand(given["x"], edges) == _by_hand([11.3], edges)[0]).all()
    with pytest.raises(tl.TreelearnError, match="numbers"):
        m.sample(5, numbers="yes")


def _cli(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "treelearn", *map(str, args)],
        capture_output=True,
        text=True,
        input=stdin,
    )


@pytest.mark.slow  # the installed command in subprocesses
def test_cli_learn_discretize_then_raw_numbers(raw, tmp_path):
    data = raw.drop(columns="t")
    csv = tmp_path / "raw.csv"
    data.to_csv(csv, index=False)
    model = tmp_path / "m.json"
    run = _cli("learn", csv, "--discretize", "4", "--class", "g", "-o", model)
    assert run.returncode == 0, run.stderr
    m = tl.load(model).model_  # a TAN: its network holds the bins
    by_hand = data.copy()
    for c in ("x", "y"):
        by_hand[c] = [m.states[c][k] for k in _by_hand(data[c], bins_of(m.states[c]).edges)]
    hand_csv = tmp_path / "hand.csv"
    by_hand.to_csv(hand_csv, index=False)
    for command in (["predict", model, csv, "--proba"], ["score", model, csv]):
        got = _cli(*command)
        assert got.returncode == 0, got.stderr
        want = _cli(*[hand_csv if a == csv else a for a in command])
        assert got.stdout == want.stdout and got.stdout
    label = m.states["x"][int(_by_hand([11.3], bins_of(m.states["x"]).edges)[0])]
    got = _cli("query", model, "g", "--given", "x=11.3")
    want = _cli("query", model, "g", "--given", f"x={label}")
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines()[1:] == want.stdout.splitlines()[1:]
    expected = m.query("g", evidence={"x": label})
    printed = pd.read_csv(StringIO("\n".join(got.stdout.splitlines()[1:])), sep=r"\s+")
    np.testing.assert_allclose(printed["probability"], expected.to_numpy(), atol=1e-6)
    drawn = _cli("sample", model, "-n", "20", "--numbers", "--seed", "1")
    assert drawn.returncode == 0, drawn.stderr
    assert pd.read_csv(StringIO(drawn.stdout))["x"].dtype.kind == "f"
