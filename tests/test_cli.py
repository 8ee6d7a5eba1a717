"""The ``treelearn`` command, end to end in subprocesses on the bundled datasets, with
its output checked against the Python API."""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import treelearn as tl

pytestmark = (
    pytest.mark.slow
)  # the installed `treelearn` command in subprocesses: the second CI job (pytest -m slow)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATASETS = os.path.join(ROOT, "datasets")
ASIA = os.path.join(DATASETS, "asia.csv")
TENNIS = os.path.join(DATASETS, "playtennis.csv")


def run(*args, cwd=None, stdin=None, check=True):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, "-m", "treelearn", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        input=stdin,
        env=env,
        timeout=300,
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )
    return proc


def number(text: str, label: str) -> float:
    match = re.search(rf"^{re.escape(label)} = (\S+)", text, flags=re.M)
    assert match, f"no {label!r} in:\n{text}"
    return float(match.group(1))


@pytest.fixture(scope="module")
def asia():
    return pd.read_csv(ASIA)


@pytest.fixture(scope="module")
def learned(tmp_path_factory, asia):
    """``treelearn learn asia.csv -o --plot --bif``, run once for the module."""
    out = tmp_path_factory.mktemp("learn")
    proc = run(
        "learn",
        ASIA,
        "-o",
        out / "asia.json",
        "--plot",
        out / "asia.png",
        "--bif",
        out / "asia.bif",
    )
    return out, proc


@pytest.fixture(scope="module")
def tennis_nb(tmp_path_factory):
    out = tmp_path_factory.mktemp("tennis")
    proc = run(
        "learn", TENNIS, "--method", "naive-bayes", "--class", "PlayTennis", "-o", out / "nb.json"
    )
    return out / "nb.json", proc


def test_learn_prints_the_tree_and_scores(learned, asia):
    out, proc = learned
    model = tl.chow_liu(asia)
    assert proc.stdout.startswith(model.to_text())
    assert "[MI 0.2488]" in proc.stdout
    assert number(proc.stdout, "n") == len(asia)
    assert number(proc.stdout, "log-likelihood") == pytest.approx(
        model.log_likelihood(asia), abs=1e-5
    )
    assert number(proc.stdout, "BIC") == pytest.approx(model.bic(asia), abs=1e-5)
    assert tl.load(out / "asia.json") == model
    assert tl.read_bif(out / "asia.bif").states == model.states
    png = (out / "asia.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


def test_learn_options(tmp_path, asia):
    proc = run(
        "learn",
        ASIA,
        "--root",
        "smoke",
        "--alpha",
        "1",
        "--drop",
        "asia",
        "-o",
        tmp_path / "m.json",
    )
    model = tl.load(tmp_path / "m.json")
    assert model == tl.chow_liu(asia.drop(columns="asia"), root="smoke", alpha=1.0)
    assert model.root == "smoke" and "asia" not in model.variables
    assert proc.stdout.splitlines()[1].startswith("smoke")


def test_learn_classifiers(tmp_path, asia):
    proc = run("learn", ASIA, "--method", "tan", "--class", "either", "-o", tmp_path / "tan.json")
    clf = tl.load(tmp_path / "tan.json")
    expected = tl.TAN().fit(asia.drop(columns="either"), asia["either"])
    assert isinstance(clf, tl.TAN) and clf.model_ == expected.model_
    assert expected.model_.to_text() in proc.stdout
    assert number(proc.stdout, "log-likelihood") == pytest.approx(
        expected.model_.log_likelihood(asia), abs=1e-5
    )
    accuracy = float(np.mean(expected.predict(asia.drop(columns="either")) == asia["either"]))
    assert number(proc.stdout, "training accuracy") == pytest.approx(accuracy, abs=1e-4)


def test_identifier_column_is_left_out_with_a_note(tennis_nb):
    path, proc = tennis_nb
    assert "ignoring column 'Day'" in proc.stderr
    clf = tl.load(path)
    assert "Day" not in list(clf.feature_names_in_)
    df = pd.read_csv(TENNIS)
    expected = tl.NaiveBayes().fit(df.drop(columns=["Day", "PlayTennis"]), df["PlayTennis"])
    assert clf.model_ == expected.model_


def test_score_prints_the_python_log_likelihood(learned, asia):
    out, _ = learned
    proc = run("score", out / "asia.json", ASIA)
    model = tl.load(out / "asia.json")
    part = asia.iloc[:500]
    proc_part = run("score", out / "asia.json", "-", stdin=part.to_csv(index=False))
    assert number(proc.stdout, "log-likelihood") == pytest.approx(
        model.log_likelihood(asia), abs=1e-5
    )
    assert number(proc.stdout, "average log-likelihood") == pytest.approx(
        model.log_likelihood(asia) / len(asia), abs=1e-6
    )
    assert number(proc.stdout, "BIC") == pytest.approx(model.bic(asia), abs=1e-5)
    assert number(proc_part.stdout, "n") == 500
    assert number(proc_part.stdout, "log-likelihood") == pytest.approx(
        model.log_likelihood(part), abs=1e-5
    )


def test_score_classifier(tennis_nb):
    path, _ = tennis_nb
    proc = run("score", path, TENNIS)
    clf = tl.load(path)
    df = pd.read_csv(TENNIS)
    assert number(proc.stdout, "log-likelihood") == pytest.approx(
        clf.model_.log_likelihood(df), abs=1e-5
    )


def test_predict_classifier_matches_the_api(tennis_nb):
    path, _ = tennis_nb
    clf = tl.load(path)
    df = pd.read_csv(TENNIS)
    X = df[list(clf.feature_names_in_)]
    labels = pd.read_csv(io.StringIO(run("predict", path, TENNIS).stdout))
    assert list(labels.columns) == ["PlayTennis"]
    assert labels["PlayTennis"].tolist() == clf.predict(X).tolist()
    proba = pd.read_csv(io.StringIO(run("predict", path, TENNIS, "--proba").stdout))
    assert list(proba.columns) == [f"P(PlayTennis={c})" for c in clf.classes_]
    np.testing.assert_allclose(proba.to_numpy(), clf.predict_proba(X), rtol=1e-12)


def test_predict_any_variable_of_a_tree(learned, asia):
    out, _ = learned
    model = tl.load(out / "asia.json")
    rows = asia.iloc[:40]
    proba = pd.read_csv(
        io.StringIO(
            run(
                "predict",
                out / "asia.json",
                "-",
                "--target",
                "lung",
                "--proba",
                stdin=rows.to_csv(index=False),
            ).stdout
        )
    )
    for i in (0, 7, 39):
        evidence = {k: v for k, v in rows.iloc[i].items() if k != "lung"}
        expected = model.query("lung", evidence=evidence)
        np.testing.assert_allclose(proba.iloc[i].to_numpy(), expected.to_numpy(), atol=1e-12)


def test_sample_matches_the_api(learned):
    out, _ = learned
    model = tl.load(out / "asia.json")
    proc = run("sample", out / "asia.json", "-n", 200, "--seed", 5)
    got = pd.read_csv(io.StringIO(proc.stdout))
    expected = model.sample(200, random_state=5)
    assert got.shape == (200, len(model.variables))
    assert (got.astype(str).to_numpy() == expected.astype(str).to_numpy()).all()


def test_query_matches_the_api(learned):
    out, _ = learned
    model = tl.load(out / "asia.json")
    proc = run("query", out / "asia.json", "lung", "--given", "smoke=yes", "xray=no")
    assert proc.stdout.splitlines()[0] == "P(lung | smoke=yes, xray=no)"
    expected = model.query("lung", evidence={"smoke": "yes", "xray": "no"})
    for state, p in expected.items():
        line = next(ln for ln in proc.stdout.splitlines() if ln.split()[:1] == [state])
        assert float(line.split()[-1]) == pytest.approx(p, abs=1e-6)


def test_show_text_dot_mermaid_plot(learned, tmp_path, capsys):
    out, _ = learned
    path = out / "asia.json"
    model = tl.load(path)
    assert run("show", path).stdout.strip() == model.to_text()
    run("show", path, "--plot", tmp_path / "tree.svg")
    assert "<svg" in (tmp_path / "tree.svg").read_text()
    from treelearn.cli._main import main

    for flag, expected in (("--dot", model.to_dot()), ("--mermaid", model.to_mermaid())):
        capsys.readouterr()
        assert main(["show", str(path), flag]) == 0
        assert capsys.readouterr().out.strip() == expected


def test_parquet_input(tmp_path, asia):
    pytest.importorskip("pyarrow")
    asia.to_parquet(tmp_path / "asia.parquet")
    proc = run("learn", tmp_path / "asia.parquet")
    assert number(proc.stdout, "log-likelihood") == pytest.approx(
        tl.chow_liu(asia).log_likelihood(asia), abs=1e-5
    )


def test_help_on_every_subcommand(capsys):
    from treelearn.cli._main import main

    for command in ("learn", "score", "predict", "sample", "query", "show"):
        with pytest.raises(SystemExit) as exit_:
            main([command, "--help"])
        assert exit_.value.code == 0
        assert capsys.readouterr().out.startswith(f"usage: treelearn {command}")
    top = run("--help").stdout
    assert top.startswith("usage: treelearn")
    for command in ("learn", "score", "predict", "sample", "query", "show"):
        assert command in top


def _bad(*args, stdin=None, cwd=None):
    """A failing command in a subprocess: non-zero exit, one line on stderr, no traceback."""
    proc = run(*args, stdin=stdin, cwd=cwd, check=False)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def _bad_here(capsys, *args):
    """The same check, in this process (faster) through ``cli.main``."""
    from treelearn.cli._main import main

    capsys.readouterr()
    assert main([str(a) for a in args]) == 1
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("treelearn: error: "), err
    return lines[0]


def test_bad_input_gives_one_line(learned, tmp_path):
    out, _ = learned
    assert _bad("learn", tmp_path / "absent.csv").startswith("treelearn: error: no such data file")
    assert "'nope' is not a" in _bad("learn", ASIA, "--root", "nope")
    assert "no CSV data" in _bad("learn", "-", stdin="")
    text = (out / "asia.json").read_text()
    (tmp_path / "cut.json").write_text(text[: len(text) // 3])
    assert "cut short" in _bad("score", tmp_path / "cut.json", ASIA)
    proc = run("learn", check=False)
    assert proc.returncode == 2 and "usage" in proc.stderr  # argparse: exit 2 with usage


def test_more_bad_input(learned, tmp_path, capsys):
    out, _ = learned
    model = out / "asia.json"
    assert "needs --class" in _bad_here(capsys, "learn", ASIA, "--method", "tan")
    assert "is not a column" in _bad_here(
        capsys, "learn", ASIA, "--method", "naive-bayes", "--class", "zzz"
    )
    assert "chow-liu has no class" in _bad_here(
        capsys, "learn", ASIA, "--method", "chow-liu", "--class", "either"
    )
    (tmp_path / "num.csv").write_text("a,b\n0.5,1\n0.25,2\n0.125,1\n")
    assert "discretize" in _bad_here(capsys, "learn", tmp_path / "num.csv")
    (tmp_path / "gap.csv").write_text("a,b\nx,1\n,2\ny,1\n")
    assert "missing" in _bad_here(capsys, "learn", tmp_path / "gap.csv")
    from treelearn.cli._main import main

    assert main(["learn", str(tmp_path / "gap.csv"), "--missing", "drop"]) == 0
    assert "no such model file" in _bad_here(capsys, "show", tmp_path / "absent.json")
    assert "not a state" in _bad_here(capsys, "query", model, "lung", "--given", "smoke=maybe")
    assert "COLUMN=VALUE" in _bad_here(capsys, "query", model, "lung", "--given", "smoke")
    assert "not a variable" in _bad_here(capsys, "query", model, "nope")
    assert "--target" in _bad_here(capsys, "predict", model, ASIA)
    assert "lacks" in _bad_here(capsys, "score", model, TENNIS)
    assert "non-negative" in _bad_here(capsys, "sample", model, "-n", "-3")
    assert "directory" in _bad_here(capsys, "learn", tmp_path)
    (tmp_path / "v2.json").write_text(text_with_version(model, 2))
    assert "version 2 is not supported" in _bad_here(capsys, "show", tmp_path / "v2.json")


def test_rows_without_a_class_label_and_typed_evidence(tmp_path, capsys):
    from treelearn.cli._main import main

    # the class c misses a label in row 3 (pandas reads c as 1.0/2.0); flag is TRUE/FALSE
    # in the file, which pandas reads as booleans
    (tmp_path / "gap.csv").write_text(
        "a,flag,c\nx,TRUE,1\ny,FALSE,2\nx,TRUE,\ny,TRUE,2\nx,FALSE,1\ny,FALSE,1\n"
    )
    model = tmp_path / "m.json"
    args = ["learn", str(tmp_path / "gap.csv"), "--class", "c", "--method", "naive-bayes"]
    assert main([*args, "--missing", "pairwise", "-o", str(model)]) == 0
    out = capsys.readouterr().out
    assert number(out, "n") == 5  # scored on the 5 labelled rows
    # naive Bayes, Laplace, each class arc averaged (the default): the 5 labelled rows count
    # a: c=1 x 2 y 1, c=2 x 0 y 2; flag (False, True): c=1 2 1, c=2 1 1 (tests/oracles.py)
    from oracles import class_arc_averaged_cpt

    a = class_arc_averaged_cpt([[2, 1], [0, 2]])
    flag = class_arc_averaged_cpt([[2, 1], [1, 1]])
    assert main(["query", str(model), "a", "--given", "c=1"]) == 0
    assert f"{a[0, 0]:.6f}" in capsys.readouterr().out
    # the file spells the bool state TRUE: P(c=1 | flag=True) over the 5 rows, prior 3/5, 2/5
    p1, p2 = 3 / 5 * flag[0, 1], 2 / 5 * flag[1, 1]
    for spelling in ("TRUE", "true", "True"):
        assert main(["query", str(model), "c", "--given", f"flag={spelling}"]) == 0
        line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.split()[:1] == ["1.0"])
        assert float(line.split()[-1]) == pytest.approx(p1 / (p1 + p2), abs=1e-6)
    # score: the unlabelled row counts with its class summed out (rows: x T 1, y F 2, x T -,
    # y T 2, x F 1, y F 1)
    rows = [
        3 / 5 * a[0, 0] * flag[0, 1],
        2 / 5 * a[1, 1] * flag[1, 0],
        3 / 5 * a[0, 0] * flag[0, 1] + 2 / 5 * a[1, 0] * flag[1, 1],
        2 / 5 * a[1, 1] * flag[1, 1],
        3 / 5 * a[0, 0] * flag[0, 0],
        3 / 5 * a[0, 1] * flag[0, 0],
    ]
    assert main(["score", str(model), str(tmp_path / "gap.csv")]) == 0
    assert number(capsys.readouterr().out, "log-likelihood") == pytest.approx(
        sum(np.log(rows)), abs=1e-6
    )


def test_semicolon_separated_file_is_read_with_its_separator(tmp_path, capsys):
    from treelearn.cli._main import main

    rows = "".join(f"x{i};y{i % 2}\n" for i in range(12))  # the first field is an identifier
    (tmp_path / "semi.csv").write_text("a;b\n" + rows)
    capsys.readouterr()
    # issue 19: the separator the header shows is used (and said), not only guessed in a note
    assert main(["learn", str(tmp_path / "semi.csv")]) == 0
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert "separated by semicolons" in err[0]
    assert any("ignoring column 'a'" in line for line in err)  # the identifier, said so
    assert "b (2 states)" in captured.out
    # --sep says otherwise: read as one column, with the pointer
    assert main(["learn", str(tmp_path / "semi.csv"), "--sep", ",", "--keep", "a;b"]) == 0
    assert "separated by semicolons" in capsys.readouterr().err


def text_with_version(path, version):
    import json

    doc = json.loads(path.read_text())
    doc["version"] = version
    return json.dumps(doc)


def test_readme_first_command(tmp_path):
    """The README's first command (install + main job), on the bundled data."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    block = re.search(r"```bash\n(.*?)```", readme, flags=re.S).group(1)
    first = block.strip().splitlines()[0]
    job = first.split("&&")[-1].strip()
    assert job.startswith(".venv/bin/treelearn learn datasets/asia.csv --plot asia.png")
    args = shlex.split(job)[1:]  # the install is what this test environment already did
    os.symlink(DATASETS, tmp_path / "datasets")
    proc = run(*args, cwd=tmp_path)
    assert "TreeModel (chow-liu)" in proc.stdout and "BIC = " in proc.stdout
    png = tmp_path / "asia.png"
    from matplotlib.image import imread

    pixels = imread(png)
    assert pixels.shape[0] > 300 and pixels.shape[1] > 300
    assert (pixels[..., :3] < 0.9).any()
    installed = os.path.join(os.path.dirname(sys.executable), "treelearn")
    if os.path.exists(installed):  # the console script itself, as the README calls it
        proc = subprocess.run(
            [installed, *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env={**os.environ, "MPLBACKEND": "Agg"},
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr


def test_classifier_sample_query_show(tennis_nb, capsys):
    from treelearn.cli._main import main

    path, _ = tennis_nb
    clf = tl.load(path)
    proc = run("sample", path, "-n", 30, "--seed", 2)
    got = pd.read_csv(io.StringIO(proc.stdout))
    expected = clf.model_.sample(30, random_state=2)
    assert (got.astype(str).to_numpy() == expected.astype(str).to_numpy()).all()
    capsys.readouterr()
    assert main(["query", str(path), "PlayTennis", "--given", "Outlook=Sunny"]) == 0
    out = capsys.readouterr().out
    answer = clf.model_.query("PlayTennis", evidence={"Outlook": "Sunny"})
    for state, p in answer.items():
        line = next(ln for ln in out.splitlines() if ln.split()[:1] == [state])
        assert float(line.split()[-1]) == pytest.approx(p, abs=1e-6)
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("NaiveBayes classifier for 'PlayTennis'")
    assert clf.model_.to_text() in out


def test_multinet_file(asia, tmp_path, capsys):
    from treelearn.cli._main import main

    X, y = asia.drop(columns="either"), asia["either"]
    clf = tl.ChowLiuMultinet().fit(X, y)
    path = tmp_path / "multi.json"
    tl.save(clf, path)
    capsys.readouterr()
    assert main(["score", str(path), ASIA]) == 0
    out = capsys.readouterr().out
    joint = clf.predict_joint_log_proba(X)
    expected = joint[np.arange(len(y)), np.searchsorted(clf.classes_, y)].sum()
    assert number(out, "log-likelihood") == pytest.approx(expected, abs=1e-5)
    assert main(["predict", str(path), ASIA]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))["either"]
    assert got.tolist() == clf.predict(X).tolist()
    assert main(["sample", str(path), "-n", "50", "--seed", "0"]) == 0
    sample = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert sample.shape == (50, 8) and set(sample["either"]) <= {"no", "yes"}
    assert main(["show", str(path)]) == 0
    assert "either = no:" in capsys.readouterr().out
    assert main(["show", str(path), "--plot", str(tmp_path / "multi.png")]) == 0
    assert (tmp_path / "multi.png").read_bytes().startswith(b"\x89PNG")
    # issue 19: a multinet answers queries as the mixture over its classes it is
    assert main(["query", str(path), "lung"]) == 0
    printed = capsys.readouterr().out.split()
    prior = dict(zip(clf.classes_, np.exp(clf.class_log_prior_)))
    want = sum(prior[c] * clf.models_[c].query("lung")["yes"] for c in clf.models_)
    assert float(printed[printed.index("yes") + 1]) == pytest.approx(want, abs=1e-6)
    # issue 38: its DOT and Mermaid text, one titled cluster (subgraph) per class tree
    capsys.readouterr()
    assert main(["show", str(path), "--dot"]) == 0
    dot = capsys.readouterr().out.strip()
    assert dot == clf.to_dot() and 'label="either = no";' in dot and 'label="either = yes";' in dot
    pydot = pytest.importorskip("pydot")
    (graph,) = pydot.graph_from_dot_data(dot)
    assert len(graph.get_subgraphs()) == 2
    assert main(["show", str(path), "--mermaid"]) == 0
    assert capsys.readouterr().out.strip() == clf.to_mermaid()


def test_progress_bar_only_on_a_terminal(monkeypatch, tmp_path, capsys):
    from treelearn.cli._main import main

    pytest.importorskip("tqdm")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert main(["learn", ASIA, "-o", str(tmp_path / "m.json")]) == 0
    err = capsys.readouterr().err
    assert "learning" in err  # tqdm's description
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert main(["learn", ASIA]) == 0
    assert "learning" not in capsys.readouterr().err


def test_the_same_variable_given_twice_is_refused(learned, capsys):
    from treelearn.cli._main import main

    model = learned[0] / "asia.json"
    assert main(["query", str(model), "lung", "--given", "smoke=yes", "smoke=no"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("treelearn: error:") and "'smoke' twice" in err and "\n" not in err


# ---------------------------------------------------------------- the semi-naive family on the command line
def test_learn_kdb_aode_forests_and_constraints(asia, tmp_path, capsys):
    from treelearn.cli._main import main

    X, y = asia.drop(columns="either"), asia["either"]
    for method, ref in (("kdb", tl.KDB(k=1, alpha=1.0)), ("aode", tl.AODE(alpha=1.0))):
        path = tmp_path / f"{method}.json"
        args = ["learn", ASIA, "--method", method, "--class", "either", "-o", str(path)]
        assert main(args + (["--k", "1"] if method == "kdb" else [])) == 0
        saved = tl.load(path)
        np.testing.assert_allclose(
            saved.predict_proba(X.head(200)), ref.fit(X, y).predict_proba(X.head(200)), rtol=1e-12
        )
    capsys.readouterr()
    path = tmp_path / "forest.json"
    assert (
        main(
            [
                "learn",
                ASIA,
                "--forest",
                "bic",
                "--blacklist",
                "smoke:lung",
                "bronc:smoke",
                "--whitelist",
                "asia:tub",
                "-o",
                str(path),
            ]
        )
        == 0
    )
    ref = tl.chow_liu(
        asia,
        forest="bic",
        blacklist=[("smoke", "lung"), ("bronc", "smoke")],
        whitelist=[("asia", "tub")],
    )
    assert {frozenset(e) for e in tl.load(path).graph.edges} == {
        frozenset(e) for e in ref.graph.edges
    }
    assert {"smoke", "lung"} not in [set(e) for e in ref.graph.edges]
    assert "whitelist" in _bad_here(capsys, "learn", ASIA, "--whitelist", "asia-tub")
    assert "--k is for --method kdb" in _bad_here(capsys, "learn", ASIA, "--k", "2")
    assert "this AODE does not answer learn --bif" in _bad_here(
        capsys, "learn", ASIA, "--method", "aode", "--class", "either", "--bif", tmp_path / "x.bif"
    )


def test_learn_discretize(tmp_path, capsys):
    from treelearn.cli._main import main

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=300), "z": rng.normal(size=300)})
    df["c"] = np.where(df["x"] + rng.normal(scale=0.5, size=300) > 0, "hi", "lo")
    df.to_csv(tmp_path / "num.csv", index=False)
    assert "discretize" in _bad_here(capsys, "learn", tmp_path / "num.csv")  # floats refused
    path = tmp_path / "m.json"
    assert main(["learn", str(tmp_path / "num.csv"), "--discretize", "4", "-o", str(path)]) == 0
    binned = tl.Discretizer(bins=4, columns=["x", "z"]).fit_transform(
        pd.read_csv(tmp_path / "num.csv")
    )
    assert tl.load(path) == tl.chow_liu(binned)


def test_given_before_the_positionals(learned, capsys):
    """``--given`` takes several items; positionals written after it are not evidence."""
    from treelearn.cli._main import main

    out, _ = learned
    path = str(out / "asia.json")
    capsys.readouterr()
    assert main(["query", path, "lung", "--given", "smoke=yes", "xray=no"]) == 0
    expected = capsys.readouterr().out
    assert main(["query", "--given", "smoke=yes", "xray=no", path, "lung"]) == 0
    assert capsys.readouterr().out == expected
    assert main(["sample", "--given", "lung=yes", path, "-n", "5", "--seed", "1"]) == 0
    rows = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert len(rows) == 5 and (rows["lung"] == "yes").all()


def test_learn_numeric_gaussian(tmp_path, capsys):
    """``learn --numeric gaussian``: the tree, regressions and scores of tl.gaussian_chow_liu."""
    from treelearn.cli._main import main

    rng = np.random.default_rng(0)
    a = rng.normal(size=400)
    df = pd.DataFrame({"a": a, "b": 2 * a + rng.normal(size=400), "c": rng.normal(size=400)})
    df["d"] = df["b"] - 1 + rng.normal(size=400)
    df.to_csv(tmp_path / "num.csv", index=False)
    path = tmp_path / "g.json"
    capsys.readouterr()
    assert (
        main(
            [
                "learn",
                str(tmp_path / "num.csv"),
                "--numeric",
                "gaussian",
                "--root",
                "b",
                "-o",
                str(path),
                "--plot",
                str(tmp_path / "g.png"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    expected = tl.gaussian_chow_liu(pd.read_csv(tmp_path / "num.csv"), root="b")
    assert tl.load(path) == expected
    assert (tmp_path / "g.png").stat().st_size > 0
    # the log-likelihood from the per-row Gaussian densities of the regressions, by hand
    from scipy.stats import norm

    data = pd.read_csv(tmp_path / "num.csv")
    ll = 0.0
    for v in expected.variables:
        node = expected.graph.nodes[v]
        parent = expected.parents(v)
        mean = node["intercept"] + (node["coefficient"] * data[parent[0]] if parent else 0.0)
        ll += norm.logpdf(data[v], mean, np.sqrt(node["variance"])).sum()
    assert number(out, "log-likelihood") == pytest.approx(ll, abs=1e-5)
    assert number(out, "parameters") == 2 * 4 + 3
    # the tree, every Gaussian's mean and variance labelled (issue 38: not N(43.99, 29.82))
    assert out.startswith(expected.to_text())
    assert "b ~ N(mean " in out and "d ~ N(mean " in out and ", variance " in out
    # issue 19: with --class a Gaussian classifier is learned; a continuous class is refused
    assert "continuous" in _bad_here(
        capsys, "learn", tmp_path / "num.csv", "--numeric", "gaussian", "--class", "c"
    )
    assert "--bif" in _bad_here(
        capsys,
        "learn",
        tmp_path / "num.csv",
        "--numeric",
        "gaussian",
        "--bif",
        str(tmp_path / "x.bif"),
    )


# ---------------------------------------------------------------- data preparation (issue 15)
PYTHON_WORDS = ("tl.", "df[", "df.", "missing='", "max_states=", "astype")


def _messy_frame(n=120, seed=5):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "ok": rng.choice(["a", "b"], n),
            "x": rng.normal(size=n),
            "when": pd.date_range("2024-01-01", periods=n, freq="D").strftime("%Y-%m-%d"),
            "gap": rng.choice(["u", "v", None], n),
            "y": rng.normal(size=n),
        }
    )


def _one_error_line(proc):
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("treelearn: error: "), proc.stderr
    return lines[0]


def test_every_problem_in_one_error_in_the_commands_words(tmp_path):
    path = tmp_path / "messy.csv"
    _messy_frame().to_csv(path, index=False)
    line = _one_error_line(run("learn", path, check=False))  # chow-liu
    # issue 19: the two continuous columns in one summary with both fixes, then the rest
    assert "the table has 3 problems: (1) 2 columns hold continuous numbers ('x', 'y'" in line
    for column in ("'x'", "'when'", "'gap'", "'y'"):
        assert column in line
    assert "--discretize 5" in line and "--drop when" in line and "--missing drop" in line
    assert "--numeric gaussian" in line and "--drop x y" in line
    assert not [w for w in PYTHON_WORDS if w in line], line
    # a classifier cuts the numbers x and y into MDL bins (its default numbers="mdl"): the
    # other two problems, in one error, in the command's words
    line = _one_error_line(run("learn", path, "--class", "ok", check=False))
    assert "the table has 2 problems: (1) column 'when'" in line and "'gap'" in line
    assert "'x'" not in line and "'y'" not in line
    assert "--discretize 5" in line and "--drop when" in line and "--missing drop" in line
    assert not [w for w in PYTHON_WORDS if w in line], line
    # the date column alone: named with the exact fix, never dropped as an identifier
    line = _one_error_line(run("learn", path, "--drop", "x", "y", "gap", check=False))
    assert "'when'" in line and "--discretize 5" in line and "--drop when" in line
    assert "ignoring column" not in line


def test_dates_are_cut_by_time_with_discretize(tmp_path):
    df = _messy_frame().drop(columns=["gap"])
    path, model = tmp_path / "dates.csv", tmp_path / "m.json"
    df.to_csv(path, index=False)
    proc = run("learn", path, "--discretize", "3", "-o", model)
    assert "'when'" in proc.stderr and "ignoring column" not in proc.stderr
    frame = pd.read_csv(path).assign(when=lambda d: pd.to_datetime(d["when"]))
    expected = tl.chow_liu(tl.Discretizer(bins=3, columns=["x", "when", "y"]).fit_transform(frame))
    learned = tl.load(model)
    assert learned == expected
    # 120 days in 3 quantile bins: the terciles fall at days 119/3 and 2 * 119/3 after
    # the first, rounded to the nearest whole day, labelled as dates
    a, b = (
        str((pd.Timestamp("2024-01-01") + pd.Timedelta(days=round(119 * q / 3))).date())
        for q in (1, 2)
    )
    assert learned.states["when"] == [f"(-inf, {a}]", f"({a}, {b}]", f"({b}, inf)"]


def test_max_states_option(tmp_path):
    rng = np.random.default_rng(6)
    df = pd.DataFrame({"code": [f"c{i % 30}" for i in range(300)], "k": rng.integers(0, 2, 300)})
    path = tmp_path / "codes.csv"
    df.to_csv(path, index=False)
    line = _one_error_line(run("learn", path, "--max-states", "29", check=False))
    assert "'code'" in line and "--max-states 30" in line and "--drop code" in line
    assert "max_states=" not in line
    model = tmp_path / "m.json"
    run("learn", path, "--max-states", "30", "-o", model)
    assert tl.load(model) == tl.chow_liu(df, max_states=30)
    line = _one_error_line(run("learn", path, "--class", "k", "--max-states", "500", check=False))
    assert "--max-states above 100" in line
    assert "positive" in _one_error_line(run("learn", path, "--max-states", "0", check=False))


def test_notes_for_many_valued_integers_and_repeated_floats(tmp_path):
    rng = np.random.default_rng(7)
    n = 400
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 79, n),
            "dose": rng.choice([0.5, 1.5, 2.5], n),
            "sick": rng.choice(["no", "yes"], n),
        }
    )
    assert df["age"].nunique() == 61
    path, model = tmp_path / "people.csv", tmp_path / "m.json"
    df.to_csv(path, index=False)
    proc = run("learn", path, "-o", model)
    notes = [line for line in proc.stderr.splitlines() if line.startswith("treelearn: note:")]
    assert len(notes) == 2, proc.stderr
    assert "'age' has 61 distinct numbers" in notes[0] and "--discretize 5" in notes[0]
    assert "'dose' has 3 distinct float values" in notes[1] and "taken as 3 categories" in notes[1]
    assert not [w for note in notes for w in PYTHON_WORDS if w in note], notes
    with pytest.warns(tl.NumericColumnWarning) as caught:
        expected = tl.chow_liu(df)
    assert [w.message.column for w in caught] == ["age", "dose"]  # the API's notes
    assert tl.load(model) == expected
    # with --discretize the integers are cut into bins: no note
    proc = run("learn", path, "--discretize", "4")
    assert "distinct numbers" not in proc.stderr


def test_which_columns_are_dates():
    df = pd.DataFrame(
        {
            "day": ["2024-01-31", "2024-02-01", None],
            "stamp": ["2024-01-31 12:00", "2024-01-31T13:05:09.5", "2024-02-01 00:00"],
            "parsed": pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-03"]),
            "not_a_date": ["2024-13-45", "2024-01-01", "2024-01-02"],  # month 13
            "text": ["a", "b", "c"],
            "lists": [[1], [2], [3]],
            "n": [20240101, 20240102, 20240103],
        }
    )
    assert tl.date_columns(df) == ["day", "stamp", "parsed"]  # the library's, which learn uses


# ---------------------------------------------------------------- mixtures of trees
def test_learn_score_predict_sample_show_a_mixture(tmp_path, capsys, asia):
    """``--method mixture``: the model, scores, predictions and samples of tl.TreeMixture."""
    from treelearn.cli._main import main

    path, plot = tmp_path / "mix.json", tmp_path / "mix.png"
    capsys.readouterr()
    assert (
        main(
            [
                "learn",
                ASIA,
                "--method",
                "mixture",
                "--components",
                "3",
                "--seed",
                "2",
                "-o",
                str(path),
                "--plot",
                str(plot),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    expected = tl.TreeMixture(n_components=3, random_state=2).fit(asia)
    saved = tl.load(path)
    np.testing.assert_array_equal(saved.weights_, expected.weights_)
    assert [c == e for c, e in zip(saved.components_, expected.components_)] == [True] * 3
    assert plot.stat().st_size > 0
    for k, w in enumerate(expected.weights_):
        assert f"component {k} (weight {w:.4f}):" in out
    # the scores: the summed log of sum_k w_k P_k(x) and BIC = ll - p/2 ln n, by hand
    per_component = np.column_stack(
        [c.log_likelihood(asia, per_row=True) for c in expected.components_]
    )
    ll = float(np.logaddexp.reduce(per_component + np.log(expected.weights_), axis=1).sum())
    p = sum(c.n_parameters for c in expected.components_) + 2
    for text in (out, run("score", path, ASIA).stdout):
        assert number(text, "log-likelihood") == pytest.approx(ll, abs=1e-5)
        assert number(text, "parameters") == p
        assert number(text, "BIC") == pytest.approx(ll - p / 2 * np.log(len(asia)), abs=1e-5)
    # predict --target: P(lung | the row's other values), exactly (the components' weights
    # given the row times each tree's); without --target a mixture has no class to predict
    proba = pd.read_csv(
        io.StringIO(run("predict", path, ASIA, "--target", "lung", "--proba").stdout)
    )
    assert list(proba.columns) == ["P(lung=no)", "P(lung=yes)"]
    rows = asia.drop(columns="lung")
    joint = []
    for state in ("no", "yes"):
        full = rows.assign(lung=state)[list(asia.columns)]
        logs = np.column_stack([c.log_likelihood(full, per_row=True) for c in expected.components_])
        joint.append(np.logaddexp.reduce(logs + np.log(expected.weights_), axis=1))
    joint = np.column_stack(joint)
    want = np.exp(joint - np.logaddexp.reduce(joint, axis=1, keepdims=True))
    np.testing.assert_allclose(proba.to_numpy(), want, atol=1e-12)
    hard = pd.read_csv(io.StringIO(run("predict", path, ASIA, "--target", "lung").stdout))
    np.testing.assert_array_equal(hard["lung"], np.where(want[:, 1] > want[:, 0], "yes", "no"))
    assert "--target" in _bad_here(capsys, "predict", path, ASIA)
    rows = pd.read_csv(io.StringIO(run("sample", path, "-n", "50", "--seed", "4").stdout))
    drawn = expected.sample(50, random_state=4)
    pd.testing.assert_frame_equal(
        rows, drawn.astype(str).apply(lambda c: c.map(str)), check_dtype=False
    )
    assert "component 2 (weight" in run("show", path).stdout
    # issue 19: a mixture answers queries exactly (P(k | e) times each tree's)
    printed = run("query", path, "lung", "--given", "smoke=yes").stdout.split()
    want = expected.query("lung", {"smoke": "yes"})["yes"]
    assert float(printed[printed.index("yes", 4) + 1]) == pytest.approx(want, abs=1e-6)
    # its DOT: one titled cluster per component (issue 38; it was refused before)
    dot = run("show", path, "--dot").stdout
    for k, w in enumerate(expected.weights_):
        assert f'label="component {k}: weight {w:.3f}";' in dot
    # what a mixture cannot do, in one line: the most probable completion, BIF
    assert "query --map" in _bad_here(capsys, "query", path, "lung", "--map")
    assert "show --bif" in _bad_here(capsys, "show", path, "--bif", tmp_path / "m.bif")
    # the explorer shows a mixture: its hidden component's weights under the evidence
    assert run("show", path, "--html", tmp_path / "m.html").returncode == 0
    assert "component" in (tmp_path / "m.html").read_text(encoding="utf-8")
    assert "--method mixture" in _bad_here(capsys, "learn", ASIA, "--components", "3")
    assert "--class" in _bad_here(capsys, "learn", ASIA, "--method", "mixture", "--class", "lung")
    assert "positive" in _bad_here(
        capsys, "learn", ASIA, "--method", "mixture", "--components", "0"
    )


def test_missing_em_from_the_command_line(tmp_path, capsys, asia):
    """``--missing em``: structural EM for chow-liu, EM over missing cells for a mixture."""
    from treelearn.cli._main import main

    holes = asia.copy()
    rng = np.random.default_rng(8)
    holes = holes.mask(rng.random(holes.shape) < 0.1)
    data = tmp_path / "holes.csv"
    holes.to_csv(data, index=False)
    back = pd.read_csv(data)
    model = tmp_path / "em.json"
    capsys.readouterr()
    assert main(["learn", str(data), "--missing", "em", "-o", str(model)]) == 0
    assert tl.load(model) == tl.chow_liu(back, missing="em")
    model = tmp_path / "mix.json"
    assert (
        main(["learn", str(data), "--method", "mixture", "--missing", "em", "-o", str(model)]) == 0
    )
    expected = tl.TreeMixture(random_state=0, missing="em").fit(back)
    np.testing.assert_allclose(tl.load(model).weights_, expected.weights_, atol=1e-12)
    assert "--missing em is for" in _bad_here(
        capsys, "learn", data, "--class", "lung", "--missing", "em"
    )
