"""Bagged mixtures of trees: mixtures learned on bootstrap samples, averaged.

``P(x) = (1 / B) sum_b M_b(x)``, each ``M_b`` a :class:`~treelearn.TreeMixture` learned on a
bootstrap sample of the rows: itself a mixture of trees, of ``B x k`` components with
weights ``w_bk / B``, so it is a fitted :class:`~treelearn.TreeMixture` (scores, exact
marginals, sampling, files, drawing). Averaging over samples lowers the variance of each
mixture's trees, which is what hurts one tree or mixture most on small tables (Ammar,
Leray, Schnitzler & Wehenkel's bagged Chow-Liu trees, 2009-2010; with ``n_components=1``
this is their bag of trees). The bootstrap samples are drawn as integer row weights over
the distinct rows (no copy of the data).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from numbers import Integral, Real
from typing import Any, ClassVar, cast

import numpy as np

from .._base.limits import check_memory
from .._base.logspace import logsumexp
from .._base.persistence import SavedState
from .._base.validation import Interval
from ..encoding._table import DEFAULT_MAX_STATES, Table
from ..models._mixture import MixtureModel, weighted_log_likelihoods
from ..sources._passes import InMemoryRows
from ._density import EMRun, run_starts
from ._mixture import TreeMixture

__all__ = ["BaggedTrees", "bootstrap_weights"]


def bootstrap_weights(weights: np.ndarray, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """A bootstrap sample as row weights: ``round(fraction * total weight)`` draws with
    replacement, each row drawn with probability proportional to its weight (a merged row
    of ``m`` identical rows, ``m`` times as often).

    >>> rng = np.random.default_rng(0)
    >>> bootstrap_weights(np.array([3.0, 1.0]), 1.0, rng).tolist()   # 4 draws: P = 0.75, 0.25
    [3.0, 1.0]
    >>> bootstrap_weights(np.array([3.0, 1.0]), 0.5, rng).sum()
    np.float64(2.0)
    """
    size = max(1, round(fraction * float(weights.sum())))
    return rng.multinomial(size, weights / weights.sum()).astype(float)


def _check_bag_memory(params: dict, table: Table) -> None:
    """Before the draws: every bootstrap draw (one weight per merged row, all drawn first),
    the bag's log-likelihoods (merged rows x every member's components) and the members'
    pair counts (``(sum of states)^2`` per component)."""
    b = int(params["n_estimators"])
    k = int(np.max(np.atleast_1d(params["n_components"])))
    m = table.codes.shape[0]
    pairs = float(np.sum(table.cardinalities)) ** 2
    check_memory(
        8.0 * b * (m + k * (m + pairs)),
        f"BaggedTrees(n_estimators={b}) of {k}-component mixtures on {m} distinct rows",
        "give fewer n_estimators",
    )


class BaggedTrees(TreeMixture):
    """A bag of ``n_estimators`` tree mixtures, each learned on a bootstrap sample of the
    rows, averaged with equal weights; the fitted bag is a :class:`~treelearn.TreeMixture`
    of every member's components.

    Parameters
    ----------
    n_estimators : int, default=10
        The number of bootstrap samples (mixtures) averaged.
    n_components : int or sequence of int, default=1
        Each member's number of trees (1: a bag of Chow-Liu trees), or several
        to choose from on ``validation=`` data, per member.
    max_samples : float, default=1.0
        Each bootstrap sample's size, as a fraction of the rows.
    n_jobs : int, default=None
        Joblib workers learning the members in parallel (the samples are drawn first:
        the same bag whatever it is).
    alpha : float, default=1.0
        As :class:`~treelearn.TreeMixture`'s, for every member.
    max_iter : int, default=100
        As :class:`~treelearn.TreeMixture`'s, for every member.
    tol : float, default=0.0001
        As :class:`~treelearn.TreeMixture`'s, for every member.
    n_init : int, default=1
        As :class:`~treelearn.TreeMixture`'s, for every member.
    init : str, default="random"
        As :class:`~treelearn.TreeMixture`'s, for every member.
    random_state : int, numpy.random.Generator or None, default=None
        As :class:`~treelearn.TreeMixture`'s, for every member.
    mi_alpha : float, default=None
        As :class:`~treelearn.TreeMixture`'s, for every member.
    states : dict, default=None
        As :class:`~treelearn.TreeMixture`'s, for every member.
    missing : {"error", "drop", "em"}, default="error"
        As :class:`~treelearn.TreeMixture`'s, for every member.
    max_states : int, default=100
        As :class:`~treelearn.TreeMixture`'s, for every member.
    n_iter_no_change : int, default=5
        As :class:`~treelearn.TreeMixture`'s, for every member.
    progress : bool, default=False
        As :class:`~treelearn.TreeMixture`'s, for every member.

    Attributes
    ----------
    model_ : the bag, a :class:`~treelearn.MixtureModel` of every member's trees.
    components_, weights_ : every member's trees and their weights ``w_bk / B``.
    members_ : ``[(first component, number of components)]`` of each member in them.

    See Also
    --------
    TreeMixture : one mixture, by EM.
    CutsetNetwork : bagged cutset networks.

    References
    ----------
    .. [1] Breiman, L. (1996). Bagging predictors. Machine Learning 24(2), 123-140.
    .. [2] Ammar, S., Leray, P., Defourny, B. and Wehenkel, L. (2009). Probability density
       estimation by perturbing and combining tree structured Markov networks. In
       Symbolic and Quantitative Approaches to Reasoning with Uncertainty (ECSQARU),
       156-167.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> bag = tl.BaggedTrees(n_estimators=4, random_state=0).fit(df)
    >>> len(bag.components_), round(float(bag.weights_.sum()), 6)
    (4, 1.0)
    """

    def __init__(
        self,
        n_estimators: int = 10,
        n_components: int | Sequence[int] = 1,
        max_samples: float = 1.0,
        alpha: float = 1.0,
        max_iter: int = 100,
        tol: float = 1e-4,
        n_init: int = 1,
        init: str = "random",
        random_state: int | np.random.Generator | None = None,
        mi_alpha: float | None = None,
        states: Mapping[Hashable, Sequence] | None = None,
        missing: str = "error",
        max_states: int = DEFAULT_MAX_STATES,
        n_iter_no_change: int = 5,
        n_jobs: int | None = None,
        progress: bool = False,
    ) -> None:
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        super().__init__(
            n_components=n_components,
            alpha=alpha,
            max_iter=max_iter,
            tol=tol,
            n_init=n_init,
            init=init,
            random_state=random_state,
            mi_alpha=mi_alpha,
            states=states,
            missing=missing,
            max_states=max_states,
            n_iter_no_change=n_iter_no_change,
            n_jobs=n_jobs,
            progress=progress,
        )

    _parameter_constraints: ClassVar[dict] = {
        **TreeMixture._parameter_constraints,
        "n_estimators": [Interval(Integral, 1, None)],
        "max_samples": [Interval(Real, 0, 1, closed="right")],
    }

    def fit(
        self, X: Any, y: Any = None, sample_weight: Any = None, *, validation: Any = None
    ) -> BaggedTrees:
        """Learn every member on its bootstrap sample of ``X``'s rows; returns self."""
        params = self._checked_params()
        # in memory, identical rows merged: each bootstrap sample is row weights over them
        passes = cast(InMemoryRows, self._passes(X, params, sample_weight))
        table = passes.table
        assert table is not None  # rows in memory
        rng = np.random.default_rng(params["random_state"])
        w = np.ones(table.n_rows) if table.weights is None else table.weights
        _check_bag_memory(params, table)
        samples = []
        for _ in range(params["n_estimators"]):  # every draw first, in order
            drawn = bootstrap_weights(w, params["max_samples"], rng)
            samples.append((drawn, int(rng.integers(2**63))))
        member = {
            k: v for k, v in self.get_params().items() if k in TreeMixture._parameter_constraints
        }
        member.update(n_jobs=None, progress=params["progress"], chunksize=None)

        def one(sample: tuple) -> TreeMixture:
            drawn, seed = sample
            keep = drawn > 0
            rows = Table(table.codes[keep], table.columns, table.states, table.dtypes, drawn[keep])
            return TreeMixture(**{**member, "random_state": seed}).fit(rows, validation=validation)

        members = run_starts(one, samples, params["n_jobs"])
        B = len(members)
        components = [c for m in members for c in m.components_]
        weights = np.concatenate([m.weights_ / B for m in members])
        self.model_ = MixtureModel(components, weights)
        self.members_ = []
        start = 0
        for m in members:
            self.members_.append((start, len(m.components_)))
            start += len(m.components_)
        # the bag's own training log-likelihood per row
        log_prob = weighted_log_likelihoods(components, weights, table.codes)
        bound = float(w @ logsumexp(log_prob, axis=1) / w.sum())
        self._set_history(EMRun(self.model_, [bound], None, all(m.converged_ for m in members)))
        self.n_iter_ = max(m.n_iter_ for m in members)
        self.n_components_scores_ = None
        self._set_features(passes.columns)
        return self

    def _fitted_state(self) -> dict:
        """The mixture's parts, and where each member's components are."""
        return {**super()._fitted_state(), "members": [list(m) for m in self.members_]}

    def _restore_fitted(self, saved: SavedState) -> None:
        super()._restore_fitted(saved)
        members = saved.array("members", (None, 2), dtype=np.int64, low=0)
        if (
            len(members) != self.n_estimators
            or members[:, 1].sum() != len(self.components_)
            or (members[:, 0] != np.concatenate([[0], np.cumsum(members[:, 1])[:-1]])).any()
        ):
            raise saved.fail(
                "members",
                "must list each member's first component and size, "
                "in order, covering the components",
            )
        self.members_ = [(int(first), int(size)) for first, size in members]
