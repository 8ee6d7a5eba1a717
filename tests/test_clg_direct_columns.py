"""The CLG tree's complete-row scorer reading integer-code and float columns in place
(no encoding, no rows x columns copy): the same log-likelihoods as the general path and
as scipy's normal log-densities, block by block, and the general path's errors for what
it cannot read."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from test_clg_complete_rows import clg_model, independent_scores

import treelearn as tl


def general_scores(model: tl.CLGTreeModel, X: pd.DataFrame) -> np.ndarray:
    """score_samples through the encoder and the float matrix (the path before)."""
    codes, values = model._arrays(X, small_codes=True)
    return model._complete_scores(codes, values)


@pytest.mark.parametrize("offset", [0.0, 1e6])
def test_direct_columns_equal_scipy_and_the_general_path(offset, monkeypatch):
    model = clg_model(offset)
    X = model.sample(3000, random_state=4)
    assert model._direct_columns(X) is not None  # int64 codes and floats: read in place
    monkeypatch.setattr(tl.CLGTreeModel, "_BLOCK_ROWS", 700)  # 5 blocks, the last short
    got = model.score_samples(X)
    # both subtract the mean before squaring: round-off only (atol: 1e6 offsets leave
    # residuals of a few units, whose squares keep ~1e-10 absolute digits)
    np.testing.assert_allclose(got, independent_scores(model, X), rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(got, general_scores(model, X), rtol=1e-12, atol=1e-9)


def test_other_inputs_take_the_general_path_with_the_same_answers():
    model = clg_model()
    X = model.sample(500, random_state=5)
    want = independent_scores(model, X)
    as_categories = X.astype({"d0": "category", "d1": "category"})
    as_float32 = X.astype({"x0": np.float32})
    assert model._direct_columns(as_categories) is None
    np.testing.assert_allclose(model.score_samples(as_categories), want, rtol=1e-12)
    # float32 numbers are read (widened to float64) directly: scipy on the same floats
    assert model._direct_columns(as_float32) is not None
    np.testing.assert_allclose(
        model.score_samples(as_float32),
        independent_scores(model, as_float32.astype({"x0": float})),
        rtol=1e-12,
    )


def test_an_unseen_state_and_an_infinity_raise_the_general_paths_errors():
    model = clg_model()
    X = model.sample(200, random_state=6)
    bad = X.copy()
    bad.loc[bad.index[7], "d1"] = 3  # states are 0, 1, 2
    with pytest.raises(tl.TreelearnError, match="d1"):
        model.score_samples(bad)
    bad = X.copy()
    bad.loc[bad.index[3], "x2"] = np.inf
    with pytest.raises(tl.TreelearnError, match="x2"):
        model.score_samples(bad)


def test_the_callers_frame_is_not_changed_and_no_rows_by_columns_copy_is_made():
    model = clg_model()
    X = model.sample(200_000, random_state=7)
    before = X.copy()
    model.score_samples(X)  # builds the cached tables
    tracemalloc.start()
    out = model.score_samples(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    pd.testing.assert_frame_equal(X, before)
    # the output (8 bytes a row) plus a few blocks' temporaries; the general path's float
    # matrix alone is 5 x 8 bytes a row
    assert peak < out.nbytes + 40 * 8 * tl.CLGTreeModel._BLOCK_ROWS


def test_a_model_without_discrete_variables():
    rng = np.random.default_rng(8)
    x = rng.normal(size=4000)
    X = pd.DataFrame({"a": x, "b": 2 * x + rng.normal(size=4000), "c": rng.normal(size=4000)})
    model = tl.clg_tree(X)
    assert model.discrete_model is None
    got = model.score_samples(X)
    from scipy import stats

    want = np.zeros(len(X))
    for v in X.columns:
        node = model.graph.nodes[v]
        ps = list(model.graph.predecessors(v))
        mean = node["intercept"] + (node["coefficient"] * X[ps[0]] if ps else 0.0)
        want += stats.norm.logpdf(X[v], mean, np.sqrt(node["variance"]))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
