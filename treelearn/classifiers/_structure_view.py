"""The picture of a classifier over numbers whose structure is not one discrete network.

:class:`~treelearn.MixedTAN`, :class:`~treelearn.GaussianTAN`, :class:`~treelearn.CopulaTAN`
and :class:`~treelearn.KernelTAN` hold a feature tree (``feature_tree_``, edge ``weight`` =
the class-conditional mutual information, nats) and one density per class;
:class:`~treelearn.MixedNaiveBayes` holds a discrete network over its categorical features
and a Gaussian per class for each number. None of them has one network that
:func:`treelearn.viz._draw.draw` could read, so :class:`StructureView` builds one for the
picture alone: the class over every feature, each feature under its parent in the feature
tree with the conditional MI on the edge (TAN's picture), a feature's kind after its name
(``"bill_length_mm (Gaussian)"``, as ``learn`` prints it). :class:`DrawsStructure` gives the
classifiers ``draw``, ``to_dot`` and ``to_mermaid`` from it, once for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import networkx as nx

__all__ = ["DrawnWhen", "DrawsStructure", "StructureView", "structure_view"]


@dataclass(frozen=True)
class StructureView:
    """One network for :mod:`treelearn.viz._draw` (its ``Network`` protocol): the class and
    the features, named as the picture shows them, the edges of the structure.

    ``scorer`` gives the title's log-likelihood of a table holding the class column.
    """

    variables: list
    graph: Any  # a networkx DiGraph; graph attribute "class" marks the class node
    settings: dict
    n_rows: float | None
    scorer: Callable[[Any], float] = field(repr=False)

    @property
    def roots(self) -> list:
        return [v for v in self.variables if self.graph.in_degree(v) == 0]

    def parents(self, variable: Hashable) -> list:
        """The class first, then the feature parent (TAN's order of a CPT's axes)."""
        cls = self.graph.graph.get("class")
        ps = list(self.graph.predecessors(variable))
        return sorted(ps, key=lambda p: p != cls)

    def log_likelihood(self, data: Any) -> float:
        return float(self.scorer(data))


def _feature_edges(clf: Any) -> list[tuple[Hashable, Hashable, float]]:
    """The feature tree's edges, parent to child, with their weights: ``tree_`` (the tree
    oriented from ``root_``) where the classifier keeps ``feature_tree_`` undirected,
    ``feature_tree_`` itself where it is the oriented tree; none for naive Bayes."""
    weighted = getattr(clf, "feature_tree_", None)
    if weighted is None:
        return []
    oriented = weighted if weighted.is_directed() else clf.tree_
    return [(u, v, float(weighted.edges[u, v]["weight"])) for u, v in oriented.edges]


def _feature_kinds(clf: Any) -> dict:
    """What is written after a feature's name: Gaussian for the mixed classifiers'
    numbers, kernel for KernelTAN's kernel-density features (its others are Gaussian and
    every feature is a number, so they go unmarked, as all of GaussianTAN's and
    CopulaTAN's)."""
    if hasattr(clf, "numeric_features_"):
        kinds = dict.fromkeys(clf.numeric_features_, "Gaussian")
        kinds.update(binned_kinds(clf))
        return kinds
    return dict.fromkeys(getattr(clf, "kernel_features_", []), "kernel")


def binned_kinds(clf: Any) -> dict:
    """A mixed classifier's numbers cut into bins (``numbers=``), each marked with its
    count of MDL bins (``"age (3 MDL bins)"``)."""
    binner = getattr(clf, "binner_", None)
    if binner is None:
        return {}
    out = {}
    for f in getattr(clf, "binned_features_", []):
        n = len(binner.edges_[f]) + 1
        out[f] = f"{n} MDL bin{'' if n == 1 else 's'}"
    return out


def structure_view(clf: Any) -> StructureView:
    """The fitted classifier's structure as one drawable network.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.DataFrame({"g": list("ab") * 6, "x": [float(i % 5) for i in range(12)],
    ...                    "z": [float(i % 3) for i in range(12)], "y": [0, 0, 1] * 4})
    >>> view = structure_view(tl.MixedTAN(numbers="gaussian").fit(df[["g", "x", "z"]], df["y"]))
    >>> view.variables
    ['y', 'g', 'x (Gaussian)', 'z (Gaussian)']
    >>> sorted(e for e in view.graph.edges if e[0] != "y")
    [('g', 'x (Gaussian)'), ('x (Gaussian)', 'z (Gaussian)')]
    """
    cls = clf.class_name_
    features = list(clf.feature_names_in_)
    kinds = _feature_kinds(clf)
    names = {f: f"{f} ({kinds[f]})" if f in kinds else f for f in features}
    if len({str(cls), *map(str, names.values())}) < len(features) + 1:
        names = {f: f for f in features}  # a marked name would read as another column's
    graph = nx.DiGraph(**{"class": cls})
    graph.add_node(cls)
    for f in features:
        graph.add_edge(cls, names[f])
    for u, v, weight in _feature_edges(clf):
        graph.add_edge(names[u], names[v], weight=weight)
    features_of = {names[f]: f for f in features}

    def scorer(data: Any) -> float:
        return float(clf.log_likelihood(data[features], data[cls]))

    return StructureView(
        variables=[cls, *features_of],
        graph=graph,
        settings={"method": clf._picture_method, "class": cls},
        n_rows=float(clf.class_count_.sum()),
        scorer=scorer,
    )


class DrawnWhen:
    """The ``capabilities`` of a classifier that has a picture only under some parameters:
    ``base``, with ``"draw"`` on an instance for which ``when(instance)`` holds. Read on the
    class (as every check of the declarations reads it), ``base``.

    :class:`~treelearn.GaussianClassifier` is drawn as naive Bayes (the class over every
    feature) with a ``diagonal`` or ``isotropic`` covariance; with a ``full`` or ``shared``
    one every pair of features is dependent within a class, which the picture would hide.

    >>> from treelearn.models._base import Capable
    >>> class Star(Capable):
    ...     kind = "star"
    ...     capabilities = DrawnWhen({"score"}, lambda s: s.independent)
    ...     def __init__(self, independent): self.independent = independent
    >>> sorted(Star.capabilities), sorted(Star(True).capabilities), sorted(Star(False).capabilities)
    (['score'], ['draw', 'score'], ['score'])
    """

    def __init__(self, base: Iterable[str], when: Callable[[Any], bool]) -> None:
        self.base = frozenset(base)
        self.when = when

    def __get__(self, obj: object | None, owner: Any = None) -> frozenset[str]:
        if obj is None or not self.when(obj):
            return self.base
        return self.base | {"draw"}


class DrawsStructure:
    """``draw``, ``to_dot`` and ``to_mermaid`` of a classifier drawn by its
    :func:`structure_view` (listed before the classifier's base, so these win over the
    base's single-network ones). ``_picture_method`` names the model in the title."""

    _picture_method: str = "classifier"

    def draw(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the class over every feature and the feature tree (the class-conditional
        MI on each edge with ``edge_labels=True``); returns a matplotlib Figure.

        ``ax`` and ``kwargs`` as :meth:`treelearn.Model.draw`'s; ``data`` (a table holding
        the class column) puts its log-likelihood in the automatic title.
        """
        from ..viz._draw import draw

        return draw(self._drawn(), ax, **kwargs)

    def to_dot(self, **kwargs: Any) -> str:
        """Graphviz DOT text of :meth:`draw`'s picture (``kwargs``: ``edge_labels``,
        ``class_node``, ``digits``, ``name``)."""
        from ..viz._draw import to_dot

        return to_dot(self._drawn(), **kwargs)

    def to_mermaid(self, **kwargs: Any) -> str:
        """A Mermaid flowchart of :meth:`draw`'s picture (``kwargs``: ``edge_labels``,
        ``class_node``, ``digits``)."""
        from ..viz._draw import to_mermaid

        return to_mermaid(self._drawn(), **kwargs)

    if TYPE_CHECKING:  # the classifier base's (listed after this class)

        def require(self, capability: str, what: str | None = None) -> None: ...
        def _require_fitted(self) -> None: ...

    def _drawn(self) -> StructureView:
        self.require("draw")
        self._require_fitted()
        return structure_view(self)
