"""Hidden Chow-Liu trees (HCLT) and hidden Markov models, learned by exact EM.

A hidden tree has one latent variable ``H_i`` of ``h`` states per observed column
``X_i``: the latents form a tree (``P(H_root) prod P(H_c | H_p)``) and each column
depends on its own latent only (``P(X_i | H_i)``), so the joint model over latents and
columns is one tree, a :class:`~treelearn.models._tree.TreeModel` of ``2d`` nodes,
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
from numbers import Integral, Real
from typing import Any, ClassVar, cast

import networkx as nx
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils.validation import check_is_fitted

from .._base.errors import ColumnNotFoundError, StructureError, TreelearnError
from .._base.jsonvalues import encode_label, json_value
from .._base.persistence import Persistent, SavedState
from .._base.validation import BOOLEAN, RANDOM_STATE, InstanceOf, Interval, Options, check_params
from ..encoding._table import (
    DEFAULT_MAX_STATES,
    CategoricalTableInput,
    encode,
    state_order,
)
from ..inference._engine import TreeEngine, decode_codes
from ..models._base import Capable
from ..models._tree import TreeModel
from ..sources._kinds import as_frame, match_features
from ..sources._passes import RowPasses, row_passes
from ..stats._parameters import estimate_cpt
from ..stats._settings import LearningSettings
from ..structure._trees import orient
from ._chow_liu import build_model, chow_liu_from_counts
from ._density import N_JOBS, DensityScores, EarlyStopping, most_probable, progress_bar

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
        parents = {i: ([] if self.parent[i] < 0 else [int(self.parent[i])]) for i in range(d)}
        parents.update({d + i: [i] for i in range(d)})
        cpts = {i: self.latent[i] for i in range(d)}
        cpts.update({d + i: self.emission[i] for i in range(d)})
        states = {i: range(h) for i in range(d)}
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
    latent, emission = [None] * d, [None] * d
    marginals = {c: m.to_numpy() for c, m in tree.engine().marginals().items()}
    for c in columns:
        i = index[c]
        k = cards[i]
        cpt = tree.cpt(c)
        tree_parent = tree.parents(c)
        p = -1 if not tree_parent else index[tree_parent[0]]
        if group[i] is None:  # fewer latent than observed states
            marginal = marginals[c]
            emission[i] = _normalised(marginal[None] * rng.lognormal(0, _TREE_NOISE, (h, k)))
            latent[i] = (
                _normalised(rng.lognormal(0, _TREE_NOISE, h))
                if parent[i] < 0
                else _normalised(rng.lognormal(0, _TREE_NOISE, (h, h)))
            )
            continue
        g = group[i]
        share = np.bincount(g, minlength=k)[g]  # latent states per observed state
        emission[i] = (1 - _TREE_SPILL) * np.eye(k)[g] + _TREE_SPILL / k
        if parent[i] < 0:
            marginal = marginals[c] if tree_parent else cpt
            latent[i] = _normalised(marginal[g] / share * rng.lognormal(0, _TREE_NOISE, h))
        elif p >= 0 and group[p] is not None and parent[i] == p:
            latent[i] = _normalised(
                cpt[np.ix_(group[p], g)] / share * rng.lognormal(0, _TREE_NOISE, (h, h))
            )
        else:
            marginal = marginals[c]
            latent[i] = _normalised(
                np.broadcast_to(marginal[g] / share, (h, h)) * rng.lognormal(0, _TREE_NOISE, (h, h))
            )
    return LatentTree(parent, latent, emission)


def _normalised(table: np.ndarray) -> np.ndarray:
    return table / table.sum(axis=-1, keepdims=True)


# ---------------------------------------------------------------------- the estimator
class HiddenTree(
    Persistent, Capable, DensityScores, CategoricalTableInput, DensityMixin, BaseEstimator
):
    """A hidden Chow-Liu tree: one latent variable of ``n_states`` states per column, the
    latents a tree (by default the Chow-Liu tree of the columns), learned by exact EM.

    ``P(x) = sum_h P(h_root) prod_c P(h_c | h_parent(c)) prod_i P(x_i | h_i)``. With one
    latent state it is the independence model; each further state lets the tree carry
    more than the pairwise dependences a Chow-Liu tree can (Liu & Van den Broeck 2021).
    ``model_`` is the fitted joint tree over latents and columns (a
    :class:`~treelearn.models._tree.TreeModel`): its queries, posteriors, sampling,
    drawing and explorer page work as for any tree.

    Parameters
    ----------
    n_states : ``h``, the latent variables' number of states (>= 1).
    alpha : Lidstone pseudocount of every CPT, added to the expected counts (0 = maximum
        likelihood: then the training log-likelihood never decreases). The default 1 is
        strong for many latent states: on DEBD nltcs, ``n_states=16, alpha=0.01``
        reaches a test log-likelihood of -6.017 per row where ``n_states=8, alpha=1``
        stops at -6.064 (``benchmarks/bench_density.py``); choose it on held-out rows.
    max_iter : most EM iterations per start.
    tol : stop when the mean log-likelihood per row changes by less than this.
    n_init : number of starts; the best (on ``validation`` when given, else on the
        training rows) is kept. ``n_jobs`` runs them in parallel (joblib), with the same
        results.
    init : ``"tree"`` (default): start at the Chow-Liu tree of the columns, each observed
        state split into ``h / k`` latent states told apart by a seeded perturbation (so
        EM starts near a single tree's likelihood); ``"random"``: every CPT row from a flat
        Dirichlet distribution.
    structure : ``None`` (default): the latent tree is the Chow-Liu tree of the columns
        (``mi_alpha`` smoothing its MI); ``"chain"``: the columns in order (an HMM with
        untied parameters; see :class:`HiddenMarkovModel`); or a tree or forest over the
        columns (an ``nx.Graph``, rooted at its first node, or an ``nx.DiGraph``).
    random_state : int, ``np.random.Generator`` or None.
    mi_alpha : pseudocount of the pairwise joint the Chow-Liu tree is chosen from (as in
        :func:`treelearn.chow_liu`).
    states : optional ``{column: [states]}`` fixing some columns' states.
    missing : ``"error"``, ``"drop"``, or ``"em"`` (rows with missing cells are kept; the
        E-step sums their missing cells out with the latents). Scoring always sums missing
        cells out exactly.
    max_states : the most states a column may have.
    n_iter_no_change : with ``validation=`` in :meth:`fit`, stop after this many
        iterations without a better validation log-likelihood, and keep the best model.
    n_jobs : joblib workers for the ``n_init`` starts (None: one after the other).
    progress : show a progress bar over the iterations (needs tqdm).
    chunksize : ``None`` (default): a file is read whole and a Dask DataFrame computed (rows
        held in memory, identical ones merged); a number: a file is read that many rows at
        a time at every iteration (memory flat in its rows), a Dask DataFrame summarised
        on its workers at every iteration.

    Attributes
    ----------
    model_ : the joint :class:`~treelearn.models._tree.TreeModel`, latents first.
    latent_names_ : the latent variables' names in ``model_`` (``H_<column>``), in column order.
    lower_bound_, lower_bounds_ : the mean training log-likelihood per row of the kept
        model, and after every iteration of its run (the start first).
    validation_scores_ : the mean validation log-likelihood after every iteration (with
        ``validation=``), else None.
    n_iter_, converged_ : the kept run's iterations and whether it converged.
    feature_names_in_, n_features_in_ : the columns learned from.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> hidden = tl.HiddenTree(n_states=2, random_state=0).fit(df)
    >>> len(hidden.model_.variables), hidden.latent_names_[0]
    (16, 'H_asia')
    >>> bool(hidden.score(df) >= tl.chow_liu(df).log_likelihood(df) / len(df) - 0.01)
    True
    >>> all(b <= a + 1e-9 for b, a in zip(hidden.lower_bounds_, hidden.lower_bounds_[1:]))
    True
    """

    #: what a fitted hidden tree answers about its columns (the latents summed out; the
    #: most probable completion is not declared: the joint tree's is over the latents too)
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
        n_states: int = 8,
        alpha: float = 1.0,
        max_iter: int = 100,
        tol: float = 1e-4,
        n_init: int = 1,
        init: str = "tree",
        structure: Any = None,
        random_state: int | np.random.Generator | None = None,
        mi_alpha: float | None = None,
        states: Mapping[Hashable, Sequence] | None = None,
        missing: str = "error",
        max_states: int = DEFAULT_MAX_STATES,
        n_iter_no_change: int = 5,
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = False  # missing="error" by default
        return tags

    # ------------------------------------------------------------ options
    _parameter_constraints: ClassVar[dict] = {
        "n_states": [Interval(Integral, 1, None)],
        "alpha": [Interval(Real, 0, None)],
        "max_iter": [Interval(Integral, 0, None)],
        "tol": [Interval(Real, 0, None)],
        "n_init": [Interval(Integral, 1, None)],
        "init": [Options("tree", "random")],
        "structure": [
            None,
            Options("chain"),
            InstanceOf(nx.Graph, name="an nx.Graph or nx.DiGraph"),
        ],
        "random_state": RANDOM_STATE,
        "mi_alpha": [None, Interval(Real, 0, None)],
        "states": [None, InstanceOf(Mapping, name="a dict {column: [states]}")],
        "missing": [Options("error", "drop", "em")],
        "max_states": [Interval(Integral, 1, None)],
        "n_iter_no_change": [Interval(Integral, 1, None)],
        "n_jobs": N_JOBS,
        "progress": [BOOLEAN],
        "chunksize": [None, Interval(Integral, 1, None)],
    }
    _parameter_notes: ClassVar[dict] = {
        "alpha": "0 = maximum likelihood, 1 = Laplace",
        "structure": "None = the Chow-Liu tree of the columns, 'chain' = the columns in order",
        "missing": "'em' keeps rows with missing cells; scoring sums missing cells out "
        "whatever this is",
    }
    #: tied parameters (one transition and one emission table): HiddenMarkovModel's option
    _tied = False

    def _checked(self) -> dict:
        return check_params(self.get_params(), self._parameter_constraints, self._parameter_notes)

    # ------------------------------------------------------------ fitting
    def fit(
        self, X: Any, y: Any = None, sample_weight: Any = None, *, validation: Any = None
    ) -> HiddenTree:
        """Learn the hidden tree by EM from the rows of ``X`` (``y`` is ignored); returns self.

        ``X``: a DataFrame, a CSV/Parquet path, a Dask DataFrame (with ``chunksize``: read
        in chunks / summarised on its workers at every iteration), a ``scipy.sparse`` 0/1
        matrix or a 2-D array. ``sample_weight``: one
        weight per row, or the name of the weight column of a file or Dask DataFrame.
        ``validation``: held-out rows (a DataFrame with the same columns): EM stops once
        their log-likelihood has not improved for ``n_iter_no_change`` iterations and
        the best model on them is kept.
        """
        params = self._checked()
        passes = self._passes(X, params, sample_weight)
        valid = None if validation is None else self._validation_codes(validation, passes)
        rng = np.random.default_rng(params["random_state"])
        tree = None  # the Chow-Liu tree of the columns: the latent tree, or the start
        if params["structure"] is None or (params["init"] == "tree" and not self._tied):
            settings = LearningSettings(
                method="hidden tree start", alpha=params["alpha"], mi_alpha=params["mi_alpha"]
            )
            tree = chow_liu_from_counts(passes.counts, settings)
        structure = tree.graph if params["structure"] is None else params["structure"]
        parent = _structure_parents(structure, passes.columns)
        starts = [self._start(passes, parent, tree, params, rng) for _ in range(params["n_init"])]
        runs = _run_all(starts, passes, valid, params, self._tied)
        best = max(runs, key=lambda r: r["valid"] if valid is not None else r["lower_bound"])
        self._set_fitted(best, passes, params)
        return self

    def _passes(self, X: Any, params: dict, sample_weight: Any) -> RowPasses:
        return row_passes(
            X,
            learner=type(self).__name__,
            missing=params["missing"],
            max_states=params["max_states"],
            states=params["states"],
            sample_weight=sample_weight,
            chunksize=params["chunksize"],
        )

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
            return _tree_start(tree, passes.columns, parent, h, rng)
        return _random_tree(parent, passes.cardinalities, h, rng, self._tied)

    def _validation_codes(self, validation: Any, passes: RowPasses) -> np.ndarray:
        frame = as_frame(validation, list(passes.columns), learner=type(self).__name__)
        absent = [c for c in passes.columns if c not in frame.columns]
        if absent:
            raise ColumnNotFoundError(f"validation= lacks the columns {absent}", column=absent[0])
        return encode(
            frame[list(passes.columns)],
            missing="pairwise",
            states=dict(zip(passes.columns, passes.states)),
            max_states=np.iinfo(np.int64).max,
        ).codes

    def _set_fitted(self, run: dict, passes: RowPasses, params: dict) -> None:
        self.latent_names_ = latent_names(passes.columns)
        self.model_ = _joint_model(
            run["tree"],
            passes,
            self.latent_names_,
            {
                "method": type(self).__name__,
                "n_states": params["n_states"],
                "alpha": params["alpha"],
                "missing": params["missing"],
            },
        )
        self.lower_bound_ = run["lower_bound"]
        self.lower_bounds_ = run["lower_bounds"]
        self.validation_scores_ = run["valid_scores"]
        self.n_iter_ = run["n_iter"]
        self.converged_ = run["converged"]
        self.feature_names_in_ = np.asarray(passes.columns, dtype=object)
        self.n_features_in_ = len(passes.columns)

    # ------------------------------------------------------------ scoring
    def _codes(self, X: Any) -> np.ndarray:
        """The joint tree's codes of ``X``'s rows (latents missing; missing cells -1)."""
        check_is_fitted(self)
        frame = as_frame(
            match_features(
                X,
                names=self.feature_names_in_,
                n_features=self.n_features_in_,
                estimator=type(self).__name__,
            ),
            self.feature_names_in_,
            learner=type(self).__name__,
        )
        columns = list(self.feature_names_in_)
        states = self.model_.states
        codes = encode(
            frame[columns],
            missing="pairwise",
            states={c: states[c] for c in columns},
            max_states=np.iinfo(np.int64).max,
        ).codes
        return _joint_codes(codes)

    def score_samples(self, X: Any) -> np.ndarray:
        """Log-likelihood of each row (nats); missing cells are summed out exactly."""
        return self.model_.engine().log_evidence(self._codes(X))

    @property
    def n_parameters(self) -> int:
        """Free parameters of the CPTs (tied tables counted once)."""
        check_is_fitted(self)
        return self.model_.n_parameters

    def predict_proba(self, X: Any, target: Hashable) -> pd.DataFrame:
        """``P(target | the row's other observed values)`` for every row (a DataFrame, one
        column per state of ``target``): exact, the latents summed out."""
        check_is_fitted(self)
        if target not in list(self.feature_names_in_):
            raise ColumnNotFoundError(
                f"{target!r} is not a column of the model; the columns "
                f"are {list(self.feature_names_in_)}",
                column=target,
            )
        frame = as_frame(X, list(self.feature_names_in_), learner=type(self).__name__)
        return self.model_.predict_proba(frame, target)

    def predict(self, X: Any, target: Hashable | None = None) -> pd.DataFrame | pd.Series:
        """``X`` with every missing cell filled by its most probable state given the row's
        observed cells (each cell's exact marginal; ties to the first state). With
        ``target`` (a column), its most probable state in every row given the row's other
        observed cells (the argmax of :meth:`predict_proba`), a Series.

        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> hidden = tl.HiddenTree(n_states=2, random_state=0).fit(df)
        >>> holed = df.head(3).copy()
        >>> holed.loc[0, "either"] = np.nan
        >>> hidden.predict(holed).notna().all().all()
        np.True_
        """
        if target is not None:
            return most_probable(self.predict_proba(X, target), target)
        codes = self._codes(X)
        d = self.n_features_in_
        columns = list(self.feature_names_in_)
        frame = as_frame(X, columns, learner=type(self).__name__)
        missing = codes[:, d:] < 0
        if missing.any():
            marginals = self.model_.engine().marginals_codes(codes)
            for j in np.flatnonzero(missing.any(axis=0)):
                rows = missing[:, j]
                best = np.argmax(np.nan_to_num(marginals[d + j][rows], nan=-1.0), axis=1)
                codes[rows, d + j] = best
        filled = decode_codes(
            codes[:, d:],
            columns,
            {c: self.model_.states[c] for c in columns},
            {c: self.model_.dtypes[c] for c in columns if c in self.model_.dtypes},
        )
        filled.index = frame.index
        return filled

    # ------------------------------------------------------------ sampling, pictures
    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
        return_latent: bool = False,
    ) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
        """Draw ``n`` rows of the columns, or exactly from ``P(. | evidence)`` (states of
        columns; the latents drawn from their posterior too), with ``return_latent=True``
        also their latent states: ``(rows, latents)``; ``numbers`` as in
        :meth:`TreeModel.sample <treelearn.models._tree.TreeModel.sample>`.

        >>> import pandas as pd, treelearn as tl
        >>> hidden = tl.HiddenTree(n_states=2, random_state=0).fit(pd.read_csv("datasets/asia.csv"))
        >>> hidden.sample(3, random_state=0).shape
        (3, 8)
        >>> set(hidden.sample(5, random_state=0, evidence={"smoke": "yes"})["smoke"])
        {'yes'}
        """
        check_is_fitted(self)
        both = self.model_.sample(
            n, random_state=random_state, evidence=self._given(evidence), numbers=numbers
        )
        rows = both[list(self.feature_names_in_)]
        return (rows, both[self.latent_names_]) if return_latent else rows

    def _given(self, evidence: Mapping[Hashable, Any] | None) -> dict:
        """Evidence on the columns (a latent is not evidence a user gives)."""
        evidence = dict(evidence or {})
        columns = set(self.feature_names_in_)
        unknown = [v for v in evidence if v not in columns]
        if unknown:
            raise ColumnNotFoundError(
                f"{unknown[0]!r} is not a column of the model; the columns are "
                f"{list(self.feature_names_in_)[:20]}",
                column=unknown[0],
            )
        return evidence

    # ------------------------------------------------------------ queries on the columns
    @property
    def variables(self) -> list:
        """The columns (the latents are not variables a user observes or asks for)."""
        check_is_fitted(self)
        return list(self.feature_names_in_)

    def query(
        self,
        variables: Sequence[Hashable] | Hashable,
        evidence: Mapping[Hashable, Any] | None = None,
    ) -> pd.Series:
        """Exact ``P(variables | evidence)`` of columns, the latents summed out (the joint
        tree's :meth:`~treelearn.models._tree.TreeModel.query`).

        >>> import pandas as pd, treelearn as tl
        >>> hidden = tl.HiddenTree(n_states=2, random_state=0).fit(pd.read_csv("datasets/asia.csv"))
        >>> round(float(hidden.query("lung", {"smoke": "yes"}).sum()), 12)
        1.0
        """
        check_is_fitted(self)
        names = (
            [variables] if isinstance(variables, (str, int)) else list(cast(Sequence, variables))
        )
        self._given(dict.fromkeys(names))  # a latent is not asked for either
        return self.model_.query(names, evidence=self._given(evidence))

    def marginals(self, evidence: Mapping[Hashable, Any] | None = None) -> dict:
        """``{column: P(column | evidence)}`` for every column not given, exactly."""
        check_is_fitted(self)
        every = self.model_.marginals(self._given(evidence))
        return {v: every[v] for v in self.feature_names_in_ if v in every}

    # ------------------------------------------------------------ text and pictures
    def to_text(self, digits: int = 4) -> str:
        """A headline, then the joint tree of latents and columns (``treelearn show``)."""
        check_is_fitted(self)
        state = "converged" if self.converged_ else "not converged"
        return (
            f"{type(self).__name__}: {self.n_features_in_} columns, each under a latent of "
            f"{self.n_states} states; EM {state} after {self.n_iter_} "
            f"iteration{'s' if self.n_iter_ != 1 else ''}\n" + self.model_.to_text(digits)
        )

    def draw(self, ax: Any = None, **kwargs: Any) -> Any:
        """The joint tree, latent nodes marked (see :func:`treelearn.viz._draw.draw`)."""
        check_is_fitted(self)
        kwargs.setdefault("latent", self.latent_names_)
        return self.model_.draw(ax, **kwargs)

    def to_dot(self, **kwargs: Any) -> str:
        """Graphviz DOT of the joint tree of latents and columns."""
        check_is_fitted(self)
        return self.model_.to_dot(**kwargs)

    def to_mermaid(self, **kwargs: Any) -> str:
        """A Mermaid flowchart of the joint tree of latents and columns."""
        check_is_fitted(self)
        return self.model_.to_mermaid(**kwargs)

    def to_html(self, path: Any = None, **kwargs: Any) -> str | None:
        """The joint tree as an interactive page (:meth:`TreeModel.to_html
        <treelearn.models._tree.TreeModel.to_html>`)."""
        check_is_fitted(self)
        return self.model_.to_html(path, **kwargs)

    # ------------------------------------------------------------ files
    def _fitted_state(self) -> dict:
        """The joint tree, the latents' names, the run's history.

        >>> import pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> hidden = tl.HiddenTree(n_states=2, random_state=0).fit(df)
        >>> back = tl.HiddenTree.from_dict(hidden.to_dict())
        >>> bool((back.score_samples(df) == hidden.score_samples(df)).all())
        True
        """
        return {
            "model": self.model_.to_dict(),
            "latent_names": [encode_label(v) for v in self.latent_names_],
            "lower_bounds": json_value([float(b) for b in self.lower_bounds_]),
            "validation_scores": (
                None
                if self.validation_scores_ is None
                else json_value([float(b) for b in self.validation_scores_])
            ),
            "n_iter": int(self.n_iter_),
            "converged": bool(self.converged_),
        }

    def _restore_fitted(self, saved: SavedState) -> None:
        """The joint tree checked (:meth:`TreeModel.from_dict`), then its shape: each column
        the one child of its own latent, latents of ``n_states`` states under latents."""
        model = TreeModel.from_dict(saved.raw("model", dict))
        names = saved.labels("latent_names")
        columns = list(getattr(self, "feature_names_in_", []))
        if len(names) != len(columns) or set(model.variables) != set(names) | set(columns):
            raise saved.fail(
                "latent_names", "must name one latent per feature, the model's other variables"
            )
        h = self.n_states
        for latent, column in zip(names, columns):
            if model.parents(column) != [latent]:
                raise saved.fail(
                    "model", f"column {column!r} must have its latent {latent!r} as its one parent"
                )
            if model.states[latent] != list(range(h)):
                raise saved.fail("model", f"latent {latent!r} must have the states 0..{h - 1}")
            if any(p not in names for p in model.parents(latent)) or len(model.parents(latent)) > 1:
                raise saved.fail(
                    "model", f"latent {latent!r} must have at most one parent, a latent"
                )
        self.model_, self.latent_names_ = model, names
        self.lower_bounds_ = saved.array("lower_bounds", (None,), finite=False).tolist()
        if not self.lower_bounds_:
            raise saved.fail("lower_bounds", "is empty")
        self.lower_bound_ = float(self.lower_bounds_[-1])
        scores = saved.state.get("validation_scores")
        self.validation_scores_ = (
            None
            if scores is None
            else saved.array("validation_scores", (None,), finite=False).tolist()
        )
        self.n_iter_ = saved.raw("n_iter", int)
        self.converged_ = bool(saved.raw("converged", bool))


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
def _run_all(
    starts: list, passes: RowPasses, valid: np.ndarray | None, params: dict, tied: bool
) -> list:
    if params["n_jobs"] is None or len(starts) == 1:
        return [_run(s, passes, valid, params, tied) for s in starts]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=params["n_jobs"])(
        delayed(_run)(s, passes, valid, params, tied) for s in starts
    )


def _run(
    tree: LatentTree, passes: RowPasses, valid: np.ndarray | None, params: dict, tied: bool
) -> dict:
    """One EM run from ``tree``: the kept model, its bound, the history."""
    bounds: list[float] = []
    stop = None if valid is None else EarlyStopping(params["n_iter_no_change"])
    converged = False
    with progress_bar(params["progress"], params["max_iter"], "hidden tree EM") as bar:
        for iteration in range(params["max_iter"] + 1):
            if iteration == params["max_iter"] and stop is None:  # no M-step follows: score only
                total, weight = passes.sum(_Scores(tree))
                bounds.append(total / weight)
                break
            expected = passes.sum(_EStep(tree))
            bounds.append(expected.log_likelihood / expected.weight)
            bar.update()
            bar.set_postfix_str(f"{bounds[-1]:.4f}")
            if not np.isfinite(bounds[-1]):
                break
            if stop is not None and stop.update(_mean_score(tree, valid), (tree, len(bounds))):
                break
            if len(bounds) > 1 and abs(bounds[-1] - bounds[-2]) < params["tol"]:
                converged = True
                break
            if len(bounds) > params["max_iter"]:
                break
            tree = _m_step(tree, expected, params["alpha"], tied)
    kept, n_kept = (tree, len(bounds)) if stop is None else stop.best
    return {
        "tree": kept,
        "lower_bound": bounds[n_kept - 1],
        "lower_bounds": bounds[:n_kept],
        "valid": None if stop is None else stop.best_score,
        "valid_scores": None if stop is None else stop.scores[:n_kept],
        "n_iter": n_kept - 1,
        "converged": converged,
    }


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

    Attributes (besides :class:`HiddenTree`'s)
    ----------
    startprob_ : ``P(h_1)``, ``(h,)``.
    transmat_ : ``P(h_t | h_{t-1})``: ``(h, h)`` tied, ``(T - 1, h, h)`` untied.
    emissionprob_ : ``P(x_t | h_t)``: ``(h, k)`` tied, a list of ``(h, k_t)`` untied.

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
        "startprob_init": [None, InstanceOf((list, tuple, np.ndarray), name="an array")],
        "transmat_init": [None, InstanceOf((list, tuple, np.ndarray), name="an array")],
        "emissionprob_init": [None, InstanceOf((list, tuple, np.ndarray), name="an array")],
    }

    @property
    def _tied(self) -> bool:  # type: ignore[override]
        return bool(self.tied)

    def _checked(self) -> dict:
        params = super()._checked()
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

    def _set_fitted(self, run: dict, passes: RowPasses, params: dict) -> None:
        super()._set_fitted(run, passes, params)
        self._set_matrices()

    def _restore_fitted(self, saved: SavedState) -> None:
        super()._restore_fitted(saved)
        self._set_matrices()

    def _set_matrices(self) -> None:
        names = self.latent_names_
        self.startprob_ = self.model_.cpt(names[0])
        transitions = [self.model_.cpt(v) for v in names[1:]]
        emissions = [self.model_.cpt(c) for c in self.feature_names_in_]
        if self.tied:
            self.transmat_ = transitions[0] if transitions else np.eye(self.n_states)
            self.emissionprob_ = emissions[0]
        else:
            self.transmat_ = np.array(transitions).reshape(-1, self.n_states, self.n_states)
            self.emissionprob_ = emissions

    @property
    def n_parameters(self) -> int:
        """Free parameters (tied tables counted once)."""
        check_is_fitted(self)
        if not self.tied:
            return self.model_.n_parameters
        h = self.n_states
        k = self.emissionprob_.shape[1]
        steps = len(self.latent_names_)
        return (h - 1) + (h * (h - 1) if steps > 1 else 0) + h * (k - 1)


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
