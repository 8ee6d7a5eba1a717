"""Learning chunk by chunk: ``partial_fit`` of the count-based classifiers.

A count-based classifier is a function of its counts, and counts add up. So
``partial_fit`` counts each chunk (:func:`~treelearn.sources._count.count_by_class`,
with the states and classes of the first call fixed), adds the chunk's counts to the
running totals (:class:`Chunks`) and learns the model from the totals: after ``N``
calls on ``N`` chunks the classifier is the one :meth:`fit` gives on all rows. A call
after the first only records the chunk's counts; the model is learned from the totals in
one place, the first step of every method that reads it (see :class:`PartialFit`): ``N``
calls then cost ``N`` countings and one learn (learning at every call cost 1.6x to 3.9x
one fit on 10 chunks of the alarm sample, ``benchmarks/bench_seminaive.py``).

What is kept between calls:

* the class-conditional pair counts ``N(x_i, x_j | c)`` (one ``K x K`` matrix per
  class, ``K`` the feature states): everything naive Bayes, TAN, k-DB with ``k <= 1``
  and AODE learn from;
* for models whose families have more than one feature parent (k-DB with ``k >= 2``,
  A2DE, SKDB), also each chunk's encoded rows (small integer codes) and the counts of
  the families the model uses, summed chunk by chunk; a family a refitted structure
  asks for anew is counted once from the kept rows.

The states of the features and the classes are those of the first call, unless
declared there (``states=``, ``classes=``); a value or label outside them in a later
chunk is an error saying to declare it on the first call.
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .._base.errors import InputTypeError, TreelearnError, UnseenStateError
from ..encoding._table import Table, code_dtype
from ..sources._count import count_by_class, labelled_file
from ..sources._kinds import kind_of
from ..stats._counts import ClassCounts, PairCounts, family_counts_from_codes
from ._base import TrainingData, check_not_empty
from ._numbers import check_chunk_numbers, counted_dtypes

if TYPE_CHECKING:  # the mixins' hosts, for the type checker (at run time: object)
    from ._base import CategoricalClassifier as _Host
    from ._network import SingleNetworkClassifier as _NetworkHost
else:
    _Host = _NetworkHost = object

__all__ = ["ChunkCounts", "Chunks", "PartialFit", "PartialFitNetwork"]

DECLARE = (
    "declare every state a feature can take on the first call: "
    "partial_fit(X, y, classes=[...], states={column: [states...]}) (a pandas "
    "Categorical column declares its categories)"
)


@dataclass(frozen=True)
class ChunkCounts(ClassCounts):
    """The statistics of every chunk so far, as the learners read them: the summed
    per-class pair counts (``per_class_pairs``, where the model needs them) and the
    family counts of :class:`Chunks` (``families``)."""

    families: Any = None

    def family_counts(self, family: Sequence[int]) -> np.ndarray:
        return self.families.family_counts(family)

    @property
    def class_count(self) -> np.ndarray:
        return self.families.family_counts([len(self.columns) - 1])

    @property
    def has_rows(self) -> bool:
        """Whether every chunk's rows are kept (not after a fit, which keeps none)."""
        return bool(self.families.complete)

    def rows(self) -> list[tuple[np.ndarray, np.ndarray | None]]:
        """Each chunk's ``(codes, weights)`` (features then the class), for learners that
        revisit the rows (SKDB's leave-one-out pass)."""
        return self.families.all_rows()

    def summed(self, name: str, count: Any) -> np.ndarray:
        """A statistic the model adds up over the chunks, ``count(codes, weights)`` of each
        chunk's rows (e.g. A2DE's triple counts; see :meth:`Chunks.summed`)."""
        return self.families.summed(name, count)


class Chunks:
    """The running totals of ``partial_fit``: the header of the first chunk, the summed
    counts of the families the model uses, the summed per-class pair counts
    (``needs_pairs``: the structure is learned from them) and the rows of every chunk
    (``keep_rows``: families beyond the class-conditional pairs)."""

    def __init__(self, first: ClassCounts, *, needs_pairs: bool, keep_rows: bool) -> None:
        self.columns, self.states, self.dtypes = first.columns, first.states, first.dtypes
        self.classes = first.classes
        self.cardinalities = first.cardinalities
        self.needs_pairs, self.keep_rows = needs_pairs, keep_rows
        # the summed per-class joints and rows (None: the model needs no pairs)
        self.joints: list | None = None
        self.n_rows: list | None = None
        self._pairs: list | None = None  # the summed joints as PairCounts, once per learn
        self._families: dict[tuple, np.ndarray] = {}
        self._asked: set[tuple | str] = set()  # the families and summed statistics in use
        self._extras: dict[str, list] = {}  # name -> [count(codes, weights), summed total]
        self.rows: list[tuple[np.ndarray, np.ndarray | None]] = []
        self.complete = True  # every chunk's rows are in self.rows (not after a fit)
        self._pending: ClassCounts | None = first  # the chunk whose counts are not added yet
        if needs_pairs:
            self.joints = [pc.joint for pc in first.per_class]
            self.n_rows = [pc.n_rows for pc in first.per_class]

    @classmethod
    def of_fit(cls, stats: ClassCounts, recorder: _Recorder, *, needs_pairs: bool) -> Chunks:
        """What a :meth:`fit` leaves to later chunks: its family counts (and pair counts,
        and the model's other summed statistics), not its rows."""
        chunks = cls(stats, needs_pairs=needs_pairs, keep_rows=False)
        chunks._pending = None
        c = len(stats.columns) - 1
        chunks._families = {
            k: v
            for k, v in recorder.families.items()  # pairs give the rest
            if not (needs_pairs and k[0] == c and len(k) <= 3)
        }
        chunks._extras = dict(recorder.extras)
        chunks.complete = False
        return chunks

    def summed(self, name: str, count: Any) -> np.ndarray:
        """A statistic a model adds up over chunks, ``count(codes, weights)`` of each
        chunk's rows (e.g. A2DE's triple counts): summed chunk by chunk once in use."""
        self._asked.add(name)
        if name not in self._extras:
            if not self.complete:
                raise TreelearnError(
                    f"the model now needs its {name.replace('_', ' ')} over "
                    f"rows a fit() did not keep; call partial_fit on every "
                    f"chunk from the first"
                )
            self._extras[name] = [
                count,
                sum(count(codes, weights) for codes, weights in self.all_rows()),
            ]
        return self._extras[name][1]

    def _rows_of(self, stats: ClassCounts) -> tuple[np.ndarray, np.ndarray | None]:
        if stats.table is None:
            raise InputTypeError(
                "partial_fit counts the families of this model from rows in memory: give "
                "each chunk as a DataFrame or an array (a Dask DataFrame's partitions one at "
                "a time, computed)"
            )
        return stats.table.codes, stats.table.weights

    def snapshot(self) -> Chunks:
        """A copy to go back to: :meth:`add` replaces arrays (never changes one in place),
        so copying the containers is enough."""
        other = copy.copy(self)
        other.joints = None if self.joints is None else list(self.joints)
        other.n_rows = None if self.n_rows is None else list(self.n_rows)
        other.rows = list(self.rows)
        other._families = dict(self._families)
        other._extras = {k: list(v) for k, v in self._extras.items()}
        other._asked = set(self._asked)
        return other

    def mapped(self, stats: ClassCounts) -> ClassCounts:
        """A chunk encoded in its own states, its codes mapped onto this header's states
        (a value outside them is an :class:`~treelearn.UnseenStateError`)."""
        table = stats.table
        assert table is not None  # a chunk counted in memory (the others are counted anew)
        d = len(self.columns) - 1
        dtype = code_dtype(int(self.cardinalities.max()))
        # each feature's lookup from the chunk's codes to the header's (-1: not a state)
        lookups = []
        for j in range(d):  # d small lookups over each feature's distinct values
            # True == 1 hashes alike: a bool must not stand for a number or back
            position = {(isinstance(v, bool), v): i for i, v in enumerate(self.states[j])}
            lookups.append([position.get((isinstance(v, bool), v), -1) for v in table.states[j]])
        if all(lookup == list(range(len(lookup))) for lookup in lookups):
            codes = table.codes.astype(dtype, copy=False)  # the same states: the same codes
        else:  # one gather over every cell: row j of the table maps feature j's codes
            width = max(*(len(lookup) for lookup in lookups), len(self.classes)) + 1
            table_of = np.full((d + 1, width), -1, dtype=np.int64)  # code -1 picks the last
            for j, lookup in enumerate(lookups):
                table_of[j, : len(lookup)] = lookup
            table_of[d, :-1] = np.arange(width - 1)  # the class: coded against the classes
            old = table.codes
            codes = table_of[np.arange(d + 1), old.astype(np.intp)].astype(dtype)
            bad = (codes[:, :d] < 0) & (old[:, :d] >= 0)
            if bad.any():
                j = int(np.flatnonzero(bad.any(axis=0))[0])
                column = old[:, j]
                values = [table.states[j][k] for k in np.unique(column[bad[:, j]])[:5]]
                raise UnseenStateError(
                    self.columns[j], values, list(self.states[j]), n_rows=int(bad[:, j].sum())
                )
        mapped = Table(
            codes=codes,
            columns=self.columns,
            states=self.states,
            dtypes=self.dtypes,
            weights=table.weights,
        )
        return ClassCounts(self.columns, self.states, self.dtypes, self.classes, table=mapped)

    def add(self, stats: ClassCounts) -> None:
        """Add a chunk counted with this header's states and classes."""
        if self.needs_pairs:
            self._pairs = None
            joints, n_rows = self._summed_pairs()
            for c, pc in enumerate(stats.per_class):
                joints[c] = joints[c] + pc.joint
                n_rows[c] = n_rows[c] + pc.n_rows
        if self.keep_rows:
            self._rows_of(stats)  # refused now, not after the counts are added
        for family, counts in self._families.items():  # the families in use: this chunk's
            self._families[family] = counts + ClassCounts.family_counts(stats, family)
        for entry in self._extras.values():
            entry[1] = entry[1] + entry[0](*self._rows_of(stats))
        self._pending = stats

    def all_rows(self) -> list[tuple[np.ndarray, np.ndarray | None]]:
        """Every chunk's ``(codes, weights)``."""
        if not self.complete:
            raise TreelearnError(
                "the model revisits the rows, and a fit() keeps none: call "
                "partial_fit on every chunk from the first, or pass "
                "refit_structure=False to keep the model's choices"
            )
        rows = list(self.rows)
        if self._pending is not None:
            rows.append(self._rows_of(self._pending))
        return rows

    def family_counts(self, family: Sequence[int]) -> np.ndarray:
        """A family's counts over every chunk: summed chunk by chunk once in use; a family
        asked for anew is read off the pair counts (the class and at most two features)
        or counted from the rows of every chunk."""
        key = tuple(int(j) for j in family)
        c = len(self.columns) - 1
        if self.needs_pairs and key[0] == c and len(key) <= 3:
            return self._from_pairs(key)  # read off the summed pairs: nothing to keep
        self._asked.add(key)
        if key not in self._families:
            if self.complete:
                counts = [
                    family_counts_from_codes(codes, self.cardinalities, key, weights)
                    for codes, weights in self.rows
                ]
                if self._pending is not None:
                    counts.append(ClassCounts.family_counts(self._pending, key))
                # one or more chunks (the pending one, or kept rows): summed in chunk order
                self._families[key] = sum(counts[1:], start=counts[0].copy())
            else:
                names = [self.columns[j] for j in key]
                raise TreelearnError(
                    f"the model now needs the counts of the family {names}, which a fit() did "
                    f"not keep (it keeps no rows); pass refit_structure=False, or call "
                    f"partial_fit on every chunk from the first"
                )
        return self._families[key]

    def _from_pairs(self, key: tuple) -> np.ndarray:
        """``(class[, a[, b]])`` counts from the summed class-conditional pair counts."""
        joints, n_rows = self._summed_pairs()
        if len(key) == 1:
            exact = all(isinstance(n, (int, np.integer)) for n in n_rows)
            return np.array(n_rows, dtype=np.int64 if exact else float)
        if self._pairs is None:
            self._pairs = [
                PairCounts(joint, self.cardinalities, n) for joint, n in zip(joints, n_rows)
            ]
        pairs = self._pairs
        if len(key) == 2:
            return np.stack([pc.marginal(key[1]) for pc in pairs])
        return np.stack([pc.block(key[1], key[2]) for pc in pairs])

    def _summed_pairs(self) -> tuple[list, list]:
        """The summed per-class joints and rows (kept from the first chunk on when the model
        needs pairs)."""
        assert self.joints is not None and self.n_rows is not None
        return self.joints, self.n_rows

    def statistics(self) -> ChunkCounts:
        """The totals as a :class:`ClassCounts` the learners take."""
        pairs = None
        if self.needs_pairs:
            if self._pairs is None:
                joints, n_rows = self._summed_pairs()
                self._pairs = [
                    PairCounts(joint, self.cardinalities, n) for joint, n in zip(joints, n_rows)
                ]
            pairs = tuple(self._pairs)
        return ChunkCounts(
            self.columns,
            self.states,
            self.dtypes,
            self.classes,
            per_class_pairs=pairs,
            families=self,
        )

    def kept(self) -> None:
        """After a chunk is added: its rows join the kept rows where rows are kept (else
        the rows are no longer complete)."""
        if self._pending is not None and self.keep_rows:
            self.rows.append(self._rows_of(self._pending))
        elif self._pending is not None:
            self.complete = False
        self._pending = None

    def learned(self) -> None:
        """After a model is learned: keep summing only the families it asked for (and
        the last chunk's rows, :meth:`kept`)."""
        self._families = {k: v for k, v in self._families.items() if k in self._asked}
        self._extras = {k: v for k, v in self._extras.items() if k in self._asked}
        self._asked = set()
        self.kept()

    def forget_families(self) -> None:
        """Stop summing the families (and other statistics) of a model not used since it was
        learned, where every chunk's rows are kept: the next learn counts what it asks for
        from the rows, once, rather than every chunk adding to a structure's families that a
        later structure may not ask for."""
        if self.complete:
            self._families, self._extras = {}, {}

    def can_learn_later(self, keeps_rows: bool) -> bool:
        """Whether a model learned from these totals later can ask for nothing they lack:
        every chunk's rows are kept, or the model reads the summed pairs and the
        statistics in use only."""
        return self.complete or not keeps_rows


class _Recorder:
    """A fit's statistics, remembering every family count (and summed statistic) the model
    asks for: what :meth:`Chunks.of_fit` leaves to later chunks."""

    #: a fit's rows are all at hand (a Dask frame's: refused by :meth:`all_rows`)
    complete = True

    def __init__(self, stats: ClassCounts) -> None:
        self.stats: ClassCounts = stats
        self.families: dict[tuple, np.ndarray] = {}
        self.extras: dict[str, list] = {}
        #: the statistics the model learns from, asking this recorder for its families
        self.counts = ChunkCounts(
            stats.columns,
            stats.states,
            stats.dtypes,
            stats.classes,
            table=stats.table,
            per_class_pairs=stats.per_class_pairs,
            families=self,
        )

    def family_counts(self, family: Sequence[int]) -> np.ndarray:
        key = tuple(int(j) for j in family)
        if key not in self.families:
            self.families[key] = ClassCounts.family_counts(self.stats, key)
        return self.families[key]

    def all_rows(self) -> list:
        if self.stats.table is None:
            raise InputTypeError(
                "this model learns from the rows in memory: give a DataFrame, "
                "an array or a file, not a Dask DataFrame"
            )
        return [(self.stats.table.codes, self.stats.table.weights)]

    def summed(self, name: str, count: Any) -> np.ndarray:
        total = count(*self.all_rows()[0])
        self.extras[name] = [count, total]
        return total


#: what a later partial_fit call keeps of the estimator besides its options and header:
#: the running totals, and scikit-learn's metadata routing requests (set_fit_request)
_KEPT = ("_chunks", "_metadata_request", "binner_")  # binner_: the bins of a fit


class PartialFit(_Host):
    """``partial_fit`` for a categorical classifier that learns from counts (a mixin,
    before the classifier's base). A class sets ``_keeps_rows(params)`` where its
    families go beyond the class-conditional pairs, and may override
    :meth:`_learn_summed` (e.g. to keep a structure) and :meth:`_check_chunk`.

    **What a call records, and where the model is learned.** Every call adds the chunk's
    counts to the running totals (:class:`Chunks`, kept in ``_chunks``) and sets the
    header (``classes_``, ``class_count_``, the prior) at once. The first call learns the
    model. A later call removes the fitted model and records that it is to be learned
    (``_learn_pending``); the learn from the totals happens in one place,
    :meth:`_learn_recorded`, which every method that reads the fitted model calls first
    (through the classifier base's ``_require_fitted``: predictions, scores, explanations,
    files, pictures, ``n_parameters``), and which :meth:`learn_chunks` calls on request.
    Reading an attribute never learns: after a later call, ``model_`` and the other fitted
    tables are absent (``hasattr`` says ``False``) until the model is next used. So ``N``
    calls cost ``N`` countings and one learn, and give what a learn at every call would
    have given last. Where learning could need rows that are not kept (after a
    :meth:`fit`, for a model of families beyond the pairs) and with
    ``refit_structure=False`` the call learns at once, so that what it cannot learn from
    is refused there.
    """

    #: the running totals (``None``: no chunk recorded: not fitted, or loaded from a file)
    _chunks: Chunks | None = None
    #: the checked options of the learn a later call left to the model's next use
    #: (``None``: the model is learned from every chunk recorded)
    _learn_pending: dict | None = None
    #: whether the model learns from the class-conditional pair counts (a structure, AODE)
    _needs_pairs: ClassVar[bool] = True

    def _learn_recorded(self) -> None:
        """Learn the model from the running totals, where a later :meth:`partial_fit` call
        left that to the model's next use (on an error it is left to the next use again)."""
        params, chunks = self._learn_pending, self._chunks
        if params is None or chunks is None:
            return
        self._learn_pending = None
        try:
            self._learn_summed(chunks.statistics(), params, True)
        except BaseException:
            self._learn_pending = params
            raise
        chunks.learned()

    def learn_chunks(self) -> Any:
        """Learn the model from the counts of every chunk so far now, as its next use would
        (a prediction, a score, a file, a drawing): after a later :meth:`partial_fit` call
        the fitted attributes (``model_``, the tables) are there once it has run. Returns
        the classifier.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> X, y = df.drop(columns="either"), df["either"]
        >>> clf = tl.TAN().partial_fit(X.iloc[:500], y.iloc[:500], classes=["no", "yes"])
        >>> clf = clf.partial_fit(X.iloc[500:], y.iloc[500:])   # counted, not learned yet
        >>> hasattr(clf, "model_")
        False
        >>> clf.learn_chunks().model_.parents("lung") == tl.TAN().fit(X, y).model_.parents("lung")
        True
        """
        self._require_fitted()
        return self

    def _check_chunk(self, stats: ClassCounts, params: dict) -> None:
        """Refuse a chunk the model could not learn from, before a later learn meets it
        (nothing by default)."""

    def _keeps_rows(self, params: dict) -> bool:
        """Whether the model counts families beyond the class and two features."""
        return False

    def _learn_training_data(self, data: TrainingData, params: dict) -> None:
        """:meth:`fit`'s learn (the counts of earlier :meth:`partial_fit` calls dropped),
        recording the family counts (and pair counts, and other summed statistics) the model
        asks for, so that :meth:`partial_fit` can go on from them (a fit keeps no rows)."""
        recorder = _Recorder(data.statistics)
        self._chunks, self._learn_pending = None, None
        super()._learn_training_data(replace(data, statistics=recorder.counts), params)
        self._chunks = Chunks.of_fit(recorder.counts, recorder, needs_pairs=self._needs_pairs)

    def partial_fit(
        self,
        X: Any,
        y: Any,
        classes: Sequence | None = None,
        sample_weight: Any = None,
        *,
        states: Mapping[Hashable, Sequence] | None = None,
        refit_structure: bool = True,
    ) -> Any:
        """Learn from one more chunk of rows: ``N`` calls on ``N`` chunks give the
        classifier :meth:`fit` gives on all their rows (the same counts, so the same CPTs).

        Parameters
        ----------
        X, y, sample_weight : a chunk, as for :meth:`fit` (a DataFrame, an array, a
            CSV/Parquet path with ``y`` its class column, a Dask DataFrame).
        classes : every class label the chunks can hold, on the first call (a chunk
            may then hold one class); default: the labels of the first chunk.
        states : ``{feature: [states]}``, on the first call: the states of the features
            named (default: the values of the first chunk; a pandas Categorical column
            declares its categories). A later chunk's value outside them is an
            :class:`~treelearn.UnseenStateError` saying to declare it.
        refit_structure : learn the structure again from the summed counts (default),
            or keep the structure of the earlier calls and update the CPTs only
            (``False``; a model without a learned structure ignores it).

        After :meth:`fit`, ``partial_fit`` goes on from the fit's counts (a structure
        refitted then may need counts a fit does not keep: an error says so); a
        classifier loaded from a file keeps no counts to add to (an error). A call after
        the first counts the chunk and sets the header (``classes_``, ``class_count_``, the
        prior); the model is learned from the summed counts when it is next used (a
        prediction, a score, a file, a drawing, ``n_parameters``) or by
        :meth:`learn_chunks`, and until then ``model_`` and the other fitted tables are
        absent.

        Examples
        --------
        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> X, y = df.drop(columns="either"), df["either"]
        >>> clf = tl.TAN()
        >>> for part in np.array_split(np.arange(len(df)), 4):
        ...     _ = clf.partial_fit(X.iloc[part], y.iloc[part], classes=["no", "yes"])
        >>> bool(np.allclose(clf.predict_proba(X), tl.TAN().fit(X, y).predict_proba(X),
        ...                  rtol=0, atol=1e-12))
        True
        """
        params = self._checked_params()
        check_not_empty(X)
        chunks = self._chunks
        first = chunks is None
        if chunks is None:
            if hasattr(self, "classes_"):
                raise TreelearnError(
                    f"this {type(self).__name__} was loaded from a file, which keeps no counts "
                    f"to add to; call partial_fit on every chunk from the first (or fit on all "
                    f"the rows)"
                )
            self.binner_ = None
            if self.numbers == "mdl":
                check_chunk_numbers(
                    X, self.categorical, states, type(self).__name__, y, sample_weight
                )
            stats = count_by_class(
                X, y, sample_weight=sample_weight, states=states, classes=classes
            )
            if self.numbers == "mdl" and kind_of(X).name == "path":
                # a file by the dtypes it was counted with (read whole, as pandas types it)
                check_chunk_numbers(
                    counted_dtypes(stats), self.categorical, states, type(self).__name__
                )
            chunks = Chunks(
                stats, needs_pairs=self._needs_pairs, keep_rows=self._keeps_rows(params)
            )
        else:
            if states is not None:
                raise TreelearnError(
                    "states= is declared on the first partial_fit call; later "
                    "chunks take the states fixed then"
                )
            if kind_of(X).name == "path" and self.binner_ is not None:
                # a file's numbers cut into the fit's bins: its rows read whole, as
                # count_by_class reads a file (counted raw, they were no states)
                X, y, sample_weight = labelled_file(X, y, sample_weight)
            if kind_of(X).name in ("frame", "array"):
                X = self._matched(X)  # the fitted features, by name or position
                # the bins a fit with numbers="mdl" learned (a partial_fit from the first
                # chunk takes numbers as states: bins cannot grow chunk by chunk)
                X = self._binned(X)
            stats = self._count_chunk(
                chunks, X, y, sample_weight, chunks.classes if classes is None else classes
            )
            if list(stats.classes) != list(chunks.classes):
                asked = chunks.classes if classes is None else classes
                raise TreelearnError(
                    f"classes={list(asked)} differs from the classes "
                    f"{list(chunks.classes)} of the first call"
                )
            if not refit_structure:
                self._learn_recorded()  # the structure of the earlier calls, from their counts
        self._check_chunk(stats, params)
        defer = not first and refit_structure and chunks.can_learn_later(self._keeps_rows(params))
        before = dict(self.__dict__)  # a chunk the model cannot learn from leaves no trace
        try:
            if not first:
                before["_chunks"] = chunks.snapshot()
                if defer and self._learn_pending is not None:  # not used since the last call
                    chunks.forget_families()
                chunks.add(stats)
            counts = chunks.statistics()
            features = list(counts.columns[:-1])
            data = TrainingData(
                features,
                len(features),
                counts.classes,
                counts.columns[-1],
                counts.class_count,
                counts,
            )
            if defer:  # the fitted model goes; it is learned from the totals when next used
                kept = set(self.get_params(deep=False)) | set(_KEPT)
                for name in [k for k in self.__dict__ if k not in kept]:
                    del self.__dict__[name]
                self._set_header(data, params)
                self._learn_pending = params
            else:  # the first call has no structure to keep
                self._set_header(data, params)
                self._learn_summed(counts, params, refit_structure or first)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise
        if defer:
            chunks.kept()
        else:
            chunks.learned()
        self._chunks = chunks
        return self

    @staticmethod
    def _count_chunk(
        chunks: Chunks, X: Any, y: Any, sample_weight: Any, classes: Any
    ) -> ClassCounts:
        """A later chunk's counts in the states of the first: encoded as a fit encodes
        (its own states: the fast path) and its codes mapped onto the fixed states; a
        chunk that alone cannot be encoded so (e.g. floats each seen once) is encoded
        against the fixed states directly."""
        features = chunks.columns[:-1]
        try:
            own = count_by_class(X, y, sample_weight=sample_weight, classes=classes)
        except UnseenStateError:
            raise
        except TreelearnError:
            own = None
        try:
            if own is not None and own.table is not None and own.columns[:-1] == features:
                return chunks.mapped(own)
            return count_by_class(
                X,
                y,
                sample_weight=sample_weight,
                states=dict(zip(features, chunks.states)),
                classes=classes,
            )
        except UnseenStateError as exc:
            raise exc.with_hint(
                f"The states were fixed by the first partial_fit call; {DECLARE}."
            ) from None

    def _learn_summed(self, stats: ChunkCounts, params: dict, refit_structure: bool) -> None:
        """Learn from the summed counts (the model's ``_learn``, by default)."""
        self._learn(stats, params)


class PartialFitNetwork(PartialFit, _NetworkHost):
    """``partial_fit`` for one network over the features and the class: with
    ``refit_structure=False`` the network keeps the structure of the earlier calls."""

    def _learn_summed(self, stats: ChunkCounts, params: dict, refit_structure: bool) -> None:
        if refit_structure:
            self._learn(stats, params)
        else:
            self._learn_network(self.model_.graph.copy(), stats, params)
