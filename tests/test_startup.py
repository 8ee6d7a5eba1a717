"""Issue 19, point 4: using a saved tree (the command line's query, show, score, predict
and sample, or ``tl.load``) loads no scikit-learn, SciPy, matplotlib or pgmpy; the
time it takes is measured in benchmarks/bench_startup.py."""

from __future__ import annotations

import pytest
from test_facade import loaded_after


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    import pandas as pd

    import treelearn as tl

    path = tmp_path_factory.mktemp("startup") / "asia.json"
    tl.chow_liu(pd.read_csv("datasets/asia.csv")).save(path)
    return str(path)


def test_load_and_query_a_tree_load_no_heavy_library(tree):
    code = (
        "import pandas as pd, treelearn as tl\n"
        f"m = tl.load({tree!r})\n"
        "m.query('lung', evidence={'smoke': 'yes'}); m.marginals()\n"
        "m.log_likelihood(pd.read_csv('datasets/asia.csv')); m.sample(5, random_state=0)\n"
    )
    assert loaded_after(code) == []


@pytest.mark.parametrize(
    "command",
    [
        ["query", "{tree}", "lung", "--given", "smoke=yes"],
        ["query", "{tree}", "lung", "--map"],
        ["show", "{tree}"],
        ["show", "{tree}", "--dot"],
        ["show", "{tree}", "--mermaid"],
        ["score", "{tree}", "datasets/asia.csv"],
        ["predict", "{tree}", "datasets/asia.csv", "--target", "lung"],
        ["sample", "{tree}", "-n", "5", "--seed", "0"],
    ],
)
def test_tree_commands_load_no_heavy_library(tree, command):
    argv = [a.format(tree=tree) for a in command]
    code = (
        "import contextlib, io\n"
        "from treelearn.cli._main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main({argv!r}) == 0\n"
    )
    assert loaded_after(code) == []
