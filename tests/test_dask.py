"""Chow-Liu on a dask DataFrame, counted on the workers of a 2-process LocalCluster.

The reference is the pandas path on the same rows.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import FRAME_PROBLEMS, problem_frame, problem_kinds

import treelearn as tl
from treelearn.encoding._table import encode
from treelearn.sources._dask import class_pair_counts_dask, is_dask_dataframe, is_dask_series
from treelearn.stats._counts import class_pair_counts, pair_counts

pytestmark = pytest.mark.slow  # a Dask LocalCluster: the second CI job (pytest -m slow)

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def alarm() -> pd.DataFrame:
    return pd.read_csv("datasets/alarm.csv")


def mixed_frame(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))
    return pd.DataFrame(
        {
            "a": a,
            "b": pd.Categorical(
                np.array(["lo", "mid", "hi"])[b], categories=["mid", "lo", "never", "hi"]
            ),
            "c": (np.where(rng.random(n) < 0.7, b % 2, rng.integers(0, 2, n))).astype(bool),
            "d": np.where(rng.random(n) < 0.6, a + 1, rng.integers(1, 4, n)).astype(float),
            "y": np.array(["no", "yes"])[(a + rng.integers(0, 2, n)) % 2],
        }
    )


def assert_same(ours: tl.TreeModel, whole: tl.TreeModel) -> None:
    assert ours.states == whole.states
    assert sorted(ours.graph.edges) == sorted(whole.graph.edges)
    for v in whole.variables:
        np.testing.assert_array_equal(ours.cpt(v), whole.cpt(v))
    np.testing.assert_array_equal(ours.counts.joint, whole.counts.joint)
    assert ours.n_rows == whole.n_rows
    assert ours == whole


def test_alarm_on_the_cluster_equals_pandas(client, alarm):
    ddf = dd.from_pandas(alarm, npartitions=7)
    with distributed.get_task_stream(client) as stream:
        model = tl.chow_liu(ddf, alpha=1.0)
    assert_same(model, tl.chow_liu(alarm, alpha=1.0))
    # each partition was counted by a task on a worker of the cluster
    counted = [t for t in stream.data if "count_partition" in str(t["key"])]
    assert len(counted) == 7
    assert {t["worker"] for t in counted} <= set(client.scheduler_info()["workers"])


def test_mixed_kinds_and_categories(client):
    df = mixed_frame(3000)
    model = tl.chow_liu(dd.from_pandas(df, npartitions=4))
    assert model.states["b"] == ["mid", "lo", "never", "hi"]
    assert model.states["c"] == [False, True]
    assert_same(model, tl.chow_liu(df))
    # one pair's counts, independently from a pandas crosstab
    expected = pd.crosstab(df["a"], df["c"]).to_numpy()
    np.testing.assert_array_equal(model.counts.block(0, 2), expected)


@pytest.mark.parametrize("missing", ["pairwise", "drop"])
def test_missing_values(client, missing):
    df = mixed_frame(2000, seed=1).astype({"y": object})
    df.loc[[3, 1500], "y"] = None
    df["a"] = df["a"].astype(float)
    df.loc[[700], "a"] = np.nan
    model = tl.chow_liu(dd.from_pandas(df, npartitions=3), missing=missing)
    assert_same(model, tl.chow_liu(df, missing=missing))


def test_missing_error_counts_every_partition(client):
    df = mixed_frame(2000, seed=2).astype({"y": object})
    df.loc[[3, 1500, 1999], "y"] = None
    with pytest.raises(tl.MissingValuesError, match="column 'y': 3 missing"):
        tl.chow_liu(dd.from_pandas(df, npartitions=4))


def test_given_states_and_an_unseen_value(client):
    df = mixed_frame(1000, seed=3)
    states = {"a": [0, 1, 2, 3], "y": ["yes", "no"]}
    model = tl.chow_liu(dd.from_pandas(df, npartitions=2), states=states)
    assert model.states["a"] == [0, 1, 2, 3] and model.states["y"] == ["yes", "no"]
    assert_same(model, tl.chow_liu(df, states=states))
    with pytest.raises(tl.UnseenStateError, match=r"'y'.*'yes'"):
        tl.chow_liu(dd.from_pandas(df, npartitions=2), states={"y": ["no", "maybe"]})


def test_class_conditional_counts_equal_pandas(client):
    df = mixed_frame(2500, seed=4)
    ddf = dd.from_pandas(df, npartitions=3)
    per_class, columns, states, _ = class_pair_counts_dask(ddf.drop(columns="y"), ddf["y"])
    assert columns == tuple(df.columns) and states[-1] == ("no", "yes")
    expected = class_pair_counts(encode(df), class_index=4)
    assert len(per_class) == len(expected) == 2
    for ours, theirs in zip(per_class, expected):
        np.testing.assert_array_equal(ours.joint, theirs.joint)
        assert ours.n_rows == theirs.n_rows
    # rows of class "yes", counted by pandas
    yes = df[df["y"] == "yes"]
    np.testing.assert_array_equal(
        per_class[1].block(0, 3), pd.crosstab(yes["a"], yes["d"]).to_numpy()
    )
    np.testing.assert_array_equal(
        per_class[1].joint, pair_counts(encode(yes, states=dict(zip(columns, states)))).joint
    )


def test_detection_without_importing_dask(client):
    df = mixed_frame(50)
    ddf = dd.from_pandas(df, npartitions=2)
    assert is_dask_dataframe(ddf) and not is_dask_dataframe(df)
    assert is_dask_series(ddf["a"]) and not is_dask_dataframe(ddf["a"])
    code = (
        "import sys; sys.modules['dask'] = None\n"  # any import of dask would fail
        "import pandas as pd, treelearn as tl\n"
        "m = tl.chow_liu(pd.DataFrame({'a': [0, 1, 1], 'b': [0, 1, 0]}))\n"
        "assert 'dask.dataframe' not in sys.modules\n"
        "print(m.n_rows)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "3"


@pytest.mark.parametrize("name", ["NaiveBayes", "TAN", "ChowLiuMultinet"])
def test_classifiers_on_the_cluster_equal_pandas(client, name):
    # numbers="states": a Dask frame's numeric columns are counted as states (the default
    # numbers="mdl" refuses them: test_numeric_columns_of_a_dask_frame_are_refused_by_default)
    df = mixed_frame(2400, seed=5)
    df["a"] = df["a"].astype(float)
    df.loc[[7, 1300], "a"] = np.nan  # a missing feature value: pairwise, as in pandas
    ddf = dd.from_pandas(df, npartitions=3)
    ours = getattr(tl, name)(alpha=1.0, numbers="states").fit(ddf.drop(columns="y"), ddf["y"])
    theirs = getattr(tl, name)(alpha=1.0, numbers="states").fit(df.drop(columns="y"), df["y"])
    assert ours.classes_.tolist() == theirs.classes_.tolist() == ["no", "yes"]
    np.testing.assert_array_equal(ours.class_count_, theirs.class_count_)
    if name == "ChowLiuMultinet":
        assert ours.models_ == theirs.models_
    else:
        assert ours.model_ == theirs.model_
    X = df.drop(columns="y").iloc[:200]
    np.testing.assert_array_equal(ours.predict_proba(X), theirs.predict_proba(X))
    # the class counts, independently
    np.testing.assert_array_equal(ours.class_count_, df["y"].value_counts().sort_index().to_numpy())


def test_categories_dask_does_not_know_are_sorted_as_pandas_sorts_them(client):
    # "y" is "no" in the first partition only: each partition has its own categories
    df = mixed_frame(600, seed=9).drop(columns="b")
    df.loc[:299, "y"] = "yes"
    df.loc[300:, "y"] = np.where(df.loc[300:, "a"] == 0, "no", "maybe")
    ddf = dd.from_pandas(df, npartitions=2).astype({"y": "category"})
    assert not ddf["y"].cat.known
    ours = tl.chow_liu(ddf)
    assert ours.states["y"] == ["maybe", "no", "yes"]  # sorted, as pandas' astype("category")
    assert_same(ours, tl.chow_liu(df.astype({"y": "category"})))
    # the same Categorical as the class of a classifier
    clf = tl.NaiveBayes(numbers="states").fit(ddf.drop(columns="y"), ddf["y"])
    assert clf.classes_.tolist() == ["maybe", "no", "yes"]
    np.testing.assert_array_equal(clf.class_count_, df["y"].value_counts().sort_index().to_numpy())


def test_categorical_class_in_unsorted_category_order(client):
    # the class's categories are declared "yes", "maybe" (unused), "no": classes_ are
    # sorted, so each class must get its own rows' counts, not the category order's
    df = mixed_frame(900, seed=8)
    df["y"] = pd.Categorical(df["y"], categories=["yes", "maybe", "no"])
    ddf = dd.from_pandas(df, npartitions=2)
    # hand-counted plain CPTs: every class arc kept (class_arcs="all"), not averaged
    ours = tl.NaiveBayes(alpha=1.0, numbers="states", class_arcs="all").fit(
        ddf.drop(columns="y"), ddf["y"]
    )
    assert ours.classes_.tolist() == ["no", "yes"]
    np.testing.assert_array_equal(
        ours.class_count_, [(df["y"] == "no").sum(), (df["y"] == "yes").sum()]
    )
    # p(a = 0 | y = "no") with Laplace smoothing, counted by hand
    no = df[df["y"] == "no"]
    a_states = sorted(df["a"].unique())
    expected = ((no["a"] == a_states[0]).sum() + 1) / (len(no) + len(a_states))
    assert ours.model_.cpt("a")[0, 0] == pytest.approx(expected)
    theirs = tl.NaiveBayes(alpha=1.0, numbers="states", class_arcs="all").fit(
        df.drop(columns="y"), df["y"]
    )
    X = df.drop(columns="y").iloc[:50]
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X))


def test_class_labels_that_are_not_whole_numbers(client):
    # pandas takes any labels as classes (np.unique); so must the cluster
    df = mixed_frame(600, seed=10)
    df["y"] = np.where(df["y"] == "yes", 1.5, 0.25)
    ddf = dd.from_pandas(df, npartitions=3)
    ours = tl.TAN(numbers="states").fit(ddf.drop(columns="y"), ddf["y"])
    theirs = tl.TAN(numbers="states").fit(df.drop(columns="y"), df["y"])
    assert ours.classes_.tolist() == [0.25, 1.5]
    np.testing.assert_array_equal(
        ours.class_count_, [(df["y"] == 0.25).sum(), (df["y"] == 1.5).sum()]
    )
    assert ours.model_ == theirs.model_


def test_classifier_bad_labels(client):
    df = mixed_frame(600, seed=6).astype({"y": object})
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(TypeError, match="dask Series partitioned like X"):
        tl.TAN(numbers="states").fit(ddf.drop(columns="y"), df["y"])
    df.loc[[4, 500], "y"] = None
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(tl.MissingValuesError, match="2 missing class label"):
        tl.TAN(numbers="states").fit(ddf.drop(columns="y"), ddf["y"])


def test_partial_fit_with_a_dask_frame(client, alarm):
    states = {c: sorted(alarm[c].unique().tolist()) for c in alarm.columns}
    model = tl.chow_liu(alarm.iloc[:3000], states=states)
    model.partial_fit(dd.from_pandas(alarm.iloc[3000:], npartitions=3))
    assert_same(model, tl.chow_liu(alarm))


# ---------------------------------------------------------------- row weights
def repeated(df: pd.DataFrame, w) -> pd.DataFrame:
    return df.loc[df.index.repeat(np.asarray(w, dtype=int))]


def test_weights_on_the_cluster_equal_repeated_rows(client):
    df = mixed_frame(1500, seed=12)
    w = np.random.default_rng(112).integers(0, 4, len(df))
    ref = tl.chow_liu(repeated(df, w), forest="bic")
    ddf = dd.from_pandas(df.assign(w=w), npartitions=3)
    assert_same(tl.chow_liu(ddf, sample_weight="w", forest="bic"), ref)  # a weight column
    series = dd.from_pandas(pd.Series(w, name="w"), npartitions=3)
    assert_same(tl.chow_liu(ddf.drop(columns="w"), sample_weight=series, forest="bic"), ref)
    # fit_cpts of a tree and the MI graph, from the workers' pair counts
    tree = ref.graph
    ours = tl.fit_cpts(tree, ddf, sample_weight="w", alpha=1.0)
    theirs = tl.fit_cpts(tree, repeated(df, w), alpha=1.0)
    assert ours == theirs
    G, H = tl.mi_graph(ddf, sample_weight="w"), tl.mi_graph(repeated(df, w))
    for u, v, mi in H.edges(data="weight"):
        assert G[u][v]["weight"] == pytest.approx(mi, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("name", ["NaiveBayes", "TAN", "ChowLiuMultinet"])
def test_weighted_classifiers_on_the_cluster_equal_repeated_rows(client, name):
    df = mixed_frame(1200, seed=13)
    w = np.random.default_rng(113).integers(0, 3, len(df))
    ddf = dd.from_pandas(df, npartitions=3)
    weights = dd.from_pandas(pd.Series(w), npartitions=3)
    ours = getattr(tl, name)(numbers="states").fit(
        ddf.drop(columns="y"), ddf["y"], sample_weight=weights
    )
    rep = repeated(df, w)
    theirs = getattr(tl, name)(numbers="states").fit(rep.drop(columns="y"), rep["y"])
    np.testing.assert_array_equal(ours.class_count_, theirs.class_count_)
    X = df.drop(columns="y").iloc[:100]
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-12)


def test_a_class_with_only_zero_weight_rows_is_no_class(client):
    df = mixed_frame(600, seed=14).astype({"y": object})
    df.loc[[3, 9], "y"] = "rare"
    w = np.ones(len(df))
    w[[3, 9]] = 0
    ddf = dd.from_pandas(df.assign(w=w), npartitions=2)
    ours = tl.NaiveBayes(numbers="states").fit(ddf.drop(columns=["y"]), ddf["y"], sample_weight="w")
    assert ours.classes_.tolist() == ["no", "yes"]
    theirs = tl.NaiveBayes(numbers="states").fit(df.drop(columns="y"), df["y"], sample_weight=w)
    assert theirs.classes_.tolist() == ["no", "yes"]
    np.testing.assert_array_equal(ours.class_count_, theirs.class_count_)


# ---------------------------------------------------------------- every problem at once
def test_every_problem_of_a_dask_frame_in_one_error_as_in_memory(client):
    """Problems spread over four partitions are found together, as pandas finds them."""
    df = problem_frame(3000)
    ddf = dd.from_pandas(df, npartitions=4)
    with pytest.raises(tl.TableProblemsError) as whole:
        tl.chow_liu(df)
    with pytest.raises(tl.TableProblemsError) as distributed_:
        tl.chow_liu(ddf)
    assert problem_kinds(distributed_.value) == problem_kinds(whole.value) == FRAME_PROBLEMS
    gaps, *others = distributed_.value.problems
    assert str(gaps) == str(whole.value.problems[0]).replace(
        "found (", "found in the dask DataFrame ("
    )
    assert [str(p) for p in others] == [str(p) for p in whole.value.problems[1:]]
    for data in (df, ddf):  # missing="drop": 'e' is never observed, no row is left
        with pytest.raises(tl.EmptyDataError, match=r"every row.*'drop' leaves no rows"):
            tl.chow_liu(data, missing="drop")
    # one problem: its own error
    with pytest.raises(tl.NumericColumnError, match=r"'f1'.*seen once") as one:
        tl.chow_liu(dd.from_pandas(df[["a", "f1"]], npartitions=4))
    assert not isinstance(one.value, tl.TableProblemsError)


def test_a_dask_frame_without_problems_gives_the_in_memory_model_and_notes(client):
    import warnings

    df = problem_frame(3000, problems=False)
    with warnings.catch_warnings(record=True) as whole_notes:
        warnings.simplefilter("always")
        whole = tl.chow_liu(df)
    with warnings.catch_warnings(record=True) as dask_notes:
        warnings.simplefilter("always")
        ours = tl.chow_liu(dd.from_pandas(df, npartitions=4))
    assert_same(ours, whole)
    notes = [
        [str(w.message) for w in ws if isinstance(w.message, tl.NumericColumnWarning)]
        for ws in (whole_notes, dask_notes)
    ]
    assert notes[0] == notes[1] and len(notes[0]) == 3


# ---------------------------------------------------------------- Gaussian trees, mixtures, per-class sums
def numeric_frame(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n) * 3 + 1e6  # far from zero: merged moments must keep the digits
    b = 0.5 * (a - 1e6) + rng.normal(size=n)
    return pd.DataFrame(
        {
            "a": a,
            "b": b,
            "c": -b + rng.normal(size=n),
            "y": rng.choice(["p", "q"], n),
            "w": rng.integers(0, 3, n),
        }
    )


def test_gaussian_chow_liu_reduced_on_the_workers_equals_pandas(client):
    from test_gaussian import _same_model

    df = numeric_frame(2000)
    X = df[["a", "b", "c"]]
    ddf = dd.from_pandas(df, npartitions=5)
    with distributed.get_task_stream(client) as stream:
        model = tl.gaussian_chow_liu(ddf[["a", "b", "c", "w"]], sample_weight="w")
    _same_model(model, tl.gaussian_chow_liu(X, sample_weight=df["w"]), rtol=1e-9)
    summarised = [t for t in stream.data if "summarise_partition" in str(t["key"])]
    assert len(summarised) == 5  # each partition's moments computed on a worker
    weights = dd.from_pandas(df["w"], npartitions=5)
    _same_model(
        tl.gaussian_chow_liu(ddf[["a", "b", "c"]], sample_weight=weights),
        tl.gaussian_chow_liu(X, sample_weight=df["w"]),
        rtol=1e-9,
    )
    G, H = tl.mi_graph(ddf[["a", "b", "c"]], kind="gaussian"), tl.mi_graph(X, kind="gaussian")
    for u, v, mi in H.edges(data="weight"):
        assert G[u][v]["weight"] == pytest.approx(mi, rel=1e-9)
    with pytest.raises(tl.TreelearnError, match="column 'y' is not numeric"):
        tl.gaussian_chow_liu(ddf)


def test_per_class_statistics_reduced_on_the_workers_equal_pandas(client):
    from treelearn.sources._gaussian import gaussian_statistics_by_class, variances_by_class
    from treelearn.sources._terms import term_counts_by_class

    df = numeric_frame(1500, seed=1)
    ddf = dd.from_pandas(df, npartitions=4)
    X = df[["a", "b", "c"]]
    ours = gaussian_statistics_by_class(ddf[["a", "b", "c", "w"]], ddf["y"], sample_weight="w")
    theirs = gaussian_statistics_by_class(X, df["y"], sample_weight=df["w"])
    assert ours.classes.tolist() == theirs.classes.tolist() == ["p", "q"]
    np.testing.assert_allclose(ours.covariance, theirs.covariance, rtol=1e-8)
    v = variances_by_class(ddf, "y", columns=["a", "c"])  # y: a column of the frame
    np.testing.assert_allclose(
        v.variance, variances_by_class(X, df["y"], columns=["a", "c"]).variance, rtol=1e-8
    )
    counts = df[["w"]].assign(t=df["w"] * 2)
    t = term_counts_by_class(dd.from_pandas(counts, npartitions=4), ddf["y"], binarize=0.0)
    t_mem = term_counts_by_class(counts, df["y"], binarize=0.0)
    np.testing.assert_allclose(t.term_sums, t_mem.term_sums, rtol=1e-12)
    np.testing.assert_allclose(t.document_counts, t_mem.document_counts, rtol=1e-12)


def test_tree_mixture_of_a_dask_frame_and_a_file_equals_pandas(client, tmp_path):
    df = mixed_frame(800, seed=15).drop(columns="d")
    w = np.random.default_rng(115).integers(0, 3, len(df))
    opts = dict(n_components=2, random_state=0, max_iter=15)
    expected = tl.TreeMixture(**opts).fit(df, sample_weight=w)
    ddf = dd.from_pandas(df.assign(w=w), npartitions=3)
    ours = tl.TreeMixture(**opts).fit(ddf, sample_weight="w")
    df.assign(w=w).to_csv(tmp_path / "rows.csv", index=False)
    read = pd.read_csv(tmp_path / "rows.csv").drop(columns="w")  # as the file holds it (text b)
    from_file = tl.TreeMixture(**opts).fit(tmp_path / "rows.csv", sample_weight="w")
    for fitted, reference, rows in (
        (ours, expected, df),
        (from_file, tl.TreeMixture(**opts).fit(read, sample_weight=w), read),
    ):
        np.testing.assert_array_equal(fitted.weights_, reference.weights_)
        assert fitted.lower_bounds_ == reference.lower_bounds_
        assert [c.states for c in fitted.components_] == [c.states for c in reference.components_]
        np.testing.assert_array_equal(fitted.score_samples(rows), reference.score_samples(rows))


# ---------------------------------------------------------------- numeric, mixed and text classifiers
def labelled_numbers(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(["p", "q", "r"], n)
    shift = pd.Series(y).map({"p": 0.0, "q": 1.0, "r": -1.0}).to_numpy()
    a = rng.normal(size=n) + shift
    return pd.DataFrame(
        {
            "a": a,
            "b": 0.5 * a + rng.normal(size=n),
            "c": rng.normal(size=n) - shift,
            "colour": rng.choice(["red", "blue"], n),
            "y": y,
            "w": rng.integers(0, 3, n),
        }
    )


NUMERIC_CLASSIFIERS = {
    "GaussianClassifier(full)": lambda: tl.GaussianClassifier("full"),
    "GaussianClassifier(isotropic)": lambda: tl.GaussianClassifier("isotropic"),
    "GaussianTAN": lambda: tl.GaussianTAN(),
    # a Dask frame keeps every number Gaussian under numbers="auto" (the choice needs the
    # rows in memory): the pandas twin takes numbers="gaussian" too
    "MixedNaiveBayes": lambda: tl.MixedNaiveBayes(numbers="gaussian"),
    "TextNaiveBayes(bernoulli)": lambda: tl.TextNaiveBayes("bernoulli", binarize=0.5),
}


@pytest.mark.parametrize("name", list(NUMERIC_CLASSIFIERS))
def test_numeric_mixed_and_text_classifiers_on_the_cluster_equal_pandas(client, name):
    df = labelled_numbers(900, seed=16)
    columns = ["a", "b", "c", "colour"] if name == "MixedNaiveBayes" else ["a", "b", "c"]
    if name.startswith("Text"):  # term counts
        df[["a", "b", "c"]] = np.floor(df[["a", "b", "c"]].abs() * 2)
    ddf = dd.from_pandas(df, npartitions=3)
    make = NUMERIC_CLASSIFIERS[name]
    # the statistics of each partition on its worker, weights a column of the frame
    with distributed.get_task_stream(client) as stream:
        ours = make().fit(ddf[[*columns, "w"]], ddf["y"], sample_weight="w")
    assert any("summarise_partition" in str(t["key"]) for t in stream.data)
    theirs = make().fit(df[columns], df["y"], sample_weight=df["w"])
    assert ours.classes_.tolist() == theirs.classes_.tolist() == ["p", "q", "r"]
    assert ours.class_name_ == "y" and ours.feature_names_in_.tolist() == columns
    np.testing.assert_array_equal(ours.class_count_, theirs.class_count_)
    X = df[columns].iloc[:200]
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-10)
    # the weights as a Dask Series partitioned like the frame: the same model
    weights = dd.from_pandas(df["w"], npartitions=3)
    again = make().fit(ddf[columns], ddf["y"], sample_weight=weights)
    np.testing.assert_allclose(again.predict_proba(X), ours.predict_proba(X), rtol=0, atol=1e-12)
    # y the name of the frame's class column
    named = make().fit(ddf[[*columns, "y", "w"]], "y", sample_weight="w")
    assert named.class_name_ == "y" and named.feature_names_in_.tolist() == columns
    np.testing.assert_allclose(named.predict_proba(X), ours.predict_proba(X), rtol=0, atol=1e-12)


def test_numeric_columns_of_a_dask_frame_are_refused_by_default(client):
    # pandas cuts "a" and "d" into MDL bins; Dask would count them as states: a silently
    # different model, so the default refuses by dtype, naming the fixes
    df = mixed_frame(600, seed=15)
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(tl.TreelearnError, match=r"'a', 'd'.*numbers=\"states\"") as caught:
        tl.NaiveBayes().fit(ddf.drop(columns="y"), ddf["y"])
    assert "Discretizer" in str(caught.value) and "pandas" in str(caught.value)
    # categorical= keeps them as states, as pandas does: the same model
    keep = {"categorical": ["a", "d"]}
    ours = tl.NaiveBayes(**keep).fit(ddf.drop(columns="y"), ddf["y"])
    theirs = tl.NaiveBayes(**keep).fit(df.drop(columns="y"), df["y"])
    assert ours.model_ == theirs.model_
