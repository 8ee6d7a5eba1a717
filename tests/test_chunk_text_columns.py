"""A CSV column that holds numbers in its first chunks and text later is read as text by
every chunked reader, as pandas reads it whole (issue 39, "Real files": a column holding
``1`` and ``"1"`` must get the states of the whole read, never both).

The oracle of every test is the same learner given the table read whole with pandas
(``pd.read_csv(path, low_memory=False)``: one type per column, text where any value is
text): the same states, the same saved model (counts and CPTs), the same predictions.
Chunks are 1,000 rows (``MIN_CHUNK_ROWS``); the mixed columns turn to text after row 2,000,
so the first two chunks parse them as numbers (or booleans).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
import treelearn.sources._files as files
import treelearn.sources._value_class_counts as vcc
from tests.conftest import installed_command, pop_all
from treelearn.cli._main import main
from treelearn.encoding._table import encode
from treelearn.sources._files import MIN_CHUNK_ROWS, count_file

#: the first row where the mixed columns hold text (the third 1,000-row chunk)
TEXT_FROM = 2 * MIN_CHUNK_ROWS + 500


def _table(n: int = 3500, seed: int = 0, text_from: int = TEXT_FROM) -> pd.DataFrame:
    """``code``: 0/1/2 as numbers, then also ``"x"`` (and ``"1"`` again as text);
    ``flag``: True/False, then also ``"maybe"``; ``age``: whole numbers (binned by MDL);
    ``town``: text throughout; ``label``: the class, related to every feature."""
    rng = np.random.default_rng(seed)
    label = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    shift = pd.Series(label).map({"a": 0, "b": 1, "c": 2}).to_numpy()
    code = np.where(rng.random(n) < 0.7, shift, rng.integers(0, 3, n)).astype(object)
    late = np.arange(n) >= text_from
    code[late & (rng.random(n) < 0.3)] = "x"
    flag = np.where(rng.random(n) < 0.3 + 0.2 * shift, "True", "False").astype(object)
    flag[late & (rng.random(n) < 0.2)] = "maybe"
    age = np.round(30 + 8 * shift + rng.normal(0, 6, n)).astype(int)
    town = np.where(rng.random(n) < 0.4 + 0.2 * shift, "p", rng.choice(["q", "r"], size=n))
    return pd.DataFrame({"code": code, "flag": flag, "age": age, "town": town, "label": label})


@pytest.fixture
def mixed_csv(tmp_path) -> Path:
    path = tmp_path / "mixed.csv"
    _table().to_csv(path, index=False)
    return path


@pytest.fixture
def small_chunks(monkeypatch):
    """The classifiers' file passes read 1,000 rows at a time (iter_chunks' floor)."""
    monkeypatch.setattr(vcc, "CHUNK_ROWS", 1)


def test_the_file_is_what_the_tests_need(mixed_csv):
    """The premise: pandas reads the first chunks' ``code``/``flag`` as numbers/booleans and a
    later chunk's as text, and the whole file's as text, keeping each value as written."""
    chunks = list(pd.read_csv(mixed_csv, chunksize=MIN_CHUNK_ROWS))
    assert pd.api.types.is_integer_dtype(chunks[0]["code"].dtype)
    assert pd.api.types.is_bool_dtype(chunks[0]["flag"].dtype)
    assert pd.api.types.is_string_dtype(chunks[2]["code"].dtype)
    whole = pd.read_csv(mixed_csv, low_memory=False)
    assert sorted(whole["code"].unique()) == ["0", "1", "2", "x"]
    assert sorted(whole["flag"].unique()) == ["False", "True", "maybe"]
    assert pd.api.types.is_integer_dtype(whole["age"].dtype)


def _whole(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, low_memory=False)


def _saved(estimator, tmp_path: Path, name: str) -> dict:
    estimator.save(tmp_path / name)
    return json.loads((tmp_path / name).read_text())


def _same_saved(a: dict, b: dict) -> None:
    """Equal saved models; KDB's leave-one-out losses are sums over rows taken in blocks
    (round-off only: relative 1e-12)."""
    losses = [pop_all(saved, "loo_loss") for saved in (a, b)]
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-12)
    assert a == b


# ---------------------------------------------------------------- densities: count_file, EM
@pytest.fixture
def density_csv(tmp_path) -> Path:
    """The table without its many-valued number column (a density takes it as states)."""
    path = tmp_path / "density.csv"
    _table().drop(columns=["age"]).to_csv(path, index=False)
    return path


def test_count_file_reads_the_mixed_columns_as_text(density_csv):
    counted = count_file(density_csv, chunksize=MIN_CHUNK_ROWS)
    whole = encode(_whole(density_csv))
    assert counted.states == whole.states
    assert counted.states[0] == ("0", "1", "2", "x")
    assert counted.states[1] == ("False", "True", "maybe")
    for i in range(len(whole.columns)):
        for j in range(len(whole.columns)):
            # the count table of columns i, j: one matrix product of the whole table's one-hots
            a, b = whole.codes[:, i], whole.codes[:, j]
            expected = np.zeros((len(whole.states[i]), len(whole.states[j])), dtype=np.int64)
            np.add.at(expected, (a, b), 1)
            np.testing.assert_array_equal(counted.counts.block(i, j), expected)


def test_chow_liu_of_the_file_in_chunks_is_the_whole_tables(density_csv, tmp_path):
    chunked = tl.chow_liu(density_csv, chunksize=MIN_CHUNK_ROWS)
    whole = tl.chow_liu(_whole(density_csv))
    assert _saved(chunked, tmp_path, "c.json") == _saved(whole, tmp_path, "w.json")


def test_em_passes_over_the_file_read_the_mixed_columns_as_text(density_csv):
    """TreeMixture with a chunksize reads the file at every EM pass (FileRows)."""
    df, path = _whole(density_csv), density_csv
    options = {"n_components": 2, "init": "k_best", "max_iter": 5, "random_state": 0}
    chunked = tl.TreeMixture(chunksize=MIN_CHUNK_ROWS, **options).fit(path).model_
    whole = tl.TreeMixture(**options).fit(df).model_
    for a, b in zip(chunked.components, whole.components):
        assert a.states == b.states
        assert a.parent_map == b.parent_map
    # sums over chunks vs over merged rows: the same EM to round-off
    np.testing.assert_allclose(chunked.weights, whole.weights, rtol=1e-9)
    np.testing.assert_allclose(chunked.score_samples(df), whole.score_samples(df), rtol=1e-9)


# ---------------------------------------------------------------- classifiers: fit(path, y)
CLASSIFIERS = [tl.NaiveBayes, tl.TAN, tl.KDB, tl.AODE, tl.SKDB]


@pytest.mark.parametrize("numbers", ["mdl", "states"])
@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda c: c.__name__)
def test_classifier_from_the_file_in_chunks_is_the_whole_tables(
    mixed_csv, tmp_path, small_chunks, cls, numbers
):
    """The two passes (value x class tables then codes), KDB/SKDB's blocked leave-one-out
    over the codes and the numbers='states' path: the whole read's states, CPTs and
    predictions."""
    df = _whole(mixed_csv)
    X, y = df.drop(columns=["label"]), df["label"]
    if numbers == "states":
        X, path = X.drop(columns=["age"]), mixed_csv.with_name("states.csv")
        X.assign(label=y).to_csv(path, index=False)
    else:
        path = mixed_csv
    chunked = cls(numbers=numbers).fit(path, "label")
    whole = cls(numbers=numbers).fit(X, y)
    _same_saved(_saved(chunked, tmp_path, "c.json"), _saved(whole, tmp_path, "w.json"))
    np.testing.assert_array_equal(chunked.predict(X), whole.predict(X))
    np.testing.assert_allclose(chunked.predict_proba(X), whole.predict_proba(X), rtol=0, atol=0)
    assert (chunked.binner_ is None) == (numbers == "states")
    if numbers == "mdl":  # the numbers are still binned; the mixed columns are not
        assert list(chunked.binner_.edges_) == ["age"]


def test_a_class_column_of_numbers_then_text_gives_the_whole_reads_classes(tmp_path, small_chunks):
    df = _table(seed=1)
    labels = df["label"].map({"a": "1", "b": "2", "c": "c"}).to_numpy(dtype=object)
    labels[:TEXT_FROM] = np.where(labels[:TEXT_FROM] == "c", "2", labels[:TEXT_FROM])
    df["label"] = labels
    path = tmp_path / "labels.csv"
    df.drop(columns=["code", "flag"]).to_csv(path, index=False)
    whole = _whole(path)
    assert list(whole["label"].unique()) != [] and whole["label"].map(type).eq(str).all()
    chunked = tl.TAN().fit(path, "label")
    expected = tl.TAN().fit(whole.drop(columns=["label"]), whole["label"])
    assert chunked.classes_.tolist() == ["1", "2", "c"] == expected.classes_.tolist()
    _same_saved(_saved(chunked, tmp_path, "c.json"), _saved(expected, tmp_path, "w.json"))


def test_partial_fit_of_a_path_judges_numbers_by_the_whole_read(mixed_csv, tmp_path, monkeypatch):
    """partial_fit(path) under numbers='mdl' refuses numeric features; a column of numbers in
    the first rows and text later is text (states), as the whole read types it (it was
    judged by the dtypes of the file's first chunk: refused)."""
    import treelearn.classifiers._numbers as numbers

    monkeypatch.setattr(numbers, "CHUNK_ROWS", 1, raising=False)  # where a first chunk was read
    df = _whole(mixed_csv)[["code", "flag", "town", "label"]]
    path = tmp_path / "partial.csv"
    df.to_csv(path, index=False)
    streamed = tl.NaiveBayes().partial_fit(path, "label", classes=["a", "b", "c"])
    whole = tl.NaiveBayes().fit(df.drop(columns=["label"]), df["label"])
    X = df.drop(columns=["label"])
    np.testing.assert_allclose(streamed.predict_proba(X), whole.predict_proba(X), rtol=1e-12)
    # a column of numbers throughout is still refused, naming it
    with pytest.raises(tl.TreelearnError, match="'age'"):
        tl.NaiveBayes().partial_fit(mixed_csv, "label", classes=["a", "b", "c"])


# ---------------------------------------------------------------- the command line
@pytest.fixture
def small_reads(monkeypatch, small_chunks):
    """Every chunked read of the command, its scoring pass too, 1,000 rows at a time."""
    read = files.iter_chunks
    monkeypatch.setattr(files, "iter_chunks", lambda path, chunksize, text=(): read(path, 1, text))


def _learn(monkeypatch, capsys, args, *, whole: bool) -> tuple[int, str, str]:
    import treelearn.cli._learn as learn

    with monkeypatch.context() as m:
        if whole:
            m.setattr(learn, "_streamable", lambda args: False)
        code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("method", ["naive-bayes", "tan", "kdb", "aode"])
def test_learn_class_streamed_reads_the_mixed_columns_as_text(
    mixed_csv, tmp_path, monkeypatch, capsys, small_reads, method
):
    args = ["learn", mixed_csv, "--class", "label", "--method", method]
    code, out, err = _learn(monkeypatch, capsys, [*args, "-o", tmp_path / "s.json"], whole=False)
    assert code == 0, err
    assert "in chunks (the table was not read whole)" in err
    # the note names the columns binned: 'age', not the mixed 'code' (numbers in row 1)
    assert "cutting the numeric column(s) ['age']" in err
    code, whole_out, whole_err = _learn(
        monkeypatch, capsys, [*args, "-o", tmp_path / "w.json"], whole=True
    )
    assert code == 0 and "in chunks" not in whole_err
    assert out == whole_out  # model, log-likelihood, BIC, training accuracy as printed
    streamed = json.loads((tmp_path / "s.json").read_text())
    _same_saved(streamed, json.loads((tmp_path / "w.json").read_text()))


def _installed() -> list[str]:
    found = installed_command()
    return [found] if found else [sys.executable, "-m", "treelearn"]


@pytest.mark.slow
def test_installed_command_streams_a_file_whose_column_turns_to_text(tmp_path):
    """Past the classifiers' 200,000-row chunks and the command's scoring chunks: 'code' is
    numbers in the first 200,000 rows and text after. The streamed command prints what the
    command reading the table whole prints (--keep code: an option that reads it whole and
    changes nothing here)."""
    n = vcc.CHUNK_ROWS + 1_500
    _table(n, seed=7, text_from=vcc.CHUNK_ROWS).drop(columns=["flag"]).to_csv(
        tmp_path / "big.csv", index=False
    )
    outs = []
    for extra in ([], ["--keep", "code"]):
        done = subprocess.run(
            [*_installed(), "learn", str(tmp_path / "big.csv"), "--class", "label", *extra],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert ("in chunks (the table was not read whole)" in done.stderr) == (not extra)
        outs.append(done.stdout)
    assert "code (4 states)" in outs[0]  # "0" "1" "2" "x": not also 0, 1, 2 as numbers
    assert outs[0] == outs[1]
