"""``AutoDensity``: the density estimator that chooses among treelearn's discrete density
learners by the log-likelihood of validation rows, within a time budget.

The candidates (:data:`CANDIDATES`, cheapest first) are learned on the training rows, each
stopping its EM (or pruning its network, or choosing its number of components) on the
validation rows as the DEBD benchmark runs do (``benchmarks/bench_density.py``), and scored
by the mean log-likelihood per validation row. The candidate of the highest score (the
first in :data:`CANDIDATES` order on a tie at 12 decimals) answers for the estimator.

With the default candidates the two slow ones are ordered by what the cheap ones showed:
when the single cutset network's validation score is within :data:`CLOSE_TO_MIXTURE` nats
per row of the mixture's, the bagged cutset networks go before HCLT (on the DEBD table they
win exactly there: nltcs and plants; HCLT wins where one cutset network falls far behind
the mixture: jester, accidents, dna, ...), so that the likely winner starts within the budget.

The time budget is checked before each candidate starts: once ``time_budget`` seconds have
passed since ``fit`` began, no further candidate starts (the first always does), so a fit
ends at most one candidate's fit past the budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np

from .._base.errors import TreelearnError
from .._base.persistence import ESTIMATORS, SavedState
from .._base.validation import RANDOM_STATE, InstanceOf, Interval, Options
from ..encoding._table import DEFAULT_MAX_STATES, missing_fixed_by
from ..inference._engine import decode_codes
from ..models._base import ChosenCapabilities
from ..sources._count import in_memory_table
from ._bagging import BaggedTrees
from ._cutset import CutsetNetwork
from ._density import FORWARDED, DensityEstimator
from ._estimators import ChowLiuTree
from ._hidden_tree import HiddenTree
from ._mixture import TreeMixture

__all__ = ["CANDIDATES", "CLOSE_TO_MIXTURE", "PASSED_ON", "AutoDensity", "clock"]

#: the clock the budget is read from (seconds); tests replace it with a fake one
clock: Callable[[], float] = time.monotonic

#: each candidate by name: ``factory(states, n_rows, n_columns, random_state)``, an unfitted
#: estimator with the options of the DEBD runs (``benchmarks/bench_density.py``); the
#: cheapest first
CANDIDATES: dict[str, Callable[..., Any]] = {
    "ChowLiuTree": lambda states, n, d, seed: ChowLiuTree(alpha=1.0, mi_alpha=1.0, states=states),
    "CutsetNetwork": lambda states, n, d, seed: CutsetNetwork(
        max_depth=10,
        min_rows=max(50, n // 200),
        alpha=1.0,
        mi_alpha=1.0,
        states=states,
        random_state=seed,
    ),
    "TreeMixture": lambda states, n, d, seed: TreeMixture(
        n_components=range(2, 17), alpha=1.0, mi_alpha=1.0, states=states, random_state=seed
    ),
    "HiddenTree": lambda states, n, d, seed: HiddenTree(
        n_states=16 if d <= 200 else 8,
        alpha=0.01,
        init="random",
        max_iter=200,
        tol=1e-6,
        n_iter_no_change=10,
        mi_alpha=1.0,
        states=states,
        random_state=seed,
    ),
    "BaggedCutsetNetworks": lambda states, n, d, seed: CutsetNetwork(
        max_depth=8,
        min_rows=max(50, n // 200),
        n_estimators=10,
        alpha=1.0,
        mi_alpha=1.0,
        states=states,
        random_state=seed,
    ),
    "BaggedTrees": lambda states, n, d, seed: BaggedTrees(
        n_estimators=10,
        n_components=4,
        max_iter=40,
        alpha=1.0,
        mi_alpha=1.0,
        states=states,
        random_state=seed,
    ),
}


#: what a fitted AutoDensity answers where its chosen model does: every density
#: estimator's words (:data:`~treelearn.learners._density.FORWARDED`), and the model's
#: explanations and files (``to_pgmpy``, BIF/XMLBIF/UAI, pyAgrum: ``learn --method auto
#: --bif`` writes a chosen tree)
PASSED_ON = FORWARDED | {"explain", "to_pgmpy", "bif", "pyagrum"}


#: nats per validation row: a single cutset network this close to the mixture (or better)
#: puts the bagged cutset networks before HCLT. From the DEBD table
#: (``benchmarks/results/debd_density.jsonl``): mixture minus cutset is 0.001 on nltcs and
#: 0.080 on plants (bagged cutset networks best), 0.097 on tretail (HCLT and bagged mixtures
#: within 0.003), and 0.21 to 2.1 on the sets HCLT or the mixture wins (msweb 0.21, accidents
#: 0.38, pumsb_star 0.40, jester 2.1)
CLOSE_TO_MIXTURE = 0.15


def slow_candidates_first(scores: Mapping[str, float], remaining: list[str]) -> list[str]:
    """``remaining`` with BaggedCutsetNetworks moved before HiddenTree when the cutset
    network's validation score is within :data:`CLOSE_TO_MIXTURE` of the mixture's (both
    scored); otherwise as it is.

    Examples
    --------
    >>> slow_candidates_first({"CutsetNetwork": -13.18, "TreeMixture": -13.10},
    ...                       ["HiddenTree", "BaggedCutsetNetworks", "BaggedTrees"])
    ['BaggedCutsetNetworks', 'HiddenTree', 'BaggedTrees']
    >>> slow_candidates_first({"CutsetNetwork": -55.4, "TreeMixture": -53.3},
    ...                       ["HiddenTree", "BaggedCutsetNetworks", "BaggedTrees"])
    ['HiddenTree', 'BaggedCutsetNetworks', 'BaggedTrees']
    """
    cutset, mixture = scores.get("CutsetNetwork"), scores.get("TreeMixture")
    if cutset is None or mixture is None or not np.isfinite(cutset):
        return remaining
    if mixture - cutset >= CLOSE_TO_MIXTURE or not {
        "HiddenTree",
        "BaggedCutsetNetworks",
    } <= set(remaining):
        return remaining
    out = list(remaining)
    i, j = out.index("HiddenTree"), out.index("BaggedCutsetNetworks")
    if j > i:
        out.insert(i, out.pop(j))
    return out


class AutoDensity(DensityEstimator):
    """The density that chooses: the candidate of the highest validation log-likelihood.

    Parameters
    ----------
    candidates : sequence of str, default=None
        The names of the candidates to try, in order (``"ChowLiuTree"``,
        ``"CutsetNetwork"``, ``"TreeMixture"``, ``"HiddenTree"``,
        ``"BaggedCutsetNetworks"``, ``"BaggedTrees"``); ``None`` (default): all of them,
        in that order (the cheapest first), except that the bagged cutset networks go
        before HCLT when the cutset network scored within :data:`CLOSE_TO_MIXTURE` nats per
        row of the mixture. A list given is tried in its order. Their options are the DEBD runs': the tree with
        ``alpha = mi_alpha = 1``; the cutset network of depth 10 pruned on the validation
        rows; the mixture with its number of components grown in 2..16 on them; HCLT with
        16 latent states (8 beyond 200 columns), ``alpha = 0.01``, EM stopped on them; ten
        bagged cutset networks of depth 8; ten bagged mixtures of 4 trees.
    time_budget : float, default=None
        Seconds; no candidate starts once they have passed (the first always
        does, so a fit ends at most one candidate's fit past it). ``None``: no limit.
    validation_fraction : float, default=0.2
        The share of the rows held out as validation rows when ``fit``
        is given none (``validation=``), drawn at random with ``random_state``.
    random_state : int, numpy.random.Generator or None, default=0
        The draw of the validation rows (``numpy.random.default_rng``), and
        every candidate's ``random_state`` (an int or None as given; a Generator gives
        each candidate one int drawn from it).
    states : dict, default=None
        As for :class:`~treelearn.TreeMixture`.
    missing : {"error", "drop"}, default="error"
        As for :class:`~treelearn.TreeMixture`, without ``"em"``.
    max_states : int, default=100
        As for :class:`~treelearn.TreeMixture`.

    Attributes
    ----------
    chosen_ : the name of the chosen candidate.
    candidate_scores_ : ``{name: mean validation log-likelihood per row}`` of every
        candidate learned (``-inf`` where it refused the table, see ``candidate_errors_``).
    candidate_errors_ : ``{name: message}`` of the candidates that refused the table.
    candidate_seconds_ : ``{name: seconds}`` each candidate's fit and score took.
    skipped_ : the candidates not started, the budget spent.
    estimator_ : the chosen candidate, learned on the training rows.
    model_ : its model (a :class:`~treelearn.Model`); every answer is its.
    feature_names_in_, n_features_in_ : the columns learned from.

    See Also
    --------
    AutoClassifier : the classifier that chooses, by cross-validated log-loss.
    ChowLiuTree, CutsetNetwork, TreeMixture, HiddenTree, BaggedTrees : the candidates.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> auto = tl.AutoDensity(candidates=["ChowLiuTree", "CutsetNetwork"]).fit(df)
    >>> sorted(auto.candidate_scores_)
    ['ChowLiuTree', 'CutsetNetwork']
    >>> auto.chosen_ == max(auto.candidate_scores_, key=auto.candidate_scores_.get)
    True
    """

    #: unfitted: what every candidate's model answers; fitted: what the chosen model answers
    #: of the words a density estimator passes on to its model (``learn --method auto
    #: --plot`` draws the choice; an ensemble of cutset networks has no ``map``)
    capabilities = ChosenCapabilities(
        {"score", "sample", "sample_given", "query", "marginals", "predict", "draw", "explorer"},
        PASSED_ON,
        "model_",
    )
    to_pgmpy = capabilities.pass_on("to_pgmpy", "to_pgmpy")
    to_bif = capabilities.pass_on("to_bif", "bif")
    to_xmlbif = capabilities.pass_on("to_xmlbif", "bif")
    to_uai = capabilities.pass_on("to_uai", "bif")
    to_pyagrum = capabilities.pass_on("to_pyagrum", "pyagrum")

    _parameter_constraints: ClassVar[dict] = {
        "candidates": [None, InstanceOf(list, tuple, name="a list of candidate names")],
        "time_budget": [None, Interval(Real, 0, None)],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "random_state": RANDOM_STATE,
        "states": [None, InstanceOf(Mapping, name="a dict {column: [states]}")],
        "missing": [Options("error", "drop")],
        "max_states": [Interval(Integral, 1, None)],
    }

    def __init__(
        self,
        candidates: Sequence[str] | None = None,
        time_budget: float | None = None,
        validation_fraction: float = 0.2,
        random_state: int | np.random.Generator | None = 0,
        states: Mapping[Hashable, Sequence] | None = None,
        missing: str = "error",
        max_states: int = DEFAULT_MAX_STATES,
    ) -> None:
        self.candidates = candidates
        self.time_budget = time_budget
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.states = states
        self.missing = missing
        self.max_states = max_states

    # ------------------------------------------------------------ fitting
    def fit(
        self, X: Any, y: Any = None, sample_weight: Any = None, *, validation: Any = None
    ) -> AutoDensity:
        """Learn every candidate on the training rows of ``X`` (``y`` is ignored), score it
        on the validation rows (``validation=``, or ``validation_fraction`` of ``X``'s rows
        held out), and keep the best; returns self."""
        start = clock()
        params = self._checked_params()
        names = self._candidate_names(params["candidates"])
        with missing_fixed_by(self._missing_options()):
            table = in_memory_table(
                X,
                learner="AutoDensity",
                missing=params["missing"],
                max_states=params["max_states"],
                states=params["states"],
                sample_weight=sample_weight,
            )
        columns = list(table.columns)
        states = dict(zip(columns, table.states))
        dtypes = {c: t for c, t in zip(columns, table.dtypes) if t is not None}
        rng = np.random.default_rng(params["random_state"])
        codes = table.codes
        n = len(codes)
        weights = np.ones(n) if table.weights is None else np.asarray(table.weights, float)
        if validation is None:
            n_valid = round(params["validation_fraction"] * n)
            if n_valid < 1 or n - n_valid < 2:
                raise TreelearnError(
                    f"AutoDensity holds out validation_fraction="
                    f"{params['validation_fraction']} of the {n} rows (n_samples = {n}) to "
                    f"choose on, which "
                    f"leaves {n_valid} validation and {n - n_valid} training rows: give more "
                    f"rows, another validation_fraction, or validation rows (validation=)"
                )
            order = rng.permutation(n)
            held_out = np.zeros(n, dtype=bool)
            held_out[order[:n_valid]] = True
            valid = decode_codes(codes[held_out], columns, states, dtypes)
            train_codes, train_w = codes[~held_out], weights[~held_out]
        else:
            valid = validation
            train_codes, train_w = codes, weights
        train = decode_codes(train_codes, columns, states, dtypes)
        train_weights = None if table.weights is None else train_w  # as given: the same draws
        scores: dict[str, float] = {}
        errors: dict[str, str] = {}
        seconds: dict[str, float] = {}
        fitted: dict[str, Any] = {}
        skipped: list[str] = []
        budget = params["time_budget"]
        seed = params["random_state"]  # an int (or None) given to every candidate as it is
        if isinstance(seed, np.random.Generator):
            seed = int(rng.integers(2**31 - 1))
        adaptive = params["candidates"] is None
        pending = list(names)
        while pending:
            name = pending.pop(0)
            began = clock()
            if fitted and budget is not None and began - start >= budget:
                skipped.append(name)
                continue
            est = CANDIDATES[name](states, round(train_w.sum()), len(columns), seed)
            try:
                if name == "ChowLiuTree":
                    est.fit(train, sample_weight=train_weights)
                else:
                    est.fit(train, sample_weight=train_weights, validation=valid)
                scores[name] = float(est.score(valid))
                fitted[name] = est
            except TreelearnError as exc:  # a candidate this table is too big for, say
                scores[name], errors[name] = float("-inf"), str(exc)
            seconds[name] = clock() - began
            if adaptive and name in ("CutsetNetwork", "TreeMixture"):
                pending = slow_candidates_first(scores, pending)
        if not fitted:
            raise TreelearnError(
                f"AutoDensity: no candidate could learn the table: {errors}",
            )
        rounded = {k: round(v, 12) for k, v in scores.items() if k in fitted}
        chosen = max(rounded, key=lambda k: rounded[k])  # the first on a tie (dict order)
        self.chosen_ = chosen
        self.candidate_scores_ = scores
        self.candidate_errors_ = errors
        self.candidate_seconds_ = seconds
        self.skipped_ = skipped
        self.estimator_ = fitted[chosen]
        self.model_ = self.estimator_.model_
        self._set_features(columns)
        return self

    def _candidate_names(self, given: Any) -> list[str]:
        if given is None:
            return list(CANDIDATES)
        names = list(given)
        unknown = [n for n in names if n not in CANDIDATES]
        if unknown or not names or len(set(names)) != len(names):
            raise TreelearnError(
                f"candidates must name some of {list(CANDIDATES)}, each once, got {given!r}",
                values=unknown,
            )
        return names

    def _refusal_reason(self, capability: str) -> tuple[str, str, tuple[str, ...]] | None:
        if "model_" not in vars(self):
            return None
        return (
            f"it chose {self.chosen_} (a {type(self.model_).__name__}), which does not",
            "give candidates= without it",
            ("candidates",),
        )

    def _headline(self) -> str:
        return (
            f"AutoDensity: {self.chosen_} chosen (validation log-likelihood "
            f"{self.candidate_scores_[self.chosen_]:.4f} per row)"
        )

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page of the chosen candidate's model, titled with the choice."""
        from ..viz._page_spec import require_fitted

        require_fitted(self, "fit(X)")
        spec = self.model_.explorer_spec(title)
        if title is None:
            spec["title"] = f"AutoDensity chose {self.chosen_}: {spec['title']}"
        return spec

    def explain(
        self,
        X: Any,
        target: Hashable,
        kind: str = "log_odds",
        conditional: bool = True,
        background: Any = None,
        output: str | None = None,
        target_state: Any = None,
        random_state: int | np.random.Generator | None = None,
        method: str = "auto",
        n_permutations: int = 256,
    ) -> Any:
        """Each other column's contribution to the chosen model's prediction of ``target``
        for every row of ``X`` (the model's ``explain``, e.g. :meth:`TreeModel.explain
        <treelearn.TreeModel.explain>`, on the rows matched to the features), where the
        chosen model answers ``explain`` (a tree, a mixture of trees).

        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> auto = tl.AutoDensity(candidates=["ChowLiuTree"]).fit(df)
        >>> e = auto.explain(df.head(2), "either", kind="shapley", output="proba")
        >>> bool(np.allclose(e.values, auto.model_.explain(df.head(2), "either",
        ...     kind="shapley", output="proba").values))
        True
        """
        model = self._fitted_model()
        self.require("explain")
        return model.explain(
            self._rows(X),
            target,
            kind=kind,
            conditional=conditional,
            background=None if background is None else self._rows(background),
            output=output,
            target_state=target_state,
            random_state=random_state,
            method=method,
            n_permutations=n_permutations,
        )

    # ------------------------------------------------------------ pictures: the choice's
    def draw(self, ax: Any = None, **kwargs: Any) -> Any:
        """The chosen model's picture (a matplotlib Figure), titled with the choice and its
        validation score (``title=True``, the default; ``False`` for none, or a string).
        Other keywords are the chosen model's ``draw``'s."""
        self.require("draw")
        title = kwargs.pop("title", True)
        kwargs["title"] = self._headline() if title is True else title
        return self._fitted_model().draw(ax, **kwargs)

    def to_dot(self, **kwargs: Any) -> str:
        """The chosen model as Graphviz DOT, the choice as the graph's label."""
        from ..viz._draw import titled_dot

        self.require("draw")
        return titled_dot(self._fitted_model().to_dot(**kwargs), self._headline())

    def to_mermaid(self, **kwargs: Any) -> str:
        """The chosen model as a Mermaid flowchart, the choice as its title."""
        from ..viz._draw import titled_mermaid

        self.require("draw")
        return titled_mermaid(self._fitted_model().to_mermaid(**kwargs), self._headline())

    # ------------------------------------------------------------ files
    def _fitted_state(self) -> dict:
        return {
            "chosen": self.chosen_,
            "candidate_scores": {
                k: (v if np.isfinite(v) else "-inf") for k, v in self.candidate_scores_.items()
            },
            "candidate_errors": dict(self.candidate_errors_),
            "candidate_seconds": {k: float(v) for k, v in self.candidate_seconds_.items()},
            "skipped": list(self.skipped_),
            "chosen_estimator": self.estimator_.to_dict(),
        }

    def _restore_fitted(self, saved: SavedState) -> None:
        chosen = saved.raw("chosen", str)
        if chosen not in CANDIDATES:
            raise saved.fail("chosen", f"names no candidate of {list(CANDIDATES)}")
        state = saved.raw("chosen_estimator", dict)
        cls = ESTIMATORS.get(str(state.get("estimator")))
        want = type(CANDIDATES[chosen]({}, 100, 1, 0))
        if cls is None or cls is not want:
            raise saved.fail("chosen_estimator", f"is not the chosen candidate {chosen!r}")
        scores = saved.raw("candidate_scores", dict)
        if chosen not in scores:
            raise saved.fail("candidate_scores", f"has no score of the chosen {chosen!r}")
        try:
            self.candidate_scores_ = {
                str(k): float("-inf") if v == "-inf" else float(v) for k, v in scores.items()
            }
            self.candidate_seconds_ = {
                str(k): float(v) for k, v in saved.raw("candidate_seconds", dict).items()
            }
        except (TypeError, ValueError):
            raise saved.fail("candidate_scores", "holds a value that is no number") from None
        self.candidate_errors_ = {
            str(k): str(v) for k, v in saved.raw("candidate_errors", dict).items()
        }
        self.skipped_ = [str(s) for s in saved.raw("skipped", list)]
        estimator = cls.from_dict(state)
        self.estimator_ = estimator
        self.chosen_ = chosen
        self._restore_model(saved, estimator.model_, "chosen_estimator")
