"""One network over the features and the class (``model_``): the base of naive Bayes,
TAN, KDB and mixed naive Bayes.

The class posterior needs ``log p(x_observed, c)`` for every class: a gather per node
for complete rows, and for rows with missing features one pass of the engine
(:class:`~treelearn.inference._engine.TreeEngine`, the class as its conditioner) that
sums them out exactly.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any, ClassVar

import networkx as nx
import numpy as np
import pandas as pd

from .._base.errors import TreelearnError
from .._base.persistence import SavedState
from ..inference._shapley import EngineGame, Game
from ..learners._chow_liu import build_model
from ..models._tree import TreeModel
from ..stats._counts import ClassCounts
from ._base import CategoricalClassifier, network_dtypes
from ._class_arcs import averaged_cpts
from ._state_codes import class_joint_log_likelihood

__all__ = ["SingleNetworkClassifier"]

#: cells (rows x variables) of one block of rows with missing values in a prediction
#: (the engine's messages, about 100 bytes a cell: some 3 MiB)
_BLOCK_CELLS = 2**15
_MIN_BLOCK_ROWS = 256


class SingleNetworkClassifier(CategoricalClassifier):
    """One network over the features and the class (``model_``): naive Bayes, TAN, KDB.

    A subclass supplies ``_structure(stats)`` (the network's DAG over the features
    and the class, the last column); the CPTs are learned by
    :func:`~treelearn.learners._chow_liu.build_model` and the class node's CPT is the
    class prior.
    """

    _method: ClassVar[str] = "network"
    #: one network over the features and the class answers everything a network does
    capabilities: ClassVar[frozenset[str]] = frozenset(
        {
            "classify",
            "score",
            "query",
            "marginals",
            "map",
            "sample",
            "sample_given",
            "explain",
            "draw",
            "explorer",
            "to_pgmpy",
            "bif",
            "pyagrum",
        }
    )

    @abstractmethod
    def _structure(self, stats: ClassCounts, params: dict) -> nx.DiGraph:
        """The network's structure over the features and the class (last column)."""

    def _network_description(self, params: dict) -> dict:
        """What the fitted network records in its settings (subclasses add to it)."""
        return self._description(self._method)

    def _learn(self, stats: ClassCounts, params: dict) -> None:
        self._learn_network(self._structure(stats, params), stats, params)

    def _check_combination(self, params: dict) -> None:
        super()._check_combination(params)
        if (
            params.get("class_arcs") == "average"
            and params.get("prior", "lidstone") == "lidstone"
            and params["alpha"] == 0
        ):
            raise TreelearnError(
                f"{type(self).__name__}(alpha=0) is maximum likelihood, which has no marginal "
                f"likelihood to average the class arcs by (class_arcs='average', the default): "
                f"give class_arcs='all' for the plain maximum-likelihood CPTs, or alpha > 0",
                values=[0],
            )

    def _learn_network(self, structure: nx.DiGraph, stats: ClassCounts, params: dict) -> None:
        """The network of ``structure`` with CPTs from ``stats`` (the class CPT the prior),
        its class arcs averaged (:mod:`~treelearn.classifiers._class_arcs`) unless
        ``class_arcs="all"``."""
        model = build_model(
            structure,
            stats,
            self._cpt_settings(params, self._method),
            description=self._network_description(params),
        )
        self.arc_posterior_ = self._average_class_arcs(model.graph, stats, params)
        # the class node's CPT is the class prior (frequencies, given, or uniform)
        model.graph.nodes[self.class_name_]["cpt"] = np.exp(self.class_log_prior_)
        self.model_ = TreeModel(
            model.graph,
            variables=model.variables,
            dtypes=network_dtypes(model.dtypes),
            n_rows=model.n_rows,
            settings=model.settings,
        )
        self._build_engine()

    def _average_class_arcs(
        self, graph: nx.DiGraph, stats: ClassCounts, params: dict
    ) -> np.ndarray:
        """Each network feature's ``p_j``, its CPT in ``graph`` replaced by the class-arc
        average (``class_arcs="average"``); 1 for a feature with the class arc under
        ``class_arcs="all"``, 0 for one without it (ETAN's choice)."""
        columns = list(stats.columns)
        position = {c: j for j, c in enumerate(columns)}
        features, class_name = columns[:-1], columns[-1]
        has_arc = np.array([class_name in graph.nodes[f]["parents"] for f in features])
        posterior = has_arc.astype(float)
        if params.get("class_arcs", "all") != "average" or not has_arc.any():
            return posterior
        averaged = [f for f, arc in zip(features, has_arc) if arc]
        families = [
            [position[p] for p in graph.nodes[f]["parents"]] + [position[f]] for f in averaged
        ]
        many = getattr(stats, "family_counts_many", None)
        counts = many(families) if many is not None else [stats.family_counts(f) for f in families]
        cpts, p = averaged_cpts(
            counts,
            [graph.nodes[f]["parents"].index(class_name) for f in averaged],
            params["alpha"],
            params.get("prior", "lidstone"),
            params.get("equivalent_sample_size", 1.0),
            params.get("m", 1.0),
            params["arc_prior"],
        )
        for f, cpt in zip(averaged, cpts):
            graph.nodes[f]["cpt"] = cpt
        posterior[has_arc] = p
        return posterior

    def _build_engine(self) -> None:
        """The network's engine, the class as its conditioner (its states the batch axis:
        one pass gives ``log p(x_observed, c)`` for every class), built when the network is
        set (fit, load) and kept on the model, never in predict: scikit-learn expects
        prediction to leave the estimator's ``__dict__`` unchanged."""
        self.model_.engine(self.class_name_)

    def _feature_states(self) -> list:
        states = self.model_.states
        return [states[f] for f in self.feature_names_in_]

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        model = self.model_
        n, d = codes.shape
        k = len(self.classes_)
        # codes in the model's variable order: the features, then the class
        complete = (codes >= 0).all(axis=1)
        if complete.all():  # no copy of the rows
            return class_joint_log_likelihood(model, self.class_name_, codes, k)
        out = np.empty((n, k))
        if complete.any():
            # complete rows: a gather per node and class, log p(x, c) exactly in log space,
            # cheaper than message passing when nothing is summed out
            at = np.flatnonzero(complete)
            out[at] = class_joint_log_likelihood(model, self.class_name_, codes, k, which=at)
        # the other rows in blocks: the engine's messages (about 100 bytes per row and
        # variable) and the block's copy stay a fixed size whatever the rows; a row's
        # answer does not depend on the rows beside it
        engine = model.engine(self.class_name_)
        block = max(_MIN_BLOCK_ROWS, _BLOCK_CELLS // (d + 1))
        missing = np.flatnonzero(~complete)
        for start in range(0, len(missing), block):
            at = missing[start : start + block]
            rows = np.full((len(at), d + 1), -1, dtype=np.intp)
            rows[:, :d] = codes[at]  # the class unobserved: one pass gives every class
            out[at] = engine.log_evidence_by_conditioner(rows)
        return out

    def _explain_game(self, rows: np.ndarray, background: np.ndarray | None) -> Game:
        """The network's own game: its engine given the class (every coalition of a row
        in one pass on a forest given the class; the features' groups and a topological
        order from the network)."""
        if self._network_features() != list(self.feature_names_in_):
            return super()._explain_game(rows, background)  # features beside the network

        def full(codes: np.ndarray) -> np.ndarray:  # the class column, unobserved
            return np.hstack([codes, np.full((len(codes), 1), -1, dtype=codes.dtype)])

        return EngineGame(
            self.model_.engine(self.class_name_),
            full(rows),
            range(rows.shape[1]),
            background=None if background is None else full(background),
        )

    @property
    def n_parameters(self) -> int:
        """Free parameters of the fitted network (the class prior included)."""
        self._require_fitted()
        return self.model_.n_parameters

    def to_dot(self, **kwargs: Any) -> str:
        """Graphviz DOT text of the fitted network, the class marked."""
        self.require("draw")
        self._require_fitted()
        return self.model_.to_dot(**kwargs)

    def to_mermaid(self, **kwargs: Any) -> str:
        """A Mermaid flowchart of the fitted network."""
        self.require("draw")
        self._require_fitted()
        return self.model_.to_mermaid(**kwargs)

    def explorer_spec(self, title: str | None = None) -> dict:
        """The explorer page (for :func:`treelearn.to_html`): the fitted network, the
        class marked (TAN's class its conditioner: one forest per class)."""
        from ..viz._page_spec import network_spec, require_fitted, title_of

        require_fitted(self)
        self._require_fitted()  # a partial_fit call after the first: learn its counts now
        model = self.model_
        n = len(model.variables)
        parts = [f"{n} variable{'' if n == 1 else 's'}"]
        if title is None:
            title = title_of(type(self).__name__, parts, model.n_rows)
        return network_spec(model, title, cls=self.class_name_)

    def to_pgmpy(self) -> Any:
        """The fitted network as a pgmpy ``DiscreteBayesianNetwork``."""
        self._require_fitted()
        return self.model_.to_pgmpy()

    def to_pyagrum(self) -> Any:
        """The fitted network as a ``pyagrum.BayesNet`` (:meth:`TreeModel.to_pyagrum
        <treelearn.TreeModel.to_pyagrum>`; needs pyAgrum)."""
        self._require_fitted()
        self.require("pyagrum")
        return self.model_.to_pyagrum()

    def to_bif(self, path: Any) -> None:
        """Write the fitted network as a BIF file (:meth:`TreeModel.to_bif
        <treelearn.TreeModel.to_bif>`)."""
        self._require_fitted()
        self.require("bif")
        self.model_.to_bif(path)

    def to_xmlbif(self, path: Any, name: str = "treelearn") -> None:
        """Write the fitted network as an XMLBIF 0.3 file (its ``<NAME>`` ``name``)."""
        self._require_fitted()
        self.require("bif")
        self.model_.to_xmlbif(path, name)

    def to_uai(self, path: Any) -> None:
        """Write the fitted network as a UAI ``BAYES`` file."""
        self._require_fitted()
        self.require("bif")
        self.model_.to_uai(path)

    # ------------------------------------------------------------ the network's answers
    def query(
        self,
        variables: Sequence[Hashable] | Hashable,
        evidence: Mapping[Hashable, Any] | None = None,
    ) -> pd.Series:
        """Exact ``P(variables | evidence)`` on the network of features and class
        (:meth:`TreeModel.query <treelearn.TreeModel.query>`).

        >>> import pandas as pd, treelearn as tl
        >>> X, y = pd.DataFrame({"f": ["a", "a", "b", "b"]}), pd.Series([0, 0, 0, 1], name="c")
        >>> clf = tl.NaiveBayes(alpha=0, class_arcs="all").fit(X, y)
        >>> clf.query("c", {"f": "b"}).tolist()   # 1 of the 2 rows with f = b has c = 1
        [0.5, 0.5]
        """
        self._require_fitted()
        return self.model_.query(variables, evidence)

    def marginals(self, evidence: Mapping[Hashable, Any] | None = None) -> dict:
        """``{variable: P(variable | evidence)}`` of every feature and the class not given."""
        self._require_fitted()
        return self.model_.marginals(evidence)

    def map_query(
        self, evidence: Mapping[Hashable, Any] | None = None, return_log_prob: bool = False
    ) -> dict | tuple[dict, float] | pd.DataFrame | tuple[pd.DataFrame, np.ndarray]:
        """The most probable assignment of every variable (features and class) not in
        ``evidence`` (:meth:`TreeModel.map_query <treelearn.TreeModel.map_query>`)."""
        self._require_fitted()
        return self.model_.map_query(evidence, return_log_prob=return_log_prob)

    def sample(
        self,
        n: int,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
        numbers: bool = False,
    ) -> pd.DataFrame:
        """Draw ``n`` rows (the features, then the class) from the fitted network, or
        exactly from it given ``evidence``; ``numbers`` as in :meth:`TreeModel.sample
        <treelearn.TreeModel.sample>`.

        Examples
        --------
        >>> import pandas as pd, treelearn as tl
        >>> X, y = pd.DataFrame({"f": ["a", "a", "b", "b"]}), pd.Series([0, 0, 0, 1], name="c")
        >>> list(tl.NaiveBayes().fit(X, y).sample(3, random_state=0).columns)
        ['f', 'c']
        """
        self._require_fitted()
        return self.model_.sample(n, random_state=random_state, evidence=evidence, numbers=numbers)

    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then the network as a text tree."""
        yield from super()._text_lines(digits)
        yield self.model_.to_text(digits)

    # ------------------------------------------------------------ saving
    def _fitted_state(self) -> dict:
        return {"model": self.model_.to_dict(), "arc_posterior": self.arc_posterior_.tolist()}

    @classmethod
    def _check_saved_params(cls, saved: SavedState, est: Any) -> None:
        """A file from before ``class_arcs`` holds plain CPTs: it loads as ``"all"``."""
        given = saved.raw("params", dict)
        if "class_arcs" in est.get_params(deep=False) and "class_arcs" not in given:
            est.set_params(class_arcs="all")  # not the default "average" it was built with
            given.setdefault("class_arcs", "all")
            given.setdefault("arc_prior", 0.5)
        super()._check_saved_params(saved, est)

    def _restore_model(self, saved: SavedState) -> None:
        model = TreeModel.from_dict(saved.raw("model", dict))
        self._check_class_states(saved, model)
        self._check_feature_states(saved, model)
        prior = np.exp(self.class_log_prior_)
        if not np.allclose(model.cpt(self.class_name_), prior, rtol=0, atol=1e-12):
            raise saved.fail("class_log_prior", "differs from the network's class CPT")
        self.model_ = model
        d = len(self._network_features())
        if saved.has("arc_posterior"):
            self.arc_posterior_ = saved.array("arc_posterior", (d,), low=0)
            if (self.arc_posterior_ > 1).any():
                raise saved.fail("arc_posterior", "must hold probabilities between 0 and 1")
        else:  # a file from before class_arcs: every class arc in
            self.arc_posterior_ = np.array(
                [self.class_name_ in model.parents(f) for f in self._network_features()], float
            )
        self._build_engine()
