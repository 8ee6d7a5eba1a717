"""Streamed ``learn FILE --class C``: a column of numbers in the first rows that turns to
text later is refused (or learned) as the whole read words it (issue 39, items 4 and 5).

The streamed path checks the first 10,000 rows as the whole table is checked; a column that
turns to text after them was seen there as numbers, and its problem (the column read as
text has too many values) came from the chunked fit: one problem of several, with
``--max-states N`` (refused for the classifiers). Now the problem names where the column
turns (row and value, found by the reader), the fixes that work with ``--class``, and the
file is read whole when it fits (the whole read's words by construction; an identifier-like
column left out as read whole); when it does not fit, the streamed refusal is worded as the
whole read's.

The row and value of the turn are found by pandas alone (the whole read's first cell that
``pd.to_numeric`` cannot read).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli

import treelearn as tl
import treelearn.cli._learn as learn
import treelearn.sources._files as files
from tests.conftest import installed_command
from treelearn._base import limits

N = 12_500
TURN = 11_321  # after the streamed path's first rows (FIRST_ROWS)


def _frame(turn_to: str = "unknown") -> pd.DataFrame:
    rng = np.random.default_rng(3)
    label = rng.choice(["a", "b"], N)
    x = np.round(rng.normal(size=N) + (label == "b"), 3).astype(object)
    x[TURN] = turn_to
    town = np.where(rng.random(N) < 0.6, np.where(label == "a", "p", "q"), "r")
    return pd.DataFrame({"x": x, "town": town, "label": label})


@pytest.fixture
def turning(tmp_path) -> Path:
    path = tmp_path / "turning.csv"
    _frame().to_csv(path, index=False)
    return path


def _turn(path: Path) -> tuple[int, str]:
    whole = pd.read_csv(path, low_memory=False)
    bad = pd.to_numeric(whole["x"], errors="coerce").isna() & whole["x"].notna()
    row = int(whole.index[bad.to_numpy()][0])
    return row, whole["x"].iloc[row]


def test_the_file_is_what_the_tests_need(turning):
    assert learn.FIRST_ROWS < TURN
    first = pd.read_csv(turning, nrows=learn.FIRST_ROWS)
    assert pd.api.types.is_float_dtype(first["x"].dtype)  # numbers in the first rows
    assert _turn(turning) == (TURN, "unknown")
    assert pd.read_csv(turning, low_memory=False)["x"].nunique() > 100


def _whole_only(monkeypatch):
    monkeypatch.setattr(learn, "_streamable", lambda args: False)


def test_streamed_and_whole_refuse_in_the_same_words(turning, monkeypatch):
    row, value = _turn(turning)
    rc, out, streamed = run_cli("learn", turning, "--class", "label")
    assert rc == 1 and out == ""
    with monkeypatch.context() as m:
        _whole_only(m)
        rc, out, whole = run_cli("learn", turning, "--class", "label")
    assert rc == 1
    n = pd.read_csv(turning, low_memory=False)["x"].nunique()
    expected = (
        f"treelearn: error: column 'x' has {n} distinct values, more than the limit of 100 "
        f"(numbers until row {row}, which holds {value!r}): leave it out with --drop x\n"
    )
    assert whole.endswith(expected)
    assert streamed.endswith(expected)
    assert "max-states" not in streamed and "max_states" not in streamed  # refused with --class


def test_too_large_to_read_whole_the_stream_refuses_in_those_words(turning, monkeypatch):
    """The whole read would be refused for memory: the streamed fit's problem is said, in
    the whole read's words (the row and value from the chunked reader), after one memory
    check of the file."""
    asked: list = []
    real = files.read_memory_estimate
    monkeypatch.setattr(files, "read_memory_estimate", lambda p: asked.append(p) or real(p))
    monkeypatch.setattr(limits, "READ_MEMORY_LIMIT", None)
    monkeypatch.setenv(limits.READ_MEMORY_ENV, "100K")
    row, value = _turn(turning)
    rc, _out, err = run_cli("learn", turning, "--class", "label")
    assert rc == 1
    assert f"(numbers until row {row}, which holds {value!r}): leave it out with --drop x" in err
    assert "of memory" not in err and "max" not in err
    assert len(asked) == 1


def test_an_identifier_turning_to_text_is_left_out_as_read_whole(tmp_path, monkeypatch):
    """A column of distinct numbers turning to text is an identifier read whole (left out,
    with a note); the stream, meeting it as a problem, reads the file whole: the same."""
    df = _frame("id-x")
    df["x"] = np.arange(N).astype(object) * 7 + 0.5
    df.loc[TURN, "x"] = "id-x"
    path = tmp_path / "ids.csv"
    df.to_csv(path, index=False)
    rc, streamed_out, streamed_err = run_cli("learn", path, "--class", "label")
    assert rc == 0, streamed_err
    with monkeypatch.context() as m:
        _whole_only(m)
        rc, whole_out, whole_err = run_cli("learn", path, "--class", "label")
    assert rc == 0, whole_err
    assert "ignoring column 'x'" in streamed_err and "ignoring column 'x'" in whole_err
    assert streamed_out == whole_out


def test_python_names_the_turn_with_its_arguments(turning):
    row, value = _turn(turning)
    for cls in (tl.TAN, tl.NaiveBayes, tl.KDB):
        with pytest.raises(tl.TooManyStatesError) as info:
            cls().fit(turning, "label")
        message = str(info.value)
        assert f"(numbers until row {row}, which holds {value!r})" in message
        assert "df.drop(columns=['x'])" in message and "--" not in message
        assert info.value.reason.endswith(f"which holds {value!r})")
        # the table read whole: the same reason, worded by the encoder
        whole = pd.read_csv(turning, low_memory=False)
        with pytest.raises(tl.TooManyStatesError) as table:
            cls().fit(whole.drop(columns=["label"]), whole["label"])
        assert table.value.reason in info.value.reason


def _installed() -> list[str]:
    found = installed_command()
    return [found] if found else [sys.executable, "-m", "treelearn"]


@pytest.mark.slow
def test_installed_command_names_the_turn_and_the_flag(turning):
    row, value = _turn(turning)
    for extra in ({}, {limits.READ_MEMORY_ENV: "100K"}):
        done = subprocess.run(
            [*_installed(), "learn", str(turning), "--class", "label"],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, **extra},
        )
        assert done.returncode == 1 and done.stdout == ""
        assert (
            f"(numbers until row {row}, which holds {value!r}): leave it out with --drop x"
            in done.stderr
        )
        assert "max" not in done.stderr and "df.drop" not in done.stderr
