"""The text views count a variable's states in words: "1 state", "2 states".

A constant column is a one-state variable (a binned number whose bins found no cut
is one too); the views said "(1 states)".
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import treelearn as tl
from treelearn.models._tree import states_text


def constant_column_frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 60)
    return pd.DataFrame({"a": a, "b": (a + rng.integers(0, 3, 60)) % 3, "c": 0})


def test_states_text_counts_in_words():
    assert [states_text(k) for k in (1, 2, 10)] == ["1 state", "2 states", "10 states"]


def test_tree_model_text_says_one_state():
    text = tl.chow_liu(constant_column_frame()).to_text().splitlines()
    assert any(line.lstrip("│├└─ ").startswith("c (1 state)") for line in text)
    assert any(line.lstrip("│├└─ ").startswith("b (3 states)") for line in text)
    assert not any("1 states" in line for line in text)


def test_classifier_network_text_says_one_state():
    df = constant_column_frame()
    clf = tl.TAN(numbers="states").fit(df[["b", "c"]], df["a"])
    text = clf.model_.to_text()
    assert "c (1 state)" in text and "b (3 states)" in text and "1 states" not in text


def test_mixed_tan_text_says_one_state():
    df = constant_column_frame()
    # text columns are states; the number is Gaussian or binned as MixedTAN chooses
    X = pd.DataFrame(
        {"b": df["b"].map("bcd".__getitem__), "c": "same", "x": np.linspace(0.0, 1.0, 60)}
    )
    text = tl.MixedTAN().fit(X, df["a"]).to_text()
    assert "c (1 state)" in text and "b (3 states)" in text and "1 states" not in text
