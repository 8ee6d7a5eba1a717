"""Variable elimination on plain factors, many evidence rows at once.

A factor is ``(scope, table)``: a tuple of variable labels and an array with one
axis per label. The label :data:`ROWS` is a batch axis, one slice per evidence row,
never summed out: :class:`Eliminator` (what
:class:`~treelearn.inference._engine.TreeEngine` runs on a DAG that is no forest)
turns the CPTs and many rows' evidence into such factors, so one elimination answers
all the rows.

:func:`elimination_order` picks the order once (greedy, smallest factor first,
which on a tree eliminates leaves first); :func:`eliminate` runs it by sum-product or
max-product. Each step's result is rescaled per row (its log carried apart), and a
step that comes near underflow is redone with every partial product rescaled, so
long products and much evidence do not underflow. With ``buckets`` it keeps, per
eliminated variable, what the backward pass needs: its product table (to sample it
given the variables eliminated after it) or its argmax (MAP).
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Collection, Hashable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from .._base.limits import check_memory
from ..encoding._table import distinct_rows

__all__ = [
    "ROWS",
    "Bucket",
    "Eliminated",
    "Eliminator",
    "cumulative",
    "draw",
    "eliminate",
    "elimination_order",
]


class _Rows:
    """The label of the batch axis of evidence rows."""

    def __repr__(self) -> str:
        return "ROWS"


#: the batch axis: one slice per evidence row, never eliminated
ROWS = _Rows()

#: numpy's einsum takes at most this many operands and labels here (more: products)
_MAX_OPERANDS, _MAX_LABELS = 32, 52
#: below this (in logs) a step's largest entry in a row is recomputed with rescaling
_LOG_UNDERFLOW = np.log(1e-250)


class Bucket(NamedTuple):
    """One eliminated variable: ``table`` over ``scope + (variable,)`` (sum-product: the
    product of the factors that held it; max-product: ``argmax`` over it, without its axis)."""

    variable: Hashable
    scope: tuple
    table: np.ndarray


class Eliminated(NamedTuple):
    """The product of the factors with every variable not kept summed (or maxed) out:
    ``table * exp(log_scale)``, ``table`` with one axis per kept label (size 1 where no
    factor has it), ``log_scale`` of shape ``(rows,)`` (or ``(1,)``)."""

    table: np.ndarray
    log_scale: np.ndarray
    buckets: list


def elimination_order(
    scopes: Sequence[Sequence[Hashable]], sizes: Mapping[Hashable, int], keep: Collection[Hashable]
) -> tuple[list, int]:
    """A greedy elimination order (smallest resulting factor first) of every variable in
    ``scopes`` not in ``keep``, and the most entries a factor built on the way has (the
    batch axis :data:`ROWS` counted as 1).

    Each variable's factors and cost are kept up to date as factors merge (only the
    merged variables' neighbours change): ``O(d log d)`` bookkeeping on a tree.

    >>> elimination_order([("a",), ("a", "b"), ("b", "c")], {"a": 2, "b": 3, "c": 2}, ["c"])
    (['a', 'b'], 6)
    """

    def size(v: Hashable) -> int:
        return 1 if v is ROWS else int(sizes[v])

    live = {i: frozenset(s) for i, s in enumerate(scopes)}
    holding: dict = {}  # variable -> ids of the live factors that mention it
    for i, scope in live.items():
        for v in scope:
            holding.setdefault(v, set()).add(i)
    hidden = {v for v in holding if v not in keep and v is not ROWS}

    def cost(v: Hashable) -> int:
        return math.prod(size(u) for u in set().union(*(live[i] for i in holding[v])))

    tiebreak = itertools.count()  # unique, so variables themselves are never compared
    heap = [(cost(v), str(v), next(tiebreak), v) for v in sorted(hidden, key=str)]
    current = {v: c for c, _, _, v in heap}
    heapq.heapify(heap)
    width = max([math.prod(size(u) for u in s) for s in live.values()], default=1)
    order: list = []
    next_id = len(live)
    while hidden:
        c, _, _, var = heapq.heappop(heap)
        if var not in hidden or current[var] != c:
            continue  # a stale entry
        ids = holding.pop(var)
        scope = frozenset().union(*(live.pop(i) for i in ids)) - {var}
        for u in scope:
            holding[u] -= ids
            holding[u].add(next_id)
        live[next_id] = scope
        next_id += 1
        hidden.discard(var)
        order.append(var)
        width = max(width, c)
        for u in scope:
            if u in hidden:
                current[u] = cost(u)
                heapq.heappush(heap, (current[u], str(u), next(tiebreak), u))
    left = frozenset().union(*live.values())  # the last product: over what is kept
    return order, max(width, math.prod(size(u) for u in left))


def _aligned(scope: tuple, table: np.ndarray, to: Sequence[Hashable]) -> np.ndarray:
    """``table`` with its axes in the order of ``to`` (size 1 for the labels it lacks)."""
    present = [u for u in to if u in scope]
    table = np.transpose(table, [scope.index(u) for u in present])
    return table.reshape([table.shape[present.index(u)] if u in scope else 1 for u in to])


def _rescale(table: np.ndarray, rows: bool) -> tuple[np.ndarray, np.ndarray]:
    """``table`` divided by its largest entry per row (axis 0 when ``rows``, else over
    everything), and the log of the divisors, ``-inf`` for a row of zeros."""
    if rows:
        top = table.reshape(table.shape[0], -1).max(axis=1)
        shape = (-1,) + (1,) * (table.ndim - 1)
    else:
        top = np.array([table.max()])
        shape = (1,) * table.ndim
    ok = top > 0
    safe = np.where(ok, top, 1.0)
    with np.errstate(divide="ignore"):
        return table / safe.reshape(shape), np.where(ok, np.log(safe), -np.inf)


def _product(factors: Sequence[tuple], scope: list, careful: bool) -> tuple[np.ndarray, np.ndarray]:
    """The product of ``factors`` over ``scope`` (``ROWS`` first, if there), and its log
    scale; ``careful``: each factor and each partial product rescaled per row."""
    rows = bool(scope) and scope[0] is ROWS
    table = None
    log_scale = np.zeros(1)
    careful = careful and len(factors) > 1
    for s, t in factors:
        t = _aligned(s, t, scope)
        if careful:
            t, log_factor = _rescale(t, rows)
            log_scale = log_scale + log_factor
        if table is None:
            table = t
            continue
        table = table * t
        if careful:
            table, log_factor = _rescale(table, rows)
            log_scale = log_scale + log_factor
    assert table is not None  # every caller multiplies one factor or more
    return table, log_scale


def _contract(factors: Sequence[tuple], scope: list) -> np.ndarray:
    """The product of ``factors`` summed onto ``scope``, by one ``einsum`` (no rescaling)."""
    letters: dict = {}
    operands: list = []
    for s, t in factors:
        operands += [t, [letters.setdefault(u, len(letters)) for u in s]]
    return np.einsum(*operands, [letters[u] for u in scope], optimize=len(factors) > 2)


def _rows_first(labels: Sequence[Hashable]) -> list:
    """``labels`` with ``ROWS`` first (where it is): a row's entries are then contiguous."""
    return [ROWS, *(u for u in labels if u is not ROWS)] if ROWS in labels else list(labels)


def eliminate(
    factors: Sequence[tuple],
    keep: Sequence[Hashable],
    order: Sequence[Hashable],
    *,
    maxprod: bool = False,
    buckets: bool = False,
) -> Eliminated:
    """Sum (or, with ``maxprod``, max) every variable of ``order`` out of the product of
    ``factors``; what is left is over ``keep`` (in that order, ``ROWS`` first if kept).

    ``order`` must list every variable of the factors that is not kept (e.g. from
    :func:`elimination_order`). With ``buckets``, :attr:`Eliminated.buckets` holds one
    :class:`Bucket` per eliminated variable, in elimination order. Each step's result is
    rescaled per row; a step whose result comes near underflow in a row that is not
    already zero is done again with every product rescaled as it grows.

    Examples
    --------
    >>> p_a = (("a",), np.array([0.2, 0.8]))
    >>> p_b_given_a = (("a", "b"), np.array([[0.9, 0.1], [0.3, 0.7]]))
    >>> out = eliminate([p_a, p_b_given_a], ["b"], ["a"])
    >>> (out.table * np.exp(out.log_scale)).round(2).tolist()   # P(b)
    [0.42, 0.58]
    >>> rows = ((ROWS, "a"), np.array([[0.1, 0.7], [0.9, 0.3]]))   # P(b | a) at b = 1, then b = 0
    >>> out = eliminate([p_a, rows], [ROWS], ["a"])
    >>> (out.table * np.exp(out.log_scale)).round(2).tolist()   # P(b = 1), P(b = 0)
    [0.58, 0.42]
    """
    live = [(tuple(s), np.asarray(t, dtype=float)) for s, t in factors]
    log_scale = np.zeros(1)
    kept: list = []
    for var in order:
        touching = [f for f in live if var in f[0]]
        live = [f for f in live if var not in f[0]]
        scope = _rows_first(list(dict.fromkeys(u for s, _ in touching for u in s if u != var)))
        rows = bool(scope) and scope[0] is ROWS
        dead = np.isneginf(log_scale)  # rows of probability zero already
        for careful in (False, True):
            if not (
                careful
                or maxprod
                or buckets
                or len(touching) > _MAX_OPERANDS
                or len(scope) >= _MAX_LABELS
            ):  # sum-product: one einsum, no product kept
                summed, log_product = _contract(touching, scope), np.zeros(1)
            else:
                table, log_product = _product(touching, [*scope, var], careful)
                if buckets:
                    bucket = np.argmax(table, axis=-1) if maxprod else table
                summed = table.max(axis=-1) if maxprod else table.sum(axis=-1)
            reduced, log_sum = _rescale(summed, rows)
            if careful or not np.any((log_sum < _LOG_UNDERFLOW) & ~dead):
                break
        if buckets:
            kept.append(Bucket(var, tuple(scope), bucket))
        log_scale = log_scale + log_product + log_sum
        live.append((tuple(scope), reduced))
    keep = list(keep)
    if live:
        table, log_product = _product(live, keep, careful=True)
    else:
        table, log_product = np.ones([1] * len(keep)), np.zeros(1)
    table, log_last = _rescale(table, bool(keep) and keep[0] is ROWS)
    return Eliminated(table, log_scale + log_product + log_last, kept)


# ---------------------------------------------------------------------- rows of codes
#: at most this many entries in one factor of a batched elimination (rows x states)
_CELLS = 1 << 21
#: wider than this (entries a row), rows of different patterns are not eliminated together
_MIXED_WIDTH = 1 << 14
#: at most this many elimination orders are kept per network (then started afresh)
_ORDERS_KEPT = 4096


def cumulative(table: np.ndarray) -> np.ndarray:
    """Cumulative sums over the last axis, each row divided by its total (zero rows stay 0).

    >>> cumulative(np.array([[1.0, 3.0], [0.0, 0.0]])).tolist()
    [[0.25, 1.0], [0.0, 0.0]]
    """
    cum = np.cumsum(table, axis=-1)
    total = cum[..., -1:]
    return cum / np.where(total > 0, total, 1.0)


def draw(cum: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One index per row of the cumulative distributions ``cum`` ``(n, k)`` (inverse CDF)."""
    u = rng.random((cum.shape[0],))
    return np.minimum((cum <= u[:, None]).sum(axis=1), cum.shape[1] - 1)


def _observed(seen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per variable (column of ``seen``, rows x variables): observed in every row, in some
    row."""
    everywhere, somewhere = seen.all(axis=0), seen.any(axis=0)
    # arrays, as seen is 2-D (numpy's hints cannot tell: np.bool for a 1-D array)
    assert isinstance(everywhere, np.ndarray) and isinstance(somewhere, np.ndarray)
    return everywhere, somewhere


class Eliminator:
    """Exact inference on any DAG by variable elimination, for many rows of codes at once.

    Rows are the engine's codes (``-1`` = missing). Identical rows are answered once,
    and the rest by few eliminations, each over a chunk of rows (at most
    :data:`_CELLS` entries per factor): the factors carry a row axis (:data:`ROWS`). A
    variable observed in every row of the chunk is taken out of its CPTs (each row's
    slice indexed); one observed in some rows only stays, with each row's one-hot (or,
    where missing, all-ones) evidence as a factor; one missing everywhere is summed
    out. So the cost is one elimination per chunk of rows, whatever their patterns of
    missing values. Rows are sorted by that pattern first; where keeping the partly
    observed variables would make the elimination wide (:data:`_MIXED_WIDTH`), each
    pattern's rows are a chunk of their own (one elimination per pattern).

    Parameters
    ----------
    families : per variable, its CPT's axes as variable indices (``[parents..., itself]``).
    cpts : per variable, its CPT.
    card : per variable, its number of states.

    >>> e = Eliminator([[0], [0, 1]], [np.array([0.2, 0.8]), np.array([[0.9, 0.1], [0.3, 0.7]])],
    ...                [2, 2])
    >>> np.exp(e.log_evidence(np.array([[0, 1], [-1, 1], [-1, 0]]))).round(2).tolist()
    [[0.02], [0.58], [0.42]]
    """

    def __init__(
        self, families: Sequence[Sequence[int]], cpts: Sequence[np.ndarray], card: Sequence[int]
    ) -> None:
        self.families = [list(f) for f in families]
        self.cpts = [np.asarray(c, dtype=float) for c in cpts]
        self.card = list(card)
        self._eyes = [np.vstack([np.eye(k), np.ones(k)]) for k in self.card]  # -1: all ones
        self._orders: dict = {}

    # ------------------------------------------------------------------ the machinery
    def _factors(
        self,
        codes: np.ndarray,
        everywhere: np.ndarray,
        somewhere: np.ndarray,
        soft: Mapping[int, np.ndarray] | None = None,
    ) -> list:
        """The factors of the rows ``codes``: every CPT with the variables observed in all of
        them indexed by each row's codes (a row axis instead), the evidence of those
        observed in some rows only, and each likelihood of ``soft`` (a unary factor)."""
        out: list[tuple[tuple[int | _Rows, ...], np.ndarray]] = []
        for family, cpt in zip(self.families, self.cpts):
            seen = [a for a, u in enumerate(family) if everywhere[u]]
            if not seen:
                out.append((tuple(family), cpt))
                continue
            rest = tuple(u for u in family if not everywhere[u])
            table = np.moveaxis(cpt, seen, range(len(seen)))[
                tuple(codes[:, family[a]] for a in seen)
            ]
            out.append(((ROWS, *rest), table))
        for v in np.flatnonzero(somewhere & ~everywhere).tolist():
            out.append(((ROWS, v), self._eyes[v][codes[:, v]]))
        for v, likelihood in (soft or {}).items():
            out.append(((ROWS,), likelihood[codes[:, v]]) if everywhere[v] else ((v,), likelihood))
        return out

    def _order(self, everywhere: np.ndarray, somewhere: np.ndarray, keep: tuple) -> tuple:
        key = (everywhere.tobytes(), somewhere.tobytes(), keep)
        found = self._orders.get(key)
        if found is None:
            scopes = [tuple(u for u in f if not everywhere[u]) for f in self.families]
            found = elimination_order(scopes, dict(enumerate(self.card)), keep)
            check_memory(
                8.0 * found[1],
                f"variable elimination on this network (a factor of {found[1]:,} entries)",
                "use a network of smaller families, or fewer states per variable",
            )
            if len(self._orders) >= _ORDERS_KEPT:
                self._orders.clear()
            self._orders[key] = found
        return found

    @staticmethod
    def _distinct(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, back)``: the distinct rows of ``codes``, sorted by their pattern of missing
        values, and where each row of ``codes`` is among them (``codes == rows[back]``)."""
        first, inverse = distinct_rows(codes)
        unique = codes[first]
        _, pattern = distinct_rows(unique >= 0)
        order = np.argsort(pattern, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return unique[order], rank[inverse]

    def _chunks(self, codes: np.ndarray, keep: Sequence[int]):
        """Slices of ``codes``' rows (sorted by pattern), each small enough to eliminate with
        ``keep`` kept. Where the rows' evidence as factors makes the elimination wide (more
        than :data:`_MIXED_WIDTH` entries a row), rows of one pattern at a time instead:
        their CPTs reduced by everything they observe."""
        seen = codes >= 0
        width = self._width(seen, keep)
        if width <= _MIXED_WIDTH:
            groups = [(0, len(codes), width)]
        else:
            _, pattern = distinct_rows(seen)
            bounds = np.flatnonzero(np.diff(pattern, prepend=-1, append=-1))
            groups = [
                (a, b, self._width(seen[a:b], keep)) for a, b in itertools.pairwise(bounds.tolist())
            ]
        for a, b, w in groups:
            step = max(1, _CELLS // max(w, 1))
            for start in range(a, b, step):
                yield slice(start, min(start + step, b))

    def _width(self, seen: np.ndarray, keep: Sequence[int]) -> int:
        """The largest factor (entries a row) of the elimination for rows observing ``seen``."""
        everywhere, somewhere = _observed(seen)
        return self._order(everywhere, somewhere, tuple(u for u in keep if not everywhere[u]))[1]

    def _eliminate(
        self,
        codes: np.ndarray,
        keep: Sequence[int],
        maxprod: bool = False,
        buckets: bool = False,
        soft: Mapping[int, np.ndarray] | None = None,
    ) -> tuple[list, Eliminated]:
        """``(kept, result)``: the elimination for the rows ``codes`` with ``ROWS`` and those
        of ``keep`` not observed in every row kept (the table broadcast to every row)."""
        everywhere, somewhere = _observed(codes >= 0)
        kept = [u for u in keep if not everywhere[u]]
        order, _ = self._order(everywhere, somewhere, tuple(kept))
        result = eliminate(
            self._factors(codes, everywhere, somewhere, soft),
            [ROWS, *kept],
            order,
            maxprod=maxprod,
            buckets=buckets,
        )
        m = len(codes)
        table = np.broadcast_to(result.table, (m,) + result.table.shape[1:])
        return kept, Eliminated(table, np.broadcast_to(result.log_scale, m), result.buckets)

    @staticmethod
    def _normalised(table: np.ndarray) -> np.ndarray:
        """Rows of ``table`` (first axis) divided by their totals; NaN for a zero row."""
        total = table.reshape(table.shape[0], -1).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return table / np.where(total > 0, total, np.nan).reshape(
                (-1,) + (1,) * (table.ndim - 1)
            )

    # ------------------------------------------------------------------ answers per row
    def log_evidence(
        self,
        codes: np.ndarray,
        conditioner: int | None = None,
        soft: Mapping[int, np.ndarray] | None = None,
    ) -> np.ndarray:
        """``log P(observed values of row r, conditioner = g)``, ``(n, k_g)`` (one column
        without a conditioner; ``-inf`` off an observed conditioner's state)."""
        rows, back = self._distinct(codes)
        keep = [] if conditioner is None else [conditioner]
        out = np.full((len(rows), 1 if conditioner is None else self.card[conditioner]), -np.inf)
        for part in self._chunks(rows, keep):
            sub = rows[part]
            kept, result = self._eliminate(sub, keep, soft=soft)
            with np.errstate(divide="ignore"):
                logs = np.log(result.table.reshape(len(sub), -1)) + result.log_scale[:, None]
            if kept or conditioner is None:
                out[part] = logs
            else:  # observed in every row of the chunk: its column only
                out[np.arange(part.start, part.start + len(sub)), sub[:, conditioner]] = logs[:, 0]
        return out[back]

    def posterior(self, codes: np.ndarray, target: int) -> np.ndarray:
        """``P(target | row)`` ``(n, k_target)`` for rows that leave ``target`` missing
        (NaN for rows of probability zero)."""
        rows, back = self._distinct(codes)
        out = np.empty((len(rows), self.card[target]))
        for part in self._chunks(rows, [target]):
            out[part] = self._normalised(self._eliminate(rows[part], [target])[1].table)
        return out[back]

    def query(
        self, query: Sequence[int], row: np.ndarray, soft: Mapping[int, np.ndarray] | None = None
    ) -> np.ndarray:
        """``P(query | the evidence of one row)``, one axis per query variable (zeros when
        the evidence is impossible); the query variables are missing in ``row``."""
        _, result = self._eliminate(row[None], list(query), soft=soft)
        return np.nan_to_num(self._normalised(result.table)[0], nan=0.0)

    def marginals(self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None) -> list:
        """Every variable's posterior given each row, ``[(n, k_v) per variable]`` (an observed
        variable: its one-hot row; NaN for rows of probability zero)."""
        rows, back = self._distinct(codes)
        possible = np.isfinite(self.log_evidence(rows, soft=soft)[:, 0])
        out = []
        for i in range(len(self.card)):
            onehot = np.where(possible[:, None], self._eyes[i][rows[:, i]], np.nan)
            table = onehot.copy()
            for part in self._chunks(rows, [i]):
                if (rows[part, i] >= 0).all():
                    continue  # observed in every row of the chunk: its one-hot rows
                table[part] = self._normalised(self._eliminate(rows[part], [i], soft=soft)[1].table)
            out.append(table[back])
        return out

    def family_posteriors(
        self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None
    ) -> tuple:
        """``(log P(observed cells of row r), [P(family of v | row r) (n, family states...)])``
        in each CPT's axis order; rows of probability zero: ``-inf`` and zeros."""
        rows, back = self._distinct(codes)
        n = len(rows)
        log_ev = self.log_evidence(rows, soft=soft)[:, 0]
        out = []
        for family in self.families:
            shape = [self.card[u] for u in family]
            table = np.zeros((n, *shape))
            for part in self._chunks(rows, family):
                sub = rows[part]
                m = len(sub)
                kept, result = self._eliminate(sub, family, soft=soft)
                joint = np.nan_to_num(self._normalised(result.table), nan=0.0)
                # the kept axes in family order, one-hot (m, k) axes for the others
                joint = joint.reshape([m] + [k if u in kept else 1 for u, k in zip(family, shape)])
                for a, u in enumerate(family):
                    if u not in kept:
                        onehot = self._eyes[u][sub[:, u]]
                        joint = joint * onehot.reshape(
                            [m] + [1] * a + [-1] + [1] * (len(family) - a - 1)
                        )
                table[part] = joint
            table[~np.isfinite(log_ev)] = 0.0
            out.append(table[back])
        return log_ev[back], out

    def map(self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None) -> tuple:
        """The most probable completion of each row ``(codes (n, d), log P(completion))``."""
        rows, back = self._distinct(codes)
        best = rows.astype(np.int64, copy=True)
        log_p = np.empty(len(rows))
        for part in self._chunks(rows, []):
            sub = rows[part]
            m = len(sub)
            _, result = self._eliminate(sub, [], maxprod=True, buckets=True, soft=soft)
            with np.errstate(divide="ignore"):
                log_p[part] = np.log(result.table.reshape(m)) + result.log_scale
            done = sub.astype(np.int64, copy=True)
            for bucket in reversed(result.buckets):  # each given those eliminated after it
                index = tuple(np.arange(m) if u is ROWS else done[:, u] for u in bucket.scope)
                done[:, bucket.variable] = bucket.table[index]
            best[part] = np.where(sub >= 0, sub, done)  # observed values stay
        return best[back], log_p[back]

    def sample(
        self,
        n: int,
        rng: np.random.Generator,
        row: np.ndarray,
        soft: Mapping[int, np.ndarray] | None = None,
    ) -> np.ndarray:
        """``n`` rows drawn exactly from the model given the evidence of ``row`` (empty when
        the evidence is impossible): eliminate, then sample back through the buckets."""
        _, result = self._eliminate(row[None], [], buckets=True, soft=soft)
        if not result.table.reshape(-1)[0] > 0:
            return np.zeros((0, len(row)), dtype=np.int64)
        out = np.broadcast_to(np.where(row >= 0, row, 0), (n, len(row))).astype(np.int64)
        for bucket in reversed(result.buckets):  # each given those eliminated after it
            index = tuple(
                np.zeros(n, dtype=np.intp) if u is ROWS else out[:, u] for u in bucket.scope
            )
            table = np.broadcast_to(bucket.table[index], (n, bucket.table.shape[-1]))
            out[:, bucket.variable] = draw(cumulative(table), rng)
        return out
