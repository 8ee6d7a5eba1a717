"""The model protocol: what every fitted model kind of treelearn is and says it can do.

Every model kind (a discrete tree, a Gaussian tree, a CLG tree, a copula tree, a kernel
forest, a cutset network, a mixture of trees, a hidden tree, the Bayesian posterior over
trees) derives from :class:`Model`, as scikit-learn's naive Bayes variants derive from
``_BaseNB`` and pomegranate's distributions from ``Distribution``. A kind supplies a few
hooks; the rest is written here once:

=============================  ===========================================================
a kind supplies                the base derives
=============================  ===========================================================
``kind`` (its saved name)      the registry :data:`MODEL_KINDS` (``tl.load`` finds it)
``capabilities``               :meth:`~Model.supports`, :meth:`~Model.require` (the one
                               refusal, :class:`~treelearn.CapabilityError`)
``score_samples(X)``           ``log_likelihood``, ``score``, ``bic``, ``aic``
``n_parameters``               ``bic``, ``aic``
``sample(n, random_state)``
``to_dict()``, ``from_dict()``  ``save``, and ``tl.load`` through the registry
``_text_lines()`` (optional)   ``to_text``, ``__repr__`` (the command line's ``show``)
=============================  ===========================================================

and the pictures (``draw``, ``to_dot``, ``to_mermaid``, ``to_html``, ``explore``) for the
kinds that declare ``"draw"`` and ``"explorer"``.

Consumers (``tl.save``/``tl.load``, the command line, the explorer) ask a model its
``kind`` and ``capabilities``; they never probe attributes to find out what it is. A
capability a kind does not declare is refused by :meth:`Model.require`, naming the kind
and what it does answer.

>>> import pandas as pd, treelearn as tl
>>> m = tl.chow_liu(pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]}))
>>> m.kind, m.supports("map"), isinstance(m, Model)
('tree_model', True, True)
>>> g = tl.gaussian_chow_liu(pd.DataFrame({"a": [0.0, 1, 2, 4], "b": [1.0, 2, 2, 5]}))
>>> g.require("map")
Traceback (most recent call last):
...
treelearn.CapabilityError: a GaussianTreeModel does not answer map (the most probable completion of evidence); it answers: score, sample, sample_given, query, predict, draw, explorer, to_pgmpy
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Iterator, Mapping
from typing import Any, ClassVar, Literal, overload

import numpy as np
import pandas as pd

from .._base.errors import CapabilityError
from ..encoding._table import weighted_total
from ..export._jsonfile import model_document, save_document

__all__ = [
    "CAPABILITIES",
    "MODEL_KINDS",
    "Capable",
    "ChosenCapabilities",
    "Model",
    "rows_text",
    "tree_lines",
]

#: what a model kind (or an estimator) can be asked, in the order the refusals list them;
#: the command line and the explorer read these words, never the classes
CAPABILITIES: dict[str, str] = {
    "score": "the log-likelihood of rows",
    "sample": "drawing rows",
    "sample_given": "drawing rows given evidence",
    "query": "a posterior given evidence",
    "marginals": "every variable's posterior at once",
    "map": "the most probable completion of evidence",
    "predict": "predicting one variable from the others in each row",
    "classify": "predicting the class",
    "explain": "Shapley values of a prediction",
    "draw": "a picture (matplotlib, DOT, Mermaid)",
    "explorer": "the interactive HTML page",
    "to_pgmpy": "a pgmpy network",
    "bif": "BIF, XMLBIF and UAI files",
    "pyagrum": "a pyAgrum network",
    "partial_fit": "adding rows to a learned model",
}

#: every model kind by its saved name (filled as the classes are defined)
MODEL_KINDS: dict[str, type[Model]] = {}


class Capable:
    """What every object a consumer dispatches on says about itself: ``kind`` and
    ``capabilities`` (words of :data:`CAPABILITIES`), and the one refusal.

    Models derive it through :class:`Model`; classifiers and density estimators mix it
    in, so the command line asks every loaded object the same two questions.
    """

    #: the saved kind's name (``"tree_model"``, ``"gaussian_tree"``, ``"classifier"``...)
    kind: ClassVar[str]
    #: what the kind answers (a frozenset of :data:`CAPABILITIES`' words)
    capabilities: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        unknown = set(cls.capabilities) - set(CAPABILITIES)
        if unknown:  # a typo would make a consumer refuse what the kind can do
            raise TypeError(f"{cls.__name__}.capabilities: unknown word(s) {sorted(unknown)}")

    def supports(self, capability: str) -> bool:
        """Whether this object answers ``capability`` (a word of :data:`CAPABILITIES`)."""
        if capability not in CAPABILITIES:
            raise KeyError(f"unknown capability {capability!r}; they are {list(CAPABILITIES)}")
        return capability in self.capabilities

    def require(self, capability: str, what: str | None = None) -> None:
        """Raise the one refusal unless this object answers ``capability``.

        ``what`` names what was asked in the caller's words (a command line option, say);
        by default the capability and its description.
        """
        if self.supports(capability):
            return
        asked = what or f"{capability} ({CAPABILITIES[capability]})"
        answers = [c for c in CAPABILITIES if c in self.capabilities]
        why = self._refusal_reason(capability)
        reason, fix, fixes = why if why is not None else (None, None, ())
        raise CapabilityError(
            f"{_article(type(self).__name__)} does not answer {asked}; it answers: "
            f"{', '.join(answers) or 'nothing'}" + (f"; {reason}: {fix}" if why else ""),
            capability=capability,
            kind=self.kind,
            supported=answers,
            reason=reason,
            fixes=fixes,
        )

    def _refusal_reason(self, capability: str) -> tuple[str, str, tuple[str, ...]] | None:
        """Why this object does not answer ``capability`` where its kind sometimes does:
        ``(reason, the fix in Python's words, the fixes by name)`` (the command line words
        the named fixes as flags), or None (the refusal lists what it answers)."""
        return None


class ChosenCapabilities:
    """The ``capabilities`` of an estimator that answers for what it chose while fitting
    (:class:`~treelearn.AutoDensity`, :class:`~treelearn.AutoClassifier`): once fitted,
    the words of ``forwarded`` (those it passes on) that its chosen object (the attribute
    ``chosen``) answers; unfitted, and read on the class (as every check of the
    declarations reads it), ``shared``: what every candidate answers.

    A chooser whose chosen model draws then draws (``learn --method auto --plot``), and one
    whose chosen model does not refuses it, each in the one refusal.

    >>> class Pick(Capable):
    ...     kind = "pick"
    ...     capabilities = ChosenCapabilities({"score"}, {"score", "draw"}, "chosen_")
    >>> class Drawn(Capable):
    ...     kind = "drawn"
    ...     capabilities = frozenset({"score", "draw", "map"})
    >>> Pick.capabilities, Pick().capabilities
    (frozenset({'score'}), frozenset({'score'}))
    >>> pick = Pick(); pick.chosen_ = Drawn()
    >>> sorted(pick.capabilities)  # map is not passed on
    ['draw', 'score']
    """

    def __init__(self, shared: Iterable[str], forwarded: Iterable[str], chosen: str) -> None:
        self.shared = frozenset(shared)
        self.forwarded = frozenset(forwarded)
        self.chosen = chosen
        if not self.shared <= self.forwarded:  # a shared word it could not pass on
            raise TypeError(f"shared {sorted(self.shared - self.forwarded)} not forwarded")

    def __get__(self, obj: object | None, owner: Any = None) -> frozenset[str]:
        chosen = None if obj is None else vars(obj).get(self.chosen)
        if not isinstance(chosen, Capable):
            return self.shared
        return frozenset(chosen.capabilities & self.forwarded)

    def pass_on(self, method: str, capability: str) -> Any:
        """A method of the chooser that passes ``method`` on to its chosen object: before
        the fit scikit-learn's ``NotFittedError`` naming ``fit``; after it the one refusal
        unless the choice answers ``capability`` (a word the chooser forwards); then the
        chosen object's ``method`` with the arguments as given.

        >>> class Pick(Capable):
        ...     kind = "pick"
        ...     capabilities = ChosenCapabilities({"score"}, {"score", "bif"}, "chosen_")
        ...     to_bif = capabilities.pass_on("to_bif", "bif")
        >>> class Net(Capable):
        ...     kind = "net"
        ...     capabilities = frozenset({"score", "bif"})
        ...     def to_bif(self, path): return f"wrote {path}"
        >>> Pick().to_bif("x.bif")
        Traceback (most recent call last):
        ...
        sklearn.exceptions.NotFittedError: This Pick is not fitted yet: call fit before to_bif
        >>> pick = Pick(); pick.chosen_ = Net()
        >>> pick.to_bif("x.bif")
        'wrote x.bif'
        """
        if capability not in self.forwarded:  # a word the chooser never answers
            raise TypeError(f"{capability!r} is not forwarded")
        attribute = self.chosen

        def passed_on(obj: Capable, *args: Any, **kwargs: Any) -> Any:
            chosen = vars(obj).get(attribute)
            if chosen is None:
                from sklearn.exceptions import NotFittedError

                raise NotFittedError(
                    f"This {type(obj).__name__} is not fitted yet: call fit before {method}"
                )
            obj.require(capability)
            return getattr(chosen, method)(*args, **kwargs)

        passed_on.__name__ = passed_on.__qualname__ = method
        passed_on.__doc__ = (
            f"The chosen {'model' if attribute == 'model_' else 'classifier'}'s ``{method}`` "
            f"(where it answers {capability}: {CAPABILITIES[capability]}), with the "
            f"arguments as given."
        )
        return passed_on


def _article(name: str) -> str:
    return f"{'an' if name[:1] in 'AEIOU' else 'a'} {name}"


class Model(Capable, ABC):
    """The base of every fitted model kind.

    A subclass sets the class attributes ``kind`` and ``capabilities`` and supplies
    :meth:`score_samples`, :attr:`n_parameters`, :meth:`sample`, :meth:`to_dict` and
    :meth:`from_dict`; defining it registers it in :data:`MODEL_KINDS`. Every model has
    ``variables`` (its columns, in order).

    Written once here for every kind: ``log_likelihood``, ``score`` (mean per row),
    ``bic`` (``log_likelihood - n_parameters ln(n) / 2``), ``aic``, ``save``,
    ``to_text``, ``draw``, ``to_dot`` and ``to_html``; ``require(capability)`` raises
    :class:`CapabilityError` for what a kind does not answer.

    See Also
    --------
    TreeModel, GaussianTreeModel, CLGTreeModel, MixtureModel : model kinds.
    load : reads any kind back.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> model = tl.chow_liu(df)
    >>> isinstance(model, tl.Model), model.kind, "query" in model.capabilities
    (True, 'tree_model', True)
    >>> bic = model.log_likelihood(df) - model.n_parameters * np.log(len(df)) / 2
    >>> bool(np.isclose(model.bic(df), bic))
    True
    """

    variables: list

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "kind" in cls.__dict__:  # a concrete kind (an intermediate base names none)
            if cls.kind in MODEL_KINDS and MODEL_KINDS[cls.kind].__name__ != cls.__name__:
                raise TypeError(f"model kind {cls.kind!r} is taken by {MODEL_KINDS[cls.kind]}")
            MODEL_KINDS[cls.kind] = cls

    # ------------------------------------------------------------ what a kind supplies
    @abstractmethod
    def score_samples(self, X: Any) -> np.ndarray:
        """``log p(row)`` of each row of ``X`` in nats (missing cells summed out)."""

    @property
    @abstractmethod
    def n_parameters(self) -> int:
        """The number of free parameters (what BIC and AIC charge)."""

    @abstractmethod
    def sample(self, n: int, random_state: Any = None) -> pd.DataFrame:
        """``n`` rows drawn from the model, one column per variable."""

    @abstractmethod
    def to_dict(self) -> dict:
        """The model as JSON-able values: the ``"model"`` part of a saved file."""

    @classmethod
    @abstractmethod
    def from_dict(cls, d: Any) -> Model:
        """The model :meth:`to_dict` describes, every field checked (an
        :class:`~treelearn.InvalidModelError` names the field that is wrong)."""

    # ------------------------------------------------------------ scores, written once
    @overload
    def log_likelihood(
        self, data: Any, per_row: Literal[False] = False, sample_weight: Any = None
    ) -> float: ...
    @overload
    def log_likelihood(
        self, data: Any, per_row: Literal[True], sample_weight: Any = None
    ) -> np.ndarray: ...
    @overload
    def log_likelihood(
        self, data: Any, per_row: bool, sample_weight: Any = None
    ) -> float | np.ndarray: ...
    def log_likelihood(
        self, data: Any, per_row: bool = False, sample_weight: Any = None
    ) -> float | np.ndarray:
        """Log-likelihood of ``data`` in nats: the total, or with ``per_row`` one value per
        row (:meth:`score_samples`, not weighted). With ``sample_weight`` the total is the
        weighted sum; a row of weight zero does not count, even if impossible."""
        rows = self.score_samples(data)
        if per_row:
            return rows
        return weighted_total(rows, sample_weight)[0]

    def score(self, X: Any, y: Any = None, sample_weight: Any = None) -> float:
        """Mean log-likelihood per row (what ``GridSearchCV`` maximises); with
        ``sample_weight``, the weighted mean."""
        total, n = weighted_total(self.score_samples(X), sample_weight)
        return total / n

    def bic(self, data: Any, sample_weight: Any = None) -> float:
        """``log_likelihood - n_parameters / 2 * ln n`` (``n``: the rows, or their total
        weight): **larger is better**, as in bnlearn; scikit-learn's ``GaussianMixture.bic``
        is ``-2`` times this."""
        total, n = weighted_total(self.score_samples(data), sample_weight)
        return total - 0.5 * self.n_parameters * float(np.log(n))

    def aic(self, data: Any, sample_weight: Any = None) -> float:
        """``log_likelihood - n_parameters`` (weighted by ``sample_weight``): larger is
        better."""
        total, _ = weighted_total(self.score_samples(data), sample_weight)
        return total - self.n_parameters

    # ------------------------------------------------------------ files
    def save(self, path: str | os.PathLike) -> None:
        """Save to a versioned JSON file; read it back with :func:`treelearn.load`."""
        save_document(path, model_document(self))

    # ------------------------------------------------------------ text
    def to_text(self, digits: int = 4) -> str:
        """The model as text: a headline, then its structure (what ``treelearn show``
        prints)."""
        return "\n".join(self._text_lines(digits))

    def _text_lines(self, digits: int) -> Iterator[str]:
        """The lines of :meth:`to_text` (a kind with a structure draws it here)."""
        yield f"{type(self).__name__}: {len(self.variables)} variables"

    def __repr__(self) -> str:
        return self.to_text()

    # ------------------------------------------------------------ pictures
    def draw(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the model as a tree; returns a matplotlib Figure (needs matplotlib).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Draw into these axes (default: a new figure sized to the tree).
        **kwargs
            ``data`` (a DataFrame: with ``title=True`` its log-likelihood is shown),
            ``edge_labels`` (bool: the mutual information on each edge), ``title``
            (``True``, ``False`` or a string), ``class_node``, ``figsize``, ``fontsize``,
            ``digits`` (of the edge labels), ``level_gap``, ``class_edges`` (TAN:
            ``"lines"``, ``"marks"`` or ``"auto"``) and ``latent`` (nodes drawn as latent).

        Returns
        -------
        matplotlib.figure.Figure
            Not held by pyplot (close it or let it go).
        """
        self.require("draw")
        from ..viz._draw import Network, draw

        assert isinstance(self, Network)  # a kind that draws is one network
        return draw(self, ax, **kwargs)

    def to_dot(self, **kwargs: Any) -> str:
        """Graphviz DOT text of the drawing (``dot -Tsvg`` renders it).

        ``kwargs``: ``edge_labels`` (bool, default True: the mutual information on each
        edge), ``class_node``, ``digits`` and ``name`` (the graph's name).
        """
        self.require("draw")
        from ..viz._draw import Network, to_dot

        assert isinstance(self, Network)  # a kind that draws is one network
        return to_dot(self, **kwargs)

    def to_mermaid(self, **kwargs: Any) -> str:
        """A Mermaid flowchart for Markdown (GitHub renders it in a ``mermaid`` block).

        ``kwargs``: ``edge_labels`` (bool, default True), ``class_node`` and ``digits``.
        """
        self.require("draw")
        from ..viz._draw import Network, to_mermaid

        assert isinstance(self, Network)  # a kind that draws is one network
        return to_mermaid(self, **kwargs)

    def to_html(self, path: str | os.PathLike | None = None, **kwargs: Any) -> str | None:
        """An interactive page answering queries exactly in the browser (see
        :func:`treelearn.to_html`): the page's text, or with ``path`` written
        there and ``None`` returned (a notebook does not print the page)."""
        self.require("explorer")
        from ..viz._explorer import to_html

        page = to_html(self, path, **kwargs)
        return None if path is not None else page

    def explore(self, **kwargs: Any) -> Any:
        """The explorer inline in a notebook: an object whose ``_repr_html_`` is the page in
        an ``<iframe srcdoc=...>``; ``kwargs`` as :func:`treelearn.to_html`'s."""
        self.require("explorer")
        from ..viz._explorer import Explorer

        return Explorer(self, **kwargs)

    def _repr_svg_(self) -> str | None:
        """Jupyter shows a drawable model as a picture (text when matplotlib is absent)."""
        if not self.supports("draw"):
            return None
        from ..viz._draw import svg_or_none

        return svg_or_none(self)


def rows_text(n_rows: float) -> str:
    """The training rows as the text views print them: whole rows as an integer (``:g``
    printed a million rows as ``1e+06``), a weighted fit's sum of weights (a mixture
    component's expected rows) to two decimals.

    >>> rows_text(1_000_000), rows_text(944.0), rows_text(435.07866213797456)
    ('1000000', '944', '435.08')
    """
    value = float(n_rows)
    return str(int(value)) if value.is_integer() else f"{value:.2f}"


def tree_lines(
    roots: list, parent_of: Mapping[Hashable, Hashable | None], label: Any
) -> Iterator[str]:
    """The lines of an indented text tree: each node under its shown parent
    (``parent_of[v]``, ``None`` for a root), labelled ``label(v, parent)``; an explicit
    stack, not recursion, so a chain of thousands of variables prints too.

    >>> print("\\n".join(tree_lines(["a"], {"a": None, "b": "a", "c": "a"},
    ...                             lambda v, p: str(v))))
    a
    ├── b
    └── c
    """
    children: dict = {v: [] for v in parent_of}
    for v, p in parent_of.items():
        if p is not None:
            children[p].append(v)
    stack = [(r, "", True, True) for r in reversed(roots) if parent_of[r] is None]
    while stack:
        v, prefix, last, top = stack.pop()
        branch = "" if top else ("└── " if last else "├── ")
        yield prefix + branch + label(v, parent_of[v])
        below = prefix + ("" if top else ("    " if last else "│   "))
        kids = children[v]
        stack.extend(
            (w, below, i == len(kids) - 1, False) for i, w in reversed(list(enumerate(kids)))
        )
