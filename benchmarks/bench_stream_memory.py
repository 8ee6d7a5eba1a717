"""Memory of a classifier learned from a CSV file in chunks, against the same file read
whole by pandas first (issue 39: memory that does not grow with rows).

For each row count (a synthetic labelled table: two numeric columns, one with gaps, seven
text columns, a 3-class label) and each case, a fresh child process runs the call once on
a small file first (imports, caches), then measures the call: the rise of the peak
resident set (``VmHWM`` reset before the call) and the tracemalloc peak (numpy and Python
allocations; pandas' parser strings are not traced). Answers are compared first: the
streamed and the whole-read classifier give the same ``predict_log_proba`` on the first
rows (to 1e-9: the leave-one-out losses are sums over rows in another grouping). BLAS is
pinned to one thread.

Cases: ``NaiveBayes`` / ``KDB`` (its ``k="auto"`` leave-one-out over every row) with
``fit(path, "label")`` against ``fit(pd.read_csv(path))``; ``NaiveBayes(numbers="states")``
on the table without its float column; the command ``treelearn learn FILE --class label
--method kdb --missing pairwise`` streamed against the same command forced to read whole
(``--keep label``, an option the streamed path leaves to the whole read).

    python benchmarks/bench_stream_memory.py --rows 200000 400000 1000000
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from _common import measure_in_child, peak_rss_increase, pin_blas, print_table, row, write_json

CASES = {
    "NaiveBayes": "tl.NaiveBayes()",
    "KDB": "tl.KDB()",
    "NaiveBayes-states": "tl.NaiveBayes(numbers='states')",
}


def make_table(n: int, path: str, states: bool = False) -> None:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    y = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    shift = pd.Series(y).map({"a": 0.0, "b": 1.5, "c": 3.0}).to_numpy()
    cols: dict = {"age": np.round(30 + 8 * shift + rng.normal(0, 6, n)).astype(int)}
    if not states:
        wage = np.round(10 + 2 * shift + rng.normal(0, 2, n), 2)
        wage[rng.random(n) < 0.05] = np.nan
        cols["wage"] = wage
    for i in range(6):
        p = rng.random(n) < 0.3 + 0.1 * shift / 3
        cols[f"f{i}"] = np.where(
            p, rng.choice(["u", "v"], size=n), rng.choice(["w", "x", "z"], size=n)
        )
    cols["town"] = rng.choice(["x", "y", "z", "q"], size=n)
    cols["label"] = y
    pd.DataFrame(cols).to_csv(path, index=False)


def child(case: str, how: str, path: str, warm: str) -> None:
    """One measurement in this (fresh) process: prints one JSON line."""
    pin_blas(1)
    import numpy as np
    import pandas as pd

    import treelearn as tl

    if case == "cli":
        from treelearn.cli._main import main

        args = ["learn", "PATH", "--class", "label", "--method", "kdb", "--missing", "pairwise"]
        args += ["--keep", "label"] if how == "whole" else []
        devnull = open(os.devnull, "w")  # noqa: SIM115 - the printed model is not measured
        stdout, stderr = sys.stdout, sys.stderr

        def call(p: str):
            sys.stdout = sys.stderr = devnull
            try:
                return main([p if a == "PATH" else a for a in args])
            finally:
                sys.stdout, sys.stderr = stdout, stderr

        call(warm)
        m = peak_rss_increase(lambda: call(path))
        assert m.pop("result") == 0
    else:
        make = eval(CASES[case], {"tl": tl})

        def call(p: str):
            clf = eval(CASES[case], {"tl": tl})
            if how == "streamed":
                return clf.fit(p, "label")
            df = pd.read_csv(p)
            return clf.fit(df.drop(columns="label"), df["label"])

        call(warm)
        m = peak_rss_increase(lambda: call(path))
        fitted = m.pop("result")
        X = pd.read_csv(path, nrows=2000).drop(columns="label")
        m["answers"] = np.asarray(fitted.predict_log_proba(X)).tolist()
        del make
    print(json.dumps(m))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[200_000, 400_000, 1_000_000])
    parser.add_argument("--dir", default="/tmp/treelearn-bench")
    parser.add_argument("--json")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    import numpy as np

    os.makedirs(args.dir, exist_ok=True)
    print(pin_blas(1))
    with open("/proc/loadavg") as fh:
        print("load average:", fh.read().split()[:3])
    rows = []
    for n in args.rows:
        files = {}
        for states in (False, True):
            tag = "states" if states else "mixed"
            path = os.path.join(args.dir, f"stream_{tag}_{n}.csv")
            warm = os.path.join(args.dir, f"stream_{tag}_warm.csv")
            if not os.path.exists(path):
                make_table(n, path, states)
            if not os.path.exists(warm):
                make_table(3000, warm, states)
            files[tag] = (path, warm)
        for case in (*CASES, "cli"):
            path, warm = files["states" if case.endswith("states") else "mixed"]
            got = {
                how: measure_in_child(__file__, "--child", case, how, path, warm)
                for how in ("streamed", "whole")
            }
            if case != "cli":  # answers first
                np.testing.assert_allclose(
                    got["streamed"]["answers"], got["whole"]["answers"], rtol=1e-9, atol=1e-9
                )
            s, w = got["streamed"], got["whole"]
            name = f"{case} {n:,} rows"
            for metric, key in (
                ("peak RSS rise", "peak_increase"),
                ("tracemalloc", "tracemalloc_peak"),
            ):
                ratio = s[key] / w[key] if w[key] else float("nan")
                rows.append(
                    row(
                        "stream_memory",
                        name,
                        metric,
                        f"{s[key] / 2**20:.1f} vs {w[key] / 2**20:.1f} MiB",
                        note=f"streamed / whole {ratio:.2f}x; {s['seconds']:.1f} vs {w['seconds']:.1f} s wall",
                    )
                )
    print_table(rows)
    write_json(rows, args.json)


if __name__ == "__main__":
    main()
