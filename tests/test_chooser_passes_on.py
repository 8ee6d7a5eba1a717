"""A fitted chooser does everything its chosen model does (issue 39 item 3: "saved and
explained like any classifier"): ``AutoClassifier`` and ``AutoDensity`` pass ``explain``,
``to_pgmpy`` and the BIF/XMLBIF/UAI files on to their choice through the one capability
mechanism, and refuse them (naming the choice and ``candidates=``) where the choice does not
answer them; before the fit, scikit-learn's ``NotFittedError`` naming ``fit``.

Every number is checked against the chosen kind learned on its own (the public class with
its documented options, not the chooser's object): the same explanations, CPDs, files.
"""

from __future__ import annotations

import io
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli
from sklearn.exceptions import NotFittedError

import treelearn as tl
from tests.conftest import installed_command

ASIA = "datasets/asia.csv"
TITANIC = "datasets/real/titanic.csv"
PENGUINS = "datasets/real/penguins.csv"


def _asia() -> tuple[pd.DataFrame, pd.Series]:
    df = pd.read_csv(ASIA).head(3000)
    return df.drop(columns="either"), df["either"]


def _titanic() -> tuple[pd.DataFrame, pd.Series]:
    """Titanic with its states only (sex and class): no numbers, no missing cells."""
    df = pd.read_csv(TITANIC)[["survived", "sex", "passengerClass"]].dropna()
    return df.drop(columns="survived"), df["survived"]


def _penguins() -> tuple[pd.DataFrame, pd.Series]:
    """Penguins, ``year`` as floats: MixedTAN on its own cannot explain a whole-number
    column yet (its masked rows lose the int dtype: 'column year is not numeric'), which
    the chooser's float rows do not meet."""
    df = pd.read_csv(PENGUINS).dropna().reset_index(drop=True).astype({"year": float})
    return df.drop(columns="species"), df["species"]


#: each candidate as the public class with the options AutoClassifier documents for it
ON_ITS_OWN = {
    "NaiveBayes": lambda: tl.NaiveBayes(numbers="mdl"),
    "TAN": lambda: tl.TAN(numbers="mdl"),
    "KDB1": lambda: tl.KDB(k=1, numbers="mdl"),
    "KDB2": lambda: tl.KDB(k=2, numbers="mdl"),
    "AODE": lambda: tl.AODE(numbers="mdl"),
    "SKDB": lambda: tl.SKDB(numbers="mdl"),
    "WeightedNaiveBayes": lambda: tl.WeightedNaiveBayes(numbers="mdl"),
    "MixedTAN": lambda: tl.MixedTAN(),
    "MixedNaiveBayes": lambda: tl.MixedNaiveBayes(),
}

#: (table, candidates, the choice): the first three unforced, each table choosing another
#: kind; the rest forced with candidates=
CASES = [
    ("asia", None, "KDB1"),
    ("titanic", None, "SKDB"),
    ("penguins", None, "MixedTAN"),
    ("asia", ["TAN"], "TAN"),
    ("asia", ["NaiveBayes"], "NaiveBayes"),
    ("asia", ["AODE"], "AODE"),
    ("asia", ["WeightedNaiveBayes"], "WeightedNaiveBayes"),
    ("penguins", ["MixedNaiveBayes"], "MixedNaiveBayes"),
]
TABLES = {"asia": _asia, "titanic": _titanic, "penguins": _penguins}


@pytest.fixture(scope="module")
def fitted():
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for table, candidates, name in CASES:
            X, y = TABLES[table]()
            auto = tl.AutoClassifier(candidates=candidates, cv=5, random_state=0).fit(X, y)
            own = ON_ITS_OWN[name]().fit(X, y)
            out[table, name] = (auto, own, X, y)
    return out


def _ids():
    return [f"{table}-{name}" for table, _, name in CASES]


@pytest.mark.parametrize("case", [(t, n) for t, _, n in CASES], ids=_ids())
def test_the_chooser_explains_as_its_choice_learned_on_its_own(fitted, case):
    auto, own, X, _ = fitted[case]
    assert auto.chosen_ == case[1]
    rows, background = X.head(12), X.head(40)
    assert np.array_equal(auto.predict_log_proba(rows), own.predict_log_proba(rows))
    klass = auto.classes_[-1]
    for options in (
        {"kind": "log_odds"},
        {"kind": "shapley", "output": "proba", "target_class": klass},
        {"kind": "shapley", "conditional": False, "background": background},
    ):
        got, want = auto.explain(rows, **options), own.explain(rows, **options)
        # the same computation on the same fitted numbers: equal to round-off
        np.testing.assert_allclose(got.values, want.values, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.base, want.base, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.prediction, want.prediction, rtol=0, atol=1e-12)
        assert list(got.values.columns) == list(want.values.columns)
    assert auto.supports("explain")


def _cpds(network) -> dict:
    return {
        cpd.variable: (cpd.get_values(), cpd.state_names, sorted(network.get_parents(cpd.variable)))
        for cpd in network.get_cpds()
    }


@pytest.mark.parametrize("case", [(t, n) for t, _, n in CASES], ids=_ids())
def test_the_chooser_exports_as_its_choice_or_refuses_naming_it(fitted, case, tmp_path):
    auto, own, X, y = fitted[case]
    words = {"to_pgmpy", "bif"}
    assert auto.capabilities & words == own.capabilities & words
    if "to_pgmpy" not in own.capabilities:  # AODE, WANBIA, the mixed ones: no one network
        for call, word in (
            (auto.to_pgmpy, "to_pgmpy"),
            (lambda: auto.to_bif(tmp_path / "x.bif"), "bif"),
            (lambda: auto.to_xmlbif(tmp_path / "x.xml"), "bif"),
        ):
            with pytest.raises(tl.CapabilityError) as info:
                call()
            message = str(info.value)
            assert f"an AutoClassifier does not answer {word}" in message
            assert f"it chose {case[1]}, which does not" in message and "candidates=" in message
            assert info.value.fixes == ("candidates",)
        assert not (tmp_path / "x.bif").exists()
        return
    got, want = _cpds(auto.to_pgmpy()), _cpds(own.to_pgmpy())
    assert got.keys() == want.keys()
    for variable, (values, states, parents) in want.items():
        np.testing.assert_array_equal(got[variable][0], values)
        assert got[variable][1] == states and got[variable][2] == parents
    # the files: the same text as the choice's own
    for method, suffix in (("to_bif", "bif"), ("to_xmlbif", "xml"), ("to_uai", "uai")):
        getattr(auto, method)(tmp_path / f"auto.{suffix}")
        getattr(own, method)(tmp_path / f"own.{suffix}")
        text = (tmp_path / f"auto.{suffix}").read_text()
        assert text == (tmp_path / f"own.{suffix}").read_text(), method
    # round trips: pgmpy and BIF read back give the chosen network's likelihood of each row
    whole = pd.concat([X, y], axis=1).head(200)
    whole = whole.astype(dict.fromkeys(whole.columns, str))  # BIF states are text
    want_ll = tl.from_pgmpy(own.to_pgmpy()).score_samples(whole)
    np.testing.assert_allclose(
        tl.from_pgmpy(auto.to_pgmpy()).score_samples(whole), want_ll, rtol=0, atol=1e-12
    )
    read = tl.read_bif(tmp_path / "auto.bif")
    # BIF writes probabilities as decimal text: equal to the digits it keeps
    np.testing.assert_allclose(read.score_samples(whole), want_ll, rtol=0, atol=1e-6)
    # saved and loaded: the same file text
    tl.save(auto, tmp_path / "auto.json")
    tl.load(tmp_path / "auto.json").to_bif(tmp_path / "back.bif")
    assert (tmp_path / "back.bif").read_text() == (tmp_path / "auto.bif").read_text()


def test_inference_passes_on_where_the_choice_answers_it(fitted):
    auto, own, *_ = fitted["asia", "TAN"]
    given = {"smoke": "yes", "xray": "yes"}
    pd.testing.assert_series_equal(auto.query("either", given), own.query("either", given))
    assert auto.map_query(given) == own.map_query(given)
    got, want = auto.marginals(given), own.marginals(given)
    assert got.keys() == want.keys()
    for v in want:
        pd.testing.assert_series_equal(got[v], want[v])
    # the same draws (the chooser's columns are categorical: it learns from the table with
    # each column's states declared)
    pd.testing.assert_frame_equal(
        auto.sample(20, random_state=3, evidence=given).astype(str),
        own.sample(20, random_state=3, evidence=given).astype(str),
    )
    aode, *_ = fitted["asia", "AODE"]
    with pytest.raises(tl.CapabilityError, match="it chose AODE, which does not"):
        aode.query("either", given)
    # partial_fit is not passed on: rows added to the choice are not rows it was chosen on
    assert "partial_fit" in own.capabilities and "partial_fit" not in auto.capabilities


def test_before_the_fit_the_passed_on_methods_name_fit():
    for call in (
        lambda: tl.AutoClassifier().to_pgmpy(),
        lambda: tl.AutoClassifier().to_bif("x.bif"),
        lambda: tl.AutoClassifier().query("either"),
        lambda: tl.AutoDensity().to_pgmpy(),
        lambda: tl.AutoDensity().to_xmlbif("x.xml"),
    ):
        with pytest.raises(NotFittedError, match="is not fitted yet: call fit before"):
            call()
    X, _ = _asia()
    with pytest.raises(NotFittedError, match="fit"):
        tl.AutoClassifier().explain(X.head(2))
    with pytest.raises(NotFittedError, match="fit"):
        tl.AutoDensity().explain(X.head(2), "lung")
    assert not Path("x.bif").exists() and not Path("x.xml").exists()


# ---------------------------------------------------------------- the density that chooses
@pytest.fixture(scope="module")
def densities():
    df = pd.read_csv(ASIA)
    train, valid = df.head(3000), df.iloc[3000:4000]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = tl.AutoDensity(candidates=["ChowLiuTree"]).fit(train, validation=valid)
        mixture = tl.AutoDensity(candidates=["TreeMixture"], random_state=0).fit(
            train, validation=valid
        )
        cutset = tl.AutoDensity(candidates=["CutsetNetwork"], random_state=0).fit(
            train, validation=valid
        )
        own_tree = tl.ChowLiuTree(alpha=1.0, mi_alpha=1.0).fit(train)
        own_mixture = tl.TreeMixture(
            n_components=range(2, 17), alpha=1.0, mi_alpha=1.0, random_state=0
        ).fit(train, validation=valid)
    return train, tree, mixture, cutset, own_tree, own_mixture


def test_the_density_explains_and_exports_its_chosen_tree(densities, tmp_path):
    train, tree, _, _, own, _ = densities
    assert tree.chosen_ == "ChowLiuTree"
    rows = train.head(10)
    for options in ({}, {"kind": "shapley", "output": "proba", "target_state": "yes"}):
        got = tree.explain(rows, "lung", **options)
        want = own.model_.explain(rows, "lung", **options)
        np.testing.assert_allclose(got.values, want.values, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.prediction, want.prediction, rtol=0, atol=1e-12)
    got, want = _cpds(tree.to_pgmpy()), _cpds(own.model_.to_pgmpy())
    assert got.keys() == want.keys()
    for variable, (values, states, parents) in want.items():
        np.testing.assert_array_equal(got[variable][0], values)
        assert got[variable][1:] == (states, parents)
    tree.to_bif(tmp_path / "auto.bif")
    own.model_.to_bif(tmp_path / "own.bif")
    assert (tmp_path / "auto.bif").read_text() == (tmp_path / "own.bif").read_text()
    np.testing.assert_allclose(
        tl.from_pgmpy(tree.to_pgmpy()).score_samples(rows),
        own.score_samples(rows),
        rtol=0,
        atol=1e-12,
    )


def test_the_density_explains_its_chosen_mixture(densities):
    train, _, mixture, _, _, own = densities
    assert mixture.chosen_ == "TreeMixture"
    rows = train.head(6)
    got = mixture.explain(rows, "either", kind="shapley", output="proba")
    want = own.explain(rows, "either", kind="shapley", output="proba")  # the estimator's own
    np.testing.assert_allclose(got.values, want.values, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.values.sum(axis=1) + got.base, got.prediction, atol=1e-12)
    # a mixture is no single network: no pgmpy or BIF form, refused naming the choice
    for call in (mixture.to_pgmpy, lambda: mixture.to_bif("never.bif")):
        with pytest.raises(tl.CapabilityError, match="it chose TreeMixture"):
            call()
    assert not Path("never.bif").exists()


def test_a_chosen_cutset_network_refuses_explain_and_files(densities):
    cutset = densities[3]
    assert cutset.chosen_ == "CutsetNetwork"
    assert not {"explain", "to_pgmpy", "bif"} & cutset.capabilities
    with pytest.raises(tl.CapabilityError) as info:
        cutset.explain(densities[0].head(2), "lung")
    assert "an AutoDensity does not answer explain" in str(info.value)
    assert "it chose CutsetNetwork" in str(info.value) and "candidates=" in str(info.value)


# ---------------------------------------------------------------- the command line
def test_learn_method_auto_bif_and_explain_on_the_command_line(tmp_path):
    X, y = _asia()
    data = tmp_path / "asia.csv"
    pd.concat([X, y], axis=1).to_csv(data, index=False)
    model, bif = tmp_path / "auto.json", tmp_path / "auto.bif"
    rc, _, err = run_cli(
        "learn", data, "--class", "either", "--method", "auto", "-o", model, "--bif", bif
    )
    assert rc == 0, err
    assert "wrote BIF to" in err
    auto = tl.AutoClassifier(random_state=0).fit(X, y)  # the command's choice, in Python
    own = ON_ITS_OWN[auto.chosen_]().fit(X, y)
    own.to_bif(tmp_path / "own.bif")
    assert bif.read_text() == (tmp_path / "own.bif").read_text()
    # explain on the saved auto model: the chosen classifier's own log-odds terms
    rows = tmp_path / "rows.csv"
    X.head(8).to_csv(rows, index=False)
    rc, out, err = run_cli("explain", model, rows, "--state", "yes")
    assert rc == 0, err
    frame = pd.read_csv(io.StringIO(out))
    want = own.explain(X.head(8), target_class="yes")
    for column in X.columns:
        np.testing.assert_allclose(frame[column], want.values[column], rtol=1e-9, atol=1e-12)
    # show --xmlbif on the saved chooser writes the choice's file
    rc, _, err = run_cli("show", model, "--xmlbif", tmp_path / "auto.xml")
    assert rc == 0, err
    own.to_xmlbif(tmp_path / "own.xml")
    assert (tmp_path / "auto.xml").read_text() == (tmp_path / "own.xml").read_text()


def test_learn_method_auto_bif_refused_where_the_choice_has_no_network(tmp_path):
    # the density that chooses a cutset network on asia has no BIF: refused in one line,
    # after the choice, naming it, and no model file left behind
    out, bif = tmp_path / "auto.json", tmp_path / "auto.bif"
    rc, _, err = run_cli(
        "learn", ASIA, "--method", "auto", "--time-budget", 0.5, "-o", out, "--bif", bif
    )
    back = None if not out.exists() else tl.load(out)
    if back is not None and back.supports("bif"):  # a tree chosen: written and equal
        assert rc == 0 and bif.exists()
        return
    assert rc != 0
    assert "does not answer learn --bif" in err and "it chose" in err
    assert "--method" in err and "candidates=" not in err  # the command line's words
    assert not out.exists() and not bif.exists()


# ---------------------------------------------------------------- GaussianClassifier
def _numbers() -> tuple[pd.DataFrame, pd.Series]:
    df = _penguins()[0].assign(species=_penguins()[1])
    cols = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
    return df[cols], df["species"]


@pytest.mark.parametrize("covariance", ["full", "shared"])
def test_a_full_covariance_picture_is_refused_naming_diagonal(covariance):
    X, y = _numbers()
    clf = tl.GaussianClassifier(covariance=covariance).fit(X, y)
    for call in (clf.draw, clf.to_dot, clf.to_mermaid):
        with pytest.raises(tl.CapabilityError) as info:
            call()
        message = str(info.value)
        assert f"a {covariance} covariance is not a tree" in message
        assert 'covariance="diagonal"' in message
        assert info.value.fixes == ("diagonal",)
    # the fix it names draws
    fixed = tl.GaussianClassifier(covariance="diagonal").fit(X, y)
    assert "->" in fixed.to_mermaid() or "-->" in fixed.to_mermaid()


def test_the_command_line_names_its_own_way_to_a_picture(tmp_path):
    X, y = _numbers()
    model = tmp_path / "full.json"
    tl.GaussianClassifier().fit(X, y).save(model)
    rc, _, err = run_cli("show", model, "--plot", tmp_path / "full.png")
    assert rc != 0
    assert "a full covariance is not a tree" in err
    assert "covariance=" not in err  # Python's argument is not a flag
    assert "learn DATA --class COL --numeric gaussian --method naive-bayes" in err
    assert not (tmp_path / "full.png").exists()
    # the command it names draws the numeric table
    data = tmp_path / "numbers.csv"
    pd.concat([X, y], axis=1).to_csv(data, index=False)
    picture = tmp_path / "nb.png"
    rc, _, err = run_cli(
        "learn", data, "--class", "species", "--numeric", "gaussian", "--method",
        "naive-bayes", "--plot", picture,
    )  # fmt: skip
    assert rc == 0, err
    assert picture.stat().st_size > 0


# ---------------------------------------------------------------- the installed command
@pytest.mark.slow  # the installed command in subprocesses
@pytest.mark.skipif(installed_command() is None, reason="the treelearn command is not installed")
def test_the_installed_command_writes_and_explains_the_choice(tmp_path):
    from PIL import Image

    X, y = _titanic()
    data = tmp_path / "titanic.csv"
    pd.concat([X, y], axis=1).to_csv(data, index=False)
    model, bif, picture = tmp_path / "auto.json", tmp_path / "auto.bif", tmp_path / "ex.png"
    done = subprocess.run(
        [installed_command(), "learn", str(data), "--class", "survived", "--method", "auto",
         "-o", str(model), "--bif", str(bif)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "chose SKDB" in done.stderr and "Traceback" not in done.stderr
    own = tl.SKDB(numbers="mdl").fit(X, y)
    own.to_bif(tmp_path / "own.bif")
    assert bif.read_text() == (tmp_path / "own.bif").read_text()
    assert sorted(tl.read_bif(bif).variables) == sorted(own.model_.variables)
    done = subprocess.run(
        [installed_command(), "explain", str(model), str(data), "--plot", str(picture)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert Image.open(picture).size[0] > 100
