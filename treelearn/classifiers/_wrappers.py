"""Wrapper structure search by cross-validated accuracy: FSSJ and BSEJ (Pazzani, 1996) and
TAN hill climbing (Keogh and Pazzani, 1999), arc by arc or by super-parents, as bnclassify's
``fssj``, ``bsej``, ``tan_hc``, ``tan_hcsp``.

Every candidate structure is scored by its k-fold cross-validated accuracy, computed
from **fold counts**: each family is counted once per fold (one ``bincount`` over the
rows, the fold and the class in its index), the held-in counts of fold ``f`` are the
total minus fold ``f``'s, and each held-out row's ``log p(x, c)`` is gathered from
them. No model is refitted and no row is re-read per candidate: a candidate changes a
few families, whose per-row terms are added to (and taken off) the running sum.

The folds are scikit-learn's ``StratifiedKFold(cv, shuffle=True, random_state)``; the
score of a structure is the mean over the folds of the (weighted) accuracy on the
held-out rows, what ``cross_val_score`` of the refitted network gives with those folds
(the states are the whole training data's, as if declared); with ``class_arcs="average"``
(the default) each family's held-in counts give its fold's class-arc average
(:func:`~treelearn.classifiers._class_arcs.class_arc_posteriors`), as the refitted network
has. A super-feature (a group
of joined features) is modelled by the chain rule over its features in column order:
each has the class and the group's earlier features as parents (bnclassify's
"supernode"), the Cartesian product's distribution under maximum likelihood.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from numbers import Integral, Real
from typing import Any, ClassVar

import networkx as nx
import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import StratifiedKFold

from .._base.errors import InputTypeError, TreelearnError
from .._base.limits import check_memory
from .._base.persistence import SavedState
from .._base.validation import RANDOM_STATE, Interval
from ..stats._counts import ClassCounts
from ..structure._trees import round_ties
from ._base import CLASS_PRIOR, UNSEEN, Unseen
from ._class_arcs import CLASS_ARCS, class_arc_posteriors
from ._network import SingleNetworkClassifier

__all__ = ["BSEJ", "FSSJ", "FoldScorer", "TANHillClimb", "TANSuperParent"]

#: the most bytes of per-row family terms kept between search steps
_CACHE_BYTES = 256 * 2**20


class FoldScorer:
    """k-fold CV accuracy of naive-Bayes-like networks, from fold counts.

    ``codes``: ``(n, d + 1)`` codes (the features, then the class), ``cards`` their
    cardinalities; ``folds``: each row's fold. :meth:`term` is one family's
    ``log p(x_child | c, x_parents)`` of each held-out row under its fold's held-in
    counts, shape ``(n, classes)``; :attr:`base` the class prior's; :meth:`accuracy` of
    a summed ``(n, classes)`` score.

    Missing feature values (codes ``-1``): each family is counted over the rows where it
    is observed (as the fitted CPTs are); a held-out row's missing ``x_child`` adds 0 (it
    is summed out), and a row with ``x_child`` observed but a parent missing takes the
    family of the parents before its first missing one (an approximation of the exact
    sum over that parent, which the refitted network's prediction does).
    """

    def __init__(
        self,
        codes: np.ndarray,
        weights: np.ndarray | None,
        cards: np.ndarray,
        folds: np.ndarray,
        *,
        alpha: float,
        log_prior: np.ndarray | None,
        class_arcs: str = "all",
        arc_prior: float = 0.5,
    ) -> None:
        self.observed = np.asarray(codes) >= 0
        # a missing code indexes state 0: its rows are masked out of every count it is in
        self.codes = np.maximum(codes, 0).astype(np.intp)
        self.n, d1 = codes.shape
        self.cards = np.asarray(cards, dtype=np.int64)
        self.y = self.codes[:, d1 - 1]
        self.n_classes = int(self.cards[d1 - 1])
        self.w = np.ones(self.n) if weights is None else np.asarray(weights, dtype=float)
        self.folds = np.asarray(folds, dtype=np.intp)
        self.n_folds = int(self.folds.max()) + 1
        self.alpha = alpha
        self.class_arcs = class_arcs
        self.arc_prior = arc_prior
        self._cache: dict[tuple, np.ndarray] = {}
        self._cached_bytes = 0
        C, F = self.n_classes, self.n_folds
        if log_prior is None:  # the held-in class frequencies, fold by fold
            counts = np.bincount(self.folds * C + self.y, weights=self.w, minlength=F * C).reshape(
                F, C
            )
            held_in = np.maximum(counts.sum(axis=0) - counts, 0.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                prior = np.log(held_in / held_in.sum(axis=1, keepdims=True))
            self.base = prior[self.folds]
        else:
            self.base = np.repeat(np.asarray(log_prior, dtype=float)[None, :], self.n, axis=0)
        fold_weight = np.bincount(self.folds, weights=self.w, minlength=F)
        self._fold_weight = fold_weight
        self._counted = fold_weight > 0

    def _configurations(self, parents: Sequence[int]) -> tuple[np.ndarray, int]:
        """Each row's parent configuration as ``0 .. q - 1`` (renumbered when large)."""
        config, q = np.zeros(self.n, dtype=np.intp), 1
        for p in parents:
            k = int(self.cards[p])
            if q * k > 4 * self.n + 16:  # keep the index small: the configurations seen
                uniq, config = np.unique(config, return_inverse=True)
                q = len(uniq)
            config, q = config * k + self.codes[:, p], q * k
        return config, q

    def term(self, child: int, parents: Sequence[int]) -> np.ndarray:
        """``log p_f(x_child | c, x_parents)`` of every row ``i`` (of fold ``f``) and class."""
        key = (child, tuple(parents))
        if key in self._cache:
            return self._cache[key]
        C, F, n = self.n_classes, self.n_folds, self.n
        k = int(self.cards[child])
        config, q = self._configurations(parents)
        averaged = self.class_arcs == "average"
        check_memory(
            8.0 * (4 if averaged else 1) * F * q * k * C + 40.0 * n * C,
            "the fold counts of a family",
            "use fewer rows or features with fewer states",
        )
        cell = config * k + self.codes[:, child]
        flat = (self.folds * (q * k) + cell) * C + self.y
        seen = self.observed[:, [child, *parents]].all(axis=1)
        w = self.w if seen.all() else self.w * seen  # the rows where the family is observed
        counts = np.bincount(flat, weights=w, minlength=F * q * k * C).reshape(F, q * k, C)
        parent_counts = counts.reshape(F, q, k, C).sum(axis=2)
        num = counts.sum(axis=0)[cell] - counts[self.folds, cell]  # held in: total - own fold
        den = parent_counts.sum(axis=0)[config] - parent_counts[self.folds, config]
        alpha = self.alpha
        num, den = np.maximum(num, 0.0), np.maximum(den, 0.0)
        given = (num + alpha) / (den + k * alpha)
        if averaged:  # each fold's class-arc average of its held-in counts
            held = np.maximum(counts.sum(axis=0)[None] - counts, 0.0).reshape(F, q, k, C)
            p = class_arc_posteriors(
                held.transpose(0, 3, 1, 2), 0, alpha, "lidstone", 1.0, 1.0, self.arc_prior
            )[self.folds, None]
            alone = (num.sum(axis=1, keepdims=True) + alpha) / (
                den.sum(axis=1, keepdims=True) + k * alpha
            )
            given = p * given + (1.0 - p) * alone
        out = np.log(given)
        if not seen.all():
            # x_child missing: summed out (a factor 1); a parent missing: the family of
            # the parents before the first missing one
            first_gap = np.full(self.n, len(parents), dtype=np.intp)
            for r in range(len(parents) - 1, -1, -1):
                first_gap[~self.observed[:, parents[r]]] = r
            for r in np.unique(first_gap[first_gap < len(parents)]):
                rows = first_gap == r
                out[rows] = self.term(child, parents[: int(r)])[rows]
            out[~self.observed[:, child]] = 0.0
        if self._cached_bytes + out.nbytes <= _CACHE_BYTES:
            self._cache[key] = out
            self._cached_bytes += out.nbytes
        return out

    def group(self, members: Sequence[int]) -> np.ndarray:
        """A super-feature's terms: the chain rule over its members in column order."""
        members = sorted(members)
        out = np.zeros((self.n, self.n_classes))
        for r, m in enumerate(members):
            out = out + self.term(m, members[:r])
        return out

    def accuracy(self, scores: np.ndarray) -> float:
        """The mean over the folds of the weighted held-out accuracy of ``argmax`` scores
        (a row impossible under every class predicts the first class, as ``predict``)."""
        right = np.argmax(scores, axis=1) == self.y
        hits = np.bincount(self.folds, weights=self.w * right, minlength=self.n_folds)
        return float(np.mean(hits[self._counted] / self._fold_weight[self._counted]))


def _folds(y: np.ndarray, cv: int, random_state: Any, who: str) -> np.ndarray:
    """Each row's fold: ``StratifiedKFold(cv, shuffle=True, random_state)`` on the labels."""
    n = len(y)
    most = int(np.bincount(y).max()) if n else 0
    if most < cv:
        raise TreelearnError(
            f"{who} scores each step by {cv}-fold cross-validation (cv={cv}), which needs at "
            f"least {cv} rows of some class; got n_samples = {n} (the largest class has "
            f"{most}): give more rows or a smaller cv (>= 2)"
        )
    if isinstance(random_state, np.random.Generator):
        random_state = int(random_state.integers(2**31 - 1))
    folds = np.empty(n, dtype=np.intp)
    splitter = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    for f, (_, test) in enumerate(splitter.split(np.zeros((n, 1)), y)):
        folds[test] = f
    return folds


def _best(scorer: FoldScorer, candidates: list, evaluate: Any, n_jobs: int | None) -> tuple:
    """``(accuracy, candidate)`` of the first most accurate candidate (12 decimals)."""
    if n_jobs is None or n_jobs == 1 or len(candidates) < 2:
        scores = [evaluate(c) for c in candidates]
    else:  # threads: numpy's gathers and sums release the GIL; the same numbers
        scores = Parallel(n_jobs=n_jobs, prefer="threads")(delayed(evaluate)(c) for c in candidates)
    rounded = round_ties(np.asarray(scores, dtype=float))
    i = int(np.argmax(rounded))
    return scores[i], candidates[i]


class _WrapperSearch(SingleNetworkClassifier):
    """What the wrapper searches share: options, the rows and their folds, the
    fitted history (``cv_accuracy_``, ``steps_``) and its saving."""

    _parameter_constraints: ClassVar[dict] = {
        "cv": [Interval(Integral, 2, None)],
        "random_state": RANDOM_STATE,
        # joblib's: None or 1 one thread, n threads, -1 one per core (0 means nothing)
        "n_jobs": [None, Interval(Integral, 1, None), Interval(Integral, None, -1)],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        **CLASS_PRIOR,
        **UNSEEN,
        **CLASS_ARCS,
    }

    def __init__(
        self,
        cv: int = 5,
        random_state: int | np.random.Generator | None = None,
        n_jobs: int | None = None,
        alpha: float = 1.0,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
        class_arcs: str = "average",
        arc_prior: float = 0.5,
    ) -> None:
        self.cv = cv
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.numbers = numbers
        self.categorical = categorical
        self.class_arcs = class_arcs
        self.arc_prior = arc_prior

    def _scorer(self, stats: ClassCounts, params: dict) -> FoldScorer:
        if stats.table is None:
            raise InputTypeError(
                f"{type(self).__name__} scores candidate structures on the "
                f"rows in memory: give a DataFrame, an array or a file, not a "
                f"Dask DataFrame"
            )
        codes, weights = stats.table.codes, stats.table.weights
        features = list(stats.columns[:-1])
        d = len(features)
        folds = _folds(
            codes[:, d].astype(np.intp), params["cv"], params["random_state"], type(self).__name__
        )
        log_prior = None
        if params.get("class_prior") is not None or not params["fit_prior"]:
            log_prior = self.class_log_prior_
        return FoldScorer(
            codes,
            weights,
            stats.cardinalities,
            folds,
            alpha=params["alpha"],
            log_prior=log_prior,
            class_arcs=params["class_arcs"],
            arc_prior=params["arc_prior"],
        )

    def _network(self, stats: ClassCounts, parents: dict[int, list[int]]) -> nx.DiGraph:
        """The class and each feature of ``parents`` (feature parents, in order); the
        features not in it alone."""
        features, class_name = list(stats.columns[:-1]), stats.columns[-1]
        D = nx.DiGraph()
        D.add_node(class_name)
        D.add_nodes_from(features)
        for j in sorted(parents):
            D.add_edge(class_name, features[j])
            D.add_edges_from((features[p], features[j]) for p in parents[j])
            D.nodes[features[j]]["parents"] = [class_name, *(features[p] for p in parents[j])]
        D.graph["roots"] = [class_name, *(f for j, f in enumerate(features) if j not in parents)]
        D.graph["class"] = class_name
        return D

    def _network_description(self, params: dict) -> dict:
        return {
            **super()._network_description(params),
            "cv_accuracy": list(self.cv_accuracy_),
            "steps": [[op, list(names)] for op, names in self.steps_],
        }

    def _restore_history(self, saved: SavedState) -> None:
        settings = self.model_.settings
        accuracy = np.asarray(settings.get("cv_accuracy"), dtype=float)
        steps = settings.get("steps")
        if (
            accuracy.ndim != 1
            or len(accuracy) < 1
            or not np.isfinite(accuracy).all()
            or not isinstance(steps, list)
            or len(steps) != len(accuracy) - 1
            or not all(
                isinstance(s, list)
                and len(s) == 2
                and isinstance(s[0], str)
                and isinstance(s[1], list)
                for s in steps
            )
        ):
            raise saved.fail(
                "model",
                "has no cv_accuracy and steps settings (one accuracy per step, and the start's)",
            )
        self.cv_accuracy_ = accuracy
        self.steps_ = [(op, tuple(names)) for op, names in steps]


class _GroupSearch(_WrapperSearch):
    """FSSJ and BSEJ: naive Bayes over super-features (``feature_groups_``)."""

    def _start(self, d: int) -> list[tuple[int, ...]]:
        raise NotImplementedError

    def _candidates(self, groups: list[tuple[int, ...]], d: int) -> list[tuple]:
        raise NotImplementedError

    def _structure(self, stats: ClassCounts, params: dict) -> nx.DiGraph:
        scorer = self._scorer(stats, params)
        d = len(stats.columns) - 1
        features = list(stats.columns[:-1])
        groups = self._start(d)
        scores = scorer.base + sum((scorer.group(g) for g in groups), np.zeros_like(scorer.base))
        history, steps = [scorer.accuracy(scores)], []

        def after(step: tuple) -> tuple[np.ndarray, list]:
            _, removed, added = step
            new = scores
            for g in removed:
                new = new - scorer.group(g)
            for g in added:
                new = new + scorer.group(g)
            kept = [g for g in groups if g not in removed]
            return new, sorted([*kept, *added])

        while True:
            candidates = self._candidates(groups, d)
            if not candidates:
                break
            accuracy, step = _best(
                scorer, candidates, lambda s: scorer.accuracy(after(s)[0]), params["n_jobs"]
            )
            if round_ties(accuracy) <= round_ties(history[-1]):
                break  # no step improves: stop
            scores, groups = after(step)
            history.append(accuracy)
            op, removed, added = step
            if op == "delete":  # the feature taken out of its group
                names = sorted(set(removed[0]) - set(added[0] if added else ()))
            else:  # the feature added, or the group joined
                names = added[0]
            steps.append((op, tuple(features[j] for j in names)))
        self.cv_accuracy_ = np.asarray(history)
        self.steps_ = steps
        self.feature_groups_ = [tuple(features[j] for j in g) for g in groups]
        parents = {m: list(g[:r]) for g in groups for r, m in enumerate(g)}
        return self._network(stats, parents)

    def _network_description(self, params: dict) -> dict:
        return {
            **super()._network_description(params),
            "feature_groups": [list(g) for g in self.feature_groups_],
        }

    def _restore_model(self, saved: SavedState) -> None:
        super()._restore_model(saved)
        self._restore_history(saved)
        groups = self.model_.settings.get("feature_groups")
        if not (
            isinstance(groups, list)
            and all(isinstance(g, list) and g for g in groups)
            and self._joins(groups)
        ):
            raise saved.fail(
                "model",
                "has no feature_groups setting naming disjoint groups "
                "of the features that the network joins",
            )
        self.feature_groups_ = [tuple(g) for g in groups]

    def _joins(self, groups: list[list]) -> bool:
        """Whether ``groups`` are disjoint groups of the features and the network joins
        each as a chain in column order under the class (the rest alone)."""
        features = list(self.feature_names_in_)
        position = {repr(f): j for j, f in enumerate(features)}
        flat = [repr(f) for g in groups for f in g]
        if not (len(set(flat)) == len(flat) and set(flat) <= set(position)):
            return False
        c = self.class_name_
        want: dict[Hashable, list] = {f: [] for f in features}
        for g in groups:
            ordered = sorted(g, key=lambda f: position[repr(f)])
            for r, f in enumerate(ordered):
                want[features[position[repr(f)]]] = [c, *ordered[:r]]
        return all(self.model_.parents(f) == want[f] for f in features)


class FSSJ(_GroupSearch):
    """Forward sequential selection and joining (Pazzani, 1996).

    Starts from the class alone; each step either adds an unused feature (independent
    of the others given the class) or joins an unused feature with a (super)feature of
    the model into one super-feature, whichever step gives the best k-fold
    cross-validated accuracy (computed from fold counts, see the module docstring);
    it stops when no step improves the accuracy. Ties go to the first candidate:
    additions by column, then joins (by column, then the group's first feature).

    Parameters
    ----------
    cv : int, default=5
        The number of folds (``StratifiedKFold(cv, shuffle=True, random_state)``).
    random_state : int, numpy.random.Generator or None, default=None
        The folds' seed.
    n_jobs : int or None, default=None
        Threads scoring a step's candidates (None: one); the same result.
    alpha : float, default=1.0
        Lidstone pseudocount (> 0) of every CPT.
    fit_prior : bool, default=True
        As :class:`~treelearn.NaiveBayes`'s.
    class_prior : array-like of float, default=None
        As :class:`~treelearn.NaiveBayes`'s.
    unseen : {"error", "ignore"}, default="error"
        As :class:`~treelearn.NaiveBayes`'s.
    numbers : {"mdl", "states"}, default="mdl"
        As :class:`~treelearn.NaiveBayes`'s.
    categorical : sequence of hashable, default=None
        As :class:`~treelearn.NaiveBayes`'s.
    class_arcs : {"average", "all"}, default="average"
        ``"average"``: each class arc averaged in or out (Dash and Cooper, 2002, for the
        fixed structure), as in :class:`~treelearn.NaiveBayes`; ``"all"``: the plain CPTs.
    arc_prior : float, default=0.5
        The prior probability of each arc from the class, as in :class:`~treelearn.NaiveBayes`.

    Attributes
    ----------
    feature_groups_ : the chosen super-features, tuples of feature names in column
        order (a one-feature group is a feature on its own), ordered by first column.
    cv_accuracy_ : the cross-validated accuracy of the start, then after each step.
    steps_ : each step taken: ``("add", (feature,))`` or ``("join", group)`` (the new group).
    model_ : the network refitted on every row: the class -> every chosen feature, each
        group's features chained in column order (each has the group's earlier
        features as parents); the unused features isolated (they change no posterior).

    Notes
    -----
    The rows are needed in memory (a DataFrame, an array or a file). Missing feature
    values are counted around, each family over the rows where it is observed (see
    :class:`FoldScorer` for a held-out row's terms), and summed out at prediction.

    See Also
    --------
    BSEJ : the backward search (deletes and joins).
    rank_features : features by mutual information with the class, no search.

    References
    ----------
    .. [1] Pazzani, M. J. (1996). Constructive induction of Cartesian product attributes.
       In Information, Statistics and Induction in Science, 66-77. World Scientific.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> clf = tl.FSSJ(random_state=0).fit(df.drop(columns="either"), df["either"])
    >>> clf.steps_   # 'either' is 'tub or lung'
    [('add', ('lung',)), ('add', ('tub',))]
    >>> clf.feature_groups_, clf.cv_accuracy_.round(4).tolist()
    ([('tub',), ('lung',)], [0.9354, 0.9882, 1.0])
    >>> bool((clf.cv_accuracy_[1:] > clf.cv_accuracy_[:-1]).all())   # each step improves
    True
    """

    _method = "fssj"

    def _start(self, d: int) -> list[tuple[int, ...]]:
        return []

    def _candidates(self, groups: list[tuple[int, ...]], d: int) -> list[tuple]:
        used = {m for g in groups for m in g}
        unused = [j for j in range(d) if j not in used]
        adds = [("add", (), ((j,),)) for j in unused]
        joins = [("join", (g,), (tuple(sorted((*g, j))),)) for j in unused for g in groups]
        return adds + joins


class BSEJ(_GroupSearch):
    """Backward sequential elimination and joining (Pazzani, 1996).

    Starts from naive Bayes on every feature; each step either deletes a feature (from
    its super-feature, if joined) or joins two (super)features into one, whichever gives
    the best k-fold cross-validated accuracy (from fold counts, see the module
    docstring); it stops when no step improves. Ties go to the first candidate:
    deletions by column, then joins by the groups' first columns.

    Parameters
    ----------
    cv : int, default=5
        The number of folds (``StratifiedKFold(cv, shuffle=True, random_state)``).
    random_state : int, numpy.random.Generator or None, default=None
        The folds' seed.
    n_jobs : int or None, default=None
        Threads scoring a step's candidates (None: one); the same result.
    alpha : float, default=1.0
        Lidstone pseudocount (> 0) of every CPT.
    fit_prior : bool, default=True
        As :class:`~treelearn.NaiveBayes`'s.
    class_prior : array-like of float, default=None
        As :class:`~treelearn.NaiveBayes`'s.
    unseen : {"error", "ignore"}, default="error"
        As :class:`~treelearn.NaiveBayes`'s.
    numbers : {"mdl", "states"}, default="mdl"
        As :class:`~treelearn.NaiveBayes`'s.
    categorical : sequence of hashable, default=None
        As :class:`~treelearn.NaiveBayes`'s.
    class_arcs : {"average", "all"}, default="average"
        ``"average"``: each class arc averaged in or out (Dash and Cooper, 2002, for the
        fixed structure), as in :class:`~treelearn.NaiveBayes`; ``"all"``: the plain CPTs.
    arc_prior : float, default=0.5
        The prior probability of each arc from the class, as in :class:`~treelearn.NaiveBayes`.

    Attributes
    ----------
    feature_groups_, cv_accuracy_, model_
        As :class:`FSSJ`'s.
    steps_ : list of tuple
        ``("delete", (feature,))`` or ``("join", group)`` per step.

    See Also
    --------
    FSSJ : the forward search (adds and joins).
    KDB : a fixed number of feature parents, chosen by mutual information.

    References
    ----------
    .. [1] Pazzani, M. J. (1996). Constructive induction of Cartesian product attributes.
       In Information, Statistics and Induction in Science, 66-77. World Scientific.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> clf = tl.BSEJ(random_state=0).fit(df.drop(columns="either"), df["either"])
    >>> clf.steps_, clf.cv_accuracy_.round(4).tolist()   # naive Bayes, then xray left out
    ([('delete', ('xray',))], [0.9998, 1.0])
    """

    _method = "bsej"

    def _start(self, d: int) -> list[tuple[int, ...]]:
        return [(j,) for j in range(d)]

    def _candidates(self, groups: list[tuple[int, ...]], d: int) -> list[tuple]:
        group_of = {m: g for g in groups for m in g}
        deletes = []
        for j in sorted(group_of):
            g = group_of[j]
            rest = tuple(m for m in g if m != j)
            deletes.append(("delete", (g,), (rest,) if rest else ()))
        joins = [
            ("join", (g, h), (tuple(sorted((*g, *h))),))
            for a, g in enumerate(groups)
            for h in groups[a + 1 :]
        ]
        return deletes + joins


class TANHillClimb(_WrapperSearch):
    """TAN by hill climbing on cross-validated accuracy (Keogh and Pazzani, 1999;
    bnclassify's ``tan_hc``).

    Starts from naive Bayes; each step adds the one feature-to-feature arc ``x_i -> x_j``
    (``x_j`` without a feature parent yet, no cycle) that most improves the k-fold
    cross-validated accuracy (from fold counts, see the module docstring), and stops
    when none improves: an augmented naive Bayes whose features have at most one
    feature parent (a forest). Ties go to the first arc by (parent, child) column.

    Parameters
    ----------
    cv : int, default=5
        The number of folds (``StratifiedKFold(cv, shuffle=True, random_state)``).
    random_state : int, numpy.random.Generator or None, default=None
        The folds' seed.
    n_jobs : int or None, default=None
        Threads scoring a step's candidates (None: one); the same result.
    alpha : float, default=1.0
        Lidstone pseudocount (> 0) of every CPT.
    fit_prior : bool, default=True
        As :class:`~treelearn.NaiveBayes`'s.
    class_prior : array-like of float, default=None
        As :class:`~treelearn.NaiveBayes`'s.
    unseen : {"error", "ignore"}, default="error"
        As :class:`~treelearn.NaiveBayes`'s.
    numbers : {"mdl", "states"}, default="mdl"
        As :class:`~treelearn.NaiveBayes`'s.
    categorical : sequence of hashable, default=None
        As :class:`~treelearn.NaiveBayes`'s.
    class_arcs : {"average", "all"}, default="average"
        ``"average"``: each class arc averaged in or out (Dash and Cooper, 2002, for the
        fixed structure), as in :class:`~treelearn.NaiveBayes`; ``"all"``: the plain CPTs.
    arc_prior : float, default=0.5
        The prior probability of each arc from the class, as in :class:`~treelearn.NaiveBayes`.

    Attributes
    ----------
    arcs_ : the arcs added, ``(parent, child)`` names, in the order added.
    cv_accuracy_ : the cross-validated accuracy of naive Bayes, then after each arc.
    steps_ : ``("arc", (parent, child))`` per step.
    model_ : the network refitted on every row.

    See Also
    --------
    TANSuperParent : fewer candidates per step (a super-parent, then its child).
    TAN : the feature tree by conditional mutual information, no search.

    References
    ----------
    .. [1] Keogh, E. J. and Pazzani, M. J. (1999). Learning augmented Bayesian classifiers:
       a comparison of distribution-based and classification-based approaches. In
       Proceedings of the 7th International Workshop on AI and Statistics, 225-230.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> clf = tl.TANHillClimb(random_state=0).fit(df.drop(columns="either"), df["either"])
    >>> clf.arcs_, clf.cv_accuracy_.round(4).tolist()
    ([('tub', 'lung')], [0.9998, 0.9999])
    >>> clf.model_.parents("lung")
    ['either', 'tub']
    """

    _method = "tan-hc"

    def _structure(self, stats: ClassCounts, params: dict) -> nx.DiGraph:
        scorer = self._scorer(stats, params)
        d = len(stats.columns) - 1
        features = list(stats.columns[:-1])
        parent = [-1] * d
        scores = scorer.base + sum(
            (scorer.term(j, ()) for j in range(d)), np.zeros_like(scorer.base)
        )
        history, arcs = [scorer.accuracy(scores)], []

        def ancestors(i: int) -> set[int]:
            seen = set()
            while i >= 0 and i not in seen:
                seen.add(i)
                i = parent[i]
            return seen

        def after(new_arcs: Sequence[tuple[int, int]]) -> np.ndarray:
            out = scores
            for i, j in new_arcs:
                out = out - scorer.term(j, ()) + scorer.term(j, (i,))
            return out

        def children(i: int) -> list[int]:  # the orphans that x_i may adopt (no cycle)
            above = ancestors(i)
            return [j for j in range(d) if parent[j] < 0 and j not in above]

        while True:
            candidates = self._candidate_arcs(scorer, d, children, after, params)
            if not candidates:
                break
            accuracy, arc = _best(
                scorer, candidates, lambda a: scorer.accuracy(after([a])), params["n_jobs"]
            )
            if round_ties(accuracy) <= round_ties(history[-1]):
                break
            scores = after([arc])
            parent[arc[1]] = arc[0]
            history.append(accuracy)
            arcs.append(arc)
        self.cv_accuracy_ = np.asarray(history)
        self.arcs_ = [(features[i], features[j]) for i, j in arcs]
        self.steps_ = [("arc", a) for a in self.arcs_]
        return self._network(stats, {j: [] if parent[j] < 0 else [parent[j]] for j in range(d)})

    def _candidate_arcs(
        self, scorer: FoldScorer, d: int, children: Any, after: Any, params: dict
    ) -> list[tuple[int, int]]:
        """The arcs a step chooses among: every arc to an orphan that makes no cycle."""
        return [(i, j) for i in range(d) for j in children(i)]

    def _restore_model(self, saved: SavedState) -> None:
        super()._restore_model(saved)
        self._restore_history(saved)
        arcs = [names for op, names in self.steps_]
        c = self.class_name_
        want = {f: [c] for f in self.feature_names_in_}
        ok = all(op == "arc" and len(a) == 2 for op, a in self.steps_)
        for p, f in arcs if ok else ():
            ok = ok and f in want and p in want and want[f] == [c]
            if ok:
                want[f] = [c, p]
        if not ok or any(self.model_.parents(f) != want[f] for f in want):
            raise saved.fail("model", "has steps settings that are not the arcs of its network")
        self.arcs_ = [tuple(a) for a in arcs]


class TANSuperParent(TANHillClimb):
    """TAN by super-parent hill climbing on cross-validated accuracy (Keogh and Pazzani,
    1999; bnclassify's ``tan_hcsp``).

    Starts from naive Bayes. Each step first picks the **super-parent**: the feature
    ``x_i`` whose network, with ``x_i`` made the parent of every orphan it may adopt (a
    feature without a feature parent, not ``x_i`` nor one of its ancestors), has the best
    k-fold cross-validated accuracy; then its **favourite child**: the one of those orphans
    whose single arc ``x_i -> x_j`` gives the best accuracy. The arc is added when it
    improves the accuracy, else the search stops (fewer candidates scored per step than
    :class:`TANHillClimb`'s every arc: ``d`` super-parents and their children). Accuracies
    from fold counts (see the module docstring); ties go to the first feature by column.

    Parameters
    ----------
    cv : int, default=5
        The number of folds (``StratifiedKFold(cv, shuffle=True, random_state)``).
    random_state : int, numpy.random.Generator or None, default=None
        The folds' seed.
    n_jobs : int or None, default=None
        Threads scoring a step's candidates (None: one); the same result.
    alpha : float, default=1.0
        Lidstone pseudocount (> 0) of every CPT.
    fit_prior : bool, default=True
        As :class:`~treelearn.NaiveBayes`'s.
    class_prior : array-like of float, default=None
        As :class:`~treelearn.NaiveBayes`'s.
    unseen : {"error", "ignore"}, default="error"
        As :class:`~treelearn.NaiveBayes`'s.
    numbers : {"mdl", "states"}, default="mdl"
        As :class:`~treelearn.NaiveBayes`'s.
    categorical : sequence of hashable, default=None
        As :class:`~treelearn.NaiveBayes`'s.
    class_arcs : {"average", "all"}, default="average"
        ``"average"``: each class arc averaged in or out (Dash and Cooper, 2002, for the
        fixed structure), as in :class:`~treelearn.NaiveBayes`; ``"all"``: the plain CPTs.
    arc_prior : float, default=0.5
        The prior probability of each arc from the class, as in :class:`~treelearn.NaiveBayes`.

    Attributes
    ----------
    arcs_, cv_accuracy_, steps_, model_
        As :class:`TANHillClimb`'s (each arc's parent is its step's super-parent).

    See Also
    --------
    TANHillClimb : scores every arc at each step.
    TAN : the feature tree by conditional mutual information, no search.

    References
    ----------
    .. [1] Keogh, E. J. and Pazzani, M. J. (1999). Learning augmented Bayesian classifiers:
       a comparison of distribution-based and classification-based approaches. In
       Proceedings of the 7th International Workshop on AI and Statistics, 225-230.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> X, y = df.drop(columns="either"), df["either"]
    >>> clf = tl.TANSuperParent(random_state=0, class_arcs="all").fit(X, y)   # plain CPTs
    >>> clf.arcs_, clf.cv_accuracy_.round(4).tolist()   # lung is the super-parent twice
    ([('lung', 'tub'), ('lung', 'asia')], [0.9997, 0.9998, 0.9999])
    >>> tl.TANSuperParent(random_state=0).fit(X, y).arcs_   # averaged: naive Bayes is 0.9998
    []
    """

    _method = "tan-hcsp"

    def _candidate_arcs(
        self, scorer: FoldScorer, d: int, children: Any, after: Any, params: dict
    ) -> list[tuple[int, int]]:
        adoptive = {i: children(i) for i in range(d)}
        parents = [i for i in range(d) if adoptive[i]]
        if not parents:
            return []
        _, best = _best(
            scorer,
            parents,
            lambda i: scorer.accuracy(after([(i, j) for j in adoptive[i]])),
            params["n_jobs"],
        )
        return [(best, j) for j in adoptive[best]]
