"""Counting at scale: Chow-Liu on a Parquet dataset, in memory, streamed, and on 2 dask workers.

    .venv/bin/python benchmarks/bench_dask.py [--quick] [--rows N] [--cache-dir DIR] [--json OUT]

The data: ``--rows`` rows (default 10,000,000; ``--quick`` 1,000,000) drawn from
ALARM's Chow-Liu tree (37 variables, integer codes as ``int8`` columns), written once
as a Parquet dataset of 8 or more files (at most 1,000,000 rows each) under ``--cache-dir``. Timed on the same
files, wall clock (the workers are other processes), one run each:

* in memory: ``pd.read_parquet`` + ``tl.chow_liu(frame)``;
* streamed: ``tl.chow_liu(path)`` (row groups read and counted one at a time);
* dask: ``tl.chow_liu(dd.read_parquet(path))`` with a ``distributed.Client`` on a
  ``LocalCluster`` of 2 worker processes, one thread each: every partition is encoded
  and counted on its worker, and only its ``K x K`` count matrix (``K`` = the sum of
  the state counts) travels back to be added.

The three give the same pair counts (checked first). BLAS on one thread in every
process.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import DEFAULT_CACHE, alarm_sample, machine, pin_blas, print_table, row, write_json

BENCH = "dask"


def part_rows(n: int) -> int:
    """Rows per file: 8 files or more, at most a million rows each."""
    return max(1, min(1_000_000, -(-n // 8)))


def dataset(n: int, cache_dir: str) -> str:
    """A Parquet dataset of ``n`` rows of ALARM-tree codes (written once)."""
    part = part_rows(n)
    import pandas as pd

    import treelearn as tl

    path = os.path.join(cache_dir, f"alarm_codes_{n}_by_{part}")
    done = os.path.join(path, "_done")
    if os.path.exists(done):
        return path
    os.makedirs(path, exist_ok=True)
    model = tl.chow_liu(alarm_sample(100_000, cache_dir))
    engine = model.engine()
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    for i, start in enumerate(range(0, n, part)):
        codes = engine.sample_codes(min(part, n - start), rng).astype(np.int8)
        pd.DataFrame(codes, columns=[str(v) for v in model.variables]).to_parquet(
            os.path.join(path, f"part{i:04d}.parquet"), index=False
        )
    open(done, "w").close()
    print(f"  wrote {n:,} rows to {path} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    return path


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--quick", action="store_true", help="1,000,000 rows")
    ap.add_argument("--cache-dir", default=DEFAULT_CACHE)
    ap.add_argument("--json", default=None, help="also write the result rows to this JSON file")
    args = ap.parse_args(argv)
    print(pin_blas(1))
    print("machine:", machine())
    warnings.filterwarnings("ignore")
    import dask.dataframe as dd
    import distributed
    import pandas as pd

    import treelearn as tl

    n = 1_000_000 if args.quick else args.rows
    path = dataset(n, args.cache_dir)
    case = f"alarm tree codes, {n:,} rows x 37 columns, Parquet ({-(-n // part_rows(n))} files)"

    t = time.perf_counter()
    frame = pd.read_parquet(path)
    read_s = time.perf_counter() - t
    t = time.perf_counter()
    whole = tl.chow_liu(frame)
    fit_s = time.perf_counter() - t
    del frame
    t = time.perf_counter()
    streamed = tl.chow_liu(path)
    stream_s = time.perf_counter() - t
    cluster = distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    )
    with distributed.Client(cluster) as client:
        client.run(pin_blas, 1)
        ddf = dd.read_parquet(path)
        tl.chow_liu(dd.read_parquet(path).partitions[0])  # workers warm (imports)
        t = time.perf_counter()
        on_dask = tl.chow_liu(ddf)
        dask_s = time.perf_counter() - t
        partitions = ddf.npartitions
    cluster.close()
    same = bool(
        np.array_equal(whole.counts.joint, streamed.counts.joint)
        and np.array_equal(whole.counts.joint, on_dask.counts.joint)
    )
    k = int(whole.counts.joint.shape[0])
    rows = [
        row(BENCH, case, "same pair counts (memory, streamed, dask)", same, "", ok=same),
        row(
            BENCH,
            case,
            "in memory: pd.read_parquet + chow_liu(frame)",
            read_s + fit_s,
            "s",
            note=f"read {read_s:.2f} s + fit {fit_s:.2f} s",
        ),
        row(BENCH, case, "streamed: chow_liu(path)", stream_s, "s"),
        row(
            BENCH,
            case,
            "dask, LocalCluster 2 workers x 1 thread: chow_liu(ddf)",
            dask_s,
            "s",
            note=f"{partitions} partitions",
        ),
        row(BENCH, case, "in memory / dask", (read_s + fit_s) / dask_s, "x"),
        row(BENCH, case, "dask rows per second per worker", n / dask_s / 2, "rows/s"),
        row(
            BENCH,
            case,
            "reduce per partition: K x K counts",
            k * k * 8 / 1024,
            "KiB",
            note=f"K = {k} indicators, int64",
        ),
    ]
    print_table(rows)
    write_json(rows, args.json)
    return rows


if __name__ == "__main__":
    main()
