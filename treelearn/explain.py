"""Why a model says what it says: Shapley explanations of predictions (``Explanation``),
feature rankings, the KL divergence between two networks.

>>> import treelearn.explain as tx
>>> sorted(tx.__all__)[:2]
['Explanation', 'kl_divergence']
"""

from typing import TYPE_CHECKING

from ._base.lazy import lazy_names

if TYPE_CHECKING:  # the names for type checkers and IDEs; at run time each loads on first use
    from .classifiers._ranking import rank_features
    from .classifiers._text import term_class_information
    from .inference._information import kl_divergence
    from .inference._shapley import Explanation

#: each public name of this role and the module (below ``treelearn``) that defines it: the one
#: list of them (``treelearn``'s flat names are assembled from these tables)
NAMES = {
    "rank_features": "classifiers._ranking",
    "term_class_information": "classifiers._text",
    "kl_divergence": "inference._information",
    "Explanation": "inference._shapley",
}

__getattr__, __dir__ = lazy_names(__name__, NAMES)
__all__ = sorted(NAMES)
