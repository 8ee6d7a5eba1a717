"""The fast paths give exactly what the plain ones give.

* counting over reduced indicators (dense BLAS and scipy.sparse products) equals
  the plain one-hot product, with missing values and in any chunking;
* the whole-frame and per-column integer encoders equal ``pd.factorize``;
* the spanning tree found from the MI matrix (``spanning_skeleton``) equals
  ``maximum_spanning_tree(complete_graph(...))`` edge for edge, with ties, and
  the penalised forests likewise;
* ``tl.chow_liu`` on a ``scipy.sparse`` 0/1 matrix equals the dense DataFrame path.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import treelearn as tl
import treelearn.encoding._table as data_mod
import treelearn.stats._counts as counts_mod
from treelearn.encoding._table import encode
from treelearn.stats._counts import count_codes, offsets_of, pair_counts
from treelearn.stats._information import mutual_information_matrix
from treelearn.structure._trees import (
    TIE_DECIMALS,
    complete_graph,
    maximum_spanning_tree,
    penalised_forest,
    round_ties,
    spanning_skeleton,
    spanning_tree_edges,
)

# random frames of many-valued integers: the note about them is not this module's subject
pytestmark = pytest.mark.filterwarnings("ignore::treelearn.NumericColumnWarning")


def plain_counts(codes: np.ndarray, cardinalities) -> np.ndarray:
    """``X.T @ X`` of the full one-hot matrix in int64, no tricks."""
    offsets = offsets_of(np.asarray(cardinalities))
    n, d = codes.shape
    X = np.zeros((n, int(offsets[-1])), dtype=np.int64)
    for j in range(d):
        ok = codes[:, j] >= 0
        X[np.flatnonzero(ok), offsets[j] + codes[ok, j]] = 1
    return X.T @ X


def random_codes(rng, n, d, max_card=5, missing=0.0):
    card = rng.integers(1, max_card + 1, size=d)
    codes = (rng.integers(0, 1000, size=(n, d)) % card).astype(np.int8)
    if missing:
        holes = (rng.random((n, d)) < missing) & (rng.random(d) < 0.6)
        codes[holes] = -1
    return codes, card


# ----------------------------------------------------------------------------- counting
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_reduced_counts_equal_plain_one_hot(monkeypatch, sparse, missing):
    if sparse:  # force the scipy.sparse product whatever the width and density
        monkeypatch.setattr(counts_mod, "SPARSE_MIN_WIDTH", 0)
        monkeypatch.setattr(counts_mod, "SPARSE_MAX_DENSITY", 10.0)
    rng = np.random.default_rng(7)
    for _ in range(40):
        codes, card = random_codes(
            rng, int(rng.integers(0, 120)), int(rng.integers(1, 7)), missing=missing
        )
        expected = plain_counts(codes, card)
        for chunk in (None, 1, 13):
            got = count_codes(codes, card, chunk)
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, expected)


def test_sparse_product_chosen_for_sparse_wide_data_and_exact():
    rng = np.random.default_rng(3)
    codes = (rng.random((3000, 400)) < 0.005).astype(np.int8)
    codes[rng.random(codes.shape) < 0.001] = -1
    card = np.full(400, 2)
    np.testing.assert_array_equal(count_codes(codes, card), plain_counts(codes, card))


# ----------------------------------------------------------------------------- encoding
def _plain_encode(df, **kw):
    saved = data_mod._small_integer_codes, data_mod._small_integer_frame
    data_mod._small_integer_codes = lambda s: None
    data_mod._small_integer_frame = lambda *a: None
    try:
        return encode(df, **kw)
    finally:
        data_mod._small_integer_codes, data_mod._small_integer_frame = saved


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int64", "uint64"])
@pytest.mark.parametrize("copy", [True, False])
def test_integer_fast_encoders_equal_factorize(dtype, copy):
    rng = np.random.default_rng(11)
    for _ in range(25):
        n, d = int(rng.integers(1, 60)), int(rng.integers(1, 5))
        if dtype == "bool":
            A = rng.random((n, d)) < 0.5
        else:
            A = rng.integers(0, int(rng.choice([1, 2, 5, 126, 130])) + 1, size=(n, d))
            A = A * int(rng.choice([1, 3]))  # gaps between values
            if dtype.startswith("int"):
                A = A - int(rng.integers(0, 50))
            A = A.astype(dtype)
        df = pd.DataFrame(A, columns=[f"c{j}" for j in range(d)], copy=copy)
        mixed = df.assign(extra=np.arange(n) % 3)  # two dtypes: the per-column path
        for frame in (df, mixed):
            fast, plain = encode(frame, max_states=1000), _plain_encode(frame, max_states=1000)
            assert fast.states == plain.states
            assert [type(s) for t in fast.states for s in t] == [
                type(s) for t in plain.states for s in t
            ]
            assert fast.codes.dtype == plain.codes.dtype
            np.testing.assert_array_equal(fast.codes, plain.codes)


def test_integer_fast_encoder_keeps_state_limit():
    df = pd.DataFrame({"a": np.arange(120) % 110})
    with pytest.raises(tl.TooManyStatesError, match="'a'"):
        encode(df)


# ----------------------------------------------------------------------------- spanning trees
@given(st.lists(st.floats(-10, 10, allow_nan=False), min_size=1, max_size=50))
@settings(max_examples=200, deadline=None)
def test_round_ties_equals_python_round(values):
    values = values + [v + 5e-13 for v in values] + [0.5e-12, 2.5e-12, -0.5e-12, 1e20, -1e17]
    got = round_ties(np.array(values))
    assert [float(x) for x in got] == [round(v, TIE_DECIMALS) for v in values]


def tied_weights(rng, d):
    """Symmetric MI-like weights with many exact ties and near-ties below 1e-12."""
    levels = rng.choice([0.0, 0.1, 0.25, 0.5, 0.7], size=(d, d))
    W = levels + rng.choice([0.0, 1e-14, -1e-14, 3e-13], size=(d, d))
    W = np.triu(W, 1)
    return W + W.T


def nx_path(names, W, states=None, forest=None, n=None):
    G = complete_graph(names, W, states)
    if n is not None:
        G.graph["n"] = n
    return maximum_spanning_tree(G) if forest is None else penalised_forest(G, forest)


def same_graph(A: nx.Graph, B: nx.Graph) -> None:
    assert list(A.nodes(data=True)) == list(B.nodes(data=True))
    assert list(A.edges()) == list(B.edges())
    for u, v in A.edges():
        assert A.edges[u, v].keys() == B.edges[u, v].keys()
        for key in A.edges[u, v]:
            assert A.edges[u, v][key] == B.edges[u, v][key]
    assert A.graph == B.graph


def test_matrix_tree_equals_networkx_tree_with_ties():
    rng = np.random.default_rng(5)
    for d in (1, 2, 3, 5, 8, 13, 30):
        for _ in range(30):
            W = tied_weights(rng, d)
            names = [f"v{j}" for j in range(d)]
            same_graph(spanning_skeleton(names, W), nx_path(names, W))


def test_matrix_forest_equals_networkx_forest():
    rng = np.random.default_rng(9)
    for d in (2, 4, 9, 20):
        for _ in range(20):
            W = tied_weights(rng, d) * 0.01
            names = list(range(d))
            states = [list(range(int(k))) for k in rng.integers(1, 4, size=d)]
            for forest, n in (("bic", 500), (0.002, None), (0.0, None)):
                got = spanning_skeleton(names, W, states, forest=forest, n=n if n else 100)
                want = nx_path(names, W, states, forest=forest, n=n if n else 100)
                same_graph(got, want)


def test_spanning_tree_edges_in_kruskal_order():
    W = np.array([[0, 0.5, 0.5, 0.1], [0.5, 0, 0.5, 0.1], [0.5, 0.5, 0, 0.1], [0.1, 0.1, 0.1, 0]])
    assert spanning_tree_edges(W) == [(0, 1), (0, 2), (0, 3)]


def graph_pipeline(df, forest=None, mi_alpha=None, alpha=0.0):
    """Chow-Liu through the public graph stages: mi_graph -> networkx spanning tree -> orient -> CPTs."""
    G = tl.mi_graph(df, mi_alpha=mi_alpha)
    T = maximum_spanning_tree(G) if forest is None else penalised_forest(G, forest)
    return tl.fit_cpts(tl.orient(T), df, alpha=alpha)


def test_chow_liu_matrix_path_equals_graph_path():
    """Data with duplicated columns (exact MI ties): chow_liu (the matrix path) learns
    the model the graph stages give."""
    rng = np.random.default_rng(1)
    base = rng.integers(0, 3, size=(400, 12))
    df = pd.DataFrame(np.hstack([base, base[:, :6], rng.integers(0, 2, size=(400, 4))]))
    df.columns = [f"c{j}" for j in range(df.shape[1])]
    for kwargs in ({}, {"forest": "bic"}, {"forest": 0.01}, {"mi_alpha": 1.0, "alpha": 1.0}):
        by_matrix = tl.chow_liu(df, **{"alpha": 0.0, **kwargs})
        by_graph = graph_pipeline(df, **kwargs)
        assert list(by_matrix.graph.edges(data="weight")) == list(
            by_graph.graph.edges(data="weight")
        )
        for v in df.columns:
            np.testing.assert_array_equal(
                by_matrix.graph.nodes[v]["cpt"], by_graph.graph.nodes[v]["cpt"]
            )


def test_mi_matrix_unchanged_by_blockwise_computation():
    """The block-row MI equals the textbook per-pair formula."""
    rng = np.random.default_rng(2)
    codes, _ = random_codes(rng, 300, 6, missing=0.1)
    df = pd.DataFrame({f"c{j}": pd.Series(codes[:, j]).where(codes[:, j] >= 0) for j in range(6)})
    table = encode(df, missing="pairwise")
    pc = pair_counts(table)
    for alpha in (None, 0.5):
        mi = mutual_information_matrix(pc, alpha)
        for i in range(6):
            for j in range(6):
                if i == j:
                    continue
                N = pc.block(i, j).astype(float) + (alpha or 0)
                P = N / N.sum()
                outer = np.outer(P.sum(1), P.sum(0))
                ok = P > 0
                assert mi[i, j] == pytest.approx(
                    np.sum(P[ok] * np.log(P[ok] / outer[ok])), abs=1e-12
                )


# ----------------------------------------------------------------------------- scipy.sparse input
@pytest.mark.parametrize("dtype", ["int64", "float64", "bool", "uint8"])
def test_chow_liu_on_scipy_sparse_equals_dense(dtype):
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(4)
    A = (rng.random((500, 15)) < 0.1).astype(dtype)
    A[:, 3] = A[:, 2]  # a tie
    A[:, 7] = 0  # a one-state column
    if dtype != "bool":
        A[:, 9] = 1  # the other one-state column
    names = [f"w{j}" for j in range(15)]
    dense = tl.chow_liu(pd.DataFrame(A, columns=names), alpha=1.0)
    for fmt in ("csr", "csc", "coo"):
        sparse = tl.chow_liu(sp.csr_matrix(A).asformat(fmt), names=names, alpha=1.0)
        assert list(sparse.graph.edges(data="weight")) == list(dense.graph.edges(data="weight"))
        for v in names:
            assert sparse.graph.nodes[v]["states"] == dense.graph.nodes[v]["states"]
            np.testing.assert_array_equal(sparse.graph.nodes[v]["cpt"], dense.graph.nodes[v]["cpt"])
    default_names = tl.chow_liu(sp.csr_matrix(A))
    assert list(default_names.graph.nodes) == list(range(15))


def test_scipy_sparse_bad_input():
    sp = pytest.importorskip("scipy.sparse")
    with pytest.raises(ValueError, match="0/1"):
        tl.chow_liu(sp.csr_matrix(np.array([[0, 2], [1, 0]])))
    with pytest.raises(ValueError, match="names"):
        tl.chow_liu(sp.csr_matrix(np.eye(3)), names=["a", "b"])
    with pytest.raises(tl.DuplicateColumnError, match="'a'"):
        tl.chow_liu(sp.csr_matrix(np.eye(3)), names=["a", "b", "a"])
    with pytest.raises(TypeError, match=r"scipy\.sparse"):
        tl.chow_liu(pd.DataFrame({"a": [0, 1]}), names=["a"])


def test_sparse_input_explicit_zeros_and_duplicates_are_harmless():
    sp = pytest.importorskip("scipy.sparse")
    rows, cols = np.array([0, 0, 1, 2, 2]), np.array([0, 1, 1, 0, 1])
    M = sp.coo_matrix((np.array([1, 0, 1, 1, 0]), (rows, cols)), shape=(4, 2)).tocsr()
    before = M.data.copy()
    model = tl.chow_liu(M, names=["a", "b"])
    np.testing.assert_array_equal(M.data, before)  # the caller's matrix is untouched
    dense = tl.chow_liu(pd.DataFrame(M.toarray(), columns=["a", "b"]))
    np.testing.assert_array_equal(model.graph.nodes["b"]["cpt"], dense.graph.nodes["b"]["cpt"])
