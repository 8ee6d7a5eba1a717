"""Issue 19, points 3 and 5: real-world files on the command line (the separator the
header shows, .tsv, encodings, thousands separators: never a numeric column silently
dropped) and the advice for continuous tables and absent feature columns."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli

import treelearn as tl

_run = run_cli  # the command line in this process


@pytest.fixture
def customers(tmp_path):
    """A semicolon file with quoted incomes written with thousands separators."""
    rng = np.random.default_rng(0)
    n = 60
    income = rng.uniform(1000, 90000, n).round(2)
    frame = pd.DataFrame(
        {
            "id": np.arange(n),
            "income": income,
            "city": rng.choice(["Lyon", "Paris"], n),
            "buys": np.where(income > 40000, "yes", "no"),
        }
    )
    lines = ["id;income;city;buys"] + [
        f'{r.id};"{r.income:,.2f}";{r.city};{r.buys}' for r in frame.itertuples()
    ]
    path = tmp_path / "customers.csv"
    path.write_text("\n".join(lines) + "\n")
    return path, frame


def test_semicolons_and_thousands_are_read_and_said(customers, tmp_path):
    path, frame = customers
    model = tmp_path / "m.json"
    rc, out, err = _run("learn", path, "--discretize", "3", "-o", model)
    assert rc == 0, err
    assert "separated by semicolons" in err
    assert "reading column(s) ['income'] as numbers with ','" in err
    assert "ignoring column 'id'" in err  # what is dropped is said, with why
    learned = tl.load(model)
    assert "income" in learned.variables and "id" not in learned.variables
    # the same bins as reading the file by hand and cutting it
    by_hand = tl.discretize(frame.drop(columns="id"), bins=3)
    assert learned.states["income"] == list(by_hand["income"].cat.categories)
    # and the saved model scores the raw file (incomes binned on the way in)
    rc, out, err = _run("score", model, path)
    assert rc == 0, err
    expected = learned.log_likelihood(by_hand)
    got = float(
        next(line for line in out.splitlines() if line.startswith("log-likelihood"))
        .split("=")[1]
        .split()[0]
    )
    assert got == pytest.approx(expected, abs=1e-5)
    assert tl.read_data(path, sep=";", thousands=",")["income"].tolist() == frame["income"].tolist()


def _learned(tmp_path, name):
    rc, _, err = _run("learn", tmp_path / name, "-o", tmp_path / "m.json")
    assert rc == 0, err
    return tmp_path / "m.json"


def test_tsv_encoding_and_decimal_comma(tmp_path):
    rows = "".join(f"x{i % 3}\ty{i % 2}\n" for i in range(30))
    (tmp_path / "t.tsv").write_text("a\tb\n" + rows)
    rc, out, err = _run("learn", tmp_path / "t.tsv")
    assert rc == 0, err
    assert "a (3 states)" in out and "b (2 states)" in out
    text = "name,v\n" + "".join(f"{'café' if i % 2 else 'naïve'},{i % 2}\n" for i in range(20))
    (tmp_path / "latin.csv").write_bytes(text.encode("latin-1"))
    # not UTF-8: read as Windows-1252 with a note naming --encoding (issue 39)
    rc, out, err = _run("learn", tmp_path / "latin.csv")
    assert rc == 0 and "read as cp1252" in err and "--encoding" in err, err
    model = tl.load(_learned(tmp_path, "latin.csv"))
    assert set(model.states["name"]) == {"café", "naïve"}
    # bytes that are not UTF-8 only after the sniffed head: one error line naming --encoding
    tail = "name,v\n" + "naive,0\n" * 20_000
    (tmp_path / "late.csv").write_bytes(tail.encode() + "café,1\n".encode("latin-1"))
    rc, _, err = _run("learn", tmp_path / "late.csv")
    assert rc == 1 and len(err.strip().splitlines()) == 1 and "--encoding" in err, err
    rc, out, err = _run("learn", tmp_path / "latin.csv", "--encoding", "latin-1")
    assert rc == 0, err
    assert "café" in tl.read_data(tmp_path / "latin.csv", encoding="latin-1")["name"].tolist()
    euro = "p;q\n" + "".join(f'"{1000 + i}.{i:03d},5";{i % 2}\n' for i in range(12))
    (tmp_path / "euro.csv").write_text(euro)
    rc, _, err = _run(
        "learn", tmp_path / "euro.csv", "--thousands", ".", "--decimal", ",", "--discretize", "2"
    )
    assert rc == 0, err
    assert "cutting 1 numeric" in err
    values = tl.read_data(tmp_path / "euro.csv", thousands=".", decimal=",")["p"]
    assert values.iloc[1] == pytest.approx(1001 * 1000 + 1 + 0.5)


def test_a_continuous_table_gets_one_short_summary_with_both_fixes(tmp_path):
    rng = np.random.default_rng(1)
    wide = pd.DataFrame(rng.normal(size=(50, 200)), columns=[f"c{j}" for j in range(200)])
    wide["g"] = rng.choice(["a", "b"], 50)
    wide.to_csv(tmp_path / "wide.csv", index=False)
    rc, _, err = _run("learn", tmp_path / "wide.csv")
    lines = err.strip().splitlines()
    assert rc == 1 and len(lines) == 1
    assert "200 columns hold continuous numbers" in lines[0]
    assert "--discretize" in lines[0] and "--numeric gaussian" in lines[0]
    assert len(lines[0]) < 600  # not the same fix once per column
    # in Python: bins in a pipeline, or a model of numbers; no categories for 50 values
    with pytest.raises(tl.TableProblemsError) as err:
        tl.chow_liu(wide)
    first = err.value.problems[0]
    assert "tl.Discretizer(bins=5) in a pipeline" in first.hint
    assert "tl.gaussian_chow_liu" in first.hint
    assert "astype('category')" not in first.hint
    assert set(first.fixes) == {"discretize", "gaussian", "drop"}


def test_absent_feature_columns_are_summed_out_or_refused(tmp_path):
    df = pd.read_csv("datasets/asia.csv")
    X, y = df.drop(columns="either"), df["either"]
    clf = tl.NaiveBayes().fit(X, y)
    lacking = X.drop(columns=["lung"]).head(20)
    with pytest.raises(tl.FeatureMismatchError, match=r"reindex\(columns=clf.feature_names_in_\)"):
        clf.predict_proba(lacking)
    summed = clf.predict_proba(clf.select_features(lacking, absent="missing"))
    holes = X.head(20).astype(object)
    holes["lung"] = np.nan
    np.testing.assert_allclose(summed, clf.predict_proba(holes), atol=1e-12)
    # the missing feature summed out by hand: sum over lung of P(c) prod P(x_j | c)
    joint = 0
    for state in ("no", "yes"):
        joint = joint + np.exp(clf.predict_joint_log_proba(X.head(20).assign(lung=state)))
    np.testing.assert_allclose(summed, joint / joint.sum(axis=1, keepdims=True), atol=1e-12)
    path = tmp_path / "nb.json"
    tl.save(clf, path)
    lacking.to_csv(tmp_path / "lacking.csv", index=False)
    rc, out, err = _run("predict", path, tmp_path / "lacking.csv", "--proba")
    assert rc == 0 and "lacks the feature(s) ['lung']: summed out" in err
    np.testing.assert_allclose(pd.read_csv(io.StringIO(out)).to_numpy(), summed, atol=1e-12)
