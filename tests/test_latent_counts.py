"""The hidden tree's E-step on complete rows as batched products per edge
(learners/_latent_counts.py): equal to the engine's expected counts on the joint tree and
to brute force over every latent configuration (tests/oracles.latent_tree_joint)."""

from __future__ import annotations

import numpy as np
import pytest
from oracles import latent_tree_joint

from treelearn.learners import _hidden_tree as hidden
from treelearn.learners._latent_counts import latent_tree_counts


def random_tree(parent, h, ks, seed, zeros=False):
    rng = np.random.default_rng(seed)
    latent = []
    for p in parent:
        t = rng.dirichlet(np.ones(h)) if p < 0 else rng.dirichlet(np.ones(h), size=h)
        latent.append(t)
    emission = [rng.dirichlet(np.ones(k), size=h) for k in ks]
    if zeros:  # structural zeros: some rows impossible, some messages 0
        latent[1] = latent[1].copy()
        latent[1][0] = 0.0
        latent[1][0, 0] = 1.0
        emission[2] = emission[2].copy()
        emission[2][:, 0] = 0.0  # x_2 = 0 impossible under every latent state
        emission[2] /= emission[2].sum(axis=1, keepdims=True)
    return hidden.LatentTree(np.array(parent), latent, emission)


def brute_force(tree, codes, w):
    """Expected counts by summing P(h, x) over every latent configuration."""
    configs, joint = latent_tree_joint(tree.parent, tree.latent, tree.emission, codes)
    z = joint.sum(axis=1)
    post = np.divide(joint, z[:, None], out=np.zeros_like(joint), where=z[:, None] > 0)
    post *= w[:, None]
    lat = [np.zeros_like(t) for t in tree.latent]
    emi = [np.zeros_like(t) for t in tree.emission]
    for c, conf in enumerate(configs):
        for i, p in enumerate(tree.parent):
            if p < 0:
                lat[i][conf[i]] += post[:, c].sum()
            else:
                lat[i][conf[p], conf[i]] += post[:, c].sum()
            seen = codes[:, i] >= 0
            np.add.at(emi[i][conf[i]], codes[seen, i], post[seen, c])
            # a missing cell: its expected count P(h_i, x_i | row) over every x_i
            emi[i][conf[i]] += post[~seen, c].sum() * tree.emission[i][conf[i]]
    with np.errstate(divide="ignore"):
        return np.log(z), lat, emi


@pytest.mark.parametrize(
    "parent, zeros",
    [
        ([-1, 0, 0, 1], False),  # a tree
        ([-1, 0, 1, 2], False),  # a chain (an HMM's)
        ([-1, 0, -1, 2], False),  # a forest of two trees
        ([-1, 0, 1, 1], True),  # structural zeros
    ],
)
def test_batched_counts_equal_the_engine_and_brute_force(parent, zeros):
    h, ks = 3, [2, 3, 2, 4]
    tree = random_tree(parent, h, ks, seed=len(parent) + zeros, zeros=zeros)
    rng = np.random.default_rng(1)
    codes = np.column_stack([rng.integers(0, k, size=60) for k in ks])
    w = rng.integers(0, 4, size=60).astype(float)  # zero weights included
    log_ev, lat, emi = latent_tree_counts(tree.parent, tree.latent, tree.emission, codes, w)
    want_ev, want_lat, want_emi = brute_force(tree, codes, w)
    np.testing.assert_allclose(log_ev, want_ev, rtol=1e-12, atol=0)
    for a, b in zip(lat + emi, want_lat + want_emi):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)
    # the engine's family counts on the joint tree of latents and columns
    engine_ev, counts = tree.engine().family_counts_codes(hidden._joint_codes(codes), w)
    np.testing.assert_allclose(log_ev, engine_ev, rtol=1e-12, atol=0)
    for a, b in zip(lat + emi, counts):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)
    if zeros:
        assert np.isneginf(log_ev).any()  # impossible rows count for nothing


def test_e_step_takes_the_batched_path_only_for_complete_rows():
    tree = random_tree([-1, 0, 0], 2, [2, 2, 3], seed=5)
    rng = np.random.default_rng(2)
    codes = np.column_stack([rng.integers(0, k, size=40) for k in [2, 2, 3]])
    w = np.ones(40)
    full = hidden._EStep(tree)(codes, w)
    codes_missing = codes.copy()
    codes_missing[::4, 1] = -1  # the engine path sums them out
    holes = hidden._EStep(tree)(codes_missing, w)
    want_ev, want_lat, want_emi = brute_force(tree, codes_missing, w)
    assert holes.log_likelihood == pytest.approx(want_ev.sum(), rel=1e-12)
    for a, b in zip(holes.latent + holes.emission, want_lat + want_emi):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)
    want_ev, want_lat, want_emi = brute_force(tree, codes, w)
    assert full.log_likelihood == pytest.approx(want_ev.sum(), rel=1e-12)
    for a, b in zip(full.latent + full.emission, want_lat + want_emi):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)


def test_chunks_add_up(monkeypatch):
    import treelearn.learners._latent_counts as module

    tree = random_tree([-1, 0, 1], 2, [2, 2, 2], seed=7)
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 2, size=(100, 3))
    w = rng.random(100)
    whole = latent_tree_counts(tree.parent, tree.latent, tree.emission, codes, w)
    monkeypatch.setattr(module, "MESSAGE_CELLS", 7 * 3 * 3 * 2)  # chunks of 7 rows
    chunked = latent_tree_counts(tree.parent, tree.latent, tree.emission, codes, w)
    np.testing.assert_array_equal(whole[0], chunked[0])
    for a, b in zip(whole[1] + whole[2], chunked[1] + chunked[2]):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=0)
