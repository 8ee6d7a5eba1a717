"""Learning cutset networks, and bagged ensembles of them.

A cutset network (:class:`~treelearn.CutsetModel`) conditions on one
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
from typing import Any, ClassVar, cast

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order

from .._base.errors import TreelearnError
from .._base.jsonvalues import decode_dtype, encode_dtype
from .._base.persistence import SavedState
from .._base.validation import Interval, Options
from ..encoding._table import DEFAULT_MAX_STATES, Table
from ..inference._engine import decode_codes
from ..models._cutset import CutsetModel, Leaf, Split
from ..models._mixture import MixtureModel
from ..sources._count import in_memory_table
from ..sources._kinds import kind_of, match_features
from ..sources._passes import InMemoryRows
from ..stats._counts import CountedTable, PairCounts, pair_counts
from ..stats._information import mutual_information_matrix
from ..stats._settings import LearningSettings
from ..structure._trees import spanning_tree_edges
from ._chow_liu import chow_liu_from_counts
from ._density import SMOOTHING, SOURCE_OPTIONS, DensityEstimator, run_starts

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

    @property
    def pairs(self) -> PairCounts:
        """``counts``, which every node with a column has (the growing reads them)."""
        assert self.counts is not None  # None only where no column is left
        return self.counts


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
        ll = float(np.where(root > 0, root * log_root, 0.0).sum())  # 0 log 0 = 0, no warning
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
        assert counts is not None  # the branches count every node with a column
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
        o = node.pairs.offsets
        seen = np.diagonal(node.pairs.joint) > 0
        varied = np.add.reduceat(seen, o[:-1]) > 1  # two states with rows: a split can tell
        if not varied.any():
            return []
        if self.split == "random":
            return [int(self.rng.choice(np.flatnonzero(varied)))]
        assert node.mi is not None  # a node with columns has its tree's MI
        score = np.where(varied, node.mi.sum(axis=1), -np.inf)
        order = np.argsort(-score, kind="stable")
        return [int(i) for i in order[: self.n_candidates] if np.isfinite(score[i])]

    def branches(self, codes: np.ndarray, w: np.ndarray, node: _Node, pos: int) -> list:
        """The child node of every state of ``node.free[pos]``: ``[(rows, node)]``."""
        v = int(node.free[pos])
        rest = np.delete(node.free, pos)
        x = codes[:, v]
        rows = [x == a for a in range(len(self.states[v]))]
        n_a = node.pairs.marginal(pos)
        whole = node.pairs.joint.dtype.kind in "iu"
        derived = int(np.argmax(n_a)) if whole and len(rest) else -1
        counts = [
            None if b == derived or not len(rest) else self.counts(codes[r], w[r], rest)
            for b, r in enumerate(rows)
        ]
        if derived >= 0:  # exact integers: the node's counts minus the other branches'
            o = node.pairs.offsets
            keep = np.delete(np.arange(o[-1]), np.arange(o[pos], o[pos + 1]))
            joint = node.pairs.joint[np.ix_(keep, keep)].copy()
            for c in counts:
                if c is not None:
                    joint -= c.joint
            counts[derived] = PairCounts(
                joint,
                node.pairs.cardinalities[np.arange(len(node.free)) != pos],
                int(n_a[derived]),
            )
        return [(r, self.node(rest, c)) for r, c in zip(rows, counts)]

    def grow(self, codes: np.ndarray, w: np.ndarray, node: _Node, depth: int) -> Leaf | Split:
        if depth >= self.max_depth or len(node.free) < 2 or node.pairs.n_rows < self.min_rows:
            return self.leaf(node)
        best = None
        for pos in self.candidates(node):
            k = len(self.states[int(node.free[pos])])
            n_a = node.pairs.marginal(pos).astype(float)
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
        del node  # its counts are not needed below: only the branches' are held
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
class CutsetNetwork(DensityEstimator):
    """A cutset network (or a bagged ensemble of them): conditioning on variables top-down,
    Chow-Liu trees at the leaves; exact likelihoods, marginals, conditionals, MAP and
    sampling.

    Parameters
    ----------
    max_depth : int, default=10
        The most conditioning nodes on a way down (0: one Chow-Liu tree); the default 10
        is the DEBD runs' (``benchmarks/bench_density.py``), pruned there on the
        validation rows.
    min_rows : float, default=100
        A node with fewer rows (total weight) is a leaf.
    split : {"greedy", "random"}, default="greedy"
        ``"greedy"`` (the variable whose branches' trees fit best, among the
        ``n_candidates`` of most mutual information with the others) or ``"random"``.
    n_candidates : int, default=4
        Greedy: how many variables are tried at each node.
    penalty : {"bic"} or None, default=None
        ``None`` (default): keep a split that raises the training log-likelihood at
        all (``min_rows`` and ``max_depth`` bound the growth, ``validation=`` prunes it);
        ``"bic"``: only if the gain exceeds its BIC cost ``(extra parameters / 2) ln n``
        (a network that needs no validation rows, smaller and less accurate).
    alpha : float, default=1.0
        Lidstone pseudocount of the leaves' CPTs and the branch probabilities.
    mi_alpha : float, default=None
        Pseudocount of the pairwise joint the trees are chosen from.
    n_estimators : int, default=1
        Networks in the ensemble (1: one network), each learned on a bootstrap
        sample of ``max_samples`` times the rows, averaged with equal weights.
    max_samples : float, default=1.0
        The bootstrap sample's size, as a fraction of the rows.
    random_state : int, numpy.random.Generator or None, default=None
        Int, ``np.random.Generator`` or None.
    states : dict, default=None
        As for :func:`treelearn.chow_liu`.
    missing : {"error", "drop"}, default="error"
        ``"error"`` or ``"drop"`` (incomplete rows dropped) for training; scoring sums
        missing cells out.
    max_states : int, default=100
        As for :func:`treelearn.chow_liu`.
    n_jobs : int, default=None
        Joblib workers for the ensemble's networks.

    Attributes
    ----------
    model_ : the fitted :class:`~treelearn.CutsetModel` (one network), or the
        :class:`~treelearn.MixtureModel` of the ensemble's networks; every answer is its.
    networks_ : the fitted :class:`~treelearn.CutsetModel` (s).
    weights_ : their weights (equal).
    feature_names_in_, n_features_in_ : the columns learned from.

    See Also
    --------
    ChowLiuTree : the leaves' model.
    TreeMixture : another way past one tree.

    References
    ----------
    .. [1] Rahman, T., Kothalkar, P. and Gogate, V. (2014). Cutset networks: a simple,
       tractable, and scalable approach for improving the accuracy of Chow-Liu trees. In
       Machine Learning and Knowledge Discovery in Databases (ECML PKDD), 630-645.

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

    #: what it answers (:class:`~treelearn.models._base.Capable`: the explorer asks it)
    #: an ensemble has no exact MAP: ``map`` is its single networks' (``networks_[k]``)
    capabilities = frozenset(
        {"score", "sample", "sample_given", "query", "predict", "draw", "explorer"}
    )

    def __init__(
        self,
        max_depth: int = 10,
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

    _parameter_constraints: ClassVar[dict] = {
        "max_depth": [Interval(Integral, 0, None)],
        "min_rows": [Interval(Real, 0, None)],
        "split": [Options("greedy", "random")],
        "n_candidates": [Interval(Integral, 1, None)],
        "penalty": [None, Options("bic")],
        **SMOOTHING,
        "n_estimators": [Interval(Integral, 1, None)],
        "max_samples": [Interval(Real, 0, 1, closed="right")],
        **SOURCE_OPTIONS,
        "missing": [Options("error", "drop")],
    }
    _parameter_notes: ClassVar[dict] = {
        **DensityEstimator._parameter_notes,
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
        params = self._checked_params()
        passes = cast(InMemoryRows, self._passes(X, params, sample_weight))
        table = passes.table  # in memory (a file read whole): the growth revisits subsets
        assert table is not None
        codes = table.codes.astype(np.int64)
        w = np.ones(len(codes)) if table.weights is None else np.asarray(table.weights, float)
        valid = self._validation(validation, passes)
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
            validation=None if valid is None else valid.astype(np.int64),
        )

        def one(job: tuple) -> CutsetModel:
            weights, seed = job
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

        networks = run_starts(one, jobs, params["n_jobs"])
        self.model_ = networks[0] if B == 1 else MixtureModel(networks, np.full(B, 1.0 / B))
        self._set_features(passes.columns)
        return self

    # ------------------------------------------------------------ the model's parts
    @property
    def networks_(self) -> list:
        """The fitted network(s): ``[model_]``, or the ensemble's ``model_.components``."""
        model = self._fitted_model()
        return [model] if isinstance(model, CutsetModel) else list(model.components)

    @property
    def weights_(self) -> np.ndarray:
        """The networks' weights (equal)."""
        model = self._fitted_model()
        return np.ones(1) if isinstance(model, CutsetModel) else model.weights

    # ------------------------------------------------------------ answers: the model's
    def _rows(self, X: Any) -> pd.DataFrame:
        """``X`` as a DataFrame of the fitted features; a ``scipy.sparse`` 0/1 matrix as fit
        reads it (its dense 0/1 values, columns by position)."""
        model = self._fitted_model()
        if isinstance(X, pd.DataFrame) or kind_of(X).name != "sparse":
            return super()._rows(X)
        X = match_features(
            X,
            names=list(self.feature_names_in_),
            n_features=self.n_features_in_,
            estimator="CutsetNetwork",
        )
        codes = in_memory_table(
            X, learner="CutsetNetwork", states=model.states, names=model.variables
        ).codes
        return decode_codes(codes, model.variables, model.states, model.dtypes)

    def predict_proba(self, X: Any, target: Hashable) -> pd.DataFrame:
        """``P(target | the row's other observed cells)`` for every row, exactly."""
        self.require("predict")
        return self._fitted_model().predict_proba(self._rows(X), target)

    def predict(self, X: Any, target: Hashable | None = None) -> pd.Series | pd.DataFrame:
        """With ``target``, each row's most probable state of it given the row's other
        observed cells; without, ``X`` with every missing cell filled by its most probable
        state given the row's observed cells (each cell's exact marginal)."""
        model = self._fitted_model()
        if target is not None:
            return model.predict(self._rows(X), target)
        rows = self._rows(X)
        filled = rows.copy()
        for v in rows.columns[rows.isna().any().to_numpy()]:
            holes = rows[v].isna().to_numpy()
            guess = model.predict(rows[holes], v)
            filled.loc[holes, v] = guess.to_numpy()
        return filled

    def map_query(
        self, evidence: Mapping[Hashable, Any] | None = None, return_log_prob: bool = False
    ) -> dict | tuple[dict, float]:
        """The most probable assignment of every variable not in ``evidence``: exact for one
        network. An ensemble is a mixture, whose MAP no network's search finds: refused."""
        model = self._fitted_model()
        if not model.supports("map"):
            raise TreelearnError(
                "map_query is exact for one cutset network; the most probable "
                "assignment of an ensemble (a mixture) is not: ask a member, "
                "e.g. est.networks_[0].map_query(evidence)"
            )
        return model.map_query(evidence, return_log_prob)

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page of :attr:`model_` (:meth:`CutsetModel.explorer_spec
        <treelearn.CutsetModel.explorer_spec>`, or for an ensemble
        :meth:`MixtureModel.explorer_spec <treelearn.MixtureModel.explorer_spec>`)."""
        from ..viz._page_spec import require_fitted

        require_fitted(self, "fit(X)")
        return self.model_.explorer_spec(title)

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
        networks = self.networks_
        first = networks[0]
        return {
            "networks": [net.to_dict() for net in networks],
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
        if len(networks) != self.n_estimators:
            raise saved.fail("networks", f"must hold n_estimators={self.n_estimators} networks")
        weights = saved.array("weights", (len(networks),), low=0, normalised=0)
        model = networks[0] if len(networks) == 1 else MixtureModel(networks, weights)
        self._restore_model(saved, model, "networks")
