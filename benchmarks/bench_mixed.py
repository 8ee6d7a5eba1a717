"""Mixed and text naive Bayes, Gaussian TAN and sparse feature ranking: speed against peers.

    .venv/bin/python benchmarks/bench_mixed.py [--quick] [--json PATH]

1. ``MixedNaiveBayes()`` fit + ``predict_proba`` on numbers only
   (100,000 x 20, 5 classes) against scikit-learn's ``GaussianNB``.
2. The same on mixed data (100,000 rows, 10 categorical + 10 numeric columns)
   against what a scikit-learn user writes: ``CategoricalNB`` on the
   ordinal-encoded categories plus ``GaussianNB`` on the numbers, joint
   log-likelihoods added and the prior counted once.
3. ``TextNaiveBayes(event_model)`` on a scipy CSR bag of words (20,000 x 50,000,
   0.2%) against ``MultinomialNB`` / ``BernoulliNB``.
4. ``GaussianTAN()`` fit + ``predict_proba`` (100,000 x 20) against
   scikit-learn's ``QuadraticDiscriminantAnalysis`` (a full covariance per class:
   the Gaussian TAN's natural peer, with more parameters).
5. ``rank_features`` on CSR text (5,000 x 5,000, 0.5%) against
   ``mutual_info_classif(discrete_features=True)`` on the 0/1 presence matrix.

Targets: within 2x of the scikit-learn peer. BLAS pinned to one thread.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import pandas as pd
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine, pin_blas, print_table, row, timeit, write_json

import treelearn as tl

BENCH = "mixed"


def _ratio_rows(case, name, t_tl, peer, t_sk, diff):
    ratio = t_tl["best"] / t_sk["best"]
    return [
        row(BENCH, case, f"{name} fit+proba", t_tl["best"], "s"),
        row(BENCH, case, f"{peer} fit+proba", t_sk["best"], "s", note=f"max |p diff| {diff:.1e}"),
        row(BENCH, case, f"{name} / {peer}", ratio, "x", "<= 2", ratio <= 2),
    ]


def numeric_rows(n: int, repeat: int) -> list:
    from sklearn.naive_bayes import GaussianNB

    rng = np.random.default_rng(0)
    d, k = 20, 5
    y = rng.integers(0, k, n)
    X = rng.standard_normal((n, d)) + rng.standard_normal((k, d))[y]
    t_tl = timeit(lambda: tl.MixedNaiveBayes().fit(X, y).predict_proba(X), repeat=repeat)
    t_sk = timeit(lambda: GaussianNB().fit(X, y).predict_proba(X), repeat=repeat)
    diff = float(np.abs(t_tl["result"] - t_sk["result"]).max())
    return _ratio_rows(f"{n:,} x {d} numeric", "MixedNaiveBayes()", t_tl, "GaussianNB", t_sk, diff)


def mixed_rows(n: int, repeat: int) -> list:
    from sklearn.naive_bayes import CategoricalNB, GaussianNB

    rng = np.random.default_rng(0)
    k = 4
    y = rng.integers(0, k, n)
    cats = {f"c{j}": (rng.integers(0, 5, n) + y) % 6 for j in range(10)}
    nums = {f"x{j}": rng.standard_normal(n) + 0.5 * y for j in range(10)}
    df = pd.DataFrame({**cats, **nums})
    C = df[list(cats)].to_numpy()
    G = df[list(nums)].to_numpy()

    def sklearn_pair():
        a = CategoricalNB(alpha=1.0).fit(C, y)
        b = GaussianNB().fit(G, y)
        joint = a.predict_joint_log_proba(C) + b.predict_joint_log_proba(G) - a.class_log_prior_
        joint -= joint.max(axis=1, keepdims=True)
        p = np.exp(joint)
        return p / p.sum(axis=1, keepdims=True)

    t_tl = timeit(lambda: tl.MixedNaiveBayes().fit(df, y).predict_proba(df), repeat=repeat)
    t_sk = timeit(sklearn_pair, repeat=repeat)
    diff = float(np.abs(t_tl["result"] - t_sk["result"]).max())
    return _ratio_rows(
        f"{n:,} rows, 10 categorical + 10 numeric",
        "MixedNaiveBayes",
        t_tl,
        "CategoricalNB + GaussianNB",
        t_sk,
        diff,
    )


def text_rows(n: int, d: int, repeat: int) -> list:
    from sklearn.naive_bayes import BernoulliNB, MultinomialNB

    rng = np.random.default_rng(0)
    nnz = int(n * d * 0.002)
    X = sp.csr_matrix(
        (rng.integers(1, 4, nnz).astype(float), (rng.integers(0, n, nnz), rng.integers(0, d, nnz))),
        shape=(n, d),
    )
    y = rng.integers(0, 4, n)
    rows = []
    for model, peer in (("multinomial", MultinomialNB), ("bernoulli", BernoulliNB)):
        t_tl = timeit(
            lambda m=model: tl.TextNaiveBayes(m).fit(X, y).predict_proba(X), repeat=repeat
        )
        t_sk = timeit(lambda p=peer: p().fit(X, y).predict_proba(X), repeat=repeat)
        diff = float(np.abs(t_tl["result"] - t_sk["result"]).max())
        rows += _ratio_rows(
            f"{n:,} x {d:,} CSR 0.2%", f"TextNaiveBayes({model})", t_tl, peer.__name__, t_sk, diff
        )
    return rows


def tan_rows(n: int, repeat: int) -> list:
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis

    rng = np.random.default_rng(0)
    d, k = 20, 5
    y = rng.integers(0, k, n)
    X = rng.standard_normal((n, d))
    X[:, 1:] += 0.7 * X[:, :-1]
    X += rng.standard_normal((k, d))[y]
    t_tl = timeit(lambda: tl.GaussianTAN().fit(X, y).predict_proba(X), repeat=repeat)
    t_sk = timeit(lambda: QuadraticDiscriminantAnalysis().fit(X, y).predict_proba(X), repeat=repeat)
    acc_tl = float((t_tl["result"].argmax(axis=1) == y).mean())
    acc_sk = float((t_sk["result"].argmax(axis=1) == y).mean())
    ratio = t_tl["best"] / t_sk["best"]
    case = f"{n:,} x {d}, {k} classes"
    return [
        row(
            BENCH,
            case,
            "GaussianTAN fit+proba",
            t_tl["best"],
            "s",
            note=f"train accuracy {acc_tl:.3f}",
        ),
        row(
            BENCH,
            case,
            "QuadraticDiscriminantAnalysis fit+proba",
            t_sk["best"],
            "s",
            note=f"train accuracy {acc_sk:.3f}",
        ),
        row(BENCH, case, "Gaussian TAN / QDA", ratio, "x", "<= 2", ratio <= 2),
    ]


def ranking_rows(n: int, d: int, repeat: int) -> list:
    from sklearn.feature_selection import mutual_info_classif

    rng = np.random.default_rng(0)
    nnz = int(n * d * 0.005)
    X = sp.csr_matrix(
        (np.ones(nnz), (rng.integers(0, n, nnz), rng.integers(0, d, nnz))), shape=(n, d)
    )
    X.data[:] = 1.0
    y = rng.integers(0, 3, n)
    t_tl = timeit(lambda: tl.rank_features(X, y), repeat=repeat)
    B = (X > 0).astype(np.int8)
    t_sk = timeit(lambda: mutual_info_classif(B, y, discrete_features=True), repeat=1, warmup=0)
    ours = t_tl["result"].reindex([f"x{j}" for j in range(d)]).to_numpy()
    diff = float(np.abs(ours - t_sk["result"]).max())
    ratio = t_tl["best"] / t_sk["best"]
    case = f"{n:,} x {d:,} CSR 0.5%"
    return [
        row(BENCH, case, "rank_features (sparse)", t_tl["best"], "s"),
        row(
            BENCH,
            case,
            "mutual_info_classif(discrete)",
            t_sk["best"],
            "s",
            note=f"max |MI diff| {diff:.1e}",
        ),
        row(BENCH, case, "rank_features / sklearn", ratio, "x", "<= 2", ratio <= 2),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    print(pin_blas(1))
    print(machine())
    repeat = 1 if args.quick else 3
    n = 5_000 if args.quick else 100_000
    rows = numeric_rows(n, repeat)
    rows += mixed_rows(n, repeat)
    rows += text_rows(2_000 if args.quick else 20_000, 5_000 if args.quick else 50_000, repeat)
    rows += tan_rows(n, repeat)
    rows += ranking_rows(1_000 if args.quick else 5_000, 500 if args.quick else 5_000, repeat)
    print_table(rows)
    write_json(rows, args.json)


if __name__ == "__main__":
    main()
