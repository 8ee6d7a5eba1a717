"""Naive Bayes on integer codes, the fast path (issue 41): a fit that counts only the star's
families (no class-conditional pair counts) and a prediction that reads codes 0..k-1 as
themselves. Each is checked against what it replaces (the pair-count construction, the
lookup-table and general encodings) and against scikit-learn's CategoricalNB."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import CategoricalNB

import treelearn as tl
from treelearn.classifiers._state_codes import known_state_codes
from treelearn.encoding._table import encode


def PairCountNaiveBayes(**options):
    """The construction before this path: the fit also counts every class-conditional
    pair of features (``_needs_pairs``) and the star's families are read off them (set on
    the instance: a subclass would save another class name)."""
    clf = tl.NaiveBayes(**options)
    clf._needs_pairs = True
    return clf


def random_codes(rng, n, cards):
    return np.column_stack([rng.integers(0, k, size=n) for k in cards]).astype(np.int64)


def problem(seed, n=600):
    """Codes with 1-5 states per column (two one-state columns) and a 3-class label that
    depends on two of them."""
    rng = np.random.default_rng(seed)
    cards = [1, 2, 3, 5, 4, 1, 2, 3]
    Z = random_codes(rng, n, cards)
    y = (Z[:, 3] + Z[:, 4] + rng.integers(0, 3, size=n)) % 3
    return rng, cards, Z, y


def assert_same_classifier(a, b, path_a, path_b, rows):
    """Every fitted attribute, every CPT, the predictions and the saved bytes equal."""
    assert a.model_.variables == b.model_.variables
    assert a.model_.parent_map == b.model_.parent_map
    assert a.model_.states == b.model_.states
    for v in a.model_.variables:
        np.testing.assert_array_equal(a.model_.cpt(v), b.model_.cpt(v))
    for name in ("classes_", "class_count_", "class_log_prior_", "feature_names_in_"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.model_.to_dict() == b.model_.to_dict()
    np.testing.assert_array_equal(a.predict_proba(rows), b.predict_proba(rows))
    a.save(path_a)
    b.save(path_b)
    assert path_a.read_bytes() == path_b.read_bytes()


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"alpha": 0.5, "class_prior": [0.2, 0.3, 0.5]},
        {"prior": "bdeu", "equivalent_sample_size": 4.0},
        {"prior": "m-estimate", "m": 2.0, "fit_prior": False},
    ],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_the_star_without_pair_counts_is_the_pair_count_construction(options, weighted, tmp_path):
    rng, _cards, Z, y = problem(1)
    w = rng.uniform(0.1, 3.0, size=len(y)) if weighted else None
    fast = tl.NaiveBayes(numbers="states", **options).fit(Z, y, sample_weight=w)
    old = PairCountNaiveBayes(numbers="states", **options).fit(Z, y, sample_weight=w)
    assert fast._chunks.joints is None and old._chunks.joints is not None  # no pairs counted
    assert_same_classifier(fast, old, tmp_path / "a.json", tmp_path / "b.json", Z[:50])


def test_partial_fit_goes_on_from_a_fit_and_chunks_add_up_without_pair_counts(tmp_path):
    rng, _cards, Z, y = problem(2, n=900)
    w = rng.integers(1, 4, size=len(y)).astype(float)
    # a fit, then two more chunks
    fast = tl.NaiveBayes(numbers="states").fit(Z[:300], y[:300], sample_weight=w[:300])
    old = PairCountNaiveBayes(numbers="states").fit(Z[:300], y[:300], sample_weight=w[:300])
    for clf in (fast, old):
        clf.partial_fit(Z[300:600], y[300:600], sample_weight=w[300:600])
        clf.partial_fit(Z[600:], y[600:], sample_weight=w[600:]).learn_chunks()
    assert_same_classifier(fast, old, tmp_path / "a.json", tmp_path / "b.json", Z[:50])
    # chunks from the first call equal one fit on every row
    whole = tl.NaiveBayes(numbers="states").fit(Z, y, sample_weight=w)
    chunked = tl.NaiveBayes(numbers="states")
    for part in np.array_split(np.arange(len(y)), 3):
        chunked.partial_fit(Z[part], y[part], classes=[0, 1, 2], sample_weight=w[part])
    chunked.learn_chunks()
    for v in whole.model_.variables:
        np.testing.assert_allclose(chunked.model_.cpt(v), whole.model_.cpt(v), rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_posteriors_are_categorical_nb_with_weights_and_class_prior(seed):
    rng, cards, Z, y = problem(10 + seed, n=800)
    Zt = random_codes(rng, 300, cards)
    w = rng.uniform(0.2, 2.0, size=len(y))
    prior = rng.dirichlet(np.ones(3))
    for alpha, kw_sk, kw_ours in [
        (1.0, {}, {}),
        (0.3, {"class_prior": prior}, {"class_prior": prior}),
        (2.0, {"fit_prior": False}, {"fit_prior": False}),
    ]:
        sk = CategoricalNB(alpha=alpha, min_categories=cards, **kw_sk).fit(Z, y, sample_weight=w)
        # the peer's plain CPTs: every class arc kept (class_arcs="all"), not averaged
        ours = tl.NaiveBayes(alpha=alpha, numbers="states", class_arcs="all", **kw_ours).fit(
            Z, y, sample_weight=w
        )
        np.testing.assert_allclose(
            ours.predict_proba(Zt), sk.predict_proba(Zt), rtol=0, atol=1e-12
        )  # the same posteriors to round-off (two sums of logs in another order)


def test_an_unseen_code_is_left_out_or_refused():
    rng, cards, Z, y = problem(20)
    Zt = random_codes(rng, 40, cards)
    Zt[0, 2] = 7  # column x2 has states 0..2: 7 was never seen
    Zt[1, 4] = -3
    with pytest.raises(tl.TreelearnError, match="x2"):
        tl.NaiveBayes(numbers="states").fit(Z, y).predict_proba(Zt)
    # the peer's plain CPTs: every class arc kept (class_arcs="all"), not averaged
    ours = tl.NaiveBayes(numbers="states", unseen="ignore", class_arcs="all").fit(Z, y)
    p = ours.predict_proba(Zt)
    # an unseen value is a missing one: the row's posterior is CategoricalNB's without it
    for row, column in [(0, 2), (1, 4)]:
        keep = [j for j in range(len(cards)) if j != column]
        cards_kept = [cards[j] for j in keep]
        sk = CategoricalNB(alpha=1.0, min_categories=cards_kept).fit(Z[:, keep], y)
        np.testing.assert_allclose(
            p[row], sk.predict_proba(Zt[[row]][:, keep])[0], rtol=0, atol=1e-12
        )
    sk = CategoricalNB(alpha=1.0, min_categories=cards).fit(Z, y)
    np.testing.assert_allclose(p[2:], sk.predict_proba(Zt[2:]), rtol=0, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64, np.uint8, np.uint32, np.uint64])
@pytest.mark.parametrize("unseen", ["error", "ignore"])
def test_codes_0_to_k_read_as_themselves_equal_the_general_encoding(dtype, unseen):
    rng = np.random.default_rng(5)
    cards = [1, 2, 4, 3]
    states = [list(range(k)) for k in cards]
    names = ["a", "b", "c", "d"]
    values = random_codes(rng, 300, cards)
    if unseen == "ignore":  # values outside the states (above k; below 0 where signed)
        values[rng.integers(0, 300, size=20), rng.integers(0, 4, size=20)] = 9
        if np.dtype(dtype).kind == "i":
            values[rng.integers(0, 300, size=20), rng.integers(0, 4, size=20)] = -2
    frame = pd.DataFrame(values.astype(dtype), columns=names)
    fast = known_state_codes(frame, names, states, unseen)
    general = encode(
        frame, missing="pairwise", states=dict(zip(names, states)), max_states=10**9, unseen=unseen
    ).codes
    assert fast is not None
    np.testing.assert_array_equal(fast, general)
    assert frame.to_numpy().dtype == dtype  # the caller's data untouched
    # a state list in another order takes the lookup table, with the same codes
    shuffled = [s[::-1] for s in states]
    other = known_state_codes(frame, names, shuffled, unseen)
    np.testing.assert_array_equal(
        other,
        encode(
            frame,
            missing="pairwise",
            states=dict(zip(names, shuffled)),
            max_states=10**9,
            unseen=unseen,
        ).codes,
    )


def test_an_unseen_code_under_error_leaves_the_words_to_the_general_path():
    frame = pd.DataFrame({"a": np.array([0, 1, 2], dtype=np.int64)})
    assert known_state_codes(frame, ["a"], [[0, 1]], "error") is None
    assert known_state_codes(frame, ["a"], [[0, 1]], "ignore").tolist() == [[0], [1], [-1]]
    big = pd.DataFrame({"a": np.array([0, 2**63 + 1], dtype=np.uint64)})
    assert known_state_codes(big, ["a"], [[0, 1]], "ignore") is None  # beyond int64: general
