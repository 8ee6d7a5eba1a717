"""Kernel forests: the binned path (linear binning + FFT) against the exact kernel sums.

    .venv/bin/python benchmarks/bench_kernel.py [--quick] [--json PATH]

Data: 8 numeric columns (an exponential and its square root, a normal and its square,
a chain of three normals, one independent), seed 0; held-out rows from seed 1.

1. **Answers first**: on 5,000 rows, ``tl.kernel_forest(method="exact")`` against
   ``method="binned"``: the same edges, and the held-out log-likelihood gap per row
   (target < 0.01 nats).
2. **Fit time**: the exact path at 10,000 and 30,000 rows (``--quick``: 10,000) against the
   binned path at the same sizes and at 100,000 and 1,000,000 rows (``--quick``: up to
   100,000); target: 1,000,000 rows fitted in under 60 s. Floor: ``np.histogram2d`` of
   every pair of columns on a 48 x 48 lattice (the least a pairwise pass over the rows
   does), and its ratio.

BLAS is pinned to one thread (threadpoolctl). Wall seconds on a shared 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from itertools import combinations

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine, pin_blas, print_table, row, write_json

import treelearn as tl

BENCH = "kernel"


def table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.exponential(size=n)
    z = rng.normal(size=n)
    a = rng.normal(size=n)
    b = a + 0.5 * rng.normal(size=n)
    return pd.DataFrame(
        {
            "x": x,
            "y": np.sqrt(x) + 0.1 * rng.normal(size=n),
            "z": z,
            "u": z**2 + 0.3 * rng.normal(size=n),
            "a": a,
            "b": b,
            "c": b + 0.5 * rng.normal(size=n),
            "w": rng.normal(size=n),
        }
    )


def seconds(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def floor(X: np.ndarray) -> float:
    start = time.perf_counter()
    for i, j in combinations(range(X.shape[1]), 2):  # the floor: one histogram per pair
        np.histogram2d(X[:, i], X[:, j], bins=48)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    print(pin_blas(1))
    print(machine())
    rows = []
    train, test = table(5000, 0), table(5000, 1)
    exact = tl.kernel_forest(train, random_state=0, method="exact")
    binned = tl.kernel_forest(train, random_state=0, method="binned")
    same = sorted(map(sorted, exact.edges)) == sorted(map(sorted, binned.edges))
    gap = float((binned.score_samples(test) - exact.score_samples(test)).mean())
    rows.append(row(BENCH, "5,000 x 8", "same edges", same, target="True", ok=same))
    rows.append(
        row(BENCH, "5,000 x 8", "held-out log-lik gap", gap, "nats/row", "< 0.01", abs(gap) < 0.01)
    )
    exact_sizes = [10_000] if args.quick else [10_000, 30_000]
    binned_sizes = [10_000, 30_000, 100_000] + ([] if args.quick else [1_000_000])
    times = {}
    for n in exact_sizes:
        t, _ = seconds(lambda n=n: tl.kernel_forest(table(n, 0), random_state=0, method="exact"))
        times[("exact", n)] = t
        rows.append(row(BENCH, f"exact {n:,} x 8", "fit", t, "s"))
    for n in binned_sizes:
        data = table(n, 0)
        t, _ = seconds(lambda data=data: tl.kernel_forest(data, random_state=0, method="binned"))
        times[("binned", n)] = t
        ok = t < 60 if n == 1_000_000 else None
        rows.append(
            row(BENCH, f"binned {n:,} x 8", "fit", t, "s", "< 60" if ok is not None else "", ok)
        )
        f = floor(data.to_numpy())
        rows.append(row(BENCH, f"binned {n:,} x 8", "fit / histogram2d floor", t / f, "x"))
        if ("exact", n) in times:
            rows.append(
                row(BENCH, f"{n:,} x 8", "exact / binned fit", times[("exact", n)] / t, "x")
            )
    print_table(rows)
    write_json(rows, args.json)


if __name__ == "__main__":
    main()
