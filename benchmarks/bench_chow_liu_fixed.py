"""Chow-Liu fixed costs and wide-table memory (issue 41), before/after in one run.

    .venv/bin/python benchmarks/bench_chow_liu_fixed.py [--before DIR] [--rounds 2] [--quick]

* **time**: ``tl.chow_liu(df)`` on 0/1 integer frames (a noisy chain: each column copies the
  one before it with probability 0.8) of 1,000 / 10,000 / 100,000 rows x 10 / 50 / 200
  columns, against the floor: one float32 ``X.T @ X`` of the table's one-hot matrix (built
  before the clock starts). CPU time, best of N (N from the size), BLAS on one thread.
  Answers first: the tree equals the bare numpy pipeline's (``bench_chow_liu.bare_pipeline``:
  factorize, one-hot product, MI, scipy's spanning tree).
* **memory**: 20,000 rows x 1,000 binary columns, the tracemalloc peak of ``tl.chow_liu``
  against that of the product (the float32 copy of the 0/1 matrix and ``X.T @ X``).

``--before DIR`` runs the same measurements with ``DIR`` (a worktree of an older commit)
first on ``sys.path`` in child processes, alternating with this tree ``--rounds`` times;
each cell keeps its best time, so both sides see the same machine load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SIZES = [(1_000, 10), (1_000, 50), (1_000, 200), (10_000, 10), (10_000, 50), (10_000, 200)]
SIZES += [(100_000, 10), (100_000, 50), (100_000, 200)]
TARGET = 3.0  # the issue's: <= 3x the product at every size >= 10,000 x 50
MEMORY_TARGET = 1.25


def binary_chain(n: int, d: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.3).astype(np.int64)
    for j in range(1, d):
        X[:, j] = np.where(rng.random(n) < 0.2, X[:, j], X[:, j - 1])
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(d)])


def cpu_best(fn, budget: float = 1.5, most: int = 40) -> float:
    """Best CPU time of ``fn`` over as many runs as ``budget`` seconds allow (3 to ``most``)."""
    fn()  # warm-up
    times: list[float] = []
    start = time.process_time()
    while len(times) < most and (len(times) < 3 or time.process_time() - start < budget):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def measure(quick: bool) -> dict:
    from threadpoolctl import threadpool_limits

    import treelearn as tl

    threadpool_limits(1)
    out: dict = {"treelearn": os.path.dirname(tl.__file__), "time": {}, "memory": {}}
    sizes = [s for s in SIZES if not quick or s[0] <= 10_000]
    for n, d in sizes:
        df = binary_chain(n, d)
        X = df.to_numpy()
        one_hot = np.concatenate([X == 0, X == 1], axis=1).astype(np.float32)
        t_prod = cpu_best(lambda one_hot=one_hot: one_hot.T @ one_hot)
        t_cl = cpu_best(lambda df=df: tl.chow_liu(df))
        from bench_chow_liu import bare_pipeline

        ours = {frozenset(e) for e in tl.chow_liu(df).graph.to_undirected().edges}
        same = ours == bare_pipeline(df)
        out["time"][f"{n}x{d}"] = {"chow_liu": t_cl, "product": t_prod, "same_tree": same}
    n, d = (20_000, 1_000)
    df = binary_chain(n, d)
    codes = df.to_numpy()
    tl.chow_liu(df.iloc[:50, :5])  # imports and caches outside the trace

    def product() -> np.ndarray:
        Z = codes.astype(np.float32)
        return Z.T @ Z

    for name, fn in (("product", product), ("chow_liu", lambda: tl.chow_liu(df))):
        tracemalloc.start()
        t = time.process_time()
        fn()
        seconds = time.process_time() - t
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        out["memory"][name] = {"peak_mib": peak / 2**20, "seconds": seconds}
    return out


def child(source: str | None, quick: bool) -> dict:
    env = dict(os.environ)
    if source:
        env["PYTHONPATH"] = source + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, os.path.abspath(__file__), "--child"] + (["--quick"] if quick else [])
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def best_of(runs: list[dict]) -> dict:
    merged = runs[0]
    for other in runs[1:]:
        for key, cell in other["time"].items():
            mine = merged["time"][key]
            mine["chow_liu"] = min(mine["chow_liu"], cell["chow_liu"])
            mine["product"] = min(mine["product"], cell["product"])
            mine["same_tree"] = mine["same_tree"] and cell["same_tree"]
    return merged


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--before", default=None, help="a worktree of the older commit to compare")
    ap.add_argument("--rounds", type=int, default=2, help="alternations before/after")
    ap.add_argument("--quick", action="store_true", help="skip the 100,000-row sizes")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.quick)))
        return
    sides = {"after": None} if args.before is None else {"before": args.before, "after": None}
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    for _ in range(args.rounds):
        for side, source in sides.items():
            runs[side].append(child(source, args.quick))
    result = {side: best_of(r) for side, r in runs.items()}
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (2 cores, shared)")
    head = "| rows x columns | product (ms) |"
    for side in result:
        head += f" {side}: chow_liu (ms) | {side} / product |"
    print(head + " same tree as bare numpy |")
    print("|" + "---|" * (2 + 2 * len(result) + 1))
    for key in result["after"]["time"]:
        cell = result["after"]["time"][key]
        line = f"| {key} | {cell['product'] * 1e3:.3f} |"
        for side in result:
            c = result[side]["time"][key]
            ratio = c["chow_liu"] / cell["product"]
            line += f" {c['chow_liu'] * 1e3:.2f} | {ratio:.2f}x |"
        same = all(result[s]["time"][key]["same_tree"] for s in result)
        print(line + f" {same} |")
    print()
    for side in result:
        m = result[side]["memory"]
        ratio = m["chow_liu"]["peak_mib"] / m["product"]["peak_mib"]
        print(
            f"{side}: 20,000 x 1,000 binary, tracemalloc peak chow_liu "
            f"{m['chow_liu']['peak_mib']:.1f} MiB ({m['chow_liu']['seconds']:.2f} s) / product "
            f"{m['product']['peak_mib']:.1f} MiB = {ratio:.2f}x (target <= {MEMORY_TARGET})"
        )


if __name__ == "__main__":
    main()
