"""Cutset networks and their bagged ensembles (issue 23): every answer against brute-force
enumeration of the joint, or an identity."""

from __future__ import annotations

import os

import joblib
import numpy as np
import pandas as pd
import pytest
from oracles import scored_rows

import treelearn as tl
from treelearn.models._cutset import Leaf

HERE = os.path.dirname(__file__)


@pytest.fixture(scope="module")
def asia():
    return pd.read_csv(os.path.join(HERE, "..", "datasets", "asia.csv"))


@pytest.fixture(scope="module")
def small():
    """Five variables (2-3 states) with dependences a tree cannot hold: a cutset helps."""
    rng = np.random.default_rng(0)
    n = 3000
    a = rng.integers(0, 2, n)
    b = (a ^ (rng.random(n) < 0.1)).astype(int)
    c = np.where(a == 1, rng.integers(0, 3, n), (b + rng.integers(0, 2, n)) % 3)
    d = ((b + c + (rng.random(n) < 0.2)) % 2).astype(int)
    e = np.where(c == 2, a, 1 - d)
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e})


def test_depth_zero_is_the_chow_liu_tree(asia):
    net = tl.CutsetNetwork(max_depth=0).fit(asia)
    tree = tl.chow_liu(asia)
    leaf = net.networks_[0].root
    assert isinstance(leaf, Leaf)
    assert leaf.tree == tree
    np.testing.assert_allclose(
        net.score_samples(asia), tree.log_likelihood(asia, per_row=True), rtol=1e-13
    )


@pytest.mark.parametrize(
    "options",
    [
        dict(max_depth=2, min_rows=10),
        dict(max_depth=3, split="random", random_state=1),
        dict(max_depth=2, n_estimators=4, random_state=0),
    ],
)
def test_queries_equal_brute_force_enumeration(small, options):
    est = tl.CutsetNetwork(**options).fit(small)
    if options.get("n_estimators", 1) == 1:
        assert est.networks_[0].depth >= 1
    rows, p = scored_rows(
        est.score_samples, small.columns, [sorted(small[c].unique()) for c in small.columns]
    )
    assert p.sum() == pytest.approx(1.0, abs=1e-12)  # normalised
    # a row with missing cells: the sum of its completions
    holed = pd.DataFrame(
        {"a": [1, np.nan], "b": [np.nan, 0], "c": [2, np.nan], "d": [np.nan, np.nan], "e": [0, 1]}
    )
    for r in range(len(holed)):
        given = {c: holed[c].iloc[r] for c in holed.columns if pd.notna(holed[c].iloc[r])}
        match = np.all([rows[c] == v for c, v in given.items()], axis=0)
        assert np.exp(est.score_samples(holed.iloc[[r]]))[0] == pytest.approx(
            p[match].sum(), rel=1e-12
        )
    # a conditional query of two variables
    evidence = {"a": 0, "e": 1}
    match = (rows["a"] == 0) & (rows["e"] == 1)
    want = pd.Series(p[match], index=pd.MultiIndex.from_frame(rows[match][["c", "d"]]))
    want = want.groupby(level=[0, 1]).sum()
    got = est.query(["c", "d"], evidence=evidence)
    np.testing.assert_allclose(got.to_numpy(), (want / want.sum()).to_numpy(), rtol=1e-12)
    # predict_proba of one column given the others
    proba = est.predict_proba(holed, "c")
    for r in range(len(holed)):
        given = {c: holed[c].iloc[r] for c in "abde" if pd.notna(holed[c].iloc[r])}
        match = np.all([rows[c] == v for c, v in given.items()], axis=0)
        by_c = pd.Series(p[match]).groupby(rows["c"][match].to_numpy()).sum()
        np.testing.assert_allclose(
            proba.iloc[r].to_numpy(), (by_c / by_c.sum()).to_numpy(), rtol=1e-12
        )


def test_map_is_the_most_probable_completion(small):
    est = tl.CutsetNetwork(max_depth=3, min_rows=10).fit(small)
    rows, p = scored_rows(
        est.score_samples, small.columns, [sorted(small[c].unique()) for c in small.columns]
    )
    best, log_p = est.map_query(return_log_prob=True)
    top = int(np.argmax(p))
    assert best == rows.iloc[top].to_dict()
    assert log_p == pytest.approx(np.log(p[top]), rel=1e-12)
    given = est.map_query({"c": 1})
    match = np.flatnonzero(rows["c"] == 1)
    want = rows.iloc[match[np.argmax(p[match])]].drop("c").to_dict()
    assert given == want
    bag = tl.CutsetNetwork(max_depth=2, n_estimators=3, random_state=0).fit(small)
    with pytest.raises(tl.TreelearnError, match="a member"):
        bag.map_query()


def test_samples_follow_the_joint(small):
    est = tl.CutsetNetwork(max_depth=2, min_rows=10).fit(small)
    rows, p = scored_rows(
        est.score_samples, small.columns, [sorted(small[c].unique()) for c in small.columns]
    )
    drawn = est.sample(40000, random_state=0)
    freq = drawn.value_counts(normalize=True)
    want = pd.Series(p, index=pd.MultiIndex.from_frame(rows))
    got = freq.reindex(want.index, fill_value=0.0)
    assert np.abs(got.to_numpy() - want.to_numpy()).max() < 0.01  # sd of one cell < 0.0025
    given = est.networks_[0].sample(2000, evidence={"a": 1, "d": 0}, random_state=1)
    assert (given["a"] == 1).all() and (given["d"] == 0).all()


def test_a_bag_is_the_mean_of_its_networks(small):
    bag = tl.CutsetNetwork(max_depth=2, n_estimators=5, random_state=0).fit(small)
    members = np.column_stack([net.log_likelihood(small, per_row=True) for net in bag.networks_])
    np.testing.assert_allclose(
        bag.score_samples(small), np.log(np.exp(members).mean(axis=1)), rtol=1e-12
    )
    with joblib.parallel_config(backend="threading"):  # no worker processes to start in a test
        again = tl.CutsetNetwork(max_depth=2, n_estimators=5, random_state=0, n_jobs=2).fit(small)
    np.testing.assert_array_equal(again.score_samples(small), bag.score_samples(small))
    assert bag.n_parameters == sum(n.n_parameters for n in bag.networks_) + 4


def test_validation_pruning_never_scores_the_validation_rows_worse(small):
    train, valid = small.iloc[:600], small.iloc[600:]
    grown = tl.CutsetNetwork(max_depth=4, min_rows=5).fit(train)
    pruned = tl.CutsetNetwork(max_depth=4, min_rows=5).fit(train, validation=valid)
    assert len(pruned.networks_[0].nodes()) <= len(grown.networks_[0].nodes())
    assert pruned.score(valid) >= grown.score(valid) - 1e-12


def test_save_load_round_trip_and_a_bad_file_is_refused(tmp_path, asia):
    bag = tl.CutsetNetwork(max_depth=2, n_estimators=2, random_state=0).fit(asia)
    path = tmp_path / "cn.json"
    tl.save(bag, path)
    back = tl.load(path)
    np.testing.assert_array_equal(back.score_samples(asia), bag.score_samples(asia))
    assert back.sample(5, random_state=0).dtypes.tolist() == asia.dtypes.tolist()
    state = bag.to_dict()
    state["networks"][0]["root"]["weights"] = [0.7, 0.7]
    with pytest.raises(tl.InvalidModelError, match="weights"):
        tl.CutsetNetwork.from_dict(state)


def test_a_file_gives_the_in_memory_network_and_bad_options_are_named(tmp_path, asia):
    asia.to_csv(tmp_path / "asia.csv", index=False)
    want = tl.CutsetNetwork(max_depth=2).fit(asia)
    got = tl.CutsetNetwork(max_depth=2).fit(tmp_path / "asia.csv")
    np.testing.assert_allclose(got.score_samples(asia), want.score_samples(asia), rtol=1e-12)
    with pytest.raises(tl.TreelearnError, match="split == 'best'"):
        tl.CutsetNetwork(split="best").fit(asia)
    with pytest.raises(tl.TreelearnError, match="max_samples == 0"):
        tl.CutsetNetwork(max_samples=0).fit(asia)


@pytest.mark.parametrize("kind", ["csr_matrix", "csr_array", "csc_matrix"])
def test_a_sparse_matrix_is_fitted_and_scored_as_its_dense_table(kind):
    # fit read a 0/1 scipy.sparse matrix as its dense table but scoring refused sparse input
    # (issue 23): every method now reads it as fit does, variables 0..d-1 by position
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(3)
    dense = (rng.random((400, 6)) < 0.3).astype(np.int8)
    dense[:, 1] = dense[:, 0] ^ (rng.random(400) < 0.1)  # a dependence worth conditioning on
    X = getattr(sp, kind)(dense)
    frame = pd.DataFrame(dense)  # columns 0..5, as a sparse matrix's variables are named
    for options in (
        dict(max_depth=2, min_rows=20),
        dict(max_depth=2, n_estimators=3, random_state=0),
    ):
        got = tl.CutsetNetwork(**options).fit(X[:300], validation=X[300:])
        want = tl.CutsetNetwork(**options).fit(frame.iloc[:300], validation=frame.iloc[300:])
        np.testing.assert_array_equal(got.score_samples(X), want.score_samples(frame))
        np.testing.assert_array_equal(got.score_samples(X), got.score_samples(frame))
        assert got.score(X) == want.score(frame)
        np.testing.assert_array_equal(
            got.predict_proba(X, target=1).to_numpy(),
            want.predict_proba(frame, target=1).to_numpy(),
        )
    with pytest.raises(tl.TreelearnError, match="only 0/1"):
        got.score_samples(X * 2.5)
    with pytest.raises(tl.FeatureMismatchError, match="6 features"):
        got.score_samples(X[:, :4])


@pytest.mark.parametrize("alpha, mi_alpha", [(1.0, None), (0.0, None), (0.5, 1.0)])
def test_a_split_is_judged_by_the_tree_fit_read_off_the_counts(small, alpha, mi_alpha):
    # the growth scores a branch without building its tree (tree_fit): the same
    # log-likelihood and parameters as the Chow-Liu tree learned and scored row by row
    from treelearn.encoding._table import encode
    from treelearn.learners._cutset import tree_fit
    from treelearn.stats._counts import pair_counts

    w = np.random.default_rng(1).integers(0, 4, len(small)).astype(float)
    ll, mi, n_par = tree_fit(pair_counts(encode(small, sample_weight=w)), alpha, mi_alpha)
    tree = tl.chow_liu(small, alpha=alpha, mi_alpha=mi_alpha, sample_weight=w)
    rows = tree.log_likelihood(small, per_row=True)
    want = float(np.sum(w[w > 0] * rows[w > 0]))  # 0 x log 0 = 0 for rows of weight 0
    assert ll == pytest.approx(want, rel=1e-12)  # sums of the same terms in another order
    assert n_par == tree.n_parameters
    graph = tl.mi_graph(small, mi_alpha=mi_alpha, sample_weight=w)
    np.testing.assert_allclose(mi, nx_matrix(graph, list(small.columns)), atol=1e-12)


def nx_matrix(graph, names):
    out = np.zeros((len(names), len(names)))
    for u, v, data in graph.edges(data=True):
        i, j = names.index(u), names.index(v)
        out[i, j] = out[j, i] = data["weight"]
    return out


def test_whole_row_weights_grow_the_network_of_repeated_rows(small):
    # a bootstrap is whole row weights: the largest branch's counts are the node's minus the
    # others' (exact in integers), so weights give the network of the rows repeated
    w = np.random.default_rng(4).integers(0, 3, len(small))
    repeated = small.loc[small.index.repeat(w)].reset_index(drop=True)
    got = tl.CutsetNetwork(max_depth=3, min_rows=30).fit(small, sample_weight=w)
    want = tl.CutsetNetwork(max_depth=3, min_rows=30).fit(repeated)
    assert len(got.networks_[0].nodes()) == len(want.networks_[0].nodes()) > 1
    np.testing.assert_allclose(got.score_samples(small), want.score_samples(small), rtol=1e-12)
