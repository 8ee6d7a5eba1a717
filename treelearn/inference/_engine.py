"""Exact inference on tree-shaped models by two-pass message passing.

One engine, :class:`TreeEngine`, for every model treelearn makes: Chow-Liu
trees and forests, naive Bayes and TAN (whose class is a parent of every
feature), and polytrees from :func:`treelearn.fit_cpts`. Each CPT is a factor
over its family; the engine needs the factor graph to be a forest, possibly
after one node (the *conditioner*, e.g. a classifier's class) is taken out.
The conditioner's states then become a batch axis: every message has the shape
``(conditioner states, rows, states)`` and the rows are many evidence rows at
once (no Python loop over rows). Messages are rescaled per (conditioner state,
row) with their logs carried apart, so long chains and many observed variables
do not underflow.

* sum-product: evidence probabilities, posteriors, all marginals in one sweep;
* max-product with back-pointers: the most probable assignment (MAP);
* sampling given evidence: collect to the roots, then sample down the tree.

Which node is the conditioner is decided by one rule,
:func:`~treelearn.inference._conditioner.choose_conditioner`. A DAG that is no such
forest (a node with parents that are linked elsewhere, as in the bundled ALARM
network) is answered by every method all the same, by the variable elimination of
:class:`~treelearn.inference._elimination.Eliminator` (many rows per elimination,
their evidence as factors); :attr:`TreeEngine.path` says which runs.

A single query ``P(Q | E)`` touches only the smallest subtree joining ``Q`` and
``E``: the messages from evidence-free parts are the same for every query and
are computed once (an unconditioned two-pass sweep, kept by the engine). On a
tree or forest of one-parent CPTs (Chow-Liu), a query of one variable goes
further: the tree is rerooted at it (each edge carries both conditionals, from
the no-evidence marginals), so only the observed variables and the branch points
between them and the query count, one cached path conditional ``P(x | a)``
between each two of them.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._base.errors import ColumnNotFoundError, TreelearnError, UnseenStateError
from ..encoding._bins import bin_code, bins_of
from ._conditioner import choose_conditioner
from ._elimination import Eliminator, cumulative, draw
from ._levels import LevelPlan
from ._marginals import Marginals

__all__ = ["TreeEngine", "decode_codes", "is_likelihood", "likelihood", "state_index"]

#: how far an evidence-free message may be from all ones and still be skipped
_ONES_TOLERANCE = 1e-14
#: below this a product of messages is recomputed with rescaling
_UNDERFLOW = 1e-250
_LOG_UNDERFLOW = np.log(_UNDERFLOW)
#: at most this many path conditionals P(x | a) are kept per model (then started afresh)
_PAIRS_KEPT = 100_000
#: at most this many entries of the ways down to the queried variables are kept per model
_TOWARD_KEPT = 1_000_000
#: message entries (rows x states, all variables) per chunk of :meth:`TreeEngine.family_counts_codes`
_COUNT_CELLS = 2**22


def state_index(states: Sequence, variable: Hashable, state: Any) -> int:
    """Position of ``state`` among a variable's ``states`` (text matches a non-text label,
    also as a CSV reader spells it: ``TRUE``/``true`` a bool, ``1.0`` the number 1).

    A variable whose states are bins (``"(-inf, 4.8]"``, ...) takes a raw number or
    date, or its text, as the bin holding it.

    >>> state_index([False, True], "a", True), state_index([1, 2], "b", "2")
    (1, 1)
    >>> state_index([False, True], "a", "TRUE"), state_index([1, 2], "b", "2.0")
    (1, 1)
    >>> state_index(["(-inf, 4.8]", "(4.8, inf)"], "x", 5.1), state_index(["(-inf, 4.8]", "(4.8, inf)"], "x", "4.8")
    (1, 0)
    """
    for i, s in enumerate(states):
        if s == state and isinstance(s, bool) == isinstance(state, (bool, np.bool_)):
            return i
    if isinstance(state, str):  # labels typed as text (command line) for non-text states
        matches = [i for i, s in enumerate(states) if str(s) == state]
        if len(matches) == 1:
            return matches[0]
        matches = _spelled(states, state.strip())
        if len(matches) == 1:
            return matches[0]
    bins = bins_of(states)
    if bins is not None:  # a cut variable: a raw number or date (or its text) is binned
        code = bin_code(bins, state)
        if code is not None:
            return code
    raise UnseenStateError(
        variable,
        [state],
        list(states),
        noun="variable",
        hint=f"{state!r} is not a state of {variable!r}: give one of them.",
    )


def _spelled(states: Sequence, text: str) -> list[int]:
    """The bool states ``text`` spells in any case, or else the numbers it equals
    (pandas reads ``TRUE`` as a bool and ``1.0`` as a number)."""
    bools = [
        i
        for i, s in enumerate(states)
        if isinstance(s, (bool, np.bool_)) and str(bool(s)).lower() == text.lower()
    ]
    if bools:
        return bools
    try:
        number = float(text)
    except ValueError:
        return []
    return [
        i
        for i, s in enumerate(states)
        if isinstance(s, (int, float, np.integer, np.floating))
        and not isinstance(s, (bool, np.bool_))
        and s == number
    ]


def _state_dict(states: Sequence) -> dict:
    """``{label: first position}`` of the hashable labels (the rest go to :func:`state_index`)."""
    out: dict = {}
    for i, t in enumerate(states):
        with contextlib.suppress(TypeError):
            out.setdefault(t, i)
    return out


class _Factor:
    """A CPT over its family with the conditioner's axis first: ``table[g, scope...]``."""

    __slots__ = ("child", "down", "id", "pos", "scope", "table", "toward", "up")

    def __init__(self, scope: tuple, table: np.ndarray, child: int) -> None:
        self.scope = scope  # variable indices (the conditioner left out)
        self.table = table  # (k_g or 1, k_scope0, ..., k_scopem)
        self.child = child  # the variable whose CPT this is (-1: the conditioner's)
        self.up = -1  # the scope variable toward the root of its tree
        self.down: list = []  # the other scope variables
        self.pos = -1  # position of ``up`` in ``scope``
        self.toward: list = []  # pairwise factors: (k_g, k_other, k_j) matrices, j = 0, 1
        self.id = -1


class TreeEngine:
    """Exact inference for one model: message passing on its tree, or variable elimination.

    Parameters
    ----------
    variables : the variables, in the model's order (codes' columns follow it).
    parents : ``{variable: [parents in CPT axis order]}``.
    cpts : ``{variable: CPT indexed [parent states..., own state]}``.
    states : ``{variable: [state labels]}``.
    conditioner : the node whose states are the batch axis (a classifier's class:
        :meth:`log_evidence_by_conditioner` has one column per state of it); by
        default the one :func:`~treelearn.inference._conditioner.choose_conditioner`
        finds (none for a polytree).

    Attributes
    ----------
    path : ``"message passing"``, ``"message passing given <node>"`` or
        ``"variable elimination"`` (the DAG is no forest even without one node, or
        not without the ``conditioner`` asked for).
    conditioner : the conditioner (``None``: none).

    Examples
    --------
    >>> import numpy as np
    >>> e = TreeEngine(["a", "b"], {"a": [], "b": ["a"]},
    ...                {"a": np.array([0.2, 0.8]), "b": np.array([[0.9, 0.1], [0.3, 0.7]])},
    ...                {"a": ["x", "y"], "b": ["u", "v"]})
    >>> e.path
    'message passing'
    >>> e.query(["a"], {"b": "v"}).round(4).tolist()   # 0.2 * 0.1 / (0.2 * 0.1 + 0.8 * 0.7)
    [0.0345, 0.9655]
    """

    def __init__(
        self,
        variables: Sequence[Hashable],
        parents: Mapping[Hashable, Sequence[Hashable]],
        cpts: Mapping[Hashable, np.ndarray],
        states: Mapping[Hashable, Sequence],
        conditioner: Hashable | None = None,
    ) -> None:
        self.variables = list(variables)
        self.index = {v: i for i, v in enumerate(self.variables)}
        self.states = {v: list(states[v]) for v in self.variables}
        self.parents = {v: list(parents[v]) for v in self.variables}
        self.cpts = {v: np.asarray(cpts[v], dtype=float) for v in self.variables}
        self.card = [len(self.states[v]) for v in self.variables]
        self._prior: dict | None = None  # the unconditioned sweep, on first query
        self._marginals0: list | None = None
        self._sampler: list | None = None
        self._level_plan: LevelPlan | Literal[False] | None = None  # False: the model has none
        self._eyes: dict = {}
        self._labels: dict = {}
        self._codes = {v: _state_dict(self.states[v]) for v in self.variables}
        self._pairs: bool | None = None  # a forest of one-parent CPTs? (on first query)
        self._marg: list = []  # prior marginals, each on first use
        self._reversed: dict = {}  # child -> P(parent | child), on first use
        self._towards: dict = {}  # queried variable -> {its ancestor: the child toward it}
        self._toward_size = 0
        self._up: list = []  # each variable's neighbour toward the root of its tree (-1: a root)
        self._between: dict = {}  # (a, x) -> P(x | a) along the tree, and its transpose
        self.is_tree, g = choose_conditioner(self.parents, conditioner)
        self.conditioner = g
        self.gi = -1 if g is None else self.index[g]
        self.kg = 1 if g is None else self.card[self.gi]
        if not self.is_tree:
            self.path = "variable elimination"
            self._general = Eliminator(
                [[self.index[u] for u in [*self.parents[v], v]] for v in self.variables],
                [self.cpts[v] for v in self.variables],
                self.card,
            )
            return
        self.path = "message passing" + ("" if g is None else f" given {g!r}")
        self._compile()

    # ------------------------------------------------------------------ structure
    def _compile(self) -> None:
        g, gi = self.conditioner, self.gi
        d = len(self.variables)
        self.local = [np.ones((1, 1, k)) for k in self.card]  # unary factors (k_g|1, 1, k)
        self.gweight = np.ones(self.kg)
        self.factors: list[_Factor] = []
        for v in self.variables:
            ps, cpt = self.parents[v], self.cpts[v]
            table = np.moveaxis(cpt, ps.index(g), 0) if g is not None and g in ps else cpt[None]
            scope = tuple(self.index[u] for u in [*ps, v] if u != g)
            if v == g:  # the conditioner's own CPT: its axis moved first, a factor over its parents
                table = np.moveaxis(cpt, -1, 0)
                if not scope:
                    self.gweight = table.astype(float).copy()
                    continue
            child = -1 if v == g else self.index[v]
            if len(scope) == 1:
                s = scope[0]
                self.local[s] = self.local[s] * table[:, None, :]
            else:
                self.factors.append(_Factor(scope, table, child))
        # root every tree of the forest at a DAG root (then evidence-free subtrees below
        # a parent send messages of ones), walk it breadth first
        var_factors: list[list] = [[] for _ in range(d)]
        for i, f in enumerate(self.factors):
            f.id = i
            for s in f.scope:
                var_factors[s].append(f)
        self.up_factor: list = [None] * d
        self.children: list[list] = [[] for _ in range(d)]
        self.depth = [0] * d
        self.component = [-1] * d
        self.roots: list[int] = []
        self.order: list[_Factor] = []  # breadth first: parents' factors before children's
        has_parent = [any(u != g for u in self.parents[v]) for v in self.variables]
        starts = [i for i in range(d) if not has_parent[i] and i != gi] + list(range(d))
        for r in starts:
            if r == gi or self.component[r] >= 0:
                continue
            self.component[r] = len(self.roots)
            self.roots.append(r)
            queue = [r]
            while queue:
                w = queue.pop(0)
                for f in var_factors[w]:
                    if f.up >= 0:
                        continue
                    f.up, f.pos = w, f.scope.index(w)
                    f.down = [s for s in f.scope if s != w]
                    self.children[w].append(f)
                    self.order.append(f)
                    for x in f.down:
                        self.up_factor[x] = f
                        self.depth[x] = self.depth[w] + 1
                        self.component[x] = self.component[r]
                        queue.append(x)
        for f in self.factors:
            if len(f.scope) == 2:
                t = f.table  # (k_g|1, k0, k1): toward 1 from 0, and toward 0 from 1
                f.toward = [np.ascontiguousarray(np.swapaxes(t, 1, 2)), np.ascontiguousarray(t)]

    # ------------------------------------------------------------------ messages
    def _message(self, f: _Factor, j: int, ins: list, maxprod: bool = False) -> tuple:
        """Sum (or max) of the factor times ``ins`` (one per scope position but ``j``) onto
        scope position ``j``; returns ``(message (k_g, n, k_j), argmax or None)``."""
        if len(f.scope) == 2 and not maxprod:
            return ins[1 - j] @ f.toward[j], None
        m = len(f.scope)
        prod = f.table[:, None]
        for i, x in enumerate(ins):
            if i != j:
                shape = x.shape[:2] + (1,) * i + (x.shape[2],) + (1,) * (m - 1 - i)
                prod = prod * x.reshape(shape)
        prod = np.moveaxis(prod, 2 + j, -1)
        flat = prod.reshape(prod.shape[0], prod.shape[1], -1, prod.shape[-1])
        if not maxprod:
            return flat.sum(axis=2), None
        arg = flat.argmax(axis=2)
        return np.take_along_axis(flat, arg[:, :, None, :], axis=2)[:, :, 0, :], arg

    @staticmethod
    def _rescale(msg: np.ndarray, log_scale: np.ndarray) -> tuple:
        top = msg.max(axis=2)
        ok = top > 0
        if ok.all():
            return msg / top[:, :, None], log_scale + np.log(top)
        safe = np.where(ok, top, 1.0)
        with np.errstate(divide="ignore"):
            return msg / safe[:, :, None], log_scale + np.where(ok, np.log(safe), -np.inf)

    def _collect(
        self,
        order: Sequence[_Factor],
        ev: Mapping[int, np.ndarray],
        base: Any,
        outside: Mapping[int, np.ndarray] | None = None,
        maxprod: bool = False,
        rescale: bool = True,
    ) -> tuple:
        """Messages up the trees along ``order`` (children's factors first).

        ``base(x)`` is what variable ``x`` holds before its children's messages
        (unary factors); ``outside[x]`` is the message of a scope variable not on
        the way (a query's evidence-free part). Returns ``(acc, up, log_scale,
        back)``: what each variable holds with its children's messages, each
        factor's message to its ``up`` variable, the carried log scale ``(k_g, n)``
        and the max-product back-pointers.
        """
        acc: dict = {}
        up: dict = {}
        back: dict = {}
        log_scale = np.zeros((self.kg, 1))

        def held(x: int) -> np.ndarray:
            if x in acc:
                return acc[x]
            if outside is not None and x in outside:
                return outside[x]
            value = base(x)
            if x in ev:
                value = value * ev[x]
            acc[x] = value
            return value

        for f in order:
            ins = [None if s == f.up else held(s) for s in f.scope]
            msg, arg = self._message(f, f.pos, ins, maxprod)
            if rescale:
                msg, log_scale = self._rescale(msg, log_scale)
            up[f.id] = msg
            if arg is not None:
                back[f.id] = arg
            acc[f.up] = held(f.up) * msg
        return acc, up, log_scale, back, held

    def _distribute(
        self,
        acc: dict,
        up: dict,
        ev: Mapping[int, np.ndarray],
        rescale: bool = True,
        only: set | None = None,
        keep_outside: dict | None = None,
    ) -> dict:
        """Messages down the trees: ``down[x]``, the message into ``x`` from its up factor
        (normalised per (conditioner state, row) when ``rescale``). With ``only``,
        just the factors in that set (the way to a few variables). With ``keep_outside``
        (a dict), it receives per factor id what the factor's up variable holds from
        everything outside the factor (the message into the factor)."""
        down: dict = {}
        outside_of: dict = {}  # factor id -> what its up variable holds without it
        for f in self.order:
            if only is not None and f.id not in only:
                continue
            u = f.up
            if f.id not in outside_of:
                held_u = self.local[u] if u not in ev else self.local[u] * ev[u]
                if u in down:
                    held_u = held_u * down[u]
                kids = self.children[u] if only is None else [f]
                # everything but one child's message: prefix and suffix products, O(children)
                msgs = [up[h.id] for h in self.children[u]]
                if only is None:
                    before = [held_u]
                    for m in msgs[:-1]:
                        before.append(before[-1] * m)
                    after = None
                    for h, b in zip(reversed(kids), reversed(before)):
                        outside_of[h.id] = b if after is None else b * after
                        after = up[h.id] if after is None else after * up[h.id]
                else:
                    for h in self.children[u]:
                        if h is not f:
                            held_u = held_u * up[h.id]
                    outside_of[f.id] = held_u
            outside = outside_of.pop(f.id)
            if keep_outside is not None:
                keep_outside[f.id] = outside
            for x in f.down:
                ins = [outside if s == u else (None if s == x else acc[s]) for s in f.scope]
                msg, _ = self._message(f, f.scope.index(x), ins)
                if rescale:
                    top = msg.max(axis=2, keepdims=True)
                    msg = msg / np.where(top > 0, top, 1.0)
                down[x] = msg
        return down

    def _evidence_arrays(
        self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None
    ) -> tuple:
        """One-hot evidence ``(1, n, k)`` per variable observed in some row (-1 = missing),
        times the likelihood of each variable in ``soft``: one vector ``(k,)`` for every row,
        or one per row ``(n, k)`` (e.g. a CLG tree's continuous children's densities)."""
        ev: dict[int, np.ndarray] = {}
        columns = np.ascontiguousarray(codes.T, dtype=np.intp)  # a take per column, contiguous
        observed = (columns >= 0).any(axis=1)
        for j in np.flatnonzero(observed).tolist():
            k = self.card[j]
            # -1 picks the last row: the ones of a missing value
            ev[j] = np.vstack([np.eye(k), np.ones(k)]).take(columns[j], axis=0)[None]
        for j, likelihood in (soft or {}).items():
            likelihood = np.asarray(likelihood)
            likelihood = likelihood.reshape((1,) * (3 - likelihood.ndim) + likelihood.shape)
            ev[j] = likelihood * ev[j] if j in ev else likelihood
        gev = None
        if self.gi >= 0 and self.gi in ev:
            gev = ev.pop(self.gi)[0].T  # (k_g, n)
        return ev, gev

    def _log_totals(
        self, acc: dict, log_scale: np.ndarray, held: Any, gev: Any, maxprod: bool = False
    ) -> np.ndarray:
        """``log P(evidence, g)`` as ``(k_g, n)`` from a full collect."""
        total = log_scale
        with np.errstate(divide="ignore"):
            for r in self.roots:
                held_r = held(r)
                z = held_r.max(axis=2) if maxprod else held_r.sum(axis=2)
                total = total + np.log(z)
            weight = self.gweight[:, None] if gev is None else self.gweight[:, None] * gev
            return total + np.log(weight)

    # ------------------------------------------------------------------ codes in, arrays out
    def log_evidence_by_conditioner(
        self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None
    ) -> np.ndarray:
        """``log P(observed values of row r, conditioner = g)``, shape ``(n, k_g)``
        (one column without a conditioner); ``codes`` as :meth:`TreeModel.encode` gives
        them (``-1`` = missing, summed out); ``soft``: likelihoods as
        :meth:`_evidence_arrays` takes them (values in [0, 1]; a forest's engine only).

        >>> import numpy as np
        >>> e = TreeEngine(["a", "b"], {"a": [], "b": ["a"]},
        ...                {"a": np.array([0.2, 0.8]), "b": np.array([[0.9, 0.1], [0.3, 0.7]])},
        ...                {"a": [0, 1], "b": [0, 1]})
        >>> np.exp(e.log_evidence_by_conditioner(np.array([[0, 1], [-1, 1]]))).round(2).tolist()
        [[0.02], [0.58]]
        """
        codes = np.asarray(codes, dtype=np.int64)
        if not self.is_tree:
            if any(np.ndim(lik) != 1 for lik in (soft or {}).values()):
                raise TreelearnError(
                    "per-row likelihoods (soft=) in log_evidence need a tree "
                    "or forest; this network is answered by variable "
                    "elimination"
                )
            # one likelihood vector per variable: a unary factor of the elimination
            return self._general.log_evidence(codes, None if self.gi < 0 else self.gi, soft)
        # messages only shrink (each is an average of values <= 1): without rescaling, then
        # the rows near underflow (or impossible) again with it
        out = self._log_evidence_pass(codes, rescale=False, soft=soft)
        with np.errstate(invalid="ignore"):
            again = (out < _LOG_UNDERFLOW).any(axis=1)
        if again.any():
            rows = {
                j: (lik[again] if np.ndim(lik) == 2 else lik) for j, lik in (soft or {}).items()
            }
            out[again] = self._log_evidence_pass(codes[again], rescale=True, soft=rows)
        return out

    def _log_evidence_pass(
        self, codes: np.ndarray, rescale: bool, soft: Mapping[int, np.ndarray] | None = None
    ) -> np.ndarray:
        ev, gev = self._evidence_arrays(codes, soft)
        acc, _, log_scale, _, held = self._collect(
            self.order[::-1], ev, self.local.__getitem__, rescale=rescale
        )
        out = self._log_totals(acc, log_scale, held, gev)
        return np.broadcast_to(out, (self.kg, codes.shape[0])).T.copy()

    def log_evidence(
        self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None
    ) -> np.ndarray:
        """``log P(observed values of each row)`` (missing values summed out; times the
        ``soft`` likelihoods, as :meth:`log_evidence_by_conditioner` takes them)."""
        if not self.is_tree and not soft:
            return self._general.log_evidence(np.asarray(codes, dtype=np.int64))[:, 0]
        by = self.log_evidence_by_conditioner(codes, soft)
        return np.logaddexp.reduce(by, axis=1) if by.shape[1] > 1 else by[:, 0]

    def posterior_codes(self, codes: np.ndarray, target: int) -> np.ndarray:
        """``P(target | the row's other observed values)``, shape ``(n, k_target)``; the
        row's own value of the target is ignored. Rows of probability zero are NaN."""
        blanket = self._blanket_posterior(codes, target)
        if blanket is not None:
            return blanket
        codes = np.array(codes, dtype=np.int64)
        codes[:, target] = -1
        n = codes.shape[0]
        if not self.is_tree:
            return self._general.posterior(codes, target)
        ev, gev = self._evidence_arrays(codes)
        acc, up, log_scale, _, held = self._collect(self.order[::-1], ev, self.local.__getitem__)
        log_g = self._log_totals(acc, log_scale, held, gev)  # (k_g, n)
        if target == self.gi:
            return _normalise_log(np.broadcast_to(log_g, (self.kg, n)).T)
        way = set()
        f = self.up_factor[target]
        while f is not None:
            way.add(f.id)
            f = self.up_factor[f.up]
        down = self._distribute(acc, up, ev, only=way)
        belief = held(target) * down[target] if target in down else held(target)
        return self._combine(belief, log_g, n)

    def _blanket_plan(self, target: int) -> tuple | None:
        """What :meth:`_blanket_posterior` needs of ``target``, built once per target:
        ``(parent column or -1, log P(t | parent), [(child column, log P(c | t).T)],
        [(column, parent column or -1, zero mask)] of the other families with a zero
        entry)``; ``None`` for a model that is no forest of one-parent CPTs."""
        plans = self.__dict__.setdefault("_blanket_plans", {})
        if target in plans:
            return plans[target]
        plan = None
        if self.kg == 1 and self.is_tree and all(len(p) <= 1 for p in self.parents.values()):
            v = self.variables[target]
            col, cpt = self.index, self.cpts
            with np.errstate(divide="ignore"):
                own = np.log(cpt[v])
                kids = [
                    (col[c], np.ascontiguousarray(np.log(cpt[c]).T))
                    for c in self.variables
                    if self.parents[c] == [v]
                ]
            parent = col[self.parents[v][0]] if self.parents[v] else -1
            zeros = [
                (col[u], col[self.parents[u][0]] if self.parents[u] else -1, cpt[u] == 0)
                for u in self.variables
                if u != v and self.parents[u] != [v] and (cpt[u] == 0).any()
            ]
            plan = (parent, own, kids, zeros)
        plans[target] = plan
        return plan

    def _blanket_posterior(self, codes: np.ndarray, target: int) -> np.ndarray | None:
        """``posterior_codes`` when every row observes every other variable of a forest of
        one-parent CPTs: ``P(t | parent) prod_children P(c | t)`` normalised (the target's
        Markov blanket; the other families are constant in ``t``), NaN where the row has
        probability zero (a zero entry of another family, or of every ``t``). ``None``
        otherwise: the two passes then. The rows are read in place (no copy): the
        target's own column is never looked at."""
        plan = self._blanket_plan(target)
        if plan is None:
            return None
        codes = np.asarray(codes)
        if codes.dtype.kind not in "iu":
            return None
        observed = codes >= 0
        observed[:, target] = True
        if not observed.all():
            return None
        parent, own, kids, zeros = plan
        with np.errstate(invalid="ignore", over="ignore"):
            logit = (
                own[codes[:, parent]]
                if parent >= 0
                else np.broadcast_to(own, (codes.shape[0], own.shape[-1]))
            )
            for c, log_t in kids:
                logit = logit + log_t[codes[:, c]]
            top = logit.max(axis=1, keepdims=True)
            e = np.exp(logit - top)
            out = e / e.sum(axis=1, keepdims=True)
        out[~np.isfinite(top[:, 0])] = np.nan  # every state impossible given the blanket
        for u, p, zero in zeros:  # another family with a zero entry the row meets
            met = zero[codes[:, p], codes[:, u]] if p >= 0 else zero[codes[:, u]]
            out[met] = np.nan
        return out

    def _combine(self, belief: np.ndarray, log_g: np.ndarray, n: int) -> np.ndarray:
        """``sum_g P(g | evidence) P(x | g, evidence)`` from an unnormalised belief ``(k_g, n, k)``."""
        belief = np.broadcast_to(belief, (self.kg, n, belief.shape[2]))
        z = belief.sum(axis=2, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            within = belief / z
            post_g = _normalise_log(np.broadcast_to(log_g, (self.kg, n)).T)  # (n, k_g)
            if self.kg == 1:
                return within[0] * np.where(np.isfinite(post_g), 1.0, np.nan)
            within = np.where(post_g.T[:, :, None] > 0, within, 0.0)
            return np.einsum("ng,gnk->nk", post_g, within)

    def marginals_codes(
        self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None
    ) -> list:
        """Every variable's posterior given each row, ``[(n, k_v) per variable]`` (NaN
        for rows of probability zero; an observed variable gets its one-hot row); ``soft``:
        ``{variable index: likelihood vector}`` for every row."""
        codes = np.asarray(codes, dtype=np.int64)
        if not self.is_tree:
            return self._general.marginals(codes, soft)
        plan = self.level_plan()
        if plan is not None:
            out = plan.marginals(codes, soft)
            if out is not None:  # else a zero message: the per-factor passes below
                return out
        n = codes.shape[0]
        ev, gev = self._evidence_arrays(codes, soft)
        acc, up, log_scale, _, held = self._collect(self.order[::-1], ev, self.local.__getitem__)
        log_g = self._log_totals(acc, log_scale, held, gev)
        down = self._distribute(acc, up, ev)
        out = []
        for i in range(len(self.variables)):
            if i == self.gi:
                out.append(_normalise_log(np.broadcast_to(log_g, (self.kg, n)).T))
                continue
            belief = held(i) * down[i] if i in down else held(i)
            out.append(self._combine(belief, log_g, n))
        return out

    def family_posteriors_codes(
        self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None
    ) -> tuple:
        """Every family's posterior given each row, and each row's log evidence.

        Returns ``(log_evidence, families)``: ``log_evidence[r] = log P(observed cells of
        row r)`` and ``families[i]``, for variable ``i`` with parents ``ps``, an array
        ``(n, k_ps..., k_i)`` of ``P(x_ps, x_i | row r)`` in its CPT's axis order (a root:
        ``(n, k_i)``). One collect and one distribute for all rows at once; each factor's
        posterior is its table times the message into its up variable from everything
        outside it and the collected messages of its other variables. A conditioner's axis
        (TAN's class) is weighted by its posterior. Rows of probability zero get ``-inf``
        and all-zero posteriors. This is the E-step of EM (:mod:`treelearn.learners._em`).

        >>> import numpy as np
        >>> e = TreeEngine(["a", "b"], {"a": [], "b": ["a"]},
        ...                {"a": np.array([0.2, 0.8]), "b": np.array([[0.9, 0.1], [0.3, 0.7]])},
        ...                {"a": [0, 1], "b": [0, 1]})
        >>> log_ev, (fa, fb) = e.family_posteriors_codes(np.array([[-1, 1]]))   # b = 1
        >>> float(np.exp(log_ev[0])), fb[0].round(4).tolist()   # P(b=1); P(a, b | b=1)
        (0.58, [[0.0, 0.0345], [0.0, 0.9655]])
        """
        codes = np.asarray(codes, dtype=np.int64)
        if not self.is_tree:
            return self._general.family_posteriors(codes, soft)
        n = codes.shape[0]
        kg = self.kg
        ev, gev = self._evidence_arrays(codes, soft)
        acc, up, log_scale, _, held = self._collect(self.order[::-1], ev, self.local.__getitem__)
        log_g = np.broadcast_to(self._log_totals(acc, log_scale, held, gev), (kg, n))
        outside: dict = {}
        down = self._distribute(acc, up, ev, keep_outside=outside)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_ev = np.logaddexp.reduce(log_g, axis=0) if kg > 1 else log_g[0].copy()
            possible = np.isfinite(log_ev)
            post_g = np.where(possible, np.exp(log_g - np.where(possible, log_ev, 0.0)), 0.0)

        def joint(belief: np.ndarray) -> np.ndarray:
            """``P(g, scope | row)`` as ``(k_g, n, scope...)`` from an unnormalised belief."""
            belief = np.broadcast_to(belief, (kg, n) + belief.shape[2:])
            z = np.einsum("gnk->gn", belief.reshape(kg, n, -1))  # faster than sum(axis=(2, ...))
            scale = post_g / np.where(z > 0, z, 1.0)  # P(g | row) / the belief's total given g
            return belief * scale.reshape(scale.shape + (1,) * (belief.ndim - 2))

        families: list = [None] * len(self.variables)
        for f in self.factors:
            m = len(f.scope)
            prod = f.table[:, None]
            for i, s in enumerate(f.scope):
                x = outside[f.id] if s == f.up else held(s)
                prod = prod * x.reshape(x.shape[:2] + (1,) * i + (x.shape[2],) + (1,) * (m - 1 - i))
            families[self.gi if f.child < 0 else f.child] = joint(prod)

        def node(x: int) -> np.ndarray:  # a variable's belief: its CPT is a unary factor
            return joint(held(x) * down[x] if x in down else held(x))

        return log_ev, self._in_cpt_axes(families, node, post_g.T.copy(), rows=1)

    def family_counts_codes(
        self, codes: np.ndarray, weights: np.ndarray | None = None, cells: int = _COUNT_CELLS
    ) -> tuple:
        """Every family's expected counts over the rows: ``(log_evidence, counts)``.

        ``counts[i] = sum_r w_r P(x_ps, x_i | row r)`` in variable ``i``'s CPT axis order
        (``w``: ``weights``, default 1 per row) and ``log_evidence[r] = log P(observed cells
        of row r)``: what :meth:`family_posteriors_codes` gives, summed over the rows without
        holding an ``n x family`` array. The rows go in chunks of about ``cells`` message
        entries; a pairwise factor's counts are one product per chunk,
        ``table * (outside^T diag(w / z) inside)`` (``z``: each row's evidence), so the
        cost is that of the messages. Rows of probability zero count for nothing. This is
        the E-step of EM on any structure (:mod:`treelearn.learners._em`,
        :mod:`treelearn.learners._hidden_tree`); other DAGs are summed from the variable
        elimination's family posteriors.

        >>> import numpy as np
        >>> e = TreeEngine(["a", "b"], {"a": [], "b": ["a"]},
        ...                {"a": np.array([0.2, 0.8]), "b": np.array([[0.9, 0.1], [0.3, 0.7]])},
        ...                {"a": [0, 1], "b": [0, 1]})
        >>> log_ev, (na, nab) = e.family_counts_codes(np.array([[-1, 1], [0, 0]]), np.array([2., 1.]))
        >>> na.round(4).tolist(), nab.round(4).tolist()   # 2 P(a | b=1) + [1, 0]
        ([1.069, 1.931], [[1.0, 0.069], [0.0, 1.931]])
        """
        codes = np.asarray(codes, dtype=np.int64)
        n = codes.shape[0]
        w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
        width = max(1, self.kg * sum(self.card))
        step = max(1, int(cells) // width)
        log_ev = np.empty(n)
        total: list | None = None
        for start in range(0, max(n, 1), step):
            part = slice(start, min(start + step, n))
            if self.is_tree:
                log_ev[part], counts = self._family_counts_chunk(codes[part], w[part])
            else:
                log_ev[part], posteriors = self._general.family_posteriors(codes[part])
                counts = [np.tensordot(w[part], p, axes=1) for p in posteriors]
            total = counts if total is None else [a + b for a, b in zip(total, counts)]
        return log_ev, total

    def _family_counts_chunk(self, codes: np.ndarray, w: np.ndarray) -> tuple:
        n, kg = codes.shape[0], self.kg
        ev, gev = self._evidence_arrays(codes)
        acc, up, log_scale, _, held = self._collect(self.order[::-1], ev, self.local.__getitem__)
        log_g = np.broadcast_to(self._log_totals(acc, log_scale, held, gev), (kg, n))
        outside: dict = {}
        down = self._distribute(acc, up, ev, keep_outside=outside)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_ev = np.logaddexp.reduce(log_g, axis=0) if kg > 1 else log_g[0].copy()
            possible = np.isfinite(log_ev)
            post_g = np.where(possible, np.exp(log_g - np.where(possible, log_ev, 0.0)), 0.0)
        row_w = post_g * np.where(possible, w, 0.0)  # (k_g, n): w_r P(g | row r)

        def summed(belief: np.ndarray) -> np.ndarray:
            """``sum_r w_r P(g, scope | row r)`` as ``(k_g, scope...)``."""
            belief = np.broadcast_to(belief, (kg, n) + belief.shape[2:])
            z = np.einsum("gnk->gn", belief.reshape(kg, n, -1))
            scale = row_w / np.where(z > 0, z, 1.0)
            return np.einsum("gn,gn...->g...", scale, belief)

        families: list = [None] * len(self.variables)
        for f in self.factors:
            ins = [outside[f.id] if s == f.up else held(s) for s in f.scope]
            if len(f.scope) == 2:
                a, b = (np.broadcast_to(x, (kg, n, x.shape[2])) for x in ins)
                z = np.einsum("gnb,gnb->gn", a @ f.table, b)  # each row's belief total
                scale = row_w / np.where(z > 0, z, 1.0)
                table = f.table * (np.swapaxes(a, 1, 2) @ (b * scale[:, :, None]))
            else:
                m = len(f.scope)
                prod = f.table[:, None]
                for i, x in enumerate(ins):
                    prod = prod * x.reshape(
                        x.shape[:2] + (1,) * i + (x.shape[2],) + (1,) * (m - 1 - i)
                    )
                table = summed(prod)
            families[self.gi if f.child < 0 else f.child] = table

        def node(x: int) -> np.ndarray:
            return summed(held(x) * down[x] if x in down else held(x))

        return log_ev, self._in_cpt_axes(families, node, row_w.sum(axis=1), rows=0)

    def _in_cpt_axes(
        self, families: list, node: Any, conditioner_alone: np.ndarray, rows: int
    ) -> list:
        """Each variable's family table in its CPT's axis order, from the tables of the
        factors (``families``, the conditioner's axis first) or a variable's belief
        (``node``; a root's CPT is a unary factor): the conditioner's own CPT with its
        axis last (``conditioner_alone`` when it is a root with no factor), the
        conditioner's axis moved to its place among a child's parents, or summed out.
        ``rows``: how many row axes follow the conditioner's (1: per row, 0: summed)."""
        g, kg = self.conditioner, self.kg
        out: list = [None] * len(self.variables)
        for i, v in enumerate(self.variables):
            ps = self.parents[v]
            if i == self.gi:  # the conditioner's own CPT: its axis last
                if families[i] is not None:
                    out[i] = np.moveaxis(families[i], 0, -1)
                else:
                    out[i] = (
                        np.moveaxis(node(self.index[ps[0]]), 0, -1) if ps else conditioner_alone
                    )
                continue
            table = families[i] if families[i] is not None else node(i)
            out[i] = (
                np.moveaxis(table, 0, rows + ps.index(g))
                if g is not None and g in ps
                else table[0]
                if kg == 1
                else table.sum(axis=0)
            )
        return out

    def map_codes(self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None) -> tuple:
        """The most probable completion of each row: ``(codes (n, d), log P(completion))``
        (with ``soft`` likelihoods: of ``P(completion) prod L_v(x_v)``). Observed values
        stay; ties go to the first state."""
        codes = np.asarray(codes, dtype=np.int64)
        if not self.is_tree:
            return self._general.map(codes, soft)
        plan = self.level_plan()
        if plan is not None:
            return plan.map(codes, soft)
        n = codes.shape[0]
        ev, gev = self._evidence_arrays(codes, soft)
        acc, _up, log_scale, back, held = self._collect(
            self.order[::-1], ev, self.local.__getitem__, maxprod=True
        )
        log_g = np.broadcast_to(
            self._log_totals(acc, log_scale, held, gev, maxprod=True), (self.kg, n)
        )
        best_g = np.argmax(log_g, axis=0)  # (n,)
        best = log_g[best_g, np.arange(n)]
        out = np.zeros((n, len(self.variables)), dtype=np.int64)
        rows = np.arange(n)
        if self.gi >= 0:
            out[:, self.gi] = best_g
        for r in self.roots:
            h = np.broadcast_to(held(r), (self.kg, n, self.card[r]))
            out[:, r] = np.argmax(h[best_g, rows], axis=1)
        for f in self.order:
            arg = np.broadcast_to(back[f.id], (self.kg, n, self.card[f.up]))
            config = arg[best_g, rows, out[:, f.up]]
            shape = [self.card[s] for s in f.down]
            for s, value in zip(f.down, np.unravel_index(config, shape)):
                out[:, s] = value
        return out, best

    def level_plan(self) -> LevelPlan | None:
        """The model as depth levels (:class:`~treelearn.inference._levels.LevelPlan`): built
        once, for a forest of one-parent CPTs without a conditioner; else ``None``."""
        if self._level_plan is None:
            plan: LevelPlan | Literal[False] = False
            # padding every CPT to the largest state count must not swamp the real work
            # (one many-state variable among binary ones: the per-factor passes then)
            cells = sum(
                self.card[self.index[p[0]]] * k
                for p, k in zip((self.parents[v] for v in self.variables), self.card)
                if p
            )
            padded = len(self.card) * max(self.card, default=1) ** 2
            if (
                self.is_tree
                and self.kg == 1
                and all(len(p) <= 1 for p in self.parents.values())
                and (padded <= 8 * cells or padded <= 1 << 16)
            ):
                plan = LevelPlan(
                    self.card,
                    [
                        self.index[p[0]] if p else -1
                        for p in (self.parents[v] for v in self.variables)
                    ],
                    [self.cpts[v] for v in self.variables],
                )
            self._level_plan = plan
        return self._level_plan or None

    # ------------------------------------------------------------------ a single query
    def _eye(self, k: int) -> np.ndarray:
        """The ``k x k`` identity, kept: one-hot evidence rows are its rows."""
        eye = self._eyes.get(k)
        if eye is None:
            eye = self._eyes[k] = np.eye(k)
            eye.flags.writeable = False
        return eye

    def state_labels(self, variable: Hashable) -> pd.Index:
        """The states of ``variable`` as a pandas Index named after it (built once)."""
        index = self._labels.get(variable)
        if index is None:
            index = pd.Index(self.states[variable], name=variable, tupleize_cols=False)
            self._labels[variable] = index
        return index

    def state_columns(self) -> pd.MultiIndex:
        """``(variable, state)`` of every variable's states in order, the columns of
        :meth:`marginals_matrix` (built once)."""
        columns = self._labels.get(_STATE_COLUMNS)
        if columns is None:
            columns = self._labels[_STATE_COLUMNS] = pd.MultiIndex.from_tuples(
                [(v, s) for v in self.variables for s in self.states[v]],
                names=["variable", "state"],
            )
        return columns

    def marginals_matrix(
        self, codes: np.ndarray, soft: Mapping[int, np.ndarray] | None = None
    ) -> np.ndarray:
        """:meth:`marginals_codes` side by side: ``(n, sum k_v)``, columns as
        :meth:`state_columns`."""
        plan = self.level_plan()
        if plan is not None:
            out = plan.marginals_matrix(np.asarray(codes, dtype=np.int64), soft)
            if out is not None:
                return out
        values = self.marginals_codes(codes, soft)
        return np.concatenate(values, axis=1) if values else np.zeros((len(codes), 0))

    def _prior_sweep(self) -> dict:
        """Messages of the model without evidence, computed once: what an evidence-free
        part of the tree sends, whatever is asked elsewhere."""
        if self._prior is None:
            acc, up, _, _, held = self._collect(
                self.order[::-1], {}, self.local.__getitem__, rescale=False
            )
            down = self._distribute(acc, up, {}, rescale=False)
            for r in range(len(self.variables)):
                if r != self.gi:
                    held(r)
            # factors whose evidence-free message is all ones (a parent looking down)
            nontrivial: list[list] = [[] for _ in self.variables]
            for f in self.order:
                if np.abs(up[f.id] - 1.0).max() > _ONES_TOLERANCE:
                    nontrivial[f.up].append(f)
            self._prior = {"acc": acc, "up": up, "down": down, "nontrivial": nontrivial}
        return self._prior

    # ------------------------------------------------------------------ one variable, rerooted
    def _pairwise(self) -> bool:
        """Is the model a forest of one-parent CPTs (no conditioner)? Then its variables'
        prior marginals and its edges' conditionals (:meth:`_marginal`, :meth:`_edge`)
        answer one-variable queries."""
        if self._pairs is None:
            self._pairs = self.kg == 1 and all(len(f.scope) == 2 for f in self.factors)
            if self._pairs:
                self._prior_sweep()
                self._up = [-1 if f is None else f.up for f in self.up_factor]
                self._marg = [None] * len(self.variables)
        return self._pairs

    def _marginal(self, x: int) -> np.ndarray:
        """``P(x)`` from the no-evidence sweep (kept)."""
        out = self._marg[x]
        if out is None:
            prior = self._prior_sweep()  # kept: _pairwise() made it
            b = prior["acc"][x] * prior["down"][x] if x in prior["down"] else prior["acc"][x]
            b = b.ravel()
            out = self._marg[x] = b / b.sum()
        return out

    def _edge(self, a: int, b: int) -> np.ndarray:
        """``P(b | a)`` as ``(k_a, k_b)`` for neighbours ``a`` and ``b``: the CPT where ``a`` is
        ``b``'s parent, else by Bayes' rule from the marginals (0 where ``P(a) = 0``)."""
        if self._up[b] == a:
            return self.up_factor[b].table[0]
        out = self._reversed.get(a)  # a has one parent, b: kept per child
        if out is None:
            joint = self._marginal(b)[:, None] * self.up_factor[a].table[0]  # P(b, a)
            marg = self._marginal(a)
            with np.errstate(invalid="ignore", divide="ignore"):
                out = self._reversed[a] = np.where(marg > 0, joint / marg, 0.0).T
        return out

    def _toward(self, r: int) -> dict:
        """``{ancestor of r: its child on the way down to r}`` (the tree as rooted at
        compile time); elsewhere the way to ``r`` goes up. Kept per root, up to
        :data:`_TOWARD_KEPT` entries in all."""
        out = self._towards.get(r)
        if out is None:
            up = self._up
            out = {}
            x = r
            while up[x] >= 0:
                out[up[x]] = x
                x = up[x]
            self._toward_size += len(out)
            if self._toward_size > _TOWARD_KEPT:  # a bound on memory for huge models
                self._towards.clear()
                self._toward_size = len(out)
            self._towards[r] = out
        return out

    def _given(self, path: list) -> tuple:
        """``P(x | a)`` as ``(k_a, k_x)`` and its transpose for ``path = [x, ..., a]`` (a
        path of the tree): the edge conditionals multiplied along it (kept per pair)."""
        out = self._between.get((path[-1], path[0]))
        if out is None:
            table = self._edge(path[1], path[0])
            for y, a in itertools.pairwise(path[1:]):
                table = self._edge(a, y) @ table
            table = np.ascontiguousarray(table)
            if len(self._between) >= _PAIRS_KEPT:  # a bound on memory for huge models
                self._between.clear()
            out = self._between[path[-1], path[0]] = (table, np.ascontiguousarray(table.T))
        return out

    def _evidence_toward(
        self, r: int, evidence: Mapping[int, int], members: Sequence[int]
    ) -> np.ndarray | None:
        """``P(the evidence on members | r)`` as a vector over ``r``'s states.

        Only the smallest subtree joining ``members`` and ``r`` counts (rooted at ``r``,
        everything off it sums to one: each factor is the conditional of a variable
        given its neighbour toward ``r``), and of it only the observed variables and
        the branch points: between two of those, one conditional ``P(lower | upper)``."""
        up, toward = self._up, self._toward(r)
        seen = {r}
        keys = {r}
        walks = []  # from each member toward r, until the way meets an earlier one
        for e in members:
            keys.add(e)
            walk = []
            while e not in seen:
                seen.add(e)
                walk.append(e)
                e = toward[e] if e in toward else up[e]
            keys.add(e)  # where it met an earlier way: a branch point (or r, or a member)
            walk.append(e)
            walks.append(walk)
        inbox: dict = {}
        # a later walk only ever joins an earlier one: the last walk first, each from
        # its start, finds every message into a variable sent before it sends its own
        for walk in reversed(walks):
            x, path = walk[0], [walk[0]]
            for y in walk[1:]:
                path.append(y)
                if y not in keys:
                    continue
                table, table_t = self._given(path)
                s = evidence.get(x)
                held = inbox.get(x)
                if s is None:  # a branch point: something below it is observed
                    msg = table @ held
                else:
                    msg = table_t[s] if held is None else table_t[s] * held[s]
                inbox[y] = msg if y not in inbox else inbox[y] * msg
                x, path = y, [y]
        return inbox.get(r)

    def _query_one(self, q: int, evidence: Mapping[int, int]) -> np.ndarray | None:
        """``P(q | evidence)`` on a forest of one-parent CPTs by rerooting at ``q``; ``None``
        where the general path must answer (no such forest, or near underflow)."""
        if not self._pairwise():
            return None
        marg = self._marginal
        belief = marg(q)
        by_tree: dict = {}
        for e in evidence:
            by_tree.setdefault(self.component[e], []).append(e)
        scale = 1.0
        for t, members in by_tree.items():
            if t == self.component[q]:
                msg = self._evidence_toward(q, evidence, members)
                belief = belief * msg
                continue
            # another tree: its evidence does not change q, but may be impossible
            r = members[0]
            msg = self._evidence_toward(r, evidence, members[1:])
            s = evidence[r]
            scale *= marg(r)[s] * (1.0 if msg is None else msg[s])
        z = belief.sum()
        if (
            not z * scale > _UNDERFLOW
        ):  # underflow or impossible: the rescaled path tells them apart
            return None
        return belief / z

    def query_codes(
        self,
        query: Sequence[int],
        evidence: Mapping[int, int],
        soft: Mapping[int, np.ndarray] | None = None,
    ) -> np.ndarray:
        """``P(query variables | evidence)`` as an array with one axis per query variable
        (all zero when the evidence is impossible); ``soft``: ``{variable index:
        likelihood vector}`` (virtual evidence, a query variable's too)."""
        shape = [self.card[q] for q in query]
        if not self.is_tree:
            return self._general.query(query, self._row(evidence), soft)
        if len(query) == 1 and query[0] not in evidence and not soft:
            one = self._query_one(query[0], evidence)
            if one is not None:
                return one
        eye = self._eye
        if len(query) == 1:
            n = shape[0]
            ev: dict = {query[0]: eye(n)[None]}
        else:
            n = int(np.prod(shape))
            grid = np.indices(shape).reshape(len(shape), n)
            ev = {q: eye(self.card[q])[row][None] for q, row in zip(query, grid)}
        for v, s in evidence.items():
            ev[v] = eye(self.card[v])[s][None, None]
        for v, likelihood in (soft or {}).items():
            ev[v] = likelihood[None, None] * ev[v] if v in ev else likelihood[None, None]
        gev = ev.pop(self.gi)[0].T if self.gi in ev else None
        prior = self._prior_sweep()
        # the smallest subtree joining the observed and queried variables, per tree
        heads: dict = {}
        for t in ev:
            heads.setdefault(self.component[t], set()).add(t)
        order: list = []  # deepest first: a factor after every factor below it
        marked: set = set()
        on_way: set = set()
        tops = []
        for members in heads.values():
            while len(members) > 1:
                x = max(members, key=self.depth.__getitem__)
                members.discard(x)
                on_way.add(x)
                f = self.up_factor[x]
                if f.id not in marked:  # a polytree factor reached from two of its down variables
                    marked.add(f.id)
                    order.append(f)
                members.add(f.up)
            top = members.pop()
            on_way.add(top)
            tops.append(top)
        nontrivial = prior["nontrivial"]

        def base(x: int) -> np.ndarray:
            value = self.local[x]
            for h in nontrivial[x]:
                if h.id not in marked:
                    value = value * prior["up"][h.id]
            return value

        outside = {x: prior["acc"][x] for f in order for x in f.down if x not in on_way}
        # messages only shrink (each is an average of values <= 1): without rescaling
        # unless the result comes near underflow, then again with it
        for rescale in (False, True):
            _acc, _, log_scale, _, held = self._collect(
                order, ev, base, outside=outside, rescale=rescale
            )
            sums = []  # P(the tree's evidence | g) per tree touched
            for top in tops:
                belief = held(top)
                if top in prior["down"]:
                    belief = belief * prior["down"][top]
                sums.append(belief.sum(axis=2))
            if rescale or not sums or min(z.min() for z in sums) > _UNDERFLOW:
                break
        with np.errstate(divide="ignore"):
            total = log_scale
            for z in sums:  # in logs: many trees' probabilities multiply below the smallest double
                total = total + np.log(z)
            weight = self.gweight[:, None] if gev is None else self.gweight[:, None] * gev
            log_joint = np.logaddexp.reduce(total + np.log(weight), axis=0)
        log_joint = np.broadcast_to(log_joint, (n,))
        if not np.isfinite(log_joint).any():
            return np.zeros(shape)
        return np.exp(log_joint - np.logaddexp.reduce(log_joint)).reshape(shape)

    # ------------------------------------------------------------------ sampling
    def sample_codes(
        self,
        n: int,
        rng: np.random.Generator,
        evidence: Mapping[int, int] | None = None,
        soft: Mapping[int, np.ndarray] | None = None,
    ) -> np.ndarray:
        """``n`` rows of codes drawn from the model, or exactly from it given ``evidence``
        (and the likelihood vectors ``soft``)."""
        evidence = evidence or {}
        if not evidence and not soft:
            return self._forward_sample(n, rng)
        if not self.is_tree:
            return self._general.sample(n, rng, self._row(evidence), soft)
        ev = {}
        for v, s in evidence.items():
            one = np.zeros((1, 1, self.card[v]))
            one[0, 0, s] = 1.0
            ev[v] = one
        for v, likelihood in (soft or {}).items():
            ev[v] = likelihood[None, None]
        gev = ev.pop(self.gi)[0].T if self.gi in ev else None
        acc, _up, log_scale, _, held = self._collect(self.order[::-1], ev, self.local.__getitem__)
        log_g = self._log_totals(acc, log_scale, held, gev)[:, 0]
        out = np.zeros((n, len(self.variables)), dtype=np.int64)
        post_g = _normalise_log(log_g[None])[0]
        if not np.isfinite(post_g).all():
            return out[:0]  # impossible evidence: the caller raises
        g = draw(np.broadcast_to(np.cumsum(post_g), (n, self.kg)), rng)
        if self.gi >= 0:
            out[:, self.gi] = g
        for r in self.roots:
            table = np.broadcast_to(held(r)[:, 0, :], (self.kg, self.card[r]))
            out[:, r] = draw(cumulative(table)[g], rng)
        for f in self.order:
            ins = [None if s == f.up else held(s) for s in f.scope]
            prod = f.table
            m = len(f.scope)
            for i, x in enumerate(ins):
                if x is not None:
                    prod = prod * x[:, 0].reshape(
                        (x.shape[0],) + (1,) * i + (x.shape[2],) + (1,) * (m - 1 - i)
                    )
            prod = np.moveaxis(prod, 1 + f.pos, 1)
            flat = np.broadcast_to(prod, (self.kg,) + prod.shape[1:]).reshape(
                self.kg, self.card[f.up], -1
            )
            config = draw(cumulative(flat)[g, out[:, f.up]], rng)
            for s, value in zip(f.down, np.unravel_index(config, [self.card[s] for s in f.down])):
                out[:, s] = value
        return out

    def _forward_sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        if self._sampler is None:  # cumulative CPTs in a topological order, once
            done: set = set()
            plan = []
            pending = list(range(len(self.variables)))
            while pending:
                later = []
                for i in pending:
                    ps = [self.index[p] for p in self.parents[self.variables[i]]]
                    if all(p in done for p in ps):
                        cum = np.cumsum(self.cpts[self.variables[i]], axis=-1)
                        plan.append((i, ps, cum))
                        done.add(i)
                    else:
                        later.append(i)
                pending = later
            self._sampler = plan
        codes = np.empty((n, len(self.variables)), dtype=np.int64)
        u = rng.random((len(self.variables), n))
        for (i, ps, cum), ui in zip(self._sampler, u):
            table = cum[tuple(codes[:, p] for p in ps)] if ps else cum
            # the first state whose cumulative probability exceeds u (scaled to the row's total)
            codes[:, i] = np.minimum(
                (table <= (ui * table[..., -1])[:, None]).sum(axis=1)
                if ps
                else np.searchsorted(cum, ui * cum[-1], side="right"),
                self.card[i] - 1,
            )
        return codes

    def _row(self, evidence: Mapping[int, int]) -> np.ndarray:
        """``{variable index: state index}`` as one row of codes (-1 = missing)."""
        row = np.full(len(self.variables), -1, dtype=np.int64)
        for j, c in evidence.items():
            row[j] = c
        return row

    # ------------------------------------------------------------------ labels in, labels out
    def codes_of(self, evidence: Mapping[Hashable, Any] | None) -> dict:
        """``{variable index: state index}`` of labelled evidence (names and states checked;
        a likelihood is refused: see :meth:`evidence_of`)."""
        hard, soft = self.evidence_of(evidence)
        if soft:
            v = self.variables[next(iter(soft))]
            raise TreelearnError(
                f"evidence {v!r}: a likelihood is not taken here; give one of its states", column=v
            )
        return hard

    def evidence_of(self, evidence: Mapping[Hashable, Any] | None) -> tuple[dict, dict]:
        """``(hard, soft)``: ``{variable index: state index}`` of the variables given a state,
        and ``{variable index: likelihood vector}`` of those given a likelihood (virtual
        evidence: a list, array or Series over the states in their order, or a dict
        ``{state: weight}``, states left out weighing 0; checked by :func:`likelihood`).

        >>> import numpy as np
        >>> e = TreeEngine(["a"], {"a": []}, {"a": np.array([0.5, 0.5])}, {"a": ["x", "y"]})
        >>> e.evidence_of({"a": {"y": 2.0}})
        ({}, {0: array([0., 2.])})
        """
        hard: dict = {}
        soft: dict = {}
        for v, s in (evidence or {}).items():
            if v not in self.index:
                raise ColumnNotFoundError(
                    f"evidence {v!r} is not a variable of the model; the variables are "
                    f"{self.variables}"
                )
            if is_likelihood(s):
                soft[self.index[v]] = likelihood(v, s, self.states[v], self._code_of)
            else:
                hard[self.index[v]] = self._code_of(v, s)
        return hard, soft

    def _code_of(self, v: Hashable, s: Any) -> int:
        """:func:`state_index` by one dict lookup where the label is hashable and unambiguous."""
        try:
            i = self._codes[v].get(s)
        except TypeError:  # an unhashable label
            i = None
        if i is not None:
            t = self.states[v][i]
            # 1 == True == 1.0 hash alike: the dict's answer stands only for the same kind
            if isinstance(t, bool) == isinstance(s, (bool, np.bool_)) and t == s:
                return i
        return state_index(self.states[v], v, s)

    def impossible(self, evidence: Mapping[Hashable, Any]) -> TreelearnError:
        """The error for evidence of probability zero, naming the impossible value(s)."""
        if self._marginals0 is None:
            self._marginals0 = self.marginals_codes(np.full((1, len(self.variables)), -1))
        alone = [
            (v, s)
            for v, s in evidence.items()
            if not is_likelihood(s)
            and not self._marginals0[self.index[v]][0, state_index(self.states[v], v, s)] > 0
        ]
        if alone:
            v, s = alone[0]
            what = (
                f"{v!r} = {s!r} has probability zero under the model (no training row had "
                f"it with its parents' values, and alpha = 0)"
            )
        else:
            items = list(evidence.items())
            shown = ", ".join(
                f"{v!r}: {'a likelihood' if is_likelihood(s) else repr(s)}" for v, s in items[:8]
            )
            more = f", ... ({len(items)} values)" if len(items) > 8 else ""
            what = (
                f"the evidence {{{shown}{more}}} has probability zero under the model: each "
                f"value is possible alone, not all together"
            )
        return TreelearnError(
            what + ". Drop or change that evidence, or learn with alpha > 0.",
            column=alone[0][0] if alone else None,
            values=[alone[0][1]] if alone else None,
            hint="Drop or change that evidence, or learn with alpha > 0.",
        )

    def query(
        self, variables: Sequence[Hashable], evidence: Mapping[Hashable, Any] | None = None
    ) -> np.ndarray:
        """``P(variables | evidence)``, one axis per variable (labels in, array out)."""
        fixed, soft = self.evidence_of(evidence)
        table = self.query_codes([self.index[v] for v in variables], fixed, soft)
        if not table.any():
            raise self.impossible(dict(evidence or {}))
        return table

    def marginals(self, evidence: Mapping[Hashable, Any] | None = None) -> dict:
        """``{variable: Series over its states}`` for every variable not given a state in
        ``evidence`` (a variable given a likelihood gets its posterior)."""
        fixed, soft = self.evidence_of(evidence)
        values = self.marginals_matrix(self._row(fixed)[None], soft)[0]
        if not np.isfinite(values).all():
            raise self.impossible(dict(evidence or {}))
        # one Series per variable costs pandas more than the message passing: each is
        # built when first read (Marginals, a dict)
        card = np.asarray(self.card)
        if fixed:  # the variables given a state are left out
            asked = np.ones(len(card), dtype=bool)
            asked[list(fixed)] = False
            values = values[np.repeat(asked, card)]
            card = card[asked]
            variables = [v for v, a in zip(self.variables, asked) if a]
        else:
            variables = self.variables
        return Marginals(
            variables,
            values,
            np.cumsum(card) - card,
            self.state_labels,
        )

    def map_query(self, evidence: Mapping[Hashable, Any] | None = None) -> tuple:
        """``({variable: state} for every variable not given a state, log P(assignment,
        evidence))`` (each likelihood counted as ``P(evidence | variable)``)."""
        fixed, soft = self.evidence_of(evidence)
        best, log_p = self.map_codes(self._row(fixed)[None], soft)
        if not np.isfinite(log_p[0]):
            raise self.impossible(dict(evidence or {}))
        assignment = {
            v: self.states[v][best[0, i]] for i, v in enumerate(self.variables) if i not in fixed
        }
        return assignment, float(log_p[0])


_STATE_COLUMNS = object()  # the key of state_columns() among the cached labels


def is_likelihood(value: Any) -> bool:
    """Whether an evidence value is a likelihood (a list, array, Series or dict), not a state.

    >>> is_likelihood([0.2, 0.8]), is_likelihood({"yes": 1.0}), is_likelihood("yes")
    (True, True, False)
    """
    return isinstance(value, (list, np.ndarray, pd.Series, Mapping))


def likelihood(variable: Hashable, value: Any, states: Sequence, code_of: Any) -> np.ndarray:
    """The likelihood vector over ``states`` that ``value`` gives ``variable``: a sequence in
    the states' order, or ``{state: weight}`` (a Series: by its index; states left out weigh
    0; ``code_of(variable, state)`` finds a state). Weights must be finite, non-negative
    and not all zero.

    >>> likelihood("a", {"y": 3}, ["x", "y"], lambda v, s: ["x", "y"].index(s)).tolist()
    [0.0, 3.0]
    >>> likelihood("a", [0.5, -1], ["x", "y"], None)
    Traceback (most recent call last):
    ...
    treelearn.TreelearnError: evidence 'a': the likelihood [0.5, -1.0] has a negative weight; give one non-negative weight per state ['x', 'y'] (e.g. [0.8, 0.2])
    """
    k = len(states)
    fix = f"give one non-negative weight per state {list(states)} (e.g. {[0.8] + [0.2] * (k - 1) if k > 1 else [1.0]})"
    if isinstance(value, (Mapping, pd.Series)):
        out = np.zeros(k)
        for s, w in value.items():
            out[code_of(variable, s)] = _weight(variable, w, fix)
    else:
        try:
            out = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise TreelearnError(
                f"evidence {variable!r}: the likelihood {value!r} is not numbers; {fix}",
                column=variable,
                values=[value],
            ) from None
        if out.shape != (k,):
            raise TreelearnError(
                f"evidence {variable!r}: the likelihood has {out.size} weight(s) for {k} states; "
                f"{fix}",
                column=variable,
                values=[value],
            )
    shown = out.tolist()
    if not np.isfinite(out).all():
        raise TreelearnError(
            f"evidence {variable!r}: the likelihood {shown} is not finite (NaN or infinite); {fix}",
            column=variable,
            values=[value],
        )
    if (out < 0).any():
        raise TreelearnError(
            f"evidence {variable!r}: the likelihood {shown} has a negative weight; {fix}",
            column=variable,
            values=[value],
        )
    if not out.any():
        raise TreelearnError(
            f"evidence {variable!r}: the likelihood {shown} is all zero (no state possible); {fix}",
            column=variable,
            values=[value],
        )
    return out


def _weight(variable: Hashable, w: Any, fix: str) -> float:
    if isinstance(w, (bool, np.bool_)) or not isinstance(w, (int, float, np.number)):
        raise TreelearnError(
            f"evidence {variable!r}: the weight {w!r} is not a number; {fix}",
            column=variable,
            values=[w],
        )
    return float(w)


def _normalise_log(log_joint: np.ndarray) -> np.ndarray:
    """Rows of ``exp(log_joint)`` normalised to 1 (NaN where a row is all ``-inf``)."""
    with np.errstate(invalid="ignore"):
        top = log_joint.max(axis=1, keepdims=True)
        p = np.exp(log_joint - top)
        return p / p.sum(axis=1, keepdims=True)


def decode_codes(
    codes: np.ndarray,
    variables: Sequence[Hashable],
    states: Mapping[Hashable, Sequence],
    dtypes: Mapping[Hashable, Any],
) -> pd.DataFrame:
    """Complete codes (no missing values) -> a DataFrame of labels in their dtypes, one
    vectorised ``take`` per column.

    >>> decode_codes(np.array([[1, 0]]), ["a", "b"], {"a": [3, 5], "b": ["u", "v"]},
    ...              {"a": np.dtype("int64")}).to_dict("list")
    {'a': [5], 'b': ['u']}
    """
    out = {}
    for j, v in enumerate(variables):
        dtype, labels, col = dtypes.get(v), list(states[v]), codes[:, j]
        if isinstance(dtype, pd.CategoricalDtype):
            if list(dtype.categories) != labels:  # codes index the states, not the categories
                dtype = pd.CategoricalDtype(labels, ordered=dtype.ordered)
            out[v] = pd.Categorical.from_codes(col, dtype=dtype)
            continue
        table = None
        if isinstance(dtype, np.dtype) and dtype.kind in "biuf":
            try:
                table = np.array(labels, dtype=dtype)
            except (TypeError, ValueError, OverflowError):
                table = None
        elif dtype is not None and not isinstance(dtype, np.dtype):
            # an extension dtype (e.g. pandas' str): take from its own array of the labels,
            # not from objects converted value by value afterwards
            try:
                out[v] = pd.array(labels, dtype=dtype).take(col)
                continue
            except (TypeError, ValueError):
                table = None
        if table is None:
            table = np.empty(len(labels), dtype=object)
            table[:] = labels
        values = pd.Series(table[col])
        if dtype is not None and values.dtype != dtype:
            with contextlib.suppress(TypeError, ValueError):
                values = values.astype(dtype)
        out[v] = values
    return pd.DataFrame(out, columns=list(variables))
