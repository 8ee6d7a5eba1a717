"""Tree-augmented naive Bayes (Friedman, Geiger and Goldszmidt, 1997) on categorical features.

The class is a parent of every feature, and the features form the maximum spanning
tree of the conditional mutual information ``I(X_i; X_j | C)`` (or a penalised
forest, or a constrained tree). Numeric features: :class:`~treelearn.classifiers._gaussian_tan.GaussianTAN`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import ClassVar

import networkx as nx

from .._base.errors import ColumnNotFoundError, StructureError, TreelearnError
from .._base.persistence import SavedState
from .._base.validation import InstanceOf, Options
from ..stats._counts import ClassCounts
from ..stats._fcll import fcll_edge_weights
from ..stats._information import conditional_mutual_information_matrix
from ..structure._trees import spanning_skeleton, tan_structure
from ._base import CLASS_PRIOR, CPT_PRIOR, UNSEEN, Unseen
from ._class_arcs import CLASS_ARCS
from ._network import SingleNetworkClassifier
from ._partial import PartialFitNetwork

__all__ = ["TAN", "check_root"]


def check_root(root: Hashable | None, features: list, class_name: Hashable) -> Hashable:
    """The feature at the root of a feature tree: ``root``, or the first feature."""
    if root is None:
        return features[0]
    if root == class_name:
        raise StructureError(
            f"the root must be a feature, not the class {class_name!r}: the class is already "
            f"the parent of every feature"
        )
    if root not in features:
        raise ColumnNotFoundError(
            f"root {root!r} is not a feature; the features are {features[:20]}"
        )
    return root


class TAN(PartialFitNetwork, SingleNetworkClassifier):
    """Tree-augmented naive Bayes (Friedman, Geiger and Goldszmidt, 1997).

    The feature tree is the maximum spanning tree of the complete graph weighted
    by the plug-in conditional mutual information ``I(X_i; X_j | C)`` (class-wise
    pairwise counts, one one-hot product per class), oriented away from ``root``;
    the class is a parent of every feature. Ties are broken by column order.

    Parameters
    ----------
    alpha : float, default=1.0
        As in :class:`~treelearn.NaiveBayes`.
    fit_prior : bool, default=True
        As in :class:`~treelearn.NaiveBayes`.
    class_prior : array-like of float, default=None
        As in :class:`~treelearn.NaiveBayes`.
    unseen : {"error", "ignore"}, default="error"
        As in :class:`~treelearn.NaiveBayes`.
    prior : {"lidstone", "bdeu", "m-estimate"}, default="lidstone"
        As in :class:`~treelearn.NaiveBayes`.
    equivalent_sample_size : float, default=1.0
        As in :class:`~treelearn.NaiveBayes`.
    m : float, default=1.0
        As in :class:`~treelearn.NaiveBayes`.
    numbers : {"mdl", "states"}, default="mdl"
        Numeric columns cut into supervised MDL bins in ``fit`` (the
        default, ``numbers="mdl"``; ``numbers="states"`` makes each value a state), as in
        :class:`~treelearn.NaiveBayes`.
    categorical : sequence of hashable, default=None
        The columns of numbers kept as states, as in :class:`~treelearn.NaiveBayes`.
    class_arcs : {"average", "all"}, default="average"
        ``"average"``: each class arc averaged in or out (Dash and Cooper, 2002, for the
        fixed structure), as in :class:`~treelearn.NaiveBayes`; ``"all"``: the plain CPTs.
    arc_prior : float, default=0.5
        The prior probability of each arc from the class, as in :class:`~treelearn.NaiveBayes`.
    root : hashable, default=None
        The feature at the root of the feature tree. ``None`` (default) uses
        the **first feature column**; never the class. The root changes the
        edges' direction, not the maximum-likelihood fit.
    forest : {"bic", "aic"} or None, default=None
        ``None`` (a spanning tree), ``"bic"`` or ``"aic"``: a penalised forest
        (bnclassify's ``tan_cl(score=...)``): an edge adds ``|C| (k_i - 1)(k_j - 1)``
        parameters, and is kept only when ``n I(X_i; X_j | C)`` exceeds their
        penalty (BIC: ``ln(n) / 2`` each, AIC: 1 each). Each tree of the forest is
        rooted at its first column (``root``'s tree at ``root``).
    whitelist : sequence of pairs, default=None
        Undirected feature pairs the tree must / must not
        contain (as bnlearn's): the best tree under these constraints.
    blacklist : sequence of pairs, default=None
        See ``whitelist``.
    criterion : {"loglik", "fcll"}, default="loglik"
        ``"loglik"`` (default: the tree of the largest likelihood, Friedman et al.'s)
        or ``"fcll"``: the tree of the largest decomposable factorized conditional
        log-likelihood (Carvalho, Oliveira, Roos and Myllymäki, JMLR 2011), a
        discriminative score, edge weight ``(alpha + beta) I(X_i; X_j | C) - beta lambda
        [I(X_i; X_j | C) - I(X_i; X_j)]``; a spanning tree
        (``forest`` must be None). The CPTs are fitted as for ``"loglik"``.

    Attributes
    ----------
    feature_tree_ : networkx.Graph
        The undirected maximum spanning tree (or forest) over the features (edge
        ``weight`` = ``I(X_i; X_j | C)`` in nats, or the fCLL weight per row with
        ``criterion="fcll"``).
    model_, classes_, class_name_, class_count_, class_log_prior_, n_features_in_, feature_names_in_
        As :class:`~treelearn.NaiveBayes`'s.

    See Also
    --------
    NaiveBayes : no feature tree.
    ChowLiuMultinet : one tree per class.
    ETAN : the class optional as a parent.
    tan_structure : the structure alone.

    References
    ----------
    .. [1] Friedman, N., Geiger, D. and Goldszmidt, M. (1997). Bayesian network
       classifiers. Machine Learning 29(2-3), 131-163.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> clf = tl.TAN().fit(df.drop(columns="either"), df["either"])
    >>> clf.model_.parents("asia")   # the root of the feature tree: the first feature
    ['either']
    >>> clf.model_.parents("tub")[0]   # every other feature: the class first, then its tree parent
    'either'
    """

    _method = "tan"
    cli_method: ClassVar[str] = "tan"
    #: its network's answers, and adding rows (``partial_fit``)
    capabilities: ClassVar[frozenset[str]] = SingleNetworkClassifier.capabilities | {"partial_fit"}
    _parameter_constraints: ClassVar[dict] = {
        **CPT_PRIOR,
        **CLASS_PRIOR,
        **UNSEEN,
        "forest": [None, Options("bic", "aic")],
        "whitelist": [None, InstanceOf(list, tuple, set, name="a sequence of feature pairs")],
        "blacklist": [None, InstanceOf(list, tuple, set, name="a sequence of feature pairs")],
        "criterion": [Options("loglik", "fcll")],
        **CLASS_ARCS,
    }

    def __init__(
        self,
        alpha: float = 1.0,
        root: Hashable | None = None,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        forest: str | None = None,
        whitelist: Sequence[tuple] | None = None,
        blacklist: Sequence[tuple] | None = None,
        prior: str = "lidstone",
        equivalent_sample_size: float = 1.0,
        m: float = 1.0,
        criterion: str = "loglik",
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
        class_arcs: str = "average",
        arc_prior: float = 0.5,
    ) -> None:
        self.alpha = alpha
        self.root = root
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.forest = forest
        self.whitelist = whitelist
        self.blacklist = blacklist
        self.prior = prior
        self.equivalent_sample_size = equivalent_sample_size
        self.m = m
        self.criterion = criterion
        self.numbers = numbers
        self.categorical = categorical
        self.class_arcs = class_arcs
        self.arc_prior = arc_prior

    def _structure(self, stats: ClassCounts, params: dict) -> nx.DiGraph:
        features, class_name = list(stats.columns[:-1]), stats.columns[-1]
        root = check_root(self.root, features, class_name)
        d = len(features)
        if params["criterion"] == "fcll":
            if self.forest is not None:
                raise TreelearnError(
                    f"TAN(criterion='fcll') picks a spanning tree by the fCLL score, which has "
                    f"no penalty; forest={self.forest!r} penalises the log-likelihood's edges: "
                    f"use one of criterion='fcll' (forest=None) or forest={self.forest!r} "
                    f"(criterion='loglik')"
                )
            weights = fcll_edge_weights(stats.per_class, d)
        else:
            weights = conditional_mutual_information_matrix(stats.per_class)[:d, :d]
        rows = None
        if self.forest is not None:  # n per pair: the rows where both are observed
            totals = [pc.pair_totals() for pc in stats.per_class]  # two classes or more
            rows = sum(totals[1:], start=totals[0])[:d, :d]
        self.feature_tree_ = spanning_skeleton(
            features,
            weights,
            stats.states[:d],
            forest=self.forest,
            n=rows,
            n_classes=len(stats.classes),
            whitelist=self.whitelist,
            blacklist=self.blacklist,
        )
        return tan_structure(self.feature_tree_, class_name, root)

    def _restore_model(self, saved: SavedState) -> None:
        super()._restore_model(saved)
        # the feature tree is the model minus the class, undirected (edges keep their weight)
        tree = nx.Graph()
        features = list(self.feature_names_in_)
        tree.add_nodes_from((f, {"states": self.model_.states[f]}) for f in features)
        tree.add_edges_from(self.model_.graph.subgraph(features).edges(data=True))
        if not nx.is_forest(tree):
            raise saved.fail("model", "has feature edges that do not form a forest")
        self.feature_tree_ = tree
