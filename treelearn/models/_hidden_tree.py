"""Hidden trees: a tree of latent variables, each observed column the child of its own latent.

``P(x) = sum_h P(h_root) prod_c P(h_c | h_parent(c)) prod_i P(x_i | h_i)``: the joint
model over latents and columns is one tree, a :class:`~treelearn.TreeModel`
(:attr:`HiddenTreeModel.network`), and every answer over the observed columns is exact
message passing on it with the latents summed out (Liu & Van den Broeck's hidden Chow-Liu
trees, NeurIPS 2021; a chain of latents is a hidden Markov model over sequences of fixed
length). :class:`~treelearn.HiddenTree` and :class:`~treelearn.HiddenMarkovModel` learn
one by EM.

>>> import pandas as pd, treelearn as tl
>>> df = pd.read_csv("datasets/asia.csv")
>>> model = tl.HiddenTree(n_states=2, random_state=0, max_iter=5).fit(df).model_
>>> model.kind, model.variables == list(df.columns), model.latent[0], model.n_states
('hidden_tree', True, 'H_asia', 2)
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from .._base.errors import ColumnNotFoundError, InvalidModelError, StructureError, TreelearnError
from .._base.jsonvalues import DecodeError, decode_label, encode_label
from .._base.limits import check_memory
from ..encoding._table import check_frame, encode
from ..inference._engine import decode_codes
from ._base import Model, tree_lines
from ._tree import TreeModel, states_text

__all__ = ["MAX_MAP_STATES", "HiddenTreeModel"]

#: the most joint states of the free observed columns that map_query enumerates
MAX_MAP_STATES = 2**20


def _shape_problem(network: TreeModel, latent: list, tied: bool) -> tuple[str, str] | None:
    """``(field, what is wrong)`` when ``network`` is no hidden tree with the latents
    ``latent`` (``latent[i]``: the latent of the ``i``-th other variable), else None."""
    if len(set(latent)) != len(latent) or any(v not in network.states for v in latent):
        return "latent_names", "must name distinct variables of the network"
    hidden = set(latent)
    columns = [v for v in network.variables if v not in hidden]
    if len(columns) != len(latent):
        return (
            "latent_names",
            "must name one latent per observed column, the network's other variables",
        )
    states = network.states
    h = len(states[latent[0]]) if latent else 1
    for lat, column in zip(latent, columns):
        if network.parents(column) != [lat]:
            return "network", f"column {column!r} must have its latent {lat!r} as its one parent"
        if states[lat] != list(range(h)):
            return "network", f"latent {lat!r} must have the states 0..{h - 1}"
        up = network.parents(lat)
        if len(up) > 1 or any(p not in hidden for p in up):
            return "network", f"latent {lat!r} must have at most one parent, a latent"
    if tied:
        children = [v for v in latent if network.parents(v)]
        shared = [network.cpt(v) for v in children]
        emissions = [network.cpt(c) for c in columns]
        if any(not np.array_equal(t, shared[0]) for t in shared) or any(
            states[c] != states[columns[0]] or not np.array_equal(e, emissions[0])
            for c, e in zip(columns, emissions)
        ):
            return "tied", (
                "is true, but the transitions (or the emissions and their states) differ "
                "between steps"
            )
    return None


class HiddenTreeModel(Model):
    """A hidden tree over observed columns (see the module docstring).

    Parameters
    ----------
    network : TreeModel
        Over the latents and the columns: each column's one parent its own
        latent, each latent's parent (if any) a latent, every latent of the states
        ``0 .. h-1``.
    latent : sequence of hashable
        The latents' names, ``latent[i]`` the latent of the ``i``-th column (the
        network's variables that are not latents, in the network's order).
    tied : bool, default=False
        Whether every transition (a latent given its parent) is one table, and every
        emission (a column given its latent) another, as in a hidden Markov model: they are
        then counted once in :attr:`n_parameters`.

    Attributes
    ----------
    network, latent, tied : as given.
    variables : the observed columns.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> model = tl.HiddenTree(n_states=2, random_state=0, max_iter=5).fit(df).model_
    >>> p = model.query("lung", {"smoke": "yes"})
    >>> bool(np.allclose(p, model.network.query("lung", {"smoke": "yes"})))
    True
    """

    kind = "hidden_tree"
    capabilities = frozenset(
        {
            "score",
            "sample",
            "sample_given",
            "query",
            "marginals",
            "map",
            "predict",
            "draw",
            "explorer",
        }
    )

    def __init__(self, network: TreeModel, latent: Sequence[Hashable], tied: bool = False) -> None:
        if not isinstance(network, TreeModel):
            raise StructureError(
                f"a hidden tree's network is a TreeModel, not {type(network).__name__}"
            )
        latent = list(latent)
        problem = _shape_problem(network, latent, bool(tied))
        if problem is not None:
            raise StructureError(f"{problem[0]} {problem[1]}")
        self.network = network
        self.latent = latent
        self.tied = bool(tied)
        hidden = set(latent)
        self.variables = [v for v in network.variables if v not in hidden]

    # ------------------------------------------------------------------ shape
    @property
    def n_states(self) -> int:
        """``h``, the latents' number of states."""
        return len(self.network.states[self.latent[0]]) if self.latent else 1

    @property
    def states(self) -> dict:
        """``{column: [state labels]}`` of the observed columns."""
        states = self.network.states
        return {c: states[c] for c in self.variables}

    @property
    def dtypes(self) -> dict:
        return {c: t for c, t in self.network.dtypes.items() if c in set(self.variables)}

    @property
    def n_parameters(self) -> int:
        """Free parameters of the CPTs (tied tables counted once)."""
        if not self.tied:
            return self.network.n_parameters
        h = self.n_states
        roots = sum(1 for v in self.latent if not self.network.parents(v))
        steps = len(self.latent) - roots
        k = len(self.network.states[self.variables[0]]) if self.variables else 1
        return roots * (h - 1) + (h * (h - 1) if steps else 0) + h * (k - 1)

    # ------------------------------------------------------------------ rows
    def encode(self, data: pd.DataFrame) -> np.ndarray:
        """The network's codes of ``data``'s rows: the observed columns' states (``-1``:
        missing), every latent ``-1`` (a column absent from ``data`` is an error)."""
        check_frame(data, action="score or predict")
        absent = [c for c in self.variables if c not in data.columns]
        if absent:
            raise ColumnNotFoundError(
                f"the data lacks the model's column(s) {absent}; its columns are "
                f"{list(data.columns)}",
                column=absent[0],
            )
        codes = encode(
            data[self.variables],
            missing="pairwise",
            states=self.states,
            max_states=np.iinfo(np.int64).max,
        ).codes
        return self.joint_codes(codes)

    def joint_codes(self, codes: np.ndarray) -> np.ndarray:
        """Codes of the observed columns (``n x d``) as the network's (every latent ``-1``)."""
        index = {v: j for j, v in enumerate(self.network.variables)}
        full = np.full((codes.shape[0], len(index)), -1, dtype=np.int64)
        full[:, [index[c] for c in self.variables]] = codes
        return full

    def _observed(self, data: pd.DataFrame) -> pd.DataFrame:
        """``data`` without columns named like a latent (latents are never evidence)."""
        hidden = set(self.latent)
        drop = [c for c in data.columns if c in hidden]
        return data.drop(columns=drop) if drop else data

    def _check_names(self, names: Sequence[Hashable], what: str) -> None:
        observed = set(self.variables)
        for v in names:
            if v not in observed:
                raise ColumnNotFoundError(
                    f"{what} {v!r} is not an observed column; they are {self.variables[:20]} "
                    f"(the latents are summed out; model.network answers about them)",
                    column=v,
                )

    # ------------------------------------------------------------------ scores
    def log_likelihood_codes(self, codes: np.ndarray) -> np.ndarray:
        """``log P(observed cells of each row)`` of codes of the observed columns (``n x d``;
        ``-1``: missing): the latents and missing cells summed out."""
        return self.network.engine().log_evidence(self.joint_codes(codes))

    def score_samples(self, X: pd.DataFrame) -> np.ndarray:
        """Log-likelihood of each row (nats); missing cells and the latents summed out."""
        return self.network.engine().log_evidence(self.encode(X))

    # ------------------------------------------------------------------ queries
    def query(
        self,
        variables: Sequence[Hashable] | Hashable,
        evidence: Mapping[Hashable, Any] | None = None,
    ) -> pd.Series:
        """Exact ``P(variables | evidence)`` over observed columns, the latents summed out
        (:meth:`TreeModel.query <treelearn.TreeModel.query>` on the network)."""
        names = (
            [variables]
            if isinstance(variables, (str, int)) or not isinstance(variables, Sequence)
            else list(variables)
        )
        self._check_names(names, "query variable")
        self._check_names(list(evidence or {}), "evidence")
        return self.network.query(names, evidence)

    def marginals(self, evidence: Mapping[Hashable, Any] | None = None) -> dict:
        """``{column: P(column | evidence)}`` for every observed column not given a state."""
        self._check_names(list(evidence or {}), "evidence")
        hidden = set(self.latent)
        return {v: p for v, p in self.network.marginals(evidence).items() if v not in hidden}

    def map_query(
        self, evidence: Mapping[Hashable, Any] | None = None, return_log_prob: bool = False
    ) -> dict | tuple[dict, float]:
        """The most probable states of the observed columns not in ``evidence``, the latents
        **summed out** (marginal MAP), and with ``return_log_prob`` ``log P(assignment,
        evidence)``: exact, by the joint posterior of those columns (one
        :meth:`query`), so up to :data:`MAX_MAP_STATES` joint states (give more evidence
        beyond). Ties go to the first joint state in state order. The most probable
        completion *with* the latents is ``model.network.map_query``.

        >>> import pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> model = tl.HiddenTree(n_states=2, random_state=0, max_iter=5).fit(df).model_
        >>> sorted(model.map_query({"smoke": "yes", "asia": "no", "tub": "no"}))
        ['bronc', 'dysp', 'either', 'lung', 'xray']
        """
        given = dict(evidence or {})
        self._check_names(list(given), "evidence")
        free = [v for v in self.variables if v not in given]
        if not free:
            raise TreelearnError("every observed column is given: nothing to complete")
        size = float(np.prod([len(self.network.states[v]) for v in free], dtype=float))
        if size > MAX_MAP_STATES:
            raise TreelearnError(
                f"the most probable completion with the latents summed out enumerates the "
                f"{size:.3g} joint states of {len(free)} free columns (at most "
                f"{MAX_MAP_STATES:,}): give more evidence, or take "
                f"model.network.map_query(evidence), the most probable completion with the "
                f"latents"
            )
        check_memory(16.0 * size * len(self.network.variables), "map_query", "give more evidence")
        table = cast(pd.Series, self.network.query(free, given))
        best = int(np.argmax(table.to_numpy()))
        labels = table.index[best]
        assignment = dict(zip(free, labels if len(free) > 1 else (labels,)))
        if not return_log_prob:
            return assignment
        row = self.network.engine().codes_of(given)
        codes = np.full((1, len(self.network.variables)), -1, dtype=np.int64)
        codes[0, list(row)] = list(row.values())
        with np.errstate(divide="ignore"):
            log_p = float(self.network.engine().log_evidence(codes)[0]) + float(
                np.log(table.iloc[best])
            )
        return assignment, log_p

    def predict_proba(self, data: pd.DataFrame, target: Hashable) -> pd.DataFrame:
        """``P(target | each row's other observed cells)`` (a DataFrame, one column per
        state of ``target``): exact, the latents summed out; absent columns are missing."""
        self._check_names([target], "target")
        return self.network.predict_proba(self._observed(data), target)

    def predict(self, data: pd.DataFrame, target: Hashable) -> pd.Series:
        """The most probable state of ``target`` for every row given its other cells."""
        self._check_names([target], "target")
        return self.network.predict(self._observed(data), target)

    def impute(self, data: pd.DataFrame) -> pd.DataFrame:
        """``data``'s observed columns with every missing cell filled by its most probable
        state given the row's observed cells (each cell's exact marginal; ties to the first
        state).

        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> df = pd.read_csv("datasets/asia.csv")
        >>> model = tl.HiddenTree(n_states=2, random_state=0).fit(df).model_
        >>> holed = df.head(3).copy()
        >>> holed.loc[0, "either"] = np.nan
        >>> bool(model.impute(holed).notna().all().all())
        True
        """
        codes = self.encode(data)
        index = {v: j for j, v in enumerate(self.network.variables)}
        at = np.array([index[c] for c in self.variables])
        missing = codes[:, at] < 0
        if missing.any():
            marginals = self.network.engine().marginals_codes(codes)
            for j in np.flatnonzero(missing.any(axis=0)):
                rows = missing[:, j]
                best = np.argmax(np.nan_to_num(marginals[at[j]][rows], nan=-1.0), axis=1)
                codes[rows, at[j]] = best
        filled = decode_codes(codes[:, at], self.variables, self.states, self.dtypes)
        filled.index = data.index
        return filled

    # ------------------------------------------------------------------ sampling
    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
        return_latent: bool = False,
    ) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
        """Draw ``n`` rows of the observed columns, exactly from ``P(. | evidence)`` with
        ``evidence`` (with ``return_latent=True``, also their latent states: ``(rows,
        latents)``; ``numbers``: binned columns as numbers within each row's bin, as
        :meth:`TreeModel.sample <treelearn.TreeModel.sample>`).

        >>> import pandas as pd, treelearn as tl
        >>> model = tl.HiddenTree(n_states=2, random_state=0).fit(pd.read_csv("datasets/asia.csv")).model_
        >>> model.sample(3, random_state=0).shape
        (3, 8)
        """
        self._check_names(list(evidence or {}), "evidence")
        both = self.network.sample(n, random_state=random_state, evidence=evidence, numbers=numbers)
        rows = both[self.variables]
        return (rows, both[self.latent]) if return_latent else rows

    # ------------------------------------------------------------------ pictures
    def draw(self, ax: Any = None, **kwargs: Any) -> Any:
        """The network, latent nodes marked; ``ax`` and ``kwargs`` as :meth:`treelearn.Model.draw`'s."""
        kwargs.setdefault("latent", self.latent)
        return self.network.draw(ax, **kwargs)

    def to_dot(self, **kwargs: Any) -> str:
        """The network as Graphviz DOT text (:meth:`TreeModel.to_dot`)."""
        return self.network.to_dot(**kwargs)

    def to_mermaid(self, **kwargs: Any) -> str:
        """The network as a Mermaid flowchart (:meth:`TreeModel.to_mermaid`)."""
        return self.network.to_mermaid(**kwargs)

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page of the network (:meth:`TreeModel.explorer_spec
        <treelearn.TreeModel.explorer_spec>`), titled as a hidden tree: its columns and
        latents counted apart (the network's own title said ``tree model · 74 variables``
        of 37 columns and their 37 latents)."""
        if title is None:
            from ..viz._page_spec import title_of

            k, m = len(self.variables), len(self.latent)
            parts = [f"{k} column{'' if k == 1 else 's'}", f"{m} latent{'' if m == 1 else 's'}"]
            title = title_of("hidden tree", parts, self.network.n_rows)
        return self.network.explorer_spec(title)

    # ------------------------------------------------------------------ files
    def to_dict(self) -> dict:
        """The network (:meth:`TreeModel.to_dict`), the latents' names, whether tied."""
        return {
            "network": self.network.to_dict(),
            "latent_names": [encode_label(v) for v in self.latent],
            "tied": self.tied,
        }

    @classmethod
    def from_dict(cls, d: Any, where: str = "saved HiddenTreeModel") -> HiddenTreeModel:
        """The model :meth:`to_dict` describes, every field checked (an
        :class:`~treelearn.InvalidModelError` naming the field)."""

        def fail(field: str, what: str) -> InvalidModelError:
            return InvalidModelError(f"{where}: field {field!r} {what}")

        if not isinstance(d, Mapping):
            raise InvalidModelError(f"{where} must be a JSON object, not {type(d).__name__}")
        for field in ("network", "latent_names", "tied"):
            if field not in d:
                raise fail(field, "is missing")
        if not isinstance(d["tied"], bool):
            raise fail("tied", f"must be true or false, not {d['tied']!r}")
        raw = d["latent_names"]
        if not isinstance(raw, list) or not raw:
            raise fail("latent_names", "must be a non-empty list of labels")
        try:
            latent = [decode_label(v) for v in raw]
        except DecodeError as exc:
            raise fail("latent_names", f"holds a value that is no saved label ({exc})") from None
        try:
            distinct = len(set(latent)) == len(latent)
        except TypeError:  # an unhashable label
            distinct = False
        if not distinct:
            raise fail("latent_names", "must hold distinct labels")
        network = TreeModel.from_dict(d["network"])
        problem = _shape_problem(network, latent, d["tied"])
        if problem is not None:
            raise fail(*problem)
        return cls(network, latent, d["tied"])

    # ------------------------------------------------------------------ text
    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then the latent tree, each latent beside its column."""
        d = len(self.variables)
        yield (
            f"HiddenTreeModel: {d} observed column{'' if d == 1 else 's'}, one latent of "
            f"{self.n_states} states each{' (tables tied across steps)' if self.tied else ''}, "
            f"{self.n_parameters} parameters"
        )
        states = self.network.states
        column = dict(zip(self.latent, self.variables))
        parent = {v: (self.network.parents(v) or [None])[0] for v in self.latent}
        roots = [v for v in self.latent if parent[v] is None]

        def label(v: Hashable, up: Hashable | None) -> str:
            c = column[v]
            return f"{v} -> {c} ({states_text(len(states[c]))})"

        yield from tree_lines(roots, parent, label)
