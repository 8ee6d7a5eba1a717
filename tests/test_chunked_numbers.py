"""A CSV/Parquet file handed to a classifier under the default numbers="mdl" is read in
chunks with its numeric features cut into MDL bins: the oracle is the same classifier fitted
on the DataFrame read whole (the same bins, the same predict_log_proba to round-off), and
the MDL cut points of the chunked value x class tables equal those of the rows themselves."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
import treelearn.sources._value_class_counts as vcc
from treelearn.encoding._mdl import mdl_cut_points


def _table(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    shift = pd.Series(y).map({"a": 0.0, "b": 1.5, "c": 3.0}).to_numpy()
    age = np.round(30 + 8 * shift + rng.normal(0, 6, n)).astype(int)  # whole numbers
    wage = np.round(10 + 2 * shift + rng.normal(0, 2, n), 2)
    wage[rng.random(n) < 0.05] = np.nan  # gaps: some chunks read it with NaN
    town = rng.choice(["x", "y", "z"], size=n)
    return pd.DataFrame({"age": age, "wage": wage, "town": town, "label": y})


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(vcc, "CHUNK_ROWS", 1)  # iter_chunks' floor: 1,000 rows a chunk


@pytest.mark.parametrize("name", ["NaiveBayes", "TAN", "AODE", "KDB"])
@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_file_in_chunks_is_binned_as_the_frame_read_whole(tmp_path, small_chunks, name, suffix):
    if suffix == "parquet":
        pytest.importorskip("pyarrow")
    df = _table()
    path = tmp_path / f"t.{suffix}"
    df.to_csv(path, index=False) if suffix == "csv" else df.to_parquet(path, index=False)
    whole = pd.read_csv(path) if suffix == "csv" else pd.read_parquet(path)
    X, y = whole.drop(columns="label"), whole["label"]
    from_file = getattr(tl, name)().fit(str(path), "label")
    from_frame = getattr(tl, name)().fit(X, y)
    assert sorted(from_file.binner_.edges_) == ["age", "wage"]
    for c in ("age", "wage"):
        np.testing.assert_array_equal(from_file.binner_.edges_[c], from_frame.binner_.edges_[c])
        assert from_file.binner_.categories_[c] == from_frame.binner_.categories_[c]
    assert len(from_frame.binner_.edges_["age"]) >= 1  # the class moves age: cut somewhere
    # the same counts: the same answers (sums in another order: round-off)
    np.testing.assert_allclose(
        from_file.predict_log_proba(X), from_frame.predict_log_proba(X), rtol=1e-12, atol=1e-12
    )
    # the bins saved with it: a file read back answers alike
    from_file.save(tmp_path / "model.json")
    back = tl.load(tmp_path / "model.json")
    np.testing.assert_array_equal(back.predict_log_proba(X), from_file.predict_log_proba(X))


def test_value_class_tables_give_the_cut_points_of_the_rows(tmp_path, small_chunks):
    df = _table(2500, seed=1)
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    tables = vcc.value_class_counts(str(path), "label", None, "NaiveBayes")
    assert sorted(tables) == ["age", "wage"]  # town is text: states
    codes = pd.factorize(df["label"])[0]
    for c in ("age", "wage"):
        t = tables[c]
        # the table sums to the rows where the value is present, and each cell to its rows
        assert t["weight"].sum() == df[c].notna().sum()
        direct = df[df[c].notna()].groupby([c, "label"]).size()
        merged = t.set_index(["value", "label"])["weight"].sort_index()
        assert merged.to_dict() == pytest.approx(direct.astype(float).to_dict())
        cells = pd.factorize(t["label"])[0]
        mapping = dict(zip(t["label"], cells))
        from_cells = mdl_cut_points(t["value"].to_numpy(float), cells, t["weight"].to_numpy(float))
        from_rows = mdl_cut_points(df[c].to_numpy(float), codes)
        assert len(mapping) == 3
        np.testing.assert_allclose(from_cells, from_rows, rtol=0, atol=1e-12)


def test_categorical_keeps_a_numeric_column_as_states(tmp_path, small_chunks):
    df = _table(1500, seed=2)
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    clf = tl.NaiveBayes(categorical=["age"]).fit(str(path), "label")
    assert list(clf.binner_.edges_) == ["wage"]
    whole = pd.read_csv(path)
    frame = tl.NaiveBayes(categorical=["age"]).fit(whole.drop(columns="label"), whole["label"])
    X = whole.drop(columns="label")
    np.testing.assert_allclose(clf.predict_log_proba(X), frame.predict_log_proba(X), rtol=1e-12)


def test_too_many_distinct_values_are_refused_naming_the_fixes(tmp_path, small_chunks, monkeypatch):
    monkeypatch.setattr(vcc, "MAX_DISTINCT_VALUES", 50)
    df = _table(3000, seed=3)
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    with pytest.raises(
        tl.TreelearnError, match=r"numbers=\"states\".*categorical=\['(age|wage)'\]"
    ):
        tl.NaiveBayes().fit(str(path), "label")


def test_states_option_keeps_counting_values(tmp_path):
    df = _table(800, seed=4).drop(columns="wage")
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    with pytest.warns(tl.NumericColumnWarning):  # each age a state, as documented
        clf = tl.NaiveBayes(numbers="states").fit(str(path), "label")
    assert clf.binner_ is None
    frame = tl.NaiveBayes(numbers="states").fit(df.drop(columns="label"), df["label"])
    X = df.drop(columns="label")
    np.testing.assert_allclose(clf.predict_log_proba(X), frame.predict_log_proba(X), rtol=1e-12)
