"""Hidden Chow-Liu trees and hidden Markov models (issue 23): every number against brute force
over the latent states, an identity, or hmmlearn."""

from __future__ import annotations

import os

import joblib
import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import latent_tree_joint

import treelearn as tl
from treelearn.learners._hidden_tree import (
    LatentTree,
    _EStep,
    _m_step,
    latent_names,
)

HERE = os.path.dirname(__file__)


@pytest.fixture(scope="module")
def asia():
    return pd.read_csv(os.path.join(HERE, "..", "datasets", "asia.csv"))


def random_tree(parent, cards, h, seed=0):
    rng = np.random.default_rng(seed)
    latent = [
        rng.dirichlet(np.ones(h)) if p < 0 else rng.dirichlet(np.ones(h), size=h) for p in parent
    ]
    emission = [rng.dirichlet(np.ones(k), size=h) for k in cards]
    return LatentTree(np.asarray(parent), latent, emission)


def test_expected_counts_equal_brute_force_over_the_latent_states():
    parent, cards, h = [-1, 0, 0, 1], [2, 3, 2, 2], 3
    tree = random_tree(parent, cards, h, seed=3)
    codes = np.array([[0, 2, 1, 0], [1, -1, 0, 1], [-1, 0, -1, 1], [1, 1, 1, -1], [0, 0, 0, 0]])
    w = np.array([1.0, 2.5, 0.5, 1.0, 3.0])
    expected = _EStep(tree)(codes, w)
    configs, joint = latent_tree_joint(tree.parent, tree.latent, tree.emission, codes)
    evidence = joint.sum(axis=1)
    post = joint / evidence[:, None]
    assert expected.log_likelihood == pytest.approx(float(w @ np.log(evidence)), rel=1e-12)
    assert expected.weight == w.sum()
    for i in range(4):
        want_latent = np.zeros((h, h)) if parent[i] >= 0 else np.zeros(h)
        want_emit = np.zeros((h, cards[i]))
        for c, z in enumerate(configs):
            mass = w * post[:, c]
            if parent[i] >= 0:
                want_latent[z[parent[i]], z[i]] += mass.sum()
            else:
                want_latent[z[i]] += mass.sum()
            for r in range(len(codes)):
                if codes[r, i] >= 0:
                    want_emit[z[i], codes[r, i]] += mass[r]
                else:  # a missing cell: its posterior given the latent
                    joint_x = tree.emission[i][z[i]]
                    want_emit[z[i]] += mass[r] * joint_x
        np.testing.assert_allclose(expected.latent[i], want_latent, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(expected.emission[i], want_emit, rtol=1e-10, atol=1e-12)


def test_scores_and_cell_posteriors_equal_brute_force():
    rng = np.random.default_rng(5)
    df = pd.DataFrame(rng.integers(0, 2, size=(300, 4)), columns=list("abcd"))
    hidden = tl.HiddenTree(n_states=2, random_state=0, max_iter=5).fit(df)
    names = hidden.latent_names_
    model = hidden.model_.network
    tree = LatentTree(
        np.array([-1 if not model.parents(v) else names.index(model.parents(v)[0]) for v in names]),
        [model.cpt(v) for v in names],
        [model.cpt(c) for c in "abcd"],
    )
    rows = pd.DataFrame(
        {"a": [0, 1, np.nan], "b": [1, np.nan, np.nan], "c": [0, 0, 1], "d": [np.nan, 1, 0]}
    )
    codes = np.where(rows.isna(), -1, rows.fillna(0)).astype(int)
    _, joint = latent_tree_joint(tree.parent, tree.latent, tree.emission, codes)
    np.testing.assert_allclose(hidden.score_samples(rows), np.log(joint.sum(axis=1)), rtol=1e-12)
    # P(b | the row's other cells): brute force over b's states and the latents
    want = np.zeros((3, 2))
    for s in range(2):
        filled = codes.copy()
        filled[:, 1] = s
        want[:, s] = latent_tree_joint(tree.parent, tree.latent, tree.emission, filled)[1].sum(
            axis=1
        )
    want /= want.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(hidden.predict_proba(rows, "b").to_numpy(), want, rtol=1e-10)
    filled = hidden.predict(rows)
    assert filled.notna().all().all()
    assert filled["b"].tolist()[1:] == np.argmax(want[1:], axis=1).tolist()
    assert filled["b"].iloc[0] == 1 and filled["c"].tolist() == [0, 0, 1]  # observed cells stay


def test_one_latent_state_is_the_independence_model(asia):
    hidden = tl.HiddenTree(n_states=1, alpha=0).fit(asia)
    independent = tl.chow_liu(asia, alpha=0, forest=1e9)  # no edge clears the threshold
    assert independent.graph.number_of_edges() == 0
    np.testing.assert_allclose(
        hidden.score_samples(asia), independent.log_likelihood(asia, per_row=True), rtol=1e-12
    )


def test_the_chow_liu_tree_is_a_hidden_tree_with_copying_emissions_and_an_em_fixpoint(asia):
    """With h = k and identity emissions the joint tree is the Chow-Liu tree: the same
    likelihood, and (maximum likelihood) one EM step leaves it where it is."""
    clt = tl.chow_liu(asia, alpha=0)
    columns = list(asia.columns)
    index = {c: i for i, c in enumerate(columns)}
    parent = np.array([index[clt.parents(c)[0]] if clt.parents(c) else -1 for c in columns])
    tree = LatentTree(parent, [clt.cpt(c) for c in columns], [np.eye(2) for _ in columns])
    codes = clt.encode(asia[columns]).codes
    w = np.ones(len(codes))
    expected = _EStep(tree)(codes, w)
    assert expected.log_likelihood == pytest.approx(clt.log_likelihood(asia), rel=1e-12)
    again = _m_step(tree, expected, 0.0, tied=False)
    for a, b in zip(again.latent + again.emission, tree.latent + tree.emission):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_em_never_lowers_the_likelihood_and_keeps_its_history(asia):
    hidden = tl.HiddenTree(n_states=3, alpha=0, random_state=1, max_iter=40, tol=0).fit(asia)
    bounds = np.array(hidden.lower_bounds_)
    assert len(bounds) == 41 and hidden.n_iter_ == 40
    assert (np.diff(bounds) >= -1e-10).all()
    assert hidden.lower_bound_ == pytest.approx(hidden.score(asia), rel=1e-12)
    assert hidden.score(asia) > tl.chow_liu(asia, alpha=0).log_likelihood(asia) / len(asia)


@pytest.mark.parametrize("init", ["tree", "random"])
def test_every_start_is_deterministic_and_random_random_state_changes_it(asia, init):
    a = tl.HiddenTree(n_states=2, init=init, random_state=0, max_iter=3).fit(asia)
    b = tl.HiddenTree(n_states=2, init=init, random_state=0, max_iter=3).fit(asia)
    c = tl.HiddenTree(n_states=2, init=init, random_state=1, max_iter=3).fit(asia)
    assert a.lower_bounds_ == b.lower_bounds_ and a.lower_bounds_ != c.lower_bounds_


def test_n_init_keeps_the_best_start_in_parallel_too(asia):
    one = tl.HiddenTree(n_states=2, init="random", n_init=3, random_state=0, max_iter=10).fit(asia)
    with joblib.parallel_config(backend="threading"):  # no worker processes to start in a test
        two = tl.HiddenTree(
            n_states=2, init="random", n_init=3, random_state=0, max_iter=10, n_jobs=2
        ).fit(asia)
    assert one.lower_bounds_ == two.lower_bounds_
    rng = np.random.default_rng(0)
    alone = []
    for _ in range(3):  # the three starts one at a time, from the same stream of draws
        run = tl.HiddenTree(n_states=2, init="random", random_state=rng, max_iter=10).fit(asia)
        alone.append(run.lower_bound_)
    assert one.lower_bound_ == pytest.approx(max(alone), rel=1e-12)


def test_validation_stops_early_and_keeps_the_best_model(asia):
    train, valid = asia.iloc[:6000], asia.iloc[6000:]
    hidden = tl.HiddenTree(
        n_states=4, random_state=0, n_iter_no_change=2, alpha=1, max_iter=200
    ).fit(train, validation=valid)
    scores = hidden.validation_scores_
    assert len(scores) == hidden.n_iter_ + 1 == len(hidden.lower_bounds_)
    assert hidden.score(valid) == pytest.approx(max(scores), rel=1e-12)
    assert scores[-1] == max(scores)


def test_a_file_and_a_dask_frame_give_the_in_memory_model(tmp_path, asia):
    dd = pytest.importorskip("dask.dataframe")
    opts = dict(n_states=2, random_state=0, max_iter=8, chunksize=1500)
    want = tl.HiddenTree(**opts).fit(asia)
    asia.to_csv(tmp_path / "asia.csv", index=False)
    from_file = tl.HiddenTree(**opts).fit(tmp_path / "asia.csv")
    from_dask = tl.HiddenTree(**opts).fit(dd.from_pandas(asia, npartitions=3))
    for other in (from_file, from_dask):
        np.testing.assert_allclose(other.lower_bounds_, want.lower_bounds_, rtol=1e-10)
        np.testing.assert_allclose(other.score_samples(asia), want.score_samples(asia), rtol=1e-9)


def test_sample_follows_the_model(asia):
    hidden = tl.HiddenTree(n_states=2, random_state=0, max_iter=5).fit(asia)
    rows, latents = hidden.sample(20000, random_state=0, return_latent=True)
    assert list(rows.columns) == list(asia.columns)
    assert list(latents.columns) == hidden.latent_names_
    for c in ["smoke", "either"]:
        p = hidden.model_.query(c).to_numpy()
        freq = rows[c].value_counts(normalize=True).reindex(hidden.model_.states[c]).to_numpy()
        np.testing.assert_allclose(freq, p, atol=0.015)  # 20,000 draws: sd < 0.004


def test_save_load_round_trip_and_a_bad_file_is_refused(tmp_path, asia):
    hidden = tl.HiddenTree(n_states=2, random_state=0, max_iter=5).fit(asia)
    path = tmp_path / "h.json"
    tl.save(hidden, path)
    back = tl.load(path)
    assert isinstance(back, tl.HiddenTree)
    np.testing.assert_array_equal(back.score_samples(asia), hidden.score_samples(asia))
    state = hidden.to_dict()
    state["latent_names"] = state["latent_names"][:-1]
    with pytest.raises(tl.InvalidModelError, match="latent_names"):
        tl.HiddenTree.from_dict(state)


def test_draw_marks_the_latent_nodes(asia):
    pytest.importorskip("matplotlib")
    hidden = tl.HiddenTree(n_states=2, random_state=0, max_iter=2).fit(asia)
    fig = hidden.draw()
    texts = fig.treelearn_node_texts
    assert texts["H_smoke"].get_bbox_patch().get_linestyle() == "--"
    assert texts["smoke"].get_bbox_patch().get_linestyle() == "-"


def test_a_given_structure_and_bad_options(asia):
    chain = tl.HiddenTree(n_states=2, structure="chain", max_iter=2).fit(asia)
    names = chain.latent_names_
    assert [chain.model_.network.parents(v) for v in names] == [[]] + [[n] for n in names[:-1]]
    star = nx.Graph([("smoke", c) for c in asia.columns if c != "smoke"])
    given = tl.HiddenTree(n_states=2, structure=star, max_iter=2).fit(asia)
    assert given.model_.network.parents("H_lung") == ["H_smoke"]
    with pytest.raises(tl.TreelearnError, match="n_states == 0"):
        tl.HiddenTree(n_states=0).fit(asia)
    with pytest.raises(tl.TreelearnError, match="tree or forest"):
        tl.HiddenTree(structure=nx.complete_graph(list(asia.columns))).fit(asia)
    with pytest.raises(tl.ColumnNotFoundError, match="lacks"):
        tl.HiddenTree(structure=nx.Graph([("smoke", "lung")])).fit(asia)


def test_latent_names_never_clash():
    assert latent_names(["x", "H_x"]) == ["_H_x", "H_H_x"]  # "H_x" is a column


# ---------------------------------------------------------------------- hidden Markov models
@pytest.fixture(scope="module")
def sequences():
    rng = np.random.default_rng(1)
    T, n, h, k = 6, 300, 3, 4
    X = rng.integers(0, k, size=(n, T))
    start = (
        rng.dirichlet(np.ones(h)),
        rng.dirichlet(np.ones(h), size=h),
        rng.dirichlet(np.ones(k), size=h),
    )
    return pd.DataFrame(X, columns=[f"t{i}" for i in range(T)]), start


def test_baum_welch_reaches_hmmlearns_fixpoint_from_the_same_start(sequences):
    hmm_mod = pytest.importorskip("hmmlearn.hmm")
    df, (s0, A0, B0) = sequences
    X = df.to_numpy()
    n, T = X.shape
    ref = hmm_mod.CategoricalHMM(
        n_components=3, n_iter=25, tol=0, init_params="", params="ste", n_features=4
    )
    ref.startprob_, ref.transmat_, ref.emissionprob_ = s0, A0, B0
    ref.fit(X.reshape(-1, 1), lengths=[T] * n)
    ours = tl.HiddenMarkovModel(
        n_states=3,
        alpha=0,
        max_iter=25,
        tol=0,
        startprob_init=s0,
        transmat_init=A0,
        emissionprob_init=B0,
    ).fit(df)
    np.testing.assert_allclose(ours.startprob_, ref.startprob_, atol=1e-10)
    np.testing.assert_allclose(ours.transmat_, ref.transmat_, atol=1e-10)
    np.testing.assert_allclose(ours.emissionprob_, ref.emissionprob_, atol=1e-10)
    # hmmlearn's history: the log-likelihood before each M-step
    np.testing.assert_allclose(
        np.array(ours.lower_bounds_[:-1]) * n, ref.monitor_.history, rtol=1e-12
    )
    assert ours.score(df) * n == pytest.approx(
        ref.score(X.reshape(-1, 1), lengths=[T] * n), rel=1e-12
    )


def test_sequence_likelihoods_equal_brute_force_over_latent_paths(sequences):
    df, _ = sequences
    short = df.iloc[:40, :4]
    hmm = tl.HiddenMarkovModel(n_states=2, random_state=0, max_iter=5).fit(short)
    pi, A, B = hmm.startprob_, hmm.transmat_, hmm.emissionprob_
    X = short.to_numpy()
    # every latent path: the HMM as a chain of latents, its tables repeated
    _, joint = latent_tree_joint([-1, 0, 1, 2], [pi, A, A, A], [B] * 4, X)
    want = joint.sum(axis=1)
    np.testing.assert_allclose(hmm.score_samples(short), np.log(want), rtol=1e-12)
    assert hmm.n_parameters == 1 + 2 + 2 * 3


def test_untied_hmm_is_the_chain_hidden_tree(sequences):
    df, _ = sequences
    untied = tl.HiddenMarkovModel(n_states=2, tied=False, random_state=0, max_iter=6).fit(df)
    chain = tl.HiddenTree(  # alpha=1: the HMM's pseudocount (HiddenTree's default is 0.01)
        n_states=2, alpha=1.0, structure="chain", init="random", random_state=0, max_iter=6
    ).fit(df)
    np.testing.assert_allclose(untied.score_samples(df), chain.score_samples(df), rtol=1e-12)
    assert untied.transmat_.shape == (5, 2, 2) and len(untied.emissionprob_) == 6
    back = tl.HiddenMarkovModel.from_dict(untied.to_dict())
    np.testing.assert_array_equal(back.transmat_, untied.transmat_)


def test_tied_steps_share_every_state_and_partial_starts_are_refused(sequences):
    df, (s0, A0, _) = sequences
    short = pd.DataFrame({"t0": ["a", "b", "a", "b"], "t1": ["b", "c", "c", "c"]})
    hmm = tl.HiddenMarkovModel(n_states=2, random_state=0, max_iter=3).fit(short)
    assert hmm.model_.states["t0"] == hmm.model_.states["t1"] == ["a", "b", "c"]
    with pytest.raises(tl.TreelearnError, match="go together"):
        tl.HiddenMarkovModel(n_states=3, startprob_init=s0, transmat_init=A0).fit(df)
    with pytest.raises(tl.TreelearnError, match="shape"):
        tl.HiddenMarkovModel(
            n_states=3, startprob_init=s0, transmat_init=A0, emissionprob_init=np.ones((3, 2)) / 2
        ).fit(df)
