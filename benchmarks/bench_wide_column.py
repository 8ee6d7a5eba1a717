"""One very wide column: Chow-Liu counting without the K x K count matrix (issue 40).

    .venv/bin/python benchmarks/bench_wide_column.py [--quick] [--json PATH]

Data: ``n`` rows (seed 0) of one column of ``k`` states (each state about ``n / k`` times)
and 4 narrow columns of 2-4 states that depend on it, a fifth independent.

1. **Answers first**: on 20,000 rows with a 1,500-state column, the wide-column statistics
   (``stats/_wide.py``) against the ``K x K`` product (``CountedTable.of_table``): the
   largest difference of the MI matrices (target < 1e-12) and the same tree.
2. **Time and memory**: ``tl.chow_liu(df, max_states=20000)`` on 50,000 rows with a
   10,000-state column, the fit's wall seconds and peak RSS rise, each in a fresh child
   process; before (the K x K path, forced; skipped with ``--quick``: ~90 s, ~4.7 GB)
   and now. Floor: one ``np.bincount`` of the combined codes of every pair of the wide
   column with a narrow one (the least a pass over the pairs does), and the ratio.

BLAS is pinned to one thread (threadpoolctl). Wall seconds on a shared 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (
    machine,
    measure_in_child,
    peak_rss_increase,
    pin_blas,
    print_table,
    row,
    write_json,
)

import treelearn as tl

BENCH = "wide_column"


def table(n: int, k: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    wide = rng.integers(0, k, n)
    return pd.DataFrame(
        {
            "wide": [f"s{v}" for v in wide],
            "a": (wide + rng.integers(0, 2, n)) % 3,
            "b": np.where(rng.random(n) < 0.7, wide % 2, rng.integers(0, 2, n)),
            "c": (wide // 7 + rng.integers(0, 2, n)) % 4,
            "d": rng.integers(0, 3, n),
        }
    )


def fit(path: str, n: int, k: int) -> dict:
    """(In the child) one Chow-Liu fit by ``path``, its seconds and peak RSS rise."""
    from treelearn.encoding._table import encode
    from treelearn.learners._chow_liu import chow_liu_from_counts
    from treelearn.stats._counts import CountedTable
    from treelearn.stats._settings import LearningSettings

    df = table(n, k)

    def run():
        if path == "dense":  # before: the K x K product, whatever the width
            t = encode(df, max_states=20_000)
            return chow_liu_from_counts(CountedTable.of_table(t), LearningSettings())
        return tl.chow_liu(df, max_states=20_000)

    out = peak_rss_increase(run)
    edges = sorted(sorted(map(str, e)) for e in out["result"].graph.to_undirected().edges)
    return {"seconds": out["seconds"], "peak": out["peak_increase"], "edges": edges}


def floor(n: int, k: int) -> float:
    df = table(n, k)
    codes = pd.factorize(df["wide"])[0]
    start = time.perf_counter()
    for c in "abcd":  # one bincount per pair of the wide column with a narrow one
        x = df[c].to_numpy()
        np.bincount(codes * 4 + x, minlength=4 * k)
    return time.perf_counter() - start


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(fit(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    print(pin_blas(1))
    print(machine())
    from treelearn.encoding._table import encode
    from treelearn.stats._counts import CountedTable
    from treelearn.stats._wide import WideCountedTable

    rows = []
    t = encode(table(20_000, 1_500), max_states=20_000)
    wide, dense = WideCountedTable.of_table(t), CountedTable.of_table(t)
    diff = float(np.abs(wide.mutual_information() - dense.mutual_information()).max())
    case = "20,000 rows, 1,500 states"
    rows.append(row(BENCH, case, "MI max |wide - K x K|", diff, "nats", "< 1e-12", diff < 1e-12))
    n, k = 50_000, 10_000
    case = f"{n:,} rows, {k:,}-state column"
    now = measure_in_child(__file__, "--child", "wide", str(n), str(k))
    if not args.quick:
        before = measure_in_child(__file__, "--child", "dense", str(n), str(k))
        same = before["edges"] == now["edges"]
        rows.append(row(BENCH, case, "same tree as K x K", same, target="True", ok=same))
        rows.append(row(BENCH, case, "fit, K x K path (before)", before["seconds"], "s"))
        rows.append(row(BENCH, case, "peak RSS rise, K x K path", before["peak"] / 2**20, "MiB"))
    rows.append(row(BENCH, case, "fit, wide path", now["seconds"], "s", "< 5", now["seconds"] < 5))
    rows.append(
        row(
            BENCH,
            case,
            "peak RSS rise, wide path",
            now["peak"] / 2**20,
            "MiB",
            "< 500",
            now["peak"] < 500 * 2**20,
        )
    )
    f = floor(n, k)
    rows.append(row(BENCH, case, "fit / bincount floor", now["seconds"] / f, "x"))
    print_table(rows)
    write_json(rows, args.json)


if __name__ == "__main__":
    main()
