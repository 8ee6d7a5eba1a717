"""treelearn: tree-shaped Bayesian networks (Chow-Liu, naive Bayes, TAN) from tabular data.

>>> import pandas as pd, treelearn as tl
>>> model = tl.chow_liu(pd.read_csv("datasets/asia.csv"))
>>> sorted(model.variables)[:3]
['asia', 'bronc', 'dysp']
"""

from typing import TYPE_CHECKING, Any

from .errors import (
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
    from .bayes_tan import BayesianTAN
    from .bayes_trees import TreePosterior, k_best_trees, tree_posterior
    from .classify import TAN, ChowLiuMultinet, NaiveBayes
    from .counts import ClassCounts, CountedTable, PairCounts, pair_counts
    from .data import Table, discretize, encode
    from .discretizer import Discretizer
    from .explorer import to_html
    from .gaussian import GaussianQuery, GaussianTreeModel, gaussian_chow_liu
    from .gaussian_classifier import GaussianClassifier
    from .gaussian_tan import GaussianTAN
    from .information import (
        conditional_mutual_information_matrix,
        entropies,
        mutual_information_matrix,
    )
    from .interop import to_pgmpy, write_bif
    from .io import from_pgmpy, load, read_bif, save
    from .learn import chow_liu, fit_cpts, mi_graph
    from .mixture import TreeMixture
    from .model import ScoreReport, TreeModel
    from .ranking import rank_features
    from .seminaive import AODE, KDB
    from .settings import LearningSettings
    from .sources import count, count_by_class, read_data
    from .sparse_chow_liu import (
        SparseBinaryCounts,
        sparse_binary_statistics,
        sparse_spanning_skeleton,
    )
    from .structure import (
        complete_graph,
        maximum_spanning_tree,
        orient,
        penalised_forest,
        spanning_skeleton,
        star,
        tan_structure,
        tree_from_matrix,
    )
    from .text_nb import TextNaiveBayes, term_class_information
    from .tree_inference import TreeEngine

# The facade imports a module on first use of one of its names: ``import treelearn`` and the
# command line's Chow-Liu path then never load scikit-learn, SciPy, matplotlib or pgmpy
# (about a second of start-up). ``tl.NaiveBayes`` and ``from treelearn import NaiveBayes``
# work as before; tests/test_facade.py checks that every name resolves.
_LAZY = {
    "BayesianTAN": "bayes_tan",
    "k_best_trees": "bayes_trees",
    "tree_posterior": "bayes_trees",
    "TreePosterior": "bayes_trees",
    "ChowLiuMultinet": "classify",
    "NaiveBayes": "classify",
    "TAN": "classify",
    "ClassCounts": "counts",
    "CountedTable": "counts",
    "pair_counts": "counts",
    "PairCounts": "counts",
    "discretize": "data",
    "encode": "data",
    "Table": "data",
    "Discretizer": "discretizer",
    "to_html": "explorer",
    "gaussian_chow_liu": "gaussian",
    "GaussianQuery": "gaussian",
    "GaussianTreeModel": "gaussian",
    "GaussianClassifier": "gaussian_classifier",
    "GaussianTAN": "gaussian_tan",
    "conditional_mutual_information_matrix": "information",
    "entropies": "information",
    "mutual_information_matrix": "information",
    "to_pgmpy": "interop",
    "write_bif": "interop",
    "from_pgmpy": "io",
    "load": "io",
    "read_bif": "io",
    "save": "io",
    "chow_liu": "learn",
    "fit_cpts": "learn",
    "mi_graph": "learn",
    "TreeMixture": "mixture",
    "ScoreReport": "model",
    "TreeModel": "model",
    "rank_features": "ranking",
    "AODE": "seminaive",
    "KDB": "seminaive",
    "LearningSettings": "settings",
    "count": "sources",
    "count_by_class": "sources",
    "read_data": "sources",
    "sparse_binary_statistics": "sparse_chow_liu",
    "sparse_spanning_skeleton": "sparse_chow_liu",
    "SparseBinaryCounts": "sparse_chow_liu",
    "complete_graph": "structure",
    "maximum_spanning_tree": "structure",
    "orient": "structure",
    "penalised_forest": "structure",
    "spanning_skeleton": "structure",
    "star": "structure",
    "tan_structure": "structure",
    "tree_from_matrix": "structure",
    "term_class_information": "text_nb",
    "TextNaiveBayes": "text_nb",
    "TreeEngine": "tree_inference",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'treelearn' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


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
    "discretize",
    "encode",
    "entropies",
    "fit_cpts",
    "from_pgmpy",
    "gaussian_chow_liu",
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
    "tree_from_matrix",
    "tree_posterior",
    "write_bif",
]
