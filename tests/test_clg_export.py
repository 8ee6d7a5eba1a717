"""A CLG tree's exports (issue 25): pyAgrum's CLG for a tree of continuous columns (its own
log-likelihood equals ours), clear refusals for discrete columns (pyAgrum) and for pgmpy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelearn as tl


def _numbers():
    rng = np.random.default_rng(0)
    n = 100
    u = rng.normal(size=n)
    v = 2 * u + rng.normal(size=n)
    return pd.DataFrame({"u": u, "v": v, "w": rng.normal(v, 1.0), "z": rng.normal(3, 2, n)})


def test_pyagrum_clg_has_our_likelihood_row_by_row(tmp_path):
    pytest.importorskip("pyagrum.clg")
    df = _numbers()
    model = tl.clg_tree(df)
    net = model.to_pyagrum()
    assert sorted(net.names()) == ["u", "v", "w", "z"]
    assert {(net.name(a), net.name(b)) for a, b in net.arcs()} == set(model.graph.edges())
    ours = model.log_likelihood(df, per_row=True)
    for i in range(0, len(df), 20):  # pyAgrum reads a CSV: one file per row checked
        path = tmp_path / f"row{i}.csv"
        df.iloc[[i]].to_csv(path, index=False)
        # pyAgrum multiplies the nodes' normal pdfs and takes the log, we add log densities:
        # the same numbers up to round-off (1e-15 relative), far below 1e-9
        assert net.logLikelihood(str(path)) == pytest.approx(ours[i], abs=1e-9)
    df.to_csv(tmp_path / "all.csv", index=False)
    assert net.logLikelihood(str(tmp_path / "all.csv")) == pytest.approx(ours.sum(), abs=1e-9)


def test_discrete_columns_are_refused_by_pyagrum_and_pgmpy_with_the_way_out():
    pytest.importorskip("pyagrum.clg")
    df = _numbers().assign(g=lambda d: np.where(d["u"] > 0, "hi", "lo"))
    model = tl.clg_tree(df)
    with pytest.raises(tl.TreelearnError, match=r"Gaussian variables only.*\['g'\].*discretize"):
        model.to_pyagrum()
    with pytest.raises(tl.TreelearnError, match="pgmpy has no hybrid Bayesian networks"):
        model.to_pgmpy()
