"""A CSV/Parquet path fitted under ``numbers="states"`` is read in chunks (issue 39: memory
that does not grow with rows): two passes, the first finding the states and classes from each
chunk's distinct values, the second keeping only each chunk's codes. The oracle is the same
classifier fitted on the DataFrame read whole by pandas: the same states, counts and answers,
the same refusals; no pass holds more than one chunk of rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
import treelearn.classifiers._partial  # bound to the real readers before they are patched
import treelearn.sources._count as count_module
import treelearn.sources._value_class_counts as vcc

NAMES = ["NaiveBayes", "TAN", "KDB", "AODE", "SKDB"]


def _table(n: int = 3500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    shift = pd.Series(y).map({"a": 0, "b": 1, "c": 2}).to_numpy()
    level = np.where(rng.random(n) < 0.6, shift, rng.integers(0, 3, n))
    grade = level.astype(float)
    grade[rng.random(n) < 0.05] = np.nan  # gaps: some chunks read it as floats, some as ints
    town = rng.choice(["x", "y", "z"], size=n)
    town[n - 10 :] = "w"  # a state only the last chunk holds
    return pd.DataFrame(
        {"level": level, "grade": grade, "town": town, "w": rng.integers(0, 4, n), "label": y}
    )


@pytest.fixture
def small_chunks(monkeypatch):
    for name in NAMES:  # every module a fit imports, imported before the readers are patched
        getattr(tl, name)
    monkeypatch.setattr(vcc, "CHUNK_ROWS", 1)  # iter_chunks' floor: 1,000 rows a chunk
    largest = []
    real = vcc.iter_chunks

    def recorded(*args, **kwargs):
        for chunk in real(*args, **kwargs):
            largest.append(len(chunk))
            yield chunk

    monkeypatch.setattr(vcc, "iter_chunks", recorded)

    def refused(*args, **kwargs):
        raise AssertionError("the file was read whole")

    monkeypatch.setattr(count_module, "labelled_file", refused)
    monkeypatch.setattr(count_module, "read_whole", refused)
    return largest


def _write(df: pd.DataFrame, path, suffix: str) -> pd.DataFrame:
    if suffix == "parquet":
        pytest.importorskip("pyarrow")
        df.to_parquet(path, index=False)
        return pd.read_parquet(path)
    df.to_csv(path, index=False)
    return pd.read_csv(path)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_states_file_in_chunks_is_the_frame_read_whole(tmp_path, small_chunks, name, suffix):
    df = _table()
    whole = _write(df, tmp_path / f"t.{suffix}", suffix)
    path = str(tmp_path / f"t.{suffix}")
    X, y = whole.drop(columns=["label", "w"]), whole["label"]
    from_file = getattr(tl, name)(numbers="states").fit(path, "label", sample_weight="w")
    assert max(small_chunks) == 1000 and len(small_chunks) == 8  # 2 passes of 4 chunks
    from_frame = getattr(tl, name)(numbers="states").fit(X, y, sample_weight=whole["w"])
    assert from_file.binner_ is None and from_frame.binner_ is None
    assert from_file._feature_states() == from_frame._feature_states()
    assert "w" in from_file._feature_states()[2]  # the last chunk's state
    np.testing.assert_array_equal(from_file.classes_, from_frame.classes_)
    np.testing.assert_array_equal(from_file.class_count_, from_frame.class_count_)
    # the same counts: the same answers (integer counts summed chunk by chunk: exact; the
    # scores' sums in another order: round-off)
    np.testing.assert_allclose(
        from_file.predict_log_proba(X), from_frame.predict_log_proba(X), rtol=1e-12, atol=1e-12
    )


def test_states_file_without_weights(tmp_path, small_chunks):
    df = _table(2500, seed=2).drop(columns="w")
    whole = _write(df, tmp_path / "t.csv", "csv")
    X, y = whole.drop(columns="label"), whole["label"]
    from_file = tl.KDB(k=2, numbers="states").fit(str(tmp_path / "t.csv"), "label")
    from_frame = tl.KDB(k=2, numbers="states").fit(X, y)
    assert from_file.class_count_.dtype == from_frame.class_count_.dtype
    np.testing.assert_array_equal(from_file.class_count_, from_frame.class_count_)
    np.testing.assert_allclose(
        from_file.predict_log_proba(X), from_frame.predict_log_proba(X), rtol=1e-12, atol=1e-12
    )


def _error(call):
    with pytest.raises(tl.TreelearnError) as info:
        call()
    return type(info.value), str(info.value)


def test_states_file_refuses_as_the_frame(tmp_path, small_chunks):
    rng = np.random.default_rng(4)
    df = _table(2200, seed=4).drop(columns="w")
    df["wage"] = np.round(rng.normal(10, 3, len(df)), 3)  # a measured number: refused as states
    whole = _write(df, tmp_path / "t.csv", "csv")
    path = str(tmp_path / "t.csv")
    from_file = _error(lambda: tl.NaiveBayes(numbers="states").fit(path, "label"))
    from_frame = _error(
        lambda: tl.NaiveBayes(numbers="states").fit(whole.drop(columns="label"), whole["label"])
    )
    assert from_file == from_frame
    assert "wage" in from_file[1]
    # a label missing in a later chunk: refused, naming the count
    df = _table(2200, seed=5).drop(columns="w")
    df.loc[1500, "label"] = np.nan
    df.to_csv(tmp_path / "gap.csv", index=False)
    kind, message = _error(lambda: tl.NaiveBayes(numbers="states").fit(tmp_path / "gap.csv", "C"))
    assert "'C' is not a column" in message
    kind, message = _error(
        lambda: tl.NaiveBayes(numbers="states").fit(str(tmp_path / "gap.csv"), "label")
    )
    assert kind is tl.MissingValuesError and "1 missing class label" in message


@pytest.mark.parametrize("numbers", ["mdl", "states"])
def test_weights_given_as_an_array_are_sliced_chunk_by_chunk(tmp_path, small_chunks, numbers):
    # before: under numbers="mdl" an array of weights with a file was silently ignored
    df = _table(3300, seed=7)
    whole = _write(df.drop(columns="w"), tmp_path / "t.csv", "csv")
    X, y = whole.drop(columns="label"), whole["label"]
    w = df["w"].to_numpy(dtype=float)  # zeros among them: those rows left out
    from_file = tl.TAN(numbers=numbers).fit(str(tmp_path / "t.csv"), "label", sample_weight=w)
    from_frame = tl.TAN(numbers=numbers).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(from_file.class_count_, from_frame.class_count_)
    assert from_file.class_count_.sum() == w.sum()  # whole-number weights: exact
    kept = X[w > 0]
    np.testing.assert_allclose(
        from_file.predict_log_proba(kept),
        from_frame.predict_log_proba(kept),
        rtol=1e-12,
        atol=1e-12,
    )
    for wrong in (w[:-1], np.r_[w, 1.0]):
        with pytest.raises(
            tl.TreelearnError,
            match=r"sample_weight has 3(299|301) weights but .* has (more rows|3300 rows)",
        ):
            tl.TAN(numbers=numbers).fit(str(tmp_path / "t.csv"), "label", sample_weight=wrong)
