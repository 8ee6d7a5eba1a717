"""Semi-naive Bayes classifiers: k-dependence Bayes (KDB) and averaged one-dependence
estimators (AODE), on the one classifier base (:mod:`treelearn.classifiers._base`).

* :class:`KDB` (Sahami, 1996): one network; every feature has the class and up to
  ``k`` other features as parents, chosen by mutual information.
* :class:`AODE` (Webb, Boughton and Wang, 2005): the average, over every feature
  ``x_i`` used as a *super-parent*, of the one-dependence model in which ``x_i`` is
  a parent of every other feature. No structure is learned; its statistics are the
  class-conditional pair counts (``N(x_i, x_j, y)``: one one-hot product per class).

Both learn from a :class:`~treelearn.stats._counts.ClassCounts` (any input kind, row
weights included), as every categorical treelearn classifier does.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from numbers import Integral, Real
from typing import Any, ClassVar

import networkx as nx
import numpy as np

from .._base.errors import TreelearnError
from .._base.limits import check_memory
from .._base.persistence import SavedState
from .._base.validation import Interval, Options
from ..encoding._table import python_scalar
from ..models._tree import TreeModel
from ..stats._counts import ClassCounts, family_counts_from_codes, offsets_of
from ..stats._information import conditional_mutual_information_matrix, mutual_information_matrix
from ..structure._trees import round_ties
from ._base import (
    CLASS_PRIOR,
    CPT_PRIOR,
    UNSEEN,
    CategoricalClassifier,
    Unseen,
    network_dtypes,
)
from ._class_arcs import CLASS_ARCS
from ._network import SingleNetworkClassifier
from ._partial import ChunkCounts, PartialFit, PartialFitNetwork

#: the most feature parents ``KDB(k="auto")`` chooses among (bnclassify's and Weka's usual k)
AUTO_MAX_K = 2

__all__ = [
    "AODE",
    "KDB",
    "LOO_BLOCK_ROWS",
    "kdb_parents",
    "leave_one_out_losses",
    "leave_one_out_losses_of_parts",
    "leave_one_out_of_rows",
]


def _ranked(values: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """``candidates`` sorted by ``values`` (rounded to 12 decimals) descending, then index."""
    rounded = round_ties(values[candidates])
    return candidates[np.lexsort((candidates, -rounded))]


def kdb_parents(class_mi: np.ndarray, cmi: np.ndarray, k: int) -> list[tuple[int, list[int]]]:
    """The k-DB structure: ``[(feature, [its feature parents]), ...]`` in ranking order.

    Features are ranked by ``class_mi`` (``I(X_i; C)``) descending; the feature
    ranked ``r`` (from 0) takes the ``min(k, r)`` earlier features with the highest
    ``cmi`` (``I(X_i; X_j | C)``) as parents, best first. Ties are broken by the
    value rounded to 12 decimals, then by column index.

    Examples
    --------
    >>> cmi = np.array([[0, .3, .1], [.3, 0, .2], [.1, .2, 0]])
    >>> kdb_parents(np.array([.1, .5, .2]), cmi, k=1)
    [(1, []), (2, [1]), (0, [1])]
    >>> kdb_parents(np.array([.1, .5, .2]), cmi, k=2)[2]
    (0, [1, 2])
    """
    order = _ranked(np.asarray(class_mi, dtype=float), np.arange(len(class_mi)))
    out = []
    for r, j in enumerate(order.tolist()):  # d small steps, each one vector op
        earlier = _ranked(np.asarray(cmi, dtype=float)[j], order[:r])
        out.append((j, earlier[: min(k, r)].tolist()))
    return out


# ---------------------------------------------------------------------- k-DB
def _log_loss(joint: np.ndarray, own: np.ndarray, w: np.ndarray, buf: np.ndarray) -> float:
    """``sum_i w_i (logsumexp_c joint[c, i] - own_i)``, through the SIMD ``exp`` and ``log``
    (``logaddexp`` has none), the row's peak taken out first; ``buf``: scratch of
    ``joint``'s shape."""
    peak = joint.max(axis=0)
    np.subtract(joint, peak, out=buf)
    # below exp(-700) a term is lost in the round-off of a sum holding 1 (the peak's);
    # clipping there keeps exp off its slow subnormal path
    np.maximum(buf, -700.0, out=buf)
    np.exp(buf, out=buf)
    return float(w @ (np.log(buf.sum(axis=0)) + peak - own))


def _zero_one(joint: np.ndarray, own: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """The weight of the rows whose first most probable class (``argmax``) is not ``y``:
    a class scores above the row's own, or level with it and before it."""
    wrong = np.zeros(joint.shape[1], dtype=bool)
    for c in range(joint.shape[0]):  # the classes: a few vector ops each
        wrong |= (joint[c] > own) | ((joint[c] == own) & (c < y))
    return float(w @ wrong)


#: rows a leave-one-out block scores at once: its working arrays are a few ``classes x rows``
#: floats per k (about 5 MB at 3 classes and k <= 2), whatever the number of rows
LOO_BLOCK_ROWS = 65_536


def leave_one_out_losses(
    stats: ClassCounts,
    ranked: list[tuple[int, list[int]]],
    max_k: int,
    codes: np.ndarray,
    weights: np.ndarray | None,
    *,
    alpha: float,
    log_prior: np.ndarray | None,
    loss: str,
) -> np.ndarray:
    """``losses[k, s]``: the leave-one-out loss of ``M(k, s)`` over the rows ``codes``
    (features then the class, ``-1`` a missing feature; weighted by ``weights``), from the
    counts of ``stats``. ``log_prior``: a fixed log class prior (``None``: the leave-one-out
    frequencies with ``alpha``). ``loss``: ``"log_loss"`` (``-sum w_i log p(y_i | x_i)``)
    or ``"zero_one"`` (the weight of the rows whose most probable class is wrong).

    A row's term for a class other than its own is the full-data CPT entry: a gather from
    the ``|C| x configurations x states`` log table. Only its own class's term leaves the
    row out: without weights that is a second table (every row takes off 1), with weights
    one expression per row.

    Missing feature values: each family is counted over the rows where it is observed (as
    the fitted CPTs are); a row's missing ``x_j`` contributes nothing (summed out, a factor
    1), and a row with ``x_j`` observed but a parent missing takes ``x_j``'s family with
    the parents ranked before its first missing one (a row is left out only of families it
    was counted in). That is the network's posterior for a missing feature, and an
    approximation of it for a missing parent (summed out exactly at prediction).

    The losses are sums over rows, so they are computed block by block
    (:func:`leave_one_out_losses_of_parts`): the working memory is that of
    :data:`LOO_BLOCK_ROWS` rows, not of every row."""
    return leave_one_out_losses_of_parts(
        stats,
        ranked,
        max_k,
        [(codes, weights)],
        alpha=alpha,
        log_prior=log_prior,
        loss=loss,
    )


def leave_one_out_losses_of_parts(
    stats: ClassCounts,
    ranked: list[tuple[int, list[int]]],
    max_k: int,
    parts: Sequence[tuple[np.ndarray, np.ndarray | None]],
    *,
    alpha: float,
    log_prior: np.ndarray | None,
    loss: str,
    block_rows: int | None = None,
) -> np.ndarray:
    """:func:`leave_one_out_losses` over the rows of several ``parts`` (each chunk's
    ``(codes, weights)``, ``None``: weight 1), scored ``block_rows`` rows at a time (default
    :data:`LOO_BLOCK_ROWS`) and summed: the families' log tables are made once from the counts of every part, and
    each block only gathers from them, so memory does not grow with the rows (beyond their
    codes). The sums add the blocks in order: the same losses as one pass over the rows
    joined, to round-off."""
    d = int(parts[0][0].shape[1]) - 1
    c = d
    n_classes = len(stats.classes)
    cards = stats.cardinalities
    weighted = any(w is not None for _, w in parts)
    # which columns miss a value in some row: the counting rule of a family is the same
    # for every block
    missing = np.zeros(d + 1, dtype=bool)
    for codes, _ in parts:
        if len(codes):
            missing |= codes.min(axis=0) < 0
    tables = [
        _step_tables(stats, parts, j, parents, max_k, missing, alpha=alpha, weighted=weighted)
        for j, parents in ranked
    ]
    prior = None
    if log_prior is None:
        class_count = np.asarray(stats.class_count, dtype=float)
        prior = (class_count, float(class_count.sum()))
    losses = np.zeros((max_k + 1, d + 1))
    block_rows = block_rows or LOO_BLOCK_ROWS
    for codes, w in parts:
        for start in range(0, len(codes), block_rows):
            block = codes[start : start + block_rows]
            bw = None if w is None else np.asarray(w[start : start + block_rows], dtype=float)
            if weighted and bw is None:
                bw = np.ones(len(block))
            losses += _block_losses(
                block, bw, ranked, tables, max_k, cards, n_classes, c,
                alpha=alpha, prior=prior, log_prior=log_prior, loss=loss,
            )  # fmt: skip
    return losses


def _step_tables(
    stats: ClassCounts,
    parts: Sequence[tuple[np.ndarray, np.ndarray | None]],
    j: int,
    parents: list[int],
    max_k: int,
    missing: np.ndarray,
    *,
    alpha: float,
    weighted: bool,
) -> list[tuple]:
    """For feature ``j`` with its ranked ``parents``: per ``k = 0 .. min(max_k, parents)``
    the log tables a row's term is gathered from (:func:`_family_tables`), of the counts of
    the family of its first ``k`` parents: the marginals of the largest family where no
    member misses a value, else counted anew over the rows where the family is observed."""
    c = len(missing) - 1
    cards = stats.cardinalities
    k_j = int(cards[j])
    gaps = bool(missing[[j, *parents]].any())
    full = None if gaps else np.asarray(stats.family_counts([c, *parents, j]), dtype=float)
    out = []
    for k in range(min(max_k, len(parents)) + 1):
        if full is not None:  # k parents: the marginal of the largest family
            counts = (
                full.sum(axis=tuple(range(1 + k, 1 + len(parents)))) if k < len(parents) else full
            )
        else:  # over the rows where this family is observed, every part's
            family = [c, *parents[:k], j]
            counts = sum(
                np.asarray(family_counts_from_codes(codes, cards, family, w), dtype=float)
                for codes, w in parts
            )
        out.append(_family_tables(np.asarray(counts, dtype=float), k_j, alpha, weighted))
    return out


def _family_tables(counts: np.ndarray, k_j: int, alpha: float, weighted: bool) -> tuple:
    """``(num, den, log_cpt, table)`` of one family's counts ``(classes, configurations...,
    states)``: ``table[c, y, cell]`` (without weights) is the CPT's log entry, the row's own
    class (``c == y``) with the row taken off (every row weighs 1); with weights ``table``
    is ``None`` and the own class's entry is one expression per row."""
    n_classes = counts.shape[0]
    num = counts.reshape(n_classes, -1)  # (classes, configurations x states)
    den = np.repeat(counts.sum(axis=-1).reshape(n_classes, -1), k_j, axis=1)
    log_cpt = np.log((num + alpha) / (den + k_j * alpha))
    if weighted:
        return num, den, log_cpt, None
    left_out = np.log(
        (np.maximum(num - 1.0, 0.0) + alpha) / (np.maximum(den - 1.0, 0.0) + k_j * alpha)
    )
    table = np.repeat(log_cpt[:, None, :], n_classes, axis=1)
    table[np.arange(n_classes), np.arange(n_classes)] = left_out
    return num, den, log_cpt, table.reshape(n_classes, -1)


def _block_losses(
    codes: np.ndarray,
    weights: np.ndarray | None,
    ranked: list[tuple[int, list[int]]],
    tables: list[list[tuple]],
    max_k: int,
    cards: np.ndarray,
    n_classes: int,
    c: int,
    *,
    alpha: float,
    prior: tuple[np.ndarray, float] | None,
    log_prior: np.ndarray | None,
    loss: str,
) -> np.ndarray:
    """The losses ``[k, s]`` of the rows of one block (every row at once)."""
    n = codes.shape[0]
    # one contiguous row per column (a column of the row-major codes is a strided read), as
    # intp once: every gather below indexes with these
    columns = np.ascontiguousarray(codes.T, dtype=np.intp)
    y = columns[c]
    w = np.ones(n) if weights is None else weights
    if prior is not None:
        class_count, total = prior
        own = np.zeros((n_classes, n))
        own[y, np.arange(n)] = w  # the row's own weight, in its class's counts only
        base = np.log(
            (np.maximum(class_count[:, None] - own, 0.0) + alpha)
            / (np.maximum(total - w, 0.0) + n_classes * alpha)[None, :]
        )
    else:
        base = np.repeat(np.asarray(log_prior, dtype=float)[:, None], n, axis=1)

    own_cell = y * n + np.arange(n)  # each row's own class, in the flattened (classes, rows)
    buf = np.empty((n_classes, n))

    def score(joint: np.ndarray) -> float:
        own_joint = np.take(joint, own_cell)
        if loss == "log_loss":
            return _log_loss(joint, own_joint, w, buf)
        return _zero_one(joint, own_joint, y, w)

    def family_term(family: tuple, cell: np.ndarray, k_j: int) -> np.ndarray:
        """Each row's ``log p(x_j | c, u)`` for every class, its own class left out."""
        num, den, log_cpt, table = family
        if table is not None:  # every row takes off 1: one gather from the second table
            return np.take(table, y * num.shape[1] + cell, axis=1)
        # the own class: the same expression, the row's weight taken off
        term = np.take(log_cpt, cell, axis=1)
        at = y * num.shape[1] + cell
        term.flat[own_cell] = np.log(
            (np.maximum(np.take(num, at) - w, 0.0) + alpha)
            / (np.maximum(np.take(den, at) - w, 0.0) + k_j * alpha)
        )
        return term

    observed = columns >= 0
    safe = np.maximum(columns, 0)  # a missing code indexes state 0; its rows are masked
    sums = np.repeat(base[None], max_k + 1, axis=0)  # (k, classes, rows)
    losses = np.empty((max_k + 1, len(ranked) + 1))
    losses[:, 0] = score(base)
    for s, ((j, parents), families) in enumerate(zip(ranked, tables)):  # every row at once
        k_j = int(cards[j])
        gaps = not all(observed[v].all() for v in (j, *parents))
        # the parents observed before the row's first missing one (all of them: none missing)
        prefix = np.full(n, len(parents), dtype=np.intp)
        for r in range(len(parents) - 1, -1, -1):
            prefix[~observed[parents[r]]] = r
        raw: list[np.ndarray] = []  # raw[k]: the family of the first k parents
        term = None
        config = np.zeros(n, dtype=np.intp)  # each row's configuration of the first k parents
        for k in range(max_k + 1):
            if k <= len(parents):
                if k:
                    config = config * int(cards[parents[k - 1]]) + safe[parents[k - 1]]
                raw.append(family_term(families[k], config * k_j + safe[j], k_j))
                term = raw[k]
                if gaps:  # a missing parent: its row keeps the parents before it
                    term = term.copy()
                    short = prefix < k
                    if short.any():
                        term[:, short] = _earlier(raw, prefix, short)
                    term[:, ~observed[j]] = 0.0  # a missing x_j is summed out: a factor 1
            sums[k] += term  # more parents than the feature has: its full family
            losses[k, s + 1] = score(sums[k])
    return losses


def _earlier(raw: list[np.ndarray], prefix: np.ndarray, short: np.ndarray) -> np.ndarray:
    """The terms of the rows ``short`` from the family of their first ``prefix`` parents."""
    rows = np.flatnonzero(short)
    out = np.empty((raw[0].shape[0], len(rows)))
    for k in np.unique(prefix[rows]):
        at = prefix[rows] == k
        out[:, at] = raw[int(k)][:, rows[at]]
    return out


def leave_one_out_of_rows(
    clf: Any,
    stats: ClassCounts,
    ranked: list[tuple[int, list[int]]],
    max_k: int,
    params: dict,
    loss: str,
) -> np.ndarray:
    """:func:`leave_one_out_losses` over every row ``stats`` kept (each chunk's, in
    order), with ``clf``'s fixed class prior where it has one (``class_prior`` given or
    ``fit_prior=False``): KDB's ``k="auto"`` and SKDB's selection."""
    assert isinstance(stats, ChunkCounts)  # partial_fit's totals, after a fit too
    log_prior = None
    if params.get("class_prior") is not None or not params["fit_prior"]:
        log_prior = clf.class_log_prior_
    # each chunk's codes as kept (not joined: a copy of every row), scored block by block
    return leave_one_out_losses_of_parts(
        stats,
        ranked,
        max_k,
        stats.rows(),
        alpha=params["alpha"],
        log_prior=log_prior,
        loss=loss,
    )


class KDB(PartialFitNetwork, SingleNetworkClassifier):
    """k-dependence Bayesian classifier (Sahami, 1996).

    Features are ranked by ``I(X_i; C)`` (descending); each feature takes the class
    and the (up to) ``k`` earlier-ranked features with the highest
    ``I(X_i; X_j | C)`` as parents: the feature ranked ``r`` (from 0) gets exactly
    ``min(k, r)`` feature parents (no threshold). Ties are broken by the value
    rounded to 12 decimals, then by column order. ``k=0`` is naive Bayes, ``k=1``
    a one-dependence classifier (a TAN-like tree rooted at the most informative
    feature, not necessarily the maximum spanning one).

    Parameters
    ----------
    k : int or "auto", default="auto"
        The most feature parents of a feature (an integer >= 0), or ``"auto"``: the ``k``
        in ``0, 1, 2`` of least leave-one-out log-loss with every feature kept, computed
        exactly from the counts as :class:`~treelearn.SKDB`'s (its CPTs Lidstone with
        ``alpha``; ties to the smaller ``k``). Few rows then get fewer parents: on R's
        ``MASS::survey`` (236 rows, 4 classes) ``k=2``'s 36 class-and-parent configurations
        per family leave about 6 rows each, and 5-fold accuracy falls to 0.792, below the
        majority class's 0.801; ``"auto"`` picks ``k = 1`` or ``0`` there (0.805).
        ``partial_fit`` after a ``fit`` keeps the ``k_`` the fit chose.
    alpha : float, default=1.0
        Lidstone pseudocount of every CPT: ``(N(u, a) + alpha) / (N(u) + k_j alpha)``.
    prior : {"lidstone", "bdeu", "m-estimate"}, default="lidstone"
        The CPT estimator (``"lidstone"`` with ``alpha``,
        ``"bdeu"`` with ``equivalent_sample_size``, ``"m-estimate"`` with ``m``), as in
        :class:`~treelearn.NaiveBayes`.
    equivalent_sample_size : float, default=1.0
        See ``prior``.
    m : float, default=1.0
        See ``prior``.
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
    feature_order_ : list
        The features in ranking order.
    k_ : int
        The number of feature parents used (``k``, or the one ``"auto"`` chose).
    loo_loss_ : numpy.ndarray or None
        With ``k="auto"``: the leave-one-out log-loss of ``k = 0, 1, 2`` (else ``None``).
    model_, classes_, class_name_, class_count_, class_log_prior_, n_features_in_, feature_names_in_
        As :class:`~treelearn.NaiveBayes`'s (``model_`` is the network).

    Notes
    -----
    Families of ``k + 2`` variables are counted from the rows, so ``k >= 2`` needs
    the data in memory (a DataFrame or array). Missing feature values are summed
    out exactly at prediction (for ``k >= 2`` by variable elimination).

    See Also
    --------
    SKDB : chooses ``k`` and the features by cross-validation.
    TAN : one feature parent, the best tree.

    References
    ----------
    .. [1] Sahami, M. (1996). Learning limited dependence Bayesian classifiers. In
       Proceedings of the 2nd International Conference on Knowledge Discovery and Data
       Mining (KDD), 335-338.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> clf = tl.KDB(k=2).fit(df.drop(columns="either"), df["either"])
    >>> [len(clf.model_.parents(f)) - 1 for f in clf.feature_order_]   # feature parents
    [0, 1, 2, 2, 2, 2, 2]
    """

    _method = "kdb"
    cli_method: ClassVar[str] = "kdb"
    k_: int
    loo_loss_: np.ndarray | None
    #: its network's answers, and adding rows (``partial_fit``)
    capabilities: ClassVar[frozenset[str]] = SingleNetworkClassifier.capabilities | {"partial_fit"}
    _parameter_constraints: ClassVar[dict] = {
        "k": [Interval(Integral, 0, None), Options("auto")],
        **CPT_PRIOR,
        **CLASS_PRIOR,
        **UNSEEN,
        **CLASS_ARCS,
    }

    def __init__(
        self,
        k: int | str = "auto",
        alpha: float = 1.0,
        prior: str = "lidstone",
        equivalent_sample_size: float = 1.0,
        m: float = 1.0,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
        class_arcs: str = "average",
        arc_prior: float = 0.5,
    ) -> None:
        self.k = k
        self.alpha = alpha
        self.prior = prior
        self.equivalent_sample_size = equivalent_sample_size
        self.m = m
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.numbers = numbers
        self.categorical = categorical
        self.class_arcs = class_arcs
        self.arc_prior = arc_prior

    def _keeps_rows(self, params: dict) -> bool:
        # families of k + 2 variables, and "auto"'s leave-one-out: counted from the rows
        return params["k"] == "auto" or params["k"] >= 2

    def _structure(self, stats: ClassCounts, params: dict) -> nx.DiGraph:
        features, class_name = list(stats.columns[:-1]), stats.columns[-1]
        d = len(features)
        class_mi = mutual_information_matrix(stats.counts)[:d, d]
        cmi = conditional_mutual_information_matrix(stats.per_class)[:d, :d]
        if params["k"] == "auto" and isinstance(stats, ChunkCounts) and not stats.has_rows:
            # partial_fit after a fit (which keeps no rows): the k the fit chose stays, as
            # a fixed k would; its parents are chosen again from the summed counts
            ranked = kdb_parents(class_mi, cmi, self.k_)
        elif params["k"] == "auto":
            ranked = kdb_parents(class_mi, cmi, AUTO_MAX_K)
            self.loo_loss_ = self._leave_one_out(stats, ranked, params)
            self.k_ = int(np.argmin(round_ties(self.loo_loss_)))  # ties: the smaller k
            ranked = [(j, parents[: self.k_]) for j, parents in ranked]
        else:
            ranked = kdb_parents(class_mi, cmi, params["k"])
            self.k_, self.loo_loss_ = int(params["k"]), None
        # [..., None][:-1]: an object array even when the names are tuples
        self.feature_order_ = np.array([*(features[j] for j, _ in ranked), None], dtype=object)[:-1]
        D = nx.DiGraph()
        D.add_node(class_name)
        D.add_nodes_from(features)
        for j, parents in ranked:
            D.add_edge(class_name, features[j])
            D.add_edges_from((features[p], features[j]) for p in parents)
            D.nodes[features[j]]["parents"] = [class_name, *(features[p] for p in parents)]
        D.graph["roots"] = [class_name]
        D.graph["class"] = class_name
        return D

    def _leave_one_out(self, stats: ClassCounts, ranked: list, params: dict) -> np.ndarray:
        """Leave-one-out log-loss of KDB(k) with every feature, ``k = 0 .. AUTO_MAX_K``, from
        the counts (SKDB's computation, :func:`leave_one_out_losses`,
        its last column: no feature left out)."""
        losses = leave_one_out_of_rows(self, stats, ranked, AUTO_MAX_K, params, "log_loss")
        return losses[:, len(ranked)]

    def _network_description(self, params: dict) -> dict:
        return {
            **super()._network_description(params),
            "feature_order": list(self.feature_order_),
            "k": self.k_,
            **({} if self.loo_loss_ is None else {"loo_loss": self.loo_loss_.tolist()}),
        }

    def _restore_model(self, saved: SavedState) -> None:
        super()._restore_model(saved)
        order = self.model_.settings.get("feature_order")
        if not isinstance(order, list) or sorted(map(repr, order)) != sorted(
            map(repr, self.feature_names_in_)
        ):
            raise saved.fail("model", "has no feature_order setting naming every feature")
        self.feature_order_ = np.array([*order, None], dtype=object)[:-1]
        # files before k="auto" have no "k": the most feature parents of a feature is k
        k = self.model_.settings.get(
            "k", max((len(self.model_.parents(f)) - 1 for f in order), default=0)
        )
        loo = self.model_.settings.get("loo_loss")
        if not isinstance(k, int) or isinstance(k, bool) or k < 0:
            raise saved.fail("model", "has no k setting (an integer >= 0)")
        self.k_ = k
        self.loo_loss_ = None if loo is None else np.asarray(loo, dtype=float)


# ---------------------------------------------------------------------- AODE
class AODE(PartialFit, CategoricalClassifier):
    """Averaged one-dependence estimators (Webb, Boughton and Wang, 2005).

    ``p(y, x) = (1 / |S(x)|) sum_{i in S(x)} P(y, x_i) prod_{j != i} P(x_j | y, x_i)``
    where ``S(x)`` are the features whose value ``x_i`` was seen in at least
    ``min_count`` training rows, and

    * ``P(y, x_i) = (N(y, x_i) + alpha) / (N + alpha |Y| |X_i|)``,
    * ``P(x_j | y, x_i) = (N(x_j, y, x_i) + alpha) / (N(y, x_i) + alpha |X_j|)``.

    When no feature qualifies, it is naive Bayes with the smoothed prior
    ``(N(y) + alpha) / (N + alpha |Y|)`` and ``P(x_j | y) = (N(x_j, y) + alpha) /
    (N(y) + alpha |X_j|)``. Missing values: a missing ``x_i`` is no super-parent for
    that row, a missing ``x_j`` drops out of the product (summed out); each count
    is over the rows where its variables are observed.

    Parameters
    ----------
    alpha : float, default=1.0
        The pseudocount above (``alpha = 0`` gives maximum likelihood; a
        conditional on an unseen ``(y, x_i)`` is then uniform).
    min_count : int, default=1
        A super-parent value qualifies when ``N(x_i) >= min_count``
        (Weka's frequency limit; 1 = seen at least once).
    unseen : {"error", "ignore"}, default="error"
        As in :class:`~treelearn.NaiveBayes`.
    numbers : {"mdl", "states"}, default="mdl"
        Numeric columns cut into supervised MDL bins in ``fit`` (the
        default, ``numbers="mdl"``; ``numbers="states"`` makes each value a state), as in
        :class:`~treelearn.NaiveBayes`.
    categorical : sequence of hashable, default=None
        The columns of numbers kept as states, as in :class:`~treelearn.NaiveBayes`.

    Attributes
    ----------
    models_ : ``{feature: TreeModel}``: the one-dependence network of each
        super-parent (class -> every feature, the super-parent -> every other
        feature), whose joint is the term of the average above.
    fallback_model_ : the naive Bayes network used where no feature qualifies.
    classes_, class_name_, class_count_, feature_names_in_, n_features_in_ : as
        :class:`~treelearn.NaiveBayes`; ``class_log_prior_`` is the
        smoothed prior of the fallback.

    See Also
    --------
    AnDE : ``n=2`` and beyond.
    KDB : a fixed number of parents per feature.
    TAN : one tree over the features.

    References
    ----------
    .. [1] Webb, G. I., Boughton, J. R. and Wang, Z. (2005). Not so naive Bayes:
       aggregating one-dependence estimators. Machine Learning 58(1), 5-24.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> clf = tl.AODE().fit(df.drop(columns="either"), df["either"])
    >>> sorted(clf.models_)[:3]
    ['asia', 'bronc', 'dysp']
    >>> clf.models_["smoke"].parents("lung")
    ['either', 'smoke']
    """

    _method = "aode"
    cli_method: ClassVar[str | None] = "aode"  # AnDE, a subclass, has none
    #: an average of networks: no one network's queries; its pictures show each term
    capabilities: ClassVar[frozenset[str]] = frozenset(
        {"classify", "score", "explain", "draw", "explorer", "partial_fit"}
    )
    _parameter_constraints: ClassVar[dict] = {
        "alpha": CPT_PRIOR["alpha"],
        "min_count": [Interval(Real, 0, None)],
        **UNSEEN,
    }

    def __init__(
        self,
        alpha: float = 1.0,
        min_count: int = 1,
        unseen: Unseen = "error",
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
    ) -> None:
        self.alpha = alpha
        self.min_count = min_count
        self.unseen = unseen
        self.numbers = numbers
        self.categorical = categorical

    def _prior_pseudocount(self, params: dict) -> float:
        return params["alpha"]  # the fallback's smoothed prior (N(y) + alpha) / (N + alpha |Y|)

    # ------------------------------------------------------------ fitting
    def _learn(self, stats: ChunkCounts, params: dict) -> None:
        d = len(stats.columns) - 1
        self._states = [list(s) for s in stats.states[:d]]
        self._dtypes = network_dtypes(
            dict(zip(stats.columns, stats.dtypes)) if stats.dtypes else None
        )
        cards = stats.cardinalities[:d]
        offsets = offsets_of(cards)
        width = int(offsets[-1])
        # T[y, a, b]: rows of class y with state a (of its variable) and state b: the
        # class-conditional pair counts, one product per class
        k = len(stats.per_class)
        check_memory(
            8.0 * 3 * k * width * width,
            f"{type(self).__name__}'s class-conditional "
            f"pair tables ({k} x {width} x {width}, three of them)",
            "use fewer features, or fewer states (max_states)",
        )
        T = np.stack([pc.joint[:width, :width] for pc in stats.per_class]).astype(float)
        nb = np.stack([np.diagonal(t) for t in T])  # (|Y|, K): N(y, x_i = a)
        self._set_tables(T, nb, cards, offsets, params)
        self._drop_models()

    def _set_tables(
        self, T: np.ndarray, nb: np.ndarray, cards: np.ndarray, offsets: np.ndarray, params: dict
    ) -> None:
        """The log-probability tables of the formula, from the triple and pair counts."""
        alpha = params["alpha"]
        n_classes = nb.shape[0]
        owner = np.repeat(np.arange(len(cards)), cards)
        k = cards[owner].astype(float)  # |X| of each one-hot column's variable
        starts = offsets[:-1]
        n_i = np.add.reduceat(nb.sum(axis=0), starts)[owner]  # rows where x_i is observed
        with np.errstate(divide="ignore", invalid="ignore"):
            self.log_pair_ = np.log((nb + alpha) / (n_i + alpha * n_classes * k))  # P(y, x_i)
            # denominators: rows of (y, x_i = a) where x_j is observed, per block j
            den = np.add.reduceat(T, starts, axis=2)[:, :, owner]
            cond = (T + alpha) / (den + alpha * k[None, None, :])
            cond = np.where(den + alpha * k > 0, cond, 1.0 / k)  # nothing to go on: uniform
            log_cond = np.log(cond)
            log_cond[:, owner[:, None] == owner[None, :]] = 0.0  # j == i is not in the product
            self.log_cond_ = log_cond
            # the fallback: naive Bayes with smoothed prior
            ny = np.add.reduceat(nb, starts, axis=1)[:, owner]  # N(y) where x_j is observed
            nb_cpt = np.where(ny + alpha * k > 0, (nb + alpha) / (ny + alpha * k), 1.0 / k)
            self.log_nb_ = np.log(nb_cpt)
        self.value_count_ = nb.sum(axis=0)  # N(x_i = a): which super-parent values qualify
        self.qualifies_ = self.value_count_ >= params["min_count"]
        self._cards = cards

    # ------------------------------------------------------------ prediction
    def _one_hot(self, codes: np.ndarray) -> np.ndarray:
        offsets = offsets_of(self._cards)
        n = codes.shape[0]
        X = np.zeros((n, int(offsets[-1])))
        rows, cols = np.nonzero(codes >= 0)
        X[rows, offsets[cols] + codes[rows, cols]] = 1.0
        return X

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        n, d = codes.shape
        n_classes = len(self.classes_)
        offsets = offsets_of(self._cards)
        X = self._one_hot(codes)
        L = self.log_cond_
        impossible = np.isinf(L)
        has_zero = bool(impossible.any())  # only with alpha = 0
        finite = np.where(impossible, 0.0, L)
        total = np.full((n, n_classes), -np.inf)
        used = np.zeros(n)
        rows = np.arange(n)
        for i in range(d):  # one product per super-parent: sum_j log P(x_j | y, x_i) for all a
            block = slice(offsets[i], offsets[i + 1])
            k_i = int(self._cards[i])
            a = codes[:, i]
            ok = a >= 0
            ok[ok] = self.qualifies_[offsets[i] + a[ok]]
            if not ok.any():
                continue
            sums = X[ok] @ finite[:, block, :].reshape(n_classes * k_i, -1).T
            sums = sums.reshape(-1, n_classes, k_i)[np.arange(ok.sum()), :, a[ok]]
            if has_zero:
                zeros = X[ok] @ impossible[:, block, :].reshape(n_classes * k_i, -1).T
                zeros = zeros.reshape(-1, n_classes, k_i)[np.arange(ok.sum()), :, a[ok]]
                sums[zeros > 0] = -np.inf
            term = self.log_pair_[:, offsets[i] + a[ok]].T + sums
            total[rows[ok]] = np.logaddexp(total[rows[ok]], term)
            used[ok] += 1
        out = np.empty((n, n_classes))
        some = used > 0
        out[some] = total[some] - np.log(used[some])[:, None]
        if not some.all():  # no super-parent: naive Bayes with the smoothed prior
            nb = X[~some] @ np.where(np.isinf(self.log_nb_), 0.0, self.log_nb_).T
            zero = X[~some] @ np.isinf(self.log_nb_).T
            nb[zero > 0] = -np.inf
            out[~some] = self.class_log_prior_[None, :] + nb
        return out

    def _feature_states(self) -> list:
        return self._states

    # ------------------------------------------------------------ the networks
    #: ``(models_, fallback_model_)`` once built from the tables (``None``: not yet)
    _built_models: tuple[dict, TreeModel] | None = None

    def _drop_models(self) -> None:
        self._built_models = None

    def _networks(self) -> tuple[dict, TreeModel]:
        """The networks of :attr:`models_` and :attr:`fallback_model_`, built from the
        tables on first use (``d`` networks of ``d`` CPTs: only when asked for)."""
        self._require_fitted()
        if self._built_models is None:
            self._built_models = self._build_models()
        return self._built_models

    @property
    def models_(self) -> dict:
        """``{feature: TreeModel}``: each super-parent's one-dependence network (built on first use)."""
        return self._networks()[0]

    @property
    def fallback_model_(self) -> TreeModel:
        """The naive Bayes network used for rows where no super-parent qualifies."""
        return self._networks()[1]

    def _build_models(self) -> tuple[dict, TreeModel]:
        features = list(self.feature_names_in_)
        c = self.class_name_
        labels = [python_scalar(v) for v in self.classes_]
        offsets = offsets_of(self._cards)
        blocks = [slice(offsets[j], offsets[j + 1]) for j in range(len(features))]
        pair = np.exp(self.log_pair_)
        cond = np.exp(self.log_cond_)
        description = self._description(self._method)
        models = {}
        for i, sp in enumerate(features):  # d networks of d CPTs: only when asked for
            G = nx.DiGraph()
            joint = pair[:, blocks[i]]
            class_cpt = joint.sum(axis=1)
            G.add_node(c, states=labels, cpt=class_cpt / class_cpt.sum(), parents=[])
            for j, f in enumerate(features):
                if j == i:
                    cpt, parents = joint / joint.sum(axis=1, keepdims=True), [c]
                else:
                    cpt, parents = cond[:, blocks[i], blocks[j]], [c, sp]
                G.add_node(f, states=list(self._states[j]), cpt=cpt, parents=parents)
                G.add_edges_from((p, f) for p in parents)
            models[sp] = TreeModel(
                G,
                variables=[*features, c],
                dtypes=self._dtypes,
                settings={
                    **description,
                    "super_parent": sp,
                    "qualifies": self.qualifies_[blocks[i]].tolist(),
                    "value_count": self.value_count_[blocks[i]].tolist(),
                },
            )
        G = nx.DiGraph()
        G.add_node(c, states=labels, cpt=np.exp(self.class_log_prior_), parents=[])
        nb = np.exp(self.log_nb_)
        for j, f in enumerate(features):
            G.add_node(f, states=list(self._states[j]), cpt=nb[:, blocks[j]], parents=[c])
            G.add_edge(c, f)
        fallback = TreeModel(
            G,
            variables=[*features, c],
            dtypes=self._dtypes,
            settings={**description, "fallback": "naive-bayes"},
        )
        return models, fallback

    def _fitted_state(self) -> dict:
        return {"models": [m.to_dict() for m in (*self.models_.values(), self.fallback_model_)]}

    def _restore_model(self, saved: SavedState) -> None:
        raw = saved.raw("models", list)
        features = list(self.feature_names_in_)
        if len(raw) != len(features) + 1:
            raise saved.fail(
                "models",
                f"holds {len(raw)} networks, not one per feature "
                f"({len(features)}) and the fallback",
            )
        *networks, fallback = [TreeModel.from_dict(m) for m in raw]
        c = self.class_name_
        for i, model in enumerate([*networks, fallback]):
            self._check_class_states(saved, model)
            self._check_feature_states(saved, model)
            if model.states != fallback.states:
                raise saved.fail("models", "hold networks whose variables have different states")
            # super-parent i: the class -> every feature, feature i -> every other feature
            sp = features[i] if i < len(networks) else None
            if any(
                model.parents(f) != ([c] if f == sp or sp is None else [c, sp]) for f in features
            ):
                raise saved.fail(
                    "models",
                    f"network {i} is not the "
                    f"{'naive Bayes' if sp is None else 'one-dependence'}"
                    " network it should be",
                )
            if sp is not None and len(model.settings.get("value_count") or ()) != len(
                model.states[sp]
            ):
                raise saved.fail("models", f"network {i} lacks its super-parent's value counts")
        self._states = [list(fallback.states[f]) for f in features]
        self._dtypes = dict(fallback.dtypes) or None
        cards = np.array([len(s) for s in self._states], dtype=np.int64)
        offsets = offsets_of(cards)
        width, n_classes = int(offsets[-1]), len(self.classes_)
        pair = np.empty((n_classes, width))
        cond = np.ones((n_classes, width, width))
        value_count = np.empty(width)
        for i, (sp, model) in enumerate(zip(features, networks)):  # rebuilding: not a hot path
            bi = slice(offsets[i], offsets[i + 1])
            pair[:, bi] = model.cpt(c)[:, None] * model.cpt(sp)
            value_count[bi] = model.settings["value_count"]
            for j, f in enumerate(features):
                if j != i:
                    cond[:, bi, offsets[j] : offsets[j + 1]] = model.cpt(f)
        with np.errstate(divide="ignore"):
            self.log_pair_ = np.log(pair)
            self.log_cond_ = np.log(cond)
            self.log_nb_ = np.log(np.concatenate([fallback.cpt(f) for f in features], axis=1))
        self.value_count_ = value_count
        if not np.isfinite(value_count).all() or (value_count < 0).any():
            raise saved.fail("models", "hold value counts that are not non-negative numbers")
        self.qualifies_ = value_count >= self._checked_params()["min_count"]
        self._cards = cards
        self._built_models = (dict(zip(features, networks)), fallback)

    # ------------------------------------------------------------ pictures and sizes
    def draw(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the ensemble once: the naive Bayes structure every super-parent's network
        shares, each super-parent framed (one figure, not a panel per super-parent);
        returns the Figure."""
        self.require("draw")
        from ..viz._draw import draw_super_parents

        title = kwargs.pop("title", None)
        kwargs.pop("data", None)  # the picture is the structure, not a score
        kwargs.setdefault("class_node", self.class_name_)
        return draw_super_parents(
            self.fallback_model_,
            list(self.models_),
            ax,
            heading=title if isinstance(title, str) and title else self._picture_heading(),
            **kwargs,
        )

    def _picture_heading(self) -> str:
        n = getattr(self, "n", 1)  # AnDE(n=2) draws the AODE networks it falls back to
        return type(self).__name__ + ("" if n == 1 else f"(n={n}), its AODE fallback")

    def explorer_spec(self, title: str | None = None, *, super_parent: Any = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`) of one super-parent's
        network, ``super_parent`` (default: the feature most informative about the class,
        ``I(class; x_i)`` under its network): its class posterior is that network's, not
        the average over super-parents (which is no joint distribution: a missing
        super-parent is dropped from the average, not summed out), as the title says."""
        from ..viz._page_spec import information, label, network_spec, require_fitted, title_of

        require_fitted(self)
        self._require_fitted()  # a partial_fit call after the first: learn its counts now
        models, cls = self.models_, self.class_name_
        if super_parent is None:

            def class_information(sp: Hashable) -> float:
                m = models[sp]
                return information(np.asarray(m.cpt(cls), dtype=float)[:, None] * m.cpt(sp))

            super_parent = max(models, key=class_information)
        elif super_parent not in models:
            raise TreelearnError(
                f"super_parent={super_parent!r} is not a feature of this "
                f"{type(self).__name__}; its super-parents: {list(models)[:20]}"
            )
        model = models[super_parent]
        n = len(model.variables)
        parts = [
            f"{n} variables",
            f"super-parent {label(super_parent)} (this network alone, not the average)",
        ]
        if title is None:
            title = title_of(type(self).__name__, parts, model.n_rows)
        return network_spec(model, title, cls=cls)

    def to_dot(self, **kwargs: Any) -> str:
        """Graphviz DOT: one titled cluster per super-parent's network."""
        self.require("draw")
        from ..viz._draw import panels_to_dot

        models = self.models_
        return panels_to_dot(
            list(models.values()), [f"super-parent {sp}" for sp in models], **kwargs
        )

    def to_mermaid(self, **kwargs: Any) -> str:
        """A Mermaid flowchart: one titled subgraph per super-parent's network."""
        self.require("draw")
        from ..viz._draw import panels_to_mermaid

        models = self.models_
        return panels_to_mermaid(
            list(models.values()), [f"super-parent {sp}" for sp in models], **kwargs
        )

    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then which features qualify as super-parents (each one's network
        is the class over every feature, and the super-parent over every other feature)."""
        yield from super()._text_lines(digits)
        yield self._average_line()

    def _average_line(self) -> str:
        return (
            f"the average of {self.n_features_in_} one-dependence networks: each feature a "
            f"super-parent (a parent of every other feature, beside the class) where its value "
            f"was seen at least min_count={self.min_count} times"
        )

    @property
    def n_parameters(self) -> int:
        """Free parameters: every super-parent network's (each has its own joint ``P(y, x_i)``)."""
        return sum(m.n_parameters for m in self.models_.values())

    def super_parents(self, X: Any) -> np.ndarray:
        """Boolean ``(rows, features)``: which features act as super-parents for each row:
        ``x_i`` observed and ``N(x_i) >= min_count`` (the set ``S(x)`` of the formula).

        >>> import pandas as pd, treelearn as tl
        >>> X = pd.DataFrame({"a": ["u", "u", "v"], "b": [0, 1, 1]})
        >>> clf = tl.AODE(min_count=2).fit(X, [0, 1, 1])
        >>> clf.super_parents(pd.DataFrame({"a": ["u", "v"], "b": [1, None]})).tolist()
        [[True, True], [False, False]]
        """
        self._require_fitted()
        codes = self._prediction_input(X)
        offsets = offsets_of(self._cards)
        out = codes >= 0
        cols = np.nonzero(out)
        out[cols] = self.qualifies_[offsets[cols[1]] + codes[cols]]
        return out
