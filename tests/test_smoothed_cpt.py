"""build_model checks the smoothing options once and estimates every CPT with
smoothed_cpt (the mixture M-step's fast path): the same CPTs as estimate_cpt of each
family's counts, counted independently here with np.bincount."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.learners._chow_liu import build_model
from treelearn.sources._count import count
from treelearn.stats._parameters import estimate_cpt, smoothed_cpt
from treelearn.stats._settings import LearningSettings


@pytest.mark.parametrize("prior", ["lidstone", "bdeu", "m-estimate"])
def test_build_model_cpts_equal_estimate_cpt_of_each_family(prior):
    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {"a": rng.integers(0, 3, 200), "b": rng.integers(0, 2, 200), "c": rng.integers(0, 4, 200)}
    )
    w = rng.uniform(0.1, 2.0, 200)
    structure = nx.DiGraph([("a", "b"), ("a", "c")])
    settings = LearningSettings(alpha=0.7, prior=prior, equivalent_sample_size=3.0, m=2.0)
    model = build_model(structure, count(df, sample_weight=w), settings)
    for v, parents in (("a", []), ("b", ["a"]), ("c", ["a"])):
        cols = parents + [v]
        shape = [len(model.states[c]) for c in cols]
        flat = np.ravel_multi_index(tuple(df[c].to_numpy() for c in cols), shape)
        counts = np.bincount(flat, weights=w, minlength=int(np.prod(shape))).reshape(shape)
        expected = estimate_cpt(counts, 0.7, prior, 3.0, 2.0)
        np.testing.assert_allclose(model.cpt(v), expected, rtol=0, atol=1e-12)
        assert np.array_equal(smoothed_cpt(counts, 0.7, prior, 3.0, 2.0), expected)


def test_a_bad_option_still_names_itself():
    with pytest.raises(tl.TreelearnError, match="alpha"):
        estimate_cpt(np.array([1, 2]), alpha=-1.0)
