"""The estimators of the one-model learners (learners/_estimators.py): each is its function
(``Estimator(**options).fit(X, sample_weight=w).model_`` is ``function(X, **options,
sample_weight=w)``) on every input kind, its answers are its model's, its declared option
constraints are what ``fit`` refuses, it round-trips through files and pickle, and
``GridSearchCV`` tunes ``ChowLiuTree``'s ``alpha`` to the held-out likelihood computed by
hand. scikit-learn's own checks run in tests/test_sklearn_checks.py."""

from __future__ import annotations

import math
import pickle
import subprocess
import sys
from numbers import Integral, Real
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.model_selection import GridSearchCV, KFold

import treelearn as tl
from treelearn._base.validation import InstanceOf, Interval, Options

ROOT = Path(__file__).resolve().parent.parent
ASIA = pd.read_csv(ROOT / "datasets" / "asia.csv")


def numbers(n: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    return pd.DataFrame(
        {"a": a, "b": a + rng.normal(size=n), "c": rng.exponential(size=n), "d": rng.normal(size=n)}
    )


def mixed(n: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, n)
    x = rng.normal(1.5 * g, 1.0)
    return pd.DataFrame(
        {"g": g, "h": (g + rng.integers(0, 2, n)) % 2, "x": x, "y": x + rng.normal(size=n)}
    )


#: (estimator class, its function, options, data)
CASES = [
    (tl.ChowLiuTree, tl.chow_liu, {"root": "smoke", "alpha": 0.5, "forest": "bic"}, ASIA),
    (tl.GaussianTree, tl.gaussian_chow_liu, {"root": "b"}, numbers()),
    (tl.CLGTree, tl.clg_tree, {"alpha": 2.0, "missing": "drop"}, mixed()),
    (tl.CopulaTree, tl.copula_chow_liu, {"root": "c"}, numbers()),
    (tl.KernelForest, tl.kernel_forest, {"split": 0.6, "grid": 16, "random_state": 3}, numbers()),
    (
        tl.BayesianTrees,
        tl.tree_posterior,
        {"equivalent_sample_size": 4.0, "states": {c: sorted(ASIA[c].unique()) for c in ASIA}},
        ASIA.head(400),
    ),
]
IDS = [case[0].__name__ for case in CASES]


def weights(n: int) -> np.ndarray:
    return np.arange(n) % 3  # 0, 1, 2: a zero weight, and whole weights (= repeated rows)


# ------------------------------------------------------------------ the estimator is its function
@pytest.mark.parametrize("make, learn, options, data", CASES, ids=IDS)
def test_the_estimator_learns_its_functions_model(make, learn, options, data):
    w = weights(len(data))
    est = make(**options).fit(data, sample_weight=w)
    model = learn(data, **options, sample_weight=w)
    assert isinstance(est.model_, make.model_class) and isinstance(est.model_, tl.Model)
    assert est.model_.to_dict() == model.to_dict()  # every parameter, the same doubles
    np.testing.assert_array_equal(est.score_samples(data), model.score_samples(data))
    assert est.n_features_in_ == data.shape[1]
    assert est.feature_names_in_.tolist() == list(data.columns)
    assert est.get_params() == {**make().get_params(), **options}  # stored untouched


@pytest.mark.parametrize("make, learn, options, data", CASES, ids=IDS)
def test_answers_are_the_models(make, learn, options, data):
    est = make(**options).fit(data)
    model, rows, w = est.model_, data.iloc[:50], np.linspace(0.5, 2.0, 50)
    lls = model.score_samples(rows)
    assert est.score(rows) == model.score(rows) == pytest.approx(lls.mean(), rel=1e-12)
    assert est.score(rows, sample_weight=w) == pytest.approx((w @ lls) / w.sum(), rel=1e-12)
    n, k = len(rows), model.n_parameters
    assert est.n_parameters == k
    assert est.bic(rows) == pytest.approx(lls.sum() - 0.5 * k * math.log(n), rel=1e-12)
    assert est.aic(rows) == pytest.approx(lls.sum() - k, rel=1e-12)
    pd.testing.assert_frame_equal(est.sample(7, random_state=1), model.sample(7, random_state=1))
    # an array is matched by position; a frame by name (its columns in any order)
    np.testing.assert_array_equal(est.score_samples(rows.to_numpy()), lls)
    np.testing.assert_array_equal(est.score_samples(rows[rows.columns[::-1]]), lls)
    with pytest.raises(tl.FeatureMismatchError, match="missing"):
        est.score_samples(rows.iloc[:, 1:])
    with pytest.raises(tl.FeatureMismatchError, match=f"is expecting {data.shape[1]} features"):
        est.score_samples(rows.to_numpy()[:, 1:])


def test_chow_liu_trees_score_is_the_mean_log_likelihood_by_hand():
    # score = mean over rows of sum_v log P(x_v | x_parent(v)), read off the CPTs one cell at
    # a time (no engine, no vectorised scoring)
    est = tl.ChowLiuTree(alpha=1.0).fit(ASIA)
    model, rows = est.model_, ASIA.iloc[::97]
    total = 0.0
    for _, row in rows.iterrows():
        for v in model.variables:
            cpt, states = model.cpt(v), model.states
            index = tuple(states[p].index(row[p]) for p in model.parents(v))
            total += math.log(cpt[index + (states[v].index(row[v]),)])
    assert est.score(rows) == pytest.approx(total / len(rows), rel=1e-12)


# ------------------------------------------------------------------ every input kind
def test_every_input_kind_gives_the_same_estimator(tmp_path):
    path = tmp_path / "asia.csv"
    ASIA.assign(w=weights(len(ASIA))).to_csv(path, index=False)
    frame = tl.ChowLiuTree().fit(ASIA, sample_weight=weights(len(ASIA))).model_
    assert tl.ChowLiuTree(chunksize=1000).fit(path, sample_weight="w").model_ == frame
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(ASIA.assign(w=weights(len(ASIA))), npartitions=3)
    assert tl.ChowLiuTree().fit(ddf, sample_weight="w").model_ == frame
    # a 0/1 sparse matrix, its columns named; an array, its columns x0, x1, ...
    A = (np.random.default_rng(0).random((200, 5)) < 0.3).astype(np.int8)
    names = list("pqrst")
    from_sparse = tl.ChowLiuTree(names=names).fit(sp.csr_matrix(A))
    assert from_sparse.model_ == tl.chow_liu(pd.DataFrame(A, columns=names))
    from_array = tl.ChowLiuTree().fit(A)
    assert from_array.feature_names_in_.tolist() == ["x0", "x1", "x2", "x3", "x4"]
    assert from_array.model_ == tl.chow_liu(pd.DataFrame(A, columns=from_array.feature_names_in_))
    with pytest.raises(tl.InputTypeError, match="wrap arrays"):  # the function, as before
        tl.chow_liu(A)
    # the Gaussian tree from a file in chunks and from Dask; the CLG tree from a file
    num = numbers()
    num.to_csv(tmp_path / "num.csv", index=False)
    gauss = tl.GaussianTree().fit(num).model_
    np.testing.assert_allclose(
        tl.GaussianTree(chunksize=100).fit(tmp_path / "num.csv").model_.score_samples(num),
        gauss.score_samples(num),
        rtol=1e-10,
    )
    np.testing.assert_allclose(
        tl.GaussianTree().fit(dd.from_pandas(num, npartitions=2)).model_.score_samples(num),
        gauss.score_samples(num),
        rtol=1e-10,
    )
    mix = mixed()
    mix.to_csv(tmp_path / "mixed.csv", index=False)
    np.testing.assert_allclose(
        tl.CLGTree().fit(tmp_path / "mixed.csv").score_samples(mix),
        tl.clg_tree(mix).score_samples(mix),
        rtol=1e-12,
    )
    assert tl.BayesianTrees().fit(path, sample_weight="w").model_.to_dict() == (
        tl.tree_posterior(ASIA, sample_weight=weights(len(ASIA))).to_dict()
    )


def test_the_callers_data_is_never_modified():
    for make, _, options, data in CASES:
        copy = data.copy()
        make(**options).fit(data, sample_weight=weights(len(data)))
        pd.testing.assert_frame_equal(data, copy)


# ------------------------------------------------------------------ options, as declared
def bad_values(constraints: list) -> list:
    """A value outside every form of a declared constraint."""
    out = []
    for form in constraints:
        if isinstance(form, Interval) and form.low is not None:
            out.append(form.low - (1 if form.kind is Integral else 0.5))
        if isinstance(form, Interval) and form.kind is Integral:
            out.append(1.5)
    if all(
        not isinstance(f, Interval) or f.kind is not Real or f.low is not None
        for f in constraints
        if f is not None
    ):
        out.append("no such option")
    if any(isinstance(f, (Options, InstanceOf)) for f in constraints if f is not None):
        out.append(object())
    return [v for v in out if not any(f is not None and f.accepts(v) for f in constraints)]


@pytest.mark.parametrize("make, learn, options, data", CASES, ids=IDS)
def test_fit_refuses_what_the_declared_constraints_refuse(make, learn, options, data):
    params = make().get_params()
    assert set(make._parameter_constraints) <= set(params)  # no constraint of a non-option
    checked = 0
    for name, constraints in make._parameter_constraints.items():
        for value in bad_values(constraints):
            with pytest.raises(tl.TreelearnError, match=f"^{name} == "):
                make(**{**options, name: value}).fit(data)
            checked += 1
    assert checked >= len(make._parameter_constraints)


def test_the_mixed_tree_is_its_own_learner():
    df = mixed()
    # chow_liu returns one model class: measurements are refused, naming the mixed tree
    with pytest.raises(tl.TableProblemsError, match="column 'x' is numeric") as info:
        tl.ChowLiuTree().fit(df)
    assert "tl.clg_tree" in str(info.value) and "tl.discretize" in str(info.value)
    with pytest.raises(TypeError):
        tl.ChowLiuTree(numeric="auto")
    # numeric= names the continuous columns; missing='em' is for discrete tables
    assert tl.CLGTree(numeric=["x"]).fit(df.drop(columns="y")).model_.continuous == ["x"]
    with pytest.raises(tl.TreelearnError, match="missing='em' is for discrete tables"):
        tl.CLGTree(missing="em").fit(df)


# ------------------------------------------------------------------ files, pickle
@pytest.mark.parametrize("make, learn, options, data", CASES, ids=IDS)
def test_save_load_and_pickle_round_trip(make, learn, options, data, tmp_path):
    est = make(**options).fit(data)
    path = tmp_path / "est.json"
    tl.save(est, path)
    for back in (tl.load(path), pickle.loads(pickle.dumps(est))):
        assert type(back) is make and back.get_params() == est.get_params()
        assert back.feature_names_in_.tolist() == est.feature_names_in_.tolist()
        np.testing.assert_array_equal(back.score_samples(data), est.score_samples(data))
        assert back.model_.to_dict() == est.model_.to_dict()


def test_a_saved_estimator_is_checked(tmp_path):
    state = tl.ChowLiuTree().fit(ASIA).to_dict()
    with pytest.raises(tl.InvalidModelError, match="feature_names"):
        tl.ChowLiuTree.from_dict({**state, "feature_names": list("abcdefgh")})
    with pytest.raises(tl.InvalidModelError, match="alpha == -1"):
        tl.ChowLiuTree.from_dict({**state, "params": {**state["params"], "alpha": -1}})
    with pytest.raises(tl.InvalidModelError, match="model"):
        tl.ChowLiuTree.from_dict({k: v for k, v in state.items() if k != "model"})
    graph_prior = tl.BayesianTrees(edge_prior=nx.complete_graph(list(ASIA.columns)))
    with pytest.raises(tl.TreelearnError, match="edge_prior as the d x d matrix"):
        tl.save(graph_prior.fit(ASIA.head(200)), tmp_path / "bt.json")


# ------------------------------------------------------------------ model selection
def test_grid_search_over_alpha_picks_the_best_held_out_likelihood_by_hand():
    df = ASIA.head(200)
    states = {c: sorted(ASIA[c].unique()) for c in ASIA}  # a fold may miss a state
    grid = [0.01, 0.1, 0.5, 1.0, 3.0, 10.0]
    search = GridSearchCV(tl.ChowLiuTree(states=states), {"alpha": grid}, cv=5).fit(df)
    # by hand: each fold's tree and CPTs, its test rows' mean log-likelihood, the mean over
    # folds, one cell at a time from the CPTs
    by_hand = []
    for alpha in grid:
        fold_scores = []
        for train, test in KFold(5).split(df):
            model = tl.chow_liu(df.iloc[train], alpha=alpha, states=states)
            total = 0.0
            for _, row in df.iloc[test].iterrows():
                for v in model.variables:
                    index = tuple(model.states[p].index(row[p]) for p in model.parents(v))
                    total += math.log(model.cpt(v)[index + (model.states[v].index(row[v]),)])
            fold_scores.append(total / len(test))
        by_hand.append(np.mean(fold_scores))
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], by_hand, rtol=1e-12)
    best = grid[int(np.argmax(by_hand))]
    assert search.best_params_ == {"alpha": best} and 0.01 < best < 10.0  # an inner optimum
    assert search.best_estimator_.model_ == tl.chow_liu(df, alpha=best, states=states)


# ------------------------------------------------------------------ the model keeps learning
def test_the_fitted_tree_still_adds_rows():
    states = {c: sorted(ASIA[c].unique()) for c in ASIA}
    est = tl.ChowLiuTree(states=states).fit(ASIA.iloc[:4000])
    est.model_.partial_fit(ASIA.iloc[4000:])
    assert est.model_ == tl.chow_liu(ASIA, states=states)


def test_the_functions_load_no_scikit_learn():
    # the estimators' module imports scikit-learn; the functions' modules do not
    code = (
        "import pandas as pd, sys, treelearn as tl\n"
        "df = pd.read_csv('datasets/asia.csv')\n"
        "tl.chow_liu(df)\n"
        "print(sorted(m for m in ('sklearn', 'scipy') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"
