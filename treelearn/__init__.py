"""treelearn: tree-shaped Bayesian networks (Chow-Liu, naive Bayes, TAN) from tabular data.

>>> import pandas as pd, treelearn as tl
>>> model = tl.chow_liu(pd.read_csv("datasets/asia.csv"))
>>> sorted(model.variables)[:3]
['asia', 'bronc', 'dysp']
"""

from typing import TYPE_CHECKING, Any

from ._base.errors import (
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

if TYPE_CHECKING:  # the names below, for type checkers and IDEs; at run time see __getattr__
    from ._io import from_pgmpy, load, read_bif, save
    from .classifiers._bayes_tan import BayesianTAN
    from .classifiers._gaussian import GaussianClassifier
    from .classifiers._gaussian_tan import GaussianTAN
    from .classifiers._mixed import MixedNaiveBayes
    from .classifiers._multinet import ChowLiuMultinet
    from .classifiers._naive_bayes import NaiveBayes
    from .classifiers._ranking import rank_features
    from .classifiers._seminaive import AODE, KDB
    from .classifiers._tan import TAN
    from .classifiers._text import TextNaiveBayes, term_class_information
    from .encoding._discretizer import Discretizer
    from .encoding._table import Table, discretize, encode
    from .export._pgmpy import to_pgmpy, write_bif
    from .inference._engine import TreeEngine
    from .learners._bayes_trees import TreePosterior, k_best_trees, tree_posterior
    from .learners._chow_liu import chow_liu, fit_cpts, mi_graph
    from .learners._gaussian_chow_liu import gaussian_chow_liu
    from .learners._mixture import TreeMixture
    from .models._gaussian import GaussianQuery, GaussianTreeModel
    from .models._tree import ScoreReport, TreeModel
    from .sources._count import count, count_by_class
    from .sources._reading import date_columns, identifier_columns, read_data
    from .stats._counts import ClassCounts, CountedTable, PairCounts, pair_counts
    from .stats._information import (
        conditional_mutual_information_matrix,
        entropies,
        mutual_information_matrix,
    )
    from .stats._settings import LearningSettings
    from .structure._sparse_chow_liu import (
        SparseBinaryCounts,
        sparse_binary_statistics,
        sparse_spanning_skeleton,
    )
    from .structure._trees import (
        complete_graph,
        maximum_spanning_tree,
        orient,
        penalised_forest,
        spanning_skeleton,
        star,
        tan_structure,
    )
    from .viz._explorer import to_html

# The facade imports a module on first use of one of its names: ``import treelearn`` and the
# command line's Chow-Liu path then never load scikit-learn, SciPy, matplotlib or pgmpy
# (about a second of start-up). ``tl.NaiveBayes`` and ``from treelearn import NaiveBayes``
# work as before; tests/test_facade.py checks that every name resolves.
_LAZY = {
    "BayesianTAN": "classifiers._bayes_tan",
    "k_best_trees": "learners._bayes_trees",
    "tree_posterior": "learners._bayes_trees",
    "TreePosterior": "learners._bayes_trees",
    "ChowLiuMultinet": "classifiers._multinet",
    "MixedNaiveBayes": "classifiers._mixed",
    "NaiveBayes": "classifiers._naive_bayes",
    "TAN": "classifiers._tan",
    "ClassCounts": "stats._counts",
    "CountedTable": "stats._counts",
    "pair_counts": "stats._counts",
    "PairCounts": "stats._counts",
    "discretize": "encoding._table",
    "encode": "encoding._table",
    "Table": "encoding._table",
    "Discretizer": "encoding._discretizer",
    "to_html": "viz._explorer",
    "gaussian_chow_liu": "learners._gaussian_chow_liu",
    "GaussianQuery": "models._gaussian",
    "GaussianTreeModel": "models._gaussian",
    "GaussianClassifier": "classifiers._gaussian",
    "GaussianTAN": "classifiers._gaussian_tan",
    "conditional_mutual_information_matrix": "stats._information",
    "entropies": "stats._information",
    "mutual_information_matrix": "stats._information",
    "to_pgmpy": "export._pgmpy",
    "write_bif": "export._pgmpy",
    "from_pgmpy": "_io",
    "load": "_io",
    "read_bif": "_io",
    "save": "_io",
    "chow_liu": "learners._chow_liu",
    "fit_cpts": "learners._chow_liu",
    "mi_graph": "learners._chow_liu",
    "TreeMixture": "learners._mixture",
    "ScoreReport": "models._tree",
    "TreeModel": "models._tree",
    "rank_features": "classifiers._ranking",
    "AODE": "classifiers._seminaive",
    "KDB": "classifiers._seminaive",
    "LearningSettings": "stats._settings",
    "count": "sources._count",
    "count_by_class": "sources._count",
    "read_data": "sources._reading",
    "date_columns": "sources._reading",
    "identifier_columns": "sources._reading",
    "sparse_binary_statistics": "structure._sparse_chow_liu",
    "sparse_spanning_skeleton": "structure._sparse_chow_liu",
    "SparseBinaryCounts": "structure._sparse_chow_liu",
    "complete_graph": "structure._trees",
    "maximum_spanning_tree": "structure._trees",
    "orient": "structure._trees",
    "penalised_forest": "structure._trees",
    "spanning_skeleton": "structure._trees",
    "star": "structure._trees",
    "tan_structure": "structure._trees",
    "term_class_information": "classifiers._text",
    "TextNaiveBayes": "classifiers._text",
    "TreeEngine": "inference._engine",
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

__all__ = [
    "AODE",
    "KDB",
    "TAN",
    "BayesianTAN",
    "ChowLiuMultinet",
    "ClassColumnError",
    "ClassCounts",
    "ClassLabelError",
    "ColumnNotFoundError",
    "CorruptModelFileError",
    "CountedTable",
    "DataFileError",
    "Discretizer",
    "DuplicateColumnError",
    "EmptyDataError",
    "FeatureMismatchError",
    "GaussianClassifier",
    "GaussianQuery",
    "GaussianTAN",
    "GaussianTreeModel",
    "InputTypeError",
    "InvalidModelError",
    "LearningSettings",
    "MissingValuesError",
    "MixedNaiveBayes",
    "ModelFileError",
    "ModelFormatError",
    "NaiveBayes",
    "NumericColumnError",
    "NumericColumnWarning",
    "PairCounts",
    "ResourceLimitError",
    "ScoreReport",
    "SparseBinaryCounts",
    "StructureError",
    "Table",
    "TableProblemsError",
    "TextNaiveBayes",
    "TooManyStatesError",
    "TreeEngine",
    "TreeMixture",
    "TreeModel",
    "TreePosterior",
    "TreelearnError",
    "UnseenStateError",
    "chow_liu",
    "complete_graph",
    "conditional_mutual_information_matrix",
    "count",
    "count_by_class",
    "date_columns",
    "discretize",
    "encode",
    "entropies",
    "fit_cpts",
    "from_pgmpy",
    "gaussian_chow_liu",
    "identifier_columns",
    "k_best_trees",
    "load",
    "maximum_spanning_tree",
    "mi_graph",
    "mutual_information_matrix",
    "orient",
    "pair_counts",
    "penalised_forest",
    "rank_features",
    "read_bif",
    "read_data",
    "save",
    "spanning_skeleton",
    "sparse_binary_statistics",
    "sparse_spanning_skeleton",
    "star",
    "tan_structure",
    "term_class_information",
    "to_html",
    "to_pgmpy",
    "tree_posterior",
    "write_bif",
]
