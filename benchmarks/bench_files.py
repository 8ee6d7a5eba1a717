"""Chow-Liu from a CSV file of several chunks: ``chow_liu(path)`` against ``pd.read_csv`` +
the in-memory fit (issue 24: "reading files at the speed of read_csv + fit").

ALARM rows (100,000 forward-sampled by pgmpy; 1,000,000 = those rows ten times: the
same states, ten times the parsing), written once as a CSV; the default ``chunksize``
(200,000 rows) makes the 1,000,000-row file five chunks, and a file no longer than one
chunk (read once already) is cut into four (100,000 rows: chunks of 25,000). The streamed and in-memory trees are checked equal
before timing. CPU time, best of ``--repeat`` rounds that run the three in turn;
BLAS on one thread.

    python benchmarks/bench_files.py --rows 100000 1000000
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pandas as pd
from _common import DEFAULT_CACHE, alarm_sample, pin_blas, print_table, row, write_json

import treelearn as tl

BENCH = "files"


def cpu_best_interleaved(fns: dict, repeat: int) -> dict:
    """Best CPU time of each of ``fns``, run in turn ``repeat`` rounds: on a shared, loaded
    machine the load drifts, and interleaving gives every function the same drift."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            t = time.process_time()
            fn()
            best[name] = min(best[name], time.process_time() - t)
    return best


def two_passes(path: str, chunksize: int):
    """``chow_liu(path)`` as before the one-pass reading: counting in the states pass turned
    off, so every chunk is read again to be counted (the same code otherwise)."""
    from treelearn.sources import _files, _growing

    class Stopped(_growing.GrowingCounts):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.stop()

    _files.GrowingCounts = Stopped
    try:
        return tl.chow_liu(path, chunksize=chunksize)
    finally:
        _files.GrowingCounts = _growing.GrowingCounts


def undirected(edges) -> set:
    return {frozenset(e) for e in edges}


def file_rows(n: int, chunksize: int, repeat: int, cache_dir: str) -> list[dict]:
    base = alarm_sample(100_000, cache_dir)
    df = pd.concat([base] * max(1, n // len(base)), ignore_index=True).head(n)
    case = f"alarm {n:,} rows from a CSV file ({-(-n // chunksize)} chunks of {chunksize:,})"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "alarm.csv")
        df.to_csv(path, index=False)
        streamed = tl.chow_liu(path, chunksize=chunksize)
        same = undirected(streamed.graph.edges) == undirected(
            tl.chow_liu(pd.read_csv(path)).graph.edges
        )
        frame = pd.read_csv(path)
        best = cpu_best_interleaved(
            {
                "ours": lambda: tl.chow_liu(path, chunksize=chunksize),
                "two passes": lambda: two_passes(path, chunksize),
                "read": lambda: pd.read_csv(path),
                "fit": lambda: tl.chow_liu(frame),
            },
            repeat,
        )
        t_ours, t_read, t_fit = best["ours"], best["read"], best["fit"]
        t_two = best["two passes"]
    ratio = t_ours / (t_read + t_fit)
    return [
        row(BENCH, case, "chow_liu(path)", t_ours, "s", note=f"same tree as in memory: {same}"),
        row(
            BENCH,
            case,
            "pd.read_csv + chow_liu(frame)",
            t_read + t_fit,
            "s",
            note=f"read {t_read:.3f} s + fit {t_fit:.3f} s",
        ),
        row(BENCH, case, "chow_liu(path) / (read_csv + fit)", ratio, "x", "<= 1.2", ratio <= 1.2),
        row(
            BENCH,
            case,
            "as before (states pass, then counting pass) / (read_csv + fit)",
            t_two / (t_read + t_fit),
            "x",
            note=f"{t_two:.3f} s",
        ),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--chunksize", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cache-dir", default=DEFAULT_CACHE)
    ap.add_argument("--quick", action="store_true", help="100,000 rows only")
    ap.add_argument("--json", default=None, help="also write the result rows to this JSON file")
    args = ap.parse_args()
    if args.quick:
        args.rows = [100_000]
    print(pin_blas(1))
    print(f"load: {os.getloadavg()}")
    rows = []
    for n in args.rows:
        rows += file_rows(
            n,
            min(args.chunksize, max(n // 4, 1000)) if n <= args.chunksize else args.chunksize,
            args.repeat,
            args.cache_dir,
        )
    print(f"load: {os.getloadavg()}")
    print_table(rows)
    if args.json:
        write_json(rows, args.json)


if __name__ == "__main__":
    main()
