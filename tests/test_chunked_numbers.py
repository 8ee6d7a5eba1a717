"""A CSV/Parquet file handed to a classifier under the default numbers="mdl" is read in
chunks with its numeric features cut into MDL bins: the oracle is the same classifier fitted
on the DataFrame read whole (the same bins, the same predict_log_proba to round-off), and
the MDL cut points of the chunked value x class tables equal those of the rows themselves."""

from __future__ import annotations

import tracemalloc

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
    tables = vcc.scan_labelled_file(str(path), "label", None, "NaiveBayes").tables
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


def test_the_second_pass_holds_codes_not_the_table(tmp_path, small_chunks):
    # 200,000 rows in 1,000-row chunks: the second pass keeps each chunk's codes (4 small
    # integers a row, 0.8 MB in all), never the rows read (the frame read whole is 6.8 MB
    # with pandas 3's text dtype; joining the binned chunks held it and its parts).
    # tracemalloc counts numpy and pandas buffers; the bound leaves room for one chunk
    n = 200_000
    df = _table(n, seed=5)
    path = tmp_path / "big.csv"
    df.to_csv(path, index=False)
    frame_bytes = pd.read_csv(path).memory_usage(deep=True).sum()
    scan = vcc.scan_labelled_file(str(path), "label", None, "NaiveBayes")
    binner = vcc.mdl_binner_of_counts(scan.tables, list(scan.tables))
    tracemalloc.start()
    try:
        counts = vcc.counted_file(str(path), "label", binner, scan)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert counts.table is not None and counts.table.codes.nbytes <= 4 * n
    assert peak < frame_bytes / 2, (peak, frame_bytes)
    # and the counts are the file's: every row counted once, by class
    np.testing.assert_array_equal(counts.class_count, df["label"].value_counts().sort_index())


def test_weights_and_zero_weight_rows_in_chunks_are_the_frames(tmp_path, small_chunks):
    df = _table(2600, seed=6)
    rng = np.random.default_rng(6)
    df["w"] = rng.integers(0, 3, len(df))  # zero: the row is absent
    path = tmp_path / "w.csv"
    df.to_csv(path, index=False)
    from_file = tl.TAN().fit(str(path), "label", sample_weight="w")
    X = df.drop(columns=["label", "w"])
    from_frame = tl.TAN().fit(X, df["label"], sample_weight=df["w"].to_numpy())
    for c in ("age", "wage"):
        np.testing.assert_array_equal(from_file.binner_.edges_[c], from_frame.binner_.edges_[c])
    np.testing.assert_array_equal(from_file.class_count_, from_frame.class_count_)
    np.testing.assert_allclose(
        from_file.predict_log_proba(X), from_frame.predict_log_proba(X), rtol=1e-12, atol=1e-12
    )


def test_missing_labels_in_a_later_chunk_are_refused(tmp_path, small_chunks):
    df = _table(2500, seed=7)
    df.loc[[10, 2200], "label"] = np.nan
    path = tmp_path / "m.csv"
    df.to_csv(path, index=False)
    with pytest.raises(tl.TreelearnError, match="2 missing class label"):
        tl.NaiveBayes().fit(str(path), "label")


def test_partial_fit_after_a_file_fit_cuts_new_rows_with_its_bins(tmp_path, small_chunks):
    df = _table(3000, seed=8)
    first, rest = df.iloc[:2000], df.iloc[2000:]
    path = tmp_path / "first.csv"
    first.to_csv(path, index=False)
    clf = tl.NaiveBayes().fit(str(path), "label")
    clf.partial_fit(rest.drop(columns="label"), rest["label"])
    whole = pd.read_csv(path)
    oracle = tl.NaiveBayes().fit(whole.drop(columns="label"), whole["label"])
    oracle.partial_fit(rest.drop(columns="label"), rest["label"])
    X = df.drop(columns="label")
    np.testing.assert_array_equal(clf.class_count_, df["label"].value_counts().sort_index())
    np.testing.assert_allclose(
        clf.predict_log_proba(X), oracle.predict_log_proba(X), rtol=1e-12, atol=1e-12
    )


def test_a_float_column_kept_as_states_is_judged_on_its_counts(tmp_path, small_chunks):
    # categorical=["grade"]: fractional floats, each seen many times, are taken as states
    # with a note when the table is read whole; the chunks must judge them on the whole
    # file's counts (each value seen once per chunk's distinct values would be refused)
    df = _table(2400, seed=9)
    df["grade"] = np.random.default_rng(9).choice([0.5, 1.5, 2.5], size=len(df))
    path = tmp_path / "g.csv"
    df.to_csv(path, index=False)
    X = df.drop(columns="label")
    with pytest.warns(tl.NumericColumnWarning, match="3 distinct float values"):
        frame = tl.NaiveBayes(categorical=["grade"]).fit(X, df["label"])
    with pytest.warns(tl.NumericColumnWarning, match="3 distinct float values"):
        from_file = tl.NaiveBayes(categorical=["grade"]).fit(str(path), "label")
    assert from_file.binner_ is not None and sorted(from_file.binner_.edges_) == ["age", "wage"]
    np.testing.assert_allclose(
        from_file.predict_log_proba(X), frame.predict_log_proba(X), rtol=1e-12, atol=1e-12
    )


def test_gaps_in_a_later_chunk_give_the_states_and_dtypes_of_the_frame(tmp_path, small_chunks):
    # age kept as states gets a gap only after its first chunk (read as int, then float),
    # town a missing cell: the states, their dtypes and the answers are the frame's
    df = _table(2500, seed=10)
    df["age"] = df["age"].astype("Int64")  # written "30": the first chunk reads integers
    df.loc[[1500, 2100], "age"] = pd.NA
    df.loc[[1700], "town"] = np.nan
    path = tmp_path / "gaps.csv"
    df.to_csv(path, index=False)
    whole = pd.read_csv(path)
    X, y = whole.drop(columns="label"), whole["label"]
    with pytest.warns(tl.NumericColumnWarning):  # many ages as states: noted once
        from_file = tl.TAN(categorical=["age"]).fit(str(path), "label")
    with pytest.warns(tl.NumericColumnWarning):
        frame = tl.TAN(categorical=["age"]).fit(X, y)
    assert list(from_file.binner_.edges_) == ["wage"]
    assert from_file._feature_states() == frame._feature_states()
    np.testing.assert_allclose(
        from_file.predict_log_proba(X), frame.predict_log_proba(X), rtol=1e-12, atol=1e-12
    )


def test_a_first_partial_fit_on_a_file_refuses_numbers_as_a_frame_does(tmp_path):
    # whole numbers only (each encodable as a state): counted raw, the file would give a
    # silently different model from the frame's refusal
    df = _table(1200, seed=11).drop(columns="wage")
    path = tmp_path / "ints.csv"
    df.to_csv(path, index=False)
    X, y = df.drop(columns="label"), df["label"]
    with pytest.raises(tl.TreelearnError, match=r"cannot cut the numeric feature\(s\) 'age'"):
        tl.NaiveBayes().partial_fit(X, y, classes=["a", "b", "c"])
    with pytest.raises(tl.TreelearnError, match=r"cannot cut the numeric feature\(s\) 'age'"):
        tl.NaiveBayes().partial_fit(str(path), "label", classes=["a", "b", "c"])
    # numbers="states" keeps counting them as states, from the file as from the frame
    with pytest.warns(tl.NumericColumnWarning):
        from_file = tl.NaiveBayes(numbers="states").partial_fit(
            str(path), "label", classes=["a", "b", "c"]
        )
    with pytest.warns(tl.NumericColumnWarning):
        frame = tl.NaiveBayes(numbers="states").partial_fit(X, y, classes=["a", "b", "c"])
    np.testing.assert_allclose(
        from_file.predict_log_proba(X), frame.predict_log_proba(X), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("name", ["NaiveBayes", "TAN"])
def test_partial_fit_on_a_file_after_a_fit_cuts_it_with_the_fits_bins(tmp_path, name):
    # whole-number ages of a later file: counted raw they were mapped onto the bins and
    # refused (UnseenStateError); cut first they add to the fit's counts as a frame does
    df = _table(3000, seed=12).drop(columns="wage")
    first, rest = df.iloc[:2000], df.iloc[2000:]
    path = tmp_path / "rest.csv"
    rest.to_csv(path, index=False)
    clf = getattr(tl, name)().fit(first.drop(columns="label"), first["label"])
    clf.partial_fit(str(path), "label")
    oracle = getattr(tl, name)().fit(first.drop(columns="label"), first["label"])
    oracle.partial_fit(rest.drop(columns="label"), rest["label"])
    X = df.drop(columns="label")
    np.testing.assert_array_equal(clf.class_count_, df["label"].value_counts().sort_index())
    np.testing.assert_allclose(
        clf.predict_log_proba(X), oracle.predict_log_proba(X), rtol=1e-12, atol=1e-12
    )
