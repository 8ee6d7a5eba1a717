"""Hidden Chow-Liu trees (HCLT) and hidden Markov models, learned by exact EM.

A hidden tree has one latent variable ``H_i`` of ``h`` states per observed column
``X_i``: the latents form a tree (``P(H_root) prod P(H_c | H_p)``) and each column
depends on its own latent only (``P(X_i | H_i)``), so the joint model over latents and
columns is one tree, a :class:`~treelearn.TreeModel` of ``2d`` nodes,
and every question about it (the likelihood of a row with any cells missing, the
posterior of a cell, sampling) is exact message passing. Liu & Van den Broeck
(NeurIPS 2021) call it a hidden Chow-Liu tree when the latent tree is the Chow-Liu tree
of the observed columns; a chain of latents is a hidden Markov model over sequences
of fixed length (one column per time step).

EM alternates

* **E-step**: every family's expected counts given each row,
  ``sum_r w_r P(h_p, h_c | x_r)`` and ``sum_r w_r P(h_i, x_i | x_r)``, exactly, from
  one collect and one distribute of the tree engine over all rows at once
  (:meth:`~treelearn.inference._engine.TreeEngine.family_counts_codes`: a product of
  messages per edge, never an ``n x h x h`` array);
* **M-step**: the CPTs of those counts (:func:`~treelearn.stats._parameters.estimate_cpt`,
  ``alpha`` the Lidstone pseudocount; with tied parameters, as in an HMM, the counts of
  every time step added first).

With ``alpha=0`` each iteration maximises the expected complete log-likelihood, so the
training log-likelihood (``lower_bounds_``) never decreases. The rows come through
:mod:`treelearn.sources._passes`: a DataFrame is encoded once (identical rows merged),
a CSV/Parquet file is read in chunks at every iteration, a Dask DataFrame is summarised
on its workers; every kind gives the same model.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from numbers import Integral
from typing import Any, ClassVar

import networkx as nx
import numpy as np
import pandas as pd

from .._base.errors import ColumnNotFoundError, StructureError, TreelearnError
from .._base.limits import check_memory
from .._base.persistence import SavedState
from .._base.validation import BOOLEAN, InstanceOf, Interval, Options
from ..encoding._table import DEFAULT_MAX_STATES, state_order
from ..inference._engine import TreeEngine
from ..models._hidden_tree import HiddenTreeModel
from ..models._tree import TreeModel
from ..sources._kinds import as_frame
from ..sources._passes import RowPasses
from ..stats._parameters import estimate_cpt
from ..stats._settings import LearningSettings
from ..structure._trees import orient
from ._chow_liu import build_model, chow_liu_from_counts
from ._density import (
    EM_OPTIONS,
    SMOOTHING,
    SOURCE_OPTIONS,
    EMEstimator,
    EMRun,
    EMSchedule,
    best_run,
    em_run,
    run_starts,
)
from ._latent_counts import latent_tree_counts

__all__ = ["HiddenMarkovModel", "HiddenTree", "LatentTree", "latent_names"]

#: how far the tree start moves the latent states of one observed state apart (log scale)
_TREE_NOISE = 0.5
#: in the tree start, the emission mass a latent state gives the other observed states
_TREE_SPILL = 0.05


def latent_names(columns: Sequence[Hashable]) -> list:
    """The latent variables' names: ``H_<column>``, with underscores put before it until
    no column is so named.

    >>> latent_names(["a", "H_b", "b"])
    ['H_a', 'H_H_b', '_H_b']
    """
    taken = set(columns)
    out = []
    for c in columns:
        name = f"H_{c}"
        while name in taken:
            name = "_" + name
        taken.add(name)
        out.append(name)
    return out


# ---------------------------------------------------------------------- the parameters
@dataclass
class LatentTree:
    """A hidden tree's parameters, latent ``i`` being column ``i``'s.

    ``parent[i]``: the latent parent of latent ``i`` (``-1``: a root); ``latent[i]``: its
    CPT, ``(h,)`` for a root, ``(h, h)`` indexed ``[parent state, own state]`` otherwise;
    ``emission[i]``: ``P(X_i | H_i)``, ``(h, k_i)``.
    """

    parent: np.ndarray
    latent: list
    emission: list

    @property
    def n_states(self) -> int:
        return int(self.emission[0].shape[0]) if self.emission else 1

    def engine(self) -> TreeEngine:
        """The engine of the joint tree, on integer names: latents ``0..d-1``, then the
        columns ``d..2d-1`` (the columns of the codes it takes)."""
        d, h = len(self.parent), self.n_states
        parents: dict[Hashable, list[int]] = {
            i: ([] if self.parent[i] < 0 else [int(self.parent[i])]) for i in range(d)
        }
        parents.update({d + i: [i] for i in range(d)})
        cpts: dict[Hashable, np.ndarray] = {i: self.latent[i] for i in range(d)}
        cpts.update({d + i: self.emission[i] for i in range(d)})
        states: dict[Hashable, range] = {i: range(h) for i in range(d)}
        states.update({d + i: range(self.emission[i].shape[1]) for i in range(d)})
        return TreeEngine(list(range(2 * d)), parents, cpts, states)


def _joint_codes(codes: np.ndarray) -> np.ndarray:
    """The codes of the joint tree: every latent missing, then the columns."""
    n, d = codes.shape
    full = np.full((n, 2 * d), -1, dtype=np.int64)
    full[:, d:] = codes
    return full


@dataclass
class _Expected:
    """The E-step's sums over rows: log-likelihood, weight, every family's expected counts."""

    log_likelihood: float
    weight: float
    latent: list
    emission: list

    def __add__(self, other: _Expected) -> _Expected:
        return _Expected(
            self.log_likelihood + other.log_likelihood,
            self.weight + other.weight,
            [a + b for a, b in zip(self.latent, other.latent)],
            [a + b for a, b in zip(self.emission, other.emission)],
        )


def _total_log_likelihood(log_ev: np.ndarray, w: np.ndarray) -> float:
    counted = w > 0
    return float(log_ev[counted] @ w[counted])


@dataclass
class _EStep:
    """``summarise(codes, weights)`` of a pass: the expected counts under ``tree``."""

    tree: LatentTree

    def __call__(self, codes: np.ndarray, w: np.ndarray) -> _Expected:
        d = codes.shape[1]
        if (codes >= 0).all():  # complete rows: batched products per edge
            log_ev, latent, emission = latent_tree_counts(
                self.tree.parent, self.tree.latent, self.tree.emission, codes, w
            )
            return _Expected(_total_log_likelihood(log_ev, w), float(w.sum()), latent, emission)
        log_ev, counts = self.tree.engine().family_counts_codes(_joint_codes(codes), w)
        return _Expected(_total_log_likelihood(log_ev, w), float(w.sum()), counts[:d], counts[d:])


@dataclass
class _Scores:
    """``summarise(codes, weights)`` of a pass: the log-likelihood under ``tree`` (collect only)."""

    tree: LatentTree

    def __call__(self, codes: np.ndarray, w: np.ndarray) -> np.ndarray:
        log_ev = self.tree.engine().log_evidence(_joint_codes(codes))
        return np.array([_total_log_likelihood(log_ev, w), float(w.sum())])


def _m_step(tree: LatentTree, expected: _Expected, alpha: float, tied: bool) -> LatentTree:
    """The CPTs of the expected counts (tied: one transition and one emission table for all)."""
    latent, emission = list(expected.latent), list(expected.emission)
    if tied:
        children = [i for i in range(len(tree.parent)) if tree.parent[i] >= 0]
        if children:
            shared = sum(latent[i] for i in children)
            for i in children:
                latent[i] = shared
        shared = sum(emission)
        emission = [shared] * len(emission)
    return LatentTree(
        tree.parent,
        [estimate_cpt(c, alpha) for c in latent],
        [estimate_cpt(c, alpha) for c in emission],
    )


# ---------------------------------------------------------------------- starts
def _structure_parents(structure: Any, columns: tuple) -> np.ndarray:
    """``parent[i]`` of a given structure: ``"chain"`` or a tree/forest over the columns."""
    d = len(columns)
    if isinstance(structure, str):  # "chain": the checked options leave only this
        return np.arange(-1, d - 1)
    index = {c: i for i, c in enumerate(columns)}
    unknown = [v for v in structure.nodes if v not in index]
    absent = [c for c in columns if c not in structure]
    if unknown or absent:
        raise ColumnNotFoundError(
            f"structure= must have the columns {list(columns)} as its nodes; "
            + (f"{unknown} are no columns" if unknown else f"it lacks {absent}"),
            column=(unknown or absent)[0],
        )
    directed = structure if structure.is_directed() else orient(structure)
    if not nx.is_directed_acyclic_graph(directed) or any(
        directed.in_degree(v) > 1 for v in directed
    ):
        raise StructureError(
            "structure= must be a tree or forest over the columns (each node "
            "at most one parent, no cycle)"
        )
    parent = np.full(d, -1)
    for p, c in directed.edges:
        parent[index[c]] = index[p]
    return parent


def _random_tree(
    parent: np.ndarray, cards: np.ndarray, h: int, rng: np.random.Generator, tied: bool
) -> LatentTree:
    """Every CPT row drawn from a flat Dirichlet (tied: one transition, one emission)."""
    d = len(parent)
    latent = [
        rng.dirichlet(np.ones(h)) if parent[i] < 0 else rng.dirichlet(np.ones(h), size=h)
        for i in range(d)
    ]
    emission = [rng.dirichlet(np.ones(int(k)), size=h) for k in cards]
    if tied:
        children = [i for i in range(d) if parent[i] >= 0]
        for i in children:
            latent[i] = latent[children[0]]
        emission = [emission[0]] * d
    return LatentTree(parent, latent, emission)


def _tree_start(
    tree: TreeModel, columns: tuple, parent: np.ndarray, h: int, rng: np.random.Generator
) -> LatentTree:
    """A start near the observed tree: latent state ``z`` of column ``i`` stands for its
    observed state ``z mod k_i`` (with ``h >= k_i``), so the start is the Chow-Liu tree
    with each observed state split into ``h / k_i`` latent ones, told apart by a seeded
    random perturbation of the transitions; each emits its own state but for a spill of
    :data:`_TREE_SPILL`. A column with more states than ``h`` starts from its marginal."""
    index = {c: i for i, c in enumerate(columns)}
    d = len(columns)
    cards = [len(tree.states[c]) for c in columns]
    group = [np.arange(h) % k if k <= h else None for k in cards]
    latent: list[np.ndarray | None] = [None] * d  # every entry set below
    emission: list[np.ndarray | None] = [None] * d
    marginals = {c: m.to_numpy() for c, m in tree.engine().marginals().items()}
    for c in columns:
        i = index[c]
        k = cards[i]
        cpt = tree.cpt(c)
        tree_parent = tree.parents(c)
        p = -1 if not tree_parent else index[tree_parent[0]]
        g = group[i]
        if g is None:  # fewer latent than observed states
            marginal = marginals[c]
            emission[i] = _normalised(marginal[None] * rng.lognormal(0, _TREE_NOISE, (h, k)))
            latent[i] = (
                _normalised(rng.lognormal(0, _TREE_NOISE, h))
                if parent[i] < 0
                else _normalised(rng.lognormal(0, _TREE_NOISE, (h, h)))
            )
            continue
        parent_group = group[p] if p >= 0 else None
        share = np.bincount(g, minlength=k)[g]  # latent states per observed state
        emission[i] = (1 - _TREE_SPILL) * np.eye(k)[g] + _TREE_SPILL / k
        if parent[i] < 0:
            marginal = marginals[c] if tree_parent else cpt
            latent[i] = _normalised(marginal[g] / share * rng.lognormal(0, _TREE_NOISE, h))
        elif parent_group is not None and parent[i] == p:
            latent[i] = _normalised(
                cpt[np.ix_(parent_group, g)] / share * rng.lognormal(0, _TREE_NOISE, (h, h))
            )
        else:
            marginal = marginals[c]
            latent[i] = _normalised(
                np.broadcast_to(marginal[g] / share, (h, h)) * rng.lognormal(0, _TREE_NOISE, (h, h))
            )
    return LatentTree(parent, latent, emission)


def _check_latent_memory(learner: str, params: dict, cardinalities: np.ndarray) -> None:
    """Before the first latent table: a tree's ``h x h`` transition tables and ``h x k``
    emission tables, held once per start and three times more per run at once (the
    current CPTs, the expected counts, the next CPTs). The rows cost ``h`` numbers per
    node of a chunk bounded by the engine, far less."""
    h, d = int(params["n_states"]), len(cardinalities)
    numbers = float(h) * h * max(d - 1, 0) + h + float(h) * float(np.sum(cardinalities))
    n_init = int(params["n_init"])
    parallel = n_init if params["n_jobs"] is not None else 1
    check_memory(
        8.0 * numbers * (n_init + 3 * parallel),
        f"{learner}(n_states={h})'s latent tables ({d} columns, {max(d - 1, 0)} tables of "
        f"{h} x {h}, for n_init={n_init} starts)",
        "give fewer n_states",
    )


def _normalised(table: np.ndarray) -> np.ndarray:
    return table / table.sum(axis=-1, keepdims=True)


# ---------------------------------------------------------------------- the estimator
class HiddenTree(EMEstimator):
    """A hidden Chow-Liu tree: one latent variable of ``n_states`` states per column, the
    latents a tree (by default the Chow-Liu tree of the columns), learned by exact EM.

    ``P(x) = sum_h P(h_root) prod_c P(h_c | h_parent(c)) prod_i P(x_i | h_i)``. With one
    latent state it is the independence model; each further state lets the tree carry
    more than the pairwise dependences a Chow-Liu tree can (Liu & Van den Broeck 2021).
    ``model_`` is the fitted :class:`~treelearn.HiddenTreeModel`: the joint tree over
    latents and columns (``model_.network``, a :class:`~treelearn.TreeModel`)
    and the latents' names; it answers scores, queries, marginals and the most probable
    completion over the columns (the latents summed out), predictions, sampling, drawing
    and the explorer page.

    Parameters
    ----------
    n_states : int, default=16
        ``h``, the latent variables' number of states (>= 1). The default 16 is what the
        DEBD runs chose (``benchmarks/bench_density.py``: 16 states up to 200 columns).
    alpha : float, default=0.01
        Lidstone pseudocount of every CPT, added to the expected counts (0 = maximum
        likelihood: then the training log-likelihood never decreases). The default 0.01 is
        the DEBD runs' choice: a pseudocount of 1 is strong on 16 x 16 latent tables (on
        DEBD nltcs, ``n_states=16, alpha=0.01`` reaches a test log-likelihood of -6.017 per
        row where ``n_states=8, alpha=1`` stops at -6.064); choose it on held-out rows.
    max_iter : int, default=200
        Most EM iterations per start (200, ``tol`` 1e-6, ``init="random"`` and
        ``n_iter_no_change`` 10: the DEBD runs' EM; on nltcs, without validation rows,
        these defaults reach a test log-likelihood of -6.017 per row, where 8 states,
        ``alpha=1``, 100 iterations, ``tol=1e-4`` from the tree start gave -6.052).
    tol : float, default=1e-6
        Stop when the mean log-likelihood per row changes by less than this.
    n_init : int, default=1
        Number of starts; the best (on ``validation`` when given, else on the
        training rows) is kept. ``n_jobs`` runs them in parallel (joblib), with the same
        results.
    init : {"random", "tree"}, default="random"
        ``"random"`` (default): every CPT row from a flat Dirichlet distribution;
        ``"tree"``: start at the Chow-Liu tree of the columns, each observed state split
        into ``h / k`` latent states told apart by a seeded perturbation (so EM starts
        near a single tree's likelihood).
    structure : None, "chain" or networkx graph, default=None
        ``None`` (default): the latent tree is the Chow-Liu tree of the columns
        (``mi_alpha`` smoothing its MI); ``"chain"``: the columns in order (an HMM with
        untied parameters; see :class:`HiddenMarkovModel`); or a tree or forest over the
        columns (an ``nx.Graph``, rooted at its first node, or an ``nx.DiGraph``).
    random_state : int, numpy.random.Generator or None, default=None
        Int, ``np.random.Generator`` or None.
    mi_alpha : float, default=None
        Pseudocount of the pairwise joint the Chow-Liu tree is chosen from (as in
        :func:`treelearn.chow_liu`).
    states : dict, default=None
        Optional ``{column: [states]}`` fixing some columns' states.
    missing : {"error", "drop", "em"}, default="error"
        ``"error"``, ``"drop"``, or ``"em"`` (rows with missing cells are kept; the
        E-step sums their missing cells out with the latents). Scoring always sums missing
        cells out exactly.
    max_states : int, default=100
        The most states a column may have.
    n_iter_no_change : int, default=10
        With ``validation=`` in :meth:`fit`, stop after this many
        iterations without a better validation log-likelihood, and keep the best model.
    n_jobs : int, default=None
        Joblib workers for the ``n_init`` starts (None: one after the other).
    progress : bool, default=False
        Show a progress bar over the iterations (needs tqdm).
    chunksize : int, default=None
        ``None`` (default): a file is read whole and a Dask DataFrame computed (rows
        held in memory, identical ones merged); a number: a file is read that many rows at
        a time at every iteration (memory flat in its rows), a Dask DataFrame summarised
        on its workers at every iteration.

    Attributes
    ----------
    model_ : the fitted :class:`~treelearn.HiddenTreeModel` (``model_.network``: the joint
        :class:`~treelearn.TreeModel`, latents first).
    latent_names_ : the latent variables' names in ``model_.network`` (``H_<column>``), in
        column order (``model_.latent``).
    lower_bound_, lower_bounds_ : the mean training log-likelihood per row of the kept
        model, and after every iteration of its run (the start first).
    validation_scores_ : the mean validation log-likelihood after every iteration (with
        ``validation=``), else None.
    n_iter_, converged_ : the kept run's iterations and whether it converged.
    feature_names_in_, n_features_in_ : the columns learned from.

    See Also
    --------
    HiddenMarkovModel : the latents a chain.
    TreeMixture : one latent for the whole row.

    References
    ----------
    .. [1] Choi, M. J., Tan, V. Y. F., Anandkumar, A. and Willsky, A. S. (2011). Learning
       latent tree graphical models. Journal of Machine Learning Research 12, 1771-1812.
    .. [2] Liu, A. and Van den Broeck, G. (2021). Tractable regularization of
       probabilistic circuits. Advances in Neural Information Processing Systems 34.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> hidden = tl.HiddenTree(n_states=2, random_state=0).fit(df)
    >>> len(hidden.model_.network.variables), hidden.latent_names_[0]
    (16, 'H_asia')
    >>> bool(hidden.score(df) >= tl.chow_liu(df).log_likelihood(df) / len(df) - 0.01)
    True
    >>> all(b <= a + 1e-9 for b, a in zip(hidden.lower_bounds_, hidden.lower_bounds_[1:]))
    True
    """

    #: what it answers (:class:`~treelearn.models._base.Capable`: the explorer asks it)
    capabilities = frozenset(
        {
            "score",
            "sample",
            "sample_given",
            "query",
            "marginals",
            "predict",
            "draw",
            "explorer",
        }
    )

    def __init__(
        self,
        n_states: int = 16,
        alpha: float = 0.01,
        max_iter: int = 200,
        tol: float = 1e-6,
        n_init: int = 1,
        init: str = "random",
        structure: Any = None,
        random_state: int | np.random.Generator | None = None,
        mi_alpha: float | None = None,
        states: Mapping[Hashable, Sequence] | None = None,
        missing: str = "error",
        max_states: int = DEFAULT_MAX_STATES,
        n_iter_no_change: int = 10,
        n_jobs: int | None = None,
        progress: bool = False,
        chunksize: int | None = None,
    ) -> None:
        self.n_states = n_states
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.init = init
        self.structure = structure
        self.random_state = random_state
        self.mi_alpha = mi_alpha
        self.states = states
        self.missing = missing
        self.max_states = max_states
        self.n_iter_no_change = n_iter_no_change
        self.n_jobs = n_jobs
        self.progress = progress
        self.chunksize = chunksize

    # ------------------------------------------------------------ options
    _parameter_constraints: ClassVar[dict] = {
        "n_states": [Interval(Integral, 1, None)],
        **SMOOTHING,
        **EM_OPTIONS,
        **SOURCE_OPTIONS,
        "max_iter": [Interval(Integral, 0, None)],  # 0: the start, scored
        "init": [Options("tree", "random")],
        "structure": [
            None,
            Options("chain"),
            InstanceOf(nx.Graph, name="an nx.Graph or nx.DiGraph"),
        ],
        "missing": [Options("error", "drop", "em")],
    }
    _parameter_notes: ClassVar[dict] = {
        **EMEstimator._parameter_notes,
        "structure": "None = the Chow-Liu tree of the columns, 'chain' = the columns in order",
        "missing": "'em' keeps rows with missing cells; scoring sums missing cells out "
        "whatever this is",
    }
    model_: HiddenTreeModel
    #: tied parameters (one transition and one emission table): HiddenMarkovModel's option
    _tied = False
    #: the first bound of a run is its start's
    _scored_start = 1

    # ------------------------------------------------------------ fitting (EMEstimator.fit)
    _em_label = "hidden tree EM"

    def _em(
        self, passes: RowPasses, params: dict, valid: np.ndarray | None, rng: np.random.Generator
    ) -> EMRun:
        """The best of ``n_init`` runs from the starts (the Chow-Liu tree's, or random),
        on the latent tree ``structure`` says (by default the columns' Chow-Liu tree)."""
        _check_latent_memory(type(self).__name__, params, passes.cardinalities)
        tree = None  # the Chow-Liu tree of the columns: the latent tree, or the start
        if params["structure"] is None or (params["init"] == "tree" and not self._tied):
            settings = LearningSettings(
                method="hidden tree start", alpha=params["alpha"], mi_alpha=params["mi_alpha"]
            )
            tree = chow_liu_from_counts(passes.counts, settings)
        structure = params["structure"]
        if structure is None:
            assert tree is not None  # learnt above whenever no structure is given
            structure = tree.graph
        parent = _structure_parents(structure, passes.columns)
        starts = [self._start(passes, parent, tree, params, rng) for _ in range(params["n_init"])]
        run = partial(
            _run,
            passes=passes,
            valid=valid,
            alpha=params["alpha"],
            tied=self._tied,
            schedule=self._schedule(params),
        )
        return best_run(run_starts(run, starts, params["n_jobs"]))

    def _start(
        self,
        passes: RowPasses,
        parent: np.ndarray,
        tree: TreeModel | None,
        params: dict,
        rng: np.random.Generator,
    ) -> LatentTree:
        h = params["n_states"]
        if params["init"] == "tree" and not self._tied:
            if params["structure"] is not None:  # the tree start's CPTs, on the given structure
                settings = LearningSettings(method="hidden tree start", alpha=params["alpha"])
                directed = nx.DiGraph()
                directed.add_nodes_from(passes.columns)
                directed.add_edges_from(
                    (passes.columns[p], passes.columns[c]) for c, p in enumerate(parent) if p >= 0
                )
                tree = build_model(directed, passes.counts, settings)
            assert tree is not None  # else _em learnt the Chow-Liu tree for this start
            return _tree_start(tree, passes.columns, parent, h, rng)
        return _random_tree(parent, passes.cardinalities, h, rng, self._tied)

    def _model_of(self, run: EMRun, passes: RowPasses, params: dict) -> HiddenTreeModel:
        names = latent_names(passes.columns)
        network = _joint_model(
            run.model,
            passes,
            names,
            {
                "method": type(self).__name__,
                "n_states": params["n_states"],
                "alpha": params["alpha"],
                "missing": params["missing"],
            },
        )
        return HiddenTreeModel(network, names, tied=self._tied)

    # ------------------------------------------------------------ the model's parts
    @property
    def latent_names_(self) -> list:
        """The latents' names in ``model_.network``, in column order (``model_.latent``)."""
        return self._fitted_model().latent

    # ------------------------------------------------------------ answers: the model's
    def predict_proba(self, X: Any, target: Hashable) -> pd.DataFrame:
        """``P(target | the row's other observed values)`` for every row (a DataFrame, one
        column per state of ``target``): exact, the latents summed out."""
        self.require("predict")
        model = self._fitted_model()
        if target not in list(self.feature_names_in_):
            raise ColumnNotFoundError(
                f"{target!r} is not a column of the model; the columns "
                f"are {list(self.feature_names_in_)}",
                column=target,
            )
        frame = as_frame(X, list(self.feature_names_in_), learner=type(self).__name__)
        return model.predict_proba(frame, target)

    def predict(self, X: Any, target: Hashable | None = None) -> pd.Series | pd.DataFrame:
        """With ``target``, each row's most probable state of it given the row's other
        observed values; without, ``X`` with every missing cell filled by its most probable
        state given the row's observed cells (each cell's exact marginal; ties to the first
        state): :meth:`HiddenTreeModel.impute
        <treelearn.HiddenTreeModel.impute>`.

        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> hidden = tl.HiddenTree(n_states=2, random_state=0).fit(df)
        >>> holed = df.head(3).copy()
        >>> holed.loc[0, "either"] = np.nan
        >>> hidden.predict(holed).notna().all().all()
        np.True_
        """
        if target is not None:
            proba = self.predict_proba(X, target)
            labels = np.empty(proba.shape[1], dtype=object)
            labels[:] = list(proba.columns)
            best = labels[np.argmax(proba.to_numpy(), axis=1)]
            return pd.Series(best, index=proba.index, name=target)
        return self._fitted_model().impute(self._rows(X))

    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
        return_latent: bool = False,
    ) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
        """Draw ``n`` rows of the columns (exactly given ``evidence``; with
        ``return_latent=True``, also their latent states: ``(rows, latents)``).

        >>> import pandas as pd, treelearn as tl
        >>> hidden = tl.HiddenTree(n_states=2, random_state=0).fit(pd.read_csv("datasets/asia.csv"))
        >>> hidden.sample(3, random_state=0).shape
        (3, 8)
        """
        extra = {"numbers": True} if numbers else {}
        return self._fitted_model().sample(
            n, random_state, evidence=evidence, return_latent=return_latent, **extra
        )

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`): its joint tree's, the latent
        variables among the observed ones (:meth:`TreeModel.explorer_spec
        <treelearn.TreeModel.explorer_spec>`)."""
        from ..viz._page_spec import require_fitted

        require_fitted(self, "fit(X)")
        return self.model_.explorer_spec(title)

    # ------------------------------------------------------------ files
    def _fitted_state(self) -> dict:
        """The model's fields (the joint tree, the latents' names, whether tied), the run's
        history.

        >>> import pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> hidden = tl.HiddenTree(n_states=2, random_state=0).fit(df)
        >>> back = tl.HiddenTree.from_dict(hidden.to_dict())
        >>> bool((back.score_samples(df) == hidden.score_samples(df)).all())
        True
        """
        return {**self.model_.to_dict(), **self._history_state()}

    def _restore_fitted(self, saved: SavedState) -> None:
        """The model checked field by field (:meth:`HiddenTreeModel.from_dict
        <treelearn.HiddenTreeModel.from_dict>`), then against the
        options: latents of ``n_states`` states, tied as ``tied`` says; the history."""
        fields = {
            k: saved.state[k] for k in ("network", "latent_names", "tied") if k in saved.state
        }
        model = HiddenTreeModel.from_dict(fields, where=f"saved {saved.estimator}")
        if model.n_states != self.n_states:
            raise saved.fail("network", f"must have latents of n_states={self.n_states} states")
        if model.tied != self._tied:
            raise saved.fail("tied", f"must be {str(self._tied).lower()} for a {saved.estimator}")
        if list(model.latent) != latent_names(model.variables):
            raise saved.fail("latent_names", "must be the columns' latent names, H_<column>")
        self._restore_model(saved, model, "network")
        self._restore_history(saved)


def _joint_model(tree: LatentTree, passes: RowPasses, names: list, settings: dict) -> TreeModel:
    """The joint TreeModel over the latents (``names``) and the columns."""
    columns, h = passes.columns, tree.n_states
    G = nx.DiGraph()
    for i, v in enumerate(names):
        G.add_node(v, states=list(range(h)), cpt=tree.latent[i])
    for i, c in enumerate(columns):
        G.add_node(c, states=list(passes.states[i]), cpt=tree.emission[i])
    G.add_edges_from((names[p], names[i]) for i, p in enumerate(tree.parent) if p >= 0)
    G.add_edges_from(zip(names, columns))
    dtypes = dict(zip(columns, passes.dtypes)) if passes.dtypes else None
    return TreeModel(
        G, variables=[*names, *columns], dtypes=dtypes, n_rows=passes.n_rows, settings=settings
    )


# ---------------------------------------------------------------------- the loop
def _run(
    tree: LatentTree,
    *,
    passes: RowPasses,
    valid: np.ndarray | None,
    alpha: float,
    tied: bool,
    schedule: EMSchedule,
) -> EMRun:
    """One EM run from ``tree`` (:func:`~treelearn.learners._density.em_run`): the start
    scored first, ``max_iter`` M-steps at most, the last model scored without statistics."""

    def e_step(tree: LatentTree) -> tuple[float, _Expected]:
        expected = passes.sum(_EStep(tree))
        return expected.log_likelihood / expected.weight, expected

    def score_only(tree: LatentTree) -> float:
        total, weight = passes.sum(_Scores(tree))
        return total / weight

    return em_run(
        tree,
        e_step,
        lambda expected, tree: _m_step(tree, expected, alpha, tied),
        schedule,
        n_steps=schedule.max_iter + 1,
        valid_score=None if valid is None else lambda tree: _mean_score(tree, valid),
        score_only=score_only,
    )


def _mean_score(tree: LatentTree, codes: np.ndarray) -> float:
    return float(np.mean(tree.engine().log_evidence(_joint_codes(codes))))


# ---------------------------------------------------------------------- hidden Markov models
class HiddenMarkovModel(HiddenTree):
    """A hidden Markov model over sequences of fixed length: one column per time step, a
    chain of latents (``P(h_1) prod_t P(h_t | h_{t-1})``, ``P(x_t | h_t)``), learned by the
    same exact EM as :class:`HiddenTree` (on a chain it is Baum-Welch).

    ``tied=True`` (default): one transition matrix and one emission matrix for every time
    step (hmmlearn's ``CategoricalHMM``; every column then has the states of all columns
    together); ``tied=False``: each step its own, a :class:`HiddenTree` with
    ``structure="chain"``. ``startprob_init``, ``transmat_init`` and ``emissionprob_init``
    give the start (all three, tied); otherwise ``n_init`` random starts.

    Parameters
    ----------
    n_states : int, default=2
        The latents' number of states.
    tied : bool, default=True
        One transition and one emission matrix for every step (else each its own).
    alpha : float, default=1.0
        Lidstone pseudocount added to the expected counts (0 = maximum likelihood).
    max_iter : int, default=100
        Most EM iterations per start.
    tol : float, default=1e-4
        Stop when the mean log-likelihood per row changes by less than this.
    n_init : int, default=1
        Random starts; the best is kept.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the starts.
    startprob_init, transmat_init, emissionprob_init : array-like, default=None
        A given start (all three; tied only), in hmmlearn's shapes.
    states : dict, default=None
        As :class:`HiddenTree`'s.
    missing : {"error", "drop", "em"}, default="error"
        As :class:`HiddenTree`'s.
    max_states : int, default=100
        As :class:`HiddenTree`'s.
    n_iter_no_change : int, default=5
        As :class:`HiddenTree`'s.
    n_jobs : int, default=None
        As :class:`HiddenTree`'s.
    progress : bool, default=False
        As :class:`HiddenTree`'s.
    chunksize : int, default=None
        As :class:`HiddenTree`'s.

    Attributes
    ----------
    startprob_ : ndarray
        ``P(h_1)``, shape ``(h,)`` (besides :class:`HiddenTree`'s attributes).
    transmat_ : ndarray
        ``P(h_t | h_{t-1})``: shape ``(h, h)`` tied, ``(T - 1, h, h)`` untied.
    emissionprob_ : ndarray or list of ndarray
        ``P(x_t | h_t)``: shape ``(h, k)`` tied, a list of ``(h, k_t)`` untied.

    See Also
    --------
    HiddenTree : the latents a tree rather than a chain.

    References
    ----------
    .. [1] Rabiner, L. R. (1989). A tutorial on hidden Markov models and selected
       applications in speech recognition. Proceedings of the IEEE 77(2), 257-286.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> seqs = pd.DataFrame(rng.integers(0, 3, size=(200, 5)), columns=[f"t{i}" for i in range(5)])
    >>> hmm = tl.HiddenMarkovModel(n_states=2, random_state=0).fit(seqs)
    >>> hmm.transmat_.shape, hmm.emissionprob_.shape
    ((2, 2), (2, 3))
    """

    def __init__(
        self,
        n_states: int = 2,
        tied: bool = True,
        alpha: float = 1.0,
        max_iter: int = 100,
        tol: float = 1e-4,
        n_init: int = 1,
        random_state: int | np.random.Generator | None = None,
        startprob_init: Any = None,
        transmat_init: Any = None,
        emissionprob_init: Any = None,
        states: Mapping[Hashable, Sequence] | None = None,
        missing: str = "error",
        max_states: int = DEFAULT_MAX_STATES,
        n_iter_no_change: int = 5,
        n_jobs: int | None = None,
        progress: bool = False,
        chunksize: int | None = None,
    ) -> None:
        self.n_states = n_states
        self.tied = tied
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.random_state = random_state
        self.startprob_init = startprob_init
        self.transmat_init = transmat_init
        self.emissionprob_init = emissionprob_init
        self.states = states
        self.missing = missing
        self.max_states = max_states
        self.n_iter_no_change = n_iter_no_change
        self.n_jobs = n_jobs
        self.progress = progress
        self.chunksize = chunksize

    _parameter_constraints: ClassVar[dict] = {
        **{
            k: v
            for k, v in HiddenTree._parameter_constraints.items()
            if k not in ("init", "structure", "mi_alpha")
        },
        "tied": [BOOLEAN],
        "startprob_init": [None, InstanceOf(list, tuple, np.ndarray, name="an array")],
        "transmat_init": [None, InstanceOf(list, tuple, np.ndarray, name="an array")],
        "emissionprob_init": [None, InstanceOf(list, tuple, np.ndarray, name="an array")],
    }
    startprob_: np.ndarray
    transmat_: np.ndarray
    #: one ``(h, k)`` array tied; untied, one ``(h, k_t)`` array per step (their states differ)
    emissionprob_: np.ndarray | list[np.ndarray]

    @property
    def _tied(self) -> bool:  # type: ignore[override]
        return bool(self.tied)

    def _checked_params(self) -> dict:
        params = super()._checked_params()
        params.update(init="random", structure="chain", mi_alpha=None)
        given = [
            params[k] is not None for k in ("startprob_init", "transmat_init", "emissionprob_init")
        ]
        if any(given) and not all(given):
            raise TreelearnError(
                "startprob_init, transmat_init and emissionprob_init go "
                "together: give all three, or none for random starts"
            )
        return params

    def _passes(self, X: Any, params: dict, sample_weight: Any) -> RowPasses:
        passes = super()._passes(X, params, sample_weight)
        if not params["tied"] or len(set(passes.states)) <= 1:
            return passes
        # tied emissions: every step has every step's states
        _check_poolable(passes)
        union = state_order(pd.Series([s for states in passes.states for s in states]).unique())
        given = {c: list(union) for c in passes.columns}
        return super()._passes(X, {**params, "states": given}, sample_weight)

    def _start(
        self,
        passes: RowPasses,
        parent: np.ndarray,
        tree: TreeModel | None,
        params: dict,
        rng: np.random.Generator,
    ) -> LatentTree:
        if params["startprob_init"] is None:
            return super()._start(passes, parent, tree, params, rng)
        h, d = params["n_states"], len(passes.columns)
        start = _distribution("startprob_init", params["startprob_init"], (h,))
        if params["tied"]:
            trans = [_distribution("transmat_init", params["transmat_init"], (h, h))] * (d - 1)
            emit = [
                _distribution(
                    "emissionprob_init",
                    params["emissionprob_init"],
                    (h, int(passes.cardinalities[0])),
                )
            ] * d
        else:
            trans = list(_distribution("transmat_init", params["transmat_init"], (d - 1, h, h)))
            emit = [
                _distribution("emissionprob_init", e, (h, int(k)))
                for e, k in zip(_per_step(params["emissionprob_init"], d), passes.cardinalities)
            ]
        return LatentTree(parent, [start, *trans], emit)

    def fit(
        self, X: Any, y: Any = None, sample_weight: Any = None, *, validation: Any = None
    ) -> HiddenMarkovModel:
        """Learn by Baum-Welch (as :meth:`treelearn.HiddenTree.fit`); returns self."""
        super().fit(X, y, sample_weight, validation=validation)
        self._set_matrices()
        return self

    def _restore_fitted(self, saved: SavedState) -> None:
        super()._restore_fitted(saved)
        self._set_matrices()

    def _set_matrices(self) -> None:
        network, names = self.model_.network, self.model_.latent
        self.startprob_ = network.cpt(names[0])
        transitions = [network.cpt(v) for v in names[1:]]
        emissions = [network.cpt(c) for c in self.model_.variables]
        if self.tied:
            self.transmat_ = transitions[0] if transitions else np.eye(self.n_states)
            self.emissionprob_ = emissions[0]
        else:
            self.transmat_ = np.array(transitions).reshape(-1, self.n_states, self.n_states)
            self.emissionprob_ = emissions


def _check_poolable(passes: RowPasses) -> None:
    """Tied emissions give every step the states of all steps; a boolean step's ``True``
    and a numeric step's ``1`` are equal (and hash alike), so pooled they would be one
    state and neither step's data would encode: refused, naming both columns."""
    booleans = [c for c, st in zip(passes.columns, passes.states) if _has_bool(st)]
    numbers = [
        c
        for c, st in zip(passes.columns, passes.states)
        if any(
            not _is_bool(s) and isinstance(s, (int, float, np.number)) and s in (0, 1) for s in st
        )
    ]
    if booleans and numbers:
        raise TreelearnError(
            f"tied=True gives every column the states of all columns, but {booleans[0]!r} "
            f"holds booleans and {numbers[0]!r} the numbers 0/1, which would be one state "
            f"(True == 1): give the columns one type (e.g. df.astype(int)), or tied=False",
            column=numbers[0],
        )


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


def _has_bool(states: Sequence) -> bool:
    return any(_is_bool(s) for s in states)


def _per_step(values: Any, d: int) -> list:
    values = list(values)
    if len(values) != d:
        raise TreelearnError(
            f"emissionprob_init must hold one (n_states x k) matrix per "
            f"column ({d}), not {len(values)}"
        )
    return values


def _distribution(name: str, values: Any, shape: tuple) -> np.ndarray:
    """A given start table: its shape, finite non-negative values, rows summing to 1."""
    try:
        table = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TreelearnError(f"{name} must be an array of probabilities") from None
    if table.shape != shape:
        raise TreelearnError(f"{name} has shape {table.shape}; expected {shape}")
    if (
        not np.isfinite(table).all()
        or (table < 0).any()
        or not np.allclose(table.sum(axis=-1), 1.0, atol=1e-9)
    ):
        raise TreelearnError(f"{name} must hold probabilities >= 0 whose rows sum to 1")
    return table
