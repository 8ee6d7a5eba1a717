"""``treelearn learn FILE --class C`` with a classifier learns from the file in chunks (issue
39: memory that does not grow with rows), as ``fit(path, C)`` does, and scores it chunk by
chunk. The oracle is the same command with the table read whole (the path on main): the
same printed model, scores and training accuracy, the same model file up to the
leave-one-out losses' round-off; files whose first rows show what only the whole table's
checks handle (identifier-like columns, missing labels, gaps under --missing error, dates)
are read whole as before."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import treelearn.cli._common as common
import treelearn.cli._learn as learn
import treelearn.sources._value_class_counts as vcc
from tests.conftest import pop_all
from treelearn.cli._main import main


def _table(n: int = 3500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    shift = pd.Series(y).map({"a": 0.0, "b": 1.5, "c": 3.0}).to_numpy()
    age = np.round(30 + 8 * shift + rng.normal(0, 6, n)).astype(int)
    wage = np.round(10 + 2 * shift + rng.normal(0, 2, n), 2)
    wage[rng.random(n) < 0.05] = np.nan
    town = np.where(rng.random(n) < 0.5 + 0.1 * shift, "x", rng.choice(["y", "z"], size=n))
    sex = rng.choice(["f", "m"], size=n)
    return pd.DataFrame({"age": age, "wage": wage, "town": town, "sex": sex, "label": y})


def _run(monkeypatch, capsys, args, *, whole: bool) -> tuple[int, str, str]:
    with monkeypatch.context() as m:
        if whole:
            m.setattr(learn, "_streamable", lambda args: False)
        else:  # the streamed path never reads the table whole

            def refused(*a, **k):
                raise AssertionError("read whole")

            m.setattr(learn, "read_frame", refused)
            m.setattr(common, "read_frame", refused)
        code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(vcc, "CHUNK_ROWS", 1)  # iter_chunks' floor: 1,000 rows a chunk


@pytest.mark.parametrize("method", ["kdb", "naive-bayes", "tan", "aode"])
@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_learn_class_file_streamed_is_the_whole_table(
    tmp_path, monkeypatch, capsys, small_chunks, method, suffix
):
    df = _table()
    path = tmp_path / f"t.{suffix}"
    if suffix == "parquet":
        pytest.importorskip("pyarrow")
        df.to_parquet(path, index=False)
    else:
        df.to_csv(path, index=False)
    args = ["learn", path, "--class", "label", "--method", method, "--missing", "pairwise"]
    code, out, err = _run(monkeypatch, capsys, [*args, "-o", tmp_path / "s.json"], whole=False)
    assert code == 0, err
    assert "in chunks (the table was not read whole)" in err
    code, whole_out, whole_err = _run(
        monkeypatch, capsys, [*args, "-o", tmp_path / "w.json"], whole=True
    )
    assert code == 0 and "in chunks" not in whole_err
    assert out == whole_out  # the model, log-likelihood, BIC and training accuracy as printed
    assert "training accuracy = " in out
    streamed = json.loads((tmp_path / "s.json").read_text())
    read_whole = json.loads((tmp_path / "w.json").read_text())
    # KDB's leave-one-out losses: sums of every row's term, in blocks (round-off)
    losses = [pop_all(saved, "loo_loss") for saved in (streamed, read_whole)]
    assert len(losses[0]) == (method == "kdb")
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-12)
    assert streamed == read_whole


def test_first_rows_that_need_the_whole_table_read_it_whole(tmp_path, monkeypatch, capsys):
    df = _table(1200, seed=3)
    df.insert(0, "id", [f"r{i}" for i in range(len(df))])  # an identifier: dropped, said so
    df.to_csv(tmp_path / "ids.csv", index=False)
    args = ["learn", tmp_path / "ids.csv", "--class", "label", "--missing", "pairwise"]
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0 and "ignoring column 'id'" in err and "in chunks" not in err
    assert "training accuracy = " in out
    # gaps under the default --missing error: refused at once, naming the column
    _table(1200, seed=4).to_csv(tmp_path / "gaps.csv", index=False)
    code = main(["learn", str(tmp_path / "gaps.csv"), "--class", "label"])
    _, err = capsys.readouterr()
    assert code == 1 and "missing values in column(s) ['wage']" in err and "in chunks" not in err


def test_gaps_after_the_first_rows_are_refused_under_missing_error(tmp_path, capsys, small_chunks):
    df = _table(12_000, seed=5)
    df["wage"] = df["wage"].fillna(10.0)
    df.loc[11_500, "town"] = np.nan  # beyond the first 10,000 rows the check reads
    df.to_csv(tmp_path / "late.csv", index=False)
    code = main(["learn", str(tmp_path / "late.csv"), "--class", "label", "--method", "kdb"])
    out, err = capsys.readouterr()
    assert code == 1 and "missing values in column(s) ['town']" in err, err
    assert out == ""  # refused before anything is printed


@pytest.mark.slow
def test_installed_command_streams_a_file(tmp_path):
    _table(5000, seed=6).to_csv(tmp_path / "t.csv", index=False)
    args = ["learn", str(tmp_path / "t.csv"), "--class", "label", "--missing", "pairwise"]
    done = subprocess.run(
        [sys.executable, "-m", "treelearn", *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "in chunks (the table was not read whole)" in done.stderr
    assert "training accuracy = " in done.stdout
