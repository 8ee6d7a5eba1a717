"""AnDE: n=1 is AODE exactly; n=2 (A2DE) against a direct implementation of the formula
from the joint counts (pandas groupby over the rows), on small data."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import treelearn as tl


def data(n: int, seed: int, missing: bool = False) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    cols, prev = {}, rng.integers(0, 2, n)
    for j, k in enumerate((2, 3, 2, 3, 2)):
        keep = rng.random(n) < 0.6
        cols[f"f{j}"] = np.where(keep, (prev + y + j) % k, rng.integers(0, k, n))
        prev = cols[f"f{j}"]
    X = pd.DataFrame(cols)
    if missing:
        X = X.astype(float)
        X.loc[rng.random(n) < 0.1, "f2"] = np.nan
    return X, pd.Series(np.array(["a", "b", "c"])[y], name="C")


def a2de_direct(X, y, test, alpha, min_count):
    """p(y | x) of A2DE, term by term from counts over the rows (AODE where no pair
    qualifies)."""
    classes = sorted(y.unique())
    states = {f: sorted(X[f].dropna().unique()) for f in X}
    out = []
    for _, row in test.iterrows():
        joint = np.full(len(classes), -np.inf)
        used = 0
        for i, j in itertools.combinations(X.columns, 2):
            xi, xj = row[i], row[j]
            if pd.isna(xi) or pd.isna(xj):
                continue
            both = X[i].notna() & X[j].notna()
            pair = both & (X[i] == xi) & (X[j] == xj)
            if pair.sum() < min_count:
                continue
            used += 1
            for ci, c in enumerate(classes):
                sel = pair & (y == c)
                lp = np.log(
                    (sel.sum() + alpha)
                    / (both.sum() + alpha * len(classes) * len(states[i]) * len(states[j]))
                )
                for other in X.columns:
                    if other in (i, j) or pd.isna(row[other]):
                        continue
                    den = (sel & X[other].notna()).sum()
                    num = (sel & (X[other] == row[other])).sum()
                    k = len(states[other])
                    lp += (
                        np.log((num + alpha) / (den + alpha * k))
                        if den + alpha * k > 0
                        else np.log(1 / k)
                    )
                joint[ci] = np.logaddexp(joint[ci], lp)
        if used == 0:
            return None  # (not in these tests: every row has a pair)
        joint -= np.log(used)
        out.append(np.exp(joint - np.logaddexp.reduce(joint)))
    return np.array(out)


@pytest.mark.parametrize(
    ("alpha", "min_count", "missing"), [(1.0, 1, False), (0.5, 5, True), (0.0, 1, False)]
)
def test_a2de_matches_the_formula_from_joint_counts(alpha, min_count, missing):
    X, y = data(150, seed=4, missing=missing)
    clf = tl.AnDE(numbers="states", n=2, alpha=alpha, min_count=min_count).fit(X, y)
    test = X.iloc[:25]
    with np.errstate(divide="ignore"):
        want = a2de_direct(X, y, test, alpha, min_count)
        np.testing.assert_allclose(clf.predict_proba(test), want, rtol=1e-9, atol=1e-12)


def test_rows_without_a_qualifying_pair_are_aode():
    X, y = data(120, seed=5)
    clf = tl.AnDE(n=2, min_count=10**6).fit(X, y)  # no pair qualifies: AODE's answer
    np.testing.assert_allclose(
        clf.predict_proba(X),
        tl.AODE(min_count=10**6).fit(X, y).predict_proba(X),
        rtol=0,
        atol=1e-14,
    )


def test_n1_is_aode_and_n2_saves_partial_fits_and_checks_memory(tmp_path, monkeypatch):
    X, y = data(300, seed=6)
    np.testing.assert_array_equal(
        tl.AnDE(numbers="states", n=1).fit(X, y).predict_proba(X),
        tl.AODE(numbers="states").fit(X, y).predict_proba(X),
    )
    ref = tl.AnDE(numbers="states", n=2).fit(X, y)
    clf = tl.AnDE(numbers="states", n=2)
    for part in np.array_split(np.arange(300), 3):
        clf.partial_fit(
            X.iloc[part],
            y.iloc[part],
            classes=["a", "b", "c"],
            states={f: sorted(X[f].unique()) for f in X} if part[0] == 0 else None,
        )
    clf.learn_chunks()  # the model, learned from the summed counts
    np.testing.assert_allclose(clf.triple_counts_, ref.triple_counts_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(clf.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-12)
    path = tmp_path / "a2de.json"
    ref.save(path)
    np.testing.assert_array_equal(tl.load(path).predict_proba(X), ref.predict_proba(X))
    # the triple counts' size is checked before they are allocated
    import treelearn._base.limits as limits

    # above the pair tables' 3 x (3 x 12 x 12) x 8 = 10,368 bytes (guarded too), below the
    # triple counts' 8 x 3 x 3 x 13**3 = 158,184
    monkeypatch.setattr(limits, "MEMORY_LIMIT", 50_000)
    with pytest.raises(
        tl.ResourceLimitError,
        match=r"A2DE's class-conditional triple counts"
        r".*AnDE\(n=1\)",
    ):
        tl.AnDE(numbers="states", n=2).fit(X, y)
    assert tl.AnDE.memory_bytes(3, 12) == 8 * 3 * 3 * 13**3


@pytest.mark.parametrize("weighted", [False, True])
def test_triple_counts_are_the_sum_over_rows_of_three_indicators(weighted):
    # the symmetric products (only the triples whose first variable comes first, the rest
    # by transposes and the pair counts) against the definition, sum_r w_r e_a e_b e_c
    from treelearn.classifiers._ande import triple_counts
    from treelearn.stats._counts import offsets_of

    rng = np.random.default_rng(3)
    cards = np.array([2, 3, 1, 4, 2])
    n = 300
    codes = np.column_stack([rng.integers(0, k, n) for k in cards] + [rng.integers(0, 3, n)])
    codes[:, :5][rng.random((n, 5)) < 0.1] = -1  # missing: no indicator
    w = rng.random(n) * 3 if weighted else None
    offsets = offsets_of(cards)
    E = np.zeros((n, int(offsets[-1])))
    for j in range(5):
        seen = codes[:, j] >= 0
        E[np.flatnonzero(seen), offsets[j] + codes[seen, j]] = 1.0
    weight = np.ones(n) if w is None else w
    want = np.stack(
        [np.einsum("r,ra,rb,rc->abc", weight * (codes[:, 5] == c), E, E, E) for c in range(3)]
    )
    got = triple_counts(codes, w, cards, 3)
    if weighted:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_array_equal(got, want)  # whole counts, exactly
