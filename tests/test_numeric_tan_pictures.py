"""Pictures of the classifiers over numbers (issue 39 item 6): MixedTAN, GaussianTAN,
CopulaTAN, KernelTAN, MixedNaiveBayes and GaussianClassifier (diagonal) draw the class over
every feature and the feature tree, the class-conditional MI on its edges, a Gaussian
(kernel) feature marked after its name. The DOT and Mermaid text is read back and compared
with the fitted attributes, walked here on their own."""

from __future__ import annotations

import re
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli
from scipy import stats

import treelearn as tl
from tests.conftest import installed_command
from treelearn.viz._draw import titled_dot

pytest.importorskip("matplotlib")
PENGUINS = "datasets/real/penguins.csv"
NUMBERS = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]


@pytest.fixture(scope="module")
def penguins() -> pd.DataFrame:
    return pd.read_csv(PENGUINS)


@pytest.fixture(scope="module")
def fitted(penguins) -> dict:
    """Each classifier on the penguins, species the class (the numeric ones on the four
    measurements of the complete rows)."""
    X, y = penguins.drop(columns="species"), penguins["species"]
    whole = penguins.dropna()
    num, labels = whole[NUMBERS], whole["species"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "MixedTAN": tl.MixedTAN().fit(X, y),
            "MixedNaiveBayes": tl.MixedNaiveBayes().fit(X, y),
            "GaussianTAN": tl.GaussianTAN().fit(num, labels),
            "CopulaTAN": tl.CopulaTAN().fit(num, labels),
            "KernelTAN": tl.KernelTAN(random_state=0).fit(num, labels),
            "GaussianClassifier": tl.GaussianClassifier(covariance="diagonal").fit(num, labels),
        }


def _tree_edges(clf) -> dict:
    """``{(parent, child): weight}`` of the feature tree, oriented away from its root here:
    MixedTAN keeps it oriented (each feature has at most one parent, one root), the Gaussian
    TANs undirected with ``root_`` (walked breadth-first from it); naive Bayes has none."""
    tree = getattr(clf, "feature_tree_", None)
    if tree is None:
        return {}
    if tree.is_directed():
        assert all(d <= 1 for _, d in tree.in_degree())
        assert sum(d == 0 for _, d in tree.in_degree()) == 1
        return {(u, v): w for u, v, w in tree.edges(data="weight")}
    out, seen, frontier = {}, {clf.root_}, [clf.root_]
    while frontier:
        u = frontier.pop(0)
        for v in sorted(tree.adj[u], key=str):
            if v not in seen:
                seen.add(v)
                frontier.append(v)
                out[u, v] = tree.adj[u][v]["weight"]
    assert seen == set(clf.feature_names_in_)  # a spanning tree
    return out


def _shown(feature: str, kind: str, penguins: pd.DataFrame, clf=None) -> str:
    """A feature's name as the picture shows it: the mixed classifiers' numbers (numeric
    dtype in the table: they decide by dtype) with "(Gaussian)", or with their count of
    MDL bins when ``numbers="auto"`` cut them (``binner_``'s edges, one more bin than
    edges), KernelTAN's kernel features with "(kernel)"."""
    if kind in ("MixedTAN", "MixedNaiveBayes"):
        numeric = pd.api.types.is_numeric_dtype(penguins[feature])
        binner = getattr(clf, "binner_", None)
        if numeric and binner is not None and feature in binner.edges_:
            n = len(binner.edges_[feature]) + 1
            return f"{feature} ({n} MDL bin{'' if n == 1 else 's'})"
        return f"{feature} (Gaussian)" if numeric else feature
    return feature


def _expected(name: str, clf, penguins: pd.DataFrame) -> dict:
    """``{(shown parent, shown child): label or None}``: class -> every feature, unlabelled,
    and the feature tree's edges with their weight at 3 digits."""

    def shown(f: str) -> str:
        if name == "KernelTAN" and f in clf.kernel_features_:
            return f"{f} (kernel)"
        return _shown(f, name, penguins, clf)

    edges = {("species", shown(f)): None for f in clf.feature_names_in_}
    for (u, v), w in _tree_edges(clf).items():
        edges[shown(u), shown(v)] = f"{w:.3f}"
    return edges


def _dot_edges(dot: str) -> dict:
    nodes = dict(re.findall(r'^  "([^"]+)" \[label="([^"]+)"', dot, flags=re.M))
    edges = {}
    for u, v, attrs in re.findall(r'^  "([^"]+)" -> "([^"]+)"(?: \[(.*)\])?;$', dot, flags=re.M):
        label = re.search(r'label="([^"]+)"', attrs)
        edges[nodes[u], nodes[v]] = label.group(1) if label else None
    return edges


def _mermaid_edges(chart: str) -> dict:
    nodes = dict(re.findall(r'^  (n\d+)\["([^"]+)"\]$', chart, flags=re.M))
    edges = {}
    for u, label, v in re.findall(r'^  (n\d+) -\.?->(?:\|"([^"]+)"\|)? (n\d+)$', chart, flags=re.M):
        edges[nodes[u], nodes[v]] = label or None
    return edges


@pytest.mark.parametrize(
    "name",
    ["MixedTAN", "MixedNaiveBayes", "GaussianTAN", "CopulaTAN", "KernelTAN", "GaussianClassifier"],
)
def test_the_text_pictures_are_the_class_over_every_feature_and_the_feature_tree(
    name, fitted, penguins
):
    clf = fitted[name]
    assert clf.supports("draw")
    want = _expected(name, clf, penguins)
    n_features = len(clf.feature_names_in_)
    assert len(want) == n_features + (n_features - 1 if name.endswith("TAN") else 0)
    assert _dot_edges(clf.to_dot()) == want
    assert _mermaid_edges(clf.to_mermaid()) == want
    # the picture: a label per node (the class and every feature), the class marked bold
    fig = clf.draw(edge_labels=True)
    texts = {t.get_text(): t for t in fig.treelearn_node_texts.values()}
    assert set(texts) == {v for edge in want for v in edge}
    assert texts["species"].get_fontweight() == "bold"


def test_the_mixed_tan_marks_the_numbers_as_learn_prints_them(fitted, penguins):
    clf = fitted["MixedTAN"]
    # year is a whole number: the mixed classifiers take it as Gaussian too (by dtype)
    # (each a Gaussian or, numbers="auto", cut into MDL bins)
    numeric = [c for c in penguins.columns if c != "species" and penguins[c].dtype.kind in "if"]
    assert sorted(clf.numeric_features_ + clf.binned_features_) == sorted(numeric)
    assert "year" in numeric
    printed = set(re.findall(r"(\w+) \(Gaussian\)", clf.to_text()))
    drawn = set(re.findall(r'"(\w+) \(Gaussian\)" \[label', clf.to_dot()))
    assert printed == drawn == set(clf.numeric_features_)
    printed = set(re.findall(r"(\w+) \(\d+ MDL bins?\)", clf.to_text()))
    drawn = set(re.findall(r'"(\w+) \(\d+ MDL bins?\)" \[label', clf.to_dot()))
    assert printed == drawn == set(clf.binned_features_)


def test_the_title_gives_the_classifiers_log_likelihood(fitted, penguins):
    # GaussianClassifier(diagonal): log p(x, c) by scipy's normal densities of the fitted
    # means and variances, summed over the rows
    clf = fitted["GaussianClassifier"]
    whole = penguins.dropna()[[*NUMBERS, "species"]]
    codes = np.searchsorted(clf.classes_, whole["species"].to_numpy())
    log_density = stats.norm.logpdf(
        whole[NUMBERS].to_numpy(),
        clf.means_[codes],
        np.sqrt(clf.covariances_[codes]),
    ).sum()
    want = log_density + np.log(clf.class_count_ / clf.class_count_.sum())[codes].sum()
    title = clf.draw(title=True, data=whole).axes[0].get_title()
    number = f"{want:,.1f}".replace("-", "\u2212")  # the title's minus sign
    assert f"log-likelihood = {number} nats" in title, title
    assert "Gaussian naive Bayes" in title and f"n = {len(whole):,}" in title
    # the mixed TAN: the classifier's own log-likelihood (NaN cells summed out)
    mixed = fitted["MixedTAN"]
    ll = mixed.log_likelihood(penguins.drop(columns="species"), penguins["species"])
    title = mixed.draw(title=True, data=penguins).axes[0].get_title()
    assert f"{ll:,.1f}".replace("-", "\u2212") in title and title.startswith("mixed TAN"), title


def test_a_full_covariance_has_no_picture(penguins):
    # every pair of features is dependent within a class: a naive Bayes picture would hide it
    whole = penguins.dropna()
    assert "draw" not in tl.GaussianClassifier.capabilities  # the declaration read on the class
    for covariance in ("full", "shared"):
        clf = tl.GaussianClassifier(covariance=covariance).fit(whole[NUMBERS], whole["species"])
        assert not clf.supports("draw")
        with pytest.raises(tl.CapabilityError, match="GaussianClassifier does not answer draw"):
            clf.to_dot()
        assert clf._repr_svg_() is None
    iso = tl.GaussianClassifier(covariance="isotropic").fit(whole[NUMBERS], whole["species"])
    assert _dot_edges(iso.to_dot()) == {("species", f): None for f in NUMBERS}


def test_a_marked_name_that_is_another_columns_keeps_the_names():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=60), "x (Gaussian)": rng.choice(["a", "b"], 60)})
    # numbers="gaussian": x (noise) would be cut into one MDL bin, and the names' clash
    # is the Gaussian mark's
    clf = tl.MixedTAN(numbers="gaussian").fit(X, pd.Series(rng.choice(["p", "q"], 60), name="cls"))
    assert clf.numeric_features_ == ["x"]
    # "x (Gaussian)" would name both the number x and the categorical column
    assert _dot_edges(clf.to_dot()) == {
        ("cls", "x"): None,
        ("cls", "x (Gaussian)"): None,
        **{(u, v): f"{w:.3f}" for (u, v), w in _tree_edges(clf).items()},
    }


def test_jupyter_shows_the_picture_and_saved_classifiers_draw_the_same(fitted, tmp_path):
    for name, clf in fitted.items():
        svg = clf._repr_svg_()
        assert svg is not None and svg.lstrip().startswith("<?xml"), name
        tl.save(clf, tmp_path / f"{name}.json")
        back = tl.load(tmp_path / f"{name}.json")
        assert back.to_dot() == clf.to_dot() and back.to_mermaid() == clf.to_mermaid(), name


def test_an_auto_classifier_that_chose_the_mixed_tan_draws_it(fitted, penguins):
    X, y = penguins.drop(columns="species"), penguins["species"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = tl.AutoClassifier(candidates=["NaiveBayes", "MixedTAN"], cv=3).fit(X, y)
    assert auto.chosen_ == "MixedTAN" and "draw" in auto.capabilities
    assert auto.to_dot() == titled_dot(auto.estimator_.to_dot(), auto._choice())
    assert _dot_edges(auto.estimator_.to_dot()) == _expected("MixedTAN", auto.estimator_, penguins)
    fig = auto.draw()
    assert fig.axes[0].get_title().startswith("AutoClassifier: MixedTAN chosen")


def test_learn_plot_draws_the_numeric_classifiers(tmp_path):
    # the table the refused-picture test used before: its auto choice draws now
    rng = np.random.default_rng(0)
    n = 300
    y = np.where(rng.random(n) < 0.5, "a", "b")
    u = rng.normal(size=n)
    v = np.where(y == "a", u, -u) + 0.3 * rng.normal(size=n)
    data = tmp_path / "corr.csv"
    pd.DataFrame({"u": u.round(3), "v": v.round(3), "y": y}).to_csv(data, index=False)
    runs = {
        "auto": ("--method", "auto"),
        "numeric_auto": ("--numeric", "auto"),
        "gaussian_tan": ("--numeric", "gaussian"),
        "gaussian_nb": ("--numeric", "gaussian", "--method", "naive-bayes"),
    }
    for name, options in runs.items():
        out, picture = tmp_path / f"{name}.json", tmp_path / f"{name}.png"
        argv = ("learn", data, "--class", "y", *options, "-o", out, "--plot", picture)
        rc, _, stderr = run_cli(*argv)
        assert rc == 0, stderr
        assert f"wrote picture to {picture}" in stderr and picture.stat().st_size > 0, name
        rc, dot, _ = run_cli("show", out, "--dot")
        assert rc == 0 and dot.strip() == tl.load(out).to_dot(), name


@pytest.mark.slow  # the installed command in a subprocess
@pytest.mark.skipif(installed_command() is None, reason="the treelearn command is not installed")
def test_the_installed_command_draws_a_mixed_tan(tmp_path, penguins):
    from PIL import Image

    picture, out = tmp_path / "mixed_tan.png", tmp_path / "mixed_tan.json"
    argv = ["learn", PENGUINS, "--class", "species", "--numeric", "auto", "-o", str(out)]
    done = subprocess.run(
        [installed_command(), *argv, "--plot", str(picture)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and f"wrote picture to {picture}" in done.stderr
    width, height = Image.open(picture).size
    assert 400 <= width <= 2050 and height >= 400  # 200 dpi, sized to the tree
    back = tl.load(out)
    assert type(back).__name__ == "MixedTAN"
    assert _dot_edges(back.to_dot()) == _expected("MixedTAN", back, penguins)
