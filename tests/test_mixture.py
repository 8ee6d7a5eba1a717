"""TreeMixture: EM for mixtures of trees, checked against brute-force enumeration and known truth.

Oracles: probabilities are products of CPT entries multiplied out here in plain
Python (every completion of the missing cells enumerated), never treelearn's
scoring code; the data come from a known two-component mixture whose exact
distribution is enumerated over all 2^6 states.
"""

from __future__ import annotations

import itertools
import math
import os
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import FAST, tables, three_small_columns
from hypothesis import given
from oracles import (
    joint_probability,
    marginal_probability,
    mixture_em_step,
)
from sklearn.model_selection import GridSearchCV, KFold

import treelearn as tl
from treelearn._base.errors import InvalidModelError, MissingValuesError, UnseenStateError

HERE = os.path.dirname(os.path.abspath(__file__))
D = 6
COLUMNS = [f"x{i}" for i in range(D)]


# ---------------------------------------------------------------- the known mixture
def _tree(edges: list[tuple[int, int]], root_p1: float, keep: float) -> tl.TreeModel:
    """Binary tree network: the root is 1 with ``root_p1``; a child copies its parent with ``keep``."""
    G = nx.DiGraph()
    for v in range(D):
        G.add_node(COLUMNS[v], states=[0, 1], cpt=np.array([1 - root_p1, root_p1]))
    for p, c in edges:
        G.add_edge(COLUMNS[p], COLUMNS[c])
        G.nodes[COLUMNS[c]]["cpt"] = np.array([[keep, 1 - keep], [1 - keep, keep]])
    return tl.TreeModel(G, variables=COLUMNS)


CHAIN = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
STAR = [(5, 0), (5, 1), (5, 2), (5, 3), (5, 4)]
TRUE_WEIGHTS = np.array([0.35, 0.65])


def true_components() -> list[tl.TreeModel]:
    return [_tree(CHAIN, 0.15, 0.9), _tree(STAR, 0.8, 0.85)]


def enumerate_distribution(model: tl.TreeModel) -> np.ndarray:
    """The model's probability of every one of the 2^D states, in itertools.product order."""
    return np.array(
        [
            joint_probability(model, dict(zip(COLUMNS, s)))
            for s in itertools.product([0, 1], repeat=D)
        ]
    )


def sample_mixture(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, TRUE_WEIGHTS)
    parts = [c.sample(int(m), random_state=rng) for c, m in zip(true_components(), counts)]
    return pd.concat(parts, ignore_index=True).sample(
        frac=1.0, random_state=seed, ignore_index=True
    )


@pytest.fixture(scope="module")
def mixture_data():
    return sample_mixture(12_000, seed=1), sample_mixture(4_000, seed=2)


@pytest.fixture(scope="module")
def fitted(mixture_data):
    train, _ = mixture_data
    # overlapping components: EM creeps, so a small tol (the default stops a little early)
    return tl.TreeMixture(
        n_components=2, alpha=1.0, n_init=3, tol=1e-7, max_iter=1000, random_state=0
    ).fit(train)


# ---------------------------------------------------------------- recovery of a known mixture
def test_recovers_the_known_components_weights_and_trees(fitted):
    true = [enumerate_distribution(c) for c in true_components()]
    learned = [enumerate_distribution(c) for c in fitted.components_]

    # match learned to true components by the smaller total KL divergence
    def kl(p, q):
        return float(np.sum(p * np.log(p / q)))

    orders = [(0, 1), (1, 0)]
    best = min(orders, key=lambda o: sum(kl(true[i], learned[o[i]]) for i in range(2)))
    for i in range(2):
        assert kl(true[i], learned[best[i]]) < 0.01
        assert abs(fitted.weights_[best[i]] - TRUE_WEIGHTS[i]) < 0.02
    edges = [
        {frozenset(e) for e in fitted.components_[best[i]].graph.to_undirected().edges}
        for i in range(2)
    ]
    assert edges[0] == {frozenset((COLUMNS[p], COLUMNS[c])) for p, c in CHAIN}
    assert edges[1] == {frozenset((COLUMNS[p], COLUMNS[c])) for p, c in STAR}


def test_held_out_likelihood_matches_the_truth_and_beats_one_tree(fitted, mixture_data):
    train, test = mixture_data
    mixture_probability = sum(
        w * enumerate_distribution(c) for w, c in zip(TRUE_WEIGHTS, true_components())
    )
    table = dict(zip(itertools.product([0, 1], repeat=D), mixture_probability))
    truth = np.mean([math.log(table[tuple(r)]) for r in test[COLUMNS].itertuples(index=False)])
    mixture = fitted.score(test)
    single = tl.chow_liu(train, alpha=1.0).log_likelihood(test) / len(test)
    assert abs(mixture - truth) < 0.01  # sampling noise of 12k training rows
    assert mixture > single + 0.1


# ---------------------------------------------------------------- EM properties
def test_lower_bound_never_decreases_and_is_the_training_likelihood(mixture_data):
    train, _ = mixture_data
    for seed in range(3):
        mix = tl.TreeMixture(
            n_components=3, alpha=0.0, max_iter=40, tol=0.0, random_state=seed
        ).fit(train.iloc[:3000])
        steps = np.diff(mix.lower_bounds_)
        assert len(steps) == 39 and (steps >= -1e-10).all()
        # the last bound is the mean log-likelihood of the training rows under the result
        assert mix.lower_bound_ == pytest.approx(mix.score(train.iloc[:3000]), abs=1e-9)


def test_one_component_is_the_chow_liu_tree():
    df = pd.read_csv(os.path.join(HERE, "..", "datasets", "asia.csv"))
    for alpha, mi_alpha in [(1.0, None), (0.0, None), (0.5, 1.0)]:
        mix = tl.TreeMixture(n_components=1, alpha=alpha, mi_alpha=mi_alpha).fit(df)
        assert mix.components_[0] == tl.chow_liu(df, alpha=alpha, mi_alpha=mi_alpha)
        assert mix.weights_.tolist() == [1.0]


def test_n_init_keeps_the_best_run_and_random_state_is_deterministic(mixture_data):
    train = mixture_data[0].iloc[:2000]
    one = tl.TreeMixture(n_components=3, random_state=5, max_iter=15).fit(train)
    again = tl.TreeMixture(n_components=3, random_state=5, max_iter=15).fit(train)
    assert one.lower_bounds_ == again.lower_bounds_
    assert all(a == b for a, b in zip(one.components_, again.components_))
    # the first of several runs draws exactly what a single run draws
    several = tl.TreeMixture(n_components=3, random_state=5, max_iter=15, n_init=4).fit(train)
    assert several.lower_bound_ >= one.lower_bound_


# ---------------------------------------------------------------- scores against brute force
@pytest.fixture(scope="module")
def small():
    """A 3-component mixture over four small variables, scored on rows with missing cells."""
    rng = np.random.default_rng(7)
    n = 400
    df = pd.DataFrame(
        {
            "a": rng.choice(["u", "v", "w"], n),
            "b": rng.integers(0, 2, n),
            "c": rng.choice(["p", "q"], n),
            "d": rng.integers(0, 3, n),
        }
    )
    df.loc[df.a == "u", "b"] = 1
    mix = tl.TreeMixture(n_components=3, alpha=1.0, random_state=0).fit(df)
    rows = df.head(12).astype(object)
    rows.iloc[1, 0] = None
    rows.iloc[2, [1, 3]] = None
    rows.iloc[3, :] = None
    rows.iloc[4, [0, 2, 3]] = None
    return mix, rows


def test_score_samples_and_predict_proba_equal_brute_force(small):
    mix, rows = small
    records = rows.to_dict("records")
    per_component = np.array(
        [
            [w * marginal_probability(c, r) for w, c in zip(mix.weights_, mix.components_)]
            for r in records
        ]
    )
    np.testing.assert_allclose(
        mix.score_samples(rows), np.log(per_component.sum(axis=1)), rtol=1e-12, atol=1e-12
    )
    proba = mix.predict_proba(rows)
    np.testing.assert_allclose(
        proba, per_component / per_component.sum(axis=1, keepdims=True), rtol=1e-10, atol=1e-12
    )
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert mix.predict(rows).tolist() == per_component.argmax(axis=1).tolist()
    assert mix.score_samples(rows)[3] == pytest.approx(0.0, abs=1e-12)  # nothing observed


def test_bic_and_aic_take_treelearns_sign(mixture_data, fitted):
    _, test = mixture_data
    ll = sum(
        math.log(
            sum(w * joint_probability(c, r) for w, c in zip(fitted.weights_, fitted.components_))
        )
        for r in test.head(200).to_dict("records")
    )
    # each component: a root (1 free parameter) and five binary children (2 each); one weight
    p = 2 * (1 + 5 * 2) + 1
    assert fitted.n_parameters == p
    # larger is better, as TreeModel.bic: log-likelihood - p/2 ln n (scikit-learn's is -2 x this)
    assert fitted.bic(test.head(200)) == pytest.approx(ll - p / 2 * math.log(200), rel=1e-10)
    assert fitted.aic(test.head(200)) == pytest.approx(ll - p, rel=1e-10)


def test_one_component_scores_as_its_tree_and_weights_are_repeated_rows(mixture_data):
    train, test = mixture_data
    one = tl.TreeMixture(n_components=1, random_state=0).fit(train.head(2000))
    tree = one.components_[0]  # TreeModel's own bic, aic and log-likelihood are the oracle
    rows = test.head(300)
    assert one.n_parameters == tree.n_parameters
    assert one.bic(rows) == pytest.approx(tree.bic(rows), rel=1e-12)
    assert one.aic(rows) == pytest.approx(tree.aic(rows), rel=1e-12)
    w = np.random.default_rng(0).integers(0, 4, size=len(rows))
    repeated = rows.loc[rows.index.repeat(w)]
    assert one.score(rows, sample_weight=w) == pytest.approx(one.score(repeated), rel=1e-12)
    assert one.bic(rows, sample_weight=w) == pytest.approx(tree.bic(repeated), rel=1e-12)
    assert one.aic(rows, sample_weight=w) == pytest.approx(tree.aic(repeated), rel=1e-12)


def test_sample_follows_the_weights_and_the_components(fitted):
    X, y = fitted.sample(20_000, random_state=3, return_components=True)
    assert list(X.columns) == COLUMNS and len(X) == len(y) == 20_000
    assert abs(np.mean(y == 0) - fitted.weights_[0]) < 0.015
    # the frequency of x0 = 1 within component 0 follows that component's marginal
    p1 = sum(
        joint_probability(fitted.components_[0], dict(zip(COLUMNS, s)))
        for s in itertools.product([0, 1], repeat=D)
        if s[0] == 1
    )
    assert abs(X.loc[y == 0, "x0"].mean() - p1) < 0.03
    again, y2 = fitted.sample(20_000, random_state=3, return_components=True)
    assert again.equals(X) and (y2 == y).all()
    # without return_components: the same rows, as a DataFrame (TreeModel.sample's type)
    rows = fitted.sample(20_000, random_state=3)
    assert isinstance(rows, pd.DataFrame) and rows.equals(X)
    assert fitted.sample(0, random_state=3).shape == (0, D)


@pytest.mark.parametrize(
    "n, random_state, match",
    [
        (-1, None, "n == -1, must be an integer >= 0"),
        (2.0, None, "n == 2.0, must be an integer >= 0"),
        (True, None, "n == True"),
        ("5", None, "n == '5'"),
        (3, "seed", "random_state == 'seed'"),
        (3, -2, "random_state == -2"),
    ],
)
def test_sample_checks_n_and_random_state(fitted, n, random_state, match):
    with pytest.raises(tl.TreelearnError, match=match):
        fitted.sample(n, random_state=random_state)
    assert len(fitted.sample(np.int64(3), random_state=np.random.default_rng(0))) == 3


# ---------------------------------------------------------------- scikit-learn, files, pictures
def test_grid_search_picks_k_by_held_out_likelihood(mixture_data):
    train = mixture_data[0].iloc[:3000]
    base = tl.TreeMixture(random_state=0, states={c: [0, 1] for c in COLUMNS}, max_iter=30)
    search = GridSearchCV(base, {"n_components": [1, 2]}, cv=KFold(3)).fit(train)
    assert search.best_params_ == {"n_components": 2}
    # the cross-validated score is the mean held-out log-likelihood per row, fold by fold
    folds = []
    for fit_rows, held_out in KFold(3).split(train):
        model = tl.TreeMixture(
            n_components=2, random_state=0, max_iter=30, states={c: [0, 1] for c in COLUMNS}
        ).fit(train.iloc[fit_rows])
        folds.append(np.mean(model.score_samples(train.iloc[held_out])))
    assert search.cv_results_["mean_test_score"][1] == pytest.approx(np.mean(folds), rel=1e-12)


def test_save_and_load_round_trip(tmp_path, small):
    mix, rows = small
    path = tmp_path / "mix.json"
    mix.save(path)
    back = tl.load(path)
    assert isinstance(back, tl.TreeMixture)
    assert (back.score_samples(rows) == mix.score_samples(rows)).all()
    assert back.get_params() == mix.get_params()
    tl.save(mix, tmp_path / "again.json")
    assert tl.load(tmp_path / "again.json").weights_.tolist() == mix.weights_.tolist()
    state = mix.to_dict()
    state["weights"] = [0.5, 0.6, 0.1]
    with pytest.raises(InvalidModelError, match="sum to 1"):
        tl.TreeMixture.from_dict(state)


def test_draw_one_panel_per_component(small):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mix, _ = small
    fig = mix.draw()
    titles = [ax.get_title() for ax in fig.axes]
    # three different trees here, so a panel each, the heaviest first (issue 39 item 6:
    # members with one structure share a panel, tests/test_ensemble_pictures.py)
    assert len({frozenset(t.graph.edges) for t in mix.components_}) == 3
    order = np.argsort(-mix.weights_, kind="stable")
    assert titles == [f"component {k}: weight {mix.weights_[k]:.3f}" for k in order]
    plt.close("all")


# ---------------------------------------------------------------- errors
def test_bad_options_and_data_raise_errors_that_name_them(small):
    df = pd.DataFrame({"a": [0, 1, 1, None], "b": [0, 1, 0, 1]})
    with pytest.raises(tl.TreelearnError, match="n_components == 0"):
        tl.TreeMixture(n_components=0).fit(df)
    with pytest.raises(
        tl.TreelearnError, match="init == 'kmeans', must be one of 'random', 'random_resp'"
    ):
        tl.TreeMixture(init="kmeans").fit(df)
    with pytest.raises(MissingValuesError, match="'a'"):
        tl.TreeMixture().fit(df)
    with pytest.raises(
        tl.TreelearnError, match=r"missing == 'pairwise', must be one of 'error', 'drop', 'em'"
    ):
        tl.TreeMixture(missing="pairwise").fit(df)
    for option, value in (
        ("alpha", -1),
        ("tol", float("nan")),
        ("max_iter", 2.5),
        ("n_init", True),
        ("random_state", "0"),
        ("states", ["a"]),
        ("max_states", 0),
        ("mi_alpha", -0.5),
    ):
        with pytest.raises(tl.TreelearnError, match=f"^{option} == "):
            tl.TreeMixture(**{option: value}).fit(df)
    mix = tl.TreeMixture(missing="drop", random_state=0).fit(df)
    assert mix.components_[0].n_rows + mix.components_[1].n_rows == pytest.approx(3)
    with pytest.raises(UnseenStateError, match="'a'"):
        mix.score(pd.DataFrame({"a": [7], "b": [0]}))
    df_before = df.copy()
    tl.TreeMixture(missing="drop", random_state=0).fit(df)
    assert df.equals(df_before)


def test_k_means_plus_plus_seeds_are_spread_out():
    """Each next seed is drawn with probability proportional to its squared Hamming distance
    to the nearest seed so far: rows equal to a seed are never picked again."""
    from treelearn.learners._mixture import _spread_seeds

    codes = np.array([[0, 0, 0]] * 50 + [[1, 1, 1]] * 50 + [[0, 1, 0]] * 50)
    for seed in range(20):
        seeds = _spread_seeds(codes, 3, np.random.default_rng(seed))
        assert len({tuple(codes[s]) for s in seeds}) == 3  # one seed per pattern, always


# ---------------------------------------------------------------- a well-separated 3-component truth
# Nine 3-state variables; three components with different trees (a chain, a star, a binary
# tree, each over its own ordering of the variables: no two share more than one edge).
# Component k leans to state k in every variable: its root is [0.7, 0.15, 0.15] rotated to
# k, and each child copies its parent with probability 0.5, else draws from that same
# leaning distribution. Each variable's marginal so differs between components by about
# 0.8 nats (KL), and the true posterior puts about 92% of rows in their own component, while
# no CPT entry is below 0.075 (no near-deterministic component that another could absorb).
D3, S3 = 9, 3
COLUMNS3 = [f"v{i}" for i in range(D3)]
TREES3 = [
    ([0, 1, 2, 3, 4, 5, 6, 7, 8], [-1, 0, 1, 2, 3, 4, 5, 6, 7]),  # chain 0-1-...-8
    ([0, 1, 2, 3, 4, 5, 6, 7, 8], [-1, 0, 0, 0, 0, 0, 0, 0, 0]),  # star around v0
    ([4, 8, 1, 2, 6, 7, 3, 0, 5], [-1, 0, 0, 1, 1, 2, 2, 3, 3]),  # binary tree rooted at v4
]  # (variables in topological order, position of each one's parent in that order)
WEIGHTS3 = np.array([0.5, 0.3, 0.2])


def _component3(k: int) -> list[tuple[int, int | None, np.ndarray]]:
    """(variable, parent variable or None, CPT) of component ``k``, parents first."""
    lean = np.full(S3, 0.15)
    lean[k] = 0.7
    order, parent = TREES3[k]
    return [
        (v, None, lean) if p < 0 else (v, order[p], 0.5 * np.eye(S3) + 0.5 * lean[None, :])
        for v, p in zip(order, parent)
    ]


def _edges3(k: int) -> set:
    return {frozenset((COLUMNS3[v], COLUMNS3[p])) for v, p, _ in _component3(k) if p is not None}


def sample_mixture3(n: int, rng: np.random.Generator) -> tuple[pd.DataFrame, np.ndarray]:
    """Ancestral sampling in plain numpy: the component, then each variable given its parent."""
    z = rng.choice(3, size=n, p=WEIGHTS3)
    X = np.zeros((n, D3), dtype=np.int64)
    for k in range(3):
        rows = np.flatnonzero(z == k)
        for v, p, cpt in _component3(k):
            probs = cpt[None, :].repeat(len(rows), 0) if p is None else cpt[X[rows, p]]
            X[rows, v] = (rng.random((len(rows), 1)) > np.cumsum(probs, axis=1)).sum(axis=1)
    return pd.DataFrame(X, columns=COLUMNS3), z


def true_log_joint3(df: pd.DataFrame) -> np.ndarray:
    """``log w_k + log T_k(x_r)`` under the true parameters: products of CPT entries."""
    X = df[COLUMNS3].to_numpy()
    out = np.tile(np.log(WEIGHTS3), (len(X), 1))
    for k in range(3):
        for v, p, cpt in _component3(k):
            out[:, k] += np.log(cpt[X[:, v]] if p is None else cpt[X[:, p], X[:, v]])
    return out


def test_the_three_true_trees_are_spanning_trees_sharing_at_most_one_edge():
    for k in range(3):
        G = nx.Graph([tuple(e) for e in _edges3(k)])
        assert nx.is_tree(G) and sorted(G) == sorted(COLUMNS3)
    assert [len(_edges3(a) & _edges3(b)) for a, b in [(0, 1), (0, 2), (1, 2)]] == [1, 0, 1]


@pytest.fixture(scope="module")
def mixture3_data():
    rng = np.random.default_rng(0)
    return sample_mixture3(20_000, rng), sample_mixture3(10_000, rng)


@pytest.mark.parametrize("init", ["random", "k-means++"])
def test_recovers_a_well_separated_three_component_mixture(mixture3_data, init):
    from scipy.optimize import linear_sum_assignment
    from scipy.special import logsumexp

    (train, z), (test, _) = mixture3_data
    n = len(train)
    mix = tl.TreeMixture(
        n_components=3,
        alpha=1.0,
        n_init=3,
        init=init,
        random_state=0,
        states={c: [0, 1, 2] for c in COLUMNS3},
    ).fit(train)
    # match components by the rows they claim: the assignment maximising agreement with the
    # true labels (independent of the trees, which are then checked)
    agree = np.zeros((3, 3))
    np.add.at(agree, (z, mix.predict(train)), 1)
    true_k, learned_k = linear_sum_assignment(-agree)
    # nearly crisp: as many rows put in their true component as the truth's own posterior does
    bayes = np.mean(np.argmax(true_log_joint3(train), axis=1) == z)
    assert agree[true_k, learned_k].sum() / n >= bayes - 0.005
    for k, j in zip(true_k, learned_k):
        learned_edges = {frozenset(e) for e in mix.components_[j].graph.to_undirected().edges}
        assert learned_edges == _edges3(k)
        # the multinomial sampling noise of the component sizes: 5 standard errors
        assert abs(mix.weights_[j] - WEIGHTS3[k]) < 5 * np.sqrt(WEIGHTS3[k] * (1 - WEIGHTS3[k]) / n)
    # held-out: a fit with p = 3 x (2 + 8 x 6) + 2 = 152 free parameters loses about
    # p / (2 n) = 0.004 nats per row to the truth; 0.015 allows that, the Laplace smoothing
    # and the noise of the 10,000 test rows (the same rows for both)
    truth = float(np.mean(logsumexp(true_log_joint3(test), axis=1)))
    assert abs(mix.score(test) - truth) < 0.015
    assert mix.score(test) > tl.chow_liu(train, alpha=1.0).log_likelihood(test) / len(test) + 0.3


# ---------------------------------------------------------------- EM over missing cells, brute force
@pytest.fixture(scope="module")
def holed():
    """300 rows of four small variables (one with three states), 25% of the cells hidden."""
    rng = np.random.default_rng(11)
    n = 300
    a = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    b = np.where(rng.random(n) < 0.8, a % 2, 1 - a % 2)
    c = np.where(rng.random(n) < 0.7, b, rng.integers(0, 2, n))
    d = np.where(rng.random(n) < 0.75, (a == 2).astype(int), rng.integers(0, 2, n))
    df = pd.DataFrame({"a": a, "b": b, "c": c, "d": d}).astype(object)
    return df.mask(rng.random(df.shape) < 0.25)


def test_em_over_missing_cells_is_the_brute_force_em_step(holed):
    variables = list(holed.columns)
    opts = dict(n_components=2, alpha=0.0, missing="em", tol=0.0, random_state=3)
    before = tl.TreeMixture(max_iter=3, **opts).fit(holed)
    after = tl.TreeMixture(max_iter=4, **opts).fit(holed)  # the same run, one EM step further
    joints, weights = mixture_em_step(before.weights_, before.components_, holed)
    np.testing.assert_allclose(after.weights_, weights, rtol=1e-9)
    for j, c in enumerate(after.components_):
        learned = [
            joint_probability(c, dict(zip(variables, s)))
            for s in itertools.product(*(c.states[v] for v in variables))
        ]
        np.testing.assert_allclose(learned, joints[j], rtol=1e-8, atol=1e-12)


def test_em_over_missing_cells_never_lowers_the_observed_likelihood(holed):
    mix = tl.TreeMixture(
        n_components=2, alpha=0.0, missing="em", tol=0.0, max_iter=25, random_state=0
    ).fit(holed)
    # from the second iteration on every step is a full EM step (the first M-step used
    # the observed pairs only)
    assert (np.diff(mix.lower_bounds_[1:]) >= -1e-10).all()
    # the bound is the observed-data log-likelihood per row, every missing cell summed out
    observed = np.mean(
        [
            math.log(
                sum(w * marginal_probability(c, r) for w, c in zip(mix.weights_, mix.components_))
            )
            for r in holed.to_dict("records")
        ]
    )
    assert mix.lower_bound_ == pytest.approx(observed, abs=1e-10)
    # and beats the fit that drops the incomplete rows, on the observed cells of all rows
    dropped = tl.TreeMixture(n_components=2, alpha=1.0, missing="drop", random_state=0).fit(holed)
    em = tl.TreeMixture(n_components=2, alpha=1.0, missing="em", random_state=0).fit(holed)
    assert em.score(holed) > dropped.score(holed)


# ---------------------------------------------------------------- merged identical rows
def test_identical_rows_are_merged_exactly(mixture_data):
    from treelearn.encoding._table import encode
    from treelearn.sources._passes import merge_identical_rows

    table = encode(mixture_data[0].iloc[:3000])
    merged, group = merge_identical_rows(table)
    assert len(merged.codes) == len({tuple(r) for r in table.codes.tolist()}) < 3000
    assert (merged.codes[group] == table.codes).all()  # every row is its merged row
    assert merged.weights.tolist() == np.bincount(group).tolist()
    weights = np.random.default_rng(0).random(3000)
    again, _ = merge_identical_rows(encode(mixture_data[0].iloc[:3000], sample_weight=weights))
    np.testing.assert_allclose(again.weights, np.bincount(group, weights=weights), rtol=1e-12)


@pytest.mark.parametrize("init", ["random", "k-means++", "random_resp"])
def test_merging_rows_changes_nothing_but_the_speed(mixture_data, monkeypatch, init):
    """The same fit with merging switched off: every row its own (the draws are the same)."""
    import treelearn.sources._passes as module  # where the rows are merged for EM

    train = mixture_data[0].iloc[:4000]
    opts = dict(n_components=3, alpha=0.5, max_iter=12, tol=0.0, init=init, random_state=4)
    merged = tl.TreeMixture(**opts).fit(train)
    monkeypatch.setattr(
        module, "merge_identical_rows", lambda table: (table, np.arange(table.n_rows))
    )
    plain = tl.TreeMixture(**opts).fit(train)
    np.testing.assert_allclose(merged.lower_bounds_, plain.lower_bounds_, rtol=1e-10)
    np.testing.assert_allclose(merged.weights_, plain.weights_, rtol=1e-9)
    assert [set(c.graph.edges) for c in merged.components_] == [
        set(c.graph.edges) for c in plain.components_
    ]


def test_random_starts_never_seed_two_components_with_the_same_row():
    """asia repeats its rows (10,000 rows, 57 distinct): two random seeds drawn on the same
    values start two identical components, which EM never separates (random_state=0 did)."""
    df = pd.read_csv(os.path.join(HERE, "..", "datasets", "asia.csv"))
    for seed in range(6):
        mix = tl.TreeMixture(n_components=3, random_state=seed).fit(df)
        probs = [np.exp(c.log_likelihood(df, per_row=True)) for c in mix.components_]
        for a in range(3):
            for b in range(a + 1, 3):
                assert np.abs(probs[a] - probs[b]).max() > 1e-3, (seed, a, b)


# ---------------------------------------------------------------- any input kind
def test_a_file_and_a_sparse_matrix_fit_the_in_memory_mixture(tmp_path, mixture_data):
    import scipy.sparse as sp

    train = mixture_data[0].iloc[:2000]
    opts = dict(n_components=2, random_state=0, max_iter=20)
    expected = tl.TreeMixture(**opts).fit(train)
    train.to_csv(tmp_path / "rows.csv", index=False)
    train.to_parquet(tmp_path / "rows.parquet")
    matrix = sp.csr_matrix(train.to_numpy(dtype=np.int64))
    fits = [
        tl.TreeMixture(**opts).fit(tmp_path / "rows.csv"),
        tl.TreeMixture(**opts).fit(str(tmp_path / "rows.parquet")),
        tl.TreeMixture(**opts).fit(matrix),
    ]
    for fitted in fits:
        np.testing.assert_array_equal(fitted.weights_, expected.weights_)
        assert fitted.lower_bounds_ == expected.lower_bounds_
    # the sparse matrix's variables are 0 .. d-1: the same trees under those names
    renamed = train.set_axis(range(D), axis=1)
    np.testing.assert_array_equal(fits[2].score_samples(renamed), expected.score_samples(train))
    # an array is the table of its columns x0, x1, ... (as a classifier takes it), scored by position
    by_position = tl.TreeMixture(**opts).fit(train.to_numpy())
    assert list(by_position.feature_names_in_) == [f"x{j}" for j in range(D)]
    assert by_position.lower_bounds_ == expected.lower_bounds_
    np.testing.assert_array_equal(
        by_position.score_samples(train.to_numpy()), expected.score_samples(train)
    )
    with pytest.raises(tl.InputTypeError, match="NoneType"):
        tl.TreeMixture().fit(None)


# ---------------------------------------------------------------------- Hypothesis: random tables, weights
@FAST
@given(tables(min_columns=3))
def test_a_mixture_of_one_tree_is_the_chow_liu_tree(data):
    df, w = data
    try:
        mix = tl.TreeMixture(n_components=1, alpha=1.0, random_state=0).fit(df, sample_weight=w)
    except tl.TreelearnError:
        return
    tree = tl.chow_liu(df, sample_weight=w, alpha=1.0)
    np.testing.assert_allclose(
        mix.score_samples(df), tree.log_likelihood(df, per_row=True), rtol=1e-10, atol=1e-10
    )


# ---------------------------------------------------------------------------------- hostile inputs
SMALL, SMALL_Y = three_small_columns()  # 80 rows of 3 small columns, 80 labels


def test_mixture_components_guarded_before_allocating():
    with pytest.raises(tl.ResourceLimitError, match=r"TreeMixture\(n_components=1000000000\)"):
        tl.TreeMixture(n_components=10**9).fit(SMALL)


def test_a_collapsing_mixture_component_is_no_cpt_error():
    # k=3, alpha=0 on 500 rows of a chain: a component losing its rows made a CPT of 0/0
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, 500)
    y = x ^ (rng.random(500) < 0.1)
    chain = pd.DataFrame({"x": x, "y": y, "z": y ^ (rng.random(500) < 0.1)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mix = tl.TreeMixture(n_components=3, alpha=0, random_state=0).fit(chain)
    scores = mix.score_samples(chain)
    assert np.isfinite(scores).all()
    np.testing.assert_allclose(mix.weights_.sum(), 1.0, atol=1e-12)
