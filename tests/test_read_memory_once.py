"""A file read whole is checked against memory once per read, in the words of the interface
the read was asked from (issue 39, items 4 and 5): ``treelearn learn FILE`` estimated the
read three times (its own check, ``read_frame``'s and ``read_whole``'s, each a stat and a
64 KiB sample); now one estimate, worded with the command's flags, and Python's refusal
names arguments.

A compressed CSV (.gz, .bz2, .xz, .zip) is estimated from its text, not its compressed
bytes: counted when it is small, else from the ratio of a bounded decompressed sample
(every test writes real compressed files and compares with the text's true length).

The estimate is counted by wrapping ``read_memory_estimate`` (a spy that calls the real
one); the available memory is set with ``treelearn.limits.READ_MEMORY_LIMIT`` or the
environment variable.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli

import treelearn as tl
import treelearn.sources._files as files
from tests.conftest import installed_command
from treelearn._base import limits
from treelearn.sources._files import (
    CSV_BYTES_PER_BYTE,
    CSV_BYTES_PER_CELL,
    check_read_memory,
    read_check,
    read_memory_estimate,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def estimates(monkeypatch) -> list:
    """The paths ``read_memory_estimate`` is asked about, in order (the real estimate is
    returned); a limit is set, so that every check estimates (none is skipped for want of
    knowing the machine's memory)."""
    asked: list = []
    real = files.read_memory_estimate

    def spy(path):
        asked.append(os.fspath(path))
        return real(path)

    monkeypatch.setattr(files, "read_memory_estimate", spy)
    monkeypatch.delenv(limits.READ_MEMORY_ENV, raising=False)
    monkeypatch.setattr(limits, "READ_MEMORY_LIMIT", 2**40)
    return asked


@pytest.fixture
def asia(tmp_path) -> Path:
    path = tmp_path / "asia.csv"
    shutil.copy(ROOT / "datasets" / "asia.csv", path)
    return path


@pytest.fixture
def thousands(tmp_path) -> Path:
    """A semicolon CSV of incomes written with thousands separators (``"81,900.70"``):
    ``read_frame`` reads it twice, the second time with ``thousands=","`` (as in
    tests/test_real_files.py; a comma-separated file of quoted ``"76,705"``:
    tests/test_quoted_thousands.py)."""
    rng = np.random.default_rng(0)
    n = 400
    income = rng.uniform(1000, 90000, n).round(2)
    town = rng.choice(["p", "q", "r"], n)
    lines = ["income;town"] + [f'"{v:,.2f}";{t}' for v, t in zip(income, town)]
    path = tmp_path / "thousands.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


# ---------------------------------------------------------------- once per read
def test_learn_estimates_the_file_once(asia, estimates):
    rc, _out, err = run_cli("learn", asia)
    assert rc == 0, err
    assert estimates == [str(asia)]  # was three: learn's, read_frame's and read_whole's


def test_a_file_read_twice_by_the_command_is_estimated_once(thousands, estimates):
    """read_frame reads a file of numbers with thousands separators again, with the
    separator: one estimate for both reads."""
    rc, _out, err = run_cli("learn", thousands, "--discretize", "3")
    assert rc == 0, err
    assert "thousands separator" in err  # the second read happened
    assert estimates == [str(thousands)]


@pytest.mark.parametrize(
    "extra",
    [
        ["--keep", "age", "--missing", "pairwise"],
        ["--numeric", "auto", "--missing", "pairwise"],
        ["--method", "auto", "--missing", "drop"],
    ],
)
def test_learn_class_read_whole_estimates_once(tmp_path, estimates, extra):
    path = tmp_path / "titanic.csv"
    shutil.copy(ROOT / "datasets" / "real" / "titanic.csv", path)
    rc, _out, err = run_cli("learn", path, "--class", "survived", *extra)
    assert rc == 0, err
    assert estimates == [str(path)]


def test_predict_estimates_each_file_once(asia, tmp_path, estimates):
    model = tmp_path / "m.json"
    tl.TAN().fit(pd.read_csv(asia).drop(columns=["either"]), pd.read_csv(asia)["either"]).save(
        model
    )
    estimates.clear()
    rc, _out, err = run_cli("predict", model, asia)
    assert rc == 0, err
    assert estimates == [str(asia)]


def test_python_read_data_estimates_once(asia, estimates):
    assert tl.read_data(asia).shape == (10_000, 8)
    assert estimates == [str(asia)]


def test_a_block_checks_each_file_once_and_a_changed_file_again(asia, tmp_path, estimates):
    other = tmp_path / "other.csv"
    shutil.copy(asia, other)
    with read_check("a fix"):
        for _ in range(3):
            check_read_memory(asia)
            check_read_memory(other)
        assert estimates == [str(asia), str(other)]
        with asia.open("a") as f:  # rewritten (longer): checked again
            f.write("yes,no,no,no,no,no,no,no\n")
        check_read_memory(asia)
        assert estimates == [str(asia), str(other), str(asia)]
    check_read_memory(asia)  # outside a block (Python's calls): every check estimates
    check_read_memory(asia)
    assert len(estimates) == 5


def test_the_outer_blocks_words_win_and_a_refusal_is_never_remembered(asia, monkeypatch):
    need = read_memory_estimate(asia).n_bytes
    monkeypatch.delenv(limits.READ_MEMORY_ENV, raising=False)
    monkeypatch.setattr(limits, "READ_MEMORY_LIMIT", need - 1)
    with read_check("the outer fix"), read_check("the inner fix"):
        for _ in range(2):  # refused each time: only a passing file is remembered
            with pytest.raises(tl.ResourceLimitError, match=r"; the outer fix$"):
                check_read_memory(asia)
        # an explicit fix is the caller's own
        with pytest.raises(tl.ResourceLimitError, match=r"; mine$"):
            check_read_memory(asia, fix="mine")
    with pytest.raises(tl.ResourceLimitError) as info:
        check_read_memory(asia)
    assert "treelearn.limits.READ_MEMORY_LIMIT" in str(info.value)  # Python's words again
    assert "chunksize=" in str(info.value) and "--" not in str(info.value)


# ---------------------------------------------------------------- the words of each interface
def test_the_command_and_python_refuse_at_the_same_estimate_in_their_own_words(
    asia, monkeypatch, tmp_path
):
    """One estimate: a limit of exactly it passes both, a byte less refuses both; the
    command names its flags and the environment variable, Python its arguments."""
    need = read_memory_estimate(asia).n_bytes
    monkeypatch.setattr(limits, "READ_MEMORY_LIMIT", None)
    monkeypatch.setenv(limits.READ_MEMORY_ENV, str(need))
    assert tl.read_data(asia).shape == (10_000, 8)
    rc, _out, err = run_cli("learn", asia)
    assert rc == 0, err
    monkeypatch.setenv(limits.READ_MEMORY_ENV, str(need - 1))
    with pytest.raises(tl.ResourceLimitError) as info:
        tl.read_data(asia)
    python = str(info.value)
    assert "tl.TreeMixture(chunksize=100_000)" in python and "nrows=100_000" in python
    assert "--" not in python and "head -n" not in python
    rc, _out, err = run_cli("learn", asia, "-o", tmp_path / "m.json")
    assert rc == 1
    assert "--class COL and --method tan" in err and "TREELEARN_READ_MEMORY=BYTES" in err
    assert "tl." not in err and "chunksize=" not in err
    assert f"about {limits.size_text(need)} of memory" in err
    assert not (tmp_path / "m.json").exists()


def _installed() -> list[str]:
    found = installed_command()
    return [found] if found else [sys.executable, "-m", "treelearn"]


@pytest.mark.slow
def test_installed_command_refuses_at_the_one_estimate(asia, tmp_path):
    """The installed command: passes at the estimate, refused a byte below it naming its
    flags (and a .bz2 of the same text refused by its text, not its compressed size)."""
    need = read_memory_estimate(asia).n_bytes
    run = [*_installed(), "learn", str(asia), "-o", str(tmp_path / "m.json")]
    env = {**os.environ, limits.READ_MEMORY_ENV: str(need)}
    done = subprocess.run(run, capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0, done.stderr
    env[limits.READ_MEMORY_ENV] = str(need - 1)
    (tmp_path / "m.json").unlink()
    done = subprocess.run(run, capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 1 and not (tmp_path / "m.json").exists()
    assert "--class COL and --method tan" in done.stderr and "tl." not in done.stderr
    packed = tmp_path / "asia.csv.bz2"
    packed.write_bytes(bz2.compress(asia.read_bytes()))
    assert packed.stat().st_size * CSV_BYTES_PER_BYTE < need / 10  # far below on disk
    done = subprocess.run(
        [*_installed(), "learn", str(packed)], capture_output=True, text=True, check=False, env=env
    )
    assert done.returncode == 1, done.stdout
    assert "of memory read whole" in done.stderr


# ---------------------------------------------------------------- compressed files
def _text(n_rows: int, seed: int = 0) -> bytes:
    """A CSV of mixed columns: numbers, words, two-decimal floats (compresses 3-6x)."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": rng.integers(0, 5, n_rows),
            "colour": rng.choice(["red", "green", "blue"], n_rows),
            "x": np.round(rng.normal(size=n_rows), 2),
            "d": rng.integers(0, 1000, n_rows),
        }
    )
    return df.to_csv(index=False).encode()


WRITERS = {
    "gz": lambda data: gzip.compress(data, compresslevel=1),
    "bz2": bz2.compress,
    "xz": lambda data: lzma.compress(data, preset=1),
}


@pytest.fixture(scope="module")
def big_text() -> bytes:
    text = _text(300_000)
    assert len(text) > 2 * files._RATIO_SAMPLE_BYTES  # past the sample: estimated
    return text


@pytest.mark.parametrize("suffix", ["gz", "bz2", "xz"])
def test_a_large_compressed_file_is_estimated_from_its_text(tmp_path, big_text, suffix):
    """Past the bounded sample the text's size is the file's size times the sample's ratio:
    within 3 % of the true length here (gzip: its trailer, exact); the rows within 3 %."""
    path = tmp_path / f"t.csv.{suffix}"
    path.write_bytes(WRITERS[suffix](big_text))
    assert path.stat().st_size < len(big_text) / 2.5
    estimate = read_memory_estimate(path)
    assert abs(estimate.text_bytes - len(big_text)) <= 0.03 * len(big_text)
    if suffix == "gz":
        assert estimate.text_bytes == len(big_text)  # one member: ISIZE
    assert abs(estimate.n_rows - 300_000) <= 0.03 * 300_000
    assert estimate.n_columns == 4
    cells = estimate.n_rows * estimate.n_columns
    assert estimate.n_bytes == int(
        CSV_BYTES_PER_BYTE * estimate.text_bytes + CSV_BYTES_PER_CELL * cells
    )


@pytest.mark.parametrize("suffix", ["gz", "bz2", "xz"])
def test_concatenated_streams_are_read_on(tmp_path, big_text, suffix):
    """pbzip2 writes several bz2 streams, bgzip many gzip members; xz may concatenate
    streams. A small file of three streams is counted exactly; a large one of two halves is
    estimated from the sample (gzip's last-member trailer, half the text, is not taken)."""
    small = _text(2_000, seed=1)
    path = tmp_path / f"s.csv.{suffix}"
    path.write_bytes(b"".join(WRITERS[suffix](part) for part in (small, small[:0], small)))
    assert read_memory_estimate(path).text_bytes == 2 * len(small)
    half = len(big_text) // 2
    path = tmp_path / f"halves.csv.{suffix}"
    path.write_bytes(WRITERS[suffix](big_text[:half]) + WRITERS[suffix](big_text[half:]))
    estimate = read_memory_estimate(path)
    assert abs(estimate.text_bytes - len(big_text)) <= 0.03 * len(big_text)


@pytest.mark.parametrize("suffix", ["gz", "bz2", "xz", "zip"])
def test_a_small_compressed_file_is_counted_and_read_as_pandas_reads_it(tmp_path, suffix):
    text = _text(5_000, seed=2)
    path = tmp_path / f"t.csv.{suffix}"
    if suffix == "zip":
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("t.csv", text)
    else:
        path.write_bytes(WRITERS[suffix](text))
    estimate = read_memory_estimate(path)
    assert estimate.text_bytes == len(text)  # counted: the whole text decompressed
    assert estimate.n_columns == 4
    assert abs(estimate.n_rows - 5_000) <= 50  # past 64 KiB: from the mean row length
    # the read itself is as pandas reads the file
    assert tl.read_data(path).equals(pd.read_csv(path, low_memory=False))


@pytest.mark.parametrize("suffix", ["bz2", "xz"])
def test_a_compressed_file_is_refused_by_its_text(tmp_path, monkeypatch, suffix):
    """A highly compressible file whose compressed size passes and whose text does not:
    refused before reading (the old estimate, from the size on disk, let it through)."""
    text = b"a,b\n" + b"0,1\n" * 1_000_000  # 4 MB of text, a few KB compressed
    path = tmp_path / f"t.csv.{suffix}"
    path.write_bytes(WRITERS[suffix](text))
    on_disk = path.stat().st_size
    assert on_disk < 100_000
    monkeypatch.delenv(limits.READ_MEMORY_ENV, raising=False)
    monkeypatch.setattr(limits, "READ_MEMORY_LIMIT", 2 * len(text))  # the text alone fits
    refused = pd.read_csv

    def never(*args, **kwargs):
        raise AssertionError("the file was read")

    monkeypatch.setattr(pd, "read_csv", never)
    estimate = read_memory_estimate(path)
    # a ratio over 4,000: the few hundred compressed bytes the sample measures hold the
    # headers, so 15 % (the old estimate, from the size on disk: 0.02 % of the text)
    assert abs(estimate.text_bytes - len(text)) <= 0.15 * len(text)
    with pytest.raises(tl.ResourceLimitError, match="of memory read whole") as info:
        tl.read_data(path)
    assert f"{estimate.n_rows:,} rows x 2 columns" in str(info.value)
    monkeypatch.setattr(pd, "read_csv", refused)
    monkeypatch.setattr(limits, "READ_MEMORY_LIMIT", read_memory_estimate(path).n_bytes)
    assert tl.read_data(path).shape == (1_000_000, 2)


@pytest.mark.parametrize("suffix", ["gz", "bz2", "xz"])
def test_a_compressed_files_refusal_names_a_sample_command_that_works(
    tmp_path, monkeypatch, suffix
):
    """The command's fix for a compressed file pipes its text through its decompressor
    (``head`` on the compressed bytes would give no table); the command named, run by the
    shell with fewer rows, writes a sample pandas reads with the header."""
    tool = {"gz": "gzip", "bz2": "bzip2", "xz": "xz"}[suffix]
    if shutil.which(tool) is None or shutil.which("head") is None:
        pytest.skip(f"no {tool} or head on this machine")
    text = _text(5_000, seed=4)
    path = tmp_path / f"t.csv.{suffix}"
    path.write_bytes(WRITERS[suffix](text))
    monkeypatch.delenv(limits.READ_MEMORY_ENV, raising=False)
    monkeypatch.setattr(limits, "READ_MEMORY_LIMIT", 1000)
    model = tmp_path / "m.json"
    tl.chow_liu(ROOT / "datasets" / "asia.csv").save(model)
    rc, _out, err = run_cli("score", model, path)  # a command answering row by row: split too
    assert rc == 1, err
    command = err.split("(e.g. ")[1].split(" > sample.csv")[0]
    assert command == f"{tool} -dc {path} | head -n 100001"
    sample = tmp_path / "sample.csv"
    subprocess.run(
        command.replace("100001", "11") + f" > {sample}", shell=True, check=True, cwd=tmp_path
    )
    expected = pd.read_csv(path, nrows=10)
    assert pd.read_csv(sample).equals(expected)
    assert f"{tool} -dc {path} | split -l 100000 - part-" in err
