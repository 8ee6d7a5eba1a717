"""EM for the CPTs of any DAG (multi-parent families, latent variables) against brute force
over every completion of every row, and against pgmpy's ExpectationMaximization."""

from __future__ import annotations

import warnings
from functools import partial

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from oracles import em_step

import treelearn as tl
from treelearn.learners._chow_liu import build_model
from treelearn.learners._em import fit_cpts_em, random_start
from treelearn.sources._count import count
from treelearn.stats._settings import LearningSettings

#: a DAG with a latent class h, a family of three parents (d) and one of two (c)
EDGES = [("h", "a"), ("h", "b"), ("h", "c"), ("e", "c"), ("h", "d"), ("a", "d"), ("b", "d")]
CARDS = {"h": 2, "a": 2, "b": 3, "c": 2, "d": 2, "e": 2}


def truth_frame(n: int, seed: int) -> pd.DataFrame:
    """Rows drawn from a random model on EDGES whose classes differ (h then dropped)."""
    rng = np.random.default_rng(seed)
    order = ["h", "e", "a", "b", "c", "d"]
    parents = {v: [p for p, c in EDGES if c == v] for v in order}
    values: dict = {}
    for v in order:
        shape = [CARDS[p] for p in parents[v]] + [CARDS[v]]
        cpt = rng.dirichlet(np.full(CARDS[v], 0.4), size=int(np.prod(shape[:-1]))).reshape(shape)
        p = cpt[tuple(values[u] for u in parents[v])] if parents[v] else np.tile(cpt, (n, 1))
        values[v] = (p.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1)
    df = pd.DataFrame({v: values[v] for v in ["h", "a", "b", "c", "d", "e"]})
    df["h"] = pd.Categorical([None] * n, categories=[0, 1])  # never observed
    return df


def test_multi_parent_em_follows_brute_force_step_by_step():
    df = truth_frame(80, seed=1).drop(columns="h")
    rng = np.random.default_rng(2)
    data = df.mask(rng.random(df.shape) < 0.3)
    structure = nx.DiGraph([(p, c) for p, c in EDGES if "h" not in (p, c)] + [("a", "c")])
    alpha = 0.5
    stats = count(data, missing="pairwise", in_memory=True)
    build = partial(build_model, settings=LearningSettings(alpha=alpha))
    start = tl.fit_cpts(structure, data, alpha=alpha, missing="pairwise")
    assert max(len(start.parents(v)) for v in start.variables) == 2  # no forest
    codes = start.encode(data).codes.astype(np.int64)
    brute, history = start, []
    for steps in (1, 3):
        while len(history) < steps:
            brute, ll = em_step(brute, codes, alpha)
            history.append(ll)
        em = fit_cpts_em(structure, stats, build, max_iter=steps, tol=0.0)
        assert em.settings["em_iterations"] == steps
        np.testing.assert_allclose(em.settings["em_log_likelihood"][:steps], history, rtol=1e-12)
        for v in start.variables:
            np.testing.assert_allclose(em.cpt(v), brute.cpt(v), atol=1e-12)
    # the public entry point, maximum likelihood, to its fixpoint: LL never decreases (more
    # rows, so that the available-case start gives no observed row probability 0)
    more = truth_frame(500, seed=1).drop(columns="h")
    more = more.mask(np.random.default_rng(3).random(more.shape) < 0.3)
    final = tl.fit_cpts(structure, more, alpha=0, missing="em")
    lls = final.settings["em_log_likelihood"]
    assert np.isfinite(lls).all() and (np.diff(lls) >= -1e-9).all() and len(lls) > 3
    assert lls[-1] == pytest.approx(final.log_likelihood(more), rel=1e-10)
    _, ll_brute = em_step(final, final.encode(more).codes.astype(np.int64), 0.0)
    assert lls[-1] == pytest.approx(ll_brute, rel=1e-12)


def _cpt_from_pgmpy(cpd, parents: list) -> np.ndarray:
    """A pgmpy TabularCPD's values as an array indexed [parents in ``parents`` order..., v]."""
    evidence = list(cpd.variables[1:])
    values = cpd.get_values().reshape([cpd.variable_card, *cpd.cardinality[1:]])
    values = np.moveaxis(values, 0, -1)  # [evidence..., v]
    return values.transpose([evidence.index(p) for p in parents] + [len(evidence)])


def test_latent_variable_em_equals_pgmpy_from_the_same_start():
    pgmpy_em = pytest.importorskip("pgmpy.estimators").ExpectationMaximization
    from pgmpy.models import DiscreteBayesianNetwork

    data = truth_frame(150, seed=4)
    structure = nx.DiGraph(EDGES)
    stats = count(data, missing="pairwise", in_memory=True)
    build = partial(build_model, settings=LearningSettings(alpha=0))
    start = random_start(structure, stats, build, np.random.default_rng(7))
    assert not np.allclose(start.cpt("a")[0], start.cpt("a")[1])  # the symmetry is broken
    init = {cpd.variable: cpd for cpd in start.to_pgmpy().get_cpds()}
    network = DiscreteBayesianNetwork(EDGES, latents={"h"})
    for steps in (2, 8):
        ours = fit_cpts_em(structure, stats, build, start=start, max_iter=steps, tol=0.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = pgmpy_em(network, data.drop(columns="h")).get_parameters(
                latent_card={"h": 2},
                init_cpds=dict(init),
                max_iter=steps,
                atol=0.0,
                show_progress=False,
            )
        theirs = {cpd.variable: cpd for cpd in theirs}
        for v in ours.variables:
            np.testing.assert_allclose(
                ours.cpt(v), _cpt_from_pgmpy(theirs[v], ours.parents(v)), atol=1e-10, err_msg=v
            )


def test_a_never_observed_class_escapes_the_symmetric_fixpoint():
    data = truth_frame(600, seed=9)
    observed = data.drop(columns="h")
    structure = nx.DiGraph(EDGES)
    model = tl.fit_cpts(structure, data, alpha=0, missing="em", n_init=3, random_state=0)
    lls = model.settings["em_log_likelihood"]
    assert (np.diff(lls) >= -1e-9).all()
    codes = model.encode(data).codes.astype(np.int64)
    _, ll_brute = em_step(model, codes, 0.0)  # log sum over h of the joint, every row
    assert lls[-1] == pytest.approx(ll_brute, rel=1e-12)
    # the symmetric fixpoint: h independent of everything, i.e. the observed families' own
    # maximum-likelihood fit; from the available-case start EM would stay there
    no_h = nx.DiGraph([(p, c) for p, c in EDGES if "h" not in (p, c)])
    no_h.add_nodes_from(observed.columns)
    symmetric = tl.fit_cpts(no_h, observed, alpha=0).log_likelihood(observed)
    assert ll_brute > symmetric + 20  # a real latent class is found (the data has one)
    assert np.abs(model.cpt("a")[0] - model.cpt("a")[1]).max() > 0.1
    # restarts: the returned fit is the best of the three runs from the seed's three starts
    stats = count(data, missing="pairwise", in_memory=True)
    build = partial(build_model, settings=LearningSettings(alpha=0, method="fit_cpts"))
    rng = np.random.default_rng(0)
    starts = [random_start(structure, stats, build, rng) for _ in range(3)]
    runs = [
        fit_cpts_em(structure, stats, build, start=s).settings["em_log_likelihood"][-1]
        for s in starts
    ]
    assert lls[-1] == pytest.approx(max(runs), rel=1e-12)
    again = tl.fit_cpts(structure, data, alpha=0, missing="em", n_init=3, random_state=0)
    assert again == model  # the same seed, the same numbers


def test_em_options_are_checked():
    data = truth_frame(20, seed=0)
    with pytest.raises(tl.TreelearnError, match="n_init"):
        tl.fit_cpts(nx.DiGraph(EDGES), data, missing="em", n_init=0)
    with pytest.raises(tl.TreelearnError, match="random_state"):
        tl.fit_cpts(nx.DiGraph(EDGES), data, missing="em", random_state="x")
