"""What every density estimator of treelearn shares: scores from ``score_samples``, early
stopping on validation data, a progress bar, the options of EM fits.

A density estimator (:class:`~treelearn.TreeMixture`, :class:`~treelearn.HiddenTree`,
:class:`~treelearn.CutsetNetwork`, ...) defines ``score_samples(X)`` (the log-likelihood
of each row, missing cells summed out) and the property ``n_parameters``;
:class:`DensityScores` derives the rest once, as scikit-learn's ``GaussianMixture``
names them: ``score`` (mean log-likelihood per row, what ``GridSearchCV`` maximises),
``bic`` and ``aic`` (**larger is better**, treelearn's sign), each with ``sample_weight``.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import TreelearnError
from .._base.validation import Interval
from ..encoding._table import weighted_total
from ..export._jsonfile import estimator_document, save_document

__all__ = ["N_JOBS", "DensityScores", "EarlyStopping", "most_probable", "progress_bar"]

#: ``n_jobs``: None (one process), or a number of joblib workers (-1: one per core)
N_JOBS = [None, Interval(Integral, -1, None)]


class DensityScores:
    """``score``, ``bic``, ``aic`` and ``save`` from ``score_samples`` and ``n_parameters``."""

    def _log_likelihood(self, X: Any, sample_weight: Any) -> tuple[float, float]:
        """``(total log-likelihood, n)``: weighted by ``sample_weight`` (``n``: the total
        weight); a row of weight zero does not count, even if impossible."""
        return weighted_total(self.score_samples(X), sample_weight)

    def score(self, X: Any, y: Any = None, sample_weight: Any = None) -> float:
        """Mean log-likelihood per row (what ``GridSearchCV`` maximises); with
        ``sample_weight``, the weighted mean."""
        total, n = self._log_likelihood(X, sample_weight)
        return total / n

    def bic(self, X: Any, sample_weight: Any = None) -> float:
        """``log_likelihood - n_parameters / 2 * ln n`` (``n``: the rows, or their total
        weight): **larger is better**, as for :meth:`TreeModel.bic
        <treelearn.models._tree.TreeModel.bic>`; scikit-learn's ``GaussianMixture.bic`` is
        ``-2`` times this."""
        total, n = self._log_likelihood(X, sample_weight)
        return total - 0.5 * self.n_parameters * np.log(n)

    def aic(self, X: Any, sample_weight: Any = None) -> float:
        """``log_likelihood - n_parameters`` (weighted by ``sample_weight``): larger is better."""
        total, _ = self._log_likelihood(X, sample_weight)
        return total - self.n_parameters

    def save(self, path: str | os.PathLike) -> None:
        """Save to a versioned JSON file; read it back with :func:`treelearn.load`."""
        save_document(path, estimator_document(self, self.kind))


class EarlyStopping:
    """The best model on validation data so far, and whether to stop: after
    ``patience`` iterations without a better validation score.

    >>> stop = EarlyStopping(patience=2)
    >>> [stop.update(s, f"model {i}") for i, s in enumerate([-3.0, -2.0, -2.5, -2.1])]
    [False, False, False, True]
    >>> stop.best, stop.best_score, stop.scores
    ('model 1', -2.0, [-3.0, -2.0, -2.5, -2.1])
    """

    def __init__(self, patience: int) -> None:
        self.patience = patience
        self.best: Any = None
        self.best_score = -np.inf
        self.scores: list[float] = []
        self._since = 0

    def update(self, score: float, model: Any) -> bool:
        """Record ``model``'s validation ``score``; True when it is time to stop."""
        self.scores.append(float(score))
        if self.best is None or score > self.best_score:
            self.best, self.best_score, self._since = model, float(score), 0
            return False
        self._since += 1
        return self._since >= self.patience


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass


@contextmanager
def progress_bar(enabled: bool, total: int, desc: str) -> Iterator[Any]:
    """A tqdm bar over ``total`` steps when ``enabled`` (tqdm is optional: asking for a bar
    without it is an error saying how to install it), else a bar that shows nothing."""
    if not enabled:
        yield _NoBar()
        return
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - depends on the installation
        raise TreelearnError("progress=True needs tqdm: pip install tqdm") from None
    bar = tqdm(total=total, desc=desc, leave=False)
    try:
        yield bar
    finally:
        bar.close()


def most_probable(proba: pd.DataFrame, target: Hashable) -> pd.Series:
    """Each row's most probable state (the first on ties) of a frame of probabilities (one
    column per state): a density estimator's ``predict(X, target)`` from its
    ``predict_proba(X, target)``.

    >>> most_probable(pd.DataFrame({"u": [0.7, 0.5], "v": [0.3, 0.5]}), "a").tolist()
    ['u', 'u']
    """
    labels = np.empty(proba.shape[1], dtype=object)
    labels[:] = list(proba.columns)
    return pd.Series(labels[np.argmax(proba.to_numpy(), axis=1)], index=proba.index, name=target)
