"""Chow-Liu on samples of pgmpy's ``alarm`` network: treelearn vs pgmpy vs a bare numpy pipeline.

    .venv/bin/python benchmarks/bench_chow_liu.py [--quick] [--cache-dir /tmp/treelearn-bench]

* time: ``tl.chow_liu(df)`` end to end from the DataFrame (encoding, counting, MI,
  spanning tree, orientation, CPTs), for n = 10,000 and 100,000 rows, against
  pgmpy ``TreeSearch(df, n_jobs=1).estimate("chow-liu")`` and against
  :func:`bare_pipeline` below (factorize -> one-hot -> one matrix product -> MI ->
  scipy spanning tree, no CPTs), all in the same run; the three trees are compared.
* memory: for n = 1,000,000 rows, the rise of the peak resident set size of a
  fresh child process during ``tl.chow_liu(df)``, against
  ``df.memory_usage(deep=True).sum()`` (see ``_common.peak_rss_increase``).

BLAS is pinned to one thread. Samples are cached as pickles in ``--cache-dir``.
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
    DEFAULT_CACHE,
    alarm_sample,
    machine,
    measure_in_child,
    peak_rss_increase,
    pin_blas,
    print_table,
    row,
    timeit,
    write_json,
)

BENCH = "chow_liu"


def bare_pipeline(df: pd.DataFrame, weights: np.ndarray | None = None) -> set:
    """The floor to compare against: the same mathematics in a few numpy lines.

    No validation, no missing values, no state ordering, no CPTs, no graph objects:
    factorize each column, one-hot, one ``X.T @ X`` (``X.T @ (w * X)`` with row
    weights), plug-in MI per block, scipy MST. Returns the undirected edge set
    (column-name pairs).
    """
    from scipy.sparse.csgraph import minimum_spanning_tree

    n, d = df.shape
    codes = np.empty((n, d), dtype=np.int64)
    card = np.empty(d, dtype=np.int64)
    for j, name in enumerate(df.columns):
        codes[:, j], uniques = pd.factorize(df[name])
        card[j] = len(uniques)
    offsets = np.concatenate([[0], np.cumsum(card)])
    X = np.zeros((n, offsets[-1]), dtype=np.float32)
    X.ravel()[(np.arange(n)[:, None] * offsets[-1] + codes + offsets[:-1]).ravel()] = 1.0
    if weights is None:
        P = (X.T @ X).astype(np.float64) / n  # every pairwise joint, one product
    else:
        P = (X.T @ (X * weights[:, None].astype(np.float32))).astype(np.float64) / weights.sum()
    p = np.diag(P)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(P > 0, P * np.log(P / np.outer(p, p)), 0.0)
    mi = np.add.reduceat(np.add.reduceat(terms, offsets[:-1], axis=0), offsets[:-1], axis=1)
    weights = np.triu(-(mi + 1.0), k=1)  # shift so that MI = 0 is still an edge
    tree = minimum_spanning_tree(weights).tocoo()
    names = list(df.columns)
    return {frozenset((names[i], names[j])) for i, j in zip(tree.row, tree.col)}


def pgmpy_tree(df: pd.DataFrame) -> set:
    from pgmpy.estimators import TreeSearch

    dag = TreeSearch(df, n_jobs=1).estimate(estimator_type="chow-liu", show_progress=False)
    return {frozenset(e) for e in dag.edges()}


def treelearn_tree(df: pd.DataFrame, weights: np.ndarray | None = None):
    import treelearn as tl

    return tl.chow_liu(df, sample_weight=weights)


def weighted_rows(df: pd.DataFrame, n: int, args) -> list[dict]:
    """Row weights (integers 0-4, as survey or EM weights): ``chow_liu(df, sample_weight=w)``
    against what a user without weights does, repeating the rows (treelearn, and pgmpy,
    whose TreeSearch takes no weights), and against the bare pipeline with ``X.T @ (w X)``."""
    w = np.random.default_rng(7).integers(0, 5, n).astype(float)
    repeated = df.loc[df.index.repeat(w.astype(int))].reset_index(drop=True)
    case = f"alarm n={n:,}, weights 0-4"
    ours = timeit(lambda: treelearn_tree(df, w), repeat=args.repeat)
    plain = timeit(lambda: treelearn_tree(df), repeat=args.repeat)
    rep = timeit(lambda: treelearn_tree(repeated), repeat=args.repeat)
    bare = timeit(lambda: bare_pipeline(df, w), repeat=args.repeat)
    same = ours["result"] == rep["result"]
    rows = [
        row(
            BENCH,
            case,
            "treelearn chow_liu(sample_weight=w)",
            ours["median"],
            "s",
            note=f"median of {ours['runs']}",
        ),
        row(
            BENCH,
            case,
            "weighted / unweighted chow_liu",
            ours["median"] / plain["median"],
            "x",
            "<= 2",
            ours["median"] / plain["median"] <= 2,
        ),
        row(BENCH, case, "bare numpy weighted pipeline", bare["median"], "s", note="no CPTs"),
        row(
            BENCH,
            case,
            "treelearn / bare (weighted)",
            ours["median"] / bare["median"],
            "x",
            "<= 3",
            ours["median"] / bare["median"] <= 3,
        ),
        row(BENCH, case, f"treelearn on the {len(repeated):,} repeated rows", rep["median"], "s"),
        row(BENCH, case, "same model as repeated rows", same, "", ok=same),
    ]
    if n <= 10_000 and not args.quick:
        t = time.perf_counter()
        pg_edges = pgmpy_tree(repeated)
        pg = time.perf_counter() - t
        rows.append(
            row(BENCH, case, "pgmpy TreeSearch on the repeated rows", pg, "s", note="one run")
        )
        rows.append(
            row(
                BENCH,
                case,
                "pgmpy repeated / treelearn weighted",
                pg / ours["median"],
                "x",
                ">= 200",
                pg / ours["median"] >= 200,
            )
        )
        same_pg = pg_edges == edges_of(ours["result"])
        rows.append(row(BENCH, case, "same tree as pgmpy", same_pg, "", ok=same_pg))
    return rows


def edges_of(model) -> set:
    return {frozenset(e) for e in model.graph.edges()}


# ----------------------------------------------------------------------------- memory child
def memory_child(n: int, dtype: str, cache_dir: str) -> dict:
    import treelearn as tl

    df = alarm_sample(n, cache_dir)
    if dtype == "category":
        df = df.astype("category")
    elif dtype == "object":
        df = df.astype(object)
    df_bytes = int(df.memory_usage(deep=True).sum())
    tl.chow_liu(df.head(1000))  # import and first-call costs outside the measurement
    m = peak_rss_increase(lambda: tl.chow_liu(df))
    model = m.pop("result")
    m.update(df_bytes=df_bytes, n_edges=model.graph.number_of_edges(), dtype=dtype, n=n)
    return m


def run_memory(n: int, dtype: str, cache_dir: str) -> dict:
    alarm_sample(n, cache_dir)  # sample (or find) before the child starts
    return measure_in_child(
        __file__, "--memory-child", str(n), "--dtype", dtype, "--cache-dir", cache_dir
    )


# ----------------------------------------------------------------------------- main
def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--cache-dir",
        default=DEFAULT_CACHE,
        help="where sampled data are cached (default %(default)s)",
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="pgmpy only at n=10,000 (its 100,000-row run takes ~35 s); memory at 200,000 rows",
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument(
        "--memory-rows", type=int, default=None, help="rows for the memory test (default 1,000,000)"
    )
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", default=None, help="also write the result rows to this JSON file")
    ap.add_argument("--memory-child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--dtype", default="str", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    print(pin_blas(1), file=sys.stderr if args.memory_child else sys.stdout)
    if args.memory_child:
        print(json.dumps(memory_child(args.memory_child, args.dtype, args.cache_dir), default=str))
        return []

    print("machine:", machine())
    rows: list[dict] = []
    for n in args.sizes:
        df = alarm_sample(n, args.cache_dir)
        case = f"alarm n={n:,}"
        tl_t = timeit(lambda df=df: treelearn_tree(df), repeat=args.repeat)
        bare_t = timeit(lambda df=df: bare_pipeline(df), repeat=args.repeat)
        tl_edges, bare_edges = edges_of(tl_t["result"]), bare_t["result"]
        rows.append(
            row(
                BENCH,
                case,
                "treelearn chow_liu",
                tl_t["median"],
                "s",
                note=f"median of {tl_t['runs']}, best {tl_t['best']:.4f} s; incl. CPTs",
            )
        )
        rows.append(
            row(
                BENCH,
                case,
                "bare numpy pipeline",
                bare_t["median"],
                "s",
                note=f"median of {bare_t['runs']}, best {bare_t['best']:.4f} s; no CPTs",
            )
        )
        ratio_bare = tl_t["median"] / bare_t["median"]
        rows.append(row(BENCH, case, "treelearn / bare", ratio_bare, "x", "<= 3", ratio_bare <= 3))
        rows.append(
            row(
                BENCH,
                case,
                "same tree as bare",
                tl_edges == bare_edges,
                "",
                ok=tl_edges == bare_edges,
            )
        )
        if n <= 10_000 or not args.quick:
            t = time.perf_counter()
            pg_edges = pgmpy_tree(df)
            pg = time.perf_counter() - t
            speedup = pg / tl_t["median"]
            rows.append(row(BENCH, case, "pgmpy TreeSearch(n_jobs=1)", pg, "s", note="one run"))
            rows.append(
                row(BENCH, case, "pgmpy / treelearn", speedup, "x", ">= 200", speedup >= 200)
            )
            rows.append(
                row(
                    BENCH,
                    case,
                    "same tree as pgmpy",
                    tl_edges == pg_edges,
                    "",
                    ok=tl_edges == pg_edges,
                )
            )
        print_table(rows[-7:] if rows else rows)
        rows += weighted_rows(df, n, args)
        print_table(rows[-9:])

    n_mem = args.memory_rows or (200_000 if args.quick else 1_000_000)
    for dtype in ("str", "category", "object"):
        if args.quick and dtype != "str":
            continue
        m = run_memory(n_mem, dtype, args.cache_dir)
        case = f"alarm n={n_mem:,} ({dtype} columns)"
        ratio = m["peak_increase"] / m["df_bytes"]
        target = dtype == "str"  # the case: pgmpy's samples as they come
        rows.append(row(BENCH, case, "DataFrame deep size", m["df_bytes"] / 2**20, "MiB"))
        rows.append(
            row(
                BENCH,
                case,
                "peak RSS rise in chow_liu",
                m["peak_increase"] / 2**20,
                "MiB",
                note=f"tracemalloc peak {m['tracemalloc_peak'] / 2**20:.0f} MiB; "
                f"{m['seconds']:.2f} s"
                + ("" if m["hwm_reset_ok"] else "; HWM reset FAILED, figure invalid"),
            )
        )
        rows.append(
            row(
                BENCH,
                case,
                "peak rise / DataFrame",
                ratio,
                "x",
                "<= 2" if target else "",
                (ratio <= 2) if target else None,
            )
        )
        print_table(rows[-3:])
    print()
    print_table(rows)
    write_json(rows, args.json)
    return rows


if __name__ == "__main__":
    main()
