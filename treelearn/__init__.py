"""treelearn: tree-shaped Bayesian networks (Chow-Liu, naive Bayes, TAN) from tabular data.

>>> import pandas as pd, treelearn as tl
>>> model = tl.chow_liu(pd.read_csv("datasets/asia.csv"))
>>> sorted(model.variables)[:3]
['asia', 'bronc', 'dysp']
"""

from .bayes_tan import BayesianTAN
from .bayes_trees import TreePosterior, k_best_trees, tree_posterior
from .classify import TAN, ChowLiuMultinet, NaiveBayes
from .counts import ClassCounts, CountedTable, PairCounts, pair_counts
from .data import Table, discretize, encode
from .discretizer import Discretizer
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
    ResourceLimitError,
    StructureError,
    TooManyStatesError,
    TreelearnError,
    UnseenStateError,
)
from .explorer import to_html
from .gaussian import GaussianQuery, GaussianTreeModel, gaussian_chow_liu
from .gaussian_classifier import GaussianClassifier
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
from .sparse_chow_liu import SparseBinaryCounts, sparse_binary_statistics, sparse_spanning_skeleton
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
    "GaussianTreeModel",
    "InputTypeError",
    "InvalidModelError",
    "LearningSettings",
    "MissingValuesError",
    "ModelFileError",
    "ModelFormatError",
    "NaiveBayes",
    "NumericColumnError",
    "PairCounts",
    "ResourceLimitError",
    "ScoreReport",
    "SparseBinaryCounts",
    "StructureError",
    "Table",
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
