"""A file that fits in one chunk is read once (sources/_files.count_file): the same counts,
states and dtypes as the two chunked passes, and the same file-worded errors."""

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.sources import _files


def _frame(n=2500, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "i": rng.integers(0, 4, n),
            "t": rng.choice(["x", "y", "z"], n),
            "f": rng.choice([0.5, 1.5], n),
            "b": rng.random(n) < 0.3,
            "g": rng.choice(["u", "v"], n),
            "w": rng.integers(0, 3, n),  # row weights, zeros included
        }
    )
    df.loc[rng.random(n) < 0.05, "g"] = None
    return df


@pytest.mark.parametrize(
    "options",
    [
        {"missing": "pairwise"},
        {"missing": "drop", "sample_weight": "w"},
        {"missing": "pairwise", "states": {"t": ["z", "y", "x", "extra"]}},
    ],
)
def test_one_chunk_equals_the_two_passes(tmp_path, monkeypatch, options):
    path = tmp_path / "d.csv"
    df = _frame()
    (df if "sample_weight" in options else df.drop(columns="w")).to_csv(path, index=False)
    chunked = _files.count_file(path, chunksize=1000, **options)  # three chunks, two passes

    def no_scan(*args, **kwargs):
        raise AssertionError("a file of one chunk needs no scan")

    monkeypatch.setattr(_files, "scan_chunk", no_scan)
    whole = _files.count_file(path, **options)
    assert whole.columns == chunked.columns
    assert whole.states == chunked.states
    assert [str(d) for d in whole.dtypes] == [str(d) for d in chunked.dtypes]
    assert whole.n_rows == chunked.n_rows
    np.testing.assert_array_equal(whole.counts.joint, chunked.counts.joint)
    # and the in-memory count of the frame read whole
    frame = pd.read_csv(path)
    weights = options.get("sample_weight")
    kept = {k: v for k, v in options.items() if k != "sample_weight"}
    table = tl.chow_liu(
        frame.drop(columns=[weights]) if weights else frame,
        sample_weight=frame[weights] if weights else None,
        **kept,
    )
    assert set(table.graph.edges) == set(tl.chow_liu(path, **options).graph.edges)


def test_problems_keep_the_file_wording(tmp_path):
    path = tmp_path / "d.csv"
    _frame().drop(columns="w").to_csv(path, index=False)
    with pytest.raises(tl.TreelearnError, match=r"d\.csv"):
        _files.count_file(path)  # missing values in g, missing="error"


def test_mixed_numbers_and_text_read_as_text(tmp_path):
    path = tmp_path / "d.csv"
    pd.DataFrame({"a": ["1", "x", "1", "2"] * 300, "b": [0, 1] * 600}).to_csv(path, index=False)
    whole = _files.count_file(path)
    chunked = _files.count_file(path, chunksize=1000)
    assert whole.states == chunked.states
    np.testing.assert_array_equal(whole.counts.joint, chunked.counts.joint)


def test_notes_given_once(tmp_path):
    path = tmp_path / "d.csv"
    pd.DataFrame({"f": [0.5, 1.5] * 600, "i": [1, 2, 3] * 400}).to_csv(path, index=False)
    with pytest.warns(tl.NumericColumnWarning) as notes:
        _files.count_file(path)
    assert len([n for n in notes if issubclass(n.category, tl.NumericColumnWarning)]) == 1
