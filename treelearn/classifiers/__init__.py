"""Classifiers: scikit-learn estimators of a class from features (naive Bayes, TAN and the
semi-naive family, the Chow-Liu multinet, the Gaussian, mixed, copula, kernel and text
classifiers).

>>> import treelearn.classifiers as tc
>>> tc.TAN is __import__("treelearn").TAN
True
"""

from typing import TYPE_CHECKING

from .._base.lazy import lazy_names

if TYPE_CHECKING:  # the names for type checkers and IDEs; at run time each loads on first use
    from ._ande import AnDE
    from ._awnb import AWNB
    from ._bayes_tan import BayesianTAN
    from ._choose import AutoClassifier
    from ._copula_tan import CopulaTAN
    from ._etan import ETAN
    from ._gaussian import GaussianClassifier
    from ._gaussian_tan import GaussianTAN
    from ._kernel_tan import KernelTAN
    from ._manb import MANB
    from ._mixed import MixedNaiveBayes
    from ._mixed_tan import MixedTAN
    from ._multinet import ChowLiuMultinet
    from ._naive_bayes import NaiveBayes
    from ._seminaive import AODE, KDB
    from ._skdb import SKDB
    from ._tan import TAN
    from ._text import TextNaiveBayes
    from ._weighted import WeightedNaiveBayes
    from ._wrappers import BSEJ, FSSJ, TANHillClimb, TANSuperParent

#: each public name of this role and the module (below ``treelearn``) that defines it: the one
#: list of them (``treelearn``'s flat names are assembled from these tables)
NAMES = {
    "AnDE": "classifiers._ande",
    "AWNB": "classifiers._awnb",
    "BayesianTAN": "classifiers._bayes_tan",
    "AutoClassifier": "classifiers._choose",
    "CopulaTAN": "classifiers._copula_tan",
    "ETAN": "classifiers._etan",
    "GaussianClassifier": "classifiers._gaussian",
    "GaussianTAN": "classifiers._gaussian_tan",
    "KernelTAN": "classifiers._kernel_tan",
    "MANB": "classifiers._manb",
    "MixedNaiveBayes": "classifiers._mixed",
    "MixedTAN": "classifiers._mixed_tan",
    "ChowLiuMultinet": "classifiers._multinet",
    "NaiveBayes": "classifiers._naive_bayes",
    "AODE": "classifiers._seminaive",
    "KDB": "classifiers._seminaive",
    "SKDB": "classifiers._skdb",
    "TAN": "classifiers._tan",
    "TextNaiveBayes": "classifiers._text",
    "WeightedNaiveBayes": "classifiers._weighted",
    "BSEJ": "classifiers._wrappers",
    "FSSJ": "classifiers._wrappers",
    "TANHillClimb": "classifiers._wrappers",
    "TANSuperParent": "classifiers._wrappers",
}

__getattr__, __dir__ = lazy_names(__name__, NAMES)
__all__ = sorted(NAMES)
