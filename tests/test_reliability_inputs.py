"""Issue 26's hostile inputs of the surfaces added since issue 22: each case below crashed
with a raw exception, allocated without a guard or gave a silently wrong answer; each is
now a TreelearnError naming the problem, or the exact answer."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import treelearn as tl

RNG = np.random.default_rng(26)
CAT = pd.DataFrame(
    {"a": RNG.integers(0, 2, 80), "b": RNG.integers(0, 3, 80), "c": RNG.integers(0, 2, 80)}
)
Y = RNG.integers(0, 2, 80)


# ---------------------------------------------------------------------- Discretizer
def test_quantile_edges_are_rounded_only_as_far_as_the_bins_keep_their_values():
    # 400 values in [1000, 1001): the median cut rounded to 3 digits (1000) emptied a bin
    values = pd.DataFrame({"x": 1000 + RNG.random(400)})
    d = tl.Discretizer(bins=2).fit(values)
    got = d.transform(values)["x"].value_counts(sort=False).tolist()
    median = np.quantile(values["x"], 0.5)
    assert got == [int((values["x"] <= median).sum()), int((values["x"] > median).sum())]
    assert got == [200, 200]


def test_discretizer_bad_columns_are_named():
    with pytest.raises(tl.TreelearnError, match=r"\['a'\] occur more than once"):
        tl.Discretizer().fit(pd.DataFrame([[1.0, 2.0]] * 10, columns=["a", "a"]))
    d = tl.Discretizer(bins=2).fit(pd.DataFrame({"x": np.arange(10.0)}))
    with pytest.raises(tl.NumericColumnError, match=r"column 'x' has dtype .*not numbers"):
        d.transform(pd.DataFrame({"x": ["a", "b"]}))


def test_times_keep_their_zone():
    aware = pd.DataFrame(
        {"t": pd.date_range("2021-01-01", periods=48, freq="h", tz="Europe/Berlin")}
    )
    d = tl.Discretizer(bins=2).fit(aware)
    naive = pd.DataFrame({"t": aware["t"].dt.tz_localize(None)})  # wall clock, 1 h ahead of UTC
    with pytest.raises(tl.NumericColumnError, match=r"naive times.*Europe/Berlin"):
        d.transform(naive)
    # the same instants in another zone: the same bins
    utc = pd.DataFrame({"t": aware["t"].dt.tz_convert("UTC")})
    assert d.transform(utc)["t"].tolist() == d.transform(aware)["t"].tolist()
    from treelearn import _io

    back = _io.loads(_io.dumps(d))
    with pytest.raises(tl.NumericColumnError, match="naive times"):
        back.transform(naive)
    learned_naive = tl.Discretizer(bins=2).fit(naive)
    with pytest.raises(tl.NumericColumnError, match="learned naive times"):
        learned_naive.transform(aware)


def test_discretizer_bins_guarded_before_allocating():
    with pytest.raises(tl.ResourceLimitError, match=r"Discretizer\(bins=1000000000000\)"):
        tl.Discretizer(bins=10**12).fit(pd.DataFrame({"x": np.arange(10.0)}))


# ---------------------------------------------------------------------- memory guards
def test_mixture_components_guarded_before_allocating():
    with pytest.raises(tl.ResourceLimitError, match=r"TreeMixture\(n_components=1000000000\)"):
        tl.TreeMixture(n_components=10**9).fit(CAT)


def test_the_pair_counts_guard_counts_every_array_not_each(tmp_path, monkeypatch):
    # one row of 300 columns: one 300 x 300 matrix of 8-byte counts (720,000 bytes) fits
    # the limit, but counting holds it twice and the MI and tree-weight matrices too
    path = tmp_path / "wide.csv"
    path.write_text(",".join(f"c{i}" for i in range(300)) + "\n" + ",".join("1" * 300) + "\n")
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 1_000_000)
    assert 8 * 300**2 < tl.limits.MEMORY_LIMIT < 8 * 4 * 300**2
    with pytest.raises(tl.ResourceLimitError, match="300 x 300 matrix, twice"):
        tl.chow_liu(str(path))


# ---------------------------------------------------------------------- raw exceptions
def test_tree_posterior_bad_inputs():
    with pytest.raises(tl.StructureError, match="edge_prior must be a 3 x 3 matrix of numbers"):
        tl.tree_posterior(CAT, edge_prior="x")
    post = tl.tree_posterior(CAT)
    # by hand: log P(T) = sum of the edges' log weights - log Z; a repeated edge is no tree
    single = post.log_tree_probability([("a", "b"), ("b", "c")])
    pos = {v: j for j, v in enumerate(post.variables)}
    assert single == pytest.approx(
        post.log_weights[pos["a"], pos["b"]]
        + post.log_weights[pos["b"], pos["c"]]
        - post.log_normaliser
    )
    for edges in ([("a", "b"), ("a", "b"), ("b", "c")], [("a", "b"), ("b", "a"), ("b", "c")]):
        with pytest.raises(tl.StructureError, match="spanning tree"):
            post.log_tree_probability(edges)


def test_gaussian_evidence_must_be_a_finite_number():
    num = pd.DataFrame(RNG.normal(size=(60, 2)), columns=["u", "v"])
    model = tl.gaussian_chow_liu(num)
    for bad in ("x", np.nan, np.inf, None, True):
        with pytest.raises(tl.TreelearnError, match=r"evidence 'v' == .*must be a finite number"):
            model.query(["u"], evidence={"v": bad})
    # the oracle: the bivariate normal's conditional mean from the ML moments
    mu, S = num.mean(), num.cov(ddof=0)
    got = model.query(["u"], evidence={"v": 1.5}).mean["u"]
    assert got == pytest.approx(mu["u"] + S.loc["u", "v"] / S.loc["v", "v"] * (1.5 - mu["v"]))


@pytest.mark.parametrize("table", ["-0.5, 1.5", "0.2, 0.3, 0.5"])
def test_read_bif_bad_tables_are_model_file_errors(tmp_path, table):
    path = tmp_path / "n.bif"
    path.write_text(
        "network n {}\nvariable a { type discrete [ 2 ] { x, y }; }\n"
        f"probability ( a ) {{ table {table}; }}\n"
    )
    with pytest.raises(tl.InvalidModelError, match="not a valid BIF network"):
        tl.read_bif(path)


def test_explorer_of_an_averaged_classifier_says_why_a_super_parent_is_wrong():
    # both have pages of their average (tests/test_explorer_ande.py, _bayes_tan.py); a
    # super-parent, which chooses one of AODE's networks, is refused with the reason
    for clf, why in ((tl.AnDE(n=2), "pairs of super-parents"), (tl.BayesianTAN(), "has none")):
        clf.fit(CAT, Y)
        assert clf.to_html().startswith("<!DOCTYPE html>")
        with pytest.raises(tl.TreelearnError, match=why):
            clf.to_html(super_parent=CAT.columns[0])


def test_dot_ids_stay_distinct_when_names_differ_only_in_line_breaks():
    data = pd.DataFrame({"a\nb": [0, 1] * 5, "a\r\nb": [0, 1] * 5, "a\rb": [1, 0] * 5})
    dot = tl.chow_liu(data).to_dot()
    ids = set(re.findall(r"^\s*(\S+) \[label=", dot, flags=re.MULTILINE))
    assert len(ids) == 3, dot


# ---------------------------------------------------------------------- text NB, alpha = 0
def _brute_force_text_posterior(X, y, T, event_model):
    """P(c | t) from the ML estimates, by products over the terms (0 ** 0 = 1)."""
    X, y = np.asarray(X, float), np.asarray(y)
    classes = np.unique(y)
    out = []
    for t in np.asarray(T, float):
        joint = []
        for c in classes:
            rows = X[y == c]
            prior = len(rows) / len(X)
            if event_model == "multinomial":
                p = rows.sum(axis=0) / rows.sum()
                joint.append(prior * np.prod(p**t))
            else:
                p = (rows > 0).mean(axis=0)
                b = t > 0
                joint.append(prior * np.prod(np.where(b, p, 1 - p)))
        joint = np.array(joint)
        out.append(joint / joint.sum() if joint.sum() > 0 else np.full(len(classes), 0.5))
    return np.array(out)


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
def test_text_naive_bayes_alpha_zero_is_exact_dense_and_sparse(event_model):
    X = np.array([[2, 0, 1], [1, 0, 3], [0, 4, 1], [0, 2, 0]])
    y = [0, 0, 1, 1]
    T = np.array([[1, 1, 0], [3, 0, 0], [1, 0, 1], [0, 1, 0], [0, 3, 0]])
    expected = _brute_force_text_posterior(X, y, T, event_model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # rows impossible in every class
        dense = tl.TextNaiveBayes(event_model=event_model, alpha=0).fit(X, y).predict_proba(T)
        sparse = (
            tl.TextNaiveBayes(event_model=event_model, alpha=0)
            .fit(sp.csr_matrix(X), y)
            .predict_proba(sp.csr_matrix(T))
        )
    np.testing.assert_allclose(dense, expected, atol=1e-12)
    np.testing.assert_allclose(sparse, expected, atol=1e-12)


# ---------------------------------------------------------------------- degenerate fits
def test_gaussian_tan_calls_a_column_constant_by_the_one_rule():
    # mean 1.7e9, sd 1000: not constant (the rule was var <= 1e-12 mean**2 here, an sd of
    # 1700); a translation changes no posterior, so the shifted fit equals the centred one
    # (to the moments' round-off: eps * mean / sd ~ 4e-10)
    rng = np.random.default_rng(5)
    centred = pd.DataFrame({"u": rng.normal(0, 1000, 300), "v": rng.normal(size=300)})
    centred["v"] += centred["u"] / 1000
    y = np.where(centred["v"] + 0.5 * rng.normal(size=300) > 0, 1, 0)
    shifted = centred.assign(u=centred["u"] + 1.7e9)
    np.testing.assert_allclose(
        tl.GaussianTAN().fit(shifted, y).predict_proba(shifted),
        tl.GaussianTAN().fit(centred, y).predict_proba(centred),
        atol=1e-8,
    )
    flat = shifted.assign(u=1.7e9)
    with pytest.raises(tl.TreelearnError, match="column 'u' is constant"):
        tl.GaussianTAN().fit(flat, y)


def test_fractional_class_counts_survive_a_file():
    from treelearn import _io

    w = np.random.default_rng(1).random(len(Y))
    clf = tl.NaiveBayes().fit(CAT, Y, sample_weight=w)
    back = _io.loads(_io.dumps(clf))
    expected = [w[c == Y].sum() for c in clf.classes_]
    np.testing.assert_allclose(clf.class_count_, expected, rtol=1e-12)
    assert np.asarray(back.class_count_).tolist() == np.asarray(clf.class_count_).tolist()


@pytest.mark.parametrize("make", [tl.AODE, tl.BayesianTAN])
def test_per_class_tables_are_guarded_before_stacking(make, monkeypatch):
    # 2 classes x 5 one-hot states of the features, three 2 x 5 x 5 float arrays: 1,200
    # bytes; counting alone (7 indicators with the class) needs 928, which fits
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 8 * 3 * 2 * 5 * 5 - 1)
    X = CAT[["a", "b"]]
    with pytest.raises(tl.ResourceLimitError, match="2 x 5 x 5, three of them"):
        make().fit(X, Y)
    monkeypatch.setattr(tl.limits, "MEMORY_LIMIT", 8 * 3 * 2 * 5 * 5)
    make().fit(X, Y)


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
