"""Every saved kind x every command, derived from the kind's declared ``capabilities``
(issue 38): a command whose capability the kind declares works, any other is refused in
one ``treelearn: error:`` line naming the commands the kind answers (no traceback). The
mixtures, multinets, cutset ensembles, mixed naive Bayes and Gaussian trees answer queries,
predictions and conditional samples exactly (brute-force oracles on small models)."""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import conditional_from_rows, mixture_table, scored_rows
from scipy import stats

import treelearn as tl
from treelearn.cli._main import main
from treelearn.models._base import CAPABILITIES

#: every command of the matrix and the capability it asks for (None: every kind answers)
COMMANDS = {
    "show": None,
    "plot": "draw",
    "dot": "draw",
    "mermaid": "draw",
    "html": "explorer",
    "bif": "bif",
    "xmlbif": "bif",
    "uai": "bif",
    "score": "score",
    "predict": "classify",
    "predict_target": "predict",
    "query": "query",
    "map": "map",
    "sample": "sample",
    "sample_given": "sample_given",
    "sample_numbers": "sample",  # every sampling kind takes --numbers (binned columns)
    "explain": "explain",
}
#: the capabilities a command asks for: every word but those with no command
ASKED = {c for c in COMMANDS.values() if c is not None}
#: the kinds without a class: predict and explain a --target variable
DENSITIES = {
    "tree",
    "forest",
    "dag",
    "clg",
    "mixture",
    "bagged",
    "gaussian_tree",
    "copula_tree",
    "kernel_forest",
    "tree_posterior",
    "cutset",
    "cutset_ensemble",
    "cutset_model",
    "hidden_tree",
    "hmm",
    "auto_density",
}
NUMERIC = {
    "gaussian_clf",
    "gaussian_tan",
    "copula_tan",
    "kernel_tan",
    "gaussian_tree",
    "copula_tree",
    "kernel_forest",
}


def _kinds(cat, X, labels, num, mixed, words):
    """One small fitted object of every kind a file can hold (X's integer columns are codes
    of categories, whose query and sample --given answers the tests check against the codes:
    the counting classifiers keep them as states with numbers="states")."""
    return {
        "tree": tl.chow_liu(cat),
        "forest": tl.chow_liu(cat, forest="bic"),
        "dag": tl.fit_cpts(nx.DiGraph([("a", "y"), ("b", "y"), ("y", "c")]), cat),
        "naive_bayes": tl.NaiveBayes(numbers="states").fit(X, labels),
        "tan": tl.TAN(numbers="states").fit(X, labels),
        "kdb": tl.KDB(k=1, numbers="states").fit(X, labels),
        "skdb": tl.SKDB(numbers="states").fit(X, labels),
        # its network: the categorical part; a Gaussian feature's value is a likelihood on
        # the class (query, sample --given); the explorer shows the numeric features too
        # numbers="gaussian": u a Gaussian feature (its evidence a likelihood on the class)
        "mixed_nb": tl.MixedNaiveBayes(numbers="gaussian").fit(mixed.drop(columns="y"), mixed["y"]),
        "mixed_tan": tl.MixedTAN(numbers="gaussian").fit(mixed.drop(columns="y"), mixed["y"]),
        "clg": tl.clg_tree(mixed, numeric=["u"]),
        "multinet": tl.ChowLiuMultinet(numbers="states").fit(X, labels),
        "aode": tl.AODE(numbers="states").fit(X, labels),
        "a2de": tl.AnDE(n=2, numbers="states").fit(X, labels),
        "tan_fcll": tl.TAN(criterion="fcll", numbers="states").fit(X, labels),
        "tan_superparent": tl.TANSuperParent(random_state=0, numbers="states").fit(X, labels),
        "fssj": tl.FSSJ(numbers="states").fit(X, labels),
        "awnb": tl.AWNB(random_state=0, numbers="states").fit(X, labels),
        "manb": tl.MANB(numbers="states").fit(X, labels),
        "wanbia": tl.WeightedNaiveBayes(numbers="states").fit(X, labels),
        "etan": tl.ETAN(numbers="states").fit(X, labels),
        "bayesian_tan": tl.BayesianTAN(numbers="states").fit(X, labels),
        "text_nb": tl.TextNaiveBayes().fit(words.drop(columns="y"), words["y"]),
        "gaussian_clf": tl.GaussianClassifier().fit(num.drop(columns="y"), num["y"]),
        "gaussian_tan": tl.GaussianTAN().fit(num.drop(columns="y"), num["y"]),
        "copula_tan": tl.CopulaTAN().fit(num.drop(columns="y"), num["y"]),
        "kernel_tan": tl.KernelTAN(random_state=0).fit(num.drop(columns="y"), num["y"]),
        "mixture": tl.TreeMixture(n_components=2, random_state=0).fit(cat),
        "bagged": tl.BaggedTrees(n_estimators=2, random_state=0).fit(cat),
        "gaussian_tree": tl.gaussian_chow_liu(num.drop(columns="y")),
        "copula_tree": tl.copula_chow_liu(num.drop(columns="y")),
        "kernel_forest": tl.kernel_forest(num.drop(columns="y"), random_state=0),
        "tree_posterior": tl.tree_posterior(cat),
        "cutset": tl.CutsetNetwork(random_state=0, min_rows=30).fit(cat),
        "cutset_ensemble": tl.CutsetNetwork(random_state=0, n_estimators=2).fit(cat),
        "cutset_model": tl.CutsetNetwork(random_state=0, min_rows=30).fit(cat).networks_[0],
        "hidden_tree": tl.HiddenTree(random_state=0, max_iter=3).fit(cat),
        "hmm": tl.HiddenMarkovModel(random_state=0, max_iter=3).fit(cat[["a", "b"]]),
        # the choosers answer what their choice answers (draw, explorer, ...)
        "auto_density": tl.AutoDensity(
            candidates=["ChowLiuTree", "CutsetNetwork"], random_state=0
        ).fit(cat),
        "auto_classifier": tl.AutoClassifier(candidates=["NaiveBayes", "TAN"], cv=3).fit(X, labels),
    }


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """One small saved model per kind, and the data files the commands read."""
    out = tmp_path_factory.mktemp("kinds")
    rng = np.random.default_rng(0)
    n = 120
    a = rng.integers(0, 2, n)
    b = (a ^ (rng.random(n) < 0.2)).astype(int)
    c = rng.integers(0, 3, n)
    y = np.where(a + b + rng.random(n) > 1.5, "yes", "no")
    cat = pd.DataFrame({"a": a, "b": b, "c": c, "y": y})
    X, labels = cat.drop(columns="y"), cat["y"]
    num = pd.DataFrame({"u": rng.normal(size=n)})
    num["v"] = num["u"] + rng.normal(size=n) * 0.5
    num["w"] = rng.normal(size=n)
    num["y"] = np.where(num["u"] > 0, "pos", "neg")
    mixed = pd.DataFrame({"a": np.where(a == 1, "on", "off"), "u": num["u"], "y": y})
    words = pd.DataFrame(rng.poisson(1, (n, 3)), columns=["w0", "w1", "w2"]).assign(y=y)
    for name, frame in (("cat", cat), ("num", num), ("mixed", mixed), ("text", words)):
        frame.to_csv(out / f"{name}.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kinds = _kinds(cat, X, labels, num, mixed, words)
    for kind, model in kinds.items():
        tl.save(model, out / f"{kind}.json")
    return out


def _data(kind: str) -> str:
    if kind in ("mixed_nb", "mixed_tan", "clg"):
        return "mixed"
    if kind == "text_nb":
        return "text"
    return "num" if kind in NUMERIC else "cat"


def _argv(files, kind: str, command: str) -> list[str]:
    model = str(files / f"{kind}.json")
    data = _data(kind)
    csv = str(files / f"{data}.csv")
    given = {
        "mixed_nb": ["a=on", "u=0.5"],  # a Gaussian feature's value: evidence on the class
        "mixed_tan": ["a=on"],
        "clg": ["u=0.5"],
        "text_nb": ["w0=1"],
        "hmm": ["a=1"],
    }.get(kind, ["u=0.5"] if kind in NUMERIC else ["a=1"])
    variable = {"clg": "y", "hmm": "b", "gaussian_tree": "v", "copula_tree": "v"}.get(
        kind, "v" if kind == "kernel_forest" else "y"
    )
    target = {"clg": "y", "gaussian_tree": "v", "copula_tree": "v", "kernel_forest": "v"}.get(
        kind, "u" if data == "num" else "b"
    )
    explain = ["--target", target] if kind in DENSITIES else []  # a classifier's is its class
    return {
        "show": ["show", model],
        "plot": ["show", model, "--plot", str(files / f"{kind}.png")],
        "dot": ["show", model, "--dot"],
        "mermaid": ["show", model, "--mermaid"],
        "html": ["show", model, "--html", str(files / f"{kind}.html")],
        "bif": ["show", model, "--bif", str(files / f"{kind}.bif")],
        "xmlbif": ["show", model, "--xmlbif", str(files / f"{kind}.xml")],
        "uai": ["show", model, "--uai", str(files / f"{kind}.uai")],
        "score": ["score", model, csv],
        "predict": ["predict", model, csv],
        "predict_target": ["predict", model, csv, "--target", target],
        "query": ["query", model, variable, "--given", *given],
        "map": ["query", model, variable, "--given", *given, "--map"],
        "sample": ["sample", model, "-n", "3", "--seed", "0"],
        "sample_given": ["sample", model, "-n", "3", "--given", *given, "--seed", "0"],
        "sample_numbers": ["sample", model, "-n", "3", "--numbers", "--seed", "0"],
        # interventional Shapley values against the rows themselves: every kind that
        # explains takes them (the conditional ones need the kind to sum features out)
        "explain": ["explain", model, csv, *explain, "--background", csv],
    }[command]


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def _written(files, kind: str, command: str) -> bool:
    suffix = {"plot": "png", "html": "html", "bif": "bif", "xmlbif": "xml", "uai": "uai"}
    path = files / f"{kind}.{suffix[command]}"
    return path.exists() and path.stat().st_size > 0


def _in_bins(got: pd.Series, value: str) -> bool:
    """Every label of ``got`` a bin (``(lo, hi]``, ``(lo, inf)``, ``[lo, hi]``) that holds
    ``value``."""
    labels = got.astype(str)
    if not labels.str.match(r"^[\(\[][^,]+, [^,]+[\)\]]$").all():
        return False
    x = float(value)
    for label in labels:
        lo, hi = (float(t) for t in label[1:-1].split(", "))
        above = lo <= x if label[0] == "[" else lo < x
        below = x <= hi if label[-1] == "]" else x < hi
        if not (above and below):
            return False
    return True


def _holds_evidence(files, kind: str, out: str) -> bool:
    """Every sampled row holds the evidence ``--given`` gave."""
    rows = pd.read_csv(io.StringIO(out))
    for item in _argv(files, kind, "sample_given")[5:-2]:
        column, value = item.split("=")
        got = rows[column]
        want = float(value) if got.dtype.kind == "f" else value
        if _in_bins(got, value):  # a column cut into bins (an MDL classifier's): the
            continue  # evidence's bin, every row
        if not (got.astype(str) == str(want)).all() and not (got == want).all():
            return False
    return len(rows) == 3


def test_every_kind_declares_capability_words():
    # a capability the matrix cannot ask about would escape it: every word a kind can
    # declare is asked by a command, or is Python's only (no command line form)
    assert set(CAPABILITIES) >= ASKED
    assert set(CAPABILITIES) - ASKED == {"marginals", "to_pgmpy", "pyagrum", "partial_fit"}


def test_every_classifier_scores_and_explains_on_the_command_line(files):
    # every classifier scores rows and explains predictions (the base's log_likelihood and
    # explain): a second capabilities line in GaussianClassifier, GaussianTAN and
    # BayesianTAN once replaced the first, and the command line refused score and explain
    classifiers = [tl.load(path) for path in sorted(files.glob("*.json"))]
    classifiers = [obj for obj in classifiers if obj.supports("classify")]
    assert {type(obj).__name__ for obj in classifiers} >= {
        "GaussianClassifier",
        "GaussianTAN",
        "BayesianTAN",
    }
    for obj in classifiers:
        assert {"classify", "score", "explain"} <= obj.capabilities, type(obj).__name__
    # the log-likelihood `treelearn score` prints, against full-covariance Gaussians per
    # class fitted here by maximum likelihood: sum_r log p(c_r) + log N(x_r; mu_c, S_c)
    rc, out, err = _run(["score", str(files / "gaussian_clf.json"), str(files / "num.csv")])
    assert rc == 0, err
    printed = float(re.search(r"^log-likelihood = (\S+) nats$", out, re.M).group(1))
    data = pd.read_csv(files / "num.csv")
    X, y = data.drop(columns="y").to_numpy(), data["y"].to_numpy()
    expected = 0.0
    for c in np.unique(y):
        rows = X[y == c]
        normal = stats.multivariate_normal(rows.mean(axis=0), np.cov(rows.T, bias=True))
        expected += len(rows) * np.log(len(rows) / len(X)) + normal.logpdf(rows).sum()
    assert abs(printed - expected) < 1e-5  # printed to 6 decimals


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_works_where_declared_and_is_refused_in_one_line_elsewhere(files, command):
    """The kind x command matrix, derived from each saved kind's declared capabilities."""
    capability = COMMANDS[command]
    for path in sorted(files.glob("*.json")):
        kind = path.stem
        obj = tl.load(path)
        rc, out, err = _run(_argv(files, kind, command))  # an uncaught exception fails here
        if capability is None or obj.supports(capability):
            assert rc == 0, (kind, command, err)
            if command in ("plot", "html", "bif", "xmlbif", "uai"):
                assert _written(files, kind, command), (kind, command)
            else:
                assert out.strip(), (kind, command)
            if command == "sample_given":
                assert _holds_evidence(files, kind, out), (kind, out)
            if command == "query":
                assert out.startswith("P("), (kind, out)
        else:
            lines = [line for line in err.splitlines() if not line.startswith("treelearn: note")]
            assert rc == 1 and len(lines) == 1 and lines[0].startswith("treelearn: error: "), (
                kind,
                command,
                err,
            )
            assert "Traceback" not in err and not out, (kind, command)
            # the refusal names the kind and what it answers, in the command line's words
            assert type(obj).__name__ in lines[0], (kind, command, lines[0])
            if "predicts its class" not in lines[0]:  # a classifier's --target names its class
                assert "it answers: show" in lines[0], (kind, command, lines[0])


@pytest.mark.skipif(
    shutil.which("treelearn") is None
    and not (__import__("pathlib").Path(sys.executable).parent / "treelearn").exists(),
    reason="the treelearn command is not installed",
)
@pytest.mark.slow  # the installed command in subprocesses
def test_the_installed_command_gives_the_same_answers(files):
    exe = shutil.which("treelearn") or str(
        __import__("pathlib").Path(sys.executable).parent / "treelearn"
    )
    # a few (kind, command) pairs through the installed entry point (each process pays the
    # start-up; the whole matrix runs in-process above, through the same main())
    for kind, command in (
        ("gaussian_tree", "query"),
        ("mixture", "sample_given"),
        ("aode", "html"),
        ("multinet", "query"),
        ("copula_tree", "map"),
    ):
        argv = _argv(files, kind, command)
        done = subprocess.run([exe, *argv], capture_output=True, text=True)
        rc, out, err = _run(argv)
        assert done.returncode == rc, (kind, command, done.stderr)
        assert "Traceback" not in done.stderr
        if command not in ("sample", "sample_given", "plot", "html"):
            assert done.stdout == out and done.stderr == err


# ------------------------------------------------------------------ exact answers
@pytest.fixture(scope="module")
def mixture():
    df = pd.read_csv("datasets/asia.csv").iloc[:, :5]
    return tl.TreeMixture(n_components=3, random_state=0).fit(df)


def test_mixture_query_marginals_predict_equal_the_full_joint(mixture):
    table = mixture_table(mixture.weights_, mixture.components_)
    rows, p = table[mixture.components_[0].variables], table["p"].to_numpy()
    assert p.sum() == pytest.approx(1, abs=1e-12)
    evidence = {"smoke": "yes", "asia": "no"}
    for target in ("lung", "tub"):
        want = conditional_from_rows(rows, p, target, evidence)
        got = mixture.query(target, evidence)
        np.testing.assert_allclose(got.to_numpy(), want.loc[list(got.index)].to_numpy(), atol=1e-12)
        np.testing.assert_allclose(
            mixture.marginals(evidence)[target].to_numpy(), got.to_numpy(), atol=1e-12
        )
    # P(k | e) by enumeration: w_k P_k(e) / sum
    keep = ((rows["smoke"] == "yes") & (rows["asia"] == "no")).to_numpy()
    pe = np.array([table[f"p{k}"][keep].sum() for k in range(len(mixture.components_))])
    np.testing.assert_allclose(mixture.component_posterior(evidence), pe / pe.sum(), atol=1e-12)
    # predict --target: each row's other values as evidence
    data = rows.drop(columns="lung").iloc[::7].reset_index(drop=True)
    proba = mixture.predict_proba(data, target="lung")
    for r in range(len(data)):
        want = conditional_from_rows(rows, p, "lung", data.iloc[r].to_dict())
        np.testing.assert_allclose(
            proba.iloc[r].to_numpy(), want.loc[list(proba.columns)], atol=1e-12
        )
    # a missing column is summed out like a missing cell
    np.testing.assert_allclose(
        mixture.predict_proba(data.drop(columns="tub"), target="lung").iloc[0].to_numpy(),
        conditional_from_rows(
            rows, p, "lung", data.drop(columns="tub").iloc[0].to_dict()
        ).to_numpy(),
        atol=1e-12,
    )


def test_mixture_conditional_sampling_is_exact(mixture):
    evidence = {"smoke": "yes"}
    X, which = mixture.sample(6000, random_state=0, evidence=evidence, return_components=True)
    assert (X["smoke"] == "yes").all()
    post = mixture.component_posterior(evidence)
    freq = np.bincount(which, minlength=len(post)) / len(which)
    sd = np.sqrt(post * (1 - post) / len(which))
    assert (np.abs(freq - post) <= 5 * sd + 1e-12).all()
    want = mixture.query("lung", evidence)["yes"]
    got = (X["lung"] == "yes").mean()
    assert abs(got - want) <= 5 * np.sqrt(want * (1 - want) / len(X))
    # soft evidence is taken now (issue 40; brute force in test_soft_evidence_ensembles.py):
    # a flat likelihood is no evidence
    np.testing.assert_allclose(
        mixture.query("lung", {"smoke": [0.5, 0.5]}), mixture.query("lung"), rtol=0, atol=1e-12
    )


def test_mixture_on_the_command_line_prints_the_exact_query(mixture, tmp_path):
    path = tmp_path / "mix.json"
    tl.save(mixture, path)
    rc, out, err = _run(["query", str(path), "lung", "--given", "smoke=yes"])
    assert rc == 0, err
    printed = pd.read_csv(io.StringIO("\n".join(out.splitlines()[1:])), sep=r"\s+")
    np.testing.assert_allclose(
        printed["probability"], mixture.query("lung", {"smoke": "yes"}).to_numpy(), atol=1e-6
    )
    rc, _, err = _run(["query", str(path), "lung", "--map"])
    assert rc == 1 and "--map" in err and len(err.splitlines()) == 1


def test_multinet_query_is_the_class_posterior_times_each_tree(files):
    clf = tl.load(files / "multinet.json")
    labels = list(clf.models_)
    prior = dict(zip(clf.classes_, np.exp(clf.class_log_prior_)))
    trees = [clf.models_[c] for c in labels]
    table = mixture_table([prior[c] for c in labels], trees)  # every feature row
    rows = table[trees[0].variables]
    # the joint over (class, features): P(c) P_c(x)
    full = pd.concat([rows.assign(y=c) for c in labels], ignore_index=True)
    pf = np.concatenate([table[f"p{k}"].to_numpy() for k in range(len(labels))])
    for target in ("y", "b"):
        rc, out, err = _run(["query", str(files / "multinet.json"), target, "--given", "a=1"])
        assert rc == 0, err
        printed = pd.read_csv(io.StringIO("\n".join(out.splitlines()[1:])), sep=r"\s+")
        want = conditional_from_rows(full, pf, target, {"a": 1})
        np.testing.assert_allclose(
            printed["probability"], want.loc[printed[target].tolist()].to_numpy(), atol=1e-6
        )


def test_gaussian_tree_on_the_command_line(files):
    model = tl.load(files / "gaussian_tree.json")
    path = str(files / "gaussian_tree.json")
    rc, out, err = _run(["query", path, "v", "w", "--given", "u=0.5"])
    assert rc == 0, err
    printed = pd.read_csv(io.StringIO("\n".join(out.splitlines()[1:])), sep=r"\s+")
    q = model.query(["v", "w"], {"u": 0.5})
    np.testing.assert_allclose(printed["mean"], q.mean.to_numpy(), atol=1e-6)
    np.testing.assert_allclose(printed["sd"], np.sqrt(np.diag(q.covariance)), atol=1e-6)
    np.testing.assert_allclose(printed["variance"], np.diag(q.covariance), atol=1e-6)
    # the conditional Gaussian by hand: the joint (mu, Sigma) conditioned on u = 0.5
    mu, S = model.joint()
    K = S.loc[["v", "w"], "u"].to_numpy() / S.loc["u", "u"]
    np.testing.assert_allclose(
        printed["mean"], mu[["v", "w"]].to_numpy() + K * (0.5 - mu["u"]), atol=1e-6
    )
    np.testing.assert_allclose(
        printed["variance"],
        np.diag(S.loc[["v", "w"], ["v", "w"]].to_numpy()) - K**2 * S.loc["u", "u"],
        atol=1e-6,
    )
    # predict --target v: E[v | u, w] row by row, from the model's own query
    rc, out, err = _run(["predict", path, str(files / "num.csv"), "--target", "v"])
    assert rc == 0, err
    got = pd.read_csv(io.StringIO(out))["v"].to_numpy()
    data = pd.read_csv(files / "num.csv")
    for r in (0, 5, 17):
        want = model.query(["v"], {"u": data["u"][r], "w": data["w"][r]}).mean["v"]
        assert got[r] == pytest.approx(want, abs=1e-9)
    # sample --given: the evidence held, the rest from the conditional Gaussian
    rc, out, err = _run(["sample", path, "-n", "4000", "--given", "u=0.5", "--seed", "0"])
    assert rc == 0, err
    drawn = pd.read_csv(io.StringIO(out))
    assert (drawn["u"] == 0.5).all()
    sd = np.sqrt(np.diag(q.covariance))
    assert np.all(
        np.abs(drawn[["v", "w"]].mean().to_numpy() - q.mean.to_numpy())
        <= 5 * sd / np.sqrt(len(drawn))
    )


def test_gaussian_classifiers_learn_on_the_command_line(files, tmp_path):
    for method, kind in (("tan", tl.GaussianTAN), ("naive-bayes", tl.MixedNaiveBayes)):
        path = tmp_path / f"{method}.json"
        rc, out, err = _run(
            [
                "learn",
                str(files / "num.csv"),
                "--numeric",
                "gaussian",
                "--class",
                "y",
                "--method",
                method,
                "-o",
                str(path),
            ]
        )
        assert rc == 0, err
        clf = tl.load(path)
        assert isinstance(clf, kind)
        data = pd.read_csv(files / "num.csv")
        # --numeric gaussian: a mixed naive Bayes's numbers all Gaussian
        options = {"numbers": "gaussian"} if kind is tl.MixedNaiveBayes else {}
        direct = kind(**options).fit(data.drop(columns="y"), data["y"])
        np.testing.assert_allclose(
            clf.predict_proba(data.drop(columns="y")),
            direct.predict_proba(data.drop(columns="y")),
            atol=1e-12,
        )
        rc, out, _ = _run(["predict", str(path), str(files / "num.csv")])
        assert rc == 0 and out.splitlines()[1:] == list(direct.predict(data.drop(columns="y")))
    # a text column is left out of a Gaussian tree, and said so
    rc, out, err = _run(["learn", str(files / "num.csv"), "--numeric", "gaussian"])
    assert rc == 0 and "leaving out the column(s) ['y']" in err


def test_clg_trees_and_mixed_tan_learn_on_the_command_line(files, tmp_path):
    data = pd.read_csv(files / "mixed.csv")
    for numeric in ("auto", "u"):
        path = tmp_path / f"clg-{numeric}.json"
        rc, out, err = _run(
            ["learn", str(files / "mixed.csv"), "--numeric", numeric, "-o", str(path)]
        )
        assert rc == 0, err
        model = tl.load(path)
        direct = tl.clg_tree(data, numeric=["u"])
        assert type(model).__name__ == "CLGTreeModel" and model.continuous == ["u"]
        np.testing.assert_allclose(
            model.log_likelihood(data, per_row=True),
            direct.log_likelihood(data, per_row=True),
            atol=1e-12,
        )
    # the CLG tree's exact answers, printed: a discrete query, a Gaussian mixture's mean
    rc, out, _ = _run(["query", str(path), "y", "--given", "u=0.5"])
    q = direct.query("y", {"u": 0.5})
    assert rc == 0 and f"{q['yes']:.6f}" in out and f"{q['no']:.6f}" in out
    rc, out, _ = _run(["query", str(path), "u", "--given", "a=on"])
    assert rc == 0 and f"{direct.query('u', {'a': 'on'}).mean:.6f}" in out
    rc, out, _ = _run(["predict", str(path), str(files / "mixed.csv"), "--target", "y"])
    assert rc == 0 and out.splitlines()[1:] == list(direct.predict(data, "y").astype(str))
    # with --class: the mixed TAN
    path = tmp_path / "mixed_tan.json"
    rc, out, err = _run(
        ["learn", str(files / "mixed.csv"), "--numeric", "u", "--class", "y", "-o", str(path)]
    )
    assert rc == 0, err
    clf = tl.load(path)
    direct = tl.MixedTAN(numeric=["u"], numbers="gaussian").fit(data.drop(columns="y"), data["y"])
    np.testing.assert_allclose(
        clf.predict_proba(data.drop(columns="y")),
        direct.predict_proba(data.drop(columns="y")),
        atol=1e-12,
    )
    rc, out, err = _run(["learn", str(files / "mixed.csv"), "--numeric", "nope"])
    assert rc != 0 and "'nope' is not a column" in err


def test_copula_tree_query_prints_the_models_conditional(files):
    # the printed median / mean / quantiles are the Python model's CopulaQuery given u = 0.5
    rc, out, err = _run(_argv(files, "copula_tree", "query"))
    assert rc == 0, err
    model = tl.load(files / "copula_tree.json")
    q = model.query("v", {"u": 0.5})
    row = out.splitlines()[2].split()
    assert row[0] == "v"
    low, high = q.quantile([0.05, 0.95])
    expected = [q.median, q.mean, low, high]
    assert [float(x) for x in row[1:]] == pytest.approx(expected, abs=5e-7)  # printed to 6 places
    assert low < q.median < high


def test_multinet_conditional_sampling_is_exact(files):
    """sample --given on a multinet: each row's class from P(c | e), its features from that
    class's tree given e; the class frequency against the brute-force joint."""
    clf = tl.load(files / "multinet.json")
    labels = list(clf.models_)
    prior = dict(zip(clf.classes_, np.exp(clf.class_log_prior_)))
    trees = [clf.models_[c] for c in labels]
    table = mixture_table([prior[c] for c in labels], trees)
    rows = table[trees[0].variables]
    full = pd.concat([rows.assign(y=c) for c in labels], ignore_index=True)
    pf = np.concatenate([table[f"p{k}"].to_numpy() for k in range(len(labels))])
    rc, out, err = _run(
        ["sample", str(files / "multinet.json"), "-n", "6000", "--given", "a=1", "--seed", "1"]
    )
    assert rc == 0, err
    drawn = pd.read_csv(io.StringIO(out))
    assert (drawn["a"] == 1).all() and list(drawn.columns) == ["a", "b", "c", "y"]
    for target, state in (("y", "yes"), ("c", 2)):
        want = conditional_from_rows(full, pf, target, {"a": 1})[state]
        got = (drawn[target] == state).mean()
        assert abs(got - want) <= 5 * np.sqrt(want * (1 - want) / len(drawn)), (target, got, want)
    # the class given: that class's tree alone
    rc, out, err = _run(["query", str(files / "multinet.json"), "c", "--given", "y=no", "a=1"])
    printed = pd.read_csv(io.StringIO("\n".join(out.splitlines()[1:])), sep=r"\s+")
    want = conditional_from_rows(full, pf, "c", {"a": 1, "y": "no"})
    np.testing.assert_allclose(printed["probability"], want.loc[printed["c"]].to_numpy(), atol=1e-6)


def test_cutset_ensemble_query_and_conditional_sampling_are_exact(tmp_path):
    """An ensemble of cutset networks is a mixture: its query and its conditional samples
    (each row's network from P(k | e), then the row given e) against the full joint."""
    df = pd.read_csv("datasets/asia.csv").iloc[:, :5]
    # two very different networks (of the rows without and with lung cancer: their
    # P(smoke = yes) differ, so the evidence moves the networks' weights from 1/2, 1/2)
    states = {c: sorted(df[c].unique()) for c in df.columns}
    net, other = (
        tl.CutsetNetwork(random_state=0, min_rows=200, states=states).fit(part)
        for part in (df[df["lung"] == "no"], df[df["lung"] == "yes"])
    )
    net.set_params(n_estimators=2)  # an ensemble of the two, as its file says
    net.model_ = tl.MixtureModel([net.networks_[0], other.networks_[0]], [0.5, 0.5])
    path = tmp_path / "ensemble.json"
    tl.save(net, path)
    states = net.networks_[0].states
    rows, p = scored_rows(net.score_samples, list(states), states)  # every row scored
    assert p.sum() == pytest.approx(1, abs=1e-12)
    rc, out, err = _run(["query", str(path), "lung", "--given", "smoke=yes"])
    assert rc == 0, err
    printed = pd.read_csv(io.StringIO("\n".join(out.splitlines()[1:])), sep=r"\s+")
    want = conditional_from_rows(rows, p, "lung", {"smoke": "yes"})
    np.testing.assert_allclose(
        printed["probability"], want.loc[printed["lung"]].to_numpy(), atol=1e-6
    )
    rc, out, err = _run(["sample", str(path), "-n", "8000", "--given", "smoke=yes", "--seed", "2"])
    assert rc == 0, err
    drawn = pd.read_csv(io.StringIO(out))
    assert (drawn["smoke"] == "yes").all()
    for target in ("lung", "bronc", "tub"):
        w = conditional_from_rows(rows, p, target, {"smoke": "yes"})["yes"]
        got = (drawn[target] == "yes").mean()
        assert abs(got - w) <= 5 * np.sqrt(w * (1 - w) / len(drawn)), (target, got, w)
    # predict --target: the argmax of the exact posterior, row by row
    rc, out, err = _run(["predict", str(path), "datasets/asia.csv", "--target", "lung"])
    assert rc == 0, err
    got = pd.read_csv(io.StringIO(out))["lung"].tolist()
    data = pd.read_csv("datasets/asia.csv").iloc[:, :5]
    for r in (0, 9, 301):
        evidence = {k: v for k, v in data.iloc[r].items() if k != "lung"}
        assert got[r] == conditional_from_rows(rows, p, "lung", evidence).idxmax()


def test_mixed_naive_bayes_gaussian_evidence_is_a_likelihood_on_the_class(files):
    """query/sample --given with a Gaussian feature's value: P(c | a, u) by hand,
    P(c) P(a | c) N(u; theta_c, var_c) normalised."""
    clf = tl.load(files / "mixed_nb.json")
    path = str(files / "mixed_nb.json")
    prior = np.exp(clf.class_log_prior_)
    p_a = clf.model_.cpt_frame("a")["on"].to_numpy()  # P(a = on | c), rows in class order
    density = stats.norm.pdf(0.5, clf.theta_[:, 0], np.sqrt(clf.var_[:, 0]))
    want = prior * p_a * density / np.sum(prior * p_a * density)
    rc, out, err = _run(["query", path, "y", "--given", "a=on", "u=0.5"])
    assert rc == 0, err
    printed = pd.read_csv(io.StringIO("\n".join(out.splitlines()[1:])), sep=r"\s+")
    assert printed["y"].tolist() == list(clf.classes_)
    np.testing.assert_allclose(printed["probability"], want, atol=1e-6)
    # the same numbers as the classifier's own posterior of that row
    row = pd.DataFrame({"a": ["on"], "u": [0.5]})
    np.testing.assert_allclose(want, clf.predict_proba(row)[0], atol=1e-12)
    rc, out, err = _run(["sample", path, "-n", "5000", "--given", "u=0.5", "--seed", "3"])
    assert rc == 0, err
    drawn = pd.read_csv(io.StringIO(out))
    assert (drawn["u"] == 0.5).all()
    p_u = prior * density / np.sum(prior * density)  # P(c | u), a summed out
    got = (drawn["y"] == clf.classes_[1]).mean()
    assert abs(got - p_u[1]) <= 5 * np.sqrt(p_u[1] * (1 - p_u[1]) / len(drawn))
    # a Gaussian feature's own posterior is not computed: one line naming it
    rc, _, err = _run(["query", path, "u", "--given", "a=on"])
    assert rc == 1 and "'u' is a Gaussian feature" in err and len(err.splitlines()) == 1


def test_clg_tree_conditional_sampling_on_the_command_line(files):
    """sample --given u=0.5 on a CLG tree: y's frequency is the exact P(y | u) (whose
    brute-force oracle is in tests/test_clg_trees.py); every row holds u = 0.5."""
    model = tl.load(files / "clg.json")
    rc, out, err = _run(
        ["sample", str(files / "clg.json"), "-n", "6000", "--given", "u=0.5", "--seed", "5"]
    )
    assert rc == 0, err
    drawn = pd.read_csv(io.StringIO(out))
    assert (drawn["u"] == 0.5).all()
    for target in ("y", "a"):
        q = model.query(target, {"u": 0.5})
        state = q.index[1]
        got = (drawn[target].astype(str) == str(state)).mean()
        assert abs(got - q[state]) <= 5 * np.sqrt(q[state] * (1 - q[state]) / len(drawn))


def test_numbers_draw_within_each_sampled_bin():
    """sample(numbers=True) on the kinds that gained it (issue 38): the same rows as without
    it (same seed: the bins drawn first), each number inside its row's bin."""
    from treelearn.encoding._bins import bins_of

    rng = np.random.default_rng(4)
    x = rng.normal(size=400)
    raw = pd.DataFrame({"x": x, "z": x + rng.normal(size=400), "c": rng.integers(0, 2, 400)})
    binned = tl.discretize(raw, bins=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = [
            tl.CutsetNetwork(random_state=0, min_rows=50).fit(binned),
            tl.CutsetNetwork(random_state=0, min_rows=50).fit(binned).networks_[0],
            tl.HiddenTree(random_state=0, max_iter=3).fit(binned),
            tl.ChowLiuMultinet().fit(binned[["x", "z"]], binned["c"]),
            tl.tree_posterior(binned),
        ]
    for model in models:
        labels = model.sample(200, random_state=1)
        numbers = model.sample(200, random_state=1, numbers=True)
        for column in ("x", "z"):
            bins = bins_of(
                sorted(set(binned[column]), key=list(binned[column].cat.categories).index)
            )
            got = bins.codes(numbers[column].to_numpy(dtype=float))
            want = [bins.labels.index(v) for v in labels[column]]
            assert (got == want).all(), (type(model).__name__, column)
        assert (numbers["c"].astype(str) == labels["c"].astype(str)).all()
