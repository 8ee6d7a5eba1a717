"""``KDB(k="auto")``, the default (issue 39): the ``k`` in ``0, 1, 2`` of least leave-one-out
log-loss with every feature kept, checked against leave-one-out by refitting (counting the
other rows, row by row), saved and loaded with its choice."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

import treelearn as tl


def data(n: int, seed: int, noise: float) -> tuple[pd.DataFrame, pd.Series]:
    """Features chained on each other and the class; ``noise``: the share of random cells."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    cols, prev = {}, y % 2
    for j, k in enumerate((2, 3, 2, 3)):
        keep = rng.random(n) >= noise
        x = np.where(keep, (prev + y * (j % 2)) % k, rng.integers(0, k, n))
        cols[f"x{j}"] = pd.Categorical(x, categories=range(k))
        prev = x
    return pd.DataFrame(cols), pd.Series(np.array(["a", "b", "c"])[y], name="C")


def loo_by_refitting(X: pd.DataFrame, y: pd.Series, parents: dict, alpha: float) -> float:
    """Leave-one-out log-loss of the network ``C -> f`` and ``parents[f] -> f``: each row's
    ``-log p(y_i | x_i)`` from the Lidstone CPTs of the other rows' counts."""
    V = np.column_stack([X[c].cat.codes.to_numpy() for c in X.columns])
    labels, classes = y.to_numpy(), sorted(set(y))
    col = {f: j for j, f in enumerate(X.columns)}
    total = 0.0
    for i in range(len(X)):
        rest = np.arange(len(X)) != i
        joint = np.array(
            [
                np.log(((labels[rest] == c).sum() + alpha) / (rest.sum() + 3 * alpha))
                for c in classes
            ]
        )
        for f, u in parents.items():
            match = rest.copy()
            for p in u:
                match &= V[:, col[p]] == V[i, col[p]]
            k = len(X[f].cat.categories)
            for ci, c in enumerate(classes):
                den = (match & (labels == c)).sum()
                num = (match & (labels == c) & (V[:, col[f]] == V[i, col[f]])).sum()
                joint[ci] += np.log((num + alpha) / (den + k * alpha))
        total += logsumexp(joint) - joint[classes.index(labels[i])]
    return total


@pytest.mark.parametrize(("n", "noise"), [(40, 0.6), (400, 0.1)])
def test_auto_k_is_the_least_leave_one_out_loss_by_refitting(n, noise):
    X, y = data(n, seed=3, noise=noise)
    clf = tl.KDB(numbers="states").fit(X, y)
    full = tl.KDB(numbers="states", k=2).fit(X, y)
    want = [
        loo_by_refitting(X, y, {f: full.model_.parents(f)[1 : 1 + k] for f in X.columns}, 1.0)
        for k in range(3)
    ]
    np.testing.assert_allclose(clf.loo_loss_, want, rtol=1e-10)
    assert clf.k_ == int(np.argmin(np.round(want, 9)))
    fixed = tl.KDB(numbers="states", k=clf.k_).fit(X, y)
    for f in X.columns:
        assert clf.model_.parents(f) == fixed.model_.parents(f)
    np.testing.assert_allclose(clf.predict_proba(X), fixed.predict_proba(X), rtol=1e-12)
    assert fixed.k_ == clf.k_ and fixed.loo_loss_ is None


def test_auto_k_follows_the_rows_and_is_saved(tmp_path):
    few, many = data(40, seed=3, noise=0.6), data(4000, seed=3, noise=0.1)
    k_few = tl.KDB(numbers="states").fit(*few).k_
    clf = tl.KDB(numbers="states").fit(*many)
    assert clf.k_ == 2 and k_few < 2  # the chained features need their parents given rows
    clf.save(tmp_path / "k.json")
    back = tl.load(tmp_path / "k.json")
    assert back.k_ == clf.k_
    np.testing.assert_array_equal(back.loo_loss_, clf.loo_loss_)
    np.testing.assert_array_equal(back.predict_proba(many[0]), clf.predict_proba(many[0]))


@pytest.mark.parametrize("n", [40, 4000])
def test_partial_fit_after_a_fit_keeps_the_chosen_k(n):
    # a fit keeps no rows, so the leave-one-out choice cannot be redone on the summed
    # counts: the k the fit chose stays, and the model is KDB(k=k_) of every row seen
    X, y = data(n, seed=3, noise=0.6 if n == 40 else 0.1)
    more_X, more_y = data(n, seed=4, noise=0.3)
    clf = tl.KDB(numbers="states").fit(X, y)
    chosen = clf.k_
    clf.partial_fit(more_X, more_y)
    both_X, both_y = pd.concat([X, more_X], ignore_index=True), pd.concat([y, more_y])
    ref = tl.KDB(numbers="states", k=chosen).fit(both_X, both_y)
    assert clf.k_ == chosen
    for f in X.columns:
        assert clf.model_.parents(f) == ref.model_.parents(f)
    # the same counts summed in another order: equal to round-off
    np.testing.assert_allclose(clf.predict_proba(both_X), ref.predict_proba(both_X), rtol=1e-12)
