"""Learning options as one frozen, self-validating object.

Every learner takes its options through :class:`LearningSettings`: building one
checks every option once (with a message that names the option, the value and
the fix), and a learned model keeps it, so that :meth:`TreeModel.partial_fit
<treelearn.models._tree.TreeModel.partial_fit>` re-learns with exactly the same options.

>>> s = LearningSettings(alpha=1.0, root="smoke")
>>> s.as_dict()["alpha"], s.prior
(1.0, 'lidstone')
>>> LearningSettings(alpha=-1)
Traceback (most recent call last):
...
treelearn.TreelearnError: alpha == -1, must be a finite number >= 0 (0 = maximum likelihood, 1 = Laplace)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from .._base.errors import TreelearnError
from ..encoding._table import MissingPolicy, check_missing_policy

__all__ = ["LearningSettings", "Prior", "check_number"]

Prior = Literal["lidstone", "bdeu", "m-estimate"]


def check_number(value: Any, name: str, *, low: float = 0.0, strict: bool = False,
                 fix: str = "") -> float:
    """``value`` as a float, finite and ``>= low`` (``> low`` when ``strict``); else an error
    in scikit-learn's style (``alpha == -1, must be ...``) naming the option."""
    bound = "" if low == -math.inf else f" {'>' if strict else '>='} {low:g}"
    ok = (isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
          and math.isfinite(value) and (value > low if strict else value >= low))
    if not ok:
        raise TreelearnError(f"{name} == {value!r}, must be a finite number{bound}{fix}",
                             values=[value])
    return float(value)


@dataclass(frozen=True)
class LearningSettings:
    """The options of a learner; invalid values raise :class:`TreelearnError` on creation.

    Attributes
    ----------
    method : the learner's name (``"chow-liu"``, ``"fit_cpts"``, ...), for display and files.
    root : the root of the tree (``None``: the first column).
    alpha : Lidstone pseudocount for the CPTs (0 = maximum likelihood, 1 = Laplace).
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
    alpha: float = 0.0
    prior: Prior = "lidstone"
    equivalent_sample_size: float = 1.0
    missing: MissingPolicy = "error"
    mi_alpha: float | None = None
    forest: str | float | None = None
    m: float = 1.0
    whitelist: tuple = ()
    blacklist: tuple = ()

    def __post_init__(self) -> None:
        if self.prior not in ("lidstone", "bdeu", "m-estimate"):
            raise TreelearnError(
                f"prior must be 'lidstone', 'bdeu' or 'm-estimate', not {self.prior!r}",
                values=[self.prior])
        if self.prior == "m-estimate":
            check_number(self.m, "m", strict=True, fix=" (the m-estimate's equivalent sample size)")
        for name in ("whitelist", "blacklist"):  # pairs as tuples: hashable, saved as lists
            pairs = getattr(self, name)
            object.__setattr__(self, name, tuple(tuple(p) for p in (pairs or ())))
        check_number(self.alpha, "alpha", fix=" (0 = maximum likelihood, 1 = Laplace)")
        if self.prior == "bdeu":
            check_number(self.equivalent_sample_size, "equivalent_sample_size", strict=True)
        if self.missing != "em":  # "em" is a learner's option (treelearn.learners._em), not encode's
            check_missing_policy(self.missing)
        if self.mi_alpha is not None:
            check_number(self.mi_alpha, "mi_alpha", fix=" or None")
        if self.forest is not None and self.forest not in ("bic", "aic"):
            if isinstance(self.forest, (bool, np.bool_)) or not isinstance(self.forest, numbers.Real):
                # forest=True would otherwise be a silent threshold of 1 nat
                raise TreelearnError(
                    f"forest must be None, 'bic', 'aic' or a number, not {self.forest!r}",
                    values=[self.forest])
            check_number(self.forest, "forest", low=-math.inf,
                         fix=" (an MI threshold in nats), or None, 'bic' or 'aic'")

    def as_dict(self) -> dict:
        """The settings as a plain dict (``model.settings``, saved with the model)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, settings: dict) -> LearningSettings:
        """Settings back from :meth:`as_dict` (unknown keys are ignored)."""
        known = {k: v for k, v in settings.items() if k in cls.__dataclass_fields__}
        return cls(**known)
