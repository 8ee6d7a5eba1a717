"""Hostile inputs, one table per entry point: each must raise the exact TreelearnError
subclass with a message naming the thing (never a raw pandas/numpy/pyarrow/json error,
never a silently wrong answer, never a hang). Plus a Hypothesis round trip."""

from __future__ import annotations

import gzip
import json
import math
import os

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import treelearn as tl
from treelearn.cli._main import main
from treelearn.encoding._table import encode
from treelearn.sources._count import count
from treelearn.sources._files import MIN_CHUNK_ROWS, iter_chunks
from treelearn.viz._draw import layout

DF = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": [1, 2, 1, 1], "c": [True, False, True, True]})


def expect(error: type, pattern: str, fn, *args, **kwargs) -> None:
    with pytest.raises(tl.TreelearnError) as info:
        fn(*args, **kwargs)
    assert isinstance(info.value, error), (type(info.value), str(info.value))
    assert pattern in str(info.value), str(info.value)


# ---------------------------------------------------------------------- options
OPTIONS = [
    ("alpha", "1"),
    ("alpha", None),
    ("alpha", float("nan")),
    ("alpha", -1),
    ("mi_alpha", "x"),
    ("mi_alpha", float("inf")),
    ("max_states", "5"),
    ("max_states", 0),
    ("max_states", 2.5),
    ("max_states", True),
    ("forest", float("nan")),
    ("forest", "x"),
    ("forest", True),
    ("equivalent_sample_size", "1"),
    ("chunksize", 0),
    ("missing", "x"),
]


@pytest.mark.parametrize("option, value", OPTIONS)
def test_bad_option_is_named(option, value):
    kwargs = {option: value}
    if option == "equivalent_sample_size":
        kwargs["prior"] = "bdeu"
    data = DF if option != "chunksize" else "datasets/playtennis.csv"
    # one wording (treelearn._base.validation); chunksize is checked by the file reader
    expect(
        tl.TreelearnError,
        option if option == "chunksize" else f"{option} == {value!r}, must be",
        tl.chow_liu,
        data,
        **kwargs,
    )


def test_learner_options_have_one_wording():
    from treelearn.learners._em import chow_liu_em
    from treelearn.structure._trees import spanning_skeleton

    expect(
        tl.TreelearnError,
        "equivalent_sample_size == True, must be a finite number > 0",
        tl.tree_posterior,
        DF,
        equivalent_sample_size=True,
    )
    assert tl.tree_posterior(DF, equivalent_sample_size=np.float32(2)).equivalent_sample_size == 2
    expect(
        tl.TreelearnError,
        "missing == 'pairwise', must be one of 'error', 'drop'",
        tl.tree_posterior,
        DF,
        missing="pairwise",
    )
    expect(
        tl.TreelearnError,
        "kind == 'poisson', must be one of 'categorical', 'gaussian'",
        tl.mi_graph,
        DF,
        kind="poisson",
    )
    expect(tl.TreelearnError, "missing == 'skip', must be one of", tl.mi_graph, DF, missing="skip")
    expect(
        tl.TreelearnError,
        "unseen == 'drop', must be one of 'error', 'ignore'",
        encode,
        DF,
        unseen="drop",
    )
    expect(
        tl.TreelearnError,
        "max_states == True, must be an integer >= 1",
        encode,
        DF,
        max_states=True,
    )
    assert encode(DF, max_states=np.int64(2)).states[0] == ("x", "y")
    stats = count(DF.astype(object).mask(DF.index.to_series() == 0, None), missing="pairwise")
    for bad in (
        {"max_iter": True},
        {"max_iter": 0},
        {"max_iter": 2.0},
        {"tol": -1.0},
        {"tol": float("nan")},
    ):
        name, value = next(iter(bad.items()))
        expect(
            tl.TreelearnError,
            f"{name} == {value!r}, must be",
            chow_liu_em,
            stats,
            lambda s: tl.chow_liu(DF),
            **bad,
        )
    W = np.zeros((3, 3))
    expect(
        tl.TreelearnError,
        "n_classes == 0, must be an integer >= 1",
        spanning_skeleton,
        list("abc"),
        W,
        n_classes=0,
    )
    expect(
        tl.TreelearnError,
        "forest == 'mdl', must be one of 'bic', 'aic'",
        spanning_skeleton,
        list("abc"),
        W,
        forest="mdl",
    )


@pytest.mark.parametrize("bins", [10**7, 10_001, 0, True, 2.0, "5"])
def test_discretize_refuses_bad_or_unbounded_bins_before_any_work(bins):
    wide = pd.DataFrame({"x": np.arange(10**5, dtype=float)})
    expect(
        tl.TreelearnError,
        f"bins == {bins!r}, must be an integer >= 1 and <= 10000",
        tl.discretize,
        wide,
        bins=bins,
    )


def test_discretize_takes_numpy_integers_and_names_a_bad_strategy():
    df = pd.DataFrame({"x": [0.1, 0.2, 0.3, 0.4]})
    assert tl.discretize(df, bins=np.int64(2))["x"].nunique() == 2
    expect(
        tl.TreelearnError,
        "strategy == 'kmeans', must be one of 'quantile', 'uniform'",
        tl.discretize,
        df,
        strategy="kmeans",
    )


def test_numpy_scalars_are_numbers():
    # forest=np.int64(0) is a threshold of 0 nats: every positive-MI edge is kept
    assert tl.chow_liu(DF, forest=np.int64(0)).graph.number_of_edges() == 2
    assert tl.chow_liu(DF, alpha=np.float32(1)).settings["alpha"] == 1.0


# ---------------------------------------------------------------------- data
@pytest.mark.parametrize("data", [[[1, 2]], np.zeros((3, 2)), None, nx.DiGraph()])
def test_non_dataframe_is_a_type_error(data):
    expect(tl.InputTypeError, type(data).__name__, tl.chow_liu, data)
    with pytest.raises(TypeError):  # the old type keeps working
        tl.chow_liu(data)


@pytest.mark.parametrize("cell", [[1], {"k": 1}, np.zeros(2), {1, 2}])
def test_unhashable_cells_name_the_column(cell, tmp_path):
    bad = pd.DataFrame({"b": [1, 2], "weird": [cell, cell]})
    expect(tl.InputTypeError, "'weird'", tl.chow_liu, bad)
    model = tl.chow_liu(pd.DataFrame({"b": [1, 2], "weird": [1, 2]}))
    expect(tl.InputTypeError, "'weird'", model.log_likelihood, bad)


def test_parquet_list_column_names_the_column(tmp_path):
    path = tmp_path / "l.parquet"
    pd.DataFrame({"b": [1, 2], "lst": [[1, 2], [3]]}).to_parquet(path)
    expect(tl.InputTypeError, "'lst'", tl.chow_liu, path)
    assert main(["learn", str(path)]) == 1  # one line on stderr, no traceback


def test_parquet_repeated_column_names_are_refused(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "dup.parquet"
    pq.write_table(
        pa.table(
            [pa.array([1, 2, 1]), pa.array([0, 1, 1]), pa.array([3, 3, 4])], names=["a", "b", "a"]
        ),
        path,
    )
    for fit in (
        tl.chow_liu,
        lambda p: tl.TreeMixture(n_components=2).fit(p),
        lambda p: tl.NaiveBayes().fit(p, "b"),
    ):
        expect(tl.DuplicateColumnError, "duplicate column name(s) ['a']", fit, path)
    assert main(["learn", str(path)]) == 1  # one line on stderr, no traceback


def test_sample_guards():
    model = tl.chow_liu(DF)
    expect(tl.ResourceLimitError, "GiB", model.sample, 10**12)
    for n in (-1, 2.5, 1.5, True, np.bool_(True), "3", None):
        expect(tl.TreelearnError, f"n == {n!r}, must be an integer >= 0", model.sample, n)
    assert len(model.sample(np.int64(3))) == len(model.sample(3)) == 3  # numpy integers are
    assert len(model.sample(0)) == 0  # integers
    expect(
        tl.TreelearnError,
        "evidence == 7, must be None or a dict",
        lambda: model.sample(3, evidence=7),
    )


def test_pair_count_matrix_guard(monkeypatch):
    # 4 columns of 2 states: an 8 x 8 matrix of 8-byte counts, twice at the peak, and
    # two 4 x 4 matrices of the columns (MI, the tree's weights): 8 * (128 + 32) bytes
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 8 * (2 * 8 * 8 + 2 * 4 * 4) - 1)
    table = pd.DataFrame({f"v{i}": [0, 1] for i in range(4)})
    expect(tl.ResourceLimitError, "max_states", tl.chow_liu, table)
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 8 * (2 * 8 * 8 + 2 * 4 * 4))
    tl.chow_liu(table)


def test_classifier_bad_input():
    X, y = DF[["a", "b"]], DF["c"]
    expect(tl.TreelearnError, "class_prior", tl.NaiveBayes(class_prior=[2, 3]).fit, X, y)
    expect(tl.ClassLabelError, "2 labels", tl.NaiveBayes().fit, X, y[:2])
    nb = tl.NaiveBayes().fit(X, y)
    expect(tl.FeatureMismatchError, "'b'", nb.predict, X[["a"]])


# ---------------------------------------------------------------------- deep trees
def test_chain_of_1500_variables_prints_and_draws(tmp_path):
    n = 1500
    chain = pd.DataFrame({f"v{i}": (np.arange(4) >> (i % 2)) % 2 for i in range(n)})
    model = tl.fit_cpts(nx.DiGraph([(f"v{i}", f"v{i + 1}") for i in range(n - 1)]), chain)
    lines = model.to_text().splitlines()
    assert len(lines) == n + 1 and lines[-1].strip().startswith("└── v1499")
    assert model.to_dot().count("->") == n - 1
    model.save(tmp_path / "deep.json")
    assert tl.load(tmp_path / "deep.json") == model
    pos = layout(
        {f"v{i}": [f"v{i + 1}"] for i in range(n - 1)}, ["v0"], {f"v{i}": 1.0 for i in range(n)}
    )
    assert pos["v1499"][1] == n - 1  # depth of the last node


# ---------------------------------------------------------------------- files
def _write(path, data):
    (path.write_bytes if isinstance(data, bytes) else path.write_text)(data)
    return path


FILES = [
    ("ragged.csv", "a,b\n1,2\n3,4,5\n", tl.DataFileError, "well-formed CSV"),
    ("gzip.csv", gzip.compress(b"a,b\n1,2\n"), tl.DataFileError, "UTF-8"),
    ("fake.parquet", "a,b\n1,2\n", tl.DataFileError, "Parquet"),
    ("empty.csv", "", tl.EmptyDataError, "empty"),
]


@pytest.mark.parametrize("name, content, error, pattern", FILES)
def test_bad_files(tmp_path, name, content, error, pattern, capsys):
    path = _write(tmp_path / name, content)
    for reader in (tl.read_data, tl.chow_liu, tl.mi_graph):
        expect(error, pattern, reader, path)
        expect(error, name, reader, path)
    assert main(["learn", str(path)]) == 1
    assert name in capsys.readouterr().err


def test_directory_without_parquet(tmp_path):
    _write(tmp_path / "a.csv", "a\n1\n")
    expect(tl.DataFileError, "directory", tl.read_data, tmp_path)
    expect(tl.DataFileError, "directory", tl.chow_liu, tmp_path)


def test_parquet_dataset_directory_is_accepted(tmp_path):
    ds = tmp_path / "ds"
    ds.mkdir()
    DF.iloc[:2].to_parquet(ds / "part.0.parquet")
    DF.iloc[2:].to_parquet(ds / "part.1.parquet")
    assert tl.read_data(ds).equals(DF)
    assert tl.chow_liu(ds) == tl.chow_liu(DF)
    assert main(["learn", str(ds), "-o", str(tmp_path / "m.json")]) == 0


def test_whole_file_and_streaming_reads_give_the_same_states(tmp_path):
    # pandas' low-memory reader parses blocks of ~260,000 rows separately: "1" became 1
    path = tmp_path / "mixed.csv"
    path.write_text("a,b\n" + "1,0\n" * 300_000 + "x,1\n")
    whole = tl.read_data(path)
    assert sorted(whole["a"].unique()) == ["1", "x"]
    assert tl.chow_liu(path).states["a"] == tl.chow_liu(whole).states["a"] == ["1", "x"]


def test_chunksize_one_is_batched(tmp_path):
    path = tmp_path / "t.csv"
    pd.DataFrame({"a": np.arange(20_000) % 3, "b": np.arange(20_000) % 2}).to_csv(path, index=False)
    chunks = list(iter_chunks(path, 1))
    assert len(chunks) == 20 and all(len(c) == MIN_CHUNK_ROWS for c in chunks)
    assert tl.chow_liu(path, chunksize=1) == tl.chow_liu(pd.read_csv(path))


def test_save_to_a_directory_leaves_no_tmp(tmp_path):
    target = tmp_path / "dir"
    target.mkdir()
    expect(tl.ModelFileError, "directory", tl.chow_liu(DF).save, target)
    assert not os.path.exists(str(target) + ".tmp")


# ---------------------------------------------------------------------- model files
@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "m.json"
    tl.chow_liu(DF).save(path)
    return path


def _nodes(doc):
    return {n["name"]: n for n in doc["model"]["nodes"]}


HOSTILE = [
    ("deep nesting", lambda d: "[" * 100_000 + "]" * 100_000, tl.CorruptModelFileError, "nested"),
    (
        "huge int",
        lambda d: json.dumps(d).replace('"n_rows": 4', '"n_rows": 1' + "0" * 5000),
        tl.CorruptModelFileError,
        "value",
    ),
    (
        "n_rows inf",
        lambda d: json.dumps(d).replace('"n_rows": 4', '"n_rows": 1e400'),
        tl.InvalidModelError,
        "n_rows",
    ),
    (
        "dtype S",
        lambda d: _nodes(d)["a"].update(dtype="S2000000000"),
        tl.InvalidModelError,
        "S2000000000",
    ),
    (
        "dtype V",
        lambda d: _nodes(d)["a"].update(dtype="V100000000"),
        tl.InvalidModelError,
        "V100000000",
    ),
    (
        "dtype cat",
        lambda d: _nodes(d)["a"].update(
            dtype={"category": ["x", "y"], "categories_dtype": "U1000000000"}
        ),
        tl.InvalidModelError,
        "'a'",
    ),
    ("equal states", lambda d: _nodes(d)["b"].update(states=[1, 1.0]), tl.InvalidModelError, "'b'"),
    (
        "cycle",
        lambda d: (
            _nodes(d)["a"].update(parents=["c"], cpt=[[0.5, 0.5]] * 2),
            d["model"]["edges"].append({"source": "c", "target": "a"}),
        ),
        tl.InvalidModelError,
        "cycle",
    ),
    ("roots", lambda d: d["model"]["graph"].update(roots=["zz"]), tl.InvalidModelError, "roots"),
    ("roots int", lambda d: d["model"]["graph"].update(roots=5), tl.InvalidModelError, "roots"),
    (
        "weight",
        lambda d: d["model"]["edges"][0]["attrs"].update(weight="x"),
        tl.InvalidModelError,
        "weight",
    ),
    ("attrs", lambda d: d["model"]["edges"][0].update(attrs=[1]), tl.InvalidModelError, "attrs"),
    (
        "cpt text",
        lambda d: _nodes(d)["a"].update(cpt=["0.5", "0.5"]),
        tl.InvalidModelError,
        "'0.5'",
    ),
    ("settings", lambda d: d["model"]["settings"].update(alpha="x"), tl.InvalidModelError, "alpha"),
    ("graph n", lambda d: d["model"]["graph"].update(n="x"), tl.InvalidModelError, "n must"),
]


@pytest.mark.parametrize("name, change, error, pattern", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_model_files(saved, name, change, error, pattern):
    doc = json.loads(saved.read_text())
    text = change(doc)
    saved.write_text(text if isinstance(text, str) else json.dumps(doc))
    expect(error, pattern, tl.load, saved)
    assert main(["show", str(saved)]) == 1


def test_reordered_classes_are_refused(tmp_path):
    path = tmp_path / "nb.json"
    tl.NaiveBayes().fit(DF[["a", "b"]], DF["c"]).save(path)
    doc = json.loads(path.read_text())
    doc["state"]["classes"] = doc["state"]["classes"][::-1]
    path.write_text(json.dumps(doc))
    expect(tl.InvalidModelError, "reordered", tl.load, path)
    doc["state"]["classes"] = doc["state"]["classes"][::-1]
    doc["state"]["classes_dtype"] = "S2000000000"
    path.write_text(json.dumps(doc))
    expect(tl.InvalidModelError, "S2000000000", tl.load, path)


# ---------------------------------------------------------------------- Hypothesis
LABELS = st.one_of(
    st.integers(-3, 3),
    st.sampled_from(["x", "y", "é,\n", ""]),
    st.booleans(),
    st.none(),
    st.just(float("nan")),
    st.floats(-2, 2, allow_nan=False),
)
NAMES = st.text(st.characters(codec="utf-8"), min_size=0, max_size=4)


@st.composite
def frames(draw):
    names = draw(st.lists(NAMES, min_size=0, max_size=3, unique=True))
    n = draw(st.integers(0, 3))
    return pd.DataFrame(
        {c: pd.Series(draw(st.lists(LABELS, min_size=n, max_size=n)), dtype=object) for c in names}
    )


def _brute_joint(model, row) -> float:
    return sum(
        math.log(
            model.cpt(v)[
                tuple(model.states[p].index(row[p]) for p in model.parents(v))
                + (model.states[v].index(row[v]),)
            ]
        )
        for v in model.variables
    )


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(frames(), st.sampled_from(["error", "drop", "pairwise"]))
def test_random_frames_error_or_correct(tmp_path_factory, df, missing):
    original = df.copy()
    try:
        model = tl.chow_liu(df, missing=missing, alpha=1)
    except tl.TreelearnError:
        return
    finally:
        pd.testing.assert_frame_equal(df, original)  # never mutates the caller's frame
    path = tmp_path_factory.mktemp("h") / "m.json"
    model.save(path)
    loaded = tl.load(path)
    assert loaded == model
    complete = df.dropna()
    if len(complete):
        brute = sum(_brute_joint(model, row) for _, row in complete.iterrows())
        assert loaded.log_likelihood(complete) == pytest.approx(brute)
    v = model.variables[-1]
    q = loaded.query(v)
    assert np.asarray(q).sum() == pytest.approx(1.0)
    if len(model.variables) >= 2 and len(complete) >= 2:
        y = complete[v]
        try:
            clf = tl.NaiveBayes().fit(complete.drop(columns=[v]), y)
        except tl.TreelearnError:
            return
        assert set(clf.predict(complete.drop(columns=[v])).tolist()) <= set(clf.classes_.tolist())


def test_scoring_or_predicting_no_rows_says_so():
    df = pd.read_csv("datasets/asia.csv")
    model = tl.chow_liu(df)
    clf = tl.NaiveBayes().fit(df.drop(columns="either"), df["either"])
    for call in (
        lambda: model.log_likelihood(df.head(0)),
        lambda: model.predict_proba(df.head(0), "lung"),
        lambda: clf.predict_proba(df.drop(columns="either").head(0)),
    ):
        with pytest.raises(tl.EmptyDataError, match=r"nothing to (score|predict)") as info:
            call()
        assert "learn" not in str(info.value)


def test_booleans_beside_the_numbers_one_and_zero_are_refused():
    # Hypothesis found it: pandas hashes True == 1, so the column's states were [0, 1] (or
    # [0, True], whichever came first) while scoring keeps a bool apart from a number
    for values in ([1, True, 0], [True, 1, 0], [False, 0.0, "x"]):
        df = pd.DataFrame({"a": pd.Series(values, dtype=object), "b": [0, 1, 0]})
        with pytest.raises(tl.TreelearnError, match="booleans and the numbers 0/1") as info:
            tl.chow_liu(df, alpha=1)
        assert info.value.column == "a"
    # bools beside other values (text, 2.5) do not merge and stay states of their own
    for values, expected in (
        ([True, "x", 2.5], ["'x'", "2.5", "True"]),
        ([True, "1", "0"], ["'0'", "'1'", "True"]),
    ):  # text "1" != True
        df = pd.DataFrame({"a": pd.Series(values, dtype=object), "b": [0, 1, 0]})
        model = tl.chow_liu(df, alpha=1)
        assert sorted(map(repr, model.states["a"])) == expected
        assert model.log_likelihood(df) == pytest.approx(
            sum(_brute_joint(model, row) for _, row in df.iterrows())
        )
