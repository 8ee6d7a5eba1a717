"""treelearn: tree-shaped Bayesian networks (Chow-Liu, naive Bayes, TAN) from tabular data.

>>> import pandas as pd, treelearn as tl
>>> model = tl.chow_liu(pd.read_csv("datasets/asia.csv"))
>>> sorted(model.variables)[:3]
['asia', 'bronc', 'dysp']

This module is the public API: one table (``_LAZY``) maps every public name to the
private module that defines it, and ``__all__`` is derived from it (and from the
exception family, imported eagerly). Everything else is internal; ARCHITECTURE.md says
which module owns what.
"""

from typing import TYPE_CHECKING, Any

from ._base import errors as _errors
from ._base.errors import (
    CapabilityError,
    ClassColumnError,
    ClassLabelError,
    ColumnNotFoundError,
    CorruptModelFileError,
    DataFileError,
    DuplicateColumnError,
    EmptyDataError,
    FeatureMismatchError,
    InputTypeError,
    InvalidModelError,
    MissingValuesError,
    ModelFileError,
    ModelFormatError,
    NumericColumnError,
    NumericColumnWarning,
    ResourceLimitError,
    StructureError,
    TableProblemsError,
    TooManyStatesError,
    TreelearnError,
    UnseenStateError,
)

if TYPE_CHECKING:  # the table's names, for type checkers and IDEs (tests/test_facade.py
    # checks that this block lists exactly the table); at run time see __getattr__
    from ._io import from_pgmpy, from_pyagrum, load, read_bif, read_uai, read_xmlbif, save
    from .classifiers._ande import AnDE
    from .classifiers._awnb import AWNB
    from .classifiers._bayes_tan import BayesianTAN
    from .classifiers._copula_tan import CopulaTAN
    from .classifiers._etan import ETAN
    from .classifiers._gaussian import GaussianClassifier
    from .classifiers._gaussian_tan import GaussianTAN
    from .classifiers._kernel_tan import KernelTAN
    from .classifiers._manb import MANB
    from .classifiers._mixed import MixedNaiveBayes
    from .classifiers._mixed_tan import MixedTAN
    from .classifiers._multinet import ChowLiuMultinet
    from .classifiers._naive_bayes import NaiveBayes
    from .classifiers._ranking import rank_features
    from .classifiers._seminaive import AODE, KDB
    from .classifiers._skdb import SKDB
    from .classifiers._tan import TAN
    from .classifiers._text import TextNaiveBayes, term_class_information
    from .classifiers._weighted import WeightedNaiveBayes
    from .classifiers._wrappers import BSEJ, FSSJ, TANHillClimb, TANSuperParent
    from .encoding._discretizer import Discretizer
    from .encoding._table import discretize
    from .export._pgmpy import to_pgmpy, write_bif
    from .export._pyagrum import to_pyagrum
    from .export._uai import write_uai
    from .export._xmlbif import write_xmlbif
    from .inference._information import kl_divergence
    from .inference._shapley import Explanation
    from .learners._bagging import BaggedTrees
    from .learners._bayes_trees import TreePosterior, k_best_trees, tree_posterior
    from .learners._chow_liu import chow_liu, fit_cpts, mi_graph
    from .learners._clg_tree import clg_tree
    from .learners._copula import copula_chow_liu
    from .learners._cutset import CutsetNetwork
    from .learners._estimators import (
        BayesianTrees,
        ChowLiuTree,
        CLGTree,
        CopulaTree,
        GaussianTree,
        KernelForest,
    )
    from .learners._gaussian_chow_liu import gaussian_chow_liu
    from .learners._hidden_tree import HiddenMarkovModel, HiddenTree
    from .learners._kernel_forest import kernel_forest
    from .learners._mixture import TreeMixture
    from .models._base import Model
    from .models._clg import CLGTreeModel, GaussianMixtureQuery
    from .models._copula import CopulaQuery, CopulaTreeModel
    from .models._cutset import CutsetModel
    from .models._gaussian import GaussianQuery, GaussianTreeModel
    from .models._hidden_tree import HiddenTreeModel
    from .models._kernel_forest import KernelForestModel
    from .models._mixture import MixtureModel
    from .models._tree import ScoreReport, TreeModel
    from .sources._reading import date_columns, identifier_columns, read_data
    from .structure._trees import (
        complete_graph,
        maximum_spanning_tree,
        orient,
        penalised_forest,
        star,
        tan_structure,
    )
    from .viz._explain_plots import plot_explanation
    from .viz._explorer import to_html

# The facade imports a module on first use of one of its names: ``import treelearn`` and the
# command line's tree commands then never load scikit-learn, SciPy, matplotlib or pgmpy
# (about a second of start-up). ``tl.NaiveBayes`` and ``from treelearn import NaiveBayes``
# work as usual; tests/test_facade.py checks that every name resolves.
_LAZY = {
    "from_pgmpy": "_io",
    "from_pyagrum": "_io",
    "load": "_io",
    "read_bif": "_io",
    "read_uai": "_io",
    "read_xmlbif": "_io",
    "save": "_io",
    "AnDE": "classifiers._ande",
    "BayesianTAN": "classifiers._bayes_tan",
    "CopulaTAN": "classifiers._copula_tan",
    "GaussianClassifier": "classifiers._gaussian",
    "GaussianTAN": "classifiers._gaussian_tan",
    "KernelTAN": "classifiers._kernel_tan",
    "MixedNaiveBayes": "classifiers._mixed",
    "MixedTAN": "classifiers._mixed_tan",
    "ChowLiuMultinet": "classifiers._multinet",
    "NaiveBayes": "classifiers._naive_bayes",
    "rank_features": "classifiers._ranking",
    "AODE": "classifiers._seminaive",
    "KDB": "classifiers._seminaive",
    "SKDB": "classifiers._skdb",
    "TAN": "classifiers._tan",
    "ETAN": "classifiers._etan",
    "TextNaiveBayes": "classifiers._text",
    "term_class_information": "classifiers._text",
    "WeightedNaiveBayes": "classifiers._weighted",
    "AWNB": "classifiers._awnb",
    "MANB": "classifiers._manb",
    "BSEJ": "classifiers._wrappers",
    "FSSJ": "classifiers._wrappers",
    "TANHillClimb": "classifiers._wrappers",
    "TANSuperParent": "classifiers._wrappers",
    "Discretizer": "encoding._discretizer",
    "discretize": "encoding._table",
    "to_pgmpy": "export._pgmpy",
    "write_bif": "export._pgmpy",
    "to_pyagrum": "export._pyagrum",
    "write_uai": "export._uai",
    "write_xmlbif": "export._xmlbif",
    "kl_divergence": "inference._information",
    "Explanation": "inference._shapley",
    "BaggedTrees": "learners._bagging",
    "TreePosterior": "learners._bayes_trees",
    "k_best_trees": "learners._bayes_trees",
    "tree_posterior": "learners._bayes_trees",
    "chow_liu": "learners._chow_liu",
    "fit_cpts": "learners._chow_liu",
    "mi_graph": "learners._chow_liu",
    "clg_tree": "learners._clg_tree",
    "copula_chow_liu": "learners._copula",
    "CutsetNetwork": "learners._cutset",
    "BayesianTrees": "learners._estimators",
    "ChowLiuTree": "learners._estimators",
    "CLGTree": "learners._estimators",
    "CopulaTree": "learners._estimators",
    "GaussianTree": "learners._estimators",
    "KernelForest": "learners._estimators",
    "gaussian_chow_liu": "learners._gaussian_chow_liu",
    "HiddenMarkovModel": "learners._hidden_tree",
    "HiddenTree": "learners._hidden_tree",
    "kernel_forest": "learners._kernel_forest",
    "TreeMixture": "learners._mixture",
    "Model": "models._base",
    "CutsetModel": "models._cutset",
    "CLGTreeModel": "models._clg",
    "CopulaQuery": "models._copula",
    "CopulaTreeModel": "models._copula",
    "GaussianMixtureQuery": "models._clg",
    "GaussianQuery": "models._gaussian",
    "GaussianTreeModel": "models._gaussian",
    "HiddenTreeModel": "models._hidden_tree",
    "KernelForestModel": "models._kernel_forest",
    "MixtureModel": "models._mixture",
    "ScoreReport": "models._tree",
    "TreeModel": "models._tree",
    "date_columns": "sources._reading",
    "identifier_columns": "sources._reading",
    "read_data": "sources._reading",
    "complete_graph": "structure._trees",
    "maximum_spanning_tree": "structure._trees",
    "orient": "structure._trees",
    "penalised_forest": "structure._trees",
    "star": "structure._trees",
    "tan_structure": "structure._trees",
    "plot_explanation": "viz._explain_plots",
    "to_html": "viz._explorer",
}

#: modules that are part of the public API: ``treelearn.limits.MEMORY_LIMIT = 32 * 2**30``
_MODULES = {"limits": "_base.limits"}


def __getattr__(name: str) -> Any:
    from importlib import import_module

    if name in _MODULES:
        value = import_module(f".{_MODULES[name]}", __name__)
        globals()[name] = value
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'treelearn' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_MODULES})


__version__ = "0.1.0"

__all__ = sorted([*_errors.__all__, *_LAZY])
