"""Sparse high-dimensional Chow-Liu (acCL): documents x terms at 0.2 % density.

    .venv/bin/python benchmarks/bench_sparse.py [--quick] [--n 20000] [--d 50000] [--density 0.002]
    .venv/bin/python benchmarks/bench_sparse.py --wide    # 200,000 terms, children only
    .venv/bin/python benchmarks/bench_sparse.py --zipf    # text-like term frequencies
    .venv/bin/python benchmarks/bench_sparse.py --quick --before DIR --repeat 5

``--warm-cpu N`` (with ``--before DIR``): warm CPU time instead, the steady cost of a fit
in a process that has fitted before (no first-touch memory): children of *this* script,
alternately with ``DIR`` first on ``sys.path`` (the older tree's ``treelearn``) and
without, ``--repeat`` each; every child calls ``X.T @ X`` and ``tl.chow_liu`` once to warm
up, then ``N`` times each, keeping the best CPU seconds (``time.process_time``).

``--before DIR``: children of ``DIR/benchmarks/bench_sparse.py`` (a worktree of an older
commit; its ``_common`` puts ``DIR`` first on ``sys.path``) alternate with this tree's,
``--repeat`` each, every child timing ``X.T @ X`` then ``tl.chow_liu`` once: the medians of
both sides' times and ratios in one run, under the same load.

``tl.chow_liu(csr, names=...)`` (routed through :mod:`treelearn.structure._sparse_chow_liu`)
timed as a ratio to scipy's ``X.T @ X`` on the same matrix (the co-occurrence
product every sparse Chow-Liu needs: each called once in a fresh child process, the product
freed first, the median of ``--repeat`` children; single calls on this VM scatter by up to
2x with the fresh memory they get), and its peak memory: the rise of the
peak RSS of a child process during the call (``_common.peak_rss_increase``),
next to what a dense ``d x d`` pair-count matrix would take.
Also the two stages alone (counting: :func:`~treelearn.structure._sparse_chow_liu.sparse_binary_statistics`;
the tree: :func:`~treelearn.structure._sparse_chow_liu.sparse_spanning_skeleton`; the rest of the
call is CPTs and the model object) and, in children, the peak memory of ``X.T @ X``.
``--quick``: 5,000 x 20,000, one run, no memory child.

``--zipf``: the same sizes with text-like term frequencies (term ``k``'s document frequency
falling as ``k ** -0.9``, the most frequent in about half the documents; 0.2 % ones overall)
instead of uniform ones. Frequent terms that never meet rare ones make never-co-occurring
pairs tree edges (the hub search runs), and the co-occurrence counts of frequent pairs are
too many and too varied for the MI table: the case real text brings, and the slow one.

``--wide``: 20,000 documents x 200,000 terms at 0.05 % (100 terms a document, as
0.2 % of 50,000), only in fresh children: each call's wall seconds and peak RSS rise,
``tl.chow_liu`` and ``X.T @ X``. At 0.2 % of 200,000 terms (400 a document) the
co-occurring pairs alone are ~1.6e9 (n (density d)^2 / 2): scipy's product and acCL's
pair list both need more than the 24 GiB machine (a run was killed by the kernel at 17
GiB), so the wide run keeps the terms per document, not the density.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

import numpy as np

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

BENCH = "sparse_chow_liu"


def corpus(n: int, d: int, density: float, seed: int = 0):
    """``n x d`` int8 CSR with about ``density * n * d`` ones at uniform random places
    (``sp.random`` takes minutes at 10**9 cells; repeated places are merged, ~0.1 %)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    nnz = round(density * n * d)
    X = sp.csr_matrix(
        (np.ones(nnz, dtype=np.int8), (rng.integers(0, n, nnz), rng.integers(0, d, nnz))),
        shape=(n, d),
    )
    X.sum_duplicates()
    X.data[:] = 1
    return X


def zipf_corpus(n: int, d: int, density: float, seed: int = 0):
    """``n x d`` int8 CSR whose column ``k`` has ones in about ``n p_k`` random rows, ``p_k``
    proportional to ``(k + 1) ** -0.9`` (at most 1), ``density * n * d`` ones in all."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    p = 0.3 / np.arange(1, d + 1) ** 0.9
    p = np.minimum(1.0, p * (density * d / p.sum()))
    per_column = np.minimum(rng.poisson(p * n), n)
    rows = np.concatenate([rng.choice(n, k, replace=False) for k in per_column])
    cols = np.repeat(np.arange(d), per_column)
    return sp.csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n, d))


def before_after(before: str, shape: list[str], repeat: int, case: str, json_path) -> list[dict]:
    """``--before``: children of the older tree's script and this one's, alternating."""
    scripts = {
        "before": os.path.join(os.path.abspath(before), "benchmarks", "bench_sparse.py"),
        "after": __file__,
    }
    runs: dict[str, list[dict]] = {side: [] for side in scripts}
    for _ in range(repeat):
        for side, script in scripts.items():
            runs[side].append(measure_in_child(script, "--time-child", *shape))
    return _median_rows(
        runs, case, "", lambda r: f"{r['chow_liu']:.3f} / {r['product']:.3f} s", json_path
    )


def _median_rows(runs: dict[str, list[dict]], case: str, how: str, each_run, json_path):
    """One row per side and metric: the product's and tl.chow_liu's seconds and their ratio,
    the median over the children (``how`` says how each child timed), each child's
    ``each_run`` text as the note; printed and written to ``json_path``."""
    rows = []
    for side, got in runs.items():
        each = "; ".join(each_run(r) for r in got)
        for metric, value, unit in (
            (f"scipy X.T @ X{how} (median of children)", [r["product"] for r in got], "s"),
            (f"tl.chow_liu{how} (median of children)", [r["chow_liu"] for r in got], "s"),
            ("ratio to X.T @ X (median)", [r["chow_liu"] / r["product"] for r in got], "x"),
        ):
            rows.append(
                row(BENCH, case, f"{side}: {metric}", statistics.median(value), unit, note=each)
            )
    print_table(rows)
    if json_path:
        write_json(rows, json_path)
    return rows


def warm_before_after(
    before: str, shape: list[str], repeat: int, best_of: int, case: str, json_path
) -> list[dict]:
    """``--warm-cpu N --before DIR``: warm CPU best of ``N`` in children of this script, the
    older tree's package first on ``sys.path`` and this one's, alternating."""
    import subprocess

    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for _ in range(repeat):
        for side in runs:
            package = ["--package", os.path.abspath(before)] if side == "before" else []
            out = subprocess.run(
                [sys.executable, __file__, "--warm-child", str(best_of), *package, *shape],
                capture_output=True,
                text=True,
                check=True,
            )
            got = json.loads(out.stdout.strip().splitlines()[-1])
            if side == "before" and not got["package"].startswith(os.path.abspath(before)):
                raise RuntimeError(f"the before child imported {got['package']}")
            runs[side].append(got)
    return _median_rows(
        runs,
        case,
        f", CPU best of {best_of}",
        lambda r: f"{r['chow_liu'] * 1e3:.0f} / {r['product'] * 1e3:.1f} ms",
        json_path,
    )


def cpu_best(fn, best_of: int) -> float:
    """The least CPU seconds of ``best_of`` calls of ``fn`` after one warm-up call."""
    import time

    fn()
    times = []
    for _ in range(best_of):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--d", type=int, default=50_000)
    ap.add_argument("--density", type=float, default=0.002)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--zipf", action="store_true", help="text-like term frequencies")
    ap.add_argument(
        "--wide",
        action="store_true",
        help="20,000 x 200,000 at 0.05 %%: time and peak memory in children only",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="fresh child processes timing X.T @ X then tl.chow_liu (median)",
    )
    ap.add_argument("--json", default=None)
    ap.add_argument(
        "--before", default=None, help="a worktree of an older commit: before/after in one run"
    )
    ap.add_argument(
        "--warm-cpu",
        type=int,
        default=0,
        help="with --before: warm CPU time, best of N calls per child",
    )
    ap.add_argument("--warm-child", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--package", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--memory-child", choices=["chow_liu", "product"], help=argparse.SUPPRESS)
    ap.add_argument("--time-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.quick:
        args.n, args.d = 5_000, 20_000
        args.repeat = args.repeat if args.before else 1
    child = args.memory_child or args.time_child or args.warm_child
    print(pin_blas(1), file=sys.stderr if child else sys.stdout)
    if args.package:  # a warm child of --before: the older tree's package
        sys.path.insert(0, args.package)
    import treelearn as tl

    # the facade loads treelearn.learners on first use (networkx and more, ~1.4 s once per
    # process): resolved before any timing, as scipy is imported before X.T @ X is timed
    chow_liu = tl.chow_liu
    X = (zipf_corpus if args.zipf else corpus)(args.n, args.d, args.density)
    cols = [f"t{j}" for j in range(args.d)]
    if args.memory_child:
        call = (
            (lambda: X.T @ X)
            if args.memory_child == "product"
            else (lambda: chow_liu(X, names=cols))
        )
        m = peak_rss_increase(call)
        m.pop("result")
        print(json.dumps(m, default=str))
        return []
    if args.warm_child:  # warm CPU, best of N each
        product_cpu = cpu_best(lambda: X.T @ X, args.warm_child)
        learn_cpu = cpu_best(lambda: chow_liu(X, names=cols), args.warm_child)
        package = os.path.dirname(os.path.dirname(os.path.abspath(tl.__file__)))
        print(json.dumps({"product": product_cpu, "chow_liu": learn_cpu, "package": package}))
        return []
    if args.time_child:  # each call once, the product freed before tl.chow_liu runs
        product = timeit(lambda: X.T @ X, repeat=1, warmup=0)
        product.pop("result")
        learn = timeit(lambda: chow_liu(X, names=cols), repeat=1, warmup=0)
        print(json.dumps({"product": product["best"], "chow_liu": learn["best"]}))
        return []
    print("machine:", machine())
    if args.wide:
        return wide(args.json)
    case = f"n={args.n:,} d={args.d:,} density={args.density}" + (" zipf" if args.zipf else "")
    # the headline: X.T @ X then tl.chow_liu, each once in a fresh child (the first call's
    # fresh memory is most of what varies on a shared VM), the median of --repeat children
    shape = [
        "--n",
        str(args.n),
        "--d",
        str(args.d),
        "--density",
        str(args.density),
        *(["--zipf"] if args.zipf else []),
    ]
    if args.before is not None and args.warm_cpu:
        return warm_before_after(args.before, shape, args.repeat, args.warm_cpu, case, args.json)
    if args.before is not None:
        return before_after(args.before, shape, args.repeat, case, args.json)
    runs = [measure_in_child(__file__, "--time-child", *shape) for _ in range(args.repeat)]
    ratios = [r["chow_liu"] / r["product"] for r in runs]
    each = "; ".join(f"{r['chow_liu']:.2f} / {r['product']:.2f} s" for r in runs)
    learn = timeit(lambda: chow_liu(X, names=cols), repeat=1, warmup=0)
    model = learn["result"]
    # where the time goes: counting (the sparse product), the tree, the rest (CPTs, model)
    from treelearn.structure._sparse_chow_liu import (
        sparse_binary_statistics,
        sparse_spanning_skeleton,
    )

    counting = timeit(lambda: sparse_binary_statistics(X, cols), repeat=1, warmup=0)
    stats = counting.pop("result")
    pairs = len(stats.counted_j)  # the pairs as counted (pair_i would sort them first)
    tree = timeit(lambda s=stats: sparse_spanning_skeleton(s), repeat=1, warmup=0)
    tree.pop("result")
    del stats
    rows = [
        row(
            BENCH,
            case,
            "scipy X.T @ X (median of children)",
            statistics.median(r["product"] for r in runs),
            "s",
        ),
        row(
            BENCH,
            case,
            "tl.chow_liu (sparse, median of children)",
            statistics.median(r["chow_liu"] for r in runs),
            "s",
        ),
        row(
            BENCH,
            case,
            "ratio to X.T @ X (median of children)",
            statistics.median(ratios),
            "x",
            note=f"each child, tl.chow_liu / X.T @ X: {each}",
        ),
        row(BENCH, case, "co-occurring pairs (i < j)", pairs, ""),
        row(BENCH, case, "  counting (sparse_binary_statistics)", counting["best"], "s"),
        row(BENCH, case, "  tree (sparse_spanning_skeleton)", tree["best"], "s"),
        row(
            BENCH,
            case,
            "tree edges",
            model.graph.number_of_edges(),
            "",
            "d - 1",
            model.graph.number_of_edges() == args.d - 1,
        ),
        row(BENCH, case, "dense d x d pair counts would take", 4 * args.d**2 * 8 / 2**30, "GiB"),
    ]
    if not args.quick:
        for what in ("chow_liu", "product"):
            m = measure_in_child(
                __file__,
                "--memory-child",
                what,
                "--n",
                str(args.n),
                "--d",
                str(args.d),
                "--density",
                str(args.density),
                *(["--zipf"] if args.zipf else []),
            )
            label = "tl.chow_liu" if what == "chow_liu" else "scipy X.T @ X"
            rows.append(
                row(BENCH, case, f"peak RSS rise ({label})", m["peak_increase"] / 2**20, "MiB")
            )
            rows.append(
                row(
                    BENCH, case, f"tracemalloc peak ({label})", m["tracemalloc_peak"] / 2**20, "MiB"
                )
            )
    print_table(rows)
    write_json(rows, args.json)
    return rows


def wide(
    json_path: str | None, n: int = 20_000, d: int = 200_000, density: float = 0.0005
) -> list[dict]:
    """The 200,000-term run: ``tl.chow_liu`` and ``X.T @ X`` in fresh children (wall seconds
    of the calls in one child, peak RSS rise of each in its own); acCL never builds the
    d x d matrix."""
    case = f"n={n:,} d={d:,} density={density}"
    shape = ["--n", str(n), "--d", str(d), "--density", str(density)]
    found = {
        what: measure_in_child(__file__, "--memory-child", what, *shape)
        for what in ("chow_liu", "product")
    }
    ours, floor = found["chow_liu"], found["product"]
    # the seconds from a child of its own: the memory child traces every allocation
    # (tracemalloc), which slows tl.chow_liu's Python objects several times, not X.T @ X
    timed = measure_in_child(__file__, "--time-child", *shape)
    rows = [
        row(BENCH, case, "tl.chow_liu (sparse), wall s in a child", timed["chow_liu"], "s"),
        row(BENCH, case, "scipy X.T @ X, wall s in a child", timed["product"], "s"),
        row(BENCH, case, "ratio to X.T @ X", timed["chow_liu"] / timed["product"], "x"),
        row(
            BENCH,
            case,
            "peak RSS rise (tl.chow_liu)",
            ours["peak_increase"] / 2**30,
            "GiB",
            "< 24",
            ours["peak_increase"] < 24 * 2**30,
        ),
        row(BENCH, case, "peak RSS rise (scipy X.T @ X)", floor["peak_increase"] / 2**30, "GiB"),
        row(BENCH, case, "dense d x d pair counts would take", 4 * d**2 * 8 / 2**30, "GiB"),
    ]
    print_table(rows)
    write_json(rows, json_path)
    return rows


if __name__ == "__main__":
    main()
