"""Start-up of the command line and of ``tl.load`` on a saved tree (issue 19, point 4).

    .venv/bin/python benchmarks/bench_startup.py [--quick] [--json OUT]

Each case runs in a fresh Python process, several times; the figure is the best CPU
time (user + system of the child, from ``resource.getrusage``), which a loaded
machine disturbs less than wall time. The baseline is ``python -c "import numpy,
pandas, networkx"``, the libraries every treelearn command needs; the target is each
command at most 1.3x that. The cases: ``treelearn query``, ``show`` and ``score`` on a
saved Chow-Liu tree of the bundled ASIA data (through ``python -m treelearn``, the
installed command's entry point), and ``import treelearn; tl.load(tree)``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile

from _common import ROOT, machine, pin_blas, print_table, row, write_json

BENCH = "startup"
BASELINE = "import numpy, pandas, networkx"


def cpu_seconds(cmd: list[str], repeat: int) -> float:
    """The best user + system CPU time of ``repeat`` runs of ``cmd`` (a fresh process each)."""
    best = float("inf")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="3 runs per case instead of 7")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    print(pin_blas(1), file=sys.stderr)
    print("machine:", machine(), file=sys.stderr)
    repeat = 3 if args.quick else 7
    py = sys.executable
    asia = str(ROOT / "datasets" / "asia.csv")
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "asia.json")
        subprocess.run(
            [py, "-m", "treelearn", "learn", asia, "-o", tree],
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        cases = {
            "treelearn query": [
                py,
                "-m",
                "treelearn",
                "query",
                tree,
                "lung",
                "--given",
                "smoke=yes",
            ],
            "treelearn show": [py, "-m", "treelearn", "show", tree],
            "treelearn score": [py, "-m", "treelearn", "score", tree, asia],
            "tl.load(tree)": [py, "-c", f"import treelearn as tl; tl.load({tree!r})"],
        }
        base = cpu_seconds([py, "-c", BASELINE], repeat)
        rows = [row(BENCH, "baseline", BASELINE, base, "s CPU", note=f"best of {repeat}")]
        for case, cmd in cases.items():
            t = cpu_seconds(cmd, repeat)
            ratio = t / base
            rows.append(row(BENCH, case, "CPU time", t, "s CPU", note=f"best of {repeat}"))
            rows.append(row(BENCH, case, "/ baseline", ratio, "x", "<= 1.3", ratio <= 1.3))
    print_table(rows)
    write_json(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
