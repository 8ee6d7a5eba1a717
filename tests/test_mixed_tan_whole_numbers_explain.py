"""MixedTAN explains rows whose whole-number column is Gaussian (penguins' ``year``).

Shapley values mask features; the masked rows went through ``object`` and an integer
column came back as objects, which the Gaussian part refused ("column 'year' is not
numeric"). The same numbers held as floats are the independent path: equal values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import treelearn as tl

PENGUINS = "datasets/real/penguins.csv"


def _penguins() -> tuple[pd.DataFrame, pd.Series]:
    df = tl.io.read_data(PENGUINS).dropna()
    return df.drop(columns="species"), df["species"]


def test_shapley_with_a_gaussian_whole_number_column():
    X, y = _penguins()
    assert X["year"].dtype.kind == "i"
    as_floats = X.astype({"year": float})
    model = tl.MixedTAN(numbers="gaussian").fit(X, y)
    assert "year" in model.numeric_features_
    rows = X.iloc[[0, 150, 300]]
    got = model.explain(rows, kind="shapley")
    # the model learned from floats gives the same Gaussian for year (same numbers)
    expected = (
        tl.MixedTAN(numbers="gaussian")
        .fit(as_floats, y)
        .explain(as_floats.iloc[[0, 150, 300]], kind="shapley")
    )
    np.testing.assert_allclose(got.values.to_numpy(), expected.values.to_numpy(), atol=1e-12)
    # efficiency: the contributions sum to the prediction less the base
    total = got.values.to_numpy().sum(axis=1) + np.asarray(got.base)
    np.testing.assert_allclose(total, np.asarray(got.prediction), atol=1e-9)
