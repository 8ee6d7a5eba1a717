"""Extended tree-augmented naive Bayes (ETAN; de Campos, Corani, Scanagatta, Cuccu and
Zaffalon, IJAR 2016).

ETAN relaxes TAN twice: a feature may or may not have the class as a parent, and the
features' arcs form a **branching** (a forest of directed trees: at most one feature
parent each) rather than a spanning tree. The structure is the one of the largest BDeu
score (Bayesian-Dirichlet, equivalent sample size ``ess``) among all of them, found
exactly: the score is a sum over families, and feature ``i``'s best family is

* without a feature parent: ``s0_i = max(BDeu(i | {}), BDeu(i | C))``,
* with the feature parent ``j``: ``s_ij = max(BDeu(i | X_j), BDeu(i | C, X_j))``,

so the best structure is ``sum_i s0_i`` plus the maximum-weight branching of the arcs
``j -> i`` weighted ``s_ij - s0_i`` (Edmonds' algorithm, NetworkX's
``maximum_branching``), each node then taking the class as a parent where that scores
higher (ties: with the class). TAN's spanning tree with the class above every feature
is one candidate, so ETAN's score is never below TAN's.

``BDeu(i | Pa) = sum_j [lgamma(ess / q) - lgamma(ess / q + N_j) + sum_k (lgamma(ess / (q r) +
N_jk) - lgamma(ess / (q r)))]`` over the ``q`` configurations of ``Pa`` and the ``r``
states of ``X_i``; every family's counts come from the class-wise pair counts (one
one-hot product per class), all pairs at once.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from numbers import Real
from typing import ClassVar

import networkx as nx
import numpy as np

from .._base.limits import check_memory
from .._base.persistence import SavedState
from .._base.validation import Interval
from ..stats._counts import ClassCounts
from ..structure._trees import round_ties
from ._base import CLASS_PRIOR, UNSEEN, Unseen
from ._class_arcs import CLASS_ARCS
from ._network import SingleNetworkClassifier

__all__ = ["ETAN", "etan_family_scores"]


def etan_family_scores(per_class: Sequence, d: int, ess: float) -> dict[str, np.ndarray]:
    """BDeu of every family ETAN considers, for the first ``d`` columns (the features).

    ``per_class``: one :class:`~treelearn.stats._counts.PairCounts` per class. Returns
    ``"none"`` and ``"class"`` (``(d,)``: ``BDeu(i | {})``, ``BDeu(i | C)`` over the rows
    where ``X_i`` is observed), ``"parent"`` and ``"class_parent"`` (``(d, d)``, ``[j, i]``:
    ``BDeu(i | X_j)``, ``BDeu(i | C, X_j)`` over the rows where both are observed; the
    diagonal ``-inf``) and ``"none_on_pair"`` and ``"class_on_pair"`` (``(d, d)``, ``[j, i]``:
    ``BDeu(i | {})``, ``BDeu(i | C)`` over those same rows, so that adding ``X_j`` as a
    parent is scored on one set of rows; their diagonal 0). Without missing cells every row counts
    everywhere, and ``*_on_pair[j, i]`` equals ``none[i]`` / ``class[i]``.
    """
    from scipy.special import gammaln  # here: loading a saved ETAN needs no SciPy

    cards = np.asarray(per_class[0].cardinalities[:d], dtype=np.int64)
    k = cards.astype(float)
    width = int(cards.sum())
    owner = np.repeat(np.arange(d), cards)
    B = np.zeros((width, d))
    B[np.arange(width), owner] = 1.0
    C = len(per_class)
    joints = [np.asarray(pc.joint, dtype=float)[:width, :width] for pc in per_class]
    total = sum(joints[1:], start=joints[0])  # two classes or more

    def block_sums(cells: np.ndarray) -> np.ndarray:  # [j, i]: the block of (j, i) summed
        return B.T @ cells @ B

    def node_sums(values: np.ndarray) -> np.ndarray:  # per variable, over its states
        return np.bincount(owner, weights=values, minlength=d)

    def multinomial(J: np.ndarray, q: float) -> tuple[np.ndarray, np.ndarray]:
        """``BDeu(i | a parent of q configurations, one of them)`` of the counts ``J``:
        ``(over the rows where X_i is observed (d,), over the rows where X_j and X_i are
        (d, d) [j, i])``."""
        a = ess / (q * k[owner])  # per state of X_i
        alone = node_sums(gammaln(np.diagonal(J) + a) - gammaln(a))
        alone += gammaln(ess / q) - gammaln(ess / q + node_sums(np.diagonal(J)))
        # X_i's states over the rows where X_j is observed: the block (j, i)'s column sums
        on_pair_states = B.T @ J  # [j, state of i]
        on_pair = (gammaln(on_pair_states + a[None, :]) - gammaln(a[None, :])) @ B
        on_pair += gammaln(ess / q) - gammaln(ess / q + block_sums(J))
        return alone, on_pair

    none, none_on_pair = multinomial(total, 1.0)
    given_class, class_on_pair = np.zeros(d), np.zeros((d, d))
    for J in joints:
        alone, on_pair = multinomial(J, float(C))
        given_class += alone
        class_on_pair += on_pair
    # one feature parent j (q = k_j), and the class with it (q = C k_j); X_j's state counts
    # over the rows where X_i is observed: the block (j, i)'s row sums
    cell = ess / (k[owner][:, None] * k[owner][None, :])  # ess / (q r) for q = k_j
    aj = ess / k[owner]
    parent = block_sums(gammaln(total + cell) - gammaln(cell))
    parent += B.T @ (gammaln(aj[:, None]) - gammaln(aj[:, None] + total @ B))
    class_parent = np.zeros((d, d))
    cellC = cell / C
    ajC = ess / (C * k[owner])
    for J in joints:
        class_parent += block_sums(gammaln(J + cellC) - gammaln(cellC))
        class_parent += B.T @ (gammaln(ajC[:, None]) - gammaln(ajC[:, None] + J @ B))
    np.fill_diagonal(parent, -np.inf)
    np.fill_diagonal(class_parent, -np.inf)
    np.fill_diagonal(none_on_pair, 0.0)  # no arc i -> i: unused
    np.fill_diagonal(class_on_pair, 0.0)
    return {
        "none": none,
        "class": given_class,
        "parent": parent,
        "class_parent": class_parent,
        "none_on_pair": none_on_pair,
        "class_on_pair": class_on_pair,
    }


class ETAN(SingleNetworkClassifier):
    """Extended TAN: the BDeu-best network in which each feature has at most one feature
    parent and the class optionally (de Campos et al., IJAR 2016).

    See the module docstring for the search (exact). The CPTs are Lidstone (``alpha``) as
    every classifier's; a feature with neither the class nor a feature parent and no
    child is left out of the posterior (it is independent of the class).

    Parameters
    ----------
    equivalent_sample_size : float, default=1.0
        BDeu's equivalent sample size (> 0) of the structure score.
    alpha : float, default=1.0
        As in :class:`~treelearn.NaiveBayes`.
    fit_prior : bool, default=True
        As in :class:`~treelearn.NaiveBayes`.
    class_prior : array-like of float, default=None
        As in :class:`~treelearn.NaiveBayes`.
    unseen : {"error", "ignore"}, default="error"
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

    Attributes
    ----------
    feature_parent_ : each feature's feature parent (``None`` for a root of the branching).
    class_children_ : the features with the class as a parent, in column order.
    structure_score_ : the chosen structure's BDeu score (nats), every family's summed.
    model_ : the fitted network.

    Notes
    -----
    Missing feature values: every count is pairwise-complete (as :class:`~treelearn.TAN`'s
    conditional mutual information). A root's family ``X_i`` (with or without the class)
    is scored over the rows where ``X_i`` is observed; an arc ``j -> i`` is worth the gain
    of adding ``X_j`` to ``X_i``'s family, both families scored over the rows where ``X_i``
    and ``X_j`` are observed (so no arc gains from rows it does not see), and
    ``structure_score_`` sums the chosen families' scores over their own rows (a BDeu of
    the whole network when the rows are complete). Each CPT is learned from the rows where
    its family is observed; prediction sums a missing feature out exactly.

    See Also
    --------
    TAN : every feature has the class as a parent.
    BayesianTAN : the average over TAN structures.

    References
    ----------
    .. [1] de Campos, C. P., Corani, G., Scanagatta, M., Cuccu, M. and Zaffalon, M.
       (2016). Learning extended tree augmented naive structures. International Journal
       of Approximate Reasoning 68, 153-163.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> clf = tl.ETAN().fit(df.drop(columns="either"), df["either"])
    >>> clf.feature_parent_["dysp"], "asia" in clf.class_children_
    ('bronc', False)
    """

    _method = "etan"
    _parameter_constraints: ClassVar[dict] = {
        "equivalent_sample_size": [Interval(Real, 0, None, closed="neither")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        **CLASS_PRIOR,
        **UNSEEN,
        **CLASS_ARCS,
    }

    def __init__(
        self,
        equivalent_sample_size: float = 1.0,
        alpha: float = 1.0,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
        class_arcs: str = "average",
        arc_prior: float = 0.5,
    ) -> None:
        self.equivalent_sample_size = equivalent_sample_size
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.numbers = numbers
        self.categorical = categorical
        self.class_arcs = class_arcs
        self.arc_prior = arc_prior

    def _structure(self, stats: ClassCounts, params: dict) -> nx.DiGraph:
        features, class_name = list(stats.columns[:-1]), stats.columns[-1]
        d = len(features)
        width = int(stats.cardinalities[:d].sum())
        check_memory(
            8.0 * 4 * width * width,
            f"ETAN's BDeu terms of {width} x {width} state pairs",
            "use features with fewer states",
        )
        s = etan_family_scores(stats.per_class, d, params["equivalent_sample_size"])
        with_parent = np.maximum(s["parent"], s["class_parent"])
        # [j, i]: the arc j -> i, with and without X_j over the rows where both are observed
        alone_on_pair = np.maximum(s["none_on_pair"], s["class_on_pair"])
        gain = round_ties(with_parent - alone_on_pair)
        G = nx.DiGraph()
        G.add_nodes_from(range(d))
        G.add_weighted_edges_from(
            (j, i, float(gain[j, i]))
            for j in range(d)
            for i in range(d)
            if j != i and gain[j, i] > 0
        )
        branching = nx.maximum_branching(G, attr="weight")
        parent = [-1] * d
        for j, i in branching.edges:
            parent[i] = j
        with_class, total = [], 0.0
        for i in range(d):
            if parent[i] < 0:
                keep = s["class"][i] >= s["none"][i]
                total += s["class"][i] if keep else s["none"][i]
            else:
                keep = s["class_parent"][parent[i], i] >= s["parent"][parent[i], i]
                total += s["class_parent" if keep else "parent"][parent[i], i]
            with_class.append(bool(keep))
        self.structure_score_ = float(total)
        self.feature_parent_ = {
            f: None if parent[i] < 0 else features[parent[i]] for i, f in enumerate(features)
        }
        self.class_children_ = [f for i, f in enumerate(features) if with_class[i]]
        D = nx.DiGraph()
        D.add_node(class_name)
        D.add_nodes_from(features)
        for i, f in enumerate(features):
            parents = ([class_name] if with_class[i] else []) + (
                [features[parent[i]]] if parent[i] >= 0 else []
            )
            D.add_edges_from((p, f) for p in parents)
            D.nodes[f]["parents"] = parents
        D.graph["roots"] = [
            class_name,
            *(f for i, f in enumerate(features) if not with_class[i] and parent[i] < 0),
        ]
        D.graph["class"] = class_name
        return D

    def _network_description(self, params: dict) -> dict:
        return {**super()._network_description(params), "structure_score": self.structure_score_}

    def _restore_model(self, saved: SavedState) -> None:
        super()._restore_model(saved)
        c, features = self.class_name_, list(self.feature_names_in_)
        feature_parent, children, ok = {}, [], True
        for f in features:
            parents = list(self.model_.parents(f))
            has_class = bool(parents) and parents[0] == c
            rest = parents[1:] if has_class else parents
            ok = ok and len(rest) <= 1 and all(p in features for p in rest)
            feature_parent[f] = rest[0] if rest else None
            if has_class:
                children.append(f)
        ok = ok and not self.model_.parents(c)
        score = self.model_.settings.get("structure_score")
        if not ok or not isinstance(score, (int, float)) or not np.isfinite(score):
            raise saved.fail(
                "model",
                "is not an ETAN network (the class a root, at most one "
                "feature parent each, its structure_score setting)",
            )
        self.feature_parent_ = feature_parent
        self.class_children_ = children
        self.structure_score_ = float(score)
