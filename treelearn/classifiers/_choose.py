"""``AutoClassifier``: the classifier that chooses among treelearn's classifiers by
cross-validated log-loss.

The candidates that apply to the table's columns are scored on the same stratified folds
(scikit-learn's ``StratifiedKFold(cv, shuffle=True, random_state)``); the score of a
candidate is its held-out log-loss, ``-sum_i w_i log p(y_i | x_i) / sum_i w_i`` over every
row, each row predicted by the candidate learned on the other folds. The candidate of the
lowest log-loss (the first in :data:`CANDIDATES` order on a tie at 12 decimals) is then
learned on every row and answers for the classifier.

On complete categorical rows, naive Bayes, TAN, KDB(1), KDB(2), AODE and SKDB are scored
from **fold counts** (no refit: :class:`FoldCounts`, the held-in counts of a fold being the
whole table's minus the fold's, each fold's structure learned from them; SKDB's
leave-one-out selection reads them too); every other candidate, and every candidate on a
table with numeric columns (whose MDL bins are learned from each fold's training rows) or
missing cells, is refitted on each fold's held-in rows. WeightedNaiveBayes (WANBIA) is
always refitted: its weights maximise the conditional likelihood of the held-in rows by
L-BFGS, which no sum of counts gives. The states of each categorical column are the whole table's (declared, as
the fold counts have them), so that no fold meets a state its training rows lacked.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any, ClassVar, cast

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_consistent_length, column_or_1d

from .._base.errors import InputTypeError, ResourceLimitError, TreelearnError
from .._base.limits import check_memory
from .._base.logspace import logsumexp
from .._base.persistence import ESTIMATORS, SavedState
from .._base.validation import RANDOM_STATE, InstanceOf, Interval
from ..encoding._table import check_sample_weight
from ..models._base import ChosenCapabilities
from ..sources._value_class_counts import gaussian_number_columns
from ..stats._counts import ClassCounts, PairCounts, count_codes, offsets_of, sum_counts
from ..stats._information import conditional_mutual_information_matrix, mutual_information_matrix
from ..structure._trees import orient_arrays, round_ties, spanning_tree_edges
from ._base import BayesNetClassifier, TrainingData, categorical_training
from ._class_arcs import class_arc_posteriors
from ._gaussian import GaussianClassifier
from ._gaussian_tan import GaussianTAN
from ._mixed import MixedNaiveBayes
from ._mixed_tan import MixedTAN
from ._naive_bayes import NaiveBayes
from ._seminaive import AODE, KDB, kdb_parents, leave_one_out_losses
from ._skdb import SKDB
from ._tan import TAN
from ._weighted import WeightedNaiveBayes
from ._wrappers import FoldScorer

__all__ = [
    "CANDIDATES",
    "FOLD_COUNTED",
    "PASSED_ON",
    "AutoClassifier",
    "FoldCounts",
    "applicable",
    "fold_of_rows",
]

#: every candidate by name: (its estimator, the tables it is tried on: "any" table, tables
#: with "numbers" (numeric or mixed), or "numeric" tables). The classifiers that count
#: states cut numeric columns into supervised MDL bins learned in ``fit`` (on each fold's
#: training rows in cross-validation)
CANDIDATES: dict[str, tuple[Any, str]] = {
    "NaiveBayes": (lambda: NaiveBayes(numbers="mdl"), "any"),
    "TAN": (lambda: TAN(numbers="mdl"), "any"),
    "KDB1": (lambda: KDB(k=1, numbers="mdl"), "any"),
    "KDB2": (lambda: KDB(k=2, numbers="mdl"), "any"),
    "AODE": (lambda: AODE(numbers="mdl"), "any"),
    "SKDB": (lambda: SKDB(numbers="mdl"), "any"),
    "WeightedNaiveBayes": (lambda: WeightedNaiveBayes(numbers="mdl"), "any"),
    "MixedNaiveBayes": (lambda: MixedNaiveBayes(), "numbers"),
    "MixedTAN": (lambda: MixedTAN(), "numbers"),
    "GaussianClassifier": (lambda: GaussianClassifier(covariance="diagonal", reg=1e-9), "numeric"),
    "GaussianTAN": (lambda: GaussianTAN(), "numeric"),
}


def _numeric_columns(frame: pd.DataFrame) -> list:
    """The columns modelled as numbers: the mixed classifiers' rule (by dtype only; dates
    stay states), so a candidate and the table's kind agree on every column."""
    return gaussian_number_columns(frame.dtypes)


def applicable(frame: pd.DataFrame) -> list[str]:
    """The candidates tried on the table's columns, in :data:`CANDIDATES` order."""
    numeric = _numeric_columns(frame)
    kinds = {"any"}
    if numeric:
        kinds.add("numbers")
    if numeric and len(numeric) == frame.shape[1]:
        kinds.add("numeric")
    return [name for name, (_, takes) in CANDIDATES.items() if takes in kinds]


def _declared(frame: pd.DataFrame, numeric: list) -> pd.DataFrame:
    """A copy with each categorical column's states declared as the whole table's, and
    each numeric column as floats (a number for every candidate, whatever its values)."""
    out = frame.copy()
    for c in frame.columns:
        if c in numeric:
            out[c] = frame[c].astype(np.float64)
        elif not isinstance(frame[c].dtype, pd.CategoricalDtype):
            values = frame[c].dropna()
            out[c] = pd.Categorical(frame[c], categories=sorted(pd.unique(values), key=_order))
    return out


def _as_numbers(X: Any) -> Any:
    """A table's numeric columns as floats, as :func:`_declared` gave them in ``fit``."""
    if not isinstance(X, pd.DataFrame):
        return X
    numeric = _numeric_columns(X)
    if not numeric or all(X[c].dtype == np.float64 for c in numeric):
        return X
    return X.astype(dict.fromkeys(numeric, np.float64))


def fold_of_rows(y: np.ndarray, cv: Any, random_state: Any) -> np.ndarray:
    """Each row's fold: ``StratifiedKFold(cv, shuffle=True, random_state)`` on the labels,
    or the test sets of the ``(train, test)`` pairs ``cv``."""
    if not isinstance(cv, Integral):
        folds = np.full(len(y), -1, dtype=np.intp)
        for f, (_, test) in enumerate(cv):
            folds[np.asarray(test, dtype=np.intp)] = f
        if (folds < 0).any() or sum(len(t) for _, t in cv) != len(y):
            raise TreelearnError(
                "cv: every row must be in exactly one test set of the (train, test) pairs; "
                "give such splits or a number of folds"
            )
        return folds
    most = int(np.bincount(y).max()) if len(y) else 0
    if most < int(cv):
        raise TreelearnError(
            f"AutoClassifier scores each candidate by {cv}-fold cross-validation (cv={cv}), "
            f"which needs at least {cv} rows of some class; got n_samples = {len(y)}, the "
            f"largest class has {most}: "
            f"give more rows or a smaller cv (>= 2)"
        )
    folds = np.empty(len(y), dtype=np.intp)
    splitter = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    for f, (_, test) in enumerate(splitter.split(np.zeros((len(y), 1)), y)):
        folds[test] = f
    return folds


#: the candidates scored from fold counts on complete categorical tables (their options
#: the defaults of :data:`CANDIDATES`: Lidstone ``alpha = 1``, the class prior the held-in
#: class frequencies, AODE's ``min_count = 1``; SKDB's ``max_k = 5``, log-loss, and its
#: prior ``(N(c) + 1) / (N + |C|)``). Not WeightedNaiveBayes: WANBIA's weights come from
#: L-BFGS on the conditional likelihood of the rows, refitted on each fold
FOLD_COUNTED = ("NaiveBayes", "TAN", "KDB1", "KDB2", "AODE", "SKDB")


class FoldCounts:
    """Held-out ``log p(y_i | x_i)`` of naive Bayes, TAN, KDB(1), KDB(2), AODE and SKDB from
    fold counts, on complete categorical rows.

    Each fold's class-conditional pair counts are counted once (one one-hot product per
    fold and class); the held-in counts of fold ``f`` are the whole table's minus fold
    ``f``'s. From them each fold's structure is learned as the candidate learns it from
    its training rows: TAN's maximum spanning tree of ``I(X_i; X_j | C)`` rooted at the
    first feature, KDB's ranking by ``I(X_i; C)`` and parents by ``I(X_i; X_j | C)``. A
    family's counts of every fold come from one ``bincount`` over the rows (the fold and
    the class in its index; the held-in counts total minus own, as
    :class:`~treelearn.classifiers._wrappers.FoldScorer` counts them), and each fold's
    held-out rows gather their Lidstone (``alpha = 1``) conditionals from them; AODE's
    terms come from each fold's held-in pair tables (one product per fold and class, as
    AODE's own prediction); SKDB's leave-one-out selection of ``k`` and features runs over
    each fold's held-in rows with the fold's held-in family counts
    (:meth:`skdb_choice`). No candidate is refitted: every candidate shares the fold
    counts, and a family shared by two folds' structures or two candidates is counted
    once.
    """

    def __init__(
        self, table: pd.DataFrame, y: np.ndarray, weights: np.ndarray | None, folds: np.ndarray
    ) -> None:
        columns = [table[c].cat.codes.to_numpy().astype(np.intp) for c in table.columns]
        self.d = len(columns)
        self.cards = np.asarray(
            [*(len(table[c].cat.categories) for c in table.columns), int(y.max()) + 1],
            dtype=np.int64,
        )
        self.codes = np.column_stack([*columns, y]) if columns else y[:, None].astype(np.intp)
        self.y = y
        self.w = weights
        self.folds = folds
        self.n_folds = int(folds.max()) + 1
        self.scorer = FoldScorer(
            self.codes,
            weights,
            self.cards,
            folds,
            alpha=1.0,
            log_prior=None,
        )
        self._held_in: list[list[PairCounts]] | None = None
        self._families: dict[tuple, tuple] = {}
        self._dense: dict[tuple, np.ndarray] = {}
        self._rows = [np.flatnonzero(folds == f) for f in range(self.n_folds)]

    # ------------------------------------------------------------ structures
    def held_in(self) -> list[list[PairCounts]]:
        """``[fold][class]``: the class-conditional pair counts of each fold's held-in rows,
        the whole table's minus the fold's (exact integers without fractional weights)."""
        if self._held_in is not None:
            return self._held_in
        C, F = int(self.cards[-1]), self.n_folds
        width = int(self.cards.sum())
        check_memory(
            8.0 * (F + 1) * C * width * width,
            "AutoClassifier's fold counts (the class-conditional pair counts of each fold)",
            "give fewer features or states, a smaller cv, or candidates=['NaiveBayes']",
        )

        def counted(f: int, c: int) -> np.ndarray:
            rows = (self.folds == f) & (self.y == c)
            w = None if self.w is None else self.w[rows]
            return count_codes(self.codes[rows], self.cards, weights=w)

        own = [[counted(f, c) for c in range(C)] for f in range(F)]
        total = [sum_counts([own[f][c] for f in range(F)]) for c in range(C)]
        held: list[list[PairCounts]] = []
        for f in range(F):
            per_class = []
            for c in range(C):
                joint = total[c] - own[f][c]
                n_rows = (
                    int(np.diagonal(joint)[-C:].sum())
                    if joint.dtype.kind in "iu"
                    else float(np.diagonal(joint)[-C:].sum())
                )
                per_class.append(PairCounts(joint, self.cards, n_rows))
            held.append(per_class)
        self._held_in = held
        return held

    def tan_parents(self, f: int) -> dict[int, list[int]]:
        """Fold ``f``'s TAN: the maximum spanning tree of the held-in ``I(X_i; X_j | C)``
        (ties by column order), oriented away from the first feature."""
        d = self.d
        cmi = conditional_mutual_information_matrix(self.held_in()[f])[:d, :d]
        edges = spanning_tree_edges(cmi)
        a = np.array([e[0] for e in edges], dtype=np.intp)
        b = np.array([e[1] for e in edges], dtype=np.intp)
        parent, child, _ = orient_arrays(d, a, b, root=0)
        out: dict[int, list[int]] = {j: [] for j in range(d)}
        for p, c in zip(parent.tolist(), child.tolist()):
            out[c] = [p]
        return out

    def fold_mutual_information(self, f: int) -> tuple[np.ndarray, np.ndarray]:
        """Fold ``f``'s held-in ``I(X_i; C)`` per feature and ``I(X_i; X_j | C)`` per pair,
        KDB's and SKDB's ranking and parents."""
        d = self.d
        per_class = self.held_in()[f]
        together = PairCounts(
            sum_counts([pc.joint for pc in per_class]),
            self.cards,
            sum(pc.n_rows for pc in per_class),
        )
        class_mi = mutual_information_matrix(together)[:d, d]
        return class_mi, conditional_mutual_information_matrix(per_class)[:d, :d]

    def kdb_parents(self, f: int, k: int) -> dict[int, list[int]]:
        """Fold ``f``'s KDB(k): features ranked by the held-in ``I(X_i; C)``, parents by
        ``I(X_i; X_j | C)``."""
        class_mi, cmi = self.fold_mutual_information(f)
        return dict(kdb_parents(class_mi, cmi, k))

    # ------------------------------------------------------------ scores
    def _configurations(self, parents: Sequence[int]) -> tuple[np.ndarray, int]:
        """Each row's parent configuration as ``0 .. q - 1`` (renumbered to the
        configurations seen when the product of the parents' states grows past the rows),
        as FoldScorer numbers them."""
        n = len(self.y)
        config, q = np.zeros(n, dtype=np.intp), 1
        for p in parents:
            k = int(self.cards[p])
            if q * k > 4 * n + 16:
                uniq, config = np.unique(config, return_inverse=True)
                q = len(uniq)
            config, q = config * k + self.codes[:, p], q * k
        return config, q

    def _family(self, child: int, parents: tuple[int, ...]) -> tuple:
        """A family's held-in counts of every fold, ``(F, q k, C)`` and ``(F, q, C)`` for
        its parents, with each row's cell and parent configuration (counted once)."""
        key = (child, parents)
        if key not in self._families:
            scorer = self.scorer
            config, q = self._configurations(parents)
            k, C, F = int(self.cards[child]), int(self.cards[-1]), self.n_folds
            check_memory(
                8.0 * 3 * F * q * k * C,
                "the fold counts of a family",
                "give fewer rows or features with fewer states",
            )
            cell = config * k + self.codes[:, child]
            flat = (self.folds * (q * k) + cell) * C + self.y
            own = np.bincount(flat, weights=scorer.w, minlength=F * q * k * C).reshape(F, q * k, C)
            held = np.maximum(own.sum(axis=0)[None] - own, 0.0)  # held in: total - own fold
            by_class = held.reshape(F, q, k, C)
            arc = class_arc_posteriors(  # each fold's P(C -> X_child | its held-in rows)
                by_class.transpose(0, 3, 1, 2), 0, 1.0, "lidstone", 1.0, 1.0, 0.5
            )
            self._families[key] = (held, by_class.sum(axis=2), cell, config, k, arc)
        return self._families[key]

    def _fold_term(self, f: int, child: int, parents: Sequence[int]) -> np.ndarray:
        """``log p_f(x_child | c, x_parents)`` of fold ``f``'s rows, every class (Lidstone
        ``alpha = 1``, as :meth:`FoldScorer.term <treelearn.classifiers._wrappers.FoldScorer.term>`)."""
        held, parent_held, cell, config, k, arc = self._family(child, tuple(sorted(parents)))
        rows = self._rows[f]
        num, den = held[f, cell[rows]], parent_held[f, config[rows]]
        alone = (num.sum(axis=1, keepdims=True) + 1.0) / (den.sum(axis=1, keepdims=True) + k)
        # the candidates' default class_arcs="average": the fold's class-arc average
        return np.log(arc[f] * (num + 1.0) / (den + k) + (1.0 - arc[f]) * alone)

    def _network(self, parents_of: Any) -> np.ndarray:
        """The class prior plus every family's term, each row under its fold's structure."""
        out = self.scorer.base.copy()
        for f in range(self.n_folds):
            rows = self._rows[f]
            out[rows] += sum(
                (self._fold_term(f, j, ps) for j, ps in parents_of(f).items()),
                np.zeros((len(rows), out.shape[1])),
            )
        return out

    def _aode(self) -> np.ndarray:
        """AODE (alpha = 1, min_count = 1): the average over the super-parents whose value
        the held-in rows saw of ``P(y, x_i) prod_{j != i} P(x_j | y, x_i)``; naive Bayes
        with the smoothed prior where none was seen."""
        n, d, F = len(self.y), self.d, self.n_folds
        C = int(self.cards[-1])
        w = np.ones(n) if self.w is None else self.w
        cards = self.cards[:d]
        offsets = offsets_of(cards)
        width, starts = int(offsets[-1]), offsets[:-1]
        owner = np.repeat(np.arange(d), cards)
        k = cards[owner].astype(float)  # |X_j| of each one-hot column's feature
        total = np.full((n, C), -np.inf)
        used = np.zeros(n)
        index = offsets[:-1][None, :] + self.codes[:, :d]  # (n, d): each value's one-hot column
        for f in range(F if d else 0):
            # the held-in T[y, a, b] = N_f(y, x_i = a, x_j = b), as AODE's own tables
            T = np.stack([pc.joint[:width, :width] for pc in self.held_in()[f]]).astype(float)
            nb = np.stack([np.diagonal(t) for t in T])  # (C, K): N_f(y, x_i = a)
            n_i = np.add.reduceat(nb.sum(axis=0), starts)[owner]  # N_f where x_i is observed
            log_pair = np.log((nb + 1.0) / (n_i + C * k))  # P(y, x_i)
            den = np.add.reduceat(T, starts, axis=2)[:, :, owner]  # N_f(y, x_i = a)
            log_cond = np.log((T + 1.0) / (den + k[None, None, :]))
            log_cond[:, owner[:, None] == owner[None, :]] = 0.0  # j == i: not in the product
            rows = np.flatnonzero(self.folds == f)
            X = np.zeros((len(rows), width))
            X[np.arange(len(rows))[:, None], index[rows]] = 1.0
            at = index[rows]  # (n_f, d): the super-parents' values
            seen = nb.sum(axis=0)[at] >= 1.0  # N_f(x_i) >= min_count = 1
            for c in range(C):
                # sums[r, a] = sum_j log P(x_j | y = c, x_i = a) over row r's values x_j
                sums = X @ log_cond[c].T
                term = log_pair[c][at] + np.take_along_axis(sums, at, axis=1)  # (n_f, d)
                term = np.where(seen, term, -np.inf)
                total[rows, c] = logsumexp(term, axis=1)
            used[rows] = seen.sum(axis=1)
        out = np.empty((n, C))
        some = used > 0
        out[some] = total[some] - np.log(used[some])[:, None]
        if not some.all():  # naive Bayes with the smoothed prior (N(y) + 1) / (N + |Y|)
            by_class = np.bincount(self.folds * C + self.y, weights=w, minlength=F * C)
            held = np.maximum(by_class.reshape(F, C).sum(axis=0)[None] - by_class.reshape(F, C), 0)
            prior = np.log((held + 1.0) / (held.sum(axis=1, keepdims=True) + C))[self.folds]
            nb = prior + sum((self.scorer.term(j, []) for j in range(d)), np.zeros((n, C)))
            out[~some] = nb[~some]
        return out

    # ------------------------------------------------------------ SKDB
    def _dense_family(self, family: tuple[int, ...]) -> np.ndarray:
        """``(F, |family's states|...)``: the held-in counts of ``family`` (column indices,
        the class first) of every fold, the whole table's minus the fold's, from one
        ``bincount`` over the rows (the fold in its index)."""
        key = family
        if key not in self._dense:
            shape = tuple(int(self.cards[j]) for j in family)
            size = int(np.prod(shape, dtype=np.int64))
            check_memory(
                8.0 * 2 * self.n_folds * size,
                "the fold counts of an SKDB family",
                "give fewer features or states, a smaller cv, or candidates= without SKDB",
            )
            flat = np.ravel_multi_index(
                (self.folds, *(self.codes[:, j] for j in family)), (self.n_folds, *shape)
            )
            own = np.bincount(flat, weights=self.w, minlength=self.n_folds * size)
            own = own.reshape(self.n_folds, *shape)
            held = own.sum(axis=0)[None] - own
            # fractional weights: total minus own is the held-in sum to round-off, never < 0
            self._dense[key] = held if held.dtype.kind in "iu" else np.maximum(held, 0.0)
        return self._dense[key]

    def skdb_choice(
        self, f: int, max_k: int = 5
    ) -> tuple[list[tuple[int, list[int]]], int, int, np.ndarray]:
        """Fold ``f``'s SKDB (``max_k``, log-loss, Lidstone ``alpha = 1``): its k-DB ranking
        from the held-in ``I(X_i; C)`` and ``I(X_i; X_j | C)``, the ``(k, s)`` of least
        leave-one-out loss over the held-in rows and that loss (SKDB's ``loo_loss_``),
        computed by SKDB's own :func:`~treelearn.classifiers._seminaive.leave_one_out_losses`
        from the fold's held-in family counts (no refit: the same counts SKDB counts from
        those rows)."""
        class_mi, cmi = self.fold_mutual_information(f)
        ranked = [(j, list(ps)) for j, ps in kdb_parents(class_mi, cmi, max_k)]
        held_in = self.folds != f
        loo = leave_one_out_losses(
            cast(ClassCounts, _HeldInCounts(self, f)),  # the four things leave-one-out reads
            ranked,
            max_k,
            self.codes[held_in],
            None if self.w is None else self.w[held_in],
            alpha=1.0,
            log_prior=None,
            loss="log_loss",
        )
        k, s = np.unravel_index(np.argmin(round_ties(loo)), loo.shape)
        return ranked, int(k), int(s), loo

    def _skdb(self) -> np.ndarray:
        """SKDB (``max_k = 5``, ``alpha = 1``): each fold's selected k-DB, its class prior
        ``(N_f(c) + 1) / (N_f + |C|)`` and its families' Lidstone terms; the features it
        leaves out are isolated nodes (a factor equal for every class: left out)."""
        n, C, F = len(self.y), int(self.cards[-1]), self.n_folds
        by_class = self._dense_family((self.d,))  # (F, C): N_f(c)
        prior = np.log((by_class + 1.0) / (by_class.sum(axis=1, keepdims=True) + C))
        out = np.empty((n, C))
        for f in range(F):
            ranked, k, s, _ = self.skdb_choice(f)
            rows = self._rows[f]
            out[rows] = prior[f][None, :] + sum(
                (self._fold_term(f, j, parents[:k]) for j, parents in ranked[:s]),
                np.zeros((len(rows), C)),
            )
        return out

    def log_p(self, name: str) -> np.ndarray:
        """Each row's held-out ``log p(y_i | x_i)`` under the candidate ``name``."""
        if name == "NaiveBayes":
            joint = self._network(lambda f: {j: [] for j in range(self.d)})
        elif name == "TAN":
            joint = self._network(self.tan_parents)
        elif name in ("KDB1", "KDB2"):
            k = int(name[-1])
            joint = self._network(lambda f: self.kdb_parents(f, k))
        elif name == "AODE":
            joint = self._aode()
        elif name == "SKDB":
            joint = self._skdb()
        else:
            raise KeyError(name)
        with np.errstate(invalid="ignore"):
            log_p = joint[np.arange(len(self.y)), self.y] - logsumexp(joint, axis=1)
        return np.where(np.isnan(log_p), -np.inf, log_p)


#: what a fitted AutoClassifier answers where its chosen classifier does: predictions,
#: explanations, pictures, and the chosen network's files and inference (``learn --method
#: auto --bif``, ``show --bif``, ``query`` on the saved choice); not ``partial_fit``: rows
#: added to the chosen classifier would not be rows its choice was made on
PASSED_ON = frozenset(
    {
        "classify",
        "score",
        "explain",
        "draw",
        "explorer",
        "to_pgmpy",
        "bif",
        "pyagrum",
        "query",
        "marginals",
        "map",
        "sample",
        "sample_given",
    }
)


class _HeldInCounts:
    """Fold ``f``'s held-in counts as SKDB's leave-one-out reads its ``ClassCounts``:
    ``classes``, ``cardinalities`` (the features', then the class's), ``class_count`` and
    ``family_counts(family)`` (the class first, the node last)."""

    def __init__(self, counts: FoldCounts, f: int) -> None:
        self._counts, self._f = counts, f
        self.cardinalities = counts.cards
        self.classes = np.arange(int(counts.cards[-1]))
        self.class_count = counts._dense_family((counts.d,))[f]

    def family_counts(self, family: Sequence[int]) -> np.ndarray:
        return self._counts._dense_family(tuple(int(j) for j in family))[self._f]


def _order(value: Any) -> tuple:
    return (type(value).__name__, value)


class AutoClassifier(BayesNetClassifier):
    """The classifier that chooses: the candidate of lowest cross-validated log-loss.

    Parameters
    ----------
    candidates : sequence of str, default=None
        The names of the candidates to try (``"NaiveBayes"``, ``"TAN"``,
        ``"KDB1"``, ``"KDB2"``, ``"AODE"``, ``"SKDB"``, ``"WeightedNaiveBayes"``,
        ``"MixedNaiveBayes"``, ``"MixedTAN"``, ``"GaussianClassifier"``,
        ``"GaussianTAN"``); ``None`` (default): every one
        that takes the table's columns -- NaiveBayes, TAN, KDB(k=1), KDB(k=2), AODE,
        SKDB and WeightedNaiveBayes on every table (numeric columns cut into
        supervised MDL bins, ``numbers="mdl"``), MixedNaiveBayes and MixedTAN on tables
        with numeric columns, GaussianClassifier and GaussianTAN on numeric tables.
    cv : int or list of tuple, default=5
        The number of stratified folds (>= 2), or the folds as scikit-learn's
        ``(train, test)`` index pairs (every row in one test set).
    random_state : int, numpy.random.Generator or None, default=0
        The folds' shuffle.

    Attributes
    ----------
    chosen_ : the name of the chosen candidate.
    candidate_scores_ : ``{name: cross-validated log-loss}`` of every candidate tried
        (``inf`` where a fold gave a held-out row probability zero or the candidate
        refused the table, see ``candidate_errors_``).
    candidate_errors_ : ``{name: message}`` of the candidates that refused the table.
    estimator_ : the chosen candidate learned on every row; it answers the predictions.
    classes_, class_name_, class_count_, class_log_prior_, n_features_in_, feature_names_in_
        As every classifier's.

    See Also
    --------
    NaiveBayes, TAN, AODE : candidates it compares.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> X, y = df.drop(columns="either"), df["either"]
    >>> clf = tl.AutoClassifier(candidates=["NaiveBayes", "TAN"], random_state=0).fit(X, y)
    >>> clf.chosen_
    'TAN'
    >>> sorted(clf.candidate_scores_)
    ['NaiveBayes', 'TAN']
    """

    cli_method: ClassVar[str | None] = None
    #: unfitted: what every candidate answers; fitted: what the chosen classifier answers of
    #: the words passed on to it (``learn --class C --method auto --plot`` draws the choice)
    capabilities = ChosenCapabilities(
        frozenset.intersection(*(type(make()).capabilities for make, *_ in CANDIDATES.values())),
        PASSED_ON,
        "estimator_",
    )
    to_pgmpy = capabilities.pass_on("to_pgmpy", "to_pgmpy")
    to_bif = capabilities.pass_on("to_bif", "bif")
    to_xmlbif = capabilities.pass_on("to_xmlbif", "bif")
    to_uai = capabilities.pass_on("to_uai", "bif")
    to_pyagrum = capabilities.pass_on("to_pyagrum", "pyagrum")
    query = capabilities.pass_on("query", "query")
    marginals = capabilities.pass_on("marginals", "marginals")
    map_query = capabilities.pass_on("map_query", "map")
    sample = capabilities.pass_on("sample", "sample")
    _parameter_constraints: ClassVar[dict] = {
        "candidates": [None, InstanceOf(list, tuple, name="a list of candidate names")],
        "cv": [Interval(Integral, 2, None), InstanceOf(list, tuple, name="a list of splits")],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        candidates: Sequence[str] | None = None,
        cv: int = 5,
        random_state: int | None = 0,
    ) -> None:
        self.candidates = candidates
        self.cv = cv
        self.random_state = random_state

    # ------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> AutoClassifier:
        """Score every candidate on the folds, then learn the best on every row."""
        params = self._checked_params()
        frame = X if isinstance(X, pd.DataFrame) else None
        if frame is None:
            try:
                array = check_array(X, dtype=None, ensure_all_finite=False, accept_sparse=False)
            except (
                TypeError,
                ValueError,
            ) as exc:  # scikit-learn's words kept: its checks read them
                raise InputTypeError(
                    f"AutoClassifier takes a table as X (a DataFrame or a 2-D array), not a "
                    f"{type(X).__name__}: {exc}"
                ) from exc
            frame = pd.DataFrame(array, columns=[f"x{j}" for j in range(array.shape[1])])
        if frame.shape[0] == 0:
            raise TreelearnError("AutoClassifier needs at least one row, got 0 (n_samples = 0)")
        names = self._candidate_names(frame, params["candidates"])
        if y is None:
            raise ValueError(
                "AutoClassifier requires y to be passed, but the target y is None: give the "
                "class labels"
            )
        check_classification_targets(y)
        if not isinstance(y, pd.Series) and np.asarray(y).ndim == 2 and np.asarray(y).shape[1] == 1:
            y = column_or_1d(
                np.asarray(y), warn=True
            )  # a column vector: scikit-learn's warning, 1-D on
        labels = (y if isinstance(y, pd.Series) else pd.Series(np.asarray(y).ravel())).reset_index(
            drop=True
        )
        frame = frame.reset_index(drop=True)
        check_consistent_length(frame, labels)
        weights = check_sample_weight(sample_weight, len(frame))
        numeric = _numeric_columns(frame)
        table = _declared(frame, numeric)
        _, codes = np.unique(labels.to_numpy(), return_inverse=True)
        folds = fold_of_rows(codes.astype(np.intp), params["cv"], params["random_state"])
        scores: dict[str, float] = {}
        errors: dict[str, str] = {}
        counted = None
        categorical = all(isinstance(table[c].dtype, pd.CategoricalDtype) for c in table.columns)
        if categorical and not table.isna().to_numpy().any():
            counted = FoldCounts(table, codes.astype(np.intp), weights, folds)
        for name in names:
            try:
                scores[name] = self._cv_log_loss(
                    name, table, labels, codes, weights, folds, counted
                )
            except TreelearnError as exc:
                scores[name], errors[name] = float("inf"), str(exc)
        finite = {k: v for k, v in scores.items() if np.isfinite(v)}
        pool = finite or scores
        rounded = {k: round(v, 12) if np.isfinite(v) else v for k, v in pool.items()}
        chosen = min(rounded, key=lambda k: rounded[k])  # the first on a tie (dict order)
        estimator = CANDIDATES[chosen][0]()
        estimator.fit(table if isinstance(X, pd.DataFrame) else X, y, sample_weight=sample_weight)
        self.estimator_ = estimator
        self.chosen_ = chosen
        self.candidate_scores_ = scores
        self.candidate_errors_ = errors
        self._copy_header(estimator)
        return self

    def _candidate_names(self, frame: pd.DataFrame, given: Any) -> list[str]:
        if given is None:
            return applicable(frame)
        names = list(given)
        unknown = [n for n in names if n not in CANDIDATES]
        if unknown or not names:
            raise TreelearnError(
                f"candidates must name some of {list(CANDIDATES)}, got {given!r}",
                values=unknown,
            )
        return names

    def _copy_header(self, est: BayesNetClassifier) -> None:
        self.__dict__.pop("feature_names_in_", None)
        self.classes_ = est.classes_
        self.class_name_ = est.class_name_
        if getattr(est, "feature_names_in_", None) is not None:
            self.feature_names_in_ = est.feature_names_in_
        self.n_features_in_ = est.n_features_in_
        self.class_count_ = est.class_count_
        self.class_log_prior_ = est.class_log_prior_

    def _cv_log_loss(
        self,
        name: str,
        table: pd.DataFrame,
        labels: pd.Series,
        codes: np.ndarray,
        weights: np.ndarray | None,
        folds: np.ndarray,
        counted: FoldCounts | None = None,
    ) -> float:
        """The candidate's held-out log-loss over every row (fold counts where they suffice)."""
        w = np.ones(len(table)) if weights is None else np.asarray(weights, dtype=float)
        log_p = None
        if counted is not None and name in FOLD_COUNTED:
            try:
                log_p = counted.log_p(name)
            except ResourceLimitError:
                if name != "SKDB":
                    raise
                # SKDB's largest families held for every fold at once would pass the memory
                # limit: refitted fold by fold, as before, each fold's families alone
        if log_p is None:
            log_p = np.empty(len(table))
            for f in range(int(folds.max()) + 1):
                held_out, held_in = folds == f, folds != f
                est = CANDIDATES[name][0]()
                est.fit(
                    table[held_in],
                    labels[held_in],
                    sample_weight=None if weights is None else w[held_in],
                )
                proba = est.predict_log_proba(table[held_out])
                index = {c: i for i, c in enumerate(est.classes_.tolist())}
                truth = labels[held_out].tolist()
                seen = np.array([t in index for t in truth])
                rows = np.full(len(truth), -np.inf)
                rows[seen] = proba[
                    np.flatnonzero(seen), [index[t] for t in np.array(truth, dtype=object)[seen]]
                ]
                log_p[held_out] = rows
        used = w > 0
        if not np.isfinite(log_p[used]).all():
            return float("inf")
        return float(-np.sum(w[used] * log_p[used]) / np.sum(w[used]))

    # ------------------------------------------------------------ answers: the chosen one's
    def _training_data(self, X: Any, y: Any, sample_weight: Any) -> TrainingData:
        return categorical_training(X, y, sample_weight)

    def _learn(self, stats: Any, params: dict) -> None:  # fit is the chooser's own
        raise NotImplementedError

    def _prediction_input(self, X: Any) -> Any:
        return self.estimator_._prediction_input(_as_numbers(X))

    def _joint_log_likelihood(self, rows: Any) -> np.ndarray:
        return self.estimator_._joint_log_likelihood(rows)

    def _sums_out(self) -> bool:
        return self.estimator_._sums_out()

    def _explain_game(self, rows: Any, background: Any) -> Any:
        return self.estimator_._explain_game(rows, background)

    def _feature_groups(self) -> list | None:
        return self.estimator_._feature_groups()

    def _take_rows(self, rows: Any, index: np.ndarray) -> Any:  # type: ignore[override]
        return self.estimator_._take_rows(rows, index)

    def _mask_rows(self, rows: Any, keep: np.ndarray, other: Any) -> Any:
        return self.estimator_._mask_rows(rows, keep, other)

    def _refusal_reason(self, capability: str) -> tuple[str, str, tuple[str, ...]] | None:
        if "estimator_" not in vars(self):
            return None
        able = [n for n, (make, _) in CANDIDATES.items() if make().supports(capability)]
        return (
            f"it chose {self.chosen_}, which does not",
            f"give candidates= of those that do ({', '.join(able) or 'none'})",
            ("candidates",),
        )

    @property
    def n_parameters(self) -> int:
        self._require_fitted()
        return int(self.estimator_.n_parameters)

    # ------------------------------------------------------------ pictures: the choice's
    def _choice(self) -> str:
        return (
            f"AutoClassifier: {self.chosen_} chosen (cross-validated log-loss "
            f"{self.candidate_scores_[self.chosen_]:.4f})"
        )

    def draw(self, ax: Any = None, **kwargs: Any) -> Any:
        """The chosen classifier's picture (a matplotlib Figure), titled with the choice
        (``title=True``, the default; ``False`` for none, or a string); other keywords are
        its ``draw``'s."""
        self._require_fitted()
        self.require("draw")
        title = kwargs.pop("title", True)
        kwargs["title"] = self._choice() if title is True else title
        return self.estimator_.draw(ax, **kwargs)

    def to_dot(self, **kwargs: Any) -> str:
        """The chosen classifier's network as Graphviz DOT, the choice as its label."""
        from ..viz._draw import titled_dot

        self._require_fitted()
        self.require("draw")
        return titled_dot(self.estimator_.to_dot(**kwargs), self._choice())

    def to_mermaid(self, **kwargs: Any) -> str:
        """The chosen classifier's network as a Mermaid flowchart, the choice as its title."""
        from ..viz._draw import titled_mermaid

        self._require_fitted()
        self.require("draw")
        return titled_mermaid(self.estimator_.to_mermaid(**kwargs), self._choice())

    def explorer_spec(self, title: str | None = None) -> dict:
        """The chosen classifier's explorer page, titled with the choice."""
        self._require_fitted()
        self.require("explorer")
        spec = self.estimator_.explorer_spec(title)
        if title is None:
            spec["title"] = f"AutoClassifier chose {self.chosen_}: {spec['title']}"
        return spec

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _text_lines(self, digits: int) -> Any:
        yield from super()._text_lines(digits)
        yield f"chosen: {self.chosen_} (cross-validated log-loss {self.candidate_scores_[self.chosen_]:.{digits}f})"
        yield from list(self.estimator_._text_lines(digits))[1:]

    # ------------------------------------------------------------ files
    def _fitted_state(self) -> dict:
        return {
            "chosen": self.chosen_,
            "candidate_scores": {
                k: (v if np.isfinite(v) else "inf") for k, v in self.candidate_scores_.items()
            },
            "candidate_errors": dict(self.candidate_errors_),
            "chosen_estimator": self.estimator_.to_dict(),
        }

    def _restore_model(self, saved: SavedState) -> None:
        chosen = saved.raw("chosen", str)
        if chosen not in CANDIDATES:
            raise saved.fail("chosen", f"names no candidate of {list(CANDIDATES)}")
        state = saved.raw("chosen_estimator", dict)
        cls = ESTIMATORS.get(str(state.get("estimator")))
        if cls is None or type(CANDIDATES[chosen][0]()) is not cls:
            raise saved.fail("chosen_estimator", f"is not the chosen candidate {chosen!r}")
        self.estimator_ = cls.from_dict(state)
        self.chosen_ = chosen
        scores = saved.raw("candidate_scores", dict)
        self.candidate_scores_ = {
            str(k): float("inf") if v == "inf" else float(v) for k, v in scores.items()
        }
        self.candidate_errors_ = {
            str(k): str(v) for k, v in saved.raw("candidate_errors", dict).items()
        }
