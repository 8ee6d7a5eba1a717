"""The input boundary (sources/): the registry of input kinds, the one array/table conversion,
and the statistics the learners ask for, from every kind, against independent oracles:
numpy and pandas weighted sums, scikit-learn's GaussianNB (theta_, var_), np.cov, and the
in-memory result for files read in chunks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.naive_bayes import GaussianNB

import treelearn as tl
from treelearn.encoding._table import encode
from treelearn.sources._count import count, count_by_class, in_memory_table
from treelearn.sources._gaussian import (
    gaussian_statistics,
    gaussian_statistics_by_class,
    variances_by_class,
)
from treelearn.sources._kinds import KINDS, as_frame, by_kind, kind_of, numeric_matrix, term_matrix
from treelearn.sources._terms import term_counts_by_class
from treelearn.stats._gaussian import ClassGaussianStatistics, GaussianStatistics


def _numbers(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) @ np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 0.3], [0.0, 0.0, 2.0]])
    df = pd.DataFrame(X + [1.0, -2.0, 5.0], columns=["a", "b", "c"])
    df["y"] = rng.choice(["u", "v", "w"], n)
    df["w"] = rng.integers(0, 4, n)  # some rows of weight zero
    return df


# ---------------------------------------------------------------------- kinds
def test_every_kind_is_recognised_once_in_order(tmp_path):
    table = encode(pd.DataFrame({"a": [0, 1]}))
    examples = {
        "table": table,
        "sparse": sp.csr_matrix(np.eye(2)),
        "path": "x.csv",
        "frame": pd.DataFrame({"a": [1]}),
        "array": np.zeros((2, 2)),
    }
    for name, data in examples.items():
        assert kind_of(data).name == name
        assert next(k.name for k in KINDS if k.recognises(data)) == name
    assert kind_of(tmp_path).name == "path" and kind_of([[1, 2]]).name == "array"
    with pytest.raises(tl.InputTypeError, match="DiGraph"):
        kind_of(__import__("networkx").DiGraph())


def test_by_kind_refuses_a_kind_with_one_error_saying_why():
    readers = {"frame": len}
    assert by_kind(pd.DataFrame({"a": [1, 2]}), readers, learner="L") == 2
    with pytest.raises(tl.InputTypeError, match=r"^L cannot take an array \(ndarray\): because"):
        by_kind(np.zeros((2, 2)), readers, learner="L", refusals={"array": "because"})
    with pytest.raises(tl.InputTypeError, match="it takes a pandas DataFrame"):
        by_kind(sp.csr_matrix(np.eye(2)), readers, learner="L")
    with pytest.raises(TypeError):  # an InputTypeError is a TypeError too
        by_kind(None, readers, learner="L")


# ---------------------------------------------------------------------- the one conversion
@pytest.mark.parametrize(
    "convert",
    [
        lambda X: as_frame(X),
        lambda X: numeric_matrix(X),
        lambda X: term_matrix(X),
        lambda X: gaussian_statistics(X),
        lambda X: tl.gaussian_chow_liu(X),
    ],
)
def test_one_error_for_each_problem_whoever_converts(convert):
    with pytest.raises(
        tl.InputTypeError, match=r"X must be 2-D .* shape \(3,\)\. Reshape your data"
    ):
        convert(np.array([1.0, 2.0, 3.0]))
    with pytest.raises(tl.InputTypeError, match=r"shape \(\)\. Reshape"):
        convert(np.float64(1.0))
    with pytest.raises(
        tl.TreelearnError, match="X holds complex numbers: Complex data not supported"
    ):
        convert(np.ones((3, 2)) * 1j)


@pytest.mark.parametrize(
    "convert, learner",
    [
        (lambda X: as_frame(X, learner="L"), "L"),
        (lambda X: numeric_matrix(X, learner="L"), "L"),
        (lambda X: gaussian_statistics(X), "a Gaussian learner"),
        (lambda X: tl.gaussian_chow_liu(X), "gaussian_chow_liu"),
        (lambda X: tl.TreeMixture().fit(X), None),
    ],
)
def test_a_sparse_matrix_where_a_dense_table_is_needed(convert, learner):
    X = sp.csr_matrix(np.ones((4, 2)))
    if learner is None:  # TreeMixture takes sparse 0/1 data: it is a dense table then
        assert convert(X).n_features_in_ == 2
        return
    with pytest.raises(tl.InputTypeError) as info:
        convert(X)
    assert str(info.value) == (
        f"{learner} cannot take a scipy.sparse matrix (csr_matrix): it "
        f"needs a dense table; pass X.toarray() (or a DataFrame) if it "
        f"fits in memory"
    )


def test_text_where_numbers_are_needed_names_the_column_and_the_fix():
    df = pd.DataFrame({"a": [1.0, 2.0], "city": ["Oslo", "Rome"], "ok": [True, False]})
    for bad, shown in (("city", "e.g. 'Oslo'"), ("ok", "dtype bool")):
        with pytest.raises(tl.TreelearnError) as info:
            numeric_matrix(df[["a", bad]], learner="L")
        assert info.value.column == bad
        assert f"column {bad!r} is not numeric" in str(info.value) and shown in str(info.value)
        assert str(info.value).endswith(
            "L needs numeric columns only: drop it, or encode it as numbers"
        )
    with pytest.raises(tl.TreelearnError, match="column 'z' holds complex numbers"):
        numeric_matrix(pd.DataFrame({"z": [1 + 1j, 2 + 0j]}))
    # an object array of numbers is numbers
    assert numeric_matrix(np.array([[1, 2.5]], dtype=object))[1].tolist() == [[1.0, 2.5]]


def test_missing_and_infinite_values_name_the_column():
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": [0.0, 1.0, np.inf]})
    with pytest.raises(
        tl.MissingValuesError, match=r"column 'a' has 1 missing value\(s\) \(NaN in rows \[1\]\)"
    ):
        numeric_matrix(df)
    with pytest.raises(tl.TreelearnError, match="column 'b' has 1 infinite"):
        numeric_matrix(df, missing="pairwise")
    names, A = numeric_matrix(df[["a"]], missing="pairwise")
    assert np.isnan(A[1, 0]) and names == ["a"]


def test_conversion_never_changes_or_copies_needlessly_the_callers_data():
    X = np.arange(6.0).reshape(3, 2)
    before = X.copy()
    _, A = numeric_matrix(X)
    assert np.shares_memory(A, X)  # a float array is used as it is
    gaussian_statistics(X)
    np.testing.assert_array_equal(X, before)
    S = sp.csr_matrix(np.array([[0.0, 2.0], [1.0, 0.0]]))
    data = S.data.copy()
    B, names = term_matrix(S)
    assert sp.issparse(B) and names is None
    np.testing.assert_array_equal(S.data, data)
    with pytest.raises(tl.TreelearnError, match="Negative values in data"):
        term_matrix(-S)


# ---------------------------------------------------------------------- Gaussian statistics
def test_gaussian_statistics_are_numpys_weighted_moments():
    df = _numbers()
    X = df[["a", "b", "c"]].to_numpy()
    w = df["w"].to_numpy(dtype=float)
    s = gaussian_statistics(df[["a", "b", "c"]], sample_weight=w)
    assert s.n == w.sum()
    np.testing.assert_allclose(s.mean, np.average(X, axis=0, weights=w), rtol=1e-13)
    np.testing.assert_allclose(
        s.covariance, np.cov(X, rowvar=False, aweights=w, bias=True), rtol=1e-12
    )


def test_merged_chunks_are_the_moments_of_all_rows():
    """Chan et al.'s update, by hand on split rows: every split gives the whole."""
    rng = np.random.default_rng(3)
    X, w = rng.normal(size=(101, 4)) * [1, 10, 0.1, 3], rng.uniform(0, 2, 101)
    whole = GaussianStatistics.of_rows(list("abcd"), X, w)
    for cut in (1, 37, 100):
        parts = GaussianStatistics.of_rows(
            list("abcd"), X[:cut], w[:cut]
        ) + GaussianStatistics.of_rows(list("abcd"), X[cut:], w[cut:])
        np.testing.assert_allclose(parts.covariance, whole.covariance, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(parts.mean, whole.mean, rtol=1e-13)
        assert parts.n == pytest.approx(whole.n, rel=1e-14)
    empty = GaussianStatistics.of_rows(list("abcd"), X[:0])
    assert (empty + whole) is whole and (whole + empty) is whole
    with pytest.raises(tl.TreelearnError, match="same columns"):
        whole + GaussianStatistics.of_rows(list("abce"), X)


def test_class_gaussians_are_per_class_weighted_moments_and_pool_to_the_whole():
    df = _numbers()
    X, y, w = df[["a", "b", "c"]], df["y"], df["w"]
    s = gaussian_statistics_by_class(X, y, sample_weight=w)
    assert s.classes.tolist() == ["u", "v", "w"]
    for c, label in enumerate(s.classes):
        rows = (y == label) & (w > 0)
        Xc, wc = X[rows].to_numpy(), w[rows].to_numpy(dtype=float)
        assert s.rows[c] == rows.sum() and s.weight[c] == wc.sum()
        np.testing.assert_allclose(s.mean[c], np.average(Xc, axis=0, weights=wc), rtol=1e-13)
        np.testing.assert_allclose(
            s.covariance[c], np.cov(Xc, rowvar=False, aweights=wc, bias=True), rtol=1e-12
        )
    whole = gaussian_statistics(X, sample_weight=w)
    pooled = s.pooled()
    np.testing.assert_allclose(pooled.mean, whole.mean, rtol=1e-13)
    np.testing.assert_allclose(pooled.covariance, whole.covariance, rtol=1e-12)
    within = sum(s.weight[c] * s.covariance[c] for c in range(3)) / s.weight.sum()
    np.testing.assert_allclose(s.shared_covariance(), within, rtol=1e-13)


def test_variances_by_class_are_gaussian_nbs_theta_and_var():
    df = _numbers()
    X, y, w = df[["a", "b", "c"]], df["y"], df["w"]
    v = variances_by_class(X, y, sample_weight=w)
    nb = GaussianNB(var_smoothing=0.0).fit(X, y, sample_weight=w)
    assert v.classes.tolist() == nb.classes_.tolist()
    np.testing.assert_allclose(v.mean, nb.theta_, rtol=1e-13)
    np.testing.assert_allclose(v.variance, nb.var_, rtol=1e-12)
    # var_smoothing is a fraction of the largest variance of any column over all rows
    # (scikit-learn's is of the unweighted variance, whatever the weights)
    plain = variances_by_class(X, y)
    smoothed = GaussianNB(var_smoothing=1e-3).fit(X, y)
    np.testing.assert_allclose(
        plain.variance + 1e-3 * plain.overall_variance().max(), smoothed.var_, rtol=1e-12
    )
    np.testing.assert_allclose(
        v.overall_variance(),
        np.diag(np.cov(X.to_numpy(), rowvar=False, aweights=w, bias=True)),
        rtol=1e-12,
    )


def test_variances_by_class_sum_missing_cells_out_and_read_only_the_columns_named():
    rng = np.random.default_rng(5)
    df = pd.DataFrame(
        {
            "t": rng.normal(size=300),
            "s": rng.normal(size=300) * 4,
            "cat": rng.choice(["p", "q"], 300),
            "y": rng.choice([0, 1], 300),
        }
    )
    df.loc[rng.random(300) < 0.2, "t"] = np.nan
    v = variances_by_class(df, df["y"], columns=["t", "s"])
    assert v.variables == ["t", "s"]
    for c, label in enumerate(v.classes):  # pandas' own NaN-skipping statistics, per class
        part = df[df["y"] == label]
        np.testing.assert_allclose(v.observed[c], part[["t", "s"]].notna().sum().to_numpy())
        assert v.weight[c] == len(part)  # the class's weight, whatever is missing
        np.testing.assert_allclose(v.mean[c], part[["t", "s"]].mean().to_numpy(), rtol=1e-13)
        np.testing.assert_allclose(
            v.variance[c], part[["t", "s"]].var(ddof=0).to_numpy(), rtol=1e-12
        )
    with pytest.raises(tl.ColumnNotFoundError, match="'zz'"):
        variances_by_class(df, df["y"], columns=["zz"])
    with pytest.raises(tl.TreelearnError, match="'cat' is not numeric"):
        variances_by_class(df, df["y"], columns=["t", "cat"])


def test_per_class_statistics_from_a_file_in_chunks_equal_in_memory(tmp_path):
    df = _numbers(n=2500)
    df.loc[::7, "b"] = np.nan
    path = tmp_path / "rows.csv"
    df.to_csv(path, index=False)
    features = df[["a", "b", "c"]]
    v_mem = variances_by_class(features, df["y"], sample_weight=df["w"])
    v_file = variances_by_class(
        path, "y", columns=["a", "b", "c"], sample_weight="w", chunksize=1000
    )
    for field in ("weight", "observed", "mean", "variance"):
        np.testing.assert_allclose(getattr(v_file, field), getattr(v_mem, field), rtol=1e-12)
    np.testing.assert_allclose(v_mem.weight, df.groupby("y")["w"].sum().to_numpy(), rtol=1e-12)
    assert v_file.classes.tolist() == v_mem.classes.tolist() and (v_file.rows == v_mem.rows).all()
    complete = df.dropna()
    g_mem = gaussian_statistics_by_class(
        complete[["a", "b", "c"]], complete["y"], sample_weight=complete["w"]
    )
    complete.drop(columns=["y"]).assign(label=complete["y"]).to_csv(tmp_path / "c.csv", index=False)
    g_file = gaussian_statistics_by_class(
        tmp_path / "c.csv", "label", sample_weight="w", chunksize=1000
    )
    assert isinstance(g_file, ClassGaussianStatistics)
    np.testing.assert_allclose(g_file.covariance, g_mem.covariance, rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose(g_file.mean, g_mem.mean, rtol=1e-12)
    with pytest.raises(tl.ColumnNotFoundError, match="class column"):
        gaussian_statistics_by_class(tmp_path / "c.csv", ["u"] * len(complete))


def test_file_labels_follow_the_in_memory_rules(tmp_path):
    path = tmp_path / "one.csv"
    pd.DataFrame({"a": [1.0, 2.0, 3.0], "y": ["k", "k", "k"]}).to_csv(path, index=False)
    with pytest.raises(tl.ClassLabelError, match="single class 'k'"):
        gaussian_statistics_by_class(path, "y")
    pd.DataFrame({"a": [1.0, 2.0, 3.0], "y": [0.25, 1.5, 2.75]}).to_csv(path, index=False)
    with pytest.raises(tl.ClassLabelError, match="looks continuous"):
        gaussian_statistics_by_class(path, "y")
    pd.DataFrame({"a": [1.0, 2.0, 3.0], "y": ["a", None, "b"]}).to_csv(path, index=False)
    with pytest.raises(tl.MissingValuesError, match="1 missing class label"):
        gaussian_statistics_by_class(path, "y")
    pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "y": [2, 1, 2, 1]}).to_csv(path, index=False)
    s = gaussian_statistics_by_class(path, "y")
    assert s.classes.tolist() == [1, 2] and s.classes.dtype.kind == "i"  # as pandas reads y
    np.testing.assert_allclose(s.mean.ravel(), [3.0, 2.0])


# ---------------------------------------------------------------------- term counts
def _documents(n=400, d=60, seed=2):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.08, random_state=seed, format="csr")
    X.data = np.ceil(X.data * 4)
    return X, rng.choice(["ham", "spam", "eggs"], n), rng.uniform(0, 2, n)


def test_term_counts_are_weighted_class_sums_never_densified():
    X, y, w = _documents()
    t = term_counts_by_class(X, y, sample_weight=w, binarize=1.0)
    dense = X.toarray()
    classes = np.unique(y)
    assert t.classes.tolist() == classes.tolist()
    for c, label in enumerate(classes):
        rows = y == label
        np.testing.assert_allclose(t.term_sums[c], w[rows] @ dense[rows], rtol=1e-12)
        np.testing.assert_allclose(t.document_counts[c], w[rows] @ (dense[rows] > 1.0), rtol=1e-12)
        assert t.weight[c] == pytest.approx(w[rows].sum(), rel=1e-13)
    assert term_counts_by_class(X, y).document_counts is None
    # dense rows and a DataFrame give the same counts; the DataFrame names the terms
    frame = pd.DataFrame(dense, columns=[f"t{j}" for j in range(dense.shape[1])])
    t_frame = term_counts_by_class(frame, y, sample_weight=w, binarize=1.0)
    np.testing.assert_allclose(t_frame.term_sums, t.term_sums, rtol=1e-12)
    assert t_frame.variables == list(frame.columns) and t.variables is None
    # a matrix far too large to be dense (10^5 x 10^6, 8e11 bytes) is counted from its non-zeros
    big = sp.csr_matrix((np.ones(3), ([0, 5, 99_999], [7, 7, 999_999])), shape=(100_000, 1_000_000))
    labels = np.zeros(100_000, dtype=int)
    labels[5:] = 1
    huge = term_counts_by_class(big, labels, binarize=0.0)
    assert huge.term_sums[:, 7].tolist() == [1.0, 1.0] and huge.term_sums[1, 999_999] == 1.0


def test_term_counts_from_a_file_in_chunks_equal_in_memory(tmp_path):
    X, y, w = _documents(n=2300)
    frame = pd.DataFrame(X.toarray(), columns=[f"t{j}" for j in range(X.shape[1])])
    frame.assign(label=y, weight=w).to_csv(tmp_path / "docs.csv", index=False)
    t_mem = term_counts_by_class(frame, y, sample_weight=w, binarize=0.0)
    t_file = term_counts_by_class(
        tmp_path / "docs.csv", "label", sample_weight="weight", binarize=0.0, chunksize=1000
    )
    assert t_file.classes.tolist() == t_mem.classes.tolist() and t_file.variables == t_mem.variables
    for field in ("term_sums", "document_counts", "weight"):
        np.testing.assert_allclose(getattr(t_file, field), getattr(t_mem, field), rtol=1e-12)
    assert (t_file.rows == t_mem.rows).all()
    # the document counts alone (Bernoulli naive Bayes): the same, merged across the chunks
    presence = term_counts_by_class(
        tmp_path / "docs.csv",
        "label",
        sample_weight="weight",
        binarize=0.0,
        term_sums=False,
        chunksize=1000,
    )
    assert presence.term_sums is None and presence.n_terms == X.shape[1]
    np.testing.assert_allclose(presence.document_counts, t_mem.document_counts, rtol=1e-12)
    with pytest.raises(tl.TreelearnError, match="term_sums=False without binarize counts nothing"):
        term_counts_by_class(frame, y, term_sums=False)


# ---------------------------------------------------------------------- rows in memory
def test_rows_in_memory_from_every_kind_are_the_encoded_table(tmp_path):
    df = pd.DataFrame({"a": [0, 1, 1, 0], "b": ["x", "y", "y", "y"], "w": [1, 2, 0, 1]})
    expected = encode(df[["a", "b"]], sample_weight=df["w"])
    df.to_csv(tmp_path / "t.csv", index=False)
    for data, weight in ((df[["a", "b"]], df["w"]), (tmp_path / "t.csv", "w")):
        got = in_memory_table(data, learner="L", sample_weight=weight)
        assert got.columns == expected.columns and got.states == expected.states
        np.testing.assert_array_equal(got.codes, expected.codes)
        np.testing.assert_array_equal(got.weights, expected.weights)
    # a sparse 0/1 matrix: the table of its dense values, with the states the counts give
    S = sp.csr_matrix(np.array([[1, 0, 1], [0, 0, 1], [1, 0, 1]]))
    t = in_memory_table(S, learner="L", names=["p", "q", "r"])
    dense = encode(pd.DataFrame(S.toarray(), columns=["p", "q", "r"]))
    assert t.states == dense.states == count(S, names=["p", "q", "r"]).states
    np.testing.assert_array_equal(t.codes, dense.codes)
    # an array: the table of its columns x0, x1, ..., as a DataFrame of them gives it
    A = np.array([[1, 0], [0, 2], [1, 2]])
    t = in_memory_table(A, learner="L")
    by_frame = encode(pd.DataFrame(A, columns=["x0", "x1"]))
    assert t.columns == ("x0", "x1") and t.states == by_frame.states
    np.testing.assert_array_equal(t.codes, by_frame.codes)
    with pytest.raises(tl.InputTypeError, match="names= names the variables"):
        in_memory_table(df, learner="L", names=["a"])


def test_count_takes_names_for_sparse_variables_only():
    S = sp.csr_matrix(np.array([[1, 0], [0, 1], [1, 1]]))
    assert count(S, names=["u", "v"]).columns == ("u", "v")
    with pytest.raises(tl.InputTypeError, match="names= names the variables"):
        count(pd.DataFrame({"a": [1]}), names=["a"])
    with pytest.raises(tl.InputTypeError, match=r"\(ndarray\): wrap arrays with pd.DataFrame"):
        count(np.zeros((2, 2)))


def test_count_by_class_reads_a_file_whole_with_its_class_column(tmp_path):
    df = pd.DataFrame({"x": ["a", "b", "b", "a", "b"], "c": [0, 1, 1, 0, 0], "w": [1, 2, 1, 0, 1]})
    df.to_csv(tmp_path / "t.csv", index=False)
    from_file = count_by_class(tmp_path / "t.csv", "c", sample_weight="w")
    in_memory = count_by_class(df[["x"]], df["c"], sample_weight=df["w"])
    assert from_file.columns == in_memory.columns and from_file.states == in_memory.states
    np.testing.assert_array_equal(from_file.family_counts([0, 1]), in_memory.family_counts([0, 1]))
    with pytest.raises(tl.ClassLabelError, match="name of its class column"):
        count_by_class(tmp_path / "t.csv", [0, 1, 1, 0, 0])
    with pytest.raises(tl.InputTypeError, match=r"scipy\.sparse matrix"):
        count_by_class(sp.csr_matrix(np.eye(3)), [0, 1, 0])


def test_scoring_needs_rows_in_memory_and_says_so(tmp_path):
    m = tl.gaussian_chow_liu(_numbers()[["a", "b", "c"]])
    with pytest.raises(
        tl.InputTypeError,
        match=r"GaussianTreeModel cannot take a CSV/Parquet "
        r"path \(str\): .*tl.read_data\(path\)",
    ):
        m.log_likelihood("datasets/asia.csv")
    mix = tl.TreeMixture(random_state=0, max_iter=3).fit(pd.read_csv("datasets/asia.csv"))
    with pytest.raises(tl.InputTypeError, match=r"TreeMixture cannot take a CSV/Parquet path"):
        mix.score("datasets/asia.csv")
