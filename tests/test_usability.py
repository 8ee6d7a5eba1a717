"""Small things a new user meets: model equality, the text headline."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd

import treelearn as tl


def test_equality_does_not_depend_on_the_order_of_variables_or_parent_axes():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.integers(0, 3, (200, 3)), columns=list("abc"))
    model = tl.fit_cpts(nx.DiGraph([("a", "c"), ("b", "c")]), df, alpha=1.0)
    reordered = tl.TreeModel(model.graph.copy(), variables=["c", "b", "a"])
    assert reordered == model and model == reordered
    # the same CPT with its parent axes swapped: the same distribution
    g = model.graph.copy()
    g.nodes["c"]["parents"] = ["b", "a"]
    g.nodes["c"]["cpt"] = np.transpose(model.cpt("c"), (1, 0, 2))
    assert tl.TreeModel(g, variables=list(model.variables)) == model
    # ... and a different number is a different model
    g.nodes["c"]["cpt"] = g.nodes["c"]["cpt"][:, :, ::-1].copy()
    assert tl.TreeModel(g, variables=list(model.variables)) != model


def test_headline_names_every_root_and_counts_in_words():
    df = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 1], "c": [0, 1, 0, 1]})
    g = nx.DiGraph([("a", "b")])
    g.add_node("c")
    forest = tl.fit_cpts(g, df).to_text().splitlines()[0]
    assert "3 variables, 1 edge, roots ['a', 'c']" in forest
    tree = tl.chow_liu(df[["a", "b"]]).to_text().splitlines()[0]
    assert "2 variables, 1 edge, root 'a'" in tree
