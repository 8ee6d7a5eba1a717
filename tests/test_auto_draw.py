"""The estimators that choose answer what their choice answers (issue 39 item 6): a fitted
``AutoDensity`` / ``AutoClassifier`` declares the chosen model's capabilities (of the words it
passes on), unfitted what every candidate shares; what it declares works and the rest is
refused; its pictures are the chosen model's, titled with the choice; ``learn --method auto
--plot`` draws it."""

from __future__ import annotations

import subprocess
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli

import treelearn as tl
from tests.conftest import installed_command
from treelearn.classifiers._choose import CANDIDATES as CLASSIFIERS
from treelearn.classifiers._choose import PASSED_ON as CLASSIFIER_PASSED_ON
from treelearn.learners._choose import CANDIDATES as DENSITIES
from treelearn.learners._choose import PASSED_ON as FORWARDED
from treelearn.viz._draw import titled_dot, titled_mermaid

pytest.importorskip("matplotlib")
ASIA = "datasets/asia.csv"


@pytest.fixture(scope="module")
def fitted():
    """AutoDensity with each candidate alone (so each candidate's model is the choice)."""
    df = pd.read_csv(ASIA).head(1500)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            name: tl.AutoDensity(candidates=[name], random_state=0).fit(df) for name in DENSITIES
        }


def _pyagrum(obj):
    """``to_pyagrum`` where pyAgrum is installed; else the declaration alone (the refusal
    comes first either way)."""
    obj.require("pyagrum")
    try:
        import pyagrum  # noqa: F401
    except ImportError:
        return None
    return obj.to_pyagrum()


def _answers(obj, word: str) -> bool:
    """Whether asking ``word`` of ``obj`` gives an answer (True) or the one refusal (False)."""
    calls = {
        "score": lambda: obj.score(pd.read_csv(ASIA).head(5)),
        "sample": lambda: obj.sample(3, random_state=0),
        "sample_given": lambda: obj.sample(3, random_state=0, evidence={"smoke": "yes"}),
        "query": lambda: obj.query("lung", {"smoke": "yes"}),
        "marginals": lambda: obj.marginals({"smoke": "yes"}),
        "map": lambda: obj.map_query({"smoke": "yes"}),
        "predict": lambda: obj.predict(pd.read_csv(ASIA).head(5).drop(columns="lung"), "lung"),
        "draw": lambda: obj.draw(),
        "explorer": lambda: obj.to_html(),
        "explain": lambda: obj.explain(pd.read_csv(ASIA).head(3), "lung"),
        "to_pgmpy": lambda: obj.to_pgmpy(),
        "bif": lambda: obj.to_xmlbif(Path(tempfile.mkdtemp()) / "net.xml"),
        "pyagrum": lambda: _pyagrum(obj),
    }
    try:
        calls[word]()
    except tl.CapabilityError:
        return False
    return True


def test_unfitted_density_declares_what_every_candidate_model_answers(fitted):
    # brute force: the intersection of the capabilities of every candidate's fitted model
    shared = frozenset.intersection(*(a.model_.capabilities for a in fitted.values()))
    assert tl.AutoDensity.capabilities == tl.AutoDensity().capabilities == shared & FORWARDED
    assert {"draw", "score", "query"} <= tl.AutoDensity.capabilities


def test_a_fitted_density_declares_and_answers_what_its_choice_answers(fitted):
    for name, auto in fitted.items():
        assert auto.chosen_ == name
        assert auto.capabilities == auto.model_.capabilities & FORWARDED, name
        for word in FORWARDED:  # declared == what works, every word it passes on
            assert _answers(auto, word) == (word in auto.capabilities), (name, word)
    # an ensemble of cutset networks has no exact MAP: the refusal names the chooser
    bag = fitted["BaggedCutsetNetworks"]
    with pytest.raises(tl.CapabilityError, match="an AutoDensity does not answer map"):
        bag.map_query({"smoke": "yes"})


def test_the_density_pictures_are_the_choice_titled_with_it(fitted):
    for name, auto in fitted.items():
        headline = f"AutoDensity: {name} chosen (validation log-likelihood "
        dot, model_dot = auto.to_dot(), auto.model_.to_dot()
        assert dot == titled_dot(model_dot, auto._headline()), name
        assert dot.splitlines()[:-3] == model_dot.splitlines()[:-1]  # the model's text, whole
        assert headline in dot.splitlines()[-3]
        assert auto.to_mermaid() == titled_mermaid(auto.model_.to_mermaid(), auto._headline())
    fig = fitted["ChowLiuTree"].draw()
    titles = [t.get_text() for ax in fig.axes for t in (ax.title,)]
    assert any(t.startswith("AutoDensity: ChowLiuTree chosen") for t in titles), titles
    fig = fitted["ChowLiuTree"].draw(title="mine")
    assert [ax.get_title() for ax in fig.axes] == ["mine"]
    # the explorer page names the choice
    spec = fitted["CutsetNetwork"].explorer_spec()
    assert spec["title"].startswith("AutoDensity chose CutsetNetwork: ")


def test_unfitted_classifier_declares_what_every_candidate_declares():
    declared = [type(make()).capabilities for make, *_ in CLASSIFIERS.values()]
    assert tl.AutoClassifier.capabilities == frozenset.intersection(*declared)
    assert tl.AutoClassifier().capabilities == tl.AutoClassifier.capabilities
    assert "draw" not in tl.AutoClassifier.capabilities  # WANBIA, the Gaussian ones: none


def test_a_fitted_classifier_draws_when_its_choice_draws(tmp_path):
    df = pd.read_csv(ASIA)
    X, y = df.drop(columns="either"), df["either"]
    clf = tl.AutoClassifier(candidates=["NaiveBayes", "TAN"], cv=3, random_state=0).fit(X, y)
    chosen = clf.estimator_
    assert clf.capabilities == chosen.capabilities & CLASSIFIER_PASSED_ON
    assert {"classify", "score", "explain", "draw", "explorer"} <= CLASSIFIER_PASSED_ON
    assert "draw" in clf.capabilities
    choice = f"AutoClassifier: {clf.chosen_} chosen (cross-validated log-loss "
    assert clf.to_dot() == titled_dot(chosen.to_dot(), clf._choice())
    assert choice in clf.to_dot() and choice in clf.to_mermaid()
    fig = clf.draw()
    assert any(ax.get_title().startswith(choice) for ax in fig.axes)
    assert clf.explorer_spec()["title"].startswith(f"AutoClassifier chose {clf.chosen_}: ")
    # saved and loaded: the same capabilities, the same picture text
    tl.save(clf, tmp_path / "clf.json")
    back = tl.load(tmp_path / "clf.json")
    assert back.capabilities == clf.capabilities and back.to_dot() == clf.to_dot()
    # a WANBIA choice has no network to draw: refused, as the chosen classifier refuses it
    wanbia = tl.AutoClassifier(candidates=["WeightedNaiveBayes"], cv=3).fit(X, y)
    assert "draw" not in wanbia.capabilities and "explorer" in wanbia.capabilities
    with pytest.raises(tl.CapabilityError, match="an AutoClassifier does not answer draw"):
        wanbia.draw()


def test_learn_method_auto_plot_draws_the_choice(tmp_path):
    from PIL import Image

    out, picture = tmp_path / "auto.json", tmp_path / "auto.png"
    rc, _, stderr = run_cli(
        "learn", ASIA, "--method", "auto", "--time-budget", 0, "-o", out, "--plot", picture
    )
    assert rc == 0, stderr
    assert "wrote picture to" in stderr and picture.stat().st_size > 0
    back = tl.load(out)
    assert back.chosen_ == "ChowLiuTree" and back.supports("draw")
    width, _ = Image.open(picture).size
    assert width <= 2050  # 10 in at 200 dpi, and the tight box's padding
    # show --plot / --dot on the saved chooser: the same choice, titled
    rc, dot, stderr = run_cli("show", out, "--dot")
    assert rc == 0, stderr
    assert dot.strip() == back.to_dot() and "AutoDensity: ChowLiuTree chosen" in dot


def test_a_refused_picture_leaves_no_model_file(tmp_path):
    # moved from test_auto_cli.py (AutoDensity draws now), then off the numeric table (its
    # MixedTAN / Gaussian TAN choice draws now: tests/test_numeric_tan_pictures.py): a choice
    # that has no picture (WANBIA, chosen on a table of noisy copies of the evidence, where
    # naive Bayes counts the same evidence many times) is refused in one line before -o is
    # written
    # seed 3: on seed 2's table TAN with its class arcs averaged (the default) beat WANBIA
    # (log-loss 0.137 vs 0.142); here WANBIA 0.149, SKDB 0.169, KDB1 0.175, TAN 0.178
    rng = np.random.default_rng(3)
    n = 300
    y = rng.integers(0, 2, n)
    cols = {f"s{j}": np.where(rng.random(n) < 0.8, y, 1 - y) for j in range(6)}
    cols |= {f"d{j}": cols[f"s{j % 2}"] for j in range(6)}
    cols |= {f"n{j}": rng.integers(0, 3, n) for j in range(10)}
    table = pd.DataFrame(cols).map(lambda v: "abc"[v]).assign(y=np.where(y == 1, "yes", "no"))
    data = tmp_path / "copies.csv"
    table.to_csv(data, index=False)
    out, picture = tmp_path / "auto.json", tmp_path / "auto.png"
    argv = ("learn", data, "--class", "y", "--method", "auto", "-o", out, "--plot", picture)
    rc, _, stderr = run_cli(*argv)
    assert "--method auto chose WeightedNaiveBayes" in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("treelearn: error")]
    assert rc != 0 and len(errors) == 1 and "--plot" in errors[0], stderr
    assert "this AutoClassifier does not answer --plot" in errors[0]
    assert not out.exists() and not picture.exists()


@pytest.mark.slow  # the installed command in a subprocess
@pytest.mark.skipif(installed_command() is None, reason="the treelearn command is not installed")
def test_the_installed_command_draws_the_choice(tmp_path):
    from PIL import Image

    picture, out = tmp_path / "auto.png", tmp_path / "auto.json"
    argv = ["learn", ASIA, "--method", "auto", "--time-budget", "0", "-o", str(out)]
    done = subprocess.run(
        [installed_command(), *argv, "--plot", str(picture)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert Image.open(picture).size[0] <= 2050
    # the same choice as in Python, whose own picture has the same size
    auto = tl.load(out)
    fig = auto.draw(title=True, edge_labels=True, data=pd.read_csv(ASIA))
    assert auto.chosen_ == "ChowLiuTree"
    assert fig.axes[0].get_title().startswith("AutoDensity: ChowLiuTree chosen")
