"""Issue 39, item 4: pairwise mutual information from few rows (``missing="pairwise"``) is
Miller-Madow bias-corrected, with a warning naming the rows each sparse column uses, so a
random column observed in few rows does not become an inner hub of the tree."""

from __future__ import annotations

import contextlib
import io
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mutual_info_score

import treelearn as tl
from treelearn.cli._main import main
from treelearn.sources._count import count
from treelearn.stats._information import PairwiseRowsWarning, miller_madow_bias


def _table(seed=0, n=534, noise=0.2):
    """A chain a - b - c - d of dependent columns and a random column z observed in ~7 %."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = (a + (rng.random(n) < noise) * rng.integers(0, 3, n)) % 3
    c = (b + (rng.random(n) < noise) * rng.integers(0, 3, n)) % 3
    d = (c + (rng.random(n) < noise) * rng.integers(0, 3, n)) % 3
    z = rng.integers(0, 4, n).astype(float)
    z[rng.random(n) < 0.93] = np.nan
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "z": z})


def test_miller_madow_bias_equals_the_entropy_corrections_by_hand():
    df = _table()
    stats = count(df, missing="pairwise")
    bias = miller_madow_bias(stats.counts)
    plug_in = stats.mutual_information()
    names = list(df.columns)
    for i, x in enumerate(names):
        for j, y in enumerate(names):
            if i == j:
                continue
            both = df[[x, y]].dropna()
            table = pd.crosstab(both[x], both[y])
            n = len(both)
            # H + (m - 1) / (2n) for H(x), H(y), H(x, y): the MI's bias is the difference
            m_xy = int((table.to_numpy() > 0).sum())
            m_x, m_y = int((table.sum(axis=1) > 0).sum()), int((table.sum(axis=0) > 0).sum())
            assert bias[i, j] == pytest.approx((m_xy - m_x - m_y + 1) / (2 * n), abs=1e-15)
            assert plug_in[i, j] == pytest.approx(mutual_info_score(both[x], both[y]), abs=1e-12)


def _plug_in_degree(df):
    """z's degree in the maximum spanning tree of the plug-in MI (networkx, independently)."""
    mi = count(df, missing="pairwise").mutual_information()
    names = list(df.columns)
    graph = nx.Graph()
    for i, x in enumerate(names):
        for j in range(i + 1, len(names)):
            graph.add_edge(x, names[j], weight=mi[i, j])
    return nx.maximum_spanning_tree(graph).degree("z")


def test_the_sparse_random_column_is_no_hub_and_is_named():
    with pytest.warns(PairwiseRowsWarning, match=r"column 'z' is observed in \d+ of 534 rows"):
        tl.chow_liu(_table(), missing="pairwise")
    # weak real dependencies: the plug-in MI of z from ~37 rows (bias alone ~0.08 nats)
    # beats them, and z becomes an inner hub; corrected, it is a leaf (or less central)
    plug_in, corrected = [], []
    for seed in range(4):
        df = _table(seed, noise=0.7)
        plug_in.append(_plug_in_degree(df))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PairwiseRowsWarning)
            corrected.append(tl.chow_liu(df, missing="pairwise").graph.degree("z"))
    assert plug_in == [2, 4, 1, 3]
    assert corrected == [2, 1, 1, 1]  # Miller-Madow lessens the bias; it does not remove noise


def test_complete_tables_keep_the_plug_in_tree():
    df = _table().drop(columns=["z"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PairwiseRowsWarning)  # no correction, no warning
        model = tl.chow_liu(df, missing="pairwise")
    plug_in = count(df).mutual_information()
    weights = sorted(plug_in[list(df.columns).index(u), list(df.columns).index(v)]
                     for u, v in model.graph.edges)  # fmt: skip
    # the chain a-b-c-d: the three largest plug-in pairs
    assert sorted(tuple(sorted(e)) for e in model.graph.edges) == [
        ("a", "b"),
        ("b", "c"),
        ("c", "d"),
    ]
    assert weights[0] > 0


def test_the_command_says_it_as_a_note(tmp_path):
    _table().to_csv(tmp_path / "t.csv", index=False)
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert main(["learn", str(tmp_path / "t.csv"), "--missing", "pairwise"]) == 0
    assert "treelearn: note: pairwise counts: column 'z' is observed in" in err.getvalue()
    assert "Warning" not in err.getvalue()
