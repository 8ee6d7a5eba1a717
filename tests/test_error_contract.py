"""The TreelearnError contract of every public name (issue 40): what each must refuse with a
:class:`~treelearn.TreelearnError` (never a raw TypeError, ValueError, KeyError,
AttributeError or MemoryError), checked by calling each.

``CONTRACT`` lists every name of ``treelearn.__all__``: an estimator is fitted on a wrong
type of data and built with a wrong type and a wrong value of its first option; a function
is called with a wrong type of its first argument; a model kind reads a dict that is no
saved model. Names that take no user input of their own (the exceptions; what a method
returns) say why. ``test_every_public_name_is_in_the_table`` fails when a name is added to
``treelearn.__all__`` without its row here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import networkx as nx
import pandas as pd
import pytest

import treelearn as tl

#: wrong types of data: a number, a set, a graph
WRONG_DATA = {"an int": 5, "a set": {1, 2}, "a graph": nx.Graph()}
#: an option value of no type any option takes
WRONG_OPTION = object()

ESTIMATOR = "estimator"  # fit(WRONG_DATA) and a wrong first option
MODEL = "model"  # Model subclass: from_dict of what is no saved model
FUNCTION = "function"  # called as CALLS says, the wrong value in one argument
EXEMPT = "exempt"  # takes no user input of its own: the reason given

_FRAME = pd.DataFrame({"a": [0, 1] * 10, "b": [1, 1, 0, 0] * 5})
_MODEL = tl.chow_liu(_FRAME)

#: each public function called with the wrong value ``v`` in one argument, the others valid
CALLS: dict[str, Callable[[object], object]] = {
    "chow_liu": lambda v: tl.chow_liu(v),
    "clg_tree": lambda v: tl.clg_tree(v),
    "copula_chow_liu": lambda v: tl.copula_chow_liu(v),
    "date_columns": lambda v: tl.date_columns(v),
    "discretize": lambda v: tl.discretize(v),
    "fit_cpts": lambda v: tl.fit_cpts(_MODEL.graph, v),
    "gaussian_chow_liu": lambda v: tl.gaussian_chow_liu(v),
    "identifier_columns": lambda v: tl.identifier_columns(v),
    "k_best_trees": lambda v: tl.k_best_trees(v, 2),
    "kernel_forest": lambda v: tl.kernel_forest(v),
    "mi_graph": lambda v: tl.mi_graph(v),
    "rank_features": lambda v: tl.rank_features(v, _FRAME["b"]),
    "read_data": lambda v: tl.read_data(v),
    "tree_posterior": lambda v: tl.tree_posterior(v),
    "term_class_information": lambda v: tl.term_class_information(v, _FRAME["b"]),
    "complete_graph": lambda v: tl.complete_graph(["a", "b"], v),
    "star": lambda v: tl.star("a", v),
    "tan_structure": lambda v: tl.tan_structure(v, "c"),
    "load": lambda v: tl.load(v),
    "read_bif": lambda v: tl.read_bif(v),
    "read_uai": lambda v: tl.read_uai(v),
    "read_xmlbif": lambda v: tl.read_xmlbif(v),
    "from_pgmpy": lambda v: tl.from_pgmpy(v),
    "from_pyagrum": lambda v: tl.from_pyagrum(v),
    "save": lambda v: tl.save(v, "never-written.json"),
    "to_html": lambda v: tl.to_html(v),
    "to_pgmpy": lambda v: tl.to_pgmpy(v),
    "to_pyagrum": lambda v: tl.to_pyagrum(v),
    "write_bif": lambda v: tl.write_bif(v, "never-written.bif"),
    "write_uai": lambda v: tl.write_uai(v, "never-written.uai"),
    "write_xmlbif": lambda v: tl.write_xmlbif(v, "never-written.xml"),
    "kl_divergence": lambda v: tl.kl_divergence(_MODEL, v),
    "plot_explanation": lambda v: tl.plot_explanation(v),
    "maximum_spanning_tree": lambda v: tl.maximum_spanning_tree(v),
    "orient": lambda v: tl.orient(v),
    "penalised_forest": lambda v: tl.penalised_forest(v),
}

_classifiers = set(tl.classifiers.NAMES)
CONTRACT: dict[str, tuple[str, str]] = {
    **dict.fromkeys(tl._errors.__all__, (EXEMPT, "an exception class")),
    **{
        name: (ESTIMATOR, "classifier")
        for name in _classifiers
        if inspect.isclass(getattr(tl, name)) and hasattr(getattr(tl, name), "fit")
    },
    **dict.fromkeys(
        [
            "AutoDensity",
            "BaggedTrees",
            "BayesianTrees",
            "CLGTree",
            "ChowLiuTree",
            "CopulaTree",
            "CutsetNetwork",
            "Discretizer",
            "GaussianTree",
            "HiddenMarkovModel",
            "HiddenTree",
            "KernelForest",
            "TreeMixture",
        ],
        (ESTIMATOR, "density"),
    ),
    **dict.fromkeys(
        [
            "CLGTreeModel",
            "CopulaTreeModel",
            "CutsetModel",
            "GaussianTreeModel",
            "HiddenTreeModel",
            "KernelForestModel",
            "MixtureModel",
            "TreeModel",
        ],
        (MODEL, "from_dict"),
    ),
    "Model": (EXEMPT, "the abstract protocol: each kind's from_dict is checked"),
    "TreePosterior": (EXEMPT, "returned by tree_posterior, whose input is checked"),
    "CopulaQuery": (EXEMPT, "returned by a copula model's query"),
    "GaussianQuery": (EXEMPT, "returned by a Gaussian model's query"),
    "GaussianMixtureQuery": (EXEMPT, "returned by a mixture's query"),
    "ScoreReport": (EXEMPT, "returned by score reports"),
    "Explanation": (EXEMPT, "returned by explain()"),
    **dict.fromkeys(CALLS, (FUNCTION, "the wrong value in the argument CALLS shows")),
}

#: probes that are valid input for that argument: skipped, saying why
VALID = {
    ("star", "a set"): "a set of leaves is an iterable of leaf names",
    ("star", "a graph"): "a graph iterates over its nodes: an iterable of leaf names",
    **{
        (name, "a graph"): "an empty nx.Graph is a valid (empty) forest"
        for name in ["maximum_spanning_tree", "orient", "penalised_forest", "tan_structure"]
    },
}


def test_every_public_name_is_in_the_table():
    missing = sorted(set(tl.__all__) - set(CONTRACT))
    extra = sorted(set(CONTRACT) - set(tl.__all__))
    assert not missing, f"public names without a TreelearnError contract row: {missing}"
    assert not extra, f"contract rows for names that are not public: {extra}"


def _refuses(call: Callable[[], object]) -> None:
    """``call()`` raises a TreelearnError; any other exception fails the test as itself."""
    with pytest.raises(tl.TreelearnError):
        call()


def _cases():
    for name, (role, _) in sorted(CONTRACT.items()):
        if role == EXEMPT:
            continue
        for label, value in WRONG_DATA.items():
            yield pytest.param(name, role, label, value, id=f"{name}-{label}")


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(("name", "role", "label", "value"), list(_cases()))
def test_wrong_input_is_a_treelearn_error(name, role, label, value):
    obj = getattr(tl, name)
    if (name, label) in VALID:
        pytest.skip(VALID[name, label])
    if role == ESTIMATOR:
        fit = obj().fit
        supervised = CONTRACT[name][1] == "classifier"
        _refuses(lambda: fit(value, [0, 1]) if supervised else fit(value))
    elif role == MODEL:
        _refuses(lambda: obj.from_dict({"wrong": value}))
    else:
        _refuses(lambda: CALLS[name](value))


def _estimators():
    return [n for n, (role, _) in sorted(CONTRACT.items()) if role == ESTIMATOR]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", _estimators())
def test_a_wrong_option_is_a_treelearn_error(name):
    cls = getattr(tl, name)
    options = [p for p in inspect.signature(cls).parameters.values() if p.name != "self"]
    assert options, f"{name} takes no option"
    df = pd.DataFrame({"a": [0, 1] * 10, "b": [1, 1, 0, 0] * 5})
    supervised = CONTRACT[name][1] == "classifier"
    for option in options:
        est = cls(**{option.name: WRONG_OPTION})
        with pytest.raises(tl.TreelearnError) as info:
            est.fit(df[["a"]], df["b"]) if supervised else est.fit(df)
        message = str(info.value)  # names the option, or the value (a root: no column)
        assert option.name in message or repr(WRONG_OPTION) in message, message
