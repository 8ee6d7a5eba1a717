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
3. **Sampling** (issue 40: it was quadratic in rows): ``model.sample(n)`` of the binned
   model fitted on ``n`` rows, at 10,000 .. 1,000,000 (``--quick``: up to 100,000), against
   the rows x kernels Gumbel-max pick it replaced (at 10,000 and 30,000 only: 9e8 cells at
   30,000) and a floor of drawing ``n x 8`` normals. Answers first: the mean of each
   column of 1,000,000 draws against the centres' (within 5 standard errors).

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


def quadratic_pick_seconds(model, n: int) -> float:
    """The pick sample() made before: a rows x kernels table of log weights, Gumbel-max
    (for every edge; the draws themselves are not kept)."""
    rng = np.random.default_rng(0)
    pos = {v: j for j, v in enumerate(model.variables)}
    x = model.sample(n, random_state=0).to_numpy()
    C = model.centres
    start = time.perf_counter()
    for u, _v in model.edges:
        p, sp = pos[u], model.kernel_sd[u]
        step = max(1, int(32 * 2**20 // (8 * len(C))))
        for s in range(0, n, step):
            xp = x[s : s + step, p]
            L = -0.5 * ((xp[:, None] - C[None, :, p]) / sp) ** 2
            np.argmax(L + rng.gumbel(size=L.shape), axis=1)
    return time.perf_counter() - start


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
    sample_sizes = [10_000, 30_000, 100_000] + ([] if args.quick else [1_000_000])
    for n in sample_sizes:
        model = tl.kernel_forest(table(n, 0), random_state=0, method="binned")
        t, drawn = seconds(lambda model=model, n=n: model.sample(n, random_state=1))
        ok = t < 60 if n == 1_000_000 else None
        rows.append(
            row(BENCH, f"sample {n:,} x 8", "draw", t, "s", "< 60" if ok is not None else "", ok)
        )
        if n == sample_sizes[-1]:
            C = model.centres
            se = np.sqrt(C.var(axis=0) * (1 + model.factor**2) / n)
            close = bool((np.abs(drawn.to_numpy().mean(axis=0) - C.mean(axis=0)) <= 5 * se).all())
            rows.append(
                row(BENCH, f"sample {n:,} x 8", "means within 5 se", close, "", "True", close)
            )
        start = time.perf_counter()
        np.random.default_rng(0).standard_normal((n, 8))
        rows.append(
            row(
                BENCH,
                f"sample {n:,} x 8",
                "draw / normals floor",
                t / (time.perf_counter() - start),
                "x",
            )
        )
        if n <= 30_000:
            before = quadratic_pick_seconds(model, n)
            rows.append(
                row(BENCH, f"sample {n:,} x 8", "rows x kernels pick (before)", before, "s")
            )
    print_table(rows)
    write_json(rows, args.json)


if __name__ == "__main__":
    main()
