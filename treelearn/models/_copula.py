"""Gaussian-copula (nonparanormal) trees: :class:`CopulaTreeModel`.

Each column ``x_j`` is mapped to a normal score ``z_j = Phi^-1(G_j(x_j))`` by its
*smoothed empirical CDF* ``G_j``: piecewise linear through ``(u_i, (W_<i + w_i / 2) / W)``
(mid-ranks, weighted) at about ``4 n^(1/3)`` quantiles ``u_i`` of the training values
(:func:`smoothed_cdf_knots`: an equal-mass histogram density), with exponential tails
beyond the smallest and largest value (scale: the average spacing ``h``; the mass left
there, ``G(u_1)`` and ``1 - G(u_m)``, is what the mid-ranks leave). ``G_j`` is a
continuous, strictly increasing CDF on the whole line, so ``x -> z`` is a bijection and

    p(x) = p_Z(z(x)) prod_j g_j(x_j) / phi(z_j),

``g_j = G_j'`` (piecewise constant), is a density that integrates to 1 for any density
``p_Z`` of the scores; ``p_Z`` is a Gaussian tree (:class:`~treelearn.GaussianTreeModel`).
Following Liu, Lafferty & Wasserman (2009), the tree is estimated from *truncated*
scores ``Phi^-1(clip(G_j(x), delta_n, 1 - delta_n))``, ``delta_n = 1 / (4 n^(1/4)
sqrt(pi log n))``, which keeps the extreme ranks from dominating the correlations.
Queries and samples are in the original units (``G_j^-1``: the inverse interpolation,
the tails' logarithms).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import ColumnNotFoundError, InvalidModelError, TreelearnError
from .._base.jsonvalues import decode_label, encode_label
from .._base.validation import RANDOM_STATE, Interval, check_param
from ..sources._kinds import numeric_matrix
from ._base import Model, rows_text, tree_lines
from ._gaussian import GaussianTreeModel

__all__ = [
    "CopulaQuery",
    "CopulaTreeModel",
    "cdf_parts",
    "inverse_cdf",
    "quadrature",
    "smoothed_cdf_knots",
    "truncation",
]

_LOG_2PI = math.log(2 * math.pi)
#: the CDF's knots: about this many times the cube root of the rows, at least MIN_KNOTS
KNOTS_PER_CUBE_ROOT = 4.0
MIN_KNOTS = 10


_MAX_SCORE_VARIANCE = 1e4


def truncation(n: float) -> float:
    """Liu, Lafferty & Wasserman's ``delta_n = 1 / (4 n^(1/4) sqrt(pi log n))``.

    >>> round(truncation(1000), 5)
    0.00954
    """
    return 1.0 / (4.0 * n**0.25 * math.sqrt(math.pi * math.log(max(n, 2.0))))


def smoothed_cdf_knots(
    values: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, float]:
    """``(u, F, h)``: the knots of one column's smoothed empirical CDF (see the module
    docstring; ``F`` rises strictly inside (0, 1)) and its tails' scale.

    >>> u, F, h = smoothed_cdf_knots(np.array([1.0, 2.0, 2.0, 4.0]))
    >>> u.tolist(), F.tolist(), h
    ([1.0, 2.0, 4.0], [0.125, 0.5, 0.875], 1.5)

    The density is the CDF's slope between knots: a histogram of equal-mass bins, about
    ``4 n^(1/3)`` of them (Terrell & Scott's oversmoothed histogram has ``(2 n)^(1/3)``;
    more bins score better held out, on Gaussian and skewed data alike).
    """
    w = np.ones(len(values)) if weights is None else np.asarray(weights, dtype=float)
    u, inverse = np.unique(values, return_inverse=True)
    wu = np.bincount(inverse.ravel(), weights=w, minlength=len(u))
    mid = (np.cumsum(wu) - wu / 2) / wu.sum()
    h = float((u[-1] - u[0]) / (len(u) - 1))
    # knots at about KNOTS_PER_CUBE_ROOT * n^(1/3) quantiles (the smallest and largest
    # value among them): through every value, the density would be 1 / spacing, biased
    # by Euler's constant (0.58 nats) per column
    k = int(min(len(u), max(MIN_KNOTS, math.ceil(KNOTS_PER_CUBE_ROOT * len(values) ** (1 / 3)))))
    keep = np.unique(np.round(np.linspace(0, len(u) - 1, k)).astype(np.int64))
    return u[keep], mid[keep], h


def cdf_parts(x: Any, knots: np.ndarray, F: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """``z = Phi^-1(G(x))`` and ``log g(x)`` of one column, each tail in log space (a far
    value gets a finite score); NaN stays NaN."""
    from scipy import special  # imported when used: `import treelearn` stays light

    x = np.asarray(x, dtype=float)
    lo, hi = knots[0], knots[-1]
    seg = np.clip(np.searchsorted(knots, x, side="right") - 1, 0, len(knots) - 2)
    log_slope = np.log((F[seg + 1] - F[seg]) / (knots[seg + 1] - knots[seg]))
    left, right = x < lo, x > hi
    with np.errstate(invalid="ignore", over="ignore"):
        log_left = np.minimum(math.log(F[0]) + (x - lo) / h, 0.0)  # log G, left tail
        log_right = np.minimum(math.log1p(-F[-1]) - (x - hi) / h, 0.0)  # log(1 - G), right
        z = np.where(
            left,
            special.ndtri_exp(log_left),
            np.where(right, -special.ndtri_exp(log_right), special.ndtri(np.interp(x, knots, F))),
        )
        log_g = np.where(
            left, log_left - math.log(h), np.where(right, log_right - math.log(h), log_slope)
        )
    nan = np.isnan(x)
    return np.where(nan, np.nan, z), np.where(nan, np.nan, log_g)


def inverse_cdf(z: Any, knots: np.ndarray, F: np.ndarray, h: float) -> np.ndarray:
    """``G^-1(Phi(z))`` of one column, the tails in log space."""
    from scipy import special  # imported when used: `import treelearn` stays light

    z = np.asarray(z, dtype=float)
    p = special.ndtr(z)
    with np.errstate(divide="ignore", invalid="ignore"):
        left = knots[0] + h * (special.log_ndtr(z) - math.log(F[0]))
        right = knots[-1] - h * (special.log_ndtr(-z) - math.log1p(-F[-1]))
    return np.where(p < F[0], left, np.where(p > F[-1], right, np.interp(p, F, knots)))


def quadrature(knots: np.ndarray, h: float, points: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on every knot segment and on 60 tail scales each
    side (pieces of 4): a density smooth on each piece integrates to round-off."""
    t, w = np.polynomial.legendre.leggauss(points)
    edges = np.concatenate(
        [knots[0] - h * np.arange(60, 0, -4), knots, knots[-1] + h * np.arange(4, 61, 4)]
    )
    a, b = edges[:-1, None], edges[1:, None]
    return ((a + b) / 2 + (b - a) / 2 * t).ravel(), ((b - a) / 2 * w).ravel()


def _log_phi(z: np.ndarray) -> np.ndarray:
    return -0.5 * (_LOG_2PI + z * z)


@dataclass(frozen=True)
class CopulaQuery:
    """The conditional distribution of one column in its own units: its normal score is
    ``N(score_mean, score_variance)``, mapped through the column's inverse CDF.

    ``quantile(q)``, ``median``, ``mean``, ``pdf(x)`` and ``to_frame()`` read it in the
    column's units.

    Parameters
    ----------
    score_mean, score_variance : float
        The normal score's conditional mean and variance.
    knots, cdf : numpy.ndarray
        The column's CDF knots and their CDF values.
    scale : float
        The scale of the CDF's exponential tails.
    variable : hashable, default=None
        The variable queried.

    See Also
    --------
    CopulaTreeModel : whose ``query`` returns it.

    Examples
    --------
    With no evidence, the quantiles are the column's (smoothed) sample quantiles:

    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=500)
    >>> df = pd.DataFrame({"x": x, "y": np.log1p(x) + 0.1 * rng.normal(size=500)})
    >>> q = tl.copula_chow_liu(df).query("x")
    >>> bool(abs(q.median - np.median(x)) < 0.01)   # 0.7963 and 0.7982
    True
    >>> q.to_frame().columns.tolist()
    ['median', 'mean', 'q05', 'q95']
    """

    score_mean: float
    score_variance: float
    knots: np.ndarray
    cdf: np.ndarray
    scale: float
    #: the variable queried (its row's label in :meth:`to_frame`)
    variable: Hashable = None

    def quantile(self, q: Any) -> np.ndarray:
        from scipy import special  # imported when used: `import treelearn` stays light

        z = self.score_mean + math.sqrt(self.score_variance) * special.ndtri(np.asarray(q, float))
        return inverse_cdf(z, self.knots, self.cdf, self.scale)

    @property
    def median(self) -> float:
        return float(self.quantile(0.5))

    @property
    def mean(self) -> float:
        """``integral x pdf(x) dx`` by Gauss-Legendre on each knot segment and tail piece."""
        x, w = quadrature(self.knots, self.scale)
        return float(w @ (x * self.pdf(x)))

    def to_frame(self) -> pd.DataFrame:
        """The distribution in the column's units in one row, indexed by the variable: its
        median, mean and central 90 % interval (``q05``, ``q95``); how every query result
        prints (the distribution is not Gaussian there, so no variance is shown)."""
        low, high = np.asarray(self.quantile([0.05, 0.95]), dtype=float)
        return pd.DataFrame(
            {"median": [self.median], "mean": [self.mean], "q05": [low], "q95": [high]},
            index=pd.Index([self.variable], name="variable"),
        )

    def pdf(self, x: Any) -> np.ndarray:
        z, log_g = cdf_parts(x, self.knots, self.cdf, self.scale)
        log_n = -0.5 * (
            _LOG_2PI
            + math.log(self.score_variance)
            + (z - self.score_mean) ** 2 / self.score_variance
        )
        return np.exp(log_n + log_g - _log_phi(z))


class CopulaTreeModel(Model):
    """A Gaussian-copula tree: smoothed empirical CDF marginals and a Gaussian tree on the
    normal scores (see the module docstring). Learned by :func:`treelearn.copula_chow_liu`.

    Parameters
    ----------
    knots, cdf : dict
        ``{variable: array}``: each column's CDF knots and their CDF values.
    scales : dict
        ``{variable: float}``: each column's tail scale.
    scores : GaussianTreeModel
        The Gaussian tree of the normal scores.
    n_rows : float, default=None
        Rows learned from.
    settings : dict, default=None
        How it was learned.

    See Also
    --------
    copula_chow_liu : learns one.
    CopulaQuery : what a query returns.
    GaussianTreeModel : the tree of the scores.

    References
    ----------
    .. [1] Elidan, G. (2010). Copula Bayesian networks. Advances in Neural Information
       Processing Systems 23, 559-567.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=500)
    >>> df = pd.DataFrame({"x": x, "y": np.log1p(x) + 0.1 * rng.normal(size=500)})
    >>> model = tl.copula_chow_liu(df)
    >>> model.kind, sorted(model.graph.edges())
    ('copula_tree', [('x', 'y')])
    >>> model.sample(3, random_state=0).shape
    (3, 2)
    """

    kind = "copula_tree"
    capabilities = frozenset({"score", "sample", "query", "draw"})

    def __init__(
        self,
        knots: Mapping[Hashable, Sequence[float] | np.ndarray],
        cdf: Mapping[Hashable, Sequence[float] | np.ndarray],
        scales: Mapping[Hashable, float],
        scores: GaussianTreeModel,
        *,
        n_rows: float | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        self.variables = list(scores.variables)
        if not (set(knots) == set(cdf) == set(scales) == set(self.variables)):
            raise InvalidModelError("every variable needs its CDF knots and tail scale")
        self.knots, self.cdf, self.scales = {}, {}, {}
        for v in self.variables:
            for name, values in (("knots", knots[v]), ("cdf", cdf[v])):
                # text such as "7" is no number: a file holding it was edited
                if not all(
                    isinstance(e, (int, float, np.floating, np.integer)) and not isinstance(e, bool)
                    for e in np.ravel(values)
                ):
                    raise InvalidModelError(f"variable {v!r}: the {name} must be numbers")
            x = np.asarray(knots[v], dtype=float)
            F = np.asarray(cdf[v], dtype=float)
            h = scales[v]
            if (
                x.ndim != 1
                or x.shape != F.shape
                or len(x) < 2
                or not np.isfinite(x).all()
                or not np.isfinite(F).all()
            ):
                raise InvalidModelError(
                    f"variable {v!r}: knots and cdf must be finite lists of one length (2 or more)"
                )
            if (np.diff(x) <= 0).any() or (np.diff(F) <= 0).any() or F[0] <= 0 or F[-1] >= 1:
                raise InvalidModelError(
                    f"variable {v!r}: the knots and the CDF must rise "
                    "strictly, the CDF inside (0, 1)"
                )
            if (
                isinstance(h, bool)
                or not isinstance(h, (int, float))
                or not h > 0
                or not math.isfinite(h)
            ):
                raise InvalidModelError(f"variable {v!r}: the tail scale must be a number > 0")
            self.knots[v], self.cdf[v], self.scales[v] = x, F, float(h)
        # the scores are truncated normal scores, |z| < 9 for any n (ndtri of delta_n), so
        # their tree's covariance is finite with a diagonal far below _MAX_SCORE_VARIANCE:
        # a larger one (an edited file) would overflow the density's quadratic forms
        _, cov = scores.joint()
        diagonal = np.diag(cov.to_numpy())
        if not (np.isfinite(cov.to_numpy()).all() and (diagonal <= _MAX_SCORE_VARIANCE).all()):
            raise InvalidModelError(
                "the normal scores' tree implies a variance that normal "
                f"scores cannot have (more than {_MAX_SCORE_VARIANCE:g})"
            )
        self.scores = scores
        self.graph = scores.graph
        self.n_rows = n_rows
        self.settings = dict(settings or {"method": "copula-chow-liu"})

    def parents(self, v: Hashable) -> list:
        return self.scores.parents(v)

    @property
    def roots(self) -> list:
        return self.scores.roots

    @property
    def n_parameters(self) -> int:
        """The Gaussian tree's parameters (the marginals are nonparametric: not counted)."""
        return self.scores.n_parameters

    def _text_lines(self, digits: int) -> Iterator[str]:
        """The headline, then the tree of the normal scores: each column with its median
        in its own units, the MI (nats, of the normal scores) on each edge."""
        n_edges = self.graph.number_of_edges()
        rows = f", learned from {rows_text(self.n_rows)} rows" if self.n_rows is not None else ""
        yield (
            f"CopulaTreeModel: {len(self.variables)} variables, {n_edges} "
            f"edge{'' if n_edges == 1 else 's'}{rows}; each column's median, and the MI of "
            f"the normal scores on each edge"
        )

        def label(v: Hashable, parent: Hashable | None) -> str:
            median = float(inverse_cdf(np.zeros(1), self.knots[v], self.cdf[v], self.scales[v])[0])
            text = f"{v} (median {median:.{digits}g})"
            weight = self.graph.edges[parent, v].get("weight") if parent is not None else None
            return text + (f"  [MI {weight:.{digits}f}]" if weight is not None else "")

        parent_of = {v: (self.scores.parents(v) or [None])[0] for v in self.variables}
        yield from tree_lines(self.scores.roots, parent_of, label)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CopulaTreeModel):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    # -------------------------------------------------------------- transforms
    def _matrix(self, data: Any) -> np.ndarray:
        names, X = numeric_matrix(data, learner="a copula tree", missing="pairwise")
        absent = [v for v in self.variables if v not in names]
        if absent:
            raise ColumnNotFoundError(
                f"the data lacks the model's column(s) {absent[:5]}", column=absent[0]
            )
        pos = {c: j for j, c in enumerate(names)}
        return np.asarray(X, dtype=float)[:, [pos[v] for v in self.variables]]

    def _scores_of(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Normal scores (NaN where missing) and ``sum log(g / phi)`` of the observed cells."""
        Z = np.empty_like(X)
        jac = np.zeros(X.shape[0])
        for j, v in enumerate(self.variables):  # a loop over columns, every row at once
            Z[:, j], log_g = cdf_parts(X[:, j], self.knots[v], self.cdf[v], self.scales[v])
            jac += np.where(np.isnan(X[:, j]), 0.0, log_g - _log_phi(Z[:, j]))
        return Z, jac

    # -------------------------------------------------------------- scores
    def score_samples(self, X: Any) -> np.ndarray:
        """``log p(row)`` in the original units (missing cells integrated out)."""
        X = self._matrix(X)
        Z, jac = self._scores_of(X)
        observed = ~np.isnan(Z)
        complete = observed.all(axis=1)
        out = np.zeros(len(Z))
        if complete.any():  # the tree's conditionals (same column order), O(p) a row
            out[complete] = self.scores.log_density(Z[complete])
        if complete.all():
            return out + jac
        mu, S = self.scores.joint()
        mu, S = mu.to_numpy(), S.to_numpy()
        incomplete = np.flatnonzero(~complete)
        patterns, which = np.unique(observed[incomplete], axis=0, return_inverse=True)
        for p, keep in enumerate(patterns):  # a loop over missing patterns, not rows
            rows = incomplete[which.ravel() == p]
            if not keep.any():
                continue
            z = Z[np.ix_(rows, np.flatnonzero(keep))] - mu[keep]
            L = np.linalg.cholesky(S[np.ix_(keep, keep)])
            u = np.linalg.solve(L, z.T)
            out[rows] = (
                -0.5 * ((u * u).sum(axis=0) + keep.sum() * _LOG_2PI) - np.log(np.diag(L)).sum()
            )
        return out + jac

    # -------------------------------------------------------------- sampling, queries
    def sample(self, n: int, random_state: Any = None, *, numbers: bool = False) -> pd.DataFrame:
        """``n`` rows: scores from the Gaussian tree, each mapped by its column's inverse CDF.
        ``numbers``: every value is a number already (no column is binned)."""
        n = check_param("n", n, [Interval(Integral, 0, None)], note="the number of rows to draw")
        random_state = check_param("random_state", random_state, RANDOM_STATE)
        z = self.scores.sample(n, random_state=random_state)
        return pd.DataFrame(
            {
                v: inverse_cdf(z[v].to_numpy(), self.knots[v], self.cdf[v], self.scales[v])
                for v in self.variables
            }
        )

    def query(
        self, variable: Hashable, evidence: Mapping[Hashable, float] | None = None
    ) -> CopulaQuery:
        """The exact conditional distribution of ``variable`` (one name, or a list of one)
        given ``evidence`` (numbers in the original units), as a :class:`CopulaQuery`.

        >>> import numpy as np, pandas as pd, treelearn as tl
        >>> rng = np.random.default_rng(0)
        >>> x = rng.normal(size=400)
        >>> m = tl.copula_chow_liu(pd.DataFrame({"x": x, "y": np.exp(x + rng.normal(size=400))}))
        >>> q = m.query("y", {"x": 1.0})
        >>> list(q.to_frame().columns), bool(q.quantile(0.05) < q.median < q.quantile(0.95))
        (['median', 'mean', 'q05', 'q95'], True)
        """
        if isinstance(variable, list) or (
            isinstance(variable, tuple) and variable not in self.knots
        ):
            if len(variable) != 1:
                raise TreelearnError(
                    f"a copula tree answers one variable's distribution at a time, not "
                    f"{list(variable)[:5]}: query each of them"
                )
            variable = variable[0]
        evidence = dict(evidence or {})
        for v in [variable, *evidence]:
            if v not in self.knots:
                raise ColumnNotFoundError(
                    f"{v!r} is not a variable of the model; the "
                    f"variables are {self.variables[:10]}",
                    column=v,
                )
        if variable in evidence:
            raise TreelearnError(f"{variable!r} is both queried and given as evidence")
        for v, value in evidence.items():
            try:
                evidence[v] = float(value)  # text spelling a number (the command line's)
            except (TypeError, ValueError):
                raise TreelearnError(
                    f"evidence {v!r} == {value!r:.60}: a copula tree's evidence is a number",
                    column=v,
                    values=[value],
                ) from None
        row = pd.DataFrame({v: [evidence.get(v, np.nan)] for v in self.variables})
        Z, _ = self._scores_of(self._matrix(row))
        given = {v: float(Z[0, self.variables.index(v)]) for v in evidence}
        q = self.scores.query([variable], given)
        return CopulaQuery(
            float(q.mean.iloc[0]),
            float(q.covariance.iloc[0, 0]),
            self.knots[variable],
            self.cdf[variable],
            self.scales[variable],
            variable,
        )

    # -------------------------------------------------------------- files
    def to_dict(self) -> dict:
        """A JSON-ready dict; :meth:`from_dict` inverts it, every field checked."""
        return {
            "variables": [encode_label(v) for v in self.variables],
            "knots": [self.knots[v].tolist() for v in self.variables],
            "cdf": [self.cdf[v].tolist() for v in self.variables],
            "scales": [self.scales[v] for v in self.variables],
            "scores": self.scores.to_dict(),
            "n_rows": self.n_rows,
            "settings": {"method": str(self.settings.get("method", "copula-chow-liu"))},
        }

    @classmethod
    def from_dict(cls, d: Any) -> CopulaTreeModel:
        """The model :meth:`to_dict` describes; an :class:`~treelearn.InvalidModelError`
        names the field that is wrong."""
        if not isinstance(d, dict):
            raise InvalidModelError("copula tree file: 'model' must be an object")
        for key in ("variables", "knots", "cdf", "scales"):
            if not isinstance(d.get(key), list):
                raise InvalidModelError(f"copula tree file: {key!r} must be a list")
        variables = [decode_label(v) for v in d["variables"]]
        if not (len(variables) == len(d["knots"]) == len(d["cdf"]) == len(d["scales"])):
            raise InvalidModelError(
                "copula tree file: 'knots', 'cdf' and 'scales' need one entry per variable"
            )
        scores = GaussianTreeModel.from_dict(d.get("scores"))
        if scores.variables != variables:
            raise InvalidModelError("copula tree file: the scores' tree is over other variables")
        try:
            return cls(
                dict(zip(variables, d["knots"])),
                dict(zip(variables, d["cdf"])),
                dict(zip(variables, d["scales"])),
                scores,
                n_rows=d.get("n_rows"),
                settings=d.get("settings"),
            )
        except (TypeError, ValueError) as exc:
            if isinstance(exc, InvalidModelError):
                raise
            raise InvalidModelError(f"copula tree file: bad knots ({exc})") from None
