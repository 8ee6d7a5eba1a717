"""Predictions of the single-network classifiers (naive Bayes, TAN, KDB) in blocks of rows
(issue 41: memory that grows with rows x columns only in the codes themselves).

The every-class gather of complete rows (``class_joint_log_likelihood``) and the engine's
pass over rows with missing values run a block of rows at a time. Each check compares
against an independent computation: the per-class gather of
``TreeModel.complete_log_likelihood`` for complete rows, the engine over all rows at once
for the others, brute-force summing-out of the full joint for a missing feature, and
scikit-learn's CategoricalNB for naive Bayes on plain integer arrays. The blocks are made
tiny (a few rows, a ragged last one) so that every boundary is crossed.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB

import treelearn as tl
from treelearn.classifiers import _network, _state_codes
from treelearn.classifiers._state_codes import class_joint_log_likelihood

CLASSIFIERS = {
    "naive_bayes": lambda: tl.NaiveBayes(numbers="states", unseen="ignore"),
    "tan": lambda: tl.TAN(numbers="states", unseen="ignore"),
    "kdb2": lambda: tl.KDB(k=2, numbers="states", unseen="ignore"),
}


def codes_problem(seed: int, n: int, cards: list[int]) -> tuple:
    """Integer codes whose class depends on two features (so the fitted CPTs differ by
    class), and test rows."""
    rng = np.random.default_rng(seed)
    Z = np.column_stack([rng.integers(0, k, size=n) for k in cards])
    noise = rng.integers(0, 3, size=n)
    y = np.where(Z[:, 0] + Z[:, 1] + noise > 3, "yes", "no")
    Zt = np.column_stack([rng.integers(0, k, size=n // 2 + 7) for k in cards])
    return rng, Z, y, Zt


@pytest.fixture
def tiny_blocks(monkeypatch):
    """Blocks of a few rows: 64 cells of variables x rows for the gather (9 rows of 7
    variables, a ragged last block), 3 rows for the engine."""
    monkeypatch.setattr(_state_codes, "_BLOCK_CELLS", 64)
    monkeypatch.setattr(_network, "_BLOCK_CELLS", 1)
    monkeypatch.setattr(_network, "_MIN_BLOCK_ROWS", 3)


@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
def test_the_blocked_gather_equals_a_gather_per_class(name, tiny_blocks):
    _, Z, y, Zt = codes_problem(1, 500, [2, 3, 4, 2, 3, 5])
    clf = CLASSIFIERS[name]().fit(Z, y)
    model = clf.model_
    codes = clf._prediction_input(Zt)
    k = len(clf.classes_)
    fast = class_joint_log_likelihood(model, clf.class_name_, codes, k)
    klass = list(model.variables).index(clf.class_name_)
    for c in range(k):  # the exact gather of TreeModel.complete_log_likelihood, class c
        full = np.insert(codes, klass, c, axis=1)
        np.testing.assert_array_equal(fast[:, c], model.complete_log_likelihood(full))
    # rows picked by position: those rows of the whole answer, in the order given
    which = np.array([7, 3, 3, 250, 0, len(codes) - 1, 11, 12, 13, 14, 15])
    picked = class_joint_log_likelihood(model, clf.class_name_, codes, k, which=which)
    np.testing.assert_array_equal(picked, fast[which])


@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
def test_rows_with_missing_values_in_blocks_equal_one_engine_pass(name, tiny_blocks):
    rng, Z, y, Zt = codes_problem(2, 400, [3, 2, 4, 3, 2])
    clf = CLASSIFIERS[name]().fit(Z, y)
    Zt = Zt.copy()
    Zt[rng.random(len(Zt)) < 0.3, 2] = 99  # unseen: summed out as missing
    Zt[rng.random(len(Zt)) < 0.2, 0] = 99
    codes = clf._prediction_input(Zt)
    assert 0 < (codes < 0).any(axis=1).sum() < len(codes)  # both kinds of rows
    got = clf.predict_joint_log_proba(Zt)
    # one pass of the engine over every row (complete ones too), the class unobserved
    full = np.column_stack([codes, np.full(len(codes), -1)])
    whole = clf.model_.engine(clf.class_name_).log_evidence_by_conditioner(full)
    np.testing.assert_allclose(got, whole, rtol=0, atol=1e-12)  # gather vs messages
    incomplete = (codes < 0).any(axis=1)
    if clf.model_.engine(clf.class_name_).is_tree:
        # a forest's messages: each row's doubles do not depend on the rows beside it
        np.testing.assert_array_equal(got[incomplete], whole[incomplete])
    else:
        # KDB's network is no forest: variable elimination by np.einsum(optimize=True),
        # whose contraction order depends on the number of rows (a last-digit change, as
        # it always did with the number of incomplete rows given)
        np.testing.assert_allclose(got[incomplete], whole[incomplete], rtol=1e-14, atol=0)


def test_a_missing_feature_is_summed_out_of_the_full_joint(tiny_blocks):
    # brute force: log sum over the missing feature's states of the complete rows' joint
    _, Z, y, Zt = codes_problem(3, 300, [2, 3, 2, 4])
    clf = tl.TAN(numbers="states", unseen="ignore").fit(Z, y)
    Zt = Zt[:40].copy()
    Zt[::3, 1] = 99
    got = clf.predict_joint_log_proba(Zt)
    codes = clf._prediction_input(Zt)
    model, k = clf.model_, len(clf.classes_)
    klass = list(model.variables).index(clf.class_name_)
    for r in range(len(codes)):
        options = [codes[r].copy()]
        if codes[r, 1] < 0:
            options = [np.where(np.arange(4) == 1, s, codes[r]) for s in range(3)]
        for c in range(k):
            full = np.array([np.insert(o, klass, c) for o in options])
            want = np.logaddexp.reduce(model.complete_log_likelihood(full))
            assert got[r, c] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_naive_bayes_on_plain_integer_arrays_is_categorical_nb(dtype):
    # more rows than one block of the gather (2**15 cells / 11 variables = 2,978 rows)
    cards = [2, 3, 4, 2, 5, 3, 2, 4, 3, 2]
    rng, Z, y, _ = codes_problem(4, 8_000, cards)
    Zt = np.column_stack([rng.integers(0, k, size=7_001) for k in cards]).astype(dtype)
    # class_arcs="all": CategoricalNB's model, the plain Lidstone CPTs (not the average)
    ours = tl.NaiveBayes(numbers="states", class_arcs="all").fit(Z.astype(dtype), y)
    sk = CategoricalNB(alpha=1.0, min_categories=cards).fit(Z, y)
    np.testing.assert_array_equal(ours.classes_, sk.classes_)
    # the same posteriors to round-off (sums of the same logs in another order)
    np.testing.assert_allclose(ours.predict_proba(Zt), sk.predict_proba(Zt), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(Zt), sk.predict(Zt))


def test_the_caller_codes_are_not_changed():
    _, Z, y, Zt = codes_problem(5, 600, [3, 3, 2])
    Zt[::5, 0] = 99
    kept = Zt.copy()
    tl.TAN(numbers="states", unseen="ignore").fit(Z, y).predict_proba(Zt)
    np.testing.assert_array_equal(Zt, kept)


def traced_peak(fn) -> int:
    fn()  # caches built on the first call (the log-CPT index, the engine)
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("missing", [0.0, 0.5])
@pytest.mark.parametrize("name", ["naive_bayes", "tan"])
def test_prediction_memory_is_the_codes_and_a_fixed_block(name, missing):
    # 40,000 rows x 30 int64 codes (9.2 MiB): the prediction holds one intp copy of the
    # codes (the caller's array is kept) and per block temporaries of a fixed size (the
    # gather's 2**15 cells, the engine's some 3 MiB): 1.15x to 1.59x the codes; before the
    # blocks it held the (variables x rows) index, gathered logs and engine messages of
    # every row at once: 4.17x (complete rows) to 11.35x (TAN, half the rows missing a
    # value). tracemalloc counts numpy's allocations, not timing: the bound is issue 41's
    cards = [2 + j % 4 for j in range(30)]
    rng, Z, y, _ = codes_problem(6, 4_000, cards)
    Zt = np.column_stack([rng.integers(0, k, size=40_000) for k in cards])
    Zt[rng.random(len(Zt)) < missing, 3] = 99
    clf = CLASSIFIERS[name]().fit(Z, y)
    peak = traced_peak(lambda: clf.predict_proba(Zt))
    assert peak <= 2 * Zt.nbytes, f"{peak / Zt.nbytes:.2f}x the codes"
