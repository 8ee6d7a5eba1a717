"""Issue 39 ("Must show"): each command-line finding of item 4 through the installed
``treelearn`` command, in a subprocess (slow). Findings already run there elsewhere are not
repeated: decimal commas with semicolons, the Latin-1 note and ``--categorical`` keeping
``02139`` (tests/test_reading_options.py::test_the_installed_command); a file too large to
read whole (tests/test_read_size_check.py). Each expected number is computed here from
the data (pandas, by hand) or by the Python API on the same file, never copied from the
command's output.
"""

from __future__ import annotations

import io
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from tests.conftest import installed_command
from tests.test_reading_options import gappy_table

pytestmark = pytest.mark.slow


def _treelearn(*argv, cwd: Path) -> subprocess.CompletedProcess:
    found = installed_command()
    command = [found] if found else [sys.executable, "-m", "treelearn"]
    return subprocess.run(
        [*command, *map(str, argv)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env={**os.environ, "MPLBACKEND": "Agg"},
        check=False,
    )


def test_us_and_day_first_dates_are_cut_and_ambiguous_ones_refused(tmp_path):
    days = pd.date_range("2021-01-01", periods=24, freq="13D")
    for name, fmt in (("us", "%m/%d/%Y"), ("dayfirst", "%d.%m.%Y")):
        table = pd.DataFrame({"when": days.strftime(fmt), "g": ["a", "b", "b"] * 8})
        table.to_csv(tmp_path / f"{name}.csv", index=False)
        done = _treelearn(
            "learn", f"{name}.csv", "--discretize", "3", "-o", f"{name}.json", cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
        # three quantile bins of 24 distinct dates: 8 rows each (by hand)
        model = tl.load(tmp_path / f"{name}.json")
        assert len(model.states["when"]) == 3
        np.testing.assert_allclose(model.marginals()["when"], [8 / 24] * 3, rtol=1e-12)
    both = pd.DataFrame({"when": ["03/04/2021", "01/02/2022"] * 6, "g": ["a", "b", "b"] * 4})
    both.to_csv(tmp_path / "both.csv", index=False)
    done = _treelearn("learn", "both.csv", cwd=tmp_path)
    assert done.returncode == 1
    assert "month/day and as day/month" in done.stderr and "--drop when" in done.stderr
    assert "pd.to_datetime" not in done.stderr and "Traceback" not in done.stderr


def test_numeric_auto_honours_missing(tmp_path):
    gappy_table(tmp_path)
    done = _treelearn("learn", "m.csv", "--numeric", "auto", "--missing", "pairwise", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    python = tl.clg_tree(tl.read_data(tmp_path / "m.csv"), missing="pairwise")
    assert python.to_text() in done.stdout


def test_missing_drop_names_the_columns_that_cost_the_rows(tmp_path):
    df = gappy_table(tmp_path).drop(columns=["x"])
    done = _treelearn("learn", "m.csv", "--drop", "x", "--missing", "drop", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lost = int(df.isna().any(axis=1).sum())  # by pandas: rows with a gap once x is dropped
    assert f"dropping {lost} of {len(df)} row(s)" in done.stderr
    assert f"'sparse' ({int(df['sparse'].isna().sum())} rows)" in done.stderr
    assert "--drop sparse" in done.stderr


def test_predict_unseen_ignore(tmp_path):
    rng = np.random.default_rng(0)
    train = pd.DataFrame({"f": rng.choice(["a", "b"], 40), "g": rng.choice(["u", "v"], 40)})
    train["y"] = np.where(train["f"] == "a", "yes", "no")
    train.to_csv(tmp_path / "train.csv", index=False)
    learn = ("learn", "train.csv", "--class", "y", "--method", "naive-bayes", "-o", "nb.json")
    assert _treelearn(*learn, cwd=tmp_path).returncode == 0
    pd.DataFrame({"f": ["a", "new"], "g": ["u", "v"]}).to_csv(tmp_path / "test.csv", index=False)
    done = _treelearn("predict", "nb.json", "test.csv", cwd=tmp_path)
    assert done.returncode == 1 and "--unseen ignore" in done.stderr
    assert "unseen='ignore'" not in done.stderr
    done = _treelearn(
        "predict", "nb.json", "test.csv", "--unseen", "ignore", "--proba", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    got = pd.read_csv(io.StringIO(done.stdout))
    # the new category summed out: naive Bayes on g alone, by hand from the counts: the
    # class frequencies (unsmoothed, as scikit-learn's fit_prior) and P(g | y) with alpha 1,
    # its class arc averaged (the default; tests/oracles.py)
    from oracles import class_arc_averaged_cpt

    counts = pd.crosstab(train["y"], train["g"])
    prior = train["y"].value_counts() / len(train)
    cpt = class_arc_averaged_cpt(counts.to_numpy())
    joint = {
        c: prior[c] * cpt[i, list(counts.columns).index("v")] for i, c in enumerate(counts.index)
    }
    total = sum(joint.values())
    for c in counts.index:
        assert math.isclose(got[f"P(y={c})"].iloc[1], joint[c] / total, rel_tol=1e-5)


def test_bif_export_writes_bin_labels_read_back_exactly(tmp_path):
    rng = np.random.default_rng(4)
    pd.DataFrame({"x": rng.normal(size=90).round(4), "y": rng.normal(size=90).round(4)}).to_csv(
        tmp_path / "n.csv", index=False
    )
    done = _treelearn(
        "learn", "n.csv", "--discretize", "3", "--bif", "t.bif", "-o", "m.json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    saved, back = tl.load(tmp_path / "m.json"), tl.read_bif(tmp_path / "t.bif")
    assert any("(" in str(s) for s in saved.states["x"])
    assert back.states == saved.states


def test_a_hint_names_every_column_it_means(tmp_path):
    rng = np.random.default_rng(2)
    df = pd.DataFrame({f"v{j}": rng.normal(size=40) for j in range(11)})
    df["g"] = rng.choice(["a", "b"], 40)
    df.to_csv(tmp_path / "wide.csv", index=False)
    done = _treelearn("learn", "wide.csv", cwd=tmp_path)
    assert done.returncode == 1
    assert "--drop " + " ".join(f"v{j}" for j in range(11)) in done.stderr
    assert done.stderr.index("--numeric auto") < done.stderr.index("--discretize")


def test_pairwise_mi_from_few_rows_is_said_naming_the_rows(tmp_path):
    rng = np.random.default_rng(0)
    n = 534
    a = rng.integers(0, 3, n)
    b = (a + (rng.random(n) < 0.2) * rng.integers(0, 3, n)) % 3
    z = rng.integers(0, 4, n).astype(float)
    z[rng.random(n) < 0.93] = np.nan
    pd.DataFrame({"a": a, "b": b, "z": z}).to_csv(tmp_path / "t.csv", index=False)
    done = _treelearn("learn", "t.csv", "--missing", "pairwise", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    observed = int((~np.isnan(z)).sum())  # by hand: the rows z is observed in
    assert (
        f"treelearn: note: pairwise counts: column 'z' is observed in {observed} of {n} rows"
        in done.stderr
    )
    assert "Warning" not in done.stderr


def test_bin_labels_have_the_fewest_digits_that_keep_the_values_in_their_bins(tmp_path):
    rng = np.random.default_rng(5)
    x = rng.uniform(0.6, 0.75, 200)  # the '(0.610433274830306, 0.7432432432432432]'
    g = np.where(x > 0.68, "hi", "lo")
    pd.DataFrame({"x": x, "g": g}).to_csv(tmp_path / "b.csv", index=False)
    done = _treelearn("learn", "b.csv", "--discretize", "4", "-o", "m.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    labels = tl.load(tmp_path / "m.json").states["x"]
    values = pd.read_csv(tmp_path / "b.csv")["x"].to_numpy()  # as the command read them
    edges = []
    for label in labels:
        found = re.fullmatch(r"[\[(](\S+), (\S+)[\])]", str(label))
        assert found, label
        edges.append((found.group(1), found.group(2)))
    inner = [hi for _, hi in edges[:-1]]
    for text in inner:  # at least 3 significant digits, far fewer than the 16 of a float
        digits = len(text.replace("-", "").replace(".", "").lstrip("0"))
        assert 3 <= digits <= 8, text
    cuts = np.array([float(t) for t in inner])
    # every value in the bin its label says, by the written edges (quantile bins: 50 each)
    assert np.bincount(np.searchsorted(cuts, values, side="left"), minlength=4).tolist() == [
        50,
        50,
        50,
        50,
    ]
