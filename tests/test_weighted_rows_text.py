"""The rows a model was learned from, as its file keeps them and its text says them.

A tree-mixture component (or any weighted fit) is learned from a sum of weights, e.g.
435.078... expected rows of 944: ``treelearn learn --method mixture`` printed
``learned from 435.07866213797456 rows``, and the model file stored ``int()`` of it, so
``treelearn show`` of the saved model said ``learned from 435 rows`` (508.92 became 508).
The file now keeps the number, and every text view prints whole rows as an integer and a
sum of weights to two decimals; the Gaussian kinds printed a million rows as ``1e+06``.
The expected numbers are numpy's sums of the weights (and responsibilities sum to the
rows: an identity)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pandas as pd
import pytest

import treelearn as tl

ASIA = pd.read_csv(pathlib.Path(__file__).parents[1] / "datasets" / "asia.csv")


def test_a_weighted_tree_keeps_its_rows_through_the_file(tmp_path):
    w = np.random.default_rng(0).uniform(0.1, 1.0, len(ASIA))
    model = tl.chow_liu(ASIA, sample_weight=w)
    assert model.n_rows == pytest.approx(float(np.sum(w)), rel=1e-12)  # summation order
    assert f"learned from {float(np.sum(w)):.2f} rows" in model.to_text()
    model.save(tmp_path / "w.json")
    back = tl.load(tmp_path / "w.json")
    assert back.n_rows == model.n_rows  # the float itself, not int() of it
    assert back.to_text() == model.to_text()


def test_mixture_components_say_the_same_rows_fitted_and_loaded(tmp_path):
    mix = tl.TreeMixture(n_components=2, random_state=0, max_iter=10).fit(ASIA).model_
    rows = [c.n_rows for c in mix.components]
    assert sum(rows) == pytest.approx(len(ASIA), rel=1e-9)  # responsibilities sum to 1 a row
    assert any(not float(r).is_integer() for r in rows)  # expected rows, not whole ones
    mix.save(tmp_path / "mix.json")
    back = tl.load(tmp_path / "mix.json")
    assert [c.n_rows for c in back.components] == rows
    assert back.to_text() == mix.to_text()
    for r in rows:
        assert f"learned from {r:.2f} rows" in mix.to_text()
    assert f"learned from {len(ASIA)} rows" not in mix.to_text()


def test_whole_rows_print_as_integers_in_every_kind():
    rng = np.random.default_rng(0)
    numbers = pd.DataFrame(rng.normal(size=(1_000_000, 2)), columns=["u", "v"])
    assert "learned from 1000000 rows" in tl.gaussian_chow_liu(numbers).to_text()
    assert "learned from 1000000 rows" in tl.chow_liu(numbers > 0).to_text()
    assert f"learned from {len(ASIA)} rows" in tl.chow_liu(ASIA).to_text()


@pytest.mark.parametrize("bad", [-1, -0.5, True, "5", None])
def test_the_file_still_refuses_what_is_no_row_count(bad, tmp_path):
    model = tl.chow_liu(ASIA)
    d = json.loads(json.dumps(model.to_dict()))
    if bad is None:  # null stays allowed: a model not learned from data
        d["n_rows"] = None
        assert tl.TreeModel.from_dict(d).n_rows is None
        return
    d["n_rows"] = bad
    with pytest.raises(tl.TreelearnError, match="n_rows must be a non-negative number"):
        tl.TreeModel.from_dict(d)
