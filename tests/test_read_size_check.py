"""A file read whole is first checked against the memory there is (issue 39: "check resource
limits before allocating, never by catching MemoryError"): the read's memory is estimated
from the file's size and first bytes (a CSV) or its metadata (Parquet), and a file too
large is refused before pandas or pyarrow reads a row, naming the file, the estimate, what
is available and the fix in the interface it was asked from.

The available memory is faked small (``limits.available_memory`` or the environment
variable), and pandas' and pyarrow's readers are made to fail, so a test passes only if the
refusal comes first. The estimate is checked against the file's true rows and columns
(pandas, read separately) and the formula of its measured factors.
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli

import treelearn as tl
from tests.conftest import installed_command
from treelearn._base import limits
from treelearn.sources._files import (
    CSV_BYTES_PER_BYTE,
    CSV_BYTES_PER_CELL,
    PARQUET_BYTES_PER_CELL,
    check_read_memory,
    read_memory_estimate,
)

ROOT = Path(__file__).resolve().parents[1]
FAKE = 1 << 20  # 1 MiB "available": alarm.csv (2.0 MiB on disk) needs about 9.6 MiB


@pytest.fixture
def alarm(tmp_path) -> Path:
    path = tmp_path / "alarm.csv"
    shutil.copy(ROOT / "datasets" / "alarm.csv", path)
    return path


@pytest.fixture
def little_memory(monkeypatch):
    """1 MiB available, and no limit set otherwise."""
    monkeypatch.setattr(limits, "READ_MEMORY_LIMIT", None)
    monkeypatch.delenv(limits.READ_MEMORY_ENV, raising=False)
    monkeypatch.setattr(limits, "available_memory", lambda: (FAKE, "available on this machine"))


@pytest.fixture
def no_whole_reads(monkeypatch):
    _no_whole_reads(monkeypatch)


def _no_whole_reads(monkeypatch) -> None:
    """pandas' and pyarrow's readers fail: nothing may read the file's rows."""

    def refused(*args, **kwargs):
        raise AssertionError("the file was read")

    monkeypatch.setattr(pd, "read_csv", refused)
    monkeypatch.setattr(pd, "read_parquet", refused)
    pq = pytest.importorskip("pyarrow.parquet")
    monkeypatch.setattr(pq, "read_table", refused)


def _refused(fn, path: Path) -> str:
    with pytest.raises(tl.ResourceLimitError) as info:
        fn()
    message = str(info.value)
    estimate = read_memory_estimate(path)
    assert repr(str(path)) in message  # the file
    assert f"about {limits.size_text(estimate.n_bytes)} of memory" in message  # the estimate
    assert "more than the 1.0 MiB available on this machine" in message  # what there is
    return message


# ---------------------------------------------------------------- Python
def _readers(path: Path) -> dict:
    cls = "HISTORY"
    return {
        "read_data": lambda: tl.read_data(path),
        "TreeMixture": lambda: tl.TreeMixture(random_state=0).fit(path),
        "MixedNaiveBayes": lambda: tl.MixedNaiveBayes().fit(path, cls),
        "partial_fit": lambda: tl.NaiveBayes().partial_fit(path, cls, classes=[False, True]),
        "clg_tree": lambda: tl.clg_tree(path),
    }


@pytest.mark.parametrize(
    "reader", ["read_data", "TreeMixture", "MixedNaiveBayes", "partial_fit", "clg_tree"]
)
def test_python_whole_reads_are_refused_before_reading(
    alarm, little_memory, no_whole_reads, reader
):
    message = _refused(_readers(alarm)[reader], alarm)
    # the fix in Python's words: the chunked learners, a sample, the limit
    assert "tl.TreeMixture(chunksize=100_000)" in message
    assert "pandas.read_csv(path, nrows=100_000)" in message
    assert "treelearn.limits.READ_MEMORY_LIMIT" in message
    assert "--" not in message  # no command-line flag


def test_the_fixes_named_read_in_chunks_under_the_same_limit(alarm, little_memory):
    """What the message proposes works with 1 MiB 'available': it never reads the file whole."""
    assert tl.chow_liu(alarm).kind == "tree_model"
    assert list(tl.TAN().fit(alarm, "HISTORY").classes_) == [False, True]
    assert tl.TreeMixture(chunksize=5_000, random_state=0, max_iter=2).fit(alarm).model_
    assert tl.HiddenTree(chunksize=5_000, random_state=0, max_iter=2).fit(alarm).model_


def test_parquet_is_refused_from_its_metadata(tmp_path, little_memory, no_whole_reads):
    pytest.importorskip("pyarrow")
    df = pd.DataFrame({"a": np.arange(50_000) % 7, "b": np.arange(50_000) % 3})
    path = tmp_path / "t.parquet"
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path)
    estimate = read_memory_estimate(path)
    assert (estimate.n_rows, estimate.n_columns) == (50_000, 2)
    assert estimate.n_bytes == PARQUET_BYTES_PER_CELL * 100_000  # 3.1 MiB > 1 MiB
    _refused(lambda: tl.read_data(path), path)


def test_a_normal_file_is_read_as_before(alarm):
    """With the machine's own memory (no fake), a 2 MiB file reads as pandas reads it."""
    assert tl.read_data(alarm).equals(pd.read_csv(alarm, low_memory=False))


def test_the_limit_is_the_estimate(alarm, monkeypatch, no_whole_reads):
    """At the estimate a file passes, a byte below it is refused (before reading)."""
    need = read_memory_estimate(alarm).n_bytes
    monkeypatch.delenv(limits.READ_MEMORY_ENV, raising=False)
    monkeypatch.setattr(limits, "READ_MEMORY_LIMIT", need)
    check_read_memory(alarm)
    monkeypatch.setattr(limits, "READ_MEMORY_LIMIT", need - 1)
    with pytest.raises(tl.ResourceLimitError, match=r"allowed by treelearn\.limits"):
        check_read_memory(alarm)


# ---------------------------------------------------------------- the estimate
@pytest.mark.parametrize(
    "name", ["alarm.csv", "asia.csv", "real/hmda.csv", "real/titanic.csv", "real/boston.csv"]
)
def test_the_estimate_counts_the_files_rows_and_columns(tmp_path, name):
    """Rows from the first 64 KiB's mean row length: within 5 % of the true rows of real
    tables (each repeated past 64 KiB); columns exact; the bytes the measured formula."""
    df = pd.read_csv(ROOT / "datasets" / name)
    path = tmp_path / "t.csv"
    big = pd.concat([df] * max(1, 300_000 // len(df.to_csv(index=False))), ignore_index=True)
    big.to_csv(path, index=False)
    assert path.stat().st_size > 1 << 16
    estimate = read_memory_estimate(path)
    assert estimate.n_columns == big.shape[1]
    assert abs(estimate.n_rows - len(big)) <= 0.05 * len(big)
    size = path.stat().st_size
    cells = estimate.n_rows * estimate.n_columns
    assert estimate.n_bytes == int(CSV_BYTES_PER_BYTE * size + CSV_BYTES_PER_CELL * cells)


def test_a_small_file_is_counted_exactly(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("a;b;c\n1;2;3\n4;5;6\n")  # semicolons: the header's separator
    estimate = read_memory_estimate(path)
    assert (estimate.n_rows, estimate.n_columns, estimate.text_bytes) == (2, 3, 18)


def test_a_gzip_file_is_estimated_from_its_text(tmp_path):
    text = "x,y\n" + "".join(f"{i % 5},{i % 2}\n" for i in range(100_000))
    path = tmp_path / "t.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write(text)
    estimate = read_memory_estimate(path)
    assert estimate.text_bytes == len(text)  # the trailer's size, not the compressed one
    assert path.stat().st_size < len(text) / 10
    assert abs(estimate.n_rows - 100_000) <= 2_000 and estimate.n_columns == 2


def test_the_environment_variable_sets_the_limit(monkeypatch):
    monkeypatch.setattr(limits, "READ_MEMORY_LIMIT", None)
    for given, expected in [("8G", 8 * 2**30), ("512M", 512 * 2**20), ("1000", 1000)]:
        monkeypatch.setenv(limits.READ_MEMORY_ENV, given)
        assert limits.read_memory_limit()[0] == expected
    monkeypatch.setenv(limits.READ_MEMORY_ENV, "lots")
    with pytest.raises(tl.TreelearnError, match="TREELEARN_READ_MEMORY='lots'"):
        limits.read_memory_limit()


def test_available_memory_is_what_the_machine_reports():
    """Linux: at most MemTotal of /proc/meminfo (read here independently), more than 0."""
    meminfo = Path("/proc/meminfo")
    if not meminfo.exists():
        pytest.skip("no /proc/meminfo")
    total = next(
        int(line.split()[1]) * 1024
        for line in meminfo.read_text().splitlines()
        if line.startswith("MemTotal:")
    )
    available, source = limits.available_memory()
    assert available is not None and 0 < available <= total
    assert source in ("available on this machine", "left under this process's cgroup memory limit")


# ---------------------------------------------------------------- the command line
def test_learn_is_refused_in_the_commands_words(alarm, little_memory, no_whole_reads, tmp_path):
    rc, out, err = run_cli("learn", alarm, "-o", tmp_path / "m.json")
    assert rc == 1 and out == ""
    assert "would need about 9." in err and "1.0 MiB available on this machine" in err
    assert "--class COL and --method tan, naive-bayes, kdb or aode" in err
    assert "head -n 100001" in err and "TREELEARN_READ_MEMORY=BYTES" in err
    assert "tl." not in err and "chunksize=" not in err  # no Python
    assert not (tmp_path / "m.json").exists()


def test_predict_is_refused_in_the_commands_words(alarm, tmp_path, monkeypatch):
    model = tmp_path / "m.json"
    tl.TAN().fit(alarm, "HISTORY").save(model)
    _no_whole_reads(monkeypatch)
    monkeypatch.setenv(limits.READ_MEMORY_ENV, "1M")
    rc, out, err = run_cli("predict", model, alarm)
    assert rc == 1 and out == ""
    assert "allowed by the environment variable TREELEARN_READ_MEMORY" in err
    assert "split -l 100000" in err and "tl." not in err


def test_learn_class_streams_under_the_limit(alarm, little_memory, tmp_path):
    rc, out, err = run_cli("learn", alarm, "--class", "HISTORY", "--method", "naive-bayes")
    assert rc == 0, err
    assert "in chunks (the table was not read whole)" in err and "training accuracy" in out


def _installed() -> list[str]:
    found = installed_command()
    return [found] if found else [sys.executable, "-m", "treelearn"]


@pytest.mark.slow
def test_installed_command_refuses_a_file_too_large(alarm, tmp_path):
    import os

    env = {**os.environ, limits.READ_MEMORY_ENV: "1M"}
    run = [*_installed(), "learn", str(alarm), "-o", str(tmp_path / "m.json")]
    done = subprocess.run(run, capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 1 and done.stdout == ""
    assert "more than the 1.0 MiB allowed by the environment variable" in done.stderr
    assert "--class COL" in done.stderr and not (tmp_path / "m.json").exists()
    # the same file with the class: read in chunks, not refused
    done = subprocess.run(
        [*run, "--class", "HISTORY"], capture_output=True, text=True, check=False, env=env
    )
    assert done.returncode == 0, done.stderr
    # without the variable: the machine's memory, a 2 MiB file learned as before
    env.pop(limits.READ_MEMORY_ENV)
    done = subprocess.run(run, capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0, done.stderr
