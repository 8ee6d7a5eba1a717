"""Density models and their learners: the model kinds (every one a :class:`Model`), the
estimators that learn them (``fit(X)`` -> ``model_``) and the thin functions beside them
(``chow_liu(data)`` is ``ChowLiuTree().fit(data).model_``).

>>> import treelearn.density as td
>>> sorted(n for n in td.__all__ if n.endswith("Model"))[:3]
['CLGTreeModel', 'CopulaTreeModel', 'CutsetModel']
"""

from typing import TYPE_CHECKING

from ._base.lazy import lazy_names

if TYPE_CHECKING:  # the names for type checkers and IDEs; at run time each loads on first use
    from .learners._bagging import BaggedTrees
    from .learners._bayes_trees import TreePosterior, k_best_trees, tree_posterior
    from .learners._choose import AutoDensity
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

#: each public name of this role and the module (below ``treelearn``) that defines it: the one
#: list of them (``treelearn``'s flat names are assembled from these tables)
NAMES = {
    "BaggedTrees": "learners._bagging",
    "AutoDensity": "learners._choose",
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
    "CLGTree": "learners._estimators",
    "ChowLiuTree": "learners._estimators",
    "CopulaTree": "learners._estimators",
    "GaussianTree": "learners._estimators",
    "KernelForest": "learners._estimators",
    "gaussian_chow_liu": "learners._gaussian_chow_liu",
    "HiddenMarkovModel": "learners._hidden_tree",
    "HiddenTree": "learners._hidden_tree",
    "kernel_forest": "learners._kernel_forest",
    "TreeMixture": "learners._mixture",
    "Model": "models._base",
    "CLGTreeModel": "models._clg",
    "GaussianMixtureQuery": "models._clg",
    "CopulaQuery": "models._copula",
    "CopulaTreeModel": "models._copula",
    "CutsetModel": "models._cutset",
    "GaussianQuery": "models._gaussian",
    "GaussianTreeModel": "models._gaussian",
    "HiddenTreeModel": "models._hidden_tree",
    "KernelForestModel": "models._kernel_forest",
    "MixtureModel": "models._mixture",
    "ScoreReport": "models._tree",
    "TreeModel": "models._tree",
}

__getattr__, __dir__ = lazy_names(__name__, NAMES)
__all__ = sorted(NAMES)
