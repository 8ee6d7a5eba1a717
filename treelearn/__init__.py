"""treelearn: tree-shaped Bayesian networks (Chow-Liu, naive Bayes, TAN) from tabular data.

>>> import pandas as pd, treelearn as tl
>>> model = tl.chow_liu(pd.read_csv("datasets/asia.csv"))
>>> sorted(model.variables)[:3]
['asia', 'bronc', 'dysp']
"""

from .classify import TAN, ChowLiuMultinet, NaiveBayes
from .counts import PairCounts, pair_counts
from .data import Table, discretize, encode
from .errors import (
    ClassColumnError,
    ClassLabelError,
    ColumnNotFoundError,
    DuplicateColumnError,
    EmptyDataError,
    FeatureMismatchError,
    MissingValuesError,
    NumericColumnError,
    StructureError,
    TooManyStatesError,
    TreelearnError,
    UnseenStateError,
)
from .information import (
    conditional_mutual_information_matrix,
    entropies,
    mutual_information_matrix,
)
from .interop import from_pgmpy, read_bif, to_pgmpy, write_bif
from .io import (
    CorruptModelFileError,
    InvalidModelError,
    ModelFileError,
    ModelFormatError,
    load,
    save,
)
from .learn import chow_liu, fit_cpts, mi_graph, read_data
from .model import TreeModel
from .ranking import rank_features
from .structure import maximum_spanning_tree, orient, penalised_forest, star, tan_structure

__version__ = "0.1.0"

__all__ = [
    "chow_liu", "mi_graph", "fit_cpts", "orient", "star", "tan_structure",
    "maximum_spanning_tree", "penalised_forest", "TreeModel", "from_pgmpy", "to_pgmpy",
    "read_bif", "write_bif", "read_data", "encode", "discretize", "Table", "pair_counts",
    "PairCounts", "entropies", "mutual_information_matrix",
    "conditional_mutual_information_matrix", "TreelearnError", "EmptyDataError",
    "DuplicateColumnError", "ColumnNotFoundError", "MissingValuesError", "NumericColumnError",
    "TooManyStatesError", "UnseenStateError", "StructureError",
    "NaiveBayes", "TAN", "ChowLiuMultinet", "rank_features", "ClassLabelError",
    "ClassColumnError", "FeatureMismatchError",
    "save", "load", "ModelFileError", "CorruptModelFileError", "ModelFormatError",
    "InvalidModelError",
]
