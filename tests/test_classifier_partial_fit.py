"""partial_fit of the count-based classifiers: N chunk calls = one fit on all the rows,
every CPT to 1e-12 (counts add up); states and classes fixed by the first call."""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pandas as pd
import pytest

import treelearn as tl
from treelearn.learners._chow_liu import build_model
from treelearn.sources._count import count_by_class
from treelearn.stats._settings import LearningSettings


def chained(n: int, seed: int) -> tuple[pd.DataFrame, pd.Series]:
    """Features depending on the class and on each other (missing values in one)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    cols, prev = {}, rng.integers(0, 2, n)
    for j, k in enumerate((2, 3, 2, 4, 3)):
        keep = rng.random(n) < 0.6
        cols[f"f{j}"] = np.where(keep, (prev + y + j) % k, rng.integers(0, k, n))
        prev = cols[f"f{j}"]
    X = pd.DataFrame(cols).astype(float)
    X.loc[rng.random(n) < 0.05, "f3"] = np.nan
    return X, pd.Series(np.array(["a", "b", "c"])[y], name="C")


def states_of(X: pd.DataFrame) -> dict:
    return {c: sorted(X[c].dropna().unique().tolist()) for c in X.columns}


MODELS = {
    "nb": lambda: tl.NaiveBayes(numbers="states"),
    "tan": lambda: tl.TAN(numbers="states"),
    "tan-bic": lambda: tl.TAN(numbers="states", forest="bic", alpha=0.5),
    "kdb1": lambda: tl.KDB(numbers="states", k=1),
    "kdb2": lambda: tl.KDB(numbers="states", k=2, prior="bdeu"),
    "kdb3": lambda: tl.KDB(numbers="states", k=3),
    "aode": lambda: tl.AODE(numbers="states", min_count=30),
    "manb": lambda: tl.MANB(numbers="states"),
}


def cpts(clf) -> dict:
    """Every CPT (a network's, or AODE's log tables) of a fitted classifier."""
    if hasattr(clf, "model_"):
        return {v: clf.model_.cpt(v) for v in clf.model_.variables}
    if hasattr(clf, "arc_posterior_"):  # MANB: its averaged tables and arc posteriors
        return {
            "arcs": clf.arc_posterior_,
            **{f"table {j}": t for j, t in enumerate(clf.feature_log_prob_)},
        }
    return {
        "pair": clf.log_pair_,
        "cond": clf.log_cond_,
        "nb": clf.log_nb_,
        "value_count": clf.value_count_,
    }


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", list(MODELS))
def test_chunks_give_the_fit_on_all_rows(name, weighted):
    X, y = chained(900, seed=1)
    w = np.random.default_rng(2).random(len(X)) * 3 if weighted else None
    clf = MODELS[name]()
    # uneven chunks; one holds a single class, so the classes are declared
    bounds = [0, 40, 41, 300, 420, 900]
    for lo, hi in itertools.pairwise(bounds):
        clf.partial_fit(
            X.iloc[lo:hi],
            y.iloc[lo:hi],
            classes=["c", "a", "b"],
            sample_weight=None if w is None else w[lo:hi],
            states=states_of(X) if lo == 0 else None,
        )
    ref = MODELS[name]().fit(X, y, sample_weight=w)
    assert clf.classes_.tolist() == ref.classes_.tolist() == ["a", "b", "c"]
    np.testing.assert_allclose(clf.class_count_, ref.class_count_, rtol=1e-12)
    np.testing.assert_allclose(clf.class_log_prior_, ref.class_log_prior_, rtol=0, atol=1e-12)
    assert clf.learn_chunks() is clf  # the model, learned from the summed counts
    if hasattr(ref, "model_"):  # the same structure, node by node
        assert {v: clf.model_.parents(v) for v in ref.model_.variables} == {
            v: ref.model_.parents(v) for v in ref.model_.variables
        }
    got, want = cpts(clf), cpts(ref)
    assert got.keys() == want.keys()
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=0, atol=1e-12, err_msg=key)
    np.testing.assert_allclose(clf.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-12)


def test_one_chunk_is_fit_and_arrays_chunk_by_position():
    X, y = chained(200, seed=3)
    A = X.fillna(-1).to_numpy()
    clf = tl.KDB(numbers="states", k=2).partial_fit(
        A[:150],
        y[:150].to_numpy(),
        states={f"x{j}": sorted(np.unique(A[:, j]).tolist()) for j in range(5)},
    )
    clf.partial_fit(A[150:], y[150:].to_numpy())
    ref = tl.KDB(numbers="states", k=2).fit(A, y.to_numpy())
    np.testing.assert_allclose(clf.predict_proba(A), ref.predict_proba(A), rtol=0, atol=1e-12)


def test_refit_structure_false_keeps_the_first_structure_and_updates_the_cpts():
    X, y = chained(600, seed=4)
    first = slice(0, 60)
    # the CPT learner's plain CPTs: every class arc kept (class_arcs="all"), not averaged
    clf = tl.TAN(numbers="states", class_arcs="all").partial_fit(
        X.iloc[first], y.iloc[first], states=states_of(X)
    )
    tree = {v: clf.model_.parents(v) for v in clf.model_.variables}
    clf.partial_fit(X.iloc[60:], y.iloc[60:], refit_structure=False)
    assert {v: clf.model_.parents(v) for v in clf.model_.variables} == tree
    # the CPTs are those of that structure on every row (the CPT learner, directly)
    stats = count_by_class(X, y, states=states_of(X))
    structure = clf.model_.graph.copy()
    want = build_model(structure, stats, LearningSettings(method="tan", alpha=1.0))
    for v in want.variables:
        if v != "C":  # the class node holds the class prior
            np.testing.assert_allclose(clf.model_.cpt(v), want.cpt(v), rtol=0, atol=1e-12)
    # and refitting the structure is the fit on all rows (here: another tree)
    refit = tl.TAN(numbers="states").partial_fit(X.iloc[first], y.iloc[first], states=states_of(X))
    refit.partial_fit(X.iloc[60:], y.iloc[60:]).learn_chunks()
    full = tl.TAN(numbers="states").fit(X, y)
    assert {v: full.model_.parents(v) for v in full.model_.variables} != tree
    assert {v: refit.model_.parents(v) for v in full.model_.variables} == {
        v: full.model_.parents(v) for v in full.model_.variables
    }


def test_unseen_state_in_a_later_chunk_says_to_declare_it():
    X = pd.DataFrame({"f": ["u", "v", "u", "v"], "g": [0, 1, 1, 0]})
    clf = tl.NaiveBayes(numbers="states").partial_fit(X, [0, 1, 0, 1])
    with pytest.raises(
        tl.UnseenStateError,
        match=r"'f' has value\(s\) 'w'.*first partial_fit "
        r"call.*states=\{column",
    ):
        clf.partial_fit(pd.DataFrame({"f": ["w"], "g": [0]}), [0])
    # declared: the later chunk is fine, and equals the fit
    more = pd.DataFrame({"f": ["w", "u"], "g": [0, 1]})
    clf = tl.NaiveBayes(numbers="states").partial_fit(
        X, [0, 1, 0, 1], states={"f": ["u", "v", "w"]}
    )
    clf.partial_fit(more, [0, 1]).learn_chunks()
    ref = tl.NaiveBayes(numbers="states").fit(pd.concat([X, more]), [0, 1, 0, 1, 0, 1])
    np.testing.assert_allclose(clf.model_.cpt("f"), ref.model_.cpt("f"), rtol=0, atol=1e-12)


def test_undeclared_class_and_other_misuse_are_errors():
    X = pd.DataFrame({"f": ["u", "v", "u", "v"]})
    clf = tl.AODE().partial_fit(X, ["a", "b", "a", "b"])
    with pytest.raises(tl.ClassLabelError, match=r"outside the declared classes.*classes=\["):
        clf.partial_fit(X, ["a", "c", "a", "b"])
    with pytest.raises(tl.FeatureMismatchError, match="X has 2 features"):
        clf.partial_fit(np.zeros((2, 2)), ["a", "b"])
    with pytest.raises(tl.TreelearnError, match="states= is declared on the first"):
        clf.partial_fit(X, ["a", "b", "a", "b"], states={"f": ["u", "v"]})
    # fit after partial_fit starts again from its rows alone
    clf = tl.NaiveBayes().partial_fit(X, ["a", "b", "a", "b"])
    clf.fit(X.iloc[:2], ["a", "b"])
    assert clf.class_count_.tolist() == [1, 1]


@pytest.mark.parametrize("name", list(MODELS))
def test_partial_fit_after_fit_goes_on_from_its_counts(name, tmp_path):
    X, y = chained(500, seed=5)
    clf = MODELS[name]().fit(X.iloc[:300], y.iloc[:300])
    try:
        clf.partial_fit(X.iloc[300:], y.iloc[300:])
    except tl.TreelearnError as exc:  # a refitted k-DB asks for a family fit did not keep
        assert name.startswith("kdb") and "did not keep" in str(exc)
        clf = MODELS[name]().fit(X.iloc[:300], y.iloc[:300])
        clf.partial_fit(X.iloc[300:], y.iloc[300:], refit_structure=False)
        kept = MODELS[name]().fit(X.iloc[:300], y.iloc[:300])
        assert {v: clf.model_.parents(v) for v in clf.model_.variables} == {
            v: kept.model_.parents(v) for v in kept.model_.variables
        }
        return
    ref = MODELS[name]().fit(X, y)
    clf.learn_chunks()
    for key, want in cpts(ref).items():
        np.testing.assert_allclose(cpts(clf)[key], want, rtol=0, atol=1e-12, err_msg=key)
    path = tmp_path / "clf.json"
    clf.save(path)
    with pytest.raises(tl.TreelearnError, match="loaded from a file, which keeps no counts"):
        tl.load(path).partial_fit(X, y)


def test_a_chunk_the_fit_rules_refuse_alone_is_encoded_against_the_declared_states():
    # a chunk of floats each seen once is refused as continuous on its own; against the
    # states declared on the first call it is a chunk like any other
    grid = [0.25 * i for i in range(12)]
    X = pd.DataFrame({"v": grid * 3, "g": ["a", "b", "c"] * 12})
    y = [0, 1] * 18
    clf = tl.NaiveBayes().partial_fit(X.iloc[:24], y[:24], states={"v": grid})
    clf.partial_fit(X.iloc[24:], y[24:]).learn_chunks()  # twelve distinct floats, each once
    ref = tl.NaiveBayes().fit(X.astype({"v": "category"}), y)
    np.testing.assert_allclose(clf.model_.cpt("v"), ref.model_.cpt("v"), rtol=0, atol=1e-12)
    with pytest.raises(tl.UnseenStateError, match=r"'v' has value\(s\) 9\.9.*first partial_fit"):
        clf.partial_fit(pd.DataFrame({"v": [9.9], "g": ["a"]}), [0])


def test_a_chunk_that_fails_leaves_the_classifier_as_it_was():
    X, y = chained(300, seed=9)
    clf = tl.KDB(k=2).fit(X.iloc[:200], y.iloc[:200])
    proba = clf.predict_proba(X)
    counts = clf.class_count_.copy()
    try:  # the refitted structure may need a family fit did not keep: then nothing changes
        clf.partial_fit(X.iloc[200:], y.iloc[200:])
    except tl.TreelearnError:
        np.testing.assert_array_equal(clf.class_count_, counts)
        np.testing.assert_array_equal(clf.predict_proba(X), proba)
    X = X.fillna(0)  # SKDB: complete rows
    clf = tl.SKDB(max_k=1).fit(X.iloc[:200], y.iloc[:200])
    proba, counts = clf.predict_proba(X), clf.class_count_.copy()
    with pytest.raises(tl.TreelearnError, match="keeps none"):
        clf.partial_fit(X.iloc[200:], y.iloc[200:])
    np.testing.assert_array_equal(clf.class_count_, counts)
    np.testing.assert_array_equal(clf.predict_proba(X), proba)
    clf.partial_fit(X.iloc[200:], y.iloc[200:], refit_structure=False)  # goes on from the fit
    assert clf.class_count_.sum() == 300


@pytest.mark.parametrize("name", ["tan", "kdb2", "aode"])
def test_later_calls_only_count_and_the_model_is_learned_when_used(name, tmp_path):
    import pickle

    X, y = chained(600, seed=11)
    parts = np.array_split(np.arange(600), 4)
    clf = MODELS[name]()
    for i, part in enumerate(parts):
        clf.partial_fit(X.iloc[part], y.iloc[part], states=states_of(X) if i == 0 else None)
        if i < 3:  # the eager definition: a fit on the rows so far, used between chunks
            upto = np.concatenate(parts[: i + 1])
            want = MODELS[name]().fit(X.iloc[upto], y.iloc[upto])
            assert clf.class_count_.tolist() == want.class_count_.tolist()  # the header at once
            if (
                i
            ):  # recorded, not learned: the fitted state is absent, and reading it learns nothing
                assert clf._learn_pending is not None
                assert not hasattr(clf, "model_") and not hasattr(clf, "log_cond_")
                assert clf._learn_pending is not None
            np.testing.assert_allclose(
                clf.predict_proba(X), want.predict_proba(X), rtol=0, atol=1e-12
            )
            assert clf._learn_pending is None
    ref = MODELS[name]().fit(X, y)
    copy = pickle.loads(pickle.dumps(clf))  # the recorded counts travel with the estimator
    for model in (copy, clf):
        assert model._learn_pending is not None and not hasattr(model, "model_")
        model.learn_chunks()
        for key, want in cpts(ref).items():
            np.testing.assert_allclose(cpts(model)[key], want, rtol=0, atol=1e-12, err_msg=key)
    clf.partial_fit(X.iloc[:10], y.iloc[:10])  # recorded again; saving learns first
    path = tmp_path / "clf.json"
    clf.save(path)
    twice = MODELS[name]().fit(pd.concat([X, X.iloc[:10]]), pd.concat([y, y.iloc[:10]]))
    np.testing.assert_allclose(
        tl.load(path).predict_proba(X), twice.predict_proba(X), rtol=0, atol=1e-12
    )
    with pytest.raises(AttributeError, match="no attribute 'nothing_'"):
        clf.nothing_  # noqa: B018
    clf.partial_fit(X.iloc[:10], y.iloc[:10])  # recorded; the page's provider learns first
    page = tl.to_html(clf)
    head = X.iloc[:10], y.iloc[:10]
    thrice = MODELS[name]().fit(pd.concat([X, head[0], head[0]]), pd.concat([y, head[1], head[1]]))
    assert clf._learn_pending is None and page == tl.to_html(thrice)


def test_reading_an_attribute_never_learns_and_n_calls_learn_once(monkeypatch):
    learns = []
    learn = tl.TAN._learn

    def counted(self, stats, params):
        learns.append(stats.class_count.sum())
        return learn(self, stats, params)

    monkeypatch.setattr(tl.TAN, "_learn", counted)
    X, y = chained(600, seed=14)
    clf = tl.TAN(numbers="states")
    for i, part in enumerate(np.array_split(np.arange(600), 6)):
        clf.partial_fit(X.iloc[part], y.iloc[part], states=states_of(X) if i == 0 else None)
    assert learns == [100]  # the first call learns; the five after it only count
    for name in ("model_", "nothing_", "n_parameters_", "__wrapped__"):
        assert not hasattr(clf, name)
    assert learns == [100] and clf._learn_pending is not None
    # a learn that fails at the model's use: hasattr neither learns nor raises, the use
    # raises, and the learn is left to the next use
    structure = tl.TAN._structure

    def failing(self, stats, params):
        raise RuntimeError("the learn failed")

    monkeypatch.setattr(tl.TAN, "_structure", failing)
    assert not hasattr(clf, "model_")
    for _ in range(2):
        with pytest.raises(RuntimeError, match="the learn failed"):
            clf.predict(X)
        assert clf._learn_pending is not None and not hasattr(clf, "model_")
    monkeypatch.setattr(tl.TAN, "_structure", structure)
    ref = tl.TAN(numbers="states").fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-12)
    assert learns == [100, 600, 600, 600, 600]  # the first call, two failed uses, ref, the use
    clf.predict_proba(X)
    assert len(learns) == 5  # learned once: the next use learns nothing


def test_keeping_the_structure_after_deferred_calls_is_the_eager_definition():
    # refit_structure=False keeps the structure learned from the calls before it
    X, y = chained(600, seed=12)
    # the CPT learner's plain CPTs: every class arc kept (class_arcs="all"), not averaged
    clf = tl.TAN(numbers="states", class_arcs="all")
    clf.partial_fit(X.iloc[:40], y.iloc[:40], states=states_of(X))
    clf.partial_fit(X.iloc[40:300], y.iloc[40:300])  # deferred
    clf.partial_fit(X.iloc[300:], y.iloc[300:], refit_structure=False)
    tree = tl.TAN(numbers="states").fit(X.iloc[:300], y.iloc[:300])
    assert {v: clf.model_.parents(v) for v in clf.model_.variables} == {
        v: tree.model_.parents(v) for v in tree.model_.variables
    }
    want = build_model(
        tree.model_.graph.copy(),
        count_by_class(X, y, states=states_of(X)),
        LearningSettings(method="tan", alpha=1.0),
    )
    for v in X.columns:
        np.testing.assert_allclose(clf.model_.cpt(v), want.cpt(v), rtol=0, atol=1e-12)


def test_a_chunk_with_missing_cells_gives_skdb_the_fit_of_every_row():
    X, y = chained(300, seed=13)
    X = X.fillna(0)
    clf = tl.SKDB(numbers="states", max_k=1).partial_fit(
        X.iloc[:200], y.iloc[:200], states=states_of(X)
    )
    gappy = X.copy()
    gappy.iloc[203, 1] = np.nan  # counted around, as fit counts it
    clf.partial_fit(gappy.iloc[200:], y.iloc[200:]).learn_chunks()
    ref = tl.SKDB(numbers="states", max_k=1).fit(gappy, y)
    np.testing.assert_allclose(clf.loo_loss_, ref.loo_loss_, rtol=1e-12)


# every public method and property of the partial_fit classifiers: those that read the
# fitted model (each must learn what a later partial_fit call recorded, first) ...
READERS = {
    "predict": lambda c, X, y: c.predict(X),
    "predict_proba": lambda c, X, y: c.predict_proba(X),
    "predict_log_proba": lambda c, X, y: c.predict_log_proba(X),
    "predict_joint_log_proba": lambda c, X, y: c.predict_joint_log_proba(X),
    "log_likelihood": lambda c, X, y: c.log_likelihood(X, y, per_row=True),
    "score": lambda c, X, y: c.score(X, y),
    "score_report": lambda c, X, y: vars(c.score_report(X, y)),
    "n_parameters": lambda c, X, y: c.n_parameters,
    "explain": lambda c, X, y: c.explain(X.head(4)).values,
    "to_dict": lambda c, X, y: c.to_dict(),
    "save": lambda c, X, y: _saved(c),
    "to_html": lambda c, X, y: c.to_html(),
    "explore": lambda c, X, y: c.explore()._repr_html_(),
    "explorer_spec": lambda c, X, y: c.explorer_spec(),
    "query": lambda c, X, y: c.query(["f1"], {"f0": X["f0"].dropna().iloc[0]}),
    "marginals": lambda c, X, y: {k: v.to_numpy() for k, v in c.marginals().items()},
    "map_query": lambda c, X, y: c.map_query(return_log_prob=True),
    "to_bif": lambda c, X, y: _written(c.to_bif),
    "to_xmlbif": lambda c, X, y: _written(c.to_xmlbif),
    "to_uai": lambda c, X, y: _written(c.to_uai),
    "to_text": lambda c, X, y: c.to_text(),
    "draw": lambda c, X, y: _drawn(c),
    "to_dot": lambda c, X, y: c.to_dot(),
    "to_mermaid": lambda c, X, y: c.to_mermaid(),
    "to_pgmpy": lambda c, X, y: [cpd.values for cpd in c.to_pgmpy().get_cpds()],
    "to_pyagrum": lambda c, X, y: tl.from_pyagrum(c.to_pyagrum()).to_dict(),
    "sample": lambda c, X, y: c.sample(20, random_state=0),
    "models_": lambda c, X, y: {k: m.to_dict() for k, m in c.models_.items()},
    "fallback_model_": lambda c, X, y: c.fallback_model_.to_dict(),
    "super_parents": lambda c, X, y: c.super_parents(X),
    "states_": lambda c, X, y: c.states_,
}
# ... and those that do not (options, the header, fitting, scikit-learn's routing)
NOT_READERS = {
    "fit",
    "partial_fit",
    "learn_chunks",
    "from_dict",
    "get_params",
    "set_params",
    "get_metadata_routing",
    "set_fit_request",
    "set_partial_fit_request",
    "set_predict_request",
    "set_score_request",
    "select_features",
    "memory_bytes",
    "supports",  # the declared capabilities: class attributes
    "require",
}
CHUNKED = {
    "nb": lambda: tl.NaiveBayes(numbers="states"),
    "tan": lambda: tl.TAN(numbers="states"),
    "kdb2": lambda: tl.KDB(numbers="states", k=2),
    "aode": lambda: tl.AODE(numbers="states", min_count=30),
    "a2de": lambda: tl.AnDE(numbers="states", n=2),
    "skdb": lambda: tl.SKDB(numbers="states", max_k=2),
    "manb": lambda: tl.MANB(numbers="states"),
}


def _saved(clf) -> dict:
    import json
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "clf.json")
        clf.save(path)
        with open(path) as f:
            return json.load(f)


def _written(write) -> str:
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.out")
        write(path)
        with open(path) as f:
            return f.read()


#: the capability each reader needs: a classifier that does not declare it refuses it
#: readers that need a package outside the test extra
OPTIONAL_PACKAGE = {"to_pyagrum": "pyagrum"}

CAPABILITY = {
    "query": "query",
    "marginals": "marginals",
    "map_query": "map",
    "sample": "sample",
    "draw": "draw",
    "to_dot": "draw",
    "to_mermaid": "draw",
    "to_pgmpy": "to_pgmpy",
    "to_pyagrum": "pyagrum",
    "to_bif": "bif",
    "to_xmlbif": "bif",
    "to_uai": "bif",
    "to_html": "explorer",
    "explore": "explorer",
    "explorer_spec": "explorer",
}


def _drawn(clf) -> list:
    import matplotlib.pyplot as plt

    figure = clf.draw()
    texts = sorted(t.get_text() for ax in figure.axes for t in ax.texts)
    plt.close(figure)
    return texts


def _same(got, want, where: str) -> None:
    """Equal, floats to 1e-12."""
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
    elif isinstance(want, dict):
        assert got.keys() == want.keys(), where
        for key in want:
            _same(got[key], want[key], f"{where}[{key!r}]")
    elif isinstance(want, (list, tuple)) and not all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in want
    ):
        assert len(got) == len(want), where
        for i, (a, b) in enumerate(zip(got, want)):
            _same(a, b, f"{where}[{i}]")
    elif isinstance(want, (str, bytes, type(None), bool)):
        assert got == want, where
    elif isinstance(want, np.ndarray) and want.dtype.kind not in "biuf":
        np.testing.assert_array_equal(got, want, err_msg=where)
    else:
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=where)


@pytest.mark.parametrize("name", list(CHUNKED))
def test_every_reader_of_the_model_learns_what_partial_fit_recorded(name):
    X, y = chained(300, seed=21)
    if name == "skdb":
        X = X.fillna(0)  # SKDB: complete rows
    make = CHUNKED[name]
    public = {
        n
        for n in dir(type(make()))
        if not n.startswith("_")
        and (callable(getattr(type(make()), n)) or isinstance(getattr(type(make()), n), property))
    }
    assert public - NOT_READERS <= READERS.keys(), "a public method neither reads nor is listed"
    assert public & NOT_READERS & READERS.keys() == set()
    ref = make().fit(X, y)
    for reader in sorted(public - NOT_READERS):
        clf = make()
        for i, part in enumerate(np.array_split(np.arange(300), 3)):
            clf.partial_fit(X.iloc[part], y.iloc[part], states=states_of(X) if i == 0 else None)
        assert clf._learn_pending is not None, reader  # recorded, not learned
        if (
            reader in OPTIONAL_PACKAGE
            and importlib.util.find_spec(OPTIONAL_PACKAGE[reader]) is None
        ):
            continue  # an extra this venv lacks (CI's test venv has no pyagrum): not read here
        if reader in CAPABILITY and not clf.supports(CAPABILITY[reader]):
            with pytest.raises(tl.CapabilityError):  # refused by its declaration
                READERS[reader](clf, X, y)
            continue
        got = READERS[reader](clf, X, y)
        assert clf._learn_pending is None, reader  # the reader learned first
        _same(got, READERS[reader](ref, X, y), f"{name}.{reader}")
