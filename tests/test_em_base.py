"""The one EM base (learners/_density.py) and the learners on it: the loop's stopping rules
on a sequence known in advance, each learner's EM step against a brute-force EM step (every
latent configuration enumerated), the training bound against the full joint, and the
options, validation rows and scores every learner shares."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from oracles import joint_probability, latent_tree_joint, marginal_probability, mixture_em_step

import treelearn as tl
from treelearn.learners._density import EMSchedule, best_run, em_run, run_starts


# ---------------------------------------------------------------------- the loop
def _scripted(bounds: list, valid: list | None = None):
    """An EM whose model ``i`` has the training bound ``bounds[i]`` (and validation score
    ``valid[i]``): models are their indices, the M-step adds one."""
    calls = []

    def e_step(i):
        calls.append(("e", i))
        return bounds[i], i

    def m_step(statistics, i):
        calls.append(("m", i))
        return i + 1

    return e_step, m_step, (None if valid is None else valid.__getitem__), calls


def test_the_loop_stops_at_tol_at_max_iter_and_at_a_non_finite_bound():
    e, m, _, calls = _scripted([-3.0, -2.0, -1.5, -1.45, -1.449, -1.4489])
    run = em_run(0, e, m, EMSchedule(max_iter=10, tol=0.01), n_steps=6)
    # |-1.449 - -1.45| = 0.001 < tol after the fifth model: converged there, no M-step after
    assert (run.model, run.bounds, run.converged) == (4, [-3.0, -2.0, -1.5, -1.45, -1.449], True)
    assert calls[-1] == ("e", 4)
    e, m, _, calls = _scripted([-3.0, -2.0, -1.0, 0.0])
    run = em_run(0, e, m, EMSchedule(max_iter=3, tol=0.0), n_steps=3)
    assert (run.model, len(run.bounds), run.converged) == (2, 3, False)
    assert [c for c in calls if c[0] == "m"] == [("m", 0), ("m", 1)]  # none after the last
    e, m, _, _ = _scripted([-3.0, -np.inf, -1.0])
    run = em_run(0, e, m, EMSchedule(max_iter=3, tol=0.0), n_steps=3)
    assert run.model == 1 and run.bounds == [-3.0, -np.inf]


def test_the_loop_keeps_the_best_model_on_validation_rows():
    e, m, valid, _ = _scripted(
        [-5.0, -4.0, -3.0, -2.0, -1.0, -0.5], [-6.0, -5.0, -4.5, -4.7, -4.6, -4.0]
    )
    run = em_run(0, e, m, EMSchedule(10, 0.0, n_iter_no_change=2), n_steps=6, valid_score=valid)
    # the third model is best on the validation rows; two without a better one stop the run
    assert run.model == 2 and run.bounds == [-5.0, -4.0, -3.0]
    assert run.valid_scores == [-6.0, -5.0, -4.5] and run.valid == -4.5
    assert run.lower_bound == -3.0


def test_the_last_model_is_scored_without_statistics_when_no_m_step_follows():
    e, m, _, calls = _scripted([-3.0, -2.0, -1.0])
    run = em_run(0, e, m, EMSchedule(2, 0.0), n_steps=3, score_only=lambda i: -0.5 - i)
    assert run.bounds == [-3.0, -2.0, -2.5] and run.model == 2
    assert ("e", 2) not in calls
    # with validation rows the last model is scored in full (its validation score too)
    e, m, valid, calls = _scripted([-3.0, -2.0, -1.0], [-3.0, -2.0, -1.0])
    run = em_run(
        0, e, m, EMSchedule(2, 0.0), n_steps=3, valid_score=valid, score_only=lambda i: 0.0
    )
    assert run.bounds == [-3.0, -2.0, -1.0] and ("e", 2) in calls


def test_starts_run_in_order_and_the_best_is_kept():
    runs = run_starts(
        lambda s: em_run(
            s, lambda x: (-abs(x), x), lambda st, x: x / 2, EMSchedule(3, 0.0), n_steps=3
        ),
        [8.0, -2.0, 4.0],
        None,
    )
    assert [r.model for r in runs] == [2.0, -0.5, 1.0]
    assert best_run(runs).model == -0.5  # the best bound
    assert best_run(runs[:1] + runs[:1]) is runs[0]  # the first of equals


# ---------------------------------------------------------------------- each learner's step
@pytest.fixture(scope="module")
def four():
    """600 rows of four small variables (one with three states), no missing cell."""
    rng = np.random.default_rng(5)
    n = 600
    a = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    b = np.where(rng.random(n) < 0.8, a % 2, 1 - a % 2)
    c = np.where(rng.random(n) < 0.7, b, rng.integers(0, 2, n))
    d = np.where(rng.random(n) < 0.75, (a == 2).astype(int), rng.integers(0, 2, n))
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d})


@pytest.mark.parametrize("streamed", [False, True])
def test_a_tree_mixture_iteration_is_the_brute_force_em_step(four, streamed, tmp_path):
    """In memory and in passes over a file: the same EM step, every component's tree the
    best of all 16 spanning trees of its expected counts (maximum likelihood)."""
    four.to_csv(tmp_path / "four.csv", index=False)
    data = tmp_path / "four.csv" if streamed else four
    opts = dict(n_components=3, alpha=0.0, tol=0.0, random_state=2)
    if streamed:
        opts["chunksize"] = 150
    before = tl.TreeMixture(max_iter=4, **opts).fit(data)
    after = tl.TreeMixture(max_iter=5, **opts).fit(data)  # the same run, one step further
    joints, weights = mixture_em_step(before.weights_, before.components_, four)
    np.testing.assert_allclose(after.weights_, weights, rtol=1e-9)
    variables = list(four.columns)
    for j, c in enumerate(after.components_):
        learned = [
            joint_probability(c, dict(zip(variables, s)))
            for s in itertools.product(*(c.states[v] for v in variables))
        ]
        np.testing.assert_allclose(learned, joints[j], rtol=1e-8, atol=1e-12)
    assert (np.diff(after.lower_bounds_) >= -1e-12).all()  # EM never lowers the bound


def test_the_bound_is_the_full_joint_log_likelihood_of_the_training_rows(four):
    w = np.random.default_rng(0).integers(1, 4, len(four)).astype(float)
    mix = tl.TreeMixture(n_components=2, random_state=0, max_iter=6).fit(four, sample_weight=w)
    records = four.to_dict("records")
    rows = [
        math.log(sum(wk * joint_probability(c, r) for wk, c in zip(mix.weights_, mix.components_)))
        for r in records
    ]
    assert mix.lower_bound_ == pytest.approx(float(np.dot(w, rows) / w.sum()), rel=1e-12)
    hidden = tl.HiddenTree(n_states=2, random_state=0, max_iter=6).fit(four[["a", "b", "c"]])
    net, latent = hidden.model_.network, hidden.model_.latent
    assert len(latent) == 3  # summed out by marginal_probability: absent from the rows
    total = 0.0
    for r in four[["a", "b", "c"]].to_dict("records"):
        total += math.log(marginal_probability(net, r))
    assert hidden.lower_bound_ == pytest.approx(total / len(four), rel=1e-12)


def test_one_baum_welch_step_is_the_brute_force_step_over_every_latent_path():
    """A tied HMM from a given start, one EM step (alpha = 0): the start, transition and
    emission tables are the expected counts over every latent path of every sequence,
    normalised (what hmmlearn's fixpoint test checks over 25 steps, without hmmlearn)."""
    rng = np.random.default_rng(1)
    T, n, h, k = 4, 60, 2, 3
    X = rng.integers(0, k, size=(n, T))
    s0, A0, B0 = (
        rng.dirichlet(np.ones(h)),
        rng.dirichlet(np.ones(h), h),
        rng.dirichlet(np.ones(k), h),
    )
    df = pd.DataFrame(X, columns=[f"t{i}" for i in range(T)])
    hmm = tl.HiddenMarkovModel(
        n_states=h,
        alpha=0,
        max_iter=1,
        tol=0,
        startprob_init=s0,
        transmat_init=A0,
        emissionprob_init=B0,
    ).fit(df)
    start, trans, emit = np.zeros(h), np.zeros((h, h)), np.zeros((h, k))
    log_evidence = 0.0
    # P(path, x) of every latent path of every sequence: the HMM as a chain of latents
    paths, joint = latent_tree_joint([-1, *range(T - 1)], [s0, *[A0] * (T - 1)], [B0] * T, X)
    for x, p in zip(X, joint):
        log_evidence += math.log(p.sum())
        p /= p.sum()
        for z, q in zip(paths, p):
            start[z[0]] += q
            for t in range(T):
                emit[z[t], x[t]] += q
                if t:
                    trans[z[t - 1], z[t]] += q
    assert hmm.lower_bounds_[0] == pytest.approx(log_evidence / n, rel=1e-12)
    np.testing.assert_allclose(hmm.startprob_, start / start.sum(), rtol=1e-10)
    np.testing.assert_allclose(hmm.transmat_, trans / trans.sum(axis=1, keepdims=True), rtol=1e-10)
    np.testing.assert_allclose(
        hmm.emissionprob_, emit / emit.sum(axis=1, keepdims=True), rtol=1e-10
    )
    assert hmm.n_iter_ == 1 and len(hmm.lower_bounds_) == 2
    assert hmm.lower_bounds_[1] == pytest.approx(hmm.score(df), rel=1e-12)


# ---------------------------------------------------------------------- what every learner shares
LEARNERS = {
    "TreeMixture": lambda **kw: tl.TreeMixture(**{"random_state": 0, "max_iter": 5, **kw}),
    "BaggedTrees": lambda **kw: tl.BaggedTrees(
        **{"n_estimators": 2, "random_state": 0, "max_iter": 5, **kw}
    ),
    "HiddenTree": lambda **kw: tl.HiddenTree(
        **{"n_states": 2, "random_state": 0, "max_iter": 5, **kw}
    ),
    "HiddenMarkovModel": lambda **kw: tl.HiddenMarkovModel(
        **{"n_states": 2, "random_state": 0, "max_iter": 5, **kw}
    ),
    "CutsetNetwork": lambda **kw: tl.CutsetNetwork(**{"max_depth": 2, "min_rows": 50, **kw}),
}


@pytest.mark.parametrize("name", LEARNERS)
@pytest.mark.parametrize(
    "option, value, words",
    [
        ("max_states", 0, "max_states == 0, must be an integer >= 1"),
        ("random_state", "x", "random_state == 'x'"),
        ("n_jobs", -2, "n_jobs == -2"),
        ("alpha", -1.0, "alpha == -1.0, must be a finite number >= 0"),
        ("states", ["a"], "states == ['a'], must be"),
    ],
)
def test_a_shared_option_is_worded_alike_by_every_learner(four, name, option, value, words):
    with pytest.raises(
        tl.TreelearnError, match="^" + words.replace("(", r"\(").replace("[", r"\[")
    ):
        LEARNERS[name](**{option: value}).fit(four)


@pytest.mark.parametrize("name", LEARNERS)
def test_validation_rows_and_scores_are_alike_in_every_learner(four, name):
    train, valid = four.iloc[:450], four.iloc[450:]
    with pytest.raises(tl.ColumnNotFoundError, match=r"validation= lacks the columns \['d'\]"):
        LEARNERS[name]().fit(train, validation=valid.drop(columns="d"))
    est = LEARNERS[name]().fit(train, validation=valid)
    model = est.model_
    w = np.random.default_rng(3).random(len(valid))
    rows = est.score_samples(valid)
    np.testing.assert_array_equal(rows, model.score_samples(valid))
    # the scores: weighted sums of the rows' log-likelihoods, by hand
    total, n = float(np.sum(w * rows)), float(w.sum())
    assert est.score(valid, sample_weight=w) == pytest.approx(total / n, rel=1e-12)
    assert est.bic(valid, sample_weight=w) == pytest.approx(
        total - 0.5 * est.n_parameters * math.log(n), rel=1e-12
    )
    assert est.aic(valid) == pytest.approx(float(rows.sum()) - model.n_parameters, rel=1e-12)
    # a sparse 0/1 matrix of validation rows reads as its dense table
    sp = pytest.importorskip("scipy.sparse")
    binary = (four[["b", "c", "d"]] > 0).astype(int)
    dense = LEARNERS[name]().fit(
        binary.set_axis([0, 1, 2], axis=1).iloc[:450],
        validation=binary.iloc[450:].set_axis([0, 1, 2], axis=1),
    )
    sparse = LEARNERS[name]().fit(
        sp.csr_matrix(binary.to_numpy()[:450]), validation=sp.csr_matrix(binary.to_numpy()[450:])
    )
    np.testing.assert_array_equal(
        dense.score_samples(binary.set_axis([0, 1, 2], axis=1)),
        sparse.score_samples(binary.set_axis([0, 1, 2], axis=1)),
    )
