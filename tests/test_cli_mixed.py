"""The command line on a mixed table (a category, two numbers, a class): what it prints for
mixed and Gaussian models, tried as a new user would (issue 38): the learned tree, a mixed
TAN's feature tree, queries naming their state column, conditional samples, plots with
titles and edge labels, every printed Gaussian labelled."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli

import treelearn as tl


def _run(argv: list) -> tuple[int, str, str]:
    """The command line in this process (argv as a list)."""
    return run_cli(*argv)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """A mixed table (a category, two numbers, a class) as a CSV file."""
    rng = np.random.default_rng(3)
    n = 300
    g = rng.integers(0, 2, n)
    x = rng.normal(3.0 * g, 1.0)
    df = pd.DataFrame(
        {
            "g": np.where(g == 1, "on", "off"),
            "x": x,
            "z": 2.0 * x + rng.normal(size=n),
            "y": np.where(x + rng.normal(size=n) > 1.5, "yes", "no"),
        }
    )
    path = tmp_path_factory.mktemp("mixed") / "mixed.csv"
    df.to_csv(path, index=False)
    return path, pd.read_csv(path)


def test_learn_numeric_auto_prints_the_tree(mixed, tmp_path):
    path, df = mixed
    rc, out, err = _run(["learn", path, "--numeric", "auto", "-o", tmp_path / "clg.json"])
    assert rc == 0, err
    model = tl.clg_tree(df, numeric="auto")
    assert tl.load(tmp_path / "clg.json") == model
    assert out.startswith(model.to_text() + "\n")  # the tree, then the scores
    assert "└── " in out and "[MI " in out and "log-likelihood = " in out


def test_show_mixed_tan_prints_its_feature_tree(mixed, tmp_path):
    path, df = mixed
    saved = tmp_path / "mtan.json"
    rc, learned, err = _run(["learn", path, "--numeric", "auto", "--class", "y", "-o", saved])
    assert rc == 0, err
    rc, out, err = _run(["show", saved])
    assert rc == 0, err
    clf = tl.MixedTAN().fit(df.drop(columns="y"), df["y"])
    assert out.strip() == clf.to_text() and learned.startswith(clf.to_text())
    # every edge of the feature tree drawn under its parent, each feature's kind named
    lines = out.splitlines()
    for u, v in clf.feature_tree_.edges:
        child = next(i for i, line in enumerate(lines) if f"── {v} (" in line)
        depth = lines[child].index(str(v))
        parent = next(
            lines[i]
            for i in range(child - 1, -1, -1)
            if len(lines[i]) - len(lines[i].lstrip(" │├└─")) < depth - 1
        )
        assert f"{u} (" in parent, (u, v, out)
    assert "g (2 states)" in out
    # each number a Gaussian or cut into MDL bins (numbers="auto", the command's default)
    assert sorted(clf.numeric_features_ + clf.binned_features_) == ["x", "z"]
    for v in clf.numeric_features_:
        assert f"{v} (Gaussian)" in out
    for v in clf.binned_features_:
        assert f"{v} ({len(clf.binner_.edges_[v]) + 1} MDL bins)" in out


def test_mixed_tree_query_names_its_state_column(mixed, tmp_path):
    path, _ = mixed
    saved = tmp_path / "clg.json"
    assert _run(["learn", path, "--numeric", "auto", "-o", saved])[0] == 0
    rc, out, err = _run(["query", saved, "y", "--given", "x=2.5", "g=on"])
    assert rc == 0, err
    assert out.splitlines()[1].split() == ["y", "probability"]  # not "index"
    q = tl.load(saved).query("y", {"x": 2.5, "g": "on"})
    assert f"{q['yes']:.6f}" in out
    # a Gaussian's posterior: its mean, variance and sd, each labelled
    rc, out, err = _run(["query", saved, "z", "--given", "g=on"])
    assert rc == 0, err
    assert out.splitlines()[1].split() == ["variable", "mean", "variance", "sd"]
    mixture = tl.load(saved).query("z", {"g": "on"})
    assert out.splitlines()[2].split() == [
        "z",
        f"{mixture.mean:.6f}",
        f"{mixture.variance:.6f}",
        f"{np.sqrt(mixture.variance):.6f}",
    ]


def test_sample_given_on_a_mixed_tree(mixed, tmp_path):
    path, _ = mixed
    saved = tmp_path / "clg.json"
    assert _run(["learn", path, "--numeric", "auto", "-o", saved])[0] == 0
    rc, out, err = _run(["sample", saved, "-n", "50", "--given", "x=2.5", "g=on", "--seed", "1"])
    assert rc == 0, err
    rows = pd.read_csv(__import__("io").StringIO(out))
    assert len(rows) == 50 and (rows["x"] == 2.5).all() and (rows["g"] == "on").all()
    # the numbers exactly (a Python call with the same seed: its oracle is in test_clg_trees)
    want = tl.load(saved).sample(50, random_state=1, evidence={"x": 2.5, "g": "on"})
    np.testing.assert_allclose(rows["z"], want["z"], rtol=1e-12)


def test_mixed_tree_plot_has_a_title_and_edge_labels(mixed, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import treelearn.cli._learn as learn
    import treelearn.cli._use as use

    path, df = mixed
    drawn = []
    for module in (learn, use):
        keep = module.save_figure
        monkeypatch.setattr(
            module, "save_figure", lambda fig, p, keep=keep: (drawn.append(fig), keep(fig, p))
        )
    saved = tmp_path / "clg.json"
    rc, _, err = _run(
        ["learn", path, "--numeric", "auto", "-o", saved, "--plot", tmp_path / "learn.png"]
    )
    assert rc == 0, err
    rc, _, err = _run(["show", saved, "--plot", tmp_path / "show.png"])
    assert rc == 0, err
    model = tl.clg_tree(df, numeric="auto")
    weights = [f"{w:.3f}" for _, _, w in model.graph.edges(data="weight")]
    for fig, with_data in zip(drawn, (True, False)):
        (ax,) = fig.axes
        title = ax.get_title()
        assert title.startswith("CLG tree (conditional linear Gaussian)"), title
        assert "4 variables" in title and "n = 300" in title
        assert ("log-likelihood" in title) == with_data
        texts = {t.get_text() for t in ax.texts}
        assert set(weights) <= texts, (weights, texts)
    assert (tmp_path / "learn.png").read_bytes().startswith(b"\x89PNG")


def test_every_gaussian_the_command_line_prints_is_labelled(mixed, tmp_path):
    """Never N(43.99, 29.82): every Gaussian printed says which number is the mean and
    which the variance (learn, show and query of a Gaussian tree and a CLG tree)."""
    import re

    path, df = mixed
    numbers = tmp_path / "numbers.csv"
    df[["x", "z"]].to_csv(numbers, index=False)
    outputs = []
    for argv in (
        ["learn", numbers, "--numeric", "gaussian", "-o", tmp_path / "g.json"],
        ["show", tmp_path / "g.json"],
        ["query", tmp_path / "g.json", "z", "--given", "x=1"],
        ["learn", path, "--numeric", "auto", "-o", tmp_path / "c.json"],
        ["show", tmp_path / "c.json"],
        ["query", tmp_path / "c.json", "x", "--given", "g=on"],
    ):
        rc, out, err = _run(argv)
        assert rc == 0, (argv, err)
        outputs.append(out)
    text = "\n".join(outputs)
    gaussians = re.findall(r"N\([^)]*\)", text)
    assert len(gaussians) >= 6, text  # x and z in each tree printed twice; g's two states
    assert all(re.fullmatch(r"N\(mean [^,]+, variance [^,]+\)", g) for g in gaussians), gaussians
    assert "variance" in outputs[2].splitlines()[1] and "variance" in outputs[5].splitlines()[1]
