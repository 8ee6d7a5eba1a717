"""Every script in examples/ runs, on small data, in a temporary folder."""

from __future__ import annotations

import ast
import glob
import os
import subprocess
import sys

import pandas as pd
import pytest

pytestmark = (
    pytest.mark.slow
)  # every example script in a subprocess: the second CI job (pytest -m slow)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.py")))


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    folder = tmp_path_factory.mktemp("data")
    asia = pd.read_csv(os.path.join(ROOT, "datasets", "asia.csv")).iloc[:600]
    asia.to_csv(folder / "asia.csv", index=False)
    alarm = pd.read_csv(os.path.join(ROOT, "datasets", "alarm.csv")).iloc[:400]
    alarm.to_csv(folder / "alarm.csv", index=False)
    return folder


def arguments(name: str, data, out) -> list[str]:
    return {
        "chow_liu_draw.py": [str(data / "asia.csv"), "--out", str(out)],
        "pgmpy_query.py": [  # evidence on a bool state (True) and a text state
            str(data / "alarm.csv"),
            "--target",
            "HISTORY",
            "--given",
            "LVFAILURE=True",
            "HRBP=HIGH",
            "--out",
            str(out),
        ],
        "nb_vs_tan.py": [str(data / "alarm.csv"), "--class", "BP", "--folds", "3"],
        "save_load_sample.py": [str(data / "asia.csv"), "--out", str(out), "-n", "200"],
        "text_classification.py": ["--terms", "12", "--out", str(out)],
        "compare_classifiers_roc.py": ["--bins", "3", "--out", str(out)],
        "explanations.py": [],
        "explorer_page.py": ["--out", str(out)],
        "tutorial_bayesian_learning.py": [],
        "tutorial_em_mixtures.py": [],
        "tutorial_chow_liu_mle.py": [],  # its own bundled asia table: the numbers it asserts
        # the tutorials and gallery pages below check their numbers with asserts, on their
        # own bundled or generated data
        "tutorial_text_naive_bayes.py": [],
        "tutorial_gaussian_classifiers.py": [],
        "clg_tree_penguins.py": [],
        "hidden_trees_binary.py": [],
        "dask_counting.py": [],
    }[name]


EXPECTED_FILES = {
    "chow_liu_draw.py": ["chow_liu_tree.png", "chow_liu_tree.pdf"],
    "pgmpy_query.py": ["model.bif"],
    "nb_vs_tan.py": [],
    "save_load_sample.py": ["model.json", "samples.csv"],
    "text_classification.py": ["text_word_tree.png"],
    "compare_classifiers_roc.py": ["roc_curves.png"],
    "explanations.py": [],
    "explorer_page.py": ["asia_explorer.html"],
    "tutorial_bayesian_learning.py": [],
    "tutorial_chow_liu_mle.py": [],
    "tutorial_em_mixtures.py": [],
    "tutorial_text_naive_bayes.py": [],
    "tutorial_gaussian_classifiers.py": [],
    "clg_tree_penguins.py": [],
    "hidden_trees_binary.py": [],
    "dask_counting.py": [],
}


def test_every_example_is_covered():
    assert {os.path.basename(p) for p in EXAMPLES} == set(EXPECTED_FILES)


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_runs(path, small, tmp_path):
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        doc = ast.get_docstring(ast.parse(f.read()))
    assert doc and len(doc.splitlines()) >= 3, f"{name} needs a comment block saying what it shows"
    proc = subprocess.run(
        [sys.executable, path, *arguments(name, small, tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert proc.returncode == 0, proc.stderr
    for expected in EXPECTED_FILES[name]:
        assert (tmp_path / expected).stat().st_size > 0
    if name == "nb_vs_tan.py":
        assert "naive Bayes" in proc.stdout and "TAN" in proc.stdout
    if name == "pgmpy_query.py":
        assert "agree" in proc.stdout
    if name == "text_classification.py":
        assert "multinomial" in proc.stdout and "TAN, top 12 terms" in proc.stdout


def test_without_out_an_example_writes_into_out_not_the_current_folder(small, tmp_path):
    # the default folder is the repository's git-ignored out/, never where the script runs
    proc = subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "examples", "save_load_sample.py"),
            str(small / "asia.csv"),
            "-n",
            "20",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert list(tmp_path.iterdir()) == []
    assert os.path.getsize(os.path.join(ROOT, "out", "model.json")) > 0
