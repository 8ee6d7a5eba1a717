"""A thousand binary variables: Chow-Liu at d = 1,000, n = 100,000, dense and sparse.

    .venv/bin/python benchmarks/bench_highdim.py [--quick] [--d 1000] [--n 100000]

Data: rows sampled from a random tree over ``d`` binary variables (each node's
parent drawn among the earlier nodes), so the true tree is known and the
learned one is checked against it.

* ``dense``: root ~ Bernoulli(0.5), each child copies its parent and flips with
  a probability in [0.05, 0.3], so about half the values are 1;
* ``sparse``: mostly zeros, as in text or baskets: a child is 1 with
  probability 0.5 when its parent is 1 and 0.002 when not, the root with
  0.02: about 0.5 % ones.

Each case is timed end to end with ``tl.chow_liu`` (encoding, counting, MI,
spanning tree, orientation, CPTs) from a DataFrame of ``uint8`` columns; the
sparse case is also timed from a ``scipy.sparse`` CSR matrix (when treelearn
accepts one). Peak memory is the rise of the peak RSS of a child process during
the call (``_common.peak_rss_increase``), next to the input's own size.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys

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
    timeit,
    write_json,
)

BENCH = "highdim"


def tree_data(d: int, n: int, kind: str, seed: int = 0) -> tuple[np.ndarray, set]:
    """``n x d`` uint8 0/1 matrix sampled from a random tree, and the tree's edges."""
    rng = np.random.default_rng(seed)
    parent = np.array([-1] + [int(rng.integers(0, j)) for j in range(1, d)])
    X = np.empty((n, d), dtype=np.uint8)
    if kind == "dense":
        X[:, 0] = rng.random(n) < 0.5
        flip = rng.uniform(0.05, 0.3, size=d)
        for j in range(1, d):
            X[:, j] = X[:, parent[j]] ^ (rng.random(n) < flip[j])
    else:
        X[:, 0] = rng.random(n) < 0.02
        for j in range(1, d):
            p = np.where(X[:, parent[j]] == 1, 0.5, 0.002)
            X[:, j] = rng.random(n) < p
    edges = {frozenset((f"x{j}", f"x{parent[j]}")) for j in range(1, d)}
    return X, edges


def frame(X: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])], copy=False)


def sparse_supported() -> bool:
    import inspect

    import treelearn as tl

    return "columns" in inspect.signature(tl.chow_liu).parameters


def learn(X: np.ndarray, source: str):
    import treelearn as tl

    if source == "scipy.sparse":
        import scipy.sparse as sp

        return tl.chow_liu(sp.csr_matrix(X), names=[f"x{j}" for j in range(X.shape[1])])
    return tl.chow_liu(frame(X))


def input_bytes(X: np.ndarray, source: str) -> int:
    if source == "scipy.sparse":
        import scipy.sparse as sp

        S = sp.csr_matrix(X)
        return S.data.nbytes + S.indices.nbytes + S.indptr.nbytes
    return int(frame(X).memory_usage(deep=True).sum())


def memory_child(d: int, n: int, kind: str, source: str) -> dict:
    X, _ = tree_data(d, n, kind)
    if source == "scipy.sparse":
        import scipy.sparse as sp

        import treelearn as tl

        data = sp.csr_matrix(X)
        del X
        size = data.data.nbytes + data.indices.nbytes + data.indptr.nbytes
        cols = [f"x{j}" for j in range(d)]
        call = functools.partial(tl.chow_liu, data, names=cols)
    else:
        import treelearn as tl

        data = frame(X)
        size = int(data.memory_usage(deep=True).sum())
        call = functools.partial(tl.chow_liu, data)
    m = peak_rss_increase(call)
    m.pop("result")
    m["input_bytes"] = size
    return m


def run_memory(d: int, n: int, kind: str, source: str) -> dict:
    return measure_in_child(__file__, "--memory-child", kind, source, "--d", str(d), "--n", str(n))


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--d", type=int, default=1000)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument(
        "--quick",
        action="store_true",
        help="one timed run per case (after a warm-up), no memory children",
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None, help="also write the result rows to this JSON file")
    ap.add_argument("--memory-child", nargs=2, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    print(pin_blas(1), file=sys.stderr if args.memory_child else sys.stdout)
    if args.memory_child:
        print(json.dumps(memory_child(args.d, args.n, *args.memory_child), default=str))
        return []
    print("machine:", machine())

    rows: list[dict] = []
    sources = ["DataFrame"] + (["scipy.sparse"] if sparse_supported() else [])
    for kind in ("dense", "sparse"):
        X, truth = tree_data(args.d, args.n, kind)
        case = f"{kind} d={args.d:,} n={args.n:,} ({X.mean():.1%} ones)"
        for source in sources if kind == "sparse" else ["DataFrame"]:
            t = timeit(
                lambda X=X, source=source: learn(X, source),
                repeat=1 if args.quick else args.repeat,
                warmup=1,
            )
            edges = {frozenset(e) for e in t["result"].graph.edges()}
            rows.append(
                row(
                    BENCH,
                    case,
                    f"chow_liu from {source}",
                    t["median"],
                    "s",
                    "seconds, not minutes",
                    t["median"] < 60,
                    note=f"median of {t['runs']}, best {t['best']:.3f} s",
                )
            )
            rows.append(
                row(
                    BENCH,
                    case,
                    f"true tree recovered ({source})",
                    edges == truth,
                    "",
                    ok=edges == truth,
                    note=f"{len(edges & truth)}/{len(truth)} edges",
                )
            )
            if not args.quick:
                m = run_memory(args.d, args.n, kind, source)
                rows.append(
                    row(
                        BENCH,
                        case,
                        f"peak RSS rise ({source})",
                        m["peak_increase"] / 2**20,
                        "MiB",
                        note=f"input {m['input_bytes'] / 2**20:.0f} MiB; tracemalloc peak "
                        f"{m['tracemalloc_peak'] / 2**20:.0f} MiB",
                    )
                )
            print_table(rows[-3:])
    print()
    print_table(rows)
    write_json(rows, args.json)
    return rows


if __name__ == "__main__":
    main()
