"""``treelearn learn --method auto``: the density that chooses (``tl.AutoDensity``, with
``--time-budget``) and, with ``--class``, the classifier that chooses
(``tl.AutoClassifier``). The choice and every candidate's score said on standard error are
the Python estimator's on the same table and seed; the saved model answers as that
estimator does. In-process checks run in the main job; the installed ``treelearn`` command
in a subprocess is the slow job's."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli

import treelearn as tl

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ASIA = os.path.join(ROOT, "datasets", "asia.csv")
PENGUINS = os.path.join(ROOT, "datasets", "real", "penguins.csv")


def said_scores(stderr: str) -> tuple[str, dict]:
    """The chosen name and ``{candidate: score}`` of the ``--method auto chose`` note."""
    match = re.search(r"--method auto chose (\w+) \([^:]*: (.*)\)\s*$", stderr, flags=re.M)
    assert match, stderr
    scores = {
        name: float(value)
        for name, value in re.findall(r"(\w+) (-?\d+\.\d+)(?: \([\d.]+ s\))?", match.group(2))
    }
    return match.group(1), scores


def test_density_auto_with_no_time_left_learns_the_first_candidate(tmp_path):
    out = tmp_path / "auto.json"
    rc, stdout, stderr = run_cli("learn", ASIA, "--method", "auto", "--time-budget", 0, "-o", out)
    assert rc == 0, stderr
    chosen, scores = said_scores(stderr)
    # the same fit in Python: the budget of 0 s starts the first candidate only
    auto = tl.AutoDensity(time_budget=0, random_state=0).fit(pd.read_csv(ASIA))
    assert chosen == auto.chosen_ == "ChowLiuTree"
    assert scores == {"ChowLiuTree": pytest.approx(auto.candidate_scores_["ChowLiuTree"], abs=5e-5)}
    assert "was spent before CutsetNetwork, TreeMixture, HiddenTree" in stderr
    back = tl.load(out)
    assert type(back) is tl.AutoDensity and back.chosen_ == "ChowLiuTree"
    df = pd.read_csv(ASIA)
    np.testing.assert_allclose(back.score_samples(df), auto.score_samples(df), rtol=1e-12)
    assert "AutoDensity: ChowLiuTree chosen" in stdout


# test_a_refused_picture_leaves_no_model_file moved to test_auto_draw.py (AutoDensity
# draws its choice now; a refused picture is an AutoClassifier's choice without one)


def test_classifier_auto_is_the_python_choice(tmp_path):
    df = pd.read_csv(ASIA)
    out = tmp_path / "clf.json"
    rc, stdout, stderr = run_cli("learn", ASIA, "--class", "either", "--method", "auto", "-o", out)
    assert rc == 0, stderr
    chosen, scores = said_scores(stderr)
    clf = tl.AutoClassifier(random_state=0).fit(df.drop(columns="either"), df["either"])
    assert chosen == clf.chosen_ and f"chosen: {clf.chosen_}" in stdout
    assert list(scores) == list(clf.candidate_scores_)
    for name, score in clf.candidate_scores_.items():
        assert scores[name] == pytest.approx(score, abs=5e-5), name  # printed to 4 decimals
    back = tl.load(out)
    X = df.drop(columns="either")
    np.testing.assert_allclose(back.predict_log_proba(X), clf.predict_log_proba(X), atol=1e-12)


def test_classifier_auto_on_a_table_with_numbers_says_how_they_are_taken():
    rc, _, stderr = run_cli(
        "learn", PENGUINS, "--class", "species", "--method", "auto", "--missing", "drop"
    )
    assert rc == 0, stderr
    assert "each candidate takes the numeric column(s)" in stderr
    assert "into supervised (MDL) bins learned with the class;" not in stderr
    df = pd.read_csv(PENGUINS).dropna()
    clf = tl.AutoClassifier(random_state=0).fit(df.drop(columns="species"), df["species"])
    assert said_scores(stderr)[0] == clf.chosen_


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--method", "tan", "--class", "either", "--time-budget", "5"], "--time-budget is for"),
        (["--method", "auto", "--class", "either", "--time-budget", "5"], "without --class"),
        (["--method", "auto", "--alpha", "0.5"], "--alpha does not apply to --method auto"),
        (["--method", "auto", "--components", "3"], "--components is for --method mixture"),
        (["--method", "auto", "--missing", "pairwise"], "--missing error or drop"),
        (["--method", "auto", "--time-budget", "-1"], "--time-budget takes seconds"),
        (["--method", "auto", "--class", "nope"], "--class 'nope' is not a column"),
    ],
)
def test_auto_refusals_name_the_flag(argv, words):
    rc, _, stderr = run_cli("learn", ASIA, *argv)
    assert rc != 0
    assert words in stderr, stderr


@pytest.mark.slow
def test_installed_command_chooses_as_python(tmp_path):
    """Every candidate (a budget no candidate reaches), seed 3: the installed command's
    choice and scores are ``tl.AutoDensity(random_state=3).fit`` on the table as read."""
    command = os.path.join(os.path.dirname(sys.executable), "treelearn")
    if not os.path.exists(command):
        pytest.skip("no installed treelearn command beside this Python")
    out = tmp_path / "auto.json"
    proc = subprocess.run(
        [command, "learn", ASIA, "--method", "auto", "--time-budget", "100000", "--seed", "3"]
        + ["-o", str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    chosen, scores = said_scores(proc.stderr)
    df = pd.read_csv(ASIA)
    auto = tl.AutoDensity(time_budget=100000, random_state=3).fit(df)
    assert chosen == auto.chosen_
    assert list(scores) == list(auto.candidate_scores_) and len(scores) == 6
    for name, score in auto.candidate_scores_.items():
        assert scores[name] == pytest.approx(score, abs=5e-5), name
    np.testing.assert_allclose(tl.load(out).score_samples(df), auto.score_samples(df), rtol=1e-12)
    # the saved choice answers the other commands: score and query
    score = subprocess.run(
        [command, "score", str(out), ASIA], capture_output=True, text=True, timeout=300
    )
    assert score.returncode == 0, score.stderr
    mean = float(re.search(r"average log-likelihood = (\S+)", score.stdout).group(1))
    assert mean == pytest.approx(float(np.mean(auto.score_samples(df))), abs=5e-7)
    if auto.supports("query"):
        query = subprocess.run(
            [command, "query", str(out), "lung", "--given", "smoke=yes"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert query.returncode == 0, query.stderr
        p = auto.query("lung", {"smoke": "yes"})
        said = dict(re.findall(r"^\s*(no|yes)\s+(\S+)$", query.stdout, flags=re.M))
        values = np.asarray(getattr(p, "values", p), dtype=float).ravel()
        assert float(said["yes"]) == pytest.approx(values[-1], abs=5e-7)
