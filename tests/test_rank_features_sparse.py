"""rank_features on scipy.sparse text: each term's MI (present / absent) with the class equals
scikit-learn's mutual_info_score on that column; the matrix is never made dense."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import mutual_info_score

import treelearn as tl
from treelearn._base.errors import FeatureMismatchError


def _corpus(n=300, d=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    rates = rng.gamma(0.3, 1.0, size=(3, d)) * 0.3
    return sp.csr_matrix(rng.poisson(rates[y])), np.array(["ham", "spam", "promo"])[y]


def test_equals_mutual_info_score_per_column(monkeypatch):
    X, y = _corpus()
    dense = X.toarray() > 0
    expected = np.array([mutual_info_score(y, dense[:, j]) for j in range(X.shape[1])])

    def refuse(*args, **kwargs):
        raise AssertionError("made dense")

    monkeypatch.setattr(sp.csr_matrix, "toarray", refuse)
    names = [f"w{j}" for j in range(X.shape[1])]
    ranking = tl.rank_features(X, y, feature_names=names)
    assert ranking.name == "mutual_information"
    np.testing.assert_allclose(ranking.loc[names].to_numpy(), expected, atol=1e-12)
    assert (np.diff(ranking.to_numpy()) <= 0).all()  # largest first
    # ties keep the column order (stable sort over the same values)
    order = sorted(range(len(names)), key=lambda j: (-round(expected[j], 12), j))
    assert ranking.index.tolist()[:20] == [names[j] for j in order[:20]]
    assert tl.rank_features(X, y).index[0] == f"x{order[0]}"


def test_integer_weights_equal_repeated_rows_and_the_categorical_path():
    X, y = _corpus()
    w = np.random.default_rng(1).integers(0, 3, size=len(y))
    weighted = tl.rank_features(X, y, sample_weight=w)
    keep = np.repeat(np.arange(len(y)), w)
    repeated = tl.rank_features(X[keep], y[keep])
    np.testing.assert_allclose(weighted.sort_index(), repeated.sort_index(), atol=1e-12)
    # 0/1 data: the same numbers as the DataFrame (categorical) path
    B = (X > 0).astype(int)
    import pandas as pd

    frame = pd.DataFrame(B.toarray(), columns=[f"x{j}" for j in range(X.shape[1])])
    np.testing.assert_allclose(
        tl.rank_features(B, y).sort_index(), tl.rank_features(frame, y).sort_index(), atol=1e-12
    )


def test_feature_names_must_match():
    X, y = _corpus()
    with pytest.raises(FeatureMismatchError, match="3 names for X's 120 columns"):
        tl.rank_features(X, y, feature_names=["a", "b", "c"])
