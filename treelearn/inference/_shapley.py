"""Why a prediction: Shapley values and the chain-rule decomposition of its log-odds.

A prediction as a function of which features are known is a cooperative *game*:
for a coalition ``S`` of the features (the *players*), ``v(S)`` is the model's
prediction of the target with only ``S`` observed. :class:`Game` gives, for many
rows and many coalitions at once, ``log P(target = c, x_S)`` for every state ``c``:

* **conditional** (``Game.log_joint``): the features outside ``S`` unobserved,
  summed out exactly as the model's missing-value path does (the engine's message
  passing or variable elimination);
* **interventional** (``Game.hybrid_log_joint``): the features outside ``S`` taken
  from each background row in turn, the prediction averaged over them (shap's
  ``Independent`` masker, pyAgrum's "marginal" values).

``v`` is then the prediction of one state per row on the ``output`` scale
(:func:`game_values`): ``log_proba`` (``log P(t | x_S)``), ``proba``, or
``log_odds``: ``log P(t | x_S) - mean_{c != t} log P(c | x_S)`` (for two states the
logit, pyAgrum's ``logit=True``).

:func:`explain_game` computes

* ``kind="shapley"``: ``phi_j = sum_{S not j} |S|! (p - |S| - 1)! / p! (v(S + j) - v(S))``,
  exactly by enumerating every coalition (``2^p``, one matrix product with the
  coefficient matrix of :func:`shapley_matrix`), or, beyond :data:`MAX_EXACT`
  players, by permutation sampling (antithetic pairs) with a standard error;
  efficiency ``sum_j phi_j = v(all) - v(none)`` holds to round-off either way (each
  sampled permutation's contributions telescope);
* ``kind="log_odds"``: the chain rule along ``Game.order`` (a topological order of
  the network): feature ``j`` gets ``v(features up to j) - v(features before j)``
  with ``v`` the log-odds, which add up to the log posterior odds minus the prior
  log-odds exactly. For a network whose target is a root (naive Bayes, TAN, KDB)
  and a complete row, feature ``j``'s term is its CPT's log-odds term given its
  parents, ``log P(x_j | pa_j, t) - mean_{c != t} log P(x_j | pa_j, c)``.

Exact where it stays exact beyond enumeration (proved in the docstrings below and
tested): the conditional log-odds game of a network is a *sum* of games, one per
group of features linked to each other by a family that does not go through the
target (:func:`independent_groups`): ``P(x_S, t)`` factorises over the groups, so
``v(S) = const + sum_K h_K(S & K)`` and each feature's Shapley value is that of its
group's game, enumerated over its group only. For naive Bayes every group is one
feature: its Shapley value is its log-odds term, whatever the number of features.

On a tree given the target (the engine's message passing, the target as its
conditioner), :func:`tree_coalition_log_joint` computes the ``2^p`` coalitions of a
row in one pass up the tree: each variable's belief carries one slice per subset
of the players below it, and two subtrees' slices combine as an outer product, so
shared sub-sums are computed once.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._base.errors import TreelearnError
from .._base.limits import check_memory
from .._base.logspace import logsumexp
from .._base.validation import BOOLEAN, Constraint, InstanceOf, Interval, Options, check_params
from ..encoding._table import fix_advice

if TYPE_CHECKING:
    from ._engine import TreeEngine

__all__ = [
    "EXPLAIN_OPTIONS",
    "MAX_EXACT",
    "EngineGame",
    "Explanation",
    "Game",
    "MixtureGame",
    "RowsGame",
    "check_explain_options",
    "coalition_masks",
    "explain_game",
    "game_values",
    "independent_groups",
    "shapley_matrix",
    "tree_coalition_log_joint",
]

#: the most players whose ``2^p`` coalitions are enumerated (``method="exact"``)
MAX_EXACT = 20
#: the most players ``method="auto"`` enumerates when coalitions are evaluated one by one
#: (not all at once on a tree); beyond, permutation sampling
AUTO_EXACT = 15
#: the most (coalition, background row) evaluations per explained row that
#: ``method="exact"`` makes for interventional values (2^20 coalitions x 128 rows; ~10^8
#: hybrid rows, tens of CPU seconds a row)
MAX_HYBRID = 1 << 27
#: entries of one batch of coalition evaluations (rows x coalitions x columns)
_CELLS = 1 << 22
#: below this (in logs) a product of probabilities may underflow: messages are rescaled
_LOG_UNDERFLOW = np.log(1e-250)

#: the options of every ``explain``, checked once (``_base.validation``)
EXPLAIN_OPTIONS: dict[str, list[Constraint]] = {
    "kind": [Options("log_odds", "shapley")],
    "conditional": [BOOLEAN],
    "output": [None, Options("log_proba", "proba", "log_odds")],
    "method": [Options("auto", "exact", "sampling")],
    "n_permutations": [Interval(Integral, 2, None)],
    "random_state": [None, Interval(Integral, 0, None), InstanceOf(np.random.Generator)],
}
_NOTES = {
    "kind": "'log_odds': the chain rule along the network; 'shapley': Shapley values",
    "output": "the scale of the prediction explained",
    "method": "'exact' enumerates every coalition, 'sampling' draws permutations",
    "n_permutations": "an even number: permutations come in antithetic pairs",
}


def check_explain_options(**options: Any) -> dict:
    """The options of ``explain`` checked (one wording), and the combinations that do
    not go together refused; ``output`` filled in (``log_odds`` for ``kind="log_odds"``,
    else ``log_proba``).

    >>> check_explain_options(kind="shapley", conditional=True, output=None, method="auto",
    ...                       n_permutations=64, random_state=0)["output"]
    'log_proba'
    """
    params = check_params(options, EXPLAIN_OPTIONS, _NOTES)
    if params["n_permutations"] % 2:
        raise TreelearnError(
            f"n_permutations == {params['n_permutations']}, must be even "
            f"(permutations are drawn in antithetic pairs)",
            values=[params["n_permutations"]],
        )
    if params["kind"] == "log_odds":
        if params["output"] not in (None, "log_odds"):
            raise TreelearnError(
                f"kind='log_odds' explains the log posterior odds; output={params['output']!r} "
                f"is for kind='shapley'",
                values=[params["output"]],
            )
        if not params["conditional"]:
            raise TreelearnError(
                "kind='log_odds' is the chain rule of the model's own posterior (conditional); "
                "with a background sample use kind='shapley', conditional=False"
            )
        params["output"] = "log_odds"
    elif params["output"] is None:
        params["output"] = "log_proba"
    return params


# ---------------------------------------------------------------------- results
@dataclass(frozen=True)
class Explanation:
    """Per-feature contributions to a prediction, one row per explained row.

    ``values.sum(axis=1) + base == prediction`` (to round-off): the prediction of
    ``target`` (one state per row) on the ``output`` scale, ``base`` its value with no
    feature known (the prior, or the average over the background).

    Made by a classifier's or a model's ``explain``; its fields are its attributes.

    Parameters
    ----------
    values : pandas.DataFrame
        Rows x features, the contribution of each feature.
    base, prediction : pandas.Series
        Per row, ``v(no feature)`` and ``v(every feature)``.
    target : pandas.Series
        Per row, the state (class) explained; its name is the target variable's.
    data : pandas.DataFrame
        The explained rows' feature values.
    kind : {"log_odds", "shapley"}
        The chain rule's contributions, or Shapley values.
    output : {"log_odds", "log_proba", "proba"}
        The scale of ``prediction``.
    conditional : bool
        Unknown features summed out (True) or taken from a background (False).
    method : str
        How the values were computed (``"chain rule"``, ``"exact"``,
        ``"exact per independent group"``, ``"permutation sampling"``).
    standard_error : pandas.DataFrame, default=None
        Rows x features, the sampling estimator's standard errors (``None`` where the
        values are exact).
    states : list, default=None
        The target's states, in the model's order (``None``: not recorded).

    See Also
    --------
    plot_explanation : waterfall, beeswarm and bar pictures of it.

    References
    ----------
    .. [1] Lundberg, S. M. and Lee, S.-I. (2017). A unified approach to interpreting
       model predictions. Advances in Neural Information Processing Systems 30,
       4765-4774.

    Examples
    --------
    A naive Bayes prediction's log-odds is the prior's plus one term per feature:

    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> X, y = df.drop(columns="either"), df["either"]
    >>> clf = tl.NaiveBayes().fit(X, y)
    >>> e = clf.explain(X.head(3))
    >>> e.kind, e.output, e.target.tolist()
    ('log_odds', 'log_odds', ['no', 'no', 'no'])
    >>> log_p = np.log(clf.predict_proba(X.head(3)))   # classes ['no', 'yes']
    >>> bool(np.allclose(e.prediction, log_p[:, 0] - log_p[:, 1]))
    True
    >>> bool(np.allclose(e.values.sum(axis=1) + e.base, e.prediction))
    True
    """

    values: pd.DataFrame
    base: pd.Series
    prediction: pd.Series
    target: pd.Series
    data: pd.DataFrame
    kind: str
    output: str
    conditional: bool
    method: str
    standard_error: pd.DataFrame | None = field(default=None)
    states: tuple | None = field(default=None)

    @property
    def features(self) -> list:
        """The features (the columns of :attr:`values`)."""
        return list(self.values.columns)

    def to_frame(self) -> pd.DataFrame:
        """The contributions with the columns ``(base)``, ``(prediction)``, ``(target)``
        (and ``(standard error) <feature>`` for sampled values): what ``treelearn
        explain -o`` writes."""
        extra = {"(target)": self.target, "(base)": self.base, "(prediction)": self.prediction}
        clash = [c for c in extra if c in self.values.columns]
        if clash:
            raise TreelearnError(f"a feature is named {clash[0]!r}: rename it to write the table")
        frame = pd.concat([self.values, pd.DataFrame(extra, index=self.values.index)], axis=1)
        if self.standard_error is not None:
            se = self.standard_error.add_prefix("(standard error) ")
            frame = pd.concat([frame, se], axis=1)
        return frame

    def importance(self) -> pd.Series:
        """Mean absolute contribution of each feature over the rows, largest first."""
        return self.values.abs().mean().sort_values(ascending=False, kind="stable")

    def __repr__(self) -> str:
        n, p = self.values.shape
        how = "conditional" if self.conditional else "interventional"
        return (
            f"Explanation({self.kind}, {self.output}, {how}, {self.method}: {n} row"
            f"{'' if n == 1 else 's'} x {p} feature{'' if p == 1 else 's'})"
        )


# ---------------------------------------------------------------------- coalitions
def coalition_masks(p: int, start: int = 0, stop: int | None = None) -> np.ndarray:
    """The coalitions ``start..stop`` of ``p`` players as rows of booleans: coalition ``m``
    holds player ``i`` when bit ``p - 1 - i`` of ``m`` is set (player 0 most significant).

    >>> coalition_masks(2).astype(int).tolist()
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    """
    stop = 2**p if stop is None else stop
    index = np.arange(start, stop, dtype=np.int64)
    shifts = np.arange(p - 1, -1, -1, dtype=np.int64)
    return ((index[:, None] >> shifts[None, :]) & 1).astype(bool)


def shapley_matrix(p: int) -> np.ndarray:
    """``C`` with ``phi = v @ C`` for ``v`` over the ``2^p`` coalitions (:func:`coalition_masks`
    order): ``C[S, j] = w(|S| - 1)`` if ``j`` in ``S``, else ``-w(|S|)``, with
    ``w(s) = s! (p - s - 1)! / p! = 1 / (p C(p - 1, s))``.

    >>> shapley_matrix(2).tolist()   # phi_0 = (v(0) - v()) / 2 + (v(01) - v(1)) / 2
    [[-0.5, -0.5], [-0.5, 0.5], [0.5, -0.5], [0.5, 0.5]]
    """
    check_memory(
        8.0 * 2**p * p * 2,
        f"Shapley coefficients of {p} players (2^{p} coalitions)",
        f"use method='sampling' (or fewer than {p} features)",
    )
    masks = coalition_masks(p)
    size = masks.sum(axis=1)
    w = np.array([1.0 / (p * math.comb(p - 1, s)) for s in range(p)] + [0.0])
    inside = w[np.maximum(size - 1, 0)][:, None]
    outside = w[np.minimum(size, p)][:, None]
    return np.where(masks, inside, -outside)


# ---------------------------------------------------------------------- games
class Game(ABC):
    """A prediction as a function of the coalition of features known, for ``n`` rows.

    Attributes
    ----------
    players : the features' names.
    states : the target's states.
    n : rows explained.
    order : the chain rule's order of the players (indices; a topological order of the
        network where there is one).
    groups : players in groups whose conditional log-odds games add up (see
        :func:`independent_groups`), or ``None`` (one game over all).
    """

    players: list
    states: list
    n: int
    order: list
    groups: list | None = None
    n_background: int = 0

    @abstractmethod
    def log_joint(self, keep: np.ndarray, rows: slice) -> np.ndarray:
        """``log P(target = c, x_S)`` ``(rows, coalitions, states)`` for the coalitions
        ``keep`` ``(coalitions, players)`` (the other features unobserved)."""

    def all_coalitions(self, players: Sequence[int], rows: slice) -> tuple[np.ndarray, list] | None:
        """``(table, order)``: ``log P(target = c, x_S)`` ``(rows, 2^q, states)`` for all
        coalitions ``S`` of the ``q`` ``players`` (the rest unobserved) at once, in
        :func:`coalition_masks` order of the players ``[players[i] for i in order]``; or
        ``None`` where there is no faster way than :meth:`log_joint`."""
        return None

    def enumerates_all(self) -> bool:
        """Whether :meth:`all_coalitions` has a faster way than one coalition at a time."""
        return False

    def hybrid_log_joint(self, keep: np.ndarray, rows: slice) -> np.ndarray:
        """``log P(target = c, z)`` ``(rows, coalitions, background rows, states)`` of the
        rows ``z`` that take the features in ``keep`` from the row and the others from
        each background row."""
        raise TreelearnError(
            "this model has no background sample to take the unknown "
            "features from: pass background="
        )

    def width(self) -> int:
        """Entries one coalition of one row costs (for batching)."""
        return max(len(self.players), 1) * max(len(self.states), 1)

    def unknown_everywhere(self) -> np.ndarray:
        """Per player, whether it is missing in every row explained (then, in the
        conditional game, a null player: ``v(S + j) = v(S)``, its Shapley value 0)."""
        return np.zeros(len(self.players), dtype=bool)


def _take(rows: Any, index: np.ndarray) -> Any:
    return tuple(r[index] for r in rows) if isinstance(rows, tuple) else rows[index]


def _repeat(keep: np.ndarray, n: int) -> np.ndarray:
    return np.broadcast_to(keep[None], (n,) + keep.shape).reshape(-1, keep.shape[1])


class EngineGame(Game):
    """The game of one network: ``codes`` (the engine's variables' codes, ``-1`` missing),
    the target the engine's conditioner (its states the batch axis), the players some of
    the other variables.

    ``background`` (codes like ``codes``) gives the interventional game.
    """

    def __init__(
        self,
        engine: TreeEngine,
        codes: np.ndarray,
        players: Sequence[int],
        background: np.ndarray | None = None,
        order: Sequence[int] | None = None,
    ) -> None:
        self.engine = engine
        self.codes = np.asarray(codes, dtype=np.int64).copy()
        self.target = engine.gi
        self.codes[:, self.target] = -1
        self.columns = [int(j) for j in players]
        self.players = [engine.variables[j] for j in self.columns]
        self.states = list(engine.states[engine.conditioner])
        self.n = len(self.codes)
        position = {j: i for i, j in enumerate(self.columns)}
        topological = topological_order(engine.parents, engine.variables)
        self.order = (
            list(order)
            if order is not None
            else [position[engine.index[v]] for v in topological if engine.index[v] in position]
        )
        self.groups = independent_groups(
            engine.parents, engine.variables, engine.conditioner, self.players
        )
        self.background: np.ndarray | None = None
        if background is not None:
            self.background = np.asarray(background, dtype=np.int64).copy()
            self.background[:, self.target] = -1
            self.n_background = len(self.background)

    def width(self) -> int:
        return self.codes.shape[1] * max(len(self.states), 1)

    def unknown_everywhere(self) -> np.ndarray:
        return (self.codes[:, self.columns] < 0).all(axis=0)

    def log_joint(self, keep: np.ndarray, rows: slice) -> np.ndarray:
        base = self.codes[rows]
        n = len(base)
        codes = np.repeat(base, len(keep), axis=0)
        cols = np.array(self.columns, dtype=np.intp)
        codes[:, cols] = np.where(_repeat(keep, n), codes[:, cols], -1)
        out = self.engine.log_evidence_by_conditioner(codes)
        return out.reshape(n, len(keep), -1)

    def enumerates_all(self) -> bool:
        return self.engine.is_tree and len(self.engine.variables) > 1

    def all_coalitions(self, players: Sequence[int], rows: slice) -> tuple[np.ndarray, list] | None:
        if not self.enumerates_all():
            return None
        cols = [self.columns[i] for i in players]
        return tree_coalition_log_joint(self.engine, self.codes[rows], cols)

    def hybrid_log_joint(self, keep: np.ndarray, rows: slice) -> np.ndarray:
        if self.background is None:
            return super().hybrid_log_joint(keep, rows)
        base = self.codes[rows]
        if self._complete_families():
            return self._hybrid_by_families(keep, base, self.background)
        n, m, nb = len(base), len(keep), len(self.background)
        # (row, coalition, background row) in that order
        x = np.repeat(base, m * nb, axis=0)
        b = np.tile(self.background, (n * m, 1))
        mask = np.repeat(_repeat(keep, n), nb, axis=0)
        cols = np.array(self.columns, dtype=np.intp)
        x[:, cols] = np.where(mask, x[:, cols], b[:, cols])
        return self.engine.log_evidence_by_conditioner(x).reshape(n, m, nb, -1)

    def _complete_families(self) -> bool:
        """Whether every hybrid row is complete (each variable but the target a player,
        known in every row and background row) on a compiled tree engine: then ``log
        P(target = c, z)`` is a sum of the families' log CPT entries."""
        if getattr(self, "_complete", None) is None:
            e, background = self.engine, self.background
            cols = np.array(self.columns, dtype=np.intp)
            self._complete = bool(
                e.is_tree
                and background is not None
                and len(cols) == len(e.variables) - 1
                and (self.codes[:, cols] >= 0).all()
                and (background[:, cols] >= 0).all()
            )
        return self._complete

    def _hybrid_by_families(
        self, keep: np.ndarray, base: np.ndarray, background: np.ndarray
    ) -> np.ndarray:
        """:meth:`hybrid_log_joint` of complete rows as ``log w_c + sum_f log f_c(z_f)``:
        a family of ``q`` variables takes each of them from the row or the background
        row, ``2^q`` patterns whose terms are computed once per (row, background row)
        and gathered by each coalition's pattern (no engine pass per hybrid row)."""
        e = self.engine
        n, m, nb, K = len(base), len(keep), len(background), e.kg
        position = {j: i for i, j in enumerate(self.columns)}
        bg = background
        out = np.empty((m, n, nb, K))
        with np.errstate(divide="ignore"):
            out[:] = np.log(e.gweight)
            terms = [
                ((s,), np.log(e.local[s][:, 0, :])) for s in range(len(e.variables)) if s != e.gi
            ]
            terms += [(f.scope, np.log(f.table)) for f in e.factors]
        for scope, log_table in terms:
            q = len(scope)
            bits = keep[:, [position[v] for v in scope]]
            pattern = bits.astype(np.intp) @ (1 << np.arange(q, dtype=np.intp))
            values = np.empty((2**q, n, nb, K))
            for a in range(2**q):  # which of the family's variables come from the row
                index: tuple[slice | np.ndarray, ...] = (
                    slice(None),
                    *(
                        np.broadcast_to(
                            base[:, v, None] if (a >> i) & 1 else bg[None, :, v], (n, nb)
                        )
                        for i, v in enumerate(scope)
                    ),
                )
                picked = log_table[index]  # (K|1, n, nb)
                values[a] = np.moveaxis(np.broadcast_to(picked, (K, n, nb)), 0, -1)
            out += values[pattern]
        return np.moveaxis(out, 0, 1)


class MixtureGame(Game):
    """The game of a mixture: ``log sum_k w_k P_k(target, x_S)`` over component games."""

    def __init__(self, games: Sequence[EngineGame], log_weights: np.ndarray) -> None:
        self.games = list(games)
        self.log_weights = np.asarray(log_weights, dtype=float)
        first = self.games[0]
        self.players, self.states, self.n = first.players, first.states, first.n
        self.order = first.order
        self.groups = None  # the mixture couples every feature
        self.n_background = first.n_background

    def width(self) -> int:
        return self.games[0].width() * len(self.games)

    def unknown_everywhere(self) -> np.ndarray:
        return self.games[0].unknown_everywhere()  # the same rows in every game

    def _mix(self, parts: list) -> np.ndarray:
        stacked = np.stack([lw + p for lw, p in zip(self.log_weights, parts)])
        with np.errstate(invalid="ignore"):
            return logsumexp(stacked, axis=0)

    def log_joint(self, keep: np.ndarray, rows: slice) -> np.ndarray:
        return self._mix([g.log_joint(keep, rows) for g in self.games])

    def enumerates_all(self) -> bool:
        return all(g.enumerates_all() for g in self.games)

    def all_coalitions(self, players: Sequence[int], rows: slice) -> tuple[np.ndarray, list] | None:
        parts = [g.all_coalitions(players, rows) for g in self.games]
        tables = [p for p in parts if p is not None]
        if len(tables) < len(parts):
            return None
        order = tables[0][1]  # the first tree's order; the others' tables are put in it
        return self._mix([_bits_in(t, o, order) for t, o in tables]), order

    def hybrid_log_joint(self, keep: np.ndarray, rows: slice) -> np.ndarray:
        return self._mix([g.hybrid_log_joint(keep, rows) for g in self.games])


class RowsGame(Game):
    """The game of a classifier through its own prediction: ``joint(rows)`` is its
    ``log p(x_observed, c)`` of converted rows, ``mask(rows, keep, other)`` the rows with
    the features outside ``keep`` unobserved (``other=None``) or taken from ``other``;
    ``take(rows, index)`` selects rows."""

    def __init__(
        self,
        joint: Any,
        mask: Any,
        take: Any,
        rows: Any,
        n: int,
        players: list,
        states: list,
        order: list | None = None,
        groups: list | None = None,
        background: Any = None,
        n_background: int = 0,
        sums_out: bool = True,
        who: str = "this classifier",
        width: int | None = None,
    ) -> None:
        self.joint, self.mask, self.take = joint, mask, take
        self.rows, self.n, self.players, self.states = rows, n, list(players), list(states)
        self.order = list(order) if order is not None else list(range(len(players)))
        self.groups = groups
        self.background, self.n_background = background, n_background
        self.sums_out, self.who = sums_out, who
        self._width = width

    def width(self) -> int:
        return self._width or super().width()

    def log_joint(self, keep: np.ndarray, rows: slice) -> np.ndarray:
        if not self.sums_out:
            reason = (
                f"{self.who} cannot sum unknown features out (it takes no missing values at "
                f"prediction), so it has no conditional explanation"
            )
            raise TreelearnError(
                f"{reason}: {fix_advice(['background'])}", reason=reason, fixes=["background"]
            )
        index = np.arange(self.n)[rows]
        m = len(keep)
        picked = self.take(self.rows, np.repeat(index, m))
        out = self.joint(self.mask(picked, _repeat(keep, len(index)), None))
        return np.asarray(out).reshape(len(index), m, -1)

    def hybrid_log_joint(self, keep: np.ndarray, rows: slice) -> np.ndarray:
        if self.background is None:
            return super().hybrid_log_joint(keep, rows)
        index = np.arange(self.n)[rows]
        n, m, nb = len(index), len(keep), self.n_background
        picked = self.take(self.rows, np.repeat(index, m * nb))
        other = self.take(self.background, np.tile(np.arange(nb), n * m))
        mask = np.repeat(_repeat(keep, n), nb, axis=0)
        out = self.joint(self.mask(picked, mask, other))
        return np.asarray(out).reshape(n, m, nb, -1)


def _bits_in(table: np.ndarray, order: list, wanted: list) -> np.ndarray:
    """``table`` ``(n, 2^q, k)`` over coalitions of the players ``order`` as coalitions of
    the players ``wanted`` (the same players): its bits transposed."""
    if list(order) == list(wanted):
        return table
    n, _, k = table.shape
    q = len(order)
    axes = [1 + list(order).index(w) for w in wanted]
    out = table.reshape((n,) + (2,) * q + (k,))
    return np.transpose(out, [0, *axes, q + 1]).reshape(n, 2**q, k)


def topological_order(parents: Mapping, variables: Sequence) -> list:
    """The variables in a topological order (parents first; ties in variable order)."""
    done: set = set()
    out: list = []
    pending = list(variables)
    while pending:
        later = []
        for v in pending:
            if all(p in done for p in parents[v]):
                out.append(v)
                done.add(v)
            else:
                later.append(v)
        pending = later
    return out


def independent_groups(
    parents: Mapping[Hashable, Sequence[Hashable]],
    variables: Sequence,
    target: Hashable,
    players: Sequence,
) -> list:
    """The players in groups that are independent given ``target``, as lists of player
    positions (in the players' order).

    ``P(x, t) = prod_v P(x_v | pa_v)``: take ``t`` out of every family and link the
    variables left in each; the product splits over the connected parts, so for any
    coalition ``S``, ``P(x_S, t) = f(t) prod_K g_K(x_{S & K}, t)``. The log-odds of ``t``
    (where ``f`` and ``t``-free factors cancel) is a constant plus one term per group,
    each depending on the group's own players only: the log-odds game is the sum of
    the groups' games.

    >>> independent_groups({"c": [], "a": ["c"], "b": ["c", "a"], "d": ["c"]}, "cabd", "c",
    ...                    ["a", "b", "d"])   # TAN-like a - b, naive d
    [[0, 1], [2]]
    """
    root = {v: v for v in variables}

    def find(v: Hashable) -> Hashable:
        while root[v] != v:
            root[v] = root[root[v]]
            v = root[v]
        return v

    for v in variables:
        scope = [u for u in [*parents[v], v] if u != target]
        for u in scope[1:]:
            root[find(u)] = find(scope[0])
    groups: dict = {}
    for i, v in enumerate(players):
        groups.setdefault(find(v), []).append(i)
    return list(groups.values())


# ---------------------------------------------------------------------- the tree pass
def tree_coalition_log_joint(
    engine: TreeEngine, codes: np.ndarray, players: Sequence[int]
) -> tuple[np.ndarray, list]:
    """``log P(g = c, x_S)`` for every row of ``codes`` and every coalition ``S`` of
    ``players`` (variable indices; the other variables unobserved): ``(table (n, 2^p,
    k_g), order)``, the coalitions in :func:`coalition_masks` order of the players
    ``order`` (positions in ``players``: the order the tree met them in); ``g`` is the
    engine's conditioner (message passing).

    One collect up the forest: a variable's belief has one slice per subset of the
    players below it (its own in/out axis: all ones, or the row's one-hot), a factor's
    message sums its down variables' beliefs into its up variable (their subset axes
    side by side), and a variable's belief is the outer product of its messages' subset
    axes. Where the model could underflow (a product of as many of its smallest CPT
    entries as it has variables below ``1e-250``), each message is rescaled per (row,
    subset) with its log carried apart.

    >>> import numpy as np
    >>> from treelearn.inference._engine import TreeEngine
    >>> e = TreeEngine(["c", "a"], {"c": [], "a": ["c"]},
    ...                {"c": np.array([0.5, 0.5]), "a": np.array([[0.9, 0.1], [0.2, 0.8]])},
    ...                {"c": [0, 1], "a": [0, 1]}, conditioner="c")
    >>> table, order = tree_coalition_log_joint(e, np.array([[-1, 1]]), [1])
    >>> np.exp(table).round(2).tolist(), order
    ([[[0.5, 0.5], [0.05, 0.4]]], [0])
    """
    codes = np.asarray(codes, dtype=np.int64)
    n = len(codes)
    K = engine.kg
    position = {int(v): i for i, v in enumerate(players)}
    smallest = min(
        (float(c[c > 0].min()) for c in engine.cpts.values() if (c > 0).any()), default=1.0
    )
    rescale = len(engine.variables) * np.log(smallest) < _LOG_UNDERFLOW
    beliefs: dict = {}  # variable -> (belief (K, n, S, k), members, log scale (n, S) or None)

    def start(x: int) -> tuple:
        k = engine.card[x]
        local = np.broadcast_to(engine.local[x], (K, 1, k))[:, :, None, :]
        if x not in position:
            return np.broadcast_to(local, (K, n, 1, k)), [], None
        onehot = np.vstack([np.eye(k), np.ones(k)])[codes[:, x]]  # -1 (missing): ones
        axis = np.stack([np.ones((n, k)), onehot], axis=1)  # (n, 2, k): out, in
        return local * axis[None], [x], None

    def held(x: int) -> tuple:
        if x not in beliefs:
            beliefs[x] = start(x)
        return beliefs[x]

    def outer(a: tuple, b: tuple) -> tuple:
        ta, ma, la = a
        tb, mb, lb = b
        t = (ta[:, :, :, None, :] * tb[:, :, None, :, :]).reshape(
            K, n, ta.shape[2] * tb.shape[2], ta.shape[3]
        )
        if la is None and lb is None:
            scale = None
        else:
            la = np.zeros((n, ta.shape[2])) if la is None else la
            lb = np.zeros((n, tb.shape[2])) if lb is None else lb
            scale = (la[:, :, None] + lb[:, None, :]).reshape(n, -1)
        return t, ma + mb, scale

    for f in engine.order[::-1]:  # children's factors before their parents'
        down = [beliefs.pop(x) if x in beliefs else start(x) for x in f.down]
        table = np.moveaxis(f.table, 1 + f.pos, 1)  # (K|1, k_up, k_down...)
        table = np.broadcast_to(table, (K,) + table.shape[1:])
        msg, members, log_scale = _factor_message(table, down, K, n)
        if rescale:
            top = msg.max(axis=(0, 3))
            ok = top > 0
            safe = np.where(ok, top, 1.0)
            msg = msg / safe[None, :, :, None]
            with np.errstate(divide="ignore"):
                step = np.where(ok, np.log(safe), -np.inf)
            log_scale = step if log_scale is None else log_scale + step
        beliefs[f.up] = outer(held(f.up), (msg, members, log_scale))
    total = None
    for r in engine.roots:
        t, members, log_scale = held(r)
        part = (t.sum(axis=3, keepdims=True), members, log_scale)
        total = part if total is None else outer(total, part)
    assert total is not None  # a network has a root
    t, members, log_scale = total
    if sorted(members) != sorted(position):
        raise TreelearnError("every player must be a variable of the network other than the target")
    with np.errstate(divide="ignore"):
        out = np.log(np.moveaxis(t[:, :, :, 0], 0, -1))  # (n, S, K)
        if log_scale is not None:
            out += log_scale[:, :, None]
        out += np.log(engine.gweight)
    return out, [position[x] for x in members]


def _factor_message(table: np.ndarray, down: list, K: int, n: int) -> tuple:
    """``sum_{x_down} table[g, x_up, x_down...] prod belief_d`` with the down beliefs' subset
    axes side by side: ``(message (K, n, S, k_up), members, log scale (n, S) or None)``."""
    if len(down) == 1:  # a pairwise factor: a sum over the few states of the down variable
        t, below, log_scale = down[0]
        msg = None
        for a in range(t.shape[3]):  # small k: broadcasting beats a batched matrix product
            term = t[:, :, :, a, None] * table[:, None, None, :, a]
            msg = term if msg is None else msg + term
        return msg, list(below), log_scale
    states, subsets = "abcdefghijklmnopqrstuvwxyz", "HIJKLMOPQRSTVWXYZ"  # not G, N, U
    spec = ["GU" + states[: len(down)]]
    operands = [table]
    out_subsets = ""
    members: list = []
    for i, (t, m, _) in enumerate(down):
        spec.append("GN" + subsets[i] + states[i])
        operands.append(t)
        out_subsets += subsets[i]
        members += m
    log_scale = None
    if any(ls is not None for _, _, ls in down):
        log_scale = np.zeros((n, 1))
        for t, _, ls in down:
            ls = np.zeros((n, t.shape[2])) if ls is None else ls
            log_scale = (log_scale[:, :, None] + ls[:, None, :]).reshape(n, -1)
    expression = ",".join(spec) + "->GN" + out_subsets + "U"
    msg = np.einsum(expression, *operands, optimize=True)
    return msg.reshape(K, n, -1, msg.shape[-1]), members, log_scale


# ---------------------------------------------------------------------- values
def game_values(log_joint: np.ndarray, target: np.ndarray, output: str) -> np.ndarray:
    """The prediction of state ``target[r]`` on the ``output`` scale from ``log P(c, x_S)``
    ``(n, ..., states)``: ``(n, ...)``.

    >>> lj = np.log(np.array([[[0.1, 0.3]]]))
    >>> game_values(lj, np.array([1]), "proba").round(2).tolist(), \\
    ...     game_values(lj, np.array([1]), "log_odds").round(4).tolist()
    ([[0.75]], [[1.0986]])
    """
    t = np.asarray(target).reshape((-1,) + (1,) * (log_joint.ndim - 1))
    mine = np.take_along_axis(log_joint, t, axis=-1)[..., 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        if output == "log_odds":
            k = log_joint.shape[-1]
            others = (log_joint.sum(axis=-1) - mine) / (k - 1)
            return mine - others
        if log_joint.shape[-1] == 2:  # two states: one logaddexp, no reduction
            log_p = mine - np.logaddexp(log_joint[..., 0], log_joint[..., 1])
        else:
            log_p = mine - logsumexp(log_joint, axis=-1)
        return np.exp(log_p) if output == "proba" else log_p


def _check_finite(values: np.ndarray, output: str, what: str) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        r = int(np.argwhere(bad)[0][0])
        raise TreelearnError(
            f"row {r}: {what} has probability zero for the explained state (or for another "
            f"state) given some features, so its {output} is infinite. The cause is a "
            f"probability of exactly 0 in the model: a CPT entry never seen in training "
            f"under alpha = 0 (learn with alpha > 0), or a Gaussian density that underflows "
            f"(a value many standard deviations from a class's mean, its variance learned "
            f"from few rows: learn with var_prior > 0, or a larger one); or use "
            f"output='proba'"
        )


# ---------------------------------------------------------------------- the driver
def explain_game(
    game: Game,
    *,
    kind: str,
    conditional: bool,
    output: str,
    target: int | np.ndarray | None,
    method: str,
    n_permutations: int,
    random_state: Any,
    data: pd.DataFrame,
    index: pd.Index,
    what: str = "the model",
    target_name: Hashable = "target",
) -> Explanation:
    """Explain ``game``'s prediction for each of its rows (see the module docstring).

    ``target``: the state index explained (one for every row, or one per row; ``None``:
    the most probable state given every feature). ``data`` and ``index`` label the result, ``target_name`` its
    ``target`` Series (the target variable).
    """
    n, p = game.n, len(game.players)
    if len(game.states) < 2:
        raise TreelearnError(
            f"the target has {len(game.states)} state(s): there is nothing to explain"
        )
    if not conditional and game.n_background == 0:
        raise TreelearnError(
            "conditional=False takes the unknown features from a background "
            "sample: pass background= rows (e.g. 100 training rows)"
        )
    everyone = np.ones((1, p), dtype=bool)
    nobody = np.zeros((1, p), dtype=bool)
    full = _values_batched(game, everyone, conditional, None, "log_proba", joint=True)[:, 0]
    t = np.argmax(full, axis=1) if target is None else np.broadcast_to(np.asarray(target), (n,))
    t = np.asarray(t, dtype=np.intp)
    v_all = _values_batched(game, everyone, conditional, t, output)[:, 0]
    v_none = _values_batched(game, nobody, conditional, t, output)[:, 0]
    _check_finite(np.stack([v_all, v_none]).T, output, what)
    se = None
    if kind == "log_odds":
        values = _chain_rule(game, t, output)
        how = "chain rule"
    else:
        values, se, how = _shapley(
            game, conditional, t, output, method, n_permutations, random_state, p
        )
    _check_finite(values, output, what)
    labels = np.empty(len(game.states), dtype=object)
    labels[:] = game.states
    columns = pd.Index(game.players, tupleize_cols=False)
    return Explanation(
        values=pd.DataFrame(values, index=index, columns=columns),
        base=pd.Series(v_none, index=index, name="base"),
        prediction=pd.Series(v_all, index=index, name="prediction"),
        target=pd.Series(labels[t], index=index, name=target_name),
        data=data,
        kind=kind,
        output=output,
        conditional=conditional,
        method=how,
        standard_error=None if se is None else pd.DataFrame(se, index=index, columns=columns),
        states=tuple(labels.tolist()),
    )


def _row_slices(n: int, per_row: int) -> list:
    step = max(1, _CELLS // max(per_row, 1))
    return [slice(a, min(a + step, n)) for a in range(0, n, step)]


def _values_batched(
    game: Game,
    keep: np.ndarray,
    conditional: bool,
    t: np.ndarray | None,
    output: str,
    joint: bool = False,
) -> np.ndarray:
    """``v`` ``(n, coalitions)`` of the coalitions ``keep`` (``joint``: the posterior
    ``log P(c | x_S)`` ``(n, coalitions, states)`` instead), in batches."""
    n, m = game.n, len(keep)
    nb = 1 if conditional else game.n_background
    cost = game.width() * nb
    out = None
    step_m = max(1, _CELLS // max(cost, 1))
    for a in range(0, m, step_m):
        part = keep[a : a + step_m]
        for rows in _row_slices(n, cost * len(part)):
            if conditional:
                lj = game.log_joint(part, rows)
                if joint:
                    with np.errstate(invalid="ignore"):
                        value = lj - logsumexp(lj, axis=-1, keepdims=True)
                else:
                    assert t is not None  # the values of the target's states
                    value = game_values(lj, t[rows], output)
            else:
                lj = game.hybrid_log_joint(part, rows)  # (rows, m, nb, k)
                if joint:
                    with np.errstate(invalid="ignore"):
                        value = np.exp(lj - logsumexp(lj, axis=-1, keepdims=True)).mean(axis=2)
                        value = np.log(value)
                else:
                    assert t is not None  # the values of the target's states
                    value = game_values(lj, t[rows], output).mean(axis=2)
            if out is None:
                out = np.empty((n, m) + value.shape[2:])
            out[rows, a : a + len(part)] = value
    assert out is not None  # keep holds a coalition, and the game a row (explain refuses none)
    return out


def _chain_rule(game: Game, t: np.ndarray, output: str) -> np.ndarray:
    p = len(game.players)
    order = np.asarray(game.order, dtype=np.intp)
    prefix = np.zeros((p + 1, p), dtype=bool)
    for i in range(p):
        prefix[i + 1 :, order[i]] = True
    v = _values_batched(game, prefix, True, t, output)
    _check_finite(v, output, "the model")
    values = np.empty((game.n, p))
    values[:, order] = np.diff(v, axis=1)
    return values


def _shapley(
    game: Game,
    conditional: bool,
    t: np.ndarray,
    output: str,
    method: str,
    n_permutations: int,
    random_state: Any,
    p: int,
) -> tuple:
    """``(values, standard errors or None, method)`` of the Shapley values."""
    rng = np.random.default_rng(random_state)
    # players missing in every row are null players of the conditional game: 0, and the
    # enumeration runs over the others only (a few known features of many stay exact)
    known = (
        list(range(p))
        if not conditional
        else [int(j) for j in np.flatnonzero(~game.unknown_everywhere())]
    )
    is_known = set(known)
    groups = [g for g in ([j for j in group if j in is_known] for group in game.groups or []) if g]
    if conditional and output == "log_odds" and len(groups) > 1:
        values = np.zeros((game.n, p))
        se = None
        sampled = False
        for group in groups:
            part, part_se = _shapley_players(
                game, group, True, t, output, method, n_permutations, rng
            )
            values[:, group] = part
            if part_se is not None:
                sampled = True
                se = np.zeros((game.n, p)) if se is None else se
                se[:, group] = part_se
        how = (
            "exact per independent group"
            if not sampled
            else "exact per independent group, permutation sampling in the larger groups"
        )
        return values, se, how
    part, part_se = _shapley_players(
        game, known, conditional, t, output, method, n_permutations, rng
    )
    values = np.zeros((game.n, p))
    values[:, known] = part
    se = None
    if part_se is not None:
        se = np.zeros((game.n, p))
        se[:, known] = part_se
    return values, se, "exact" if se is None else "permutation sampling"


def _shapley_players(
    game: Game,
    players: list,
    conditional: bool,
    t: np.ndarray,
    output: str,
    method: str,
    n_permutations: int,
    rng: np.random.Generator,
) -> tuple:
    """Shapley values of the game restricted to ``players`` (the others unknown)."""
    q = len(players)
    fast = conditional and game.enumerates_all()
    limit = MAX_EXACT if fast else AUTO_EXACT
    if not conditional:
        # coalitions x background rows per row: keep the enumeration under 2^20 of them
        limit = min(limit, max(1, int(np.log2(max(1, 2**20 // max(game.n_background, 1))))))
    if method == "exact" and q > MAX_EXACT:
        raise TreelearnError(
            f"exact Shapley values of {q} features enumerate 2^{q} = {2**q:,} coalitions per "
            f"row, more than 2^{MAX_EXACT}: use method='sampling' (or method='auto'), or "
            f"explain fewer features"
        )
    if method == "exact" and not conditional and 2**q * game.n_background > MAX_HYBRID:
        raise TreelearnError(
            f"exact interventional Shapley values of {q} features with {game.n_background:,} "
            f"background rows evaluate 2^{q} x {game.n_background:,} = "
            f"{2**q * game.n_background:,} hybrid rows per row explained, more than "
            f"{MAX_HYBRID:,}: pass fewer background rows (e.g. background.sample(100)), "
            f"method='sampling', or explain fewer features"
        )
    if method == "sampling" or (method == "auto" and q > limit):
        return _sampled(game, players, conditional, t, output, n_permutations, rng)
    if q == 0:
        return np.zeros((game.n, 0)), None
    C = shapley_matrix(q)
    values = np.zeros((game.n, q))
    if fast:
        k = max(len(game.states), 1)
        for rows in _row_slices(game.n, 2**q * k * 4):
            coalitions = game.all_coalitions(players, rows)
            assert coalitions is not None  # a game that enumerates_all() has every table
            lj, order = coalitions
            v = game_values(lj, t[rows], output)
            _check_finite(v, output, "the model")
            values[rows, np.asarray(order, dtype=np.intp)] = v @ C
        return values, None
    keep = np.zeros((2**q, len(game.players)), dtype=bool)
    keep[:, players] = coalition_masks(q)
    v = _values_batched(game, keep, conditional, t, output)
    _check_finite(v, output, "the model")
    return v @ C, None


def _sampled(
    game: Game,
    players: list,
    conditional: bool,
    t: np.ndarray,
    output: str,
    n_permutations: int,
    rng: np.random.Generator,
) -> tuple:
    """Permutation sampling in antithetic pairs: each permutation's marginal contributions
    telescope to ``v(all) - v(none)``; the estimate is their mean over the pairs, the
    standard error their standard deviation over the pairs / sqrt(pairs)."""
    q, p, n = len(players), len(game.players), game.n
    pairs = n_permutations // 2
    cols = np.asarray(players, dtype=np.intp)
    total = np.zeros((n, q))
    total_sq = np.zeros((n, q))
    batch = max(1, _CELLS // (2 * n * (q + 1)))  # pairs per batch: (n, 2 batch, q + 1) values
    done = 0
    while done < pairs:
        b = min(batch, pairs - done)
        perms = np.stack([rng.permutation(q) for _ in range(b)])
        perms = np.concatenate([perms, perms[:, ::-1]])  # the antithetic partners
        keep = np.zeros((2 * b, q + 1, p), dtype=bool)
        for i in range(q):  # prefix i + 1 of each permutation holds its first i + 1 players
            keep[np.arange(2 * b), i + 1 :, cols[perms[:, i]]] = True
        v = _values_batched(game, keep.reshape(-1, p), conditional, t, output)
        v = v.reshape(n, 2 * b, q + 1)
        _check_finite(v, output, "the model")
        step = np.diff(v, axis=2)  # (n, 2b, q): the contribution of the i-th player drawn
        inverse = np.argsort(perms, axis=1)
        contrib = np.take_along_axis(step, np.broadcast_to(inverse[None], step.shape), axis=2)
        draw = 0.5 * (contrib[:, :b] + contrib[:, b:])  # (n, b, q): one draw per pair
        total += draw.sum(axis=1)
        total_sq += (draw**2).sum(axis=1)
        done += b
    mean = total / pairs
    var = np.maximum(total_sq / pairs - mean**2, 0.0) * pairs / max(pairs - 1, 1)
    return mean, np.sqrt(var / pairs)
