"""Kruskal on the best pairs before Prim (issue 41: a fit's fixed costs). The ranked
spanning tree first runs Kruskal over the ``KRUSKAL_BUDGET * d`` best pairs and keeps its
answer when that is a spanning tree or every pair was looked at; else Prim. Both must be
networkx's Kruskal edges in its order (the oracle of test_chow_liu_fast_path) on weights
with ties, forests and tie orders, with the budget at 0 (Prim alone), 1 (Kruskal gives up
on most trees: Prim after it), the default, and unlimited (Kruskal alone); and a Chow-Liu
fit learns the same model whichever answers."""

import numpy as np
import pandas as pd
import pytest
from test_chow_liu_fast_path import kruskal_edges, plain_kruskal, tied_weights
from test_stacked_tree_model import assert_same_model

import treelearn as tl
import treelearn.structure._trees as trees
from treelearn.structure._trees import round_ties, spanning_tree_edges

BUDGETS = [0, 1, trees.KRUSKAL_BUDGET, 10**9]


@pytest.mark.parametrize("budget", BUDGETS)
def test_spanning_edges_are_networkx_kruskal_whoever_answers(monkeypatch, budget):
    monkeypatch.setattr(trees, "KRUSKAL_BUDGET", budget)
    rng = np.random.default_rng(411)
    for trial in range(80):
        d = int(rng.integers(1, 30))
        W = tied_weights(rng, d)
        present = None
        if trial % 3 == 1:  # a forest: some pairs are no edges
            present = np.triu(rng.random((d, d)) < 0.4, 1)
        assert spanning_tree_edges(W, present) == kruskal_edges(W, present), (trial, d)
        order = rng.permutation(d * d).reshape(d, d)
        assert spanning_tree_edges(W, order=order) == plain_kruskal(W, order), (trial, d)


def test_the_prefix_answers_or_declines():
    rng = np.random.default_rng(5)
    d = 12
    W = round_ties(tied_weights(rng, d))
    upper = np.triu(np.ones((d, d), dtype=bool), 1)
    iu, ju = np.nonzero(upper)
    ranked = np.argsort(-W[iu, ju], kind="stable")
    tree = trees._kruskal_prefix(d, iu, ju, ranked, True)
    assert tree == kruskal_edges(W)
    assert trees._kruskal_prefix(d, iu, ju, ranked[: d - 2], False) is None  # too few pairs
    # every pair looked at: the answer even when it is a forest
    cut = upper & ~((np.arange(d)[:, None] < 3) ^ (np.arange(d)[None, :] < 3))
    ic, jc = np.nonzero(cut)
    rc = np.argsort(-W[ic, jc], kind="stable")
    forest = trees._kruskal_prefix(d, ic, jc, rc, True)
    assert forest == kruskal_edges(W, cut) and len(forest) == d - 2
    assert trees._kruskal_prefix(1, iu[:0], ju[:0], ranked[:0], False) == []


@pytest.mark.parametrize("budget", [0, 10**9])
def test_chow_liu_learns_the_same_model_whoever_answers(monkeypatch, budget):
    rng = np.random.default_rng(8)
    n, d = 500, 24
    X = (rng.random((n, d)) < 0.3).astype(np.int64)
    for j in range(1, d):
        X[:, j] = np.where(rng.random(n) < 0.3, X[:, j], X[:, j - 1])
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(d)])
    reference = tl.chow_liu(df)
    monkeypatch.setattr(trees, "KRUSKAL_BUDGET", budget)
    assert_same_model(tl.chow_liu(df), reference, df)
