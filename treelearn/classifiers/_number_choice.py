"""Each numeric column of a mixed classifier: a Gaussian part or MDL bins, chosen in ``fit``.

A column of numbers whose class-conditional distribution is far from a normal one
(skewed, bimodal by class, a few repeated values) is described better by bins than by a
Gaussian per class, and one that is normal within each class better by the Gaussian.
:class:`~treelearn.MixedNaiveBayes` and :class:`~treelearn.MixedTAN` (``numbers="auto"``,
their default) choose per column, on the training rows only, the part that predicts the
class better out of sample (MixedNaiveBayes as below, the column alone; MixedTAN with the
column's tree neighbours, :mod:`~treelearn.classifiers._tree_number_choice`, on the
same bins):

* **the criterion** is the leave-one-out conditional log-likelihood of the class given
  the column alone, ``sum_i w_i log P_{-i}(y_i | x_i) / sum_i w_i``, ``P_{-i}`` the
  one-column naive Bayes learned from the column's other observed rows: the class
  shares of those rows times either the class's Gaussian (mean, and the variance with
  the classifier's ``var_prior`` and ``var_smoothing``, both from the other rows) or the
  class's Lidstone-smoothed bin frequencies (``(n_cb + alpha) / (n_c + alpha B)``, the
  classifier's ``alpha``). Leave-one-out cross-validation of the conditional likelihood
  is Stone's (1974) choice between predictors; the class given the feature is what the
  classifier predicts with (the discriminative score of Grossman & Domingos, ICML 2004,
  for Bayesian network classifiers). Both leave-one-out terms are closed forms (a
  weighted mean and variance downdated by one row; one count taken out), so the
  choice costs a few passes over each column. A row of weight ``w`` counts as ``w``
  rows: one of them (weight ``min(w, 1)``) is left out, and its log-probability counts
  ``w`` times, so whole weights equal repeated rows.
* **the bins** are the counting classifiers' supervised Fayyad-Irani MDL cut points
  (:mod:`~treelearn.classifiers._numbers`), cut once from every observed row of the
  column (the leave-one-out takes a row's count out of its bin, not the cut points:
  MDL cuts change little for one row, and the cuts' own choice is already penalised by
  their MDL cost).
* the bins are taken when their score is strictly higher (a tie keeps the Gaussian);
  a column with missing cells is judged on its observed rows; rows whose class has no
  other observed row of the column are left out of both scores (neither part can
  predict a class no other row shows). Deterministic: no random split.

References: Stone, M. (1974). Cross-validatory choice and assessment of statistical
predictions. JRSS B 36(2), 111-147. Fayyad, U. M. and Irani, K. B. (1993).
Multi-interval discretization of continuous-valued attributes for classification
learning. IJCAI, 1022-1027. Grossman, D. and Domingos, P. (2004). Learning Bayesian
network classifiers by maximizing conditional likelihood. ICML.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._base.errors import TreelearnError
from .._base.jsonvalues import encode_label
from .._base.persistence import SavedState
from ..encoding._table import check_sample_weight
from ..sources._count import label_values, labelled_file
from ..sources._kinds import as_frame, kind_of
from ..sources._value_class_counts import gaussian_number_columns
from ..stats._class_gaussians import gaussian_columns
from ._numbers import bin_numbers
from ._tree_number_choice import BINS, FORMS, Variable, best_forms, family_loo_log_proba

if TYPE_CHECKING:  # the Discretizer imports scikit-learn: loaded when bins are cut
    from ..encoding._discretizer import Discretizer

__all__ = [
    "NUMBERS",
    "MixedNumbers",
    "NumberChoice",
    "binned_features",
    "bins_loo_log_proba",
    "choices_state",
    "column_choice",
    "gaussian_loo_log_proba",
    "mixed_numbers",
    "older_files_without_numbers",
    "restored_choices",
    "tree_choices",
]

#: the values of the mixed classifiers' ``numbers=``
NUMBERS = ("auto", "gaussian", "mdl")


@dataclass(frozen=True)
class NumberChoice:
    """One numeric column's two leave-one-out scores (mean ``log P(class | column)`` per
    weighted observed row, nats; MixedTAN's: the best sums of its tree's family scores
    with the column Gaussian and binned, :func:`tree_choices`) and the part taken."""

    gaussian: float
    bins: float
    n_bins: int
    binned: bool

    def to_dict(self) -> dict:
        return {
            "gaussian": _finite_or_none(self.gaussian),
            "bins": _finite_or_none(self.bins),
            "n_bins": self.n_bins,
            "binned": self.binned,
        }


def _finite_or_none(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


@dataclass(frozen=True)
class MixedNumbers:
    """What :func:`mixed_numbers` gives a mixed classifier's ``_training_data``: ``X`` (a
    file read whole, the binned columns replaced by their bins), ``y`` and the weights as
    the statistics readers take them, the Gaussian columns (``numeric`` for them;
    ``None``: their own rule), the bins (``None``: none) and each column's choice."""

    X: Any
    y: Any
    sample_weight: Any
    numeric: list | None
    binner: Discretizer | None
    choices: dict


def gaussian_loo_log_proba(
    x: np.ndarray,
    codes: np.ndarray,
    weights: np.ndarray,
    k: int,
    var_prior: float,
    var_smoothing: float,
) -> np.ndarray:
    """``log P_{-i}(y_i | x_i)`` of every row under the one-column Gaussian naive Bayes
    learned from the other rows (closed form; row ``i`` leaves ``u_i = min(w_i, 1)`` out,
    one row of a weight-``w_i`` row): class shares ``(n_c - u_i [c = y_i]) / (N - u_i)``,
    class means and ML variances downdated by the row, the variance shrunk
    to the other rows' pooled variance ``s0^2`` by ``var_prior`` pseudo-rows and raised
    by ``var_smoothing s0^2`` (:func:`~treelearn.stats._class_gaussians.smoothed_variances`).
    A row whose class has no other weight gets NaN.

    >>> x = np.array([0.0, 1.0, 2.0, 10.0, 11.0, 12.0])
    >>> p = gaussian_loo_log_proba(x, np.array([0, 0, 0, 1, 1, 1]), np.ones(6), 2, 1.0, 0.0)
    >>> bool((np.exp(p) > 0.99).all())
    True
    """
    own = codes[:, None] == np.arange(k)[None, :]  # n x k: the row's class
    left = np.minimum(weights, 1.0)  # one row of a weight-w row (w rows) left out
    n_c = np.bincount(codes, weights=weights, minlength=k)
    s1 = np.bincount(codes, weights=weights * x, minlength=k)
    mean_c = s1 / np.where(n_c > 0, n_c, 1.0)
    m2_c = np.bincount(codes, weights=weights * (x - mean_c[codes]) ** 2, minlength=k)
    # the row's own class downdated (Welford's update run backwards), the others as they are
    n = n_c[None, :] - own * left[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_own = (n_c[codes] * mean_c[codes] - left * x) / n[own]
    mean = np.where(own, np.nan, mean_c[None, :])
    mean[own] = mean_own
    m2 = np.where(own, 0.0, m2_c[None, :])
    m2[own] = np.clip(  # >= 0 by construction: round-off clipped
        m2_c[codes] - left * (x - mean_own) * (x - mean_c[codes]), 0.0, None
    )
    # the pooled variance of the other rows (the prior's centre and the epsilon's scale)
    total = float(weights.sum())
    grand = float((weights * x).sum() / total)
    m2_all = float((weights * (x - grand) ** 2).sum())
    rest = total - left
    with np.errstate(divide="ignore", invalid="ignore"):
        grand_rest = (total * grand - left * x) / rest
        s0 = np.clip(m2_all - left * (x - grand_rest) * (x - grand), 0.0, None) / rest
        # shrunk_variance's closed form (var_prior = 0: the ML variance), then the epsilon
        var = (m2 + var_prior * s0[:, None]) / (n + var_prior) if var_prior else m2 / n
        var = var + var_smoothing * s0[:, None]
        log_share = np.log(n) - np.log(rest)[:, None]
        log_density = -0.5 * (np.log(2 * np.pi * var) + (x[:, None] - mean) ** 2 / var)
        joint = np.where(n > 0, log_share + log_density, -np.inf)
        out = joint[own] - _log_sum_exp(joint)
    out[n[own] <= 0] = np.nan
    return out


def bins_loo_log_proba(
    bins: np.ndarray,
    codes: np.ndarray,
    weights: np.ndarray,
    k: int,
    n_bins: int,
    alpha: float,
) -> np.ndarray:
    """``log P_{-i}(y_i | b_i)`` of every row under the one-column naive Bayes of its bins
    learned from the other rows (closed form): class shares ``(n_c - u_i [c = y_i]) / (N -
    u_i)`` times ``(n_cb + alpha) / (n_c + alpha B)`` with ``u_i = min(w_i, 1)`` taken
    out of the row's class and bin. A row whose class has no other weight gets NaN.

    >>> b = np.array([0, 0, 0, 1, 1, 1])
    >>> p = bins_loo_log_proba(b, np.array([0, 0, 0, 1, 1, 1]), np.ones(6), 2, 2, 1.0)
    >>> np.round(np.exp(p), 3).tolist()  # (2/5 * 3/4) / (2/5 * 3/4 + 3/5 * 1/5)
    [0.714, 0.714, 0.714, 0.714, 0.714, 0.714]
    """
    own = codes[:, None] == np.arange(k)[None, :]
    left = np.minimum(weights, 1.0)  # one row of a weight-w row (w rows) left out
    table = np.zeros((k, n_bins))
    np.add.at(table, (codes, bins), weights)
    n_c = table.sum(axis=1)
    count = table[:, bins].T - own * left[:, None]  # n x k: each class's count of the bin
    n = n_c[None, :] - own * left[:, None]
    rest = float(weights.sum()) - left
    with np.errstate(divide="ignore", invalid="ignore"):
        joint = (
            np.log(n)
            - np.log(rest)[:, None]
            + np.log(np.clip(count, 0.0, None) + alpha)
            - np.log(n + alpha * n_bins)
        )
        joint = np.where(n > 0, joint, -np.inf)
        out = joint[own] - _log_sum_exp(joint)
    out[n[own] <= 0] = np.nan
    return out


def _score(log_p: np.ndarray, weights: np.ndarray, usable: np.ndarray) -> float:
    """The weighted mean of the usable rows' log-probabilities (``-inf`` for a NaN one:
    a class the part gives no probability)."""
    total = float(weights[usable].sum())
    if total <= 0:
        return float("nan")
    values = np.where(np.isnan(log_p[usable]), -np.inf, log_p[usable])
    with np.errstate(invalid="ignore"):
        return float((weights[usable] * values).sum() / total)


def column_choice(
    values: np.ndarray,
    codes: np.ndarray,
    weights: np.ndarray,
    k: int,
    edges: np.ndarray,
    *,
    alpha: float,
    var_prior: float,
    var_smoothing: float,
) -> NumberChoice:
    """The two leave-one-out scores of one column (its observed rows of positive weight)
    and the part taken (bins only when strictly better)."""
    keep = ~np.isnan(values) & (weights > 0)
    x, c, w = values[keep], codes[keep], weights[keep]
    n_bins = len(edges) + 1
    if len(x) == 0:
        return NumberChoice(float("nan"), float("nan"), n_bins, False)
    n_c = np.bincount(c, weights=w, minlength=k)
    usable = n_c[c] - np.minimum(w, 1.0) > 0  # the row's class has other rows
    bins = np.searchsorted(edges, x, side="left")  # the Discretizer's rule: v <= edge
    gaussian = _score(gaussian_loo_log_proba(x, c, w, k, var_prior, var_smoothing), w, usable)
    binned = _score(bins_loo_log_proba(bins, c, w, k, n_bins, alpha), w, usable)
    better = bool(np.isfinite(binned) and (np.isnan(gaussian) or binned > gaussian))
    return NumberChoice(gaussian, binned, n_bins, better)


def _standardised(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``values`` centred and scaled (weighted): the class posteriors do not change under an
    affine map of a Gaussian column, and the moments' round-off is smaller."""
    mean = float((weights * values).sum() / weights.sum())
    scale = float(np.sqrt((weights * (values - mean) ** 2).sum() / weights.sum()))
    return (values - mean) / (scale if scale > 0 else 1.0)


@dataclass(frozen=True)
class _FamilyJudge:
    """One family's rows (classes, weights) and options: the mean leave-one-out log P(class
    | column, parent) of a pair of forms (0 when no row holds the pair: no evidence)."""

    codes: np.ndarray
    weights: np.ndarray
    k: int
    options: dict

    def __call__(self, child: Variable, parent: Variable | None) -> float:
        c, w = self.codes, self.weights
        log_p = family_loo_log_proba(child, parent, c, w, self.k, **self.options)
        usable = np.bincount(c, weights=w, minlength=self.k)[c] - np.minimum(w, 1.0) > 0
        got = _score(log_p, w, usable)
        return 0.0 if np.isnan(got) else got


def tree_choices(
    features: pd.DataFrame,
    tree: Any,
    judged: list,
    codes: np.ndarray,
    weights: np.ndarray,
    k: int,
    edges: dict,
    *,
    alpha: float,
    var_prior: float,
    var_smoothing: float,
) -> dict:
    """MixedTAN's choice: the forms of the ``judged`` columns that maximise the sum over
    ``tree``'s families holding a number of the leave-one-out ``log P(class | column,
    parent)`` (:mod:`~treelearn.classifiers._tree_number_choice`), each family on the rows
    where both are observed with positive weight; each column's ``gaussian`` and ``bins``
    the best sum with it Gaussian and with it binned."""

    def numbers(c: Hashable) -> np.ndarray:
        return np.asarray(pd.to_numeric(features[c]), dtype=float)

    def forms(c: Hashable, keep: np.ndarray, w: np.ndarray) -> tuple:
        """The column on the rows ``keep``: Gaussian (standardised) and binned."""
        v = numbers(c)[keep]
        cuts = edges[c]
        return (
            Variable(_standardised(v, w)),
            Variable(np.searchsorted(cuts, v, side="left"), len(cuts) + 1),
        )

    options = {"alpha": alpha, "var_prior": var_prior, "var_smoothing": var_smoothing}
    is_judged = set(judged)
    parents = {v: next(iter(tree.predecessors(v)), None) for v in tree.nodes}
    scores: dict = {}
    for v in judged:
        p = parents[v]
        keep = ~np.isnan(numbers(v)) & (weights > 0)
        if p in is_judged:
            keep &= ~np.isnan(numbers(p))
        elif p is not None:
            state, uniques = pd.factorize(features[p], sort=True)
            keep &= state >= 0
        c, w = codes[keep], weights[keep]
        judge = _FamilyJudge(c, w, k, options)
        mine = forms(v, keep, w)
        if p in is_judged:
            theirs = forms(p, keep, w)
            scores[v] = {(f, q): judge(mine[f], theirs[q]) for f in FORMS for q in FORMS}
        else:
            parent = None if p is None else Variable(state[keep], len(uniques))
            scores[v] = {(f, None): judge(mine[f], parent) for f in FORMS}
    chosen, totals = best_forms(parents, judged, scores)
    return {v: NumberChoice(*totals[v], len(edges[v]) + 1, chosen[v] == BINS) for v in judged}


def mixed_numbers(
    X: Any,
    y: Any,
    sample_weight: Any,
    *,
    numbers: str,
    numeric: Sequence[Hashable] | None,
    categorical: Sequence[Hashable] | None,
    alpha: float,
    var_prior: float,
    var_smoothing: float,
    who: str,
    tree: Any = None,
) -> MixedNumbers:
    """Choose each numeric column's part (``numbers``: ``"auto"`` by the leave-one-out
    criterion, ``"mdl"`` bins for all, ``"gaussian"`` none) and bin the chosen ones.

    A DataFrame, an array or a CSV/Parquet file (read whole, as the mixed statistics read
    it) is judged in memory; a Dask DataFrame keeps every number Gaussian under
    ``"auto"`` (the choice needs each column's rows with their classes in memory) and is
    refused under ``"mdl"``. ``tree`` (MixedTAN's): the oriented feature tree learned with
    every number Gaussian, the forms then chosen jointly in it
    (:func:`tree_choices`); ``None``: each column alone.
    """
    unchanged = MixedNumbers(
        X, y, sample_weight, None if numeric is None else list(numeric), None, {}
    )
    if numbers == "gaussian":
        return unchanged
    kind = kind_of(X, learner=who).name
    if kind == "dask":
        if numbers == "mdl":
            raise TreelearnError(
                f"{who} cannot cut the numeric features of a Dask frame into MDL bins "
                f'(numbers="mdl": the bins need every row in memory); take them as '
                f'Gaussians with numbers="gaussian" (or "auto", which does so for a Dask '
                f"frame), or fit on a pandas DataFrame"
            )
        return unchanged
    if kind == "path":
        X, y, sample_weight = labelled_file(X, y, sample_weight)
    elif kind not in ("frame", "array"):
        return unchanged
    frame = as_frame(X, learner=who)
    weight_column = sample_weight if isinstance(sample_weight, (str, int)) else None
    features = frame
    if weight_column is not None and weight_column in frame.columns:
        given: np.ndarray | None = np.asarray(frame[weight_column], dtype=float)
        features = frame.drop(columns=[weight_column])
    else:
        given = check_sample_weight(sample_weight, len(frame))
    weights = np.ones(len(frame)) if given is None else given
    if numeric is None:
        columns = gaussian_number_columns(features.dtypes, categorical)
    else:
        columns = gaussian_columns(features, numeric)
    # a column without any observed value stays Gaussian: the statistics' error names it
    judged = [c for c in columns if features[c].notna().any()]
    if not judged:
        return unchanged
    with warnings.catch_warnings():  # class_labels warns once, when the classes are read
        warnings.simplefilter("ignore")
        labels, _ = label_values(y, len(frame))
    codes, uniques = pd.factorize(pd.Series(labels, dtype=object), sort=False)
    from ..encoding._discretizer import mdl_discretizer

    cuts = mdl_discretizer(features[judged], labels, judged, weights)
    choices = {}
    if tree is not None and numbers == "auto":  # MixedTAN: the forms chosen in its tree
        choices = tree_choices(
            features,
            tree,
            judged,
            codes,
            weights,
            len(uniques),
            {c: np.asarray(cuts.edges_[c], dtype=float) for c in judged},
            alpha=alpha,
            var_prior=var_prior,
            var_smoothing=var_smoothing,
        )
    for c in [c for c in judged if c not in choices]:
        values = np.asarray(pd.to_numeric(features[c]), dtype=float)
        choices[c] = column_choice(
            values,
            codes,
            weights,
            len(uniques),
            np.asarray(cuts.edges_[c], dtype=float),
            alpha=alpha,
            var_prior=var_prior,
            var_smoothing=var_smoothing,
        )
        if numbers == "mdl":
            choices[c] = NumberChoice(choices[c].gaussian, choices[c].bins, choices[c].n_bins, True)
    binned = [c for c in judged if choices[c].binned]
    gaussian = [c for c in columns if c not in set(binned)]
    if not binned:
        return MixedNumbers(X, y, sample_weight, gaussian, None, choices)
    binner = _restricted(cuts, binned)
    return MixedNumbers(
        bin_numbers(binner, frame, None), y, sample_weight, gaussian, binner, choices
    )


def choices_state(choices: dict) -> dict:
    """The fields a mixed classifier saves its choices in (read by :func:`restored_choices`)."""
    return {
        "number_choice_columns": [encode_label(f) for f in choices],
        "number_choices": [choice.to_dict() for choice in choices.values()],
    }


def _restricted(cuts: Discretizer, columns: list) -> Discretizer:
    """The fitted MDL bins of ``columns`` alone: what fitting them alone gives (each
    column's cut points depend on that column and the classes only), without cutting
    again."""
    out = copy.deepcopy(cuts)
    out.columns = list(columns)
    for fitted in (out.edges_, out.categories_, out.timezones_):
        for c in [c for c in fitted if c not in set(columns)]:
            del fitted[c]
    names = np.empty(len(columns), dtype=object)
    names[:] = list(columns)
    out.feature_names_in_ = names
    out.n_features_in_ = len(columns)
    return out


def _log_sum_exp(joint: np.ndarray) -> np.ndarray:
    """``log sum_c exp(joint[:, c])`` by rows (a row of ``-inf`` gives ``-inf``)."""
    top = joint.max(axis=1)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(joint - safe[:, None]).sum(axis=1)) + safe


def restored_choices(saved: SavedState, features: Sequence[Hashable]) -> dict:
    """The saved choices (field ``number_choices``: a list of ``[column, choice]``); a file
    from before the choice has none (every number Gaussian)."""
    if not saved.has("number_choices"):
        return {}
    raw = saved.raw("number_choices", list)
    labels = saved.labels("number_choice_columns")
    if len(raw) != len(labels) or any(f not in set(features) for f in labels):
        raise saved.fail("number_choices", "must name features, one choice each")
    out = {}
    for f, entry in zip(labels, raw):
        if not isinstance(entry, dict) or set(entry) != {"gaussian", "bins", "n_bins", "binned"}:
            raise saved.fail("number_choices", "must hold gaussian, bins, n_bins, binned")
        out[f] = NumberChoice(
            float("nan") if entry["gaussian"] is None else float(entry["gaussian"]),
            float("nan") if entry["bins"] is None else float(entry["bins"]),
            int(entry["n_bins"]),
            bool(entry["binned"]),
        )
    return out


def older_files_without_numbers(saved: SavedState, est: Any) -> None:
    """A saved mixed classifier from before ``numbers``: every number Gaussian, its
    options read as ``numbers="gaussian"``."""
    given = saved.raw("params", dict)
    if "numbers" not in given:
        given["numbers"] = "gaussian"
        est.numbers = "gaussian"


def binned_features(binner: Discretizer | None, features: Any) -> list:
    """The features ``binner`` cuts, in feature order (none without bins)."""
    if binner is None:
        return []
    cut = set(binner.edges_)
    return [f for f in features if f in cut]
