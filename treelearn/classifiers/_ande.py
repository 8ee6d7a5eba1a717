"""Averaged n-dependence estimators (AnDE; Webb, Boughton, Zheng, Ting and Salem, 2012):
AODE (``n=1``) and A2DE (``n=2``), two super-parents per term.

A2DE averages, over every pair of features ``i < j`` whose values ``(x_i, x_j)`` were
seen together in at least ``min_count`` training rows, the two-dependence model

``P(y, x_i, x_j) prod_{l != i, j} P(x_l | y, x_i, x_j)``,

* ``P(y, x_i, x_j) = (N(y, x_i, x_j) + alpha) / (N_ij + alpha |Y| |X_i| |X_j|)``
  (``N_ij``: the rows where both are observed),
* ``P(x_l | y, x_i, x_j) = (N(y, x_i, x_j, x_l) + alpha) / (N_l(y, x_i, x_j) + alpha |X_l|)``
  (``N_l``: those rows where ``x_l`` is observed too; nothing to go on: uniform).

Where no pair qualifies it is AODE (:class:`~treelearn.AODE`, which
itself falls back to naive Bayes), as Weka's AnDE does. The statistics are the
class-conditional triple counts ``N(y, a, b, c)`` over every three feature states:
``|Y| K^3`` numbers (``K`` the feature states), their size checked before they are
allocated.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from functools import partial
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np

from .._base.errors import TreelearnError
from .._base.limits import check_memory
from .._base.persistence import SavedState
from .._base.validation import Interval
from ..stats._counts import offsets_of
from ._base import CPT_PRIOR, UNSEEN, Unseen
from ._partial import ChunkCounts
from ._seminaive import AODE

__all__ = ["AnDE", "triple_counts"]

#: A2DE's fitted tables (``n=2``), beside AODE's
_TRIPLE_TABLES = ("triple_counts_", "log_pair3_", "log_cond3_", "pair_count_", "qualifies3_")
#: the floats of one prediction chunk's gather (classes x rows x pairs x features)
_GATHER = 4_000_000
#: the most numbers of A2DE's tables a page carries (``|Y| K^3`` conditional tables, the
#: largest): about 10 MB of JSON
_MAX_PAGE = 500_000


def _check_triples(n_classes: int, width: int) -> None:
    need = 8.0 * 3 * n_classes * (width + 1) ** 3  # the counts, the log tables, a temporary
    check_memory(
        need,
        f"A2DE's class-conditional triple counts ({n_classes} classes x {width}^3 feature states)",
        "use AnDE(n=1) (AODE), or fewer or coarser features",
    )


def triple_counts(
    codes: np.ndarray, weights: np.ndarray | None, cardinalities: np.ndarray, n_classes: int
) -> np.ndarray:
    """``T[y, a, b, c]``: the weight of the rows of class ``y`` with the feature states
    ``a``, ``b`` and ``c`` (one-hot positions; each over the rows where its variables
    are observed), from ``codes`` (features, then the class).

    ``T`` is symmetric in ``(a, b, c)``, so only the triples whose first state's variable
    comes strictly before the other two are multiplied: for each state ``a`` of variable
    ``i``, ``Z^T W Z`` over the rows holding ``a`` and the one-hot columns of the variables
    after ``i`` (``Z^T Z``, a symmetric product, without weights; in float32 then, exact
    below ``2^24`` rows). The other orders are transposes of those, and the triples that
    repeat a variable are the pair counts ``N(y, a, b)`` on a diagonal.

    >>> T = triple_counts(np.array([[0, 1, 0], [1, 1, 0], [0, 0, 1]]), None, np.array([2, 2]), 2)
    >>> T[0, 0, 3, 3], T[0, 0, 2, 2], T[1, 0, 2, 2]   # y=0: (f0=0, f1=1); y=1: (f0=0, f1=0)
    (np.float64(1.0), np.float64(0.0), np.float64(1.0))
    >>> T[0, 3, 0, 3], T[0, 0, 0, 3], T[0, 0, 1, 3]   # the same triple in another order; a repeat
    (np.float64(1.0), np.float64(1.0), np.float64(0.0))
    """
    d = len(cardinalities)
    offsets = offsets_of(cardinalities)
    width = int(offsets[-1])
    _check_triples(n_classes, width)
    n = codes.shape[0]
    exact = weights is None and n < 2**24  # sums of 0/1 in float32: exact below 2^24
    check_memory(
        (4.0 if exact else 8.0) * n * width,
        "the one-hot rows of A2DE's counts",
        "learn from fewer rows at a time (partial_fit)",
    )
    X = np.zeros((n, width), dtype=np.float32 if exact else np.float64)
    rows, cols = np.nonzero(codes[:, :d] >= 0)
    X[rows, offsets[cols] + codes[rows, cols]] = 1.0
    w = None if weights is None else np.asarray(weights, dtype=float)
    first = np.zeros((n_classes, width, width, width))  # a's variable strictly first
    pairs = np.empty((n_classes, width, width))  # N(y, a, b), N(y, a) on the diagonal
    y = codes[:, d]
    for c in range(n_classes):  # |Y| K products of the rows that hold a state
        in_class = y == c
        Xc, codes_c = X[in_class], codes[in_class]
        wc = None if w is None else w[in_class]
        pairs[c] = Xc.T @ Xc if wc is None else (Xc * wc[:, None]).T @ Xc
        for i in range(d - 1):  # the last variable has none after it
            after = int(offsets[i + 1])
            later = Xc[:, after:]
            for s in range(int(cardinalities[i])):
                sel = codes_c[:, i] == s
                if sel.any():
                    Z = later[sel]
                    first[c, offsets[i] + s, after:, after:] = (
                        Z.T @ Z if wc is None else (Z * wc[sel][:, None]).T @ Z
                    )
    # each triple of three different variables in exactly one of the three terms (the
    # position of its first variable), the others 0 there: the sum adds no round-off
    out = first + first.transpose(0, 2, 1, 3)
    out += first.transpose(0, 2, 3, 1)
    del first
    # a repeated variable: (a, a, b), (a, b, a) and (b, a, a) are N(y, a, b) when the
    # other variable comes after, 0 for two states of one variable; (a, a, a) is N(y, a)
    owner = np.repeat(np.arange(d), cardinalities)
    later_pair = np.where(owner[:, None] < owner[None, :], pairs, 0.0)  # (y, a, b): b after a
    cc, aa, bb = np.meshgrid(
        np.arange(n_classes), np.arange(width), np.arange(width), indexing="ij"
    )
    out[cc, aa, aa, bb] += later_pair
    out[cc, aa, bb, aa] += later_pair
    out[cc, bb, aa, aa] += later_pair
    diag = np.arange(width)
    out[:, diag, diag, diag] += pairs[:, diag, diag]
    return out


class AnDE(AODE):
    """Averaged n-dependence estimators: ``n=1`` is AODE, ``n=2`` A2DE (see the module
    docstring for A2DE's formula; AODE's is :class:`~treelearn.AODE`).

    Parameters
    ----------
    n : {1, 2}, default=2
        1 (AODE) or 2 (A2DE: two super-parents per term).
    alpha : float, default=1.0
        The pseudocount of every estimate (0: maximum likelihood).
    min_count : int, default=1
        A super-parent value (``n=1``) or pair of values (``n=2``) qualifies when
        seen in at least this many training rows.
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
    pair_count_ : numpy.ndarray
        ``n=2``: ``K x K``, the rows with both states (which pairs qualify).
    log_pair3_, log_cond3_ : numpy.ndarray
        ``n=2``: the log tables of the formula.
    model_, fallback_model_, classes_, class_name_, class_count_, class_log_prior_, n_features_in_, feature_names_in_
        As :class:`~treelearn.AODE`'s (its tables are the AODE fallback).

    Notes
    -----
    A2DE keeps ``|Y| K^3`` counts: the memory is checked first
    (:data:`treelearn.limits.MEMORY_LIMIT`), and :meth:`memory_bytes` states it.
    ``partial_fit`` adds each chunk's triple counts (chunks in memory).

    See Also
    --------
    AODE : the ``n=1`` case.
    SKDB : selects features and parents by cross-validation.

    References
    ----------
    .. [1] Webb, G. I., Boughton, J. R., Zheng, F., Ting, K. M. and Salem, H. (2012).
       Learning by extrapolation from marginal to full-multivariate probability
       distributions: decreasingly naive Bayesian classification. Machine Learning
       86(2), 233-272.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv").head(2000)
    >>> X, y = df.drop(columns="either"), df["either"]
    >>> a2de = tl.AnDE(n=2).fit(X, y)
    >>> a2de.log_cond3_.shape   # 2 classes, 14 feature states
    (2, 14, 14, 14)
    >>> bool((tl.AnDE(n=1).fit(X, y).predict_proba(X) == tl.AODE().fit(X, y).predict_proba(X)).all())
    True
    """

    _method = "ande"
    cli_method: ClassVar[str | None] = None
    #: A2DE's terms have two super-parents: no picture of one-dependence networks
    capabilities: ClassVar[frozenset[str]] = frozenset(
        {"classify", "score", "explain", "explorer", "partial_fit"}
    )
    _parameter_constraints: ClassVar[dict] = {
        "n": [Interval(Integral, 1, 2)],
        "alpha": CPT_PRIOR["alpha"],
        "min_count": [Interval(Real, 0, None)],
        **UNSEEN,
    }

    def __init__(
        self,
        n: int = 2,
        alpha: float = 1.0,
        min_count: int = 1,
        unseen: Unseen = "error",
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
    ) -> None:
        self.n = n
        self.alpha = alpha
        self.min_count = min_count
        self.unseen = unseen
        self.numbers = numbers
        self.categorical = categorical

    def _average_line(self) -> str:
        if self.n == 1:
            return super()._average_line()
        d = self.n_features_in_
        return (
            f"the average of {d * (d - 1) // 2} two-dependence estimators: each pair of "
            f"features super-parents of every other feature, beside the class, where the pair "
            f"of values was seen at least min_count={self.min_count} times"
        )

    @staticmethod
    def memory_bytes(n_classes: int, n_feature_states: int) -> float:
        """The bytes A2DE's counts and tables take: ``3 x 8 |Y| (K + 1)^3``."""
        return 8.0 * 3 * n_classes * (n_feature_states + 1) ** 3

    #: whether the fitted model has A2DE's tables (``n=2``), or AODE's alone (``n=1``)
    _pairs_fitted: bool = False

    # ------------------------------------------------------------ fitting
    def _learn(self, stats: ChunkCounts, params: dict) -> None:
        super()._learn(stats, params)  # the AODE tables: n=1, and the fallback of n=2
        self._drop_triples()
        if params["n"] == 1:
            return
        d = len(stats.columns) - 1
        cards = stats.cardinalities[:d]
        n_classes = len(stats.classes)
        _check_triples(n_classes, int(cards.sum()))

        # count(codes, weights) of a chunk (a partial: the estimator pickles with it); the
        # statistics of fit and partial_fit sum them over the chunks (a fit: one chunk)
        count = partial(triple_counts, cardinalities=cards, n_classes=n_classes)
        self._set_triples(stats.summed("triple_counts", count), params)

    def _drop_triples(self) -> None:
        """Forget the A2DE tables of an earlier fit (a refit with ``n=1`` has none)."""
        for name in _TRIPLE_TABLES:
            self.__dict__.pop(name, None)
        self._pairs_fitted = False

    def _set_triples(self, T3: np.ndarray, params: dict) -> None:
        alpha = params["alpha"]
        cards = self._cards
        owner = np.repeat(np.arange(len(cards)), cards)
        k = cards[owner].astype(float)
        starts = offsets_of(cards)[:-1]
        self.triple_counts_ = T3
        with np.errstate(divide="ignore", invalid="ignore"):
            pair = np.einsum("yabb->yab", T3)  # N(y, a, b): the c = b slice
            n_ij = np.add.reduceat(
                np.add.reduceat(pair.sum(axis=0), starts, axis=0), starts, axis=1
            )[owner][:, owner]  # rows with both observed
            self.log_pair3_ = np.log(
                (pair + alpha) / (n_ij + alpha * len(pair) * k[:, None] * k[None, :])
            )
            den = np.add.reduceat(T3, starts, axis=3)[..., owner]
            cond = np.where(den + alpha * k > 0, (T3 + alpha) / (den + alpha * k), 1.0 / k)
            log_cond = np.log(cond)
            # l is i or j: not in the product
            log_cond[
                :,
                (owner[:, None, None] == owner[None, None, :])
                | (owner[None, :, None] == owner[None, None, :]),
            ] = 0.0
            same = owner[:, None] == owner[None, :]
        self.log_cond3_ = log_cond
        self.pair_count_ = pair.sum(axis=0)
        self.qualifies3_ = (self.pair_count_ >= params["min_count"]) & ~same
        self._pairs_fitted = True

    # ------------------------------------------------------------ prediction
    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        fallback = super()._joint_log_likelihood(codes)  # AODE: n=1, and rows without a pair
        n, d = codes.shape
        if not self._pairs_fitted or d < 2:  # one feature: no pair of super-parents, AODE
            return fallback
        width = len(self.pair_count_)
        n_classes = len(self.classes_)
        offsets = offsets_of(self._cards)
        # one-hot positions, a missing value pointing at a padding state whose terms are 0
        A = np.where(codes >= 0, offsets[:-1][None, :] + codes, width)
        L = np.zeros((n_classes, width + 1, width + 1, width + 1))
        L[:, :width, :width, :width] = self.log_cond3_
        P = np.zeros((n_classes, width + 1, width + 1))
        P[:, :width, :width] = self.log_pair3_
        Q = np.zeros((width + 1, width + 1), dtype=bool)
        Q[:width, :width] = self.qualifies3_
        pi, pj = np.triu_indices(d, k=1)
        out = fallback.copy()
        step = max(1, _GATHER // max(1, n_classes * len(pi) * d))
        for start in range(0, n, step):  # chunks of rows, each one gather
            a, b = A[start : start + step][:, pi], A[start : start + step][:, pj]
            ok = Q[a, b]  # (rows, pairs): both observed (else padding) and seen enough
            terms = L[:, a[:, :, None], b[:, :, None], A[start : start + step][:, None, :]].sum(-1)
            terms = terms + P[:, a, b]  # (classes, rows, pairs)
            terms = np.where(ok[None], terms, -np.inf)
            used = ok.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                peak = terms.max(axis=2, keepdims=True)
                peak = np.where(np.isfinite(peak), peak, 0.0)
                total = np.log(np.exp(terms - peak).sum(axis=2)) + peak[..., 0]
            some = used > 0
            rows = np.arange(start, min(start + step, n))[some]
            out[rows] = (total[:, some] - np.log(used[some])[None, :]).T
        return out

    # ------------------------------------------------------------ the explorer
    def explorer_spec(self, title: str | None = None, *, super_parent: Any = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`). ``n=1``: AODE's (one
        super-parent's network). ``n=2``: A2DE's own estimate of ``P(y, x_observed)``,
        which is no joint distribution (a missing super-parent is dropped, not summed
        out): one forest per qualifying pair of super-parent states (the class the root,
        ``P(y, x_i, x_j)``; every other feature its child, ``P(x_l | y, x_i, x_j)``), fixed
        at those states and counted only where both are observed, averaged over the
        counted ones (``select``), falling back to AODE's forests (tier 1), then naive
        Bayes's (tier 2). The class posterior is ``predict_proba``'s; each unobserved
        feature's bars the estimate with that feature added. No side panel, likelihoods
        or MAP (each assumes a distribution). Drawn: the class above its features."""
        if self.n == 1:
            return super().explorer_spec(title, super_parent=super_parent)
        from ..viz._page_spec import class_spec, require_fitted, title_of

        require_fitted(self)
        self._require_fitted()  # a partial_fit call after the first: learn its counts now
        if super_parent is not None:
            raise TreelearnError(
                f"super_parent={super_parent!r} chooses one of AODE's networks; A2DE "
                f"(AnDE(n=2)) averages over pairs of super-parents and its page shows that "
                f"average: leave it out, or use AnDE(n=1)"
            )
        size = int(np.size(self.log_cond3_))
        if size > _MAX_PAGE:
            raise TreelearnError(
                f"the explorer evaluates A2DE's estimate in the page from its tables, but this "
                f"{type(self).__name__}'s {len(self.classes_)} classes x "
                f"{np.shape(self.log_cond3_)[1]}^3 feature states are {size:,} numbers (more "
                f"than {_MAX_PAGE:,}): use predict_proba(), or AnDE(n=1) (whose page shows "
                f"one super-parent's network)"
            )
        fallback = self.fallback_model_  # naive Bayes: its states and P(x_j | y)
        features = list(self.feature_names_in_)
        d = len(features)
        parts = [f"{d} feature{'' if d == 1 else 's'}"]
        if title is None:
            title = title_of(
                "A2DE: the average over pairs of super-parents",
                parts,
                float(np.sum(self.class_count_)),
            )
        spec = class_spec(
            features,
            [fallback.states[f] for f in features],
            self.class_name_,
            self.classes_,
            np.exp(self.class_log_prior_),
            [fallback.cpt(f) for f in features],
            title,
        )
        return {
            **spec,
            "components": self._explorer_forests(),
            "select": "observed",
            "panel": False,
            "map": False,
            "soft": "A2DE's estimate is no distribution to weight",
        }

    def _explorer_forests(self) -> list:
        """A2DE's terms as forests (:meth:`explorer_spec`): tier 0 one per qualifying pair
        of super-parent states, tier 1 one per qualifying super-parent state (AODE), tier 2
        naive Bayes; a log 0 (``alpha=0``) a probability 0."""
        cards = [int(k) for k in self._cards]
        d = len(cards)
        off = offsets_of(self._cards)
        block = [slice(int(off[j]), int(off[j + 1])) for j in range(d)]

        def prob(logs: Any) -> np.ndarray:
            logs = np.asarray(logs, dtype=float)
            with np.errstate(invalid="ignore"):
                return np.where(np.isfinite(logs), np.exp(logs), 0.0)

        def term(root: np.ndarray, children: np.ndarray, fixed: list, tier: int) -> dict:
            """The class a root (its row ``root``), every other feature ``l`` its child
            (the rows ``children[:, block[l]]``), each super-parent of ``fixed`` a root
            fixed at its state."""
            parent: list = [-1] * (d + 1)
            cpt: list = [None] * (d + 1)
            cpt[d] = [root.tolist()]
            free = set(range(d)) - {j for j, _ in fixed}
            for j in range(d):
                if j in free:
                    parent[j], cpt[j] = d, children[:, block[j]].tolist()
                else:
                    cpt[j] = [[1.0] * cards[j]]
            return {"parent": parent, "cpt": cpt, "weight": 1.0, "fixed": fixed, "tier": tier}

        pair3, cond3 = prob(self.log_pair3_), prob(self.log_cond3_)
        out = []
        for i, j in itertools.combinations(range(d), 2):
            for a, b in itertools.product(range(cards[i]), range(cards[j])):
                pa, pb = int(off[i]) + a, int(off[j]) + b
                if self.qualifies3_[pa, pb]:
                    out.append(term(pair3[:, pa, pb], cond3[:, pa, pb], [[i, a], [j, b]], 0))
        pair1, cond1 = prob(self.log_pair_), prob(self.log_cond_)
        for i in range(d):
            for a in range(cards[i]):
                pa = int(off[i]) + a
                if self.qualifies_[pa]:
                    out.append(term(pair1[:, pa], cond1[:, pa], [[i, a]], 1))
        nb = prob(self.log_nb_)
        out.append(term(prob(self.class_log_prior_), nb, [], 2))
        return out

    # ------------------------------------------------------------ saving
    def _fitted_state(self) -> dict:
        state = super()._fitted_state()
        if self._pairs_fitted:
            state["triple_counts"] = self.triple_counts_.tolist()
        return state

    def _restore_model(self, saved: SavedState) -> None:
        super()._restore_model(saved)
        self._drop_triples()
        params = self._checked_params()
        if params["n"] == 1:
            return
        width, n_classes = int(self._cards.sum()), len(self.classes_)
        _check_triples(n_classes, width)
        T3 = saved.array("triple_counts", (n_classes, width, width, width), low=0)
        self._set_triples(T3, params)
