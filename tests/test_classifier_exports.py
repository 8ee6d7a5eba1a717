"""A fitted classifier through the public export functions: ``tl.to_pgmpy(clf)``,
``tl.to_pyagrum(clf)``, ``tl.write_bif/write_xmlbif/write_uai(clf, path)``.

Their docstrings and their refusal ("takes a discrete network (..., or a fitted
classifier)") said a fitted classifier is taken, yet every one refused a fitted TAN,
KDB or naive Bayes (only ``clf.to_pgmpy()`` / ``clf.to_bif()`` methods worked, and a
classifier had no ``to_pyagrum`` at all). Now each takes it, and what answers no such
export (an AODE, a mixture, a Gaussian tree's BIF) is refused with its own
``CapabilityError`` naming what it answers.

Real table: ``datasets/real/mifem.csv`` (1,295 heart-attack patients, the outcome
live/dead the class, eight y/n/nk history columns). The numbers are independent of
treelearn's inference: pgmpy's ``VariableElimination`` and pyAgrum's ``LazyPropagation``
on the exported networks, and for the files read back the posterior from the product of
one CPT entry per variable (``oracles.joint_probability``) normalised over the classes.
"""

from __future__ import annotations

import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest
from oracles import joint_probability

import treelearn as tl

#: posteriors of the same CPTs by another library's inference or a product of entries:
#: round-off only
TOL = 1e-12

MIFEM = pd.read_csv(pathlib.Path(__file__).parents[1] / "datasets" / "real" / "mifem.csv")
FEATURES = ["premi", "smstat", "diabetes", "highbp", "hichol", "angina", "stroke"]
X, Y = MIFEM[FEATURES], MIFEM["outcome"]
ROWS = X.drop_duplicates().head(25)

CLASSIFIERS = {
    "TAN": lambda: tl.TAN(),
    "KDB k=2": lambda: tl.KDB(k=2),
    "naive Bayes": lambda: tl.NaiveBayes(),
    "naive Bayes all arcs": lambda: tl.NaiveBayes(class_arcs="all"),
}
FITTED = {name: make().fit(X, Y) for name, make in CLASSIFIERS.items()}


def _posterior_from_cpts(model, rows: pd.DataFrame, classes) -> np.ndarray:
    """P(class | row) from the network's CPT entries: the joint of each completed row."""
    out = np.empty((len(rows), len(classes)))
    for r, (_, row) in enumerate(rows.iterrows()):
        joint = [joint_probability(model, {**row.to_dict(), "outcome": c}) for c in classes]
        out[r] = np.asarray(joint) / sum(joint)
    return out


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_to_pgmpy_of_a_classifier_answers_its_posterior(name):
    from pgmpy.inference import VariableElimination

    clf = FITTED[name]
    bn = tl.to_pgmpy(clf)
    assert bn.check_model()
    ve = VariableElimination(bn)
    expected = []
    for _, row in ROWS.iterrows():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            q = ve.query(["outcome"], evidence=row.to_dict(), show_progress=False)
        expected.append([q.values[q.state_names["outcome"].index(c)] for c in clf.classes_])
    np.testing.assert_allclose(clf.predict_proba(ROWS), expected, rtol=0, atol=TOL)


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_to_pyagrum_of_a_classifier_answers_its_posterior(name):
    gum = pytest.importorskip("pyagrum")
    clf = FITTED[name]
    assert "pyagrum" in clf.capabilities
    for bn in (tl.to_pyagrum(clf), clf.to_pyagrum()):
        ie = gum.LazyPropagation(bn)
        expected = []
        for _, row in ROWS.iterrows():
            ie.eraseAllEvidence()
            ie.setEvidence({k: str(v) for k, v in row.items()})
            ie.makeInference()
            posterior = ie.posterior("outcome")
            labels = [bn.variable("outcome").label(i) for i in range(2)]
            expected.append([posterior.toarray()[labels.index(str(c))] for c in clf.classes_])
        np.testing.assert_allclose(clf.predict_proba(ROWS), expected, rtol=0, atol=TOL)
        assert tl.from_pyagrum(bn) == clf.model_


@pytest.mark.parametrize("name", list(CLASSIFIERS))
@pytest.mark.parametrize("fmt", ["bif", "xmlbif", "uai"])
def test_files_written_from_a_classifier_read_back_the_same_posterior(name, fmt, tmp_path):
    clf = FITTED[name]
    path = tmp_path / f"net.{fmt}"
    net = clf.model_
    if fmt == "bif":
        tl.write_bif(clf, path)
        back = tl.read_bif(path)
    elif fmt == "xmlbif":
        tl.write_xmlbif(clf, path, name="mifem")
        assert "<NAME>mifem</NAME>" in path.read_text()
        back = tl.read_xmlbif(path)
    else:
        tl.write_uai(clf, path)
        back = tl.read_uai(path, names=net.variables, states=net.states)
    assert back == net
    expected = _posterior_from_cpts(back, ROWS, list(clf.classes_))
    np.testing.assert_allclose(clf.predict_proba(ROWS), expected, rtol=0, atol=TOL)
    proba = back.predict_proba(ROWS, target="outcome")
    np.testing.assert_allclose(np.asarray(proba), expected, rtol=0, atol=TOL)


def test_the_chosen_classifier_exports_through_the_functions(tmp_path):
    pytest.importorskip("pyagrum")
    auto = tl.AutoClassifier(candidates=["NaiveBayes", "TAN"], random_state=0).fit(X, Y)
    assert tl.from_pyagrum(tl.to_pyagrum(auto)) == auto.estimator_.model_
    tl.write_bif(auto, tmp_path / "auto.bif")
    assert tl.read_bif(tmp_path / "auto.bif") == auto.estimator_.model_


EXPORTS = {
    "to_pgmpy": (lambda m, p: tl.to_pgmpy(m), "to_pgmpy"),
    "to_pyagrum": (lambda m, p: tl.to_pyagrum(m), "pyagrum"),
    "write_bif": (tl.write_bif, "bif"),
    "write_xmlbif": (tl.write_xmlbif, "bif"),
    "write_uai": (tl.write_uai, "bif"),
}


@pytest.mark.parametrize("export", list(EXPORTS))
def test_what_has_no_such_network_is_refused_naming_what_it_answers(export, tmp_path):
    write, capability = EXPORTS[export]
    table = MIFEM[[*FEATURES, "outcome"]]
    refused = {
        "AODE": tl.AODE().fit(X, Y),
        "mixture": tl.TreeMixture(n_components=2, random_state=0, max_iter=3).fit(table).model_,
    }
    for what, obj in refused.items():
        with pytest.raises(tl.CapabilityError) as err:
            write(obj, tmp_path / "out")
        assert err.value.capability == capability, what
        assert "it answers" in str(err.value) and "score" in err.value.supported
    with pytest.raises(tl.InputTypeError, match=f"{export} takes a discrete network"):
        write(5, tmp_path / "out")
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_gaussian_tree_goes_to_pgmpy_through_the_function_but_not_to_bif(tmp_path):
    rng = np.random.default_rng(0)
    numbers = pd.DataFrame(rng.normal(size=(100, 3)), columns=["u", "v", "w"])
    model = tl.gaussian_chow_liu(numbers)
    net = tl.to_pgmpy(model)  # its own LinearGaussianBayesianNetwork, as model.to_pgmpy()
    assert set(net.nodes()) == {"u", "v", "w"}
    assert sorted(net.edges()) == sorted(model.graph.edges())
    with pytest.raises(tl.CapabilityError, match="does not answer bif"):
        tl.write_bif(model, tmp_path / "g.bif")


def test_an_unfitted_classifier_says_fit_first():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        tl.to_pgmpy(tl.TAN())
