"""Every density learner of issue 23 from a CSV file, a Parquet file and a Dask DataFrame
(on the workers of a 2-process LocalCluster) against the same fit in memory.

HiddenTree and HiddenMarkovModel also stream (``chunksize``: a file read chunk by chunk at
every EM pass, a Dask DataFrame summarised partition by partition on its workers); the
others read a file whole and compute a Dask DataFrame, and must give the in-memory model.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

import treelearn as tl

dd = pytest.importorskip("dask.dataframe")
from test_dask import client  # noqa: E402,F401  (the 2-process LocalCluster fixture)

HERE = os.path.dirname(__file__)
# every Dask fit runs on the cluster; EM from files and Dask: the second CI job (pytest -m slow)
pytestmark = [pytest.mark.usefixtures("client"), pytest.mark.slow]


@pytest.fixture(scope="module")
def asia() -> pd.DataFrame:
    return pd.read_csv(os.path.join(HERE, "..", "datasets", "asia.csv")).head(3000)


@pytest.fixture(scope="module")
def files(asia, tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("density_sources")
    asia.to_csv(folder / "asia.csv", index=False)
    asia.to_parquet(folder / "asia.parquet", index=False)
    return {"csv": folder / "asia.csv", "parquet": folder / "asia.parquet"}


def sequences() -> pd.DataFrame:
    """Fixed-length sequences from a 2-state HMM (columns = time steps)."""
    rng = np.random.default_rng(5)
    n, T = 1500, 6
    h = np.zeros((n, T), dtype=int)
    h[:, 0] = rng.random(n) < 0.4
    for t in range(1, T):
        h[:, t] = np.where(rng.random(n) < 0.85, h[:, t - 1], 1 - h[:, t - 1])
    emit = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])
    x = (emit[h].cumsum(axis=2) < rng.random((n, T, 1))).sum(axis=2)
    return pd.DataFrame(x, columns=[f"t{t}" for t in range(T)])


LEARNERS = {
    "HiddenTree": lambda: tl.HiddenTree(n_states=2, random_state=0, max_iter=3),
    "CutsetNetwork": lambda: tl.CutsetNetwork(max_depth=2, min_rows=100),
    "bagged CutsetNetwork": lambda: tl.CutsetNetwork(max_depth=2, n_estimators=3, random_state=0),
    "BaggedTrees": lambda: tl.BaggedTrees(
        n_estimators=2, n_components=2, max_iter=8, random_state=0
    ),
    "TreeMixture": lambda: tl.TreeMixture(n_components=range(1, 4), max_iter=20, random_state=0),
}


@pytest.mark.parametrize("name", LEARNERS)
def test_files_and_dask_give_the_in_memory_fit(name, asia, files):
    train, valid = asia.iloc[:2400], asia.iloc[2400:]
    want = LEARNERS[name]().fit(train, validation=valid)
    folder = os.path.dirname(files["csv"])
    train.to_csv(os.path.join(folder, "train.csv"), index=False)
    train.to_parquet(os.path.join(folder, "train.parquet"), index=False)
    sources = {
        "csv": os.path.join(folder, "train.csv"),
        "parquet": os.path.join(folder, "train.parquet"),
        "dask": dd.from_pandas(train, npartitions=3),
    }
    for kind, source in sources.items():
        got = LEARNERS[name]().fit(source, validation=valid)
        np.testing.assert_allclose(
            got.score_samples(asia), want.score_samples(asia), rtol=1e-10, err_msg=kind
        )


@pytest.mark.parametrize("learner", ["HiddenTree", "HiddenMarkovModel"])
def test_streamed_em_equals_the_in_memory_em(learner, files, asia):
    if learner == "HiddenTree":
        data, opts = asia.head(1200), dict(n_states=2, random_state=0, max_iter=3)
        make = tl.HiddenTree
    else:
        data, opts = sequences(), dict(n_states=2, random_state=0, max_iter=8)
        make = tl.HiddenMarkovModel
    want = make(**opts).fit(data)
    folder = os.path.dirname(files["csv"])
    path = os.path.join(folder, f"{learner}.parquet")
    data.to_parquet(path, index=False)
    csv = os.path.join(folder, f"{learner}.csv")
    data.to_csv(csv, index=False)
    file = path if learner == "HiddenTree" else csv  # each file kind once
    for kind, source in {"file": file, "dask": dd.from_pandas(data, npartitions=3)}.items():
        got = make(**opts, chunksize=500).fit(source)  # several chunks / partitions per pass
        np.testing.assert_allclose(got.lower_bounds_, want.lower_bounds_, rtol=1e-10, err_msg=kind)
        np.testing.assert_allclose(
            got.score_samples(data), want.score_samples(data), rtol=1e-9, err_msg=kind
        )


def test_streamed_mixture_em_equals_the_in_memory_em(asia, files):
    rng = np.random.default_rng(2)
    holes = asia.mask(rng.random(asia.shape) < 0.1)  # EM over the missing cells too
    train, valid = holes.iloc[:2400], asia.iloc[2400:]
    folder = os.path.dirname(files["csv"])
    csv, parquet = os.path.join(folder, "holes.csv"), os.path.join(folder, "holes.parquet")
    train.to_csv(csv, index=False)
    train.to_parquet(parquet, index=False)
    opts = dict(n_components=3, init="k_best", max_iter=8, tol=0, missing="em", n_iter_no_change=3)
    want = tl.TreeMixture(**opts).fit(train, validation=valid)
    for kind, source in {
        "csv": csv,
        "parquet": parquet,
        "dask": dd.from_pandas(train, npartitions=2),
    }.items():
        got = tl.TreeMixture(**opts, chunksize=700).fit(source, validation=valid)
        np.testing.assert_allclose(got.lower_bounds_, want.lower_bounds_, rtol=1e-10, err_msg=kind)
        np.testing.assert_allclose(
            got.validation_scores_, want.validation_scores_, rtol=1e-10, err_msg=kind
        )
        np.testing.assert_allclose(
            got.score_samples(asia), want.score_samples(asia), rtol=1e-9, err_msg=kind
        )
    with pytest.raises(tl.TreelearnError, match="init='random' or init='k_best', not 'k-means"):
        tl.TreeMixture(init="k-means++", chunksize=700).fit(csv)


@pytest.mark.parametrize(
    "opts",
    [
        dict(n_components=3, init="random", random_state=0, n_init=2),
        dict(n_components=range(1, 6), init="random", random_state=3),
        dict(n_components=[2, 3, 4], init="k_best", missing="em"),
    ],
)
def test_streamed_random_start_and_choice_of_k_equal_the_in_memory_fit(asia, files, opts):
    # one pass per EM iteration from the random start (its seed rows fetched by passes with
    # the same draws; asia repeats rows, so seeds that repeat an earlier one are redrawn)
    # and k chosen on validation rows by splitting the weakest components, as in memory
    rng = np.random.default_rng(6)
    data = asia.mask(rng.random(asia.shape) < 0.1) if opts.get("missing") else asia
    train, valid = data.iloc[:2400], asia.iloc[2400:]
    folder = os.path.dirname(files["csv"])
    csv = os.path.join(folder, "stream.csv")
    train.to_csv(csv, index=False)
    opts = dict(opts, max_iter=10, tol=0, n_iter_no_change=3)
    want = tl.TreeMixture(**opts).fit(train, validation=valid)
    for kind, source in {"csv": csv, "dask": dd.from_pandas(train, npartitions=3)}.items():
        got = tl.TreeMixture(**opts, chunksize=700).fit(source, validation=valid)
        assert got.n_components_ == want.n_components_, kind
        if want.n_components_scores_ is not None:
            assert got.n_components_scores_ == pytest.approx(want.n_components_scores_, rel=1e-9)
        # the same EM from the same start: the counts of each pass are sums of the same
        # weighted rows, grouped by chunk instead of at once, so they differ by round-off
        # (~1e-16 relative) that each iteration carries on; 1e-9 after 10 iterations on
        # ~-2.3 nats per row leaves that room and catches any other difference (one row
        # or one start draw moves the bound by more than 1e-5)
        np.testing.assert_allclose(got.lower_bounds_, want.lower_bounds_, rtol=1e-9, err_msg=kind)
        np.testing.assert_allclose(
            got.validation_scores_, want.validation_scores_, rtol=1e-9, err_msg=kind
        )
        np.testing.assert_allclose(
            got.score_samples(asia), want.score_samples(asia), rtol=1e-9, err_msg=kind
        )


def test_streamed_random_seeds_are_the_in_memory_seeds(tmp_path):
    # rows mostly identical: the drawn seeds repeat each other, and the redraws (two passes
    # each) must land on the rows the in-memory draw picks
    from treelearn.encoding._table import encode
    from treelearn.learners import _mixture as mixture
    from treelearn.sources._passes import merge_identical_rows, row_passes

    rng = np.random.default_rng(0)
    x = np.zeros((600, 4), dtype=int)
    odd = rng.random(600) < 0.05
    x[odd] = rng.integers(0, 3, (odd.sum(), 4))
    frame = pd.DataFrame(x, columns=list("abcd"))
    frame.to_csv(tmp_path / "x.csv", index=False)
    table, group = merge_identical_rows(encode(frame))
    passes = row_passes(tmp_path / "x.csv", learner="t", chunksize=70)
    for seed in range(5):
        want = mixture._initial_responsibilities(
            table, group, 4, "random", np.random.default_rng(seed)
        )
        start = mixture._streamed_start(passes, 4, "random", np.random.default_rng(seed), None)
        np.testing.assert_array_equal(start(table.codes), want)
