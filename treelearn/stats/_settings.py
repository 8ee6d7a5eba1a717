"""Learning options as one frozen, self-validating object.

Every learner takes its options through :class:`LearningSettings`: building one
checks every option once (with a message that names the option, the value and
the fix), and a learned model keeps it, so that :meth:`TreeModel.partial_fit
<treelearn.TreeModel.partial_fit>` re-learns with exactly the same options.

>>> import numpy as np
>>> s = LearningSettings(alpha=np.float32(0.5), root="smoke")
>>> s.as_dict()["alpha"], s.prior
(0.5, 'lidstone')
>>> LearningSettings(alpha=-1)
Traceback (most recent call last):
...
treelearn.TreelearnError: alpha == -1, must be a finite number >= 0 (0 = maximum likelihood, 1 = Laplace)
>>> LearningSettings(forest=True)
Traceback (most recent call last):
...
treelearn.TreelearnError: forest == True, must be one of 'bic', 'aic', a finite number or None (an MI threshold in nats)
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import asdict, dataclass
from numbers import Integral, Real
from typing import Any, Literal

from .._base.validation import InstanceOf, Interval, Options, check_params
from ..encoding._table import MissingPolicy

__all__ = ["CONSTRAINTS", "NOTES", "READING", "LearningSettings", "Prior"]

Prior = Literal["lidstone", "bdeu", "m-estimate"]

#: the accepted forms of every learner option (:mod:`treelearn._base.validation`), checked
#: by :class:`LearningSettings`; functions that take one of these options check it here too
CONSTRAINTS: dict[str, list[Any]] = {
    "alpha": [Interval(Real, 0, None)],
    "prior": [Options("lidstone", "bdeu", "m-estimate")],
    "equivalent_sample_size": [Interval(Real, 0, None, closed="neither")],
    "m": [Interval(Real, 0, None, closed="neither")],
    "missing": [Options("error", "drop", "pairwise", "em")],
    "mi_alpha": [None, Interval(Real, 0, None)],
    "forest": [Options("bic", "aic"), Interval(Real), None],
}

#: the accepted forms of the options that say how a table is read (its states, a file's
#: chunks), for the learners that read one
READING: dict[str, list[Any]] = {
    "max_states": [Interval(Integral, 1, None)],
    "states": [None, InstanceOf(Mapping, name="a dict {column: [states]}")],
    "chunksize": [Interval(Integral, 1, None)],
}

#: what the options mean, added to their messages
NOTES = {
    "alpha": "0 = maximum likelihood, 1 = Laplace",
    "equivalent_sample_size": "BDeu's equivalent sample size",
    "m": "the m-estimate's equivalent sample size",
    "mi_alpha": "the pseudocount of the joint the tree-choosing MI is computed from",
    "forest": "an MI threshold in nats",
}


@dataclass(frozen=True)
class LearningSettings:
    """The options of a learner; invalid values raise :class:`TreelearnError` on creation
    (:data:`CONSTRAINTS`, one wording for every option).

    Attributes
    ----------
    method : the learner's name (``"chow-liu"``, ``"fit_cpts"``, ...), for display and files.
    root : the root of the tree (``None``: the first column).
    alpha : Lidstone pseudocount for the CPTs (0 = maximum likelihood, 1 = Laplace, the
        default: see :func:`treelearn.chow_liu`).
    prior : ``"lidstone"`` (uses ``alpha``), ``"bdeu"`` (uses ``equivalent_sample_size``) or
        ``"m-estimate"`` (uses ``m``: ``(N_ijk + m / r) / (N_ij + m)``, ``r`` the node's states).
    equivalent_sample_size : BDeu's equivalent sample size (> 0).
    m : the m-estimate's equivalent sample size (> 0).
    missing : ``"error"``, ``"drop"``, ``"pairwise"`` or ``"em"`` (EM over the missing cells).
    mi_alpha : pseudocount of the joint the tree-choosing MI is computed from (``None``: raw).
    forest : ``None`` (spanning tree), ``"bic"``, ``"aic"`` or an MI threshold (a number).
    whitelist, blacklist : undirected pairs of columns the tree must contain / must not
        contain (see :func:`treelearn.structure._constraints.edge_constraints`); stored as tuples.
    """

    method: str = "chow-liu"
    root: Hashable | None = None
    alpha: float = 1.0
    prior: Prior = "lidstone"
    equivalent_sample_size: float = 1.0
    missing: MissingPolicy = "error"
    mi_alpha: float | None = None
    forest: str | float | None = None
    m: float = 1.0
    whitelist: tuple = ()
    blacklist: tuple = ()

    def __post_init__(self) -> None:
        checked = check_params(
            {name: getattr(self, name) for name in CONSTRAINTS}, CONSTRAINTS, NOTES
        )
        for name, value in checked.items():  # numbers as Python floats (numpy scalars too)
            object.__setattr__(self, name, value)
        for name in ("whitelist", "blacklist"):  # pairs as tuples: hashable, saved as lists
            pairs = getattr(self, name)
            object.__setattr__(self, name, tuple(tuple(p) for p in (pairs or ())))

    def as_dict(self) -> dict:
        """The settings as a plain dict (``model.settings``, saved with the model)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, settings: dict) -> LearningSettings:
        """Settings back from :meth:`as_dict` (unknown keys are ignored)."""
        known = {k: v for k, v in settings.items() if k in cls.__dataclass_fields__}
        return cls(**known)
