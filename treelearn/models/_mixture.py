"""Mixtures of discrete networks: ``P(x) = sum_k w_k P_k(x)``, every answer exact.

A :class:`MixtureModel` holds mixing weights and components over the same variables and
states: :class:`~treelearn.TreeModel` s (what :class:`~treelearn.TreeMixture`
and :class:`~treelearn.BaggedTrees` learn) or :class:`~treelearn.CutsetModel`
s (a bagged :class:`~treelearn.CutsetNetwork`). Each answer is the posterior over
components times each component's own: for evidence ``e`` (each given variable a state),
``P(k | e) = w_k P_k(e) / sum_j w_j P_j(e)`` and

    P(X | e) = sum_k P(k | e) P_k(X | e),

each ``P_k(e)`` and ``P_k(X | e)`` exact in component ``k`` (message passing on a tree,
the OR-tree's branches on a cutset network; missing values summed out). Conditional
sampling draws each row's component from ``P(k | e)``, then the row from ``P_k(. | e)``.
A component that gives the evidence probability zero takes no part; evidence impossible
under every component is refused, naming it. Likelihood (soft) evidence ``L`` is taken
as every component takes it: the answers are those of ``sum_k w_k P_k(x) prod_v L_v(x_v)``,
so each component's posterior is weighted by ``w_k`` times its probability of the soft
evidence, ``Z_k = sum_x P_k(x, e) prod_v L_v(x_v)`` (exact in each component), and
answered by the component under the same evidence.

>>> import pandas as pd, treelearn as tl
>>> mix = tl.TreeMixture(n_components=2, random_state=0).fit(pd.read_csv("datasets/asia.csv"))
>>> model = mix.model_
>>> model.kind, len(model.components), bool(abs(model.component_posterior({"smoke": "yes"}).sum() - 1) < 1e-12)
('mixture', 2, True)
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from numbers import Integral
from typing import Any, cast

import numpy as np
import pandas as pd

from .._base.errors import ColumnNotFoundError, InvalidModelError, TreelearnError
from .._base.logspace import logsumexp
from .._base.validation import (
    BOOLEAN,
    RANDOM_STATE,
    InstanceOf,
    Interval,
    check_param,
    check_params,
)
from ..encoding._table import check_frame, encode
from ..inference._engine import is_likelihood, likelihood, state_index
from ._base import Model
from ._cutset import CutsetModel, cutset_page_spec
from ._tree import TreeModel

__all__ = ["COMPONENT_KINDS", "MixtureModel", "weighted_log_likelihoods"]

#: what a component is: a discrete network answering scores and queries by itself
Component = TreeModel | CutsetModel
#: the model kinds a mixture's components may be, by saved kind
COMPONENT_KINDS: dict[str, type[Component]] = {
    "tree_model": TreeModel,
    "cutset_network": CutsetModel,
}

#: what a mixture of trees answers; a mixture of cutset networks answers the same but
#: ``explain`` (its Shapley games run on tree engines)
_TREE_CAPABILITIES = frozenset(
    {
        "score",
        "sample",
        "sample_given",
        "query",
        "marginals",
        "predict",
        "explain",
        "draw",
        "explorer",
    }
)
_CUTSET_CAPABILITIES = _TREE_CAPABILITIES - {"explain"}


def weighted_log_likelihoods(
    components: Sequence[Component], weights: np.ndarray, codes: np.ndarray
) -> np.ndarray:
    """``log w_k + log P_k(x_r)`` of every row of codes (``-1``: missing, summed out) and
    component: an ``n x k`` array (what EM's E-step and every score of a mixture start
    from).

    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> t = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1], "b": [0, 1, 1]}))
    >>> out = weighted_log_likelihoods([t, t], np.array([0.25, 0.75]), np.array([[0, -1]]))
    >>> np.exp(out).round(4).tolist()   # P(a = 0) = (2 + 1) / (3 + 2) = 0.6
    [[0.15, 0.45]]
    """
    with np.errstate(divide="ignore"):
        log_w = np.log(weights)
    return np.column_stack([lw + c.log_likelihood_codes(codes) for lw, c in zip(log_w, components)])


class MixtureModel(Model):
    """A mixture of discrete networks over the same variables (see the module docstring).

    Parameters
    ----------
    components : sequence of TreeModel or CutsetModel
        The components, all of one kind, over the same
        variables (in the same order) with the same states.
    weights : array-like of shape (k,)
        The mixing weights, non-negative, summing to 1
        (kept as given: ``log w_k`` is taken of these numbers).

    Attributes
    ----------
    components : list of the component models.
    weights : ndarray (k,).
    variables : the components' variables.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> m = tl.MixtureModel([tl.chow_liu(df.iloc[:5000]), tl.chow_liu(df.iloc[5000:])], [0.5, 0.5])
    >>> m.n_parameters == m.components[0].n_parameters + m.components[1].n_parameters + 1
    True
    >>> each = [np.exp(c.log_likelihood(df.head(3), per_row=True)) for c in m.components]
    >>> bool(np.allclose(np.exp(m.score_samples(df.head(3))), 0.5 * each[0] + 0.5 * each[1]))
    True
    >>> round(float(m.query("lung", {"smoke": "yes"}).sum()), 12)
    1.0
    """

    kind = "mixture"
    capabilities = _TREE_CAPABILITIES

    def __init__(self, components: Sequence[Component], weights: Any) -> None:
        components = list(components)
        if not components:
            raise TreelearnError("a mixture needs at least one component")
        first = components[0]
        kinds = [k for k, cls in COMPONENT_KINDS.items() if type(first) is cls]
        if not kinds or any(type(c) is not type(first) for c in components):
            raise TreelearnError(
                "a mixture's components must all be TreeModels or all CutsetModels, got "
                f"{sorted({type(c).__name__ for c in components})}"
            )
        variables, states = list(first.variables), first.states
        for k, c in enumerate(components[1:], start=1):
            if list(c.variables) != variables or c.states != states:
                raise TreelearnError(
                    f"component {k} has other variables or states than component 0: a mixture's "
                    f"components share them"
                )
        w = np.array(weights, dtype=float)
        if (
            w.shape != (len(components),)
            or not np.isfinite(w).all()
            or (w < 0).any()
            or not np.isclose(w.sum(), 1.0, rtol=0, atol=1e-9)
        ):
            raise TreelearnError(
                f"weights must be {len(components)} probabilities (one per component) summing "
                f"to 1, got {np.asarray(weights).tolist()[:10]}"
            )
        self.components: list[Component] = components
        self.weights = w
        self.variables = variables
        self.component_kind = kinds[0]
        if self.component_kind != "tree_model":  # a mixture of cutset networks answers less
            self.capabilities = _CUTSET_CAPABILITIES  # type: ignore[misc]

    # ------------------------------------------------------------------ shape
    @property
    def states(self) -> dict:
        """``{variable: [state labels]}`` (every component's)."""
        return self.components[0].states

    @property
    def dtypes(self) -> dict:
        """``{variable: pandas dtype}`` restored on sampled data."""
        return dict(self.components[0].dtypes)

    @property
    def n_parameters(self) -> int:
        """Free parameters: every component's and ``k - 1`` weights."""
        return sum(c.n_parameters for c in self.components) + len(self.components) - 1

    # ------------------------------------------------------------------ scores
    def encode(self, data: pd.DataFrame) -> np.ndarray:
        """The codes of ``data``'s rows in variable order (``-1``: missing; extra columns
        ignored; a variable absent from ``data`` is an error)."""
        check_frame(data, action="score or predict")
        absent = [v for v in self.variables if v not in data.columns]
        if absent:
            raise ColumnNotFoundError(
                f"the data lacks the model's variable(s) {absent}; its columns are "
                f"{list(data.columns)}",
                column=absent[0],
            )
        return encode(
            data[self.variables],
            missing="pairwise",
            states=self.states,
            max_states=np.iinfo(np.int64).max,
        ).codes

    def log_joint_codes(self, codes: np.ndarray) -> np.ndarray:
        """``log w_k + log P_k(x_r)`` of every row of codes and component (``n x k``)."""
        return weighted_log_likelihoods(self.components, self.weights, codes)

    def log_likelihood_codes(self, codes: np.ndarray) -> np.ndarray:
        """``log P(observed cells of each row)`` of rows of codes (``-1``: summed out)."""
        return logsumexp(self.log_joint_codes(codes), axis=1)

    def score_samples(self, X: pd.DataFrame) -> np.ndarray:
        """Log-likelihood of each row of ``X`` (nats); missing cells are summed out exactly."""
        return self.log_likelihood_codes(self.encode(X))

    def component_proba(self, X: pd.DataFrame) -> np.ndarray:
        """``P(component k | the observed cells of row r)``: an ``n x k`` array whose rows
        sum to 1 (scikit-learn's ``GaussianMixture.predict_proba``)."""
        log_prob = self.log_joint_codes(self.encode(X))
        return np.exp(log_prob - logsumexp(log_prob, axis=1, keepdims=True))

    # ------------------------------------------------------------------ queries
    def evidence_codes(self, evidence: Mapping[Hashable, Any] | None) -> tuple[np.ndarray, dict]:
        """``(row, soft)``: one row of codes (``1 x variables``, ``-1``: free) holding the
        variables ``evidence`` gives a state, and ``{variable index: likelihood}`` of those it
        gives a likelihood (weights per state, as :meth:`TreeModel.query
        <treelearn.TreeModel.query>` takes them); every name a variable, every
        state one of its states, every likelihood checked.

        >>> import pandas as pd, treelearn as tl
        >>> mix = tl.TreeMixture(random_state=0).fit(pd.read_csv("datasets/asia.csv")).model_
        >>> row, soft = mix.evidence_codes({"smoke": "yes", "xray": [0.2, 0.8]})
        >>> row.tolist(), soft[mix.variables.index("xray")].tolist()
        ([[-1, -1, 1, -1, -1, -1, -1, -1]], [0.2, 0.8])
        """
        check_param("evidence", evidence, [None, InstanceOf(Mapping, name="a dict")])
        row = np.full((1, len(self.variables)), -1, dtype=np.int64)
        soft: dict[int, np.ndarray] = {}
        states = self.states
        for v, s in (evidence or {}).items():
            if v not in states:
                raise ColumnNotFoundError(
                    f"evidence {v!r} is not a variable of the model; the variables are "
                    f"{self.variables[:20]}",
                    column=v,
                )
            j = self.variables.index(v)
            if is_likelihood(s):
                soft[j] = likelihood(v, s, states[v], lambda u, t: state_index(states[u], u, t))
            else:
                row[0, j] = state_index(states[v], v, s)
        return row, soft

    def component_posterior(self, evidence: Mapping[Hashable, Any] | None = None) -> np.ndarray:
        """``P(component k | evidence)`` for every ``k`` (sums to 1): ``w_k P_k(e)``
        normalised, where a likelihood ``L_v`` in ``evidence`` counts as
        ``P(e | v) = L_v(v)``, summed over ``v``'s states in each component.

        >>> import pandas as pd, treelearn as tl
        >>> mix = tl.TreeMixture(n_components=2, random_state=0).fit(pd.read_csv("datasets/asia.csv")).model_
        >>> hard = mix.component_posterior({"smoke": "yes"})
        >>> bool(np.allclose(mix.component_posterior({"smoke": {"yes": 3.0}}), hard))
        True
        """
        row, soft = self.evidence_codes(evidence)
        with np.errstate(divide="ignore"):
            log_w = np.log(self.weights / np.sum(self.weights))
        log_joint = log_w + np.array([_log_evidence(c, row, soft) for c in self.components])
        total = logsumexp(log_joint)
        if not np.isfinite(total):
            given = ", ".join(f"{k}={v!r}" for k, v in (evidence or {}).items())
            raise TreelearnError(
                f"the evidence {given} has probability zero under every component of the "
                f"mixture; fix or drop a value"
            )
        return np.exp(log_joint - total)

    def query(
        self,
        variables: Sequence[Hashable] | Hashable,
        evidence: Mapping[Hashable, Any] | None = None,
    ) -> pd.Series:
        """Exact ``P(variables | evidence)``: ``sum_k P(k | evidence) P_k(variables |
        evidence)``, a Series as :meth:`TreeModel.query <treelearn.TreeModel.query>`
        returns it. ``evidence`` gives a variable a state or a likelihood (soft evidence,
        as there; a queried variable may have one too).

        >>> import pandas as pd, treelearn as tl
        >>> mix = tl.TreeMixture(random_state=0).fit(pd.read_csv("datasets/asia.csv")).model_
        >>> round(float(mix.query("lung", {"smoke": "yes"}).sum()), 12)
        1.0
        >>> round(float(mix.query("lung", {"xray": [0.2, 0.8]}).sum()), 12)
        1.0
        """
        names = (
            [variables]
            if isinstance(variables, (str, int)) or not isinstance(variables, Sequence)
            else list(variables)
        )
        post = self.component_posterior(evidence)
        out = None
        for p, c in zip(post, self.components):
            if p > 0:
                part = p * c.query(list(names), evidence=evidence)
                out = part if out is None else out + part
        return out

    def marginals(self, evidence: Mapping[Hashable, Any] | None = None) -> dict:
        """``{variable: P(variable | evidence)}`` for every variable not given a state (one
        given a likelihood gets its posterior), exactly."""
        post = self.component_posterior(evidence)
        out: dict = {}
        for p, c in zip(post, self.components):
            if p > 0:
                for v, series in c.marginals(evidence).items():
                    out[v] = p * series if v not in out else out[v] + p * series
        return out

    def predict_proba(self, data: pd.DataFrame, target: Hashable) -> pd.DataFrame:
        """``P(target | each row's other observed values)``: one column per state of
        ``target``, rows summing to 1 (missing cells and absent columns summed out):
        ``sum_k P(k | row) P_k(target | row)``."""
        if target not in self.states:
            raise ColumnNotFoundError(
                f"{target!r} is not a variable of the mixture; they are {self.variables[:20]}",
                column=target,
            )
        check_frame(data, action="score or predict")
        t = self.variables.index(target)
        # absent columns are missing (summed out), as missing cells are
        codes = self.encode(data.reindex(columns=self.variables)).astype(np.int64)
        codes[:, t] = -1
        with np.errstate(divide="ignore"):
            log_w = np.log(np.asarray(self.weights, dtype=float) / np.sum(self.weights))
        log_rows, posts = [], []
        for c in self.components:
            log_evidence, post = _evidence_and_posterior(c, codes, t)
            log_rows.append(log_evidence)
            posts.append(post)
        log_joint = log_w[None, :] + np.column_stack(log_rows)  # (n, k)
        total = logsumexp(log_joint, axis=1, keepdims=True)
        bad = ~np.isfinite(total[:, 0])
        if bad.any():
            raise TreelearnError(
                f"{int(bad.sum())} row(s) have probability zero under every "
                f"component, e.g. row {data.index[int(np.flatnonzero(bad)[0])]!r}"
            )
        resp = np.exp(log_joint - total)
        proba = sum(resp[:, [k]] * np.nan_to_num(p) for k, p in enumerate(posts))
        return pd.DataFrame(proba, columns=self.states[target], index=data.index)

    def predict(self, data: pd.DataFrame, target: Hashable) -> pd.Series:
        """The most probable state of ``target`` for every row given its other values
        (the argmax of :meth:`predict_proba`; ties go to the first state)."""
        proba = self.predict_proba(data, target)
        labels = np.empty(proba.shape[1], dtype=object)
        labels[:] = list(proba.columns)
        return pd.Series(labels[np.argmax(proba.to_numpy(), axis=1)], index=data.index, name=target)

    # ------------------------------------------------------------------ sampling
    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
        return_components: bool = False,
    ) -> pd.DataFrame | tuple[pd.DataFrame, np.ndarray]:
        """Draw ``n`` rows as a DataFrame (with ``return_components=True``, also the
        component each row was drawn from: ``(DataFrame, array)``, scikit-learn's pair).
        With ``evidence`` the rows come exactly from ``P(. | evidence)`` (each row's
        component from ``P(k | evidence)``, then the row from that component given the
        evidence); ``numbers`` as in :meth:`TreeModel.sample
        <treelearn.TreeModel.sample>` (tree components).

        >>> import pandas as pd, treelearn as tl
        >>> mix = tl.TreeMixture(random_state=0).fit(pd.read_csv("datasets/asia.csv")).model_
        >>> X, component = mix.sample(4, random_state=1, return_components=True)
        >>> X.shape, component.shape
        ((4, 8), (4,))
        """
        checked = check_params(
            {"n": n, "random_state": random_state, "numbers": numbers},
            {
                "n": [Interval(Integral, 0, None)],
                "random_state": RANDOM_STATE,
                "numbers": [BOOLEAN],
            },
        )
        n = checked["n"]
        rng = np.random.default_rng(checked["random_state"])
        extra: dict[str, Any] = {}
        if numbers:  # every component kind draws numbers within its bins
            extra = {"numbers": True}
        if evidence is not None:
            post = self.component_posterior(evidence)
            per_component = rng.multinomial(n, post)
            # a component the evidence rules out (P(k | e) = 0) draws nothing: not asked
            parts = [
                c.sample(int(m), evidence=evidence, random_state=rng, **extra)
                for c, m in zip(self.components, per_component)
                if m > 0
            ]
            if not parts:
                parts = [self.components[0].sample(0, random_state=rng, **extra)]
        else:
            per_component = rng.multinomial(n, self.weights / self.weights.sum())
            parts = [
                c.sample(int(m), random_state=rng, **extra)
                for c, m in zip(self.components, per_component)
            ]
        labels = np.repeat(np.arange(len(self.components)), per_component)
        X = pd.concat(parts, ignore_index=True)
        return (X, labels) if return_components else X

    # ------------------------------------------------------------------ explanations
    def explain(
        self,
        data: pd.DataFrame,
        target: Hashable,
        kind: str = "log_odds",
        conditional: bool = True,
        background: pd.DataFrame | None = None,
        output: str | None = None,
        target_state: Any = None,
        random_state: int | np.random.Generator | None = None,
        method: str = "auto",
        n_permutations: int = 256,
    ) -> Any:
        """Each other variable's contribution to the mixture's prediction of ``target``,
        ``P(target | x_S) = sum_k w_k P_k(target, x_S) / sum_k w_k P_k(x_S)``, for every row
        of ``data`` (options as :meth:`TreeModel.explain
        <treelearn.TreeModel.explain>`; on trees every coalition of a row is one
        pass per component; the mixture couples all variables, so there are no independent
        groups). Tree components only.

        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> mix = tl.TreeMixture(random_state=0).fit(df).model_
        >>> e = mix.explain(df.head(2), "either", kind="shapley", output="proba")
        >>> bool(np.allclose(e.values.sum(axis=1) + e.base, e.prediction))
        True
        """
        self.require("explain")  # tree components (their engines play the games)
        trees = cast(list[TreeModel], self.components)
        from ..inference._shapley import (
            EngineGame,
            MixtureGame,
            check_explain_options,
            explain_game,
        )

        params = check_explain_options(
            kind=kind,
            conditional=conditional,
            output=output,
            method=method,
            n_permutations=n_permutations,
            random_state=random_state,
        )
        first = trees[0]
        first.parents(target)  # a ColumnNotFoundError naming the variables
        codes = first.encode(data).codes
        other = None if background is None else first.encode(background).codes
        players = [j for j, v in enumerate(first.variables) if v != target]
        games = [EngineGame(c.engine(target), codes, players, background=other) for c in trees]
        with np.errstate(divide="ignore"):
            log_w = np.log(self.weights / self.weights.sum())
        state = (
            None
            if target_state is None
            else state_index(first.states[target], target, target_state)
        )
        frame = data[[first.variables[j] for j in players]]
        return explain_game(
            MixtureGame(games, log_w),
            target=state,
            data=frame,
            index=data.index,
            target_name=target,
            **params,
        )

    # ------------------------------------------------------------------ pictures
    def _panel_titles(self) -> list[str]:
        return [f"component {k}: weight {w:.3f}" for k, w in enumerate(self.weights)]

    def draw(self, ax: Any = None, **kwargs: Any) -> Any:
        """One panel per structure: components with the same tree (edges and roots) drawn
        once, titled with which components share it and their summed weight, the heaviest
        first (a bag of 10 trees is often a few structures). At most ``max_panels=6`` panels, no wider than 2,000 px at 200
        dpi; the heading counts the rest. ``ax``: one axes per structure drawn;
        ``title="..."`` is the heading above them (default "mixture of k trees"), other
        keywords go to every panel. A mixture of cutset networks (a bag): each distinct
        network's OR-tree once, opened up to ``max_leaves=8`` boxes (a network's
        ``draw()`` adds its leaf trees)."""
        self.require("draw")
        from ..viz._draw import draw_ensemble

        title = kwargs.pop("title", True)
        kwargs.pop("data", None)  # the panels are titled by their weights, not a score
        unit = "trees" if self.component_kind == "tree_model" else "cutset networks"
        heading = title if isinstance(title, str) else f"mixture of {len(self.components)} {unit}"
        kwargs.setdefault("heading", heading)
        if self.component_kind != "tree_model":  # each distinct network's OR-tree once
            from ..viz._cutset_pictures import draw_cutset_ensemble

            return draw_cutset_ensemble(self._or_trees(), self.weights, ax, **kwargs)
        trees = cast(list[TreeModel], self.components)
        return draw_ensemble(trees, self.weights, ax, **kwargs)

    def to_dot(self, **kwargs: Any) -> str:
        """Graphviz DOT: one titled cluster per component."""
        self.require("draw")
        from ..viz._draw import panels_to_dot

        if self.component_kind != "tree_model":  # each distinct network once
            from ..viz._cutset_pictures import cutset_ensemble_to_dot

            return cutset_ensemble_to_dot(self._or_trees(), self.weights, **kwargs)
        return panels_to_dot(cast(list[TreeModel], self.components), self._panel_titles(), **kwargs)

    def to_mermaid(self, **kwargs: Any) -> str:
        """A Mermaid flowchart: one titled subgraph per component."""
        self.require("draw")
        from ..viz._draw import panels_to_mermaid

        if self.component_kind != "tree_model":  # each distinct network once
            from ..viz._cutset_pictures import cutset_ensemble_to_mermaid

            return cutset_ensemble_to_mermaid(self._or_trees(), self.weights, **kwargs)
        trees = cast(list[TreeModel], self.components)
        return panels_to_mermaid(trees, self._panel_titles(), **kwargs)

    def _or_trees(self) -> list:
        """Each cutset component's OR-tree, as the pictures read it."""
        return [cast(CutsetModel, c).or_tree() for c in self.components]

    # ------------------------------------------------------------------ files
    def explorer_spec(self, title: str | None = None, *, name: str = "MixtureModel") -> dict:
        """The explorer page (for :func:`treelearn.to_html`). A mixture of trees: the
        hidden component a box (``component``) whose marginal is the components' weights
        under the evidence, one forest per component weighted by ``weights``, drawn from the
        heaviest one's tree (``name`` heads the title). A mixture of cutset networks: one
        forest per leaf of every network."""
        from ..viz._page_spec import multinet_spec, title_of

        weights = np.asarray(self.weights, dtype=float)
        if self.component_kind != "tree_model":
            nets = [c for c in self.components if isinstance(c, CutsetModel)]
            assert len(nets) == len(self.components)  # every component of the one kind
            return cutset_page_spec(nets, weights, self.query, title)
        features = list(self.variables)
        node = "component"
        while node in features:
            node += "'"
        parts = [f"{len(features) + 1} variables", f"{len(self.components)} components"]
        return multinet_spec(
            dict(enumerate(self.components)),
            weights / weights.sum(),
            node,
            title if title is not None else title_of(name, parts),
        )

    def to_dict(self) -> dict:
        """The mixture as JSON values: the components' kind, the weights, every component
        (its own ``to_dict``)."""
        return {
            "component_kind": self.component_kind,
            "weights": [float(w) for w in self.weights],
            "components": [c.to_dict() for c in self.components],
        }

    @classmethod
    def from_dict(cls, d: Any, where: str = "saved MixtureModel") -> MixtureModel:
        """The mixture :meth:`to_dict` describes, every field checked (an
        :class:`~treelearn.InvalidModelError` naming the field; ``where`` names the file's
        object in the message)."""

        def fail(field: str, what: str) -> InvalidModelError:
            return InvalidModelError(f"{where}: field {field!r} {what}")

        if not isinstance(d, Mapping):
            raise InvalidModelError(f"{where} must be a JSON object, not {type(d).__name__}")
        for field in ("component_kind", "weights", "components"):
            if field not in d:
                raise fail(field, "is missing")
        kind = d["component_kind"]
        if not isinstance(kind, str) or kind not in COMPONENT_KINDS:
            raise fail("component_kind", f"must be one of {sorted(COMPONENT_KINDS)}, not {kind!r}")
        raw = d["components"]
        if not isinstance(raw, list) or not raw:
            raise fail("components", "must be a non-empty list of models")
        model_class = COMPONENT_KINDS[kind]
        components = [model_class.from_dict(c) for c in raw]
        weights = d["weights"]
        if (
            not isinstance(weights, list)
            or len(weights) != len(components)
            or not all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in weights)
        ):
            raise fail("weights", f"must hold {len(components)} numbers, one per component")
        w = np.array(weights, dtype=float)
        if not np.isfinite(w).all() or (w < 0).any():
            raise fail("weights", "must hold finite numbers >= 0")
        if not np.isclose(w.sum(), 1.0, rtol=0, atol=1e-9):
            raise fail("weights", "must hold probabilities that sum to 1")
        first = components[0]
        for k, c in enumerate(components[1:], start=1):
            if list(c.variables) != list(first.variables) or c.states != first.states:
                raise fail(
                    "components", f"component {k} has other variables or states than component 0"
                )
        return cls(components, w)

    # ------------------------------------------------------------------ text
    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then each component (its weight, its own structure, indented)."""
        k = len(self.components)
        yield (
            f"MixtureModel: {k} component{'' if k == 1 else 's'} over "
            f"{len(self.variables)} variables, {self.n_parameters} parameters"
        )
        for i, (w, c) in enumerate(zip(self.weights, self.components)):
            yield f"component {i} (weight {w:.{digits}g}):"
            for line in c.to_text(digits).splitlines():
                yield "    " + line


def _log_evidence(component: Component, row: np.ndarray, soft: Mapping[int, np.ndarray]) -> float:
    """``log sum_x P_k(x, row's states) prod_v L_v(x_v)`` of one row of codes under one
    component (``soft``: ``{variable index: likelihood}``; without any, the row's score)."""
    if not soft:
        return float(component.log_likelihood_codes(row)[0])
    if isinstance(component, TreeModel):
        return float(component.engine().log_evidence(row, soft)[0])
    return float(component.log_likelihood_codes(row, soft)[0])


def _evidence_and_posterior(
    component: Component, codes: np.ndarray, t: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(log P_k(observed cells), P_k(target t | observed cells))`` of rows of codes whose
    target is missing: a tree's from one pass of its engine, a cutset network's from its
    branches."""
    if isinstance(component, TreeModel):
        engine = component.engine()
        return engine.log_evidence(codes), engine.posterior_codes(codes, t)
    return component.log_likelihood_codes(codes), component.posterior_codes(codes, t)
