"""Exact Bayesian averaging over spanning trees: speed, and what it buys over one tree.

    .venv/bin/python benchmarks/bench_tree_posterior.py [--quick] [--debd PATH] [--json OUT]

* ``alarm`` (37 variables), n = 10,000 (and 100,000): ``tl.tree_posterior(df)``
  with every edge posterior, against ``tl.chow_liu(df)`` and against what
  bnlearn users do for edge confidence, a bootstrap of 100 Chow-Liu trees
  (``tl.chow_liu`` on multinomial row weights, i.e. resampled rows), in the same
  run; the largest gap between bootstrap frequencies and exact posteriors is reported.
* 100 binary variables x 100,000 rows (a random tree network): ``tree_posterior``
  (with edge posteriors) against ``chow_liu``; target: within 3x.
* DEBD (``--debd``, datasets with at most 200 variables): learn on ``.ts``, score
  the first ``--test-rows`` rows of ``.test``: per-row log-likelihood of the
  Bayesian average (ess = 1) next to the single Chow-Liu tree (Laplace CPTs,
  as in ``bench_debd.py``) and the MAP tree (BDeu CPTs), with the standard error
  of the paired per-row differences.
* small-data classification: ``alarm`` subsamples of 50 and 200 rows, three
  targets, five seeds each: ``tl.BayesianTAN(equivalent_sample_size=1 and 5)`` against ``tl.TAN(alpha=1)``,
  log-loss and accuracy on 2,000 held-out rows.

BLAS is pinned to one thread.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (
    DEFAULT_CACHE,
    alarm_sample,
    machine,
    pin_blas,
    print_table,
    row,
    timeit,
    write_json,
)

import treelearn as tl

BENCH = "tree_posterior"
DEBD_SMALL = [
    "nltcs",
    "msnbc",
    "kdd",
    "plants",
    "baudio",
    "jester",
    "bnetflix",
    "accidents",
    "tretail",
    "pumsb_star",
    "dna",
    "kosarek",
]


def posterior_with_edges(df: pd.DataFrame) -> tl.TreePosterior:
    post = tl.tree_posterior(df)
    post.edge_posterior_matrix  # noqa: B018 - computed (and cached) on first use
    return post


def bootstrap_frequencies(df: pd.DataFrame, replicates: int, seed: int = 0) -> np.ndarray:
    """Edge frequencies over Chow-Liu trees of resampled rows (bnlearn's boot.strength)."""
    rng = np.random.default_rng(seed)
    pos = {c: j for j, c in enumerate(df.columns)}
    freq = np.zeros((df.shape[1],) * 2)
    for _ in range(replicates):
        m = tl.chow_liu(df, sample_weight=rng.multinomial(len(df), np.full(len(df), 1 / len(df))))
        for u, v in m.graph.edges():
            freq[pos[u], pos[v]] += 1 / replicates
            freq[pos[v], pos[u]] += 1 / replicates
    return freq


def alarm_rows(n: int, cache: str, repeat: int) -> list[dict]:
    df = alarm_sample(n, cache)
    case = f"alarm n={n:,}"
    post = timeit(lambda: posterior_with_edges(df), repeat=repeat)
    cl = timeit(lambda: tl.chow_liu(df), repeat=repeat)
    replicates = 100
    t = time.perf_counter()
    freq = bootstrap_frequencies(df, replicates)
    boot = time.perf_counter() - t
    gap = float(np.abs(freq - post["result"].edge_posterior_matrix).max())
    return [
        row(
            BENCH, case, "tree_posterior + edge posteriors", post["best"], "s", note="best of runs"
        ),
        row(BENCH, case, "chow_liu", cl["best"], "s", note="best of runs"),
        row(BENCH, case, "posterior / chow_liu", post["best"] / cl["best"], "x"),
        row(BENCH, case, f"bootstrap {replicates} chow_liu", boot, "s", note="one run"),
        row(BENCH, case, "bootstrap / posterior", boot / post["best"], "x"),
        row(
            BENCH,
            case,
            "max abs(bootstrap freq - posterior)",
            gap,
            "",
            note="bootstrap frequencies are not posteriors",
        ),
    ]


def random_tree_data(d: int, n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    codes = np.empty((n, d), dtype=np.int8)
    codes[:, 0] = rng.random(n) < 0.5
    for j in range(1, d):
        parent = codes[:, rng.integers(j)]
        flip = rng.random(n) < rng.uniform(0.05, 0.45)
        codes[:, j] = parent ^ flip
    return pd.DataFrame(codes, columns=[f"v{j}" for j in range(d)])


def wide_rows(repeat: int) -> list[dict]:
    df = random_tree_data(100, 100_000)
    post = timeit(lambda: posterior_with_edges(df), repeat=repeat)
    cl = timeit(lambda: tl.chow_liu(df), repeat=repeat)
    ratio = post["best"] / cl["best"]
    case = "100 vars x 100,000 rows"
    return [
        row(
            BENCH, case, "tree_posterior + edge posteriors", post["best"], "s", note="best of runs"
        ),
        row(BENCH, case, "chow_liu", cl["best"], "s", note="best of runs"),
        row(BENCH, case, "posterior / chow_liu", ratio, "x", "<= 3", ratio <= 3),
    ]


def debd_rows(folder: str, names: list[str], test_rows: int) -> list[dict]:
    out = []
    for name in names:
        path = os.path.join(folder, f"{name}.ts.data.gz")
        if not os.path.exists(path):
            continue
        train = pd.read_csv(path, header=None, dtype=np.int8)
        test = pd.read_csv(
            os.path.join(folder, f"{name}.test.data.gz"), header=None, dtype=np.int8
        ).iloc[:test_rows]
        states = {c: [0, 1] for c in train.columns}
        t = time.perf_counter()
        post = tl.tree_posterior(train, states=states)
        fit = time.perf_counter() - t
        t = time.perf_counter()
        avg = post.log_likelihood(test, per_row=True)
        score = time.perf_counter() - t
        cl = tl.chow_liu(train, alpha=1.0, mi_alpha=1.0, states=states).log_likelihood(
            test, per_row=True
        )
        best = post.map_tree().log_likelihood(test, per_row=True)
        diff = avg - cl
        se = float(diff.std(ddof=1) / np.sqrt(len(diff)))
        case = f"debd {name} (d={train.shape[1]}, {len(test)} test rows)"
        out += [
            row(BENCH, case, "LL/row Bayesian average", float(avg.mean()), "nats"),
            row(BENCH, case, "LL/row Chow-Liu (Laplace)", float(cl.mean()), "nats"),
            row(BENCH, case, "LL/row MAP tree (BDeu)", float(best.mean()), "nats"),
            row(
                BENCH,
                case,
                "average - Chow-Liu",
                float(diff.mean()),
                "nats/row",
                "> -3 s.e.",
                bool(diff.mean() > -3 * se),
                note=f"s.e. {se:.4f}",
            ),
            row(BENCH, case, "fit + edge posteriors", fit, "s"),
            row(BENCH, case, "scoring per test row", score / len(test) * 1e3, "ms"),
        ]
        print(out[-6:], file=sys.stderr)
    return out


def classification_rows(cache: str, quick: bool) -> list[dict]:
    from sklearn.metrics import log_loss

    df = alarm_sample(10_000, cache)
    out = []
    seeds = range(3 if quick else 5)
    for target in ("LVFAILURE", "HYPOVOLEMIA", "INTUBATION"):
        X, y = df.drop(columns=target), df[target]
        for n in (50, 200):
            scores = {"BayesianTAN ess=1": [], "BayesianTAN ess=5": [], "TAN alpha=1": []}
            for seed in seeds:
                rng = np.random.default_rng(seed)
                order = rng.permutation(len(df))
                tr, te = order[:n], order[n : n + 2000]
                for name, clf in (
                    (
                        "BayesianTAN ess=1",
                        tl.BayesianTAN(numbers="states", equivalent_sample_size=1.0),
                    ),
                    (
                        "BayesianTAN ess=5",
                        tl.BayesianTAN(numbers="states", equivalent_sample_size=5.0),
                    ),
                    ("TAN alpha=1", tl.TAN(numbers="states", alpha=1.0, unseen="ignore")),
                ):
                    Xte = X.iloc[te]
                    if name.startswith(
                        "BayesianTAN"
                    ):  # unseen values: treat as missing, as TAN does
                        Xte = Xte.astype(object).copy()
                        for c in X.columns:
                            seen = set(X.iloc[tr][c])
                            Xte.loc[~Xte[c].isin(seen), c] = None
                    clf.fit(X.iloc[tr], y.iloc[tr])
                    proba = clf.predict_proba(Xte)
                    labels = list(clf.classes_)
                    keep = y.iloc[te].isin(labels).to_numpy()
                    ll = log_loss(y.iloc[te][keep], proba[keep], labels=labels)
                    acc = float(
                        (
                            np.asarray(clf.classes_)[proba.argmax(1)][keep]
                            == y.iloc[te][keep].to_numpy()
                        ).mean()
                    )
                    scores[name].append((ll, acc))
            case = f"alarm class={target} n_train={n}"
            for name, vals in scores.items():
                vals = np.array(vals)
                out.append(
                    row(
                        BENCH,
                        case,
                        f"{name} log-loss",
                        float(vals[:, 0].mean()),
                        "nats",
                        note=f"{len(vals)} seeds, 2,000 test rows",
                    )
                )
                out.append(row(BENCH, case, f"{name} accuracy", float(vals[:, 1].mean()), ""))
    return out


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs")
    parser.add_argument("--debd", default=None, help="folder of the DEBD datasets")
    parser.add_argument("--only", default=None, help="comma-separated DEBD names")
    parser.add_argument("--test-rows", type=int, default=None, help="DEBD test rows scored")
    parser.add_argument("--cache-dir", default=DEFAULT_CACHE)
    parser.add_argument("--json", default=None)
    parser.add_argument(
        "--skip", default="", help="comma-separated parts to skip: alarm,wide,debd,classify"
    )
    args = parser.parse_args(argv)
    print(pin_blas(1), file=sys.stderr)
    print(machine(), file=sys.stderr)
    skip = set(args.skip.split(","))
    repeat = 2 if args.quick else 3
    rows = []
    if "alarm" not in skip:
        for n in (10_000,) if args.quick else (10_000, 100_000):
            rows += alarm_rows(n, args.cache_dir, repeat)
    if "wide" not in skip:
        rows += wide_rows(repeat)
    if args.debd and "debd" not in skip:
        names = (
            args.only.split(",") if args.only else (DEBD_SMALL[:4] if args.quick else DEBD_SMALL)
        )
        rows += debd_rows(args.debd, names, args.test_rows or (200 if args.quick else 1000))
    if "classify" not in skip:
        rows += classification_rows(args.cache_dir, args.quick)
    print_table(rows)
    write_json(rows, args.json)
    return rows


if __name__ == "__main__":
    main()
