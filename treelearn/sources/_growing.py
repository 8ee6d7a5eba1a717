"""Pair counts of a file's chunks in the same pass as its states scan: states that grow.

A file of several chunks needs every column's states before a chunk can be encoded in
the final order (:func:`treelearn.encoding._table.state_order`: sorted values), which
only the whole file gives. Reading it twice (states, then counts) costs a second parse.
Here each chunk is encoded instead against per-column states that grow as chunks bring
new values (codes in order of first appearance, values matched as every encoding
matches them: :func:`treelearn.encoding._table.state_positions`), its ``K x K`` one-hot
pair block counted with the current ``K`` (:func:`treelearn.stats._counts.count_codes`)
and added into a running total, padded with zero rows and columns when ``K`` grows
(memory checked first). Once the scan has judged the file (the same checks, errors and
notes as before), :meth:`GrowingCounts.joint` permutes the total into the final state
order: the counts equal those of the two passes exactly (they are the same sums, only
indexed differently).

Counting stops, and the caller counts in a second pass as before, wherever the shortcut
could differ from it: a value that is no given state (or any error encoding a chunk: the
second pass raises it where it did), a column past ``max_states`` (the scan refuses it),
pair counts past the memory limit, or states that do not map one to one onto the final
ones. Memory is one chunk plus the ``K x K`` total, as for the two passes.

>>> import pandas as pd
>>> grow = GrowingCounts(("a",), {})
>>> for values in (["y", "x"], ["z", "y"]):
...     _ = grow.add(pd.DataFrame({"a": values}), "error")
>>> grow.states, grow.joint([["x", "y", "z"]]).tolist()
([['y', 'x', 'z']], [[1, 0, 0], [0, 2, 0], [0, 0, 1]])
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import numpy as np
import pandas as pd

from .._base.errors import TreelearnError
from ..encoding._table import (
    DEFAULT_MAX_STATES,
    MissingPolicy,
    code_dtype,
    encode,
    python_scalar,
    state_index,
    state_positions,
)
from ..stats._counts import add_counts, check_pair_memory, count_codes, offsets_of, total_weight

__all__ = ["GrowingCounts", "factorize"]

#: ``encode`` gets the given states in full here: the state cap was the scan's to apply
_NO_CAP = np.iinfo(np.int64).max


def factorize(series: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """``pd.factorize(series, use_na_sentinel=True)``: the same codes (``-1`` for a missing
    value; maybe in a narrower integer dtype) and the same uniques, in order of first
    appearance. A CSV chunk's bool and text columns take a shorter way (pandas' own
    costs ~0.1 ms a call: a file's chunks make one per column): a bool column's codes are
    its values, or their negation where the first value is True; text in Arrow storage
    is encoded by Arrow's ``dictionary_encode``, as ``pd.factorize`` encodes it.

    >>> codes, uniques = factorize(pd.Series([True, False, True]))
    >>> codes.tolist(), uniques.tolist()
    ([0, 1, 0], [True, False])
    """
    values = series.array
    if len(series) and series.dtype == np.dtype(bool):
        flags = series.to_numpy()
        first, n_true = bool(flags[0]), int(np.count_nonzero(flags))
        both = 0 < n_true < len(flags)
        uniques = pd.Index(np.array([first, not first][: 1 + both], dtype=bool))
        return (~flags if first else flags).view(np.int8), uniques
    if len(series) and isinstance(values, pd.arrays.ArrowStringArray):
        encoded = values.__arrow_array__().dictionary_encode(null_encoding="mask").combine_chunks()
        indices = encoded.indices
        if indices.null_count:
            indices = indices.fill_null(-1)
        uniques = pd.Index(pd.array(encoded.dictionary, dtype=series.dtype))
        return indices.to_numpy(zero_copy_only=False), uniques
    return pd.factorize(series, use_na_sentinel=True)


class GrowingCounts:
    """The running pair counts of a file's chunks, each column's states in order of first
    appearance (given states as given); ``live`` is False once counting stopped."""

    def __init__(
        self,
        columns: Sequence[Hashable],
        given: Mapping[Hashable, Sequence],
        max_states: int = DEFAULT_MAX_STATES,
    ) -> None:
        self.columns = tuple(columns)
        self.given = {c: list(given[c]) for c in self.columns if c in given}
        self.states: list[list] = [
            [python_scalar(v) for v in self.given[c]] if c in self.given else []
            for c in self.columns
        ]
        self.max_states = max_states
        self._lookup: dict[int, pd.Index] = {}  # state_index of a column's states, while unchanged
        self.total: np.ndarray | None = None
        self.n_rows: int | float = 0
        self.live = True

    def stop(self) -> None:
        """Give up counting (the caller counts in a second pass)."""
        self.live, self.total = False, None

    def add(
        self,
        chunk: pd.DataFrame,
        missing: MissingPolicy,
        weights: np.ndarray | None = None,
        is_missing: np.ndarray | None = None,
    ) -> dict:
        """Count one chunk of rows (columns as in the file, weight column taken out), with
        ``missing`` handled as :func:`treelearn.sources._files.count_chunk` handles it
        (``is_missing``: ``chunk.isna()`` as an array, if the caller has it).

        Returns the distinct observed values of the counted rows of each column whose
        states are not given (``pd.factorize``'s, in order of first appearance), which
        :func:`~treelearn.sources._files.scan_chunk` takes instead of finding them again.
        """
        if not self.live:
            return {}
        if is_missing is None:
            is_missing = chunk.isna().to_numpy()
        if is_missing.any():
            if missing == "error":  # the scan raises the missing values' error
                return {}
            if missing == "drop":
                keep = np.flatnonzero(~is_missing.any(axis=1))
                chunk = chunk.iloc[keep]
                weights = None if weights is None else weights[keep]
        if len(chunk) == 0:
            return {}
        uniques: dict = {}
        try:
            codes = self._encode(chunk, uniques)
            if codes is None:
                return uniques
            cards = np.array([len(s) for s in self.states], dtype=np.int64)
            # a column with no state yet (every value missing so far) has no block: leave it
            # out of the product, whose K x K layout is then the total's
            seen = cards > 0
            if not seen.all():
                codes, cards = codes[:, seen], cards[seen]
            block = (
                count_codes(codes, cards, weights=weights)
                if len(cards)
                else np.zeros((0, 0), dtype=np.int64)
            )  # count_codes checks K x K memory
        except (TreelearnError, TypeError, ValueError):
            # the second pass finds (and raises) whatever went wrong, where it did
            self.stop()
            return uniques
        n = total_weight(weights, len(chunk))
        if self.total is None:
            self.total, self.n_rows = block, n
        else:
            self.total, self.n_rows = add_counts(self.total, block, self.n_rows, n)
        return uniques

    def _encode(self, chunk: pd.DataFrame, uniques_of: dict) -> np.ndarray | None:
        """The chunk's codes against the states, grown by its new values (``None``: stopped);
        each column's distinct values go into ``uniques_of``."""
        before = np.array([len(s) for s in self.states], dtype=np.int64)
        # codes as small as the states allow (a column past max_states stops counting)
        widest = max([self.max_states, *(len(s) for s in self.given.values())])
        # column-major (the transpose of a d x n array): each column is written in one run
        codes = np.empty((len(self.columns), len(chunk)), dtype=code_dtype(widest)).T
        if self.given:
            fixed = encode(
                chunk[list(self.given)], missing="pairwise", states=self.given, max_states=_NO_CAP
            )
            for j, c in enumerate(fixed.columns):
                codes[:, self.columns.index(c)] = fixed.codes[:, j]
        for j, name in enumerate(self.columns):
            if name in self.given:
                continue
            raw, uniques = factorize(chunk[name])
            uniques_of[name] = uniques
            states = self.states[j]
            if states:
                lookup = self._lookup.get(j)
                if lookup is None:
                    lookup = self._lookup[j] = state_index(states)
                found = state_positions(uniques, states, lookup)
            else:
                found = np.full(len(uniques), -1)
            new = np.flatnonzero(found < 0)
            if len(new):
                self._lookup.pop(j, None)  # the states grow
                states += [python_scalar(v) for v in np.asarray(uniques, dtype=object)[new]]
                found[new] = np.arange(len(states) - len(new), len(states))
                if (
                    len(states) > self.max_states
                    or pd.Index(states, dtype=object, tupleize_cols=False).has_duplicates
                ):
                    self.stop()  # refused by the scan, or values that match two ways
                    return None
            if np.array_equal(found, np.arange(len(found))):  # codes already the states'
                codes[:, j] = raw
            else:
                codes[:, j] = np.append(found, -1).astype(codes.dtype)[raw]
        after = np.array([len(s) for s in self.states], dtype=np.int64)
        grown = self.total is not None and not np.array_equal(before, after)
        return None if grown and not self._grow(before, after) else codes

    def _grow(self, before: np.ndarray, after: np.ndarray) -> bool:
        """Pad the total with zero rows and columns for the new states (memory checked)."""
        try:
            check_pair_memory(int(after.sum()), len(self.columns))
        except TreelearnError:  # the second pass refuses it, after the scan's problems
            self.stop()
            return False
        assert self.total is not None  # only a total grows
        old = np.concatenate([o + np.arange(k) for o, k in zip(offsets_of(after)[:-1], before)])
        grown = np.zeros((int(after.sum()),) * 2, dtype=self.total.dtype)
        grown[np.ix_(old, old)] = self.total
        self.total = grown
        return True

    def joint(self, final: Sequence[Sequence]) -> np.ndarray | None:
        """The total in the order of the ``final`` states of every column (``None`` if some
        column's states do not map one to one onto them: then count again)."""
        if not self.live:
            return None
        cards = np.array([len(s) for s in final], dtype=np.int64)
        width = int(cards.sum())
        if self.total is None:
            return np.zeros((width, width), dtype=np.int64)
        where = []
        for offset, states, target in zip(offsets_of(cards)[:-1], self.states, final):
            found = state_positions(states, target) if states else np.empty(0, dtype=np.int64)
            if (found < 0).any() or len(np.unique(found)) != len(found):
                return None
            where.append(offset + found)
        at = np.concatenate(where)
        out = np.zeros((width, width), dtype=self.total.dtype)
        out[np.ix_(at, at)] = self.total
        return out
