"""Every saved kind (tests/_saved_kinds.py: each model kind and each persistent estimator)
round-trips through ``tl.save``/``tl.load`` and through pickle with exactly the same
answers, and an estimator's ``model_`` saves and loads on its own."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from _saved_kinds import saved_kinds

import treelearn as tl
from treelearn.learners._density import DensityEstimator
from treelearn.models._base import MODEL_KINDS, Model

_KINDS = saved_kinds()


#: the kinds whose answers come back as the same doubles (the others: to 1e-13, as a
#: classifier rebuilt from its saved tables may add its terms in another order: AODE)
EXACT = {
    "TreeModel",
    "TreeMixture",
    "BaggedTrees",
    "HiddenTree",
    "HiddenMarkovModel-tied",
    "HiddenMarkovModel-untied",
    "CutsetNetwork",
    "CutsetModel",
    "MixtureModel",
    "MixtureModel-cutset",
    "HiddenTreeModel",
    "HiddenTreeModel-tied",
}


def _same(a: list, b: list, exact: bool) -> None:
    for x, y in zip(a, b, strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape and x.dtype.kind == y.dtype.kind
        if x.dtype.kind in "fc" and exact:
            np.testing.assert_array_equal(x, y)  # the same doubles, NaN where NaN
        elif x.dtype.kind in "fc":
            np.testing.assert_allclose(x, y, rtol=1e-13, atol=1e-15)
        else:
            assert np.array_equal(x, y)


@pytest.mark.parametrize("kind", _KINDS, ids=[k.name for k in _KINDS])
def test_every_kind_round_trips_through_files_and_pickle(kind, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = kind.answers(kind.obj)
        path = tmp_path / "m.json"
        tl.save(kind.obj, path)
        for back in (tl.load(path), pickle.loads(pickle.dumps(kind.obj))):
            assert type(back) is type(kind.obj)
            _same(kind.answers(back), expected, kind.name in EXACT)
        if kind.name in EXACT:  # saved again, the file is the same
            tl.save(tl.load(path), tmp_path / "again.json")
            assert (tmp_path / "again.json").read_text() == path.read_text()


_FITTED = [k for k in _KINDS if isinstance(k.obj, DensityEstimator)]


@pytest.mark.parametrize("kind", _FITTED, ids=[k.name for k in _FITTED])
def test_an_estimators_model_saves_alone_and_answers_as_the_estimator(kind, tmp_path):
    model = kind.obj.model_
    assert isinstance(model, Model) and MODEL_KINDS[model.kind] is type(model)
    tl.save(model, tmp_path / "model.json")
    back = tl.load(tmp_path / "model.json")
    assert type(back) is type(model) and back.kind == model.kind
    rows = kind.obj.sample(40, random_state=0)
    np.testing.assert_array_equal(back.score_samples(rows), kind.obj.score_samples(rows))
    assert back.n_parameters == kind.obj.n_parameters
    assert back.to_text().splitlines()[0] == model.to_text().splitlines()[0]


def test_the_new_kinds_are_in_the_samples():
    names = {k.name for k in _KINDS}
    assert {
        "MixtureModel",
        "MixtureModel-cutset",
        "HiddenTreeModel",
        "HiddenTreeModel-tied",
    } <= names
    assert {"mixture", "hidden_tree"} <= set(MODEL_KINDS)
