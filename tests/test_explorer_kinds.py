"""The explorer asks instead of guessing: every kind (every model class of ``MODEL_KINDS``,
every estimator of ``ESTIMATORS``) that declares ``"explorer"`` gives its page
specification (``explorer_spec``, defined on its class) and a page; every other one is
refused by the protocol's one ``CapabilityError``, naming what it answers; and viz/
identifies nothing by probing attributes (the ``hasattr``/``getattr`` calls left there
are listed below, each with why it is no identification).
"""

from __future__ import annotations

import ast
import importlib
import json
import pathlib
import pkgutil
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import three_small_columns

import treelearn as tl
from treelearn._base.persistence import ESTIMATORS
from treelearn.models._base import MODEL_KINDS, Capable
from treelearn.models._cutset import Leaf
from treelearn.viz._explorer import explorer_spec, to_html

ROOT = pathlib.Path(__file__).resolve().parent.parent
ASIA = pd.read_csv(ROOT / "datasets" / "asia.csv").head(600)
X, Y = ASIA.drop(columns="either"), ASIA["either"]
RNG = np.random.default_rng(0)
NUM = pd.DataFrame(RNG.normal(size=(200, 3)), columns=["u", "v", "w"])
NUM["v"] += NUM["u"]
NY = np.where(NUM["u"] > 0, "pos", "neg")
MIXED = pd.DataFrame({"a": np.where(NUM["u"] > 0, "on", "off"), "u": NUM["u"], "v": NUM["v"]})
WORDS = pd.DataFrame(RNG.poisson(1, (200, 3)), columns=["w0", "w1", "w2"])

#: a small fitted instance of every concrete kind
FACTORIES = {
    "TreeModel": lambda: tl.chow_liu(ASIA),
    "GaussianTreeModel": lambda: tl.gaussian_chow_liu(NUM),
    "CLGTreeModel": lambda: tl.clg_tree(MIXED, numeric=["u", "v"]),
    "CopulaTreeModel": lambda: tl.copula_chow_liu(NUM),
    "KernelForestModel": lambda: tl.kernel_forest(NUM, random_state=0),
    "TreePosterior": lambda: tl.tree_posterior(ASIA.iloc[:, :5]),
    "CutsetModel": lambda: tl.CutsetNetwork(max_depth=1).fit(ASIA).networks_[0],
    "MixtureModel": lambda: tl.TreeMixture(n_components=2, random_state=0).fit(ASIA).model_,
    "HiddenTreeModel": lambda: (
        tl.HiddenTree(n_states=2, max_iter=2, random_state=0).fit(ASIA).model_
    ),
    "NaiveBayes": lambda: tl.NaiveBayes().fit(X, Y),
    "TAN": lambda: tl.TAN().fit(X, Y),
    "KDB": lambda: tl.KDB(k=2).fit(X, Y),
    "SKDB": lambda: tl.SKDB().fit(X, Y),
    "ETAN": lambda: tl.ETAN().fit(X, Y),
    "AutoClassifier": lambda: tl.AutoClassifier(candidates=["NaiveBayes", "TAN"], cv=3).fit(X, Y),
    "FSSJ": lambda: tl.FSSJ().fit(X, Y),
    "BSEJ": lambda: tl.BSEJ().fit(X, Y),
    "TANHillClimb": lambda: tl.TANHillClimb().fit(X, Y),
    "TANSuperParent": lambda: tl.TANSuperParent().fit(X, Y),
    "ChowLiuMultinet": lambda: tl.ChowLiuMultinet().fit(X, Y),
    "AODE": lambda: tl.AODE().fit(X, Y),
    "AnDE": lambda: tl.AnDE(n=2).fit(X, Y),
    "WeightedNaiveBayes": lambda: tl.WeightedNaiveBayes().fit(X, Y),
    "AWNB": lambda: tl.AWNB(random_state=0).fit(X, Y),
    "MANB": lambda: tl.MANB().fit(X, Y),
    "BayesianTAN": lambda: tl.BayesianTAN().fit(X, Y),
    "MixedNaiveBayes": lambda: tl.MixedNaiveBayes().fit(MIXED, NY),
    "MixedTAN": lambda: tl.MixedTAN().fit(MIXED, NY),
    "GaussianClassifier": lambda: tl.GaussianClassifier().fit(NUM, NY),
    "GaussianTAN": lambda: tl.GaussianTAN().fit(NUM, NY),
    "CopulaTAN": lambda: tl.CopulaTAN().fit(NUM, NY),
    "KernelTAN": lambda: tl.KernelTAN(random_state=0).fit(NUM, NY),
    "TextNaiveBayes": lambda: tl.TextNaiveBayes().fit(WORDS, NY),
    "TreeMixture": lambda: tl.TreeMixture(n_components=2, random_state=0).fit(ASIA),
    "BaggedTrees": lambda: tl.BaggedTrees(n_estimators=2, random_state=0).fit(ASIA),
    "CutsetNetwork": lambda: tl.CutsetNetwork(max_depth=2).fit(ASIA),
    "AutoDensity": lambda: tl.AutoDensity(candidates=["ChowLiuTree", "CutsetNetwork"]).fit(ASIA),
    "HiddenTree": lambda: tl.HiddenTree(n_states=2, max_iter=2, random_state=0).fit(ASIA),
    "HiddenMarkovModel": lambda: tl.HiddenMarkovModel(n_states=2, max_iter=2).fit(ASIA.iloc[:, :4]),
    "Discretizer": lambda: tl.Discretizer().fit(NUM),
    "ChowLiuTree": lambda: tl.ChowLiuTree().fit(ASIA),
    "GaussianTree": lambda: tl.GaussianTree().fit(NUM),
    "CLGTree": lambda: tl.CLGTree().fit(MIXED),
    "CopulaTree": lambda: tl.CopulaTree().fit(NUM),
    "KernelForest": lambda: tl.KernelForest(random_state=0).fit(NUM),
    "BayesianTrees": lambda: tl.BayesianTrees().fit(ASIA.iloc[:, :5]),
}
#: the bases every classifier or estimator derives from (no fitted instance of their own)
BASES = {
    "BayesNetClassifier",
    "CategoricalClassifier",
    "NumericClassifier",
    "SingleNetworkClassifier",
    "FeatureWeightedClassifier",
    "_GroupSearch",
    "DensityEstimator",
    "EMEstimator",
    "ModelEstimator",
    "_WrapperSearch",
}


def test_every_kind_has_a_case_here():
    for module in pkgutil.walk_packages(tl.__path__, "treelearn."):  # the registries fill
        importlib.import_module(module.name)  # as the classes are defined
    kinds = {c.__name__ for c in MODEL_KINDS.values()} | (set(ESTIMATORS) - BASES)
    assert kinds == set(FACTORIES)


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_a_declared_explorer_gives_a_page_any_other_kind_the_one_refusal(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = FACTORIES[name]()
    assert type(obj).__name__ == name
    if not isinstance(obj, Capable):  # a transformer: no kind at all
        with pytest.raises(tl.TreelearnError, match=f"not a {name}"):
            to_html(obj)
        return
    if not obj.supports("explorer"):
        with pytest.raises(tl.CapabilityError, match=f"{name} does not answer explorer") as err:
            to_html(obj)
        assert err.value.capability == "explorer" and "explorer" not in err.value.supported
        return
    spec = explorer_spec(obj)
    n = len(spec["variables"])
    assert n and len(spec["drawn"]) == n
    for v in spec["variables"]:  # a state list, or a number with its slider
        assert v["states"] or v["range"][0] < v["range"][1]
    components = spec["joint"]["p"] if "joint" in spec else spec["components"]
    assert components or all(not v["states"] for v in spec["variables"])
    page = to_html(obj)
    data = page.split('id="treelearn-data">', 1)[1].split("</script>", 1)[0]
    assert json.loads(data)["title"] == spec["title"]


def test_an_option_of_another_kind_is_refused_naming_it():
    with pytest.raises(tl.TreelearnError, match="super_parent='smoke' chooses one of AODE"):
        explorer_spec(tl.chow_liu(ASIA), super_parent="smoke")
    with pytest.raises(tl.TreelearnError, match="depth=2 is no option of the explorer"):
        explorer_spec(tl.chow_liu(ASIA), depth=2)


def test_a_mixture_of_cutset_networks_gives_its_leaves_page():
    bag = tl.CutsetNetwork(max_depth=1, n_estimators=2, random_state=0).fit(ASIA)
    spec = explorer_spec(bag.model_)  # the bag's model: a mixture of two networks
    assert type(bag.model_).__name__ == "MixtureModel" and spec == explorer_spec(bag)
    leaves = sum(isinstance(node, Leaf) for net in bag.networks_ for node in net.nodes())
    assert len(spec["components"]) == leaves and not spec["map"]  # a bag's MAP: refused


def test_an_unfitted_estimator_is_refused():
    for est in (tl.TreeMixture(), tl.TAN(), tl.CutsetNetwork(), tl.HiddenTree()):
        with pytest.raises(tl.TreelearnError, match="not fitted yet"):
            to_html(est)


#: the only attribute probes left in viz/, and why each is no identification of a model
PROBES = {
    ("_draw.py", "hasattr", "get_renderer"): "a matplotlib canvas that can measure text",
    ("_explorer.py", "getattr", "require"): "the Capable protocol itself, asked of any object",
}


def test_viz_identifies_nothing_by_probing_attributes():
    found = set()
    for path in sorted((ROOT / "treelearn" / "viz").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("hasattr", "getattr")
            ):
                name = node.args[1].value if isinstance(node.args[1], ast.Constant) else None
                found.add((path.name, node.func.id, name))
    assert found == set(PROBES)


def test_the_map_tree_of_bayesian_tan_is_the_spanning_tree_routine_s():
    clf = tl.BayesianTAN(class_arcs="all").fit(X, Y)  # "average": a directed tree
    g = nx.Graph()
    d = len(X.columns)
    for i in range(d):
        for j in range(i + 1, d):
            g.add_edge(X.columns[i], X.columns[j], weight=clf.log_weights_[i, j])
    tree = clf.map_tree()
    assert {frozenset(e) for e in tree.edges} == {
        frozenset(e) for e in nx.maximum_spanning_tree(g).edges
    }
    assert nx.is_arborescence(tree) and next(nx.topological_sort(tree)) == X.columns[0]
    j = list(X.columns).index
    for u, v, p in tree.edges(data="posterior"):
        assert p == clf.edge_posteriors_[j(u), j(v)]


# ---------------------------------------------------------------------------------- hostile inputs
SMALL, SMALL_Y = three_small_columns()  # 80 rows of 3 small columns, 80 labels


def test_explorer_of_an_averaged_classifier_says_why_a_super_parent_is_wrong():
    # both have pages of their average (tests/test_explorer_ande.py, _bayes_tan.py); a
    # super-parent, which chooses one of AODE's networks, is refused with the reason
    for clf, why in ((tl.AnDE(n=2), "pairs of super-parents"), (tl.BayesianTAN(), "has none")):
        clf.fit(SMALL, SMALL_Y)
        assert clf.to_html().startswith("<!DOCTYPE html>")
        with pytest.raises(tl.TreelearnError, match=why):
            clf.to_html(super_parent=SMALL.columns[0])


# ------------------------------------------------------ kinds too large for a page, or without one
ASIA_FULL = pd.read_csv(ROOT / "datasets" / "asia.csv")
ALARM = ROOT / "datasets" / "alarm.csv"


def test_kinds_the_page_cannot_compute_on_are_refused_with_the_reason():
    X, y = ASIA_FULL.drop(columns="either"), ASIA_FULL["either"]
    rng = np.random.default_rng(0)
    num = pd.DataFrame(rng.normal(size=(200, 4)), columns=list("abcd"))
    Xn, yn = num.drop(columns="d"), (num["d"] > 0).astype(int)
    # too large for its page: the kind says why; no page at all: the one refusal of an
    # undeclared capability (a copula's Gaussians are of normal scores, a kernel TAN
    # averages several estimators), naming what the kind does answer
    with pytest.raises(tl.TreelearnError, match="map_tree"):
        to_html(tl.tree_posterior(pd.read_csv(ALARM, nrows=300)))
    for obj in (tl.CopulaTAN().fit(Xn, yn), tl.KernelTAN().fit(Xn, yn)):
        with pytest.raises(tl.CapabilityError, match="does not answer explorer"):
            to_html(obj)
        assert not obj.supports("explorer")
    # a mixed classifier without numeric columns is a discrete one: explored as such
    assert "treelearn-data" in to_html(tl.MixedNaiveBayes().fit(X, y))
