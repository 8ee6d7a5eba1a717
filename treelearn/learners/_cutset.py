"""Learning cutset networks, and bagged ensembles of them.

A cutset network (:class:`~treelearn.models._cutset.CutsetModel`) conditions on one
variable at a time, top-down, and puts a Chow-Liu tree over the variables left at each
leaf (Rahman, Kothalkar & Gogate, ECML 2014). Learning grows the OR-tree greedily:

* at a node, every variable is ranked by how much conditioning on it would lower the
  entropy of the variables left if they were independent, ``sum_j I(X_v; X_j)`` (read
  off the node's pair counts, which its own Chow-Liu tree needed anyway); the best
  ``n_candidates`` are tried for real: the Chow-Liu trees of each branch are learned,
  and the variable whose branches' trees reach the highest training log-likelihood
  (the lowest leaf-tree entropy) wins. ``split="random"`` draws the variable at random
  instead (Di Mauro et al.'s extremely randomized cutset networks);
* a split is kept when it raises the training log-likelihood (by more than its BIC cost
  with ``penalty="bic"``), and growing stops at ``max_depth`` or below ``min_rows`` rows;
* with ``validation=``, the grown network is pruned bottom-up: a split whose leaf tree
  scores the validation rows reaching it at least as well as its branches is undone.

``n_estimators > 1`` learns that many networks, each on a bootstrap sample of the rows
(drawn as integer row weights, no copy of the data), and averages them with equal
weights: the bagged (or, with ``split="random"``, extremely randomized) cutset networks
of Di Mauro, Vergari & Esposito (2015/17). Every network learns from the counts of the
one chunked product (:func:`~treelearn.learners._chow_liu.chow_liu_from_counts`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils.validation import check_is_fitted

from .._base.errors import ColumnNotFoundError, TreelearnError
from .._base.jsonvalues import decode_dtype, encode_dtype
from .._base.limits import check_memory
from .._base.logspace import logsumexp
from .._base.persistence import Persistent, SavedState
from .._base.validation import (
    RANDOM_STATE,
    InstanceOf,
    Interval,
    Options,
    check_param,
    check_params,
)
from ..encoding._bins import binned_numbers
from ..encoding._table import DEFAULT_MAX_STATES, CategoricalTableInput, Table
from ..inference._engine import decode_codes
from ..models._base import Capable
from ..models._cutset import CutsetModel, Leaf, Split, query_rows
from ..sources._count import in_memory_table
from ..sources._kinds import as_frame, kind_of, match_features
from ..sources._passes import row_passes
from ..stats._counts import CountedTable, PairCounts, pair_counts
from ..stats._information import mutual_information_matrix
from ..stats._settings import LearningSettings
from ..structure._trees import spanning_tree_edges
from ._chow_liu import chow_liu_from_counts
from ._density import N_JOBS, DensityScores, most_probable

__all__ = ["CutsetNetwork", "grow_cutset", "tree_fit"]


# ---------------------------------------------------------------------- growing one network
@dataclass
class _Node:
    """The rows reaching a node, as statistics: their pair counts over the columns ``free``
    (still to be modelled there) and what the Chow-Liu tree of those counts scores."""

    free: np.ndarray
    counts: PairCounts | None  # None: no column left
    ll: float  # the tree's training log-likelihood of the rows
    mi: np.ndarray | None
    n_parameters: int


def tree_fit(
    counts: PairCounts, alpha: float, mi_alpha: float | None
) -> tuple[float, np.ndarray, int]:
    """``(training log-likelihood, MI matrix, free parameters)`` of the Chow-Liu tree that
    :func:`~treelearn.learners._chow_liu.chow_liu_from_counts` learns from ``counts`` (no
    missing cells; Lidstone ``alpha``; the tree chosen on the ``mi_alpha``-smoothed MI by
    the one spanning-tree routine, rooted at the first column), read off the counts: no
    model is built. ``sum N_ij(a, b) log((N_ij(a, b) + alpha) / (N_i(a) + k_j alpha))`` over
    every edge ``i -> j`` at once (the edges' blocks gathered into one padded array).

    >>> import pandas as pd, treelearn as tl
    >>> from treelearn.encoding._table import encode
    >>> from treelearn.stats._counts import pair_counts
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> ll, _, n_par = tree_fit(pair_counts(encode(df)), 1.0, None)
    >>> tree = tl.chow_liu(df)
    >>> bool(abs(ll - tree.log_likelihood(df)) < 1e-9 * len(df)), n_par == tree.n_parameters
    (True, True)
    """
    mi = mutual_information_matrix(counts, mi_alpha)
    d = counts.n_variables
    k = counts.cardinalities
    o = counts.offsets
    root = np.diagonal(counts.block(0, 0)).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_root = np.log(root + alpha) - np.log(root.sum() + alpha * k[0])
    ll = float(np.where(root > 0, root * log_root, 0.0).sum())
    n_parameters = int(k[0] - 1)
    if d > 1:
        edges = np.array(spanning_tree_edges(mi))
        graph = csr_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(d, d))
        _, parent = breadth_first_order(graph, 0, directed=False, return_predecessors=True)
        child = np.arange(1, d)
        up = parent[child]
        # every edge's block N_ij (parent states x child states), padded to the most states
        s = np.arange(int(k.max()))
        inside = (s[None, :, None] < k[up][:, None, None]) & (
            s[None, None, :] < k[child][:, None, None]
        )
        last = o[-1] - 1
        N = np.where(
            inside,
            counts.joint[
                np.minimum(o[up][:, None, None] + s[None, :, None], last),
                np.minimum(o[child][:, None, None] + s[None, None, :], last),
            ],
            0,
        ).astype(float)
        den = N.sum(axis=2, keepdims=True) + alpha * k[child][:, None, None]  # N_i(a) + k_j a
        seen = N > 0  # 0 log 0 = 0: an unseen cell adds nothing whatever its CPT entry
        ll += float(
            np.sum(
                N[seen] * (np.log(N[seen] + alpha) - np.log(np.broadcast_to(den, N.shape)[seen]))
            )
        )
        n_parameters += int(((k[child] - 1) * k[up]).sum())
    return ll, mi, n_parameters


@dataclass
class _Grower:
    """The options of one network's growth, and the leaf trees it learns.

    Choosing a split needs only each branch's tree fit, read off the branch's pair counts
    (:func:`tree_fit`); a :class:`TreeModel` is built only for the leaves kept (and, to
    prune on validation rows, for the trees a split replaces). The counts of a variable's
    largest branch are the node's minus the others' when they are whole (row counts or
    bootstrap weights: exact), so a split costs a product over its smaller branches' rows.
    """

    columns: tuple
    states: tuple
    dtypes: tuple
    settings: LearningSettings
    max_depth: int
    min_rows: float
    split: str
    n_candidates: int
    penalty: str | None
    n_total: float
    rng: np.random.Generator
    keep_alternatives: bool = False
    alternatives: dict = field(default_factory=dict)  # id(split) -> the leaf it replaced

    def node(self, free: np.ndarray, counts: PairCounts | None) -> _Node:
        if not len(free):
            return _Node(free, None, 0.0, None, 0)
        ll, mi, n_parameters = tree_fit(counts, self.settings.alpha, self.settings.mi_alpha)
        return _Node(free, counts, ll, mi, n_parameters)

    def counts(self, codes: np.ndarray, w: np.ndarray, free: np.ndarray) -> PairCounts:
        """The pair counts of the rows over the columns ``free`` (one chunked product)."""
        table = Table(
            codes[:, free],
            tuple(self.columns[j] for j in free),
            tuple(self.states[j] for j in free),
            (),
            w,
        )
        return pair_counts(table)

    def leaf(self, node: _Node) -> Leaf:
        """The node's Chow-Liu tree, as a leaf."""
        if node.counts is None:
            return Leaf(node.free, None)
        free = node.free
        stats = CountedTable(
            tuple(self.columns[j] for j in free),
            tuple(self.states[j] for j in free),
            tuple(self.dtypes[j] for j in free) if self.dtypes else (),
            pairs=node.counts,
        )
        tree = chow_liu_from_counts(stats, self.settings)
        tree.learner = None  # partial_fit of a leaf would not update the network
        return Leaf(free, tree)

    def candidates(self, node: _Node) -> list:
        """Positions (in ``node.free``) of the variables worth conditioning on, best first."""
        o = node.counts.offsets
        seen = np.diagonal(node.counts.joint) > 0
        varied = np.add.reduceat(seen, o[:-1]) > 1  # two states with rows: a split can tell
        if not varied.any():
            return []
        if self.split == "random":
            return [int(self.rng.choice(np.flatnonzero(varied)))]
        score = np.where(varied, node.mi.sum(axis=1), -np.inf)
        order = np.argsort(-score, kind="stable")
        return [int(i) for i in order[: self.n_candidates] if np.isfinite(score[i])]

    def branches(self, codes: np.ndarray, w: np.ndarray, node: _Node, pos: int) -> list:
        """The child node of every state of ``node.free[pos]``: ``[(rows, node)]``."""
        v = int(node.free[pos])
        rest = np.delete(node.free, pos)
        x = codes[:, v]
        rows = [x == a for a in range(len(self.states[v]))]
        n_a = node.counts.marginal(pos)
        whole = node.counts.joint.dtype.kind in "iu"
        derived = int(np.argmax(n_a)) if whole and len(rest) else -1
        counts = [
            None if b == derived or not len(rest) else self.counts(codes[r], w[r], rest)
            for b, r in enumerate(rows)
        ]
        if derived >= 0:  # exact integers: the node's counts minus the other branches'
            o = node.counts.offsets
            keep = np.delete(np.arange(o[-1]), np.arange(o[pos], o[pos + 1]))
            joint = node.counts.joint[np.ix_(keep, keep)].copy()
            for c in counts:
                if c is not None:
                    joint -= c.joint
            counts[derived] = PairCounts(
                joint,
                node.counts.cardinalities[np.arange(len(node.free)) != pos],
                int(n_a[derived]),
            )
        return [(r, self.node(rest, c)) for r, c in zip(rows, counts)]

    def grow(self, codes: np.ndarray, w: np.ndarray, node: _Node, depth: int) -> Leaf | Split:
        if depth >= self.max_depth or len(node.free) < 2 or node.counts.n_rows < self.min_rows:
            return self.leaf(node)
        best = None
        for pos in self.candidates(node):
            k = len(self.states[int(node.free[pos])])
            n_a = node.counts.marginal(pos).astype(float)
            weights = (n_a + self.settings.alpha) / (n_a.sum() + k * self.settings.alpha)
            if (weights == 0).any():  # maximum likelihood and an empty branch: no branch there
                weights = np.where(n_a > 0, weights, 0.0)
            branches = self.branches(codes, w, node, pos)
            with np.errstate(divide="ignore"):
                total = sum(
                    child.ll + (n_a[a] * np.log(weights[a]) if n_a[a] > 0 else 0.0)
                    for a, (_, child) in enumerate(branches)
                )
            cost = 0.0
            if self.penalty == "bic":
                extra = k - 1 + sum(c.n_parameters for _, c in branches) - node.n_parameters
                cost = 0.5 * extra * np.log(self.n_total)
            gain = total - node.ll - cost
            if gain > 0 and (best is None or gain > best[0]):
                best = (gain, int(node.free[pos]), weights, branches)
        if best is None:
            return self.leaf(node)
        _, v, weights, branches = best
        replaced = self.leaf(node) if self.keep_alternatives else None
        node = None  # its counts are not needed below: only the branches' are held
        children = [self.grow(codes[rows], w[rows], child, depth + 1) for rows, child in branches]
        split = Split(v, weights, children)
        self.alternatives[id(split)] = replaced
        return split

    def prune(self, node: Leaf | Split, codes: np.ndarray) -> tuple[Leaf | Split, float]:
        """Undo, bottom-up, every split whose leaf tree scores the validation rows ``codes``
        reaching it at least as well; returns the node and that score."""
        if isinstance(node, Leaf):
            return node, _leaf_score(node, codes)
        x = codes[:, node.variable]
        total, children = 0.0, []
        with np.errstate(divide="ignore"):
            log_w = np.log(node.weights)
        for a, child in enumerate(node.children):
            rows = x == a
            pruned, score = self.prune(child, codes[rows])
            children.append(pruned)
            total += score + (rows.sum() * log_w[a] if rows.any() else 0.0)
        leaf = self.alternatives[id(node)]
        # rows missing the conditioning variable: scored by both, not part of the decision
        seen = x >= 0
        alone = _leaf_score(leaf, codes[seen])
        if alone >= total:
            return leaf, _leaf_score(leaf, codes)
        return Split(node.variable, node.weights, children), total


def _leaf_score(leaf: Leaf, codes: np.ndarray) -> float:
    if leaf.tree is None or not len(codes):
        return 0.0
    return float(leaf.tree.log_likelihood_codes(codes[:, leaf.columns]).sum())


def grow_cutset(
    codes: np.ndarray,
    weights: np.ndarray,
    columns: tuple,
    states: tuple,
    dtypes: tuple,
    *,
    settings: LearningSettings,
    max_depth: int,
    min_rows: float,
    split: str = "greedy",
    n_candidates: int = 4,
    penalty: str | None = None,
    rng: np.random.Generator | None = None,
    validation: np.ndarray | None = None,
) -> CutsetModel:
    """One cutset network learned from encoded rows (``weights``: one per row), see the
    module docstring; with ``validation`` codes, pruned on them."""
    grower = _Grower(
        columns,
        states,
        dtypes,
        settings,
        max_depth,
        float(min_rows),
        split,
        n_candidates,
        penalty,
        float(weights.sum()),
        rng if rng is not None else np.random.default_rng(0),
        keep_alternatives=validation is not None,
    )
    free = np.arange(len(columns))
    root = grower.grow(codes, weights, grower.node(free, grower.counts(codes, weights, free)), 0)
    if validation is not None:
        root, _ = grower.prune(root, validation)
    return CutsetModel(root, columns, states, dict(zip(columns, dtypes)) if dtypes else None)


# ---------------------------------------------------------------------- the estimator
class CutsetNetwork(
    Persistent, Capable, DensityScores, CategoricalTableInput, DensityMixin, BaseEstimator
):
    """A cutset network (or a bagged ensemble of them): conditioning on variables top-down,
    Chow-Liu trees at the leaves; exact likelihoods, marginals, conditionals, MAP and
    sampling.

    Parameters
    ----------
    max_depth : the most conditioning nodes on a way down (0: one Chow-Liu tree).
    min_rows : a node with fewer rows (total weight) is a leaf.
    split : ``"greedy"`` (the variable whose branches' trees fit best, among the
        ``n_candidates`` of most mutual information with the others) or ``"random"``.
    n_candidates : greedy: how many variables are tried at each node.
    penalty : ``None`` (default): keep a split that raises the training log-likelihood at
        all (``min_rows`` and ``max_depth`` bound the growth, ``validation=`` prunes it);
        ``"bic"``: only if the gain exceeds its BIC cost ``(extra parameters / 2) ln n``
        (a network that needs no validation rows, smaller and less accurate).
    alpha : Lidstone pseudocount of the leaves' CPTs and the branch probabilities.
    mi_alpha : pseudocount of the pairwise joint the trees are chosen from.
    n_estimators : networks in the ensemble (1: one network), each learned on a bootstrap
        sample of ``max_samples`` times the rows, averaged with equal weights.
    max_samples : the bootstrap sample's size, as a fraction of the rows.
    random_state : int, ``np.random.Generator`` or None.
    states, missing, max_states : as for :func:`treelearn.chow_liu` (``missing``: ``"error"``
        or ``"drop"`` for training; scoring sums missing cells out).
    n_jobs : joblib workers for the ensemble's networks.

    Attributes
    ----------
    networks_ : the fitted :class:`~treelearn.models._cutset.CutsetModel` (s).
    weights_ : their weights (equal).
    feature_names_in_, n_features_in_ : the columns learned from.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> net = tl.CutsetNetwork(max_depth=2).fit(df)
    >>> bool(net.score(df) >= tl.chow_liu(df).log_likelihood(df) / len(df))
    True
    >>> net.query("lung", evidence={"smoke": "yes"}).round(3).tolist()   # the data: 0.904, 0.096
    [0.904, 0.096]
    """

    #: what a fitted cutset network answers, one network or an ensemble (a mixture, whose
    #: most probable completion is not computed: a member's is, ``networks_[k].map_query``)
    capabilities = frozenset({"score", "sample", "sample_given", "query", "predict", "explorer"})

    def __init__(
        self,
        max_depth: int = 8,
        min_rows: float = 100,
        split: str = "greedy",
        n_candidates: int = 4,
        penalty: str | None = None,
        alpha: float = 1.0,
        mi_alpha: float | None = None,
        n_estimators: int = 1,
        max_samples: float = 1.0,
        random_state: int | np.random.Generator | None = None,
        states: Mapping[Hashable, Sequence] | None = None,
        missing: str = "error",
        max_states: int = DEFAULT_MAX_STATES,
        n_jobs: int | None = None,
    ) -> None:
        self.max_depth = max_depth
        self.min_rows = min_rows
        self.split = split
        self.n_candidates = n_candidates
        self.penalty = penalty
        self.alpha = alpha
        self.mi_alpha = mi_alpha
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.random_state = random_state
        self.states = states
        self.missing = missing
        self.max_states = max_states
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = False
        return tags

    _parameter_constraints: ClassVar[dict] = {
        "max_depth": [Interval(Integral, 0, None)],
        "min_rows": [Interval(Real, 0, None)],
        "split": [Options("greedy", "random")],
        "n_candidates": [Interval(Integral, 1, None)],
        "penalty": [None, Options("bic")],
        "alpha": [Interval(Real, 0, None)],
        "mi_alpha": [None, Interval(Real, 0, None)],
        "n_estimators": [Interval(Integral, 1, None)],
        "max_samples": [Interval(Real, 0, 1, closed="right")],
        "random_state": RANDOM_STATE,
        "states": [None, InstanceOf(Mapping, name="a dict {column: [states]}")],
        "missing": [Options("error", "drop")],
        "max_states": [Interval(Integral, 1, None)],
        "n_jobs": N_JOBS,
    }
    _parameter_notes: ClassVar[dict] = {
        "alpha": "0 = maximum likelihood, 1 = Laplace",
        "missing": "scoring sums missing cells out whatever this is",
    }

    # ------------------------------------------------------------ fitting
    def fit(
        self, X: Any, y: Any = None, sample_weight: Any = None, *, validation: Any = None
    ) -> CutsetNetwork:
        """Learn the network(s) from the rows of ``X`` (``y`` is ignored); returns self.

        ``X``: any table kind (a file is read whole and a Dask DataFrame computed: the growth
        revisits subsets of the rows). ``validation``: held-out rows that prune each network.
        """
        params = check_params(self.get_params(), self._parameter_constraints, self._parameter_notes)
        passes = row_passes(
            X,
            learner="CutsetNetwork",
            missing=params["missing"],
            max_states=params["max_states"],
            states=params["states"],
            sample_weight=sample_weight,
        )
        table = passes.table  # in memory (a file read whole): the growth revisits subsets
        codes = table.codes.astype(np.int64)
        w = np.ones(len(codes)) if table.weights is None else np.asarray(table.weights, float)
        valid = None if validation is None else _validation_codes(validation, passes)
        settings = LearningSettings(
            method="cutset network leaf", alpha=params["alpha"], mi_alpha=params["mi_alpha"]
        )
        rng = np.random.default_rng(params["random_state"])
        B = params["n_estimators"]
        jobs = []
        for _ in range(B):  # every draw made here, in order: the same networks with any n_jobs
            if B == 1:
                weights = w
            else:
                size = max(1, round(params["max_samples"] * w.sum()))
                weights = rng.multinomial(size, w / w.sum()).astype(float)
            jobs.append((weights, np.random.default_rng(rng.integers(2**63))))
        options = dict(
            settings=settings,
            max_depth=params["max_depth"],
            min_rows=params["min_rows"],
            split=params["split"],
            n_candidates=params["n_candidates"],
            penalty=params["penalty"],
            validation=valid,
        )

        def one(weights: np.ndarray, seed: np.random.Generator) -> CutsetModel:
            keep = weights > 0
            return grow_cutset(
                codes[keep],
                weights[keep],
                passes.columns,
                passes.states,
                passes.dtypes,
                rng=seed,
                **options,
            )

        if params["n_jobs"] is None or B == 1:
            self.networks_ = [one(*job) for job in jobs]
        else:
            from joblib import Parallel, delayed

            self.networks_ = Parallel(n_jobs=params["n_jobs"])(delayed(one)(*job) for job in jobs)
        self.weights_ = np.full(B, 1.0 / B)
        self.feature_names_in_ = np.asarray(passes.columns, dtype=object)
        self.n_features_in_ = len(passes.columns)
        return self

    # ------------------------------------------------------------ scoring and queries
    def _codes(self, X: Any) -> np.ndarray:
        check_is_fitted(self)
        X = match_features(
            X,
            names=self.feature_names_in_,
            n_features=self.n_features_in_,
            estimator="CutsetNetwork",
        )
        return _network_codes(X, self.networks_[0])

    def _log_joint(self, codes: np.ndarray) -> np.ndarray:
        """``log P(observed cells)`` of coded rows under the ensemble."""
        if len(self.networks_) == 1:
            return self.networks_[0].log_likelihood_codes(codes)
        with np.errstate(divide="ignore"):
            parts = np.column_stack(
                [
                    np.log(w) + net.log_likelihood_codes(codes)
                    for w, net in zip(self.weights_, self.networks_)
                ]
            )
        return logsumexp(parts, axis=1)

    def score_samples(self, X: Any) -> np.ndarray:
        """Log-likelihood of each row (nats); missing cells are summed out exactly."""
        return self._log_joint(self._codes(X))

    @property
    def n_parameters(self) -> int:
        """Free parameters of every network, and the ensemble's ``B - 1`` weights."""
        check_is_fitted(self)
        return sum(net.n_parameters for net in self.networks_) + len(self.networks_) - 1

    def query(
        self,
        variables: Sequence[Hashable] | Hashable,
        evidence: Mapping[Hashable, Any] | None = None,
    ) -> pd.Series:
        """Exact ``P(variables | evidence)`` under the network (or ensemble)."""
        check_is_fitted(self)
        return query_rows(self._log_joint, self.networks_[0], variables, evidence)

    def predict_proba(self, X: Any, target: Hashable) -> pd.DataFrame:
        """``P(target | the row's other observed cells)`` for every row, exactly."""
        codes = self._codes(X)
        columns = list(self.feature_names_in_)
        if target not in columns:
            raise ColumnNotFoundError(
                f"{target!r} is not a column; the columns are {columns}", column=target
            )
        states = self.networks_[0].states[target]
        proba = self._posterior_codes(codes, columns.index(target))
        index = X.index if isinstance(X, pd.DataFrame) else None  # rows by position otherwise
        return pd.DataFrame(proba, columns=states, index=index)

    def _posterior_codes(self, codes: np.ndarray, j: int) -> np.ndarray:
        """``P(column j | each row's other observed cells)``, ``(rows, states)``: every
        row scored once per state of column ``j``."""
        k = len(self.networks_[0].states[self.networks_[0].columns[j]])
        check_memory(
            8.0 * len(codes) * k * codes.shape[1],
            "predict_proba over every state",
            "predict fewer rows at a time",
        )
        rows = np.repeat(codes, k, axis=0)
        rows[:, j] = np.tile(np.arange(k), len(codes))
        log_p = self._log_joint(rows).reshape(len(codes), k)
        with np.errstate(invalid="ignore"):
            return np.exp(log_p - logsumexp(log_p, axis=1, keepdims=True))

    def predict(self, X: Any, target: Hashable | None = None) -> pd.DataFrame | pd.Series:
        """``X`` with every missing cell filled by its most probable state given the row's
        observed cells (each cell's exact posterior; ties to the first state), as
        :meth:`HiddenTree.predict <treelearn.HiddenTree.predict>`. With ``target`` (a
        column), its most probable state in every row given the row's other observed cells
        (the argmax of :meth:`predict_proba`), a Series.

        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> net = tl.CutsetNetwork(max_depth=2).fit(df)
        >>> rows = df.head(50)
        >>> bool((net.predict(rows, "either") == net.predict_proba(rows, "either")
        ...       .idxmax(axis=1)).all())
        True
        >>> holed = rows.head(3).copy()
        >>> holed.loc[0, "either"] = np.nan
        >>> bool(net.predict(holed).loc[0, "either"] == net.predict(holed.head(1), "either")[0])
        True
        """
        if target is not None:
            return most_probable(self.predict_proba(X, target), target)
        codes = self._codes(X)
        first = self.networks_[0]
        filled = codes.copy()
        for j in np.flatnonzero((codes < 0).any(axis=0)):  # a loop over columns, not rows
            rows = codes[:, j] < 0
            best = np.argmax(
                np.nan_to_num(self._posterior_codes(codes[rows], int(j)), nan=-1.0), axis=1
            )
            filled[rows, j] = best
        out = decode_codes(filled, first.columns, first.states, first.dtypes)
        if isinstance(X, pd.DataFrame):
            out.index = X.index
        return out

    def map_query(
        self, evidence: Mapping[Hashable, Any] | None = None, return_log_prob: bool = False
    ) -> dict | tuple[dict, float]:
        """The most probable assignment of every variable not in ``evidence``: exact for one
        network. An ensemble is a mixture, whose MAP no network's search finds: refused."""
        check_is_fitted(self)
        if len(self.networks_) > 1:
            raise TreelearnError(
                "map_query is exact for one cutset network; the most probable "
                "assignment of an ensemble (a mixture) is not: ask a member, "
                "e.g. est.networks_[0].map_query(evidence)"
            )
        return self.networks_[0].map_query(evidence, return_log_prob)

    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
    ) -> pd.DataFrame:
        """Draw ``n`` rows (a network per row by the weights, then from it), or exactly from
        ``P(. | evidence)``: each row's network from ``P(network | evidence)``, then the row
        from that network given the evidence (those columns hold the given values).
        ``numbers`` as in :meth:`TreeModel.sample <treelearn.models._tree.TreeModel.sample>`.

        >>> import pandas as pd, treelearn as tl
        >>> net = tl.CutsetNetwork(max_depth=2).fit(pd.read_csv("datasets/asia.csv"))
        >>> set(net.sample(20, random_state=0, evidence={"smoke": "yes"})["smoke"])
        {'yes'}
        """
        check_is_fitted(self)
        n = check_param("n", n, [Interval(Integral, 0, None)], note="the number of rows to draw")
        rng = np.random.default_rng(check_param("random_state", random_state, RANDOM_STATE))
        first = self.networks_[0]
        row = first.evidence_row(evidence)
        weights = self.weights_
        if (row >= 0).any():  # P(network | evidence) = w_k P_k(e) / sum_j w_j P_j(e)
            with np.errstate(divide="ignore"):
                log_p = np.log(weights) + np.array(
                    [net.log_likelihood_codes(row[None])[0] for net in self.networks_]
                )
            total = logsumexp(log_p)
            if not np.isfinite(total):
                raise TreelearnError(f"the evidence {dict(evidence or {})} has probability zero")
            weights = np.exp(log_p - total)
        per = rng.multinomial(n, weights)
        codes = np.concatenate(
            [net.sample_codes(int(m), rng, row) for net, m in zip(self.networks_, per)]
        )
        out = decode_codes(codes, first.columns, first.states, first.dtypes)
        if numbers:
            out = binned_numbers(out, codes, first.columns, first.states, rng)
        return out

    # ------------------------------------------------------------ what it is, as text, as a page
    def to_html(self, path: Any = None, **kwargs: Any) -> str | None:
        """The interactive explorer page (one forest per leaf; see
        :func:`treelearn.viz._explorer.to_html`): the page's text, or with ``path`` written
        there and ``None`` returned."""
        check_is_fitted(self)
        from ..viz._explorer import to_html

        page = to_html(self, path, **kwargs)
        return None if path is not None else page

    @property
    def variables(self) -> list:
        """The columns the network is over, in order."""
        check_is_fitted(self)
        return list(self.networks_[0].columns)

    def to_text(self, digits: int = 4) -> str:
        """The network (or each of the ensemble's) as text: its conditioning nodes with their
        branches' probabilities, and each leaf's tree (what ``treelearn show`` prints)."""
        check_is_fitted(self)
        if len(self.networks_) == 1:
            return self.networks_[0].to_text(digits)
        lines = [f"CutsetNetwork: an ensemble of {len(self.networks_)} networks, equal weights"]
        for k, net in enumerate(self.networks_):
            lines += ["", f"network {k}:", net.to_text(digits)]
        return "\n".join(lines)

    # ------------------------------------------------------------ files
    def _fitted_state(self) -> dict:
        """Every network (:meth:`CutsetModel.to_dict`), the weights, the columns' dtypes.

        >>> import pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> net = tl.CutsetNetwork(max_depth=2).fit(df)
        >>> back = tl.CutsetNetwork.from_dict(net.to_dict())
        >>> bool((back.score_samples(df) == net.score_samples(df)).all())
        True
        """
        first = self.networks_[0]
        return {
            "networks": [net.to_dict() for net in self.networks_],
            "weights": [float(w) for w in self.weights_],
            "dtypes": [encode_dtype(first.dtypes.get(c)) for c in first.columns],
        }

    def _restore_fitted(self, saved: SavedState) -> None:
        raw = saved.raw("networks", list)
        if not raw:
            raise saved.fail("networks", "is empty")
        dtypes_raw = saved.raw("dtypes", list)
        columns = list(getattr(self, "feature_names_in_", []))
        if len(dtypes_raw) != len(columns):
            raise saved.fail("dtypes", f"must hold one dtype per feature ({len(columns)})")
        try:
            dtypes = {c: decode_dtype(t) for c, t in zip(columns, dtypes_raw) if t is not None}
        except Exception as exc:
            raise saved.fail("dtypes", f"holds a value that is no saved dtype ({exc})") from None
        networks = [CutsetModel.from_dict(d, dtypes) for d in raw]
        for k, net in enumerate(networks):
            if net.columns != columns or net.states != networks[0].states:
                raise saved.fail(
                    "networks", f"network {k} has other columns or states than the features"
                )
        self.networks_ = networks
        self.weights_ = saved.array("weights", (len(networks),), low=0, normalised=0)


def _validation_codes(validation: Any, passes: Any) -> np.ndarray:
    net = CutsetModel(Leaf(np.zeros(0, dtype=np.int64), None), passes.columns, passes.states)
    if isinstance(validation, pd.DataFrame):
        absent = [c for c in passes.columns if c not in validation.columns]
        if absent:
            raise ColumnNotFoundError(f"validation= lacks the columns {absent}", column=absent[0])
    return _network_codes(validation, net)


def _network_codes(X: Any, net: CutsetModel) -> np.ndarray:
    """The codes of ``X``'s rows against ``net``'s states (``-1``: missing): a table of any
    in-memory kind, and a ``scipy.sparse`` 0/1 matrix as fit reads it (its dense 0/1 values,
    columns by position)."""
    if not isinstance(X, pd.DataFrame) and kind_of(X).name == "sparse":
        return in_memory_table(
            X, learner="CutsetNetwork", states=net.states, names=net.columns
        ).codes.astype(np.int64)
    return net.encode(as_frame(X, net.columns, learner="CutsetNetwork"))
