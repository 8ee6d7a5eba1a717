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
    "bagged CutsetNetwork": lambda: tl.CutsetNetwork(max_depth=2, n_estimators=3,
                                                     random_state=0),
    "BaggedTrees": lambda: tl.BaggedTrees(n_estimators=2, n_components=2, max_iter=8,
                                          random_state=0),
    "TreeMixture": lambda: tl.TreeMixture(n_components=range(1, 4), max_iter=20,
                                          random_state=0),
}


@pytest.mark.parametrize("name", LEARNERS)
def test_files_and_dask_give_the_in_memory_fit(name, asia, files):
    train, valid = asia.iloc[:2400], asia.iloc[2400:]
    want = LEARNERS[name]().fit(train, validation=valid)
    folder = os.path.dirname(files["csv"])
    train.to_csv(os.path.join(folder, "train.csv"), index=False)
    train.to_parquet(os.path.join(folder, "train.parquet"), index=False)
    sources = {"csv": os.path.join(folder, "train.csv"),
               "parquet": os.path.join(folder, "train.parquet"),
               "dask": dd.from_pandas(train, npartitions=3)}
    for kind, source in sources.items():
        got = LEARNERS[name]().fit(source, validation=valid)
        np.testing.assert_allclose(got.score_samples(asia), want.score_samples(asia),
                                   rtol=1e-10, err_msg=kind)


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
        np.testing.assert_allclose(got.lower_bounds_, want.lower_bounds_, rtol=1e-10,
                                   err_msg=kind)
        np.testing.assert_allclose(got.score_samples(data), want.score_samples(data),
                                   rtol=1e-9, err_msg=kind)


def test_streamed_mixture_em_equals_the_in_memory_em(asia, files):
    rng = np.random.default_rng(2)
    holes = asia.mask(rng.random(asia.shape) < 0.1)  # EM over the missing cells too
    train, valid = holes.iloc[:2400], asia.iloc[2400:]
    folder = os.path.dirname(files["csv"])
    csv, parquet = os.path.join(folder, "holes.csv"), os.path.join(folder, "holes.parquet")
    train.to_csv(csv, index=False)
    train.to_parquet(parquet, index=False)
    opts = dict(n_components=3, init="k_best", max_iter=8, tol=0, missing="em",
                n_iter_no_change=3)
    want = tl.TreeMixture(**opts).fit(train, validation=valid)
    for kind, source in {"csv": csv, "parquet": parquet,
                         "dask": dd.from_pandas(train, npartitions=2)}.items():
        got = tl.TreeMixture(**opts, chunksize=700).fit(source, validation=valid)
        np.testing.assert_allclose(got.lower_bounds_, want.lower_bounds_, rtol=1e-10,
                                   err_msg=kind)
        np.testing.assert_allclose(got.validation_scores_, want.validation_scores_,
                                   rtol=1e-10, err_msg=kind)
        np.testing.assert_allclose(got.score_samples(asia), want.score_samples(asia),
                                   rtol=1e-9, err_msg=kind)
    with pytest.raises(tl.TreelearnError, match="init='k_best'"):
        tl.TreeMixture(chunksize=700).fit(csv)
    with pytest.raises(tl.TreelearnError, match="one n_components"):
        tl.TreeMixture(n_components=range(2, 4), init="k_best", chunksize=700).fit(csv)
