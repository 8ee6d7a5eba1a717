"""``treelearn learn --class C --class-arcs {average,all}``: the flag reaches every classifier
the command builds with a ``class_arcs`` parameter, on the table read whole and on the file
learned in chunks, and is recorded in the model file. The numbers are the Python
classifiers' fitted on the same table (``average`` = the default), and ``all --alpha 1`` is
scikit-learn's CategoricalNB(alpha=1), an independent oracle. The refusals come before the
data is read (the data path does not exist) and name the flags and the fix."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli, run_installed

import treelearn as tl

#: predict_proba of the same counts summed in another order (whole table vs. chunks, the
#: command vs. Python): round-off only
TOL = 1e-12

CLASSIFIERS = {"naive-bayes": tl.NaiveBayes, "tan": tl.TAN, "kdb": tl.KDB}


def _table(n: int = 300, seed: int = 0) -> pd.DataFrame:
    """Three text features (one copying the class often, one copying it, one noise), a
    number the classifiers cut into MDL bins, and a three-valued class ``C``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.7, a % 2, rng.integers(0, 2, n))
    c = rng.integers(0, 4, n)
    age = np.round(20 + 10 * y + rng.normal(0, 8, n), 1)
    return pd.DataFrame(
        {
            "a": np.array(["lo", "mid", "hi"])[a],
            "b": np.array(["no", "yes"])[b],
            "c": np.array(["p", "q", "r", "s"])[c],
            "age": age,
            "C": np.array(["x", "y", "z"])[y],
        }
    )


@pytest.fixture(scope="module")
def table_file(tmp_path_factory) -> tuple[str, pd.DataFrame]:
    path = tmp_path_factory.mktemp("class_arcs") / "t.csv"
    _table().to_csv(path, index=False)
    return str(path), tl.io.read_data(path)  # as the command reads it


def _learn(path: str, out, *flags) -> tuple[object, str]:
    """The model ``learn PATH --class C FLAGS -o OUT`` saved, loaded; and its stderr."""
    rc, _, err = run_cli("learn", path, "--class", "C", *flags, "-o", out)
    assert rc == 0, err
    return tl.load(out), err


# ------------------------------------------------------------- the flag reaches the fit
@pytest.mark.parametrize("method", CLASSIFIERS)
@pytest.mark.parametrize("arcs", ["all", "average"])
def test_the_flag_gives_the_python_classifier(table_file, tmp_path, method, arcs):
    path, df = table_file
    X, y = df.drop(columns="C"), df["C"]
    # --missing drop (the table has no gaps): the table read whole, not streamed
    clf, err = _learn(
        path, tmp_path / "m.json", "--method", method, "--class-arcs", arcs, "--missing", "drop"
    )
    assert "in chunks" not in err
    assert clf.class_arcs == arcs  # the model file records it
    want = CLASSIFIERS[method](class_arcs=arcs).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), want.predict_proba(X), rtol=0, atol=TOL)
    if arcs == "average":  # the default, the same as no flag
        default, _ = _learn(path, tmp_path / "d.json", "--method", method, "--missing", "drop")
        assert default.class_arcs == "average"
        np.testing.assert_allclose(default.predict_proba(X), clf.predict_proba(X), atol=TOL)
    else:  # the flag changes the numbers: the averaged model is another one
        other = CLASSIFIERS[method]().fit(X, y).predict_proba(X)
        assert np.abs(clf.predict_proba(X) - other).max() > 1e-3


@pytest.mark.parametrize("method", CLASSIFIERS)
@pytest.mark.parametrize(
    "flags",
    [["--class-arcs", "all"], ["--class-arcs", "average"], ["--class-arcs", "all", "--alpha", "0"]],
)
def test_the_file_in_chunks_learns_what_the_table_read_whole_does(
    table_file, tmp_path, method, flags
):
    path, df = table_file
    X = df.drop(columns="C")
    streamed, err = _learn(path, tmp_path / "s.json", "--method", method, *flags)
    assert "learned from" in err and "in chunks" in err  # the streamed path was taken
    whole, err = _learn(path, tmp_path / "w.json", "--method", method, *flags, "--missing", "drop")
    assert "in chunks" not in err
    assert streamed.class_arcs == whole.class_arcs == flags[1]
    np.testing.assert_allclose(streamed.predict_proba(X), whole.predict_proba(X), atol=TOL)


def test_all_with_laplace_is_categorical_nb(tmp_path):
    # CategoricalNB(alpha=1): every class arc kept, Laplace-smoothed counts (sklearn's own
    # code, not treelearn's); integers 0..k-1, each seen, so both have the same states
    from sklearn.naive_bayes import CategoricalNB

    rng = np.random.default_rng(3)
    n, cards = 200, [3, 2, 5, 4]
    y = rng.integers(0, 3, n)
    cols = {
        f"f{j}": np.where(rng.random(n) < 0.5, (y + j) % k, rng.integers(0, k, n))
        for j, k in enumerate(cards)
    }
    cols["f3"] = rng.integers(0, cards[3], n)  # noise: its class arc averaged well out
    table = pd.DataFrame({**cols, "C": y})
    assert all(table[f"f{j}"].nunique() == k for j, k in enumerate(cards))
    path = tmp_path / "ints.csv"
    table.to_csv(path, index=False)
    features = list(cols)
    X = table[features].to_numpy()
    cnb = CategoricalNB(alpha=1.0, min_categories=cards).fit(X, y)
    want = cnb.predict_proba(X)

    categorical = ["--categorical", *features]  # the integers as states, not numbers
    for arcs in ("all", "average"):
        _learn(
            str(path), tmp_path / f"{arcs}.json", "--method", "naive-bayes", "--alpha", "1",
            "--class-arcs", arcs, *categorical,
        )  # fmt: skip
        rc, out, err = run_cli("predict", tmp_path / f"{arcs}.json", path, "--proba", *categorical)
        assert rc == 0, err
        got = pd.read_csv(io.StringIO(out))
        assert list(got.columns) == [f"P(C={c})" for c in cnb.classes_]
        if arcs == "all":
            np.testing.assert_allclose(got.to_numpy(), want, rtol=0, atol=TOL)
        else:  # the averaged CPTs are not CategoricalNB's: the oracle tells them apart
            assert np.abs(got.to_numpy() - want).max() > 1e-3


def test_the_mixed_naive_bayes_of_numeric_gaussian_takes_it(table_file, tmp_path):
    # learn --numeric gaussian --method naive-bayes: MixedNaiveBayes, its text columns'
    # class arcs as --class-arcs says (its Gaussians have none)
    path, df = table_file
    X, y = df.drop(columns="C"), df["C"]
    for arcs in ("all", "average"):
        flags = ["--numeric", "gaussian", "--method", "naive-bayes", "--class-arcs", arcs]
        clf, _ = _learn(path, tmp_path / "m.json", *flags)
        assert isinstance(clf, tl.MixedNaiveBayes) and clf.class_arcs == arcs
        want = tl.MixedNaiveBayes(numbers="gaussian", class_arcs=arcs).fit(X, y)
        np.testing.assert_allclose(clf.predict_proba(X), want.predict_proba(X), atol=TOL)


# ------------------------------------------------------------------------ refusals
#: a data path that does not exist: a refusal naming it would mean the data was read first
ABSENT = "no-such-table.csv"
TAKES = "--class COL with --method tan, kdb or naive-bayes"


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (
            ["--class", "C", "--class-arcs", "average", "--alpha", "0"],
            ["--class-arcs average", "--alpha 0", "--class-arcs all", "--alpha above 0"],
        ),
        (
            ["--class", "C", "--method", "naive-bayes", "--alpha", "0", "--class-arcs", "average"],
            ["--class-arcs average", "--alpha 0", "--class-arcs all", "--alpha above 0"],
        ),
        (["--class", "C", "--method", "aode", "--class-arcs", "all"], ["--method aode", TAKES]),
        (["--class", "C", "--method", "auto", "--class-arcs", "all"], ["--method auto", TAKES]),
        (
            ["--class", "C", "--numeric", "gaussian", "--class-arcs", "all"],
            ["--method tan --numeric gaussian", "GaussianTAN", TAKES],
        ),
        (
            ["--class", "C", "--numeric", "auto", "--class-arcs", "average"],
            ["--method tan --numeric auto", "MixedTAN", TAKES],
        ),
        (["--class-arcs", "all"], ["without --class", TAKES]),
        (["--method", "mixture", "--class-arcs", "all"], ["without --class", TAKES]),
    ],
)
def test_refused_before_the_data_is_read_naming_the_flags_and_the_fix(tmp_path, flags, words):
    rc, out, err = run_cli("learn", tmp_path / ABSENT, *flags)
    assert rc == 1 and out == ""
    assert ABSENT not in err  # refused before the path was looked at
    assert err.startswith("treelearn: error: --class-arcs")
    for word in words:
        assert word in err, (word, err)


@pytest.mark.parametrize(
    "flags, words",
    [
        (["--k", "2"], "--k is for --method kdb"),
        (["--components", "3"], "--components is for --method mixture"),
        (["--method", "kdb", "--class", "C", "--forest", "bic"], "--forest is for"),
        (["--method", "mixture", "--missing", "pairwise"], "mixture takes --missing error, drop"),
        (["--method", "auto", "--class", "C", "--missing", "em"], "auto takes --missing error or"),
    ],
)
def test_every_option_that_does_not_apply_is_refused_before_the_read(tmp_path, flags, words):
    # --class-arcs's refusals run with the other options' (one check, before the read)
    rc, out, err = run_cli("learn", tmp_path / ABSENT, *flags)
    assert rc == 1 and out == ""
    assert ABSENT not in err and words in err, err


def test_a_refused_flag_leaves_no_model_file(table_file, tmp_path):
    path, _ = table_file
    out = tmp_path / "m.json"
    rc, _, err = run_cli(
        "learn", path, "--class", "C", "--method", "aode", "--class-arcs", "all", "-o", out
    )
    assert rc == 1 and "--method aode" in err
    assert not out.exists()


def test_a_choice_other_than_average_or_all_is_a_wrong_command_line(tmp_path):
    with pytest.raises(SystemExit) as exit_:  # argparse: status 2, its choices named
        run_cli("learn", tmp_path / ABSENT, "--class", "C", "--class-arcs", "none")
    assert exit_.value.code == 2


def test_alpha_zero_with_all_is_maximum_likelihood(table_file, tmp_path):
    # the flag said out loud is what --alpha 0 implies: the same plain ML CPTs
    path, df = table_file
    X, y = df.drop(columns="C"), df["C"]
    said, _ = _learn(path, tmp_path / "s.json", "--alpha", "0", "--class-arcs", "all")
    implied, _ = _learn(path, tmp_path / "i.json", "--alpha", "0")
    want = tl.TAN(alpha=0, class_arcs="all").fit(X, y).predict_proba(X)
    for clf in (said, implied):
        assert clf.class_arcs == "all" and clf.alpha == 0
        np.testing.assert_allclose(clf.predict_proba(X), want, atol=TOL)


# ------------------------------------------------------------- the installed command
@pytest.mark.slow
def test_the_installed_command_learns_plain_naive_bayes_and_predicts(tmp_path):
    _table(200, 5).to_csv(tmp_path / "t.csv", index=False)
    df = tl.io.read_data(tmp_path / "t.csv")
    X, y = df.drop(columns="C"), df["C"]
    run_installed(
        "learn", "t.csv", "--class", "C", "--method", "naive-bayes", "--class-arcs", "all",
        "-o", "nb.json", cwd=tmp_path,
    )  # fmt: skip
    got = pd.read_csv(
        io.StringIO(run_installed("predict", "nb.json", "t.csv", "--proba", cwd=tmp_path))
    )
    want = tl.NaiveBayes(class_arcs="all").fit(X, y)
    assert list(got.columns) == [f"P(C={c})" for c in want.classes_]
    np.testing.assert_allclose(got.to_numpy(), want.predict_proba(X), rtol=0, atol=TOL)
    assert tl.load(tmp_path / "nb.json").class_arcs == "all"
