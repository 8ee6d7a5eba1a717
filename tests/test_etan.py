"""ETAN: the chosen structure is the BDeu-best of every ETAN structure on 4 features
(enumerated), each family's BDeu computed here by the sequential Dirichlet predictive row
after row; never below TAN's score; saved and loaded as it was."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import sequential_log_evidence

import treelearn as tl


def data(n: int, seed: int) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    x0 = np.where(rng.random(n) < 0.6, y % 2, rng.integers(0, 2, n))
    x1 = np.where(rng.random(n) < 0.7, x0, rng.integers(0, 2, n))  # hangs on x0, not on C
    x2 = rng.integers(0, 3, n)  # noise
    x3 = np.where(rng.random(n) < 0.6, (x2 + y) % 3, rng.integers(0, 3, n))
    return pd.DataFrame({"x0": x0, "x1": x1, "x2": x2, "x3": x3}), pd.Series(y, name="C")


def family_bdeu(df: pd.DataFrame, child: str, parents: list, ess: float) -> float:
    """``log P(column child | parents)`` under BDeu: one Dirichlet per parent configuration,
    the product of each row's predictive probability given the rows before it."""
    r = int(df[child].max()) + 1
    q = int(np.prod([df[p].max() + 1 for p in parents])) if parents else 1
    groups = list(df[parents].itertuples(index=False, name=None)) if parents else None
    return sequential_log_evidence(df[child].to_numpy(), r, ess / (q * r), groups)


@pytest.mark.parametrize(("seed", "ess"), [(0, 1.0), (1, 5.0), (2, 0.5)])
def test_etan_is_the_best_of_every_etan_structure(seed, ess):
    X, y = data(150, seed)
    df = X.assign(C=y.to_numpy())
    cols = list(X.columns)
    memo: dict = {}

    def score(child, parents):
        key = (child, tuple(parents))
        if key not in memo:
            memo[key] = family_bdeu(df, child, list(parents), ess)
        return memo[key]

    options = [(c, p) for c in (False, True) for p in [None, *cols]]
    best = []
    for choice in itertools.product(options, repeat=len(cols)):
        if any(p == f for f, (_, p) in zip(cols, choice)):
            continue
        arcs = [(p, f) for f, (_, p) in zip(cols, choice) if p is not None]
        if not nx.is_directed_acyclic_graph(nx.DiGraph(arcs)):
            continue
        total = sum(
            score(f, (["C"] if c else []) + ([p] if p else [])) for f, (c, p) in zip(cols, choice)
        )
        best.append((total, choice))
    best.sort(key=lambda t: -t[0])
    assert best[0][0] - best[1][0] > 1e-6  # a unique best structure
    clf = tl.ETAN(numbers="states", equivalent_sample_size=ess).fit(X, y)
    assert clf.structure_score_ == pytest.approx(best[0][0], rel=1e-10)
    want = dict(zip(cols, best[0][1]))
    assert clf.feature_parent_ == {f: p for f, (_, p) in want.items()}
    assert clf.class_children_ == [f for f in cols if want[f][0]]
    for f in cols:
        c, p = want[f]
        assert clf.model_.parents(f) == (["C"] if c else []) + ([p] if p else [])
    # TAN (the class above all, a spanning tree) is one of the candidates
    tan = tl.TAN(numbers="states").fit(X, y)
    tan_score = sum(score(f, tan.model_.parents(f)) for f in cols)
    assert clf.structure_score_ >= tan_score - 1e-9


def test_etan_predicts_saves_and_learns_with_missing_values(tmp_path):
    X, y = data(300, 4)
    clf = tl.ETAN().fit(X, y)
    assert clf.score(X, y) > 0.5
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    clf.save(tmp_path / "e.json")
    back = tl.load(tmp_path / "e.json")
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    assert back.feature_parent_ == clf.feature_parent_
    assert back.class_children_ == clf.class_children_
    Xm = X.astype(float)
    Xm.iloc[0, 1] = np.nan
    # missing cells are counted pairwise (tests/test_missing_cells_structure.py checks the
    # scores and CPTs); the fit's posteriors stay distributions
    gappy = tl.ETAN(numbers="states").fit(Xm, y)
    np.testing.assert_allclose(gappy.predict_proba(Xm).sum(axis=1), 1.0)
    with pytest.raises(tl.TreelearnError, match="equivalent_sample_size"):
        tl.ETAN(equivalent_sample_size=0).fit(X, y)


def test_a_dask_frame_gives_the_in_memory_models():
    # ETAN's families without the class come from the class-wise pair counts, summed
    dd = pytest.importorskip("dask.dataframe")
    X, y = data(600, 3)
    ddf = dd.from_pandas(X.assign(C=y.to_numpy()), npartitions=3)
    for make in (
        lambda: tl.ETAN(numbers="states"),  # a Dask frame is counted as read: states
        lambda: tl.TAN(numbers="states", criterion="fcll"),
        lambda: tl.MANB(numbers="states"),
    ):
        ours, theirs = make().fit(ddf.drop(columns="C"), ddf["C"]), make().fit(X, y)
        if hasattr(theirs, "model_"):
            assert ours.model_ == theirs.model_
        np.testing.assert_array_equal(ours.predict_proba(X), theirs.predict_proba(X))
    etan = tl.ETAN(numbers="states").fit(X, y)
    assert not set(etan.class_children_) >= set(X.columns)  # a class-free family
