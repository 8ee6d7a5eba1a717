"""Gaussian trees, Gaussian classifiers and text naive Bayes: speed against the usual peers.

    .venv/bin/python benchmarks/bench_gaussian.py [--quick] [--json PATH]

1. **Gaussian Chow-Liu** (``tl.gaussian_chow_liu``, structure + parameters) on
   synthetic correlated data (n x d, seed 0), against a bare numpy/scipy
   implementation a user would write (``np.cov`` -> ``-1/2 log(1 - rho^2)`` ->
   ``scipy.sparse.csgraph.minimum_spanning_tree`` on ``-MI`` -> per-edge least
   squares from the covariance), and against pgmpy's
   ``LinearGaussianBayesianNetwork.fit`` (parameters only, on the tree treelearn
   found: pgmpy has no Gaussian structure learner to compare with).
2. **GaussianClassifier** fit + ``predict_proba`` (100,000 x 20, 5 classes)
   against scikit-learn's QDA, LDA (``solver="lsqr"``) and ``GaussianNB``.
3. **TextNaiveBayes** fit + ``predict_proba`` on a scipy CSR bag of words
   (20,000 documents x 50,000 terms, 0.2% density) against ``MultinomialNB`` /
   ``BernoulliNB`` (target: within 2x).

BLAS is pinned to one thread (threadpoolctl) and the script prints that.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine, pin_blas, print_table, row, timeit, write_json

import treelearn as tl

BENCH = "gaussian"


def correlated(n: int, d: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[:, 1:] += 0.8 * X[:, :-1]  # a chain plus noise
    X = X @ (np.eye(d) + 0.05 * rng.standard_normal((d, d)))
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(d)])


def bare_numpy_tree(X: np.ndarray) -> tuple:
    """What a user writes with numpy and scipy: MI from correlations, MST, regressions."""
    from scipy.sparse.csgraph import breadth_first_order, minimum_spanning_tree

    mean = X.mean(axis=0)
    cov = np.cov(X, rowvar=False, bias=True)
    sd = np.sqrt(np.diag(cov))
    rho2 = np.clip((cov / np.outer(sd, sd)) ** 2, 0, 1 - 1e-15)
    mi = -0.5 * np.log1p(-rho2)
    np.fill_diagonal(mi, 0)
    mst = minimum_spanning_tree(-np.triu(mi))  # zero weights would be missing edges; MI > 0 here
    _, pred = breadth_first_order(mst, 0, directed=False)
    child = np.flatnonzero(pred >= 0)
    par = pred[child]
    b = cov[par, child] / cov[par, par]
    a = mean[child] - b * mean[par]
    s2 = cov[child, child] - b * cov[par, child]
    return child, par, a, b, s2


def tree_rows(cases: list, repeat: int) -> list:
    from pgmpy.models import LinearGaussianBayesianNetwork

    rows = []
    for n, d in cases:
        df = correlated(n, d)
        case = f"{n:,} x {d}"
        t_tl = timeit(lambda df=df: tl.gaussian_chow_liu(df), repeat=repeat)
        X = df.to_numpy()
        t_np = timeit(lambda X=X: bare_numpy_tree(X), repeat=repeat)
        model = t_tl["result"]
        child, par, *_ = t_np["result"]
        same = {frozenset(e) for e in model.graph.to_undirected().edges} == {
            frozenset((f"x{u}", f"x{v}")) for u, v in zip(par, child)
        }
        rows.append(row(BENCH, case, "gaussian_chow_liu", t_tl["best"], "s"))
        rows.append(
            row(
                BENCH,
                case,
                "bare numpy/scipy tree",
                t_np["best"],
                "s",
                note="same tree" if same else "DIFFERENT tree",
            )
        )
        rows.append(row(BENCH, case, "treelearn / bare numpy", t_tl["best"] / t_np["best"], "x"))
        if d <= 100:

            def pgmpy_fit(df=df, edges=tuple(model.graph.edges)):
                net = LinearGaussianBayesianNetwork(edges)
                net.add_nodes_from(df.columns)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    net.fit(df)
                return net

            t_pg = timeit(pgmpy_fit, repeat=max(1, repeat // 2))
            rows.append(
                row(BENCH, case, "pgmpy LinearGaussianBN.fit (parameters only)", t_pg["best"], "s")
            )
            rows.append(
                row(
                    BENCH,
                    case,
                    "pgmpy params / treelearn structure+params",
                    t_pg["best"] / t_tl["best"],
                    "x",
                )
            )
    return rows


def classifier_rows(n: int, repeat: int) -> list:
    from sklearn.discriminant_analysis import (
        LinearDiscriminantAnalysis,
        QuadraticDiscriminantAnalysis,
    )
    from sklearn.naive_bayes import GaussianNB

    rng = np.random.default_rng(0)
    d, k = 20, 5
    y = rng.integers(0, k, n)
    X = (
        rng.standard_normal((n, d)) @ rng.standard_normal((d, d))
        + rng.standard_normal((k, d))[y] * 2
    )
    peers = {
        "full": QuadraticDiscriminantAnalysis,
        "shared": lambda: LinearDiscriminantAnalysis(solver="lsqr"),
        "diagonal": lambda: GaussianNB(var_smoothing=0),
        "isotropic": None,
    }
    rows = []
    case = f"{n:,} x {d}, {k} classes"
    for cov, peer in peers.items():
        t_tl = timeit(
            lambda cov=cov: tl.GaussianClassifier(cov).fit(X, y).predict_proba(X), repeat=repeat
        )
        rows.append(row(BENCH, case, f"GaussianClassifier({cov}) fit+proba", t_tl["best"], "s"))
        if peer is None:
            continue
        t_sk = timeit(lambda peer=peer: peer().fit(X, y).predict_proba(X), repeat=repeat)
        diff = float(np.abs(t_tl["result"] - t_sk["result"]).max())
        rows.append(
            row(
                BENCH,
                case,
                f"sklearn {type(peer()).__name__} fit+proba",
                t_sk["best"],
                "s",
                note=f"max |p diff| {diff:.1e}",
            )
        )
        rows.append(row(BENCH, case, f"{cov} / sklearn", t_tl["best"] / t_sk["best"], "x"))
    return rows


def text_rows(n: int, d: int, density: float, repeat: int) -> list:
    from sklearn.naive_bayes import BernoulliNB, MultinomialNB

    rng = np.random.default_rng(0)
    nnz = int(n * d * density)
    X = sp.csr_matrix(
        (rng.integers(1, 4, nnz).astype(float), (rng.integers(0, n, nnz), rng.integers(0, d, nnz))),
        shape=(n, d),
    )
    y = rng.integers(0, 4, n)
    case = f"{n:,} docs x {d:,} terms, {density:.1%} CSR"
    rows = []
    for model, peer in (("multinomial", MultinomialNB), ("bernoulli", BernoulliNB)):
        t_tl = timeit(
            lambda m=model: tl.TextNaiveBayes(m).fit(X, y).predict_proba(X), repeat=repeat
        )
        t_sk = timeit(lambda p=peer: p().fit(X, y).predict_proba(X), repeat=repeat)
        diff = float(np.abs(t_tl["result"] - t_sk["result"]).max())
        ratio = t_tl["best"] / t_sk["best"]
        rows.append(row(BENCH, case, f"TextNaiveBayes({model}) fit+proba", t_tl["best"], "s"))
        rows.append(
            row(
                BENCH,
                case,
                f"sklearn {peer.__name__} fit+proba",
                t_sk["best"],
                "s",
                note=f"max |p diff| {diff:.1e}",
            )
        )
        rows.append(row(BENCH, case, f"{model} / sklearn", ratio, "x", "<= 2", ratio <= 2))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    print(pin_blas(1))
    print(machine())
    repeat = 1 if args.quick else 3
    cases = [(2_000, 20)] if args.quick else [(100_000, 50), (20_000, 500), (5_000, 2_000)]
    rows = tree_rows(cases, repeat)
    rows += classifier_rows(5_000 if args.quick else 100_000, repeat)
    rows += text_rows(
        2_000 if args.quick else 20_000, 5_000 if args.quick else 50_000, 0.002, repeat
    )
    print_table(rows)
    write_json(rows, args.json)


if __name__ == "__main__":
    main()
